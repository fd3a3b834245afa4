/*
 * libaio's operations, for tests/e2e/capture-aio.sh. aioops MODE FILE:
 *  ops      one context of depth 8: two pwrites (4096 at 0, 8192 at
 *           4096) in one io_submit, then a pread (4096 at 0), a preadv
 *           (2048 + 2048 at 4096), a pwritev (1000 + 24 at 12288), an
 *           fsync and an fdsync in another, all reaped by io_getevents;
 *           then a pread (100 at 0) by raw system calls (syscall());
 *           io_destroy
 *  reap     three preads (512 each) reaped from the context's ring in
 *           user space, as fio's userspace_reap does: no io_getevents
 *  destroy  two pwrites (512 each) left in flight to io_destroy
 *  many     a context of depth 512: four times 512 preads of 512 bytes
 *           (file offsets 0 to 256 KiB) submitted at once and reaped,
 *           the capture's table of operations in flight full of them
 * Exit status 0 when every operation did what it was asked.
 */
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static char buf[8][16384] __attribute__((aligned(4096)));

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* reap n events, each result as asked */
static void reap(io_context_t ctx, int n, const long *want)
{
	struct io_event ev[8];
	int got = 0;

	while (got < n) {
		int r = io_getevents(ctx, 1, n - got, ev, NULL);
		if (r < 0) {
			errno = -r;
			die("io_getevents");
		}
		for (int i = 0; i < r; i++) {
			struct iocb *cb = ev[i].obj;
			long w = want[(long)cb->data];
			if ((long)ev[i].res != w) {
				fprintf(stderr, "op %ld: %ld, not %ld\n", (long)cb->data,
					(long)ev[i].res, w);
				exit(1);
			}
		}
		got += r;
	}
}

/* the kernel's ring (fs/aio.c: struct aio_ring), read as fio does */
struct aio_ring {
	unsigned id, nr, head, tail, magic, compat_features, incompat_features,
		 header_length;
	struct io_event io_events[];
};

int main(int argc, char **argv)
{
	io_context_t ctx = 0;
	struct iocb cbs[8], *ios[8];
	struct iovec rv[2] = { { buf[3], 2048 }, { buf[3] + 2048, 2048 } };
	struct iovec wv[2] = { { buf[4], 1000 }, { buf[4] + 1000, 24 } };
	int fd, r;

	if (argc != 3)
		return 2;
	if ((fd = open(argv[2], O_RDWR | O_CREAT, 0644)) < 0)
		die(argv[2]);
	memset(buf, 'a', sizeof(buf));
	if ((r = io_setup(8, &ctx)) < 0) {
		errno = -r;
		die("io_setup");
	}
	for (int i = 0; i < 8; i++)
		ios[i] = &cbs[i];
	if (!strcmp(argv[1], "ops")) {
		static const long w1[] = { 4096, 8192 };
		static const long w2[] = { 4096, 4096, 1024, 0, 0 };
		io_prep_pwrite(&cbs[0], fd, buf[0], 4096, 0);
		io_prep_pwrite(&cbs[1], fd, buf[1], 8192, 4096);
		for (long i = 0; i < 2; i++)
			cbs[i].data = (void *)i;
		if (io_submit(ctx, 2, ios) != 2)
			die("io_submit");
		reap(ctx, 2, w1);
		io_prep_pread(&cbs[0], fd, buf[2], 4096, 0);
		io_prep_preadv(&cbs[1], fd, rv, 2, 4096);
		io_prep_pwritev(&cbs[2], fd, wv, 2, 12288);
		io_prep_fsync(&cbs[3], fd);
		io_prep_fdsync(&cbs[4], fd);
		for (long i = 0; i < 5; i++)
			cbs[i].data = (void *)i;
		/* fsync after the writes: their own submission */
		if (io_submit(ctx, 3, ios) != 3)
			die("io_submit");
		reap(ctx, 3, w2);
		if (io_submit(ctx, 2, ios + 3) != 2)
			die("io_submit");
		reap(ctx, 2, w2);
		/* raw: the kernel's own calls, no libaio */
		struct iocb raw = { 0 };
		struct iocb *rp = &raw;
		struct io_event ev;
		raw.aio_fildes = fd;
		raw.aio_lio_opcode = IO_CMD_PREAD;
		raw.u.c.buf = buf[5];
		raw.u.c.nbytes = 100;
		raw.u.c.offset = 0;
		if (syscall(SYS_io_submit, ctx, 1L, &rp) != 1)
			die("syscall io_submit");
		if (syscall(SYS_io_getevents, ctx, 1L, 1L, &ev, NULL) != 1 || ev.res != 100)
			die("syscall io_getevents");
	} else if (!strcmp(argv[1], "reap")) {
		struct aio_ring *ring = (struct aio_ring *)ctx;
		for (int i = 0; i < 3; i++)
			io_prep_pread(&cbs[i], fd, buf[i], 512, 512 * i);
		if (io_submit(ctx, 3, ios) != 3)
			die("io_submit");
		for (int got = 0; got < 3;) {
			unsigned head = ring->head, tail = __atomic_load_n(&ring->tail,
									 __ATOMIC_ACQUIRE);
			if (head == tail)
				continue;
			got += (int)((tail - head + ring->nr) % ring->nr);
			__atomic_store_n(&ring->head, tail, __ATOMIC_RELEASE);
		}
	} else if (!strcmp(argv[1], "many")) {
		static struct iocb mcb[512], *mios[512];
		static char mbuf[512][512];
		io_context_t big = 0;
		if ((r = io_setup(512, &big)) < 0) {
			errno = -r;
			die("io_setup");
		}
		if (pwrite(fd, mbuf, sizeof(mbuf), 0) != (ssize_t)sizeof(mbuf))
			die("pwrite");
		for (int round = 0; round < 4; round++) {
			for (int i = 0; i < 512; i++) {
				io_prep_pread(&mcb[i], fd, mbuf[i], 512, 512 * i);
				mios[i] = &mcb[i];
			}
			for (int done = 0; done < 512;)
				if ((r = io_submit(big, 512 - done, mios + done)) > 0)
					done += r;
				else
					die("io_submit");
			struct io_event ev[64];
			for (int got = 0; got < 512;) {
				int k = io_getevents(big, 1, 64, ev, NULL);
				if (k < 0)
					die("io_getevents");
				for (int i = 0; i < k; i++)
					if (ev[i].res != 512)
						die("short pread");
				got += k;
			}
		}
		io_destroy(big);
	} else if (!strcmp(argv[1], "destroy")) {
		for (int i = 0; i < 2; i++)
			io_prep_pwrite(&cbs[i], fd, buf[i], 512, 512 * i);
		if (io_submit(ctx, 2, ios) != 2)
			die("io_submit");
	} else {
		return 2;
	}
	if ((r = io_destroy(ctx)) < 0) {
		errno = -r;
		die("io_destroy");
	}
	close(fd);
	return 0;
}
