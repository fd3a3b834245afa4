/*
 * The MPI level's MPI-IO calls: open, close, views, sizes, sync, and the
 * reads and writes (explicit offset _at, collective _all, shared file
 * pointer _shared and _ordered, non-blocking i* completed by a Wait or
 * Test, wrap_mpi.c). Each record carries the file's absolute path, kept per
 * handle from its open; a collective one its number on the file's
 * communicator. What the call made below (ROMIO's or OMPIO's pwrite, the
 * collective buffering's messages) is within it.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpilevel.h"

#define NFILES 256

static struct file {
	MPI_File h;                  /* NULL: free */
	struct comm *comm;
	char path[PATH_MAX];
} files[NFILES];

static struct file *file_of(MPI_File h)
{
	struct file *f = NULL;

	lock();
	for (int i = 0; i < NFILES && !f; i++)
		if (files[i].h == h)
			f = &files[i];
	unlock();
	return f;
}

struct rec_file {
	struct mpi_pay p;
	struct mpi_file f;
	char path[PATH_MAX];
};

static size_t pay_len(const struct rec_file *m)
{
	return sizeof(m->p) + sizeof(m->f) + strlen(m->path) + 1;
}

static void *file_begin(int call, struct rec_file *m, const struct file *f, int coll,
			int64_t offset, int64_t bytes)
{
	memset(&m->p, 0, sizeof(m->p));
	m->p.tag = -1;
	m->f = (struct mpi_file){ offset, 0, XFER_NONE };
	m->path[0] = 0;
	if (f) {
		m->p.comm = f->comm->id;
		if (coll)
			m->p.coll = __atomic_add_fetch(&f->comm->coll, 1, __ATOMIC_RELAXED);
		strcpy(m->path, f->path);
	}
	return island_level_begin(call, -1, bytes, m, pay_len(m));
}

static void file_end(void *tok, int rc, int64_t bytes, const struct rec_file *m)
{
	if (tok)
		island_level_end(tok, rc, -1, bytes, m, pay_len(m));
}

EXPORT int MPI_File_open(MPI_Comm comm, const char *name, int amode, MPI_Info info,
			 MPI_File *fh)
{
	REAL(MPI_File_open);
	if (!recording())
		return real_MPI_File_open(comm, name, amode, info, fh);
	struct comm *c = comm_of(comm);
	struct rec_file m;
	struct file f = { NULL, c, "" };
	/* the name as the file system knows it (ROMIO takes "ufs:NAME") */
	const char *colon = strchr(name, ':'), *slash = strchr(name, '/');
	const char *plain = colon && colon - name >= 2 && (!slash || colon < slash) ?
			    colon + 1 : name;
	char cwd[PATH_MAX];
	/* too long to be made absolute: as the program named it */
	if (plain[0] == '/' || !getcwd(cwd, sizeof(cwd)) ||
	    strlen(cwd) + 1 + strlen(plain) >= sizeof(f.path))
		snprintf(f.path, sizeof(f.path), "%s", plain);
	else {
		size_t lc = strlen(cwd);
		memcpy(f.path, cwd, lc);
		f.path[lc] = '/';
		memcpy(f.path + lc + 1, plain, strlen(plain) + 1);
	}
	void *tok = file_begin(C_MPI_FILE_OPEN, &m, &f, 1, -1, 0);
	m.f.amode = amode;
	int rc = real_MPI_File_open(comm, name, amode, info, fh);
	if (rc == MPI_SUCCESS) {
		char *real = realpath(f.path, NULL);
		if (real) {
			snprintf(f.path, sizeof(f.path), "%s", real);
			strcpy(m.path, real);
			free(real);
		}
		lock();
		for (int i = 0; i < NFILES; i++)
			if (!files[i].h || files[i].h == *fh) {
				files[i] = f;
				files[i].h = *fh;
				break;
			}
		unlock();
	}
	file_end(tok, rc, 0, &m);
	return rc;
}

