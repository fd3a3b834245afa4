/* timeline: Island's timeline, one line per returned call (and with
 * --starts per "start call"), thread creation and destruction, and node
 * stops as "ALL Stopped <duration>", in time order across threads and
 * nodes. It holds every line in memory (24 bytes each) to sort them. */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

enum kind { K_STOP, K_CREATE, K_START, K_RETURN, K_DESTROY };

struct tl_event {
	int64_t t;		/* node time; aligned when printed */
	int64_t amount;		/* -1: none; a duration for stops and sleeps */
	int64_t dur;		/* a returned call's, else -1 */
	const char *api;
	const char *target;	/* path or peer (interned), or NULL */
	const char *pname;	/* the process's program then (procs.c) */
	int64_t fd;		/* -1: none */
	uint32_t seq;
	int32_t who;		/* thread index, or -1 - node index for stops */
	uint8_t kind, amount_is_time;
};

struct tl {
	struct tl_event *v;
	size_t n, cap;
	struct trace_run *run;
};

static void add(struct tl *tl, enum kind k, int32_t who, int64_t t,
		const char *api, int64_t amount, bool is_time)
{
	struct tl_event *e;

	XGROW(tl->v, tl->cap, tl->n + 1);
	e = &tl->v[tl->n];
	e->t = t;
	e->kind = (uint8_t)k;
	e->who = who;
	e->api = api;
	e->amount = amount;
	e->amount_is_time = is_time;
	e->dur = -1;
	e->target = NULL;
	e->pname = NULL;
	e->fd = -1;
	e->seq = (uint32_t)tl->n++;
}

static void on_thread(void *ctx, struct trace_thread *t)
{
	struct tl *tl = ctx;
	struct trace_node *n = t->node;

	/* The node's stops are known once its first thread begins. */
	if (n->nthreads == 1)
		for (size_t i = 0; i < n->nstops; i++)
			add(tl, K_STOP, -1 - n->index, n->stops[i].start, "Stopped",
			    n->stops[i].end - n->stops[i].start, true);
	add(tl, K_CREATE, t->index, t->start, "island_create_thread", -1, false);
	tl->v[tl->n - 1].pname = proc_name(t->proc);
}

static void on_thread_end(void *ctx, struct trace_thread *t)
{
	struct tl *tl = ctx;

	add(tl, K_DESTROY, t->index, t->end, "island_destroy_thread", -1, false);
	tl->v[tl->n - 1].pname = proc_name(t->proc);
}

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	struct tl *tl = ctx;
	const char *api = intern(io->api);
	const char *target = io->path ? io->path : io->peer ? io->peer : io->inpath;

	if (opt.starts)
		add(ctx, K_START, t->index, io->start, api, -1, false);
	if (io->has_amount)
		add(ctx, K_RETURN, t->index, io->end, api, io->amount, false);
	else if (io->has_req)
		add(ctx, K_RETURN, t->index, io->end, api, io->req, true);
	else
		add(ctx, K_RETURN, t->index, io->end, api, -1, false);
	for (size_t i = tl->n - 1 - opt.starts; i < tl->n; i++) {
		struct tl_event *e = &tl->v[i];

		e->target = target ? intern(target) : NULL;
		e->pname = proc_name(t->proc);
		e->fd = io->has_fd ? io->fd : -1;
	}
	tl->v[tl->n - 1].dur = io->end - io->start;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct tl_event *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

#define NC 11
static const struct coldef cols[NC] = {
	{ "TOC", COL_NUM, 0 }, { "node", COL_TEXT, 0 }, { "pid", COL_INT, 0 },
	{ "process", COL_TEXT, 0 }, { "tid", COL_INT, 0 },
	{ "thread", COL_TEXT, 0 }, { "API", COL_TEXT, 0 }, { "amount", COL_NUM, 0 },
	{ "dur_s", COL_SECS, 0 }, { "fd", COL_INT, 0 }, { "target", COL_TEXT, 0 },
};
const struct tabledef timeline_tables[] = { TABLEDEF("timeline", cols), { NULL } };

