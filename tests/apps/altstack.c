/* altstack: a signal stack set with sigaltstack() is the one its
 * handlers run on, in the main thread and in a second one; it reads back
 * as the kernel says, is replaced, refused from a handler on it,
 * disabled, and set to disarm itself; prints what it sees. Under
 * island-capture --syscalls the sigaltstack call is made inside the
 * SIGSYS handler, whose rt_sigreturn put back the stack the signal frame
 * recorded (none): handlers then ran on the thread's own stack (Go's on
 * 2 kB goroutine stacks, which they overflowed). That handler runs on
 * the alternate stack once there is one: the kernel refused there any
 * change (EPERM: ASan's runtime, disabling a thread's stack at its exit,
 * aborted) and read it back as in use. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31)
#endif

static __thread char *lo, *hi;
static __thread int on_alt, in_flags, in_change;

static void handler(int sig)
{
	char here;
	static char spare[64 * 1024];   /* (never used: refused) */
	stack_t got, other = { .ss_sp = spare, .ss_size = sizeof(spare) };

	on_alt = &here >= lo && &here < hi;
	/* from the handler on it: in use, and no change */
	in_flags = sigaltstack(NULL, &got) ? -1 : got.ss_flags;
	in_change = sigaltstack(&other, NULL) ? errno : 0;
	(void)sig;
}

static const char *flags(int f)
{
	static const char *name[] = { "enabled", "in use", "disabled", "?" };

	return name[f & SS_ONSTACK ? 1 : f & SS_DISABLE ? 2 : 0];
}

/* set: a stack of SIZE at P with FLAGS, read back */
static void set(const char *who, const char *what, char *p, size_t size, int fl)
{
	stack_t ss = { .ss_sp = p, .ss_size = size, .ss_flags = fl }, got;

	if (sigaltstack(&ss, NULL) || sigaltstack(NULL, &got)) {
		printf("%s: %s: %s\n", who, what, strerror(errno));
		exit(1);
	}
	printf("%s: %s: reads back %s, %s%s\n", who, what,
	       fl & SS_DISABLE ? (got.ss_size ? "a stack" : "none") :
	       got.ss_sp == p && got.ss_size == size ? "the stack set" : "another stack",
	       flags(got.ss_flags), got.ss_flags & SS_AUTODISARM ? ", disarmed in handlers" : "");
}

static void *check(void *arg)
{
	const char *who = arg;
	size_t size = 64 * 1024;
	char *second = malloc(size);

	lo = malloc(size);
	hi = lo + size;
	set(who, "set", lo, size, 0);
	pthread_kill(pthread_self(), SIGUSR1);
	printf("%s: the handler ran %s\n", who, on_alt ? "on it" : "elsewhere");
	printf("%s: in the handler: it reads %s, a change %s\n", who, flags(in_flags),
	       in_change == EPERM ? "is refused (EPERM)" : in_change ? strerror(in_change) : "is made");
	set(who, "replaced", second, size, 0);
	lo = second;
	hi = lo + size;
	pthread_kill(pthread_self(), SIGUSR1);
	printf("%s: the handler ran %s\n", who, on_alt ? "on the new one" : "elsewhere");
	set(who, "disabled", NULL, 0, SS_DISABLE);
	set(who, "set to disarm", lo, size, SS_AUTODISARM);
	set(who, "disabled", NULL, 0, SS_DISABLE);
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
