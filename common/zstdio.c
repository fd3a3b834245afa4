#include "zstdio.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <libxml/parser.h>

static const unsigned char zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

enum compress compress_of(const char *path)
{
	size_t l = strlen(path);

	if (l > 3 && !strcmp(path + l - 3, ".gz"))
		return TC_GZIP;
	if (l > 4 && !strcmp(path + l - 4, ".zst"))
		return TC_ZSTD;
	return TC_NONE;
}

enum compress compress_for(const char *path, int gzip_flag)
{
	enum compress c = compress_of(path);

	return c == TC_NONE && gzip_flag ? TC_GZIP : c;
}

const char *compress_suffix(enum compress c)
{
	static const char *const suffix[] = { [TC_NONE] = "", [TC_GZIP] = ".gz",
					      [TC_ZSTD] = ".zst" };
	return suffix[c];
}

/* --- input ------------------------------------------------------------- */

/*
 * zstd and gzip read for libxml2 (before its own readers: its gzip reader
 * takes a file's first member only), decoded ahead by a thread of their
 * own when the file is large enough and there is a second CPU, so that
 * the parser's thread only parses (a 1M-event .xml.gz: inflate was a
 * fifth of that thread).
 */
#define AHEAD_MIN (64 << 10)	/* compressed bytes, at least */
#define AHEAD_BLK (256 << 10)
#define AHEAD_N   4

struct ahead {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *blk[AHEAD_N];
	int len[AHEAD_N];	/* decoded bytes; 0 the end, -1 a failure */
	int head, count;	/* the full ones, from head */
	int pos;		/* the reader's place in blk[head] */
	int stop;		/* the reader closed it */
};

struct zin {
	int fd;
	int gzip;
	ZSTD_DCtx *d;
	z_stream zs;
	char *buf;
	size_t cap;
	ZSTD_inBuffer in;
	int in_frame;		/* input taken since the last frame's end */
	char why[128];		/* the failure, kept: decoding stops there */
	struct ahead *ah;
};

static __thread const char *zin_error;
static __thread char zin_msg[160];
static __thread void (*zin_watch)(void *, const char *);
static __thread void *zin_watch_arg;

/* the failure told to the thread that reads (libxml2's) */
static void zin_fail(struct zin *z)
{
	snprintf(zin_msg, sizeof(zin_msg), "truncated or corrupt %s data: %s",
		 z->gzip ? "gzip" : "zstd", z->why);
	zin_error = zin_msg;
	if (zin_watch)
		zin_watch(zin_watch_arg, zin_msg);
}

void zstd_input_watch(void (*fn)(void *arg, const char *msg), void *arg)
{
	zin_watch = fn;
	zin_watch_arg = arg;
}

const char *zstd_input_error(void)
{
	const char *e = zin_error;

	zin_error = NULL;
	return e;
}

static const char *plain_path(const char *uri)
{
	return strncmp(uri, "file://", 7) ? uri : uri + 7;
}

static const unsigned char gz_magic[2] = { 0x1f, 0x8b };

/* "gzip", "zstd" or NULL: FD's first bytes */
static const char *kind_of(int fd)
{
	unsigned char head[4];
	ssize_t n = pread(fd, head, sizeof(head), 0);

	if (n == 4 && !memcmp(head, zstd_magic, 4))
		return "zstd";
	return n >= 2 && !memcmp(head, gz_magic, 2) ? "gzip" : NULL;
}

const char *compressed_kind(const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	const char *k = fd < 0 ? NULL : kind_of(fd);

	if (fd >= 0)
		close(fd);
	return k;
}

static int zin_match(const char *uri)
{
	zin_error = NULL;	/* it tells of the file opened last */
	return compressed_kind(plain_path(uri)) != NULL;
}

static int failed(struct zin *z, const char *why)
{
	snprintf(z->why, sizeof(z->why), "%s", why);
	return -1;
}

/* More input; 0 at the file's end, -1 failed */
static ssize_t refill(struct zin *z)
{
	ssize_t n;

	do
		n = read(z->fd, z->buf, z->cap);
	while (n < 0 && errno == EINTR);
	return n < 0 ? failed(z, strerror(errno)) : n;
}

