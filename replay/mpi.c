/* --mpi: one node per rank (rank k replays the trace's k-th node). A
 * completed I/O that another node WAITs for goes to that node's rank as a
 * message; a receiver thread marks it done locally, where sync_wait sees
 * it. Built with mpicc where it is found (HAVE_MPI); elsewhere --mpi says
 * so and stops. */
#include "exec.h"
#include "util.h"

#ifndef HAVE_MPI
int mpi_available(void)
{
	return 0;
}

int mpi_main(struct trace *t)
{
	die(2, "--mpi: this island-replay was built without MPI (mpicc was not found at build time)");
}

int h_mpi(struct rctx *c, const struct op *o)
{
	return h_spent(c, o);
}
#else

#include <errno.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

enum { TAG_DONE = 1, TAG_END = 2 };

void net_init(struct trace *t, const int *sel);

static int me, nranks, nnodes;
static uint8_t **wanted;	/* wanted[rank]: bit per seq of my node */
static struct sync *msync;

int mpi_available(void)
{
	return 1;
}

/* --- the MPI calls of the trace, issued again ------------------------- */

/* The replaying ranks' communicator (the app's messages apart from the
 * completions above), errors returned, not fatal: a trace's sizes that
 * disagree between ranks fail the call, not the replay */
static MPI_Comm app = MPI_COMM_NULL;
static int *rmap;		/* the original's world rank -> replaying rank */
static int nrmap;

static int peer(int r)
{
	return r >= 0 && r < nrmap ? rmap[r] : r < 0 ? r : MPI_PROC_NULL;
}

/* requests in flight, by the process that made them and their number */
static pthread_mutex_t req_mu = PTHREAD_MUTEX_INITIALIZER;
static struct inflight {
	int proc;
	uint32_t id;
	MPI_Request rq;
	char *buf;
} *flying;
static size_t nflying, capflying;

static void req_put(int proc, uint32_t id, MPI_Request rq, char *buf)
{
	pthread_mutex_lock(&req_mu);
	XGROW(flying, capflying, nflying + 1);
	flying[nflying++] = (struct inflight){ proc, id, rq, buf };
	pthread_mutex_unlock(&req_mu);
}

static int req_take(int proc, uint32_t id, struct inflight *out)
{
	int found = 0;

	pthread_mutex_lock(&req_mu);
	for (size_t i = 0; i < nflying && !found; i++)
		if (flying[i].proc == proc && flying[i].id == id) {
			*out = flying[i];
			flying[i] = flying[--nflying];
			found = 1;
		}
	pthread_mutex_unlock(&req_mu);
	return found;
}

static char *zeros(int64_t n)
{
	return xcalloc((size_t)(n > 0 ? n : 1), 1);
}

static int count_of(int64_t n)
{
	return n < 0 ? 0 : n > INT32_MAX ? INT32_MAX : (int)n;
}

