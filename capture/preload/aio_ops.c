/*
 * Asynchronous I/O, each operation itemised: the submissions libaio's
 * system calls (wrap_aio.c, syscall() in wrap_map.c, and under
 * --syscalls sud.c) and POSIX aio's calls (wrap_aio.c) made.
 *
 * A submission is kept in a table of the process's (no malloc: a fixed
 * array, under a spin lock held only while the thread's guard is set);
 * when its completion is seen (the io_event io_getevents returned, the
 * aiocb aio_return reported) the operation becomes one record, in the
 * thread that saw it, at that moment: its submission time, context and
 * queue depth in the payload (struct aio_op). What the capture cannot
 * pair (a table full, a completion reaped in user space, a context
 * destroyed with operations in flight, io_uring made by a library of its
 * own system calls) is counted in a REC_AIO_GAP record: the writer makes
 * the process incomplete, saying why.
 */
#include "preload.h"

#include <link.h>
#include <linux/aio_abi.h>
#include <sys/uio.h>

#define AIO_SLOTS 4096              /* in flight at most, a power of two */
#define AIO_CTXS  64                /* libaio contexts whose depth we keep */

struct aslot {
	uintptr_t key;              /* the iocb or aiocb, 0: free */
	uint64_t ctx;               /* the libaio context, 0 for POSIX aio */
	uint64_t t0;                /* submitted */
	uint64_t done;              /* POSIX: aio_error first said so */
	int64_t size, off;
	int32_t fd;
	uint16_t call;
	uint16_t depth;
	uint32_t kind;              /* enum aio_kind */
};

static struct aslot tab[AIO_SLOTS];
static struct { uint64_t ctx; int inflight; } ctxs[AIO_CTXS];
static int posix_inflight;
static volatile pid_t lock_owner;

/* The lock, unless this thread holds it already (a signal handler's
 * call inside ours: not itemised, said so) */
