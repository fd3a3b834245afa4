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

/* A socket call kept for the second pass, in time order: a process's
 * threads share its descriptors but the trace lists each thread's calls
 * apart (a server that accepts in one thread and serves the connection
 * in another would find the descriptor on its next connection). */
struct netio {
	int node;
	long pid, ppid;
	int fd;
	const char *api;             /* interned */
	enum trace_res res;
	bool has_peer;
	uint8_t proto;
	struct pkt_ep peer, local;
	bool has_local;
	int64_t start, end, amount;
	uint64_t seq;
	int64_t key;                 /* when it acts on the descriptor */
	size_t ord;                  /* reading order */
	long ion;                    /* its ionum, -1: numbered by seq */
};

struct rdctx {
	struct netrun *nr;
	struct ionum **ios;          /* per node */
	size_t *nios, *capios;
	size_t nodecap;
	struct netio *io;
	size_t nio, capio;
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
	const struct trace_attr *a = trace_io_attr(io, name);

	return a ? a->value : NULL;
}

static bool numbered(enum trace_res r)
{
	return r <= TRACE_RES_NETMETA;     /* fileread ... netmeta carry a seq */
}

static int new_stream(struct netrun *nr, const struct netio *io)
{
	XGROW(nr->streams, nr->capstreams, nr->nstreams + 1);
	struct netstream *s = &nr->streams[nr->nstreams];
	memset(s, 0, sizeof(*s));
	s->node = io->node;
	s->pid = io->pid;
	s->fd = io->fd;
	s->peer = io->peer;
	s->first = io->start;
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

static void add_call(struct netrun *nr, int st, const struct netio *io)
{
	struct netstream *s = &nr->streams[st];
	bool opens = io->res == TRACE_RES_NETMETA;
	bool recv = io->res == TRACE_RES_NETRECV || (opens && strcmp(io->api, "connect"));

	XGROW(nr->calls, nr->capcalls, nr->ncalls + 1);
	nr->calls[nr->ncalls++] = (struct netcall){
		.node = io->node, .seq = io->seq, .api = io->api,
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
static struct netfd *fd_opens(struct netrun *nr, const struct netio *io, int stream)
{
	struct netfd *f = netfds_get(&nr->fds, io->node, io->pid, io->fd);
	uint32_t gen = f ? f->gen + 1 : 1;

	f = netfds_set(&nr->fds, io->node, io->pid, io->fd, stream);
	f->gen = gen;
	if (io->proto || strcmp(io->api, "connect"))
		f->proto = io->proto;
	return f;
}

/* A data call's stream: TCP, the descriptor's (or the parent's it
 * inherited); UDP, the one of its peer. */
static int data_stream(struct netrun *nr, struct netfd *f, const struct netio *io)
{
	int st;

	if (f && f->proto == PKT_UDP) {
		st = udp_stream(nr, io->node, f, &io->peer);
		if (st < 0) {
			st = new_stream(nr, io);
			nr->streams[st].udp = true;
			nr->streams[st].fdgen = f->gen;
		}
		return st;
	}
	st = f && !f->closed ? f->stream : -1;
	if (st < 0 && !f)
		st = inherited(nr, io->node, io->ppid, io->fd, &io->peer);
	if (st < 0 || !pkt_ep_eq(&nr->streams[st].peer, &io->peer))
		st = new_stream(nr, io);
	netfds_set(&nr->fds, io->node, io->pid, io->fd, st);
	return st;
}

/* socket, connect and accept open a socket (connect and accept a TCP
 * stream); close ends one; data calls join theirs. */
static long net_io(struct netrun *nr, const struct netio *io)
{
	struct netfd *f = netfds_get(&nr->fds, io->node, io->pid, io->fd);
	int st;

	if (!strcmp(io->api, "close")) {
		if (f)
			f->closed = true;
		return -1;
	}
	if (io->res == TRACE_RES_NETMETA && !strcmp(io->api, "socket")) {
		fd_opens(nr, io, -1);
		return -1;
	}
	if (!io->has_peer)
		return -1;
	if (io->res == TRACE_RES_NETMETA) {
		bool acc = !strncmp(io->api, "accept", 6);
		if (!acc && strcmp(io->api, "connect"))
			return -1;
		if (!acc && (f ? f->proto == PKT_UDP : io->proto == PKT_UDP))
			return -1;          /* a UDP connect only names the peer */
		st = new_stream(nr, io);
		nr->streams[st].tlocal = io->local;
		nr->streams[st].has_tlocal = io->has_local;
		fd_opens(nr, io, st)->proto = PKT_TCP;
		add_call(nr, st, io);
		return (long)nr->ncalls - 1;
	}
	if ((io->res != TRACE_RES_NETSEND && io->res != TRACE_RES_NETRECV) || io->amount <= 0)
		return -1;
	st = data_stream(nr, f, io);
	add_call(nr, st, io);
	return (long)nr->ncalls - 1;
}

/* Only socket calls and closes (of what may be a socket) matter; a
 * non-blocking connect under way (EINPROGRESS) makes its connection. */
static bool keep_io(const struct trace_io *io)
{
	if (io->failed && !(!strcmp(io->api, "connect") && io->err &&
			    !strcmp(io->err, "EINPROGRESS")))
		return false;
	if (!strcmp(io->api, "close"))
		return !io->path;
	return io->res == TRACE_RES_NETMETA || io->res == TRACE_RES_NETSEND ||
	       io->res == TRACE_RES_NETRECV;
}

/* The time a call acts on its descriptor: an open when it returns the
 * socket, a close when it begins to let the number go, a data call when
 * it begins (after the open another thread learned the number from). */
static int64_t io_key(const struct netio *io)
{
	if (!strcmp(io->api, "close") || io->res != TRACE_RES_NETMETA)
		return io->start;
	return io->end;
}

static void keep(struct rdctx *c, int node, struct trace_thread *t,
		 const struct trace_io *io, uint64_t seq, long ion)
{
	const char *fds = attr_of(io, "fd"), *local = attr_of(io, "local");

	if (!fds || !keep_io(io))
		return;
	XGROW(c->io, c->capio, c->nio + 1);
	struct netio *n = &c->io[c->nio];
	*n = (struct netio){
		.node = node, .pid = t->proc->pid, .ppid = t->proc->ppid, .fd = atoi(fds),
		.api = io->api, .res = io->res, .proto = proto_of(io->proto),
		.start = io->start, .end = io->end, .amount = io->amount, .seq = seq,
		.ord = c->nio, .ion = ion,
	};
	n->has_peer = io->peer && !net_ep_parse(&n->peer, io->peer);
	n->has_local = local && !net_ep_parse(&n->local, local);
	n->key = io_key(n);
	c->nio++;
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
	long ion = -1;

	if (seq)
		nn->has_seq = true;
	if (numbered(io->res))
		nn->numbered++;
	if (seq > nn->maxseq)
		nn->maxseq = seq;
	if (numbered(io->res) && !seq) {
		XGROW(c->ios[node], c->capios[node], c->nios[node] + 1);
		c->ios[node][c->nios[node]] = (struct ionum){ io->end, c->nios[node], -1 };
		ion = (long)c->nios[node]++;
	}
	keep(c, node, t, io, seq, ion);
}

static int cmp_netio(const void *a, const void *b)
{
	const struct netio *x = a, *y = b;

	if (x->node != y->node)
		return x->node - y->node;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* The calls in time order, each process's descriptors followed through
 * them; then the calls back in reading order (the reports list them so). */
static void take_ios(struct rdctx *c)
{
	struct netrun *nr = c->nr;
	size_t *ord = NULL, cap = 0;

	if (c->nio)	/* qsort(NULL, 0): undefined */
		qsort(c->io, c->nio, sizeof(*c->io), cmp_netio);
	for (size_t i = 0; i < c->nio; i++) {
		if (net_io(nr, &c->io[i]) < 0)
			continue;
		XGROW(ord, cap, nr->ncalls);
		ord[nr->ncalls - 1] = c->io[i].ord;
	}
	/* where each kept I/O's call lands: by reading order */
	long *at = xmalloc((c->nio + 1) * sizeof(*at));
	struct netcall *calls = xmalloc((nr->ncalls + 1) * sizeof(*calls));
	long *moved = xmalloc((nr->ncalls + 1) * sizeof(*moved));
	size_t n = 0;

	for (size_t i = 0; i < c->nio; i++)
		at[i] = -1;
	for (size_t i = 0; i < nr->ncalls; i++)
		at[ord[i]] = (long)i;
	for (size_t o = 0; o < c->nio; o++)
		if (at[o] >= 0) {
			calls[n] = nr->calls[at[o]];
			moved[at[o]] = (long)n;
			at[o] = (long)n++;
		}
	for (size_t i = 0; i < nr->nstreams; i++)
		if (nr->streams[i].open_call >= 0)
			nr->streams[i].open_call = moved[nr->streams[i].open_call];
	for (size_t i = 0; i < c->nio; i++)
		if (c->io[i].ion >= 0)
			c->ios[c->io[i].node][c->io[i].ion].call = at[c->io[i].ord];
	free(nr->calls);
	nr->calls = calls;
	nr->capcalls = nr->ncalls + 1;
	free(moved);
	free(at);
	free(ord);
	free(c->io);
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
		if (c->nios[n])
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
	take_ios(&c);
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
