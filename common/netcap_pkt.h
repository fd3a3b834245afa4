/*
 * One packet's IP and TCP/UDP facts, from the link types a capture of
 * Island meets: Ethernet (veth, a named interface), Linux cooked v1/v2
 * ("any"), BSD loopback and raw IP. Shared by island-capture (the exact
 * filter) and island-analyze (the net report), hence header-only.
 *
 * Addresses are kept in IPv6 form (IPv4 as ::ffff:a.b.c.d) so that one
 * comparison serves both families, as dual-stack sockets do.
 */
#ifndef ISLAND_NETCAP_PKT_H
#define ISLAND_NETCAP_PKT_H

#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#define PKT_TCP 6
#define PKT_UDP 17
#define TCPF_FIN 0x01
#define TCPF_SYN 0x02
#define TCPF_RST 0x04
#define TCPF_ACK 0x10

struct pkt_ep {
	uint8_t ip[16];
	uint16_t port;
};

struct pkt {
	uint8_t proto;               /* PKT_TCP or PKT_UDP */
	uint8_t flags;               /* TCP flags */
	struct pkt_ep src, dst;
	uint32_t seq, ack;
	uint32_t paylen;             /* transport payload, from the IP length */
};

static inline uint16_t pkt_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t pkt_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void pkt_v4(uint8_t ip[16], const uint8_t *a)
{
	memset(ip, 0, 10);
	ip[10] = ip[11] = 0xff;
	memcpy(ip + 12, a, 4);
}

/* A sockaddr as an endpoint; 0 when it is not IP. */
static inline int pkt_ep_of(struct pkt_ep *e, const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)ss;
		pkt_v4(e->ip, (const uint8_t *)&s->sin_addr);
		e->port = ntohs(s->sin_port);
		return 1;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)ss;
		memcpy(e->ip, &s->sin6_addr, 16);
		e->port = ntohs(s->sin6_port);
		return 1;
	}
	return 0;
}

static inline int pkt_ip_any(const uint8_t ip[16])
{
	static const uint8_t z[16], v4z[16] = { [10] = 0xff, [11] = 0xff };
	return !memcmp(ip, z, 16) || !memcmp(ip, v4z, 16);
}

static inline int pkt_ep_eq(const struct pkt_ep *a, const struct pkt_ep *b)
{
	return a->port == b->port && !memcmp(a->ip, b->ip, 16);
}

/* The transport header at t (len bytes left), IP payload length plen. */
static inline int pkt_l4(struct pkt *p, const uint8_t *t, uint32_t len, uint32_t plen)
{
	if (p->proto == PKT_UDP) {
		if (len < 8 || plen < 8)
			return -1;
		p->src.port = pkt_be16(t);
		p->dst.port = pkt_be16(t + 2);
		p->paylen = plen - 8;
		return 0;
	}
	if (len < 20)
		return -1;
	uint32_t hl = (uint32_t)(t[12] >> 4) * 4;
	if (hl < 20 || plen < hl)
		return -1;
	p->src.port = pkt_be16(t);
	p->dst.port = pkt_be16(t + 2);
	p->seq = pkt_be32(t + 4);
	p->ack = pkt_be32(t + 8);
	p->flags = t[13];
	p->paylen = plen - hl;
	return 0;
}

static inline int pkt_ip(struct pkt *p, const uint8_t *d, uint32_t len)
{
	if (len < 1)
		return -1;
	if (d[0] >> 4 == 4) {
		uint32_t hl = (uint32_t)(d[0] & 15) * 4, tot;
		if (len < 20 || hl < 20 || len < hl)
			return -1;
		tot = pkt_be16(d + 2);
		if (tot < hl || (pkt_be16(d + 6) & 0x1fff))
			return -1;          /* not the first fragment */
		p->proto = d[9];
		pkt_v4(p->src.ip, d + 12);
		pkt_v4(p->dst.ip, d + 16);
		if (p->proto != PKT_TCP && p->proto != PKT_UDP)
			return -1;
		return pkt_l4(p, d + hl, len - hl, tot - hl);
	}
	if (d[0] >> 4 == 6) {
		if (len < 40)
			return -1;
		p->proto = d[6];        /* extension headers are not followed */
		memcpy(p->src.ip, d + 8, 16);
		memcpy(p->dst.ip, d + 24, 16);
		if (p->proto != PKT_TCP && p->proto != PKT_UDP)
			return -1;
		return pkt_l4(p, d + 40, len - 40, pkt_be16(d + 4));
	}
	return -1;
}

/* The link types: header length, and where the EtherType is (-1: none,
 * IP follows). Unknown types are taken as raw IP. */
static const struct pkt_link {
	int dlt;
	uint32_t hdr;
	int type_at;
} pkt_links[] = {
	{ 1, 14, 12 },               /* DLT_EN10MB (VLAN tags are skipped) */
	{ 113, 16, 14 },             /* DLT_LINUX_SLL ("any") */
	{ 276, 20, 0 },              /* DLT_LINUX_SLL2 */
	{ 0, 4, -1 },                /* DLT_NULL */
	{ 108, 4, -1 },              /* DLT_LOOP */
};

/* Parse a captured frame of link type dlt; 0 when it is TCP or UDP over IP. */
static inline int pkt_parse(int dlt, const uint8_t *d, uint32_t len, struct pkt *p)
{
	uint32_t off = 0;
	int type_at = -1;

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < sizeof(pkt_links) / sizeof(pkt_links[0]); i++)
		if (pkt_links[i].dlt == dlt) {
			off = pkt_links[i].hdr;
			type_at = pkt_links[i].type_at;
		}
	if (len < off)
		return -1;
	if (type_at >= 0) {
		uint16_t type = pkt_be16(d + type_at);
		while (dlt == 1 && (type == 0x8100 || type == 0x88a8) && len >= off + 4) {
			type = pkt_be16(d + off + 2);
			off += 4;
		}
		if (type != 0x0800 && type != 0x86dd)
			return -1;
	}
	return pkt_ip(p, d + off, len - off);
}

#endif
