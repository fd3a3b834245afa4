/* The binary encoding of a trace (docs/trace-binary.md): the XML's
 * elements, attributes and text as tokens, each value coded against the
 * last value of its (element, attribute) slot, so that a loop's repeated
 * calls cost a few bytes before compression and almost none after.
 * Written by trace/isbenc.c from the XML any tool produces, read by the
 * trace library (trace/isb.c) without an XML parser. */
#ifndef ISLAND_ISB_H
#define ISLAND_ISB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ISB_MAGIC "\x89ISB\n"
#define ISB_MAGIC_LEN 5
#define ISB_VERSION 3	/* 2: RESET; 3: RECENT; a reader takes 1 and 2 too */

/* tokens */
enum {
	ISB_NAME = 1,	/* len, bytes: the next name's number */
	ISB_START,	/* element, nattr, (name, value) * nattr */
	ISB_AGAIN,	/* element, value * nattr of its last start */
	ISB_END,
	ISB_TEXT,	/* len, bytes */
	ISB_FINISH,	/* the stream's end */
	ISB_RESET,	/* names and slots forgotten (version 2) */
	ISB_LINK,	/* el, at, el1, at1, el2, at2: (el, at)'s base for
			 * DLINK, the sum of the other two's (version 3) */
};
#define ISB_EMPTY 0x80	/* on START and AGAIN: no END follows */

/* values */
enum {
	ISB_V_STR,	/* len, bytes */
	ISB_V_SAME,	/* the slot's last value */
	ISB_V_NUM,	/* zigzag mantissa, fraction digits */
	ISB_V_DSLOT,	/* zigzag delta to the slot's last number */
	ISB_V_DPREV,	/* zigzag delta to the element's previous value */
	ISB_V_RECENT,	/* + I (0 to ISB_MRU - 1): the slot's recent string I
			 * (version 3) */
};
#define ISB_MRU 16	/* a slot's recent strings */
/* zigzag delta to the slot's base, its LINK's (version 3) */
#define ISB_V_DLINK (ISB_V_RECENT + ISB_MRU)

/* What a reader accepts; a writer never exceeds them. */
#define ISB_MAXNAMES 4096
#define ISB_MAXNAME 256
#define ISB_MAXATTR 64
#define ISB_MAXLEN (16u << 20)	/* a value or a text */
#define ISB_MAXDEPTH 256
#define ISB_MAXSLOTS 65536	/* (element, attribute) pairs */
#define ISB_MAXDIGITS 18	/* a number's digits, all told */

/* A number's text: m * 10^-d with exactly d fraction digits, the
 * canonical form isbenc.c codes as a number. BUF has 24 bytes. */
static inline size_t isb_fmtnum(char *buf, int64_t m, int d)
{
	char tmp[24];
	uint64_t u = m < 0 ? -(uint64_t)m : (uint64_t)m;
	size_t n = 0, k = 0;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	while (n <= (size_t)d)
		tmp[n++] = '0';
	if (m < 0)
		buf[k++] = '-';
	while (n > (size_t)d)
		buf[k++] = tmp[--n];
	if (d) {
		buf[k++] = '.';
		while (n)
			buf[k++] = tmp[--n];
	}
	buf[k] = 0;
	return k;
}

/* The encoder: fed the XML text a tool writes, in pieces cut anywhere;
 * out() takes what it codes (0, or an errno). */
struct isbenc;
struct isbenc *isbenc_new(int (*out)(void *ctx, const void *p, size_t n), void *ctx);
/* 0, or an errno (EINVAL: XML it does not take) */
int isbenc_feed(struct isbenc *e, const char *p, size_t n);
/* the stream's end; 0, or an errno. Frees e. */
int isbenc_finish(struct isbenc *e);
void isbenc_free(struct isbenc *e);
/* A part of a stream (the capture's streaming: a thread's calls written
 * while the application runs), coded from nothing, inside DEPTH open
 * elements: no magic, no end mark; spliced into a stream between two
 * isbenc_reset()s. isbenc_part_end: 0, or an errno; frees e. */
struct isbenc *isbenc_part(int (*out)(void *ctx, const void *p, size_t n), void *ctx,
			   int depth);
int isbenc_part_end(struct isbenc *e);
/* A RESET token out, the names and slots forgotten: what follows is
 * coded as from nothing (before and after a part); 0, or an errno */
int isbenc_reset(struct isbenc *e);

/* An element given whole rather than as XML (the capture's calls):
 * each attribute a number M * 10^-D (written with D decimals), or text
 * as an XML attribute value has it (entities decoded), or as it is
 * (control characters but white space becoming '?', as in the XML
 * the writer would have written). Open elements are the XML's. */
enum { ISB_A_NUM, ISB_A_XML, ISB_A_PLAIN, ISB_A_RAW };
struct isb_attr {
	const char *name, *s;
	size_t nlen, len;
	int64_t m;
	int d, kind;
};
/* 0, or an errno */
int isbenc_element(struct isbenc *e, const char *name, int nattr,
		   const struct isb_attr *a, bool empty);

/* NAME, an element given whole before, once more: the same
 * attributes, with the same values but the numbers at POS[0..N)
 * (ascending; D decimals), which are M[0..N). The caller vouches for the
 * rest (what it gave last for NAME); it codes as isbenc_element would.
 * 0, or an errno (EINVAL: no such element to repeat). */
int isbenc_again(struct isbenc *e, const char *name, int n, const int *pos,
		 const int64_t *m, int d);

/* Whether a trace named PATH is written in this encoding: its name
 * ends in .isb, before any .gz or .zst. */
int isb_path(const char *path);

#endif
