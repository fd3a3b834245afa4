/* A spool left by an island-capture that was killed (SIGKILL, the OOM
 * killer): what it needs to become a trace, and --recover. */
#ifndef ISLAND_RECOVER_H
#define ISLAND_RECOVER_H

struct cap_node;

#define RECOVER_INFO "node.info"     /* in the spool directory */

/* Write SPOOL/node.info: our pid, the node's name, host, command and
 * clock, all a later --recover needs besides the records. */
int recover_note(const char *spool, const struct cap_node *n);

/* Create SPOOL/arena and hold its mutex while we run (capture/spool.h);
 * *budget: the bytes its pages may take (half the space free there). */
int arena_hold(const char *spool, uint64_t *budget);

/* --recover [SPOOL] -o OUTPUT (SPOOL NULL: the newest abandoned spool of
 * ours under PARENT), or with LIST the abandoned spools. Exit status. */
int recover_main(const char *spool, const char *parent, int list,
		 const char *output, int comp);

#endif
