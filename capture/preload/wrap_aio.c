/*
 * Wrappers: asynchronous I/O. libaio's calls (io_setup, io_submit,
 * io_getevents, io_cancel, io_destroy: thin wrappers of system calls,
 * also made raw through syscall(), wrap_map.c) and POSIX aio's
 * (aio_read, aio_write, aio_fsync, lio_listio, aio_error, aio_return,
 * aio_suspend), whose transfers glibc's helper threads make inside libc,
 * where no wrapper sees them. Each operation is itemised by aio_ops.c.
 */
#include "preload.h"
#include "real.h"

#undef syscall

#include <aio.h>
#include <dlfcn.h>
#include <linux/aio_abi.h>

/* the 64 variants take the same structure (LP64) */
_Static_assert(sizeof(struct aiocb) == sizeof(struct aiocb64), "aiocb64");

/* libaio's calls, which libaio makes as system calls: the record of the
 * call (its context in a2), then, outside --syscalls (where sud.c sees
 * the system calls), its operations */
static const int aio_call_of[] = {
	[0] = C_IO_SETUP, [1] = C_IO_DESTROY, [2] = C_IO_SUBMIT,
	[3] = C_IO_GETEVENTS, [4] = C_IO_CANCEL,
};
enum { A_SETUP, A_DESTROY, A_SUBMIT, A_GETEVENTS, A_CANCEL };

static void aio_record(struct tstate *t, int which, long nr, const long *a, long ret,
		       uint64_t t0, uint64_t t1)
{
	int e = ret < 0 ? (int)-ret : 0;
	int64_t a1 = which == A_SETUP ? a[0] : which == A_DESTROY ? 0 : a[1];
	uint64_t ctx = which == A_SETUP ? (ret == 0 && a[1] ? *(uint64_t *)a[1] : 0) :
		       (uint64_t)a[0];

	put(t, aio_call_of[which], t0, t1, ret < 0 ? -1 : ret, -1, a1, (int64_t)ctx, e);
	if (!sud_on)
		aio_sys(t, nr, a, ret, t0, t1, 0);
}

/* libaio's functions return -errno (a system call's result): so do we,
 * when libaio cannot be found (a program that defines none, calling
 * ours) */
typedef long (*aio6_fn)(long, long, long, long, long, long);
static aio6_fn real_aio[5];
static const char *const aio_names[] = {
	"io_setup", "io_destroy", "io_submit", "io_getevents", "io_cancel",
};
static const long aio_nrs[] = {
	SYS_io_setup, SYS_io_destroy, SYS_io_submit, SYS_io_getevents, SYS_io_cancel,
};

static long aio_call(int which, const long *a)
{
	aio6_fn f = __atomic_load_n(&real_aio[which], __ATOMIC_ACQUIRE);

	if (!f) {
		f = (aio6_fn)dlsym(RTLD_NEXT, aio_names[which]);
		if (f)
			__atomic_store_n(&real_aio[which], f, __ATOMIC_RELEASE);
	}
	if (f)
		return f(a[0], a[1], a[2], a[3], a[4], a[5]);
	int e = errno;
	long r = raw_syscall(aio_nrs[which], a[0], a[1], a[2], a[3], a[4], a[5]);
	if (r < 0) {
		r = -errno;
		errno = e;
	}
	return r;
}

/* libaio's function runs: the system call it makes through syscall()
 * is the call being recorded, not one inside it */
__thread int aio_in_libaio;

static long aio_wrap(int which, long a0, long a1, long a2, long a3, long a4)
{
	struct tstate *t = &ts;
	const long a[6] = { a0, a1, a2, a3, a4, 0 };

	if (!enter(t))
		return aio_call(which, a);
	uint64_t t0 = which == A_GETEVENTS ? wait_start(t) : call_start(t);
	aio_in_libaio = 1;
	long r = aio_call(which, a);
	aio_in_libaio = 0;
	int e = errno;
	uint64_t t1 = which == A_GETEVENTS ? wait_end(t) : now();

	aio_record(t, which, aio_nrs[which], a, r, t0, t1);
	leave(t);
	errno = e;
	return r;
}

EXPORT int io_setup(int n, void *ctxp)
{
	return (int)aio_wrap(A_SETUP, n, (long)ctxp, 0, 0, 0);
}

EXPORT int io_destroy(void *ctx)
{
	return (int)aio_wrap(A_DESTROY, (long)ctx, 0, 0, 0, 0);
}

EXPORT int io_submit(void *ctx, long nr, struct iocb **ios)
{
	return (int)aio_wrap(A_SUBMIT, (long)ctx, nr, (long)ios, 0, 0);
}

