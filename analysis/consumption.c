/* consumption: where each thread's live time went, Island's "Thread Time
 * Consumption". Every instant of a thread's life goes to exactly one
 * category, so the categories add up to live:
 *   - outside calls (compute) and res=proc calls: compute
 *   - in a call: the category of its res (see cat_rules); a write or
 *     other call on a pipe (proto="pipe") is pipe: a pipe is no network
 *   - in a node stop: stopped, when the stop can have delayed the thread:
 *     always outside calls; inside a call only for the part of the call
 *     beyond its expected time (Island's rule; see expected()).
 *   - in a receive (recv, or a wait on a socket): blocked while the peer
 *     had not sent; after it sent, stopped where a stop covers the call,
 *     else netrecv. Without the peer's trace, all of it is blocked (see
 *     account_recv()). The rules are docs/restrictions.md.
 * With --from/--to every interval is clipped to the window, and with
 * --call/--path only the time inside the selected calls counts: live is
 * then what was selected, and nothing left out becomes compute. */
#include "analyze.h"
#include "net.h"

#include <stdlib.h>
#include <string.h>

const char *const cat_names[CAT_N] = {
	"compute", "sleep", "fileread", "filewrite", "filemeta", "netsend", "netrecv",
	"pipe", "blocked", "stopped",
};

/* How a stop inside a call is judged: the call's expected time is ... */
enum expect {
	EXP_NONE,	/* zero: any stop inside it delayed it (Island's assumption) */
	EXP_RATE,	/* the hold the capture recorded (throttle), else Repy's
			 * wait from rest: (amount - limit) / limit, at least zero
			 * (zero without a limit) */
	EXP_REQ,	/* the requested sleep: only an overrun can be a stop's */
	EXP_ALL,	/* all of it: a waiting call waits anyway */
};

static const struct {
	enum cat cat;
	enum expect exp;
} cat_rules[TRACE_RES_N] = {
	[TRACE_RES_FILEREAD]  = { CAT_FILEREAD,  EXP_RATE },
	[TRACE_RES_FILEWRITE] = { CAT_FILEWRITE, EXP_RATE },
	[TRACE_RES_FILEMETA]  = { CAT_FILEMETA,  EXP_NONE },
	[TRACE_RES_NETSEND]   = { CAT_NETSEND,   EXP_RATE },
	[TRACE_RES_NETRECV]   = { CAT_NETRECV,   EXP_RATE },
	[TRACE_RES_NETMETA]   = { CAT_NETSEND,   EXP_NONE },
	[TRACE_RES_SLEEP]     = { CAT_SLEEP,     EXP_REQ },
	[TRACE_RES_WAIT]      = { CAT_BLOCKED,   EXP_ALL },
	[TRACE_RES_PROC]      = { CAT_COMPUTE,       EXP_NONE },
	[TRACE_RES_SYS]       = { CAT_COMPUTE,       EXP_NONE },
};

/* netmeta calls that wait for the peer. */
static const char *const waiting_netmeta[] = { "accept", "accept4", "connect" };

static bool waits_for_peer(const struct trace_io *io)
{
	if (io->res != TRACE_RES_NETMETA)
		return false;
	for (size_t i = 0; i < sizeof(waiting_netmeta) / sizeof(waiting_netmeta[0]); i++)
		if (!strcmp(io->api, waiting_netmeta[i]))
			return true;
	return false;
}

/* A write or other call on a pipe (proto="pipe"): no network. A read
 * stays a receive: it waits for the writer (blocked, as a receive whose
 * peer's trace is not given). */
static bool on_pipe(const struct trace_io *io)
{
	return io->proto && !strcmp(io->proto, "pipe") && io->res != TRACE_RES_WAIT &&
	       io->res != TRACE_RES_NETRECV;
}

/* Receives: a recv waits for the peer before it takes data, and so does a
 * wait that names a socket. */
