/* export: the events for other tools, streamed as they are read.
 *   --format csv: one row per record (thread, compute, io, region, stop),
 *     every attribute a column, times as in the trace (node-relative).
 *   --format chrome: trace-event JSON for Perfetto and chrome://tracing:
 *     a process per traced process, a track per thread, calls and regions
 *     as complete ("X") slices that nest by time, node stops on a track of
 *     their own; times aligned across nodes on the earliest epoch.
 *   --format xml, isb: the trace itself (export_trace.c). */
#include "analyze.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static FILE *out;

/* CSV columns: the record's kind and place, then every attribute. */
static const struct coldef cols[] = {
	{ "kind", COL_TEXT, 0 }, { "node", COL_TEXT, 0 }, { "pid", COL_INT, 0 },
	{ "tid", COL_INT, 0 }, { "thread", COL_TEXT, 0 }, { "start", COL_SECS, 0 },
	{ "end", COL_SECS, 0 }, { "dur", COL_SECS, 0 },
	{ "api", COL_TEXT, 0 }, { "res", COL_TEXT, 0 }, { "amount", COL_INT, 0 },
	{ "size", COL_INT, 0 }, { "offset", COL_INT, 0 }, { "whence", COL_TEXT, 0 },
	{ "fd", COL_INT, 0 }, { "oldfd", COL_INT, 0 }, { "fd2", COL_INT, 0 },
	{ "infd", COL_INT, 0 }, { "inpath", COL_TEXT, 0 }, { "path", COL_TEXT, 0 },
	{ "path2", COL_TEXT, 0 }, { "peer", COL_TEXT, 0 }, { "proto", COL_TEXT, 0 },
	{ "flags", COL_TEXT, 0 }, { "result", COL_INT, 0 }, { "errno", COL_TEXT, 0 },
	{ "child", COL_INT, 0 }, { "status", COL_TEXT, 0 }, { "req", COL_SECS, 0 },
	{ "timeout", COL_SECS, 0 }, { "count", COL_INT, 0 }, { "throttle", COL_SECS, 0 },
	{ "limit", COL_TEXT, 0 }, { "seq", COL_INT, 0 }, { "id", COL_INT, 0 },
	{ "parent", COL_INT, 0 }, { "depth", COL_INT, 0 }, { "label", COL_TEXT, 0 },
	{ "error", COL_TEXT, 0 },
};
const struct tabledef export_tables[] = { TABLEDEF("events", cols), { NULL } };
#define NCOLS (sizeof(cols) / sizeof(cols[0]))
#define FIRST_ATTR 8

static int col_of(const char *name)
{
	for (size_t i = FIRST_ATTR; i < NCOLS; i++)
		if (!strcmp(cols[i].name, name))
			return (int)i;
	return -1;
}

static void csv_row(const char **v)
{
	for (size_t i = 0; i < NCOLS; i++) {
		if (v[i])
			csv_field(out, v[i]);
		putc(i + 1 < NCOLS ? ',' : '\n', out);
	}
}

static void csv_place(const char **v, const char *kind, struct trace_thread *t,
		      char (*b)[32])
{
	memset(v, 0, NCOLS * sizeof(*v));
	v[0] = kind;
	v[1] = t->node->name;
	snprintf(b[0], 32, "%ld", t->proc ? t->proc->pid : 0);
	snprintf(b[1], 32, "%ld", t->tid);
	v[2] = b[0];
	v[3] = b[1];
	v[4] = t->name;
}

static void csv_times(const char **v, char (*b)[32], int64_t s, int64_t e)
{
	v[5] = fmt_sec(b[2], s);
	v[6] = fmt_sec(b[3], e);
	v[7] = fmt_sec(b[4], e - s);
}

static void csv_thread(void *ctx, struct trace_thread *t)
{
	const char *v[NCOLS];
	char b[5][32];
	struct trace_node *n = t->node;

	/* A node's stops, once, before its first thread. */
	if (n->nthreads == 1)
		for (size_t i = 0; i < n->nstops; i++) {
			csv_place(v, "stop", t, b);
			v[2] = v[3] = v[4] = NULL;
			csv_times(v, b, n->stops[i].start, n->stops[i].end);
			csv_row(v);
		}
	csv_place(v, "thread", t, b);
	csv_times(v, b, t->start, t->end);
	csv_row(v);
}

static void csv_compute(void *ctx, struct trace_thread *t, int64_t start, int64_t dur)
{
	const char *v[NCOLS];
	char b[5][32];

	csv_place(v, "compute", t, b);
	csv_times(v, b, start, start + dur);
	csv_row(v);
}

