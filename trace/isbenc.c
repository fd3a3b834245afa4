/* The binary encoding's writer (isb.h, docs/trace-binary.md): a small
 * tokenizer of the XML our tools write (a declaration, comments,
 * elements, attributes in double or single quotes, text, the five named
 * entities and character references), feeding a coder that sends each
 * value as "same as last time", a number's delta, or its bytes. */
#include "trace/isbfmt.h"
#include "trace/isbslot.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define OBUF (64u << 10)
#define NAMETAB 8192	/* twice ISB_MAXNAMES: a power of two */

struct tmpl {
	int nattr;
	uint32_t at[ISB_MAXATTR];
	struct isb_slot *slot[ISB_MAXATTR];
	/* the names' pointers the last isbenc_element() gave (literals, that
	 * stay: equal pointers, equal names), else NULL */
	const char *nptr[ISB_MAXATTR];
	/* ' NAME="' of each attribute, as our writers put them */
	char *pre;
	uint16_t poff[ISB_MAXATTR], plen[ISB_MAXATTR];
};

struct isbenc {
	int (*out)(void *ctx, const void *p, size_t n);
	void *ctx;
	int err;
	bool done_root;
	/* names */
	char *name[ISB_MAXNAMES];
	size_t nlen[ISB_MAXNAMES];
	uint32_t nnames;
	int lastel;		/* the last start tag's element */
	const char *elptr[2];	/* isbenc_element's last two names */
	int elid[2];
	int32_t ntab[NAMETAB];		/* name number + 1, 0: free */
	struct tmpl *tmpl[ISB_MAXNAMES];	/* of each element name */
	/* slots by (element, attribute) */
	struct isb_slots slots;
	/* the open elements: whether each has had a child element */
	int depth;
	bool kids[ISB_MAXDEPTH];
	/* text since the last tag, raw */
	char *text;
	size_t tn, tcap;
	/* input not yet taken: a token cut by the piece's end */
	char *pend;
	size_t pn, pcap;
	/* a value unescaped */
	char *val;
	size_t vcap;
	char *ob;
	size_t on;
};

/* character classes: one lookup per byte on the hot path */
enum { C_SPACE = 1, C_NAME = 2, C_ESC = 4, C_VEND = 8 };
static unsigned char cls[256];

static void cls_init(void)
{
	for (int c = 0; c < 256; c++) {
		bool sp = c == ' ' || c == '\n' || c == '\t' || c == '\r';

		cls[c] = (unsigned char)((sp ? C_SPACE : 0) |
			 (!sp && !strchr("=></\"'&", c) ? C_NAME : 0) |
			 ((sp && c != ' ') || c == '&' ? C_ESC : 0));
	}
	for (int c = 0; c < 0x20; c++)	/* no control characters in names */
		cls[c] &= (unsigned char)~C_NAME;
	for (int c = 0; c < 256; c++)
		if (cls[c] & C_ESC || c == '"')
			cls[c] |= C_VEND;
}

/* Equal bytes: inline, for the short names and values of a tag (a call
 * to memcmp each was two fifths of the coding) */
static inline bool eq(const char *a, const char *b, size_t n)
{
	uint64_t x, y;

	for (; n >= 8; n -= 8, a += 8, b += 8) {
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		if (x != y)
			return false;
	}
	while (n--)
		if (*a++ != *b++)
			return false;
	return true;
}

int isb_path(const char *path)
{
	size_t l = strlen(path);

	if (l > 3 && !strcmp(path + l - 3, ".gz"))
		l -= 3;
	else if (l > 4 && !strcmp(path + l - 4, ".zst"))
		l -= 4;
	return l > 4 && !memcmp(path + l - 4, ".isb", 4);
}

struct isbenc *isbenc_new(int (*out)(void *ctx, const void *p, size_t n), void *ctx)
{
	struct isbenc *e = xcalloc(1, sizeof(*e));

	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, cls_init);
	e->lastel = -1;
	e->out = out;
	e->ctx = ctx;
	e->ob = xmalloc(OBUF);
	memcpy(e->ob, ISB_MAGIC, ISB_MAGIC_LEN);
	e->ob[ISB_MAGIC_LEN] = ISB_VERSION;
	e->on = ISB_MAGIC_LEN + 1;
	return e;
}

