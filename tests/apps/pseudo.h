/*
 * Shared by the //TRACE pseudo-applications (pseudo, pseudosync,
 * pseudosyncdat). Usage of each:
 *   NAME INDEX NNODES HOST PORT DIR [PHASES [UNIT_MS]]
 * (node INDEX of NNODES is named NAME, nodes are named n0, n1, ...; node 0
 * listens on HOST:PORT; DIR is shared storage; PHASES, 4 by default, of
 * compute in units of UNIT_MS, 5 by default: quick for tests, too short
 * for timing, since a node spinning beside others on a busy machine ends
 * a phase late by up to a time slice; traces/ uses 20).
 *
 * Every call that Island counts as I/O goes through IO(), so that the app
 * knows each I/O's number as the capture numbers it, and can write exact
 * ground-truth dependencies to DIR/truth.NAME: lines "X J T K", node X's
 * I/O J waited for node T's I/O K (the sender puts K in its message). The
 * apps use no stdio and poll readiness with access(), which is not I/O.
 */
#ifndef PSEUDO_H
#define PSEUDO_H

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static unsigned long nio;            /* I/Os issued so far */
#define IO(call) (nio++, (call))
#define NEXT_IO (nio + 1)            /* the number of the next I/O */

struct pseudo {
	const char *name, *host, *dir;
	int index, nnodes, port, phases;
	double unit;                 /* ms of compute per unit of a phase */
	int *peer;                   /* node 0: socket of node i; others: [0] */
	char truth[65536];
	size_t tlen;
};

struct msg {
	int32_t from, phase;
	uint64_t seq;                /* the sender's I/O number for this send */
	uint64_t cseq;               /* hello: the sender's connect */
	char pad[40];
};

/* Node 0 lets the others connect one at a time, in order (a racy order
 * would change which accept serves whom from run to run): it creates
 * ready.J, accepts J and reads its hello, then ready.J+1. Its open of
 * ready.J is its I/O 4 + 4 (J - 1) (after socket, bind, listen; then open,
 * close, accept, recv per node): node J's first I/O waits for it. */
#define READY_IO(j) (4 + 4 * ((j) - 1))

static inline void die_(const char *what)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "pseudo: %s failed\n", what);
	if (write(2, buf, (size_t)n) < 0)
		_exit(3);
	_exit(1);
}

static inline void compute_ms(double ms)
{
	struct timespec a, b;
	volatile double v = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 1000; i++)
			v += i * 0.5;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6 < ms);
}

static inline void truth(struct pseudo *p, unsigned long j, int t, uint64_t k)
{
	p->tlen += (size_t)snprintf(p->truth + p->tlen, sizeof(p->truth) - p->tlen,
				    "n%d %lu n%d %llu\n", p->index, j, t,
				    (unsigned long long)k);
}

static inline void pseudo_args(struct pseudo *p, int argc, char **argv)
{
	if (argc < 7) {
		const char u[] = "usage: NAME INDEX NNODES HOST PORT DIR [PHASES [UNIT_MS]]\n";
		if (write(2, u, sizeof(u) - 1) < 0)
			_exit(2);
		_exit(2);
	}
	p->name = argv[1];
	p->index = atoi(argv[2]);
	p->nnodes = atoi(argv[3]);
	p->host = argv[4];
	p->port = atoi(argv[5]);
	p->dir = argv[6];
	p->phases = argc > 7 ? atoi(argv[7]) : 4;
	p->unit = argc > 8 ? atof(argv[8]) : 5;
	p->peer = calloc((size_t)p->nnodes, sizeof(int));
}

static inline void path_of(char *buf, size_t n, struct pseudo *p, const char *what)
{
	snprintf(buf, n, "%s/%s", p->dir, what);
}

/* Node 0 listens and accepts the others (each says who it is); the others
 * wait for node 0's ready file, then connect once. */
