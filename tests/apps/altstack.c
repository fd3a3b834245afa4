/* altstack: a signal stack set with sigaltstack() is the one its
 * handlers run on, in the main thread and in a second one; prints what
 * it sees. Under island-capture --syscalls the sigaltstack call is made
 * inside the SIGSYS handler, whose rt_sigreturn put back the stack the
 * signal frame recorded (none): handlers then ran on the thread's own
 * stack (Go's on 2 kB goroutine stacks, which they overflowed). */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static __thread char *lo, *hi;
static __thread int on_alt;

static void handler(int sig)
{
	char here;

	on_alt = &here >= lo && &here < hi;
	(void)sig;
}

static void *check(void *arg)
{
	const char *who = arg;
	stack_t ss = { 0 }, got;
	size_t size = 64 * 1024;

	lo = malloc(size);
	hi = lo + size;
	ss.ss_sp = lo;
	ss.ss_size = size;
	if (sigaltstack(&ss, NULL) || sigaltstack(NULL, &got)) {
		perror("sigaltstack");
		exit(1);
	}
	printf("%s: sigaltstack reads back %s, %s\n", who,
	       got.ss_sp == lo && got.ss_size == size ? "the stack set" : "another stack",
	       got.ss_flags & SS_DISABLE ? "disabled" : "enabled");
	pthread_kill(pthread_self(), SIGUSR1);
	printf("%s: the handler ran %s\n", who, on_alt ? "on it" : "elsewhere");
	return NULL;
}

int main(void)
{
	struct sigaction sa;
	pthread_t th;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	check("main");
	fflush(stdout);
	if (pthread_create(&th, NULL, check, "thread") || pthread_join(th, NULL))
		return 1;
	return 0;
}
