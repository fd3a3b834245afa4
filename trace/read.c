/* The one streaming trace reader (include/island-trace.h): libxml2's SAX2
 * parser (it reads .xml.gz transparently, .zst through common/zstdio.c),
 * one callback per record, nothing kept per event. Every tool reads
 * traces through it: the same trace is refused by all with one message.
 *
 * SAX rather than xmlTextReader: the reader builds and frees a tree node per
 * element, which halves the speed on a million-event trace. The SAX context
 * still gives exact line numbers (the reader's are capped at 65535). */
#include "island-trace.h"
#include "util.h"
#include "zstdio.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>

#include "validate.h"
#include "trace/isb.h"
#include "trace/isbfmt.h"

#define MAXDEPTH 32

enum el {
	EL_OTHER, EL_ROOT, EL_TRACE, EL_NODE, EL_RESTRICTIONS, EL_LIMIT, EL_STOPS,
	EL_STOP, EL_PROCESS, EL_THREAD, EL_COMPUTE, EL_IO, EL_REGION,
	EL_FILES, EL_FILE, EL_SOCKETS, EL_SOCKET, EL_WAIT, EL_SIGNAL, EL_MODULE,
	EL_PROFILE, EL_SAMPLE, EL_FREE, EL_COMMAND, EL_ARG
};

struct reader;
typedef void (*el_fn)(struct reader *rd);

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

/* Attribute names the hot path looks for, as the parser's dictionary
 * pointers: comparing pointers instead of strings. */
enum { A_API, A_RES, A_START, A_END, A_AMOUNT, A_SIZE, A_REQ, A_ERRNO,
       A_PATH, A_PEER, A_PROTO, A_INPATH, A_THROTTLE, A_SITE, A_LEVEL,
       A_FD, A_OLDFD, A_OFFSET, A_RESULT, A_WHENCE, A_FLAGS, A_DUR, NA };
static const char *const anames[NA] = {
	"api", "res", "start", "end", "amount", "size", "req", "errno",
	"path", "peer", "proto", "inpath", "throttle", "site", "level",
	"fd", "oldfd", "offset", "result", "whence", "flags", "dur",
};
#define NELDEFS (sizeof(eldefs) / sizeof(eldefs[0]))
/* anames' dictionary pointers -> their index: one probe per attribute
 * rather than a compare with each name */
#define AMAP 64

struct reader {
	xmlParserCtxtPtr ctxt;
	const xmlChar *elptr[NELDEFS], *aptr[NA];
	struct {
		const xmlChar *name;
		int a;
	} amap[AMAP];
	const char *file;
	struct trace_run *run;
	const struct trace_ops *ops;
	void *ctx;
	int depth;
	enum el stack[MAXDEPTH];
	bool seen_root, prescan;
	const char *elname;
	struct trace_node *node;
	struct trace_proc *proc;
	struct trace_thread *thr;
	int64_t cursor;
	/* attributes of the current element, values NUL-terminated in buf */
	int nattr;
	const char *aname[TRACE_MAXATTR];
	const char *aval[TRACE_MAXATTR];
	char *buf;
	size_t bufcap;
	struct vtotals *tot;	/* of all the files read together */
	size_t first_node;	/* the run's first node of this file */
	struct vattr va[TRACE_MAXATTR];	/* the attributes validated, numbers parsed */
	/* first parse error */
	bool err;
	int errline, errcode;
	char errmsg[256];
	struct pipe *pipe;	/* parsing in a second thread: line() is rline */
	long rline;
	uint64_t rrec;		/* and the parser's records replayed so far */
	/* ops->element: the open elements, whether each has a child, the
	 * text since the last tag */
	int rdepth;
	bool rkids[MAXDEPTH];
	char *text;
	size_t tn, tcap;
	xmlParserInputBufferPtr bin;	/* the binary encoding's input: line()
					 * is rline */
	xmlDictPtr dict;	/* its names */
	/* ops->command: the node's <arg>s so far, the open one's text */
	char **args;
	int nargs, capargs;
	char *arg;
	size_t an, acap;
};

static _Thread_local struct reader *current;	/* for trace_line() */
/* The parser of the file being read, freed by trace_read_try() when bad
 * input leaves it mid-document. */
static _Thread_local xmlParserCtxtPtr active;
static _Thread_local struct reader *reading;	/* the file's, for trace_read_abandon */
static _Thread_local jmp_buf *try_back;

const struct trace_attr *trace_io_attr(const struct trace_io *io, const char *name)
{
	for (int i = 0; i < io->nattr; i++)
		if (!strcmp(io->attr[i].name, name))
			return &io->attr[i];
	return NULL;
}

static long line(struct reader *rd)
{
	if (rd->pipe || rd->bin)
		return rd->rline;
	return rd->ctxt && rd->ctxt->input ? rd->ctxt->input->line : 0;
}

static void bad(struct reader *rd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static const char *pipe_zfail(struct reader *rd);

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
		bad(rd, "<%s> lacks attribute %s", rd->elname, name);
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
		bad(rd, "not an Island trace (<trace> has no version)");
	ver = strtol(v, &end, 10);
	if (*end || end == v)
		bad(rd, "not an Island trace (version \"%s\")", v);
	if (ver > TRACE_VERSION)
		bad(rd, "trace version %ld is newer than this Island reads (%d)",
		    ver, TRACE_VERSION);
	if (ver != TRACE_VERSION)
		bad(rd, "unknown trace version %ld", ver);
	if (!bool_attr(rd, "complete", true) && !rd->prescan) {
		rd->run->incomplete = true;
		if (rd->ops->incomplete)
			rd->ops->incomplete(rd->ctx, rd->file, line(rd), NULL);
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
			bad(rd, "%s", msg);
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
		bad(rd, "<%s> %s=\"%s\" is not a hex address", rd->elname, name, v);
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
		bad(rd, "<sample> has a negative allocation count");
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
		bad(rd, "<module> id=\"%s\" is not a module number", id);
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
		rd->ops->incomplete(rd->ctx, rd->file, line(rd), p);
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
static el_fn el_open(struct reader *rd, const xmlChar *name)
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
			bad(rd, "not an Island trace (root element <%s>, expected <trace>)", n);
		rd->seen_root = true;
	}
	for (size_t i = 0; parent != EL_OTHER && i < NELDEFS; i++) {
		if (name != rd->elptr[i])
			continue;
		if (eldefs[i].parent != parent) {
			char msg[256];

			validate_misplaced(n, parent_name(parent), msg, sizeof(msg));
			bad(rd, "%s", msg);
		}
		el = eldefs[i].el;
		break;
	}
	if (el == EL_OTHER && rd->ops->strict)
		bad(rd, "unknown element <%s>", n);
	if (rd->depth >= MAXDEPTH)
		bad(rd, "elements nested too deep");
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
		bad(rd, "%s", msg);
	fn(rd);
}

