/* access: Darshan's access-pattern counters per file, from the data calls
 * and the file positions they imply:
 *   - positions are followed per (node, process, descriptor): an open puts
 *     it at 0, read/write-like calls start there and advance it by their
 *     amount, lseek sets it to its result, pread/pwrite use their offset
 *     and leave it; a dup copies it (the two are not kept shared); an
 *     O_APPEND write starts at the file's size when the trace shows it
 *     (after O_TRUNC or creat), else its offset is unknown;
 *   - consecutive: starts at the byte right after the previous access of
 *     that kind (read or write) on that file ended; sequential: starts
 *     there or later (so a consecutive access is also sequential, as in
 *     Darshan); the first access of a kind is neither;
 *   - sizes in Darshan's buckets, the four most common sizes (reads and
 *     writes together), and the accesses (and their bytes) that start at
 *     an offset that is not a multiple of --align (default 4096).
 * An access at an unknown offset counts in reads/writes and the sizes
 * only. Memory: one entry per file, descriptor and distinct size. */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

#define NBUCKETS 10
static const int64_t bucket_max[NBUCKETS - 1] = {
	100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600,
	1073741824,
};

struct sizecount {
	int64_t size, n;
};

enum kind { K_READ, K_WRITE };

struct afile {
	const char *path;	/* interned */
	const char *site;	/* --by callsite: interned label, else NULL */
	int node;
	int64_t n[2], bytes[2], consec[2], seq[2], hist[2][NBUCKETS];
	int64_t last_end[2];
	bool seen[2];
	int64_t size;		/* the file's size as far as the trace shows */
	bool size_known;
	int64_t unaligned, unaligned_bytes;
	struct sizecount *sizes;
	size_t nsizes, capsizes;
};

struct afd {
	int node;
	long pid;
	int64_t fd;
	const char *path;	/* interned; NULL: slot free */
	int64_t pos;
	bool known, append;
};

struct access {
	struct afile *files;
	size_t nfiles, capfiles;
	struct afd *fds;
	size_t nfds, capfds;
	int64_t align;
	bool by_site;
};

static const char *attr_of(const struct trace_io *io, const char *name)
{
	for (int i = 0; i < io->nattr; i++)
		if (!strcmp(io->attr[i].name, name))
			return io->attr[i].value;
	return NULL;
}

static bool int_of(const struct trace_io *io, const char *name, int64_t *v)
{
	const char *s = attr_of(io, name);
	char *end;

	if (!s)
		return false;
	*v = strtoll(s, &end, 10);
	return end != s && !*end;
}

/* --- files: (node, path) -------------------------------------------------- */

static size_t file_hash(int node, const char *path, const char *site, size_t cap)
{
	return ((((uintptr_t)path >> 3) * 31 + (size_t)node) * 31 + ((uintptr_t)site >> 3)) &
	       (cap - 1);
}

static struct afile *file_of(struct access *a, int node, const char *path, const char *site)
{
	size_t h;

	path = intern(path);
	if (a->nfiles * 2 >= a->capfiles) {
		size_t nc = a->capfiles ? a->capfiles * 2 : 64;
		struct afile *nv = xcalloc(nc, sizeof(*nv));

		for (size_t i = 0; i < a->capfiles; i++) {
			struct afile *f = &a->files[i];

			if (!f->path)
				continue;
			h = file_hash(f->node, f->path, f->site, nc);
			while (nv[h].path)
				h = (h + 1) & (nc - 1);
			nv[h] = *f;
		}
		free(a->files);
		a->files = nv;
		a->capfiles = nc;
	}
	h = file_hash(node, path, site, a->capfiles);
	while (a->files[h].path && !(a->files[h].path == path && a->files[h].node == node &&
				     a->files[h].site == site))
		h = (h + 1) & (a->capfiles - 1);
	if (!a->files[h].path) {
		a->files[h].path = path;
		a->files[h].site = site;
		a->files[h].node = node;
		a->nfiles++;
	}
	return &a->files[h];
}

/* --- descriptors: (node, pid, fd) ----------------------------------------- */

static size_t fd_hash(int node, long pid, int64_t fd, size_t cap)
{
	return (((size_t)node * 1000003u + (size_t)pid) * 31 + (size_t)fd) & (cap - 1);
}

static struct afd *fd_of(struct access *a, int node, long pid, int64_t fd, bool add)
{
	size_t h;

	if (add && a->nfds * 2 >= a->capfds) {
		size_t nc = a->capfds ? a->capfds * 2 : 64;
		struct afd *nv = xcalloc(nc, sizeof(*nv));

		for (size_t i = 0; i < a->capfds; i++) {
			struct afd *d = &a->fds[i];

			if (!d->path)
				continue;
			h = fd_hash(d->node, d->pid, d->fd, nc);
			while (nv[h].path)
				h = (h + 1) & (nc - 1);
			nv[h] = *d;
		}
		free(a->fds);
		a->fds = nv;
		a->capfds = nc;
	}
	if (!a->capfds)
		return NULL;
	h = fd_hash(node, pid, fd, a->capfds);
	while (a->fds[h].path &&
	       !(a->fds[h].node == node && a->fds[h].pid == pid && a->fds[h].fd == fd))
		h = (h + 1) & (a->capfds - 1);
	if (!a->fds[h].path) {
		if (!add)
			return NULL;
		a->fds[h].node = node;
		a->fds[h].pid = pid;
		a->fds[h].fd = fd;
		a->nfds++;
	}
	return &a->fds[h];
}

