/*
 * A Darshan-style wrapper of write() (capture-interposers.sh): counts
 * the calls and bytes, passes each on to the next write (RTLD_NEXT), and
 * at the exit prints "wrapwrite: N calls, B bytes" on stderr.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

static long calls, bytes;

ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*next)(int, const void *, size_t);

	if (!next)
		next = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	ssize_t r = next(fd, buf, n);
	if (fd != 2) {
		calls++;
		bytes += r > 0 ? r : 0;
	}
	return r;
}

__attribute__((destructor)) static void report(void)
{
	fprintf(stderr, "wrapwrite: %ld calls, %ld bytes\n", calls, bytes);
}
