/* Dummy files: what the trace reads but did not create must exist before
 * the replay starts, with at least the bytes it reads, so that a replay
 * runs on an empty machine. The first thing the trace does to a path says
 * whether it was there: a truncating create made it, a successful open,
 * stat or read found it. */
#include "exec.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int open_flags(const char *s, const char *api);

enum { UNSEEN, CREATED, EXCL, EXISTS, MAYBE, ABSENT };

struct ent {
	const char *path;
	int state, dir, excl;
	int changed;		/* written, sized, moved or removed by the trace */
	int shared;		/* a thread other than its creator's used it */
	const struct thread *by;	/* who made it (CREATED, EXCL) */
	int64_t need;
	int64_t made;		/* when the call that created it ended */
};

struct fdpos {
	uint64_t key;
	const char *path;
	int64_t pos;
};

struct scan {
	struct ent *e;
	size_t ne, ecap;
	struct fdpos *f;
	size_t nf, fcap;
};

static struct ent *ent(struct scan *s, const char *path)
{
	for (size_t i = s->ne; i-- > 0;)
		if (s->e[i].path == path)
			return &s->e[i];
	XGROW(s->e, s->ecap, s->ne + 1);
	s->e[s->ne] = (struct ent){ .path = path };
	return &s->e[s->ne++];
}

static struct fdpos *fdpos(struct scan *s, uint64_t key)
{
	for (size_t i = 0; i < s->nf; i++)
		if (s->f[i].key == key)
			return &s->f[i];
	XGROW(s->f, s->fcap, s->nf + 1);
	s->f[s->nf] = (struct fdpos){ .key = key };
	return &s->f[s->nf++];
}

static void see(struct ent *e, int state)
{
	if (e->state == UNSEEN)
		e->state = state;
}

static void one(struct scan *s, const struct op *o, uint64_t pk, const struct thread *th,
		int64_t t)
{
	/* a libc-level transfer's bytes are its kernel elements' */
	if (!o->call || !o->path || o->path[0] != '/' || sandbox_passthrough(o->path) ||
	    o->libc_only)
		return;
	struct ent *e = ent(s, o->path);
	call_fn fn = o->call->fn;

	if (e->by && e->by != th)
		e->shared = 1;

	/* a create still running when another call found the path did not
	 * come first: a FIFO's writer opening with O_CREAT waits for its
	 * reader's open */
	if ((e->state == CREATED || e->state == MAYBE) && t < e->made &&
	    (fn == h_read || (fn == h_open && !(open_flags(o->flags, o->call->api) & O_CREAT))))
		e->state = EXISTS;

	if (o->failed) {
		see(e, ABSENT);
		return;
	}
	if (fn == h_write || fn == h_trunc || fn == h_falloc || fn == h_copy ||
	    fn == h_rename || fn == h_unlink || fn == h_sync ||
	    (fn == h_open && (open_flags(o->flags, o->call->api) & (O_TRUNC | O_WRONLY | O_RDWR))))
		e->changed = 1;
	if (fn == h_open) {
		int fl = open_flags(o->flags, o->call->api);
		if (e->state == UNSEEN)
			e->made = t + o->dur;
		if (e->state == UNSEEN && (fl & O_CREAT) && (fl & (O_EXCL | O_TRUNC)))
			e->by = th;
		see(e, !(fl & O_CREAT) ? EXISTS : (fl & O_EXCL) ? EXCL : (fl & O_TRUNC) ? CREATED : MAYBE);
		e->excl |= (fl & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
		if (fl & O_DIRECTORY)
			e->dir = 1;
		struct fdpos *p = fdpos(s, pk | (uint32_t)o->fd);
		p->path = o->path;
		p->pos = 0;
	} else if (fn == h_mkdir) {
		see(e, CREATED);
		e->dir = 1;
	} else if (fn == h_symlink) {
		see(e, CREATED);	/* the link; its target is not touched */
	} else if (fn == h_rename || fn == h_link) {
		see(e, EXISTS);
		if (o->path2)
			see(ent(s, o->path2), CREATED);
	} else if (fn == h_read || fn == h_copy) {
		see(e, EXISTS);
		int fd = fn == h_copy ? o->infd : o->fd;
		const char *path = fn == h_copy ? o->inpath : o->path;
		if (!path || fd < 0)
			return;
		struct ent *src = ent(s, path);
		struct fdpos *p = fdpos(s, pk | (uint32_t)fd);
		int64_t end;
		if (o->has_offset && o->whence < 0) {
			end = o->offset + o->amount;
		} else {
			p->pos += o->amount;
			end = p->pos;
		}
		see(src, EXISTS);
		if (end > src->need)
			src->need = end;
	} else if (fn == h_seek) {
		struct fdpos *p = fdpos(s, pk | (uint32_t)o->fd);
		p->pos = o->has_result && o->result >= 0 ? o->result : o->offset;
		see(e, EXISTS);
	} else if (fn == h_write || fn == h_sync || fn == h_trunc) {
		see(e, MAYBE);
	} else {
		see(e, EXISTS);	/* stat, unlink, ... found it */
	}
}

struct tref {
	int64_t t;
	const struct op *o;
	uint64_t pk;
	const struct thread *th;
};

static int by_time(const void *a, const void *b)
{
	const struct tref *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t ? 1 : (x->o > y->o) - (x->o < y->o);
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->path, ((const struct ent *)b)->path);
}

