/* Node and thread execution: a node is one process, each traced thread a
 * thread of it. Traced processes of a node keep their own descriptor
 * tables; they are started by the call that created them (fork,
 * pthread_create...) so the replay has the original's concurrency. */
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

/* the report lists failed calls by name and errno (errno kept) */
static void fail_note(struct rctx *c, const struct op *o)
{
	struct nstate *ns = c->ns;
	const char *api = o->call ? o->call->api : "?";
	int e = errno;

	pthread_mutex_lock(&ns->stmu);
	for (int i = 0; i < NFAILS; i++) {
		struct failstat *fs = &ns->st->fails[i];
		if (!fs->n) {
			snprintf(fs->api, sizeof(fs->api), "%s", api);
			fs->err = e;
		}
		if (fs->err == e && !strcmp(fs->api, api)) {
			fs->n++;
			break;
		}
	}
	pthread_mutex_unlock(&ns->stmu);
	errno = e;
}

/* ---- life cycle handlers ------------------------------------------------ */

int h_nop(struct rctx *c, const struct op *o)
{
	return 0;
}

/* A wait of the process's own: the waiting is done before the call
 * (wake_wait), which is then nothing to reissue. */
int h_wake(struct rctx *c, const struct op *o)
{
	return 0;
}

/* A call another thread of the process let go on (replay_wakers in
 * load.c) goes on when the replay of that thread's call has ended, and
 * as long after as originally. Only causal mode waits for anybody. */
static int64_t wake_wait(struct rctx *c, const struct op *o)
{
	struct nstate *ns = c->ns;

	if (!o->waker || opt.mode != MODE_CAUSAL)
		return 0;
	struct rthread *w = &ns->ts[o->waker - 1];
	int64_t t = rnow_ns();
	pthread_mutex_lock(&ns->mu);
	ns->wake_waiters++;
	for (;;) {
		/* before the look: the waker looks at it after its op_done */
		if (w->waited_at > o->wake_op)
			w->waited_at = o->wake_op;
		if (!w->launched || w->finished || w->op_done[o->wake_op] ||
		    sync_stopped(ns->r->sync))
			break;
		pthread_cond_wait(&ns->cv, &ns->mu);
	}
	ns->wake_waiters--;
	int64_t done = w->launched ? w->op_done[o->wake_op] : 0;
	pthread_mutex_unlock(&ns->mu);
	/* the original's lag is tens of microseconds, less than a sleep's
	 * own wake-up here: spun, as a timed issue's last stretch (Open
	 * MPI's start hands its progress thread work and back forty times,
	 * and a 0.14 s rank replayed 3-6 % long, 1.5-3.5 % so) */
	if (done)
		issue_at(done + (int64_t)((double)o->wake_lag / opt.speed));
	return rnow_ns() - t;
}

/* A child starts as long after its creating call began as it did
 * originally (a new thread or process is not instantly running; system()
 * returns only when its shell is done); one that started at once, at
 * once. Either way what its start takes past that (pthread_create, a
 * core for it) is owed, as a late phase is: a vfork'd gzip's first call
 * came 1.5 ms late, and tar | gzip replayed 3 to 20 % long. */
static int64_t start_lag(const struct op *o, int64_t start)
{
	int64_t lag = start - o->start;

	if (opt.mode == MODE_AFAP)
		return 0;
	return rnow_ns() + (lag > 0 ? (int64_t)((double)lag / opt.speed) : 0);
}

int h_thread(struct rctx *c, const struct op *o)
{
	if (o->target >= 0)
		thread_launch(c->ns, o->target, start_lag(o, c->ns->n->threads[o->target].start));
	return 0;
}

static int proc_done(struct nstate *ns, int p);
static void child_wait(struct rctx *c, const struct op *o);

/* system() runs its shell and waits for it; the others return at once. */
int h_spawn(struct rctx *c, const struct op *o)
{
	struct nstate *ns = c->ns;

	if (o->target < 0)
		return 0;
	fd_inherit(ns, c->proc, o->target);
	/* a child first seen running another image than its parent's exec'd
	 * before its first call (a vfork child's execve is not seen): its
	 * close-on-exec ends are closed, as the exec did */
	const struct process *pa = &ns->n->procs[c->proc], *ch = &ns->n->procs[o->target];
	if (ch->image && ch->image != pa->image && ch->image != pa->exe)
		h_exec(&(struct rctx){ .ns = ns, .proc = o->target }, o);
	int th = ns->n->procs[o->target].threads[0];
	thread_launch(ns, th, start_lag(o, ns->n->threads[th].start));
	if (!strcmp(o->call->api, "system")) {
		child_wait(c, o);
		return 0;
	}
	/* a fork's time is its parent's: the kernel copying the process
	 * (vfork's is the child's, and recorded as nothing) */
	if (opt.mode == MODE_CAUSAL || opt.mode == MODE_THINK)
		compute(c, (int64_t)((double)o->dur / opt.speed), 1);
	return 0;
}

