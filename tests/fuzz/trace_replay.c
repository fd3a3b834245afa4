/* island-replay's trace loader (replay/load.c: the plan from the trace
 * library's reader, strict) and its checks (replay/check.c) on any bytes. */
#include "replay.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *file = fuzz_file("t.xml", data, size);

	static struct trace *t;

	fuzz_fds_mark();
	t = NULL;
	if (!setjmp(fuzz_back)) {
		t = replay_load(file);
		replay_check(t);
	}
	replay_free(t);
	replay_load_abandon();	/* a load that died */
	intern_free();
	fuzz_fds_close();
	return 0;
}
