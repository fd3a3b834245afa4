/* --max-size and the warning of a trace that would fill its disk
 * (budget.c) */
#ifndef ISLAND_BUDGET_H
#define ISLAND_BUDGET_H

#include <stdint.h>

struct budget;

/* "SIZE[k|M|G]" (powers of 1024) in bytes; exits 2 naming the option
 * otherwise */
uint64_t budget_size(const char *opt, const char *v);
/* Watch the trace of the spool's app grow, written to output (its file
 * system), while it runs: max bytes at most (0: no limit) */
struct stream;
struct budget *budget_start(const char *spool, const char *output, uint64_t max,
			    struct stream *stream, int compact);
/* Stop watching: 1 when --max-size was reached (then *at: seconds into
 * the run), else 0 */
int budget_stop(struct budget *b, double *at);

#endif
