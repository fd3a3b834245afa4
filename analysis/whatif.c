/* whatif: the run's time predicted if a node's file I/O, network or CPU
 * were X times faster, or its file reads or writes held to a rate
 * (--if "NODE:file*2,NODE:filewrite=1000000"; NODE * for every node).
 * The trace's threads are played in virtual time: compute and calls
 * scaled, a WAIT (causal traces: --discover) holding its thread until the
 * peer's I/O completes there, the call after it ending no earlier than
 * the original's wake-up after that I/O; a rate held by the rule of
 * island-replay --limit (usage drains at RATE; a call that leaves it above
 * RATE is held (usage - RATE) / RATE). --validate REPORT (island-replay
 * --report of a replay under that change: --limit, or another system)
 * puts the replayed times beside. */
#include "analyze.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EV_COMPUTE, EV_IO, EV_WAIT };
enum { F_CPU, F_FILE, F_NET, NF };

struct wevent {
	uint8_t kind, res;
	int64_t start, dur, amount;	/* node time */
	uint32_t seq;			/* io: its number in the node, 0 none */
	const char *wnode;		/* wait: the node waited on, its I/O */
	uint32_t wseq;
	long child;			/* io: the process or thread it waited
					 * for the end of (wait*, pthread_join) */
	uint8_t join;			/* 1 a process's, 2 a thread's; 0 none */
};

struct wthread {
	int node;
	long pid, tid;
	int64_t start, end;		/* node time */
	struct wevent *ev;
	size_t n, cap, pos;
	int started, done;
	int64_t t;			/* virtual time (run time, ns) */
	int64_t wait_done, wait_orig;	/* the latest peer completion waited
					 * for before the next call, and its
					 * original time (0: none) */
};

struct wnode {
	const char *name;
	int64_t start, end, off;	/* node time; off: to run time */
	double f[NF];			/* times faster */
	double rate[2];			/* fileread, filewrite bytes/s; 0 none */
	double usage[2];
	int64_t last[2];
	int64_t *orig, *sim;		/* by seq: completion, run time (0: not yet) */
	size_t nseq;
	int first;			/* its first thread (the main one) */
};

struct wi {
	struct wnode *nodes;
	size_t nn, ncap;
	struct wthread *thr;
	size_t nt, tcap;
};

static struct wnode *wnode_of(struct wi *w, const struct trace_node *n)
{
	while (w->nn <= (size_t)n->index) {
		XGROW(w->nodes, w->ncap, w->nn + 1);
		struct wnode *x = &w->nodes[w->nn++];
		memset(x, 0, sizeof(*x));
		for (int i = 0; i < NF; i++)
			x->f[i] = 1;
		x->first = -1;
	}
	return &w->nodes[n->index];
}

static void on_node(void *ctx, struct trace_node *n)
{
	struct wnode *x = wnode_of(ctx, n);

	x->name = intern(n->name);
	x->start = n->start;
	x->end = n->end;
	x->off = n->off;
}

static void on_thread(void *ctx, struct trace_thread *t)
{
	struct wi *w = ctx;
	struct wnode *x = wnode_of(w, t->node);

	XGROW(w->thr, w->tcap, w->nt + 1);
	struct wthread *h = &w->thr[w->nt];
	memset(h, 0, sizeof(*h));
	h->node = t->node->index;
	h->pid = t->proc ? t->proc->pid : 0;
	h->tid = t->tid;
	h->start = t->start;
	h->end = t->end;
	if (x->first < 0 || t->start < w->thr[x->first].start)
		x->first = (int)w->nt;
	t->priv = (void *)(w->nt + 1);
	w->nt++;
}

static struct wthread *thr_of(struct wi *w, struct trace_thread *t)
{
	return &w->thr[(size_t)t->priv - 1];
}

static struct wevent *add(struct wi *w, struct trace_thread *t, int kind)
{
	struct wthread *h = thr_of(w, t);

	XGROW(h->ev, h->cap, h->n + 1);
	struct wevent *e = &h->ev[h->n++];
	memset(e, 0, sizeof(*e));
	e->kind = (uint8_t)kind;
	return e;
}

static void on_compute(void *ctx, struct trace_thread *t, int64_t start, int64_t dur)
{
	struct wevent *e = add(ctx, t, EV_COMPUTE);

	e->start = start;
	e->dur = dur;
}

