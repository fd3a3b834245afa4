/* The binary encoding's reader: trace/isbenc.c in reverse, checking
 * every token, so that a damaged file is refused at the element where
 * it stops making sense rather than read as other records. */
#include "trace/isb.h"
#include "trace/isbfmt.h"
#include "trace/isbslot.h"
#include "util.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define WINDOW (256u << 10)

struct dec_tmpl {
	int nattr;
	uint32_t at[ISB_MAXATTR];
	struct isb_slot *slot[ISB_MAXATTR];
};

struct dec {
	const struct isb_ops *ops;
	void *ctx;
	long *line;
	char *msg;
	size_t msglen;
	/* input window */
	char *buf;
	size_t cap, pos, end;
	bool eof;
	/* names */
	const char *name[ISB_MAXNAMES];
	uint32_t nnames;
	struct dec_tmpl *tmpl[ISB_MAXNAMES];
	struct isb_slots slots;
	int depth;
	bool kids[ISB_MAXDEPTH], root_done;
	char *text;
	size_t textcap;
	unsigned version;
};

bool isb_magic(const char *p, size_t n)
{
	return n >= ISB_MAGIC_LEN && !memcmp(p, ISB_MAGIC, ISB_MAGIC_LEN);
}

static int fail(struct dec *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct dec *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->msg, d->msglen, fmt, ap);
	va_end(ap);
	return -1;
}

/* K more bytes at d->pos, reading as needed; -1 when the stream ends
 * before them (or cannot be read) */
static int need(struct dec *d, size_t k)
{
	if (d->end - d->pos >= k)
		return 0;
	if (d->pos) {
		memmove(d->buf, d->buf + d->pos, d->end - d->pos);
		d->end -= d->pos;
		d->pos = 0;
	}
	if (k > d->cap) {
		d->cap = k;
		d->buf = xrealloc(d->buf, d->cap);
	}
	while (d->end < k) {
		long r;

		if (d->eof)
			return fail(d, "truncated trace (the stream ends before its end mark)");
		r = d->ops->read(d->ctx, d->buf + d->end, d->cap - d->end);
		if (r < 0)
			return fail(d, "cannot read the trace");
		if (r == 0)
			d->eof = true;
		d->end += (size_t)r;
	}
	return 0;
}

static int get_uv(struct dec *d, uint64_t *v)
{
	uint64_t x = 0;

	for (int sh = 0; sh < 64; sh += 7) {
		unsigned char c;

		if (d->pos == d->end && need(d, 1))
			return -1;
		c = (unsigned char)d->buf[d->pos++];
		x |= (uint64_t)(c & 0x7f) << sh;
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return fail(d, "corrupt binary trace (a number too long)");
}

static int get_byte(struct dec *d, unsigned *c)
{
	if (d->pos == d->end && need(d, 1))
		return -1;
	*c = (unsigned char)d->buf[d->pos++];
	return 0;
}

static int get_id(struct dec *d, uint32_t *id, const char *what)
{
	uint64_t v;

	if (get_uv(d, &v))
		return -1;
	if (v >= d->nnames)
		return fail(d, "corrupt binary trace (%s name %llu undefined)", what,
			    (unsigned long long)v);
	*id = (uint32_t)v;
	return 0;
}

/* a length, then as many bytes at d->buf + d->pos (not yet taken) */
static int get_bytes(struct dec *d, size_t *n, size_t max)
{
	uint64_t v;

	if (get_uv(d, &v))
		return -1;
	if (v > max)
		return fail(d, "corrupt binary trace (a length of %llu)", (unsigned long long)v);
	if (need(d, (size_t)v))
		return -1;
	*n = (size_t)v;
	return 0;
}

/* What XML 1.0 cannot hold: control characters other than white space;
 * in a name, also its delimiters. */
static bool bad_bytes(const char *p, size_t n, bool name)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c < 0x20 && (name || (c != '\t' && c != '\n' && c != '\r')))
			return true;
		if (name && strchr(" =<>/\"'&", c))
			return true;
	}
	return false;
}

static void slot_set(struct isb_slot *s, const char *p, size_t n)
{
	isb_slot_text(s, p, n);
	s->used = true;
}

static const int64_t max_mantissa = 999999999999999999LL;	/* 18 digits */

