/* The span CSV reader (analysis/spans.c: utilization, ttx) on any bytes. */
#include "analyze.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *file = fuzz_file("s.csv", data, size);
	static struct spans s;

	fuzz_fds_mark();
	if (!setjmp(fuzz_back))
		spans_read(&s, file);
	spans_free(&s);
	memset(&s, 0, sizeof(s));
	fuzz_fds_close();
	return 0;
}
