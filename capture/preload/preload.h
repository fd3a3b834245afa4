/*
 * Internals of the interposer (lib/libisland-capture.so).
 *
 * Rules, because this code runs inside other people's programs:
 *  - the hot path (a traced call) touches only thread-local state and the
 *    thread's own memory-mapped spool: no locks, no malloc, no stdio;
 *  - every real function is resolved in one place (real.c);
 *  - a per-thread guard keeps calls made while a call is being recorded
 *    (ours, or libc's own) out of the trace;
 *  - errno, return values and descriptors are the application's: the
 *    interposer keeps no descriptor open and restores errno.
 */
#ifndef ISLAND_PRELOAD_H
#define ISLAND_PRELOAD_H

#include <errno.h>
#include <spawn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "../spool.h"

/*
 * The interposer's own system calls go through island_syscall (base.c,
 * sudstub.S): made from the region Syscall User Dispatch leaves alone, they
 * are never trapped nor recorded under --syscalls. Same contract as
 * libc's syscall(): -1 and errno on failure.
 */
long island_syscall(long nr, ...);
#define syscall island_syscall
#define mmap(a, l, p, f, fd, o) ((void *)island_syscall(SYS_mmap, (long)(a), \
	(long)(l), (long)(p), (long)(f), (long)(fd), (long)(o)))
#define munmap(a, l) island_syscall(SYS_munmap, (long)(a), (long)(l))

#define EXPORT __attribute__((visibility("default")))
#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Bits of tstate.hold: reasons not to record in this thread. */
#define HOLD_OFF    1   /* thread finished, or its spool failed */
#define HOLD_VFORK  2   /* a vfork is pending: the child may run on our TLS */

/* tstate.guard: 0, 1 in our code, GUARD_INCALL in the call recorded */
#define GUARD_INCALL 2

/* calls inside calls (nest.c): the side buffer's size (a page), and the
 * bit of tstate.nside set while an inner call records there */
#define NEST_SIDE 4096
#define NEST_ON   (1u << 31)

struct tstate {
	struct tstate *self;        /* island-loader: %gs:0 */
	char *cur, *lim;            /* free space in the record window */
	int guard;                  /* inside a recorded call */
	int hold;                   /* HOLD_* */
	struct spool_hdr *hdr;
	char *win;                  /* record window: the records part of the
				       arena chunk at woff, wlen bytes */
	uint64_t woff, wlen;
	uint64_t own;               /* offset of the thread's first chunk */
	uint64_t cseq;              /* the window's chunk: its seq */
	pid_t pid, tid;
	int gen;
	int slot;                   /* index in the thread registry, -1 none */
	pid_t creator;
	uint64_t made_at;           /* spool_hdr's: the pthread_create's, or
				       the system or popen's, t0 */
	pid_t made_by;              /* spool_hdr's: that system or popen's tid */
	struct rec *vfork_rec;      /* a vfork's record, until the parent
				       resumes: its child names itself in it,
				       and counts the calls it could not
				       record (vfork_child_call) */
	/* a vfork child recording in a spool of its own on this state
	 * (vfork_child_open): its pid, its image's number, and the
	 * parent's state (VSAVED), put back when the parent runs again */
	pid_t vpid;
	int vgen;
	struct vsave {
		char *cur, *lim, *win;
		struct spool_hdr *hdr;
		uint64_t woff, wlen, own, cseq, made_at;
		pid_t pid, tid, creator, made_by;
		int gen, slot, sslot, hold;
	} vs;
#define VSAVED(X) X(cur) X(lim) X(win) X(hdr) X(woff) X(wlen) X(own) X(cseq) \
	X(made_at) X(pid) X(tid) X(creator) X(made_by) X(gen) X(slot) X(sslot) X(hold)
	int sslot;                  /* slot in the session's thread table + 1 */
	void *site;                 /* --callsites: where the wrapper returns */
	int prof_pending;           /* --profile: a snapshot waits for leave() */
	/* --profile: ticks come to this thread as a signal (prof_ticks),
	 * which a wait blocks while it waits (prof_masked): nanosleep and
	 * poll are never restarted, and returned EINTR to the program */
	char prof_ticks, prof_masked;
	/* calls inside a recorded call (nest.c): the bytes they took of
	 * the side page's records, NEST_ON while one records there; beside
	 * prof_pending, which leave() tests with it */
	uint32_t nside;
	/* --syscalls: the system calls made under a libc call since the
	 * last libc record (kcalls); the first, plain I/O, kept aside in kp
	 * (kpend) rather than written, for the libc call's record to stand
	 * for it when it is the same event (kcalls_end); else it is written
	 * before the next record (rec_slow: lim is NULL meanwhile, klim the
	 * window's) */
	int kcalls, kpend;
	char *klim;
	struct rec kp;
	/* --syscalls (sud.c) */
	volatile char sel;          /* Syscall User Dispatch selector byte */
	char sysguard;              /* a kernel-level record is being written */
	char sud_forked;            /* this fork child's spool is already open */
	char fork_sysguard;         /* --syscalls: for a clone child on a
				       stack of its own (sud.c): the parent's
				       sysguard before the call, */
	uint64_t fork_t0;           /* and the clone's start */
	uint64_t fork_boot;         /* CLOCK_BOOTTIME before a fork, for
				       the child's start (pstart_forked) */
	char unwinding;             /* --profile: libunwind works for us */
	uint64_t born;              /* --syscalls: when a new thread started,
				       before its first call (its spool opens
				       at its first record, later) */
	long zp_fault[3];           /* rax, rcx, r11 of a call to page 0 no
				     * rewrite made (sud.c) */
	int err;                    /* island-loader: errno of our own code */
	/* a session's hold before this thread's call (holds.c): the
	 * number reserved for the call, under which the waits were logged */
	uint64_t held_seq;
	int64_t sleep_at;           /* ... and when its sleep began (mono ns) */
	/* calls inside a recorded call (nest.c): the side page, mapped when
	 * first needed (not in TLS, which takes from every thread's stack),
	 * and the outer call's place, kept */
	int nest_full;              /* an inner call did not fit in side */
	char *side;
	struct nsave {
		char *cur, *lim;
		void *site;
		struct spool_hdr *hdr;
		uint32_t from;
	} ns;
};

