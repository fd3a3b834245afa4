/* analyze-gen: write a synthetic Island trace for the analyzer benchmark.
 *   analyze-gen EVENTS THREADS [NODE] > trace.xml
 * EVENTS <io> records spread over THREADS threads of one process, each
 * preceded by its <compute>, a mix of resources, a region every 100 calls
 * and a node stop every 10,000 calls. Each thread first opens its own
 * output stream and input descriptor, then writes, reads and seeks them
 * (lseek with its result, fseek from the current position), so that
 * access follows positions. Deterministic (fixed LCG). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <inttypes.h>

static uint64_t rng = 88172645463325252ull;

static unsigned rnd(unsigned n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)((rng >> 33) % n);
}

static void t9(char *b, uint64_t ns)
{
	sprintf(b, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
}

/* fd: 'w' the thread's output stream, 'r' its input descriptor (each
 * thread opens its own at its start: access follows their positions) */
static const struct {
	const char *api, *res, *extra;
	int amount;
	char fd;
} calls[] = {
	{ "fwrite", "filewrite", " path=\"/tmp/bench.out\"", 1, 'w' },
	{ "read", "fileread", " path=\"/tmp/bench.in\"", 1, 'r' },
	{ "send", "netsend", " fd=\"5\" peer=\"127.0.0.1:5000\" proto=\"tcp\"", 1, 0 },
	{ "recv", "netrecv", " fd=\"5\" peer=\"127.0.0.1:5000\" proto=\"tcp\"", 1, 0 },
	{ "lseek", "filemeta", " whence=\"SEEK_SET\" path=\"/tmp/bench.in\"", 0, 'r' },
	{ "fseek", "filemeta", " whence=\"SEEK_CUR\" path=\"/tmp/bench.out\"", 0, 'w' },
	{ "poll", "wait", " timeout=\"1.000000000\" count=\"1\"", 0, 0 },
	{ "nanosleep", "sleep", " req=\"0.000010000\"", 0, 0 },
};
#define NCALLS (sizeof(calls) / sizeof(calls[0]))

int main(int argc, char **argv)
{
	long events = argc > 1 ? atol(argv[1]) : 1000000;
	int threads = argc > 2 ? atoi(argv[2]) : 16;
	const char *node = argc > 3 ? argv[3] : "bench";
	long per = events / threads;
	uint64_t len = (uint64_t)per * 3000 + 1000000;	/* ~3 us per call */
	char a[32], b[32];

	printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	       "<trace version=\"1\" generator=\"analyze-gen\" complete=\"true\">\n");
	t9(a, len + 1000);
	printf("  <node name=\"%s\" host=\"%s\" epoch=\"1763798662.000000000\" ", node, node);
	printf("start=\"0.000000000\" end=\"%s\" clock=\"monotonic\">\n", a);
	printf("    <command><arg>bench</arg></command>\n    <stops>\n");
	for (uint64_t t = 5000000; t + 200000 < len; t += 30000000) {
		t9(a, t);
		printf("      <stop start=\"%s\" dur=\"0.000200000\"/>\n", a);
	}
	printf("    </stops>\n");
	printf("    <process pid=\"1000\" ppid=\"1\" exe=\"/bin/bench\" cwd=\"/\" "
	       "start=\"0.000000000\" end=\"%s\" status=\"exit:0\" complete=\"true\">\n", a);
	for (int th = 0; th < threads; th++) {
		uint64_t now = 1000 + (uint64_t)th * 100, end;

		long n = per + (th < events % threads);
		long depth = 0, rid = 0, open_id = 0;
		uint64_t wpos = 0;	/* the output stream's position */
		uint64_t rstart = 0;

		/* the thread's end is known after its calls: buffer them */
		char *body;
		size_t blen;
		FILE *f = open_memstream(&body, &blen);

		if (!f)
			return 1;
		for (long i = 0; i < n; i++) {
			uint64_t gap = 500 + rnd(1000), dur = 300 + rnd(2000);
			unsigned c = rnd(NCALLS);
			int wfd = 6 + 2 * th, rfd = 7 + 2 * th;

			if (i % 100 == 0 && !depth) {
				rid++;
				open_id = rid;
				rstart = now;
				depth = 1;
			}
			t9(a, gap);
			fprintf(f, "        <compute dur=\"%s\"/>\n", a);
			now += gap;
			t9(a, now);
			t9(b, now + dur);
			if (i < 2) {	/* the thread's files first */
				fprintf(f, "        <io api=\"%s\" res=\"filemeta\" start=\"%s\" "
					"end=\"%s\" fd=\"%d\" path=\"/tmp/bench.%s\" flags=\"%s\"/>\n",
					i ? "open" : "fopen", a, b, i ? rfd : wfd, i ? "in" : "out",
					i ? "O_RDONLY" : "w");
				now += dur;
				continue;
			}
			fprintf(f, "        <io api=\"%s\" res=\"%s\" start=\"%s\" end=\"%s\"",
			       calls[c].api, calls[c].res, a, b);
			if (calls[c].amount) {
				unsigned amount = rnd(4097);

				fprintf(f, " amount=\"%u\" size=\"4096\"", amount);
				if (calls[c].fd == 'w')
					wpos += amount;
			}
			if (calls[c].fd)
				fprintf(f, " fd=\"%d\"", calls[c].fd == 'w' ? wfd : rfd);
			if (!strcmp(calls[c].api, "lseek")) {
				unsigned off = rnd(1u << 20);

				fprintf(f, " offset=\"%u\" result=\"%u\"", off, off);
			} else if (!strcmp(calls[c].api, "fseek")) {
				/* back into what was written, never before 0 */
				uint64_t back = rnd(4097) % (wpos + 1);

				fprintf(f, " offset=\"-%" PRIu64 "\"", back);
				wpos -= back;
			}
			fprintf(f, "%s/>\n", calls[c].extra);
			now += dur;
			if (depth && i % 100 == 99) {
				t9(a, rstart);
				t9(b, now);
				fprintf(f, "        <region id=\"%ld\" parent=\"0\" depth=\"1\" "
				       "label=\"step\" start=\"%s\" end=\"%s\"/>\n", open_id, a, b);
				depth = 0;
			}
		}
		fclose(f);
		end = now + 1000;
		t9(a, (uint64_t)th * 100 + 1000);
		t9(b, end);
		printf("      <thread tid=\"%d\" name=\"w%d\"%s start=\"%s\" end=\"%s\" "
		       "cpu=\"%s\" exit=\"return\" complete=\"true\">\n",
		       1000 + th, th, th ? " creator=\"1000\"" : "", a, b, a);
		fwrite(body, 1, blen, stdout);
		free(body);
		printf("        <compute dur=\"0.000001000\"/>\n      </thread>\n");
	}
	printf("    </process>\n    <files>\n"
	       "      <file path=\"/tmp/bench.out\" opens=\"1\" reads=\"0\" bytes_read=\"0\" writes=\"1\" bytes_written=\"1\" open_at_end=\"0\"/>\n"
	       "    </files>\n    <sockets/>\n  </node>\n</trace>\n");
	return 0;
}
