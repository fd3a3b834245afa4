/*
 * Pass 2: the trace (docs/trace-format.md) of the model the resolver
 * made: its elements, in the order the format gives them, through the
 * trace library's emitter (trace/emit.h); a call like the last one but
 * for its times is given as that element again.
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

#include "trace/emit.h"
#include "trace/outfile.h"
#include "trace/isbfmt.h"
#include <libxml/xmlwriter.h>

#include "capture.h"
#include "capture/run/run.h"
#include "util.h"
#include "zstdio.h"

/* --- what the writer keeps beside the trace's bytes (trace/emit.h) ------ */

struct out {
	struct emit e;
	int whole;		/* no element as the last one again */
	/* a call like the last one given whole but for its times goes as
	 * that element again (.isb: outfile_again; XML: its text kept in
	 * xa), which a loop's calls are: what the last one's attributes came
	 * from, valid while again_io */
	bool again_compute, again_io;
	/* XML: the last call's element but its times (its text up to its
	 * start, after its end) */
	size_t xa_head, xa_tail;
	char xa[1024];
	struct again_key {
		const struct cap_node *n;
		struct rec r;        /* t0 and t1 zero */
		uint64_t proto[2];   /* a pipe's */
	} key;
	/* the objects' names as XML has them, by id: the model's are
	 * plain, and a name goes on every call on its file, escaped once */
	char **xn;
	size_t nxn;
};

/* the first call naming the object: its name escaped, kept */
static __attribute__((noinline)) const char *xname_new(struct out *o, const struct cap_node *n,
							 uint32_t id)
{
	if (id > o->nxn) {
		size_t cap = o->nxn;

		XGROW(o->xn, cap, (size_t)n->nobjs);
		memset(o->xn + o->nxn, 0, sizeof(*o->xn) * (cap - o->nxn));
		o->nxn = cap;
	}
	if (!o->xn[id - 1])
		o->xn[id - 1] = emit_escape(n->objs[id - 1].name);
	return o->xn[id - 1];
}

static inline const char *xname(struct out *o, const struct cap_node *n, uint32_t id)
{
	return id <= o->nxn && o->xn[id - 1] ? o->xn[id - 1] : xname_new(o, n, id);
}

static void xnames_free(struct out *o)
{
	for (size_t i = 0; i < o->nxn; i++)
		free(o->xn[i]);
	free(o->xn);
	o->xn = NULL;
	o->nxn = 0;
}

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
		emit_lit(&o->e, "    <module");
		emit_attr_int(&o->e, "id", (int64_t)k + 1);
		emit_attr_esc(&o->e, "path", mods[k].path);
		snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)mods[k].bias);
		emit_attr(&o->e, "bias", buf);
		if (mods[k].build_id[0])
			emit_attr_esc(&o->e, "build_id", mods[k].build_id);
		emit_lit(&o->e, "/>\n");
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
		q = emit_put_u64(q, k + 1);
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
	emit_need(&o->e, 48);
	o->e.n += fmt_addr(o->e.b + o->e.n, a);
}

static void write_site(struct out *o, const struct rec *site)
{
	if (o->e.bel) {
		char buf[48];

		emit_el_str(&o->e, "site", sizeof("site") - 1, buf, fmt_addr(buf, site->t0), ISB_A_PLAIN);
		return;
	}
	emit_lit(&o->e, " site=\"");
	o_addr(o, site->t0);
	emit_lit(&o->e, "\"");
}

/* --profile: <sample> (a snapshot) and <free> (every allocation sampled). */
static void put_sample_el(struct out *o, struct cap_node *n, int64_t t0, int64_t prev,
			  int kind, int64_t cpu, int64_t alloc, int64_t allocs,
			  const uint64_t *ptr, const uint64_t *w, size_t nw)
{
	static const char *const kinds[] = { "timer", "call", "alloc", "end" };
	char buf[64];

	emit_lit(&o->e, "      <sample");
	emit_attr_sec(&o->e, "t", t0 > 0 ? t0 : 0);
	emit_attr(&o->e, "kind", kinds[kind >= 0 && kind <= SAMPLE_END ? kind : 0]);
	emit_attr_sec(&o->e, "cpu", cpu > 0 ? cpu : 0);
	emit_attr_sec(&o->e, "wall", t0 > prev ? t0 - prev : 0);
	if (n->profile & PV_ALLOC) {
		emit_attr_int(&o->e, "alloc", alloc);
		emit_attr_int(&o->e, "allocs", allocs);
	}
	if (ptr) {
		snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)*ptr);
		emit_attr(&o->e, "ptr", buf);
	}
	emit_lit(&o->e, " stack=\"");
	for (size_t k = 0; k < nw; k++) {
		if (k)
			emit_lit(&o->e, " ");
		o_addr(o, w[k]);
	}
	emit_lit(&o->e, "\"/>\n");
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
	emit_attr(&o->e, "sampler", names[how]);
	if (n->profile_cpu < 10000000)	/* 10 ms: less says little */
		return;
	int64_t rate = (int64_t)((double)n->profile_ticks * 1e9 / (double)n->profile_cpu + 0.5);

	emit_attr_int(&o->e, "rate", rate);
	if (c->by_timer && rate < n->profile_hz * 9 / 10)
		warnx("%s: --sample-hz %d: snapshots came at %lld a CPU second "
		      "(perf_event_open refused: a CPU-clock timer, at the kernel's tick)",
		      n->name, n->profile_hz, (long long)rate);
}

