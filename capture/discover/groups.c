/*
 * Group testing (--discover): a pass throttles a group of nodes at once,
 * and each wait its watchdogs saw (node x at its I/O xs, found blocked
 * while node t held its I/O ts) says that x waited for some node of the
 * group then holding. The nodes that logged one wait are its candidates;
 * one candidate is the edge. Several are told apart by the bit passes:
 * each candidate gets a number, and bit pass b throttles those whose
 * number has bit b set, so that the passes where the wait is seen again
 * spell the number of the node it waits for (one signaller per wait: a
 * sparse dependency); a wait whose pattern is no candidate's, or more
 * than one's, is left to single-node passes, or marked unsure.
 */
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "discover.h"
#include "util.h"

static int cmp_obs(const void *a, const void *b)
{
	const struct dobs *x = a, *y = b;

	if (x->x != y->x)
		return x->x - y->x;
	if (x->xs != y->xs)
		return x->xs < y->xs ? -1 : 1;
	if (x->pass != y->pass)
		return x->pass - y->pass;
	return x->t - y->t;
}

static int ones(uint64_t m)
{
	return __builtin_popcountll(m);
}

/* What the passes say of one wait, obs[a..b): the nodes it may be for,
 * whether that is certain, and on which passes it rests (DEP_*); 0 when
 * none. */
static uint64_t judge(const struct discovery *d, size_t a, size_t b, int *unsure,
		      int *origin)
{
	const struct dobs *o = d->obs;
	int x = o[a].x;
	uint64_t single_seen = 0, single_ran = 0, group = 0, bits = 0, self = 1ull << x;

	for (size_t k = a; k < b; k++) {
		int kind = d->passes[o[k].pass]->kind;
		uint64_t t = 1ull << o[k].t;
		if (kind == PASS_SINGLE)
			single_seen |= t;
		else if (kind == PASS_GROUP)
			group |= t;
		else
			bits |= t;
	}
	*unsure = 0;
	if (single_seen) {           /* //TRACE's own evidence */
		*origin = DEP_SINGLE;
		return single_seen & ~self;
	}
	for (int p = 0; p < d->npasses; p++)
		if (d->passes[p]->kind == PASS_SINGLE)
			single_ran |= d->passes[p]->mask;
	uint64_t c = (group ? group : bits) & ~self;
	*origin = DEP_GROUP;
	/* a node throttled alone, that saw no such wait, is not it */
	if (c & ~single_ran)
		c &= ~single_ran;
	if (ones(c) <= 1)
		return c;
	int nbits = 0, best = 1 << 30;
	uint64_t pick = 0;
	for (int p = 0; p < d->npasses; p++)
		nbits += d->passes[p]->kind == PASS_BIT;
	if (!nbits) {
		*unsure = 1;
		return c;
	}
	/* the candidate whose number the passes that saw it spell */
	for (int i = 0; i < d->n; i++) {
		if (!(c & (1ull << i)))
			continue;
		int miss = 0;
		for (int p = 0; p < d->npasses; p++) {
			const struct pass *ps = d->passes[p];
			if (ps->kind != PASS_BIT)
				continue;
			int seen = 0;
			for (size_t k = a; k < b && !seen; k++)
				seen = o[k].pass == p;
			miss += seen != !!(ps->mask & (1ull << i));
		}
		if (miss < best) {
			best = miss;
			pick = 0;
		}
		if (miss == best)
			pick |= 1ull << i;
	}
	*unsure = best != 0 || ones(pick) != 1;
	return pick;
}

/* Each wait's observations together, one wait after another: f(a, b). */
static void each_wait(struct discovery *d, void (*f)(struct discovery *, size_t, size_t, void *),
		      void *ctx)
{
	if (d->nobs)
		qsort(d->obs, d->nobs, sizeof(*d->obs), cmp_obs);
	for (size_t a = 0; a < d->nobs;) {
		size_t b = a;
		while (b < d->nobs && d->obs[b].x == d->obs[a].x && d->obs[b].xs == d->obs[a].xs)
			b++;
		/* a message into that I/O already says what it waited for */
		if (!discover_has_message(d, d->obs[a].x, d->obs[a].xs))
			f(d, a, b, ctx);
		a = b;
	}
}

static void add_unsure(struct discovery *d, size_t a, size_t b, void *ctx)
{
	int unsure, origin;
	uint64_t c = judge(d, a, b, &unsure, &origin);

	if (unsure)
		*(uint64_t *)ctx |= c;
}

uint64_t gt_candidates(struct discovery *d, int after_bits)
{
	uint64_t u = 0;

	(void)after_bits;            /* judge() weighs the passes that ran */
	each_wait(d, add_unsure, &u);
	return u;
}

static void emit_wait(struct discovery *d, size_t a, size_t b, void *ctx)
{
	gt_emit emit = *(gt_emit *)ctx;
	int unsure, origin;
	uint64_t c = judge(d, a, b, &unsure, &origin);

	for (int t = 0; t < d->n; t++) {
		if (!(c & (1ull << t)))
			continue;
		/* the strongest I/O of t's that the wait was seen on */
		uint64_t ts = 0;
		for (size_t k = a; k < b; k++)
			if (d->obs[k].t == t && d->obs[k].ts > ts &&
			    (origin != DEP_SINGLE || d->passes[d->obs[k].pass]->kind == PASS_SINGLE))
				ts = d->obs[k].ts;
		if (ts)
			emit(d, d->obs[a].x, d->obs[a].xs, t, ts, origin, unsure);
	}
}

void gt_resolve(struct discovery *d, gt_emit emit)
{
	each_wait(d, emit_wait, &emit);
}
