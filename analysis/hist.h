/* hist: latency histograms with HdrHistogram-style log-linear buckets:
 * exact below 256 ns, then 128 buckets per power of two. A percentile is
 * reported as its bucket's midpoint, clamped to the exact minimum and
 * maximum: exact below 256 ns, otherwise within half a bucket, 1/256
 * (0.39 %) of the true nearest-rank value; p50 <= p90 <= p99 <= max
 * always holds. Memory: 1 KiB per power of two a group's values reach (a
 * few KiB for a typical call). */
#ifndef ISLAND_HIST_H
#define ISLAND_HIST_H

#include <stdint.h>

#define HIST_SUB 128		/* buckets per power of two */
#define HIST_EXACT 256		/* values below are counted exactly */
#define HIST_CHUNKS 57		/* chunk 0: [0, 256); chunk k: [2^(k+7), 2^(k+8)) */

struct hist {
	uint64_t *chunk[HIST_CHUNKS];
	uint64_t count;
	int64_t min, max, total;
};

void hist_add(struct hist *h, int64_t v);
/* The nearest-rank p-quantile (0 < p <= 1); 0 for an empty histogram. */
int64_t hist_quantile(const struct hist *h, double p);
void hist_free(struct hist *h);

#endif