/* --- ops->element: the trace as it is ---------------------------------- */

static bool is_text(const xmlChar *ch, int len);

/* The text since the last tag given: what is more than white space, or
 * all that an element with no child holds (the parser's thread keeps
 * the rest: p_raw_tag) */
static bool text_given(bool at_end, bool kids, const char *t, size_t n)
{
	return (at_end && !kids) || is_text(BAD_CAST t, (int)n);
}

static void raw_flush(struct reader *rd, bool at_end)
{
	if (!rd->tn)
		return;
	if (text_given(at_end, rd->rkids[rd->rdepth - 1], rd->text, rd->tn))
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

static bool raw(const struct reader *rd)
{
	return rd->ops->element && !rd->prescan;
}

/* the text of <arg>s is wanted (ops->command) */
static bool args_wanted(const struct reader *rd)
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

static void args_free(struct reader *rd)
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
	args_free(rd);
}

/* A start tag's attributes, in rd->aname and rd->aval: to its handler,
 * and as they are to ops->element */
static void el_start(struct reader *rd, const xmlChar *name, int nattr, el_fn fn)
{
	if (fn)
		el_attrs(rd, name, nattr, fn);
	if (raw(rd))
		raw_start(rd, (const char *)name, nattr);
}

static void sax_start(void *ctx, const xmlChar *name, const xmlChar *prefix,
		      const xmlChar *uri, int nns, const xmlChar **ns,
		      int nattr, int ndef, const xmlChar **at)
{
	struct reader *rd = ((xmlParserCtxtPtr)ctx)->_private;
	size_t need_buf = 0;
	el_fn fn = el_open(rd, name);

	if (!fn && (!raw(rd) || rd->err))
		return;
	if (nattr > TRACE_MAXATTR)
		bad(rd, "<%s> has too many attributes", (const char *)name);
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
	el_start(rd, name, nattr, fn);
}

static void el_close(struct reader *rd)
{
	enum el el;

	if (rd->err || rd->depth == 0)
		return;
	el = rd->stack[--rd->depth];
	if (raw(rd))
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
		if (args_wanted(rd))
			arg_end(rd);
		break;
	case EL_COMMAND:
		if (args_wanted(rd))
			command_end(rd);
		break;
	default:
		break;
	}
}

static void sax_end(void *ctx, const xmlChar *name, const xmlChar *prefix,
		    const xmlChar *uri)
{
	el_close(((xmlParserCtxtPtr)ctx)->_private);
}

/* Strict: text only in <arg> (whitespace between elements aside). */
static bool is_text(const xmlChar *ch, int len)
{
	for (int i = 0; i < len; i++)
		if (ch[i] != ' ' && ch[i] != '\n' && ch[i] != '\t' && ch[i] != '\r')
			return true;
	return false;
}

static void el_text(struct reader *rd)
{
	enum el el;

	if (rd->err || rd->depth == 0)
		return;
	el = rd->stack[rd->depth - 1];
	if (el != EL_ARG)
		bad(rd, "unexpected text in <%s>", parent_name(el));
}

/* Text, however it came (libxml2, the pipe, the binary decoder) */
static void on_text(struct reader *rd, const char *t, size_t n)
{
	if (raw(rd) && !rd->err)
		raw_text(rd, t, n);
	if (args_wanted(rd) && !rd->err && rd->depth && rd->stack[rd->depth - 1] == EL_ARG)
		arg_text(rd, t, n);
	if (rd->ops->strict && !rd->prescan && is_text(BAD_CAST t, (int)n))
		el_text(rd);
}

static void sax_text(void *ctx, const xmlChar *ch, int len)
{
	on_text(((xmlParserCtxtPtr)ctx)->_private, (const char *)ch, (size_t)len);
}

/* A parse error as the message will show it: its line, its code, its
 * text without the trailing newline. */
static void keep_error(const xmlError *e, int *line, int *code, char *msg, size_t len)
{
	size_t n;

	*line = e->line;
	*code = e->code;
	snprintf(msg, len, "%s", e->message ? e->message : "parse error");
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = 0;
}

static void sax_error(void *ctx, xmlErrorPtr e)
{
	struct reader *rd = ((xmlParserCtxtPtr)ctx)->_private;

	if (e->level < XML_ERR_ERROR || rd->err)
		return;
	rd->err = true;
	keep_error(e, &rd->errline, &rd->errcode, rd->errmsg, sizeof(rd->errmsg));
	xmlStopParser(rd->ctxt);
}

/* A trace has no DOCTYPE: entities would let a file name other files
 * (read as root) or expand without bound. */
static void sax_doctype(void *ctx, const xmlChar *name, const xmlChar *ext,
			const xmlChar *sys)
{
	struct reader *rd = ((xmlParserCtxtPtr)ctx)->_private;

	(void)name;
	(void)ext;
	(void)sys;
	die_at(2, rd->file, line(rd), "a DOCTYPE is not allowed in a trace "
	       "(entities could read other files)");
}

static void quiet(void *ctx, const char *msg, ...)
{
}

/* Is an error on `line` due to the file ending early? True when the
 * (possibly compressed) file does not end with </trace> and the error is
 * on its last line: libxml2 reports a start tag cut short, or an element
 * left open, there. */
