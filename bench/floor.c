/*
 * The least a per-call recorder costs (bench/floor.sh): an LD_PRELOAD
 * library whose write() takes two cycle-counter readings around the real
 * call and stores a 32-byte record of it, nothing else (no guard, no
 * spool header, no file: what Island's interposer does at the least).
 * FLOOR_NONE=1: the two readings and nothing kept (what taking a call's
 * start and end costs, before any record); FLOOR_RING=1: the records go round a 1 MiB ring that stays in the cache
 * (a consumer that keeps up at no cost); with FLOOR_DRAIN=1 too, a thread
 * on the other core reads them there a millisecond behind, as any
 * recorder's writer must read them (it only reads: the app pays for
 * taking back lines another core has read); else into fresh memory,
 * FLOOR_MB of it given by the kernel in one call at the start (its pages
 * allocated and zeroed, as any recorder's memory must be once).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <x86intrin.h>

struct srec {
	uint64_t t0;
	uint32_t dt;
	int32_t fd, ret, a1, a2;
	uint16_t call, len;
};

static ssize_t (*real_write)(int, const void *, size_t);
static int none;
static volatile uint64_t spent;
static char *base;
static size_t size, mask;
static size_t next;                 /* bytes handed out, all threads */
static __thread char *cur, *lim;

static volatile uint64_t drained;

/* the ring's reader: takes each record once its length is there and its
 * stamp newer than the last (an older one is the last lap's), sleeps
 * 1 ms when it has caught up */
static void *drain(void *unused)
{
	uint64_t last = 0, sum = 0;
	size_t at = 0;

	(void)unused;
	for (;;) {
		const struct srec *q = (const struct srec *)(base + (at & mask));

		if (!__atomic_load_n(&q->len, __ATOMIC_ACQUIRE) || q->t0 <= last) {
			usleep(1000);
			continue;
		}
		last = q->t0;
		sum += q->t0 + q->dt + (uint64_t)q->fd + (uint64_t)q->ret;
		drained = sum;
		at += sizeof(*q);
	}
	return NULL;
}

__attribute__((constructor)) static void floor_init(void)
{
	const char *mb = getenv("FLOOR_MB");
	int ring = getenv("FLOOR_RING") != NULL;

	real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if ((none = getenv("FLOOR_NONE") != NULL))
		return;
	size = ring ? 1u << 20 : (size_t)(mb ? atol(mb) : 64) << 20;
	mask = ring ? size - 1 : 0;
	base = mmap(NULL, size, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (base == MAP_FAILED)
		base = NULL;
	if (base && ring && getenv("FLOOR_DRAIN")) {
		pthread_t th;

		if (pthread_create(&th, NULL, drain, NULL) == 0)
			pthread_detach(th);
	}
}

/* a thread's next 64 KiB of the memory (the ring: all of it, shared) */
static int floor_more(void)
{
	size_t at = __atomic_fetch_add(&next, 1u << 16, __ATOMIC_RELAXED);

	if (!base || (!mask && at + (1u << 16) > size))
		return -1;
	cur = base + (mask ? at & mask : at);
	lim = cur + (1u << 16);
	return 0;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	if (!real_write)	/* a write before the constructor ran */
		floor_init();
	uint64_t t0 = __rdtsc();
	ssize_t r = real_write(fd, buf, n);
	uint64_t t1 = __rdtsc();

	if (none) {
		spent = t1 - t0;
		return r;
	}
	if (cur + sizeof(struct srec) > lim && floor_more() < 0)
		return r;
	struct srec *q = (struct srec *)cur;
	q->t0 = t0;
	q->dt = (uint32_t)(t1 - t0);
	q->fd = fd;
	q->ret = (int32_t)r;
	q->a1 = (int32_t)n;
	q->a2 = -1;
	q->call = 1;
	__atomic_store_n(&q->len, (uint16_t)sizeof(*q), __ATOMIC_RELEASE);
	cur += sizeof(*q);
	return r;
}