static void note_seq(struct wnode *x, uint32_t seq, int64_t when)
{
	if (seq >= x->nseq) {
		size_t n = x->nseq ? x->nseq : 64;
		while (n <= seq)
			n *= 2;
		x->orig = xrealloc(x->orig, n * sizeof(*x->orig));
		x->sim = xrealloc(x->sim, n * sizeof(*x->sim));
		memset(x->orig + x->nseq, 0, (n - x->nseq) * sizeof(*x->orig));
		memset(x->sim + x->nseq, 0, (n - x->nseq) * sizeof(*x->sim));
		x->nseq = n;
	}
	x->orig[seq] = when;
}

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	struct wevent *e = add(ctx, t, EV_IO);
	const struct trace_attr *s = trace_io_attr(io, "seq");

	e->res = (uint8_t)io->res;
	e->start = io->start;
	e->dur = io->end - io->start;
	e->amount = io->has_amount && !io->libc_only ? io->amount : 0;
	e->seq = s ? (uint32_t)s->num : 0;
	if (e->seq)
		note_seq(wnode_of(ctx, t->node), e->seq, io->end + t->node->off);
	/* a wait for a child's end, or a join: it ends when that one does */
	const struct trace_attr *c = trace_io_attr(io, "child");
	static const char *const waits[] = { "wait", "waitpid", "wait3", "wait4", "waitid" };
	for (size_t i = 0; c && !io->failed && i < sizeof(waits) / sizeof(waits[0]); i++)
		if (!strcmp(io->api, waits[i]))
			e->join = 1;
	if (c && !io->failed && !strcmp(io->api, "pthread_join"))
		e->join = 2;
	if (e->join)
		e->child = strtol(c->value, NULL, 10);
}

/* The thread whose end E waits for: a process's main thread, or the
 * thread joined, on H's node; NULL when the trace does not hold it */
static struct wthread *waited(struct wi *w, const struct wthread *h, const struct wevent *e)
{
	for (size_t i = 0; i < w->nt; i++) {
		struct wthread *o = &w->thr[i];
		if (o != h && o->node == h->node && o->tid == e->child &&
		    (e->join == 2 || o->pid == e->child))
			return o;
	}
	return NULL;
}

static void on_dep(void *ctx, struct trace_thread *t, const struct trace_dep *d)
{
	if (!d->wait)
		return;
	struct wevent *e = add(ctx, t, EV_WAIT);
	e->wnode = intern(d->node);
	e->wseq = (uint32_t)d->seq;
}

