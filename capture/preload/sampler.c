/*
 * The sampling profiler (island-capture --profile). Per thread, a snapshot:
 * the return addresses on the stack, the thread CPU and wall time since
 * its previous snapshot and the bytes allocated since. Snapshots are
 * taken
 *  - every 1/hz s of the thread's CPU time, by a per-thread task-clock
 *    perf event (perf_event_open, its overflow signalled to the thread):
 *    a thread that waits uses no CPU and gets no signal. Where the event
 *    is refused (perf_event_paranoid, seccomp, containers), a CPU-clock
 *    POSIX timer (timer_create, SIGEV_THREAD_ID) instead, which fires at
 *    most at the kernel's tick (CONFIG_HZ, 250/s say): the trace's
 *    <profile sampler> says which;
 *  - with `wall`, at the end of a recorded call longer than 1/hz: the
 *    time a thread waited is exact and has the stack it waited with;
 *  - with --sample-alloc N, after every N bytes a thread allocates;
 *  - at the thread's end, for the tail.
 * Stacks are walked by frame pointers, the walk kept when it is plausible
 * (unwind_fp), else unwound with libunwind (loaded when profiling is on);
 * ISLAND_UNWIND=fp|libunwind forces one. A signal
 * that lands while the thread records a call keeps its stack aside and
 * the wrapper writes it when it leaves: records are never interleaved.
 * Counters of malloc & co. are exact (TLS adds), never sampled.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <libunwind.h>
#include <link.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>

#include "preload.h"
#include "real.h"

struct prof_ctl *prof;
int prof_alloc;			/* count allocations */
static int64_t period_ns;
static int depth;
static uintptr_t self_lo, self_hi;	/* our own code: frames to skip */
static uintptr_t unw_lo, unw_hi;	/* libunwind's */

#define MAXDEPTH 128
/* A real-time signal, not SIGPROF: programs and runtimes that profile
 * themselves (setitimer, gperftools, Go) own SIGPROF. */
#define PROF_SIG (SIGRTMIN + 10)

/* How a thread's ticks come */
enum { TICK_NONE, TICK_TIMER, TICK_EVENT };
/* ISLAND_UNWIND */
enum { UNWIND_AUTO, UNWIND_FP, UNWIND_LIBUNWIND };
static int unwind_mode;

/* An allocation's snapshot taken inside a recorded call (pthread_create
 * allocates the new thread's TLS): its stack and counts now, written when
 * the call leaves, as a tick's is. A few per call, on a page mapped when
 * first needed (not in TLS, which takes from every thread's stack). */
#define APEND_MAX 8
struct apend {
	uint64_t at, bytes, count;
	int64_t cpu;
	uintptr_t ptr;
	int n;
	uintptr_t stack[MAXDEPTH];
};

struct prof_state {
	timer_t timer;
	void *event;			/* TICK_EVENT: the event's page */
	int tick, busy, npend, pkind;
	int tpend;			/* a tick's snapshot waits (pstack) */
	int napend;			/* allocations' snapshots wait (apend) */
	struct apend *apend;
	int exec_tick;			/* the ticks an exec stopped */
	int forked;			/* prof_thread_start: a fork child's */
	uint64_t plast;			/* the previous snapshot (clock units) */
	int64_t last_cpu;
	int64_t tick_cpu;		/* thread CPU at the last tick's entry */
	int64_t pcpu;
	uint64_t pt;
	uintptr_t pstack[MAXDEPTH];
	uintptr_t stk_lo, stk_hi;	/* the thread's stack, for frame pointers */
};
static __thread struct prof_state ps __attribute__((tls_model("initial-exec")));

/* libunwind, when it can be loaded */
static int (*u_getcontext)(unw_context_t *);
static int (*u_init_local)(unw_cursor_t *, unw_context_t *);
static int (*u_init_local2)(unw_cursor_t *, unw_context_t *, int);
static int (*u_step)(unw_cursor_t *);
static int (*u_get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);

/*
 * libunwind checks an address it is unsure of by writing a byte of it to
 * a pipe of its own (the kernel answers EFAULT for a bad one), drained by
 * 1-byte reads. Its pipe took the program's lowest free descriptors (3
 * and 4): the program's own files were numbered otherwise, and once it
 * put its own files on 3 and 4 (exec 3<in 4>out) the checks read and
 * wrote them. So while it unwinds for us (tstate.unwinding) it gets no
 * pipe (pipe, pipe2: EMFILE, nothing made), its 1-byte reads and writes
 * (read, write, syscall: 1.6.2 writes by syscall(SYS_write)) touch no
 * descriptor, whatever number it holds: the write's check is made here,
 * by process_vm_readv of our own memory. Its calls are ours, not the
 * program's: under the guard and sysguard, none is recorded.
 */
