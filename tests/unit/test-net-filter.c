/* Unit tests of --pcap's exact filter: which packets are the app's
 * sockets' (connected: both endpoints; listening: the opening SYNs;
 * unconnected UDP: the local endpoint), and which are other processes'
 * even on the same port. */
#include "unit.h"
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/packets/netcap_int.h"
#include "util.h"

static struct pkt_ep ep(const char *ip, uint16_t port)
{
	struct pkt_ep e;
	uint8_t v4[4];

	inet_pton(AF_INET, ip, v4);
	pkt_v4(e.ip, v4);
	e.port = port;
	return e;
}

static void add(struct netsocks *s, uint8_t proto, const char *lip, uint16_t lport,
		const char *pip, uint16_t pport)
{
	struct netsock k;

	memset(&k, 0, sizeof(k));
	k.proto = proto;
	k.has_local = 1;
	k.local = ep(lip, lport);
	k.has_peer = pip != NULL;
	if (pip)
		k.peer = ep(pip, pport);
	XGROW(s->v, s->cap, s->n + 1);
	s->v[s->n++] = k;
}

static int match(const struct netsocks *s, uint8_t proto, uint8_t flags, const char *sip,
		 uint16_t sport, const char *dip, uint16_t dport)
{
	struct pkt p;

	memset(&p, 0, sizeof(p));
	p.proto = proto;
	p.flags = flags;
	p.src = ep(sip, sport);
	p.dst = ep(dip, dport);
	return netsocks_match(s, &p);
}

static void test_filter(void)
{
	struct netsocks s = { 0 };

	add(&s, PKT_TCP, "127.0.0.1", 5000, "127.0.0.1", 40000);   /* accepted */
	add(&s, PKT_TCP, "127.0.0.1", 5000, "127.0.0.1", 40000);   /* again */
	add(&s, PKT_TCP, "0.0.0.0", 6000, NULL, 0);                /* listening */
	add(&s, PKT_UDP, "127.0.0.1", 7000, NULL, 0);              /* unconnected */
	add(&s, PKT_TCP, "10.232.0.1", 41000, "10.232.0.2", 80);   /* connected */
	netsocks_index(&s);
	CU_ASSERT_EQUAL(s.n, 4);
	CU_ASSERT_EQUAL(s.nconn, 2);
	/* a connection: both ways, and nothing else on its ports */
	CU_ASSERT(match(&s, PKT_TCP, TCPF_ACK, "127.0.0.1", 40000, "127.0.0.1", 5000));
	CU_ASSERT(match(&s, PKT_TCP, TCPF_ACK, "127.0.0.1", 5000, "127.0.0.1", 40000));
	CU_ASSERT(!match(&s, PKT_TCP, TCPF_ACK, "127.0.0.1", 40001, "127.0.0.1", 5000));
	CU_ASSERT(!match(&s, PKT_TCP, TCPF_ACK, "127.0.0.2", 40000, "127.0.0.2", 5000));
	CU_ASSERT(!match(&s, PKT_UDP, 0, "127.0.0.1", 40000, "127.0.0.1", 5000));
	CU_ASSERT(match(&s, PKT_TCP, TCPF_SYN, "10.232.0.1", 41000, "10.232.0.2", 80));
	CU_ASSERT(!match(&s, PKT_TCP, TCPF_SYN, "10.232.0.3", 41000, "10.232.0.2", 80));
	/* a listener on any address: the SYNs to it, not other traffic */
	CU_ASSERT(match(&s, PKT_TCP, TCPF_SYN, "127.0.0.1", 45000, "127.0.0.1", 6000));
	CU_ASSERT(match(&s, PKT_TCP, TCPF_SYN, "10.1.1.1", 45000, "10.1.1.2", 6000));
	CU_ASSERT(match(&s, PKT_TCP, TCPF_RST | TCPF_ACK, "127.0.0.1", 6000, "127.0.0.1", 45000));
	CU_ASSERT(!match(&s, PKT_TCP, TCPF_SYN | TCPF_ACK, "127.0.0.1", 6000, "127.0.0.1", 45000));
	CU_ASSERT(!match(&s, PKT_TCP, TCPF_ACK, "127.0.0.1", 45000, "127.0.0.1", 6000));
	/* unconnected UDP: to and from its endpoint, that address only */
	CU_ASSERT(match(&s, PKT_UDP, 0, "127.0.0.1", 9999, "127.0.0.1", 7000));
	CU_ASSERT(match(&s, PKT_UDP, 0, "127.0.0.1", 7000, "127.0.0.1", 9999));
	CU_ASSERT(!match(&s, PKT_UDP, 0, "127.0.0.2", 9999, "127.0.0.2", 7000));
	CU_ASSERT(!match(&s, PKT_TCP, TCPF_SYN, "127.0.0.1", 9999, "127.0.0.1", 7000));
	free(s.v);
}

/* Many sockets: the index finds each of them, and no neighbour. */
static void test_many(void)
{
	struct netsocks s = { 0 };
	int ok = 1;

	for (int i = 0; i < 5000; i++)
		add(&s, PKT_TCP, "127.0.0.1", 5000, "127.0.0.1", (uint16_t)(20000 + 2 * i));
	netsocks_index(&s);
	for (int i = 0; i < 5000; i++) {
		ok &= match(&s, PKT_TCP, TCPF_ACK, "127.0.0.1", (uint16_t)(20000 + 2 * i), "127.0.0.1", 5000);
		ok &= !match(&s, PKT_TCP, TCPF_ACK, "127.0.0.1", (uint16_t)(20001 + 2 * i), "127.0.0.1", 5000);
	}
	CU_ASSERT(ok);
	free(s.v);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "whose packets", test_filter },
		{ "many sockets", test_many },
	};

	return unit_main("net-filter", tests, sizeof(tests) / sizeof(tests[0]));
}