int h_exec(struct rctx *c, const struct op *o)
{
	struct pstate *p = &c->ns->ps[c->proc];

	if (o->failed)
		return 0;
	fd_closeall(p, 1);
	/* the new image starts with empty stdio buffers */
	pthread_mutex_lock(&p->mu);
	if (p->fill) {
		memset(p->fill, 0, p->cap * sizeof(*p->fill));
		memset(p->avail, 0, p->cap * sizeof(*p->avail));
	}
	pthread_mutex_unlock(&p->mu);
	return 0;
}

static void wait_for(struct nstate *ns, int *done)
{
	pthread_mutex_lock(&ns->mu);
	while (!*done && !sync_stopped(ns->r->sync))
		pthread_cond_wait(&ns->cv, &ns->mu);
	pthread_mutex_unlock(&ns->mu);
}

int h_join(struct rctx *c, const struct op *o)
{
	if (o->target >= 0 && c->ns->ts[o->target].launched)
		wait_for(c->ns, &c->ns->ts[o->target].finished);
	return 0;
}

static int proc_done(struct nstate *ns, int p)
{
	struct pstate *ps = &ns->ps[p];

	return ps->finished == ps->nthreads;
}

/* The wait ends when the replayed child does, and as long after its end
 * as it did originally (the kernel tearing the child down, the parent
 * woken): that is the child's replayed run, not the original's length. */
static void child_wait(struct rctx *c, const struct op *o)
{
	struct nstate *ns = c->ns;
	const struct process *child = &ns->n->procs[o->target];

	pthread_mutex_lock(&ns->mu);
	while (!proc_done(ns, o->target) && !sync_stopped(ns->r->sync))
		pthread_cond_wait(&ns->cv, &ns->mu);
	int64_t done = ns->ps[o->target].done_ns;
	pthread_mutex_unlock(&ns->mu);
	int64_t lag = o->start + o->dur - child->end;
	if (opt.mode != MODE_AFAP && done && lag > 0 && lag <= o->dur)
		sleep_until(done + (int64_t)((double)lag / opt.speed));
}

int h_waitpid(struct rctx *c, const struct op *o)
{
	if (o->target >= 0 && c->ns->ps[o->target].launched)
		child_wait(c, o);
	return 0;
}

/* ---- threads ------------------------------------------------------------ */

struct targ {
	struct nstate *ns;
	int th;
};

/* The ops up to `last` of this thread ended: wake the threads waiting for
 * one of them, and only then. Every op's broadcast woke every waiter of
 * the process: a rank's 1,000 hwloc calls in MPI_Init woke its two
 * waiting threads 2,000 times, for nothing, on two cores. */
static void ops_done(struct nstate *ns, struct rthread *ts, size_t last)
{
	if (!ns->wake_waiters || ts->waited_at > last)
		return;
	pthread_mutex_lock(&ns->mu);
	ts->waited_at = NOT_WAITED;	/* those still waiting say so again */
	pthread_cond_broadcast(&ns->cv);
	pthread_mutex_unlock(&ns->mu);
}

static void stat_add(struct nstate *ns, struct rctx *c)
{
	pthread_mutex_lock(&ns->stmu);
	for (int f = 0; f < NFAM; f++) {
		ns->st->fam[f].calls += c->fam[f].calls;
		ns->st->fam[f].orig_ns += c->fam[f].orig_ns;
		ns->st->fam[f].repl_ns += c->fam[f].repl_ns;
		ns->st->fam[f].orig_bytes += c->fam[f].orig_bytes;
		ns->st->fam[f].repl_bytes += c->fam[f].repl_bytes;
		for (int b = 0; b < LAT_BUCKETS; b++) {
			ns->st->fam[f].lat_orig[b] += c->fam[f].lat_orig[b];
			ns->st->fam[f].lat_repl[b] += c->fam[f].lat_repl[b];
		}
	}
	ns->st->calls += c->calls;
	ns->st->skipped += c->skipped;
	ns->st->deps += c->deps;
	ns->st->dep_ns += c->dep_ns;
	ns->st->failed += c->failed;
	if (c->unwritten && !ns->st->unwritten) {
		ns->st->werr = c->werr;
		ns->st->wpath = c->wpath;
	}
	ns->st->unwritten += (uint64_t)c->unwritten;
	pthread_mutex_unlock(&ns->stmu);
}

