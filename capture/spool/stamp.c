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
	uint64_t t = bracketed(ticks, &c->mono0);

	clock_origin(c, kind, t, c->mono0);
	/* the node's epoch, the wall clock at mono0, by which the nodes'
	 * traces are aligned: read bracketed too (one read before the pair
	 * was 0.43 ms off once on a loaded machine, preempted there, and a
	 * reply's receive ended before its send began across two traces) */
	int64_t m = 0;
	int64_t r = (int64_t)bracketed(real_now, &m);
	c->real0 = c->mono0 + (r - m);
}

void clock_rate(struct clockmap *c, long double r)
{
	long double w = r < 0 ? 0 : (long double)(uint64_t)r;

	c->cur.whole = (uint64_t)w;
	/* the fraction to 64 bits: 2^64 does not fit, 2^63 twice does */
	c->cur.frac = r <= w ? 0 : (uint64_t)((r - w) * 9223372036854775808.0L) * 2;
}

void clock_origin(struct clockmap *c, int kind, uint64_t tsc, int64_t mono)
{
	c->kind = kind;
	c->tsc0 = c->cur.tsc = tsc;
	c->mono0 = mono;
	clock_rate(c, 1);
}

/* tsc1 at mono1: the slope from the start to there, cur's (a cycle
 * counter that went on) */
static void slope_to(struct clockmap *c, uint64_t t, int64_t mono)
{
	c->tsc1 = t;
	c->mono1 = mono;
	if (c->kind == CLOCK_KIND_TSC && t > c->tsc0)
		clock_rate(c, (long double)(mono - c->mono0) / (long double)(t - c->tsc0));
}

/* A tick before cur: in the stretch it was written with, or before the
 * first, that stretch's slope back from its start */
int64_t clock_ns_before(const struct clockmap *c, uint64_t t)
{
	const struct clockseg *s = c->nseg ? &c->seg[0] : &c->cur;

	for (int i = c->nseg - 1; i >= 0; i--)
		if ((int64_t)(t - c->seg[i].tsc) >= 0)
			return c->seg[i].ns + (int64_t)clockseg_ns(&c->seg[i], t - c->seg[i].tsc);
	return s->ns - (int64_t)clockseg_ns(s, s->tsc - t);
}

/*
 * The slope over the run so far, from now on. Each stretch errs by the
 * two readings' error (tens of ns) over its baseline, which is at least
 * as long as the stretch when the calls double it (clock_due): a
 * stretch adds about one reading's error to the times after it, where
 * one slope fixed early would go on drifting (2 ppm for a 50 ms
 * baseline: 7 ms an hour).
 */
void clock_fix(struct clockmap *c)
{
	int64_t mono = 0;
	uint64_t t = bracketed(ticks, &mono);

	/* with nothing to map (no cycle counter), clock_due doubles too */
	if (c->fixed && c->kind == CLOCK_KIND_TSC && t > c->tsc0) {
		if (c->nseg == CLOCK_SEGS)
			return;          /* 2^64 baselines on: the last kept */
		c->seg[c->nseg++] = c->cur;
		c->cur.ns = clock_ns(c, t);
		c->cur.tsc = t;
	}
	slope_to(c, t, mono);
	c->fixed = 1;
}

int clock_due(const struct clockmap *c)
{
	return !c->fixed || now_ns() - c->mono1 >= c->mono1 - c->mono0;
}

/* The slope over the whole run, unless streaming fixed it. A short run
 * gives as good a map as a long one: the readings' error over the
 * baseline, at most that error on the times it maps, all within it. */
void clock_end(struct clockmap *c)
{
	int64_t mono = 0;

	if (c->fixed)
		return;
	uint64_t t = bracketed(ticks, &mono);
	slope_to(c, t, mono);
}
