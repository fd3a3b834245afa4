#include "trace/emit.h"

#include <stdio.h>

const char emit_digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

void emit_sync(struct emit *o)
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

void emit_el_begin(struct emit *o)
{
	emit_sync(o);
	o->bel = true;
	o->nba = 0;
	o->nbv = 0;
}

/* the element's next attribute, or NULL past what the coder takes */
static struct isb_attr *el_attr(struct emit *o, const char *name, size_t nlen, int kind)
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

void emit_el_str(struct emit *o, const char *name, size_t nlen, const char *v,
		 size_t len, int kind)
{
	struct isb_attr *a = el_attr(o, name, nlen, kind);

	if (!a)
		return;
	if (o->nbv + len > sizeof(o->bv)) {	/* a long value: its own copy */
		char *c = xmalloc(len + 1);

		memcpy(c, v, len);
		a->s = c;
		a->m = 1;	/* freed by emit_el_end */
	} else {
		memcpy(o->bv + o->nbv, v, len);
		a->s = o->bv + o->nbv;
		a->m = 0;
		o->nbv += len;
	}
	a->len = len;
}

void emit_el_num(struct emit *o, const char *name, size_t nlen, int64_t m, int d)
{
	struct isb_attr *a;

	if (m > 999999999999999999LL || m < -999999999999999999LL) {
		/* past what the coder takes as a number: its text, as
		 * emit_int and emit_sec write it */
		uint64_t u = m < 0 ? -(uint64_t)m : (uint64_t)m;
		char t[48];
		int k = d ? snprintf(t, sizeof(t), "%s%llu.%09llu", m < 0 ? "-" : "",
				     (unsigned long long)(u / 1000000000u),
				     (unsigned long long)(u % 1000000000u)) :
			    snprintf(t, sizeof(t), "%s%llu", m < 0 ? "-" : "",
				     (unsigned long long)u);

		emit_el_str(o, name, nlen, t, (size_t)k, ISB_A_PLAIN);
		return;
	}
	if (!(a = el_attr(o, name, nlen, ISB_A_NUM)))
		return;
	a->m = m;
	a->d = d;
}

void emit_el_kept_(struct emit *o, const char *name, size_t nlen, int k, const char *v,
		   int kind)
{
	if (o->memo[k].s != v) {
		o->memo[k].s = v;
		o->memo[k].l = strlen(v);
	}
	emit_el_str(o, name, nlen, v, o->memo[k].l, kind);
}

void emit_el_end(struct emit *o, const char *name)
{
	o->bel = false;
	if (outfile_element(o->f, name, o->nba, o->ba, true) < 0)
		o->failed = 1;
	for (int k = 0; k < o->nba; k++)
		if (o->ba[k].kind != ISB_A_NUM && o->ba[k].m)
			free((char *)o->ba[k].s);
}

void emit_attr_named(struct emit *o, const char *name, const char *val)
{
	if (o->bel) {
		emit_el_str(o, name, strlen(name), val, strlen(val), ISB_A_XML);
		return;
	}
	emit_lit(o, " ");
	emit_mem(o, name, strlen(name));
	emit_lit(o, "=\"");
	emit_str(o, val);
	emit_lit(o, "\"");
}

/* What an attribute's value has for c: its reference, "?" for a control
 * character (not allowed in XML 1.0), NULL for c itself */
static inline const char *esc_ref(unsigned char c)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\n': return "&#10;";
	case '\r': return "&#13;";
	case '\t': return "&#9;";
	default: return c < 0x20 ? "?" : NULL;
	}
}

char *emit_escape(const char *s)
{
	const char *r;
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		n += (r = esc_ref(*p)) ? strlen(r) : 1;
	char *out = xmalloc(n + 1), *q = out;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((r = esc_ref(*p))) {
			memcpy(q, r, strlen(r));
			q += strlen(r);
		} else {
			*q++ = (char)*p;
		}
	}
	*q = 0;
	return out;
}

void emit_esc(struct emit *o, const char *s)
{
	for (;;) {
		const char *p = s, *r;

		/* the runs between what needs a reference, copied whole */
		while (*p && !esc_ref((unsigned char)*p))
			p++;
		emit_mem(o, s, (size_t)(p - s));
		if (!*p)
			return;
		r = esc_ref((unsigned char)*p);
		emit_mem(o, r, strlen(r));
		s = p + 1;
	}
}