/* --- the calls ------------------------------------------------------------ */

static bool is(const char *api, const char *const *names)
{
	for (; *names; names++)
		if (!strcmp(api, *names))
			return true;
	return false;
}

static const char *const opens[] = { "open", "openat", "creat", "fopen", "freopen", NULL };
static const char *const dups[] = { "dup", "dup2", "dup3", "fcntl", NULL };
static const char *const positioned[] = {
	"pread", "pwrite", "preadv", "pwritev", "preadv2", "pwritev2", NULL,
};
static const char *const seeks[] = { "lseek", NULL };

static void on_open(struct access *a, struct trace_thread *t, const struct trace_io *io, int64_t fd)
{
	const char *fl = attr_of(io, "flags");
	struct afd *d = fd_of(a, t->node->index, t->proc->pid, fd, true);
	struct afile *f = file_of(a, t->node->index, io->path, NULL);
	bool trunc = !strcmp(io->api, "creat") ||
		     (fl && (strstr(fl, "O_TRUNC") || fl[0] == 'w'));

	d->path = intern(io->path);
	d->pos = 0;
	d->known = true;
	d->append = fl && (strstr(fl, "O_APPEND") || fl[0] == 'a');
	if (trunc) {
		f->size = 0;
		f->size_known = true;
	}
}

static void count_size(struct afile *f, int64_t size)
{
	for (size_t i = 0; i < f->nsizes; i++)
		if (f->sizes[i].size == size) {
			f->sizes[i].n++;
			return;
		}
	XGROW(f->sizes, f->capsizes, f->nsizes + 1);
	f->sizes[f->nsizes++] = (struct sizecount){ size, 1 };
}

/* One access: the file f's state (last ends, size) decides whether it is
 * consecutive or sequential, the counters go to c (f itself, or f's row
 * for the call site with --by callsite). */
static void access_at(struct access *a, struct afile *f, struct afile *c, enum kind k,
		      bool known, int64_t off, int64_t len)
{
	int b = 0;

	c->n[k]++;
	c->bytes[k] += len;
	while (b < NBUCKETS - 1 && len > bucket_max[b])
		b++;
	c->hist[k][b]++;
	count_size(c, len);
	if (!known)
		return;
	if (f->seen[k]) {
		c->consec[k] += off == f->last_end[k];
		c->seq[k] += off >= f->last_end[k];
	}
	f->seen[k] = true;
	f->last_end[k] = off + len;
	if (off % a->align) {
		c->unaligned++;
		c->unaligned_bytes += len;
	}
	if (k == K_WRITE && f->size_known && off + len > f->size)
		f->size = off + len;
}

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	struct access *a = ctx;
	int64_t fd, off, v;
	struct afd *d;
	enum kind k;
	bool known;

	if (io->failed || !int_of(io, "fd", &fd) || !t->proc)
		return;
	if (is(io->api, opens)) {
		if (io->path)
			on_open(a, t, io, fd);
		return;
	}
	if (is(io->api, dups)) {
		struct afd *old, copy;

		if (!int_of(io, "oldfd", &v) ||
		    !(old = fd_of(a, t->node->index, t->proc->pid, v, false)))
			return;
		copy = *old;
		d = fd_of(a, t->node->index, t->proc->pid, fd, true);
		copy.fd = fd;
		*d = copy;
		return;
	}
	d = fd_of(a, t->node->index, t->proc->pid, fd, false);
	if (is(io->api, seeks)) {
		if (d && int_of(io, "result", &v)) {
			d->pos = v;
			d->known = true;
		} else if (d && int_of(io, "offset", &off)) {
			const char *w = attr_of(io, "whence");

			/* lseek's result is its amount-less return value */
			d->known = w && !strcmp(w, "SEEK_SET");
			d->pos = off;
		}
		return;
	}
	if (!io->path || !io->has_amount ||
	    (io->res != TRACE_RES_FILEREAD && io->res != TRACE_RES_FILEWRITE))
		return;
	k = io->res == TRACE_RES_FILEREAD ? K_READ : K_WRITE;
	struct afile *f = file_of(a, t->node->index, io->path, NULL);
	struct afile *c = a->by_site ? file_of(a, t->node->index, io->path,
					       site_label(t, io->site)) : f;

	if (is(io->api, positioned) && int_of(io, "offset", &off)) {
		known = true;
	} else if (d && d->path == intern(io->path)) {
		if (k == K_WRITE && d->append) {
			known = f->size_known;
			d->pos = f->size;
		} else {
			known = d->known;
		}
		off = d->pos;
		d->pos += io->amount;
	} else {
		known = false;
		off = 0;
	}
	if (io->amount || known)
		access_at(a, f, c, k, known, off, io->amount);
}

