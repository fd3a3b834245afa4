/*
 * The MPI level's attributes (calls.def's MPI block, capture/mpi/): what
 * a record's fields and payload say, as name and value pairs for the
 * writer. docs/trace-format.md names them.
 */
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "../mpi/mpirec.h"

/* The pairs into a (at most MPI_ATTRS), their text in buf; their count */
int mpi_attrs(const struct rec *r, struct mpi_attr *a, char *buf, size_t len)
{
	struct mpi_pay p;
	size_t pl = REC_PAYLOAD_LEN(r), at = 0;
	int n = 0;

#define PUT(NAME, ...)                                                          \
	do {                                                                    \
		int k_ = snprintf(buf + at, len - at, __VA_ARGS__);             \
		if (k_ < 0 || (size_t)k_ >= len - at || n == MPI_ATTRS)         \
			return n;                                               \
		a[n].name = NAME;                                               \
		a[n++].value = buf + at;                                        \
		at += (size_t)k_ + 1;                                           \
	} while (0)

	if (r->ret != 0)	/* an MPI error class */
		PUT("result", "%lld", (long long)r->ret);
	if (r->a1 >= 0)
		PUT("rank", "%lld", (long long)r->a1);
	if (pl < sizeof(p))
		return n;
	memcpy(&p, REC_PAYLOAD(r), sizeof(p));
	if (p.tag >= 0)
		PUT("tag", "%d", p.tag);
	if (r->call != C_MPI_INIT && r->call != C_MPI_INIT_THREAD && r->call != C_MPI_FINALIZE &&
	    !(r->call >= C_MPI_WAIT && r->call <= C_MPI_TESTSOME))
		PUT("comm", "%u", p.comm);
	if (p.coll)
		PUT("coll", "%u", p.coll);
	if (p.req)
		PUT("request", "%u", p.req);
	if (p.newcomm)
		PUT("newcomm", "%u", p.newcomm);
	if (p.ndone) {
		/* "ID" a send's, "ID:SRC:TAG:BYTES" a receive's (ID 0: the
		 * call's own receive, a Sendrecv's) */
		size_t start = at, m = (pl - sizeof(p)) / sizeof(struct mpi_done);
		for (uint32_t i = 0; i < p.ndone && i < m; i++) {
			struct mpi_done d;
			memcpy(&d, REC_PAYLOAD(r) + sizeof(p) + i * sizeof(d), sizeof(d));
			int k = d.src < 0 && d.req ?
				snprintf(buf + at, len - at, "%s%u", i ? " " : "", d.req) :
				snprintf(buf + at, len - at, "%s%u:%d:%d:%lld", i ? " " : "", d.req,
					 d.src, d.tag, (long long)d.bytes);
			if (k < 0 || (size_t)k >= len - at)
				break;
			at += (size_t)k;
		}
		if (at > start && at < len && n < MPI_ATTRS) {
			buf[at++] = 0;
			a[n].name = "done";
			a[n++].value = buf + start;
		}
	}
	if (p.more)
		PUT("done_more", "%u", p.more);
	return n;
#undef PUT
}
