/* Sizes and rates as people write them: 100000, 1.5e6, 64k, 10M, 1G (and
 * 64KiB, 10MB): the multiples are binary, k = 1024, as fio and dd read
 * them. */
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int parse_size(const char *s, double *v)
{
	static const char units[] = "kmgt";
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (errno || end == s || !isfinite(x))
		return -1;
	if (*end) {
		const char *u = strchr(units, *end | 0x20);

		if (!u || !*u)
			return -1;
		end++;
		/* k, K, KB, KiB: the same */
		if (*end == 'i')
			end++;
		if (*end == 'B' || *end == 'b')
			end++;
		if (*end)
			return -1;
		x *= pow(1024, (double)(u - units + 1));
	}
	*v = x;
	return 0;
}
