/*
 * The exact filter of --pcap: a packet belongs to the node when its
 * 5-tuple is one of the app's sockets. Connected sockets (connect,
 * accept) match both endpoints; a listening TCP socket only the SYNs that
 * open connections to it (its accepted sockets carry the rest); an
 * unconnected UDP socket every datagram to or from its local endpoint, a
 * wildcard address matching any.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcap_lazy.h"

#include "capture.h"
#include "netcap_int.h"
#include "util.h"

/* Connected with a definite local address: found by its exact tuple. */
static int exact(const struct netsock *k)
{
	return k->has_peer && !pkt_ip_any(k->local.ip);
}

static int cmp_ep(const struct pkt_ep *x, const struct pkt_ep *y)
{
	int c = memcmp(x->ip, y->ip, 16);

	return c ? c : (x->port > y->port) - (x->port < y->port);
}

static int cmp_sock(const void *a, const void *b)
{
	const struct netsock *x = a, *y = b;
	int c;

	if (exact(x) != exact(y))
		return exact(y) - exact(x);         /* the exact ones first */
	if (x->proto != y->proto)
		return x->proto - y->proto;
	if (!exact(x)) {
		if (x->local.port != y->local.port)
			return x->local.port < y->local.port ? -1 : 1;
		return memcmp(x, y, sizeof(*x));
	}
	if ((c = cmp_ep(&x->local, &y->local)))
		return c;
	return cmp_ep(&x->peer, &y->peer);
}

void netsocks_index(struct netsocks *s)
{
	size_t n = 0;

	if (s->n)                /* qsort(NULL, 0) is undefined (UBSan) */
		qsort(s->v, s->n, sizeof(*s->v), cmp_sock);
	for (size_t i = 0; i < s->n; i++)        /* the same socket, recorded again */
		if (!n || cmp_sock(&s->v[n - 1], &s->v[i]))
			s->v[n++] = s->v[i];
	s->n = n;
	for (s->nconn = 0; s->nconn < n && exact(&s->v[s->nconn]); s->nconn++)
		;
}

static int has_tuple(const struct netsocks *s, uint8_t proto, const struct pkt_ep *l,
		     const struct pkt_ep *p)
{
	struct netsock key = { .proto = proto, .has_local = 1, .has_peer = 1,
			       .local = *l, .peer = *p };

	if (pkt_ip_any(l->ip) || !s->nconn)
		return 0;
	return bsearch(&key, s->v, s->nconn, sizeof(*s->v), cmp_sock) != NULL;
}

static int ep_match(const struct pkt_ep *sock, const struct pkt_ep *e)
{
	return sock->port == e->port &&
	       (pkt_ip_any(sock->ip) || !memcmp(sock->ip, e->ip, 16));
}

/* A socket not found by its tuple: one connected on a wildcard address
 * (both endpoints), a listening TCP socket (the SYNs that open
 * connections to it, its RSTs), an unconnected UDP socket (its local
 * endpoint). */
static int loose_match(const struct netsock *k, const struct pkt *p)
{
	if (k->has_peer)
		return (ep_match(&k->local, &p->src) && pkt_ep_eq(&k->peer, &p->dst)) ||
		       (ep_match(&k->local, &p->dst) && pkt_ep_eq(&k->peer, &p->src));
	if (p->proto == PKT_TCP)
		return (ep_match(&k->local, &p->dst) &&
			(p->flags & (TCPF_SYN | TCPF_ACK)) == TCPF_SYN) ||
		       (ep_match(&k->local, &p->src) && (p->flags & TCPF_RST));
	return ep_match(&k->local, &p->src) || ep_match(&k->local, &p->dst);
}

/* The loose sockets of this protocol and local port. */
static int loose_port(const struct netsocks *s, const struct pkt *p, uint16_t port)
{
	size_t lo = s->nconn, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct netsock *k = &s->v[mid];
		if (k->proto < p->proto || (k->proto == p->proto && k->local.port < port))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < s->n && s->v[lo].proto == p->proto && s->v[lo].local.port == port; lo++)
		if (loose_match(&s->v[lo], p))
			return 1;
	return 0;
}

int netsocks_match(const struct netsocks *s, const struct pkt *p)
{
	return has_tuple(s, p->proto, &p->src, &p->dst) ||
	       has_tuple(s, p->proto, &p->dst, &p->src) ||
	       loose_port(s, p, p->src.port) ||
	       (p->dst.port != p->src.port && loose_port(s, p, p->dst.port));
}

