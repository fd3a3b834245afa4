/* Unit tests of island-analyze's arithmetic: interval unions and overlaps,
 * the compact interval lists, TTX and utilization on the seed's examples,
 * span-file lines, the region tree, consumption with stops, number
 * formatting. */
#include "unit.h"
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

#define S(x) ((int64_t)(x) * NS)

static void test_union(void)
{
	struct ivl v[] = { { 5, 8 }, { 1, 3 }, { 2, 4 }, { 8, 9 }, { 20, 20 }, { 10, 12 } };

	CU_ASSERT_EQUAL(ivl_union_len(v, 6), 3 + 4 + 2);
	CU_ASSERT_EQUAL(ivl_merge(v, 0), 0);
	struct ivl w[] = { { 0, 10 }, { 2, 3 }, { 4, 5 } };
	CU_ASSERT_EQUAL(ivl_merge(w, 3), 1);
	CU_ASSERT_EQUAL(w[0].end, 10);
}

static void test_overlap(void)
{
	struct trace_stop s[] = { { 10, 20 }, { 30, 40 }, { 50, 60 } };

	CU_ASSERT_EQUAL(ivl_overlap(s, 3, 0, 100), 30);
	CU_ASSERT_EQUAL(ivl_overlap(s, 3, 15, 35), 10);
	CU_ASSERT_EQUAL(ivl_overlap(s, 3, 20, 30), 0);
	CU_ASSERT_EQUAL(ivl_overlap(s, 3, 61, 70), 0);
	CU_ASSERT_EQUAL(stop_first(s, 3, 20), 1);
	CU_ASSERT_EQUAL(stop_first(s, 3, 19), 0);
}

/* The compact lists against a brute-force union on random data. */
static void test_ilist(void)
{
	enum { K = 5, N = 400 };
	struct ilist l[K], *p[K];
	struct ivl *all = calloc(K * N, sizeof(*all));
	size_t n = 0;
	unsigned seed = 7;

	memset(l, 0, sizeof(l));
	for (int k = 0; k < K; k++) {
		int64_t t = rand_r(&seed) % 1000;

		p[k] = &l[k];
		l[k].off = k == 3 ? 17 : 0;
		for (int i = 0; i < N; i++) {
			int64_t gap = rand_r(&seed) % 3 ? rand_r(&seed) % 500 : 0;
			int64_t len = rand_r(&seed) % 700;

			ilist_add(&l[k], t + gap, t + gap + len);
			if (len) {
				all[n].start = t + gap + l[k].off;
				all[n++].end = t + gap + len + l[k].off;
			}
			t += gap + len;
		}
	}
	CU_ASSERT_EQUAL(ilist_union(p, K), ivl_union_len(all, n));
	CU_ASSERT_EQUAL(ilist_union(p, 1), l[0].total);
	CU_ASSERT_EQUAL(ilist_union(p, 0), 0);
	for (int k = 0; k < K; k++)
		ilist_free(&l[k]);
	free(all);
}

static void add_span(struct spans *s, const char *line)
{
	char buf[128];
	const char *why = NULL;

	snprintf(buf, sizeof(buf), "%s", line);
	CU_ASSERT_EQUAL_FATAL(spans_parse_line(s, buf, &why), 0);
}

/* The seed's components: C_0 and C_1, shifted. */
static void seed_case(struct spans *s, int o0, int o1)
{
	static const struct { const char *st; int a, b; } c0[] = {
		{ "idling", 0, 8 }, { "staging", 8, 10 }, { "running", 10, 30 },
		{ "idling", 30, 33 }, { "staging", 33, 41 }, { "running", 41, 51 },
	}, c1[] = {
		{ "idling", 0, 2 }, { "staging", 2, 11 }, { "running", 11, 18 },
		{ "idling", 18, 21 }, { "staging", 21, 29 }, { "running", 29, 41 },
	};
	char line[128];

	memset(s, 0, sizeof(*s));
	for (int i = 0; i < 6; i++) {
		snprintf(line, sizeof(line), "C_0,%s,%d,%d", c0[i].st, c0[i].a + o0, c0[i].b + o0);
		add_span(s, line);
	}
	for (int i = 0; i < 6; i++) {
		snprintf(line, sizeof(line), "C_1,%s,%d,%d", o1 < 0 ? c0[i].st : c1[i].st,
			 (o1 < 0 ? c0[i].a : c1[i].a) + (o1 < 0 ? 0 : o1),
			 (o1 < 0 ? c0[i].b : c1[i].b) + (o1 < 0 ? 0 : o1));
		add_span(s, line);
	}
}

