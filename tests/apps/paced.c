/*
 * paced PATH COUNT: COUNT writes of one byte to PATH, a 100 us pause
 * every ten (some 50,000 calls a second: a trace that grows for as long
 * as it runs), then "wrote COUNT" (capture-max-size.sh).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: paced PATH COUNT\n");
		return 2;
	}
	long n = atol(argv[2]);
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct timespec pause = { 0, 100000 };

	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (long i = 0; i < n; i++) {
		if (write(fd, "x", 1) != 1) {
			perror("write");
			return 1;
		}
		if (i % 10 == 0)
			nanosleep(&pause, NULL);
	}
	printf("wrote %ld\n", n);
	return close(fd) < 0;
}