struct isbenc *isbenc_part(int (*out)(void *ctx, const void *p, size_t n), void *ctx,
			   int depth)
{
	struct isbenc *e = isbenc_new(out, ctx);

	e->on = 0;		/* no magic */
	e->depth = depth > 0 && depth < ISB_MAXDEPTH ? depth : 0;
	for (int i = 0; i < e->depth; i++)
		e->kids[i] = true;
	return e;
}

static void forget(struct isbenc *e)
{
	for (uint32_t i = 0; i < e->nnames; i++) {
		free(e->name[i]);
		if (e->tmpl[i])
			free(e->tmpl[i]->pre);
		free(e->tmpl[i]);
		e->tmpl[i] = NULL;
	}
	e->nnames = 0;
	isb_slots_free(&e->slots);
	memset(&e->slots, 0, sizeof(e->slots));
	memset(e->ntab, 0, sizeof(e->ntab));
	e->lastel = -1;
	e->elptr[0] = e->elptr[1] = NULL;
}

void isbenc_free(struct isbenc *e)
{
	if (!e)
		return;
	forget(e);
	free(e->text);
	free(e->pend);
	free(e->val);
	free(e->ob);
	free(e);
}

/* --- output ------------------------------------------------------------- */

static void flush(struct isbenc *e)
{
	int r;

	if (!e->on || e->err)
		return;
	r = e->out(e->ctx, e->ob, e->on);
	if (r)
		e->err = r;
	e->on = 0;
}

/* room for K more bytes (K <= OBUF) */
static inline void room(struct isbenc *e, size_t k)
{
	if (e->on + k > OBUF)
		flush(e);
}

static inline void put_byte(struct isbenc *e, unsigned c)
{
	room(e, 1);
	e->ob[e->on++] = (char)c;
}

static inline void put_uv(struct isbenc *e, uint64_t v)
{
	room(e, 10);
	while (v >= 0x80) {
		e->ob[e->on++] = (char)(v | 0x80);
		v >>= 7;
	}
	e->ob[e->on++] = (char)v;
}

static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

/* a varint's bytes: 7 bits a byte */
static inline int uv_len(uint64_t v)
{
	return (63 - __builtin_clzll(v | 1)) / 7 + 1;
}

static void put_bytes(struct isbenc *e, const char *p, size_t n)
{
	put_uv(e, n);
	while (n) {
		size_t k;

		room(e, 1);
		k = OBUF - e->on < n ? OBUF - e->on : n;
		memcpy(e->ob + e->on, p, k);
		e->on += k;
		p += k;
		n -= k;
	}
}

/* --- names, slots ------------------------------------------------------- */

static uint32_t hash(const char *p, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 16777619u;
	return h;
}

/* NAME's number, defined in the stream when new; -1 past the limits */
static int name_id(struct isbenc *e, const char *p, size_t n)
{
	uint32_t h = hash(p, n) & (NAMETAB - 1);

	for (;; h = (h + 1) & (NAMETAB - 1)) {
		int32_t k = e->ntab[h];

		if (!k)
			break;
		if (e->nlen[k - 1] == n && eq(e->name[k - 1], p, n))
			return k - 1;
	}
	if (e->nnames == ISB_MAXNAMES || n == 0 || n > ISB_MAXNAME)
		return -1;
	e->name[e->nnames] = xmalloc(n + 1);
	memcpy(e->name[e->nnames], p, n);
	e->name[e->nnames][n] = 0;
	e->nlen[e->nnames] = n;
	e->ntab[h] = (int32_t)++e->nnames;
	put_byte(e, ISB_NAME);
	put_bytes(e, p, n);
	return (int)e->nnames - 1;
}

/* --- links -------------------------------------------------------------- */

/* A slot whose value the others' make: an io's start is the last io's
 * end plus the compute phase between (docs/trace-format.md), so coded
 * as the difference to that sum it is a byte, where the time since the
 * last start (the last call's duration and the phase) was two or three
 * of the few that compression cannot take. */
static const struct { const char *el, *at, *el1, *at1, *el2, *at2; } links[] = {
	{ "io", "start", "io", "end", "compute", "dur" },
};

/* Element EL's slot at attribute AT, made now: declare its LINK, if the
 * table has one (its names defined first) */
