/*
 * net: the packets beside the calls (island-capture --pcap). Three tables:
 * the TCP connections and UDP flows in each node's pcap (packets and
 * bytes each way, with the bytes of the traced calls beside them,
 * retransmissions, handshake and teardown times, the round trip seen from
 * that node); each traced send and recv with the packets that carried its
 * bytes (and a receive's time split by their journey); and the message
 * edges, sender's call -> receiver's call, with the wire time.
 * Holds the data calls and the segments of the packets in memory.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"
#include "mpideps.h"

/* A node whose pcap holds connections, none of them its trace's: the
 * packets of another run (a pcap replaced, or named wrongly), said once,
 * not reported as connections nobody made. */
static void check_pcaps(const struct netrun *nr)
{
	for (size_t n = 0; n < nr->nnodes; n++) {
		size_t conns = 0, streams = 0, met = 0;
		if (!nr->nodes[n].pcap)
			continue;
		for (size_t i = 0; i < nr->nconns; i++)
			conns += (size_t)nr->conns[i].node == n;
		for (size_t i = 0; i < nr->nstreams; i++) {
			const struct netstream *s = &nr->streams[i];
			if ((size_t)s->node != n || !(s->sent || s->received))
				continue;
			streams++;
			met += s->conn >= 0;
		}
		if (conns && streams && !met)
			warnx("%s: node %s: none of its %zu connection(s) with bytes is in its packets (%s): the pcap of another run?",
			      nr->nodes[n].file, nr->nodes[n].name, streams, nr->nodes[n].pcap);
	}
}

void net_collect(struct netrun *nr, char **files, int nfiles)
{
	memset(nr, 0, sizeof(*nr));
	net_read_traces(nr, files, nfiles);
	net_match(nr);
	check_pcaps(nr);
}

void net_free(struct netrun *nr)
{
	for (size_t i = 0; i < nr->nconns; i++)
		for (int k = 0; k < 2; k++) {
			free(nr->conns[i].d[k].seg);
			free(nr->conns[i].d[k].wait);
		}
	for (size_t i = 0; i < nr->nnodes; i++)
		free(nr->nodes[i].pcap);
	free(nr->nodes);
	free(nr->conns);
	free(nr->calls);
	free(nr->streams);
	free(nr->edges);
	free(nr->ctab);
	netfds_free(&nr->fds);
	free(nr->call_order);
	free(nr->edge_order);
	run_free(&nr->run);
}

/* A pcap time on the run's time axis. */
static int64_t wire_t(const struct netrun *nr, int64_t t)
{
	return t - nr->run.epoch0;
}

static int64_t node_t(const struct netrun *nr, int node, int64_t t)
{
	return t + nr->nodes[node].off;
}

/* A packet does not arrive before it left: a negative difference is the
 * jitter of two captures' timestamps (both ends on one host), shown as 0. */
int64_t net_wire(const struct netedge *e)
{
	return e->arrive > e->depart ? e->arrive - e->depart : 0;
}

static void add_secs(struct table *t, int64_t ns, bool known)
{
	char buf[32];

	if (known)
		table_add(t, fmt_secs(buf, sizeof(buf), ns));
	else
		table_none(t, "-");
}