/* "n0:file*2,*:cpu*0.5,n1:filewrite=1e6" */
static void parse_if(struct wi *w, const char *spec)
{
	static const char *const fn[NF] = { "cpu", "file", "net" };
	char *s = xstrdup(spec), *save = NULL;

	for (char *p = strtok_r(s, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(p, ':'), *op = colon ? strpbrk(colon, "*=") : NULL, *end;
		if (!colon || !op)
			die(2, "--if %s: not NODE:RES*X or NODE:RES=RATE (RES cpu, file, net; "
			    "fileread, filewrite for a rate)", p);
		double v = strtod(op + 1, &end);
		if (*end || !(v > 0))
			die(2, "--if %s: '%s' is not a positive number", p, op + 1);
		*colon = 0;
		const char *res = colon + 1;
		char how = *op;
		*op = 0;
		int hit = 0;
		for (size_t k = 0; k < w->nn; k++) {
			struct wnode *x = &w->nodes[k];
			if (strcmp(p, "*") && (!x->name || strcmp(p, x->name)))
				continue;
			hit = 1;
			int ok = 0;
			for (int i = 0; i < NF && how == '*' && !ok; i++)
				if (!strcmp(res, fn[i])) {
					x->f[i] = v;
					ok = 1;
				}
			if (!ok && how == '=' && !strcmp(res, "fileread"))
				x->rate[0] = v, ok = 1;
			if (!ok && how == '=' && !strcmp(res, "filewrite"))
				x->rate[1] = v, ok = 1;
			if (!ok)
				die(2, "--if %s:%s: RES*X with cpu, file or net, or RES=RATE with "
				    "fileread or filewrite", p, res);
		}
		if (!hit)
			die(2, "--if: no node %s in the trace", p);
	}
	free(s);
}

static int factor_of(int res)
{
	switch (res) {
	case TRACE_RES_FILEREAD: case TRACE_RES_FILEWRITE: case TRACE_RES_FILEMETA:
		return F_FILE;
	case TRACE_RES_NETSEND: case TRACE_RES_NETRECV: case TRACE_RES_NETMETA:
		return F_NET;
	}
	return -1;	/* waits, sleeps: what they wait for decides */
}

/* island-replay --limit's rule: the hold after a call that moved bytes */
static int64_t hold(struct wnode *x, int res, int64_t bytes, int64_t now)
{
	int k = res == TRACE_RES_FILEREAD ? 0 : res == TRACE_RES_FILEWRITE ? 1 : -1;

	if (k < 0 || !x->rate[k] || bytes <= 0)
		return 0;
	if (x->last[k])
		x->usage[k] -= x->rate[k] * (double)(now - x->last[k]) / 1e9;
	if (x->usage[k] < 0)
		x->usage[k] = 0;
	x->usage[k] += (double)bytes;
	x->last[k] = now;
	return x->usage[k] > x->rate[k] ? (int64_t)((x->usage[k] - x->rate[k]) / x->rate[k] * 1e9) : 0;
}

static struct wnode *node_named(struct wi *w, const char *name)
{
	for (size_t k = 0; k < w->nn; k++)
		if (w->nodes[k].name == name)
			return &w->nodes[k];
	return NULL;
}

/* The time shift of the node's main thread at its original time t (run
 * time), as far as it got: a thread another made starts shifted so. */
static int64_t main_shift(struct wi *w, struct wnode *x, int64_t orig, int *known)
{
	struct wthread *m = &w->thr[x->first];

	*known = 1;
	if (m->done)
		return m->t - (m->end + x->off);
	if (m->started && m->pos < m->n && m->ev[m->pos].start + x->off >= orig)
		return m->t - (m->ev[m->pos].start + x->off);
	*known = 0;
	return 0;
}

/* Advance a thread as far as its waits let it; 1 when it moved. */
static int step(struct wi *w, struct wthread *h)
{
	struct wnode *x = &w->nodes[h->node];
	int moved = 0, known;

	if (!h->started) {
		int64_t s = h - w->thr == x->first ? 0 : main_shift(w, x, h->start + x->off, &known);
		if (h - w->thr != x->first && !known)
			return 0;
		h->t = h->start + x->off + s;
		h->started = moved = 1;
	}
	while (h->pos < h->n) {
		struct wevent *e = &h->ev[h->pos];
		if (e->kind == EV_WAIT) {
			struct wnode *p = node_named(w, e->wnode);
			if (p && e->wseq < p->nseq && p->orig[e->wseq]) {
				if (!p->sim[e->wseq])
					return moved;	/* not there yet */
				if (p->sim[e->wseq] > h->wait_done) {
					h->wait_done = p->sim[e->wseq];
					h->wait_orig = p->orig[e->wseq];
				}
			}
		} else if (e->kind == EV_COMPUTE) {
			h->t += (int64_t)((double)e->dur / x->f[F_CPU]);
		} else if (e->join && waited(w, h, e)) {
			/* a child's end, as it came here: the wait lasted as
			 * long past it as the original's (a shell waiting for
			 * sqlite3 kept its original 3.4 s on a device twice as
			 * fast, and so did the run) */
			struct wthread *c = waited(w, h, e);
			if (!c->done)
				return moved;
			int64_t lag = e->start + e->dur - c->end;
			if (lag < 0)
				lag = 0;
			if (lag > e->dur)
				lag = e->dur;
			h->t = c->t + lag > h->t ? c->t + lag : h->t;
			if (e->seq && e->seq < x->nseq)
				x->sim[e->seq] = h->t;
		} else {
			int f = factor_of(e->res);
			double k = f < 0 ? 1 : x->f[f];
			int64_t end = h->t + (int64_t)((double)e->dur / k);
			if (h->wait_orig) {
				/* waited: its time after the peer's I/O, as the
				 * original's wake-up was */
				int64_t lag = e->start + e->dur + x->off - h->wait_orig;
				if (lag < 0)
					lag = 0;
				if (lag > e->dur)
					lag = e->dur;
				end = h->t + (int64_t)((double)lag / k);
				if (h->wait_done + lag > end)
					end = h->wait_done + lag;
				h->wait_done = h->wait_orig = 0;
			}
			end += hold(x, e->res, e->amount, end);
			h->t = end;
			if (e->seq && e->seq < x->nseq)
				x->sim[e->seq] = end;
		}
		h->pos++;
		moved = 1;
	}
	if (!h->done) {
		/* what the thread ran after its last event */
		int64_t last = h->n ? h->ev[h->n - 1].start + h->ev[h->n - 1].dur : h->start;
		if (h->end > last)
			h->t += h->end - last;
		h->done = moved = 1;
	}
	return moved;
}

static void simulate(struct wi *w)
{
	for (;;) {
		int moved = 0, left = 0;
		for (size_t i = 0; i < w->nt; i++) {
			if (w->thr[i].done)
				continue;
			moved |= step(w, &w->thr[i]);
			left += !w->thr[i].done;
		}
		if (!left)
			return;
		if (!moved) {
			/* a wait on what never completes here: let the first
			 * one go (as a replay with --stall would not) */
			for (size_t i = 0; i < w->nt; i++)
				if (!w->thr[i].done && w->thr[i].started &&
				    w->thr[i].pos < w->thr[i].n) {
					w->thr[i].pos++;
					break;
				}
		}
	}
}

/* the replayed times of an island-replay --report file: by node, and the
 * run ("" key); -1 when not found */
static double replayed_of(const char *file, const char *node)
{
	FILE *f = fopen(file, "r");
	char line[4096], key[512];
	double v = -1;

	if (!f)
		die(2, "--validate %s:", file);
	if (node)
		snprintf(key, sizeof(key), "<node name=\"%s\" ", node);
	else
		snprintf(key, sizeof(key), "<run ");
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, key), *r;
		if (p && (r = strstr(p, " replayed=\""))) {
			v = strtod(r + 11, NULL);
			break;
		}
	}
	fclose(f);
	return v;
}

