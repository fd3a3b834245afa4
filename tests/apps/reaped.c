/* reaped HOW: a child its parent reaps in a SIGCHLD handler, which runs
 * inside the parent's read of a pipe nobody writes (the wait made in a
 * call of the capture's, where nothing is recorded): the parent keeps
 * the write end, so that the read ends by the signal alone (a child
 * that held it closed it as it exited, before its SIGCHLD was sent, and
 * a parent that ran at once saw the end of the file and read again
 * until the signal came, 4 ms later on a busy machine). The child ends with
 * exit(7) (HOW "exit"), _exit(8) ("_exit") or by returning 9 from main
 * ("return"). The parent prints what it reaped: "exit N". */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t reaped = -1;

static void on_chld(int sig)
{
	int st;

	(void)sig;
	if (waitpid(-1, &st, WNOHANG) > 0)
		reaped = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Until PID is in a read of FD (its /proc/PID/syscall: a sleep of 50 ms
 * was not enough for a parent under ASan on a busy machine, whose
 * SIGCHLD then came before its read); 50 ms where that file cannot be
 * read, 10 s at most. */
static void in_read(pid_t pid, int fd)
{
	char path[64], want[32], buf[256];

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	snprintf(want, sizeof(want), "%d 0x%x ", SYS_read, fd);
	for (int i = 0; i < 10000; i++) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f)
			fclose(f);
		if (!n) {
			usleep(50000);
			return;
		}
		buf[n] = 0;
		if (!strncmp(buf, want, strlen(want)))
			return;
		usleep(1000);
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	int fds[2];
	char c;
	pid_t p;

	if (argc != 2) {
		fprintf(stderr, "usage: reaped exit|_exit|return\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_chld;	/* no SA_RESTART: the read ends */
	if (sigaction(SIGCHLD, &sa, NULL) || pipe(fds))
		return 2;
	if ((p = fork()) < 0)
		return 2;
	if (p == 0) {
		in_read(getppid(), fds[0]);
		close(fds[0]);
		if (!strcmp(argv[1], "exit"))
			exit(7);
		if (!strcmp(argv[1], "_exit"))
			_exit(8);
		return 9;
	}
	while (reaped < 0)
		if (read(fds[0], &c, 1) < 0)
			;	/* EINTR: the handler ran */
	printf("exit %d\n", (int)reaped);
	return 0;
}
