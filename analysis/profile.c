/*
 * profile REPORT: the snapshots of island-capture --profile, reduced as
 * the environment profiling seed asks.
 *   raw        every snapshot (--format folded: folded stacks)
 *   inclusive  per function: inclusive and exclusive value
 *   callers    per (caller, function): the value of that call path
 *   breakdown  the run's wall time by category
 *   timeline   how functions nest over time (--cutoff MS)
 *   allocs     bytes and counts by size class and allocating function
 *   leaks      bytes live at the end, by allocation site
 * --value cpu|wall|alloc picks what a snapshot counts (default cpu);
 * --user-only gives library and system frames to the user function that
 * called them; --categories adds functions up into the breakdown's
 * categories. Several traces add up. Memory: per distinct function or
 * pair; timeline and leaks hold a thread's open frames and live blocks.
 */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

enum { PT_RAW, PT_INCLUSIVE, PT_CALLERS, PT_BREAKDOWN, PT_TIMELINE, PT_ALLOCS, PT_LEAKS };

static const struct coldef raw_cols[] = {
	{ "node", COL_TEXT, 0 }, { "tid", COL_INT, 0 }, { "t", COL_NUM, 0 },
	{ "kind", COL_TEXT, 0 }, { "cpu_s", COL_SECS, 0 }, { "wall_s", COL_SECS, 0 },
	{ "alloc", COL_INT, 0 }, { "allocs", COL_INT, 0 }, { "stack", COL_TEXT, 0 },
};
/* inclusive and exclusive: seconds, or bytes with --value alloc */
static const struct coldef inclusive_cols[] = {
	{ "function", COL_TEXT, 0 }, { "inclusive", COL_NUM, 0 }, { "exclusive", COL_NUM, 0 },
	{ "inclusive_pct", COL_PCT, 0 }, { "exclusive_pct", COL_PCT, 0 },
	{ "samples", COL_INT, 0 }, { "module", COL_TEXT, 0 },
};
static const struct coldef callers_cols[] = {
	{ "caller", COL_TEXT, 0 }, { "function", COL_TEXT, 0 }, { "value", COL_NUM, 0 },
	{ "pct_of_function", COL_PCT, 0 },
};
static const struct coldef breakdown_cols[] = {
	{ "category", COL_TEXT, 0 }, { "seconds", COL_SECS, 0 }, { "pct_of_wall", COL_PCT, 0 },
};
static const struct coldef timeline_cols[] = {
	{ "node", COL_TEXT, 0 }, { "tid", COL_INT, 0 }, { "depth", COL_INT, 0 },
	{ "function", COL_TEXT, 0 }, { "start", COL_NUM, 0 }, { "end", COL_NUM, 0 },
	{ "dur", COL_SECS, 0 },
};
static const struct coldef allocs_cols[] = {
	{ "function", COL_TEXT, 0 }, { "size_class", COL_TEXT, 0 }, { "allocs", COL_INT, 0 },
	{ "bytes", COL_INT, 0 },
};
static const struct coldef leaks_cols[] = {
	{ "site", COL_TEXT, 0 }, { "live_blocks", COL_INT, 0 }, { "live_bytes", COL_INT, 0 },
};
const struct tabledef profile_tables[] = {
	TABLEDEF("raw", raw_cols), TABLEDEF("inclusive", inclusive_cols),
	TABLEDEF("callers", callers_cols), TABLEDEF("breakdown", breakdown_cols),
	TABLEDEF("timeline", timeline_cols), TABLEDEF("allocs", allocs_cols),
	TABLEDEF("leaks", leaks_cols), { NULL },
};

enum value { V_CPU, V_WALL, V_ALLOC };
enum pcat { PC_USER, PC_SYSTEM, PC_MEMORY, PC_UNKNOWN, PC_N };
static const char *const pcat_names[PC_N] = {
	"user code", "libc/system code", "memory management", "unknown code",
};

/* The breakdown's categories of the time in calls and stops, as
 * analysis/consumption.c accounts it: enum cat to these. */
