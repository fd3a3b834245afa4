/* compare A B: two runs side by side, e.g. throttled and unthrottled:
 * sums, consumption (ALL threads) and region inclusive times, with the
 * absolute and relative difference B - A, which consumption category
 * grew most, and which resource to add first (see advise()). Each side is
 * read on its own (A and B may each be a merged multi-node trace). */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

struct side {
	struct trace_run run;
	struct sums sums;
	struct consumption all;
	struct rtree *rt;
	char **paths;
	int64_t *incl;
	size_t n, cap;
};

static void collect_paths(struct side *s, const struct rnode *n, const char *prefix)
{
	for (const struct rnode *c = n->child; c; c = c->next) {
		char *p = *prefix ? xasprintf("%s/%s", prefix, c->label) : xstrdup(c->label);

		XGROW(s->paths, s->cap, s->n + 1);
		s->incl = xrealloc(s->incl, s->cap * sizeof(*s->incl));
		s->paths[s->n] = p;
		s->incl[s->n++] = c->incl;
		collect_paths(s, c, p);
	}
}

static void load(struct side *s, char *file)
{
	struct trace_run r1 = { 0 }, r2 = { 0 };

	memset(s, 0, sizeof(*s));
	sums_collect(&file, 1, &s->run, &s->sums);
	struct cons_all ca;

	consumption_collect(&file, 1, &r1, NULL, &ca);
	s->all = ca.sum;	/* thread-seconds: a difference adds up */
	s->rt = regions_collect(&file, 1, &r2);
	collect_paths(s, rtree_root(s->rt), "");
	run_free(&r1);
	run_free(&r2);
}

static void unload(struct side *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->paths[i]);
	free(s->paths);
	free(s->incl);
	free(s->sums.node);
	rtree_free(s->rt);
	run_free(&s->run);
}

/* One row; seconds when is_time, else plain counts. */
static void row(struct table *t, const char *section, const char *metric,
		int64_t a, int64_t b, bool is_time)
{
	char buf[64];

	table_add(t, section);
	table_add(t, metric);
	if (is_time) {
		table_add(t, fmt_secs(buf, sizeof(buf), a));
		table_add(t, fmt_secs(buf, sizeof(buf), b));
		table_add(t, fmt_secs(buf, sizeof(buf), b - a));
	} else {
		table_addf(t, "%lld", (long long)a);
		table_addf(t, "%lld", (long long)b);
		table_addf(t, "%lld", (long long)(b - a));
	}
	if (a)
		table_addf(t, "%.2f", (double)(b - a) * 100.0 / (double)a);
	else
		table_none(t, b ? "new" : "-");
}

static const char *pct_change(int64_t a, int64_t b)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), "%+.2f%%", (double)(b - a) * 100.0 / (double)a);
	return buf;
}

static int64_t path_incl(const struct side *s, const char *path, bool *found)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->paths[i], path)) {
			*found = true;
			return s->incl[i];
		}
	*found = false;
	return 0;
}

/* The amount of work a resource's time bought: seconds of computing for
 * the CPU a restriction withheld, bytes for storage and network. */
typedef int64_t (*work_fn)(const struct side *s);

static int64_t work_cpu(const struct side *s)
{
	return s->all.cat[CAT_COMPUTE];
}

static int64_t work_file(const struct side *s)
{
	return s->sums.total[SUM_FILEREAD] + s->sums.total[SUM_FILEWRITE];
}

static int64_t work_net(const struct side *s)
{
	return s->sums.total[SUM_NETSEND] + s->sums.total[SUM_NETRECV];
}

/* What a category's growth asks for. The work scales B's time to A's
 * amount of work: a program that computes for a fixed wall time
 * computes less when stopped, and its stopped time then understates what
 * the restriction costs; time per unit of work does not. */
static const struct resource {
	const char *name, *why, *advice;
	enum cat cats[3];
	int ncats;
	work_fn work;		/* NULL: not scaled */
	const char *work_name;
} resources[] = {
	{ "CPU", "CPU restriction", "more CPU would help most",
	  { CAT_STOPPED }, 1, work_cpu, "computing" },
	{ "storage", "storage", "faster storage would help most",
	  { CAT_FILEREAD, CAT_FILEWRITE, CAT_FILEMETA }, 3, work_file, "data" },
	{ "network", "network", "more network bandwidth would help most",
	  { CAT_NETSEND, CAT_NETRECV }, 2, work_net, "data" },
	{ "no resource", "waiting on a peer",
	  "nothing to add; the peer's own time says why it was late",
	  { CAT_BLOCKED }, 1, NULL, NULL },
	{ "a faster CPU", "computing", "a faster CPU would help most",
	  { CAT_COMPUTE }, 1, NULL, NULL },
	{ "no resource", "sleeping", "nothing to add; the program asked to sleep",
	  { CAT_SLEEP }, 1, NULL, NULL },
};
#define NRESOURCES (sizeof(resources) / sizeof(resources[0]))

