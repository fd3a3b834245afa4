/*
 * Pass 2: the XML trace (docs/trace-format.md). libxml2's text writer
 * writes the structure and handles compression; the per-call lines, which
 * are almost all of a trace, are formatted here into a buffer and handed
 * to it raw, which keeps writing at several million records a second.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace/outfile.h"
#include "trace/isbfmt.h"
#include <libxml/xmlwriter.h>

#include "capture.h"
#include "capture/run/presets.h"
#include "util.h"
#include "zstdio.h"

/* --- a small output buffer in front of the xml writer ------------------ */

struct out {
	xmlTextWriterPtr w;	/* the declaration and the document's end */
	struct outfile *f;	/* the rest, past libxml2's 4 KB buffer */
	char *b;
	size_t n, cap;
	int failed, direct;
	int whole;		/* no element as the last one again */
	int measure;		/* no file: bytes counted (head_room) */
	size_t counted;
	/* the api, res and path of the last call: the next is most often
	 * the same strings (a loop's), whose lengths are known then */
	struct { const char *s; size_t l; } memo[3];
	/* .isb: calls go to the coder whole, their attributes gathered
	 * here (values copied into bv) rather than written as XML */
	int enc;
	bool bel;
	int nba;
	struct isb_attr ba[ISB_MAXATTR];
	char bv[4096];
	size_t nbv;
	/* a call like the last one given whole but for its times goes as
	 * that element again (.isb: outfile_again; XML: its text kept in
	 * xa), which a loop's calls are: what the last one's attributes came
	 * from, valid while again_io */
	bool again_compute, again_io;
	/* XML: the last call's element but its times (its text up to its
	 * start, after its end) */
	unsigned long flushes;
	size_t xa_head, xa_tail;
	char xa[1024];
	struct again_key {
		const struct cap_node *n;
		struct rec r;        /* t0 and t1 zero */
		uint64_t proto[2];   /* a pipe's */
	} key;
};

/* The buffer to the file, what libxml2's writer holds first; also when
 * the buffer is empty (before a call given to the coder whole) */
static void o_sync(struct out *o)
{
	if (o->measure) {
		o->counted += o->n;
		o->n = 0;
		return;
	}
	if (!o->direct) {
		if (xmlTextWriterFlush(o->w) < 0)
			o->failed = 1;
		o->direct = 1;
	}
	if (o->n && outfile_write(o->f, o->b, o->n) < 0)
		o->failed = 1;
	o->n = 0;
	o->flushes++;
}

static void o_flush(struct out *o)
{
	if (o->n)
		o_sync(o);
}

static inline void o_need(struct out *o, size_t k)
{
	if (o->n + k > o->cap)
		o_flush(o);
	if (k > o->cap) {
		o->cap = k * 2;
		o->b = xrealloc(o->b, o->cap);
	}
}

static inline void o_mem(struct out *o, const char *s, size_t l)
{
	o_need(o, l);
	memcpy(o->b + o->n, s, l);
	o->n += l;
}

static inline void o_str(struct out *o, const char *s)
{
	o_mem(o, s, strlen(s));
}

/* o_str of a string that stays put (a name table's, an object's path),
 * its length kept in memo slot k */
static inline void o_kept(struct out *o, int k, const char *s)
{
	if (o->memo[k].s != s) {
		o->memo[k].s = s;
		o->memo[k].l = strlen(s);
	}
	o_mem(o, s, o->memo[k].l);
}

/* a literal: its length known when compiled (the writer spends most of
 * its time on names and quotes, a million records a second) */
#define o_lit(o, s) o_mem(o, "" s, sizeof(s) - 1)

/* two digits at a time: the writer's time goes on numbers (two times
 * with nine decimals per call) */
static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline void put2(char *p, unsigned v)
{
	memcpy(p, digits2 + 2 * v, 2);
}

/* exactly 4 digits of v < 10000 */
static inline void put4(char *p, unsigned v)
{
	put2(p, v / 100);
	put2(p + 2, v % 100);
}

/* digits of u at p; returns the end */
static inline char *put_u64(char *p, uint64_t u)
{
	char tmp[24];
	int k = 24;

	if (u < 10) {
		*p = (char)('0' + u);
		return p + 1;
	}
	while (u >= 100) {
		k -= 2;
		put2(tmp + k, (unsigned)(u % 100));
		u /= 100;
	}
	if (u >= 10) {
		k -= 2;
		put2(tmp + k, (unsigned)u);
	} else {
		tmp[--k] = (char)('0' + u);
	}
	memcpy(p, tmp + k, (size_t)(24 - k));
	return p + 24 - k;
}

static inline void o_int(struct out *o, int64_t v)
{
	uint64_t u = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;

	o_need(o, 24);
	if (v < 0)
		o->b[o->n++] = '-';
	o->n = (size_t)(put_u64(o->b + o->n, u) - o->b);
}

/* seconds with 9 decimals, as fmt_sec writes them, straight into the
 * buffer */
static inline void o_sec(struct out *o, int64_t ns)
{
	uint64_t u = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
	unsigned f = (unsigned)(u % 1000000000u), lo = f % 10000;

	o_need(o, 32);
	char *p = o->b + o->n;
	if (ns < 0)
		*p++ = '-';
	p = put_u64(p, u / 1000000000u);
	*p++ = '.';
	f /= 10000;
	p[0] = (char)('0' + f / 10000);
	put4(p + 1, f % 10000);
	put4(p + 5, lo);
	o->n = (size_t)(p + 9 - o->b);
}

/* --- .isb: a call's element given to the coder whole ------------------- */

static void b_begin(struct out *o)
{
	o_sync(o);
	o->bel = true;
	o->nba = 0;
	o->nbv = 0;
}

/* the call's next attribute, or NULL past what the coder takes */
static struct isb_attr *b_attr(struct out *o, const char *name, size_t nlen, int kind)
{
	struct isb_attr *a;

	if (o->nba == ISB_MAXATTR) {
		o->failed = 1;
		return NULL;
	}
	a = &o->ba[o->nba++];
	a->name = name;
	a->nlen = nlen;
	a->kind = kind;
	return a;
}

static void b_str(struct out *o, const char *name, size_t nlen, const char *v,
		  size_t len, int kind)
{
	struct isb_attr *a = b_attr(o, name, nlen, kind);

	if (!a)
		return;
	if (o->nbv + len > sizeof(o->bv)) {	/* a long value: its own copy */
		char *c = xmalloc(len + 1);

		memcpy(c, v, len);
		a->s = c;
		a->m = 1;	/* freed by b_end */
	} else {
		memcpy(o->bv + o->nbv, v, len);
		a->s = o->bv + o->nbv;
		a->m = 0;
		o->nbv += len;
	}
	a->len = len;
}

static void b_num(struct out *o, const char *name, size_t nlen, int64_t m, int d)
{
	struct isb_attr *a;

	if (m > 999999999999999999LL || m < -999999999999999999LL) {
		/* past what the coder takes as a number: its text, as o_int
		 * and o_sec write it */
		uint64_t u = m < 0 ? -(uint64_t)m : (uint64_t)m;
		char t[48];
		int k = d ? snprintf(t, sizeof(t), "%s%llu.%09llu", m < 0 ? "-" : "",
				     (unsigned long long)(u / 1000000000u),
				     (unsigned long long)(u % 1000000000u)) :
			    snprintf(t, sizeof(t), "%s%llu", m < 0 ? "-" : "",
				     (unsigned long long)u);

		b_str(o, name, nlen, t, (size_t)k, ISB_A_PLAIN);
		return;
	}
	if (!(a = b_attr(o, name, nlen, ISB_A_NUM)))
		return;
	a->m = m;
	a->d = d;
}

/* b_str of a string that stays put, its length kept in memo slot k */
static void b_kept_(struct out *o, const char *name, size_t nlen, int k, const char *v,
		    int kind)
{
	if (o->memo[k].s != v) {
		o->memo[k].s = v;
		o->memo[k].l = strlen(v);
	}
	b_str(o, name, nlen, v, o->memo[k].l, kind);
}
#define b_kept(o, name, k, v, kind) b_kept_(o, name, sizeof("" name) - 1, k, v, kind)

static void b_end(struct out *o, const char *name)
{
	o->bel = false;
	if (outfile_element(o->f, name, o->nba, o->ba, true) < 0)
		o->failed = 1;
	for (int k = 0; k < o->nba; k++)
		if (o->ba[k].kind != ISB_A_NUM && o->ba[k].m)
			free((char *)o->ba[k].s);
}

/* name="value": NAME is a literal, so that ` name="` is one copy; VAL as
 * XML has it (escaped); RAW as it is (o_attr_esc) */
