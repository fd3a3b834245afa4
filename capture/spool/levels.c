/*
 * --syscalls: one event, one count. A libc call the interposer recorded
 * and the system calls it made are recorded at both levels; the kernel
 * records come first in the thread's spool (the wrapper records after the
 * call returns) and carry SEQ_INLIBC. Here each libc record claims the
 * kernel records just before it: when it made exactly one system call of
 * the same kind with the same descriptor and result (write -> write, open
 * -> openat), the two are one event (the libc record stands for both,
 * level "libc|kernel"); otherwise the libc record is level "libc" and its
 * bytes are not counted again, and each kernel record names it (via).
 * The interposer applies the same rule as it records (SEQ_JOINED: the
 * kernel's record was not written), which spares it and us a record a
 * call; what it could not join comes here as before.
 * An exec is recorded before it is made (it does not return): the
 * kernel records after it are its own, the attempts that failed (execvp
 * along PATH) and the one that succeeded, recorded by the new image,
 * which is the same event. (When every attempt fails, the libc record
 * stays, level "libc", with the kernel's failures.)
 */
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "capture.h"
#include "util.h"

static int same_event(const struct rec *k, const struct rec *l)
{
	return call_kind_equal(k->call, l->call) && k->fd == l->fd &&
	       k->ret == l->ret && k->err == l->err;
}

/* A thread's linking, where it stopped: the capture's streaming links
 * the records as they come, the end the rest */
struct lstate {
	struct rec_iter it;
	struct rec **pend;
	uint64_t *pidx;              /* their numbers in the thread */
	size_t np, cap, capi;
	struct rec *exec;
	uint64_t exec_idx, taken;
};

/* Links what the thread has recorded so far; t->nlinked: how many of its
 * records no later one can change (those before the first one waiting
 * for its libc record, or for its exec's outcome). */
static void link_thread(struct cap_node *n, struct thr *t)
{
	struct lstate *l = t->ls;
	struct rec *r;

	if (!l) {
		l = t->ls = xcalloc(1, sizeof(*l));
		rec_iter_init(&l->it, t);
	}
	l->it.t = t;		/* the arrays may have moved */
	while ((r = rec_next(&l->it))) {
		uint64_t idx = l->taken++;
		if (r->call >= C_NCALLS)
			continue;
		if (r->seq & SEQ_KERNEL) {
			n->syscalls_seen = 1;
			if (l->exec && l->exec->call == C_VFORK) {
				/* vfork's record is written before it too */
				if (SEQ_NR(r->seq) == SYS_vfork) {
					l->exec->seq |= SEQ_KERNEL | (r->seq & SEQ_NR_BITS);
					l->exec->ret = r->ret;	/* the child */
					l->exec->err = r->err;
					r->seq |= SEQ_DROP;
					l->exec = NULL;
					continue;
				}
				l->exec = NULL;
			}
			if (l->exec && ((r->seq & SEQ_INLIBC) || r->call == C_EXECVE)) {
				r->seq |= SEQ_VIA_SET(l->exec->call);
				/* the one that succeeded stands for both:
				 * it has the file run (execvp's record has
				 * the name it was given) */
				if (r->call == C_EXECVE && !r->err) {
					l->exec->seq |= SEQ_DROP;
					r->seq |= SEQ_LIBC;
					l->exec = NULL;
				}
				continue;
			}
			if (r->seq & SEQ_INLIBC) {
				XGROW(l->pend, l->cap, l->np + 1);
				XGROW(l->pidx, l->capi, l->np + 1);
				l->pidx[l->np] = idx;
				l->pend[l->np++] = r;
			}
			continue;
		}
		r->seq |= SEQ_LIBC;
		for (size_t i = 0; i < l->np; i++)
			l->pend[i]->seq |= SEQ_VIA_SET(r->call);
		/* an exec joined already: a child's image's own record of
		 * the exec that made it (told_image), none of it to come */
		int done = (r->seq & SEQ_JOINED) && r->call == C_EXECVE;
		if (r->seq & SEQ_JOINED) {
			/* the interposer joined them (the kernel's record
			 * was not written) */
			n->syscalls_seen = 1;
			r->seq = (r->seq & ~SEQ_JOINED) | SEQ_KERNEL;
		} else if (l->np == 1 && same_event(l->pend[0], r)) {
			l->pend[0]->seq |= SEQ_DROP;
			r->seq |= SEQ_KERNEL | (l->pend[0]->seq & SEQ_NR_BITS);
		}
		l->np = 0;
		l->exec = (r->call == C_EXECVE && !done) || r->call == C_VFORK ? r : NULL;
		l->exec_idx = idx;
	}
	t->nseen = l->taken;
	t->nlinked = l->np ? l->pidx[0] : l->taken;
	if (l->exec && l->exec_idx < t->nlinked)
		t->nlinked = l->exec_idx;
}

static void link_free(struct thr *t)
{
	struct lstate *l = t->ls;

	if (!l)
		return;
	free(l->pend);
	free(l->pidx);
	free(l);
	t->ls = NULL;
}

/* streaming: what can be linked so far */
void link_stream(struct cap_node *n)
{
	if (!n->syscalls)
		return;
	for (int i = 0; i < n->nprocs; i++)
		for (int j = 0; j < n->procs[i].nthr; j++)
			link_thread(n, &n->procs[i].thr[j]);
}

void link_levels(struct cap_node *n)
{
	for (int i = 0; i < n->nprocs; i++)
		for (int j = 0; j < n->procs[i].nthr; j++) {
			if (n->syscalls)
				link_thread(n, &n->procs[i].thr[j]);
			link_free(&n->procs[i].thr[j]);
		}
}
