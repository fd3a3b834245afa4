/* The fidelity report: per node and for the whole run, original against
 * replayed duration, and per call family the time spent in calls. Also the
 * progress bar, drawn on a terminal only. */
#include "replay.h"
#include "util.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const mode_names[] = { "causal", "think", "timed", "afap" };
static const char *const compute_names[] = { "spin", "sleep", "none" };

int64_t min_epoch(const struct trace *t, const int *sel)
{
	int64_t e0 = INT64_MAX;

	for (size_t k = 0; k < t->nnodes; k++)
		if (sel[k] && t->nodes[k].epoch < e0)
			e0 = t->nodes[k].epoch;
	return e0;
}

/* The original run: first node start to last node end, aligned by epoch. */
int64_t original_span(const struct trace *t, const int *sel)
{
	int64_t e0 = min_epoch(t, sel), a = INT64_MAX, b = INT64_MIN;

	for (size_t k = 0; k < t->nnodes; k++) {
		if (!sel[k])
			continue;
		int64_t off = opt.mode == MODE_AFAP ? 0 : t->nodes[k].epoch - e0;
		if (off + t->nodes[k].start < a)
			a = off + t->nodes[k].start;
		if (off + t->nodes[k].end > b)
			b = off + t->nodes[k].end;
	}
	return b - a;
}

static double err_pct(int64_t orig, int64_t repl)
{
	return orig > 0 ? 100.0 * (double)(repl - orig) / (double)orig : 0.0;
}

/* How a process ended in the replay: as the trace says when it ran to its
 * end (a replay reproduces its exit status), else what stopped it. */
static const char *replayed_end(const struct process *p, uint8_t pe)
{
	static const char *const ends[] = {
		[PE_NOTRUN] = "not-run", [PE_SIGPIPE] = "signal:SIGPIPE", [PE_STOPPED] = "stopped",
	};

	return pe == PE_ENDED ? p->status : ends[pe];
}

/* The processes of the node whose end is worth a line: every one that did
 * not simply exit 0, in the capture or in the replay. */
static void print_procs(const struct node *n, const uint8_t *pe)
{
	for (size_t i = 0; i < n->nprocs; i++) {
		const struct process *p = &n->procs[i];
		const char *r = replayed_end(p, pe[i]), *exe = p->exe ? strrchr(p->exe, '/') : NULL;
		if (!strcmp(p->status, "exit:0") && !strcmp(r, "exit:0"))
			continue;
		printf("  process %-6ld %-14s ended %s, replayed %s\n", p->pid,
		       exe ? exe + 1 : p->exe ? p->exe : "?", p->status, r);
	}
}

/* Is the root on another file system than the one the trace ran in (its
 * first process's directory, when this machine has it)? Then the
 * difference is what the other system changes: a prediction, not an
 * error of the replay. */
static int other_system(const struct trace *t, const int *sel)
{
	struct stat r, c;

	if (!opt.root || stat(opt.root, &r))
		return 0;
	for (size_t k = 0; k < t->nnodes; k++)
		if (sel[k] && t->nodes[k].nprocs)
			return stat(t->nodes[k].procs[0].cwd, &c) || c.st_dev != r.st_dev;
	return 0;
}

/* the latency below which a share q of a family's calls were (a
 * bucket's middle) */
static int64_t lat_q(const uint32_t *h, uint64_t n, double q)
{
	uint64_t want = (uint64_t)((double)n * q + 0.5), seen = 0;

	if (!n)
		return 0;
	if (!want)
		want = 1;
	for (int b = 0; b < LAT_BUCKETS; b++) {
		if ((seen += h[b]) < want)
			continue;
		if (b < 8)
			return b;
		int oct = b / 8;
		int64_t lo = (int64_t)(8 + b % 8) << (oct - 3), hi = (int64_t)(9 + b % 8) << (oct - 3);
		return (lo + hi) / 2;
	}
	return 0;
}

static uint64_t hist_n(const uint32_t *h)
{
	uint64_t n = 0;

	for (int b = 0; b < LAT_BUCKETS; b++)
		n += h[b];
	return n;
}

static double per_s(double v, int64_t ns)
{
	return ns > 0 ? v * 1e9 / (double)ns : 0;
}

/* For the storage engineer: each family's latency, rate and bandwidth on
 * the system the trace ran on and on this one (over the node's time), and
 * what the replay did not do, by name and why. */
