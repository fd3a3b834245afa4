/* The binary encoding read (trace/isb.c decodes it, trace/reader.h):
 * its elements made as XML's are, in a second thread when the file is
 * large (readpipe.c). */
#include "reader.h"
#include "util.h"
#include "zstdio.h"

#include "trace/isb.h"
#include "trace/isbfmt.h"

static long b_read(void *ctx, char *buf, size_t n)
{
	return rd_in_read(((struct reader *)ctx)->bin, buf, n);
}

static const char *b_intern(void *ctx, const char *name, size_t n)
{
	struct reader *rd = ctx;
	const xmlChar *p = xmlDictLookup(rd->dict, BAD_CAST name, (int)n);

	if (!p)
		die(70, "out of memory reading %s", rd->file);
	return (const char *)p;
}

static void b_start(void *ctx, const char *name, int nattr, const char *const *names,
		    const char *const *values, bool empty)
{
	struct reader *rd = ctx;
	el_fn fn = rd_el_open(rd, BAD_CAST name);

	if (fn || rd_raw(rd)) {
		if (nattr > TRACE_MAXATTR)
			rd_bad(rd, "<%s> has too many attributes", name);
		for (int i = 0; i < nattr; i++) {
			rd->aname[i] = names[i];
			rd->aval[i] = values[i];
		}
		rd_el_start(rd, BAD_CAST name, nattr, fn);
	}
	if (empty)
		rd_el_close(rd);
}

static void b_end(void *ctx)
{
	rd_el_close(ctx);
}

static void b_text(void *ctx, const char *p, size_t n)
{
	rd_on_text(ctx, p, n);
}

/* The binary file being read, freed by trace_read_try() when bad input
 * leaves it mid-stream. */
static _Thread_local struct reader *bin_active;

static void bin_free(struct reader *rd)
{
	isb_decode_abandon();
	if (rd->bin)
		xmlFreeParserInputBuffer(rd->bin);
	if (rd->dict)
		xmlDictFree(rd->dict);
	rd->bin = NULL;
	rd->dict = NULL;
}

/* die() while decoding: what the file's reading holds, freed (the reader
 * does not come back: exit, or trace_read_try's or a caller's longjmp) */
static void bin_abort(void)
{
	struct reader *rd = bin_active;

	die_cleanup = NULL;
	bin_active = NULL;
	if (rd)
		bin_free(rd);
}

static const struct isb_ops b_ops = {
	.read = b_read, .intern = b_intern, .start = b_start, .end = b_end,
	.text = b_text,
};

/* The file, when it is the binary encoding (IN is its decompressed
 * input, opened to look at its start). */
static void parse_binary(struct reader *rd, xmlParserInputBufferPtr in)
{
	char msg[256];
	const char *zerr;

	rd->bin = in;
	rd->dict = xmlDictCreate();
	if (!rd->dict)
		die(70, "out of memory reading %s", rd->file);
	rd_names_init(rd, rd->dict);
	rd_current = rd;
	bin_active = rd;
	die_cleanup = bin_abort;
	if (rd_piped_bin(rd->file) && rd_binary_piped(rd, bin_abort)) {
		/* done: read in a second thread */
	} else if (isb_decode(&b_ops, rd, &rd->rline, msg, sizeof(msg))) {
		if ((zerr = zstd_input_error()))
			die_at(2, rd->file, rd->rline, "%s", zerr);
		die_at(2, rd->file, rd->rline, "%s", msg);
	}
	if ((zerr = zstd_input_error()))
		die_at(2, rd->file, rd->rline, "%s", zerr);
	rd_current = NULL;
	die_cleanup = NULL;
	bin_active = NULL;
	bin_free(rd);
}

/* Read the file's (decompressed) start: the binary encoding is read
 * here, and true returned. */
bool rd_is_binary(struct reader *rd)
{
	xmlParserInputBufferPtr in;

	in = xmlParserInputBufferCreateFilename(rd->file, XML_CHAR_ENCODING_NONE);
	if (!in)
		return false;
	while (xmlBufUse(in->buffer) < ISB_MAGIC_LEN)
		if (xmlParserInputBufferRead(in, 4096) <= 0)
			break;
	if (!isb_magic((const char *)xmlBufContent(in->buffer), xmlBufUse(in->buffer))) {
		xmlFreeParserInputBuffer(in);
		(void)zstd_input_error();	/* the XML parser reads it again */
		return false;
	}
	parse_binary(rd, in);
	return true;
}

/* trace_read_abandon: the binary file being read, if any, freed */
void rd_bin_abandon(void)
{
	if (bin_active) {
		bin_free(bin_active);
		bin_active = NULL;
	}
}
