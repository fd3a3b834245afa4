/*
 * A child made by glibc's clone() on a stack of its own, in a copy of the
 * parent's memory (clone(fn, stack, SIGCHLD, arg), no CLONE_VM): a process
 * like a fork child, but one that starts on another stack. It writes 10000
 * bytes, one write each, to DIR/clone_stack; the parent prints the child's
 * exit status. Built dynamic and -static (capture-syscalls.sh).
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static char stack[1 << 16] __attribute__((aligned(16)));

static int child(void *arg)
{
	int fd = open(arg, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return 2;
	for (int i = 0; i < 10000; i++)
		if (write(fd, "x", 1) != 1)
			return 3;
	return close(fd) < 0 ? 4 : 0;
}

int main(int argc, char **argv)
{
	char path[4096];
	int st;

	if (argc != 2) {
		fprintf(stderr, "usage: clonestack DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/clone_stack", argv[1]);
	pid_t pid = clone(child, stack + sizeof(stack), SIGCHLD, path);
	if (pid < 0) {
		perror("clone");
		return 1;
	}
	if (waitpid(pid, &st, 0) < 0) {
		perror("waitpid");
		return 1;
	}
	printf("child status %d\n", st);
	return 0;
}
