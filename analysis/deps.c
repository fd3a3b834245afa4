/*
 * deps: the dependencies the causality engine found (<wait> elements):
 * node X's I/O j was not issued before node T's I/O k completed. As a
 * table, as a Graphviz graph (--dot), and against ground truth (--truth):
 * precision is the share of found dependencies that hold in the truth's
 * happens-before order (program order plus the true edges); recall the
 * share of true edges that the found ones imply; recall within P (--within,
 * for a sampling period P) the share implied to within P I/Os of the
 * sender, which is what throttling every P-th I/O can promise.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "validate.h"
#include "net.h"
#include "mpideps.h"

const char *deps_from = "trace";
const char *deps_annotate;

struct ioname {
	const char *api, *target;
	int64_t start;               /* node time, for --annotate */
	int64_t end;                 /* node time, for the critical path */
};

struct dep_edge {
	int x, t;                    /* node indexes */
	uint64_t xseq, tseq;
	const char *origin;          /* a wait's origin="...", NULL not said */
	bool unsure;                 /* certain="no" */
	bool calls;                  /* the MPI level's: x's call ended after
					t's began (else x's io began after t's
					ended) */
};

struct seqname {
	uint64_t seq;
	struct ioname io;
};

struct nodeios {
	const char *name;
	struct ioname *io;           /* by seq - 1, made by by_seq() */
	size_t n;
	struct seqname *rec;         /* as read: a seq costs its record, */
	size_t nrec, caprec;         /* however large (no array by seq yet) */
	size_t pending;              /* waits seen, not yet followed by an io */
	bool timed;                  /* start, end, off known (a node of the run) */
	int64_t start, end, off;     /* run time = node time + off */
};

struct deps {
	struct nodeios *nodes;
	size_t nnodes, cap;
	struct dep_edge *e;
	size_t ne, ecap;
};

static int node_index(struct deps *d, const char *name)
{
	for (size_t i = 0; i < d->nnodes; i++)
		if (!strcmp(d->nodes[i].name, name))
			return (int)i;
	XGROW(d->nodes, d->cap, d->nnodes + 1);
	memset(&d->nodes[d->nnodes], 0, sizeof(d->nodes[0]));
	d->nodes[d->nnodes].name = intern(name);
	return (int)d->nnodes++;
}

static void on_dep(void *ctx, struct trace_thread *t, const struct trace_dep *el)
{
	struct deps *d = ctx;

	if (!el->wait)
		return;             /* signals mirror the waits */
	int x = node_index(d, t->node->name), tn = node_index(d, el->node);
	XGROW(d->e, d->ecap, d->ne + 1);
	d->e[d->ne++] = (struct dep_edge){ x, tn, 0, (uint64_t)el->seq,
				       el->origin ? intern(el->origin) : NULL, el->unsure,
				       false };
	d->nodes[x].pending++;
}

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	struct deps *d = ctx;
	const struct trace_attr *sa = trace_io_attr(io, "seq");
	uint64_t seq = sa ? strtoull(sa->value, NULL, 10) : 0;

	if (!seq)
		return;
	int x = node_index(d, t->node->name);
	struct nodeios *n = &d->nodes[x];
	XGROW(n->rec, n->caprec, n->nrec + 1);
	n->rec[n->nrec++] = (struct seqname){ seq, { intern(io->api),
		intern(io->path ? io->path : io->peer ? io->peer : ""), io->start, io->end } };
	/* the waits just before this io are its own */
	for (size_t k = d->ne; n->pending && k-- > 0;)
		if (d->e[k].x == x && !d->e[k].xseq) {
			d->e[k].xseq = seq;
			n->pending--;
		}
}

/* A trace's seqs number each node's I/O from 1: one past its count of
 * numbered I/O, or a wait for one, is a bad trace, refused before an array
 * of that size is made (a huge seq cost gigabytes). */
static void seqs_check(struct deps *d)
{
	char msg[256];

	for (size_t i = 0; i < d->nnodes; i++) {
		struct nodeios *n = &d->nodes[i];

		for (size_t k = 0; k < n->nrec; k++)
			if (n->rec[k].seq > n->nrec) {
				validate_seq_range(n->name, n->rec[k].seq, n->nrec, msg, sizeof(msg));
				die(2, "%s", msg);
			}
	}
	for (size_t k = 0; k < d->ne; k++)
		if (d->e[k].tseq > d->nodes[d->e[k].t].nrec) {
			validate_wait_range(d->nodes[d->e[k].t].name, d->e[k].tseq,
					    d->nodes[d->e[k].t].nrec, msg, sizeof(msg));
			die(2, "%s", msg);
		}
}

