/* The trace loader: the replay plan (replay.h) built from the trace
 * library's one streaming reader (include/island-trace.h), strict: an
 * element or text this version does not define is an error with its
 * line, as is any value the library's validator refuses (the same words
 * island-analyze says). A replay must not guess. */
#include "replay.h"
#include "util.h"
#include "island-trace.h"
#include "validate.h"

#include <stdlib.h>
#include <string.h>

/* ---- interned strings: a trace repeats its few paths a million times -- */

static const char **itab;
static size_t icap, icount;

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* a string in the trace's string table: the load's own (the analyzer's
 * intern() is another table) */
static const char *intern(const char *s)
{
	if (!s)
		return NULL;
	if (icount * 2 >= icap) {
		size_t ncap = icap ? icap * 2 : 1024;
		const char **n = xcalloc(ncap, sizeof(*n));

		for (size_t i = 0; i < icap; i++) {
			if (!itab[i])
				continue;
			size_t j = hash(itab[i]) & (ncap - 1);
			while (n[j])
				j = (j + 1) & (ncap - 1);
			n[j] = itab[i];
		}
		free(itab);
		itab = n;
		icap = ncap;
	}
	size_t j = hash(s) & (icap - 1);
	while (itab[j]) {
		if (!strcmp(itab[j], s))
			return itab[j];
		j = (j + 1) & (icap - 1);
	}
	itab[j] = xstrdup(s);
	icount++;
	return itab[j];
}

void intern_free(void)
{
	for (size_t i = 0; i < icap; i++)
		free((char *)itab[i]);
	free(itab);
	itab = NULL;
	icap = icount = 0;
}

/* ---- reader state ------------------------------------------------------ */

/* replay's classes are the trace's shifted by one (RES_NONE first) */
_Static_assert(RES_FILEREAD == TRACE_RES_FILEREAD + 1 && RES_SYS == TRACE_RES_SYS + 1,
	       "enum res follows enum trace_res");

struct rd {
	const char *file;
	struct trace *t;
	struct node *node;
	struct process *proc;
	struct thread *thr;
	int seq_seen;	/* per node */
	/* the thread's MPI-level calls open at this point (op index, times,
	 * the end of what was replayed within it so far) */
	struct { size_t op; int64_t start, end, cur; int again; } lv[8];
	int nlv;
	size_t gapop;	/* 1 + a compute op before waits within a level */
	/* ... and its Irecvs so far: a completion tells their bytes */
	struct { uint32_t req; size_t op; } *irecv;
	size_t nirecv, capirecv;
	int32_t alinks;	/* the thread's asynchronous operations so far */
	/* the communicators of its process that --mpi makes again:
	 * MPI_COMM_WORLD (0) and the duplicates of those */
	const struct process *comms_of;
	uint32_t *comms;
	size_t ncomms, capcomms;
};

/* Waits name nodes that may come later in the file: names are kept and
 * resolved once every node is known. */
struct pending { const char *name; size_t node, thr, op; long line; };
static struct pending *pend;
static size_t npend, pendcap;

static const char *const proto_names[] = {
	[P_TCP] = "tcp", [P_UDP] = "udp", [P_UNIX_STREAM] = "unix-stream",
	[P_UNIX_DGRAM] = "unix-dgram", [P_PIPE] = "pipe", [P_OTHER] = "other",
};

static int proto_of(const char *v)
{
	if (!v || !*v)
		return P_NONE;
	for (size_t i = 1; i < sizeof(proto_names) / sizeof(*proto_names); i++)
		if (!strcmp(v, proto_names[i]))
			return (int)i;
	return P_OTHER;
}

/* The library's "" for an absent string, as NULL. */
static const char *intern_set(const char *s)
{
	return s && *s ? intern(s) : NULL;
}

/* A number the validator checked (it knows every one the replay reads). */
static int64_t io_num(const struct trace_io *io, const char *name, int *has, int64_t dflt)
{
	const struct trace_attr *a = trace_io_attr(io, name);

	if (has)
		*has = a != NULL;
	return a ? a->num : dflt;
}

static const char *io_str(const struct trace_io *io, const char *name)
{
	const struct trace_attr *a = trace_io_attr(io, name);

	return a ? a->value : NULL;
}

/* the classes that move bytes: with --syscalls, each kernel transfer is
 * replayed once, by its kernel-level element */
static const uint8_t transfers[RES_SYS + 1] = {
	[RES_FILEREAD] = 1, [RES_FILEWRITE] = 1, [RES_NETSEND] = 1, [RES_NETRECV] = 1,
};

static struct op *new_op(struct rd *rd, int kind)
{
	struct thread *th = rd->thr;

	XGROW(th->ops, th->cap, th->nops + 1);
	struct op *o = &th->ops[th->nops++];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->line = (uint32_t)trace_line();
	o->fd = o->oldfd = o->fd2 = o->infd = -1;
	o->node = -1;
	o->child = -1;
	o->target = -1;
	o->whence = -1;
	return o;
}

/* A descriptor on an event counter, timer, signal queue or inotify */
static int event_path(const char *p)
{
	return p && !strncmp(p, "anon_inode:", 11);
}

/* The MPI calls --mpi issues again: point-to-point and collectives on
 * MPI_COMM_WORLD (comm 0) */
