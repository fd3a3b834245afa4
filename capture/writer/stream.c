/*
 * Streaming (issue 14): the trace written while the application runs, so
 * that at its exit only the tail is left to write. A thread of
 * island-capture reads the arena as it fills (spool_poll: every STEP_NS,
 * or at once again while it is behind the application), resolves what
 * is already in the order the end would take it (resolve_stream) and
 * writes each thread's calls into a part of their own (write_stream), a
 * file with no name (O_TMPFILE), compressed as the trace; at the end the
 * rest is read, resolved and written, and each part goes into the trace
 * as it is (model_write, outfile_splice). Nothing is taken out of the
 * spool: a capture killed meanwhile leaves it whole for --recover, and
 * no part behind. What a thread's part holds and the resolver passed is
 * let go from memory (spool_drop): the capture holds what it has still
 * to write, not the run's 64 bytes a call; not what a pass at the end
 * reads again.
 *
 * A process's calls are resolved as far as they are in the order the end
 * would take them (resolve_stream: a thread blocked in a call holds its
 * process back from the call's start on, in a wait or a sleep from when
 * it was seen there, which the interposer notes in the thread's spool
 * header). A call whose attributes the end decides waits until they are
 * known (a pthread_create's thread, a system or popen's shell, seen
 * naming it). What is not streamed is written at the
 * end, as before: all of a node in a
 * session, under --callsites or --profile. Under --syscalls a record is
 * taken once its level is linked for good (levels.c). A compressed
 * trace's parts go into it as they are, small beside the spool, in its
 * directory: zstd's (.xml.zst, .isb.zst) frames one after another,
 * gzip's deflate streams of its one member (libxml2 2.9 reads a gzip
 * file's first member only; outfile.c); a plain trace's (.xml, .isb)
 * are five times the spool's size, so they go beside the trace, whose
 * file system copies them into it (the spool's is memory, /dev/shm). A
 * binary part is coded from nothing, between two RESETs of the trace's
 * coder (docs/trace-binary.md). The times need the clock's map: each
 * step keeps what it has mapped, and refines the slope from there on as
 * the run doubles (clock_fix).
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "util.h"
#include "zstdio.h"

#define STEP_NS       20000000      /* between two steps, the app quiet */
#define STEP_BUSY_NS  5000000       /* ... or not */
#define MAX_PARTS     32            /* parts open at once */
#define BUSY_BYTES    (256u << 10)  /* a poll that took this: again at once */
#define PART_MIN      4096          /* records left worth a part at the end */

struct stream {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int halt;                    /* set under mu, read also on the way */
	struct cap_node *n;
	struct arena_scan scan;
	char *dir;
	int comp;
	bool isb;
	bool wait;                   /* the tests': all the writing at the end */
	int open_parts;
	uint64_t taken;              /* the spool's bytes polled so far */
};

/* The spool's bytes the stream has taken so far (budget.c: with the
 * bytes written, the trace's bytes per spool byte) */
uint64_t stream_taken(struct stream *s)
{
	return s ? __atomic_load_n(&s->taken, __ATOMIC_RELAXED) : 0;
}

/* What thread j of p wrote into its part and the resolver passed, let
 * go; not what a pass at the end reads again (statuses, gaps, the
 * levels of --syscalls) */
static void drop(struct cap_node *n, struct proc *p, int j)
{
	struct thr *t = &p->thr[j];

	if (n->syscalls || (t->seen & (SEEN_STATUS | SEEN_GAPS)))
		return;
	int a = write_stream_at(t), b = resolve_stream_at(p, j);
	spool_drop(t, a < b ? a : b);
}

/* The bytes the poll took (0 when it failed, or the tests' wait) */
static int64_t step(struct stream *s)
{
	struct cap_node *n = s->n;
	int64_t got;

	/* before any time is taken: the map up to now is then kept */
	if (clock_due(&n->clk))
		clock_fix(&n->clk);
	got = spool_poll(n, &s->scan, 0);
	if (got < 0)
		return 0;
	resolve_stream(n);
	if (s->wait)
		return 0;
	for (int i = 0; i < n->nprocs; i++) {
		struct proc *p = &n->procs[i];
		for (int j = 0; j < p->nthr; j++) {
			struct thr *t = &p->thr[j];
			int ended = thread_ended(p, t);
			if (!t->ws && s->open_parts >= MAX_PARTS)
				continue;
			int had = t->ws != NULL;
			if (__atomic_load_n(&s->halt, __ATOMIC_RELAXED))
				return 0;
			if (write_stream(n, p, t, s->dir, s->comp, s->isb, !ended, &s->halt) < 0)
				continue;
			drop(n, p, j);
			if (!had && t->ws)
				s->open_parts++;
			/* a thread that has ended has nothing more to come:
			 * its part closed, its place free for another */
			if (ended && t->ws && write_stream_end(t) == 0)
				s->open_parts--;
		}
	}
	return got;
}

static void *stream_main(void *arg)
{
	struct stream *s = arg;

	/* the application first: on a CPU it needs, this thread waits */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	int64_t got = 1;	/* the last step's: BUSY_BYTES, behind the app */

	pthread_mutex_lock(&s->mu);
	while (!s->halt) {
		if (got < BUSY_BYTES) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += got ? STEP_BUSY_NS : STEP_NS;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&s->cv, &s->mu, &ts);
			if (s->halt)
				break;
		}
		pthread_mutex_unlock(&s->mu);
		got = step(s);
		if (got > 0)
			__atomic_add_fetch(&s->taken, (uint64_t)got, __ATOMIC_RELAXED);
		pthread_mutex_lock(&s->mu);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

