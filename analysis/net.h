/*
 * The net report and the message edges: the packets of each node's pcap
 * (island-capture --pcap) beside the send/recv calls of its trace.
 *
 * A TCP connection's bytes are numbered from 0 in each direction (the
 * sequence number minus the ISN minus one); so are the bytes of the calls
 * on a socket, by their cumulative amounts. The same number on both sides
 * is the same byte: this ties calls to packets, and a sender's call to the
 * receiver's call that got its bytes (a message edge).
 */
#ifndef ISLAND_NET_H
#define ISLAND_NET_H

#include "analyze.h"
#include "common/netcap_pkt.h"

/* A stretch of one direction's bytes as a packet carried it. */
struct netseg {
	uint64_t off;                /* stream offset of its first byte */
	uint32_t len;
	int64_t t;                   /* capture time, ns since the Unix epoch */
	bool retrans;                /* some of its bytes were sent before */
};

struct netdir {
	bool has_isn;
	uint32_t isn;
	uint64_t last;               /* last offset unwrapped (for the next) */
	uint64_t high;               /* end of the highest byte seen */
	int64_t pkts, retrans;
	struct netseg *seg;          /* sorted by offset after reading */
	size_t nseg, cap;
	uint32_t maxlen;             /* longest segment */
	int64_t fin_t;               /* first FIN, 0 none */
	/* round trips: first transmissions waiting for their ACK */
	struct { uint64_t end; int64_t t; } *wait;
	size_t nwait, hwait, capwait;
	int64_t rtt_min;             /* ns, data -> ack from this side */
	long rtt_n;
};

/* One TCP connection, or UDP flow (the datagrams between two endpoints,
 * numbered by their bytes in capture order), in one node's pcap; d[0]
 * flows a -> b. */
struct netconn {
	int node;                    /* whose pcap */
	bool udp;
	struct pkt_ep a, b;          /* a: the side that sent the SYN, if seen */
	struct netdir d[2];
	int64_t syn_t, synack_t, est_t, end_t, first_t;
	bool reset;
	int stream[2];               /* the node's streams at its a and b
	                                ends (both: a node talking to
	                                itself), -1 none */
};

/* A traced send or recv on an IP socket. */
struct netcall {
	int node;
	uint64_t seq;                /* the node's I/O number */
	const char *api;             /* interned */
	int64_t start, end;          /* node time, ns */
	int64_t amount;
	bool recv;                   /* recv, or accept */
	bool opens;                  /* connect or accept: no bytes */
	int stream;
	uint64_t off;                /* stream offset of its first byte */
};

/* The calls of one process's descriptor on one connection. */
struct netstream {
	int node;
	long pid;
	int fd;
	bool udp;
	uint32_t fdgen;              /* the descriptor's socket (netfd.gen) */
	struct pkt_ep peer, local;
	bool has_local;
	struct pkt_ep tlocal;        /* its connect's or accept's local= */
	bool has_tlocal;
	int64_t first;               /* first call or connect/accept, ns */
	uint64_t sent, received;     /* cumulative amounts */
	int conn;                    /* in the node's pcap, -1 unknown */
	int dir_out;                 /* the conn's direction we send on */
	int pair;                    /* the peer node's stream, -1 none */
	long open_call;              /* its connect or accept, -1 none */
};

/* A message edge: the receiver's call got bytes of the sender's; or a
 * connection edge: an accept completed the handshake a connect began. */
struct netedge {
	int snd, rcv;                /* calls */
	uint64_t bytes;
	int64_t depart, arrive;      /* wire, ns since the epoch; 0 unknown */
};

struct netnode {
	const char *name, *file;
	char *pcap;                  /* path, or NULL */
	int64_t epoch;               /* ns */
	int64_t off;                 /* aligned with the run */
	bool has_seq;
	size_t numbered;             /* its I/O that a seq numbers */
	uint64_t maxseq;             /* the largest seq of its trace */
};

/* A process's descriptor on a stream (net_fds.c). */
struct netfd {
	int node;
	long pid;
	int fd;
	int stream;                  /* TCP: the stream; -1 none */
	uint8_t proto;               /* PKT_TCP, PKT_UDP, 0 unknown */
	uint32_t gen;                /* sockets opened on this number */
	bool closed, used;
};

struct netfds {
	struct netfd *v;
	size_t size, used;
};

struct netfd *netfds_get(struct netfds *m, int node, long pid, int fd);
struct netfd *netfds_set(struct netfds *m, int node, long pid, int fd, int stream);
void netfds_free(struct netfds *m);

struct netrun {
	struct trace_run run;
	struct netfds fds;
	struct netnode *nodes;
	size_t nnodes, capnodes;
	struct netconn *conns;
	size_t nconns, capconns;
	struct netcall *calls;
	size_t ncalls, capcalls;
	struct netstream *streams;
	size_t nstreams, capstreams;
	struct netedge *edges;
	size_t nedges, capedges;
	/* indexes: the connections by 4-tuple while reading a pcap (open
	 * addressing, -1 free), the calls by stream and direction, the edges
	 * by receiving call */
	int *ctab;
	size_t ctabsize, ctabused;
	size_t *call_order, *edge_order;
};

/* net_model.c: the byte arithmetic (unit-tested). */
uint64_t net_unwrap(uint64_t last, uint32_t isn, uint32_t seq);
void net_seg_add(struct netdir *d, uint64_t off, uint32_t len, int64_t t);
void net_segs_sort(struct netdir *d);
/* The segments carrying bytes of [off, off + len): how many, and the
 * first and last times they were seen. */
size_t net_segs_cover(const struct netdir *d, uint64_t off, uint64_t len,
		      int64_t *first, int64_t *last);
/* The time the byte at off was first seen, 0 never. */
int64_t net_byte_time(const struct netdir *d, uint64_t off);
/* Overlaps of two sorted lists of ranges [off, off + len): calls a
 * callback for each pair that shares bytes. */
struct netrange {
	uint64_t off, len;
	int id;
};
typedef void (*net_overlap_fn)(void *arg, const struct netrange *s,
			       const struct netrange *r, uint64_t off, uint64_t len);
void net_overlaps(const struct netrange *s, size_t ns, const struct netrange *r,
		  size_t nr, net_overlap_fn fn, void *arg);
int net_ep_parse(struct pkt_ep *e, const char *s);
char *net_ep_fmt(char *buf, size_t n, const struct pkt_ep *e);

/* net_pcap.c: a node's pcap into connections. */
void net_read_pcap(struct netrun *nr, int node);

/* net_calls.c: the traces' calls and streams, each node's pcap read. */
void net_read_traces(struct netrun *nr, char **files, int nfiles);

/* net_match.c: streams to connections, pairs of streams, edges. */
void net_match(struct netrun *nr);
/* The direction of stream st's connection that carries its bytes out
 * (out) or in, NULL without packets. */
const struct netdir *net_dir_of(const struct netrun *nr, int st, bool out);

/* net.c */
void net_collect(struct netrun *nr, char **files, int nfiles);
void net_free(struct netrun *nr);
int64_t net_wire(const struct netedge *e);
/* A recv call's time: before the peer sent, on the wire, after arrival. */
bool net_recv_split(const struct netrun *nr, size_t call, int64_t part[3]);

#endif
