/* The reader's elements (trace/reader.h): what each element of a trace,
 * from whichever parser, makes of the run and the callbacks, checked by
 * the validator; and libxml2's SAX handler, which calls them as it parses.
 *
 * SAX rather than xmlTextReader: the reader builds and frees a tree node per
 * element, which halves the speed on a million-event trace. The SAX context
 * still gives exact line numbers (the reader's are capped at 65535). */
#include "reader.h"
#include "util.h"
#include "zstdio.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parserInternals.h>

/* Where each element may appear. Elements not listed, and whatever they
 * hold, are skipped (a reader of version 1 ignores what it does not
 * know), unless the reader is strict; a listed element elsewhere is an
 * error. */
static const struct eldef {
	const char *name;
	enum el el, parent;
} eldefs[] = {
	{ "io",           EL_IO,           EL_THREAD },
	{ "compute",      EL_COMPUTE,      EL_THREAD },
	{ "region",       EL_REGION,       EL_THREAD },
	{ "wait",         EL_WAIT,         EL_THREAD },
	{ "signal",       EL_SIGNAL,       EL_THREAD },
	{ "thread",       EL_THREAD,       EL_PROCESS },
	{ "process",      EL_PROCESS,      EL_NODE },
	{ "module",       EL_MODULE,       EL_PROCESS },
	{ "profile",      EL_PROFILE,      EL_NODE },
	{ "sample",       EL_SAMPLE,       EL_THREAD },
	{ "free",         EL_FREE,         EL_THREAD },
	{ "node",         EL_NODE,         EL_TRACE },
	{ "trace",        EL_TRACE,        EL_ROOT },
	{ "restrictions", EL_RESTRICTIONS, EL_NODE },
	{ "limit",        EL_LIMIT,        EL_RESTRICTIONS },
	{ "stops",        EL_STOPS,        EL_NODE },
	{ "stop",         EL_STOP,         EL_STOPS },
	{ "files",        EL_FILES,        EL_NODE },
	{ "file",         EL_FILE,         EL_FILES },
	{ "sockets",      EL_SOCKETS,      EL_NODE },
	{ "socket",       EL_SOCKET,       EL_SOCKETS },
	{ "command",      EL_COMMAND,      EL_NODE },
	{ "arg",          EL_ARG,          EL_COMMAND },
};

_Static_assert(sizeof(eldefs) / sizeof(eldefs[0]) == NELDEFS, "NELDEFS");

static const char *const anames[NA] = {
	"api", "res", "start", "end", "amount", "size", "req", "errno",
	"path", "peer", "proto", "inpath", "throttle", "site", "level",
	"fd", "oldfd", "offset", "result", "whence", "flags", "dur",
};

_Thread_local struct reader *rd_current;

const struct trace_attr *trace_io_attr(const struct trace_io *io, const char *name)
{
	for (int i = 0; i < io->nattr; i++)
		if (!strcmp(io->attr[i].name, name))
			return &io->attr[i];
	return NULL;
}

long rd_line(struct reader *rd)
{
	if (rd->pipe || rd->bin)
		return rd->rline;
	return rd->ctxt && rd->ctxt->input ? rd->ctxt->input->line : 0;
}


static const char *attr(struct reader *rd, const char *name)
{
	for (int i = 0; i < rd->nattr; i++)
		if (!strcmp(rd->aname[i], name))
			return rd->aval[i];
	return NULL;
}

static const char *need(struct reader *rd, const char *name)
{
	const char *v = attr(rd, name);

	if (!v)
		rd_bad(rd, "<%s> lacks attribute %s", rd->elname, name);
	return v;
}

/* Values the validator (common/validate.c) has checked: well-formed and
 * in range, so that sums of them cannot overflow. */
static int64_t as_time(struct reader *rd, const char *name, const char *v)
{
	int64_t ns = 0;

	parse_sec(v, &ns);
	return ns;
}

static int64_t as_int(struct reader *rd, const char *name, const char *v)
{
	return strtoll(v, NULL, 10);
}

static int64_t time_attr(struct reader *rd, const char *name, int64_t dflt)
{
	const char *v = attr(rd, name);

	return v ? as_time(rd, name, v) : dflt;
}

static int64_t int_attr(struct reader *rd, const char *name, int64_t dflt)
{
	const char *v = attr(rd, name);

	return v ? as_int(rd, name, v) : dflt;
}

static char *dup_attr(struct reader *rd, const char *name)
{
	const char *v = attr(rd, name);

	return xstrdup(v ? v : "");
}

static bool bool_attr(struct reader *rd, const char *name, bool dflt)
{
	const char *v = attr(rd, name);

	return v ? !strcmp(v, "true") || !strcmp(v, "1") : dflt;
}