/* The records by seq, once all are read (their seqs checked). */
static void by_seq(struct deps *d)
{
	for (size_t i = 0; i < d->nnodes; i++) {
		struct nodeios *n = &d->nodes[i];

		free(n->io);
		n->n = 0;
		for (size_t k = 0; k < n->nrec; k++)
			if (n->rec[k].seq > n->n)
				n->n = n->rec[k].seq;
		n->io = xmalloc((n->n + 1) * sizeof(*n->io));
		for (size_t k = 0; k < n->n; k++)
			n->io[k] = (struct ioname){ "?", "", 0, 0 };
		for (size_t k = 0; k < n->nrec; k++)
			n->io[n->rec[k].seq - 1] = n->rec[k].io;
	}
}

static const struct ioname *ioname(struct deps *d, int node, uint64_t seq)
{
	static const struct ioname none = { "?", "", 0, 0 };
	struct nodeios *n = &d->nodes[node];

	return seq >= 1 && seq <= n->n ? &n->io[seq - 1] : &none;
}

/* --- happens-before by vector clocks ------------------------------------ */

/* vc[node][seq] is a vector over nodes: the highest I/O of each node that
 * happens before or at that I/O. Relaxed to a fixpoint; each pass follows
 * one more cross-node hop. */
struct vclock {
	size_t nn;
	size_t *len;                 /* I/Os per node */
	uint64_t **vc;               /* [node][seq * nn + other] */
};

static int cmp_edge_x(const void *a, const void *b)
{
	const struct dep_edge *p = a, *q = b;
	if (p->x != q->x)
		return p->x - q->x;
	return p->xseq < q->xseq ? -1 : p->xseq > q->xseq;
}

static void vc_build(struct vclock *v, struct deps *d, struct dep_edge *e, size_t ne)
{
	v->nn = d->nnodes;
	v->len = xcalloc(v->nn, sizeof(size_t));
	v->vc = xcalloc(v->nn, sizeof(uint64_t *));
	for (size_t i = 0; i < ne; i++) {        /* truth may name more I/Os */
		/* but not more than it has lines: the vectors are by seq */
		if (e[i].xseq > d->nodes[e[i].x].n + ne || e[i].tseq > d->nodes[e[i].t].n + ne)
			die(2, "an edge names I/O %llu of node %s, which has %zu",
			    (unsigned long long)(e[i].xseq > d->nodes[e[i].x].n + ne ?
						 e[i].xseq : e[i].tseq),
			    d->nodes[e[i].xseq > d->nodes[e[i].x].n + ne ? e[i].x : e[i].t].name,
			    d->nodes[e[i].xseq > d->nodes[e[i].x].n + ne ? e[i].x : e[i].t].n);
		if (e[i].xseq > d->nodes[e[i].x].n)
			d->nodes[e[i].x].n = e[i].xseq;
		if (e[i].tseq > d->nodes[e[i].t].n)
			d->nodes[e[i].t].n = e[i].tseq;
	}
	for (size_t i = 0; i < v->nn; i++) {
		v->len[i] = d->nodes[i].n;
		v->vc[i] = xcalloc((v->len[i] + 1) * v->nn, sizeof(uint64_t));
	}
	qsort(e, ne, sizeof(*e), cmp_edge_x);
	for (int changed = 1; changed;) {
		changed = 0;
		size_t k = 0;
		for (size_t x = 0; x < v->nn; x++) {
			for (uint64_t j = 1; j <= v->len[x]; j++) {
				uint64_t *cur = &v->vc[x][j * v->nn], *prev = &v->vc[x][(j - 1) * v->nn];
				for (size_t o = 0; o < v->nn; o++)
					if (prev[o] > cur[o])
						cur[o] = prev[o], changed = 1;
				if (cur[x] < j)
					cur[x] = j, changed = 1;
				while (k < ne && ((size_t)e[k].x < x ||
						  ((size_t)e[k].x == x && e[k].xseq < j)))
					k++;
				for (size_t q = k; q < ne && (size_t)e[q].x == x && e[q].xseq == j; q++) {
					if (e[q].tseq > v->len[e[q].t])
						continue;
					uint64_t *src = &v->vc[e[q].t][e[q].tseq * v->nn];
					for (size_t o = 0; o < v->nn; o++)
						if (src[o] > cur[o])
							cur[o] = src[o], changed = 1;
				}
			}
		}
	}
}

/* Does T's I/O k happen before X's I/O j? */
static int vc_before(const struct vclock *v, int t, uint64_t k, int x, uint64_t j)
{
	if (j == 0 || j > v->len[x])
		return 0;
	return v->vc[x][j * v->nn + (size_t)t] >= k;
}

static void vc_free(struct vclock *v)
{
	for (size_t i = 0; i < v->nn; i++)
		free(v->vc[i]);
	free(v->vc);
	free(v->len);
}

/* Ground truth: lines "X J T K" in a file, or in every truth.* file of a
 * directory. */
