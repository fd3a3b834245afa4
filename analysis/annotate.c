/*
 * deps --annotate FILE: the traces given, written as one trace with the
 * dependencies found as <wait> before the waiting I/O and <signal> after
 * the one waited for, which island-replay honours. A trace captured
 * outside a session has no I/O numbers: they are given as the capture
 * gives them (per node, file and network I/O, in order of completion).
 * Holds every I/O's start, end and number: memory proportional to I/Os.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "trace/xmlcopy.h"

struct aio {
	int64_t start, end;
	uint64_t seq;
};

struct anode {
	char *name;
	struct aio *io;
	size_t n, cap;
	int numbered;                /* the trace had seq already */
	struct adepx { uint64_t seq; const char *other; uint64_t oseq; } *w, *s;
	size_t nw, ns, cw, cs;
};

struct annot {
	struct anode *nodes;
	size_t n, cap;
};

/* The resources of an I/O a session numbers: fileread ... netmeta. */
static int is_io(const char *res)
{
	int r = res ? trace_res_from_name(res) : -1;
	return r >= 0 && r <= TRACE_RES_NETMETA;
}

static struct anode *anode(struct annot *a, const char *name)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->nodes[i].name, name))
			return &a->nodes[i];
	XGROW(a->nodes, a->cap, a->n + 1);
	struct anode *n = &a->nodes[a->n++];
	memset(n, 0, sizeof(*n));
	n->name = xstrdup(name);
	return n;
}

static int64_t sec_attr(const struct xmlcopy_io *io, const char *name)
{
	const char *v = xmlcopy_io_attr(io, name);
	int64_t ns = -1;

	if (v && parse_sec(v, &ns))
		ns = -1;
	return ns;
}

static int cmp_end(const void *x, const void *y)
{
	const struct aio *a = x, *b = y;
	return a->end < b->end ? -1 : a->end > b->end;
}

static int cmp_start(const void *x, const void *y)
{
	const struct aio *a = x, *b = y;
	return a->start < b->start ? -1 : a->start > b->start;
}

struct annot_scan {
	struct annot *a;
	struct anode *cur;
};

static void on_node(void *ctx, struct trace_node *n)
{
	struct annot_scan *sc = ctx;

	sc->cur = anode(sc->a, n->name);
}

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	struct anode *cur = ((struct annot_scan *)ctx)->cur;
	const struct trace_attr *seq = trace_io_attr(io, "seq");

	(void)t;
	if (!is_io(trace_res_names[io->res]))
		return;
	XGROW(cur->io, cur->cap, cur->n + 1);
	cur->io[cur->n++] = (struct aio){ io->start, io->end,
		seq ? strtoull(seq->value, NULL, 10) : 0 };
	if (seq)
		cur->numbered = 1;
}

/* Every I/O of every node, numbered; then sorted by start for lookups.
 * Whether every trace is complete. */
static bool scan(struct annot *a, char **files, int nfiles)
{
	static const struct trace_ops ops = { .node = on_node, .io = on_io };
	struct trace_run run = { 0 };
	struct annot_scan sc = { a, NULL };
	bool complete;

	trace_read(&run, files, nfiles, &ops, &sc);
	complete = !run.incomplete;
	trace_run_free(&run);
	for (size_t i = 0; i < a->n; i++) {
		struct anode *n = &a->nodes[i];
		if (!n->numbered) {
			qsort(n->io, n->n, sizeof(*n->io), cmp_end);
			for (size_t k = 0; k < n->n; k++)
				n->io[k].seq = k + 1;
		}
		qsort(n->io, n->n, sizeof(*n->io), cmp_start);
	}
	return complete;
}

