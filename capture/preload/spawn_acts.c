/*
 * A posix_spawn's file actions (open, dup2, close, chdir, fchdir,
 * closefrom), which libc runs in the child between its clone and its
 * exec, where no wrapper sees them: the parent reads them from the
 * call's posix_spawn_file_actions_t and tells the child's image
 * (ENV_SPAWN_ACTS), which records them before its exec, at the time the
 * exec is recorded (told_image: when the image started).
 *
 * The actions are glibc's private struct __spawn_action (spawn_int.h:
 * close, dup2 and open from the first, chdir and fchdir since 2.29,
 * closefrom since 2.34, each added at the end). The parent checks that
 * layout once, on actions of its own; where it does not hold, or an
 * action has no record here (tcsetpgrp), it tells nothing and the child
 * says its actions are missing, as a posix_spawn child did before.
 *
 * Told as ACTION;ACTION;... where an ACTION is oFD,FLAGS,LEN:PATH, or
 * dFD,NEWFD, cFD, hLEN:PATH (chdir), fFD (fchdir), FFROM (closefrom).
 */
#include <fcntl.h>
#include <spawn.h>
#include <string.h>

#include "preload.h"

#ifndef ISLAND_LOADER
struct act {
	int tag;
	union {
		struct { int fd; } close;
		struct { int fd, newfd; } dup2;
		struct { int fd; char *path; int oflag; mode_t mode; } open;
		struct { char *path; } chdir;
		struct { int fd; } fchdir;
		struct { int from; } closefrom;
	} a;
};

enum { A_CLOSE, A_DUP2, A_OPEN, A_CHDIR, A_FCHDIR, A_CLOSEFROM };

/* glibc's actions as struct act: tried once on a probe of our own */
static int layout_ok(void)
{
	static int ok = -1;
	int r = __atomic_load_n(&ok, __ATOMIC_RELAXED);
	posix_spawn_file_actions_t fa;

	if (r >= 0)
		return r;
	r = 0;
	if (posix_spawn_file_actions_init(&fa) == 0) {
		const struct act *a = NULL;

		r = !posix_spawn_file_actions_addopen(&fa, 7, "/island", O_RDONLY | O_APPEND, 0640) &&
		    !posix_spawn_file_actions_adddup2(&fa, 7, 5) &&
		    !posix_spawn_file_actions_addclose(&fa, 6) &&
		    fa.__used == 3 && (a = (const struct act *)fa.__actions) != NULL &&
		    a[0].tag == A_OPEN && a[0].a.open.fd == 7 && a[0].a.open.path &&
		    !strcmp(a[0].a.open.path, "/island") &&
		    a[0].a.open.oflag == (O_RDONLY | O_APPEND) && a[0].a.open.mode == 0640 &&
		    a[1].tag == A_DUP2 && a[1].a.dup2.fd == 7 && a[1].a.dup2.newfd == 5 &&
		    a[2].tag == A_CLOSE && a[2].a.close.fd == 6;
		posix_spawn_file_actions_destroy(&fa);
	}
	__atomic_store_n(&ok, r, __ATOMIC_RELAXED);
	return r;
}

static char *put_num(char *p, char *end, char c, long v)
{
	if (!p || end - p < 24)
		return NULL;
	*p++ = c;
	if (v < 0) {
		*p++ = '-';
		v = -v;
	}
	return utoa(p, (unsigned long)v);
}

static char *put_path(char *p, char *end, char c, const char *path)
{
	size_t n = path ? strlen(path) : 0;

	if (!(p = put_num(p, end, c, (long)n)) || (size_t)(end - p) < n + 2)
		return NULL;
	*p++ = ':';
	memcpy(p, path, n);
	return p + n;
}

/* NAME=ACTIONS into buf: true when every action of fa is told */
bool spawn_acts_tell(const posix_spawn_file_actions_t *fa, char *buf, size_t len)
{
	size_t nl = strlen(ENV_SPAWN_ACTS);
	char *p = buf, *end = buf + len - 1;

	if (!fa || fa->__used <= 0 || !fa->__actions || len < nl + 2 || !layout_ok())
		return false;
	memcpy(p, ENV_SPAWN_ACTS "=", nl + 1);
	p += nl + 1;
	for (int i = 0; i < fa->__used; i++) {
		const struct act *a = (const struct act *)fa->__actions + i;

		switch (a->tag) {
		case A_OPEN:
			p = put_num(p, end, 'o', a->a.open.fd);
			p = put_num(p, end, ',', a->a.open.oflag);
			p = put_path(p, end, ',', a->a.open.path);
			break;
		case A_DUP2:
			p = put_num(p, end, 'd', a->a.dup2.fd);
			p = put_num(p, end, ',', a->a.dup2.newfd);
			break;
		case A_CLOSE:
			p = put_num(p, end, 'c', a->a.close.fd);
			break;
		case A_CHDIR:
			p = put_path(p, end, 'h', a->a.chdir.path);
			break;
		case A_FCHDIR:
			p = put_num(p, end, 'f', a->a.fchdir.fd);
			break;
		case A_CLOSEFROM:
			p = put_num(p, end, 'F', a->a.closefrom.from);
			break;
		default:
			return false;
		}
		if (!p || p >= end)
			return false;
		*p++ = ';';
	}
	*p = 0;
	return true;
}
#endif

