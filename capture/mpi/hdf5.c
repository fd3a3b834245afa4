/*
 * The HDF5 level: H5Fcreate, H5Fopen, H5Fclose, H5Dcreate2, H5Dopen2,
 * H5Dread, H5Dwrite, H5Dclose, by interposing libhdf5's own symbols (a
 * program, or h5py, calls them by name; HDF5 has no profiling interface).
 * Each record names the file and the dataset; a read or write its
 * selection's bytes and its transfer mode (independent or collective,
 * parallel HDF5's). What it made below (MPI_File_write_at_all, pwrite)
 * is within it. No HDF5 header is needed: the few types are HDF5 1.10's
 * (hid_t 64 bits), and the library is found as libmpi is, in the one the
 * program loaded (h5py's, RTLD_LOCAL: by its name).
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "mpilevel.h"

typedef int64_t hid_t;
typedef int herr_t;

static void *libhdf5;

static void *h5sym(const char *name)
{
	static const char *const sonames[] = { "libhdf5_openmpi.so.103", "libhdf5_serial.so.103",
					       "libhdf5.so.103" };
	void *p = dlsym(RTLD_NEXT, name);

	if (p)
		return p;
	for (size_t i = 0; !libhdf5 && i < sizeof(sonames) / sizeof(sonames[0]); i++)
		libhdf5 = dlopen(sonames[i], RTLD_LAZY | RTLD_NOLOAD);
	return libhdf5 ? dlsym(libhdf5, name) : NULL;
}

/* The real function, found once; a program that calls one has the
 * library loaded (the helpers below may be missing: serial HDF5 has no
 * H5Pget_dxpl_mpio) */
