/* stamps COUNT PERIOD_MS: COUNT writes to /dev/null PERIOD_MS apart, the
 * i-th of 100 + i bytes, each between two readings of the wall clock;
 * then a line a write on stdout, "SIZE BEFORE AFTER" (ns): where the
 * trace must place it. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long real(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static char buf[4096];
	static long long at[1000][2];
	int count = argc == 3 ? atoi(argv[1]) : 0, ms = argc == 3 ? atoi(argv[2]) : -1;
	int fd = open("/dev/null", O_WRONLY);

	if (count < 1 || count > 1000 || ms < 0 || fd < 0) {
		fprintf(stderr, "usage: stamps COUNT(1-1000) PERIOD_MS\n");
		return 2;
	}
	memset(buf, 'x', sizeof(buf));
	for (int i = 0; i < count; i++) {
		struct timespec d = { ms / 1000, (ms % 1000) * 1000000l };

		at[i][0] = real();
		if (write(fd, buf, (size_t)(100 + i)) != 100 + i)
			return 1;
		at[i][1] = real();
		nanosleep(&d, NULL);
	}
	for (int i = 0; i < count; i++)
		printf("%d %lld %lld\n", 100 + i, at[i][0], at[i][1]);
	return fclose(stdout) ? 1 : 0;
}