EXPORT int MPI_File_close(MPI_File *fh)
{
	REAL(MPI_File_close);
	if (!recording())
		return real_MPI_File_close(fh);
	MPI_File h = *fh;
	struct file *f = file_of(h);
	struct rec_file m;
	void *tok = file_begin(C_MPI_FILE_CLOSE, &m, f, 1, -1, 0);
	int rc = real_MPI_File_close(fh);
	if (rc == MPI_SUCCESS && f) {
		lock();
		f->h = NULL;
		unlock();
	}
	file_end(tok, rc, 0, &m);
	return rc;
}

EXPORT int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype et, MPI_Datatype ft,
			     const char *rep, MPI_Info info)
{
	REAL(MPI_File_set_view);
	if (!recording())
		return real_MPI_File_set_view(fh, disp, et, ft, rep, info);
	struct rec_file m;
	void *tok = file_begin(C_MPI_FILE_SET_VIEW, &m, file_of(fh), 1, disp, 0);
	int rc = real_MPI_File_set_view(fh, disp, et, ft, rep, info);
	file_end(tok, rc, 0, &m);
	return rc;
}

EXPORT int MPI_File_set_size(MPI_File fh, MPI_Offset size)
{
	REAL(MPI_File_set_size);
	if (!recording())
		return real_MPI_File_set_size(fh, size);
	struct rec_file m;
	void *tok = file_begin(C_MPI_FILE_SET_SIZE, &m, file_of(fh), 1, size, 0);
	int rc = real_MPI_File_set_size(fh, size);
	file_end(tok, rc, 0, &m);
	return rc;
}

EXPORT int MPI_File_sync(MPI_File fh)
{
	REAL(MPI_File_sync);
	if (!recording())
		return real_MPI_File_sync(fh);
	struct rec_file m;
	void *tok = file_begin(C_MPI_FILE_SYNC, &m, file_of(fh), 1, -1, 0);
	int rc = real_MPI_File_sync(fh);
	file_end(tok, rc, 0, &m);
	return rc;
}

/* A read's bytes: what its status says, else what it asked for */
static int64_t got(int rc, const MPI_Status *st, int64_t asked)
{
	int64_t b = rc == MPI_SUCCESS && st ? status_bytes(st) : -1;

	return b >= 0 ? b : rc == MPI_SUCCESS ? asked : 0;
}

/* reads and writes at the file pointer (individual or shared) */
#define RW(NAME, CALL, COLL, READ)                                             \
EXPORT int NAME(MPI_File fh, ARGCONST void *buf, int count, MPI_Datatype t,    \
		MPI_Status *st)                                               \
{                                                                             \
	REAL(NAME);                                                           \
	if (!recording())                                                     \
		return real_##NAME(fh, buf, count, t, st);                    \
	struct rec_file m;                                                    \
	MPI_Status mine;                                                      \
	MPI_Status *s = st == MPI_STATUS_IGNORE ? &mine : st;                 \
	int64_t b = bytes_of(count, t);                                       \
	void *tok = file_begin(CALL, &m, file_of(fh), COLL, -1, b);           \
	int rc = real_##NAME(fh, buf, count, t, s);                           \
	file_end(tok, rc, READ ? got(rc, s, b) : b, &m);                      \
	return rc;                                                            \
}
#define ARGCONST
RW(MPI_File_read, C_MPI_FILE_READ, 0, 1)
RW(MPI_File_read_all, C_MPI_FILE_READ_ALL, 1, 1)
RW(MPI_File_read_shared, C_MPI_FILE_READ_SHARED, 0, 1)
RW(MPI_File_read_ordered, C_MPI_FILE_READ_ORDERED, 1, 1)
#undef ARGCONST
#define ARGCONST const
RW(MPI_File_write, C_MPI_FILE_WRITE, 0, 0)
RW(MPI_File_write_all, C_MPI_FILE_WRITE_ALL, 1, 0)
RW(MPI_File_write_shared, C_MPI_FILE_WRITE_SHARED, 0, 0)
RW(MPI_File_write_ordered, C_MPI_FILE_WRITE_ORDERED, 1, 0)
#undef ARGCONST