/* Data that came between two of the original's polls was seen at the
 * later one: the loop ends at its first poll, by its original offsets,
 * at or after the data came here. Polls microseconds apart make that at
 * once; Open MPI's progress engine, with no event users, polls only every
 * 10 ms, and a halo exchange's receive that came mid-tick waited for the
 * tick (dropping it made a rank replay 6 to 10 % short). */
static int64_t busy_seen(const struct thread *th, size_t i, int64_t came)
{
	const struct op *o = &th->ops[i];

	for (size_t k = i; k < o->busy_end; k++) {
		const struct op *p = &th->ops[k];
		int64_t at = (int64_t)((double)(p->start - o->start) / opt.speed);
		if (p->kind == OP_IO && at >= came)
			return at;
	}
	return came;
}

/* The calls of ops from..to-1, not made one by one: counted as the
 * original's, over now (c->mark) for whoever waits on them */
static void ops_over(struct rctx *c, const struct thread *th, size_t from, size_t to)
{
	struct rthread *ts = &c->ns->ts[c->th];

	for (size_t k = from; k < to; k++) {
		const struct op *p = &th->ops[k];
		if (p->kind != OP_IO)
			continue;
		enum family f = op_family(p);
		c->fam[f].calls++;
		c->fam[f].orig_ns += p->dur;
		c->calls++;
		sync_done(c->ns->r->sync, c->ns->r->node, p->seq, c->mark - c->late);
		ts->op_done[k] = c->mark;
	}
}

/* A busy wait (replay_busywaits in load.c) polls, as the original did,
 * the descriptor its receive reads until there is something to read, and
 * is then over at the original's first poll after that (busy_seen): not
 * as many times as it polled there (each replayed poll costs more than
 * the original's, and the loop ran on long after the data had come). From a
 * sink, whose data is there at once, it lasts its original time: the
 * outside peer's. Returns the index of its last poll, or i when it is
 * replayed call by call: its descriptor is not open yet, or takes
 * datagrams, which are not waited for (their sender may be outside). */
static size_t busy_wait(struct rctx *c, const struct thread *th, size_t i)
{
	const struct op *o = &th->ops[i], *last = &th->ops[o->busy_end - 1];
	int fd = fd_get(c, th->ops[o->busy_recv - 1].fd, NULL);
	struct rthread *ts = &c->ns->ts[c->th];

	if (fd < 0 || net_is_dgram(fd))
		return i;
	int64_t t = c->mark ? c->mark : rnow_ns();
	atomic_store_explicit(&ts->at, o, memory_order_relaxed);
	atomic_store_explicit(&ts->since, t, memory_order_relaxed);
	if (net_is_sink(fd)) {
		compute(c, (int64_t)((double)(last->start + last->dur - o->start) / opt.speed), 1);
	} else {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		while (poll(&p, 1, 100) == 0 && !sync_stopped(c->ns->r->sync))
			;
		int64_t came = rnow_ns() - t;
		c->mark = 0;
		c->late = 0;
		compute(c, busy_seen(th, i, came) - came, th->spin);
		c->late = 0;
	}
	atomic_store_explicit(&ts->since, 0, memory_order_relaxed);
	c->mark = rnow_ns();
	ops_over(c, th, i, o->busy_end);
	c->fam[op_family(o)].repl_ns += c->mark - t + c->waited;
	c->waited = 0;
	c->floor = 0;
	return o->busy_end - 1;
}

/* A poll for a child (replay_childpolls in load.c) that has ended here
 * would have found it: the polls and sleeps up to the wait that reaped
 * it are over, counted as the original's and not made (a replay on a
 * faster disk than the capture's polled on for the original's 8 s while
 * fio's job ended in 4). 1 when they are, 0 when the child runs on. */
static int child_polled(struct rctx *c, const struct thread *th, size_t i)
{
	const struct op *o = &th->ops[i], *reap = &th->ops[o->cpoll_end - 1];
	struct nstate *ns = c->ns;

	if (reap->target < 0 || !ns->ps[reap->target].launched)
		return 0;
	pthread_mutex_lock(&ns->mu);
	int ended = proc_done(ns, reap->target);
	pthread_mutex_unlock(&ns->mu);
	if (!ended)
		return 0;
	if (!c->mark)
		c->mark = rnow_ns();
	ops_over(c, th, i, o->cpoll_end - 1);
	return 1;
}

