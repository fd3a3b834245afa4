/* The one validator of trace values, called by the trace library's reader
 * (trace/readxml.c) for every element, whichever tool reads: all refuse the
 * same inputs with the same message. A table of rules (element,
 * attribute, type, range, required) from docs/trace-format.md, and an
 * <io>'s call's row of trace/calls.def (its res, its amount). The
 * message helpers below are for the checks tools make beyond the reader
 * (the replay's and deps' sequence numbers). */
#ifndef ISLAND_VALIDATE_H
#define ISLAND_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

/* Times are at most 2^62 - 1 ns (146 years): a node's epoch (ns since
 * 1970) plus its times, or the sum of two times, cannot overflow. */
#define VTIME_MAX (((int64_t)1 << 62) - 1)
/* One call's bytes: 1 TiB (Linux moves at most 2 GiB per read or write;
 * stdio's fwrite may say more). Replaying more would take hours. */
#define VBYTES_MAX ((int64_t)1 << 40)
/* Totals, offsets and results. */
#define VBIG_MAX VTIME_MAX
/* I/O sequence numbers (replay keeps them in 32 bits). */
#define VSEQ_MAX INT32_MAX
/* Attributes of one element the readers keep. */
#define VMAXATTR 40

struct vattr {
	const char *name, *value;
	int64_t num;	/* set by the validator: a time's ns, an integer, a
			 * res's index in trace_res_names */
};

/* What a whole trace adds up to: durations (io, compute, region, stop,
 * thread span and cpu) and quantities (bytes, counts), each kept at most
 * VTIME_MAX so that a report's sum of any of them cannot overflow. */
struct vtotals {
	int64_t ns, amounts;
};

/* Check <el>'s n attributes: numbers well-formed and in range (their
 * values then in num: no need to parse again), required ones present, end
 * not before start. 0, or -1 with the one-line problem
 * (without FILE:LINE) in msg. Elements without rules pass. */
int validate_element(const char *el, struct vattr *a, int n,
		     struct vtotals *tot, char *msg, size_t len);
/* Names are cached by pointer: el and attribute names must be one
 * dictionary's strings (libxml2's: one pointer per name) from one reset
 * to the next; reset with each new parser. */
void validate_reset(void);
/* The messages for a seq past the count of its node's numbered I/O, and
 * for a <wait> on an I/O its node does not have. */
void validate_seq_range(const char *node, uint64_t seq, uint64_t n, char *msg, size_t len);
void validate_wait_range(const char *node, uint64_t seq, uint64_t n, char *msg, size_t len);
/* The message for a node name seen twice in a run. */
void validate_dup_node(const char *name, char *msg, size_t len);
/* The message for <el> where it may not be (parent "" : top level). */
void validate_misplaced(const char *el, const char *parent, char *msg, size_t len);
/* What the rules make of <el>'s attribute name: 'T' a time (seconds), 'I'
 * an integer, 0 text (or no rule). */
int validate_type(const char *el, const char *name);

#endif
