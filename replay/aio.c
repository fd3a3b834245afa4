/*
 * Asynchronous operations (io with async, docs/trace-format.md) replayed
 * asynchronously, through the interface they went through: libaio
 * (io_setup, io_submit, io_getevents), POSIX aio (aio_read, aio_write,
 * aio_fsync, aio_suspend, aio_return) or io_uring (liburing). Loading
 * (aio_load) puts a submission op at the operation's submission, after
 * the thread's call that began then (io_submit, io_uring_enter; POSIX:
 * the call before), and leaves the operation's element where its
 * completion was seen: there the replay waits for the replayed
 * completion. So the operations in flight, and the order of submitting
 * and reaping, are the original's. The calls that submitted and reaped
 * (io_submit, io_getevents, io_uring_enter, aio_suspend) are nothing to
 * reissue: their work is the operations'.
 *
 * A queue (a libaio context, a ring, POSIX aio) is made per thread at its
 * first operation; the operations in flight are a thread's table, by the
 * link both ops carry (count).
 */
#include "exec.h"
#include "util.h"

#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>

#define QDEPTH 512              /* a queue's entries: any trace's depth */

enum { K_LIBAIO = 1, K_POSIX, K_URING };

struct queue {
	const char *key;        /* "KIND ctx", interned */
	int kind;
	io_context_t ctx;
	struct io_uring ring;
};

struct flight {
	int live, done;
	int64_t res;
	struct queue *q;
	char *buf;
	struct iocb cb;
	struct aiocb acb;
	struct iovec iov;
};

static __thread struct queue *queues;
static __thread size_t nqueues, capqueues;
/* by link; each where the kernel or glibc may write to it until reaped */
static __thread struct flight **fl;
static __thread size_t capfl;

static struct queue *queue_of(const char *key)
{
	for (size_t i = 0; i < nqueues; i++)
		if (queues[i].key == key)
			return &queues[i];
	XGROW(queues, capqueues, nqueues + 1);
	struct queue *q = &queues[nqueues];
	memset(q, 0, sizeof(*q));
	q->key = key;
	q->kind = !strncmp(key, "libaio", 6) ? K_LIBAIO : !strncmp(key, "io_uring", 8) ?
		  K_URING : K_POSIX;
	if (q->kind == K_LIBAIO) {
		int r = io_setup(QDEPTH, &q->ctx);
		if (r < 0) {
			errno = -r;
			return NULL;
		}
	} else if (q->kind == K_URING) {
		int r = io_uring_queue_init(QDEPTH, &q->ring, 0);
		if (r < 0) {
			errno = -r;
			return NULL;
		}
	}
	nqueues++;
	return q;
}

/* What an operation is, by its api */
enum opk { OK_READ, OK_WRITE, OK_FSYNC, OK_FDSYNC, OK_FALLOCATE, OK_NOP };

static enum opk op_kind(const struct op *o)
{
	const char *a = o->call->api;

	if (strstr(a, "fdsync"))
		return OK_FDSYNC;
	if (strstr(a, "sync"))
		return OK_FSYNC;
	if (strstr(a, "fallocate"))
		return OK_FALLOCATE;
	if (o->res == RES_FILEREAD || o->res == RES_NETRECV)
		return OK_READ;
	if (o->res == RES_FILEWRITE || o->res == RES_NETSEND)
		return OK_WRITE;
	return OK_NOP;
}

static struct flight **flight_of(const struct op *o, int add)
{
	size_t id = (size_t)o->count;

	if (o->count < 0)
		return NULL;
	if (id >= capfl) {
		if (!add)
			return NULL;
		size_t n = capfl ? capfl : 64;
		while (n <= id)
			n *= 2;
		fl = xrealloc(fl, n * sizeof(*fl));
		memset(fl + capfl, 0, (n - capfl) * sizeof(*fl));
		capfl = n;
	}
	return &fl[id];
}