static void run_ops(struct rctx *c, const struct thread *th)
{
	struct nstate *ns = c->ns;
	struct node_run *r = ns->r;
	struct rthread *ts = &ns->ts[c->th];
	struct pstate *ps = &ns->ps[c->proc];
	const int waits = opt.mode == MODE_CAUSAL;
	const int computes = opt.mode == MODE_CAUSAL || opt.mode == MODE_THINK;

	for (size_t i = 0; i < th->nops && !sync_stopped(r->sync) && !ps->ended; i++) {
		const struct op *o = &th->ops[i];

		/* an op is 200 bytes, and sort replays a million of them
		 * back to back: ask for the ones ahead */
		for (size_t b = 0; b < sizeof(*o); b += 64)
			__builtin_prefetch((const char *)(o + 8) + b);

		switch (o->kind) {
		case OP_COMPUTE:
			if (computes)
				compute(c, (int64_t)((double)o->dur / opt.speed), th->spin);
			continue;
		case OP_WAIT:
			/* a wait that blocked absorbed the thread's lateness,
			 * and takes on the peer's; its time is the next
			 * call's, as the original call held it */
			if (waits && r->sel[o->node]) {
				int64_t t = rnow_ns();
				atomic_store_explicit(&ts->at, o, memory_order_relaxed);
				atomic_store_explicit(&ts->since, t, memory_order_relaxed);
				if (sync_wait(r->sync, o->node, o->seq) > 0) {
					/* A peer publishes when its I/O would have
					 * completed had it owed nothing (sync_done
					 * below): what it owes is the replayer's, and
					 * a chain of calls with no phase between them
					 * (messages back and forth) passed it on to
					 * every node without paying it back. What the
					 * wake-up took past that (and past the
					 * original's own wake-up lag, the floor
					 * below), a futex's and a scheduler's, and
					 * what this thread owed where it would not
					 * have waited that long, are owed too: paid
					 * back by the phases after, as a late spin
					 * is. */
					int64_t w = rnow_ns(), at = sync_when(r->sync, o->node, o->seq);
					if (at && o->wake_lag > 0)
						at += (int64_t)((double)o->wake_lag / opt.speed);
					if (at && at < t - c->late)
						at = t - c->late;
					c->late = at && w > at ? w - at : 0;
					c->deps++;
					c->dep_ns += c->late;
				}
				/* the original's wake-up after that I/O (load.c,
				 * replay_wait_lags): the call ends no earlier */
				int64_t d = o->wake_lag > 0 ? sync_when(r->sync, o->node, o->seq) : 0;
				if (d) {
					int64_t f = d + (int64_t)((double)o->wake_lag / opt.speed);
					if (f > c->floor)
						c->floor = f;
				}
				atomic_store_explicit(&ts->since, 0, memory_order_relaxed);
				c->waited += rnow_ns() - t;
				c->mark = 0;
			}
			continue;
		case OP_SIGNAL:
			continue;	/* every completion is published */
		}
		if (opt.mode == MODE_TIMED) {
			issue_at(r->t0_ns + r->offset_ns + (int64_t)((double)o->start / opt.speed));
			c->mark = 0;
		}
		if (o->cpoll_end && opt.mode == MODE_CAUSAL && child_polled(c, th, i)) {
			i = o->cpoll_end - 2;	/* the reaping wait next */
			ops_done(ns, ts, i);
			continue;
		}
		if (o->busy_end && opt.mode == MODE_CAUSAL) {
			size_t last = busy_wait(c, th, i);
			if (last != i) {
				i = last;
				ops_done(ns, ts, i);
				continue;
			}
		}

		enum family f = op_family(o);
		c->fam[f].calls++;
		c->fam[f].orig_ns += o->dur;
		c->fam[f].lat_orig[lat_bucket(o->dur)]++;
		if (o->has_amount && !o->failed && !o->libc_only)
			c->fam[f].orig_bytes += o->amount;
		call_fn fn = o->call ? o->call->fn : NULL;
		if (o->in_mpi) {
			/* --mpi: what an MPI call issued again made below it
			 * (its sockets' reads and writes) is that call's now */
			c->skipped++;
			fn = NULL;
		} else if (o->mpi) {
			fn = h_mpi;	/* the MPI call itself, again (mpi.c) */
		} else if (!o->call) {
			/* not reissued; a metadata call (fchown, chmod, a
			 * setsockopt: the trace holds no owner, mode or value)
			 * lasts its original time, the kernel's (sqlite's 2,000
			 * fchowns: 1.8 % of its run) */
			c->skipped++;
			if (o->res == RES_FILEMETA || o->res == RES_NETMETA)
				fn = h_spent;
		}
		if (fn && !o->libc_only) {	/* else its kernel elements moved the bytes */
			int64_t t = c->mark ? c->mark : rnow_ns(), s = t;
			c->moved = 0;
			c->issued = c->returned = c->paid = 0;
			atomic_store_explicit(&ts->at, o, memory_order_relaxed);
			atomic_store_explicit(&ts->since, t, memory_order_relaxed);
			/* the replayer's own steps since the last call or phase
			 * ended are no call's: the phases after pay them back, as
			 * the original's phases held the capture's own work
			 * around its calls (sqlite's 78,000 calls of a few
			 * microseconds: 15-20 % long before, 5-14 % with it) */
			if (computes && c->mark) {
				s = rnow_ns();
				c->late += s - t;
			}
			c->mark = s;	/* where a spin of the call's time starts */
			int64_t woke = wake_wait(c, o);
			if (woke)
				c->mark = 0;
			int rc = fn(c, o);
			/* so are its steps up to its first system call (SYS):
			 * a descriptor looked up, a path mapped. Its end: its
			 * last system call's or spin's, else now. */
			if (c->issued) {
				if (computes)
					c->late += c->issued - woke - s;
				s = c->issued - woke;
			}
			int64_t e = c->returned ? c->returned : rnow_ns();
			/* what the kernel took to make a file of its own (a PCI
			 * device's configuration read through the hypervisor:
			 * 0.9 ms; hwloc reads dozens in MPI_Init) is no storage's:
			 * the replay reads a copy under its root at once */
			int held = 0;
			if (o->kfile) {
				hold_original(o, s);
				held = 1;
			}
			if (c->floor && rnow_ns() < c->floor) {
				issue_at(c->floor);
				held = 1;
			}
			atomic_store_explicit(&ts->since, 0, memory_order_relaxed);
			/* the time the limit holds the call is the call's, as in the capture */
			int64_t hold = limit_hold(ns->n->name, o->res, c->moved);
			if (hold > 0) {
				sleep_ns(hold);
				held = 1;
			}
			/* from the call's end, the replayer's again */
			c->mark = held ? rnow_ns() : e;
			/* a spin of its time that the time owed shortened
			 * lasted that much more, as the report sees it */
			c->fam[f].repl_ns += c->mark - s + c->waited + c->paid;
			c->fam[f].lat_repl[lat_bucket(c->mark - s + c->waited + c->paid)]++;
			c->fam[f].repl_bytes += c->moved;
			/* a call that failed in the trace may fail again */
			if (rc < 0 && !o->failed) {
				c->failed++;
				fail_note(c, o);
				replay_warn(c, o, "replay of");
			}
		}
		c->waited = 0;
		c->floor = 0;
		c->calls++;
		int64_t done = c->mark ? c->mark : rnow_ns();
		sync_done(r->sync, r->node, o->seq, done - c->late);
		ts->op_done[i] = done;
		ops_done(ns, ts, i);
	}
}

