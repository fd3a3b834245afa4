/*
 * fifopair w|r DIR N: two nodes and a named pipe, DIR/f (made by
 * whichever comes first). The writer writes N lines (N < 10) into it,
 * 20 ms apart; the reader reads it a line's length at a time to its end
 * and copies what it got to DIR/got. Its k-th read gets the k-th line
 * however the two are scheduled: it waits for the writer's k-th write
 * (tests/e2e/capture-discover-fifo.sh), which no call but the bytes in
 * the pipe shows.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[4096], buf[256];
	int n, fd;

	if (argc != 4 || (strcmp(argv[1], "w") && strcmp(argv[1], "r"))) {
		fprintf(stderr, "usage: fifopair w|r DIR N\n");
		return 2;
	}
	n = atoi(argv[3]);
	if (n < 1 || n > 9)
		return 2;
	snprintf(path, sizeof(path), "%s/f", argv[2]);
	if (mkfifo(path, 0600) && errno != EEXIST) {
		perror(path);
		return 1;
	}
	if (argv[1][0] == 'w') {
		if ((fd = open(path, O_WRONLY)) < 0)
			return 1;
		for (int k = 1; k <= n; k++) {
			struct timespec ts = { 0, 20 * 1000000L };
			int l = snprintf(buf, sizeof(buf), "line %d\n", k);

			nanosleep(&ts, NULL);
			if (write(fd, buf, (size_t)l) != l)
				return 1;
		}
		return close(fd) ? 1 : 0;
	}
	char got[4096];
	size_t have = 0;
	ssize_t r;

	if ((fd = open(path, O_RDONLY)) < 0)
		return 1;
	while ((r = read(fd, buf, sizeof("line 1\n") - 1)) > 0 && have + (size_t)r < sizeof(got)) {
		memcpy(got + have, buf, (size_t)r);
		have += (size_t)r;
	}
	close(fd);
	snprintf(path, sizeof(path), "%s/got", argv[2]);
	FILE *f = fopen(path, "w");
	if (!f || fwrite(got, 1, have, f) != have || fclose(f))
		return 1;
	return r < 0;
}
