/* Sessions across hosts: the agent that mirrors other hosts' nodes into
 * the local session file, and the coordinator that relays between them. */
#ifndef ISLAND_COORDINATOR_H
#define ISLAND_COORDINATOR_H

#include <pthread.h>
#include <stdint.h>

#include "sesskey.h"
#include "spool.h"

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
