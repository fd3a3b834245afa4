/*
 * deps --from mpi: the message edges the MPI level says, exact, from one
 * run on any transport (shared memory included). A node's MPI calls are
 * numbered from 1 in its trace's order (its seq for these edges). A
 * receive's completion (MPI_Recv, the Wait or Test that completed an
 * Irecv, a Sendrecv) waits for the send it matched: the k-th send from
 * rank s to rank d with tag g on communicator c matches the k-th receive
 * posted by d that took a message from s with tag g on c (MPI's
 * non-overtaking rule; a receive is posted by its Recv or Irecv). A
 * collective (the k-th on its communicator) is an edge set: all to all
 * (Barrier, Allreduce, Allgather, Alltoall, a communicator's creation),
 * the root to the others (Bcast, Scatter), the others to the root
 * (Reduce, Gather). Read through the trace library alone: island-capture's
 * --discover takes these edges too (capture/discover/passmerge.c).
 */
#include <stdlib.h>
#include <string.h>

#include "island-trace.h"
#include "util.h"
#include "mpideps.h"

enum kind { K_NONE, K_SEND, K_RECV, K_IRECV, K_ISEND, K_SENDRECV, K_DONE,
	    K_ALL, K_FROM_ROOT, K_TO_ROOT };

static const struct { const char *api; enum kind k; } kinds[] = {
	{ "MPI_Send", K_SEND }, { "MPI_Ssend", K_SEND }, { "MPI_Rsend", K_SEND },
	{ "MPI_Bsend", K_SEND }, { "MPI_Isend", K_ISEND }, { "MPI_Issend", K_ISEND },
	{ "MPI_Recv", K_RECV }, { "MPI_Irecv", K_IRECV }, { "MPI_Sendrecv", K_SENDRECV },
	{ "MPI_Wait", K_DONE }, { "MPI_Waitall", K_DONE }, { "MPI_Waitany", K_DONE },
	{ "MPI_Waitsome", K_DONE }, { "MPI_Test", K_DONE }, { "MPI_Testall", K_DONE },
	{ "MPI_Testany", K_DONE }, { "MPI_Testsome", K_DONE },
	{ "MPI_Barrier", K_ALL }, { "MPI_Allreduce", K_ALL }, { "MPI_Allgather", K_ALL },
	{ "MPI_Alltoall", K_ALL }, { "MPI_Comm_dup", K_ALL }, { "MPI_Comm_split", K_ALL },
	{ "MPI_Comm_create", K_ALL }, { "MPI_Bcast", K_FROM_ROOT },
	{ "MPI_Scatter", K_FROM_ROOT }, { "MPI_Reduce", K_TO_ROOT },
	{ "MPI_Gather", K_TO_ROOT },
};

/* a message's end: the call that sent it or completed its receive, the
 * number of the call that posted it (a receive's order), its key */
struct end {
	int node;
	uint64_t seq, posted;
	uint32_t comm;
	int src, dst, tag;
};

struct coll {
	uint32_t comm, coll;
	int node, root;
	uint64_t seq;
	enum kind k;
};

/* an Irecv not yet completed: its request on its node */
struct pend {
	int node;
	uint32_t req, comm;
	uint64_t seq;
};

struct mctx {
	struct mpi_deps *out;
	struct end *snd, *rcv;
	size_t ns, nr, caps, capr;
	struct coll *co;
	size_t nco, capco;
	struct pend *pd;
	size_t npd, cappd;
	uint64_t *ord;               /* per node: its MPI calls so far */
	size_t nord;
};

static int64_t num(const struct trace_io *io, const char *name, int64_t none)
{
	const struct trace_attr *a = trace_io_attr(io, name);

	return a ? a->num : none;
}

static int node_of(struct mctx *c, const struct trace_node *n)
{
	struct mpi_deps *o = c->out;

	for (size_t i = 0; i < o->nnodes; i++)
		if (!strcmp(o->nodes[i].name, n->name))
			return (int)i;
	XGROW(o->nodes, o->capnodes, o->nnodes + 1);
	o->nodes[o->nnodes] = (struct mpi_node){ .name = xstrdup(n->name), .rank = n->mpi_rank };
	XGROW(c->ord, c->nord, o->nnodes + 1);
	c->ord[o->nnodes] = 0;
	return (int)o->nnodes++;
}

