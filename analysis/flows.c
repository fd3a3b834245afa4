/* flows: the arrows of the Chrome export, from one call to another:
 *   - dependencies: a <wait node=N seq=K/> before a call points from node
 *     N's I/O K (the call before a <signal/>) to that call;
 *   - network messages on TCP connections with both ends in the run: each
 *     receive points from the send that holds its first byte. A connection
 *     is found as peers.c finds it (the two <sockets> rows that name each
 *     other), by both its ports: a call's local address is its
 *     descriptor's, which the connect or accept that made it names
 *     (local=), so a node's several connections to one address (a client
 *     that retried after a refused connect) are told apart; a call whose
 *     descriptor's local address is not known is matched by the peer
 *     alone, when the node has one connection to it.
 * Memory: one record per dependency end and per network call, and one
 * per descriptor a connect or accept named. */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

struct spot {			/* one end of an arrow: a call's slice */
	long pid, tid;
	int64_t ts;		/* aligned ns, inside the slice */
};

struct src {			/* a call another waits for */
	const char *node;	/* interned */
	int64_t seq;
	size_t order;		/* in reading order: the first of equals wins */
	struct spot at;
};

struct dst {			/* a call that waited */
	const char *node;
	int64_t seq;
	struct spot at;
};

struct flow_call {
	int node;
	const char *peer;	/* interned */
	const char *local;	/* its descriptor's, interned; NULL unknown */
	bool send;
	int64_t amount, off;	/* off: first byte in the stream, set later */
	struct spot at;		/* a send: its end; a receive: its start */
	int64_t end;		/* a receive: its end, aligned ns */
};

struct sock {
	int node;
	const char *local, *peer;
};

struct lastio {
	bool have;
	int64_t seq;
	struct spot at;
	bool waiting;		/* a <wait> came: the next call is its end */
	const char *wnode;
	int64_t wseq;
};

/* A descriptor's local address, from the connect or accept that made it. */
struct fdlocal {
	int node;
	long pid;
	int64_t fd;
	const char *local;	/* interned; NULL: slot free */
};

struct flows {
	struct fdlocal *fds;	/* open addressing, capfds a power of two */
	size_t nfds, capfds;
	struct src *srcs;
	size_t nsrcs, capsrcs;
	struct dst *dsts;
	size_t ndsts, capdsts;
	struct flow_call *net;
	size_t nnet, capnet;
	struct sock *socks;
	size_t nsocks, capsocks;
	struct lastio *last;	/* by thread index */
	size_t caplast;
};

struct flows *flows_new(void)
{
	return xcalloc(1, sizeof(struct flows));
}

static struct lastio *last_of(struct flows *f, const struct trace_thread *t)
{
	size_t old = f->caplast;

	if ((size_t)t->index >= f->caplast) {
		XGROW(f->last, f->caplast, (size_t)t->index + 1);
		memset(f->last + old, 0, (f->caplast - old) * sizeof(*f->last));
	}
	return &f->last[t->index];
}

static int64_t seq_of(const struct trace_io *io)
{
	const struct trace_attr *a = trace_io_attr(io, "seq");

	return a ? strtoll(a->value, NULL, 10) : 0;
}

static size_t fd_slot(const struct fdlocal *v, size_t cap, int node, long pid, int64_t fd)
{
	size_t h = (((size_t)pid * 31 + (size_t)fd) * 31 + (size_t)node) * 0x9e3779b97f4a7c15ULL;

	for (h &= cap - 1; v[h].local && !(v[h].node == node && v[h].pid == pid && v[h].fd == fd);
	     h = (h + 1) & (cap - 1))
		;
	return h;
}

static const char **fd_local(struct flows *f, int node, long pid, int64_t fd, bool add)
{
	if (add && f->nfds * 2 >= f->capfds) {
		size_t nc = f->capfds ? f->capfds * 2 : 64;
		struct fdlocal *v = xcalloc(nc, sizeof(*v));

		for (size_t i = 0; i < f->capfds; i++)
			if (f->fds[i].local)
				v[fd_slot(v, nc, f->fds[i].node, f->fds[i].pid, f->fds[i].fd)] = f->fds[i];
		free(f->fds);
		f->fds = v;
		f->capfds = nc;
	}
	if (!f->capfds)
		return NULL;
	size_t h = fd_slot(f->fds, f->capfds, node, pid, fd);

	if (!f->fds[h].local) {
		if (!add)
			return NULL;
		f->fds[h] = (struct fdlocal){ node, pid, fd, NULL };
		f->nfds++;
	}
	return &f->fds[h].local;
}

/* A connect or accept names its descriptor's local address (a
 * connection under way, EINPROGRESS, too); the last one holds. */
static void note_local(struct flows *f, const struct trace_thread *t, long pid,
		       const struct trace_io *io)
{
	const struct trace_attr *a = trace_io_attr(io, "local");

	if (!a || !io->has_fd || !peer_is_address(a->value) ||
	    (strcmp(io->api, "connect") && strncmp(io->api, "accept", 6)))
		return;
	*fd_local(f, t->node->index, pid, io->fd, true) = intern(a->value);
}

