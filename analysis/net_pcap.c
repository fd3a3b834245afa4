/*
 * Read a node's pcap into TCP connections: per direction the segments by
 * stream offset, retransmissions, FINs and round-trip samples (a first
 * transmission to the ACK that covers it; Karn's rule: none across a
 * retransmission); and into UDP flows: per direction the datagrams, their
 * bytes numbered in the order they were captured.
 */
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "net.h"

/* The 4-tuple's hash, the same both ways. */
static size_t tuple_hash(int node, bool udp, const struct pkt_ep *x, const struct pkt_ep *y)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)node ^ ((uint64_t)udp << 40);
	const struct pkt_ep *e[2] = { x, y };
	uint64_t part[2] = { 0, 0 };

	for (int k = 0; k < 2; k++) {
		uint64_t v = 1469598103934665603ull;
		for (int i = 0; i < 16; i++)
			v = (v ^ e[k]->ip[i]) * 1099511628211ull;
		part[k] = (v ^ e[k]->port) * 1099511628211ull;
	}
	h ^= part[0] + part[1];      /* commutative: a -> b and b -> a */
	h *= 0x9e3779b97f4a7c15ull;
	return (size_t)(h ^ (h >> 29));
}

static bool same_tuple(const struct netconn *c, int node, bool udp,
		       const struct pkt_ep *x, const struct pkt_ep *y)
{
	return c->node == node && c->udp == udp &&
	       ((pkt_ep_eq(&c->a, x) && pkt_ep_eq(&c->b, y)) ||
		(pkt_ep_eq(&c->a, y) && pkt_ep_eq(&c->b, x)));
}

/* The slot of the tuple: its connection's, or the free one to take. */
static size_t ctab_slot(const struct netrun *nr, int node, bool udp,
			const struct pkt_ep *x, const struct pkt_ep *y)
{
	size_t m = nr->ctabsize - 1, i = tuple_hash(node, udp, x, y) & m;

	while (nr->ctab[i] >= 0 && !same_tuple(&nr->conns[nr->ctab[i]], node, udp, x, y))
		i = (i + 1) & m;
	return i;
}

static void ctab_grow(struct netrun *nr)
{
	int *old = nr->ctab;
	size_t oldsize = nr->ctabsize;

	nr->ctabsize = oldsize ? oldsize * 2 : 1024;
	nr->ctab = xmalloc(nr->ctabsize * sizeof(int));
	memset(nr->ctab, 0xff, nr->ctabsize * sizeof(int));
	for (size_t i = 0; i < oldsize; i++)
		if (old[i] >= 0) {
			const struct netconn *c = &nr->conns[old[i]];
			nr->ctab[ctab_slot(nr, c->node, c->udp, &c->a, &c->b)] = old[i];
		}
	free(old);
}

static bool conn_closed(const struct netconn *c)
{
	return c->reset || (c->d[0].fin_t && c->d[1].fin_t);
}

/* The connection of this packet; dir is 0 when it flows a -> b. A SYN on
 * the 4-tuple of a closed connection opens a new one. */
static struct netconn *conn_of(struct netrun *nr, int node, const struct pkt *p, int *dir)
{
	bool syn = (p->flags & (TCPF_SYN | TCPF_ACK)) == TCPF_SYN;
	bool synack = (p->flags & (TCPF_SYN | TCPF_ACK)) == (TCPF_SYN | TCPF_ACK);

	if (2 * (nr->ctabused + 1) > nr->ctabsize)
		ctab_grow(nr);
	bool udp = p->proto == PKT_UDP;
	size_t slot = ctab_slot(nr, node, udp, &p->src, &p->dst);
	if (nr->ctab[slot] >= 0) {
		struct netconn *c = &nr->conns[nr->ctab[slot]];
		if (!(syn && conn_closed(c))) {
			*dir = !pkt_ep_eq(&c->a, &p->src);
			return c;
		}
	} else {
		nr->ctabused++;
	}
	XGROW(nr->conns, nr->capconns, nr->nconns + 1);
	struct netconn *c = &nr->conns[nr->nconns];
	memset(c, 0, sizeof(*c));
	c->node = node;
	c->udp = udp;
	c->stream[0] = c->stream[1] = -1;
	/* the side that sent the SYN opened it; without one, the first sender */
	c->a = synack ? p->dst : p->src;
	c->b = synack ? p->src : p->dst;
	*dir = synack;
	nr->ctab[slot] = (int)nr->nconns++;
	return c;
}

