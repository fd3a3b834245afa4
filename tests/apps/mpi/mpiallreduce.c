/* mpiallreduce ROUNDS DIR: every round each rank computes a little,
 * adds its value into an MPI_Allreduce and writes the sum to
 * DIR/sum.RANK.ROUND: every rank's round k ends after every rank's
 * contribution to round k. */
#include <stdlib.h>

#include "rankfile.h"

int main(int argc, char **argv)
{
	int rank, size, rounds;

	MPI_Init(&argc, &argv);
	if (argc != 3) {
		fprintf(stderr, "usage: mpiallreduce ROUNDS DIR\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	rounds = atoi(argv[1]);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int k = 1; k <= rounds; k++) {
		volatile double x = 0;
		for (int i = 0; i < 200000 * (rank + 1); i++)  /* uneven compute */
			x += i * 0.5;
		long mine = (long)rank * 100 + k, sum = 0;
		MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
		long want = 100L * size * (size - 1) / 2 + (long)size * k;
		if (sum != want) {
			fprintf(stderr, "mpiallreduce: round %d: sum %ld, want %ld\n", k, sum, want);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		char text[64];
		snprintf(text, sizeof(text), "%ld\n", sum);
		rank_file(argv[2], "sum", rank, k, text);
	}
	MPI_Finalize();
	return 0;
}