static bool is_recv(const struct trace_io *io)
{
	return io->res == TRACE_RES_NETRECV || (io->res == TRACE_RES_WAIT && peer_is_address(io->peer));
}

enum cat io_category(const struct trace_io *io)
{
	return waits_for_peer(io) ? CAT_BLOCKED : on_pipe(io) ? CAT_PIPE : cat_rules[io->res].cat;
}

static int64_t expected(const struct trace_node *n, const struct trace_io *io, int64_t dur)
{
	enum expect e = waits_for_peer(io) ? EXP_ALL :
			on_pipe(io) && io->res != TRACE_RES_NETSEND ? EXP_NONE : cat_rules[io->res].exp;

	switch (e) {
	case EXP_RATE:
		if (io->has_throttle)
			return io->throttle;
		if (n && n->limit[io->res] > 0 && io->amount > n->limit[io->res])
			return (int64_t)(((double)io->amount - n->limit[io->res]) /
					 n->limit[io->res] * 1e9);
		return 0;
	case EXP_REQ:
		return io->has_req ? io->req : dur;
	case EXP_ALL:
		return dur;
	case EXP_NONE:
		break;
	}
	return 0;
}

static void emit(struct acct *a, enum cat c, int64_t s, int64_t e)
{
	if (e <= s)
		return;
	a->cat[c] += e - s;
	if (a->sel.on) {
		if (a->sel.out)
			return;
		s = s < a->sel.lo ? a->sel.lo : s;
		e = e > a->sel.hi ? a->sel.hi : e;
		if (e <= s)
			return;
	}
	a->in[c] += e - s;
	if (a->sink)
		a->sink(a->arg, c, s, e);
}

/* [start, end] in category c, of which at most `movable` can go to
 * stopped where a stop covers it, earliest stop first. */
static void split_stops(struct acct *a, const struct trace_node *n, enum cat c,
			int64_t start, int64_t end, int64_t movable)
{
	int64_t cur = start;

	if (n && movable > 0)
		for (size_t i = stop_first(n->stops, n->nstops, start);
		     i < n->nstops && n->stops[i].start < end && movable > 0; i++) {
			int64_t lo = n->stops[i].start > start ? n->stops[i].start : start;
			int64_t hi = n->stops[i].end < end ? n->stops[i].end : end;

			if (hi - lo > movable)
				hi = lo + movable;
			if (hi <= lo)
				continue;
			emit(a, c, cur, lo);
			emit(a, CAT_STOPPED, lo, hi);
			movable -= hi - lo;
			cur = hi;
		}
	emit(a, c, cur, end);
}

/* The hold a netrecv rate limit put at the end of a receive: expected,
 * like any rate-limited call's. */
static int64_t recv_hold(const struct trace_node *n, const struct trace_io *io, int64_t dur)
{
	int64_t h = io->res == TRACE_RES_NETRECV ? expected(n, io, dur) : 0;

	return h < dur ? h : dur;
}

/* A receive [start, end] whose data the peer sent at `sent` (node time;
 * NO_SEND when the peer's trace is not there). Up to the send the thread
 * waited on the peer: blocked, whatever stops happened meanwhile (had the
 * node run, it would still have waited). After the send the data was
 * there: a stop covering that part provably delayed the return, so it is
 * stopped; the rest is the transfer (netrecv; blocked for a wait). The
 * `hold` of a netrecv limit closes the call and is netrecv, as expected.
 * Without the send time nothing proves a stop delayed the call, so its
 * whole own time is blocked. */
static void account_recv(struct acct *a, const struct trace_node *n, enum trace_res res, int64_t hold,
			 int64_t start, int64_t end, int64_t sent)
{
	int64_t own = end - hold, c = own;
	enum cat after = res == TRACE_RES_NETRECV ? CAT_NETRECV : CAT_BLOCKED;

	if (sent != NO_SEND)
		c = sent < start ? start : sent > own ? own : sent;
	emit(a, CAT_BLOCKED, start, c);
	split_stops(a, n, after, c, own, own - c);
	emit(a, CAT_NETRECV, own, end);
}

