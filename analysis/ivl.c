/* Interval math: merging, unions, overlaps. Everything is sort + sweep or a
 * heap merge of sorted lists, O(n log n). */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

static int cmp_ivl(const void *a, const void *b)
{
	const struct ivl *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

/* Sort, then fold every interval that starts before the current one ends
 * (touching intervals merge too). */
size_t ivl_merge(struct ivl *v, size_t n)
{
	size_t k = 0;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_ivl);
	for (size_t i = 1; i < n; i++) {
		if (v[i].start <= v[k].end) {
			if (v[i].end > v[k].end)
				v[k].end = v[i].end;
		} else {
			v[++k] = v[i];
		}
	}
	return k + 1;
}

int64_t ivl_union_len(struct ivl *v, size_t n)
{
	int64_t sum = 0;

	n = ivl_merge(v, n);
	for (size_t i = 0; i < n; i++)
		sum += v[i].end - v[i].start;
	return sum;
}

/* First stop ending after a: binary search over sorted disjoint stops. */
size_t stop_first(const struct trace_stop *s, size_t n, int64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Time of [a, b] covered by the stops. */
int64_t ivl_overlap(const struct trace_stop *s, size_t n, int64_t a, int64_t b)
{
	int64_t sum = 0;

	for (size_t i = stop_first(s, n, a); i < n && s[i].start < b; i++) {
		int64_t lo = s[i].start > a ? s[i].start : a;
		int64_t hi = s[i].end < b ? s[i].end : b;

		if (hi > lo)
			sum += hi - lo;
	}
	return sum;
}

/* ilist: intervals appended in time order are stored as LEB128 deltas
 * (gap from the previous end, then length): a few bytes each instead of
 * sixteen. The last interval stays pending so touching ones coalesce. */
static void put_varint(struct ilist *l, uint64_t x)
{
	XGROW(l->buf, l->cap, l->len + 10);
	while (x >= 0x80) {
		l->buf[l->len++] = (unsigned char)(x | 0x80);
		x >>= 7;
	}
	l->buf[l->len++] = (unsigned char)x;
}

static void flush_pending(struct ilist *l)
{
	if (!l->has_pending)
		return;
	put_varint(l, (uint64_t)(l->pstart - l->last));
	put_varint(l, (uint64_t)(l->pend - l->pstart));
	l->last = l->pend;
	l->n++;
	l->has_pending = false;
}

void ilist_add(struct ilist *l, int64_t start, int64_t end)
{
	int64_t floor = l->has_pending ? l->pend : l->last;

	if (!l->n && !l->has_pending) {
		l->first = l->last = start;
		floor = start;
	}
	if (start < floor)	/* out of order: keep the part after */
		start = floor;
	if (end <= start)
		return;
	l->total += end - start;
	if (l->has_pending && start == l->pend) {
		l->pend = end;
		return;
	}
	flush_pending(l);
	l->pstart = start;
	l->pend = end;
	l->has_pending = true;
}

void ilist_free(struct ilist *l)
{
	free(l->buf);
	memset(l, 0, sizeof(*l));
}

struct icur {
	const struct ilist *l;
	size_t pos, left;
	int64_t prev, start, end;
	bool pending;
};

static bool icur_next(struct icur *c)
{
	const struct ilist *l = c->l;

	if (c->left) {
		uint64_t d[2] = { 0, 0 };

		for (int k = 0; k < 2; k++) {
			int shift = 0;
			unsigned char b;

			do {
				b = l->buf[c->pos++];
				d[k] |= (uint64_t)(b & 0x7f) << shift;
				shift += 7;
			} while (b & 0x80);
		}
		c->start = c->prev + (int64_t)d[0];
		c->end = c->start + (int64_t)d[1];
		c->prev = c->end;
		c->left--;
		c->start += l->off;
		c->end += l->off;
		return true;
	}
	if (c->pending) {
		c->pending = false;
		c->start = l->pstart + l->off;
		c->end = l->pend + l->off;
		return true;
	}
	return false;
}

static void heap_down(struct icur **h, size_t n, size_t i)
{
	for (;;) {
		size_t m = i, a = 2 * i + 1, b = a + 1;

		if (a < n && h[a]->start < h[m]->start)
			m = a;
		if (b < n && h[b]->start < h[m]->start)
			m = b;
		if (m == i)
			return;
		struct icur *t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Union of k sorted lists: pop the earliest start, extend or close the
 * current run. O(n log k). */
int64_t ilist_union(struct ilist *const *lists, size_t k)
{
	struct icur *cur = xcalloc(k ? k : 1, sizeof(*cur));
	struct icur **h = xcalloc(k ? k : 1, sizeof(*h));
	size_t n = 0;
	int64_t sum = 0, rs = 0, re = 0;
	bool open = false;

	if (k == 1) {		/* a list is already disjoint */
		free(cur);
		free(h);
		return lists[0]->total;
	}
	for (size_t i = 0; i < k; i++) {
		cur[i].l = lists[i];
		cur[i].left = lists[i]->n;
		cur[i].prev = lists[i]->first;
		cur[i].pending = lists[i]->has_pending;
		if (icur_next(&cur[i]))
			h[n++] = &cur[i];
	}
	for (size_t i = n; i-- > 0;)
		heap_down(h, n, i);
	while (n) {
		struct icur *c = h[0];

		if (open && c->start <= re) {
			if (c->end > re)
				re = c->end;
		} else {
			if (open)
				sum += re - rs;
			rs = c->start;
			re = c->end;
			open = true;
		}
		if (!icur_next(c))
			h[0] = h[--n];
		heap_down(h, n, 0);
	}
	if (open)
		sum += re - rs;
	free(cur);
	free(h);
	return sum;
}
