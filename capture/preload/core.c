/*
 * The interposer's core: per-thread spools, the thread registry, process
 * start, thread and process end. Everything here runs off the hot path
 * except rec_reserve/rec_commit (preload.h).
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <linux/futex.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"
#include "real.h"

/* the program island-loader runs (its real path): the kernel's
 * /proc/self/exe is the loader's (sud.c makes it the program's) */
const char *island_exe;

#ifndef ISLAND_LOADER
__thread struct tstate ts __attribute__((tls_model("initial-exec")));
#define CONSTRUCTOR __attribute__((constructor))
#else
#define CONSTRUCTOR
void real_resolve(void) {}

/* A thread's state, found through %gs (see preload.h). */
struct tstate *island_new_state(void)
{
	struct tstate *t = (struct tstate *)island_syscall(SYS_mmap, 0,
		(long)sizeof(struct tstate), PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if ((long)t == -1)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->self = t;
	t->slot = -1;
	island_syscall(SYS_arch_prctl, 0x1001 /* ARCH_SET_GS */, (long)t);
	return t;
}
#endif
int island_on;
int clock_kind;
static int sud_wanted;               /* --syscalls: children too */

#define WINDOW (4u << 20)            /* bytes of records mapped at a time */
#define MIN_WINDOW (128u << 10)      /* > the largest record */
#define FIRST_WINDOW (256u << 10)
#define POPULATE (4u << 10)          /* a chunk's pages given at first */
#define REG_MAX 16384                /* threads alive at once */

static char spool_dir[512];
static size_t spool_dir_len;
static volatile int capture_gone;   /* island-capture died (capture_alive) */
static char env_spool[600], env_clock[32], env_lib[600], env_image[40];
/* what of ASAN_OPTIONS is ours (ENV_ASAN_MARK): the program's own value
 * is left whole, even when it ends as our suffix does */
enum { ASAN_NONE, ASAN_ADDED, ASAN_OURS };
static int asan_mark;
static int image_gen;                /* this image's number in the capture */
static char env_session[600], env_session_node[48];
static char env_share[1040];               /* ISLAND_SHARE=... */
static char env_loader[600];         /* --syscalls: ISLAND_LOADER=... */
char env_preload_lib[512];
/* the MPI level's library (ISLAND_MPI_LIB), preloaded after ours */
static char env_mpi[600], env_preload_mpi[512];

/* The spool directory, read from the environment by the constructor. */
const char *island_spool_dir(void)
{
	return spool_dir;
}

/* Thread registry: the spool headers of the live threads of this process,
 * so that the process's end can be stamped on every thread. Headers are
 * never unmapped, so a stale pointer is always safe to write. */
static struct spool_hdr *reg_hdr[REG_MAX];
static pid_t reg_tid[REG_MAX];
/* one past the highest slot ever claimed: the walks at exit, exec and fork
 * stop there, so that a process of one thread touches one page of the
 * registry, not 48 (a fork child copied them all, at every fork) */
static int reg_top;

/* pthread_t -> tid of recently started threads, for pthread_join. */
#define TMAP 4096
static struct { unsigned long pt; pid_t tid; } tmap[TMAP];
static unsigned tmap_next;

long raw_syscall(long nr, long a, long b, long c, long d, long e, long f)
{
	return syscall(nr, a, b, c, d, e, f);
}

#define SYS(nr, ...) raw_syscall_n(nr, __VA_ARGS__)
static long raw_syscall_n(long nr, long a, long b, long c, long d)
{
	return syscall(nr, a, b, c, d);
}

char *utoa(char *p, unsigned long v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	*p = 0;
	return p;
}

static int cstrlen(const char *s)
{
	int n = 0;

	while (s[n])
		n++;
	return n;
}

static void reg_add(struct tstate *t)
{
	for (int i = 0; i < REG_MAX; i++) {
		struct spool_hdr *none = NULL;
		if (__atomic_compare_exchange_n(&reg_hdr[i], &none, t->hdr, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			int top = __atomic_load_n(&reg_top, __ATOMIC_RELAXED);

			reg_tid[i] = t->tid;
			t->slot = i;
			while (top < i + 1 &&
			       !__atomic_compare_exchange_n(&reg_top, &top, i + 1, 1,
							    __ATOMIC_RELEASE,
							    __ATOMIC_RELAXED))
				;
			return;
		}
	}
	t->slot = -1;
}

static void reg_del(struct tstate *t)
{
	if (t->slot >= 0)
		__atomic_store_n(&reg_hdr[t->slot], NULL, __ATOMIC_RELEASE);
	t->slot = -1;
}

void registry_note_pthread(struct tstate *t, unsigned long pthread)
{
	unsigned i = __atomic_fetch_add(&tmap_next, 1, __ATOMIC_RELAXED) % TMAP;

	tmap[i].tid = t->tid;
	__atomic_store_n(&tmap[i].pt, pthread, __ATOMIC_RELEASE);
}

pid_t tid_of(unsigned long pthread)
{
	unsigned n = __atomic_load_n(&tmap_next, __ATOMIC_ACQUIRE);

	for (unsigned k = 0; k < TMAP && k < n; k++) {
		unsigned i = (n - 1 - k) % TMAP;
		if (__atomic_load_n(&tmap[i].pt, __ATOMIC_ACQUIRE) == pthread)
			return tmap[i].tid;
	}
	return 0;
}

/*
 * The arena (capture/spool.h) is opened only where no thread of the
 * application runs (the constructor, a fork child), mapped whole, and
 * closed at once: an application thread that opens a file gets the number
 * it would get without us, none of its descriptors is ours to lose to a
 * close or dup2, and the descriptor limit it meets is its own. A fork
 * child inherits the mapping; a new image maps the arena again.
 */
static char *arena_base;             /* arena_span bytes, never unmapped */
static uint64_t no_stop;
volatile uint64_t *island_stop = &no_stop;
static uint64_t arena_span;
#define arena ((struct arena_hdr *)arena_base)

static int arena_attach(void)
{
	char path[sizeof(spool_dir) + 16];
	struct stat st;
	void *m;

	if (arena_base)
		return 0;
	memcpy(path, spool_dir, spool_dir_len);
	memcpy(path + spool_dir_len, "/" ARENA_FILE, sizeof(ARENA_FILE) + 1);
	long fd = SYS(SYS_openat, AT_FDCWD, (long)path,
		      O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -1;
	/* its size is island-capture's choice (arena_hold): the file never
	 * shrinks, and one made here (no capture made it) takes the most */
	if (SYS(SYS_fstat, fd, (long)&st, 0, 0) < 0 ||
	    ((uint64_t)st.st_size < SPOOL_HDR_SIZE &&
	     SYS(SYS_ftruncate, fd, (long)ARENA_SPAN, 0, 0) < 0)) {
		SYS(SYS_close, fd, 0, 0, 0);
		return -1;
	}
	uint64_t span = (uint64_t)st.st_size < SPOOL_HDR_SIZE ? ARENA_SPAN :
			(uint64_t)st.st_size;
	m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
		 (int)fd, 0);
	if (m == MAP_FAILED) {
		/* say so in the header, so that the trace does not claim
		 * to be complete without this image */
		struct arena_hdr *h = mmap(NULL, SPOOL_HDR_SIZE, PROT_READ | PROT_WRITE,
					   MAP_SHARED, (int)fd, 0);
		if (h != MAP_FAILED) {
			__atomic_fetch_add(&h->unmapped, 1, __ATOMIC_RELAXED);
			munmap(h, SPOOL_HDR_SIZE);
		}
		SYS(SYS_close, fd, 0, 0, 0);
		return -1;
	}
	SYS(SYS_close, fd, 0, 0, 0);
	arena_span = span;
	arena_base = m;
	island_stop = &arena->stop;
	if (arena->magic != ARENA_MAGIC) {   /* zeroes are a valid start */
		arena->version = SPOOL_VERSION;
		__atomic_store_n(&arena->magic, ARENA_MAGIC, __ATOMIC_RELEASE);
	}
	return 0;
}

/* Checked only when a thread needs a chunk, never per call, and without a
 * system call: island-capture holds a robust mutex in the arena's header,
 * which the kernel marks FUTEX_OWNER_DIED when it dies however it dies
 * (SIGKILL, the OOM killer). Then nobody will read more than the arena
 * holds, so it stops growing. A word of 0: no capture holds it (a runner
 * that made the spool itself), keep recording. */
static int capture_alive(void)
{
	if (capture_gone || !arena_base)
		return !capture_gone;
	uint32_t w = __atomic_load_n((uint32_t *)arena->capture_lock, __ATOMIC_ACQUIRE);
	if (w & FUTEX_OWNER_DIED)
		capture_gone = 1;
	return !capture_gone;
}

/* Give pages to [p, p + n) of the arena: a write to a page the file
 * system cannot back would kill the application with SIGBUS;
 * MADV_POPULATE_WRITE says so with an error instead (EINVAL: before
 * Linux 5.14, where there is nothing to ask). 0, or -1. */
static int populate(char *p, uint64_t n)
{
	uint64_t b = arena->budget;

	/* the arena's budget first (half the space that was free) */
	if (b && __atomic_add_fetch(&arena->given, n, __ATOMIC_RELAXED) > b)
		goto no;
	if (syscall(SYS_madvise, p, (long)n, (long)MADV_POPULATE_WRITE) == 0 ||
	    errno == EINVAL)
		return 0;
no:
	if (b)
		__atomic_sub_fetch(&arena->given, n, __ATOMIC_RELAXED);
	return -1;
}

/* Count out a chunk of the arena and give pages to its start (*given
 * bytes; the rest as its thread reaches them, chunk_more: a thread that
 * writes a record or two takes 8 KB, not the chunk's 256): its offset,
 * 0 when there is no room. Smaller when short of space, as long as a
 * record fits. */
static uint64_t chunk_get(uint64_t *size, uint64_t *given)
{
	if (!arena_base)
		return 0;
	for (;;) {
		uint64_t off = ARENA_DATA + __atomic_fetch_add(&arena->next, *size,
							       __ATOMIC_RELAXED);
		if (off + *size > arena_span)
			return 0;
		*given = *size < SPOOL_HDR_SIZE + POPULATE ? *size : SPOOL_HDR_SIZE + POPULATE;
		if (populate(arena_base + off, *given) == 0)
			return off;
		if ((*size /= 2) < MIN_WINDOW)
			return 0;
	}
}

/* More of the thread's chunk given pages, for a record of len bytes: as
 * much again as it has (a page at least), to the chunk's end. 0, or -1
 * (then the thread goes on in a new chunk, if it can have one). */
static int chunk_more(struct tstate *t, size_t len)
{
	char *end = t->win + t->wlen;
	uint64_t step = (uint64_t)(t->lim - t->win);

	if (!t->lim || t->lim >= end || t->cur + len > end)
		return -1;
	if (step < POPULATE)
		step = POPULATE;
	while (t->lim + step < t->cur + len)
		step *= 2;
	if (step > (uint64_t)(end - t->lim))
		step = (uint64_t)(end - t->lim);
	if (populate(t->lim, step) < 0)
		return -1;
	t->lim += step;
	return 0;
}

static void chunk_stamp(struct chunk_hdr *c, uint64_t size, uint64_t owner,
			uint64_t seq)
{
	c->size = size;
	c->owner = owner;
	c->seq = seq;
	__atomic_store_n(&c->magic, CHUNK_MAGIC, __ATOMIC_RELEASE);
}

/* The records part of the chunk at `off` becomes the thread's window,
 * as far as it has pages (given bytes of the chunk). */
static void use_chunk(struct tstate *t, uint64_t off, uint64_t size, uint64_t given)
{
	t->win = arena_base + off + SPOOL_HDR_SIZE;
	t->woff = off;
	t->wlen = size - SPOOL_HDR_SIZE;
	t->cur = t->win;
	t->lim = arena_base + off + given;
}

/* The records of the chunk a thread leaves are island-capture's to read
 * now: their pages leave this process's resident set (they stay in the
 * arena's file; one written again comes back from it), so that a server
 * recorded for minutes is not gigabytes resident, to ps and to the OOM
 * killer's choice, for what it spooled. */
static void chunk_leave(struct tstate *t)
{
	if (t->win && t->lim > t->win)
		SYS(SYS_madvise, (long)t->win, (long)(t->lim - t->win), MADV_DONTNEED, 0);
}

/* The thread's next chunk, twice the last one (small first: a short run
 * or thread zeroes little), up to WINDOW. */
static int next_chunk(struct tstate *t)
{
	uint64_t size = t->wlen ? (t->wlen + SPOOL_HDR_SIZE) * 2 : FIRST_WINDOW;

	if (size > WINDOW)
		size = WINDOW;
	uint64_t given, off = chunk_get(&size, &given);
	if (!off)
		return -1;
	chunk_leave(t);
	chunk_stamp((struct chunk_hdr *)(arena_base + off), size, t->own, ++t->cseq);
	use_chunk(t, off, size, given);
	return 0;
}

static void comm_self(char out[16])
{
	memset(out, 0, 16);
	SYS(SYS_prctl, PR_GET_NAME, (long)out, 0, 0);
}

static uint64_t proc_started(pid_t pid);

/* Start this thread's spool: its first chunk of the arena. */
int spool_open(struct tstate *t)
{
	uint64_t size = FIRST_WINDOW, off, given;

	if (!island_on || !capture_alive() || (arena_base && arena->stop))
		goto fail;
	t->pid = (pid_t)SYS(SYS_getpid, 0, 0, 0, 0);
	t->tid = (pid_t)SYS(SYS_gettid, 0, 0, 0, 0);
	t->gen = t->vpid ? t->vgen : image_gen;
	off = chunk_get(&size, &given);
	if (!off) {
		if (arena_base)
			__atomic_fetch_add(&arena->lost_threads, 1, __ATOMIC_RELAXED);
		goto fail;
	}
	t->hdr = (struct spool_hdr *)(arena_base + off + CHUNK_SPOOL_HDR);
	t->own = off;
	t->cseq = 0;
	t->hdr->magic = SPOOL_MAGIC;
	t->hdr->version = SPOOL_VERSION;
	t->hdr->clock = (uint32_t)clock_kind;
	t->hdr->pid = t->pid;
	t->hdr->tid = t->tid;
	t->hdr->gen = t->gen;
	t->hdr->creator = t->creator;
	t->hdr->made_at = (int64_t)t->made_at;
	t->hdr->made_by = t->made_by;
	t->hdr->pstart = proc_started(t->pid);
	t->hdr->start = (int64_t)(t->born ? t->born : now());
	t->born = 0;
	t->hdr->cpu_ns = -1;
	comm_self(t->hdr->comm);
	chunk_stamp((struct chunk_hdr *)(arena_base + off), size, off, 0);
	if (!t->vpid) {	/* a vfork child's are its parent's */
		reg_add(t);
		registry_note_pthread(t, (unsigned long)pthread_self());
	}
	sess_thread_start(t);
	use_chunk(t, off, size, given);
	if (unlikely(prof != NULL)) {
		prof_thread_start(t);
		if (t->slot == 0 || !t->creator)	/* an image's first thread */
			sites_describe_all(t);
	}
	return 0;
fail:
	t->hold |= HOLD_OFF;
	t->cur = t->lim = NULL;
	return -1;
}

struct rec *rec_slow(struct tstate *t, size_t len)
{
	int e = errno;
	struct rec *r = NULL;

	if (t->nside & NEST_ON) {	/* an inner call past the side buffer */
		t->nest_full = 1;
		return NULL;
	}
	if (arena_base && unlikely(arena->stop)) {
		/* the trace at its --max-size: recording ends here, quietly
		 * (the capture says so), the app untouched */
		t->kpend = 0;
		t->hold |= HOLD_OFF;
		t->cur = t->lim = NULL;
		goto out;
	}
	if (t->kpend)	/* a system call kept aside goes first */
		kpend_flush(t);

	if (!t->hdr) {
		if (t->hold & HOLD_OFF || spool_open(t) < 0)
			goto out;
	}
	if (t->cur + len > t->lim && chunk_more(t, len) < 0) {
		if (t->win)
			t->hdr->used = (uint64_t)(t->cur - t->win);
		/* The spool is full: count what is dropped, and try again
		 * only now and then (space may be freed), not on every call. */
		if (t->hdr->lost && (t->hdr->lost & 0xfff)) {
			t->hdr->lost++;
			goto out;
		}
		if (!capture_alive()) {
			t->hold |= HOLD_OFF;
			t->cur = t->lim = NULL;
			goto out;
		}
		if (next_chunk(t) < 0) {
			t->hdr->lost++;
			goto out;
		}
	}
	r = (struct rec *)t->cur;
out:
	errno = e;
	return r;
}

/* A vfork child running on its parent's thread state: its pid, else 0 */
pid_t vfork_child(struct tstate *t)
{
	pid_t pid, parent = t->vpid ? t->vs.pid : t->pid;

	if (!(t->hold & HOLD_VFORK) || !parent ||
	    (pid = (pid_t)SYS(SYS_getpid, 0, 0, 0, 0)) == parent)
		return 0;
	return pid;
}

static void record_proc(struct tstate *t, int origin, pid_t parent_tid,
			uint64_t t0);

/* A vfork child's first call: from here it records as a fork's child
 * does, in a spool of its own (its process starts at the vfork, its exec
 * is its own record), on its parent's thread state, whose own part is
 * kept aside meanwhile (vs, put back by vfork_resumed). Not under
 * --profile or --callsites (their state is the parent image's): there
 * its calls are counted as missing. 1 when it records. */
int vfork_child_open(struct tstate *t, pid_t pid)
{
	struct rec *v = t->vfork_rec;

	if (t->vpid)		/* a vfork in the child: counted */
		return t->vpid == pid && t->hdr && !(t->hold & HOLD_OFF);
	if (!v || unlikely(prof != NULL) || (rec_extras & EXTRA_SITES) || !arena_base)
		return 0;
#define SAVE(f) t->vs.f = t->f;
	VSAVED(SAVE)
#undef SAVE
	t->vpid = pid;
	t->vgen = (int)__atomic_fetch_add(&arena->images, 1, __ATOMIC_RELAXED);
	t->hdr = NULL;
	t->win = t->cur = t->lim = NULL;
	t->slot = -1;
	t->creator = 0;
	t->made_at = 0;
	t->made_by = 0;
	t->sslot = 0;
	t->hold = HOLD_VFORK;
	vfork_child_call(t, pid, 0);
	guard_on(t);
	if (spool_open(t) == 0) {
		t->hdr->start = (int64_t)v->t0;
		record_proc(t, ORIGIN_FORK, t->vs.tid, v->t0);
		record_fds(t);
	}
	guard_off(t);
	return t->hdr && !(t->hold & HOLD_OFF);
}

/* The parent of a vfork runs again: its own thread state back, and no
 * vfork pending. */
static void vfork_resumed(struct tstate *t)
{
	if (t->vpid) {
#define LOAD(f) t->f = t->vs.f;
		VSAVED(LOAD)
#undef LOAD
		t->vpid = 0;
		/* the child's exec or _exit left it on: the parent was
		 * in none of our wrappers when it called vfork */
		guard_off(t);
	}
	t->hold &= ~HOLD_VFORK;
	t->vfork_rec = NULL;
}

/* Where a thread that made a vfork stands (at a call, an exit, its
 * end): the child's pid when this is the child, on its parent's state;
 * else 0, and the parent running again has its own state back (but
 * inside its own vfork's wrapper, unless a child that recorded left
 * the guard on). */
pid_t vfork_state(struct tstate *t)
{
	pid_t pid;

	if (!(t->hold & HOLD_VFORK))
		return 0;
	if (!(pid = vfork_child(t)) && (t->vpid || !t->guard))
		vfork_resumed(t);
	return pid;
}

/* ... at a call a wrapper sees: its pid in the vfork's record (a1) and
 * the calls counted (a2: what the capture does not record of it, its
 * calls until its exec or _exit), before the parent resumes (the record
 * is taken once the parent writes another) */
void vfork_child_call(struct tstate *t, pid_t pid, int calls)
{
	struct rec *r = t->vfork_rec;

	if (r) {
		if (!r->a1)
			r->a1 = pid;
		r->a2 += calls;
	}
}

/* Not the fast case: in a thread that may not record now, or a vfork
 * child running on its parent's thread state. */
int enter_slow(struct tstate *t, int nest)
{
	pid_t pid = vfork_state(t);

	/* the program's own call, inside one of its calls we record (a
	 * signal handler's, a callback's): recorded aside (nest.c), or
	 * counted where it cannot be. Not
	 * the profiler's (libunwind's, under sysguard), nor under
	 * --syscalls (its system calls are the kernel's records), nor a
	 * fork child's atfork handler's before its spool is its own (the
	 * header is its parent's) */
	if (t->guard == GUARD_INCALL && !t->sysguard && !t->unwinding && !sud_on &&
	    t->hdr && !(t->hold & HOLD_OFF) && island_on &&
	    (pid_t)SYS(SYS_getpid, 0, 0, 0, 0) == t->pid) {
		if (nest && nest_begin(t))
			return 1;
		t->hdr->nested++;
	}
	if (t->guard || !island_on)
		return 0;
	if (pid) {
		if (vfork_child_open(t, pid)) {
			guard_on(t);
			return 1;
		}
		vfork_child_call(t, pid, 1);	/* not ours but for that */
		return 0;
	}
	if (t->hold)
		return 0;
	guard_on(t);
	return 1;
}

struct rec *put_payload(struct tstate *t, int call, uint64_t t0, uint64_t t1,
		 int64_t ret, int fd, int64_t a1, int64_t a2, int err,
		 const void *p1, size_t n1, const void *p2, size_t n2)
{
	size_t len, pl;
	struct rec *r;
	uint64_t joined = 0;

	if (call < C_NCALLS && t->kcalls)
		joined = kcalls_end(t, call, fd, ret, err);
	if (n1 > REC_MAX_PAYLOAD)
		n1 = REC_MAX_PAYLOAD;
	if (n1 + n2 > REC_MAX_PAYLOAD)
		n2 = REC_MAX_PAYLOAD - n1;
	pl = n1 + n2;
	len = REC_ALIGN(sizeof(*r) + pl);
	r = rec_reserve(t, len);
	if (!r)
		return NULL;
	rec_fill(r, call, t0, t1, ret, fd, a1, a2, err);
	r->seq = joined;
	if (n1)
		memcpy(REC_PAYLOAD(r), p1, n1);
	if (n2)
		memcpy(REC_PAYLOAD(r) + n1, p2, n2);
	memset(REC_PAYLOAD(r) + pl, 0, len - sizeof(*r) - pl);
	rec_close(t, r, len);
	return r;
}

struct rec *put_str(struct tstate *t, int call, uint64_t t0, uint64_t t1,
	     int64_t ret, int fd, int64_t a1, int64_t a2, int err,
	     const char *s1, const char *s2)
{
	size_t n1, n2;

	/* a failed call's strings may point nowhere: without its first, no
	 * payload (the second would be read as the first) */
	if (unlikely(err) && s1 && !app_str_ok(s1, err))
		s1 = s2 = NULL;
	if (unlikely(err) && s2 && !app_str_ok(s2, err))
		s2 = NULL;
	n1 = s1 ? (size_t)cstrlen(s1) + 1 : 0;
	n2 = s2 ? (size_t)cstrlen(s2) + 1 : 0;

	/* Keep strings terminated even when cut to the payload limit. */
	if (n1 > 4096)
		n1 = 4096;
	if (n2 > 4096)
		n2 = 4096;
	return put_payload(t, call, t0, t1, ret, fd, a1, a2, err, s1, n1, s2, n2);
}

/* Socket facts for the writer: inode, domain, type, local and peer
 * addresses (peer given by the caller when it has it). */
void sockinfo_fill(struct sockinfo *si, int fd, const void *peer, size_t plen)
{
	struct stat st;
	socklen_t l;
	int v;

	memset(si, 0, sizeof(*si));
	if (SYS(SYS_fstat, fd, (long)&st, 0, 0) == 0)
		si->ino = st.st_ino;
	l = sizeof(v);
	if (syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_DOMAIN, &v, &l) == 0)
		si->domain = v;
	l = sizeof(v);
	if (syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_TYPE, &v, &l) == 0)
		si->type = v;
	l = sizeof(si->local);
	if (syscall(SYS_getsockname, fd, &si->local, &l) == 0)
		si->llen = l;
	if (peer && plen) {
		if (plen > sizeof(si->peer))
			plen = sizeof(si->peer);
		memcpy(&si->peer, peer, plen);
		si->plen = (uint32_t)plen;
	} else {
		l = sizeof(si->peer);
		if (syscall(SYS_getpeername, fd, &si->peer, &l) == 0)
			si->plen = l;
	}
}

