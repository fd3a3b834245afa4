/* export --format xml | isb: the trace itself, element by element as the
 * reader gives it (validated), into the XML of docs/trace-format.md or
 * its binary encoding (docs/trace-binary.md): either way round, nothing
 * but comments and white space between elements is lost. One element a
 * line, so that the line numbers a reader prints for a binary trace are
 * the lines of its XML export. */
#include "analyze.h"
#include "outfile.h"
#include "isb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XBUF (64u << 10)

struct xo {
	struct outfile *f;	/* -o */
	struct isbenc *enc;	/* --format isb to stdout */
	int err;
	int depth;
	const char *names[256];
	bool kids[256];
	bool open;		/* the last start tag's '>' not yet written */
	char *b;
	size_t n, cap;
};

static int to_stdout(void *ctx, const void *p, size_t n)
{
	return fwrite(p, 1, n, stdout) == n ? 0 : errno ? errno : EIO;
}

static void x_flush(struct xo *x)
{
	int r = 0;

	if (!x->n || x->err)
		return;
	if (x->f)
		r = outfile_write(x->f, x->b, x->n) ? errno : 0;
	else if (x->enc)
		r = isbenc_feed(x->enc, x->b, x->n);
	else
		r = to_stdout(NULL, x->b, x->n);
	if (r)
		x->err = r;
	x->n = 0;
}

static void x_put(struct xo *x, const char *p, size_t n)
{
	if (x->n + n > x->cap) {
		x_flush(x);
		if (n > x->cap) {
			x->cap = n;
			x->b = xrealloc(x->b, x->cap);
		}
	}
	memcpy(x->b + x->n, p, n);
	x->n += n;
}

static void x_str(struct xo *x, const char *s)
{
	x_put(x, s, strlen(s));
}

/* TEXT escaped for an attribute (quoted) or for content; line ends as
 * references either way, so that an element stays on its line */
static void x_escaped(struct xo *x, const char *p, size_t n, bool attr)
{
	size_t run = 0;

	for (size_t i = 0; i < n; i++) {
		const char *rep;

		switch (p[i]) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = attr ? "&quot;" : NULL; break;
		case '\n': rep = "&#10;"; break;
		case '\r': rep = "&#13;"; break;
		case '\t': rep = attr ? "&#9;" : NULL; break;
		default: rep = NULL;
		}
		if (!rep)
			continue;
		x_put(x, p + run, i - run);
		x_str(x, rep);
		run = i + 1;
	}
	x_put(x, p + run, n - run);
}

static void close_open(struct xo *x)
{
	if (x->open) {
		x_put(x, ">", 1);
		x->open = false;
	}
}

static void newline(struct xo *x, int depth)
{
	static const char spaces[] = "                                ";

	x_put(x, "\n", 1);
	for (int d = 2 * depth; d > 0; d -= 32)
		x_put(x, spaces, d < 32 ? (size_t)d : 32);
}

static void x_element(void *ctx, const char *name, int nattr,
		      const char *const *names, const char *const *values)
{
	struct xo *x = ctx;

	close_open(x);
	if (x->depth)
		x->kids[x->depth - 1] = true;
	if (x->depth == (int)(sizeof(x->names) / sizeof(x->names[0])))
		die(2, "export: elements nested too deep");
	newline(x, x->depth);
	x_put(x, "<", 1);
	x_str(x, name);
	for (int i = 0; i < nattr; i++) {
		x_put(x, " ", 1);
		x_str(x, names[i]);
		x_put(x, "=\"", 2);
		x_escaped(x, values[i], strlen(values[i]), true);
		x_put(x, "\"", 1);
	}
	x->names[x->depth] = name;
	x->kids[x->depth] = false;
	x->depth++;
	x->open = true;
}

static void x_text(void *ctx, const char *text, size_t len)
{
	struct xo *x = ctx;

	close_open(x);
	x_escaped(x, text, len, false);
}

static void x_end(void *ctx)
{
	struct xo *x = ctx;

	x->depth--;
	if (x->open) {
		x_put(x, "/>", 2);
		x->open = false;
		return;
	}
	if (x->kids[x->depth])
		newline(x, x->depth);
	x_put(x, "</", 2);
	x_str(x, x->names[x->depth]);
	x_put(x, ">", 1);
}

int export_trace(const char *fmt, int argc, char **argv)
{
	static const struct trace_ops ops = {
		.element = x_element, .element_text = x_text, .element_end = x_end,
	};
	bool isb = !strcmp(fmt, "isb");
	struct trace_run run = { 0 };
	struct xo x = { 0 };
	const char *to = opt.output ? opt.output : "stdout";

	if (argc != 1)
		die(2, "export --format %s: one trace at a time", fmt);
	if (opt.output && isb_path(opt.output) != isb)
		die(2, "export --format %s: %s: %s", fmt, opt.output, isb ?
		    "the binary encoding's name ends in .isb, .isb.gz or .isb.zst" :
		    "a name ending in .isb is the binary encoding (--format isb)");
	if (!opt.output && isb && isatty(STDOUT_FILENO))
		die(2, "export --format isb: standard output is a terminal; give -o FILE");
	x.cap = XBUF;
	x.b = xmalloc(x.cap);
	if (opt.output && !(x.f = outfile_open(opt.output, trace_compress_of(opt.output))))
		die(2, "%s: cannot write: %s", opt.output, strerror(errno));
	if (!opt.output && isb)
		x.enc = isbenc_new(to_stdout, NULL);
	x_str(&x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
	trace_read(&run, argv, argc, &ops, &x);
	if (!x.f)
		x_put(&x, "\n", 1);	/* outfile_close ends the document with it */
	x_flush(&x);
	if (x.enc) {
		int r = x.err ? (isbenc_free(x.enc), x.err) : isbenc_finish(x.enc);

		if (r && !x.err)
			x.err = r;
	}
	if (x.f) {
		if (outfile_close(x.f, x.err) && !x.err)
			x.err = errno;
	} else if (fflush(stdout) && !x.err) {
		x.err = errno ? errno : EIO;
	}
	if (x.err)
		die(2, "%s: write error: %s", to, x.err == EINVAL ?
		    "not XML the binary encoding takes" : strerror(x.err));
	free(x.b);
	run_free(&run);
	return 0;
}
