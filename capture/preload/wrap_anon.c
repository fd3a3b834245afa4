/*
 * Wrappers: descriptors on no file (calls.def, effect ANON): event
 * counters, timers, signal queues, epoll sets, inotify instances and
 * memory files, each named as /proc/PID/fd names it, so that the calls
 * on them say what they are (a timer's read is a wait, not a file read).
 */
#include "preload.h"
#include "real.h"

#define RET r_     /* the call's return value, inside PATH_CALL */

/* the new descriptor recorded as an open of the name it has */
#define ANON_CALL(CALL, EXPR, A1, NAME)                                     \
	PATH_CALL(CALL, int, EXPR, RET, A1, 0, anon_name(CALL, NAME, buf, sizeof(buf)), NULL)

EXPORT int eventfd(unsigned int initval, int flags)
{
	char buf[8];

	ANON_CALL(C_EVENTFD, REAL(eventfd)(initval, flags), flags, NULL);
}

EXPORT int timerfd_create(int clockid, int flags)
{
	char buf[8];

	ANON_CALL(C_TIMERFD_CREATE, REAL(timerfd_create)(clockid, flags), flags, NULL);
}

/* FD -1 makes a queue; else it changes FD's mask, and FD is returned */
EXPORT int signalfd(int fd, const sigset_t *mask, int flags)
{
	char buf[8];

	ANON_CALL(C_SIGNALFD, REAL(signalfd)(fd, mask, flags), flags, NULL);
}

EXPORT int epoll_create(int size)
{
	char buf[8];

	ANON_CALL(C_EPOLL_CREATE, REAL(epoll_create)(size), 0, NULL);
}

EXPORT int epoll_create1(int flags)
{
	char buf[8];

	ANON_CALL(C_EPOLL_CREATE1, REAL(epoll_create1)(flags), flags, NULL);
}

EXPORT int inotify_init(void)
{
	char buf[8];

	ANON_CALL(C_INOTIFY_INIT, REAL(inotify_init)(), 0, NULL);
}

EXPORT int inotify_init1(int flags)
{
	char buf[8];

	ANON_CALL(C_INOTIFY_INIT1, REAL(inotify_init1)(flags), flags, NULL);
}

/* its name read once the call took it (a failed call's may point
 * nowhere) */
EXPORT int memfd_create(const char *name, unsigned int flags)
{
	char buf[256];

	ANON_CALL(C_MEMFD_CREATE, REAL(memfd_create)(name, flags), (int64_t)flags,
		  r_ >= 0 ? name : NULL);
}
