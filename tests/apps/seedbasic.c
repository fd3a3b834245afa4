/* seedbasic LIMIT: the Island seed's single-threaded example. Writes twice
 * LIMIT bytes (twice the per-second file-write limit) in one call, then
 * computes for one second of wall time. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long limit = argc > 1 ? atol(argv[1]) : 100000;
	size_t n = (size_t)limit * 2;
	char *data = malloc(n);
	volatile double v = 0;

	for (size_t i = 0; i < n; i++)
		data[i] = 'X';
	int fd = open("test.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, n) != (ssize_t)n)
		return 1;
	close(fd);
	double start = now();
	while (now() - start < 1)
		for (int x = 0; x < 500; x++)
			v += (double)x * x + (double)x * x * x;
	free(data);
	return 0;
}