static void on_trace(struct reader *rd)
{
	const char *v = attr(rd, "version");
	char *end;
	long ver;

	if (!v)
		rd_bad(rd, "not an Island trace (<trace> has no version)");
	ver = strtol(v, &end, 10);
	if (*end || end == v)
		rd_bad(rd, "not an Island trace (version \"%s\")", v);
	if (ver > TRACE_VERSION)
		rd_bad(rd, "trace version %ld is newer than this Island reads (%d)",
		    ver, TRACE_VERSION);
	if (ver != TRACE_VERSION)
		rd_bad(rd, "unknown trace version %ld", ver);
	if (!bool_attr(rd, "complete", true) && !rd->prescan) {
		rd->run->incomplete = true;
		if (rd->ops->incomplete)
			rd->ops->incomplete(rd->ctx, rd->file, rd_line(rd), NULL);
	}
}

/* A node's clock_offset: seconds its host's clock was behind the
 * session's reference when it joined (island-capture --session HOST:PORT);
 * epoch + clock_offset aligns it with the other nodes. */
static int64_t clock_offset(struct reader *rd)
{
	const char *v = attr(rd, "clock_offset");
	int64_t ns;

	if (!v)
		return 0;
	parse_sec(v, &ns);	/* validated: within a day */
	return ns;
}

static void on_node(struct reader *rd)
{
	struct trace_run *run = rd->run;
	struct trace_node *n = xcalloc(1, sizeof(*n));
	const char *ep = attr(rd, "epoch"), *pcap = attr(rd, "pcap");
	const char *slash = strrchr(rd->file, '/');

	/* twice in one trace, as the replay refuses it (across the traces of
	 * a run, merge says which files) */
	for (size_t i = rd->first_node; i < run->nnodes; i++)
		if (!strcmp(run->nodes[i]->name, attr(rd, "name"))) {
			char msg[256];

			validate_dup_node(run->nodes[i]->name, msg, sizeof(msg));
			rd_bad(rd, "%s", msg);
		}
	n->name = dup_attr(rd, "name");
	n->host = dup_attr(rd, "host");
	if (attr(rd, "unseen"))
		n->unseen = dup_attr(rd, "unseen");
	n->file = xstrdup(rd->file);
	n->epoch = ep ? as_time(rd, "epoch", ep) : 0;
	n->epoch += clock_offset(rd);
	n->has_clock_offset = attr(rd, "clock_offset") != NULL;
	n->start = time_attr(rd, "start", 0);
	n->end = time_attr(rd, "end", n->start);
	n->stopped = attr(rd, "stopped") ? time_attr(rd, "stopped", n->start) : -1;
	n->mpi_rank = attr(rd, "mpi_rank") ? atoi(attr(rd, "mpi_rank")) : -1;	/* validated */
	if (pcap)
		n->pcap = slash && pcap[0] != '/' ?
			xasprintf("%.*s/%s", (int)(slash - rd->file), rd->file, pcap) :
			xstrdup(pcap);
	if (!run->have_epoch0) {
		run->epoch0 = n->epoch;
		run->have_epoch0 = true;
	}
	n->off = n->epoch - run->epoch0;
	n->index = (int)run->nnodes;
	XGROW(run->nodes, run->capnodes, run->nnodes + 1);
	run->nodes[run->nnodes++] = n;
	if (run->nnodes == 1 || n->start + n->off < run->t0)
		run->t0 = n->start + n->off;
	if (run->nnodes == 1 || n->end + n->off > run->t1)
		run->t1 = n->end + n->off;
	rd->node = n;
	if (rd->ops->node)
		rd->ops->node(rd->ctx, n);
}

static void on_limit(struct reader *rd)
{
	const char *res = need(rd, "resource"), *v = need(rd, "value");
	double x = strtod(v, NULL);
	int r;

	if (!strcmp(res, "cpu"))
		rd->node->cpu_limit = x;
	else if ((r = trace_res_from_name(res)) >= 0)
		rd->node->limit[r] = x;
}

static void on_stop(struct reader *rd)
{
	struct trace_node *n = rd->node;
	int64_t start = as_time(rd, "start", need(rd, "start"));
	int64_t dur = as_time(rd, "dur", need(rd, "dur"));

	XGROW(n->stops, n->capstops, n->nstops + 1);
	n->stops[n->nstops].start = start;
	n->stops[n->nstops].end = start + dur;
	n->nstops++;
}

