/* report -o FILE.html: the page users open first, one self-contained
 * file (styles and SVG inline, no fetch, a few lines of plain script to
 * sort the tables): the run, where the time went per node, the I/O
 * heatmap, the files and calls that took the time, the access patterns,
 * the waits between nodes, the top functions of a profile, the replay's
 * durations beside the original's.
 * Its numbers are the reports' own: summary, consumption, heatmap,
 * files, calls, access and deps run side by side in one reading
 * (read_passes) and hand their tables here (table_set_sink) as --csv
 * would print them; the page only adds their rows up per node (integers:
 * exact). Every string from a trace is escaped. Memory: the reports'. */
#include "analyze.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


const char *html_replay;	/* --replay FILE: island-replay's --report */

enum { T_SUMMARY, T_CONS, T_HEAT, T_FILES, T_CALLS, T_ACCESS, T_WAITS, T_CRIT, T_PROFILE, T_N };
static const char *const tnames[T_N] = {
	"summary", "consumption", "heatmap", "files", "calls", "access", "waits", "critical",
	"inclusive",
};

struct page {
	char **command;		/* by node index, or NULL */
	size_t ncmd;
	struct table *t[T_N];
	struct trace_run *run;
	char *warnings;		/* what the reports said on stderr */
	struct replayrep rep;
	bool has_rep, no_waits;
};

static void keep(void *arg, struct table *t)
{
	struct page *p = arg;

	for (int i = 0; i < T_N; i++)
		if (!strcmp(table_def(t)->name, tnames[i]) && !p->t[i]) {
			p->t[i] = t;
			return;
		}
	table_free(t);
}

/* --- the reports' warnings: stderr kept, then passed on ---------------- */

static int saved_err = -1;
static FILE *errtmp;

static void warnings_restore(void)
{
	char buf[4096];
	size_t n;

	if (saved_err < 0)
		return;
	fflush(stderr);
	dup2(saved_err, 2);
	close(saved_err);
	saved_err = -1;
	rewind(errtmp);
	while ((n = fread(buf, 1, sizeof(buf), errtmp)) > 0)
		if (write(2, buf, n) < 0)
			break;
}

static void warnings_keep(void)
{
	fflush(stderr);
	if ((saved_err = dup(2)) < 0)	/* no stderr: none to keep */
		return;
	if (!(errtmp = tmpfile()) || dup2(fileno(errtmp), 2) < 0)
		die(2, "report: cannot keep the warnings:");
	atexit(warnings_restore);	/* a die() on the way says why, on stderr */
}

/* What was said, at most 64 KiB of it for the page. */
static char *warnings_take(void)
{
	size_t cap = 65536, n;
	char *s = xmalloc(cap + 1);

	*s = 0;
	if (saved_err < 0)
		return s;
	fflush(stderr);
	rewind(errtmp);
	n = fread(s, 1, cap, errtmp);
	s[n] = 0;
	warnings_restore();
	return s;
}

/* --- the commands ------------------------------------------------------ */

/* A node's command as the reader gives it (either encoding), its args
 * joined by spaces; a heading, so cut at 4 KB. */
static void on_command(void *ctx, struct trace_node *n, int argc, const char *const *argv)
{
	struct page *p = ctx;
	size_t len = 0;
	char *c;

	if ((size_t)n->index >= p->ncmd) {
		size_t k = (size_t)n->index + 16;
		p->command = xrealloc(p->command, k * sizeof(*p->command));
		memset(p->command + p->ncmd, 0, (k - p->ncmd) * sizeof(*p->command));
		p->ncmd = k;
	}
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	c = xmalloc(len + 1);
	c[0] = 0;
	for (int i = 0, at = 0; i < argc && at < 4096; i++)
		at += snprintf(c + at, len + 1 - (size_t)at, "%s%s", i ? " " : "", argv[i]);
	c[len < 4096 ? len : 4096] = 0;
	free(p->command[n->index]);
	p->command[n->index] = c;
}

static void *commands_begin(struct trace_run *run)
{
	return NULL;	/* the page, set by report_html */
}

static void commands_end(void *st, struct trace_run *run, char **files, int nfiles)
{
}

