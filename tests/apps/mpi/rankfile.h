/* What the MPI test programs leave of each round: DIR/NAME.RANK.ROUND
 * holding TEXT, a file whose order against the other ranks' the
 * causality engine must find. A failure ends the job. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>

static void rank_file(const char *dir, const char *name, int rank, int round, const char *text)
{
	char path[4096];
	int fd, n = (int)strlen(text);

	snprintf(path, sizeof(path), "%s/%s.%d.%d", dir, name, rank, round);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, (size_t)n) != n || close(fd) < 0) {
		perror(path);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}
