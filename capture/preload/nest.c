/*
 * Calls inside calls: a call the program makes while the capture records
 * another of the same thread, in the middle of it: a signal handler's
 * (bash reaps its children in its SIGCHLD handler, which runs inside its
 * read or waitpid), a callback's.
 *
 * The outer call's record is written when it returns, after the inner
 * ones, and a thread's records are in order of their start: the inner
 * calls are recorded aside, in the thread's side buffer, and leave()
 * moves them into the spool after the outer call's record, each marked
 * SEQ_NESTED. The outer call's place in the spool (cur, lim) and its
 * site are kept meanwhile and put back, and the inner call writes its
 * start into a header of the side page's, not the spool's (in_t0,
 * in_wait: streaming reads them as the outer call's).
 *
 * Counted instead, not recorded (spool_hdr.nested): a call of those that
 * change the thread's spool (fork, exec, threads, spawns: enter_top),
 * one inside an inner call, one past the side buffer, and every one in
 * a session, under rate limits or --profile (which number, hold or
 * snapshot a thread's calls in their order).
 */
#include <stddef.h>
#include <sys/mman.h>

#include "preload.h"

/* The side page: a header the inner call's wrapper writes its start
 * and counts into (call_start, enter_slow) in place of the spool's, which
 * streaming reads and which must keep the outer call's; then records */
#define SIDE_HDR (((sizeof(struct spool_hdr) + 63) / 64) * 64)
#define SIDE_RECS(t) ((t)->side + SIDE_HDR)

/* May the thread record an inner call now? */
static int nest_ok(const struct tstate *t)
{
	return !(t->nside & NEST_ON) && !sess && !limits && !prof && !t->kcalls &&
	       !t->vpid && !t->hold;
}

