/* The calls of trace/calls.def by id, for the tools that read traces:
 * a call's name in a trace is looked up once, and what a tool knows of
 * the call (the replay's rule: trace/replay.def) is keyed by its id. */
#ifndef ISLAND_TRACE_CALLS_H
#define ISLAND_TRACE_CALLS_H

enum trace_call {
#define CALL(id, api, res, amount, effect) TCALL_##id,
#include "trace/calls.def"
#undef CALL
	TCALL_N
};

/* the name each call is written with */
extern const char *const trace_call_names[TCALL_N];
/* the call written as api (the first row of that name), or -1 */
int trace_call_by_name(const char *api);

#endif
