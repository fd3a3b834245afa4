/* export --format otf2 -o DIR: the run as an OTF2 archive (Score-P's
 * format: Vampir, otf2-print, Python's otf2) with the Debian library
 * libopen-trace-format2. The system tree is the run, then its nodes; a
 * location group per process under its node, a location per thread.
 * Every call is a region (named after its api) entered and left; the
 * trace's regions are regions of the user paradigm around them. A file
 * read or write is also an I/O operation (begin, complete) on the POSIX
 * I/O handle of its node and path, with the bytes it moved: those files
 * counts (a failed call, a libc call whose system calls are recorded,
 * complete with 0). Times are nanoseconds from the run's start, nodes
 * aligned as in every report; the clock's global offset is the run's
 * start in Unix time.
 * The MPI level (level="mpi"): its calls are regions of the MPI
 * paradigm and carry MPI records on MPI_COMM_WORLD, whose members are
 * the ranks' locations (the thread that made a rank's MPI calls): a
 * send's at its start, a receive's at its end, an Isend's and an Irecv's
 * completion at the Wait or Test that completed it, a collective begun
 * and ended with its call. Peers are world ranks as the trace's; a
 * collective on another communicator is its region alone (its members
 * are not in the trace). A collective's bytes received are not in the
 * trace: 0. Written only when every rank 0..N-1 of the run is there.
 * Two readings: the first keeps the regions (they come after their calls
 * in a trace, OTF2 wants them entered in time order), the second writes
 * the events, one thread's writer open at a time. Memory: threads,
 * regions, files. */
#include "analyze.h"

#ifndef HAVE_OTF2
int export_otf2(int argc, char **argv)
{
	die(2, "export --format otf2: this island-analyze was built without OTF2 "
	    "(install libopen-trace-format2-dev and build again)");
}
#else
#include <otf2/otf2.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct reg {			/* a trace region of a thread */
	int64_t start, end;
	long depth;
	const char *label;	/* interned */
};

struct tregs {
	struct reg *v;
	size_t n, cap;
};

/* Interned string -> id, by pointer; and (node, path) -> I/O handle. */
struct idmap {
	struct ent { const void *key; int node; uint32_t id; } *v;
	size_t n, cap;
};

/* The MPI calls as records: a point-to-point's, a collective's */
enum mpik { MK_NONE, MK_SEND, MK_RECV, MK_SENDRECV, MK_ISEND, MK_IRECV, MK_DONE, MK_COLL };

static const struct { const char *api; uint8_t kind; uint8_t op; } mpicalls[] = {
	{ "MPI_Send", MK_SEND, 0 }, { "MPI_Ssend", MK_SEND, 0 }, { "MPI_Rsend", MK_SEND, 0 },
	{ "MPI_Bsend", MK_SEND, 0 }, { "MPI_Recv", MK_RECV, 0 }, { "MPI_Sendrecv", MK_SENDRECV, 0 },
	{ "MPI_Isend", MK_ISEND, 0 }, { "MPI_Issend", MK_ISEND, 0 }, { "MPI_Irecv", MK_IRECV, 0 },
	{ "MPI_Wait", MK_DONE, 0 }, { "MPI_Waitall", MK_DONE, 0 }, { "MPI_Waitany", MK_DONE, 0 },
	{ "MPI_Waitsome", MK_DONE, 0 }, { "MPI_Test", MK_DONE, 0 }, { "MPI_Testall", MK_DONE, 0 },
	{ "MPI_Testany", MK_DONE, 0 }, { "MPI_Testsome", MK_DONE, 0 },
	{ "MPI_Barrier", MK_COLL, OTF2_COLLECTIVE_OP_BARRIER },
	{ "MPI_Bcast", MK_COLL, OTF2_COLLECTIVE_OP_BCAST },
	{ "MPI_Reduce", MK_COLL, OTF2_COLLECTIVE_OP_REDUCE },
	{ "MPI_Allreduce", MK_COLL, OTF2_COLLECTIVE_OP_ALLREDUCE },
	{ "MPI_Gather", MK_COLL, OTF2_COLLECTIVE_OP_GATHER },
	{ "MPI_Scatter", MK_COLL, OTF2_COLLECTIVE_OP_SCATTER },
	{ "MPI_Allgather", MK_COLL, OTF2_COLLECTIVE_OP_ALLGATHER },
	{ "MPI_Alltoall", MK_COLL, OTF2_COLLECTIVE_OP_ALLTOALL },
};