/* A process that died of SIGPIPE was killed by a write the trace does not
 * hold (it never returned): the write after its last one. When a write
 * already found its reader gone, that is how it ends; else the replay
 * issues it on the same descriptor, again while it is taken, until the
 * reader is gone (the watchdog ends a reader that never goes). Only
 * causal mode has real readers; the other modes' sinks read forever. */
static void last_write(struct rctx *c, const struct thread *th)
{
	struct pstate *ps = &c->ns->ps[c->proc];
	const struct op *o = NULL;

	if (!ps->sigpipe || opt.mode != MODE_CAUSAL || sync_stopped(c->ns->r->sync))
		return;
	if (ps->gone) {
		ps->ended = 1;
		return;
	}
	for (size_t i = th->nops; i-- > 0 && !o;)
		if (th->ops[i].kind == OP_IO && th->ops[i].res == RES_NETSEND && th->ops[i].fd >= 0)
			o = &th->ops[i];
	int fd = o ? fd_get(c, o->fd, NULL) : -1;
	if (fd < 0)
		return;
	int64_t n = o->has_amount && o->amount > 0 ? o->amount : 4096;
	if ((uint64_t)n > IO_CHUNK)	/* the same write again: one chunk's worth */
		n = (int64_t)IO_CHUNK;
	char *b = xbuf(c, n);
	struct rthread *ts = &c->ns->ts[c->th];
	atomic_store_explicit(&ts->at, o, memory_order_relaxed);
	atomic_store_explicit(&ts->since, rnow_ns(), memory_order_relaxed);
	while (!sync_stopped(c->ns->r->sync))
		if (write(fd, b, (size_t)n) < 0 && errno != EINTR) {
			if (errno == EPIPE || errno == ECONNRESET)
				ps->ended = 1;
			break;
		}
	atomic_store_explicit(&ts->since, 0, memory_order_relaxed);
}