static bool truncated_at(const char *file, long line)
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
static void bad(struct reader *rd, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	const char *z = zstd_input_error();

	if (!z && rd->pipe)
		z = pipe_zfail(rd);
	/* an element cut where the decoding failed: the failure */
	if (z)
		die_at(2, rd->file, line(rd), "%s", z);
	if (rd->depth > 1 && !rd->bin && truncated_at(rd->file, line(rd)))
		die_at(2, rd->file, line(rd),
		       "truncated trace (the document ends before </trace>)");
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		die(70, "out of memory");
	va_end(ap);
	die_at(2, rd->file, line(rd), "%s", msg);
}

/* Parsing beside the reading: libxml2's parser takes two thirds of a
 * read (0.8 s of 1.2 s on the benchmark's trace), so a second thread
 * runs it and only copies each callback into a record; the calling thread
 * replays the records through the same el_open, el_attrs, el_close and
 * el_text, so that bad() and die_at() (and trace_read_try's longjmp) stay
 * in the caller's thread. Records go in blocks of PIPE_BLK, at most
 * PIPE_NBLK of them in flight (a record larger than a block gets one of
 * its own), handed over under a mutex per block, not per element. Element
 * and attribute names are the parser's dictionary's, which lives as long
 * as its context; attribute values are copied (they point into the input
 * buffer, which moves). */
#define PIPE_BLK (1 << 20)
#define PIPE_NBLK 4
/* Records: a start tag (nattr >= 0), an end tag, text other than
 * whitespace (strict only; for ops->element, the text raw_flush would
 * give: its length, uint32_t, and its bytes after the record), a
 * DOCTYPE. */
enum { R_END = -1, R_TEXT = -2, R_DOCTYPE = -3 };

struct pipe_rec {
	uint32_t size;		/* to the next record, | REC_CLOSED */
	int32_t nattr;		/* or R_* */
	long line;		/* the parser's at the callback, for FILE:LINE */
	const xmlChar *name;
	/* then the attributes' names (nattr pointers), their values'
	 * lengths (nattr uint32_t) and values (NUL-terminated) */
};
#define REC_END_SIZE offsetof(struct pipe_rec, name)
/* An empty element's end (most of a trace: <io .../>) is a bit of its
 * start record rather than a record of its own, when on the same line
 * with no record between them. */
#define REC_CLOSED 0x80000000u
#define REC_ALIGN(n) (((n) + 7) & ~(size_t)7)

struct blk {
	struct blk *next;
	size_t used, cap;
	char data[] __attribute__((aligned(8)));
};

struct pipe {
	xmlParserCtxtPtr ctxt;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t full_cv, free_cv;
	struct blk *full, **full_tail, *free;	/* under mu */
	bool done;				/* under mu: the parser returned */
	int stop;		/* atomic: the reader wants no more */
	/* the parser's thread's own */
	struct blk *cur;
	struct pipe_rec *open;	/* cur's last record, a start tag */
	bool halted;
	/* its outcome, read after the join */
	bool err, oom;
	int errline, errcode;
	char errmsg[256], zerr[160];
	/* the decoding's failure, as it happened: the records made before
	 * it (+1; 0 none yet, atomic), and its message, set before that */
	uint64_t nrec, zfail_at;
	char zfail[160];
	struct blk *reading;	/* the reader's block */
	/* the binary encoding (no ctxt): its input, names, line */
	xmlParserInputBufferPtr bin;
	xmlDictPtr dict;
	long bline;
	bool strict;
	/* ops->element: the text since the last tag, and whether each open
	 * element has a child, as the reader's raw_flush keeps them */
	bool raw;
	char *text;
	size_t tn, tcap;
	int depth;
	bool kids[MAXDEPTH];
};

static _Thread_local struct pipe *piping;	/* this thread's, for die() */

static void p_halt(struct pipe *p)
{
	p->halted = true;
	p->open = NULL;
	if (p->ctxt)
		xmlStopParser(p->ctxt);
}

static void p_hand(struct pipe *p, struct blk *b)
{
	b->next = NULL;
	pthread_mutex_lock(&p->mu);
	*p->full_tail = b;
	p->full_tail = &b->next;
	pthread_cond_signal(&p->full_cv);
	pthread_mutex_unlock(&p->mu);
}

/* A new block for a record of n bytes, the full one handed over; NULL
 * when the parser is to stop. */
static __attribute__((noinline)) struct blk *p_next(struct pipe *p, size_t n)
{
	struct blk *b = p->cur;

	if (b)
		p_hand(p, b);
	p->cur = NULL;
	p->open = NULL;
	if (n > PIPE_BLK) {
		b = n > INT32_MAX ? NULL : malloc(sizeof(*b) + n);
		if (!b) {
			p->oom = true;
			p_halt(p);
			return NULL;
		}
		b->cap = n;
	} else {
		pthread_mutex_lock(&p->mu);
		while (!p->free && !__atomic_load_n(&p->stop, __ATOMIC_RELAXED))
			pthread_cond_wait(&p->free_cv, &p->mu);
		b = p->free;
		if (b && !__atomic_load_n(&p->stop, __ATOMIC_RELAXED))
			p->free = b->next;
		else
			b = NULL;
		pthread_mutex_unlock(&p->mu);
		if (!b) {
			p_halt(p);
			return NULL;
		}
	}
	b->used = 0;
	return p->cur = b;
}

/* Room for n bytes of records, or NULL when the parser is to stop. */
static inline char *p_room(struct pipe *p, size_t n)
{
	struct blk *b = p->cur;
	char *r;

	if (__builtin_expect(!b || b->used + n > b->cap, 0) && !(b = p_next(p, n)))
		return NULL;
	r = b->data + b->used;
	b->used += n;
	return r;
}

/* The reader stopped (bad input): no more records. */
static bool p_stopped(struct pipe *p)
{
	if (p->halted)
		return true;
	if (!__atomic_load_n(&p->stop, __ATOMIC_RELAXED))
		return false;
	p_halt(p);
	return true;
}

static inline struct pipe_rec *p_rec(struct pipe *p, size_t size, int nattr, const xmlChar *name)
{
	struct pipe_rec *r = (struct pipe_rec *)p_room(p, size);

	p->open = NULL;
	if (r) {
		p->nrec++;
		r->size = (uint32_t)size;
		r->nattr = nattr;
		r->line = !p->ctxt ? p->bline : p->ctxt->input ? p->ctxt->input->line : 0;
		if (size > REC_END_SIZE)
			r->name = name;
	}
	return r;
}