static const struct { const char *api; uint8_t kind; } mpikinds[] = {
	{ "MPI_Send", MK_SEND }, { "MPI_Ssend", MK_SEND }, { "MPI_Rsend", MK_SEND },
	{ "MPI_Bsend", MK_SEND }, { "MPI_Isend", MK_ISEND }, { "MPI_Issend", MK_ISEND },
	{ "MPI_Recv", MK_RECV }, { "MPI_Irecv", MK_IRECV }, { "MPI_Sendrecv", MK_SENDRECV },
	{ "MPI_Wait", MK_DONE }, { "MPI_Waitall", MK_DONE }, { "MPI_Waitany", MK_DONE },
	{ "MPI_Waitsome", MK_DONE }, { "MPI_Test", MK_DONE }, { "MPI_Testall", MK_DONE },
	{ "MPI_Testany", MK_DONE }, { "MPI_Testsome", MK_DONE },
	{ "MPI_Barrier", MK_BARRIER }, { "MPI_Bcast", MK_BCAST }, { "MPI_Reduce", MK_REDUCE },
	{ "MPI_Allreduce", MK_ALLREDUCE }, { "MPI_Gather", MK_GATHER },
	{ "MPI_Scatter", MK_SCATTER }, { "MPI_Allgather", MK_ALLGATHER },
	{ "MPI_Alltoall", MK_ALLTOALL },
	{ "MPI_File_open", MK_FOPEN }, { "MPI_File_close", MK_FCLOSE },
	{ "MPI_File_set_view", MK_FVIEW }, { "MPI_File_set_size", MK_FSIZE },
	{ "MPI_File_sync", MK_FSYNC }, { "MPI_File_read", MK_FREAD },
	{ "MPI_File_read_at", MK_FREAD_AT }, { "MPI_File_read_all", MK_FREAD_ALL },
	{ "MPI_File_read_at_all", MK_FREAD_AT_ALL }, { "MPI_File_read_shared", MK_FREAD_SHARED },
	{ "MPI_File_read_ordered", MK_FREAD_ORDERED }, { "MPI_File_write", MK_FWRITE },
	{ "MPI_File_write_at", MK_FWRITE_AT }, { "MPI_File_write_all", MK_FWRITE_ALL },
	{ "MPI_File_write_at_all", MK_FWRITE_AT_ALL },
	{ "MPI_File_write_shared", MK_FWRITE_SHARED },
	{ "MPI_File_write_ordered", MK_FWRITE_ORDERED }, { "MPI_File_iread", MK_FIREAD },
	{ "MPI_File_iread_at", MK_FIREAD_AT }, { "MPI_File_iwrite", MK_FIWRITE },
	{ "MPI_File_iwrite_at", MK_FIWRITE_AT },
	{ "MPI_Comm_dup", MK_COMMDUP }, { "MPI_Comm_free", MK_COMMFREE },
};

/* Is comm one that --mpi makes again in this process? */
static int comm_known(struct rd *rd, uint32_t comm)
{
	if (rd->comms_of != rd->proc) {
		rd->comms_of = rd->proc;
		rd->ncomms = 0;
	}
	if (!comm)
		return 1;
	for (size_t i = 0; i < rd->ncomms; i++)
		if (rd->comms[i] == comm)
			return 1;
	return 0;
}

/* an open's MPI_MODE_* names, as the capture writes them (flags="A|B") */
static const struct { const char *name; int bit; } amodes[] = {
	{ "MPI_MODE_RDONLY", AM_RDONLY }, { "MPI_MODE_RDWR", AM_RDWR },
	{ "MPI_MODE_WRONLY", AM_WRONLY }, { "MPI_MODE_CREATE", AM_CREATE },
	{ "MPI_MODE_EXCL", AM_EXCL }, { "MPI_MODE_DELETE_ON_CLOSE", AM_DELETE_ON_CLOSE },
	{ "MPI_MODE_UNIQUE_OPEN", AM_UNIQUE_OPEN }, { "MPI_MODE_SEQUENTIAL", AM_SEQUENTIAL },
	{ "MPI_MODE_APPEND", AM_APPEND },
};

/* MPI_MODE_* as AM_* bits (mpi.c gives them the library's values) */
static int amode_of(const char *s)
{
	int m = 0;

	for (const char *p = s; p && *p;) {
		size_t n = strcspn(p, "|");
		for (size_t i = 0; i < sizeof(amodes) / sizeof(amodes[0]); i++)
			if (strlen(amodes[i].name) == n && !strncmp(p, amodes[i].name, n))
				m |= amodes[i].bit;
		p += n + (p[n] == '|');
	}
	return m;
}

/* An MPI element as --mpi issues it again, or NULL: its completions
 * ("ID" a send's, "ID:SRC:TAG:BYTES" a receive's) tell the thread's
 * Irecvs their bytes */
static struct mpiop *mpi_op(struct rd *rd, const struct trace_io *io, const char *lv)
{
	uint8_t kind = 0;

	uint32_t comm = (uint32_t)io_num(io, "comm", NULL, 0);

	if ((strcmp(lv, "mpi") && strcmp(lv, "mpi-io")) || io->failed || !comm_known(rd, comm))
		return NULL;
	for (size_t i = 0; i < sizeof(mpikinds) / sizeof(mpikinds[0]) && !kind; i++)
		if (!strcmp(io->api, mpikinds[i].api))
			kind = mpikinds[i].kind;
	if (!kind)
		return NULL;
	struct mpiop *m = xcalloc(1, sizeof(*m));
	m->kind = kind;
	m->comm = comm;
	if (kind == MK_COMMDUP) {
		m->newcomm = (uint32_t)io_num(io, "newcomm", NULL, 0);
		XGROW(rd->comms, rd->capcomms, rd->ncomms + 1);
		rd->comms[rd->ncomms++] = m->newcomm;
	}
	m->rank = (int32_t)io_num(io, "rank", NULL, -1);
	m->tag = (int32_t)io_num(io, "tag", NULL, -1);
	m->req = (uint32_t)io_num(io, "request", NULL, 0);
	m->bytes = io->has_amount ? io->amount : 0;
	m->rsrc = m->rtag = -1;
	if (MK_FILE(kind)) {
		const char *p = io_str(io, "path");
		if (!p) {		/* a handle the capture did not know */
			free(m);
			return NULL;
		}
		m->path = intern(p);
		m->amode = amode_of(io_str(io, "flags"));
		m->offset = io_num(io, "offset", NULL, 0);
	}
	const char *d = io_str(io, "done");
	size_t cap = 0;
	for (const char *p = d; p && *p;) {
		char *e;
		unsigned long id = strtoul(p, &e, 10);
		long src = -1, tag = -1;
		long long b = -1;
		if (*e == ':') {
			src = strtol(e + 1, &e, 10);
			if (*e == ':')
				tag = strtol(e + 1, &e, 10);
			if (*e == ':')
				b = strtoll(e + 1, &e, 10);
		}
		if (id) {
			XGROW(m->done, cap, m->ndone + 1);
			m->done[m->ndone++] = (uint32_t)id;
		} else if (kind == MK_SENDRECV) {
			m->rsrc = (int32_t)src;
			m->rtag = (int32_t)tag;
			m->rbytes = b > 0 ? b : 0;
		}
		for (size_t k = 0; id && b >= 0 && k < rd->nirecv; k++)
			if (rd->irecv[k].req == id) {
				struct mpiop *r = rd->thr->ops[rd->irecv[k].op].mpi;
				if (r)
					r->bytes = b;
				rd->irecv[k] = rd->irecv[--rd->nirecv];
				break;
			}
		while (*e && *e != ' ')
			e++;
		while (*e == ' ')
			e++;
		p = e;
	}
	return m;
}

