#include "trace/outfile.h"
#include "trace/isbfmt.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

/* zstd level 1: on a trace's repetitive XML both faster and smaller than
 * 3 (1M-write trace: 9.4 MB in 0.3 s of CPU against 10.9 MB in 0.6 s); a
 * checksum, so that a damaged trace is refused rather than read as other
 * records. */
#define ZSTD_OUT_LEVEL 1

/* The output is compressed and written by a thread of its own while the
 * caller formats, in 1 MiB blocks, when there is a second CPU: deflate
 * (zlib has no threads; a 1M-event trace took 1.4 s to write, formatting
 * 0.3 s of it), zstd (as fast as its own worker thread was), or only the
 * write calls (the kernel's copy of a 159 MB trace into the page cache:
 * 0.03 s of the 0.22 s a 1M-event trace took to write). */
#define PIPE_BLOCK (1u << 20)
#define PIPE_QUEUE 4
/* A gzip XML trace's blocks deflated by two threads at once, each block
 * a raw deflate stream of its own ended by a sync flush (the gzip member
 * takes them one after another, as a part's): deflate was the end's
 * bottleneck, twice the formatting's time */
#define PIPE_WORKERS 2
#define GZ_BLOCK PIPE_BLOCK	/* deflate's counts are unsigned */
#define GZ_SUM 12		/* a gzip part's crc32 and length, at its end */

struct pworker {
	struct outfile *f;
	pthread_t th;
	int par;		/* deflating blocks of its own */
	z_stream zs;
	unsigned char *ob;	/* its block deflated */
	size_t cap, olen, n;
	uLong crc;
};

struct out_pipe {
	struct pworker wk[PIPE_WORKERS];
	int nth;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *q[PIPE_QUEUE], *spare[PIPE_QUEUE + PIPE_WORKERS];
	size_t qn[PIPE_QUEUE];
	int head, queued, nspare, done;
	uint64_t seq_in, seq_out;	/* blocks taken, blocks written */
	char *fill;		/* the caller's block */
	size_t n;
	int err;		/* under mu: the thread's first failure */
	int seen;		/* the caller's copy, taken with each block */
};

/* A trace's parts copied in by a thread of their own, each into the place
 * kept for it (the file's offset moved past; a compressed part's frames
 * whole, after the frame written so far ended), while the caller writes
 * what follows: the kernel's copy of a part beside the formatting of the
 * rest */
struct copy_job {
	struct copy_job *next;
	int fd;			/* ours, closed once copied */
	loff_t from, at, len;
};

struct copier {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct copy_job *head, *tail;
	int done, err;
};

struct outfile {
	char *path, *tmp;
	int fd;
	struct gzo *gz;		/* .gz: the one member's deflate */
	struct out_pipe *wp;		/* the writing thread, or NULL: inline */
	ZSTD_CCtx *z;
	char *zbuf;
	size_t zcap;
	struct isbenc *isb;	/* -o NAME.isb[.gz|.zst]: the binary encoding */
	int part;		/* outfile_open_part's: f->fd has no name */
	int err;		/* the first failure's errno, 0 while all is well */
	struct copier *cp;	/* a plain trace's parts, or NULL */
	/* outfile_open_over: the file is a part's, whose bytes start at
	 * room; what comes before is held here until that part is spliced
	 * (then written before it, in place) or it outgrows room */
	int hold;
	size_t room, nheld;
	char *held;
	xmlTextWriterPtr w;
};

/* libxml2 says "I/O error" on stderr itself; our one line says more */
static void quiet(void *ctx, const char *msg, ...)
{
}

/* Compress with MODE and write what comes out; for ZSTD_e_end until the
 * frame is whole. The errno, 0 when all is down. */
static int zpush(struct outfile *f, const void *p, size_t n, ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = { p, n, 0 };
	size_t left;

	do {
		ZSTD_outBuffer out = { f->zbuf, f->zcap, 0 };

		left = ZSTD_compressStream2(f->z, &out, &in, mode);
		if (ZSTD_isError(left))
			return EIO;
		if (out.pos && write_full(f->fd, f->zbuf, out.pos) < 0)
			return errno;
	} while (mode == ZSTD_e_end ? left != 0 : in.pos < in.size);
	return 0;
}

/*
 * gzip as one member, however many parts go into it: libxml2 (2.9) reads
 * a gzip file's first member only. The member's deflate data are raw
 * streams one after another, each but the last ended by a sync flush
 * (byte-aligned, no final block: pigz's way), the trace's own restarted
 * after each part; its crc32 and length those of all the streams hold
 * (crc32_combine). A part ends with its own crc32 and length (GZ_SUM
 * bytes, little-endian), which outfile_splice takes and does not copy.
 */
