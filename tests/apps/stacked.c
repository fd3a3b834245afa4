/*
 * stacked DIR: what other preloaded libraries answer (capture-
 * interposers.sh): 10 writes of 100 bytes to DIR/out and an fsync
 * (eatmydata answers it), the year (libfaketime's), alloc_a's 1000
 * allocations of 1000 bytes (jemalloc's); prints what it saw. Built
 * with ASan too (stacked-asan), it makes a call while its runtime starts.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *volatile escape;

#if defined(__SANITIZE_ADDRESS__)
#include <sys/syscall.h>
/* Built with ASan: its runtime asks for its options while it starts,
 * before its own strcmp and memset work; a call made here goes through
 * the interposer, which must then resolve its real functions without
 * them (island-capture's own ASan build asks the same way). */
const char *__asan_default_options(void)
{
	syscall(SYS_getpid);
	return "";
}
#endif

__attribute__((noinline)) static void alloc_a(void)
{
	for (int i = 0; i < 1000; i++) {
		char *p = malloc(1000);

		p[0] = 1;
		escape = p;
		free(p);
	}
}

int main(int argc, char **argv)
{
	char path[4096], buf[100];
	time_t now = time(NULL);
	struct tm tm;

	if (argc != 2) {
		fprintf(stderr, "usage: stacked DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/out", argv[1]);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	memset(buf, 'x', sizeof(buf));
	for (int i = 0; i < 10; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("write");
			return 1;
		}
	int s = fsync(fd);
	close(fd);
	alloc_a();
	gmtime_r(&now, &tm);
	printf("fsync %d\nyear %d\n", s, tm.tm_year + 1900);
	return 0;
}
