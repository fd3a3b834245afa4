/* joined COUNT [MAIN]: one thread writes COUNT 64-byte blocks to
 * /dev/null, a millisecond's nap every 20,000, while the main thread
 * writes MAIN (0) of its own the same way, then waits for it in
 * pthread_join (streaming: a thread blocked in a call must not hold its
 * process's other threads back; the calls after a pthread_create are
 * streamed once the thread it made is seen; the naps leave the
 * capture's writer some CPU on a loaded machine). */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long count;

static void *writer(void *arg)
{
	static char buf[64];
	int fd = open("/dev/null", O_WRONLY);
	long n = arg ? *(long *)arg : count;

	for (long i = 0; i < n; i++) {
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			exit(1);
		if (i % 20000 == 19999)
			usleep(1000);
	}
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	long mine;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: joined COUNT [MAIN]\n");
		return 2;
	}
	count = atol(argv[1]);
	mine = argc == 3 ? atol(argv[2]) : 0;
	if (pthread_create(&th, NULL, writer, NULL))
		return 1;
	if (mine)
		writer(&mine);
	if (pthread_join(th, NULL))
		return 1;
	return 0;
}