/* --syscalls: the profiler's own system calls (its clocks, timers,
 * /proc/self/maps) are the capture's, not recorded: under sysguard. */
static char own_begin(void)
{
	char o = ts.sysguard;

	ts.sysguard = 1;
	return o;
}

static void own_end(char o)
{
	ts.sysguard = o;
}

struct unw_save {
	int guard;
	char sysguard, unwinding;
};

static void unw_enter(struct unw_save *s)
{
	struct tstate *t = &ts;

	s->guard = t->guard;
	s->sysguard = t->sysguard;
	s->unwinding = t->unwinding;
	guard_on(t);
	t->sysguard = 1;
	t->unwinding = 1;
}

static void unw_leave(const struct unw_save *s)
{
	struct tstate *t = &ts;

	t->unwinding = s->unwinding;
	t->sysguard = s->sysguard;
	t->guard = s->guard;
}

/* The pipe is empty: nothing to drain. */
long prof_unw_read(void)
{
	errno = EAGAIN;
	return -1;
}

/* 1 when the byte at addr can be read, as the pipe's write would say;
 * where process_vm_readv is refused (seccomp) the address is taken as
 * bad: a shorter stack, never a fault. */
long prof_unw_write(const void *addr)
{
	char b;
	struct iovec to = { &b, 1 }, from = { (void *)addr, 1 };
	long pid = raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);

	if (raw_syscall(SYS_process_vm_readv, pid, (long)&to, 1, (long)&from, 1, 0) == 1)
		return 1;
	errno = EFAULT;
	return -1;
}

/* libunwind blocks every signal around each frame's lookup in the
 * loader's list (sigprocmask, two system calls a frame: 3.2 million for
 * 200,000 allocations' snapshots, two thirds of their time). It unwinds
 * for us in a handler or under the guard, and nothing of ours looks the
 * list up from a handler: its mask is left as it is, the old one never
 * used but to set it back. A handler of the program's that runs inside
 * the walk sets its own. */
EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	uintptr_t from = (uintptr_t)__builtin_return_address(0);

	if (unlikely(ts.unwinding) && from >= unw_lo && from < unw_hi) {
		if (old)
			sigemptyset(old);
		return 0;
	}
	return REAL(sigprocmask)(how, set, old);
}

static int64_t thread_cpu(void)
{
	struct timespec t;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t))
		return 0;
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int unwind_cursor(unw_cursor_t *c, uintptr_t *out, int max)
{
	int n = 0;
	unw_word_t ip;

	do {
		if (u_get_reg(c, UNW_REG_IP, &ip) < 0 || !ip)
			break;
		if (n || ip < self_lo || ip >= self_hi)	/* not our own frames */
			out[n++] = (uintptr_t)ip;
	} while (n < max && u_step(c) > 0);
	return n;
}

/* Frame pointers: each frame's rbp holds the caller's rbp, then the
 * return address. The walk is plausible when every address lies in a
 * module described so far, each frame lies above the last within the
 * thread's stack, and it ends at the outermost frame (a saved rbp of 0,
 * as _start and clone leave it) or at the depth limit: code built without
 * frame pointers, whose rbp holds anything, fails it. A frame of such
 * code that leaves rbp alone is not seen (its caller follows the callee
 * directly): ISLAND_UNWIND=libunwind for a program that has many. Our
 * own leading frames are left out. */
static int unwind_fp(uintptr_t ip, uintptr_t bp, uintptr_t sp, uintptr_t *out,
		     int max, int *plausible)
{
	uintptr_t lo = sp > ps.stk_lo ? sp : ps.stk_lo;
	int n = 0, ok = 1;

	*plausible = 0;
	if (ip) {
		ok = sites_known(ip);
		if (ip < self_lo || ip >= self_hi)
			out[n++] = ip;
	}
	while (n < max) {
		uintptr_t next, ret;

		if (bp < lo || bp + 16 > ps.stk_hi || (bp & 7))
			return n;
		next = ((uintptr_t *)bp)[0];
		ret = ((uintptr_t *)bp)[1];
		if (!ret || !sites_known(ret))
			return n;
		if (n || ret < self_lo || ret >= self_hi)
			out[n++] = ret;
		if (!next) {	/* the outermost frame */
			*plausible = ok;
			return n;
		}
		if (next <= bp)
			return n;
		bp = next;
	}
	*plausible = ok;
	return n;
}