#define o_attr(o, name, val) \
	do { if ((o)->bel) { const char *v_ = (val); b_str(o, name, sizeof("" name) - 1, v_, strlen(v_), ISB_A_XML); } \
	     else { o_lit(o, " " name "=\""); o_str(o, val); o_lit(o, "\""); } } while (0)
/* ... NAME not a literal (one that lives as long as the trace is written) */
static void o_attr_named(struct out *o, const char *name, const char *val)
{
	if (o->bel) {
		b_str(o, name, strlen(name), val, strlen(val), ISB_A_XML);
		return;
	}
	o_lit(o, " ");
	o_mem(o, name, strlen(name));
	o_lit(o, "=\"");
	o_str(o, val);
	o_lit(o, "\"");
}
#define o_attr_int(o, name, v) \
	do { if ((o)->bel) b_num(o, name, sizeof("" name) - 1, v, 0); \
	     else { o_lit(o, " " name "=\""); o_int(o, v); o_lit(o, "\""); } } while (0)
#define o_attr_sec(o, name, ns) \
	do { if ((o)->bel) b_num(o, name, sizeof("" name) - 1, ns, 9); \
	     else { o_lit(o, " " name "=\""); o_sec(o, ns); o_lit(o, "\""); } } while (0)
#define o_attr_esc(o, name, raw) \
	do { if ((o)->bel) { const char *v_ = (raw); b_str(o, name, sizeof("" name) - 1, v_, strlen(v_), ISB_A_RAW); } \
	     else { char *e_ = attr_escape(raw); o_attr(o, name, e_); free(e_); } } while (0)

static void fmt_status(char *buf, size_t n, int st)
{
	if (st < 0)
		snprintf(buf, n, "unknown");
	else if (WIFEXITED(st))
		snprintf(buf, n, "exit:%d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, n, "signal:%s", signal_name(WTERMSIG(st)));
	else
		snprintf(buf, n, "unknown");
}

static const char *exit_names[] = {
	[TEXIT_NONE] = "killed", [TEXIT_RETURN] = "return",
	[TEXIT_PTHREAD] = "pthread_exit", [TEXIT_PROCESS] = "process",
	[TEXIT_EXEC] = "exec",
};

/* --- records -------------------------------------------------------------- */

static int is_timed_wait(int c)
{
	return c == C_POLL || c == C_PPOLL || c == C_SELECT || c == C_PSELECT ||
	       c == C_EPOLL_WAIT || c == C_EPOLL_PWAIT || c == C_COND_TIMEDWAIT ||
	       c == C_SEM_TIMEDWAIT;
}

static pid_t created_thread(struct proc *p, struct thr *creator, const struct rec *r,
			    int64_t t0)
{
	struct thr *best = thread_made(p, creator->tid, r);

	/* a spool that does not say (a thread killed before it could):
	 * the earliest thread it made that started after the call */
	for (int i = 0; !best && i < p->nthr; i++) {
		struct thr *t = &p->thr[i];
		if (t->creator != creator->tid || t->created_matched ||
		    t->sp[0]->h->made_at || t->start < t0)
			continue;
		if (!best || t->start < best->start)
			best = t;
	}
	if (!best)
		return 0;
	best->created_matched = 1;
	return best->tid;
}

/* --callsites: the modules of the process being written (REC_MODULE). */
struct wmod {
	uint64_t bias, lo, hi;
	const char *path, *build_id;	/* in the spool */
};
static struct wmod *mods;
static size_t nmods, capmods;
static int mods_disjoint;	/* no address in two: the first that has it is any */

static void collect_modules(struct proc *p)
{
	nmods = 0;
	for (int i = 0; i < p->nthr; i++) {
		struct rec_iter it;
		struct rec *r;

		rec_iter_init(&it, &p->thr[i]);
		while ((r = rec_next(&it))) {
			size_t k;

			if (r->call != REC_MODULE || REC_PAYLOAD_LEN(r) < 2)
				continue;
			for (k = 0; k < nmods; k++)
				if (mods[k].lo == (uint64_t)r->a2)
					break;
			if (k < nmods)
				continue;
			XGROW(mods, capmods, nmods + 1);
			mods[nmods].bias = (uint64_t)r->a1;
			mods[nmods].lo = (uint64_t)r->a2;
			mods[nmods].hi = (uint64_t)r->ret;
			mods[nmods].path = REC_PAYLOAD(r);
			mods[nmods].build_id = REC_PAYLOAD(r) + strnlen(REC_PAYLOAD(r),
						REC_PAYLOAD_LEN(r) - 1) + 1;
			if (mods[nmods].build_id >= REC_PAYLOAD(r) + REC_PAYLOAD_LEN(r))
				mods[nmods].build_id = "";
			nmods++;
		}
	}
	mods_disjoint = 1;
	for (size_t i = 0; i < nmods; i++)
		for (size_t j = i + 1; j < nmods; j++)
			if (mods[i].lo < mods[j].hi && mods[j].lo < mods[i].hi)
				mods_disjoint = 0;
}

static void write_modules(struct out *o)
{
	char buf[64];

	for (size_t k = 0; k < nmods; k++) {
		o_lit(o, "    <module");
		o_attr_int(o, "id", (int64_t)k + 1);
		o_attr_esc(o, "path", mods[k].path);
		snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)mods[k].bias);
		o_attr(o, "bias", buf);
		if (mods[k].build_id[0])
			o_attr_esc(o, "build_id", mods[k].build_id);
		o_lit(o, "/>\n");
	}
}

/* "MODULE:0xOFFSET", the offset from the module's load bias (an address
 * in the file's own terms), or "0xADDRESS" outside every module
 * described. */
static size_t fmt_addr(char *p, uint64_t a)
{
	static size_t last;	/* a loop's calls come from one place */
	size_t k = nmods;
	char tmp[16], *q = p;
	int d = 16;

	if (mods_disjoint && last < nmods && a >= mods[last].lo && a < mods[last].hi)
		k = last;
	for (size_t i = 0; k == nmods && i < nmods; i++)
		if (a >= mods[i].lo && a < mods[i].hi)
			k = i;
	if (k < nmods) {
		last = k;
		q = put_u64(q, k + 1);
		*q++ = ':';
		a -= mods[k].bias;
	}
	do {
		tmp[--d] = "0123456789abcdef"[a & 15];
		a >>= 4;
	} while (a);
	*q++ = '0';
	*q++ = 'x';
	memcpy(q, tmp + d, (size_t)(16 - d));
	return (size_t)(q - p) + (size_t)(16 - d);
}

static void o_addr(struct out *o, uint64_t a)
{
	o_need(o, 48);
	o->n += fmt_addr(o->b + o->n, a);
}

static void write_site(struct out *o, const struct rec *site)
{
	if (o->bel) {
		char buf[48];

		b_str(o, "site", sizeof("site") - 1, buf, fmt_addr(buf, site->t0), ISB_A_PLAIN);
		return;
	}
	o_lit(o, " site=\"");
	o_addr(o, site->t0);
	o_lit(o, "\"");
}

/* --profile: <sample> (a snapshot) and <free> (every allocation sampled). */
static void put_sample_el(struct out *o, struct cap_node *n, int64_t t0, int64_t prev,
			  int kind, int64_t cpu, int64_t alloc, int64_t allocs,
			  const uint64_t *ptr, const uint64_t *w, size_t nw)
{
	static const char *const kinds[] = { "timer", "call", "alloc", "end" };
	char buf[64];

	o_lit(o, "      <sample");
	o_attr_sec(o, "t", t0 > 0 ? t0 : 0);
	o_attr(o, "kind", kinds[kind >= 0 && kind <= SAMPLE_END ? kind : 0]);
	o_attr_sec(o, "cpu", cpu > 0 ? cpu : 0);
	o_attr_sec(o, "wall", t0 > prev ? t0 - prev : 0);
	if (n->profile & PV_ALLOC) {
		o_attr_int(o, "alloc", alloc);
		o_attr_int(o, "allocs", allocs);
	}
	if (ptr) {
		snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)*ptr);
		o_attr(o, "ptr", buf);
	}
	o_lit(o, " stack=\"");
	for (size_t k = 0; k < nw; k++) {
		if (k)
			o_lit(o, " ");
		o_addr(o, w[k]);
	}
	o_lit(o, "\"/>\n");
}

/* The stack of a snapshot record, and its pointer allocated (kind alloc). */
static const uint64_t *sample_stack(const struct rec *r, size_t *nw, const uint64_t **ptr)
{
	const uint64_t *w = (const uint64_t *)REC_PAYLOAD(r);

	*nw = REC_PAYLOAD_LEN(r) / 8;
	*ptr = NULL;
	if (r->fd == SAMPLE_ALLOC && *nw) {
		*ptr = w;
		(*nw)--;
		return w + 1;
	}
	return w;
}

