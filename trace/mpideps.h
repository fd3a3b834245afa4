/* deps --from mpi (mpideps.c): the MPI level's message edges. */
#ifndef ISLAND_MPIDEPS_H
#define ISLAND_MPIDEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mpi_node {
	const char *name;
	int rank;                    /* its world rank (mpi_rank) */
	int64_t start, end, off;     /* its run: run time = node time + off */
};

/* a node's MPI call, numbered from 1 in its trace's order */
struct mpi_call {
	int node;
	uint64_t seq;
	const char *api;
	int peer;                    /* rank="..." or -1 */
	int64_t start, end;          /* node time */
	long tid;                    /* its thread */
	int64_t amount;              /* amount="...", or -1 */
};

/* node x's call xseq waited for node t's call tseq: a message (t's
 * send, x's receive or its completion) or a collective's */
struct mpi_edge {
	int x, t;
	uint64_t xseq, tseq;
	bool message;
};

struct mpi_deps {
	struct mpi_node *nodes;
	size_t nnodes, capnodes;
	struct mpi_call *calls;
	size_t ncalls, capcalls;
	struct mpi_edge *e;
	size_t ne, cape;
	size_t unmatched_sends, unmatched_recvs, pending;
};

void mpi_deps_read(struct mpi_deps *o, char **argv, int argc);
void mpi_deps_free(struct mpi_deps *o);

#endif