/* The stack of a signal's interrupted context. */
static int stack_of_signal(ucontext_t *uc, uintptr_t *out)
{
	unw_cursor_t c;

#if defined(__x86_64__)
	if (unwind_mode != UNWIND_LIBUNWIND || !u_init_local2) {
		int ok, n = unwind_fp((uintptr_t)uc->uc_mcontext.gregs[REG_RIP],
				      (uintptr_t)uc->uc_mcontext.gregs[REG_RBP],
				      (uintptr_t)uc->uc_mcontext.gregs[REG_RSP],
				      out, depth, &ok);

		if (ok || unwind_mode == UNWIND_FP || !u_init_local2)
			return n;
	}
#endif
	int n = 0;
	struct unw_save sv;

	if (!u_init_local2)
		return 0;
	unw_enter(&sv);
	if (u_init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) == 0)
		n = unwind_cursor(&c, out, depth);
	unw_leave(&sv);
	return n;
}

/* The stack here, without our own frames (the interposer keeps frame
 * pointers: capture/build.mk). */
static int stack_here(uintptr_t *out)
{
	unw_context_t uc;
	unw_cursor_t c;

	if (unwind_mode != UNWIND_LIBUNWIND || !u_getcontext) {
		uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
		int ok, n = unwind_fp(0, fp, fp, out, depth, &ok);

		if (ok || unwind_mode == UNWIND_FP || !u_getcontext)
			return n;
	}
	int n = 0;
	struct unw_save sv;

	unw_enter(&sv);
	if (u_getcontext(&uc) == 0 && u_init_local(&c, &uc) == 0) {
		unw_word_t ip;

		/* skip the interposer's frames, keep the rest */
		do {
			if (u_get_reg(&c, UNW_REG_IP, &ip) < 0 || !ip)
				break;
			if (ip >= self_lo && ip < self_hi && !n)
				continue;
			out[n++] = (uintptr_t)ip;
		} while (n < depth && u_step(&c) > 0);
	}
	unw_leave(&sv);
	return n;
}

/* The thread's next snapshot counts from here: kept in its spool header
 * too, whence the writer takes the tail of a thread still running when
 * its process ends. */
static void prof_mark(struct tstate *t, uint64_t at, int64_t cpu)
{
	ps.plast = at;
	ps.last_cpu = cpu;
	t->hdr->prof_alloc = t->hdr->prof_allocs = 0;
	t->hdr->prof_last_cpu = cpu;
	t->hdr->prof_last = (int64_t)at;
}

/* Write a snapshot of the bytes and allocations given (the guard is
 * ours, or the record comes from leave); the counts since are the
 * caller's to reset, when it was written (1). */
static int put_sample_of(struct tstate *t, int kind, uint64_t at, int64_t cpu,
			  const uintptr_t *stack, int n, uintptr_t allocated,
			  uint64_t bytes, uint64_t count)
{
	uint64_t words[MAXDEPTH + 1];
	size_t k = 0;
	struct rec *r;

	if (kind == SAMPLE_ALLOC)
		words[k++] = allocated;
	memcpy(words + k, stack, (size_t)n * sizeof(uintptr_t));
	k += (size_t)n;
	r = rec_reserve(t, sizeof(*r) + k * 8);
	if (!r) {
		ps.plast = at;
		t->hdr->prof_last = (int64_t)at;
		return 0;
	}
	rec_fill(r, REC_SAMPLE, at, ps.plast ? ps.plast : (uint64_t)t->hdr->start,
		 (int64_t)bytes, kind, cpu - ps.last_cpu, 0, 0);
	r->seq = count;
	memcpy(REC_PAYLOAD(r), words, k * 8);
	rec_commit(t, &r->len, sizeof(*r) + k * 8);
	ps.plast = at;
	ps.last_cpu = cpu;
	t->hdr->prof_last_cpu = cpu;
	t->hdr->prof_last = (int64_t)at;
	return 1;
}

/* A snapshot of what the thread allocated since the previous one. */
static void put_sample(struct tstate *t, int kind, uint64_t at, int64_t cpu,
		       const uintptr_t *stack, int n, uintptr_t allocated)
{
	if (put_sample_of(t, kind, at, cpu, stack, n, allocated,
			  t->hdr->prof_alloc, t->hdr->prof_allocs))
		t->hdr->prof_alloc = t->hdr->prof_allocs = 0;
}

