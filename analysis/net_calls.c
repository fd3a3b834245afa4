/*
 * The traces' side of the net report: each node's pcap (the `pcap`
 * attribute of <node>, beside the trace), its I/O numbers, and its send
 * and recv calls on IP sockets grouped in streams: one per process,
 * descriptor and peer, from its connect or accept (or first call) to its
 * close.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net.h"
#include "validate.h"

/* An I/O of a node without seq: numbered afterwards by completion. */
struct ionum {
	int64_t end;
	size_t order;
	long call;                   /* -1: not a data call */
};

struct rdctx {
	struct netrun *nr;
	struct ionum **ios;          /* per node */
	size_t *nios, *capios;
	size_t nodecap;
};

static struct netnode *node_get(struct netrun *nr, const char *name, int *idx)
{
	for (size_t i = 0; i < nr->nnodes; i++)
		if (!strcmp(nr->nodes[i].name, name)) {
			*idx = (int)i;
			return &nr->nodes[i];
		}
	XGROW(nr->nodes, nr->capnodes, nr->nnodes + 1);
	struct netnode *n = &nr->nodes[nr->nnodes];
	memset(n, 0, sizeof(*n));
	n->name = intern(name);
	*idx = (int)nr->nnodes++;
	return n;
}

static const char *attr_of(const struct trace_io *io, const char *name)
{
	for (int i = 0; i < io->nattr; i++)
		if (!strcmp(io->attr[i].name, name))
			return io->attr[i].value;
	return NULL;
}

static bool numbered(enum trace_res r)
{
	return r <= TRACE_RES_NETMETA;     /* fileread ... netmeta carry a seq */
}

static int new_stream(struct netrun *nr, int node, long pid, int fd,
		      const struct pkt_ep *peer, int64_t t)
{
	XGROW(nr->streams, nr->capstreams, nr->nstreams + 1);
	struct netstream *s = &nr->streams[nr->nstreams];
	memset(s, 0, sizeof(*s));
	s->node = node;
	s->pid = pid;
	s->fd = fd;
	s->peer = *peer;
	s->first = t;
	s->conn = s->pair = -1;
	s->open_call = -1;
	return (int)nr->nstreams++;
}

/* The stream a process inherited from its parent on fd: the parent's
 * latest on that fd with that peer (the parent may have closed it since,
 * and opened others on the same number). */
static int inherited(const struct netrun *nr, int node, long ppid, int fd,
		     const struct pkt_ep *peer)
{
	for (size_t i = nr->nstreams; i-- > 0;) {
		const struct netstream *s = &nr->streams[i];
		if (s->node == node && s->pid == ppid && s->fd == fd && pkt_ep_eq(&s->peer, peer))
			return (int)i;
	}
	return -1;
}

/* A UDP socket has a stream per peer: the one of this socket (its
 * descriptor's generation) and peer. */
static int udp_stream(const struct netrun *nr, int node, const struct netfd *f,
		      const struct pkt_ep *peer)
{
	for (size_t i = nr->nstreams; i-- > 0;) {
		const struct netstream *s = &nr->streams[i];
		if (s->node == node && s->udp && s->fd == f->fd && s->fdgen == f->gen &&
		    pkt_ep_eq(&s->peer, peer))
			return (int)i;
	}
	return -1;
}

static const struct { const char *name; uint8_t proto; } protos[] = {
	{ "tcp", PKT_TCP }, { "udp", PKT_UDP },
};

static uint8_t proto_of(const char *name)
{
	for (size_t i = 0; name && i < sizeof(protos) / sizeof(protos[0]); i++)
		if (!strcmp(name, protos[i].name))
			return protos[i].proto;
	return 0;
}

