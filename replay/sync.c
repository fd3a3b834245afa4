/* WAIT/SIGNAL between local nodes: one shared mapping, made before the
 * nodes fork, holds per node the I/Os it has completed (a count, and a bit
 * per seq so that a WAIT names one exact I/O even when the node's threads
 * complete them out of order) and a futex word bumped on each completion
 * someone waits for. No other software needed. */
#include "replay.h"
#include "util.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct nsync {
	_Atomic uint64_t count;
	_Atomic uint32_t gen;		/* futex word */
	_Atomic uint32_t waiters;
	size_t bits;			/* offset of the bitmap in words */
	size_t whens;			/* offset of each seq's completion time */
	size_t procs;			/* offset of the processes' ends */
	uint32_t nios;
	int waited;			/* someone may wait for its I/Os */
	struct nodestat st;
};

struct sync {
	_Atomic int stop;
	_Atomic int64_t alive;		/* last time a node had a thread not blocked */
	_Atomic uint32_t stopgen;
	size_t nnodes, size;
	struct nsync node[];
};

void (*sync_remote_done)(int node, uint32_t seq);

static _Atomic uint64_t *bitmap(struct sync *s, int node)
{
	return (_Atomic uint64_t *)((char *)s + s->node[node].bits);
}

struct sync *sync_create(const struct trace *t)
{
	size_t size = sizeof(struct sync) + t->nnodes * sizeof(struct nsync);
	size_t words = 0;

	for (size_t i = 0; i < t->nnodes; i++)
		words += t->nodes[i].nios / 64 + 1 + t->nodes[i].nprocs / 8 + 1 +
			 t->nodes[i].nios + 1;
	size = (size + 7) / 8 * 8;
	size_t total = size + words * 8;
	struct sync *s = mmap(NULL, total, PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		die(1, "shared memory for %zu nodes:", t->nnodes);
	s->nnodes = t->nnodes;
	s->size = total;
	size_t off = size;
	for (size_t i = 0; i < t->nnodes; i++) {
		s->node[i].bits = off;
		s->node[i].nios = t->nodes[i].nios;
		s->node[i].waited = t->nodes[i].waited;
		off += (t->nodes[i].nios / 64 + 1) * 8;
		s->node[i].procs = off;
		off += (t->nodes[i].nprocs / 8 + 1) * 8;
		s->node[i].whens = off;
		off += ((size_t)t->nodes[i].nios + 1) * 8;
	}
	return s;
}

static long futex(_Atomic uint32_t *w, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, w, op, val, ts, NULL, 0);
}

static _Atomic int64_t *whens(struct sync *s, int node)
{
	return (_Atomic int64_t *)((char *)s + s->node[node].whens);
}

void sync_done(struct sync *s, int node, uint32_t seq, int64_t when)
{
	struct nsync *n = &s->node[node];

	atomic_fetch_add_explicit(&n->count, 1, memory_order_relaxed);
	/* nobody waits for this node's I/Os: no bit, no wake-up; the time
	 * before the bit, which publishes it */
	if (n->waited && seq && seq <= n->nios) {
		atomic_store_explicit(&whens(s, node)[seq], when, memory_order_relaxed);
		atomic_fetch_or(&bitmap(s, node)[seq / 64], 1ull << (seq % 64));
	}
	if (n->waited && atomic_load(&n->waiters)) {
		atomic_fetch_add(&n->gen, 1);
		futex(&n->gen, FUTEX_WAKE, INT32_MAX, NULL);
	}
	if (sync_remote_done)
		sync_remote_done(node, seq);
}

static int is_done(struct sync *s, int node, uint32_t seq)
{
	return (atomic_load(&bitmap(s, node)[seq / 64]) >> (seq % 64)) & 1;
}

int sync_wait(struct sync *s, int node, uint32_t seq)
{
	struct nsync *n = &s->node[node];
	/* a bounded sleep: a stop request must not wait for a wake-up */
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	if (is_done(s, node, seq))
		return 0;
	atomic_fetch_add(&n->waiters, 1);
	for (;;) {
		uint32_t g = atomic_load(&n->gen);
		if (is_done(s, node, seq) || atomic_load(&s->stop))
			break;
		futex(&n->gen, FUTEX_WAIT, g, &ts);
	}
	atomic_fetch_sub(&n->waiters, 1);
	return atomic_load(&s->stop) ? -1 : 1;
}

int64_t sync_when(struct sync *s, int node, uint32_t seq)
{
	if (!seq || seq > s->node[node].nios || !is_done(s, node, seq))
		return 0;
	return atomic_load_explicit(&whens(s, node)[seq], memory_order_relaxed);
}

uint32_t sync_waiters(struct sync *s)
{
	uint32_t n = 0;

	for (size_t i = 0; i < s->nnodes; i++)
		n += atomic_load(&s->node[i].waiters);
	return n;
}

uint64_t sync_count(struct sync *s, int node)
{
	return atomic_load(&s->node[node].count);
}

void sync_stop(struct sync *s)
{
	atomic_store(&s->stop, 1);
	for (size_t i = 0; i < s->nnodes; i++) {
		atomic_fetch_add(&s->node[i].gen, 1);
		futex(&s->node[i].gen, FUTEX_WAKE, INT32_MAX, NULL);
	}
}

int sync_stopped(struct sync *s)
{
	return atomic_load(&s->stop);
}

struct nodestat *sync_stats(struct sync *s, int node)
{
	return &s->node[node].st;
}

uint8_t *sync_procs(struct sync *s, int node)
{
	return (uint8_t *)s + s->node[node].procs;
}

void sync_alive(struct sync *s, int64_t t)
{
	if (t > atomic_load(&s->alive))
		atomic_store(&s->alive, t);
}

int64_t sync_last_alive(struct sync *s)
{
	return atomic_load(&s->alive);
}
