/* Calls whose replay is time: compute phases spun (or slept) to their
 * deadlines, sleeps, polls and calls the replay cannot reissue lasting
 * their original time, and the timed mode's issue times. */
#include "exec.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>


void sleep_until(int64_t t)
{
	struct timespec ts = { t / 1000000000, t % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* timed mode: a call is issued at its time. A sleep costs a wake-up
 * (tens of microseconds on a VM), more than calls a few microseconds apart
 * are apart: the last stretch is spun, and a time already past is not
 * slept for at all. */
void issue_at(int64_t t)
{
	int64_t now = rnow_ns();

	if (t - now > 200 * 1000)
		sleep_until(t - 100 * 1000);
	while (rnow_ns() < t)
		;
}

/* A spinning thread yields its core every YIELD_NS: a thread that has a
 * call to make gets it within that, not after the scheduler's slice of
 * the spinner (3 ms here). The phase's end stays its deadline. The
 * original's phases hold the time its threads waited for a core; spun
 * whole, three MPI ranks' start-up phases on two cores kept each other
 * from their calls: a token ring trace replayed 2-14 % long, -2..+1.4 %
 * with it. */
#define YIELD_NS 100000

/* Spinning loads the CPU as the application did: for the whole phase, as
 * a thread that was running or ready to run (a phase's CPU time below its
 * length is the other nodes' load, and a thread that stopped spinning once
 * it had its share would lighten the load it met and shorten the run).
 * The end is a deadline, so a spin preempted midway still ends on time; a
 * spin preempted at its deadline ends late, and the next phase pays that
 * back: the recorded phases already hold the original's preemptions, so a
 * loaded machine would otherwise count them twice. A thread that was
 * provably blocked part of its phases (share < 1, see spin_shares in
 * load.c) sleeps that part first, then spins to the same deadline. */
/* What is left of ns once the time the thread owes has shortened it,
 * as far as it goes: a phase's, a sleep's */
static int64_t pay_back(struct rctx *c, int64_t ns)
{
	int64_t pay = c->late < ns ? c->late : ns;

	if (pay <= 0)
		return ns;
	c->late -= pay;
	c->paid += pay;
	return ns - pay;
}

void compute(struct rctx *c, int64_t ns, double share)
{
	if (opt.compute == COMP_NONE)
		return;
	/* a call of no time, or one the time owed covers, took none */
	c->returned = c->mark;
	if (ns <= 0 || (ns = pay_back(c, ns)) == 0)
		return;
	/* the phase began when the call before it ended: the replayer's own
	 * work in between is part of it, not added to it */
	int64_t end = (c->mark ? c->mark : rnow_ns()) + ns, t;
	c->mark = 0;
	if (opt.compute == COMP_SLEEP) {
		sleep_until(end);
		c->late = rnow_ns() - end;
		return;
	}
	if (share < 1)
		sleep_until(end - (int64_t)((double)ns * share));
	volatile uint64_t x = 0;
	/* from the phase's start, not one clock read more per phase: sqlite's
	 * 78,000 phases last nanoseconds */
	int64_t yield_at = end - ns + YIELD_NS;
	while ((t = rnow_ns()) < end) {
		for (int i = 0; i < 64; i++)
			x += (uint64_t)i;
		if (t >= yield_at) {
			sched_yield();
			yield_at = t + YIELD_NS;
		}
	}
	c->late = t - end;
	/* the next call starts here, and a call whose time this was (h_spent)
	 * ended here: no clock read of their own */
	c->mark = c->returned = t;
}

/* A thread's call and since when (ts->at, ts->since) are the watchdog's,
 * which looks every 100 ms for a call seconds late: stored without a
 * fence (each a locked exchange as plain assignments, 5 to 10 % of a
 * replay of calls a microsecond apart). */

/* A call the replay cannot reissue as it was (the trace does not say
 * which fcntl command, which directory entries, which mapping) whose time
 * was the kernel's lasts its original time, as compute: sqlite's 18,000
 * fcntl locks were 15 % of its run. */
int h_spent(struct rctx *c, const struct op *o)
{
	if (opt.mode == MODE_CAUSAL || opt.mode == MODE_THINK)
		compute(c, (int64_t)((double)o->dur / opt.speed), 1);
	return 0;
}

/* A call that slept sleeps what it slept, not what it asked: the
 * original's timer slack and wake-up latency were part of its run (and an
 * interrupted sleep slept less), from where the call began. So this
 * wake-up's lateness is the replayer's, paid back by the phases after as
 * a late spin's is: an MPI rank's usleeps of 190 us slept 33 us long each.
 * A sleep pays back what is owed too, as a phase does: a loop of sleeps
 * and calls (a rank retrying connect() every 10 ms) owed each sleep's
 * wake-up, 70-120 us here, and its phases of microseconds paid none of
 * it: 3 ranks' 0.02-0.08 s runs replayed 1 to 30 % long. */
static void slept(struct rctx *c, const struct op *o)
{
	int64_t d = pay_back(c, (int64_t)((double)o->dur / opt.speed));
	int64_t until = (c->mark ? c->mark : rnow_ns()) + d;

	sleep_until(until);
	c->returned = until;
}

int h_sleep(struct rctx *c, const struct op *o)
{
	if (opt.mode != MODE_AFAP && opt.mode != MODE_TIMED)
		slept(c, o);
	return 0;
}

/* A read of an event counter, timer, signal queue or inotify: let go by
 * a write of another thread's, already waited for (wake_wait); else it
 * waited what it waited (a timer's expiry, an event from outside) */
int h_event(struct rctx *c, const struct op *o)
{
	return o->waker ? 0 : h_sleep(c, o);
}

/* to its original end: what is left is often less than a sleep's own
 * wake-up (a /proc file's fgets of 0.1 us held 25 us, and Open MPI's
 * start reads a hundred), so the last stretch is spun (issue_at) */
void hold_original(const struct op *o, int64_t t0)
{
	if (opt.mode != MODE_CAUSAL)
		return;	/* think, afap: nobody is waited for; timed: the clock is */
	issue_at(t0 + (int64_t)((double)o->dur / opt.speed));
}

/* The thread's next call after o, skipping compute phases and WAITs. */
static const struct op *next_call(struct rctx *c, const struct op *o)
{
	const struct thread *th = &c->ns->n->threads[c->th];

	for (const struct op *n = o + 1; n < th->ops + th->nops; n++)
		if (n->kind == OP_IO)
			return n;
	return NULL;
}

/* A poll that timed out was a sleep; one that saw data is replaced by the
 * blocking call that follows it. Except when that call receives from a
 * sink: the sink has the bytes at once, so the receive does not block,
 * and what the poll waited for was the outside peer's answer (an MPI
 * rank's progress thread polls 43 ms for its daemon's fence reply).
 * That latency is the peer's, not the replay's to drop: in causal mode
 * such a poll lasts its original time, as a call answered by the sink
 * does (netio.c). WAITs between the poll and the receive still hold it. */
int h_poll(struct rctx *c, const struct op *o)
{
	if (opt.mode == MODE_AFAP || opt.mode == MODE_TIMED)
		return 0;
	/* A zero timeout never slept: its time (half a microsecond) was the
	 * kernel's, as a call's that cannot be reissued. As a sleep, each
	 * cost a wake-up, 20-50 us on a VM: Open MPI's MPI_Recv busy-polls
	 * so, and the token ring's 10,000 such polls a rank made it replay
	 * 10 to 25 % long. */
	if (o->count == 0 && o->timeout == 0)
		return h_spent(c, o);
	if (o->count != 0) {
		const struct op *n = next_call(c, o);
		if (opt.mode != MODE_CAUSAL || !n || n->res != RES_NETRECV || n->failed ||
		    !net_is_sink(fd_get(c, n->fd, NULL)))
			return 0;
	}
	slept(c, o);
	return 0;
}