static void print_storage(const struct trace *t, const int *sel, struct sync *s)
{
	char a[32], b[32], x[32], y[32];

	printf("%-16s %-6s %10s %10s %10s %10s %9s %9s %8s %8s\n", "node", "family", "p50_orig",
	       "p50_repl", "p99_orig", "p99_repl", "iops_orig", "iops_repl", "MBs_orig", "MBs_repl");
	for (size_t k = 0; k < t->nnodes; k++) {
		if (!sel[k])
			continue;
		struct nodestat *st = sync_stats(s, (int)k);
		for (int f = 0; f < NFAM; f++) {
			const struct famstat *fs = &st->fam[f];
			uint64_t no = hist_n(fs->lat_orig), nr = hist_n(fs->lat_repl);
			if (!fs->calls)
				continue;
			printf("%-16s %-6s %10s %10s %10s %10s %9.1f %9.1f %8.2f %8.2f\n", t->nodes[k].name,
			       family_names[f], fmt_sec(a, lat_q(fs->lat_orig, no, 0.5)),
			       fmt_sec(b, lat_q(fs->lat_repl, nr, 0.5)),
			       fmt_sec(x, lat_q(fs->lat_orig, no, 0.99)),
			       fmt_sec(y, lat_q(fs->lat_repl, nr, 0.99)),
			       per_s((double)fs->calls, st->orig_ns), per_s((double)fs->calls, st->repl_ns),
			       per_s((double)fs->orig_bytes / 1e6, st->orig_ns),
			       per_s((double)fs->repl_bytes / 1e6, st->repl_ns));
		}
	}
	for (size_t k = 0; k < t->nnodes; k++) {
		if (!sel[k])
			continue;
		const struct node *n = &t->nodes[k];
		for (size_t i = 0; i < n->nskips; i++)
			printf("skipped %-8s %-24s x%-6u %s\n", n->name, n->skips[i].api, n->skips[i].n,
			       n->skips[i].spent ? "not reissued (the trace holds no value): its time spent"
						 : "not reissued (no replay of it): its time not spent");
		struct nodestat *st = sync_stats(s, (int)k);
		uint64_t listed = 0;
		for (int i = 0; i < NFAILS && st->fails[i].n; i++) {
			printf("failed  %-8s %-24s x%-6u %s (%s)\n", n->name, st->fails[i].api,
			       st->fails[i].n, errno_name(st->fails[i].err), strerror(st->fails[i].err));
			listed += st->fails[i].n;
		}
		if (st->deps)
			printf("waits   %-8s %llu blocked on a peer's I/O; the replayer's wake-up: %.1f us each, paid back\n",
			       n->name, (unsigned long long)st->deps, (double)st->dep_ns / 1e3 / (double)st->deps);
		if (listed < st->failed)
			printf("failed  %-8s %-24s x%-6llu (other kinds)\n", n->name, "...",
			       (unsigned long long)(st->failed - listed));
	}
}

void report_print(const struct trace *t, const int *sel, struct sync *s,
		  int64_t orig, int64_t repl)
{
	char a[32], b[32], x[32], y[32];
	int other = other_system(t, sel);

	printf("island-replay: fidelity (mode %s, compute %s, speed %g)\n",
	       mode_names[opt.mode], compute_names[opt.compute], opt.speed);
	if (other)
		printf("island-replay: the root is on another file system than the trace's: "
		       "the difference is the change it makes\n");
	printf("%-16s %14s %14s %8s %9s %8s %7s\n", "node", "original", "replayed",
	       other ? "change" : "error", "calls", "skipped", "failed");
	for (size_t k = 0; k < t->nnodes; k++) {
		if (!sel[k])
			continue;
		struct nodestat *st = sync_stats(s, (int)k);
		printf("%-16s %14s %14s %+7.1f%% %9llu %8llu %7llu\n", t->nodes[k].name,
		       fmt_sec(a, st->orig_ns), fmt_sec(b, st->repl_ns),
		       err_pct(st->orig_ns, st->repl_ns), (unsigned long long)st->calls,
		       (unsigned long long)st->skipped, (unsigned long long)st->failed);
		for (int f = 0; f < NFAM; f++) {
			if (!st->fam[f].calls)
				continue;
			printf("  %-14s %14s %14s %8s %9llu\n", family_names[f],
			       fmt_sec(x, st->fam[f].orig_ns), fmt_sec(y, st->fam[f].repl_ns), "",
			       (unsigned long long)st->fam[f].calls);
		}
		if (!opt.mpi)
			print_procs(&t->nodes[k], sync_procs(s, (int)k));
	}
	printf("%-16s %14s %14s %+7.1f%%\n", "run", fmt_sec(a, orig), fmt_sec(b, repl),
	       err_pct(orig, repl));
	print_storage(t, sel, s);
}

static void xml_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

int report_save(const char *file, const struct trace *t, const int *sel,
		struct sync *s, int64_t orig, int64_t repl)
{
	char a[32], b[32];
	FILE *f = fopen(file, "w");

