/* --mpi: the MPI calls of the trace issued again between the replaying
 * ranks (node k on rank k), each peer named by its original world rank.
 * Built with mpicc where it is found (HAVE_MPI); elsewhere an MPI call
 * lasts its original time. */
#include "exec.h"
#include "util.h"

#ifndef HAVE_MPI
int h_mpi(struct rctx *c, const struct op *o)
{
	return h_spent(c, o);
}
#else

#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* --- the MPI calls of the trace, issued again ------------------------- */

/* The replaying ranks' communicator (the app's messages apart from the
 * completions above), errors returned, not fatal: a trace's sizes that
 * disagree between ranks fail the call, not the replay */
static MPI_Comm app = MPI_COMM_NULL;
static int *rmap;		/* the original's world rank -> replaying rank */
static int nrmap;

static int peer(int r)
{
	return r >= 0 && r < nrmap ? rmap[r] : r < 0 ? r : MPI_PROC_NULL;
}

/* requests in flight, by the process that made them and their number */
static pthread_mutex_t req_mu = PTHREAD_MUTEX_INITIALIZER;
static struct inflight {
	int proc;
	uint32_t id;
	MPI_Request rq;
	char *buf;
} *flying;
static size_t nflying, capflying;

static void req_put(int proc, uint32_t id, MPI_Request rq, char *buf)
{
	pthread_mutex_lock(&req_mu);
	XGROW(flying, capflying, nflying + 1);
	flying[nflying++] = (struct inflight){ proc, id, rq, buf };
	pthread_mutex_unlock(&req_mu);
}

static int req_take(int proc, uint32_t id, struct inflight *out)
{
	int found = 0;

	pthread_mutex_lock(&req_mu);
	for (size_t i = 0; i < nflying && !found; i++)
		if (flying[i].proc == proc && flying[i].id == id) {
			*out = flying[i];
			flying[i] = flying[--nflying];
			found = 1;
		}
	pthread_mutex_unlock(&req_mu);
	return found;
}

static char *zeros(int64_t n)
{
	return xcalloc((size_t)(n > 0 ? n : 1), 1);
}

static int count_of(int64_t n)
{
	return n < 0 ? 0 : n > INT32_MAX ? INT32_MAX : (int)n;
}

/* --- communicators: the duplicates the trace made, made again --------- */

/* by the process that made them and the capture's number; 0 is app */
static pthread_mutex_t comm_mu = PTHREAD_MUTEX_INITIALIZER;
static struct rcomm {
	int proc;
	uint32_t id;
	MPI_Comm comm;
} *rcomms;
static size_t nrcomms, caprcomms;

static MPI_Comm comm_get(int proc, uint32_t id)
{
	MPI_Comm cm = id ? MPI_COMM_NULL : app;

	pthread_mutex_lock(&comm_mu);
	for (size_t i = nrcomms; id && i-- > 0 && cm == MPI_COMM_NULL;)
		if (rcomms[i].proc == proc && rcomms[i].id == id)
			cm = rcomms[i].comm;
	pthread_mutex_unlock(&comm_mu);
	return cm;
}

/* A duplicate's ranks are its parent's: a peer's world rank maps onto it
 * as onto app (peer()). */
static int h_comm(struct rctx *c, const struct mpiop *m, MPI_Comm cm)
{
	MPI_Comm nc;
	int rc;

	if (m->kind == MK_COMMDUP) {
		rc = SYS(c, MPI_Comm_dup(cm, &nc));
		if (rc == MPI_SUCCESS) {
			MPI_Comm_set_errhandler(nc, MPI_ERRORS_RETURN);
			pthread_mutex_lock(&comm_mu);
			XGROW(rcomms, caprcomms, nrcomms + 1);
			rcomms[nrcomms++] = (struct rcomm){ c->proc, m->newcomm, nc };
			pthread_mutex_unlock(&comm_mu);
		}
	} else {
		if (!m->comm)
			return 0;	/* the world's: not the trace's to free */
		pthread_mutex_lock(&comm_mu);
		for (size_t i = nrcomms; i-- > 0;)
			if (rcomms[i].proc == c->proc && rcomms[i].id == m->comm) {
				rcomms[i] = rcomms[--nrcomms];
				break;
			}
		pthread_mutex_unlock(&comm_mu);
		rc = SYS(c, MPI_Comm_free(&cm));
	}
	return rc == MPI_SUCCESS ? 0 : (errno = EIO, -1);
}

