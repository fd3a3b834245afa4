/* Unit tests of the peer split of island-analyze's consumption: a receive
 * is blocked until the peer's send, stopped after it where a stop of its
 * node covers it, netrecv otherwise; without the peer's trace, or when the
 * connection is ambiguous, all of it is blocked (docs/restrictions.md). */
#include "unit.h"
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

#define S(x) ((int64_t)((x) * 1e9 + 0.5))

/* Node r receives on 10.0.0.1:5000 from node s, 10.0.0.2:40002, whose
 * clock starts 0.5 s later: s-time t is r-time t + 0.5. */
static struct trace_node r = { .name = "r", .index = 0, .epoch = S(1000) };
static struct trace_node s = { .name = "s", .index = 1, .epoch = S(1000.5) };
static struct trace_stop r_stops[] = { { S(1), S(2) } };

static struct peers *pair(void)
{
	struct peers *p = peers_new();
	struct trace_socket rs = { .proto = "tcp", .local = "10.0.0.1:5000", .peer = "10.0.0.2:40002" };
	struct trace_socket ss = { .proto = "tcp", .local = "10.0.0.2:40002", .peer = "10.0.0.1:5000" };
	struct trace_io send = { .api = "send", .res = TRACE_RES_NETSEND, .peer = "10.0.0.1:5000",
			   .amount = 10, .has_amount = true };

	peers_socket(p, &r, &rs);
	peers_socket(p, &s, &ss);
	send.start = S(0.6);
	send.end = S(0.7);
	peers_send(p, &s, &send);		/* r-time 1.2 */
	send.start = S(2.4);
	send.end = S(2.6);
	send.throttle = S(0.1);
	send.has_throttle = true;
	peers_send(p, &s, &send);		/* left at 2.5: r-time 3.0 */
	return p;
}

/* Account one call of a thread of r living [0, 4] s; returns the walk. */
static struct thread_walk one(struct peers *p, const struct trace_io *io)
{
	struct trace_thread t = { .node = &r, .start = 0, .end = S(4) };
	struct thread_walk w = { .peers = p };

	walk_thread(&w, &t);
	walk_io(&w, &t, io);
	walk_end(&w, &t);
	return w;
}

static void check_sum(const struct thread_walk *w)
{
	int64_t sum = 0;

	for (int c = 0; c < CAT_N; c++)
		sum += w->acct.cat[c];
	CU_ASSERT_EQUAL(sum, S(4));
}

static void test_sent(void)
{
	struct peers *p = pair();
	int64_t t = 0;

	CU_ASSERT_TRUE(peers_paired(p));
	CU_ASSERT_TRUE(peers_sent(p, &r, "10.0.0.2:40002", S(1.5), &t));
	CU_ASSERT_EQUAL(t, S(1.2));
	CU_ASSERT_TRUE(peers_sent(p, &r, "10.0.0.2:40002", S(3.0), &t));
	CU_ASSERT_EQUAL(t, S(3.0));		/* a send at the return counts */
	CU_ASSERT_FALSE(peers_sent(p, &r, "10.0.0.2:40002", S(1.05), &t));
	/* begun at 1.1, returned at 1.2: the data came by the return */
	CU_ASSERT_TRUE(peers_sent(p, &r, "10.0.0.2:40002", S(1.15), &t));
	CU_ASSERT_EQUAL(t, S(1.15));
	CU_ASSERT_FALSE(peers_sent(p, &r, "10.0.0.9:40002", S(3.5), &t));
	CU_ASSERT_FALSE(peers_sent(p, &r, "pipe", S(3.5), &t));
	peers_free(p);
}

/* Data sent at 1.2 s, inside r's stop [1, 2]: the recv [0.5, 1.5] waited
 * 0.7 s on the peer and was kept 0.3 s from returning by the stop. */