static void on_tick(int sig, siginfo_t *si, void *ucv)
{
	struct tstate *t = &ts;
	int e = errno;
	char o = own_begin();

	if (!(si->si_code == SI_TIMER && ps.tick == TICK_TIMER) &&
	    !(si->si_code == POLL_IN && ps.tick == TICK_EVENT))
		goto out;
	if (!prof || !t->hdr || ps.busy)
		goto out;
	int64_t cpu = thread_cpu(), since = cpu - ps.tick_cpu;

	/* The event counts our own time too: a stack walk longer than the
	 * period (libunwind's, checking addresses by system calls) sets
	 * off the next tick before this one is done. Such ticks queue
	 * faster than they are handled, until the signal queue is full and
	 * the kernel sends SIGIO, which killed the program (20 kHz). A tick
	 * that comes that soon after the last joins the next snapshot, whose
	 * CPU time counts it: <profile rate> says how many came. */
	ps.tick_cpu = cpu;
	if (ps.tick == TICK_EVENT && since < period_ns / 2)
		goto out;
	if (!prof->on) {	/* off: the next snapshot starts from here */
		prof_mark(t, now(), cpu);
		goto out;
	}
	ps.busy = 1;
	/* the thread is writing a record (a wrapper's, or --syscalls' own
	 * under sysguard): later, or the snapshot overwrites the record
	 * reserved (a <sample> got a system call's seq: a negative count) */
	if (t->guard || o) {
		if (!ps.tpend) {
			ps.npend = stack_of_signal(ucv, ps.pstack);
			ps.pt = now();
			ps.pcpu = cpu;
			ps.pkind = SAMPLE_TIMER;
			ps.tpend = 1;
			t->prof_pending = 1;
		}
	} else {
		/* guarded: libunwind's own calls (it checks memory through a
		 * pipe) are not the program's */
		uintptr_t st[MAXDEPTH];
		int n;

		guard_on(t);
		n = stack_of_signal(ucv, st);
		put_sample(t, SAMPLE_TIMER, now(), cpu, st, n, 0);
		guard_off(t);
	}
	ps.busy = 0;
out:
	own_end(o);
	errno = e;
}

/* sud.c: this handler returns through its own restorer, not as one of
 * the application's (its rt_sigreturn is not recorded) */
void *prof_handler(void)
{
	return (void *)on_tick;
}

/* From leave(): the snapshot a signal kept aside. */
void prof_flush(struct tstate *t)
{
	int e = errno;
	char o = own_begin();

	t->prof_pending = 0;
	guard_on(t);
	/* the allocations' first, in their order: the tick's came after
	 * the first of them or the call would have taken it (the counts
	 * of allocations after it, under the call, are in the header) */
	for (int i = 0; i < ps.napend; i++) {
		struct apend *a = &ps.apend[i];
		put_sample_of(t, SAMPLE_ALLOC, a->at, a->cpu, a->stack, a->n,
			      a->ptr, a->bytes, a->count);
	}
	ps.napend = 0;
	/* a snapshot written since (the call's own, prof_call, or an
	 * allocation's) already counts this tick's time: written now, it
	 * would take the previous mark back, and the next snapshot would
	 * count that time twice (the sleeper's 100 ms wait read 200) */
	if (ps.tpend && !(ps.plast && ps.pt <= ps.plast))
		put_sample(t, ps.pkind, ps.pt, ps.pcpu, ps.pstack, ps.npend, 0);
	ps.tpend = 0;
	guard_off(t);
	own_end(o);
	errno = e;
}

/* After a recorded call (rec_extra): a wait longer than a sample period
 * is a snapshot of its own, with the stack that waited. */
void prof_call(struct tstate *t, uint64_t t0, uint64_t t1)
{
	uintptr_t st[MAXDEPTH];
	int n;

	if (!prof || !prof->on || !(prof->values & PV_WALL) || ps.busy)
		return;
	if (clock_kind == CLOCK_KIND_MONO && (int64_t)(t1 - t0) < period_ns)
		return;
	if (clock_kind != CLOCK_KIND_MONO && (int64_t)(t1 - t0) < period_ns)
		return;		/* ticks: at least as many as ns, a cheap bound */
	char o = own_begin();

	ps.busy = 1;
	n = stack_here(st);
	put_sample(t, SAMPLE_CALL, t1, thread_cpu(), st, n, 0);
	ps.busy = 0;
	own_end(o);
}

/* --- allocations --------------------------------------------------------- */

/* The allocator the program would have used (the next one after us:
 * glibc's, or one it links, jemalloc say), found with dlsym(RTLD_NEXT).
 * dlsym itself may allocate: while it runs, a small static arena serves. */
static void *(*next_malloc)(size_t);
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);
static void (*next_free)(void *);
static int (*next_posix_memalign)(void **, size_t, size_t);
static void *(*next_aligned_alloc)(size_t, size_t);
static void *(*next_memalign)(size_t, size_t);
static __thread int resolving __attribute__((tls_model("initial-exec")));
static char boot[16384] __attribute__((aligned(16)));
static size_t boot_used;

static void *boot_alloc(size_t n)
{
	size_t at = __atomic_fetch_add(&boot_used, (n + 15) & ~(size_t)15, __ATOMIC_RELAXED);

	return at + n <= sizeof(boot) ? boot + at : NULL;
}

