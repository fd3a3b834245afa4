#include "validate.h"
#include "island-trace.h"
#include "util.h"
#include "trace/calls.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum vtype {
	V_STR,		/* any text: only required or not */
	V_TIME,		/* seconds, 0 to VTIME_MAX ns */
	V_TIMEOUT,	/* a time, or -1: none */
	V_INT,		/* an integer in [min, max] */
	V_RATE,		/* a finite number >= 0 */
	V_BOOL,		/* true, false, 1, 0 */
	V_RES,		/* a resource class */
	V_OFFSET,	/* signed seconds within a day (a clock's offset) */
};

struct vrule {
	const char *el, *name;
	enum vtype type;
	bool need;
	int64_t min, max;
	char adds;	/* to the trace's durations (T) or amounts (A) */
	char role;	/* start, end, id, parent: s, e, i, p; an io's api,
			 * res, amount, level for its call's row: c, r, a, l */
};

#define I32 INT32_MIN, INT32_MAX
#define NEED true
#define OPT false

static const struct vrule rules[] = {
	{ "trace",   "complete",      V_BOOL,    OPT, 0, 0, 0, 0 },
	{ "node",    "name",          V_STR,     NEED, 0, 0, 0, 0 },
	{ "node",    "epoch",         V_TIME,    OPT, 0, 0, 0, 0 },
	{ "node",    "start",         V_TIME,    OPT, 0, 0, 0, 's' },
	{ "node",    "end",           V_TIME,    OPT, 0, 0, 0, 'e' },
	{ "node",    "clock_offset",  V_OFFSET,  OPT, 0, 0, 0, 0 },
	{ "node",    "stopped",       V_TIME,    OPT, 0, 0, 0, 0 },
	{ "node",    "mpi_rank",      V_INT,     OPT, 0, INT32_MAX, 0, 0 },
	{ "limit",   "resource",      V_STR,     NEED, 0, 0, 0, 0 },
	{ "limit",   "value",         V_RATE,    NEED, 0, 0, 0, 0 },
	{ "stop",    "start",         V_TIME,    NEED, 0, 0, 0, 's' },
	{ "stop",    "dur",           V_TIME,    NEED, 0, 0, 'T', 0 },
	{ "process", "pid",           V_INT,     OPT, I32, 0, 0 },
	{ "process", "ppid",          V_INT,     OPT, I32, 0, 0 },
	{ "process", "start",         V_TIME,    OPT, 0, 0, 0, 's' },
	{ "process", "end",           V_TIME,    OPT, 0, 0, 0, 'e' },
	{ "process", "complete",      V_BOOL,    OPT, 0, 0, 0, 0 },
	{ "thread",  "tid",           V_INT,     OPT, I32, 0, 0 },
	{ "thread",  "creator",       V_INT,     OPT, I32, 0, 0 },
	{ "thread",  "start",         V_TIME,    NEED, 0, 0, 0, 's' },
	{ "thread",  "end",           V_TIME,    NEED, 0, 0, 0, 'e' },
	{ "thread",  "cpu",           V_TIME,    OPT, 0, 0, 'T', 0 },
	{ "thread",  "lost",          V_INT,     OPT, 0, VBIG_MAX, 'A', 0 },
	{ "thread",  "complete",      V_BOOL,    OPT, 0, 0, 0, 0 },
	{ "compute", "dur",           V_TIME,    NEED, 0, 0, 'T', 0 },
	{ "io",      "api",           V_STR,     NEED, 0, 0, 0, 'c' },
	{ "io",      "res",           V_RES,     NEED, 0, 0, 0, 'r' },
	{ "io",      "start",         V_TIME,    NEED, 0, 0, 0, 's' },
	{ "io",      "end",           V_TIME,    NEED, 0, 0, 0, 'e' },
	{ "io",      "amount",        V_INT,     OPT, 0, VBYTES_MAX, 'A', 'a' },
	{ "io",      "kernel_amount", V_INT,     OPT, 0, VBYTES_MAX, 'A', 0 },
	/* a request, not bytes moved: cat asks copy_file_range for SSIZE_MAX */
	{ "io",      "size",          V_INT,     OPT, 0, INT64_MAX, 0, 0 },
	{ "io",      "offset",        V_INT,     OPT, -VBIG_MAX, VBIG_MAX, 0, 0 },
	{ "io",      "result",        V_INT,     OPT, -VBIG_MAX, VBIG_MAX, 0, 0 },
	{ "io",      "fd",            V_INT,     OPT, I32, 0, 0 },
	{ "io",      "oldfd",         V_INT,     OPT, I32, 0, 0 },
	{ "io",      "fd2",           V_INT,     OPT, I32, 0, 0 },
	{ "io",      "infd",          V_INT,     OPT, I32, 0, 0 },
	{ "io",      "listenfd",      V_INT,     OPT, I32, 0, 0 },
	{ "io",      "count",         V_INT,     OPT, I32, 0, 0 },
	{ "io",      "child",         V_INT,     OPT, I32, 0, 0 },
	{ "io",      "seq",           V_INT,     OPT, 1, VSEQ_MAX, 0, 0 },
	{ "io",      "req",           V_TIME,    OPT, 0, 0, 'T', 0 },
	{ "io",      "timeout",       V_TIMEOUT, OPT, 0, 0, 0, 0 },
	{ "io",      "throttle",      V_TIME,    OPT, 0, 0, 0, 0 },
	{ "io",      "pipe",          V_INT,     OPT, 1, INT32_MAX, 0, 0 },
	/* the MPI level (level="mpi"): a world rank, a tag, ids */
	{ "io",      "rank",          V_INT,     OPT, 0, INT32_MAX, 0, 0 },
	{ "io",      "tag",           V_INT,     OPT, 0, INT32_MAX, 0, 0 },
	{ "io",      "comm",          V_INT,     OPT, 0, UINT32_MAX, 0, 0 },
	{ "io",      "newcomm",       V_INT,     OPT, 0, UINT32_MAX, 0, 0 },
	{ "io",      "coll",          V_INT,     OPT, 1, UINT32_MAX, 0, 0 },
	{ "io",      "request",       V_INT,     OPT, 1, UINT32_MAX, 0, 0 },
	{ "io",      "done_more",     V_INT,     OPT, 1, UINT32_MAX, 0, 0 },
	{ "io",      "dataset",       V_STR,     OPT, 0, 0, 0, 0 },
	{ "io",      "depth",         V_INT,     OPT, 1, INT32_MAX, 0, 0 },
	/* kernel: api is the kernel's name (--syscalls) */
	{ "io",      "level",         V_STR,     OPT, 0, 0, 0, 'l' },
	{ "region",  "id",            V_INT,     NEED, 1, INT32_MAX, 0, 'i' },
	{ "region",  "parent",        V_INT,     OPT, 0, INT32_MAX, 0, 'p' },
	{ "region",  "depth",         V_INT,     OPT, 1, INT32_MAX, 0, 0 },
	{ "region",  "label",         V_STR,     NEED, 0, 0, 0, 0 },
	{ "region",  "start",         V_TIME,    NEED, 0, 0, 0, 's' },
	{ "region",  "end",           V_TIME,    NEED, 0, 0, 0, 'e' },
	{ "wait",    "node",          V_STR,     NEED, 0, 0, 0, 0 },
	{ "wait",    "seq",           V_INT,     NEED, 1, VSEQ_MAX, 0, 0 },
	{ "wait",    "origin",        V_STR,     OPT, 0, 0, 0, 0 },
	{ "wait",    "certain",       V_STR,     OPT, 0, 0, 0, 0 },
	{ "signal",  "node",          V_STR,     NEED, 0, 0, 0, 0 },
	{ "signal",  "seq",           V_INT,     OPT, 1, VSEQ_MAX, 0, 0 },
	{ "file",    "path",          V_STR,     NEED, 0, 0, 0, 0 },
	{ "file",    "opens",         V_INT,     OPT, 0, VBIG_MAX, 'A', 0 },
	{ "file",    "reads",         V_INT,     OPT, 0, VBIG_MAX, 'A', 0 },
	{ "file",    "bytes_read",    V_INT,     OPT, 0, VBIG_MAX, 'A', 0 },
	{ "file",    "writes",        V_INT,     OPT, 0, VBIG_MAX, 'A', 0 },
	{ "file",    "bytes_written", V_INT,     OPT, 0, VBIG_MAX, 'A', 0 },
	{ "file",    "open_at_end",   V_INT,     OPT, 0, VBIG_MAX, 'A', 0 },
	{ "file",    "size_at_end",   V_INT,     OPT, 0, VBIG_MAX, 0, 0 },
	{ "file",    "allocated_at_end", V_INT,  OPT, 0, VBIG_MAX, 0, 0 },
	{ "socket",  "sent",          V_INT,     OPT, 0, VBIG_MAX, 'A', 0 },
	{ "socket",  "received",      V_INT,     OPT, 0, VBIG_MAX, 'A', 0 },
	{ "socket",  "open_at_end",   V_BOOL,    OPT, 0, 0, 0, 0 },
};
#define NRULES (sizeof(rules) / sizeof(rules[0]))

