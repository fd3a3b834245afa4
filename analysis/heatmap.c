/* heatmap: bytes and operations per time bin, per node and direction, by
 * Darshan's heatmap rules: at most 200 bins, the first 0.1 s wide, the
 * width doubling (adjacent bins merged) as the run grows, an operation's
 * bytes split across the bins it spans in proportion to its time there,
 * every node binned up to the one end of the run. The run's span is known
 * from the prescan, so the final width is chosen before streaming: the
 * bins are those Darshan's doubling ends with, filled in one pass.
 * The calls counted are those files counts (file reads and writes that
 * moved data, not a libc call already counted by its system calls), so
 * the bins add up to its bytes. An operation counts in the bin it starts
 * in. Memory: nodes x bins x 4 counters. */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

#define HEAT_FIRST_NS 100000000LL	/* 0.1 s */

static void grow_nodes(struct heatmap *h, size_t n)
{
	if (n <= h->nnodes)
		return;
	h->v = xrealloc(h->v, n * HEAT_MAXBINS * sizeof(*h->v));
	memset(h->v + h->nnodes * HEAT_MAXBINS, 0, (n - h->nnodes) * HEAT_MAXBINS * sizeof(*h->v));
	h->nnodes = n;
}

static void fix_window(struct heatmap *h, struct trace_run *run);

/* Twice as wide: each pair of adjacent bins merged, every node's. */
static void widen(struct heatmap *h)
{
	for (size_t n = 0; n < h->nnodes; n++) {
		struct heatbin *b = h->v + n * HEAT_MAXBINS;

		for (int i = 0; i < HEAT_MAXBINS / 2; i++)
			for (int d = 0; d < 2; d++) {
				b[i].ops[d] = b[2 * i].ops[d] + b[2 * i + 1].ops[d];
				b[i].bytes[d] = b[2 * i].bytes[d] + b[2 * i + 1].bytes[d];
			}
		memset(b + HEAT_MAXBINS / 2, 0, HEAT_MAXBINS / 2 * sizeof(*b));
	}
	h->width *= 2;
}

/* Bytes of [s, e) that lie before x, of amount spread evenly over it. */
static int64_t upto(int64_t amount, int64_t s, int64_t e, int64_t x)
{
	if (x <= s)
		return 0;
	if (x >= e)
		return amount;
	return (int64_t)((__int128)amount * (x - s) / (e - s));
}

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	struct heatmap *h = ctx;
	int d = io->res == TRACE_RES_FILEREAD ? 0 : io->res == TRACE_RES_FILEWRITE ? 1 : -1;
	int64_t s, e, span;

	if (d < 0 || !io->path || io->failed || io->libc_only || !io->has_amount)
		return;
	if (!h->based && filter_timed())	/* prescanned by the reader */
		fix_window(h, h->run);
	if (!h->based) {	/* the run's start as far as read: checked at the end */
		h->base = h->run->t0;
		h->based = true;
	}
	span = h->width * h->nbins;
	grow_nodes(h, (size_t)t->node->index + 1);
	s = io->start + t->node->off - h->base;
	e = io->end + t->node->off - h->base;
	if (s < 0)
		s = 0;
	if (e < s)
		e = s;
	if (h->fixed) {		/* a window, or a clock step: clamped to its edges */
		s = s > span ? span : s;
		e = e > span ? span : e;
	} else {
		while (e > h->width * HEAT_MAXBINS)
			widen(h);
	}
	struct heatbin *b = h->v + (size_t)t->node->index * HEAT_MAXBINS;
	int first = (int)(s / h->width), last = e > s ? (int)((e - 1) / h->width) : first;

	if (first >= HEAT_MAXBINS)
		first = HEAT_MAXBINS - 1;
	if (last >= HEAT_MAXBINS)
		last = HEAT_MAXBINS - 1;
	b[first].ops[d]++;
	if (last == first) {
		b[first].bytes[d] += io->amount;
		return;
	}
	/* cumulative shares: the pieces add up to amount exactly */
	for (int i = first; i <= last; i++)
		b[i].bytes[d] += upto(io->amount, s, e, i == last ? e : (int64_t)(i + 1) * h->width) -
				 upto(io->amount, s, e, (int64_t)i * h->width);
}

/* A window (--from, --to) is known before the reading (its prescan):
 * the width is the window's from the start. */
