/* mpipingpong N SIZE: rank 0 and rank 1 bounce a SIZE-byte message N
 * times (MPI_Send, MPI_Recv); rank 0 prints the loop's seconds, on its
 * own line: "pingpong SECONDS" (bench/mpi.sh: the MPI level's cost). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank;

	MPI_Init(&argc, &argv);
	if (argc != 3) {
		fprintf(stderr, "usage: mpipingpong N SIZE\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	long n = atol(argv[1]);
	int size = atoi(argv[2]);
	char *buf = calloc(1, size > 0 ? (size_t)size : 1);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	for (long i = 0; i < n && rank < 2; i++) {
		if (rank == 0) {
			MPI_Send(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
			MPI_Recv(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
		}
	}
	double t1 = MPI_Wtime();
	if (rank == 0)
		printf("pingpong %.6f\n", t1 - t0);
	free(buf);
	MPI_Finalize();
	return 0;
}
