/* What the command's folder offers the rest of the capture: the
 * restrictions asked for and the stop log of the CPU restriction (the
 * node's model keeps both), --profile's options, --user. */
#ifndef ISLAND_RUN_H
#define ISLAND_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "spool.h"

/* Resource restrictions: what the user asked for, from options and from
 * a Repy restrictions file. */

struct restrictions {
	double cpu;                  /* share of one CPU, 0 = unlimited */
	double rate[LIM_N];          /* bytes per second, 0 = unlimited */
	double period;               /* seconds between CPU checks */
};

extern const char *const limit_names[LIM_N];

/* Parse a value given to --cpu or --fileread...: exits on bad input. */
void restrict_set(struct restrictions *r, const char *resource, const char *value,
		  const char *file, long line);
/* Read a Repy restrictions file: "resource NAME VALUE" lines, # comments. */
void restrict_load(struct restrictions *r, const char *path);
int restrict_any_rate(const struct restrictions *r);

/*
 * The stop log: when the monitor stopped the whole app, and for how long.
 * Fixed-size records, the newest ones in memory, the rest appended to a
 * file, so that the stops of any interval are found by binary search in
 * bounded memory however long the run (Island's stoptime logger).
 */

struct stop {
	int64_t start, dur;          /* ns since the node's start */
};

struct stoplog {
	int fd;                      /* file of the older records, -1 none yet */
	char *path;
	size_t on_file;              /* records in the file */
	struct stop *mem;            /* records after them */
	size_t in_mem, cap;
};

int stoplog_open(struct stoplog *l, const char *path, size_t mem_records);
int stoplog_add(struct stoplog *l, int64_t start, int64_t dur);
size_t stoplog_count(const struct stoplog *l);
int stoplog_get(const struct stoplog *l, size_t i, struct stop *s);
/* Index of the first stop that ends after t (count if none). */
size_t stoplog_find(const struct stoplog *l, int64_t t);
void stoplog_close(struct stoplog *l);
void stoplog_free(struct stoplog *l);

/* island-capture --profile: the options, their named sets, the control
 * page in the spool directory and --control from another terminal. */

struct prof_opts {
	int enabled;
	int values;                  /* PV_* */
	int hz, depth;
	int64_t alloc_every;
	int start_on;
	const char *save_as;         /* --profile-save NAME */
	const char *load;            /* --profile=@NAME */
	unsigned set;                /* which fields the command line gave */
};

enum { PO_PROFILE, PO_HZ, PO_ALLOC, PO_DEPTH, PO_START, PO_SAVE };

/* One option of the command line; the value is NULL for --profile alone. */
void prof_option(struct prof_opts *p, int which, const char *value);
/* After the command line: a named set loaded, --profile-save done.
 * Returns 1 when there is nothing to run (only a save). */
int prof_finish(struct prof_opts *p, int have_program);
/* The control page in the spool directory; kept mapped by island-capture
 * so that --control finds it by our pid too. */
struct prof_ctl *prof_page(const struct prof_opts *p, const char *spool);
/* island-capture --control PID on|off: exits. */
int prof_control(const char *pid, const char *state);
/* What the trace says of the profile: "cpu,wall,alloc" etc. */
const char *prof_values_name(int values);

/* --user, and a cluster node's user=: the app run as another user, and
 * the capture's files and the node's directories opened to that user
 * alone (ACLs, acl.h; docs/design.md, Privilege changes). */

struct runas {
	const char *name;
	uid_t uid;
	gid_t gid;
};

/* NAME (a user name or a number) looked up; exits 2 with a message when
 * there is no such user or we are not root. */
void runas_lookup(struct runas *r, const char *name);
/* PATH given perm (rwx bits) for the user, each directory above it
 * that not every user may pass made passable (x) for the user: 0, or
 * -1 (errno) */
int runas_grant(const struct runas *r, const char *path, unsigned perm);
/* The spool's files, the session file, the ISLAND_SHARE directories:
 * what the interposer opens in the app's images (privdrop.c) */
int runas_grant_capture(const struct runas *r, const char *spool, const char *session);
/* In the app's child, before its exec: the user's groups, gid, uid */
int runas_become(const struct runas *r);

#endif