static void write_free(struct out *o, struct cap_node *n, const struct rec *r)
{
	char buf[64];
	int64_t t0 = clock_ns(&n->clk, r->t0);

	emit_lit(&o->e, "      <free");
	emit_attr_sec(&o->e, "t", t0 > 0 ? t0 : 0);
	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)r->a1);
	emit_attr(&o->e, "ptr", buf);
	emit_lit(&o->e, "/>\n");
}

/* --syscalls: which level saw the call (levels.c). */
static void write_level(struct out *o, const struct rec *r)
{
	int k = (r->seq & SEQ_KERNEL) != 0, l = (r->seq & SEQ_LIBC) != 0;

	emit_attr(&o->e, "level", k && l ? "libc|kernel" : k ? "kernel" : "libc");
	if (k && l)
		emit_attr(&o->e, "sys", sys_name(SEQ_NR(r->seq)));
	if (k && !l && SEQ_VIA(r->seq) >= 0)
		emit_attr(&o->e, "via", call_name(SEQ_VIA(r->seq)));
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
	if (!o->e.enc) {
		emit_need(&o->e, o->xa_head + o->xa_tail + 80);
		memcpy(o->e.b + o->e.n, o->xa, o->xa_head);
		o->e.n += o->xa_head;
		emit_lit(&o->e, " start=\"");
		emit_sec(&o->e, t0);
		emit_lit(&o->e, "\" end=\"");
		emit_sec(&o->e, t1);
		emit_lit(&o->e, "\"");
		memcpy(o->e.b + o->e.n, o->xa + o->xa_head, o->xa_tail);
		o->e.n += o->xa_tail;
		return true;
	}
	emit_sync(&o->e);
	if (outfile_again(o->e.f, "io", 2, pos, m, 9) < 0)
		o->e.failed = 1;
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
	emit_need(&o->e, sizeof(o->xa));
	x0 = o->e.n;
	flushes0 = o->e.flushes;
	if (o->e.enc) {
		emit_el_begin(&o->e);
		emit_el_kept(&o->e, "api", 0, kernel_only ? sys_name(SEQ_NR(r->seq)) : call_name(c),
		       ISB_A_PLAIN);
		emit_el_kept(&o->e, "res", 1, res_names[res_of(n, r)], ISB_A_PLAIN);
	} else {
		emit_lit(&o->e, "      <io api=\"");
		emit_kept(&o->e, 0, kernel_only ? sys_name(SEQ_NR(r->seq)) : call_name(c));
		emit_lit(&o->e, "\" res=\"");
		emit_kept(&o->e, 1, res_names[res_of(n, r)]);
		emit_lit(&o->e, "\"");
		x1 = o->e.n;
	}
	emit_attr_sec(&o->e, "start", t0);
	emit_attr_sec(&o->e, "end", t1);
	x2 = o->e.n;
	if (C_IS_LEVEL(c))
		emit_attr_named(&o->e, "level", C_IS_HDF5(c) ? "hdf5" : C_IS_LEVEL_FILE(c) ? "mpi-io" : "mpi");
	else if (n->syscalls)
		write_level(o, r);
	if (within)
		emit_attr(&o->e, "within", within);
	/* fscanf's bytes are unknown on a stream without a position */
	if (call_has_amount(c) &&
	    !((c == C_FSCANF || c == C_VFSCANF || c == C_SCANF) && r->a2 < 0)) {
		emit_attr_int(&o->e, "amount", amount_of(r));
		if (r->a1 > 0 && !C_IS_LEVEL(c))
			emit_attr_int(&o->e, "size", r->a1);
		if ((c == C_PREAD || c == C_PWRITE || c == C_PREADV ||
		     c == C_PWRITEV || c == C_PREADV2 || c == C_PWRITEV2 || aop) &&
		    r->a2 >= 0)
			emit_attr_int(&o->e, "offset", r->a2);
	}
	if (aop) {
		static const char *const kinds[] = {
			[AIO_LIBAIO] = "libaio", [AIO_POSIX] = "posix",
			[AIO_URING] = "io_uring" };
		emit_attr(&o->e, "async", aop->kind >= AIO_LIBAIO && aop->kind <= AIO_URING ?
		       kinds[aop->kind] : aop->ctx ? "libaio" : "posix");
		if (aop->ctx) {
			snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)aop->ctx);
			emit_attr(&o->e, "ctx", buf);
		}
		if (aop->depth)
			emit_attr_int(&o->e, "depth", aop->depth);
	}
	switch (c) {
	case C_MMAP: case C_MUNMAP: case C_FALLOCATE: case C_POSIX_FALLOCATE:
	case C_TRUNCATE: case C_FTRUNCATE:
		emit_attr_int(&o->e, "size", r->a1);
		if (c == C_MMAP || c == C_FALLOCATE || c == C_POSIX_FALLOCATE)
			emit_attr_int(&o->e, "offset", r->a2);
		if (c == C_MMAP && REC_PAYLOAD_LEN(r) >= 8) {
			int32_t pf[2];
			memcpy(pf, REC_PAYLOAD(r), sizeof(pf));
			emit_attr(&o->e, "flags", (pf[1] & MAP_TYPE) == MAP_PRIVATE ?
			       "MAP_PRIVATE" : "MAP_SHARED");
		}
		break;
	case C_FSETPOS:
		emit_attr_int(&o->e, "offset", r->a1);
		break;
	case C_SYNC_FILE_RANGE:
		emit_attr_int(&o->e, "size", r->a1);
		emit_attr_int(&o->e, "offset", r->a2);
		break;
	}
	/* what a replay must do again: the mode of an allocation (a hole
	 * punched), whether a range's sync waits; the descriptor's flags a
	 * control set (close-on-exec, appending) */
	if ((c == C_FALLOCATE || c == C_SYNC_FILE_RANGE) && REC_PAYLOAD_LEN(r) >= 4) {
		int32_t v;
		memcpy(&v, REC_PAYLOAD(r), sizeof(v));
		ctl_mode(c, v, buf, sizeof(buf));
		emit_attr(&o->e, "flags", buf);
	}
	if (c == C_FCNTL || c == C_IOCTL || c == C_PRCTL) {
		const char *a;
		emit_attr(&o->e, "cmd", ctl_cmd(c, r->a1, buf, sizeof(buf)));
		if (!failed && (a = ctl_arg(c, r->a1, r->a2, buf, sizeof(buf))))
			emit_attr(&o->e, "flags", a);
		if (!failed && c == C_FCNTL && (r->a1 == F_GETFD || r->a1 == F_GETFL))
			emit_attr_int(&o->e, "result", r->ret);
	}
	if (c == C_DUP3 && !failed && (r->a2 & O_CLOEXEC))
		emit_attr(&o->e, "flags", "O_CLOEXEC");
	if (c == C_LSEEK || c == C_FSEEK) {
		emit_attr_int(&o->e, "offset", r->a1);
		emit_attr(&o->e, "whence", r->a2 == SEEK_SET ? "SEEK_SET" :
		       r->a2 == SEEK_CUR ? "SEEK_CUR" : r->a2 == SEEK_END ?
		       "SEEK_END" : "other");
	}
	if (c == C_FCNTL && !failed && (r->a1 == F_DUPFD || r->a1 == F_DUPFD_CLOEXEC)) {
		emit_attr_int(&o->e, "fd", r->ret);
		emit_attr_int(&o->e, "oldfd", r->fd);
	} else if (r->fd >= 0) {
		emit_attr_int(&o->e, "fd", r->fd);
	}
	if (c == C_DUP || c == C_DUP2 || c == C_DUP3)
		emit_attr_int(&o->e, "oldfd", r->a1);
	if ((c == C_PIPE || c == C_SOCKETPAIR) && !failed) {
		emit_attr_int(&o->e, "fd2", r->a1);
		/* pipe2 and socketpair's close-on-exec: a replay must know
		 * which ends an exec closes (Python's exec error pipe) */
		int fl = (int)r->a2 & (O_CLOEXEC | O_NONBLOCK);
		if (fl) {
			snprintf(buf, sizeof(buf), "%s%s%s", fl & O_CLOEXEC ? "O_CLOEXEC" : "",
				 fl == (O_CLOEXEC | O_NONBLOCK) ? "|" : "",
				 fl & O_NONBLOCK ? "O_NONBLOCK" : "");
			emit_attr(&o->e, "flags", buf);
		}
	}
	if (ob) {
		if (ob->kind == OBJ_FILE || ob->kind == OBJ_OTHER) {
			if (ob->name && o->e.bel) {
				emit_el_kept(&o->e, "path", 2, xname(o, n, r->obj), ISB_A_XML);
			} else if (ob->name) {
				emit_lit(&o->e, " path=\"");
				emit_kept(&o->e, 2, xname(o, n, r->obj));
				emit_lit(&o->e, "\"");
			}
		} else if (ob->kind == OBJ_PIPE) {
			emit_attr(&o->e, "peer", "pipe");
			/* which one: a child given it by a dup2 the capture
			 * did not see (a vfork child's) names it as its parent
			 * does, for a replayer to give it the same */
			emit_attr_int(&o->e, "pipe", (int64_t)r->obj);
		} else if ((c == C_SENDTO || c == C_RECVFROM || c == C_SENDMSG ||
			    c == C_RECVMSG) && REC_PAYLOAD_LEN(r) > 2 &&
			   *(sa_family_t *)REC_PAYLOAD(r)) {
			fmt_sockaddr(buf, sizeof(buf), REC_PAYLOAD(r),
				     REC_PAYLOAD_LEN(r));
			emit_attr_esc(&o->e, "peer", buf);
		} else if (ob->peer) {
			/* not kept escaped: it may change while streaming */
			emit_attr_esc(&o->e, "peer", ob->peer);
		}
		/* on every call, data included: sums splits tcp from udp,
		 * and a reader streams without seeing the <sockets> list */
		if ((ob->kind == OBJ_SOCKET || ob->kind == OBJ_PIPE) && ob->proto[0])
			emit_attr(&o->e, "proto", ob->proto);
		/* the call's own local address, for a replayer to match
		 * connections (bind, connect, accept carry it) */
		if ((c == C_BIND || c == C_CONNECT || c == C_ACCEPT) &&
		    REC_PAYLOAD_LEN(r) >= sizeof(struct sockinfo)) {
			const struct sockinfo *si = (const void *)REC_PAYLOAD(r);
			fmt_sockaddr(buf, sizeof(buf), &si->local, si->llen);
			if (buf[0])
				emit_attr_esc(&o->e, "local", buf);
		}
	}
	if (c == C_SENDFILE || c == C_COPY_FILE_RANGE || c == C_SPLICE || c == C_TEE) {
		int so = copy_src_obj(r);
		emit_attr_int(&o->e, "infd", copy_src_fd(r));
		if (so && n->objs[so - 1].name)
			emit_attr(&o->e, "inpath", xname(o, n, (uint32_t)so));
		else if (so && n->objs[so - 1].kind == OBJ_PIPE)
			emit_attr(&o->e, "inpath", "pipe");
	}
	if (two_paths(c) && r->a1 > 0 && r->a1 <= n->nobjs)
		emit_attr(&o->e, "path2", xname(o, n, (uint32_t)r->a1));
	/* an exec's arguments, escaped by the wrapper (wrap_proc.c) */
	if (c == C_EXECVE && REC_PAYLOAD_LEN(r)) {
		char *av = memchr(REC_PAYLOAD(r), 0, REC_PAYLOAD_LEN(r));
		if (av && av + 1 < REC_PAYLOAD(r) + REC_PAYLOAD_LEN(r) && av[1])
			emit_attr_esc(&o->e, "args", av + 1);
	}
	if (c == C_SYMLINK || c == C_SYMLINKAT) {
		char *tg = memchr(REC_PAYLOAD(r), 0, REC_PAYLOAD_LEN(r));
		if (tg && tg + 1 < REC_PAYLOAD(r) + REC_PAYLOAD_LEN(r))
			emit_attr_esc(&o->e, "target", tg + 1);
	}
	if (c == C_OPEN || c == C_OPENAT || c == C_CREAT || c == C_OPENDIR ||
	    c == C_MKSTEMP || c == C_MKOSTEMP || c == C_MKSTEMPS || c == C_MKOSTEMPS ||
	    c == C_TMPFILE) {
		fmt_oflags(buf, sizeof(buf), (int)r->a1);
		emit_attr(&o->e, "flags", buf);
	} else if (c == C_FOPEN || c == C_FREOPEN) {
		char *mode = memchr(REC_PAYLOAD(r), 0, REC_PAYLOAD_LEN(r));
		if (mode && mode + 1 < REC_PAYLOAD(r) + REC_PAYLOAD_LEN(r) && mode[1])
			emit_attr_esc(&o->e, "flags", mode + 1);
	} else if (c == C_FDOPEN && REC_PAYLOAD(r)[0]) {
		emit_attr_esc(&o->e, "flags", REC_PAYLOAD(r));
	}
	if ((c == C_LSEEK || c == C_FTELL || c == C_FTELLO || c == C_READLINK ||
	     c == C_READLINKAT) && !failed)
		emit_attr_int(&o->e, "result", r->ret);
	if (failed) {
		emit_attr_int(&o->e, "result", r->ret);
		emit_attr(&o->e, "errno", errno_name(r->err ? r->err : EIO));
	}
	switch (c) {
	case C_FORK:
		if (r->ret > 0)
			emit_attr_int(&o->e, "child", r->ret);
		break;
	case C_VFORK:	/* the kernel's result (--syscalls), or the child's word */
		if (r->ret > 0 || r->a1 > 0)
			emit_attr_int(&o->e, "child", r->ret > 0 ? r->ret : r->a1);
		break;
	case C_POSIX_SPAWN:
		if (r->a1 > 0)
			emit_attr_int(&o->e, "child", r->a1);
		break;
	case C_PTHREAD_CREATE: {
		pid_t tid = r->ret == 0 ? created_thread(p, t, r, t0) : 0;
		if (tid)
			emit_attr_int(&o->e, "child", tid);
		break;
	}
	case C_PTHREAD_JOIN:
		if (r->a1 > 0)
			emit_attr_int(&o->e, "child", r->a1);
		break;
	case C_WAITPID: case C_WAIT4: case C_WAITCALL: case C_WAIT3:
	case C_WAITID:
		if (r->ret > 0) {
			emit_attr_int(&o->e, "child", r->ret);
			fmt_status(buf, sizeof(buf), (int)r->a1);
			emit_attr(&o->e, "status", buf);
		}
		break;
	case C_SYSTEM:
		if (r->a2 > 0)          /* its shell, found by resolve.c */
			emit_attr_int(&o->e, "child", r->a2);
		fmt_status(buf, sizeof(buf), (int)r->a1);
		emit_attr(&o->e, "status", buf);
		break;
	case C_ACCEPT:
		emit_attr_int(&o->e, "listenfd", r->a1);
		break;
	case C_SLEEP: case C_USLEEP: case C_NANOSLEEP: case C_CLOCK_NANOSLEEP:
		if (r->a1 >= 0)
			emit_attr_sec(&o->e, "req", r->a1);
		break;
	case C_FREAD: case C_FWRITE: case C_SENDMMSG: case C_RECVMMSG:
	case C_FSCANF: case C_VFSCANF: case C_SCANF: case C_IO_URING_ENTER:
		if (r->ret >= 0)
			emit_attr_int(&o->e, "count", r->ret);
		break;
	/* libaio's: the context (a2); the queue depth asked, the
	 * operations submitted, the events reaped */
	case C_IO_SETUP: case C_IO_DESTROY: case C_IO_SUBMIT: case C_IO_GETEVENTS:
	case C_IO_CANCEL:
		if (r->a2) {
			snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)r->a2);
			emit_attr(&o->e, "ctx", buf);
		}
		if (c == C_IO_SETUP)
			emit_attr_int(&o->e, "count", r->a1);
		else if ((c == C_IO_SUBMIT || c == C_IO_GETEVENTS) && r->ret >= 0)
			emit_attr_int(&o->e, "count", r->ret);
		break;
	case C_LIO_LISTIO: case C_AIO_SUSPEND:
		emit_attr_int(&o->e, "count", r->a1);
		break;
	case C_CLONE:
		if (r->ret > 0)
			emit_attr_int(&o->e, "child", r->ret);
		break;
	case C_POPEN:
		if (r->a2 > 0)          /* its shell, found by resolve.c */
			emit_attr_int(&o->e, "child", r->a2);
		break;
	case C_PCLOSE:
		if (!failed) {
			fmt_status(buf, sizeof(buf), (int)r->ret);
			emit_attr(&o->e, "status", buf);
		}
		break;
	}
	char mb[2048];		/* (until the element's end: b_end) */
	if (C_IS_LEVEL(c)) {
		struct mpi_attr ma[MPI_ATTRS];
		int k = mpi_attrs(r, ma, mb, sizeof(mb));
		for (int i = 0; i < k; i++)
			emit_attr_named(&o->e, ma[i].name, ma[i].value);
	}
	if (SEQ_IO(r->seq))
		emit_attr_int(&o->e, "seq", (int64_t)SEQ_IO(r->seq));
	if (site)
		write_site(o, site);
	if (kread > 0)          /* what the kernel read under this stdio call */
		emit_attr_int(&o->e, "kernel_amount", kread);
	if (held && held->call == REC_THROTTLE) {
		emit_attr_sec(&o->e, "throttle", held->a1);
		emit_attr(&o->e, "limit", limit_names[held->fd >= 0 && held->fd < LIM_N ?
						held->fd : 0]);
	}
	if (is_timed_wait(c)) {
		if (r->a1 >= 0)
			emit_attr_sec(&o->e, "timeout", r->a1);
		else
			emit_attr(&o->e, "timeout", "-1");
		if ((c == C_POLL || c == C_PPOLL || c == C_SELECT || c == C_PSELECT ||
		     c == C_EPOLL_WAIT || c == C_EPOLL_PWAIT) && r->ret >= 0)
			emit_attr_int(&o->e, "count", r->ret);
	}
	if (o->e.bel) {
		emit_el_end(&o->e, "io");
		return;
	}
	emit_lit(&o->e, "/>\n");
	/* its text for the next like it, when whole in the buffer and short */
	if (o->again_io && (flushes0 != o->e.flushes ||
			    (x1 - x0) + (o->e.n - x2) > sizeof(o->xa))) {
		o->again_io = false;
	} else if (o->again_io) {
		o->xa_head = x1 - x0;
		o->xa_tail = o->e.n - x2;
		memcpy(o->xa, o->e.b + x0, o->xa_head);
		memcpy(o->xa + o->xa_head, o->e.b + x2, o->xa_tail);
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
	emit_lit(&o->e, "      <region");
	emit_attr_int(&o->e, "id", g->id);
	emit_attr_int(&o->e, "parent", g->parent);
	emit_attr_int(&o->e, "depth", g->depth);
	emit_attr_esc(&o->e, "label", g->label);
	emit_attr_sec(&o->e, "start", g->start);
	emit_attr_sec(&o->e, "end", end);
	if (error)
		emit_attr(&o->e, "error", error);
	emit_lit(&o->e, "/>\n");
}

