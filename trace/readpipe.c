/* The reader's parser in a second thread (trace/reader.h), for XML and
 * for the binary encoding, its records replayed into the elements. */
#include "reader.h"
#include "util.h"
#include "zstdio.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace/isb.h"
#include "trace/isbfmt.h"

/* Parsing beside the reading: libxml2's parser takes two thirds of a
 * read (0.8 s of 1.2 s on the benchmark's trace), so a second thread
 * runs it and only copies each callback into a record; the calling thread
 * replays the records through the same el_open, rd_el_attrs, el_close and
 * el_text, so that rd_bad() and die_at() (and trace_read_try's longjmp) stay
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
	uint64_t nrec;
	struct zfail zf;
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
	if (p->tn && rd_text_given(!start, p->kids[p->depth - 1], p->text, p->tn)) {
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
	else if (!p_stopped(p) && rd_is_text(ch, len))
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
	rd_keep_error(e, &p->errline, &p->errcode, p->errmsg, sizeof(p->errmsg));
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

/* zstdio's watch on the parser's thread: the reader's rd_bad() tells the
 * failure for an element made after it, as one thread's would */
static void p_zfail(void *arg, const char *msg)
{
	struct pipe *p = arg;

	if (__atomic_load_n(&p->zf.at, __ATOMIC_RELAXED))
		return;
	snprintf(p->zf.msg, sizeof(p->zf.msg), "%s", msg);
	__atomic_store_n(&p->zf.at, p->nrec + 1, __ATOMIC_RELEASE);
}

static void *p_main(void *arg)
{
	struct pipe *p = arg;

	xmlSetGenericErrorFunc(NULL, rd_quiet);	/* libxml2's are per thread */
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
	el_fn fn = rd_el_open(rd, r->name);

	if (!fn && (!rd_raw(rd) || rd->err))
		return;
	if (nattr > TRACE_MAXATTR)
		rd_bad(rd, "<%s> has too many attributes", (const char *)r->name);

	const xmlChar *const *names = (const xmlChar *const *)(r + 1);
	const uint32_t *lens = (const uint32_t *)(names + nattr);
	const char *v = (const char *)r +
		REC_ALIGN(sizeof(struct pipe_rec) + nattr * (sizeof(xmlChar *) + sizeof(uint32_t)));

	for (int i = 0; i < nattr; i++) {
		rd->aname[i] = (const char *)names[i];
		rd->aval[i] = v;
		v += lens[i] + 1;
	}
	rd_el_start(rd, r->name, nattr, fn);
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
			rd_el_close(rd);
			break;
		case R_TEXT:
			if (rd_raw(rd) || rd_args_wanted(rd)) {	/* its length, then its bytes */
				uint32_t n;

				memcpy(&n, r + 1, sizeof(n));
				rd_on_text(rd, (const char *)(r + 1) + sizeof(n), n);
			} else {
				rd_el_text(rd);	/* strict: text was there */
			}
			break;
		case R_DOCTYPE:
			die_at(2, rd->file, rd->rline, "a DOCTYPE is not allowed in a trace "
			       "(entities could read other files)");
		default:
			replay_start(rd, r);
			if (r->size & REC_CLOSED)
				rd_el_close(rd);
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
	rd->zf = &p->zf;
	rd->rrec = 0;
	while ((b = pipe_take(p))) {
		p->reading = b;
		pipe_replay(rd, b);
		p->reading = NULL;
		pipe_give(p, b);
	}
	pipe_end();
	rd->pipe = NULL;
	rd->zf = NULL;
}

bool rd_parse_piped(struct reader *rd, const char **zerr)
{
	struct pipe *p = pipe_new();
	xmlSAXHandlerPtr sax = rd->ctxt->sax;
	xmlSAXHandler keep = *sax;

	p->ctxt = rd->ctxt;
	p->raw = rd_raw(rd) || rd_args_wanted(rd);
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

bool rd_piped(const char *file)
{
	return piped_from(file, PIPE_MIN);
}

/* The same for the binary encoding, whose files are smaller for as many
 * elements. */
bool rd_piped_bin(const char *file)
{
	return piped_from(file, PIPE_MIN / 8);
}


/* up to N decompressed bytes of IN; 0 at its end, -1 on an error */
long rd_in_read(xmlParserInputBufferPtr in, char *buf, size_t n)
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

/* The binary encoding decoded in a second thread (as rd_parse_piped does
 * for XML): the decoder's callbacks only copy each element into the
 * pipe's records, which the calling thread replays. */
static long q_read(void *ctx, char *buf, size_t n)
{
	return rd_in_read(((struct pipe *)ctx)->bin, buf, n);
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
	else if (p->strict && !p_stopped(p) && rd_is_text(BAD_CAST t, (int)n))
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

/* what the binary reader frees when it dies (its input, its names) */
static _Thread_local void (*bin_after)(void);

static void bpipe_abort(void)
{
	pipe_abort();
	bin_after();
}

/* False when no thread could be made (then the caller decodes alone). */
bool rd_binary_piped(struct reader *rd, void (*after)(void))
{
	struct pipe *p = pipe_new();

	p->bin = rd->bin;
	p->dict = rd->dict;
	p->strict = rd->ops->strict && !rd->prescan;
	p->raw = rd_raw(rd) || rd_args_wanted(rd);
	if (!pipe_spawn(p, q_main))
		return false;
	bin_after = after;
	pipe_drain(rd, p, bpipe_abort);
	die_cleanup = after;
	if (p->oom)
		die(70, "out of memory reading %s", rd->file);
	if (p->zerr[0])
		die_at(2, rd->file, p->bline, "%s", p->zerr);
	if (p->err)
		die_at(2, rd->file, p->errline, "%s", p->errmsg);
	pipe_free(p);
	return true;
}
