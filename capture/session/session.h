/* Capture sessions, the island-capture side: create or join the session
 * file, register the node, read the dependencies found, clean up. */
#ifndef ISLAND_SESSION_H
#define ISLAND_SESSION_H

#include "spool.h"

struct sess_opts {
	const char *name;            /* session name */
	const char *throttle;        /* the throttled node, or NULL */
	int period;
	double delay;                /* seconds */
	double hold_timeout;         /* seconds */
	double max_gap;              /* watchdog maximum, seconds */
	int nodes;                   /* nodes to wait for before a hold, 0 none */
};

extern const char *session_dir;    /* where session files live */
char *session_path(const char *name);
/* Open (creating if needed) the session file; NULL with a message. */
struct session *session_open(const char *name, int create, int owner);
/* Register node `node`; its index, or -1 with a message. */
int session_join(struct session *s, const char *node, const struct sess_opts *o);
/* The node's app is done; unlink the file when the last node is out and
 * no runner owns it. */
void session_leave(struct session *s, int idx, const char *name);
void session_close(struct session *s);
/* The joined file is still the session's (not unlinked meanwhile). */
int session_current(struct session *s, const char *name);
void session_unjoin(struct session *s, int idx);
/* flock of the file at the session's path (LOCK_SH, LOCK_EX), or -1. */
int session_lock(const char *name, int how);
void session_unlock(int fd);
struct cap_node;
struct cdep;
/* This node's waits and signals, from the session's dependency log. */
void session_deps(struct session *s, int idx, struct cap_node *n);
size_t cdep_normalise(struct cdep *d, size_t n);

#endif
