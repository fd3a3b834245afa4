/* access: Darshan's access-pattern counters per file, from the data calls
 * and the file positions they imply:
 *   - positions are followed per open file, which descriptors (node,
 *     process, fd) point to: an open makes one at 0; a dup makes the new
 *     descriptor share the old one's (as the kernel does); read/write-like
 *     calls (read, write, fread, fgets, fprintf, ...) start there and
 *     advance it by their amount; pread/pwrite use their offset and leave
 *     it; lseek sets it to its result; fseek and fsetpos to their offset
 *     (SEEK_CUR from a known position, SEEK_END from a known size), rewind
 *     to 0, ftell re-anchors it on its result; an O_APPEND write starts at
 *     the file's size when the trace shows it (after O_TRUNC, creat,
 *     ftruncate, truncate or an lseek to SEEK_END), else its offset is
 *     unknown, as is the position after a seek from an unknown one;
 *   - a descriptor the process did not open in the trace (inherited from
 *     its parent, or opened before the capture) has an unknown position
 *     until a seek that tells it;
 *   - consecutive: starts at the byte right after the previous access of
 *     that kind (read or write) on that file ended; sequential: starts
 *     there or later (so a consecutive access is also sequential, as in
 *     Darshan); the first access of a kind is neither;
 *   - sizes in Darshan's buckets, the four most common sizes (reads and
 *     writes together), and the accesses (and their bytes) that start at
 *     an offset that is not a multiple of --align (default 4096).
 * An access at an unknown offset counts in reads/writes and the sizes
 * only. With --syscalls, the system calls are the accesses (a libc-only
 * element is not counted again). Memory: one entry per file, descriptor, open file and distinct
 * size. */
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
	struct sizecount *sizes;	/* open addressing by size; n 0: free */
	size_t nsizes, capsizes;
};

/* An open file description: what dup'ed descriptors share. */
struct aopen {
	const char *path;	/* interned */
	int64_t pos;
	bool known, append;
	int refs;		/* descriptors on it; 0: on the free list */
	int next_free;
};

struct afd {
	int node;
	long pid;
	int64_t fd;
	bool used;		/* slot taken (the key stays) */
	int open;		/* index in opens, -1: closed or not known */
};

/* What a call does to its descriptor's position (E_DATA: any other call;
 * a data call on a file starts at the position and advances it). */
enum effect {
	E_DATA, E_OPEN, E_DUP, E_CLOSE, E_AT, E_SEEK, E_SETPOS, E_REWIND,
	E_TELL, E_TRUNC,
};

static const struct {
	const char *api;
	enum effect e;
} effects[] = {
	{ "open", E_OPEN }, { "openat", E_OPEN }, { "openat2", E_OPEN },
	{ "creat", E_OPEN }, { "fopen", E_OPEN }, { "freopen", E_OPEN },
	{ "mkstemp", E_OPEN }, { "mkostemp", E_OPEN }, { "mkstemps", E_OPEN },
	{ "mkostemps", E_OPEN }, { "tmpfile", E_OPEN },
	{ "dup", E_DUP }, { "dup2", E_DUP }, { "dup3", E_DUP }, { "fcntl", E_DUP },
	{ "close", E_CLOSE }, { "fclose", E_CLOSE },
	/* --syscalls writes the kernel's names */
	{ "pread", E_AT }, { "pwrite", E_AT }, { "pread64", E_AT }, { "pwrite64", E_AT },
	{ "preadv", E_AT }, { "pwritev", E_AT }, { "preadv2", E_AT }, { "pwritev2", E_AT },
	{ "lseek", E_SEEK }, { "fseek", E_SEEK }, { "fseeko", E_SEEK },
	{ "fsetpos", E_SETPOS }, { "rewind", E_REWIND },
	{ "ftell", E_TELL }, { "ftello", E_TELL },
	{ "ftruncate", E_TRUNC }, { "truncate", E_TRUNC },
};

struct access {
	struct afile *files;
	size_t nfiles, capfiles;
	struct afd *fds;
	size_t nfds, capfds;
	struct aopen *opens;
	size_t nopens, capopens;
	int free_open;		/* -1: none */
	struct effcache {
		const char *api;	/* trace_io.api: one pointer per name */
		enum effect e;
	} *eff;
	size_t neff, capeff;
	int64_t align;
	bool by_site;
};

