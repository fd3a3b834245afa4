/* The cluster file reader (capture/cluster/cluster.c's load(), static: the file
 * is compiled in here) on any bytes. */
#include "../../capture/cluster/cluster.c"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *file = fuzz_file("c.xml", data, size);
	struct cluster c;

	memset(&c, 0, sizeof(c));
	fuzz_fds_mark();
	if (!setjmp(fuzz_back))
		load(&c, file);
	fuzz_fds_close();
	return 0;	/* load() keeps what it reads for the run: not freed */
}
