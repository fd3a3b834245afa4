/*
 * stacked DIR: what other preloaded libraries answer (capture-
 * interposers.sh): 10 writes of 100 bytes to DIR/out and an fsync
 * (eatmydata answers it), the year (libfaketime's), alloc_a's 1000
 * allocations of 1000 bytes (jemalloc's); prints what it saw.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *volatile escape;

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
