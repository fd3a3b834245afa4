/* Bulk loading (include/island-trace.h, trace_loader_*): the records of
 * traces as tables of columns, for a binding that would otherwise build
 * an object per attribute (python/island). The reader runs in a thread of
 * its own and hands over a batch of event rows at a time, so that a
 * caller streaming the events keeps one batch in memory; the element
 * callback (ops->element) gives every attribute as written, typed by the
 * validator's rules (a time in seconds, an integer, or text). */
#include "island-trace.h"
#include "util.h"
#include "validate.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#define MAXDEPTH 64
#define STRMAP_MIN 1024
#define NFIXED 12

/* what an element is to the loader */
enum role { R_OTHER, R_ROOT, R_NODE, R_PROCESS, R_THREAD, R_EVENT, R_FILE, R_SOCKET };

struct bulk_table {
	struct trace_table t;	/* what the caller sees */
	size_t capcols, caprows;
	/* the strings of STR cells: open addressing on their text */
	uint32_t *smap;
	size_t smapcap, capstrs;
	/* shapes: their columns, flat, and a map on their sequence */
	size_t capsh, capshcols;
	uint32_t *shmap;	/* open addressing: shape + 1 */
	size_t shmapcap;
	/* the row being built: its columns in order */
	uint32_t *rowcols;
	size_t nrowcols, caprowcols;
	uint8_t *rowhas;	/* per column: set in this row */
	size_t caprowhas;
	struct {
		const char *name;
		uint32_t col;
	} fixed[NFIXED];
};

/* (element, attribute) name pointers of one parser's dictionary -> its
 * column and type, reset with each file (a new dictionary) */
struct acache {
	const char *el, *name;
	uint32_t col;
	char type;
};
#define ACACHE 512

struct trace_loader {
	char **files;
	int nfiles;
	size_t batch;
	unsigned flags;
	struct bulk_table tab[TRACE_T_N];
	struct acache ac[ACACHE];
	size_t nac;
	/* the context, as the elements open */
	int depth;
	enum role stack[MAXDEPTH];
	const char *elptr[8];	/* name pointers of the roles, by role */
	uint32_t node_str, thread_str, exe_str;
	bool has_pid, has_tid, has_thread, has_exe;
	int64_t pid, tid;
	double cursor;
	/* the hand-over */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool started, ready, handed, taken, done, stop, stopping;
	char err[512];
};

static const char *const role_names[] = {
	[R_NODE] = "node", [R_PROCESS] = "process", [R_THREAD] = "thread",
	[R_FILE] = "file", [R_SOCKET] = "socket",
};

static const char *const event_names[] = { "compute", "io", "region", "wait", "signal" };

/* --- tables ------------------------------------------------------------- */

