/* --mpi: the MPI calls of the trace issued again between the replaying
 * ranks (node k on rank k), each peer named by its original world rank.
 * Built with mpicc where it is found (HAVE_MPI); elsewhere an MPI call
 * lasts its original time. */
#include "exec.h"
#include "util.h"

#ifndef HAVE_MPI
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

/* The replaying ranks' communicator and the original ranks' map, made
 * by every rank (a collective) once MPI is up. */
void mpi_calls_init(const struct trace *t, int me, int nnodes)
{
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
}

void mpi_calls_end(void)
{
	if (app != MPI_COMM_NULL)
		MPI_Comm_free(&app);
}
#endif
