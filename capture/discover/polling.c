/*
 * Polling (issue 17): the I/Os of a node whose number depends on timing,
 * not on what the program computes. A client retrying connect() until
 * its server listens makes as many failed attempts as the server took to
 * start; a shell loop re-running curl runs it as often. The passes of
 * --discover are compared without them (passmerge.c), and the waits found in
 * a pass are moved onto the I/Os that are not polling.
 *
 * Only what the whole trace shows is marked here; the interposer already
 * treats failed calls and repeated looks as tries (preload/holds.c).
 */
#include <stdlib.h>
#include <string.h>

#include "capture/discover/discover.h"
#include "util.h"

static const char *const names[] = {
	[POLL_NONE] = "", [POLL_FAIL] = "fail", [POLL_ATTEMPT] = "attempt",
	[POLL_RETRY] = "retry", [POLL_REPEAT] = "repeat", [POLL_KERNEL] = "kernel",
	[POLL_WAKEUP] = "wakeup", [POLL_RUNTIME] = "runtime", [POLL_STOPPED] = "stopped",
};

const char *polling_name(int poll)
{
	return poll > 0 && poll < (int)(sizeof(names) / sizeof(names[0])) ? names[poll] : "";
}

static int api_is(const struct tr_io *io, const char *api)
{
	size_t n = strlen(api);
	return !strncmp(io->what, api, n) && io->what[n] == ' ';
}

/* A look changes nothing: done again with the same result, it polls. */
static int is_look(const struct tr_io *io)
{
	static const char *const looks[] = { "stat", "lstat", "fstatat", "statx",
		"access", "faccessat", "euidaccess", "eaccess", "readlink", "readlinkat" };

	for (size_t i = 0; i < sizeof(looks) / sizeof(looks[0]); i++)
		if (api_is(io, looks[i]))
			return 1;
	return 0;
}

/* Setting a descriptor up (non-blocking, options) does not use it. */
static int is_setup(const struct tr_io *io)
{
	static const char *const setup[] = { "fcntl", "setsockopt", "getsockopt",
		"ioctl", "fstat" };

	for (size_t i = 0; i < sizeof(setup) / sizeof(setup[0]); i++)
		if (api_is(io, setup[i]))
			return 1;
	return 0;
}

/* socket ... close of one descriptor, where every call between failed
 * or only set it up: the whole attempt is polling, its socket, set-up,
 * connect in progress and close too (redis-cli's refused connect, tried
 * again at once in one process: a pass with one such attempt more had
 * its fcntl calls more). */
static void mark_attempts(struct tr_node *n)
{
	for (size_t i = 0; i < n->nio; i++) {
		struct tr_io *s = &n->io[i];
		if (!api_is(s, "socket") || s->failed || s->fd < 0)
			continue;
		int tried = 0, ok = 1;
		size_t end = 0;      /* the close's index */
		for (size_t k = i + 1; k < n->nio && ok; k++) {
			struct tr_io *c = &n->io[k];
			if (c->proc != s->proc || c->tid != s->tid)
				break;       /* the thread's I/Os are together */
			if (c->fd != s->fd)
				continue;
			if (api_is(c, "close")) {
				end = k;
				break;
			}
			if (c->failed)
				tried = 1;
			else if (!is_setup(c) && !(api_is(c, "connect") && c->result < 0))
				ok = 0;      /* the socket was used (a connect
						in progress is not yet) */
		}
		if (!end || !tried)
			continue;
		for (size_t j = i; j <= end; j++)
			if (n->io[j].fd == s->fd && n->io[j].proc == s->proc &&
			    n->io[j].tid == s->tid && n->io[j].poll == POLL_NONE)
				n->io[j].poll = POLL_ATTEMPT;
	}
}

/* A child that failed, and that its parent then ran again (the same
 * program): it, whatever the parent ran between the two (the sleep of a
 * retry loop) and the parent's own I/O meanwhile (finding sleep in the
 * PATH) are a retry. */
