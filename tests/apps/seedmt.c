/* seedmt LIMIT: the Island seed's multi-threaded example. A writer thread
 * and a burner thread each start after 0.1 s (Repy's settimer); the writer
 * writes twice LIMIT bytes in one call, the burner computes for one second
 * of wall time; the main thread sleeps 0.2 s and ends. */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long limit;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void timer_wait(void)
{
	struct timespec d = { 0, 100000000 };
	nanosleep(&d, NULL);
}

static void *write_data(void *arg)
{
	size_t n = (size_t)limit * 2;
	char *data = malloc(n);

	pthread_setname_np(pthread_self(), "writer");
	timer_wait();
	for (size_t i = 0; i < n; i++)
		data[i] = 'X';
	int fd = open("test.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, n) != (ssize_t)n)
		exit(1);
	close(fd);
	free(data);
	return NULL;
}

static void *use_cpu(void *arg)
{
	volatile double v = 0;

	pthread_setname_np(pthread_self(), "burner");
	timer_wait();
	double start = now();
	while (now() - start < 1)
		for (int x = 0; x < 500; x++)
			v += (double)x * x + (double)x * x * x;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	limit = argc > 1 ? atol(argv[1]) : 100000;
	pthread_create(&a, NULL, write_data, NULL);
	pthread_create(&b, NULL, use_cpu, NULL);
	struct timespec d = { 0, 200000000 };
	nanosleep(&d, NULL);
	pthread_detach(a);
	pthread_detach(b);
	pthread_exit(NULL);
}