/*
 * What an <io> of a call of trace/calls.def may be, from the call's row:
 * its res, and amount= only when the row has a byte count. The res is
 * the row's as res_of() (capture/spool/resolve.c) writes it: a data call
 * on a socket or pipe is network traffic, on an event object (eventfd,
 * timerfd, signalfd, inotify) a wait or a post. A kernel-level io the
 * capture could not decode (anonymous mmap, an argument pointing
 * nowhere, a call syscalls.def lacks) is the SYSCALL row's, under the
 * kernel's name. Rows of one name (vmsplice) add up.
 */
struct call_row {
	const char *api;
	enum trace_res res;
	bool amount;
};

#define AMOUNT_NONE false
#define AMOUNT_RET true
#define AMOUNT_ITEMS true
#define AMOUNT_CHAR true
#define AMOUNT_A2 true
#define AMOUNT_A1 true

static const struct call_row call_rows[] = {
#define CALL(id, api, res, amount, effect) { api, TRACE_RES_##res, AMOUNT_##amount },
#include "trace/calls.def"
#undef CALL
};
#define NROWS (sizeof(call_rows) / sizeof(call_rows[0]))

/* a name's rows, at its first (trace_call_by_name): the classes its ios
 * may have, by bit of trace_res, and whether a byte count */
