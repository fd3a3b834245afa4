/*
 * The cost of one io_uring_enter that does nothing (no submission, no
 * wait), made as fio and raw-syscall programs make it: through libc's
 * syscall() (libc), or by a `syscall` instruction of the program's own
 * (inline). Prints "MODE NS ns/enter".
 *   uring-enter libc|inline [N]
 */
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
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

int main(int argc, char **argv)
{
	struct io_uring r;
	struct timespec a, b;
	int n = argc > 2 ? atoi(argv[2]) : 200000, in;

	if (argc < 2 || (strcmp(argv[1], "libc") && strcmp(argv[1], "inline")))
		return 2;
	in = !strcmp(argv[1], "inline");
	if (io_uring_queue_init(8, &r, 0) < 0)
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
	printf("%s %.0f ns/enter\n", argv[1],
	       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	io_uring_queue_exit(&r);
	return 0;
}