void account_gap(struct acct *a, const struct trace_node *n, int64_t start, int64_t end)
{
	split_stops(a, n, CAT_COMPUTE, start, end, end - start);
}

void account_io(struct acct *a, const struct trace_node *n, const struct trace_io *io,
		int64_t start, int64_t end)
{
	int64_t dur = end - start, over;

	if (is_recv(io)) {
		account_recv(a, n, io->res, recv_hold(n, io, dur), start, end, NO_SEND);
		return;
	}
	over = dur - expected(n, io, dur);
	split_stops(a, n, io_category(io), start, end, over > 0 ? over : 0);
}

/* Per-thread walk shared by consumption, ttx and utilization. */
void walk_thread(struct thread_walk *w, struct trace_thread *t)
{
	struct peers *p = w->peers;

	memset(w, 0, sizeof(*w));
	w->cursor = t->start;
	w->peers = p;
	filter_select(&w->acct.sel, t->node);
}

/* The part [*s, *e] of io inside the thread's life and after the cursor;
 * the gap before it is accounted and the cursor moved past it. */
static void walk_span(struct thread_walk *w, struct trace_thread *t, const struct trace_io *io,
		      int64_t *s, int64_t *e)
{
	*s = io->start < w->cursor ? w->cursor : io->start;
	*e = io->end > t->end ? t->end : io->end;
	if (*s > *e)
		*s = *e;
	/* computing is no call: a call filter leaves it out */
	w->acct.sel.out = w->acct.sel.calls;
	account_gap(&w->acct, t->node, w->cursor, *s);
	w->acct.sel.out = !filt.selected;
	if (*e > w->cursor)
		w->cursor = *e;
}

void walk_io(struct thread_walk *w, struct trace_thread *t, const struct trace_io *io)
{
	int64_t s, e;

	/* an asynchronous operation ran beside the thread: none of its time
	 * (its submitting and reaping calls are) */
	if (trace_io_attr(io, "async"))
		return;

	walk_span(w, t, io, &s, &e);
	if (w->peers && is_recv(io)) {
		int64_t sent;

		if (!peers_sent(w->peers, t->node, io->peer, e, &sent))
			sent = NO_SEND;
		account_recv(&w->acct, t->node, io->res, recv_hold(t->node, io, e - s),
			     s, e, sent);
		return;
	}
	account_io(&w->acct, t->node, io, s, e);
}

void walk_end(struct thread_walk *w, struct trace_thread *t)
{
	w->acct.sel.out = w->acct.sel.calls;
	if (t->end > w->cursor)
		account_gap(&w->acct, t->node, w->cursor, t->end);
	w->cursor = t->end;
}

/* A network receive whose split waits for the peer's sends: the peer's
 * trace may come later on the command line, and every node's sockets
 * come at its end. The categories of a thread are sums, so accounting
 * the receive after the thread is the same. */
struct pending_recv {
	int thread;
	enum trace_res res;
	const struct trace_node *node;
	const char *peer;	/* interned */
	int64_t start, end, hold;
	int64_t io_start;	/* as traced, to find its packets */
	struct sel sel;
};

/* A thread's intervals per category, on the run's clock, for the
 * wall-clock ALL rows: those its walk accounted, in time order, and its
 * deferred receives', in time order among themselves. */
struct wall {
	struct ilist walked[CAT_N], deferred[CAT_N];
};

struct cons {
	struct consumption *per;	/* by thread index */
	size_t n, cap;
	struct wall *wall;		/* by thread index */
	size_t capwall;
	int cur;			/* the thread the sink adds to */
	bool settling;			/* deferred receives: their own lists */
	struct thread_walk w;
	struct peers *peers;
	struct pending_recv *pend;
	size_t npend, cappend;
};