/* An MPI call of the rank's location, open until its end: what its end's
 * records need (the call's io is gone by then) */
struct lvcall {
	int64_t start, end;
	uint32_t reg;
	int kind, op;
	int64_t rank, tag, comm, req;
	uint64_t bytes;
	char *done;
};

struct otf {
	struct trace_run *run;
	OTF2_Archive *ar;
	struct tregs *regs;	/* by thread index */
	size_t nregs;
	struct idmap strings, regions, handles;
	const char **strv;	/* by string id */
	struct { const char *path; int node; } *hv;	/* by handle id */
	size_t caps, caph;
	uint64_t *nevents;	/* by thread index */
	bool *seen;		/* the threads written (the filters') */
	size_t capev;
	/* the thread being written */
	OTF2_EvtWriter *w;
	struct trace_thread *cur;
	size_t next;		/* its next region to enter */
	struct reg **open;	/* the regions entered, innermost last */
	size_t nopen, capopen;
	uint64_t last;		/* its last timestamp: never back in time */
	uint64_t matching;
	int64_t t0;
	/* MPI: each rank's location (-1: none seen), from the first reading */
	int64_t *rankloc;
	size_t nranks;
	bool mpi;		/* every rank 0..nranks-1 there: records written */
	struct lvcall *lv;	/* the thread's MPI calls open */
	size_t nlv, caplv;
};

static uint32_t idmap_get(struct idmap *m, const void *key, int node, bool *added)
{
	size_t h;

	if (m->n * 2 >= m->cap) {
		struct idmap g = { .cap = m->cap ? m->cap * 2 : 256 };

		g.v = xcalloc(g.cap, sizeof(*g.v));
		for (size_t i = 0; i < m->cap; i++)
			if (m->v[i].key) {
				for (h = (((uintptr_t)m->v[i].key >> 3) * 31 + (size_t)m->v[i].node) & (g.cap - 1);
				     g.v[h].key; h = (h + 1) & (g.cap - 1))
					;
				g.v[h] = m->v[i];
			}
		free(m->v);
		m->v = g.v;
		m->cap = g.cap;
	}
	for (h = (((uintptr_t)key >> 3) * 31 + (size_t)node) & (m->cap - 1); m->v[h].key;
	     h = (h + 1) & (m->cap - 1))
		if (m->v[h].key == key && m->v[h].node == node) {
			*added = false;
			return m->v[h].id;
		}
	m->v[h] = (struct ent){ key, node, (uint32_t)m->n++ };
	*added = true;
	return m->v[h].id;
}

static uint32_t str_id(struct otf *o, const char *s)
{
	bool added;
	uint32_t id;

	s = intern(s ? s : "");
	id = idmap_get(&o->strings, s, 0, &added);
	if (added) {
		XGROW(o->strv, o->caps, (size_t)id + 1);
		o->strv[id] = s;
	}
	return id;
}

/* A region per call name and per trace region label (the user's);
 * an MPI call's of the MPI paradigm */
enum { REG_CALL, REG_USER, REG_MPI };

static uint32_t region_id(struct otf *o, const char *name, int kind)
{
	bool added;

	return idmap_get(&o->regions, intern(name), kind, &added);
}

static uint32_t handle_id(struct otf *o, const char *path, int node)
{
	bool added;
	uint32_t id;

	path = intern(path);
	id = idmap_get(&o->handles, path, node, &added);
	if (added) {
		XGROW(o->hv, o->caph, (size_t)id + 1);
		o->hv[id].path = path;
		o->hv[id].node = node;
	}
	return id;
}

/* --- the first reading: the regions ------------------------------------ */

