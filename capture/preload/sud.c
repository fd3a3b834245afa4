/*
 * --syscalls: every system call of every thread, recorded at the kernel
 * boundary with Syscall User Dispatch (Linux >= 5.11). Each thread arms
 * dispatch with its selector byte set to BLOCK: any system call made
 * outside the allowed region (sudstub.S) raises SIGSYS, and the handler below
 * makes the call from the region, records it in the thread's spool, and
 * puts the result in the interrupted context. The kernel does not carry
 * dispatch over to a child (fork, clone, or thread: checked on 6.18), nor
 * across exec: the handler arms each child, and the constructor each image.
 *
 * What must not change for the application:
 *  - errno, results, signals: the call is made with the application's own
 *    arguments, errno is restored, SIGSYS stays out of its masks;
 *  - its own SIGSYS handler (seccomp SECCOMP_RET_TRAP): kept aside and
 *    called for every SIGSYS that is not ours;
 *  - its signal handlers: they return through island_restorer (in the
 *    region), since libc's restorer would trap on rt_sigreturn;
 *  - a child on a new stack (threads, posix_spawn): started by
 *    island_clone_vm where the application's call would have returned,
 *    never inside this handler.
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <linux/sched.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>

#include "preload.h"
#include "real.h"

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#define PR_SYS_DISPATCH_OFF 0
#define PR_SYS_DISPATCH_ON 1
#endif
#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31)       /* (linux/signal.h) */
#endif
#define SEL_ALLOW 0
#define SEL_BLOCK 1
#ifndef SYS_USER_DISPATCH
#define SYS_USER_DISPATCH 2        /* si_code of a dispatched call */
#endif

extern char island_sud_begin[], island_sud_end[], island_restorer[],
	island_restorer_app[];
long island_sys6(long nr, long a, long b, long c, long d, long e, long f);
long island_sys2_at(long nr, long a, long b, void *sp);

struct clone_regs {                /* island_clone_vm's layout (sudstub.S) */
	long nr, rip, fn, rdi, rsi, rdx, r10, r8, r9, rbx, rbp;
	long r12, r13, r14, r15, newsp;
};
long island_clone_vm(struct clone_regs *c);
extern char island_zp_entry[], island_zp_resys_end[], island_zp_fault_end[];

/* what the region (sudstub.S) calls of this file, by its pointers */
struct zp_frame;
void island_note_sigreturn(void);
int zp_fast(struct zp_frame *f);
__attribute__((noreturn)) void zp_fault_undispatched(void);
extern struct stub_up {
	void (*sigreturn)(void);
	int (*zp_fast)(struct zp_frame *f);
	void (*zp_fault)(void);
} island_stub_up;

/* before an image's first dispatch (sud_take_over, sud_init): its
 * threads and children come after */
static void stub_up_fill(void)
{
	island_stub_up = (struct stub_up){ island_note_sigreturn, zp_fast,
					   zp_fault_undispatched };
}

/* --- the decoding table (capture/syscalls.def) ----------------------- */

enum how { D_NONE = 0, D_RW, D_PRW, D_IOV, D_PIOV, D_OPEN, D_CREAT, D_OPENAT,
	   D_OPENAT2, D_FD, D_CLOSE_RANGE, D_DUP, D_DUP2, D_FCNTL, D_LSEEK,
	   D_SENDFILE, D_COPY, D_PATH, D_PATHAT, D_RENAME, D_RENAMEAT, D_SOCKET,
	   D_SOCKETPAIR, D_PIPE, D_BIND, D_CONNECT, D_ACCEPT, D_MSG, D_MMSG,
	   D_POLL, D_WAIT, D_EPOLL, D_SLEEP, D_CLOCK_SLEEP, D_WAIT4, D_MMAP,
	   D_UNMAP, D_ANON, D_VOID, D_SFR, D_FALLOC, D_IOCTL, D_PRCTL, D_AIO,
	   D_AIO_SETUP, D_URING, D_URING_SETUP };

#define NSYS 512
static const struct { uint16_t call; uint8_t how; } sysdec[NSYS] = {
#define SYSCALL(name, id, how) [__NR_##name] = { C_##id, D_##how },
#include "../syscalls.def"
#undef SYSCALL
};

static int64_t iov_sum(const struct iovec *v, long n)
{
	int64_t s = 0;

	for (long i = 0; v && i < n && i < 1024; i++)
		s += (int64_t)v[i].iov_len;
	return s;
}

static int64_t ts_ns(const struct timespec *t)
{
	return t ? (int64_t)t->tv_sec * 1000000000 + t->tv_nsec : -1;
}

static uint64_t ino_of(long fd)
{
	struct stat st;

	return island_sys6(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) == 0 ? st.st_ino : 0;
}

/* May the decoder read what a system call that failed with E was given
 * (appmem.c)? Its strings, vectors, message, address or time. */
static int sys_mem_ok(enum how how, const long *a, int e)
{
	const struct msghdr *m;

	if (!e)
		return 1;
	switch (how) {
	case D_OPEN: case D_CREAT: case D_PATH:
		return app_str_ok((const char *)a[0], e);
	case D_OPENAT: case D_PATHAT:
		return app_str_ok((const char *)a[1], e);
	case D_OPENAT2:
		return app_str_ok((const char *)a[1], e) &&
		       app_mem_ok((const void *)a[2], sizeof(struct open_how), e);
	case D_RENAME:
		return app_str_ok((const char *)a[0], e) && app_str_ok((const char *)a[1], e);
	case D_RENAMEAT:
		return app_str_ok((const char *)a[1], e) && app_str_ok((const char *)a[3], e);
	case D_IOV: case D_PIOV:
		return a[2] >= 0 && a[2] <= 1024 &&
		       app_mem_ok((const void *)a[1], (size_t)a[2] * sizeof(struct iovec), e);
	case D_MSG:
		m = (const struct msghdr *)a[1];
		return m && app_mem_ok(m, sizeof(*m), e) && m->msg_iovlen <= 1024 &&
		       app_mem_ok(m->msg_iov, m->msg_iovlen * sizeof(struct iovec), e);
	case D_CONNECT:
		return app_mem_ok((const void *)a[1], (size_t)a[2], e);
	case D_SLEEP:
		return app_mem_ok((const void *)a[0], sizeof(struct timespec), e);
	case D_CLOCK_SLEEP:
		return app_mem_ok((const void *)a[2], sizeof(struct timespec), e);
	default:
		return 1;
	}
}

/* A full record of a system call, with its number and level in seq; the
 * first plain I/O call a libc call makes kept aside (kcalls_end). */