/* The time within a level call that its calls below did not take (the
 * trace has no compute there: MPI's progress loop, a message over shared
 * memory) is a compute phase where it was, between those calls. Spent as
 * the level call's own before them, it moved a token ring's every call
 * within MPI_Init 28 ms late and the replay ran 8-14 % long. A wait
 * before a call comes after the phase before it: a wait within a level
 * opens a phase that the next call's start fills. */
static void level_gap(struct rd *rd, int64_t ns)
{
	struct op *o;

	if (ns <= 0)
		return;
	o = rd->gapop ? &rd->thr->ops[rd->gapop - 1] : new_op(rd, OP_COMPUTE);
	o->dur += ns;
	rd->thr->computing += ns;
}

/* the levels that end by T (INT64_MAX: all), the phases at their ends */
static void level_close(struct rd *rd, int64_t t)
{
	while (rd->nlv && rd->lv[rd->nlv - 1].end <= t) {
		rd->nlv--;
		if (!rd->lv[rd->nlv].again)
			level_gap(rd, rd->lv[rd->nlv].end - rd->lv[rd->nlv].cur);
		if (rd->nlv && rd->lv[rd->nlv - 1].cur < rd->lv[rd->nlv].end)
			rd->lv[rd->nlv - 1].cur = rd->lv[rd->nlv].end;
	}
}

/* before IO's op: the phase since the last call within its level */
static void level_enter(struct rd *rd, const struct trace_io *io)
{
	while (rd->nlv && !(io->start >= rd->lv[rd->nlv - 1].start &&
			    io->end <= rd->lv[rd->nlv - 1].end))
		level_close(rd, rd->lv[rd->nlv - 1].end);
	if (rd->nlv && io_str(io, "within") && !rd->lv[rd->nlv - 1].again) {
		int64_t *cur = &rd->lv[rd->nlv - 1].cur;
		level_gap(rd, io->start - *cur);
		if (*cur < io->end)
			*cur = io->end;
	}
	rd->gapop = 0;
}

static void level_dep(struct rd *rd)
{
	if (rd->nlv && !rd->lv[rd->nlv - 1].again && !rd->gapop) {
		new_op(rd, OP_COMPUTE);
		rd->gapop = rd->thr->nops;
	}
}

/* The MPI, MPI-IO and HDF5 levels (level="mpi", "mpi-io", "hdf5"): the
 * calls it made below are replayed as they are, within it, and the rest
 * of its time as phases between them (level_gap); with --mpi it is
 * issued again, and what it made below is its own. It moves nothing
 * itself. */
static void mpi_level(struct rd *rd, const struct trace_io *io, struct op *o)
{
	const char *lv = io_str(io, "level");
	int level = lv && (!strcmp(lv, "mpi") || !strcmp(lv, "mpi-io") || !strcmp(lv, "hdf5"));

	if (rd->nlv && io_str(io, "within")) {
		struct op *up = &rd->thr->ops[rd->lv[rd->nlv - 1].op];
		up->dur = up->dur > o->dur ? up->dur - o->dur : 0;
		o->in_mpi = rd->lv[rd->nlv - 1].again;
	}
	if (!level)
		return;
	const char *again = getenv("ISLAND_REPLAY_MPI_CALLS");
	if (opt.mpi && !(again && !strcmp(again, "0")) && (o->mpi = mpi_op(rd, io, lv)) &&
	    o->mpi->kind == MK_IRECV && o->mpi->req) {
		XGROW(rd->irecv, rd->capirecv, rd->nirecv + 1);
		rd->irecv[rd->nirecv].req = o->mpi->req;
		rd->irecv[rd->nirecv++].op = (size_t)(o - rd->thr->ops);
	}
	o->call = NULL;
	o->res = RES_NETMETA;
	o->kernel = 0;
	o->libc_only = 0;	/* (the reader's: its bytes are no file's) */
	o->has_amount = 0;
	int redo = o->mpi != NULL || o->in_mpi;
	if (!redo)
		o->dur = 0;
	if (rd->nlv < 8) {
		rd->lv[rd->nlv].op = (size_t)(o - rd->thr->ops);
		rd->lv[rd->nlv].start = rd->lv[rd->nlv].cur = io->start;
		rd->lv[rd->nlv].again = redo;
		rd->lv[rd->nlv++].end = io->end;
	}
}

/* a call not reissued, counted by name for the report (as run.c: a
 * metadata call lasts its original time) */
static void skip_note(struct node *n, const char *api, int res)
{
	const char *a = intern(api);

	for (size_t i = 0; i < n->nskips; i++)
		if (n->skips[i].api == a) {
			n->skips[i].n++;
			return;
		}
	XGROW(n->skips, n->skcap, n->nskips + 1);
	n->skips[n->nskips++] = (struct skipstat){ a, 1, res == RES_FILEMETA || res == RES_NETMETA };
}

