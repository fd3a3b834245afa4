#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "island-trace.h"
#include "util.h"
#include "trace/xmlcopy.h"

#define XBUF     (64u << 10)
#define MAXDEPTH 256

struct xmlcopy {
	struct outfile *f;
	int (*sink)(void *, const void *, size_t);
	void *arg;
	int err;
	int depth;
	const char *names[MAXDEPTH];
	bool kids[MAXDEPTH];
	bool open;		/* the last start tag's '>' not yet written */
	char *b;
	size_t n, cap;
};

struct xmlcopy *xmlcopy_new(struct outfile *f, int (*sink)(void *arg, const void *p, size_t n),
			    void *arg)
{
	struct xmlcopy *w = xcalloc(1, sizeof(*w));

	w->f = f;
	w->sink = sink;
	w->arg = arg;
	w->cap = XBUF;
	w->b = xmalloc(w->cap);
	return w;
}

static void flush(struct xmlcopy *w)
{
	int r;

	if (!w->n || w->err)
		return;
	if (w->f)
		r = outfile_write(w->f, w->b, w->n) ? errno ? errno : EIO : 0;
	else
		r = w->sink(w->arg, w->b, w->n);
	if (r)
		w->err = r;
	w->n = 0;
}

static void put(struct xmlcopy *w, const char *p, size_t n)
{
	if (w->n + n > w->cap) {
		flush(w);
		if (n > w->cap) {
			w->cap = n;
			w->b = xrealloc(w->b, w->cap);
		}
	}
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

static void put_str(struct xmlcopy *w, const char *s)
{
	put(w, s, strlen(s));
}

void xmlcopy_raw(struct xmlcopy *w, const char *s)
{
	put_str(w, s);
}

/* TEXT escaped for an attribute (quoted) or for content; line ends as
 * references either way, so that an element stays on its line */
static void escaped(struct xmlcopy *w, const char *p, size_t n, bool attr)
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
		put(w, p + run, i - run);
		put_str(w, rep);
		run = i + 1;
	}
	put(w, p + run, n - run);
}

static void close_open(struct xmlcopy *w)
{
	if (w->open) {
		put(w, ">", 1);
		w->open = false;
	}
}

static void newline(struct xmlcopy *w, int depth)
{
	static const char spaces[] = "                                ";

	put(w, "\n", 1);
	for (int d = 2 * depth; d > 0; d -= 32)
		put(w, spaces, d < 32 ? (size_t)d : 32);
}

void xmlcopy_attr(struct xmlcopy *w, const char *name, const char *value)
{
	put(w, " ", 1);
	put_str(w, name);
	put(w, "=\"", 2);
	escaped(w, value, strlen(value), true);
	put(w, "\"", 1);
}

void xmlcopy_element(struct xmlcopy *w, const char *name, int nattr,
		     const char *const *names, const char *const *values)
{
	close_open(w);
	if (w->depth)
		w->kids[w->depth - 1] = true;
	if (w->depth == MAXDEPTH)
		die(2, "elements nested too deep");
	newline(w, w->depth);
	put(w, "<", 1);
	put_str(w, name);
	for (int i = 0; i < nattr; i++)
		xmlcopy_attr(w, names[i], values[i]);
	w->names[w->depth] = name;
	w->kids[w->depth] = false;
	w->depth++;
	w->open = true;
}

void xmlcopy_text(struct xmlcopy *w, const char *text, size_t len)
{
	close_open(w);
	escaped(w, text, len, false);
}

void xmlcopy_element_end(struct xmlcopy *w)
{
	w->depth--;
	if (w->open) {
		put(w, "/>", 2);
		w->open = false;
		return;
	}
	if (w->kids[w->depth])
		newline(w, w->depth);
	put(w, "</", 2);
	put_str(w, w->names[w->depth]);
	put(w, ">", 1);
}

int xmlcopy_free(struct xmlcopy *w)
{
	int err;

	flush(w);
	err = w->err;
	free(w->b);
	free(w);
	return err;
}

/* --- the copy of traces ------------------------------------------------ */

const char *xmlcopy_io_attr(const struct xmlcopy_io *io, const char *name)
{
	for (int i = 0; i < io->nattr; i++)
		if (!strcmp(io->names[i], name))
			return io->values[i];
	return NULL;
}

uint64_t xmlcopy_seq(const struct xmlcopy_io *io)
{
	const char *s = xmlcopy_io_attr(io, "seq");

	return s ? strtoull(s, NULL, 10) : 0;
}

struct copy {
	struct xmlcopy *w;
	const struct xmlcopy_hooks *h;
	int depth;		/* in the file read: its <trace> is 1 */
	int io_depth;		/* the <io> open, after_io due at its end; 0 none */
	char node[256];
	/* that <io>'s attributes, kept for after_io */
	struct xmlcopy_io io;
	const char *inames[TRACE_MAXATTR], *ivalues[TRACE_MAXATTR];
	char *ibuf;
	size_t icap;
};