static void sys_put(struct tstate *t, long nr, const long *a, long ret,
		    uint64_t t0, uint64_t t1, int inlibc)
{
	int call = C_SYSCALL, fd = -1, e = 0;
	int64_t a1 = nr, a2 = 0, res = ret;
	const char *p1 = NULL, *p2 = NULL;
	const void *raw = NULL;
	size_t rawn = 0;
	struct sockinfo si;
	uint64_t ino[2];
	int32_t pf[2];
	char name[6 + 250];
	enum how how = nr >= 0 && nr < NSYS ? (enum how)sysdec[nr].how : D_NONE;

	if (ret < 0 && ret > -4096) {
		e = (int)-ret;
		res = -1;
	}
	/* what it was given points nowhere: a plain system call */
	if (how != D_NONE && !sys_mem_ok(how, a, e))
		how = D_NONE;
	if (how != D_NONE)
		call = sysdec[nr].call;
	switch (how) {
	case D_NONE: break;
	case D_RW:   fd = (int)a[0]; a1 = a[2]; a2 = -1; break;
	case D_PRW:  fd = (int)a[0]; a1 = a[2]; a2 = a[3]; break;
	case D_IOV:  fd = (int)a[0]; a1 = iov_sum((void *)a[1], a[2]); a2 = -1; break;
	case D_PIOV: fd = (int)a[0]; a1 = iov_sum((void *)a[1], a[2]); a2 = a[3]; break;
	case D_OPEN: fd = (int)res; a1 = a[1]; a2 = AT_FDCWD; p1 = (char *)a[0]; break;
	case D_ANON:
		fd = (int)res; a1 = 0;
		p1 = anon_name(call, res >= 0 ? (const char *)a[0] : NULL, name, sizeof(name));
		break;
	case D_CREAT:
		fd = (int)res; a1 = O_CREAT | O_WRONLY | O_TRUNC; a2 = AT_FDCWD;
		p1 = (char *)a[0];
		break;
	case D_OPENAT: fd = (int)res; a1 = a[2]; a2 = a[0]; p1 = (char *)a[1]; break;
	case D_OPENAT2:
		fd = (int)res; a2 = a[0]; p1 = (char *)a[1];
		a1 = a[2] ? (int64_t)((struct open_how *)a[2])->flags : 0;
		break;
	case D_FD:   fd = (int)a[0]; a1 = 0; break;
	case D_CLOSE_RANGE: fd = (int)a[0]; a1 = (int)a[1]; break;
	case D_DUP:  fd = (int)res; a1 = a[0]; break;
	case D_DUP2: fd = (int)a[1]; a1 = a[0]; break;
	case D_FCNTL: fd = (int)a[0]; a1 = a[1]; a2 = a[2]; break;
	case D_LSEEK: fd = (int)a[0]; a1 = a[1]; a2 = a[2]; break;
	case D_SENDFILE: fd = (int)a[0]; a1 = a[3]; a2 = (int)a[1]; break;
	case D_COPY: fd = (int)a[2]; a1 = a[4]; a2 = (int)a[0]; break;
	case D_PATH: a1 = 0; a2 = AT_FDCWD; p1 = (char *)a[0]; break;
	case D_PATHAT:
		fd = (int)a[0]; a1 = 0; a2 = a[0]; p1 = (char *)a[1];
		break;
	case D_RENAME:
		a1 = AT_FDCWD; a2 = AT_FDCWD; p1 = (char *)a[0]; p2 = (char *)a[1];
		break;
	case D_RENAMEAT:
		a1 = a[2]; a2 = a[0]; p1 = (char *)a[1]; p2 = (char *)a[3];
		break;
	case D_SOCKET:
		fd = (int)res; a1 = a[0]; a2 = a[1];
		if (res >= 0)
			sockinfo_fill(&si, (int)res, NULL, 0);
		else
			memset(&si, 0, sizeof(si));
		raw = &si; rawn = sizeof(si);
		break;
	case D_SOCKETPAIR:
	case D_PIPE: {
		const int *sv = (const int *)(how == D_PIPE ? a[0] : a[3]);
		fd = res == 0 ? sv[0] : -1;
		a1 = res == 0 ? sv[1] : -1;
		a2 = how == D_PIPE ? 0 : (a[1] & 0xff);
		ino[0] = res == 0 ? ino_of(sv[0]) : 0;
		ino[1] = res == 0 ? ino_of(sv[1]) : 0;
		raw = ino; rawn = sizeof(ino);
		break;
	}
	case D_BIND:
	case D_CONNECT:
		fd = (int)a[0]; a1 = 0;
		sockinfo_fill(&si, fd, how == D_CONNECT ? (void *)a[1] : NULL,
			      how == D_CONNECT ? (size_t)a[2] : 0);
		raw = &si; rawn = sizeof(si);
		break;
	case D_ACCEPT:
		fd = (int)res; a1 = a[0];
		if (res >= 0)
			sockinfo_fill(&si, (int)res, (void *)a[1],
				      a[1] && a[2] ? *(socklen_t *)a[2] : 0);
		else
			memset(&si, 0, sizeof(si));
		raw = &si; rawn = sizeof(si);
		break;
	case D_MSG: {
		const struct msghdr *m = (void *)a[1];
		fd = (int)a[0]; a1 = m ? iov_sum(m->msg_iov, (long)m->msg_iovlen) : 0;
		break;
	}
	case D_MMSG: {
		const struct mmsghdr *m = (void *)a[1];
		fd = (int)a[0]; a1 = 0; a2 = 0;
		for (long i = 0; m && i < res; i++)
			a2 += m[i].msg_len;
		break;
	}
	case D_POLL:  a1 = a[2] < 0 ? -1 : a[2] * 1000000; break;
	case D_EPOLL: a1 = a[3] < 0 ? -1 : a[3] * 1000000; break;
	case D_WAIT:  a1 = -1; break;
	case D_SLEEP: a1 = ts_ns((struct timespec *)a[0]); break;
	case D_CLOCK_SLEEP: a1 = ts_ns((struct timespec *)a[2]); break;
	case D_WAIT4: a1 = res > 0 && a[1] ? *(int *)a[1] : 0; break;
	case D_MMAP:
		/* as the libc wrapper: a file's mapping (fd, length, offset;
		 * prot and flags in the payload); anonymous memory is not I/O,
		 * a plain system call */
		if ((a[3] & MAP_ANONYMOUS) || (int)a[4] < 0) {
			call = C_SYSCALL;
			break;
		}
		fd = (int)a[4]; a1 = a[1]; a2 = a[5];
		pf[0] = (int32_t)a[2]; pf[1] = (int32_t)a[3];
		raw = pf; rawn = sizeof(pf);
		break;
	case D_UNMAP: a1 = a[1]; a2 = a[0]; break;   /* munmap, msync */
	case D_VOID: res = 0; break;                 /* sync */
	case D_SFR:   /* sync_file_range: bytes, offset, its flags */
		fd = (int)a[0]; a1 = a[2]; a2 = a[1];
		pf[0] = (int32_t)a[3];
		raw = pf; rawn = sizeof(pf[0]);
		break;
	case D_FALLOC: /* fallocate: bytes, offset, its mode */
		fd = (int)a[0]; a1 = a[3]; a2 = a[2];
		pf[0] = (int32_t)a[1];
		raw = pf; rawn = sizeof(pf[0]);
		break;
	case D_IOCTL: /* the request; FIONBIO's int */
		fd = (int)a[0]; a1 = (unsigned int)a[1];
		a2 = a[1] == FIONBIO && a[2] && app_mem_ok((void *)a[2], sizeof(int), e) ?
		     *(int *)a[2] : 0;
		break;
	case D_PRCTL: a1 = a[0]; a2 = a[0] == PR_SET_NAME || a[0] == PR_GET_NAME ? 0 : a[1]; break;
	/* as wrap_aio.c records libaio's calls: the context in a2 */
	case D_AIO: a1 = nr == SYS_io_destroy ? 0 : a[1]; a2 = a[0]; break;
	case D_AIO_SETUP:
		a1 = a[0];
		a2 = res == 0 && a[1] ? (int64_t)*(uint64_t *)a[1] : 0;
		break;
	/* as syscall() records them (wrap_map.c) */
	case D_URING_SETUP: fd = (int)res; a1 = a[0]; a2 = 0; break;
	case D_URING:
		fd = (int)a[0]; a1 = a[1];
		a2 = nr == SYS_io_uring_enter ? a[2] : 0;
		break;
	}
	size_t n1 = p1 ? strnlen(p1, 4095) + 1 : 0;
	size_t n2 = p2 ? strnlen(p2, 4095) + 1 : 0;
	size_t pl = raw ? rawn : n1 + n2;
	size_t len = REC_ALIGN(sizeof(struct rec) + pl);

	if (inlibc && !t->kcalls++ && !pl && !sess && !limits && !rec_extras &&
	    (how == D_RW || how == D_PRW || how == D_IOV || how == D_PIOV ||
	     how == D_LSEEK || how == D_FD)) {
		rec_fill(&t->kp, call, t0, t1, res, fd, a1, a2, e);
		t->kp.seq = SEQ_KERNEL | SEQ_INLIBC | (uint64_t)nr << 48;
		t->kp.len = 0;
		/* in this order: a record between finds lim or kpend */
		t->klim = t->lim;
		barrier();
		t->kpend = 1;
		barrier();
		t->lim = NULL;	/* the next record goes by rec_slow */
		return;
	}
	struct rec *r = rec_reserve(t, len);

	if (!r)
		return;
	rec_fill(r, call, t0, t1, res, fd, a1, a2, e);
	r->seq = SEQ_KERNEL | (inlibc ? SEQ_INLIBC : 0) | (uint64_t)nr << 48;
	char *q = REC_PAYLOAD(r);
	if (raw) {
		memcpy(q, raw, rawn);
	} else {
		/* strings cut to 4095 bytes stay terminated */
		if (n1) {
			memcpy(q, p1, n1 - 1);
			q[n1 - 1] = 0;
		}
		if (n2) {
			memcpy(q + n1, p2, n2 - 1);
			q[n1 + n2 - 1] = 0;
		}
	}
	memset(REC_PAYLOAD(r) + pl, 0, len - sizeof(*r) - pl);
	rec_commit(t, &r->len, len);
}

/* --- arming ---------------------------------------------------------- */

static int sud_fail_forced;        /* ISLAND_SUD_FAIL: act as if unsupported */

int sud_arm_thread(void)
{
	struct tstate *t = &ts;

	if (sud_fail_forced)
		return -EINVAL;
	t->sel = SEL_ALLOW;
	long r = island_sys6(SYS_prctl, PR_SET_SYSCALL_USER_DISPATCH,
			     PR_SYS_DISPATCH_ON, (long)island_sud_begin,
			     island_sud_end - island_sud_begin, (long)&t->sel, 0);
	if (r < 0)
		return (int)r;
	t->sel = SEL_BLOCK;
	return 0;
}