EXPORT int io_getevents(void *ctx, long min_nr, long nr, struct io_event *ev,
			struct timespec *tmo)
{
	return (int)aio_wrap(A_GETEVENTS, (long)ctx, min_nr, nr, (long)ev, (long)tmo);
}

EXPORT int io_cancel(void *ctx, struct iocb *cb, struct io_event *ev)
{
	return (int)aio_wrap(A_CANCEL, (long)ctx, (long)cb, (long)ev, 0, 0);
}

/* syscall(SYS_io_*, ...): is nr one of them (which, else -1)? */
int aio_sysno(long nr)
{
	for (int i = 0; i < 5; i++)
		if (aio_nrs[i] == nr)
			return i;
	return nr == SYS_io_pgetevents ? A_GETEVENTS : -1;
}

/* ... recorded as the calls above; r and errno syscall()'s */
void aio_syscall(struct tstate *t, long nr, const long *a, long r, int e,
		 uint64_t t0, uint64_t t1)
{
	aio_record(t, aio_sysno(nr), nr, a, r < 0 ? -(long)e : r, t0, t1);
}

/* --- POSIX aio ----------------------------------------------------------- */

static int posix_keep(struct tstate *t, const struct aiocb *cb, int call, uint64_t t0)
{
	int data = call != C_AIO_FSYNC;

	return aio_keep(t, AIO_POSIX, (uintptr_t)cb, 0, call, cb->aio_fildes,
			data ? (int64_t)cb->aio_nbytes : 0, data ? cb->aio_offset : -1, t0);
}

typedef int (*aio1_fn)(void *);
typedef int (*aio2_fn)(int, void *);

static void *posix_real(void **slot, const char *name)
{
	void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (!f && (f = dlsym(RTLD_NEXT, name)))
		__atomic_store_n(slot, f, __ATOMIC_RELEASE);
	return f;
}
#define POSIX_REAL(name) ({ static void *p_; posix_real(&p_, #name); })

/* aio_read, aio_write: queued (0), the operation kept; its own record
 * comes with aio_return */
static int posix_submit(aio1_fn f, struct aiocb *cb, int call)
{
	struct tstate *t = &ts;

	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	if (!enter(t))
		return f(cb);
	uint64_t t0 = call_start(t);
	int r = f(cb);
	int e = errno;

	if (r == 0 && !posix_keep(t, cb, call, t0))
		aio_gap(t, AIO_GAP_FULL, 1, 0, 0);
	leave(t);
	errno = e;
	return r;
}

EXPORT int aio_read(struct aiocb *cb)
{
	return posix_submit((aio1_fn)POSIX_REAL(aio_read), cb, C_AIO_READ);
}

EXPORT int aio_read64(struct aiocb64 *cb)
{
	return posix_submit((aio1_fn)POSIX_REAL(aio_read64), (struct aiocb *)cb, C_AIO_READ);
}

EXPORT int aio_write(struct aiocb *cb)
{
	return posix_submit((aio1_fn)POSIX_REAL(aio_write), cb, C_AIO_WRITE);
}

EXPORT int aio_write64(struct aiocb64 *cb)
{
	return posix_submit((aio1_fn)POSIX_REAL(aio_write64), (struct aiocb *)cb, C_AIO_WRITE);
}

static int posix_fsync(aio2_fn f, int op, struct aiocb *cb)
{
	struct tstate *t = &ts;

	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	if (!enter(t))
		return f(op, cb);
	uint64_t t0 = call_start(t);
	int r = f(op, cb);
	int e = errno;

	if (r == 0 && !posix_keep(t, cb, C_AIO_FSYNC, t0))
		aio_gap(t, AIO_GAP_FULL, 1, 0, 0);
	leave(t);
	errno = e;
	return r;
}

EXPORT int aio_fsync(int op, struct aiocb *cb)
{
	return posix_fsync((aio2_fn)POSIX_REAL(aio_fsync), op, cb);
}

EXPORT int aio_fsync64(int op, struct aiocb64 *cb)
{
	return posix_fsync((aio2_fn)POSIX_REAL(aio_fsync64), op, (struct aiocb *)cb);
}

/* lio_listio: its record (a1 the entries, a2 the mode), and each
 * operation it queued: all of them when it succeeded, or when it
 * failed with EIO (some failed: aio_error says which) */
typedef int (*lio_fn)(int, struct aiocb *const[], int, struct sigevent *);

static int posix_lio(lio_fn f, int mode, struct aiocb *const list[], int n,
		     struct sigevent *sev)
{
	struct tstate *t = &ts;
	int64_t full = 0;

	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	if (!enter(t))
		return f(mode, list, n, sev);
	uint64_t t0 = call_start(t);
	int r = f(mode, list, n, sev);
	uint64_t t1 = now();
	int e = errno;

