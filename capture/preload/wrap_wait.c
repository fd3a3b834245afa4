/* Wrappers: calls that wait (for descriptors, time, threads, children). */
#include "preload.h"
#include "real.h"

#define RET r_

static int64_t ts_ns(const struct timespec *t)
{
	return t ? (int64_t)t->tv_sec * 1000000000 + t->tv_nsec : -1;
}

/* ts_ns after a call that failed with ERR: -1 where T may point nowhere */
static int64_t ts_after(const struct timespec *t, int err)
{
	return err && !app_mem_ok(t, sizeof(*t), err) ? -1 : ts_ns(t);
}

static int64_t tv_ns(const struct timeval *t)
{
	return t ? (int64_t)t->tv_sec * 1000000000 + (int64_t)t->tv_usec * 1000 : -1;
}

static int64_t ms_ns(int ms)
{
	return ms < 0 ? -1 : (int64_t)ms * 1000000;
}

/* Time left until an absolute deadline on clock clk. */
static int64_t until(clockid_t clk, const struct timespec *abs)
{
	struct timespec n;

	if (!abs || clock_gettime(clk, &n))
		return -1;
	int64_t d = ts_ns(abs) - ts_ns(&n);
	return d < 0 ? 0 : d;
}

/* Calls that return an error number instead of setting errno. */
#define ERRNUM_CALL(CALL, EXPR, FD, A1, A2)                                \
	do {                                                               \
		struct tstate *t_ = &ts;                                   \
		if (!enter(t_))                                            \
			return EXPR;                                       \
		SESS_BEFORE(t_, CALL, 0);                                  \
		int64_t a1_ = (A1);                                        \
		uint64_t t0_ = wait_start(t_);                             \
		int r_ = EXPR;                                             \
		uint64_t t1_ = wait_end(t_);                               \
		int e_ = errno;                                            \
		put(t_, CALL, t0_, t1_, r_, FD, a1_, A2,                   \
		    r_ > 0 && r_ != PTHREAD_BARRIER_SERIAL_THREAD ? r_ : 0); \
		leave(t_);                                                 \
		errno = e_;                                                \
		return r_;                                                 \
	} while (0)

EXPORT int poll(struct pollfd *fds, nfds_t n, int tmo)
{
	TRACE_CALL(C_POLL, int, REAL(poll)(fds, n, tmo), -1, ms_ns(tmo), (int64_t)n);
}

EXPORT int __poll_chk(struct pollfd *fds, nfds_t n, int tmo, size_t fl)
{
	TRACE_CALL(C_POLL, int, REAL(__poll_chk)(fds, n, tmo, fl), -1, ms_ns(tmo),
		   (int64_t)n);
}

EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo,
		 const sigset_t *mask)
{
	TRACE_CALL(C_PPOLL, int, REAL(ppoll)(fds, n, tmo, mask), -1,
		   ts_after(tmo, err_), (int64_t)n);
}

EXPORT int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *tmo,
		       const sigset_t *mask, size_t fl)
{
	TRACE_CALL(C_PPOLL, int, REAL(__ppoll_chk)(fds, n, tmo, mask, fl), -1,
		   ts_after(tmo, err_), (int64_t)n);
}

EXPORT int select(int n, fd_set *r, fd_set *w, fd_set *x, struct timeval *tmo)
{
	int64_t req = tv_ns(tmo);
	TRACE_CALL(C_SELECT, int, REAL(select)(n, r, w, x, tmo), -1, req, n);
}

EXPORT int pselect(int n, fd_set *r, fd_set *w, fd_set *x,
		   const struct timespec *tmo, const sigset_t *mask)
{
	TRACE_CALL(C_PSELECT, int, REAL(pselect)(n, r, w, x, tmo, mask), -1,
		   ts_after(tmo, err_), n);
}

EXPORT int epoll_wait(int ep, struct epoll_event *ev, int max, int tmo)
{
	TRACE_CALL(C_EPOLL_WAIT, int, REAL(epoll_wait)(ep, ev, max, tmo), ep,
		   ms_ns(tmo), max);
}

EXPORT int epoll_pwait(int ep, struct epoll_event *ev, int max, int tmo,
		       const sigset_t *mask)
{
	TRACE_CALL(C_EPOLL_PWAIT, int, REAL(epoll_pwait)(ep, ev, max, tmo, mask),
		   ep, ms_ns(tmo), max);
}

EXPORT unsigned int sleep(unsigned int s)
{
	struct tstate *t = &ts;

	if (!enter(t))
		return REAL(sleep)(s);
	SESS_BEFORE(t, C_SLEEP, 0);
	uint64_t t0 = wait_start(t);
	unsigned int r = REAL(sleep)(s);
	uint64_t t1 = wait_end(t);
	int e = errno;
	put(t, C_SLEEP, t0, t1, r, -1, (int64_t)s * 1000000000, 0, 0);
	leave(t);
	errno = e;
	return r;
}

EXPORT int usleep(useconds_t us)
{
	TRACE_WAIT(C_USLEEP, int, REAL(usleep)(us), -1, (int64_t)us * 1000, 0);
}

EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	TRACE_WAIT(C_NANOSLEEP, int, REAL(nanosleep)(req, rem), -1, ts_after(req, err_), 0);
}

/* the kernel reads req: the time asked for is read after the call, and
 * an absolute one taken against the clock read before it */
EXPORT int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
			   struct timespec *rem)
{
	struct tstate *t = &ts;
	struct timespec n = { 0, 0 };

