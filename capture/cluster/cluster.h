/* Running a whole session from a cluster file (docs/cluster-format.md),
 * once, or with --discover: an unthrottled pass and one throttled pass
 * per node, merged into one trace annotated with WAIT and SIGNAL. */
#ifndef ISLAND_CLUSTER_H
#define ISLAND_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

struct sess_dep;

struct cluster_opts {
	const char *file, *output, *throttle_nodes, *self;
	const char *passes_dir;      /* keep each pass's traces and data here */
	int discover, gzip, period, keep;
	int max_passes;              /* --passes: 0 as many as needed */
	int one_by_one;              /* a pass per node, no group passes */
	int nodes;                   /* the cluster's, once read */
	double delay, hold_timeout, factor, timeout;
	int pcap, pcap_optional;     /* --pcap passed on to every node */
	const char *pcap_iface;
	char **node_args;            /* the command line's node-capture options,
					for every node's capture; NULL-ended */
};

/* One run of every node. */
struct pass {
	const char *name;            /* "unthrottled", "throttle-NODE", "run" */
	const char *throttle;        /* the throttled node(s) "A,B", or NULL */
	char *session, *dir, *scratch;
	uint64_t mask;               /* the throttled nodes, by index */
	int kind;                    /* PASS_GROUP, PASS_BIT, PASS_SINGLE */
	const char *why;             /* for the report */
	struct sess_dep *deps;       /* the session's dependency log, copied */
	size_t ndeps;
	const char *watchdog_dir;    /* throttled: the unthrottled pass's traces */
	int port;
	int mpirun;                  /* the pid of its mpirun, 0 without <mpi> */
	const char *incomplete;      /* "timeout": --timeout stopped its nodes */
	double seconds;
};

enum { PASS_GROUP = 1, PASS_BIT, PASS_SINGLE };

int cluster_run(struct cluster_opts *o);
/* --cleanup: remove the leftovers of this user's dead runs (cleanup.c);
 * 0, or 1 when one could not be removed. */
int cleanup_leftovers(void);
/* Check the passes, gather their waits, write the merged trace. */
int discover_merge(struct cluster_opts *o, char **names, int n, struct pass *base,
		   struct pass **thr, int nthr);
/*
 * The same, a pass at a time (passmerge.c): begin with the unthrottled pass
 * (its message edges), add each throttled pass as it ends (checked, its
 * dependency log moved onto the base pass's numbers), ask which nodes
 * the waits seen so far may be for (groups.c), then write.
 */
struct discovery;
struct discovery *discover_begin(struct cluster_opts *o, char **names, int n,
				 struct pass *base);
int discover_add(struct discovery *d, struct pass *p);
/* The nodes that some wait not yet tied to one node may be for. */
uint64_t discover_undecided(struct discovery *d);
/* Once the group passes ran: the nodes some wait is still unsure of. */
uint64_t discover_unsure(struct discovery *d);
/* How many message edges of the unthrottled pass leave node i. */
int discover_fan_out(const struct discovery *d, int i);
/* Resolve, write the merged trace, free d; 0 or -1. */
int discover_write(struct discovery *d);
/* An I/O's "API CLASS TARGET" as it must be the same in every pass (the
 * names the pass gave set aside); malloc'd. */
char *discover_io_key(const char *what, const struct pass *p);

#endif
