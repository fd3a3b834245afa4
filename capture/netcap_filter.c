/*
 * The exact filter of --pcap: a packet belongs to the node when its
 * 5-tuple is one of the app's sockets. Connected sockets (connect,
 * accept) match both endpoints; a listening TCP socket only the SYNs that
 * open connections to it (its accepted sockets carry the rest); an
 * unconnected UDP socket every datagram to or from its local endpoint, a
 * wildcard address matching any.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "capture.h"
#include "netcap_int.h"
#include "util.h"

/* The records that carry a struct sockinfo (spool.h). */
static const int sock_calls[] = { C_SOCKET, C_BIND, C_CONNECT, C_ACCEPT,
				  C_SENDTO, C_RECVFROM, REC_FDINFO };

static int carries_sockinfo(const struct rec *r)
{
	if (REC_PAYLOAD_LEN(r) < sizeof(struct sockinfo))
		return 0;
	if (r->call == REC_FDINFO)
		return r->a1 == FDK_SOCKET;
	for (size_t i = 0; i < sizeof(sock_calls) / sizeof(sock_calls[0]); i++)
		if (r->call == sock_calls[i])
			return 1;
	return 0;
}

static void add_sock(struct netsocks *s, const struct sockinfo *si)
{
	struct netsock ns = { 0 };

	if (si->type != SOCK_STREAM && si->type != SOCK_DGRAM)
		return;
	ns.proto = si->type == SOCK_STREAM ? PKT_TCP : PKT_UDP;
	ns.has_local = si->llen && pkt_ep_of(&ns.local, &si->local) && ns.local.port;
	ns.has_peer = si->plen && pkt_ep_of(&ns.peer, &si->peer) && ns.peer.port;
	if (!ns.has_local)
		return;             /* nothing on the wire yet */
	for (size_t i = 0; i < s->n; i++)
		if (!memcmp(&s->v[i], &ns, sizeof(ns)))
			return;
	XGROW(s->v, s->cap, s->n + 1);
	s->v[s->n++] = ns;
}

void netsocks_load(struct netsocks *s, const char *spool)
{
	struct node n = { 0 };

	if (spool_load(&n, spool) < 0)
		return;
	for (int i = 0; i < n.nprocs; i++)
		for (int j = 0; j < n.procs[i].nthr; j++) {
			struct rec_iter it;
			struct rec *r;
			rec_iter_init(&it, &n.procs[i].thr[j]);
			while ((r = rec_next(&it))) {
				struct sockinfo si;
				if (!carries_sockinfo(r))
					continue;
				memcpy(&si, REC_PAYLOAD(r), sizeof(si));
				add_sock(s, &si);
			}
		}
	spool_unload(&n);
}

static int ep_match(const struct pkt_ep *sock, const struct pkt_ep *e)
{
	return sock->port == e->port &&
	       (pkt_ip_any(sock->ip) || !memcmp(sock->ip, e->ip, 16));
}

static int sock_match(const struct netsock *s, const struct pkt *p)
{
	if (s->proto != p->proto)
		return 0;
	if (s->has_peer)
		return (ep_match(&s->local, &p->src) && pkt_ep_eq(&s->peer, &p->dst)) ||
		       (ep_match(&s->local, &p->dst) && pkt_ep_eq(&s->peer, &p->src));
	if (p->proto == PKT_TCP)     /* a listener: the opening SYN, or its RST */
		return (ep_match(&s->local, &p->dst) &&
			(p->flags & (TCPF_SYN | TCPF_ACK)) == TCPF_SYN) ||
		       (ep_match(&s->local, &p->src) && (p->flags & TCPF_RST));
	return ep_match(&s->local, &p->src) || ep_match(&s->local, &p->dst);
}

int netsocks_match(const struct netsocks *s, const struct pkt *p)
{
	for (size_t i = 0; i < s->n; i++)
		if (sock_match(&s->v[i], p))
			return 1;
	return 0;
}

void netcap_keep_own(const char *raw, const char *out, const char *spool)
{
	char err[PCAP_ERRBUF_SIZE];
	struct netsocks s = { 0 };
	struct pcap_pkthdr *h;
	const u_char *d;
	pcap_dumper_t *dump;
	pcap_t *in;
	int dlt;

	netsocks_load(&s, spool);
	in = pcap_open_offline_with_tstamp_precision(raw, PCAP_TSTAMP_PRECISION_NANO, err);
	if (!in)
		die(2, "--pcap: %s: %s", raw, err);
	dump = pcap_dump_open(in, out);
	if (!dump)
		die(2, "--pcap: %s: %s", out, pcap_geterr(in));
	dlt = pcap_datalink(in);
	while (pcap_next_ex(in, &h, &d) == 1) {
		struct pkt p;
		if (pkt_parse(dlt, d, h->caplen, &p) == 0 && netsocks_match(&s, &p))
			pcap_dump((u_char *)dump, h, d);
	}
	if (pcap_dump_flush(dump) < 0)
		die(2, "--pcap: %s: cannot write", out);
	pcap_dump_close(dump);
	pcap_close(in);
	free(s.v);
}
