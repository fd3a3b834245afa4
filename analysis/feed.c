/* The analyzer's reading: the trace library's one reader (trace/read.c)
 * with the filters of every report (--from, --to, --node, --thread,
 * --path, --call; analysis/filter.c) between it and the report's
 * callbacks, and the peers' sends gathered on the way (consumption).
 * Only the callbacks a report has are given to the reader. */
#include "analyze.h"

#include <string.h>

struct filtered {
	const struct trace_ops *ops;	/* the report's */
	void *ctx;
	struct trace_run *run;
	struct peers *peers;
};

static void f_node(void *ctx, struct trace_node *n)
{
	struct filtered *f = ctx;

	if (filter_node(n))
		f->ops->node(f->ctx, n);
}

static void f_node_end(void *ctx, struct trace_node *n)
{
	struct filtered *f = ctx;

	if (filter_node(n))
		f->ops->node_end(f->ctx, n);
}

static void f_thread(void *ctx, struct trace_thread *t)
{
	struct filtered *f = ctx;

	if (filter_thread(t))
		f->ops->thread(f->ctx, t);
}

static void f_thread_end(void *ctx, struct trace_thread *t)
{
	struct filtered *f = ctx;

	if (filter_thread(t))
		f->ops->thread_end(f->ctx, t);
}

static void f_compute(void *ctx, struct trace_thread *t, int64_t start, int64_t dur)
{
	struct filtered *f = ctx;

	if (filter_thread(t) && filter_time(f->run, t->node, start))
		f->ops->compute(f->ctx, t, start, dur);
}

static void f_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	struct filtered *f = ctx;

	if (f->peers)
		peers_send(f->peers, t->node, io);
	procs_io(t, io);
	if (!f->ops->io || !filter_thread(t))
		return;
	if (filter_io(f->run, t, io) || filt.every_call)
		f->ops->io(f->ctx, t, io);
}

static void f_dep(void *ctx, struct trace_thread *t, const struct trace_dep *d)
{
	struct filtered *f = ctx;

	if (filter_thread(t))
		f->ops->dep(f->ctx, t, d);
}

static void f_region(void *ctx, struct trace_thread *t, const struct trace_region *r)
{
	struct filtered *f = ctx;

	if (filter_region(f->run, t, r))
		f->ops->region(f->ctx, t, r);
}

static void f_file(void *ctx, struct trace_node *n, const struct trace_file *fi)
{
	struct filtered *f = ctx;

	if (filter_file(n, fi->path))
		f->ops->file(f->ctx, n, fi);
}

static void f_socket(void *ctx, struct trace_node *n, const struct trace_socket *s)
{
	struct filtered *f = ctx;

	if (f->peers)
		peers_socket(f->peers, n, s);
	if (f->ops->socket && filter_socket(n))
		f->ops->socket(f->ctx, n, s);
}

static void f_sample(void *ctx, struct trace_thread *t, const struct trace_sample *s)
{
	struct filtered *f = ctx;

	if (filter_thread(t) && filter_time(f->run, t->node, s->t))
		f->ops->sample(f->ctx, t, s);
}

static void f_free(void *ctx, struct trace_thread *t, int64_t at, uint64_t ptr)
{
	struct filtered *f = ctx;

	if (filter_thread(t))
		f->ops->free(f->ctx, t, at, ptr);
}

static void f_command(void *ctx, struct trace_node *n, int argc, const char *const *argv)
{
	struct filtered *f = ctx;

	if (filter_node(n))
		f->ops->command(f->ctx, n, argc, argv);
}

/* What the capture could not see: one line per trace or process, every
 * report. */
static void f_incomplete(void *ctx, const char *file, long line, const struct trace_proc *p)
{
	if (!p)
		warn_at(file, line, "warning: trace is incomplete (a process was killed or not fully seen); analysing what was recorded");
	else
		warn_at(file, line, "warning: process %ld is incomplete: %s", p->pid, p->reason);
}

void read_traces_peers(struct trace_run *run, char **files, int nfiles,
		       const struct trace_ops *ops, void *ctx, struct peers *peers)
{
	static const struct trace_ops none;
	struct filtered f = { ops ? ops : &none, ctx, run, peers };
	struct trace_ops w = { .incomplete = f_incomplete };

	/* A time window needs the run's start before the first call. */
	if (filter_timed() && !run->prescanned)
		prescan(run, files, nfiles);
	filt.run = run;
	w.node = f.ops->node ? f_node : NULL;
	w.node_end = f.ops->node_end ? f_node_end : NULL;
	w.thread = f.ops->thread ? f_thread : NULL;
	w.thread_end = f.ops->thread_end ? f_thread_end : NULL;
	w.compute = f.ops->compute ? f_compute : NULL;
	w.io = f.ops->io || peers ? f_io : NULL;
	w.dep = f.ops->dep ? f_dep : NULL;
	w.region = f.ops->region ? f_region : NULL;
	w.file = f.ops->file ? f_file : NULL;
	w.socket = f.ops->socket || peers ? f_socket : NULL;
	w.sample = f.ops->sample ? f_sample : NULL;
	w.free = f.ops->free ? f_free : NULL;
	w.command = f.ops->command ? f_command : NULL;
	trace_read(run, files, nfiles, &w, &f);
	filter_done(run, f.ops->io != NULL);
}

