/* forks N: N children in turn, each writing a byte to /dev/null and
 * exiting with status i % 7, each waited for: a script running its
 * commands, as far as process numbers go. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
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
			_exit((int)(i % 7));
		}
		if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != i % 7)
			return 1;
	}
	printf("%ld children\n", n);
	return 0;
}
