#ifndef ISLAND_CLAIM_H
#define ISLAND_CLAIM_H

/* Claim the trace file OUT until we exit; another capture holding it: a
 * one-line error naming it, exit 2. */
void claim_output(const char *out);

#endif