static void write_compute(struct out *o, int64_t dur)
{
	if (o->e.enc && o->again_compute && !o->whole) {
		static const int pos0 = 0;
		int64_t m = dur < 0 ? 0 : dur;

		emit_sync(&o->e);
		if (outfile_again(o->e.f, "compute", 1, &pos0, &m, 9) < 0)
			o->e.failed = 1;
		return;
	}
	if (o->e.enc) {
		emit_el_begin(&o->e);
		emit_el_num(&o->e, "dur", sizeof("dur") - 1, dur < 0 ? 0 : dur, 9);
		emit_el_end(&o->e, "compute");
		o->again_compute = true;
		return;
	}
	emit_lit(&o->e, "      <compute dur=\"");
	emit_sec(&o->e, dur < 0 ? 0 : dur);
	emit_lit(&o->e, "\"/>\n");
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
		emit_str(&o->e, wait ? "      <wait" : "      <signal");
		emit_attr_esc(&o->e, "node", d[lo].other);
		if (wait)
			emit_attr_int(&o->e, "seq", (int64_t)d[lo].oseq);
		emit_lit(&o->e, "/>\n");
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
	free(w->po.e.b);
	xnames_free(&w->po);
	if (w->pfd >= 0)
		close(w->pfd);
}

static void write_thread_tag(struct out *o, struct thr *t)
{
	char *name = emit_escape(t->name);

	emit_lit(&o->e, "    <thread");
	emit_attr_int(&o->e, "tid", t->tid);
	emit_attr(&o->e, "name", name);
	if (t->creator)
		emit_attr_int(&o->e, "creator", t->creator);
	emit_attr_sec(&o->e, "start", t->start);
	emit_attr_sec(&o->e, "end", t->end);
	if (t->cpu >= 0)
		emit_attr_sec(&o->e, "cpu", t->cpu);
	emit_attr(&o->e, "exit", exit_names[t->exit]);
	emit_attr(&o->e, "complete", t->complete ? "true" : "false");
	if (t->lost)
		emit_attr_int(&o->e, "lost", (int64_t)t->lost);
	emit_lit(&o->e, ">\n");
	free(name);
}

