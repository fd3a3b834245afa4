/* Resource restrictions: what the user asked for, from options and from
 * a Repy restrictions file. */
#ifndef ISLAND_RESTRICT_H
#define ISLAND_RESTRICT_H

#include "spool.h"

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

#endif
