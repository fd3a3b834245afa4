/*
 * --discover, last step: check that every node issued the same I/O
 * sequence in every pass, gather the WAITs the throttled passes found,
 * and write one trace: every node's unthrottled trace (its compute and
 * I/O), with <wait> before and <signal> after the I/Os they concern.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlwriter.h>

#include "capture.h"
#include "cluster.h"
#include "session.h"
#include "traceread.h"
#include "util.h"

struct mnode {
	char *file;
	struct cdep *waits, *signals;
	size_t nwaits, nsignals, cw, cs;
};

/* What must match between passes: the call, its resource class and the
 * file it named (the pass's scratch directory set aside); socket peers
 * differ from pass to pass (ports), so only their kind counts. */
static char *io_key(const char *what, const char *scratch)
{
	char api[64], res[32], target[4096] = "";

	sscanf(what, "%63s %31s %4095[^\n]", api, res, target);
	size_t sl = strlen(scratch);
	if (target[0] == '/' && !strncmp(target, scratch, sl))
		return xasprintf("%s %s ${SCRATCH}%s", api, res, target + sl);
	if (target[0] == '/')
		return xasprintf("%s %s %s", api, res, target);
	return xasprintf("%s %s", api, res);
}

static int load_pass(struct pass *p, const char *node, struct tr_node **all,
		     int *nall, struct tr_node **me)
{
	char *f = xasprintf("%s/%s.xml", p->dir, node);
	int rc = trace_scan(f, all, nall);

	if (rc == 0 && !(*me = trace_node(*all, *nall, node))) {
		warn_at(f, 0, "no node '%s'", node);
		rc = -1;
	}
	free(f);
	return rc;
}

static int check_same(const char *node, struct pass *base, struct tr_node *a,
		      struct pass *p, struct tr_node *b)
{
	size_t n = a->nio < b->nio ? a->nio : b->nio;

	for (size_t i = 0; i <= n; i++) {
		if (i == n) {
			if (a->nio == b->nio)
				return 0;
			warnx("node %s issued %zu I/Os in the %s pass and %zu in the %s pass: "
			      "the application's I/O is not deterministic", node, a->nio,
			      base->name, b->nio, p->name);
			return -1;
		}
		char *ka = io_key(a->io[i].what, base->scratch);
		char *kb = io_key(b->io[i].what, p->scratch);
		int same = !strcmp(ka, kb);
		if (!same)
			warnx("node %s: I/O %llu differs between the %s pass (%s) and the %s "
			      "pass (%s): the application's I/O is not deterministic", node,
			      (unsigned long long)a->io[i].seq, base->name, ka, p->name, kb);
		free(ka);
		free(kb);
		if (!same)
			return -1;
	}
	return 0;
}

static void copy_attrs(xmlTextReaderPtr r, xmlTextWriterPtr w)
{
	while (xmlTextReaderMoveToNextAttribute(r) == 1)
		xmlTextWriterWriteAttribute(w, xmlTextReaderConstName(r),
					    xmlTextReaderConstValue(r));
	xmlTextReaderMoveToElement(r);
}

static void write_deps(xmlTextWriterPtr w, struct cdep *d, size_t n, uint64_t seq,
		       int wait)
{
	for (size_t i = 0; i < n; i++) {
		if (d[i].seq != seq)
			continue;
		char num[32];
		xmlTextWriterWriteRaw(w, (const xmlChar *)"\n      ");
		xmlTextWriterStartElement(w, (const xmlChar *)(wait ? "wait" : "signal"));
		xmlTextWriterWriteAttribute(w, (const xmlChar *)"node", (xmlChar *)d[i].other);
		if (wait) {
			snprintf(num, sizeof(num), "%llu", (unsigned long long)d[i].oseq);
			xmlTextWriterWriteAttribute(w, (const xmlChar *)"seq", (xmlChar *)num);
		}
		xmlTextWriterEndElement(w);
	}
}

