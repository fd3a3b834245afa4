/* tracetry TRACE...: each trace read on its own with trace_read_try(), as
 * the capture's --discover reads them (tests/e2e/trace-reader-threads.sh):
 * "FILE: N io" or "FILE: refused" (the library's line on stderr); then
 * the threads the process has left (the reader's parsing thread must be
 * gone, whichever way the read ended) and the descriptors open above
 * stderr. */
#include <dirent.h>
#include <stdio.h>
#include <island-trace.h>

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	(*(long *)ctx)++;
}

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	static const struct trace_ops ops = { .io = on_io };

	for (int i = 1; i < argc; i++) {
		struct trace_run run = { 0 };
		long io = 0;

		if (trace_read_try(&run, argv + i, 1, &ops, &io) < 0)
			printf("%s: refused\n", argv[i]);
		else
			printf("%s: %ld io\n", argv[i], io);
		trace_run_free(&run);
	}
	/* opendir's own descriptor is one of those counted */
	printf("threads %d fds %d\n", entries("/proc/self/task"), entries("/proc/self/fd") - 4);
	return 0;
}
