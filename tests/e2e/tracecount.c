/* tracecount TRACE...: a program of a user's own, built against the
 * installed trace library (pkg-config island-trace; tests/e2e/
 * capture-install.sh): prints the nodes, threads and I/Os the traces
 * hold, or the library's one-line error and exit 2. */
#include <stdio.h>
#include <island-trace.h>

struct count { long nodes, threads, io; };

static void on_node(void *ctx, struct trace_node *n) { ((struct count *)ctx)->nodes++; }
static void on_thread(void *ctx, struct trace_thread *t) { ((struct count *)ctx)->threads++; }
static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	((struct count *)ctx)->io++;
}

int main(int argc, char **argv)
{
	static const struct trace_ops ops = { .node = on_node, .thread = on_thread, .io = on_io };
	struct trace_run run = { 0 };
	struct count c = { 0 };

	if (argc < 2) {
		fprintf(stderr, "usage: tracecount TRACE...\n");
		return 2;
	}
	if (trace_read_try(&run, argv + 1, argc - 1, &ops, &c) < 0)
		return 2;
	trace_run_free(&run);
	printf("nodes %ld threads %ld io %ld\n", c.nodes, c.threads, c.io);
	return 0;
}
