/* nested HOW: calls the program makes inside another of its calls.
 *   handler  a SIGUSR1 handler, run inside the main thread's read of a
 *            pipe (SA_RESTART: the read goes on), opens h.out, writes
 *            "hi" into it and closes it
 *   many     the same handler writes 64 bytes to /dev/null 200 times
 *   exit     the handler writes "bye\n" to stdout and _exits with 3,
 *            inside the read, which never returns
 *   cookie   a fopencookie stream over c.out: fputs then fclose, whose
 *            flush calls the stream's write function (a write of c.out)
 *            and then its close function (a close)
 *   memory   100 fprintfs into an open_memstream, fputs into a fmemopen
 *            buffer, then prints the bytes they hold: "memory 900 5"
 * A child sends the signal 50 ms in, and 50 ms later writes a byte into
 * the pipe and exits; the parent reaps it. Prints "read N" (the byte
 * read) or nothing for cookie. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *how;

static void on_usr1(int sig)
{
	(void)sig;
	if (!strcmp(how, "exit")) {
		if (write(1, "bye\n", 4) != 4)
			_exit(4);
		_exit(3);
	}
	if (!strcmp(how, "many")) {
		static const char b[64];
		int fd = open("/dev/null", O_WRONLY);

		for (int i = 0; i < 200; i++)
			if (write(fd, b, sizeof(b)) != sizeof(b))
				_exit(4);
		close(fd);
		return;
	}
	int fd = open("h.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, "hi", 2) != 2 || close(fd))
		_exit(4);
}

static ssize_t ck_write(void *c, const char *b, size_t n)
{
	return write(*(int *)c, b, n);
}

static int ck_close(void *c)
{
	return close(*(int *)c);
}

static int cookie(void)
{
	static int fd;
	cookie_io_functions_t io = { .write = ck_write, .close = ck_close };
	FILE *f;

	if ((fd = open("c.out", O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0 ||
	    !(f = fopencookie(&fd, "w", io)))
		return 2;
	if (fputs("cookie\n", f) == EOF || fclose(f))
		return 1;
	return 0;
}

static int memory(void)
{
	char *b, m[16];
	size_t n;
	FILE *f = open_memstream(&b, &n), *g = fmemopen(m, sizeof(m), "w");

	if (!f || !g)
		return 2;
	for (int i = 0; i < 100; i++)
		fprintf(f, "line %03d\n", i);	/* 9 bytes */
	fputs("hello", g);
	if (fclose(f) || fclose(g))
		return 1;
	printf("memory %zu %zu\n", n, strlen(m));
	free(b);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	int fds[2], st;
	char c;
	pid_t p;

	if (argc != 2) {
		fprintf(stderr, "usage: nested handler|many|exit|cookie|memory\n");
		return 2;
	}
	how = argv[1];
	if (!strcmp(how, "cookie"))
		return cookie();
	if (!strcmp(how, "memory"))
		return memory();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGUSR1, &sa, NULL) || pipe(fds))
		return 2;
	if ((p = fork()) < 0)
		return 2;
	if (p == 0) {
		signal(SIGPIPE, SIG_IGN);	/* exit: its parent is gone */
		close(fds[0]);
		usleep(50000);	/* its parent in its read by then */
		kill(getppid(), SIGUSR1);
		usleep(50000);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	ssize_t n = read(fds[0], &c, 1);
	if (waitpid(p, &st, 0) != p)
		return 1;
	printf("read %zd\n", n);
	return 0;
}
