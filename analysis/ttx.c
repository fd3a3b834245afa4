/* ttx: time to completion (TTC: first start to last end), time to
 * execution (TTX: the union of all activity, so concurrent components are
 * not counted twice), the naive sum of the components' TTX, and per state
 * the overlap-aware total: the time in which at least one component was in
 * that state. Those totals do not add up to TTX (a moment can be in several
 * states at once, in different components), and the report says so.
 *
 * Components are threads (or nodes, --by node) of traces, with the
 * consumption categories as states, or the components of span files. The
 * trace form keeps every thread's state intervals, delta-encoded (a few
 * bytes each), since threads arrive one after the other. */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

static void ttx_alloc(struct ttx_result *r, size_t ncomps, size_t nstates)
{
	memset(r, 0, sizeof(*r));
	r->ncomps = ncomps;
	r->nstates = nstates;
	r->comp_ttx = xcalloc(ncomps + 1, sizeof(int64_t));
	r->comp_state = xcalloc(ncomps * nstates + 1, sizeof(int64_t));
	r->state_union = xcalloc(nstates + 1, sizeof(int64_t));
}

/* Spans keyed for a grouped union: sort by (key, start), then one sweep
 * merges each key's intervals. */
struct kivl {
	size_t key;
	int64_t start, end;
};

static int cmp_kivl(const void *a, const void *b)
{
	const struct kivl *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* out[key] = length of the union of the intervals with that key. */
static void grouped_union(struct kivl *v, size_t n, int64_t *out)
{
	size_t i = 0;

	qsort(v, n, sizeof(*v), cmp_kivl);
	while (i < n) {
		size_t key = v[i].key;
		int64_t rs = v[i].start, re = v[i].end, sum = 0;

		for (i++; i < n && v[i].key == key; i++) {
			if (v[i].start <= re) {
				if (v[i].end > re)
					re = v[i].end;
			} else {
				sum += re - rs;
				rs = v[i].start;
				re = v[i].end;
			}
		}
		out[key] += sum + re - rs;
	}
}

/* Four sorts and sweeps: O(n log n) whatever the number of components
 * and states. */
void ttx_spans(const struct spans *s, struct ttx_result *r)
{
	struct kivl *v = xmalloc((s->n + 1) * sizeof(*v));
	int64_t first = 0, last = 0;
	size_t i;

	ttx_alloc(r, s->ncomps, s->nstates);
	for (int pass = 0; pass < 4; pass++) {
		for (i = 0; i < s->n; i++) {
			size_t c = (size_t)s->v[i].comp, st = (size_t)s->v[i].state;

			v[i].key = pass == 0 ? c : pass == 1 ? c * s->nstates + st : pass == 2 ? st : 0;
			v[i].start = s->v[i].start;
			v[i].end = s->v[i].end;
		}
		grouped_union(v, s->n, pass == 0 ? r->comp_ttx : pass == 1 ? r->comp_state :
			      pass == 2 ? r->state_union : &r->ttx);
	}
	for (i = 0; i < s->ncomps; i++)
		r->naive += r->comp_ttx[i];
	for (i = 0; i < s->n; i++) {
		if (i == 0 || s->v[i].start < first)
			first = s->v[i].start;
		if (i == 0 || s->v[i].end > last)
			last = s->v[i].end;
	}
	r->ttc = last - first;
	free(v);
}

void ttx_result_free(struct ttx_result *r)
{
	free(r->comp_ttx);
	free(r->comp_state);
	free(r->state_union);
	memset(r, 0, sizeof(*r));
}

static const struct coldef cols[] = {
	{ "component", COL_TEXT, 0 }, { "TTX", COL_SECS, 0 }, { "STATE", COL_SECS, COL_PER },
};
const struct tabledef ttx_tables[] = { TABLEDEF("ttx", cols), { NULL } };

static void ttx_print(const struct ttx_result *r, char **comps, char **states)
{
	struct table *t;
	char buf[64];
	int64_t sum_union = 0;

	t = table_open(&ttx_tables[0], (const char *const *)states, r->nstates);
	for (size_t c = 0; c < r->ncomps; c++) {
		table_add(t, comps[c]);
		table_add(t, fmt_secs(buf, sizeof(buf), r->comp_ttx[c]));
		for (size_t k = 0; k < r->nstates; k++)
			table_add(t, fmt_secs(buf, sizeof(buf), r->comp_state[c * r->nstates + k]));
	}
	table_add(t, "sum (naive)");
	table_add(t, fmt_secs(buf, sizeof(buf), r->naive));
	for (size_t k = 0; k < r->nstates; k++) {
		int64_t s = 0;

		for (size_t c = 0; c < r->ncomps; c++)
			s += r->comp_state[c * r->nstates + k];
		table_add(t, fmt_secs(buf, sizeof(buf), s));
	}
	table_add(t, "overlap-aware");
	table_add(t, fmt_secs(buf, sizeof(buf), r->ttx));
	for (size_t k = 0; k < r->nstates; k++) {
		table_add(t, fmt_secs(buf, sizeof(buf), r->state_union[k]));
		sum_union += r->state_union[k];
	}
	table_add(t, "TTC");
	table_add(t, fmt_secs(buf, sizeof(buf), r->ttc));
	for (size_t k = 0; k < r->nstates; k++)
		table_none(t, "");
	table_emit(t);
	if (!opt.csv && !opt.output && !opt.table) {
		char a[64];

		printf("note: the state totals are overlap-aware; they add up to %s s against a TTX of %s s: additivity does not hold\n",
		       fmt_secs(a, sizeof(a), sum_union), fmt_secs(buf, sizeof(buf), r->ttx));
		/* which time compute is, for a trace's states */
		if (states == (char **)cat_names)
			printf("note: compute is wall-clock time outside calls, as consumption's; not CPU time (sums' cpu, summary's cpu_s)\n");
	}
}

/* Traces: one ilist per thread and category. */
struct ttx_thread {
	struct ilist l[CAT_N];
	int64_t first, last;	/* of what was selected, run's clock */
	bool any;
};

struct tx {
	struct thread_walk w;
	struct ttx_thread *cur;
};

static void sink(void *arg, enum cat c, int64_t s, int64_t e)
{
	struct ttx_thread *ts = arg;
	int64_t off = ts->l[c].off;

	ilist_add(&ts->l[c], s, e);
	if (!ts->any || s + off < ts->first)
		ts->first = s + off;
	if (!ts->any || e + off > ts->last)
		ts->last = e + off;
	ts->any = true;
}

static void on_thread(void *ctx, struct trace_thread *t)
{
	struct tx *x = ctx;

	x->cur = t->priv = xcalloc(1, sizeof(struct ttx_thread));
	for (int c = 0; c < CAT_N; c++)
		x->cur->l[c].off = t->node->off;
	walk_thread(&x->w, t);
	x->w.acct.sink = sink;
	x->w.acct.arg = x->cur;
}

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	walk_io(&((struct tx *)ctx)->w, t, io);
}