static void link_slot(struct isbenc *e, int el, uint32_t at, struct isb_slot *s)
{
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		if (s->link[0] || strcmp(e->name[el], links[i].el) ||
		    strcmp(e->name[at], links[i].at))
			continue;
		int e1 = name_id(e, links[i].el1, strlen(links[i].el1));
		int a1 = name_id(e, links[i].at1, strlen(links[i].at1));
		int e2 = name_id(e, links[i].el2, strlen(links[i].el2));
		int a2 = name_id(e, links[i].at2, strlen(links[i].at2));
		if (e1 < 0 || a1 < 0 || e2 < 0 || a2 < 0)
			return;
		struct isb_slot *s1 = isb_slot_of(&e->slots, (uint32_t)e1, (uint32_t)a1);
		struct isb_slot *s2 = isb_slot_of(&e->slots, (uint32_t)e2, (uint32_t)a2);
		if (!s1 || !s2)
			return;
		s->link[0] = s1;
		s->link[1] = s2;
		room(e, 6 * 10 + 1);
		put_byte(e, ISB_LINK);
		put_uv(e, (uint64_t)el);
		put_uv(e, at);
		put_uv(e, (uint64_t)e1);
		put_uv(e, (uint64_t)a1);
		put_uv(e, (uint64_t)e2);
		put_uv(e, (uint64_t)a2);
	}
}

/* --- values ------------------------------------------------------------- */

/* The canonical number isb_fmtnum() writes back, and nothing else. */
static bool parse_num(const char *s, size_t n, int64_t *m, int *d)
{
	size_t i = 0;
	int digits = 0, frac = 0;
	bool neg = false;
	int64_t v = 0;

	if (i < n && s[i] == '-') {
		neg = true;
		i++;
	}
	if (i >= n || s[i] < '0' || s[i] > '9')
		return false;
	if (s[i] == '0' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')
		return false;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (++digits > ISB_MAXDIGITS)
			return false;
		v = v * 10 + (s[i] - '0');
	}
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
			if (++digits > ISB_MAXDIGITS)
				return false;
			v = v * 10 + (s[i] - '0');
			frac++;
		}
		if (!frac)
			return false;
	}
	if (i != n || (neg && v == 0))
		return false;
	*m = neg ? -v : v;
	*d = frac;
	return true;
}

/* A number: "same" when the slot holds it (the canonical form is one
 * text per number), else the shortest of itself and its differences. */
static void put_num(struct isbenc *e, struct isb_slot *s, const struct isb_slot *prev,
		    int64_t m, int d)
{
	int how = ISB_V_NUM;
	uint64_t best = zigzag(m);
	int cost = uv_len(best) + 1;

	if (s->used && s->isnum && s->m == m && s->d == d) {
		put_byte(e, ISB_V_SAME);
		return;
	}
	if (s->used && s->isnum && s->d == d && uv_len(zigzag(m - s->m)) < cost) {
		how = ISB_V_DSLOT;
		best = zigzag(m - s->m);
		cost = uv_len(best);
	}
	if (prev && prev->isnum && prev->d == d && uv_len(zigzag(m - prev->m)) < cost) {
		how = ISB_V_DPREV;
		best = zigzag(m - prev->m);
		cost = uv_len(best);
	}
	int64_t bm;
	int bd;
	if (isb_slot_base(s, &bm, &bd) && bd == d && uv_len(zigzag(m - bm)) < cost) {
		how = ISB_V_DLINK;
		best = zigzag(m - bm);
	}
	put_byte(e, (unsigned)how);
	put_uv(e, best);
	if (how == ISB_V_NUM)
		put_byte(e, (unsigned)d);
	s->isnum = true;
	s->m = m;
	s->d = d;
	s->used = true;
}

/* A value as text: a canonical number is coded as one. */
static void put_value(struct isbenc *e, struct isb_slot *s, const struct isb_slot *prev,
		      const char *v, size_t n)
{
	int64_t m;
	int d;

	if (parse_num(v, n, &m, &d)) {
		put_num(e, s, prev, m, d);
		return;
	}
	if (s->used && !s->isnum && s->len == n && eq(s->s, v, n)) {
		put_byte(e, ISB_V_SAME);
		return;
	}
	int i = isb_slot_find(s, v, n);
	if (i >= 0) {
		put_byte(e, ISB_V_RECENT + (unsigned)i);
	} else {
		put_byte(e, ISB_V_STR);
		put_bytes(e, v, n);
	}
	isb_slot_string(s, i, v, n);
}

/* --- the tokenizer ------------------------------------------------------ */

static inline bool is_space(char c)
{
	return cls[(unsigned char)c] & C_SPACE;
}

