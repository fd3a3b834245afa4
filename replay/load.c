/* The trace loader: one pass of xmlTextReader (a 1,000,000-call trace never
 * becomes a DOM), .xml.gz read transparently by libxml2. Anything we do not
 * understand is an error with its line: a replay must not guess. */
#include "replay.h"
#include "util.h"
#include "zstdio.h"
#include "validate.h"

#include <libxml/xmlreader.h>
#include <stdlib.h>
#include <string.h>

/* ---- interned strings: a trace repeats its few paths a million times -- */

static const char **itab;
static size_t icap, icount;

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

const char *intern(const char *s)
{
	if (!s)
		return NULL;
	if (icount * 2 >= icap) {
		size_t ncap = icap ? icap * 2 : 1024;
		const char **n = xcalloc(ncap, sizeof(*n));

		for (size_t i = 0; i < icap; i++) {
			if (!itab[i])
				continue;
			size_t j = hash(itab[i]) & (ncap - 1);
			while (n[j])
				j = (j + 1) & (ncap - 1);
			n[j] = itab[i];
		}
		free(itab);
		itab = n;
		icap = ncap;
	}
	size_t j = hash(s) & (icap - 1);
	while (itab[j]) {
		if (!strcmp(itab[j], s))
			return itab[j];
		j = (j + 1) & (icap - 1);
	}
	itab[j] = xstrdup(s);
	icount++;
	return itab[j];
}

/* ---- reader state ------------------------------------------------------ */

struct rd {
	const char *file;
	xmlTextReaderPtr r;
	struct trace *t;
	struct node *node;
	struct process *proc;
	struct thread *thr;
	int seq_seen;	/* per node */
	struct vtotals tot;	/* what the trace adds up to (validate.h) */
	char *vbuf;	/* the current element's attribute values */
	size_t vcap;
	char err[256];
	long errline;
};

/* The element's own line (the parser's may be ahead: it reads in
 * blocks); the parser's when there is no element. */
static long line_of(struct rd *rd)
{
	xmlNodePtr n = xmlTextReaderCurrentNode(rd->r);
	long l = n ? xmlGetLineNo(n) : -1;

	return l > 0 ? l : xmlTextReaderGetParserLineNumber(rd->r);
}