/* Its three tables; c2s: client to server, s2c: back. */
static const struct coldef conn_cols[] = {
	{ "node", COL_TEXT, 0 }, { "proto", COL_TEXT, 0 }, { "client", COL_TEXT, 0 },
	{ "server", COL_TEXT, 0 }, { "pkts_c2s", COL_INT, 0 }, { "bytes_c2s", COL_INT, 0 },
	{ "call_bytes_c2s", COL_INT, 0 }, { "pkts_s2c", COL_INT, 0 }, { "bytes_s2c", COL_INT, 0 },
	{ "call_bytes_s2c", COL_INT, 0 }, { "retrans", COL_INT, 0 }, { "handshake", COL_SECS, 0 },
	{ "teardown", COL_SECS, 0 }, { "rtt", COL_SECS, 0 },
};
static const struct coldef call_cols[] = {
	{ "node", COL_TEXT, 0 }, { "io", COL_INT, 0 }, { "api", COL_TEXT, 0 }, { "peer", COL_TEXT, 0 },
	{ "offset", COL_INT, 0 }, { "bytes", COL_INT, 0 }, { "packets", COL_INT, 0 },
	{ "first", COL_SECS, 0 }, { "last", COL_SECS, 0 }, { "waited", COL_SECS, 0 },
	{ "wire", COL_SECS, 0 }, { "after", COL_SECS, 0 },
};
static const struct coldef edge_cols[] = {
	{ "from_node", COL_TEXT, 0 }, { "from_io", COL_INT, 0 }, { "from_api", COL_TEXT, 0 },
	{ "bytes", COL_INT, 0 }, { "to_node", COL_TEXT, 0 }, { "to_io", COL_INT, 0 },
	{ "to_api", COL_TEXT, 0 }, { "sent", COL_SECS, 0 }, { "departed", COL_SECS, 0 },
	{ "arrived", COL_SECS, 0 }, { "received", COL_SECS, 0 }, { "wire", COL_SECS, 0 },
};
static const struct coldef mpi_cols[] = {
	{ "from_node", COL_TEXT, 0 }, { "from_io", COL_INT, 0 }, { "from_api", COL_TEXT, 0 },
	{ "bytes", COL_INT, 0 }, { "to_node", COL_TEXT, 0 }, { "to_io", COL_INT, 0 },
	{ "to_api", COL_TEXT, 0 }, { "sent", COL_SECS, 0 }, { "received", COL_SECS, 0 },
};
const struct tabledef net_tables[] = {
	TABLEDEF("connections", conn_cols), TABLEDEF("calls", call_cols),
	TABLEDEF("messages", edge_cols),
	TABLEDEF_NEEDS("mpi", mpi_cols, "traces of MPI ranks with the MPI level (level=\"mpi\")"),
	{ NULL },
};

/* Bytes the stream's calls moved in direction dir of its connection. */
static int64_t call_bytes(const struct netrun *nr, int st, int dir)
{
	const struct netstream *s = &nr->streams[st];

	return (int64_t)(dir == s->dir_out ? s->sent : s->received);
}

/* The round trip as this node saw it: its side of the handshake, and its
 * data to the peer's ACKs; the smallest sample. */
static int64_t conn_rtt(const struct netconn *k, int out)
{
	int64_t hs = 0, best;

	if (out == 0 && k->syn_t && k->synack_t)
		hs = k->synack_t - k->syn_t;
	else if (out == 1 && k->synack_t && k->est_t)
		hs = k->est_t - k->synack_t;
	best = hs;
	if (k->d[out].rtt_n && (!best || k->d[out].rtt_min < best))
		best = k->d[out].rtt_min;
	return best;
}

static void conn_row(struct table *t, const struct netrun *nr, size_t c)
{
	const struct netconn *k = &nr->conns[c];
	int st = k->stream[0] >= 0 ? k->stream[0] : k->stream[1];
	int out = st >= 0 ? nr->streams[st].dir_out : 0;
	char a[64], b[64];
	int64_t fin = k->d[0].fin_t && (!k->d[1].fin_t || k->d[0].fin_t < k->d[1].fin_t) ?
		      k->d[0].fin_t : k->d[1].fin_t;

	table_add(t, nr->nodes[k->node].name);
	table_add(t, k->udp ? "udp" : "tcp");
	table_add(t, net_ep_fmt(a, sizeof(a), &k->a));
	table_add(t, net_ep_fmt(b, sizeof(b), &k->b));
	for (int d = 0; d < 2; d++) {
		table_addf(t, "%" PRId64, k->d[d].pkts);
		table_addf(t, "%" PRIu64, k->d[d].high);
		if (st >= 0)
			table_addf(t, "%" PRId64, call_bytes(nr, st, d));
		else
			table_none(t, "-");
	}
	table_addf(t, "%" PRId64, k->d[0].retrans + k->d[1].retrans);
	add_secs(t, k->est_t - k->syn_t, k->syn_t && k->est_t);
	add_secs(t, k->end_t - fin, fin != 0);
	int64_t rtt = conn_rtt(k, out);
	add_secs(t, rtt, rtt > 0);
}