/* --- the table ------------------------------------------------------------ */

static struct trace_run *the_run;

static int cmp_file(const void *x, const void *y)
{
	const struct afile *a = x, *b = y;

	int r;

	if (a->node != b->node)
		return a->node - b->node;
	r = strcmp(a->path, b->path);
	return r || !a->site ? r : strcmp(a->site, b->site);
}

static int cmp_size(const void *x, const void *y)
{
	const struct sizecount *a = x, *b = y;

	if (a->n != b->n)
		return a->n < b->n ? 1 : -1;
	return (a->size > b->size) - (a->size < b->size);
}

static void add_row(struct table *t, struct afile *f)
{
	table_add(t, the_run->nodes[f->node]->name);
	table_add(t, f->path);
	if (f->site)
		table_add(t, f->site);
	for (int k = 0; k < 2; k++)
		table_addf(t, "%lld", (long long)f->n[k]);
	for (int k = 0; k < 2; k++)
		table_addf(t, "%lld", (long long)f->bytes[k]);
	for (int k = 0; k < 2; k++)
		table_addf(t, "%lld", (long long)f->consec[k]);
	for (int k = 0; k < 2; k++)
		table_addf(t, "%lld", (long long)f->seq[k]);
	table_addf(t, "%lld", (long long)f->unaligned);
	table_addf(t, "%lld", (long long)f->unaligned_bytes);
	for (int k = 0; k < 2; k++)
		for (int b = 0; b < NBUCKETS; b++)
			table_addf(t, "%lld", (long long)f->hist[k][b]);
	qsort(f->sizes, f->nsizes, sizeof(*f->sizes), cmp_size);
	for (size_t i = 0; i < 4; i++) {
		if (i < f->nsizes) {
			table_addf(t, "%lld", (long long)f->sizes[i].size);
			table_addf(t, "%lld", (long long)f->sizes[i].n);
		} else {
			table_none(t, "");
			table_none(t, "");
		}
	}
}

/* Darshan's size buckets (bucket_max's, in order), then the four most
 * common sizes. */
#define BUCKETS(rw) \
	{ rw "_0_100", COL_INT, 0 }, { rw "_100_1K", COL_INT, 0 }, \
	{ rw "_1K_10K", COL_INT, 0 }, { rw "_10K_100K", COL_INT, 0 }, \
	{ rw "_100K_1M", COL_INT, 0 }, { rw "_1M_4M", COL_INT, 0 }, \
	{ rw "_4M_10M", COL_INT, 0 }, { rw "_10M_100M", COL_INT, 0 }, \
	{ rw "_100M_1G", COL_INT, 0 }, { rw "_1G_PLUS", COL_INT, 0 }
#define COMMON(i) { "access" #i, COL_INT, 0 }, { "access" #i "_count", COL_INT, 0 }
static const struct coldef cols[] = {
	{ "node", COL_TEXT, 0 }, { "path", COL_TEXT, 0 }, { "callsite", COL_TEXT, COL_OPT },
	{ "reads", COL_INT, 0 }, { "writes", COL_INT, 0 }, { "bytes_read", COL_INT, 0 },
	{ "bytes_written", COL_INT, 0 }, { "consec_reads", COL_INT, 0 },
	{ "consec_writes", COL_INT, 0 }, { "seq_reads", COL_INT, 0 },
	{ "seq_writes", COL_INT, 0 }, { "unaligned", COL_INT, 0 },
	{ "unaligned_bytes", COL_INT, 0 }, BUCKETS("r"), BUCKETS("w"),
	COMMON(1), COMMON(2), COMMON(3), COMMON(4),
};
const struct tabledef access_tables[] = { TABLEDEF("access", cols), { NULL } };

int report_access(int argc, char **argv)
{
	static const char *const by_site[] = { "callsite", NULL };
	static const struct trace_ops ops = { .io = on_io };
	struct trace_run run = { 0 };
	struct access a = { .align = opt.align ? opt.align : 4096 };
	struct afile *rows;
	size_t n = 0;
	struct table *t;

	a.by_site = opt.by && !strcmp(opt.by, "callsite");
	t = table_with(&access_tables[0], a.by_site ? by_site : NULL);
	read_traces(&run, argv, argc, &ops, &a);
	the_run = &run;
	rows = xcalloc(a.nfiles ? a.nfiles : 1, sizeof(*rows));
	for (size_t i = 0; i < a.capfiles; i++)
		if (a.files[i].path && (a.files[i].n[0] || a.files[i].n[1]))
			rows[n++] = a.files[i];
	qsort(rows, n, sizeof(*rows), cmp_file);
	for (size_t i = 0; i < n; i++)
		add_row(t, &rows[i]);
	table_emit(t);
	for (size_t i = 0; i < a.capfiles; i++)
		free(a.files[i].sizes);
	free(rows);
	free(a.files);
	free(a.fds);
	run_free(&run);
	return 0;
}