/* What the trace did to DIR (sorted ents): UNSEEN when nothing */
static int dir_state(const struct ent *e, size_t n, const char *dir)
{
	const struct ent key = { .path = dir };
	const struct ent *hit = n ? bsearch(&key, e, n, sizeof(*e), by_path) : NULL;

	return hit ? hit->state : UNSEEN;
}

/* The directories the trace's files were made in: they were there (the
 * create succeeded and no call of the trace made them), so they are made
 * before the replay, not by its first open in a fresh root, which paid
 * a file system's mkdir (0.3 ms on ext4) that the run never did. Each
 * file's deepest such directory, as (path, len): a directory the trace
 * made or found absent stops the walk (its replay makes it). */
static size_t parents_needed(struct scan *s, struct fileneed **f, size_t nf, size_t *fcap)
{
	char dir[4096];
	const char *last = NULL;
	size_t lastlen = 0;

	if (s->ne > 1)	/* (none: no array at all) */
		qsort(s->e, s->ne, sizeof(*s->e), by_path);
	for (size_t i = 0; i < s->ne; i++) {
		const struct ent *e = &s->e[i];
		size_t len = 0;

		if (e->state != CREATED && e->state != EXCL && e->state != MAYBE)
			continue;
		for (const char *c = strchr(e->path + 1, '/'); c; c = strchr(c + 1, '/')) {
			size_t l = (size_t)(c - e->path);
			if (l >= sizeof(dir))
				break;
			memcpy(dir, e->path, l);
			dir[l] = 0;
			int st = dir_state(s->e, s->ne, dir);
			if (st != UNSEEN && st != EXISTS)
				break;
			len = l;
		}
		if (!len || (last && lastlen == len && !strncmp(last, e->path, len)))
			continue;
		XGROW(*f, *fcap, nf + 1);
		(*f)[nf++] = (struct fileneed){ e->path, 0, 1, len, -1 };
		last = e->path;
		lastlen = len;
	}
	return nf;
}

static const struct filesz *file_size(const struct trace *t, const int *sel, const char *path)
{
	for (size_t k = 0; k < t->nnodes; k++)
		for (size_t i = 0; sel[k] && i < t->nodes[k].nfsz; i++)
			if (t->nodes[k].fsz[i].path == path)
				return &t->nodes[k].fsz[i];
	return NULL;
}