static void truth_file(struct deps *d, const char *path, struct dep_edge **e,
		       size_t *ne, size_t *cap)
{
	FILE *f = fopen(path, "r");
	char line[512], x[128], t[128];
	unsigned long long j, k;
	long ln = 0;

	if (!f)
		die(2, "%s:", path);
	while (fgets(line, sizeof(line), f)) {
		ln++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%127s %llu %127s %llu", x, &j, t, &k) != 4 || !j || !k)
			die_at(2, path, ln, "expected 'NODE IO NODE IO'");
		XGROW(*e, *cap, *ne + 1);
		(*e)[(*ne)++] = (struct dep_edge){ node_index(d, x), node_index(d, t), j, k, NULL, false, false };
	}
	fclose(f);
}

static void read_truth(struct deps *d, const char *path, struct dep_edge **e, size_t *ne)
{
	size_t cap = 0;
	DIR *dir = opendir(path);

	*e = NULL;
	*ne = 0;
	if (!dir) {
		truth_file(d, path, e, ne, &cap);
		return;
	}
	struct dirent *de;
	while ((de = readdir(dir)))
		if (!strncmp(de->d_name, "truth.", 6)) {
			char *p = xasprintf("%s/%s", path, de->d_name);
			truth_file(d, p, e, ne, &cap);
			free(p);
		}
	closedir(dir);
}

static void print_dot(struct deps *d)
{
	printf("digraph deps {\n\trankdir=LR;\n\tnode [shape=box, fontsize=10];\n");
	for (size_t i = 0; i < d->nnodes; i++) {
		printf("\tsubgraph \"cluster_%s\" {\n\t\tlabel=\"%s\";\n", d->nodes[i].name,
		       d->nodes[i].name);
		const char *prev = NULL;
		uint64_t prevseq = 0;
		for (uint64_t s = 1; s <= d->nodes[i].n; s++) {
			int used = 0;
			for (size_t k = 0; k < d->ne; k++)
				if (((size_t)d->e[k].x == i && d->e[k].xseq == s) ||
				    ((size_t)d->e[k].t == i && d->e[k].tseq == s))
					used = 1;
			if (!used)
				continue;
			printf("\t\t\"%s:%llu\" [label=\"%llu %s\"];\n", d->nodes[i].name,
			       (unsigned long long)s, (unsigned long long)s,
			       ioname(d, (int)i, s)->api);
			if (prev)
				printf("\t\t\"%s:%llu\" -> \"%s:%llu\" [style=dotted];\n", prev,
				       (unsigned long long)prevseq, d->nodes[i].name,
				       (unsigned long long)s);
			prev = d->nodes[i].name;
			prevseq = s;
		}
		printf("\t}\n");
	}
	for (size_t k = 0; k < d->ne; k++)
		printf("\t\"%s:%llu\" -> \"%s:%llu\";\n", d->nodes[d->e[k].t].name,
		       (unsigned long long)d->e[k].tseq, d->nodes[d->e[k].x].name,
		       (unsigned long long)d->e[k].xseq);
	printf("}\n");
}

/* Its tables: the waits (--from trace), the messages (--from net), both
 * (--from both), and how they measure against the truth or each other. */
#define EDGE_COLS \
	{ "node", COL_TEXT, 0 }, { "io", COL_INT, 0 }, { "api", COL_TEXT, 0 }, \
	{ "target", COL_TEXT, 0 }, { "on_node", COL_TEXT, 0 }, { "on_io", COL_INT, 0 }, \
	{ "on_api", COL_TEXT, 0 }, { "on_target", COL_TEXT, 0 }
static const struct coldef wait_cols[] = {
	EDGE_COLS, { "implied", COL_TEXT, 0 }, { "origin", COL_TEXT, 0 },
	{ "certain", COL_TEXT, 0 },
};
static const struct coldef msg_cols[] = {
	EDGE_COLS, { "bytes", COL_INT, 0 }, { "wire", COL_SECS, 0 }, { "implied", COL_TEXT, 0 },
};
static const struct coldef crit_cols[] = {
	{ "node", COL_TEXT, 0 }, { "from_s", COL_SECS, 0 }, { "to_s", COL_SECS, 0 },
	{ "seconds", COL_SECS, 0 }, { "io", COL_INT, 0 }, { "api", COL_TEXT, 0 },
	{ "on_node", COL_TEXT, 0 }, { "on_io", COL_INT, 0 }, { "on_api", COL_TEXT, 0 },
};
static const struct coldef waited_cols[] = {
	{ "node", COL_TEXT, 0 }, { "on_node", COL_TEXT, 0 }, { "on_api", COL_TEXT, 0 },
	{ "calls", COL_INT, 0 }, { "seconds", COL_SECS, 0 },
};
static const struct coldef measure_cols[] = {
	{ "measure", COL_TEXT, 0 }, { "percent", COL_PCT, 0 }, { "matched", COL_INT, 0 },
	{ "total", COL_INT, 0 }, { "of", COL_TEXT, 0 },
};
const struct tabledef deps_tables[] = {
	TABLEDEF_NEEDS("waits", wait_cols, "--from trace (the default) or --from both"),
	TABLEDEF_NEEDS("messages", msg_cols, "--from net or --from both"),
	TABLEDEF_NEEDS("measures", measure_cols, "--truth PATH or --from both"),
	TABLEDEF_NEEDS("critical", crit_cols, "--critical-path or --table critical, --from trace (the default) or --from mpi"),
	TABLEDEF_NEEDS("waited", waited_cols, "--critical-path or --table waited, --from mpi"),
	{ NULL },
};

