/*
 * libisland-mpi.so: the MPI level, through the PMPI profiling interface.
 * island-capture preloads it after the interposer under Open MPI's
 * launcher. It links no libmpi: a program that never calls MPI (the
 * shell mpirun starts, a Python that imports no mpi4py) never enters it,
 * and the PMPI_ functions and predefined handles are looked up in the
 * libmpi the program loaded, at its first MPI call (dlsym; a libmpi that
 * Python loaded RTLD_LOCAL under mpi4py by its name). Each call is
 * recorded through the interposer (island_level_begin/end, level.c):
 * peer (world rank), tag, communicator, bytes, requests made and
 * completed. Without the interposer (weak symbols) it only passes calls
 * on. Built against Open MPI's mpi.h: its handles are pointers.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>

#include "../spool.h"
#include "mpirec.h"
#include "mpilevel.h"



/* --- finding libmpi ------------------------------------------------------ */

static void *libmpi;

/* A function of libmpi's (after us), or an object (OBJ: the first in the
 * lookup order, which is the program's own copy of it when the program
 * was linked with a copy relocation, as PIE programs are) */
void *sym_as(const char *name, int obj)
{
	static const char *const sonames[] = { "libmpi.so.40", "libmpi.so" };
	void *p = dlsym(obj ? RTLD_DEFAULT : RTLD_NEXT, name);

	if (p)
		return p;
	for (size_t i = 0; !libmpi && i < sizeof(sonames) / sizeof(sonames[0]); i++)
		libmpi = dlopen(sonames[i], RTLD_LAZY | RTLD_NOLOAD);
	if (libmpi && (p = dlsym(libmpi, name)))
		return p;
	/* an MPI call with no MPI loaded: nothing to pass it to */
	static const char msg[] = "libisland-mpi.so: an MPI call, but no libmpi.so.40 is loaded\n";
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(127);
	_exit(127);
}

void *sym(const char *name)
{
	return sym_as(name, 0);
}

/* Open MPI's predefined handles: addresses of libmpi's objects */
MPI_Comm c_world, c_self, c_null;
MPI_Datatype t_byte;
MPI_Request r_null;

void handles(void)
{
	if (__builtin_expect(c_world != NULL, 1))
		return;
	t_byte = (MPI_Datatype)sym_as("ompi_mpi_byte", 1);
	c_self = (MPI_Comm)sym_as("ompi_mpi_comm_self", 1);
	c_null = (MPI_Comm)sym_as("ompi_mpi_comm_null", 1);
	r_null = (MPI_Request)sym_as("ompi_request_null", 1);
	__atomic_store_n(&c_world, (MPI_Comm)sym_as("ompi_mpi_comm_world", 1), __ATOMIC_RELEASE);
}


/* --- a short spin lock for the tables (threads making MPI calls) -------- */

static int table_lock;

