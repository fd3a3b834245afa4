/* What a handler asks of its thread's context: the traced process's
 * descriptor table (trace slots to replay descriptors, opened lazily when
 * the trace never opened them), its stdio buffers, a filler buffer, paths
 * mapped beneath the root, and the warnings and state a call leaves. */
#include "exec.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>


/* ---- descriptor tables ----------------------------------------------- */

static void fd_grow(struct pstate *p, int tfd)
{
	if ((size_t)tfd < p->cap)
		return;
	size_t ncap = p->cap ? p->cap : 64;
	while (ncap <= (size_t)tfd)
		ncap *= 2;
	p->map = xrealloc(p->map, ncap * sizeof(int));
	p->cloexec = xrealloc(p->cloexec, ncap);
	p->fill = xrealloc(p->fill, ncap * sizeof(int32_t));
	p->avail = xrealloc(p->avail, ncap * sizeof(int32_t));
	for (size_t i = p->cap; i < ncap; i++) {
		p->map[i] = -1;
		p->cloexec[i] = 0;
		p->fill[i] = 0;
		p->avail[i] = 0;
	}
	p->cap = ncap;
}

/* An fd the trace never opened (inherited: stdin, a shell's redirection)
 * is opened on first use: its file under the root, a sink for a socket or
 * pipe, /dev/null when nothing is known. */