static inline bool name_char(char c)
{
	return cls[(unsigned char)c] & C_NAME;
}

static void put_utf8(char **q, unsigned long c)
{
	char *p = *q;

	if (c < 0x80) {
		*p++ = (char)c;
	} else if (c < 0x800) {
		*p++ = (char)(0xc0 | c >> 6);
		*p++ = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		*p++ = (char)(0xe0 | c >> 12);
		*p++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*p++ = (char)(0x80 | (c & 0x3f));
	} else {
		*p++ = (char)(0xf0 | c >> 18);
		*p++ = (char)(0x80 | ((c >> 12) & 0x3f));
		*p++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*p++ = (char)(0x80 | (c & 0x3f));
	}
	*q = p;
}

/* P[0..N) with its references decoded, as an XML parser would give it
 * (in an attribute, white space as a space); into e->val, its length
 * in *len; false on a reference it does not know. */
static bool unescape(struct isbenc *e, const char *p, size_t n, bool attr, size_t *len);

/* P[0..N) as a value: itself when it has nothing to decode */
static const char *value_of(struct isbenc *e, const char *p, size_t n, size_t *len)
{
	size_t i = 0;

	while (i < n && !(cls[(unsigned char)p[i]] & C_ESC))
		i++;
	if (i == n) {
		*len = n;
		return p;
	}
	return unescape(e, p, n, true, len) ? e->val : NULL;
}

static bool unescape(struct isbenc *e, const char *p, size_t n, bool attr, size_t *len)
{
	static const struct { const char *s; size_t n; char c; } named[] = {
		{ "amp;", 4, '&' }, { "lt;", 3, '<' }, { "gt;", 3, '>' },
		{ "quot;", 5, '"' }, { "apos;", 5, '\'' },
	};
	char *q;

	if (e->vcap < n + 1) {
		e->vcap = n + 1 > 256 ? n + 1 : 256;
		e->val = xrealloc(e->val, e->vcap);
	}
	q = e->val;
	for (size_t i = 0; i < n; i++) {
		char c = p[i];

		if (c == '\r') {
			if (i + 1 < n && p[i + 1] == '\n')
				i++;
			*q++ = attr ? ' ' : '\n';
			continue;
		}
		if (c != '&') {
			*q++ = attr && is_space(c) ? ' ' : c;
			continue;
		}
		if (i + 1 < n && p[i + 1] == '#') {
			unsigned long v = 0;
			size_t j = i + 2;
			int base = 10, nd = 0;

			if (j < n && p[j] == 'x') {
				base = 16;
				j++;
			}
			for (; j < n && p[j] != ';'; j++, nd++) {
				int dv = p[j] >= '0' && p[j] <= '9' ? p[j] - '0' :
					 base == 16 && p[j] >= 'a' && p[j] <= 'f' ? p[j] - 'a' + 10 :
					 base == 16 && p[j] >= 'A' && p[j] <= 'F' ? p[j] - 'A' + 10 : -1;
				if (dv < 0 || nd > 7)
					return false;
				v = v * (unsigned)base + (unsigned)dv;
			}
			/* a reference is never longer than the UTF-8 it codes */
			if (j >= n || !nd || !v || v > 0x10ffff)
				return false;
			put_utf8(&q, v);
			i = j;
			continue;
		}
		size_t k;

		for (k = 0; k < sizeof(named) / sizeof(named[0]); k++)
			if (n - i - 1 >= named[k].n && !memcmp(p + i + 1, named[k].s, named[k].n))
				break;
		if (k == sizeof(named) / sizeof(named[0]))
			return false;
		*q++ = named[k].c;
		i += named[k].n;
	}
	*len = (size_t)(q - e->val);
	return true;
}

static bool all_space(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_space(p[i]))
			return false;
	return true;
}

/* The text since the last tag, before a tag: kept when it is more than
 * white space, or (at an end tag) when it is all an element holds. */
static int text_out(struct isbenc *e, bool at_end)
{
	size_t n;

	if (!e->tn)
		return 0;
	if (!e->depth || (!(at_end && !e->kids[e->depth - 1]) && all_space(e->text, e->tn))) {
		bool ok = all_space(e->text, e->tn);

		e->tn = 0;
		return ok ? 0 : EINVAL;	/* text outside the root */
	}
	if (!unescape(e, e->text, e->tn, false, &n) || n > ISB_MAXLEN)
		return EINVAL;
	e->tn = 0;
	put_byte(e, ISB_TEXT);
	put_bytes(e, e->val, n);
	return 0;
}

