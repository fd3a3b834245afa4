/* A program of known profile, for island-capture --profile: on the main
 * thread burn() spends 150 ms of CPU under caller1() and 50 ms under
 * caller2(), spin_main() 100 ms; sleeper() waits 3 x 100 ms; alloc_small()
 * allocates 1000 x 100 bytes and alloc_big() 10 x 1 MiB (both freed),
 * leak() 5 x 1000 bytes it never frees; a second thread spends 100 ms in
 * spin_thread(). tests/e2e/capture-profile.sh states what must come out. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "cpuburn.h"

#define KEEP() __asm__ volatile("" ::: "memory")	/* no tail calls */

static double sink;
static void *volatile escape;	/* allocations the compiler cannot elide */

__attribute__((noinline)) static void burn(int ms)
{
	cpuburn(ms);
	KEEP();
}

__attribute__((noinline)) static void caller1(void) { burn(150); KEEP(); }
__attribute__((noinline)) static void caller2(void) { burn(50); KEEP(); }
__attribute__((noinline)) static void spin_main(void) { burn(100); KEEP(); }

__attribute__((noinline)) static void sleeper(void)
{
	struct timespec d = { 0, 100000000 };

	for (int i = 0; i < 3; i++)
		nanosleep(&d, NULL);
	KEEP();
}

__attribute__((noinline)) static void alloc_small(void)
{
	for (int i = 0; i < 1000; i++) {
		char *p = malloc(100);

		escape = p;
		free(escape);
	}
	KEEP();
}

__attribute__((noinline)) static void alloc_big(void)
{
	for (int i = 0; i < 10; i++) {
		char *p = malloc(1 << 20);

		escape = p;
		free(escape);
	}
	KEEP();
}

static void *leaked[5];
__attribute__((noinline)) static void leak(void)
{
	for (int i = 0; i < 5; i++)
		leaked[i] = malloc(1000);
	KEEP();
}

__attribute__((noinline)) static void spin_thread(void) { burn(100); sink += 2; KEEP(); }

static void *second(void *arg)
{
	spin_thread();
	return arg;
}

int main(void)
{
	pthread_t th;

	if (pthread_create(&th, NULL, second, NULL))
		return 1;
	caller1();
	caller2();
	spin_main();
	sleeper();
	alloc_small();
	alloc_big();
	leak();
	pthread_join(th, NULL);
	return leaked[0] ? 0 : 1;
}
