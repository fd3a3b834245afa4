/*
 * The clock the interposer stamps calls with. The cycle counter costs a
 * few ns where clock_gettime costs tens (most of the capture's overhead on
 * small calls), so it is used when the kernel itself trusts it as its
 * clocksource (invariant and synchronised across CPUs), and converted to
 * ns with two calibration points: the node's start and end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "capture.h"
#include "util.h"

/* This host's wall clock. ISLAND_TEST_CLOCK_SKEW=NS shifts it, so that
 * the tests can stand a host whose clock is off on this machine. */
int64_t host_real_ns(void)
{
	static int64_t skew;
	static int known;

	if (!known) {
		const char *v = getenv("ISLAND_TEST_CLOCK_SKEW");

		skew = v ? strtoll(v, NULL, 10) : 0;
		known = 1;
	}
	return real_ns() + skew;
}

static uint64_t ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	return 0;
#endif
}


uint64_t clock_raw(const struct clockmap *c)
{
	return c->kind == CLOCK_KIND_TSC ? ticks() : (uint64_t)now_ns();
}

/* A clock read between two monotonic reads as close together as we can
 * (the closest of 20): its value, and in *mono the monotonic time then */
static uint64_t bracketed(uint64_t (*read)(void), int64_t *mono)
{
	int64_t best = INT64_MAX;
	uint64_t v = 0;

	for (int i = 0; i < 20; i++) {
		int64_t a = now_ns();
		uint64_t x = read();
		int64_t b = now_ns();
		if (b - a < best) {
			best = b - a;
			v = x;
			*mono = a + (b - a) / 2;
		}
	}
	return v;
}

static uint64_t real_now(void)
{
	return (uint64_t)host_real_ns();
}

void clock_start(struct clockmap *c, int kind)
{
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->tsc0 = bracketed(ticks, &c->mono0);
	/* the node's epoch, the wall clock at mono0, by which the nodes'
	 * traces are aligned: read bracketed too (one read before the pair
	 * was 0.43 ms off once on a loaded machine, preempted there, and a
	 * reply's receive ended before its send began across two traces) */
	int64_t m = 0;
	int64_t r = (int64_t)bracketed(real_now, &m);
	c->real0 = c->mono0 + (r - m);
	clock_rate(c, 1);
}

void clock_rate(struct clockmap *c, long double r)
{
	long double w = r < 0 ? 0 : (long double)(uint64_t)r;

	c->ns_per_tick = r;
	c->whole = (uint64_t)w;
	/* the fraction to 64 bits: 2^64 does not fit, 2^63 twice does */
	c->frac = r <= w ? 0 : (uint64_t)((r - w) * 9223372036854775808.0L) * 2;
}

void clock_fix(struct clockmap *c)
{
	c->tsc1 = bracketed(ticks, &c->mono1);
	if (c->kind == CLOCK_KIND_TSC && c->tsc1 > c->tsc0)
		clock_rate(c, (long double)(c->mono1 - c->mono0) /
			      (long double)(c->tsc1 - c->tsc0));
	c->fixed = 1;
}

void clock_end(struct clockmap *c)
{
	if (c->fixed)
		return;
	c->tsc1 = bracketed(ticks, &c->mono1);
	if (c->kind == CLOCK_KIND_TSC) {
		/* a short run gives a poor slope: stretch the baseline */
		if (c->mono1 - c->mono0 < 20000000) {
			struct timespec d = { 0, 20000000 - (c->mono1 - c->mono0) };
			nanosleep(&d, NULL);
			c->tsc1 = bracketed(ticks, &c->mono1);
		}
		if (c->tsc1 > c->tsc0)
			clock_rate(c, (long double)(c->mono1 - c->mono0) /
				      (long double)(c->tsc1 - c->tsc0));
	}
}