#ifdef ISLAND_LOADER
/*
 * In island-loader (a static program run under it, loader.c), the
 * program's own libc owns %fs and its TLS: the thread state is found
 * through %gs (unused by Linux x86_64 programs), whose base each thread
 * points at its own struct tstate, and errno is the state's own.
 */
static inline struct tstate *island_self(void)
{
	struct tstate *t;
	__asm__ volatile("mov %%gs:0, %0" : "=r"(t));
	return t;
}
#define ts (*island_self())
#undef errno
#define errno (ts.err)
struct tstate *island_new_state(void);
#else
extern __thread struct tstate ts __attribute__((tls_model("initial-exec")));
#endif
extern int island_on;           /* a capture is running: ISLAND_SPOOL set */
extern int clock_kind;          /* enum spool_clock */

/* CLOCK_MONOTONIC in ns: what the session and the rate limits share with
 * other processes (the record clock may be the cycle counter). */
static inline int64_t mono_ns(void)
{
	struct timespec tv;
	clock_gettime(CLOCK_MONOTONIC, &tv);
	return (int64_t)tv.tv_sec * 1000000000 + tv.tv_nsec;
}

static inline uint64_t now(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (likely(clock_kind == CLOCK_KIND_TSC))
		return __rdtsc();
#endif
	return (uint64_t)mono_ns();
}

/* Sleep ns through signals, by the raw syscall (no interposed wrapper);
 * may change errno. */
static inline void nap_ns(int64_t ns)
{
	struct timespec d = { ns / 1000000000, ns % 1000000000 };

	while (syscall(SYS_nanosleep, &d, &d) < 0 && errno == EINTR)
		;
}

int enter_slow(struct tstate *t, int nest);
/* A descriptor on no file as /proc/PID/fd names it, by the call that
 * made it (calls.def, ANON): "memfd:NAME" a memory file's, NAME the
 * name given (NULL: not to be read), into BUF of N bytes */