/* ops->element: text kept until the next tag, then a record of it when
 * raw_flush would give it (so whitespace between elements, most of a
 * trace's text, stays here) */
static void p_raw_text(struct pipe *p, const char *t, size_t n)
{
	if (!p->depth || p_stopped(p))
		return;
	if (p->tn + n + 1 > p->tcap) {
		size_t cap = (p->tn + n + 1) * 2;
		char *x = realloc(p->text, cap);

		if (!x) {
			p->oom = true;
			p_halt(p);
			return;
		}
		p->text = x;
		p->tcap = cap;
	}
	memcpy(p->text + p->tn, t, n);
	p->tn += n;
}

/* Before a tag: the text before it; START, a start tag's place kept */
static void p_raw_tag(struct pipe *p, bool start, bool empty)
{
	if (p->tn > INT32_MAX) {
		p->oom = true;
		p_halt(p);
		return;
	}
	if (p->tn && text_given(!start, p->kids[p->depth - 1], p->text, p->tn)) {
		size_t size = REC_ALIGN(sizeof(struct pipe_rec) + sizeof(uint32_t) + p->tn);
		struct pipe_rec *r = p_rec(p, size, R_TEXT, NULL);

		if (r) {
			uint32_t n = (uint32_t)p->tn;

			memcpy(r + 1, &n, sizeof(n));
			memcpy((char *)(r + 1) + sizeof(n), p->text, p->tn);
		}
	}
	p->tn = 0;
	if (!start) {
		if (p->depth)
			p->depth--;
		return;
	}
	if (p->depth)
		p->kids[p->depth - 1] = true;
	if (!empty && p->depth < MAXDEPTH)	/* deeper: the reader stops there */
		p->kids[p->depth++] = false;
}

static void p_start(void *ctx, const xmlChar *name, const xmlChar *prefix,
		    const xmlChar *uri, int nns, const xmlChar **ns,
		    int nattr, int ndef, const xmlChar **at)
{
	struct pipe *p = ((xmlParserCtxtPtr)ctx)->_private;
	size_t head = REC_ALIGN(sizeof(struct pipe_rec) +
				nattr * (sizeof(xmlChar *) + sizeof(uint32_t)));
	size_t vals = 0;
	struct pipe_rec *r;

	if (p_stopped(p))
		return;
	if (p->raw)
		p_raw_tag(p, true, false);
	for (int i = 0; i < nattr; i++)
		vals += (size_t)(at[i * 5 + 4] - at[i * 5 + 3]) + 1;
	if (!(r = p_rec(p, head + REC_ALIGN(vals), nattr, name)))
		return;
	p->open = r;

	const xmlChar **names = (const xmlChar **)(r + 1);
	uint32_t *lens = (uint32_t *)(names + nattr);
	char *v = (char *)r + head;

	for (int i = 0; i < nattr; i++) {
		size_t len = (size_t)(at[i * 5 + 4] - at[i * 5 + 3]);

		names[i] = at[i * 5];
		lens[i] = (uint32_t)len;
		memcpy(v, at[i * 5 + 3], len);
		v[len] = 0;
		v += len + 1;
	}
}

static void p_end(void *ctx, const xmlChar *name, const xmlChar *prefix,
		  const xmlChar *uri)
{
	struct pipe *p = ((xmlParserCtxtPtr)ctx)->_private;

	if (p_stopped(p))
		return;
	if (p->raw)
		p_raw_tag(p, false, false);
	if (p->open && p->open->line == p->ctxt->input->line) {
		p->open->size |= REC_CLOSED;
		p->open = NULL;
	} else {
		p_rec(p, REC_END_SIZE, R_END, NULL);
	}
}

static void p_text(void *ctx, const xmlChar *ch, int len)
{
	struct pipe *p = ((xmlParserCtxtPtr)ctx)->_private;

	if (p->raw)
		p_raw_text(p, (const char *)ch, (size_t)len);
	else if (!p_stopped(p) && is_text(ch, len))
		p_rec(p, sizeof(struct pipe_rec), R_TEXT, NULL);
}

/* As sax_error: the first error, and the parser stops (no record after
 * it, as no callback reached the reader after it). */
static void p_error(void *ctx, xmlErrorPtr e)
{
	struct pipe *p = ((xmlParserCtxtPtr)ctx)->_private;

	if (e->level < XML_ERR_ERROR || p->err || p->halted)
		return;
	p->err = true;
	keep_error(e, &p->errline, &p->errcode, p->errmsg, sizeof(p->errmsg));
	p_halt(p);
}

static void p_doctype(void *ctx, const xmlChar *name, const xmlChar *ext,
		      const xmlChar *sys)
{
	struct pipe *p = ((xmlParserCtxtPtr)ctx)->_private;

	if (!p_stopped(p) && p_rec(p, sizeof(struct pipe_rec), R_DOCTYPE, NULL))
		p_halt(p);
}

/* The producer's end: its last block handed over, its .zst error kept
 * (zstdio's are per thread), the reader told */
static void p_done(struct pipe *p)
{
	const char *z;

	if (p->cur)
		p_hand(p, p->cur);
	p->cur = NULL;
	if ((z = zstd_input_error()))
		snprintf(p->zerr, sizeof(p->zerr), "%s", z);
	pthread_mutex_lock(&p->mu);
	p->done = true;
	pthread_cond_signal(&p->full_cv);
	pthread_mutex_unlock(&p->mu);
}

/* zstdio's watch on the parser's thread: the reader's bad() tells the
 * failure for an element made after it, as one thread's would */
static void p_zfail(void *arg, const char *msg)
{
	struct pipe *p = arg;

	if (__atomic_load_n(&p->zfail_at, __ATOMIC_RELAXED))
		return;
	snprintf(p->zfail, sizeof(p->zfail), "%s", msg);
	__atomic_store_n(&p->zfail_at, p->nrec + 1, __ATOMIC_RELEASE);
}

/* The failure for the record the reader replays, if made after it */
static const char *pipe_zfail(struct reader *rd)
{
	struct pipe *p = rd->pipe;
	uint64_t at = __atomic_load_n(&p->zfail_at, __ATOMIC_ACQUIRE);

	return at && rd->rrec >= at ? p->zfail : NULL;
}

