/*
 * Each thread's spool: the arena island-capture reads (capture/spool.h),
 * counted out in chunks to the threads, the registry of the live
 * threads' headers, and the slow way of a record into the spool. What a
 * thread's first chunk and a record kept aside set off is the modules',
 * which this file does not know (spool_calls, filled in by init.c).
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <linux/futex.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"

struct spool_calls spool_calls;

#define WINDOW (4u << 20)            /* bytes of records mapped at a time */
#define MIN_WINDOW (128u << 10)      /* > the largest record */
#define FIRST_WINDOW (256u << 10)
#define POPULATE (4u << 10)          /* a chunk's pages given at first */
#define REG_MAX 16384                /* threads alive at once */

static char spool_dir[512];
static size_t spool_dir_len;
static volatile int capture_gone;   /* island-capture died (capture_alive) */
static int image_gen;                /* this image's number in the capture */

/* The spool directory, read from the environment by the constructor. */
const char *island_spool_dir(void)
{
	return spool_dir;
}

/* The directory the constructor found in the environment; -1 when it
 * is too long for the paths made under it. */
int spool_set_dir(const char *dir)
{
	size_t n = strlen(dir);

	if (n >= sizeof(spool_dir) - 64)
		return -1;
	memcpy(spool_dir, dir, n + 1);
	spool_dir_len = n;
	return 0;
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

/* The arena mapped (the constructor, a fork child) and this image
 * numbered in it; -1 when there is none. */
int spool_attach(void)
{
	if (arena_attach() < 0)
		return -1;
	image_gen = (int)__atomic_fetch_add(&arena->images, 1, __ATOMIC_RELAXED);
	return 0;
}

/* A new image's number (a vfork child recording on its own), -1 when
 * there is no arena to count it in. */
int spool_new_image(void)
{
	if (!arena_base)
		return -1;
	return (int)__atomic_fetch_add(&arena->images, 1, __ATOMIC_RELAXED);
}

static void comm_self(char out[16])
{
	memset(out, 0, 16);
	SYS(SYS_prctl, PR_GET_NAME, (long)out, 0, 0);
}

/* The process's starttime (/proc/self/stat's 22nd field), once a
 * process (a pid: a fork's child has its own); 0 when not known. Told
 * by spool_pstart_is where it is known without the read. */
static pid_t pstart_of;
static uint64_t pstart_at;

void spool_pstart_is(pid_t pid, uint64_t v)
{
	__atomic_store_n(&pstart_at, v, __ATOMIC_RELAXED);
	__atomic_store_n(&pstart_of, pid, __ATOMIC_RELEASE);
}

uint64_t pstart_cached(pid_t pid)
{
	if (__atomic_load_n(&pstart_of, __ATOMIC_ACQUIRE) == pid)
		return __atomic_load_n(&pstart_at, __ATOMIC_RELAXED);
	return 0;
}

uint64_t proc_started(pid_t pid)
{
	char buf[1024], *p;
	long n;

	if (__atomic_load_n(&pstart_of, __ATOMIC_ACQUIRE) == pid)
		return __atomic_load_n(&pstart_at, __ATOMIC_RELAXED);
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
			v = udec(p);
	}
	spool_pstart_is(pid, v);
	return v;
}

uint64_t boot_ns(void)
{
	struct timespec v;

	if (clock_gettime(CLOCK_BOOTTIME, &v) != 0)
		return 0;
	return (uint64_t)v.tv_sec * 1000000000u + (uint64_t)v.tv_nsec;
}

/* The starttime the kernel gave a fork's child: CLOCK_BOOTTIME at the
 * fork in USER_HZ ticks (fs/proc/array.c, time namespaces included),
 * known when the parent's reading before the call and the child's
 * after it fall in one tick; 0 when they do not. */
uint64_t pstart_forked(uint64_t before)
{
	uint64_t after = before ? boot_ns() : 0;

	return after && before / PSTART_TICK == after / PSTART_TICK ? after / PSTART_TICK : 0;
}

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
	use_chunk(t, off, size, given);
	if (spool_calls.opened)
		spool_calls.opened(t);
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
	if (t->kpend && spool_calls.kept)	/* a system call kept aside goes first */
		spool_calls.kept(t);

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

/* A thread ends: its header stamped, its slot in the registry free
 * (a vfork child's spool has none). */
void spool_end(struct tstate *t, int how, uint64_t at)
{
	if (t->win)
		t->hdr->used = (uint64_t)(t->cur - t->win);
	hdr_finish(t->hdr, t->tid, 1, how, at);
	reg_del(t);
}

/* The process ends or execs: every registered thread's header stamped,
 * self's end at `at` if its last snapshot took it already (and the
 * profiler's last snapshot forgotten when it is off now: no_prof). */
void spool_end_all(struct tstate *self, int how, uint64_t at, int no_prof)
{
	int top = __atomic_load_n(&reg_top, __ATOMIC_ACQUIRE);

	for (int i = 0; i < top; i++) {
		struct spool_hdr *h = __atomic_load_n(&reg_hdr[i], __ATOMIC_ACQUIRE);
		if (!h)
			continue;
		if (no_prof)
			h->prof_last = 0;
		hdr_finish(h, reg_tid[i], h == self->hdr, how, h == self->hdr ? at : 0);
	}
}

/* exec failed: the registered threads go on. */
void spool_unend_all(void)
{
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

/* A fork child: its parent's threads are gone, their spools not ours. */
void spool_forget_all(void)
{
	for (int i = 0; i < reg_top; i++)
		reg_hdr[i] = NULL;
	reg_top = 0;
}

/* Each call's kind: what callinfo.c's call_kind_equal compares (the
 * same event at two levels: write and write, open and openat) */
static const char *const kind_of[C_NCALLS] = {
#define CALL(id, api, res, amount, effect) [C_##id] = #res " " #amount " " #effect,
#include "trace/calls.def"
#undef CALL
};

/* The libc record of the call that made the system call kept aside, when
 * it made only that one and they are the same event (levels.c's rule),
 * stands for both: the kernel's is not written. */
uint64_t kcalls_end(struct tstate *t, int call, int fd, int64_t ret, int err)
{
	const struct rec *k = &t->kp;
	int one = t->kcalls == 1;

	t->kcalls = 0;
	if (!t->kpend || !one || call < 0 || call >= C_NCALLS || k->fd != fd ||
	    k->ret != ret || k->err != err || !kind_of[call] || !kind_of[k->call] ||
	    strcmp(kind_of[call], kind_of[k->call]))
		return 0;		/* rec_slow writes it first */
	t->lim = t->klim;
	barrier();
	t->kpend = 0;
	return SEQ_JOINED | (k->seq & SEQ_NR_BITS);
}
