/* Pointers to the real libc functions, resolved once in real.c. */
#ifndef ISLAND_REAL_H
#define ISLAND_REAL_H

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>

/* Fortify and compatibility entry points that headers do not declare. */
int __open_2(const char *, int);
int __open64_2(const char *, int);
int __openat_2(int, const char *, int);
int __openat64_2(int, const char *, int);
ssize_t __read_chk(int, void *, size_t, size_t);
ssize_t __pread_chk(int, void *, size_t, off_t, size_t);
ssize_t __pread64_chk(int, void *, size_t, off64_t, size_t);
size_t __fread_chk(void *, size_t, size_t, size_t, FILE *);
size_t __fread_unlocked_chk(void *, size_t, size_t, size_t, FILE *);
char *__fgets_chk(char *, size_t, int, FILE *);
char *__fgets_unlocked_chk(char *, size_t, int, FILE *);
int __fprintf_chk(FILE *, int, const char *, ...);
int __vfprintf_chk(FILE *, int, const char *, va_list);
int __printf_chk(int, const char *, ...);
int __vprintf_chk(int, const char *, va_list);
ssize_t __recv_chk(int, void *, size_t, size_t, int);
ssize_t __recvfrom_chk(int, void *, size_t, size_t, int, struct sockaddr *,
		       socklen_t *);
int __poll_chk(struct pollfd *, nfds_t, int, size_t);
int __ppoll_chk(struct pollfd *, nfds_t, const struct timespec *,
		const sigset_t *, size_t);
int _IO_getc(FILE *);
int _IO_putc(int, FILE *);
int __xstat(int, const char *, struct stat *);
int __xstat64(int, const char *, struct stat64 *);
int __lxstat(int, const char *, struct stat *);
int __lxstat64(int, const char *, struct stat64 *);
int __fxstat(int, int, struct stat *);
int __fxstat64(int, int, struct stat64 *);
int __fxstatat(int, int, const char *, struct stat *, int);
int __fxstatat64(int, int, const char *, struct stat64 *, int);
int close_range(unsigned int, unsigned int, int);
ssize_t __readlink_chk(const char *, char *, size_t, size_t);
ssize_t __readlinkat_chk(int, const char *, char *, size_t, size_t);
int __isoc99_vfscanf(FILE *, const char *, va_list);

#define R(fn) extern __typeof__(fn) *real_##fn;
#define RV(fn, ver) R(fn)
#include "reals.def"
#undef R
#undef RV

void real_resolve(void);



/* Call the real function, resolving first if a wrapper runs before the
 * constructor did. */
#define REAL(fn) (*(__builtin_expect(real_##fn != NULL, 1) ? real_##fn : \
		    (real_resolve(), real_##fn)))
#endif
