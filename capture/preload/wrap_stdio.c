/*
 * Wrappers: stdio streams. The record carries the stream's descriptor, and
 * for string and character calls the wrapper computes the byte count
 * (stored as the return value, -1 at EOF or error).
 */
#include "preload.h"
#include "real.h"
#include "stream.h"

/* Some of these are also macros in <stdio.h>; define the functions. */
#undef fread_unlocked
#undef fwrite_unlocked
#undef fgets_unlocked
#undef fputs_unlocked
#undef getc
#undef putc
#undef getchar
#undef putchar
#undef fflush_unlocked

/*
 * What the kernel read under a stdio read call: the call consumed `app`
 * bytes, and the stream's buffer went from holding `before` unconsumed
 * bytes to `after`, so the kernel delivered app + after - before (buffer
 * refills and direct reads alike). Told only for glibc's plain read
 * state: not inside ungetc's backup area, not while the stream writes.
 */
#define IO_IN_BACKUP         0x100
#define IO_CURRENTLY_PUTTING 0x800

int64_t stream_buffered(FILE *f)
{
	if (!f || (f->_flags & (IO_IN_BACKUP | IO_CURRENTLY_PUTTING)))
		return -1;
	return f->_IO_read_end - f->_IO_read_ptr;
}

/* Before the call's own record, and only when the kernel read. */
void put_kread(struct tstate *t, uint64_t t0, FILE *f, int64_t before,
	       int64_t app)
{
	int64_t after = stream_buffered(f);

	if (before < 0 || after < 0 || app < 0 || app + after - before <= 0)
		return;
	/* a bare full record: not a call (no session number, no hold) */
	struct rec *r = rec_reserve(t, sizeof(*r));
	if (!r)
		return;
	rec_fill(r, REC_KREAD, t0, t0, app + after - before, stream_fd(f), 0, 0, 0);
	rec_commit(t, &r->len, sizeof(*r));
}

/* Record a stream call whose byte count the wrapper worked out. */
static inline void put_stream(struct tstate *t, int call, uint64_t t0,
			      int64_t ret, FILE *f, int64_t a1, int64_t a2,
			      int failed, int e)
{
	uint64_t t1 = now();
	put(t, call, t0, t1, ret, stream_fd(f), a1, a2, failed ? e : 0);
}

/* A stream that can write (glibc's _IO_NO_WRITES clear): its fclose and
 * fflush may make data visible, for the causality engine. */
static int stream_writes(FILE *f)
{
	return f && !(f->_flags & 0x0008);
}

/* fopen's mode as open's O_CREAT and O_TRUNC, for the causality engine */
static int mode_creates(const char *mode)
{
	return !mode ? 0 : mode[0] == 'w' ? O_CREAT | O_TRUNC : mode[0] == 'a' ? O_CREAT : 0;
}

#define STREAM_OPEN(CALL, EXPR, PATH, MODE, OLDFD)                         \
	do {                                                               \
		struct tstate *t_ = &ts;                                   \
		if (!enter(t_))                                            \
			return EXPR;                                       \
		SESS_BEFORE(t_, CALL, mode_creates(MODE));                 \
		uint64_t t0_ = now();                                      \
		FILE *f_ = EXPR;                                           \
		uint64_t t1_ = now();                                      \
		int e_ = errno;                                            \
		int fd_ = stream_fd(f_);                                         \
		put_str(t_, CALL, t0_, t1_, fd_, fd_, OLDFD, AT_FDCWD,     \
			f_ ? 0 : e_, (PATH) ? (PATH) : "", MODE);          \
		leave(t_);                                                 \
		errno = e_;                                                \
		return f_;                                                 \
	} while (0)

EXPORT FILE *fopen(const char *path, const char *mode)
{
	STREAM_OPEN(C_FOPEN, REAL(fopen)(path, mode), path, mode, 0);
}

EXPORT FILE *fopen64(const char *path, const char *mode)
{
	STREAM_OPEN(C_FOPEN, REAL(fopen64)(path, mode), path, mode, 0);
}

EXPORT FILE *fdopen(int fd, const char *mode)
{
	struct tstate *t = &ts;

	if (!enter(t))
		return REAL(fdopen)(fd, mode);
	uint64_t t0 = call_start(t);
	FILE *f = REAL(fdopen)(fd, mode);
	uint64_t t1 = now();
	int e = errno;
	put_str(t, C_FDOPEN, t0, t1, f ? fd : -1, fd, 0, 0, f ? 0 : e, mode, NULL);
	leave(t);
	errno = e;
	return f;
}

