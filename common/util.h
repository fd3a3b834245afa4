/* Small helpers shared by the Island tools (never by the interposer, which
 * must not touch malloc or stdio on its hot path). */
#ifndef ISLAND_UTIL_H
#define ISLAND_UTIL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>

extern const char *progname;
/* Called by die() and die_at() before they exit, when set: the fuzzing
 * harnesses (tests/fuzz/) go back to the next input instead. */
extern void (*die_hook)(int status);
/* Called by die() and die_at() in this thread, after the message and
 * before die_hook or exit: the trace reader stops and joins its parsing
 * thread there (trace/read.c). */
extern _Thread_local void (*die_cleanup)(void);
/* Called by die() and die_at() in this thread before die_hook: how
 * trace_read_try() returns from bad input, whichever thread reads. */
extern _Thread_local void (*die_hook_here)(int status);
/* When set, die()'s and die_at()'s message goes here (its first,
 * NUL-terminated, at most die_msg_len bytes) instead of to stderr: the
 * trace library's loader hands it to its caller (trace/bulkload.c). */
extern _Thread_local char *die_msg;
extern _Thread_local size_t die_msg_len;

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
/* The tools' one answer to a bad option: "PROG: unknown option '--x' (try
 * --help)", or that it needs an argument, and exit 2. For getopt_long run
 * with opterr = 0 and an optstring starting with ':' (after any '+'); c is
 * what it returned. */
void bad_option(char **argv, int c) __attribute__((noreturn));
/* The same, naming the long option of lopts (getopt_long's table, ended
 * by a NULL name) nearest a mistyped one: "did you mean --limit?". */
struct option;
void bad_option_hint(char **argv, int c, const struct option *lopts) __attribute__((noreturn));
/* A size or rate: a number, optionally with k, M, G or T (binary
 * multiples; KiB, MB alike); 0, or -1 when it is none (common/size.c). */
int parse_size(const char *s, double *v);
/* The word of cands (n of them, NULL ones skipped) nearest word, within a
 * few edits, or NULL (common/suggest.c). */
const char *suggest(const char *word, const char *const *cands, size_t n);

/* fflush and fclose f; -1 with errno when any write to f failed, now or
 * earlier (a buffered write fails only when flushed). */
int fclose_checked(FILE *f);
/* At exit, flush and close stdout; on failure print "PROG: NAME: write
 * error: ERRNO" and exit 1 (> /dev/full must not look like success).
 * Call first in main. */
void check_stdout_at_exit(void);
/* The same check now (before a fork, say: the errno of a failed flush is
 * lost by the next one); exits 1 on failure. */
void flush_stdout(void);

/* write all n bytes (again after a short write or EINTR); 0, or -1 with
 * errno (ENOSPC when the device took nothing and said nothing). */
int write_full(int fd, const void *buf, size_t n);
/* the same at offset at (pwrite) */
int pwrite_full(int fd, const void *buf, size_t n, off_t at);

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
/* The kernel's clocksource is the cycle counter (invariant, synchronised
 * across CPUs: it trusts it), so callers may count time with it. */
int clock_tsc_usable(void);
void sleep_ns(int64_t ns);

/* The capacity an array of `size`-byte elements grows to from cap to hold
 * need (doubling); 0 when need elements of size bytes cannot be had. */
size_t grow_cap(size_t cap, size_t need, size_t size);

/* Grow an array to hold at least `need` elements (exit 70 when that many
 * bytes cannot exist: never a wrapped, too small allocation). */
#define XGROW(arr, cap, need)                                            \
	do {                                                             \
		if ((size_t)(need) > (size_t)(cap)) {                    \
			size_t nc__ = grow_cap((cap), (need), sizeof(*(arr))); \
			if (!nc__)                                       \
				die(70, "out of memory: %zu elements of %zu bytes", \
				    (size_t)(need), sizeof(*(arr)));     \
			(arr) = xrealloc((arr), nc__ * sizeof(*(arr)));  \
			(cap) = nc__;                                    \
		}                                                        \
	} while (0)

/* A map of 64-bit keys to indexes (>= 0), open addressing: what finds
 * a process, thread or chunk by its number without a walk of them all.
 * imap_get: the index, or -1; imap_put replaces a key's. Zeroed: empty. */
struct imap {
	uint64_t *key;
	int *val;                    /* index + 1; 0: a free slot */
	size_t cap, n;
};
int imap_get(const struct imap *m, uint64_t key);
void imap_put(struct imap *m, uint64_t key, int val);
void imap_free(struct imap *m);
/* Lists of indexes by a 64-bit key, each in the order added: a key's
 * first (chain_first), then next[i] after i, -1 at the end. Zeroed:
 * empty. */
struct chains {
	struct imap head, tail;
	int *next;
	size_t cap;
};
void chain_add(struct chains *c, uint64_t key, int v);
int chain_first(const struct chains *c, uint64_t key);
void chains_free(struct chains *c);

/* Seconds with nine decimals from nanoseconds, into buf (>= 32 bytes). */
char *fmt_sec(char *buf, int64_t ns);
/* Parse "[-]S[.fffffffff]" into nanoseconds (digits past the ninth
 * decimal are dropped); 0 on success, -1 when not such a number, -2 when
 * beyond int64 nanoseconds. */
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

/* A thread that takes no signal (the caller's threads keep them): FN(ARG)
 * in *TH; pthread_create's result. */
int thread_quiet(pthread_t *th, void *(*fn)(void *), void *arg);

#endif