static void keep_region(void *ctx, struct trace_thread *t, const struct trace_region *r)
{
	struct otf *o = ctx;

	if ((size_t)t->index >= o->nregs) {
		size_t n = (size_t)t->index + 1;

		o->regs = xrealloc(o->regs, n * sizeof(*o->regs));
		memset(o->regs + o->nregs, 0, (n - o->nregs) * sizeof(*o->regs));
		o->nregs = n;
	}
	struct tregs *tr = &o->regs[t->index];

	XGROW(tr->v, tr->cap, tr->n + 1);
	tr->v[tr->n++] = (struct reg){ r->start, r->end, r->depth, intern(r->label) };
}

static bool is_mpi(const struct trace_io *io)
{
	const struct trace_attr *a = trace_io_attr(io, "level");

	return a && !strcmp(a->value, "mpi");
}

static void rank_slot(struct otf *o, long r)
{
	if ((size_t)r >= o->nranks) {
		o->rankloc = xrealloc(o->rankloc, ((size_t)r + 1) * sizeof(*o->rankloc));
		for (size_t k = o->nranks; k <= (size_t)r; k++)
			o->rankloc[k] = -1;
		o->nranks = (size_t)r + 1;
	}
}

/* A rank's location: the first thread of its node to make an MPI call.
 * The trace holds no world size: the ranks are those of the nodes and
 * the peers they name. */
static void keep_rank(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	struct otf *o = ctx;
	int r = t->node->mpi_rank;
	const struct trace_attr *peer;

	if (r < 0 || !is_mpi(io))
		return;
	rank_slot(o, r);
	if (o->rankloc[r] < 0)
		o->rankloc[r] = t->index;
	peer = trace_io_attr(io, "rank");
	if (peer) {
		long p = strtol(peer->value, NULL, 10);
		if (p >= 0 && p < (1L << 24))
			rank_slot(o, p);
	}
}

/* Outer first: by start, then the longer, then the shallower. */
static int cmp_reg(const void *x, const void *y)
{
	const struct reg *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	return (a->depth > b->depth) - (a->depth < b->depth);
}

/* --- the second reading: the events ------------------------------------ */

static uint64_t ts(struct otf *o, int64_t node_time)
{
	int64_t t = node_time + o->cur->node->off - o->t0;
	uint64_t u = t < 0 ? 0 : (uint64_t)t;

	if (u < o->last)
		u = o->last;
	o->last = u;
	return u;
}

static void check(OTF2_ErrorCode e, const char *what)
{
	if (e != OTF2_SUCCESS)
		die(2, "%s: %s: %s", opt.output, what, OTF2_Error_GetDescription(e));
}

static void leave_region(struct otf *o)
{
	struct reg *r = o->open[--o->nopen];

	check(OTF2_EvtWriter_Leave(o->w, NULL, ts(o, r->end), region_id(o, r->label, REG_USER)), "leave");
	o->nevents[o->cur->index]++;
}

/* The thread's regions up to time t: those ended left, those begun
 * entered, in time order. */
static void regions_upto(struct otf *o, int64_t t)
{
	struct tregs *tr = (size_t)o->cur->index < o->nregs ? &o->regs[o->cur->index] : NULL;

	for (;;) {
		int64_t next = tr && o->next < tr->n ? tr->v[o->next].start : INT64_MAX;

		if (o->nopen && o->open[o->nopen - 1]->end <= t && o->open[o->nopen - 1]->end <= next) {
			leave_region(o);
			continue;
		}
		if (next > t)
			return;
		struct reg *r = &tr->v[o->next++];

		while (o->nopen && o->open[o->nopen - 1]->end <= r->start)
			leave_region(o);
		check(OTF2_EvtWriter_Enter(o->w, NULL, ts(o, r->start), region_id(o, r->label, REG_USER)),
		      "enter");
		o->nevents[o->cur->index]++;
		XGROW(o->open, o->capopen, o->nopen + 1);
		o->open[o->nopen++] = r;
	}
}