static const char *get_num(const char *p, long *v)
{
	int neg = *p == '-';
	long n = 0;

	p += neg;
	if (*p < '0' || *p > '9')
		return NULL;
	while (*p >= '0' && *p <= '9')
		n = n * 10 + (*p++ - '0');
	*v = neg ? -n : n;
	return p;
}

/* a path told LEN:PATH into buf (NUL-ended) */
static const char *get_path(const char *p, char *buf, size_t len)
{
	long n;

	if (!(p = get_num(p, &n)) || *p != ':' || n < 0 || (size_t)n >= len ||
	    strnlen(p + 1, (size_t)n) != (size_t)n)
		return NULL;
	memcpy(buf, p + 1, (size_t)n);
	buf[n] = 0;
	return p + 1 + n;
}

#define MAX_PRE 64

/* the descriptors action i changes: [lo, hi] */
static void changes(const long (*a)[3], int i, long *lo, long *hi)
{
	*lo = 1;
	*hi = 0;
	switch (a[i][0]) {
	case 'o': case 'c': *lo = *hi = a[i][1]; break;
	case 'd': *lo = *hi = a[i][2]; break;
	case 'F': *lo = a[i][1]; *hi = 1L << 30; break;
	}
}

static bool changed(const long (*a)[3], int from, int to, long fd)
{
	for (int i = from; i < to; i++) {
		long lo, hi;
		changes(a, i, &lo, &hi);
		if (fd >= lo && fd <= hi)
			return true;
	}
	return false;
}

/* the descriptor action i uses as it is (dup2's, close's, fchdir's): -1 none */
static long used(const long (*a)[3], int i)
{
	return a[i][0] == 'd' || a[i][0] == 'c' || a[i][0] == 'f' ? a[i][1] : -1;
}

/* What the actions found on the descriptors they inherited (the parent's,
 * before the exec this image started at): a descriptor the actions use
 * before any changed it is recorded as what holds its file, socket or
 * pipe now: itself if none changed it and it is open, else the target of
 * a dup2 of it that none changed after (a pipe's end dup2'd onto 1, then
 * closed, or closed by the exec). */
static void record_inherited(struct tstate *t, const long (*a)[3], int n, uint64_t at)
{
	for (int i = 0; i < n; i++) {
		long fd = used(a, i);
		if (fd < 0 || changed(a, 0, i, fd))
			continue;
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = used(a, j) == fd;
		if (seen)
			continue;	/* recorded at its first use */
		if (!changed(a, i, n, fd) && record_fd(t, at, (int)fd, (int)fd))
			continue;
		for (int k = i; k < n && !changed(a, i, k, fd); k++)
			if (a[k][0] == 'd' && a[k][1] == fd && !changed(a, k + 1, n, a[k][2]) &&
			    record_fd(t, at, (int)a[k][2], (int)fd))
				break;
	}
}

/* One action told (KIND, FD or -1, dup2's NEWFD or open's FLAGS; a path
 * into path): past its ';', or NULL where it does not parse */
static const char *next_act(const char *v, long act[3], char *path, size_t plen)
{
	act[0] = *v++;
	act[1] = act[2] = -1;
	switch (act[0]) {
	case 'o':
		if (!(v = get_num(v, &act[1])) || *v++ != ',' || !(v = get_num(v, &act[2])) ||
		    *v++ != ',' || !(v = get_path(v, path, plen)))
			return NULL;
		break;
	case 'd':
		if (!(v = get_num(v, &act[1])) || *v++ != ',' || !(v = get_num(v, &act[2])))
			return NULL;
		break;
	case 'c': case 'f': case 'F':
		if (!(v = get_num(v, &act[1])))
			return NULL;
		break;
	case 'h':
		if (!(v = get_path(v, path, plen)))
			return NULL;
		break;
	default:
		return NULL;
	}
	return *v == ';' ? v + 1 : NULL;
}

/* In the child's image: its actions recorded at `at`, before its exec,
 * after what they found inherited (when all of them were told right);
 * what does not parse ends them (it was told by our own parent) */
void spawn_acts_record(struct tstate *t, const char *v, uint64_t at)
{
	char path[4096];
	long a[MAX_PRE][3], c[3];
	const char *q = v;
	int n = 0;

	while (q && *q && n < MAX_PRE && (q = next_act(q, a[n], path, sizeof(path))))
		n++;
	if (q && !*q)
		record_inherited(t, (const long (*)[3])a, n, at);
	while (v && *v && (v = next_act(v, c, path, sizeof(path)))) {
		switch (c[0]) {
		case 'o':
			put_str(t, C_OPEN, at, at, c[1], (int)c[1], c[2], AT_FDCWD, 0, path, NULL);
			break;
		case 'd':
			put(t, C_DUP2, at, at, c[2], (int)c[2], c[1], 0, 0);
			break;
		case 'c':
			put(t, C_CLOSE, at, at, 0, (int)c[1], 0, 0, 0);
			break;
		case 'h':
			put_str(t, C_CHDIR, at, at, 0, -1, 0, AT_FDCWD, 0, path, NULL);
			break;
		case 'f':
			put(t, C_FCHDIR, at, at, 0, (int)c[1], 0, 0, 0);
			break;
		case 'F':
			put(t, C_CLOSE_RANGE, at, at, 0, (int)c[1], (int64_t)~0u, 0, 0);
			break;
		}
	}
}
