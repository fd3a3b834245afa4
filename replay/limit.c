/* --limit NODE:RESOURCE=RATE: replay a node under the capture's rate
 * limits (Repy's rule, as island-capture --filewrite & co.): usage drains
 * at RATE bytes per second; a call that leaves usage above RATE is held
 * (usage - RATE) / RATE seconds. So a replay can answer "what if this node
 * had a slower disk" with the causality of the others intact. */
#include "exec.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static const struct { const char *name; int res; } resources[] = {
	{ "fileread", RES_FILEREAD }, { "filewrite", RES_FILEWRITE },
	{ "netsend", RES_NETSEND }, { "netrecv", RES_NETRECV },
};
#define NRES (sizeof(resources) / sizeof(*resources))

struct limit {
	const char *node;
	int res;
	double rate;
	double usage;
	int64_t last;
};

static struct limit *limits;
static size_t nlimits, lcap;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* "node2:filewrite=100000"; 0 or -1. A node's name may hold ':' (-n
 * n:1): the resource is after the last one before '='. */
int limit_add(const char *spec)
{
	const char *eq = strchr(spec, '='), *colon = NULL;

	for (const char *p = spec; eq && p < eq; p++)
		if (*p == ':')
			colon = p;
	if (!colon || !eq || colon == spec)
		return -1;
	for (size_t i = 0; i < NRES; i++) {
		size_t n = strlen(resources[i].name);
		if ((size_t)(eq - colon - 1) != n || strncmp(colon + 1, resources[i].name, n))
			continue;
		double rate;	/* 64k, 10M, 1G: common/size.c */
		if (parse_size(eq + 1, &rate) || !(rate > 0))
			return -1;
		XGROW(limits, lcap, nlimits + 1);
		limits[nlimits++] = (struct limit){ .node = xasprintf("%.*s", (int)(colon - spec), spec),
						   .res = resources[i].res, .rate = rate };
		return 0;
	}
	return -1;
}

/* The node names given must exist. */
const char *limit_check(const struct trace *t)
{
	for (size_t i = 0; i < nlimits; i++)
		if (node_index(t, limits[i].node) < 0)
			return limits[i].node;
	return NULL;
}

/* After a call moved `bytes` of resource res on node: how long to hold
 * it, in ns. Each node is one process: the state is that process's. */
int64_t limit_hold(const char *node, int res, int64_t bytes)
{
	int64_t hold = 0;

	if (!nlimits || bytes <= 0)
		return 0;	/* before the clock: this is on every call's path */
	int64_t now = rnow_ns();
	pthread_mutex_lock(&mu);
	for (size_t i = 0; i < nlimits; i++) {
		struct limit *l = &limits[i];
		if (l->res != res || strcmp(l->node, node))
			continue;
		if (l->last)
			l->usage -= l->rate * (double)(now - l->last) / 1e9;
		if (l->usage < 0)
			l->usage = 0;
		l->usage += (double)bytes;
		l->last = now;
		if (l->usage > l->rate) {
			int64_t h = (int64_t)((l->usage - l->rate) / l->rate * 1e9);
			if (h > hold)
				hold = h;
		}
	}
	pthread_mutex_unlock(&mu);
	return hold;
}
