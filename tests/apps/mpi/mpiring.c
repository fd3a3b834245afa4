/* mpiring ROUNDS DIR: a token ring (issue 17, real MPI). In every round
 * each rank sends its token to rank+1 and receives rank-1's; between
 * rounds it writes a small file DIR/ring.RANK.ROUND. So rank r's receive
 * of round k waits for rank r-1's send of round k, whatever the transport
 * carries the messages. Rank 0 sends first and the others receive first,
 * so that the token goes round and every receive really waits. */
#include <stdlib.h>

#include "rankfile.h"

int main(int argc, char **argv)
{
	int rank, size, rounds, token = 0;

	MPI_Init(&argc, &argv);
	if (argc != 3) {
		fprintf(stderr, "usage: mpiring ROUNDS DIR\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	rounds = atoi(argv[1]);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	for (int k = 1; k <= rounds; k++) {
		if (rank == 0) {
			token = k * 1000;
			MPI_Send(&token, 1, MPI_INT, next, k, MPI_COMM_WORLD);
			MPI_Recv(&token, 1, MPI_INT, prev, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&token, 1, MPI_INT, prev, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			token++;
			MPI_Send(&token, 1, MPI_INT, next, k, MPI_COMM_WORLD);
		}
		char text[64];
		snprintf(text, sizeof(text), "%d\n", token);
		rank_file(argv[2], "ring", rank, k, text);
	}
	if (rank == 0 && token != rounds * 1000 + size - 1) {
		fprintf(stderr, "mpiring: token %d, want %d\n", token, rounds * 1000 + size - 1);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Finalize();
	return 0;
}
