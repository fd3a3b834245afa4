/* The message edges of a discovery (node x's I/O xs waited for node t's
 * ts, seen in the packets or the MPI level), sorted by the waiting side
 * so that a wait a pass found can be looked up among them. */
#include <stdlib.h>

#include "capture.h"
#include "discover.h"

static int cmp_dedge(const void *a, const void *b)
{
	const struct dedge *x = a, *y = b;

	if (x->x != y->x)
		return x->x - y->x;
	return x->xs < y->xs ? -1 : x->xs > y->xs;
}

void discover_sort_messages(struct discovery *d)
{
	if (d->nmsg > 1)
		qsort(d->msg, d->nmsg, sizeof(*d->msg), cmp_dedge);
}

int discover_has_message(const struct discovery *d, int x, uint64_t xs, int t)
{
	struct dedge key = { x, 0, xs, 0 };
	const struct dedge *e = d->nmsg ? bsearch(&key, d->msg, d->nmsg, sizeof(key),
						   cmp_dedge) : NULL;

	if (!e || t < 0)
		return e != NULL;
	while (e > d->msg && !cmp_dedge(e - 1, &key))
		e--;
	for (; e < d->msg + d->nmsg && !cmp_dedge(e, &key); e++)
		if (e->t == t)
			return 1;
	return 0;
}