static void *p_main(void *arg)
{
	struct pipe *p = arg;

	xmlSetGenericErrorFunc(NULL, quiet);	/* libxml2's are per thread */
	zstd_input_watch(p_zfail, p);
	xmlParseDocument(p->ctxt);
	zstd_input_watch(NULL, NULL);
	p_done(p);
	return NULL;
}

/* The next block of records, or NULL at the end. */
static struct blk *pipe_take(struct pipe *p)
{
	struct blk *b;

	pthread_mutex_lock(&p->mu);
	while (!p->full && !p->done)
		pthread_cond_wait(&p->full_cv, &p->mu);
	if ((b = p->full) && !(p->full = b->next))
		p->full_tail = &p->full;
	pthread_mutex_unlock(&p->mu);
	return b;
}

static void pipe_give(struct pipe *p, struct blk *b)
{
	if (b->cap != PIPE_BLK) {
		free(b);
		return;
	}
	pthread_mutex_lock(&p->mu);
	b->next = p->free;
	p->free = b;
	pthread_cond_signal(&p->free_cv);
	pthread_mutex_unlock(&p->mu);
}

static void free_blks(struct blk *b)
{
	while (b) {
		struct blk *next = b->next;

		free(b);
		b = next;
	}
}

/* Stop the parser's thread, wait for it, free the blocks; on every way
 * out of the reader (die_cleanup on bad input), before the parser's
 * context is freed. */
static void pipe_end(void)
{
	struct pipe *p = piping;

	if (!p)
		return;
	piping = NULL;
	die_cleanup = NULL;
	pthread_mutex_lock(&p->mu);
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
	pthread_cond_signal(&p->free_cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	free_blks(p->full);
	free_blks(p->free);
	free(p->reading);
	p->full = p->free = p->reading = NULL;
}

/* die() while reading: the thread stopped, the rest freed (the reader
 * does not come back). */
static void pipe_abort(void)
{
	struct pipe *p = piping;

	pipe_end();
	free(p);
}

static void replay_start(struct reader *rd, const struct pipe_rec *r)
{
	int nattr = r->nattr;
	el_fn fn = el_open(rd, r->name);

	if (!fn && (!raw(rd) || rd->err))
		return;
	if (nattr > TRACE_MAXATTR)
		bad(rd, "<%s> has too many attributes", (const char *)r->name);

	const xmlChar *const *names = (const xmlChar *const *)(r + 1);
	const uint32_t *lens = (const uint32_t *)(names + nattr);
	const char *v = (const char *)r +
		REC_ALIGN(sizeof(struct pipe_rec) + nattr * (sizeof(xmlChar *) + sizeof(uint32_t)));

	for (int i = 0; i < nattr; i++) {
		rd->aname[i] = (const char *)names[i];
		rd->aval[i] = v;
		v += lens[i] + 1;
	}
	el_start(rd, r->name, nattr, fn);
}

static void pipe_replay(struct reader *rd, struct blk *b)
{
	for (size_t off = 0; off < b->used; ) {
		const struct pipe_rec *r = (const struct pipe_rec *)(b->data + off);

		off += r->size & ~REC_CLOSED;
		rd->rline = r->line;
		rd->rrec++;
		switch (r->nattr) {
		case R_END:
			el_close(rd);
			break;
		case R_TEXT:
			if (raw(rd) || args_wanted(rd)) {	/* its length, then its bytes */
				uint32_t n;

				memcpy(&n, r + 1, sizeof(n));
				on_text(rd, (const char *)(r + 1) + sizeof(n), n);
			} else {
				el_text(rd);	/* strict: text was there */
			}
			break;
		case R_DOCTYPE:
			die_at(2, rd->file, rd->rline, "a DOCTYPE is not allowed in a trace "
			       "(entities could read other files)");
		default:
			replay_start(rd, r);
			if (r->size & REC_CLOSED)
				el_close(rd);
		}
	}
}

/* Parse rd->ctxt in a second thread and read its records here; false
 * when no thread could be made (then the caller parses alone). The
 * outcome (parse error, .zst error) is the parser's, in rd as the one
 * thread's would be. */
/* A pipe with its blocks, its thread not yet made */
static struct pipe *pipe_new(void)
{
	static struct pipe p0;
	struct pipe *p = xmalloc(sizeof(*p));

	*p = p0;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->full_cv, NULL);
	pthread_cond_init(&p->free_cv, NULL);
	p->full_tail = &p->full;
	for (int i = 0; i < PIPE_NBLK; i++) {
		struct blk *b = xmalloc(sizeof(*b) + PIPE_BLK);

		b->cap = PIPE_BLK;
		b->next = p->free;
		p->free = b;
	}
	return p;
}

static void pipe_free(struct pipe *p)
{
	free(p->text);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->full_cv);
	pthread_cond_destroy(&p->free_cv);
	free(p);
}

/* The producing thread (its signals the caller's to take); false, the
 * pipe freed, when none could be made */
static bool pipe_spawn(struct pipe *p, void *(*fn)(void *))
{
	int e = thread_quiet(&p->thread, fn, p);

	if (e) {
		free_blks(p->free);
		pipe_free(p);
	}
	return !e;
}

/* The records, replayed here as they come; the thread joined. CLEANUP:
 * die_cleanup meanwhile. */
static void pipe_drain(struct reader *rd, struct pipe *p, void (*cleanup)(void))
{
	struct blk *b;

	piping = p;
	die_cleanup = cleanup;
	rd->pipe = p;
	rd->rrec = 0;
	while ((b = pipe_take(p))) {
		p->reading = b;
		pipe_replay(rd, b);
		p->reading = NULL;
		pipe_give(p, b);
	}
	pipe_end();
	rd->pipe = NULL;
}

