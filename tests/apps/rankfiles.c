/* rankfiles DIR RANK: a start-up order every rank can check without MPI:
 * rank 0 creates DIR/go; every other rank polls for it every millisecond,
 * then creates DIR/seen.RANK. So in any trace of the run, each rank's
 * creat of seen.RANK comes after rank 0's creat of go. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[4096];
	struct stat st;
	int rank, fd;

	if (argc != 3)
		return 2;
	rank = atoi(argv[2]);
	if (rank == 0) {
		usleep(200000);		/* the others are polling by now */
		snprintf(path, sizeof(path), "%s/go", argv[1]);
	} else {
		snprintf(path, sizeof(path), "%s/go", argv[1]);
		for (int i = 0; stat(path, &st) < 0; i++) {
			if (i > 20000)
				return 1;
			usleep(1000);
		}
		snprintf(path, sizeof(path), "%s/seen.%d", argv[1], rank);
	}
	if ((fd = creat(path, 0644)) < 0)
		return perror(path), 1;
	return close(fd) ? 1 : 0;
}