static void fix_window(struct heatmap *h, struct trace_run *run)
{
	int64_t lo = filt.has_from ? filt.from : 0, hi = run->t1 - run->t0;

	if (filt.has_to && filt.to < hi)
		hi = filt.to;
	if (hi < lo)
		hi = lo;
	h->base = run->t0 + lo;
	h->from = lo;
	h->based = h->fixed = true;
	while (h->width * HEAT_MAXBINS < hi - lo)
		h->width *= 2;
	h->nbins = (int)((hi - lo + h->width - 1) / h->width);
}

static void *heat_begin(struct trace_run *run)
{
	struct heatmap *h = xcalloc(1, sizeof(*h));

	h->run = run;
	h->width = HEAT_FIRST_NS;
	h->nbins = HEAT_MAXBINS;
	return h;
}

static const struct trace_ops heat_ops = { .io = on_io };

/* Streaming, the bins start at the run's start as known when the first
 * call came; a node read later that started earlier moved it: then read
 * again, the start known first (rare: traces are mostly in start order). */
static void heat_finish(struct heatmap *h, struct trace_run *run, char **files, int nfiles)
{
	if (!h->based && filter_timed())
		fix_window(h, run);
	if (!h->fixed && h->based && h->base != run->t0) {
		struct trace_run again = { 0 };
		struct heatmap *g;

		prescan(&again, files, nfiles);
		g = heat_begin(&again);
		fix_window(g, &again);
		read_traces(&again, files, nfiles, &heat_ops, g);
		free(h->v);
		*h = *g;
		h->run = run;
		free(g);
		run_free(&again);
	} else if (!h->fixed) {
		int64_t span = run->t1 - run->t0;

		while (h->width * HEAT_MAXBINS < span)
			widen(h);
		h->nbins = (int)((span + h->width - 1) / h->width);
		if (h->nbins < 1)
			h->nbins = 1;
		/* a call past the run's end (a clock step) counts in its last bin */
		for (size_t n = 0; n < h->nnodes; n++) {
			struct heatbin *b = h->v + n * HEAT_MAXBINS;

			for (int i = h->nbins; i < HEAT_MAXBINS; i++)
				for (int d = 0; d < 2; d++) {
					b[h->nbins - 1].ops[d] += b[i].ops[d];
					b[h->nbins - 1].bytes[d] += b[i].bytes[d];
				}
		}
	}
	if (h->nbins < 1)
		h->nbins = 1;
	grow_nodes(h, run->nnodes);
}

void heatmap_collect(char **files, int nfiles, struct trace_run *run, struct heatmap *h)
{
	struct heatmap *g = heat_begin(run);

	read_traces(run, files, nfiles, &heat_ops, g);
	heat_finish(g, run, files, nfiles);
	*h = *g;
	free(g);
}

void heatmap_free(struct heatmap *h)
{
	free(h->v);
	memset(h, 0, sizeof(*h));
}

static const struct coldef cols[] = {
	{ "node", COL_TEXT, 0 }, { "bin", COL_INT, 0 }, { "start_s", COL_SECS, 0 },
	{ "end_s", COL_SECS, 0 }, { "read_ops", COL_INT, 0 }, { "read_bytes", COL_INT, 0 },
	{ "write_ops", COL_INT, 0 }, { "write_bytes", COL_INT, 0 },
};
const struct tabledef heatmap_tables[] = { TABLEDEF("heatmap", cols), { NULL } };

static void heat_end(void *st, struct trace_run *run, char **files, int nfiles)
{
	struct heatmap *h = st;
	struct table *t;
	char buf[64];

	heat_finish(h, run, files, nfiles);
	t = table_new(&heatmap_tables[0]);
	for (size_t n = 0; n < run->nnodes; n++) {
		const struct heatbin *b = h->v + n * HEAT_MAXBINS;

		if (!filter_node(run->nodes[n]))
			continue;
		for (int i = 0; i < h->nbins; i++) {
			table_add(t, run->nodes[n]->name);
			table_addf(t, "%d", i);
			table_add(t, fmt_secs(buf, sizeof(buf), h->from + (int64_t)i * h->width));
			table_add(t, fmt_secs(buf, sizeof(buf), h->from + (int64_t)(i + 1) * h->width));
			table_addf(t, "%lld", (long long)b[i].ops[0]);
			table_addf(t, "%lld", (long long)b[i].bytes[0]);
			table_addf(t, "%lld", (long long)b[i].ops[1]);
			table_addf(t, "%lld", (long long)b[i].bytes[1]);
		}
	}
	table_emit(t);
	heatmap_free(h);
	free(h);
}

const struct passdef heatmap_pass = { heat_begin, &heat_ops, heat_end, false, NULL };

int report_heatmap(int argc, char **argv)
{
	return pass_run(&heatmap_pass, argc, argv);
}
