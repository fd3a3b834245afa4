/*
 * Wrappers: liburing's exported functions, in the default capture.
 * liburing makes its system calls itself (no libc), so the rings a
 * program makes with it are learnt here (io_uring_queue_init*: the ring's
 * descriptor, memory and offsets, from struct io_uring), and each call
 * that may submit or reap (io_uring_submit*, io_uring_wait_cqe*,
 * __io_uring_get_cqe, io_uring_get_events, io_uring_peek_batch_cqe) reads
 * the rings as an io_uring_enter would be read (uring.c): the entries the
 * kernel took meanwhile, the completions it posted. A completion the
 * program takes with the inline io_uring_peek_cqe is seen at the next of
 * these calls, or at io_uring_queue_exit. Under --syscalls the kernel
 * boundary sees all of it: nothing is done here.
 */
/* before preload.h: a field of io_uring's is named as our thread state */
#include <liburing.h>

#include "preload.h"

#include <dlfcn.h>

static void *uring_real(void **slot, const char *name)
{
	void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (!f && (f = dlsym(RTLD_NEXT, name)))
		__atomic_store_n(slot, f, __ATOMIC_RELEASE);
	return f;
}
#define UREAL(name) ((__typeof__(name) *)({ static void *p_; uring_real(&p_, #name); }))

/* A ring liburing made: its offsets from the pointers it keeps */
static void ring_made(struct io_uring *r)
{
	struct tstate *t = &ts;
	struct io_uring_params p = { 0 };
	char *sq = r->sq.ring_ptr, *cq = r->cq.ring_ptr;

	if (sud_on || !enter(t))
		return;
	p.flags = r->flags;
	p.features = r->features;
	p.sq_entries = *r->sq.kring_entries;
	p.cq_entries = *r->cq.kring_entries;
	p.sq_off.head = (unsigned)((char *)r->sq.khead - sq);
	p.sq_off.tail = (unsigned)((char *)r->sq.ktail - sq);
	p.sq_off.ring_mask = (unsigned)((char *)r->sq.kring_mask - sq);
	p.sq_off.ring_entries = (unsigned)((char *)r->sq.kring_entries - sq);
	p.sq_off.array = r->sq.array ? (unsigned)((char *)r->sq.array - sq) : 0;
	p.cq_off.head = (unsigned)((char *)r->cq.khead - cq);
	p.cq_off.tail = (unsigned)((char *)r->cq.ktail - cq);
	p.cq_off.ring_mask = (unsigned)((char *)r->cq.kring_mask - cq);
	p.cq_off.ring_entries = (unsigned)((char *)r->cq.kring_entries - cq);
	p.cq_off.cqes = (unsigned)((char *)r->cq.cqes - cq);
	uring_setup(t, r->ring_fd, &p, 0);
	uring_ptrs(r->ring_fd, sq, cq, (char *)r->sq.sqes);
	leave(t);
}

EXPORT int io_uring_queue_init_params(unsigned n, struct io_uring *r, struct io_uring_params *p)
{
	int rc = UREAL(io_uring_queue_init_params)(n, r, p);

	if (rc == 0)
		ring_made(r);
	return rc;
}

EXPORT int io_uring_queue_init(unsigned n, struct io_uring *r, unsigned flags)
{
	int rc = UREAL(io_uring_queue_init)(n, r, flags);

	if (rc == 0)
		ring_made(r);
	return rc;
}

EXPORT int io_uring_queue_mmap(int fd, struct io_uring_params *p, struct io_uring *r)
{
	int rc = UREAL(io_uring_queue_mmap)(fd, p, r);

	if (rc == 0)
		ring_made(r);
	return rc;
}

EXPORT void io_uring_queue_exit(struct io_uring *r)
{
	struct tstate *t = &ts;

	if (!sud_on && nrings && enter(t)) {
		uring_munmap(t, (long)r->sq.ring_ptr, (long)r->sq.ring_sz, 0);
		uring_munmap(t, (long)r->cq.ring_ptr, (long)r->cq.ring_sz, 0);
		uring_munmap(t, (long)r->sq.sqes, 1, 0);
		leave(t);
	}
	UREAL(io_uring_queue_exit)(r);
}