/* Control characters XML cannot hold, as the text writer has them: '?' */
static const char *raw_value(struct isbenc *e, const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && ((unsigned char)p[i] >= 0x20 || p[i] == '\t' || p[i] == '\n' ||
			 p[i] == '\r'))
		i++;
	if (i == n)
		return p;
	if (e->vcap < n + 1) {
		e->vcap = n + 1 > 256 ? n + 1 : 256;
		e->val = xrealloc(e->val, e->vcap);
	}
	for (i = 0; i < n; i++)
		e->val[i] = (unsigned char)p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' &&
			    p[i] != '\r' ? '?' : p[i];
	return e->val;
}

/* An element's start: its names (the template's when they are the last
 * tag's), then AGAIN or START and the values. 0, or -1 on what the
 * encoding does not take. */
static int element_out(struct isbenc *e, int el, int nattr, const struct isb_attr *av,
		       bool empty, bool literal)
{
	uint32_t at[ISB_MAXATTR];
	struct tmpl *t = e->tmpl[el];
	bool again;

	if (e->done_root || e->depth == ISB_MAXDEPTH || text_out(e, false) ||
	    nattr > ISB_MAXATTR)
		return -1;
	if (e->depth)
		e->kids[e->depth - 1] = true;
	for (int k = 0; k < nattr; k++) {
		int id;

		/* most often the names of the element's last tag */
		if (t && k < t->nattr && ((literal && av[k].name == t->nptr[k]) ||
		    (e->nlen[t->at[k]] == av[k].nlen &&
		     eq(e->name[t->at[k]], av[k].name, av[k].nlen)))) {
			at[k] = t->at[k];
			continue;
		}
		id = name_id(e, av[k].name, av[k].nlen);
		if (id < 0)
			return -1;
		at[k] = (uint32_t)id;
		for (int m = 0; m < k; m++)
			if (at[m] == at[k])
				return -1;	/* twice in one tag */
	}
	again = t && t->nattr == nattr;
	for (int k = 0; again && k < nattr; k++)
		again = t->at[k] == at[k];
	if (again) {
		put_byte(e, ISB_AGAIN | (empty ? ISB_EMPTY : 0));
		put_uv(e, (uint64_t)el);
	} else {
		size_t len = 0;

		if (!t)
			t = e->tmpl[el] = xcalloc(1, sizeof(*t));
		t->nattr = nattr;
		memcpy(t->at, at, sizeof(at[0]) * (size_t)nattr);
		for (int k = 0; k < nattr; k++) {
			if (!(t->slot[k] = isb_slot_of(&e->slots, (uint32_t)el, at[k]))) {
				t->nattr = 0;
				return -1;
			}
			link_slot(e, el, at[k], t->slot[k]);
			len += e->nlen[at[k]] + 3;
		}
		free(t->pre);
		t->pre = xmalloc(len + 1);
		len = 0;
		for (int k = 0; k < nattr; k++) {
			t->poff[k] = (uint16_t)len;
			t->plen[k] = (uint16_t)(e->nlen[at[k]] + 3);
			t->pre[len++] = ' ';
			memcpy(t->pre + len, e->name[at[k]], e->nlen[at[k]]);
			len += e->nlen[at[k]];
			t->pre[len++] = '=';
			t->pre[len++] = '"';
		}
		put_byte(e, ISB_START | (empty ? ISB_EMPTY : 0));
		put_uv(e, (uint64_t)el);
		put_uv(e, (uint64_t)nattr);
	}
	for (int k = 0; k < nattr; k++) {
		struct isb_slot *prev = k ? t->slot[k - 1] : NULL;
		const char *v = av[k].s;
		size_t len = av[k].len;

		t->nptr[k] = literal ? av[k].name : NULL;

		if (!again)
			put_uv(e, at[k]);
		switch (av[k].kind) {
		case ISB_A_NUM:
			put_num(e, t->slot[k], prev, av[k].m, av[k].d);
			continue;
		case ISB_A_XML:
			v = value_of(e, v, len, &len);
			break;
		case ISB_A_RAW:
			v = raw_value(e, v, len);
			break;
		}
		if (!v || len > ISB_MAXLEN)
			return -1;
		put_value(e, t->slot[k], prev, v, len);
	}
	if (empty) {
		if (!e->depth)
			e->done_root = true;
	} else {
		e->kids[e->depth++] = false;
	}
	return 0;
}