	put(t, C_LIO_LISTIO, t0, t1, r, -1, n, mode, r < 0 ? e : 0);
	for (int i = 0; (r == 0 || e == EIO) && list && i < n; i++) {
		const struct aiocb *cb = list[i];
		if (!cb || (cb->aio_lio_opcode != LIO_READ && cb->aio_lio_opcode != LIO_WRITE))
			continue;
		full += !posix_keep(t, cb, cb->aio_lio_opcode == LIO_READ ?
				    C_AIO_READ : C_AIO_WRITE, t0);
	}
	aio_gap(t, AIO_GAP_FULL, full, 0, 0);
	leave(t);
	errno = e;
	return r;
}

EXPORT int lio_listio(int mode, struct aiocb *const list[], int n, struct sigevent *sev)
{
	return posix_lio((lio_fn)POSIX_REAL(lio_listio), mode, list, n, sev);
}

EXPORT int lio_listio64(int mode, struct aiocb64 *const list[], int n, struct sigevent *sev)
{
	return posix_lio((lio_fn)POSIX_REAL(lio_listio64), mode,
			 (struct aiocb *const *)list, n, sev);
}

/* aio_error: polled (fio calls it for every operation, again and
 * again), not recorded; the first answer other than EINPROGRESS is when
 * the operation was seen complete */
typedef int (*aerr_fn)(const struct aiocb *);

static int posix_error(aerr_fn f, const struct aiocb *cb)
{
	struct tstate *t = &ts;

	if (!f)
		return ENOSYS;
	if (!enter(t))
		return f(cb);
	int e = errno;
	int r = f(cb);

	if (r != EINPROGRESS)
		aio_seen_done(t, (uintptr_t)cb, 0);
	leave(t);
	errno = e;
	return r;
}

EXPORT int aio_error(const struct aiocb *cb)
{
	return posix_error((aerr_fn)POSIX_REAL(aio_error), cb);
}

EXPORT int aio_error64(const struct aiocb64 *cb)
{
	return posix_error((aerr_fn)POSIX_REAL(aio_error64), (const struct aiocb *)cb);
}

/* aio_return: the operation's result, its record */
typedef ssize_t (*aret_fn)(struct aiocb *);

static ssize_t posix_return(aret_fn f, aerr_fn ferr, struct aiocb *cb)
{
	struct tstate *t = &ts;

	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	if (!enter(t))
		return f(cb);
	int err = ferr ? ferr(cb) : 0;
	ssize_t r = f(cb);
	uint64_t at = now();
	int e = errno;

	if (err != EINPROGRESS)
		aio_complete(t, (uintptr_t)cb, 0, at,
			     r < 0 ? -(int64_t)(err > 0 ? err : EIO) : r, 0);
	leave(t);
	errno = e;
	return r;
}

EXPORT ssize_t aio_return(struct aiocb *cb)
{
	return posix_return((aret_fn)POSIX_REAL(aio_return),
			    (aerr_fn)POSIX_REAL(aio_error), cb);
}

EXPORT ssize_t aio_return64(struct aiocb64 *cb)
{
	return posix_return((aret_fn)POSIX_REAL(aio_return64),
			    (aerr_fn)POSIX_REAL(aio_error64), (struct aiocb *)cb);
}

/* aio_suspend: a wait (a1 the entries, the timeout in ns or -1) */
typedef int (*asus_fn)(const struct aiocb *const[], int, const struct timespec *);

static int posix_suspend(asus_fn f, const struct aiocb *const list[], int n,
			 const struct timespec *tmo)
{
	struct tstate *t = &ts;

	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	if (!enter(t))
		return f(list, n, tmo);
	uint64_t t0 = wait_start(t);
	int r = f(list, n, tmo);
	int e = errno;
	uint64_t t1 = wait_end(t);

	put(t, C_AIO_SUSPEND, t0, t1, r, -1, n,
	    tmo ? (int64_t)tmo->tv_sec * 1000000000 + tmo->tv_nsec : -1, r < 0 ? e : 0);
	leave(t);
	errno = e;
	return r;
}

EXPORT int aio_suspend(const struct aiocb *const list[], int n, const struct timespec *tmo)
{
	return posix_suspend((asus_fn)POSIX_REAL(aio_suspend), list, n, tmo);
}

EXPORT int aio_suspend64(const struct aiocb64 *const list[], int n,
			 const struct timespec *tmo)
{
	return posix_suspend((asus_fn)POSIX_REAL(aio_suspend64),
			     (const struct aiocb *const *)list, n, tmo);
}