static inline const char *anon_name(int call, const char *name, char *buf, size_t n)
{
	size_t k;

	switch (call) {
	case C_EVENTFD: return "anon_inode:[eventfd]";
	case C_TIMERFD_CREATE: return "anon_inode:[timerfd]";
	case C_SIGNALFD: return "anon_inode:[signalfd]";
	case C_EPOLL_CREATE: case C_EPOLL_CREATE1: return "anon_inode:[eventpoll]";
	case C_INOTIFY_INIT: case C_INOTIFY_INIT1: return "anon_inode:inotify";
	}
	k = name ? strnlen(name, n - 7) : 0;
	memcpy(buf, "memfd:", 6);
	memcpy(buf + 6, name ? name : "", k);
	buf[6 + k] = 0;
	return buf;
}

/* appmem.c: may a call that failed with ERR (0: it succeeded) have its
 * memory at P read? */
int app_mem_ok(const void *p, size_t n, int err);
int app_str_ok(const char *s, int err);
int nest_begin(struct tstate *t);
void nest_drain(struct tstate *t, int unmap);
void leave_slow(struct tstate *t);
pid_t vfork_child(struct tstate *t);
pid_t vfork_state(struct tstate *t);
int vfork_child_open(struct tstate *t, pid_t pid);
void exit_watch(void);

/* spawn_acts.c: a posix_spawn's file actions, told to its child's image */
bool spawn_acts_tell(const posix_spawn_file_actions_t *fa, char *buf, size_t len);
void spawn_acts_record(struct tstate *t, const char *v, uint64_t at);
void vfork_child_call(struct tstate *t, pid_t pid, int calls);

/* aio_ops.c: asynchronous operations, each itemised when its completion is
 * seen. ret a system call's (< 0 an errno); seqfl the flags of a
 * kernel-level record (--syscalls, sud.c), else 0 */
void aio_sys(struct tstate *t, long nr, const long *a, long ret, uint64_t t0,
	     uint64_t t1, uint64_t seqfl);
int aio_keep(struct tstate *t, int kind, uintptr_t key, uint64_t ctx, int call,
	     int fd, int64_t size, int64_t off, uint64_t t0);
int aio_complete(struct tstate *t, uintptr_t key, uint64_t ctx, uint64_t at,
		 int64_t res, uint64_t seqfl);
void aio_seen_done(struct tstate *t, uintptr_t key, uint64_t ctx);
void aio_gap(struct tstate *t, int why, int64_t n, int64_t a2, uint64_t seqfl);
/* an operation kept only for its completion to be known: no record */
#define AIO_SILENT 0xffff
/* uring.c: io_uring's rings, read at their system calls */
struct io_uring_params;
extern int nrings;              /* rings known: 0, nothing to look at */
void uring_setup(struct tstate *t, long fd, const struct io_uring_params *p,
		 uint64_t seqfl);
void uring_mmap(long fd, long off, long addr);
void uring_ptrs(long fd, char *sq, char *cq, char *sqes);
void uring_register(struct tstate *t, long fd, long op, const void *arg, long n,
		    long ret);
long uring_fd(struct tstate *t, long nr, const long *a);
void uring_thread_gone(struct tstate *t);
unsigned uring_head(long fd);
unsigned uring_head_now(long fd);
void uring_enter(struct tstate *t, long fd, unsigned head, long ret, uint64_t t0,
		 uint64_t t1, uint64_t seqfl);
void uring_munmap(struct tstate *t, long addr, long len, uint64_t seqfl);
void uring_finish(struct tstate *t);
void uring_unseen(struct tstate *t);
int uring_unknown_mapped(void);
void uring_fork_child(void);
void aio_finish(struct tstate *t);
void aio_fork_child(void);
/* wrap_aio.c: libaio's system calls made through syscall(), and
 * whether libaio's function is running under our wrapper of it */
extern __thread int aio_in_libaio;
int aio_sysno(long nr);
void aio_syscall(struct tstate *t, long nr, const long *a, long r, int e,
		 uint64_t t0, uint64_t t1);
/* The causality engine (holds.c): NULL outside a session. */
extern struct session *sess;
void sess_init(const char *path, int idx);
void sess_thread_start(struct tstate *t);
void sess_record(struct tstate *t, struct rec *r);
void sess_thread_gone(struct tstate *t);
void sess_process_gone(void);
void sess_before(struct tstate *t, int call, int64_t a1, int fd);

/* Before a call that may release another node: the throttled node holds
 * it (holds.c). Called once the wrapper has entered. */