static bool parse_piped(struct reader *rd, const char **zerr)
{
	struct pipe *p = pipe_new();
	xmlSAXHandlerPtr sax = rd->ctxt->sax;
	xmlSAXHandler keep = *sax;

	p->ctxt = rd->ctxt;
	p->raw = raw(rd) || args_wanted(rd);
	sax->startElementNs = p_start;
	sax->endElementNs = p_end;
	sax->serror = p_error;
	sax->internalSubset = p_doctype;
	if (sax->characters)
		sax->characters = sax->cdataBlock = p_text;
	rd->ctxt->_private = p;
	if (!pipe_spawn(p, p_main)) {
		*sax = keep;
		rd->ctxt->_private = rd;
		return false;
	}
	pipe_drain(rd, p, pipe_abort);
	if (p->oom)
		die(70, "out of memory reading %s", rd->file);
	rd->err = p->err;
	rd->errline = p->errline;
	rd->errcode = p->errcode;
	memcpy(rd->errmsg, p->errmsg, sizeof(rd->errmsg));
	if (!*zerr && p->zerr[0]) {
		static _Thread_local char z[sizeof(p->zerr)];

		memcpy(z, p->zerr, sizeof(z));
		*zerr = z;
	}
	pipe_free(p);
	return true;
}

/* Whether to parse in a second thread: for a file of PIPE_MIN bytes or
 * more (the thread and its blocks took analyze calls on a 10-event trace
 * from 2.5 to 2.8 ms). ISLAND_READER_THREADS=1 parses in the reading
 * thread, =2 in a second one whatever the size (tests compare the two). */
#define PIPE_MIN (1 << 20)

static bool piped_from(const char *file, off_t min)
{
	const char *v = getenv("ISLAND_READER_THREADS");
	struct stat st;

	if (v && !strcmp(v, "1"))
		return false;
	if (v && !strcmp(v, "2"))
		return true;
	return !stat(file, &st) && st.st_size >= min;
}

static bool piped(const char *file)
{
	return piped_from(file, PIPE_MIN);
}

/* The same for the binary encoding, whose files are smaller for as many
 * elements. */
static bool piped_bin(const char *file)
{
	return piped_from(file, PIPE_MIN / 8);
}

static bool is_gzip(const char *file)
{
	unsigned char m[2] = { 0, 0 };
	FILE *f = fopen(file, "rb");

	if (!f)
		return false;
	if (fread(m, 1, 2, f) != 2)
		m[0] = 0;
	fclose(f);
	return m[0] == 0x1f && m[1] == 0x8b;
}

/* The names the reader looks for, as DICT's pointers. */
static void names_init(struct reader *rd, xmlDictPtr dict)
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

/* --- the binary encoding (trace/isb.c) ---------------------------------- */

/* up to N decompressed bytes of IN; 0 at its end, -1 on an error */
static long in_read(xmlParserInputBufferPtr in, char *buf, size_t n)
{
	size_t have = xmlBufUse(in->buffer);

	if (!have) {
		if (xmlParserInputBufferRead(in, (int)(n < (1u << 20) ? n : (1u << 20))) < 0)
			return -1;
		have = xmlBufUse(in->buffer);
	}
	if (have > n)
		have = n;
	memcpy(buf, xmlBufContent(in->buffer), have);
	xmlBufShrink(in->buffer, have);
	return (long)have;
}

static long b_read(void *ctx, char *buf, size_t n)
{
	return in_read(((struct reader *)ctx)->bin, buf, n);
}

static const char *b_intern(void *ctx, const char *name, size_t n)
{
	struct reader *rd = ctx;
	const xmlChar *p = xmlDictLookup(rd->dict, BAD_CAST name, (int)n);

	if (!p)
		die(70, "out of memory reading %s", rd->file);
	return (const char *)p;
}

static void b_start(void *ctx, const char *name, int nattr, const char *const *names,
		    const char *const *values, bool empty)
{
	struct reader *rd = ctx;
	el_fn fn = el_open(rd, BAD_CAST name);

	if (fn || raw(rd)) {
		if (nattr > TRACE_MAXATTR)
			bad(rd, "<%s> has too many attributes", name);
		for (int i = 0; i < nattr; i++) {
			rd->aname[i] = names[i];
			rd->aval[i] = values[i];
		}
		el_start(rd, BAD_CAST name, nattr, fn);
	}
	if (empty)
		el_close(rd);
}

static void b_end(void *ctx)
{
	el_close(ctx);
}

static void b_text(void *ctx, const char *p, size_t n)
{
	on_text(ctx, p, n);
}

/* The binary file being read, freed by trace_read_try() when bad input
 * leaves it mid-stream. */
static _Thread_local struct reader *bin_active;

static void bin_free(struct reader *rd)
{
	isb_decode_abandon();
	if (rd->bin)
		xmlFreeParserInputBuffer(rd->bin);
	if (rd->dict)
		xmlDictFree(rd->dict);
	rd->bin = NULL;
	rd->dict = NULL;
}

/* die() while decoding: what the file's reading holds, freed (the reader
 * does not come back: exit, or trace_read_try's or a caller's longjmp) */
static void bin_abort(void)
{
	struct reader *rd = bin_active;

	die_cleanup = NULL;
	bin_active = NULL;
	if (rd)
		bin_free(rd);
}

static const struct isb_ops b_ops = {
	.read = b_read, .intern = b_intern, .start = b_start, .end = b_end,
	.text = b_text,
};

/* The file, when it is the binary encoding (IN is its decompressed
 * input, opened to look at its start). */
static bool binary_piped(struct reader *rd);

static void parse_binary(struct reader *rd, xmlParserInputBufferPtr in)
{
	char msg[256];
	const char *zerr;

	rd->bin = in;
	rd->dict = xmlDictCreate();
	if (!rd->dict)
		die(70, "out of memory reading %s", rd->file);
	names_init(rd, rd->dict);
	current = rd;
	bin_active = rd;
	die_cleanup = bin_abort;
	if (piped_bin(rd->file) && binary_piped(rd)) {
		/* done: read in a second thread */
	} else if (isb_decode(&b_ops, rd, &rd->rline, msg, sizeof(msg))) {
		if ((zerr = zstd_input_error()))
			die_at(2, rd->file, rd->rline, "%s", zerr);
		die_at(2, rd->file, rd->rline, "%s", msg);
	}
	if ((zerr = zstd_input_error()))
		die_at(2, rd->file, rd->rline, "%s", zerr);
	current = NULL;
	die_cleanup = NULL;
	bin_active = NULL;
	bin_free(rd);
}