#define H5REAL(T, name, ...) \
	static T (*real_##name)(__VA_ARGS__); \
	if (__builtin_expect(!real_##name, 0) && \
	    !(real_##name = (T (*)(__VA_ARGS__))h5sym(#name))) \
		nohdf5(#name)

static void nohdf5(const char *name)
{
	static const char msg[] = "libisland-mpi.so: an HDF5 call, but no libhdf5 is loaded: ";

	if (write(2, msg, sizeof(msg) - 1) < 0 || write(2, name, strlen(name)) < 0 ||
	    write(2, "\n", 1) < 0)
		_exit(127);
	_exit(127);
}

struct rec_h5 {
	struct mpi_pay p;
	struct mpi_file f;
	char names[2 * PATH_MAX];    /* the file's path, the dataset's name */
};

static size_t names_len(const struct rec_h5 *m)
{
	size_t a = strlen(m->names);

	return sizeof(m->p) + sizeof(m->f) + a + 1 + strlen(m->names + a + 1) + 1;
}

/* A file's name as HDF5 keeps it (as given) made absolute, in place */
static void absolute(char *name)
{
	char cwd[PATH_MAX];
	size_t n = strlen(name), c;

	if (!n || name[0] == '/' || !getcwd(cwd, sizeof(cwd)) || (c = strlen(cwd)) + 1 + n >= PATH_MAX)
		return;
	memmove(name + c + 1, name, n + 1);
	memcpy(name, cwd, c);
	name[c] = '/';
}

/* The names of OBJ's file and of OBJ (a dataset; "" a file) */
static void names_of(struct rec_h5 *m, hid_t obj, int dataset)
{
	static ssize_t (*fname)(hid_t, char *, size_t);
	static ssize_t (*iname)(hid_t, char *, size_t);

	if (!fname)
		fname = (ssize_t (*)(hid_t, char *, size_t))h5sym("H5Fget_name");
	if (!iname)
		iname = (ssize_t (*)(hid_t, char *, size_t))h5sym("H5Iget_name");
	m->names[0] = m->names[PATH_MAX] = 0;
	if (fname && fname(obj, m->names, PATH_MAX - 1) < 0)
		m->names[0] = 0;
	m->names[PATH_MAX - 1] = 0;
	absolute(m->names);
	size_t a = strlen(m->names);
	char *ds = m->names + a + 1;
	ds[0] = 0;
	if (dataset && iname && iname(obj, ds, PATH_MAX - 1) < 0)
		ds[0] = 0;
	ds[PATH_MAX - 1] = 0;
}

static void *h5_begin(int call, struct rec_h5 *m, int64_t bytes)
{
	memset(&m->p, 0, sizeof(m->p));
	m->p.tag = -1;
	m->f = (struct mpi_file){ -1, 0, XFER_NONE };
	return island_level_begin(call, -1, bytes, m, names_len(m));
}

static void h5_end(void *tok, int64_t rc, int64_t bytes, const struct rec_h5 *m)
{
	/* an HDF5 failure is negative; a made id is no error */
	if (tok)
		island_level_end(tok, rc < 0 ? rc : 0, -1, bytes, m, names_len(m));
}

EXPORT hid_t H5Fcreate(const char *name, unsigned flags, hid_t fcpl, hid_t fapl)
{
	H5REAL(hid_t, H5Fcreate, const char *, unsigned, hid_t, hid_t);
	if (!recording())
		return real_H5Fcreate(name, flags, fcpl, fapl);
	struct rec_h5 m;
	snprintf(m.names, PATH_MAX, "%s", name);
	absolute(m.names);
	m.names[strlen(m.names) + 1] = 0;
	void *tok = h5_begin(C_H5FCREATE, &m, 0);
	m.f.amode = (int32_t)flags;
	hid_t rc = real_H5Fcreate(name, flags, fcpl, fapl);
	if (rc >= 0)
		names_of(&m, rc, 0);
	h5_end(tok, rc, 0, &m);
	return rc;
}

EXPORT hid_t H5Fopen(const char *name, unsigned flags, hid_t fapl)
{
	H5REAL(hid_t, H5Fopen, const char *, unsigned, hid_t);
	if (!recording())
		return real_H5Fopen(name, flags, fapl);
	struct rec_h5 m;
	snprintf(m.names, PATH_MAX, "%s", name);
	absolute(m.names);
	m.names[strlen(m.names) + 1] = 0;
	void *tok = h5_begin(C_H5FOPEN, &m, 0);
	m.f.amode = (int32_t)flags;
	hid_t rc = real_H5Fopen(name, flags, fapl);
	if (rc >= 0)
		names_of(&m, rc, 0);
	h5_end(tok, rc, 0, &m);
	return rc;
}

EXPORT herr_t H5Fclose(hid_t f)
{
	H5REAL(herr_t, H5Fclose, hid_t);
	if (!recording())
		return real_H5Fclose(f);
	struct rec_h5 m;
	names_of(&m, f, 0);
	void *tok = h5_begin(C_H5FCLOSE, &m, 0);
	herr_t rc = real_H5Fclose(f);
	h5_end(tok, rc, 0, &m);
	return rc;
}

EXPORT hid_t H5Dcreate2(hid_t loc, const char *name, hid_t type, hid_t space, hid_t lcpl,
			hid_t dcpl, hid_t dapl)
{
	H5REAL(hid_t, H5Dcreate2, hid_t, const char *, hid_t, hid_t, hid_t, hid_t, hid_t);
	if (!recording())
		return real_H5Dcreate2(loc, name, type, space, lcpl, dcpl, dapl);
	struct rec_h5 m;
	names_of(&m, loc, 0);
	size_t a = strlen(m.names);
	snprintf(m.names + a + 1, PATH_MAX, "%s", name ? name : "");
	void *tok = h5_begin(C_H5DCREATE, &m, 0);
	hid_t rc = real_H5Dcreate2(loc, name, type, space, lcpl, dcpl, dapl);
	if (rc >= 0)
		names_of(&m, rc, 1);
	h5_end(tok, rc, 0, &m);
	return rc;
}

EXPORT hid_t H5Dopen2(hid_t loc, const char *name, hid_t dapl)
{
	H5REAL(hid_t, H5Dopen2, hid_t, const char *, hid_t);
	if (!recording())
		return real_H5Dopen2(loc, name, dapl);
	struct rec_h5 m;
	names_of(&m, loc, 0);
	size_t a = strlen(m.names);
	snprintf(m.names + a + 1, PATH_MAX, "%s", name ? name : "");
	void *tok = h5_begin(C_H5DOPEN, &m, 0);
	hid_t rc = real_H5Dopen2(loc, name, dapl);
	if (rc >= 0)
		names_of(&m, rc, 1);
	h5_end(tok, rc, 0, &m);
	return rc;
}

EXPORT herr_t H5Dclose(hid_t d)
{
	H5REAL(herr_t, H5Dclose, hid_t);
	if (!recording())
		return real_H5Dclose(d);
	struct rec_h5 m;
	names_of(&m, d, 1);
	void *tok = h5_begin(C_H5DCLOSE, &m, 0);
	herr_t rc = real_H5Dclose(d);
	h5_end(tok, rc, 0, &m);
	return rc;
}

/* A transfer's bytes: the selection's points (the file's, or the whole
 * dataset's for H5S_ALL) times the memory type's size; its mode */
static int64_t selection(hid_t d, hid_t mtype, hid_t mspace, hid_t fspace)
{
	static int64_t (*npoints)(hid_t);
	static hid_t (*dspace)(hid_t);
	static herr_t (*sclose)(hid_t);
	static size_t (*tsize)(hid_t);

	if (!npoints) {
		dspace = (hid_t (*)(hid_t))h5sym("H5Dget_space");
		sclose = (herr_t (*)(hid_t))h5sym("H5Sclose");
		tsize = (size_t (*)(hid_t))h5sym("H5Tget_size");
		npoints = (int64_t (*)(hid_t))h5sym("H5Sget_select_npoints");
	}
	if (!npoints || !dspace || !sclose || !tsize)
		return 0;
	hid_t s = fspace ? fspace : mspace;
	int own = !s;
	if (own && (s = dspace(d)) < 0)
		return 0;
	int64_t n = npoints(s);
	if (own)
		sclose(s);
	size_t ts = tsize(mtype);
	return n > 0 && ts ? n * (int64_t)ts : 0;
}

static int32_t xfer_of(hid_t dxpl)
{
	static herr_t (*get)(hid_t, int *);
	static int tried;
	int mode = 0;

	if (!tried) {
		get = (herr_t (*)(hid_t, int *))h5sym("H5Pget_dxpl_mpio");
		tried = 1;
	}
	if (!get || !dxpl || get(dxpl, &mode) < 0)
		return XFER_INDEPENDENT;	/* the default's */
	return mode == 1 ? XFER_COLLECTIVE : XFER_INDEPENDENT;
}

EXPORT herr_t H5Dwrite(hid_t d, hid_t mtype, hid_t mspace, hid_t fspace, hid_t dxpl,
		       const void *buf)
{
	H5REAL(herr_t, H5Dwrite, hid_t, hid_t, hid_t, hid_t, hid_t, const void *);
	if (!recording())
		return real_H5Dwrite(d, mtype, mspace, fspace, dxpl, buf);
	struct rec_h5 m;
	names_of(&m, d, 1);
	int64_t b = selection(d, mtype, mspace, fspace);
	void *tok = h5_begin(C_H5DWRITE, &m, b);
	m.f.xfer = xfer_of(dxpl);
	herr_t rc = real_H5Dwrite(d, mtype, mspace, fspace, dxpl, buf);
	h5_end(tok, rc, rc < 0 ? 0 : b, &m);
	return rc;
}

EXPORT herr_t H5Dread(hid_t d, hid_t mtype, hid_t mspace, hid_t fspace, hid_t dxpl, void *buf)
{
	H5REAL(herr_t, H5Dread, hid_t, hid_t, hid_t, hid_t, hid_t, void *);
	if (!recording())
		return real_H5Dread(d, mtype, mspace, fspace, dxpl, buf);
	struct rec_h5 m;
	names_of(&m, d, 1);
	int64_t b = selection(d, mtype, mspace, fspace);
	void *tok = h5_begin(C_H5DREAD, &m, b);
	m.f.xfer = xfer_of(dxpl);
	herr_t rc = real_H5Dread(d, mtype, mspace, fspace, dxpl, buf);
	h5_end(tok, rc, rc < 0 ? 0 : b, &m);
	return rc;
}
