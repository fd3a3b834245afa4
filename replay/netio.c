/* Sockets. Replayed nodes meet through one rendezvous listener per node
 * (made before the nodes start, so every node knows every port): a
 * connecting side sends a hello naming the connection by the client's
 * original local address, which the accepting side's trace has as its
 * accept's peer. So a connection of the trace becomes one real connection
 * that carries the same bytes in the same direction, whatever order the
 * accepts happen in. Anything else (a peer outside the trace, an
 * inherited socket) talks to a local sink: never the real peer. */
#include "exec.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define HELLO 128

struct net_node {
	int port, fd;
	char host[64];
};

struct net {
	size_t nnodes;
	struct net_node node[];
};

/* node-process state: connections that arrived before their accept */
static pthread_mutex_t amu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t accept_mu = PTHREAD_MUTEX_INITIALIZER;
static struct arrived { char key[HELLO]; int fd; } *arr;
static size_t narr, arrcap;
static struct sockaddr_in udp_sink;

struct net *net_create(const struct trace *t, const int *sel)
{
	size_t sz = sizeof(struct net) + t->nnodes * sizeof(struct net_node);
	struct net *n = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (n == MAP_FAILED)
		die(1, "shared memory:");
	n->nnodes = t->nnodes;
	for (size_t i = 0; i < t->nnodes; i++) {
		n->node[i].fd = -1;
		if (sel[i])
			net_listen_port(n, (int)i, &n->node[i].fd);
	}
	return n;
}

int net_port(struct net *n, int node)
{
	return n->node[node].port;
}

void net_set_addr(struct net *n, int node, const char *host, int port)
{
	snprintf(n->node[node].host, sizeof(n->node[node].host), "%s", host);
	n->node[node].port = port;
}

/* The rendezvous listener of a node on loopback (or every address under
 * MPI, where nodes are on several hosts). */
int net_listen_port(struct net *n, int node, int *fdp)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(opt.mpi ? INADDR_ANY : INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1024) ||
	    getsockname(fd, (struct sockaddr *)&a, &len))
		die(1, "rendezvous socket:");
	*fdp = fd;
	net_set_addr(n, node, "127.0.0.1", ntohs(a.sin_port));
	return ntohs(a.sin_port);
}

/* ---- before a node runs: who connects to whom ---------------------------
 * A connect's original local address is its own local attribute or else,
 * in traces without one, the k-th connect to S in a node is the k-th
 * socket of its <sockets> summary with peer S and direction out. It is
 * kept in the connect's path2; the accepting node in its node field (-1:
 * outside the trace). A refused attempt takes its summary socket too. */

static int accepts_from(const struct node *n, const char *local)
{
	for (size_t i = 0; i < n->nthreads; i++)
		for (size_t j = 0; j < n->threads[i].nops; j++) {
			const struct op *o = &n->threads[i].ops[j];
			if (o->kind == OP_IO && o->call && o->call->fn == h_accept &&
			    o->peer && !strcmp(o->peer, local))
				return 1;
		}
	return 0;
}

/* A non-blocking connect (EINPROGRESS) makes the connection; the connect
 * its thread then issues on that descriptor only asks how it went: it
 * is not issued again (NODE_NONE). */
#define NODE_NONE (-2)

static void net_link(struct trace *t, int node, const int *sel)
{
	struct node *n = &t->nodes[node];
	size_t *used = xcalloc(n->nsocks + 1, sizeof(size_t));

	for (size_t i = 0; i < n->nthreads; i++) {
		int pending = -1;            /* fd of a connect under way */
		for (size_t j = 0; j < n->threads[i].nops; j++) {
			struct op *o = &n->threads[i].ops[j];
			if (o->kind == OP_IO && o->call && o->fd == pending &&
			    o->call->fn != h_connect && !strcmp(o->call->api, "close"))
				pending = -1;
			if (o->kind != OP_IO || !o->call || o->call->fn != h_connect || !o->peer)
				continue;
			if (o->fd >= 0 && o->fd == pending) {
				pending = -1;
				o->node = NODE_NONE;
				continue;
			}
			if (o->in_progress)
				pending = o->fd;
			o->node = -1;
			for (size_t s = 0; s < n->nsocks; s++)
				if (!used[s] && n->socks[s].dir == 'o' && n->socks[s].peer == o->peer &&
				    n->socks[s].local && *n->socks[s].local &&
				    (!o->path2 || !strcmp(o->path2, n->socks[s].local))) {
					used[s] = 1;
					o->path2 = n->socks[s].local;
					break;
				}
			if (o->failed)
				continue;
			for (size_t k = 0; o->path2 && k < t->nnodes; k++)
				if (sel[k] && accepts_from(&t->nodes[k], o->path2))
					o->node = (int)k;
		}
	}
	free(used);
}

