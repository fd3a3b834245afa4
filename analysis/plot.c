/* plot: a self-contained SVG timeline. One lane per thread under a lane
 * per node (its stops), calls and compute coloured by consumption
 * category, regions as bars by depth under each lane, a time axis and a
 * legend. It stays small and readable for any number of events: each
 * lane holds, per pixel column, the time spent in each category, and
 * draws the dominant one; runs of equal columns become one rectangle.
 * Memory: lanes x width x categories, plus the regions wider than a
 * pixel; never the events. */
#include "analyze.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LEFT 190		/* room for lane labels */
#define LANE_H 12		/* calls */
#define REG_H 4			/* per region depth */
#define REG_DEPTHS 16		/* rows; deeper regions share the last */
#define BLOCK_H(ln) (LANE_H + REG_H * (ln)->ndepth + 4)
#define NODE_H 14
#define TOP 40

const char *const cat_colors[CAT_N] = {
	[CAT_COMPUTE] = "#4e79a7", [CAT_SLEEP] = "#bab0ac", [CAT_FILEREAD] = "#59a14f",
	[CAT_FILEWRITE] = "#8cd17d", [CAT_FILEMETA] = "#b6992d", [CAT_NETSEND] = "#f28e2b",
	[CAT_NETRECV] = "#ffbe7d", [CAT_PIPE] = "#9d7660", [CAT_BLOCKED] = "#e15759",
	[CAT_STOPPED] = "#222222",
};
static const char *const depth_colors[] = {
	"#b07aa1", "#d4a6c8", "#9d7660", "#76b7b2", "#edc948", "#ff9da7",
};
#define DEPTH_COLOR(d) depth_colors[(d) % (int)(sizeof(depth_colors) / sizeof(*depth_colors))]

struct wide {			/* a region wider than a pixel */
	int lane, depth;
	double x0, x1;
	const char *label;
};

struct lane {
	float *col;		/* width x CAT_N seconds */
	unsigned char *reg;	/* ndepth x width: narrow regions seen */
	int ndepth;		/* region rows under the lane, as deep as its regions */
};

struct plot {
	struct trace_run *run;
	int w;
	int64_t t0, span;
	struct lane *lanes;
	size_t nlanes;
	struct wide *wides;
	size_t nwides, capwides;
	struct thread_walk walk;
	int cur;
};

static double xof(const struct plot *p, int64_t t)
{
	return (double)(t - p->t0) * p->w / (double)p->span;
}

/* Spread [s, e] over the pixel columns it covers. */
static void sink(void *arg, enum cat c, int64_t s, int64_t e)
{
	struct plot *p = arg;
	struct trace_thread *t = p->run->threads[p->cur];
	float *col = p->lanes[p->cur].col;
	double x0 = xof(p, s + t->node->off), x1 = xof(p, e + t->node->off);
	double per = (double)p->span / p->w / 1e9;	/* seconds per column */

	if (x1 <= 0 || x0 >= p->w)
		return;
	if (x0 < 0)
		x0 = 0;
	if (x1 > p->w)
		x1 = p->w;
	for (int i = (int)x0; i < p->w && i < x1; i++) {
		double a = i > x0 ? i : x0, b = i + 1 < x1 ? i + 1 : x1;

		col[(size_t)i * CAT_N + c] += (float)((b - a) * per);
	}
}

static void on_thread(void *ctx, struct trace_thread *t)
{
	struct plot *p = ctx;

	p->lanes = xrealloc(p->lanes, (p->nlanes + 1) * sizeof(*p->lanes));
	p->lanes[p->nlanes].col = xcalloc((size_t)p->w * CAT_N, sizeof(float));
	p->lanes[p->nlanes].reg = NULL;
	p->lanes[p->nlanes].ndepth = 0;
	p->cur = (int)p->nlanes++;
	walk_thread(&p->walk, t);
	p->walk.acct.sink = sink;
	p->walk.acct.arg = p;
}

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	walk_io(&((struct plot *)ctx)->walk, t, io);
}

static void on_thread_end(void *ctx, struct trace_thread *t)
{
	walk_end(&((struct plot *)ctx)->walk, t);
}

static void on_region(void *ctx, struct trace_thread *t, const struct trace_region *r)
{
	struct plot *p = ctx;
	double x0 = xof(p, r->start + t->node->off), x1 = xof(p, r->end + t->node->off);
	int d = r->depth > REG_DEPTHS ? REG_DEPTHS - 1 : (int)r->depth - 1;
	struct lane *ln = &p->lanes[p->cur];

	if (d < 0)
		return;
	if (d >= ln->ndepth) {
		ln->reg = xrealloc(ln->reg, (size_t)(d + 1) * (size_t)p->w);
		memset(ln->reg + (size_t)ln->ndepth * (size_t)p->w, 0,
		       (size_t)(d + 1 - ln->ndepth) * (size_t)p->w);
		ln->ndepth = d + 1;
	}
	if (x1 - x0 >= 2) {
		XGROW(p->wides, p->capwides, p->nwides + 1);
		p->wides[p->nwides++] = (struct wide){ p->cur, d, x0, x1, intern(r->label) };
		return;
	}
	for (int i = (int)x0; i <= (int)x1 && i < p->w; i++)
		if (i >= 0)
			ln->reg[(size_t)d * (size_t)p->w + (size_t)i] = 1;
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: putc(*s, f);
		}
}

/* Tick step: 1, 2 or 5 times a power of ten, about ten ticks. */
static double tick_step(double secs)
{
	double raw = secs / 10, p = pow(10, floor(log10(raw)));

	if (raw / p >= 5)
		return 5 * p;
	if (raw / p >= 2)
		return 2 * p;
	return p;
}

