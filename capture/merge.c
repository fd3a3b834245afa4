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
	const struct tr_node *base;  /* its unthrottled trace, polling marked */
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

/* One pass's traces, a node each, I/Os in number order; and per node the
 * numbers of its I/Os that are not polling, in order: passes are compared
 * on these, and a wait found in a pass is moved onto them. */
struct ptraces {
	struct tr_node **me;         /* per node */
	struct tr_node **all;
	int *nall;
	uint64_t **kept;             /* per node: seq of the unmarked I/Os */
	size_t *nkept;
};

static int load_pass(struct pass *p, char **names, int n, struct ptraces *t)
{
	t->me = xcalloc((size_t)n, sizeof(*t->me));
	t->all = xcalloc((size_t)n, sizeof(*t->all));
	t->nall = xcalloc((size_t)n, sizeof(*t->nall));
	t->kept = xcalloc((size_t)n, sizeof(*t->kept));
	t->nkept = xcalloc((size_t)n, sizeof(*t->nkept));
	for (int i = 0; i < n; i++) {
		char *f = xasprintf("%s/%s.xml", p->dir, names[i]);
		int rc = trace_scan(f, &t->all[i], &t->nall[i]);

		if (rc == 0 && !(t->me[i] = trace_node(t->all[i], t->nall[i], names[i]))) {
			warn_at(f, 0, "no node '%s'", names[i]);
			rc = -1;
		}
		free(f);
		if (rc < 0)
			return -1;
		struct tr_node *m = t->me[i];
		t->kept[i] = xcalloc(m->nio + 1, sizeof(uint64_t));
		for (size_t k = 0; k < m->nio; k++)
			if (!m->io[k].poll)
				t->kept[i][t->nkept[i]++] = m->io[k].seq;
	}
	return 0;
}

static void free_pass(struct ptraces *t, int n)
{
	for (int i = 0; t->all && i < n; i++) {
		trace_scan_free(t->all[i], t->nall[i]);
		free(t->kept[i]);
	}
	free(t->me);
	free(t->all);
	free(t->nall);
	free(t->kept);
	free(t->nkept);
}

/* Index among the unmarked I/Os: of the first with a number >= seq (up),
 * or of the last with a number <= seq; -1 when there is none. */
static long kept_index(const uint64_t *kept, size_t n, uint64_t seq, int up)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {                    /* first with kept >= seq */
		size_t mid = (lo + hi) / 2;
		if (kept[mid] < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (up)
		return lo < n ? (long)lo : -1;
	if (lo < n && kept[lo] == seq)
		return (long)lo;
	return lo > 0 ? (long)lo - 1 : -1;
}

static const struct tr_io *io_of(const struct tr_node *m, uint64_t seq)
{
	size_t lo = 0, hi = m->nio;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->io[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nio && m->io[lo].seq == seq ? &m->io[lo] : NULL;
}

/* The same I/O, polling set aside, in both passes. */
static int check_same(const char *node, struct pass *base, const struct tr_node *a,
		      const uint64_t *ka_seq, size_t na, struct pass *p,
		      const struct tr_node *b, const uint64_t *kb_seq, size_t nb)
{
	size_t n = na < nb ? na : nb;

	for (size_t i = 0; i <= n; i++) {
		if (i == n) {
			if (na == nb)
				return 0;
			warnx("node %s issued %zu I/Os (polling set aside) in the %s pass and "
			      "%zu in the %s pass: the application's I/O is not deterministic",
			      node, na, base->name, nb, p->name);
			return -1;
		}
		char *ka = io_key(io_of(a, ka_seq[i])->what, base->scratch);
		char *kb = io_key(io_of(b, kb_seq[i])->what, p->scratch);
		int same = !strcmp(ka, kb);
		if (!same)
			warnx("node %s: I/O %llu differs between the %s pass (%s) and the %s "
			      "pass (I/O %llu, %s): the application's I/O is not deterministic",
			      node, (unsigned long long)ka_seq[i], base->name, ka, p->name,
			      (unsigned long long)kb_seq[i], kb);
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

/* poll="..." on the I/Os set aside as polling */
static void io_attrs(void *ctx, xmlTextWriterPtr w, xmlTextReaderPtr r, const char *node)
{
	struct mnode *m = ctx;
	uint64_t seq = xmlcopy_seq(r);
	const struct tr_io *io = seq && m->base ? io_of(m->base, seq) : NULL;

	if (io && io->poll)
		xmlTextWriterWriteAttribute(w, BAD_CAST "poll", BAD_CAST polling_name(io->poll));
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
	/* same I/O everywhere (polling set aside), and the waits each
	 * throttled pass found, moved onto the base pass's numbers: the
	 * waiting side onto its next I/O that is not polling, the side
	 * waited for onto its last one (both weaker than what was seen) */
	struct ptraces bt = { 0 };
	if (load_pass(base, names, n, &bt) < 0)
		rc = -1;
	for (int t = 0; t < nthr && !rc; t++) {
		struct ptraces pt = { 0 };
		if (load_pass(thr[t], names, n, &pt) < 0)
			rc = -1;
		for (int i = 0; i < n && !rc; i++)
			rc = check_same(names[i], base, bt.me[i], bt.kept[i], bt.nkept[i],
					thr[t], pt.me[i], pt.kept[i], pt.nkept[i]);
		for (int i = 0; i < n && !rc; i++) {
			struct tr_node *me = pt.me[i];
			for (size_t k = 0; k < me->nwaits; k++) {
				struct tr_wait *wt = &me->waits[k];
				int tn = -1;
				for (int j = 0; j < n; j++)
					if (!strcmp(names[j], wt->tnode))
						tn = j;
				if (tn < 0 || tn == i || !wt->xseq)
					continue;
				long x = kept_index(pt.kept[i], pt.nkept[i], wt->xseq, 1);
				long y = kept_index(pt.kept[tn], pt.nkept[tn], wt->tseq, 0);
				if (x < 0 || y < 0)
					continue;    /* nothing left to wait, or for */
				XGROW(m[i].waits, m[i].cw, m[i].nwaits + 1);
				m[i].waits[m[i].nwaits++] = (struct cdep){ bt.kept[i][x],
					xstrdup(wt->tnode), bt.kept[tn][y] };
			}
		}
		free_pass(&pt, n);
	}
	if (rc) {
		free_pass(&bt, n);
		return -1;
	}
	for (int i = 0; i < n; i++)
		m[i].base = bt.me[i];
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
		struct xmlcopy_hooks h = { before_io, io_attrs, after_io, &m[i] };
		rc = xmlcopy_nodes(outfile_writer(f), m[i].file, &h);
	}
	free_pass(&bt, n);
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
