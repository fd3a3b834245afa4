/* deps --from mpi's reading of the MPI level (trace/mpideps.c): its
 * attributes (rank, tag, comm, coll, request, done) and the matching of
 * sends, receives and collectives, on any bytes. */
#include "analyze.h"
#include "mpideps.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *files[1] = { (char *)fuzz_file("t.xml", data, size) };
	static struct mpi_deps m;

	fuzz_fds_mark();
	if (!setjmp(fuzz_back)) {
		mpi_deps_read(&m, files, 1);
		mpi_deps_free(&m);
	} else {
		trace_read_abandon();	/* the file's reading, left by die */
	}
	fuzz_fds_close();
	return 0;
}