#define SESS_BEFORE(T, CALL, A1) SESS_BEFORE_FD(T, CALL, A1, -1)
#define SESS_BEFORE_FD(T, CALL, A1, FD)                                    \
	do {                                                               \
		if (unlikely(sess != NULL))                                \
			sess_before(T, CALL, (int64_t)(A1), (int)(FD));    \
	} while (0)

/* What else a call record brings (rec_extras bits): --callsites (callsites.c)
 * a REC_SITE record after it, --profile (sampler.c) a snapshot after a
 * long call. One test on the hot path for both. */
#define EXTRA_SITES   1
#define EXTRA_PROFILE 2
extern int rec_extras;		/* base.c */
/* extras.c */
void rec_extra(struct tstate *t, int call, uint64_t t0, uint64_t t1);
void site_put(struct tstate *t);
void sites_fork_child(void);
void sites_describe_all(struct tstate *t);
int sites_known(uintptr_t a);

/* --profile (sampler.c) */
extern struct prof_ctl *prof;

void prof_init(const char *dir, size_t dirlen);
void prof_thread_start(struct tstate *t);
uint64_t prof_thread_end(struct tstate *t);
uint64_t prof_tail(struct tstate *t);
void prof_exec_stop(struct tstate *t);
void prof_fork_child(void);
void prof_exec_resume(struct tstate *t);
void prof_flush(struct tstate *t);
void prof_call(struct tstate *t, uint64_t t0, uint64_t t1);
void prof_drop_own(struct tstate *t);
long prof_unw_read(void);
void *prof_handler(void);
long prof_unw_write(const void *addr);

/* The guard, in the compiler's order too: set before the thread's
 * records are touched, cleared once they are written, as a profiling
 * tick (a signal that writes a snapshot unless guarded) sees it. A
 * free's record reserved at a place loaded before the guard was stored
 * was written over the snapshot a tick put there (the rest of the
 * chunk then unreadable: 453 of 1000 allocations lost). A compiler
 * barrier only: no instruction. */
static inline void guard_on(struct tstate *t)
{
	t->guard = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline void guard_off(struct tstate *t)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->guard = 0;
}

/* May this call be recorded? Sets the guard when it may. Always inlined
 * into the wrapper, so that the return address is the wrapper's. NEST:
 * inside another call of the thread, recorded aside (nest.c); enter_top
 * for the calls that change the thread's spool, counted there. */
static inline __attribute__((always_inline)) int enter_as(struct tstate *t, int nest)
{
	if (likely(!(t->guard | t->hold) && island_on))
		guard_on(t);
	else if (!enter_slow(t, nest))
		return 0;
	/* here too after enter_slow: the first call of a vfork parent that
	 * resumed kept the site of the call before */
	if (unlikely(rec_extras & EXTRA_SITES))
		t->site = __builtin_return_address(0);
	return 1;
}

#define enter(t)     enter_as(t, 1)
#define enter_top(t) enter_as(t, 0)

static inline void leave(struct tstate *t)
{
	if (unlikely(t->nside | (uint32_t)t->prof_pending)) {
		leave_slow(t);
		return;
	}
	guard_off(t);
}

/* Space for a record of len bytes, or NULL (then nothing is recorded). */
struct rec *rec_slow(struct tstate *t, size_t len);

/* The arena's stop (--max-size reached), or a word of 0: read with every
 * record, so that recording stops at once, not where the thread's pages
 * end (a line of the arena's header, read-mostly) */
extern volatile uint64_t *island_stop;

static inline struct rec *rec_reserve(struct tstate *t, size_t len)
{
	if (likely(t->cur + len <= t->lim) && likely(!*island_stop))
		return (struct rec *)t->cur;
	return rec_slow(t, len);
}

/* A record is complete once its len is set (the spool is zero-filled):
 * len is stored last, and x86 keeps stores in order, so a record cut by a
 * crash has len 0 and ends the chain. hdr->used is only brought up to date
 * when the window moves and at the thread's end. */
static inline void rec_commit(struct tstate *t, uint16_t *lenp, size_t len)
{
	__atomic_store_n(lenp, (uint16_t)len, __ATOMIC_RELEASE);
	t->cur += len;
}

/* Rate limits (limits.c): NULL unless the capture enforces some. */
extern struct limits_page *limits;
void limits_init(const char *dir);
void throttle(struct tstate *t, struct rec *r);