/* --- files: (node, path) -------------------------------------------------- */

static size_t file_hash(int node, const char *path, const char *site, size_t cap)
{
	return ((((uintptr_t)path >> 3) * 31 + (size_t)node) * 31 + ((uintptr_t)site >> 3)) &
	       (cap - 1);
}

static size_t file_slot(const struct access *a, int node, const char *path, const char *site)
{
	size_t h = file_hash(node, path, site, a->capfiles);

	while (a->files[h].path && !(a->files[h].path == path && a->files[h].node == node &&
				     a->files[h].site == site))
		h = (h + 1) & (a->capfiles - 1);
	return h;
}

/* Finding a file that is there moves none (the table grows on adding). */
static struct afile *file_of(struct access *a, int node, const char *path, const char *site)
{
	size_t h;

	path = intern(path);
	if (a->capfiles && a->files[h = file_slot(a, node, path, site)].path)
		return &a->files[h];
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
	h = file_slot(a, node, path, site);
	a->files[h].path = path;
	a->files[h].site = site;
	a->files[h].node = node;
	a->nfiles++;
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

			if (!d->used)
				continue;
			h = fd_hash(d->node, d->pid, d->fd, nc);
			while (nv[h].used)
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
	while (a->fds[h].used &&
	       !(a->fds[h].node == node && a->fds[h].pid == pid && a->fds[h].fd == fd))
		h = (h + 1) & (a->capfds - 1);
	if (!a->fds[h].used) {
		if (!add)
			return NULL;
		a->fds[h] = (struct afd){ node, pid, fd, true, -1 };
		a->nfds++;
	}
	return &a->fds[h];
}

/* --- open files ----------------------------------------------------------- */

static void release(struct access *a, struct afd *d)
{
	struct aopen *o;

	if (d->open < 0)
		return;
	o = &a->opens[d->open];
	if (--o->refs == 0) {
		o->next_free = a->free_open;
		a->free_open = d->open;
	}
	d->open = -1;
}

/* d on a new open file of path (interned) at 0 */
static struct aopen *open_new(struct access *a, struct afd *d, const char *path)
{
	int k;

	release(a, d);
	k = a->free_open;
	if (k >= 0) {
		a->free_open = a->opens[k].next_free;
	} else {
		XGROW(a->opens, a->capopens, a->nopens + 1);
		k = (int)a->nopens++;
	}
	a->opens[k] = (struct aopen){ path, 0, true, false, 1, -1 };
	d->open = k;
	return &a->opens[k];
}

/* The open file of a descriptor of t, or NULL. */
static struct aopen *open_of(struct access *a, struct trace_thread *t, int64_t fd)
{
	struct afd *d = fd_of(a, t->node->index, t->proc->pid, fd, false);

	return d && d->open >= 0 ? &a->opens[d->open] : NULL;
}

/* --- the calls ------------------------------------------------------------ */

/* Once per call name. */
static enum effect effect_of(struct access *a, const char *api)
{
	size_t h;

	if (a->neff * 2 >= a->capeff) {
		size_t nc = a->capeff ? a->capeff * 2 : 64, g;
		struct effcache *nv = xcalloc(nc, sizeof(*nv));

		for (size_t i = 0; i < a->capeff; i++) {
			if (!a->eff[i].api)
				continue;
			for (g = ((uintptr_t)a->eff[i].api >> 4) & (nc - 1); nv[g].api;
			     g = (g + 1) & (nc - 1))
				;
			nv[g] = a->eff[i];
		}
		free(a->eff);
		a->eff = nv;
		a->capeff = nc;
	}
	for (h = ((uintptr_t)api >> 4) & (a->capeff - 1); a->eff[h].api;
	     h = (h + 1) & (a->capeff - 1))
		if (a->eff[h].api == api)
			return a->eff[h].e;
	a->eff[h].api = api;
	a->eff[h].e = E_DATA;
	for (size_t i = 0; i < sizeof(effects) / sizeof(effects[0]); i++)
		if (!strcmp(api, effects[i].api))
			a->eff[h].e = effects[i].e;
	a->neff++;
	return a->eff[h].e;
}

/* --- the calls ------------------------------------------------------------ */

