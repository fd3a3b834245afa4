/*
 * fdorder THREADS ROUNDS BUSY: checks that every descriptor the app gets
 * is the one it would get natively. THREADS threads are started in waves
 * of 8 while others run; each opens /dev/null ROUNDS times as soon as it
 * starts, in turn with the others (one mutex), and compares the number it
 * got with the lowest number the app itself does not hold (natively, the
 * kernel's choice); it keeps at most 2 open, so that holes open up. A
 * busy thread makes BUSY recorded calls meanwhile (its spool window moves
 * many times). Prints "opens N unexpected M"; exits 1 when M > 0.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAXFD 1024

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char held[MAXFD];             /* the app's own descriptors */
static int rounds, opens, unexpected;

static int lowest_free(void)
{
	int fd = 0;

	while (fd < MAXFD && held[fd])
		fd++;
	return fd;
}

/* Open under the mutex: the number natively is the lowest not held. */
static int open_checked(int who)
{
	pthread_mutex_lock(&mu);
	int want = lowest_free(), fd = open("/dev/null", O_RDONLY);
	if (fd >= 0 && fd < MAXFD)
		held[fd] = 1;
	opens++;
	if (fd != want) {
		unexpected++;
		printf("thread %d: open got fd %d, natively %d\n", who, fd, want);
	}
	pthread_mutex_unlock(&mu);
	return fd;
}

static void close_held(int fd)
{
	pthread_mutex_lock(&mu);
	close(fd);
	if (fd >= 0 && fd < MAXFD)
		held[fd] = 0;
	pthread_mutex_unlock(&mu);
}

static void *opener(void *arg)
{
	int who = (int)(long)arg, mine[2] = { -1, -1 };

	for (int r = 0; r < rounds; r++) {
		if (mine[r & 1] >= 0)
			close_held(mine[r & 1]);
		mine[r & 1] = open_checked(who);
	}
	for (int i = 0; i < 2; i++)
		if (mine[i] >= 0)
			close_held(mine[i]);
	return NULL;
}

static void *busy(void *arg)
{
	long n = (long)arg;
	int fd = open_checked(-1);

	for (long i = 0; i < n; i++)
		lseek(fd, 0, SEEK_SET);
	close_held(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t b, t[8];

	if (argc != 4) {
		fprintf(stderr, "usage: fdorder THREADS ROUNDS BUSY\n");
		return 2;
	}
	int threads = atoi(argv[1]);
	rounds = atoi(argv[2]);
	for (int fd = 0; fd < MAXFD; fd++)   /* what we were given */
		held[fd] = fcntl(fd, F_GETFD) >= 0;
	if (pthread_create(&b, NULL, busy, (void *)atol(argv[3])))
		return 2;
	for (int done = 0; done < threads; done += 8) {
		int k = threads - done < 8 ? threads - done : 8;
		for (int i = 0; i < k; i++)
			if (pthread_create(&t[i], NULL, opener, (void *)(long)(done + i)))
				return 2;
		for (int i = 0; i < k; i++)
			pthread_join(t[i], NULL);
	}
	pthread_join(b, NULL);
	printf("opens %d unexpected %d\n", opens, unexpected);
	return unexpected ? 1 : 0;
}