/* An element's name: a literal, most often one of the last two's */
static int el_of(struct isbenc *e, const char *name)
{
	int el;

	if (name == e->elptr[0])
		return e->elid[0];
	if (name == e->elptr[1])
		return e->elid[1];
	if ((el = name_id(e, name, strlen(name))) >= 0) {
		e->elptr[1] = e->elptr[0];
		e->elid[1] = e->elid[0];
		e->elptr[0] = name;
		e->elid[0] = el;
	}
	return el;
}

int isbenc_element(struct isbenc *e, const char *name, int nattr,
		   const struct isb_attr *av, bool empty)
{
	int el;

	if (e->err)
		return e->err;
	if (e->pn)		/* the text before it is not whole */
		return e->err = EINVAL;
	el = el_of(e, name);
	for (int k = 0; k < nattr; k++)
		if (av[k].kind == ISB_A_NUM && (av[k].m > 999999999999999999LL ||
						av[k].m < -999999999999999999LL ||
						av[k].d < 0 || av[k].d > ISB_MAXDIGITS))
			return e->err = EINVAL;
	if (el < 0 || element_out(e, el, nattr, av, empty, true))
		return e->err = EINVAL;
	return e->err;
}

/* NAME once more with the attributes its last element had, the numbers at
 * POS[0..N) (ascending, D decimals) new: what isbenc_element codes for
 * that element, its other values SAME (the caller knows they are). */
int isbenc_again(struct isbenc *e, const char *name, int n, const int *pos,
		 const int64_t *m, int d)
{
	struct tmpl *t;
	int el, j = 0;

	if (e->err)
		return e->err;
	el = el_of(e, name);
	t = el >= 0 ? e->tmpl[el] : NULL;
	if (e->pn || !t || !n || pos[n - 1] >= t->nattr || e->done_root ||
	    e->depth == ISB_MAXDEPTH || text_out(e, false))
		return e->err = EINVAL;
	if (e->depth)
		e->kids[e->depth - 1] = true;
	/* all of it at once: the tag, a byte a value kept, 11 a number */
	room(e, 11 + (size_t)t->nattr + 11 * (size_t)n);
	put_byte(e, ISB_AGAIN | ISB_EMPTY);
	put_uv(e, (uint64_t)el);
	for (int k = 0; j <= n; j++) {
		int upto = j < n ? pos[j] : t->nattr;

		if (upto < k)
			return e->err = EINVAL;	/* not ascending */
		memset(e->ob + e->on, ISB_V_SAME, (size_t)(upto - k));
		e->on += (size_t)(upto - k);
		if (j == n)
			break;
		if (m[j] > 999999999999999999LL || m[j] < -999999999999999999LL)
			return e->err = EINVAL;
		put_num(e, t->slot[upto], upto ? t->slot[upto - 1] : NULL, m[j], d);
		k = upto + 1;
	}
	if (!e->depth)
		e->done_root = true;
	return 0;
}

/* The first byte from V on that ends a plain double-quoted value (the
 * quote, or what must be decoded): 16 bytes a compare where they are
 * there, which spares a mispredicted loop end per value. */
static inline size_t vend(const char *p, size_t v, size_t n)
{
#ifdef __SSE2__
	const __m128i q = _mm_set1_epi8('"'), a = _mm_set1_epi8('&'),
		      nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'),
		      tb = _mm_set1_epi8('\t');

	while (v + 16 <= n) {
		__m128i x = _mm_loadu_si128((const __m128i *)(p + v));
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, q), _mm_cmpeq_epi8(x, a)),
					 _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, nl),
								   _mm_cmpeq_epi8(x, cr)),
						      _mm_cmpeq_epi8(x, tb)));
		unsigned bits = (unsigned)_mm_movemask_epi8(m);

		if (bits)
			return v + (size_t)__builtin_ctz(bits);
		v += 16;
	}
#endif
	while (v < n && !(cls[(unsigned char)p[v]] & C_VEND))
		v++;
	return v;
}

/* A start tag at P[0..N) (P[0] is '<'): its length, 0 when it is cut
 * short, -1 when it is not one. Found whole first, then coded. */