static void write_sample(struct out *o, struct cap_node *n, const struct rec *r)
{
	const uint64_t *ptr, *w;
	size_t nw;

	w = sample_stack(r, &nw, &ptr);
	put_sample_el(o, n, clock_ns(&n->clk, r->t0), clock_ns(&n->clk, r->t1), r->fd,
		      r->a1, r->ret, (int64_t)r->seq, ptr, w, nw);
}

/* A thread its process's end found running: its tail, with the stack of
 * its last snapshot (where it was, as far as the profile knows). */
static void write_tail(struct out *o, struct cap_node *n, const struct thr *t,
		       const struct rec *last)
{
	const uint64_t *ptr, *w = NULL;
	size_t nw = 0;

	if (last)
		w = sample_stack(last, &nw, &ptr);
	put_sample_el(o, n, t->end, t->tail_since, SAMPLE_END, t->tail_cpu,
		      t->tail_alloc, t->tail_allocs, NULL, w, nw);
}

/* How the ticks came (sampler) and at what rate they really came: timer
 * snapshots per second of the CPU time all snapshots account for. A
 * CPU-clock timer fires at most at the kernel's tick, whatever --sample-hz
 * asked. */
static void write_sampler(struct out *o, struct cap_node *n)
{
	static const char *const names[] = { NULL, "task-clock", "cpu-timer",
					     "task-clock,cpu-timer" };
	const struct prof_ctl *c = n->profile_ctl;
	int how = c ? (c->by_event != 0) | (c->by_timer != 0) << 1 : 0;

	if (!names[how])
		return;
	o_attr(o, "sampler", names[how]);
	if (n->profile_cpu < 10000000)	/* 10 ms: less says little */
		return;
	int64_t rate = (int64_t)((double)n->profile_ticks * 1e9 / (double)n->profile_cpu + 0.5);

	o_attr_int(o, "rate", rate);
	if (c->by_timer && rate < n->profile_hz * 9 / 10)
		warnx("%s: --sample-hz %d: snapshots came at %lld a CPU second "
		      "(perf_event_open refused: a CPU-clock timer, at the kernel's tick)",
		      n->name, n->profile_hz, (long long)rate);
}

static void write_free(struct out *o, struct cap_node *n, const struct rec *r)
{
	char buf[64];
	int64_t t0 = clock_ns(&n->clk, r->t0);

	o_lit(o, "      <free");
	o_attr_sec(o, "t", t0 > 0 ? t0 : 0);
	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)r->a1);
	o_attr(o, "ptr", buf);
	o_lit(o, "/>\n");
}

/* --syscalls: which level saw the call (levels.c). */
static void write_level(struct out *o, const struct rec *r)
{
	int k = (r->seq & SEQ_KERNEL) != 0, l = (r->seq & SEQ_LIBC) != 0;

	o_attr(o, "level", k && l ? "libc|kernel" : k ? "kernel" : "libc");
	if (k && l)
		o_attr(o, "sys", sys_name(SEQ_NR(r->seq)));
	if (k && !l && SEQ_VIA(r->seq) >= 0)
		o_attr(o, "via", call_name(SEQ_VIA(r->seq)));
}

/* What write_io makes of r comes from r's fields and its object's
 * (a file's name does not change, a pipe's protocol may; a socket's
 * peer is looked up, and may change), for the calls that have no
 * payload and look nothing else up; else false. */
static bool again_key_of(struct again_key *k, const struct cap_node *n, const struct rec *r,
			 const struct rec *held, const struct rec *site, int64_t kread)
{
	const struct obj *ob = r->obj && r->obj <= (uint32_t)n->nobjs ?
			       &n->objs[r->obj - 1] : NULL;

	if (held || site || kread || SEQ_IO(r->seq) || (r->seq & SEQ_NESTED) ||
	    REC_PAYLOAD_LEN(r) ||
	    r->call >= C_NCALLS || r->call == C_PTHREAD_CREATE ||
	    r->call == C_SENDFILE || r->call == C_COPY_FILE_RANGE ||
	    r->call == C_SPLICE || r->call == C_TEE ||
	    (r->obj && !ob) || (ob && ob->kind != OBJ_FILE && ob->kind != OBJ_OTHER &&
				ob->kind != OBJ_PIPE))
		return false;
	memset(k, 0, sizeof(*k));
	k->n = n;
	k->r = *r;
	k->r.t0 = k->r.t1 = 0;
	if (ob && ob->kind == OBJ_PIPE)
		memcpy(k->proto, ob->proto, sizeof(k->proto));
	return true;
}

static inline bool same_key(const struct again_key *a, const struct again_key *b)
{
	return a->r.call == b->r.call && a->r.fd == b->r.fd && a->r.ret == b->r.ret &&
	       a->r.a1 == b->r.a1 && a->r.a2 == b->r.a2 && a->r.seq == b->r.seq &&
	       a->r.err == b->r.err && a->r.obj == b->r.obj && a->r.len == b->r.len &&
	       a->n == b->n && a->proto[0] == b->proto[0] && a->proto[1] == b->proto[1];
}

/* The last call's element again, its start and end new (attributes 2
 * and 3: api and res come first) */
static bool io_again(struct out *o, const struct cap_node *n, const struct rec *r,
		     int64_t t0, int64_t t1, const struct rec *held,
		     const struct rec *site, int64_t kread)
{
	static const int pos[2] = { 2, 3 };
	struct again_key k;
	int64_t m[2] = { t0, t1 };

	if (o->whole || !again_key_of(&k, n, r, held, site, kread)) {
		o->again_io = false;
		return false;
	}
	if (!o->again_io || !same_key(&k, &o->key)) {
		o->key = k;	/* for the next: write_io gives this one whole */
		o->again_io = true;
		return false;
	}
	if (!o->enc) {
		o_need(o, o->xa_head + o->xa_tail + 80);
		memcpy(o->b + o->n, o->xa, o->xa_head);
		o->n += o->xa_head;
		o_lit(o, " start=\"");
		o_sec(o, t0);
		o_lit(o, "\" end=\"");
		o_sec(o, t1);
		o_lit(o, "\"");
		memcpy(o->b + o->n, o->xa + o->xa_head, o->xa_tail);
		o->n += o->xa_tail;
		return true;
	}
	o_sync(o);
	if (outfile_again(o->f, "io", 2, pos, m, 9) < 0)
		o->failed = 1;
	return true;
}

