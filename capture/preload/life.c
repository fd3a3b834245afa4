/*
 * A process's life as its spools see it: a fork's child starts its own,
 * a thread's end and the process's (exit, exec) are stamped in them,
 * and a failed exec takes that back.
 */
#include <sys/syscall.h>

#include "preload.h"

void thread_finish(struct tstate *t, int how, int unmap)
{
	int e = errno;
	uint64_t at = 0;

	(void)vfork_state(t);
	if (!t->hdr || (t->hold & HOLD_OFF)) {
		t->hold |= HOLD_OFF;
		return;
	}
	if (t->kpend)
		kpend_flush(t);
	nest_drain(t, 1);
	if (unlikely(prof != NULL))
		at = prof_thread_end(t);
	spool_end(t, how, at);
	sess_thread_gone(t);
	if (unlikely(nrings))
		uring_thread_gone(t);
	t->hold |= HOLD_OFF;
	if (unmap)                   /* the arena stays mapped */
		t->win = NULL;
	t->cur = t->lim = NULL;
	errno = e;
}

/* The process ends (exit, _exit) or its image is replaced (exec): every
 * thread still registered ends now. */
void process_finish(int how)
{
	int e = errno;
	struct tstate *self = &ts;
	uint64_t at = 0;

	if (vfork_state(self)) {
		/* a vfork child that records (vfork_child_open): its own
		 * spool ends, not its parent's threads */
		if (self->vpid && self->hdr && self->hdr->exit == TEXIT_NONE) {
			spool_end(self, how, 0);
			sess_process_gone();
		}
		errno = e;
		return;
	}
	if (self->kpend && self->hdr && !(self->hold & HOLD_OFF))
		kpend_flush(self);
	nest_drain(self, 0);
	/* once: exit, then exit_group */
	if (self->hdr && self->hdr->exit == TEXIT_NONE) {
		uring_finish(self);
		aio_finish(self);
		uring_unseen(self);
	}
	/* --profile: this thread's tail is a last snapshot; the others'
	 * counters stay in their headers for the writer, unless profiling
	 * is off now */
	if (unlikely(prof != NULL) && self->hdr && !(self->hold & HOLD_OFF) &&
	    self->hdr->exit == TEXIT_NONE) {	/* once: exit, then exit_group */
		if (how == TEXIT_EXEC)
			prof_exec_stop(self);
		at = prof_tail(self);
	}
	spool_end_all(self, how, at, prof && !prof->on);
	sess_process_gone();
	errno = e;
}

/* exec failed: the threads go on. */
void process_unfinish(void)
{
	struct spool_hdr *own = ts.hdr;

	if (unlikely(prof != NULL))
		prof_exec_resume(&ts);
	if (own && own->exit == TEXIT_EXEC) {	/* a vfork child's: no registry */
		own->exit = TEXIT_NONE;
		own->end = 0;
		own->cpu_ns = -1;
	}
	spool_unend_all();
}

/* In the child of fork: the parent's threads are gone and their spools are
 * not ours. Start this thread's spool for the new pid. */
void fork_child(pid_t parent_tid, uint64_t t0)
{
	struct tstate *t = &ts;

	sites_fork_child();
	spawn_env_forked();
	aio_fork_child();
	uring_fork_child();
	if (unlikely(prof != NULL))
		prof_fork_child();
	spool_forget_all();
	t->hdr = NULL;
	t->win = NULL;
	t->cur = t->lim = NULL;
	t->hold = 0;
	t->vfork_rec = NULL;        /* the parent's (--syscalls: vfork a fork) */
	t->kcalls = t->kpend = 0;   /* the parent's call's */
	t->nside = 0;               /* calls the parent made inside it */
	t->nest_full = 0;
	t->slot = -1;
	t->creator = 0;
	t->made_at = 0;
	t->made_by = 0;
	t->sslot = 0;
	guard_on(t);
	/* its start without reading /proc where the clock tells it */
	uint64_t ps = pstart_forked(t->fork_boot);
	t->fork_boot = 0;
	if (ps)
		spool_pstart_is((pid_t)SYS(SYS_getpid, 0, 0, 0, 0), ps);
	/* one thread: a safe point to open again what the parent lost */
	spool_attach();
	if (spool_open(t) == 0) {
		t->hdr->start = (int64_t)t0;
		record_proc(t, ORIGIN_FORK, parent_tid, t0, NULL, 0);
		record_fds(t);
	}
	prof_drop_own(t);
}

