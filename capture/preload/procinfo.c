/*
 * What a process records of itself when it starts: who it is and where
 * it runs, the descriptors it was given, a socket's facts, an exec's
 * arguments.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "preload.h"

/* Socket facts for the writer: inode, domain, type, local and peer
 * addresses (peer given by the caller when it has it). */
void sockinfo_fill(struct sockinfo *si, int fd, const void *peer, size_t plen)
{
	struct stat st;
	socklen_t l;
	int v;

	memset(si, 0, sizeof(*si));
	if (SYS(SYS_fstat, fd, (long)&st, 0, 0) == 0)
		si->ino = st.st_ino;
	l = sizeof(v);
	if (syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_DOMAIN, &v, &l) == 0)
		si->domain = v;
	l = sizeof(v);
	if (syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_TYPE, &v, &l) == 0)
		si->type = v;
	l = sizeof(si->local);
	if (syscall(SYS_getsockname, fd, &si->local, &l) == 0)
		si->llen = l;
	if (peer && plen) {
		if (plen > sizeof(si->peer))
			plen = sizeof(si->peer);
		memcpy(&si->peer, peer, plen);
		si->plen = (uint32_t)plen;
	} else {
		l = sizeof(si->peer);
		if (syscall(SYS_getpeername, fd, &si->peer, &l) == 0)
			si->plen = l;
	}
}

/* Descriptor fd's file, socket or pipe, recorded as descriptor `as`'s;
 * false when fd is not open */
bool record_fd(struct tstate *t, uint64_t tt, int fd, int as)
{
	char path[64], target[4096];

	memcpy(path, "/proc/self/fd/", 14);
	utoa(path + 14, (unsigned long)fd);
	long l = SYS(SYS_readlinkat, AT_FDCWD, (long)path, (long)target, sizeof(target) - 1);
	if (l < 0)
		return false;
	target[l] = 0;
	if (!strncmp(target, "socket:", 7)) {
		struct sockinfo si;
		sockinfo_fill(&si, fd, NULL, 0);
		put_payload(t, REC_FDINFO, tt, tt, 0, as, FDK_SOCKET, 0, 0, &si, sizeof(si),
			    NULL, 0);
	} else if (!strncmp(target, "pipe:", 5)) {
		uint64_t ino = udec(target + 6);
		put_payload(t, REC_FDINFO, tt, tt, 0, as, FDK_PIPE, 0, 0, &ino, sizeof(ino),
			    NULL, 0);
	} else {
		put_str(t, REC_FDINFO, tt, tt, 0, as, target[0] == '/' ? FDK_FILE : FDK_OTHER,
			0, 0, target, NULL);
	}
	return true;
}

/* Record the descriptors the image starts with, so that calls on inherited
 * fds resolve to their file, socket or pipe. */
void record_fds(struct tstate *t)
{
	char dbuf[4096];
	long dfd, n;
	uint64_t tt = now();

	dfd = SYS(SYS_openat, AT_FDCWD, (long)"/proc/self/fd",
		  O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (dfd < 0)
		return;
	while ((n = SYS(SYS_getdents64, dfd, (long)dbuf, sizeof(dbuf), 0)) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(dbuf + off);
			off += d->d_reclen;
			if (d->d_name[0] < '0' || d->d_name[0] > '9')
				continue;
			int fd = (int)udec(d->d_name);
			if (fd != dfd)
				record_fd(t, tt, fd, fd);
		}
	}
	SYS(SYS_close, dfd, 0, 0, 0);
}

/* The first record of a process image: who it is and where it runs;
 * its command line also in cmd (its first cap bytes, for an exec's
 * record), whose length it returns (0 when cmd is NULL). */
long record_proc(struct tstate *t, int origin, pid_t parent_tid, uint64_t t0,
		 char *cmd, size_t cap)
{
	static char buf[16384];      /* one image starts at a time, but
					vfork children of two threads */
	static int busy;
	char exe[4096], cwd[4096];
	long n, l;
	size_t el, cl;

	while (__atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE))
		SYS(SYS_sched_yield, 0, 0, 0, 0);

	l = SYS(SYS_readlinkat, AT_FDCWD, (long)"/proc/self/exe", (long)exe,
		sizeof(exe) - 1);
	exe[l > 0 ? l : 0] = 0;
	if (island_exe)
		strncpy(exe, island_exe, sizeof(exe) - 1);
	if (SYS(SYS_getcwd, (long)cwd, sizeof(cwd), 0, 0) < 0)
		cwd[0] = 0;
	el = strlen(exe) + 1;
	cl = strlen(cwd) + 1;
	memcpy(buf, exe, el);
	memcpy(buf + el, cwd, cl);
	n = read_small("/proc/self/cmdline", buf + el + cl,
		       sizeof(buf) - el - cl - 1);
	if (n < 0)
		n = 0;
	put_payload(t, REC_PROC, t0, now(), parent_tid, -1,
		    SYS(SYS_getppid, 0, 0, 0, 0), origin, 0, buf,
		    el + cl + (size_t)n, NULL, 0);
	long got = !cmd ? 0 : (size_t)n < cap ? n : (long)cap;
	if (got)
		memcpy(cmd, buf + el + cl, (size_t)got);
	__atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
	return got;
}

/* An exec's arguments as its record's args= (docs/trace-format.md): each
 * byte outside '!'..'~', and '\', as \xHH, the arguments separated by
 * one space, at most ARGS_MAX bytes in all; a cut ends in " \..." (which
 * no escaped argument holds). s added to out (n bytes so far, kept
 * terminated); false once cut. */
bool args_add(char *out, size_t *n, const char *s, bool first)
{
	static const char hex[] = "0123456789abcdef";
	size_t k = *n;

	/* after every step k + 6 <= ARGS_MAX: room for the cut's mark */
	if (!first && k + 1 + 6 > ARGS_MAX) {
		memcpy(out + k, " \\...", 6);
		*n = k + 5;
		return false;
	}
	if (!first)
		out[k++] = ' ';
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		bool plain = *c > ' ' && *c < 0x7f && *c != '\\';

		if (k + (plain ? 1 : 4) + 6 > ARGS_MAX) {
			memcpy(out + k, " \\...", 6);
			*n = k + 5;
			return false;
		}
		if (plain) {
			out[k++] = (char)*c;
			continue;
		}
		out[k++] = '\\';
		out[k++] = 'x';
		out[k++] = hex[*c >> 4];
		out[k++] = hex[*c & 15];
	}
	out[k] = 0;
	*n = k;
	return true;
}
