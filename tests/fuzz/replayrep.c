/* The replay's fidelity report as the HTML page reads it back
 * (analysis/replayrep.c: report --replay FILE) on any bytes: refused
 * with a message, or every node named, its durations finite and not
 * negative. */
#include "analyze.h"
#include "fuzz.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct replayrep r;
	char err[512];

	if (replayrep_parse((const char *)data, size, "r.xml", &r, err, sizeof(err))) {
		if (!strchr(err, ':'))
			abort();	/* "NAME:LINE: problem" */
		return 0;
	}
	for (size_t i = 0; i < r.n; i++)
		if (!r.nodes[i].name[0] || !isfinite(r.nodes[i].original) || r.nodes[i].original < 0 ||
		    !isfinite(r.nodes[i].replayed) || r.nodes[i].replayed < 0)
			abort();
	replayrep_free(&r);
	return 0;
}