/* Everything of a record but its length, which completes it. */
static inline void rec_fill(struct rec *r, int call, uint64_t t0, uint64_t t1,
			    int64_t ret, int fd, int64_t a1, int64_t a2, int err)
{
	r->t0 = t0;
	r->t1 = t1;
	r->ret = ret;
	r->a1 = a1;
	r->a2 = a2;
	r->fd = fd;
	r->err = err;
	r->call = (uint16_t)call;
	r->obj = 0;
	r->seq = 0;
}

/* What a record committed sets off: its extras, its number in the
 * session, the rate limits' hold of its call. */
static inline void rec_seen(struct tstate *t, struct rec *r)
{
	if (unlikely(rec_extras) && r->call < C_NCALLS)
		rec_extra(t, r->call, r->t0, r->t1);
	if (unlikely(sess != NULL))
		sess_record(t, r);
	if (unlikely(limits != NULL))
		throttle(t, r);
}

/* Complete a filled record, and what it sets off. */
static inline void rec_close(struct tstate *t, struct rec *r, size_t len)
{
	rec_commit(t, &r->len, len);
	rec_seen(t, r);
}

static inline int fits32(int64_t v)
{
	return v == (int64_t)(int32_t)v;
}

/* Stores in program order for a signal handler of the same thread */
#define barrier() __asm__ __volatile__("" ::: "memory")

/* sud.c: a libc record ends its call's system calls (kcalls, only ever
 * made under --syscalls): its seq, SEQ_JOINED when it stands for the one
 * kept aside, else 0; the call kept aside written */
uint64_t kcalls_end(struct tstate *t, int call, int fd, int64_t ret, int err);
void kpend_flush(struct tstate *t);

static inline void put(struct tstate *t, int call, uint64_t t0, uint64_t t1,
		       int64_t ret, int fd, int64_t a1, int64_t a2, int err)
{
	uint64_t joined = unlikely(t->kcalls) ? kcalls_end(t, call, fd, ret, err) : 0;

	if (likely(!joined && !err && !sess && !limits && t1 - t0 <= UINT32_MAX &&
		   fits32(ret) && fits32(a1) && fits32(a2))) {
		struct srec *q = (struct srec *)rec_reserve(t, sizeof(*q));
		if (unlikely(!q))
			return;
		q->t0 = t0;
		q->dt = (uint32_t)(t1 - t0);
		q->fd = fd;
		q->ret = (int32_t)ret;
		q->a1 = (int32_t)a1;
		q->a2 = (int32_t)a2;
		q->call = (uint16_t)call;
		rec_commit(t, &q->len, sizeof(*q));
		if (unlikely(rec_extras))
			rec_extra(t, call, t0, t1);
		return;
	}
	struct rec *r = rec_reserve(t, sizeof(*r));

	if (unlikely(!r))
		return;
	rec_fill(r, call, t0, t1, ret, fd, a1, a2, err);
	r->seq = joined;
	rec_close(t, r, sizeof(*r));
}

/* A record with a payload made of up to two NUL-terminated strings, or of
 * raw bytes (s2 == NULL and n1 given). */
struct rec *put_payload(struct tstate *t, int call, uint64_t t0, uint64_t t1,
		 int64_t ret, int fd, int64_t a1, int64_t a2, int err,
		 const void *p1, size_t n1, const void *p2, size_t n2);
/* An exec's record's args=: s escaped and added to out (n so far; at
 * most ARGS_MAX bytes); false once cut (procinfo.c). */
#define ARGS_MAX 1024
bool args_add(char *out, size_t *n, const char *s, bool first);
/* a record with a payload, committed, setting off nothing (payload.c);
 * a string's bytes in it, cut to 4096 and kept terminated */
struct rec *rec_payload(struct tstate *t, int call, uint64_t t0, uint64_t t1,
			int64_t ret, int fd, int64_t a1, int64_t a2, int err, uint64_t seq,
			const void *p1, size_t n1, const void *p2, size_t n2);
size_t rec_str_size(const char *s);
struct rec *put_str(struct tstate *t, int call, uint64_t t0, uint64_t t1,
	     int64_t ret, int fd, int64_t a1, int64_t a2, int err,
	     const char *s1, const char *s2);

