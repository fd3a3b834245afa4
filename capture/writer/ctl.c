/* The commands of fcntl, ioctl and prctl, and the flags of fallocate and
 * sync_file_range, named for the trace: what a replay needs to do what
 * the call did (an exec closing a descriptor set close-on-exec, a file
 * opened for appending, a hole punched). */
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>

#include "capture.h"
#include "spool.h"

struct name { long v; const char *s; };

static const struct name fcntl_cmds[] = {
	{ F_DUPFD, "F_DUPFD" }, { F_DUPFD_CLOEXEC, "F_DUPFD_CLOEXEC" },
	{ F_GETFD, "F_GETFD" }, { F_SETFD, "F_SETFD" }, { F_GETFL, "F_GETFL" },
	{ F_SETFL, "F_SETFL" }, { F_GETLK, "F_GETLK" }, { F_SETLK, "F_SETLK" },
	{ F_SETLKW, "F_SETLKW" }, { F_OFD_GETLK, "F_OFD_GETLK" },
	{ F_OFD_SETLK, "F_OFD_SETLK" }, { F_OFD_SETLKW, "F_OFD_SETLKW" },
	{ F_GETOWN, "F_GETOWN" }, { F_SETOWN, "F_SETOWN" }, { F_GETSIG, "F_GETSIG" },
	{ F_SETSIG, "F_SETSIG" }, { F_GETLEASE, "F_GETLEASE" },
	{ F_SETLEASE, "F_SETLEASE" }, { F_NOTIFY, "F_NOTIFY" },
	{ F_GETPIPE_SZ, "F_GETPIPE_SZ" }, { F_SETPIPE_SZ, "F_SETPIPE_SZ" },
	{ F_ADD_SEALS, "F_ADD_SEALS" }, { F_GET_SEALS, "F_GET_SEALS" },
};

static const struct name ioctl_cmds[] = {
	{ FIOCLEX, "FIOCLEX" }, { FIONCLEX, "FIONCLEX" }, { FIONBIO, "FIONBIO" },
	{ FIOASYNC, "FIOASYNC" }, { FIONREAD, "FIONREAD" }, { TCGETS, "TCGETS" },
	{ TCSETS, "TCSETS" }, { TCSETSW, "TCSETSW" }, { TCSETSF, "TCSETSF" },
	{ TIOCGWINSZ, "TIOCGWINSZ" }, { TIOCSWINSZ, "TIOCSWINSZ" },
	{ TIOCGPGRP, "TIOCGPGRP" }, { TIOCSPGRP, "TIOCSPGRP" },
	{ TIOCSCTTY, "TIOCSCTTY" }, { TIOCNOTTY, "TIOCNOTTY" },
};

static const struct name prctl_opts[] = {
	{ PR_SET_PDEATHSIG, "PR_SET_PDEATHSIG" }, { PR_GET_PDEATHSIG, "PR_GET_PDEATHSIG" },
	{ PR_SET_NAME, "PR_SET_NAME" }, { PR_GET_NAME, "PR_GET_NAME" },
	{ PR_SET_DUMPABLE, "PR_SET_DUMPABLE" }, { PR_GET_DUMPABLE, "PR_GET_DUMPABLE" },
	{ PR_SET_CHILD_SUBREAPER, "PR_SET_CHILD_SUBREAPER" },
	{ PR_GET_CHILD_SUBREAPER, "PR_GET_CHILD_SUBREAPER" },
	{ PR_SET_NO_NEW_PRIVS, "PR_SET_NO_NEW_PRIVS" }, { PR_SET_SECCOMP, "PR_SET_SECCOMP" },
	{ PR_SET_KEEPCAPS, "PR_SET_KEEPCAPS" }, { PR_CAPBSET_DROP, "PR_CAPBSET_DROP" },
	{ PR_SET_TIMERSLACK, "PR_SET_TIMERSLACK" }, { PR_SET_PTRACER, "PR_SET_PTRACER" },
	{ PR_SET_THP_DISABLE, "PR_SET_THP_DISABLE" }, { PR_SET_MM, "PR_SET_MM" },
	{ PR_SET_VMA, "PR_SET_VMA" },
};