int nest_begin(struct tstate *t)
{
	if (!nest_ok(t))
		return 0;
	/* first, in one instruction: a signal from here on finds an inner
	 * call under way, and is counted (in the spool's header, then in
	 * the side page's) */
	__atomic_fetch_or(&t->nside, NEST_ON, __ATOMIC_SEQ_CST);
	if (!t->side) {
		int e = errno;
		void *p = mmap(NULL, NEST_SIDE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		errno = e;
		if (p == MAP_FAILED || !p) {
			__atomic_fetch_and(&t->nside, ~NEST_ON, __ATOMIC_SEQ_CST);
			return 0;
		}
		t->side = p;
	}
	struct spool_hdr *h = (struct spool_hdr *)t->side;

	h->nested = 0;
	h->in_t0 = h->in_wait = 0;
	t->ns.cur = t->cur;
	t->ns.lim = t->lim;
	t->ns.site = t->site;
	t->ns.hdr = t->hdr;
	t->ns.from = t->nside & ~NEST_ON;
	t->cur = SIDE_RECS(t) + t->ns.from;
	t->lim = t->side + NEST_SIDE;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->hdr = h;
	guard_on(t);
	return 1;
}

/* The inner call has returned: back to the outer one's place */
static void nest_end(struct tstate *t)
{
	struct spool_hdr *h = t->hdr;
	uint32_t used = (uint32_t)(t->cur - SIDE_RECS(t));

	/* first: what a signal counts from here goes to the spool */
	t->hdr = t->ns.hdr;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_fetch_add(&t->hdr->nested, h->nested, __ATOMIC_RELAXED);
	if (t->nest_full) {	/* not all of it fitted: none of it stays */
		used = t->ns.from;
		__atomic_fetch_add(&t->hdr->nested, 1, __ATOMIC_RELAXED);
		t->nest_full = 0;
	}
	t->cur = t->ns.cur;
	t->lim = t->ns.lim;
	t->site = t->ns.site;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->nside = used;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->guard = GUARD_INCALL;
}

/* The side page into the spool, after the outer call's record: a call's
 * short record as a full one, to carry SEQ_NESTED; each record's length
 * stored last, as rec_commit does */
static void side_flush(struct tstate *t)
{
	const size_t lenat = offsetof(struct rec, len), rest = lenat + sizeof(uint16_t);
	uint32_t n = t->nside, at = 0;

	while (at + sizeof(struct srec) <= n) {
		const struct srec *q = (const struct srec *)(SIDE_RECS(t) + at);
		size_t ql = q->len;
		int wide = ql == sizeof(*q) && q->call < C_NCALLS;
		size_t len = wide ? sizeof(struct rec) : ql;
		struct rec *r;

		if (ql < sizeof(*q) || at + ql > n)
			break;
		if (!(r = rec_reserve(t, len))) {
			at += (uint32_t)ql;	/* the spool is full: rec_slow counts it */
			continue;
		}
		if (wide) {
			rec_fill(r, q->call, q->t0, q->t0 + q->dt, q->ret, q->fd,
				 q->a1, q->a2, 0);
		} else {
			memcpy(r, q, lenat);
			memcpy((char *)r + rest, (const char *)q + rest, len - rest);
		}
		if (r->call < C_NCALLS)
			r->seq |= SEQ_NESTED;
		rec_commit(t, &r->len, len);
		at += (uint32_t)ql;
	}
	t->nside = 0;
}

void leave_slow(struct tstate *t)
{
	if (t->nside & NEST_ON) {
		nest_end(t);
		return;
	}
	if (t->nside) {
		/* a signal meanwhile finds the guard up, not in a call */
		t->guard = 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		side_flush(t);
	}
	guard_off(t);
	if (unlikely(t->prof_pending))
		prof_flush(t);
}

/* The thread or process ends where no outer call returns (exit in a
 * handler, a handler's longjmp before it): what the side page holds goes
 * into the spool as it is; a thread's page goes (UNMAP) */
void nest_drain(struct tstate *t, int unmap)
{
	if ((t->nside & NEST_ON) && t->side && t->hdr == (struct spool_hdr *)t->side) {
		t->hdr = t->ns.hdr;
		t->hdr->nested += ((struct spool_hdr *)t->side)->nested;
		t->nside = (uint32_t)(t->cur - SIDE_RECS(t));
		t->cur = t->ns.cur;
		t->lim = t->ns.lim;
	}
	t->nside &= ~NEST_ON;
	if (t->nside && t->hdr && !(t->hold & HOLD_OFF))
		side_flush(t);
	t->nside = 0;
	if (unmap && t->side) {
		int e = errno;

		munmap(t->side, NEST_SIDE);
		errno = e;
		t->side = NULL;
	}
}

/* Not the fast case: in a thread that may not record now, or a vfork
 * child running on its parent's thread state. */
int enter_slow(struct tstate *t, int nest)
{
	pid_t pid = vfork_state(t);

	/* the program's own call, inside one of its calls we record (a
	 * signal handler's, a callback's): recorded aside (nest.c), or
	 * counted where it cannot be. Not
	 * the profiler's (libunwind's, under sysguard), nor under
	 * --syscalls (its system calls are the kernel's records), nor a
	 * fork child's atfork handler's before its spool is its own (the
	 * header is its parent's) */
	if (t->guard == GUARD_INCALL && !t->sysguard && !t->unwinding && !sud_on &&
	    t->hdr && !(t->hold & HOLD_OFF) && island_on &&
	    (pid_t)SYS(SYS_getpid, 0, 0, 0, 0) == t->pid) {
		if (nest && nest_begin(t))
			return 1;
		t->hdr->nested++;
	}
	if (t->guard || !island_on)
		return 0;
	if (pid) {
		if (vfork_child_open(t, pid)) {
			guard_on(t);
			return 1;
		}
		vfork_child_call(t, pid, 1);	/* not ours but for that */
		return 0;
	}
	if (t->hold)
		return 0;
	guard_on(t);
	return 1;
}
