/* Unit tests of the net report's byte arithmetic: sequence numbers to
 * stream offsets (wrap-around, streams past 4 GiB, retransmissions), the
 * segments that carry a range of bytes, the overlaps that make message
 * edges, the link types, and a crafted pcap read back into a connection. */
#include "unit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "net.h"

static void test_unwrap(void)
{
	CU_ASSERT_EQUAL(net_unwrap(0, 1000, 1001), 0);
	CU_ASSERT_EQUAL(net_unwrap(0, 1000, 2001), 1000);
	/* the SYN's own number is before the first byte */
	CU_ASSERT_EQUAL(net_unwrap(0, 1000, 1000), 0);
	/* the sequence number wraps, the offset goes on */
	CU_ASSERT_EQUAL(net_unwrap(0xf0, 0xffffff00u, 0x10), 0x10f);
	/* past 4 GiB */
	CU_ASSERT_EQUAL(net_unwrap(0xfffffff0ull, 0, 0x11), 0x100000010ull);
	CU_ASSERT_EQUAL(net_unwrap(0x100000010ull, 0, 0xfffffff1u), 0xfffffff0ull);
	/* a retransmission behind the last offset */
	CU_ASSERT_EQUAL(net_unwrap(5000, 0, 4001), 4000);
}

static void test_cover(void)
{
	struct netdir d = { 0 };
	int64_t first, last;

	net_seg_add(&d, 0, 100, 10);
	net_seg_add(&d, 100, 100, 20);
	net_seg_add(&d, 50, 100, 30);      /* retransmits 50..149 */
	net_seg_add(&d, 200, 0, 40);       /* a pure ACK carries nothing */
	CU_ASSERT_EQUAL(d.retrans, 1);
	CU_ASSERT_EQUAL(d.high, 200);
	CU_ASSERT(!d.seg[0].retrans && !d.seg[1].retrans && d.seg[2].retrans);
	net_segs_sort(&d);
	CU_ASSERT_EQUAL(d.retrans, 1);
	CU_ASSERT(!d.seg[0].retrans && d.seg[1].retrans && !d.seg[2].retrans);
	CU_ASSERT_EQUAL(d.seg[1].off, 50);
	CU_ASSERT_EQUAL(net_segs_cover(&d, 0, 100, &first, &last), 2);
	CU_ASSERT_EQUAL(first, 10);
	CU_ASSERT_EQUAL(last, 30);
	CU_ASSERT_EQUAL(net_segs_cover(&d, 150, 50, &first, &last), 1);
	CU_ASSERT_EQUAL(first, 20);
	CU_ASSERT_EQUAL(net_segs_cover(&d, 200, 10, &first, &last), 0);
	CU_ASSERT_EQUAL(net_byte_time(&d, 120), 20);
	CU_ASSERT_EQUAL(net_byte_time(&d, 99), 10);
	CU_ASSERT_EQUAL(net_byte_time(&d, 500), 0);
	free(d.seg);
}

/* Captured out of order (two CPUs): a later byte seen first does not make
 * the earlier one a retransmission. */
static void test_reorder(void)
{
	struct netdir d = { 0 };

	net_seg_add(&d, 100, 100, 10);
	net_seg_add(&d, 0, 100, 11);
	net_seg_add(&d, 0, 100, 50);      /* this one is */
	net_segs_sort(&d);
	CU_ASSERT_EQUAL(d.retrans, 1);
	CU_ASSERT(!d.seg[0].retrans && d.seg[1].retrans && !d.seg[2].retrans);
	CU_ASSERT_EQUAL(d.seg[1].t, 50);
	free(d.seg);
}

struct got {
	char buf[256];
	size_t len;
};

static void note(void *arg, const struct netrange *s, const struct netrange *r,
		 uint64_t off, uint64_t len)
{
	struct got *g = arg;

	g->len += (size_t)snprintf(g->buf + g->len, sizeof(g->buf) - g->len,
				   "%d>%d@%llu+%llu ", s->id, r->id,
				   (unsigned long long)off, (unsigned long long)len);
}

