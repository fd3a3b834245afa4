/* crash N: write N lines to stdout-independent file crash.out, then
 * crash with SIGSEGV (or, with "kill", wait to be killed). */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	int fd = open("crash.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	for (long i = 0; i < n; i++)
		if (write(fd, "line\n", 5) != 5)
			return 1;
	if (argc > 2 && !strcmp(argv[2], "kill")) {
		for (;;)
			if (write(fd, "more\n", 5) != 5)
				return 1;
	}
	raise(SIGSEGV);
	return 0;
}
