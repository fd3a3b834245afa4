/* mpiio FILE: every MPI-IO call the MPI level records, each rank's data
 * checked. Rank r's 16-byte blocks: independent and collective at
 * explicit offsets, collective at the file pointer of a view, non-blocking
 * with a Wait, at the shared pointer (ordered and not); then read back
 * the same ways. Exits non-zero (MPI_Abort) when a byte differs. */
#include <stdio.h>
#include <string.h>
#include <mpi.h>

#define B 16

static void check(int rc, const char *what)
{
	if (rc != MPI_SUCCESS) {
		fprintf(stderr, "mpiio: %s failed (%d)\n", what, rc);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

static void same(const char *got, const char *want, const char *what)
{
	if (memcmp(got, want, B)) {
		fprintf(stderr, "mpiio: %s: read back differs\n", what);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_File fh;
	MPI_Request rq;
	char blk[B], got[B];

	MPI_Init(&argc, &argv);
	if (argc != 2) {
		fprintf(stderr, "usage: mpiio FILE\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	memset(blk, 'a' + rank, B);
	check(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR,
			    MPI_INFO_NULL, &fh), "open");
	MPI_Offset me = (MPI_Offset)rank * B, all = (MPI_Offset)size * B;
	/* region 0: independent at; 1: collective at; 2: iwrite_at */
	check(MPI_File_write_at(fh, me, blk, B, MPI_CHAR, MPI_STATUS_IGNORE), "write_at");
	check(MPI_File_write_at_all(fh, all + me, blk, B, MPI_CHAR, MPI_STATUS_IGNORE),
	      "write_at_all");
	check(MPI_File_iwrite_at(fh, 2 * all + me, blk, B, MPI_CHAR, &rq), "iwrite_at");
	check(MPI_Wait(&rq, MPI_STATUS_IGNORE), "wait");
	/* region 3: collective through a view of this rank's block */
	MPI_Datatype ft;
	MPI_Type_vector(1, B, B * size, MPI_CHAR, &ft);
	MPI_Type_commit(&ft);
	check(MPI_File_set_view(fh, 3 * all + me, MPI_CHAR, ft, "native", MPI_INFO_NULL), "set_view");
	check(MPI_File_write_all(fh, blk, B, MPI_CHAR, MPI_STATUS_IGNORE), "write_all");
	check(MPI_File_set_view(fh, 0, MPI_CHAR, MPI_CHAR, "native", MPI_INFO_NULL), "set_view");
	/* region 4: the shared pointer in rank order */
	check(MPI_File_seek_shared(fh, 4 * all, MPI_SEEK_SET), "seek_shared");
	check(MPI_File_write_ordered(fh, blk, B, MPI_CHAR, MPI_STATUS_IGNORE), "write_ordered");
	check(MPI_File_sync(fh), "sync");
	MPI_Barrier(MPI_COMM_WORLD);
	/* read back */
	check(MPI_File_read_at(fh, me, got, B, MPI_CHAR, MPI_STATUS_IGNORE), "read_at");
	same(got, blk, "read_at");
	check(MPI_File_read_at_all(fh, all + me, got, B, MPI_CHAR, MPI_STATUS_IGNORE), "read_at_all");
	same(got, blk, "read_at_all");
	check(MPI_File_iread_at(fh, 2 * all + me, got, B, MPI_CHAR, &rq), "iread_at");
	check(MPI_Wait(&rq, MPI_STATUS_IGNORE), "wait");
	same(got, blk, "iread_at");
	check(MPI_File_set_view(fh, 3 * all + me, MPI_CHAR, ft, "native", MPI_INFO_NULL), "set_view");
	check(MPI_File_read_all(fh, got, B, MPI_CHAR, MPI_STATUS_IGNORE), "read_all");
	same(got, blk, "read_all");
	check(MPI_File_set_view(fh, 0, MPI_CHAR, MPI_CHAR, "native", MPI_INFO_NULL), "set_view");
	check(MPI_File_seek_shared(fh, 4 * all, MPI_SEEK_SET), "seek_shared");
	check(MPI_File_read_ordered(fh, got, B, MPI_CHAR, MPI_STATUS_IGNORE), "read_ordered");
	same(got, blk, "read_ordered");
	MPI_Type_free(&ft);
	check(MPI_File_close(&fh), "close");
	MPI_Finalize();
	return 0;
}
