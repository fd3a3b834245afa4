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

/* (a session has at most SESS_NODES = 64 nodes: masks of 64 bits) */

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

/* Which I/Os of every node happen before node x's I/O xs by the message
 * edges alone (each node's I/Os in their order): reach[t] is the last. */
static void reach_of(const struct discovery *d, int x, uint64_t xs, uint64_t *reach)
{
	memset(reach, 0, (size_t)d->n * sizeof(*reach));
	reach[x] = xs;
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t k = 0; k < d->nmsg; k++) {
			const struct dedge *e = &d->msg[k];
			if (e->xs <= reach[e->x] && e->ts > reach[e->t]) {
				reach[e->t] = e->ts;
				changed = 1;
			}
		}
	}
}

/* the I/O of t's that the wait was seen on, in passes of kind `kind` (0
 * any): in each pass, the latest (the strongest); of the passes, the
 * earliest, which they all agree it waited for (a node held with others
 * holds whatever it is at: its barrier's send in one pass, the connect
 * the wait was for in another) */
static uint64_t seen_ts(const struct discovery *d, size_t a, size_t b, int t, int kind)
{
	uint64_t ts = 0;

	for (int p = 0; p < d->npasses; p++) {
		uint64_t in = 0;
		for (size_t k = a; k < b; k++)
			if (d->obs[k].t == t && d->obs[k].pass == p && d->obs[k].ts > in &&
			    (!kind || d->passes[p]->kind == kind))
				in = d->obs[k].ts;
		if (in && (!ts || in < ts))
			ts = in;
	}
	return ts;
}

/* Two holds ending this close together ended on the same moment: all
 * the nodes it waited for were known waiting or holding then */
#define SAME_END_NS 2000000

/* Of the nodes of q that logged the wait in the group pass, the one whose
 * hold ended last, SAME_END_NS after any other's; -1 when none is. */
static int last_release(const struct discovery *d, size_t a, size_t b, uint64_t q)
{
	int64_t end[64] = { 0 };
	int best = -1;

	for (size_t k = a; k < b; k++) {
		const struct dobs *o = &d->obs[k];
		if (d->passes[o->pass]->kind != PASS_GROUP || !(q & (1ull << o->t)) || !o->at)
			continue;
		if (o->at > end[o->t])
			end[o->t] = o->at;
	}
	for (int i = 0; i < d->n; i++)
		if (end[i] && (best < 0 || end[i] > end[best]))
			best = i;
	for (int i = 0; best >= 0 && i < d->n; i++)
		if (i != best && end[i] && end[best] - end[i] < SAME_END_NS)
			return -1;
	return best;
}

/* A bit pass throttled t and did not see the wait. */
static int ruled_out(const struct discovery *d, size_t a, size_t b, int t,
		     const uint64_t *seen)
{
	(void)a;
	(void)b;
	for (int p = 0; p < d->npasses && p < 64; p++)
		if (d->passes[p]->kind == PASS_BIT && (d->passes[p]->mask & (1ull << t)) &&
		    !seen[p])
			return 1;
	return 0;
}

/* Node i's number as the bit passes spell it (i < 0: the wait's, from
 * the passes that saw it): bit k for the k-th bit pass */
static uint64_t bit_word(const struct discovery *d, int i, const uint64_t *seen)
{
	uint64_t w = 0;

	for (int p = 0, k = 0; p < d->npasses && p < 64; p++) {
		if (d->passes[p]->kind != PASS_BIT)
			continue;
		if (i >= 0 ? (d->passes[p]->mask >> i) & 1 : seen[p])
			w |= 1ull << k;
		k++;
	}
	return w;
}

/* Do the numbers of q's nodes differ in two bits at least, pairwise? */
static int spaced(const struct discovery *d, uint64_t q, const uint64_t *seen)
{
	for (int i = 0; i < d->n; i++)
		for (int j = i + 1; (q >> i) & 1 && j < d->n; j++)
			if ((q >> j) & 1 && ones(bit_word(d, i, seen) ^ bit_word(d, j, seen)) < 2)
				return 0;
	return 1;
}

