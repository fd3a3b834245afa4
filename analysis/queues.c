/* queues: the asynchronous operations' queues (io elements with async):
 * one row per libaio context, io_uring, or process's POSIX aio: its
 * operations, their bytes, the span it held any, its mean depth over that
 * span (Little's law: the operations' time in flight over the span) and
 * the most it held at a submission (depth). Per operation, the calls
 * report gives the submission-to-completion latency percentiles.
 * Memory: one entry per queue. */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

struct aio_queue {
	const char *node, *async, *ctx;	/* interned */
	long pid;
	int64_t ops, bytes, busy, first, last, depth_max;
};

struct queues {
	struct aio_queue *q;
	size_t n, cap;
};

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	struct queues *c = ctx;
	const struct trace_attr *as = trace_io_attr(io, "async");

	if (!as)
		return;
	const struct trace_attr *cx = trace_io_attr(io, "ctx"), *d = trace_io_attr(io, "depth");
	const char *node = intern(t->node->name), *a = intern(as->value),
		   *x = intern(cx ? cx->value : "");
	struct aio_queue *q = NULL;

	/* a process has a few: a scan */
	for (size_t i = c->n; i-- > 0 && !q;)
		if (c->q[i].node == node && c->q[i].async == a && c->q[i].ctx == x &&
		    c->q[i].pid == t->proc->pid)
			q = &c->q[i];
	if (!q) {
		XGROW(c->q, c->cap, c->n + 1);
		q = &c->q[c->n++];
		*q = (struct aio_queue){ node, a, x, t->proc->pid, 0, 0, 0, io->start, io->end, 0 };
	}
	q->ops++;
	/* --syscalls: a POSIX operation's bytes are its helper's system calls' */
	q->bytes += io->has_amount && !io->libc_only ? io->amount : 0;
	q->busy += io->end - io->start;
	q->first = io->start < q->first ? io->start : q->first;
	q->last = io->end > q->last ? io->end : q->last;
	if (d && d->num > q->depth_max)
		q->depth_max = d->num;
}

static int cmp_queue(const void *x, const void *y)
{
	const struct aio_queue *a = x, *b = y;
	int r = strcmp(a->node, b->node);

	if (!r)
		r = (a->pid > b->pid) - (a->pid < b->pid);
	if (!r)
		r = strcmp(a->async, b->async);
	return r ? r : strcmp(a->ctx, b->ctx);
}

static const struct coldef cols[] = {
	{ "node", COL_TEXT, 0 }, { "pid", COL_INT, 0 }, { "async", COL_TEXT, 0 },
	{ "ctx", COL_TEXT, 0 }, { "ops", COL_INT, 0 }, { "bytes", COL_INT, 0 },
	{ "span_s", COL_SECS, 0 }, { "depth_mean", COL_NUM, 0 }, { "depth_max", COL_INT, 0 },
};
const struct tabledef queues_tables[] = { TABLEDEF("queues", cols), { NULL } };

int report_queues(int argc, char **argv)
{
	static const struct trace_ops ops = { .io = on_io };
	struct trace_run run = { 0 };
	struct queues c = { 0 };
	struct table *t = table_new(&queues_tables[0]);
	char buf[64];

	read_traces(&run, argv, argc, &ops, &c);
	if (c.n > 1)
		qsort(c.q, c.n, sizeof(*c.q), cmp_queue);
	for (size_t i = 0; i < c.n; i++) {
		const struct aio_queue *q = &c.q[i];
		int64_t span = q->last - q->first;

		table_add(t, q->node);
		table_addf(t, "%ld", q->pid);
		table_add(t, q->async);
		table_add(t, q->ctx);
		table_addf(t, "%lld", (long long)q->ops);
		table_addf(t, "%lld", (long long)q->bytes);
		table_add(t, opt.csv || opt.output ? fmt_nsecs(buf, sizeof(buf), span) :
			  fmt_secs(buf, sizeof(buf), span));
		table_addf(t, "%.2f", span > 0 ? (double)q->busy / (double)span : 1.0);
		table_addf(t, "%lld", (long long)q->depth_max);
	}
	table_emit(t);
	free(c.q);
	run_free(&run);
	return 0;
}