enum bcat { BC_IO, BC_OS, BC_BLOCK, BC_STOP, BC_N };
static const char *const bcat_names[BC_N] = {
	"I/O", "other OS calls", "thread blocking", "stopped by restrictions",
};
static const enum bcat bcat_of[CAT_N] = {
	[CAT_COMPUTE] = BC_OS,	/* in a call: res proc, or a raw syscall() */
	[CAT_SLEEP] = BC_BLOCK, [CAT_BLOCKED] = BC_BLOCK,
	[CAT_FILEREAD] = BC_IO, [CAT_FILEWRITE] = BC_IO, [CAT_FILEMETA] = BC_IO,
	[CAT_NETSEND] = BC_IO, [CAT_NETRECV] = BC_IO, [CAT_PIPE] = BC_IO,
	[CAT_STOPPED] = BC_STOP,
};

#define MAXFRAMES 130

/* --- frames and their categories ------------------------------------------ */

static bool is_alloc_fn(const char *fn)
{
	static const char *const names[] = {
		"malloc", "free", "calloc", "realloc", "posix_memalign",
		"aligned_alloc", "memalign", "valloc", "pvalloc", "cfree",
		"_int_malloc", "_int_free", "_int_realloc", "_int_memalign",
		"malloc_consolidate", "sysmalloc", "systrim", "__libc_malloc",
		"__libc_free", "__libc_calloc", "__libc_realloc", "tcache_init",
		"unlink_chunk", "__default_morecore", "__brk", "__sbrk", "sbrk",
		"operator new", "operator delete", "_Znwm", "_ZdlPv", "_ZdlPvm",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(fn, names[i]))
			return true;
	return !strncmp(fn, "_int_", 5) || !strncmp(fn, "tcache", 6);
}

static bool is_system_module(const char *m)
{
	return !strncmp(m, "/lib/", 5) || !strncmp(m, "/lib64/", 7) ||
	       !strncmp(m, "/usr/lib/", 9) || !strncmp(m, "/usr/lib64/", 11) ||
	       !strncmp(m, "linux-vdso", 10) || strstr(m, "libisland-capture");
}

static enum pcat category(const struct frame *f)
{
	if (is_alloc_fn(f->func))
		return PC_MEMORY;
	if (!f->module[0])
		return PC_UNKNOWN;
	return is_system_module(f->module) ? PC_SYSTEM : PC_USER;
}

static enum value value_kind(void)
{
	if (!opt.value || !strcmp(opt.value, "cpu"))
		return V_CPU;
	if (!strcmp(opt.value, "wall"))
		return V_WALL;
	if (!strcmp(opt.value, "alloc"))
		return V_ALLOC;
	die(2, "--value: '%s' is none of cpu, wall, alloc", opt.value);
}

static int64_t value_of(const struct trace_sample *s)
{
	switch (value_kind()) {
	case V_CPU: return s->cpu;
	case V_WALL: return s->wall;
	case V_ALLOC: return s->alloc;
	}
	return 0;
}

static void add_value(struct table *t, int64_t v)
{
	char buf[64];

	if (value_kind() == V_ALLOC)
		table_addf(t, "%lld", (long long)v);
	else
		table_add(t, fmt_secs(buf, sizeof(buf), v));
}

/* The frames of a snapshot, innermost first; --user-only keeps the user
 * frames (a stack without any keeps its outermost frame). */
static int frames_of(const struct trace_thread *t, const char *stack, const struct frame **out)
{
	char tok[64];
	int n = 0;

	while (*stack && n < MAXFRAMES) {
		size_t l = strcspn(stack, " ");

		if (l && l < sizeof(tok)) {
			memcpy(tok, stack, l);
			tok[l] = 0;
			out[n++] = site_frame(t, tok);
		}
		stack += l;
		while (*stack == ' ')
			stack++;
	}
	if (opt.user_only) {
		int k = 0;

		for (int i = 0; i < n; i++)
			if (category(out[i]) == PC_USER)
				out[k++] = out[i];
		if (!k && n)
			out[k++] = out[n - 1];
		n = k;
	}
	return n;
}

/* What a frame adds up under: its function, or its category. */
static const char *key_of(const struct frame *f)
{
	return opt.categories ? pcat_names[category(f)] : f->func;
}

/* --- a table of keys (one or two interned strings) to sums ---------------- */