static void test_overlaps(void)
{
	/* three sends, two receives: 0-99 | 100-299 | 300-349 vs 0-149 | 150-349 */
	struct netrange s[] = { { 0, 100, 0 }, { 100, 200, 1 }, { 300, 50, 2 } };
	struct netrange r[] = { { 0, 150, 10 }, { 150, 200, 11 } };
	struct got g = { "", 0 };

	net_overlaps(s, 3, r, 2, note, &g);
	CU_ASSERT_STRING_EQUAL(g.buf, "0>10@0+100 1>10@100+50 1>11@150+150 2>11@300+50 ");
	/* one message, one receive: one edge */
	struct netrange s1[] = { { 0, 1000, 0 }, { 1000, 1137, 1 } };
	struct netrange r1[] = { { 0, 1000, 5 }, { 1000, 1137, 6 } };
	g.len = 0;
	g.buf[0] = 0;
	net_overlaps(s1, 2, r1, 2, note, &g);
	CU_ASSERT_STRING_EQUAL(g.buf, "0>5@0+1000 1>6@1000+1137 ");
}

static void test_endpoints(void)
{
	struct pkt_ep e;
	char buf[64];

	CU_ASSERT_EQUAL(net_ep_parse(&e, "10.232.7.2:7000"), 0);
	CU_ASSERT_EQUAL(e.port, 7000);
	CU_ASSERT_STRING_EQUAL(net_ep_fmt(buf, sizeof(buf), &e), "10.232.7.2:7000");
	CU_ASSERT_EQUAL(net_ep_parse(&e, "[::1]:80"), 0);
	CU_ASSERT_STRING_EQUAL(net_ep_fmt(buf, sizeof(buf), &e), "[::1]:80");
	CU_ASSERT_NOT_EQUAL(net_ep_parse(&e, "pipe"), 0);
	CU_ASSERT_NOT_EQUAL(net_ep_parse(&e, "unix:/tmp/s"), 0);
	CU_ASSERT_NOT_EQUAL(net_ep_parse(&e, "1.2.3.4:99999"), 0);
}

/* An IPv4/TCP packet from a.b.c.1:sport to a.b.c.2:dport. */
static size_t tcp4(uint8_t *f, int fwd, uint32_t seq, uint32_t ack, uint8_t flags,
		   uint16_t paylen)
{
	uint16_t tot = (uint16_t)(40 + paylen);

	memset(f, 0, 40 + paylen);
	f[0] = 0x45;
	f[2] = (uint8_t)(tot >> 8);
	f[3] = (uint8_t)tot;
	f[8] = 64;
	f[9] = 6;
	uint8_t a[4] = { 10, 232, 0, 1 }, b[4] = { 10, 232, 0, 2 };
	memcpy(f + 12, fwd ? a : b, 4);
	memcpy(f + 16, fwd ? b : a, 4);
	uint8_t *t = f + 20;
	uint16_t sp = fwd ? 40000 : 7000, dp = fwd ? 7000 : 40000;
	t[0] = (uint8_t)(sp >> 8), t[1] = (uint8_t)sp;
	t[2] = (uint8_t)(dp >> 8), t[3] = (uint8_t)dp;
	for (int i = 0; i < 4; i++) {
		t[4 + i] = (uint8_t)(seq >> (24 - 8 * i));
		t[8 + i] = (uint8_t)(ack >> (24 - 8 * i));
	}
	t[12] = 5 << 4;
	t[13] = flags;
	return 40 + paylen;
}

