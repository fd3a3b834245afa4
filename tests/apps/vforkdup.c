/* vforkdup OUT IN: writes a 5-byte header to OUT, then a vfork child
 * dup2s OUT (close-on-exec) onto its stdout and execs cat IN: the child
 * appends IN after the header. The program itself never touches fd 1. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd, st;
	pid_t p;

	if (argc != 3) {
		fprintf(stderr, "usage: vforkdup OUT IN\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, "head\n", 5) != 5) {
		perror(argv[1]);
		return 1;
	}
	p = vfork();
	if (p == 0) {
		/* the child's dup2, on its parent's thread state */
		if (dup2(fd, 1) == 1)
			execl("/bin/cat", "cat", argv[2], (char *)0);
		_exit(127);
	}
	if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "vforkdup: cat failed\n");
		return 1;
	}
	return close(fd) ? 1 : 0;
}
