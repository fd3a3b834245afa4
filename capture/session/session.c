/*
 * The session file lives in /dev/shm, named after the user and the
 * session, mode 0600: nodes of one user's session find each other there,
 * and two sessions never see each other. It is removed when the last node
 * leaves (or by the cluster runner that owns it).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "acl.h"
#include "capture.h"
#include "session.h"
#include "util.h"

const char *session_dir = "/dev/shm";

/* A session named HOST:PORT spans hosts (coordinator.c); its file on this
 * host is named after it. */
char *session_path(const char *name)
{
	char local[256];

	snprintf(local, sizeof(local), "%s", name);
	for (char *p = local; *p; p++)
		if (*p == ':')
			*p = '-';
	for (const char *p = local; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9') && *p != '-' && *p != '_' && *p != '.')
			die(2, "--session: '%s': use letters, digits, '-', '_' and '.' "
			    "(or HOST:PORT)", name);
	return xasprintf("%s/island-session.%u.%s", session_dir, (unsigned)getuid(), local);
}

static int users_only(int fd, mode_t mode)
{
	char acl[4 + ACL_MAX * sizeof(struct acl_ent)];
	ssize_t n = (mode & 007) ? -1 : fgetxattr(fd, ACL_XATTR, acl, sizeof(acl));

	return n > 0 && acl_users_only(acl, (size_t)n);
}

struct session *session_open(const char *name, int create, int owner)
{
	char *path = session_path(name);
	int fd = -1;
	struct stat st;
	struct session *s;

	/* The directory is shared: a name planted there (a symlink to a file
	 * of ours, a hard link, a fifo) is never followed nor written. */
	if (create)
		fd = open(path, O_RDWR | O_CLOEXEC | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	if (fd < 0 && (!create || errno == EEXIST))
		fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ELOOP)
			warnx("%s: is a symbolic link, not a session file: refused", path);
		else
			warnx("%s: cannot open the session:", path);
		free(path);
		return NULL;
	}
	/* private to the user: refuse a file someone else made (the group
	 * bits of an ACL that lets in only the users a node's app drops to,
	 * privdrop.c and runas.c, are its mask) */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    st.st_uid != getuid() || ((st.st_mode & 077) && !users_only(fd, st.st_mode))) {
		warnx("%s: not a private session file of this user (a regular file, "
		      "mode 0600, one link): refused", path);
		close(fd);
		free(path);
		return NULL;
	}
	if ((size_t)st.st_size < sizeof(*s) && ftruncate(fd, sizeof(*s)) < 0) {
		warnx("%s: cannot size the session:", path);
		close(fd);
		free(path);
		return NULL;
	}
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	free(path);
	if (s == MAP_FAILED) {
		warnx("cannot map the session:");
		return NULL;
	}
	uint64_t zero = 0;
	if (s->magic == 0) {	/* ours to make: its identity first */
		s->file_dev = (uint64_t)st.st_dev;
		s->file_ino = (uint64_t)st.st_ino;
	}
	if (__atomic_compare_exchange_n(&s->magic, &zero, SESS_MAGIC, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		s->version = 1;
	if (s->magic != SESS_MAGIC) {
		warnx("session '%s': not an Island session file", name);
		munmap(s, sizeof(*s));
		return NULL;
	}
	if (owner) {
		s->owner_pid = getpid();
		s->nouts = 0;
		for (int k = 1; k <= 2; k++)
			if (!fstat(k, &st) && s->nouts < 2) {
				s->outs[s->nouts].dev = (uint64_t)st.st_dev;
				s->outs[s->nouts].ino = (uint64_t)st.st_ino;
				s->nouts++;
			}
	}
	return s;
}

/* --throttle NODE, or a group "A,B,C" (--discover's group passes) */
static int throttled(const char *list, const char *node)
{
	size_t l = strlen(node);

	for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		if (strcspn(p, ",") == l && !strncmp(p, node, l))
			return 1;
	}
	return 0;
}

