/* mpimsgs ROUNDS NODE DIR: point-to-point and collective messages whose
 * every edge the program knows, for deps --from mpi. Each round: a ring
 * with MPI_Send/MPI_Recv (even ranks send first), a ring with
 * MPI_Irecv/MPI_Isend/MPI_Waitall, MPI_Allreduce, MPI_Bcast from rank 0,
 * MPI_Barrier. Each rank writes its own truth, DIR/truth.RANK: lines
 * "X J T K", node X's MPI call J waited for node T's call K, a node's MPI
 * calls numbered from 1 as the capture's MPI level records them (MPI_Init
 * first; MPI_Comm_rank and MPI_Comm_size are not recorded), nodes named
 * NODE.rankR (island-capture's names under mpirun). A message carries its
 * sender's number; every rank makes as many calls in each step, so a
 * collective has one number on all of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

static int calls;	/* the MPI calls made so far, as recorded */
static FILE *truth;
static const char *node;

static void edge(int x, int j, int t, int k)
{
	if (fprintf(truth, "%s.rank%d %d %s.rank%d %d\n", node, x, j, node, t, k) < 0) {
		perror("truth");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

int main(int argc, char **argv)
{
	int rank, size;

	MPI_Init(&argc, &argv);
	calls++;
	if (argc != 4) {
		fprintf(stderr, "usage: mpimsgs ROUNDS NODE DIR\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int rounds = atoi(argv[1]);
	node = argv[2];
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	char path[4096];
	snprintf(path, sizeof(path), "%s/truth.%d", argv[3], rank);
	if (!(truth = fopen(path, "w"))) {
		perror(path);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	for (int k = 1; k <= rounds; k++) {
		/* the blocking ring: the message is its Send's number */
		int out, in = 0;
		if (rank % 2 == 0) {
			out = ++calls;
			MPI_Send(&out, 1, MPI_INT, next, k, MPI_COMM_WORLD);
			MPI_Recv(&in, 1, MPI_INT, prev, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			edge(rank, ++calls, prev, in);
		} else {
			MPI_Recv(&in, 1, MPI_INT, prev, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			edge(rank, ++calls, prev, in);
			out = ++calls;
			MPI_Send(&out, 1, MPI_INT, next, k, MPI_COMM_WORLD);
		}
		/* the non-blocking ring: the Waitall completes the receive */
		MPI_Request rq[2];
		int nin = 0, nout;
		MPI_Irecv(&nin, 1, MPI_INT, prev, 100 + k, MPI_COMM_WORLD, &rq[0]);
		calls++;
		nout = ++calls;
		MPI_Isend(&nout, 1, MPI_INT, next, 100 + k, MPI_COMM_WORLD, &rq[1]);
		MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
		edge(rank, ++calls, prev, nin);
		/* collectives: one number on every rank */
		int v = rank + k, sum = 0;
		MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		calls++;
		for (int t = 0; t < size; t++)
			if (t != rank)
				edge(rank, calls, t, calls);
		if (sum != size * (size - 1) / 2 + size * k) {
			fprintf(stderr, "mpimsgs: rank %d: allreduce %d\n", rank, sum);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		int b = rank == 0 ? 7 * k : 0;
		MPI_Bcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD);
		calls++;
		if (rank != 0)
			edge(rank, calls, 0, calls);
		if (b != 7 * k) {
			fprintf(stderr, "mpimsgs: rank %d: bcast %d\n", rank, b);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		MPI_Barrier(MPI_COMM_WORLD);
		calls++;
		for (int t = 0; t < size; t++)
			if (t != rank)
				edge(rank, calls, t, calls);
	}
	if (fclose(truth) != 0) {
		perror(path);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Finalize();
	return 0;
}
