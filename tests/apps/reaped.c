/* reaped HOW: a child its parent reaps in a SIGCHLD handler, which runs
 * inside the parent's read of a pipe the child held (the wait made in a
 * call of the capture's, where nothing is recorded). The child ends with
 * exit(7) (HOW "exit"), _exit(8) ("_exit") or by returning 9 from main
 * ("return"). The parent prints what it reaped: "exit N". */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
		close(fds[0]);
		usleep(50000);	/* its parent in its read by then */
		if (!strcmp(argv[1], "exit"))
			exit(7);
		if (!strcmp(argv[1], "_exit"))
			_exit(8);
		return 9;
	}
	close(fds[1]);
	while (reaped < 0)
		if (read(fds[0], &c, 1) < 0)
			;	/* EINTR: the handler ran */
	printf("exit %d\n", (int)reaped);
	return 0;
}
