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

#define HEAT_MAXBINS 200
#define HEAT_FIRST_NS 100000000LL	/* 0.1 s */

static void grow_nodes(struct heatmap *h, size_t n)
{
	if (n <= h->nnodes)
		return;
	h->v = xrealloc(h->v, n * (size_t)h->nbins * sizeof(*h->v));
	memset(h->v + h->nnodes * (size_t)h->nbins, 0,
	       (n - h->nnodes) * (size_t)h->nbins * sizeof(*h->v));
	h->nnodes = n;
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
	int64_t off = t->node->off - h->base, s, e, span = h->width * h->nbins;

	if (d < 0 || !io->path || io->failed || io->libc_only || !io->has_amount)
		return;
	grow_nodes(h, (size_t)t->node->index + 1);
	struct heatbin *b = h->v + (size_t)t->node->index * (size_t)h->nbins;
	/* outside the bins (a window, a clock step): clamped to the edge */
	s = io->start + off;
	e = io->end + off;
	s = s < 0 ? 0 : s > span ? span : s;
	e = e < s ? s : e > span ? span : e;
	int first = (int)(s / h->width), last = e > s ? (int)((e - 1) / h->width) : first;

	if (first >= h->nbins)
		first = h->nbins - 1;
	if (last >= h->nbins)
		last = h->nbins - 1;
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

void heatmap_collect(char **files, int nfiles, struct trace_run *run, struct heatmap *h)
{
	static const struct trace_ops ops = { .io = on_io };
	int64_t lo, hi;

	memset(h, 0, sizeof(*h));
	prescan(run, files, nfiles);
	/* the window: the run, or --from/--to's part of it */
	lo = filt.has_from ? filt.from : 0;
	hi = run->t1 - run->t0;
	if (filt.has_to && filt.to < hi)
		hi = filt.to;
	if (hi < lo)
		hi = lo;
	h->base = run->t0 + lo;
	h->width = HEAT_FIRST_NS;
	while (h->width * HEAT_MAXBINS < hi - lo)
		h->width *= 2;
	h->nbins = (int)((hi - lo + h->width - 1) / h->width);
	if (h->nbins < 1)
		h->nbins = 1;
	h->from = lo;
	read_traces(run, files, nfiles, &ops, h);
	grow_nodes(h, run->nnodes);
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

int report_heatmap(int argc, char **argv)
{
	struct trace_run run = { 0 };
	struct heatmap h;
	struct table *t;
	char buf[64];

	heatmap_collect(argv, argc, &run, &h);
	t = table_new(&heatmap_tables[0]);
	for (size_t n = 0; n < run.nnodes; n++) {
		const struct heatbin *b = h.v + n * (size_t)h.nbins;

		if (!filter_node(run.nodes[n]))
			continue;
		for (int i = 0; i < h.nbins; i++) {
			table_add(t, run.nodes[n]->name);
			table_addf(t, "%d", i);
			table_add(t, fmt_secs(buf, sizeof(buf), h.from + (int64_t)i * h.width));
			table_add(t, fmt_secs(buf, sizeof(buf), h.from + (int64_t)(i + 1) * h.width));
			table_addf(t, "%lld", (long long)b[i].ops[0]);
			table_addf(t, "%lld", (long long)b[i].bytes[0]);
			table_addf(t, "%lld", (long long)b[i].ops[1]);
			table_addf(t, "%lld", (long long)b[i].bytes[1]);
		}
	}
	table_emit(t);
	heatmap_free(&h);
	run_free(&run);
	return 0;
}
