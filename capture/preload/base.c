/*
 * What every part of the interposer stands on: the thread's state, the
 * flags the constructor sets, its own system calls, numbers read and
 * written without libc's locale.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"

/* the program island-loader runs (its real path): the kernel's
 * /proc/self/exe is the loader's (sud.c makes it the program's) */
const char *island_exe;

#ifndef ISLAND_LOADER
__thread struct tstate ts __attribute__((tls_model("initial-exec")));
#else
/* A thread's state, found through %gs (see preload.h). */
struct tstate *island_new_state(void)
{
	struct tstate *t = (struct tstate *)island_syscall(SYS_mmap, 0,
		(long)sizeof(struct tstate), PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if ((long)t == -1)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->self = t;
	t->slot = -1;
	island_syscall(SYS_arch_prctl, 0x1001 /* ARCH_SET_GS */, (long)t);
	return t;
}
#endif
int island_on;
int clock_kind;
int sud_on;
int rec_extras;

long island_sys6(long nr, long a, long b, long c, long d, long e, long f);

long island_syscall(long nr, ...)
{
	va_list ap;
	long a[6];

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	long r = island_sys6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

long raw_syscall(long nr, long a, long b, long c, long d, long e, long f)
{
	return syscall(nr, a, b, c, d, e, f);
}

char *utoa(char *p, unsigned long v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	*p = 0;
	return p;
}

long read_small(const char *path, char *buf, size_t n)
{
	long fd = SYS(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0);
	long got = 0, r;

	if (fd < 0)
		return -1;
	while ((size_t)got < n &&
	       (r = SYS(SYS_read, fd, (long)(buf + got), (long)(n - (size_t)got), 0)) > 0)
		got += r;
	SYS(SYS_close, fd, 0, 0, 0);
	return got;
}

/* A decimal number (no locale: island-loader's libc has no TLS of its
 * own once the program runs). */
uint64_t udec(const char *s)
{
	uint64_t v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (uint64_t)(*s++ - '0');
	return v;
}
