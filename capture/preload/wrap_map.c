/*
 * Wrappers: file mappings (mmap, munmap, msync), pipe copies (tee,
 * vmsplice), raw clone() children and the io_uring system calls made
 * through syscall(), which libc has no wrapper for.
 */
#include "preload.h"
#include "real.h"

/* preload.h routes the interposer's own syscall, mmap and munmap to
 * island_syscall: here they are the application's, the functions we
 * define. */
#undef syscall
#undef mmap
#undef munmap

#include <stdarg.h>
#include <linux/sched.h>

/* mmap of a descriptor: fd, a1 length, a2 offset, ret the address;
 * payload prot and flags. Anonymous memory is not I/O: not recorded. */
static void *map(void *(*fn)(void *, size_t, int, int, int, off64_t),
		 void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	struct tstate *t = &ts;

	if ((flags & MAP_ANONYMOUS) || fd < 0 || !enter(t))
		return fn(addr, len, prot, flags, fd, off);
	uint64_t t0 = call_start(t);
	void *r = fn(addr, len, prot, flags, fd, off);
	uint64_t t1 = now();
	int e = errno;
	if (!sud_on && r != MAP_FAILED)	/* an io_uring's ring (uring.c) */
		uring_mmap(fd, off, (long)(intptr_t)r);
	int32_t pf[2] = { prot, flags };
	put_payload(t, C_MMAP, t0, t1, r == MAP_FAILED ? -1 : (int64_t)(intptr_t)r,
		    fd, (int64_t)len, off, r == MAP_FAILED ? e : 0, pf, sizeof(pf),
		    NULL, 0);
	leave(t);
	errno = e;
	return r;
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return map((void *(*)(void *, size_t, int, int, int, off64_t))REAL(mmap),
		   addr, len, prot, flags, fd, off);
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd,
		    off64_t off)
{
	return map(REAL(mmap64), addr, len, prot, flags, fd, off);
}

/* munmap and msync: a1 length, a2 address; the writer finds the file. */
EXPORT int munmap(void *addr, size_t len)
{
	/* an io_uring's ring going: what it posted is read first */
	if (unlikely(nrings) && !sud_on && enter(&ts)) {
		uring_munmap(&ts, (long)addr, (long)len, 0);
		leave(&ts);
	}
	TRACE_CALL(C_MUNMAP, int, REAL(munmap)(addr, len), -1, (int64_t)len,
		   (int64_t)(intptr_t)addr);
}

EXPORT int msync(void *addr, size_t len, int flags)
{
	TRACE_CALL(C_MSYNC, int, REAL(msync)(addr, len, flags), -1, (int64_t)len,
		   (int64_t)(intptr_t)addr);
}

/* tee copies between pipes: laid out like splice (fd the destination,
 * a2 the source). */
EXPORT ssize_t tee(int in, int out, size_t n, unsigned int flags)
{
	TRACE_CALL(C_TEE, ssize_t, REAL(tee)(in, out, n, flags), out, (int64_t)n,
		   in);
}

/* vmsplice moves user memory into a pipe's write end, or out of its read
 * end: which one the descriptor is tells the direction. */
EXPORT ssize_t vmsplice(int fd, const struct iovec *iov, size_t cnt,
			unsigned int flags)
{
	struct tstate *t = &ts;

	if (!enter(t))
		return REAL(vmsplice)(fd, iov, cnt, flags);
	int e = errno;
	long fl = island_syscall(SYS_fcntl, fd, F_GETFL);
	int64_t size = 0;

	errno = e;
	for (size_t i = 0; iov && i < cnt; i++)
		size += (int64_t)iov[i].iov_len;
	uint64_t t0 = call_start(t);
	ssize_t r = REAL(vmsplice)(fd, iov, cnt, flags);
	uint64_t t1 = now();
	e = errno;
	put(t, fl >= 0 && (fl & O_ACCMODE) == O_RDONLY ? C_VMSPLICE_IN : C_VMSPLICE,
	    t0, t1, r, fd, size, -1, r < 0 ? e : 0);
	leave(t);
	errno = e;
	return r;
}

/*
 * clone(): a child that does not share our memory is a process like a
 * fork child: it starts in clone_child, which opens its spool, then runs
 * the application's function (fn and arg reach it in its copy of our
 * TLS). A child that shares our memory (CLONE_VM) cannot have a spool of
 * its own: the record's a2 keeps the flags, and the writer marks the
 * process incomplete.
 */
static __thread int (*clone_fn)(void *);
static __thread void *clone_arg;
static __thread pid_t clone_parent;
static __thread uint64_t clone_t0;

static int clone_child(void *unused)
{
	if (!ts.sud_forked)      /* --syscalls did it at the clone */
		fork_child(clone_parent, clone_t0);
	ts.sud_forked = 0;
	leave(&ts);
	int r = clone_fn(clone_arg);

	/* libc ends the child with the exit system call: no destructor runs */
	process_finish(TEXIT_PROCESS);
	return r;
}