int h_mpi(struct rctx *c, const struct op *o)
{
	const struct mpiop *m = o->mpi;
	int n = 0, rc = MPI_SUCCESS, cnt = count_of(m->bytes);
	char *s = NULL, *r = NULL;

	if (app == MPI_COMM_NULL)
		return h_spent(c, o);
	MPI_Comm_size(app, &n);
	switch (m->kind) {
	case MK_SEND:
		s = zeros(m->bytes);
		rc = MPI_Send(s, cnt, MPI_BYTE, peer(m->rank), m->tag, app);
		break;
	case MK_ISEND: {
		MPI_Request rq;
		s = zeros(m->bytes);
		rc = MPI_Isend(s, cnt, MPI_BYTE, peer(m->rank), m->tag, app, &rq);
		if (rc == MPI_SUCCESS && m->req) {
			req_put(c->proc, m->req, rq, s);
			s = NULL;
		} else if (rc == MPI_SUCCESS) {
			rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
		}
		break;
	}
	case MK_RECV:
		r = zeros(m->bytes);
		rc = MPI_Recv(r, cnt, MPI_BYTE, m->rank < 0 ? MPI_ANY_SOURCE : peer(m->rank),
			      m->tag < 0 ? MPI_ANY_TAG : m->tag, app, MPI_STATUS_IGNORE);
		break;
	case MK_IRECV: {
		MPI_Request rq;
		r = zeros(m->bytes);
		rc = MPI_Irecv(r, cnt, MPI_BYTE, m->rank < 0 ? MPI_ANY_SOURCE : peer(m->rank),
			       m->tag < 0 ? MPI_ANY_TAG : m->tag, app, &rq);
		if (rc == MPI_SUCCESS && m->req) {
			req_put(c->proc, m->req, rq, r);
			r = NULL;
		} else if (rc == MPI_SUCCESS) {
			rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
		}
		break;
	}
	case MK_SENDRECV:
		s = zeros(m->bytes);
		r = zeros(m->rbytes);
		rc = MPI_Sendrecv(s, cnt, MPI_BYTE, peer(m->rank), m->tag, r, count_of(m->rbytes),
				  MPI_BYTE, m->rsrc < 0 ? MPI_ANY_SOURCE : peer(m->rsrc),
				  m->rtag < 0 ? MPI_ANY_TAG : m->rtag, app, MPI_STATUS_IGNORE);
		break;
	case MK_DONE:
		for (size_t i = 0; i < m->ndone; i++) {
			struct inflight f;
			if (!req_take(c->proc, m->done[i], &f))
				continue;	/* made by a call not issued again */
			int e = MPI_Wait(&f.rq, MPI_STATUS_IGNORE);
			if (e != MPI_SUCCESS)
				rc = e;
			free(f.buf);
		}
		break;
	case MK_BARRIER:
		rc = MPI_Barrier(app);
		break;
	case MK_BCAST:
		s = zeros(m->bytes);
		rc = MPI_Bcast(s, cnt, MPI_BYTE, peer(m->rank), app);
		break;
	case MK_REDUCE:
		s = zeros(m->bytes);
		r = zeros(m->bytes);
		rc = MPI_Reduce(s, r, cnt, MPI_BYTE, MPI_BOR, peer(m->rank), app);
		break;
	case MK_ALLREDUCE:
		s = zeros(m->bytes);
		r = zeros(m->bytes);
		rc = MPI_Allreduce(s, r, cnt, MPI_BYTE, MPI_BOR, app);
		break;
	case MK_GATHER:
		s = zeros(m->bytes);
		r = zeros(m->bytes * n);
		rc = MPI_Gather(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, peer(m->rank), app);
		break;
	case MK_SCATTER:
		s = zeros(m->bytes * n);
		r = zeros(m->bytes);
		rc = MPI_Scatter(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, peer(m->rank), app);
		break;
	case MK_ALLGATHER:
		s = zeros(m->bytes);
		r = zeros(m->bytes * n);
		rc = MPI_Allgather(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, app);
		break;
	case MK_ALLTOALL: {
		int per = n > 0 ? count_of(m->bytes / n) : 0;
		s = zeros(m->bytes);
		r = zeros(m->bytes);
		rc = MPI_Alltoall(s, per, MPI_BYTE, r, per, MPI_BYTE, app);
		break;
	}
	}
	free(s);
	free(r);
	if (rc != MPI_SUCCESS) {
		errno = EIO;
		return -1;
	}
	return 0;
}

static void forward(int node, uint32_t seq)
{
	if (node != me)
		return;	/* a completion we received, not ours to send */
	for (int r = 0; r < nnodes; r++)
		if (r != me && wanted[r] && (wanted[r][seq / 8] >> (seq % 8)) & 1)
			MPI_Send(&seq, 1, MPI_UINT32_T, r, TAG_DONE, MPI_COMM_WORLD);
}

