/* writes THREADS COUNT SIZE [PATH]: each thread writes COUNT blocks of SIZE
 * bytes to PATH (default /dev/null; with "%d" in PATH, one file per
 * thread). The workload of the capture's benchmark and volume tests. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long count;
static size_t size;
static const char *path = "/dev/null";

static void *writer(void *arg)
{
	char name[4096], *buf = calloc(1, size ? size : 1);
	snprintf(name, sizeof(name), path, (int)(long)arg);
	int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(name);
		exit(1);
	}
	for (long i = 0; i < count; i++)
		if (write(fd, buf, size) != (ssize_t)size) {
			perror("write");
			exit(1);
		}
	close(fd);
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: writes THREADS COUNT SIZE [PATH]\n");
		return 2;
	}
	int threads = atoi(argv[1]);
	count = atol(argv[2]);
	size = (size_t)atol(argv[3]);
	if (argc > 4)
		path = argv[4];
	if (threads <= 1) {
		writer(0);
		return 0;
	}
	pthread_t *th = calloc((size_t)threads, sizeof(*th));
	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, writer, (void *)(long)i);
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	free(th);
	return 0;
}
