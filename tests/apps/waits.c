/* waits: two threads contend for a mutex, meet at a barrier, signal a
 * condition variable and a semaphore; the main thread polls, selects and
 * epoll-waits on a pipe, sleeps and joins. Prints "waits: ok". */
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t b;
static sem_t sem;
static int ready, p[2];

static void *worker(void *arg)
{
	pthread_setname_np(pthread_self(), "worker");
	pthread_barrier_wait(&b);          /* the main thread holds m now */
	pthread_mutex_lock(&m);            /* contended: recorded */
	ready = 1;
	pthread_cond_signal(&c);
	pthread_mutex_unlock(&m);
	usleep(20000);
	sem_post(&sem);
	usleep(20000);
	if (write(p[1], "x", 1) != 1)
		exit(1);
	return NULL;
}

int main(void)
{
	pthread_t th;
	struct pollfd pf;
	fd_set rs;
	char ch;

	if (pipe(p) < 0)
		return 1;
	pthread_barrier_init(&b, NULL, 2);
	sem_init(&sem, 0, 0);
	pthread_mutex_lock(&m);            /* uncontended: not recorded */
	pthread_create(&th, NULL, worker, NULL);
	pthread_barrier_wait(&b);
	usleep(20000);                     /* let the worker block on m */
	while (!ready)
		pthread_cond_wait(&c, &m);
	pthread_mutex_unlock(&m);
	sem_wait(&sem);
	pf.fd = p[0];
	pf.events = POLLIN;
	if (poll(&pf, 1, 5000) != 1)
		return 1;
	FD_ZERO(&rs);
	FD_SET(p[0], &rs);
	struct timeval tv = { 1, 0 };
	if (select(p[0] + 1, &rs, NULL, NULL, &tv) != 1)
		return 1;
	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = p[0] }, out;
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
	if (epoll_wait(ep, &out, 1, 1000) != 1 || read(p[0], &ch, 1) != 1)
		return 1;
	struct timespec ts = { 0, 10000000 };
	nanosleep(&ts, NULL);
	pthread_join(th, NULL);
	printf("waits: ok\n");
	return 0;
}