EXPORT FILE *freopen(const char *path, const char *mode, FILE *f)
{
	int old = stream_fd(f);
	STREAM_OPEN(C_FREOPEN, REAL(freopen)(path, mode, f), path, mode, old);
}

EXPORT FILE *freopen64(const char *path, const char *mode, FILE *f)
{
	int old = stream_fd(f);
	STREAM_OPEN(C_FREOPEN, REAL(freopen64)(path, mode, f), path, mode, old);
}

EXPORT int fclose(FILE *f)
{
	struct tstate *t = &ts;

	if (!enter_stream(t, f))
		return REAL(fclose)(f);
	int fd = stream_fd(f);
	SESS_BEFORE(t, C_FCLOSE, stream_writes(f));
	uint64_t t0 = call_start(t);
	int r = REAL(fclose)(f);
	uint64_t t1 = now();
	int e = errno;
	put(t, C_FCLOSE, t0, t1, r, fd, 0, 0, r ? e : 0);
	leave(t);
	errno = e;
	return r;
}

/* fread/fwrite: ret items, a1 bytes asked, a2 item size. */
#define ITEMS_CALL(CALL, EXPR, F, SIZE, N)                                 \
	do {                                                               \
		struct tstate *t_ = &ts;                                   \
		if (!enter_stream(t_, F))                                  \
			return EXPR;                                       \
		int64_t b_ = CALL == C_FREAD ? stream_buffered(F) : -1;    \
		uint64_t t0_ = now();                                      \
		size_t r_ = EXPR;                                          \
		int e_ = errno;                                            \
		put_kread(t_, t0_, F, b_, (int64_t)(r_ * (SIZE)));          \
		put_stream(t_, CALL, t0_, (int64_t)r_, F,                  \
			   (int64_t)((SIZE) * (N)), (int64_t)(SIZE),       \
			   r_ < (N) && ferror(F), e_);                     \
		leave(t_);                                                 \
		errno = e_;                                                \
		return r_;                                                 \
	} while (0)

EXPORT size_t fread(void *p, size_t size, size_t n, FILE *f)
{
	ITEMS_CALL(C_FREAD, REAL(fread)(p, size, n, f), f, size, n);
}

EXPORT size_t fread_unlocked(void *p, size_t size, size_t n, FILE *f)
{
	ITEMS_CALL(C_FREAD, REAL(fread_unlocked)(p, size, n, f), f, size, n);
}

EXPORT size_t __fread_chk(void *p, size_t pl, size_t size, size_t n, FILE *f)
{
	ITEMS_CALL(C_FREAD, REAL(__fread_chk)(p, pl, size, n, f), f, size, n);
}

EXPORT size_t __fread_unlocked_chk(void *p, size_t pl, size_t size, size_t n,
				   FILE *f)
{
	ITEMS_CALL(C_FREAD, REAL(__fread_unlocked_chk)(p, pl, size, n, f), f,
		   size, n);
}

EXPORT size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
	ITEMS_CALL(C_FWRITE, REAL(fwrite)(p, size, n, f), f, size, n);
}

EXPORT size_t fwrite_unlocked(const void *p, size_t size, size_t n, FILE *f)
{
	ITEMS_CALL(C_FWRITE, REAL(fwrite_unlocked)(p, size, n, f), f, size, n);
}

/* fgets: the byte count is the length of what was read. */
#define GETS_CALL(EXPR, S, N, F)                                           \
	do {                                                               \
		struct tstate *t_ = &ts;                                   \
		if (!enter_stream(t_, F))                                  \
			return EXPR;                                       \
		int64_t b_ = stream_buffered(F);                           \
		uint64_t t0_ = now();                                      \
		char *r_ = EXPR;                                           \
		int e_ = errno;                                            \
		int64_t n_ = r_ ? (int64_t)strlen(r_) : -1;                \
		put_kread(t_, t0_, F, b_, n_ < 0 ? 0 : n_);                \
		put_stream(t_, C_FGETS, t0_, n_,                           \
			   F, N, 0, !r_ && ferror(F), e_);                 \
		leave(t_);                                                 \
		errno = e_;                                                \
		return r_;                                                 \
	} while (0)

EXPORT char *fgets(char *s, int n, FILE *f)
{
	GETS_CALL(REAL(fgets)(s, n, f), s, n, f);
}

EXPORT char *fgets_unlocked(char *s, int n, FILE *f)
{
	GETS_CALL(REAL(fgets_unlocked)(s, n, f), s, n, f);
}

