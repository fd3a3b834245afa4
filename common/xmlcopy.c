#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmlcopy.h"

struct outfile *xmlcopy_start(const char *path, enum trace_compress comp, const char *generator,
			      int complete)
{
	struct outfile *f = outfile_open(path, comp);
	xmlTextWriterPtr w;

	if (!f)
		return NULL;
	w = outfile_writer(f);
	xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL);
	xmlTextWriterStartElement(w, (const xmlChar *)"trace");
	xmlTextWriterWriteAttribute(w, (const xmlChar *)"version", (const xmlChar *)"1");
	xmlTextWriterWriteAttribute(w, (const xmlChar *)"generator",
				    (const xmlChar *)generator);
	xmlTextWriterWriteAttribute(w, (const xmlChar *)"complete",
				    (const xmlChar *)(complete ? "true" : "false"));
	return f;
}

int xmlcopy_end(struct outfile *f, int failed)
{
	xmlTextWriterPtr w = outfile_writer(f);

	xmlTextWriterWriteRaw(w, (const xmlChar *)"\n");
	xmlTextWriterEndElement(w);
	return outfile_close(f, failed);
}

/* Before an io the indentation is already written: the element takes its
 * own after it; after an io, before it. */
void xmlcopy_dep(xmlTextWriterPtr w, int wait, const char *other, uint64_t oseq)
{
	char num[32];

	if (!wait)
		xmlTextWriterWriteRaw(w, (const xmlChar *)"\n      ");
	xmlTextWriterStartElement(w, (const xmlChar *)(wait ? "wait" : "signal"));
	xmlTextWriterWriteAttribute(w, (const xmlChar *)"node", (const xmlChar *)other);
	if (wait) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)oseq);
		xmlTextWriterWriteAttribute(w, (const xmlChar *)"seq", (const xmlChar *)num);
	}
	xmlTextWriterEndElement(w);
	if (wait)
		xmlTextWriterWriteRaw(w, (const xmlChar *)"\n      ");
}

uint64_t xmlcopy_seq(xmlTextReaderPtr r)
{
	xmlChar *s = xmlTextReaderGetAttribute(r, (const xmlChar *)"seq");
	uint64_t seq = s ? strtoull((char *)s, NULL, 10) : 0;

	xmlFree(s);
	return seq;
}

int xmlcopy_complete(const char *file)
{
	xmlTextReaderPtr r = xmlReaderForFile(file, NULL, XML_PARSE_NONET);
	int complete = 1;

	while (r && xmlTextReaderRead(r) == 1) {
		if (xmlTextReaderNodeType(r) != XML_READER_TYPE_ELEMENT)
			continue;
		xmlChar *c = xmlTextReaderGetAttribute(r, (const xmlChar *)"complete");
		complete = !(c && !strcmp((char *)c, "false"));
		xmlFree(c);
		break;
	}
	xmlFreeTextReader(r);
	return complete;
}

int xmlcopy_nodes(xmlTextWriterPtr w, const char *file, const struct xmlcopy_hooks *h)
{
	xmlTextReaderPtr r = xmlReaderForFile(file, NULL, XML_PARSE_NONET | XML_PARSE_HUGE);
	char node[256] = "";
	int rc, depth = 0;

	if (!r)
		return -1;
	xmlTextWriterWriteRaw(w, (const xmlChar *)"\n");
	while ((rc = xmlTextReaderRead(r)) == 1) {
		int type = xmlTextReaderNodeType(r);
		const char *name = (const char *)xmlTextReaderConstName(r);
		if (!strcmp(name, "trace") && (type == XML_READER_TYPE_ELEMENT ||
					       type == XML_READER_TYPE_END_ELEMENT))
			continue;
		if (type == XML_READER_TYPE_ELEMENT) {
			int io = !strcmp(name, "io"), empty = xmlTextReaderIsEmptyElement(r);
			if (!strcmp(name, "node")) {
				xmlChar *n = xmlTextReaderGetAttribute(r, (const xmlChar *)"name");
				snprintf(node, sizeof(node), "%s", n ? (char *)n : "");
				xmlFree(n);
			}
			if (io && h && h->before_io)
				h->before_io(h->ctx, w, r, node);
			xmlTextWriterStartElement(w, (const xmlChar *)name);
			int nd = !strcmp(name, "node") && h && h->node_attr;
			while (xmlTextReaderMoveToNextAttribute(r) == 1) {
				const xmlChar *an = xmlTextReaderConstName(r);
				const char *v = nd ? h->node_attr(h->ctx, (const char *)an,
						(const char *)xmlTextReaderConstValue(r)) : NULL;
				xmlTextWriterWriteAttribute(w, an, v ? (const xmlChar *)v :
							    xmlTextReaderConstValue(r));
			}
			xmlTextReaderMoveToElement(r);
			if (io && h && h->io_attrs)
				h->io_attrs(h->ctx, w, r, node);
			if (empty) {
				xmlTextWriterEndElement(w);
				if (io && h && h->after_io)
					h->after_io(h->ctx, w, r, node);
			} else {
				depth++;
			}
		} else if (type == XML_READER_TYPE_END_ELEMENT) {
			xmlTextWriterEndElement(w);
			depth--;
		} else if (type == XML_READER_TYPE_TEXT) {
			xmlTextWriterWriteString(w, xmlTextReaderConstValue(r));
		} else if ((type == XML_READER_TYPE_SIGNIFICANT_WHITESPACE ||
			    type == XML_READER_TYPE_WHITESPACE) && depth > 0) {
			xmlTextWriterWriteRaw(w, xmlTextReaderConstValue(r));
		}
	}
	xmlFreeTextReader(r);
	return rc < 0 ? -1 : 0;
}