static void on_open(struct access *a, struct trace_thread *t, const struct trace_io *io)
{
	const char *fl = io->flags;
	struct afd *d = fd_of(a, t->node->index, t->proc->pid, io->fd, true);
	struct afile *f = file_of(a, t->node->index, io->path, NULL);
	struct aopen *o = open_new(a, d, f->path);

	o->append = fl && (strstr(fl, "O_APPEND") || fl[0] == 'a');
	if (!strcmp(io->api, "creat") || (fl && (strstr(fl, "O_TRUNC") || fl[0] == 'w'))) {
		f->size = 0;
		f->size_known = true;
	}
}

static void on_dup(struct access *a, struct trace_thread *t, const struct trace_io *io)
{
	struct afd *old, *d;

	if (!io->has_oldfd || io->oldfd == io->fd)
		return;
	d = fd_of(a, t->node->index, t->proc->pid, io->fd, true);
	old = fd_of(a, t->node->index, t->proc->pid, io->oldfd, false);
	release(a, d);
	if (old && old->open >= 0) {
		d->open = old->open;
		a->opens[d->open].refs++;
	}
}

/* A seek, fsetpos, rewind or ftell: the position it tells, if any. */
static void on_seek(struct access *a, struct trace_thread *t, const struct trace_io *io,
		    enum effect e)
{
	struct aopen *o = open_of(a, t, io->fd);
	struct afile *f;
	const char *w = io->whence;
	int64_t base = 0;
	bool known = true;

	if (!o) {
		/* a descriptor opened out of sight: a seek can tell where it is */
		if (!io->path)
			return;
		o = open_new(a, fd_of(a, t->node->index, t->proc->pid, io->fd, true),
			     intern(io->path));
		o->known = false;
	}
	f = file_of(a, t->node->index, o->path, NULL);
	if (e == E_SEEK && io->has_result) {
		/* lseek's new offset; to the end, it tells the size */
		if (w && !strcmp(w, "SEEK_END") && io->has_offset) {
			f->size = io->result - io->offset;
			f->size_known = true;
		}
		o->pos = io->result;
		o->known = true;
		return;
	}
	if (e == E_REWIND || e == E_TELL) {
		o->pos = e == E_REWIND ? 0 : io->result;
		o->known = e == E_REWIND || io->has_result;
		return;
	}
	if (!io->has_offset) {
		o->known = false;
		return;
	}
	/* fseek tells no result: from its whence */
	if (e == E_SEEK && (!w || strcmp(w, "SEEK_SET"))) {
		if (w && !strcmp(w, "SEEK_CUR")) {
			base = o->pos;
			known = o->known;
		} else if (w && !strcmp(w, "SEEK_END")) {
			base = f->size;
			known = f->size_known;
		} else {
			known = false;
		}
	}
	o->pos = base + io->offset;
	o->known = known;
}

static void on_trunc(struct access *a, struct trace_thread *t, const struct trace_io *io)
{
	struct aopen *o = io->has_fd ? open_of(a, t, io->fd) : NULL;
	const char *path = o ? o->path : io->path;
	struct afile *f;

	if (!path)
		return;
	f = file_of(a, t->node->index, path, NULL);
	f->size = io->size;
	f->size_known = true;
}

static size_t size_slot(const struct sizecount *v, size_t cap, int64_t size)
{
	size_t h = ((uint64_t)size * 0x9E3779B97F4A7C15ull) >> 32;

	for (h &= cap - 1; v[h].n && v[h].size != size; h = (h + 1) & (cap - 1))
		;
	return h;
}

