/*
 * msgs: a TCP client and server exchanging a known sequence of messages,
 * for the packet capture tests.
 *
 *   msgs server ADDR PORT N [READY]    accept one connection; N rounds
 *   msgs fserver ADDR PORT N [READY]   the same, served by a child
 *                                      process forked after accept
 *   msgs tserver ADDR PORT N [READY]   two connections one after the
 *                                      other, each served by a thread of
 *                                      its own (the main thread accepts
 *                                      and joins it: the second gets the
 *                                      first's descriptor number)
 *   msgs client ADDR PORT N            connect; N rounds
 *   msgs nbclient ADDR PORT N [TRIED]  the same with a non-blocking
 *                                      connect (EINPROGRESS, then poll);
 *                                      with TRIED, retried every 10 ms
 *                                      while refused, TRIED written after
 *                                      the first refusal
 *   msgs userver|uclient ...           the same over UDP: one datagram
 *                                      per message, sendto and recvfrom
 *
 * Round i: the client sends one message of csize(i) bytes with one send(),
 * the server receives it with one recv(MSG_WAITALL) and answers with
 * ssize(i) bytes the same way. Sizes are all distinct, some larger than
 * an Ethernet segment. TCP_NODELAY, so that each message leaves at once.
 * Each side prints the message edges the exchange must give, one a line:
 * "c2s BYTES" or "s2c BYTES" in the order the messages were sent; the
 * server writes READY (if given) once it listens.
 *
 * For the benchmark (bench/pcap.sh), both ends in one process:
 *   msgs bulk ADDR MIB       one connection carries MIB MiB (64 KiB sends)
 *   msgs conns ADDR N        N connections of 5 rounds of 100 and 50 bytes
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define DIE(what) do { perror(what); exit(1); } while (0)
#define MAXMSG 4096

static size_t csize(int i) { return 1000 + 137 * (size_t)i; }
static size_t ssize(int i) { return 300 + 59 * (size_t)i; }

static void put(int fd, size_t n, int i)
{
	char buf[MAXMSG];

	memset(buf, 'a' + i % 26, n);
	if (send(fd, buf, n, 0) != (ssize_t)n)
		DIE("send");
}

static void get(int fd, size_t n)
{
	char buf[MAXMSG];

	if (recv(fd, buf, n, MSG_WAITALL) != (ssize_t)n)
		DIE("recv");
}

/* An IPv4 or IPv6 address (a.len is the sockaddr's length). */
struct addr {
	struct sockaddr_storage ss;
	socklen_t len;
};

static void addr_of(struct addr *a, const char *ip, const char *port)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)&a->ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&a->ss;
	uint16_t p = htons((uint16_t)atoi(port));

	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, ip, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = p;
		a->len = sizeof(*v4);
	} else if (inet_pton(AF_INET6, ip, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = p;
		a->len = sizeof(*v6);
	} else {
		fprintf(stderr, "msgs: bad address %s\n", ip);
		exit(2);
	}
}

static void nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		DIE("TCP_NODELAY");
}

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f || fclose(f))
		DIE(path);
}

static int listener(struct addr *a, const char *ready)
{
	int one = 1, ls = socket(a->ss.ss_family, SOCK_STREAM, 0);

	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ls < 0 || bind(ls, (void *)&a->ss, a->len) < 0 || listen(ls, 1) < 0)
		DIE("listen");
	if (ready)
		touch(ready);
	return ls;
}

static void server_rounds(int fd, int n)
{
	nodelay(fd);
	for (int i = 0; i < n; i++) {
		get(fd, csize(i));
		printf("c2s %zu\n", csize(i));
		put(fd, ssize(i), i);
		printf("s2c %zu\n", ssize(i));
	}
	close(fd);
}

static int serve(struct addr *a, int n, const char *ready, int fork_child)
{
	int ls = listener(a, ready), fd;

	fd = accept(ls, NULL, NULL);
	if (fd < 0)
		DIE("accept");
	if (fork_child) {            /* the parent hands the socket over */
		pid_t pid = fork();
		int st;
		if (pid < 0)
			DIE("fork");
		if (pid > 0) {
			close(fd);
			close(ls);
			if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
				return 1;
			return WEXITSTATUS(st);
		}
		close(ls);
	}
	server_rounds(fd, n);
	if (!fork_child)
		close(ls);
	return 0;
}

