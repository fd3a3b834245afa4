#include "zstdio.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#include <libxml/parser.h>

static const unsigned char zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

enum trace_compress trace_compress_of(const char *path)
{
	size_t l = strlen(path);

	if (l > 3 && !strcmp(path + l - 3, ".gz"))
		return TC_GZIP;
	if (l > 4 && !strcmp(path + l - 4, ".zst"))
		return TC_ZSTD;
	return TC_NONE;
}

enum trace_compress trace_compress_for(const char *path, int gzip_flag)
{
	enum trace_compress c = trace_compress_of(path);

	return c == TC_NONE && gzip_flag ? TC_GZIP : c;
}

const char *trace_compress_suffix(enum trace_compress c)
{
	static const char *const suffix[] = { [TC_NONE] = "", [TC_GZIP] = ".gz",
					      [TC_ZSTD] = ".zst" };
	return suffix[c];
}

/* --- input ------------------------------------------------------------- */

struct zin {
	int fd;
	ZSTD_DCtx *d;
	char *buf;
	ZSTD_inBuffer in;
	int in_frame;		/* input taken since the last frame's end */
};

static __thread const char *zin_error;
static __thread char zin_msg[160];

static void zin_fail(const char *why)
{
	snprintf(zin_msg, sizeof(zin_msg), "truncated or corrupt zstd data: %s", why);
	zin_error = zin_msg;
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

static int magic_is(const char *file, const unsigned char *m, size_t n)
{
	unsigned char head[4];
	int fd = open(file, O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return 0;
	ok = read(fd, head, n) == (ssize_t)n && !memcmp(head, m, n);
	close(fd);
	return ok;
}

const char *compressed_kind(const char *file)
{
	static const unsigned char gz[2] = { 0x1f, 0x8b };

	if (magic_is(file, zstd_magic, 4))
		return "zstd";
	return magic_is(file, gz, 2) ? "gzip" : NULL;
}

static int zin_match(const char *uri)
{
	zin_error = NULL;	/* it tells of the file opened last */
	return magic_is(plain_path(uri), zstd_magic, 4);
}

static void *zin_open(const char *uri)
{
	struct zin *z = xcalloc(1, sizeof(*z));

	z->fd = open(plain_path(uri), O_RDONLY | O_CLOEXEC);
	z->d = ZSTD_createDCtx();
	if (z->fd < 0 || !z->d) {
		if (z->fd >= 0)
			close(z->fd);
		ZSTD_freeDCtx(z->d);
		free(z);
		return NULL;
	}
	z->buf = xmalloc(ZSTD_DStreamInSize());
	z->in.src = z->buf;
	return z;
}

/* Decoded bytes into BUF; 0 at the end of a whole stream, -1 (and
 * zstd_input_error set) for a stream cut short or corrupt. */
static int zin_read(void *ctx, char *buf, int len)
{
	struct zin *z = ctx;
	ZSTD_outBuffer out = { buf, len > 0 ? (size_t)len : 0, 0 };

	for (;;) {
		size_t pos = z->in.pos, r;
		ssize_t n;

		r = ZSTD_decompressStream(z->d, &out, &z->in);
		if (ZSTD_isError(r)) {
			zin_fail(ZSTD_getErrorName(r));
			return -1;
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
		do
			n = read(z->fd, z->buf, ZSTD_DStreamInSize());
		while (n < 0 && errno == EINTR);
		if (n < 0) {
			zin_fail(strerror(errno));
			return -1;
		}
		if (n == 0) {
			if (z->in_frame) {
				zin_fail("the stream ends inside a frame");
				return -1;
			}
			return 0;
		}
		z->in.size = (size_t)n;
		z->in.pos = 0;
	}
}

static int zin_close(void *ctx)
{
	struct zin *z = ctx;

	close(z->fd);
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
		die(70, "cannot register the zstd reader with libxml2");
}
