/*
 * Wrappers: stdio scanning, stream positions, popen/pclose. The record's
 * fd is the stream's descriptor, as in wrap_stdio.c.
 */
#include "preload.h"
#include "real.h"
#include "stream.h"

/*
 * fscanf family: ret the items converted (EOF -1), a2 the bytes the call
 * consumed from the stream, from its position before and after (-1 when
 * the stream has none: a pipe or terminal).
 */
static int scan(int call, FILE *f, int iso, const char *fmt, va_list ap)
{
	struct tstate *t = &ts;
	int (*fn)(FILE *, const char *, va_list) =
		iso && real___isoc99_vfscanf ? REAL(__isoc99_vfscanf) : REAL(vfscanf);

	if (!enter_stream(t, f))
		return fn(f, fmt, ap);
	int e = errno;
	off64_t p0 = f ? REAL(ftello64)(f) : -1;
	int64_t b = stream_buffered(f);
	errno = e;
	uint64_t t0 = call_start(t);
	int r = fn(f, fmt, ap);
	uint64_t t1 = now();
	e = errno;
	off64_t p1 = p0 >= 0 ? REAL(ftello64)(f) : -1;
	if (p0 >= 0 && p1 >= p0)
		put_kread(t, t0, f, b, p1 - p0);
	put(t, call, t0, t1, r, stream_fd(f), 0, p0 >= 0 && p1 >= p0 ? p1 - p0 : -1,
	    r == EOF && ferror(f) ? e : 0);
	leave(t);
	errno = e;
	return r;
}

/* <stdio.h> may rename fscanf to __isoc99_fscanf: each entry point is
 * defined under its exact symbol name. */
#define SCAN_ENTRY(NAME, SYM, CALL, F, ISO)                                \
	EXPORT int NAME(FILE *f, const char *fmt, ...) __asm__(SYM);       \
	int NAME(FILE *f, const char *fmt, ...)                            \
	{                                                                  \
		va_list ap;                                                \
		va_start(ap, fmt);                                         \
		int r = scan(CALL, F, ISO, fmt, ap);                       \
		va_end(ap);                                                \
		return r;                                                  \
	}
#define VSCAN_ENTRY(NAME, SYM, ISO)                                        \
	EXPORT int NAME(FILE *f, const char *fmt, va_list ap) __asm__(SYM); \
	int NAME(FILE *f, const char *fmt, va_list ap)                     \
	{                                                                  \
		return scan(C_VFSCANF, f, ISO, fmt, ap);                   \
	}

SCAN_ENTRY(island_fscanf, "fscanf", C_FSCANF, f, 0)
SCAN_ENTRY(island_isoc99_fscanf, "__isoc99_fscanf", C_FSCANF, f, 1)
VSCAN_ENTRY(island_vfscanf, "vfscanf", 0)
VSCAN_ENTRY(island_isoc99_vfscanf, "__isoc99_vfscanf", 1)

/* scanf reads stdin: the first parameter is unused. */
static int scan_stdin(int iso, const char *fmt, va_list ap)
{
	return scan(C_SCANF, stdin, iso, fmt, ap);
}

EXPORT int island_scanf(const char *fmt, ...) __asm__("scanf");
int island_scanf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = scan_stdin(0, fmt, ap);
	va_end(ap);
	return r;
}

EXPORT int island_isoc99_scanf(const char *fmt, ...) __asm__("__isoc99_scanf");
int island_isoc99_scanf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = scan_stdin(1, fmt, ap);
	va_end(ap);
	return r;
}

/* Positions: ret the offset told (ftell) or the result; a1 the offset
 * asked for, where there is one. */
#define POS_CALL(CALL, T, EXPR, F, A1)                                     \
	do {                                                               \
		struct tstate *t_ = &ts;                                   \
		if (!enter_stream(t_, F))                                  \
			return EXPR;                                       \
		uint64_t t0_ = now();                                      \
		T r_ = EXPR;                                               \
		uint64_t t1_ = now();                                      \
		int e_ = errno;                                            \
		put(t_, CALL, t0_, t1_, (int64_t)r_, stream_fd(F), A1, 0,        \
		    r_ == (T)-1 ? e_ : 0);                                 \
		leave(t_);                                                 \
		errno = e_;                                                \
		return r_;                                                 \
	} while (0)

EXPORT long ftell(FILE *f)
{
	POS_CALL(C_FTELL, long, REAL(ftell)(f), f, 0);
}

EXPORT off_t ftello(FILE *f)
{
	POS_CALL(C_FTELLO, off_t, REAL(ftello)(f), f, 0);
}

EXPORT off64_t ftello64(FILE *f)
{
	POS_CALL(C_FTELLO, off64_t, REAL(ftello64)(f), f, 0);
}

EXPORT int fgetpos(FILE *f, fpos_t *pos)
{
	POS_CALL(C_FGETPOS, int, REAL(fgetpos)(f, pos), f, 0);
}

EXPORT int fgetpos64(FILE *f, fpos64_t *pos)
{
	POS_CALL(C_FGETPOS, int, REAL(fgetpos64)(f, pos), f, 0);
}

EXPORT int fsetpos(FILE *f, const fpos_t *pos)
{
	POS_CALL(C_FSETPOS, int, REAL(fsetpos)(f, pos), f,
		 pos ? (int64_t)pos->__pos : 0);
}

EXPORT int fsetpos64(FILE *f, const fpos64_t *pos)
{
	POS_CALL(C_FSETPOS, int, REAL(fsetpos64)(f, pos), f,
		 pos ? (int64_t)pos->__pos : 0);
}

EXPORT void rewind(FILE *f)
{
	struct tstate *t = &ts;

	if (!enter_stream(t, f)) {
		REAL(rewind)(f);
		return;
	}
	uint64_t t0 = call_start(t);
	REAL(rewind)(f);
	uint64_t t1 = now();
	int e = errno;
	put(t, C_REWIND, t0, t1, 0, stream_fd(f), 0, 0, 0);
	leave(t);
	errno = e;
}

/*
 * popen: a stream on a new pipe to a shell (which the capture sees as a
 * process of its own); payload the pipe's inode, then the command; a1
 * the mode's first letter. pclose waits for the shell: ret its status.
 */
EXPORT FILE *popen(const char *cmd, const char *mode)
{
	struct tstate *t = &ts;

	if (!enter_top(t))
		return popen_with_env(cmd, mode, 0, 0);
	uint64_t t0 = call_start(t);
	FILE *f = popen_with_env(cmd, mode, self_tid(t), t0);
	uint64_t t1 = now();
	int e = errno;
	int fd = stream_fd(f);
	struct stat st;
	uint64_t ino = fd >= 0 && raw_syscall(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) == 0 ?
		       st.st_ino : 0;
	put_payload(t, C_POPEN, t0, t1, fd, fd, mode ? mode[0] : 0, 0, f ? 0 : e,
		    &ino, sizeof(ino), cmd ? cmd : "", cmd ? strlen(cmd) + 1 : 1);
	leave(t);
	errno = e;
	return f;
}

EXPORT int pclose(FILE *f)
{
	struct tstate *t = &ts;

	if (!enter_top(t))
		return REAL(pclose)(f);
	int fd = stream_fd(f);
	uint64_t t0 = call_start(t);
	int r = REAL(pclose)(f);
	uint64_t t1 = now();
	int e = errno;
	put(t, C_PCLOSE, t0, t1, r, fd, r, 0, r == -1 ? e : 0);
	leave(t);
	errno = e;
	return r;
}
