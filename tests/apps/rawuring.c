/*
 * io_uring without liburing, as fio's engine drives it: io_uring_setup,
 * io_uring_register and io_uring_enter through syscall(), the rings
 * mapped with libc's mmap (so the default capture sees them too), for
 * tests/e2e/capture-aio.sh. rawuring FILE: a ring of 8; the file
 * registered (IORING_REGISTER_FILES); a write of 8192 bytes at 0 and a
 * fixed-file read of 4096 at 4096 linked (IOSQE_IO_LINK), submitted and
 * waited for in one io_uring_enter; then an fsync and a nop; then an
 * openat (not itemised: the process says so). rawuring inline FILE: the
 * same with io_uring's system calls made by a `syscall` instruction of
 * its own, as fio's engine makes them on x86-64 (no wrapper sees them:
 * the default capture says the process is incomplete). Exit status 0
 * when each completed as asked, 77 when the kernel refused the ring.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static char wbuf[8192], rbuf[4096];
static struct io_uring_params p;
static char *sq, *cq;
static struct io_uring_sqe *sqes;
static unsigned tail;
static int ring, own;

/* io_uring's system calls: libc's syscall(), or an instruction of ours */
static long sys(long nr, long a, long b, long c, long d, long e)
{
#if defined(__x86_64__)
	if (own) {
		register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = 0;
		long r;

		__asm__ volatile("syscall"
				 : "=a"(r)
				 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
				 : "rcx", "r11", "memory");
		if (r < 0 && r > -4096) {
			errno = (int)-r;
			return -1;
		}
		return r;
	}
#endif
	return syscall(nr, a, b, c, d, e, 0);
}

static struct io_uring_sqe *next(unsigned user)
{
	unsigned mask = *(unsigned *)(sq + p.sq_off.ring_mask);
	unsigned i = tail & mask;
	struct io_uring_sqe *q = &sqes[i];

	memset(q, 0, sizeof(*q));
	q->user_data = user;
	((unsigned *)(sq + p.sq_off.array))[i] = i;
	tail++;
	return q;
}

/* submit what next() made, wait for n completions, check their results */
static int go(unsigned n, const int *want)
{
	unsigned *ktail = (unsigned *)(sq + p.sq_off.tail);
	unsigned *chead = (unsigned *)(cq + p.cq_off.head);
	unsigned cmask = *(unsigned *)(cq + p.cq_off.ring_mask);
	unsigned sub = tail - *ktail;

	__atomic_store_n(ktail, tail, __ATOMIC_RELEASE);
	if (sys(SYS_io_uring_enter, ring, sub, n, IORING_ENTER_GETEVENTS, 0) != (long)sub)
		return -1;
	for (unsigned k = 0; k < n; k++) {
		unsigned h = *chead;
		if (h == __atomic_load_n((unsigned *)(cq + p.cq_off.tail), __ATOMIC_ACQUIRE))
			return -1;
		struct io_uring_cqe *c = (void *)(cq + p.cq_off.cqes + (h & cmask) * sizeof(*c));
		if (c->res != want[c->user_data]) {
			fprintf(stderr, "op %llu: %d, not %d\n", (unsigned long long)c->user_data,
				c->res, want[c->user_data]);
			return -1;
		}
		__atomic_store_n(chead, h + 1, __ATOMIC_RELEASE);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const int want[] = { 8192, 4096, 0, 0, 3 };
	int fd;

	own = argc == 3 && !strcmp(argv[1], "inline");
	if (argc != 2 + own || (fd = open(argv[1 + own], O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0)
		return 2;
	if ((ring = (int)sys(SYS_io_uring_setup, 8, (long)&p, 0, 0, 0)) < 0) {
		perror("io_uring_setup");
		return 77;
	}
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * 4, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || (void *)sqes == MAP_FAILED)
		return 1;
	if (sys(SYS_io_uring_register, ring, IORING_REGISTER_FILES, (long)&fd, 1, 0) < 0)
		return 1;
	memset(wbuf, 'r', sizeof(wbuf));
	struct io_uring_sqe *q = next(0);
	q->opcode = IORING_OP_WRITE;
	q->fd = fd;
	q->addr = (unsigned long)wbuf;
	q->len = 8192;
	q->off = 0;
	q->flags = IOSQE_IO_LINK;
	q = next(1);
	q->opcode = IORING_OP_READ;
	q->fd = 0;		/* the registered file */
	q->flags = IOSQE_FIXED_FILE;
	q->addr = (unsigned long)rbuf;
	q->len = 4096;
	q->off = 4096;
	if (go(2, want))
		return 1;
	q = next(2);
	q->opcode = IORING_OP_FSYNC;
	q->fd = fd;
	q = next(3);
	q->opcode = IORING_OP_NOP;
	q->fd = -1;
	if (go(2, want))
		return 1;
	q = next(4);
	q->opcode = IORING_OP_OPENAT;
	q->fd = AT_FDCWD;
	q->addr = (unsigned long)argv[1 + own];
	if (go(1, (const int[]){ 0, 0, 0, 0, fd + 2 }))
		return 1;
	return 0;
}
