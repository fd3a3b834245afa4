/* What the call handlers share: the running thread's context. */
#ifndef ISLAND_REPLAY_EXEC_H
#define ISLAND_REPLAY_EXEC_H

#include "replay.h"
#include "util.h"

#include <pthread.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif
#include <stdatomic.h>

/* A traced process: its own descriptor table (slot -> replay fd: the ops'
 * fd fields are slots, one per life of a reused number, see fdslots.c). */
struct pstate {
	pthread_mutex_t mu;
	int *map;
	uint8_t *cloexec;
	int32_t *fill;			/* bytes written to the stdio buffer of each fd */
	int32_t *avail;			/* bytes read into it and not yet taken */
	size_t cap;
	int nthreads, finished;		/* process done when equal */
	int launched;
	int64_t done_ns;		/* when its last thread ended here */
	int sigpipe;			/* the original died of SIGPIPE */
	_Atomic int gone;		/* a write found its reader gone */
	_Atomic int ended;		/* it died of SIGPIPE here too */
};

struct rthread {
	pthread_t pt;
	int launched, finished;
	int64_t delay;		/* start at this monotonic time (0: now) */
	/* for the watchdog: the call or WAIT being replayed, since when */
	_Atomic int64_t since;
	const struct op *_Atomic at;
	/* when each of its ops ended here (0: not yet), for h_wake; the
	 * first op another thread waits for (NOT_WAITED: none) */
	_Atomic int64_t *op_done;
	_Atomic uint32_t waited_at;
};
#define NOT_WAITED UINT32_MAX

struct nstate {			/* one replayed node */
	struct node_run *r;
	const struct node *n;
	struct pstate *ps;
	struct rthread *ts;
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* a thread or process finished; an op ended
				 * while wake_waiters */
	_Atomic int wake_waiters;
	pthread_cond_t wdcv;	/* the watchdog's tick, and its end */
	int over;		/* the node is done: the watchdog ends */
	int finished;
	int64_t done_ns;	/* when the last thread finished */
	struct nodestat *st;
	pthread_mutex_t stmu;
	int warned;
};

struct rctx {
	struct nstate *ns;
	int th, proc;
	char *buf;
	size_t bufcap;
	struct famstat fam[NFAM];
	uint64_t calls, skipped, failed;
	uint64_t deps;		/* WAITs that blocked, and the wake-ups' cost */
	int64_t dep_ns;
	int64_t moved;		/* bytes the current call transferred */
	int64_t unwritten;	/* bytes file writes could not put down */
	int werr;		/* the first such write's errno, and file */
	const char *wpath;
	int64_t late;		/* compute overshoot the next phase pays back */
	/* when the last call ended, while nothing else ran since: the start
	 * of the next call or compute phase (one clock read per call) */
	int64_t mark;
	int64_t waited;		/* WAIT time before the next call: the call's */
	int64_t floor;		/* the next call ends no earlier (its WAITs') */
	/* the current call's first system call began, its last one or the
	 * spin of its time ended (0: none yet): see SYS */
	int64_t issued, returned;
	int64_t paid;		/* of the time owed, what the call's spin paid */
	int solo;		/* the node's one thread: see thread_main */
};

/* fd map of the calling thread's process, by slot (an op's fd field) */
int fd_get(struct rctx *c, int tfd, const struct op *o);
void fd_put(struct rctx *c, int tfd, int rfd, int cloexec);
/* a descriptor set close-on-exec or not (fcntl F_SETFD, ioctl FIOCLEX) */
void fd_cloexec(struct rctx *c, int tfd, int cloexec);
int fd_take(struct rctx *c, int tfd);
/* stdio buffering of a trace fd: the bytes the kernel sees now when n are
 * written to the stream (whole buffers), or flushed (what it holds) */
int64_t stdio_write(struct rctx *c, int tfd, int64_t n);
int64_t stdio_flush(struct rctx *c, int tfd);
/* a stream read of n on a file: the bytes the buffer lacks (0: it holds
 * them); stdio_got then says what the read of a buffer brought */
int64_t stdio_need(struct rctx *c, int tfd, int64_t n);
void stdio_got(struct rctx *c, int tfd, int64_t got, int64_t need);
/* The replay's clock (clock.c): ns, on CLOCK_MONOTONIC's axis; the
 * cycle counter once rclock_end has calibrated it. */