struct stream *stream_start(struct cap_node *n, const char *spool, const char *parts_dir,
			    int comp, bool isb)
{
	struct stream *s = xcalloc(1, sizeof(*s));
	struct rlimit rl;

	/* a part ended holds its descriptor until the trace is written:
	 * ours may have as many as the hard limit (the application runs
	 * already, with the limits it was given) */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	s->n = n;
	s->dir = xstrdup(parts_dir);
	s->comp = comp;
	s->isb = isb;
	s->wait = getenv("ISLAND_TEST_STREAM_WAIT") != NULL;
	s->scan.path = xasprintf("%s/" ARENA_FILE, spool);
	s->scan.fd = open(s->scan.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (s->scan.fd >= 0 && !s->wait)
		arena_ahead_open(&s->scan);
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	/* the signals island-capture passes on are the main thread's */
	if (s->scan.fd < 0 || thread_quiet(&s->th, stream_main, s)) {
		arena_scan_free(&s->scan);
		free(s->dir);
		free(s);
		return NULL;	/* written at the end, as without streaming */
	}
	return s;
}

void stream_stop(struct stream *s)
{
	pthread_mutex_lock(&s->mu);
	__atomic_store_n(&s->halt, 1, __ATOMIC_RELAXED);
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->th, NULL);
}

/* The parts closed and the stream freed */
static void stream_free(struct stream *s)
{
	struct cap_node *n = s->n;

	for (int i = 0; i < n->nprocs; i++)
		for (int j = 0; j < n->procs[i].nthr; j++)
			write_stream_end(&n->procs[i].thr[j]);
	arena_scan_free(&s->scan);
	free(s->dir);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s);
}

/* After the application: the rest of the arena read. -1 when it cannot
 * be (then spool_load's messages say why, and the stream is freed). */
int stream_finish(struct stream *s)
{
	/* what the stream is behind by, taken a poll at a time, written and
	 * let go as while the app ran: the capture's memory stays a poll's */
	__atomic_store_n(&s->halt, 0, __ATOMIC_RELAXED);
	while (!s->wait && step(s) >= (int64_t)BUSY_BYTES)
		;
	if (spool_poll(s->n, &s->scan, 1) < 0) {
		stream_free(s);
		return -1;
	}
	return 0;
}

struct part_job {
	struct proc *p;
	struct thr *t;
	uint64_t left;
};

struct part_pool {
	struct stream *s;
	struct part_job *job;
	size_t njob;
	size_t next;	/* the next job, taken atomically */
};

static void *part_worker(void *arg)
{
	struct part_pool *pl = arg;
	struct stream *s = pl->s;
	size_t k;

	while ((k = __atomic_fetch_add(&pl->next, 1, __ATOMIC_RELAXED)) < pl->njob) {
		struct part_job *j = &pl->job[k];
		/* a failed part: the thread is written whole by the end */
		if (write_stream(s->n, j->p, j->t, s->dir, s->comp, s->isb, 0, NULL) == 0)
			write_stream_end(j->t);
	}
	return NULL;
}

static int cmp_left(const void *a, const void *b)
{
	uint64_t x = ((const struct part_job *)a)->left, y = ((const struct part_job *)b)->left;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The jobs done by ncpu threads, this one among them, the longest first */
static void write_parts(struct part_pool *pl, int ncpu)
{
	size_t nth = (size_t)ncpu < pl->njob ? (size_t)ncpu - 1 : pl->njob - 1, started = 0;
	pthread_t *th = xcalloc(nth, sizeof(*th));

	qsort(pl->job, pl->njob, sizeof(*pl->job), cmp_left);
	while (started < nth && !thread_quiet(&th[started], part_worker, pl))
		started++;
	part_worker(pl);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
}

/*
 * The node resolved: what the threads' parts still lack (PART_MIN records
 * at least) written into them by a thread per CPU, so that model_write
 * only puts the parts in (four threads on two CPUs: the app had both
 * while it ran, and all of the writing was left for the end). Threads
 * write apart: a pthread_create names a thread only its caller made
 * (created_thread), and the indexes they look up are built before
 * (resolve_index_ready). One such thread, or a plain XML trace: left to
 * model_write, whose output compresses on a thread of its own (and a
 * plain XML trace's parts would be copied into it, 159 bytes a call).
 * The parts closed, the stream freed.
 */
void stream_end(struct stream *s)
{
	struct cap_node *n = s->n;
	struct part_pool pl = { .s = s };
	cpu_set_t cpus;
	int ncpu = sched_getaffinity(0, sizeof(cpus), &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
	size_t cap = 0;

	for (int i = 0; i < n->nprocs; i++)
		for (int j = 0; j < n->procs[i].nthr; j++) {
			struct thr *t = &n->procs[i].thr[j];
			uint64_t left = write_stream_left(t);
			if (left < PART_MIN)
				continue;
			XGROW(pl.job, cap, pl.njob + 1);
			pl.job[pl.njob++] = (struct part_job){ &n->procs[i], t, left };
		}
	if (ncpu > 1 && pl.njob > 1 && (s->comp != TC_NONE || s->isb)) {
		resolve_index_ready(n);
		write_parts(&pl, ncpu);
	}
	free(pl.job);
	stream_free(s);
}