static long read_small(const char *path, char *buf, size_t n)
{
	long fd = SYS(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0);
	long got = 0, r;

	if (fd < 0)
		return -1;
	while ((size_t)got < n &&
	       (r = SYS(SYS_read, fd, (long)(buf + got), (long)(n - (size_t)got), 0)) > 0)
		got += r;
	SYS(SYS_close, fd, 0, 0, 0);
	return got;
}

/* A decimal number (no locale: island-loader's libc has no TLS of its
 * own once the program runs). */
static uint64_t dec(const char *s)
{
	uint64_t v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (uint64_t)(*s++ - '0');
	return v;
}

/* The process's starttime (/proc/self/stat's 22nd field), read once a
 * process (a pid: a fork's child reads its own); 0 when not known */
static uint64_t proc_started(pid_t pid)
{
	static pid_t of;
	static uint64_t at;
	char buf[1024], *p;
	long n;

	if (__atomic_load_n(&of, __ATOMIC_ACQUIRE) == pid)
		return __atomic_load_n(&at, __ATOMIC_RELAXED);
	n = read_small("/proc/self/stat", buf, sizeof(buf) - 1);
	uint64_t v = 0;
	if (n > 0) {
		buf[n] = 0;
		/* after the name, which may hold spaces and parentheses */
		p = NULL;
		for (char *q = buf; *q; q++)
			if (*q == ')')
				p = q;
		/* ") S ppid ...": starttime is the 20th field after it */
		for (int f = 0; p && *p && f < 20; p++)
			if (*p == ' ')
				f++;
		if (p && *p >= '0' && *p <= '9')
			v = dec(p);
	}
	__atomic_store_n(&at, v, __ATOMIC_RELAXED);
	__atomic_store_n(&of, pid, __ATOMIC_RELEASE);
	return v;
}