static int get_value(struct dec *d, struct isb_slot *s, const struct isb_slot *prev)
{
	unsigned tag, digits;
	uint64_t u;
	int64_t m, base;
	char num[24];
	size_t n;

	if (get_byte(d, &tag))
		return -1;
	switch (tag) {
	case ISB_V_STR:
		if (get_bytes(d, &n, ISB_MAXLEN))
			return -1;
		if (bad_bytes(d->buf + d->pos, n, false))
			return fail(d, "corrupt binary trace (a control character in a value)");
		isb_slot_string(s, -1, d->buf + d->pos, n);
		d->pos += n;
		return 0;
	case ISB_V_SAME:
		if (!s->used)
			return fail(d, "corrupt binary trace (a value repeated before its first)");
		return 0;
	case ISB_V_NUM:
		if (get_uv(d, &u) || get_byte(d, &digits))
			return -1;
		if (digits > ISB_MAXDIGITS)
			return fail(d, "corrupt binary trace (a number of %u digits)", digits);
		m = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
		break;
	case ISB_V_DLINK: {
		int bd;

		if (d->version < 3 || !isb_slot_base(s, &base, &bd))
			return fail(d, "corrupt binary trace (a difference to no number)");
		if (get_uv(d, &u))
			return -1;
		digits = (unsigned)bd;
		m = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
		if (m > max_mantissa * 2 || m < -max_mantissa * 2)
			return fail(d, "corrupt binary trace (a number out of range)");
		m += base;
		break;
	}
	case ISB_V_DSLOT:
	case ISB_V_DPREV: {
		const struct isb_slot *b = tag == ISB_V_DSLOT ? s : prev;

		if (!b || !b->used || !b->isnum)
			return fail(d, "corrupt binary trace (a difference to no number)");
		if (get_uv(d, &u))
			return -1;
		digits = (unsigned)b->d;
		base = b->m;
		m = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
		if (m > max_mantissa * 2 || m < -max_mantissa * 2)
			return fail(d, "corrupt binary trace (a number out of range)");
		m += base;
		break;
	}
	default:
		if (tag >= ISB_V_RECENT && tag < ISB_V_RECENT + ISB_MRU && d->version >= 3) {
			int i = (int)(tag - ISB_V_RECENT);
			if (i >= s->nmru)
				return fail(d, "corrupt binary trace (recent string %d of %d)",
					    i, s->nmru);
			isb_slot_string(s, i, s->mru[i].s, s->mru[i].len);
			return 0;
		}
		return fail(d, "corrupt binary trace (value code %u)", tag);
	}
	if (m > max_mantissa || m < -max_mantissa)
		return fail(d, "corrupt binary trace (a number out of range)");
	n = isb_fmtnum(num, m, (int)digits);
	slot_set(s, num, n);
	s->isnum = true;
	s->m = m;
	s->d = (int)digits;
	return 0;
}

static int element(struct dec *d, unsigned op)
{
	const char *names[ISB_MAXATTR], *values[ISB_MAXATTR];
	bool again = (op & ~ISB_EMPTY) == ISB_AGAIN, empty = op & ISB_EMPTY;
	struct dec_tmpl *t;
	uint32_t el = 0;

	if (d->root_done)
		return fail(d, "corrupt binary trace (an element after the root's end)");
	if (d->depth == ISB_MAXDEPTH)
		return fail(d, "elements nested too deep");
	(*d->line)++;
	if (get_id(d, &el, "element"))
		return -1;
	t = d->tmpl[el];
	if (again) {
		if (!t)
			return fail(d, "corrupt binary trace (<%s> repeated before its first)",
				    d->name[el]);
	} else {
		uint64_t n;

		if (get_uv(d, &n))
			return -1;
		if (n > ISB_MAXATTR)
			return fail(d, "<%s> has too many attributes", d->name[el]);
		if (!t)
			t = d->tmpl[el] = xmalloc(sizeof(*t));
		t->nattr = 0;
		for (int k = 0; k < (int)n; k++) {
			uint32_t at = 0;

			if (get_id(d, &at, "attribute"))
				return -1;
			for (int j = 0; j < k; j++)
				if (t->at[j] == at)
					return fail(d, "<%s> has attribute %s twice",
						    d->name[el], d->name[at]);
			t->at[k] = at;
			if (!(t->slot[k] = isb_slot_of(&d->slots, el, at)))
				return fail(d, "corrupt binary trace (more than %d attribute slots)",
					    ISB_MAXSLOTS);
			t->nattr = k + 1;
			if (get_value(d, t->slot[k], k ? t->slot[k - 1] : NULL))
				return -1;
		}
	}
	for (int k = 0; k < t->nattr; k++) {
		if (again && get_value(d, t->slot[k], k ? t->slot[k - 1] : NULL))
			return -1;
		names[k] = d->name[t->at[k]];
		values[k] = t->slot[k]->s;
	}
	if (d->depth)
		d->kids[d->depth - 1] = true;
	if (empty) {
		if (!d->depth)
			d->root_done = true;
	} else {
		d->kids[d->depth++] = false;
	}
	d->ops->start(d->ctx, d->name[el], t->nattr, names, values, empty);
	return 0;
}

