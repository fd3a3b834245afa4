/* calls: per call, as strace -c counts them, with fio's latency
 * percentiles: count, errors (and by errno), bytes, total, mean, p50, p90,
 * p99 and max seconds; --by node|thread|file|callsite|level splits each
 * call's row (level: the trace's level attribute, libc when it has none:
 * mpi, mpi-io and hdf5 above the calls they made, within them).
 * Percentiles come from log-linear histograms (hist.h: within 0.39 %).
 * Memory: one group per (key, call), a few KiB each. */
#include "analyze.h"
#include "hist.h"

#include <stdlib.h>
#include <string.h>

enum by { BY_CALL, BY_NODE, BY_THREAD, BY_FILE, BY_SITE, BY_LEVEL };

struct errcount {
	const char *name;	/* interned */
	int64_t n;
};

struct group {
	const char *api, *node, *path;	/* interned; node, path per --by */
	long tid;
	const struct trace_proc *proc;	/* --by thread: not part of the key */
	int64_t errors, bytes;
	struct errcount *errs;
	size_t nerrs, caperrs;
	struct hist lat;
};

struct calls {
	enum by by;
	struct group *v;
	size_t n, cap;		/* open addressing, cap a power of two */
};

static size_t hash(const struct group *g)
{
	size_t h = (uintptr_t)g->api >> 3;

	h = h * 31 + ((uintptr_t)g->node >> 3);
	h = h * 31 + ((uintptr_t)g->path >> 3);
	return h * 31 + (size_t)g->tid;
}

static bool same(const struct group *a, const struct group *b)
{
	return a->api == b->api && a->node == b->node && a->path == b->path &&
	       a->tid == b->tid;
}

static size_t slot(const struct calls *c, const struct group *key)
{
	size_t h = hash(key) & (c->cap - 1);

	while (c->v[h].api && !same(&c->v[h], key))
		h = (h + 1) & (c->cap - 1);
	return h;
}

static struct group *lookup(struct calls *c, const struct group *key)
{
	size_t h;

	if (c->n * 2 >= c->cap) {
		struct calls g = { .cap = c->cap ? c->cap * 2 : 64 };

		g.v = xcalloc(g.cap, sizeof(*g.v));
		for (size_t i = 0; i < c->cap; i++)
			if (c->v[i].api)
				g.v[slot(&g, &c->v[i])] = c->v[i];
		free(c->v);
		c->v = g.v;
		c->cap = g.cap;
	}
	h = slot(c, key);
	if (!c->v[h].api) {
		c->v[h] = *key;
		c->n++;
	}
	return &c->v[h];
}

static void count_error(struct group *g, const char *err)
{
	const char *name = intern(err ? err : "?");

	for (size_t i = 0; i < g->nerrs; i++)
		if (g->errs[i].name == name) {
			g->errs[i].n++;
			return;
		}
	XGROW(g->errs, g->caperrs, g->nerrs + 1);
	g->errs[g->nerrs++] = (struct errcount){ name, 1 };
}

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	struct calls *c = ctx;
	struct group key = { .api = io->api }, *g;	/* one pointer per name */

	switch (c->by) {
	case BY_CALL:
		break;
	case BY_NODE:
		key.node = intern(t->node->name);
		break;
	case BY_THREAD:
		key.node = intern(t->node->name);
		key.tid = t->tid;
		key.proc = t->proc;
		break;
	case BY_FILE:
		key.node = intern(t->node->name);
		key.path = intern(io->path ? io->path : "");
		break;
	case BY_SITE:
		key.path = site_label(t, io->site);
		break;
	case BY_LEVEL: {
		const struct trace_attr *lv = trace_io_attr(io, "level");
		key.path = intern(lv ? lv->value : "libc");
		break;
	}
	}
	g = lookup(c, &key);
	hist_add(&g->lat, io->end - io->start);
	if (io->failed) {
		g->errors++;
		count_error(g, io->err);
	}
	if (io->has_amount)
		g->bytes += io->amount;
}

/* Rows by the key's columns, then by total time, longest first (as
 * strace -c sorts). */
static enum by sort_by;
static int cmp_group(const void *x, const void *y)
{
	const struct group *a = x, *b = y;
	int r = 0;

	if (sort_by != BY_CALL && sort_by != BY_SITE && sort_by != BY_LEVEL)
		r = strcmp(a->node, b->node);
	if (!r && (sort_by == BY_SITE || sort_by == BY_LEVEL))
		r = strcmp(a->path, b->path);
	if (!r && sort_by == BY_THREAD)
		r = (a->tid > b->tid) - (a->tid < b->tid);
	if (!r && sort_by == BY_FILE)
		r = strcmp(a->path, b->path);
	if (!r)
		r = (a->lat.total < b->lat.total) - (a->lat.total > b->lat.total);
	return r ? r : strcmp(a->api, b->api);
}

static int cmp_err(const void *x, const void *y)
{
	const struct errcount *a = x, *b = y;

	return a->n != b->n ? (a->n < b->n) - (a->n > b->n) : strcmp(a->name, b->name);
}

/* Calls take from 100 ns up: CSV (--csv, -o DIR) to the nanosecond, the
 * text table to the microsecond. */