	if (!f)
		return -1;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<replay version=\"1\" generator=\"island-replay %s\" trace=\"",
		ISLAND_VERSION);
	xml_str(f, t->file);
	fprintf(f, "\" mode=\"%s\" compute=\"%s\" speed=\"%g\" system=\"%s\">\n", mode_names[opt.mode],
		compute_names[opt.compute], opt.speed, other_system(t, sel) ? "other" : "same");
	for (size_t k = 0; k < t->nnodes; k++) {
		if (!sel[k])
			continue;
		struct nodestat *st = sync_stats(s, (int)k);
		fputs("  <node name=\"", f);
		xml_str(f, t->nodes[k].name);
		fprintf(f, "\" original=\"%s\" replayed=\"%s\" error=\"%.2f\" calls=\"%llu\" skipped=\"%llu\" failed=\"%llu\">\n",
			fmt_sec(a, st->orig_ns), fmt_sec(b, st->repl_ns),
			err_pct(st->orig_ns, st->repl_ns), (unsigned long long)st->calls,
			(unsigned long long)st->skipped, (unsigned long long)st->failed);
		for (int i = 0; i < NFAM; i++) {
			const struct famstat *fs = &st->fam[i];
			uint64_t no = hist_n(fs->lat_orig), nr = hist_n(fs->lat_repl);
			char p[4][32];
			fprintf(f, "    <family name=\"%s\" calls=\"%llu\" original=\"%s\" replayed=\"%s\" bytes_original=\"%lld\" bytes_replayed=\"%lld\""
				" p50_original=\"%s\" p50_replayed=\"%s\" p99_original=\"%s\" p99_replayed=\"%s\""
				" iops_original=\"%.1f\" iops_replayed=\"%.1f\" mbs_original=\"%.3f\" mbs_replayed=\"%.3f\"/>\n",
				family_names[i], (unsigned long long)fs->calls,
				fmt_sec(a, fs->orig_ns), fmt_sec(b, fs->repl_ns),
				(long long)fs->orig_bytes, (long long)fs->repl_bytes,
				fmt_sec(p[0], lat_q(fs->lat_orig, no, 0.5)), fmt_sec(p[1], lat_q(fs->lat_repl, nr, 0.5)),
				fmt_sec(p[2], lat_q(fs->lat_orig, no, 0.99)), fmt_sec(p[3], lat_q(fs->lat_repl, nr, 0.99)),
				per_s((double)fs->calls, st->orig_ns), per_s((double)fs->calls, st->repl_ns),
				per_s((double)fs->orig_bytes / 1e6, st->orig_ns), per_s((double)fs->repl_bytes / 1e6, st->repl_ns));
		}
		const struct node *n = &t->nodes[k];
		for (size_t i = 0; i < n->nskips; i++)
			fprintf(f, "    <skipped api=\"%s\" count=\"%u\" reason=\"%s\"/>\n", n->skips[i].api,
				n->skips[i].n, n->skips[i].spent ? "no value in the trace: time spent" : "no replay of it");
		if (st->deps)
			fprintf(f, "    <waits blocked=\"%llu\" wake_ns=\"%lld\"/>\n",
				(unsigned long long)st->deps, (long long)st->dep_ns);
		for (int i = 0; i < NFAILS && st->fails[i].n; i++)
			fprintf(f, "    <failed api=\"%s\" count=\"%u\" errno=\"%s\"/>\n", st->fails[i].api,
				st->fails[i].n, errno_name(st->fails[i].err));
		for (size_t i = 0; i < t->nodes[k].nprocs && !opt.mpi; i++) {
			const struct process *p = &t->nodes[k].procs[i];
			fprintf(f, "    <process pid=\"%ld\" status=\"", p->pid);
			xml_str(f, p->status);
			fputs("\" replayed=\"", f);
			xml_str(f, replayed_end(p, sync_procs(s, (int)k)[i]));
			fputs("\"/>\n", f);
		}
		fputs("  </node>\n", f);
	}
	fprintf(f, "  <run original=\"%s\" replayed=\"%s\" error=\"%.2f\"/>\n</replay>\n",
		fmt_sec(a, orig), fmt_sec(b, repl), err_pct(orig, repl));
	return fclose_checked(f);
}

/* [#####.....] nodes 2/4  calls 1234/5000  1.2 s */
void progress_draw(const struct trace *t, const int *sel, struct sync *s, int64_t t0, int final)
{
	uint64_t done = 0, total = 0;
	int nodes = 0, over = 0;
	char bar[31];

	for (size_t k = 0; k < t->nnodes; k++) {
		if (!sel[k])
			continue;
		nodes++;
		done += sync_count(s, (int)k);
		total += t->nodes[k].nall;
		over += sync_stats(s, (int)k)->t1_ns != 0;
	}
	int fill = total ? (int)(30 * done / total) : 30;
	for (int i = 0; i < 30; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[30] = 0;
	int64_t el = now_ns() - t0;
	fprintf(stderr, "\r[%s] nodes %d/%d  calls %llu/%llu  %.1f s%s", bar, over, nodes,
		(unsigned long long)done, (unsigned long long)total,
		(double)(el > 0 ? el : 0) / 1e9, final ? "\n" : "");
}