static void write_io(struct out *o, struct cap_node *n, struct proc *p,
		     struct thr *t, struct rec *r, int64_t t0, int64_t t1,
		     const struct rec *held, const struct rec *site, int64_t kread,
		     const char *within)
{
	int c = r->call;
	/* the interposer sets err exactly when the call failed */
	int failed = r->err != 0;
	struct obj *ob = r->obj ? &n->objs[r->obj - 1] : NULL;
	char buf[256];
	int kernel_only = (r->seq & SEQ_KERNEL) && !(r->seq & SEQ_LIBC);
	/* XML: where the element's text begins, its times, its end (kept
	 * for io_again when no flush came between) */
	size_t x0, x1 = 0, x2;
	unsigned long flushes0;

	/* an asynchronous operation: from its submission to its completion
	 * (struct aio_op), whoever's record it is */
	const struct aio_op *aop = AIO_OP(c) && REC_PAYLOAD_LEN(r) >= sizeof(*aop) ?
				   (const struct aio_op *)REC_PAYLOAD(r) : NULL;
	if (aop) {
		kernel_only = 0;
		t0 = clock_ns(&n->clk, aop->submit);
		if (aop->done)
			t1 = clock_ns(&n->clk, aop->done);
		if (t0 > t1)
			t0 = t1;
	}
	if (within || C_IS_LEVEL(c))	/* io_again's text has neither */
		o->again_io = false;
	else if (io_again(o, n, r, t0, t1, held, site, kread))
		return;
	o_need(o, sizeof(o->xa));
	x0 = o->n;
	flushes0 = o->flushes;
	if (o->enc) {
		b_begin(o);
		b_kept(o, "api", 0, kernel_only ? sys_name(SEQ_NR(r->seq)) : call_name(c),
		       ISB_A_PLAIN);
		b_kept(o, "res", 1, res_names[res_of(n, r)], ISB_A_PLAIN);
	} else {
		o_lit(o, "      <io api=\"");
		o_kept(o, 0, kernel_only ? sys_name(SEQ_NR(r->seq)) : call_name(c));
		o_lit(o, "\" res=\"");
		o_kept(o, 1, res_names[res_of(n, r)]);
		o_lit(o, "\"");
		x1 = o->n;
	}
	o_attr_sec(o, "start", t0);
	o_attr_sec(o, "end", t1);
	x2 = o->n;
	if (C_IS_LEVEL(c))
		o_attr_named(o, "level", C_IS_HDF5(c) ? "hdf5" : C_IS_LEVEL_FILE(c) ? "mpi-io" : "mpi");
	else if (n->syscalls)
		write_level(o, r);
	if (within)
		o_attr(o, "within", within);
	/* fscanf's bytes are unknown on a stream without a position */
	if (call_has_amount(c) &&
	    !((c == C_FSCANF || c == C_VFSCANF || c == C_SCANF) && r->a2 < 0)) {
		o_attr_int(o, "amount", amount_of(r));
		if (r->a1 > 0 && !C_IS_LEVEL(c))
			o_attr_int(o, "size", r->a1);
		if ((c == C_PREAD || c == C_PWRITE || c == C_PREADV ||
		     c == C_PWRITEV || c == C_PREADV2 || c == C_PWRITEV2 || aop) &&
		    r->a2 >= 0)
			o_attr_int(o, "offset", r->a2);
	}
	if (aop) {
		static const char *const kinds[] = {
			[AIO_LIBAIO] = "libaio", [AIO_POSIX] = "posix",
			[AIO_URING] = "io_uring" };
		o_attr(o, "async", aop->kind >= AIO_LIBAIO && aop->kind <= AIO_URING ?
		       kinds[aop->kind] : aop->ctx ? "libaio" : "posix");
		if (aop->ctx) {
			snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)aop->ctx);
			o_attr(o, "ctx", buf);
		}
		if (aop->depth)
			o_attr_int(o, "depth", aop->depth);
	}
	switch (c) {
	case C_MMAP: case C_MUNMAP: case C_FALLOCATE: case C_POSIX_FALLOCATE:
	case C_TRUNCATE: case C_FTRUNCATE:
		o_attr_int(o, "size", r->a1);
		if (c == C_MMAP || c == C_FALLOCATE || c == C_POSIX_FALLOCATE)
			o_attr_int(o, "offset", r->a2);
		if (c == C_MMAP && REC_PAYLOAD_LEN(r) >= 8) {
			int32_t pf[2];
			memcpy(pf, REC_PAYLOAD(r), sizeof(pf));
			o_attr(o, "flags", (pf[1] & MAP_TYPE) == MAP_PRIVATE ?
			       "MAP_PRIVATE" : "MAP_SHARED");
		}
		break;
	case C_FSETPOS:
		o_attr_int(o, "offset", r->a1);
		break;
	case C_SYNC_FILE_RANGE:
		o_attr_int(o, "size", r->a1);
		o_attr_int(o, "offset", r->a2);
		break;
	}
	/* what a replay must do again: the mode of an allocation (a hole
	 * punched), whether a range's sync waits; the descriptor's flags a
	 * control set (close-on-exec, appending) */
	if ((c == C_FALLOCATE || c == C_SYNC_FILE_RANGE) && REC_PAYLOAD_LEN(r) >= 4) {
		int32_t v;
		memcpy(&v, REC_PAYLOAD(r), sizeof(v));
		ctl_mode(c, v, buf, sizeof(buf));
		o_attr(o, "flags", buf);
	}
	if (c == C_FCNTL || c == C_IOCTL || c == C_PRCTL) {
		const char *a;
		o_attr(o, "cmd", ctl_cmd(c, r->a1, buf, sizeof(buf)));
		if (!failed && (a = ctl_arg(c, r->a1, r->a2, buf, sizeof(buf))))
			o_attr(o, "flags", a);
		if (!failed && c == C_FCNTL && (r->a1 == F_GETFD || r->a1 == F_GETFL))
			o_attr_int(o, "result", r->ret);
	}
	if (c == C_DUP3 && !failed && (r->a2 & O_CLOEXEC))
		o_attr(o, "flags", "O_CLOEXEC");
	if (c == C_LSEEK || c == C_FSEEK) {
		o_attr_int(o, "offset", r->a1);
		o_attr(o, "whence", r->a2 == SEEK_SET ? "SEEK_SET" :
		       r->a2 == SEEK_CUR ? "SEEK_CUR" : r->a2 == SEEK_END ?
		       "SEEK_END" : "other");
	}
	if (c == C_FCNTL && !failed && (r->a1 == F_DUPFD || r->a1 == F_DUPFD_CLOEXEC)) {
		o_attr_int(o, "fd", r->ret);
		o_attr_int(o, "oldfd", r->fd);
	} else if (r->fd >= 0) {
		o_attr_int(o, "fd", r->fd);
	}
	if (c == C_DUP || c == C_DUP2 || c == C_DUP3)
		o_attr_int(o, "oldfd", r->a1);
	if ((c == C_PIPE || c == C_SOCKETPAIR) && !failed) {
		o_attr_int(o, "fd2", r->a1);
		/* pipe2 and socketpair's close-on-exec: a replay must know
		 * which ends an exec closes (Python's exec error pipe) */
		int fl = (int)r->a2 & (O_CLOEXEC | O_NONBLOCK);
		if (fl) {
			snprintf(buf, sizeof(buf), "%s%s%s", fl & O_CLOEXEC ? "O_CLOEXEC" : "",
				 fl == (O_CLOEXEC | O_NONBLOCK) ? "|" : "",
				 fl & O_NONBLOCK ? "O_NONBLOCK" : "");
			o_attr(o, "flags", buf);
		}
	}
	if (ob) {
		if (ob->kind == OBJ_FILE || ob->kind == OBJ_OTHER) {
			if (ob->xname && o->bel) {
				b_kept(o, "path", 2, ob->xname, ISB_A_XML);
			} else if (ob->xname) {
				o_lit(o, " path=\"");
				o_kept(o, 2, ob->xname);
				o_lit(o, "\"");
			}
		} else if (ob->kind == OBJ_PIPE) {
			o_attr(o, "peer", "pipe");
			/* which one: a child given it by a dup2 the capture
			 * did not see (a vfork child's) names it as its parent
			 * does, for a replayer to give it the same */
			o_attr_int(o, "pipe", (int64_t)r->obj);
		} else if ((c == C_SENDTO || c == C_RECVFROM || c == C_SENDMSG ||
			    c == C_RECVMSG) && REC_PAYLOAD_LEN(r) > 2 &&
			   *(sa_family_t *)REC_PAYLOAD(r)) {
			fmt_sockaddr(buf, sizeof(buf), REC_PAYLOAD(r),
				     REC_PAYLOAD_LEN(r));
			o_attr_esc(o, "peer", buf);
		} else if (ob->peer) {
			o_attr(o, "peer", ob->peer);
		}
		/* on every call, data included: sums splits tcp from udp,
		 * and a reader streams without seeing the <sockets> list */
		if ((ob->kind == OBJ_SOCKET || ob->kind == OBJ_PIPE) && ob->proto[0])
			o_attr(o, "proto", ob->proto);
		/* the call's own local address, for a replayer to match
		 * connections (bind, connect, accept carry it) */
		if ((c == C_BIND || c == C_CONNECT || c == C_ACCEPT) &&
		    REC_PAYLOAD_LEN(r) >= sizeof(struct sockinfo)) {
			const struct sockinfo *si = (const void *)REC_PAYLOAD(r);
			fmt_sockaddr(buf, sizeof(buf), &si->local, si->llen);
			if (buf[0])
				o_attr_esc(o, "local", buf);
		}
	}
	if (c == C_SENDFILE || c == C_COPY_FILE_RANGE || c == C_SPLICE || c == C_TEE) {
		int so = copy_src_obj(r);
		o_attr_int(o, "infd", copy_src_fd(r));
		if (so && n->objs[so - 1].xname)
			o_attr(o, "inpath", n->objs[so - 1].xname);
		else if (so && n->objs[so - 1].kind == OBJ_PIPE)
			o_attr(o, "inpath", "pipe");
	}
	if (two_paths(c) && r->a1 > 0 && r->a1 <= n->nobjs)
		o_attr(o, "path2", n->objs[r->a1 - 1].xname);
	/* an exec's arguments, escaped by the wrapper (wrap_proc.c) */
	if (c == C_EXECVE && REC_PAYLOAD_LEN(r)) {
		char *av = memchr(REC_PAYLOAD(r), 0, REC_PAYLOAD_LEN(r));
		if (av && av + 1 < REC_PAYLOAD(r) + REC_PAYLOAD_LEN(r) && av[1])
			o_attr_esc(o, "args", av + 1);
	}
	if (c == C_SYMLINK || c == C_SYMLINKAT) {
		char *tg = memchr(REC_PAYLOAD(r), 0, REC_PAYLOAD_LEN(r));
		if (tg && tg + 1 < REC_PAYLOAD(r) + REC_PAYLOAD_LEN(r))
			o_attr_esc(o, "target", tg + 1);
	}
	if (c == C_OPEN || c == C_OPENAT || c == C_CREAT || c == C_OPENDIR ||
	    c == C_MKSTEMP || c == C_MKOSTEMP || c == C_MKSTEMPS || c == C_MKOSTEMPS ||
	    c == C_TMPFILE) {
		fmt_oflags(buf, sizeof(buf), (int)r->a1);
		o_attr(o, "flags", buf);
	} else if (c == C_FOPEN || c == C_FREOPEN) {
		char *mode = memchr(REC_PAYLOAD(r), 0, REC_PAYLOAD_LEN(r));
		if (mode && mode + 1 < REC_PAYLOAD(r) + REC_PAYLOAD_LEN(r) && mode[1])
			o_attr_esc(o, "flags", mode + 1);
	} else if (c == C_FDOPEN && REC_PAYLOAD(r)[0]) {
		o_attr_esc(o, "flags", REC_PAYLOAD(r));
	}
	if ((c == C_LSEEK || c == C_FTELL || c == C_FTELLO || c == C_READLINK ||
	     c == C_READLINKAT) && !failed)
		o_attr_int(o, "result", r->ret);
	if (failed) {
		o_attr_int(o, "result", r->ret);
		o_attr(o, "errno", errno_name(r->err ? r->err : EIO));
	}
	switch (c) {
	case C_FORK:
		if (r->ret > 0)
			o_attr_int(o, "child", r->ret);
		break;
	case C_VFORK:	/* the kernel's result (--syscalls), or the child's word */
		if (r->ret > 0 || r->a1 > 0)
			o_attr_int(o, "child", r->ret > 0 ? r->ret : r->a1);
		break;
	case C_POSIX_SPAWN:
		if (r->a1 > 0)
			o_attr_int(o, "child", r->a1);
		break;
	case C_PTHREAD_CREATE: {
		pid_t tid = r->ret == 0 ? created_thread(p, t, r, t0) : 0;
		if (tid)
			o_attr_int(o, "child", tid);
		break;
	}
	case C_PTHREAD_JOIN:
		if (r->a1 > 0)
			o_attr_int(o, "child", r->a1);
		break;
	case C_WAITPID: case C_WAIT4: case C_WAITCALL: case C_WAIT3:
	case C_WAITID:
		if (r->ret > 0) {
			o_attr_int(o, "child", r->ret);
			fmt_status(buf, sizeof(buf), (int)r->a1);
			o_attr(o, "status", buf);
		}
		break;
	case C_SYSTEM:
		if (r->a2 > 0)          /* its shell, found by resolve.c */
			o_attr_int(o, "child", r->a2);
		fmt_status(buf, sizeof(buf), (int)r->a1);
		o_attr(o, "status", buf);
		break;
	case C_ACCEPT:
		o_attr_int(o, "listenfd", r->a1);
		break;
	case C_SLEEP: case C_USLEEP: case C_NANOSLEEP: case C_CLOCK_NANOSLEEP:
		if (r->a1 >= 0)
			o_attr_sec(o, "req", r->a1);
		break;
	case C_FREAD: case C_FWRITE: case C_SENDMMSG: case C_RECVMMSG:
	case C_FSCANF: case C_VFSCANF: case C_SCANF: case C_IO_URING_ENTER:
		if (r->ret >= 0)
			o_attr_int(o, "count", r->ret);
		break;
	/* libaio's: the context (a2); the queue depth asked, the
	 * operations submitted, the events reaped */
	case C_IO_SETUP: case C_IO_DESTROY: case C_IO_SUBMIT: case C_IO_GETEVENTS:
	case C_IO_CANCEL:
		if (r->a2) {
			snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)r->a2);
			o_attr(o, "ctx", buf);
		}
		if (c == C_IO_SETUP)
			o_attr_int(o, "count", r->a1);
		else if ((c == C_IO_SUBMIT || c == C_IO_GETEVENTS) && r->ret >= 0)
			o_attr_int(o, "count", r->ret);
		break;
	case C_LIO_LISTIO: case C_AIO_SUSPEND:
		o_attr_int(o, "count", r->a1);
		break;
	case C_CLONE:
		if (r->ret > 0)
			o_attr_int(o, "child", r->ret);
		break;
	case C_POPEN:
		if (r->a2 > 0)          /* its shell, found by resolve.c */
			o_attr_int(o, "child", r->a2);
		break;
	case C_PCLOSE:
		if (!failed) {
			fmt_status(buf, sizeof(buf), (int)r->ret);
			o_attr(o, "status", buf);
		}
		break;
	}
	char mb[2048];		/* (until the element's end: b_end) */
	if (C_IS_LEVEL(c)) {
		struct mpi_attr ma[MPI_ATTRS];
		int k = mpi_attrs(r, ma, mb, sizeof(mb));
		for (int i = 0; i < k; i++)
			o_attr_named(o, ma[i].name, ma[i].value);
	}
	if (SEQ_IO(r->seq))
		o_attr_int(o, "seq", (int64_t)SEQ_IO(r->seq));
	if (site)
		write_site(o, site);
	if (kread > 0)          /* what the kernel read under this stdio call */
		o_attr_int(o, "kernel_amount", kread);
	if (held && held->call == REC_THROTTLE) {
		o_attr_sec(o, "throttle", held->a1);
		o_attr(o, "limit", limit_names[held->fd >= 0 && held->fd < LIM_N ?
						held->fd : 0]);
	}
	if (is_timed_wait(c)) {
		if (r->a1 >= 0)
			o_attr_sec(o, "timeout", r->a1);
		else
			o_attr(o, "timeout", "-1");
		if ((c == C_POLL || c == C_PPOLL || c == C_SELECT || c == C_PSELECT ||
		     c == C_EPOLL_WAIT || c == C_EPOLL_PWAIT) && r->ret >= 0)
			o_attr_int(o, "count", r->ret);
	}
	if (o->bel) {
		b_end(o, "io");
		return;
	}
	o_lit(o, "/>\n");
	/* its text for the next like it, when whole in the buffer and short */
	if (o->again_io && (flushes0 != o->flushes ||
			    (x1 - x0) + (o->n - x2) > sizeof(o->xa))) {
		o->again_io = false;
	} else if (o->again_io) {
		o->xa_head = x1 - x0;
		o->xa_tail = o->n - x2;
		memcpy(o->xa, o->b + x0, o->xa_head);
		memcpy(o->xa + o->xa_head, o->b + x2, o->xa_tail);
	}
}

