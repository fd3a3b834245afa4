/*
 * --discover, last step: check that every node issued the same I/O
 * sequence in every pass, gather the WAITs the throttled passes found,
 * and write one trace: every node's unthrottled trace (its compute and
 * I/O), with <wait> before and <signal> after the I/Os they concern.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlwriter.h>

#include "capture.h"
#include "capture/cluster/cluster.h"
#include "discover.h"
#include "capture/session/session.h"
#include "zstdio.h"
#include "util.h"
#include "trace/xmlcopy.h"
#include "mpideps.h"

struct mnode {
	char *file;
	char *pcap;                  /* its pcap attribute beside the output */
	const struct tr_node *base;  /* its unthrottled trace, polling marked */
	struct cdep *waits, *signals;
	size_t nwaits, nsignals, cw, cs;
};

/* Names whose numbers are not the application's, new in every pass: Open
 * MPI's own files (its session directory $TMPDIR/ompi.HOST.UID/, the
 * shared-memory segments /dev/shm/vader_segment.HOST.JOB.RANK, named
 * after the job's ids), a terminal's (/dev/pts/N: orted gives a rank's
 * output whichever pty is free); from where such a name begins, runs of
 * digits are set aside. */
static const char *given_names(const char *path)
{
	static const char *const marks[] = { "/ompi.", "/vader_segment." };

	if (!strncmp(path, "/dev/pts/", 9))
		return path;
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		const char *m = strstr(path, marks[i]);
		if (m)
			return m;
	}
	return NULL;
}

/* What must match between passes: the call, its resource class and the
 * file it named (the pass's scratch directory set aside, the pid of its
 * mpirun and the numbers others give: given_names); socket peers differ
 * from pass to pass (ports), so only their kind counts. */
char *discover_io_key(const char *what, const struct pass *p)
{
	char api[64], res[32], target[4096] = "", pid[24], out[4200];

	sscanf(what, "%63s %31s %4095[^\n]", api, res, target);
	if (target[0] != '/')
		return xasprintf("%s %s", api, res);
	size_t sl = strlen(p->scratch), pl = 0, n = 0;
	const char *t = target;
	if (!strncmp(t, p->scratch, sl)) {
		n = (size_t)snprintf(out, sizeof(out), "${SCRATCH}");
		t += sl;
	}
	if (p->mpirun > 0)
		pl = (size_t)snprintf(pid, sizeof(pid), "%ld", (long)p->mpirun);
	const char *ids = given_names(t);
	for (; *t && n + 16 < sizeof(out); t++) {
		int edge = t == target || !(t[-1] >= '0' && t[-1] <= '9');
		if (ids && t >= ids && *t >= '0' && *t <= '9') {
			if (edge)
				out[n++] = '#';
		} else if (pl && edge && !strncmp(t, pid, pl) && !(t[pl] >= '0' && t[pl] <= '9')) {
			n += (size_t)snprintf(out + n, sizeof(out) - n, "${MPIRUN}");
			t += pl - 1;
		} else {
			out[n++] = *t;
		}
	}
	out[n] = 0;
	return xasprintf("%s %s %s", api, res, out);
}

/* Copy file `from` to `to`, whole or not at all: into TO.tmpPID, made
 * O_EXCL|O_NOFOLLOW (the directory may be shared), renamed over `to`
 * (replacing a file or a link there, never writing through one); 0 or
 * -1 with errno. */
static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n = 0;
	int in = open(from, O_RDONLY | O_CLOEXEC), out, e;
	char *tmp = xasprintf("%s.tmp%d", to, (int)getpid());

	if (in < 0) {
		free(tmp);
		return -1;
	}
	out = create_excl(tmp, 0644);
	if (out < 0) {
		e = errno;
		close(in);
		free(tmp);
		errno = e;
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write_full(out, buf, (size_t)n) < 0) {
			n = -1;
			break;
		}
	e = errno;
	close(in);
	if (close(out) < 0 && n >= 0) {
		e = errno;
		n = -1;
	}
	if (n >= 0 && rename(tmp, to) < 0) {
		e = errno;
		n = -1;
	}
	if (n < 0)
		unlink(tmp);
	free(tmp);
	errno = e;
	return n < 0 ? -1 : 0;
}

/* The nodes' packets (--pcap) go beside the merged trace OUT.xml as
 * OUT.NODE.pcap (OUT.pcap is a one-node capture's), which its nodes name
 * instead of the pass's NODE.pcap: the passes' directory is gone once
 * the capture ends, unless kept, and another cluster's nodes of the same
 * name must not take their place. */
static char *pcap_beside(const char *output, const char *node)
{
	size_t l = strlen(output) - strlen(compress_suffix(compress_of(output)));

	if (l >= 4 && !strncmp(output + l - 4, ".xml", 4))
		l -= 4;
	return xasprintf("%.*s.%s.pcap", (int)l, output, node);
}

static int copy_pcaps(const struct pass *base, char **names, int n, const char *output)
{
	int rc = 0;

	for (int i = 0; i < n; i++) {
		char *from = xasprintf("%s/%s.pcap", base->dir, names[i]);
		char *to = pcap_beside(output, names[i]);

		if (access(from, F_OK) == 0 && copy_file(from, to) < 0) {
			warnx("%s: cannot copy %s's packets: %s", to, names[i], strerror(errno));
			rc = -1;
		}
		free(from);
		free(to);
	}
	return rc;
}

/*
 * One pass's traces, a node each, I/Os in number order. Passes are
 * compared thread by thread (the order in which a node's threads
 * interleave depends on timing, as polling does): a node's streams are
 * its threads that have I/Os other than polling, in trace order, each
 * the list of those I/Os (a run of receives, of reads, or of one write
 * call, on one descriptor counting as one), its receives apart from its other I/Os: on a socket the two
 * directions are independent, and whether a thread sends before or after
 * a message arrives is timing (Open MPI's PMIx thread). A wait found in a pass is moved onto the same place of the same
 * stream in the base pass.
 */
struct sio {
	uint64_t seq;
	int fd, eof;                 /* eof: an end of stream, joined to its
					descriptor's last receive */
	size_t place;
	int64_t off, amt;            /* bytes before it in its place, its bytes */
	int moves;                   /* a send or a receive to or from another
					node: its place is the bytes (add) */
	int wrun;                    /* a write, of a run of one call on one
					descriptor (add) */
	int64_t conn;                /* its connection (connections), -1 */
	const char *what;            /* its tr_io's */
};

struct io_stream {
	struct sio *io;              /* its I/Os, in order */
	size_t n, cap;
	size_t *first;               /* per place: its first I/O */
	size_t nplaces, pcap;
};

struct pnode {
	struct tr_node *me;
	struct tr_node *all;
	int nall;
	struct io_stream *st;
	size_t nst;
	int *keys;                   /* per stream: its stream_key, ascending */
	int *trank;                  /* per thread: its rank among the threads
					with I/Os not polling (stream_key) */
	int maxthr;
	int64_t *conn;               /* per I/O: its connection, -1 none */
	int *st_of;                  /* per I/O (number order): its stream, -1 */
	size_t *pos;                 /* ... and its index there */
	int *chan;                   /* ... and its peer: 1 + the node at the
					other end of its socket, 0 none */
	int nchan;                   /* nodes + 1 */
};

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

