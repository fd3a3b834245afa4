/* utilization: of the provided resources (--cores N over the run, or over
 * --span SECONDS), the application's share U_a, the system's U_s and the
 * idle rest U_i, in core-seconds and percent; they add up to 100%.
 *   span files: each span uses `cores` cores for its duration, for its
 *     owner (app or system); spans are clipped to the provided span.
 *   traces: from the threads' CPU time (their cpu attribute), never from
 *     wall time: a thread that waited for a core computed for less than
 *     its wall time outside calls. A thread's app share is its CPU time up
 *     to its compute category (the wall time it spent outside calls, the most
 *     it can have computed there); system is the rest of its CPU time
 *     (kernel and library work inside calls). A thread without a cpu
 *     attribute counts its compute category as app, and a warning says so.
 *     With --span, a thread's app counts in proportion to its compute
 *     category inside the first SECONDS of the run, its system in
 *     proportion to its live time inside them (the trace says how much
 *     CPU, not when). --from/--to and --call/--path count the same way:
 *     a thread's app in proportion to its compute category inside what the
 *     filters select, its system to its live time there; the provided
 *     time is the window's. Use beyond what was provided is warned about and
 *     scaled down so that the shares stay within 100 %. */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

void util_spans(const struct spans *s, double cores, int64_t span, bool has_span,
		struct util_result *u)
{
	int64_t t0 = 0, t1 = 0;

	memset(u, 0, sizeof(*u));
	for (size_t i = 0; i < s->n; i++) {
		if (i == 0 || s->v[i].start < t0)
			t0 = s->v[i].start;
		if (i == 0 || s->v[i].end > t1)
			t1 = s->v[i].end;
	}
	if (has_span)
		t1 = t0 + span;
	u->avail = cores * (double)(t1 - t0) / 1e9;
	for (size_t i = 0; i < s->n; i++) {
		int64_t a = s->v[i].start, b = s->v[i].end;

		if (b > t1)
			b = t1;
		if (b <= a)
			continue;
		if (s->v[i].owner)
			u->sys += s->v[i].cores * (double)(b - a) / 1e9;
		else
			u->app += s->v[i].cores * (double)(b - a) / 1e9;
	}
	u->idle = u->avail - u->app - u->sys;
}

struct ut {
	struct thread_walk w;
	double app, sys;
	bool clip;		/* --span: count inside [lo, hi] only */
	int64_t lo, hi;
	int64_t off;		/* the current thread's node, on the run's clock */
	int64_t in_cpu, in_live;	/* the current thread's */
	int nocpu;		/* threads without a cpu attribute */
};

static void clip_sink(void *arg, enum cat c, int64_t s, int64_t e)
{
	struct ut *u = arg;
	int64_t a = s + u->off > u->lo ? s + u->off : u->lo;
	int64_t b = e + u->off < u->hi ? e + u->off : u->hi;

	if (b <= a)
		return;
	u->in_live += b - a;
	if (c == CAT_COMPUTE)
		u->in_cpu += b - a;
}

static void on_thread(void *ctx, struct trace_thread *t)
{
	struct ut *u = ctx;

	walk_thread(&u->w, t);
	if (u->clip) {
		u->w.acct.sink = clip_sink;
		u->w.acct.arg = u;
		u->in_cpu = u->in_live = 0;
		u->off = t->node->off;
	}
}

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	walk_io(&((struct ut *)ctx)->w, t, io);
}

