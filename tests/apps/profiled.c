/* A program of known profile, for island-capture --profile: on the main
 * thread burn() spends 150 ms of CPU under caller1() and 50 ms under
 * caller2(), spin_main() 120 ms of its own; sleeper() waits 3 x 100 ms;
 * alloc_small() allocates 1000 x 100 bytes and alloc_big() 10 x 1 MiB
 * (both freed), leak() 5 x 1000 bytes it never frees; a second thread
 * spends 80 ms in spin_thread(). Exclusive CPU: burn 50 %, spin_main
 * 30 %, spin_thread 20 %. With "linger", a third thread spends 50 ms in
 * linger(), allocates 7 x 1000 bytes (freed) and is still waiting when
 * the process exits. "churn N" only allocates and frees 100 bytes N
 * times in churn(). tests/e2e/capture-profile.sh states what must come
 * out. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
__attribute__((noinline)) static void spin_main(void) { cpuburn(120); KEEP(); }

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

__attribute__((noinline)) static void spin_thread(void) { cpuburn(80); sink += 2; KEEP(); }

static void *second(void *arg)
{
	spin_thread();
	return arg;
}

static int ready[2];
__attribute__((noinline)) static void linger(void)
{
	cpuburn(50);
	for (int i = 0; i < 7; i++) {
		escape = malloc(1000);
		free(escape);
	}
	KEEP();
}

static void *lingerer(void *arg)
{
	char c = 1;

	linger();
	if (write(ready[1], &c, 1) != 1)
		return arg;
	for (;;)
		pause();	/* still here at the exit */
	return arg;
}

__attribute__((noinline)) static void churn(int n)
{
	for (int i = 0; i < n; i++) {
		escape = malloc(100);
		free(escape);
	}
	KEEP();
}

int main(int argc, char **argv)
{
	pthread_t th, lt;
	char c;

	if (argc > 2 && !strcmp(argv[1], "churn")) {
		churn(atoi(argv[2]));
		return 0;
	}
	if (pthread_create(&th, NULL, second, NULL))
		return 1;
	if (argc > 1 && !strcmp(argv[1], "linger") &&
	    (pipe(ready) || pthread_create(&lt, NULL, lingerer, NULL) ||
	     read(ready[0], &c, 1) != 1))
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