int report_timeline(int argc, char **argv)
{
	static const struct trace_ops ops = {
		.thread = on_thread, .thread_end = on_thread_end, .io = on_io,
	};
	struct trace_run run = { 0 };
	struct tl tl = { 0 };
	int64_t epoch0 = 0;
	size_t w[NC];
	char cells[NC][64], *cell[NC];

	tl.run = &run;
	read_traces(&run, argv, argc, &ops, &tl);
	/* Nodes without threads still show their stops. */
	for (size_t i = 0; i < run.nnodes; i++) {
		struct trace_node *n = run.nodes[i];

		if (n->nthreads == 0)
			for (size_t k = 0; k < n->nstops; k++)
				add(&tl, K_STOP, -1 - n->index, n->stops[k].start, "Stopped",
				    n->stops[k].end - n->stops[k].start, true);
		if (i == 0 || n->epoch < epoch0)
			epoch0 = n->epoch;
	}
	for (size_t i = 0; i < tl.n; i++) {
		struct tl_event *e = &tl.v[i];
		struct trace_node *n = e->who < 0 ? run.nodes[-1 - e->who] : run.threads[e->who]->node;

		e->t += n->epoch - epoch0;
	}
	qsort(tl.v, tl.n, sizeof(*tl.v), cmp_ev);
	bool csv;
	FILE *f = table_stream_open(&timeline_tables[0], NULL, 0, &csv);

	if (!f)
		goto done;

	/* Two passes: widths, then lines; no table of a million rows. A
	 * path or peer is printed whole (it is the last column). */
	for (int pass = 0; pass < 2; pass++) {
		if (csv && pass == 0)
			continue;	/* no widths; the header is written */
		for (int c = 0; c < NC; c++) {
			cell[c] = cells[c];
			if (pass == 0)
				w[c] = strlen(cols[c].name);
		}
		if (pass == 1 && !csv) {
			for (int c = 0; c < NC; c++)
				fprintf(f, c == 0 ? "%-*s" : "  %-*s", c < NC - 1 ? (int)w[c] : 0, cols[c].name);
			putc('\n', f);
		}
		size_t rows = tl.n < table_stream_limit() ? tl.n : table_stream_limit();

		for (size_t i = 0; i < rows; i++) {
			struct tl_event *e = &tl.v[i];
			struct trace_thread *t = e->who >= 0 ? run.threads[e->who] : NULL;
			struct trace_node *n = t ? t->node : run.nodes[-1 - e->who];
			const char *target = e->target ? e->target : "";
			int last = 0;

			fmt_sec(cell[0], e->t);
			snprintf(cell[1], 64, "%s", n->name);
			snprintf(cell[2], 64, t ? "%ld" : "", t ? t->proc->pid : 0);
			snprintf(cell[3], 64, "%s", t ? e->pname ? e->pname : proc_name(t->proc) : "");
			snprintf(cell[4], 64, t ? "%ld" : "", t ? t->tid : 0);
			snprintf(cell[5], 64, "%s", t ? t->name : "ALL");
			snprintf(cell[6], 64, e->kind == K_START ? "start call %s" : "%s", e->api);
			if (e->amount < 0)
				cell[7][0] = 0;
			else if (e->amount_is_time)
				fmt_sec(cell[7], e->amount);
			else
				snprintf(cell[7], 64, "%lld", (long long)e->amount);
			if (e->dur < 0)
				cell[8][0] = 0;
			else
				fmt_sec(cell[8], e->dur);
			snprintf(cell[9], 64, e->fd >= 0 ? "%lld" : "", (long long)e->fd);
			cell[10][0] = 0;
			for (int c = 0; c < NC; c++)
				if (c == NC - 1 ? *target : cell[c][0])
					last = c;
			for (int c = 0; c < NC; c++) {
				const char *v = c == NC - 1 ? target : cell[c];
				size_t len = strlen(v);

				if (pass == 0) {
					if (len > w[c])
						w[c] = len;
				} else if (csv) {
					csv_field(f, v);
					putc(c < NC - 1 ? ',' : '\n', f);
				} else if (c == last) {
					fprintf(f, c ? "  %*s\n" : "%*s\n",
						cols[c].kind == COL_TEXT ? 0 : (int)w[c], v);
					break;
				} else {
					fprintf(f, c == 0 ? "%*s" : cols[c].kind != COL_TEXT ? "  %*s" : "  %-*s",
						(int)w[c], v);
				}
			}
		}
	}
	table_stream_close(f);
done:
	free(tl.v);
	run_free(&run);
	return 0;
}
