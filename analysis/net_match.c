/*
 * Tie the traces to the packets: each stream of calls to the connection
 * in its node's pcap that has its peer (in order of time when a node
 * opened several to the same peer), the two ends of a connection to each
 * other, and the bytes each send gave to each recv: the message edges.
 * Sorted indexes keep it O(n log n) in streams, connections and calls.
 */
#include <stdlib.h>
#include <string.h>

#include "net.h"

/* An endpoint of a node's connection or stream, for binary search. */
struct epref {
	int node;
	struct pkt_ep ep;
	int idx;
};

static int cmp_ep(const struct pkt_ep *x, const struct pkt_ep *y)
{
	int c = memcmp(x->ip, y->ip, 16);

	return c ? c : (x->port > y->port) - (x->port < y->port);
}

static int cmp_epref(const void *a, const void *b)
{
	const struct epref *x = a, *y = b;

	if (x->node != y->node)
		return x->node - y->node;
	int c = cmp_ep(&x->ep, &y->ep);
	return c ? c : x->idx - y->idx;
}

/* The first entry with (node, ep); node -1 matches any. */
static size_t ep_lower(const struct epref *v, size_t n, int node, const struct pkt_ep *ep)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = node >= 0 && v[mid].node != node ? v[mid].node - node :
			cmp_ep(&v[mid].ep, ep);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool ep_at(const struct epref *v, size_t n, size_t i, int node, const struct pkt_ep *ep)
{
	return i < n && (node < 0 || v[i].node == node) && pkt_ep_eq(&v[i].ep, ep);
}

static bool conn_used(const struct netconn *k)
{
	return k->synack_t || k->d[0].nseg || k->d[1].nseg;
}

/* Is k a better choice than the current best? The earliest free
 * connection; one that was refused (a failed blocking connect has no
 * stream, a non-blocking one's takes its own by its endpoints) only as a
 * last resort. */
static bool better(const struct netconn *k, const struct netconn *best)
{
	if (!best)
		return true;
	if (conn_used(k) != conn_used(best))
		return conn_used(k);
	return k->first_t < best->first_t;
}

/* Stream st takes connection k of its node's pcap (ours: its end a or b). */
static void take_conn(struct netrun *nr, int st, struct netconn *k)
{
	struct netstream *s = &nr->streams[st];

	s->conn = (int)(k - nr->conns);
	s->dir_out = pkt_ep_eq(&k->b, &s->peer) ? 0 : 1;
	k->stream[s->dir_out] = st;
	s->local = s->dir_out ? k->b : k->a;
	s->has_local = true;
}

/* A stream whose trace names its own endpoint (exact) takes the
 * connection of both endpoints: a connect refused after EINPROGRESS
 * leaves its stream and a connection of a SYN and a RST, which the order
 * alone would mix up with the next. The others (exact false), and those
 * without their connection in the pcap, take the best free one. */
static void stream_conn(struct netrun *nr, int st, const struct epref *cv, size_t nc,
			bool exact)
{
	struct netstream *s = &nr->streams[st];
	struct netconn *best = NULL;

	if (s->conn >= 0 || (exact && !s->has_tlocal))
		return;
	for (size_t i = ep_lower(cv, nc, s->node, &s->peer); ep_at(cv, nc, i, s->node, &s->peer); i++) {
		struct netconn *k = &nr->conns[cv[i].idx];
		int end = !pkt_ep_eq(&k->b, &s->peer);      /* ours: a (0) or b */
		if (k->udp != s->udp || k->stream[end] >= 0)
			continue;
		if (exact && pkt_ep_eq(end ? &k->b : &k->a, &s->tlocal)) {
			best = k;
			break;
		}
		if (!exact && better(k, best))
			best = k;
	}
	if (best)
		take_conn(nr, st, best);
}

static bool ends_meet(const struct netstream *s, const struct netstream *r)
{
	if (s->udp != r->udp || !s->has_local || !pkt_ep_eq(&r->peer, &s->local))
		return false;
	return !r->has_local || pkt_ep_eq(&r->local, &s->peer);
}

/* The other end of stream i: a stream (of any node) whose peer is i's
 * local endpoint. */
