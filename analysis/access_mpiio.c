/* access's mpiio table: Darshan's MPI-IO counters per node and file, from
 * the MPI-IO level (level="mpi-io"): opens independent and collective,
 * reads and writes independent (MPI_File_read, _read_at, _read_shared),
 * collective (_all, _at_all, _ordered) and non-blocking (_iread,
 * _iread_at...), views, syncs, the bytes read and written there, and
 * their sizes in Darshan's buckets (what the MPI level was asked: the
 * POSIX table counts what it made of them). */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

enum { M_INDEP_OPENS, M_COLL_OPENS, M_INDEP_READS, M_INDEP_WRITES, M_COLL_READS,
       M_COLL_WRITES, M_NB_READS, M_NB_WRITES, M_VIEWS, M_SYNCS, M_BYTES_READ,
       M_BYTES_WRITTEN, M_N };

#define NBUCKETS 10
static const int64_t bucket_max[NBUCKETS - 1] = {
	100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600,
	1073741824,
};

struct mfile {
	const char *node, *path;	/* interned */
	int64_t c[M_N], hist[2][NBUCKETS];
};

static struct mfile *files;
static size_t nfiles, capfiles;

/* by api: which counter, whether it reads (1) or writes (2) */
static const struct { const char *api; int counter, rw; } kinds[] = {
	{ "MPI_File_read", M_INDEP_READS, 1 }, { "MPI_File_read_at", M_INDEP_READS, 1 },
	{ "MPI_File_read_shared", M_INDEP_READS, 1 },
	{ "MPI_File_read_all", M_COLL_READS, 1 }, { "MPI_File_read_at_all", M_COLL_READS, 1 },
	{ "MPI_File_read_ordered", M_COLL_READS, 1 },
	{ "MPI_File_iread", M_NB_READS, 1 }, { "MPI_File_iread_at", M_NB_READS, 1 },
	{ "MPI_File_write", M_INDEP_WRITES, 2 }, { "MPI_File_write_at", M_INDEP_WRITES, 2 },
	{ "MPI_File_write_shared", M_INDEP_WRITES, 2 },
	{ "MPI_File_write_all", M_COLL_WRITES, 2 }, { "MPI_File_write_at_all", M_COLL_WRITES, 2 },
	{ "MPI_File_write_ordered", M_COLL_WRITES, 2 },
	{ "MPI_File_iwrite", M_NB_WRITES, 2 }, { "MPI_File_iwrite_at", M_NB_WRITES, 2 },
	{ "MPI_File_set_view", M_VIEWS, 0 }, { "MPI_File_sync", M_SYNCS, 0 },
};

static struct mfile *mfile_of(const char *node, const char *path)
{
	node = intern(node);
	path = intern(path);
	for (size_t i = 0; i < nfiles; i++)
		if (files[i].node == node && files[i].path == path)
			return &files[i];
	XGROW(files, capfiles, nfiles + 1);
	memset(&files[nfiles], 0, sizeof(files[0]));
	files[nfiles].node = node;
	files[nfiles].path = path;
	return &files[nfiles++];
}

void access_mpiio_io(struct trace_thread *t, const struct trace_io *io)
{
	const struct trace_attr *lv = trace_io_attr(io, "level");

	if (!lv || strcmp(lv->value, "mpi-io") || io->failed || !io->path ||
	    trace_io_attr(io, "result"))
		return;
	struct mfile *f = mfile_of(t->node->name, io->path);
	if (!strcmp(io->api, "MPI_File_open")) {
		/* collective on its communicator: independent when it is
		 * MPI_COMM_SELF's (id 1) */
		const struct trace_attr *c = trace_io_attr(io, "comm");
		f->c[c && c->num == 1 ? M_INDEP_OPENS : M_COLL_OPENS]++;
		return;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(io->api, kinds[i].api))
			continue;
		f->c[kinds[i].counter]++;
		if (!kinds[i].rw)
			return;
		int64_t b = io->has_amount ? io->amount : 0;
		int k = 0;
		f->c[kinds[i].rw == 1 ? M_BYTES_READ : M_BYTES_WRITTEN] += b;
		while (k < NBUCKETS - 1 && b > bucket_max[k])
			k++;
		f->hist[kinds[i].rw - 1][k]++;
		return;
	}
}

static int cmp(const void *x, const void *y)
{
	const struct mfile *a = x, *b = y;
	int r = strcmp(a->node, b->node);

	return r ? r : strcmp(a->path, b->path);
}

#define BUCKETS(rw) \
	{ rw "_0_100", COL_INT, 0 }, { rw "_100_1K", COL_INT, 0 }, \
	{ rw "_1K_10K", COL_INT, 0 }, { rw "_10K_100K", COL_INT, 0 }, \
	{ rw "_100K_1M", COL_INT, 0 }, { rw "_1M_4M", COL_INT, 0 }, \
	{ rw "_4M_10M", COL_INT, 0 }, { rw "_10M_100M", COL_INT, 0 }, \
	{ rw "_100M_1G", COL_INT, 0 }, { rw "_1G_PLUS", COL_INT, 0 }
const struct coldef access_mpiio_cols[ACCESS_MPIIO_NCOLS] = {
	{ "node", COL_TEXT, 0 }, { "path", COL_TEXT, 0 },
	{ "indep_opens", COL_INT, 0 }, { "coll_opens", COL_INT, 0 },
	{ "indep_reads", COL_INT, 0 }, { "indep_writes", COL_INT, 0 },
	{ "coll_reads", COL_INT, 0 }, { "coll_writes", COL_INT, 0 },
	{ "nb_reads", COL_INT, 0 }, { "nb_writes", COL_INT, 0 },
	{ "views", COL_INT, 0 }, { "syncs", COL_INT, 0 },
	{ "bytes_read", COL_INT, 0 }, { "bytes_written", COL_INT, 0 },
	BUCKETS("r_agg"), BUCKETS("w_agg"),
};
_Static_assert(2 + M_N + 2 * NBUCKETS == ACCESS_MPIIO_NCOLS, "the mpiio table's columns");

void access_mpiio_emit(const struct tabledef *def)
{
	struct table *t = table_new(def);

	if (nfiles > 1)
		qsort(files, nfiles, sizeof(*files), cmp);
	for (size_t i = 0; i < nfiles; i++) {
		table_add(t, files[i].node);
		table_add(t, files[i].path);
		for (int k = 0; k < M_N; k++)
			table_addf(t, "%lld", (long long)files[i].c[k]);
		for (int rw = 0; rw < 2; rw++)
			for (int k = 0; k < NBUCKETS; k++)
				table_addf(t, "%lld", (long long)files[i].hist[rw][k]);
	}
	table_emit(t);
	free(files);
	files = NULL;
	nfiles = capfiles = 0;
}