static void add_end(struct end **v, size_t *n, size_t *cap, struct end e)
{
	XGROW(*v, *cap, *n + 1);
	(*v)[(*n)++] = e;
}

/* the "ID:SRC:TAG:BYTES" completions of done, receives only */
static void completions(struct mctx *c, int node, uint64_t seq, const char *done,
			uint32_t own_comm, uint64_t own_posted)
{
	const char *p = done;

	while (p && *p) {
		char *e;
		unsigned long req = strtoul(p, &e, 10);
		if (*e == ':') {
			int src = (int)strtol(e + 1, &e, 10);
			int tag = (int)strtol(e + 1, &e, 10);
			strtoll(e + 1, &e, 10);
			uint32_t comm = own_comm;
			uint64_t posted = own_posted;
			int found = !req;
			for (size_t i = 0; req && i < c->npd; i++)
				if (c->pd[i].node == node && c->pd[i].req == req) {
					comm = c->pd[i].comm;
					posted = c->pd[i].seq;
					c->pd[i] = c->pd[--c->npd];
					found = 1;
					break;
				}
			if (found)
				add_end(&c->rcv, &c->nr, &c->capr, (struct end){
					node, seq, posted, comm, src, c->out->nodes[node].rank, tag });
		}
		while (*e && *e != ' ')
			e++;
		while (*e == ' ')
			e++;
		p = e;
	}
}

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	struct mctx *c = ctx;
	const struct trace_attr *lv = trace_io_attr(io, "level");

	if (!lv || strcmp(lv->value, "mpi"))
		return;
	int node = node_of(c, t->node);
	uint64_t seq = ++c->ord[node];
	struct mpi_deps *o = c->out;
	XGROW(o->calls, o->capcalls, o->ncalls + 1);
	o->calls[o->ncalls++] = (struct mpi_call){ node, seq, io->api,
		(int)num(io, "rank", -1), io->start, io->end, t->tid, num(io, "amount", -1) };
	enum kind k = K_NONE;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(io->api, kinds[i].api))
			k = kinds[i].k;
	int me = o->nodes[node].rank, peer = (int)num(io, "rank", -1);
	int tag = (int)num(io, "tag", -1);
	uint32_t comm = (uint32_t)num(io, "comm", 0);
	const struct trace_attr *done = trace_io_attr(io, "done");

	if (io->failed || num(io, "result", 0))
		return;
	switch (k) {
	case K_SEND: case K_ISEND:
		add_end(&c->snd, &c->ns, &c->caps, (struct end){ node, seq, seq, comm, me, peer, tag });
		break;
	case K_SENDRECV:
		add_end(&c->snd, &c->ns, &c->caps, (struct end){ node, seq, seq, comm, me, peer, tag });
		if (done)
			completions(c, node, seq, done->value, comm, seq);
		break;
	case K_RECV:
		add_end(&c->rcv, &c->nr, &c->capr, (struct end){ node, seq, seq, comm, peer, me, tag });
		break;
	case K_IRECV: {
		int64_t req = num(io, "request", 0);
		if (req > 0) {
			XGROW(c->pd, c->cappd, c->npd + 1);
			c->pd[c->npd++] = (struct pend){ node, (uint32_t)req, comm, seq };
		}
		break;
	}
	case K_DONE:
		if (done)
			completions(c, node, seq, done->value, 0, seq);
		break;
	case K_ALL: case K_FROM_ROOT: case K_TO_ROOT: {
		int64_t coll = num(io, "coll", 0);
		if (coll > 0) {
			XGROW(c->co, c->capco, c->nco + 1);
			c->co[c->nco++] = (struct coll){ comm, (uint32_t)coll, node, peer, seq, k };
		}
		break;
	}
	case K_NONE:
		break;
	}
}