/* Started by island-loader: its handler sees every call until ours is
 * installed (sud_init), and its calls of the kernel lie outside our
 * region, so each would trap again into it, without end (a stack
 * overflow: the profiler's dlopen of libunwind made such calls). Armed
 * here on our region with the selector at ALLOW, nothing is dispatched
 * until sud_init blocks: the calls in between are the capture's own. */
void sud_take_over(void)
{
	stub_up_fill();
	if (sud_arm_thread() == 0)
		ts.sel = SEL_ALLOW;
}

/* A new thread, on its own stack and TLS, before its first instruction. */
static void sud_thread_start(void)
{
#ifdef ISLAND_LOADER
	if (!island_new_state())   /* still the creator's: not recorded */
		return;
#endif
	struct tstate *t = &ts;

	t->slot = -1;
	t->born = now();
	sud_arm_thread();
}

/* A child in a copy of our memory on a stack of its own (clone(fn,
 * stack, SIGCHLD, arg)): it starts in island_clone_vm as a thread does,
 * never in the handler's frame, and is a process like a fork child. Its
 * state is the parent's copy: the parent's tid, the clone's start. */
static void sud_fork_start(void)
{
	struct tstate *t = &ts;
	pid_t parent = t->tid;

	sud_arm_thread();
	if (island_on) {
		int guard = t->guard;      /* a libc clone wrapper's */
		fork_child(parent, t->fork_t0);
		t->sud_forked = 1;
		t->guard = guard;
	}
	t->sysguard = t->fork_sysguard;
}

/* Arm a child on a new stack: one in a copy of our memory as a process;
 * one that shares it, a thread with its own TLS, or under island-loader,
 * whose state is not in the TLS, any such child. */
static long child_start(unsigned long flags)
{
	if (!(flags & CLONE_VM))
		return (long)sud_fork_start;
#ifdef ISLAND_LOADER
	return (long)sud_thread_start;
#else
	return (flags & CLONE_SETTLS) ? (long)sud_thread_start : 0;
#endif
}

static struct ksigaction app_sigsys;    /* the application's SIGSYS action */
/* A handler runs with its sa_mask blocked, and a dispatch SIGSYS that
 * finds SIGSYS blocked kills the process (the kernel resets the action to
 * the default): every handler's mask is installed without SIGSYS, and the
 * mask the application gave is what it reads back. */
#define SIGSYS_BIT (1ull << (SIGSYS - 1))
static uint64_t app_mask_sys;           /* per signal: its mask had SIGSYS */
static int seccomp_told;                /* said once per process image */

/* One line for island-capture to print after the run (the application's
 * own stderr is not ours to write to). */
static void sud_warn(const char *msg)
{
	char path[600];
	const char *dir = island_spool_dir();   /* environ no longer has it */
	size_t dl = strlen(dir), ml = strlen(msg);

	if (!dl || dl + 10 > sizeof(path))
		return;
	memcpy(path, dir, dl);
	memcpy(path + dl, "/warnings", 10);
	long fd = island_sys6(SYS_openat, AT_FDCWD, (long)path,
			      O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
			      0600, 0, 0);
	if (fd < 0)
		return;
	island_sys6(SYS_write, fd, (long)msg, (long)ml, 0, 0, 0);
	island_sys6(SYS_close, fd, 0, 0, 0, 0, 0);
}

static void sigsys(int sig, siginfo_t *si, void *uctx);
static void zp_init(void) __attribute__((unused));
#ifndef ISLAND_LOADER
static void zp_uring_init(void);
#endif

static char loader[512];           /* island-loader (ISLAND_LOADER) */

/* An x86-64 ELF program island-loader can start as the kernel would:
 * readable, not set-user-ID or set-group-ID (the loader cannot give it
 * those rights: such a program is exec'd as it is). Raw calls. */
static int loadable_elf(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph[64];
	struct stat sb;
	long fd = island_sys6(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC,
			      0, 0, 0);
	int st = 0;

	if (fd < 0)
		return 0;
	if (island_sys6(SYS_fstat, fd, (long)&sb, 0, 0, 0, 0) < 0 ||
	    (sb.st_mode & (S_ISUID | S_ISGID))) {
		island_sys6(SYS_close, fd, 0, 0, 0, 0, 0);
		return 0;
	}
	if (island_sys6(SYS_pread64, fd, (long)&eh, sizeof(eh), 0, 0, 0) == sizeof(eh) &&
	    !memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	    eh.e_machine == EM_X86_64 && eh.e_phentsize == sizeof(ph[0]) &&
	    eh.e_phnum <= 64 && (eh.e_type == ET_EXEC || eh.e_type == ET_DYN)) {
		long n = (long)(eh.e_phnum * sizeof(ph[0]));
		st = island_sys6(SYS_pread64, fd, (long)ph, n, (long)eh.e_phoff, 0, 0) == n;
	}
	island_sys6(SYS_close, fd, 0, 0, 0, 0, 0);
	return st;
}

/* A script's "#!interpreter [arg]" line, as the kernel reads it. */
static int shebang(const char *path, char *interp, size_t n, char **arg)
{
	char buf[256];
	long fd = island_sys6(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC,
			      0, 0, 0);

	if (fd < 0)
		return 0;
	long got = island_sys6(SYS_read, fd, (long)buf, sizeof(buf) - 1, 0, 0, 0);
	island_sys6(SYS_close, fd, 0, 0, 0, 0, 0);
	if (got < 3 || buf[0] != '#' || buf[1] != '!')
		return 0;
	buf[got] = 0;
	char *p = buf + 2, *end = memchr(buf, '\n', (size_t)got);
	if (!end)
		return 0;            /* a line longer than we read: leave it */
	*end = 0;
	while (*p == ' ' || *p == '\t')
		p++;
	char *q = p;
	while (*q && *q != ' ' && *q != '\t')
		q++;
	if (q == p || (size_t)(q - p) >= n)
		return 0;
	memcpy(interp, p, (size_t)(q - p));
	interp[q - p] = 0;
	*arg = NULL;
	while (*q == ' ' || *q == '\t')
		q++;
	if (*q) {                    /* the rest is one argument, trailing blanks cut */
		char *t = q + strlen(q);
		while (t > q && (t[-1] == ' ' || t[-1] == '\t'))
			*--t = 0;
		static __thread char argbuf[256];
		strcpy(argbuf, q);
		*arg = argbuf;
	}
	return 1;
}

/* execve of an ELF program, or of a script whose interpreter is one:
 * island-loader runs it, so that a static program is recorded at all and
 * a dynamic one from its first call. The rest (not executable, set-ID,
 * unreadable) is exec'd as it is, with the kernel's answer. Returns 1 and
 * the call's result in *ret when it did. given: the path the program
 * asked for, when a[0] replaces it (/proc/self/exe: the task is named
 * "exe", and that is its AT_EXECFN). */
static int exec_loaded(const long *a, const char *given, long *ret)
{
	const char *path = (const char *)a[0];
	char *const *argv = (char *const *)a[1];
	char *const *envp = (char *const *)a[2];
	char tgt[4200], name[4200], interp[256], *iarg = NULL;
	size_t n = 0, na = 0, pl = path ? strnlen(path, 4096) : 4096;
	int script = 0;

	if (!loader[0] || pl >= 4096 ||
	    island_sys6(SYS_faccessat, AT_FDCWD, (long)path, X_OK, 0, 0, 0) < 0)
		return 0;
	if (!loadable_elf(path)) {
		if (!shebang(path, interp, sizeof(interp), &iarg) ||
		    island_sys6(SYS_faccessat, AT_FDCWD, (long)interp, X_OK, 0, 0, 0) < 0 ||
		    !loadable_elf(interp))
			return 0;
		script = 1;
	}
	for (char *const *e = envp; e && *e; e++)
		n++;
	for (char *const *v = argv; v && *v; v++)
		na++;
	char *arr[n + 3], **w = arr;
	char *args[na + 4], **x = args;
	for (char *const *e = envp; e && *e; e++)
		if (strncmp(*e, ENV_LOADER_TARGET "=", sizeof(ENV_LOADER_TARGET)) &&
		    strncmp(*e, ENV_LOADER_NAME "=", sizeof(ENV_LOADER_NAME)) &&
		    strncmp(*e, ENV_LOADED "=", sizeof(ENV_LOADED)))
			*w++ = *e;
	const char *target = script ? interp : path;
	size_t tl = strlen(target);
	memcpy(tgt, ENV_LOADER_TARGET "=", sizeof(ENV_LOADER_TARGET));
	memcpy(tgt + sizeof(ENV_LOADER_TARGET), target, tl + 1);
	*w++ = tgt;
	if (script || given) {       /* the task is named after the script */
		const char *as = given ? given : path;
		size_t al = strnlen(as, 4096);
		if (al >= 4096)
			return 0;
		memcpy(name, ENV_LOADER_NAME "=", sizeof(ENV_LOADER_NAME));
		memcpy(name + sizeof(ENV_LOADER_NAME), as, al);
		name[sizeof(ENV_LOADER_NAME) + al] = 0;
		*w++ = name;
	}
	*w = NULL;
	if (script) {                /* the kernel's argv for a script */
		*x++ = interp;
		if (iarg)
			*x++ = iarg;
		*x++ = (char *)path;
		for (size_t i = 1; i < na; i++)
			*x++ = argv[i];
		*x = NULL;
	}
	*ret = island_sys6(SYS_execve, (long)loader, script ? (long)args : a[1],
			   (long)arr, 0, 0, 0);
	return 1;
}

