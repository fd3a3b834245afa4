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
 * Memory: one record per network send (24 bytes) and per socket. */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

struct sendrec {
	const char *dest;	/* interned */
	int node;
	int64_t t;		/* absolute time the data left: end minus any hold */
};

struct sockrec {
	const char *local, *peer;	/* interned */
	int node;
};

struct peers {
	struct sendrec *sends;
	size_t nsends, capsends;
	struct sockrec *socks;
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
	free(p);
}

/* Addresses another node can reach: IP:PORT or [IPv6]:PORT. Pipes and
 * unix sockets stay within a node and have no address to match. */
bool peer_is_address(const char *a)
{
	return a && *a && strcmp(a, "pipe") && strncmp(a, "unix:", 5) && strchr(a, ':');
}

/* A wildcard host (a socket bound to any address) matches any host on the
 * same port. */
static bool wildcard(const char *a, size_t hostlen)
{
	return (hostlen == 7 && !strncmp(a, "0.0.0.0", 7)) ||
	       (hostlen == 4 && !strncmp(a, "[::]", 4));
}

static bool addr_match(const char *a, const char *b)
{
	const char *pa, *pb;

	if (a == b || !strcmp(a, b))
		return true;
	pa = strrchr(a, ':');
	pb = strrchr(b, ':');
	if (!pa || !pb || strcmp(pa, pb))
		return false;
	return wildcard(a, (size_t)(pa - a)) || wildcard(b, (size_t)(pb - b));
}

void peers_send(struct peers *p, const struct node *n, const struct io *io)
{
	int64_t hold = io->has_throttle ? io->throttle : 0;

	if (io->res != RES_NETSEND || !peer_is_address(io->peer))
		return;
	if (hold > io->end - io->start)
		hold = io->end - io->start;
	XGROW(p->sends, p->capsends, p->nsends + 1);
	p->sends[p->nsends++] = (struct sendrec){
		.dest = intern(io->peer), .node = n->index, .t = n->epoch + io->end - hold,
	};
	p->sorted = false;
}

void peers_socket(struct peers *p, const struct node *n, const struct sockinfo *s)
{
	if (!peer_is_address(s->local) || !peer_is_address(s->peer))
		return;
	XGROW(p->socks, p->capsocks, p->nsocks + 1);
	p->socks[p->nsocks++] = (struct sockrec){
		.local = intern(s->local), .peer = intern(s->peer), .node = n->index,
	};
}

static int cmp_send(const void *x, const void *y)
{
	const struct sendrec *a = x, *b = y;

	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	if (a->dest != b->dest)
		return (uintptr_t)a->dest < (uintptr_t)b->dest ? -1 : 1;
	return (a->t > b->t) - (a->t < b->t);
}

/* The one socket (of `node`, or of any node) whose local and peer match
 * those given (NULL: any), or NULL when there is none or several that are
 * not the same endpoint. */
static const struct sockrec *only_socket(const struct peers *p, int node, bool any_node,
					 const char *local, const char *peer)
{
	const struct sockrec *found = NULL;

	for (size_t i = 0; i < p->nsocks; i++) {
		const struct sockrec *s = &p->socks[i];

		if ((!any_node && s->node != node) ||
		    (local && !addr_match(s->local, local)) ||
		    (peer && !addr_match(s->peer, peer)))
			continue;
		if (found && (found->node != s->node || found->local != s->local))
			return NULL;
		found = s;
	}
	return found;
}

/* Latest send of `node` to an address matching `dest` at or before `t`. */
static bool last_send(struct peers *p, int node, const char *dest, int64_t t, int64_t *sent)
{
	bool have = false;

	if (!p->sorted) {
		qsort(p->sends, p->nsends, sizeof(*p->sends), cmp_send);
		p->sorted = true;
	}
	for (size_t i = 0; i < p->nsends;) {
		size_t j = i, lo, hi;

		while (j < p->nsends && p->sends[j].node == p->sends[i].node &&
		       p->sends[j].dest == p->sends[i].dest)
			j++;
		if (p->sends[i].node == node && addr_match(p->sends[i].dest, dest)) {
			for (lo = i, hi = j; lo < hi;) {	/* first send after t */
				size_t mid = lo + (hi - lo) / 2;

				if (p->sends[mid].t <= t)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo > i && (!have || p->sends[lo - 1].t > *sent)) {
				*sent = p->sends[lo - 1].t;
				have = true;
			}
		}
		i = j;
	}
	return have;
}

/* When did the peer `peer` of node n last send to n's call that returned
 * at `end` (both node-relative)? False when the peer's trace is not in the
 * run or the connection is ambiguous. */
bool peers_sent(struct peers *p, const struct node *n, const char *peer, int64_t end,
		int64_t *sent)
{
	const struct sockrec *mine, *theirs;
	int64_t t;

	if (!p || !peer_is_address(peer))
		return false;
	mine = only_socket(p, n->index, false, NULL, peer);
	if (!mine)
		return false;
	theirs = only_socket(p, 0, true, peer, mine->local);
	if (!theirs || !only_socket(p, theirs->node, false, NULL, mine->local))
		return false;
	if (!last_send(p, theirs->node, mine->local, n->epoch + end, &t))
		return false;
	*sent = t - n->epoch;
	return true;
}

static void pass_io(void *ctx, struct thread *t, const struct io *io)
{
	peers_send(ctx, t->node, io);
}

static void pass_socket(void *ctx, struct node *n, const struct sockinfo *s)
{
	peers_socket(ctx, n, s);
}

/* A first pass for the reports that account in time order (ttx,
 * utilization, plot): they cannot wait for the peer's trace to come. Done
 * for a single trace too, which may hold several nodes: the split must
 * not depend on how the nodes are packed into files. */
struct peers *peers_collect(char **files, int nfiles)
{
	static const struct reader_ops ops = { .io = pass_io, .socket = pass_socket };
	struct run tmp = { 0 };
	struct peers *p = peers_new();

	read_traces(&tmp, files, nfiles, &ops, p);
	run_free(&tmp);
	return p;
}