static int fd_lazy(struct rctx *c, const struct op *o)
{
	char rel[4096];
	int rfd = -1;

	if (o->res == RES_NETSEND || o->res == RES_NETRECV || o->proto || (o->peer && *o->peer)) {
		rfd = net_sink(c, o);
	} else if (o->path && sandbox_passthrough(o->path)) {
		rfd = open(o->path, O_RDWR | O_CLOEXEC);
	} else if (o->path && map_path(c, o->path, rel, sizeof(rel)) == 0) {
		const char *base;
		int dfd = sandbox_parent(c->ns->r->rootfd, rel, 1, &base);
		if (dfd >= 0)
			close(dfd);
		rfd = sandbox_openat(c->ns->r->rootfd, rel, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (rfd < 0 && errno == EISDIR)
			rfd = sandbox_openat(c->ns->r->rootfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	}
	if (rfd < 0)
		rfd = open("/dev/null", O_RDWR | O_CLOEXEC);
	return rfd;
}

int fd_get(struct rctx *c, int tfd, const struct op *o)
{
	struct pstate *p = &c->ns->ps[c->proc];
	int rfd;

	if (tfd < 0) {
		errno = EBADF;
		return -1;
	}
	pthread_mutex_lock(&p->mu);
	fd_grow(p, tfd);
	rfd = p->map[tfd];
	if (rfd < 0 && o) {
		rfd = p->map[tfd] = fd_lazy(c, o);
		p->cloexec[tfd] = 0;
	}
	pthread_mutex_unlock(&p->mu);
	return rfd;
}

void fd_put(struct rctx *c, int tfd, int rfd, int cloexec)
{
	struct pstate *p = &c->ns->ps[c->proc];

	if (tfd < 0) {
		if (rfd >= 0)
			rfd_close(rfd);
		return;
	}
	pthread_mutex_lock(&p->mu);
	fd_grow(p, tfd);
	if (p->map[tfd] >= 0)
		rfd_close(p->map[tfd]);
	p->map[tfd] = rfd;
	p->cloexec[tfd] = (uint8_t)cloexec;
	pthread_mutex_unlock(&p->mu);
}

void fd_cloexec(struct rctx *c, int tfd, int cloexec)
{
	struct pstate *p = &c->ns->ps[c->proc];

	if (tfd < 0)
		return;
	pthread_mutex_lock(&p->mu);
	fd_grow(p, tfd);
	p->cloexec[tfd] = (uint8_t)cloexec;
	pthread_mutex_unlock(&p->mu);
}

int fd_take(struct rctx *c, int tfd)
{
	struct pstate *p = &c->ns->ps[c->proc];
	int rfd = -1;

	pthread_mutex_lock(&p->mu);
	if (tfd >= 0 && (size_t)tfd < p->cap) {
		rfd = p->map[tfd];
		p->map[tfd] = -1;
	}
	pthread_mutex_unlock(&p->mu);
	return rfd;
}

/* glibc's buffer is the file's st_blksize: 4096 for pipes, sockets and
 * the common file systems. stderr is unbuffered. */
#define STDIO_BUF 4096

int64_t stdio_write(struct rctx *c, int tfd, int64_t n)
{
	struct pstate *p = &c->ns->ps[c->proc];

	if (tfd < 0 || slot_tfd(c->ns->n, tfd) == 2)
		return n;
	pthread_mutex_lock(&p->mu);
	fd_grow(p, tfd);
	int64_t fill = p->fill[tfd] + n, now = fill / STDIO_BUF * STDIO_BUF;
	p->fill[tfd] = (int32_t)(fill - now);
	pthread_mutex_unlock(&p->mu);
	return now;
}

int64_t stdio_need(struct rctx *c, int tfd, int64_t n)
{
	struct pstate *p = &c->ns->ps[c->proc];
	int64_t need;

	if (tfd < 0)
		return n;
	pthread_mutex_lock(&p->mu);
	fd_grow(p, tfd);
	need = n > p->avail[tfd] ? n - p->avail[tfd] : 0;
	if (!need)
		p->avail[tfd] -= (int32_t)n;
	pthread_mutex_unlock(&p->mu);
	return need;
}

void stdio_got(struct rctx *c, int tfd, int64_t got, int64_t need)
{
	struct pstate *p = &c->ns->ps[c->proc];

	if (tfd < 0)
		return;
	pthread_mutex_lock(&p->mu);
	fd_grow(p, tfd);
	/* what the buffer held, and what the read brought, less the call's */
	p->avail[tfd] = got > need ? (int32_t)(got - need) : 0;
	pthread_mutex_unlock(&p->mu);
}

int64_t stdio_flush(struct rctx *c, int tfd)
{
	struct pstate *p = &c->ns->ps[c->proc];
	int64_t n = 0;

	if (tfd < 0)
		return 0;
	pthread_mutex_lock(&p->mu);
	if ((size_t)tfd < p->cap) {
		n = p->fill[tfd];
		p->fill[tfd] = 0;
	}
	pthread_mutex_unlock(&p->mu);
	return n;
}

/* exit() flushes every stream */
void stdio_flush_all(struct rctx *c)
{
	struct pstate *p = &c->ns->ps[c->proc];

	for (size_t i = 0; i < p->cap; i++) {
		int64_t n = stdio_flush(c, (int)i);
		int fd = n > 0 ? fd_get(c, (int)i, NULL) : -1;
		/* a reader gone: the exit's flush is the write that kills */
		if (fd >= 0 && write(fd, xbuf(c, n), (size_t)n) < 0 && errno == EPIPE)
			reader_gone(c);
	}
}

/* A new process starts with a copy of its parent's table, as after fork. */
void fd_inherit(struct nstate *ns, int parent, int child)
{
	struct pstate *pa = &ns->ps[parent], *ch = &ns->ps[child];

	pthread_mutex_lock(&pa->mu);
	pthread_mutex_lock(&ch->mu);
	for (size_t i = 0; i < pa->cap; i++) {
		if (pa->map[i] < 0)
			continue;
		fd_grow(ch, (int)i);
		if (ch->map[i] < 0)
			ch->map[i] = rfd_dup(pa->map[i]);
		ch->cloexec[i] = pa->cloexec[i];
		ch->fill[i] = pa->fill[i];	/* fork copies the stdio buffers too */
		ch->avail[i] = pa->avail[i];
	}
	/* what the child was given before its first call (fdslots.c) */
	const struct process *pr = &ns->n->procs[child];
	for (size_t i = 0; i < pr->nredir; i++) {
		int32_t s = pr->redir[i].slot, from = pr->redir[i].from;
		if ((size_t)from >= pa->cap || pa->map[from] < 0)
			continue;	/* not open yet: opened by path on use */
		fd_grow(ch, s);
		if (ch->map[s] >= 0)
			rfd_close(ch->map[s]);
		ch->map[s] = rfd_dup(pa->map[from]);
		ch->cloexec[s] = 0;	/* as dup2 leaves it */
		ch->fill[s] = ch->avail[s] = 0;
	}
	pthread_mutex_unlock(&ch->mu);
	pthread_mutex_unlock(&pa->mu);
}

void fd_closeall(struct pstate *p, int only_cloexec)
{
	pthread_mutex_lock(&p->mu);
	for (size_t i = 0; i < p->cap; i++)
		if (p->map[i] >= 0 && (!only_cloexec || p->cloexec[i])) {
			rfd_close(p->map[i]);
			p->map[i] = -1;
		}
	pthread_mutex_unlock(&p->mu);
}

char *xbuf(struct rctx *c, int64_t n)
{
	if (n < 0)
		n = 0;
	if ((size_t)n > IO_CHUNK)
		n = (int64_t)IO_CHUNK;
	if ((size_t)n > c->bufcap) {
		free(c->buf);
		c->bufcap = (size_t)n;
		c->buf = xmalloc(c->bufcap);
		memset(c->buf, 'i', c->bufcap);
	}
	return c->buf;
}

int map_path(struct rctx *c, const char *path, char *buf, size_t len)
{
	const struct process *p = &c->ns->n->procs[c->proc];

	return sandbox_map(path, p->cwd, buf, len) ? 0 : -1;
}

void replay_warn(struct rctx *c, const struct op *o, const char *what)
{
	struct nstate *ns = c->ns;

	pthread_mutex_lock(&ns->stmu);
	if (ns->warned++ < 5)
		warn_at(ns->r->t->file, o->line, "node %s: %s %s%s%s: %s%s", ns->n->name, what,
			o->call ? o->call->api : "?", o->path ? " " : "", o->path ? o->path : "",
			strerror(errno), errno == EXDEV ? " (outside the root: refused)" : "");
	pthread_mutex_unlock(&ns->stmu);
}

void reader_gone(struct rctx *c)
{
	c->ns->ps[c->proc].gone = 1;
}
