/*
 * A call's records with a payload (strings, addresses, a struct), and
 * the system call kept aside (--syscalls) written before the next
 * record: with what a record sets off (rec_seen).
 */
#include "preload.h"

struct rec *put_payload(struct tstate *t, int call, uint64_t t0, uint64_t t1,
		 int64_t ret, int fd, int64_t a1, int64_t a2, int err,
		 const void *p1, size_t n1, const void *p2, size_t n2)
{
	uint64_t joined = 0;
	struct rec *r;

	if (call < C_NCALLS && t->kcalls)
		joined = kcalls_end(t, call, fd, ret, err);
	r = rec_payload(t, call, t0, t1, ret, fd, a1, a2, err, joined, p1, n1, p2, n2);
	if (r)
		rec_seen(t, r);
	return r;
}

struct rec *put_str(struct tstate *t, int call, uint64_t t0, uint64_t t1,
	     int64_t ret, int fd, int64_t a1, int64_t a2, int err,
	     const char *s1, const char *s2)
{
	/* a failed call's strings may point nowhere: without its first, no
	 * payload (the second would be read as the first) */
	if (unlikely(err) && s1 && !app_str_ok(s1, err))
		s1 = s2 = NULL;
	if (unlikely(err) && s2 && !app_str_ok(s2, err))
		s2 = NULL;
	return put_payload(t, call, t0, t1, ret, fd, a1, a2, err, s1, rec_str_size(s1),
			   s2, rec_str_size(s2));
}

/* The system call kept aside, written (before a record that follows it) */
void kpend_flush(struct tstate *t)
{
	char outer = t->sysguard;
	struct rec *r;

	t->sysguard = 1;	/* a signal's calls meanwhile are not ours */
	t->lim = t->klim;
	barrier();
	t->kpend = 0;
	if ((r = rec_reserve(t, sizeof(*r)))) {
		uint16_t len = r->len;	/* 0: the spool is zero-filled */

		*r = t->kp;
		r->len = len;
		rec_close(t, r, sizeof(*r));
	}
	t->sysguard = outer;
}