void lock(void)
{
	while (__atomic_exchange_n(&table_lock, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&table_lock, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
}

void unlock(void)
{
	__atomic_store_n(&table_lock, 0, __ATOMIC_RELEASE);
}

/* --- communicators -------------------------------------------------------- */

#define NCOMMS 1024

static struct comm comms[NCOMMS];

static uint32_t fnv(uint32_t h, uint32_t v)
{
	for (int i = 0; i < 4; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * 16777619u;
	return h;
}

/* How many communicators of each member set this process has seen */
#define NSETS 1024
static struct { uint32_t h, k; } sets[NSETS];

/* The id every member computes alike: a hash of the members' world
 * ranks and of how many communicators of those members this process had
 * seen before (members make theirs in the same order: MPI orders a
 * communicator's collectives, creations included). Under the lock. */
static uint32_t comm_id(const int *world, int n, int inter)
{
	uint32_t h = 2166136261u, k = 0;

	h = fnv(h, (uint32_t)inter);
	for (int i = 0; i < n; i++)
		h = fnv(h, (uint32_t)world[i]);
	for (uint32_t i = h & (NSETS - 1), j = 0; j < NSETS; i = (i + 1) & (NSETS - 1), j++)
		if (!sets[i].k || sets[i].h == h) {
			sets[i].h = h;
			k = sets[i].k++;
			break;
		}
	h = fnv(h, k);
	return h < 2 ? h + 2 : h;
}

/* Its slot, registered when first seen (made by a call not wrapped) */
struct comm *comm_of(MPI_Comm c)
{
	handles();
	if (c == c_world)
		return &comms[0];
	lock();
	struct comm *free_slot = NULL;
	for (int i = 2; i < NCOMMS; i++) {
		if (comms[i].h == c) {
			unlock();
			return &comms[i];
		}
		if (!comms[i].h && !free_slot)
			free_slot = &comms[i];
	}
	unlock();
	if (c == c_self || !free_slot)
		return &comms[1];	/* (a table full: counted as SELF's) */
	REAL(MPI_Comm_test_inter);
	REAL(MPI_Comm_group);
	REAL(MPI_Comm_remote_group);
	REAL(MPI_Group_size);
	REAL(MPI_Group_translate_ranks);
	REAL(MPI_Group_free);
	MPI_Group g, wg;
	int inter = 0, n = 0;
	real_MPI_Comm_test_inter(c, &inter);
	if ((inter ? real_MPI_Comm_remote_group(c, &g) : real_MPI_Comm_group(c, &g)) != MPI_SUCCESS)
		return &comms[1];
	real_MPI_Group_size(g, &n);
	int *local = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
	int *world = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
	if (!local || !world) {
		free(local);
		free(world);
		real_MPI_Group_free(&g);
		return &comms[1];
	}
	for (int i = 0; i < n; i++)
		local[i] = i;
	real_MPI_Comm_group(c_world, &wg);
	real_MPI_Group_translate_ranks(g, n, local, wg, world);
	real_MPI_Group_free(&g);
	real_MPI_Group_free(&wg);
	free(local);
	lock();
	for (int i = 2; i < NCOMMS; i++)
		if (!comms[i].h) {
			comms[i].id = comm_id(world, n, inter);
			comms[i].coll = 0;
			comms[i].n = n;
			comms[i].world = world;
			__atomic_store_n(&comms[i].h, c, __ATOMIC_RELEASE);
			unlock();
			return &comms[i];
		}
	unlock();
	free(world);
	return &comms[1];
}

static void comm_gone(MPI_Comm c)
{
	lock();
	for (int i = 2; i < NCOMMS; i++)
		if (comms[i].h == c) {
			free(comms[i].world);
			comms[i] = (struct comm){ 0 };
		}
	unlock();
}

static int world_rank(const struct comm *c, int r)
{
	if (r < 0)
		return r;	/* MPI_ANY_SOURCE, MPI_PROC_NULL */
	if (c == &comms[1]) {
		static int me = -1;
		if (me < 0) {
			REAL(MPI_Comm_rank);
			real_MPI_Comm_rank(c_world, &me);
		}
		return me;
	}
	return c->world ? (r < c->n ? c->world[r] : -1) : r;
}

static void comms_init(void)
{
	handles();
	comms[0] = (struct comm){ c_world, 0, 0, 0, NULL };
	comms[1] = (struct comm){ c_self, 1, 0, 1, NULL };
}

/* --- requests ------------------------------------------------------------- */

#define NREQS 8192              /* a power of 2 */

struct req {
	MPI_Request h;               /* NULL: free */
	uint32_t id;
	int recv;
	struct comm *comm;
};

static struct req reqs[NREQS];
static uint32_t next_req;

static size_t req_slot(MPI_Request h)
{
	uintptr_t v = (uintptr_t)h;
	return (size_t)((v >> 4) ^ (v >> 17)) & (NREQS - 1);
}

uint32_t req_add(MPI_Request h, int recv, struct comm *c)
{
	uint32_t id = __atomic_add_fetch(&next_req, 1, __ATOMIC_RELAXED);

	lock();
	for (size_t i = req_slot(h), k = 0; k < NREQS; i = (i + 1) & (NREQS - 1), k++)
		if (!reqs[i].h || reqs[i].h == h) {
			reqs[i] = (struct req){ h, id, recv, c };
			unlock();
			return id;
		}
	unlock();
	return 0;	/* the table full: the request goes unnamed */
}

/* The request's entry, taken out of the table (its handle may be reused
 * once it completed); id 0 when not known */
static struct req req_take(MPI_Request h)
{
	struct req r = { 0 };

	if (!h || h == r_null)
		return r;
	lock();
	for (size_t i = req_slot(h), k = 0; k < NREQS && reqs[i].h; i = (i + 1) & (NREQS - 1), k++)
		if (reqs[i].h == h) {
			r = reqs[i];
			/* backward-shift deletion keeps the probe chains whole */
			size_t j = i;
			for (;;) {
				j = (j + 1) & (NREQS - 1);
				if (!reqs[j].h)
					break;
				size_t home = req_slot(reqs[j].h);
				if (((j - home) & (NREQS - 1)) >= ((j - i) & (NREQS - 1))) {
					reqs[i] = reqs[j];
					i = j;
				}
			}
			reqs[i] = (struct req){ 0 };
			break;
		}
	unlock();
	return r;
}

/* --- records -------------------------------------------------------------- */

int64_t bytes_of(int count, MPI_Datatype t)
{
	int sz = 0;

	REAL(MPI_Type_size);
	if (count <= 0 || real_MPI_Type_size(t, &sz) != MPI_SUCCESS)
		return 0;
	return (int64_t)count * sz;
}

int64_t status_bytes(const MPI_Status *st)
{
	int n = 0;

	REAL(MPI_Get_count);
	handles();
	if (real_MPI_Get_count(st, t_byte, &n) != MPI_SUCCESS || n == MPI_UNDEFINED)
		return -1;
	return n;
}

static void *begin(int call, int64_t peer, int64_t bytes, const struct rec_mpi *m, int ndone)
{
	if (!recording())
		return NULL;
	return island_level_begin(call, peer, bytes, m,
				  sizeof(m->p) + sizeof(m->d[0]) * (size_t)ndone);
}

/* The call returned: its record completed (peer: the world rank the
 * begin gave, or the one a receive learnt) */
static void end_peer(void *tok, int rc, int64_t peer, int64_t bytes, const struct rec_mpi *m)
{
	if (tok)
		island_level_end(tok, rc, peer, bytes, m,
				 sizeof(m->p) + sizeof(m->d[0]) * (size_t)m->p.ndone);
}

static void end(void *tok, int rc, int64_t bytes, const struct rec_mpi *m)
{
	if (tok)
		end_peer(tok, rc, ((const struct rec *)tok)->a1, bytes, m);
}

static void pay_init(struct rec_mpi *m, const struct comm *c, int tag)
{
	memset(&m->p, 0, sizeof(m->p));
	m->p.tag = tag;
	m->p.comm = c ? c->id : 0;
}

/* A completion into m's list (the receive's source translated) */
static void done_add(struct rec_mpi *m, const struct req *r, const MPI_Status *st)
{
	if (!r->id)
		return;
	if (m->p.ndone >= MPI_DONE_MAX) {
		m->p.more++;
		return;
	}
	struct mpi_done *d = &m->d[m->p.ndone++];
	*d = (struct mpi_done){ r->id, -1, -1, 0, 0 };
	if (r->recv && st) {
		d->src = r->comm ? world_rank(r->comm, st->MPI_SOURCE) : st->MPI_SOURCE;
		d->tag = st->MPI_TAG;
		d->bytes = status_bytes(st);
	}
}

/* --- start and end -------------------------------------------------------- */

EXPORT int MPI_Init(int *argc, char ***argv)
{
	REAL(MPI_Init);
	struct rec_mpi m;
	pay_init(&m, NULL, -1);
	void *tok = begin(C_MPI_INIT, -1, 0, &m, 0);
	int rc = real_MPI_Init(argc, argv);
	comms_init();
	end(tok, rc, 0, &m);
	return rc;
}

EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	REAL(MPI_Init_thread);
	struct rec_mpi m;
	pay_init(&m, NULL, -1);
	void *tok = begin(C_MPI_INIT_THREAD, -1, 0, &m, 0);
	int rc = real_MPI_Init_thread(argc, argv, required, provided);
	comms_init();
	end(tok, rc, 0, &m);
	return rc;
}

EXPORT int MPI_Finalize(void)
{
	REAL(MPI_Finalize);
	struct rec_mpi m;
	pay_init(&m, NULL, -1);
	void *tok = begin(C_MPI_FINALIZE, -1, 0, &m, 0);
	int rc = real_MPI_Finalize();
	end(tok, rc, 0, &m);
	return rc;
}

/* --- point to point ------------------------------------------------------- */

#define SEND(NAME, CALL)                                                      \
EXPORT int NAME(const void *buf, int count, MPI_Datatype t, int dest, int tag, \
		MPI_Comm comm)                                                \
{                                                                             \
	REAL(NAME);                                                           \
	if (!recording())                                                     \
		return real_##NAME(buf, count, t, dest, tag, comm);           \
	struct comm *c = comm_of(comm);                                       \
	struct rec_mpi m;                                                     \
	int64_t b = bytes_of(count, t);                                       \
	pay_init(&m, c, tag);                                                 \
	void *tok = begin(CALL, world_rank(c, dest), b, &m, 0);               \
	int rc = real_##NAME(buf, count, t, dest, tag, comm);                 \
	end(tok, rc, b, &m);                                                  \
	return rc;                                                            \
}
SEND(MPI_Send, C_MPI_SEND)
SEND(MPI_Ssend, C_MPI_SSEND)
SEND(MPI_Rsend, C_MPI_RSEND)
SEND(MPI_Bsend, C_MPI_BSEND)

#define ISEND(NAME, CALL)                                                     \
EXPORT int NAME(const void *buf, int count, MPI_Datatype t, int dest, int tag, \
		MPI_Comm comm, MPI_Request *rq)                               \
{                                                                             \
	REAL(NAME);                                                           \
	if (!recording())                                                     \
		return real_##NAME(buf, count, t, dest, tag, comm, rq);       \
	struct comm *c = comm_of(comm);                                       \
	struct rec_mpi m;                                                     \
	int64_t b = bytes_of(count, t);                                       \
	pay_init(&m, c, tag);                                                 \
	void *tok = begin(CALL, world_rank(c, dest), b, &m, 0);               \
	int rc = real_##NAME(buf, count, t, dest, tag, comm, rq);             \
	if (rc == MPI_SUCCESS)                                                \
		m.p.req = req_add(*rq, 0, c);                                 \
	end(tok, rc, b, &m);                                                  \
	return rc;                                                            \
}
ISEND(MPI_Isend, C_MPI_ISEND)
ISEND(MPI_Issend, C_MPI_ISSEND)

EXPORT int MPI_Recv(void *buf, int count, MPI_Datatype t, int src, int tag,
		    MPI_Comm comm, MPI_Status *st)
{
	REAL(MPI_Recv);
	if (!recording())
		return real_MPI_Recv(buf, count, t, src, tag, comm, st);
	struct comm *c = comm_of(comm);
	struct rec_mpi m;
	MPI_Status mine;
	MPI_Status *s = st == MPI_STATUS_IGNORE ? &mine : st;
	pay_init(&m, c, tag);
	void *tok = begin(C_MPI_RECV, world_rank(c, src), 0, &m, 0);
	int rc = real_MPI_Recv(buf, count, t, src, tag, comm, s);
	int64_t b = 0;
	int64_t from = world_rank(c, src);
	if (rc == MPI_SUCCESS) {
		m.p.tag = s->MPI_TAG;
		from = world_rank(c, s->MPI_SOURCE);
		b = status_bytes(s);
	}
	end_peer(tok, rc, from, b < 0 ? 0 : b, &m);
	return rc;
}

EXPORT int MPI_Irecv(void *buf, int count, MPI_Datatype t, int src, int tag,
		     MPI_Comm comm, MPI_Request *rq)
{
	REAL(MPI_Irecv);
	if (!recording())
		return real_MPI_Irecv(buf, count, t, src, tag, comm, rq);
	struct comm *c = comm_of(comm);
	struct rec_mpi m;
	pay_init(&m, c, tag);
	void *tok = begin(C_MPI_IRECV, world_rank(c, src), 0, &m, 0);
	int rc = real_MPI_Irecv(buf, count, t, src, tag, comm, rq);
	if (rc == MPI_SUCCESS)
		m.p.req = req_add(*rq, 1, c);
	end(tok, rc, 0, &m);
	return rc;
}

EXPORT int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype st_, int dest, int stag,
			void *rbuf, int rcount, MPI_Datatype rt, int src, int rtag,
			MPI_Comm comm, MPI_Status *st)
{
	REAL(MPI_Sendrecv);
	if (!recording())
		return real_MPI_Sendrecv(sbuf, scount, st_, dest, stag, rbuf, rcount, rt,
					 src, rtag, comm, st);
	struct comm *c = comm_of(comm);
	struct rec_mpi m;
	MPI_Status mine;
	MPI_Status *s = st == MPI_STATUS_IGNORE ? &mine : st;
	int64_t b = bytes_of(scount, st_);
	pay_init(&m, c, stag);
	void *tok = begin(C_MPI_SENDRECV, world_rank(c, dest), b, &m, 1);
	int rc = real_MPI_Sendrecv(sbuf, scount, st_, dest, stag, rbuf, rcount, rt, src,
				   rtag, comm, s);
	if (rc == MPI_SUCCESS) {
		m.p.ndone = 1;
		m.d[0] = (struct mpi_done){ 0, world_rank(c, s->MPI_SOURCE), s->MPI_TAG, 0,
					    status_bytes(s) };
	}
	end(tok, rc, b, &m);
	return rc;
}

/* --- completions ---------------------------------------------------------- */

/* Statuses for up to n requests: the caller's, or ours (on the stack up
 * to a few, else allocated) */
#define STATUS_STACK 64

EXPORT int MPI_Wait(MPI_Request *rq, MPI_Status *st)
{
	REAL(MPI_Wait);
	if (!recording())
		return real_MPI_Wait(rq, st);
	handles();
	struct rec_mpi m;
	MPI_Status mine;
	MPI_Status *s = st == MPI_STATUS_IGNORE ? &mine : st;
	MPI_Request h = *rq;
	pay_init(&m, NULL, -1);
	void *tok = begin(C_MPI_WAIT, -1, 0, &m, 1);
	int rc = real_MPI_Wait(rq, s);
	struct req r = req_take(h);
	if (rc == MPI_SUCCESS)
		done_add(&m, &r, s);
	end(tok, rc, 0, &m);
	return rc;
}

/* Waitall, Testall: all of them completed (flag) */
static int all_of(int call, int n, MPI_Request *rq, int *flag, MPI_Status *st)
{
	REAL(MPI_Waitall);
	REAL(MPI_Testall);
	handles();
	MPI_Status stack[STATUS_STACK], *mine = NULL, *s = st;
	MPI_Request hs[STATUS_STACK], *h = hs;
	if (n > STATUS_STACK && !(h = malloc(sizeof(*h) * (size_t)n)))
		return call == C_MPI_WAITALL ? real_MPI_Waitall(n, rq, st) :
		       real_MPI_Testall(n, rq, flag, st);
	if (st == MPI_STATUSES_IGNORE) {
		s = n <= STATUS_STACK ? stack : (mine = malloc(sizeof(*s) * (size_t)n));
		if (!s) {
			if (h != hs)
				free(h);
			return call == C_MPI_WAITALL ? real_MPI_Waitall(n, rq, st) :
			       real_MPI_Testall(n, rq, flag, st);
		}
	}
	memcpy(h, rq, sizeof(*h) * (size_t)(n > 0 ? n : 0));
	struct rec_mpi m;
	pay_init(&m, NULL, -1);
	void *tok = begin(call, -1, 0, &m, n < MPI_DONE_MAX ? n : MPI_DONE_MAX);
	int rc = call == C_MPI_WAITALL ? real_MPI_Waitall(n, rq, s) :
		 real_MPI_Testall(n, rq, flag, s);
	int all = call == C_MPI_WAITALL || *flag;
	for (int i = 0; all && rc != MPI_ERR_IN_STATUS && rc == MPI_SUCCESS && i < n; i++) {
		struct req r = req_take(h[i]);
		done_add(&m, &r, &s[i]);
	}
	if (tok && !all && island_level_drop)
		island_level_drop(tok);	/* a poll that found nothing */
	else
		end(tok, rc, 0, &m);
	if (h != hs)
		free(h);
	free(mine);
	return rc;
}

EXPORT int MPI_Waitall(int n, MPI_Request *rq, MPI_Status *st)
{
	REAL(MPI_Waitall);
	if (!recording())
		return real_MPI_Waitall(n, rq, st);
	return all_of(C_MPI_WAITALL, n, rq, NULL, st);
}

EXPORT int MPI_Testall(int n, MPI_Request *rq, int *flag, MPI_Status *st)
{
	REAL(MPI_Testall);
	if (!recording())
		return real_MPI_Testall(n, rq, flag, st);
	return all_of(C_MPI_TESTALL, n, rq, flag, st);
}

EXPORT int MPI_Test(MPI_Request *rq, int *flag, MPI_Status *st)
{
	REAL(MPI_Test);
	if (!recording())
		return real_MPI_Test(rq, flag, st);
	handles();
	struct rec_mpi m;
	MPI_Status mine;
	MPI_Status *s = st == MPI_STATUS_IGNORE ? &mine : st;
	MPI_Request h = *rq;
	pay_init(&m, NULL, -1);
	void *tok = begin(C_MPI_TEST, -1, 0, &m, 1);
	int rc = real_MPI_Test(rq, flag, s);
	if (rc == MPI_SUCCESS && *flag) {
		struct req r = req_take(h);
		done_add(&m, &r, s);
		end(tok, rc, 0, &m);
	} else if (tok && island_level_drop) {
		island_level_drop(tok);
	}
	return rc;
}

/* Waitany, Testany: one of them (index) */
static int any_of(int call, int n, MPI_Request *rq, int *index, int *flag, MPI_Status *st)
{
	REAL(MPI_Waitany);
	REAL(MPI_Testany);
	handles();
	MPI_Request hs[STATUS_STACK], *h = hs;
	MPI_Status mine;
	MPI_Status *s = st == MPI_STATUS_IGNORE ? &mine : st;
	if (n > STATUS_STACK && !(h = malloc(sizeof(*h) * (size_t)n)))
		return call == C_MPI_WAITANY ? real_MPI_Waitany(n, rq, index, st) :
		       real_MPI_Testany(n, rq, index, flag, st);
	memcpy(h, rq, sizeof(*h) * (size_t)(n > 0 ? n : 0));
	struct rec_mpi m;
	pay_init(&m, NULL, -1);
	void *tok = begin(call, -1, 0, &m, 1);
	int rc = call == C_MPI_WAITANY ? real_MPI_Waitany(n, rq, index, s) :
		 real_MPI_Testany(n, rq, index, flag, s);
	int got = rc == MPI_SUCCESS && *index != MPI_UNDEFINED && *index >= 0 && *index < n &&
		  (call == C_MPI_WAITANY || *flag);
	if (got) {
		struct req r = req_take(h[*index]);
		done_add(&m, &r, s);
	}
	if (tok && !got && call == C_MPI_TESTANY && island_level_drop)
		island_level_drop(tok);
	else
		end(tok, rc, 0, &m);
	if (h != hs)
		free(h);
	return rc;
}

EXPORT int MPI_Waitany(int n, MPI_Request *rq, int *index, MPI_Status *st)
{
	REAL(MPI_Waitany);
	if (!recording())
		return real_MPI_Waitany(n, rq, index, st);
	return any_of(C_MPI_WAITANY, n, rq, index, NULL, st);
}

EXPORT int MPI_Testany(int n, MPI_Request *rq, int *index, int *flag, MPI_Status *st)
{
	REAL(MPI_Testany);
	if (!recording())
		return real_MPI_Testany(n, rq, index, flag, st);
	return any_of(C_MPI_TESTANY, n, rq, index, flag, st);
}

/* Waitsome, Testsome: those in indices */
static int some_of(int call, int n, MPI_Request *rq, int *outcount, int *idx, MPI_Status *st)
{
	REAL(MPI_Waitsome);
	REAL(MPI_Testsome);
	handles();
	MPI_Status stack[STATUS_STACK], *mine = NULL, *s = st;
	MPI_Request hs[STATUS_STACK], *h = hs;
	if (n > STATUS_STACK && !(h = malloc(sizeof(*h) * (size_t)n)))
		goto plain;
	if (st == MPI_STATUSES_IGNORE) {
		s = n <= STATUS_STACK ? stack : (mine = malloc(sizeof(*s) * (size_t)n));
		if (!s) {
			if (h != hs)
				free(h);
			goto plain;
		}
	}
	memcpy(h, rq, sizeof(*h) * (size_t)(n > 0 ? n : 0));
	struct rec_mpi m;
	pay_init(&m, NULL, -1);
	void *tok = begin(call, -1, 0, &m, n < MPI_DONE_MAX ? n : MPI_DONE_MAX);
	int rc = call == C_MPI_WAITSOME ? real_MPI_Waitsome(n, rq, outcount, idx, s) :
		 real_MPI_Testsome(n, rq, outcount, idx, s);
	int got = rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED && *outcount > 0;
	for (int k = 0; got && k < *outcount; k++)
		if (idx[k] >= 0 && idx[k] < n) {
			struct req r = req_take(h[idx[k]]);
			done_add(&m, &r, &s[k]);
		}
	if (tok && !got && call == C_MPI_TESTSOME && island_level_drop)
		island_level_drop(tok);
	else
		end(tok, rc, 0, &m);
	if (h != hs)
		free(h);
	free(mine);
	return rc;
plain:
	return call == C_MPI_WAITSOME ? real_MPI_Waitsome(n, rq, outcount, idx, st) :
	       real_MPI_Testsome(n, rq, outcount, idx, st);
}

EXPORT int MPI_Waitsome(int n, MPI_Request *rq, int *outcount, int *idx, MPI_Status *st)
{
	REAL(MPI_Waitsome);
	if (!recording())
		return real_MPI_Waitsome(n, rq, outcount, idx, st);
	return some_of(C_MPI_WAITSOME, n, rq, outcount, idx, st);
}

EXPORT int MPI_Testsome(int n, MPI_Request *rq, int *outcount, int *idx, MPI_Status *st)
{
	REAL(MPI_Testsome);
	if (!recording())
		return real_MPI_Testsome(n, rq, outcount, idx, st);
	return some_of(C_MPI_TESTSOME, n, rq, outcount, idx, st);
}

/* --- collectives ---------------------------------------------------------- */

/* A collective's record: its number on the communicator, its root (a
 * world rank, -1 none), the bytes this rank gives */
static void *coll_begin(int call, struct comm *c, int root, int64_t bytes, struct rec_mpi *m)
{
	pay_init(m, c, -1);
	m->p.coll = __atomic_add_fetch(&c->coll, 1, __ATOMIC_RELAXED);
	return begin(call, root >= 0 ? world_rank(c, root) : -1, bytes, m, 0);
}

static int comm_size(MPI_Comm comm)
{
	int n = 0;
	REAL(MPI_Comm_size);
	real_MPI_Comm_size(comm, &n);
	return n;
}

/* A collective's wrapper: the call recorded around the real one, with
 * its root (-1 none) and the bytes it moves, both counted once it is
 * known to record */
#define COLLECTIVE(FN, CALL, ROOT, BYTES, ARGS)                             \
	do {                                                                \
		REAL(FN);                                                   \
		if (!recording())                                           \
			return real_##FN ARGS;                              \
		struct rec_mpi m;                                           \
		int64_t b = (BYTES);                                        \
		void *tok = coll_begin(CALL, comm_of(comm), ROOT, b, &m);   \
		int rc = real_##FN ARGS;                                    \
		end(tok, rc, b, &m);                                        \
		return rc;                                                  \
	} while (0)

EXPORT int MPI_Barrier(MPI_Comm comm)
{
	COLLECTIVE(MPI_Barrier, C_MPI_BARRIER, -1, 0,
		   (comm));
}

EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm)
{
	COLLECTIVE(MPI_Bcast, C_MPI_BCAST, root, bytes_of(count, t),
		   (buf, count, t, root, comm));
}

