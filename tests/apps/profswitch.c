/* profswitch api|control|free: profiling switched on and off while it runs.
 *   api:     before() 100 ms, island_profile(1), during() 100 ms,
 *            island_profile(0), after() 100 ms of CPU;
 *   control: waiting() burns until the file "go" exists (another
 *            terminal turns profiling on, then creates it), then
 *            after_go() 100 ms;
 *   free:    island_profile(1); held() allocates 4 x 500 bytes,
 *            shrunk() 300 bytes it gives back with realloc(p, 0),
 *            kept() 2 x 700 bytes never freed; island_profile(0); the
 *            4 blocks of held() are freed, offleak() allocates 900
 *            bytes never freed (not profiled). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpuburn.h"
#include "island.h"

#define KEEP() __asm__ volatile("" ::: "memory")
static double sink;

__attribute__((noinline)) static void spin(int ms)
{
	cpuburn(ms);
	KEEP();
}

__attribute__((noinline)) static void before(void) { spin(100); sink += 1; KEEP(); }
__attribute__((noinline)) static void during(void) { spin(100); sink += 2; KEEP(); }
__attribute__((noinline)) static void after(void) { spin(100); sink += 3; KEEP(); }
__attribute__((noinline)) static void after_go(void) { spin(100); sink += 4; KEEP(); }

__attribute__((noinline)) static void waiting(void)
{
	for (int i = 0; i < 1000 && access("go", F_OK); i++)
		spin(5);
	KEEP();
}

static void *volatile escape, *blocks[4];
static volatile size_t zero;

__attribute__((noinline)) static void held(void)
{
	for (int i = 0; i < 4; i++)
		blocks[i] = malloc(500);
	KEEP();
}

__attribute__((noinline)) static void shrunk(void)
{
	escape = malloc(300);
	escape = realloc(escape, zero);	/* a free */
	KEEP();
}

__attribute__((noinline)) static void kept(void)
{
	for (int i = 0; i < 2; i++)
		escape = malloc(700);
	KEEP();
}

__attribute__((noinline)) static void offleak(void)
{
	escape = malloc(900);
	KEEP();
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "free")) {
		island_profile(1);
		held();
		shrunk();
		kept();
		island_profile(0);
		for (int i = 0; i < 4; i++)
			free(blocks[i]);
		offleak();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "control")) {
		waiting();
		after_go();
		return access("go", F_OK) ? 1 : 0;
	}
	before();
	island_profile(1);
	during();
	island_profile(0);
	after();
	return 0;
}