EXPORT char *__fgets_chk(char *s, size_t sz, int n, FILE *f)
{
	GETS_CALL(REAL(__fgets_chk)(s, sz, n, f), s, n, f);
}

EXPORT char *__fgets_unlocked_chk(char *s, size_t sz, int n, FILE *f)
{
	GETS_CALL(REAL(__fgets_unlocked_chk)(s, sz, n, f), s, n, f);
}

#define SSIZE_STREAM(CALL, EXPR, F)                                        \
	do {                                                               \
		struct tstate *t_ = &ts;                                   \
		if (!enter_stream(t_, F))                                  \
			return EXPR;                                       \
		int64_t b_ = stream_buffered(F);                           \
		uint64_t t0_ = now();                                      \
		ssize_t r_ = EXPR;                                         \
		int e_ = errno;                                            \
		put_kread(t_, t0_, F, b_, r_ < 0 ? 0 : r_);                \
		put_stream(t_, CALL, t0_, r_, F, 0, 0, r_ < 0 && ferror(F), \
			   e_);                                            \
		leave(t_);                                                 \
		errno = e_;                                                \
		return r_;                                                 \
	} while (0)

EXPORT ssize_t getline(char **line, size_t *n, FILE *f)
{
	SSIZE_STREAM(C_GETLINE, REAL(getline)(line, n, f), f);
}

EXPORT ssize_t getdelim(char **line, size_t *n, int delim, FILE *f)
{
	SSIZE_STREAM(C_GETDELIM, REAL(getdelim)(line, n, delim, f), f);
}

/* Character calls: ret is the character or EOF. */
#define CHAR_CALL(CALL, EXPR, F)                                           \
	do {                                                               \
		struct tstate *t_ = &ts;                                   \
		if (!enter_stream(t_, F))                                  \
			return EXPR;                                       \
		int64_t b_ = stream_buffered(F);                           \
		uint64_t t0_ = now();                                      \
		int r_ = EXPR;                                             \
		int e_ = errno;                                            \
		put_kread(t_, t0_, F, b_, r_ == EOF ? 0 : 1);              \
		put_stream(t_, CALL, t0_, r_, F, 1, 0,                     \
			   r_ == EOF && ferror(F), e_);                    \
		leave(t_);                                                 \
		errno = e_;                                                \
		return r_;                                                 \
	} while (0)

EXPORT int fgetc(FILE *f)
{
	CHAR_CALL(C_FGETC, REAL(fgetc)(f), f);
}

EXPORT int getc(FILE *f)
{
	CHAR_CALL(C_GETC, REAL(getc)(f), f);
}

EXPORT int _IO_getc(FILE *f)
{
	CHAR_CALL(C_GETC, REAL(_IO_getc)(f), f);
}

EXPORT int getchar(void)
{
	CHAR_CALL(C_GETC, REAL(getchar)(), stdin);
}

EXPORT int fputc(int c, FILE *f)
{
	CHAR_CALL(C_FPUTC, REAL(fputc)(c, f), f);
}

EXPORT int putc(int c, FILE *f)
{
	CHAR_CALL(C_PUTC, REAL(putc)(c, f), f);
}

EXPORT int _IO_putc(int c, FILE *f)
{
	CHAR_CALL(C_PUTC, REAL(_IO_putc)(c, f), f);
}

EXPORT int putchar(int c)
{
	CHAR_CALL(C_PUTCHAR, REAL(putchar)(c), stdout);
}

/* fputs/puts: ret is the number of bytes written, or -1. */
#define PUTS_CALL(CALL, EXPR, S, EXTRA, F)                                 \
	do {                                                               \
		struct tstate *t_ = &ts;                                   \
		if (!enter_stream(t_, F))                                  \
			return EXPR;                                       \
		uint64_t t0_ = now();                                      \
		int r_ = EXPR;                                             \
		int e_ = errno;                                            \
		int64_t n_ = (int64_t)strlen(S) + (EXTRA);                 \
		put_stream(t_, CALL, t0_, r_ == EOF ? -1 : n_, F, n_, 0,   \
			   r_ == EOF, e_);                                 \
		leave(t_);                                                 \
		errno = e_;                                                \
		return r_;                                                 \
	} while (0)

EXPORT int fputs(const char *s, FILE *f)
{
	PUTS_CALL(C_FPUTS, REAL(fputs)(s, f), s, 0, f);
}

