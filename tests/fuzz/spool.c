/* A spool file and an arena (capture/spool/spool_read.c: chunks, the record
 * chain, short records expanded) and what the trace writer makes of its records
 * (capture/spool/resolve.c, capture/writer/writer.c), as after a crash: any bytes. */
#include "capture.h"
#include "spool.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cap_node n;
	static char out[128];
	static int clocked;

	fuzz_file("1.1.0", data, size);
	fuzz_file(ARENA_FILE, data, size);      /* the same bytes as an arena */
	snprintf(out, sizeof(out), "%s/t.xml", fuzz_dir());
	memset(&n, 0, sizeof(n));
	if (!clocked) {		/* calibrated once: a mapping of our own clock */
		static struct clockmap clk;

		clock_start(&clk, CLOCK_KIND_MONO);
		clock_end(&clk);
		clocked = 1;
		n.clk = clk;
	}
	n.name = "n";
	n.host = "h";
	n.complete = 1;
	fuzz_fds_mark();
	if (!setjmp(fuzz_back) && spool_load(&n, fuzz_dir()) == 0) {
		resolve_node(&n);
		model_write(&n, out, 0);
	}
	spool_unload(&n);
	fuzz_fds_close();
	return 0;
}