struct acc {
	const char *a, *b;	/* b: NULL for one key */
	const char *module;
	int64_t v[3];
	int64_t n;
};

struct accs {
	struct acc *v;
	size_t n, cap;
};

static struct acc *acc_get(struct accs *m, const char *a, const char *b)
{
	size_t h;

	if (m->n * 2 >= m->cap) {
		struct accs g = { .cap = m->cap ? m->cap * 2 : 256 };

		g.v = xcalloc(g.cap, sizeof(*g.v));
		for (size_t i = 0; i < m->cap; i++)
			if (m->v[i].a) {
				h = (((uintptr_t)m->v[i].a >> 3) * 31 + ((uintptr_t)m->v[i].b >> 3)) & (g.cap - 1);
				while (g.v[h].a)
					h = (h + 1) & (g.cap - 1);
				g.v[h] = m->v[i];
			}
		free(m->v);
		*m = g;
		m->n = 0;
		for (size_t i = 0; i < m->cap; i++)
			m->n += m->v[i].a != NULL;
	}
	h = (((uintptr_t)a >> 3) * 31 + ((uintptr_t)b >> 3)) & (m->cap - 1);
	while (m->v[h].a && !(m->v[h].a == a && m->v[h].b == b))
		h = (h + 1) & (m->cap - 1);
	if (!m->v[h].a) {
		m->v[h].a = a;
		m->v[h].b = b;
		m->n++;
	}
	return &m->v[h];
}

static int sort_col;
static int cmp_acc(const void *x, const void *y)
{
	const struct acc *a = x, *b = y;

	if (a->v[sort_col] != b->v[sort_col])
		return a->v[sort_col] < b->v[sort_col] ? 1 : -1;
	if (strcmp(a->a, b->a))
		return strcmp(a->a, b->a);
	return a->b && b->b ? strcmp(a->b, b->b) : 0;
}

static struct acc *sorted(struct accs *m, int col, size_t *n)
{
	struct acc *v = xcalloc(m->n ? m->n : 1, sizeof(*v));

	*n = 0;
	for (size_t i = 0; i < m->cap; i++)
		if (m->v[i].a)
			v[(*n)++] = m->v[i];
	sort_col = col;
	qsort(v, *n, sizeof(*v), cmp_acc);
	return v;
}

/* --- state shared by the reports ------------------------------------------ */

struct prof_thread {
	int64_t last_io_end;	/* a snapshot before it was taken in a call */
	int64_t last_io_start;
	int64_t call_cat[BC_N];	/* --categories: the last call's time */
	/* breakdown: the thread's walk (consumption.c) */
	struct thread_walk w;
	struct prof *p;
	struct trace_thread *t;
	int64_t io_start;	/* the call being accounted, or INT64_MAX */
	/* timeline: the open frames, outermost first */
	const char **open;
	int64_t *since;
	int nopen;
	size_t capopen;
	int64_t last_t;
};

struct prof {
	const char *report;
	struct accs funcs, pairs;
	int64_t total, samples;
	struct table *t;
	/* breakdown: wall in the window; outside calls, running (gaps);
	 * in calls and stops by category; the CPU snapshots by code */
	int64_t wall, gaps, bc[BC_N], cat_cpu[PC_N], cpu_samples;
	bool windowed;
	bool has_from, has_to;
	int64_t from, to;
	struct peers *peers;
	/* leaks: live blocks */
	struct live { uint64_t ptr; const char *site; int64_t bytes; } *live;
	size_t nlive, caplive;
	/* timeline rows */
	struct trow { const char *node; long tid; int depth; const char *fn;
		      int64_t start, end; } *rows;
	size_t nrows, caprows;
	bool any_profile, alloc_snaps;
	struct trace_run *run;
};

static struct prof_thread *ts_of(struct trace_thread *t)
{
	if (!t->priv)
		t->priv = xcalloc(1, sizeof(struct prof_thread));
	return t->priv;
}

/* breakdown: --from/--to as node times */
static void window_of(const struct prof *p, const struct trace_thread *t, int64_t *lo, int64_t *hi)
{
	int64_t base = p->run->t0 - t->node->off;

	*lo = p->has_from ? base + p->from : INT64_MIN;
	*hi = p->has_to ? base + p->to : INT64_MAX;
}

