/* Load the spool directory: the arena's threads (and any PID.TID.GEN
 * file), grouped by process and thread, each header and record chain
 * checked (capture/spool.h). */
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

/* Whether spool s of pid's main thread starts another process than p,
 * one that got the number of p once it had ended (past pid_max): one
 * that started at another time (the headers' pstart), or, where that
 * cannot tell, a new image of the main thread once every thread of p was
 * seen to end, none by an exec (an end not seen is not one: island-loader
 * hands its image over to the interposer's; a thread that execs after
 * the main one ended continues it) */
static bool pid_again(const struct proc *p, pid_t pid, const struct spool *s)
{
	if (s->seg || s->h->tid != pid || !p->nthr)
		return false;
	/* when each says when its process started: another start is
	 * another process (the one before may have been killed), the
	 * same an exec; within one tick (10 ms), as below */
	const struct thr *t0 = &p->thr[0];
	uint64_t was = t0->nsp ? t0->sp[0]->h->pstart : 0;
	if (was && s->h->pstart && was != s->h->pstart)
		return true;
	for (int j = 0; j < p->nthr; j++) {
		const struct thr *t = &p->thr[j];
		int x = t->nsp ? t->sp[t->nsp - 1]->h->exit : TEXIT_NONE;
		if (x == TEXIT_NONE || x == TEXIT_EXEC)
			return false;
	}
	return true;
}

/* The process of spool s (pid's latest, by the map, made again when the
 * processes moved: sorted once resolved), or a new one: a walk of them
 * all for each thread's spool was quadratic (a server starting a thread
 * a request); pid's again when the number was given again */
static struct proc *proc_get(struct cap_node *n, pid_t pid, size_t *cap, const struct spool *s)
{
	int k = imap_get(&n->pids, (uint64_t)pid);

	if (k >= n->nprocs || (k >= 0 && n->procs[k].pid != pid) ||
	    n->pids_of != n->nprocs) {
		imap_free(&n->pids);
		for (int i = 0; i < n->nprocs; i++)
			imap_put(&n->pids, (uint64_t)n->procs[i].pid, i);
		n->pids_of = n->nprocs;
		k = imap_get(&n->pids, (uint64_t)pid);
	}
	if (k >= 0 && !pid_again(&n->procs[k], pid, s))
		return &n->procs[k];
	XGROW(n->procs, *cap, (size_t)n->nprocs + 1);
	struct proc *p = &n->procs[n->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->status = -1;
	imap_put(&n->pids, (uint64_t)pid, n->nprocs - 1);
	n->pids_of = n->nprocs;
	return p;
}

/* The thread of spool s: the latest with its tid, unless s starts an
 * image of the same process image (gen) as that thread's: a thread that
 * got the number of one that had ended, a thread of its own */
static struct thr *thr_get(struct proc *p, pid_t tid, const struct spool *s)
{
	int k = imap_get(&p->tids, (uint64_t)tid);

