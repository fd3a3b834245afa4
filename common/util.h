/* Small helpers shared by the Island tools (never by the interposer, which
 * must not touch malloc or stdio on its hot path). */
#ifndef ISLAND_UTIL_H
#define ISLAND_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

extern const char *progname;

/* Print "PROG: message" (plus ": strerror(errno)" when the format ends in
 * ':') and exit with status. */
void die(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
void warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "FILE:LINE: message" — the one-line form for bad input. */
void die_at(int status, const char *file, long line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), noreturn));
void warn_at(const char *file, long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* CLOCK_MONOTONIC, and CLOCK_REALTIME, in ns; sleep ns (none when <= 0),
 * whatever signals come. */
int64_t now_ns(void);
int64_t real_ns(void);
void sleep_ns(int64_t ns);

/* Grow an array to hold at least `need` elements of `size` bytes. */
#define XGROW(arr, cap, need)                                            \
	do {                                                             \
		if ((size_t)(need) > (cap)) {                            \
			size_t nc__ = (cap) ? (cap) * 2 : 16;            \
			while (nc__ < (size_t)(need))                    \
				nc__ *= 2;                               \
			(arr) = xrealloc((arr), nc__ * sizeof(*(arr)));  \
			(cap) = nc__;                                    \
		}                                                        \
	} while (0)

/* Seconds with nine decimals from nanoseconds, into buf (>= 32 bytes). */
char *fmt_sec(char *buf, int64_t ns);
/* Parse "S[.fffffffff]" into nanoseconds; 0 on success. */
int parse_sec(const char *s, int64_t *ns);

/* Remove path and everything under it without following a symlink, leaving
 * the tree or crossing into another file system; 0 (also when path does not
 * exist), or -1 with errno of the first failure (the rest is still tried). */
int rm_tree(const char *path);
/* Create path for writing, refusing an existing file or symlink there
 * (O_EXCL|O_NOFOLLOW): the safe way to make a file in a shared directory. */
int create_excl(const char *path, int mode);
/* A process that exists (ours or another user's). */
int pid_alive(long pid);

/* Symbolic names. */
const char *errno_name(int err);
int errno_from_name(const char *name);
const char *signal_name(int sig);

#endif