static void on_thread_end(void *ctx, struct trace_thread *t)
{
	struct ut *u = ctx;
	int64_t cpu, live = 0;

	walk_end(&u->w, t);
	cpu = u->w.acct.cat[CAT_COMPUTE];
	for (int k = 0; k < CAT_N; k++)      /* what clip_sink was given */
		live += u->w.acct.cat[k];
	int64_t sel_live = 0, sel_cpu = u->w.acct.in[CAT_COMPUTE];

	for (int k = 0; k < CAT_N; k++)
		sel_live += u->w.acct.in[k];
	if (u->clip) {		/* clip_sink was given the selected part */
		sel_live = u->in_live;
		sel_cpu = u->in_cpu;
	}
	double in_live = live > 0 ? (double)sel_live / (double)live : 0;
	double in_cpu = cpu > 0 ? (double)sel_cpu / (double)cpu : 0;
	int64_t app = cpu, sys = 0;

	if (t->has_cpu) {
		app = t->cpu < cpu ? t->cpu : cpu;
		sys = t->cpu - app;
	} else {
		u->nocpu++;
	}
	u->app += (double)app / 1e9 * in_cpu;
	u->sys += (double)sys / 1e9 * in_live;
}

static const struct coldef cols[] = {
	{ "use", COL_TEXT, 0 }, { "core_seconds", COL_NUM, 0 }, { "percent", COL_PCT, 0 },
};
const struct tabledef utilization_tables[] = { TABLEDEF("utilization", cols), { NULL } };

static void util_print(const struct util_result *u)
{
	const char *names[] = { "app", "system", "idle", "total" };
	double v[] = { u->app, u->sys, u->idle, u->avail };
	struct table *t = table_new(&utilization_tables[0]);

	for (int i = 0; i < 4; i++) {
		table_add(t, names[i]);
		table_addf(t, "%.6f", v[i]);
		table_pct(t, v[i], u->avail);
	}
	table_emit(t);
}

/* The time the cores were provided for: the run, or --span, within the
 * --from/--to window. */
static int64_t provided(const struct trace_run *run)
{
	int64_t lo = run->t0, hi = opt.has_span ? run->t0 + opt.span : run->t1;

	if (filt.has_from && run->t0 + filt.from > lo)
		lo = run->t0 + filt.from;
	if (filt.has_to && run->t0 + filt.to < hi)
		hi = run->t0 + filt.to;
	return hi > lo ? hi - lo : 0;
}

int report_utilization(int argc, char **argv)
{
	struct util_result u;

	if (opt.cores <= 0)
		die(2, "utilization: say how many cores were provided (--cores N)");
	if (all_span_files(argc, argv)) {
		struct spans s = { 0 };

		for (int i = 0; i < argc; i++)
			spans_read(&s, argv[i]);
		util_spans(&s, opt.cores, opt.span, opt.has_span, &u);
		spans_free(&s);
	} else {
		static const struct trace_ops ops = {
			.thread = on_thread, .io = on_io, .thread_end = on_thread_end,
		};
		struct trace_run run = { 0 };
		struct ut x = { 0 };

		/* No peers: how a receive splits never changes its cpu. */
		if (opt.has_span) {
			prescan(&run, argv, argc);	/* where the run starts */
			x.clip = true;
			x.lo = run.t0;
			x.hi = run.t0 + opt.span;
		}
		filt.every_call = true;
		read_traces(&run, argv, argc, &ops, &x);
		memset(&u, 0, sizeof(u));
		u.avail = opt.cores * (double)provided(&run) / 1e9;
		u.app = x.app;
		u.sys = x.sys;
		u.idle = u.avail - u.app - u.sys;
		if (x.nocpu)
			warnx("warning: %d thread%s without a cpu attribute: %s wall time "
			      "outside calls counts as app", x.nocpu, x.nocpu > 1 ? "s" : "",
			      x.nocpu > 1 ? "their" : "its");
		run_free(&run);
	}
	if (u.idle < 0) {
		double used = u.app + u.sys;

		/* More than --cores provided: the shares of what was provided,
		 * in proportion, never above 100 %. */
		warnx("warning: the use exceeds the provided resources by %.6f core-seconds "
		      "(%.2f %%); app and system are scaled to the provided",
		      -u.idle, used / u.avail * 100);
		u.app = u.app / used * u.avail;
		u.sys = u.avail - u.app;
		u.idle = 0;
	}
	util_print(&u);
	return 0;
}
