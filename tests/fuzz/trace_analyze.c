/* The trace library's reader (trace/read.c, SAX) under island-analyze's
 * filters (analysis/feed.c) on any bytes. */
#include "analyze.h"
#include "fuzz.h"

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	(void)ctx;
	(void)t;
	(void)io;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct trace_ops ops = { .io = on_io };
	char *files[1] = { (char *)fuzz_file("t.xml", data, size) };
	static struct trace_run run;

	fuzz_fds_mark();
	if (!setjmp(fuzz_back)) {
		prescan(&run, files, 1);
		read_traces(&run, files, 1, &ops, NULL);
	} else {
		trace_read_abandon();	/* the file's reading, left by die */
	}
	run_free(&run);
	fuzz_fds_close();
	return 0;
}