static void stream_pair(struct netrun *nr, size_t i, const struct epref *sv, size_t ns)
{
	struct netstream *s = &nr->streams[i];

	if (!s->has_local || s->pair >= 0)
		return;
	for (size_t k = ep_lower(sv, ns, -1, &s->local); ep_at(sv, ns, k, -1, &s->local); k++) {
		struct netstream *r = &nr->streams[sv[k].idx];
		if ((size_t)sv[k].idx == i || r->pair >= 0 || !ends_meet(s, r))
			continue;
		s->pair = sv[k].idx;
		r->pair = (int)i;
		return;
	}
}

static const struct netrun *sort_nr;

static int cmp_call(const void *a, const void *b)
{
	const struct netcall *x = &sort_nr->calls[*(const size_t *)a];
	const struct netcall *y = &sort_nr->calls[*(const size_t *)b];

	if (x->stream != y->stream)
		return x->stream - y->stream;
	if (x->recv != y->recv)
		return x->recv - y->recv;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int cmp_rcv(const void *a, const void *b)
{
	const struct netedge *x = &sort_nr->edges[*(const size_t *)a];
	const struct netedge *y = &sort_nr->edges[*(const size_t *)b];

	if (x->rcv != y->rcv)
		return x->rcv - y->rcv;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int cmp_first(const void *a, const void *b)
{
	const struct netstream *x = &sort_nr->streams[*(const size_t *)a];
	const struct netstream *y = &sort_nr->streams[*(const size_t *)b];

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static size_t *sorted(size_t n, int (*cmp)(const void *, const void *))
{
	size_t *v = xmalloc((n + 1) * sizeof(size_t));

	for (size_t i = 0; i < n; i++)
		v[i] = i;
	qsort(v, n, sizeof(size_t), cmp);
	return v;
}

/* The data calls of a stream in one direction, as byte ranges. */
static size_t ranges(const struct netrun *nr, int st, bool recv, struct netrange **out)
{
	const size_t *o = nr->call_order;
	size_t lo = 0, hi = nr->ncalls, n = 0;

	while (lo < hi) {            /* the first call of (st, recv) */
		size_t mid = lo + (hi - lo) / 2;
		const struct netcall *c = &nr->calls[o[mid]];
		if (c->stream < st || (c->stream == st && c->recv < recv))
			lo = mid + 1;
		else
			hi = mid;
	}
	*out = xmalloc((nr->ncalls - lo + 1) * sizeof(**out));
	for (size_t i = lo; i < nr->ncalls; i++) {
		const struct netcall *c = &nr->calls[o[i]];
		if (c->stream != st || c->recv != recv)
			break;
		if (!c->opens)
			(*out)[n++] = (struct netrange){ c->off, (uint64_t)c->amount, (int)o[i] };
	}
	return n;
}

/* The direction of stream st's connection that carries its bytes out
 * (out) or in, NULL without packets. */
const struct netdir *net_dir_of(const struct netrun *nr, int st, bool out)
{
	const struct netstream *s = &nr->streams[st];

	if (s->conn < 0)
		return NULL;
	return &nr->conns[s->conn].d[out ? s->dir_out : !s->dir_out];
}

static void add_edge(struct netrun *nr, const struct netedge *e)
{
	XGROW(nr->edges, nr->capedges, nr->nedges + 1);
	nr->edges[nr->nedges++] = *e;
}

struct edgectx {
	struct netrun *nr;
	int snd, rcv;                /* streams */
};

static void on_overlap(void *arg, const struct netrange *s, const struct netrange *r,
		       uint64_t off, uint64_t len)
{
	struct edgectx *c = arg;
	const struct netdir *out = net_dir_of(c->nr, c->snd, true);
	const struct netdir *in = net_dir_of(c->nr, c->rcv, false);
	struct netedge e = { s->id, r->id, len, 0, 0 };

	/* wire time: the first byte leaves the sender, the last reaches the
	 * receiver; each seen where it was captured, else at the other end */
	e.depart = out ? net_byte_time(out, off) : 0;
	if (!e.depart && in)
		e.depart = net_byte_time(in, off);
	e.arrive = in ? net_byte_time(in, off + len - 1) : 0;
	if (!e.arrive && out)
		e.arrive = net_byte_time(out, off + len - 1);
	add_edge(c->nr, &e);
}

static const struct netconn *conn_of(const struct netrun *nr, int st)
{
	int c = nr->streams[st].conn;

	return c >= 0 ? &nr->conns[c] : NULL;
}

/* The connect that began a connection, to the accept that took it: from
 * the SYN leaving to the handshake's last ACK arriving. */
static void open_edge(struct netrun *nr, int cl, int sv)
{
	long cc = nr->streams[cl].open_call, ac = nr->streams[sv].open_call;
	const struct netconn *kc = conn_of(nr, cl), *ks = conn_of(nr, sv);
	struct netedge e = { (int)cc, (int)ac, 0, 0, 0 };

	if (cc < 0 || ac < 0 || nr->calls[cc].recv || !nr->calls[ac].recv)
		return;
	e.depart = kc && kc->syn_t ? kc->syn_t : ks ? ks->syn_t : 0;
	e.arrive = ks && ks->est_t ? ks->est_t : kc ? kc->est_t : 0;
	add_edge(nr, &e);
}

/* Datagrams are not resent: a lost one shifts the receiver's bytes
 * against the sender's. Their edges hold only when every datagram the
 * sender's calls sent was received, as the calls and the pcaps count. */
static bool udp_whole(const struct netrun *nr, int snd, int rcv)
{
	const struct netstream *s = &nr->streams[snd], *r = &nr->streams[rcv];
	const struct netdir *out = net_dir_of(nr, snd, true);
	const struct netdir *in = net_dir_of(nr, rcv, false);

	return s->sent == r->received && (!out || out->high == s->sent) &&
	       (!in || in->high == r->received);
}

static void edges_of(struct netrun *nr, int snd, int rcv)
{
	struct netrange *s, *r;

	if (nr->streams[snd].udp && !udp_whole(nr, snd, rcv)) {
		if (nr->streams[snd].sent || nr->streams[rcv].received)
			warnx("net: UDP from %s to %s: datagrams lost, no message edges",
			      nr->nodes[nr->streams[snd].node].name,
			      nr->nodes[nr->streams[rcv].node].name);
		return;
	}
	size_t ns = ranges(nr, snd, false, &s), nrv = ranges(nr, rcv, true, &r);
	struct edgectx c = { nr, snd, rcv };

	net_overlaps(s, ns, r, nrv, on_overlap, &c);
	free(s);
	free(r);
}

/* Index every connection by both endpoints, every stream by its peer. */
static struct epref *conn_refs(const struct netrun *nr)
{
	struct epref *v = xmalloc((2 * nr->nconns + 1) * sizeof(*v));

	for (size_t c = 0; c < nr->nconns; c++) {
		v[2 * c] = (struct epref){ nr->conns[c].node, nr->conns[c].a, (int)c };
		v[2 * c + 1] = (struct epref){ nr->conns[c].node, nr->conns[c].b, (int)c };
	}
	qsort(v, 2 * nr->nconns, sizeof(*v), cmp_epref);
	return v;
}

static struct epref *stream_refs(const struct netrun *nr)
{
	struct epref *v = xmalloc((nr->nstreams + 1) * sizeof(*v));

	/* node 0 for all: a stream's other end may be on any node */
	for (size_t i = 0; i < nr->nstreams; i++)
		v[i] = (struct epref){ 0, nr->streams[i].peer, (int)i };
	qsort(v, nr->nstreams, sizeof(*v), cmp_epref);
	return v;
}

void net_match(struct netrun *nr)
{
	struct epref *cv = conn_refs(nr), *sv;
	size_t *order;

	sort_nr = nr;
	/* a node's streams take its connections in the order they began */
	order = sorted(nr->nstreams, cmp_first);
	for (int exact = 1; exact >= 0; exact--)
		for (size_t i = 0; i < nr->nstreams; i++)
			stream_conn(nr, (int)order[i], cv, 2 * nr->nconns, exact);
	free(order);
	free(cv);
	sv = stream_refs(nr);
	for (size_t i = 0; i < nr->nstreams; i++)
		stream_pair(nr, i, sv, nr->nstreams);
	free(sv);
	nr->call_order = sorted(nr->ncalls, cmp_call);
	for (size_t i = 0; i < nr->nstreams; i++) {
		int p = nr->streams[i].pair;
		if (p < 0)
			continue;
		open_edge(nr, (int)i, p);
		edges_of(nr, (int)i, p);
	}
	nr->edge_order = sorted(nr->nedges, cmp_rcv);
}
