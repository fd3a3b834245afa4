/* forkexec DIR: writes DIR/parent.txt, then a forked child writes
 * DIR/child.txt and execs itself to write DIR/exec.txt; a vfork+exec, a
 * posix_spawn and a system() child each copy a file; a thread writes
 * DIR/thread.txt. Every child is waited for. */
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static const char *dir;

static void put(const char *name, const char *text, int times)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	if (!f) {
		perror(p);
		exit(1);
	}
	for (int i = 0; i < times; i++)
		fputs(text, f);
	fclose(f);
}

static void *thread(void *arg)
{
	put("thread.txt", "thread\n", 100);
	return NULL;
}

int main(int argc, char **argv)
{
	char self[4096], src[4096], dst[4096], cmd[9000];
	pid_t pid;
	int st;

	if (argc < 2)
		return 2;
	dir = argv[1];
	if (argc > 2 && !strcmp(argv[2], "exec")) {
		put("exec.txt", "exec\n", 10);
		return 0;
	}
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = 0;
	put("parent.txt", "parent\n", 50);
	pthread_t th;
	pthread_create(&th, NULL, thread, NULL);
	pthread_join(th, NULL);

	if ((pid = fork()) == 0) {
		put("child.txt", "child\n", 20);
		execl(self, self, dir, "exec", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);

	snprintf(src, sizeof(src), "%s/parent.txt", dir);
	snprintf(dst, sizeof(dst), "%s/vfork.txt", dir);
	if ((pid = vfork()) == 0) {
		execl("/bin/cp", "cp", src, dst, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);

	snprintf(dst, sizeof(dst), "%s/spawn.txt", dir);
	char *av[] = { "cp", src, dst, NULL };
	if (posix_spawn(&pid, "/bin/cp", NULL, NULL, av, environ) == 0)
		waitpid(pid, &st, 0);

	snprintf(cmd, sizeof(cmd), "cat %s/parent.txt > %s/system.txt", dir, dir);
	if (system(cmd) != 0)
		return 1;
	return 0;
}