static int zstd_decode(struct zin *z, char *buf, size_t len)
{
	ZSTD_outBuffer out = { buf, len, 0 };

	for (;;) {
		size_t pos = z->in.pos, r;
		ssize_t n;

		r = ZSTD_decompressStream(z->d, &out, &z->in);
		if (ZSTD_isError(r)) {	/* what came out first */
			failed(z, ZSTD_getErrorName(r));
			return out.pos ? (int)out.pos : -1;
		}
		/* called again with nothing new, it asks for the next frame */
		if (r == 0)
			z->in_frame = 0;
		else if (z->in.pos > pos)
			z->in_frame = 1;
		if (out.pos || !out.size)
			return (int)out.pos;
		if (z->in.pos < z->in.size)
			continue;
		if ((n = refill(z)) < 0)
			return -1;
		if (n == 0)
			return z->in_frame ? failed(z, "the stream ends inside a frame") : 0;
		z->in.size = (size_t)n;
		z->in.pos = 0;
	}
}

/* gzip: members one after another (gzip -d's reading), each checked.
 * inflate first, even with no input left: what it decoded from the
 * input it took may still be waiting for room (a cut trace's last 60
 * bytes were lost so, and its failure named the line before theirs) */
static int gzip_decode(struct zin *z, char *buf, size_t len)
{
	z->zs.next_out = (Bytef *)buf;
	z->zs.avail_out = (uInt)len;
	for (;;) {
		int r = inflate(&z->zs, Z_NO_FLUSH);

		if (r == Z_STREAM_END) {
			z->in_frame = 0;
			if (inflateReset(&z->zs) != Z_OK)
				return failed(z, "inflateReset");
		} else if (r == Z_OK) {
			z->in_frame = 1;
		} else if (r != Z_BUF_ERROR) {	/* what came out first */
			size_t out = len - z->zs.avail_out;

			failed(z, z->zs.msg ? z->zs.msg : "inflate failed");
			return out ? (int)out : -1;
		}
		if (z->zs.avail_out < len)
			return (int)(len - z->zs.avail_out);
		if (!z->zs.avail_in) {
			ssize_t n = refill(z);

			if (n < 0)
				return -1;
			if (n == 0)
				return z->in_frame ? failed(z, "the stream ends inside a member") : 0;
			z->zs.next_in = (Bytef *)z->buf;
			z->zs.avail_in = (uInt)n;
		}
	}
}

/* Decoded bytes into BUF; 0 at the end of a whole stream, -1 (z->why)
 * for a stream cut short or corrupt, and from then on */
static int decode(struct zin *z, char *buf, size_t len)
{
	if (z->why[0])
		return -1;
	if (!len)
		return 0;
	return z->gzip ? gzip_decode(z, buf, len) : zstd_decode(z, buf, len);
}

static void *ahead_main(void *arg)
{
	struct zin *z = arg;
	struct ahead *a = z->ah;

	for (;;) {
		pthread_mutex_lock(&a->mu);
		while (a->count == AHEAD_N && !a->stop)
			pthread_cond_wait(&a->cv, &a->mu);
		int slot = (a->head + a->count) % AHEAD_N, stop = a->stop;

		pthread_mutex_unlock(&a->mu);
		if (stop)
			break;
		/* the block filled, up to the end or a failure */
		int n = 0, k;

		while (n < AHEAD_BLK && (k = decode(z, a->blk[slot] + n, AHEAD_BLK - n)) > 0)
			n += k;
		if (!n)
			n = z->why[0] ? -1 : 0;
		pthread_mutex_lock(&a->mu);
		a->len[slot] = n;
		a->count++;
		pthread_cond_broadcast(&a->cv);
		pthread_mutex_unlock(&a->mu);
		if (n <= 0)
			break;
	}
	return NULL;
}