/* The submission: the operation issued, not waited for */
int h_aio_submit(struct rctx *c, const struct op *o)
{
	struct flight **fp = flight_of(o, 1), *f;
	struct queue *q = fp && o->path2 ? queue_of(o->path2) : NULL;
	enum opk k = op_kind(o);
	int64_t n = o->has_amount ? o->amount : o->size;
	int fd = o->fd >= 0 ? fd_get(c, o->fd, o) : -1;
	off_t off = o->has_offset ? (off_t)o->offset : 0;

	if (!q)
		return -1;
	if (n < 0 || k == OK_FSYNC || k == OK_FDSYNC || k == OK_FALLOCATE || k == OK_NOP)
		n = 0;
	if (fd < 0 && k != OK_NOP)
		return -1;
	free(*fp);
	f = *fp = xcalloc(1, sizeof(*f));
	f->q = q;
	f->buf = xcalloc(1, n ? (size_t)n : 1);
	f->live = 1;
	if (q->kind == K_LIBAIO) {
		struct iocb *cb = &f->cb, *cbs[1] = { cb };
		switch (k) {
		case OK_READ: io_prep_pread(cb, fd, f->buf, (size_t)n, off); break;
		case OK_WRITE: io_prep_pwrite(cb, fd, f->buf, (size_t)n, off); break;
		case OK_FDSYNC: io_prep_fdsync(cb, fd); break;
		default: io_prep_fsync(cb, fd); break;
		}
		cb->data = f;
		int r = SYS(c, io_submit(q->ctx, 1, cbs));
		if (r != 1) {
			errno = r < 0 ? -r : EAGAIN;
			f->live = 0;
			return -1;
		}
	} else if (q->kind == K_POSIX) {
		struct aiocb *a = &f->acb;
		a->aio_fildes = fd;
		a->aio_buf = f->buf;
		a->aio_nbytes = (size_t)n;
		a->aio_offset = off;
		int r = SYS(c, k == OK_READ ? aio_read(a) : k == OK_WRITE ? aio_write(a) :
			       aio_fsync(k == OK_FDSYNC ? O_DSYNC : O_SYNC, a));
		if (r < 0) {
			f->live = 0;
			return -1;
		}
	} else {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);
		if (!sqe) {
			io_uring_submit(&q->ring);
			sqe = io_uring_get_sqe(&q->ring);
		}
		if (!sqe) {
			errno = EBUSY;
			f->live = 0;
			return -1;
		}
		switch (k) {
		case OK_READ: io_uring_prep_read(sqe, fd, f->buf, (unsigned)n, (uint64_t)off); break;
		case OK_WRITE: io_uring_prep_write(sqe, fd, f->buf, (unsigned)n, (uint64_t)off); break;
		case OK_FSYNC: io_uring_prep_fsync(sqe, fd, 0); break;
		case OK_FDSYNC: io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC); break;
		case OK_FALLOCATE:
			io_uring_prep_fallocate(sqe, fd, 0, (off_t)off, (off_t)(o->size > 0 ? o->size : 0));
			break;
		default: io_uring_prep_nop(sqe); break;
		}
		io_uring_sqe_set_data(sqe, f);
		/* the entries one io_uring_enter submitted, submitted together
		 * (whence: 0 when another of them follows, aio_load) */
		int r = o->whence ? SYS(c, io_uring_submit(&q->ring)) : 0;
		if (r < 0) {
			errno = -r;
			f->live = 0;
			return -1;
		}
	}
	return 0;
}

/* Completions reaped until f's is */
static int reap(struct rctx *c, struct flight *f)
{
	struct queue *q = f->q;

	if (q->kind == K_URING && io_uring_sq_ready(&q->ring))
		io_uring_submit(&q->ring);	/* none left behind */

	while (!f->done) {
		if (q->kind == K_LIBAIO) {
			struct io_event ev[64];
			int r = SYS(c, io_getevents(q->ctx, 1, 64, ev, NULL));
			if (r == -EINTR)
				continue;
			if (r < 0) {
				errno = -r;
				return -1;
			}
			for (int i = 0; i < r; i++) {
				struct flight *g = ev[i].data;
				g->done = 1;
				g->res = (int64_t)ev[i].res;
			}
		} else if (q->kind == K_POSIX) {
			const struct aiocb *l[1] = { &f->acb };
			if (aio_error(&f->acb) == EINPROGRESS) {
				if (SYS(c, aio_suspend(l, 1, NULL)) < 0 && errno != EINTR)
					return -1;
				continue;
			}
			int e = aio_error(&f->acb);
			ssize_t r = aio_return(&f->acb);
			f->done = 1;
			f->res = r < 0 ? -e : r;
		} else {
			struct io_uring_cqe *cqe;
			int r = SYS(c, io_uring_wait_cqe(&q->ring, &cqe));
			if (r == -EINTR)
				continue;
			if (r < 0) {
				errno = -r;
				return -1;
			}
			struct flight *g = io_uring_cqe_get_data(cqe);
			g->done = 1;
			g->res = cqe->res;
			io_uring_cqe_seen(&q->ring, cqe);
		}
	}
	return 0;
}