struct tconn {
	int fd, n;
};

static void *tserve_conn(void *arg)
{
	struct tconn *c = arg;

	server_rounds(c->fd, c->n);
	return NULL;
}

static int tserve(struct addr *a, int n, const char *ready)
{
	int ls = listener(a, ready);

	for (int k = 0; k < 2; k++) {
		struct tconn c = { accept(ls, NULL, NULL), n };
		pthread_t th;

		if (c.fd < 0)
			DIE("accept");
		if (pthread_create(&th, NULL, tserve_conn, &c) || pthread_join(th, NULL))
			DIE("pthread_create");
	}
	close(ls);
	return 0;
}

static void client_rounds(int fd, int n)
{
	nodelay(fd);
	for (int i = 0; i < n; i++) {
		put(fd, csize(i), i);
		printf("c2s %zu\n", csize(i));
		get(fd, ssize(i));
		printf("s2c %zu\n", ssize(i));
	}
	close(fd);
}

static int client(struct addr *a, int n)
{
	int fd = socket(a->ss.ss_family, SOCK_STREAM, 0);

	if (fd < 0 || connect(fd, (void *)&a->ss, a->len) < 0)
		DIE("connect");
	client_rounds(fd, n);
	return 0;
}

/* A connect that does not block, as an event loop's: EINPROGRESS, then
 * poll until the handshake is over. -1 when refused. */
static int nb_connect(struct addr *a)
{
	int fd = socket(a->ss.ss_family, SOCK_STREAM, 0), err = 0;
	socklen_t l = sizeof(err);
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	if (fd < 0 || fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
		DIE("socket");
	if (!connect(fd, (void *)&a->ss, a->len) || errno != EINPROGRESS)
		DIE("connect: not EINPROGRESS");
	if (poll(&p, 1, 5000) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l) < 0)
		DIE("connect: poll");
	if (err == ECONNREFUSED) {
		close(fd);
		return -1;
	}
	errno = err;
	if (err || fcntl(fd, F_SETFL, 0) < 0)   /* blocking again: MSG_WAITALL */
		DIE("connect");
	return fd;
}

static int nbclient(struct addr *a, int n, const char *tried)
{
	int fd, k = 0;

	while ((fd = nb_connect(a)) < 0) {
		if (!tried || ++k > 1000)
			DIE("connect: refused");
		if (k == 1)
			touch(tried);
		usleep(10000);
	}
	client_rounds(fd, n);
	return 0;
}

/* --- UDP: a datagram per message; a lost one ends the run (5 s) */

static int udp_socket(struct addr *a)
{
	struct timeval tv = { 5, 0 };
	int fd = socket(a->ss.ss_family, SOCK_DGRAM, 0);

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		DIE("udp socket");
	return fd;
}

static void uput(int fd, size_t n, int i, const struct addr *to)
{
	char buf[MAXMSG];

	memset(buf, 'a' + i % 26, n);
	if (sendto(fd, buf, n, 0, (const void *)&to->ss, to->len) != (ssize_t)n)
		DIE("sendto");
}

static void uget(int fd, size_t n, struct addr *from)
{
	char buf[MAXMSG];

	from->len = sizeof(from->ss);
	if (recvfrom(fd, buf, sizeof(buf), 0, (void *)&from->ss, &from->len) != (ssize_t)n)
		DIE("recvfrom");
}

static int userve(struct addr *a, int n, const char *ready)
{
	int fd = udp_socket(a);
	struct addr peer;

	if (bind(fd, (void *)&a->ss, a->len) < 0)
		DIE("bind");
	if (ready) {
		FILE *f = fopen(ready, "w");
		if (!f || fclose(f))
			DIE(ready);
	}
	for (int i = 0; i < n; i++) {
		uget(fd, csize(i), &peer);
		printf("c2s %zu\n", csize(i));
		uput(fd, ssize(i), i, &peer);
		printf("s2c %zu\n", ssize(i));
	}
	close(fd);
	return 0;
}