/* Precision of `found` against the happens-before order of `truth`,
 * recall of `truth` by `found`'s, and recall to within --within I/Os. */
static void measure(struct deps *d, struct dep_edge *found, size_t nf, struct dep_edge *truth,
		    size_t nt, const char *const names[2])
{
	struct dep_edge *fc = xmalloc((nf + 1) * sizeof(*fc)), *tc = xmalloc((nt + 1) * sizeof(*tc));
	struct vclock tv, fv;
	size_t correct = 0, implied = 0, near = 0;

	/* vc_build sorts its edges: keep the callers' order */
	if (nf)                  /* memcpy from NULL is undefined, even of 0 */
		memcpy(fc, found, nf * sizeof(*fc));
	if (nt)
		memcpy(tc, truth, nt * sizeof(*tc));
	vc_build(&tv, d, tc, nt);
	vc_build(&fv, d, fc, nf);
	for (size_t k = 0; k < nf; k++)
		correct += vc_before(&tv, found[k].t, found[k].tseq, found[k].x, found[k].xseq);
	for (size_t k = 0; k < nt; k++) {
		implied += vc_before(&fv, truth[k].t, truth[k].tseq, truth[k].x, truth[k].xseq);
		/* //TRACE finds a dependency to within the sampling period */
		uint64_t lo = truth[k].tseq > (uint64_t)opt.within ?
			      truth[k].tseq - (uint64_t)opt.within + 1 : 1;
		near += opt.within > 1 &&
			vc_before(&fv, truth[k].t, lo, truth[k].x, truth[k].xseq);
	}
	struct table *t = table_new(&deps_tables[2]);
	table_add(t, "precision");
	table_pct(t, (double)correct, (double)nf);
	table_addf(t, "%zu", correct);
	table_addf(t, "%zu", nf);
	table_add(t, names[0]);
	table_add(t, "recall");
	table_pct(t, (double)implied, (double)nt);
	table_addf(t, "%zu", implied);
	table_addf(t, "%zu", nt);
	table_add(t, names[1]);
	if (opt.within > 1) {
		table_addf(t, "recall_within_%d", opt.within);
		table_pct(t, (double)near, (double)nt);
		table_addf(t, "%zu", near);
		table_addf(t, "%zu", nt);
		table_add(t, names[1]);
	}
	table_emit(t);
	vc_free(&tv);
	vc_free(&fv);
	free(fc);
	free(tc);
}

/* --- where the edges come from ----------------------------------------- */

/* The causality engine's <wait>s. */
static const struct trace_ops deps_ops = { .dep = on_dep, .io = on_io };

/* What the reading of the waits found, checked. */
static void waits_checked(struct deps *d, struct trace_run *rp)
{
	struct trace_run run = *rp;

	for (size_t i = 0; i < d->nnodes; i++)
		for (size_t k = 0; k < run.nnodes; k++)
			if (!strcmp(run.nodes[k]->name, d->nodes[i].name)) {
				struct nodeios *n = &d->nodes[i];

				n->off = run.nodes[k]->off - run.t0;
				n->start = run.nodes[k]->start;
				n->end = run.nodes[k]->end;
				n->timed = true;
			}

	for (size_t k = 0; k < d->ne; k++)
		if (!d->e[k].xseq)
			die(2, "a <wait> of node %s is not followed by an io with a seq",
			    d->nodes[d->e[k].x].name);
	seqs_check(d);
	/* what the engine could not see: said on stderr, the tables stay
	 * what they are (CSV, JSON) */
	for (size_t i = 0; i < run.nnodes; i++)
		if (run.nodes[i]->unseen && !strcmp(run.nodes[i]->unseen, "shared-memory"))
			warnx("node %s: its MPI messages to ranks on its host may go through "
			      "shared memory, with no call the capture sees: what they order is "
			      "found between the ranks' own calls (files, sockets), never "
			      "as a message's send and receive (unseen=\"shared-memory\")",
			      run.nodes[i]->name);
		else if (run.nodes[i]->unseen)
			warnx("node %s: unseen=\"%s\": dependencies through it cannot be found",
			      run.nodes[i]->name, run.nodes[i]->unseen);
}

