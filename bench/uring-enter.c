/*
 * The cost of one io_uring_enter that does nothing (no submission, no
 * wait), made as fio and raw-syscall programs make it: through libc's
 * syscall() (libc), or by a `syscall` instruction of the program's own
 * (inline); and trap: the inline one, Syscall User Dispatch sending
 * each to a handler that makes it through libc's syscall() and returns
 * (the least any recorder that takes a signal a call pays: the floor of
 * --syscalls for a site it does not rewrite). Prints "MODE NS ns/enter".
 *   uring-enter libc|inline|trap [N]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <liburing.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

static long enter_inline(int fd)
{
	long ret;
	register long r10 __asm__("r10") = IORING_ENTER_GETEVENTS;
	register long r8 __asm__("r8") = 0;
	register long r9 __asm__("r9") = 0;

	/* not a leaf: the call keeps the red zone out of this function */
	__asm__ volatile("syscall" : "=a"(ret)
			 : "0"((long)__NR_io_uring_enter), "D"((long)fd), "S"(0L), "d"(0L),
			   "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#define PR_SYS_DISPATCH_ON 1
#endif
static volatile char selector;	/* 0 allow, 1 block */

static void dispatched(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	greg_t *g = uc->uc_mcontext.gregs;

	(void)sig;
	(void)si;
	g[REG_RAX] = syscall(g[REG_RAX], g[REG_RDI], g[REG_RSI], g[REG_RDX], g[REG_R10],
			     g[REG_R8], g[REG_R9]);
}

/* every system call from outside libc (whose syscall() the handler uses,
 * and whose restorer returns from it) to the handler */
static int trap_on(void)
{
	struct sigaction sa;
	Dl_info di;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = dispatched;
	sa.sa_flags = SA_SIGINFO;
	if (sigaction(SIGSYS, &sa, NULL) || !dladdr((void *)syscall, &di))
		return -1;
	if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON,
		  (unsigned long)di.dli_fbase, 1UL << 22, &selector))
		return -1;
	selector = 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct io_uring r;
	struct timespec a, b;
	int n = argc > 2 ? atoi(argv[2]) : 200000, in;

	if (argc < 2 || (strcmp(argv[1], "libc") && strcmp(argv[1], "inline") &&
			  strcmp(argv[1], "trap")))
		return 2;
	in = strcmp(argv[1], "libc") != 0;
	if (io_uring_queue_init(8, &r, 0) < 0)
		return 77;
	if (!strcmp(argv[1], "trap") && trap_on())
		return 77;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		long ret = in ? enter_inline(r.ring_fd) :
			   syscall(__NR_io_uring_enter, r.ring_fd, 0, 0, IORING_ENTER_GETEVENTS,
				   NULL, 0);
		if (ret < 0)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	selector = 0;
	printf("%s %.0f ns/enter\n", argv[1],
	       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	io_uring_queue_exit(&r);
	return 0;
}
