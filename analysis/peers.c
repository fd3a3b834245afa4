/* peers: when did the other end of a connection send? consumption uses it
 * to split a receive's wait: before the peer sent, the receiver waited on
 * the peer (blocked); after it, the data was there and only a stop of the
 * receiver's node can have kept the call from returning.
 *
 * A connection is found from the two nodes' <sockets> summaries: the
 * receiver's call names the sender's address (io peer P); the receiver's
 * socket with peer P gives our address L; the sender is the one socket of
 * the run whose local is P and whose peer is L. Its node's sends to L are
 * the sends on that connection, as long as that node has no other socket
 * talking to L (sends carry only the destination, so two connections from
 * one node to L could not be told apart: then we do not guess).
 *
 * Times are kept absolute (epoch + t), so that the table does not depend
 * on which node a run is aligned on.
 *
 * Memory: one record per network send (32 bytes), two per socket. */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

struct sendrec {
	const char *dest;	/* interned */
	int node;
	int64_t t;		/* absolute time the send began */
	int64_t left;		/* and returned, less any hold: the data had left */
};

struct sockrec {
	const char *local, *peer;	/* interned */
	int node;
};

struct peers {
	struct sendrec *sends;
	size_t nsends, capsends;
	struct sockrec *socks;		/* by (peer, local, node) */
	struct sockrec *bynode;		/* the same by (peer, node, local) */
	size_t nsocks, capsocks;
	bool sorted;
};

struct peers *peers_new(void)
{
	return xcalloc(1, sizeof(struct peers));
}

void peers_free(struct peers *p)
{
	if (!p)
		return;
	free(p->sends);
	free(p->socks);
	free(p->bynode);
	free(p);
}

/* Addresses another node can reach: IP:PORT or [IPv6]:PORT. Pipes and
 * unix sockets stay within a node and have no address to match.
 * Addresses are compared as written (interned): a socket bound to a
 * wildcard address is not matched. */
bool peer_is_address(const char *a)
{
	return a && *a && strcmp(a, "pipe") && strncmp(a, "unix:", 5) && strchr(a, ':');
}

void peers_send(struct peers *p, const struct trace_node *n, const struct trace_io *io)
{
	int64_t hold = io->has_throttle ? io->throttle : 0;

	if (io->res != TRACE_RES_NETSEND || !peer_is_address(io->peer))
		return;
	if (hold > io->end - io->start)
		hold = io->end - io->start;
	XGROW(p->sends, p->capsends, p->nsends + 1);
	p->sends[p->nsends++] = (struct sendrec){
		.dest = intern(io->peer), .node = n->index, .t = n->epoch + io->start,
		.left = n->epoch + io->end - hold,
	};
	p->sorted = false;
}

void peers_socket(struct peers *p, const struct trace_node *n, const struct trace_socket *s)
{
	if (!peer_is_address(s->local) || !peer_is_address(s->peer))
		return;
	XGROW(p->socks, p->capsocks, p->nsocks + 1);
	p->socks[p->nsocks++] = (struct sockrec){
		.local = intern(s->local), .peer = intern(s->peer), .node = n->index,
	};
	p->sorted = false;
}

static int cmp_ptr(const void *a, const void *b)
{
	return (uintptr_t)a < (uintptr_t)b ? -1 : (uintptr_t)a > (uintptr_t)b;
}

static int cmp_send(const void *x, const void *y)
{
	const struct sendrec *a = x, *b = y;

	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	if (a->dest != b->dest)
		return cmp_ptr(a->dest, b->dest);
	return (a->t > b->t) - (a->t < b->t);
}

static int cmp_node(int a, int b)
{
	return (a > b) - (a < b);
}

static int cmp_sock(const void *x, const void *y)
{
	const struct sockrec *a = x, *b = y;

	if (a->peer != b->peer)
		return cmp_ptr(a->peer, b->peer);
	if (a->local != b->local)
		return cmp_ptr(a->local, b->local);
	return cmp_node(a->node, b->node);
}

static int cmp_bynode(const void *x, const void *y)
{
	const struct sockrec *a = x, *b = y;

	if (a->peer != b->peer)
		return cmp_ptr(a->peer, b->peer);
	if (a->node != b->node)
		return cmp_node(a->node, b->node);
	return cmp_ptr(a->local, b->local);
}

/* Both orders, so that every lookup is a binary search plus the sockets
 * that really match (a server's thousand clients share its address). */