static void test_ttx_seed(void)
{
	/* case: offsets of C_0 and C_1 (-1: C_1 is a copy of C_0), TTX, idling */
	static const struct { int o0, o1; int64_t ttx, idle, ttc; } cases[] = {
		{ 0, 59, 92, 16, 100 }, { 0, -1, 51, 11, 51 },
		{ 4, 0, 55, 16, 55 }, { 0, 0, 51, 14, 51 },
	};

	for (size_t i = 0; i < 4; i++) {
		struct spans s;
		struct ttx_result r;

		seed_case(&s, cases[i].o0, cases[i].o1);
		ttx_spans(&s, &r);
		CU_ASSERT_EQUAL(r.ttx, S(cases[i].ttx));
		CU_ASSERT_EQUAL(r.ttc, S(cases[i].ttc));
		CU_ASSERT_STRING_EQUAL(s.states[0], "idling");
		CU_ASSERT_EQUAL(r.state_union[0], S(cases[i].idle));
		CU_ASSERT_EQUAL(r.comp_ttx[0], S(51));
		CU_ASSERT_EQUAL(r.naive, r.comp_ttx[0] + r.comp_ttx[1]);
		ttx_result_free(&r);
		spans_free(&s);
	}
}

/* TTX against a bitmap of unit time slots, on random spans. */
static void test_ttx_random(void)
{
	enum { C = 6, ST = 3, T = 200, N = 300 };
	static const char *const states[ST] = { "a", "b", "c" };
	unsigned char used[C][ST][T];
	struct spans s = { 0 };
	struct ttx_result r;
	unsigned seed = 11;
	char line[128];

	memset(used, 0, sizeof(used));
	for (int c = 0; c < C; c++)	/* every component and state appears, in order */
		for (int k = 0; k < ST; k++) {
			snprintf(line, sizeof(line), "c%d,%s,%d,%d", c, states[k], 0, 0);
			add_span(&s, line);
		}
	for (int i = 0; i < N; i++) {
		int c = rand_r(&seed) % C, k = rand_r(&seed) % ST;
		int a = rand_r(&seed) % T, b = a + rand_r(&seed) % 20;

		if (b > T)
			b = T;
		snprintf(line, sizeof(line), "c%d,%s,%d,%d", c, states[k], a, b);
		add_span(&s, line);
		for (int t = a; t < b; t++)
			used[c][k][t] = 1;
	}
	ttx_spans(&s, &r);
	{
		int64_t all = 0, st[ST] = { 0 }, naive = 0;

		for (int t = 0; t < T; t++) {
			int any = 0;

			for (int k = 0; k < ST; k++) {
				int in = 0;

				for (int c = 0; c < C; c++)
					in |= used[c][k][t];
				st[k] += in;
				any |= in;
			}
			all += any;
		}
		for (int c = 0; c < C; c++) {
			int64_t ct = 0;

			for (int t = 0; t < T; t++) {
				int in = 0;

				for (int k = 0; k < ST; k++)
					in |= used[c][k][t];
				ct += in;
			}
			for (int k = 0; k < ST; k++) {
				int64_t cs = 0;

				for (int t = 0; t < T; t++)
					cs += used[c][k][t];
				CU_ASSERT_EQUAL(r.comp_state[c * ST + k], S(cs));
			}
			CU_ASSERT_EQUAL(r.comp_ttx[c], S(ct));
			naive += ct;
		}
		CU_ASSERT_EQUAL(r.ttx, S(all));
		CU_ASSERT_EQUAL(r.naive, S(naive));
		for (int k = 0; k < ST; k++)
			CU_ASSERT_EQUAL(r.state_union[k], S(st[k]));
	}
	ttx_result_free(&r);
	spans_free(&s);
}

