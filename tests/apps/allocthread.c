/*
 * main allocates inside pthread_create (glibc allocates the new thread's
 * TLS there: an allocation made inside a call the capture records), then
 * alloc_a() allocates 1000 x 8000 bytes while the thread idles
 * (capture-profile.sh: each is charged to its own stack).
 */
#include <pthread.h>
#include <stdlib.h>

static void *volatile escape;	/* allocations the compiler cannot elide */

static void *idle(void *arg)
{
	return arg;
}

__attribute__((noinline)) static void alloc_a(void)
{
	for (int i = 0; i < 1000; i++) {
		char *p = malloc(8000);

		p[0] = 1;
		escape = p;
		free(p);
	}
}

int main(void)
{
	pthread_t th;

	if (pthread_create(&th, NULL, idle, NULL))
		return 1;
	alloc_a();
	return pthread_join(th, NULL) ? 1 : 0;
}
