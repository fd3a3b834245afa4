/* hist: see hist.h for the bucket layout and its error bound. */
#include "hist.h"

#include <math.h>
#include <stdlib.h>

#include "util.h"

static int chunk_of(uint64_t v, int *idx)
{
	int e;

	if (v < HIST_EXACT) {
		*idx = (int)v;
		return 0;
	}
	e = 63 - __builtin_clzll(v);		/* >= 8 */
	*idx = (int)((v >> (e - 7)) & (HIST_SUB - 1));
	return e - 7;
}

/* The midpoint of a bucket, as a value: chunk k holds [2^(k+7), 2^(k+8))
 * in buckets [(128 + idx) << k, +2^k), as chunk_of() takes them. */
static int64_t mid_of(int chunk, int idx)
{
	int64_t lo, width;

	if (chunk == 0)
		return idx;
	width = (int64_t)1 << chunk;
	lo = ((int64_t)(HIST_SUB + idx)) << chunk;
	return lo + width / 2;
}

void hist_add(struct hist *h, int64_t v)
{
	int idx, c;

	if (v < 0)
		v = 0;
	c = chunk_of((uint64_t)v, &idx);
	if (!h->chunk[c])
		h->chunk[c] = xcalloc(c ? HIST_SUB : HIST_EXACT, sizeof(uint64_t));
	h->chunk[c][idx]++;
	if (!h->count || v < h->min)
		h->min = v;
	if (!h->count || v > h->max)
		h->max = v;
	h->count++;
	h->total += v;
}

int64_t hist_quantile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	rank = (uint64_t)ceil(p * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (int c = 0; c < HIST_CHUNKS; c++) {
		int n = c ? HIST_SUB : HIST_EXACT;

		if (!h->chunk[c])
			continue;
		for (int i = 0; i < n; i++) {
			seen += h->chunk[c][i];
			if (seen >= rank) {
				int64_t v = mid_of(c, i);

				return v < h->min ? h->min : v > h->max ? h->max : v;
			}
		}
	}
	return h->max;
}

void hist_free(struct hist *h)
{
	for (int c = 0; c < HIST_CHUNKS; c++)
		free(h->chunk[c]);
}