static void mark_retries(struct tr_node *n)
{
	char *retry = xcalloc(n->nprocs + 1, 1);
	struct { int32_t pid; int64_t from, to; } *span = xcalloc(n->nprocs + 1, sizeof(*span));
	size_t nspan = 0;

	for (size_t p = 0; p < n->nprocs; p++) {
		struct tr_proc *a = &n->procs[p];
		if (a->ok)
			continue;
		size_t again = n->nprocs;
		for (size_t q = 0; q < n->nprocs; q++) {
			struct tr_proc *b = &n->procs[q];
			if (q != p && b->ppid == a->ppid && !strcmp(b->exe, a->exe) &&
			    b->start >= a->end && (again == n->nprocs ||
						   b->start < n->procs[again].start))
				again = q;
		}
		if (again == n->nprocs)
			continue;
		span[nspan].pid = a->ppid;
		span[nspan].from = a->end;
		span[nspan++].to = n->procs[again].start;
		for (size_t q = 0; q < n->nprocs; q++) {
			struct tr_proc *b = &n->procs[q];
			if (b->ppid == a->ppid && b->start >= a->start &&
			    b->start < n->procs[again].start)
				retry[q] = 1;
		}
	}
	for (size_t i = 0; i < n->nio; i++) {
		struct tr_io *io = &n->io[i];
		if (io->proc >= 0 && retry[io->proc] && io->poll == POLL_NONE)
			io->poll = POLL_RETRY;
	}
	/* the parent's own I/O between the tries: a process's I/Os are
	 * together in trace order, so each span looks at its parent's only */
	size_t *first = xcalloc(n->nprocs + 1, sizeof(size_t)), *last = xcalloc(n->nprocs + 1, sizeof(size_t));
	for (size_t i = n->nio; i-- > 0;)
		if (n->io[i].proc >= 0) {
			first[n->io[i].proc] = i;
			if (!last[n->io[i].proc])
				last[n->io[i].proc] = i + 1;
		}
	for (size_t k = 0; k < nspan; k++)
		for (size_t q = 0; q < n->nprocs; q++) {
			if (n->procs[q].pid != span[k].pid)
				continue;
			for (size_t i = first[q]; i < last[q]; i++)
				if (n->io[i].proc == (int)q && n->io[i].poll == POLL_NONE &&
				    n->io[i].end >= span[k].from && n->io[i].end <= span[k].to)
					n->io[i].poll = POLL_RETRY;
		}
	free(first);
	free(last);
	free(span);
	free(retry);
}

/* In one thread, a look identical (call, path, result) to the thread's
 * previous unmarked I/O. A thread's I/Os are together in trace order. */
static void mark_repeats(struct tr_node *n)
{
	struct tr_io *last = NULL;

	for (size_t i = 0; i < n->nio; i++) {
		struct tr_io *c = &n->io[i];
		if (last && (last->proc != c->proc || last->tid != c->tid))
			last = NULL;
		if (c->poll)
			continue;
		if (last && is_look(c) && !strcmp(last->what, c->what) &&
		    last->result == c->result) {
			c->poll = POLL_REPEAT;
			continue;
		}
		last = c;
	}
}

/* The kernel's own files: what a process reads there (its statistics, a
 * clock source) says nothing to other nodes, and a timer decides when. */
static int is_kernel(const struct tr_io *io)
{
	const char *p = strchr(io->what, ' ');

	p = p ? strchr(p + 1, ' ') : NULL;
	return p && (!strncmp(p + 1, "/proc/", 6) || !strncmp(p + 1, "/sys/", 5));
}

/* A read or write of a descriptor that names nothing (made where the
 * capture did not see it) or an anonymous inode (eventfd, timerfd,
 * signalfd: "anon_inode:[eventfd]"). Such descriptors stay in their
 * process: Open MPI's progress engine wakes its own threads through an
 * eventfd, as often as timing makes it. */
static int is_wakeup(const struct tr_io *io)
{
	static const char *const rw[] = { "read", "write", "readv", "writev" };
	size_t l = strlen(io->what);

	if ((l < 2 || strcmp(io->what + l - 2, " -")) &&
	    strncmp(tr_target(io), "anon_inode:", 11))
		return 0;
	for (size_t i = 0; i < sizeof(rw) / sizeof(rw[0]); i++)
		if (api_is(io, rw[i]))
			return 1;
	return 0;
}

/* The path an I/O names, or "" */
const char *tr_target(const struct tr_io *io)
{
	const char *sp = strchr(io->what, ' ');
	sp = sp ? strchr(sp + 1, ' ') : NULL;
	return sp ? sp + 1 : "";
}

/* Open MPI's session directory ($TMPDIR/ompi.HOST.UID/) and shared-memory
 * segments: the ranks make them together, each directory by whichever
 * rank comes first (the others' mkdir fails, or is not made), so which
 * rank's I/O they are depends on timing. */
static void mark_runtime(struct tr_node *n)
{
	for (size_t i = 0; i < n->nio; i++) {
		const char *t = tr_target(&n->io[i]);
		if (t[0] == '/' && (strstr(t, "/ompi.") || strstr(t, "/vader_segment.")) &&
		    n->io[i].poll == POLL_NONE)
			n->io[i].poll = POLL_RUNTIME;
	}
}

