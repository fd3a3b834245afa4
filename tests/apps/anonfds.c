/* anonfds: descriptors on no file. An event counter (a write of 1, a
 * read of it), a timer of 50 ms (a read waits it out), a memory file
 * "buf" (4096 bytes written, 100 read back at 0), an epoll set (a wait
 * of 0 ms), an inotify instance and a signal queue, each closed. Prints
 * "ok". */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

int main(void)
{
	struct itimerspec its = { { 0, 0 }, { 0, 50000000 } };
	struct epoll_event ev;
	static char b[4096];
	uint64_t v = 1;
	sigset_t m;
	int e, t, f, p, in, s;

	if ((e = eventfd(0, 0)) < 0 || write(e, &v, 8) != 8 || read(e, &v, 8) != 8 || close(e))
		return 1;
	if ((t = timerfd_create(CLOCK_MONOTONIC, 0)) < 0 || timerfd_settime(t, 0, &its, NULL) ||
	    read(t, &v, 8) != 8 || close(t))
		return 1;
	if ((f = memfd_create("buf", 0)) < 0 || write(f, b, sizeof(b)) != sizeof(b) ||
	    pread(f, b, 100, 0) != 100 || close(f))
		return 1;
	if ((p = epoll_create1(0)) < 0 || epoll_wait(p, &ev, 1, 0) != 0 || close(p))
		return 1;
	if ((in = inotify_init1(0)) < 0 || close(in))
		return 1;
	sigemptyset(&m);
	sigaddset(&m, SIGUSR2);
	if ((s = signalfd(-1, &m, 0)) < 0 || close(s))
		return 1;
	printf("ok\n");
	return 0;
}
