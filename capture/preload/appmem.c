/*
 * The program's memory behind a call's pointers, read after the call.
 * A call that succeeded was given memory the kernel (or libc) read; one
 * that failed proves nothing: EFAULT, or refused before the pointer was
 * looked at (pwritev of a pipe: ESPIPE), and the interposer reading it
 * would fault where the program got an error (open((char *)1, ...) was
 * a SIGSEGV under the capture). After a failure the memory is tried by
 * process_vm_readv of our own, which fails where a read would fault;
 * where seccomp refuses that, it is taken as readable unless the call
 * said EFAULT, and not tried after the errors that come only once the
 * kernel has read it (read_before).
 */
#include <sys/uio.h>

#include "preload.h"

/* Errors the kernel returns only once it has read what it was given: a
 * path walked (ENOENT: every failed stat of a search), a vector or a
 * message taken before the wait (EAGAIN: a non-blocking socket's), a
 * time before the sleep (EINTR). After these nothing is tried: the
 * common failures cost no system call. */
static int read_before(int err)
{
	switch (err) {
	case ENOENT: case ENOTDIR: case EACCES: case ELOOP: case ENAMETOOLONG:
	case EEXIST: case EISDIR: case EROFS: case ETXTBSY: case ENOTEMPTY:
	case EXDEV: case EAGAIN: case EINTR: case EINPROGRESS: case ECONNREFUSED:
	case ECONNRESET: case EPIPE:
		return 1;
	}
	return 0;
}

/* 1: [p, p + n) can be read; 0: it cannot; -1: not to be told */
static int readable(const void *p, size_t n, const char **nul)
{
	char b[256];
	long pid;

	/* more than any call takes (IOV_MAX vectors): refused natively */
	if (n > 65536)
		return 0;
	pid = raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
	while (n) {
		size_t k = n < sizeof(b) ? n : sizeof(b);
		struct iovec to = { b, k }, from = { (void *)p, k };
		long r = raw_syscall(SYS_process_vm_readv, pid, (long)&to, 1, (long)&from, 1, 0);

		if (r < 0)
			return errno == EFAULT ? 0 : -1;
		if (nul && memchr(b, 0, (size_t)r)) {
			*nul = p;
			return 1;
		}
		if ((size_t)r < k)
			return 0;
		p = (const char *)p + k;
		n -= k;
	}
	return 1;
}

int app_mem_ok(const void *p, size_t n, int err)
{
	int e = errno, r;

	if (!err || read_before(err))
		return 1;
	if (!p)
		return n == 0;
	r = readable(p, n, NULL);
	errno = e;
	return r < 0 ? err != EFAULT : r;
}

int app_str_ok(const char *s, int err)
{
	const char *nul = NULL;
	int e = errno, r;

	if (!s)
		return 0;
	if (!err || read_before(err))
		return 1;
	/* a path is at most 4096 bytes: one with no end there is not read */
	r = readable(s, 4096, &nul);
	errno = e;
	return r < 0 ? err != EFAULT : r && nul;
}