static bool in_window(const struct prof *p, const struct trace_thread *t, int64_t at)
{
	int64_t lo, hi;

	if (!p->windowed)
		return true;
	window_of(p, t, &lo, &hi);
	return at >= lo && at < hi;
}

/* Clipped to the window */
static int64_t clip(const struct prof *p, const struct trace_thread *t, int64_t s, int64_t e)
{
	int64_t lo, hi;

	if (p->windowed) {
		window_of(p, t, &lo, &hi);
		s = s < lo ? lo : s;
		e = e > hi ? hi : e;
	}
	return e > s ? e - s : 0;
}

/* Every interval consumption.c accounts for the thread. */
static void bd_sink(void *arg, enum cat c, int64_t start, int64_t end)
{
	struct prof_thread *s = arg;
	int64_t d = clip(s->p, s->t, start, end);

	if (c == CAT_COMPUTE && start < s->io_start)
		s->p->gaps += d;	/* outside calls */
	else
		s->p->bc[bcat_of[c]] += d;
}

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	struct prof *p = ctx;
	struct prof_thread *s = ts_of(t);

	s->last_io_end = io->end;
	s->last_io_start = io->start;
	if (!strcmp(p->report, "breakdown")) {
		s->io_start = io->start;
		walk_io(&s->w, t, io);
		s->io_start = INT64_MAX;
	} else if (opt.categories) {
		struct acct a = { .sink = NULL };

		account_io(&a, t->node, io, io->start, io->end);
		memset(s->call_cat, 0, sizeof(s->call_cat));
		for (int c = 0; c < CAT_N; c++)
			s->call_cat[bcat_of[c]] += a.cat[c];
	}
}

/* timeline: close the frames from depth d on, at time end */
static void close_from(struct prof *p, struct trace_thread *t, struct prof_thread *s, int d, int64_t end)
{
	for (int i = s->nopen - 1; i >= d; i--) {
		if (end - s->since[i] >= opt.cutoff_ns) {
			XGROW(p->rows, p->caprows, p->nrows + 1);
			p->rows[p->nrows++] = (struct trow){ t->node->name, t->tid, i, s->open[i],
							     s->since[i], end };
		}
	}
	if (d < s->nopen)
		s->nopen = d;
}

/* One snapshot's value v, under the keys k (innermost first) of its
 * frames f. */
