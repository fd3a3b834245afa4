/* mpihalo ROUNDS DIR: a 1-D halo exchange without wrap-around. Every
 * round each rank computes on its strip, swaps its edge cells with its
 * left and right neighbours (MPI_Sendrecv; rank 0 has no left one, the
 * last rank no right one) and writes its strip's sum to DIR/halo.RANK.ROUND:
 * a rank's round k needs its neighbours' round k edges, never the far
 * ranks'. */
#include <stdlib.h>

#include "rankfile.h"

#define CELLS 1024

int main(int argc, char **argv)
{
	int rank, size, rounds;
	double strip[CELLS + 2];     /* [0] and [CELLS + 1]: the halo */

	MPI_Init(&argc, &argv);
	if (argc != 3) {
		fprintf(stderr, "usage: mpihalo ROUNDS DIR\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	rounds = atoi(argv[1]);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
	int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
	for (int i = 0; i < CELLS + 2; i++)
		strip[i] = rank;
	for (int k = 1; k <= rounds; k++) {
		for (int rep = 0; rep < 100 * (rank + 1); rep++)  /* uneven compute */
			for (int i = 1; i <= CELLS; i++)
				strip[i] = 0.25 * (strip[i - 1] + 2 * strip[i] + strip[i + 1]);
		MPI_Sendrecv(&strip[1], 1, MPI_DOUBLE, left, k, &strip[CELLS + 1], 1,
			     MPI_DOUBLE, right, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Sendrecv(&strip[CELLS], 1, MPI_DOUBLE, right, k, &strip[0], 1,
			     MPI_DOUBLE, left, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		double sum = 0;
		for (int i = 1; i <= CELLS; i++)
			sum += strip[i];
		char text[64];
		snprintf(text, sizeof(text), "%.6f\n", sum);
		rank_file(argv[2], "halo", rank, k, text);
	}
	MPI_Finalize();
	return 0;
}