static int is_recv(const struct tr_io *io)
{
	const char *sp = strchr(io->what, ' ');
	return sp && !strncmp(sp, " netrecv ", 9);
}

/* Receives, and reads of a file: how many calls a run of them takes
 * depends on the sender's timing, or on the file's content then (the
 * system's /proc files: network interfaces come and go). */
static int is_read(const struct tr_io *io)
{
	const char *sp = strchr(io->what, ' ');
	return sp && (!strncmp(sp, " netrecv ", 9) || !strncmp(sp, " fileread ", 10));
}

/* A write of bytes to a file, a pipe, a socket to a host outside. */
static int is_write(const struct tr_io *io)
{
	const char *sp = strchr(io->what, ' ');
	return sp && (!strncmp(sp, " filewrite ", 11) || !strncmp(sp, " netsend ", 9));
}

/* the same call, "api res ..." */
static int same_api(const char *a, const char *b)
{
	size_t n = strcspn(a, " ");
	return !strncmp(a, b, n) && b[n] == ' ';
}

/* a send or a receive: bytes that go to or come from a peer */
static int moves(const struct tr_io *io)
{
	return is_recv(io) || strstr(io->what, " netsend ") != NULL;
}

static void add(struct io_stream *st, const struct tr_io *io, const struct tr_io *prev,
		int peer, int64_t conn)
{
	size_t j = st->n;

	XGROW(st->io, st->cap, j + 1);
	struct sio *e = &st->io[j];
	e->seq = io->seq;
	e->amt = io->amount > 0 ? io->amount : 0;
	/* a run of receives on one socket or pipe is one place: how the
	 * bytes arrive in pieces depends on the sender's timing; so is a
	 * run of reads of one file (its content may differ: /proc) */
	size_t eof = j;
	int run = j && prev && is_read(prev) && is_read(io) && prev->fd == io->fd &&
		  is_recv(prev) == is_recv(io);
	/* what a thread sends to, or receives from, one other node is one
	 * run of bytes: how many calls carry them is the peers' timing (an
	 * MPI rank's progress engine reads what has come, writes what the
	 * socket takes), which interleave with its other peers' is too */
	int bytes = peer && moves(io);
	if (bytes && j && st->io[j - 1].moves)
		run = 1;
	/* so is a run of one write call on one descriptor, whatever the
	 * thread did between them apart from this stream: a download written
	 * out as it arrives (curl: recv, fwrite, recv...) writes in as many
	 * calls as the receives took, which is the sender's timing. Its bytes
	 * are not compared, as a single write's never were: what a program
	 * writes may be timing itself (a benchmark's results) */
	int wrun = !bytes && is_write(io);
	if (wrun && j && st->io[j - 1].wrun && st->io[j - 1].fd == io->fd &&
	    same_api(st->io[j - 1].what, io->what))
		run = 1;
	/* an end of stream read apart from its run joins the descriptor's
	 * last receive: whether a thread reads the end before closing its
	 * side is timing (Open MPI ranks close their connections together in
	 * MPI_Finalize) */
	if (!run && is_recv(io) && io->amount == 0)
		while (eof > 0 && st->io[eof - 1].fd != io->fd)
			eof--;
	e->seq = io->seq;
	e->fd = io->fd;
	e->eof = 0;
	e->moves = bytes;
	e->wrun = wrun;
	e->what = io->what;
	e->conn = conn;
	if (run) {
		e->place = e[-1].place;
		e->off = e[-1].off + e[-1].amt;
	} else if (eof > 0 && eof < j && is_recv(io) && io->amount == 0) {
		e->eof = 1;
		e->place = st->io[eof - 1].place;
		e->off = st->io[eof - 1].off + st->io[eof - 1].amt;
	} else {
		XGROW(st->first, st->pcap, st->nplaces + 1);
		st->first[st->nplaces] = j;
		e->place = st->nplaces++;
		e->off = 0;
	}
	st->n++;
}

/* A thread's receives are one stream, its other I/Os another; what the
 * node sends to, or receives from, each other node is one stream more,
 * whichever thread made the call: in what order a thread serves its
 * peers is timing (an MPI rank's connections come up as its progress
 * engine sees them), and so is which thread reads what has come (its
 * main thread in MPI_Recv, or its progress thread); what it exchanges
 * with each is not. */
static int stream_key(const struct pnode *pn, size_t k)
{
	const struct tr_io *io = &pn->me->io[k];
	int whose = pn->chan[k] && moves(io) ? -1 : io->thr < 0 ? io->thr : pn->trank[io->thr];

	return (whose * pn->nchan + pn->chan[k]) * 2 + is_recv(io);
}

/* Every node's own socket addresses, sorted: whose is a peer (a binary
 * search: a thousand nodes' merge looked through all of them per I/O). */
struct local_at {
	const char *addr;
	int node;
};

static int cmp_local(const void *a, const void *b)
{
	const struct local_at *x = a, *y = b;
	int c = strcmp(x->addr, y->addr);

	return c ? c : x->node - y->node;
}

static struct local_at *locals_index(const struct pnode *pn, int n, size_t *count)
{
	size_t total = 0, k = 0;

	for (int j = 0; j < n; j++)
		total += pn[j].me->nlocals;
	struct local_at *v = xmalloc((total + 1) * sizeof(*v));
	for (int j = 0; j < n; j++)
		for (size_t l = 0; l < pn[j].me->nlocals; l++)
			v[k++] = (struct local_at){ pn[j].me->locals[l], j };
	if (k)
		qsort(v, k, sizeof(*v), cmp_local);
	*count = k;
	return v;
}

/* The peer I/O k of node i names: 1 + the node whose socket has that
 * address as its own (the first such node but i), 0 when none (a file,
 * a pipe, a host outside). */
