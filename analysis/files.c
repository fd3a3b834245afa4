/* files: per file usage: the capture's per-node <files> summary (opens,
 * data calls and bytes, descriptors open at the end), plus the time spent
 * in calls on that path, by res (read, write, other: open, close, stat,
 * seeks...). Memory: one entry per distinct path. */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

struct ftime {
	const char *path;	/* interned */
	int node;
	int64_t read, write, meta;
};

struct ftab {
	struct ftime *v;
	size_t n, cap;		/* open addressing, cap a power of two */
	struct table *t;
};

static size_t slot(const struct ftab *f, const char *path, int node)
{
	size_t h = ((uintptr_t)path >> 4) * 31 + (size_t)node;

	for (h &= f->cap - 1; f->v[h].path; h = (h + 1) & (f->cap - 1))
		if (f->v[h].path == path && f->v[h].node == node)
			break;
	return h;
}

static struct ftime *lookup(struct ftab *f, const char *path, int node, bool add)
{
	size_t h;

	path = intern(path);
	if (f->n * 2 >= f->cap) {
		struct ftab g = { .cap = f->cap ? f->cap * 2 : 64 };

		g.v = xcalloc(g.cap, sizeof(*g.v));
		for (size_t i = 0; i < f->cap; i++)
			if (f->v[i].path)
				g.v[slot(&g, f->v[i].path, f->v[i].node)] = f->v[i];
		free(f->v);
		f->v = g.v;
		f->cap = g.cap;
	}
	h = slot(f, path, node);
	if (!f->v[h].path) {
		if (!add)
			return NULL;
		f->v[h].path = path;
		f->v[h].node = node;
		f->n++;
	}
	return &f->v[h];
}

static void on_io(void *ctx, struct thread *t, const struct io *io)
{
	struct ftime *ft;

	if (!io->path)
		return;
	ft = lookup(ctx, io->path, t->node->index, true);
	if (io->res == RES_FILEREAD)
		ft->read += io->end - io->start;
	else if (io->res == RES_FILEWRITE)
		ft->write += io->end - io->start;
	else
		ft->meta += io->end - io->start;
}

static void on_file(void *ctx, struct node *n, const struct fileinfo *f)
{
	struct ftab *ft = ctx;
	struct table *t = ft->t;
	struct ftime *tm = lookup(ft, f->path, n->index, false);
	char buf[64];

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
}

int report_files(int argc, char **argv)
{
	static const char *const hdr[] = {
		"node", "path", "opens", "reads", "bytes_read", "read_s",
		"writes", "bytes_written", "write_s", "other_s", "open_at_end",
	};
	static const struct reader_ops ops = { .io = on_io, .file = on_file };
	struct run run = { 0 };
	struct ftab ft = { 0 };

	ft.t = table_new(11, hdr);
	table_align(ft.t, "llrrrrrrrrr");
	read_traces(&run, argv, argc, &ops, &ft);
	table_print(ft.t, stdout, opt.csv);
	table_free(ft.t);
	free(ft.v);
	run_free(&run);
	return 0;
}