static int cmp_stop(const void *a, const void *b)
{
	const struct trace_stop *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

/* Stops must be sorted and disjoint for the binary searches of reports:
 * sorted, then each folded into the one before when they overlap or
 * touch. */
static void stops_done(struct trace_node *n)
{
	struct trace_stop *v = n->stops;
	size_t k = 0;

	if (!n->nstops)
		return;
	qsort(v, n->nstops, sizeof(*v), cmp_stop);
	for (size_t i = 1; i < n->nstops; i++) {
		if (v[i].start <= v[k].end) {
			if (v[i].end > v[k].end)
				v[k].end = v[i].end;
		} else {
			v[++k] = v[i];
		}
	}
	n->nstops = k + 1;
}

/* --profile: the node's options, its threads' snapshots and frees. */
static void on_profile(struct reader *rd)
{
	free(rd->node->profile);
	rd->node->profile = xstrdup(need(rd, "values"));
	rd->node->profile_alloc_every = int_attr(rd, "alloc_every", 0);
}

static uint64_t hex_attr(struct reader *rd, const char *name)
{
	const char *v = need(rd, name);
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(v, &end, 16);
	if (errno || strncmp(v, "0x", 2) || *end)
		rd_bad(rd, "<%s> %s=\"%s\" is not a hex address", rd->elname, name, v);
	return x;
}

static void on_sample(struct reader *rd)
{
	struct trace_sample sm = { 0 };
	const char *v;

	sm.t = as_time(rd, "t", need(rd, "t"));
	sm.kind = need(rd, "kind");
	sm.cpu = (v = attr(rd, "cpu")) ? as_time(rd, "cpu", v) : 0;
	sm.wall = (v = attr(rd, "wall")) ? as_time(rd, "wall", v) : 0;
	sm.alloc = int_attr(rd, "alloc", 0);
	sm.allocs = int_attr(rd, "allocs", 0);
	if (sm.alloc < 0 || sm.allocs < 0)
		rd_bad(rd, "<sample> has a negative allocation count");
	sm.ptr = attr(rd, "ptr") ? hex_attr(rd, "ptr") : 0;
	sm.stack = need(rd, "stack");
	if (rd->ops->sample)
		rd->ops->sample(rd->ctx, rd->thr, &sm);
}

static void on_free(struct reader *rd)
{
	int64_t t = as_time(rd, "t", need(rd, "t"));
	uint64_t ptr = hex_attr(rd, "ptr");

	if (rd->ops->free)
		rd->ops->free(rd->ctx, rd->thr, t, ptr);
}

/* --callsites: a module of the process, which io site attributes name. */
static void on_module(struct reader *rd)
{
	struct trace_proc *p = rd->proc;
	const char *id = need(rd, "id"), *path = need(rd, "path"), *bid = attr(rd, "build_id");
	char *end;
	long k = strtol(id, &end, 10);

	if (*end || end == id || k < 1 || k > 1000000)
		rd_bad(rd, "<module> id=\"%s\" is not a module number", id);
	XGROW(p->mods, p->capmods, p->nmods + 1);
	p->mods[p->nmods++] = (struct trace_module){ k, xstrdup(path), bid ? xstrdup(bid) : NULL };
}

static void on_process(struct reader *rd)
{
	struct trace_run *run = rd->run;
	struct trace_proc *p = xcalloc(1, sizeof(*p));

	if (rd->node->nprocs++ == 0)
		stops_done(rd->node);
	p->node = rd->node;
	p->pid = int_attr(rd, "pid", 0);
	p->ppid = int_attr(rd, "ppid", 0);
	p->exe = dup_attr(rd, "exe");
	p->first_exe = xstrdup(attr(rd, "first_exe") ? attr(rd, "first_exe") : p->exe);
	p->status = dup_attr(rd, "status");
	p->cwd = dup_attr(rd, "cwd");
	p->reason = attr(rd, "reason") ? xstrdup(attr(rd, "reason")) : NULL;
	p->unprofiled = attr(rd, "unprofiled") ? xstrdup(attr(rd, "unprofiled")) : NULL;
	p->start = time_attr(rd, "start", 0);
	p->end = time_attr(rd, "end", p->start);
	p->complete = bool_attr(rd, "complete", true);
	XGROW(run->procs, run->capprocs, run->nprocs + 1);
	run->procs[run->nprocs++] = p;
	rd->proc = p;
	/* what the capture could not see */
	if (p->reason && rd->ops->incomplete)
		rd->ops->incomplete(rd->ctx, rd->file, rd_line(rd), p);
	if (rd->ops->process)
		rd->ops->process(rd->ctx, p);
}

static void on_thread(struct reader *rd)
{
	struct trace_run *run = rd->run;
	struct trace_thread *t = xcalloc(1, sizeof(*t));
	const char *cpu = attr(rd, "cpu");

	t->node = rd->node;
	t->proc = rd->proc;
	t->index = (int)run->nthreads;
	t->tid = int_attr(rd, "tid", 0);
	t->creator = int_attr(rd, "creator", -1);
	t->name = dup_attr(rd, "name");
	t->exit = dup_attr(rd, "exit");
	t->start = as_time(rd, "start", need(rd, "start"));
	t->end = as_time(rd, "end", need(rd, "end"));
	if (cpu) {
		t->cpu = as_time(rd, "cpu", cpu);
		t->has_cpu = true;
	}
	t->complete = bool_attr(rd, "complete", true);
	rd->node->nthreads++;
	XGROW(run->threads, run->capthreads, run->nthreads + 1);
	run->threads[run->nthreads++] = t;
	rd->thr = t;
	rd->cursor = t->start;
	if (rd->ops->thread)
		rd->ops->thread(rd->ctx, t);
}

static int a_index(struct reader *rd, const char *name)
{
	unsigned h = (unsigned)(((uintptr_t)name * 0x9E3779B97F4A7C15ull) >> 58);

	for (; rd->amap[h].name; h = (h + 1) & (AMAP - 1))
		if (rd->amap[h].name == (const xmlChar *)name)
			return rd->amap[h].a;
	return -1;
}

static void on_compute(struct reader *rd)
{
	int64_t dur = 0;

	/* validated: dur is there, and its only attribute */
	for (int i = 0; i < rd->nattr; i++)
		if (rd->aname[i] == (const char *)rd->aptr[A_DUR])
			dur = rd->va[i].num;

	if (rd->ops->compute)
		rd->ops->compute(rd->ctx, rd->thr, rd->cursor, dur);
	rd->cursor += dur;
}

static void on_dep(struct reader *rd, bool wait)
{
	struct trace_dep d = { .wait = wait, .node = need(rd, "node"), .seq = 0 };

	if (wait) {
		const char *c = attr(rd, "certain");
		d.seq = int_attr(rd, "seq", -1);
		d.origin = attr(rd, "origin");
		d.unsure = c && !strcmp(c, "no");
	}
	if (rd->ops->dep)
		rd->ops->dep(rd->ctx, rd->thr, &d);
}

static void on_wait(struct reader *rd)
{
	on_dep(rd, true);
}

static void on_signal(struct reader *rd)
{
	on_dep(rd, false);
}

/* api names, one copy each for the thread's life (trace_io.api). */
static _Thread_local struct {
	char **v;
	size_t n, cap;
} apis;

static const char *api_name(const char *s)
{
	size_t h = 2166136261u, i;

	for (const char *p = s; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	if (apis.n * 2 >= apis.cap) {
		size_t nc = apis.cap ? apis.cap * 2 : 256;
		char **nv = xcalloc(nc, sizeof(*nv));

		for (i = 0; i < apis.cap; i++) {
			size_t g = 2166136261u;

			if (!apis.v[i])
				continue;
			for (const char *p = apis.v[i]; *p; p++)
				g = (g ^ (unsigned char)*p) * 16777619u;
			for (g &= nc - 1; nv[g]; g = (g + 1) & (nc - 1))
				;
			nv[g] = apis.v[i];
		}
		free(apis.v);
		apis.v = nv;
		apis.cap = nc;
	}
	for (i = h & (apis.cap - 1); apis.v[i]; i = (i + 1) & (apis.cap - 1))
		if (!strcmp(apis.v[i], s))
			return apis.v[i];
	apis.n++;
	return apis.v[i] = xstrdup(s);
}

/* An io's numbers that come with a has_ flag: where each goes. */
struct number {
	uint16_t val, has;	/* offsets in struct trace_io; has 0: none */
};
#define NUMBER(a, f) [a] = { offsetof(struct trace_io, f), offsetof(struct trace_io, has_##f) }
static const struct number numbers[NA] = {
	NUMBER(A_AMOUNT, amount), NUMBER(A_REQ, req), NUMBER(A_THROTTLE, throttle),
	NUMBER(A_FD, fd), NUMBER(A_OLDFD, oldfd), NUMBER(A_OFFSET, offset),
	NUMBER(A_RESULT, result),
};

/* The hot path: one pass over the attributes. */
static void on_io(struct reader *rd)
{
	struct trace_io io;

	memset(&io, 0, offsetof(struct trace_io, attr));
	io.res = (enum trace_res)-1;
	for (int i = 0; i < rd->nattr; i++) {
		const char *v = rd->aval[i];
		int64_t num = rd->va[i].num;

		io.attr[i].name = rd->aname[i];
		io.attr[i].value = v;
		io.attr[i].num = num;
		int a = a_index(rd, rd->aname[i]);

		if (a >= 0 && a < NA && numbers[a].has) {
			*(int64_t *)((char *)&io + numbers[a].val) = num;
			*(bool *)((char *)&io + numbers[a].has) = true;
			continue;
		}
		switch (a) {
		case A_START: io.start = num; break;
		case A_END: io.end = num; break;
		case A_API: io.api = api_name(v); break;
		case A_RES: io.res = (enum trace_res)num; break;	/* validated */
		case A_LEVEL:
			/* --syscalls: seen by libc only, its bytes are in the
			 * kernel's calls already (trace-format.md) */
			io.libc_only = !strcmp(v, "libc") || !strcmp(v, "mpi") ||
				       !strcmp(v, "mpi-io") || !strcmp(v, "hdf5");
			break;
		case A_SIZE: io.size = num; break;
		case A_ERRNO:
			io.failed = true;
			io.err = v;
			break;
		case A_PATH: io.path = v; break;
		case A_PEER: io.peer = v; break;
		case A_PROTO: io.proto = v; break;
		case A_INPATH: io.inpath = v; break;
		case A_SITE: io.site = v; break;
		case A_WHENCE: io.whence = v; break;
		case A_FLAGS: io.flags = v; break;
		}
	}
	io.nattr = rd->nattr;
	if (rd->ops->io)
		rd->ops->io(rd->ctx, rd->thr, &io);
	rd->cursor = io.end;
}

static void on_region(struct reader *rd)
{
	struct trace_region r;

	r.id = int_attr(rd, "id", 0);
	r.parent = int_attr(rd, "parent", 0);
	r.depth = int_attr(rd, "depth", 1);
	r.label = need(rd, "label");
	r.error = attr(rd, "error");
	r.start = as_time(rd, "start", need(rd, "start"));
	r.end = as_time(rd, "end", need(rd, "end"));
	if (rd->ops->region)
		rd->ops->region(rd->ctx, rd->thr, &r);
}

static void on_file(struct reader *rd)
{
	struct trace_file f;

	f.path = need(rd, "path");
	f.opens = int_attr(rd, "opens", 0);
	f.reads = int_attr(rd, "reads", 0);
	f.bytes_read = int_attr(rd, "bytes_read", 0);
	f.writes = int_attr(rd, "writes", 0);
	f.bytes_written = int_attr(rd, "bytes_written", 0);
	f.open_at_end = int_attr(rd, "open_at_end", 0);
	f.size_at_end = int_attr(rd, "size_at_end", -1);
	f.allocated_at_end = int_attr(rd, "allocated_at_end", -1);
	f.fifo = attr(rd, "type") && !strcmp(attr(rd, "type"), "fifo");
	if (rd->ops->file)
		rd->ops->file(rd->ctx, rd->node, &f);
}

static void on_socket(struct reader *rd)
{
	struct trace_socket s;
	const char *v;

	s.proto = (v = attr(rd, "proto")) ? v : "";
	s.local = (v = attr(rd, "local")) ? v : "";
	s.peer = (v = attr(rd, "peer")) ? v : "";
	s.direction = (v = attr(rd, "direction")) ? v : "none";
	s.sent = int_attr(rd, "sent", 0);
	s.received = int_attr(rd, "received", 0);
	s.open_at_end = bool_attr(rd, "open_at_end", false);
	if (rd->ops->socket)
		rd->ops->socket(rd->ctx, rd->node, &s);
}

static const el_fn start_fns[] = {
	[EL_TRACE] = on_trace, [EL_NODE] = on_node, [EL_LIMIT] = on_limit,
	[EL_STOP] = on_stop, [EL_PROCESS] = on_process,
	[EL_THREAD] = on_thread, [EL_COMPUTE] = on_compute, [EL_IO] = on_io,
	[EL_REGION] = on_region, [EL_FILE] = on_file, [EL_SOCKET] = on_socket,
	[EL_WAIT] = on_wait, [EL_SIGNAL] = on_signal, [EL_MODULE] = on_module,
	[EL_PROFILE] = on_profile, [EL_SAMPLE] = on_sample, [EL_FREE] = on_free,
};

/* A prescan only wants the nodes. */
static const el_fn prescan_fns[] = {
	[EL_TRACE] = on_trace, [EL_NODE] = on_node,
};

static const char *parent_name(enum el el)
{
	for (size_t i = 0; i < NELDEFS; i++)
		if (eldefs[i].el == el)
			return eldefs[i].name;
	return "?";
}

/* A start tag's checks: the element's handler, or NULL when it has none
 * (skipped, unknown, or a parse error already recorded). */
el_fn rd_el_open(struct reader *rd, const xmlChar *name)
{
	enum el parent = rd->depth ? rd->stack[rd->depth - 1] : EL_ROOT;
	enum el el = EL_OTHER;
	const char *n = (const char *)name;

	/* libxml2 still reports a start tag cut short by the end of the
	 * file; the parse error already recorded is the one to show. */
	if (rd->err)
		return NULL;
	if (rd->depth == 0) {
		if (strcmp(n, "trace"))
			rd_bad(rd, "not an Island trace (root element <%s>, expected <trace>)", n);
		rd->seen_root = true;
	}
	for (size_t i = 0; parent != EL_OTHER && i < NELDEFS; i++) {
		if (name != rd->elptr[i])
			continue;
		if (eldefs[i].parent != parent) {
			char msg[256];

			validate_misplaced(n, parent_name(parent), msg, sizeof(msg));
			rd_bad(rd, "%s", msg);
		}
		el = eldefs[i].el;
		break;
	}
	if (el == EL_OTHER && rd->ops->strict)
		rd_bad(rd, "unknown element <%s>", n);
	if (rd->depth >= MAXDEPTH)
		rd_bad(rd, "elements nested too deep");
	rd->stack[rd->depth++] = el;
	if (el == EL_OTHER)
		return NULL;
	if ((size_t)el >= (rd->prescan ? sizeof(prescan_fns) : sizeof(start_fns)) / sizeof(el_fn))
		return NULL;
	return rd->prescan ? prescan_fns[el] : start_fns[el];
}

/* The attributes are in rd->aname and rd->aval: validate, then handle. */
static void el_attrs(struct reader *rd, const xmlChar *name, int nattr, el_fn fn)
{
	char msg[256];

	rd->nattr = nattr;
	rd->elname = (const char *)name;
	for (int i = 0; i < nattr; i++)
		rd->va[i] = (struct vattr){ rd->aname[i], rd->aval[i], 0 };
	if (validate_element(rd->elname, rd->va, nattr, rd->tot, msg, sizeof(msg)))
		rd_bad(rd, "%s", msg);
	fn(rd);
}

/* --- ops->element: the trace as it is ---------------------------------- */


/* The text since the last tag given: what is more than white space, or
 * all that an element with no child holds (the parser's thread keeps
 * the rest: p_raw_tag) */
bool rd_text_given(bool at_end, bool kids, const char *t, size_t n)
{
	return (at_end && !kids) || rd_is_text(BAD_CAST t, (int)n);
}

static void raw_flush(struct reader *rd, bool at_end)
{
	if (!rd->tn)
		return;
	if (rd_text_given(at_end, rd->rkids[rd->rdepth - 1], rd->text, rd->tn))
		rd->ops->element_text(rd->ctx, rd->text, rd->tn);
	rd->tn = 0;
}

static void raw_start(struct reader *rd, const char *name, int nattr)
{
	raw_flush(rd, false);
	if (rd->rdepth)
		rd->rkids[rd->rdepth - 1] = true;
	rd->rkids[rd->rdepth++] = false;	/* el_open checked the depth */
	rd->ops->element(rd->ctx, name, nattr, rd->aname, rd->aval);
}

static void raw_end(struct reader *rd)
{
	raw_flush(rd, true);
	rd->rdepth--;
	rd->ops->element_end(rd->ctx);
}

static void raw_text(struct reader *rd, const char *p, size_t n)
{
	if (!rd->rdepth)
		return;
	XGROW(rd->text, rd->tcap, rd->tn + n + 1);
	memcpy(rd->text + rd->tn, p, n);
	rd->tn += n;
	rd->text[rd->tn] = 0;
}

bool rd_raw(const struct reader *rd)
{
	return rd->ops->element && !rd->prescan;
}

/* the text of <arg>s is wanted (ops->command) */
bool rd_args_wanted(const struct reader *rd)
{
	return rd->ops->command && !rd->prescan;
}

static void arg_text(struct reader *rd, const char *t, size_t n)
{
	if (rd->an + n + 1 > rd->acap) {
		rd->acap = (rd->an + n + 1) * 2;
		rd->arg = xrealloc(rd->arg, rd->acap);
	}
	memcpy(rd->arg + rd->an, t, n);
	rd->an += n;
}

/* </arg>: its text one more argument; </command>: the node's command */
static void arg_end(struct reader *rd)
{
	if (rd->nargs + 1 >= rd->capargs) {
		rd->capargs = rd->capargs ? rd->capargs * 2 : 8;
		rd->args = xrealloc(rd->args, (size_t)rd->capargs * sizeof(*rd->args));
	}
	rd->args[rd->nargs] = xmalloc(rd->an + 1);
	memcpy(rd->args[rd->nargs], rd->arg ? rd->arg : "", rd->an);
	rd->args[rd->nargs++][rd->an] = 0;
	rd->an = 0;
}

void rd_args_free(struct reader *rd)
{
	for (int i = 0; i < rd->nargs; i++)
		free(rd->args[i]);
	rd->nargs = 0;
	rd->an = 0;
}

static void command_end(struct reader *rd)
{
	if (rd->node)
		rd->ops->command(rd->ctx, rd->node, rd->nargs, (const char *const *)rd->args);
	rd_args_free(rd);
}

/* A start tag's attributes, in rd->aname and rd->aval: to its handler,
 * and as they are to ops->element */
void rd_el_start(struct reader *rd, const xmlChar *name, int nattr, el_fn fn)
{
	if (fn)
		el_attrs(rd, name, nattr, fn);
	if (rd_raw(rd))
		raw_start(rd, (const char *)name, nattr);
}

void rd_sax_start(void *ctx, const xmlChar *name, const xmlChar *prefix,
		  const xmlChar *uri, int nns, const xmlChar **ns,
		  int nattr, int ndef, const xmlChar **at)
{
	struct reader *rd = ((xmlParserCtxtPtr)ctx)->_private;
	size_t need_buf = 0;
	el_fn fn = rd_el_open(rd, name);

	if (!fn && (!rd_raw(rd) || rd->err))
		return;
	if (nattr > TRACE_MAXATTR)
		rd_bad(rd, "<%s> has too many attributes", (const char *)name);
	for (int i = 0; i < nattr; i++)
		need_buf += (size_t)(at[i * 5 + 4] - at[i * 5 + 3]) + 1;
	XGROW(rd->buf, rd->bufcap, need_buf);
	char *p = rd->buf;
	for (int i = 0; i < nattr; i++) {
		size_t len = (size_t)(at[i * 5 + 4] - at[i * 5 + 3]);

		memcpy(p, at[i * 5 + 3], len);
		p[len] = 0;
		rd->aname[i] = (const char *)at[i * 5];
		rd->aval[i] = p;
		p += len + 1;
	}
	rd_el_start(rd, name, nattr, fn);
}

void rd_el_close(struct reader *rd)
{
	enum el el;

	if (rd->err || rd->depth == 0)
		return;
	el = rd->stack[--rd->depth];
	if (rd_raw(rd))
		raw_end(rd);

	if (rd->prescan) {
		if (el == EL_NODE)
			rd->node = NULL;
		return;
	}
	switch (el) {
	case EL_THREAD:
		if (rd->ops->thread_end)
			rd->ops->thread_end(rd->ctx, rd->thr);
		rd->thr = NULL;
		break;
	case EL_STOPS:
		stops_done(rd->node);
		break;
	case EL_NODE:
		stops_done(rd->node);
		if (rd->ops->node_end)
			rd->ops->node_end(rd->ctx, rd->node);
		rd->node = NULL;
		break;
	case EL_ARG:
		if (rd_args_wanted(rd))
			arg_end(rd);
		break;
	case EL_COMMAND:
		if (rd_args_wanted(rd))
			command_end(rd);
		break;
	default:
		break;
	}
}

void rd_sax_end(void *ctx, const xmlChar *name, const xmlChar *prefix,
		const xmlChar *uri)
{
	rd_el_close(((xmlParserCtxtPtr)ctx)->_private);
}

/* Strict: text only in <arg> (whitespace between elements aside). */
bool rd_is_text(const xmlChar *ch, int len)
{
	for (int i = 0; i < len; i++)
		if (ch[i] != ' ' && ch[i] != '\n' && ch[i] != '\t' && ch[i] != '\r')
			return true;
	return false;
}

void rd_el_text(struct reader *rd)
{
	enum el el;

	if (rd->err || rd->depth == 0)
		return;
	el = rd->stack[rd->depth - 1];
	if (el != EL_ARG)
		rd_bad(rd, "unexpected text in <%s>", parent_name(el));
}

/* Text, however it came (libxml2, the pipe, the binary decoder) */
void rd_on_text(struct reader *rd, const char *t, size_t n)
{
	if (rd_raw(rd) && !rd->err)
		raw_text(rd, t, n);
	if (rd_args_wanted(rd) && !rd->err && rd->depth && rd->stack[rd->depth - 1] == EL_ARG)
		arg_text(rd, t, n);
	if (rd->ops->strict && !rd->prescan && rd_is_text(BAD_CAST t, (int)n))
		rd_el_text(rd);
}

void rd_sax_text(void *ctx, const xmlChar *ch, int len)
{
	rd_on_text(((xmlParserCtxtPtr)ctx)->_private, (const char *)ch, (size_t)len);
}

/* A parse error as the message will show it: its line, its code, its
 * text without the trailing newline. */
void rd_keep_error(const xmlError *e, int *line, int *code, char *msg, size_t len)
{
	size_t n;

	*line = e->line;
	*code = e->code;
	snprintf(msg, len, "%s", e->message ? e->message : "parse error");
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = 0;
}

void rd_sax_error(void *ctx, xmlErrorPtr e)
{
	struct reader *rd = ((xmlParserCtxtPtr)ctx)->_private;

	if (e->level < XML_ERR_ERROR || rd->err)
		return;
	rd->err = true;
	rd_keep_error(e, &rd->errline, &rd->errcode, rd->errmsg, sizeof(rd->errmsg));
	xmlStopParser(rd->ctxt);
}

/* A trace has no DOCTYPE: entities would let a file name other files
 * (read as root) or expand without bound. */
void rd_sax_doctype(void *ctx, const xmlChar *name, const xmlChar *ext,
		    const xmlChar *sys)
{
	struct reader *rd = ((xmlParserCtxtPtr)ctx)->_private;

	(void)name;
	(void)ext;
	(void)sys;
	die_at(2, rd->file, rd_line(rd), "a DOCTYPE is not allowed in a trace "
	       "(entities could read other files)");
}

void rd_quiet(void *ctx, const char *msg, ...)
{
}

/* Is an error on `line` due to the file ending early? True when the
 * (possibly compressed) file does not end with </trace> and the error is
 * on its last line: libxml2 reports a start tag cut short, or an element
 * left open, there. */
bool rd_truncated_at(const char *file, long line)
{
	xmlParserInputBufferPtr in;
	long lines = 1;
	char tail[16] = "";
	size_t nt = 0;

	in = xmlParserInputBufferCreateFilename(file, XML_CHAR_ENCODING_NONE);
	if (!in)
		return false;
	while (xmlParserInputBufferRead(in, 65536) > 0) {
		const xmlChar *p = xmlBufContent(in->buffer);
		size_t n = xmlBufUse(in->buffer);

		for (size_t i = 0; i < n; i++) {
			if (p[i] == '\n')
				lines++;
			if (p[i] == ' ' || p[i] == '\n' || p[i] == '\t' || p[i] == '\r')
				continue;
			if (nt == sizeof(tail) - 1) {
				memmove(tail, tail + 1, nt - 1);
				nt--;
			}
			tail[nt++] = (char)p[i];
			tail[nt] = 0;
		}
		xmlBufShrink(in->buffer, n);
	}
	xmlFreeParserInputBuffer(in);
	return line >= lines - 1 && (nt < 8 || strcmp(tail + nt - 8, "</trace>"));
}

/* Bad input: FILE:LINE: message, exit 2. A bad element on the last line of
 * a file cut short is the cut's doing, and is reported as such; but not
 * the root's own start tag (a one-line <trace .../> is whole). */
void rd_bad(struct reader *rd, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	const char *z = zstd_input_error();

	/* the parser's thread's decoding failed before the record replayed */
	if (!z && rd->zf) {
		uint64_t at = __atomic_load_n(&rd->zf->at, __ATOMIC_ACQUIRE);

		z = at && rd->rrec >= at ? rd->zf->msg : NULL;
	}
	/* an element cut where the decoding failed: the failure */
	if (z)
		die_at(2, rd->file, rd_line(rd), "%s", z);
	if (rd->depth > 1 && !rd->bin && rd_truncated_at(rd->file, rd_line(rd)))
		die_at(2, rd->file, rd_line(rd),
		       "truncated trace (the document ends before </trace>)");
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		die(70, "out of memory");
	va_end(ap);
	die_at(2, rd->file, rd_line(rd), "%s", msg);
}


/* The names the reader looks for, as DICT's pointers. */
void rd_names_init(struct reader *rd, xmlDictPtr dict)
{
	validate_reset();	/* a new dictionary */
	for (size_t i = 0; i < NELDEFS; i++)
		rd->elptr[i] = xmlDictLookup(dict, BAD_CAST eldefs[i].name, -1);
	memset(rd->amap, 0, sizeof(rd->amap));
	for (int i = 0; i < NA; i++) {
		unsigned h;

		rd->aptr[i] = xmlDictLookup(dict, BAD_CAST anames[i], -1);
		h = (unsigned)(((uintptr_t)rd->aptr[i] * 0x9E3779B97F4A7C15ull) >> 58);
		while (rd->amap[h].name)
			h = (h + 1) & (AMAP - 1);
		rd->amap[h].name = rd->aptr[i];
		rd->amap[h].a = i;
	}
}