static int peer_node(const struct pnode *pn, const struct local_at *v, size_t nv, int i,
		     size_t k)
{
	const char *t = tr_target(&pn[i].me->io[k]);
	size_t lo = 0, hi = nv;

	if (!tr_is_address(t))
		return 0;
	while (lo < hi) {            /* the first entry with addr t */
		size_t mid = (lo + hi) / 2;
		if (strcmp(v[mid].addr, t) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < nv && !strcmp(v[lo].addr, t); lo++)
		if (v[lo].node != i)
			return v[lo].node + 1;
	return 0;
}

/* Threads are matched across passes by their rank among those with I/Os
 * not polling: a retried process's threads come before them in some
 * passes only (redis-cli pinging a server not yet up). */
static void thread_ranks(struct pnode *pn)
{
	const struct tr_node *m = pn->me;

	for (size_t k = 0; k < m->nio; k++)
		if (m->io[k].thr > pn->maxthr)
			pn->maxthr = m->io[k].thr;
	pn->trank = xcalloc((size_t)pn->maxthr + 2, sizeof(int));
	for (size_t k = 0; k < m->nio; k++)
		if (!m->io[k].poll && m->io[k].thr >= 0)
			pn->trank[m->io[k].thr] = 1;
	for (int t = 0, r = 0; t <= pn->maxthr; t++)
		pn->trank[t] = pn->trank[t] ? r++ : -1;
}

struct conn_at {
	const char *local;           /* a connect's own address */
	int64_t id;
};

static int cmp_conn(const void *a, const void *b)
{
	return strcmp(((const struct conn_at *)a)->local, ((const struct conn_at *)b)->local);
}

static int is_call(const struct tr_io *io, const char *api)
{
	size_t n = strlen(api);
	return !strncmp(io->what, api, n) && io->what[n] == ' ';
}

/*
 * Each I/O's connection, the same in every pass: the node that connected,
 * its thread's rank and which of that thread's connects (not polling) it
 * was; its ports are new in every pass. The connecting side knows it by
 * the descriptor its connect made, the accepting side by the peer address
 * (the connect's local=). How an event-loop server interleaves its
 * clients' requests is timing (redis-benchmark -c 4: two requests of as
 * many bytes on two connections came in either order), so a wait on a
 * socket's bytes moves onto the same connection's call (to_base).
 */
static void connections(struct pnode *pn, int n)
{
	struct conn_at *ca = NULL;
	size_t nca = 0, cap = 0;

	for (int i = 0; i < n; i++) {
		const struct tr_node *m = pn[i].me;
		int64_t *count = xcalloc((size_t)pn[i].maxthr + 3, sizeof(int64_t));

		pn[i].conn = xcalloc(m->nio + 1, sizeof(int64_t));
		for (size_t k = 0; k < m->nio; k++) {
			const struct tr_io *io = &m->io[k];
			int r = io->thr < 0 ? -1 : pn[i].trank[io->thr];

			pn[i].conn[k] = -1;
			if (io->poll || !io->local || !is_call(io, "connect"))
				continue;
			pn[i].conn[k] = ((int64_t)i << 40) | ((int64_t)(r + 1) << 24) | count[r + 1]++;
			XGROW(ca, cap, nca + 1);
			ca[nca++] = (struct conn_at){ io->local, pn[i].conn[k] };
		}
		free(count);
	}
	if (nca)
		qsort(ca, nca, sizeof(*ca), cmp_conn);
	for (int i = 0; i < n; i++) {
		const struct tr_node *m = pn[i].me;
		/* per process and descriptor, the connection its connect made */
		struct fdconn { int proc; int32_t fd; int64_t id; } *fds = NULL;
		size_t nfds = 0, fcap = 0;

		for (size_t k = 0; k < m->nio; k++) {
			const struct tr_io *io = &m->io[k];
			struct conn_at key = { tr_target(io), 0 }, *hit = NULL;
			size_t f = 0;

			while (f < nfds && !(fds[f].proc == io->proc && fds[f].fd == io->fd))
				f++;
			int made = is_call(io, "connect") || is_call(io, "accept") ||
				   is_call(io, "accept4");
			if (made || is_call(io, "socket") || is_call(io, "close")) {
				if (f == nfds && made) {
					XGROW(fds, fcap, nfds + 1);
					fds[nfds++] = (struct fdconn){ io->proc, io->fd, -1 };
				}
				if (f < nfds)
					fds[f].id = pn[i].conn[k];
				continue;
			}
			if (nca && tr_is_address(key.local))
				hit = bsearch(&key, ca, nca, sizeof(*ca), cmp_conn);
			pn[i].conn[k] = hit ? hit->id : f < nfds ? fds[f].id : -1;
		}
		free(fds);
	}
	free(ca);
}

static void make_streams(struct pnode *pn)
{
	struct tr_node *m = pn->me;
	int *thr = xcalloc(m->nio + 1, sizeof(int));
	size_t nthr = 0;
	int maxthr = pn->maxthr;

	for (size_t k = 0; k < m->nio; k++)
		if (!m->io[k].poll)
			thr[nthr++] = stream_key(pn, k);
	qsort(thr, nthr, sizeof(int), cmp_int);
	size_t u = 0;
	for (size_t k = 0; k < nthr; k++)
		if (!u || thr[u - 1] != thr[k])
			thr[u++] = thr[k];
	pn->nst = u;
	pn->st = xcalloc(u + 1, sizeof(*pn->st));
	pn->st_of = xcalloc(m->nio + 1, sizeof(int));
	pn->pos = xcalloc(m->nio + 1, sizeof(size_t));
	/* a run of receives is one of its thread's I/Os after another (an
	 * I/O on another descriptor between them ends it), whichever stream
	 * they go to */
	const struct tr_io **last = xcalloc((size_t)maxthr + 2, sizeof(*last));
	for (size_t k = 0; k < m->nio; k++) {
		pn->st_of[k] = -1;
		if (m->io[k].poll)
			continue;
		int key = stream_key(pn, k), th = m->io[k].thr < 0 ? maxthr + 1 : m->io[k].thr;
		int *hit = bsearch(&key, thr, u, sizeof(int), cmp_int);
		size_t s = (size_t)(hit - thr);
		pn->st_of[k] = (int)s;
		pn->pos[k] = pn->st[s].n;
		add(&pn->st[s], &m->io[k], last[th], pn->chan[k], pn->conn[k]);
		/* a send on the descriptor being received from does not end
		 * the run: a request written while the answer arrives (PMIx) */
		if (!(last[th] && is_recv(last[th]) && !is_read(&m->io[k]) &&
		      last[th]->fd == m->io[k].fd))
			last[th] = &m->io[k];
	}
	free(last);
	pn->keys = thr;
}

/* The stream of pn that has key, or -1: a server stopped in one pass
 * may lack a stream the other pass has (check_same). */
static int stream_of_key(const struct pnode *pn, int key)
{
	int *hit = bsearch(&key, pn->keys, pn->nst, sizeof(int), cmp_int);
	return hit ? (int)(hit - pn->keys) : -1;
}

static int load_pass(struct pass *p, char **names, int n, struct pnode **out)
{
	struct pnode *pn = xcalloc((size_t)n, sizeof(*pn));

	*out = pn;
	for (int i = 0; i < n; i++) {
		char *f = xasprintf("%s/%s.xml", p->dir, names[i]);
		int rc = tr_scan(f, &pn[i].all, &pn[i].nall);

		if (rc == 0 && !(pn[i].me = tr_find(pn[i].all, pn[i].nall, names[i]))) {
			warn_at(f, 0, "no node '%s'", names[i]);
			rc = -1;
		}
		free(f);
		if (rc < 0)
			return -1;
	}
	/* every node's sockets known: whose is each peer */
	size_t nv;
	struct local_at *v = locals_index(pn, n, &nv);
	for (int i = 0; i < n; i++) {
		pn[i].nchan = n + 1;
		pn[i].chan = xcalloc(pn[i].me->nio + 1, sizeof(int));
		for (size_t k = 0; k < pn[i].me->nio; k++)
			pn[i].chan[k] = peer_node(pn, v, nv, i, k);
		thread_ranks(&pn[i]);
	}
	free(v);
	connections(pn, n);
	for (int i = 0; i < n; i++)
		make_streams(&pn[i]);
	return 0;
}

static void free_pass(struct pnode *pn, int n)
{
	for (int i = 0; pn && i < n; i++) {
		tr_scan_free(pn[i].all, pn[i].nall);
		for (size_t s = 0; s < pn[i].nst; s++) {
			free(pn[i].st[s].io);
			free(pn[i].st[s].first);
		}
		free(pn[i].st);
		free(pn[i].st_of);
		free(pn[i].keys);
		free(pn[i].trank);
		free(pn[i].conn);
		free(pn[i].pos);
		free(pn[i].chan);
	}
	free(pn);
}

/* Index of the first I/O numbered seq or more; nio when none. */
static size_t io_index(const struct tr_node *m, uint64_t seq)
{
	size_t lo = 0, hi = m->nio;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->io[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct tr_io *io_of(const struct tr_node *m, uint64_t seq)
{
	size_t k = io_index(m, seq);
	return k < m->nio && m->io[k].seq == seq ? &m->io[k] : NULL;
}

/* Where I/O seq of a pass goes in the base pass: itself when it is not
 * polling, else its thread's next such I/O (up: the waiting side; the
 * node's next one when that thread has none left, a retried process that
 * ended) or its thread's previous one (the side waited for); 0 when
 * there is none. */
static uint64_t to_base(const struct pnode *pn, const struct pnode *base, uint64_t seq,
			int up)
{
	const struct tr_node *m = pn->me;
	size_t k = io_index(m, seq), f = m->nio;

	if (!up && (k == m->nio || m->io[k].seq != seq)) {
		if (!k)
			return 0;
		k--;
	}
	if (k >= m->nio)
		return 0;
	int thr = m->io[k].thr;
	for (size_t i = k;;) {
		if (pn->st_of[i] >= 0 && up && f == m->nio)
			f = i;           /* the node's next */
		if (m->io[i].thr == thr && pn->st_of[i] >= 0) {
			f = i;
			break;
		}
		if (up ? ++i >= m->nio : i-- == 0)
			break;
	}
	if (f == m->nio || (!up && m->io[f].thr != thr))
		return 0;
	/* the same place of the same stream; in a run of receives or of
	 * writes, the call that moved the same byte */
	int s = stream_of_key(base, pn->keys[pn->st_of[f]]);
	if (s < 0)
		return 0;
	const struct io_stream *ps = &pn->st[pn->st_of[f]], *bs = &base->st[s];
	const struct sio *x = &ps->io[pn->pos[f]];
	if (x->place >= bs->nplaces)
		return 0;
	if (x->eof) {                /* the same end of stream, if it was read */
		for (size_t i = 0; i < bs->n; i++)
			if (bs->io[i].eof && bs->io[i].place == x->place)
				return bs->io[i].seq;
		return 0;
	}
	/* the waiting side, its first byte (it could not begin before it);
	 * the side waited for, its last (what was waited for may be any) */
	int64_t last = up || x->amt < 1 ? 0 : x->amt - 1;
	if (x->moves && x->conn >= 0) {
		/* the same byte of the same connection: in what order a node's
		 * connections' bytes come is timing (connections) */
		int64_t at = last, o = 0;
		size_t hit = bs->n;
		for (size_t i = ps->first[x->place]; i < pn->pos[f]; i++)
			if (ps->io[i].place == x->place && ps->io[i].conn == x->conn)
				at += ps->io[i].amt;
		for (size_t i = bs->first[x->place]; i < bs->n; i++) {
			if (bs->io[i].place != x->place || bs->io[i].conn != x->conn)
				continue;
			hit = i;
			if (o + bs->io[i].amt > at)
				break;
			o += bs->io[i].amt;
		}
		if (hit < bs->n)
			return bs->io[hit].seq;
	}
	int64_t at = x->off + last;
	size_t b = bs->first[x->place];
	while (b + 1 < bs->n && bs->io[b + 1].place == x->place &&
	       bs->io[b].off + bs->io[b].amt <= at)
		b++;
	return bs->io[b].seq;
}

/* A node found waiting is logged at its next I/O, and an event-loop
 * client woken for two connections at once reads either first
 * (redis-benchmark -c 4: the held reply on one connection logged at the
 * read of the reply on another, sent before the hold). A receive logged
 * as waiting for a send on another connection between the two nodes
 * waits, rather, at the node's next receive on the send's connection:
 * later, so weaker than what was seen. */
static uint64_t on_connection(const struct pnode *x, uint64_t xs, const struct pnode *t,
			      uint64_t ts)
{
	const struct tr_node *m = x->me;
	size_t k = io_index(m, xs), l = io_index(t->me, ts);

	if (k >= m->nio || m->io[k].seq != xs || l >= t->me->nio || t->me->io[l].seq != ts)
		return xs;
	int64_t ct = t->conn[l];
	const struct tr_io *send = &t->me->io[l];
	if (!is_recv(&m->io[k]) || x->conn[k] < 0 || ct < 0 || x->conn[k] == ct ||
	    !moves(send) || is_recv(send))
		return xs;
	for (; k < m->nio; k++)
		if (x->conn[k] == ct && is_recv(&m->io[k]) && !m->io[k].poll)
			return m->io[k].seq;
	return xs;
}

/* "its thread N's receives from NODE" and the like, into buf */
static const char *stream_name(const struct pnode *pn, const struct io_stream *st,
			       char **names, char *buf, size_t len)
{
	size_t k = io_index(pn->me, st->io[0].seq);
	const struct tr_io *io = &pn->me->io[k];
	int c = pn->chan[k];

	if (c && moves(io))
		snprintf(buf, len, "its %s %s", is_recv(io) ? "receives from" : "sends to",
			 names[c - 1]);
	else
		snprintf(buf, len, "its thread %d's %s%s%s", io->thr + 1,
			 is_recv(io) ? "receives" : "other I/O",
			 c ? (is_recv(io) ? " from " : " with ") : "", c ? names[c - 1] : "");
	return buf;
}

/* the names of a pass's streams, "; " between them */
static const char *stream_list(const struct pnode *pn, char **names, char *buf, size_t len)
{
	size_t n = 0;
	char one[256];

	buf[0] = 0;
	for (size_t s = 0; s < pn->nst && n + 8 < len; s++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", s ? "; " : "",
				      stream_name(pn, &pn->st[s], names, one, sizeof(one)));
	return buf;
}

/* the last I/O of a stream's place i */
static const struct sio *place_last(const struct io_stream *st, size_t i)
{
	size_t k = i + 1 < st->nplaces ? st->first[i + 1] : st->n;

	while (k > st->first[i] + 1 && st->io[k - 1].place != i)
		k--;             /* an end of stream joined to an earlier place */
	return &st->io[k - 1];
}

/* the numbers of a stream's places' first I/Os, the first few */
static const char *stream_seqs(const struct io_stream *st, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < st->nplaces && n + 24 < len; i++) {
		if (i == 8) {
			snprintf(buf + n, len - n, " ...");
			break;
		}
		n += (size_t)snprintf(buf + n, len - n, "%sI/O %llu", i ? ", " : "",
				      (unsigned long long)st->io[st->first[i]].seq);
	}
	return buf;
}

/* The same I/O, polling set aside, thread by thread in both passes. A
 * server stopped in a pass (its SIGTERM, once every other node has
 * exited) may have been stopped in a held call that the other pass made
 * and the calls after it (http.server's shutdown and close of its last
 * connection): in that pass a stream may end early, its last run of
 * bytes be short, or a stream be missing; the stop is ours, which call
 * it cuts is timing. */
static int check_same(char **names, int me, struct pass *base, const struct pnode *a,
		      struct pass *p, const struct pnode *b)
{
	const char *node = names[me];
	int cut_a = a->me->stopped >= 0, cut_b = b->me->stopped >= 0;

	for (size_t s = 0, t = 0; s < a->nst || t < b->nst;) {
		int xk = s < a->nst ? a->keys[s] : INT_MAX, yk = t < b->nst ? b->keys[t] : INT_MAX;
		if (xk != yk && (xk < yk ? cut_b : cut_a)) {
			*(xk < yk ? &s : &t) += 1;
			continue;
		}
		if (xk != yk) {
			char la[1024], lb[1024];
			warnx("node %s: %zu streams of I/O (polling set aside: a thread's "
			      "receives, its other I/O, what the node sends to and receives "
			      "from each other node) in the %s pass (%s) and %zu in the %s "
			      "pass (%s): the application's I/O is not deterministic", node,
			      a->nst, base->name, stream_list(a, names, la, sizeof(la)), b->nst,
			      p->name, stream_list(b, names, lb, sizeof(lb)));
			return -1;
		}
		const struct io_stream *x = &a->st[s++], *y = &b->st[t++];
		size_t n = x->nplaces < y->nplaces ? x->nplaces : y->nplaces;
		for (size_t i = 0; i <= n; i++) {
			int cut = (cut_a && i + 1 == x->nplaces) || (cut_b && i + 1 == y->nplaces);
			if (i == n) {
				if (x->nplaces == y->nplaces ||
				    (x->nplaces < y->nplaces ? cut_a : cut_b))
					break;
				char what[256], da[256], db[256];
				warnx("node %s: %s issued %zu I/Os (polling set aside) in the %s "
				      "pass (%s) and %zu in the %s pass (%s): the application's I/O "
				      "is not deterministic", node,
				      stream_name(a, x, names, what, sizeof(what)), x->nplaces,
				      base->name, stream_seqs(x, da, sizeof(da)), y->nplaces,
				      p->name, stream_seqs(y, db, sizeof(db)));
				return -1;
			}
			const struct sio *la = place_last(x, i), *lb = place_last(y, i);
			if (!cut && la->moves && lb->moves && la->off + la->amt != lb->off + lb->amt) {
				char what[256];
				warnx("node %s: %s moved %lld bytes at I/O %llu of the %s pass "
				      "and %lld at I/O %llu of the %s pass: the application's "
				      "I/O is not deterministic", node,
				      stream_name(a, x, names, what, sizeof(what)),
				      (long long)(la->off + la->amt),
				      (unsigned long long)x->io[x->first[i]].seq, base->name,
				      (long long)(lb->off + lb->amt),
				      (unsigned long long)y->io[y->first[i]].seq, p->name);
				return -1;
			}
			uint64_t sa = x->io[x->first[i]].seq, sb = y->io[y->first[i]].seq;
			char *ka = discover_io_key(io_of(a->me, sa)->what, base);
			char *kb = discover_io_key(io_of(b->me, sb)->what, p);
			int same = !strcmp(ka, kb);
			char what[256];
			if (!same)
				warnx("node %s: I/O %llu differs between the %s pass (%s) and the "
				      "%s pass (I/O %llu, %s), I/O %zu of %s (polling set aside, a "
				      "run of receives, of reads or of one write call on one "
				      "descriptor counting as one): the application's I/O is not "
				      "deterministic", node, (unsigned long long)sa, base->name, ka,
				      p->name, (unsigned long long)sb, kb, i + 1,
				      stream_name(a, x, names, what, sizeof(what)));
			free(ka);
			free(kb);
			if (!same)
				return -1;
		}
	}
	return 0;
}

/* Does the base pass's own run allow node x's I/O xs to have waited for
 * node t's I/O ts (ts began before xs ended)? A node found waiting in a
 * throttled pass is logged at its next I/O, whichever thread or peer it
 * is for (an MPI rank reads what has come from any peer); moved onto the
 * base pass, such a wait may point back in time there, and two of them
 * make a cycle no replay can run. */
static int base_order(const struct pnode *x, uint64_t xs, const struct pnode *t, uint64_t ts)
{
	const struct tr_io *a = io_of(x->me, xs), *b = io_of(t->me, ts);

	return a && b && t->me->epoch + b->start <= x->me->epoch + a->end;
}

static void write_deps(struct xmlcopy *w, struct cdep *d, size_t n, uint64_t seq,
		       int wait)
{
	static const char *const origins[] = { NULL, "message", "group", "single" };

	for (size_t i = 0; seq && i < n; i++)
		if (d[i].seq == seq)
			xmlcopy_dep_why(w, wait, d[i].other, d[i].oseq,
					wait ? origins[d[i].origin] : NULL,
					wait && d[i].unsure ? "no" : NULL);
}

static void before_io(void *ctx, struct xmlcopy *w, const struct xmlcopy_io *r, const char *node)
{
	struct mnode *m = ctx;
	write_deps(w, m->waits, m->nwaits, xmlcopy_seq(r), 1);
}

/* poll="..." on the I/Os set aside as polling */
static void io_attrs(void *ctx, struct xmlcopy *w, const struct xmlcopy_io *r, const char *node)
{
	struct mnode *m = ctx;
	uint64_t seq = xmlcopy_seq(r);
	const struct tr_io *io = seq && m->base ? io_of(m->base, seq) : NULL;

	if (io && io->poll)
		xmlcopy_attr(w, "poll", polling_name(io->poll));
}

static void after_io(void *ctx, struct xmlcopy *w, const struct xmlcopy_io *r, const char *node)
{
	struct mnode *m = ctx;
	write_deps(w, m->signals, m->nsignals, xmlcopy_seq(r), 0);
}

static const char *node_attr(void *ctx, const char *name, const char *value)
{
	struct mnode *m = ctx;

	(void)value;
	return m->pcap && !strcmp(name, "pcap") ? m->pcap : NULL;
}


/* --- message edges: what the unthrottled pass alone shows ---------------- */

static void add_msg(struct discovery *d, int x, uint64_t xs, int t, uint64_t ts)
{
	if (!xs || !ts || x == t || !base_order(&d->bt[x], xs, &d->bt[t], ts))
		return;
	XGROW(d->msg, d->cmsg, d->nmsg + 1);
	d->msg[d->nmsg++] = (struct dedge){ x, t, xs, ts };
}

/* A send or receive between two nodes: its direction's bytes. */
struct mv {
	int src, dst, recv, poll;
	const char *conn;            /* its connection: the connecting side's
					own address, NULL unknown */
	uint64_t seq;
	int64_t amt;
};

static int cmp_conn_key(const char *a, const char *b)
{
	return !a || !b ? (a != NULL) - (b != NULL) : strcmp(a, b);
}

static int cmp_mv(const void *a, const void *b)
{
	const struct mv *x = a, *y = b;
	int c;

	if (x->src != y->src)
		return x->src - y->src;
	if (x->dst != y->dst)
		return x->dst - y->dst;
	if ((c = cmp_conn_key(x->conn, y->conn)))
		return c;
	if (x->recv != y->recv)
		return x->recv - y->recv;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * A stream's bytes are numbered from 0 on both ends, by the calls'
 * amounts in the order they completed: the receive that got byte b waits
 * for the send that carried it, and a receive waits for the send of its
 * last byte (the earlier ones are before it in the sender's order). A
 * connection is named by the connecting side's own address (its
 * connect's local=, the accepting side's peer=), the same on both ends;
 * between two nodes whose connections are not known so, all bytes of a
 * direction are one stream when both ends counted as many. Calls set
 * aside as polling count bytes, but carry no edge.
 */
static void stream_edges(struct discovery *d, const struct mv *s, size_t ns,
			 const struct mv *r, size_t nr)
{
	int64_t sent = 0, got = 0;

	for (size_t k = 0; k < ns; k++)
		sent += s[k].amt;
	for (size_t k = 0; k < nr; k++)
		got += r[k].amt;
	if (!s[0].conn && sent != got)
		return;              /* maybe more than one connection */
	int64_t s0 = 0, r0 = 0;
	size_t k = 0;
	for (size_t j = 0; j < nr; j++) {
		int64_t last = r0 + r[j].amt - 1;
		r0 += r[j].amt;
		if (r[j].amt <= 0)
			continue;
		while (k < ns && s0 + s[k].amt <= last)
			s0 += s[k++].amt;
		if (k == ns)
			break;       /* bytes no call sent: not ours to say */
		size_t q = k;
		while (q > 0 && s[q].poll)
			q--;
		if (!r[j].poll && !s[q].poll)
			add_msg(d, r[j].dst, r[j].seq, s[q].src, s[q].seq);
	}
}

/* The byte groups of a list of moves: each source, destination and
 * connection's sends, then its receives (cmp_mv's order). */
static void stream_groups(struct discovery *d, struct mv *v, size_t nv)
{
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_mv);
	for (size_t a = 0; a < nv;) {
		size_t b = a, c;
		while (b < nv && v[b].src == v[a].src && v[b].dst == v[a].dst &&
		       !cmp_conn_key(v[b].conn, v[a].conn) && !v[b].recv)
			b++;
		c = b;
		while (c < nv && v[c].src == v[a].src && v[c].dst == v[a].dst &&
		       !cmp_conn_key(v[c].conn, v[a].conn))
			c++;
		if (b > a && c > b)
			stream_edges(d, v + a, b - a, v + b, c - b);
		a = c;
	}
}

/* Per process and descriptor, the connection its connect or accept made. */
struct fdkey {
	int proc;
	int32_t fd;
	const char *conn;
};

static const char *conn_key(const struct tr_io *io)
{
	if (is_call(io, "connect"))
		return io->local && tr_is_address(io->local) &&
		       strncmp(io->local, "0.0.0.0:", 8) ? io->local : NULL;
	if (is_call(io, "accept") || is_call(io, "accept4"))
		return tr_is_address(tr_target(io)) ? tr_target(io) : NULL;
	return NULL;
}

static void byte_edges(struct discovery *d)
{
	struct mv *v = NULL;
	size_t nv = 0, cap = 0;

	for (int i = 0; i < d->n; i++) {
		const struct pnode *pn = &d->bt[i];
		struct fdkey *fk = NULL;
		size_t nfk = 0, fcap = 0;
		for (size_t k = 0; k < pn->me->nio; k++) {
			const struct tr_io *io = &pn->me->io[k];
			int made = is_call(io, "connect") || is_call(io, "accept") ||
				   is_call(io, "accept4");
			size_t f = 0;
			if (made || is_call(io, "close") || moves(io))
				while (f < nfk && !(fk[f].proc == io->proc && fk[f].fd == io->fd))
					f++;
			if (made || is_call(io, "close")) {
				if (f == nfk && made) {
					XGROW(fk, fcap, nfk + 1);
					fk[nfk++] = (struct fdkey){ io->proc, io->fd, NULL };
				}
				if (f < nfk)
					fk[f].conn = made && !io->failed ? conn_key(io) : NULL;
				continue;
			}
			if (!pn->chan[k] || !moves(io) || io->failed || io->amount <= 0)
				continue;
			int peer = pn->chan[k] - 1, rv = is_recv(io);
			XGROW(v, cap, nv + 1);
			v[nv++] = (struct mv){ rv ? peer : i, rv ? i : peer, rv, io->poll != 0,
					       f < nfk ? fk[f].conn : NULL, io->seq, io->amount };
		}
		free(fk);
	}
	stream_groups(d, v, nv);
	free(v);
}

/* A named pipe of one host's that one node writes into and another reads
 * from: the reader's bytes are the writer's, in order, as a socket's
 * (named by its path). One that more nodes write or read carries no
 * edge: whose bytes a read got is the kernel's interleaving. */
struct fifo_use {
	const char *host, *path;
	int writer, reader;          /* the node, -1 none, -2 more than one */
};

static void fifo_note(int *who, int i)
{
	*who = *who == -1 || *who == i ? i : -2;
}

static int fifo_io(const struct tr_node *m, const struct tr_io *io)
{
	const char *sp = strchr(io->what, ' ');

	return sp && (!strncmp(sp, " fileread ", 10) || !strncmp(sp, " filewrite ", 11)) &&
	       !io->failed && io->amount > 0 && tr_is_fifo(m, tr_target(io));
}

static struct fifo_use *fifo_find(struct fifo_use *u, size_t nu, const char *host, const char *path)
{
	for (size_t k = 0; k < nu; k++)
		if (!strcmp(u[k].path, path) && !strcmp(u[k].host, host))
			return &u[k];
	return NULL;
}

static void fifo_edges(struct discovery *d)
{
	struct fifo_use *u = NULL;
	struct mv *v = NULL;
	size_t *of = NULL;           /* each move's pipe, by index in u */
	size_t nu = 0, ucap = 0, nv = 0, cap = 0, ocap = 0, kept = 0;

	for (int i = 0; i < d->n; i++) {
		const struct tr_node *m = d->bt[i].me;
		for (size_t k = 0; m->nfifos && k < m->nio; k++) {
			const struct tr_io *io = &m->io[k];
			if (!fifo_io(m, io))
				continue;
			struct fifo_use *f = fifo_find(u, nu, m->host, tr_target(io));
			if (!f) {
				XGROW(u, ucap, nu + 1);
				f = &u[nu++];
				*f = (struct fifo_use){ m->host, tr_target(io), -1, -1 };
			}
			fifo_note(is_write(io) ? &f->writer : &f->reader, i);
			XGROW(v, cap, nv + 1);
			XGROW(of, ocap, nv + 1);
			of[nv] = (size_t)(f - u);
			v[nv++] = (struct mv){ i, i, !is_write(io), io->poll != 0, f->path,
					       io->seq, io->amount };
		}
	}
	/* the ends known once every node is seen: one writer, one reader */
	for (size_t k = 0; k < nv; k++) {
		const struct fifo_use *f = &u[of[k]];
		if (f->writer < 0 || f->reader < 0 || f->writer == f->reader)
			continue;
		v[k].src = f->writer;
		v[k].dst = f->reader;
		v[kept++] = v[k];
	}
	stream_groups(d, v, kept);
	free(of);
	free(v);
	free(u);
}

/* An accept waits for the connect it took; a connect for the listen of
 * the socket bound to the address it reached (a wildcard bind: any
 * address of that port). */
struct opened {
	const char *addr;            /* a connect's own, a listen's bound */
	int node;
	uint64_t seq;
};

static int cmp_opened(const void *a, const void *b)
{
	const struct opened *x = a, *y = b;
	int c = strcmp(x->addr, y->addr);

	return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The first connect made with address addr (a non-blocking one's, not
 * the call that saw it done: redis-cli's second connect came after the
 * accept), or NULL. */
static const struct opened *first_opened(const struct opened *c, size_t nc, const char *addr)
{
	size_t lo = 0, hi = nc;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(c[mid].addr, addr) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nc && !strcmp(c[lo].addr, addr) ? &c[lo] : NULL;
}

static void open_edges(struct discovery *d)
{
	struct opened *l = NULL, *c = NULL;
	size_t nl = 0, lcap = 0, nc = 0, ccap = 0;

	for (int i = 0; i < d->n; i++) {
		const struct tr_node *m = d->bt[i].me;
		for (size_t k = 0; k < m->nio; k++) {
			const struct tr_io *io = &m->io[k];
			if (io->poll || io->failed)
				continue;
			if (is_call(io, "connect") && io->local) {
				XGROW(c, ccap, nc + 1);
				c[nc++] = (struct opened){ io->local, i, io->seq };
			}
			if (!is_call(io, "listen"))
				continue;
			/* the address its descriptor was bound to */
			for (size_t q = k; q-- > 0;)
				if (m->io[q].proc == io->proc && m->io[q].fd == io->fd &&
				    is_call(&m->io[q], "bind") && m->io[q].local) {
					XGROW(l, lcap, nl + 1);
					l[nl++] = (struct opened){ m->io[q].local, i, io->seq };
					break;
				}
		}
	}
	if (nc)
		qsort(c, nc, sizeof(*c), cmp_opened);
	for (int i = 0; i < d->n; i++) {
		const struct tr_node *m = d->bt[i].me;
		for (size_t k = 0; k < m->nio; k++) {
			const struct tr_io *io = &m->io[k];
			if (io->poll || io->failed)
				continue;
			/* the accept's peer is its connect's own address */
			if ((is_call(io, "accept") || is_call(io, "accept4")) && nc) {
				const struct opened *hit = first_opened(c, nc, tr_target(io));
				if (hit)
					add_msg(d, i, io->seq, hit->node, hit->seq);
				continue;
			}
			if (!is_call(io, "connect"))
				continue;
			const char *to = tr_target(io), *port = strrchr(to, ':');
			for (size_t q = 0; port && q < nl; q++) {
				const char *lp = strrchr(l[q].addr, ':');
				int wild = !strncmp(l[q].addr, "0.0.0.0:", 8) ||
					   !strncmp(l[q].addr, "[::]:", 5);
				if (l[q].node != i && lp && (!strcmp(l[q].addr, to) ||
							     (wild && !strcmp(lp, port))))
					add_msg(d, i, io->seq, l[q].node, l[q].seq);
			}
		}
	}
	free(l);
	free(c);
}

/* A rank's MPI call numbered seq (mpideps.c), or NULL */
static const struct mpi_call *mpi_call_of(const struct mpi_deps *d, const size_t *first,
					  int node, uint64_t seq)
{
	size_t k = first[node] + seq - 1;

	if (seq && k < d->ncalls && d->calls[k].node == node && d->calls[k].seq == seq)
		return &d->calls[k];
	for (k = 0; k < d->ncalls; k++)
		if (d->calls[k].node == node && d->calls[k].seq == seq)
			return &d->calls[k];
	return NULL;
}

/* MPI messages: the MPI level's records of the unthrottled pass (a send
 * and the receive that matched it, by communicator, source, tag and
 * order; a collective's members: trace/mpideps.c, on any transport,
 * shared memory included), moved onto the ranks' numbered I/O: the
 * waiting rank's first I/O of the same thread that began after its MPI
 * call ended, the other rank's last one of the same thread that ended
 * before its call began (what the message orders through each rank's
 * program order). Without the MPI level an MPI rank's messages are its
 * socket calls (byte_edges), and those through shared memory are not
 * seen. */
static void mpi_edges(struct discovery *d)
{
	int any = 0, n = d->n;

	for (int i = 0; i < n; i++)
		any |= d->bt[i].me->mpi;
	if (!any)
		return;
	char **files = xcalloc((size_t)n, sizeof(*files));
	for (int i = 0; i < n; i++)
		files[i] = d->m[i].file;
	struct mpi_deps md;
	mpi_deps_read(&md, files, n);
	free(files);
	int *idx = xcalloc(md.nnodes + 1, sizeof(int));
	size_t *first = xcalloc(md.nnodes + 1, sizeof(size_t));
	for (size_t k = 0; k < md.nnodes; k++) {
		idx[k] = -1;
		for (int i = 0; i < n; i++)
			if (!strcmp(d->names[i], md.nodes[k].name))
				idx[k] = i;
		first[k] = md.ncalls;
	}
	for (size_t k = md.ncalls; k-- > 0;)
		first[md.calls[k].node] = k;
	for (size_t k = 0; k < md.ne; k++) {
		const struct mpi_edge *e = &md.e[k];
		int x = idx[e->x], t = idx[e->t];
		const struct mpi_call *cx = mpi_call_of(&md, first, e->x, e->xseq);
		const struct mpi_call *ct = mpi_call_of(&md, first, e->t, e->tseq);
		if (x < 0 || t < 0 || x == t || !cx || !ct)
			continue;
		const struct tr_node *X = d->bt[x].me, *T = d->bt[t].me;
		uint64_t xs = 0, ts = 0;
		for (size_t j = 0; j < X->nio && !xs; j++)
			if (X->io[j].tid == cx->tid && X->io[j].poll == POLL_NONE &&
			    X->io[j].start >= cx->end)
				xs = X->io[j].seq;
		for (size_t j = T->nio; j-- > 0 && !ts;)
			if (T->io[j].tid == ct->tid && T->io[j].poll == POLL_NONE &&
			    T->io[j].end <= ct->start)
				ts = T->io[j].seq;
		add_msg(d, x, xs, t, ts);
	}
	free(idx);
	free(first);
	mpi_deps_free(&md);
}
/* --- the passes -------------------------------------------------------- */

struct discovery *discover_begin(struct cluster_opts *o, char **names, int n,
				 struct pass *base)
{
	struct discovery *d = xcalloc(1, sizeof(*d));

	d->o = o;
	d->names = names;
	d->n = n;
	d->base = base;
	d->m = xcalloc((size_t)n, sizeof(*d->m));
	for (int i = 0; i < n; i++) {
		d->m[i].file = xasprintf("%s/%s.xml", base->dir, names[i]);
		if (o->pcap) {
			char *p = pcap_beside(o->output, names[i]);
			d->m[i].pcap = xstrdup(basename(p));
			free(p);
		}
	}
	if (load_pass(base, names, n, &d->bt) < 0) {
		free_pass(d->bt, n);
		d->bt = NULL;
		return d;
	}
	if (o->discover) {
		open_edges(d);
		byte_edges(d);
		fifo_edges(d);
		mpi_edges(d);
		discover_sort_messages(d);
	}
	return d;
}

/* A node found waiting is logged at its next I/O: after attempts to
 * reach a server (refused connects, set aside as polling), the socket of
 * the attempt that succeeds, which waits for nothing; its connect, next
 * on that descriptor, is what waited (for the listen: a message edge). */
static uint64_t past_socket(const struct pnode *pn, uint64_t xs)
{
	if (!xs)
		return xs;
	const struct tr_node *m = pn->me;
	size_t k = io_index(m, xs);

	if (k >= m->nio || m->io[k].seq != xs || !is_call(&m->io[k], "socket"))
		return xs;
	for (size_t q = k + 1; q < m->nio; q++) {
		const struct tr_io *io = &m->io[q];
		if (io->proc != m->io[k].proc || io->fd != m->io[k].fd || io->poll)
			continue;
		return is_call(io, "connect") && io->thr == m->io[k].thr ? io->seq : xs;
	}
	return xs;
}

/* Was the node trying again when it was found waiting at its I/O xs of
 * pass pn (its thread's I/O before that one set aside as polling)? Only
 * then: a socket made once a file said the server is up waited for that
 * file (pseudo's ready files). */
static int retrying(const struct pnode *pn, uint64_t xs)
{
	const struct tr_node *m = pn->me;
	size_t k = io_index(m, xs);

	if (k >= m->nio)
		return 0;
	for (size_t p = k; p-- > 0;)
		if (m->io[p].thr == m->io[k].thr)
			return m->io[p].poll != 0;
	return 0;
}

/* Same I/O everywhere (polling set aside), and the waits the pass's
 * session logged, moved onto the base pass's numbers: the waiting side
 * onto its next I/O that is not polling, the side waited for onto its
 * last one (both weaker than what was seen). */
int discover_add(struct discovery *d, struct pass *p)
{
	struct pnode *pt = NULL;
	char **names = d->names;
	int n = d->n, rc = 0;

	if (!d->bt)
		return -1;
	XGROW(d->passes, d->cpasses, d->npasses + 1);
	d->passes[d->npasses] = p;
	if (load_pass(p, names, n, &pt) < 0)
		rc = -1;
	for (int i = 0; i < n && !rc; i++)
		rc = check_same(names, i, d->base, &d->bt[i], p, &pt[i]);
	for (size_t k = 0; k < p->ndeps && !rc; k++) {
		const struct sess_dep *sd = &p->deps[k];
		int i = sd->xnode, tn = sd->tnode;
		if (i < 0 || i >= n || tn < 0 || tn >= n || tn == i || !sd->xseq)
			continue;
		uint64_t x = to_base(&pt[i], &d->bt[i],
				     on_connection(&pt[i], sd->xseq, &pt[tn], sd->tseq), 1);
		uint64_t y = to_base(&pt[tn], &d->bt[tn], sd->tseq, 0);
		if (!x || !y)
			continue;    /* nothing left to wait, or for */
		if (!base_order(&d->bt[i], x, &d->bt[tn], y))
			continue;    /* false in the base pass's own run */
		if (retrying(&pt[i], sd->xseq))
			x = past_socket(&d->bt[i], x);
		XGROW(d->obs, d->cobs, d->nobs + 1);
		d->obs[d->nobs++] = (struct dobs){ i, tn, x, y,
			sd->group ? sd->group : 1ull << tn, sd->at, d->npasses };
	}
	free_pass(pt, n);
	d->npasses++;
	return rc;
}

uint64_t discover_undecided(struct discovery *d)
{
	return gt_candidates(d, 0);
}

uint64_t discover_unsure(struct discovery *d)
{
	return gt_candidates(d, 1);
}

int discover_fan_out(const struct discovery *d, int i)
{
	int k = 0;

	for (size_t e = 0; e < d->nmsg; e++)
		k += d->msg[e].t == i;
	return k;
}

static void add_wait(struct discovery *d, int x, uint64_t xs, int t, uint64_t ts,
		     int origin, int unsure)
{
	struct mnode *m = &d->m[x];

	XGROW(m->waits, m->cw, m->nwaits + 1);
	m->waits[m->nwaits++] = (struct cdep){ xs, xstrdup(d->names[t]), ts,
					       (unsigned char)origin, (unsigned char)unsure };
}

static void discovery_free(struct discovery *d)
{
	for (int i = 0; i < d->n; i++) {
		struct mnode *m = &d->m[i];
		for (size_t k = 0; k < m->nwaits; k++)
			free(m->waits[k].other);
		for (size_t k = 0; k < m->nsignals; k++)
			free(m->signals[k].other);
		free(m->waits);
		free(m->signals);
		free(m->file);
		free(m->pcap);
	}
	free(d->m);
	free(d->passes);
	free(d->msg);
	free(d->obs);
	free(d);
}

int discover_write(struct discovery *d)
{
	struct cluster_opts *o = d->o;
	struct pass *base = d->base;
	struct mnode *m = d->m;
	char **names = d->names;
	int n = d->n, rc = 0, complete = 1;
	size_t total = 0;

	if (!d->bt) {
		discovery_free(d);
		return -1;
	}
	for (size_t k = 0; k < d->nmsg; k++)
		add_wait(d, d->msg[k].x, d->msg[k].xs, d->msg[k].t, d->msg[k].ts, DEP_MESSAGE, 0);
	gt_resolve(d, add_wait);
	for (int i = 0; i < n; i++)
		m[i].base = d->bt[i].me;
	/* the waits that stand (one per I/O and node waited for), and a
	 * signal for each of them on the other side */
	for (int i = 0; i < n; i++) {
		m[i].nwaits = cdep_normalise(m[i].waits, m[i].nwaits);
		total += m[i].nwaits;
		for (size_t k = 0; k < m[i].nwaits; k++) {
			struct cdep *w = &m[i].waits[k];
			d->by_origin[w->origin]++;
			d->unsure += w->unsure;
			for (int tn = 0; tn < n; tn++) {
				if (strcmp(names[tn], w->other))
					continue;
				XGROW(m[tn].signals, m[tn].cs, m[tn].nsignals + 1);
				m[tn].signals[m[tn].nsignals++] = (struct cdep){ w->oseq,
					xstrdup(names[i]), w->seq, 0, 0 };
			}
		}
	}
	for (int i = 0; i < n; i++)
		m[i].nsignals = cdep_normalise(m[i].signals, m[i].nsignals);

	for (int i = 0; i < n; i++)
		if (d->bt[i].me->incomplete || base->incomplete)
			complete = 0;
	struct xmlcopy *w = xmlcopy_start(o->output, compress_for(o->output, o->gzip),
					  "island-capture " ISLAND_VERSION, complete);
	if (!w)
		die(2, "%s: cannot create the trace:", o->output);
	if (base->incomplete)
		xmlcopy_attr(w, "reason", base->incomplete);
	for (int i = 0; i < n && !rc; i++) {
		struct xmlcopy_hooks h = { before_io, io_attrs, after_io, &m[i], node_attr };
		rc = xmlcopy_nodes(w, m[i].file, &h);
	}
	free_pass(d->bt, n);
	d->bt = NULL;
	if (xmlcopy_end(w, rc) < 0) {
		if (rc)
			warnx("%s: cannot write the merged trace", o->output);
		else
			warnx("%s: cannot write the merged trace:", o->output);
		discovery_free(d);
		return -1;
	}
	if (o->pcap && copy_pcaps(base, names, n, o->output) < 0) {
		discovery_free(d);
		return -1;
	}
	if (!complete && !base->incomplete)
		warnx("%s: some node's trace is incomplete", o->output);
	if (o->discover)
		fprintf(stderr, "island-capture: %zu dependencies found (%zu from messages, "
			"%zu from group passes, %zu from single-node passes; %zu not certain)\n",
			total, d->by_origin[DEP_MESSAGE], d->by_origin[DEP_GROUP],
			d->by_origin[DEP_SINGLE], d->unsure);
	discovery_free(d);
	return 0;
}

int discover_merge(struct cluster_opts *o, char **names, int n, struct pass *base,
		   struct pass **thr, int nthr)
{
	struct discovery *d = discover_begin(o, names, n, base);

	for (int t = 0; t < nthr; t++)
		if (discover_add(d, thr[t]) < 0) {
			if (d->bt)
				free_pass(d->bt, n);
			d->bt = NULL;
			break;
		}
	return discover_write(d);
}