/* The binary encoding decoded in a second thread (as parse_piped does
 * for XML): the decoder's callbacks only copy each element into the
 * pipe's records, which the calling thread replays. */
static long q_read(void *ctx, char *buf, size_t n)
{
	return in_read(((struct pipe *)ctx)->bin, buf, n);
}

static const char *q_intern(void *ctx, const char *name, size_t n)
{
	struct pipe *p = ctx;
	const xmlChar *s = xmlDictLookup(p->dict, BAD_CAST name, (int)n);

	if (!s) {
		p->oom = true;
		p_halt(p);
		return "";
	}
	return (const char *)s;
}

static void q_start(void *ctx, const char *name, int nattr, const char *const *names,
		    const char *const *values, bool empty)
{
	struct pipe *p = ctx;
	size_t head = REC_ALIGN(sizeof(struct pipe_rec) +
				nattr * (sizeof(xmlChar *) + sizeof(uint32_t)));
	size_t vals = 0, len[ISB_MAXATTR];
	struct pipe_rec *r;

	if (p_stopped(p))
		return;
	if (p->raw)
		p_raw_tag(p, true, empty);
	for (int i = 0; i < nattr; i++)
		vals += (len[i] = strlen(values[i])) + 1;
	if (!(r = p_rec(p, head + REC_ALIGN(vals), nattr, BAD_CAST name)))
		return;
	if (empty)
		r->size |= REC_CLOSED;

	const xmlChar **rn = (const xmlChar **)(r + 1);
	uint32_t *lens = (uint32_t *)(rn + nattr);
	char *v = (char *)r + head;

	for (int i = 0; i < nattr; i++) {
		rn[i] = BAD_CAST names[i];
		lens[i] = (uint32_t)len[i];
		memcpy(v, values[i], len[i] + 1);
		v += len[i] + 1;
	}
}

static void q_end(void *ctx)
{
	struct pipe *p = ctx;

	if (p_stopped(p))
		return;
	if (p->raw)
		p_raw_tag(p, false, false);
	p_rec(p, REC_END_SIZE, R_END, NULL);
}

static void q_text(void *ctx, const char *t, size_t n)
{
	struct pipe *p = ctx;

	/* text is an error to a strict reader only, as in XML */
	if (p->raw)
		p_raw_text(p, t, n);
	else if (p->strict && !p_stopped(p) && is_text(BAD_CAST t, (int)n))
		p_rec(p, sizeof(struct pipe_rec), R_TEXT, NULL);
}

static bool q_halted(void *ctx)
{
	return p_stopped(ctx);
}

static const struct isb_ops q_ops = {
	.read = q_read, .intern = q_intern, .start = q_start, .end = q_end,
	.text = q_text, .halted = q_halted,
};

static void *q_main(void *arg)
{
	struct pipe *p = arg;

	zstd_input_watch(p_zfail, p);
	if (isb_decode(&q_ops, p, &p->bline, p->errmsg, sizeof(p->errmsg)) && !p->halted) {
		p->err = true;
		p->errline = (int)p->bline;
	}
	zstd_input_watch(NULL, NULL);
	p_done(p);
	return NULL;
}

static void bpipe_abort(void)
{
	pipe_abort();
	bin_abort();
}

/* False when no thread could be made (then the caller decodes alone). */
static bool binary_piped(struct reader *rd)
{
	struct pipe *p = pipe_new();

	p->bin = rd->bin;
	p->dict = rd->dict;
	p->strict = rd->ops->strict && !rd->prescan;
	p->raw = raw(rd) || args_wanted(rd);
	if (!pipe_spawn(p, q_main))
		return false;
	pipe_drain(rd, p, bpipe_abort);
	die_cleanup = bin_abort;
	if (p->oom)
		die(70, "out of memory reading %s", rd->file);
	if (p->zerr[0])
		die_at(2, rd->file, p->bline, "%s", p->zerr);
	if (p->err)
		die_at(2, rd->file, p->errline, "%s", p->errmsg);
	pipe_free(p);
	return true;
}

/* Read the file's (decompressed) start: the binary encoding is read
 * here, and true returned. */
static bool is_binary(struct reader *rd)
{
	xmlParserInputBufferPtr in;

	in = xmlParserInputBufferCreateFilename(rd->file, XML_CHAR_ENCODING_NONE);
	if (!in)
		return false;
	while (xmlBufUse(in->buffer) < ISB_MAGIC_LEN)
		if (xmlParserInputBufferRead(in, 4096) <= 0)
			break;
	if (!isb_magic((const char *)xmlBufContent(in->buffer), xmlBufUse(in->buffer))) {
		xmlFreeParserInputBuffer(in);
		(void)zstd_input_error();	/* the XML parser reads it again */
		return false;
	}
	parse_binary(rd, in);
	return true;
}

static void parse_one(struct reader *rd)
{
	xmlSAXHandler sax;
	xmlParserCtxtPtr ctxt;
	const char *zerr;

	if (access(rd->file, R_OK))
		die_at(2, rd->file, 0, "cannot read: %s", strerror(errno));
	if (is_binary(rd))
		return;
	memset(&sax, 0, sizeof(sax));
	sax.initialized = XML_SAX2_MAGIC;
	sax.startElementNs = sax_start;
	sax.endElementNs = sax_end;
	sax.serror = sax_error;
	sax.internalSubset = sax_doctype;
	if ((rd->ops->strict || rd->ops->element || rd->ops->command) && !rd->prescan)
		sax.characters = sax.cdataBlock = sax_text;
	/* NOENT decodes character references in attributes; with no DOCTYPE
	 * allowed (sax_doctype) no entity can be declared to substitute */
	ctxt = xmlCreateURLParserCtxt(rd->file, XML_PARSE_NONET | XML_PARSE_NOENT);
	if (!ctxt)
		die_at(2, rd->file, 0, "cannot open as XML");
	xmlFree(ctxt->sax);
	ctxt->sax = &sax;
	ctxt->_private = rd;
	ctxt->userData = ctxt;
	rd->ctxt = ctxt;
	active = ctxt;
	current = rd;
	names_init(rd, ctxt->dict);
	zerr = zstd_input_error();	/* the file's start, read here */
	if (!piped(rd->file) || !parse_piped(rd, &zerr)) {
		xmlParseDocument(ctxt);
		if (!zerr)
			zerr = zstd_input_error();
	}
	current = NULL;
	if (rd->err) {
		rd->ctxt = NULL;
		if (zerr)
			die_at(2, rd->file, rd->errline > 0 ? rd->errline : 1, "%s", zerr);
		if (!rd->seen_root && is_gzip(rd->file))
			die_at(2, rd->file, 0, "truncated or corrupt gzip data");
		if (!rd->seen_root)
			die_at(2, rd->file, rd->errline, "not an XML document: %s", rd->errmsg);
		if (truncated_at(rd->file, rd->errline))
			die_at(2, rd->file, rd->errline,
			       "truncated trace (the document ends before </trace>)");
		die_at(2, rd->file, rd->errline, "not well-formed XML: %s", rd->errmsg);
	}
	if (!rd->seen_root)
		die_at(2, rd->file, 1, "not an XML document");
	/* the document whole, the stream it came in not (its checksum) */
	if (zerr)
		die_at(2, rd->file, ctxt->input ? ctxt->input->line : 1, "%s", zerr);
	ctxt->sax = NULL;
	xmlFreeParserCtxt(ctxt);
	rd->ctxt = NULL;
	active = NULL;
}