/* An <io>'s attributes copied: the reader's are its callback's only */
static void keep_io(struct copy *c, int nattr, const char *const *names,
		    const char *const *values)
{
	size_t need = 0, at = 0;

	for (int i = 0; i < nattr; i++)
		need += strlen(values[i]) + 1;
	XGROW(c->ibuf, c->icap, need);
	for (int i = 0; i < nattr && i < TRACE_MAXATTR; i++) {
		size_t k = strlen(values[i]) + 1;

		memcpy(c->ibuf + at, values[i], k);
		c->inames[i] = names[i];	/* the reader's names: for the file */
		c->ivalues[i] = c->ibuf + at;
		at += k;
	}
	c->io = (struct xmlcopy_io){ nattr, c->inames, c->ivalues };
}

static void c_element(void *ctx, const char *name, int nattr,
		      const char *const *names, const char *const *values)
{
	struct copy *c = ctx;
	const struct xmlcopy_hooks *h = c->h;

	if (c->depth++ == 0)
		return;		/* the file's <trace>: the copy has its own */
	if (!strcmp(name, "node")) {
		const char *v[TRACE_MAXATTR];

		for (int i = 0; i < nattr; i++) {
			if (!strcmp(names[i], "name"))
				snprintf(c->node, sizeof(c->node), "%s", values[i]);
			v[i] = h && h->node_attr ? h->node_attr(h->ctx, names[i], values[i]) : NULL;
			if (!v[i])
				v[i] = values[i];
		}
		xmlcopy_element(c->w, name, nattr, names, v);
		return;
	}
	if (!h || strcmp(name, "io")) {
		xmlcopy_element(c->w, name, nattr, names, values);
		return;
	}
	struct xmlcopy_io io = { nattr, names, values };

	if (h->before_io)
		h->before_io(h->ctx, c->w, &io, c->node);
	xmlcopy_element(c->w, name, nattr, names, values);
	if (h->io_attrs)
		h->io_attrs(h->ctx, c->w, &io, c->node);
	if (h->after_io && !c->io_depth) {
		keep_io(c, nattr, names, values);
		c->io_depth = c->depth;
	}
}

static void c_text(void *ctx, const char *text, size_t len)
{
	struct copy *c = ctx;

	if (c->depth > 1)
		xmlcopy_text(c->w, text, len);
}

static void c_end(void *ctx)
{
	struct copy *c = ctx;

	if (c->depth-- == 1)
		return;
	xmlcopy_element_end(c->w);
	if (c->io_depth == c->depth + 1) {
		c->io_depth = 0;
		c->h->after_io(c->h->ctx, c->w, &c->io, c->node);
	}
}

int xmlcopy_nodes(struct xmlcopy *w, const char *file, const struct xmlcopy_hooks *h)
{
	static const struct trace_ops ops = {
		.element = c_element, .element_text = c_text, .element_end = c_end,
	};
	struct trace_run run = { 0 };
	struct copy c = { .w = w, .h = h };
	char *files[1] = { (char *)file };
	int rc = trace_read_try(&run, files, 1, &ops, &c);

	trace_run_free(&run);
	free(c.ibuf);
	return rc;
}

struct xmlcopy *xmlcopy_start(const char *path, enum compress comp, const char *generator,
			      int complete)
{
	static const char *const names[] = { "version", "generator", "complete" };
	const char *values[] = { "1", generator, complete ? "true" : "false" };
	struct outfile *f = outfile_open(path, comp);
	struct xmlcopy *w;

	if (!f)
		return NULL;
	w = xmlcopy_new(f, NULL, NULL);
	xmlcopy_raw(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
	xmlcopy_element(w, "trace", 3, names, values);
	return w;
}

int xmlcopy_end(struct xmlcopy *w, int failed)
{
	struct outfile *f = w->f;
	int err;

	while (w->depth)
		xmlcopy_element_end(w);
	err = xmlcopy_free(w);
	if (outfile_close(f, failed || err) < 0 || err) {
		if (err)
			errno = err;
		return -1;
	}
	return 0;
}

void xmlcopy_dep(struct xmlcopy *w, int wait, const char *other, uint64_t oseq)
{
	xmlcopy_dep_why(w, wait, other, oseq, NULL, NULL);
}

void xmlcopy_dep_why(struct xmlcopy *w, int wait, const char *other, uint64_t oseq,
		     const char *origin, const char *certain)
{
	const char *names[4] = { "node", "seq" };
	char num[32];
	const char *values[4] = { other, num };
	int k = wait ? 2 : 1;

	snprintf(num, sizeof(num), "%llu", (unsigned long long)oseq);
	if (origin) {
		names[k] = "origin";
		values[k++] = origin;
	}
	if (certain) {
		names[k] = "certain";
		values[k++] = certain;
	}
	xmlcopy_element(w, wait ? "wait" : "signal", k, names, values);
	xmlcopy_element_end(w);
}