/*
 * What the passes say of one wait, obs[a..b): the nodes it certainly
 * waited for, and those it may have (*unsure), on which passes that rests
 * (DEP_*). A wait may be for several nodes (a chain: x waits for a node
 * that waits for another), a pass sees it when it throttles any of them,
 * and a node holding during it logs it whether it is one of them or not:
 * - the nodes that logged it in the group pass are its candidates;
 * - a candidate whose held I/O the message edges already order before
 *   the wait is one of them (the messages prove it);
 * - of the others, one that a bit pass throttled without the wait being
 *   seen is not (a negative test), nor is one whose single-node pass did
 *   not see it; one is when a pass that saw the wait throttled no other
 *   that may be, or when it is the only one left and no message explains
 *   the wait;
 * - when the candidates' numbers are two bits apart, a pattern the bit
 *   passes spell that is none of theirs is one pass misjudged: each
 *   candidate a single slip explains may be it (*several: write each).
 */
static uint64_t judge(const struct discovery *d, size_t a, size_t b, uint64_t *reach,
		      uint64_t *unsure, uint64_t *single, int *several)
{
	const struct dobs *o = d->obs;
	int x = o[a].x, nbits = 0;
	uint64_t single_seen = 0, single_ran = 0, group = 0, bits = 0, self = 1ull << x;
	uint64_t seen[64] = { 0 };   /* per pass: 1 when it saw the wait */

	for (size_t k = a; k < b; k++) {
		int kind = d->passes[o[k].pass]->kind;
		uint64_t t = 1ull << o[k].t;
		if (o[k].pass < 64)
			seen[o[k].pass] = 1;
		if (kind == PASS_SINGLE)
			single_seen |= t & d->passes[o[k].pass]->mask;
		else if (kind == PASS_GROUP)
			group |= t;
		else
			bits |= t;
	}
	/* a node throttled alone that saw the wait: //TRACE's own evidence */
	*unsure = 0;
	*several = 0;
	*single = single_seen & ~self;
	for (int p = 0; p < d->npasses; p++) {
		if (d->passes[p]->kind == PASS_SINGLE)
			single_ran |= d->passes[p]->mask;
		nbits += d->passes[p]->kind == PASS_BIT;
	}
	uint64_t c = (group ? group : bits) & ~self, expl = 0;
	reach_of(d, x, o[a].xs, reach);
	for (int i = 0; i < d->n; i++)
		if ((c & (1ull << i)) && reach[i] && reach[i] >= seen_ts(d, a, b, i, 0))
			expl |= 1ull << i;
	/* a receive (an accept, a connect) waits for its message: what else
	 * it may wait for comes through the sender, whose own waits say it;
	 * another node found holding then is one that held at that time */
	if (discover_has_message(d, x, o[a].xs, -1))
		return expl | *single;
	uint64_t q = c & ~expl & ~single_ran, sure = expl | *single;
	if (!q)
		return sure;
	/* of a chain, the last: a candidate whose held I/O the messages
	 * order before another candidate's is implied once that one's is
	 * the wait's (pseudo's start-up: node 2 waits for node 0's ready
	 * file, made once node 0 had node 1's hello) */
	uint64_t early = 0, r2[64];
	for (int i = 0; i < d->n; i++) {
		if (!(q & (1ull << i)))
			continue;
		reach_of(d, i, seen_ts(d, a, b, i, 0), r2);
		for (int j = 0; j < d->n; j++)
			if (j != i && (q & (1ull << j)) && r2[j] && r2[j] >= seen_ts(d, a, b, j, 0))
				early |= 1ull << j;
	}
	if (q & ~early)
		q &= ~early;
	if (!expl && !*single && ones(q) == 1)
		return sure | q;
	/* the last of them to let its I/O go, well after the others, is
	 * the one the wait ended on: the others held while the waiter waited
	 * for it (or for the one it waited for: a chain) */
	int last = last_release(d, a, b, q);
	if (last >= 0 && !expl && !*single && !ruled_out(d, a, b, last, seen))
		return sure | 1ull << last;
	if (!nbits) {
		*unsure = q;
		return sure;
	}
	/* negative tests first: what is left may be */
	uint64_t may = q;
	for (int p = 0; p < d->npasses && p < 64; p++)
		if (d->passes[p]->kind == PASS_BIT && !seen[p])
			may &= ~d->passes[p]->mask;
	/* one node waited for (a sparse dependency): the candidate whose
	 * number the passes that saw the wait spell, bit by bit */
	uint64_t exact = 0, w = bit_word(d, -1, seen);
	for (int i = 0; i < d->n; i++)
		if ((may >> i) & 1 && bit_word(d, i, seen) == w)
			exact |= 1ull << i;
	if (!expl && !*single && ones(exact) == 1)
		return sure | exact;
	/* most likely a wait seen where the node it is for ran free (a busy
	 * machine): a candidate whose number lacks one bit the wait's has */
	if (!expl && !*single && !exact && ones(q) > 1 && spaced(d, q, seen)) {
		uint64_t near = 0;
		for (int i = 0; i < d->n; i++)
			if ((q >> i) & 1 && ones(bit_word(d, i, seen) ^ w) == 1)
				near |= 1ull << i;
		if (near) {
			*unsure = near & may ? near & may : near;
			*several = 1;
			return sure;
		}
	}
	uint64_t def = 0;
	for (int p = 0; p < d->npasses && p < 64; p++) {
		uint64_t g = d->passes[p]->mask;
		if (d->passes[p]->kind == PASS_BIT && seen[p] && ones(g & may) == 1 &&
		    !(g & (expl | *single)))
			def |= g & may;
	}
	if (!expl && !*single && ones(may) == 1)
		def = may;
	*unsure = may & ~def;
	return sure | def;
}