static void on_io(void *ctx, struct trace_thread *tt, const struct trace_io *io)
{
	struct rd *rd = ctx;

	level_enter(rd, io);
	struct op *o = new_op(rd, OP_IO);
	int has;

	o->res = (uint8_t)(io->res + 1);
	o->call = call_lookup(io->api, o->res);
	if (!o->call)
		skip_note(rd->node, io->api, o->res);
	o->start = io->start;
	o->dur = io->end - io->start;	/* validated: >= 0 */
	o->amount = io->amount;
	o->has_amount = io->has_amount;
	o->libc_only = io->libc_only && transfers[o->res];
	o->kernel = !io->libc_only && io_str(io, "level");
	o->size = io->size;
	o->offset = io_num(io, "offset", &has, 0);
	o->has_offset = has;
	o->result = io_num(io, "result", &has, 0);
	o->has_result = has;
	o->fd = (int32_t)io_num(io, "fd", NULL, -1);
	o->oldfd = (int32_t)io_num(io, "oldfd", NULL, -1);
	o->fd2 = (int32_t)io_num(io, "fd2", NULL, -1);
	o->infd = (int32_t)io_num(io, "infd", NULL, -1);
	o->count = (int32_t)io_num(io, "count", NULL, -1);
	o->child = io_num(io, "child", NULL, -1);
	o->req = io->has_req ? io->req : -1;
	o->timeout = io_num(io, "timeout", NULL, -2);
	o->path = intern(io->path);
	if (event_path(o->path))
		o->call = call_on_event(o->call);
	o->path2 = intern(io_str(io, "path2"));
	o->kfile = o->path && (o->res == RES_FILEREAD || o->res == RES_FILEWRITE ||
			       o->res == RES_FILEMETA) &&
		   (!strncmp(o->path, "/proc/", 6) || !strncmp(o->path, "/sys/", 5));
	/* a symlink's content (its target, as given) is its second path */
	if (!o->path2 && o->call && !strncmp(o->call->api, "symlink", 7))
		o->path2 = intern(io_str(io, "target"));
	/* a connect's original local address names its connection (netio.c) */
	if (!o->path2 && o->call && !strcmp(o->call->api, "connect"))
		o->path2 = intern(io_str(io, "local"));
	o->inpath = intern(io->inpath);
	o->peer = intern(io->peer);
	o->flags = intern(io_str(io, "flags"));
	o->cmd = intern(io_str(io, "cmd"));
	o->proto = (uint8_t)proto_of(io->proto);
	o->pipe = (int32_t)io_num(io, "pipe", NULL, 0);
	/* a non-blocking connect under way (EINPROGRESS) goes on to connect */
	o->failed = io->failed && strcmp(io->err, "EINPROGRESS");
	o->in_progress = io->failed && !o->failed;
	if (o->call && !strncmp(o->call->api, "exec", 4) && o->path && !o->failed)
		rd->proc->exe = o->path;
	const char *w = io_str(io, "whence");
	if (w)
		o->whence = !strcmp(w, "SEEK_SET") ? 0 : !strcmp(w, "SEEK_CUR") ? 1 :
			    !strcmp(w, "SEEK_END") ? 2 : !strcmp(w, "SEEK_DATA") ? 3 : 4;
	o->seq = (uint32_t)io_num(io, "seq", &has, 0);
	if (has)
		rd->seq_seen = 1;
	rd->node->nall++;
	if (has)
		rd->node->nios++;
	mpi_level(rd, io, o);
	/* an asynchronous operation: its submission too (aio.c) */
	const char *as = io_str(io, "async");
	if (as && call_aio_wait(o->call) && !o->libc_only) {
		const char *cx = io_str(io, "ctx");
		char *key = xasprintf("%s %s", as, cx ? cx : "");
		aio_load(rd->thr, call_aio_submit(), intern(key), rd->alinks++);
		free(key);
		rd->node->nall++;
	}
}

static void on_node(void *ctx, struct trace_node *tn)
{
	struct rd *rd = ctx;
	struct trace *t = rd->t;

	/* a name twice is the library's error already */
	XGROW(t->nodes, t->cap, t->nnodes + 1);
	struct node *n = &t->nodes[t->nnodes++];
	memset(n, 0, sizeof(*n));
	n->line = (uint32_t)trace_line();
	n->name = intern(tn->name);
	n->host = intern(tn->host ? tn->host : "");
	n->epoch = tn->epoch;	/* aligned with the session's reference clock */
	n->start = tn->start;
	n->end = tn->end;
	n->mpi_rank = tn->mpi_rank;
	rd->node = n;
	rd->seq_seen = 0;
}

static void on_process(void *ctx, struct trace_proc *tp)
{
	struct rd *rd = ctx;
	struct node *n = rd->node;

	XGROW(n->procs, n->pcap, n->nprocs + 1);
	struct process *p = &n->procs[n->nprocs++];
	memset(p, 0, sizeof(*p));
	p->line = (uint32_t)trace_line();
	p->pid = tp->pid;
	p->ppid = tp->ppid;
	p->start = tp->start;
	p->end = tp->end;
	p->cwd = intern(*tp->cwd ? tp->cwd : "/");
	p->status = intern(*tp->status ? tp->status : "unknown");
	p->exe = p->image = intern_set(tp->first_exe);
	p->parent = -1;
	rd->proc = p;
}

static void on_thread(void *ctx, struct trace_thread *tt)
{
	struct rd *rd = ctx;
	struct node *n = rd->node;

	if (rd->thr)
		level_close(rd, INT64_MAX);
	rd->nlv = 0;
	rd->nirecv = 0;
	XGROW(n->threads, n->tcap, n->nthreads + 1);
	struct thread *th = &n->threads[n->nthreads];
	memset(th, 0, sizeof(*th));
	th->line = (uint32_t)trace_line();
	th->tid = tt->tid;
	th->creator = tt->creator < 0 ? 0 : tt->creator;	/* 0: none */
	th->start = tt->start;
	th->end = tt->end;
	th->cpu = tt->has_cpu ? tt->cpu : -1;
	th->spin = 1;
	th->proc = (int)(rd->proc - n->procs);
	rd->alinks = 0;
	XGROW(rd->proc->threads, rd->proc->cap, rd->proc->nthreads + 1);
	rd->proc->threads[rd->proc->nthreads++] = (int)n->nthreads;
	n->nthreads++;
	rd->thr = th;
}

static void on_compute(void *ctx, struct trace_thread *tt, int64_t start, int64_t dur)
{
	struct rd *rd = ctx;

	/* no compute comes within a call */
	level_close(rd, INT64_MAX);
	struct op *o = new_op(rd, OP_COMPUTE);
	o->dur = dur;
	rd->thr->computing += dur;
}

static void on_dep(void *ctx, struct trace_thread *tt, const struct trace_dep *d)
{
	struct rd *rd = ctx;

	level_dep(rd);
	struct op *o = new_op(rd, d->wait ? OP_WAIT : OP_SIGNAL);

	XGROW(pend, pendcap, npend + 1);
	pend[npend++] = (struct pending){
		intern(d->node), (size_t)(rd->node - rd->t->nodes),
		(size_t)(rd->thr - rd->node->threads), rd->thr->nops - 1, trace_line()
	};
	o->seq = d->seq > 0 ? (uint32_t)d->seq : 0;	/* a wait's: validated */
}

