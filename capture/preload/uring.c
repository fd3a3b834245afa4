/*
 * io_uring's operations, itemised from the rings' memory. The capture
 * must see the ring's io_uring_setup (its offsets in io_uring_params)
 * and its mappings: through syscall() and libc's mmap in the default
 * capture (fio makes them so), at the kernel boundary under --syscalls
 * (liburing makes its own system calls: only --syscalls sees them).
 *
 * At each io_uring_enter, the entries the kernel took from the SQ ring
 * (from its head before the call, as many as the call returned) are
 * read, as the SQEs still hold them when it returns; each is kept in
 * aio_ops.c's table by its user_data, its submission the call's start. Then,
 * and at the process's end, the CQ ring's entries posted since the last
 * look are read: each completes its operation, seen then (an upper bound
 * when the program reaps the ring in user space between its calls; an
 * entry the kernel wrote over before we looked is counted, not lost
 * silently). Registered files (IORING_REGISTER_FILES) name the fixed
 * descriptors; a registered ring (IORING_REGISTER_RING_FDS), entered by
 * its index, is known by the descriptor the index stands for.
 *
 * Not itemised, said so (REC_AIO_GAP): SQPOLL rings (the kernel's thread
 * takes submissions no system call reveals), rings whose memory was not
 * seen mapped, opcodes that change the descriptor table or name paths
 * (openat, close, accept, statx, ...: the opcode named).
 */
/* before preload.h: a field of its is named as our thread state */
#include <linux/io_uring.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/uio.h>

#include "preload.h"

#define URINGS 16
#define UFILES 256                  /* registered files we name */

struct uring {
	int fd;                     /* -1: free */
	unsigned flags, features, sq_entries, cq_entries;
	struct io_sqring_offsets so;
	struct io_cqring_offsets co;
	char *sq, *cq, *sqes;       /* their mappings, NULL until seen */
	unsigned cq_seen;           /* CQ entries read so far */
	int files[UFILES];          /* registered, -1 none */
	unsigned nfiles;
};

static struct uring rings[URINGS];
int nrings;
/* Threads may enter one ring together (one submits, another waits): a
 * ring's reading is one at a time, under a lock held only while the
 * thread's guard is set; a signal handler's call inside ours (the lock
 * its own already) reads nothing, and says so */
static volatile pid_t ring_owner;

static int ring_lock(struct tstate *t)
{
	pid_t me = self_tid(t), zero = 0;

	if (__atomic_load_n(&ring_owner, __ATOMIC_RELAXED) == me)
		return 0;
	while (!__atomic_compare_exchange_n(&ring_owner, &zero, me, 0, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED)) {
		zero = 0;
		island_syscall(SYS_sched_yield);
	}
	return 1;
}

static void ring_unlock(void)
{
	__atomic_store_n(&ring_owner, 0, __ATOMIC_RELEASE);
}

static struct uring *ring_of(int fd)
{
	for (int i = 0; i < nrings; i++)
		if (rings[i].fd == fd)
			return &rings[i];
	return NULL;
}

/*
 * Registered rings: an index the registering thread alone may give in
 * place of the ring's descriptor (the kernel keeps them per task, and a
 * fork's child or a new thread has none). Each entry is written by its
 * thread only, which alone looks it up; a free one (tid 0) is taken by
 * compare-and-swap.
 */
#ifndef IORING_REGISTER_USE_REGISTERED_RING
#define IORING_REGISTER_USE_REGISTERED_RING (1U << 31)
#endif
#define UREGS 64
static struct { pid_t tid; unsigned off; int fd; } regs[UREGS];

static int reg_find(pid_t me, unsigned off)
{
	for (int i = 0; i < UREGS; i++)
		if (__atomic_load_n(&regs[i].tid, __ATOMIC_RELAXED) == me && regs[i].off == off)
			return i;
	return -1;
}