struct growth {
	const struct resource *r;
	int64_t raw;		/* B - A */
	int64_t scaled;		/* B's time for A's work, - A */
	bool is_scaled;
};

static void measure(const struct side *a, const struct side *b, const struct resource *r,
		    struct growth *g)
{
	int64_t ta = 0, tb = 0, wa = r->work ? r->work(a) : 0, wb = r->work ? r->work(b) : 0;

	for (int i = 0; i < r->ncats; i++) {
		ta += a->all.cat[r->cats[i]];
		tb += b->all.cat[r->cats[i]];
	}
	g->r = r;
	g->raw = tb - ta;
	g->is_scaled = wa > 0 && wb > 0 && wa != wb;
	/* in double: tb * wa overflows int64 on big traces; the cast of a
	 * double beyond int64 would be undefined */
	if (g->is_scaled) {
		double x = (double)tb * (double)wa / (double)wb - (double)ta;

		g->scaled = x >= 0x1p62 ? ((int64_t)1 << 62) : x <= -0x1p62 ? -((int64_t)1 << 62) :
			    (int64_t)x;
	} else {
		g->scaled = g->raw;
	}
}

static int by_growth(const void *x, const void *y)
{
	const struct growth *a = x, *b = y;

	return (a->scaled < b->scaled) - (a->scaled > b->scaled);
}

static void say(const struct growth *g, const char *lead)
{
	char buf[64], sc[64];

	printf("%s %s. B spent %s s more %s", lead, g->r->name,
	       fmt_secs(buf, sizeof(buf), g->raw), g->r->ncats > 1 ? "in " : "");
	for (int i = 0; i < g->r->ncats; i++)
		printf("%s%s", !i ? "" : i + 1 < g->r->ncats ? ", " : " and ", cat_names[g->r->cats[i]]);
	printf(" (%s", g->r->why);
	if (g->is_scaled)
		printf("; %s s more for as much %s as A", fmt_secs(sc, sizeof(sc), g->scaled),
		       g->r->work_name);
	printf("): %s.\n", g->r->advice);
}

/* Which resource to add first: the one whose categories grew most, for
 * the same work; then the others that grew. */
static void advise(const struct side *a, const struct side *b)
{
	struct growth g[NRESOURCES];
	size_t n = 0;

	for (size_t i = 0; i < NRESOURCES; i++) {
		measure(a, b, &resources[i], &g[n]);
		if (g[n].raw > 0 && g[n].scaled > 0)
			n++;
	}
	qsort(g, n, sizeof(*g), by_growth);
	if (!n) {
		printf("add first: nothing, no category grew.\n");
		return;
	}
	for (size_t i = 0; i < n; i++)
		say(&g[i], i ? "then:" : "add first:");
}

static const struct coldef cols[] = {
	{ "section", COL_TEXT, 0 }, { "metric", COL_TEXT, 0 }, { "a", COL_NUM, 0 },
	{ "b", COL_NUM, 0 }, { "diff", COL_NUM, COL_SIGNED },
	{ "pct_change", COL_PCT, COL_SIGNED },
};
const struct tabledef compare_tables[] = { TABLEDEF("compare", cols), { NULL } };

int report_compare(int argc, char **argv)
{
	struct side a, b;
	struct table *t;
	int best = -1;
	char buf[64];

	if (argc != 2)
		die(2, "compare: give exactly two traces, A and B");
	load(&a, argv[0]);
	load(&b, argv[1]);
	t = table_new(&compare_tables[0]);
	table_align(t, "llrrrr");
	for (int k = 0; k < SUM_N; k++)
		row(t, "sums", sum_names[k], a.sums.total[k], b.sums.total[k], k == SUM_CPU);
	row(t, "consumption", "live", a.all.live, b.all.live, true);
	for (int k = 0; k < CAT_N; k++) {
		row(t, "consumption", cat_names[k], a.all.cat[k], b.all.cat[k], true);
		if (b.all.cat[k] - a.all.cat[k] > 0 &&
		    (best < 0 || b.all.cat[k] - a.all.cat[k] > b.all.cat[best] - a.all.cat[best]))
			best = k;
	}
	for (size_t i = 0; i < a.n; i++) {
		bool found;
		int64_t v = path_incl(&b, a.paths[i], &found);

		row(t, "regions", a.paths[i], a.incl[i], v, true);
	}
	for (size_t i = 0; i < b.n; i++) {
		bool found;

		path_incl(&a, b.paths[i], &found);
		if (!found)
			row(t, "regions", b.paths[i], 0, b.incl[i], true);
	}
	table_emit(t);
	if (!opt.csv && !opt.output && !opt.table) {
		if (best >= 0)
			printf("grew most: %s, by %s s (%s)\n", cat_names[best],
			       fmt_secs(buf, sizeof(buf), b.all.cat[best] - a.all.cat[best]),
			       a.all.cat[best] ? pct_change(a.all.cat[best], b.all.cat[best]) : "new");
		else
			printf("grew most: no consumption category grew\n");
		advise(&a, &b);
	}
	unload(&a);
	unload(&b);
	return 0;
}