static struct call_rule {
	unsigned res;
	bool amount;
} call_rules[TCALL_N];

static const unsigned res_also[TRACE_RES_N] = {
	[TRACE_RES_FILEREAD] = 1u << TRACE_RES_NETRECV | 1u << TRACE_RES_WAIT,
	[TRACE_RES_FILEWRITE] = 1u << TRACE_RES_NETSEND | 1u << TRACE_RES_SYS,
};

static void call_rules_make(void)
{
	for (size_t i = 0; i < NROWS; i++) {
		const struct call_row *w = &call_rows[i];
		struct call_rule *c = &call_rules[trace_call_by_name(w->api)];

		c->res |= 1u << w->res | res_also[w->res];
		c->amount |= w->amount;
	}
}

/* Each element's rules are consecutive in the table. The readers call
 * for a million <io>s: the elements' spans and the attributes' rules are
 * cached by name pointer, the names being one parser's dictionary strings
 * (one pointer per name) until validate_reset(). */
struct rule_span {
	size_t from, to;
	uint64_t need;		/* its required rules, by index in the span */
	bool timed;		/* its end - start counts to the durations */
};

static _Thread_local struct {
	const char *el;
	struct rule_span s;
} span_cache[64];		/* open addressing, filled at most half */
static _Thread_local size_t span_cached;
static _Thread_local struct {
	const char *name;
	size_t from;		/* the element's span */
	const struct vrule *r;	/* NULL: no rule there (path on an io) */
} rule_cache[256];		/* open addressing, filled at most half */
static _Thread_local size_t rule_cached;

