/* The names of trace/calls.def's calls, and a name's call (trace/calls.h);
 * the resource classes' names (island-trace.h). */
#include "calls.h"
#include "island-trace.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

const char *const trace_call_names[TCALL_N] = {
#define CALL(id, api, res, amount, effect) [TCALL_##id] = api,
#include "trace/calls.def"
#undef CALL
};

static int by_name[TCALL_N];	/* ids sorted by name, then id */

static int cmp_id(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	int c = strcmp(trace_call_names[x], trace_call_names[y]);

	return c ? c : x - y;
}

static void sort_once(void)
{
	for (int i = 0; i < TCALL_N; i++)
		by_name[i] = i;
	qsort(by_name, TCALL_N, sizeof(*by_name), cmp_id);
}

int trace_call_by_name(const char *api)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	int lo = 0, hi = TCALL_N;

	pthread_once(&once, sort_once);
	/* the first of its name */
	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (strcmp(trace_call_names[by_name[mid]], api) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < TCALL_N && !strcmp(trace_call_names[by_name[lo]], api) ? by_name[lo] : -1;
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