static void wall_sink(void *arg, enum cat k, int64_t s, int64_t e)
{
	struct cons *c = arg;
	struct wall *w = &c->wall[c->cur];

	ilist_add(c->settling ? &w->deferred[k] : &w->walked[k], s, e);
}

static void on_thread(void *ctx, struct trace_thread *t)
{
	struct cons *c = ctx;
	size_t had = c->capwall;

	XGROW(c->wall, c->capwall, (size_t)t->index + 1);
	memset(c->wall + had, 0, (c->capwall - had) * sizeof(*c->wall));
	for (int k = 0; k < CAT_N; k++)
		c->wall[t->index].walked[k].off = c->wall[t->index].deferred[k].off = t->node->off;
	walk_thread(&c->w, t);
	c->cur = t->index;
	c->w.acct.sink = wall_sink;
	c->w.acct.arg = c;
}

static void defer_recv(struct cons *c, struct trace_thread *t, const struct trace_io *io)
{
	struct pending_recv *p;
	int64_t s, e;

	walk_span(&c->w, t, io, &s, &e);
	XGROW(c->pend, c->cappend, c->npend + 1);
	p = &c->pend[c->npend++];
	p->thread = t->index;
	p->node = t->node;
	p->res = io->res;
	p->peer = intern(io->peer);
	p->start = s;
	p->end = e;
	p->io_start = io->start;
	p->hold = recv_hold(t->node, io, e - s);
	p->sel = c->w.acct.sel;
}

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	struct cons *c = ctx;

	if (is_recv(io) && peer_is_address(io->peer))
		defer_recv(c, t, io);
	else
		walk_io(&c->w, t, io);
}

/* A receive whose bytes' journey the packets tell (--pcap): blocked
 * until the peer sent them, netrecv while they crossed the wire, and after
 * they arrived netrecv again (the transfer into the app), or stopped where
 * a stop of the node covers it: the data was there, the stop delayed the
 * return. part[] is net_recv_split()'s: waited, wire, after. */
static void account_recv_wire(struct acct *a, const struct trace_node *n, int64_t start,
			      int64_t end, const int64_t part[3])
{
	int64_t sent = start + part[0], arrived = sent + part[1];

	if (arrived > end)
		arrived = end;
	emit(a, CAT_BLOCKED, start, sent);
	emit(a, CAT_NETRECV, sent, arrived);
	split_stops(a, n, CAT_NETRECV, arrived, end, end - arrived);
}

/* The packets' view of the receives, when some node has a pcap. */
struct wire {
	struct netrun nr;
	struct wcall { const char *node; int64_t start; size_t call; } *v;
	size_t n;
	bool on;
};

static int cmp_wcall(const void *x, const void *y)
{
	const struct wcall *a = x, *b = y;
	int c = strcmp(a->node, b->node);

	return c ? c : a->start < b->start ? -1 : a->start > b->start;
}

static void wire_collect(struct wire *w, struct trace_run *run, char **files, int nfiles)
{
	for (size_t i = 0; i < run->nnodes; i++)
		w->on |= run->nodes[i]->pcap != NULL;
	if (!w->on)
		return;
	net_collect(&w->nr, files, nfiles);
	w->v = xcalloc(w->nr.ncalls + 1, sizeof(*w->v));
	for (size_t i = 0; i < w->nr.ncalls; i++) {
		const struct netcall *k = &w->nr.calls[i];
		if (k->recv && !k->opens)
			w->v[w->n++] = (struct wcall){ w->nr.nodes[k->node].name, k->start, i };
	}
	qsort(w->v, w->n, sizeof(*w->v), cmp_wcall);
}

static bool wire_split(struct wire *w, const char *node, int64_t start, int64_t part[3])
{
	struct wcall key = { node, start, 0 };
	const struct wcall *hit;

	if (!w->on || !(hit = bsearch(&key, w->v, w->n, sizeof(*w->v), cmp_wcall)))
		return false;
	return net_recv_split(&w->nr, hit->call, part);
}

