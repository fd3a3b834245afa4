/*
 * The app's sockets for --pcap's filter, from the spool: every record
 * that carries a struct sockinfo (socket, bind, connect, accept, inherited
 * descriptors) names a local and maybe a peer endpoint. A UDP socket the
 * app never bound has no port in any record: its first sendto or sendmsg
 * is kept, to find the port on the wire (netcap_filter.c).
 */
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "netcap_int.h"
#include "util.h"

/* The records that carry a struct sockinfo (spool.h; sendto and
 * sendmsg carry the destination's raw address only). */
static const int sock_calls[] = { C_SOCKET, C_BIND, C_CONNECT, C_ACCEPT };

static int carries_sockinfo(const struct rec *r)
{
	if (REC_PAYLOAD_LEN(r) < sizeof(struct sockinfo))
		return 0;
	if (r->call == REC_FDINFO)
		return r->a1 == FDK_SOCKET;
	for (size_t i = 0; i < sizeof(sock_calls) / sizeof(sock_calls[0]); i++)
		if (r->call == sock_calls[i])
			return 1;
	return 0;
}

void netsocks_add(struct netsocks *s, const struct netsock *k)
{
	XGROW(s->v, s->cap, s->n + 1);
	s->v[s->n++] = *k;
}

static void add_sock(struct netsocks *s, const struct sockinfo *si)
{
	struct netsock ns;

	memset(&ns, 0, sizeof(ns));     /* compared whole, padding included */
	if (si->type != SOCK_STREAM && si->type != SOCK_DGRAM)
		return;
	ns.proto = si->type == SOCK_STREAM ? PKT_TCP : PKT_UDP;
	ns.has_local = si->llen && pkt_ep_of(&ns.local, &si->local) && ns.local.port;
	ns.has_peer = si->plen && pkt_ep_of(&ns.peer, &si->peer) && ns.peer.port;
	if (ns.has_local)            /* else nothing on the wire yet */
		netsocks_add(s, &ns);
}

/* What a process's descriptor was from a record on, for the sends on it:
 * an IP datagram socket with no port yet, or something else. */
struct fdstate {
	int fd;
	uint64_t t;                  /* spool units */
	int unbound_udp;
};

/* A sendto or sendmsg naming its destination. */
struct rawsend {
	int fd;
	uint64_t t;
	struct udpsend u;
};

struct loader {
	struct netsocks *s;
	const struct clockmap *clk;
	struct fdstate *fds;         /* of the process being read */
	size_t nfds, capfds;
	struct rawsend *rs;
	size_t nrs, caprs;
	struct udpsend *us;          /* the result */
	size_t nus, capus;
};

static void note_fd(struct loader *l, const struct rec *r, const struct sockinfo *si)
{
	int fd = r->fd;              /* socket, accept: the new descriptor */
	int ip = si->domain == AF_INET || si->domain == AF_INET6;
	struct pkt_ep e;

	XGROW(l->fds, l->capfds, l->nfds + 1);
	l->fds[l->nfds++] = (struct fdstate){ fd, r->t0,
		ip && si->type == SOCK_DGRAM &&
		!(si->llen && pkt_ep_of(&e, &si->local) && e.port) };
}

static void note_send(struct loader *l, const struct rec *r)
{
	struct sockaddr_storage ss;
	size_t n = REC_PAYLOAD_LEN(r);
	struct rawsend x = { .fd = r->fd, .t = r->t0 };

	if (r->ret <= 0 || !n)
		return;
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, REC_PAYLOAD(r), n < sizeof(ss) ? n : sizeof(ss));
	if (!pkt_ep_of(&x.u.dst, &ss))
		return;
	x.u.len = (uint32_t)r->ret;
	x.u.t0 = l->clk->real0 + clock_ns(l->clk, r->t0);
	x.u.t1 = l->clk->real0 + clock_ns(l->clk, r->t1);
	XGROW(l->rs, l->caprs, l->nrs + 1);
	l->rs[l->nrs++] = x;
}

static void load_thread(struct loader *l, struct thr *t)
{
	struct rec_iter it;
	struct rec *r;

	rec_iter_init(&it, t);
	while ((r = rec_next(&it))) {
		if (carries_sockinfo(r)) {
			struct sockinfo si;
			memcpy(&si, REC_PAYLOAD(r), sizeof(si));
			add_sock(l->s, &si);
			if (!r->err)
				note_fd(l, r, &si);
		} else if ((r->call == C_SENDTO || r->call == C_SENDMSG) && !r->err) {
			note_send(l, r);
		}
	}
}

/* The record that last said what fd was before time t. */
static const struct fdstate *fd_at(const struct loader *l, int fd, uint64_t t)
{
	const struct fdstate *best = NULL;

	for (size_t j = 0; j < l->nfds; j++)
		if (l->fds[j].fd == fd && l->fds[j].t <= t && (!best || l->fds[j].t > best->t))
			best = &l->fds[j];
	return best;
}

/* Of a process's sends, the first of each implicitly bound UDP socket. */
static void keep_unbound(struct loader *l)
{
	const struct fdstate **seen = xcalloc(l->nrs + 1, sizeof(*seen));
	size_t nseen = 0;

	for (size_t i = 0; i < l->nrs; i++) {
		const struct fdstate *f = fd_at(l, l->rs[i].fd, l->rs[i].t);
		int dup = 0;
		if (!f || !f->unbound_udp)
			continue;
		for (size_t j = 0; j < nseen && !dup; j++)
			dup = seen[j] == f;
		if (dup)
			continue;
		seen[nseen++] = f;
		XGROW(l->us, l->capus, l->nus + 1);
		l->us[l->nus++] = l->rs[i].u;
	}
	free(seen);
}

static int cmp_rawsend(const void *a, const void *b)
{
	const struct rawsend *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

void netsocks_load(struct netsocks *s, const char *spool, const struct clockmap *clk,
		   struct udpsend **us, size_t *nus)
{
	struct cap_node n = { 0 };
	struct loader l = { .s = s, .clk = clk };

	if (spool_load(&n, spool) == 0) {
		for (int i = 0; i < n.nprocs; i++) {
			l.nfds = l.nrs = 0;      /* descriptors are per process */
			for (int j = 0; j < n.procs[i].nthr; j++)
				load_thread(&l, &n.procs[i].thr[j]);
			if (l.nrs)  /* qsort(NULL, 0) is undefined (UBSan) */
				qsort(l.rs, l.nrs, sizeof(*l.rs), cmp_rawsend);
			keep_unbound(&l);
		}
		spool_unload(&n);
	}
	free(l.fds);
	free(l.rs);
	*us = l.us;
	*nus = l.nus;
}
