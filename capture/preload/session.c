/*
 * The causality engine's part in the interposer (issue 5): publish this
 * thread's state (in a call or computing, since when) for the watchdog
 * of other nodes, number the node's I/Os, and, in the throttled node, hold
 * the next I/O until every other node is blocked or exited, logging which
 * nodes were blocked (they were waiting for that I/O).
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"

struct session *sess;
static struct sess_node *me;
static int me_idx;

#define IO_FILEREAD  1
#define IO_FILEWRITE 1
#define IO_FILEMETA  1
#define IO_NETSEND   1
#define IO_NETRECV   1
#define IO_NETMETA   1
#define IO_SLEEP     0
#define IO_WAIT      0
#define IO_PROC      0
#define IO_SYS       0

/* The calls that are I/O for the causality engine (and replay). */
static const unsigned char is_io[C_NCALLS] = {
#define CALL(id, api, res, amount, effect) [C_##id] = IO_##res,
#include "../calls.def"
#undef CALL
};

void sess_init(const char *path, int idx)
{
	long fd = syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CLOEXEC);
	void *p;

	if (fd < 0 || idx < 0 || idx >= SESS_NODES)
		return;
	p = mmap(NULL, sizeof(struct session), PROT_READ | PROT_WRITE, MAP_SHARED,
		 (int)fd, 0);
	syscall(SYS_close, fd);
	if (p == MAP_FAILED || ((struct session *)p)->magic != SESS_MAGIC)
		return;
	sess = p;
	me = &sess->node[idx];
	me_idx = idx;
}

/* This thread's slot in the node's table, claimed when it starts. */
static struct sess_thread *slot(struct tstate *t)
{
	if (t->sslot)
		return &me->th[t->sslot - 1];
	for (int i = 0; i < SESS_THREADS; i++) {
		int32_t none = 0;
		if (__atomic_compare_exchange_n(&me->th[i].tid, &none, t->tid ? t->tid : 1,
						0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			me->th[i].pid = t->pid;
			me->th[i].since = mono_ns();
			t->sslot = i + 1;
			return &me->th[i];
		}
	}
	return NULL;
}

void sess_thread_start(struct tstate *t)
{
	if (sess)
		slot(t);
}

/* The thread ends: its slot is free again. */
void sess_thread_gone(struct tstate *t)
{
	if (!sess || !t->sslot)
		return;
	struct sess_thread *s = &me->th[t->sslot - 1];
	__atomic_store_n(&s->tid, 0, __ATOMIC_RELEASE);
	t->sslot = 0;
}

/* The process ends (or execs): all its threads' slots are freed. */
void sess_process_gone(void)
{
	pid_t pid = (pid_t)syscall(SYS_getpid);

	if (!sess)
		return;
	for (int i = 0; i < SESS_THREADS; i++)
		if (me->th[i].tid && me->th[i].pid == pid)
			__atomic_store_n(&me->th[i].tid, 0, __ATOMIC_RELEASE);
	ts.sslot = 0;
}

/* Blocked: no live thread of the node has completed an I/O within the
 * node's maximum gap, counted from the hold's start at the earliest: our
 * last I/O may just have released the node, which must be given the time
 * to show it. A node with no thread yet has not started. */
static int node_blocked(const struct sess_node *x, int64_t now_ns, int64_t held)
{
	int live = 0;

	for (int i = 0; i < SESS_THREADS; i++) {
		if (!__atomic_load_n(&x->th[i].tid, __ATOMIC_ACQUIRE))
			continue;
		live++;
		int64_t since = x->th[i].since;
		if (now_ns - (since > held ? since : held) <= x->max_gap)
			return 0;
	}
	return live > 0;
}

/* The node's capture is gone (killed): count the node as exited. */
static int node_gone(const struct sess_node *x)
{
	return x->state == SN_EXITED || x->state == SN_FREE ||
	       (x->capture_pid > 0 && kill(x->capture_pid, 0) < 0 && errno == ESRCH);
}

/* Hold until every other node is blocked or exited (or the timeout), then
 * log a dependency of each blocked node's next I/O on our I/O `next`. */
static void hold(uint64_t next)
{
	int e = errno;
	int64_t start = mono_ns(), deadline = start + me->hold_timeout;
	uint64_t blocked[SESS_NODES / 64 + 1] = { 0 };
	uint64_t xseq[SESS_NODES];

	if (me->delay > 0)
		nap_ns(me->delay);
	for (;;) {
		int all = 1, known = 0;
		int64_t now_ns = mono_ns();
		for (int i = 0; i < SESS_NODES; i++) {
			struct sess_node *x = &sess->node[i];
			known += x->state != SN_FREE;
			if (i == me_idx || x->state == SN_FREE)
				continue;
			if (node_blocked(x, now_ns, start)) {
				if (!(blocked[i / 64] & (1ull << (i % 64))))
					xseq[i] = __atomic_load_n(&x->io_seq, __ATOMIC_ACQUIRE) + 1;
				blocked[i / 64] |= 1ull << (i % 64);
				continue;
			}
			blocked[i / 64] &= ~(1ull << (i % 64));
			if (!node_gone(x))
				all = 0;
		}
		/* a node not yet in the session would be overlooked: hold until
		 * as many as expected are known (a late one, or a remote one
		 * whose first state has not arrived yet) */
		if (known < me->expect_nodes)
			all = 0;
		if (all)
			break;
		if (now_ns > deadline) {
			__atomic_add_fetch(&me->hold_timeouts, 1, __ATOMIC_RELAXED);
			break;
		}
		nap_ns(200000);
	}
	for (int i = 0; i < SESS_NODES; i++) {
		if (!(blocked[i / 64] & (1ull << (i % 64))))
			continue;
		uint32_t k = __atomic_fetch_add(&sess->ndeps, 1, __ATOMIC_ACQ_REL);
		if (k >= SESS_DEPS) {
			__atomic_add_fetch(&sess->deps_lost, 1, __ATOMIC_RELAXED);
			continue;
		}
		sess->deps[k] = (struct sess_dep){ me_idx, i, next, xseq[i] };
	}
	errno = e;
}

/* The access family probes a file: programs poll readiness with it (the
 * pseudo-apps do), and a poll is not progress for the watchdog. */
static int is_probe(int call)
{
	return call == C_ACCESS || call == C_FACCESSAT || call == C_EUIDACCESS ||
	       call == C_EACCESS;
}

/* After a record: number it if it is I/O, and hold before the next I/O
 * when this node is throttled and that one is due. */
void sess_record(struct tstate *t, struct rec *r)
{
	if (r->call >= C_NCALLS || !is_io[r->call] || is_probe(r->call))
		return;
	uint64_t k = __atomic_add_fetch(&me->io_seq, 1, __ATOMIC_ACQ_REL);
	struct sess_thread *s = slot(t);
	r->seq = k;
	if (s)
		s->since = mono_ns();
	if (me->throttled && me->period > 0 && (k + 1) % (uint64_t)me->period == 0) {
		__atomic_add_fetch(&me->holds, 1, __ATOMIC_RELAXED);
		hold(k + 1);
	}
}

/* The node's first I/O may be the one another node waits for. */
void sess_start(void)
{
	uint32_t none = 0;

	if (!sess || !me->throttled || me->period != 1 || me->io_seq)
		return;
	/* once per node: the first image to get here */
	if (__atomic_compare_exchange_n(&me->holds, &none, 1, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED))
		hold(1);
}