static void draw_lane(FILE *f, const struct plot *p, size_t l, int y)
{
	const float *col = p->lanes[l].col;
	int start = 0, cur = -1;

	for (int i = 0; i <= p->w; i++) {
		int best = -1;
		float bv = 0;

		for (int c = 0; i < p->w && c < CAT_N; c++)
			if (col[(size_t)i * CAT_N + c] > bv) {
				bv = col[(size_t)i * CAT_N + c];
				best = c;
			}
		if (best == cur)
			continue;
		if (cur >= 0)
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
				LEFT + start, y, i - start, LANE_H, cat_colors[cur]);
		cur = best;
		start = i;
	}
	for (int d = 0; d < p->lanes[l].ndepth; d++) {
		const unsigned char *r = p->lanes[l].reg + (size_t)d * (size_t)p->w;

		for (int i = 0; i < p->w; i++) {
			int j = i;

			if (!r[i])
				continue;
			while (j < p->w && r[j])
				j++;
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
				LEFT + i, y + LANE_H + 1 + d * REG_H, j - i, REG_H - 1, DEPTH_COLOR(d));
			i = j;
		}
	}
}

int report_plot(int argc, char **argv)
{
	static const struct trace_ops ops = {
		.thread = on_thread, .io = on_io, .thread_end = on_thread_end,
		.region = on_region,
	};
	struct trace_run run = { 0 };
	struct plot p = { 0 };
	FILE *f = stdout;
	int y, height, *lane_y;
	double step, secs;

	prescan(&run, argv, argc);
	p.run = &run;
	p.w = opt.width;
	p.t0 = run.t0;
	p.span = run.t1 > run.t0 ? run.t1 - run.t0 : 1;
	/* the walk splits a receive as it reads it: know the sends first */
	p.walk.peers = peers_collect(argv, argc);
	read_traces(&run, argv, argc, &ops, &p);
	peers_free(p.walk.peers);
	if (opt.output && !(f = fopen(opt.output, "w")))
		die(2, "%s: cannot write: %s", opt.output, strerror(errno));

	lane_y = xcalloc(p.nlanes + 1, sizeof(*lane_y));
	y = TOP;
	for (size_t n = 0; n < run.nnodes; n++) {
		y += NODE_H + 2;
		for (size_t l = 0; l < p.nlanes; l++)
			if (run.threads[l]->node == run.nodes[n]) {
				lane_y[l] = y;
				y += BLOCK_H(&p.lanes[l]);
			}
	}
	height = y + 50;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"sans-serif\" font-size=\"10\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		LEFT + p.w + 20, height);
	/* legend */
	for (int c = 0; c < CAT_N; c++) {
		fprintf(f, "<rect x=\"%d\" y=\"8\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"17\">%s</text>\n",
			LEFT + c * 80, cat_colors[c], LEFT + c * 80 + 13, cat_names[c]);
	}
	fprintf(f, "<text x=\"%d\" y=\"30\">regions by depth under each lane</text>\n", LEFT);
	/* nodes and their stops */
	y = TOP;
	for (size_t n = 0; n < run.nnodes; n++) {
		struct trace_node *nd = run.nodes[n];

		fprintf(f, "<text x=\"4\" y=\"%d\" font-weight=\"bold\">", y + 11);
		xml_text(f, nd->name);
		fprintf(f, " (stops)</text>\n");
		for (size_t i = 0; i < nd->nstops; i++) {
			double x0 = xof(&p, nd->stops[i].start + nd->off);
			double x1 = xof(&p, nd->stops[i].end + nd->off);

			fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
				LEFT + x0, y, x1 - x0 < 0.5 ? 0.5 : x1 - x0, NODE_H - 2, cat_colors[CAT_STOPPED]);
		}
		y += NODE_H + 2;
		for (size_t l = 0; l < p.nlanes; l++) {
			struct trace_thread *t = run.threads[l];

			if (t->node != nd)
				continue;
			fprintf(f, "<text x=\"12\" y=\"%d\">%ld ", lane_y[l] + 10, t->tid);
			xml_text(f, t->name);
			fputs("</text>\n", f);
			draw_lane(f, &p, l, lane_y[l]);
			y += BLOCK_H(&p.lanes[l]);
		}
	}
	for (size_t i = 0; i < p.nwides; i++) {
		struct wide *wd = &p.wides[i];
		int ry = lane_y[wd->lane] + LANE_H + 1 + wd->depth * REG_H;

		fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" "
			"stroke=\"white\" stroke-width=\"0.5\"><title>",
			LEFT + wd->x0, ry, wd->x1 - wd->x0, REG_H - 1, DEPTH_COLOR(wd->depth));
		xml_text(f, wd->label);
		fputs("</title></rect>\n", f);
	}
	/* time axis */
	secs = (double)p.span / 1e9;
	step = tick_step(secs);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
		LEFT, y + 4, LEFT + p.w, y + 4);
	for (int k = 0; k * step <= secs * 1.0000001; k++) {
		double x = LEFT + k * step / secs * p.w;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>"
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n",
			x, y + 4, x, y + 9, x, y + 20, k * step);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">seconds</text>\n</svg>\n",
		LEFT + p.w, y + 34);
	if (f != stdout && fclose_checked(f))
		die(2, "%s: write error: %s", opt.output, strerror(errno));
	for (size_t l = 0; l < p.nlanes; l++) {
		free(p.lanes[l].col);
		free(p.lanes[l].reg);
	}
	free(p.lanes);
	free(p.wides);
	free(lane_y);
	run_free(&run);
	return 0;
}