static void test_utilization_seed(void)
{
	struct spans s = { 0 };
	struct util_result u;

	add_span(&s, "A_0,run,0,600,2,app");
	add_span(&s, "A_1,run,600,1200,2,app");
	add_span(&s, "A_2,run,1200,1800,2,app");
	add_span(&s, "A_3,run,1800,2400,2,app");
	add_span(&s, "S_0,run,0,120,1,system");
	add_span(&s, "S_1,run,120,240,1,system");
	util_spans(&s, 2, S(3600), true, &u);
	CU_ASSERT_DOUBLE_EQUAL(u.avail, 7200, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(u.app * 100 / u.avail, 66.6667, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(u.sys * 100 / u.avail, 3.3333, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(u.idle * 100 / u.avail, 30.0, 1e-9);
	/* a shorter span clips the spans */
	util_spans(&s, 2, S(600), true, &u);
	CU_ASSERT_DOUBLE_EQUAL(u.app, 1200, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(u.sys, 240, 1e-9);
	spans_free(&s);
}

static void test_span_lines(void)
{
	struct spans s = { 0 };
	char bad1[] = "a,b,5,4", bad2[] = "a,b,x,4", bad3[] = "a,b,1,2,1,boss";
	char bad4[] = "a,b", quoted[] = "\"x,\"\"y\"\"\",run,1.5,2.25";
	const char *why = NULL;

	CU_ASSERT_EQUAL(spans_parse_line(&s, bad1, &why), -1);
	CU_ASSERT_STRING_EQUAL(why, "end before start");
	CU_ASSERT_EQUAL(spans_parse_line(&s, bad2, &why), -1);
	CU_ASSERT_STRING_EQUAL(why, "start and end must be seconds");
	CU_ASSERT_EQUAL(spans_parse_line(&s, bad3, &why), -1);
	CU_ASSERT_STRING_EQUAL(why, "owner must be app or system");
	CU_ASSERT_EQUAL(spans_parse_line(&s, bad4, &why), -1);
	CU_ASSERT_EQUAL(spans_parse_line(&s, quoted, &why), 0);
	CU_ASSERT_EQUAL_FATAL(s.n, 1);
	CU_ASSERT_STRING_EQUAL(s.comps[0], "x,\"y\"");
	CU_ASSERT_EQUAL(s.v[0].start, 1500000000);
	CU_ASSERT_EQUAL(s.v[0].end, 2250000000);
	CU_ASSERT_DOUBLE_EQUAL(s.v[0].cores, 1, 0);
	spans_free(&s);
	CU_ASSERT_TRUE(is_span_file("x.csv"));
	CU_ASSERT_FALSE(is_span_file("x.xml.gz"));
}

static void region(struct rtree *rt, struct trace_thread *t, long id, long parent,
		   const char *label, int64_t a, int64_t b)
{
	struct trace_region r = { .id = id, .parent = parent, .label = label, .start = a, .end = b };

	rtree_thread_region(rt, t, &r);
}

/* Regions arrive at their end (children first); two threads merge by
 * label path. */
static void test_region_tree(void)
{
	struct rtree *rt = rtree_new();
	struct trace_thread t1 = { .start = 0, .end = 100 }, t2 = { .start = 0, .end = 50 };
	struct rnode *root, *a, *b, *c;

	region(rt, &t1, 2, 1, "b", 10, 20);
	region(rt, &t1, 3, 1, "b", 30, 35);
	region(rt, &t1, 1, 0, "a", 5, 60);
	region(rt, &t1, 4, 0, "c", 70, 80);
	rtree_thread_end(rt, &t1);
	region(rt, &t2, 1, 0, "a", 0, 40);
	rtree_thread_end(rt, &t2);
	root = rtree_root(rt);
	CU_ASSERT_EQUAL(root->incl, 150);
	a = root->child;
	CU_ASSERT_STRING_EQUAL_FATAL(a->label, "a");
	CU_ASSERT_EQUAL(a->count, 2);
	CU_ASSERT_EQUAL(a->incl, 55 + 40);
	b = a->child;
	CU_ASSERT_STRING_EQUAL_FATAL(b->label, "b");
	CU_ASSERT_EQUAL(b->count, 2);
	CU_ASSERT_EQUAL(b->incl, 15);
	CU_ASSERT_EQUAL(b->depth, 2);
	c = a->next;
	CU_ASSERT_STRING_EQUAL_FATAL(c->label, "c");
	CU_ASSERT_PTR_NULL(c->next);
	rtree_free(rt);
}

/* A stop in compute is stopped; in a sleep only the overrun; in a write
 * without a rate limit all of it (Island's assumption). */
static void test_consumption_stops(void)
{
	struct trace_node n = { 0 };
	struct trace_stop st[] = { { S(1), S(2) }, { S(5), S(6) }, { S(8), S(9) } };
	struct trace_thread t = { .node = &n, .start = 0, .end = S(10) };
	struct trace_io sl = { .api = "nanosleep", .res = TRACE_RES_SLEEP, .start = S(4),
			 .end = S(6) + NS / 2, .req = S(2), .has_req = true };
	struct trace_io wr = { .api = "write", .res = TRACE_RES_FILEWRITE, .start = S(7) + NS / 2,
			 .end = S(8) + NS / 2, .amount = 100, .has_amount = true };
	struct thread_walk w;
	int64_t sum = 0;

	n.stops = st;
	n.nstops = 3;
	walk_thread(&w, &t);
	walk_io(&w, &t, &sl);
	walk_io(&w, &t, &wr);
	walk_end(&w, &t);
	CU_ASSERT_EQUAL(w.acct.cat[CAT_SLEEP], S(2));
	CU_ASSERT_EQUAL(w.acct.cat[CAT_FILEWRITE], NS / 2);
	CU_ASSERT_EQUAL(w.acct.cat[CAT_STOPPED], S(1) + NS / 2 + NS / 2 + NS / 2);
	for (int c = 0; c < CAT_N; c++)
		sum += w.acct.cat[c];
	CU_ASSERT_EQUAL(sum, S(10));
	/* with a rate limit, twice the limit from rest is expected to take a
	 * second (Repy): the write's second stays filewrite */
	n.limit[TRACE_RES_FILEWRITE] = 50;
	walk_thread(&w, &t);
	walk_io(&w, &t, &wr);
	walk_end(&w, &t);
	CU_ASSERT_EQUAL(w.acct.cat[CAT_FILEWRITE], S(1));
	/* a hold recorded by the capture (throttle) is the expected time */
	wr.throttle = NS / 10 * 9;
	wr.has_throttle = true;
	walk_thread(&w, &t);
	walk_io(&w, &t, &wr);
	walk_end(&w, &t);
	CU_ASSERT_EQUAL(w.acct.cat[CAT_FILEWRITE], NS / 10 * 9);
}

static void test_format(void)
{
	char b[64];

	CU_ASSERT_STRING_EQUAL(fmt_secs(b, sizeof(b), 1000733000), "1.000733");
	CU_ASSERT_STRING_EQUAL(fmt_secs(b, sizeof(b), 1999999999), "2.000000");
	CU_ASSERT_STRING_EQUAL(fmt_secs(b, sizeof(b), 499), "0.000000");
	CU_ASSERT_STRING_EQUAL(fmt_secs(b, sizeof(b), -1500), "-0.000002");
	CU_ASSERT_STRING_EQUAL(fmt_pct(b, sizeof(b), 1, 3), "33.33");
	CU_ASSERT_STRING_EQUAL(fmt_pct(b, sizeof(b), 1, 0), "-");
	CU_ASSERT_STRING_EQUAL(fmt_sec(b, 2793749809), "2.793749809");
	CU_ASSERT_PTR_EQUAL(intern("write"), intern("write"));
}

static void test_table(void)
{
	static const struct coldef cols[] = {
		{ "name", COL_TEXT, 0 }, { "value", COL_INT, 0 }, { "diff", COL_NUM, COL_SIGNED },
	};
	static const struct tabledef def = TABLEDEF("t", cols);
	struct table *t = table_new(&def);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	table_add(t, "a,b");
	table_add(t, "12");
	table_add(t, "1.5");
	table_add(t, "long name");
	table_add(t, "");
	table_none(t, "-");
	table_add(t, "x");
	table_none(t, "new");
	table_add(t, "0.00");
	table_print(t, f, false);
	table_print(t, f, true);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf,
		"name       value  diff\n"
		"a,b           12  +1.5\n"
		"long name            -\n"
		"x            new  0.00\n"
		"name,value,diff\n"
		"\"a,b\",12,1.5\n"
		"long name,,\n"
		"x,,0.00\n");
	free(buf);
	table_free(t);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "interval union", test_union },
		{ "stop overlap", test_overlap },
		{ "compact lists vs brute force", test_ilist },
		{ "TTX of the seed's cases", test_ttx_seed },
		{ "TTX vs brute force", test_ttx_random },
		{ "utilization of the seed's example", test_utilization_seed },
		{ "span file lines", test_span_lines },
		{ "region tree", test_region_tree },
		{ "consumption with stops", test_consumption_stops },
		{ "number formatting", test_format },
		{ "tables and CSV", test_table },
	};

	return unit_main("analyze", tests, sizeof(tests) / sizeof(tests[0]));
}