/* The thread of our parent that made us (its task's children file lists
 * us), 0 when none says so: a shell of system or popen while threads
 * were in such calls at once, matched to the call of that thread under
 * way when it started. */
static pid_t parent_thread(void)
{
	char dbuf[4096], path[96], kids[4096];
	long ppid = SYS(SYS_getppid, 0, 0, 0, 0), me = SYS(SYS_getpid, 0, 0, 0, 0);
	long dfd, n;
	pid_t found = 0;
	char *p;

	memcpy(path, "/proc/", 6);
	p = utoa(path + 6, (unsigned long)ppid);
	memcpy(p, "/task", 6);
	dfd = SYS(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (dfd < 0)
		return 0;
	while (!found && (n = SYS(SYS_getdents64, dfd, (long)dbuf, sizeof(dbuf), 0)) > 0) {
		for (long off = 0; !found && off < n;) {
			struct dirent64 *d = (struct dirent64 *)(dbuf + off);
			off += d->d_reclen;
			if (d->d_name[0] < '0' || d->d_name[0] > '9')
				continue;
			char *q = p + 5;
			*q++ = '/';
			q = utoa(q, (unsigned long)dec(d->d_name));
			memcpy(q, "/children", 10);
			long got = read_small(path, kids, sizeof(kids) - 1);
			if (got <= 0)
				continue;
			kids[got] = 0;
			for (char *k = kids; *k;) {
				if ((long)dec(k) == me)
					found = (pid_t)dec(d->d_name);
				while (*k && *k != ' ')
					k++;
				while (*k == ' ')
					k++;
			}
		}
	}
	SYS(SYS_close, dfd, 0, 0, 0);
	return found;
}

/* Descriptor fd's file, socket or pipe, recorded as descriptor `as`'s;
 * false when fd is not open */
bool record_fd(struct tstate *t, uint64_t tt, int fd, int as)
{
	char path[64], target[4096];

	memcpy(path, "/proc/self/fd/", 14);
	utoa(path + 14, (unsigned long)fd);
	long l = SYS(SYS_readlinkat, AT_FDCWD, (long)path, (long)target, sizeof(target) - 1);
	if (l < 0)
		return false;
	target[l] = 0;
	if (!strncmp(target, "socket:", 7)) {
		struct sockinfo si;
		sockinfo_fill(&si, fd, NULL, 0);
		put_payload(t, REC_FDINFO, tt, tt, 0, as, FDK_SOCKET, 0, 0, &si, sizeof(si),
			    NULL, 0);
	} else if (!strncmp(target, "pipe:", 5)) {
		uint64_t ino = dec(target + 6);
		put_payload(t, REC_FDINFO, tt, tt, 0, as, FDK_PIPE, 0, 0, &ino, sizeof(ino),
			    NULL, 0);
	} else {
		put_str(t, REC_FDINFO, tt, tt, 0, as, target[0] == '/' ? FDK_FILE : FDK_OTHER,
			0, 0, target, NULL);
	}
	return true;
}

/* Record the descriptors the image starts with, so that calls on inherited
 * fds resolve to their file, socket or pipe. */
void record_fds(struct tstate *t)
{
	char dbuf[4096];
	long dfd, n;
	uint64_t tt = now();

	dfd = SYS(SYS_openat, AT_FDCWD, (long)"/proc/self/fd",
		  O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (dfd < 0)
		return;
	while ((n = SYS(SYS_getdents64, dfd, (long)dbuf, sizeof(dbuf), 0)) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(dbuf + off);
			off += d->d_reclen;
			if (d->d_name[0] < '0' || d->d_name[0] > '9')
				continue;
			int fd = (int)dec(d->d_name);
			if (fd != dfd)
				record_fd(t, tt, fd, fd);
		}
	}
	SYS(SYS_close, dfd, 0, 0, 0);
}

/* The first record of a process image: who it is and where it runs. */
static void record_proc(struct tstate *t, int origin, pid_t parent_tid,
			uint64_t t0)
{
	static char buf[16384];      /* one image starts at a time, but
					vfork children of two threads */
	static int busy;
	char exe[4096], cwd[4096];
	long n, l;
	size_t el, cl;

	while (__atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE))
		SYS(SYS_sched_yield, 0, 0, 0, 0);

	l = SYS(SYS_readlinkat, AT_FDCWD, (long)"/proc/self/exe", (long)exe,
		sizeof(exe) - 1);
	exe[l > 0 ? l : 0] = 0;
	if (island_exe)
		strncpy(exe, island_exe, sizeof(exe) - 1);
	if (SYS(SYS_getcwd, (long)cwd, sizeof(cwd), 0, 0) < 0)
		cwd[0] = 0;
	el = strlen(exe) + 1;
	cl = strlen(cwd) + 1;
	memcpy(buf, exe, el);
	memcpy(buf + el, cwd, cl);
	n = read_small("/proc/self/cmdline", buf + el + cl,
		       sizeof(buf) - el - cl - 1);
	if (n < 0)
		n = 0;
	put_payload(t, REC_PROC, t0, now(), parent_tid, -1,
		    SYS(SYS_getppid, 0, 0, 0, 0), origin, 0, buf,
		    el + cl + (size_t)n, NULL, 0);
	__atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
}

