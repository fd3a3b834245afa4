/* mpiallreduce ROUNDS DIR: every round each rank computes a little,
 * adds its value into an MPI_Allreduce and writes the sum to
 * DIR/sum.RANK.ROUND: every rank's round k ends after every rank's
 * contribution to round k. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <mpi.h>

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
		char path[4096], buf[64];
		int n = snprintf(buf, sizeof(buf), "%ld\n", sum), fd;
		snprintf(path, sizeof(path), "%s/sum.%d.%d", argv[2], rank, k);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, (size_t)n) != n || close(fd) < 0) {
			perror(path);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
	MPI_Finalize();
	return 0;
}