static void on_thread(void *ctx, struct trace_thread *t)
{
	struct otf *o = ctx;

	o->cur = t;
	o->next = o->nopen = 0;
	o->last = 0;
	if ((size_t)t->index >= o->capev) {
		size_t n = (size_t)t->index + 64;

		o->nevents = xrealloc(o->nevents, n * sizeof(*o->nevents));
		o->seen = xrealloc(o->seen, n * sizeof(*o->seen));
		memset(o->nevents + o->capev, 0, (n - o->capev) * sizeof(*o->nevents));
		memset(o->seen + o->capev, 0, (n - o->capev) * sizeof(*o->seen));
		o->capev = n;
	}
	o->seen[t->index] = true;
	if (!(o->w = OTF2_Archive_GetEvtWriter(o->ar, (OTF2_LocationRef)t->index)))
		die(2, "%s: cannot make the writer of thread %ld", opt.output, t->tid);
	if ((size_t)t->index < o->nregs && o->regs[t->index].n > 1)
		qsort(o->regs[t->index].v, o->regs[t->index].n, sizeof(struct reg), cmp_reg);
}

static int64_t attr_num(const struct trace_io *io, const char *name, int64_t none)
{
	const struct trace_attr *a = trace_io_attr(io, name);

	return a ? strtoll(a->value, NULL, 10) : none;
}

static int mpi_kind(const char *api, int *op)
{
	for (size_t i = 0; i < sizeof(mpicalls) / sizeof(mpicalls[0]); i++)
		if (!strcmp(api, mpicalls[i].api)) {
			*op = mpicalls[i].op;
			return mpicalls[i].kind;
		}
	return MK_NONE;
}

static void count(struct otf *o)
{
	o->nevents[o->cur->index]++;
}

/* The requests a Wait or Test completed ("ID" a send's, "ID:SRC:TAG:BYTES"
 * a receive's; 0: a Sendrecv's own receive) */
static void mpi_done(struct otf *o, const char *p, uint64_t at)
{
	while (*p) {
		char *e;
		unsigned long long id = strtoull(p, &e, 10);
		long long src = -1, tag = 0, bytes = 0;
		if (e == p)
			break;
		if (*e == ':' && sscanf(e, ":%lld:%lld:%lld", &src, &tag, &bytes) != 3)
			src = -1;
		if (*e != ':' && id) {
			check(OTF2_EvtWriter_MpiIsendComplete(o->w, NULL, at, id), "MPI Isend complete");
			count(o);
		} else if (src >= 0 && id) {
			check(OTF2_EvtWriter_MpiIrecv(o->w, NULL, at, (uint32_t)src, 0, (uint32_t)tag,
						      (uint64_t)bytes, id), "MPI Irecv");
			count(o);
		} else if (src >= 0) {
			check(OTF2_EvtWriter_MpiRecv(o->w, NULL, at, (uint32_t)src, 0, (uint32_t)tag,
						     (uint64_t)bytes), "MPI receive");
			count(o);
		}
		for (p = e; *p && *p != ' '; p++)
			;
		while (*p == ' ')
			p++;
	}
}

static void lv_begin(struct otf *o, const struct lvcall *c)
{
	uint64_t at = ts(o, c->start);

	check(OTF2_EvtWriter_Enter(o->w, NULL, at, c->reg), "enter");
	count(o);
	if (c->kind == MK_COLL && c->comm == 0) {
		check(OTF2_EvtWriter_MpiCollectiveBegin(o->w, NULL, at), "MPI collective begin");
		count(o);
	} else if (c->rank < 0) {
		return;
	} else if (c->kind == MK_SEND || c->kind == MK_SENDRECV) {
		check(OTF2_EvtWriter_MpiSend(o->w, NULL, at, (uint32_t)c->rank, 0, (uint32_t)c->tag,
					     c->bytes), "MPI send");
		count(o);
	} else if (c->kind == MK_ISEND && c->req > 0) {
		check(OTF2_EvtWriter_MpiIsend(o->w, NULL, at, (uint32_t)c->rank, 0, (uint32_t)c->tag,
					      c->bytes, (uint64_t)c->req), "MPI Isend");
		count(o);
	} else if (c->kind == MK_IRECV && c->req > 0) {
		check(OTF2_EvtWriter_MpiIrecvRequest(o->w, NULL, at, (uint64_t)c->req),
		      "MPI Irecv request");
		count(o);
	}
}