static int in_boot(const void *p)
{
	return (const char *)p >= boot && (const char *)p < boot + sizeof(boot);
}

static int resolve_alloc(void)
{
	if (next_free)
		return 1;
	if (resolving)
		return 0;
	resolving = 1;
	next_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	next_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	next_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	next_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
	next_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
	next_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
	__atomic_store_n(&next_free, (void (*)(void *))dlsym(RTLD_NEXT, "free"), __ATOMIC_RELEASE);
	resolving = 0;
	return next_free != NULL;
}

void prof_free(void *p);

/* Keep an allocation's snapshot for the leave of the call it is made in
 * (prof_flush); past APEND_MAX, its counts wait in the header for the
 * next snapshot, as before. */
static void alloc_later(struct tstate *t, uintptr_t p)
{
	if (!ps.apend) {
		void *m = mmap(NULL, APEND_MAX * sizeof(struct apend), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return;
		ps.apend = m;
	}
	if (ps.napend >= APEND_MAX)
		return;
	struct apend *a = &ps.apend[ps.napend];
	int e = errno;
	char o = own_begin();

	ps.busy = 1;
	a->n = stack_here(a->stack);
	a->at = now();
	a->cpu = thread_cpu();
	ps.busy = 0;
	own_end(o);
	errno = e;
	a->ptr = p;
	a->bytes = t->hdr->prof_alloc;
	a->count = t->hdr->prof_allocs;
	t->hdr->prof_alloc = t->hdr->prof_allocs = 0;
	ps.napend++;
	t->prof_pending = 1;
}

static void allocated(void *p, size_t n)
{
	struct tstate *t = &ts;

	/* what the program allocates while profiled: not what libunwind
	 * allocates for us (busy) */
	if (!p || !t->hdr || !prof->on || ps.busy)
		return;
	/* the bytes and the count together: a tick between the two wrote a
	 * snapshot with one and not the other, and reset both (one of
	 * alloc_small's 1000 allocations was lost so, its count going to a
	 * snapshot of no bytes); under the guard, a tick is taken when it
	 * ends (as in a recorded call) */
	int g = t->guard;
	guard_on(t);
	t->hdr->prof_alloc += n;
	t->hdr->prof_allocs++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (g) {
		/* inside a recorded call: its snapshot waits for the call's
		 * leave (a record may be under way), with its own stack and
		 * counts, or they went to whatever snapshot came next (main's
		 * allocation in pthread_create, charged to another function) */
		if (prof->alloc_every &&
		    t->hdr->prof_alloc >= (uint64_t)prof->alloc_every)
			alloc_later(t, (uintptr_t)p);
		t->guard = g;
		return;
	}
	/* the allocation's snapshot under the guard still: a tick between
	 * the count and it wrote a timer snapshot that took the count, and
	 * the allocation's had none (alloc_small 999 allocations of 1000,
	 * a loaded machine's ticks); a tick meanwhile is kept, and written
	 * after (prof_flush: dropped when this snapshot covers its time) */
	if (prof->alloc_every && t->hdr->prof_alloc >= (uint64_t)prof->alloc_every) {
		uintptr_t st[MAXDEPTH];
		int e = errno, k;
		char o = own_begin();

		ps.busy = 1;
		k = stack_here(st);
		put_sample(t, SAMPLE_ALLOC, now(), thread_cpu(), st, k, (uintptr_t)p);
		ps.busy = 0;
		own_end(o);
		errno = e;
	}
	guard_off(t);
	if (t->prof_pending)
		prof_flush(t);
}

EXPORT void *malloc(size_t n)
{
	void *p;

	if (unlikely(!resolve_alloc()))
		return boot_alloc(n);
	p = next_malloc(n);
	if (unlikely(prof_alloc))
		allocated(p, n);
	return p;
}

EXPORT void *calloc(size_t n, size_t size)
{
	void *p;

	if (unlikely(!resolve_alloc()))
		return boot_alloc(n * size);	/* zero: static */
	p = next_calloc(n, size);
	if (unlikely(prof_alloc))
		allocated(p, n * size);
	return p;
}

EXPORT void *realloc(void *old, size_t n)
{
	void *p;

	if (unlikely(!resolve_alloc() || in_boot(old))) {
		size_t have = old ? (size_t)(boot + sizeof(boot) - (char *)old) : 0;

		p = malloc(n);
		if (p && old)
			memcpy(p, old, n < have ? n : have);	/* a boot block's size is not kept */
		return p;
	}
	p = next_realloc(old, n);
	if (unlikely(prof_alloc)) {
		int e = errno;

		/* moved, or realloc(p, 0): old is gone (not when it failed) */
		if (old && (p || !n) && prof->alloc_every == 1)
			prof_free(old);
		if (n && p)
			allocated(p, n);
		errno = e;
	}
	return p;
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	int r;

	if (unlikely(!resolve_alloc()))
		return ENOMEM;
	r = next_posix_memalign(out, align, n);
	if (unlikely(prof_alloc) && !r)
		allocated(*out, n);
	return r;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	void *p;

	if (unlikely(!resolve_alloc()))
		return NULL;
	p = next_aligned_alloc(align, n);
	if (unlikely(prof_alloc))
		allocated(p, n);
	return p;
}

EXPORT void *memalign(size_t align, size_t n)
{
	void *p;

	if (unlikely(!resolve_alloc()))
		return NULL;
	p = next_memalign(align, n);
	if (unlikely(prof_alloc))
		allocated(p, n);
	return p;
}

/* With every allocation sampled, frees are recorded too: what is live at
 * the end, by the site that allocated it. Also while profiling is off: a
 * block allocated while on and freed while off is not live. */
void prof_free(void *p)
{
	struct tstate *t = &ts;
	struct rec *r;

	if (!p || t->guard || ps.busy || !t->hdr)
		return;
	guard_on(t);
	if ((r = rec_reserve(t, sizeof(*r)))) {
		uint64_t at = now();

		rec_fill(r, REC_FREE, at, at, 0, -1, (int64_t)(uintptr_t)p, 0, 0);
		rec_commit(t, &r->len, sizeof(*r));
	}
	guard_off(t);
}

EXPORT void free(void *p)
{
	if (unlikely(!p || in_boot(p)))
		return;
	if (unlikely(prof_alloc) && prof->alloc_every == 1) {
		int e = errno;

		prof_free(p);
		errno = e;
	}
	if (likely(resolve_alloc()))
		next_free(p);
}

/* --- life cycle ---------------------------------------------------------- */

/* Ticks by a task-clock perf event of this thread, its overflows
 * signalled to it (F_SETOWN_EX, F_SETSIG: one signal each, with no ring
 * buffer). The event lives as long as its page is mapped: the descriptor
 * is closed at once, the program never sees it, and neither a fork child
 * (the page is not copied) nor a new image keeps it. */
static int event_start(struct tstate *t)
{
	struct perf_event_attr a;
	struct f_owner_ex own = { F_OWNER_TID, t->tid };
	long fd = -1;
	void *m;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = (uint64_t)period_ns;
	a.exclude_hv = 1;
	/* the CPU spent in the kernel counts either way; without leave to
	 * look at it (perf_event_paranoid 2) ticks that fall there are lost */
	for (int k = 0; k < 2 && fd < 0; k++) {
		a.exclude_kernel = (unsigned)k;
		fd = raw_syscall(SYS_perf_event_open, (long)&a, 0, -1, -1,
				 PERF_FLAG_FD_CLOEXEC, 0);
	}
	if (fd < 0)
		return -1;
	if (raw_syscall(SYS_fcntl, fd, F_SETSIG, PROF_SIG, 0, 0, 0) < 0 ||
	    raw_syscall(SYS_fcntl, fd, F_SETOWN_EX, (long)&own, 0, 0, 0) < 0 ||
	    raw_syscall(SYS_fcntl, fd, F_SETFL, O_ASYNC, 0, 0, 0) < 0 ||
	    (m = mmap(NULL, (size_t)getpagesize(), PROT_READ, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
		return -1;
	}
	raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
	ps.event = m;
	return 0;
}

static int timer_start(struct tstate *t)
{
	struct sigevent ev;
	struct itimerspec it;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = PROF_SIG;
	ev._sigev_un._tid = t->tid;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &ps.timer))
		return -1;
	it.it_interval.tv_sec = 0;
	it.it_interval.tv_nsec = period_ns;
	it.it_value = it.it_interval;
	if (timer_settime(ps.timer, 0, &it, NULL)) {
		timer_delete(ps.timer);
		return -1;
	}
	return 0;
}

void prof_thread_start(struct tstate *t)
{
	pthread_attr_t a;
	void *base;
	size_t size;

	if (!prof)
		return;
	uintptr_t lo = ps.stk_lo, hi = ps.stk_hi;
	int forked = ps.forked;
	struct apend *apend = ps.apend;	/* a fork child's: its parent's copy */

	ps = (struct prof_state){ 0 };
	ps.apend = apend;
	char o = own_begin();
	prof_mark(t, (uint64_t)t->hdr->start, thread_cpu());
	/* a fork child's stack is its parent's; and with --syscalls it
	 * starts inside libc's fork, whose malloc locks are still held
	 * (pthread_getattr_np reads /proc/self/maps with stdio) */
	if (forked) {
		ps.stk_lo = lo;
		ps.stk_hi = hi;
	} else if (!pthread_getattr_np(pthread_self(), &a)) {
		if (!pthread_attr_getstack(&a, &base, &size)) {
			ps.stk_lo = (uintptr_t)base;
			ps.stk_hi = (uintptr_t)base + size;
		}
		pthread_attr_destroy(&a);
	}
	if ((prof->values & (PV_CPU | PV_WALL)) && prof->hz > 0) {
		if (event_start(t) == 0) {
			ps.tick = TICK_EVENT;
			__atomic_add_fetch(&prof->by_event, 1, __ATOMIC_RELAXED);
		} else if (timer_start(t) == 0) {
			ps.tick = TICK_TIMER;
			__atomic_add_fetch(&prof->by_timer, 1, __ATOMIC_RELAXED);
		}
		t->prof_ticks = ps.tick != TICK_NONE;
	}
	own_end(o);
}

/* Island's own setting up of a process or a thread (its stack's bounds
 * read with stdio, its modules, its descriptors) allocates under the
 * guard: not the program's, whose next allocation's snapshot took them
 * (churn's first malloc counted 8, 271 B each, when no tick came
 * between) */
void prof_drop_own(struct tstate *t)
{
	if (prof && t->hdr)
		t->hdr->prof_alloc = t->hdr->prof_allocs = 0;
	ps.napend = 0;
}

/* The thread's last snapshot, for its tail: at its end, or when its
 * process ends (exit, exec) while it runs. Its time, the thread's end
 * too (nothing of the thread after it is in no snapshot), or 0. */
uint64_t prof_tail(struct tstate *t)
{
	uintptr_t st[MAXDEPTH];
	uint64_t at = 0;
	int n, g = t->guard;

	if (!prof || !t->hdr)
		return 0;
	if (t->prof_pending)
		prof_flush(t);
	char o = own_begin();
	guard_on(t);
	sites_describe_all(t);	/* modules loaded since the start */
	if (prof->on && !ps.busy) {
		ps.busy = 1;
		n = stack_here(st);
		at = now();
		put_sample(t, SAMPLE_END, at, thread_cpu(), st, n, 0);
		ps.busy = 0;
	}
	t->hdr->prof_last = 0;	/* written: no tail left for the writer */
	t->guard = g;
	own_end(o);
	return at;
}

/* The thread's ticks stop: no more come once the event's page is unmapped
 * (its file is released before munmap returns) or the timer deleted. */
static int ticks_stop(struct tstate *t)
{
	int tick = ps.tick;

	t->prof_ticks = 0;
	ps.tick = TICK_NONE;	/* a tick still on its way is dropped */
	if (tick == TICK_TIMER)
		timer_delete(ps.timer);
	else if (tick == TICK_EVENT)
		munmap(ps.event, (size_t)getpagesize());
	return tick;
}

/* This thread is a fork child's, about to start again. */
void prof_fork_child(void)
{
	ps.forked = 1;
}

uint64_t prof_thread_end(struct tstate *t)
{
	if (!prof || !t->hdr)
		return 0;
	ticks_stop(t);
	return prof_tail(t);
}

/* An exec: the new image has no handler until its constructor runs, and a
 * real-time signal pending across exec kills it (SIG_DFL). So this
 * thread's ticks stop and those already queued are dropped: making the
 * signal ignored discards them, and the handler is put back at once. */
void prof_exec_stop(struct tstate *t)
{
	struct ksigaction ign = { SIG_IGN, 0, NULL, 0 }, old;

	if (!prof || !t->hdr || ps.tick == TICK_NONE)
		return;
	ps.exec_tick = ticks_stop(t);
	if (raw_syscall(SYS_rt_sigaction, PROF_SIG, (long)&ign, (long)&old, 8, 0, 0) == 0)
		raw_syscall(SYS_rt_sigaction, PROF_SIG, (long)&old, 0, 8, 0, 0);
}

/* The exec failed: the ticks start again as they came before. */
void prof_exec_resume(struct tstate *t)
{
	int tick = ps.exec_tick;

	ps.exec_tick = TICK_NONE;
	if (tick == TICK_EVENT && event_start(t) == 0)
		ps.tick = TICK_EVENT;
	else if (tick != TICK_NONE && timer_start(t) == 0)
		ps.tick = TICK_TIMER;
	t->prof_ticks = ps.tick != TICK_NONE;
}

/* A wait blocks the ticks' signal while it waits, and lets it go after
 * (a tick that came meanwhile is handled then): a handled signal ends a
 * nanosleep, poll or epoll_wait with EINTR whatever SA_RESTART says, and
 * the program's sleeper slept one of its three sleeps 62 us. Not when
 * the program blocks it itself. */
void prof_wait_begin(struct tstate *t)
{
	uint64_t set = 1ULL << (PROF_SIG - 1), old = 0;

	if (raw_syscall(SYS_rt_sigprocmask, SIG_BLOCK, (long)&set, (long)&old, 8, 0, 0) == 0)
		t->prof_masked = !(old & set);
}

void prof_wait_end(struct tstate *t)
{
	uint64_t set = 1ULL << (PROF_SIG - 1);

	t->prof_masked = 0;
	raw_syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&set, 0, 8, 0, 0);
}