static long start_tag(struct isbenc *e, const char *p, size_t n)
{
	size_t ap[ISB_MAXATTR], an[ISB_MAXATTR], vp[ISB_MAXATTR], vn[ISB_MAXATTR];
	bool plain[ISB_MAXATTR];
	size_t i = 1, nl;
	int nattr = 0, el;
	bool empty;
	struct tmpl *t;

	while (i < n && name_char(p[i]))
		i++;
	if (i == n)
		return 0;
	nl = i - 1;
	if (!nl)
		return -1;
	if (e->lastel >= 0 && e->nlen[e->lastel] == nl && eq(e->name[e->lastel], p + 1, nl))
		el = e->lastel;
	else if ((el = name_id(e, p + 1, nl)) < 0)
		return -1;
	e->lastel = el;
	/* the attributes of the element's last tag, in their order */
	if ((t = e->tmpl[el])) {
		size_t j = i;
		int k;

		for (k = 0; k < t->nattr; k++) {
			size_t v;

			if (n - j < t->plen[k] || !eq(p + j, t->pre + t->poff[k], t->plen[k]))
				break;
			v = vend(p, j + t->plen[k], n);
			plain[k] = v < n && p[v] == '"';
			if (!plain[k])
				while (v < n && p[v] != '"')
					v++;
			if (v == n)
				break;
			ap[k] = j + 1;
			an[k] = t->plen[k] - 3;
			vp[k] = j + t->plen[k];
			vn[k] = v - vp[k];
			j = v + 1;
		}
		if (k == t->nattr && j < n && (p[j] == '/' || p[j] == '>')) {
			nattr = k;
			i = j;
			goto whole;
		}
	}
	for (;;) {
		size_t start = i;
		const char *end;

		while (i < n && is_space(p[i]))
			i++;
		if (i == n)
			return 0;
		if (p[i] == '>' || p[i] == '/')
			break;
		if (i == start || nattr == ISB_MAXATTR)	/* no space before it */
			return -1;
		ap[nattr] = i;
		while (i < n && name_char(p[i]))
			i++;
		an[nattr] = i - ap[nattr];
		while (i < n && is_space(p[i]))
			i++;
		if (i == n)
			return 0;
		if (!an[nattr] || p[i] != '=')
			return -1;
		for (i++; i < n && is_space(p[i]); i++)
			;
		if (i == n)
			return 0;
		if (p[i] != '"' && p[i] != '\'')
			return -1;
		{
			size_t j = i + 1;

			while (j < n && p[j] != p[i])
				j++;
			if (j == n)
				return 0;
			end = p + j;
		}
		vp[nattr] = i + 1;
		vn[nattr] = (size_t)(end - p) - i - 1;
		plain[nattr] = false;
		i = (size_t)(end - p) + 1;
		nattr++;
	}
whole:
	if (p[i] == '/') {
		if (i + 1 == n)
			return 0;
		if (p[i + 1] != '>')
			return -1;
		empty = true;
		i += 2;
	} else {
		empty = false;
		i++;
	}
	struct isb_attr av[ISB_MAXATTR];

	for (int k = 0; k < nattr; k++) {
		av[k].name = p + ap[k];
		av[k].nlen = an[k];
		av[k].s = p + vp[k];
		av[k].len = vn[k];
		av[k].kind = plain[k] ? ISB_A_PLAIN : ISB_A_XML;
	}
	/* names in the input: their pointers say nothing (a buffer reused) */
	return element_out(e, el, nattr, av, empty, false) ? -1 : (long)i;
}

/* An end tag at P[0..N) ("</"): its length, 0 when cut short, -1. */
static long end_tag(struct isbenc *e, const char *p, size_t n)
{
	const char *gt = memchr(p, '>', n);

	if (!gt)
		return 0;
	if (!e->depth || text_out(e, true))
		return -1;
	e->depth--;
	if (!e->depth)
		e->done_root = true;
	put_byte(e, ISB_END);
	return (long)(gt - p) + 1;
}

/* P[0..N) from TERM's end, or 0 when TERM is not there yet */
static long skip_to(const char *p, size_t n, const char *term)
{
	size_t tl = strlen(term);

	for (size_t i = 0; i + tl <= n; i++) {
		const char *q = memchr(p + i, term[0], n - i);

		if (!q || (size_t)(q - p) + tl > n)
			return 0;
		i = (size_t)(q - p);
		if (!memcmp(q, term, tl))
			return (long)(i + tl);
	}
	return 0;
}