static void lv_end(struct otf *o, struct lvcall *c)
{
	uint64_t at = ts(o, c->end);
	int op = c->op;

	if (c->kind == MK_COLL && c->comm == 0) {
		bool rooted = op == OTF2_COLLECTIVE_OP_BCAST || op == OTF2_COLLECTIVE_OP_REDUCE ||
			      op == OTF2_COLLECTIVE_OP_GATHER || op == OTF2_COLLECTIVE_OP_SCATTER;
		check(OTF2_EvtWriter_MpiCollectiveEnd(o->w, NULL, at, (OTF2_CollectiveOp)op, 0,
			rooted && c->rank >= 0 ? (uint32_t)c->rank : OTF2_UNDEFINED_UINT32, c->bytes, 0),
		      "MPI collective end");
		count(o);
	} else if (c->kind == MK_RECV && c->rank >= 0) {
		check(OTF2_EvtWriter_MpiRecv(o->w, NULL, at, (uint32_t)c->rank, 0, (uint32_t)c->tag,
					     c->bytes), "MPI receive");
		count(o);
	} else if ((c->kind == MK_DONE || c->kind == MK_SENDRECV) && c->done) {
		mpi_done(o, c->done, at);
	}
	check(OTF2_EvtWriter_Leave(o->w, NULL, at, c->reg), "leave");
	count(o);
	free(c->done);
}

/* the thread's MPI calls that ended by time t left, innermost first */
static void lv_upto(struct otf *o, int64_t t)
{
	while (o->nlv && o->lv[o->nlv - 1].end <= t)
		lv_end(o, &o->lv[--o->nlv]);
}

/* An MPI call of a rank's location (its MPI records, the calls it made
 * below inside it), or any call. */
static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	struct otf *o = ctx;
	bool mpi = is_mpi(io);
	uint32_t reg = region_id(o, io->api, mpi ? REG_MPI : REG_CALL);
	bool rw = io->res == TRACE_RES_FILEREAD || io->res == TRACE_RES_FILEWRITE;
	int r = t->node->mpi_rank;

	lv_upto(o, io->start);
	regions_upto(o, io->start);
	if (mpi && o->mpi && r >= 0 && (size_t)r < o->nranks && t->index == o->rankloc[r]) {
		const struct trace_attr *d = trace_io_attr(io, "done");
		struct lvcall c = {
			.start = io->start, .end = io->end, .reg = reg,
			.rank = attr_num(io, "rank", -1), .tag = attr_num(io, "tag", 0),
			.comm = attr_num(io, "comm", -1), .req = attr_num(io, "request", 0),
			.bytes = io->has_amount && io->amount > 0 ? (uint64_t)io->amount : 0,
			.done = d ? xstrdup(d->value) : NULL,
		};
		c.kind = io->failed ? MK_NONE : mpi_kind(io->api, &c.op);
		lv_begin(o, &c);
		XGROW(o->lv, o->caplv, o->nlv + 1);
		o->lv[o->nlv++] = c;
		return;
	}
	check(OTF2_EvtWriter_Enter(o->w, NULL, ts(o, io->start), reg), "enter");
	o->nevents[t->index] += 2;
	if (rw) {
		uint32_t h = handle_id(o, io->path ? io->path : "", t->node->index);
		bool counted = io->path && !io->failed && !io->libc_only && io->has_amount;
		uint64_t m = o->matching++;

		check(OTF2_EvtWriter_IoOperationBegin(o->w, NULL, ts(o, io->start), h,
			io->res == TRACE_RES_FILEREAD ? OTF2_IO_OPERATION_MODE_READ :
			OTF2_IO_OPERATION_MODE_WRITE, OTF2_IO_OPERATION_FLAG_NONE,
			(uint64_t)(io->size > 0 ? io->size : io->has_amount ? io->amount : 0), m),
		      "I/O begin");
		check(OTF2_EvtWriter_IoOperationComplete(o->w, NULL, ts(o, io->end), h,
			counted ? (uint64_t)io->amount : 0, m), "I/O complete");
		o->nevents[t->index] += 2;
	}
	check(OTF2_EvtWriter_Leave(o->w, NULL, ts(o, io->end), reg), "leave");
}