/* Who connects to whom, for every node replayed (it reads every op: done
 * before the nodes' start time is taken), and one datagram sink, which the
 * node processes inherit: sends are real, nobody reads them. */
void net_init(struct trace *t, const int *sel)
{
	static int done;	/* once for every --repeat */

	if (done++)
		return;
	for (size_t k = 0; k < t->nnodes; k++)
		if (sel[k])
			net_link(t, (int)k, sel);
	int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	socklen_t len = sizeof(udp_sink);
	udp_sink.sin_family = AF_INET;
	udp_sink.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (u < 0 || bind(u, (struct sockaddr *)&udp_sink, sizeof(udp_sink)) ||
	    getsockname(u, (struct sockaddr *)&udp_sink, &len))
		warnx("no datagram sink");
}

/* A connection to an outside peer, answered by a sink in its time: an
 * outside peer's latency is not the storage's to change. */
static int sink_answered(struct rctx *c, const struct op *o)
{
	int64_t t0 = rnow_ns();
	int fd = net_sink(c, o);

	hold_original(o, t0);
	return fd;
}

/* ---- handlers -------------------------------------------------------------- */

int h_socket(struct rctx *c, const struct op *o)
{
	int type = o->proto == P_UDP || o->proto == P_UNIX_DGRAM ? SOCK_DGRAM : SOCK_STREAM;

	if (o->failed || o->fd < 0)
		return 0;
	int fd = rfd_real(socket(AF_INET, type | SOCK_CLOEXEC, 0));
	if (fd < 0)
		return -1;
	fd_put(c, o->fd, fd, 0);
	return 0;
}

/* Only a causal replay lets sockets and pipes carry causality: in the
 * other modes nodes and processes never wait for each other, so every
 * channel is a sink that accepts and delivers at once. */
static int sinks_only(void)
{
	return opt.mode != MODE_CAUSAL;
}

/* pipe2(O_CLOEXEC), socketpair(SOCK_CLOEXEC): an exec closes both ends */
static int pair_cloexec(const struct op *o)
{
	return o->flags && strstr(o->flags, "O_CLOEXEC");
}

static int two_sinks(struct rctx *c, const struct op *o)
{
	int a = net_sink(c, o), b = net_sink(c, o);

	if (a < 0 || b < 0)
		return -1;
	fd_put(c, o->fd, a, pair_cloexec(o));
	fd_put(c, o->fd2, b, pair_cloexec(o));
	return 0;
}

/* socketpair and pipe: two connected ends (sinks in the modes that wait
 * for nobody). */
static int two_ends(struct rctx *c, const struct op *o, int pipe)
{
	int v[2];

	if (o->failed || o->fd < 0)
		return 0;
	if (sinks_only())
		return two_sinks(c, o);
	int type = o->proto == P_UNIX_DGRAM ? SOCK_DGRAM : SOCK_STREAM;
	if (pipe ? pipe2(v, O_CLOEXEC) : socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, v))
		return -1;
	fd_put(c, o->fd, rfd_real(v[0]), pair_cloexec(o));
	fd_put(c, o->fd2, rfd_real(v[1]), pair_cloexec(o));
	return 0;
}

int h_socketpair(struct rctx *c, const struct op *o)
{
	return two_ends(c, o, 0);
}

int h_pipe(struct rctx *c, const struct op *o)
{
	return two_ends(c, o, 1);
}

/* The original address is not ours to take: the socket binds to an
 * ephemeral loopback port, which costs the same. */
int h_bind(struct rctx *c, const struct op *o)
{
	int fd = fd_get(c, o->fd, o);
	struct sockaddr_in a = { .sin_family = AF_INET };

	if (fd < 0 || o->failed)
		return fd < 0 ? -1 : 0;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return bind(fd, (struct sockaddr *)&a, sizeof(a));
}

int h_listen(struct rctx *c, const struct op *o)
{
	int fd = fd_get(c, o->fd, o);

	if (fd < 0 || o->failed)
		return fd < 0 ? -1 : 0;
	return rfd_type(fd) == SOCK_STREAM ? listen(fd, 128) : 0;
}

