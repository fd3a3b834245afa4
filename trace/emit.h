/*
 * The trace's bytes as a writer makes them (docs/trace-format.md): a
 * buffer in front of an outfile, numbers and seconds formatted straight
 * into it, attributes as the format spells them, and in the binary
 * encoding a call's element gathered whole for the coder. The capture's
 * writer emits its elements through it; the per-call lines, which are
 * almost all of a trace, are formatted here at several million records a
 * second, so the small steps are inline.
 */
#ifndef ISLAND_EMIT_H
#define ISLAND_EMIT_H

#include <libxml/xmlwriter.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/isbfmt.h"
#include "trace/outfile.h"
#include "util.h"

struct emit {
	xmlTextWriterPtr w;	/* the declaration and the document's end */
	struct outfile *f;	/* the rest, past libxml2's 4 KB buffer */
	char *b;
	size_t n, cap;
	int failed, direct;
	int measure;		/* no file: bytes counted */
	size_t counted;
	unsigned long flushes;	/* the buffer went to the file so often */
	/* strings that stay put, last given in each slot: the next is most
	 * often the same (a loop's), whose length is known then */
	struct { const char *s; size_t l; } memo[3];
	/* .isb: calls go to the coder whole, their attributes gathered
	 * here (values copied into bv) rather than written as XML */
	int enc;
	bool bel;
	int nba;
	struct isb_attr ba[ISB_MAXATTR];
	char bv[4096];
	size_t nbv;
};

/* The buffer to the file, what libxml2's writer holds first; also when
 * the buffer is empty (before a call given to the coder whole) */
void emit_sync(struct emit *o);

static inline void emit_flush(struct emit *o)
{
	if (o->n)
		emit_sync(o);
}

static inline void emit_need(struct emit *o, size_t k)
{
	if (o->n + k > o->cap)
		emit_flush(o);
	if (k > o->cap) {
		o->cap = k * 2;
		o->b = xrealloc(o->b, o->cap);
	}
}

static inline void emit_mem(struct emit *o, const char *s, size_t l)
{
	emit_need(o, l);
	memcpy(o->b + o->n, s, l);
	o->n += l;
}

static inline void emit_str(struct emit *o, const char *s)
{
	emit_mem(o, s, strlen(s));
}

/* emit_str of a string that stays put (a name table's, an object's
 * path), its length kept in memo slot k */
static inline void emit_kept(struct emit *o, int k, const char *s)
{
	if (o->memo[k].s != s) {
		o->memo[k].s = s;
		o->memo[k].l = strlen(s);
	}
	emit_mem(o, s, o->memo[k].l);
}

/* a literal: its length known when compiled (the writer spends most of
 * its time on names and quotes, a million records a second) */
#define emit_lit(o, s) emit_mem(o, "" s, sizeof(s) - 1)

/* two digits at a time: the writer's time goes on numbers (two times
 * with nine decimals per call) */
extern const char emit_digits2[201];

static inline void emit_put2(char *p, unsigned v)
{
	memcpy(p, emit_digits2 + 2 * v, 2);
}

/* exactly 4 digits of v < 10000 */
static inline void emit_put4(char *p, unsigned v)
{
	emit_put2(p, v / 100);
	emit_put2(p + 2, v % 100);
}

/* digits of u at p; returns the end */
static inline char *emit_put_u64(char *p, uint64_t u)
{
	char tmp[24];
	int k = 24;

	if (u < 10) {
		*p = (char)('0' + u);
		return p + 1;
	}
	while (u >= 100) {
		k -= 2;
		emit_put2(tmp + k, (unsigned)(u % 100));
		u /= 100;
	}
	if (u >= 10) {
		k -= 2;
		emit_put2(tmp + k, (unsigned)u);
	} else {
		tmp[--k] = (char)('0' + u);
	}
	memcpy(p, tmp + k, (size_t)(24 - k));
	return p + 24 - k;
}

static inline void emit_int(struct emit *o, int64_t v)
{
	uint64_t u = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;

	emit_need(o, 24);
	if (v < 0)
		o->b[o->n++] = '-';
	o->n = (size_t)(emit_put_u64(o->b + o->n, u) - o->b);
}

/* seconds with 9 decimals, as fmt_sec writes them, straight into the
 * buffer */
static inline void emit_sec(struct emit *o, int64_t ns)
{
	uint64_t u = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
	unsigned f = (unsigned)(u % 1000000000u), lo = f % 10000;

	emit_need(o, 32);
	char *p = o->b + o->n;
	if (ns < 0)
		*p++ = '-';
	p = emit_put_u64(p, u / 1000000000u);
	*p++ = '.';
	f /= 10000;
	p[0] = (char)('0' + f / 10000);
	emit_put4(p + 1, f % 10000);
	emit_put4(p + 5, lo);
	o->n = (size_t)(p + 9 - o->b);
}

/* .isb: an element given to the coder whole, begun, its attributes
 * (a name that lives as long as the trace is written; kind ISB_A_*),
 * ended as NAME */
void emit_el_begin(struct emit *o);
void emit_el_str(struct emit *o, const char *name, size_t nlen, const char *v,
		 size_t len, int kind);
void emit_el_num(struct emit *o, const char *name, size_t nlen, int64_t m, int d);
/* emit_el_str of a string that stays put, its length kept in memo slot k */
void emit_el_kept_(struct emit *o, const char *name, size_t nlen, int k, const char *v,
		   int kind);
#define emit_el_kept(o, name, k, v, kind) emit_el_kept_(o, name, sizeof("" name) - 1, k, v, kind)
void emit_el_end(struct emit *o, const char *name);

/* s made safe for an attribute (malloc'd): & < > " and the line breaks
 * as references, other control characters as '?' (XML 1.0 has none) */
char *emit_escape(const char *s);
/* ... straight into the buffer, no copy made */
void emit_esc(struct emit *o, const char *s);

/* name="value": NAME is a literal, so that ` name="` is one copy; VAL as
 * XML has it (escaped); RAW as it is (emit_attr_esc) */
#define emit_attr(o, name, val) \
	do { if ((o)->bel) { const char *v_ = (val); emit_el_str(o, name, sizeof("" name) - 1, v_, strlen(v_), ISB_A_XML); } \
	     else { emit_lit(o, " " name "=\""); emit_str(o, val); emit_lit(o, "\""); } } while (0)
/* ... NAME not a literal (one that lives as long as the trace is written) */
void emit_attr_named(struct emit *o, const char *name, const char *val);
#define emit_attr_int(o, name, v) \
	do { if ((o)->bel) emit_el_num(o, name, sizeof("" name) - 1, v, 0); \
	     else { emit_lit(o, " " name "=\""); emit_int(o, v); emit_lit(o, "\""); } } while (0)
#define emit_attr_sec(o, name, ns) \
	do { if ((o)->bel) emit_el_num(o, name, sizeof("" name) - 1, ns, 9); \
	     else { emit_lit(o, " " name "=\""); emit_sec(o, ns); emit_lit(o, "\""); } } while (0)
#define emit_attr_esc(o, name, raw) \
	do { if ((o)->bel) { const char *v_ = (raw); emit_el_str(o, name, sizeof("" name) - 1, v_, strlen(v_), ISB_A_RAW); } \
	     else { emit_lit(o, " " name "=\""); emit_esc(o, raw); emit_lit(o, "\""); } } while (0)

#endif