static void on_thread_end(void *ctx, struct trace_thread *t)
{
	struct otf *o = ctx;

	lv_upto(o, INT64_MAX);
	regions_upto(o, INT64_MAX - 1);
	while (o->nopen)
		leave_region(o);
	check(OTF2_Archive_CloseEvtWriter(o->ar, o->w), "close a thread's events");
	o->w = NULL;
	if ((size_t)t->index < o->nregs) {	/* its regions are written */
		free(o->regs[t->index].v);
		o->regs[t->index] = (struct tregs){ 0 };
	}
}

/* --- the definitions ---------------------------------------------------- */

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef loc, void *c, bool final)
{
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef loc)
{
	return 0;
}

static void write_defs(struct otf *o)
{
	struct trace_run *run = o->run;
	OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(o->ar);
	uint32_t root_name = str_id(o, "run"), node_class = str_id(o, "node");
	uint32_t run_class = str_id(o, "machine"), posix = str_id(o, "POSIX");
	uint32_t mpi_name = str_id(o, "MPI"), world_name = str_id(o, "MPI_COMM_WORLD");
	uint32_t locs_name = str_id(o, "MPI_COMM_WORLD's locations");
	uint32_t nfiles;

	if (!g)
		die(2, "%s: cannot write the definitions", opt.output);
	/* the I/O files: one per node and path, as the handles */
	for (uint32_t h = 0; h < o->handles.n; h++)
		str_id(o, o->hv[h].path);
	nfiles = (uint32_t)o->handles.n;
	for (size_t i = 0; i < run->nnodes; i++)
		str_id(o, run->nodes[i]->name);
	for (size_t i = 0; i < run->nprocs; i++) {
		char *s = xasprintf("%ld %s", run->procs[i]->pid, run->procs[i]->exe);

		str_id(o, s);
		free(s);
	}
	for (size_t i = 0; i < run->nthreads; i++) {
		char *s = xasprintf("%ld %s", run->threads[i]->tid, run->threads[i]->name);

		str_id(o, s);
		free(s);
	}
	for (size_t i = 0; i < o->regions.cap; i++)
		if (o->regions.v[i].key)
			str_id(o, o->regions.v[i].key);
	/* every string first: the ids are final */
	for (uint32_t i = 0; i < o->strings.n; i++)
		check(OTF2_GlobalDefWriter_WriteString(g, i, o->strv[i]), "string");
	check(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, (uint64_t)(run->epoch0 + run->t0),
		(uint64_t)(run->t1 - run->t0), (uint64_t)(run->epoch0 + run->t0)), "clock");
	check(OTF2_GlobalDefWriter_WriteIoParadigm(g, 0, posix, posix, OTF2_IO_PARADIGM_CLASS_SERIAL,
		OTF2_IO_PARADIGM_FLAG_OS, 0, NULL, NULL, NULL), "I/O paradigm");
	/* in the order of their ids, as readers want them */
	const struct ent **byid = xcalloc(o->regions.n + 1, sizeof(*byid));

	for (size_t i = 0; i < o->regions.cap; i++)
		if (o->regions.v[i].key)
			byid[o->regions.v[i].id] = &o->regions.v[i];
	for (size_t i = 0; i < o->regions.n; i++) {
		const struct ent *e = byid[i];
		uint32_t name = str_id(o, e->key);

		int op = 0, k = e->node == REG_MPI ? mpi_kind(e->key, &op) : MK_NONE;
		check(OTF2_GlobalDefWriter_WriteRegion(g, e->id, name, name, name,
			e->node == REG_USER ? OTF2_REGION_ROLE_CODE :
			k == MK_COLL ? (op == OTF2_COLLECTIVE_OP_BARRIER ? OTF2_REGION_ROLE_BARRIER :
					OTF2_REGION_ROLE_COLL_ALL2ALL) :
			k != MK_NONE ? OTF2_REGION_ROLE_POINT2POINT : OTF2_REGION_ROLE_FUNCTION,
			e->node == REG_USER ? OTF2_PARADIGM_USER :
			e->node == REG_MPI ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_NONE, OTF2_REGION_FLAG_NONE,
			OTF2_UNDEFINED_STRING, 0, 0), "region");
	}
	free(byid);
	check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, root_name, run_class,
		OTF2_UNDEFINED_SYSTEM_TREE_NODE), "system tree");
	for (size_t i = 0; i < run->nnodes; i++)
		check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, (uint32_t)i + 1,
			str_id(o, run->nodes[i]->name), node_class, 0), "system tree node");
	for (size_t i = 0; i < run->nprocs; i++) {
		char *s = xasprintf("%ld %s", run->procs[i]->pid, run->procs[i]->exe);

		check(OTF2_GlobalDefWriter_WriteLocationGroup(g, (uint32_t)i, str_id(o, s),
			OTF2_LOCATION_GROUP_TYPE_PROCESS, (uint32_t)run->procs[i]->node->index + 1,
			OTF2_UNDEFINED_LOCATION_GROUP), "location group");
		free(s);
	}
	for (size_t i = 0; i < run->nthreads; i++) {
		struct trace_thread *t = run->threads[i];
		char *s;
		uint32_t group = 0;

		if ((size_t)t->index >= o->capev || !o->seen[t->index])
			continue;
		s = xasprintf("%ld %s", t->tid, t->name);

		for (size_t k = 0; k < run->nprocs; k++)
			if (run->procs[k] == t->proc)
				group = (uint32_t)k;
		check(OTF2_GlobalDefWriter_WriteLocation(g, (uint64_t)t->index, str_id(o, s),
			OTF2_LOCATION_TYPE_CPU_THREAD, o->nevents[t->index], group), "location");
		free(s);
	}
	for (uint32_t h = 0; h < nfiles; h++) {
		check(OTF2_GlobalDefWriter_WriteIoRegularFile(g, h, str_id(o, o->hv[h].path),
			(uint32_t)o->hv[h].node + 1), "I/O file");
		check(OTF2_GlobalDefWriter_WriteIoHandle(g, h, str_id(o, o->hv[h].path), h, 0,
			OTF2_IO_HANDLE_FLAG_NONE, OTF2_UNDEFINED_COMM, OTF2_UNDEFINED_IO_HANDLE),
		      "I/O handle");
	}
	if (o->mpi) {	/* MPI_COMM_WORLD: its ranks' locations */
		uint64_t *locs = xcalloc(o->nranks, sizeof(*locs)), *ranks = xcalloc(o->nranks, sizeof(*ranks));
		for (size_t r = 0; r < o->nranks; r++) {
			locs[r] = (uint64_t)o->rankloc[r];
			ranks[r] = r;
		}
		check(OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, mpi_name,
			OTF2_PARADIGM_CLASS_PROCESS), "MPI paradigm");
		check(OTF2_GlobalDefWriter_WriteGroup(g, 0, locs_name, OTF2_GROUP_TYPE_COMM_LOCATIONS,
			OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)o->nranks, locs), "MPI locations");
		check(OTF2_GlobalDefWriter_WriteGroup(g, 1, world_name, OTF2_GROUP_TYPE_COMM_GROUP,
			OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)o->nranks, ranks), "MPI group");
		check(OTF2_GlobalDefWriter_WriteComm(g, 0, world_name, 1, OTF2_UNDEFINED_COMM,
			OTF2_COMM_FLAG_NONE), "MPI_COMM_WORLD");
		free(locs);
		free(ranks);
	}
	check(OTF2_Archive_CloseGlobalDefWriter(o->ar, g), "close the definitions");
}

