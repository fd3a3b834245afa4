/* Inside --pcap: the exact filter by the app's sockets. */
#ifndef ISLAND_NETCAP_INT_H
#define ISLAND_NETCAP_INT_H

#include <stddef.h>

#include "capture.h"
#include "common/netcap_pkt.h"

/* A socket of the app as the spool saw it: local and (when connected)
 * peer endpoints. */
struct netsock {
	uint8_t proto;               /* PKT_TCP, PKT_UDP */
	int has_local, has_peer;
	struct pkt_ep local, peer;
};

/* Sorted for binary search by netsocks_index(): first the connected
 * sockets with a definite local address (by protocol, local, peer), then
 * the others (by protocol, local port). */
struct netsocks {
	struct netsock *v;
	size_t n, cap;
	size_t nconn;                /* v[0 .. nconn) are the connected */
};

/* A datagram sent by a UDP socket that no call bound: the kernel chose
 * its port, which only the packet tells. */
struct udpsend {
	struct pkt_ep dst;
	uint32_t len;
	int64_t t0, t1;              /* the call, wall-clock ns */
	int found;
	uint16_t port;               /* the best candidate's source port */
	int64_t dist;                /* its distance from the call, ns */
};

/* The IP sockets named by the spool's records, and the first send of each
 * implicitly bound UDP socket. */
/* A pcap file created anew at path (what was there, a symlink included,
 * is replaced, never followed); NULL with errno's or libpcap's reason in
 * why (PCAP_ERRBUF_SIZE). */
#include <pcap/pcap.h>
pcap_dumper_t *netcap_dump_create(pcap_t *p, const char *path, char *why);
void netsocks_load(struct netsocks *s, const char *spool, const struct clockmap *clk,
		   struct udpsend **us, size_t *nus);
void netsocks_add(struct netsocks *s, const struct netsock *k);
void netsocks_index(struct netsocks *s);
/* Is this packet one of those sockets'? (after netsocks_index) */
int netsocks_match(const struct netsocks *s, const struct pkt *p);
/* Copy from raw to out the packets of the sockets in the spool; clk is
 * the run's clock, the one every spool of it uses. */
void netcap_keep_own(const char *raw, const char *out, const char *spool,
		     const struct clockmap *clk);

#endif