static void sort_once(struct peers *p)
{
	if (p->sorted)
		return;
	p->sorted = true;
	if (p->nsends)
		qsort(p->sends, p->nsends, sizeof(*p->sends), cmp_send);
	if (!p->nsocks)
		return;
	qsort(p->socks, p->nsocks, sizeof(*p->socks), cmp_sock);
	p->bynode = xrealloc(p->bynode, p->nsocks * sizeof(*p->bynode));
	memcpy(p->bynode, p->socks, p->nsocks * sizeof(*p->socks));
	qsort(p->bynode, p->nsocks, sizeof(*p->bynode), cmp_bynode);
}

/* The first of v[0..n) not below key; a NULL local or a node of -1 in the
 * key sorts before every socket. */
static size_t lower(const struct sockrec *v, size_t n, const struct sockrec *key,
		    int (*cmp)(const void *, const void *))
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (cmp(&v[m], key) < 0)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* The one endpoint (node, local) among the sockets v[i..) for which
 * same(v[i], key) holds, or NULL when there is none or several. */
static const struct sockrec *only(const struct sockrec *v, size_t n, size_t i,
				  const struct sockrec *key,
				  bool (*same)(const struct sockrec *, const struct sockrec *))
{
	const struct sockrec *found = NULL;

	for (; i < n && same(&v[i], key); i++) {
		if (found && (found->node != v[i].node || found->local != v[i].local))
			return NULL;
		found = &v[i];
	}
	return found;
}

static bool same_pair(const struct sockrec *s, const struct sockrec *k)
{
	return s->peer == k->peer && s->local == k->local;
}

static bool same_node(const struct sockrec *s, const struct sockrec *k)
{
	return s->peer == k->peer && s->node == k->node;
}

/* The one socket of `node` talking to `peer`. */
static const struct sockrec *node_socket(const struct peers *p, int node, const char *peer)
{
	struct sockrec key = { .peer = peer, .node = node };

	return only(p->bynode, p->nsocks, lower(p->bynode, p->nsocks, &key, cmp_bynode),
		    &key, same_node);
}

/* The one socket, on any node, from `local` to `peer`. */
static const struct sockrec *pair_socket(const struct peers *p, const char *local,
					 const char *peer)
{
	struct sockrec key = { .peer = peer, .local = local, .node = -1 };

	return only(p->socks, p->nsocks, lower(p->socks, p->nsocks, &key, cmp_sock),
		    &key, same_pair);
}

/* When the data of the latest send of `node` to `dest` that began at or
 * before `t` had left: when the send returned, or `t` if that is earlier. A send
 * that began before the receive returned can have fed it even if it
 * returned later (the kernel delivers inside the call, and two nodes'
 * clocks agree only so far); taking an earlier send instead would date
 * the data before the receive even began to wait for it. */
static bool last_send(const struct peers *p, int node, const char *dest, int64_t t,
		      int64_t *sent)
{
	struct sendrec key = { .dest = dest, .node = node, .t = t };
	size_t a = 0, b = p->nsends;

	while (a < b) {			/* the first send after key */
		size_t m = a + (b - a) / 2;

		if (cmp_send(&p->sends[m], &key) <= 0)
			a = m + 1;
		else
			b = m;
	}
	if (a == 0 || p->sends[a - 1].node != node || p->sends[a - 1].dest != dest)
		return false;
	*sent = p->sends[a - 1].left < t ? p->sends[a - 1].left : t;
	return true;
}

/* When did the peer `peer` of node n last send to n's call that returned
 * at `end` (both node-relative)? False when the peer's trace is not in the
 * run or the connection is ambiguous. */
bool peers_sent(struct peers *p, const struct trace_node *n, const char *peer, int64_t end,
		int64_t *sent)
{
	const struct sockrec *mine, *theirs;
	int64_t t;

	if (!p || !peer_is_address(peer))
		return false;
	sort_once(p);
	peer = intern(peer);
	mine = node_socket(p, n->index, peer);
	if (!mine)
		return false;
	theirs = pair_socket(p, peer, mine->local);
	if (!theirs || !node_socket(p, theirs->node, mine->local))
		return false;
	if (!last_send(p, theirs->node, mine->local, n->epoch + end, &t))
		return false;
	*sent = t - n->epoch;
	return true;
}

/* Does a socket of the run have its mirror (our peer's local is our
 * local's peer)? Then a report in time order must read again. */
bool peers_paired(struct peers *p)
{
	sort_once(p);
	for (size_t i = 0; i < p->nsocks; i++) {
		struct sockrec key = { .peer = p->socks[i].local, .local = p->socks[i].peer,
				       .node = -1 };
		size_t j = lower(p->socks, p->nsocks, &key, cmp_sock);

		if (j < p->nsocks && same_pair(&p->socks[j], &key))
			return true;
	}
	return false;
}
