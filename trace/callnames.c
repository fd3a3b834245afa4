/* The names of trace/calls.def's calls, and a name's call (trace/calls.h);
 * the resource classes' names (island-trace.h). */
#include "calls.h"
#include "island-trace.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

const char *const trace_call_names[TCALL_N] = {
#define CALL(id, api, res, amount, effect) [TCALL_##id] = api,
#include "trace/calls.def"
#undef CALL
};

/* A name's first row, by the name's hash (open addressing, at most half
 * full): the validator looks up every <io>'s api, by its text. */
#define NAME_BITS 10
_Static_assert(TCALL_N * 2 <= 1 << NAME_BITS, "by_name at most half full");
static int by_name[1 << NAME_BITS];	/* id + 1, 0 free */

static unsigned name_slot(const char *api)
{
	uint32_t h = 2166136261u;

	for (const char *p = api; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	h = (h * 0x9E3779B9u) >> (32 - NAME_BITS);
	while (by_name[h] && strcmp(trace_call_names[by_name[h] - 1], api))
		h = (h + 1) & ((1 << NAME_BITS) - 1);
	return h;
}

static void index_once(void)
{
	for (int i = 0; i < TCALL_N; i++) {
		unsigned h = name_slot(trace_call_names[i]);

		if (!by_name[h])	/* the first of its name */
			by_name[h] = i + 1;
	}
}

int trace_call_by_name(const char *api)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, index_once);
	return by_name[name_slot(api)] - 1;
}

const char *const trace_res_names[TRACE_RES_N] = {
	"fileread", "filewrite", "filemeta", "netsend", "netrecv",
	"netmeta", "sleep", "wait", "proc", "sys",
};

int trace_res_from_name(const char *s)
{
	for (int i = 0; i < TRACE_RES_N; i++)
		if (!strcmp(s, trace_res_names[i]))
			return i;
	return -1;
}