/* Of the nodes a wait may be for, unsure, the likeliest: the one whose
 * number the bit passes that saw the wait spell with the fewest bits
 * wrong (a pass misjudged by a busy machine), then the one whose hold
 * ended last in the group pass; one wait written, not one per node. */
static uint64_t best_guess(const struct discovery *d, size_t a, size_t b, uint64_t unsure)
{
	int best = -1, best_miss = 1 << 30;
	int64_t best_end = 0;

	for (int i = 0; i < d->n; i++) {
		if (!(unsure & (1ull << i)))
			continue;
		int miss = 0;
		int64_t end = 0;
		for (int p = 0; p < d->npasses; p++) {
			if (d->passes[p]->kind != PASS_BIT)
				continue;
			int seen = 0;
			for (size_t k = a; k < b && !seen; k++)
				seen = d->obs[k].pass == p;
			miss += seen != !!(d->passes[p]->mask & (1ull << i));
		}
		for (size_t k = a; k < b; k++)
			if (d->obs[k].t == i && d->passes[d->obs[k].pass]->kind == PASS_GROUP &&
			    d->obs[k].at > end)
				end = d->obs[k].at;
		if (miss < best_miss || (miss == best_miss && end > best_end)) {
			best = i;
			best_miss = miss;
			best_end = end;
		}
	}
	return best < 0 ? 0 : 1ull << best;
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
		f(d, a, b, ctx);
		a = b;
	}
}

static void add_unsure(struct discovery *d, size_t a, size_t b, void *ctx)
{
	uint64_t unsure, single, reach[64];
	int several;

	judge(d, a, b, reach, &unsure, &single, &several);
	*(uint64_t *)ctx |= unsure;
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
	uint64_t unsure, single, reach[64];
	int several;
	uint64_t c = judge(d, a, b, reach, &unsure, &single, &several);

	if (ones(unsure) > 1 && !several)
		unsure = best_guess(d, a, b, unsure);
	for (int t = 0; t < d->n; t++) {
		if (!((c | unsure) & (1ull << t)) || discover_has_message(d, d->obs[a].x,
									    d->obs[a].xs, t))
			continue;        /* a message from t says it already */
		int one = !!(single & (1ull << t));
		uint64_t ts = seen_ts(d, a, b, t, one ? PASS_SINGLE : 0);
		if (ts)
			emit(d, d->obs[a].x, d->obs[a].xs, t, ts, one ? DEP_SINGLE : DEP_GROUP,
			     !(c & (1ull << t)));
	}
}

void gt_resolve(struct discovery *d, gt_emit emit)
{
	each_wait(d, emit_wait, &emit);
}