/* execveat's file as a path island-loader can open after the exec (the
 * descriptor may be close-on-exec), in buf (the task is named after the
 * file, as Linux 6.x names it for AT_EMPTY_PATH). 0 when there is none
 * (a memfd, a deleted file): it is exec'd as it is. */
static int at_path(const long *x, char *buf, size_t n)
{
	const char *p = (const char *)x[1];
	char link[64];
	long l;

	if (p && p[0] == '/')
		return strlen(p) < n ? (strcpy(buf, p), 1) : 0;
	if (p && p[0] && (int)x[0] == AT_FDCWD)
		return strlen(p) < n ? (strcpy(buf, p), 1) : 0;
	if ((!p || !p[0]) && !(x[4] & AT_EMPTY_PATH))
		return 0;
	if ((int)x[0] < 0)
		return 0;
	memcpy(link, "/proc/self/fd/", 14);
	utoa(link + 14, (unsigned long)(int)x[0]);
	l = island_sys6(SYS_readlinkat, AT_FDCWD, (long)link, (long)buf, (long)n - 1, 0, 0);
	if (l <= 0 || buf[0] != '/' || (size_t)l >= n - 1)
		return 0;
	buf[l] = 0;
	if (p && p[0]) {             /* relative to the directory dirfd */
		if ((size_t)l + 1 + strlen(p) >= n)
			return 0;
		buf[l] = '/';
		strcpy(buf + l + 1, p);
	}
	/* the kernel's name for a file gone from its directory */
	return island_sys6(SYS_faccessat, AT_FDCWD, (long)buf, F_OK, 0, 0, 0) == 0;
}

/* The name the kernel gives an execveat (its AT_EXECFN): the path when
 * absolute or from the cwd, else /dev/fd/N, /dev/fd/N/PATH; in buf. */
static const char *at_given(const long *x, char *buf, size_t n)
{
	const char *p = (const char *)x[1];

	if (p && (p[0] == '/' || (p[0] && (int)x[0] == AT_FDCWD)))
		return p;
	if ((int)x[0] < 0 || n < 32 || (p && strlen(p) >= n - 32))
		return NULL;
	memcpy(buf, "/dev/fd/", 8);
	char *e = utoa(buf + 8, (unsigned long)(int)x[0]);
	if (p && p[0]) {
		*e++ = '/';
		strcpy(e, p);
	}
	return buf;
}

/* An application's signal handler returns (island_restorer_app): its
 * rt_sigreturn, which no handler sees, is recorded here. */
void island_note_sigreturn(void)
{
	struct tstate *t = &ts;
	long a[6] = { 0 };
	int e = errno;

	if (island_on && !t->sysguard && !(t->hold & (HOLD_OFF | HOLD_VFORK))) {
		uint64_t t0 = now();
		t->sysguard = 1;
		sys_put(t, SYS_rt_sigreturn, a, 0, t0, t0, t->guard);
		t->sysguard = 0;
	}
	errno = e;
}

/* island-loader: the execve that started this image succeeded (it did
 * not return, so no handler recorded it): its record. */
void sud_note_exec(const char *path, uint64_t t0)
{
	struct tstate *t = &ts;
	long a[6] = { (long)path, 0, 0, 0, 0, 0 };

	if (island_on && t->hdr)
		sys_put(t, SYS_execve, a, 0, t0, t0, 0);
}

void sud_init(void)
{
	/* on the application's alternate stack when it has one: a Go
	 * goroutine's stack is a few kB and grows only through Go's own
	 * checks, while its runtime gives every thread a signal stack */
	struct ksigaction sa = { (void *)sigsys,
				 SA_SIGINFO | SA_NODEFER | SA_ONSTACK | KSA_RESTORER,
				 island_restorer, 0 }, old;
	int e = errno;

	stub_up_fill();
#ifndef ISLAND_LOADER
	zp_uring_init();
#endif
	sud_fail_forced = getenv("ISLAND_SUD_FAIL") != NULL;
	const char *l = getenv(ENV_LOADER);
	if (l && strlen(l) < sizeof(loader))
		strcpy(loader, l);
	if (sud_fail_forced ||
	    island_sys6(SYS_rt_sigaction, SIGSYS, (long)&sa, (long)&app_sigsys, 8, 0, 0) < 0) {
		sud_warn("--syscalls: Syscall User Dispatch is not available "
			 "(Linux >= 5.11 with CONFIG_GENERIC_ENTRY); recorded at "
			 "the libc level only\n");
		errno = e;
		return;
	}
	if (getenv(ENV_LOADED))          /* island-loader's handler, not the app's */
		app_sigsys = (struct ksigaction){ SIG_DFL, 0, 0, 0 };
	/* handlers installed before us return through libc's restorer */
	for (int s = 1; s <= 64; s++) {
		if (s == SIGSYS || s == SIGKILL || s == SIGSTOP)
			continue;
		if (island_sys6(SYS_rt_sigaction, s, 0, (long)&old, 8, 0, 0) < 0)
			continue;
		if (old.handler == SIG_DFL || old.handler == SIG_IGN)
			continue;
		if (old.mask & SIGSYS_BIT)
			app_mask_sys |= 1ull << (s - 1);
		old.mask &= ~SIGSYS_BIT;
		if (old.flags & KSA_RESTORER)	/* the profiler's is ours */
			old.restorer = old.handler == prof_handler() ?
				island_restorer : island_restorer_app;
		island_sys6(SYS_rt_sigaction, s, (long)&old, 0, 8, 0, 0);
	}
	if (sud_arm_thread() < 0) {
		island_sys6(SYS_rt_sigaction, SIGSYS, (long)&app_sigsys, 0, 8, 0, 0);
		sud_warn("--syscalls: Syscall User Dispatch is not available "
			 "(Linux >= 5.11 with CONFIG_GENERIC_ENTRY); recorded at "
			 "the libc level only\n");
		errno = e;
		return;
	}
	sud_on = 1;
#ifndef ISLAND_LOADER
	zp_init();
#endif
	errno = e;
}

/* --- the fast path: rewritten sites (zpoline's idea) ----------------- */

/*
 * A SIGSYS costs a signal frame and rt_sigreturn. After the first one at a
 * site, the handler rewrites that `syscall` (0f 05) into `call *%rax`
 * (ff d0): with the number in rax, it calls into the page at address 0,
 * a slide of nops into island_zp_entry (sudstub.S), which makes and
 * records the call without a signal. Only where the page at 0 can be
 * mapped (vm.mmap_min_addr, or CAP_SYS_RAWIO) and the vector state fits
 * the entry's save area; not under island-loader (a Go stack is too small
 * for the save area). ISLAND_NO_REWRITE=1 turns it off.
 */
static int zp_on;
/*
 * Page 0 (zp_init), entered at the call number:
 *   [0, 512)       nops (66 66 66 90: any byte starts one), to the jump
 *   [512, 518)     jmp *ZP_REL(%rip): island_zp_entry, no register changed
 *   [518, 2058)    nops, to a `syscall` returning at ZP_PTR
 *   [2060, 2068)   island_zp_entry's address
 *   [2068, 4094)   nops, to a `syscall` returning at 4096
 * A number past the jump is no system call of x86-64 (ENOSYS): the two
 * `syscall`s outside the allowed region are dispatched, and the handler
 * makes the call the slow way. ZP_REL's bytes (06 06 00 00) make an entry
 * inside the jump fault or fail as the kernel would: 513 runs `and
 * $0x606,%eax` (512: ENOSYS), 514 and 515 an invalid opcode (SIGILL), 516
 * and 517 a write to page 0 or below 0 (SIGSEGV); 2059 to 2067 land in
 * the address: not handled.
 */
#define ZP_JMP 512
#define ZP_REL 0x606
#define ZP_PTR (ZP_JMP + 6 + ZP_REL)

/* Calls that need the signal frame (a new stack, a new image, the end of
 * the thread, the signal state): never made on the fast path. Nor
 * io_uring's, but from libc's syscall() (zp_uring_ok): the rewritten
 * `call` pushes its return address where the caller's red zone begins,
 * and liburing's inline system calls keep a pointer there
 * (__io_uring_get_cqe, looping on io_uring_enter: the program crashed
 * under --syscalls); a site that traps is not rewritten */
