/*
 * badnr NR...: after a few calls through libc's syscall() (so that its
 * `syscall` instruction is rewritten under --syscalls), make system call
 * NR through it for each argument and print "NR: result errno".
 * Numbers x86-64 does not have fail with ENOSYS, captured or not.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	for (int i = 0; i < 3; i++)
		syscall(SYS_getppid);
	for (int i = 1; i < argc; i++) {
		errno = 0;
		long r = syscall(atol(argv[i]));
		printf("%s: %ld %d\n", argv[i], r, errno);
	}
	return 0;
}
