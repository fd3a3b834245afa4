/* filter: the selection every report honours, applied once in the reader
 * so that no report has to know about it.
 *   --node N, --thread TID    whole threads (and their calls, computes,
 *                             regions, dependencies) are skipped;
 *   --from S, --to S          calls, computes and regions whose start lies
 *                             in [S, S') seconds from the run's start;
 *   --path GLOB, --call LIST  calls (and, for --path, the <files> rows).
 * The reports of time (consumption, ttx, utilization) account instants,
 * not calls: they see every call of the selected threads and count only
 * the time inside the window and, with --call or --path, inside the
 * selected calls (filter_select()), so that what a filter leaves out is
 * counted nowhere rather than as computing.
 * sockets and regions print rows that are not calls: a socket's row
 * totals a node's whole run, so only --node selects sockets; --path and
 * --call select no region.
 * A filter that matches nothing is not an error: the report prints an
 * empty table and the reader one warning line, naming the --node or
 * --thread that matched no node or thread, else what the report examined
 * (calls, files, regions, sockets) that no filter let through. */
#include "analyze.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

struct filter filt;

/* Every call name the capture writes (trace/calls.def), to refuse a
 * misspelt --call instead of printing an empty table. */
static const char *const known_calls[] = {
#define CALL(id, api, res, amount, effect) api,
#include "trace/calls.def"
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

/* --node for a report that reads every node and selects itself (deps: a
 * wait's other end is another node's call): NULL when none was given */
const char *filter_take_node(void)
{
	const char *v = filt.node;

	filt.node = NULL;
	return v;
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

/* Count one item the report was offered, for filter_done()'s warning;
 * calls are named first, they are what the filters are about. */
static bool seen(const char *what, bool ok)
{
	if (!filt.what || !strcmp(what, "call"))
		filt.what = what;
	filt.examined++;
	filt.matched += ok;
	return ok;
}

/* The filters that select calls: a row that totals calls (a socket) or
 * is no call (a region) cannot satisfy them. */
static bool selects_calls(void)
{
	return filt.path || filt.ncalls;
}

void filter_rows_not_calls(void)
{
	filt.rows_not_calls = true;
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

static bool filter_calls(const struct trace_io *io)
{
	bool ok = true;

	if (filt.ncalls) {
		size_t i;

		for (i = 0; i < filt.ncalls; i++)
			if (!strcmp(filt.calls[i], io->api))
				break;
		ok = i < filt.ncalls;
	}
	return ok;
}

/* A report of time clips a call to the window instead: it counts as
 * examined when it overlaps it. */
static bool overlaps(const struct trace_node *n, const struct trace_io *io)
{
	struct sel s;

	filter_select(&s, n);
	return io->start < s.hi && (io->end > s.lo || io->start >= s.lo);
}

bool filter_io(const struct trace_run *run, const struct trace_thread *t, const struct trace_io *io)
{
	bool ok = filter_path(io->path) || (filt.path && filter_path(io->inpath));

	if (filt.every_call) {
		filt.selected = ok && filter_calls(io);
		return seen("call", filt.selected && overlaps(t->node, io));
	}
	return seen("call", ok && filter_time(run, t->node, io->start) && filter_calls(io));
}

void filter_select(struct sel *s, const struct trace_node *n)
{
	int64_t base = filt.run ? filt.run->t0 - n->off : 0;

	s->on = filt.every_call && (filter_timed() || selects_calls());
	s->calls = selects_calls();
	s->out = false;
	s->lo = filt.has_from ? base + filt.from : INT64_MIN;
	s->hi = filt.has_to ? base + filt.to : INT64_MAX;
}

/* A row of a node's <files>: only --node and --path apply. */
bool filter_file(const struct trace_node *n, const char *path)
{
	bool ok = filter_node(n) && filter_path(path);

	return filt.path ? seen("file", ok) : ok;
}

/* A row of a node's <sockets>: the whole run's totals of its calls. In
 * the sockets report a filter of calls, times or threads selects none;
 * elsewhere (summary, sums) only --node applies. */
bool filter_socket(const struct trace_node *n)
{
	bool calls = selects_calls() || filter_timed() || filt.has_tid;

	if (!filt.rows_not_calls || !calls)
		return filter_node(n);
	filt.unfit = "a socket's row is its whole run's totals: --call, --path, "
		     "--thread, --from and --to select none (calls --by file and flows "
		     "take them)";
	return seen("socket", false);
}

bool filter_region(const struct trace_run *run, const struct trace_thread *t,
		   const struct trace_region *r)
{
	bool ok = filter_thread(t) && filter_time(run, t->node, r->start);

	if (filt.rows_not_calls && selects_calls()) {
		filt.unfit = "a region is not a call: --call and --path select none";
		return seen("region", false);
	}
	return filter_timed() ? seen("region", ok) : ok;
}

static bool has_node(const struct trace_run *run)
{
	for (size_t i = 0; i < run->nnodes; i++)
		if (filter_node(run->nodes[i]))
			return true;
	return false;
}

static bool has_thread(const struct trace_run *run)
{
	for (size_t i = 0; i < run->nthreads; i++)
		if (filter_thread(run->threads[i]))
			return true;
	return false;
}

/* Once, after the traces were read: one line for the first filter that
 * matched nothing. offered: the report takes calls (a call filter over a
 * trace without calls matched none either). */
void filter_done(const struct trace_run *run, bool offered)
{
	if (!filt.active || filt.warned)
		return;
	if (filt.node && !has_node(run))
		warnx("warning: --node %s matched no node", filt.node);
	else if (filt.has_tid && !has_thread(run))
		warnx("warning: --thread %ld matched no thread%s%s", filt.tid,
		      filt.node ? " of node " : "", filt.node ? filt.node : "");
	else if (filt.examined && !filt.matched && filt.unfit)
		warnx("warning: %s", filt.unfit);
	else if (filt.examined && !filt.matched)
		warnx("warning: no %s matched the filters", filt.what);
	else if (!filt.examined && offered && (selects_calls() || filter_timed()))
		warnx("warning: no call matched the filters");
	else
		return;
	filt.warned = true;
}
