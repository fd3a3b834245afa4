/* whatif: the run's time predicted if a node's file I/O, network or CPU
 * were X times faster, or its file reads or writes held to a rate
 * (--if "NODE:file*2,NODE:filewrite=1000000"; NODE * for every node).
 * The trace's threads are played in virtual time: compute and calls
 * scaled, a WAIT (causal traces: --discover) holding its thread until the
 * peer's I/O completes there, the call after it ending no earlier than
 * the original's wake-up after that I/O; a rate held by the rule of
 * island-replay --limit (usage drains at RATE; a call that leaves it above
 * RATE is held (usage - RATE) / RATE). A process or thread starts as
 * late as the call that made it came, and a parent polling for its child
 * (waitpid with WNOHANG, sleeping between) stops polling once the child
 * has ended, as island-replay does; a thread joined while it waited to be
 * told to end (its last calls waits and sleeps) ends when the joining
 * thread comes; a thread's waits before a read of a pipe are over once
 * the write whose bytes it read was made (fio's helper thread ticks every
 * 250 ms until its main thread writes it a byte). --validate REPORT (island-replay
 * --report of a replay under that change: --limit, or another system)
 * puts the replayed times beside. */
#include "analyze.h"
#include "trace/calls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EV_COMPUTE, EV_IO, EV_WAIT };
enum { F_CPU, F_FILE, F_NET, NF };

