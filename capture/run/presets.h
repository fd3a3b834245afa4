/* island-capture --profile: the options, their named sets, the control
 * page in the spool directory and --control from another terminal. */
#ifndef ISLAND_PROFILE_H
#define ISLAND_PROFILE_H

#include <stdint.h>

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

#endif