static const unsigned char zp_slow[NSYS] = {
	[__NR_clone] = 1, [__NR_clone3] = 1, [__NR_fork] = 1, [__NR_vfork] = 1,
	[__NR_execve] = 1, [__NR_execveat] = 1, [__NR_exit] = 1,
	[__NR_exit_group] = 1, [__NR_rt_sigreturn] = 1, [__NR_rt_sigaction] = 1,
	[__NR_rt_sigprocmask] = 1, [__NR_seccomp] = 1, [__NR_prctl] = 1,
	[__NR_io_uring_enter] = 1, [__NR_io_uring_setup] = 1,
	[__NR_io_uring_register] = 1,
};

static int zp_slow_nr(long nr)
{
	return nr < 0 || nr >= NSYS || zp_slow[nr];
}

/* libc's syscall(), a leaf that keeps nothing below its stack pointer:
 * io_uring's calls made by it (rawuring's, the Rust io-uring crate's
 * libc backend) may take the fast path; fio's and liburing's are their
 * own inline `syscall`s */
static uintptr_t libc_sc, libc_sc_end;

#ifndef ISLAND_LOADER
static void zp_uring_init(void)
{
	Dl_info info;
	const ElfW(Sym) *sym = NULL;

	real_resolve();
	if (REAL(syscall) && dladdr1((void *)REAL(syscall), &info, (void **)&sym,
				     RTLD_DL_SYMENT) && sym && sym->st_size &&
	    info.dli_saddr == (void *)REAL(syscall)) {
		libc_sc = (uintptr_t)REAL(syscall);
		libc_sc_end = libc_sc + sym->st_size;
	}
}
#endif

static int zp_uring_ok(long nr, uintptr_t site)
{
	return (nr == __NR_io_uring_enter || nr == __NR_io_uring_register) &&
	       site >= libc_sc && site < libc_sc_end;
}

#ifdef ISLAND_LOADER
/*
 * island-loader started a dynamic program: its dynamic loader maps the
 * interposer (LD_PRELOAD) like any library, and the interposer takes
 * dispatch over (prctl). Those calls are the capture's, not the
 * program's: from the open of ISLAND_LIB to the close of that descriptor
 * (open, read, fstat, mmap, close), and the prctl, are not recorded.
 */
static long lib_fd = -1;
static uintptr_t lib_lo, lib_hi;

static int capture_own(long nr, const long *a, long ret)
{
	static const char *lib;
	static int looked;

	if (!looked) {
		lib = getenv(ENV_LIB);
		looked = 1;
	}
	if (nr == SYS_prctl && a[0] == PR_SET_SYSCALL_USER_DISPATCH)
		return 1;
	if (lib_fd >= 0) {
		if (nr == SYS_close && a[0] == lib_fd)
			lib_fd = -1;
		/* the first mapping spans the whole library */
		if (nr == SYS_mmap && a[4] == lib_fd && !lib_lo && ret > 0) {
			lib_lo = (uintptr_t)ret;
			lib_hi = lib_lo + (uintptr_t)a[1];
		}
		return 1;
	}
	/* later, its RELRO protection */
	if ((nr == SYS_mprotect || nr == SYS_munmap) &&
	    (uintptr_t)a[0] >= lib_lo && (uintptr_t)a[0] < lib_hi)
		return 1;
	if (nr == SYS_openat && ret >= 0 && lib && a[1] && !strcmp((char *)a[1], lib)) {
		lib_fd = ret;
		return 1;
	}
	return 0;
}
#else
static int capture_own(long nr, const long *a, long ret)
{
	(void)nr; (void)a; (void)ret;
	return 0;
}
#endif

/*
 * A program island-loader started has the loader as its /proc/self/exe:
 * the calls that name it (a program that reads its own path, opens its
 * own file or execs itself again, as Go's os.Executable and re-exec'ing
 * servers do) name the program instead, as they would have; they are
 * recorded as the program made them. The path is the argument at
 * self_arg[nr] - 1; readlink and readlinkat are answered here.
 */
static const unsigned char self_arg[NSYS] = {
	[__NR_open] = 1, [__NR_openat] = 2, [__NR_openat2] = 2,
	[__NR_execve] = 1, [__NR_execveat] = 2, [__NR_stat] = 1,
	[__NR_newfstatat] = 2, [__NR_statx] = 2, [__NR_access] = 1,
	[__NR_faccessat] = 2, [__NR_faccessat2] = 2, [__NR_readlink] = 1,
	[__NR_readlinkat] = 2,
};