int export_otf2(int argc, char **argv)
{
	static const struct trace_ops first = { .region = keep_region, .io = keep_rank };
	static const struct trace_ops second = {
		.thread = on_thread, .io = on_io, .thread_end = on_thread_end,
	};
	static const OTF2_FlushCallbacks flush = { pre_flush, post_flush };
	struct trace_run pre = { 0 }, run = { 0 };
	struct otf o = { .run = &run };
	struct stat st;

	if (!opt.output)
		die(2, "export --format otf2: -o DIR is needed (the archive's directory)");
	/* OTF2 writes DIR/traces.otf2, DIR/traces.def, DIR/traces/: a fresh
	 * directory, not one holding something else */
	if (!lstat(opt.output, &st) && (!S_ISDIR(st.st_mode) || rmdir(opt.output)))
		die(2, "%s: exists and is not an empty directory", opt.output);
	read_traces(&pre, argv, argc, &first, &o);
	/* the first reading saw every node: the run aligned on the earliest
	 * epoch, as a prescan would */
	for (size_t i = 0; i < pre.nnodes; i++)
		if (!i || pre.nodes[i]->epoch < run.epoch0)
			run.epoch0 = pre.nodes[i]->epoch;
	for (size_t i = 0; i < pre.nnodes; i++) {
		struct trace_node *n = pre.nodes[i];
		int64_t off = n->epoch - run.epoch0;

		if (!i || n->start + off < run.t0)
			run.t0 = n->start + off;
		if (!i || n->end + off > run.t1)
			run.t1 = n->end + off;
	}
	run.have_epoch0 = pre.nnodes > 0;
	run.prescanned = true;
	o.t0 = run.t0;
	o.mpi = o.nranks > 0;
	for (size_t r = 0; r < o.nranks; r++)
		if (o.rankloc[r] < 0)
			o.mpi = false;
	if (o.nranks && !o.mpi && (filt.node || filt.has_tid))
		warnx("export --format otf2: --node or --thread keeps some ranks' calls only: "
		      "no MPI records, the MPI calls as regions");
	else if (o.nranks && !o.mpi)
		warnx("export --format otf2: not every rank's trace is here (0 to %zu, as the "
		      "ranks' peers say): no MPI records, the MPI calls as regions", o.nranks - 1);
	o.ar = OTF2_Archive_Open(opt.output, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
				 4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!o.ar)
		die(2, "%s: cannot create the OTF2 archive", opt.output);
	check(OTF2_Archive_SetFlushCallbacks(o.ar, &flush, NULL), "flush callbacks");
	check(OTF2_Archive_SetSerialCollectiveCallbacks(o.ar), "collective callbacks");
	check(OTF2_Archive_SetCreator(o.ar, "island-analyze " ISLAND_VERSION), "creator");
	check(OTF2_Archive_OpenEvtFiles(o.ar), "open the event files");
	read_traces(&run, argv, argc, &second, &o);
	check(OTF2_Archive_CloseEvtFiles(o.ar), "close the event files");
	/* a local definition file per location, empty: readers want them */
	check(OTF2_Archive_OpenDefFiles(o.ar), "open the definition files");
	for (size_t i = 0; i < run.nthreads; i++) {
		if (i >= o.capev || !o.seen[i])
			continue;
		OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(o.ar, (OTF2_LocationRef)i);

		if (!d)
			die(2, "%s: cannot write the definitions of thread %ld", opt.output,
			    run.threads[i]->tid);
		check(OTF2_Archive_CloseDefWriter(o.ar, d), "close a definition file");
	}
	check(OTF2_Archive_CloseDefFiles(o.ar), "close the definition files");
	write_defs(&o);
	check(OTF2_Archive_Close(o.ar), "close the archive");
	for (size_t i = 0; i < o.nregs; i++)
		free(o.regs[i].v);
	free(o.regs);
	free(o.strings.v);
	free(o.regions.v);
	free(o.handles.v);
	free(o.strv);
	free(o.hv);
	free(o.seen);
	free(o.nevents);
	free(o.open);
	free(o.rankloc);
	free(o.lv);
	run_free(&pre);
	run_free(&run);
	return 0;
}
#endif
