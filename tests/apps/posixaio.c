/*
 * POSIX aio's operations, for tests/e2e/capture-aio.sh. posixaio FILE:
 * aio_write (4096 at 0), waited for by aio_suspend; aio_read (100 at
 * 0); lio_listio(LIO_WAIT) of a write (512 at 4096) and a read (512 at
 * 0); aio_fsync(O_SYNC); each reaped by aio_error and aio_return.
 * Exit status 0 when each did what it was asked.
 */
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char wbuf[4096], rbuf[4096], lw[512], lr[512];

static void done(struct aiocb *cb, ssize_t want)
{
	const struct aiocb *l[1] = { cb };
	ssize_t r;

	while (aio_error(cb) == EINPROGRESS)
		aio_suspend(l, 1, NULL);
	if ((r = aio_return(cb)) != want) {
		fprintf(stderr, "aio: %zd, not %zd\n", r, want);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct aiocb w = { 0 }, r = { 0 }, a = { 0 }, b = { 0 }, s = { 0 };
	struct aiocb *list[2] = { &a, &b };
	int fd;

	if (argc != 2 || (fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0)
		return 2;
	memset(wbuf, 'w', sizeof(wbuf));
	w.aio_fildes = fd;
	w.aio_buf = wbuf;
	w.aio_nbytes = 4096;
	if (aio_write(&w) < 0)
		return 1;
	done(&w, 4096);
	r.aio_fildes = fd;
	r.aio_buf = rbuf;
	r.aio_nbytes = 100;
	if (aio_read(&r) < 0)
		return 1;
	done(&r, 100);
	a = (struct aiocb){ .aio_fildes = fd, .aio_buf = lw, .aio_nbytes = 512,
			    .aio_offset = 4096, .aio_lio_opcode = LIO_WRITE };
	b = (struct aiocb){ .aio_fildes = fd, .aio_buf = lr, .aio_nbytes = 512,
			    .aio_offset = 0, .aio_lio_opcode = LIO_READ };
	if (lio_listio(LIO_WAIT, list, 2, NULL) < 0)
		return 1;
	done(&a, 512);
	done(&b, 512);
	s.aio_fildes = fd;
	if (aio_fsync(O_SYNC, &s) < 0)
		return 1;
	done(&s, 0);
	close(fd);
	return 0;
}