static void from_trace(struct deps *d, char **argv, int argc)
{
	struct trace_run run = { 0 };

	read_traces(&run, argv, argc, &deps_ops, d);
	waits_checked(d, &run);
	run_free(&run);
}

/* Message edges of the packets (net.c): the receiver's call waits for
 * the sender's. */
struct msgs {
	struct dep_edge *e;
	uint64_t *bytes;
	int64_t *wire;               /* -1 unknown */
	size_t n;
};

static void name_call(struct deps *d, int x, const struct netcall *c, const char *peer)
{
	struct nodeios *n = &d->nodes[x];

	XGROW(n->rec, n->caprec, n->nrec + 1);
	n->rec[n->nrec++] = (struct seqname){ c->seq, { c->api, intern(peer), c->start, c->start } };
}

static void from_net(struct deps *d, struct msgs *m, char **argv, int argc)
{
	struct netrun nr;
	char peer[64];

	net_collect(&nr, argv, argc);
	m->n = 0;
	m->e = xmalloc((nr.nedges + 1) * sizeof(*m->e));
	m->bytes = xmalloc((nr.nedges + 1) * sizeof(*m->bytes));
	m->wire = xmalloc((nr.nedges + 1) * sizeof(*m->wire));
	for (size_t i = 0; i < nr.nedges; i++) {
		const struct netedge *ne = &nr.edges[i];
		const struct netcall *s = &nr.calls[ne->snd], *r = &nr.calls[ne->rcv];
		if (!s->seq || !r->seq)
			continue;
		int x = node_index(d, nr.nodes[r->node].name);
		int t = node_index(d, nr.nodes[s->node].name);
		name_call(d, x, r, net_ep_fmt(peer, sizeof(peer), &nr.streams[r->stream].peer));
		name_call(d, t, s, net_ep_fmt(peer, sizeof(peer), &nr.streams[s->stream].peer));
		m->e[m->n] = (struct dep_edge){ x, t, r->seq, s->seq, NULL, false, false };
		m->bytes[m->n] = ne->bytes;
		m->wire[m->n++] = ne->depart && ne->arrive ? net_wire(ne) : -1;
	}
	net_free(&nr);
}

/* The MPI level's messages and collectives (mpideps.c): a node's MPI
 * calls numbered in its trace's order are the seqs of these edges. */
static void from_mpi(struct deps *d, char **argv, int argc)
{
	struct mpi_deps m;
	char peer[32];

	mpi_deps_read(&m, argv, argc);
	int *idx = xcalloc(m.nnodes + 1, sizeof(int));
	for (size_t i = 0; i < m.nnodes; i++)
		idx[i] = node_index(d, m.nodes[i].name);
	for (size_t i = 0; i < m.ncalls; i++) {
		const struct mpi_call *c = &m.calls[i];
		struct nodeios *n = &d->nodes[idx[c->node]];
		if (c->peer >= 0)
			snprintf(peer, sizeof(peer), "rank %d", c->peer);
		XGROW(n->rec, n->caprec, n->nrec + 1);
		n->rec[n->nrec++] = (struct seqname){ c->seq, { intern(c->api),
			intern(c->peer >= 0 ? peer : ""), c->start, c->end } };
	}
	for (size_t i = 0; i < m.ne; i++) {
		XGROW(d->e, d->ecap, d->ne + 1);
		/* an MPI message: exact from one run */
		d->e[d->ne++] = (struct dep_edge){ idx[m.e[i].x], idx[m.e[i].t], m.e[i].xseq,
					       m.e[i].tseq, "message", false, true };
	}
	for (size_t i = 0; i < m.nnodes; i++) {
		struct nodeios *n = &d->nodes[idx[i]];
		n->start = m.nodes[i].start;
		n->end = m.nodes[i].end;
		n->off = m.nodes[i].off;
		n->timed = true;
	}
	if (m.unmatched_sends || m.unmatched_recvs || m.pending)
		warnx("MPI: %zu sends and %zu receives matched nothing, %zu receives never "
		      "completed: some rank's trace is missing or incomplete?",
		      m.unmatched_sends, m.unmatched_recvs, m.pending);
	if (!m.ncalls)
		warnx("no MPI calls in these traces (level=\"mpi\": captured under "
		      "Open MPI's mpirun with lib/libisland-mpi.so)");
	free(idx);
	mpi_deps_free(&m);
}

/* --- the tables --------------------------------------------------------- */