/* a file's size and allocation as the run left it (prefiles.c) */
static void on_file(void *ctx, struct trace_node *tn, const struct trace_file *f)
{
	struct node *n = ((struct rd *)ctx)->node;

	(void)tn;
	if (f->size_at_end < 0)
		return;
	XGROW(n->fsz, n->fszcap, n->nfsz + 1);
	n->fsz[n->nfsz++] = (struct filesz){ intern(f->path), f->size_at_end, f->allocated_at_end };
}

static void on_socket(void *ctx, struct trace_node *tn, const struct trace_socket *ts)
{
	struct rd *rd = ctx;
	struct node *n = rd->node;

	XGROW(n->socks, n->scap, n->nsocks + 1);
	struct sock_sum *s = &n->socks[n->nsocks++];
	s->local = intern(ts->local);	/* "" when absent: netio.c takes both alike */
	s->peer = intern(ts->peer);
	s->dir = !strcmp(ts->direction, "in") ? 'i' : !strcmp(ts->direction, "out") ? 'o' : 0;
	s->proto = (uint8_t)proto_of(ts->proto);
}

static int by_start(const void *a, const void *b)
{
	const struct op *x = *(struct op *const *)a, *y = *(struct op *const *)b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x < y ? -1 : x > y;	/* ops of one thread are in order */
}

/* A node without seq on its io gets them in its order of I/O (start). */
static void on_node_end(void *ctx, struct trace_node *tn)
{
	struct rd *rd = ctx;
	struct node *n = rd->node;

	if (rd->thr)
		level_close(rd, INT64_MAX);
	rd->thr = NULL;
	rd->nlv = 0;
	/* give back what doubling the arrays left unused */
	for (size_t i = 0; i < n->nthreads; i++)
		if (n->threads[i].nops) {
			n->threads[i].ops = xrealloc(n->threads[i].ops,
						     n->threads[i].nops * sizeof(struct op));
			n->threads[i].cap = n->threads[i].nops;
		}
	struct op **all = xmalloc(n->nall * sizeof(*all) + 1);
	size_t k = 0;
	for (size_t i = 0; i < n->nthreads; i++)
		for (size_t j = 0; j < n->threads[i].nops; j++)
			if (n->threads[i].ops[j].kind == OP_IO)
				all[k++] = &n->threads[i].ops[j];
	if (!rd->seq_seen) {
		/* no numbering in the trace: every io, in order of start */
		qsort(all, k, sizeof(*all), by_start);
		for (size_t i = 0; i < k; i++)
			all[i]->seq = all[i]->vid = (uint32_t)(i + 1);
		n->nios = n->nall;
	} else {
		/* the causality engine numbers what it counts as I/O (not a
		 * sleep, say): each seq once, from 1 to nios */
		uint8_t *seen = xcalloc(n->nios + 1, 1);
		uint32_t extra = n->nios;
		for (size_t i = 0; i < k; i++) {
			uint32_t s = all[i]->seq;
			if (!s) {
				all[i]->vid = ++extra;
				continue;
			}
			all[i]->vid = s;
			if (s < 1 || s > n->nios) {
				char msg[256];

				validate_seq_range(n->name, s, n->nios, msg, sizeof(msg));
				die_at(2, rd->file, all[i]->line, "%s", msg);
			}
			if (seen[s]++)
				die_at(2, rd->file, all[i]->line, "seq %u used twice in node \"%s\"", s, n->name);
		}
		free(seen);
	}
	free(all);
	rd->node = NULL;
}

/*
 * The share of its compute phases a thread spins (timing.c spins a phase
 * whole, as a thread running or waiting for a core). A thread waits for a
 * core only while others run: one whose phases outlast its own CPU time
 * plus that of every thread beside it on its host (any node there; as if
 * on one core, the loosest bound) was blocked for the rest in calls the
 * trace does not hold, and spins only the bound's share. redis-server's
 * bio threads sit 100 ms in pthread_cond_wait on 0.1 ms of CPU: spun
 * whole, three of them starved the other node on two cores. A cpu not
 * known, its own or a neighbour's, leaves the thread spinning whole.
 */
static void spin_shares(struct trace *t)
{
	for (size_t a = 0; a < t->nnodes; a++) {
		const struct node *na = &t->nodes[a];
		for (size_t i = 0; i < na->nthreads; i++) {
			struct thread *th = &na->threads[i];
			if (th->cpu < 0 || th->computing <= th->cpu)
				continue;
			int64_t s0 = na->epoch + th->start, s1 = na->epoch + th->end;
			int64_t bound = th->cpu;
			for (size_t b = 0; b < t->nnodes && bound >= 0 && bound < th->computing; b++) {
				const struct node *nb = &t->nodes[b];
				if (*na->host && *nb->host && strcmp(na->host, nb->host))
					continue;
				for (size_t j = 0; j < nb->nthreads && bound >= 0; j++) {
					const struct thread *o = &nb->threads[j];
					if (o == th || nb->epoch + o->end < s0 || nb->epoch + o->start > s1)
						continue;
					bound = o->cpu < 0 ? -1 : bound + o->cpu;
				}
			}
			if (bound >= 0 && bound < th->computing)
				th->spin = (double)bound / (double)th->computing;
		}
	}
}

/* A file that nodes of one host share keeps its original order of making,
 * use and removal: an open that does not create the file found it made
 * by another node (Open MPI's shared-memory segments: rank 0 creates
 * /dev/shm/vader_segment.*, the other ranks open it, told through their
 * daemon, outside the trace), and waits for the last creating open of it
 * by another node that ended before it began; a removal waits for the
 * last call of another node on that path that ended before it began.
 * Discovery sets such setting up aside (poll="runtime": which rank comes
 * first is timing), so no WAIT orders them, and a rank that came first
 * here failed its open with ENOENT. Added as WAITs, before the call. */
static int creates(const struct op *o)
{
	const char *f = o->flags;

	if (!strcmp(o->call->api, "creat"))
		return 1;
	if (!f)
		return 0;
	return strncmp(f, "O_", 2) ? f[0] == 'w' || f[0] == 'a' : strstr(f, "O_CREAT") != NULL;
}

struct fuse { int node; const char *path; int64_t end; uint32_t seq; int creates; };