static void *thread_main(void *arg)
{
	struct targ *a = arg;
	struct nstate *ns = a->ns;
	const struct thread *th = &ns->n->threads[a->th];
	int me = a->th;
	struct rctx c = { .ns = ns, .th = me, .proc = th->proc };
	int64_t delay = ns->ts[me].delay;

	free(a);
	if (delay > 0 && opt.mode != MODE_AFAP) {
		sleep_until(delay);
		/* a thread that starts late (its node still starting on a busy
		 * machine) pays that back like a late phase */
		c.late = rnow_ns() - delay;
	}
	/* a process of one thread takes no reference on a file for each
	 * call on it (fdget's fast path), and its calls are no cancellation
	 * points (glibc's SINGLE_THREAD_P); the replayer's threads (this one,
	 * the watchdog, the first) share a table, and each cancellable call
	 * marks itself so: 10 and 24 ns more per call here, 2 % of sqlite's
	 * run. A node of one thread issues its calls directly (c.solo), on a
	 * table of its own, a copy; not under --mpi, where this thread's
	 * completions are MPI sends, and a connection one opens must be the
	 * library's other threads' too. */
	if (ns->n->nthreads == 1) {
		c.solo = 1;
		if (!opt.mpi)
			(void)unshare(CLONE_FILES);
	}
	run_ops(&c, th);
	aio_end();
	if (ns->n->procs[th->proc].threads[0] == me) {
		if (!ns->ps[th->proc].ended && !sync_stopped(ns->r->sync))
			stdio_flush_all(&c);
		last_write(&c, th);
	}
	int64_t done = rnow_ns();
	stat_add(ns, &c);
	free(c.buf);

	pthread_mutex_lock(&ns->mu);
	ns->ts[me].finished = 1;
	if (done > ns->done_ns)
		ns->done_ns = done;
	struct pstate *ps = &ns->ps[th->proc];
	if (++ps->finished == ps->nthreads) {
		ps->done_ns = done;
		fd_closeall(ps, 0);
		sync_procs(ns->r->sync, ns->r->node)[th->proc] = ps->ended ? PE_SIGPIPE :
			sync_stopped(ns->r->sync) ? PE_STOPPED : PE_ENDED;
	}
	ns->finished++;
	pthread_cond_broadcast(&ns->cv);
	pthread_mutex_unlock(&ns->mu);
	return NULL;
}

void thread_launch(struct nstate *ns, int th, int64_t delay)
{
	struct targ *a = xmalloc(sizeof(*a));
	pthread_attr_t at;

	pthread_mutex_lock(&ns->mu);
	if (ns->ts[th].launched) {
		pthread_mutex_unlock(&ns->mu);
		free(a);
		return;
	}
	ns->ts[th].launched = 1;
	ns->ps[ns->n->threads[th].proc].launched = 1;
	ns->ts[th].delay = delay;
	pthread_mutex_unlock(&ns->mu);
	a->ns = ns;
	a->th = th;
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 256 * 1024);
	int err = pthread_create(&ns->ts[th].pt, &at, thread_main, a);
	pthread_attr_destroy(&at);
	if (err) {
		errno = err;
		die(1, "node %s: cannot create thread %d:", ns->n->name, th);
	}
}

/* ---- the watchdog ---------------------------------------------------------
 * A call that runs on past its original time by --stall seconds will not
 * return: its peer is blocked or gone (a reader the replay never feeds, a
 * child that never ends). The replay names it and gives up, rather than
 * hang. */

