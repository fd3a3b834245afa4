/* export --format xml | isb: the trace itself, element by element as the
 * reader gives it (validated), into the XML of docs/trace-format.md or
 * its binary encoding (docs/trace-binary.md): either way round, nothing
 * but comments and white space between elements is lost. One element a
 * line, so that the line numbers a reader prints for a binary trace are
 * the lines of its XML export. */
#include "analyze.h"
#include "trace/isbfmt.h"
#include "trace/xmlcopy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int to_stdout(void *ctx, const void *p, size_t n)
{
	(void)ctx;
	return fwrite(p, 1, n, stdout) == n ? 0 : errno ? errno : EIO;
}

static int to_isb(void *ctx, const void *p, size_t n)
{
	return isbenc_feed(ctx, p, n);
}

static void x_element(void *ctx, const char *name, int nattr,
		      const char *const *names, const char *const *values)
{
	xmlcopy_element(ctx, name, nattr, names, values);
}

static void x_text(void *ctx, const char *text, size_t len)
{
	xmlcopy_text(ctx, text, len);
}

static void x_end(void *ctx)
{
	xmlcopy_element_end(ctx);
}

int export_trace(const char *fmt, int argc, char **argv)
{
	static const struct trace_ops ops = {
		.element = x_element, .element_text = x_text, .element_end = x_end,
	};
	bool isb = !strcmp(fmt, "isb");
	struct trace_run run = { 0 };
	struct outfile *f = NULL;
	struct isbenc *enc = NULL;
	struct xmlcopy *w;
	const char *to = opt.output ? opt.output : "stdout";
	int err, r;

	if (argc != 1)
		die(2, "export --format %s: one trace at a time", fmt);
	if (opt.output && isb_path(opt.output) != isb)
		die(2, "export --format %s: %s: %s", fmt, opt.output, isb ?
		    "the binary encoding's name ends in .isb, .isb.gz or .isb.zst" :
		    "a name ending in .isb is the binary encoding (--format isb)");
	if (!opt.output && isb && isatty(STDOUT_FILENO))
		die(2, "export --format isb: standard output is a terminal; give -o FILE");
	if (opt.output && !(f = outfile_open(opt.output, compress_of(opt.output))))
		die(2, "%s: cannot write: %s", opt.output, strerror(errno));
	if (!opt.output && isb)
		enc = isbenc_new(to_stdout, NULL);
	w = f ? xmlcopy_new(f, NULL, NULL) : enc ? xmlcopy_new(NULL, to_isb, enc) :
		xmlcopy_new(NULL, to_stdout, NULL);
	xmlcopy_raw(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
	trace_read(&run, argv, argc, &ops, w);
	if (!f)
		xmlcopy_raw(w, "\n");	/* outfile_close ends the document with it */
	err = xmlcopy_free(w);
	if (enc) {
		r = err ? (isbenc_free(enc), err) : isbenc_finish(enc);
		if (r && !err)
			err = r;
	}
	if (f) {
		if (outfile_close(f, err) && !err)
			err = errno;
	} else if (fflush(stdout) && !err) {
		err = errno ? errno : EIO;
	}
	if (err)
		die(2, "%s: write error: %s", to, err == EINVAL ?
		    "not XML the binary encoding takes" : strerror(err));
	run_free(&run);
	return 0;
}
