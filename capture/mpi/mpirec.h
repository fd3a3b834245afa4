/*
 * The MPI level's records (calls.def's MPI block), as libisland-mpi.so
 * writes them and the trace writer reads them: the payload of each, a
 * struct mpi_pay and then ndone struct mpi_done, the requests the call
 * completed (Wait*, Test*; a Sendrecv's receive). Communicators are named
 * by an id every member computes alike: 0 MPI_COMM_WORLD, 1 MPI_COMM_SELF,
 * else a hash of the parent's id, its creation's number on the parent and
 * the members' world ranks.
 */
#ifndef ISLAND_MPIREC_H
#define ISLAND_MPIREC_H

#include <stdint.h>

#define MPI_DONE_MAX 64     /* completions one record carries */

struct mpi_pay {
	int32_t tag;         /* -1: none (collectives, ...) */
	uint32_t comm;       /* the communicator's id */
	uint32_t coll;       /* a collective's number on comm, from 1; 0 none */
	uint32_t req;        /* the request made (Isend, Irecv), 0 none */
	uint32_t newcomm;    /* the communicator made (Comm_dup, ...), or 0 */
	uint32_t ndone;      /* struct mpi_done that follow */
	uint32_t more;       /* completions past MPI_DONE_MAX, not listed */
	int32_t pad;
};

struct mpi_done {
	uint32_t req;        /* the request completed (0: a Sendrecv's receive) */
	int32_t src;         /* a receive's source, world rank; -1 a send */
	int32_t tag;         /* a receive's tag */
	int32_t pad;
	int64_t bytes;       /* a receive's bytes */
};

/* MPI-IO and HDF5 calls: after the struct mpi_pay (no completions), this,
 * then the file's path, NUL-terminated, and for HDF5 the dataset's name */
enum { XFER_NONE, XFER_INDEPENDENT, XFER_COLLECTIVE };
struct mpi_file {
	int64_t offset;      /* an _at call's offset (etypes of the view), or -1 */
	int32_t amode;       /* MPI_File_open's access mode, else 0 */
	int32_t xfer;        /* XFER_*: an H5Dread/H5Dwrite's transfer mode */
};

_Static_assert(sizeof(struct mpi_pay) == 32 && sizeof(struct mpi_done) == 24,
	       "mpi record layout");

#endif