static void reg_put(pid_t me, unsigned off, int fd)
{
	int i = reg_find(me, off);

	for (int j = 0; i < 0 && j < UREGS; j++) {
		pid_t zero = 0;
		if (__atomic_compare_exchange_n(&regs[j].tid, &zero, me, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			i = j;
	}
	if (i < 0)
		return;         /* not known: its calls' ring is not found, said so */
	regs[i].off = off;
	regs[i].fd = fd;
}

static void reg_drop(pid_t me, unsigned off)
{
	int i = reg_find(me, off);

	if (i >= 0)
		__atomic_store_n(&regs[i].tid, 0, __ATOMIC_RELEASE);
}

/* A thread ends: its indexes with it (a new thread given its number
 * has none) */
void uring_thread_gone(struct tstate *t)
{
	for (int i = 0; t->tid && i < UREGS; i++)
		if (__atomic_load_n(&regs[i].tid, __ATOMIC_RELAXED) == t->tid)
			__atomic_store_n(&regs[i].tid, 0, __ATOMIC_RELEASE);
}

/* The ring's descriptor an io_uring_enter or io_uring_register gives,
 * by its registered index or as itself; -1 an index not known */
long uring_fd(struct tstate *t, long nr, const long *a)
{
	int reg = nr == SYS_io_uring_enter ?
		  (a[3] & IORING_ENTER_REGISTERED_RING) != 0 :
		  ((unsigned long)a[1] & IORING_REGISTER_USE_REGISTERED_RING) != 0;
	int i = reg ? reg_find(self_tid(t), (unsigned)a[0]) : -1;

	return !reg ? a[0] : i < 0 ? -1 : regs[i].fd;
}

/* Each opcode: the operation it is, what its length is (0 none, 1 len,
 * 2 the vectors at addr, len of them, 3 addr: fallocate's), whether it
 * has an offset, and a descriptor */
static const struct { uint16_t call; uint8_t size, off, fd; } ops[] = {
	[IORING_OP_NOP]             = { C_URING_NOP,        0, 0, 0 },
	[IORING_OP_READV]           = { C_URING_READV,      2, 1, 1 },
	[IORING_OP_WRITEV]          = { C_URING_WRITEV,     2, 1, 1 },
	[IORING_OP_FSYNC]           = { C_URING_FSYNC,      0, 0, 1 },
	[IORING_OP_READ_FIXED]      = { C_URING_READ_FIXED, 1, 1, 1 },
	[IORING_OP_WRITE_FIXED]     = { C_URING_WRITE_FIXED, 1, 1, 1 },
	[IORING_OP_POLL_ADD]        = { C_URING_POLL,       0, 0, 1 },
	[IORING_OP_SYNC_FILE_RANGE] = { C_URING_SYNC_FILE_RANGE, 1, 1, 1 },
	[IORING_OP_SENDMSG]         = { C_URING_SENDMSG,    0, 0, 1 },
	[IORING_OP_RECVMSG]         = { C_URING_RECVMSG,    0, 0, 1 },
	[IORING_OP_TIMEOUT]         = { C_URING_TIMEOUT,    0, 0, 0 },
	[IORING_OP_FALLOCATE]       = { C_URING_FALLOCATE,  3, 1, 1 },
	[IORING_OP_READ]            = { C_URING_READ,       1, 1, 1 },
	[IORING_OP_WRITE]           = { C_URING_WRITE,      1, 1, 1 },
	[IORING_OP_SEND]            = { C_URING_SEND,       1, 0, 1 },
	[IORING_OP_RECV]            = { C_URING_RECV,       1, 0, 1 },
};
#define NOPS (sizeof(ops) / sizeof(ops[0]))
/* opcodes that only act on the ring itself: nothing to itemise */
static int ring_only(unsigned op)
{
	return op == IORING_OP_POLL_REMOVE || op == IORING_OP_TIMEOUT_REMOVE ||
	       op == IORING_OP_ASYNC_CANCEL || op == IORING_OP_LINK_TIMEOUT ||
	       op == IORING_OP_PROVIDE_BUFFERS || op == IORING_OP_REMOVE_BUFFERS ||
	       op == IORING_OP_FADVISE || op == IORING_OP_MADVISE;
}

static int64_t vec_len(const struct iovec *v, uint64_t n)
{
	int64_t s = 0;

	for (uint64_t i = 0; v && i < n && i < 1024; i++)
		s += (int64_t)v[i].iov_len;
	return s;
}

static void setup_locked(struct tstate *t, long fd, const struct io_uring_params *p,
			 uint64_t seqfl);

void uring_setup(struct tstate *t, long fd, const struct io_uring_params *p,
		 uint64_t seqfl)
{
	if (fd < 0 || !p)
		return;
	if (!ring_lock(t)) {
		aio_gap(t, AIO_GAP_URING, 1, 0, seqfl);
		return;
	}
	setup_locked(t, fd, p, seqfl);
	ring_unlock();
}

static void setup_locked(struct tstate *t, long fd, const struct io_uring_params *p,
			 uint64_t seqfl)
{
	struct uring *u;

	if (p->flags & IORING_SETUP_SQPOLL)
		aio_gap(t, AIO_GAP_SQPOLL, 1, 0, seqfl);
	if (!(u = ring_of((int)fd))) {
		for (int i = 0; i < nrings && !u; i++)
			if (rings[i].fd < 0)
				u = &rings[i];
		if (!u && nrings < URINGS)
			u = &rings[nrings++];
	}
	if (!u) {
		aio_gap(t, AIO_GAP_URING, 1, 0, seqfl);
		return;
	}
	memset(u, 0, sizeof(*u));
	u->fd = (int)fd;
	u->flags = p->flags;
	u->features = p->features;
	u->sq_entries = p->sq_entries;
	u->cq_entries = p->cq_entries;
	u->so = p->sq_off;
	u->co = p->cq_off;
	for (int i = 0; i < UFILES; i++)
		u->files[i] = -1;
}

/* A ring's memory, known otherwise (liburing's struct io_uring) */
void uring_ptrs(long fd, char *sq, char *cq, char *sqes)
{
	struct uring *u = ring_of((int)fd);

	if (u) {
		u->sq = sq;
		u->cq = cq;
		u->sqes = sqes;
	}
}

/* A mapping of fd at off (at addr): one of a ring's */
void uring_mmap(long fd, long off, long addr)
{
	struct uring *u;

	if (!nrings || addr == -1 || !(u = ring_of((int)fd)))
		return;
	switch ((unsigned long long)off & IORING_OFF_MMAP_MASK) {
	case IORING_OFF_SQ_RING:
		u->sq = (char *)addr;
		if (u->features & IORING_FEAT_SINGLE_MMAP)
			u->cq = (char *)addr;
		break;
	case IORING_OFF_CQ_RING:
		u->cq = (char *)addr;
		break;
	case IORING_OFF_SQES:
		u->sqes = (char *)addr;
		break;
	}
}

/* IORING_REGISTER_FILES (and its update): the fixed descriptors */
void uring_register(struct tstate *t, long fd, long op, const void *arg, long n,
		    long ret)
{
	struct uring *u = ring_of((int)fd);

	op = (long)((unsigned)op & ~IORING_REGISTER_USE_REGISTERED_RING);
	if (ret > 0 && arg && (op == IORING_REGISTER_RING_FDS ||
			       op == IORING_UNREGISTER_RING_FDS)) {
		/* the kernel wrote each index it chose back: offset */
		const struct io_uring_rsrc_update *up = arg;
		for (long i = 0; i < ret && i < n; i++)
			if (op == IORING_REGISTER_RING_FDS)
				reg_put(self_tid(t), up[i].offset, (int)up[i].data);
			else
				reg_drop(self_tid(t), up[i].offset);
	}
	if (!u || ret < 0)
		return;
	if (op == IORING_REGISTER_FILES) {
		const int32_t *fds = arg;
		u->nfiles = n > UFILES ? UFILES : (unsigned)n;
		for (unsigned i = 0; i < u->nfiles; i++)
			u->files[i] = fds ? fds[i] : -1;
	} else if (op == IORING_UNREGISTER_FILES) {
		u->nfiles = 0;
	} else if (op == IORING_REGISTER_FILES_UPDATE) {
		const struct io_uring_files_update *up = arg;
		const int32_t *fds = up ? (const int32_t *)(uintptr_t)up->fds : NULL;
		for (long i = 0; fds && i < ret && up->offset + i < UFILES; i++)
			u->files[up->offset + i] = fds[i];
	}
}

static uint64_t ring_id(const struct uring *u)
{
	return (uint64_t)(uintptr_t)u->sq;
}

/* The CQ entries posted since the last look, each completing its
 * operation at AT */
/* ... up to tail when upto (the CQ's tail before a call), else all */
static void reap_to(struct tstate *t, struct uring *u, uint64_t at, uint64_t seqfl,
		    unsigned upto_tail, int upto)
{
	/* SQPOLL: what it completes was never seen submitted (said so) */
	if (!u->cq || (u->flags & IORING_SETUP_SQPOLL))
		return;
	if (upto && (int)(upto_tail - u->cq_seen) <= 0)
		return;
	unsigned tail = upto ? upto_tail :
		__atomic_load_n((unsigned *)(u->cq + u->co.tail), __ATOMIC_ACQUIRE);
	unsigned mask = *(unsigned *)(u->cq + u->co.ring_mask);
	unsigned n = tail - u->cq_seen, lost = 0;
	size_t sz = (u->flags & IORING_SETUP_CQE32) ? 32 : 16;
	int64_t unknown = 0;

	if (n > u->cq_entries) {	/* written over before we looked */
		lost = n - u->cq_entries;
		u->cq_seen += lost;
	}
	for (; u->cq_seen != tail; u->cq_seen++) {
		const struct io_uring_cqe *c = (const void *)(u->cq + u->co.cqes +
							       (u->cq_seen & mask) * sz);
		uint64_t key = c->user_data + 1;
		/* user_data ~0: liburing's own timeout, no operation */
		if (key && !aio_complete(t, key, ring_id(u), at, c->res, seqfl))
			unknown++;
	}
	aio_gap(t, AIO_GAP_FULL, (int64_t)lost, 0, seqfl);
	aio_gap(t, AIO_GAP_URING_UNSEEN, unknown, 0, seqfl);
}

static void reap(struct tstate *t, struct uring *u, uint64_t at, uint64_t seqfl)
{
	reap_to(t, u, at, seqfl, 0, 0);
}

/* The SQ ring's head before an io_uring_enter on fd (its submissions
 * start there), 0 when not known */
static __thread long pre_fd = -1;	/* the ring uring_head looked at */
static __thread unsigned pre_tail;	/* its CQ's tail then */

unsigned uring_head(long fd)
{
	struct uring *u = nrings ? ring_of((int)fd) : NULL;

	if (u && u->cq && !(u->flags & IORING_SETUP_SQPOLL)) {
		pre_fd = fd;
		pre_tail = __atomic_load_n((unsigned *)(u->cq + u->co.tail), __ATOMIC_ACQUIRE);
	}
	return u && u->sq ? __atomic_load_n((unsigned *)(u->sq + u->so.head),
					    __ATOMIC_ACQUIRE) : 0;
}

/* The SQ ring's head now (after a call: what the kernel took since) */
unsigned uring_head_now(long fd)
{
	struct uring *u = nrings ? ring_of((int)fd) : NULL;

	return u && u->sq ? __atomic_load_n((unsigned *)(u->sq + u->so.head),
					    __ATOMIC_ACQUIRE) : 0;
}

/* io_uring_enter(fd, ...) returned ret (submitted, < 0 an errno); head
 * was the SQ ring's head before it */
static void enter_locked(struct tstate *t, long fd, unsigned head, long ret,
			 uint64_t t0, uint64_t t1, uint64_t seqfl);

void uring_enter(struct tstate *t, long fd, unsigned head, long ret, uint64_t t0,
		 uint64_t t1, uint64_t seqfl)
{
	if (!ring_lock(t)) {
		aio_gap(t, AIO_GAP_URING, 1, 0, seqfl);
		return;
	}
	enter_locked(t, fd, head, ret, t0, t1, seqfl);
	ring_unlock();
}

static void enter_locked(struct tstate *t, long fd, unsigned head, long ret,
			 uint64_t t0, uint64_t t1, uint64_t seqfl)
{
	struct uring *u = nrings ? ring_of((int)fd) : NULL;
	int64_t full = 0, unseen = 0;

	if (!u) {
		aio_gap(t, AIO_GAP_URING, 1, 0, seqfl);
		return;
	}
	/* what was posted before this call first: the program reaped those
	 * in user space, and may give their user_data (a pointer freed and
	 * allocated again) to the entries it submits now */
	if (pre_fd == fd)
		reap_to(t, u, t0, seqfl, pre_tail, 1);
	pre_fd = -1;
	if (ret > 0 && !(u->flags & IORING_SETUP_SQPOLL)) {
		if (!u->sq || !u->sqes) {
			aio_gap(t, AIO_GAP_URING, ret, 0, seqfl);
			ret = 0;
		}
		unsigned mask = u->sq ? *(unsigned *)(u->sq + u->so.ring_mask) : 0;
		size_t sz = (u->flags & IORING_SETUP_SQE128) ? 128 : 64;
		for (long k = 0; k < ret; k++) {
			unsigned i = (head + (unsigned)k) & mask;
			unsigned idx = u->so.array ? ((unsigned *)(u->sq + u->so.array))[i] : i;
			const struct io_uring_sqe *q;
			if (idx >= u->sq_entries) {
				unseen++;
				continue;
			}
			q = (const void *)(u->sqes + (size_t)idx * sz);
			unsigned op = q->opcode;
			if (op < NOPS && ops[op].call) {
				int qfd = ops[op].fd ? q->fd : -1;
				int64_t size = 0;
				if ((q->flags & IOSQE_FIXED_FILE) && qfd >= 0)
					qfd = (unsigned)qfd < u->nfiles ? u->files[qfd] : -1;
				if (ops[op].size == 1)
					size = q->len;
				else if (ops[op].size == 2)
					size = vec_len((const struct iovec *)(uintptr_t)q->addr, q->len);
				else if (ops[op].size == 3)
					size = (int64_t)q->addr;
				uint64_t key = q->user_data + 1;
				/* user_data ~0: liburing's own timeout */
				if (key && !aio_keep(t, AIO_URING, key, ring_id(u), ops[op].call, qfd,
						     size, ops[op].off ? (int64_t)q->off : -1, t0))
					full++;
			} else {
				/* kept for its completion, not itemised */
				uint64_t key = q->user_data + 1;
				if (!ring_only(op))
					aio_gap(t, AIO_GAP_URING_OP, 1, op, seqfl);
				if (key)
					aio_keep(t, AIO_URING, key, ring_id(u), AIO_SILENT, -1, 0,
						 -1, t0);
			}
		}
	}
	aio_gap(t, AIO_GAP_FULL, full + unseen, 0, seqfl);
	reap(t, u, t1, seqfl);
}

/* Before a munmap of [addr, addr + len): a ring's memory going, what
 * it posted since the last look is read first */
void uring_munmap(struct tstate *t, long addr, long len, uint64_t seqfl)
{
	char *lo = (char *)addr, *hi = lo + len;

	if (!nrings || !ring_lock(t))
		return;
	for (int i = 0; i < nrings; i++) {
		struct uring *u = &rings[i];
		if (u->fd < 0)
			continue;
		if (u->cq >= lo && u->cq < hi) {
			reap(t, u, now(), seqfl);
			u->cq = NULL;
		}
		if (u->sq >= lo && u->sq < hi)
			u->sq = NULL;
		if (u->sqes >= lo && u->sqes < hi)
			u->sqes = NULL;
		if (!u->sq && !u->cq && !u->sqes)
			u->fd = -1;	/* unmapped whole: gone */
	}
	ring_unlock();
}

/* Is a ring mapped that the capture does not know (made by system calls
 * it did not see: a static liburing's)? /proc/self/maps names a ring's
 * memory anon_inode:[io_uring]. */
static int known_addr(uintptr_t a)
{
	for (int i = 0; i < nrings; i++)
		if (rings[i].fd >= 0 && ((uintptr_t)rings[i].sq == a ||
					 (uintptr_t)rings[i].cq == a ||
					 (uintptr_t)rings[i].sqes == a))
			return 1;
	return 0;
}

/* PROCMAP_QUERY (Linux 6.11, <linux/fs.h>), spelled out for older
 * headers: one mapping a call, without /proc/self/maps's text */
struct maps_query {
	uint64_t size, flags, addr, start, end, vm_flags, page_size, offset, inode;
	uint32_t dev_major, dev_minor, name_size, build_id_size;
	uint64_t name_addr, build_id_addr;
};
#define MAPS_QUERY _IOWR('f', 17, struct maps_query)
#define MQ_SHARED 0x08
#define MQ_COVERING_OR_NEXT 0x10
#define MQ_FILE_BACKED 0x20

static const char ring_tag[] = "[io_uring]";

static int tagged(const char *end)
{
	return !memcmp(end - (sizeof(ring_tag) - 1), ring_tag, sizeof(ring_tag) - 1);
}

/* By the query, the shared file mappings only (a ring submits through
 * its shared SQ ring: a private copy of it reaches no kernel): 1 or 0;
 * -1 where the kernel has no query */
static int unknown_queried(long fd)
{
	char name[4096];	/* a longer name fails the call: the text then */
	uint64_t at = 0;

	for (;;) {
		struct maps_query q = {
			.size = sizeof(q), .addr = at, .name_size = sizeof(name),
			.name_addr = (uintptr_t)name,
			.flags = MQ_SHARED | MQ_COVERING_OR_NEXT | MQ_FILE_BACKED,
		};
		if (island_syscall(SYS_ioctl, fd, MAPS_QUERY, &q) < 0)
			return errno == ENOENT ? 0 : -1;
		size_t l = q.name_size ? q.name_size - 1 : 0;
		if (l >= sizeof(ring_tag) - 1 && l < sizeof(name) && tagged(name + l) &&
		    !known_addr(q.start))
			return 1;
		if (q.end <= at)
			return 0;
		at = q.end;
	}
}

int uring_unknown_mapped(void)
{
	static char buf[16384];
	size_t have = 0;
	int found = 0;
	long fd = island_syscall(SYS_open, "/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	int e = errno;
	found = unknown_queried(fd);
	errno = e;
	for (; found < 0;) {
		long n = island_syscall(SYS_read, fd, buf + have, sizeof(buf) - 1 - have);
		if (n <= 0) {
			found = 0;
			break;
		}
		have += (size_t)n;
		buf[have] = 0;
		char *l = buf, *nl;
		while (found < 0 && (nl = memchr(l, '\n', have - (size_t)(l - buf)))) {
			*nl = 0;
			if (nl - l > (long)sizeof(ring_tag) && tagged(nl)) {
				uintptr_t a = 0;
				for (char *p = l; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'); p++)
					a = a * 16 + (uintptr_t)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
				if (!known_addr(a))
					found = 1;
			}
			l = nl + 1;
		}
		have -= (size_t)(l - buf);
		memmove(buf, l, have);
		if (have >= sizeof(buf) - 1)	/* a line longer than the buffer */
			have = 0;
	}
	island_syscall(SYS_close, fd);
	return found;
}

/* The process ends: what its rings posted since the last look */
void uring_finish(struct tstate *t)
{
	if (!nrings || !ring_lock(t))
		return;
	for (int i = 0; i < nrings; i++)
		if (rings[i].fd >= 0)
			reap(t, &rings[i], now(), 0);
	ring_unlock();
}

/* A ring mapped at the end that the capture does not know was made by
 * system calls it did not see. */
void uring_unseen(struct tstate *t)
{
	if (t->hdr && !(t->hold & HOLD_OFF) && !sud_on && uring_unknown_mapped())
		aio_gap(t, AIO_GAP_URING, 1, 0, 0);
}

void uring_fork_child(void)
{
	nrings = 0;
	ring_owner = 0;
	memset(regs, 0, sizeof(regs));  /* the kernel gives the child none */
}