	if (k >= p->nthr || (k >= 0 && p->thr[k].tid != tid) || p->tids_of != p->nthr) {
		imap_free(&p->tids);
		for (int i = 0; i < p->nthr; i++)
			imap_put(&p->tids, (uint64_t)p->thr[i].tid, i);
		p->tids_of = p->nthr;
		k = imap_get(&p->tids, (uint64_t)tid);
	}
	if (k >= 0 && !(s->seg == 0 && p->thr[k].nsp &&
			p->thr[k].sp[p->thr[k].nsp - 1]->h->gen == s->h->gen))
		return &p->thr[k];
	XGROW(p->thr, p->thr_cap, (size_t)p->nthr + 1);
	struct thr *t = &p->thr[p->nthr++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->cpu = -1;
	imap_put(&p->tids, (uint64_t)tid, p->nthr - 1);
	p->tids_of = p->nthr;
	return t;
}

/* A record length that no record has */
static bool len_bad(unsigned len)
{
	return (len != sizeof(struct srec) && len < sizeof(struct rec)) || (len & 7);
}

/* A chunk header that can be one at off, in an arena of size bytes */
static bool chunk_ok(const struct chunk_hdr *h, uint64_t off, uint64_t size)
{
	return h->magic == CHUNK_MAGIC && h->size >= 2 * SPOOL_HDR_SIZE &&
	       !(h->size % ARENA_ALIGN) && h->size <= size - off && h->owner <= off &&
	       (h->owner == off) == (h->seq == 0);
}

/* Walk a record chain in [p, end); stop at the first record that is not
 * sane (a crash can only cut the chain, since `used` is written after a
 * record: one is damage, *damaged set). Returns where the complete
 * records end; counts short ones. */
static char *chain_end(const char *name, char *p, char *end, size_t *nshort, bool *damaged)
{
	char *start = p;

	while (p + sizeof(struct srec) <= end) {
		struct rec *r = (struct rec *)p;
		if (r->len == 0)
			break;              /* the end of what was written */
		if (len_bad(r->len) || p + r->len > end) {
			warnx("%s: bad record at byte %zu, the rest is ignored",
			      name, (size_t)(p - start));
			*damaged = true;
			break;
		}
		*nshort += r->len == sizeof(struct srec);
		p += r->len;
	}
	return p;
}

/* Whether the chain's end is in [p, end), the start of a chunk's
 * records: a length of 0, or one no record has; else it may go on */
static bool chain_seen(const char *p, const char *end)
{
	while (p + sizeof(struct srec) <= end) {
		const struct rec *r = (const struct rec *)p;
		if (r->len == 0 || len_bad(r->len))
			return true;
		if (p + r->len > end)
			return false;
		p += r->len;
	}
	return false;
}

static size_t check_chain(struct spool *s)
{
	size_t nshort = 0;

	s->end = chain_end(s->name, s->recs, s->end, &nshort, &s->damaged);
	return nshort;
}

/* Short records become full ones in memory, where the resolver can also
 * note what it found in each: the chain [p, end) copied to o, expanded.
 * Returns the end of what was written. */
static char *expand_to(char *o, const char *p, const char *end)
{
	while (p < end) {
		const struct srec *q = (const struct srec *)p;
		if (q->len == sizeof(*q)) {
			struct rec *r = (struct rec *)o;
			/* every field set: no memset, a call per record */
			r->t0 = q->t0;
			r->t1 = q->t0 + q->dt;
			r->fd = q->fd;
			r->err = 0;
			r->call = q->call;
			r->len = sizeof(*r);
			r->obj = 0;
			r->ret = q->ret;
			r->a1 = q->a1;
			r->a2 = q->a2;
			r->seq = 0;
			o += sizeof(*r);
		} else {
			memcpy(o, p, q->len);
			o += q->len;
		}
		p += q->len;
	}
	return o;
}

static void expand(struct spool *s, size_t nshort)
{
	size_t n = (size_t)(s->end - s->recs) +
		   nshort * (sizeof(struct rec) - sizeof(struct srec));
	char *buf = xmalloc(n ? n : 1);

	s->end = expand_to(buf, s->recs, s->end);
	free(s->buf);
	s->buf = buf;
	s->recs = buf;
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

static void spool_add(struct cap_node *n, size_t *cap, struct spool *s,
		      pid_t pid, pid_t tid)
{
	struct proc *p = proc_get(n, pid, cap, s);
	struct thr *t = thr_get(p, tid, s);

	n->spools++;
	/* (thread_made) A streamed thread's segments share a header read
	 * again at every poll: one read between the thread's first call and
	 * its trampoline's naming the pthread_create has no made_at yet
	 * (--syscalls: the first call is glibc's, before the trampoline) */
	if (s->h->made_at)
		imap_put(&p->made, (uint64_t)s->h->made_at, (int)(t - p->thr));
	t->sp = xrealloc(t->sp, sizeof(*t->sp) * (size_t)(t->nsp + 1));
	t->sp[t->nsp++] = s;
}

static int cmp_chunk(const void *a, const void *b)
{
	const struct arena_chunk *x = a, *y = b;

	if (x->c.owner != y->c.owner)
		return x->c.owner < y->c.owner ? -1 : 1;
	return x->c.seq < y->c.seq ? -1 : x->c.seq > y->c.seq;
}

/* The chunks of the arena open at fd (size bytes), by owner and seq,
 * probed at every ARENA_ALIGN where no chunk was found. Read, never
 * mapped: a hole of a full tmpfs cannot be mapped in (SIGBUS), but reads
 * as zeroes. *nc of them; *a the arena's header. */
struct arena_chunk *arena_chunks(int fd, size_t size, struct arena_hdr *a,
				 size_t *nc)
{
	struct arena_chunk *c = NULL, one;
	size_t cap = 0;

	*nc = 0;
	if (pread(fd, a, sizeof(*a), 0) != (ssize_t)sizeof(*a) ||
	    a->magic != ARENA_MAGIC || a->version != SPOOL_VERSION)
		return NULL;
	/* the arena is sparse: only what was counted out */
	if (size > ARENA_DATA && a->next < size - ARENA_DATA)
		size = ARENA_DATA + (size_t)a->next;
	for (size_t off = ARENA_DATA; off + SPOOL_HDR_SIZE <= size;) {
		struct chunk_hdr *h = &one.c;
		size_t want = CHUNK_SPOOL_HDR + sizeof(one.h);
		char page[CHUNK_SPOOL_HDR + sizeof(one.h)];
		if (pread(fd, page, want, (off_t)off) != (ssize_t)want)
			break;
		memcpy(h, page, sizeof(*h));
		memcpy(&one.h, page + CHUNK_SPOOL_HDR, sizeof(one.h));
		if (!chunk_ok(h, off, size)) {
			off += ARENA_ALIGN;
			continue;
		}
		one.off = off;
		XGROW(c, cap, *nc + 1);
		c[(*nc)++] = one;
		off += h->size;
	}
	if (*nc > 1)
		qsort(c, *nc, sizeof(*c), cmp_chunk);
	return c;
}

/* One thread's spool: the records of its chunks c[0..k) in one buffer. */
static struct spool *arena_spool(const char *path, int fd,
				 struct arena_chunk *c, size_t k)
{
	const struct spool_hdr *h = &c[0].h;
	size_t total = 0;
	struct spool *s;

	if (h->magic != SPOOL_MAGIC || h->version != SPOOL_VERSION) {
		warnx("%s: chunk at byte %llu: not an Island spool of version %d, skipped",
		      path, (unsigned long long)c[0].off, SPOOL_VERSION);
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	s->name = xasprintf("%s@%llu", path, (unsigned long long)c[0].off);
	s->map = xmalloc(sizeof(*h));          /* the header: a copy */
	memcpy(s->map, h, sizeof(*h));
	s->h = (struct spool_hdr *)s->map;
	/* chunk by chunk through one buffer, expanded as they come: the
	 * thread's records are copied once (a million calls are 32 MB) */
	char *in = NULL;
	size_t incap = 0;
	for (size_t i = 0; i < k; i++) {
		size_t len = (size_t)c[i].c.size - SPOOL_HDR_SIZE;
		if (i && c[i].c.seq != c[i - 1].c.seq + 1) {
			warnx("%s: chunk %llu of the thread is missing, the rest is ignored",
			      s->name, (unsigned long long)c[i - 1].c.seq + 1);
			break;
		}
		if (len > incap) {
			free(in);
			in = xmalloc(len);
			incap = len;
		}
		/* as far as its records go: a thread that wrote a record or
		 * two has 250 KB of zeroes after them (thousands of threads:
		 * gigabytes copied) */
		size_t got = len < 4096 ? len : 4096;
		off_t at = (off_t)(c[i].off + SPOOL_HDR_SIZE);
		bool ok = pread(fd, in, got, at) == (ssize_t)got;
		if (ok && got < len && !chain_seen(in, in + got)) {	/* the rest, once */
			ok = pread(fd, in + got, len - got, at + (off_t)got) == (ssize_t)(len - got);
			got = len;
		}
		if (!ok) {
			warnx("%s: cannot read chunk %llu:", s->name,
			      (unsigned long long)c[i].c.seq);
			break;
		}
		size_t nshort = 0;
		char *e = chain_end(s->name, in, in + got, &nshort, &s->damaged);
		size_t grow = (size_t)(e - in) + nshort * (sizeof(struct rec) - sizeof(struct srec));
		s->buf = xrealloc(s->buf, total + grow);
		total = (size_t)(expand_to(s->buf + total, in, e) - s->buf);
	}
	free(in);
	s->buf = xrealloc(s->buf, total ? total : 1);
	s->recs = s->buf;
	s->end = s->buf + total;
	return s;
}

/* The arena of the spool directory, if any. */
static void arena_load(struct cap_node *n, const char *dir, size_t *cap)
{
	char *path = xasprintf("%s/" ARENA_FILE, dir);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct arena_hdr a;
	struct stat st;
	size_t nc, i = 0;

	if (fd < 0 && errno == ENOENT) {
		free(path);
		return;
	}
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < SPOOL_HDR_SIZE) {
		warnx("%s: unreadable spool file, skipped", path);
		if (fd >= 0)
			close(fd);
		free(path);
		return;
	}
	struct arena_chunk *c = arena_chunks(fd, (size_t)st.st_size, &a, &nc);
	if (a.magic != ARENA_MAGIC || a.version != SPOOL_VERSION)
		warnx("%s: not an Island arena of version %d, skipped", path,
		      SPOOL_VERSION);
	else {
		n->lost_threads += a.lost_threads;
		n->unmapped_images += a.unmapped;
	}
	while (i < nc) {
		size_t k = 1;
		while (i + k < nc && c[i + k].c.owner == c[i].c.owner)
			k++;
		struct spool *s = c[i].c.seq == 0 ? arena_spool(path, fd, c + i, k) : NULL;
		if (s)
			spool_add(n, cap, s, s->h->pid, s->h->tid);
		i += k;
	}
	free(c);
	close(fd);
	free(path);
}

/* --- the arena while the application runs (the capture's streaming) --- */

struct arena_img {               /* a thread's image: its chunks so far */
	uint64_t owner;          /* its first chunk's offset */
	pid_t pid, tid;
	struct spool_hdr *h;     /* the header's copy, its segments' */
	uint64_t seq, off, size; /* the chunk being read */
	uint64_t pos;            /* bytes of records read there */
	uint64_t ahead, ahead_next; /* arena_ahead's marks */
	int bad;                 /* the chunk's chain is broken: the rest of
				    it is ignored, as spool_load does */
	bool damaged;            /* so, since its last segment */
	int nseg;
	bool superseded;         /* the thread has a later image (exec'd) */
	bool done;               /* it ended and all it wrote was read (no
				    chunk left unscanned): not read again
				    (thousands of threads ended) */
	struct chunk_at { uint64_t seq, off, size; } *next; /* its later chunks
							       seen */
	size_t nnext, capnext;
};

#define POLL_READ (1u << 20)

static struct arena_img *img_of(struct arena_scan *s, uint64_t owner)
{
	int k = imap_get(&s->owners, owner);

	return k >= 0 ? &s->img[k] : NULL;
}

/* A chunk found at off: a new image (seq 0), or a later chunk of one */
static void poll_chunk(struct arena_scan *s, uint64_t off, const struct chunk_hdr *c,
		       const struct spool_hdr *h)
{
	if (c->seq == 0) {
		if (h->magic != SPOOL_MAGIC || h->version != SPOOL_VERSION) {
			warnx("%s: chunk at byte %llu: not an Island spool of version %d, skipped",
			      s->path, (unsigned long long)off, SPOOL_VERSION);
			return;
		}
		uint64_t who = (uint64_t)(uint32_t)h->pid << 32 | (uint32_t)h->tid;
		int k = imap_get(&s->last, who);
		if (k >= 0)
			s->img[k].superseded = true;
		imap_put(&s->last, who, (int)s->nimg);
		imap_put(&s->owners, off, (int)s->nimg);
		XGROW(s->img, s->capimg, s->nimg + 1);
		struct arena_img *im = &s->img[s->nimg++];
		memset(im, 0, sizeof(*im));
		im->owner = off;
		im->pid = h->pid;
		im->tid = h->tid;
		struct hdr_copy *hc = xcalloc(1, sizeof(*hc));
		memcpy(&hc->h, h, sizeof(*h));
		im->h = &hc->h;
		im->off = off;
		im->size = c->size;
		return;
	}
	struct arena_img *im = img_of(s, c->owner);
	if (!im)
		return;		/* its image's first chunk was no spool */
	XGROW(im->next, im->capnext, im->nnext + 1);
	im->next[im->nnext].seq = c->seq;
	im->next[im->nnext].off = off;
	im->next[im->nnext].size = c->size;
	im->nnext++;
}

/* The chunks stamped since the last call; not final: up to the first
 * place still without a stamp (being given one, or never: then the rest
 * waits for the final call, which probes on as arena_chunks does). */
static void poll_scan(struct arena_scan *s, uint64_t size, int final)
{
	char page[CHUNK_SPOOL_HDR + sizeof(struct spool_hdr)];

	while (s->off + SPOOL_HDR_SIZE <= size) {
		struct chunk_hdr c;
		struct spool_hdr h;
		if (pread(s->fd, page, sizeof(page), (off_t)s->off) != (ssize_t)sizeof(page))
			break;
		memcpy(&c, page, sizeof(c));
		memcpy(&h, page + CHUNK_SPOOL_HDR, sizeof(h));
		if (!chunk_ok(&c, s->off, size)) {
			if (!final)
				break;
			s->off += ARENA_ALIGN;
			continue;
		}
		poll_chunk(s, s->off, &c, &h);
		s->off += c.size;
	}
}

/* The records of im's chunks since the last call, expanded into out
 * (grown); its length. */
/* The thread's chunk after the one being read, if seen: its index */
static int next_chunk(const struct arena_img *im)
{
	for (size_t i = 0; i < im->nnext; i++)
		if (im->next[i].seq == im->seq + 1)
			return (int)i;
	return -1;
}

/* A thread's records taken by one poll while streaming, at most (some
 * 30 bytes of spool each, 64 in memory): the capture holds a poll's, not
 * all that the stream is behind by (nginx under wrk for 10 minutes: 14 GB
 * read at its end) */
#define POLL_CAP (16u << 20)

static size_t poll_records(struct arena_scan *s, struct arena_img *im, char **out,
			   size_t *cap, bool final, bool rated, bool *held, uint64_t *held_t0,
			   bool *more)
{
	size_t total = 0;
	/* a thread's last record may still change (an exec that failed
	 * gets its end and result after it; a vfork, its child's pid; under
	 * a rate limit, a call's hold its end): taken once the thread has
	 * written another, or ended; any other is taken as it is (a thread
	 * blocked after it would hold its process's other threads back
	 * from there) */
	int x = im->h->exit;
	bool ended = final || im->superseded || (x != TEXIT_NONE && x != TEXIT_EXEC);

	for (;;) {
		uint64_t len = im->size - SPOOL_HDR_SIZE;
		/* a little first: most threads have written little since
		 * (thousands of threads a record or two each: 1 KB a copy,
		 * not 8) */
		size_t step = 1024;
		while (!im->bad && im->pos < len) {
			if (!final && total >= POLL_CAP) {
				*more = true;	/* the rest at the next poll */
				return total;
			}
			size_t want = len - im->pos > step ? step : (size_t)(len - im->pos);
			step = POLL_READ;
			ssize_t got = pread(s->fd, s->in, want,
					    (off_t)(im->off + SPOOL_HDR_SIZE + im->pos));
			if (got < (ssize_t)sizeof(struct srec))
				break;
			char *p = s->in, *e = s->in + got, *last = NULL;
			size_t nshort = 0, lshort = 0;
			int partial = 0, ends = 0;
			while (p + sizeof(struct srec) <= e) {
				struct rec *r = (struct rec *)p;
				if (r->len == 0) {
					ends = 1;	/* what is written so far */
					break;
				}
				if (len_bad(r->len) || im->pos + (size_t)(p - s->in) + r->len > len) {
					warnx("%s@%llu: bad record at byte %llu of its chunk at %llu, "
					      "the rest of the chunk is ignored",
					      s->path, (unsigned long long)im->owner,
					      (unsigned long long)(im->pos + (size_t)(p - s->in)),
					      (unsigned long long)im->off);
					im->bad = 1;
					im->damaged = true;
					break;
				}
				if (p + r->len > e) {
					partial = 1;	/* in the next read */
					break;
				}
				last = p;
				lshort = r->len == sizeof(struct srec);
				nshort += lshort;
				p += r->len;
			}
			bool may_change = !ended && last && last < p && next_chunk(im) < 0 &&
				(rated || ((struct rec *)last)->call == C_EXECVE ||
				 ((struct rec *)last)->call == C_VFORK);
			bool known = ends || im->pos + (size_t)(p - s->in) == len;
			/* the read ended right after it, what follows unread:
			 * read it again with what follows (a single record
			 * that fills a whole read: held as the last; one
			 * before a damaged record: taken, nothing follows) */
			if (may_change && !known && !partial && !im->bad &&
			    (last > s->in || want < POLL_READ)) {
				p = last;
				nshort -= lshort;
				partial = 1;
			} else if (may_change && !partial && (known || !im->bad)) {
				p = last;	/* the thread's last record so far */
				nshort -= lshort;
				ends = 1;
				/* what the thread adds starts there: its t0 is
				 * whole or, read beside a new length, 0 (the
				 * arena's memory is fresh) */
				*held = true;
				*held_t0 = ((struct srec *)last)->t0;
			}
			if (p == s->in) {
				if (partial && want < POLL_READ)
					continue;	/* a long record: read more */
				break;
			}
			/* read again what the first read found complete: a
			 * record's length is stored after the rest of it, but
			 * the kernel's copy (rep movs) does not read the bytes
			 * in order, so the first read may hold an old value of
			 * a field beside a new length; once a length was seen,
			 * all of its record is there for a later read (seen
			 * once in some ten runs: a call 10 ns off) */
			size_t done = (size_t)(p - s->in);
			if (pread(s->fd, s->in, done, (off_t)(im->off + SPOOL_HDR_SIZE + im->pos)) !=
			    (ssize_t)done)
				break;
			size_t grow = done + nshort * (sizeof(struct rec) - sizeof(struct srec));
			if (total + grow > *cap) {
				*cap = (total + grow) * 2;
				*out = xrealloc(*out, *cap);
			}
			total = (size_t)(expand_to(*out + total, s->in, p) - *out);
			im->pos += (uint64_t)(p - s->in);
			if (ends)
				break;
		}
		/* on to the next chunk once the thread is there (then this one
		 * was complete when it was read above) */
		int k = next_chunk(im);
		if (k < 0)
			return total;
		im->seq = im->next[k].seq;
		im->off = im->next[k].off;
		im->size = im->next[k].size;
		im->pos = 0;
		im->bad = 0;
		im->next[k] = im->next[--im->nnext];
	}
}

/* Every chunk counted out so far was scanned: a thread whose end was
 * read before has none unseen (its chunks are stamped before its end) */
static bool scanned_all(const struct arena_scan *s)
{
	uint64_t next;

	return pread(s->fd, &next, sizeof(next), offsetof(struct arena_hdr, next)) ==
	       (ssize_t)sizeof(next) && s->off >= ARENA_DATA + next;
}

int64_t spool_poll(struct cap_node *n, struct arena_scan *s, int final)
{
	struct arena_hdr a;
	struct stat st;

	if (s->fd < 0)
		return -1;
	if (!s->in)
		s->in = xmalloc(POLL_READ);
	if (pread(s->fd, &a, sizeof(a), 0) != (ssize_t)sizeof(a) ||
	    a.magic != ARENA_MAGIC || a.version != SPOOL_VERSION ||
	    fstat(s->fd, &st) < 0) {
		if (final)
			warnx("%s: not an Island arena of version %d, skipped", s->path,
			      SPOOL_VERSION);
		return -1;
	}
	uint64_t size = (uint64_t)st.st_size;
	if (size > ARENA_DATA && a.next < size - ARENA_DATA)
		size = ARENA_DATA + a.next;
	if (!s->off)
		s->off = ARENA_DATA;
	poll_scan(s, size, final);
	int64_t taken = 0;
	bool rated = n->rs && restrict_any_rate(n->rs);
	for (size_t i = 0; i < s->nimg; i++) {
		struct arena_img *im = &s->img[i];
		char *buf = NULL;

		if (im->done)
			continue;
		/* what the thread writes there while it runs and at its end;
		 * before its records: an end seen here has all its records
		 * read below (resolve_stream counts on it) */
		((struct hdr_copy *)im->h)->read_at = clock_raw(&n->clk);
		if (pread(s->fd, im->h, sizeof(*im->h),
			  (off_t)(im->owner + CHUNK_SPOOL_HDR)) != (ssize_t)sizeof(*im->h) && final)
			warnx("%s@%llu: cannot read the thread's header:", s->path,
			      (unsigned long long)im->owner);
		bool held = false;
		uint64_t held_t0 = 0;
		int x = im->h->exit;	/* an end seen before the reading */
		bool ended = im->superseded || (x != TEXIT_NONE && x != TEXIT_EXEC);
		bool more = false;
		size_t cap = 0, len = poll_records(s, im, &buf, &cap, final, rated, &held, &held_t0,
						   &more);
		if (more) {
			/* not all it wrote is read: its end is not seen yet */
			im->h->exit = TEXIT_NONE;
			ended = false;
		}
		taken += (int64_t)len;
		if (!final && !ended)
			arena_ahead(s, &a, im->off, im->size, im->pos, &im->ahead,
				    &im->ahead_next);
		if (ended && !held && !im->nnext && !im->bad && scanned_all(s))
			im->done = true;
		if (final && im->nnext)
			warnx("%s@%llu: chunk %llu of the thread is missing, the rest is ignored",
			      s->path, (unsigned long long)im->owner,
			      (unsigned long long)im->seq + 1);
		if (!len && im->nseg && !im->damaged) {
			free(buf);
			continue;	/* the last segment's held is still so */
		}
		struct spool *sp = xcalloc(1, sizeof(*sp));
		sp->name = xasprintf("%s@%llu", s->path, (unsigned long long)im->owner);
		sp->h = im->h;
		sp->map = im->nseg ? NULL : (char *)im->h;	/* freed with seg 0 */
		sp->seg = im->nseg++;
		sp->buf = len ? xrealloc(buf, len) : (free(buf), xmalloc(1));
		sp->recs = sp->buf;
		sp->end = sp->buf + len;
		sp->held = held;
		sp->held_t0 = held_t0;
		sp->damaged = im->damaged;
		im->damaged = false;
		spool_add(n, &n->procs_cap, sp, im->pid, im->tid);
	}
	if (final) {
		n->lost_threads += a.lost_threads;
		n->unmapped_images += a.unmapped;
	}
	return taken;
}

/*
 * Streaming: the records of a thread's segments before segment upto let
 * go, once written into its part and resolved, so that the capture holds
 * what is still to be written, not all the run has made (64 bytes a
 * call). Never its last segment (a held record is read again there),
 * nor a header; the spool keeps them all. Its iterators skip a segment
 * with no records.
 */
void spool_drop(struct thr *t, int upto)
{
	if (upto > t->nsp - 1)
		upto = t->nsp - 1;
	for (int g = t->dropped; g < upto; g++) {
		struct spool *s = t->sp[g];

		free(s->buf);
		s->buf = s->recs = s->end = NULL;
	}
	if (upto > t->dropped)
		t->dropped = upto;
}

void arena_scan_free(struct arena_scan *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->path);
	for (size_t i = 0; i < s->nimg; i++)
		free(s->img[i].next);
	free(s->img);		/* the headers are the segments' */
	imap_free(&s->owners);
	imap_free(&s->last);
	free(s->in);
	arena_ahead_close(s);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

static int cmp_gen(const void *a, const void *b)
{
	const struct spool *x = *(struct spool *const *)a;
	const struct spool *y = *(struct spool *const *)b;
	return x->h->gen - y->h->gen;
}

int spool_load(struct cap_node *n, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t cap = 0;

	if (!d) {
		warnx("%s: cannot read the spool directory:", dir);
		return -1;
	}
	arena_load(n, dir, &cap);
	while ((e = readdir(d))) {
		int pid, tid, gen;
		char extra;
		if (sscanf(e->d_name, "%d.%d.%d%c", &pid, &tid, &gen, &extra) != 3)
			continue;
		struct spool *s = spool_map(dir, e->d_name);
		if (s)
			spool_add(n, &cap, s, pid, tid);
	}
	closedir(d);
	for (int i = 0; i < n->nprocs; i++)
		for (int j = 0; j < n->procs[i].nthr; j++) {
			struct thr *t = &n->procs[i].thr[j];
			qsort(t->sp, (size_t)t->nsp, sizeof(*t->sp), cmp_gen);
		}
	return 0;
}

void spool_unload(struct cap_node *n)
{
	for (int i = 0; i < n->nprocs; i++) {
		for (int j = 0; j < n->procs[i].nthr; j++) {
			struct thr *t = &n->procs[i].thr[j];
			for (int g = 0; g < t->nsp; g++) {
				if (t->sp[g]->size)
					munmap(t->sp[g]->map, t->sp[g]->size);
				else
					free(t->sp[g]->map);   /* an arena header's copy */
				free(t->sp[g]->buf);
				free(t->sp[g]->name);
				free(t->sp[g]);
			}
			free(t->sp);
		}
		free(n->procs[i].thr);
		imap_free(&n->procs[i].tids);
		imap_free(&n->procs[i].made);
		free(n->procs[i].exe);
		free(n->procs[i].first_exe);
		free(n->procs[i].exec_path);
		free(n->procs[i].cwd);
		free(n->procs[i].reason);
	}
	free(n->procs);
	imap_free(&n->pids);
	n->procs = NULL;
	n->nprocs = 0;
	free(n->wpid);           /* the statuses launch.c collected */
	free(n->wstatus);
	free(n->wcpu);
	n->wpid = NULL;
	n->wstatus = NULL;
	n->wcpu = NULL;
	n->nwait = 0;
}

void rec_iter_init(struct rec_iter *it, struct thr *t)
{
	it->t = t;
	it->g = 0;
	it->p = t->nsp ? t->sp[0]->recs : NULL;
}

/* At the end it stays on the last segment, so that a segment added by
 * spool_poll later is where it goes on (the capture's streaming). */
struct rec *rec_next(struct rec_iter *it)
{
	if (!it->p && it->t->nsp)
		it->p = it->t->sp[it->g]->recs;
	while (it->g < it->t->nsp) {
		struct spool *s = it->t->sp[it->g];
		if (it->p < s->end) {
			struct rec *r = (struct rec *)it->p;
			it->p += r->len;
			return r;
		}
		if (it->g + 1 >= it->t->nsp)
			break;
		it->p = it->t->sp[++it->g]->recs;
	}
	return NULL;
}