static int names_self(const char *p)
{
	long pid = 0;

	/* read only where it can be (appmem.c: a bad path is the call's
	 * EFAULT, not our fault) */
	if (!p || !app_str_ok(p, -1) || strncmp(p, "/proc/", 6))
		return 0;
	p += 6;
	if (!strcmp(p, "self/exe") || !strcmp(p, "thread-self/exe"))
		return 1;
	if (*p < '1' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9' && pid < 1L << 32)
		pid = pid * 10 + (*p++ - '0');
	return !strcmp(p, "/exe") && pid == island_sys6(SYS_getpid, 0, 0, 0, 0, 0, 0);
}

/* n bytes from -> to in our own memory, copied by the kernel: a bad
 * address is -EFAULT, never our fault; bytes copied otherwise */
static long self_write(void *to, const void *from, size_t n)
{
	struct iovec f = { (void *)from, n }, t = { to, n };

	return island_sys6(SYS_process_vm_writev, island_sys6(SYS_getpid, 0, 0, 0, 0, 0, 0),
			   (long)&f, 1, (long)&t, 1, 0);
}

/* 0: not ours; 1: x is a with the program's path; 2: answered in *ret */
static int self_exe_fix(long nr, const long *a, long *x, long *ret)
{
	int i;

	if (nr < 0 || nr >= NSYS || !self_arg[nr])
		return 0;
	i = self_arg[nr] - 1;
	if (!names_self((const char *)a[i]))
		return 0;
	/* the link itself: AT_SYMLINK_NOFOLLOW */
	if ((nr == SYS_newfstatat || nr == SYS_statx) &&
	    (a[nr == SYS_statx ? 2 : 3] & AT_SYMLINK_NOFOLLOW))
		return 0;
	if (nr == SYS_readlink || nr == SYS_readlinkat) {
		long size = a[i + 2], n = (long)strlen(island_exe);

		/* the kernel copies: a bad buffer is EFAULT, not our crash */
		*ret = (int)size <= 0 ? -EINVAL :
		       self_write((void *)a[i + 1], island_exe, (size_t)(n < size ? n : size));
		return 2;
	}
	for (int k = 0; k < 6; k++)
		x[k] = a[k];
	x[i] = (long)island_exe;
	return 1;
}

/* --profile: a snapshot a tick kept aside while a record was written
 * here; a wrapper's waits for its leave(). */
static inline void prof_flush_raw(struct tstate *t)
{
	if (unlikely(t->prof_pending) && !t->guard && !t->sysguard)
		prof_flush(t);
}

/* Make and record a plain call: the handler's and the fast path's. */
static long plain_call(struct tstate *t, long nr, const long *a)
{
	int rec = island_on && !t->sysguard && !(t->hold & (HOLD_OFF | HOLD_VFORK));
	int inlibc = t->guard, outer = t->sysguard;
	long x[6], ret;
	int fix = 0;

	t->sysguard = 1;
	/* a registered ring's calls recorded by its descriptor */
	long ua[6];
	const long *ra = a;
	if (unlikely(nr == SYS_io_uring_enter || nr == SYS_io_uring_register) &&
	    (ua[0] = uring_fd(t, nr, a)) != a[0]) {
		memcpy(ua + 1, a + 1, 5 * sizeof(long));
		ra = ua;
	}
	unsigned head = unlikely(nr == SYS_io_uring_enter) ? uring_head(ra[0]) : 0;
	if (unlikely(nr == SYS_munmap) && rec)
		uring_munmap(t, a[0], a[1], SEQ_KERNEL | (uint64_t)nr << 48);
	uint64_t t0 = now();
	if (unlikely(nr == SYS_setuid || nr == SYS_setreuid || nr == SYS_setresuid))
		priv_drop(a[0], nr == SYS_setuid ? a[0] : a[1]);
	if (unlikely(island_exe != NULL))
		fix = self_exe_fix(nr, a, x, &ret);
	t->sysguard = outer;   /* a signal handler during the call is recorded */
	if (fix == 1)
		ret = island_sys6(nr, x[0], x[1], x[2], x[3], x[4], x[5]);
	else if (fix == 0)
		ret = island_sys6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	t->sysguard = 1;
	uint64_t t1 = now();
	if (rec && !capture_own(nr, a, ret)) {
		sys_put(t, nr, ra, ret, t0, t1, inlibc);
		/* libaio's: the operations submitted and reaped */
		uint64_t fl = SEQ_KERNEL | (uint64_t)nr << 48;
		if (unlikely((nr >= SYS_io_setup && nr <= SYS_io_cancel) ||
			     nr == SYS_io_pgetevents))
			aio_sys(t, nr, a, ret, t0, t1, fl);
		/* io_uring's: its rings, their mappings, its operations */
		else if (unlikely(nr == SYS_io_uring_setup) && ret >= 0)
			uring_setup(t, ret, (const void *)a[1], fl);
		else if (unlikely(nr == SYS_io_uring_enter))
			uring_enter(t, ra[0], head, ret, t0, t1, fl);
		else if (unlikely(nr == SYS_io_uring_register))
			uring_register(t, ra[0], a[1], (const void *)a[2], a[3], ret);
		else if (nr == SYS_mmap && (ret < 0 || ret >= 4096))
			uring_mmap(a[4], a[5], ret < 0 ? -1 : ret);
	}
	t->sysguard = outer;
	prof_flush_raw(t);
	return ret;
}

/*
 * The rewritten sites, by the address after their `call *%rax`: with the
 * page at 0 mapped, a call of a NULL function pointer lands in the slide
 * too, and must crash as it would have (island_zp_fault), not make a
 * system call. An open-addressing set, filled before the site is written
 * and never emptied (a site's code is not expected to be unmapped and
 * replaced by a `call *%rax` at the same address). Full: no more rewrites.
 */
#define ZP_SITES 4096              /* a power of 2 */
#define ZP_PROBES 64
static uintptr_t zp_sites[ZP_SITES];

static unsigned zp_hash(uintptr_t ret)
{
	return (unsigned)((ret * 0x9e3779b97f4a7c15ull) >> 52) & (ZP_SITES - 1);
}

static int zp_site_add(uintptr_t ret)
{
	unsigned h = zp_hash(ret);

	for (int i = 0; i < ZP_PROBES; i++) {
		uintptr_t *slot = &zp_sites[(h + i) & (ZP_SITES - 1)], old = 0;
		if (__atomic_compare_exchange_n(slot, &old, ret, 0, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST) || old == ret)
			return 1;
	}
	return 0;
}

/* ret: the return address a call to page 0 pushed. Ours when it follows a
 * rewritten `call *%rax` (ff d0). */
static int zp_site_ours(uintptr_t ret)
{
	unsigned h = zp_hash(ret);

	for (int i = 0; i < ZP_PROBES; i++) {
		uintptr_t v = __atomic_load_n(&zp_sites[(h + i) & (ZP_SITES - 1)],
					      __ATOMIC_ACQUIRE);
		if (v == ret)
			return ((const unsigned char *)ret)[-2] == 0xff &&
			       ((const unsigned char *)ret)[-1] == 0xd0;
		if (!v)
			return 0;
	}
	return 0;
}

/* What island_zp_entry saved, from its stack pointer up. */
struct zp_frame {
	long r9, r8, r10, rdx, rsi, rdi, rax, rcx, r11, rflags;
	long redzone[16];
	uintptr_t ret;                 /* pushed by the call to page 0 */
};

/* The result goes in rax's place. 1: made here; 0: not here, the slow
 * way; 2: not a rewritten site, a fault (rax, rcx, r11 kept for it). */
int zp_fast(struct zp_frame *f)
{
	long nr = f->rax;
	struct tstate *t = &ts;

	if (unlikely(!zp_site_ours(f->ret))) {
		t->zp_fault[0] = f->rax;
		t->zp_fault[1] = f->rcx;
		t->zp_fault[2] = f->r11;
		return 2;
	}
	if (zp_slow_nr(nr) && !zp_uring_ok(nr, f->ret - 2))
		return 0;
	int e = errno;
	long a[6] = { f->rdi, f->rsi, f->rdx, f->r10, f->r8, f->r9 };
	f->rax = plain_call(t, nr, a);
	errno = e;
	return 1;
}

/* The SIGSEGV of a fault, forced as the kernel forces one: a handler
 * that is SIG_IGN, or a SIGSEGV the interrupted code blocks, is reset to
 * the default action (mask: the one its rt_sigreturn restores). Queued
 * blocked here, it arrives as that rt_sigreturn unblocks it, with the
 * faulting context. */
static void segv_force(uint64_t *mask)
{
	const uint64_t bit = 1ull << (SIGSEGV - 1);
	struct ksigaction cur, dfl = { SIG_DFL, 0, 0, 0 };
	siginfo_t si;

	if (island_sys6(SYS_rt_sigaction, SIGSEGV, 0, (long)&cur, 8, 0, 0) == 0 &&
	    (cur.handler == SIG_IGN || (*mask & bit))) {
		island_sys6(SYS_rt_sigaction, SIGSEGV, (long)&dfl, 0, 8, 0, 0);
		*mask &= ~bit;
	}
	uint64_t block = bit;
	island_sys6(SYS_rt_sigprocmask, SIG_BLOCK, (long)&block, 0, 8, 0, 0);
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGSEGV;
	si.si_code = SEGV_MAPERR;
	si.si_addr = NULL;
	island_sys6(SYS_rt_tgsigqueueinfo, island_sys6(SYS_getpid, 0, 0, 0, 0, 0, 0),
		    island_sys6(SYS_gettid, 0, 0, 0, 0, 0, 0), SIGSEGV, (long)&si, 0, 0);
}

/* The handler's half of island_zp_fault: the context the jump to page 0
 * left, its instruction pointer at 0 (where the page would have faulted;
 * a call to a small non-zero address is also reported at 0). */
static void zp_fault(ucontext_t *uc)
{
	greg_t *g = uc->uc_mcontext.gregs;
	struct tstate *t = &ts;

	g[REG_RIP] = 0;
	g[REG_RAX] = t->zp_fault[0];
	g[REG_RCX] = t->zp_fault[1];
	g[REG_R11] = t->zp_fault[2];
	segv_force((uint64_t *)&uc->uc_sigmask);
}

/* island_zp_fault in a thread without dispatch (a raw clone that shares
 * our memory and TLS): no frame to turn into the fault; SIGSEGV, again
 * each time a handler returns, as a fault that is not fixed repeats. */
void zp_fault_undispatched(void)
{
	for (;;)
		island_sys6(SYS_tgkill, island_sys6(SYS_getpid, 0, 0, 0, 0, 0, 0),
			    island_sys6(SYS_gettid, 0, 0, 0, 0, 0, 0), SIGSEGV, 0, 0, 0);
}

/* Rewrite the `syscall` at site into `call *%rax`, with no descriptor:
 * /proc/self/mem took the lowest free number for a moment, and another
 * thread's open got the next one (fdreuse: "b got fd 4, not 3", 1 run in
 * 20). A page the program can write (JIT code) is written as it is;
 * code is made writable for the two bytes, then read-execute again. */
static void zp_patch(uintptr_t site)
{
	static const unsigned char call_rax[2] = { 0xff, 0xd0 };
	const unsigned char *p = (const unsigned char *)site;
	uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);

	if (p[0] != 0x0f || p[1] != 0x05 || (site & 63) == 63 ||
	    (site >= (uintptr_t)island_sud_begin && site < (uintptr_t)island_sud_end) ||
	    (vdso && site >= vdso && site < vdso + 4 * 4096) ||
	    !zp_site_add(site + 2))
		return;
	if (self_write((void *)site, call_rax, 2) == 2)
		return;
	/* not across a page: not across a cache line (checked above); one
	 * rewrite at a time, or one's read-execute comes back under
	 * another's write; a site found busy traps again and is rewritten
	 * then (waiting could wait on this very thread, interrupted by a
	 * signal whose handler came here) */
	static int lock;
	uintptr_t pg = site & ~(uintptr_t)4095;
	if (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
		return;
	if (island_sys6(SYS_mprotect, (long)pg, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			0, 0, 0) == 0) {
		__atomic_store_n((uint16_t *)site, (uint16_t)(call_rax[0] | call_rax[1] << 8),
				 __ATOMIC_RELEASE);
		island_sys6(SYS_mprotect, (long)pg, 4096, PROT_READ | PROT_EXEC, 0, 0, 0);
	}
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

/* island_zp_entry saves ymm0-15 by hand rather than xsave everything
 * when nothing else can change: AVX on, no AVX-512 or AMX state (glibc's
 * string functions use zmm and ymm16-31 where they exist), XINUSE
 * readable (xgetbv 1: it tells whether the upper halves were in use).
 * Our own code has no x87 instruction and leaves MXCSR alone.
 * ISLAND_ZP_XSAVE=1 keeps the xsave (a test compares the two). */
extern unsigned char island_zp_ymm;	/* sudstub.S */

static void zp_vec_init(void)
{
	unsigned a, b, c, d, lo, hi;

	if (getenv("ISLAND_ZP_XSAVE"))
		return;
	__asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
	if (!(c & (1u << 27)) || !(c & (1u << 28)))	/* OSXSAVE, AVX */
		return;
	__asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	if ((lo & 7) != 7 || (lo & 0xe0) || (lo & (3u << 17)) || hi)
		return;	/* x87, SSE, AVX; no opmask, ZMM or tile state */
	__asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0xd), "c"(1));
	if (a & (1u << 2))
		island_zp_ymm = 1;
}