static char *secs(char *buf, size_t n, int64_t ns)
{
	return opt.csv || opt.output ? fmt_nsecs(buf, n, ns) : fmt_secs(buf, n, ns);
}

static void add_row(struct table *t, enum by by, struct group *g)
{
	static const double q[] = { 0.50, 0.90, 0.99 };
	char buf[64], *errs = xstrdup("");

	if (by == BY_LEVEL)
		table_add(t, g->path);
	if (by != BY_CALL && by != BY_SITE && by != BY_LEVEL)
		table_add(t, g->node);
	if (by == BY_THREAD) {
		table_addf(t, "%ld", g->proc ? g->proc->pid : 0L);
		table_add(t, proc_name(g->proc));
		table_addf(t, "%ld", g->tid);
	}
	if (by == BY_FILE || by == BY_SITE)
		table_add(t, g->path);
	table_add(t, g->api);
	table_addf(t, "%lld", (long long)g->lat.count);
	table_addf(t, "%lld", (long long)g->errors);
	if (g->nerrs > 1)	/* qsort(NULL, 0) is undefined (UBSan, ASAN=1) */
		qsort(g->errs, g->nerrs, sizeof(*g->errs), cmp_err);
	for (size_t i = 0; i < g->nerrs; i++) {
		char *s = xasprintf("%s%s%s:%lld", errs, i ? " " : "", g->errs[i].name,
				    (long long)g->errs[i].n);
		free(errs);
		errs = s;
	}
	table_add(t, errs);
	free(errs);
	table_addf(t, "%lld", (long long)g->bytes);
	table_add(t, secs(buf, sizeof(buf), g->lat.total));
	table_add(t, secs(buf, sizeof(buf), g->lat.total / (int64_t)g->lat.count));
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++)
		table_add(t, secs(buf, sizeof(buf), hist_quantile(&g->lat, q[i])));
	table_add(t, secs(buf, sizeof(buf), g->lat.max));
}

/* The key columns (per --by) are optional: table_with() names them. */
static const struct coldef cols[] = {
	{ "callsite", COL_TEXT, COL_OPT }, { "level", COL_TEXT, COL_OPT },
	{ "node", COL_TEXT, COL_OPT },
	{ "pid", COL_INT, COL_OPT }, { "process", COL_TEXT, COL_OPT },
	{ "tid", COL_INT, COL_OPT }, { "path", COL_TEXT, COL_OPT },
	{ "call", COL_TEXT, 0 }, { "count", COL_INT, 0 }, { "errors", COL_INT, 0 },
	{ "errnos", COL_TEXT, 0 }, { "bytes", COL_INT, 0 }, { "total_s", COL_SECS, 0 },
	{ "mean_s", COL_SECS, 0 }, { "p50_s", COL_SECS, 0 }, { "p90_s", COL_SECS, 0 },
	{ "p99_s", COL_SECS, 0 }, { "max_s", COL_SECS, 0 },
};
const struct tabledef calls_tables[] = { TABLEDEF("calls", cols), { NULL } };

/* The key columns of the rows, per --by. */
static void *calls_begin(struct trace_run *run)
{
	struct calls *c = xcalloc(1, sizeof(*c));

	if (!opt.by || !strcmp(opt.by, "call"))
		c->by = BY_CALL;
	else if (!strcmp(opt.by, "node"))
		c->by = BY_NODE;
	else if (!strcmp(opt.by, "thread"))
		c->by = BY_THREAD;
	else if (!strcmp(opt.by, "callsite"))
		c->by = BY_SITE;
	else if (!strcmp(opt.by, "level"))
		c->by = BY_LEVEL;
	else
		c->by = BY_FILE;
	return c;
}

static void calls_end(void *st, struct trace_run *run, char **files, int nfiles)
{
	struct calls *c = st;
	const char *hdr[6];
	int nh = 0;
	struct group *rows;
	size_t n = 0;
	struct table *t;

	if (c->by == BY_SITE)
		hdr[nh++] = "callsite";
	else if (c->by == BY_LEVEL)
		hdr[nh++] = "level";
	else if (c->by != BY_CALL)
		hdr[nh++] = "node";
	if (c->by == BY_THREAD) {
		hdr[nh++] = "pid";
		hdr[nh++] = "process";
		hdr[nh++] = "tid";
	}
	if (c->by == BY_FILE)
		hdr[nh++] = "path";
	hdr[nh] = NULL;
	t = table_with(&calls_tables[0], hdr);
	rows = xcalloc(c->n ? c->n : 1, sizeof(*rows));
	for (size_t i = 0; i < c->cap; i++)
		if (c->v[i].api)
			rows[n++] = c->v[i];
	sort_by = c->by;
	qsort(rows, n, sizeof(*rows), cmp_group);
	for (size_t i = 0; i < n; i++) {
		add_row(t, c->by, &rows[i]);
		hist_free(&rows[i].lat);
		free(rows[i].errs);
	}
	table_emit(t);
	free(rows);
	free(c->v);
	free(c);
}

static const struct trace_ops calls_ops = { .io = on_io };
const struct passdef calls_pass = { calls_begin, &calls_ops, calls_end, false, NULL };

int report_calls(int argc, char **argv)
{
	return pass_run(&calls_pass, argc, argv);
}
