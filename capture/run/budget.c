/*
 * A long run's trace, bounded. A thread of island-capture looks every
 * STEP_NS at what the trace has taken so far: while it streams, the
 * bytes this process wrote (its parts: /proc/self/io's wchar, the
 * compressed bytes when the trace is); when it is written at the end
 * (a session, --profile, --callsites), the spool's pages, which stand
 * for it. At --max-size it tells the interposer to stop (the arena's
 * stop: no thread takes more room, each ends where its pages end),
 * says so once, and the trace is marked complete="false"
 * reason="max-size"; the app runs on, untouched. A streamed trace that
 * grows at a rate that would fill the free space of its file system
 * (statvfs) within the hour is said once, with the compact encoding's
 * name. So is a spool that would reach its limit within the hour: it
 * keeps every record until the end (--recover needs them), some 64
 * bytes a call whatever the trace's encoding, and at its limit the
 * threads record nothing more.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "budget.h"
#include "capture.h"
#include "util.h"

#define STEP_NS   5000000          /* between two looks: the overshoot */
#define RATE_NS   2000000000ll     /* the rate over the last 2 s */
#define SPOOL_AGE_NS 10000000000ll /* the spool's rate said from 10 s on */

struct budget {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int halt, hit, warned, spool_warned;
	uint64_t spool_prev;         /* the spool's pages, RATE_NS ago */
	struct stream *stream;       /* the trace's parts written as it runs */
	double per_spool;            /* else: its bytes per spool byte, a guess */
	uint64_t max, wchar0, most;
	int64_t t0, hit_at;
	struct arena_hdr *a;
	char *output, *fsdir, *spool;
};

uint64_t budget_size(const char *opt, const char *v)
{
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	double mul = 1;

	if (*end == 'k' || *end == 'K')
		mul = 1024, end++;
	else if (*end == 'M')
		mul = 1024.0 * 1024, end++;
	else if (*end == 'G')
		mul = 1024.0 * 1024 * 1024, end++;
	if (end == v || *end || errno || !(d > 0) || d * mul < 4096 || d * mul > 1e18)
		die(2, "%s: '%s' is not a size of 4k or more (a number, k, M or G)", opt, v);
	return (uint64_t)(d * mul);
}

/* This process's bytes written (its parts, while it streams) */
static uint64_t wchar(void)
{
	char buf[512];
	int fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	unsigned long long v = 0;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	char *p = strstr(buf, "wchar:");
	if (p)
		sscanf(p + 6, "%llu", &v);
	return v;
}

/* The trace's bytes so far: those written (its parts), and the spool's
 * not yet taken at the rate of those taken (the stream runs behind the
 * app, at its lowest priority); a trace written at the end, the spool's
 * at a rate guessed from its encoding */
static uint64_t taken(struct budget *b)
{
	double spool = b->a ? (double)b->a->given : 0;

	if (!b->stream)
		return (uint64_t)(spool * b->per_spool);	/* (only grows) */
	double w = (double)(wchar() - b->wchar0), p = (double)stream_taken(b->stream);
	/* its own rate once it has taken enough for the parts' heads not
	 * to count (8 MiB) */
	double rate = p > (8 << 20) ? w / p : b->per_spool;
	uint64_t est = (uint64_t)(w + (spool > p ? spool - p : 0) * rate);

	/* an estimate: the rate moves, what was taken does not shrink */
	if (est > b->most)
		b->most = est;
	return b->most;
}

static void fmt_size(char *buf, size_t len, double v)
{
	if (v >= 1e9)
		snprintf(buf, len, "%.1f GB", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.1f MB", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%.0f kB", v / 1e3);
	else
		snprintf(buf, len, "%.0f B", v);
}

/* The spool's rate over dt ns, against what is left of its limit, once
 * the run has lasted SPOOL_AGE_NS: a program of a few seconds, however
 * fast it spools, is told only if it did fill the spool (at its end) */
static void look_spool(struct budget *b, int64_t now, int64_t dt)
{
	uint64_t given = b->a ? __atomic_load_n(&b->a->given, __ATOMIC_RELAXED) : 0;
	uint64_t limit = b->a ? b->a->budget : 0;
	/* given goes back down when a thread's ask for pages fails */
	double rate = given > b->spool_prev ?
		      (double)(given - b->spool_prev) * 1e9 / (double)dt : 0;

	b->spool_prev = given;
	if (now - b->t0 < SPOOL_AGE_NS || b->spool_warned || b->hit || !limit ||
	    given >= limit || rate <= 0 ||
	    rate * 3600 < (double)(limit - given))
		return;
	char r[32], l[32];
	fmt_size(r, sizeof(r), rate);
	fmt_size(l, sizeof(l), (double)(limit - given));
	b->spool_warned = 1;
	warnx("%s: the spool grows %s/s: at that rate the %s left of its limit are "
	      "used within the hour, and nothing is recorded after (the spool keeps "
	      "some 64 bytes a call until the end; its limit is half the space that "
	      "was free in %s: --spool-dir on a file system with more room)",
	      b->output, r, l, b->spool);
}

