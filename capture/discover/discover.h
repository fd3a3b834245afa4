/* --discover's state between its passes (passmerge.c) and what group testing
 * makes of it (groups.c). */
#ifndef ISLAND_DISCOVER_H
#define ISLAND_DISCOVER_H

#include <stddef.h>
#include <stdint.h>

#include "capture/cluster/cluster.h"

/* An edge: node x's I/O xs waits for node t's I/O ts (base numbers). */
struct dedge {
	int x, t;
	uint64_t xs, ts;
};

/* One wait a throttled pass logged, moved onto the base pass: x was found
 * waiting at xs while t held its I/O ts, and the nodes of `group` (t
 * among them) were seen holding during that hold. */
struct dobs {
	int x, t;
	uint64_t xs, ts, group;
	int64_t at;                  /* when t's hold ended (0 not said) */
	int pass;                    /* index in discovery.passes */
};

struct discovery {
	struct cluster_opts *o;
	char **names;
	int n;
	struct pass *base;
	struct pass **passes;        /* the throttled ones, in order */
	int npasses, cpasses;
	struct pnode *bt;            /* the base pass, read (passmerge.c) */
	struct mnode *m;             /* per node: its file, its waits */
	struct dedge *msg;           /* message edges, by (x, xs) */
	size_t nmsg, cmsg;
	struct dobs *obs;
	size_t nobs, cobs;
	size_t by_origin[4], unsure; /* edges written, by DEP_* */
};

/* Is there a message edge into node x's I/O xs (from node t; -1 any)? */
int discover_has_message(const struct discovery *d, int x, uint64_t xs, int t);
/* (msgedges.c) sorts the message edges, once they are all in */
void discover_sort_messages(struct discovery *d);
typedef void (*gt_emit)(struct discovery *d, int x, uint64_t xs, int t, uint64_t ts,
			int origin, int unsure);
/* The waits the passes saw, decided (groups.c): each an edge to emit. */
void gt_resolve(struct discovery *d, gt_emit emit);
/* The candidates of the waits not tied to one node: all (after the group
 * pass), or those the bit passes left unsure. */
uint64_t gt_candidates(struct discovery *d, int after_bits);

/* What the capture itself reads back from traces: per node the watchdog
 * maxima and the I/O sequence (--watchdog-from, --discover). */

/* Polling (issue 17, polling.c): I/Os whose number varies from run to
 * run with timing, set aside when passes are compared. */
enum tr_poll {
	POLL_NONE = 0,
	POLL_FAIL,                   /* the call failed */
	POLL_ATTEMPT,                /* socket and close of a failed attempt */
	POLL_RETRY,                  /* a process that failed and was run again,
					and what its parent ran between */
	POLL_REPEAT,                 /* a look repeated with the same result */
	POLL_KERNEL,                 /* /proc, /sys: the kernel's state, read
					when a timer or a monitor says */
	POLL_WAKEUP,                 /* a read or write of a descriptor the
					capture never saw made (eventfd) */
	POLL_RUNTIME,                /* Open MPI's own files: whichever rank
					comes first makes them */
	POLL_STOPPED,                /* ended after the node was told to stop
					(a server's SIGTERM): when it comes is
					ours, which call it interrupts timing */
};

struct tr_io {
	uint64_t seq;
	char *what;                  /* "api res path-or-peer", to compare passes */
	int poll;                    /* enum tr_poll */
	/* what polling.c looks at */
	int proc;                    /* index in tr_node.procs */
	int thr;                     /* the node's thread, in trace order */
	int32_t tid, fd;
	int failed;
	int64_t result;              /* the result attribute, or 0 */
	int64_t start, end;          /* ns, node time */
	int64_t amount;              /* bytes moved (the amount attribute) */
	char *local;                 /* a connect's or accept's own address */
};

struct tr_proc {
	int32_t pid, ppid;
	char *exe;
	int ok;                      /* status exit:0 (or none recorded) */
	int64_t start, end;          /* ns */
};

struct tr_wait {
	uint64_t xseq;               /* before this node's I/O xseq ... */
	char *tnode;                 /* ... wait for tnode's I/O tseq */
	uint64_t tseq;
};

struct tr_node {
	char *name, *host;
	struct tr_wait *waits;
	size_t nwaits, wcap;
	size_t npending;             /* waits not yet followed by their io */
	int64_t max_gap;             /* longest time between two I/O completions
					of a thread (or its start and first I/O), ns */
	int64_t end;                 /* ns */
	int64_t stopped;             /* a SIGTERM passed on to it, ns; -1 never */
	int64_t epoch;               /* its start, ns since 1970 (aligned) */
	int mpi;                     /* an MPI rank */
	int incomplete;              /* its trace says complete="false" */
	char **locals;               /* its sockets' own addresses (connect's and
					accept's local=): who is at the other end
					of another node's socket */
	size_t nlocals, lcap;
	char **fifos;                /* its files that were named pipes
					(<file type="fifo">), sorted */
	size_t nfifos, fcap;
	struct tr_io *io;            /* in trace order until tr_find() */
	size_t nio, cap;
	struct tr_proc *procs;
	size_t nprocs, pcap;
};

/* Read every node of a trace, its polling I/Os marked; -1 with a
 * FILE:LINE message (the trace library's) on bad input. */
int tr_scan(const char *file, struct tr_node **nodes, int *nnodes);
void tr_scan_free(struct tr_node *nodes, int nnodes);
/* Mark a node's polling I/Os (trace order); polling.c. */
void polling_mark(struct tr_node *n);
/* The path or peer an I/O names ("" none), and whether it is an address
 * "HOST:PORT" (polling.c). */
const char *tr_target(const struct tr_io *io);
int tr_is_address(const char *t);
/* Whether PATH was a named pipe of node N's (<file type="fifo">). */
int tr_is_fifo(const struct tr_node *n, const char *path);
/* Name of a mark, for the trace's poll attribute ("" for none). */
const char *polling_name(int poll);
struct tr_node *tr_find(struct tr_node *nodes, int nnodes, const char *name);

#endif