/* An address "HOST:PORT" or "[V6]:PORT" (not a path, a pipe or "-") */
int tr_is_address(const char *t)
{
	return t[0] != '/' && strchr(t, ':') && strcmp(t, "pipe");
}

static int by_seq(const void *a, const void *b)
{
	const struct tr_io *x = *(const struct tr_io *const *)a, *y = *(const struct tr_io *const *)b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* An MPI rank's connections: Open MPI connects two ranks on the first
 * message between them, and which of the two connects and which accepts
 * (both, at times, and one connection is closed), and when, is timing.
 * Their setting up is the runtime's: the calls that make a socket, and
 * its first send and first receive (the TCP BTL's handshake, each side's
 * process name, read whole); so is their end: ranks close their
 * connections together in MPI_Finalize, and whether one reads its peer's
 * end of stream before closing its own is timing. The messages stay
 * (passmerge.c compares them peer by peer). */
static void mark_connections(struct tr_node *n)
{
	static const char *const setup[] = { "socket", "connect", "accept", "accept4",
		"fcntl", "setsockopt", "getsockopt", "getsockname", "getpeername",
		"bind", "close", "shutdown" };
	enum { SEND = 1, RECV = 2 };

	if (!n->mpi || !n->nio)
		return;
	int32_t maxfd = 0;
	const struct tr_io **o = xcalloc(n->nio, sizeof(*o));
	for (size_t i = 0; i < n->nio; i++) {
		o[i] = &n->io[i];
		if (n->io[i].fd > maxfd && n->io[i].fd < 65536)
			maxfd = n->io[i].fd;
	}
	/* in the order they completed: a connection's first send may be
	 * made by another thread than its accept */
	qsort(o, n->nio, sizeof(*o), by_seq);
	size_t w = (size_t)maxfd + 1;
	unsigned char *fresh = xcalloc((n->nprocs + 1) * w, 1);
	for (size_t i = 0; i < n->nio; i++) {
		struct tr_io *io = (struct tr_io *)o[i];
		if (!tr_is_address(tr_target(io)) || io->fd < 0 || io->fd > maxfd || io->proc < 0)
			continue;
		unsigned char *f = &fresh[(size_t)io->proc * w + (size_t)io->fd];
		size_t k = 0;
		while (k < sizeof(setup) / sizeof(setup[0]) && !api_is(io, setup[k]))
			k++;
		if (k < sizeof(setup) / sizeof(setup[0])) {
			if (!io->poll)
				io->poll = POLL_RUNTIME;
			*f = api_is(io, "close") ? 0 :
			     api_is(io, "socket") || api_is(io, "accept") ||
			     api_is(io, "accept4") ? SEND | RECV : *f;
			continue;
		}
		int bit = strstr(io->what, " netsend ") ? SEND :
			  strstr(io->what, " netrecv ") ? RECV : 0;
		if (bit == RECV && io->amount == 0 && !io->failed) {
			if (!io->poll)
				io->poll = POLL_RUNTIME;     /* an end of stream */
			continue;
		}
		if (bit && (*f & bit) && !io->failed) {
			*f &= (unsigned char)~bit;
			if (!io->poll)
				io->poll = POLL_RUNTIME;
		}
	}
	free(fresh);
	free(o);
}

/* A look at the path of the mkdir just before it in its thread checks
 * that mkdir's outcome (a `mkdir -p` walk): part of the attempt. */
static void mark_checks(struct tr_node *n)
{
	for (size_t i = 1; i < n->nio; i++) {
		struct tr_io *c = &n->io[i], *p = &n->io[i - 1];
		if (c->poll || !is_look(c) || p->proc != c->proc || p->tid != c->tid ||
		    !(api_is(p, "mkdir") || api_is(p, "mkdirat")))
			continue;
		if (!strcmp(tr_target(p), tr_target(c)))
			c->poll = POLL_ATTEMPT;
	}
}

void polling_mark(struct tr_node *n)
{
	for (size_t i = 0; i < n->nio; i++)
		n->io[i].poll = n->stopped >= 0 && n->io[i].start > n->stopped ? POLL_STOPPED :
				n->io[i].failed ? POLL_FAIL :
				is_kernel(&n->io[i]) ? POLL_KERNEL :
				is_wakeup(&n->io[i]) ? POLL_WAKEUP : POLL_NONE;
	mark_attempts(n);
	mark_checks(n);
	mark_runtime(n);
	mark_connections(n);
	mark_retries(n);
	mark_repeats(n);
}