struct gzo {
	z_stream zs;
	uLong crc;
	uint64_t len;
	unsigned char buf[1u << 16];
};

/* P's N bytes deflated with FLUSH and written; the errno */
static int gz_push(struct outfile *f, const void *p, size_t n, int flush)
{
	struct gzo *g = f->gz;

	do {
		unsigned k = n > GZ_BLOCK ? GZ_BLOCK : (unsigned)n;

		if (k)		/* crc32 of NULL is the initial value */
			g->crc = crc32(g->crc, p, k);
		g->len += k;
		g->zs.next_in = (Bytef *)p;
		g->zs.avail_in = k;
		p = (const char *)p + k;
		n -= k;
		do {
			g->zs.next_out = g->buf;
			g->zs.avail_out = sizeof(g->buf);
			if (deflate(&g->zs, n ? Z_NO_FLUSH : flush) == Z_STREAM_ERROR)
				return EIO;
			size_t have = sizeof(g->buf) - g->zs.avail_out;
			if (have && write_full(f->fd, g->buf, have) < 0)
				return errno;
		} while (g->zs.avail_out == 0);
	} while (n);
	return 0;
}

/* Deflate streams of N bytes with crc32 CRC, made elsewhere (a part, a
 * block), now follow what the member holds */
static void gz_take(struct gzo *g, uLong crc, uint64_t n)
{
	g->crc = crc32_combine(g->crc, crc, (z_off_t)n);
	g->len += n;
}

static void put_le(unsigned char *b, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *b, int n)
{
	uint64_t v = 0;

	for (int i = n; i--;)
		v = v << 8 | b[i];
	return v;
}

