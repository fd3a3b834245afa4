/* Load the spool directory: map every PID.TID.GEN file, group by process
 * and thread, and check each file's header and record chain. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "util.h"

static struct proc *proc_get(struct node *n, pid_t pid, size_t *cap)
{
	for (int i = 0; i < n->nprocs; i++)
		if (n->procs[i].pid == pid)
			return &n->procs[i];
	XGROW(n->procs, *cap, (size_t)n->nprocs + 1);
	struct proc *p = &n->procs[n->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->status = -1;
	return p;
}

static struct thr *thr_get(struct proc *p, pid_t tid)
{
	for (int i = 0; i < p->nthr; i++)
		if (p->thr[i].tid == tid)
			return &p->thr[i];
	p->thr = xrealloc(p->thr, sizeof(*p->thr) * (size_t)(p->nthr + 1));
	struct thr *t = &p->thr[p->nthr++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->cpu = -1;
	return t;
}

/* Walk the record chain; stop at the first record that is not sane (a
 * crash can only cut the chain, since `used` is written after a record).
 * Returns how many short records it holds. */
static size_t check_chain(struct spool *s)
{
	char *p = s->recs;
	size_t nshort = 0;

	while (p + sizeof(struct srec) <= s->end) {
		struct rec *r = (struct rec *)p;
		if (r->len == 0)
			break;              /* the end of what was written */
		if ((r->len != sizeof(struct srec) && r->len < sizeof(*r)) ||
		    (r->len & 7) || p + r->len > s->end) {
			warnx("%s: bad record at byte %zu, the rest is ignored",
			      s->name, (size_t)(p - s->recs));
			break;
		}
		nshort += r->len == sizeof(struct srec);
		p += r->len;
	}
	s->end = p;
	return nshort;
}

/* Short records become full ones in memory, where the resolver can also
 * note what it found in each. */
static void expand(struct spool *s, size_t nshort)
{
	size_t n = (size_t)(s->end - s->recs) +
		   nshort * (sizeof(struct rec) - sizeof(struct srec));
	char *buf = xmalloc(n ? n : 1), *o = buf;

	for (char *p = s->recs; p < s->end;) {
		const struct srec *q = (const struct srec *)p;
		if (q->len == sizeof(*q)) {
			struct rec *r = (struct rec *)o;
			memset(r, 0, sizeof(*r));
			r->t0 = q->t0;
			r->t1 = q->t0 + q->dt;
			r->fd = q->fd;
			r->ret = q->ret;
			r->a1 = q->a1;
			r->a2 = q->a2;
			r->call = q->call;
			r->len = sizeof(*r);
			o += sizeof(*r);
		} else {
			memcpy(o, p, q->len);
			o += q->len;
		}
		p += q->len;
	}
	s->buf = buf;
	s->recs = buf;
	s->end = o;
}

static struct spool *spool_map(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = open(path, O_RDWR | O_CLOEXEC);
	struct stat st;
	struct spool *s;

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < SPOOL_HDR_SIZE) {
		warnx("%s: unreadable spool file, skipped", path);
		if (fd >= 0)
			close(fd);
		free(path);
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	s->size = (size_t)st.st_size;
	s->map = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (s->map == MAP_FAILED) {
		warnx("%s: cannot map:", path);
		free(path);
		free(s);
		return NULL;
	}
	s->name = path;
	s->h = (struct spool_hdr *)s->map;
	if (s->h->magic != SPOOL_MAGIC || s->h->version != SPOOL_VERSION) {
		warnx("%s: not an Island spool of version %d, skipped", path,
		      SPOOL_VERSION);
		munmap(s->map, s->size);
		free(path);
		free(s);
		return NULL;
	}
	s->recs = s->map + SPOOL_HDR_SIZE;
	s->end = s->map + s->size;
	size_t nshort = check_chain(s);
	if (nshort)
		expand(s, nshort);
	return s;
}

static int cmp_gen(const void *a, const void *b)
{
	const struct spool *x = *(struct spool *const *)a;
	const struct spool *y = *(struct spool *const *)b;
	return x->h->gen - y->h->gen;
}

int spool_load(struct node *n, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t cap = 0;

	if (!d) {
		warnx("%s: cannot read the spool directory:", dir);
		return -1;
	}
	while ((e = readdir(d))) {
		int pid, tid, gen;
		char extra;
		if (sscanf(e->d_name, "%d.%d.%d%c", &pid, &tid, &gen, &extra) != 3)
			continue;
		struct spool *s = spool_map(dir, e->d_name);
		if (!s)
			continue;
		struct proc *p = proc_get(n, pid, &cap);
		struct thr *t = thr_get(p, tid);
		t->sp = xrealloc(t->sp, sizeof(*t->sp) * (size_t)(t->nsp + 1));
		t->sp[t->nsp++] = s;
	}
	closedir(d);
	for (int i = 0; i < n->nprocs; i++)
		for (int j = 0; j < n->procs[i].nthr; j++) {
			struct thr *t = &n->procs[i].thr[j];
			qsort(t->sp, (size_t)t->nsp, sizeof(*t->sp), cmp_gen);
		}
	return 0;
}

void spool_unload(struct node *n)
{
	for (int i = 0; i < n->nprocs; i++) {
		for (int j = 0; j < n->procs[i].nthr; j++) {
			struct thr *t = &n->procs[i].thr[j];
			for (int g = 0; g < t->nsp; g++) {
				munmap(t->sp[g]->map, t->sp[g]->size);
				free(t->sp[g]->buf);
				free(t->sp[g]->name);
				free(t->sp[g]);
			}
			free(t->sp);
		}
		free(n->procs[i].thr);
		free(n->procs[i].exe);
		free(n->procs[i].cwd);
		free(n->procs[i].reason);
	}
	free(n->procs);
	n->procs = NULL;
	n->nprocs = 0;
}

void rec_iter_init(struct rec_iter *it, struct thr *t)
{
	it->t = t;
	it->g = 0;
	it->p = t->nsp ? t->sp[0]->recs : NULL;
}

struct rec *rec_next(struct rec_iter *it)
{
	while (it->g < it->t->nsp) {
		struct spool *s = it->t->sp[it->g];
		if (it->p < s->end) {
			struct rec *r = (struct rec *)it->p;
			it->p += r->len;
			return r;
		}
		if (++it->g < it->t->nsp)
			it->p = it->t->sp[it->g]->recs;
	}
	return NULL;
}
