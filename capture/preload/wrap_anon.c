/*
 * Wrappers: descriptors on no file (calls.def, effect ANON): event
 * counters, timers, signal queues, epoll sets, inotify instances and
 * memory files, each named as /proc/PID/fd names it, so that the calls
 * on them say what they are (a timer's read is a wait, not a file read).
 */
#include "preload.h"
#include "real.h"

/* The new descriptor r (or the call's failure) named NAME; A1 an
 * argument of the call's (its flags) */
#define ANON_CALL(CALL, EXPR, NAME, A1)                                     \
	do {                                                               \
		struct tstate *t_ = &ts;                                   \
		if (!enter(t_))                                            \
			return EXPR;                                       \
		uint64_t t0_ = call_start(t_);                             \
		int r_ = EXPR;                                             \
		uint64_t t1_ = now();                                      \
		int e_ = errno;                                            \
		put_str(t_, CALL, t0_, t1_, r_, r_, (A1), 0, r_ < 0 ? e_ : 0, \
			NAME, NULL);                                       \
		leave(t_);                                                 \
		errno = e_;                                                \
		return r_;                                                 \
	} while (0)

EXPORT int eventfd(unsigned int initval, int flags)
{
	ANON_CALL(C_EVENTFD, REAL(eventfd)(initval, flags), "anon_inode:[eventfd]", flags);
}

EXPORT int timerfd_create(int clockid, int flags)
{
	ANON_CALL(C_TIMERFD_CREATE, REAL(timerfd_create)(clockid, flags),
		  "anon_inode:[timerfd]", flags);
}

/* FD -1 makes a queue; else it changes FD's mask, and FD is returned */
EXPORT int signalfd(int fd, const sigset_t *mask, int flags)
{
	ANON_CALL(C_SIGNALFD, REAL(signalfd)(fd, mask, flags), "anon_inode:[signalfd]", flags);
}

EXPORT int epoll_create(int size)
{
	ANON_CALL(C_EPOLL_CREATE, REAL(epoll_create)(size), "anon_inode:[eventpoll]", 0);
}

EXPORT int epoll_create1(int flags)
{
	ANON_CALL(C_EPOLL_CREATE1, REAL(epoll_create1)(flags), "anon_inode:[eventpoll]", flags);
}

EXPORT int inotify_init(void)
{
	ANON_CALL(C_INOTIFY_INIT, REAL(inotify_init)(), "anon_inode:inotify", 0);
}

EXPORT int inotify_init1(int flags)
{
	ANON_CALL(C_INOTIFY_INIT1, REAL(inotify_init1)(flags), "anon_inode:inotify", flags);
}

/* "memfd:NAME", as the kernel has it (without its " (deleted)"): NAME
 * read once the call took it (a failed call's may point nowhere) */
static const char *memfd_name(char *buf, size_t n, const char *name, int ok)
{
	size_t k = ok && name ? strnlen(name, n - 7) : 0;

	memcpy(buf, "memfd:", 6);
	memcpy(buf + 6, name ? name : "", k);
	buf[6 + k] = 0;
	return buf;
}

EXPORT int memfd_create(const char *name, unsigned int flags)
{
	char buf[256];

	ANON_CALL(C_MEMFD_CREATE, REAL(memfd_create)(name, flags),
		  memfd_name(buf, sizeof(buf), name, r_ >= 0), (int64_t)flags);
}