static int uclient(struct addr *a, int n)
{
	int fd = udp_socket(a);
	struct addr peer;

	for (int i = 0; i < n; i++) {
		uput(fd, csize(i), i, a);
		printf("c2s %zu\n", csize(i));
		uget(fd, ssize(i), &peer);
		printf("s2c %zu\n", ssize(i));
	}
	close(fd);
	return 0;
}

/* --- benchmark modes: a listener on an ephemeral port, a server thread */

struct bench {
	int ls, n;
	long long bytes;
};

static int bench_listen(struct addr *a)
{
	socklen_t l = a->len;
	int ls = socket(a->ss.ss_family, SOCK_STREAM, 0);

	if (ls < 0 || bind(ls, (void *)&a->ss, a->len) < 0 || listen(ls, 128) < 0 ||
	    getsockname(ls, (void *)&a->ss, &l) < 0)
		DIE("listen");
	return ls;
}

static void *bulk_server(void *arg)
{
	struct bench *b = arg;
	static char buf[1 << 16];
	int fd = accept(b->ls, NULL, NULL);
	ssize_t r;

	while ((r = recv(fd, buf, sizeof(buf), 0)) > 0)
		b->bytes -= r;
	close(fd);
	return NULL;
}

static void *conns_server(void *arg)
{
	struct bench *b = arg;

	for (int i = 0; i < b->n; i++) {
		int fd = accept(b->ls, NULL, NULL);
		for (int k = 0; k < 5; k++) {
			get(fd, 100);
			put(fd, 50, k);
		}
		close(fd);
	}
	return NULL;
}

static int bench(const char *mode, struct addr *a, long n)
{
	static char buf[1 << 16];
	struct bench b = { .ls = bench_listen(a), .n = (int)n, .bytes = n << 20 };
	int bulk = !strcmp(mode, "bulk");
	pthread_t th;

	pthread_create(&th, NULL, bulk ? bulk_server : conns_server, &b);
	for (long i = 0; i < (bulk ? 1 : n); i++) {
		int fd = socket(a->ss.ss_family, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (void *)&a->ss, a->len) < 0)
			DIE("connect");
		for (long sent = 0; bulk && sent < n << 20; sent += (long)sizeof(buf))
			if (send(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
				DIE("send");
		for (int k = 0; !bulk && k < 5; k++) {
			put(fd, 100, k);
			get(fd, 50);
		}
		close(fd);
	}
	pthread_join(th, NULL);
	close(b.ls);
	if (bulk && b.bytes) {
		fprintf(stderr, "msgs: %lld bytes missing\n", b.bytes);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct addr a;
	int n;

	if (argc == 4 && (!strcmp(argv[1], "bulk") || !strcmp(argv[1], "conns"))) {
		addr_of(&a, argv[2], "0");
		return bench(argv[1], &a, atol(argv[3]));
	}
	if (argc < 5 || (strcmp(argv[1], "server") && strcmp(argv[1], "fserver") &&
			 strcmp(argv[1], "tserver") && strcmp(argv[1], "client") &&
			 strcmp(argv[1], "nbclient") && strcmp(argv[1], "userver") &&
			 strcmp(argv[1], "uclient"))) {
		fprintf(stderr, "usage: msgs server|fserver|tserver|client|nbclient|userver|uclient"
			" ADDR PORT N [READY]\n"
			"       msgs bulk ADDR MIB | msgs conns ADDR N\n");
		return 2;
	}
	addr_of(&a, argv[2], argv[3]);
	n = atoi(argv[4]);
	if (n < 1 || csize(n - 1) > MAXMSG) {
		fprintf(stderr, "msgs: N from 1 to 22\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "userver"))
		return userve(&a, n, argc > 5 ? argv[5] : NULL);
	if (!strcmp(argv[1], "uclient"))
		return uclient(&a, n);
	if (!strcmp(argv[1], "tserver"))
		return tserve(&a, n, argc > 5 ? argv[5] : NULL);
	if (!strcmp(argv[1], "nbclient"))
		return nbclient(&a, n, argc > 5 ? argv[5] : NULL);
	if (strcmp(argv[1], "client"))
		return serve(&a, n, argc > 5 ? argv[5] : NULL, argv[1][0] == 'f');
	return client(&a, n);
}
