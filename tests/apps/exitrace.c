/*
 * exitrace: start 40 threads that each write a byte to /dev/null, and
 * exit(0) while they are still starting: some start during the exit. A
 * process that exited ended all its threads (tests/e2e/capture-crash.sh).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static int devnull;

static void *one(void *arg)
{
	(void)arg;
	if (write(devnull, "x", 1) != 1)
		abort();
	pause();
	return NULL;
}

int main(void)
{
	pthread_t t;

	devnull = open("/dev/null", O_WRONLY);
	for (int i = 0; i < 40; i++)
		if (pthread_create(&t, NULL, one, NULL))
			return 1;
	exit(0);
}