static void test_pcap(void)
{
	/* the client's ISN just below 2^32: its bytes cross the wrap */
	const uint32_t ci = 0xfffffe00u, si = 5000;
	char path[] = "/tmp/test-net-XXXXXX";
	int fd = mkstemp(path);
	pcap_t *dead = pcap_open_dead_with_tstamp_precision(DLT_RAW, 65535,
							    PCAP_TSTAMP_PRECISION_NANO);
	pcap_dumper_t *dump;
	uint8_t f[2000];
	struct {
		int fwd;
		uint32_t seq, ack;
		uint8_t flags;
		uint16_t len;
		long t;
	} pk[] = {
		{ 1, ci, 0, TCPF_SYN, 0, 1000 },
		{ 0, si, ci + 1, TCPF_SYN | TCPF_ACK, 0, 1100 },
		{ 1, ci + 1, si + 1, TCPF_ACK, 0, 1200 },
		{ 1, ci + 1, si + 1, TCPF_ACK, 1000, 2000 },
		{ 1, ci + 1001, si + 1, TCPF_ACK, 1000, 2100 },    /* wraps */
		{ 0, si + 1, ci + 1001, TCPF_ACK, 0, 2150 },
		{ 1, ci + 1001, si + 1, TCPF_ACK, 1000, 2500 },    /* again */
		{ 0, si + 1, ci + 2001, TCPF_ACK, 300, 2600 },
		{ 1, ci + 2001, si + 301, TCPF_FIN | TCPF_ACK, 0, 3000 },
		{ 0, si + 301, ci + 2002, TCPF_FIN | TCPF_ACK, 0, 3100 },
		{ 1, ci + 2002, si + 302, TCPF_ACK, 0, 3200 },
	};

	CU_ASSERT_FATAL(fd >= 0 && dead != NULL);
	close(fd);
	dump = pcap_dump_open(dead, path);
	CU_ASSERT_FATAL(dump != NULL);
	for (size_t i = 0; i < sizeof(pk) / sizeof(pk[0]); i++) {
		struct pcap_pkthdr h = { .ts = { 100, pk[i].t } };
		h.caplen = h.len = (bpf_u_int32)tcp4(f, pk[i].fwd, pk[i].seq, pk[i].ack,
						     pk[i].flags, pk[i].len);
		pcap_dump((u_char *)dump, &h, f);
	}
	pcap_dump_close(dump);
	pcap_close(dead);

	struct netrun nr;
	memset(&nr, 0, sizeof(nr));
	XGROW(nr.nodes, nr.capnodes, 1);
	memset(nr.nodes, 0, sizeof(*nr.nodes));
	nr.nodes[0].name = "n";
	nr.nodes[0].pcap = path;
	nr.nnodes = 1;
	net_read_pcap(&nr, 0);
	unlink(path);
	CU_ASSERT_FATAL(nr.nconns == 1);
	struct netconn *c = &nr.conns[0];
	char a[64];
	CU_ASSERT_STRING_EQUAL(net_ep_fmt(a, sizeof(a), &c->a), "10.232.0.1:40000");
	CU_ASSERT_EQUAL(c->d[0].high, 2000);
	CU_ASSERT_EQUAL(c->d[1].high, 300);
	CU_ASSERT_EQUAL(c->d[0].retrans, 1);
	CU_ASSERT_EQUAL(c->d[0].pkts, 7);
	CU_ASSERT_EQUAL(c->d[1].pkts, 4);
	CU_ASSERT_EQUAL(c->syn_t, 100 * NS + 1000);
	CU_ASSERT_EQUAL(c->est_t - c->syn_t, 200);
	/* the second 1000 bytes: sent at 2100, again at 2500 */
	int64_t first, last;
	CU_ASSERT_EQUAL(net_segs_cover(&c->d[0], 1000, 1000, &first, &last), 2);
	CU_ASSERT_EQUAL(first - 100 * NS, 2100);
	CU_ASSERT_EQUAL(last - 100 * NS, 2500);
	/* round trip: the first segment's ACK; none for the retransmitted */
	CU_ASSERT_EQUAL(c->d[0].rtt_n, 1);
	CU_ASSERT_EQUAL(c->d[0].rtt_min, 150);
	CU_ASSERT_EQUAL(c->end_t - c->d[0].fin_t, 200);
	for (int k = 0; k < 2; k++) {
		free(c->d[k].seg);
		free(c->d[k].wait);
	}
	free(nr.conns);
	free(nr.nodes);
}

