/* Capture sessions, the island-capture side: create or join the session
 * file, register the node, read the dependencies found, clean up. */
#ifndef ISLAND_SESSION_H
#define ISLAND_SESSION_H

#include <pthread.h>
#include <stdint.h>

#include "spool.h"
#include "capture/session/sesskey.h"

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

/* Sessions across hosts: the agent that mirrors other hosts' nodes into
 * the local session file, and the coordinator that relays between them. */

struct agent {
	struct session *s;
	int idx;                     /* our node's slot */
	int fd;                      /* to the coordinator */
	pthread_t th;
	volatile int done, drain;
	int64_t until;               /* at the end, wait for the others until */
	uint32_t sent;               /* dependencies forwarded so far */
	uint32_t heard;              /* the most holds of another host's node */
	int64_t heard_at;            /* known since (mono ns) */
	/* the coordinator's clock minus ours, from the probe with the
	 * shortest round trip (NTP's estimate) */
	int probes, answers;
	int64_t offset, best_rtt, last_probe;
	uint8_t key[SESSKEY_LEN];    /* the session's shared key */
	const char *key_file;
	int have_key;                /* 0: none yet (we may start the session) */
};

/* Load the session's key from KEY_FILE (NULL: sesskey_default_path()),
 * before the node joins: a bad key file ends the capture right away. */
void agent_key(struct agent *ag, const char *key_file);

/* Connect to the coordinator of HOST:PORT (starting it when nobody
 * listens there and the address is ours, and making the key file when
 * there is none), authenticate both ways and start mirroring. */
int agent_start(struct agent *ag, const char *hostport, struct session *s, int idx);
void agent_stop(struct agent *ag);

#endif