/* A raw deflate stream at zlib's level 1, as gzdopen's "wb1" was */
static bool raw_deflate(z_stream *zs)
{
	return deflateInit2(zs, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK;
}

/* The trace (not a part) starts with the member's header. 0, or -1 with
 * errno. */
static int gz_start(struct outfile *f, int part)
{
	static const unsigned char head[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };

	f->gz = xcalloc(1, sizeof(*f->gz));
	if (!raw_deflate(&f->gz->zs)) {
		free(f->gz);
		f->gz = NULL;
		errno = ENOMEM;
		return -1;
	}
	f->gz->crc = crc32(0, NULL, 0);
	return part ? 0 : write_full(f->fd, head, sizeof(head));
}

/* The member's end: the last block, its crc32 and length; a part's end:
 * a sync flush and the part's sum. The errno. */
static int gz_end(struct outfile *f)
{
	unsigned char tail[GZ_SUM];
	int err;

	if ((err = gz_push(f, NULL, 0, f->part ? Z_SYNC_FLUSH : Z_FINISH)))
		return err;
	put_le(tail, f->gz->crc, 4);
	put_le(tail + 4, f->gz->len, f->part ? 8 : 4);
	return write_full(f->fd, tail, f->part ? GZ_SUM : 8) < 0 ? errno : 0;
}

static void gz_free(struct outfile *f)
{
	if (f->gz)
		deflateEnd(&f->gz->zs);
	free(f->gz);
	f->gz = NULL;
}

static int unhold(struct outfile *f);
static int copy_at(int in, loff_t from, int out, loff_t at, loff_t len);

/* One block out: deflated, or written; the errno, 0 when all is down */
static int put_raw(void *ctx, const void *b, size_t n)
{
	struct outfile *f = ctx;

	if (f->hold) {
		if (f->nheld + n <= f->room) {
			memcpy(f->held + f->nheld, b, n);
			f->nheld += n;
			return 0;
		}
		int err = unhold(f);
		if (err)
			return err;
	}
	if (f->z)
		return zpush(f, b, n, ZSTD_e_continue);
	if (f->gz)
		return gz_push(f, b, n, Z_NO_FLUSH);
	return write_full(f->fd, b, n) < 0 ? errno : 0;
}

static int put(struct outfile *f, const char *b, size_t n);

/* A block deflated on its own (a raw stream, synced: byte-aligned, no
 * final block) into w->ob, and its crc32; the errno */
static int block_deflate(struct pworker *w, const char *b, size_t n)
{
	size_t have = 0, need = deflateBound(&w->zs, n) + 64;

	if (deflateReset(&w->zs) != Z_OK)
		return EIO;
	w->zs.next_in = (Bytef *)b;
	w->zs.avail_in = (uInt)n;
	for (;;) {
		if (need > w->cap) {	/* a sync flush may pass the bound */
			w->ob = xrealloc(w->ob, need);
			w->cap = need;
		}
		w->zs.next_out = w->ob + have;
		w->zs.avail_out = (uInt)(w->cap - have);
		if (deflate(&w->zs, Z_SYNC_FLUSH) == Z_STREAM_ERROR)
			return EIO;
		have = w->cap - w->zs.avail_out;
		if (w->zs.avail_out)
			break;
		need = w->cap * 2;
	}
	w->olen = have;
	w->n = n;
	w->crc = crc32(crc32(0, NULL, 0), (const Bytef *)b, (uInt)n);
	return 0;
}

/* The block deflated, written in its turn, taken into the member's sum */
static int block_write(struct pworker *w)
{
	if (write_full(w->f->fd, w->ob, w->olen) < 0)
		return errno;
	gz_take(w->f->gz, w->crc, w->n);
	return 0;
}

/* A writing thread: blocks from the queue until the end, written in the
 * order they came (a deflating one's in its turn); after a failure it
 * only drains (the caller sees f->err) */
static void *pipe_main(void *arg)
{
	struct pworker *w = arg;
	struct outfile *f = w->f;
	struct out_pipe *g = f->wp;

	pthread_mutex_lock(&g->mu);
	for (;;) {
		while (!g->queued && !g->done)
			pthread_cond_wait(&g->cv, &g->mu);
		if (!g->queued)
			break;
		char *b = g->q[g->head];
		size_t n = g->qn[g->head];
		uint64_t seq = g->seq_in++;
		int err = f->err;

		g->head = (g->head + 1) % PIPE_QUEUE;
		g->queued--;
		pthread_mutex_unlock(&g->mu);
		if (w->par) {
			if (!err)
				err = block_deflate(w, b, n);
			pthread_mutex_lock(&g->mu);
			while (g->seq_out != seq)
				pthread_cond_wait(&g->cv, &g->mu);
			if (!err)
				err = f->err;
			pthread_mutex_unlock(&g->mu);
			if (!err)
				err = block_write(w);
		} else if (!err) {
			err = put(f, b, n);
		}
		pthread_mutex_lock(&g->mu);
		if (err && !f->err)
			f->err = g->err = err;
		g->seq_out++;
		g->spare[g->nspare++] = b;
		pthread_cond_broadcast(&g->cv);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

/* The caller's block to the queue, and a free one back */
static void pipe_hand(struct out_pipe *g)
{
	pthread_mutex_lock(&g->mu);
	while (g->queued == PIPE_QUEUE || !g->nspare)
		pthread_cond_wait(&g->cv, &g->mu);
	g->q[(g->head + g->queued) % PIPE_QUEUE] = g->fill;
	g->qn[(g->head + g->queued) % PIPE_QUEUE] = g->n;
	g->queued++;
	g->fill = g->spare[--g->nspare];
	g->n = 0;
	g->seen = g->err;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

static void pipe_free(struct out_pipe *g)
{
	for (int i = 0; i < g->nspare; i++)
		free(g->spare[i]);
	for (int i = 0; i < PIPE_WORKERS; i++) {
		if (g->wk[i].par)
			deflateEnd(&g->wk[i].zs);
		free(g->wk[i].ob);
	}
	free(g->fill);
	free(g);
}

/* The writing threads: one, or PIPE_WORKERS deflating a gzip XML
 * trace's blocks (the binary encoding's coder takes them in turn) */
static void pipe_start(struct outfile *f)
{
	struct out_pipe *g;
	int par = f->gz && !f->isb;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	g = xcalloc(1, sizeof(*g));
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	f->wp = g;
	for (int i = 0; i < (par ? PIPE_WORKERS : 1); i++) {
		struct pworker *w = &g->wk[i];

		w->f = f;
		w->par = par && raw_deflate(&w->zs);
		if (par && !w->par)
			break;
		if (pthread_create(&w->th, NULL, pipe_main, w)) {
			if (w->par)
				deflateEnd(&w->zs);
			w->par = 0;
			break;
		}
		g->nth++;
	}
	if (!g->nth) {	/* inline then (one deflating thread: in turn, as two) */
		f->wp = NULL;
		pipe_free(g);
		return;
	}
	for (int i = 0; i < PIPE_QUEUE + g->nth; i++)
		g->spare[g->nspare++] = xmalloc(PIPE_BLOCK);
	pthread_mutex_lock(&g->mu);
	g->fill = g->spare[--g->nspare];
	pthread_mutex_unlock(&g->mu);
}

/* The last block, the threads' end; frees the pipe */
static void pipe_end(struct outfile *f)
{
	struct out_pipe *g = f->wp;

	if (!g)
		return;
	if (g->n)
		pipe_hand(g);
	pthread_mutex_lock(&g->mu);
	g->done = 1;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	for (int i = 0; i < g->nth; i++)
		pthread_join(g->wk[i].th, NULL);
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	pipe_free(g);
	f->wp = NULL;
}

/* The first failure as the caller knows it: while the thread runs, as of
 * the last block handed over (a lock a call was a tenth of the coding) */
static int first_err(struct outfile *f)
{
	return f->wp ? f->wp->seen : f->err;
}

/* A failure of the caller's: -1 with errno */
static int set_err(struct outfile *f, int err)
{
	struct out_pipe *g = f->wp;

	if (g)
		pthread_mutex_lock(&g->mu);
	if (!f->err)
		f->err = err;
	if (g) {
		if (!g->err)
			g->err = err;
		g->seen = g->err;
		pthread_mutex_unlock(&g->mu);
	}
	errno = err;
	return -1;
}

/* Bytes into the caller's block, handed over as it fills */
static void pipe_bytes(struct out_pipe *g, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		size_t k = PIPE_BLOCK - g->n < n ? PIPE_BLOCK - g->n : n;

		memcpy(g->fill + g->n, p, k);
		g->n += k;
		p += k;
		n -= k;
		if (g->n == PIPE_BLOCK)
			pipe_hand(g);
	}
}

/* Everything handed over written: the thread idle, its state the
 * caller's until the next block */
static void pipe_sync(struct out_pipe *g)
{
	if (g->n)
		pipe_hand(g);
	pthread_mutex_lock(&g->mu);
	while (g->queued || g->seq_in != g->seq_out)	/* queued, or in hand */
		pthread_cond_wait(&g->cv, &g->mu);
	pthread_mutex_unlock(&g->mu);
}

/*
 * .isb: the writing thread runs the coder, so that a capture's calls are
 * coded beside their gathering. Its blocks hold records: XML text (the
 * coder takes it cut anywhere), or a whole element, its names the
 * caller's (literals: pointers that stay), its values copied, or an
 * element again (its name, then N, D and N positions and numbers).
 */
enum { R_TEXT = 1, R_ELEMENT, R_AGAIN };
#define R_HEAD 5	/* kind, length */

static int rec_put(struct outfile *f, const char *b, size_t n)
{
	struct isb_attr av[ISB_MAXATTR];

	while (n) {
		uint32_t len;
		int err;

		memcpy(&len, b + 1, 4);
		if (b[0] == R_TEXT) {
			err = isbenc_feed(f->isb, b + R_HEAD, len);
		} else if (b[0] == R_AGAIN) {
			const char *q = b + R_HEAD, *name;
			int pos[ISB_MAXATTR];
			int64_t m[ISB_MAXATTR];
			int na = (unsigned char)q[sizeof(name)];

			memcpy(&name, q, sizeof(name));
			q += sizeof(name) + 2;
			for (int k = 0; k < na; k++) {
				pos[k] = (unsigned char)q[k * 9];
				memcpy(&m[k], q + k * 9 + 1, 8);
			}
			err = isbenc_again(f->isb, name, na, pos, m,
					   (unsigned char)b[R_HEAD + sizeof(name) + 1]);
		} else {
			const char *q = b + R_HEAD, *name;
			uint16_t nattr;
			bool empty = q[sizeof(name)];

			memcpy(&name, q, sizeof(name));
			memcpy(&nattr, q + sizeof(name) + 1, 2);
			q += sizeof(name) + 3;
			for (int k = 0; k < nattr; k++) {
				memcpy(&av[k], q, sizeof(av[k]));
				q += sizeof(av[k]);
				if (av[k].kind != ISB_A_NUM) {
					av[k].s = q;
					q += av[k].len;
				}
			}
			err = isbenc_element(f->isb, name, nattr, av, empty);
		}
		if (err)
			return err;
		b += R_HEAD + len;
		n -= R_HEAD + len;
	}
	return 0;
}

static int put(struct outfile *f, const char *b, size_t n)
{
	return f->isb ? rec_put(f, b, n) : put_raw(f, b, n);
}

static void rec_head(struct out_pipe *g, int kind, size_t len)
{
	uint32_t l = (uint32_t)len;

	g->fill[g->n] = (char)kind;
	memcpy(g->fill + g->n + 1, &l, 4);
	g->n += R_HEAD;
}

int outfile_write(struct outfile *f, const void *buf, size_t n)
{
	const char *p = buf;
	struct out_pipe *g = f->wp;
	int err;

	if ((err = first_err(f)))
		return errno = err, -1;
	if (!g) {
		if ((err = f->isb ? isbenc_feed(f->isb, p, n) : put_raw(f, p, n)))
			return set_err(f, err);
		return 0;
	}
	if (!f->isb) {
		pipe_bytes(g, p, n);
		return 0;
	}
	while (n) {
		size_t k;

		if (PIPE_BLOCK - g->n < R_HEAD + 64)
			pipe_hand(g);
		k = PIPE_BLOCK - g->n - R_HEAD;
		if (k > n)
			k = n;
		rec_head(g, R_TEXT, k);
		pipe_bytes(g, p, k);
		p += k;
		n -= k;
	}
	return 0;
}

int outfile_element(struct outfile *f, const char *name, int nattr,
		    const struct isb_attr *av, bool empty)
{
	struct out_pipe *g = f->wp;
	size_t len = sizeof(name) + 3;
	uint16_t na = (uint16_t)nattr;
	int err;

	if ((err = first_err(f)))
		return errno = err, -1;
	if (!f->isb || nattr > ISB_MAXATTR)
		return set_err(f, EINVAL);
	for (int k = 0; k < nattr; k++)
		len += sizeof(av[k]) + (av[k].kind != ISB_A_NUM ? av[k].len : 0);
	if (g && len > PIPE_BLOCK / 2) {
		/* larger than a block holds: coded here, the thread idle */
		pipe_sync(g);
		if ((err = first_err(f)))
			return errno = err, -1;
		g = NULL;
	}
	if (!g) {
		if ((err = isbenc_element(f->isb, name, nattr, av, empty)))
			return set_err(f, err);
		return 0;
	}
	if (PIPE_BLOCK - g->n < R_HEAD + len)
		pipe_hand(g);
	rec_head(g, R_ELEMENT, len);
	memcpy(g->fill + g->n, &name, sizeof(name));
	g->fill[g->n + sizeof(name)] = empty;
	memcpy(g->fill + g->n + sizeof(name) + 1, &na, 2);
	g->n += sizeof(name) + 3;
	for (int k = 0; k < nattr; k++) {
		memcpy(g->fill + g->n, &av[k], sizeof(av[k]));
		g->n += sizeof(av[k]);
		if (av[k].kind != ISB_A_NUM) {
			memcpy(g->fill + g->n, av[k].s, av[k].len);
			g->n += av[k].len;
		}
	}
	return 0;
}

int outfile_again(struct outfile *f, const char *name, int n, const int *pos,
		  const int64_t *m, int d)
{
	struct out_pipe *g = f->wp;
	size_t len = sizeof(name) + 2 + (size_t)n * 9;
	int err;

	if ((err = first_err(f)))
		return errno = err, -1;
	if (!f->isb || n < 1 || n > ISB_MAXATTR || d < 0 || d > ISB_MAXDIGITS)
		return set_err(f, EINVAL);
	if (!g) {
		if ((err = isbenc_again(f->isb, name, n, pos, m, d)))
			return set_err(f, err);
		return 0;
	}
	if (PIPE_BLOCK - g->n < R_HEAD + len)
		pipe_hand(g);
	rec_head(g, R_AGAIN, len);
	memcpy(g->fill + g->n, &name, sizeof(name));
	g->fill[g->n + sizeof(name)] = (char)n;
	g->fill[g->n + sizeof(name) + 1] = (char)d;
	g->n += sizeof(name) + 2;
	for (int k = 0; k < n; k++) {
		g->fill[g->n] = (char)pos[k];
		memcpy(g->fill + g->n + 1, &m[k], 8);
		g->n += 9;
	}
	return 0;
}

int outfile_isb(struct outfile *f)
{
	return f->isb != NULL;
}

static int xml_write(void *ctx, const char *buf, int len)
{
	return len <= 0 ? 0 : outfile_write(ctx, buf, (size_t)len) < 0 ? -1 : len;
}

static int xml_close(void *ctx)
{
	return 0;	/* outfile_close closes, and checks */
}

static int zstd_start(struct outfile *f)
{
	f->z = ZSTD_createCCtx();
	f->zcap = ZSTD_CStreamOutSize();
	f->zbuf = xmalloc(f->zcap);
	if (!f->z || ZSTD_isError(ZSTD_CCtx_setParameter(f->z, ZSTD_c_compressionLevel,
							 ZSTD_OUT_LEVEL)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(f->z, ZSTD_c_checksumFlag, 1)))
		return -1;
	return 0;
}

static void zstd_free(struct outfile *f)
{
	ZSTD_freeCCtx(f->z);
	free(f->zbuf);
	f->z = NULL;
	f->zbuf = NULL;
}

/* a part's elements are a thread's: inside trace, node, process, thread */
#define PART_DEPTH 4

static struct outfile *open_as(const char *path, enum compress comp, int part,
			       bool isb, int over, size_t room)
{
	int gzip = comp == TC_GZIP;
	struct outfile *f = xcalloc(1, sizeof(*f));
	xmlOutputBufferPtr ob;
	int e;

	xmlSetGenericErrorFunc(NULL, quiet);
	f->path = xstrdup(path);
	if (part) {
		f->fd = open(path, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (f->fd >= 0 && room && lseek(f->fd, (off_t)room, SEEK_SET) < 0) {
			close(f->fd);
			f->fd = -1;
		}
	} else if (over >= 0) {
		f->fd = fcntl(over, F_DUPFD_CLOEXEC, 0);
		if (f->fd >= 0) {
			f->hold = 1;
			f->room = room;
			f->held = xmalloc(room);
		}
	} else {
		f->tmp = xasprintf("%s.tmp%d", path, (int)getpid());
		f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	}
	if (f->fd < 0)
		goto fail;
	f->part = part;
	if (gzip && gz_start(f, part) < 0)
		goto fail_unlink;
	if (comp == TC_ZSTD && zstd_start(f) < 0) {
		errno = ENOMEM;
		goto fail_unlink;
	}
	if (part) {		/* inline, no libxml2 writer */
		if (isb)
			f->isb = isbenc_part(put_raw, f, PART_DEPTH);
		return f;
	}
	if (isb)
		f->isb = isbenc_new(put_raw, f);
	pipe_start(f);
	ob = xmlOutputBufferCreateIO(xml_write, xml_close, f, NULL);
	if (!ob || !(f->w = xmlNewTextWriter(ob))) {
		errno = ENOMEM;
		goto fail_unlink;
	}
	return f;
fail_unlink:
	e = errno;
	pipe_end(f);
	zstd_free(f);
	isbenc_free(f->isb);
	gz_free(f);
	close(f->fd);
	if (f->tmp)
		unlink(f->tmp);
	errno = e;
fail:
	e = errno;
	free(f->held);
	free(f->tmp);
	free(f->path);
	free(f);
	errno = e;
	return NULL;
}

struct outfile *outfile_open(const char *path, enum compress comp)
{
	return open_as(path, comp, 0, isb_path(path), -1, 0);
}

struct outfile *outfile_open_part(const char *dir, enum compress comp, bool isb)
{
	return open_as(dir, comp, 1, isb, -1, 0);
}

struct outfile *outfile_open_head(const char *dir, size_t room)
{
	return open_as(dir, TC_NONE, 1, false, -1, room);
}

struct outfile *outfile_open_over(const char *path, int fd, size_t room)
{
	return open_as(path, TC_NONE, 0, false, fd, room);
}

/* The file named, as outfile_open's (path.tmpPID, created exclusively),
 * the bytes held written first, the part's file given up (its part is
 * spliced as any other); the errno */
static int unhold(struct outfile *f)
{
	int fd, err = 0;

	f->tmp = xasprintf("%s.tmp%d", f->path, (int)getpid());
	fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = errno;
		free(f->tmp);
		f->tmp = NULL;
		return err;
	}
	close(f->fd);
	f->fd = fd;
	f->hold = 0;
	if (write_full(fd, f->held, f->nheld) < 0)
		err = errno;
	free(f->held);
	f->held = NULL;
	return err;
}

/* The part at ROOM in f's own file: what was held written before it,
 * the rest of the room a line of spaces (whitespace between elements),
 * and on after it; the errno */
static int in_place(struct outfile *f)
{
	size_t pad = f->room - f->nheld;
	int err = 0;

	if (pwrite_full(f->fd, f->held, f->nheld, 0) < 0)
		return errno;
	if (pad) {
		char *sp = xmalloc(pad);

		memset(sp, ' ', pad);
		sp[pad - 1] = '\n';
		if (pwrite_full(f->fd, sp, pad, (off_t)f->nheld) < 0)
			err = errno;
		free(sp);
	}
	if (!err && lseek(f->fd, 0, SEEK_END) < 0)
		err = errno;
	f->hold = 0;
	free(f->held);
	f->held = NULL;
	return err;
}

/* A file with no name (a head part's) named PATH.tmpPID, as
 * outfile_open's would be, with the mode that one would have; the errno */
static int name_it(struct outfile *f)
{
	char proc[64];
	mode_t um = umask(0);

	umask(um);
	f->tmp = xasprintf("%s.tmp%d", f->path, (int)getpid());
	if (fchmod(f->fd, 0644 & ~um) < 0)
		return errno;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, f->tmp, AT_SYMLINK_FOLLOW) == 0 ||
	    linkat(f->fd, "", AT_FDCWD, f->tmp, AT_EMPTY_PATH) == 0)
		return 0;
	/* no /proc, no CAP_DAC_READ_SEARCH: a copy */
	int fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	struct stat st;
	int err;

	if (fd < 0) {
		err = errno;
		free(f->tmp);
		f->tmp = NULL;
		return err;
	}
	err = fstat(f->fd, &st) < 0 ? errno : copy_at(f->fd, 0, fd, 0, st.st_size);
	if (!err && close(fd) < 0)
		err = errno;
	else if (err)
		close(fd);
	return err;
}

/* The current frame ended (zstd readers take frames one after another),
 * or the deflate stream (gzip: a part's streams follow it in the one
 * member, and a new one after them), so that a part may follow */
static int end_frame(struct outfile *f)
{
	int err;

	if (f->z)
		return zpush(f, NULL, 0, ZSTD_e_end);
	if (!f->gz)
		return 0;
	if ((err = gz_push(f, NULL, 0, Z_SYNC_FLUSH)))
		return err;
	return deflateReset(&f->gz->zs) == Z_OK ? 0 : EIO;
}

/* IN's LEN bytes from FROM into OUT at AT: by the kernel, page to page,
 * where the two are on one file system (a plain trace's parts are put
 * beside it: 133 MB in 56 ms on /dev/shm, no copy through us), else read
 * and written; the errno */
static int copy_at(int in, loff_t from, int out, loff_t at, loff_t len)
{
	loff_t off = 0;
	ssize_t k;
	char *buf;

	while (off < len) {
		loff_t src = from + off, to = at + off;

		k = copy_file_range(in, &src, out, &to, (size_t)(len - off), 0);
		if (k > 0) {
			off += k;
			continue;
		}
		if (k == 0)
			return EIO;	/* the part is shorter than it was */
		if (errno == EINTR)
			continue;
		if (errno != EXDEV && errno != EINVAL && errno != ENOSYS &&
		    errno != EOPNOTSUPP)
			return errno;
		break;
	}
	buf = xmalloc(PIPE_BLOCK);
	while (off < len) {
		k = pread(in, buf, len - off < PIPE_BLOCK ? (size_t)(len - off) : PIPE_BLOCK,
			  from + off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0 || pwrite_full(out, buf, (size_t)k, at + off) < 0) {
			int e = k == 0 ? EIO : errno;

			free(buf);
			return e;
		}
		off += k;
	}
	free(buf);
	return 0;
}

static void *copier_main(void *arg)
{
	struct outfile *f = arg;
	struct copier *c = f->cp;

	pthread_mutex_lock(&c->mu);
	for (;;) {
		while (!c->head && !c->done)
			pthread_cond_wait(&c->cv, &c->mu);
		struct copy_job *j = c->head;
		if (!j)
			break;
		c->head = j->next;
		int skip = c->err;

		pthread_mutex_unlock(&c->mu);
		int err = skip ? 0 : copy_at(j->fd, j->from, f->fd, j->at, j->len);
		close(j->fd);
		free(j);
		pthread_mutex_lock(&c->mu);
		if (err && !c->err)
			c->err = err;
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

/* FD's LEN bytes from FROM into f's file where it is now, by the
 * copier (or here, where it cannot start), the file's offset moved past
 * them; the errno */
static int copy_later(struct outfile *f, int fd, loff_t from, loff_t len)
{
	loff_t at = lseek(f->fd, 0, SEEK_CUR);
	struct copy_job *j;

	if (at < 0)
		return errno;
	if (!f->cp) {
		struct copier *c = xcalloc(1, sizeof(*c));

		pthread_mutex_init(&c->mu, NULL);
		pthread_cond_init(&c->cv, NULL);
		f->cp = c;
		if (pthread_create(&c->th, NULL, copier_main, f)) {
			f->cp = NULL;
			free(c);
		}
	}
	if (!f->cp) {
		int err = copy_at(fd, from, f->fd, at, len);

		return err ? err : lseek(f->fd, len, SEEK_CUR) < 0 ? errno : 0;
	}
	if (lseek(f->fd, len, SEEK_CUR) < 0)
		return errno;
	j = xcalloc(1, sizeof(*j));
	j->fd = dup(fd);
	if (j->fd < 0) {
		free(j);
		return errno;
	}
	j->from = from;
	j->at = at;
	j->len = len;
	pthread_mutex_lock(&f->cp->mu);
	if (f->cp->tail && f->cp->head)
		f->cp->tail->next = j;
	else
		f->cp->head = j;
	f->cp->tail = j;
	pthread_cond_signal(&f->cp->cv);
	pthread_mutex_unlock(&f->cp->mu);
	return 0;
}

/* The copier's end: every part in; its first failure's errno */
static int copier_end(struct outfile *f)
{
	struct copier *c = f->cp;
	int err;

	if (!c)
		return 0;
	pthread_mutex_lock(&c->mu);
	c->done = 1;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
	pthread_join(c->th, NULL);
	err = c->err;
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->cv);
	free(c);
	f->cp = NULL;
	return err;
}

/* The bytes of the part in FD from AT: to its end, or to its sum (a
 * gzip part's, taken into the member's: the part follows what the
 * member holds so far); the errno */
static int part_span(struct outfile *f, int fd, loff_t at, loff_t *len)
{
	unsigned char sum[GZ_SUM];
	struct stat st;

	if (fstat(fd, &st) < 0)
		return errno;
	*len = st.st_size > at ? st.st_size - at : 0;
	if (!f->gz)
		return 0;
	if (*len < GZ_SUM)
		return EIO;	/* not a part of ours */
	*len -= GZ_SUM;
	errno = 0;
	if (pread(fd, sum, GZ_SUM, at + *len) != GZ_SUM)
		return errno ? errno : EIO;
	gz_take(f->gz, (uLong)get_le(sum, 4), get_le(sum + 4, 8));
	return 0;
}

int outfile_splice(struct outfile *f, int fd, size_t at)
{
	loff_t len = 0;
	int err;

	if (f->w && xmlTextWriterFlush(f->w) < 0)
		return set_err(f, EIO);
	/* the thread idle: its state is ours, its errors in f->err */
	if (f->wp)
		pipe_sync(f->wp);
	if ((err = f->err))
		return errno = err, -1;
	/* the binary encoding: the part is coded from nothing, and so
	 * what comes after it */
	if ((f->isb && (err = isbenc_reset(f->isb))) || (err = end_frame(f)))
		return set_err(f, err);
	if (f->hold) {
		struct stat a, b;

		/* the part is the file's own (fd, f->fd: dups of one) */
		if (fstat(fd, &a) == 0 && fstat(f->fd, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino && at == f->room) {
			err = in_place(f);
			return err ? set_err(f, err) : 0;
		}
		if ((err = unhold(f)))
			return set_err(f, err);
	}
	if ((err = part_span(f, fd, (loff_t)at, &len)))
		return set_err(f, err);
	err = copy_later(f, fd, (loff_t)at, len);
	if (!err && f->isb)
		err = isbenc_reset(f->isb);
	return err ? set_err(f, err) : 0;
}

xmlTextWriterPtr outfile_writer(struct outfile *f)
{
	return f->w;
}

/* Everything written and ended but the file's close: f->err says */
static void finish(struct outfile *f)
{
	int enc_err = 0;

	if (f->w && xmlTextWriterEndDocument(f->w) < 0 && !f->err)
		f->err = EIO;
	if (f->w)
		xmlFreeTextWriter(f->w);	/* flushes through xml_write */
	pipe_end(f);
	if (f->isb) {
		/* the stream's end, here once the thread is gone */
		enc_err = f->err ? (isbenc_free(f->isb), 0) :
			  f->part ? isbenc_part_end(f->isb) : isbenc_finish(f->isb);
		f->isb = NULL;
	}
	if (enc_err && !f->err)
		f->err = enc_err;
	if (f->z) {
		if (!f->err)
			f->err = zpush(f, NULL, 0, ZSTD_e_end);	/* the frame's end */
		zstd_free(f);
	}
	if (f->gz) {
		if (!f->err)
			f->err = gz_end(f);
		gz_free(f);
	}
}

int outfile_close(struct outfile *f, int failed)
{
	int err;

	finish(f);
	if (f->hold && !f->err && (err = unhold(f)))	/* its part never came */
		f->err = err;
	err = copier_end(f);	/* the parts in before the file is */
	if (err && !f->err)
		f->err = err;
	/* a head part's file, the part in place: named now */
	if (!f->tmp && !f->err && !failed && (err = name_it(f)))
		f->err = err;
	if (close(f->fd) && !f->err)
		f->err = errno;
	if (!f->err && !failed && rename(f->tmp, f->path))
		f->err = errno;
	err = f->err;
	if ((err || failed) && f->tmp)
		unlink(f->tmp);
	free(f->held);
	free(f->tmp);
	free(f->path);
	free(f);
	errno = err;
	return err || failed ? -1 : 0;
}

int outfile_close_part(struct outfile *f, int failed)
{
	int err, fd = f->fd;

	finish(f);
	err = f->err;
	if (err || failed) {
		close(fd);
		fd = -1;
	}
	free(f->path);
	free(f);
	errno = err ? err : failed ? ECANCELED : 0;
	return fd;
}