/* A program may use thousands of sizes: hashed. */
static void count_size(struct afile *f, int64_t size)
{
	size_t h;

	if (f->nsizes * 2 >= f->capsizes) {
		size_t nc = f->capsizes ? f->capsizes * 2 : 16;
		struct sizecount *nv = xcalloc(nc, sizeof(*nv));

		for (size_t i = 0; i < f->capsizes; i++)
			if (f->sizes[i].n)
				nv[size_slot(nv, nc, f->sizes[i].size)] = f->sizes[i];
		free(f->sizes);
		f->sizes = nv;
		f->capsizes = nc;
	}
	h = size_slot(f->sizes, f->capsizes, size);
	if (!f->sizes[h].n++) {
		f->sizes[h].size = size;
		f->nsizes++;
	}
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
	struct aopen *o;
	struct afile *f, *c;
	int64_t off = 0;
	enum effect e;
	enum kind k;
	bool known = false;

	access_mpiio_io(t, io);
	/* --syscalls: a stdio call seen by libc only has its system calls
	 * (the flushes, refills and lseeks) as elements of their own: the
	 * positions and bytes are theirs */
	if (io->failed || io->libc_only || !t->proc)
		return;
	e = effect_of(a, io->api);
	if (e == E_TRUNC) {
		on_trunc(a, t, io);
		return;
	}
	/* a data call may name its file without a descriptor (msync: the
	 * mapping's file): its bytes count, at a position not known */
	if (!io->has_fd && e != E_DATA)
		return;
	switch (e) {
	case E_OPEN:
		if (io->path)
			on_open(a, t, io);
		return;
	case E_DUP:
		on_dup(a, t, io);
		return;
	case E_CLOSE: {
		struct afd *d = fd_of(a, t->node->index, t->proc->pid, io->fd, false);

		if (d)
			release(a, d);
		return;
	}
	case E_SEEK: case E_SETPOS: case E_REWIND: case E_TELL:
		on_seek(a, t, io, e);
		return;
	default:
		break;
	}
	if (!io->path || !io->has_amount ||
	    (io->res != TRACE_RES_FILEREAD && io->res != TRACE_RES_FILEWRITE))
		return;
	k = io->res == TRACE_RES_FILEREAD ? K_READ : K_WRITE;
	o = io->has_fd ? open_of(a, t, io->fd) : NULL;
	if (o && strcmp(o->path, io->path))
		o = NULL;	/* a descriptor reused out of sight */
	f = file_of(a, t->node->index, o ? o->path : io->path, NULL);
	c = f;
	if (a->by_site) {	/* adding c may move f */
		c = file_of(a, t->node->index, f->path, site_label(t, io->site));
		f = file_of(a, t->node->index, c->path, NULL);
	}
	if (e == E_AT && io->has_offset && io->offset != -1) {
		/* preadv2 and pwritev2 at -1 use the position */
		off = io->offset;
		known = true;
	} else if (o) {
		if (k == K_WRITE && o->append) {
			o->pos = f->size;
			o->known = f->size_known;
		}
		off = o->pos;
		known = o->known;
		o->pos += io->amount;
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
	for (size_t i = 0, k = 0; i < f->capsizes; i++)	/* the used slots first */
		if (f->sizes[i].n)
			f->sizes[k++] = f->sizes[i];
	if (f->nsizes > 1)
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
const struct tabledef access_tables[] = {
	TABLEDEF("access", cols),
	{ "mpiio", access_mpiio_cols, ACCESS_MPIIO_NCOLS, NULL },
	{ NULL }
};

static void *access_begin(struct trace_run *run)
{
	struct access *a = xcalloc(1, sizeof(*a));

	a->align = opt.align ? opt.align : 4096;
	a->free_open = -1;
	a->by_site = opt.by && !strcmp(opt.by, "callsite");
	return a;
}

static void access_end(void *st, struct trace_run *run, char **files, int nfiles)
{
	static const char *const by_site[] = { "callsite", NULL };
	struct access *a = st;
	struct afile *rows;
	size_t n = 0;
	struct table *t = table_with(&access_tables[0], a->by_site ? by_site : NULL);

	the_run = run;
	rows = xcalloc(a->nfiles ? a->nfiles : 1, sizeof(*rows));
	for (size_t i = 0; i < a->capfiles; i++)
		if (a->files[i].path && (a->files[i].n[0] || a->files[i].n[1]))
			rows[n++] = a->files[i];
	qsort(rows, n, sizeof(*rows), cmp_file);
	for (size_t i = 0; i < n; i++)
		add_row(t, &rows[i]);
	table_emit(t);
	access_mpiio_emit(&access_tables[1]);
	for (size_t i = 0; i < a->capfiles; i++)
		free(a->files[i].sizes);
	free(rows);
	free(a->files);
	free(a->fds);
	free(a->opens);
	free(a->eff);
	free(a);
}

static const struct trace_ops access_ops = { .io = on_io };
const struct passdef access_pass = { access_begin, &access_ops, access_end, false, NULL };

int report_access(int argc, char **argv)
{
	return pass_run(&access_pass, argc, argv);
}