static const struct { call_fn fn; const char *why; } stuck_reasons[] = {
	{ h_recv, "waiting for data nobody sends (the writer is blocked, or gone early)" },
	{ h_read, "waiting for data nobody sends (the writer is blocked, or gone early)" },
	{ h_send, "its reader does not read" },
	{ h_write, "its reader does not read" },
	{ h_accept, "waiting for a connection that does not come" },
	{ h_connect, "the connection is not accepted" },
	{ h_waitpid, "waiting for a child process that does not end" },
	{ h_spawn, "waiting for a child process that does not end" },
	{ h_join, "waiting for a thread that does not end" },
};

static void stuck(struct nstate *ns, int th, const struct op *o, int64_t for_ns)
{
	const struct process *p = &ns->n->procs[ns->n->threads[th].proc];
	const char *exe = p->exe ? strrchr(p->exe, '/') : NULL;
	const char *why = "the call does not return";
	char buf[160], fd[24] = "";

	if (o->kind == OP_WAIT) {
		snprintf(buf, sizeof(buf), "waiting for node %s's I/O #%u", ns->r->t->nodes[o->node].name,
			 o->seq);
		why = buf;
	}
	for (size_t i = 0; o->call && i < sizeof(stuck_reasons) / sizeof(*stuck_reasons); i++)
		if (o->call->fn == stuck_reasons[i].fn)
			why = stuck_reasons[i].why;
	if (o->fd >= 0)
		snprintf(fd, sizeof(fd), " fd %d", slot_tfd(ns->n, o->fd));
	warn_at(ns->r->t->file, o->line, "node %s: process %ld (%s), thread %ld: %s%s: "
		"no progress for %.1f s: %s", ns->n->name, p->pid, exe ? exe + 1 : "?",
		ns->n->threads[th].tid, o->kind == OP_WAIT ? "WAIT" : o->call ? o->call->api : "?",
		fd, (double)for_ns / 1e9, why);
}

static void *watchdog(void *arg)
{
	struct nstate *ns = arg;
	int64_t stall = (int64_t)(opt.stall * 1e9), moved = rnow_ns();
	uint64_t done = 0;

	pthread_mutex_lock(&ns->mu);
	while (!ns->over && !sync_stopped(ns->r->sync)) {
		int64_t t = rnow_ns() + 100 * 1000 * 1000;
		struct timespec tick = { t / 1000000000, t % 1000000000 };
		pthread_cond_timedwait(&ns->wdcv, &ns->mu, &tick);
		t = rnow_ns();
		/* a replay slower than the original (a --limit, a slow
		 * peer) still completes calls somewhere, or has a thread
		 * that is not blocked in one (computing, held by a limit,
		 * not started yet): only a replay where no node has either
		 * is stuck */
		for (size_t i = 0; i < ns->n->nthreads; i++)
			if (ns->ts[i].launched && !ns->ts[i].finished && !ns->ts[i].since) {
				sync_alive(ns->r->sync, t);
				break;
			}
		uint64_t d = 0;
		for (size_t k = 0; k < ns->r->t->nnodes; k++)
			d += sync_count(ns->r->sync, (int)k);
		if (d != done) {
			done = d;
			moved = t;
		}
		if (sync_last_alive(ns->r->sync) > moved)
			moved = sync_last_alive(ns->r->sync);
		if (t - moved <= stall)
			continue;
		/* every thread stuck is named: one waits for another */
		int stuck_any = 0;
		for (size_t i = 0; i < ns->n->nthreads; i++) {
			int64_t since = ns->ts[i].since;
			const struct op *o = ns->ts[i].at;
			if (!since || !o)
				continue;
			/* a WAIT's time is the call's it precedes (ops of a
			 * thread are one array) */
			const struct thread *th = &ns->n->threads[i];
			const struct op *call = o;
			while (call->kind == OP_WAIT && call + 1 < th->ops + th->nops)
				call++;
			int64_t late = t - since - (int64_t)((double)call->dur / opt.speed);
			if (late > stall && ns->ts[i].since == since) {
				stuck(ns, (int)i, o, t - since);
				stuck_any = 1;
			}
		}
		if (stuck_any)
			_exit(3);
	}
	pthread_mutex_unlock(&ns->mu);
	return NULL;
}

/* A descriptor table shared by threads grows only after an RCU grace
 * period, each time it doubles: 2-10 ms here, which made Python's 911
 * stats and opens (2 ms captured) replay in 7-23 ms when the replay
 * started with no descriptor above 2. Grown while this process has one
 * thread, it costs nothing, and tables never shrink. */
static void fd_table_reserve(int fd)
{
	struct rlimit rl;
	long n = 1024;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < (rlim_t)n)
		n = (long)rl.rlim_cur;
	int d = n > 64 ? fcntl(fd, F_DUPFD_CLOEXEC, (int)n - 1) : -1;
	if (d >= 0)
		close(d);
}