static void add_call(struct netrun *nr, int node, int st, const struct trace_io *io,
		     uint64_t seq)
{
	struct netstream *s = &nr->streams[st];
	bool opens = io->res == TRACE_RES_NETMETA;
	bool recv = io->res == TRACE_RES_NETRECV || (opens && strcmp(io->api, "connect"));

	XGROW(nr->calls, nr->capcalls, nr->ncalls + 1);
	nr->calls[nr->ncalls++] = (struct netcall){
		.node = node, .seq = seq, .api = intern(io->api),
		.start = io->start, .end = io->end, .amount = opens ? 0 : io->amount,
		.recv = recv, .opens = opens, .stream = st,
		.off = recv ? s->received : s->sent,
	};
	if (opens)
		s->open_call = (long)nr->ncalls - 1;
	else if (recv)
		s->received += (uint64_t)io->amount;
	else
		s->sent += (uint64_t)io->amount;
}

/* A new socket on pid's fd (socket, accept, connect): its protocol, and
 * a new generation of the number. */
static struct netfd *fd_opens(struct netrun *nr, int node, long pid, int fd,
			      const struct trace_io *io, int stream)
{
	struct netfd *f = netfds_get(&nr->fds, node, pid, fd);
	uint32_t gen = f ? f->gen + 1 : 1;
	uint8_t proto = proto_of(io->proto);

	f = netfds_set(&nr->fds, node, pid, fd, stream);
	f->gen = gen;
	if (proto || strcmp(io->api, "connect"))
		f->proto = proto;
	return f;
}

/* A data call's stream: TCP, the descriptor's (or the parent's it
 * inherited); UDP, the one of its peer. */
static int data_stream(struct netrun *nr, int node, struct trace_thread *t, int fd,
		       struct netfd *f, const struct trace_io *io, const struct pkt_ep *peer)
{
	long pid = t->proc->pid;
	int st;

	if (f && f->proto == PKT_UDP) {
		st = udp_stream(nr, node, f, peer);
		if (st < 0) {
			st = new_stream(nr, node, pid, fd, peer, io->start);
			nr->streams[st].udp = true;
			nr->streams[st].fdgen = f->gen;
		}
		return st;
	}
	st = f && !f->closed ? f->stream : -1;
	if (st < 0 && !f)
		st = inherited(nr, node, t->proc->ppid, fd, peer);
	if (st < 0 || !pkt_ep_eq(&nr->streams[st].peer, peer))
		st = new_stream(nr, node, pid, fd, peer, io->start);
	netfds_set(&nr->fds, node, pid, fd, st);
	return st;
}

/* socket, connect and accept open a socket (connect and accept a TCP
 * stream); close ends one; data calls join theirs. */
static long net_io(struct netrun *nr, int node, struct trace_thread *t,
		   const struct trace_io *io, uint64_t seq)
{
	const char *fds = attr_of(io, "fd");
	long pid = t->proc->pid;
	struct pkt_ep peer;
	int fd, st;

	if (!fds || io->failed)
		return -1;
	fd = atoi(fds);
	struct netfd *f = netfds_get(&nr->fds, node, pid, fd);
	if (!strcmp(io->api, "close")) {
		if (f)
			f->closed = true;
		return -1;
	}
	if (io->res == TRACE_RES_NETMETA && !strcmp(io->api, "socket")) {
		fd_opens(nr, node, pid, fd, io, -1);
		return -1;
	}
	if (!io->peer || net_ep_parse(&peer, io->peer))
		return -1;
	if (io->res == TRACE_RES_NETMETA) {
		bool acc = !strncmp(io->api, "accept", 6);
		if (!acc && strcmp(io->api, "connect"))
			return -1;
		if (!acc && (f ? f->proto == PKT_UDP : proto_of(io->proto) == PKT_UDP))
			return -1;          /* a UDP connect only names the peer */
		st = new_stream(nr, node, pid, fd, &peer, io->start);
		fd_opens(nr, node, pid, fd, io, st)->proto = PKT_TCP;
		add_call(nr, node, st, io, seq);
		return (long)nr->ncalls - 1;
	}
	if ((io->res != TRACE_RES_NETSEND && io->res != TRACE_RES_NETRECV) || io->amount <= 0)
		return -1;
	st = data_stream(nr, node, t, fd, f, io, &peer);
	add_call(nr, node, st, io, seq);
	return (long)nr->ncalls - 1;
}