static const struct trace_ops commands_ops = { .command = on_command };
static const struct passdef commands_pass = {
	.begin = commands_begin, .ops = &commands_ops, .end = commands_end,
};

static const char *command_of(const struct page *p, size_t node)
{
	return node < p->ncmd && p->command[node] ? p->command[node] : "";
}

/* --- writing ----------------------------------------------------------- */

/* Text from a trace, as text: markup characters as references, control
 * characters as a visible \xNN. */
static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\x%02x", c);
			else
				putc(c, f);
		}
	}
}

static int col_of(const struct table *t, const char *name)
{
	for (int c = 0; t && c < table_ncols(t); c++)
		if (!strcmp(table_cell(t, 0, c), name))
			return c;
	return -1;
}

static double num(const struct table *t, size_t row, const char *col)
{
	int c = col_of(t, col);

	return c < 0 ? 0 : strtod(table_cell(t, row, c), NULL);
}

/* A value of seconds printed with six decimals, as an exact count of
 * microseconds (sums of cells stay exact). */
static int64_t usecs(const char *s)
{
	char *end;
	long long whole = strtoll(s, &end, 10);
	int64_t us = 0;
	int k = 0;

	if (*end == '.')
		for (end++; k < 6; k++)
			us = us * 10 + (isdigit((unsigned char)*end) ? *end++ - '0' : 0);
	return (int64_t)whole * 1000000 + us;
}

static void put_usecs(FILE *f, int64_t us)
{
	fprintf(f, "%lld.%06lld", (long long)(us / 1000000), (long long)(us % 1000000));
}

static bool is_number(const char *s)
{
	char *end;

	if (!*s)
		return false;
	strtod(s, &end);
	return !*end;
}

/* Rows of t (row numbers from 1, or all when rows is NULL), the columns
 * named in cols (NULL: all), sortable by a click on a header. */
