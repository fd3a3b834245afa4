/* Packet capture beside the calls (--pcap): libpcap records the packets
 * of the node's own sockets into NODE.pcap, referenced by the trace. */
#ifndef ISLAND_NETCAP_H
#define ISLAND_NETCAP_H

#include <sys/types.h>

struct netcap_opts {
	int enabled;                 /* --pcap given */
	const char *iface;           /* NULL: the interfaces the sockets use */
	int optional;                /* --pcap-optional: go on without */
	const char *path;            /* NODE.pcap beside the trace */
};

struct netcap;

/* Before the app starts: open the capture (a clear error, or with
 * optional a warning and NULL, when it cannot be had). */
struct netcap *netcap_open(const struct netcap_opts *o, const char *spool);
/* The app runs (its processes write their spools in `spool`). */
void netcap_start(struct netcap *nc, pid_t app);
/* The app's tree has exited: stop, keep only the node's own packets,
 * write the pcap file. clk: the run's clock, calibrated (clock_end). */
struct clockmap;
void netcap_stop(struct netcap *nc, const struct clockmap *clk);

#endif