/*
 * The usual wrapper: call EXPR (a real function), record it with fd, a1,
 * a2; the call failed when it returned -1. Recording leaves errno as the
 * call left it (every slow path saves and restores it), so errno is read
 * only for a failed call.
 */
/* The calling thread's tid (before its spool is open, asked) */
static inline pid_t self_tid(struct tstate *t)
{
	return t->tid ? t->tid : (pid_t)syscall(SYS_gettid);
}

/* A call's start, also noted in the spool's header: island-capture,
 * streaming the trace, takes the thread's records up to there while the
 * call waits (a thread blocked in a call would hold its process's back) */
static inline uint64_t call_start(struct tstate *t)
{
	uint64_t v = now();

	if (likely(t->hdr != NULL))
		t->hdr->in_t0 = v;
	/* inside the call from here to leave(): a wrapper entered meanwhile
	 * is a signal handler's or a callback's (enter_slow counts it) */
	t->guard = GUARD_INCALL;
	return v;
}

/* ... of a wait or a sleep (spool_hdr.in_wait), and its end */
void prof_wait_begin(struct tstate *t);
void prof_wait_end(struct tstate *t);

static inline uint64_t wait_start(struct tstate *t)
{
	if (unlikely(t->prof_ticks))
		prof_wait_begin(t);
	uint64_t v = call_start(t);

	if (likely(t->hdr != NULL))
		t->hdr->in_wait = v;
	return v;
}

static inline uint64_t wait_end(struct tstate *t)
{
	if (likely(t->hdr != NULL))
		t->hdr->in_wait = 0;
	if (unlikely(t->prof_masked))
		prof_wait_end(t);
	return now();
}

static inline uint64_t call_end(struct tstate *t)
{
	(void)t;
	return now();
}

#define TRACE_CALL(CALL, T, EXPR, FD, A1, A2)                              \
	TRACE_CALL_ON(CALL, T, EXPR, FD, A1, A2, -1)
/* ... telling the causality engine the descriptor written (SFD: an
 * argument, never the result) */
#define TRACE_CALL_ON(CALL, T, EXPR, FD, A1, A2, SFD)                      \
	TRACE_CALL_BY(CALL, T, EXPR, FD, A1, A2, SFD, call_start, call_end)
/* ... of a wait or a sleep (wait_start) */
#define TRACE_WAIT(CALL, T, EXPR, FD, A1, A2)                              \
	TRACE_CALL_BY(CALL, T, EXPR, FD, A1, A2, -1, wait_start, wait_end)
#define TRACE_CALL_BY(CALL, T, EXPR, FD, A1, A2, SFD, START, END)          \
	do {                                                               \
		struct tstate *t_ = &ts;                                   \
		if (!enter(t_))                                            \
			return EXPR;                                       \
		int err_ = 0;                                              \
		SESS_BEFORE_FD(t_, CALL, A1, SFD);                         \
		uint64_t t0_ = START(t_);                                  \
		T r_ = EXPR;                                               \
		uint64_t t1_ = END(t_);                                    \
		if (unlikely(r_ == (T)-1))                                 \
			err_ = errno;                                      \
		/* A1, A2 may read memory: given err_ (appmem.c) */        \
		put(t_, CALL, t0_, t1_, (int64_t)r_, FD, A1, A2, err_);   \
		leave(t_);                                                 \
		return r_;                                                 \
	} while (0)

/* stdio read calls (wrap_stdio.c): the stream's unconsumed buffered bytes
 * (-1 unknown), and the REC_KREAD record of what the kernel read. */
struct _IO_FILE;
int64_t stream_buffered(struct _IO_FILE *f);
void put_kread(struct tstate *t, uint64_t t0, struct _IO_FILE *f,
	       int64_t before, int64_t app);

/* A call that names a path (and maybe a second one): the path is copied
 * into the record for the writer to resolve against the cwd or dirfd. */
#define PATH_CALL(CALL, T, EXPR, FD, A1, DIRFD, P1, P2)                    \
	do {                                                               \
		struct tstate *t_ = &ts;                                   \
		if (!enter(t_))                                            \
			return EXPR;                                       \
		SESS_BEFORE(t_, CALL, A1);                                 \
		uint64_t t0_ = call_start(t_);                             \
		T r_ = EXPR;                                               \
		uint64_t t1_ = now();                                      \
		int e_ = errno;                                            \
		put_str(t_, CALL, t0_, t1_, (int64_t)r_, FD, A1, DIRFD,    \
			r_ == (T)-1 ? e_ : 0, P1, P2);                     \
		leave(t_);                                                 \
		errno = e_;                                                \
		return r_;                                                 \
	} while (0)