EXPORT int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	struct tstate *t = &ts;
	va_list ap;

	va_start(ap, arg);
	pid_t *ptid = va_arg(ap, pid_t *);
	void *tls = va_arg(ap, void *);
	pid_t *ctid = va_arg(ap, pid_t *);
	va_end(ap);
	if (!enter_top(t))
		return REAL(clone)(fn, stack, flags, arg, ptid, tls, ctid);
	int own = !(flags & (CLONE_VM | CLONE_THREAD));
	uint64_t t0 = call_start(t);
	int r;

	if (own) {
		t->fork_boot = boot_ns();
		clone_fn = fn;
		clone_arg = arg;
		clone_parent = self_tid(t);
		clone_t0 = t0;
		r = REAL(clone)(clone_child, stack, flags, NULL, ptid, tls, ctid);
	} else {
		r = REAL(clone)(fn, stack, flags, arg, ptid, tls, ctid);
	}
	uint64_t t1 = now();
	int e = errno;
	put(t, C_CLONE, t0, t1, r, -1, own, flags, r < 0 ? e : 0);
	leave(t);
	errno = e;
	return r;
}

/*
 * syscall(): the io_uring calls (their operations read from the rings,
 * uring.c), libaio's (wrap_aio.c: libaio
 * makes them so), raw clone children, raw exits
 * (their end is recorded first) and raw execs (followed, wrap_proc.c).
 * Every other number goes straight through.
 */
EXPORT long syscall(long nr, ...)
{
	struct tstate *t = &ts;
	va_list ap;
	long a[6];

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (unlikely(t->unwinding) && (nr == SYS_read || nr == SYS_write) && a[2] == 1)
		return nr == SYS_read ? prof_unw_read() : prof_unw_write((void *)a[1]);
	if (unlikely(nr == SYS_execve || nr == SYS_execveat))
		return exec_by_syscall(nr, a);
	/* a raw exit ends us without the destructors that record the end */
	if (unlikely(nr == SYS_exit_group) && island_on)
		process_finish(TEXIT_PROCESS);
	else if (unlikely(nr == SYS_exit) && island_on && !t->guard)
		thread_finish(t, TEXIT_RETURN, 0);
	int aio = unlikely((nr >= SYS_io_setup && nr <= SYS_io_cancel) ||
			   nr == SYS_io_pgetevents);
	if (likely(nr != SYS_io_uring_setup && nr != SYS_io_uring_enter &&
		   nr != SYS_io_uring_register && nr != SYS_clone && !aio) ||
	    (aio && aio_in_libaio) || !enter_top(t))
		return REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	pid_t me = self_tid(t);
	/* a registered ring's calls recorded by its descriptor */
	long ring = nr == SYS_io_uring_enter || nr == SYS_io_uring_register ?
		    uring_fd(t, nr, a) : -1;
	unsigned head = nr == SYS_io_uring_enter && !sud_on ? uring_head(ring) : 0;
	uint64_t t0 = call_start(t);
	if (nr == SYS_clone)
		t->fork_boot = boot_ns();
	long r = REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	int e = errno;

	if (aio) {
		aio_syscall(t, nr, a, r, e, t0, now());
	} else if (nr == SYS_clone) {
		int own = !(a[0] & (CLONE_VM | CLONE_THREAD));
		if (r == 0 && own) {       /* the child, a copy of us */
			if (!ts.sud_forked)      /* --syscalls did it at the clone */
				fork_child(me, t0);
			ts.sud_forked = 0;
			leave(&ts);
			errno = e;
			return 0;
		}
		if (r == 0) {              /* shares our memory: never record */
			errno = e;
			return 0;
		}
		put(t, C_CLONE, t0, now(), r, -1, own, a[0], r < 0 ? e : 0);
	} else if (nr == SYS_io_uring_setup) {
		put(t, C_IO_URING_SETUP, t0, now(), r, r >= 0 ? (int)r : -1, a[0], 0,
		    r < 0 ? e : 0);
		if (!sud_on && r >= 0)
			uring_setup(t, r, (const void *)a[1], 0);
	} else if (nr == SYS_io_uring_enter) {
		uint64_t t1 = now();
		put(t, C_IO_URING_ENTER, t0, t1, r, (int)ring, a[1], a[2],
		    r < 0 ? e : 0);
		if (!sud_on)
			uring_enter(t, ring, head, r, t0, t1, 0);
	} else {
		put(t, C_IO_URING_REGISTER, t0, now(), r, (int)ring, a[1], 0,
		    r < 0 ? e : 0);
		if (!sud_on)
			uring_register(t, ring, a[1], (const void *)a[2], a[3], r);
	}
	leave(t);
	errno = e;
	return r;
}
