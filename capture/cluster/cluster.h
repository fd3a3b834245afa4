/* Running a whole session from a cluster file (docs/cluster-format.md),
 * once, or with --discover: an unthrottled pass and one throttled pass
 * per node, merged into one trace annotated with WAIT and SIGNAL. */
#ifndef ISLAND_CLUSTER_H
#define ISLAND_CLUSTER_H

struct cluster_opts {
	const char *file, *output, *throttle_nodes, *self;
	const char *passes_dir;      /* keep each pass's traces and data here */
	int discover, gzip, period, keep;
	double delay, hold_timeout, factor, timeout;
	int pcap, pcap_optional;     /* --pcap passed on to every node */
	const char *pcap_iface;
	char **node_args;            /* the command line's node-capture options,
					for every node's capture; NULL-ended */
};

/* One run of every node. */
struct pass {
	const char *name;            /* "unthrottled", "throttle-NODE", "run" */
	const char *throttle;        /* the throttled node, or NULL */
	char *session, *dir, *scratch;
	const char *watchdog_dir;    /* throttled: the unthrottled pass's traces */
	int port;
	int mpirun;                  /* the pid of its mpirun, 0 without <mpi> */
	const char *incomplete;      /* "timeout": --timeout stopped its nodes */
	double seconds;
};

int cluster_run(struct cluster_opts *o);
/* --cleanup: remove the leftovers of this user's dead runs (cleanup.c);
 * 0, or 1 when one could not be removed. */
int cleanup_leftovers(void);
/* Check the passes, gather their waits, write the merged trace. */
int discover_merge(struct cluster_opts *o, char **names, int n, struct pass *base,
		   struct pass **thr, int nthr);
/* An I/O's "API CLASS TARGET" as it must be the same in every pass (the
 * names the pass gave set aside); malloc'd. */
char *discover_io_key(const char *what, const struct pass *p);

#endif