static void bad(struct rd *rd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static void bad(struct rd *rd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	die_at(2, rd->file, line_of(rd), "%s", msg);
}

/* libxml2's first complaint becomes our one-line error. */
static void on_xml_error(void *arg, xmlErrorPtr e)
{
	struct rd *rd = arg;

	if (rd->err[0] || e->level < XML_ERR_ERROR)
		return;
	snprintf(rd->err, sizeof(rd->err), "%s", e->message ? e->message : "parse error");
	size_t n = strlen(rd->err);
	while (n && (rd->err[n - 1] == '\n' || rd->err[n - 1] == ' '))
		rd->err[--n] = 0;
	rd->errline = e->line;
}

static const char *attr(struct rd *rd, const char *name)
{
	static char *held[8];
	static int next;
	char *v = (char *)xmlTextReaderGetAttribute(rd->r, BAD_CAST name);

	/* a small ring keeps the few values a caller uses at once alive */
	free(held[next]);
	held[next] = v;
	next = (next + 1) % 8;
	return v;
}

static const char *need(struct rd *rd, const char *el, const char *name)
{
	const char *v = attr(rd, name);

	if (!v)
		bad(rd, "<%s> without %s", el, name);
	return v;
}

static int64_t sec_attr(struct rd *rd, const char *el, const char *name, int req, int64_t dflt)
{
	const char *v = req ? need(rd, el, name) : attr(rd, name);
	int64_t ns;

	if (!v)
		return dflt;
	if (!strcmp(v, "-1"))
		return -1;
	if (parse_sec(v, &ns))
		bad(rd, "<%s> %s=\"%s\" is not a time in seconds", el, name, v);
	return ns;
}

static int64_t int_attr(struct rd *rd, const char *el, const char *name, int *has, int64_t dflt)
{
	const char *v = attr(rd, name);
	char *end;

	if (has)
		*has = v != NULL;
	if (!v)
		return dflt;
	long long x = strtoll(v, &end, 10);
	if (end == v || *end)
		bad(rd, "<%s> %s=\"%s\" is not an integer", el, name, v);
	return x;
}

static const struct { const char *name; int res; } res_names[] = {
	{ "fileread", RES_FILEREAD }, { "filewrite", RES_FILEWRITE },
	{ "filemeta", RES_FILEMETA }, { "netsend", RES_NETSEND },
	{ "netrecv", RES_NETRECV }, { "netmeta", RES_NETMETA },
	{ "sleep", RES_SLEEP }, { "wait", RES_WAIT }, { "proc", RES_PROC }, { "sys", RES_SYS },
};

static const char *const proto_names[] = {
	[P_TCP] = "tcp", [P_UDP] = "udp", [P_UNIX_STREAM] = "unix-stream",
	[P_UNIX_DGRAM] = "unix-dgram", [P_PIPE] = "pipe", [P_OTHER] = "other",
};

static int proto_of(const char *v)
{
	if (!v)
		return P_NONE;
	for (size_t i = 1; i < sizeof(proto_names) / sizeof(*proto_names); i++)
		if (!strcmp(v, proto_names[i]))
			return (int)i;
	return P_OTHER;
}

static struct op *new_op(struct rd *rd, int kind)
{
	struct thread *th = rd->thr;

	XGROW(th->ops, th->cap, th->nops + 1);
	struct op *o = &th->ops[th->nops++];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->line = (uint32_t)line_of(rd);
	o->fd = o->oldfd = o->fd2 = o->infd = -1;
	o->node = -1;
	o->child = -1;
	o->target = -1;
	o->whence = -1;
	return o;
}

static void read_io(struct rd *rd)
{
	struct op *o = new_op(rd, OP_IO);
	const char *api = need(rd, "io", "api"), *res = need(rd, "io", "res");
	int has;

	for (size_t i = 0; i < sizeof(res_names) / sizeof(*res_names); i++)
		if (!strcmp(res, res_names[i].name))
			o->res = res_names[i].res;
	if (!o->res)
		bad(rd, "<io> res=\"%s\" is not a resource class", res);
	o->call = call_lookup(api, o->res);
	o->start = sec_attr(rd, "io", "start", 1, 0);
	o->dur = sec_attr(rd, "io", "end", 1, 0) - o->start;	/* validated: >= 0 */
	o->amount = int_attr(rd, "io", "amount", &has, 0);
	o->has_amount = has;
	o->size = int_attr(rd, "io", "size", NULL, 0);
	o->offset = int_attr(rd, "io", "offset", &has, 0);
	o->has_offset = has;
	o->result = int_attr(rd, "io", "result", &has, 0);
	o->has_result = has;
	o->fd = (int32_t)int_attr(rd, "io", "fd", NULL, -1);
	o->oldfd = (int32_t)int_attr(rd, "io", "oldfd", NULL, -1);
	o->fd2 = (int32_t)int_attr(rd, "io", "fd2", NULL, -1);
	o->infd = (int32_t)int_attr(rd, "io", "infd", NULL, -1);
	o->count = (int32_t)int_attr(rd, "io", "count", NULL, -1);
	o->child = int_attr(rd, "io", "child", NULL, -1);
	o->req = sec_attr(rd, "io", "req", 0, -1);
	o->timeout = sec_attr(rd, "io", "timeout", 0, -2);
	o->path = intern(attr(rd, "path"));
	o->path2 = intern(attr(rd, "path2"));
	/* a connect's original local address names its connection (net.c) */
	if (!o->path2 && o->call && !strcmp(o->call->api, "connect"))
		o->path2 = intern(attr(rd, "local"));
	o->inpath = intern(attr(rd, "inpath"));
	o->peer = intern(attr(rd, "peer"));
	o->flags = intern(attr(rd, "flags"));
	o->proto = (uint8_t)proto_of(attr(rd, "proto"));
	/* a non-blocking connect under way (EINPROGRESS) goes on to connect */
	const char *en = attr(rd, "errno");
	o->failed = en && strcmp(en, "EINPROGRESS");
	o->in_progress = en && !o->failed;
	if (o->call && !strncmp(o->call->api, "exec", 4) && o->path && !o->failed)
		rd->proc->exe = o->path;
	const char *w = attr(rd, "whence");
	if (w)
		o->whence = !strcmp(w, "SEEK_SET") ? 0 : !strcmp(w, "SEEK_CUR") ? 1 :
			    !strcmp(w, "SEEK_END") ? 2 : !strcmp(w, "SEEK_DATA") ? 3 : 4;
	o->seq = (uint32_t)int_attr(rd, "io", "seq", &has, 0);
	if (has)
		rd->seq_seen = 1;
	rd->node->nall++;
	if (has)
		rd->node->nios++;
}

/* Where each element may appear; anything else is rejected. */
static const struct { const char *el, *parent; } grammar[] = {
	{ "trace", "" }, { "node", "trace" }, { "command", "node" },
	{ "arg", "command" }, { "restrictions", "node" }, { "limit", "restrictions" },
	{ "stops", "node" }, { "stop", "stops" }, { "process", "node" },
	{ "thread", "process" }, { "compute", "thread" }, { "io", "thread" },
	{ "region", "thread" }, { "wait", "thread" }, { "signal", "thread" },
	{ "files", "node" }, { "file", "files" }, { "sockets", "node" },
	{ "socket", "sockets" },
	/* what the replay has no use for: call sites and the profiler */
	{ "module", "process" }, { "profile", "node" }, { "sample", "thread" },
	{ "free", "thread" },
};

/* The element's attributes through the shared validator: island-analyze
 * refuses the same values with the same message. */
static void validate(struct rd *rd, const char *el)
{
	struct vattr va[VMAXATTR + 1];
	size_t off[VMAXATTR + 1], used = 0;
	char msg[256];
	int n = 0;

	if (xmlTextReaderMoveToFirstAttribute(rd->r) == 1) {
		do {
			const char *v = (const char *)xmlTextReaderConstValue(rd->r);
			size_t l = strlen(v ? v : "") + 1;

			/* a value lives until the next move: copied */
			XGROW(rd->vbuf, rd->vcap, used + l);
			memcpy(rd->vbuf + used, v ? v : "", l);
			va[n].name = (const char *)xmlTextReaderConstName(rd->r);
			off[n++] = used;
			used += l;
		} while (n <= VMAXATTR && xmlTextReaderMoveToNextAttribute(rd->r) == 1);
		xmlTextReaderMoveToElement(rd->r);
	}
	for (int i = 0; i < n; i++)
		va[i].value = rd->vbuf + off[i];
	if (validate_element(el, va, n, &rd->tot, msg, sizeof(msg)))
		bad(rd, "%s", msg);
}

/* Waits name nodes that may come later in the file: names are kept and
 * resolved once every node is known. */
struct pending { const char *name; size_t node, thr, op; long line; };
static struct pending *pend;
static size_t npend, pendcap;

static void start_element(struct rd *rd, const char *el, const char *parent)
{
	size_t i;

	for (i = 0; i < sizeof(grammar) / sizeof(*grammar); i++)
		if (!strcmp(el, grammar[i].el))
			break;
	if (i == sizeof(grammar) / sizeof(*grammar))
		bad(rd, "unknown element <%s>", el);
	if (strcmp(parent, grammar[i].parent)) {
		char msg[256];

		validate_misplaced(el, parent, msg, sizeof(msg));
		bad(rd, "%s", msg);
	}
	validate(rd, el);

	struct trace *t = rd->t;
	if (!strcmp(el, "trace")) {
		const char *v = need(rd, "trace", "version");
		if (strcmp(v, "1"))
			bad(rd, "trace version %s is not supported (island-replay reads version 1)", v);
		const char *c = attr(rd, "complete");
		t->complete = !c || strcmp(c, "false");
	} else if (!strcmp(el, "node")) {
		XGROW(t->nodes, t->cap, t->nnodes + 1);
		struct node *n = &t->nodes[t->nnodes++];
		memset(n, 0, sizeof(*n));
		n->line = (uint32_t)line_of(rd);
		n->name = intern(need(rd, "node", "name"));
		for (size_t k = 0; k + 1 < t->nnodes; k++)
			if (t->nodes[k].name == n->name) {
				char msg[256];

				validate_dup_node(n->name, msg, sizeof(msg));
				bad(rd, "%s", msg);
			}
		n->epoch = sec_attr(rd, "node", "epoch", 0, 0);
		/* aligned with the session's reference clock (across hosts) */
		const char *co = attr(rd, "clock_offset");
		int64_t off = 0;
		if (co && !parse_sec(co, &off))	/* validated: within a day */
			n->epoch += off;
		n->start = sec_attr(rd, "node", "start", 0, 0);
		n->end = sec_attr(rd, "node", "end", 0, 0);
		rd->node = n;
		rd->seq_seen = 0;
	} else if (!strcmp(el, "process")) {
		struct node *n = rd->node;
		XGROW(n->procs, n->pcap, n->nprocs + 1);
		struct process *p = &n->procs[n->nprocs++];
		memset(p, 0, sizeof(*p));
		p->line = (uint32_t)line_of(rd);
		p->pid = int_attr(rd, "process", "pid", NULL, 0);
		p->ppid = int_attr(rd, "process", "ppid", NULL, 0);
		p->start = sec_attr(rd, "process", "start", 0, 0);
		p->end = sec_attr(rd, "process", "end", 0, 0);
		p->cwd = intern(attr(rd, "cwd"));
		if (!p->cwd)
			p->cwd = intern("/");
		p->status = intern(attr(rd, "status"));
		if (!p->status)
			p->status = intern("unknown");
		p->exe = p->image = intern(attr(rd, "exe"));
		p->parent = -1;
		rd->proc = p;
	} else if (!strcmp(el, "thread")) {
		struct node *n = rd->node;
		XGROW(n->threads, n->tcap, n->nthreads + 1);
		struct thread *th = &n->threads[n->nthreads];
		memset(th, 0, sizeof(*th));
		th->line = (uint32_t)line_of(rd);
		th->tid = int_attr(rd, "thread", "tid", NULL, 0);
		th->creator = int_attr(rd, "thread", "creator", NULL, 0);
		th->start = sec_attr(rd, "thread", "start", 1, 0);
		th->end = sec_attr(rd, "thread", "end", 1, 0);
		(void)sec_attr(rd, "thread", "cpu", 0, -1);	/* checked, unused */
		th->proc = (int)(rd->proc - n->procs);
		XGROW(rd->proc->threads, rd->proc->cap, rd->proc->nthreads + 1);
		rd->proc->threads[rd->proc->nthreads++] = (int)n->nthreads;
		n->nthreads++;
		rd->thr = th;
	} else if (!strcmp(el, "compute")) {
		struct op *o = new_op(rd, OP_COMPUTE);
		o->dur = sec_attr(rd, "compute", "dur", 1, 0);
	} else if (!strcmp(el, "io")) {
		read_io(rd);
	} else if (!strcmp(el, "wait") || !strcmp(el, "signal")) {
		int w = el[0] == 'w';
		struct op *o = new_op(rd, w ? OP_WAIT : OP_SIGNAL);
		int has;
		XGROW(pend, pendcap, npend + 1);
		pend[npend++] = (struct pending){
			intern(need(rd, el, "node")), (size_t)(rd->node - t->nodes),
			(size_t)(rd->thr - rd->node->threads), rd->thr->nops - 1, line_of(rd)
		};
		o->seq = (uint32_t)int_attr(rd, el, "seq", &has, 0);
		if (w && !has)
			bad(rd, "<wait> without seq");
	} else if (!strcmp(el, "socket")) {
		struct node *n = rd->node;
		XGROW(n->socks, n->scap, n->nsocks + 1);
		struct sock_sum *s = &n->socks[n->nsocks++];
		const char *d = attr(rd, "direction");
		s->local = intern(attr(rd, "local"));
		s->peer = intern(attr(rd, "peer"));
		s->dir = d && !strcmp(d, "in") ? 'i' : d && !strcmp(d, "out") ? 'o' : 0;
		s->proto = (uint8_t)proto_of(attr(rd, "proto"));
	}
}

static int by_start(const void *a, const void *b)
{
	const struct op *x = *(struct op *const *)a, *y = *(struct op *const *)b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x < y ? -1 : x > y;	/* ops of one thread are in order */
}

/* A node without seq on its io gets them in its order of I/O (start). */
static void end_node(struct rd *rd)
{
	struct node *n = rd->node;

	/* give back what doubling the arrays left unused */
	for (size_t i = 0; i < n->nthreads; i++)
		if (n->threads[i].nops) {
			n->threads[i].ops = xrealloc(n->threads[i].ops,
						     n->threads[i].nops * sizeof(struct op));
			n->threads[i].cap = n->threads[i].nops;
		}
	struct op **all = xmalloc(n->nall * sizeof(*all) + 1);
	size_t k = 0;
	for (size_t i = 0; i < n->nthreads; i++)
		for (size_t j = 0; j < n->threads[i].nops; j++)
			if (n->threads[i].ops[j].kind == OP_IO)
				all[k++] = &n->threads[i].ops[j];
	if (!rd->seq_seen) {
		/* no numbering in the trace: every io, in order of start */
		qsort(all, k, sizeof(*all), by_start);
		for (size_t i = 0; i < k; i++)
			all[i]->seq = all[i]->vid = (uint32_t)(i + 1);
		n->nios = n->nall;
	} else {
		/* the causality engine numbers what it counts as I/O (not a
		 * sleep, say): each seq once, from 1 to nios */
		uint8_t *seen = xcalloc(n->nios + 1, 1);
		uint32_t extra = n->nios;
		for (size_t i = 0; i < k; i++) {
			uint32_t s = all[i]->seq;
			if (!s) {
				all[i]->vid = ++extra;
				continue;
			}
			all[i]->vid = s;
			if (s < 1 || s > n->nios) {
				char msg[256];

				validate_seq_range(n->name, s, n->nios, msg, sizeof(msg));
				die_at(2, rd->file, all[i]->line, "%s", msg);
			}
			if (seen[s]++)
				die_at(2, rd->file, all[i]->line, "seq %u used twice in node \"%s\"", s, n->name);
		}
		free(seen);
	}
	free(all);
	rd->node = NULL;
}

int node_index(const struct trace *t, const char *name)
{
	for (size_t i = 0; i < t->nnodes; i++)
		if (!strcmp(t->nodes[i].name, name))
			return (int)i;
	return -1;
}

struct trace *trace_load(const char *file)
{
	struct rd rd = { .file = file };
	char stack[32][16];
	int depth = 0, ret;
	const char *zerr;

	rd.r = xmlReaderForFile(file, NULL, XML_PARSE_NONET | XML_PARSE_NOBLANKS);
	if (!rd.r)
		die(2, "%s: cannot open:", file);
	xmlTextReaderSetStructuredErrorHandler(rd.r, on_xml_error, &rd);
	validate_reset();	/* a new dictionary */
	rd.t = xcalloc(1, sizeof(*rd.t));
	rd.t->file = file;
	npend = 0;
	while ((ret = xmlTextReaderRead(rd.r)) == 1) {
		int type = xmlTextReaderNodeType(rd.r);
		const char *name = (const char *)xmlTextReaderConstName(rd.r);

		if (type == XML_READER_TYPE_ELEMENT) {
			if (depth >= 32)
				bad(&rd, "elements nested too deep");
			start_element(&rd, name, depth ? stack[depth - 1] : "");
			if (!xmlTextReaderIsEmptyElement(rd.r)) {
				snprintf(stack[depth], sizeof(stack[depth]), "%s", name);
				depth++;
			} else if (!strcmp(name, "node")) {
				end_node(&rd);
			}
		} else if (type == XML_READER_TYPE_END_ELEMENT) {
			depth--;
			if (!strcmp(name, "node"))
				end_node(&rd);
		} else if (type == XML_READER_TYPE_TEXT && depth &&
			   strcmp(stack[depth - 1], "arg")) {
			bad(&rd, "unexpected text in <%s>", stack[depth - 1]);
		}
	}
	if ((ret < 0 || rd.err[0]) && (zerr = zstd_input_error()))	/* not the XML's fault */
		die_at(2, file, rd.errline > 0 ? rd.errline : line_of(&rd), "%s", zerr);
	if (ret < 0 || rd.err[0])
		die_at(2, file, rd.errline > 0 ? rd.errline : line_of(&rd),
		       "malformed XML: %s", rd.err[0] ? rd.err : "parse error");
	xmlFreeTextReader(rd.r);
	free(rd.vbuf);
	if (!rd.t->nnodes)
		die_at(2, file, 0, "no <node> in the trace");

	for (size_t i = 0; i < npend; i++) {
		struct pending *p = &pend[i];
		struct op *o = &rd.t->nodes[p->node].threads[p->thr].ops[p->op];
		o->node = node_index(rd.t, p->name);
		if (o->node < 0)
			die_at(2, file, p->line, "<%s> names unknown node \"%s\"",
			       o->kind == OP_WAIT ? "wait" : "signal", p->name);
		if (o->kind == OP_WAIT)
			rd.t->nodes[o->node].waited = 1;
		if (o->kind == OP_WAIT && (o->seq < 1 || o->seq > rd.t->nodes[o->node].nios)) {
			char msg[256];

			validate_wait_range(p->name, o->seq, rd.t->nodes[o->node].nios, msg,
					    sizeof(msg));
			die_at(2, file, p->line, "%s", msg);
		}
	}
	free(pend);
	pend = NULL;
	npend = pendcap = 0;
	return rd.t;
}