static void print_conns(const struct netrun *nr)
{
	struct table *t = table_new(&net_tables[0]);

	for (size_t c = 0; c < nr->nconns; c++)
		conn_row(t, nr, c);
	table_emit(t);
}

/* The direction of a connection that carried a call's bytes: in its
 * node's pcap, else in its peer's (-1: none). */
static const struct netdir *call_dir(const struct netrun *nr, const struct netcall *c)
{
	const struct netdir *d = net_dir_of(nr, c->stream, !c->recv);
	int pair = nr->streams[c->stream].pair;

	if (!d && pair >= 0)         /* the peer's: its other direction */
		d = net_dir_of(nr, pair, c->recv);
	return d;
}

static void print_calls(const struct netrun *nr)
{
	struct table *t = table_new(&net_tables[1]);
	char p[64];

	for (size_t i = 0; i < nr->ncalls; i++) {
		const struct netcall *c = &nr->calls[i];
		const struct netdir *d = call_dir(nr, c);
		int64_t first = 0, last = 0, part[3];
		size_t n = 0;

		if (c->opens)
			continue;
		if (d)
			n = net_segs_cover(d, c->off, (uint64_t)c->amount, &first, &last);
		table_add(t, nr->nodes[c->node].name);
		table_addf(t, "%" PRIu64, c->seq);
		table_add(t, c->api);
		table_add(t, net_ep_fmt(p, sizeof(p), &nr->streams[c->stream].peer));
		table_addf(t, "%" PRIu64, c->off);
		table_addf(t, "%" PRId64, c->amount);
		if (d)
			table_addf(t, "%zu", n);
		else
			table_none(t, "-");
		add_secs(t, wire_t(nr, first), n > 0);
		add_secs(t, wire_t(nr, last), n > 0);
		/* a receive's time: before the peer sent, on the wire, after */
		bool split = c->recv && net_recv_split(nr, i, part);
		for (int k = 0; k < 3; k++)
			add_secs(t, split ? part[k] : 0, split);
	}
	table_emit(t);
}

static void net_print_edges(const struct netrun *nr)
{
	struct table *t = table_new(&net_tables[2]);

	for (size_t i = 0; i < nr->nedges; i++) {
		const struct netedge *e = &nr->edges[i];
		const struct netcall *s = &nr->calls[e->snd], *r = &nr->calls[e->rcv];
		table_add(t, nr->nodes[s->node].name);
		table_addf(t, "%" PRIu64, s->seq);
		table_add(t, s->api);
		table_addf(t, "%" PRIu64, e->bytes);
		table_add(t, nr->nodes[r->node].name);
		table_addf(t, "%" PRIu64, r->seq);
		table_add(t, r->api);
		add_secs(t, node_t(nr, s->node, s->end), true);
		add_secs(t, wire_t(nr, e->depart), e->depart != 0);
		add_secs(t, wire_t(nr, e->arrive), e->arrive != 0);
		add_secs(t, node_t(nr, r->node, r->end), true);
		add_secs(t, net_wire(e), e->depart && e->arrive);
	}
	table_emit(t);
}

/* A receive's time split by its bytes' journey: waiting before the peer
 * sent them (to the first byte's departure), on the wire (to the last
 * byte's arrival), after they arrived. Each part is clipped to the call;
 * the three add up to its duration. False when no edge brings it bytes
 * with both times known. */