extern int rclock_tsc;
extern uint64_t rclock_tsc0;
extern int64_t rclock_ns0;
extern double rclock_mult;
void rclock_begin(void);
void rclock_end(void);
static inline int64_t rnow_ns(void)
{
#if defined(__x86_64__)
	if (rclock_tsc)
		return rclock_ns0 + (int64_t)((double)(__rdtsc() - rclock_tsc0) * rclock_mult);
#endif
	return now_ns();
}

/* A call's time is its system calls', as the capture's was the time
 * around the real call: the replayer's own steps before the first and
 * after the last (a descriptor looked up, a path mapped beneath the root)
 * are paid back by the phases around it, as its other work is (run.c,
 * timing.c).
 * sqlite's 60,000 file calls of a microsecond replayed 8 % long with them
 * inside. Handlers wrap each system call of a call in it. */
#define SYS(c, call) ({							\
	struct rctx *sys_c_ = (c);					\
	if (!sys_c_->issued)						\
		sys_c_->issued = rnow_ns();				\
	__typeof__(call) sys_r_ = (call);				\
	sys_c_->returned = rnow_ns();					\
	sys_r_;								\
})

/* A filler buffer of min(n, IO_CHUNK) bytes: larger transfers go in
 * chunks (a traced 4 GB write must not allocate 4 GB). */
#define IO_CHUNK ((size_t)1 << 20)
char *xbuf(struct rctx *c, int64_t n);
/* replay descriptors (rfds.c): a duplicate that is what the original is (a
 * sink stays a sink), a number made what another is (dup3), and a close
 * that forgets what it was */
int rfd_dup(int rfd);
int rfd_replace(int rfd, int with);
int rfd_close(int rfd);
/* a number a real socket or pipe now holds: no longer a sink */
int rfd_real(int fd);
/* SOCK_STREAM, SOCK_DGRAM, or 0 for a pipe; asked once per descriptor */
int rfd_type(int fd);
/* a sink's injection end, -1 for anything else */
int rfd_inject(int fd);
/* a new sink: its peer is outside the replay */
int net_sink(struct rctx *c, const struct op *o);
/* rfd is a sink (rfds.c); a datagram socket, whose receives are not
 * waited for */
int net_is_sink(int rfd);
int net_is_dgram(int rfd);
/* puts n bytes (at most 64 kB) where a read of the sink rfd finds them
 * (netio.c) */
int net_inject(int rfd, const char *b, size_t n);

/* the traced process's state (context.c): paths beneath the root, its
 * table copied to a new process as fork does, closed at exit or exec
 * (only_cloexec), its streams flushed at exit */
int map_path(struct rctx *c, const char *path, char *buf, size_t len);
void fd_inherit(struct nstate *ns, int parent, int child);
void fd_closeall(struct pstate *p, int only_cloexec);
void stdio_flush_all(struct rctx *c);
void replay_warn(struct rctx *c, const struct op *o, const char *what);
/* A write found its reader gone: the process goes on (its writes go to
 * a sink) and, if the original died of SIGPIPE, ends of it after its
 * traced calls. */
void reader_gone(struct rctx *c);

/* time (timing.c): a compute phase of ns (share: the part spun), sleeps
 * to an absolute time, a call issued at its time (timed mode) */
void compute(struct rctx *c, int64_t ns, double share);
void sleep_until(int64_t t);
void issue_at(int64_t t);
/* In causal mode, a call issued at t0 that was answered by someone other
 * than the storage (an outside peer, the kernel's own files) lasts at
 * least as long as the original did. */
void hold_original(const struct op *o, int64_t t0);
void thread_launch(struct nstate *ns, int th, int64_t delay);

/* handlers: 0 done, -1 failed (errno set) */
#define H(x) int x(struct rctx *c, const struct op *o)
H(h_nop); H(h_spent); H(h_mpi); H(h_wake); H(h_open); H(h_close); H(h_fflush);
H(h_read); H(h_write); H(h_seek); H(h_sync);
H(h_stat); H(h_trunc); H(h_mkdir); H(h_rmdir); H(h_unlink); H(h_rename);
H(h_link); H(h_symlink);
H(h_memfd); H(h_event);
H(h_dup); H(h_ioctl); H(h_falloc); H(h_copy); H(h_sleep); H(h_poll); H(h_join); H(h_waitpid);
H(h_thread); H(h_spawn); H(h_exec);
H(h_socket); H(h_pipe); H(h_socketpair); H(h_bind); H(h_listen);
H(h_connect); H(h_accept); H(h_shutdown); H(h_send); H(h_recv);
H(h_aio_submit); H(h_aio_wait);
#undef H

#endif