EXPORT int fputs_unlocked(const char *s, FILE *f)
{
	PUTS_CALL(C_FPUTS, REAL(fputs_unlocked)(s, f), s, 0, f);
}

EXPORT int puts(const char *s)
{
	PUTS_CALL(C_PUTS, REAL(puts)(s), s, 1, stdout);
}

/* printf family: ret is the number of bytes written, or negative. */
#define PRINTF_CALL(CALL, EXPR, F)                                         \
	do {                                                               \
		struct tstate *t_ = &ts;                                   \
		if (!enter_stream(t_, F))                                  \
			return EXPR;                                       \
		uint64_t t0_ = now();                                      \
		int r_ = EXPR;                                             \
		int e_ = errno;                                            \
		put_stream(t_, CALL, t0_, r_ < 0 ? -1 : r_, F, 0, 0,       \
			   r_ < 0, e_);                                    \
		leave(t_);                                                 \
		errno = e_;                                                \
		return r_;                                                 \
	} while (0)

EXPORT int vfprintf(FILE *f, const char *fmt, va_list ap)
{
	PRINTF_CALL(C_VFPRINTF, REAL(vfprintf)(f, fmt, ap), f);
}

EXPORT int vprintf(const char *fmt, va_list ap)
{
	PRINTF_CALL(C_VPRINTF, REAL(vprintf)(fmt, ap), stdout);
}

EXPORT int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap)
{
	PRINTF_CALL(C_VFPRINTF, REAL(__vfprintf_chk)(f, flag, fmt, ap), f);
}

EXPORT int __vprintf_chk(int flag, const char *fmt, va_list ap)
{
	PRINTF_CALL(C_VPRINTF, REAL(__vprintf_chk)(flag, fmt, ap), stdout);
}

static int fprintf_v(int call, FILE *f, int flag, const char *fmt, va_list ap)
{
	if (flag >= 0)
		PRINTF_CALL(call, REAL(__vfprintf_chk)(f, flag, fmt, ap), f);
	PRINTF_CALL(call, REAL(vfprintf)(f, fmt, ap), f);
}

EXPORT int fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = fprintf_v(C_FPRINTF, f, -1, fmt, ap);
	va_end(ap);
	return r;
}

EXPORT int printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = fprintf_v(C_PRINTF, stdout, -1, fmt, ap);
	va_end(ap);
	return r;
}

EXPORT int __fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = fprintf_v(C_FPRINTF, f, flag, fmt, ap);
	va_end(ap);
	return r;
}

EXPORT int __printf_chk(int flag, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = fprintf_v(C_PRINTF, stdout, flag, fmt, ap);
	va_end(ap);
	return r;
}

static int flush(int (*fn)(FILE *), FILE *f)
{
	struct tstate *t = &ts;

	if (!enter_stream(t, f))
		return fn(f);
	/* its descriptor: what a flush to a character device writes
	 * reaches no node (holds.c) */
	SESS_BEFORE_FD(t, C_FFLUSH, !f || stream_writes(f), f ? stream_fd(f) : -1);
	uint64_t t0 = call_start(t);
	int r = fn(f);
	int e = errno;
	put_stream(t, C_FFLUSH, t0, r, f, 0, 0, r != 0, e);
	leave(t);
	errno = e;
	return r;
}

EXPORT int fflush(FILE *f)
{
	return flush(&REAL(fflush), f);
}

EXPORT int fflush_unlocked(FILE *f)
{
	return flush(&REAL(fflush_unlocked), f);
}

#define SEEK_CALL(EXPR, F, OFF, WH)                                        \
	do {                                                               \
		struct tstate *t_ = &ts;                                   \
		if (!enter_stream(t_, F))                                  \
			return EXPR;                                       \
		uint64_t t0_ = now();                                      \
		int r_ = EXPR;                                             \
		int e_ = errno;                                            \
		put_stream(t_, C_FSEEK, t0_, r_, F, OFF, WH, r_ != 0, e_); \
		leave(t_);                                                 \
		errno = e_;                                                \
		return r_;                                                 \
	} while (0)

EXPORT int fseek(FILE *f, long off, int whence)
{
	SEEK_CALL(REAL(fseek)(f, off, whence), f, off, whence);
}

EXPORT int fseeko(FILE *f, off_t off, int whence)
{
	SEEK_CALL(REAL(fseeko)(f, off, whence), f, off, whence);
}

EXPORT int fseeko64(FILE *f, off64_t off, int whence)
{
	SEEK_CALL(REAL(fseeko64)(f, off, whence), f, off, whence);
}
