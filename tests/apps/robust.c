/* robust DIR: what the capture must not change. Checks errno after
 * failing and succeeding calls, closes every descriptor and keeps working,
 * uses a descriptor above 1024, sets LD_PRELOAD itself for a child. Prints
 * "robust: ok" or the first failure; exit status 0 or 1. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "robust: failed: %s (line %d)\n", #c, __LINE__); return 1; } } while (0)

int main(int argc, char **argv)
{
	char p[4096], self[4096];

	if (argc > 2 && !strcmp(argv[2], "child")) {
		/* our own preload (argv[3]) and the capture's must both be here */
		CHECK(dlsym(RTLD_DEFAULT, "robust_mark") != NULL);
		printf("robust child: own preload kept, capture %s\n",
		       dlsym(RTLD_DEFAULT, "island_region_begin") ? "present" : "absent");
		return 0;
	}
	snprintf(p, sizeof(p), "%s/robust.txt", argv[1]);

	errno = 0;
	CHECK(open("/nonexistent/x", O_RDONLY) == -1 && errno == ENOENT);
	CHECK(read(-1, p, 1) == -1 && errno == EBADF);
	errno = 1234;
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && errno == 1234);
	CHECK(write(fd, "x", 1) == 1 && errno == 1234);
	close(fd);

	/* an app that closes every descriptor */
	for (int i = 3; i < 4096; i++)
		close(i);
	fd = open(p, O_WRONLY | O_APPEND);
	CHECK(fd >= 0);
	CHECK(dup2(fd, 2000) == 2000);
	for (int i = 0; i < 1000; i++)
		CHECK(write(2000, "0123456789", 10) == 10);
	close(2000);
	close(fd);

	/* an app that sets LD_PRELOAD itself */
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n] = 0;
	snprintf(p, sizeof(p), "%s", self);
	char *slash = strrchr(p, '/');
	strcpy(slash + 1, "librobust.so");
	setenv("LD_PRELOAD", p, 1);
	pid_t pid = fork();
	if (pid == 0) {
		execl(self, self, argv[1], "child", (char *)NULL);
		_exit(127);
	}
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	printf("robust: ok\n");
	return 0;
}
