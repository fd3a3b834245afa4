/* Inside --pcap: the exact filter by the app's sockets. */
#ifndef ISLAND_NETCAP_INT_H
#define ISLAND_NETCAP_INT_H

#include <stddef.h>

#include "netcap_pkt.h"

/* A socket of the app as the spool saw it: local and (when connected)
 * peer endpoints. */
struct netsock {
	uint8_t proto;               /* PKT_TCP, PKT_UDP */
	int has_local, has_peer;
	struct pkt_ep local, peer;
};

struct netsocks {
	struct netsock *v;
	size_t n, cap;
};

/* The IP sockets named by the spool's records. */
void netsocks_load(struct netsocks *s, const char *spool);
/* Is this packet one of those sockets'? */
int netsocks_match(const struct netsocks *s, const struct pkt *p);
/* Copy from raw to out the packets of the sockets in the spool. */
void netcap_keep_own(const char *raw, const char *out, const char *spool);

#endif