static inline void pseudo_connect(struct pseudo *p)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	char ready[4096];
	int one = 1;

	a.sin_port = htons((uint16_t)p->port);
	inet_pton(AF_INET, p->index ? p->host : "0.0.0.0", &a.sin_addr);
	snprintf(ready, sizeof(ready), "%s/ready.%d", p->dir, p->index);
	if (p->index == 0) {
		int ls = IO(socket(AF_INET, SOCK_STREAM, 0));
		setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (IO(bind(ls, (void *)&a, sizeof(a))) < 0 || IO(listen(ls, 64)) < 0)
			die_("listen");
		for (int i = 1; i < p->nnodes; i++) {
			snprintf(ready, sizeof(ready), "%s/ready.%d", p->dir, i);
			int fd = IO(open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644));
			IO(close(fd));
			int c = IO(accept(ls, NULL, NULL));
			unsigned long accepted = nio;
			struct msg m;
			if (c < 0 || IO(recv(c, &m, sizeof(m), MSG_WAITALL)) != sizeof(m))
				die_("accept");
			if (m.from > 0 && m.from < p->nnodes)
				p->peer[m.from] = c;
			p->tlen += (size_t)snprintf(p->truth + p->tlen, sizeof(p->truth) - p->tlen,
						    "n0 %lu n%d %llu\n", accepted, m.from,
						    (unsigned long long)m.cseq);
			truth(p, nio, m.from, m.seq);
		}
		IO(close(ls));
		return;
	}
	while (access(ready, F_OK) < 0)
		usleep(2000);
	int s = IO(socket(AF_INET, SOCK_STREAM, 0));
	truth(p, nio, 0, READY_IO(p->index));
	if (IO(connect(s, (void *)&a, sizeof(a))) < 0)
		die_("connect");
	struct msg m = { .from = p->index, .cseq = nio };
	m.seq = NEXT_IO;
	if (IO(send(s, &m, sizeof(m), 0)) != sizeof(m))
		die_("hello");
	p->peer[0] = s;
}

/* A barrier through node 0: everyone's arrival, then node 0's go. */
static inline void pseudo_barrier(struct pseudo *p, int phase)
{
	struct msg m = { .from = p->index, .phase = phase };

	if (p->index == 0) {
		for (int i = 1; i < p->nnodes; i++) {
			if (IO(recv(p->peer[i], &m, sizeof(m), MSG_WAITALL)) != sizeof(m))
				die_("recv arrive");
			truth(p, nio, m.from, m.seq);
		}
		for (int i = 1; i < p->nnodes; i++) {
			m.from = 0;
			m.seq = NEXT_IO;
			if (IO(send(p->peer[i], &m, sizeof(m), 0)) != sizeof(m))
				die_("send go");
		}
		return;
	}
	m.seq = NEXT_IO;
	if (IO(send(p->peer[0], &m, sizeof(m), 0)) != sizeof(m))
		die_("send arrive");
	if (IO(recv(p->peer[0], &m, sizeof(m), MSG_WAITALL)) != sizeof(m))
		die_("recv go");
	truth(p, nio, 0, m.seq);
}

/* This node's data file of a phase: one write, headed by the writer's
 * name and the number of that write. Returns nothing; I/O: 3. */
static inline void pseudo_write_file(struct pseudo *p, int phase, size_t size)
{
	char path[4096], what[64];
	char *buf = calloc(1, size);

	snprintf(what, sizeof(what), "data.%s.%d", p->name, phase);
	path_of(path, sizeof(path), p, what);
	int fd = IO(open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644));
	snprintf(buf, size, "%d %lu\n", p->index, NEXT_IO);
	if (fd < 0 || IO(write(fd, buf, size)) != (ssize_t)size)
		die_("write data");
	IO(close(fd));
	free(buf);
}

/* Read node `from`'s file of a phase; it tells who wrote it, with which
 * I/O. Returns the writer's index; records the dependency. */
static inline void pseudo_read_file(struct pseudo *p, int from, int phase, size_t size)
{
	char path[4096], what[64];
	char *buf = calloc(1, size + 1);
	int w;
	unsigned long k;

	snprintf(what, sizeof(what), "data.n%d.%d", from, phase);
	path_of(path, sizeof(path), p, what);
	int fd = IO(open(path, O_RDONLY));
	if (fd < 0 || IO(read(fd, buf, size)) != (ssize_t)size)
		die_("read data");
	if (sscanf(buf, "%d %lu", &w, &k) == 2)
		truth(p, nio, w, k);
	IO(close(fd));
	free(buf);
}

static inline void pseudo_finish(struct pseudo *p)
{
	char path[4096], what[128];

	for (int i = 0; i < p->nnodes; i++)
		if (p->peer[i] > 0)
			IO(close(p->peer[i]));
	snprintf(what, sizeof(what), "truth.%s", p->name);
	path_of(path, sizeof(path), p, what);
	int fd = IO(open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644));
	if (fd < 0 || IO(write(fd, p->truth, p->tlen)) != (ssize_t)p->tlen)
		die_("truth");
	IO(close(fd));
}

#endif