static void test_split(void)
{
	struct peers *p = pair();
	struct trace_io rv = { .api = "recv", .res = TRACE_RES_NETRECV, .peer = "10.0.0.2:40002",
			 .start = S(0.5), .end = S(1.5), .amount = 10, .has_amount = true };
	struct thread_walk w;

	r.stops = r_stops;
	r.nstops = 1;
	w = one(p, &rv);
	CU_ASSERT_EQUAL(w.acct.cat[CAT_BLOCKED], S(0.7));
	CU_ASSERT_EQUAL(w.acct.cat[CAT_STOPPED], S(0.3) + S(0.5));	/* + compute 1.5-2 */
	CU_ASSERT_EQUAL(w.acct.cat[CAT_NETRECV], 0);
	check_sum(&w);

	/* without the peer's trace: all of it blocked */
	w = one(NULL, &rv);
	CU_ASSERT_EQUAL(w.acct.cat[CAT_BLOCKED], S(1));
	CU_ASSERT_EQUAL(w.acct.cat[CAT_STOPPED], S(0.5));
	check_sum(&w);

	/* a wait that names the socket splits alike, blocked after the send */
	rv.api = "poll";
	rv.res = TRACE_RES_WAIT;
	w = one(p, &rv);
	CU_ASSERT_EQUAL(w.acct.cat[CAT_BLOCKED], S(0.7));
	CU_ASSERT_EQUAL(w.acct.cat[CAT_STOPPED], S(0.8));
	check_sum(&w);
	r.nstops = 0;
	peers_free(p);
}

/* The clocks of two nodes agree only so far: a recv [2, 2.95] returned
 * before the send that fed it (begun 2.9) returned (3.0). It waited for
 * that send, not for the first one: all blocked, though the stop [2.2,
 * 2.6] lies after the first send. */
static void test_skew(void)
{
	struct peers *p = pair();
	struct trace_stop st[] = { { S(2.2), S(2.6) } };
	struct trace_io rv = { .api = "recv", .res = TRACE_RES_NETRECV, .peer = "10.0.0.2:40002",
			 .start = S(2), .end = S(2.95), .amount = 10, .has_amount = true };
	struct thread_walk w;

	r.stops = st;
	r.nstops = 1;
	w = one(p, &rv);
	CU_ASSERT_EQUAL(w.acct.cat[CAT_BLOCKED], S(0.95));
	CU_ASSERT_EQUAL(w.acct.cat[CAT_STOPPED], 0);
	check_sum(&w);
	r.nstops = 0;
	peers_free(p);
}

/* recv [2.5, 3.5] held 0.2 s by a netrecv limit: blocked until the send
 * at 3.0, then 0.3 s of transfer and the hold, no stop: netrecv. */
static void test_hold(void)
{
	struct peers *p = pair();
	struct trace_io rv = { .api = "recv", .res = TRACE_RES_NETRECV, .peer = "10.0.0.2:40002",
			 .start = S(2.5), .end = S(3.5), .amount = 10, .has_amount = true,
			 .throttle = S(0.2), .has_throttle = true };
	struct thread_walk w = one(p, &rv);

	CU_ASSERT_EQUAL(w.acct.cat[CAT_BLOCKED], S(0.5));
	CU_ASSERT_EQUAL(w.acct.cat[CAT_NETRECV], S(0.5));
	check_sum(&w);
	/* without the peer: the hold is still netrecv, the rest blocked */
	w = one(NULL, &rv);
	CU_ASSERT_EQUAL(w.acct.cat[CAT_BLOCKED], S(0.8));
	CU_ASSERT_EQUAL(w.acct.cat[CAT_NETRECV], S(0.2));
	peers_free(p);
}

/* A second connection from s to r's address: s's sends cannot be told
 * apart, so nothing is split. */
static void test_ambiguous(void)
{
	struct peers *p = pair();
	struct trace_socket other = { .proto = "tcp", .local = "10.0.0.2:40003", .peer = "10.0.0.1:5000" };
	int64_t t;

	peers_socket(p, &s, &other);
	CU_ASSERT_FALSE(peers_sent(p, &r, "10.0.0.2:40002", S(3.5), &t));
	peers_free(p);

	p = peers_new();
	CU_ASSERT_FALSE(peers_paired(p));
	peers_free(p);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "the peer's last send", test_sent },
		{ "blocked until the send, stopped after", test_split },
		{ "a send that returned after the recv", test_skew },
		{ "a netrecv hold", test_hold },
		{ "ambiguous connections", test_ambiguous },
	};

	return unit_main("analyze-peers", tests, sizeof(tests) / sizeof(tests[0]));
}