EXPORT int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op,
		      int root, MPI_Comm comm)
{
	COLLECTIVE(MPI_Reduce, C_MPI_REDUCE, root, bytes_of(count, t),
		   (sbuf, rbuf, count, t, op, root, comm));
}

EXPORT int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op,
			 MPI_Comm comm)
{
	COLLECTIVE(MPI_Allreduce, C_MPI_ALLREDUCE, -1, bytes_of(count, t),
		   (sbuf, rbuf, count, t, op, comm));
}

EXPORT int MPI_Gather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
		      MPI_Datatype rt, int root, MPI_Comm comm)
{
	COLLECTIVE(MPI_Gather, C_MPI_GATHER, root,
		   sbuf == MPI_IN_PLACE ? bytes_of(rcount, rt) : bytes_of(scount, st),
		   (sbuf, scount, st, rbuf, rcount, rt, root, comm));
}

EXPORT int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
		       MPI_Datatype rt, int root, MPI_Comm comm)
{
	COLLECTIVE(MPI_Scatter, C_MPI_SCATTER, root,
		   rbuf == MPI_IN_PLACE ? bytes_of(scount, st) : bytes_of(rcount, rt),
		   (sbuf, scount, st, rbuf, rcount, rt, root, comm));
}

EXPORT int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
			 MPI_Datatype rt, MPI_Comm comm)
{
	COLLECTIVE(MPI_Allgather, C_MPI_ALLGATHER, -1,
		   sbuf == MPI_IN_PLACE ? bytes_of(rcount, rt) : bytes_of(scount, st),
		   (sbuf, scount, st, rbuf, rcount, rt, comm));
}

