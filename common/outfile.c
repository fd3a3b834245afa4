#include "outfile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

struct outfile {
	char *path, *tmp;
	int fd;
	gzFile gz;
	int err;		/* the first failure's errno, 0 while all is well */
	xmlTextWriterPtr w;
};

/* libxml2 says "I/O error" on stderr itself; our one line says more */
static void quiet(void *ctx, const char *msg, ...)
{
}

int outfile_write(struct outfile *f, const void *buf, size_t n)
{
	const char *p = buf;

	if (f->err)
		return errno = f->err, -1;
	if (!f->gz) {
		if (write_full(f->fd, buf, n) < 0)
			return f->err = errno, -1;
		return 0;
	}
	/* gzwrite takes an unsigned count: bounded pieces */
	while (n) {
		unsigned k = n > (1u << 20) ? 1u << 20 : (unsigned)n;
		int e = 0;

		errno = 0;
		if (gzwrite(f->gz, p, k) != (int)k) {
			gzerror(f->gz, &e);
			f->err = e == Z_ERRNO && errno ? errno : EIO;
			return errno = f->err, -1;
		}
		p += k;
		n -= k;
	}
	return 0;
}

static int xml_write(void *ctx, const char *buf, int len)
{
	return len <= 0 ? 0 : outfile_write(ctx, buf, (size_t)len) < 0 ? -1 : len;
}

static int xml_close(void *ctx)
{
	return 0;	/* outfile_close closes, and checks */
}

struct outfile *outfile_open(const char *path, int gzip)
{
	struct outfile *f = xcalloc(1, sizeof(*f));
	xmlOutputBufferPtr ob;
	int e;

	xmlSetGenericErrorFunc(NULL, quiet);
	f->path = xstrdup(path);
	f->tmp = xasprintf("%s.tmp%d", path, (int)getpid());
	f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (f->fd < 0)
		goto fail;
	if (gzip && !(f->gz = gzdopen(f->fd, "wb6"))) {
		errno = ENOMEM;
		goto fail_unlink;
	}
	ob = xmlOutputBufferCreateIO(xml_write, xml_close, f, NULL);
	if (!ob || !(f->w = xmlNewTextWriter(ob))) {
		errno = ENOMEM;
		goto fail_unlink;
	}
	return f;
fail_unlink:
	e = errno;
	if (f->gz)
		gzclose(f->gz);
	else
		close(f->fd);
	unlink(f->tmp);
	errno = e;
fail:
	e = errno;
	free(f->tmp);
	free(f->path);
	free(f);
	errno = e;
	return NULL;
}

xmlTextWriterPtr outfile_writer(struct outfile *f)
{
	return f->w;
}

int outfile_close(struct outfile *f, int failed)
{
	int err;

	if (xmlTextWriterEndDocument(f->w) < 0 && !f->err)
		f->err = EIO;
	xmlFreeTextWriter(f->w);	/* flushes through xml_write */
	if (f->gz) {
		int r = gzclose(f->gz);	/* the last compressed block */

		if (r != Z_OK && !f->err)
			f->err = r == Z_ERRNO && errno ? errno : EIO;
	} else if (close(f->fd) && !f->err) {
		f->err = errno;
	}
	if (!f->err && !failed && rename(f->tmp, f->path))
		f->err = errno;
	err = f->err;
	if (err || failed)
		unlink(f->tmp);
	free(f->tmp);
	free(f->path);
	free(f);
	errno = err;
	return err || failed ? -1 : 0;
}
