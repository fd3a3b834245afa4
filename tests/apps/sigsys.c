/*
 * sigsys: a program with its own SIGSYS handler and its own seccomp
 * filter, whose behaviour a capture must not change: the filter traps
 * getppid (SECCOMP_RET_TRAP: the program's handler counts it and makes it
 * return 4242) and makes getpgrp fail with EPERM; SIGSYS is in the mask
 * the program blocks and asks back. Prints what it saw.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

static volatile int traps, last_nr;

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	traps++;
	last_nr = si->si_syscall;
	((ucontext_t *)uc)->uc_mcontext.gregs[REG_RAX] = 4242;
}

int main(void)
{
	struct sigaction sa = { 0 }, old;
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getpgrp, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	sigset_t set, back;

	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO;
	if (sigaction(SIGSYS, &sa, NULL) < 0 || sigaction(SIGSYS, NULL, &old) < 0)
		return 1;
	printf("own handler kept: %s\n", old.sa_sigaction == on_sigsys ? "yes" : "no");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		perror("seccomp");
		return 1;
	}
	long r = syscall(SYS_getppid);
	printf("getppid: %ld, traps %d, trapped call %d\n", r, traps, last_nr);
	errno = 0;
	r = syscall(SYS_getpgrp);
	printf("getpgrp: %ld, errno %s\n", r, strerror(errno));
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigprocmask(SIG_BLOCK, NULL, &back);
	printf("SIGUSR1 blocked: %d\n", sigismember(&back, SIGUSR1));
	return 0;
}
