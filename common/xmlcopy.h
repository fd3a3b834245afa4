/* Copy the nodes of an Island trace into another trace, with hooks around
 * every <io>: how the causality engine's merge and the analyzer's
 * --annotate insert <wait> and <signal> elements. */
#ifndef ISLAND_XMLCOPY_H
#define ISLAND_XMLCOPY_H

#include <stdint.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlwriter.h>

#include "zstdio.h"
#include "outfile.h"

struct xmlcopy_hooks {
	/* before an <io> element: may write elements (xmlcopy_element) */
	void (*before_io)(void *ctx, xmlTextWriterPtr w, xmlTextReaderPtr r,
			  const char *node);
	/* inside the <io> start tag, after its attributes: may add some */
	void (*io_attrs)(void *ctx, xmlTextWriterPtr w, xmlTextReaderPtr r,
			 const char *node);
	/* after the <io> element */
	void (*after_io)(void *ctx, xmlTextWriterPtr w, xmlTextReaderPtr r,
			 const char *node);
	void *ctx;
	/* an attribute of <node>: the value to write instead, or NULL */
	const char *(*node_attr)(void *ctx, const char *name, const char *value);
};

/* Start a version 1 trace document, to be PATH once whole (outfile.h),
 * compressed as COMP; NULL with errno. */
struct outfile *xmlcopy_start(const char *path, enum trace_compress comp, const char *generator,
			      int complete);
/* Copy FILE's nodes (without its <trace> root); -1 on a read error. */
int xmlcopy_nodes(xmlTextWriterPtr w, const char *file, const struct xmlcopy_hooks *h);
/* Close the trace and put it in place; -1 with errno when anything could
 * not be written, or failed (the caller's own error: the file is removed). */
int xmlcopy_end(struct outfile *f, int failed);
/* A trace's complete attribute. */
int xmlcopy_complete(const char *file);
/* <wait node=OTHER seq=OSEQ/> before an <io> (wait = 1), or
 * <signal node=OTHER/> after it, indented as the io. */
void xmlcopy_dep(xmlTextWriterPtr w, int wait, const char *other, uint64_t oseq);
/* The current <io>'s seq attribute, 0 without one. */
uint64_t xmlcopy_seq(xmlTextReaderPtr r);

#endif