/* by key, then by the order of posting */
static int cmp_end(const void *a, const void *b)
{
	const struct end *x = a, *y = b;

	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return x->posted < y->posted ? -1 : x->posted > y->posted;
}

static int cmp_coll(const void *a, const void *b)
{
	const struct coll *x = a, *y = b;

	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	return x->coll < y->coll ? -1 : x->coll > y->coll;
}

static void edge(struct mpi_deps *o, int x, uint64_t xseq, int t, uint64_t tseq, bool msg)
{
	XGROW(o->e, o->cape, o->ne + 1);
	o->e[o->ne++] = (struct mpi_edge){ x, t, xseq, tseq, msg };
}

static void match(struct mctx *c)
{
	struct mpi_deps *o = c->out;

	if (c->ns)	/* none: NULL, which qsort may not take */
		qsort(c->snd, c->ns, sizeof(*c->snd), cmp_end);
	if (c->nr)
		qsort(c->rcv, c->nr, sizeof(*c->rcv), cmp_end);
	for (size_t i = 0, j = 0; i < c->ns && j < c->nr;) {
		struct end s = c->snd[i], r = c->rcv[j];
		s.posted = r.posted = 0;
		int k = cmp_end(&s, &r);
		if (k < 0) {
			o->unmatched_sends++;
			i++;
		} else if (k > 0) {
			o->unmatched_recvs++;
			j++;
		} else {
			edge(o, c->rcv[j].node, c->rcv[j].seq, c->snd[i].node, c->snd[i].seq, true);
			i++;
			j++;
		}
	}
	if (c->nco)	/* none (only point to point): NULL too */
		qsort(c->co, c->nco, sizeof(*c->co), cmp_coll);
	for (size_t i = 0; i < c->nco;) {
		size_t j = i;
		while (j < c->nco && !cmp_coll(&c->co[i], &c->co[j]))
			j++;
		for (size_t a = i; a < j; a++)
			for (size_t b = i; b < j; b++) {
				const struct coll *x = &c->co[a], *t = &c->co[b];
				int xr = o->nodes[x->node].rank, tr = o->nodes[t->node].rank;
				if (a == b || (x->k == K_FROM_ROOT && tr != x->root) ||
				    (x->k == K_TO_ROOT && (xr != x->root || tr == x->root)))
					continue;
				edge(o, x->node, x->seq, t->node, t->seq, false);
			}
		i = j;
	}
}

void mpi_deps_read(struct mpi_deps *o, char **argv, int argc)
{
	static const struct trace_ops ops = { .io = on_io };
	struct trace_run run = { 0 };
	struct mctx c = { .out = o };

	memset(o, 0, sizeof(*o));
	trace_read(&run, argv, argc, &ops, &c);
	for (size_t i = 0; i < o->nnodes; i++)
		if (o->nodes[i].rank < 0)
			die(2, "node %s has MPI calls but no mpi_rank: not captured under mpirun?",
			    o->nodes[i].name);
	for (size_t i = 0; i < o->nnodes; i++)
		for (size_t j = i + 1; j < o->nnodes; j++)
			if (o->nodes[i].rank == o->nodes[j].rank)
				die(2, "nodes %s and %s are both MPI rank %d: traces of two runs?",
				    o->nodes[i].name, o->nodes[j].name, o->nodes[i].rank);
	for (size_t i = 0; i < o->nnodes; i++)
		for (size_t k = 0; k < run.nnodes; k++)
			if (!strcmp(run.nodes[k]->name, o->nodes[i].name)) {
				o->nodes[i].off = run.nodes[k]->off - run.t0;
				o->nodes[i].start = run.nodes[k]->start;
				o->nodes[i].end = run.nodes[k]->end;
			}
	match(&c);
	o->pending = c.npd;
	free(c.snd);
	free(c.rcv);
	free(c.co);
	free(c.pd);
	free(c.ord);
	trace_run_free(&run);
}

void mpi_deps_free(struct mpi_deps *o)
{
	for (size_t i = 0; i < o->nnodes; i++)
		free((char *)o->nodes[i].name);
	free(o->nodes);
	free(o->calls);
	free(o->e);
}