static void csv_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	const char *v[NCOLS];
	char b[5][32];

	csv_place(v, "io", t, b);
	csv_times(v, b, io->start, io->end);
	for (int i = 0; i < io->nattr; i++) {
		int c = col_of(io->attr[i].name);

		if (c >= 0)
			v[c] = io->attr[i].value;
	}
	csv_row(v);
}

static void csv_region(void *ctx, struct trace_thread *t, const struct trace_region *r)
{
	const char *v[NCOLS];
	char b[8][32];

	csv_place(v, "region", t, b);
	csv_times(v, b, r->start, r->end);
	snprintf(b[5], 32, "%ld", r->id);
	snprintf(b[6], 32, "%ld", r->parent);
	snprintf(b[7], 32, "%ld", r->depth);
	v[col_of("id")] = b[5];
	v[col_of("parent")] = b[6];
	v[col_of("depth")] = b[7];
	v[col_of("label")] = r->label;
	v[col_of("error")] = r->error;
	csv_row(v);
}

/* Chrome trace-event JSON. */
static bool first_ev = true;
static struct trace_proc *last_proc;
static int npid;

static void json_str(const char *s)
{
	putc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			putc(c, out);
	}
	putc('"', out);
}

/* Microseconds with three decimals, from nanoseconds. */
static void json_us(int64_t ns)
{
	if (ns < 0) {
		putc('-', out);
		ns = -ns;
	}
	fprintf(out, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

static void ev_begin(void)
{
	fputs(first_ev ? "\n" : ",\n", out);
	first_ev = false;
}

/* Metadata naming a process or thread; real: its own pid (or tid), or
 * -1 for the stops' pseudo process. */
static void meta(const char *what, long pid, long tid, const char *name, long real)
{
	ev_begin();
	fprintf(out, "{\"ph\":\"M\",\"pid\":%ld,\"tid\":%ld,\"name\":\"%s\",\"args\":{\"name\":",
		pid, tid, what);
	json_str(name);
	if (real >= 0)
		fprintf(out, ",\"%s\":%ld", tid ? "tid" : "pid", real);
	fputs("}}", out);
}

static void slice(long pid, long tid, int64_t s, int64_t e, const char *name,
		  const char *cat)
{
	ev_begin();
	fprintf(out, "{\"ph\":\"X\",\"pid\":%ld,\"tid\":%ld,\"ts\":", pid, tid);
	json_us(s);
	fputs(",\"dur\":", out);
	json_us(e - s);
	fputs(",\"name\":", out);
	json_str(name);
	fputs(",\"cat\":", out);
	json_str(cat);
}

static void chrome_thread(void *ctx, struct trace_thread *t)
{
	struct trace_node *n = t->node;
	char *s;

	if (n->nthreads == 1 && n->nstops) {
		/* Stops on a process of their own per node, ids after 1e6. */
		s = xasprintf("%s stops", n->name);
		meta("process_name", 1000000L + n->index, 0, s, -1);
		free(s);
		for (size_t i = 0; i < n->nstops; i++) {
			slice(1000000L + n->index, 0, n->stops[i].start + n->off,
			      n->stops[i].end + n->off, "stopped", "stop");
			fputs("}", out);
		}
	}
	if (t->proc != last_proc) {
		last_proc = t->proc;
		npid++;
		s = xasprintf("%s pid %ld %s", n->name, t->proc->pid, t->proc->exe);
		meta("process_name", npid, 0, s, t->proc->pid);
		free(s);
	}
	s = xasprintf("%s %ld", t->name, t->tid);
	meta("thread_name", npid, t->tid, s, t->tid);
	free(s);
}

/* A JSON number as RFC 8259 has it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool json_number(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		s += strspn(s, "0123456789");
	else
		return false;
	if (*s == '.') {
		size_t n = strspn(++s, "0123456789");
		if (!n)
			return false;
		s += n;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		size_t n = strspn(s, "0123456789");
		if (!n)
			return false;
		s += n;
	}
	return !*s;
}

/* An attribute: numbers (the CSV's numeric columns) as JSON numbers. */
static void json_attr(const char *name, const char *value)
{
	int c = col_of(name);

	json_str(name);
	putc(':', out);
	if (c >= 0 && cols[c].kind != COL_TEXT && json_number(value))
		fputs(value, out);
	else
		json_str(value);
}

/* The slice's args: the traced process's and thread's own ids first
 * (the JSON pid is a number per process of the run, as pids repeat
 * across nodes). */
static void args_begin(struct trace_thread *t)
{
	fprintf(out, ",\"args\":{\"pid\":%ld,\"tid\":%ld", t->proc ? t->proc->pid : 0L,
		t->tid);
}

static void chrome_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	flows_io(ctx, t, npid, io);
	slice(npid, t->tid, io->start + t->node->off, io->end + t->node->off,
	      io->api, trace_res_names[io->res]);
	args_begin(t);
	for (int i = 0; i < io->nattr; i++) {
		const char *n = io->attr[i].name;

		if (!strcmp(n, "api") || !strcmp(n, "res") || !strcmp(n, "start") ||
		    !strcmp(n, "end"))
			continue;
		putc(',', out);
		json_attr(n, io->attr[i].value);
	}
	fputs("}}", out);
}

static void chrome_region(void *ctx, struct trace_thread *t, const struct trace_region *r)
{
	slice(npid, t->tid, r->start + t->node->off, r->end + t->node->off,
	      r->label, "region");
	args_begin(t);
	fprintf(out, ",\"depth\":%ld}}", r->depth);
}

/* --profile snapshots: instant events on the thread's track, named by
 * the innermost function, the stack (outermost first) in args. */
static void chrome_sample(void *ctx, struct trace_thread *t, const struct trace_sample *sm)
{
	char tok[64], *stack = xstrdup("");
	const char *top = "?", *p = sm->stack;

	while (*p) {
		size_t l = strcspn(p, " ");

		if (l && l < sizeof(tok)) {
			const struct frame *f;
			char *x;

			memcpy(tok, p, l);
			tok[l] = 0;
			f = site_frame(t, tok);
			if (!stack[0])
				top = f->func;
			x = xasprintf("%s%s%s", f->func, stack[0] ? ";" : "", stack);
			free(stack);
			stack = x;
		}
		p += l;
		while (*p == ' ')
			p++;
	}
	ev_begin();
	fprintf(out, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%ld,\"ts\":", npid, t->tid);
	json_us(sm->t + t->node->off);
	fputs(",\"name\":", out);
	json_str(top);
	fputs(",\"cat\":\"sample\",\"args\":{\"stack\":", out);
	json_str(stack);
	fprintf(out, ",\"kind\":\"%s\",\"cpu_s\":%.9f,\"wall_s\":%.9f,\"alloc\":%lld}}",
		sm->kind, (double)sm->cpu / 1e9, (double)sm->wall / 1e9, (long long)sm->alloc);
	free(stack);
}

static void chrome_dep(void *ctx, struct trace_thread *t, const struct trace_dep *d)
{
	flows_dep(ctx, t, d);
}

static void chrome_socket(void *ctx, struct trace_node *n, const struct trace_socket *s)
{
	flows_socket(ctx, n, s);
}

int report_export(int argc, char **argv)
{
	static const struct trace_ops csv_ops = {
		.thread = csv_thread, .compute = csv_compute, .io = csv_io,
		.region = csv_region,
	};
	static const struct trace_ops chrome_ops = {
		.thread = chrome_thread, .io = chrome_io, .region = chrome_region,
		.dep = chrome_dep, .socket = chrome_socket, .sample = chrome_sample,
	};
	struct trace_run run = { 0 };
	const char *fmt = opt.format ? opt.format : "csv";

	if (!strcmp(fmt, "xml") || !strcmp(fmt, "isb"))
		return export_trace(fmt, argc, argv);
	if (!strcmp(fmt, "otf2"))
		return export_otf2(argc, argv);
	if (strcmp(fmt, "csv") && strcmp(fmt, "chrome"))
		die(2, "export: --format must be csv, chrome, xml, isb or otf2, not '%s'", fmt);
	out = stdout;
	if (opt.output && !(out = fopen(opt.output, "w")))
		die(2, "%s: cannot write: %s", opt.output, strerror(errno));
	if (!strcmp(fmt, "csv")) {
		for (size_t i = 0; i < NCOLS; i++) {
			fputs(cols[i].name, out);
			putc(i + 1 < NCOLS ? ',' : '\n', out);
		}
		read_traces(&run, argv, argc, &csv_ops, NULL);
	} else {
		prescan(&run, argv, argc);
		struct flows *fl = flows_new();

		fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
		read_traces(&run, argv, argc, &chrome_ops, fl);
		if (!first_ev)
			flows_write(fl, out);
		fputs("\n]}\n", out);
		flows_free(fl);
	}
	if (out != stdout ? fclose_checked(out) : fflush(out) || ferror(out))
		die(2, "%s: write error: %s", opt.output ? opt.output : "stdout", strerror(errno));
	run_free(&run);
	return 0;
}