static int by_path(const void *a, const void *b)
{
	const struct fuse *x = a, *y = b;

	return x->path != y->path ? (x->path < y->path ? -1 : 1) : 0;
}

static void replay_file_order(struct trace *t)
{
	struct fuse *u = NULL;
	size_t nu = 0, cap = 0;

	if (t->nnodes < 2)
		return;
	for (size_t k = 0; k < t->nnodes; k++)
		for (size_t a = 0; a < t->nodes[k].nthreads; a++) {
			const struct thread *th = &t->nodes[k].threads[a];
			for (size_t i = 0; i < th->nops; i++) {
				const struct op *o = &th->ops[i];
				if (o->kind != OP_IO || !o->path || !o->seq || o->failed || !o->call)
					continue;
				XGROW(u, cap, nu + 1);
				u[nu++] = (struct fuse){ (int)k, o->path, t->nodes[k].epoch + o->start + o->dur,
							 o->seq, call_opens(o->call) && creates(o) };
			}
		}
	if (u)
		qsort(u, nu, sizeof(*u), by_path);	/* paths are interned */
	for (size_t k = 0; k < t->nnodes; k++) {
		struct node *n = &t->nodes[k];
		for (size_t a = 0; a < n->nthreads; a++) {
			struct thread *th = &n->threads[a];
			for (size_t i = 0; i < th->nops; i++) {
				struct op *o = &th->ops[i];
				if (o->kind != OP_IO || !o->path || o->failed || !o->call)
					continue;
				/* a look that found it (access, stat: a node polls
				 * for another's file) was after its making too */
				int opens = (call_opens(o->call) && !creates(o)) || call_looks(o->call);
				int removes = call_removes(o->call);
				if (!opens && !removes)
					continue;
				int64_t s = n->epoch + o->start, best = INT64_MIN;
				const struct fuse *w = NULL, key = { .path = o->path };
				const struct fuse *f = u ? bsearch(&key, u, nu, sizeof(*u), by_path) : NULL;
				size_t lo = f ? (size_t)(f - u) : nu, hi = lo;
				while (lo > 0 && u[lo - 1].path == o->path)
					lo--;
				while (hi < nu && u[hi].path == o->path)
					hi++;
				for (size_t j = lo; j < hi; j++)
					if (u[j].node != (int)k && u[j].end < s &&
					    u[j].end > best && (removes || u[j].creates) &&
					    !(*n->host && *t->nodes[u[j].node].host &&
					      strcmp(n->host, t->nodes[u[j].node].host))) {
						best = u[j].end;
						w = &u[j];
					}
				if (!w)
					continue;
				XGROW(th->ops, th->cap, th->nops + 1);
				memmove(&th->ops[i + 1], &th->ops[i], (th->nops - i) * sizeof(*th->ops));
				th->nops++;
				struct op *wt = &th->ops[i];
				memset(wt, 0, sizeof(*wt));
				wt->kind = OP_WAIT;
				wt->line = wt[1].line;
				wt->fd = wt->oldfd = wt->fd2 = wt->infd = -1;
				wt->child = -1;
				wt->target = -1;
				wt->whence = -1;
				wt->node = w->node;
				wt->seq = w->seq;
				t->nodes[w->node].waited = 1;
				i++;
			}
		}
	}
	free(u);
}

/* Who ended a wait on a condition or barrier of the process: the replay
 * cannot reissue it (its threads do not share the application's memory),
 * and as a no-op the waiting thread runs ahead of the thread that woke
 * it. MPI's main thread sits 43 ms in
 * pthread_cond_wait while its progress thread gets the daemon's fence
 * answer; skipped, the rank ended 45 % early. Replayed as its original
 * length, every wait counts time its waker already spent elsewhere (+15
 * to +74 %). The waker is another thread of the process, and it was not
 * blocked when it woke the waiter: the call of another thread that ended
 * last before the wait did, and after it began, is taken as what the
 * waker did just before waking it, and the wait ends when the replay of
 * that call has ended, and as long after (the waker's work between the
 * two). Every such link points back in the original's time (ends before
 * the wait's end, strictly), so no two waits can wait for each other. A
 * wait that no other thread's call ended inside of stays a no-op; so do
 * locks and semaphores (rules.c). A read of a descriptor that names
 * nothing (an eventfd: the capture did not see it made, and the replay
 * reads /dev/null) was let go by the last write to it of another thread
 * of the process, before the read; so was a read of an event counter the
 * capture saw made (path "anon_inode:[eventfd]", res wait, its writes
 * res sys). */
static int anon_read(const struct op *o)
{
	return o->kind == OP_IO && !o->libc_only && o->fd >= 0 && !o->peer && !o->proto &&
	       o->has_amount && o->amount > 0 &&
	       ((o->res == RES_FILEREAD && !o->path) || (o->res == RES_WAIT && event_path(o->path)));
}

static int anon_write(const struct op *o, const struct op *read)
{
	return o->fd == read->fd && !o->failed &&
	       ((o->res == RES_FILEWRITE && !o->path) || (o->res == RES_SYS && event_path(o->path)));
}

/* The last call of a thread b of node n (of a's process, or, with
 * other, of the others) that ended inside (s, e): w's waker. cur[b]: b's
 * first op not yet passed (a's waits follow each other in time). */
static void find_waker(struct node *n, size_t a, struct op *w, int anon, int64_t s, int64_t e,
		       size_t *cur, int other)
{
	const struct thread *ta = &n->threads[a];
	int64_t best = INT64_MIN;

	for (size_t b = 0; b < n->nthreads; b++) {
		const struct thread *tb = &n->threads[b];
		if (b == a || (tb->proc != ta->proc) != other)
			continue;
		while (cur[b] < tb->nops && (tb->ops[cur[b]].kind != OP_IO ||
					      tb->ops[cur[b]].start <= e))
			cur[b]++;
		/* back from there: the last call that ended before e (ends
		 * grow along a thread) */
		for (size_t j = cur[b]; j-- > 0;) {
			const struct op *o = &tb->ops[j];
			if (o->kind != OP_IO)
				continue;
			int64_t end = o->start + o->dur;
			if (end >= e)
				continue;
			if (end < s || end <= best)
				break;
			if (anon && !anon_write(o, w))
				continue;
			best = end;
			w->waker = (int32_t)b + 1;
			w->wake_op = (uint32_t)j;
			w->wake_lag = e - end;
			break;
		}
	}
}