/* --- MPI-IO: the files, opened again by the library -------------------- */

/* the files open, by the process that opened them and their path */
static pthread_mutex_t file_mu = PTHREAD_MUTEX_INITIALIZER;
static struct rfile {
	int proc;
	const char *path;            /* the trace's (interned) */
	MPI_File fh;
} *rfiles;
static size_t nrfiles, caprfiles;

static MPI_File file_get(int proc, const char *path)
{
	MPI_File fh = MPI_FILE_NULL;

	pthread_mutex_lock(&file_mu);
	for (size_t i = nrfiles; i-- > 0 && fh == MPI_FILE_NULL;)
		if (rfiles[i].proc == proc && rfiles[i].path == path)
			fh = rfiles[i].fh;
	pthread_mutex_unlock(&file_mu);
	return fh;
}

static void file_put(int proc, const char *path, MPI_File fh)
{
	pthread_mutex_lock(&file_mu);
	XGROW(rfiles, caprfiles, nrfiles + 1);
	rfiles[nrfiles++] = (struct rfile){ proc, path, fh };
	pthread_mutex_unlock(&file_mu);
}

/* the latest open of path by proc, taken out */
static void file_drop(int proc, const char *path)
{
	pthread_mutex_lock(&file_mu);
	for (size_t i = nrfiles; i-- > 0;)
		if (rfiles[i].proc == proc && rfiles[i].path == path) {
			rfiles[i] = rfiles[--nrfiles];
			break;
		}
	pthread_mutex_unlock(&file_mu);
}

/* The name an open gives the library for the trace's path: the same on
 * every rank (the library makes its shared-pointer and lock files by
 * it), the root's own path (the kernel's name of its descriptor) and the
 * path beneath it, once its directory was opened there with no
 * component leading out (sandbox_parent: a link that would is refused)
 * and its last component is no link the library would follow out. */
