/* forks N [kill]: N children in turn, each writing a byte to /dev/null and
 * exiting with status i % 7, each waited for: a script running its
 * commands, as far as process numbers go. With "kill", every other child
 * (the even ones) ends by SIGKILL instead, which no code of its own sees. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	int kill9 = argc > 2 && !strcmp(argv[2], "kill");
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (n < 1 || fd < 0) {
		fprintf(stderr, "usage: forks N\n");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		int st;
		pid_t p = fork();

		if (p < 0)
			return 1;
		if (p == 0) {
			if (write(fd, "x", 1) != 1)
				_exit(100);
			if (kill9 && i % 2 == 0)
				raise(SIGKILL);
			_exit((int)(i % 7));
		}
		if (waitpid(p, &st, 0) != p)
			return 1;
		if (kill9 && i % 2 == 0 ? !WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL :
		    !WIFEXITED(st) || WEXITSTATUS(st) != i % 7)
			return 1;
	}
	printf("%ld children\n", n);
	return 0;
}
