/*
 * nullcall [MODE]: call a NULL function pointer through `call *%rax` (the
 * very bytes --syscalls writes over a rewritten `syscall`), with the
 * registers of a read(0, buf, 64) in place, after a few system calls (so
 * that their site is rewritten). Natively this dies with SIGSEGV. MODE
 * "handler": a SIGSEGV handler prints what it was given and exits 7;
 * "thread": the same, the call made by a second thread; "blocked" and
 * "ignored": SIGSEGV blocked or ignored first (a fault's SIGSEGV kills all
 * the same). Says on stderr whether page 0 is mapped (it is under a
 * rewriting capture).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

static char buf[64];

static void on_segv(int sig, siginfo_t *si, void *uctx)
{
	ucontext_t *uc = uctx;
	char line[160];
	int n = snprintf(line, sizeof(line), "signal %d code %d addr %p rip %#llx rdi %lld\n",
			 sig, si->si_code, si->si_addr,
			 (unsigned long long)uc->uc_mcontext.gregs[REG_RIP],
			 (long long)uc->uc_mcontext.gregs[REG_RDI]);

	if (write(1, line, (size_t)n) != n)
		_exit(9);
	_exit(7);
}

static int page0_mapped(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/maps", "r");
	int yes = 0;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "00000000-", 9))
			yes = 1;
	if (f)
		fclose(f);
	return yes;
}

static void *null_call(void *arg)
{
	long rax = 0;

	(void)arg;
	for (int i = 0; i < 3; i++)
		if (write(1, "", 0) < 0)
			return NULL;
	__asm__ volatile("call *%%rax"
			 : "+a"(rax)
			 : "D"(0L), "S"(buf), "d"(sizeof(buf))
			 : "rcx", "r8", "r9", "r10", "r11", "memory", "cc");
	printf("returned from a NULL call: %ld\n", rax);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "handler") || !strcmp(mode, "thread")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_segv;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGSEGV, &sa, NULL);
	} else if (!strcmp(mode, "blocked")) {
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGSEGV);
		sigprocmask(SIG_BLOCK, &set, NULL);
	} else if (!strcmp(mode, "ignored")) {
		signal(SIGSEGV, SIG_IGN);
	}
	fprintf(stderr, "page 0 %s\n", page0_mapped() ? "mapped" : "not mapped");
	if (!strcmp(mode, "thread")) {
		pthread_t th;
		if (pthread_create(&th, NULL, null_call, NULL))
			return 1;
		pthread_join(th, NULL);
	} else {
		null_call(NULL);
	}
	return 0;
}