static void on_thread_end(void *ctx, struct trace_thread *t)
{
	walk_end(&((struct tx *)ctx)->w, t);
}

static void free_states(struct trace_run *run)
{
	for (size_t i = 0; i < run->nthreads; i++) {
		struct ttx_thread *ts = run->threads[i]->priv;

		for (int c = 0; c < CAT_N; c++)
			ilist_free(&ts->l[c]);
		free(ts);
	}
}

/* Read the traces, splitting receives at the peer's sends. The lists are
 * built in time order, so the sends must be known before: the first read
 * collects them while it accounts without them, and the traces are read
 * again only when a connection has both ends in the run (the lone trace
 * of a node, the common case, is read once). */
static void read_peered(struct trace_run *run, char **argv, int argc)
{
	static const struct trace_ops ops = {
		.thread = on_thread, .io = on_io, .thread_end = on_thread_end,
	};
	struct tx x = { 0 };
	struct peers *p = peers_new();

	filt.every_call = true;
	read_traces_peers(run, argv, argc, &ops, &x, p);
	if (peers_paired(p)) {
		free_states(run);
		run_free(run);
		memset(&x, 0, sizeof(x));
		x.w.peers = p;
		read_traces(run, argv, argc, &ops, &x);
	}
	peers_free(p);
}

#define TS(i) ((struct ttx_thread *)run->threads[i]->priv)

/* With a filter the activity is what was selected (filter_select()),
 * not the threads' lives: the union of their intervals, and TTC from the
 * first selected instant to the last. */
static void filtered_ttx(struct trace_run *run, struct ttx_result *r, const size_t *order,
			 const size_t *from, size_t nc)
{
	size_t nt = run->nthreads, k = 0;
	struct ilist **all;
	int64_t first = 0, last = 0;
	bool any = false;
	struct sel sel;

	filter_select(&sel, run->threads[0]->node);
	if (!sel.on)
		return;
	all = xcalloc(nt * CAT_N + 1, sizeof(*all));
	r->naive = 0;
	for (size_t c = 0; c < nc; c++) {
		k = 0;
		for (size_t j = from[c]; j < from[c + 1]; j++)
			for (int s = 0; s < CAT_N; s++)
				all[k++] = &TS(order[j])->l[s];
		r->comp_ttx[c] = ilist_union(all, k);
		r->naive += r->comp_ttx[c];
	}
	k = 0;
	for (size_t i = 0; i < nt; i++) {
		for (int s = 0; s < CAT_N; s++)
			all[k++] = &TS(i)->l[s];
		if (TS(i)->any && (!any || TS(i)->first < first))
			first = TS(i)->first;
		if (TS(i)->any && (!any || TS(i)->last > last))
			last = TS(i)->last;
		any |= TS(i)->any;
	}
	r->ttx = ilist_union(all, k);
	r->ttc = last - first;
	free(all);
}