	if (!enter(t))
		return REAL(clock_nanosleep)(clk, flags, req, rem);
	SESS_BEFORE(t, C_CLOCK_NANOSLEEP, 0);
	int abs = flags & TIMER_ABSTIME;
	if (abs && clock_gettime(clk, &n))
		abs = -1;
	uint64_t t0 = wait_start(t);
	int r = REAL(clock_nanosleep)(clk, flags, req, rem);
	uint64_t t1 = wait_end(t);
	int e = errno;
	int64_t a1 = abs < 0 ? -1 : ts_after(req, r);

	if (abs > 0 && a1 >= 0 && (a1 -= ts_ns(&n)) < 0)
		a1 = 0;
	put(t, C_CLOCK_NANOSLEEP, t0, t1, r, -1, a1, 0, r > 0 ? r : 0);
	leave(t);
	errno = e;
	return r;
}

EXPORT int pthread_join(pthread_t th, void **ret)
{
	ERRNUM_CALL(C_PTHREAD_JOIN, REAL(pthread_join)(th, ret), -1,
		    tid_of((unsigned long)th), 0);
}

EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	ERRNUM_CALL(C_COND_WAIT, REAL(pthread_cond_wait)(c, m), -1, -1, 0);
}

EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				  const struct timespec *abs)
{
	ERRNUM_CALL(C_COND_TIMEDWAIT, REAL(pthread_cond_timedwait)(c, m, abs), -1,
		    until(CLOCK_REALTIME, abs), 0);
}

EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
	ERRNUM_CALL(C_BARRIER_WAIT, REAL(pthread_barrier_wait)(b), -1, -1, 0);
}

EXPORT int sem_wait(sem_t *s)
{
	TRACE_WAIT(C_SEM_WAIT, int, REAL(sem_wait)(s), -1, -1, 0);
}

EXPORT int sem_timedwait(sem_t *s, const struct timespec *abs)
{
	int64_t req = until(CLOCK_REALTIME, abs);
	TRACE_WAIT(C_SEM_TIMEDWAIT, int, REAL(sem_timedwait)(s, abs), -1, req, 0);
}

/* Only a lock that had to wait is worth a record: try first. */
EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	struct tstate *t = &ts;

	if (!enter(t))
		return REAL(pthread_mutex_lock)(m);
	int e = errno;
	int r = REAL(pthread_mutex_trylock)(m);
	if (r != EBUSY) {
		leave(t);
		errno = e;
		return r;
	}
	uint64_t t0 = wait_start(t);
	r = REAL(pthread_mutex_lock)(m);
	uint64_t t1 = wait_end(t);
	e = errno;
	put(t, C_MUTEX_LOCK, t0, t1, r, -1, -1, 0, r);
	leave(t);
	errno = e;
	return r;
}

/* waitpid family: a1 holds the status word of the reaped child. */
#define WAIT_CALL(CALL, EXPR, STATUS)                                      \
	do {                                                               \
		struct tstate *t_ = &ts;                                   \
		int st_ = 0;                                               \
		int *sp_ = (STATUS) ? (STATUS) : &st_;                     \
		if (!enter(t_))                                            \
			return EXPR;                                       \
		SESS_BEFORE(t_, CALL, 0);                                  \
		uint64_t t0_ = wait_start(t_);                             \
		pid_t r_ = EXPR;                                           \
		uint64_t t1_ = wait_end(t_);                               \
		int e_ = errno;                                            \
		put(t_, CALL, t0_, t1_, r_, -1, r_ > 0 ? *sp_ : 0, 0,      \
		    r_ < 0 ? e_ : 0);                                      \
		leave(t_);                                                 \
		errno = e_;                                                \
		return r_;                                                 \
	} while (0)

EXPORT pid_t waitpid(pid_t pid, int *status, int opts)
{
	WAIT_CALL(C_WAITPID, REAL(waitpid)(pid, sp_, opts), status);
}

EXPORT pid_t wait4(pid_t pid, int *status, int opts, struct rusage *ru)
{
	WAIT_CALL(C_WAIT4, REAL(wait4)(pid, sp_, opts, ru), status);
}

EXPORT pid_t wait(int *status)
{
	WAIT_CALL(C_WAITCALL, REAL(wait)(sp_), status);
}

EXPORT pid_t wait3(int *status, int opts, struct rusage *ru)
{
	WAIT_CALL(C_WAIT3, REAL(wait3)(sp_, opts, ru), status);
}

/* waitid reports through a siginfo: keep the status as a wait status. */
EXPORT int waitid(idtype_t idt, id_t id, siginfo_t *info, int opts)
{
	struct tstate *t = &ts;

	if (!enter(t))
		return REAL(waitid)(idt, id, info, opts);
	SESS_BEFORE(t, C_WAITID, 0);
	uint64_t t0 = wait_start(t);
	int r = REAL(waitid)(idt, id, info, opts);
	uint64_t t1 = wait_end(t);
	int e = errno;
	int64_t st = 0;
	pid_t child = 0;
	if (r == 0 && info && info->si_pid) {
		child = info->si_pid;
		st = info->si_code == CLD_EXITED ? (info->si_status & 0xff) << 8
						 : info->si_status & 0x7f;
	}
	put(t, C_WAITID, t0, t1, r == 0 ? child : r, -1, st, 0, r < 0 ? e : 0);
	leave(t);
	errno = e;
	return r;
}