void flows_io(struct flows *f, const struct trace_thread *t, long pid, const struct trace_io *io)
{
	struct lastio *l = last_of(f, t);
	struct spot at = { pid, t->tid, io->start + t->node->off };

	if (l->waiting) {
		XGROW(f->dsts, f->capdsts, f->ndsts + 1);
		f->dsts[f->ndsts++] = (struct dst){ l->wnode, l->wseq, at };
		l->waiting = false;
	}
	l->have = true;
	l->seq = seq_of(io);
	/* the source's arrow leaves at the end of its slice */
	l->at = (struct spot){ pid, t->tid, io->end + t->node->off };
	note_local(f, t, pid, io);
	/* a level="libc" call's bytes are its system calls' (--syscalls) */
	if ((io->res == TRACE_RES_NETSEND || io->res == TRACE_RES_NETRECV) && io->amount > 0 &&
	    !io->libc_only &&
	    (!io->proto || !strcmp(io->proto, "tcp")) && peer_is_address(io->peer)) {
		const char **lp = io->has_fd ? fd_local(f, t->node->index, pid, io->fd, false) : NULL;

		XGROW(f->net, f->capnet, f->nnet + 1);
		f->net[f->nnet++] = (struct flow_call){
			.node = t->node->index, .peer = intern(io->peer), .local = lp ? *lp : NULL,
			.send = io->res == TRACE_RES_NETSEND, .amount = io->amount,
			.at = io->res == TRACE_RES_NETSEND ? l->at : at,
			.end = io->end + t->node->off,
		};
	}
}

void flows_dep(struct flows *f, const struct trace_thread *t, const struct trace_dep *d)
{
	struct lastio *l = last_of(f, t);

	if (d->wait) {
		l->waiting = true;
		l->wnode = intern(d->node);
		l->wseq = d->seq;
	} else if (l->have && l->seq) {
		XGROW(f->srcs, f->capsrcs, f->nsrcs + 1);
		f->srcs[f->nsrcs] = (struct src){ intern(t->node->name), l->seq, f->nsrcs, l->at };
		f->nsrcs++;
	}
}

void flows_socket(struct flows *f, const struct trace_node *n, const struct trace_socket *s)
{
	if (strcmp(s->proto, "tcp") || !peer_is_address(s->local) || !peer_is_address(s->peer))
		return;
	XGROW(f->socks, f->capsocks, f->nsocks + 1);
	f->socks[f->nsocks++] = (struct sock){ n->index, intern(s->local), intern(s->peer) };
}

/* The one socket of node that talks to peer (from local, when known), or
 * NULL when none or several. */
static const struct sock *only_socket(const struct flows *f, int node, const char *peer,
				      const char *local)
{
	const struct sock *found = NULL;

	for (size_t i = 0; i < f->nsocks; i++)
		if (f->socks[i].node == node && f->socks[i].peer == peer &&
		    (!local || f->socks[i].local == local)) {
			if (found)
				return NULL;
			found = &f->socks[i];
		}
	return found;
}

static void emit(FILE *out, long id, const struct spot *s, const struct spot *d,
		 const char *name)
{
	fprintf(out, ",\n{\"ph\":\"s\",\"id\":%ld,\"pid\":%ld,\"tid\":%ld,\"ts\":%lld.%03lld,"
		"\"name\":\"%s\",\"cat\":\"%s\"}", id, s->pid, s->tid,
		(long long)(s->ts / 1000), (long long)(s->ts % 1000), name, name);
	fprintf(out, ",\n{\"ph\":\"f\",\"bp\":\"e\",\"id\":%ld,\"pid\":%ld,\"tid\":%ld,"
		"\"ts\":%lld.%03lld,\"name\":\"%s\",\"cat\":\"%s\"}", id, d->pid, d->tid,
		(long long)(d->ts / 1000), (long long)(d->ts % 1000), name, name);
}

/* Stream offsets: each direction of a connection is the node's calls to
 * its peer address, in the order they were read (each thread's in time
 * order: a connection used by one thread at a time is in order). */
static int cmp_netcall(const void *x, const void *y)
{
	const struct flow_call *a = x, *b = y;

	if (a->send != b->send)
		return a->send - b->send;
	if (a->node != b->node)
		return a->node - b->node;
	if (a->peer != b->peer)
		return a->peer < b->peer ? -1 : 1;
	if (a->local != b->local)
		return a->local < b->local ? -1 : 1;
	return (a->off > b->off) - (a->off < b->off);
}

