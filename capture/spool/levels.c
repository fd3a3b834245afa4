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

static void link_thread(struct node *n, struct thr *t)
{
	struct rec_iter it;
	struct rec *r, **pend = NULL, *exec = NULL;
	size_t np = 0, cap = 0;

	rec_iter_init(&it, t);
	while ((r = rec_next(&it))) {
		if (r->call >= C_NCALLS)
			continue;
		if (r->seq & SEQ_KERNEL) {
			n->syscalls_seen = 1;
			if (exec && exec->call == C_VFORK) {
				/* vfork's record is written before it too */
				if (SEQ_NR(r->seq) == SYS_vfork) {
					exec->seq |= SEQ_KERNEL | (r->seq & SEQ_NR_BITS);
					exec->ret = r->ret;	/* the child */
					exec->err = r->err;
					r->seq |= SEQ_DROP;
					exec = NULL;
					continue;
				}
				exec = NULL;
			}
			if (exec && ((r->seq & SEQ_INLIBC) || r->call == C_EXECVE)) {
				r->seq |= SEQ_VIA_SET(exec->call);
				/* the one that succeeded stands for both:
				 * it has the file run (execvp's record has
				 * the name it was given) */
				if (r->call == C_EXECVE && !r->err) {
					exec->seq |= SEQ_DROP;
					r->seq |= SEQ_LIBC;
					exec = NULL;
				}
				continue;
			}
			if (r->seq & SEQ_INLIBC) {
				XGROW(pend, cap, np + 1);
				pend[np++] = r;
			}
			continue;
		}
		r->seq |= SEQ_LIBC;
		for (size_t i = 0; i < np; i++)
			pend[i]->seq |= SEQ_VIA_SET(r->call);
		if (np == 1 && same_event(pend[0], r)) {
			pend[0]->seq |= SEQ_DROP;
			r->seq |= SEQ_KERNEL | (pend[0]->seq & SEQ_NR_BITS);
		}
		np = 0;
		exec = r->call == C_EXECVE || r->call == C_VFORK ? r : NULL;
	}
	free(pend);
}

void link_levels(struct node *n)
{
	if (!n->syscalls)
		return;
	for (int i = 0; i < n->nprocs; i++)
		for (int j = 0; j < n->procs[i].nthr; j++)
			link_thread(n, &n->procs[i].thr[j]);
}