static void sample_one(struct prof *p, struct trace_thread *t, struct prof_thread *s,
		       const struct trace_sample *sm, const struct frame **f,
		       const char **k, int n, int64_t v)
{
	char buf[64];

	if (!strcmp(p->report, "raw")) {
		if (opt.format && !strcmp(opt.format, "folded")) {
			if (!n || v <= 0)
				return;
			for (int i = n - 1; i >= 0; i--)
				printf("%s%s", k[i], i ? ";" : "");
			/* flamegraph tools take integers: us, or bytes */
			printf(" %lld\n", (long long)(value_kind() == V_ALLOC ? v : v / 1000));
			return;
		}
		char *st = xstrdup("");

		for (int i = n - 1; i >= 0; i--) {
			char *x = xasprintf("%s%s%s", st, k[i], i ? ";" : "");
			free(st);
			st = x;
		}
		table_add(p->t, t->node->name);
		table_addf(p->t, "%ld", t->tid);
		table_add(p->t, fmt_sec(buf, sm->t));
		table_add(p->t, sm->kind);
		table_add(p->t, fmt_secs(buf, sizeof(buf), sm->cpu));
		table_add(p->t, fmt_secs(buf, sizeof(buf), sm->wall));
		table_addf(p->t, "%lld", (long long)sm->alloc);
		table_addf(p->t, "%lld", (long long)sm->allocs);
		table_add(p->t, st);
		free(st);
		return;
	}
	if (!strcmp(p->report, "inclusive")) {
		const char *seen[MAXFRAMES];
		int ns = 0;

		if (!n)
			return;
		struct acc *a = acc_get(&p->funcs, k[0], NULL);

		a->v[1] += v;		/* exclusive: the innermost frame */
		for (int i = 0; i < n; i++) {
			int j;

			for (j = 0; j < ns && seen[j] != k[i]; j++)
				;
			if (j < ns)
				continue;	/* recursion: once per snapshot */
			seen[ns++] = k[i];
			a = acc_get(&p->funcs, k[i], NULL);
			a->v[0] += v;
			a->n++;
			a->module = opt.categories ? "" : f[i]->module;
		}
		return;
	}
	if (!strcmp(p->report, "callers")) {
		const char *seen[MAXFRAMES][2];
		int ns = 0;

		/* recursion: each pair, and each function (the percent's
		 * base, its inclusive value), once per snapshot */
		for (int i = 0; i < n; i++) {
			const char *callee = k[i];
			const char *caller = i + 1 < n ? k[i + 1] : intern("");
			bool pair = true, fn = true;

			for (int j = 0; j < ns; j++) {
				if (seen[j][1] == callee)
					fn = false;
				if (seen[j][1] == callee && seen[j][0] == caller)
					pair = false;
			}
			if (pair)
				acc_get(&p->pairs, caller, callee)->v[0] += v;
			if (fn)
				acc_get(&p->funcs, callee, NULL)->v[0] += v;
			seen[ns][0] = caller;
			seen[ns++][1] = callee;
		}
		return;
	}
	if (!strcmp(p->report, "breakdown")) {
		/* the CPU outside calls, split by the snapshots taken there */
		if (strcmp(sm->kind, "call") && sm->t > s->last_io_end && n &&
		    in_window(p, t, sm->t)) {
			p->cat_cpu[category(f[0])] += sm->cpu;
			p->cpu_samples += sm->cpu;
		}
		return;
	}
	if (!strcmp(p->report, "allocs")) {
		static const int64_t class_max[] = { 16, 64, 256, 1024, 4096, 65536, 1048576, INT64_MAX };
		static const char *const class_names[] = {
			"0-16", "17-64", "65-256", "257-1K", "1K-4K", "4K-64K", "64K-1M", "1M+",
		};
		int64_t size, c = 0;

		/* the allocation snapshots, when there are (--sample-alloc): with
		 * 1, each is one allocation, exact; other snapshots carry what
		 * was allocated where no snapshot could be taken (the capture's
		 * own start) */
		if (!sm->allocs || !n || (p->alloc_snaps && strcmp(sm->kind, "alloc")))
			return;
		size = sm->alloc / sm->allocs;	/* exact with --sample-alloc 1 */
		while (size > class_max[c])
			c++;
		struct acc *a = acc_get(&p->pairs, k[0], intern(class_names[c]));

		a->v[0] += sm->alloc;
		a->v[1] += sm->allocs;
		a->v[2] = c;
		return;
	}
	if (!strcmp(p->report, "leaks")) {
		if (strcmp(sm->kind, "alloc") || !sm->ptr)
			return;
		XGROW(p->live, p->caplive, p->nlive + 1);
		p->live[p->nlive++] = (struct live){ sm->ptr, n ? f[0]->label : intern("?"),
						     sm->allocs == 1 ? sm->alloc : 0 };
		return;
	}
	if (!strcmp(p->report, "timeline")) {
		/* outermost first: a frame is on the stack from the previous
		 * snapshot of the first that shows it (what the snapshot's
		 * wall covers) to the last snapshot that shows it */
		int d = 0;
		int64_t from = sm->t - sm->wall;

		while (d < n && d < s->nopen && s->open[d] == k[n - 1 - d])
			d++;
		close_from(p, t, s, d, s->last_t ? s->last_t : sm->t);
		if ((size_t)n > s->capopen) {
			s->capopen = (size_t)n;
			s->open = xrealloc(s->open, s->capopen * sizeof(*s->open));
			s->since = xrealloc(s->since, s->capopen * sizeof(*s->since));
		}
		for (int i = d; i < n; i++) {
			s->open[i] = k[n - 1 - i];
			s->since[i] = from > t->start ? from : t->start;
		}
		s->nopen = n;
		s->last_t = sm->t;
	}
}

/* --categories, --value wall: a snapshot after a recorded call has the
 * call's time under the call's breakdown category (as the breakdown
 * accounts it: stops inside it are stopped), and any snapshot the node's
 * stops outside calls under stopped; the rest under its code. */
