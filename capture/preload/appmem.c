/*
 * The program's memory behind a call's pointers, read after the call.
 * A call that succeeded was given memory the kernel (or libc) read; one
 * that failed proves nothing: EFAULT, or refused before the pointer was
 * looked at (pwritev of a pipe: ESPIPE), and the interposer reading it
 * would fault where the program got an error (open((char *)1, ...) was
 * a SIGSEGV under the capture). After a failure each page of the memory
 * is tried by the kernel (page_ok), and what is read is read in pages it
 * can read; not after the errors that come only once the kernel has read
 * it (read_before).
 */
#include <signal.h>
#include <stdint.h>

#include "preload.h"

#define PAGE 4096u

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

/* Can the page holding address a be read? The kernel copies a signal
 * set from it before it looks at how, which no mask is changed by: EFAULT
 * where it cannot, else EINVAL. rt_sigprocmask, which every sandbox lets
 * a program make (process_vm_readv is one seccomp profiles refuse, and
 * some kill for). 1 yes, 0 no, -1 not to be told. */
static int page_ok(uintptr_t a)
{
	long r = raw_syscall(SYS_rt_sigprocmask, 0x7fff, (long)(a & ~(uintptr_t)(PAGE - 1)),
			     0, sizeof(uint64_t), 0, 0);

	return r == 0 ? -1 : errno == EINVAL ? 1 : errno == EFAULT ? 0 : -1;
}

/* 1: [p, p + n) can be read (NUL: its first NUL byte looked for, and
 * there); 0: it cannot; -1: not to be told */
static int readable(const void *p, size_t n, const char **nul)
{
	uintptr_t a = (uintptr_t)p, end = a + n;

	/* more than any call takes (IOV_MAX vectors): refused natively */
	if (n > 65536 || end < a)
		return 0;
	while (a < end) {
		uintptr_t stop = (a & ~(uintptr_t)(PAGE - 1)) + PAGE;
		int r = page_ok(a);

		if (r <= 0)
			return r;
		if (stop > end)
			stop = end;
		if (nul) {	/* in a page that can be read */
			const char *z = memchr((const void *)a, 0, stop - a);
			if (z) {
				*nul = z;
				return 1;
			}
		}
		a = stop;
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