/* A wait that no thread of its process can have ended was ended by
 * another process, through a condition in memory they share (fio's job
 * process waits 100 ms for its parent's word to start): that process's
 * call, as above. As a no-op it ran fio's job 100 ms early, and its
 * replay on a device held to 200 IOPS 5-7 % short. */
static void replay_wakers(struct trace *t)
{
	for (size_t k = 0; k < t->nnodes; k++) {
		struct node *n = &t->nodes[k];
		size_t *cur = xcalloc(2 * (n->nthreads + 1), sizeof(size_t));
		size_t *cur2 = cur + n->nthreads + 1;
		for (size_t a = 0; a < n->nthreads; a++) {
			struct thread *ta = &n->threads[a];
			memset(cur, 0, 2 * (n->nthreads + 1) * sizeof(size_t));
			for (size_t i = 0; i < ta->nops; i++) {
				struct op *w = &ta->ops[i];
				int anon = anon_read(w);
				if (w->kind != OP_IO || w->failed ||
				    !(anon || (call_thread_wait(w->call) && w->dur > 0)))
					continue;
				/* a read: the write before it; a wait: the
				 * last call that ended inside it */
				int64_t s = anon ? INT64_MIN : w->start, e = anon ? w->start : w->start + w->dur;
				find_waker(n, a, w, anon, s, e, cur, 0);
				if (!w->waker && !anon)
					find_waker(n, a, w, anon, s, e, cur2, 1);
			}
		}
		free(cur);
	}
}

/*
 * A pipe read by several threads or processes (Python's multiprocessing
 * Pool: three workers read their tasks from one pipe, under a semaphore
 * in shared memory the replay cannot see): each read takes the bytes
 * after its predecessor's, so it waits for the read of another thread
 * that ended before it began (as a wait on its waker, replay_wakers). Read
 * in another order, a worker took part of another's message and every
 * reader then waited for bytes nobody sent (2 replays in 4 stalled).
 */
struct pread { int64_t start, end; int32_t pipe, th; uint32_t op; };