static int token(struct dec *d, unsigned op, bool *finished)
{
	size_t n;

	switch (op) {
	case ISB_NAME:
		if (get_bytes(d, &n, ISB_MAXNAME))
			return -1;
		if (d->nnames == ISB_MAXNAMES)
			return fail(d, "corrupt binary trace (more than %d names)", ISB_MAXNAMES);
		if (!n || bad_bytes(d->buf + d->pos, n, true))
			return fail(d, "corrupt binary trace (a bad name)");
		d->name[d->nnames++] = d->ops->intern(d->ctx, d->buf + d->pos, n);
		d->pos += n;
		return 0;
	case ISB_START:
	case ISB_AGAIN:
	case ISB_START | ISB_EMPTY:
	case ISB_AGAIN | ISB_EMPTY:
		return element(d, op);
	case ISB_END:
		if (!d->depth)
			return fail(d, "corrupt binary trace (an end with no element open)");
		if (d->kids[--d->depth])
			(*d->line)++;
		if (!d->depth)
			d->root_done = true;
		d->ops->end(d->ctx);
		return 0;
	case ISB_TEXT:
		if (get_bytes(d, &n, ISB_MAXLEN))
			return -1;
		if (!d->depth)
			return fail(d, "corrupt binary trace (text outside the root)");
		if (bad_bytes(d->buf + d->pos, n, false))
			return fail(d, "corrupt binary trace (a control character in a text)");
		if (d->textcap < n + 1) {
			d->textcap = n + 1;
			d->text = xrealloc(d->text, d->textcap);
		}
		memcpy(d->text, d->buf + d->pos, n);
		d->text[n] = 0;
		d->pos += n;
		d->ops->text(d->ctx, d->text, n);
		return 0;
	case ISB_LINK: {
		uint32_t id[6];
		struct isb_slot *sl[3];

		if (d->version < 3)
			return fail(d, "corrupt binary trace (token %u)", op);
		for (int k = 0; k < 6; k++)
			if (get_id(d, &id[k], k % 2 ? "attribute" : "element"))
				return -1;
		for (int k = 0; k < 3; k++)
			if (!(sl[k] = isb_slot_of(&d->slots, id[2 * k], id[2 * k + 1])))
				return fail(d, "corrupt binary trace (more than %d attribute slots)",
					    ISB_MAXSLOTS);
		sl[0]->link[0] = sl[1];
		sl[0]->link[1] = sl[2];
		return 0;
	}
	case ISB_RESET:
		if (d->version < 2)
			return fail(d, "corrupt binary trace (token %u)", op);
		for (uint32_t i = 0; i < d->nnames; i++) {
			free(d->tmpl[i]);
			d->tmpl[i] = NULL;
		}
		d->nnames = 0;
		isb_slots_free(&d->slots);
		return 0;
	case ISB_FINISH:
		if (d->depth || !d->root_done)
			return fail(d, "corrupt binary trace (its end mark inside an element)");
		*finished = true;
		return 0;
	default:
		return fail(d, "corrupt binary trace (token %u)", op);
	}
}

static void dec_free(struct dec *d)
{
	for (uint32_t i = 0; i < d->nnames; i++)
		free(d->tmpl[i]);
	isb_slots_free(&d->slots);
	free(d->buf);
	free(d->text);
}

/* The decoder of the file being read, freed if a callback leaves for
 * good (trace_read_try's longjmp): isb_decode_abandon(). */
static _Thread_local struct dec *live;

void isb_decode_abandon(void)
{
	if (live) {
		dec_free(live);
		free(live);
		live = NULL;
	}
}

int isb_decode(const struct isb_ops *ops, void *ctx, long *line, char *msg, size_t len)
{
	struct dec *d = xcalloc(1, sizeof(*d));
	bool finished = false;
	unsigned version, op;
	int r = 0;

	isb_decode_abandon();
	live = d;
	d->ops = ops;
	d->ctx = ctx;
	d->line = line;
	d->msg = msg;
	d->msglen = len;
	d->cap = WINDOW;
	d->buf = xmalloc(d->cap);
	*line = 1;
	if (need(d, ISB_MAGIC_LEN + 1) || !isb_magic(d->buf, d->end)) {
		r = fail(d, "not a binary Island trace");
	} else {
		d->pos = ISB_MAGIC_LEN;
		d->version = version = (unsigned char)d->buf[d->pos++];
		if (version < 1 || version > ISB_VERSION)
			r = fail(d, "binary trace version %u (this reader knows 1 to %d)",
				 version, ISB_VERSION);
	}
	while (!r && !finished) {
		if (get_byte(d, &op) || token(d, op, &finished))
			r = -1;
		else if (ops->halted && ops->halted(ctx))
			r = fail(d, "stopped");
	}
	if (!r && (d->pos != d->end || need(d, 1) == 0))
		r = fail(d, "corrupt binary trace (bytes after its end mark)");
	else if (!r)
		msg[0] = 0;
	live = NULL;
	dec_free(d);
	free(d);
	return r;
}