struct region {
	int id, parent, depth;
	char *label;
	int64_t start;
};

/* The records that complete a call follow it, from x (the next one) on:
 * its rate-limit hold and its site. */
static void completing(struct rec_iter it, struct rec *x, const struct rec **held,
		       const struct rec **site)
{
	for (; x && (x->call == REC_THROTTLE || x->call == REC_SITE || x->call == REC_MODULE);
	     x = rec_next(&it))
		if (x->call == REC_THROTTLE)
			*held = x;
		else if (x->call == REC_SITE)
			*site = x;
}

/* --callsites --syscalls: a system call a libc call made (via) has that
 * call's site, which the handler could not take (the program's frame is
 * behind libc's); the libc record follows its system calls, and its site
 * it. A few records ahead at most (a flush's writes); not an exec's
 * failed attempts, which follow it. */
static const struct rec *via_site(struct rec_iter it, struct rec *x, int via)
{
	const struct rec *held = NULL, *site = NULL;

	for (int k = 0; x && k < 64; x = rec_next(&it), k++) {
		if (x->call >= C_NCALLS || !(x->seq & SEQ_LIBC) || (x->seq & SEQ_DROP))
			continue;
		if (x->call == via) {
			struct rec *after = rec_next(&it);
			completing(it, after, &held, &site);
		}
		return site;
	}
	return NULL;
}

static void write_region(struct out *o, struct region *g, int64_t end,
			 const char *error)
{
	o_lit(o, "      <region");
	o_attr_int(o, "id", g->id);
	o_attr_int(o, "parent", g->parent);
	o_attr_int(o, "depth", g->depth);
	o_attr_esc(o, "label", g->label);
	o_attr_sec(o, "start", g->start);
	o_attr_sec(o, "end", end);
	if (error)
		o_attr(o, "error", error);
	o_lit(o, "/>\n");
}

