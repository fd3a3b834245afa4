/*
 * A record with a payload (strings, addresses, a struct), built in the
 * thread's spool and committed. What a call's record sets off (its
 * extras, the session, the rate limits) is record.c's to run: the
 * modules that describe themselves in the spool write here.
 */
#include "preload.h"

size_t rec_str_size(const char *s)
{
	size_t n = 0;

	if (!s)
		return 0;
	while (s[n] && n < 4095)
		n++;
	return n + 1;
}

struct rec *rec_payload(struct tstate *t, int call, uint64_t t0, uint64_t t1,
			int64_t ret, int fd, int64_t a1, int64_t a2, int err, uint64_t seq,
			const void *p1, size_t n1, const void *p2, size_t n2)
{
	size_t len, pl;
	struct rec *r;

	if (n1 > REC_MAX_PAYLOAD)
		n1 = REC_MAX_PAYLOAD;
	if (n1 + n2 > REC_MAX_PAYLOAD)
		n2 = REC_MAX_PAYLOAD - n1;
	pl = n1 + n2;
	len = REC_ALIGN(sizeof(*r) + pl);
	r = rec_reserve(t, len);
	if (!r)
		return NULL;
	rec_fill(r, call, t0, t1, ret, fd, a1, a2, err);
	r->seq = seq;
	if (n1)
		memcpy(REC_PAYLOAD(r), p1, n1);
	if (n2)
		memcpy(REC_PAYLOAD(r) + n1, p2, n2);
	memset(REC_PAYLOAD(r) + pl, 0, len - sizeof(*r) - pl);
	rec_commit(t, &r->len, len);
	return r;
}
