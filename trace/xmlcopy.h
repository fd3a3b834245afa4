/* A trace's elements written back as XML (docs/trace-format.md), one
 * element a line: island-analyze export's writer, and the copy of the
 * nodes of Island traces into another trace, read through the trace
 * library (any encoding it reads), with hooks around every <io>: how
 * merge joins traces, and how the causality engine's merge and
 * deps --annotate insert <wait> and <signal> elements. */
#ifndef ISLAND_XMLCOPY_H
#define ISLAND_XMLCOPY_H

#include <stddef.h>
#include <stdint.h>

#include "zstdio.h"
#include "trace/outfile.h"

struct xmlcopy;

/* A writer into F (outfile_write), or with F NULL into SINK (0, or an
 * errno: later writes are dropped and xmlcopy_free returns it). */
struct xmlcopy *xmlcopy_new(struct outfile *f, int (*sink)(void *arg, const void *p, size_t n),
			    void *arg);
/* Bytes as they are (the XML declaration). */
void xmlcopy_raw(struct xmlcopy *w, const char *s);
/* A start tag on a line of its own, left open for xmlcopy_attr. NAME
 * stays valid until its end (a literal, or the reader's name). */
void xmlcopy_element(struct xmlcopy *w, const char *name, int nattr,
		     const char *const *names, const char *const *values);
/* One more attribute in the start tag just written. */
void xmlcopy_attr(struct xmlcopy *w, const char *name, const char *value);
/* Text inside the element open, escaped. */
void xmlcopy_text(struct xmlcopy *w, const char *text, size_t len);
/* The end of the element open last (<x/> when it had nothing). */
void xmlcopy_element_end(struct xmlcopy *w);
/* What is buffered written out; frees w. The first failure's errno (an
 * outfile's write, or the sink's), or 0. */
int xmlcopy_free(struct xmlcopy *w);

/* One <io> of the trace copied: its attributes as read. */
struct xmlcopy_io {
	int nattr;
	const char *const *names, *const *values;
};
/* Its attribute NAME, or NULL. */
const char *xmlcopy_io_attr(const struct xmlcopy_io *io, const char *name);
/* Its seq attribute, 0 without one. */
uint64_t xmlcopy_seq(const struct xmlcopy_io *io);

struct xmlcopy_hooks {
	/* before an <io> element: may write elements (xmlcopy_dep) */
	void (*before_io)(void *ctx, struct xmlcopy *w, const struct xmlcopy_io *io,
			  const char *node);
	/* inside the <io> start tag, after its attributes: may add some
	 * (xmlcopy_attr) */
	void (*io_attrs)(void *ctx, struct xmlcopy *w, const struct xmlcopy_io *io,
			 const char *node);
	/* after the <io> element */
	void (*after_io)(void *ctx, struct xmlcopy *w, const struct xmlcopy_io *io,
			 const char *node);
	void *ctx;
	/* an attribute of <node>: the value to write instead, or NULL */
	const char *(*node_attr)(void *ctx, const char *name, const char *value);
};

/* Start a version 1 trace document, to be PATH once whole (outfile.h),
 * compressed as COMP (and in the binary encoding by PATH's name); its
 * <trace> start tag left open for xmlcopy_attr. NULL with errno. */
struct xmlcopy *xmlcopy_start(const char *path, enum compress comp, const char *generator,
			      int complete);
/* Copy FILE's nodes (without its <trace> root) through the trace
 * library's reader; -1 on bad input (its FILE:LINE line printed). */
int xmlcopy_nodes(struct xmlcopy *w, const char *file, const struct xmlcopy_hooks *h);
/* Close the trace and put it in place; -1 with errno when anything could
 * not be written, or failed (the caller's own error: the file is
 * removed). Frees w. */
int xmlcopy_end(struct xmlcopy *w, int failed);
/* <wait node=OTHER seq=OSEQ/> (wait = 1) or <signal node=OTHER/>, in
 * the element open. */
void xmlcopy_dep(struct xmlcopy *w, int wait, const char *other, uint64_t oseq);
/* ... with what it rests on (origin="message|group|single", certain="no"),
 * each left out when NULL */
void xmlcopy_dep_why(struct xmlcopy *w, int wait, const char *other, uint64_t oseq,
		     const char *origin, const char *certain);

#endif
