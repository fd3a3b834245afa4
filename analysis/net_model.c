/*
 * The byte arithmetic of the net report: TCP sequence numbers to stream
 * offsets, segments covering a range of bytes, overlaps of the senders'
 * and receivers' calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "net.h"

/* Sequence numbers wrap at 2^32; a stream may be longer. The offset
 * nearest the last one seen is the right one (TCP's window is far
 * smaller than 2^31). */
uint64_t net_unwrap(uint64_t last, uint32_t isn, uint32_t seq)
{
	uint32_t rel = seq - isn - 1;
	int32_t delta = (int32_t)(rel - (uint32_t)last);

	if (delta < 0 && (uint64_t)-(int64_t)delta > last)
		return 0;
	return (uint64_t)((int64_t)last + delta);
}

void net_seg_add(struct netdir *d, uint64_t off, uint32_t len, int64_t t)
{
	bool re = off < d->high;

	XGROW(d->seg, d->cap, d->nseg + 1);
	d->seg[d->nseg++] = (struct netseg){ off, len, t, re };
	d->retrans += re;
	if (off + len > d->high)
		d->high = off + len;
	if (len > d->maxlen)
		d->maxlen = len;
}

static int cmp_seg(const void *a, const void *b)
{
	const struct netseg *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

static bool overlap(const struct netseg *a, const struct netseg *b)
{
	return a->off < b->off + b->len && b->off < a->off + a->len;
}

/* Sort by offset, and count again as retransmissions only the segments
 * whose bytes an earlier one carried: captured on several CPUs, packets
 * may reach the capture out of order, and a later byte seen first does
 * not make the earlier one a retransmission. */
void net_segs_sort(struct netdir *d)
{
	if (d->nseg > 1)	/* qsort(NULL, 0) is undefined (fuzz: pcap) */
		qsort(d->seg, d->nseg, sizeof(*d->seg), cmp_seg);
	d->retrans = 0;
	for (size_t i = 0; i < d->nseg; i++) {
		struct netseg *s = &d->seg[i];
		s->retrans = false;
		for (size_t j = i; j-- > 0 && d->seg[j].off + d->maxlen > s->off && !s->retrans;)
			s->retrans = overlap(&d->seg[j], s) && d->seg[j].t <= s->t;
		for (size_t j = i + 1; j < d->nseg && d->seg[j].off < s->off + s->len &&
		     !s->retrans; j++)
			s->retrans = overlap(&d->seg[j], s) && d->seg[j].t < s->t;
		d->retrans += s->retrans;
	}
}

/* First segment that may hold a byte at or after off. */
static size_t seg_lower(const struct netdir *d, uint64_t off)
{
	uint64_t from = off > d->maxlen ? off - d->maxlen : 0;
	size_t lo = 0, hi = d->nseg;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->seg[mid].off < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t net_segs_cover(const struct netdir *d, uint64_t off, uint64_t len,
		      int64_t *first, int64_t *last)
{
	size_t n = 0;

	*first = *last = 0;
	for (size_t i = seg_lower(d, off); i < d->nseg && d->seg[i].off < off + len; i++) {
		const struct netseg *s = &d->seg[i];
		if (s->off + s->len <= off || !s->len)
			continue;
		if (!n || s->t < *first)
			*first = s->t;
		if (!n || s->t > *last)
			*last = s->t;
		n++;
	}
	return n;
}

int64_t net_byte_time(const struct netdir *d, uint64_t off)
{
	int64_t t0, t1;

	return net_segs_cover(d, off, 1, &t0, &t1) ? t0 : 0;
}

void net_overlaps(const struct netrange *s, size_t ns, const struct netrange *r,
		  size_t nr, net_overlap_fn fn, void *arg)
{
	size_t i = 0, j = 0;

	while (i < ns && j < nr) {
		uint64_t lo = s[i].off > r[j].off ? s[i].off : r[j].off;
		uint64_t se = s[i].off + s[i].len, re = r[j].off + r[j].len;
		uint64_t hi = se < re ? se : re;
		if (lo < hi)
			fn(arg, &s[i], &r[j], lo, hi - lo);
		if (se <= re)
			i++;
		else
			j++;
	}
}

/* "a.b.c.d:port" or "[v6]:port". */
int net_ep_parse(struct pkt_ep *e, const char *s)
{
	char host[64];
	const char *colon;
	char *end;
	long port;

	memset(e, 0, sizeof(*e));
	if (!s || !*s)
		return -1;
	if (*s == '[') {
		const char *rb = strchr(s, ']');
		if (!rb || rb[1] != ':' || (size_t)(rb - s - 1) >= sizeof(host))
			return -1;
		memcpy(host, s + 1, (size_t)(rb - s - 1));
		host[rb - s - 1] = 0;
		colon = rb + 1;
		if (inet_pton(AF_INET6, host, e->ip) != 1)
			return -1;
	} else {
		uint8_t v4[4];
		colon = strrchr(s, ':');
		if (!colon || (size_t)(colon - s) >= sizeof(host))
			return -1;
		memcpy(host, s, (size_t)(colon - s));
		host[colon - s] = 0;
		if (inet_pton(AF_INET, host, v4) != 1)
			return -1;
		pkt_v4(e->ip, v4);
	}
	port = strtol(colon + 1, &end, 10);
	if (*end || end == colon + 1 || port < 0 || port > 65535)
		return -1;
	e->port = (uint16_t)port;
	return 0;
}

char *net_ep_fmt(char *buf, size_t n, const struct pkt_ep *e)
{
	static const uint8_t v4pre[12] = { [10] = 0xff, [11] = 0xff };
	char ip[INET6_ADDRSTRLEN];

	if (!memcmp(e->ip, v4pre, 12)) {
		inet_ntop(AF_INET, e->ip + 12, ip, sizeof(ip));
		snprintf(buf, n, "%s:%u", ip, e->port);
	} else {
		inet_ntop(AF_INET6, e->ip, ip, sizeof(ip));
		snprintf(buf, n, "[%s]:%u", ip, e->port);
	}
	return buf;
}
