/* top: the N longest individual calls (strace -T, uftrace --sort), with
 * who made them (node, pid, process and its arguments, tid) and on what
 * (path or peer, descriptor); --by process|file|call keeps the N longest of each.
 * Streams: one min-heap of N calls per group (N = --limit, default 10),
 * so memory is N entries per process, file or call, whatever the trace's
 * length. */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

enum top_by { TOP_ALL, TOP_PROCESS, TOP_FILE, TOP_CALL };

struct hit {
	int64_t dur, start;	/* start in node time */
	const struct trace_thread *t;
	const char *api;	/* interned */
	const char *pname, *args;	/* the process's program then (procs.c) */
	char *target;		/* path or peer: owned, freed when evicted */
	int64_t fd;
	bool has_fd;
	size_t seq;		/* reading order: ties keep it */
};

struct heap {
	const void *key;	/* the group's: a process, an interned path or api */
	struct hit *v;
	size_t n;
};

struct top {
	enum top_by by;
	size_t limit, seq;
	struct heap *g;
	size_t ng, capg;	/* open addressing, capg a power of two */
};

/* The heap's root is the shortest kept call: the one a longer one evicts. */
static bool shorter(const struct hit *a, const struct hit *b)
{
	return a->dur != b->dur ? a->dur < b->dur : a->seq > b->seq;
}

static void sift_down(struct heap *h, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < h->n && shorter(&h->v[l], &h->v[m]))
			m = l;
		if (r < h->n && shorter(&h->v[r], &h->v[m]))
			m = r;
		if (m == i)
			return;
		struct hit x = h->v[i];

		h->v[i] = h->v[m];
		h->v[m] = x;
		i = m;
	}
}