/* dictionary strings sit bytes apart: mix all of the pointer's bits */
static unsigned slot(const void *p, int bits)
{
	return (unsigned)(((uintptr_t)p * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

void validate_reset(void)
{
	memset(span_cache, 0, sizeof(span_cache));
	span_cached = 0;
	memset(rule_cache, 0, sizeof(rule_cache));
	rule_cached = 0;
}

static struct rule_span span_of(const char *el)
{
	unsigned h = slot(el, 6);
	struct rule_span s = { 0, 0, 0, false };
	size_t i = 0;

	/* probed, not direct-mapped: <io> and <compute> sharing a slot (as
	 * the heap's addresses fall) would look up 70 rules each time */
	for (; span_cache[h].el; h = (h + 1) & 63)
		if (span_cache[h].el == el)
			return span_cache[h].s;
	while (i < NRULES && strcmp(rules[i].el, el))
		i++;
	s.from = s.to = i;
	while (s.to < NRULES && !strcmp(rules[s.to].el, el)) {
		if (rules[s.to].need)
			s.need |= 1ull << (s.to - s.from);
		s.to++;
	}
	s.timed = strcmp(el, "node") && strcmp(el, "process");
	if (span_cached < 32) {
		span_cache[h].el = el;
		span_cache[h].s = s;
		span_cached++;
	}
	return s;
}

static const struct vrule *rule_of(struct rule_span s, const char *name)
{
	unsigned h = slot(name, 8);
	const struct vrule *r = NULL;

	for (; rule_cache[h].name; h = (h + 1) & 255)
		if (rule_cache[h].name == name && rule_cache[h].from == s.from)
			return rule_cache[h].r;
	/* a name has at most one rule per element */
	for (size_t i = s.from; i < s.to && !r; i++)
		if (rules[i].name[0] == name[0] && !strcmp(rules[i].name, name))
			r = &rules[i];
	/* past half full (a trace of many unknown names): not kept */
	if (rule_cached < 128) {
		rule_cache[h].name = name;
		rule_cache[h].from = s.from;
		rule_cache[h].r = r;
		rule_cached++;
	}
	return r;
}

/* The message for a number out of its range. */
static void out_of_range(const struct vrule *r, const char *v, char *msg, size_t len)
{
	char a[32];

	if (r->type == V_TIME || r->type == V_TIMEOUT)
		snprintf(msg, len, "<%s> %s=\"%s\" is too large (at most %s s)",
			 r->el, r->name, v, fmt_sec(a, VTIME_MAX));
	else if (r->min == 0 && v[0] == '-')
		snprintf(msg, len, "<%s> has a negative %s (%s)", r->el, r->name, v);
	else
		snprintf(msg, len, "<%s> %s=\"%s\" is out of range (%lld to %lld)",
			 r->el, r->name, v, (long long)r->min, (long long)r->max);
}

/* 0 and *ns, or -1 with the message. */
static int check_time(const struct vrule *r, const char *v, int64_t *ns, char *msg, size_t len)
{
	int rc;

	if (r->type == V_TIMEOUT && !strcmp(v, "-1")) {
		*ns = -1;
		return 0;
	}
	rc = parse_sec(v, ns);
	if (rc == -1) {
		snprintf(msg, len, "<%s> %s=\"%s\" is not a number of seconds", r->el, r->name, v);
		return -1;
	}
	if (rc == 0 && *ns < 0) {
		snprintf(msg, len, "<%s> %s=\"%s\" is negative", r->el, r->name, v);
		return -1;
	}
	if (rc || *ns > VTIME_MAX) {
		out_of_range(r, v, msg, len);
		return -1;
	}
	return 0;
}

static int check_value(const struct vrule *r, const char *v, int64_t *ns, char *msg, size_t len)
{
	char *end;

	switch (r->type) {
	case V_STR:
		return 0;
	case V_TIME:
	case V_TIMEOUT:
		return check_time(r, v, ns, msg, len);
	case V_INT: {
		long long x = 0;
		const char *p = v + (*v == '-');
		int nd = 0;

		/* the common case, up to 18 digits, without strtoll's locale
		 * and errno; anything else as strtoll says */
		for (; *p >= '0' && *p <= '9' && nd < 18; p++, nd++)
			x = x * 10 + (*p - '0');
		if (nd && !*p) {
			x = *v == '-' ? -x : x;
			if (x < r->min || x > r->max) {
				out_of_range(r, v, msg, len);
				return -1;
			}
			*ns = x;
			return 0;
		}
		errno = 0;
		x = strtoll(v, &end, 10);
		if (end == v || *end) {
			snprintf(msg, len, "<%s> %s=\"%s\" is not an integer", r->el, r->name, v);
			return -1;
		}
		if (errno == ERANGE || x < r->min || x > r->max) {
			out_of_range(r, v, msg, len);
			return -1;
		}
		*ns = x;
		return 0;
	}
	case V_RATE: {
		double x = strtod(v, &end);

		if (end == v || *end || !isfinite(x) || x < 0) {
			snprintf(msg, len, "<%s> %s=\"%s\" is not a positive number",
				 r->el, r->name, v);
			return -1;
		}
		return 0;
	}
	case V_BOOL:
		if (strcmp(v, "true") && strcmp(v, "false") && strcmp(v, "1") && strcmp(v, "0")) {
			snprintf(msg, len, "<%s> %s=\"%s\" is not true or false", r->el, r->name, v);
			return -1;
		}
		return 0;
	case V_OFFSET:
		if (parse_sec(v, ns) || *ns > 86400 * 1000000000LL || *ns < -86400 * 1000000000LL) {
			snprintf(msg, len, "<%s> %s=\"%s\" is not a number of seconds within a day",
				 r->el, r->name, v);
			return -1;
		}
		return 0;
	case V_RES:
		for (size_t i = 0; i < TRACE_RES_N; i++)
			if (v[0] == trace_res_names[i][0] && !strcmp(v, trace_res_names[i])) {
				*ns = (int64_t)i;	/* the reader's trace_res */
				return 0;
			}
		snprintf(msg, len, "<%s> has unknown %s=\"%s\"", r->el, r->name, v);
		return -1;
	}
	return 0;
}

/* Add v to a total of the trace; -1 with the message past VTIME_MAX. */
static int add(int64_t *total, int64_t v, const char *el, const char *what,
	       char *msg, size_t len)
{
	char x[32];

	if (v <= VTIME_MAX - *total) {
		*total += v;
		return 0;
	}
	if (what[0] == 'd')
		snprintf(msg, len, "<%s>: the trace's %s add up past %s s", el, what,
			 fmt_sec(x, VTIME_MAX));
	else
		snprintf(msg, len, "<%s>: the trace's %s add up past %lld", el, what,
			 (long long)VTIME_MAX);
	return -1;
}

/* An io of a call of calls.def against the call's row (an api not in the
 * table passes: other producers, the kernel's names). */
static int check_call(const char *api, int64_t res, bool kernel, const char *amount,
		      char *msg, size_t len)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const struct call_rule *c;
	unsigned allow;
	char list[128];
	size_t k = 0;
	int id = trace_call_by_name(api);

	if (id < 0)
		return 0;
	pthread_once(&once, call_rules_make);
	c = &call_rules[id];
	/* what the kernel level adds: the SYSCALL row's */
	allow = c->res | (kernel ? 1u << call_rows[TCALL_SYSCALL].res : 0);
	if (!(allow & 1u << res)) {
		for (int i = 0; i < TRACE_RES_N; i++)
			if (allow & 1u << i)
				k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s",
						      k ? ", " : "", trace_res_names[i]);
		snprintf(msg, len, "<io api=\"%s\"> res=\"%s\" is not one of %s's (%s)",
			 api, trace_res_names[res], api, list);
		return -1;
	}
	if (amount && !c->amount) {
		snprintf(msg, len, "<io api=\"%s\"> has amount=\"%s\": %s has no byte count",
			 api, amount, api);
		return -1;
	}
	return 0;
}

int validate_element(const char *el, struct vattr *a, int n,
		     struct vtotals *tot, char *msg, size_t len)
{
	struct rule_span s = span_of(el);
	int64_t start = -1, end = -1, id = 0, parent = 0, res = 0, ns;
	const char *api = NULL, *amount = NULL;
	bool kernel = false;
	uint64_t seen = 0;	/* rules met, by index in the span */
	char x[32], y[32];

	if (s.from == s.to)
		return 0;
	if (n > VMAXATTR) {
		snprintf(msg, len, "<%s> has too many attributes", el);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const struct vrule *r = rule_of(s, a[i].name);

		if (!r)
			continue;
		seen |= 1ull << (r - &rules[s.from]);
		ns = 0;
		if (check_value(r, a[i].value, &ns, msg, len))
			return -1;
		if (r->adds == 'T' && add(&tot->ns, ns, el, "durations", msg, len))
			return -1;
		if (r->adds == 'A' && add(&tot->amounts, ns, el, "amounts", msg, len))
			return -1;
		a[i].num = ns;
		switch (r->role) {
		case 's': start = ns; break;
		case 'e': end = ns; break;
		case 'i': id = ns; break;
		case 'p': parent = ns; break;
		case 'c': api = a[i].value; break;
		case 'r': res = ns; break;
		case 'a': amount = a[i].value; break;
		case 'l': kernel = !strcmp(a[i].value, "kernel"); break;
		}
	}
	for (size_t k = s.from; (seen & s.need) != s.need && k < s.to; k++)
		if (rules[k].need && !(seen & (1ull << (k - s.from)))) {
			snprintf(msg, len, "<%s> lacks attribute %s", el, rules[k].name);
			return -1;
		}
	if (api && check_call(api, res, kernel, amount, msg, len))
		return -1;
	if (start >= 0 && end >= 0 && end < start) {
		snprintf(msg, len, "<%s> ends before it starts (end %s < start %s)",
			 el, fmt_sec(x, end), fmt_sec(y, start));
		return -1;
	}
	/* what is spent between start and end: an io, a region, a thread */
	if (start >= 0 && end >= 0 && s.timed &&
	    add(&tot->ns, end - start, el, "durations", msg, len))
		return -1;
	if (parent >= id && id) {	/* a <region>: id is required there */
		snprintf(msg, len, "<region> parent=\"%lld\" is not before its id=\"%lld\"",
			 (long long)parent, (long long)id);
		return -1;
	}
	return 0;
}

void validate_seq_range(const char *node, uint64_t seq, uint64_t n, char *msg, size_t len)
{
	snprintf(msg, len, "seq %llu out of range 1..%llu for node \"%s\"",
		 (unsigned long long)seq, (unsigned long long)n, node);
}

void validate_wait_range(const char *node, uint64_t seq, uint64_t n, char *msg, size_t len)
{
	snprintf(msg, len, "<wait> seq %llu: node \"%s\" has %llu I/O",
		 (unsigned long long)seq, node, (unsigned long long)n);
}

void validate_dup_node(const char *name, char *msg, size_t len)
{
	snprintf(msg, len, "node \"%s\" appears twice", name);
}

void validate_misplaced(const char *el, const char *parent, char *msg, size_t len)
{
	if (*parent)
		snprintf(msg, len, "<%s> is misplaced (inside <%s>)", el, parent);
	else
		snprintf(msg, len, "<%s> is misplaced (at top level)", el);
}

int validate_type(const char *el, const char *name)
{
	for (size_t i = 0; i < NRULES; i++) {
		if (strcmp(rules[i].el, el) || strcmp(rules[i].name, name))
			continue;
		switch (rules[i].type) {
		case V_TIME: case V_TIMEOUT: case V_OFFSET:
			return 'T';
		case V_INT:
			return 'I';
		default:
			return 0;
		}
	}
	return 0;
}