/* Copy a node's trace, without its <trace> root, inserting dependencies. */
static int copy_node(xmlTextWriterPtr w, struct mnode *m)
{
	xmlTextReaderPtr r = xmlReaderForFile(m->file, NULL, XML_PARSE_NONET | XML_PARSE_HUGE);
	int rc, depth = 0;

	if (!r)
		return -1;
	while ((rc = xmlTextReaderRead(r)) == 1) {
		int type = xmlTextReaderNodeType(r);
		const char *name = (const char *)xmlTextReaderConstName(r);
		if (type == XML_READER_TYPE_ELEMENT && !strcmp(name, "trace"))
			continue;
		if (type == XML_READER_TYPE_END_ELEMENT && !strcmp(name, "trace"))
			continue;
		if (type == XML_READER_TYPE_ELEMENT) {
			uint64_t seq = 0;
			if (!strcmp(name, "io")) {
				xmlChar *s = xmlTextReaderGetAttribute(r, (const xmlChar *)"seq");
				seq = s ? strtoull((char *)s, NULL, 10) : 0;
				xmlFree(s);
				if (seq)
					write_deps(w, m->waits, m->nwaits, seq, 1);
				if (seq)
					xmlTextWriterWriteRaw(w, (const xmlChar *)"\n      ");
			}
			int empty = xmlTextReaderIsEmptyElement(r);
			xmlTextWriterStartElement(w, (const xmlChar *)name);
			copy_attrs(r, w);
			if (empty) {
				xmlTextWriterEndElement(w);
				if (seq)
					write_deps(w, m->signals, m->nsignals, seq, 0);
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

/* The complete attribute of a trace's root. */
static int trace_complete(const char *file)
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

int discover_merge(struct cluster_opts *o, char **names, int n, struct pass *base,
		   struct pass **thr, int nthr)
{
	struct mnode *m = xcalloc((size_t)n, sizeof(*m));
	int rc = 0, complete = 1;
	size_t total = 0;

	for (int i = 0; i < n; i++)
		m[i].file = xasprintf("%s/%s.xml", base->dir, names[i]);
	/* same I/O everywhere, and the waits each throttled pass found */
	for (int i = 0; i < n && !rc; i++) {
		struct tr_node *ball, *bme;
		int bn;
		if (load_pass(base, names[i], &ball, &bn, &bme) < 0)
			return -1;
		for (int t = 0; t < nthr && !rc; t++) {
			struct tr_node *all, *me;
			int an;
			if (load_pass(thr[t], names[i], &all, &an, &me) < 0) {
				rc = -1;
				break;
			}
			if (check_same(names[i], base, bme, thr[t], me) < 0)
				rc = -1;
			for (size_t k = 0; !rc && k < me->nwaits; k++) {
				struct tr_wait *wt = &me->waits[k];
				int tn = -1;
				for (int j = 0; j < n; j++)
					if (!strcmp(names[j], wt->tnode))
						tn = j;
				if (tn < 0 || !wt->xseq)
					continue;
				XGROW(m[i].waits, m[i].cw, m[i].nwaits + 1);
				m[i].waits[m[i].nwaits++] = (struct cdep){ wt->xseq,
					xstrdup(wt->tnode), wt->tseq };
			}
			trace_scan_free(all, an);
		}
		trace_scan_free(ball, bn);
	}
	if (rc)
		return -1;
	/* the waits that stand (one per I/O and node waited for), and a
	 * signal for each of them on the other side */
	for (int i = 0; i < n; i++) {
		m[i].nwaits = cdep_normalise(m[i].waits, m[i].nwaits);
		total += m[i].nwaits;
		for (size_t k = 0; k < m[i].nwaits; k++) {
			struct cdep *w = &m[i].waits[k];
			for (int tn = 0; tn < n; tn++) {
				if (strcmp(names[tn], w->other))
					continue;
				XGROW(m[tn].signals, m[tn].cs, m[tn].nsignals + 1);
				m[tn].signals[m[tn].nsignals++] = (struct cdep){ w->oseq,
					xstrdup(names[i]), w->seq };
			}
		}
	}
	for (int i = 0; i < n; i++)
		m[i].nsignals = cdep_normalise(m[i].signals, m[i].nsignals);

	for (int i = 0; i < n; i++)
		if (!trace_complete(m[i].file))
			complete = 0;
	char *tmp = xasprintf("%s.tmp%d", o->output, (int)getpid());
	xmlTextWriterPtr w = xmlNewTextWriterFilename(tmp, o->gzip ? 6 : 0);
	if (!w)
		die(2, "%s: cannot create the trace:", tmp);
	xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL);
	xmlTextWriterStartElement(w, (const xmlChar *)"trace");
	xmlTextWriterWriteAttribute(w, (const xmlChar *)"version", (const xmlChar *)"1");
	xmlTextWriterWriteAttribute(w, (const xmlChar *)"generator",
				    (const xmlChar *)"island-capture " ISLAND_VERSION);
	xmlTextWriterWriteAttribute(w, (const xmlChar *)"complete",
				    (const xmlChar *)(complete ? "true" : "false"));
	for (int i = 0; i < n && !rc; i++) {
		xmlTextWriterWriteRaw(w, (const xmlChar *)"\n");
		rc = copy_node(w, &m[i]);
	}
	xmlTextWriterWriteRaw(w, (const xmlChar *)"\n");
	xmlTextWriterEndElement(w);
	if (xmlTextWriterEndDocument(w) < 0)
		rc = -1;
	xmlFreeTextWriter(w);
	if (rc || rename(tmp, o->output) < 0) {
		warnx("%s: cannot write the merged trace", o->output);
		unlink(tmp);
		return -1;
	}
	if (!complete)
		warnx("%s: some node's trace is incomplete", o->output);
	if (nthr)
		fprintf(stderr, "island-capture: %zu dependencies found\n", total);
	return 0;
}
