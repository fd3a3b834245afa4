/* files: per file usage: the capture's per-node <files> summary (opens,
 * data calls and bytes, descriptors open at the end), plus the time spent
 * in calls on that path, by res (read, write, other: open, close, stat,
 * seeks...) and in all (total_s). With a filter that selects calls by time, thread or name the
 * summary does not apply: the counts then come from the selected calls
 * and open_at_end is left empty. Memory: one entry per distinct path. */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

struct ftime {
	const char *path;	/* interned */
	const char *site;	/* --by callsite: interned label, else NULL */
	int node;
	int64_t read, write, meta;
	int64_t opens, reads, bytes_read, writes, bytes_written;
};

struct ftab {
	struct ftime *v;
	size_t n, cap;		/* open addressing, cap a power of two */
	struct table *t;
	bool from_calls, by_site;
	struct trace_run *run;
};

static const char *const open_calls[] = {
	"open", "openat", "creat", "fopen", "freopen", "opendir",
	"mkstemp", "mkostemp", "mkstemps", "mkostemps", "tmpfile", NULL,
};

static bool is_open(const char *api)
{
	for (const char *const *p = open_calls; *p; p++)
		if (!strcmp(*p, api))
			return true;
	return false;
}

static size_t slot(const struct ftab *f, const char *path, const char *site, int node)
{
	size_t h = (((uintptr_t)path >> 4) * 31 + (size_t)node) * 31 + ((uintptr_t)site >> 4);

	for (h &= f->cap - 1; f->v[h].path; h = (h + 1) & (f->cap - 1))
		if (f->v[h].path == path && f->v[h].node == node && f->v[h].site == site)
			break;
	return h;
}

static struct ftime *lookup_site(struct ftab *f, const char *path, const char *site,
				 int node, bool add)
{
	size_t h;

	path = intern(path);
	if (f->n * 2 >= f->cap) {
		struct ftab g = { .cap = f->cap ? f->cap * 2 : 64 };

		g.v = xcalloc(g.cap, sizeof(*g.v));
		for (size_t i = 0; i < f->cap; i++)
			if (f->v[i].path)
				g.v[slot(&g, f->v[i].path, f->v[i].site, f->v[i].node)] = f->v[i];
		free(f->v);
		f->v = g.v;
		f->cap = g.cap;
	}
	h = slot(f, path, site, node);
	if (!f->v[h].path) {
		if (!add)
			return NULL;
		f->v[h].path = path;
		f->v[h].site = site;
		f->v[h].node = node;
		f->n++;
	}
	return &f->v[h];
}

static struct ftime *lookup(struct ftab *f, const char *path, int node, bool add)
{
	return lookup_site(f, path, NULL, node, add);
}

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	struct ftime *ft;

	if (!io->path)
		return;
	ft = lookup_site(ctx, io->path, ((struct ftab *)ctx)->by_site ?
			 site_label(t, io->site) : NULL, t->node->index, true);
	/* --syscalls: a system call a libc call made (via="fwrite") took
	 * part of that call's time, counted with the call */
	int64_t d = trace_io_attr(io, "via") ? 0 : io->end - io->start;
	if (io->res == TRACE_RES_FILEREAD)
		ft->read += d;
	else if (io->res == TRACE_RES_FILEWRITE)
		ft->write += d;
	else
		ft->meta += d;
	/* --syscalls: a level="libc" call's transfers are its system calls'
	 * elements, counted there (as the <files> summary counts them) */
	if (io->failed || io->libc_only)
		return;
	ft->opens += is_open(io->api);
	if (io->has_amount && io->res == TRACE_RES_FILEREAD) {
		ft->reads++;
		ft->bytes_read += io->amount;
	} else if (io->has_amount && io->res == TRACE_RES_FILEWRITE) {
		ft->writes++;
		ft->bytes_written += io->amount;
	}
}

static int cmp_ftime(const void *x, const void *y)
{
	const struct ftime *a = x, *b = y;

	int r = a->node != b->node ? a->node - b->node : strcmp(a->path, b->path);

	return r || !a->site ? r : strcmp(a->site, b->site);
}

