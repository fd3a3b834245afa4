/*
 * The replay's clock. Every call and every compute phase reads it (a
 * phase spins to its deadline): clock_gettime costs 27 ns here, the cycle
 * counter 11, and sort's 837,000 buffered writes, each between two
 * phases, replayed 21 % long on the reads alone. So where the kernel
 * itself trusts the cycle counter (its clocksource is tsc: invariant and
 * synchronised across CPUs), the replay counts ns from it, calibrated
 * against CLOCK_MONOTONIC from the replayer's start to the nodes' start
 * (the trace's loading: milliseconds, 2 at least); the two clocks then
 * drift by the calibration's error, a few ns per ms, so deadlines given
 * to clock_nanosleep stay good.
 */
#include <time.h>

#include "exec.h"
#include "util.h"

int rclock_tsc;
uint64_t rclock_tsc0;
int64_t rclock_ns0;
double rclock_mult;

static uint64_t start_tsc;
static int64_t start_ns;

void rclock_begin(void)
{
#if defined(__x86_64__)
	if (!clock_tsc_usable())
		return;
	start_ns = now_ns();
	start_tsc = __rdtsc();
#endif
}

void rclock_end(void)
{
#if defined(__x86_64__)
	if (!start_tsc)
		return;
	if (now_ns() - start_ns < 2000000)
		sleep_ns(2000000 - (now_ns() - start_ns));
	int64_t ns = now_ns();
	uint64_t tsc = __rdtsc();
	if (tsc <= start_tsc)
		return;
	rclock_mult = (double)(ns - start_ns) / (double)(tsc - start_tsc);
	rclock_ns0 = ns;
	rclock_tsc0 = tsc;
	rclock_tsc = 1;
#endif
}
