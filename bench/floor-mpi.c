/*
 * The least an MPI-level recorder costs (bench/mpi.sh): an LD_PRELOAD
 * library whose MPI_Send and MPI_Recv take two cycle-counter readings
 * around the real call (PMPI) and store a 32-byte record of it, nothing
 * else, for the MPI calls of tests/apps/mpi/mpipingpong: into fresh
 * memory that the kernel gives as the records reach it (as a recorder
 * that keeps every record is given its pages: allocated, zeroed, faulted
 * in), or with FLOOR_RING=1 round a 1 MiB ring that stays in the cache
 * (floor.c's FLOOR_RING: a consumer that keeps up at no cost).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <x86intrin.h>

struct srec {
	uint64_t t0;
	uint32_t dt;
	int32_t peer, tag, count, rc;
	uint16_t call, len;
};

#define RING (1u << 20)
#define FRESH (8ul << 30)	/* reserved, given a page at a time */
static char ring[RING] __attribute__((aligned(64)));
static char *mem = ring;
static size_t mask = RING - 1;
static __thread size_t at;

__attribute__((constructor)) static void init(void)
{
	const char *r = getenv("FLOOR_RING");
	void *m;

	if (r && *r == '1')
		return;
	m = mmap(NULL, FRESH, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	if (m != MAP_FAILED) {
		mem = m;
		mask = FRESH - 1;
	}
}

static void keep(int call, uint64_t t0, uint64_t t1, int peer, int tag, int count, int rc)
{
	struct srec *r = (struct srec *)(mem + (at & mask));

	*r = (struct srec){ t0, (uint32_t)(t1 - t0), peer, tag, count, rc, (uint16_t)call,
			    sizeof(*r) };
	at += sizeof(*r);
}

int MPI_Send(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm)
{
	uint64_t t0 = __rdtsc();
	int rc = PMPI_Send(buf, count, t, dest, tag, comm);

	keep(1, t0, __rdtsc(), dest, tag, count, rc);
	return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm comm,
	     MPI_Status *st)
{
	uint64_t t0 = __rdtsc();
	int rc = PMPI_Recv(buf, count, t, src, tag, comm, st);

	keep(2, t0, __rdtsc(), src, tag, count, rc);
	return rc;
}
