/*
 * fdclean CMD [ARG...]: run CMD with stdin from /dev/null and no descriptor
 * above 2 inherited. tests/run starts every e2e script through it, so the
 * descriptor numbers a test expects do not depend on what the shell that
 * ran `make test` left open (a terminal, an IDE, a CI runner).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: fdclean CMD [ARG...]\n");
		return 2;
	}
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, 0) < 0) {
		fprintf(stderr, "fdclean: /dev/null: %s\n", strerror(errno));
		return 2;
	}
	if (close_range(3, ~0U, 0) < 0)
		for (fd = 3; fd < 1024; fd++)
			close(fd);
	execvp(argv[1], argv + 1);
	fprintf(stderr, "fdclean: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