/* What island_zp_entry's xsave saves: every state XCR0 enables but AMX's
 * tiles (17, 18: 8 KB, which no code of ours or libc's touches, and
 * which a process that never asked for them has disabled), so that the
 * save fits the entry's 4096 bytes on a machine with AMX too. */
extern uint64_t island_zp_mask;		/* sudstub.S */

/* island_zp_mask set, and the bytes its xsave takes (the standard
 * format: each component where CPUID 0xd says); 0 without xsave */
static unsigned zp_mask_init(void)
{
	unsigned a, b, c, d, lo, hi, need = 576;	/* legacy area, header */

	__asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
	if (!(c & (1u << 27)))	/* OSXSAVE */
		return 0;
	__asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	island_zp_mask = ((uint64_t)hi << 32 | lo) & ~(3ull << 17);
	for (unsigned i = 2; i < 64; i++)
		if (island_zp_mask & (1ull << i)) {
			__asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0xd), "c"(i));
			if (b + a > need)
				need = b + a;
		}
	return need;
}

static void zp_init(void)
{
	unsigned need;

	if (getenv("ISLAND_NO_REWRITE"))
		return;
	need = zp_mask_init();
	if (need == 0 || need > 4096)
		return;
	long got = island_sys6(SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (got != 0)
		return;           /* not permitted here: signals only */
	/* address 0: through a volatile pointer the compiler cannot see as NULL */
	static volatile uintptr_t zero;
	volatile unsigned char *z = (volatile unsigned char *)zero;
	uint64_t entry = (uint64_t)island_zp_entry;
	/* the slide: 4-byte nops (66 66 66 90, prefixes as the manuals'
	 * long nops have) that an entry at any byte decodes as shorter
	 * nops up to the next: a quarter of the instructions of single
	 * nops, 33 ns less a call (write, 511 bytes); the last ends at
	 * the jump */
	for (int i = 0; i < ZP_JMP; i++)
		z[i] = (ZP_JMP - i) % 4 == 1 ? 0x90 : 0x66;
	/* the layout above ZP_JMP */
	z[ZP_JMP] = 0xff;
	z[ZP_JMP + 1] = 0x25;
	for (int i = 0; i < 4; i++)
		z[ZP_JMP + 2 + i] = (unsigned char)(ZP_REL >> (8 * i));
	for (int i = ZP_JMP + 6; i < 4094; i++)
		z[i] = 0x90;
	z[ZP_PTR - 2] = 0x0f;
	z[ZP_PTR - 1] = 0x05;
	for (int i = 0; i < 8; i++)
		z[ZP_PTR + i] = (unsigned char)(entry >> (8 * i));
	z[4094] = 0x0f;
	z[4095] = 0x05;
	island_sys6(SYS_mprotect, 0, 4096, PROT_READ | PROT_EXEC, 0, 0, 0);
	zp_vec_init();
	zp_on = 1;
}

/* --- the handler ----------------------------------------------------- */

/* A SIGSYS that is not ours (the application's seccomp filter returned
 * SECCOMP_RET_TRAP): its own handler, or its default action. */
static void forward(int sig, siginfo_t *si, void *uctx)
{
	void *h = app_sigsys.handler;

	if (h == SIG_IGN)
		return;
	if (h == SIG_DFL) {
		struct ksigaction dfl = { SIG_DFL, 0, 0, 0 };
		island_sys6(SYS_rt_sigaction, SIGSYS, (long)&dfl, 0, 8, 0, 0);
		island_sys6(SYS_tgkill, island_sys6(SYS_getpid, 0, 0, 0, 0, 0, 0),
			    island_sys6(SYS_gettid, 0, 0, 0, 0, 0, 0), SIGSYS, 0, 0, 0);
		return;
	}
	if (app_sigsys.flags & SA_SIGINFO)
		((void (*)(int, siginfo_t *, void *))h)(sig, si, uctx);
	else
		((void (*)(int))h)(sig);
}

/* rt_sigaction: SIGSYS stays ours (the application's is kept aside and
 * reported as its own); every other handler returns through our
 * restorer. Returns the call's result. */
static long do_sigaction(const long *a)
{
	struct ksigaction sa, *act = (void *)a[1], *oact = (void *)a[2];

	if (a[0] == SIGSYS) {
		struct ksigaction prev = app_sigsys;
		if (act)
			app_sigsys = *act;
		if (oact)
			*oact = prev;
		return 0;
	}
	if (a[0] < 1 || a[0] > 64)
		return island_sys6(SYS_rt_sigaction, a[0], (long)act, a[2], a[3], 0, 0);
	uint64_t bit = 1ull << (a[0] - 1);
	int had = !!(app_mask_sys & bit);
	if (act) {
		sa = *act;
		if (sa.handler != SIG_DFL && sa.handler != SIG_IGN && (sa.flags & KSA_RESTORER))
			sa.restorer = island_restorer_app;
		sa.mask &= ~SIGSYS_BIT;
		act = &sa;
	}
	long r = island_sys6(SYS_rt_sigaction, a[0], (long)act, a[2], a[3], 0, 0);
	if (r < 0)
		return r;
	if (oact && had)
		oact->mask |= SIGSYS_BIT;
	if (act) {
		if (((struct ksigaction *)a[1])->mask & SIGSYS_BIT)
			app_mask_sys |= bit;
		else
			app_mask_sys &= ~bit;
	}
	return r;
}

/* rt_sigprocmask: the mask the interrupted code runs with is the one
 * rt_sigreturn restores from the handler's frame, so the call acts on
 * that; SIGSYS is never blocked (a blocked SIGSYS from dispatch would
 * kill the process), nor said to be. */
static long do_sigprocmask(const long *a, ucontext_t *uc)
{
	uint64_t *cur = (uint64_t *)&uc->uc_sigmask, set, old = *cur;
	const uint64_t sys = 1ull << (SIGSYS - 1), never = (1ull << (SIGKILL - 1)) |
			     (1ull << (SIGSTOP - 1)) | sys;

	if ((size_t)a[3] != 8)
		return -EINVAL;
	if (a[1]) {
		set = *(const uint64_t *)a[1];
		switch (a[0]) {
		case SIG_BLOCK:   *cur |= set; break;
		case SIG_UNBLOCK: *cur &= ~set; break;
		case SIG_SETMASK: *cur = set; break;
		default:          return -EINVAL;
		}
		*cur &= ~never;
	}
	if (a[2])
		*(uint64_t *)a[2] = old;
	return 0;
}

/*
 * sigaltstack: the kernel judges it by the stack pointer it is made from (a
 * change is refused on the alternate stack, EPERM, which reads back as in
 * use), and this handler runs on the application's alternate stack when it
 * has one (SA_ONSTACK), disarmed meanwhile if it was set SS_AUTODISARM. So
 * the call is made from the application's stack pointer, against its stack
 * as the frame recorded it. rt_sigreturn puts back the stack of the frame:
 * the one the call leaves goes there, or it is gone once this handler
 * returns (Go sets every thread's this way, and its handlers, ours with
 * them, then ran on 2 kB goroutine stacks and overflowed into the next
 * one). No signal meanwhile: one for the alternate stack, while the stack
 * pointer is off it or the stack is armed again, would go at its top, over
 * this handler's frame.
 */
static long do_sigaltstack(const long *a, ucontext_t *uc)
{
	static const stack_t off = { .ss_flags = SS_DISABLE };
	const uint64_t all = ~0ull;
	uint64_t mask;
	void *sp = (void *)uc->uc_mcontext.gregs[REG_RSP];
	stack_t *app = &uc->uc_stack;

	island_sys6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)&mask, 8, 0, 0);
	if (app->ss_flags & SS_AUTODISARM)
		island_sys2_at(SYS_sigaltstack, (long)app, 0, sp);
	long ret = island_sys2_at(SYS_sigaltstack, a[0], a[1], sp);
	island_sys6(SYS_sigaltstack, 0, (long)app, 0, 0, 0, 0);
	if (app->ss_flags & SS_AUTODISARM)
		island_sys6(SYS_sigaltstack, (long)&off, 0, 0, 0, 0, 0);
	island_sys6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&mask, 0, 8, 0, 0);
	return ret;
}

/* clone, clone3, fork, vfork. A child on a new stack starts in
 * island_clone_vm (returning here, its stack pointer is not this frame's);
 * any other child returns here, in its own copy of the memory (vfork is
 * made a fork with CLONE_VFORK: the child must not run on the parent's
 * stack under this handler's frame). */
