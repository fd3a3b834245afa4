/*
 * rawexec PROGRAM [ARG...]: exec PROGRAM with a raw execve system call
 * (no libc exec wrapper sees it) and the environment in environ.
 */
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	syscall(SYS_execve, argv[1], argv + 1, environ);
	perror(argv[1]);
	return 127;
}
