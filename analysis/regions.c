/* regions: the regions the application marked (island_begin/island_end),
 * aggregated over threads into one tree by label path: count, inclusive
 * time, exclusive time (inclusive minus the children's inclusive) and %
 * of the parent's inclusive. The root, ALL, is the threads' live time, so
 * its exclusive time is the time outside any region.
 * Memory: the regions of one thread at a time (a parent is written after
 * its children), and the tree. */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

struct thread_region {
	long id, parent;
	const char *label;
	int64_t dur;
};

struct rtree {
	struct rnode root;
	struct thread_region *v;
	size_t n, cap;
	struct rnode **at;	/* tree node of v[i], same order */
	size_t capat;
	long errors;		/* regions not closed properly */
};

struct rtree *rtree_new(void)
{
	struct rtree *rt = xcalloc(1, sizeof(*rt));

	rt->root.label = xstrdup("ALL");
	return rt;
}

struct rnode *rtree_root(struct rtree *rt)
{
	return &rt->root;
}

void rtree_thread_region(struct rtree *rt, struct trace_thread *t, const struct trace_region *r)
{
	XGROW(rt->v, rt->cap, rt->n + 1);
	rt->v[rt->n].id = r->id;
	rt->v[rt->n].parent = r->parent;
	rt->v[rt->n].label = intern(r->label);
	rt->v[rt->n].dur = r->end - r->start;
	rt->n++;
	rt->errors += r->error != NULL;
}

static int cmp_id(const void *a, const void *b)
{
	const struct thread_region *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static struct rnode *child(struct rnode *p, const char *label)
{
	struct rnode **pp = &p->child;

	for (; *pp; pp = &(*pp)->next)
		if ((*pp)->label == label || !strcmp((*pp)->label, label))
			return *pp;
	*pp = xcalloc(1, sizeof(**pp));
	(*pp)->label = (char *)label;
	(*pp)->parent = p;
	(*pp)->depth = p->depth + 1;
	return *pp;
}

/* In id order a parent comes before its children (ids follow
 * island_begin), so each region finds its parent's tree node. */
void rtree_thread_end(struct rtree *rt, struct trace_thread *t)
{
	rt->root.count++;
	rt->root.incl += t->end - t->start;
	if (rt->n)
		qsort(rt->v, rt->n, sizeof(*rt->v), cmp_id);
	XGROW(rt->at, rt->capat, rt->n + 1);
	for (size_t i = 0; i < rt->n; i++) {
		struct thread_region *r = &rt->v[i], key = { .id = r->parent };
		struct thread_region *p = r->parent ?
			bsearch(&key, rt->v, i, sizeof(*rt->v), cmp_id) : NULL;
		struct rnode *pn = p ? rt->at[p - rt->v] : &rt->root;
		struct rnode *n = child(pn, r->label);

		n->count++;
		n->incl += r->dur;
		rt->at[i] = n;
	}
	rt->n = 0;
}

static void finish(struct rnode *n)
{
	n->excl = n->incl;
	for (struct rnode *c = n->child; c; c = c->next) {
		finish(c);
		n->excl -= c->incl;
	}
}

static void free_nodes(struct rnode *n)
{
	struct rnode *c = n->child, *next;

	for (; c; c = next) {
		next = c->next;
		free_nodes(c);
		free(c);
	}
}

void rtree_free(struct rtree *rt)
{
	free_nodes(&rt->root);
	free(rt->root.label);
	free(rt->v);
	free(rt->at);
	free(rt);
}

static void on_region(void *ctx, struct trace_thread *t, const struct trace_region *r)
{
	rtree_thread_region(ctx, t, r);
}

static void on_thread_end(void *ctx, struct trace_thread *t)
{
	rtree_thread_end(ctx, t);
}

struct rtree *regions_collect(char **files, int nfiles, struct trace_run *run)
{
	static const struct trace_ops ops = {
		.region = on_region, .thread_end = on_thread_end,
	};
	struct rtree *rt = rtree_new();

	read_traces(run, files, nfiles, &ops, rt);
	finish(&rt->root);
	return rt;
}

/* "a/b/c": the label path below ALL, for CSV where indentation is lost. */
static char *path_of(const struct rnode *n)
{
	char *p, *q;

	if (!n->parent || !n->parent->parent)
		return xstrdup(n->label);
	q = path_of(n->parent);
	p = xasprintf("%s/%s", q, n->label);
	free(q);
	return p;
}

static void row(struct table *t, const struct rnode *n, int indent)
{
	char buf[64];

	if (opt.csv || opt.output) {
		char *p = path_of(n);

		table_add(t, p);
		free(p);
	} else {
		table_addf(t, "%*s%s", 2 * indent, "", n->label);
	}
	table_addf(t, "%d", n->depth);
	table_addf(t, "%ld", n->count);
	table_add(t, fmt_secs(buf, sizeof(buf), n->incl));
	table_add(t, fmt_secs(buf, sizeof(buf), n->excl));
	if (n->parent)
		table_pct(t, (double)n->incl, (double)n->parent->incl);
	else
		table_add(t, "100.00");
}

static void subtree(struct table *t, const struct rnode *n, int indent)
{
	if (opt.depth >= 0 && n->depth > opt.depth)
		return;
	row(t, n, indent);
	for (const struct rnode *c = n->child; c; c = c->next)
		subtree(t, c, indent + 1);
}

/* --label: the subtrees of the nodes so labelled; --children-of: their
 * children only. */
static void select_rows(struct table *t, const struct rnode *n)
{
	const char *want = opt.label ? opt.label : opt.children_of;

	if (!strcmp(n->label, want) && n->parent) {
		if (opt.label)
			subtree(t, n, 0);
		else
			for (const struct rnode *c = n->child; c; c = c->next)
				row(t, c, 0);
	}
	for (const struct rnode *c = n->child; c; c = c->next)
		select_rows(t, c);
}

static const struct coldef cols[] = {
	{ "region", COL_TEXT, 0 }, { "depth", COL_INT, 0 }, { "count", COL_INT, 0 },
	{ "inclusive", COL_SECS, 0 }, { "exclusive", COL_SECS, 0 }, { "pct_parent", COL_PCT, 0 },
};
const struct tabledef regions_tables[] = { TABLEDEF("regions", cols), { NULL } };

int report_regions(int argc, char **argv)
{
	struct trace_run run = { 0 };
	struct rtree *rt;
	struct table *t = table_new(&regions_tables[0]);

	filter_rows_not_calls();
	rt = regions_collect(argv, argc, &run);

	if (rt->errors)
		warnx("warning: %ld region%s not closed properly (error=unclosed or mismatch)",
		      rt->errors, rt->errors > 1 ? "s were" : " was");
	if (opt.label || opt.children_of)
		select_rows(t, &rt->root);
	else
		subtree(t, &rt->root, 0);
	table_emit(t);
	rtree_free(rt);
	run_free(&run);
	return 0;
}
