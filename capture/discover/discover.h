/* --discover's state between its passes (passmerge.c) and what group testing
 * makes of it (groups.c). */
#ifndef ISLAND_DISCOVER_H
#define ISLAND_DISCOVER_H

#include <stddef.h>
#include <stdint.h>

#include "capture/cluster/cluster.h"

/* An edge: node x's I/O xs waits for node t's I/O ts (base numbers). */
struct dedge {
	int x, t;
	uint64_t xs, ts;
};

/* One wait a throttled pass logged, moved onto the base pass: x was found
 * waiting at xs while t held its I/O ts, and the nodes of `group` (t
 * among them) were seen holding during that hold. */
struct dobs {
	int x, t;
	uint64_t xs, ts, group;
	int64_t at;                  /* when t's hold ended (0 not said) */
	int pass;                    /* index in discovery.passes */
};

struct discovery {
	struct cluster_opts *o;
	char **names;
	int n;
	struct pass *base;
	struct pass **passes;        /* the throttled ones, in order */
	int npasses, cpasses;
	struct pnode *bt;            /* the base pass, read (passmerge.c) */
	struct mnode *m;             /* per node: its file, its waits */
	struct dedge *msg;           /* message edges, by (x, xs) */
	size_t nmsg, cmsg;
	struct dobs *obs;
	size_t nobs, cobs;
	size_t by_origin[4], unsure; /* edges written, by DEP_* */
};

/* Is there a message edge into node x's I/O xs (from node t; -1 any)? */
int discover_has_message(const struct discovery *d, int x, uint64_t xs, int t);
/* (msgedges.c) sorts the message edges, once they are all in */
void discover_sort_messages(struct discovery *d);
typedef void (*gt_emit)(struct discovery *d, int x, uint64_t xs, int t, uint64_t ts,
			int origin, int unsure);
/* The waits the passes saw, decided (groups.c): each an edge to emit. */
void gt_resolve(struct discovery *d, gt_emit emit);
/* The candidates of the waits not tied to one node: all (after the group
 * pass), or those the bit passes left unsure. */
uint64_t gt_candidates(struct discovery *d, int after_bits);

#endif
