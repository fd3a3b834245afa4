/* Unit tests of the binary encoding (trace/isbenc.c, trace/isb.c):
 * XML in, tokens out, the same elements back; the encoder fed in pieces
 * cut anywhere writes the same bytes; a loop's elements cost a few bytes;
 * what the encoder does not take is refused; a stream cut or damaged
 * anywhere is refused by the decoder, never read past. */
#include "unit.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/isbfmt.h"
#include "trace/isb.h"

struct buf {
	char *p;
	size_t n, cap, at;
};

static void buf_add(struct buf *b, const void *p, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->p = realloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
	b->p[b->n] = 0;
}

static int to_buf(void *ctx, const void *p, size_t n)
{
	buf_add(ctx, p, n);
	return 0;
}

/* XML coded in pieces of PIECE bytes (0: whole); the encoder's result */
static int encode(const char *xml, size_t piece, struct buf *out)
{
	struct isbenc *e = isbenc_new(to_buf, out);
	size_t n = strlen(xml);
	int r = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n && !r; i += piece ? piece : n)
		r = isbenc_feed(e, xml + i, piece && n - i > piece ? piece : n - i);
	if (r) {
		isbenc_free(e);
		return r;
	}
	return isbenc_finish(e);
}

/* the decoder's view, written back as a line per callback */
struct seen {
	struct buf in, text;
	long line;
};

static long d_read(void *ctx, char *p, size_t n)
{
	struct seen *s = ctx;
	size_t k = s->in.n - s->in.at;

	if (k > n)
		k = n;
	if (k > 5)	/* small reads: every token is cut somewhere */
		k = 5;
	memcpy(p, s->in.p + s->in.at, k);
	s->in.at += k;
	return (long)k;
}

static const char *d_intern(void *ctx, const char *name, size_t n)
{
	static char names[256][64];
	static int nn;

	for (int i = 0; i < nn; i++)
		if (strlen(names[i]) == n && !memcmp(names[i], name, n))
			return names[i];
	if (nn == 256 || n >= 64)	/* a damaged stream's */
		return "other";
	memcpy(names[nn], name, n);
	names[nn][n] = 0;
	return names[nn++];
}

static void d_start(void *ctx, const char *name, int nattr, const char *const *names,
		    const char *const *values, bool empty)
{
	struct seen *s = ctx;
	char line[512];

	snprintf(line, sizeof(line), "%ld <%s", s->line, name);
	buf_add(&s->text, line, strlen(line));
	for (int i = 0; i < nattr; i++) {
		snprintf(line, sizeof(line), " %s=[%s]", names[i], values[i]);
		buf_add(&s->text, line, strlen(line));
	}
	buf_add(&s->text, empty ? "/>\n" : ">\n", empty ? 3 : 2);
}

static void d_end(void *ctx)
{
	struct seen *s = ctx;
	char line[32];

	snprintf(line, sizeof(line), "%ld end\n", s->line);
	buf_add(&s->text, line, strlen(line));
}

static void d_text(void *ctx, const char *p, size_t n)
{
	struct seen *s = ctx;

	buf_add(&s->text, "text[", 5);
	buf_add(&s->text, p, n);
	buf_add(&s->text, "]\n", 2);
}

static const struct isb_ops d_ops = {
	.read = d_read, .intern = d_intern, .start = d_start, .end = d_end, .text = d_text,
};

static int decode(const struct buf *in, size_t len, struct seen *s, char *msg)
{
	memset(s, 0, sizeof(*s));
	s->in = *in;
	s->in.n = len;
	s->in.at = 0;
	return isb_decode(&d_ops, s, &s->line, msg, 256);
}