static void write_compute(struct out *o, int64_t dur)
{
	if (o->enc && o->again_compute && !o->whole) {
		static const int pos0 = 0;
		int64_t m = dur < 0 ? 0 : dur;

		o_sync(o);
		if (outfile_again(o->f, "compute", 1, &pos0, &m, 9) < 0)
			o->failed = 1;
		return;
	}
	if (o->enc) {
		b_begin(o);
		b_num(o, "dur", sizeof("dur") - 1, dur < 0 ? 0 : dur, 9);
		b_end(o, "compute");
		o->again_compute = true;
		return;
	}
	o_lit(o, "      <compute dur=\"");
	o_sec(o, dur < 0 ? 0 : dur);
	o_lit(o, "\"/>\n");
}

/* The dependencies on I/O `seq` (sorted arrays, several per I/O). */
static void write_deps(struct out *o, const struct cdep *d, size_t nd,
		       uint64_t seq, int wait)
{
	size_t lo = 0, hi = nd;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (d[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < nd && d[lo].seq == seq; lo++) {
		o_str(o, wait ? "      <wait" : "      <signal");
		o_attr_esc(o, "node", d[lo].other);
		if (wait)
			o_attr_int(o, "seq", (int64_t)d[lo].oseq);
		o_lit(o, "/>\n");
	}
}

/* A thread's writing, resumable: the capture's streaming (stream.c)
 * writes a thread's calls into a part of their own while the application
 * runs, and model_write the rest after the part. */
struct wstate {
	struct rec_iter it;
	struct rec *next;            /* the next record, not yet written */
	uint64_t done;               /* records taken */
	int64_t prev, kread;
	/* the last call written not inside another: a call made inside it
	 * (SEQ_NESTED) follows it */
	int outer;
	int64_t out_t0, out_t1;
	/* the level calls (MPI's) the next records may be made inside:
	 * those that began before them and had not yet ended */
	struct { int call; int64_t t0, t1; } lv[8];
	int nlv;
	struct region *stack;
	size_t depth, cap;
	int next_id;
	const struct rec *last_sample;
	/* streaming */
	int pfd;                     /* the part, closed whole; or -1 */
	size_t at;                   /* where its bytes start in its file */
	struct outfile *pf;          /* the part, open while streaming */
	struct out po;
	int failed;                  /* it failed: written whole at the end */
};

static void ws_init(struct wstate *w, struct cap_node *n, struct proc *p, struct thr *t)
{
	memset(w, 0, sizeof(*w));
	rec_iter_init(&w->it, t);
	/* t->start, which streaming comes before */
	w->prev = thread_start(n, p->pid, t);
	w->next_id = 1;
	w->pfd = -1;
	w->outer = -1;
}

/* What the end (resolve.c's later passes) decides: the thread a
 * pthread_create made, a system or popen call's shell, until its header
 * says (the end then finds the same: r->a2, as statuses_from_waits
 * sets it) */
static int needs_end(struct cap_node *n, struct proc *p, struct thr *t, struct rec *r)
{
	if (r->call == C_PTHREAD_CREATE)
		return r->ret == 0 && !thread_made(p, t->tid, r);
	if ((r->call == C_SYSTEM && r->a1 >= 0) || (r->call == C_POPEN && r->err == 0))
		return !r->a2 && !(r->a2 = shell_made(n, t, r));
	return 0;
}

/* Streaming: are the records that complete call r there (the thread has
 * written one after them)? */
static bool completed(const struct wstate *w, const struct rec *r)
{
	struct rec_iter it = w->it;
	const struct rec *x;

	if (r->call >= C_NCALLS)
		return true;
	while ((x = rec_next(&it)) && (x->call == REC_THROTTLE || x->call == REC_SITE ||
				       x->call == REC_MODULE))
		;
	return x != NULL;
}

enum { W_END, W_STREAM, W_RUNNING };

/* w's next record, when the writing (how) may take it now: streaming
 * not a call it cannot write yet, and while the thread runs not one
 * whose completing records may be to come */
static struct rec *writable(struct cap_node *n, struct proc *p, struct thr *t,
			    struct wstate *w, int how)
{
	struct rec *r;

	w->it.t = t;		/* the arrays may have moved */
	if (!w->next)
		w->next = rec_next(&w->it);
	r = w->next;
	if (r && how != W_END && (needs_end(n, p, t, r) || (how == W_RUNNING && !completed(w, r))))
		return NULL;
	return r;
}

/* The thread's records from where w is, as long as fewer than upto were
 * taken and they are writable */
static void write_body(struct out *o, struct cap_node *n, struct proc *p,
		       struct thr *t, struct wstate *w, uint64_t upto, int how,
		       const int *halt)
{
	struct rec *r;

	while (w->done < upto && (r = writable(n, p, t, w, how))) {
		/* the app has ended: the end's writer, with its own
		 * thread for the compression, takes over from here */
		if (halt && !(w->done & 4095) && __atomic_load_n(halt, __ATOMIC_RELAXED))
			break;
		w->next = rec_next(&w->it);
		w->done++;
		int64_t t0 = clock_ns(&n->clk, r->t0), t1 = clock_ns(&n->clk, r->t1);
		if (t1 < t0)
			t1 = t0;
		if (r->call == REC_REGION_BEGIN) {
			XGROW(w->stack, w->cap, w->depth + 1);
			w->stack[w->depth] = (struct region){
				w->next_id++, w->depth ? w->stack[w->depth - 1].id : 0,
				(int)w->depth + 1, xstrdup(REC_PAYLOAD(r)), t0 };
			w->depth++;
			continue;
		}
		if (r->call == REC_REGION_END) {
			const char *label = REC_PAYLOAD(r);
			if (!w->depth) {
				warnx("%s: pid %d tid %d: island_end(\"%s\") at %.6f s "
				      "with no open region", n->name, p->pid, t->tid,
				      label, (double)t0 / 1e9);
				continue;
			}
			struct region *g = &w->stack[--w->depth];
			int match = !strcmp(g->label, label);
			if (!match)
				warnx("%s: pid %d tid %d: island_end(\"%s\") at %.6f s "
				      "does not match the open region \"%s\"", n->name,
				      p->pid, t->tid, label, (double)t0 / 1e9, g->label);
			write_region(o, g, t0, match ? NULL : "mismatch");
			free(g->label);
			continue;
		}
		if (r->call == REC_KREAD) {
			w->kread = r->ret;
			continue;
		}
		if (r->call == REC_SAMPLE) {
			write_sample(o, n, r);
			w->last_sample = r;
			continue;
		}
		if (r->call == REC_FREE) {
			write_free(o, n, r);
			continue;
		}
		if (r->call >= C_NCALLS || (r->seq & SEQ_DROP))
			continue;
		/* made inside the call before: no computing between them,
		 * its time part of that call's (else the outer call never
		 * returned, and it is one of the thread's own) */
		const char *within = (r->seq & SEQ_NESTED) && w->outer >= 0 &&
				     t0 >= w->out_t0 && t1 <= w->out_t1 ?
				     call_name(w->outer) : NULL;
		/* a level call's record is made at its start: the calls
		 * after it in its time were made inside it, the innermost
		 * one that holds them */
		while (w->nlv && !(t0 >= w->lv[w->nlv - 1].t0 && t1 <= w->lv[w->nlv - 1].t1))
			w->nlv--;
		if (!within && w->nlv)
			within = call_name(w->lv[w->nlv - 1].call);
		if (C_IS_LEVEL(r->call) && w->nlv < 8) {
			w->lv[w->nlv].call = r->call;
			w->lv[w->nlv].t0 = t0;
			w->lv[w->nlv++].t1 = t1;
		}
		/* an asynchronous operation is no time of the thread's: it
		 * ran beside it, from its submission (write_io) */
		int async = AIO_OP(r->call);
		if (!within && !async)
			write_compute(o, t0 - w->prev);
		if (SEQ_IO(r->seq))
			write_deps(o, n->waits, n->nwaits, SEQ_IO(r->seq), 1);
		const struct rec *held = NULL, *site = NULL;
		completing(w->it, w->next, &held, &site);
		if (!site && n->callsites && (r->seq & SEQ_KERNEL) && SEQ_VIA(r->seq) >= 0)
			site = via_site(w->it, w->next, SEQ_VIA(r->seq));
		write_io(o, n, p, t, r, t0, t1, held, site, async ? 0 : w->kread, within);
		if (!async)
			w->kread = 0;
		if (!within && !async) {
			w->outer = r->call;
			w->out_t0 = t0;
			w->out_t1 = t1;
		}
		if (SEQ_IO(r->seq))
			write_deps(o, n->signals, n->nsignals, SEQ_IO(r->seq), 0);
		if (!async)
			w->prev = t1 > w->prev ? t1 : w->prev;
	}
}

/* A part written and closed whole: it goes into the trace as it is */
static bool part_whole(const struct wstate *w)
{
	return w && w->pfd >= 0 && !w->failed && !w->pf;
}

static void ws_free(struct wstate *w)
{
	while (w->depth)
		free(w->stack[--w->depth].label);
	free(w->stack);
	free(w->po.b);
	if (w->pfd >= 0)
		close(w->pfd);
}

static void write_thread_tag(struct out *o, struct thr *t)
{
	char *name = attr_escape(t->name);

	o_lit(o, "    <thread");
	o_attr_int(o, "tid", t->tid);
	o_attr(o, "name", name);
	if (t->creator)
		o_attr_int(o, "creator", t->creator);
	o_attr_sec(o, "start", t->start);
	o_attr_sec(o, "end", t->end);
	if (t->cpu >= 0)
		o_attr_sec(o, "cpu", t->cpu);
	o_attr(o, "exit", exit_names[t->exit]);
	o_attr(o, "complete", t->complete ? "true" : "false");
	if (t->lost)
		o_attr_int(o, "lost", (int64_t)t->lost);
	o_lit(o, ">\n");
	free(name);
}

static void write_thread(struct out *o, struct cap_node *n, struct proc *p,
			 struct thr *t)
{
	struct wstate local, *w = t->ws;

	write_thread_tag(o, t);

	/* what streaming wrote, then on from there */
	if (part_whole(w)) {
		o_flush(o);
		if (outfile_splice(o->f, w->pfd, w->at) < 0)
			o->failed = 1;
		/* the coder starts afresh after a part */
		o->again_compute = o->again_io = false;
	} else {
		w = &local;
		ws_init(w, n, p, t);
	}
	write_body(o, n, p, t, w, UINT64_MAX, W_END, NULL);
	write_compute(o, t->end - w->prev);
	if (t->tail)
		write_tail(o, n, t, w->last_sample);
	while (w->depth) {
		struct region *g = &w->stack[--w->depth];
		warnx("%s: pid %d tid %d: region \"%s\" still open at the thread's end",
		      n->name, p->pid, t->tid, g->label);
		write_region(o, g, t->end, "unclosed");
		free(g->label);
	}
	if (w == &local)
		ws_free(w);
	o_lit(o, "    </thread>\n");
}

#define STREAM_MIN 64	/* records of an ended thread worth a part */

static void write_head(struct out *o, struct cap_node *n, int complete);
static void write_proc_tag(struct out *o, struct proc *p);

/* The room for what comes before a head part: as it would be written
 * now, and what its numbers, statuses and flags may add by the end (a
 * long reason does not fit: the part is then copied as any other) */
static size_t head_room(struct cap_node *n, struct proc *p, struct thr *t)
{
	struct out m = { 0 };
	const char *test = getenv("ISLAND_TEST_HEAD_ROOM");

	if (test)		/* the tests' way to a room too small */
		return (size_t)atol(test);
	m.measure = m.direct = 1;
	m.cap = 1 << 16;
	m.b = xmalloc(m.cap);
	write_head(&m, n, 0);
	write_proc_tag(&m, p);
	write_thread_tag(&m, t);
	free(m.b);
	return sizeof("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n") + m.counted + m.n + 512;
}

/*
 * Streaming: the thread's records, as far as the resolver has taken them,
 * written into its part under dir (while it runs, not a call whose
 * completing records may be to come). 0; -1 when the part failed (the
 * thread is then written whole at the end: the records are all there).
 */
int write_stream(struct cap_node *n, struct proc *p, struct thr *t, const char *dir,
		 int comp, bool isb, int running, const int *halt)
{
	struct wstate *w = t->ws;

	if (!t->napplied || (w && (w->failed || w->pfd >= 0)))
		return w && w->failed ? -1 : 0;
	/* a part (a file, a coder, a compressor) for a thread that runs,
	 * or has enough to write: thousands of threads of a call or two
	 * each, ended when first seen, are written at the end at once, not
	 * made a part each (20,000: 0.3 s more) */
	if (!w && !running && t->napplied < STREAM_MIN)
		return 0;
	uint64_t upto = t->napplied;
	if (!w) {
		w = t->ws = xmalloc(sizeof(*w));
		ws_init(w, n, p, t);
	}
	if (w->done >= upto)
		return 0;
	if (!w->pf) {
		/* no part before its first record can be written (a part
		 * open is a record streamed: the tests wait for one) */
		if (!writable(n, p, t, w, running ? W_RUNNING : W_STREAM))
			return 0;
		/* the first thread of the first process, in a plain XML
		 * trace: its part in the trace's file from the start, room
		 * kept before it for what the end writes there (no copy of
		 * it then) */
		if (comp == TC_NONE && !isb && !n->head_given && p == &n->procs[0] &&
		    t == &p->thr[0] && !(n->rs && n->rs->cpu > 0)) {
			n->head_given = 1;
			w->at = head_room(n, p, t);
			w->pf = outfile_open_head(dir, w->at);
			if (!w->pf)
				w->at = 0;
		}
		if (!w->pf && !(w->pf = outfile_open_part(dir, (enum compress)comp, isb))) {
			w->failed = 1;
			return -1;
		}
		w->po.f = w->pf;
		w->po.enc = outfile_isb(w->pf);
		w->po.direct = 1;
		w->po.cap = 1 << 16;
		w->po.b = xmalloc(w->po.cap);
	}
	write_body(&w->po, n, p, t, w, upto, running ? W_RUNNING : W_STREAM, halt);
	o_flush(&w->po);
	if (w->po.failed) {
		outfile_close_part(w->pf, 1);
		w->pf = NULL;
		w->failed = 1;
		return -1;
	}
	return 0;
}

/* Streaming's end: the thread's part closed, whole (0) or not at all */
int write_stream_end(struct thr *t)
{
	struct wstate *w = t->ws;

	if (!w || !w->pf)
		return 0;
	if ((w->pfd = outfile_close_part(w->pf, w->po.failed)) < 0)
		w->failed = 1;
	w->pf = NULL;
	return w->failed ? -1 : 0;
}

int write_stream_at(const struct thr *t)
{
	const struct wstate *w = t->ws;

	return w && w->pf && !w->failed ? w->it.g : -1;
}

uint64_t write_streamed(const struct thr *t)
{
	const struct wstate *w = t->ws;

	return w && !w->failed ? w->done : 0;
}

uint64_t write_stream_left(const struct thr *t)
{
	const struct wstate *w = t->ws;

	if (w && (w->failed || w->pfd >= 0))
		return 0;
	return t->napplied - (w ? w->done : 0);
}

/* The parts gone (after model_write, or when it is not written) */
void write_stream_free(struct thr *t)
{
	struct wstate *w = t->ws;

	if (!w)
		return;
	if (w->pf)
		outfile_close_part(w->pf, 1);
	ws_free(w);
	free(w);
	t->ws = NULL;
}

static void write_proc_tag(struct out *o, struct proc *p)
{
	char st[64];

	fmt_status(st, sizeof(st), p->status);
	o_lit(o, "  <process");
	o_attr_int(o, "pid", p->pid);
	o_attr_int(o, "ppid", p->ppid);
	o_attr_esc(o, "exe", p->exe ? p->exe : "");
	if (p->first_exe && p->exe && strcmp(p->first_exe, p->exe))
		o_attr_esc(o, "first_exe", p->first_exe);
	o_attr_esc(o, "cwd", p->cwd ? p->cwd : "");
	o_attr_sec(o, "start", p->start);
	o_attr_sec(o, "end", p->end);
	o_attr(o, "status", st);
	o_attr(o, "complete", p->complete ? "true" : "false");
	if (p->reason)
		o_attr_esc(o, "reason", p->reason);
	if (p->unprofiled)
		o_attr_esc(o, "unprofiled", p->unprofiled);
	o_lit(o, ">\n");
}

static void write_proc(struct out *o, struct cap_node *n, struct proc *p)
{
	write_proc_tag(o, p);
	nmods = 0;
	if (n->callsites || n->profile) {
		collect_modules(p);
		write_modules(o);
	}
	for (int i = 0; i < p->nthr; i++)
		write_thread(o, n, p, &p->thr[i]);
	o_lit(o, "  </process>\n");
}

/* objects by their makers' starts, then by the calls that made them:
 * the same trace however the processes' parts streamed */
static int cmp_made(const void *a, const void *b)
{
	const struct obj *x = *(struct obj *const *)a, *y = *(struct obj *const *)b;

	if (x->made_start != y->made_start)
		return x->made_start < y->made_start ? -1 : 1;
	if (x->made_t != y->made_t)
		return x->made_t < y->made_t ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void write_summaries(struct out *o, struct cap_node *n)
{
	struct obj **by = xmalloc(sizeof(*by) * (size_t)(n->nobjs + 1));

	for (int i = 0; i < n->nobjs; i++)
		by[i] = &n->objs[i];
	if (n->nobjs > 1)
		qsort(by, (size_t)n->nobjs, sizeof(*by), cmp_made);
	o_lit(o, "  <files>\n");
	for (int i = 0; i < n->nobjs; i++) {
		struct obj *b = by[i];
		if (b->kind != OBJ_FILE || !b->listed)
			continue;
		o_lit(o, "    <file");
		o_attr(o, "path", b->xname);
		o_attr_int(o, "opens", (int64_t)b->opens);
		o_attr_int(o, "reads", (int64_t)b->reads);
		o_attr_int(o, "bytes_read", (int64_t)b->bytes_read);
		o_attr_int(o, "writes", (int64_t)b->writes);
		o_attr_int(o, "bytes_written", (int64_t)b->bytes_written);
		o_attr_int(o, "open_at_end", b->open_fds > 0 ? b->open_fds : 0);
		/* the file as the run left it: a replay on another file
		 * system makes the ones the run found (and did not change)
		 * with this size and this much of it allocated (a sparse
		 * file's holes stay holes) */
		struct stat st;
		if (b->xname && b->xname[0] == '/' && !stat(b->xname, &st) && S_ISREG(st.st_mode)) {
			o_attr_int(o, "size_at_end", (int64_t)st.st_size);
			o_attr_int(o, "allocated_at_end", (int64_t)st.st_blocks * 512);
		}
		o_lit(o, "/>\n");
	}
	o_lit(o, "  </files>\n  <sockets>\n");
	for (int i = 0; i < n->nobjs; i++) {
		struct obj *b = by[i];
		if ((b->kind != OBJ_SOCKET && b->kind != OBJ_PIPE) || !b->listed)
			continue;
		o_lit(o, "    <socket");
		o_attr(o, "proto", b->proto[0] ? b->proto : "other");
		o_attr(o, "local", b->local ? b->local : "");
		o_attr(o, "peer", b->peer ? b->peer : "");
		o_attr_int(o, "sent", (int64_t)b->bytes_written);
		o_attr_int(o, "received", (int64_t)b->bytes_read);
		o_attr(o, "direction", b->direction);
		o_attr(o, "open_at_end", b->open_fds > 0 ? "true" : "false");
		o_lit(o, "/>\n");
	}
	o_lit(o, "  </sockets>\n");
	free(by);
}

/* A plain decimal (xs:decimal: no exponent), without trailing zeros. */
static void fmt_decimal(char *buf, size_t n, double v)
{
	snprintf(buf, n, "%.6f", v);
	char *e = buf + strlen(buf) - 1;
	while (*e == '0')
		*e-- = 0;
	if (*e == '.')
		*e = 0;
}

static void write_restrictions(struct out *o, struct cap_node *n)
{
	char buf[64];

	if (n->rs) {
		o_lit(o, "  <restrictions>\n");
		if (n->rs->cpu > 0) {
			fmt_decimal(buf, sizeof(buf), n->rs->cpu);
			o_lit(o, "    <limit resource=\"cpu\" value=\"");
			o_str(o, buf);
			o_lit(o, "\"/>\n");
		}
		for (int i = 0; i < LIM_N; i++) {
			if (n->rs->rate[i] <= 0)
				continue;
			fmt_decimal(buf, sizeof(buf), n->rs->rate[i]);
			o_lit(o, "    <limit resource=\"");
			o_str(o, limit_names[i]);
			o_lit(o, "\" value=\"");
			o_str(o, buf);
			o_lit(o, "\"/>\n");
		}
		o_lit(o, "  </restrictions>\n");
	}
	if (n->stops) {
		struct stop st;
		o_lit(o, "  <stops>\n");
		for (size_t i = 0; stoplog_get(n->stops, i, &st) == 0; i++) {
			o_lit(o, "    <stop");
			o_attr_sec(o, "start", st.start);
			o_attr_sec(o, "dur", st.dur);
			o_lit(o, "/>\n");
		}
		o_lit(o, "  </stops>\n");
	}
}

/* The trace's start, to its processes */
static void write_head(struct out *o, struct cap_node *n, int complete)
{
	char buf[64];

	o_str(o, "<trace version=\"1\" generator=\"island-capture " ISLAND_VERSION
		  "\"");
	o_attr(o, "complete", complete ? "true" : "false");
	if (n->reason)
		o_attr(o, "reason", n->reason);
	o_lit(o, ">\n<node");
	o_attr_esc(o, "name", n->name);
	o_attr_esc(o, "host", n->host);
	snprintf(buf, sizeof(buf), "%lld.%09lld", (long long)(n->clk.real0 / 1000000000),
		 (long long)(n->clk.real0 % 1000000000));
	o_attr(o, "epoch", buf);
	if (n->has_clock_offset) {
		int64_t co = n->clock_offset, a = co < 0 ? -co : co;

		snprintf(buf, sizeof(buf), "%s%lld.%09lld", co < 0 ? "-" : "",
			 (long long)(a / 1000000000), (long long)(a % 1000000000));
		o_attr(o, "clock_offset", buf);
	}
	o_attr_sec(o, "start", 0);
	o_attr_sec(o, "end", n->end);
	o_attr(o, "clock", n->clk.kind == CLOCK_KIND_TSC ? "tsc" : "monotonic");
	if (n->syscalls)
		o_attr(o, "syscalls", n->syscalls_seen ? "kernel" : "unavailable");
	if (n->server)
		o_attr(o, "role", "server");
	if (n->has_stopped)
		o_attr_sec(o, "stopped", n->stopped);
	if (n->mpi_rank >= 0)
		o_attr_int(o, "mpi_rank", n->mpi_rank);
	if (n->unseen)
		o_attr(o, "unseen", n->unseen);
	if (n->pcap) {
		const char *base = strrchr(n->pcap, '/');
		o_attr_esc(o, "pcap", base ? base + 1 : n->pcap);
	}
	o_lit(o, ">\n  <command>");
	for (int i = 0; i < n->argc; i++) {
		char *e = attr_escape(n->argv[i]);
		o_lit(o, "<arg>");
		o_str(o, e);
		o_lit(o, "</arg>");
		free(e);
	}
	o_lit(o, "</command>\n");
	write_restrictions(o, n);
	if (n->profile) {
		o_lit(o, "  <profile");
		o_attr(o, "values", prof_values_name(n->profile));
		o_attr_int(o, "hz", n->profile_hz);
		if (n->profile_alloc)
			o_attr_int(o, "alloc_every", n->profile_alloc);
		write_sampler(o, n);
		o_lit(o, "/>\n");
	}
}

int model_write(struct cap_node *n, const char *path, int comp)
{
	struct outfile *f;
	struct out o = { 0 };
	int complete = n->complete;
	const struct wstate *head = NULL;

	for (int i = 0; i < n->nprocs; i++)
		for (int j = 0; j < n->procs[i].nthr; j++) {
			const struct wstate *w = n->procs[i].thr[j].ws;
			if (n->procs[i].thr[j].lost)
				complete = 0;
			/* its first records let go, its part failed: the
			 * spool has them (--recover) */
			if (n->procs[i].thr[j].dropped && !part_whole(w)) {
				warnx("pid %d tid %d: its part of the trace failed after "
				      "records written there were let go",
				      (int)n->procs[i].pid, (int)n->procs[i].thr[j].tid);
				errno = EIO;
				return -1;
			}
			if (part_whole(w) && w->at)
				head = w;
		}
	f = head && comp == TC_NONE ? outfile_open_over(path, head->pfd, head->at) :
	    outfile_open(path, (enum compress)comp);
	if (!f)
		return -1;
	o.w = outfile_writer(f);
	o.f = f;
	o.enc = outfile_isb(f);
	o.whole = n->whole;
	o.cap = 1 << 18;
	o.b = xmalloc(o.cap);
	xmlTextWriterStartDocument(o.w, NULL, "UTF-8", NULL);
	write_head(&o, n, complete);
	for (int i = 0; i < n->nprocs; i++)
		write_proc(&o, n, &n->procs[i]);
	write_summaries(&o, n);
	o_lit(&o, "</node>\n</trace>\n");
	o_flush(&o);
	free(o.b);
	/* the write's own errno, EIO when only the writer knows */
	if (outfile_close(f, o.failed) < 0) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}