static void write_thread(struct out *o, struct cap_node *n, struct proc *p,
			 struct thr *t)
{
	struct wstate local, *w = t->ws;

	write_thread_tag(o, t);

	/* what streaming wrote, then on from there */
	if (part_whole(w)) {
		emit_flush(&o->e);
		if (outfile_splice(o->e.f, w->pfd, w->at) < 0)
			o->e.failed = 1;
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
	emit_lit(&o->e, "    </thread>\n");
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
	m.e.measure = m.e.direct = 1;
	m.e.cap = 1 << 16;
	m.e.b = xmalloc(m.e.cap);
	write_head(&m, n, 0);
	write_proc_tag(&m, p);
	write_thread_tag(&m, t);
	free(m.e.b);
	return sizeof("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n") + m.e.counted + m.e.n + 512;
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
		w->po.e.f = w->pf;
		w->po.e.enc = outfile_isb(w->pf);
		w->po.e.direct = 1;
		w->po.e.cap = 1 << 16;
		w->po.e.b = xmalloc(w->po.e.cap);
	}
	write_body(&w->po, n, p, t, w, upto, running ? W_RUNNING : W_STREAM, halt);
	emit_flush(&w->po.e);
	if (w->po.e.failed) {
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
	if ((w->pfd = outfile_close_part(w->pf, w->po.e.failed)) < 0)
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
	emit_lit(&o->e, "  <process");
	emit_attr_int(&o->e, "pid", p->pid);
	emit_attr_int(&o->e, "ppid", p->ppid);
	emit_attr_esc(&o->e, "exe", p->exe ? p->exe : "");
	if (p->first_exe && p->exe && strcmp(p->first_exe, p->exe))
		emit_attr_esc(&o->e, "first_exe", p->first_exe);
	emit_attr_esc(&o->e, "cwd", p->cwd ? p->cwd : "");
	emit_attr_sec(&o->e, "start", p->start);
	emit_attr_sec(&o->e, "end", p->end);
	emit_attr(&o->e, "status", st);
	emit_attr(&o->e, "complete", p->complete ? "true" : "false");
	if (p->reason)
		emit_attr_esc(&o->e, "reason", p->reason);
	if (p->unprofiled)
		emit_attr_esc(&o->e, "unprofiled", p->unprofiled);
	emit_lit(&o->e, ">\n");
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
	emit_lit(&o->e, "  </process>\n");
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
	emit_lit(&o->e, "  <files>\n");
	for (int i = 0; i < n->nobjs; i++) {
		struct obj *b = by[i];
		if (b->kind != OBJ_FILE || !b->listed)
			continue;
		emit_lit(&o->e, "    <file");
		emit_attr_esc(&o->e, "path", b->name);
		emit_attr_int(&o->e, "opens", (int64_t)b->opens);
		emit_attr_int(&o->e, "reads", (int64_t)b->reads);
		emit_attr_int(&o->e, "bytes_read", (int64_t)b->bytes_read);
		emit_attr_int(&o->e, "writes", (int64_t)b->writes);
		emit_attr_int(&o->e, "bytes_written", (int64_t)b->bytes_written);
		emit_attr_int(&o->e, "open_at_end", b->open_fds > 0 ? b->open_fds : 0);
		/* the file as the run left it: a replay on another file
		 * system makes the ones the run found (and did not change)
		 * with this size and this much of it allocated (a sparse
		 * file's holes stay holes); a FIFO's bytes go from its
		 * writers to its readers (discovery's message edges) */
		struct stat st;
		if (b->name && b->name[0] == '/' && !stat(b->name, &st)) {
			if (S_ISREG(st.st_mode)) {
				emit_attr_int(&o->e, "size_at_end", (int64_t)st.st_size);
				emit_attr_int(&o->e, "allocated_at_end", (int64_t)st.st_blocks * 512);
			} else if (S_ISFIFO(st.st_mode)) {
				emit_lit(&o->e, " type=\"fifo\"");
			}
		}
		emit_lit(&o->e, "/>\n");
	}
	emit_lit(&o->e, "  </files>\n  <sockets>\n");
	for (int i = 0; i < n->nobjs; i++) {
		struct obj *b = by[i];
		if ((b->kind != OBJ_SOCKET && b->kind != OBJ_PIPE) || !b->listed)
			continue;
		emit_lit(&o->e, "    <socket");
		emit_attr(&o->e, "proto", b->proto[0] ? b->proto : "other");
		emit_attr_esc(&o->e, "local", b->local ? b->local : "");
		emit_attr_esc(&o->e, "peer", b->peer ? b->peer : "");
		emit_attr_int(&o->e, "sent", (int64_t)b->bytes_written);
		emit_attr_int(&o->e, "received", (int64_t)b->bytes_read);
		emit_attr(&o->e, "direction", b->direction);
		emit_attr(&o->e, "open_at_end", b->open_fds > 0 ? "true" : "false");
		emit_lit(&o->e, "/>\n");
	}
	emit_lit(&o->e, "  </sockets>\n");
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
		emit_lit(&o->e, "  <restrictions>\n");
		if (n->rs->cpu > 0) {
			fmt_decimal(buf, sizeof(buf), n->rs->cpu);
			emit_lit(&o->e, "    <limit resource=\"cpu\" value=\"");
			emit_str(&o->e, buf);
			emit_lit(&o->e, "\"/>\n");
		}
		for (int i = 0; i < LIM_N; i++) {
			if (n->rs->rate[i] <= 0)
				continue;
			fmt_decimal(buf, sizeof(buf), n->rs->rate[i]);
			emit_lit(&o->e, "    <limit resource=\"");
			emit_str(&o->e, limit_names[i]);
			emit_lit(&o->e, "\" value=\"");
			emit_str(&o->e, buf);
			emit_lit(&o->e, "\"/>\n");
		}
		emit_lit(&o->e, "  </restrictions>\n");
	}
	if (n->stops) {
		struct stop st;
		emit_lit(&o->e, "  <stops>\n");
		for (size_t i = 0; stoplog_get(n->stops, i, &st) == 0; i++) {
			emit_lit(&o->e, "    <stop");
			emit_attr_sec(&o->e, "start", st.start);
			emit_attr_sec(&o->e, "dur", st.dur);
			emit_lit(&o->e, "/>\n");
		}
		emit_lit(&o->e, "  </stops>\n");
	}
}