EXPORT int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
			MPI_Datatype rt, MPI_Comm comm)
{
	COLLECTIVE(MPI_Alltoall, C_MPI_ALLTOALL, -1,
		   (sbuf == MPI_IN_PLACE ? bytes_of(rcount, rt) : bytes_of(scount, st)) * comm_size(comm),
		   (sbuf, scount, st, rbuf, rcount, rt, comm));
}

/* --- communicators made and freed ----------------------------------------- */

static void made(void *tok, int rc, struct rec_mpi *m, MPI_Comm *nc)
{
	handles();
	if (rc == MPI_SUCCESS && *nc != c_null)
		m->p.newcomm = comm_of(*nc)->id;
	end(tok, rc, 0, m);
}

EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *nc)
{
	REAL(MPI_Comm_dup);
	if (!recording())
		return real_MPI_Comm_dup(comm, nc);
	struct rec_mpi m;
	void *tok = coll_begin(C_MPI_COMM_DUP, comm_of(comm), -1, 0, &m);
	int rc = real_MPI_Comm_dup(comm, nc);
	made(tok, rc, &m, nc);
	return rc;
}

EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *nc)
{
	REAL(MPI_Comm_split);
	if (!recording())
		return real_MPI_Comm_split(comm, color, key, nc);
	struct rec_mpi m;
	void *tok = coll_begin(C_MPI_COMM_SPLIT, comm_of(comm), -1, 0, &m);
	int rc = real_MPI_Comm_split(comm, color, key, nc);
	made(tok, rc, &m, nc);
	return rc;
}

EXPORT int MPI_Comm_create(MPI_Comm comm, MPI_Group g, MPI_Comm *nc)
{
	REAL(MPI_Comm_create);
	if (!recording())
		return real_MPI_Comm_create(comm, g, nc);
	struct rec_mpi m;
	void *tok = coll_begin(C_MPI_COMM_CREATE, comm_of(comm), -1, 0, &m);
	int rc = real_MPI_Comm_create(comm, g, nc);
	made(tok, rc, &m, nc);
	return rc;
}

EXPORT int MPI_Comm_free(MPI_Comm *comm)
{
	REAL(MPI_Comm_free);
	if (!recording())
		return real_MPI_Comm_free(comm);
	struct rec_mpi m;
	MPI_Comm c = *comm;
	pay_init(&m, comm_of(c), -1);
	void *tok = begin(C_MPI_COMM_FREE, -1, 0, &m, 0);
	int rc = real_MPI_Comm_free(comm);
	if (rc == MPI_SUCCESS)
		comm_gone(c);
	end(tok, rc, 0, &m);
	return rc;
}