/* Polls rather than blocks: Open MPI's blocking receive spins a core the
 * replayed compute needs. Every 200 us, or every 20 us while a thread of
 * this node waits for another node: each wake-up of a waiting thread is a
 * poll late, so a slow poll would add half its period to every WAIT. */
static void *receiver(void *arg)
{
	int ends = 0, others = 0;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	for (int r = 0; r < nnodes; r++)
		others += r != me;
	while (ends < others) {
		uint32_t seq;
		MPI_Request rq;
		MPI_Status st;
		int done = 0;
		MPI_Irecv(&seq, 1, MPI_UINT32_T, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq);
		while (!done) {
			MPI_Test(&rq, &done, &st);
			if (!done) {
				struct timespec ts = { 0, sync_waiters(msync) ? 20000 : 200000 };
				nanosleep(&ts, NULL);
			}
		}
		if (st.MPI_TAG == TAG_END)
			ends++;
		else if (st.MPI_SOURCE < nnodes)
			sync_done(msync, st.MPI_SOURCE, seq, 0);	/* its time is its host's */
	}
	return NULL;
}

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int mpi_main(struct trace *t)
{
	int prov;

	MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &prov);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	nnodes = (int)t->nnodes;
	/* the trace's MPI calls between the replaying ranks, node k on rank
	 * k, a peer named by its original world rank (the node's mpi_rank) */
	MPI_Comm_split(MPI_COMM_WORLD, me < nnodes ? 0 : MPI_UNDEFINED, me, &app);
	if (app != MPI_COMM_NULL)
		MPI_Comm_set_errhandler(app, MPI_ERRORS_RETURN);
	for (int k = 0; k < nnodes; k++)
		if (t->nodes[k].mpi_rank + 1 > nrmap)
			nrmap = t->nodes[k].mpi_rank + 1;
	if (nrmap < nnodes)
		nrmap = nnodes;
	rmap = xcalloc((size_t)nrmap, sizeof(int));
	for (int r = 0; r < nrmap; r++)
		rmap[r] = r < nnodes ? r : MPI_PROC_NULL;
	for (int k = 0; k < nnodes; k++)
		if (t->nodes[k].mpi_rank >= 0)
			rmap[t->nodes[k].mpi_rank] = k;
	if (prov < MPI_THREAD_MULTIPLE || nranks < nnodes) {
		if (!me)
			warnx(prov < MPI_THREAD_MULTIPLE ? "--mpi: the MPI library does not support threads" :
			      "--mpi: %s has %d nodes: run it with at least %d ranks (mpirun -n %d)",
			      t->file, nnodes, nnodes, nnodes);
		MPI_Finalize();
		return 2;
	}
	/* one root name for all ranks: rank 0's fresh one unless --root */
	char name[4096] = "";
	int rootfd = -1;
	if (!me) {
		rootfd = root_open(NULL, 1);
		snprintf(name, sizeof(name), "%s", opt.root);
	}
	MPI_Bcast(name, sizeof(name), MPI_CHAR, 0, MPI_COMM_WORLD);
	if (me)
		rootfd = root_open(name, 0);
	int *all = xcalloc((size_t)nnodes, sizeof(int)), *mine = xcalloc((size_t)nnodes, sizeof(int));
	for (int k = 0; k < nnodes; k++)
		all[k] = 1;
	if (me < nnodes)
		mine[me] = 1;

	/* which of my I/O each other node waits for */
	wanted = xcalloc((size_t)nnodes, sizeof(*wanted));
	for (int k = 0; me < nnodes && k < nnodes; k++) {
		const struct node *n = &t->nodes[k];
		for (size_t i = 0; i < n->nthreads; i++)
			for (size_t j = 0; j < n->threads[i].nops; j++) {
				const struct op *o = &n->threads[i].ops[j];
				if (o->kind != OP_WAIT || o->node != me || k == me)
					continue;
				if (!wanted[k])
					wanted[k] = xcalloc(t->nodes[me].nios / 8 + 1, 1);
				wanted[k][o->seq / 8] |= (uint8_t)(1 << (o->seq % 8));
			}
	}

	msync = sync_create(t);
	struct net *net = net_create(t, mine);
	struct { char host[64]; int port; } addr = { "", 0 }, *addrs = xcalloc((size_t)nranks, sizeof(addr));
	gethostname(addr.host, sizeof(addr.host) - 1);
	if (me < nnodes)
		addr.port = net_port(net, me);	/* net_create made my listener */
	MPI_Allgather(&addr, sizeof(addr), MPI_BYTE, addrs, sizeof(addr), MPI_BYTE, MPI_COMM_WORLD);
	for (int k = 0; k < nnodes; k++)
		net_set_addr(net, k, addrs[k].host, addrs[k].port);

	int status = 0;
	double w0 = 0, w1 = 0;
	if (me < nnodes) {
		struct fileneed *need;
		size_t nneed = files_needed(t, mine, opt.mode != MODE_CAUSAL, &need);
		if (files_prepare(rootfd, need, nneed) < 0 || files_settle(rootfd) < 0)
			die(1, "rank %d: cannot prepare the files the trace reads:", me);
		free(need);
		net_init(t, all);
	}
	sync_remote_done = forward;
	pthread_t rt;
	if (me < nnodes)
		pthread_create(&rt, NULL, receiver, NULL);
	/* one start for all, on the wall clock: a barrier's exits are skewed
	 * by scheduling; hosts are expected to keep their clocks in sync */
	double start = wall() + 0.05;
	MPI_Bcast(&start, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	rclock_end();

	if (me < nnodes) {
		int64_t e0 = min_epoch(t, all);
		struct node_run r = {
			.t = t, .node = me, .rootfd = rootfd, .sync = msync, .net = net,
			.t0_ns = rnow_ns() + (int64_t)((start - wall()) * 1e9), .sel = all,
			.offset_ns = opt.mode == MODE_AFAP ? 0 : t->nodes[me].epoch - e0,
		};
		w0 = start;
		status = run_node(&r);
		/* the node's end as run_node took it (its last thread's), on
		 * the wall clock the ranks share */
		w1 = start + (double)(sync_stats(msync, me)->t1_ns - r.t0_ns) / 1e9;
		for (int k = 0; k < nnodes; k++)
			if (k != me)
				MPI_Send(&k, 1, MPI_UINT32_T, k, TAG_END, MPI_COMM_WORLD);
		pthread_join(rt, NULL);
	}

	/* the report is rank 0's: gather every node's numbers */
	struct nodestat st = { 0 }, *sts = xcalloc((size_t)nranks, sizeof(st));
	double ws[2] = { w0, w1 }, *wss = xcalloc((size_t)nranks * 2, sizeof(double));
	if (me < nnodes)
		st = *sync_stats(msync, me);
	MPI_Gather(&st, sizeof(st), MPI_BYTE, sts, sizeof(st), MPI_BYTE, 0, MPI_COMM_WORLD);
	MPI_Gather(ws, 2, MPI_DOUBLE, wss, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	int worst = 0;
	MPI_Reduce(&status, &worst, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
	if (!me) {
		double a = 1e300, b = 0;
		for (int k = 0; k < nnodes; k++) {
			*sync_stats(msync, k) = sts[k];
			if (wss[2 * k] < a)
				a = wss[2 * k];
			if (wss[2 * k + 1] > b)
				b = wss[2 * k + 1];
		}
		int64_t orig = original_span(t, all), repl = (int64_t)((b - a) * 1e9);
		if (!opt.quiet)
			report_print(t, all, msync, orig, repl);
		if (opt.report && report_save(opt.report, t, all, msync, orig, repl))
			warnx("%s:", opt.report);
	}
	if (app != MPI_COMM_NULL)
		MPI_Comm_free(&app);
	MPI_Finalize();
	return !me ? worst : status;
}
#endif