int session_join(struct session *s, const char *node, const struct sess_opts *o)
{
	int idx = -1;

	if (strlen(node) >= sizeof(s->node[0].name)) {
		warnx("node name '%s' is too long", node);
		return -1;
	}
	/* a slot with our name (prepared by a runner, or left by an earlier
	 * run of this node), else a free one */
	for (int i = 0; i < SESS_NODES; i++) {
		struct sess_node *n = &s->node[i];
		if (n->state != SN_FREE && !strcmp(n->name, node)) {
			if (n->state == SN_RUNNING && n->capture_pid > 0 &&
			    n->capture_pid != getpid() && kill(n->capture_pid, 0) == 0) {
				warnx("session: node '%s' is already running (pid %d)",
				      node, n->capture_pid);
				return -1;
			}
			idx = i;
			break;
		}
	}
	for (int i = 0; idx < 0 && i < SESS_NODES; i++) {
		int32_t none = SN_FREE;
		if (__atomic_compare_exchange_n(&s->node[i].state, &none, SN_RUNNING, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			idx = i;
	}
	if (idx < 0) {
		warnx("session: more than %d nodes", SESS_NODES);
		return -1;
	}
	struct sess_node *n = &s->node[idx];
	memset(n->th, 0, sizeof(n->th));
	snprintf(n->name, sizeof(n->name), "%s", node);
	n->io_seq = 0;
	n->stop_at = 0;
	n->holds = n->hold_timeouts = 0;
	n->holding = 0;
	n->throttled = throttled(o->throttle, node);
	n->period = o->period > 0 ? o->period : 1;
	n->delay = (int64_t)(o->delay * 1e9);
	n->hold_timeout = (int64_t)(o->hold_timeout * 1e9);
	n->max_gap = (int64_t)(o->max_gap * 1e9);
	n->expect_nodes = o->nodes;
	n->capture_pid = getpid();
	n->remote = 0;
	__atomic_store_n(&n->state, SN_RUNNING, __ATOMIC_RELEASE);
	return idx;
}

/* The file at the session's path, locked: shared by a join until it has
 * checked the file is still the one it joined, exclusive by a leave until
 * it has decided whether to unlink it, so that the two never interleave.
 * -1 when no file is there. */
int session_lock(const char *name, int how)
{
	char *path = session_path(name);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	free(path);
	if (fd >= 0 && flock(fd, how) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

void session_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

void session_leave(struct session *s, int idx, const char *name)
{
	int lk;
	struct stat st;

	__atomic_store_n(&s->node[idx].state, SN_EXITED, __ATOMIC_RELEASE);
	if (s->owner_pid > 0 && s->owner_pid != getpid() && kill(s->owner_pid, 0) == 0)
		return;
	lk = session_lock(name, LOCK_EX);
	for (int i = 0; i < SESS_NODES; i++) {
		struct sess_node *n = &s->node[i];
		if (n->state == SN_RUNNING && !n->remote && n->capture_pid > 0 &&
		    kill(n->capture_pid, 0) == 0) {
			session_unlock(lk);
			return;      /* someone is still in on this host */
		}
	}
	/* the file at the path is ours, not a later session's */
	if (lk >= 0 && fstat(lk, &st) == 0 && (uint64_t)st.st_dev == s->file_dev &&
	    (uint64_t)st.st_ino == s->file_ino) {
		char *path = session_path(name);
		unlink(path);
		free(path);
	}
	session_unlock(lk);
}

/* Is the file we joined still the one at the session's path? A node
 * leaving last unlinks it; one that opened it just before, and joined
 * after that node looked, would run on a file no one else (nor its own
 * application's interposer, which opens the path) can find. */
int session_current(struct session *s, const char *name)
{
	char *path = session_path(name);
	struct stat st;
	int ok = stat(path, &st) == 0 && (uint64_t)st.st_dev == s->file_dev &&
		 (uint64_t)st.st_ino == s->file_ino;

	free(path);
	return ok;
}

/* A join on a file that is gone: undone without a trace. */
void session_unjoin(struct session *s, int idx)
{
	__atomic_store_n(&s->node[idx].state, SN_FREE, __ATOMIC_RELEASE);
}

void session_close(struct session *s)
{
	if (s)
		munmap(s, sizeof(*s));
}

static int cmp_cdep(const void *a, const void *b)
{
	const struct cdep *x = a, *y = b;
	int c = x->seq < y->seq ? -1 : x->seq > y->seq;

	if (!c)
		c = strcmp(x->other, y->other);
	if (!c)
		c = x->oseq < y->oseq ? 1 : x->oseq > y->oseq ? -1 : 0;
	return c;
}

/* Sort, and keep one dependency per (seq, other): for a wait the largest
 * I/O number waited for, which implies the smaller ones. */
size_t cdep_normalise(struct cdep *d, size_t n)
{
	size_t k = 0;

	if (n)                   /* qsort(NULL, 0) is undefined (UBSan) */
		qsort(d, n, sizeof(*d), cmp_cdep);
	for (size_t i = 0; i < n; i++) {
		if (k && d[k - 1].seq == d[i].seq && !strcmp(d[k - 1].other, d[i].other)) {
			free(d[i].other);
			continue;
		}
		d[k++] = d[i];
	}
	return k;
}

void session_deps(struct session *s, int idx, struct cap_node *n)
{
	uint32_t nd = s->ndeps < SESS_DEPS ? s->ndeps : SESS_DEPS;
	size_t cw = 0, cs = 0;
	struct sess_node *me = &s->node[idx];

	for (uint32_t k = 0; k < nd; k++) {
		struct sess_dep d = s->deps[k];
		if (d.xnode == idx) {
			XGROW(n->waits, cw, n->nwaits + 1);
			n->waits[n->nwaits++] = (struct cdep){
				d.xseq, xstrdup(s->node[d.tnode].name), d.tseq, 0, 0 };
		}
		/* a signal only where the other node's wait survives: the
		 * largest of our I/Os one of its I/Os waits for */
		if (d.tnode == idx) {
			int strongest = 1;
			for (uint32_t q = 0; q < nd && strongest; q++)
				strongest = !(s->deps[q].tnode == idx &&
					      s->deps[q].xnode == d.xnode &&
					      s->deps[q].xseq == d.xseq &&
					      s->deps[q].tseq > d.tseq);
			if (!strongest)
				continue;
			XGROW(n->signals, cs, n->nsignals + 1);
			n->signals[n->nsignals++] = (struct cdep){
				d.tseq, xstrdup(s->node[d.xnode].name), d.xseq, 0, 0 };
		}
	}
	n->nwaits = cdep_normalise(n->waits, n->nwaits);
	n->nsignals = cdep_normalise(n->signals, n->nsignals);
	if (me->hold_timeouts)
		warnx("%s: %u of %u held I/Os were released by --hold-timeout: a node "
		      "neither blocked nor exited in time", me->name, me->hold_timeouts,
		      me->holds);
	if (s->deps_lost && me->throttled)
		warnx("%s: %u dependencies lost (more than %d)", me->name, s->deps_lost,
		      SESS_DEPS);
}