/* The port of each implicitly bound UDP socket: the source of the
 * datagram its first send put on the wire (to its destination, of its
 * length, captured while the call ran or just after). */
#define SEND_SLACK_BEFORE 1000000ll       /* 1 ms: the two clocks' error */
#define SEND_SLACK_AFTER  50000000ll      /* 50 ms: delivery after return */

static void resolve_unbound(pcap_t *in, struct netsocks *s, struct udpsend *us, size_t nus)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	int dlt = PCAP(datalink)(in);

	while (PCAP(next_ex)(in, &h, &d) == 1) {
		struct pkt p;
		int64_t t = (int64_t)h->ts.tv_sec * 1000000000 + h->ts.tv_usec;
		if (pkt_parse(dlt, d, h->caplen, &p) || p.proto != PKT_UDP)
			continue;
		for (size_t i = 0; i < nus; i++) {
			struct udpsend *u = &us[i];
			/* the nearest to the call, should another process send
			 * the same length to the same place about then */
			int64_t dist = t < u->t0 ? u->t0 - t : t > u->t1 ? t - u->t1 : 0;
			if (p.paylen != u->len || !pkt_ep_eq(&p.dst, &u->dst) ||
			    t < u->t0 - SEND_SLACK_BEFORE || t > u->t1 + SEND_SLACK_AFTER ||
			    (u->found && dist >= u->dist))
				continue;
			u->found = 1;
			u->dist = dist;
			u->port = p.src.port;
		}
	}
	for (size_t i = 0; i < nus; i++) {
		struct netsock k;
		if (!us[i].found)
			continue;
		memset(&k, 0, sizeof(k));
		k.proto = PKT_UDP;
		k.has_local = 1;
		k.local.port = us[i].port;      /* any address: it was unbound */
		netsocks_add(s, &k);
	}
}

static pcap_t *open_raw(const char *raw)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *in;

	if (pcap_lazy_load(err) < 0)
		die(2, "%s", err);
	in = PCAP(open_offline_with_tstamp_precision)(raw, PCAP_TSTAMP_PRECISION_NANO, err);
	if (!in)
		die(2, "--pcap: %s: %s", raw, err);
	return in;
}

/* A new pcap file at path, made by us alone (O_EXCL), for p's packets. */
pcap_dumper_t *netcap_dump_create(pcap_t *p, const char *path, char *why)
{
	int fd = -1;
	FILE *f = NULL;
	pcap_dumper_t *d;

	if ((unlink(path) < 0 && errno != ENOENT) || (fd = create_excl(path, 0644)) < 0 ||
	    !(f = fdopen(fd, "w"))) {
		snprintf(why, PCAP_ERRBUF_SIZE, "%s", strerror(errno));
		if (!f && fd >= 0)
			close(fd);
		return NULL;
	}
	if (!(d = PCAP(dump_fopen)(p, f))) {
		snprintf(why, PCAP_ERRBUF_SIZE, "%s", PCAP(geterr)(p));
		fclose(f);
	}
	return d;
}

void netcap_keep_own(const char *raw, const char *out, const char *spool,
		     const struct clockmap *clk)
{
	struct netsocks s = { 0 };
	struct udpsend *us;
	size_t nus;
	struct pcap_pkthdr *h;
	const u_char *d;
	pcap_dumper_t *dump;
	pcap_t *in;
	int dlt;

	netsocks_load(&s, spool, clk, &us, &nus);
	if (nus) {
		in = open_raw(raw);
		resolve_unbound(in, &s, us, nus);
		PCAP(close)(in);
	}
	free(us);
	netsocks_index(&s);
	in = open_raw(raw);
	char why[PCAP_ERRBUF_SIZE];
	dump = netcap_dump_create(in, out, why);
	if (!dump)
		die(2, "--pcap: %s: %s", out, why);
	dlt = PCAP(datalink)(in);
	while (PCAP(next_ex)(in, &h, &d) == 1) {
		struct pkt p;
		if (pkt_parse(dlt, d, h->caplen, &p) == 0 && netsocks_match(&s, &p))
			PCAP(dump)((u_char *)dump, h, d);
	}
	if (PCAP(dump_flush)(dump) < 0 || ferror(PCAP(dump_file)(dump)))
		die(2, "--pcap: %s: cannot write:", out);
	PCAP(dump_close)(dump);
	PCAP(close)(in);
	free(s.v);
}
