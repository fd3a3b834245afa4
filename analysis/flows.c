/* flows: the arrows of the Chrome export, from one call to another:
 *   - dependencies: a <wait node=N seq=K/> before a call points from node
 *     N's I/O K (the call before a <signal/>) to that call;
 *   - network messages on TCP connections with both ends in the run: each
 *     receive points from the send that holds its first byte. A connection
 *     is found as peers.c finds it (the two <sockets> rows that name each
 *     other); where a node has several connections to one address the
 *     sends cannot be told apart and no arrow is drawn.
 * Memory: one record per dependency end and per network call. */
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

struct netcall {
	int node;
	const char *peer;	/* interned */
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

struct flows {
	struct src *srcs;
	size_t nsrcs, capsrcs;
	struct dst *dsts;
	size_t ndsts, capdsts;
	struct netcall *net;
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
	/* a level="libc" call's bytes are its system calls' (--syscalls) */
	if ((io->res == TRACE_RES_NETSEND || io->res == TRACE_RES_NETRECV) && io->amount > 0 &&
	    !io->libc_only &&
	    (!io->proto || !strcmp(io->proto, "tcp")) && peer_is_address(io->peer)) {
		XGROW(f->net, f->capnet, f->nnet + 1);
		f->net[f->nnet++] = (struct netcall){
			.node = t->node->index, .peer = intern(io->peer),
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

/* The one socket of node that talks to peer, or NULL when none or several. */
static const struct sock *only_socket(const struct flows *f, int node, const char *peer)
{
	const struct sock *found = NULL;

	for (size_t i = 0; i < f->nsocks; i++)
		if (f->socks[i].node == node && f->socks[i].peer == peer) {
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
	const struct netcall *a = x, *b = y;

	if (a->send != b->send)
		return a->send - b->send;
	if (a->node != b->node)
		return a->node - b->node;
	if (a->peer != b->peer)
		return a->peer < b->peer ? -1 : 1;
	return (a->off > b->off) - (a->off < b->off);
}

static void set_offsets(struct flows *f)
{
	struct key { int node; const char *peer; bool send; int64_t total; } *m;
	size_t cap = 64;

	while (cap < f->nnet * 2)
		cap *= 2;
	m = xcalloc(cap, sizeof(*m));
	for (size_t i = 0; i < f->nnet; i++) {
		struct netcall *c = &f->net[i];
		size_t h = (((uintptr_t)c->peer >> 3) * 31 + (size_t)c->node * 2 + c->send) & (cap - 1);

		while (m[h].peer && !(m[h].peer == c->peer && m[h].node == c->node &&
				      m[h].send == c->send))
			h = (h + 1) & (cap - 1);
		m[h].peer = c->peer;
		m[h].node = c->node;
		m[h].send = c->send;
		c->off = m[h].total;
		m[h].total += c->amount;
	}
	free(m);
}

static size_t net_messages(struct flows *f, FILE *out, long id)
{
	const struct sock *theirs = NULL;
	const char *lastpeer = NULL;
	int lastnode = -1;
	size_t n = 0, nrecv = 0;

	set_offsets(f);
	if (f->nnet)             /* qsort(NULL, 0) is undefined (UBSan) */
		qsort(f->net, f->nnet, sizeof(*f->net), cmp_netcall);
	while (nrecv < f->nnet && !f->net[nrecv].send)
		nrecv++;
	for (size_t i = 0; i < nrecv; i++) {
		struct netcall *r = &f->net[i], key;
		size_t lo = nrecv, hi = f->nnet;

		if (r->node != lastnode || r->peer != lastpeer) {
			const struct sock *mine = only_socket(f, r->node, r->peer);

			lastnode = r->node;
			lastpeer = r->peer;
			theirs = NULL;
			for (size_t k = 0; mine && k < f->nsocks; k++)
				if (f->socks[k].local == mine->peer && f->socks[k].peer == mine->local)
					theirs = &f->socks[k];
			if (theirs && !only_socket(f, theirs->node, theirs->peer))
				theirs = NULL;
		}
		if (!theirs)
			continue;
		/* the last send of that direction starting at or before r's first byte */
		key = (struct netcall){ .send = true, .node = theirs->node,
					.peer = theirs->peer, .off = r->off };
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (cmp_netcall(&f->net[mid], &key) <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == nrecv)
			continue;
		struct netcall *s = &f->net[lo - 1];

		if (s->node == theirs->node && s->peer == theirs->peer &&
		    r->off < s->off + s->amount) {
			/* A blocking receive starts before the send: the arrow
			 * ends when the bytes were sent, not back in time,
			 * kept inside the receive's slice (clocks of two hosts
			 * may still disagree). */
			struct spot at = r->at;

			if (s->at.ts > at.ts)
				at.ts = s->at.ts < r->end ? s->at.ts : r->end;
			emit(out, id++, &s->at, &at, "message");
			n++;
		}
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
	free(f);
}