/* The rows from the selected calls, by node and path. */
static void rows_from_calls(struct ftab *ft)
{
	struct ftime *v = xcalloc(ft->n ? ft->n : 1, sizeof(*v));
	size_t n = 0;
	char buf[64];

	for (size_t i = 0; i < ft->cap; i++)
		if (ft->v[i].path)
			v[n++] = ft->v[i];
	qsort(v, n, sizeof(*v), cmp_ftime);
	for (size_t i = 0; i < n; i++) {
		struct table *t = ft->t;

		table_add(t, ft->run->nodes[v[i].node]->name);
		table_add(t, v[i].path);
		if (ft->by_site)
			table_add(t, v[i].site);
		table_addf(t, "%lld", (long long)v[i].opens);
		table_addf(t, "%lld", (long long)v[i].reads);
		table_addf(t, "%lld", (long long)v[i].bytes_read);
		table_add(t, fmt_secs(buf, sizeof(buf), v[i].read));
		table_addf(t, "%lld", (long long)v[i].writes);
		table_addf(t, "%lld", (long long)v[i].bytes_written);
		table_add(t, fmt_secs(buf, sizeof(buf), v[i].write));
		table_add(t, fmt_secs(buf, sizeof(buf), v[i].meta));
		table_none(t, "");
		table_add(t, fmt_secs(buf, sizeof(buf), v[i].read + v[i].write + v[i].meta));
	}
	free(v);
}

static void on_file(void *ctx, struct trace_node *n, const struct trace_file *f)
{
	struct ftab *ft = ctx;
	struct table *t = ft->t;
	struct ftime *tm;
	char buf[64];

	if (ft->from_calls)
		return;
	tm = lookup(ft, f->path, n->index, false);

	table_add(t, n->name);
	table_add(t, f->path);
	table_addf(t, "%lld", (long long)f->opens);
	table_addf(t, "%lld", (long long)f->reads);
	table_addf(t, "%lld", (long long)f->bytes_read);
	table_add(t, fmt_secs(buf, sizeof(buf), tm ? tm->read : 0));
	table_addf(t, "%lld", (long long)f->writes);
	table_addf(t, "%lld", (long long)f->bytes_written);
	table_add(t, fmt_secs(buf, sizeof(buf), tm ? tm->write : 0));
	table_add(t, fmt_secs(buf, sizeof(buf), tm ? tm->meta : 0));
	table_addf(t, "%lld", (long long)f->open_at_end);
	table_add(t, fmt_secs(buf, sizeof(buf), tm ? tm->read + tm->write + tm->meta : 0));
}

static const struct coldef cols[] = {
	{ "node", COL_TEXT, 0 }, { "path", COL_TEXT, 0 }, { "callsite", COL_TEXT, COL_OPT },
	{ "opens", COL_INT, 0 },
	{ "reads", COL_INT, 0 }, { "bytes_read", COL_INT, 0 }, { "read_s", COL_SECS, 0 },
	{ "writes", COL_INT, 0 }, { "bytes_written", COL_INT, 0 }, { "write_s", COL_SECS, 0 },
	/* total_s last: scripts read the columns before it by position */
	{ "other_s", COL_SECS, 0 }, { "open_at_end", COL_INT, 0 }, { "total_s", COL_SECS, 0 },
};
const struct tabledef files_tables[] = { TABLEDEF("files", cols), { NULL } };

static void *files_begin(struct trace_run *run)
{
	static const char *const by_site[] = { "callsite", NULL };
	struct ftab *ft = xcalloc(1, sizeof(*ft));

	ft->by_site = opt.by && !strcmp(opt.by, "callsite");
	ft->t = table_with(&files_tables[0], ft->by_site ? by_site : NULL);
	ft->from_calls = filter_timed() || filt.ncalls || filt.has_tid || ft->by_site;
	ft->run = run;
	return ft;
}

static void files_end(void *st, struct trace_run *run, char **files, int nfiles)
{
	struct ftab *ft = st;

	if (ft->from_calls)
		rows_from_calls(ft);
	table_emit(ft->t);
	free(ft->v);
	free(ft);
}

static const struct trace_ops files_ops = { .io = on_io, .file = on_file };
const struct passdef files_pass = { files_begin, &files_ops, files_end, false, NULL };

int report_files(int argc, char **argv)
{
	return pass_run(&files_pass, argc, argv);
}