static void look(struct budget *b, int64_t now, uint64_t *prev, int64_t *prev_t)
{
	uint64_t got = taken(b);

	if (b->max && !b->hit && got >= b->max) {
		b->hit = 1;
		b->hit_at = now;
		if (b->a)
			__atomic_store_n(&b->a->stop, 1, __ATOMIC_RELEASE);
		warnx("%s: --max-size reached after %.2f s: recording stopped, the "
		      "program runs on; the trace is marked complete=\"false\" "
		      "reason=\"max-size\"", b->output, (double)(now - b->t0) / 1e9);
	}
	if (now - *prev_t < RATE_NS) {
		if (!*prev_t) {
			*prev_t = now, *prev = got;
			b->spool_prev = b->a ? __atomic_load_n(&b->a->given, __ATOMIC_RELAXED) : 0;
		}
		return;
	}
	double rate = (double)(got - *prev) * 1e9 / (double)(now - *prev_t);
	struct statvfs sv;
	look_spool(b, now, now - *prev_t);
	*prev = got;
	*prev_t = now;
	/* a trace written at the end has only a guess of its size: no
	 * warning on a guess (--profile's snapshots are bigger records) */
	if (!b->stream || b->warned || b->hit || rate <= 0 || statvfs(b->fsdir, &sv) < 0)
		return;
	double avail = (double)sv.f_bavail * (double)sv.f_frsize;
	/* full already: the write's own error says so (under ASan, a
	 * capture onto a full tmpfs lived to be told "0 kB/s ... the 0 kB
	 * free are full within the hour" too) */
	if (rate * 3600 < avail || avail <= 0)
		return;
	char r[32], f[32];
	fmt_size(r, sizeof(r), rate);
	fmt_size(f, sizeof(f), avail);
	b->warned = 1;
	warnx("%s: the trace grows %s/s: at that rate the %s free on its file system "
	      "are full within the hour (-o NAME.isb.zst writes a few bytes a call; "
	      "--max-size SIZE stops recording at SIZE)", b->output, r, f);
}

static void *budget_main(void *arg)
{
	struct budget *b = arg;
	uint64_t prev = 0;
	int64_t prev_t = 0;

	pthread_mutex_lock(&b->mu);
	while (!b->halt) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += STEP_NS;
		ts.tv_sec += ts.tv_nsec / 1000000000;
		ts.tv_nsec %= 1000000000;
		pthread_cond_timedwait(&b->cv, &b->mu, &ts);
		if (!b->halt)
			look(b, now_ns(), &prev, &prev_t);
	}
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

struct budget *budget_start(const char *spool, const char *output, uint64_t max,
			    struct stream *stream, int compact)
{
	struct budget *b = xcalloc(1, sizeof(*b));
	char *path = xasprintf("%s/" ARENA_FILE, spool), *copy = xstrdup(output);
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);

	free(path);
	if (fd >= 0) {
		void *m = mmap(NULL, SPOOL_HDR_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m != MAP_FAILED)
			b->a = m;
		close(fd);
	}
	if (max && !b->a)
		die(2, "%s: cannot map the spool's arena for --max-size", spool);
	b->output = xstrdup(output);
	b->fsdir = xstrdup(dirname(copy));
	free(copy);
	copy = xstrdup(spool);
	b->spool = xstrdup(dirname(copy));
	free(copy);
	b->max = max;
	b->stream = stream;
	/* XML: some 9 bytes a spool byte (a run of writes: 430 MB of XML
	 * from 48 MB of spool); .isb.zst some 0.2 (nginx under wrk: 15 MB
	 * from 75 MB) */
	b->per_spool = compact ? 0.2 : 9;
	b->wchar0 = wchar();
	b->t0 = now_ns();
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->cv, NULL);
	if (pthread_create(&b->th, NULL, budget_main, b))
		die(2, "cannot start the trace's watch:");
	return b;
}

int budget_stop(struct budget *b, double *at)
{
	int hit;

	if (!b)
		return 0;
	pthread_mutex_lock(&b->mu);
	b->halt = 1;
	pthread_cond_signal(&b->cv);
	pthread_mutex_unlock(&b->mu);
	pthread_join(b->th, NULL);
	hit = b->hit;
	if (at)
		*at = (double)(b->hit_at - b->t0) / 1e9;
	if (b->a)
		munmap(b->a, SPOOL_HDR_SIZE);
	free(b->output);
	free(b->fsdir);
	free(b->spool);
	free(b);
	return hit;
}