static void test_split(void)
{
	struct netnode node = { .name = "n", .epoch = 1000 };
	struct netcall calls[] = {
		{ .node = 0, .start = 0, .end = 100, .recv = true },
		{ .node = 0, .start = 50, .end = 60, .recv = true },
		{ .node = 0, .start = 0, .end = 10, .recv = true },
	};
	/* call 0 gets two edges: first byte leaves at 1020, last in at 1070;
	 * call 1's bytes arrived before it was called; call 2's were never seen */
	struct netedge edges[] = {
		{ .snd = 9, .rcv = 0, .depart = 1030, .arrive = 1040 },
		{ .snd = 9, .rcv = 0, .depart = 1020, .arrive = 1070 },
		{ .snd = 9, .rcv = 1, .depart = 1010, .arrive = 1020 },
		{ .snd = 9, .rcv = 2, .depart = 0, .arrive = 0 },
	};
	size_t by_rcv[] = { 0, 1, 2, 3 };
	struct netrun nr = { .nodes = &node, .nnodes = 1, .calls = calls, .ncalls = 3,
			     .edges = edges, .nedges = 4, .edge_order = by_rcv };
	int64_t p[3];

	CU_ASSERT_FATAL(net_recv_split(&nr, 0, p));
	CU_ASSERT(p[0] == 20 && p[1] == 50 && p[2] == 30);
	CU_ASSERT_FATAL(net_recv_split(&nr, 1, p));
	CU_ASSERT(p[0] == 0 && p[1] == 0 && p[2] == 10);
	CU_ASSERT(!net_recv_split(&nr, 2, p));
}

static void test_links(void)
{
	uint8_t ip[60], fr[100];
	struct pkt p;
	size_t n = tcp4(ip, 1, 7, 0, TCPF_SYN, 0);
	static const struct { int dlt; size_t hdr; int type_at; } links[] = {
		{ 1, 14, 12 }, { 113, 16, 14 }, { 276, 20, 0 }, { 12, 0, -1 },
	};

	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		memset(fr, 0, sizeof(fr));
		if (links[i].type_at >= 0)
			fr[links[i].type_at] = 0x08;     /* IPv4 */
		memcpy(fr + links[i].hdr, ip, n);
		CU_ASSERT_EQUAL(pkt_parse(links[i].dlt, fr, (uint32_t)(links[i].hdr + n), &p), 0);
		CU_ASSERT_EQUAL(p.src.port, 40000);
		CU_ASSERT_EQUAL(p.dst.port, 7000);
		CU_ASSERT_EQUAL(p.flags, TCPF_SYN);
		CU_ASSERT_EQUAL(p.seq, 7);
	}
	/* ARP on Ethernet, a truncated frame: not TCP/UDP */
	memset(fr, 0, sizeof(fr));
	fr[12] = 0x08, fr[13] = 0x06;
	CU_ASSERT_NOT_EQUAL(pkt_parse(1, fr, 60, &p), 0);
	CU_ASSERT_NOT_EQUAL(pkt_parse(12, ip, 30, &p), 0);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "sequence numbers to offsets", test_unwrap },
		{ "segments covering bytes", test_cover },
		{ "reordered capture", test_reorder },
		{ "overlaps of calls", test_overlaps },
		{ "endpoints", test_endpoints },
		{ "link types", test_links },
		{ "a crafted pcap", test_pcap },
		{ "a recv's time split", test_split },
	};

	return unit_main("net", tests, sizeof(tests) / sizeof(tests[0]));
}