static void on_sample(void *ctx, struct trace_thread *t, const struct trace_sample *sm)
{
	struct prof *p = ctx;
	struct prof_thread *s = ts_of(t);
	const struct frame *f[MAXFRAMES + 1];
	const char *k[MAXFRAMES + 1];
	int n = frames_of(t, sm->stack, f + 1);
	int64_t v = value_of(sm);

	for (int i = 0; i < n; i++)
		k[i + 1] = key_of(f[i + 1]);
	bool split = false;

	p->samples++;
	p->total += v;
	if (opt.categories && value_kind() == V_WALL && n) {
		int64_t bc[BC_N] = { 0 }, from = sm->t - sm->wall, to = sm->t;

		if (!strcmp(sm->kind, "call") && s->last_io_end == sm->t) {
			memcpy(bc, s->call_cat, sizeof(bc));
			to = s->last_io_start > from ? s->last_io_start : from;
		}
		bc[BC_STOP] += ivl_overlap(t->node->stops, t->node->nstops, from, to);
		f[0] = f[1];
		split = true;
		for (int c = 0; c < BC_N; c++) {
			int64_t w = bc[c] < v ? bc[c] : v;

			if (w <= 0)
				continue;
			k[0] = bcat_names[c];
			sample_one(p, t, s, sm, f, k, n + 1, w);
			v -= w;
		}
		memset(s->call_cat, 0, sizeof(s->call_cat));
	}
	if (!split || v > 0)
		sample_one(p, t, s, sm, f + 1, k + 1, n, v);
}

static void on_free(void *ctx, struct trace_thread *t, int64_t at, uint64_t ptr)
{
	struct prof *p = ctx;

	/* the latest block at that address goes */
	for (size_t i = p->nlive; i-- > 0;)
		if (p->live[i].ptr == ptr) {
			p->live[i] = p->live[--p->nlive];
			return;
		}
}

static void on_thread(void *ctx, struct trace_thread *t)
{
	struct prof *p = ctx;
	struct prof_thread *s = ts_of(t);

	s->p = p;
	s->t = t;
	s->io_start = INT64_MAX;
	s->w.peers = p->peers;
	walk_thread(&s->w, t);
	s->w.acct.sink = bd_sink;
	s->w.acct.arg = s;
}

static void on_thread_end(void *ctx, struct trace_thread *t)
{
	struct prof *p = ctx;
	struct prof_thread *s = t->priv;

	if (s && !strcmp(p->report, "breakdown")) {
		walk_end(&s->w, t);
		p->wall += clip(p, t, t->start, t->end);
	}
	if (s && !strcmp(p->report, "timeline"))
		close_from(p, t, s, 0, s->last_t ? s->last_t : t->end);
	if (s) {
		free(s->open);
		free(s->since);
		free(s);
		t->priv = NULL;
	}
}

/* --- the tables ------------------------------------------------------------ */

static void print_inclusive(struct prof *p)
{
	size_t n;
	struct acc *v = sorted(&p->funcs, 0, &n);

	p->t = table_new(&profile_tables[PT_INCLUSIVE]);
	for (size_t i = 0; i < n; i++) {
		table_add(p->t, v[i].a);
		add_value(p->t, v[i].v[0]);
		add_value(p->t, v[i].v[1]);
		table_pct(p->t, (double)v[i].v[0], (double)p->total);
		table_pct(p->t, (double)v[i].v[1], (double)p->total);
		table_addf(p->t, "%lld", (long long)v[i].n);
		table_add(p->t, v[i].module ? v[i].module : "");
	}
	free(v);
}

static void print_callers(struct prof *p)
{
	size_t n;
	struct acc *v = sorted(&p->pairs, 0, &n);

	p->t = table_new(&profile_tables[PT_CALLERS]);
	for (size_t i = 0; i < n; i++) {
		table_add(p->t, v[i].a);
		table_add(p->t, v[i].b);
		add_value(p->t, v[i].v[0]);
		table_pct(p->t, (double)v[i].v[0], (double)acc_get(&p->funcs, v[i].b, NULL)->v[0]);
	}
	free(v);
}