static void row(struct table *t, struct deps *d, const struct dep_edge *e)
{
	const struct ioname *xi = ioname(d, e->x, e->xseq);
	const struct ioname *ti = ioname(d, e->t, e->tseq);

	table_add(t, d->nodes[e->x].name);
	table_addf(t, "%llu", (unsigned long long)e->xseq);
	table_add(t, xi->api);
	table_add(t, xi->target);
	table_add(t, d->nodes[e->t].name);
	table_addf(t, "%llu", (unsigned long long)e->tseq);
	table_add(t, ti->api);
	table_add(t, ti->target);
}

/* With messages, their bytes and wire time (the messages table, else the
 * waits); with other (--from both), whether the other source's order
 * implies each edge. */
static void print_edges(struct deps *d, const struct dep_edge *e, size_t n,
			const struct msgs *m, const struct vclock *other)
{
	char buf[32];

	struct table *t = table_new(&deps_tables[m ? 1 : 0]);
	for (size_t k = 0; k < n; k++) {
		row(t, d, &e[k]);
		if (m) {
			table_addf(t, "%llu", (unsigned long long)m->bytes[k]);
			if (m->wire[k] < 0)
				table_none(t, "-");
			else
				table_add(t, fmt_secs(buf, sizeof(buf), m->wire[k]));
		}
		if (other)
			table_add(t, vc_before(other, e[k].t, e[k].tseq, e[k].x, e[k].xseq) ?
				  "yes" : "no");
		else
			table_none(t, "");
		if (!m) {            /* what a wait rests on (--discover) */
			if (e[k].origin) {
				table_add(t, e[k].origin);
				table_add(t, e[k].unsure ? "no" : "yes");
			} else {
				table_none(t, "");
				table_none(t, "");
			}
		}
	}
	table_emit(t);
}

/* --from both: the messages, then the waits, each marked by whether the
 * other implies it, then the agreement: precision of the waits against
 * the messages' order, recall of the messages by the waits' order. */
static void print_both(struct deps *d, struct msgs *m)
{
	static const char *const names[2] = { "waits", "messages" };
	struct dep_edge *wc = xmalloc((d->ne + 1) * sizeof(*wc)), *mc = xmalloc((m->n + 1) * sizeof(*mc));
	struct vclock wv, mv;

	memcpy(wc, d->e, d->ne * sizeof(*wc));
	memcpy(mc, m->e, m->n * sizeof(*mc));
	vc_build(&wv, d, wc, d->ne);
	vc_build(&mv, d, mc, m->n);
	print_edges(d, m->e, m->n, m, &wv);
	print_edges(d, d->e, d->ne, NULL, &mv);
	vc_free(&wv);
	vc_free(&mv);
	free(wc);
	free(mc);
	measure(d, d->e, d->ne, m->e, m->n, names);
}

/* --annotate FILE: the traces as one, the edges as <wait>/<signal>
 * (annotate.c), for island-replay; calls are named by node and start. */
static void annotate(struct deps *d, const struct dep_edge *e, size_t n, char **argv, int argc)
{
	struct adep *v = xmalloc((n + 1) * sizeof(*v));
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct ioname *x = ioname(d, e[i].x, e[i].xseq);
		const struct ioname *t = ioname(d, e[i].t, e[i].tseq);
		v[k++] = (struct adep){ d->nodes[e[i].x].name, d->nodes[e[i].t].name,
					x->start, t->start };
	}
	annotate_write(deps_annotate, argv, argc, v, k);
	free(v);
}

/* Where an edge holds on the run's time: its waiting call's point, and
 * the awaited one's. A <wait>: x's io began once t's had ended; an MPI
 * message or collective: x's call ended once t's had begun. */
static int64_t wait_at(const struct deps *d, const struct dep_edge *e)
{
	const struct ioname *x = ioname((struct deps *)d, e->x, e->xseq);

	return (e->calls ? x->end : x->start) + d->nodes[e->x].off;
}

static int64_t awaited_at(const struct deps *d, const struct dep_edge *e)
{
	const struct ioname *t = ioname((struct deps *)d, e->t, e->tseq);

	return (e->calls ? t->start : t->end) + d->nodes[e->t].off;
}

/* The critical path through the waits: from the node that ended last,
 * back from its end to its latest call that waited for another node's
 * (of those, the one whose awaited call came last), then on that node
 * back from the awaited call, and so on to a node's start with no wait
 * before. Rows in time order: a piece of a node's run, and the wait
 * that began it (none for the first). */