static void wire_free(struct wire *w)
{
	if (w->on)
		net_free(&w->nr);
	free(w->v);
}

/* Each deferred receive: split by its packets when there are some, else
 * at the peer's last send before it returned. */
static void settle_recvs(struct cons *c, struct wire *w)
{
	for (size_t i = 0; i < c->npend; i++) {
		struct pending_recv *p = &c->pend[i];
		struct acct a = { .sel = p->sel, .sink = wall_sink, .arg = c };
		int64_t sent, part[3];

		if ((size_t)p->thread >= c->n)	/* a thread that never ended */
			continue;
		c->cur = p->thread;
		c->settling = true;
		if (wire_split(w, p->node->name, p->io_start, part)) {
			account_recv_wire(&a, p->node, p->start, p->end, part);
		} else {
			if (!peers_sent(c->peers, p->node, p->peer, p->end, &sent))
				sent = NO_SEND;
			account_recv(&a, p->node, p->res, p->hold, p->start, p->end, sent);
		}
		for (int k = 0; k < CAT_N; k++) {
			c->per[p->thread].cat[k] += a.in[k];
			if (p->sel.on)
				c->per[p->thread].live += a.in[k];
		}
	}
}

static void on_thread_end(void *ctx, struct trace_thread *t)
{
	struct cons *c = ctx;

	walk_end(&c->w, t);
	XGROW(c->per, c->cap, (size_t)t->index + 1);
	c->n = (size_t)t->index + 1;
	c->per[t->index].live = t->end - t->start;
	memcpy(c->per[t->index].cat, c->w.acct.in, sizeof(c->w.acct.in));
	if (c->w.acct.sel.on) {		/* live: the instants selected */
		c->per[t->index].live = 0;
		for (int k = 0; k < CAT_N; k++)
			c->per[t->index].live += c->w.acct.in[k];
	}
}

static const struct trace_ops cons_ops = {
	.thread = on_thread, .io = on_io, .thread_end = on_thread_end,
};

/* The wall-clock view: each category's union over the threads, and
 * live the union of everything accounted (without filters: of the
 * threads' lives). O(n log k) in the intervals (ilist_union). */
static void wall_union(struct cons *c, struct consumption *wall)
{
	size_t nt = c->n < c->capwall ? c->n : c->capwall;
	struct ilist **l = xcalloc(2 * nt * CAT_N + 1, sizeof(*l));
	size_t n = 0;

	for (int k = 0; k < CAT_N; k++) {
		size_t from = n;

		for (size_t i = 0; i < nt; i++) {
			l[n++] = &c->wall[i].walked[k];
			l[n++] = &c->wall[i].deferred[k];
		}
		wall->cat[k] = ilist_union(l + from, n - from);
	}
	wall->live = ilist_union(l, n);
	for (size_t i = 0; i < c->capwall; i++)
		for (int k = 0; k < CAT_N; k++) {
			ilist_free(&c->wall[i].walked[k]);
			ilist_free(&c->wall[i].deferred[k]);
		}
	free(c->wall);
	free(l);
}

static void *cons_begin(struct trace_run *run)
{
	struct cons *c = xcalloc(1, sizeof(*c));

	c->peers = peers_new();
	return c;
}

static struct peers *cons_peers(void *st)
{
	return ((struct cons *)st)->peers;
}

/* After the reading: the receives settled, per thread and in all. */
static void cons_settle(struct cons *c, char **files, int nfiles, struct trace_run *run,
			struct consumption **per, struct cons_all *all)
{
	struct wire w = { 0 };

	wire_collect(&w, run, files, nfiles);
	settle_recvs(c, &w);
	wire_free(&w);
	free(c->pend);
	peers_free(c->peers);
	memset(all, 0, sizeof(*all));
	for (size_t i = 0; i < c->n; i++) {
		all->sum.live += c->per[i].live;
		for (int k = 0; k < CAT_N; k++)
			all->sum.cat[k] += c->per[i].cat[k];
	}
	wall_union(c, &all->wall);
	if (per)
		*per = c->per;
	else
		free(c->per);
	free(c);
}