/* A first pass for the reports that account in time order and cannot
 * wait for the peer's trace to come (plot). */
struct peers *peers_collect(char **files, int nfiles)
{
	struct trace_run tmp = { 0 };
	struct peers *p = peers_new();

	read_traces_peers(&tmp, files, nfiles, NULL, NULL, p);
	run_free(&tmp);
	return p;
}

void read_traces(struct trace_run *run, char **files, int nfiles,
		 const struct trace_ops *ops, void *ctx)
{
	read_traces_peers(run, files, nfiles, ops, ctx, NULL);
}

void prescan(struct trace_run *run, char **files, int nfiles)
{
	trace_prescan(run, files, nfiles);
}

void run_free(struct trace_run *run)
{
	trace_run_free(run);
}

/* --- several reports' passes in one reading (the HTML page) ------------ */

struct tee {
	struct report_pass *v;
	size_t n;
	struct trace_run *run;
	bool mixed;		/* some passes take every call, some not */
};

/* With every_call on for some, a call reaches the others only when the
 * plain filter would have let it through: its path and name (selected)
 * and its start in the window. */
static bool io_for(const struct tee *tee, const struct report_pass *p, const struct trace_thread *t,
		   const struct trace_io *io)
{
	return !tee->mixed || p->def->every_call ||
	       (filt.selected && filter_time(tee->run, t->node, io->start));
}

#define TEE(cb, params, args) \
static void tee_##cb params \
{ \
	struct tee *tee = ctx; \
	for (size_t i = 0; i < tee->n; i++) \
		if (tee->v[i].def->ops->cb) \
			tee->v[i].def->ops->cb args; \
}
TEE(node, (void *ctx, struct trace_node *n), (tee->v[i].st, n))
TEE(node_end, (void *ctx, struct trace_node *n), (tee->v[i].st, n))
TEE(thread, (void *ctx, struct trace_thread *t), (tee->v[i].st, t))
TEE(thread_end, (void *ctx, struct trace_thread *t), (tee->v[i].st, t))
TEE(compute, (void *ctx, struct trace_thread *t, int64_t s, int64_t d), (tee->v[i].st, t, s, d))
TEE(dep, (void *ctx, struct trace_thread *t, const struct trace_dep *d), (tee->v[i].st, t, d))
TEE(region, (void *ctx, struct trace_thread *t, const struct trace_region *r), (tee->v[i].st, t, r))
TEE(file, (void *ctx, struct trace_node *n, const struct trace_file *f), (tee->v[i].st, n, f))
TEE(socket, (void *ctx, struct trace_node *n, const struct trace_socket *s), (tee->v[i].st, n, s))
TEE(sample, (void *ctx, struct trace_thread *t, const struct trace_sample *s), (tee->v[i].st, t, s))
TEE(free, (void *ctx, struct trace_thread *t, int64_t at, uint64_t p), (tee->v[i].st, t, at, p))
#undef TEE

static void tee_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	struct tee *tee = ctx;

	for (size_t i = 0; i < tee->n; i++)
		if (tee->v[i].def->ops->io && io_for(tee, &tee->v[i], t, io))
			tee->v[i].def->ops->io(tee->v[i].st, t, io);
}

static void tee_command(void *ctx, struct trace_node *nd, int argc, const char *const *argv)
{
	struct tee *tee = ctx;

	for (size_t i = 0; i < tee->n; i++)
		if (tee->v[i].def->ops->command)
			tee->v[i].def->ops->command(tee->v[i].st, nd, argc, argv);
}

void read_passes(struct trace_run *run, char **files, int nfiles, struct report_pass *v, size_t n)
{
	struct trace_ops ops = { 0 };
	struct tee tee = { v, n, run, false };
	struct peers *peers = NULL;
	size_t every = 0;

	for (size_t i = 0; i < n; i++) {
		const struct trace_ops *o = v[i].def->ops;

		every += v[i].def->every_call;
		if (!peers && v[i].def->peers)
			peers = v[i].def->peers(v[i].st);
#define ANY(cb) if (o->cb) ops.cb = tee_##cb
		ANY(node); ANY(node_end); ANY(thread); ANY(thread_end); ANY(compute);
		ANY(io); ANY(dep); ANY(region); ANY(file); ANY(socket); ANY(sample);
		ANY(free); ANY(command);
#undef ANY
	}
	tee.mixed = every && every < n;
	if (every)
		filt.every_call = true;
	read_traces_peers(run, files, nfiles, &ops, &tee, peers);
}

void pass_begin(struct report_pass *p, const struct passdef *def, struct trace_run *run)
{
	p->def = def;
	p->st = def->begin(run);
}

int pass_run(const struct passdef *def, int argc, char **argv)
{
	struct trace_run run = { 0 };
	struct report_pass p;

	pass_begin(&p, def, &run);
	read_passes(&run, argv, argc, &p, 1);
	def->end(p.st, &run, argv, argc);
	run_free(&run);
	return 0;
}