/* The trace's start, to its processes */
static void write_head(struct out *o, struct cap_node *n, int complete)
{
	char buf[64];

	emit_str(&o->e, "<trace version=\"1\" generator=\"island-capture " ISLAND_VERSION
		  "\"");
	emit_attr(&o->e, "complete", complete ? "true" : "false");
	if (n->reason)
		emit_attr(&o->e, "reason", n->reason);
	emit_lit(&o->e, ">\n<node");
	emit_attr_esc(&o->e, "name", n->name);
	emit_attr_esc(&o->e, "host", n->host);
	snprintf(buf, sizeof(buf), "%lld.%09lld", (long long)(n->clk.real0 / 1000000000),
		 (long long)(n->clk.real0 % 1000000000));
	emit_attr(&o->e, "epoch", buf);
	if (n->has_clock_offset) {
		int64_t co = n->clock_offset, a = co < 0 ? -co : co;

		snprintf(buf, sizeof(buf), "%s%lld.%09lld", co < 0 ? "-" : "",
			 (long long)(a / 1000000000), (long long)(a % 1000000000));
		emit_attr(&o->e, "clock_offset", buf);
	}
	emit_attr_sec(&o->e, "start", 0);
	emit_attr_sec(&o->e, "end", n->end);
	emit_attr(&o->e, "clock", n->clk.kind == CLOCK_KIND_TSC ? "tsc" : "monotonic");
	if (n->syscalls)
		emit_attr(&o->e, "syscalls", n->syscalls_seen ? "kernel" : "unavailable");
	if (n->server)
		emit_attr(&o->e, "role", "server");
	if (n->has_stopped)
		emit_attr_sec(&o->e, "stopped", n->stopped);
	if (n->mpi_rank >= 0)
		emit_attr_int(&o->e, "mpi_rank", n->mpi_rank);
	if (n->unseen)
		emit_attr(&o->e, "unseen", n->unseen);
	if (n->pcap) {
		const char *base = strrchr(n->pcap, '/');
		emit_attr_esc(&o->e, "pcap", base ? base + 1 : n->pcap);
	}
	emit_lit(&o->e, ">\n  <command>");
	for (int i = 0; i < n->argc; i++) {
		char *e = emit_escape(n->argv[i]);
		emit_lit(&o->e, "<arg>");
		emit_str(&o->e, e);
		emit_lit(&o->e, "</arg>");
		free(e);
	}
	emit_lit(&o->e, "</command>\n");
	write_restrictions(o, n);
	if (n->profile) {
		emit_lit(&o->e, "  <profile");
		emit_attr(&o->e, "values", prof_values_name(n->profile));
		emit_attr_int(&o->e, "hz", n->profile_hz);
		if (n->profile_alloc)
			emit_attr_int(&o->e, "alloc_every", n->profile_alloc);
		write_sampler(o, n);
		emit_lit(&o->e, "/>\n");
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
	o.e.w = outfile_writer(f);
	o.e.f = f;
	o.e.enc = outfile_isb(f);
	o.whole = n->whole;
	o.e.cap = 1 << 18;
	o.e.b = xmalloc(o.e.cap);
	xmlTextWriterStartDocument(o.e.w, NULL, "UTF-8", NULL);
	write_head(&o, n, complete);
	for (int i = 0; i < n->nprocs; i++)
		write_proc(&o, n, &n->procs[i]);
	write_summaries(&o, n);
	emit_lit(&o.e, "</node>\n</trace>\n");
	emit_flush(&o.e);
	free(o.e.b);
	xnames_free(&o);
	/* the write's own errno, EIO when only the writer knows */
	if (outfile_close(f, o.e.failed) < 0) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}