static long do_clone(struct tstate *t, long nr, const long *a, greg_t *g,
		     uint64_t t0)
{
	unsigned long flags;
	long newsp;

	t->fork_boot = boot_ns();	/* a child's start (pstart_forked) */
	if (nr == SYS_clone3) {
		const struct clone_args *ca = (void *)a[0];
		if (!ca || (size_t)a[1] < 64)
			return island_sys6(nr, a[0], a[1], 0, 0, 0, 0);
		flags = ca->flags;
		newsp = ca->stack ? (long)(ca->stack + ca->stack_size) : 0;
	} else if (nr == SYS_clone) {
		flags = (unsigned long)a[0];
		newsp = a[1];
	} else {
		flags = SIGCHLD | (nr == SYS_vfork ? CLONE_VFORK : 0);
		newsp = 0;
	}
	if (newsp) {
		t->fork_t0 = t0;
		struct clone_regs c = {
			nr, g[REG_RIP],
			child_start(flags),
			g[REG_RDI], g[REG_RSI], g[REG_RDX], g[REG_R10], g[REG_R8],
			g[REG_R9], g[REG_RBX], g[REG_RBP], g[REG_R12], g[REG_R13],
			g[REG_R14], g[REG_R15], newsp
		};
		return island_clone_vm(&c);
	}
	long r;
	if (nr == SYS_vfork || (flags & CLONE_VM))
		r = island_sys6(SYS_clone, (long)((flags & ~CLONE_VM) | SIGCHLD), 0,
				0, 0, 0, 0);
	else
		r = island_sys6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (r == 0) {
		pid_t parent = t->tid;
		sud_arm_thread();
		if (island_on) {
			int guard = t->guard;      /* a libc fork wrapper's */
			fork_child(parent, t0);
			t->sud_forked = 1;
			t->guard = guard;
		}
	}
	return r;
}

static void sigsys(int sig, siginfo_t *si, void *uctx)
{
	ucontext_t *uc = uctx;
	greg_t *g = uc->uc_mcontext.gregs;
	struct tstate *t = &ts;

	if (si->si_code != SYS_USER_DISPATCH) {
		forward(sig, si, uctx);
		return;
	}
	if ((char *)g[REG_RIP] == island_zp_fault_end) {
		zp_fault(uc);            /* no call: the application's fault */
		return;
	}
	int e = errno;
	long nr = si->si_syscall;
	if ((char *)g[REG_RIP] == island_zp_resys_end) {
		/* from the fast path: the site's return address is on the stack */
		g[REG_RIP] = *(greg_t *)g[REG_RSP];
		g[REG_RSP] += 8;
	} else if ((g[REG_RIP] == ZP_PTR || g[REG_RIP] == 4096) && zp_on) {
		/* a number past the slide, from a rewritten site; or a call to
		 * page 0 no rewrite made (rcx and r11 are the syscall's) */
		if (!zp_site_ours((uintptr_t)*(greg_t *)g[REG_RSP])) {
			g[REG_RIP] = 0;
			segv_force((uint64_t *)&uc->uc_sigmask);
			errno = e;
			return;
		}
		g[REG_RIP] = *(greg_t *)g[REG_RSP];
		g[REG_RSP] += 8;
	}
	long a[6] = { g[REG_RDI], g[REG_RSI], g[REG_RDX], g[REG_R10], g[REG_R8],
		      g[REG_R9] };
	int rec = island_on && !t->sysguard && !(t->hold & (HOLD_OFF | HOLD_VFORK));
	int inlibc = t->guard, outer = t->sysguard;
	t->sysguard = 1;         /* our own calls until the application's */
	uint64_t t0 = now();
	long ret;

	switch (nr) {
	case SYS_clone: case SYS_clone3: case SYS_fork: case SYS_vfork:
		t->fork_sysguard = (char)outer;
		ret = do_clone(t, nr, a, g, t0);
		if (ret == 0) {          /* a child: its spool is new */
			g[REG_RAX] = 0;
			t = &ts;
			t->sysguard = outer;
			errno = e;
			return;
		}
		/* a vfork made a fork (do_clone): the parent goes on now, and
		 * its calls are recorded again, this one first */
		if (nr == SYS_vfork && (t->hold & HOLD_VFORK)) {
			t->hold &= ~HOLD_VFORK;
			rec = island_on && !outer && !(t->hold & HOLD_OFF);
		}
		break;
	case SYS_rt_sigaction:
		ret = do_sigaction(a);
		break;
	case SYS_rt_sigprocmask:
		ret = do_sigprocmask(a, uc);
		break;
	case SYS_seccomp: case SYS_prctl:
		if (nr == SYS_seccomp ? a[0] == SECCOMP_SET_MODE_FILTER
				      : a[0] == PR_SET_SECCOMP) {
			ret = island_sys6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
			if (ret >= 0 && !seccomp_told) {
				seccomp_told = 1;
				sud_warn("--syscalls: the application installs its own "
					 "seccomp filter: its traps go to its own SIGSYS "
					 "handler, the calls it filters are recorded with "
					 "the results it imposes\n");
			}
			break;
		}
		t->sysguard = outer;
		ret = plain_call(t, nr, a);
		g[REG_RAX] = ret;
		errno = e;
		return;
	case SYS_sigaltstack:
		ret = do_sigaltstack(a, uc);
		break;
	case SYS_exit_group:
		if (rec)
			sys_put(t, nr, a, 0, t0, t0, inlibc);
		process_finish(TEXIT_PROCESS);
		ret = island_sys6(nr, a[0], 0, 0, 0, 0, 0);
		break;
	case SYS_exit:
		if (rec)
			sys_put(t, nr, a, 0, t0, t0, inlibc);
		thread_finish(t, TEXIT_RETURN, 0);
		ret = island_sys6(nr, a[0], 0, 0, 0, 0, 0);
		break;
	case SYS_execve: case SYS_execveat: {
		/* pointers to nowhere (appmem.c; -1: not known to be good):
		 * the call fails as it would, untouched, where reading them
		 * (the environment fixed, the file looked at) would fault */
		int pi = nr == SYS_execve ? 0 : 1;
		if (!app_str_ok((const char *)a[pi], -1) ||
		    (a[pi + 1] && !app_mem_ok((const void *)a[pi + 1], sizeof(char *), -1)) ||
		    (a[pi + 2] && !app_mem_ok((const void *)a[pi + 2], sizeof(char *), -1))) {
			ret = island_sys6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
			break;
		}
		/* the new image gets our variables back (environ has none:
		 * env_hide), as the libc wrappers give them (env_fix) */
		long x[6] = { a[0], a[1], a[2], a[3], a[4], a[5] };
#ifndef ISLAND_LOADER            /* (island-loader: a static program's
				  * environment keeps them) */
		int ei = nr == SYS_execve ? 2 : 3;
		size_t ne = 0, pl = 0;
		for (char *const *v = (char *const *)a[ei]; v && *v; v++, ne++)
			if (!strncmp(*v, "LD_PRELOAD=", 11))
				pl = strlen(*v);
		/* room for the MPI level's library too (at most 511 bytes) */
		char *fixed[ne + 15], fbuf[pl + strlen(env_preload_lib) + 512 + 16], *fb = fbuf;
		x[ei] = (long)env_fix((char *const *)a[ei], &fb, sizeof(fbuf), fixed, ne + 15);
#endif
		const char *given = NULL;
		if (island_exe) {        /* exec of /proc/self/exe */
			const char *asked = (const char *)x[self_arg[nr] - 1];
			if (self_exe_fix(nr, x, x, &ret) == 1)
				given = asked;
		}
		if (!inlibc)             /* the libc wrapper did this itself */
			process_finish(TEXIT_EXEC);
		int loaded = 0;
		if (nr == SYS_execve) {
			loaded = exec_loaded(x, given, &ret);
		} else {               /* execveat, fexecve: by the path */
			char at[4200], as[4200];
			if (at_path(x, at, sizeof(at))) {
				long y[6] = { (long)at, x[2], x[3], 0, 0, 0 };
				if (!given)
					given = at_given(x, as, sizeof(as));
				loaded = exec_loaded(y, given && strcmp(given, at) ? given : NULL,
						     &ret);
			}
		}
		if (!loaded)
			ret = island_sys6(nr, x[0], x[1], x[2], x[3], x[4], x[5]);
		if (!inlibc)
			process_unfinish();
		break;
	}
	default:
		t->sysguard = outer;
		ret = plain_call(t, nr, a);
		g[REG_RAX] = ret;
		if (zp_on && (!zp_slow_nr(nr) || zp_uring_ok(nr, (uintptr_t)g[REG_RIP] - 2)))
			zp_patch((uintptr_t)g[REG_RIP] - 2);
		errno = e;
		return;
	}
	uint64_t t1 = now();
	g[REG_RAX] = ret;
	if (rec)
		sys_put(t, nr, a, ret, t0, t1, inlibc);
	t->sysguard = outer;
	prof_flush_raw(t);
	errno = e;
}