static void set_offsets(struct flows *f)
{
	struct key { int node; const char *peer, *local; bool send; int64_t total; } *m;
	size_t cap = 64;

	while (cap < f->nnet * 2)
		cap *= 2;
	m = xcalloc(cap, sizeof(*m));
	for (size_t i = 0; i < f->nnet; i++) {
		struct flow_call *c = &f->net[i];
		size_t h = (((uintptr_t)c->peer >> 3) * 31 + ((uintptr_t)c->local >> 3) * 7 +
			    (size_t)c->node * 2 + c->send) & (cap - 1);

		while (m[h].peer && !(m[h].peer == c->peer && m[h].node == c->node &&
				      m[h].local == c->local && m[h].send == c->send))
			h = (h + 1) & (cap - 1);
		m[h].peer = c->peer;
		m[h].local = c->local;
		m[h].node = c->node;
		m[h].send = c->send;
		c->off = m[h].total;
		m[h].total += c->amount;
	}
	free(m);
}

/* The last send of node to peer from local (NULL: from a descriptor of
 * unknown address) starting at or before stream offset off, or NULL. */
static const struct flow_call *send_at(const struct flows *f, size_t nrecv, int node,
				     const char *peer, const char *local, int64_t off)
{
	struct flow_call key = { .send = true, .node = node, .peer = peer, .local = local, .off = off };
	size_t lo = nrecv, hi = f->nnet;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_netcall(&f->net[mid], &key) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == nrecv)
		return NULL;
	const struct flow_call *s = &f->net[lo - 1];

	if (s->node == node && s->peer == peer && s->local == local && off < s->off + s->amount)
		return s;
	return NULL;
}

static size_t net_messages(struct flows *f, FILE *out, long id)
{
	const struct sock *theirs = NULL;
	const char *lastpeer = NULL, *lastlocal = NULL;
	int lastnode = -1;
	size_t n = 0, nrecv = 0;

	set_offsets(f);
	if (f->nnet)             /* qsort(NULL, 0) is undefined (UBSan) */
		qsort(f->net, f->nnet, sizeof(*f->net), cmp_netcall);
	while (nrecv < f->nnet && !f->net[nrecv].send)
		nrecv++;
	for (size_t i = 0; i < nrecv; i++) {
		struct flow_call *r = &f->net[i];

		if (r->node != lastnode || r->peer != lastpeer || r->local != lastlocal) {
			/* the connection: both ports when the receive's
			 * descriptor has its local address */
			const struct sock *mine = only_socket(f, r->node, r->peer, r->local);

			lastnode = r->node;
			lastpeer = r->peer;
			lastlocal = r->local;
			theirs = NULL;
			for (size_t k = 0; mine && k < f->nsocks; k++)
				if (f->socks[k].local == mine->peer && f->socks[k].peer == mine->local)
					theirs = &f->socks[k];
		}
		if (!theirs)
			continue;
		/* the sends of the other end: from that socket's address, or,
		 * where its descriptors' addresses are not known, to the peer
		 * it alone talks to */
		const struct flow_call *s = send_at(f, nrecv, theirs->node, theirs->peer,
						  theirs->local, r->off);

		if (!s && only_socket(f, theirs->node, theirs->peer, NULL))
			s = send_at(f, nrecv, theirs->node, theirs->peer, NULL, r->off);
		if (!s)
			continue;
		/* A blocking receive starts before the send: the arrow ends
		 * when the bytes were sent, not back in time, kept inside the
		 * receive's slice (clocks of two hosts may still disagree). */
		struct spot at = r->at;

		if (s->at.ts > at.ts)
			at.ts = s->at.ts < r->end ? s->at.ts : r->end;
		emit(out, id++, &s->at, &at, "message");
		n++;
	}
	return n;
}

/* Sources by (node, seq), the first read first among equals. */
static int cmp_src(const void *x, const void *y)
{
	const struct src *a = x, *b = y;

	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	if (a->seq != b->seq)
		return (a->seq > b->seq) - (a->seq < b->seq);
	return (a->order > b->order) - (a->order < b->order);
}

/* The first source of the wait d, or NULL. */
static const struct src *src_of(const struct flows *f, const struct dst *d)
{
	struct src key = { .node = d->node, .seq = d->seq, .order = 0 };
	size_t lo = 0, hi = f->nsrcs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_src(&f->srcs[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < f->nsrcs && f->srcs[lo].node == d->node && f->srcs[lo].seq == d->seq)
		return &f->srcs[lo];
	return NULL;
}

/* The waits find their signals by binary search: a nested loop was
 * O(waits x signals). */
size_t flows_write(struct flows *f, FILE *out)
{
	long id = 1;
	size_t n = 0;

	if (f->nsrcs)		/* qsort(NULL, 0) is undefined (UBSan) */
		qsort(f->srcs, f->nsrcs, sizeof(*f->srcs), cmp_src);
	for (size_t i = 0; i < f->ndsts; i++) {
		const struct src *s = src_of(f, &f->dsts[i]);

		if (s) {
			emit(out, id++, &s->at, &f->dsts[i].at, "dependency");
			n++;
		}
	}
	return n + net_messages(f, out, id + 1000000);
}

void flows_free(struct flows *f)
{
	if (!f)
		return;
	free(f->srcs);
	free(f->dsts);
	free(f->net);
	free(f->socks);
	free(f->last);
	free(f->fds);
	free(f);
}