static int file_name(struct rctx *c, const char *path, char *out, size_t n)
{
	char rel[4096], root[4096], fdp[64];
	const char *base;
	struct stat st;

	if (sandbox_passthrough(path)) {
		snprintf(out, n, "%s", path);
		return 0;
	}
	if (map_path(c, path, rel, sizeof(rel)))
		return errno = EINVAL, -1;
	int d = sandbox_parent(c->ns->r->rootfd, rel, 1, &base);
	if (d < 0)
		return -1;
	int link = fstatat(d, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
	close(d);
	if (link)
		return errno = ELOOP, -1;
	snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", c->ns->r->rootfd);
	ssize_t l = readlink(fdp, root, sizeof(root) - 1);
	if (l <= 0 || root[0] != '/')
		return errno = ENOENT, -1;
	root[l] = 0;
	if (snprintf(out, n, "%s/%s", root, rel) >= (int)n)
		return errno = ENAMETOOLONG, -1;
	return 0;
}

/* the trace's AM_* bits (load.c) as this library's MPI_MODE_* */
static int amode(int bits)
{
	static const struct { int am, lib; } v[] = {
		{ AM_CREATE, MPI_MODE_CREATE }, { AM_RDONLY, MPI_MODE_RDONLY },
		{ AM_WRONLY, MPI_MODE_WRONLY }, { AM_RDWR, MPI_MODE_RDWR },
		{ AM_DELETE_ON_CLOSE, MPI_MODE_DELETE_ON_CLOSE },
		{ AM_UNIQUE_OPEN, MPI_MODE_UNIQUE_OPEN }, { AM_EXCL, MPI_MODE_EXCL },
		{ AM_APPEND, MPI_MODE_APPEND }, { AM_SEQUENTIAL, MPI_MODE_SEQUENTIAL },
	};
	int m = 0;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (bits & v[i].am)
			m |= v[i].lib;
	return m;
}

/* The reads and writes: at an offset, or at the file's pointer (its
 * own, or the shared one). A non-blocking one as its blocking form, its
 * Wait or Test finding nothing to complete: Open MPI's OMPIO completes
 * such requests from any thread's progress, the replay's receiver's too,
 * and its list of them is not safe for that (1 replay of 5 of
 * tests/apps/mpi/mpiio corrupted the heap). */
static const struct {
	uint8_t kind;
	int (*read_at)(MPI_File, MPI_Offset, void *, int, MPI_Datatype, MPI_Status *);
	int (*read)(MPI_File, void *, int, MPI_Datatype, MPI_Status *);
	int (*write_at)(MPI_File, MPI_Offset, const void *, int, MPI_Datatype, MPI_Status *);
	int (*write)(MPI_File, const void *, int, MPI_Datatype, MPI_Status *);
} xfers[] = {
	{ MK_FREAD, NULL, MPI_File_read, NULL, NULL },
	{ MK_FREAD_AT, MPI_File_read_at, NULL, NULL, NULL },
	{ MK_FREAD_ALL, NULL, MPI_File_read_all, NULL, NULL },
	{ MK_FREAD_AT_ALL, MPI_File_read_at_all, NULL, NULL, NULL },
	{ MK_FREAD_SHARED, NULL, MPI_File_read_shared, NULL, NULL },
	{ MK_FREAD_ORDERED, NULL, MPI_File_read_ordered, NULL, NULL },
	{ MK_FIREAD, NULL, MPI_File_read, NULL, NULL },
	{ MK_FIREAD_AT, MPI_File_read_at, NULL, NULL, NULL },
	{ MK_FWRITE, NULL, NULL, NULL, MPI_File_write },
	{ MK_FWRITE_AT, NULL, NULL, MPI_File_write_at, NULL },
	{ MK_FWRITE_ALL, NULL, NULL, NULL, MPI_File_write_all },
	{ MK_FWRITE_AT_ALL, NULL, NULL, MPI_File_write_at_all, NULL },
	{ MK_FWRITE_SHARED, NULL, NULL, NULL, MPI_File_write_shared },
	{ MK_FWRITE_ORDERED, NULL, NULL, NULL, MPI_File_write_ordered },
	{ MK_FIWRITE, NULL, NULL, NULL, MPI_File_write },
	{ MK_FIWRITE_AT, NULL, NULL, MPI_File_write_at, NULL },
};

static int xfer(const struct mpiop *m, MPI_File fh, char *b, int cnt)
{
	for (size_t i = 0; i < sizeof(xfers) / sizeof(xfers[0]); i++) {
		if (xfers[i].kind != m->kind)
			continue;
		if (xfers[i].read_at)
			return xfers[i].read_at(fh, m->offset, b, cnt, MPI_BYTE, MPI_STATUS_IGNORE);
		if (xfers[i].read)
			return xfers[i].read(fh, b, cnt, MPI_BYTE, MPI_STATUS_IGNORE);
		if (xfers[i].write_at)
			return xfers[i].write_at(fh, m->offset, b, cnt, MPI_BYTE, MPI_STATUS_IGNORE);
		return xfers[i].write(fh, b, cnt, MPI_BYTE, MPI_STATUS_IGNORE);
	}
	return MPI_ERR_OTHER;
}

static int h_mpiio(struct rctx *c, const struct mpiop *m, MPI_Comm cm)
{
	MPI_File fh = m->kind == MK_FOPEN ? MPI_FILE_NULL : file_get(c->proc, m->path);
	int cnt = count_of(m->bytes), rc = MPI_SUCCESS;
	char name[8200], *b = NULL;

	if (m->kind != MK_FOPEN && fh == MPI_FILE_NULL)
		return errno = EBADF, -1;	/* its open was not issued again */
	if (m->kind >= MK_FREAD)
		b = zeros(m->bytes);
	switch (m->kind) {
	case MK_FOPEN:
		if (file_name(c, m->path, name, sizeof(name)))
			return -1;
		rc = SYS(c, MPI_File_open(cm, name, amode(m->amode), MPI_INFO_NULL, &fh));
		if (rc == MPI_SUCCESS) {
			MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
			file_put(c->proc, m->path, fh);
		}
		break;
	case MK_FCLOSE:
		file_drop(c->proc, m->path);
		rc = SYS(c, MPI_File_close(&fh));
		break;
	/* views as bytes at the trace's displacement: the capture keeps no
	 * datatype, so a strided view's holes are not there again */
	case MK_FVIEW:
		rc = SYS(c, MPI_File_set_view(fh, m->offset, MPI_BYTE, MPI_BYTE, "native",
					      MPI_INFO_NULL));
		break;
	case MK_FSIZE:
		rc = SYS(c, MPI_File_set_size(fh, m->offset));
		break;
	case MK_FSYNC:
		rc = SYS(c, MPI_File_sync(fh));
		break;
	default:
		rc = SYS(c, xfer(m, fh, b, cnt));
		break;
	}
	free(b);
	if (rc != MPI_SUCCESS)
		return errno = EIO, -1;
	return 0;
}

int h_mpi(struct rctx *c, const struct op *o)
{
	const struct mpiop *m = o->mpi;
	int n = 0, rc = MPI_SUCCESS, cnt = count_of(m->bytes);
	char *s = NULL, *r = NULL;

	if (app == MPI_COMM_NULL)
		return h_spent(c, o);
	MPI_Comm cm = comm_get(c->proc, m->comm);
	if (cm == MPI_COMM_NULL)	/* its making failed */
		return errno = EIO, -1;
	if (m->kind == MK_COMMDUP || m->kind == MK_COMMFREE)
		return h_comm(c, m, cm);
	if (MK_FILE(m->kind))
		return h_mpiio(c, m, cm);
	MPI_Comm_size(cm, &n);
	switch (m->kind) {
	case MK_SEND:
		s = zeros(m->bytes);
		rc = MPI_Send(s, cnt, MPI_BYTE, peer(m->rank), m->tag, cm);
		break;
	case MK_ISEND: {
		MPI_Request rq;
		s = zeros(m->bytes);
		rc = MPI_Isend(s, cnt, MPI_BYTE, peer(m->rank), m->tag, cm, &rq);
		if (rc == MPI_SUCCESS && m->req) {
			req_put(c->proc, m->req, rq, s);
			s = NULL;
		} else if (rc == MPI_SUCCESS) {
			rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
		}
		break;
	}
	case MK_RECV:
		r = zeros(m->bytes);
		rc = MPI_Recv(r, cnt, MPI_BYTE, m->rank < 0 ? MPI_ANY_SOURCE : peer(m->rank),
			      m->tag < 0 ? MPI_ANY_TAG : m->tag, cm, MPI_STATUS_IGNORE);
		break;
	case MK_IRECV: {
		MPI_Request rq;
		r = zeros(m->bytes);
		rc = MPI_Irecv(r, cnt, MPI_BYTE, m->rank < 0 ? MPI_ANY_SOURCE : peer(m->rank),
			       m->tag < 0 ? MPI_ANY_TAG : m->tag, cm, &rq);
		if (rc == MPI_SUCCESS && m->req) {
			req_put(c->proc, m->req, rq, r);
			r = NULL;
		} else if (rc == MPI_SUCCESS) {
			rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
		}
		break;
	}
	case MK_SENDRECV:
		s = zeros(m->bytes);
		r = zeros(m->rbytes);
		rc = MPI_Sendrecv(s, cnt, MPI_BYTE, peer(m->rank), m->tag, r, count_of(m->rbytes),
				  MPI_BYTE, m->rsrc < 0 ? MPI_ANY_SOURCE : peer(m->rsrc),
				  m->rtag < 0 ? MPI_ANY_TAG : m->rtag, cm, MPI_STATUS_IGNORE);
		break;
	case MK_DONE:
		for (size_t i = 0; i < m->ndone; i++) {
			struct inflight f;
			if (!req_take(c->proc, m->done[i], &f))
				continue;	/* made by a call not issued again */
			int e = MPI_Wait(&f.rq, MPI_STATUS_IGNORE);
			if (e != MPI_SUCCESS)
				rc = e;
			free(f.buf);
		}
		break;
	case MK_BARRIER:
		rc = MPI_Barrier(app);
		break;
	case MK_BCAST:
		s = zeros(m->bytes);
		rc = MPI_Bcast(s, cnt, MPI_BYTE, peer(m->rank), cm);
		break;
	case MK_REDUCE:
		s = zeros(m->bytes);
		r = zeros(m->bytes);
		rc = MPI_Reduce(s, r, cnt, MPI_BYTE, MPI_BOR, peer(m->rank), cm);
		break;
	case MK_ALLREDUCE:
		s = zeros(m->bytes);
		r = zeros(m->bytes);
		rc = MPI_Allreduce(s, r, cnt, MPI_BYTE, MPI_BOR, cm);
		break;
	case MK_GATHER:
		s = zeros(m->bytes);
		r = zeros(m->bytes * n);
		rc = MPI_Gather(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, peer(m->rank), cm);
		break;
	case MK_SCATTER:
		s = zeros(m->bytes * n);
		r = zeros(m->bytes);
		rc = MPI_Scatter(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, peer(m->rank), cm);
		break;
	case MK_ALLGATHER:
		s = zeros(m->bytes);
		r = zeros(m->bytes * n);
		rc = MPI_Allgather(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, cm);
		break;
	case MK_ALLTOALL: {
		int per = n > 0 ? count_of(m->bytes / n) : 0;
		s = zeros(m->bytes);
		r = zeros(m->bytes);
		rc = MPI_Alltoall(s, per, MPI_BYTE, r, per, MPI_BYTE, cm);
		break;
	}
	}
	free(s);
	free(r);
	if (rc != MPI_SUCCESS) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/* The replaying ranks' communicator and the original ranks' map, made
 * by every rank (a collective) once MPI is up. */
void mpi_calls_init(const struct trace *t, int me, int nnodes)
{
	/* the trace's MPI calls between the replaying ranks, node k on rank
	 * k, a peer named by its original world rank (the node's mpi_rank) */
	MPI_Comm_split(MPI_COMM_WORLD, me < nnodes ? 0 : MPI_UNDEFINED, me, &app);
	if (app != MPI_COMM_NULL)
		MPI_Comm_set_errhandler(app, MPI_ERRORS_RETURN);
	for (int k = 0; k < nnodes; k++)
		if (t->nodes[k].mpi_rank + 1 > nrmap)
			nrmap = t->nodes[k].mpi_rank + 1;
	if (nrmap < nnodes)
		nrmap = nnodes;
	rmap = xcalloc((size_t)nrmap, sizeof(int));
	for (int r = 0; r < nrmap; r++)
		rmap[r] = r < nnodes ? r : MPI_PROC_NULL;
	for (int k = 0; k < nnodes; k++)
		if (t->nodes[k].mpi_rank >= 0)
			rmap[t->nodes[k].mpi_rank] = k;
}

void mpi_calls_end(void)
{
	if (app != MPI_COMM_NULL)
		MPI_Comm_free(&app);
}
#endif