static uint64_t hash_str(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static void smap_put(struct bulk_table *tb, uint32_t id)
{
	const char *s = tb->t.strs[id];
	size_t h = hash_str(s, strlen(s)) & (tb->smapcap - 1);

	while (tb->smap[h])
		h = (h + 1) & (tb->smapcap - 1);
	tb->smap[h] = id + 1;
}

/* the id of string s (n bytes) in the table's strings */
static uint32_t intern_str(struct bulk_table *tb, const char *s, size_t n)
{
	size_t h;

	if (!tb->smapcap) {
		tb->smapcap = STRMAP_MIN;
		tb->smap = xcalloc(tb->smapcap, sizeof(*tb->smap));
	}
	h = hash_str(s, n) & (tb->smapcap - 1);
	for (; tb->smap[h]; h = (h + 1) & (tb->smapcap - 1)) {
		const char *o = tb->t.strs[tb->smap[h] - 1];

		if (!strncmp(o, s, n) && !o[n])
			return tb->smap[h] - 1;
	}
	XGROW(tb->t.strs, tb->capstrs, tb->t.nstrs + 1);
	tb->t.strs[tb->t.nstrs] = xmalloc(n + 1);
	memcpy(tb->t.strs[tb->t.nstrs], s, n);
	tb->t.strs[tb->t.nstrs][n] = 0;
	tb->smap[h] = (uint32_t)++tb->t.nstrs;
	if (tb->t.nstrs * 2 > tb->smapcap) {
		free(tb->smap);
		tb->smapcap *= 2;
		tb->smap = xcalloc(tb->smapcap, sizeof(*tb->smap));
		for (uint32_t i = 0; i < tb->t.nstrs; i++)
			smap_put(tb, i);
	}
	return (uint32_t)tb->t.nstrs - 1;
}

static uint32_t column_named(struct bulk_table *tb, const char *name);

static void col_rows(struct trace_column *c, size_t from, size_t to)
{
	memset(c->kind + from, TRACE_CELL_NONE, to - from);
	memset(c->val + from, 0, (to - from) * sizeof(*c->val));
}

static uint32_t column(struct bulk_table *tb, const char *name)
{
	/* the loader's own columns (kind, node, ...), by their name's
	 * pointer: a string literal */
	for (int i = 0; i < NFIXED && tb->fixed[i].name; i++)
		if (tb->fixed[i].name == name)
			return tb->fixed[i].col;
	uint32_t col = column_named(tb, name);

	for (int i = 0; i < NFIXED; i++)
		if (!tb->fixed[i].name) {
			tb->fixed[i].name = name;
			tb->fixed[i].col = col;
			break;
		}
	return col;
}

static uint32_t column_named(struct bulk_table *tb, const char *name)
{
	struct trace_column *c;

	for (uint32_t i = 0; i < tb->t.ncols; i++)
		if (!strcmp(tb->t.cols[i].name, name))
			return i;
	XGROW(tb->t.cols, tb->capcols, tb->t.ncols + 1);
	c = &tb->t.cols[tb->t.ncols];
	memset(c, 0, sizeof(*c));
	c->name = xstrdup(name);
	if (tb->caprows) {
		c->kind = xmalloc(tb->caprows);
		c->val = xmalloc(tb->caprows * sizeof(*c->val));
		col_rows(c, 0, tb->t.nrows + 1);
	}
	XGROW(tb->rowhas, tb->caprowhas, tb->t.ncols + 1);
	tb->rowhas[tb->t.ncols] = 0;
	return (uint32_t)tb->t.ncols++;
}

/* a new row, every cell empty */
static void row_begin(struct bulk_table *tb)
{
	size_t r = tb->t.nrows;

	if (r + 1 > tb->caprows) {
		size_t cap = tb->caprows ? tb->caprows * 2 : 1024;

		for (size_t i = 0; i < tb->t.ncols; i++) {
			tb->t.cols[i].kind = xrealloc(tb->t.cols[i].kind, cap);
			tb->t.cols[i].val = xrealloc(tb->t.cols[i].val, cap * sizeof(int64_t));
		}
		tb->t.shape = xrealloc(tb->t.shape, cap * sizeof(*tb->t.shape));
		tb->caprows = cap;
	}
	for (size_t i = 0; i < tb->t.ncols; i++)
		col_rows(&tb->t.cols[i], r, r + 1);
	tb->nrowcols = 0;
}

static void cell(struct bulk_table *tb, uint32_t col, enum trace_cell kind, int64_t v)
{
	struct trace_column *c = &tb->t.cols[col];

	if (!tb->rowhas[col]) {
		tb->rowhas[col] = 1;
		XGROW(tb->rowcols, tb->caprowcols, tb->nrowcols + 1);
		tb->rowcols[tb->nrowcols++] = col;
	}
	c->kind[tb->t.nrows] = (uint8_t)kind;
	c->val[tb->t.nrows] = v;
	c->kinds |= 1u << kind;
}

static void cell_real(struct bulk_table *tb, uint32_t col, double d)
{
	int64_t v;

	memcpy(&v, &d, sizeof(v));
	cell(tb, col, TRACE_CELL_REAL, v);
}

static void cell_str(struct bulk_table *tb, uint32_t col, uint32_t id)
{
	cell(tb, col, TRACE_CELL_STR, id);
}

/* the row's columns, in the order first set: its shape, shared by the
 * rows set alike (a binding builds a record per row from it) */
static uint64_t hash_cols(const uint32_t *c, size_t n)
{
	return hash_str((const char *)c, n * sizeof(*c));
}

static void row_end(struct bulk_table *tb)
{
	struct trace_table *t = &tb->t;
	size_t h;
	uint32_t s;

	if (!tb->shmapcap) {
		tb->shmapcap = 256;
		tb->shmap = xcalloc(tb->shmapcap, sizeof(*tb->shmap));
	}
	h = hash_cols(tb->rowcols, tb->nrowcols) & (tb->shmapcap - 1);
	for (; tb->shmap[h]; h = (h + 1) & (tb->shmapcap - 1)) {
		uint32_t o = tb->shmap[h] - 1, from = t->shape_at[o];

		if (t->shape_at[o + 1] - from == tb->nrowcols &&
		    !memcmp(t->shape_cols + from, tb->rowcols, tb->nrowcols * sizeof(uint32_t)))
			break;
	}
	if (tb->shmap[h]) {
		s = tb->shmap[h] - 1;
	} else {
		XGROW(t->shape_at, tb->capsh, t->nshapes + 2);
		if (!t->nshapes)
			t->shape_at[0] = 0;
		XGROW(t->shape_cols, tb->capshcols, t->shape_at[t->nshapes] + tb->nrowcols);
		memcpy(t->shape_cols + t->shape_at[t->nshapes], tb->rowcols,
		       tb->nrowcols * sizeof(uint32_t));
		s = (uint32_t)t->nshapes++;
		t->shape_at[t->nshapes] = t->shape_at[s] + (uint32_t)tb->nrowcols;
		tb->shmap[h] = s + 1;
		if (t->nshapes * 2 > tb->shmapcap) {
			free(tb->shmap);
			tb->shmapcap *= 2;
			tb->shmap = xcalloc(tb->shmapcap, sizeof(*tb->shmap));
			for (uint32_t i = 0; i < t->nshapes; i++) {
				uint32_t from = t->shape_at[i], n = t->shape_at[i + 1] - from;

				h = hash_cols(t->shape_cols + from, n) & (tb->shmapcap - 1);
				while (tb->shmap[h])
					h = (h + 1) & (tb->shmapcap - 1);
				tb->shmap[h] = i + 1;
			}
		}
	}
	t->shape[t->nrows++] = s;
	for (size_t i = 0; i < tb->nrowcols; i++)
		tb->rowhas[tb->rowcols[i]] = 0;
}

/* a batch handed over: its rows go, its columns, strings and shapes stay
 * (the caller keeps what it decoded of them) */
static void table_clear_rows(struct bulk_table *tb)
{
	tb->t.nrows = 0;
	for (size_t i = 0; i < tb->t.ncols; i++)
		tb->t.cols[i].kinds = 0;
}

static void table_free(struct bulk_table *tb)
{
	for (size_t i = 0; i < tb->t.ncols; i++) {
		free((char *)tb->t.cols[i].name);
		free(tb->t.cols[i].kind);
		free(tb->t.cols[i].val);
	}
	for (size_t i = 0; i < tb->t.nstrs; i++)
		free(tb->t.strs[i]);
	free(tb->t.cols);
	free(tb->t.strs);
	free(tb->t.shape);
	free(tb->t.shape_at);
	free(tb->t.shape_cols);
	free(tb->smap);
	free(tb->shmap);
	free(tb->rowcols);
	free(tb->rowhas);
}

/* --- the elements ------------------------------------------------------- */

static enum role role_of(struct trace_loader *l, const char *name)
{
	if (l->depth == 0)
		return R_ROOT;
	for (int r = R_NODE; r <= R_SOCKET; r++)
		if (l->elptr[r] == name)
			return (enum role)r;
	for (int r = R_NODE; r <= R_SOCKET; r++)
		if (role_names[r] && !l->elptr[r] && !strcmp(role_names[r], name)) {
			l->elptr[r] = name;
			return (enum role)r;
		}
	if (l->stack[l->depth - 1] == R_THREAD)
		for (size_t i = 0; i < sizeof(event_names) / sizeof(event_names[0]); i++)
			if (!strcmp(event_names[i], name))
				return R_EVENT;
	return R_OTHER;
}

/* attribute NAME of element EL: its column in tb and its type, cached */
static struct acache *attr_of(struct trace_loader *l, struct bulk_table *tb,
			      const char *el, const char *name)
{
	unsigned h = (unsigned)((((uintptr_t)el * 31 + (uintptr_t)name) * 0x9E3779B97F4A7C15ull) >> 55);
	static _Thread_local struct acache spill;

	for (; l->ac[h].el; h = (h + 1) & (ACACHE - 1))
		if (l->ac[h].el == el && l->ac[h].name == name)
			return &l->ac[h];
	/* past half full (a trace of many unknown names): not kept */
	struct acache *a = l->nac < ACACHE / 2 ? &l->ac[h] : &spill;

	a->el = el;
	a->name = name;
	a->col = column_named(tb, name);
	a->type = (char)validate_type(el, name);
	if (a != &spill)
		l->nac++;
	return a;
}

/* every attribute as written, typed by the validator's rules */
static void row_attrs(struct trace_loader *l, struct bulk_table *tb, const char *el,
		      int nattr, const char *const *names, const char *const *values)
{
	for (int i = 0; i < nattr; i++) {
		struct acache *a = attr_of(l, tb, el, names[i]);
		const char *v = values[i];

		if (a->type == 'T')
			cell_real(tb, a->col, strtod(v, NULL));
		else if (a->type == 'I')
			cell(tb, a->col, TRACE_CELL_INT, strtoll(v, NULL, 10));
		else
			cell_str(tb, a->col, intern_str(tb, v, strlen(v)));
	}
}

static const char *find(int nattr, const char *const *names, const char *const *values,
			const char *name)
{
	for (int i = 0; i < nattr; i++)
		if (!strcmp(names[i], name))
			return values[i];
	return NULL;
}

static void handover(struct trace_loader *l);

static void on_event(struct trace_loader *l, const char *el, int nattr,
		     const char *const *names, const char *const *values)
{
	struct bulk_table *tb = &l->tab[TRACE_T_EVENTS];
	double start = 0, end = 0;
	bool compute = !strcmp(el, "compute"), io = !compute && !strcmp(el, "io");

	row_begin(tb);
	row_attrs(l, tb, el, nattr, names, values);
	cell_str(tb, column(tb, "kind"), intern_str(tb, el, strlen(el)));
	cell_str(tb, column(tb, "node"), l->node_str);
	if (l->has_pid)
		cell(tb, column(tb, "pid"), TRACE_CELL_INT, l->pid);
	if (l->has_tid)
		cell(tb, column(tb, "tid"), TRACE_CELL_INT, l->tid);
	if (l->flags & TRACE_LOAD_CONTEXT) {
		if (l->has_thread)
			cell_str(tb, column(tb, "thread"), l->thread_str);
		if (l->has_exe)
			cell_str(tb, column(tb, "exe"), l->exe_str);
	}
	/* a compute's span follows the thread's cursor; an io moves it. The
	 * sums are the doubles' as a reader of the seconds would make them. */
	if (compute) {
		const char *d = find(nattr, names, values, "dur");

		start = l->cursor;
		end = start + (d ? strtod(d, NULL) : 0.0);
		cell_real(tb, column(tb, "start"), start);
		cell_real(tb, column(tb, "end"), end);
		l->cursor = end;
	} else if (io) {
		start = strtod(find(nattr, names, values, "start"), NULL);	/* validated */
		end = strtod(find(nattr, names, values, "end"), NULL);
		cell_real(tb, column(tb, "dur"), end - start);
		l->cursor = end;
	}
	row_end(tb);
	if (l->batch && tb->t.nrows >= l->batch)
		handover(l);
}

static void on_meta(struct trace_loader *l, enum role r, const char *el, int nattr,
		    const char *const *names, const char *const *values)
{
	static const int which[] = {
		[R_NODE] = TRACE_T_NODES, [R_PROCESS] = TRACE_T_PROCESSES,
		[R_THREAD] = TRACE_T_THREADS, [R_FILE] = TRACE_T_FILES,
		[R_SOCKET] = TRACE_T_SOCKETS,
	};
	struct bulk_table *tb = &l->tab[which[r]];
	const char *v;

	if (r == R_NODE) {
		v = find(nattr, names, values, "name");
		l->node_str = intern_str(&l->tab[TRACE_T_EVENTS], v, strlen(v));
	} else if (r == R_PROCESS) {
		v = find(nattr, names, values, "pid");
		l->has_pid = v != NULL;
		l->pid = v ? strtoll(v, NULL, 10) : 0;
		/* an event's image: the one it started in, until an exec */
		v = find(nattr, names, values, "first_exe");
		if (!v)
			v = find(nattr, names, values, "exe");
		l->has_exe = v != NULL;
		if (v)
			l->exe_str = intern_str(&l->tab[TRACE_T_EVENTS], v, strlen(v));
	} else if (r == R_THREAD) {
		v = find(nattr, names, values, "tid");
		l->has_tid = v != NULL;
		l->tid = v ? strtoll(v, NULL, 10) : 0;
		v = find(nattr, names, values, "name");
		l->has_thread = v != NULL;
		if (v)
			l->thread_str = intern_str(&l->tab[TRACE_T_EVENTS], v, strlen(v));
		v = find(nattr, names, values, "start");
		l->cursor = v ? strtod(v, NULL) : 0.0;	/* validated: there */
	}
	row_begin(tb);
	row_attrs(l, tb, el, nattr, names, values);
	if (r == R_NODE) {
		if (!find(nattr, names, values, "clock_offset"))
			cell_real(tb, column(tb, "clock_offset"), 0.0);
	} else {
		const char *node = l->tab[TRACE_T_EVENTS].t.strs[l->node_str];

		cell_str(tb, column(tb, "node"), intern_str(tb, node, strlen(node)));
		if (r == R_THREAD && l->has_pid)
			cell(tb, column(tb, "pid"), TRACE_CELL_INT, l->pid);
	}
	row_end(tb);
}

static void on_element(void *ctx, const char *name, int nattr,
		       const char *const *names, const char *const *values)
{
	struct trace_loader *l = ctx;
	enum role r = role_of(l, name);

	if (r == R_ROOT) {
		/* a new file: a new parser, a new dictionary */
		memset(l->ac, 0, sizeof(l->ac));
		l->nac = 0;
		memset(l->elptr, 0, sizeof(l->elptr));
	}
	if (l->depth < MAXDEPTH)
		l->stack[l->depth] = r;
	l->depth++;
	if (r == R_EVENT) {
		if (!(l->flags & TRACE_LOAD_NOEVENTS))
			on_event(l, name, nattr, names, values);
	} else if (r != R_ROOT && r != R_OTHER) {
		on_meta(l, r, name, nattr, names, values);
	}
}

static void on_element_text(void *ctx, const char *text, size_t len)
{
}

static void on_element_end(void *ctx)
{
	((struct trace_loader *)ctx)->depth--;
}

/* --- the reader's thread ------------------------------------------------ */

/* A batch is full (or the last): wait for the caller to take it and come
 * back; a caller gone away stops the reading (through die(), as bad input
 * would, its message not kept). */
static void handover(struct trace_loader *l)
{
	pthread_mutex_lock(&l->mu);
	l->ready = true;
	pthread_cond_broadcast(&l->cv);
	while (!l->taken && !l->stop)
		pthread_cond_wait(&l->cv, &l->mu);
	l->taken = false;
	if (l->stop) {
		l->stopping = true;
		pthread_mutex_unlock(&l->mu);
		die(0, "stopped");
	}
	table_clear_rows(&l->tab[TRACE_T_EVENTS]);
	pthread_mutex_unlock(&l->mu);
}

static void *reader_main(void *arg)
{
	struct trace_loader *l = arg;
	struct trace_ops ops = {
		.element = on_element, .element_text = on_element_text,
		.element_end = on_element_end,
	};
	struct trace_run run = { 0 };
	char msg[sizeof(l->err)];
	int rc;

	msg[0] = 0;
	die_msg = msg;
	die_msg_len = sizeof(msg);
	rc = trace_read_try(&run, l->files, l->nfiles, &ops, l);
	die_msg = NULL;
	trace_run_free(&run);
	if (rc < 0 && !l->stopping) {
		pthread_mutex_lock(&l->mu);
		snprintf(l->err, sizeof(l->err), "%s", msg[0] ? msg : "cannot read the trace");
		pthread_mutex_unlock(&l->mu);
	}
	if (rc == 0 && l->tab[TRACE_T_EVENTS].t.nrows)
		handover(l);
	pthread_mutex_lock(&l->mu);
	l->done = true;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

static void init_once(void)
{
	struct trace_run run = { 0 };

	trace_read(&run, NULL, 0, NULL, NULL);	/* libxml2 and the .zst input */
}

struct trace_loader *trace_loader_open(const char *const *files, int nfiles,
				       size_t batch, unsigned flags)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct trace_loader *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	pthread_once(&once, init_once);
	l->files = calloc(nfiles > 0 ? (size_t)nfiles : 1, sizeof(char *));
	if (!l->files) {
		free(l);
		return NULL;
	}
	for (int i = 0; i < nfiles; i++)
		l->files[i] = (char *)files[i];
	l->nfiles = nfiles;
	l->batch = batch;
	l->flags = flags;
	pthread_mutex_init(&l->mu, NULL);
	pthread_cond_init(&l->cv, NULL);
	for (int i = 0; i < TRACE_T_N; i++)
		intern_str(&l->tab[i], "", 0);	/* 0: what an empty cell holds */
	return l;
}

const struct trace_table *trace_loader_next(struct trace_loader *l)
{
	const struct trace_table *t = NULL;

	pthread_mutex_lock(&l->mu);
	if (!l->started) {
		l->started = true;
		if (pthread_create(&l->thread, NULL, reader_main, l)) {
			snprintf(l->err, sizeof(l->err), "cannot start the reader's thread");
			l->done = true;
			l->started = false;
		}
	}
	if (l->handed) {
		l->handed = false;
		l->taken = true;
		pthread_cond_broadcast(&l->cv);
	}
	while (!l->ready && !l->done)
		pthread_cond_wait(&l->cv, &l->mu);
	if (l->ready) {
		l->ready = false;
		l->handed = true;
		t = &l->tab[TRACE_T_EVENTS].t;
	}
	pthread_mutex_unlock(&l->mu);
	return t;
}

const struct trace_table *trace_loader_table(struct trace_loader *l, int which)
{
	bool done;

	pthread_mutex_lock(&l->mu);
	done = l->done;
	pthread_mutex_unlock(&l->mu);
	if (!done || which < 0 || which >= TRACE_T_N)
		return NULL;
	return &l->tab[which].t;
}

const char *trace_loader_error(struct trace_loader *l)
{
	const char *e;

	pthread_mutex_lock(&l->mu);
	e = l->done && l->err[0] ? l->err : NULL;
	pthread_mutex_unlock(&l->mu);
	return e;
}

void trace_loader_close(struct trace_loader *l)
{
	if (!l)
		return;
	pthread_mutex_lock(&l->mu);
	l->stop = true;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
	if (l->started)
		pthread_join(l->thread, NULL);
	for (int i = 0; i < TRACE_T_N; i++)
		table_free(&l->tab[i]);
	pthread_mutex_destroy(&l->mu);
	pthread_cond_destroy(&l->cv);
	free(l->files);
	free(l);
}
