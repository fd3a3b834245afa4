/* What the capture reads back from its traces (--watchdog-from,
 * --discover): through the trace library's one reader and validator
 * (include/island-trace.h), so a trace another tool refuses is refused
 * here with the same FILE:LINE line. */
#include <stdlib.h>
#include <string.h>

#include "island-trace.h"
#include "capture/discover/discover.h"
#include "util.h"

struct tr_scanner {
	struct tr_node *nodes, *cur;
	int nnodes;
	size_t cap;
	int64_t last_end;	/* of the thread's last numbered I/O, or its start */
	int32_t tid;		/* of the thread read */
	int thr;		/* its index in the file */
};

static void on_node(void *ctx, struct trace_node *n)
{
	struct tr_scanner *sc = ctx;

	XGROW(sc->nodes, sc->cap, (size_t)sc->nnodes + 1);
	sc->cur = &sc->nodes[sc->nnodes++];
	memset(sc->cur, 0, sizeof(*sc->cur));
	sc->cur->name = xstrdup(n->name);
	sc->cur->host = xstrdup(n->host ? n->host : "");
	sc->cur->end = n->end;
	sc->cur->stopped = n->stopped;
	sc->cur->epoch = n->epoch;
	sc->cur->mpi = n->mpi_rank >= 0;
}

static void on_process(void *ctx, struct trace_proc *p)
{
	struct tr_node *cur = ((struct tr_scanner *)ctx)->cur;

	XGROW(cur->procs, cur->pcap, cur->nprocs + 1);
	struct tr_proc *pr = &cur->procs[cur->nprocs++];
	pr->pid = (int32_t)p->pid;
	pr->ppid = (int32_t)p->ppid;
	pr->exe = xstrdup(p->exe);
	pr->ok = !*p->status || !strcmp(p->status, "exit:0");
	pr->start = p->start;
	pr->end = p->end;
}

static void on_thread(void *ctx, struct trace_thread *t)
{
	struct tr_scanner *sc = ctx;

	sc->last_end = t->start;
	sc->tid = (int32_t)t->tid;
	sc->thr = t->index;
}

static void on_dep(void *ctx, struct trace_thread *t, const struct trace_dep *d)
{
	struct tr_node *cur = ((struct tr_scanner *)ctx)->cur;

	if (!d->wait)
		return;
	XGROW(cur->waits, cur->wcap, cur->nwaits + 1);
	cur->waits[cur->nwaits++] = (struct tr_wait){ 0, xstrdup(d->node), (uint64_t)d->seq };
	cur->npending++;
}

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	struct tr_scanner *sc = ctx;
	struct tr_node *cur = sc->cur;
	const char *p = io->path ? io->path : io->peer ? io->peer : "-";
	const struct trace_attr *seq = NULL, *fd = NULL, *result = NULL, *amount = NULL;
	const struct trace_attr *local = NULL;

	for (int k = 0; k < io->nattr; k++)
		if (!strcmp(io->attr[k].name, "local") && strncmp(io->attr[k].value, "0.0.0.0:", 8) &&
		    (!io->failed || !strcmp(io->err, "EINPROGRESS"))) {
			XGROW(cur->locals, cur->lcap, cur->nlocals + 1);
			cur->locals[cur->nlocals++] = xstrdup(io->attr[k].value);
		}
	for (int k = 0; k < io->nattr; k++)
		if (!strcmp(io->attr[k].name, "seq"))
			seq = &io->attr[k];
		else if (!strcmp(io->attr[k].name, "fd"))
			fd = &io->attr[k];
		else if (!strcmp(io->attr[k].name, "result"))
			result = &io->attr[k];
		else if (!strcmp(io->attr[k].name, "amount"))
			amount = &io->attr[k];
		else if (!strcmp(io->attr[k].name, "local"))
			local = &io->attr[k];
	if (!seq)
		return;		/* not numbered */
	/* the watchdog counts successes only (a failed call is a try, not
	 * progress) */
	if (!io->failed) {
		if (io->end - sc->last_end > cur->max_gap)
			cur->max_gap = io->end - sc->last_end;
		sc->last_end = io->end;
	}
	XGROW(cur->io, cur->cap, cur->nio + 1);
	struct tr_io *x = &cur->io[cur->nio];
	x->seq = (uint64_t)seq->num;	/* validated: 1.. */
	for (; cur->npending; cur->npending--)
		cur->waits[cur->nwaits - cur->npending].xseq = x->seq;
	x->what = xasprintf("%s %s %s", io->api, trace_res_names[io->res], p);
	x->poll = POLL_NONE;
	x->proc = (int)cur->nprocs - 1;
	x->tid = sc->tid;
	x->thr = sc->thr;
	x->start = io->start;
	x->end = io->end;
	x->amount = amount ? amount->num : 0;
	x->local = local ? xstrdup(local->value) : NULL;
	x->fd = fd ? (int32_t)fd->num : -1;	/* validated: 32 bits */
	/* a non-blocking connect under way has not failed */
	x->failed = io->failed && strcmp(io->err, "EINPROGRESS");
	x->result = result ? result->num : 0;
	cur->nio++;
}

