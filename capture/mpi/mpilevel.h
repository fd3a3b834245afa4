/* What the MPI level's files share (capture/mpi/): libmpi found, the
 * communicators' and requests' tables, the interposer's entry points. */
#ifndef ISLAND_MPILEVEL_H
#define ISLAND_MPILEVEL_H

#include <stdint.h>
#include <mpi.h>

#include "../spool.h"
#include "mpirec.h"

#define EXPORT __attribute__((visibility("default")))

extern void *island_level_begin(int call, int64_t a1, int64_t a2, const void *pay,
				size_t n) __attribute__((weak));
extern void island_level_end(void *tok, int64_t ret, int64_t a1, int64_t a2,
			     const void *pay, size_t n) __attribute__((weak));
extern void island_level_drop(void *tok) __attribute__((weak));

static inline int recording(void)
{
	return island_level_begin != NULL;
}

/* a function of libmpi's (after us), or an object (obj) */
void *sym_as(const char *name, int obj);
void *sym(const char *name);
/* The real function, found once (racing threads find the same) */
#define REAL(name) \
	static __typeof__(&P##name) real_##name; \
	if (__builtin_expect(!real_##name, 0)) \
		real_##name = (__typeof__(&P##name))sym("P" #name)

/* Open MPI's predefined handles (handles() finds them) */
extern MPI_Comm c_world, c_self, c_null;
extern MPI_Datatype t_byte;
extern MPI_Request r_null;
void handles(void);
void lock(void);
void unlock(void);

struct comm {
	MPI_Comm h;                  /* NULL: a free slot */
	uint32_t id;
	uint32_t coll;               /* its collectives so far */
	int n;                       /* peers: its (remote) group's size */
	int *world;                  /* peer rank -> world rank; NULL: same */
};

struct comm *comm_of(MPI_Comm c);
uint32_t req_add(MPI_Request h, int recv, struct comm *c);
int64_t bytes_of(int count, MPI_Datatype t);
int64_t status_bytes(const MPI_Status *st);

struct rec_mpi {
	struct mpi_pay p;
	struct mpi_done d[MPI_DONE_MAX];
};

#endif