static void rtt_sample(struct netdir *d, int64_t v)
{
	if (!d->rtt_n || v < d->rtt_min)
		d->rtt_min = v;
	d->rtt_n++;
}

static void on_data(struct netdir *d, const struct pkt *p, int64_t t)
{
	if (!d->has_isn) {           /* joined late: number from here */
		d->has_isn = true;
		d->isn = p->seq - 1;
	}
	uint64_t off = net_unwrap(d->last, d->isn, p->seq);
	d->last = off;
	net_seg_add(d, off, p->paylen, t);
	if (d->seg[d->nseg - 1].retrans) {
		d->nwait = d->hwait = 0;     /* Karn */
		return;
	}
	XGROW(d->wait, d->capwait, d->nwait + 1);
	d->wait[d->nwait].end = off + p->paylen;
	d->wait[d->nwait++].t = t;
}

/* An ACK from the other side acknowledges d's bytes below ack. */
static void on_ack(struct netdir *d, const struct pkt *p, int64_t t)
{
	if (!d->has_isn)
		return;
	uint64_t acked = net_unwrap(d->high, d->isn, p->ack);
	while (d->hwait < d->nwait && d->wait[d->hwait].end <= acked)
		rtt_sample(d, t - d->wait[d->hwait++].t);
}

static void on_flags(struct netconn *c, struct netdir *d, int dir,
		     const struct pkt *p, int64_t t)
{
	if (p->flags & TCPF_SYN) {
		d->has_isn = true;
		d->isn = p->seq;
		d->last = 0;
		if (!(p->flags & TCPF_ACK) && !c->syn_t)
			c->syn_t = t;
		if ((p->flags & TCPF_ACK) && !c->synack_t)
			c->synack_t = t;
	} else if (dir == 0 && (p->flags & TCPF_ACK) && c->synack_t && !c->est_t) {
		c->est_t = t;
	}
	if ((p->flags & TCPF_FIN) && !d->fin_t)
		d->fin_t = t;
	if (p->flags & TCPF_RST)
		c->reset = true;
}

static void on_packet(struct netrun *nr, int node, const struct pkt *p, int64_t t)
{
	int dir;
	struct netconn *c = conn_of(nr, node, p, &dir);
	struct netdir *d = &c->d[dir], *o = &c->d[!dir];

	if (!c->first_t)
		c->first_t = t;
	c->end_t = t;
	d->pkts++;
	if (c->udp) {                /* datagrams: numbered as they came */
		net_seg_add(d, d->high, p->paylen, t);
		return;
	}
	on_flags(c, d, dir, p, t);
	if (p->paylen && !(p->flags & TCPF_SYN))
		on_data(d, p, t);
	if (p->flags & TCPF_ACK)
		on_ack(o, p, t);
}

void net_read_pcap(struct netrun *nr, int node)
{
	const char *path = nr->nodes[node].pcap;
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	size_t first = nr->nconns;
	pcap_t *in;
	int r, dlt;

	in = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	if (!in)
		die(2, "%s: %s", path, err);
	dlt = pcap_datalink(in);
	while ((r = pcap_next_ex(in, &h, &data)) == 1) {
		struct pkt p;
		if (pkt_parse(dlt, data, h->caplen, &p))
			continue;
		on_packet(nr, node, &p, (int64_t)h->ts.tv_sec * NS + h->ts.tv_usec);
	}
	if (r == PCAP_ERROR)
		warnx("%s: %s; the packets after are ignored", path, pcap_geterr(in));
	pcap_close(in);
	free(nr->ctab);              /* tuples are per node */
	nr->ctab = NULL;
	nr->ctabsize = nr->ctabused = 0;
	for (size_t i = first; i < nr->nconns; i++)
		for (int k = 0; k < 2; k++)
			net_segs_sort(&nr->conns[i].d[k]);
}