static void sift_up(struct heap *h, size_t i)
{
	while (i && shorter(&h->v[i], &h->v[(i - 1) / 2])) {
		struct hit x = h->v[i];

		h->v[i] = h->v[(i - 1) / 2];
		h->v[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
}

static size_t gslot(const struct top *tp, const void *key)
{
	size_t h = ((uintptr_t)key >> 4) * 0x9e3779b97f4a7c15ULL;

	for (h &= tp->capg - 1; tp->g[h].key && tp->g[h].key != key; h = (h + 1) & (tp->capg - 1))
		;
	return h;
}

static struct heap *group(struct top *tp, const void *key)
{
	size_t h;

	if (tp->ng * 2 >= tp->capg) {
		struct top n = { .capg = tp->capg ? tp->capg * 2 : 16 };

		n.g = xcalloc(n.capg, sizeof(*n.g));
		for (size_t i = 0; i < tp->capg; i++)
			if (tp->g[i].key)
				n.g[gslot(&n, tp->g[i].key)] = tp->g[i];
		free(tp->g);
		tp->g = n.g;
		tp->capg = n.capg;
	}
	h = gslot(tp, key);
	if (!tp->g[h].key) {
		tp->g[h].key = key;
		tp->g[h].v = xcalloc(tp->limit, sizeof(struct hit));
		tp->ng++;
	}
	return &tp->g[h];
}

static const char *target_of(const struct trace_io *io)
{
	return io->path ? io->path : io->peer ? io->peer : io->inpath;
}

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	struct top *tp = ctx;
	const char *target = target_of(io);
	const void *key = "";
	struct heap *h;
	struct hit x = {
		.dur = io->end - io->start, .start = io->start, .t = t,
		.fd = io->fd, .has_fd = io->has_fd, .seq = tp->seq++,
	};

	if (tp->by == TOP_PROCESS)
		key = t->proc;
	else if (tp->by == TOP_FILE)
		key = intern(target ? target : "");
	else if (tp->by == TOP_CALL)
		key = intern(io->api);
	h = group(tp, key);
	if (h->n == tp->limit && !shorter(&h->v[0], &x))
		return;		/* the common case: no string copied */
	x.api = intern(io->api);
	x.pname = proc_name(t->proc);
	x.args = proc_args(t->proc);
	x.target = target ? xstrdup(target) : NULL;
	if (h->n < tp->limit) {
		h->v[h->n++] = x;
		sift_up(h, h->n - 1);
		return;
	}
	free(h->v[0].target);
	h->v[0] = x;
	sift_down(h, 0);
}

/* Rows: by the group (process: node and pid; file: path; call: name),
 * then the longest first. */
static enum top_by cmp_by;
static int cmp_hit(const void *x, const void *y)
{
	const struct hit *a = x, *b = y;
	int r = 0;

	if (cmp_by == TOP_PROCESS) {
		r = a->t->node->index - b->t->node->index;
		if (!r)
			r = (a->t->proc->pid > b->t->proc->pid) - (a->t->proc->pid < b->t->proc->pid);
	} else if (cmp_by == TOP_FILE) {
		r = strcmp(a->target ? a->target : "", b->target ? b->target : "");
	} else if (cmp_by == TOP_CALL) {
		r = strcmp(a->api, b->api);
	}
	if (r)
		return r;
	return shorter(a, b) ? 1 : shorter(b, a) ? -1 : 0;
}

static const struct coldef cols[] = {
	{ "node", COL_TEXT, 0 }, { "pid", COL_INT, 0 }, { "process", COL_TEXT, 0 },
	{ "tid", COL_INT, 0 }, { "thread", COL_TEXT, 0 }, { "call", COL_TEXT, 0 },
	{ "fd", COL_INT, 0 }, { "target", COL_TEXT, 0 },
	{ "start_s", COL_SECS, 0 }, { "dur_s", COL_SECS, 0 }, { "args", COL_TEXT, 0 },
};
const struct tabledef top_tables[] = { TABLEDEF("top", cols), { NULL } };

int report_top(int argc, char **argv)
{
	static const struct trace_ops ops = { .io = on_io };
	struct trace_run run = { 0 };
	struct top tp = { .limit = opt.limit > 0 ? (size_t)opt.limit : 10 };
	struct hit *all;
	size_t n = 0;
	struct table *t;
	char buf[64];

	if (!opt.by)
		tp.by = TOP_ALL;
	else if (!strcmp(opt.by, "process"))
		tp.by = TOP_PROCESS;
	else if (!strcmp(opt.by, "file"))
		tp.by = TOP_FILE;
	else
		tp.by = TOP_CALL;
	opt.limit_taken = true;	/* N per group: not a limit of the table */
	prescan(&run, argv, argc);	/* the nodes' offsets before any row */
	read_traces(&run, argv, argc, &ops, &tp);
	for (size_t i = 0; i < tp.capg; i++)
		n += tp.g[i].n;
	all = xcalloc(n ? n : 1, sizeof(*all));
	n = 0;
	for (size_t i = 0; i < tp.capg; i++) {
		if (tp.g[i].n)	/* an empty group's v is NULL */
			memcpy(all + n, tp.g[i].v, tp.g[i].n * sizeof(*all));
		n += tp.g[i].n;
		free(tp.g[i].v);
	}
	cmp_by = tp.by;
	qsort(all, n, sizeof(*all), cmp_hit);
	t = table_new(&top_tables[0]);
	for (size_t i = 0; i < n; i++) {
		const struct hit *h = &all[i];
		const struct trace_node *nd = h->t->node;
		/* calls take from 100 ns: CSV to the nanosecond */
		char *(*secs)(char *, size_t, int64_t) = opt.csv || opt.output ? fmt_nsecs : fmt_secs;

		table_add(t, nd->name);
		table_addf(t, "%ld", h->t->proc->pid);
		table_add(t, h->pname);
		table_addf(t, "%ld", h->t->tid);
		table_add(t, h->t->name);
		table_add(t, h->api);
		if (h->has_fd)
			table_addf(t, "%lld", (long long)h->fd);
		else
			table_none(t, "");
		table_add(t, h->target ? h->target : "");
		table_add(t, secs(buf, sizeof(buf), h->start + nd->off - run.t0));
		table_add(t, secs(buf, sizeof(buf), h->dur));
		table_add(t, h->args);
		free(all[i].target);
	}
	table_emit(t);
	free(all);
	free(tp.g);
	run_free(&run);
	return 0;
}
