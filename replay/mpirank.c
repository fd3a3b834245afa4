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
	(void)t;
	die(2, "--mpi: this island-replay was built without MPI (mpicc was not found at build time)");
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

static int me, nranks, nnodes;
static uint8_t **wanted;	/* wanted[rank]: bit per seq of my node */
static struct sync *msync;

int mpi_available(void)
{
	return 1;
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
	mpi_calls_init(t, me, nnodes);
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
	mpi_calls_end();
	MPI_Finalize();
	return !me ? worst : status;
}
#endif