struct wevent {
	int64_t start, dur, amount;	/* node time */
	int64_t sim_end;		/* io: when it ended, played */
	const char *wnode;		/* wait: the node waited on, its I/O */
	long child;			/* io: the process or thread it waited
					 * for the end of (wait*, pthread_join),
					 * or made (fork, pthread_create, ...) */
	uint32_t seq;			/* io: its number in the node, 0 none */
	uint32_t wseq;
	uint32_t reap;			/* poll: the index + 1 of the wait that
					 * reaped the child polled for */
	uint32_t made;			/* join 3: the thread made, index + 1 */
	uint32_t wthr, wev;		/* a wait for a pipe's bytes: the write's
					 * thread + 1 (0 none) and event */
	int32_t pipe;			/* io on a pipe: which (0 none) */
	uint8_t kind, res;
	uint8_t join;			/* 1 a process's, 2 a thread's, 3 made;
					 * 0 none */
	uint8_t poll, idle;		/* a wait for a child that found none
					 * ended; a look (stat, access) */
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
	int made, born;			/* a call of the trace made it; that
					 * call was played, */
	int64_t born_shift;		/* its creator's shift then */
	size_t idle_from;		/* its events from there on are waits,
					 * sleeps and work between (n: none) */
	int idle_seen;			/* got there, */
	int64_t t_idle;			/* at that time */
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

/* the replay's rule of each call (trace/replay.def), by which the polls
 * are told as island-replay tells them */
static const char *const rule_of[TCALL_N] = {
#define REPLAY(id, rule, family, stdio) [TCALL_##id] = #rule,
#include "trace/replay.def"
#undef REPLAY
};

static const char *rule_named(const char *api)
{
	int id = trace_call_by_name(api);

	return id >= 0 && rule_of[id] ? rule_of[id] : "";
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
	const char *rule = rule_named(io->api);	/* one lookup an io */
	int waits = !io->failed && !strcmp(rule, "waitpid");
	if (c && waits)
		e->join = 1;
	else if (c && !io->failed && !strcmp(io->api, "pthread_join"))
		e->join = 2;
	else if (c && !io->failed && io->res == TRACE_RES_PROC)
		e->join = 3;
	if (e->join)
		e->child = strtol(c->value, NULL, 10);
	const struct trace_attr *r = trace_io_attr(io, "result");
	e->poll = waits && !c && (!r || r->num == 0);
	e->idle = !strcmp(rule, "stat");
	const struct trace_attr *p = trace_io_attr(io, "pipe");
	e->pipe = p && !io->failed ? (int32_t)strtol(p->value, NULL, 10) : 0;
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

/* The thread the call E of H made: the first of its number to start
 * after the call did, on H's node */
static struct wthread *made(struct wi *w, const struct wthread *h, const struct wevent *e)
{
	struct wthread *best = NULL;

	for (size_t i = 0; i < w->nt; i++) {
		struct wthread *o = &w->thr[i];
		if (o != h && o->node == h->node && o->tid == e->child && o->start >= e->start &&
		    (!best || o->start < best->start))
			best = o;
	}
	return best;
}

/* A pipe's writes, by node, pipe and end */
struct pwrite {
	int node;
	int32_t pipe;
	int64_t end;
	uint32_t thr, ev;
};

static int pwrite_cmp(const void *a, const void *b)
{
	const struct pwrite *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->pipe != y->pipe)
		return x->pipe < y->pipe ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* Each read of a pipe that got bytes: the last write to it that ended
 * before, by another thread; the reader's waits since its last read of
 * the pipe waited for that write */
static void link_pipes(struct wi *w)
{
	struct pwrite *pw = NULL;
	size_t n = 0, cap = 0;

	for (size_t k = 0; k < w->nt; k++)
		for (size_t i = 0; i < w->thr[k].n; i++) {
			struct wevent *e = &w->thr[k].ev[i];
			if (e->kind == EV_IO && e->pipe && e->res == TRACE_RES_NETSEND && e->amount > 0) {
				XGROW(pw, cap, n + 1);
				pw[n++] = (struct pwrite){ w->thr[k].node, e->pipe, e->start + e->dur,
							   (uint32_t)k, (uint32_t)i };
			}
		}
	if (!n)
		return;
	qsort(pw, n, sizeof(*pw), pwrite_cmp);
	for (size_t k = 0; k < w->nt; k++) {
		struct wthread *h = &w->thr[k];
		size_t from = 0;
		for (size_t i = 0; i < h->n; i++) {
			struct wevent *e = &h->ev[i];
			if (e->kind != EV_IO || !e->pipe || e->res != TRACE_RES_NETRECV)
				continue;
			if (e->amount > 0) {
				/* the last write ending at or before the read began */
				struct pwrite key = { h->node, e->pipe, e->start, 0, 0 };
				size_t lo = 0, hi = n;
				while (lo < hi) {
					size_t mid = (lo + hi) / 2;
					if (pwrite_cmp(&pw[mid], &key) <= 0)
						lo = mid + 1;
					else
						hi = mid;
				}
				const struct pwrite *p = lo ? &pw[lo - 1] : NULL;
				if (p && p->node == h->node && p->pipe == e->pipe && p->thr != k)
					for (size_t q = from; q < i; q++)
						if (h->ev[q].kind == EV_IO && h->ev[q].res == TRACE_RES_WAIT &&
						    !h->ev[q].join && !h->ev[q].poll) {
							h->ev[q].wthr = p->thr + 1;
							h->ev[q].wev = p->ev;
						}
			}
			from = i + 1;
		}
	}
	free(pw);
}

/* Who made whom, and each poll's reaping wait: the polls, the sleeps,
 * work and looks between them, then the wait that reaped the child */
static void link_threads(struct wi *w)
{
	for (size_t k = 0; k < w->nt; k++) {
		struct wthread *h = &w->thr[k];
		for (size_t i = 0; i < h->n; i++) {
			struct wevent *e = &h->ev[i];
			struct wthread *o = e->join == 3 ? made(w, h, e) : NULL;
			if (o) {
				o->made = 1;
				e->made = (uint32_t)(o - w->thr) + 1;
			}
			if (!e->poll)
				continue;
			size_t j = i + 1;
			while (j < h->n && (h->ev[j].kind == EV_COMPUTE || h->ev[j].poll ||
					    (h->ev[j].kind == EV_IO && (h->ev[j].idle ||
									h->ev[j].res == TRACE_RES_SLEEP))))
				j++;
			if (j < h->n && h->ev[j].join == 1)
				for (size_t q = i; q < j; q++)
					if (h->ev[q].poll)
						h->ev[q].reap = (uint32_t)j + 1;
			i = j - 1;
		}
		/* the idle tail: two waits or sleeps at least */
		size_t q = h->n, waits = 0;
		while (q > 0 && (h->ev[q - 1].kind == EV_COMPUTE ||
				 (h->ev[q - 1].kind == EV_IO && !h->ev[q - 1].join &&
				  (h->ev[q - 1].res == TRACE_RES_WAIT ||
				   h->ev[q - 1].res == TRACE_RES_SLEEP))))
			waits += h->ev[--q].kind == EV_IO;
		h->idle_from = waits >= 2 ? q : h->n;
	}
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
		int64_t s = 0;
		if (h - w->thr == x->first)
			;
		else if (h->born)
			s = h->born_shift;
		else if (h->made)
			return 0;	/* the call that makes it is not played yet */
		else if (s = main_shift(w, x, h->start + x->off, &known), !known)
			return 0;
		h->t = h->start + x->off + s;
		h->started = moved = 1;
	}
	while (h->pos < h->n) {
		struct wevent *e = &h->ev[h->pos];
		if (h->pos == h->idle_from && !h->idle_seen) {
			h->idle_seen = 1;
			h->t_idle = h->t;
		}
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
		} else if (e->reap) {
			/* a poll: over, with the polls after it, once the child
			 * has ended; not known while the child is behind */
			struct wthread *c = waited(w, h, &h->ev[e->reap - 1]);
			if (c && (!c->started || (!c->done && c->t <= h->t)))
				return moved;
			if (c && c->done && c->t <= h->t) {
				for (; h->pos < e->reap - 1; h->pos++)
					if (h->ev[h->pos].seq && h->ev[h->pos].seq < x->nseq)
						x->sim[h->ev[h->pos].seq] = h->t;
				moved = 1;
				continue;
			}
			h->t += e->dur;
			if (e->seq && e->seq < x->nseq)
				x->sim[e->seq] = h->t;
		} else if (e->wthr) {
			/* a wait for a pipe's bytes: over once they were
			 * written; as the original when they come after */
			struct wthread *p = &w->thr[e->wthr - 1];
			const struct wevent *we = &p->ev[e->wev];
			int64_t orig_end = e->start + e->dur, wend = we->start + we->dur;
			int written = p->pos > e->wev || p->done;
			int woken = e->start < wend && orig_end >= wend;	/* by the write */
			if (!written && (woken || p->t < h->t + e->dur))
				return moved;	/* the writer is behind: not known */
			if (woken) {
				int64_t lag = orig_end - wend < e->dur ? orig_end - wend : e->dur;
				if (we->sim_end + lag > h->t)
					h->t = we->sim_end + lag;
			} else if (written && we->sim_end < h->t + e->dur) {
				if (we->sim_end > h->t)
					h->t = we->sim_end;	/* came meanwhile */
			} else {
				h->t += e->dur;
			}
		} else if (e->join && e->join < 3 && waited(w, h, e)) {
			/* a child's end, as it came here: the wait lasted as
			 * long past it as the original's (a shell waiting for
			 * sqlite3 kept its original 3.4 s on a device twice as
			 * fast, and so did the run) */
			struct wthread *c = waited(w, h, e);
			int told = e->join == 2 && c->idle_from < c->n && c->end > e->start;
			if (told && !c->idle_seen)
				return moved;
			if (!told && !c->done)
				return moved;
			int64_t lag = e->start + e->dur - c->end;
			if (lag < 0)
				lag = 0;
			if (lag > e->dur)
				lag = e->dur;
			if (told) {
				/* it waited to be told to end, and was, by
				 * this thread's coming: its waits after that
				 * are not the run's */
				c->t = c->t_idle > h->t ? c->t_idle : h->t;
				c->done = 1;
				c->pos = c->n;
			}
			h->t = c->t + lag > h->t ? c->t + lag : h->t;
			if (e->seq && e->seq < x->nseq)
				x->sim[e->seq] = h->t;
		} else {
			int f = factor_of(e->res);
			double k = f < 0 ? 1 : x->f[f];
			struct wthread *o = e->made ? &w->thr[e->made - 1] : NULL;
			if (o && !o->born) {
				o->born = 1;
				o->born_shift = h->t - (e->start + x->off);
			}
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
			e->sim_end = end;
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
	link_threads(w);
	link_pipes(w);
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