static int by_pipe_start(const void *a, const void *b)
{
	const struct pread *x = a, *y = b;

	if (x->pipe != y->pipe)
		return x->pipe < y->pipe ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void replay_pipe_readers(struct trace *t)
{
	for (size_t k = 0; k < t->nnodes; k++) {
		struct node *n = &t->nodes[k];
		struct pread *v = NULL;
		size_t nv = 0, cap = 0;

		for (size_t a = 0; a < n->nthreads; a++)
			for (size_t i = 0; i < n->threads[a].nops; i++) {
				const struct op *o = &n->threads[a].ops[i];
				if (o->kind != OP_IO || o->res != RES_NETRECV || !o->pipe ||
				    o->failed || !o->call || o->libc_only)
					continue;
				XGROW(v, cap, nv + 1);
				v[nv++] = (struct pread){ o->start, o->start + o->dur, o->pipe,
							  (int32_t)a, (uint32_t)i };
			}
		if (nv > 1)
			qsort(v, nv, sizeof(*v), by_pipe_start);
		for (size_t i = 1; i < nv; i++) {
			const struct pread *p = &v[i - 1];
			struct op *o = &n->threads[v[i].th].ops[v[i].op];
			if (p->pipe != v[i].pipe || p->th == v[i].th || o->waker ||
			    p->end > v[i].start)
				continue;	/* concurrent reads: either may go first */
			o->waker = p->th + 1;
			o->wake_op = p->op;
			o->wake_lag = 0;
		}
		free(v);
	}
}

/*
 * A call another node's I/O let go on (a receive blocked on a send) ended
 * some time after that I/O: the message's way and the receiver's wake-up
 * on a loaded host (four nodes spinning on two cores: up to a scheduler
 * slice, 3 ms). The replay's receiver wakes within 0.1 ms (its spinners
 * yield), so pseudosync's 60 WAITs replayed 1.5 to 5.5 % short. Kept on
 * the WAIT (wake_lag): how long after the I/O waited for the call ended,
 * when the call was under way before that I/O ended (blocked on it; one
 * that came later was not woken, and the replay must stay free to run
 * faster than the original did).
 */
static void replay_wait_lags(struct trace *t)
{
	int64_t **ends = xcalloc(t->nnodes + 1, sizeof(*ends));

	for (size_t k = 0; k < t->nnodes; k++) {
		struct node *n = &t->nodes[k];
		ends[k] = xcalloc((size_t)n->nios + 1, sizeof(**ends));
		for (size_t a = 0; a < n->nthreads; a++)
			for (size_t i = 0; i < n->threads[a].nops; i++) {
				const struct op *o = &n->threads[a].ops[i];
				if (o->kind == OP_IO && o->seq && o->seq <= n->nios)
					ends[k][o->seq] = n->epoch + o->start + o->dur;
			}
	}
	for (size_t k = 0; k < t->nnodes; k++) {
		struct node *n = &t->nodes[k];
		for (size_t a = 0; a < n->nthreads; a++) {
			struct thread *th = &n->threads[a];
			size_t first = 0;	/* the WAITs since the last call */
			for (size_t i = 0; i < th->nops; i++) {
				struct op *o = &th->ops[i];
				if (o->kind != OP_IO)
					continue;
				int64_t s = n->epoch + o->start, e = s + o->dur;
				for (size_t j = first; j < i; j++) {
					struct op *w = &th->ops[j];
					if (w->kind != OP_WAIT || w->node < 0 || (size_t)w->node >= t->nnodes ||
					    !w->seq || w->seq > t->nodes[w->node].nios)
						continue;
					int64_t we = ends[w->node][w->seq];
					w->wake_lag = we && s <= we && e >= we ? e - we : 0;
				}
				first = i + 1;
			}
		}
	}
	for (size_t k = 0; k < t->nnodes; k++)
		free(ends[k]);
	free(ends);
}

/* A busy wait: polls with a zero timeout that found nothing, the thread's
 * work between them, and the one that found data, which the thread's next
 * call then receives (Open MPI's MPI_Recv: 5,000 to 10,000 polls a rank
 * in a token ring). How many times it polled is timing; what it waited
 * for is that data. Marked on its first poll (run_ops replays it). */
static int zero_poll(const struct op *o)
{
	return o->kind == OP_IO && call_poll(o->call) && o->timeout == 0 && !o->failed;
}

/* A child polled for: waitpid(WNOHANG)s that found it running, the
 * thread's sleeps, work and looks (stat, access) between them, then the
 * wait that reaped it (fio's parent polls its job every 10 ms, and looks
 * for a trigger file: 773 polls on a slow disk).
 * How many times it polled is timing; what it waited for is the child's
 * end. Each poll is marked with the reaping wait (run_ops goes on to it
 * once the replayed child has ended). */
static int child_poll(const struct op *o)
{
	return o->kind == OP_IO && call_waits_child(o->call) && !o->failed && o->child < 0 &&
	       (!o->has_result || o->result == 0);
}

static void replay_childpolls(struct trace *t)
{
	for (size_t k = 0; k < t->nnodes; k++) {
		struct node *n = &t->nodes[k];
		for (size_t a = 0; a < n->nthreads; a++) {
			struct thread *th = &n->threads[a];
			for (size_t i = 0; i < th->nops; i++) {
				if (!child_poll(&th->ops[i]))
					continue;
				size_t j = i + 1;
				while (j < th->nops && (th->ops[j].kind == OP_COMPUTE ||
							child_poll(&th->ops[j]) ||
							(th->ops[j].kind == OP_IO &&
							 (th->ops[j].res == RES_SLEEP ||
							  call_looks(th->ops[j].call)))))
					j++;
				const struct op *r = j < th->nops ? &th->ops[j] : NULL;
				if (r && r->kind == OP_IO && call_waits_child(r->call) && !r->failed &&
				    r->child >= 0)
					for (size_t q = i; q < j; q++)
						if (child_poll(&th->ops[q]))
							th->ops[q].cpoll_end = (uint32_t)j + 1;
				i = j - 1;
			}
		}
	}
}

static void replay_busywaits(struct trace *t)
{
	for (size_t k = 0; k < t->nnodes; k++) {
		struct node *n = &t->nodes[k];
		for (size_t a = 0; a < n->nthreads; a++) {
			struct thread *th = &n->threads[a];
			for (size_t i = 0; i < th->nops; i++) {
				if (!zero_poll(&th->ops[i]) || th->ops[i].count != 0)
					continue;
				size_t j = i + 1;
				while (j < th->nops && (th->ops[j].kind == OP_COMPUTE ||
							(zero_poll(&th->ops[j]) && th->ops[j].count == 0)))
					j++;
				if (j >= th->nops || !zero_poll(&th->ops[j]) || th->ops[j].count <= 0) {
					i = j - 1;
					continue;
				}
				size_t r = j + 1;
				while (r < th->nops && th->ops[r].kind != OP_IO)
					r++;
				const struct op *rv = r < th->nops ? &th->ops[r] : NULL;
				if (rv && (rv->res == RES_NETRECV || rv->res == RES_FILEREAD) && rv->fd >= 0 &&
				    !rv->failed && rv->has_amount && rv->amount > 0) {
					th->ops[i].busy_end = (uint32_t)j + 1;
					th->ops[i].busy_recv = (uint32_t)r + 1;
				}
				i = j;
			}
		}
	}
}

void replay_free(struct trace *t)
{
	if (!t)
		return;
	for (size_t k = 0; k < t->nnodes; k++) {
		struct node *n = &t->nodes[k];

		for (size_t i = 0; i < n->nprocs; i++) {
			free(n->procs[i].threads);
			free(n->procs[i].redir);
		}
		for (size_t i = 0; i < n->nthreads; i++)
			free(n->threads[i].ops);
		free(n->procs);
		free(n->threads);
		free(n->socks);
		free(n->slot_tfd);
	}
	free(t->nodes);
	free(t);
}

/* the load under way: what its death leaves (replay_load_abandon) */
static struct trace_run load_run;
static struct trace *load_trace;

void replay_load_abandon(void)
{
	trace_read_abandon();
	trace_run_free(&load_run);
	replay_free(load_trace);
	load_trace = NULL;
	free(pend);
	pend = NULL;
	npend = pendcap = 0;
}

struct trace *replay_load(const char *file)
{
	static const struct trace_ops ops = {
		.node = on_node, .node_end = on_node_end, .process = on_process,
		.thread = on_thread, .compute = on_compute, .io = on_io,
		.dep = on_dep, .socket = on_socket, .file = on_file, .strict = true,
	};
	char *files[1] = { (char *)file };
	struct rd rd = { .file = file };

	replay_load_abandon();
	load_trace = rd.t = xcalloc(1, sizeof(*rd.t));
	rd.t->file = file;
	npend = 0;
	trace_read(&load_run, files, 1, &ops, &rd);
	rd.t->complete = !load_run.incomplete;
	trace_run_free(&load_run);
	free(rd.irecv);
	free(rd.comms);
	if (!rd.t->nnodes)
		die_at(2, file, 0, "no <node> in the trace");

	for (size_t i = 0; i < npend; i++) {
		struct pending *p = &pend[i];
		struct op *o = &rd.t->nodes[p->node].threads[p->thr].ops[p->op];
		o->node = node_index(rd.t, p->name);
		if (o->node < 0)
			die_at(2, file, p->line, "<%s> names unknown node \"%s\"",
			       o->kind == OP_WAIT ? "wait" : "signal", p->name);
		if (o->kind == OP_WAIT)
			rd.t->nodes[o->node].waited = 1;
		if (o->kind == OP_WAIT && (o->seq < 1 || o->seq > rd.t->nodes[o->node].nios)) {
			char msg[256];

			validate_wait_range(p->name, o->seq, rd.t->nodes[o->node].nios, msg,
					    sizeof(msg));
			die_at(2, file, p->line, "%s", msg);
		}
	}
	free(pend);
	pend = NULL;
	npend = pendcap = 0;
	spin_shares(rd.t);
	replay_file_order(rd.t);
	replay_wakers(rd.t);
	replay_wait_lags(rd.t);
	replay_pipe_readers(rd.t);
	replay_busywaits(rd.t);
	replay_childpolls(rd.t);
	load_trace = NULL;	/* the caller's */
	return rd.t;
}