static void print_breakdown(struct prof *p)
{
	int64_t share[PC_N];
	char buf[64];

	/* the time outside calls, by the categories of its snapshots */
	for (int c = 0; c < PC_N; c++)
		share[c] = p->cpu_samples ? (int64_t)((double)p->gaps * (double)p->cat_cpu[c] /
						      (double)p->cpu_samples) : 0;
	if (!p->cpu_samples)
		share[PC_UNKNOWN] = p->gaps;
	p->t = table_new(&profile_tables[PT_BREAKDOWN]);
	const struct { const char *name; int64_t v; } rows[] = {
		{ "user code", share[PC_USER] },
		{ "libc/system code", share[PC_SYSTEM] },
		{ "memory management", share[PC_MEMORY] },
		{ "unknown code", share[PC_UNKNOWN] },
		{ bcat_names[BC_IO], p->bc[BC_IO] },
		{ bcat_names[BC_OS], p->bc[BC_OS] },
		{ bcat_names[BC_BLOCK], p->bc[BC_BLOCK] },
		{ bcat_names[BC_STOP], p->bc[BC_STOP] },
		{ "total (threads' wall time)", p->wall },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		table_add(p->t, rows[i].name);
		table_add(p->t, fmt_secs(buf, sizeof(buf), rows[i].v));
		table_pct(p->t, (double)rows[i].v, (double)p->wall);
	}
}

static void print_allocs(struct prof *p)
{
	size_t n;
	struct acc *v = sorted(&p->pairs, 0, &n);

	p->t = table_new(&profile_tables[PT_ALLOCS]);
	for (size_t i = 0; i < n; i++) {
		table_add(p->t, v[i].a);
		table_add(p->t, v[i].b);
		table_addf(p->t, "%lld", (long long)v[i].v[1]);
		table_addf(p->t, "%lld", (long long)v[i].v[0]);
	}
	free(v);
}

static void print_leaks(struct prof *p)
{
	struct accs m = { 0 };
	size_t n;

	for (size_t i = 0; i < p->nlive; i++) {
		struct acc *a = acc_get(&m, p->live[i].site, NULL);

		a->v[0] += p->live[i].bytes;
		a->v[1]++;
	}
	struct acc *v = sorted(&m, 0, &n);

	p->t = table_new(&profile_tables[PT_LEAKS]);
	for (size_t i = 0; i < n; i++) {
		table_add(p->t, v[i].a);
		table_addf(p->t, "%lld", (long long)v[i].v[1]);
		table_addf(p->t, "%lld", (long long)v[i].v[0]);
	}
	free(v);
	free(m.v);
}

static int cmp_row(const void *x, const void *y)
{
	const struct trow *a = x, *b = y;
	int r = strcmp(a->node, b->node);

	if (r)
		return r;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->depth - b->depth;
}

static void print_timeline(struct prof *p)
{
	char buf[64];

	qsort(p->rows, p->nrows, sizeof(*p->rows), cmp_row);
	p->t = table_new(&profile_tables[PT_TIMELINE]);
	for (size_t i = 0; i < p->nrows; i++) {
		struct trow *r = &p->rows[i];
		char *fn = xasprintf("%*s%s", r->depth * 2, "", r->fn);

		table_add(p->t, r->node);
		table_addf(p->t, "%ld", r->tid);
		table_addf(p->t, "%d", r->depth);
		table_add(p->t, opt.csv ? r->fn : fn);
		table_add(p->t, fmt_sec(buf, r->start));
		table_add(p->t, fmt_sec(buf, r->end));
		table_add(p->t, fmt_secs(buf, sizeof(buf), r->end - r->start));
		free(fn);
	}
}

static void find_alloc(void *ctx, struct trace_thread *t, const struct trace_sample *sm)
{
	struct prof *p = ctx;

	p->alloc_snaps |= !strcmp(sm->kind, "alloc");
}

/* The reports, each a table of its own (profile_tables' order). */
static const char *const subreports[] = {
	"raw", "inclusive", "callers", "breakdown", "timeline", "allocs", "leaks",
};

