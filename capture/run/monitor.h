/* The CPU-share monitor: stops and resumes the whole app (every process
 * of it) so that it gets at most a share of one CPU, and logs each stop. */
#ifndef ISLAND_MONITOR_H
#define ISLAND_MONITOR_H

#include <pthread.h>
#include <sys/types.h>

#include "capture/run/run.h"

struct monitor {
	double share;                /* of one CPU */
	int64_t period;              /* ns between checks */
	const char *spool;           /* the app's pids are its spool files */
	pid_t root;
	int64_t mono0;               /* the node's start */
	struct stoplog *log;
	/* private */
	pthread_t th;
	volatile int done;
	struct pidcpu { pid_t pid; int64_t cpu; int alive; } *pids;
	size_t npids, cap;
	int64_t stopped;             /* total ns stopped */
};

int monitor_start(struct monitor *m);
void monitor_stop(struct monitor *m);

#endif