static const struct name falloc_modes[] = {
	{ FALLOC_FL_KEEP_SIZE, "FALLOC_FL_KEEP_SIZE" },
	{ FALLOC_FL_PUNCH_HOLE, "FALLOC_FL_PUNCH_HOLE" },
	{ FALLOC_FL_COLLAPSE_RANGE, "FALLOC_FL_COLLAPSE_RANGE" },
	{ FALLOC_FL_ZERO_RANGE, "FALLOC_FL_ZERO_RANGE" },
	{ FALLOC_FL_INSERT_RANGE, "FALLOC_FL_INSERT_RANGE" },
	{ FALLOC_FL_UNSHARE_RANGE, "FALLOC_FL_UNSHARE_RANGE" },
};

static const struct name sfr_flags[] = {
	{ 1, "SYNC_FILE_RANGE_WAIT_BEFORE" }, { 2, "SYNC_FILE_RANGE_WRITE" },
	{ 4, "SYNC_FILE_RANGE_WAIT_AFTER" },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *lookup(const struct name *t, size_t n, long v, char *buf, size_t bn)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].v == v)
			return t[i].s;
	snprintf(buf, bn, "%#lx", (unsigned long)v);
	return buf;
}

/* bits named, joined by '|'; unknown bits in hexadecimal; "0" for none */
static void bits(const struct name *t, size_t n, long v, char *buf, size_t bn)
{
	size_t k = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n && k < bn; i++)
		if (v & t[i].v) {
			k += (size_t)snprintf(buf + k, bn - k, "%s%s", k ? "|" : "", t[i].s);
			v &= ~t[i].v;
		}
	if (v && k < bn)
		k += (size_t)snprintf(buf + k, bn - k, "%s%#lx", k ? "|" : "", (unsigned long)v);
	if (!k)
		snprintf(buf, bn, "0");
}

const char *ctl_cmd(int call, int64_t cmd, char *buf, size_t n)
{
	switch (call) {
	case C_FCNTL: return lookup(fcntl_cmds, N(fcntl_cmds), (long)cmd, buf, n);
	case C_IOCTL: return lookup(ioctl_cmds, N(ioctl_cmds), (long)(unsigned int)cmd, buf, n);
	case C_PRCTL: return lookup(prctl_opts, N(prctl_opts), (long)cmd, buf, n);
	}
	return NULL;
}

/* What the command set, as "flags": F_SETFD's FD_CLOEXEC (or "0"),
 * F_SETFL's status flags, FIONBIO's O_NONBLOCK (or "0"), prctl's first
 * argument; NULL when the command sets nothing of the descriptor's. */
const char *ctl_arg(int call, int64_t cmd, int64_t arg, char *buf, size_t n)
{
	if (call == C_FCNTL && cmd == F_SETFD)
		return arg & FD_CLOEXEC ? "FD_CLOEXEC" : "0";
	if (call == C_FCNTL && cmd == F_SETFL) {
		fmt_oflags(buf, n, (int)arg & ~O_ACCMODE);
		/* the access mode is not F_SETFL's: "O_RDONLY|" dropped */
		const char *p = strchr(buf, '|');
		return p ? p + 1 : "0";
	}
	if (call == C_IOCTL && (unsigned int)cmd == FIONBIO)
		return arg ? "O_NONBLOCK" : "0";
	if (call == C_PRCTL && arg) {
		snprintf(buf, n, "%lld", (long long)arg);
		return buf;
	}
	return NULL;
}

/* fallocate's mode, sync_file_range's flags (the record's payload) */
void ctl_mode(int call, int32_t v, char *buf, size_t n)
{
	if (call == C_FALLOCATE)
		bits(falloc_modes, N(falloc_modes), v, buf, n);
	else
		bits(sfr_flags, N(sfr_flags), v, buf, n);
}
