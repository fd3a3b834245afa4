/*
 * The MPI level's attributes (calls.def's MPI block, capture/mpi/): what
 * a record's fields and payload say, as name and value pairs for the
 * writer. docs/trace-format.md names them.
 */
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "../mpi/mpirec.h"

/* Access modes by bit: Open MPI's MPI_MODE_*, HDF5's H5F_ACC_* */
static const struct { int bit; const char *name; } mpi_modes[] = {
	{ 1, "MPI_MODE_CREATE" }, { 2, "MPI_MODE_RDONLY" }, { 4, "MPI_MODE_WRONLY" },
	{ 8, "MPI_MODE_RDWR" }, { 16, "MPI_MODE_DELETE_ON_CLOSE" },
	{ 32, "MPI_MODE_UNIQUE_OPEN" }, { 64, "MPI_MODE_EXCL" }, { 128, "MPI_MODE_APPEND" },
	{ 256, "MPI_MODE_SEQUENTIAL" },
}, h5_modes[] = {
	{ 1, "H5F_ACC_RDWR" }, { 2, "H5F_ACC_TRUNC" }, { 4, "H5F_ACC_EXCL" },
	{ 16, "H5F_ACC_CREAT" }, { 32, "H5F_ACC_SWMR_WRITE" }, { 64, "H5F_ACC_SWMR_READ" },
};

/* An MPI-IO or HDF5 call's: path, dataset, offset, flags, xfer */
static int file_attrs(const struct rec *r, struct mpi_attr *a, int n, char *buf, size_t len,
		      size_t at)
{
	struct mpi_file f;
	size_t pl = REC_PAYLOAD_LEN(r), off = sizeof(struct mpi_pay) + sizeof(f);
	const char *names = REC_PAYLOAD(r) + off;
	size_t room = pl - off;

	memcpy(&f, REC_PAYLOAD(r) + sizeof(struct mpi_pay), sizeof(f));
#define SET(NAME, V)                                                            	do {                                                                    		if (n == MPI_ATTRS)                                             			return n;                                               		a[n].name = NAME;                                               		a[n++].value = V;                                               	} while (0)
	size_t l1 = strnlen(names, room);
	if (l1 && l1 < room)
		SET("path", names);
	if (C_IS_HDF5(r->call) && l1 + 1 < room) {
		const char *ds = names + l1 + 1;
		size_t l2 = strnlen(ds, room - l1 - 1);
		if (l2 && l2 < room - l1 - 1)
			SET("dataset", ds);
	}
	int k;
	if (f.offset >= 0 && (k = snprintf(buf + at, len - at, "%lld", (long long)f.offset)) > 0 &&
	    (size_t)k < len - at) {
		SET(r->call == C_MPI_FILE_SET_SIZE ? "size" : "offset", buf + at);
		at += (size_t)k + 1;
	}
	if (r->call == C_MPI_FILE_OPEN || r->call == C_H5FCREATE || r->call == C_H5FOPEN) {
		int h5 = C_IS_HDF5(r->call);
		size_t start = at, nm = h5 ? sizeof(h5_modes) / sizeof(h5_modes[0]) :
				     sizeof(mpi_modes) / sizeof(mpi_modes[0]);
		for (size_t i = 0; i < nm; i++) {
			int bit = h5 ? h5_modes[i].bit : mpi_modes[i].bit;
			if (!(f.amode & bit))
				continue;
			k = snprintf(buf + at, len - at, "%s%s", at > start ? "|" : "",
				     h5 ? h5_modes[i].name : mpi_modes[i].name);
			if (k < 0 || (size_t)k >= len - at)
				return n;
			at += (size_t)k;
		}
		if (at == start && h5) {	/* 0 */
			k = snprintf(buf + at, len - at, "H5F_ACC_RDONLY");
			if (k < 0 || (size_t)k >= len - at)
				return n;
			at += (size_t)k;
		}
		if (at > start && at < len) {
			buf[at++] = 0;
			SET("flags", buf + start);
		}
	}
	if (f.xfer == XFER_INDEPENDENT)
		SET("xfer", "independent");
	else if (f.xfer == XFER_COLLECTIVE)
		SET("xfer", "collective");
	return n;
#undef SET
}

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
	    !(r->call >= C_MPI_WAIT && r->call <= C_MPI_TESTSOME) && !C_IS_HDF5(r->call))
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
	if (C_IS_LEVEL_FILE(r->call) && pl >= sizeof(p) + sizeof(struct mpi_file))
		n = file_attrs(r, a, n, buf, len, at);
	return n;
#undef PUT
}
