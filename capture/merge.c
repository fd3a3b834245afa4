/*
 * --discover, last step: check that every node issued the same I/O
 * sequence in every pass, gather the WAITs the throttled passes found,
 * and write one trace: every node's unthrottled trace (its compute and
 * I/O), with <wait> before and <signal> after the I/Os they concern.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlwriter.h>

#include "capture.h"
#include "cluster.h"
#include "session.h"
#include "zstdio.h"
#include "traceread.h"
#include "util.h"
#include "xmlcopy.h"

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

/* Copy file `from` to `to` (replacing it); 0 or -1 with errno. */
static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n = 0;
	int in = open(from, O_RDONLY | O_CLOEXEC), out, e;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (out < 0) {
		e = errno;
		close(in);
		errno = e;
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write_full(out, buf, (size_t)n) < 0) {
			n = -1;
			break;
		}
	e = errno;
	close(in);
	if (close(out) < 0 && n >= 0) {
		e = errno;
		n = -1;
	}
	errno = e;
	return n < 0 ? -1 : 0;
}

/* The nodes' packets (--pcap) go beside the merged trace, which names
 * them as NODE.pcap, as a one-node capture does: the passes' directory
 * is gone once the capture ends, unless kept. */
static int copy_pcaps(const struct pass *base, char **names, int n, const char *output)
{
	char *o = xstrdup(output), *dir = dirname(o);
	int rc = 0;

	for (int i = 0; i < n; i++) {
		char *from = xasprintf("%s/%s.pcap", base->dir, names[i]);
		char *to = xasprintf("%s/%s.pcap", dir, names[i]);
		char *rf = realpath(from, NULL), *rt = realpath(to, NULL);

		if (rf && !(rt && !strcmp(rf, rt)) && copy_file(from, to) < 0) {
			warnx("%s: cannot copy %s's packets: %s", to, names[i], strerror(errno));
			rc = -1;
		}
		free(rf);
		free(rt);
		free(from);
		free(to);
	}
	free(o);
	return rc;
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

static void write_deps(xmlTextWriterPtr w, struct cdep *d, size_t n, uint64_t seq,
		       int wait)
{
	for (size_t i = 0; seq && i < n; i++)
		if (d[i].seq == seq)
			xmlcopy_dep(w, wait, d[i].other, d[i].oseq);
}

static void before_io(void *ctx, xmlTextWriterPtr w, xmlTextReaderPtr r, const char *node)
{
	struct mnode *m = ctx;
	write_deps(w, m->waits, m->nwaits, xmlcopy_seq(r), 1);
}

static void after_io(void *ctx, xmlTextWriterPtr w, xmlTextReaderPtr r, const char *node)
{
	struct mnode *m = ctx;
	write_deps(w, m->signals, m->nsignals, xmlcopy_seq(r), 0);
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
		if (!xmlcopy_complete(m[i].file))
			complete = 0;
	struct outfile *f = xmlcopy_start(o->output, trace_compress_for(o->output, o->gzip),
					  "island-capture " ISLAND_VERSION, complete);
	if (!f)
		die(2, "%s: cannot create the trace:", o->output);
	for (int i = 0; i < n && !rc; i++) {
		struct xmlcopy_hooks h = { before_io, NULL, after_io, &m[i] };
		rc = xmlcopy_nodes(outfile_writer(f), m[i].file, &h);
	}
	if (xmlcopy_end(f, rc) < 0) {
		if (rc)
			warnx("%s: cannot write the merged trace", o->output);
		else
			warnx("%s: cannot write the merged trace:", o->output);
		return -1;
	}
	if (o->pcap && copy_pcaps(base, names, n, o->output) < 0)
		return -1;
	if (!complete)
		warnx("%s: some node's trace is incomplete", o->output);
	if (nthr)
		fprintf(stderr, "island-capture: %zu dependencies found\n", total);
	return 0;
}