/* An exec's arguments as its record's args= (docs/trace-format.md): each
 * byte outside '!'..'~', and '\', as \xHH, the arguments separated by
 * one space, at most ARGS_MAX bytes in all; a cut ends in " \..." (which
 * no escaped argument holds). s added to out (n bytes so far, kept
 * terminated); false once cut. */
bool args_add(char *out, size_t *n, const char *s, bool first)
{
	static const char hex[] = "0123456789abcdef";
	size_t k = *n;

	/* after every step k + 6 <= ARGS_MAX: room for the cut's mark */
	if (!first && k + 1 + 6 > ARGS_MAX) {
		memcpy(out + k, " \\...", 6);
		*n = k + 5;
		return false;
	}
	if (!first)
		out[k++] = ' ';
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		bool plain = *c > ' ' && *c < 0x7f && *c != '\\';

		if (k + (plain ? 1 : 4) + 6 > ARGS_MAX) {
			memcpy(out + k, " \\...", 6);
			*n = k + 5;
			return false;
		}
		if (plain) {
			out[k++] = (char)*c;
			continue;
		}
		out[k++] = '\\';
		out[k++] = 'x';
		out[k++] = hex[*c >> 4];
		out[k++] = hex[*c & 15];
	}
	out[k] = 0;
	*n = k;
	return true;
}