static const char sample[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<!-- a comment -->\n"
	"<trace version=\"1\" a='single \"q\"' e=\"&amp;&lt;&gt;&quot;&apos;&#10;&#x41;\">\n"
	"  <node n=\"007\" m=\"-0\" k=\"1.50\" j=\"-3.25\" big=\"12345678901234567890\" t=\"0.000000001\">\n"
	"    <command><arg> </arg><arg></arg><arg>a&amp;b\tc</arg></command>\n"
	"    <io start=\"1.000000000\" end=\"1.000000100\" p=\"a\nb\"/>\n"
	"    <io start=\"1.000000200\" end=\"1.000000300\" p=\"a\nb\"/>\n"
	"    <io end=\"1.000000450\" start=\"1.000000400\"  fd = \"3\" />\n"
	"    <empty></empty>\n"
	"  </node>\n"
	"</trace>\n";

static const char sample_seen[] =
	"2 <trace version=[1] a=[single \"q\"] e=[&<>\"'\nA]>\n"
	"3 <node n=[007] m=[-0] k=[1.50] j=[-3.25] big=[12345678901234567890] t=[0.000000001]>\n"
	"4 <command>\n"
	"5 <arg>\n"
	"text[ ]\n"
	"5 end\n"
	"6 <arg>\n"
	"6 end\n"
	"7 <arg>\n"
	"text[a&b\tc]\n"
	"7 end\n"
	"8 end\n"
	"9 <io start=[1.000000000] end=[1.000000100] p=[a b]/>\n"
	"10 <io start=[1.000000200] end=[1.000000300] p=[a b]/>\n"
	"11 <io end=[1.000000450] start=[1.000000400] fd=[3]/>\n"
	"12 <empty>\n"
	"12 end\n"
	"13 end\n"
	"14 end\n";

static void test_roundtrip(void)
{
	struct buf whole, cut;
	struct seen s;
	char msg[256];

	CU_ASSERT_EQUAL_FATAL(encode(sample, 0, &whole), 0);
	CU_ASSERT_EQUAL(decode(&whole, whole.n, &s, msg), 0);
	CU_ASSERT_STRING_EQUAL(s.text.p, sample_seen);
	if (strcmp(s.text.p, sample_seen))
		fprintf(stderr, "\n%s", s.text.p);
	free(s.text.p);
	/* a stream with no string again but as its slot's last, no io's
	 * start: versions 1 and 2 coded it so too, and are read as they
	 * were (a recent string's code or a LINK in them is refused) */
	struct buf old = { 0 };
	struct seen s3;
	CU_ASSERT_EQUAL_FATAL(encode("<trace version=\"1\"><x a=\"1.5\" b=\"s\"/><x a=\"2.5\" "
				     "b=\"s\"/>\n<y b=\"t\">u</y></trace>", 0, &old), 0);
	CU_ASSERT_EQUAL(decode(&old, old.n, &s3, msg), 0);
	for (char v = 1; v <= 2; v++) {
		old.p[ISB_MAGIC_LEN] = v;
		CU_ASSERT_EQUAL(decode(&old, old.n, &s, msg), 0);
		CU_ASSERT_STRING_EQUAL(s.text.p, s3.text.p);
		free(s.text.p);
	}
	free(s3.text.p);
	free(old.p);
	/* cut anywhere: the same bytes */
	for (size_t piece = 1; piece < 80; piece++) {
		CU_ASSERT_EQUAL_FATAL(encode(sample, piece, &cut), 0);
		CU_ASSERT_EQUAL(cut.n, whole.n);
		CU_ASSERT(cut.n == whole.n && !memcmp(cut.p, whole.p, cut.n));
		free(cut.p);
	}
	free(whole.p);
}

/* A loop's calls: a few bytes each before compression. */
static void test_loop(void)
{
	struct buf x = { 0 }, b;
	char el[256];
	size_t one, many;

	buf_add(&x, "<trace version=\"1\">", 19);
	for (int i = 0; i < 1000; i++) {
		snprintf(el, sizeof(el), "\n<io api=\"write\" res=\"filewrite\" start=\"0.%09d\" "
			 "end=\"0.%09d\" amount=\"64\" size=\"64\" fd=\"3\" offset=\"%d\"/>",
			 1000 + 150 * i + i % 7, 1100 + 150 * i, 64 * i);
		buf_add(&x, el, strlen(el));
		if (i == 0) {
			buf_add(&x, "</trace>", 8);
			CU_ASSERT_EQUAL_FATAL(encode(x.p, 0, &b), 0);
			one = b.n;
			free(b.p);
			x.n -= 8;
		}
	}
	buf_add(&x, "</trace>", 8);
	CU_ASSERT_EQUAL_FATAL(encode(x.p, 0, &b), 0);
	many = b.n;
	/* AGAIN and the element (2), api, res (2), start and end (two
	 * bytes of delta each, after their code: 6), amount, size, fd (3),
	 * offset (3) */
	CU_ASSERT((many - one) / 999 <= 16);
	if ((many - one) / 999 > 16)
		fprintf(stderr, "\n%zu bytes an element\n", (many - one) / 999);
	free(b.p);
	free(x.p);
}

static void test_refused(void)
{
	static const char *const bad[] = {
		"<a b=c/>", "<a/>x", "<a/><b/>", "<a x=\"&bogus;\"/>",
		"<a x=\"1\" x=\"2\"/>", "<a>", "<!DOCTYPE a><a/>", "text<a/>",
		"<a x=\"1\"y=\"2\"/>", "</a>", "<a x=\"&#0;\"/>", "<a/ >",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct buf b;
		int r = encode(bad[i], 0, &b);

		CU_ASSERT_EQUAL(r, EINVAL);
		if (r != EINVAL)
			fprintf(stderr, "\naccepted: %s\n", bad[i]);
		free(b.p);
	}
}

/* Cut anywhere: refused with a message. Any byte changed: read or
 * refused, never past the stream (ASan runs this too). */
static void test_damaged(void)
{
	struct buf b;
	struct seen s;
	char msg[256];

	CU_ASSERT_EQUAL_FATAL(encode(sample, 0, &b), 0);
	for (size_t len = 0; len < b.n; len++) {
		int r = decode(&b, len, &s, msg);

		CU_ASSERT_EQUAL(r, -1);
		CU_ASSERT(msg[0] != 0);
		free(s.text.p);
	}
	CU_ASSERT_EQUAL(decode(&b, b.n - 1, &s, msg), -1);
	CU_ASSERT_STRING_EQUAL(msg, "truncated trace (the stream ends before its end mark)");
	free(s.text.p);
	for (size_t i = 0; i < b.n; i++) {
		static const unsigned char vals[] = { 0, 1, 2, 3, 4, 5, 6, 0x7f, 0x80, 0x82, 0xff };
		unsigned char keep = (unsigned char)b.p[i];

		for (size_t v = 0; v < sizeof(vals); v++) {
			b.p[i] = (char)vals[v];
			(void)decode(&b, b.n, &s, msg);
			free(s.text.p);
		}
		b.p[i] = (char)keep;
	}
	b.p[5] = 4;	/* the version */
	CU_ASSERT_EQUAL(decode(&b, b.n, &s, msg), -1);
	CU_ASSERT_STRING_EQUAL(msg, "binary trace version 4 (this reader knows 1 to 3)");
	free(s.text.p);
	free(b.p);
}

/* A part coded from nothing inside two open elements, spliced between
 * two RESETs of the stream's coder: the elements as if coded in one
 * stream, names and slots coded again after each RESET; a RESET in a
 * version 1 stream is refused. */
static void test_part(void)
{
	static const char io[] = "<io api=\"write\" start=\"1.000000000\"/>";
	static const char seen[] =
		"2 <trace>\n"
		"3 <node n=[1]>\n"
		"4 <io api=[write] start=[1.000000000]/>\n"
		"5 <io api=[write] start=[1.000000000]/>\n"
		"6 <io api=[write] start=[1.000000000]/>\n"
		"7 <io api=[write] start=[1.000000000]/>\n"
		"8 end\n"
		"9 end\n";
	struct buf b = { 0 }, part = { 0 };
	struct isbenc *e = isbenc_new(to_buf, &b), *pe = isbenc_part(to_buf, &part, 2);
	struct seen s;
	char msg[256];

	/* the part: no magic, its own names */
	CU_ASSERT_EQUAL(isbenc_feed(pe, io, strlen(io)), 0);
	CU_ASSERT_EQUAL(isbenc_feed(pe, io, strlen(io)), 0);
	CU_ASSERT_EQUAL(isbenc_part_end(pe), 0);
	CU_ASSERT(part.n > 0 && part.p[0] == ISB_NAME);
	/* the stream: the part between RESETs, then a call coded afresh */
	CU_ASSERT_EQUAL(isbenc_feed(e, "<trace><node n=\"1\">", 19), 0);
	CU_ASSERT_EQUAL(isbenc_feed(e, io, strlen(io)), 0);
	CU_ASSERT_EQUAL(isbenc_reset(e), 0);
	buf_add(&b, part.p, part.n);
	CU_ASSERT_EQUAL(isbenc_reset(e), 0);
	CU_ASSERT_EQUAL(isbenc_feed(e, io, strlen(io)), 0);
	CU_ASSERT_EQUAL(isbenc_feed(e, "</node></trace>", 15), 0);
	CU_ASSERT_EQUAL_FATAL(isbenc_finish(e), 0);
	CU_ASSERT_EQUAL(decode(&b, b.n, &s, msg), 0);
	CU_ASSERT_STRING_EQUAL(s.text.p ? s.text.p : "", seen);
	if (s.text.p && strcmp(s.text.p, seen))
		fprintf(stderr, "\n%s", s.text.p);
	free(s.text.p);
	/* a reset with a token cut is refused */
	e = isbenc_new(to_buf, &part);
	CU_ASSERT_EQUAL(isbenc_feed(e, "<trace><io a=\"", 14), 0);
	CU_ASSERT_EQUAL(isbenc_reset(e), EINVAL);
	isbenc_free(e);
	free(part.p);
	/* version 2 had no LINK (an io's start is linked), */
	b.p[5] = 2;
	CU_ASSERT_EQUAL(decode(&b, b.n, &s, msg), -1);
	CU_ASSERT_STRING_EQUAL(msg, "corrupt binary trace (token 8)");
	free(s.text.p);
	free(b.p);
	/* version 1 no RESET */
	memset(&b, 0, sizeof(b));
	e = isbenc_new(to_buf, &b);
	CU_ASSERT_EQUAL(isbenc_feed(e, "<trace><x a=\"1\"/>", 17), 0);
	CU_ASSERT_EQUAL(isbenc_reset(e), 0);
	CU_ASSERT_EQUAL(isbenc_feed(e, "<x a=\"2\"/></trace>", 18), 0);
	CU_ASSERT_EQUAL_FATAL(isbenc_finish(e), 0);
	b.p[5] = 1;
	CU_ASSERT_EQUAL(decode(&b, b.n, &s, msg), -1);
	CU_ASSERT_STRING_EQUAL(msg, "corrupt binary trace (token 7)");
	free(s.text.p);
	free(b.p);
}

/* Elements given whole (isbenc_element), and the same with each one like
 * the last but for its times given again (isbenc_again): the same bytes,
 * read back as the same elements. */
static void give(struct isbenc *e, int i, bool again)
{
	static const int pos[2] = { 1, 3 }, first = 0;
	int64_t m[2] = { 1000000000LL + 37 * i, 1000000000LL + 37 * i + (i % 5) };
	const struct isb_attr io[] = {
		{ .name = "api", .nlen = 3, .s = "write", .len = 5, .kind = ISB_A_PLAIN },
		{ .name = "start", .nlen = 5, .m = m[0], .d = 9, .kind = ISB_A_NUM },
		{ .name = "path", .nlen = 4, .s = "/a&amp;b", .len = 8, .kind = ISB_A_XML },
		{ .name = "end", .nlen = 3, .m = m[1], .d = 9, .kind = ISB_A_NUM },
		{ .name = "fd", .nlen = 2, .m = 3, .kind = ISB_A_NUM },
	};
	const struct isb_attr dur = { .name = "dur", .nlen = 3, .m = i * 11, .d = 9,
				      .kind = ISB_A_NUM };

	/* the first of each, and every seventh call, whole */
	if (again && i && i % 7) {
		CU_ASSERT_EQUAL(isbenc_again(e, "compute", 1, &first, &dur.m, 9), 0);
		CU_ASSERT_EQUAL(isbenc_again(e, "io", 2, pos, m, 9), 0);
		return;
	}
	CU_ASSERT_EQUAL(isbenc_element(e, "compute", 1, &dur, true), 0);
	CU_ASSERT_EQUAL(isbenc_element(e, "io", 5, io, true), 0);
}

static void test_again(void)
{
	struct buf whole = { 0 }, again = { 0 };
	struct seen s;
	char msg[256];
	int zero = 0;
	int64_t m = 1;

	for (int k = 0; k < 2; k++) {
		struct isbenc *e = isbenc_new(to_buf, k ? &again : &whole);

		CU_ASSERT_EQUAL(isbenc_feed(e, "<trace>", 7), 0);
		for (int i = 0; i < 100; i++)
			give(e, i, k);
		CU_ASSERT_EQUAL(isbenc_feed(e, "</trace>", 8), 0);
		CU_ASSERT_EQUAL_FATAL(isbenc_finish(e), 0);
	}
	CU_ASSERT_EQUAL(whole.n, again.n);
	CU_ASSERT(whole.n == again.n && !memcmp(whole.p, again.p, whole.n));
	CU_ASSERT_EQUAL(decode(&again, again.n, &s, msg), 0);
	CU_ASSERT(s.text.p && strstr(s.text.p, "<io api=[write] start=[1.000003663] "
					       "path=[/a&b] end=[1.000003667] fd=[3]/>"));
	free(s.text.p);
	/* an element never given whole, past its attributes, not ascending */
	struct isbenc *e = isbenc_new(to_buf, &again);
	CU_ASSERT_EQUAL(isbenc_feed(e, "<trace>", 7), 0);
	CU_ASSERT_EQUAL(isbenc_again(e, "io", 1, &zero, &m, 9), EINVAL);
	isbenc_free(e);
	e = isbenc_new(to_buf, &again);
	CU_ASSERT_EQUAL(isbenc_feed(e, "<trace>", 7), 0);
	give(e, 0, false);
	int past = 5, back[2] = { 3, 1 };
	int64_t two[2] = { 1, 2 };
	CU_ASSERT_EQUAL(isbenc_again(e, "io", 1, &past, &m, 9), EINVAL);
	isbenc_free(e);
	e = isbenc_new(to_buf, &again);
	CU_ASSERT_EQUAL(isbenc_feed(e, "<trace>", 7), 0);
	give(e, 0, false);
	CU_ASSERT_EQUAL(isbenc_again(e, "io", 2, back, two, 9), EINVAL);
	isbenc_free(e);
	free(whole.p);
	free(again.p);
}

/* A slot's strings alternating: each one seen before is a byte, the
 * most recent first; past 16, the least recent is a string again. */
static void test_recent(void)
{
	struct buf x = { 0 }, b;
	struct seen s;
	char el[256], msg[256];
	/* paths a, b, a, c, b, then p0..p16 and a (gone: 17 since) */
	const char *seq[] = { "a", "b", "a", "c", "b" };

	buf_add(&x, "<trace>", 7);
	for (size_t i = 0; i < 5; i++) {
		snprintf(el, sizeof(el), "<io path=\"%s\"/>", seq[i]);
		buf_add(&x, el, strlen(el));
	}
	for (int i = 0; i <= 16; i++) {
		snprintf(el, sizeof(el), "<io path=\"p%d\"/>", i);
		buf_add(&x, el, strlen(el));
	}
	buf_add(&x, "<io path=\"a\"/></trace>", 22);
	CU_ASSERT_EQUAL_FATAL(encode(x.p, 0, &b), 0);
	/* the value codes after each AGAIN io: STR b (00 01 'b'), a is
	 * recent 0 (05), STR c, b is recent 1 (06: c, then a, b) */
	const char want[] = "\x83\x01\x00\x01" "b" "\x83\x01\x05" "\x83\x01\x00\x01" "c"
			    "\x83\x01\x06";
	CU_ASSERT(memmem(b.p, b.n, want, sizeof(want) - 1) != NULL);
	/* the last a: a string again, "a" 17 strings back */
	CU_ASSERT(b.n > 8 && !memcmp(b.p + b.n - 7, "\x83\x01\x00\x01" "a", 5));
	CU_ASSERT_EQUAL(decode(&b, b.n, &s, msg), 0);
	CU_ASSERT(s.text.p && strstr(s.text.p, "<io path=[c]/>\n") &&
		  strstr(s.text.p, "<io path=[p16]/>\n"));
	size_t na = 0;
	for (const char *q = s.text.p; q && (q = strstr(q, "path=[a]")); q++)
		na++;
	CU_ASSERT_EQUAL(na, 3);
	free(s.text.p);
	/* a recent string the slot never had */
	char *r = memmem(b.p, b.n, "\x83\x01\x05", 3);
	CU_ASSERT_FATAL(r != NULL);
	r[2] = 0x05 + 15;
	CU_ASSERT_EQUAL(decode(&b, b.n, &s, msg), -1);
	CU_ASSERT(strstr(msg, "corrupt binary trace (recent string 15 of 1)") != NULL);
	if (!strstr(msg, "recent string 15 of 1"))
		fprintf(stderr, "\n%s\n", msg);
	free(s.text.p);
	free(b.p);
	free(x.p);
}

/* An io's start, the last io's end plus the compute phase between, is
 * its LINK's base again: a byte of code and a byte of nothing. */
static void test_link(void)
{
	struct buf x = { 0 }, b;
	struct seen s;
	char el[256], msg[256];
	long end = 1000000100;

	const char *first = "<trace><io start=\"1.000000000\" end=\"1.000000100\"/>";
	buf_add(&x, first, strlen(first));
	for (int i = 0; i < 1000; i++) {
		long gap = 100 + (i * 37) % 500, start = end + gap;
		end = start + 50 + (i * 53) % 900;
		snprintf(el, sizeof(el), "<compute dur=\"0.%09ld\"/><io start=\"%ld.%09ld\" "
			 "end=\"%ld.%09ld\"/>", gap, start / 1000000000, start % 1000000000,
			 end / 1000000000, end % 1000000000);
		buf_add(&x, el, strlen(el));
	}
	buf_add(&x, "</trace>", 8);
	CU_ASSERT_EQUAL_FATAL(encode(x.p, 0, &b), 0);
	size_t exact = 0;
	for (size_t i = 0; i + 1 < b.n; i++)
		exact += b.p[i] == ISB_V_DLINK && b.p[i + 1] == 0;
	CU_ASSERT(exact >= 1000);
	CU_ASSERT_EQUAL(decode(&b, b.n, &s, msg), 0);
	CU_ASSERT(s.text.p && strstr(s.text.p, "<compute dur=[0.000000137]/>\n") &&
		  strstr(s.text.p, "<io start=[1.000000387] end=[1.000000490]/>\n"));
	if (s.text.p && !strstr(s.text.p, "<io start=[1.000000387] end=[1.000000490]/>"))
		fprintf(stderr, "\n%.400s\n", s.text.p);
	free(s.text.p);
	free(b.p);
	free(x.p);
	/* DLINK in a slot that has no LINK */
	static const char bad[] = "\x89ISB\n\x03\x01\x01t\x01\x01" "a\x82\x00\x01\x01\x15\x00\x06";
	struct buf d = { (char *)bad, sizeof(bad) - 1, sizeof(bad), 0 };
	CU_ASSERT_EQUAL(decode(&d, d.n, &s, msg), -1);
	CU_ASSERT_STRING_EQUAL(msg, "corrupt binary trace (a difference to no number)");
	free(s.text.p);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "XML in, the same elements out, cut anywhere", test_roundtrip },
		{ "a loop's elements, a few bytes each", test_loop },
		{ "an element again codes as given whole", test_again },
		{ "what the encoder does not take", test_refused },
		{ "a stream cut or damaged", test_damaged },
		{ "a part between two RESETs", test_part },
		{ "a slot's recent strings, a byte each", test_recent },
		{ "an io's start from the last end and the phase", test_link },
	};

	return unit_main("trace-isb", tests, sizeof(tests) / sizeof(tests[0]));
}