int report_profile(int argc, char **argv)
{
	static const struct trace_ops ops = {
		.thread = on_thread, .thread_end = on_thread_end,
		.io = on_io, .sample = on_sample, .free = on_free,
	};
	struct prof p = { 0 };
	struct trace_run run = { 0 };
	size_t i;

	if (argc < 1)
		die(2, "profile: say which report: raw, inclusive, callers, breakdown, timeline, allocs, leaks");
	for (i = 0; i < sizeof(subreports) / sizeof(subreports[0]); i++)
		if (!strcmp(argv[0], subreports[i]))
			break;
	if (i == sizeof(subreports) / sizeof(subreports[0]))
		die(2, "profile: unknown report '%s' (raw, inclusive, callers, breakdown, "
		    "timeline, allocs, leaks)", argv[0]);
	if (argc < 2)
		die(2, "profile %s: no trace given", argv[0]);
	if (opt.format && strcmp(opt.format, "folded"))
		die(2, "profile: --format takes folded, not '%s'", opt.format);
	if (opt.format && strcmp(argv[0], "raw"))
		die(2, "profile: --format folded goes with raw");
	value_kind();
	p.report = subreports[i];
	p.run = &run;
	/* allocs: are there allocation snapshots? (one pass over the start) */
	if (!strcmp(p.report, "allocs")) {
		struct trace_run pre = { 0 };
		static const struct trace_ops find = { .sample = find_alloc };

		read_traces(&pre, argv + 1, argc - 1, &find, &p);
		run_free(&pre);
	}
	if (!strcmp(p.report, "raw") && !opt.format) {
		p.t = table_new(&profile_tables[PT_RAW]);
	}
	if (!strcmp(p.report, "breakdown")) {
		/* the window clips the calls and stops that cross it: the
		 * reader's time filter (by start) is ours here */
		p.peers = peers_new();
		if (filter_timed()) {
			prescan(&run, argv + 1, argc - 1);
			p.windowed = true;
			p.has_from = filt.has_from;
			p.has_to = filt.has_to;
			p.from = filt.from;
			p.to = filt.to;
			filt.has_from = filt.has_to = false;
		}
	}
	read_traces_peers(&run, argv + 1, argc - 1, &ops, &p, p.peers);
	if (p.peers)
		peers_free(p.peers);
	for (size_t k = 0; k < run.nnodes; k++)
		p.any_profile |= run.nodes[k]->profile != NULL;
	if (!p.any_profile)
		warnx("warning: no trace was captured with --profile: no snapshots");
	{
		size_t un = 0, first = 0;

		for (size_t k = 0; k < run.nprocs; k++)
			if (run.procs[k]->unprofiled && filter_node(run.procs[k]->node) && !un++)
				first = k;
		if (un)
			warnx("warning: %zu process%s not profiled (%ld: %s)", un, un > 1 ? "es" : "",
			      run.procs[first]->pid, run.procs[first]->unprofiled);
	}
	/* the exact allocation report needs a snapshot of every allocation
	 * (--sample-alloc 1); otherwise counters go to the next snapshot */
	for (size_t k = 0; k < run.nnodes; k++) {
		struct trace_node *n = run.nodes[k];

		if (!n->profile || (strstr(n->profile, "alloc") && n->profile_alloc_every == 1))
			continue;
		if (!strcmp(p.report, "leaks"))
			die(2, "profile leaks: node %s was captured without --sample-alloc 1: "
			    "live blocks need the site of every allocation", n->name);
		if (!strcmp(p.report, "allocs") && strstr(n->profile, "alloc")) {
			warnx("warning: node %s was captured without --sample-alloc 1: its "
			      "bytes go to the function of the next snapshot (approximate)", n->name);
			break;
		}
	}
	if (!strcmp(p.report, "inclusive"))
		print_inclusive(&p);
	else if (!strcmp(p.report, "callers"))
		print_callers(&p);
	else if (!strcmp(p.report, "breakdown"))
		print_breakdown(&p);
	else if (!strcmp(p.report, "allocs"))
		print_allocs(&p);
	else if (!strcmp(p.report, "leaks"))
		print_leaks(&p);
	else if (!strcmp(p.report, "timeline"))
		print_timeline(&p);
	if (p.t) {
		table_emit(p.t);
	}
	free(p.funcs.v);
	free(p.pairs.v);
	free(p.live);
	free(p.rows);
	run_free(&run);
	return 0;
}
