/* What the capture itself reads back from traces: per node the watchdog
 * maxima and the I/O sequence (--watchdog-from, --discover). */
#ifndef ISLAND_TRACEREAD_H
#define ISLAND_TRACEREAD_H

#include <stddef.h>
#include <stdint.h>

struct tr_io {
	uint64_t seq;
	char *what;                  /* "api res path-or-peer", to compare passes */
};

struct tr_wait {
	uint64_t xseq;               /* before this node's I/O xseq ... */
	char *tnode;                 /* ... wait for tnode's I/O tseq */
	uint64_t tseq;
};

struct tr_node {
	char *name;
	struct tr_wait *waits;
	size_t nwaits, wcap;
	size_t npending;             /* waits not yet followed by their io */
	int64_t max_gap;             /* longest time between two I/O completions
					of a thread (or its start and first I/O), ns */
	int64_t end;                 /* ns */
	struct tr_io *io;
	size_t nio, cap;
};

/* Read every node of a trace; -1 with a FILE:LINE message on bad input. */
int trace_scan(const char *file, struct tr_node **nodes, int *nnodes);
void trace_scan_free(struct tr_node *nodes, int nnodes);
struct tr_node *trace_node(struct tr_node *nodes, int nnodes, const char *name);

#endif
