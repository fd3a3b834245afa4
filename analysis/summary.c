/* summary: how big the run was, and what was still alive at its end. */
#include "analyze.h"

#include <stdlib.h>

struct summary {
	long files, open_files, sockets, open_sockets;
};

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
	{ "item", COL_TEXT, 0 }, { "total", COL_INT, 0 }, { "live_at_end", COL_INT, 0 },
};
const struct tabledef summary_tables[] = { TABLEDEF("summary", cols), { NULL } };

static void *summary_begin(struct trace_run *run)
{
	return xcalloc(1, sizeof(struct summary));
}

static void summary_end(void *st, struct trace_run *run, char **files, int nfiles)
{
	struct summary *s = st;
	struct table *t;
	long live_threads = 0, live_procs = 0;
	bool *live = xcalloc(run->nprocs + 1, sizeof(*live));

	/* a process is live at the end when one of its threads is (its
	 * complete="false" may also say the capture could not see all) */
	for (size_t i = 0; i < run->nthreads; i++) {
		live_threads += !run->threads[i]->complete;
		for (size_t k = 0; !run->threads[i]->complete && k < run->nprocs; k++)
			if (run->procs[k] == run->threads[i]->proc)
				live[k] = true;
	}
	for (size_t i = 0; i < run->nprocs; i++)
		live_procs += live[i];
	free(live);
	t = table_new(&summary_tables[0]);
	table_addf(t, "nodes");
	table_addf(t, "%zu", run->nnodes);
	table_none(t, "");
	table_addf(t, "processes");
	table_addf(t, "%zu", run->nprocs);
	table_addf(t, "%ld", live_procs);
	table_addf(t, "threads");
	table_addf(t, "%zu", run->nthreads);
	table_addf(t, "%ld", live_threads);
	table_addf(t, "files");
	table_addf(t, "%ld", s->files);
	table_addf(t, "%ld", s->open_files);
	table_addf(t, "sockets");
	table_addf(t, "%ld", s->sockets);
	table_addf(t, "%ld", s->open_sockets);
	table_emit(t);
	free(s);
}

static const struct trace_ops summary_ops = { .file = on_file, .socket = on_socket };
const struct passdef summary_pass = { summary_begin, &summary_ops, summary_end, false, NULL };

int report_summary(int argc, char **argv)
{
	return pass_run(&summary_pass, argc, argv);
}
