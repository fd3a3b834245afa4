/* summary: how big the run was (nodes to sockets, its seconds, calls,
 * bytes, CPU time), and what was still alive at its end. */
#include "analyze.h"

#include <stdlib.h>

struct summary {
	long files, open_files, sockets, open_sockets;
	int64_t calls, bytes[TRACE_RES_N];
};

/* Bytes as sums counts them: a level="libc" call's transfers are its
 * system calls' (--syscalls), counted there. */
static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	struct summary *s = ctx;

	s->calls++;
	if (io->has_amount && !io->failed && !io->libc_only)
		s->bytes[io->res] += io->amount;
}

static void on_file(void *ctx, struct trace_node *n, const struct trace_file *f)
{
	struct summary *s = ctx;

	s->files++;
	s->open_files += f->open_at_end > 0;
}

static void on_socket(void *ctx, struct trace_node *n, const struct trace_socket *k)
{
	struct summary *s = ctx;

	s->sockets++;
	s->open_sockets += k->open_at_end;
}

static const struct coldef cols[] = {
	{ "item", COL_TEXT, 0 }, { "total", COL_NUM, 0 }, { "live_at_end", COL_INT, 0 },
};
const struct tabledef summary_tables[] = { TABLEDEF("summary", cols), { NULL } };

static void *summary_begin(struct trace_run *run)
{
	return xcalloc(1, sizeof(struct summary));
}

static void summary_end(void *st, struct trace_run *rp, char **files, int nfiles)
{
	struct summary s = *(struct summary *)st;
	struct trace_run run = *rp;	/* its nodes, processes, threads */
	struct table *t;
	long live_threads = 0, live_procs = 0;
	int64_t cpu = 0;
	char buf[64];

	free(st);
	/* a process is live at the end when one of its threads is (its
	 * complete="false" may also say the capture could not see all) */
	for (size_t i = 0; i < run.nprocs; i++)
		run.procs[i]->complete = true;
	for (size_t i = 0; i < run.nthreads; i++) {
		cpu += run.threads[i]->cpu;
		live_threads += !run.threads[i]->complete;
		if (!run.threads[i]->complete)
			run.threads[i]->proc->complete = false;
	}
	for (size_t i = 0; i < run.nprocs; i++)
		live_procs += !run.procs[i]->complete;
	t = table_new(&summary_tables[0]);
	table_addf(t, "nodes");
	table_addf(t, "%zu", run.nnodes);
	table_none(t, "");
	table_addf(t, "processes");
	table_addf(t, "%zu", run.nprocs);
	table_addf(t, "%ld", live_procs);
	table_addf(t, "threads");
	table_addf(t, "%zu", run.nthreads);
	table_addf(t, "%ld", live_threads);
	table_addf(t, "files");
	table_addf(t, "%ld", s.files);
	table_addf(t, "%ld", s.open_files);
	table_addf(t, "sockets");
	table_addf(t, "%ld", s.sockets);
	table_addf(t, "%ld", s.open_sockets);
	/* the run's size in time, calls and bytes */
	table_add(t, "run_s");
	table_add(t, fmt_secs(buf, sizeof(buf), run.nnodes ? run.t1 - run.t0 : 0));
	table_none(t, "");
	table_add(t, "calls");
	table_addf(t, "%lld", (long long)s.calls);
	table_none(t, "");
	static const struct { const char *name; enum trace_res res; } b[] = {
		{ "bytes_read", TRACE_RES_FILEREAD }, { "bytes_written", TRACE_RES_FILEWRITE },
		{ "bytes_sent", TRACE_RES_NETSEND }, { "bytes_received", TRACE_RES_NETRECV },
	};
	for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
		table_add(t, b[i].name);
		table_addf(t, "%lld", (long long)s.bytes[b[i].res]);
		table_none(t, "");
	}
	/* CPU time: the kernel's, as sums and utilization count it */
	table_add(t, "cpu_s");
	table_add(t, fmt_secs(buf, sizeof(buf), cpu));
	table_none(t, "");
	table_emit(t);
	if (!opt.csv && !opt.output)
		printf("note: cpu_s is the threads' CPU time (the kernel's, as sums' cpu); consumption's compute is\n"
		       "      wall-clock time outside calls\n");
}

static const struct trace_ops summary_ops = { .file = on_file, .socket = on_socket, .io = on_io };
const struct passdef summary_pass = { summary_begin, &summary_ops, summary_end, false, NULL };

int report_summary(int argc, char **argv)
{
	return pass_run(&summary_pass, argc, argv);
}