void consumption_collect(char **files, int nfiles, struct trace_run *run,
			 struct consumption **per, struct cons_all *all)
{
	struct cons *c = cons_begin(run);

	filt.every_call = true;
	read_traces_peers(run, files, nfiles, &cons_ops, c, c->peers);
	cons_settle(c, files, nfiles, run, per, all);
}

/* The thread's process: pid and program (procs.c), after the figures:
 * scripts read the columns before them by position. */
static void proc_cells(struct table *t, const struct trace_proc *p)
{
	if (!p) {
		table_none(t, "");
		table_none(t, "");
		return;
	}
	table_addf(t, "%ld", p->pid);
	table_add(t, proc_name(p));
}

static void add_rows(struct table *t, const char *node, const char *tid,
		     const char *name, const struct trace_proc *p, const struct consumption *c)
{
	char buf[64];

	table_add(t, node);
	if (*tid)
		table_add(t, tid);
	else
		table_none(t, "");
	table_add(t, name);
	table_add(t, "live");
	table_add(t, fmt_secs(buf, sizeof(buf), c->live));
	table_pct(t, (double)c->live, (double)c->live);
	proc_cells(t, p);
	for (int k = 0; k < CAT_N; k++) {
		table_add(t, node);
		if (*tid)
			table_add(t, tid);
		else
			table_none(t, "");
		table_add(t, name);
		table_add(t, cat_names[k]);
		table_add(t, fmt_secs(buf, sizeof(buf), c->cat[k]));
		table_pct(t, (double)c->cat[k], (double)c->live);
		proc_cells(t, p);
	}
}

static const struct coldef cols[] = {
	{ "node", COL_TEXT, 0 }, { "tid", COL_INT, 0 }, { "thread", COL_TEXT, 0 },
	{ "category", COL_TEXT, 0 }, { "seconds", COL_SECS, 0 }, { "pct_live", COL_PCT, 0 },
	{ "pid", COL_INT, 0 }, { "process", COL_TEXT, 0 },
};
const struct tabledef consumption_tables[] = { TABLEDEF("consumption", cols), { NULL } };

static void cons_end(void *st, struct trace_run *run, char **files, int nfiles)
{
	struct consumption *per = NULL;
	struct cons_all all;
	struct table *t;
	char tid[32];

	cons_settle(st, files, nfiles, run, &per, &all);
	t = table_new(&consumption_tables[0]);
	table_align(t, "lrllrrrl");
	for (size_t i = 0; i < run->nthreads; i++) {
		struct trace_thread *th = run->threads[i];

		/* filtered: a thread none of whose time was selected (not
		 * alive in the window, no selected call) is not in it */
		if (filt.active && !per[i].live)
			continue;
		snprintf(tid, sizeof(tid), "%ld", th->tid);
		add_rows(t, th->node->name, tid, th->name, th->proc, &per[i]);
	}
	add_rows(t, "ALL", "", "SUM", NULL, &all.sum);
	add_rows(t, "ALL", "", "ALL", NULL, &all.wall);
	table_emit(t);
	/* which time "compute" is: not the kernel's CPU time (sums, summary) */
	if (!opt.csv && !opt.output)
		printf("note: compute is wall-clock time outside calls (and in res=proc calls), not CPU time (sums' cpu, summary's cpu_s);\n"
		       "      SUM adds the threads up (thread-seconds); ALL is wall-clock: the instants some thread was in each category\n");
	free(per);
}

const struct passdef consumption_pass = { cons_begin, &cons_ops, cons_end, true, cons_peers };

int report_consumption(int argc, char **argv)
{
	return pass_run(&consumption_pass, argc, argv);
}
