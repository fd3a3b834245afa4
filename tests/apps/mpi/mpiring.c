/* mpiring ROUNDS DIR: a token ring (issue 17, real MPI). In every round
 * each rank sends its token to rank+1 and receives rank-1's; between
 * rounds it writes a small file DIR/ring.RANK.ROUND. So rank r's receive
 * of round k waits for rank r-1's send of round k, whatever the transport
 * carries the messages. Rank 0 sends first and the others receive first,
 * so that the token goes round and every receive really waits. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <mpi.h>

static int write_file(const char *dir, int rank, int round, int token)
{
	char path[4096], buf[64];
	int fd, n = snprintf(buf, sizeof(buf), "%d\n", token);

	snprintf(path, sizeof(path), "%s/ring.%d.%d", dir, rank, round);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, buf, (size_t)n) != n || close(fd) < 0)
		return perror(path), -1;
	return 0;
}

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
		if (write_file(argv[2], rank, k, token) < 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (rank == 0 && token != rounds * 1000 + size - 1) {
		fprintf(stderr, "mpiring: token %d, want %d\n", token, rounds * 1000 + size - 1);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Finalize();
	return 0;
}