static void html_table(FILE *f, const struct table *t, const size_t *rows, size_t nrows,
		       const char *const *cols, const char *id)
{
	int idx[64], nc = 0;

	if (cols) {
		for (; *cols && nc < 64; cols++)
			if ((idx[nc] = col_of(t, *cols)) >= 0)
				nc++;
	} else {
		for (int c = 0; c < table_ncols(t) && nc < 64; c++)
			idx[nc++] = c;
	}
	fprintf(f, "<div class=\"wrap\"><table class=\"sort\" id=\"%s\"><thead><tr>", id);
	for (int c = 0; c < nc; c++) {
		fputs("<th>", f);
		esc(f, table_cell(t, 0, idx[c]));
		fputs("</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
	for (size_t i = 0; i < nrows; i++) {
		size_t r = rows ? rows[i] : i + 1;

		fputs("<tr>", f);
		for (int c = 0; c < nc; c++) {
			const char *s = table_cell(t, r, idx[c]);

			fputs(is_number(s) ? "<td class=\"n\">" : "<td>", f);
			esc(f, s);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
}

/* The rows of t with the largest key(row), at most max, largest first. */
static const struct table *key_table;
static const char *const *key_cols;
static double row_key(size_t r)
{
	double k = 0;

	for (const char *const *c = key_cols; *c; c++)
		k += num(key_table, r, *c);
	return k;
}

static int cmp_key(const void *x, const void *y)
{
	double a = row_key(*(const size_t *)x), b = row_key(*(const size_t *)y);

	return a < b ? 1 : a > b ? -1 : (*(const size_t *)x > *(const size_t *)y) -
					  (*(const size_t *)x < *(const size_t *)y);
}

static size_t *top_rows(const struct table *t, const char *const *keys, size_t max, size_t *n)
{
	size_t total = table_nrows(t);
	size_t *v = xcalloc(total + 1, sizeof(*v));

	for (size_t i = 0; i < total; i++)
		v[i] = i + 1;
	key_table = t;
	key_cols = keys;
	if (total > 1)
		qsort(v, total, sizeof(*v), cmp_key);
	*n = total < max ? total : max;
	return v;
}

static void none(FILE *f, const char *what)
{
	fprintf(f, "<p class=\"none\">%s</p>\n", what);
}

/* --- the sections ------------------------------------------------------ */

static void sec_run(FILE *f, struct page *p)
{
	struct trace_run *run = p->run;
	char buf[64];
	size_t incomplete = 0;

	fputs("<section id=\"run\"><h2>The run</h2>\n", f);
	fprintf(f, "<p>%zu node%s, %zu process%s, %zu thread%s; %s s from the first start to the last end.</p>\n",
		run->nnodes, run->nnodes == 1 ? "" : "s", run->nprocs, run->nprocs == 1 ? "" : "es",
		run->nthreads, run->nthreads == 1 ? "" : "s",
		fmt_secs(buf, sizeof(buf), run->t1 - run->t0));
	for (size_t i = 0; i < run->nprocs; i++)
		incomplete += run->procs[i]->reason != NULL;
	fprintf(f, "<p id=\"complete\">Complete: <b>%s</b>", run->incomplete || incomplete ? "no" : "yes");
	if (run->incomplete)
		fputs(" (the trace says complete=\"false\": a process was killed or not fully seen)", f);
	fputs(".</p>\n", f);
	if (incomplete) {
		fputs("<ul>", f);
		for (size_t i = 0; i < run->nprocs; i++)
			if (run->procs[i]->reason) {
				fprintf(f, "<li>node ");
				esc(f, run->procs[i]->node->name);
				fprintf(f, ", process %ld: ", run->procs[i]->pid);
				esc(f, run->procs[i]->reason);
				fputs("</li>", f);
			}
		fputs("</ul>\n", f);
	}
	fputs("<table class=\"sort\" id=\"nodes\"><thead><tr><th>node</th><th>host</th><th>command</th>"
	      "<th>first process</th>"
	      "<th>start_s</th><th>duration_s</th><th>processes</th><th>threads</th></tr></thead><tbody>\n", f);
	for (size_t i = 0; i < run->nnodes; i++) {
		struct trace_node *n = run->nodes[i];

		if (!filter_node(n))
			continue;
		fputs("<tr><td>", f);
		esc(f, n->name);
		fputs("</td><td>", f);
		esc(f, n->host);
		fputs("</td><td class=\"cmd\">", f);
		esc(f, command_of(p, i));
		fputs("</td><td class=\"cmd\">", f);
		for (size_t k = 0; k < run->nprocs; k++)	/* the node's first process */
			if (run->procs[k]->node == n) {
				fprintf(f, "%ld ", run->procs[k]->pid);
				esc(f, run->procs[k]->exe);
				break;
			}
		fprintf(f, "</td><td class=\"n\">%s</td>", fmt_secs(buf, sizeof(buf), n->start + n->off - run->t0));
		fprintf(f, "<td class=\"n\">%s</td><td class=\"n\">%d</td><td class=\"n\">%d</td></tr>\n",
			fmt_secs(buf, sizeof(buf), n->end - n->start), n->nprocs, n->nthreads);
	}
	fputs("</tbody></table>\n", f);
	if (p->t[T_SUMMARY])
		html_table(f, p->t[T_SUMMARY], NULL, table_nrows(p->t[T_SUMMARY]), NULL, "summary");
	fputs("<h3>Warnings</h3>\n", f);
	if (*p->warnings) {
		fputs("<pre id=\"warnings\">", f);
		for (const char *s = p->warnings; *s; ) {	/* lines: newlines kept */
			size_t l = strcspn(s, "\n");
			char *line = xasprintf("%.*s", (int)l, s);

			esc(f, line);
			free(line);
			s += l;
			if (*s == '\n') {
				putc('\n', f);
				s++;
			}
		}
		fputs("</pre>\n", f);
	} else {
		none(f, "none");
	}
	fputs("</section>\n", f);
}

/* The index of a node name in the run, or -1. */
static int node_idx(const struct trace_run *run, const char *name)
{
	for (size_t i = 0; i < run->nnodes; i++)
		if (!strcmp(run->nodes[i]->name, name))
			return (int)i;
	return -1;
}

#define BAR_W 760
#define ROW_H 16
#define LABEL_W 160

static void sec_time(FILE *f, struct page *p)
{
	const struct table *t = p->t[T_CONS];
	size_t nn = p->run->nnodes;
	int64_t (*sum)[CAT_N + 1] = xcalloc(nn + 1, sizeof(*sum));	/* [CAT_N]: live */
	int64_t max = 1;
	int cn = col_of(t, "node"), cc = col_of(t, "category"), cs = col_of(t, "seconds");
	int y = 24;

	fputs("<section id=\"time\"><h2>Where the time went</h2>\n"
	      "<p>Per node, the seconds of its threads in each consumption category "
	      "(the consumption report's rows of the node's threads, added up).</p>\n", f);
	if (!t || cn < 0 || cc < 0 || cs < 0) {
		none(f, "no consumption table");
		fputs("</section>\n", f);
		free(sum);
		return;
	}
	for (size_t r = 1; r <= table_nrows(t); r++) {
		int n = node_idx(p->run, table_cell(t, r, cn));
		const char *cat = table_cell(t, r, cc);
		int k;

		if (n < 0 || !strcmp(table_cell(t, r, cn), "ALL"))
			continue;
		for (k = 0; k < CAT_N && strcmp(cat_names[k], cat); k++)
			;
		sum[n][k] += usecs(table_cell(t, r, cs));	/* k == CAT_N: live */
	}
	for (size_t n = 0; n < nn; n++)
		if (sum[n][CAT_N] > max)
			max = sum[n][CAT_N];
	fprintf(f, "<svg class=\"bars\" width=\"%d\" height=\"%zu\" role=\"img\">\n",
		LABEL_W + BAR_W + 10, 30 + nn * ROW_H);
	for (int k = 0; k < CAT_N; k++)
		fprintf(f, "<rect x=\"%d\" y=\"4\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"13\">%s</text>\n", LABEL_W + k * 76, cat_colors[k],
			LABEL_W + k * 76 + 13, cat_names[k]);
	for (size_t n = 0; n < nn; n++, y += ROW_H) {
		double x = LABEL_W;

		if (!filter_node(p->run->nodes[n]) || !sum[n][CAT_N]) {
			y -= ROW_H;
			continue;
		}
		fprintf(f, "<text x=\"0\" y=\"%d\">", y + 11);
		esc(f, p->run->nodes[n]->name);
		fputs("</text>\n", f);
		for (int k = 0; k < CAT_N; k++) {
			double w = (double)sum[n][k] * BAR_W / (double)max;

			if (w <= 0)
				continue;
			fprintf(f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>",
				x, y, w, ROW_H - 3, cat_colors[k]);
			esc(f, p->run->nodes[n]->name);
			fprintf(f, " %s: ", cat_names[k]);
			put_usecs(f, sum[n][k]);
			fputs(" s</title></rect>\n", f);
			x += w;
		}
	}
	fputs("</svg>\n<table class=\"sort\" id=\"time-table\"><thead><tr><th>node</th><th>live</th>", f);
	for (int k = 0; k < CAT_N; k++)
		fprintf(f, "<th>%s</th>", cat_names[k]);
	fputs("</tr></thead><tbody>\n", f);
	for (size_t n = 0; n < nn; n++) {
		if (!filter_node(p->run->nodes[n]) || !sum[n][CAT_N])
			continue;
		fputs("<tr><td>", f);
		esc(f, p->run->nodes[n]->name);
		fputs("</td>", f);
		for (int k = -1; k < CAT_N; k++) {	/* live first */
			fputs("<td class=\"n\">", f);
			put_usecs(f, sum[n][k < 0 ? CAT_N : k]);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n</section>\n", f);
	free(sum);
}

/* A bin's colour: blue for reads, orange for writes, by log of bytes. */
static void heat_cell(FILE *f, double x, int y, double w, int64_t bytes, double lmax, bool wr,
		      const char *node, const char *from, const char *to, const char *ops)
{
	double a = lmax > 0 ? log1p((double)bytes) / lmax : 0;

	fprintf(f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
		"fill-opacity=\"%.3f\"><title>", x, y, w < 0.5 ? 0.5 : w, ROW_H / 2 - 1,
		wr ? "#e15759" : "#4e79a7", 0.15 + 0.85 * a);
	esc(f, node);
	fprintf(f, " %s %s-%s s: %lld bytes, %s ops</title></rect>\n", wr ? "write" : "read",
		from, to, (long long)bytes, ops);
}

static void sec_heatmap(FILE *f, struct page *p)
{
	const struct table *t = p->t[T_HEAT];
	size_t rows = t ? table_nrows(t) : 0, nbins = 0, nnodes = 0;
	int64_t max = 0;
	int y = 20;

	fputs("<section id=\"heatmap\"><h2>I/O heatmap</h2>\n", f);
	if (!rows) {
		none(f, "no heatmap");
		fputs("</section>\n", f);
		return;
	}
	for (size_t r = 1; r <= rows; r++) {
		int64_t rb = (int64_t)num(t, r, "read_bytes"), wb = (int64_t)num(t, r, "write_bytes");

		max = rb > max ? rb : max;
		max = wb > max ? wb : max;
		if (!strcmp(table_cell(t, r, 1), "0"))
			nnodes++;
	}
	nbins = rows / (nnodes ? nnodes : 1);
	fprintf(f, "<p>Bytes read (blue, upper row) and written (red) per time bin of %s-%s s "
		"(%zu bins, Darshan's: the heatmap report's rows); darker is more, on a log scale "
		"up to %lld bytes in a bin. Hover a bin for its numbers.</p>\n",
		table_cell(t, 1, 2), table_cell(t, 1, 3), nbins, (long long)max);
	fprintf(f, "<svg class=\"heat\" width=\"%d\" height=\"%zu\" role=\"img\">\n",
		LABEL_W + BAR_W + 10, 40 + nnodes * ROW_H);
	double w = (double)BAR_W / (double)(nbins ? nbins : 1), lmax = log1p((double)max);
	const char *cur = NULL;

	for (size_t r = 1; r <= rows; r++) {
		const char *node = table_cell(t, r, 0);
		int bin = atoi(table_cell(t, r, 1));
		int64_t rb = (int64_t)num(t, r, "read_bytes"), wb = (int64_t)num(t, r, "write_bytes");

		if (!cur || strcmp(cur, node)) {
			if (cur)
				y += ROW_H;
			cur = node;
			fprintf(f, "<text x=\"0\" y=\"%d\">", y + 11);
			esc(f, node);
			fprintf(f, "</text><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f4f4f4\"/>\n",
				LABEL_W, y, BAR_W, ROW_H - 2);
		}
		if (rb)
			heat_cell(f, LABEL_W + bin * w, y, w, rb, lmax, false, node, table_cell(t, r, 2),
				  table_cell(t, r, 3), table_cell(t, r, 4));
		if (wb)
			heat_cell(f, LABEL_W + bin * w, y + ROW_H / 2 - 1, w, wb, lmax, true, node,
				  table_cell(t, r, 2), table_cell(t, r, 3), table_cell(t, r, 6));
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\">%s s</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s s</text>\n",
		LABEL_W, y + ROW_H + 12, table_cell(t, 1, 2), LABEL_W + BAR_W, y + ROW_H + 12,
		table_cell(t, rows, 3));
	fputs("</svg>\n", f);
	/* per node, the bins added up */
	fputs("<table class=\"sort\" id=\"heat-table\"><thead><tr><th>node</th><th>read_ops</th>"
	      "<th>read_bytes</th><th>write_ops</th><th>write_bytes</th></tr></thead><tbody>\n", f);
	for (size_t r = 1; r <= rows; ) {
		const char *node = table_cell(t, r, 0);
		long long s[4] = { 0 };

		for (; r <= rows && !strcmp(table_cell(t, r, 0), node); r++)
			for (int k = 0; k < 4; k++)
				s[k] += strtoll(table_cell(t, r, 4 + k), NULL, 10);
		fputs("<tr><td>", f);
		esc(f, node);
		fprintf(f, "</td><td class=\"n\">%lld</td><td class=\"n\">%lld</td><td class=\"n\">%lld</td>"
			"<td class=\"n\">%lld</td></tr>\n", s[0], s[1], s[2], s[3]);
	}
	fputs("</tbody></table>\n</section>\n", f);
}

#define TOP 25

static void sec_top(FILE *f, const struct table *t, const char *id, const char *title,
		    const char *about, const char *const *keys, const char *const *cols)
{
	size_t n, *rows;

	fprintf(f, "<section id=\"%s\"><h2>%s</h2>\n", id, title);
	if (!t || !table_nrows(t)) {
		none(f, "none in this trace");
		fputs("</section>\n", f);
		return;
	}
	char *tid = xasprintf("%s-table", id);

	rows = top_rows(t, keys, TOP, &n);
	fprintf(f, "<p>%s: %zu of %zu rows, the report's numbers (click a header to sort).</p>\n",
		about, n, table_nrows(t));
	html_table(f, t, rows, n, cols, tid);
	free(rows);
	free(tid);
	fputs("</section>\n", f);
}

static void sec_deps(FILE *f, struct page *p)
{
	const struct table *t = p->t[T_WAITS];
	size_t nn = p->run->nnodes, rows = t ? table_nrows(t) : 0;

	fputs("<section id=\"deps\"><h2>Waits between nodes</h2>\n", f);
	if (p->no_waits) {
		none(f, "not shown with --node or --thread: a wait names another node's call");
		fputs("</section>\n", f);
		return;
	}
	if (!rows) {
		none(f, "no waits: the trace has no &lt;wait&gt; (captured without the causality "
		     "engine, or one node)");
		fputs("</section>\n", f);
		return;
	}
	/* node x waited for node t: how often */
	size_t *m = xcalloc(nn * nn + 1, sizeof(*m));
	int cx = col_of(t, "node"), ct = col_of(t, "on_node");

	for (size_t r = 1; r <= rows; r++) {
		int x = node_idx(p->run, table_cell(t, r, cx < 0 ? 0 : cx));
		int y = node_idx(p->run, table_cell(t, r, ct < 0 ? 4 : ct));

		if (x >= 0 && y >= 0)
			m[(size_t)x * nn + (size_t)y]++;
	}
	fprintf(f, "<p>%zu waits (a node's call not issued before another node's completed: "
		"WAIT/SIGNAL).</p>\n<table class=\"sort\" id=\"deps-pairs\"><thead><tr><th>node</th>"
		"<th>waited_for</th><th>waits</th></tr></thead><tbody>\n", rows);
	for (size_t x = 0; x < nn; x++)
		for (size_t y = 0; y < nn; y++)
			if (m[x * nn + y]) {
				fputs("<tr><td>", f);
				esc(f, p->run->nodes[x]->name);
				fputs("</td><td>", f);
				esc(f, p->run->nodes[y]->name);
				fprintf(f, "</td><td class=\"n\">%zu</td></tr>\n", m[x * nn + y]);
			}
	fputs("</tbody></table>\n", f);
	if (p->t[T_CRIT] && table_nrows(p->t[T_CRIT])) {
		fputs("<h3 id=\"critical\">Critical path</h3>\n<p>From the node that ended last back "
		      "through the latest wait of each piece: where the run's end waited (deps "
		      "--table critical).</p>\n", f);
		html_table(f, p->t[T_CRIT], NULL, table_nrows(p->t[T_CRIT]), NULL, "critical-table");
	}
	html_table(f, t, NULL, rows < 200 ? rows : 200, NULL, "deps-table");
	if (rows > 200)
		fprintf(f, "<p>The first 200 of %zu waits (deps --csv has them all).</p>\n", rows);
	free(m);
	fputs("</section>\n", f);
}

static void sec_profile(FILE *f, struct page *p)
{
	static const char *const keys[] = { "inclusive", NULL };

	if (!p->t[T_PROFILE]) {
		fputs("<section id=\"profile\"><h2>Top functions</h2>\n", f);
		none(f, "no profile: the trace was not captured with --profile");
		fputs("</section>\n", f);
		return;
	}
	sec_top(f, p->t[T_PROFILE], "profile", "Top functions",
		"Functions by inclusive time (profile inclusive)", keys, NULL);
}

static void sec_replay(FILE *f, struct page *p)
{
	double max = 0;
	int y = 20;

	fputs("<section id=\"replay\"><h2>Original and replayed</h2>\n", f);
	if (!p->has_rep) {
		none(f, "no replay report given (--replay FILE, island-replay --report FILE)");
		fputs("</section>\n", f);
		return;
	}
	for (size_t i = 0; i < p->rep.n; i++) {
		max = p->rep.nodes[i].original > max ? p->rep.nodes[i].original : max;
		max = p->rep.nodes[i].replayed > max ? p->rep.nodes[i].replayed : max;
	}
	max = max > 0 ? max : 1;
	fprintf(f, "<svg class=\"bars\" width=\"%d\" height=\"%zu\" role=\"img\">\n",
		LABEL_W + BAR_W + 10, 30 + p->rep.n * ROW_H * 2);
	for (size_t i = 0; i < p->rep.n; i++, y += 2 * ROW_H) {
		const struct rrnode *n = &p->rep.nodes[i];

		fprintf(f, "<text x=\"0\" y=\"%d\">", y + 11);
		esc(f, n->name);
		fprintf(f, "</text><rect x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"#4e79a7\">"
			"<title>original %.9f s</title></rect>\n", LABEL_W, y, n->original * BAR_W / max,
			ROW_H - 3, n->original);
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"#f28e2b\">"
			"<title>replayed %.9f s</title></rect>\n", LABEL_W, y + ROW_H, n->replayed * BAR_W / max,
			ROW_H - 3, n->replayed);
	}
	fputs("</svg>\n<table class=\"sort\" id=\"replay-table\"><thead><tr><th>node</th><th>original_s</th>"
	      "<th>replayed_s</th><th>error_pct</th></tr></thead><tbody>\n", f);
	for (size_t i = 0; i < p->rep.n; i++) {
		const struct rrnode *n = &p->rep.nodes[i];

		fputs("<tr><td>", f);
		esc(f, n->name);
		fprintf(f, "</td><td class=\"n\">%.9f</td><td class=\"n\">%.9f</td><td class=\"n\">", n->original,
			n->replayed);
		if (n->original > 0)
			fprintf(f, "%+.2f", (n->replayed - n->original) * 100 / n->original);
		fputs("</td></tr>\n", f);
	}
	if (p->rep.has_run)
		fprintf(f, "<tr><td>run</td><td class=\"n\">%.9f</td><td class=\"n\">%.9f</td><td class=\"n\">%+.2f</td></tr>\n",
			p->rep.original, p->rep.replayed, p->rep.original > 0 ?
			(p->rep.replayed - p->rep.original) * 100 / p->rep.original : 0);
	fputs("</tbody></table>\n</section>\n", f);
}

static const char style[] =
	"body{font-family:sans-serif;margin:1em 2em;color:#222;max-width:1100px}"
	"h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;margin-top:1.6em}"
	"nav a{margin-right:1em}table{border-collapse:collapse;margin:.6em 0;font-size:.85em}"
	"th,td{border:1px solid #ddd;padding:2px 6px;text-align:left;white-space:nowrap}"
	"th{background:#f0f0f0;cursor:pointer}td.n{text-align:right;font-variant-numeric:tabular-nums}"
	"td.cmd{white-space:normal;max-width:40em;word-break:break-all}"
	"pre{background:#f8f8f8;padding:.5em;white-space:pre-wrap;word-break:break-all}"
	".none{color:#777}svg{font-size:11px;display:block}.wrap{overflow-x:auto}";

/* Sorting by a click on a header: text only, nothing from the page run. */
static const char script[] =
	"document.querySelectorAll('table.sort th').forEach(function(th){"
	"th.addEventListener('click',function(){var b=th.closest('table').tBodies[0],i=th.cellIndex,"
	"up=th.dataset.up!=='1';th.dataset.up=up?'1':'0';var r=Array.prototype.slice.call(b.rows);"
	"r.sort(function(x,y){var a=x.cells[i].textContent,c=y.cells[i].textContent,"
	"p=parseFloat(a),q=parseFloat(c),v=(!isNaN(p)&&!isNaN(q))?p-q:a.localeCompare(c);"
	"return up?v:-v;});r.forEach(function(e){b.appendChild(e);});});});";

static void write_page(FILE *f, struct page *p)
{
	static const char *const file_keys[] = { "read_s", "write_s", "other_s", NULL };
	static const char *const call_keys[] = { "total_s", NULL };
	static const char *const access_keys[] = { "bytes_read", "bytes_written", NULL };
	static const char *const access_cols[] = {
		"node", "path", "reads", "writes", "bytes_read", "bytes_written", "consec_reads",
		"consec_writes", "seq_reads", "seq_writes", "unaligned", "access1", "access1_count",
		"access2", "access2_count", NULL,
	};
	const char *title = p->run->nnodes && *command_of(p, 0) ? command_of(p, 0) :
			    p->run->nprocs ? p->run->procs[0]->exe : "";

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n<title>island report: ", f);
	esc(f, title);
	fprintf(f, "</title>\n<style>%s</style></head><body>\n<h1>Island report: ", style);
	esc(f, title);
	fputs("</h1>\n<nav><a href=\"#run\">run</a><a href=\"#time\">time</a><a href=\"#heatmap\">heatmap</a>"
	      "<a href=\"#files\">files</a><a href=\"#calls\">calls</a><a href=\"#access\">access</a>"
	      "<a href=\"#deps\">waits</a><a href=\"#profile\">profile</a><a href=\"#replay\">replay</a></nav>\n", f);
	sec_run(f, p);
	sec_time(f, p);
	sec_heatmap(f, p);
	sec_top(f, p->t[T_FILES], "files", "Files by time", "Files by seconds in their calls",
		file_keys, NULL);
	sec_top(f, p->t[T_CALLS], "calls", "Calls by time", "Calls by total seconds, with latency percentiles",
		call_keys, NULL);
	sec_top(f, p->t[T_ACCESS], "access", "Access patterns", "Files by bytes moved (Darshan's counters)",
		access_keys, access_cols);
	sec_deps(f, p);
	sec_profile(f, p);
	sec_replay(f, p);
	fprintf(f, "<script>%s</script>\n</body></html>\n", script);
}

static FILE *create(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
	FILE *f;

	if (fd < 0 || !(f = fdopen(fd, "w")))
		die(2, "%s: cannot write:", path);
	return f;
}

int report_html(int argc, char **argv)
{
	const struct passdef *defs[] = {
		&summary_pass, &consumption_pass, &heatmap_pass, &files_pass, &calls_pass,
		&access_pass, &deps_pass,
	};
	enum { NDEFS = sizeof(defs) / sizeof(defs[0]) };
	struct report_pass passes[NDEFS + 1];
	struct trace_run run = { 0 };
	struct page p = { .run = &run };
	const char *out = opt.output;
	bool profiled = false;
	FILE *f;

	if (!out)
		die(2, "report: -o FILE.html is needed");
	if (html_replay) {	/* its errors before the long part */
		replayrep_read(html_replay, &p.rep);
		p.has_rep = true;
	}
	/* the reports print as --csv would, into the page */
	opt.output = NULL;
	opt.csv = true;
	table_set_sink(keep, &p);
	warnings_keep();
	/* a wait names another node's call: with --node or --thread the
	 * other nodes' calls are not read, and the waits are not shown */
	size_t ndefs = filt.node || filt.has_tid ? NDEFS - 1 : NDEFS;

	p.no_waits = ndefs < NDEFS;
	for (size_t i = 0; i < ndefs; i++)
		pass_begin(&passes[i], defs[i], &run);
	passes[ndefs] = (struct report_pass){ &commands_pass, &p };	/* the commands */
	read_passes(&run, argv, argc, passes, ndefs + 1);
	for (size_t i = 0; i < ndefs; i++)
		defs[i]->end(passes[i].st, &run, argv, argc);
	for (size_t i = 0; i < run.nnodes; i++)
		profiled |= run.nodes[i]->profile != NULL;
	if (profiled) {		/* a reading of its own: the profile holds more */
		char **pargv = xcalloc((size_t)argc + 2, sizeof(*pargv));

		pargv[0] = "inclusive";
		memcpy(pargv + 1, argv, (size_t)argc * sizeof(*argv));
		report_profile(argc + 1, pargv);
		free(pargv);
	}
	table_set_sink(NULL, NULL);
	p.warnings = warnings_take();
	opt.output = out;
	f = create(out);
	write_page(f, &p);
	if (fclose_checked(f))
		die(2, "%s: write error:", out);
	for (int i = 0; i < T_N; i++)
		table_free(p.t[i]);
	free(p.warnings);
	for (size_t i = 0; i < p.ncmd; i++)
		free(p.command[i]);
	free(p.command);
	if (p.has_rep)
		replayrep_free(&p.rep);
	run_free(&run);
	return 0;
}
