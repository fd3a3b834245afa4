/*
 * io_uring through liburing (whose system calls are its own, not libc's),
 * for tests/e2e/capture-aio.sh. uring MODE FILE: eight times a write of
 * 4096 bytes at 0, then a read of them, each submitted and waited for:
 *  plain   a ring of 4 entries
 *  sqpoll  a ring polled by the kernel's thread (IORING_SETUP_SQPOLL):
 *          its submissions make no system call
 *  regring a ring of 4 entries registered (io_uring_register_ring_fd):
 *          liburing enters it by its index, not its descriptor
 * Exit status 0 when both did what was asked, 77 when the kernel refused
 * the ring (io_uring disabled, SQPOLL not permitted).
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char buf[4096];

static int one(struct io_uring *ring, int fd, int write)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;

	if (!sqe)
		return -1;
	if (write)
		io_uring_prep_write(sqe, fd, buf, sizeof(buf), 0);
	else
		io_uring_prep_read(sqe, fd, buf, sizeof(buf), 0);
	/* a SQPOLL ring's thread may have taken the entry before the submit
	 * looked: what counts is its completion */
	int r = io_uring_submit(ring);
	if (r < 0 || (r != 1 && !(ring->flags & IORING_SETUP_SQPOLL))) {
		fprintf(stderr, "io_uring_submit: %d\n", r);
		return -1;
	}
	while ((r = io_uring_wait_cqe(ring, &cqe)) == -EINTR)
		;
	if (r < 0) {
		fprintf(stderr, "io_uring_wait_cqe: %s\n", strerror(-r));
		return -1;
	}
	int res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

int main(int argc, char **argv)
{
	struct io_uring_params p = { 0 };
	struct io_uring ring;
	int fd, r;

	if (argc != 3)
		return 2;
	if (!strcmp(argv[1], "sqpoll")) {
		p.flags = IORING_SETUP_SQPOLL;
		p.sq_thread_idle = 100;
	} else if (strcmp(argv[1], "plain") && strcmp(argv[1], "regring")) {
		return 2;
	}
	if ((r = io_uring_queue_init_params(4, &ring, &p)) < 0) {
		fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-r));
		return 77;
	}
	if (!strcmp(argv[1], "regring") && (r = io_uring_register_ring_fd(&ring)) != 1) {
		fprintf(stderr, "io_uring_register_ring_fd: %s\n", strerror(-r));
		return 77;
	}
	if ((fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0) {
		perror(argv[2]);
		return 2;
	}
	memset(buf, 'u', sizeof(buf));
	for (int i = 0; i < 8; i++) {
		int w = one(&ring, fd, 1), rd = w == 4096 ? one(&ring, fd, 0) : 0;
		if (w != 4096 || rd != 4096) {
			fprintf(stderr, "uring: round %d: write %d, read %d\n", i, w, rd);
			return 1;
		}
	}
	io_uring_queue_exit(&ring);
	close(fd);
	return 0;
}