/* ... at an explicit offset */
#define RW_AT(NAME, CALL, COLL, READ)                                          \
EXPORT int NAME(MPI_File fh, MPI_Offset off, ARGCONST void *buf, int count,    \
		MPI_Datatype t, MPI_Status *st)                               \
{                                                                             \
	REAL(NAME);                                                           \
	if (!recording())                                                     \
		return real_##NAME(fh, off, buf, count, t, st);               \
	struct rec_file m;                                                    \
	MPI_Status mine;                                                      \
	MPI_Status *s = st == MPI_STATUS_IGNORE ? &mine : st;                 \
	int64_t b = bytes_of(count, t);                                       \
	void *tok = file_begin(CALL, &m, file_of(fh), COLL, off, b);          \
	int rc = real_##NAME(fh, off, buf, count, t, s);                      \
	file_end(tok, rc, READ ? got(rc, s, b) : b, &m);                      \
	return rc;                                                            \
}
#define ARGCONST
RW_AT(MPI_File_read_at, C_MPI_FILE_READ_AT, 0, 1)
RW_AT(MPI_File_read_at_all, C_MPI_FILE_READ_AT_ALL, 1, 1)
#undef ARGCONST
#define ARGCONST const
RW_AT(MPI_File_write_at, C_MPI_FILE_WRITE_AT, 0, 0)
RW_AT(MPI_File_write_at_all, C_MPI_FILE_WRITE_AT_ALL, 1, 0)
#undef ARGCONST

/* non-blocking: the request completed by a Wait or Test (wrap_mpi.c) */
#define IRW(NAME, CALL)                                                        \
EXPORT int NAME(MPI_File fh, ARGCONST void *buf, int count, MPI_Datatype t,    \
		MPI_Request *rq)                                              \
{                                                                             \
	REAL(NAME);                                                           \
	if (!recording())                                                     \
		return real_##NAME(fh, buf, count, t, rq);                    \
	struct rec_file m;                                                    \
	struct file *f = file_of(fh);                                         \
	int64_t b = bytes_of(count, t);                                       \
	void *tok = file_begin(CALL, &m, f, 0, -1, b);                        \
	int rc = real_##NAME(fh, buf, count, t, rq);                          \
	if (rc == MPI_SUCCESS)                                                \
		m.p.req = req_add(*rq, 0, f ? f->comm : NULL);                \
	file_end(tok, rc, b, &m);                                             \
	return rc;                                                            \
}
#define IRW_AT(NAME, CALL)                                                     \
EXPORT int NAME(MPI_File fh, MPI_Offset off, ARGCONST void *buf, int count,    \
		MPI_Datatype t, MPI_Request *rq)                              \
{                                                                             \
	REAL(NAME);                                                           \
	if (!recording())                                                     \
		return real_##NAME(fh, off, buf, count, t, rq);               \
	struct rec_file m;                                                    \
	struct file *f = file_of(fh);                                         \
	int64_t b = bytes_of(count, t);                                       \
	void *tok = file_begin(CALL, &m, f, 0, off, b);                       \
	int rc = real_##NAME(fh, off, buf, count, t, rq);                     \
	if (rc == MPI_SUCCESS)                                                \
		m.p.req = req_add(*rq, 0, f ? f->comm : NULL);                \
	file_end(tok, rc, b, &m);                                             \
	return rc;                                                            \
}
#define ARGCONST
IRW(MPI_File_iread, C_MPI_FILE_IREAD)
IRW_AT(MPI_File_iread_at, C_MPI_FILE_IREAD_AT)
#undef ARGCONST
#define ARGCONST const
IRW(MPI_File_iwrite, C_MPI_FILE_IWRITE)
IRW_AT(MPI_File_iwrite_at, C_MPI_FILE_IWRITE_AT)
#undef ARGCONST