/* A call that may submit and reap: as an io_uring_enter, the entries
 * the kernel's head passed meanwhile */
#define OBSERVE(r, call)                                                     \
	({                                                                   \
		struct tstate *t_ = &ts;                                     \
		int on_ = !sud_on && nrings && enter(t_);                    \
		unsigned h_ = on_ ? uring_head((r)->ring_fd) : 0;            \
		uint64_t t0_ = on_ ? now() : 0;                              \
		__typeof__(call) rc_ = (call);                               \
		if (on_) {                                                   \
			int e_ = errno;                                      \
			uring_enter(t_, (r)->ring_fd, h_,                    \
				    (long)(uring_head_now((r)->ring_fd) - h_), t0_, now(), 0); \
			leave(t_);                                           \
			errno = e_;                                          \
		}                                                            \
		rc_;                                                         \
	})

EXPORT int io_uring_submit(struct io_uring *r)
{
	return OBSERVE(r, UREAL(io_uring_submit)(r));
}

EXPORT int io_uring_submit_and_wait(struct io_uring *r, unsigned n)
{
	return OBSERVE(r, UREAL(io_uring_submit_and_wait)(r, n));
}

EXPORT int io_uring_submit_and_wait_timeout(struct io_uring *r, struct io_uring_cqe **c,
					    unsigned n, struct __kernel_timespec *tmo,
					    sigset_t *mask)
{
	return OBSERVE(r, UREAL(io_uring_submit_and_wait_timeout)(r, c, n, tmo, mask));
}

EXPORT int io_uring_submit_and_get_events(struct io_uring *r)
{
	return OBSERVE(r, UREAL(io_uring_submit_and_get_events)(r));
}

EXPORT int io_uring_get_events(struct io_uring *r)
{
	return OBSERVE(r, UREAL(io_uring_get_events)(r));
}

EXPORT int __io_uring_get_cqe(struct io_uring *r, struct io_uring_cqe **c, unsigned submit,
			      unsigned n, sigset_t *mask)
{
	return OBSERVE(r, UREAL(__io_uring_get_cqe)(r, c, submit, n, mask));
}

EXPORT int io_uring_wait_cqes(struct io_uring *r, struct io_uring_cqe **c, unsigned n,
			      struct __kernel_timespec *tmo, sigset_t *mask)
{
	return OBSERVE(r, UREAL(io_uring_wait_cqes)(r, c, n, tmo, mask));
}

EXPORT int io_uring_wait_cqe_timeout(struct io_uring *r, struct io_uring_cqe **c,
				     struct __kernel_timespec *tmo)
{
	return OBSERVE(r, UREAL(io_uring_wait_cqe_timeout)(r, c, tmo));
}

EXPORT unsigned io_uring_peek_batch_cqe(struct io_uring *r, struct io_uring_cqe **c,
					unsigned n)
{
	return OBSERVE(r, UREAL(io_uring_peek_batch_cqe)(r, c, n));
}

/* registered files: the fixed descriptors' names */
EXPORT int io_uring_register_files(struct io_uring *r, const int *fds, unsigned n)
{
	int rc = UREAL(io_uring_register_files)(r, fds, n);

	if (!sud_on)
		uring_register(&ts, r->ring_fd, IORING_REGISTER_FILES, fds, n, rc < 0 ? rc : 0);
	return rc;
}

EXPORT int io_uring_register_files_update(struct io_uring *r, unsigned off, const int *fds,
					  unsigned n)
{
	int rc = UREAL(io_uring_register_files_update)(r, off, fds, n);
	struct io_uring_files_update up = { off, 0, (uint64_t)(uintptr_t)fds };

	if (!sud_on)
		uring_register(&ts, r->ring_fd, IORING_REGISTER_FILES_UPDATE, &up, n, rc);
	return rc;
}

EXPORT int io_uring_unregister_files(struct io_uring *r)
{
	int rc = UREAL(io_uring_unregister_files)(r);

	if (!sud_on)
		uring_register(&ts, r->ring_fd, IORING_UNREGISTER_FILES, NULL, 0, rc);
	return rc;
}