static void print_critical(struct deps *d)
{
	struct table *t = table_new(&deps_tables[3]);
	struct piece { int node; int64_t from, to; const struct dep_edge *via; } *v = NULL;
	size_t n = 0, cap = 0;
	int cur = -1;
	int64_t at = 0;
	char buf[64];

	for (size_t i = 0; i < d->nnodes; i++)
		if (d->nodes[i].timed && (cur < 0 || d->nodes[i].end + d->nodes[i].off > at)) {
			cur = (int)i;
			at = d->nodes[i].end + d->nodes[i].off;
		}
	/* each step goes back in time or stops: at most one step per wait */
	for (size_t steps = 0; cur >= 0 && steps <= d->ne; steps++) {
		const struct nodeios *x = &d->nodes[cur];
		const struct dep_edge *best = NULL;
		int64_t bs = 0, ba = 0;

		for (size_t k = 0; k < d->ne; k++) {
			const struct dep_edge *e = &d->e[k];

			if (e->x != cur || !d->nodes[e->t].timed)
				continue;
			int64_t s = wait_at(d, e), a = awaited_at(d, e);
			if (s <= at && (!best || s > bs || (s == bs && a > ba))) {
				best = e;
				bs = s;
				ba = a;
			}
		}
		XGROW(v, cap, n + 1);
		v[n++] = (struct piece){ cur, best ? bs : x->start + x->off, at, best };
		if (!best)
			break;
		at = ba < bs ? ba : bs;	/* never later than where it came from */
		cur = best->t;
	}
	while (n--) {
		const struct piece *p = &v[n];

		table_add(t, d->nodes[p->node].name);
		table_add(t, fmt_secs(buf, sizeof(buf), p->from));
		table_add(t, fmt_secs(buf, sizeof(buf), p->to));
		table_add(t, fmt_secs(buf, sizeof(buf), p->to - p->from));
		if (p->via) {
			table_addf(t, "%llu", (unsigned long long)p->via->xseq);
			table_add(t, ioname(d, p->via->x, p->via->xseq)->api);
			table_add(t, d->nodes[p->via->t].name);
			table_addf(t, "%llu", (unsigned long long)p->via->tseq);
			table_add(t, ioname(d, p->via->t, p->via->tseq)->api);
		} else {
			for (int k = 0; k < 5; k++)
				table_none(t, "");
		}
	}
	table_emit(t);
	free(v);
}

/* What each rank waited for, summed (the MPI level's edges): a call
 * waited from its start until the last of the calls it needed began
 * (a receive its send, a collective its last rank in), never longer than
 * it ran; charged to that rank and call. One row per rank, awaited rank
 * and call, the longest first. */
struct waited { int node, on; const char *api; uint64_t calls; int64_t ns; };

static int by_waited(const void *a, const void *b)
{
	const struct waited *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->on != y->on)
		return x->on < y->on ? -1 : 1;
	return strcmp(x->api, y->api);
}

static void print_waited(struct deps *d)
{
	struct table *t = table_new(&deps_tables[4]);
	struct waited *w = NULL;
	size_t n = 0, cap = 0;
	char buf[64];
	struct dep_edge *es = xmalloc((d->ne + 1) * sizeof(*es));

	memcpy(es, d->e, d->ne * sizeof(*es));
	qsort(es, d->ne, sizeof(*es), cmp_edge_x);
	for (size_t k = 0; k < d->ne;) {
		/* the edges of one waiting call, adjacent once sorted */
		size_t j = k, last = k;
		int64_t la = awaited_at(d, &es[k]);

		while (++j < d->ne && es[j].x == es[k].x && es[j].xseq == es[k].xseq)
			if (awaited_at(d, &es[j]) > la) {
				la = awaited_at(d, &es[j]);
				last = j;
			}
		const struct dep_edge *e = &es[last];
		const struct ioname *x = ioname(d, e->x, e->xseq);
		int64_t s = x->start + d->nodes[e->x].off, f = x->end + d->nodes[e->x].off;
		int64_t ns = (la < f ? la : f) - s;
		const char *api = ioname(d, e->t, e->tseq)->api;
		k = j;
		if (!e->calls || ns <= 0)
			continue;
		size_t i = 0;
		while (i < n && !(w[i].node == e->x && w[i].on == e->t && w[i].api == api))
			i++;
		if (i == n) {
			XGROW(w, cap, n + 1);
			w[n++] = (struct waited){ e->x, e->t, api, 0, 0 };
		}
		w[i].calls++;
		w[i].ns += ns;
	}
	qsort(w, n, sizeof(*w), by_waited);
	for (size_t i = 0; i < n; i++) {
		table_add(t, d->nodes[w[i].node].name);
		table_add(t, d->nodes[w[i].on].name);
		table_add(t, w[i].api);
		table_addf(t, "%llu", (unsigned long long)w[i].calls);
		table_add(t, fmt_secs(buf, sizeof(buf), w[i].ns));
	}
	table_emit(t);
	free(w);
	free(es);
}

static void deps_free(struct deps *d)
{
	for (size_t i = 0; i < d->nnodes; i++) {
		free(d->nodes[i].io);
		free(d->nodes[i].rec);
	}
	free(d->nodes);
	free(d->e);
}