/* The constructor (init.c). */
void island_init(void);

/* The spools (spool.c): what a thread's first chunk and a record kept
 * aside set off, filled in by the constructor */
struct spool_calls {
	void (*opened)(struct tstate *t);
	void (*kept)(struct tstate *t);
};
extern struct spool_calls spool_calls;
int spool_set_dir(const char *dir);
const char *island_spool_dir(void);
int spool_attach(void);
int spool_new_image(void);
int spool_open(struct tstate *t);
#define PSTART_TICK 10000000u   /* ns in one of /proc's USER_HZ ticks */
uint64_t proc_started(pid_t pid);
uint64_t pstart_cached(pid_t pid);
void spool_pstart_is(pid_t pid, uint64_t v);
uint64_t boot_ns(void);
uint64_t pstart_forked(uint64_t before);
void spool_end(struct tstate *t, int how, uint64_t at);
void spool_end_all(struct tstate *self, int how, uint64_t at, int no_prof);
void spool_unend_all(void);
void spool_forget_all(void);
pid_t tid_of(unsigned long pthread);
void registry_note_pthread(struct tstate *t, unsigned long pthread);

/* A process's start, end and fork (life.c). */
void thread_finish(struct tstate *t, int how, int unmap);
void process_finish(int how);
void process_unfinish(void);
void fork_child(pid_t parent_tid, uint64_t t0);

/* What a process records of itself (procinfo.c). */
long record_proc(struct tstate *t, int origin, pid_t parent_tid, uint64_t t0,
		 char *cmd, size_t cap);
void record_fds(struct tstate *t);
bool record_fd(struct tstate *t, uint64_t tt, int fd, int as);
void sockinfo_fill(struct sockinfo *si, int fd, const void *peer, size_t plen);

/* syscall(SYS_execve / SYS_execveat): an exec like the others (wrap_proc.c) */
long exec_by_syscall(long nr, const long *a);

/* The environment our children need (envpass.c), for exec and spawn. */
/* the real popen, with the capture's variables in environ (wrap_proc.c) */
struct _IO_FILE *popen_with_env(const char *cmd, const char *mode, pid_t tid, uint64_t t0);
char *const *env_fix(char *const *envp, char **buf, size_t buflen,
		     char **arr, size_t arrlen);
/* environ with our variables while in system or popen; TID and T0 name
 * the call for its shell, 0 for none */
void spawn_env_enter(pid_t tid, uint64_t t0);
void spawn_env_leave(void);
void spawn_env_forked(void);
extern char env_preload_lib[];
void env_keep(const char *dir, const char *share);
void env_hide(void);
/* A process giving up root: the capture's files opened to its new user
 * first (privdrop.c) */
void priv_init(void);
void priv_drop(long r, long e);
const char *priv_share(void);

/* Raw system calls: the interposer's own I/O never goes through libc's
 * wrappers, so it is never traced and never touches the app's errno
 * (callers save and restore it). */
long raw_syscall(long nr, long a, long b, long c, long d, long e, long f);
static inline long sys4(long nr, long a, long b, long c, long d)
{
	return syscall(nr, a, b, c, d);
}
#define SYS(nr, ...) sys4(nr, __VA_ARGS__)
/* v in decimal at p, NUL-terminated; returns the end */
char *utoa(char *p, unsigned long v);
/* a decimal number's value, to its first non-digit */
uint64_t udec(const char *s);
/* up to n bytes of a small file (/proc's), -1 when it does not open */
long read_small(const char *path, char *buf, size_t n);

/* rt_sigaction's own struct (glibc's sigaction has a bigger mask) */
struct ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};
#define KSA_RESTORER 0x04000000

/* --syscalls: every system call at the kernel boundary (sud.c). */
extern int sud_on;
void sud_init(void);
int sud_arm_thread(void);
void sud_take_over(void);
extern const char *island_exe;	/* base.c: the program island-loader runs */
void sud_note_exec(const char *path, uint64_t t0);

#endif