size_t files_needed(const struct trace *t, const int *sel, int unordered, struct fileneed **out)
{
	struct scan s = { 0 };
	struct tref *all = NULL;
	size_t n = 0, cap = 0;
	int64_t e0 = INT64_MAX;

	for (size_t k = 0; k < t->nnodes; k++)
		if (sel[k] && t->nodes[k].epoch < e0)
			e0 = t->nodes[k].epoch;
	for (size_t k = 0; k < t->nnodes; k++) {
		const struct node *nd = &t->nodes[k];
		if (!sel[k])
			continue;
		for (size_t i = 0; i < nd->nthreads; i++)
			for (size_t j = 0; j < nd->threads[i].nops; j++) {
				const struct op *o = &nd->threads[i].ops[j];
				if (o->kind != OP_IO || (!o->path && !o->inpath))
					continue;
				XGROW(all, cap, n + 1);
				all[n++] = (struct tref){ nd->epoch - e0 + o->start, o,
					((uint64_t)k << 48) | ((uint64_t)nd->threads[i].proc << 32),
					&nd->threads[i] };
			}
	}
	if (n)
		qsort(all, n, sizeof(*all), by_time);
	for (size_t i = 0; i < n; i++)
		one(&s, all[i].o, all[i].pk, all[i].th, all[i].t);
	free(all);
	free(s.f);

	struct fileneed *f = NULL;
	size_t nf = 0, fcap = 0;
	for (size_t i = 0; i < s.ne; i++) {
		struct ent *e = &s.e[i];
		/* an exclusive create proves the file was not there: a root
		 * replayed into before, or a dummy made for a reader, must
		 * not make it fail */
		if (e->excl && (e->state == EXCL || e->state == ABSENT)) {
			XGROW(f, fcap, nf + 1);
			f[nf++] = (struct fileneed){ e->path, -1, 0, 0, -1 };
			continue;
		}
		/* without causality a reader may run before its writer: what
		 * anyone reads exists from the start, but for a file the trace
		 * made that only its maker's thread used (its calls keep
		 * their order) */
		if (e->state != EXISTS && !((e->state == MAYBE || unordered) && e->need > 0))
			continue;
		if (e->state == CREATED && !e->shared)
			continue;
		size_t len = strlen(e->path);
		for (size_t j = 0; j < s.ne && !e->dir; j++)
			if (!strncmp(s.e[j].path, e->path, len) && s.e[j].path[len] == '/')
				e->dir = 1;
		XGROW(f, fcap, nf + 1);
		f[nf++] = (struct fileneed){ e->path, e->dir ? 0 : e->need, e->dir, 0, -1 };
		/* found and left as it was: its size and layout at the end
		 * were its size and layout at the start */
		const struct filesz *z = e->dir || e->changed || e->state != EXISTS ? NULL :
					 file_size(t, sel, e->path);
		if (z && z->size > f[nf - 1].size) {
			f[nf - 1].size = z->size;
			if (z->alloc >= 0 && z->alloc < z->size)
				f[nf - 1].data = e->need > z->alloc ? e->need : z->alloc;
		}
	}
	nf = parents_needed(&s, &f, nf, &fcap);
	free(s.e);
	*out = f;
	return nf;
}

int files_prepare(int rootfd, const struct fileneed *f, size_t n)
{
	static char block[1 << 20];
	char rel[4096];
	int made = 0;

	memset(block, 'd', sizeof(block));
	for (size_t i = 0; i < n; i++) {
		const char *base;
		const char *path = f[i].path;
		char dir[4096];

		if (f[i].len) {
			if (f[i].len >= sizeof(dir))
				continue;
			memcpy(dir, path, f[i].len);
			dir[f[i].len] = 0;
			path = dir;
		}
		if (!sandbox_map(path, "/", rel, sizeof(rel)) || !strcmp(rel, "."))
			continue;
		int d;
		if (f[i].size < 0) {
			d = sandbox_parent(rootfd, rel, 0, &base);
			if (d >= 0) {
				char b[256];
				snprintf(b, sizeof(b), "%s", base);
				unlinkat(d, b, 0);
				close(d);
			}
			continue;
		}
		d = sandbox_parent(rootfd, rel, 1, &base);
		if (d < 0)
			return -1;
		close(d);
		if (f[i].dir) {
			d = sandbox_parent(rootfd, rel, 1, &base);
			if (d >= 0) {
				char b[256];
				snprintf(b, sizeof(b), "%s", base);
				if (mkdirat(d, b, 0755) && errno != EEXIST) {
					close(d);
					return -1;
				}
				close(d);
			}
			made++;
			continue;
		}
		int fd = sandbox_openat(rootfd, rel, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0) {
			if (errno == EISDIR)
				continue;
			return -1;
		}
		struct stat st;
		/* real blocks, not a hole: a read must reach the device; a
		 * file the run found sparse keeps its holes (data: the bytes
		 * it had, from the start) */
		int64_t end = f[i].data >= 0 && f[i].data < f[i].size ? f[i].data : f[i].size;
		if (!fstat(fd, &st) && st.st_size < f[i].size) {
			int64_t off = st.st_size;
			if (end < f[i].size && ftruncate(fd, (off_t)f[i].size)) {
				close(fd);
				return -1;
			}
			while (off < end) {
				size_t k = (size_t)(end - off) < sizeof(block) ?
					   (size_t)(end - off) : sizeof(block);
				ssize_t w = pwrite(fd, block, k, off);
				if (w <= 0) {
					close(fd);
					return -1;
				}
				off += w;
			}
		}
		close(fd);
		made++;
	}
	return made;
}

/* What files_prepare made is written down before the replay starts: in
 * ext4's ordered mode the first fsync of the replay would commit it (the
 * directories, inodes and dummy data of every file the trace found:
 * fio's /sys tree), inside the measured time. fio's replay on a device
 * held to 200 IOPS was 12 % long for it. */
int files_settle(int rootfd)
{
	int fd = sandbox_openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	int r = syncfs(fd);
	close(fd);
	return r;
}
