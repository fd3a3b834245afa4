/* fdreuse ROUNDS A B: two threads of one process take turns, ROUNDS
 * times each; thread a appends 3 writes of 1000 bytes to A, thread b 5
 * writes of 700 bytes to B, each opening its file and closing it in its
 * turn, so that every open gets the descriptor number the other thread
 * has just closed. Thread a also computes 2 ms while its file is open.
 * Exits 3 when a number was not reused (the run did not test reuse). */
#include "cpuburn.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct turn {
	const char *path;
	int writes, size, burn_ms, me;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int whose;		/* 0: a's turn, 1: b's */
static int ready;		/* threads started */
static int rounds, last_fd = -1, reused = 1;

static void *taker(void *arg)
{
	const struct turn *t = arg;
	char buf[1000];

	memset(buf, 'x', sizeof(buf));
	/* both threads have made a call before the first open: under
	 * island-capture a thread's first call opens its spool file, which
	 * takes the lowest free number for a moment */
	pthread_mutex_lock(&mu);
	ready++;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int r = 0; r < rounds; r++) {
		pthread_mutex_lock(&mu);
		while (whose != t->me || ready < 2)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		int fd = open(t->path, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd < 0) {
			perror(t->path);
			exit(1);
		}
		if (last_fd >= 0 && fd != last_fd) {
			fprintf(stderr, "fdreuse: %s got fd %d, not %d\n", t->path, fd, last_fd);
			reused = 0;
		}
		last_fd = fd;
		for (int i = 0; i < t->writes; i++) {
			if (write(fd, buf, (size_t)t->size) != t->size) {
				perror("write");
				exit(1);
			}
			if (i == 0 && t->burn_ms)
				cpuburn(t->burn_ms);
		}
		if (close(fd)) {
			perror("close");
			exit(1);
		}
		pthread_mutex_lock(&mu);
		whose = !t->me;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: fdreuse ROUNDS A B\n");
		return 2;
	}
	rounds = atoi(argv[1]);
	struct turn a = { argv[2], 3, 1000, 2, 0 }, b = { argv[3], 5, 700, 0, 1 };
	pthread_t ta, tb;

	pthread_create(&ta, NULL, taker, &a);
	pthread_create(&tb, NULL, taker, &b);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	if (!reused) {
		fprintf(stderr, "fdreuse: a descriptor number was not reused\n");
		return 3;
	}
	return 0;
}
