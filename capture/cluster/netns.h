/* The cluster's network namespaces, bridge and veths, made with iproute2's
 * `ip` run with an argv (never a shell), and named after the runner's pid
 * so that `island-capture --cleanup` can tell a dead run's leftovers:
 *   namespace isl-PID-I, bridge islbr-PID, veth pair isvPIDxIa / isvPIDxIb. */
#ifndef ISLAND_NETNS_H
#define ISLAND_NETNS_H

#define NETNS_DIR "/var/run/netns"

/* The bridge the nodes' veths join; 0, or -1 after a message. */
int netns_bridge_up(long owner);
/* Node i's namespace, its veth on the bridge, address "A.B.C.D/LEN" and lo
 * up; 0, or -1 after a message (what was made is left for netns_down). */
int netns_node_up(long owner, int i, const char *address);
/* Remove node i's namespace (and with it its veth pair). */
void netns_node_down(long owner, int i);
void netns_bridge_down(long owner);
/* NETNS_DIR/isl-PID-I, to setns() into. */
char *netns_path(long owner, int i);

/* --cleanup: remove the namespaces, bridges and veths whose runner is gone;
 * the number of failures. */
int netns_cleanup(void);

#endif
