/*
 * A vfork child running on its parent's thread state, until it execs
 * or exits: it records as a fork's child does, in a spool of its own,
 * while the parent's part of the state is kept aside.
 */
#include <sys/syscall.h>

#include "preload.h"

/* A vfork child running on its parent's thread state: its pid, else 0 */
pid_t vfork_child(struct tstate *t)
{
	pid_t pid, parent = t->vpid ? t->vs.pid : t->pid;

	if (!(t->hold & HOLD_VFORK) || !parent ||
	    (pid = (pid_t)SYS(SYS_getpid, 0, 0, 0, 0)) == parent)
		return 0;
	return pid;
}

/* A vfork child's first call: from here it records as a fork's child
 * does, in a spool of its own (its process starts at the vfork, its exec
 * is its own record), on its parent's thread state, whose own part is
 * kept aside meanwhile (vs, put back by vfork_resumed). Not under
 * --profile or --callsites (their state is the parent image's): there
 * its calls are counted as missing. 1 when it records. */
int vfork_child_open(struct tstate *t, pid_t pid)
{
	struct rec *v = t->vfork_rec;

	if (t->vpid)		/* a vfork in the child: counted */
		return t->vpid == pid && t->hdr && !(t->hold & HOLD_OFF);
	if (!v || unlikely(prof != NULL) || (rec_extras & EXTRA_SITES))
		return 0;
	int gen = spool_new_image();
	if (gen < 0)
		return 0;
#define SAVE(f) t->vs.f = t->f;
	VSAVED(SAVE)
#undef SAVE
	t->vpid = pid;
	t->vgen = gen;
	t->hdr = NULL;
	t->win = t->cur = t->lim = NULL;
	t->slot = -1;
	t->creator = 0;
	t->made_at = 0;
	t->made_by = 0;
	t->sslot = 0;
	t->hold = HOLD_VFORK;
	vfork_child_call(t, pid, 0);
	guard_on(t);
	if (spool_open(t) == 0) {
		t->hdr->start = (int64_t)v->t0;
		record_proc(t, ORIGIN_FORK, t->vs.tid, v->t0, NULL, 0);
		record_fds(t);
	}
	guard_off(t);
	return t->hdr && !(t->hold & HOLD_OFF);
}

/* The parent of a vfork runs again: its own thread state back, and no
 * vfork pending. */
static void vfork_resumed(struct tstate *t)
{
	if (t->vpid) {
#define LOAD(f) t->f = t->vs.f;
		VSAVED(LOAD)
#undef LOAD
		t->vpid = 0;
		/* the child's exec or _exit left it on: the parent was
		 * in none of our wrappers when it called vfork */
		guard_off(t);
	}
	t->hold &= ~HOLD_VFORK;
	t->vfork_rec = NULL;
}

/* Where a thread that made a vfork stands (at a call, an exit, its
 * end): the child's pid when this is the child, on its parent's state;
 * else 0, and the parent running again has its own state back (but
 * inside its own vfork's wrapper, unless a child that recorded left
 * the guard on). */
pid_t vfork_state(struct tstate *t)
{
	pid_t pid;

	if (!(t->hold & HOLD_VFORK))
		return 0;
	if (!(pid = vfork_child(t)) && (t->vpid || !t->guard))
		vfork_resumed(t);
	return pid;
}

/* ... at a call a wrapper sees: its pid in the vfork's record (a1) and
 * the calls counted (a2: what the capture does not record of it, its
 * calls until its exec or _exit), before the parent resumes (the record
 * is taken once the parent writes another) */
void vfork_child_call(struct tstate *t, pid_t pid, int calls)
{
	struct rec *r = t->vfork_rec;

	if (r) {
		if (!r->a1)
			r->a1 = pid;
		r->a2 += calls;
	}
}