/* The image a call made that the child could not record itself (told
 * A:B:PATH by wrap_proc.c's env_tell): a vfork child's exec (ENV_VFORKED:
 * T0 the vfork, T1 the exec), on its parent's thread state until then; a
 * posix_spawn's child (ENV_SPAWNED: PPID ours, T0 the call), libc's own
 * clone and exec, the exec when this image started, all it knows. Its
 * process starts at the call, with its exec, as a fork's child's does;
 * --syscalls: the kernel's exec too, which was made (levels.c). 0 when
 * what it was told does not hold. */
static int told_image(struct tstate *t, const char *v, int vforked)
{
	const char *c1 = strchr(v, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	uint64_t a = dec(v), b = c1 ? dec(c1 + 1) : 0, start = (uint64_t)t->hdr->start;
	uint64_t made = vforked ? a : b, at = vforked ? b : start;

	if (!c2 || !made || at < made || at > start ||
	    (!vforked && (long)a != SYS(SYS_getppid, 0, 0, 0, 0)))
		return 0;
	t->hdr->start = (int64_t)made;
	record_proc(t, ORIGIN_EXEC, 0, made);
	if (!vforked)	/* its file actions, libc's in the child */
		spawn_acts_record(t, getenv(ENV_SPAWN_ACTS), at);
	/* its arguments: the image's own, as the kernel gave them */
	char cmd[ARGS_MAX], args[ARGS_MAX];
	long cl = read_small("/proc/self/cmdline", cmd, sizeof(cmd) - 1);
	size_t an = 0;

	args[0] = 0;
	cmd[cl > 0 ? cl : 0] = 0;
	for (long i = 0; i < cl && args_add(args, &an, cmd + i, i == 0); i += (long)strlen(cmd + i) + 1)
		;
	struct rec *r = put_str(t, C_EXECVE, at, at, 0, -1, 0, AT_FDCWD, 0, c2 + 1, args);
	if (r && getenv(ENV_SYSCALLS))
		r->seq |= SEQ_JOINED | ((uint64_t)SYS_execve << 48);
	return 1;
}

#ifndef ISLAND_LOADER
extern char **environ;
static int env_ours(const char *e);

/* Our library out of an LD_PRELOAD value (entries split by ':' or ' '),
 * in place; returns the length left. */
static size_t preload_strip(char *v, const char *lib, size_t libl)
{
	char *w = v, *r = v;

	while (*r) {
		size_t l = strcspn(r, ": ");
		if (!(l == libl && !strncmp(r, lib, l))) {
			if (w != v)
				*w++ = ':';
			memmove(w, r, l);
			w += l;
		}
		r += l;
		while (*r == ':' || *r == ' ')
			r++;
	}
	*w = 0;
	return (size_t)(w - v);
}

/* What the app sees of its environment (getenv, environ) is what it was
 * given: our variables were read by the constructor, and env_fix puts them
 * back into every image the app execs. The kernel's copy, which
 * /proc/PID/environ reads (the memory from the mm's env_start to env_end,
 * where the strings still are), loses them too: the bytes of each string
 * taken out, no longer referenced by environ, are set to 0, and so is the
 * tail our entry leaves past the end of a shortened LD_PRELOAD. */
static void env_hide(void)
{
	size_t libl = strlen(env_preload_lib);
	char **w = environ;

	if (!environ || !libl)
		return;
	for (char **r = environ; *r; r++) {
		if (env_ours(*r)) {
			memset(*r, 0, strlen(*r));
			continue;
		}
		/* the program's own ASAN_OPTIONS, with ours after them */
		size_t rl = strlen(*r), sl = sizeof(ENV_ASAN_SUFFIX) - 1;
		if (asan_mark == ASAN_ADDED && !strncmp(*r, "ASAN_OPTIONS=", 13) && rl > 13 + sl &&
		    !strcmp(*r + rl - sl, ENV_ASAN_SUFFIX))
			memset(*r + rl - sl, 0, sl);
		if (!strncmp(*r, "LD_PRELOAD=", 11)) {
			size_t was = strlen(*r + 11);
			size_t left = preload_strip(*r + 11, env_preload_lib, libl);
			if (left && env_preload_mpi[0])
				left = preload_strip(*r + 11, env_preload_mpi,
						     strlen(env_preload_mpi));
			if (!left) {
				memset(*r, 0, 11 + was);
				continue;
			}
			memset(*r + 11 + left, 0, was - left);
		}
		*w++ = *r;
	}
	*w = NULL;
}
#endif

static void getenv_copy(char *dst, size_t n, const char *name, const char *val)
{
	size_t k = strlen(name);

	memcpy(dst, name, k);
	dst[k] = '=';
	strncpy(dst + k + 1, val, n - k - 2);
	dst[n - 1] = 0;
}

CONSTRUCTOR void island_init(void)
{
	const char *dir = getenv(ENV_SPOOL);
	const char *clk = getenv(ENV_CLOCK);
	const char *lib = getenv(ENV_LIB);
	int e = errno;

	real_resolve();
	/* started by island-loader, whose handler recorded the dynamic
	 * loader's calls so far: our own calls from here on are not the
	 * application's, so dispatch is ours first, and off until sud_init
	 * (sud.c) */
	const char *loaded = getenv(ENV_LOADED);
	int handoff = getenv(ENV_SYSCALLS) && loaded;
	if (handoff) {
		/* the program's file, kept: env_hide wipes the variable */
		static char exe[4096];
		sud_take_over();
		if (strlen(loaded) < sizeof(exe) && loaded[0] == '/') {
			strcpy(exe, loaded);
			island_exe = exe;
		}
	}
	if (!dir || dir[0] != '/' || strlen(dir) >= sizeof(spool_dir) - 64)
		return;
	const char *am = getenv(ENV_ASAN_MARK);
	asan_mark = !am ? ASAN_NONE : !strcmp(am, "added") ? ASAN_ADDED :
		    !strcmp(am, "ours") ? ASAN_OURS : ASAN_NONE;
	strcpy(spool_dir, dir);
	spool_dir_len = strlen(dir);
	getenv_copy(env_spool, sizeof(env_spool), ENV_SPOOL, dir);
	getenv_copy(env_clock, sizeof(env_clock), ENV_CLOCK, clk ? clk : "mono");
	getenv_copy(env_lib, sizeof(env_lib), ENV_LIB, lib ? lib : "");
	if (lib)
		strncpy(env_preload_lib, lib, sizeof(env_preload_lib) - 1);
	const char *mpil = getenv(ENV_MPI_LIB);
	if (mpil && *mpil && strlen(mpil) < sizeof(env_preload_mpi)) {
		getenv_copy(env_mpi, sizeof(env_mpi), ENV_MPI_LIB, mpil);
		strcpy(env_preload_mpi, mpil);
	}
#if defined(__x86_64__) || defined(__i386__)
	clock_kind = clk && !strcmp(clk, "tsc") ? CLOCK_KIND_TSC : CLOCK_KIND_MONO;
#else
	clock_kind = CLOCK_KIND_MONO;
#endif
	if (getenv(ENV_LIMITS))
		limits_init(spool_dir);
	{
		char cs[sizeof(spool_dir) + 16];

		memcpy(cs, spool_dir, spool_dir_len);
		memcpy(cs + spool_dir_len, "/" CALLSITES_FILE, sizeof(CALLSITES_FILE) + 1);
		if (raw_syscall(SYS_faccessat, AT_FDCWD, (long)cs, F_OK, 0, 0, 0) == 0)
			rec_extras |= EXTRA_SITES;
	}
	prof_init(spool_dir, spool_dir_len);
	if (arena_attach() == 0)
		image_gen = (int)__atomic_fetch_add(&arena->images, 1, __ATOMIC_RELAXED);
	/* exec'd by a captured process of the same pid (env_fix) */
	const char *img = getenv(ENV_IMAGE);
	int execd = img && (pid_t)dec(img) == (pid_t)SYS(SYS_getpid, 0, 0, 0, 0);
	if (getenv(ENV_SESSION) && getenv(ENV_SESSION_NODE)) {
		getenv_copy(env_session, sizeof(env_session), ENV_SESSION,
			    getenv(ENV_SESSION));
		getenv_copy(env_session_node, sizeof(env_session_node),
			    ENV_SESSION_NODE, getenv(ENV_SESSION_NODE));
		sess_init(getenv(ENV_SESSION), (int)dec(getenv(ENV_SESSION_NODE)));
	}
	priv_init();
	if (priv_share()[0])
		getenv_copy(env_share, sizeof(env_share), ENV_SHARE, priv_share());
	island_on = 1;

	struct tstate *t = &ts;
	t->slot = -1;
	guard_on(t);
	/* a system or popen call's shell: which call made it */
	const char *by = getenv(ENV_MADE_BY);
	if (by && !execd && by[0] == '?') {
		/* spawned while others were: which thread, not which call */
		t->made_by = parent_thread();
		t->made_at = 0;
	} else if (by && !execd) {
		const char *c = strchr(by, ':');
		t->made_by = (pid_t)dec(by);
		t->made_at = c ? dec(c + 1) : 0;
		if (!c || !t->made_by || !t->made_at)
			t->made_by = 0, t->made_at = 0;
	}
	const char *told = getenv(execd ? ENV_VFORKED : ENV_SPAWNED);
	if (spool_open(t) == 0) {
		if (!told || !told_image(t, told, execd))
			record_proc(t, execd && !handoff ? ORIGIN_EXEC : ORIGIN_NEW, 0,
				    (uint64_t)t->hdr->start);
		record_fds(t);
	}
	prof_drop_own(t);
	guard_off(t);
	if (getenv(ENV_SYSCALLS)) {
		sud_wanted = 1;
		if (getenv(ENV_LOADER))
			getenv_copy(env_loader, sizeof(env_loader), ENV_LOADER,
				    getenv(ENV_LOADER));
		sud_init();
	}
#ifndef ISLAND_LOADER
	env_hide();
	exit_watch();
#endif
	errno = e;
}

/* Stamp a thread's end in its header. */
/* at: the thread's end, if its last snapshot took it already */
static void hdr_finish(struct spool_hdr *h, pid_t tid, int self, int how, uint64_t at)
{
	struct timespec cpu;
	clockid_t cid = self ? CLOCK_THREAD_CPUTIME_ID
			     : (clockid_t)((~(unsigned)tid << 3) | 6);

	if (h->exit != TEXIT_NONE)
		return;
	h->end = (int64_t)(at ? at : now());
	if (syscall(SYS_clock_gettime, cid, &cpu) == 0)
		h->cpu_ns = (int64_t)cpu.tv_sec * 1000000000 + cpu.tv_nsec;
	if (self) {
		comm_self(h->comm_end);
	} else {
		char path[64], *p = path;
		memcpy(p, "/proc/self/task/", 16);
		p = utoa(p + 16, (unsigned long)tid);
		memcpy(p, "/comm", 6);
		long n = read_small(path, h->comm_end, 15);
		if (n > 0 && h->comm_end[n - 1] == '\n')
			h->comm_end[n - 1] = 0;
	}
	__atomic_store_n(&h->exit, how, __ATOMIC_RELEASE);
}

void thread_finish(struct tstate *t, int how, int unmap)
{
	int e = errno;
	uint64_t at = 0;

	(void)vfork_state(t);
	if (!t->hdr || (t->hold & HOLD_OFF)) {
		t->hold |= HOLD_OFF;
		return;
	}
	if (t->kpend)
		kpend_flush(t);
	nest_drain(t, 1);
	if (unlikely(prof != NULL))
		at = prof_thread_end(t);
	if (t->win)
		t->hdr->used = (uint64_t)(t->cur - t->win);
	hdr_finish(t->hdr, t->tid, 1, how, at);
	sess_thread_gone(t);
	reg_del(t);
	t->hold |= HOLD_OFF;
	if (unmap)                   /* the arena stays mapped */
		t->win = NULL;
	t->cur = t->lim = NULL;
	errno = e;
}

/* The process ends (exit, _exit) or its image is replaced (exec): every
 * thread still registered ends now. */
void process_finish(int how)
{
	int e = errno;
	struct tstate *self = &ts;
	uint64_t at = 0;

	if (vfork_state(self)) {
		/* a vfork child that records (vfork_child_open): its own
		 * spool ends, not its parent's threads */
		if (self->vpid && self->hdr && self->hdr->exit == TEXIT_NONE) {
			if (self->win)
				self->hdr->used = (uint64_t)(self->cur - self->win);
			hdr_finish(self->hdr, self->tid, 1, how, 0);
			sess_process_gone();
		}
		errno = e;
		return;
	}
	if (self->kpend && self->hdr && !(self->hold & HOLD_OFF))
		kpend_flush(self);
	nest_drain(self, 0);
	/* once: exit, then exit_group */
	if (self->hdr && self->hdr->exit == TEXIT_NONE) {
		uring_finish(self);
		aio_finish(self);
	}
	/* --profile: this thread's tail is a last snapshot; the others'
	 * counters stay in their headers for the writer, unless profiling
	 * is off now */
	if (unlikely(prof != NULL) && self->hdr && !(self->hold & HOLD_OFF) &&
	    self->hdr->exit == TEXIT_NONE) {	/* once: exit, then exit_group */
		if (how == TEXIT_EXEC)
			prof_exec_stop(self);
		at = prof_tail(self);
	}
	int top = __atomic_load_n(&reg_top, __ATOMIC_ACQUIRE);

	for (int i = 0; i < top; i++) {
		struct spool_hdr *h = __atomic_load_n(&reg_hdr[i], __ATOMIC_ACQUIRE);
		if (!h)
			continue;
		if (prof && !prof->on)
			h->prof_last = 0;
		hdr_finish(h, reg_tid[i], h == self->hdr, how, h == self->hdr ? at : 0);
	}
	sess_process_gone();
	errno = e;
}

/* exec failed: the threads go on. */
void process_unfinish(void)
{
	struct spool_hdr *own = ts.hdr;

	if (unlikely(prof != NULL))
		prof_exec_resume(&ts);
	if (own && own->exit == TEXIT_EXEC) {	/* a vfork child's: no registry */
		own->exit = TEXIT_NONE;
		own->end = 0;
		own->cpu_ns = -1;
	}
	int top = __atomic_load_n(&reg_top, __ATOMIC_ACQUIRE);

	for (int i = 0; i < top; i++) {
		struct spool_hdr *h = __atomic_load_n(&reg_hdr[i], __ATOMIC_ACQUIRE);
		if (h && h->exit == TEXIT_EXEC) {
			h->exit = TEXIT_NONE;
			h->end = 0;
			h->cpu_ns = -1;
		}
	}
}

#ifndef ISLAND_LOADER
__attribute__((destructor)) static void island_fini(void)
{
	if (!island_on)
		return;
	guard_on(&ts);
	process_finish(TEXIT_PROCESS);
}
#endif

/* In the child of fork: the parent's threads are gone and their spools are
 * not ours. Start this thread's spool for the new pid. */
static void spawn_env_forked(void);

void fork_child(pid_t parent_tid, uint64_t t0)
{
	struct tstate *t = &ts;

	sites_fork_child();
	spawn_env_forked();
	aio_fork_child();
	uring_fork_child();
	if (unlikely(prof != NULL))
		prof_fork_child();
	for (int i = 0; i < reg_top; i++)
		reg_hdr[i] = NULL;
	reg_top = 0;
	t->hdr = NULL;
	t->win = NULL;
	t->cur = t->lim = NULL;
	t->hold = 0;
	t->vfork_rec = NULL;        /* the parent's (--syscalls: vfork a fork) */
	t->kcalls = t->kpend = 0;   /* the parent's call's */
	t->nside = 0;               /* calls the parent made inside it */
	t->nest_full = 0;
	t->slot = -1;
	t->creator = 0;
	t->made_at = 0;
	t->made_by = 0;
	t->sslot = 0;
	guard_on(t);
	/* one thread: a safe point to open again what the parent lost */
	if (arena_attach() == 0)
		image_gen = (int)__atomic_fetch_add(&arena->images, 1, __ATOMIC_RELAXED);
	if (spool_open(t) == 0) {
		t->hdr->start = (int64_t)t0;
		record_proc(t, ORIGIN_FORK, parent_tid, t0);
		record_fds(t);
	}
	prof_drop_own(t);
}

/* The variables island-capture passes to every image of the app */
static int env_ours(const char *e)
{
	static const char *const ours[] = { "ISLAND_SPOOL=", "ISLAND_CLOCK=", "ISLAND_LIB=",
		"ISLAND_LIMITS=", "ISLAND_SYSCALLS=", "ISLAND_LOADED=", "ISLAND_SESSION",
		"ISLAND_LOADER=", "ISLAND_LOADER_TARGET=", "ISLAND_LOADER_NAME=",
		"ISLAND_IMAGE=", "ISLAND_MADE_BY=", "ISLAND_VFORKED=", "ISLAND_SPAWNED=",
		"ISLAND_SPAWN_ACTS=", "ISLAND_SHARE=", "ISLAND_MPI_LIB=", ENV_ASAN_MARK "=" };

	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		if (!strncmp(e, ours[i], strlen(ours[i])))
			return 1;
	return asan_mark == ASAN_OURS && !strcmp(e, ENV_ASAN_OURS);
}

/* An environment for a child image: the caller's, with our variables and
 * our library in LD_PRELOAD (after any the application set itself). */
char *const *env_fix(char *const *envp, char **buf, size_t buflen,
		     char **arr, size_t arrlen)
{
	static const char pre[] = "LD_PRELOAD=";
	const char *their = NULL;
	size_t n = 0, libl = strlen(env_preload_lib), mpil = strlen(env_preload_mpi);
	int have_spool = 0, named = 0;

	if (!island_on || !libl)
		return envp;
	static char *const no_env[] = { NULL };

	if (!envp)
		envp = no_env;
	for (char *const *e = envp; *e; e++) {
		if (!strncmp(*e, pre, sizeof(pre) - 1))
			their = *e + sizeof(pre) - 1;
		else if (!strcmp(*e, env_spool))
			have_spool = 1;
		else if (!strncmp(*e, ENV_MADE_BY "=", sizeof(ENV_MADE_BY)))
			named = 1;	/* a shell's name: not passed on */
	}
	if (have_spool && !named && their && strstr(their, env_preload_lib) &&
	    (!mpil || strstr(their, env_preload_mpi)))
		return envp;        /* (ISLAND_LIMITS travels with ISLAND_SPOOL) */
	size_t tl = their ? strlen(their) : 0;
	if (sizeof(pre) + tl + 1 + libl + 1 + mpil + 1 > buflen)
		return envp;
	char *p = *buf;
	memcpy(p, pre, sizeof(pre) - 1);
	p += sizeof(pre) - 1;
	if (tl) {
		memcpy(p, their, tl);
		p += tl;
		*p++ = ':';
	}
	memcpy(p, env_preload_lib, libl + 1);
	if (mpil) {
		p[libl] = ':';
		memcpy(p + libl + 1, env_preload_mpi, mpil + 1);
		p += mpil + 1;
	}
	p += libl + 1;
	/* the program's own ASAN_OPTIONS, and ours after them, in the rest
	 * of buf; none: ours alone (below) */
	char *asan = NULL, *mark = NULL;
	for (char *const *e = envp; *e; e++) {
		size_t al = strlen(*e), sl = sizeof(ENV_ASAN_SUFFIX) - 1;
		if (!strncmp(*e, ENV_ASAN_MARK "=", sizeof(ENV_ASAN_MARK)))
			mark = *e;	/* an environment of ours (system's) */
		if (strncmp(*e, "ASAN_OPTIONS=", 13))
			continue;
		asan = *e;
		if (!strstr(*e, "verify_asan_link_order") &&
		    (size_t)(p - *buf) + al + sl + 1 <= buflen) {
			memcpy(p, *e, al);
			memcpy(p + al, ENV_ASAN_SUFFIX, sl + 1);
			asan = p;
			mark = (char *)ENV_ASAN_MARK "=added";
		}
	}
	if (!asan)
		mark = (char *)ENV_ASAN_MARK "=ours";
	for (char *const *e = envp; *e; e++) {
		if (!strncmp(*e, pre, sizeof(pre) - 1) || env_ours(*e) ||
		    !strncmp(*e, "ASAN_OPTIONS=", 13))
			continue;
		if (n + 15 >= arrlen)
			return envp;
		arr[n++] = *e;
	}
	arr[n++] = *buf;
	arr[n++] = env_spool;
	arr[n++] = env_clock;
	arr[n++] = env_lib;
	if (mpil)
		arr[n++] = env_mpi;
	/* the image exec'd next knows it continues this pid */
	memcpy(env_image, ENV_IMAGE "=", sizeof(ENV_IMAGE));
	utoa(env_image + sizeof(ENV_IMAGE), (unsigned long)SYS(SYS_getpid, 0, 0, 0, 0));
	arr[n++] = env_image;
	if (limits)
		arr[n++] = (char *)"ISLAND_LIMITS=1";
	if (sud_wanted)
		arr[n++] = (char *)"ISLAND_SYSCALLS=1";
	if (sud_wanted && env_loader[0])
		arr[n++] = env_loader;
	if (env_session[0]) {
		arr[n++] = env_session;
		arr[n++] = env_session_node;
	}
	if (env_share[0])
		arr[n++] = env_share;
	arr[n++] = asan ? asan : (char *)ENV_ASAN_OURS;
	if (mark)
		arr[n++] = mark;
	arr[n] = NULL;
	return arr;
}

/*
 * system() and popen() spawn /bin/sh with environ, through libc's
 * internal spawn, which no wrapper sees: while one runs, environ is an
 * environment with our variables (env_fix), one for all the threads in
 * such calls at once, in memory of its own: the first in puts it there,
 * the last out puts the app's back (a copy per call, each put back by
 * its own call, left environ on a dead thread's stack after threads had
 * called system at once). A call alone also names itself in it for its
 * shell (ISLAND_MADE_BY: the trace's child is exact); a second call
 * takes the name out before it spawns: a shell then finds which thread
 * of its parent made it (parent_thread), and is matched to the call of
 * that thread under way when it started.
 */
static struct {
	int lock, users;
	char **saved;                /* the app's environ */
	char **env;                  /* ours, in a mapping of size bytes */
	size_t size;
	int made;                    /* the name's index in env, -1 none */
	char by[64];                 /* ISLAND_MADE_BY=TID:T0 */
} spawn_env = { .made = -1 };
static char no_made_by[] = ENV_MADE_BY "=?";

static void spawn_lock(void)
{
	while (__atomic_exchange_n(&spawn_env.lock, 1, __ATOMIC_ACQUIRE))
		syscall(SYS_sched_yield);
}

static void spawn_unlock(void)
{
	__atomic_store_n(&spawn_env.lock, 0, __ATOMIC_RELEASE);
}

void spawn_env_enter(pid_t tid, uint64_t t0)
{
	if (!island_on)
		return;
	spawn_lock();
	if (spawn_env.users++) {
		/* not alone: no call is named, each shell asks (a store the
		 * spawn's execve reads before or after, either a whole
		 * string) */
		if (spawn_env.made >= 0)
			__atomic_store_n(&spawn_env.env[spawn_env.made], no_made_by,
					 __ATOMIC_RELEASE);
		spawn_env.made = -1;
		spawn_unlock();
		return;
	}
	size_t n = 0;
	for (char **e = environ; e && *e; e++)
		n++;
	size_t arrlen = n + 16, size = arrlen * sizeof(char *) + 8192;
	char **arr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arr == MAP_FAILED) {
		spawn_env.users--;
		spawn_unlock();
		return;		/* the shell is not captured, the app runs */
	}
	char *buf = (char *)(arr + arrlen), *bp = buf;
	char *const *env = env_fix(environ, &bp, 8192, arr, arrlen - 1);
	spawn_env.saved = environ;
	spawn_env.env = arr;
	spawn_env.size = size;
	spawn_env.made = -1;
	if (env == arr && tid) {
		size_t k = 0;
		while (arr[k])
			k++;
		memcpy(spawn_env.by, ENV_MADE_BY "=", sizeof(ENV_MADE_BY));
		char *p = utoa(spawn_env.by + sizeof(ENV_MADE_BY), (unsigned long)tid);
		*p++ = ':';
		utoa(p, (unsigned long)t0);
		arr[k] = spawn_env.by;	/* the room env_fix left: arrlen - 1 */
		arr[k + 1] = NULL;
		spawn_env.made = (int)k;
	}
	environ = (char **)env;
	spawn_unlock();
}

void spawn_env_leave(void)
{
	if (!island_on)
		return;
	spawn_lock();
	if (spawn_env.users && !--spawn_env.users && spawn_env.env) {
		/* the app's own, unless it set another meanwhile */
		if (environ == spawn_env.env)
			environ = spawn_env.saved;
		if (environ != spawn_env.env)
			munmap(spawn_env.env, spawn_env.size);
		spawn_env.env = NULL;
		spawn_env.made = -1;
	}
	spawn_unlock();
}

/* A fork child has one thread: none is in system or popen */
static void spawn_env_forked(void)
{
	if (spawn_env.users && environ == spawn_env.env)
		environ = spawn_env.saved;
	spawn_env.users = 0;
	spawn_env.env = NULL;
	spawn_env.made = -1;
	spawn_env.lock = 0;
}