static uint64_t seq_at(const struct anode *n, int64_t start)
{
	size_t lo = 0, hi = n->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (n->io[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n->n && n->io[lo].start == start ? n->io[lo].seq : 0;
}

static int cmp_dep(const void *x, const void *y)
{
	const struct adepx *a = x, *b = y;
	int c = a->seq < b->seq ? -1 : a->seq > b->seq;
	if (!c)
		c = strcmp(a->other, b->other);
	if (!c)
		c = a->oseq < b->oseq ? 1 : a->oseq > b->oseq ? -1 : 0;
	return c;
}

/* Keep one per (I/O, other node): the largest I/O waited for. */
static size_t normalise(struct adepx *d, size_t n)
{
	size_t k = 0;

	qsort(d, n, sizeof(*d), cmp_dep);
	for (size_t i = 0; i < n; i++)
		if (!k || d[k - 1].seq != d[i].seq || strcmp(d[k - 1].other, d[i].other))
			d[k++] = d[i];
	return k;
}

static uint64_t cur_seq(const struct xmlcopy_io *io, struct anode *n)
{
	uint64_t seq = xmlcopy_seq(io);

	if (!seq && n && is_io(xmlcopy_io_attr(io, "res")))
		seq = seq_at(n, sec_attr(io, "start"));
	return seq;
}

static void put_deps(struct xmlcopy *w, struct adepx *d, size_t nd, uint64_t seq, int wait)
{
	for (size_t i = 0; seq && i < nd; i++)
		if (d[i].seq == seq)
			xmlcopy_dep(w, wait, d[i].other, d[i].oseq);
}

static void h_before(void *ctx, struct xmlcopy *w, const struct xmlcopy_io *io, const char *node)
{
	struct anode *n = anode(ctx, node);
	put_deps(w, n->w, n->nw, cur_seq(io, n), 1);
}

static void h_attrs(void *ctx, struct xmlcopy *w, const struct xmlcopy_io *io, const char *node)
{
	struct anode *n = anode(ctx, node);
	char num[32];

	if (n->numbered)
		return;
	uint64_t seq = cur_seq(io, n);
	if (seq) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)seq);
		xmlcopy_attr(w, "seq", num);
	}
}

static void h_after(void *ctx, struct xmlcopy *w, const struct xmlcopy_io *io, const char *node)
{
	struct anode *n = anode(ctx, node);
	put_deps(w, n->s, n->ns, cur_seq(io, n), 0);
}

int annotate_write(const char *out, char **files, int nfiles,
		   const struct adep *deps, size_t ndeps)
{
	struct annot a = { 0 };
	int rc = 0;
	bool complete = scan(&a, files, nfiles);

	for (size_t k = 0; k < ndeps; k++) {
		anode(&a, deps[k].xnode);        /* both exist before either is */
		anode(&a, deps[k].tnode);        /* held: the array may move */
		struct anode *x = anode(&a, deps[k].xnode), *t = anode(&a, deps[k].tnode);
		uint64_t xs = seq_at(x, deps[k].xstart), tsq = seq_at(t, deps[k].tstart);
		if (!xs || !tsq)
			continue;       /* not an I/O of the traces (or not found) */
		XGROW(x->w, x->cw, x->nw + 1);
		x->w[x->nw++] = (struct adepx){ xs, t->name, tsq };
	}
	for (size_t i = 0; i < a.n; i++)
		a.nodes[i].nw = normalise(a.nodes[i].w, a.nodes[i].nw);
	for (size_t i = 0; i < a.n; i++)
		for (size_t k = 0; k < a.nodes[i].nw; k++) {
			struct adepx *d = &a.nodes[i].w[k];
			struct anode *t = anode(&a, d->other);
			XGROW(t->s, t->cs, t->ns + 1);
			t->s[t->ns++] = (struct adepx){ d->oseq, a.nodes[i].name, d->seq };
		}
	for (size_t i = 0; i < a.n; i++)
		a.nodes[i].ns = normalise(a.nodes[i].s, a.nodes[i].ns);

	struct xmlcopy *w = xmlcopy_start(out, compress_of(out), "island-analyze " ISLAND_VERSION,
					  complete);
	if (!w)
		die(2, "%s: cannot create:", out);
	struct xmlcopy_hooks h = { h_before, h_attrs, h_after, &a, NULL };
	for (int i = 0; i < nfiles && !rc; i++)
		rc = xmlcopy_nodes(w, files[i], &h);
	if (xmlcopy_end(w, rc) < 0) {
		if (rc)
			die(2, "%s: cannot write the annotated trace", out);
		die(2, "%s: cannot write the annotated trace:", out);
	}
	for (size_t i = 0; i < a.n; i++) {
		free(a.nodes[i].io);
		free(a.nodes[i].w);
		free(a.nodes[i].s);
		free(a.nodes[i].name);
	}
	free(a.nodes);
	return 0;
}