static void reader_init(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	xmlInitParser();
	xmlSetGenericErrorFunc(NULL, quiet);
}

long trace_line(void)
{
	return current ? line(current) : 0;
}

static void read_all(struct trace_run *run, char **files, int nfiles,
		     const struct trace_ops *ops, void *ctx, bool pre)
{
	static const struct trace_ops none;
	/* not on the stack: trace_read_abandon frees its buffers after a
	 * longjmp out of here */
	static _Thread_local struct reader rd;
	struct vtotals tot = { 0, 0 };

	zstd_input_register();	/* .zst traces read like any other, for any
				   program that links the library */

	reader_init();
	for (int i = 0; i < nfiles; i++) {
		memset(&rd, 0, sizeof(rd));
		rd.file = files[i];
		rd.run = run;
		rd.ops = ops ? ops : &none;
		rd.ctx = ctx;
		rd.prescan = pre;
		rd.tot = &tot;
		rd.first_node = run->nnodes;
		reading = &rd;
		parse_one(&rd);
		reading = NULL;
		free(rd.buf);
		free(rd.text);
		rd.buf = rd.text = NULL;
		args_free(&rd);
		free(rd.args);
		free(rd.arg);
	}
}

void trace_read(struct trace_run *run, char **files, int nfiles,
		const struct trace_ops *ops, void *ctx)
{
	read_all(run, files, nfiles, ops, ctx, false);
}

static void try_die(int status)
{
	longjmp(*try_back, 1);
}

void trace_read_abandon(void)
{
	current = NULL;
	if (bin_active) {
		bin_free(bin_active);
		bin_active = NULL;
	}
	if (active) {
		active->sax = NULL;	/* parse_one's, gone */
		xmlFreeParserCtxt(active);	/* closes the file */
		active = NULL;
	}
	if (reading) {
		free(reading->buf);
		free(reading->text);
		reading->buf = reading->text = NULL;
		reading = NULL;
	}
}

/* The message is printed by die_at() before its hook runs: the hook
 * returns here instead of exiting. What the reader allocated for the file
 * is freed; the run keeps what was read. */
int trace_read_try(struct trace_run *run, char **files, int nfiles,
		   const struct trace_ops *ops, void *ctx)
{
	void (*old)(int) = die_hook_here;
	jmp_buf back;

	try_back = &back;
	if (setjmp(back)) {
		trace_read_abandon();
		die_hook_here = old;
		try_back = NULL;
		return -1;
	}
	die_hook_here = try_die;
	trace_read(run, files, nfiles, ops, ctx);
	die_hook_here = old;
	try_back = NULL;
	return 0;
}

/* A first pass that only learns the nodes: their epochs (the run is
 * aligned on the earliest) and their spans. */
void trace_prescan(struct trace_run *run, char **files, int nfiles)
{
	struct trace_run tmp;

	memset(&tmp, 0, sizeof(tmp));
	read_all(&tmp, files, nfiles, NULL, NULL, true);
	for (size_t i = 0; i < tmp.nnodes; i++)
		if (i == 0 || tmp.nodes[i]->epoch < run->epoch0)
			run->epoch0 = tmp.nodes[i]->epoch;
	run->have_epoch0 = tmp.nnodes > 0;
	run->t0 = run->t1 = 0;
	for (size_t i = 0; i < tmp.nnodes; i++) {
		struct trace_node *n = tmp.nodes[i];
		int64_t off = n->epoch - run->epoch0;

		if (i == 0 || n->start + off < run->t0)
			run->t0 = n->start + off;
		if (i == 0 || n->end + off > run->t1)
			run->t1 = n->end + off;
	}
	trace_run_free(&tmp);
	run->prescanned = true;
}

void trace_run_free(struct trace_run *run)
{
	for (size_t i = 0; i < run->nnodes; i++) {
		free(run->nodes[i]->profile);
		free(run->nodes[i]->name);
		free(run->nodes[i]->host);
		free(run->nodes[i]->file);
		free(run->nodes[i]->pcap);
		free(run->nodes[i]->unseen);
		free(run->nodes[i]->stops);
		free(run->nodes[i]);
	}
	for (size_t i = 0; i < run->nprocs; i++) {
		for (size_t k = 0; k < run->procs[i]->nmods; k++) {
			free(run->procs[i]->mods[k].path);
			free(run->procs[i]->mods[k].build_id);
		}
		free(run->procs[i]->mods);
		free(run->procs[i]->exe);
		free(run->procs[i]->first_exe);
		free(run->procs[i]->status);
		free(run->procs[i]->cwd);
		free(run->procs[i]->reason);
		free(run->procs[i]->unprofiled);
		free(run->procs[i]);
	}
	for (size_t i = 0; i < run->nthreads; i++) {
		free(run->threads[i]->name);
		free(run->threads[i]->exit);
		free(run->threads[i]);
	}
	free(run->nodes);
	free(run->procs);
	free(run->threads);
	memset(run, 0, sizeof(*run));
}
