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

/* In the child's image: its actions recorded at `at`, before its exec;
 * what does not parse ends them (it was told by our own parent) */
void spawn_acts_record(struct tstate *t, const char *v, uint64_t at)
{
	char path[4096];
	long fd, x;

	while (v && *v) {
		char k = *v++;

		switch (k) {
		case 'o':
			if (!(v = get_num(v, &fd)) || *v++ != ',' || !(v = get_num(v, &x)) ||
			    *v++ != ',' || !(v = get_path(v, path, sizeof(path))))
				return;
			put_str(t, C_OPEN, at, at, fd, (int)fd, x, AT_FDCWD, 0, path, NULL);
			break;
		case 'd':
			if (!(v = get_num(v, &fd)) || *v++ != ',' || !(v = get_num(v, &x)))
				return;
			put(t, C_DUP2, at, at, x, (int)x, fd, 0, 0);
			break;
		case 'c':
			if (!(v = get_num(v, &fd)))
				return;
			put(t, C_CLOSE, at, at, 0, (int)fd, 0, 0, 0);
			break;
		case 'h':
			if (!(v = get_path(v, path, sizeof(path))))
				return;
			put_str(t, C_CHDIR, at, at, 0, -1, 0, AT_FDCWD, 0, path, NULL);
			break;
		case 'f':
			if (!(v = get_num(v, &fd)))
				return;
			put(t, C_FCHDIR, at, at, 0, (int)fd, 0, 0, 0);
			break;
		case 'F':
			if (!(v = get_num(v, &fd)))
				return;
			put(t, C_CLOSE_RANGE, at, at, 0, (int)fd, (int64_t)~0u, 0, 0);
			break;
		default:
			return;
		}
		if (*v++ != ';')
			return;
	}
}