/* The completion: waited for where the original saw it */
int h_aio_wait(struct rctx *c, const struct op *o)
{
	struct flight **fp = flight_of(o, 0), *f = fp ? *fp : NULL;

	if (!f || !f->live)
		return o->failed ? 0 : -1;	/* its submission failed: counted there */
	int rc = reap(c, f);
	f->live = 0;
	free(f->buf);
	*fp = NULL;
	int64_t res = f->res;
	free(f);
	f = NULL;
	if (rc < 0)
		return -1;
	if (res < 0) {
		errno = (int)-res;
		return -1;
	}
	c->moved += res;
	return 0;
}

/* At load: o, an asynchronous operation's element, the thread's last
 * op; its queue's key (interned) and link. Its submission goes after the
 * last call of the thread that began no later than it was submitted (an
 * operation's element is where its completion was seen: it begins then,
 * as the wait it is replayed as). */
void aio_load(struct thread *th, const struct call *submit, const char *key, int32_t link)
{
	struct op *o = &th->ops[th->nops - 1];
	size_t at = th->nops - 1;

	o->path2 = key;
	o->count = link;
	while (at > 0) {
		const struct op *p = &th->ops[at - 1];
		if (p->kind == OP_IO && p->start <= o->start)
			break;
		at--;
	}
	XGROW(th->ops, th->cap, th->nops + 1);
	o = &th->ops[th->nops - 1];
	struct op s = *o;
	memmove(&th->ops[at + 1], &th->ops[at], (th->nops - at) * sizeof(*o));
	th->nops++;
	s.call = submit;
	s.dur = 0;
	s.seq = 0;		/* the element's number is its completion's */
	/* submitted by the same call as the one before or after it: one
	 * submission for them all, at the last (h_aio_submit) */
	s.whence = 1;
	if (at > 0 && th->ops[at - 1].call == submit && th->ops[at - 1].path2 == key &&
	    th->ops[at - 1].start == s.start)
		th->ops[at - 1].whence = 0;
	if (at + 1 < th->nops && th->ops[at + 1].call == submit &&
	    th->ops[at + 1].path2 == key && th->ops[at + 1].start == s.start)
		s.whence = 0;
	th->ops[at] = s;
	o = &th->ops[th->nops - 1];
	o->start += o->dur;	/* the wait: where the completion was seen */
	o->dur = 0;		/* its time is the reaping call's */
}

void aio_end(void)
{
	/* a POSIX request never waited for: glibc writes into it until done */
	for (size_t i = 0; i < capfl; i++)
		if (fl[i] && fl[i]->live && fl[i]->q && fl[i]->q->kind == K_POSIX) {
			const struct aiocb *l[1] = { &fl[i]->acb };
			while (aio_error(&fl[i]->acb) == EINPROGRESS)
				aio_suspend(l, 1, NULL);
			aio_return(&fl[i]->acb);
		}
	/* libaio's and the rings' wait for what is in flight, or cancel it */
	for (size_t i = 0; i < nqueues; i++) {
		if (queues[i].kind == K_LIBAIO)
			io_destroy(queues[i].ctx);
		else if (queues[i].kind == K_URING)
			io_uring_queue_exit(&queues[i].ring);
	}
	free(queues);
	queues = NULL;
	nqueues = capqueues = 0;
	for (size_t i = 0; i < capfl; i++) {
		if (fl[i])
			free(fl[i]->buf);
		free(fl[i]);
	}
	free(fl);
	fl = NULL;
	capfl = 0;
}
