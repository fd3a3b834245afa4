/* vforkexit: a vfork child that calls nothing but _exit(3); the parent
 * waits for it. The vfork's record names the child all the same.
 * vforkexit exec: a child that dup2s, closes and execs /bin/true, as
 * Python's subprocess does (three calls before its exec); then one that
 * execs a program that is not there and _exits (two calls).
 * vforkexit run PROG: a child that execs PROG at once (its status not
 * looked at).
 * vforkexit search NAME: a child that execlp's NAME (found in PATH) at
 * once, and must exit 0; vforkexit spawnp NAME: the same by posix_spawnp.
 * vforkexit spawn: posix_spawn of /bin/true with two file actions (its
 * standard output /dev/null, dup2'd to 5), then one without.
 * vforkexit spawnpipe: posix_spawn of echo with its output dup2'd from a
 * pipe's end (close-on-exec, as Python's subprocess makes them); the
 * parent reads what it wrote ("hi"). */
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int reaped(pid_t p, int want)
{
	int st;

	return p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) &&
	       WEXITSTATUS(st) == want;
}

extern char **environ;

int main(int argc, char **argv)
{
	pid_t p;

	if (argc > 1 && !strcmp(argv[1], "spawn")) {
		static char *const args[] = { "true", NULL };
		posix_spawn_file_actions_t fa;

		if (posix_spawn_file_actions_init(&fa) ||
		    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0) ||
		    posix_spawn_file_actions_adddup2(&fa, 1, 5) ||
		    posix_spawn(&p, "/bin/true", &fa, NULL, args, environ) || !reaped(p, 0))
			return 1;
		posix_spawn_file_actions_destroy(&fa);
		return posix_spawn(&p, "/bin/true", NULL, NULL, args, environ) == 0 &&
		       reaped(p, 0) ? 0 : 1;
	}

	if (argc > 1 && !strcmp(argv[1], "spawnpipe")) {
		static char *const args[] = { "echo", "hi", NULL };
		posix_spawn_file_actions_t fa;
		char buf[8];
		int fd[2];

		if (pipe2(fd, O_CLOEXEC) || posix_spawn_file_actions_init(&fa) ||
		    posix_spawn_file_actions_adddup2(&fa, fd[1], 1) ||
		    posix_spawn(&p, "/bin/echo", &fa, NULL, args, environ))
			return 1;
		posix_spawn_file_actions_destroy(&fa);
		close(fd[1]);
		return read(fd[0], buf, sizeof(buf)) == 3 && !memcmp(buf, "hi\n", 3) &&
		       reaped(p, 0) ? 0 : 1;
	}

	if (argc > 1 && !strcmp(argv[1], "exec")) {
		static char *const args[] = { "true", NULL };

		if ((p = vfork()) == 0) {
			dup2(1, 5);
			dup2(5, 6);
			close(5);
			execv("/bin/true", args);
			_exit(127);
		}
		if (!reaped(p, 0))
			return 1;
		if ((p = vfork()) == 0) {
			execv("/nonexistent/island-test", args);
			_exit(127);
		}
		return reaped(p, 127) ? 0 : 1;
	}
	if (argc > 2 && !strcmp(argv[1], "spawnp")) {
		char *args[] = { argv[2], NULL };

		return posix_spawnp(&p, argv[2], NULL, NULL, args, environ) == 0 &&
		       reaped(p, 0) ? 0 : 1;
	}
	if (argc > 2 && !strcmp(argv[1], "search")) {
		if ((p = vfork()) == 0) {
			execlp(argv[2], argv[2], (char *)0);
			_exit(127);
		}
		return reaped(p, 0) ? 0 : 1;
	}
	if (argc > 2 && !strcmp(argv[1], "run")) {
		int st;

		if ((p = vfork()) == 0) {
			execv(argv[2], argv + 2);
			_exit(127);
		}
		return p > 0 && waitpid(p, &st, 0) == p ? 0 : 1;
	}
	p = vfork();
	if (p == 0)
		_exit(3);
	return reaped(p, 3) ? 0 : 1;
}
