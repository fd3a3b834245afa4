/* joined COUNT [MAIN [GATE]]: one thread writes COUNT 64-byte blocks to
 * /dev/null, a millisecond's nap every 20,000, while the main thread
 * writes MAIN (0) of its own the same way, then waits for it in
 * pthread_join (streaming: a thread blocked in a call must not hold its
 * process's other threads back; the calls after a pthread_create are
 * streamed once the thread it made is seen; the naps leave the
 * capture's writer some CPU on a loaded machine). With GATE, the thread
 * then naps until the main one is in its pthread_join and the file GATE
 * exists (at most two minutes): the test makes it once parts are
 * streamed, which a capture's writer at nice 19 behind other programs
 * keeping both CPUs busy may do only while the app is idle. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long count;
static const char *gate;
static int joining;

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
	for (int i = 0; !arg && gate && i < 12000 &&
	     (!__atomic_load_n(&joining, __ATOMIC_ACQUIRE) || access(gate, F_OK)); i++)
		usleep(10000);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	long mine;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: joined COUNT [MAIN [GATE]]\n");
		return 2;
	}
	count = atol(argv[1]);
	mine = argc >= 3 ? atol(argv[2]) : 0;
	gate = argc == 4 ? argv[3] : NULL;
	if (pthread_create(&th, NULL, writer, NULL))
		return 1;
	if (mine)
		writer(&mine);
	__atomic_store_n(&joining, 1, __ATOMIC_RELEASE);
	if (pthread_join(th, NULL))
		return 1;
	return 0;
}