static void ahead_start(struct zin *z)
{
	const char *v = getenv("ISLAND_READER_THREADS");
	struct ahead *a;
	struct stat st;

	if ((v && !strcmp(v, "1")) || sysconf(_SC_NPROCESSORS_ONLN) < 2 ||
	    fstat(z->fd, &st) < 0 || st.st_size < AHEAD_MIN)
		return;
	a = xcalloc(1, sizeof(*a));
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	for (int i = 0; i < AHEAD_N; i++)
		a->blk[i] = xmalloc(AHEAD_BLK);
	z->ah = a;
	if (thread_quiet(&a->th, ahead_main, z)) {
		z->ah = NULL;	/* decoded as read, then */
		for (int i = 0; i < AHEAD_N; i++)
			free(a->blk[i]);
		free(a);
	}
}

static void ahead_end(struct zin *z)
{
	struct ahead *a = z->ah;

	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	a->stop = 1;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->th, NULL);
	for (int i = 0; i < AHEAD_N; i++)
		free(a->blk[i]);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->cv);
	free(a);
	z->ah = NULL;
}

/* From the blocks decoded ahead: the end or the failure stays last */
static int ahead_read(struct zin *z, char *buf, int len)
{
	struct ahead *a = z->ah;
	int n, k;

	pthread_mutex_lock(&a->mu);
	while (!a->count)
		pthread_cond_wait(&a->cv, &a->mu);
	n = a->len[a->head];
	pthread_mutex_unlock(&a->mu);
	if (n <= 0)
		return n;
	k = n - a->pos < len ? n - a->pos : len;
	memcpy(buf, a->blk[a->head] + a->pos, (size_t)k);
	if ((a->pos += k) == n) {
		pthread_mutex_lock(&a->mu);
		a->pos = 0;
		a->head = (a->head + 1) % AHEAD_N;
		a->count--;
		pthread_cond_broadcast(&a->cv);
		pthread_mutex_unlock(&a->mu);
	}
	return k;
}

static void *zin_open(const char *uri)
{
	struct zin *z = xcalloc(1, sizeof(*z));
	const char *kind;

	z->fd = open(plain_path(uri), O_RDONLY | O_CLOEXEC);
	if (z->fd < 0) {
		free(z);
		return NULL;
	}
	/* the file opened, not the one zin_match looked at */
	kind = kind_of(z->fd);
	z->gzip = kind && !strcmp(kind, "gzip");
	if (z->gzip) {
		z->cap = 1 << 16;
		if (inflateInit2(&z->zs, 15 + 16) != Z_OK)
			goto fail;
	} else {
		z->cap = ZSTD_DStreamInSize();
		if (!(z->d = ZSTD_createDCtx()))
			goto fail;
	}
	z->buf = xmalloc(z->cap);
	z->in.src = z->buf;
	ahead_start(z);
	return z;
fail:
	close(z->fd);
	free(z);
	return NULL;
}

/* LEN whole, unless the stream ends or fails first (the failure then
 * comes on the next read): libxml2 reports a failed read where its parse
 * stands, so decoded ahead or not it is handed the same reads (a cut
 * gzip trace's line was 397023 in one thread, 397025 in two) */
static int zin_read(void *ctx, char *buf, int len)
{
	struct zin *z = ctx;
	int got = 0, n = 0;

	while (got < len) {
		n = z->ah ? ahead_read(z, buf + got, len - got) :
			    decode(z, buf + got, (size_t)(len - got));
		if (n <= 0)
			break;
		got += n;
	}
	if (got)
		return got;
	if (n < 0)
		zin_fail(z);
	return n;
}

static int zin_close(void *ctx)
{
	struct zin *z = ctx;

	ahead_end(z);
	close(z->fd);
	if (z->gzip)
		inflateEnd(&z->zs);
	ZSTD_freeDCtx(z->d);
	free(z->buf);
	free(z);
	return 0;
}

void zstd_input_register(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	xmlInitParser();	/* its own readers first: ours is tried before them */
	/* tried before libxml2's own file reader, registered earlier */
	if (xmlRegisterInputCallbacks(zin_match, zin_open, zin_read, zin_close) < 0)
		die(70, "cannot register the zstd and gzip reader with libxml2");
}
