/*
 * The levels above libc: libisland-mpi.so (MPI, through PMPI) records its
 * calls through these two, the only entry points the interposer exports
 * that are not wrappers. A level call's record is made when the call
 * starts, in the thread's spool, so that the calls it makes below (MPI's
 * writes to a socket, MPI-IO's pwrite) follow it; they are within it by
 * their times (the writer). island_level_end completes it in place: its
 * end, result, peer and bytes, and what the payload learnt (a receive's
 * tag, the requests completed).
 * Not in a session nor under rate limits (numbering and holding are for
 * the calls below); not inside another recorded call; not while streaming
 * (island-capture does not stream with the MPI level: a record completed
 * later would have been taken incomplete).
 */
#include "preload.h"

EXPORT void *island_level_begin(int call, int64_t a1, int64_t a2,
				const void *pay, size_t n);
EXPORT void island_level_end(void *tok, int64_t ret, int64_t a1, int64_t a2,
			     const void *pay, size_t n);
EXPORT void island_level_drop(void *tok);

void *island_level_begin(int call, int64_t a1, int64_t a2, const void *pay, size_t n)
{
	struct tstate *t = &ts;
	struct rec *r;
	int e = errno;

	if (!C_IS_LEVEL(call) || n > 4096 || t->guard || t->hold || !island_on ||
	    vfork_state(t))
		return NULL;
	guard_on(t);
	size_t len = REC_ALIGN(sizeof(*r) + n);
	uint64_t t0 = now();

	if ((r = rec_reserve(t, len))) {
		if (t->hdr)
			t->hdr->in_t0 = t0;
		rec_fill(r, call, t0, t0, 0, -1, a1, a2, 0);
		memcpy(REC_PAYLOAD(r), pay, n);
		memset(REC_PAYLOAD(r) + n, 0, len - sizeof(*r) - n);
		rec_commit(t, &r->len, len);
	}
	leave(t);
	errno = e;
	return r;
}

void island_level_end(void *tok, int64_t ret, int64_t a1, int64_t a2, const void *pay, size_t n)
{
	struct rec *r = tok;

	if (!r)
		return;
	if (n > REC_PAYLOAD_LEN(r))
		n = REC_PAYLOAD_LEN(r);
	memcpy(REC_PAYLOAD(r), pay, n);
	r->ret = ret;	/* an MPI error class: the writer's result */
	r->a1 = a1;
	r->a2 = a2;
	barrier();
	r->t1 = now();
}

/* A call not worth its record after all (a Test that found nothing
 * complete, in a loop of them): the writer skips it */
void island_level_drop(void *tok)
{
	struct rec *r = tok;

	if (r)
		r->seq |= SEQ_LEVEL_DROP;
}