/* n bytes through a buffer of IO_CHUNK (xbuf): the same filler again */
static int write_all(int fd, const char *b, size_t n, int64_t *moved)
{
	while (n) {
		ssize_t r = write(fd, b, n < IO_CHUNK ? n : IO_CHUNK);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = ENOSPC;
			return -1;
		}
		n -= (size_t)r;
		if (moved)
			*moved += r;
	}
	return 0;
}

/* Into a buffer of min(n, IO_CHUNK) bytes (xbuf, or the hello): past a
 * chunk the same buffer again, never beyond it. */
static int read_all(int fd, char *b, size_t n, int64_t *moved)
{
	size_t at = 0;

	while (n) {
		size_t room = IO_CHUNK - at;
		ssize_t r = read(fd, b + at, n < room ? n : room);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			return 0;	/* the peer closed early: not ours to invent */
		at = (at + (size_t)r) % IO_CHUNK;
		n -= (size_t)r;
		if (moved)
			*moved += r;
	}
	return 0;
}

static int dial(struct net_node *to)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai;
	char port[16];
	int fd = -1;

	snprintf(port, sizeof(port), "%d", to->port);
	if (getaddrinfo(to->host, port, &hints, &ai))
		return errno = EHOSTUNREACH, -1;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen)) {
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd >= 0) {
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	return fd;
}

int h_connect(struct rctx *c, const struct op *o)
{
	if (o->failed || o->fd < 0 || o->node == NODE_NONE)
		return 0;
	if (o->proto == P_UDP || o->proto == P_UNIX_DGRAM)
		return 0;	/* a datagram connect only sets the default peer */
	int fd;
	if (o->node >= 0 && o->path2 && !sinks_only()) {
		fd = rfd_real(dial(&c->ns->r->net->node[o->node]));
		char hello[HELLO] = "";
		snprintf(hello, sizeof(hello), "%s", o->path2);
		if (fd < 0 || write_all(fd, hello, sizeof(hello), NULL)) {
			if (fd >= 0)
				close(fd);
			return -1;
		}
	} else {
		fd = sink_answered(c, o);
	}
	if (fd < 0)
		return -1;
	fd_put(c, o->fd, fd, 0);
	return 0;
}

/* Take the connection named key, accepting (one thread at a time) and
 * parking the others until their own accept comes. */
static int rendezvous(struct rctx *c, const char *key)
{
	struct node_run *r = c->ns->r;
	int lfd = r->net->node[r->node].fd;

	for (;;) {
		pthread_mutex_lock(&amu);
		for (size_t i = 0; i < narr; i++)
			if (!strcmp(arr[i].key, key)) {
				int fd = arr[i].fd;
				arr[i] = arr[--narr];
				pthread_mutex_unlock(&amu);
				return fd;
			}
		pthread_mutex_unlock(&amu);
		if (sync_stopped(r->sync))
			return errno = EINTR, -1;
		if (pthread_mutex_trylock(&accept_mu)) {
			sleep_ns(200 * 1000);
			continue;
		}
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		char hello[HELLO];
		if (fd >= 0 && read_all(fd, hello, sizeof(hello), NULL) == 0) {
			hello[HELLO - 1] = 0;
			int one = 1;
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			pthread_mutex_lock(&amu);
			XGROW(arr, arrcap, narr + 1);
			memcpy(arr[narr].key, hello, HELLO);
			arr[narr++].fd = fd;
			pthread_mutex_unlock(&amu);
		} else if (fd >= 0) {
			close(fd);
		}
		pthread_mutex_unlock(&accept_mu);
	}
}

static int from_replayed(struct rctx *c, const char *peer)
{
	const struct trace *t = c->ns->r->t;

	for (size_t k = 0; k < t->nnodes; k++) {
		const struct node *n = &t->nodes[k];
		if (!c->ns->r->sel[k])
			continue;
		for (size_t s = 0; s < n->nsocks; s++)
			if (n->socks[s].dir == 'o' && n->socks[s].local == peer)
				return 1;
	}
	return 0;
}

int h_accept(struct rctx *c, const struct op *o)
{
	int fd;

	if (o->failed || o->fd < 0)
		return 0;
	if (o->peer && from_replayed(c, o->peer) && !sinks_only())
		fd = rfd_real(rendezvous(c, o->peer));
	else
		fd = sink_answered(c, o);
	if (fd < 0)
		return -1;
	fd_put(c, o->fd, fd, 0);
	return 0;
}