/* The code segment an address lies in: ours, libunwind's */
struct code_of { uintptr_t at, lo, hi; };

static int find_code(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct code_of *c = arg;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && c->at >= a &&
		    c->at < a + ph->p_memsz) {
			c->lo = a;
			c->hi = a + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

/* At the image's start: map the control page, load libunwind, install
 * the tick handler. */
void prof_init(const char *dir, size_t dirlen)
{
	char path[600];
	struct sigaction sa;
	long fd;
	void *h, *m;
	const char *u;

	if (dirlen + sizeof(PROFILE_FILE) + 2 > sizeof(path))
		return;
	memcpy(path, dir, dirlen);
	path[dirlen] = '/';
	memcpy(path + dirlen + 1, PROFILE_FILE, sizeof(PROFILE_FILE));
	fd = raw_syscall(SYS_openat, AT_FDCWD, (long)path, O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0, 0, 0);
	if (fd < 0)
		return;
	m = mmap(NULL, sizeof(struct prof_ctl), PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
	if (m == MAP_FAILED || ((struct prof_ctl *)m)->magic != PROF_MAGIC)
		return;
	prof = m;
	depth = prof->depth > 0 && prof->depth <= MAXDEPTH ? prof->depth : MAXDEPTH;
	period_ns = prof->hz > 0 ? 1000000000LL / prof->hz : 0;
	if (period_ns >= 1000000000LL)
		period_ns = 999999999;
	struct code_of me = { (uintptr_t)&prof_init, 0, 0 };

	dl_iterate_phdr(find_code, &me);
	self_lo = me.lo;
	self_hi = me.hi;
	if ((u = getenv("ISLAND_UNWIND"))) {	/* island-capture checked it */
		if (!strcmp(u, "fp"))
			unwind_mode = UNWIND_FP;
		else if (!strcmp(u, "libunwind"))
			unwind_mode = UNWIND_LIBUNWIND;
	}
	if ((h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL))) {
		u_getcontext = (int (*)(unw_context_t *))dlsym(h, "_Ux86_64_getcontext");
		u_init_local = (int (*)(unw_cursor_t *, unw_context_t *))dlsym(h, "_ULx86_64_init_local");
		u_init_local2 = (int (*)(unw_cursor_t *, unw_context_t *, int))dlsym(h, "_ULx86_64_init_local2");
		u_step = (int (*)(unw_cursor_t *))dlsym(h, "_ULx86_64_step");
		u_get_reg = (int (*)(unw_cursor_t *, unw_regnum_t, unw_word_t *))dlsym(h, "_ULx86_64_get_reg");
		if (!u_getcontext || !u_init_local || !u_init_local2 || !u_step || !u_get_reg)
			u_getcontext = NULL, u_init_local = NULL, u_init_local2 = NULL;
		/* a cache per thread: the global one is taken under a lock
		 * with every signal blocked (two system calls a frame), and
		 * a tick inside a walk waited for it. Setting it starts
		 * libunwind, which opens its pipe then: as for us (unw_enter),
		 * or the program's lowest free numbers were taken. */
		int (*policy)(unw_addr_space_t, unw_caching_policy_t) =
			(int (*)(unw_addr_space_t, unw_caching_policy_t))dlsym(h, "_ULx86_64_set_caching_policy");
		unw_addr_space_t *local = (unw_addr_space_t *)dlsym(h, "_ULx86_64_local_addr_space");
		if (policy && local) {
			struct unw_save sv;

			unw_enter(&sv);
			policy(*local, UNW_CACHE_PER_THREAD);
			unw_leave(&sv);
		}
		struct code_of uw = { (uintptr_t)u_step, 0, 0 };
		if (u_step)
			dl_iterate_phdr(find_code, &uw);
		unw_lo = uw.lo;
		unw_hi = uw.hi;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_tick;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(PROF_SIG, &sa, NULL);
	prof_alloc = (prof->values & PV_ALLOC) != 0;
	rec_extras |= EXTRA_PROFILE;
}

/* include/island.h: island_profile(1) / island_profile(0). */
EXPORT void island_profile_switch(int on)
{
	if (prof && prof->on != !!on) {
		prof->on = !!on;
		__atomic_add_fetch(&prof->switches, 1, __ATOMIC_RELAXED);
	}
}
