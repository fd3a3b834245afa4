/*
 * retryranks RANK NRANKS PORT DIR: the start-up most multi-node programs
 * have. Each rank starts after a random delay (0-80 ms); rank 0 listens,
 * the others retry connect() every 10 ms until it does. Then two rounds
 * of a barrier through rank 0: each rank writes DIR/data.RANK, barrier,
 * reads DIR/data.NEXT (written by the next rank), barrier.
 *
 * What the causality engine must find (tests/e2e/capture-discover-retry.sh):
 *   rank r>0's successful connect waits for rank 0's listen
 *   rank 0's k-th recv from rank r waits for rank r's k-th send
 *   rank r's k-th recv waits for rank 0's k-th send to it
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "retryranks: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void nap_ms(long ms)
{
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000 };
	nanosleep(&d, NULL);
}

static void xfer(int fd, int send_it)
{
	char b = 'x';
	if ((send_it ? send(fd, &b, 1, 0) : recv(fd, &b, 1, MSG_WAITALL)) != 1)
		die(send_it ? "send" : "recv");
}

static void barrier(int rank, int n, int *peer, int s)
{
	if (rank) {
		xfer(s, 1);
		xfer(s, 0);
		return;
	}
	for (int r = 1; r < n; r++)
		xfer(peer[r], 0);
	for (int r = 1; r < n; r++)
		xfer(peer[r], 1);
}

static void file_io(const char *dir, int rank, int n, int writing)
{
	char path[4096], buf[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/data.%d", dir, writing ? rank : (rank + 1) % n);
	memset(buf, 'a' + rank, sizeof(buf));
	fd = writing ? open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : open(path, O_RDONLY);
	if (fd < 0)
		die(path);
	if ((writing ? write(fd, buf, sizeof(buf)) : read(fd, buf, sizeof(buf))) != sizeof(buf))
		die(writing ? "write" : "read");
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: retryranks RANK NRANKS PORT DIR\n");
		return 2;
	}
	int rank = atoi(argv[1]), n = atoi(argv[2]), port = atoi(argv[3]);
	int peer[64] = { 0 }, s = -1, one = 1;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };

	if (n < 2 || n > 64 || rank < 0 || rank >= n)
		return 2;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	srand((unsigned)(getpid() ^ time(NULL)));
	nap_ms(rand() % 80);
	if (rank == 0) {
		int ls = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ls < 0 || bind(ls, (void *)&a, sizeof(a)) < 0 || listen(ls, 64) < 0)
			die("listen");
		for (int k = 1; k < n; k++) {
			int c = accept(ls, NULL, NULL), from = 0;
			if (c < 0 || recv(c, &from, sizeof(from), MSG_WAITALL) != sizeof(from) ||
			    from <= 0 || from >= n)
				die("accept");
			peer[from] = c;
		}
		close(ls);
	} else {
		for (;;) {
			s = socket(AF_INET, SOCK_STREAM, 0);
			if (s < 0)
				die("socket");
			if (connect(s, (void *)&a, sizeof(a)) == 0)
				break;
			close(s);
			nap_ms(10);
		}
		if (send(s, &rank, sizeof(rank), 0) != sizeof(rank))
			die("send");
	}
	for (int round = 0; round < 2; round++) {
		file_io(argv[4], rank, n, 1);
		barrier(rank, n, peer, s);
		file_io(argv[4], rank, n, 0);
		barrier(rank, n, peer, s);
	}
	return 0;
}