static void on_node(void *ctx, struct trace_node *n)
{
	struct rdctx *c = ctx;
	int idx;
	struct netnode *nn = node_get(c->nr, n->name, &idx);

	nn->epoch = n->epoch;
	nn->off = n->off;
	nn->file = intern(n->file);             /* the last trace naming it */
	if (n->pcap && !nn->pcap)               /* the first pcap named */
		nn->pcap = xstrdup(n->pcap);
	if ((size_t)idx >= c->nodecap) {
		size_t old = c->nodecap;
		c->nodecap = (size_t)idx + 8;
		c->ios = xrealloc(c->ios, c->nodecap * sizeof(*c->ios));
		c->nios = xrealloc(c->nios, c->nodecap * sizeof(size_t));
		c->capios = xrealloc(c->capios, c->nodecap * sizeof(size_t));
		for (size_t i = old; i < c->nodecap; i++)
			c->ios[i] = NULL, c->nios[i] = c->capios[i] = 0;
	}
}

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	struct rdctx *c = ctx;
	int node;
	struct netnode *nn = node_get(c->nr, t->node->name, &node);
	const char *sq = attr_of(io, "seq");
	uint64_t seq = sq ? strtoull(sq, NULL, 10) : 0;

	if (seq)
		nn->has_seq = true;
	if (numbered(io->res))
		nn->numbered++;
	if (seq > nn->maxseq)
		nn->maxseq = seq;
	long call = net_io(c->nr, node, t, io, seq);
	if (!numbered(io->res) || seq)
		return;
	XGROW(c->ios[node], c->capios[node], c->nios[node] + 1);
	c->ios[node][c->nios[node]] = (struct ionum){ io->end, c->nios[node], call };
	c->nios[node]++;
}

static int cmp_ionum(const void *a, const void *b)
{
	const struct ionum *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Without seq (a capture outside a session), number the node's I/Os as a
 * session would: in the order they completed. */
static void number_ios(struct rdctx *c)
{
	for (size_t n = 0; n < c->nr->nnodes && n < c->nodecap; n++) {
		if (c->nr->nodes[n].has_seq)
			continue;
		qsort(c->ios[n], c->nios[n], sizeof(struct ionum), cmp_ionum);
		for (size_t i = 0; i < c->nios[n]; i++)
			if (c->ios[n][i].call >= 0)
				c->nr->calls[c->ios[n][i].call].seq = i + 1;
	}
	for (size_t n = 0; n < c->nodecap; n++)
		free(c->ios[n]);
	free(c->ios);
	free(c->nios);
	free(c->capios);
}

void net_read_traces(struct netrun *nr, char **files, int nfiles)
{
	static const struct trace_ops ops = { .node = on_node, .io = on_io };
	struct rdctx c = { .nr = nr };

	read_traces(&nr->run, files, nfiles, &ops, &c);
	/* seqs number a node's I/O from 1: one past their count is a bad
	 * trace (the dependencies keep arrays by seq) */
	for (size_t i = 0; i < nr->nnodes; i++)
		if (nr->nodes[i].maxseq > nr->nodes[i].numbered) {
			char msg[256];

			validate_seq_range(nr->nodes[i].name, nr->nodes[i].maxseq,
					   nr->nodes[i].numbered, msg, sizeof(msg));
			die_at(2, nr->nodes[i].file, 0, "%s", msg);
		}
	number_ios(&c);
	for (size_t i = 0; i < nr->nnodes; i++) {
		struct netnode *n = &nr->nodes[i];
		if (!n->pcap)
			continue;
		if (access(n->pcap, R_OK)) {
			warnx("%s: node %s: %s: cannot read its packets:", n->file, n->name,
			      n->pcap);
			free(n->pcap);
			n->pcap = NULL;
			continue;
		}
		net_read_pcap(nr, (int)i);
	}
}
