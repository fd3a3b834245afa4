/*
 * emfile: opens /dev/null until the descriptors run out (EMFILE), then
 * creates a thread and forks a child, each of which sleeps 1 ms, and
 * waits for them; then closes what it opened. The capture must not change
 * how many it opens, and needs no descriptor to record the thread and the
 * child. Prints how many descriptors it opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

static void *nap(void *arg)
{
	usleep(1000);
	return NULL;
}

int main(void)
{
	int first = -1, last = -1, fd, st;
	pthread_t t;

	while ((fd = open("/dev/null", O_RDONLY)) >= 0) {
		if (first < 0)
			first = fd;
		last = fd;
	}
	if (errno != EMFILE || first < 0) {
		perror("open");
		return 1;
	}
	if (pthread_create(&t, NULL, nap, NULL) || pthread_join(t, NULL))
		return 1;
	pid_t c = fork();
	if (c == 0) {
		usleep(1000);
		_exit(0);
	}
	if (c < 0 || waitpid(c, &st, 0) != c || st != 0)
		return 1;
	for (fd = first; fd <= last; fd++)
		close(fd);
	printf("opened %d\n", last - first + 1);
	return 0;
}