static void keep_text(struct isbenc *e, const char *p, size_t n)
{
	if (e->tcap < e->tn + n) {
		e->tcap = (e->tn + n) * 2;
		e->text = xrealloc(e->text, e->tcap);
	}
	memcpy(e->text + e->tn, p, n);
	e->tn += n;
}

/* Code what of P[0..N) is whole: what it took; -1 on XML it does not
 * take. Text is kept as it comes (its end is the next tag). */
static long scan(struct isbenc *e, const char *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		long k;

		if (p[i] != '<') {
			const char *lt;
			size_t j = i;

			/* white space between elements (a trace's
			 * indentation) is dropped unseen, unless it may be
			 * all an element holds */
			while (j < n && is_space(p[j]))
				j++;
			if (j < n && p[j] == '<' && (!e->depth || e->kids[e->depth - 1]) &&
			    !e->tn) {
				i = j;
				continue;
			}
			lt = memchr(p + j, '<', n - j);
			j = lt ? (size_t)(lt - p) : n;

			if (e->tn + j - i > ISB_MAXLEN)
				return -1;
			keep_text(e, p + i, j - i);
			i = j;
			continue;
		}
		if (n - i < 2 || (p[i + 1] == '!' && n - i < 4))
			return (long)i;
		if (p[i + 1] == '?')
			k = skip_to(p + i, n - i, "?>");
		else if (p[i + 1] == '!')
			k = memcmp(p + i, "<!--", 4) ? -1 : skip_to(p + i + 4, n - i - 4, "-->");
		else if (p[i + 1] == '/')
			k = end_tag(e, p + i, n - i);
		else
			k = start_tag(e, p + i, n - i);
		if (k < 0)
			return -1;
		if (!k)
			return (long)i;
		if (p[i + 1] == '!')
			k += 4;
		i += (size_t)k;
	}
	return (long)i;
}

int isbenc_feed(struct isbenc *e, const char *p, size_t n)
{
	while (n && !e->err) {
		long k;

		if (e->pn) {
			/* a token cut short: more of it, then on from its end */
			size_t old = e->pn, take = old < 4096 ? 4096 : old;

			if (take > n)
				take = n;
			if (e->pcap < old + take) {
				e->pcap = (old + take) * 2;
				e->pend = xrealloc(e->pend, e->pcap);
			}
			memcpy(e->pend + old, p, take);
			e->pn += take;
			p += take;
			n -= take;
			if ((k = scan(e, e->pend, e->pn)) < 0)
				return e->err = EINVAL;
			if ((size_t)k >= old) {
				size_t back = e->pn - (size_t)k;	/* p's own */

				p -= back;
				n += back;
				e->pn = 0;
			} else if (k) {
				memmove(e->pend, e->pend + k, e->pn - (size_t)k);
				e->pn -= (size_t)k;
			}
			if (e->pn > ISB_MAXLEN + 4096)
				return e->err = EINVAL;
			continue;
		}
		if ((k = scan(e, p, n)) < 0)
			return e->err = EINVAL;
		if ((size_t)k < n) {
			size_t rest = n - (size_t)k;

			if (e->pcap < rest) {
				e->pcap = rest * 2 > 8192 ? rest * 2 : 8192;
				e->pend = xrealloc(e->pend, e->pcap);
			}
			memcpy(e->pend, p + k, rest);
			e->pn = rest;
		}
		break;
	}
	return e->err;
}

int isbenc_reset(struct isbenc *e)
{
	if (!e->err && (e->pn || text_out(e, false)))
		e->err = EINVAL;	/* a token cut, or text pending */
	if (e->err)
		return e->err;
	put_byte(e, ISB_RESET);
	flush(e);
	forget(e);
	return e->err;
}

int isbenc_part_end(struct isbenc *e)
{
	int err = e->err;

	if (!err && (e->pn || text_out(e, false)))
		err = EINVAL;
	if (!err) {
		flush(e);
		err = e->err;
	}
	isbenc_free(e);
	return err;
}

int isbenc_finish(struct isbenc *e)
{
	int err = e->err;

	if (!err && (e->pn || e->depth || !e->done_root || text_out(e, false)))
		err = EINVAL;
	if (!err) {
		put_byte(e, ISB_FINISH);
		flush(e);
		err = e->err;
	}
	isbenc_free(e);
	return err;
}