static void on_file(void *ctx, struct trace_node *n, const struct trace_file *f)
{
	struct tr_node *cur = ((struct tr_scanner *)ctx)->cur;

	(void)n;
	if (!f->fifo)
		return;
	XGROW(cur->fifos, cur->fcap, cur->nfifos + 1);
	cur->fifos[cur->nfifos++] = xstrdup(f->path);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int tr_is_fifo(const struct tr_node *n, const char *path)
{
	return n->nfifos && bsearch(&path, n->fifos, n->nfifos, sizeof(*n->fifos), cmp_str);
}

int tr_scan(const char *file, struct tr_node **nodes, int *nnodes)
{
	static const struct trace_ops ops = {
		.node = on_node, .process = on_process, .thread = on_thread,
		.dep = on_dep, .io = on_io, .file = on_file,
	};
	struct trace_run run = { 0 };
	struct tr_scanner sc = { 0 };
	char *files[1] = { (char *)file };
	int rc, incomplete;

	*nodes = NULL;
	*nnodes = 0;
	rc = trace_read_try(&run, files, 1, &ops, &sc);	/* bad input: its line */
	incomplete = run.incomplete;
	trace_run_free(&run);
	if (rc < 0) {
		tr_scan_free(sc.nodes, sc.nnodes);
		return -1;
	}
	for (int i = 0; i < sc.nnodes; i++) {
		sc.nodes[i].incomplete = incomplete;
		if (sc.nodes[i].nfifos > 1)
			qsort(sc.nodes[i].fifos, sc.nodes[i].nfifos, sizeof(char *), cmp_str);
		polling_mark(&sc.nodes[i]);
	}
	*nodes = sc.nodes;
	*nnodes = sc.nnodes;
	return 0;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct tr_io *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct tr_node *tr_find(struct tr_node *nodes, int nnodes, const char *name)
{
	for (int i = 0; i < nnodes; i++)
		if (!strcmp(nodes[i].name, name)) {
			if (nodes[i].nio)	/* qsort(NULL, 0): undefined */
				qsort(nodes[i].io, nodes[i].nio, sizeof(*nodes[i].io), cmp_seq);
			return &nodes[i];
		}
	return NULL;
}

void tr_scan_free(struct tr_node *nodes, int nnodes)
{
	for (int i = 0; i < nnodes; i++) {
		for (size_t k = 0; k < nodes[i].nio; k++) {
			free(nodes[i].io[k].what);
			free(nodes[i].io[k].local);
		}
		free(nodes[i].io);
		for (size_t k = 0; k < nodes[i].nwaits; k++)
			free(nodes[i].waits[k].tnode);
		free(nodes[i].waits);
		for (size_t k = 0; k < nodes[i].nprocs; k++)
			free(nodes[i].procs[k].exe);
		free(nodes[i].procs);
		for (size_t k = 0; k < nodes[i].nlocals; k++)
			free(nodes[i].locals[k]);
		free(nodes[i].locals);
		for (size_t k = 0; k < nodes[i].nfifos; k++)
			free(nodes[i].fifos[k]);
		free(nodes[i].fifos);
		free(nodes[i].name);
		free(nodes[i].host);
	}
	free(nodes);
}