static void ttx_traces(struct trace_run *run, struct ttx_result *r)
{
	size_t nt = run->nthreads, nc = opt.by_node ? run->nnodes : nt;
	struct ilist **lists = xcalloc(nt + 1, sizeof(*lists));
	struct kivl *kv = xcalloc(nt + 1, sizeof(*kv));
	size_t *order = xcalloc(nt + 1, sizeof(*order)), *from = xcalloc(nc + 2, sizeof(*from));
	int64_t first = 0, last = 0, all = 0;

	ttx_alloc(r, nc, CAT_N);
	/* threads bucketed by component: from[c] .. from[c + 1] in order */
	for (size_t i = 0; i < nt; i++)
		from[(opt.by_node ? (size_t)run->threads[i]->node->index : i) + 1]++;
	for (size_t c = 0; c < nc; c++)
		from[c + 1] += from[c];
	{
		size_t *fill = xcalloc(nc + 1, sizeof(*fill));

		for (size_t i = 0; i < nt; i++) {
			size_t c = opt.by_node ? (size_t)run->threads[i]->node->index : i;

			order[from[c] + fill[c]++] = i;
		}
		free(fill);
	}
	for (size_t i = 0; i < nt; i++) {
		struct trace_thread *t = run->threads[i];

		kv[i].key = opt.by_node ? (size_t)t->node->index : i;
		kv[i].start = t->start + t->node->off;
		kv[i].end = t->end + t->node->off;
		if (i == 0 || kv[i].start < first)
			first = kv[i].start;
		if (i == 0 || kv[i].end > last)
			last = kv[i].end;
	}
	r->ttc = last - first;
	grouped_union(kv, nt, r->comp_ttx);
	for (size_t c = 0; c < nc; c++)
		r->naive += r->comp_ttx[c];
	for (size_t i = 0; i < nt; i++)
		kv[i].key = 0;
	grouped_union(kv, nt, &all);
	r->ttx = all;
	for (int s = 0; s < CAT_N; s++) {
		for (size_t c = 0; c < nc; c++) {
			size_t k = 0;

			for (size_t j = from[c]; j < from[c + 1]; j++)
				lists[k++] = &((struct ttx_thread *)run->threads[order[j]]->priv)->l[s];
			r->comp_state[c * CAT_N + (size_t)s] = ilist_union(lists, k);
		}
		for (size_t i = 0; i < nt; i++)
			lists[i] = &((struct ttx_thread *)run->threads[i]->priv)->l[s];
		r->state_union[s] = ilist_union(lists, nt);
	}
	if (nt)
		filtered_ttx(run, r, order, from, nc);
	free(lists);
	free(kv);
	free(order);
	free(from);
}

/* Component names of a run: node, or node:tid:name. */
char **run_comp_names(struct trace_run *run, bool by_node)
{
	size_t n = by_node ? run->nnodes : run->nthreads;
	char **v = xcalloc(n ? n : 1, sizeof(*v));

	for (size_t i = 0; i < n; i++)
		v[i] = by_node ? xstrdup(run->nodes[i]->name)
			: xasprintf("%s:%ld:%s", run->threads[i]->node->name,
				    run->threads[i]->tid, run->threads[i]->name);
	return v;
}

/* Span files or traces, not both. */
bool all_span_files(int argc, char **argv)
{
	int spans = 0;

	for (int i = 0; i < argc; i++)
		spans += is_span_file(argv[i]);
	if (spans && spans != argc)
		die(2, "give either span files (.csv) or traces, not both");
	return spans > 0;
}

int report_ttx(int argc, char **argv)
{
	struct ttx_result r;

	if (all_span_files(argc, argv)) {
		struct spans s = { 0 };

		for (int i = 0; i < argc; i++)
			spans_read(&s, argv[i]);
		ttx_spans(&s, &r);
		ttx_print(&r, s.comps, s.states);
		spans_free(&s);
	} else {
		struct trace_run run = { 0 };
		char **names;
		size_t n;

		read_peered(&run, argv, argc);
		ttx_traces(&run, &r);
		names = run_comp_names(&run, opt.by_node);
		ttx_print(&r, names, (char **)cat_names);
		n = opt.by_node ? run.nnodes : run.nthreads;
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(names);
		free_states(&run);
		run_free(&run);
	}
	ttx_result_free(&r);
	return 0;
}
