/* profrate MS: the sampling rate of island-capture --profile, in every
 * kind of thread: rate_main() burns MS ms of CPU on the main thread while
 * rate_thread() does on a second one; then a fork child burns MS in
 * rate_child() and execs this program again ("exec" MS), whose
 * rate_exec() burns MS; before, it tries an exec that fails. The
 * exec'd image has no handler for the profiler's signal until its
 * constructor runs: one pending across the exec killed it.
 * tests/e2e/capture-profile.sh counts their snapshots. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpuburn.h"

#define KEEP() __asm__ volatile("" ::: "memory")
static int ms;
static double sink;	/* each function its own: gcc folds identical ones */

__attribute__((noinline)) static void rate_main(void) { cpuburn(ms); sink += 1; KEEP(); }
__attribute__((noinline)) static void rate_thread(void) { cpuburn(ms); sink += 2; KEEP(); }
__attribute__((noinline)) static void rate_child(void) { cpuburn(ms); sink += 3; KEEP(); }
__attribute__((noinline)) static void rate_exec(void) { cpuburn(ms); sink += 4; KEEP(); }

static void *second(void *arg)
{
	rate_thread();
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t th;
	pid_t pid;
	int st;

	if (argc < 2 || (ms = atoi(argv[1])) <= 0)
		return 2;
	if (argc > 2 && !strcmp(argv[2], "exec")) {
		rate_exec();
		return 0;
	}
	if (pthread_create(&th, NULL, second, NULL))
		return 1;
	rate_main();
	pthread_join(th, NULL);
	if ((pid = fork()) < 0)
		return 1;
	if (!pid) {
		/* an exec that fails: the ticks go on */
		execl("/nonexistent/profrate", argv[0], (char *)NULL);
		rate_child();
		execl("/proc/self/exe", argv[0], argv[1], "exec", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	return 0;
}