bool net_recv_split(const struct netrun *nr, size_t call, int64_t part[3])
{
	const struct netcall *c = &nr->calls[call];
	int64_t ep = nr->nodes[c->node].epoch, a = ep + c->start, b = ep + c->end;
	int64_t dep = 0, arr = 0;
	size_t lo = 0, hi = nr->nedges;

	while (lo < hi) {            /* the first edge into the call */
		size_t mid = lo + (hi - lo) / 2;
		if ((size_t)nr->edges[nr->edge_order[mid]].rcv < call)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < nr->nedges; i++) {
		const struct netedge *e = &nr->edges[nr->edge_order[i]];
		if ((size_t)e->rcv != call)
			break;
		if (!e->depart || !e->arrive)
			continue;
		if (!dep || e->depart < dep)
			dep = e->depart;
		if (e->arrive > arr)
			arr = e->arrive;
	}
	if (!dep)
		return false;
	dep = dep < a ? a : dep > b ? b : dep;
	arr = arr < dep ? dep : arr > b ? b : arr;
	part[0] = dep - a;
	part[1] = arr - dep;
	part[2] = b - arr;
	return true;
}

/* The MPI level's messages (mpideps.c), whatever carried them (shared
 * memory has no call of its own): sender's call -> receiver's, their
 * calls numbered among the node's MPI calls as deps --from mpi numbers
 * them. */
static void print_mpi(char **argv, int argc)
{
	struct table *t = table_new(&net_tables[3]);
	struct mpi_deps m;
	char buf[32];

	mpi_deps_read(&m, argv, argc);
	size_t *n = xcalloc(m.nnodes + 1, sizeof(*n)), **by = xcalloc(m.nnodes + 1, sizeof(*by));
	for (size_t i = 0; i < m.ncalls; i++)
		n[m.calls[i].node]++;
	for (size_t k = 0; k < m.nnodes; k++) {
		by[k] = xcalloc(n[k] + 1, sizeof(**by));
		n[k] = 0;
	}
	for (size_t i = 0; i < m.ncalls; i++)	/* seqs from 1, in order */
		by[m.calls[i].node][n[m.calls[i].node]++] = i;
	for (size_t i = 0; i < m.ne; i++) {
		const struct mpi_edge *e = &m.e[i];
		if (!e->message || e->tseq < 1 || e->tseq > n[e->t] || e->xseq < 1 ||
		    e->xseq > n[e->x])
			continue;
		const struct mpi_call *s = &m.calls[by[e->t][e->tseq - 1]];
		const struct mpi_call *r = &m.calls[by[e->x][e->xseq - 1]];
		table_add(t, m.nodes[e->t].name);
		table_addf(t, "%" PRIu64, e->tseq);
		table_add(t, s->api);
		if (s->amount >= 0)
			table_addf(t, "%" PRId64, s->amount);
		else
			table_none(t, "-");
		table_add(t, m.nodes[e->x].name);
		table_addf(t, "%" PRIu64, e->xseq);
		table_add(t, r->api);
		table_add(t, fmt_secs(buf, sizeof(buf), s->end + m.nodes[e->t].off));
		table_add(t, fmt_secs(buf, sizeof(buf), r->end + m.nodes[e->x].off));
	}
	table_emit(t);
	for (size_t k = 0; k < m.nnodes; k++)
		free(by[k]);
	free(by);
	free(n);
	mpi_deps_free(&m);
}

int report_net(int argc, char **argv)
{
	struct netrun nr;
	bool any = false;

	net_collect(&nr, argv, argc);
	for (size_t i = 0; i < nr.nnodes; i++)
		any |= nr.nodes[i].pcap != NULL;
	if (!any)
		warnx("net: no node has packets (capture with --pcap); calls and edges only");
	print_conns(&nr);
	print_calls(&nr);
	net_print_edges(&nr);
	bool mpi = false;
	for (size_t i = 0; i < nr.run.nnodes; i++)
		mpi |= nr.run.nodes[i]->mpi_rank >= 0;
	if (mpi)
		print_mpi(argv, argc);
	net_free(&nr);
	return 0;
}