int h_shutdown(struct rctx *c, const struct op *o)
{
	int fd = fd_get(c, o->fd, o);

	if (fd < 0 || o->failed)
		return fd < 0 ? -1 : 0;
	return rfd_type(fd) ? shutdown(fd, SHUT_WR) : 0;
}

int h_send(struct rctx *c, const struct op *o)
{
	int64_t n = o->has_amount ? o->amount : o->size;

	if (o->failed || n <= 0)
		return 0;
	if (!o->has_amount && (uint64_t)n > IO_CHUNK)	/* a request, maybe SSIZE_MAX */
		n = (int64_t)IO_CHUNK;
	int fd = fd_get(c, o->fd, o);
	if (fd < 0)
		return -1;
	char *b = xbuf(c, n);
	if (rfd_type(fd) == SOCK_DGRAM) {
		ssize_t r = sendto(fd, b, (uint64_t)n < IO_CHUNK ? (size_t)n : IO_CHUNK, MSG_DONTWAIT, (struct sockaddr *)&udp_sink,
				   sizeof(udp_sink));
		if (r > 0)
			c->moved += r;
		return 0;	/* a full sink drops, as a network may */
	}
	int64_t before = c->moved, t0 = rnow_ns();
	if (!write_all(fd, b, (size_t)n, &c->moved)) {
		/* on a socket to another node: the network's time and the
		 * sender's lost core (a woken receiver preempts it:
		 * pseudosync's sends of a few bytes took 8 ms) are not the
		 * storage's (a pipe's writer waits for its reader, whose
		 * work the replay has) */
		if (!net_is_sink(fd) && rfd_type(fd) == SOCK_STREAM)
			hold_original(o, t0);
		return 0;
	}
	if (errno != EPIPE && errno != ECONNRESET)
		return -1;
	/* the reader is gone, earlier than in the capture (where this
	 * write succeeded): reads the capture did not see, a reader that
	 * stopped early, a writer slower here. The rest goes to a sink. */
	reader_gone(c);
	int sink = net_sink(c, o);
	if (sink < 0 || rfd_replace(fd, sink))
		return -1;
	return write_all(fd, b, (size_t)(n - (c->moved - before)), &c->moved);
}

/* An empty read of a pipe or socket pair between processes of a node saw
 * the end of file: its writers had all closed it or ended, and the time it
 * took is theirs (a parent waiting for its child's output, or for its
 * exec). Causal mode waits for that end too; the other modes wait for
 * nobody. */
static int eof_seen(const struct op *o)
{
	return opt.mode == MODE_CAUSAL && (o->proto == P_PIPE || o->proto == P_UNIX_STREAM) &&
	       o->size > 0;
}

static int read_eof(struct rctx *c, int fd, const struct op *o)
{
	size_t k = (uint64_t)o->size < IO_CHUNK ? (size_t)o->size : IO_CHUNK;
	char *b = xbuf(c, (int64_t)k);
	ssize_t r;

	while ((r = read(fd, b, k)) != 0) {
		if (r < 0 && errno != EINTR)
			return -1;
		if (r > 0)
			c->moved += r;
	}
	return 0;
}

int net_inject(int rfd, const char *b, size_t n)
{
	int inj = rfd >= 0 ? rfd_inject(rfd) : -1;

	return inj < 0 || n > 65536 ? -1 : write_all(inj, b, n, NULL);
}

/* Exactly the bytes the trace received, waiting for them as the original
 * did; a datagram is not waited for (its sender may be outside). */
int h_recv(struct rctx *c, const struct op *o)
{
	int64_t n = o->amount;

	if (o->failed || n < 0 || (n == 0 && !eof_seen(o)))
		return 0;
	int fd = fd_get(c, o->fd, o);
	if (fd < 0)
		return -1;
	if (n == 0)
		return rfd_inject(fd) >= 0 ? 0 : read_eof(c, fd, o);
	char *b = xbuf(c, n);
	if (rfd_type(fd) == SOCK_DGRAM)
		return 0;
	int inj = rfd_inject(fd);
	if (inj >= 0) {
		int64_t t0 = rnow_ns();
		/* in pieces the socket buffer holds: we are its only reader */
		for (int64_t k = 0; k < n; k += 65536) {
			size_t m = (size_t)(n - k < 65536 ? n - k : 65536);
			if (write_all(inj, b, m, NULL) || read_all(fd, b, m, &c->moved))
				return -1;
		}
		hold_original(o, t0);
		return 0;
	}
	return read_all(fd, b, (size_t)n, &c->moved);
}