/* The HTML page's: the causality engine's waits, as deps prints them by
 * default. A wait names the next io of its thread: it takes every call
 * of the selected threads (a window or --path would leave the waits
 * without their calls), the whole run's waits of the nodes selected. */
static void *deps_begin(struct trace_run *run)
{
	return xcalloc(1, sizeof(struct deps));
}

static void deps_end(void *st, struct trace_run *run, char **files, int nfiles)
{
	struct deps *d = st;

	waits_checked(d, run);
	by_seq(d);
	print_edges(d, d->e, d->ne, NULL, NULL);
	print_critical(d);
	deps_free(d);
	free(d);
}

const struct passdef deps_pass = { deps_begin, &deps_ops, deps_end, true, NULL };

/* the edges of E that have node K at either end, in their order (and a
 * message's bytes and time on the wire with it) */
static size_t keep_node(struct dep_edge *e, size_t n, int k, uint64_t *bytes, int64_t *wire)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++)
		if (e[i].x == k || e[i].t == k) {
			if (bytes)
				bytes[w] = bytes[i];
			if (wire)
				wire[w] = wire[i];
			e[w++] = e[i];
		}
	return w;
}

int report_deps(int argc, char **argv)
{
	static const char *const truth_names[2] = { "found", "true" };
	static const char *const froms[] = { "trace", "net", "both", "mpi" };
	struct deps d = { 0 };
	struct msgs m = { 0 };
	int from = -1;

	for (int i = 0; i < 4; i++)
		if (!strcmp(deps_from, froms[i]))
			from = i;
	if (from < 0)
		die(2, "--from: '%s' is none of trace, net, both, mpi", deps_from);
	/* the traces' own waits are copied as they are: only new ones */
	if (deps_annotate && from != 1)
		die(2, "--annotate writes the message edges: it needs --from net");
	bool crit = opt.critical ||
		    (opt.table && (!strcmp(opt.table, "critical") || !strcmp(opt.table, "waited")));
	if (crit && from != 0 && from != 3)
		die(2, "--critical-path: through the waits (--from trace) or the MPI level's "
		       "messages (--from mpi), not --from %s", deps_from);
	if (opt.critical && opt.dot)
		die(2, "--critical-path is a table: not with --dot");
	/* --node: the edges that have it at either end, read with every
	 * node (the other end is another node's call) */
	const char *only = filter_take_node();
	if (from == 3)
		from_mpi(&d, argv, argc);
	else if (from != 1)
		from_trace(&d, argv, argc);
	if (from == 1 || from == 2)
		from_net(&d, &m, argv, argc);
	by_seq(&d);
	if (from == 1) {             /* the messages are the edges */
		free(d.e);
		d.e = m.e;
		d.ne = m.n;
		m.e = NULL;
	}
	if (only) {
		int k = -1;
		for (size_t i = 0; i < d.nnodes; i++)
			if (!strcmp(d.nodes[i].name, only))
				k = (int)i;
		if (k < 0)
			die(2, "--node %s: no such node in the traces", only);
		if (from == 1) {
			d.ne = m.n = keep_node(d.e, d.ne, k, m.bytes, m.wire);
		} else {
			d.ne = keep_node(d.e, d.ne, k, NULL, NULL);
			if (m.e)
				m.n = keep_node(m.e, m.n, k, m.bytes, m.wire);
		}
	}
	if (opt.dot)
		print_dot(&d);
	else if (from == 2)
		print_both(&d, &m);
	else if (!opt.critical)
		print_edges(&d, d.e, d.ne, from == 1 ? &m : NULL, NULL);
	/* asked for (the page always has the waits') */
	if (!opt.dot && crit) {
		print_critical(&d);
		if (from == 3)
			print_waited(&d);
	}
	/* an empty result says where dependencies come from */
	if (!d.ne && from == 0)
		warnx("deps: the traces hold no <wait>: they come from a --discover run "
		      "(island-capture --cluster FILE --discover), or from the packets: "
		      "deps --from net on traces captured with --pcap");
	else if (!d.ne && from == 1)
		warnx("deps --from net: no message edges: they need the nodes' packets "
		      "(island-capture --pcap on every node) and a connection between two of the traces given");
	if (opt.truth) {
		struct dep_edge *te;
		size_t nte;
		read_truth(&d, opt.truth, &te, &nte);
		measure(&d, d.e, d.ne, te, nte, truth_names);
		free(te);
	}
	if (deps_annotate)
		annotate(&d, d.e, d.ne, argv, argc);
	for (size_t i = 0; i < d.nnodes; i++) {
		free(d.nodes[i].io);
		free(d.nodes[i].rec);
	}
	free(d.nodes);
	free(d.e);
	free(m.e);
	free(m.bytes);
	free(m.wire);
	return 0;
}
