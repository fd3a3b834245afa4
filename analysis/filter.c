/* filter: the selection every report honours, applied once in the reader
 * so that no report has to know about it.
 *   --node N, --thread TID    whole threads (and their calls, computes,
 *                             regions, dependencies) are skipped;
 *   --from S, --to S          calls, computes and regions whose start lies
 *                             in [S, S') seconds from the run's start;
 *   --path GLOB, --call LIST  calls (and, for --path, the <files> rows).
 * A filter that matches no call is not an error: the report prints an
 * empty table and the reader one warning line. */
#include "analyze.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

struct filter filt;

/* Every call name the capture writes (capture/calls.def), to refuse a
 * misspelt --call instead of printing an empty table. */
static const char *const known_calls[] = {
#define CALL(id, api, res, amount, effect) api,
#include "../capture/calls.def"
#undef CALL
};
#define NKNOWN (sizeof(known_calls) / sizeof(known_calls[0]))

static bool known_call(const char *name)
{
	for (size_t i = 0; i < NKNOWN; i++)
		if (!strcmp(known_calls[i], name))
			return true;
	return false;
}

void filter_set_calls(const char *list)
{
	char *s = xstrdup(list), *save = NULL;

	for (char *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!known_call(tok))
			die(2, "--call: unknown call '%s' (names as in the trace's api attribute)", tok);
		XGROW(filt.calls, filt.capcalls, filt.ncalls + 1);
		filt.calls[filt.ncalls++] = tok;
	}
	if (!filt.ncalls)
		die(2, "--call: no call name in '%s'", list);
	filt.active = true;
}

void filter_set_time(bool to, const char *v)
{
	int64_t ns;

	if (parse_sec(v, &ns))
		die(2, "--%s: '%s' is not a number of seconds", to ? "to" : "from", v);
	if (to) {
		filt.to = ns;
		filt.has_to = true;
	} else {
		filt.from = ns;
		filt.has_from = true;
	}
	if (filt.has_from && filt.has_to && filt.to <= filt.from)
		die(2, "--to must be after --from");
	filt.active = true;
}

void filter_set_thread(const char *v)
{
	char *end;
	long tid = strtol(v, &end, 10);

	if (*end || end == v || tid <= 0)
		die(2, "--thread: '%s' is not a thread id", v);
	filt.tid = tid;
	filt.has_tid = true;
	filt.active = true;
}

void filter_set_node(const char *v)
{
	filt.node = v;
	filt.active = true;
}

void filter_set_path(const char *v)
{
	filt.path = v;
	filt.active = true;
}

bool filter_timed(void)
{
	return filt.has_from || filt.has_to;
}

bool filter_node(const struct trace_node *n)
{
	return !filt.node || !strcmp(filt.node, n->name);
}

bool filter_thread(const struct trace_thread *t)
{
	return filter_node(t->node) && (!filt.has_tid || t->tid == filt.tid);
}

/* start: node time; the window is in seconds from the run's start. */
bool filter_time(const struct trace_run *run, const struct trace_node *n, int64_t start)
{
	int64_t t = start + n->off - run->t0;

	return (!filt.has_from || t >= filt.from) && (!filt.has_to || t < filt.to);
}

bool filter_path(const char *path)
{
	return !filt.path || (path && !fnmatch(filt.path, path, 0));
}

bool filter_io(const struct trace_run *run, const struct trace_thread *t, const struct trace_io *io)
{
	bool ok = filter_time(run, t->node, io->start) &&
		  (filter_path(io->path) || (filt.path && filter_path(io->inpath)));

	if (ok && filt.ncalls) {
		size_t i;

		for (i = 0; i < filt.ncalls; i++)
			if (!strcmp(filt.calls[i], io->api))
				break;
		ok = i < filt.ncalls;
	}
	filt.examined++;
	filt.matched += ok;
	return ok;
}

/* A row of a node's <files>: only --node and --path apply. */
bool filter_file(const struct trace_node *n, const char *path)
{
	bool ok = filter_node(n) && filter_path(path);

	if (filt.path) {
		filt.examined++;
		filt.matched += ok;
	}
	return ok;
}

/* Once, after the traces were read. */
void filter_done(void)
{
	if (filt.active && filt.examined && !filt.matched && !filt.warned) {
		filt.warned = true;
		warnx("warning: no call matched the filters");
	}
}

/* sums and ttx split by node or by thread only. */
void by_node_or_thread(const char *report)
{
	if (opt.by && strcmp(opt.by, "node") && strcmp(opt.by, "thread"))
		die(2, "%s: --by %s: only node or thread", report, opt.by);
}