static const struct coldef cols[] = {
	{ "node", COL_TEXT, 0 }, { "original", COL_SECS, 0 }, { "predicted", COL_SECS, 0 },
	{ "change", COL_PCT, 0 }, { "replayed", COL_SECS, COL_OPT }, { "prediction_error", COL_PCT, COL_OPT },
};
const struct tabledef whatif_tables[] = { TABLEDEF("whatif", cols), { NULL } };

static void row(struct table *t, const char *name, int64_t orig, int64_t pred)
{
	char a[64], b[64], c[64], d[64], e[64];

	table_add(t, name);
	table_add(t, fmt_nsecs(a, sizeof(a), orig));
	table_add(t, fmt_nsecs(b, sizeof(b), pred));
	table_add(t, fmt_pct(c, sizeof(c), (double)(pred - orig), (double)orig));
	if (opt.validate) {
		double r = replayed_of(opt.validate, strcmp(name, "run") ? name : NULL);
		if (r < 0)
			die(2, "--validate %s: no %s %s in it", opt.validate, strcmp(name, "run") ? "node" : "run", name);
		int64_t rn = (int64_t)(r * 1e9);
		table_add(t, fmt_nsecs(d, sizeof(d), rn));
		table_add(t, fmt_pct(e, sizeof(e), (double)(pred - rn), (double)rn));
	}
}

int report_whatif(int argc, char **argv)
{
	static const struct trace_ops ops = {
		.node = on_node, .thread = on_thread, .compute = on_compute, .io = on_io,
		.dep = on_dep,
	};
	struct trace_run run = { 0 };
	struct wi w = { 0 };

	if (!opt.whatif)
		die(2, "whatif: --if NODE:RES*X or NODE:RES=RATE is needed (try --help)");
	read_traces(&run, argv, argc, &ops, &w);
	parse_if(&w, opt.whatif);
	simulate(&w);
	static const char *const with[] = { "replayed", "prediction_error", NULL };
	struct table *t = table_with(&whatif_tables[0], opt.validate ? with : NULL);
	int64_t a = INT64_MAX, b = INT64_MIN, pa = INT64_MAX, pb = INT64_MIN;
	for (size_t k = 0; k < w.nn; k++) {
		struct wnode *x = &w.nodes[k];
		int64_t end = x->start + x->off, last = x->start;
		for (size_t i = 0; i < w.nt; i++)
			if (w.thr[i].node == (int)k) {
				if (w.thr[i].t > end)
					end = w.thr[i].t;
				if (w.thr[i].end > last)
					last = w.thr[i].end;
			}
		/* the node ran on after its last thread, as the original did */
		if (x->end > last)
			end += x->end - last;
		int64_t s = x->start + x->off;
		row(t, x->name ? x->name : "?", x->end - x->start, end - s);
		a = s < a ? s : a;
		b = x->end + x->off > b ? x->end + x->off : b;
		pa = s < pa ? s : pa;
		pb = end > pb ? end : pb;
	}
	if (w.nn)
		row(t, "run", b - a, pb - pa);
	table_emit(t);
	for (size_t i = 0; i < w.nt; i++)
		free(w.thr[i].ev);
	for (size_t k = 0; k < w.nn; k++) {
		free(w.nodes[k].orig);
		free(w.nodes[k].sim);
	}
	free(w.thr);
	free(w.nodes);
	run_free(&run);
	return 0;
}