static int aio_lock(struct tstate *t)
{
	pid_t me = self_tid(t), zero = 0;

	if (__atomic_load_n(&lock_owner, __ATOMIC_RELAXED) == me)
		return 0;
	while (!__atomic_compare_exchange_n(&lock_owner, &zero, me, 0,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		zero = 0;
		island_syscall(SYS_sched_yield);
	}
	return 1;
}

static void aio_unlock(void)
{
	__atomic_store_n(&lock_owner, 0, __ATOMIC_RELEASE);
}

static unsigned hash(uintptr_t k)
{
	return (unsigned)(((k >> 3) * 0x9E3779B97F4A7C15ull) >> 52) & (AIO_SLOTS - 1);
}

static int find(uintptr_t key, uint64_t ctx)
{
	for (unsigned i = hash(key), n = 0; n < AIO_SLOTS && tab[i].key;
	     i = (i + 1) & (AIO_SLOTS - 1), n++)
		if (tab[i].key == key && tab[i].ctx == ctx)
			return (int)i;
	return -1;
}

/* Linear probing's deletion: the entries after a hole that hash at or
 * before it move into it */
static void drop(unsigned i)
{
	unsigned j = i;

	tab[i].key = 0;
	for (;;) {
		j = (j + 1) & (AIO_SLOTS - 1);
		if (!tab[j].key)
			return;
		unsigned h = hash(tab[j].key);
		if ((i <= j) ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		tab[i] = tab[j];
		tab[j].key = 0;
		i = j;
	}
}

static int *depth_of(uint64_t ctx)
{
	int fr = -1;

	if (!ctx)
		return &posix_inflight;
	for (int i = 0; i < AIO_CTXS; i++) {
		if (ctxs[i].ctx == ctx)
			return &ctxs[i].inflight;
		if (!ctxs[i].ctx && fr < 0)
			fr = i;
	}
	if (fr < 0)
		return NULL;
	ctxs[fr].ctx = ctx;
	ctxs[fr].inflight = 0;
	return &ctxs[fr].inflight;
}

static uint64_t nused;

/* Keep s (its key set); 0 when the table is full */
static int keep(struct aslot *s)
{
	int *d = depth_of(s->ctx);
	int i;

	if (nused >= AIO_SLOTS / 4 * 3)
		return 0;
	if ((i = find(s->key, s->ctx)) < 0) {     /* an iocb given again */
		for (i = (int)hash(s->key); tab[i].key; i = (i + 1) & (AIO_SLOTS - 1))
			;
		nused++;
	} else if (d && *d > 0) {
		(*d)--;
	}
	if (d)
		(*d)++;
	s->depth = d ? (uint16_t)(*d > 65535 ? 65535 : *d) : 0;
	tab[i] = *s;
	return 1;
}

/* Take the operation of key out into s; 0 when none is kept */
static int take(uintptr_t key, uint64_t ctx, struct aslot *s)
{
	int i = find(key, ctx);
	int *d;

	if (i < 0)
		return 0;
	*s = tab[i];
	drop((unsigned)i);
	nused--;
	if ((d = depth_of(ctx)) && *d > 0)
		(*d)--;
	return 1;
}

/* --- records ----------------------------------------------------------- */

static void gap_put(struct tstate *t, int why, int64_t n, int64_t a2, uint64_t seqfl)
{
	struct rec *r;

	if (n <= 0 || !(r = rec_reserve(t, sizeof(*r))))
		return;
	uint64_t at = now();
	rec_fill(r, REC_AIO_GAP, at, at, 0, why, n, a2, 0);
	r->seq = seqfl;
	rec_commit(t, &r->len, sizeof(*r));
}

/* The operation s completed with res (a system call's: < 0 an errno),
 * seen at AT (done, when known earlier); SEQFL: a kernel record's flags
 * under --syscalls, else 0 */
static void op_put(struct tstate *t, const struct aslot *s, uint64_t at, int64_t res,
		   uint64_t seqfl)
{
	struct aio_op pl = { s->t0, s->done, s->ctx, s->depth, s->kind };
	size_t len = REC_ALIGN(sizeof(struct rec) + sizeof(pl));
	struct rec *r = rec_reserve(t, len);

	if (!r)
		return;
	rec_fill(r, s->call, at, at, res < 0 ? -1 : res, s->fd, s->size, s->off,
		 res < 0 ? (int)-res : 0);
	r->seq = seqfl;
	memcpy(REC_PAYLOAD(r), &pl, sizeof(pl));
	memset(REC_PAYLOAD(r) + sizeof(pl), 0, len - sizeof(*r) - sizeof(pl));
	if (seqfl)
		rec_commit(t, &r->len, len);
	else
		rec_close(t, r, len);
}

/* --- libaio -------------------------------------------------------------- */

/* libaio's opcodes (linux/aio_abi.h): the operation each is, whether
 * its buffer is a vector (its length then the vector's count) and
 * whether it transfers data at an offset */
static const struct { uint16_t call; uint8_t vec, data; } iocb_ops[] = {
	[IOCB_CMD_PREAD]   = { C_IO_PREAD,   0, 1 },
	[IOCB_CMD_PWRITE]  = { C_IO_PWRITE,  0, 1 },
	[IOCB_CMD_FSYNC]   = { C_IO_FSYNC,   0, 0 },
	[IOCB_CMD_FDSYNC]  = { C_IO_FDSYNC,  0, 0 },
	[IOCB_CMD_POLL]    = { C_IO_POLL,    0, 0 },
	[IOCB_CMD_PREADV]  = { C_IO_PREADV,  1, 1 },
	[IOCB_CMD_PWRITEV] = { C_IO_PWRITEV, 1, 1 },
};
#define NIOCB_OPS (sizeof(iocb_ops) / sizeof(iocb_ops[0]))

static int64_t vec_len(const struct iovec *v, uint64_t n)
{
	int64_t s = 0;

	for (uint64_t i = 0; v && i < n && i < 1024; i++)
		s += (int64_t)v[i].iov_len;
	return s;
}

/* io_submit's first n iocbs went in (the kernel read them all) */
void aio_submitted(struct tstate *t, uint64_t ctx, long n, struct iocb **ios,
		   uint64_t t0, uint64_t seqfl)
{
	int64_t full = 0;

	if (n <= 0 || !ios || !aio_lock(t)) {
		gap_put(t, AIO_GAP_FULL, n, 0, seqfl);
		return;
	}
	for (long i = 0; i < n; i++) {
		const struct iocb *cb = ios[i];
		unsigned op = cb->aio_lio_opcode;
		struct aslot s;

		if (op >= NIOCB_OPS || !iocb_ops[op].call)
			continue;	/* the kernel refused it: not submitted */
		s = (struct aslot){ (uintptr_t)cb, ctx, t0, 0, 0, -1,
				    (int32_t)cb->aio_fildes, iocb_ops[op].call, 0,
				    AIO_LIBAIO };
		if (iocb_ops[op].data) {
			s.size = iocb_ops[op].vec ?
				 vec_len((const struct iovec *)(uintptr_t)cb->aio_buf,
					 cb->aio_nbytes) : (int64_t)cb->aio_nbytes;
			s.off = cb->aio_offset;
		}
		full += !keep(&s);
	}
	aio_unlock();
	gap_put(t, AIO_GAP_FULL, full, 0, seqfl);
}

/* io_getevents (or io_cancel) returned n events at AT */
void aio_reaped(struct tstate *t, uint64_t ctx, const struct io_event *ev, long n,
		uint64_t at, uint64_t seqfl)
{
	int64_t unseen = 0;

	for (long i = 0; ev && i < n; i++) {
		struct aslot s;
		int got = 0;

		if (aio_lock(t)) {
			got = take((uintptr_t)ev[i].obj, ctx, &s);
			aio_unlock();
		}
		if (got && s.call != AIO_SILENT)
			op_put(t, &s, at, ev[i].res, seqfl);
		else
			unseen++;
	}
	gap_put(t, AIO_GAP_FULL, unseen, 0, seqfl);
}

/* io_destroy waited for what was in flight in ctx, and threw its
 * results away */
void aio_destroyed(struct tstate *t, uint64_t ctx, uint64_t seqfl)
{
	int64_t n = 0;

	if (!aio_lock(t))
		return;
	for (unsigned i = 0; i < AIO_SLOTS; i++)
		while (tab[i].key && tab[i].ctx == ctx) {
			drop(i);
			nused--;
			n++;
		}
	for (int i = 0; i < AIO_CTXS; i++)
		if (ctxs[i].ctx == ctx)
			ctxs[i].ctx = 0;
	aio_unlock();
	gap_put(t, AIO_GAP_DESTROYED, n, 0, seqfl);
}

/* The system calls, made by the libc-level wrappers below or raw
 * (syscall(), sud.c): ret the kernel's (< 0 an errno) */
void aio_sys(struct tstate *t, long nr, const long *a, long ret, uint64_t t0,
	     uint64_t t1, uint64_t seqfl)
{
	if (ret < 0)
		return;
	switch (nr) {
	case SYS_io_submit:
		aio_submitted(t, (uint64_t)a[0], ret, (struct iocb **)a[2], t0, seqfl);
		break;
	case SYS_io_getevents: case SYS_io_pgetevents:
		aio_reaped(t, (uint64_t)a[0], (const struct io_event *)a[3], ret, t1, seqfl);
		break;
	case SYS_io_cancel:	/* the result, when the kernel gave it here */
		aio_reaped(t, (uint64_t)a[0], (const struct io_event *)a[2],
			   ret == 0 && a[2] ? 1 : 0, t1, seqfl);
		break;
	case SYS_io_destroy:
		aio_destroyed(t, (uint64_t)a[0], seqfl);
		break;
	}
}

/* --- the process's end, a fork child ------------------------------------- */

/* What is still in flight at the end was never seen completed (reaped
 * in user space, or left running) */
void aio_finish(struct tstate *t)
{
	int64_t n = 0;

	if (!t->hdr || (t->hold & HOLD_OFF))
		return;
	if (aio_lock(t)) {
		n = (int64_t)nused;
		aio_unlock();
	}
	gap_put(t, AIO_GAP_UNREAPED, n, 0, 0);
}

/* A fork child has no context of its parent's (the kernel ties them to
 * the memory) nor its POSIX requests */
void aio_fork_child(void)
{
	if (nused)	/* else untouched: its pages are not copied */
		memset(tab, 0, sizeof(tab));
	memset(ctxs, 0, sizeof(ctxs));
	nused = 0;
	posix_inflight = 0;
	lock_owner = 0;
}

/* --- for the POSIX wrappers (wrap_aio.c) ------------------------------- */

int aio_keep(struct tstate *t, int kind, uintptr_t key, uint64_t ctx, int call,
	     int fd, int64_t size, int64_t off, uint64_t t0)
{
	struct aslot s = { key, ctx, t0, 0, size, off, fd, (uint16_t)call, 0,
			   (uint32_t)kind };
	int ok = 0;

	if (aio_lock(t)) {
		ok = keep(&s);
		aio_unlock();
	}
	return ok;
}

int aio_complete(struct tstate *t, uintptr_t key, uint64_t ctx, uint64_t at,
		 int64_t res, uint64_t seqfl)
{
	struct aslot s;
	int got = 0;

	if (aio_lock(t)) {
		got = take(key, ctx, &s);
		aio_unlock();
	}
	if (got && s.call != AIO_SILENT)
		op_put(t, &s, at, res, seqfl);
	return got;
}

void aio_seen_done(struct tstate *t, uintptr_t key, uint64_t ctx)
{
	if (!aio_lock(t))
		return;
	int i = find(key, ctx);
	if (i >= 0 && !tab[i].done)
		tab[i].done = now();
	aio_unlock();
}

void aio_gap(struct tstate *t, int why, int64_t n, int64_t a2, uint64_t seqfl)
{
	gap_put(t, why, n, a2, seqfl);
}