/* Replays one node in the calling process; returns its exit status. */
int run_node(struct node_run *r)
{
	const struct node *n = &r->t->nodes[r->node];
	struct nstate ns = { .r = r, .n = n };

	/* wake-ups on time: the default 50 us slack would add up */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	fd_table_reserve(r->rootfd);
	ns.ps = xcalloc(n->nprocs + 1, sizeof(*ns.ps));
	ns.ts = xcalloc(n->nthreads + 1, sizeof(*ns.ts));
	ns.st = sync_stats(r->sync, r->node);
	pthread_mutex_init(&ns.mu, NULL);
	pthread_cond_init(&ns.cv, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ns.wdcv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&ns.stmu, NULL);
	for (size_t i = 0; i < n->nthreads; i++) {
		ns.ts[i].op_done = xcalloc(n->threads[i].nops + 1, sizeof(*ns.ts[i].op_done));
		ns.ts[i].waited_at = NOT_WAITED;
	}
	for (size_t p = 0; p < n->nprocs; p++) {
		pthread_mutex_init(&ns.ps[p].mu, NULL);
		ns.ps[p].nthreads = (int)n->procs[p].nthreads;
		ns.ps[p].sigpipe = !strcmp(n->procs[p].status, "signal:SIGPIPE");
	}
	/* a write whose reader is gone fails with EPIPE, and the replay
	 * decides (the original may have died of it, or its reader may only
	 * have gone early here) */
	signal(SIGPIPE, SIG_IGN);
	pthread_t wd;
	if (opt.stall > 0 && pthread_create(&wd, NULL, watchdog, &ns))
		die(1, "node %s: cannot create the watchdog:", n->name);
	ns.st->orig_ns = n->end - n->start;
	ns.st->total = n->nall;

	int64_t t0 = rnow_ns();
	ns.st->t0_ns = t0;
	/* processes nobody creates start at their own time; so do threads */
	for (size_t i = 0; i < n->nthreads; i++) {
		const struct thread *th = &n->threads[i];
		const struct process *p = &n->procs[th->proc];
		int main_thread = p->threads[0] == (int)i;
		if (main_thread ? !p->started_by : !th->started_by)
			thread_launch(&ns, (int)i, r->t0_ns + r->offset_ns +
				      (int64_t)((double)(th->start - n->start) / opt.speed));
	}
	pthread_mutex_lock(&ns.mu);
	while (ns.finished < (int)n->nthreads && !sync_stopped(r->sync)) {
		/* threads whose creator never ran them would hold us forever */
		int waiting = 0;
		for (size_t i = 0; i < n->nthreads; i++)
			if (ns.ts[i].launched && !ns.ts[i].finished)
				waiting = 1;
		if (!waiting)
			break;
		pthread_cond_wait(&ns.cv, &ns.mu);
	}
	pthread_mutex_unlock(&ns.mu);
	for (size_t i = 0; i < n->nthreads; i++)
		if (ns.ts[i].launched)
			pthread_join(ns.ts[i].pt, NULL);
	for (size_t i = 0; i < n->nthreads; i++)
		free((void *)ns.ts[i].op_done);
	if (opt.stall > 0) {
		pthread_mutex_lock(&ns.mu);
		ns.over = 1;
		pthread_cond_signal(&ns.wdcv);
		pthread_mutex_unlock(&ns.mu);
		pthread_join(wd, NULL);
	}
	/* the original node ran on after its last thread (exit, teardown).
	 * The node ends when its last thread did, not when this thread,
	 * woken on a loaded machine, gets to see it. */
	int64_t last = n->start;
	for (size_t i = 0; i < n->nthreads; i++)
		if (n->threads[i].end > last)
			last = n->threads[i].end;
	int64_t end = ns.done_ns ? ns.done_ns : rnow_ns();
	if (opt.mode != MODE_AFAP && !sync_stopped(r->sync) && n->end > last) {
		end += (int64_t)((double)(n->end - last) / opt.speed);
		sleep_until(end);
	}
	ns.st->t1_ns = end;
	ns.st->repl_ns = ns.st->t1_ns - (r->t0_ns + r->offset_ns);
	if (ns.st->repl_ns < 0 || opt.mode == MODE_AFAP)
		ns.st->repl_ns = ns.st->t1_ns - t0;
	return sync_stopped(r->sync) ? 1 : 0;
}
