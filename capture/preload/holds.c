/*
 * The causality engine's part in the interposer (issues 5, 17): publish
 * this thread's state (since when it made no progress) and the node's
 * tries (failed calls, repeated looks: polling) for the watchdog of other
 * nodes, number the node's I/Os, and, in the throttled node, hold each
 * call that may release another node until every other node is waiting
 * or exited, logging which nodes were waiting (they waited for that call).
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"

struct session *sess;
static struct sess_node *me;
static int me_idx;
static unsigned char kind[C_NCALLS];         /* REL_*, K_*: kinds_init() */
static void kinds_init(void);

#define IO_FILEREAD  1
#define IO_FILEWRITE 2       /* 2: may release another node */
#define IO_FILEMETA  1
#define IO_NETSEND   2
#define IO_NETRECV   1
#define IO_NETMETA   1
#define IO_SLEEP     0
#define IO_WAIT      0
#define IO_PROC      0
#define IO_SYS       0

/* The calls that are I/O for the causality engine (and replay). */
static const unsigned char is_io[C_NCALLS] = {
#define CALL(id, api, res, amount, effect) [C_##id] = IO_##res,
#include "trace/calls.def"
#undef CALL
};

/* An MPI rank (under mpirun): its runtime's connections are set aside */
static int mpi_rank;

void sess_init(const char *path, int idx)
{
	long fd = syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CLOEXEC);
	void *p;

	if (fd < 0 || idx < 0 || idx >= SESS_NODES)
		return;
	mpi_rank = getenv("OMPI_COMM_WORLD_RANK") != NULL;
	p = mmap(NULL, sizeof(struct session), PROT_READ | PROT_WRITE, MAP_SHARED,
		 (int)fd, 0);
	syscall(SYS_close, fd);
	if (p == MAP_FAILED || ((struct session *)p)->magic != SESS_MAGIC)
		return;
	sess = p;
	me = &sess->node[idx];
	me_idx = idx;
	kinds_init();
}

/* This thread's slot in the node's table, claimed when it starts. */
static struct sess_thread *slot(struct tstate *t)
{
	if (t->sslot)
		return &me->th[t->sslot - 1];
	for (int i = 0; i < SESS_THREADS; i++) {
		int32_t none = 0;
		if (__atomic_compare_exchange_n(&me->th[i].tid, &none, t->tid ? t->tid : 1,
						0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			me->th[i].pid = t->pid;
			me->th[i].since = mono_ns();
			t->sslot = i + 1;
			return &me->th[i];
		}
	}
	return NULL;
}

void sess_thread_start(struct tstate *t)
{
	if (sess)
		slot(t);
}

/* The thread ends: its slot is free again. */
void sess_thread_gone(struct tstate *t)
{
	if (!sess || !t->sslot)
		return;
	struct sess_thread *s = &me->th[t->sslot - 1];
	__atomic_store_n(&s->tid, 0, __ATOMIC_RELEASE);
	t->sslot = 0;
}

/* The process ends (or execs): all its threads' slots are freed. */
void sess_process_gone(void)
{
	pid_t pid = (pid_t)syscall(SYS_getpid);

	if (!sess)
		return;
	for (int i = 0; i < SESS_THREADS; i++)
		if (me->th[i].tid && me->th[i].pid == pid)
			__atomic_store_n(&me->th[i].tid, 0, __ATOMIC_RELEASE);
	ts.sslot = 0;
}

/*
 * What the engine needs to know of each call, one table (built from these
 * lists at sess_init) looked up once per call:
 * REL_*   may the call release another node (only those are held)
 * K_WAIT  it waits for another node, or for a child or thread of this one
 *         (whose own state is judged too): a thread in one for longer than
 *         WAIT_MIN_NS is waiting, not just passing through a call whose
 *         answer is there already
 * K_LOOK  it looks without changing anything: repeated, it is a poll
 * K_BOOK  no progress even when it succeeds (an attempt's socket and its
 *         close, descriptor bookkeeping, looks)
 * K_PROBE the access family: not numbered (programs poll readiness with
 *         it; the pseudo-apps do)
 * K_SLEEP a sleep: a look at what it waits for came before it
 */
enum {
	REL_NO, REL_YES,
	REL_CREATE,                  /* open: when creating or truncating */
	REL_IF,                      /* fclose, fflush: a stream with writes */
	REL_PEER,                    /* close: of a socket or pipe (the peer's
					end of file) */
	REL_MASK = 7,
	K_WAIT = 8, K_LOOK = 16, K_BOOK = 32, K_PROBE = 64, K_SLEEP = 128,
};
#define WAIT_MIN_NS 2000000
#define RUN_MORE_NS 100000000
#define START_GRACE_NS 1000000000

static const unsigned short rel_yes[] = {
	C_LISTEN, C_CONNECT, C_SHUTDOWN, C_MKDIR, C_MKDIRAT, C_UNLINK, C_UNLINKAT,
	C_RMDIR, C_RENAME, C_RENAMEAT, C_RENAMEAT2, C_REMOVE, C_LINK, C_LINKAT,
	C_SYMLINK, C_SYMLINKAT, C_TRUNCATE, C_FTRUNCATE, C_FALLOCATE,
	C_POSIX_FALLOCATE, C_CREAT,
};
static const unsigned short rel_create[] = { C_OPEN, C_OPENAT, C_FOPEN, C_FREOPEN };
static const unsigned short rel_if[] = { C_FCLOSE, C_FFLUSH };
static const unsigned short rel_peer[] = { C_CLOSE };
static const unsigned short rel_no[] = { C_FSYNC, C_FDATASYNC, C_VMSPLICE_IN, C_SYNC, C_SYNCFS,
	C_SYNC_FILE_RANGE };
static const unsigned short waits[] = {
	C_POLL, C_PPOLL, C_SELECT, C_PSELECT, C_EPOLL_WAIT, C_EPOLL_PWAIT, C_ACCEPT,
	C_RECV, C_RECVFROM, C_RECVMSG, C_RECVMMSG, C_WAITPID, C_WAIT4, C_WAITCALL,
	C_WAIT3, C_WAITID, C_PTHREAD_JOIN, C_COND_WAIT, C_COND_TIMEDWAIT,
	C_BARRIER_WAIT, C_SEM_WAIT, C_SEM_TIMEDWAIT,
};
static const unsigned short looks[] = {
	C_STAT, C_LSTAT, C_FSTATAT, C_STATX, C_ACCESS, C_FACCESSAT, C_EUIDACCESS,
	C_EACCESS, C_READLINK, C_READLINKAT,
};
static const unsigned short books[] = {
	C_SOCKET, C_CLOSE, C_CLOSE_RANGE, C_DUP, C_DUP2, C_DUP3, C_FCNTL, C_LSEEK,
	C_FSTAT, C_OPENDIR, C_FDOPENDIR, C_CLOSEDIR, C_CHDIR, C_FCHDIR, C_FTELL,
	C_FTELLO, C_FGETPOS, C_IOCTL, C_PRCTL,
};
static const unsigned short probes[] = { C_ACCESS, C_FACCESSAT, C_EUIDACCESS, C_EACCESS };
static const unsigned short sleeps[] = { C_SLEEP, C_USLEEP, C_NANOSLEEP, C_CLOCK_NANOSLEEP };

#define N(a) (sizeof(a) / sizeof((a)[0]))
static void kinds_init(void)
{
	static const struct { const unsigned short *c; size_t n; unsigned char set, clear; } t[] = {
		{ rel_yes, N(rel_yes), REL_YES, REL_MASK },
		{ rel_create, N(rel_create), REL_CREATE, REL_MASK },
		{ rel_if, N(rel_if), REL_IF, REL_MASK },
		{ rel_peer, N(rel_peer), REL_PEER, REL_MASK },
		{ rel_no, N(rel_no), REL_NO, REL_MASK },
		{ waits, N(waits), K_WAIT, 0 },
		{ looks, N(looks), K_LOOK | K_BOOK, 0 },
		{ books, N(books), K_BOOK, 0 },
		{ probes, N(probes), K_PROBE, 0 },
		{ sleeps, N(sleeps), K_SLEEP, 0 },
	};

	/* writes and sends release by their class */
	for (int c = 0; c < C_NCALLS; c++)
		kind[c] = is_io[c] == 2 ? REL_YES : REL_NO;
	for (size_t i = 0; i < N(t); i++)
		for (size_t k = 0; k < t[i].n; k++)
			kind[t[i].c[k]] = (unsigned char)((kind[t[i].c[k]] & ~t[i].clear) | t[i].set);
}
#undef N

/* What identifies a try: the call, its error, and what it named (the
 * path, the peer; the fd otherwise) but not what varies between tries
 * (the local port of a connect). */
static uint64_t try_sig(const struct rec *r)
{
	uint64_t h = 1469598103934665603ull;
	const unsigned char *p = NULL;
	size_t n = 0;

#define MIX(v) (h = (h ^ (uint64_t)(v)) * 1099511628211ull)
	MIX(r->call);
	MIX(r->err);
	if (r->len > sizeof(*r)) {
		p = (const unsigned char *)(r + 1);
		n = r->len - sizeof(*r);
		if (r->call == C_CONNECT && n >= sizeof(struct sockinfo)) {
			const struct sockinfo *si = (const void *)p;
			p = (const unsigned char *)&si->peer;
			n = si->plen <= sizeof(si->peer) ? si->plen : sizeof(si->peer);
		}
	} else {
		MIX(r->fd);
	}
	for (size_t i = 0; i < n && i < 256 && !(r->call != C_CONNECT && !p[i]); i++)
		MIX(p[i]);
#undef MIX
	return h;
}

/* A failed call, or a look: a retry when the node tried the same before. */
static void note_try(const struct rec *r, int64_t now_ns)
{
	uint64_t sig = try_sig(r);

	for (int i = 0; i < SESS_SIGS; i++)
		if (me->sig[i] == sig) {
			me->retry_at = now_ns;
			return;
		}
	me->sig[__atomic_fetch_add(&me->sig_pos, 1, __ATOMIC_RELAXED) % SESS_SIGS] = sig;
}

/* A poll, select or epoll_wait that found nothing, or a sleep: a thread
 * that makes only these for SPIN_MIN_NS, and made one within the last
 * SPIN_RECENT_NS, is waiting (Open MPI's MPI_Recv polls with a zero
 * time-out in a loop, its MPI_Init sleeps 100 us at a time: no call
 * blocks, the thread looks busy). A single long sleep is not a streak. */
#define SPIN_MIN_NS    2000000
#define SPIN_RECENT_NS 10000000
static int is_empty_look(const struct rec *r)
{
	switch (r->call) {
	case C_POLL: case C_PPOLL: case C_SELECT: case C_PSELECT:
	case C_EPOLL_WAIT: case C_EPOLL_PWAIT:
		return r->ret == 0 ? 1 : -1;
	}
	return (kind[r->call] & K_SLEEP) != 0;
}

static void note_spin(struct tstate *t, const struct rec *r)
{
	int k = is_empty_look(r);
	struct sess_thread *s = k ? slot(t) : NULL;

	if (!s)
		return;
	if (k < 0) {                 /* it found something: no streak */
		s->spin_from = 0;
		return;
	}
	/* a sleep's look was before it began: the loop looked at what it
	 * waits for and went to sleep. At its end it has not looked yet,
	 * and a hold that took that end for a look after every node went
	 * quiet logged a wait on itself that the look then found over (a
	 * node of 8 polling shared memory at 0.5 ms, 1 run in 100) */
	int64_t now_ns = mono_ns(), at = now_ns;
	if ((kind[r->call] & K_SLEEP) && t->sleep_at)
		at = t->sleep_at;
	t->sleep_at = 0;
	if (!s->spin_from || s->spin_at < s->since)
		s->spin_from = at;
	s->spin_at = at;
}

/* The kernel's word on a thread that has been in a waiting call long
 * enough: asleep in it (1), or woken and not yet run (0: a connection
 * made just before the hold, on a machine too busy to schedule the
 * server at once, would otherwise be taken for a wait on us). 1 when it
 * cannot tell (a node of another host, a thread gone). Reading it takes
 * a descriptor for a few microseconds, in the held thread of a throttled
 * pass: asked once per waiting call and hold (asleep_at), so that a
 * thread of the held process opening a file in that instant is unlikely
 * to get another number than it would have. Not once per waiting call:
 * the call we released last may have woken the thread, still in the call
 * it was found asleep in, and on a loaded machine not yet run (redis-cli's
 * connect woke redis-server's epoll_wait, which ran 30 ms later: the
 * connect's second call and the request's send were each released after
 * 2 ms on the first answer, and the request's read was found waiting for
 * none of them). */
static int64_t asleep_at[SESS_NODES][SESS_THREADS];  /* wait_since found asleep */
static int64_t asleep_in[SESS_NODES][SESS_THREADS];  /* in the hold begun then */

/* The kernel's state letter of thread i of node x ('R' running or
 * runnable, 'S' asleep...), 0 when it cannot be read */
static char task_state(const struct sess_node *x, int i)
{
	char path[64] = "/proc/", buf[512], *p;

	p = utoa(path + 6, (unsigned long)x->th[i].pid);
	memcpy(p, "/task/", 6);
	p = utoa(p + 6, (unsigned long)x->th[i].tid);
	memcpy(p, "/stat", 6);
	int e = errno, fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno = e, 0;
	long n = syscall(SYS_read, fd, buf, sizeof(buf) - 1);
	syscall(SYS_close, fd);
	errno = e;
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* "tid (comm) S ...": comm may hold spaces and parentheses */
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* The kernel says thread i of node x is running or runnable ('R'):
 * computing, not waiting (0 when it cannot tell: another host's). */
static int running(const struct sess_node *x, int i)
{
	return !x->remote && task_state(x, i) == 'R';
}

/* ... asleep (not running; also when it cannot tell), kept per wait and
 * hold so that a thread is read once */
static int asleep(const struct sess_node *x, int i, int64_t held)
{
	size_t xi = (size_t)(x - sess->node);
	int64_t w = x->th[i].wait_since;

	if (x->remote || (xi < SESS_NODES && asleep_at[xi][i] == w && asleep_in[xi][i] == held))
		return 1;
	if (task_state(x, i) == 'R')
		return 0;
	if (xi < SESS_NODES) {
		asleep_at[xi][i] = w;
		asleep_in[xi][i] = held;
	}
	return 1;
}

/* every live thread of x in a wait call, asleep in it */
static int all_asleep(const struct sess_node *x, int64_t now_ns, int64_t held)
{
	int live = 0;

	if (x->remote)
		return 0;
	for (int i = 0; i < SESS_THREADS; i++) {
		if (!__atomic_load_n(&x->th[i].tid, __ATOMIC_ACQUIRE))
			continue;
		live++;
		int64_t w = x->th[i].wait_since;
		if (!w || now_ns - (w > held ? w : held) <= WAIT_MIN_NS || !asleep(x, i, held))
			return 0;
	}
	return live > 0;
}

/* Is node x waiting, at now_ns, for the hold that began at `held`?
 * 1: yes; 3: yes, polling or spinning (its last look then in *look); 2: it has not started within START_GRACE_NS
 * (or its maximum gap), and so waits for nothing of ours (no dependency is
 * logged); 0: no.
 * - polling: it tried again (a failed call it had made before, or the
 *   same look) after the hold began and has made no progress since;
 * - idle: every live thread is in a call that waits for others (for more
 *   than WAIT_MIN_NS), or has completed no I/O within the node's maximum
 *   gap, counted from the hold's start at the earliest (our last I/O may
 *   just have released it, which must be given the time to show it). */
static int node_blocked(const struct sess_node *x, int64_t now_ns, int64_t held,
			int64_t *look)
{
	int live = 0;
	int64_t retry = x->retry_at;

	*look = 0;

	/* a node of another host is judged on a state its agent sampled
	 * once it had heard of this hold, at that sample, on how long it had
	 * been idle since it heard of it: relayed through the coordinator, a
	 * state may come late (50 ms on a loaded machine: its I/O count
	 * from before the accept our last call had released, which was then
	 * logged as waiting for this one). An agent that does not say
	 * (UINT32_MAX) is judged on its state as it comes. */
	if (x->remote) {
		uint32_t seen = __atomic_load_n(&x->seen_holds, __ATOMIC_ACQUIRE);
		if (seen != UINT32_MAX) {
			if (seen < __atomic_load_n(&me->holds, __ATOMIC_RELAXED))
				return 0;
			now_ns = x->sampled_at;
			if (x->heard_at > held)
				held = x->heard_at;
		}
	}
	/* a poller asleep in its poll (every thread blocked in a wait call)
	 * waits: what it polls for would have woken it. redis-server's event
	 * loop looks every 100 ms (hz 10), and the client's every connect was
	 * held until the next look */
	if (retry > held && retry >= x->progress_at && !all_asleep(x, now_ns, held)) {
		*look = retry;
		return 3;
	}
	/* a node of our group held by us until lately is idle since its
	 * release at most: found between its release and its call's count,
	 * it was taken for one waiting since our hold began */
	int64_t from = held, rel = __atomic_load_n(&x->released_at, __ATOMIC_ACQUIRE);
	if (!x->remote && rel > from)
		from = rel;
	int idle = 0;
	for (int i = 0; i < SESS_THREADS; i++) {
		if (!__atomic_load_n(&x->th[i].tid, __ATOMIC_ACQUIRE))
			continue;
		live++;
		int64_t since = x->th[i].since, w = x->th[i].wait_since;
		if (w && now_ns - (w > from ? w : from) > WAIT_MIN_NS &&
		    asleep(x, i, held))
			continue;
		int64_t sf = x->th[i].spin_from, sa = x->th[i].spin_at;
		if (sf && sa >= since && now_ns - sa <= SPIN_RECENT_NS &&
		    sa - (sf > from ? sf : from) > SPIN_MIN_NS) {
			if (sa > *look)
				*look = sa;
			continue;            /* spinning since the hold began */
		}
		int64_t quiet = now_ns - (since > from ? since : from);
		if (quiet <= x->max_gap)
			return 0;
		/* no I/O for its maximum gap, but the kernel has it running:
		 * computing, slowed by a busy machine (a 5 ms phase took 50,
		 * and the node waited for was taken for a waiting one); for 3
		 * gaps more, 100 ms at most, past which a thread running is
		 * one spinning on memory (Open MPI's shared memory): waiting */
		int64_t more = 3 * x->max_gap < RUN_MORE_NS ? 3 * x->max_gap : RUN_MORE_NS;
		if (quiet <= x->max_gap + more && running(x, i))
			return 0;
		idle++;
	}
	/* idle, but no I/O yet: still starting (a loaded machine loads a
	 * program slowly), so it waits for nothing of ours (not logged: it
	 * was taken for waiting on the listen it would try next); waited for
	 * no longer than an idle node (its maximum gap: holding until its
	 * first I/O cost the start-up's second, per hold, to ranks that
	 * start late by design) */
	if (live && (idle < live || __atomic_load_n(&x->io_seq, __ATOMIC_ACQUIRE)))
		return *look ? 3 : 1;
	if (live)
		return 2;
	/* not started (or between exec and its new image): it waits for
	 * nothing of ours, once it has had the time to show up (its gap, and
	 * a second at least: a loaded machine starts processes slowly, and a
	 * node that starts during the hold may well wait for the held call) */
	return now_ns - held > (x->max_gap > START_GRACE_NS ? x->max_gap : START_GRACE_NS) ? 2 : 0;
}

/* The node's capture is gone (killed): count the node as exited. */
static int node_gone(const struct sess_node *x)
{
	return x->state == SN_EXITED || x->state == SN_FREE ||
	       (x->capture_pid > 0 && kill(x->capture_pid, 0) < 0 && errno == ESRCH);
}

/* Hold until every other node is waiting or exited (or the timeout), and
 * log the nodes found waiting, under the number the held call will have:
 * reserved now, since a node that waited may be done and read the log
 * before the call even returns. */
static void hold(struct tstate *t, int call)
{
	int e = errno;
	int64_t start = mono_ns(), deadline = start + me->hold_timeout;
	uint64_t blocked = 0, nodep = 0, group = 1ull << me_idx, xseq[SESS_NODES];
	uint64_t polled = 0;
	int64_t quiet = 0;           /* since when every other node has waited */
	int64_t look[SESS_NODES];

	__atomic_add_fetch(&me->holds, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&me->holding, 1, __ATOMIC_ACQ_REL);
	me->hold_after = me->io_seq;
	me->hold_call = call;
	__atomic_store_n(&me->hold_start, start, __ATOMIC_RELEASE);
	if (me->delay > 0)
		nap_ns(me->delay);
	uint64_t moved_before = 0;
	for (;;) {
		int all = 1, known = 0;
		int64_t now_ns = mono_ns();
		uint64_t moved = 0;          /* the I/O count of the others that
						do not poll */
		for (int i = 0; i < SESS_NODES; i++) {
			struct sess_node *x = &sess->node[i];
			known += x->state != SN_FREE;
			if (i == me_idx || x->state == SN_FREE)
				continue;
			uint64_t seq_now = __atomic_load_n(&x->io_seq, __ATOMIC_ACQUIRE);
			/* another node of a throttled group, holding too: it
			 * waits for nothing of ours, and is held by us; who
			 * waits during our hold may wait for it as well, so
			 * it is logged with us (group) */
			if (x->throttled && __atomic_load_n(&x->holding, __ATOMIC_ACQUIRE) > 0 &&
			    !node_gone(x)) {
				group |= 1ull << i;
				blocked &= ~(1ull << i);
				continue;
			}
			int b = node_gone(x) ? 0 : node_blocked(x, now_ns, start, &look[i]);
			/* it completed an I/O while we looked: it moved */
			if (b && b != 3 && __atomic_load_n(&x->io_seq, __ATOMIC_ACQUIRE) != seq_now)
				b = 0;
			/* a poller's own tries are I/O too: they move nothing */
			if (b != 3)
				moved += seq_now;
			if (b) {
				if (!(blocked & (1ull << i)))
					xseq[i] = __atomic_load_n(&x->io_seq,
								  __ATOMIC_ACQUIRE) + 1;
				blocked |= 1ull << i;
				if (b == 2)
					nodep |= 1ull << i;
				else
					nodep &= ~(1ull << i);
				if (b == 3)
					polled |= 1ull << i;
				else
					polled &= ~(1ull << i);
				continue;
			}
			blocked &= ~(1ull << i);
			if (!node_gone(x))
				all = 0;
		}
		/* a node not yet in the session would be overlooked: hold until
		 * as many as expected are known (a late one, or a remote one
		 * whose first state has not arrived yet) */
		if (known < me->expect_nodes)
			all = 0;
		/* a node that polls (or sleeps between looks) waits for us only
		 * if it looked again once everyone was waiting and no node made
		 * I/O: before, what it polls for may have come from one that
		 * moved meanwhile */
		if (!all)
			quiet = 0;
		else if (!quiet || moved != moved_before)
			quiet = now_ns;  /* and again once any node made I/O */
		moved_before = moved;
		for (int i = 0; all && i < SESS_NODES; i++) {
			struct sess_node *x = &sess->node[i];
			if ((polled & (1ull << i)) && look[i] <= quiet &&
			    now_ns - quiet <= (x->max_gap > WAIT_MIN_NS ? x->max_gap : WAIT_MIN_NS))
				all = 0;
		}
		if (all)
			break;
		if (now_ns > deadline) {
			__atomic_add_fetch(&me->hold_timeouts, 1, __ATOMIC_RELAXED);
			break;
		}
		nap_ns(200000);
	}
	int64_t released = mono_ns();
	__atomic_store_n(&me->hold_start, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&me->released_at, released, __ATOMIC_RELEASE);
	__atomic_sub_fetch(&me->holding, 1, __ATOMIC_ACQ_REL);
	blocked &= ~nodep;
	if (!t->held_seq)
		t->held_seq = __atomic_add_fetch(&me->io_seq, 1, __ATOMIC_ACQ_REL);
	for (int i = 0; i < SESS_NODES; i++) {
		if (!(blocked & (1ull << i)))
			continue;
		uint32_t k = __atomic_fetch_add(&sess->ndeps, 1, __ATOMIC_ACQ_REL);
		if (k >= SESS_DEPS) {
			__atomic_add_fetch(&sess->deps_lost, 1, __ATOMIC_RELAXED);
			continue;
		}
		sess->deps[k] = (struct sess_dep){ me_idx, i, t->held_seq, xseq[i], group,
						    released };
	}
	errno = e;
}

/* Every period-th call that may release another node is held. */
static void hold_if_due(struct tstate *t, int call)
{
	static uint32_t due;

	if (__atomic_add_fetch(&due, 1, __ATOMIC_RELAXED) % (uint32_t)me->period == 0)
		hold(t, call);
}

/* The type of fd (S_IFMT bits, 0 for an anonymous inode), -1 if none. */
static int fd_type(int fd, int *runner_out)
{
	struct stat st;
	int e = errno, type = fd >= 0 && syscall(SYS_fstat, fd, &st) == 0 ?
			      (int)(st.st_mode & S_IFMT) : -1;

	*runner_out = 0;
	for (uint32_t k = 0; type >= 0 && k < sess->nouts && k < 2; k++)
		if (sess->outs[k].dev == (uint64_t)st.st_dev && sess->outs[k].ino == (uint64_t)st.st_ino)
			*runner_out = 1;
	errno = e;
	return type;
}

void sess_before(struct tstate *t, int call, int64_t a1, int fd)
{
	if (!me || call >= C_NCALLS)
		return;
	if (kind[call] & K_WAIT) {
		struct sess_thread *s = slot(t);
		if (s)
			s->wait_since = mono_ns();
		return;
	}
	if (kind[call] & K_SLEEP) {
		t->sleep_at = mono_ns();
		return;
	}
	int rel = kind[call] & REL_MASK;
	if (!me->throttled || rel == REL_NO || (rel == REL_CREATE && !(a1 & (O_CREAT | O_TRUNC))) ||
	    (rel == REL_IF && !a1))
		return;
	/* an MPI rank's connections come and go as its runtime decides, and
	 * the merge sets their making and closing aside (poll="runtime"):
	 * holding them found nothing and cost 2 ms each, 243 of a token
	 * ring's 339 holds; its messages are held */
	if (mpi_rank && (call == C_CONNECT || call == C_SHUTDOWN || rel == REL_PEER))
		return;
	/* what the descriptor is decides: a close releases a peer only for a
	 * socket or a pipe; what is written to an anonymous inode (eventfd,
	 * timerfd: Open MPI's progress engine wakes its own threads so, dozens
	 * of times in MPI_Init) stays in the process, and what goes to a
	 * character device (a log to /dev/null, a terminal) or to the
	 * runner's own output, which the nodes inherit, reaches no node:
	 * redis-server's start-up log lines were held 56 ms each, its
	 * listen came up to 280 ms late and its client's pings failed on */
	if (rel == REL_PEER || (fd >= 0 && is_io[call] == 2)) {
		int out, type = fd_type(fd, &out);
		if (rel == REL_PEER ? type != S_IFSOCK && type != S_IFIFO :
				      type == 0 || type == S_IFCHR || out)
			return;
	}
	hold_if_due(t, call);
}

/* After a record: the thread is out of its call; number the record if it
 * is I/O (a held call with the number its hold reserved), and note the
 * node's tries and progress. */
void sess_record(struct tstate *t, struct rec *r)
{
	if (t->sslot)
		me->th[t->sslot - 1].wait_since = 0;
	if (r->call >= C_NCALLS)
		return;
	if (!is_io[r->call]) {
		note_spin(t, r);
		return;
	}
	int64_t now_ns = mono_ns();
	/* a non-blocking connect under way has not failed */
	int failed = r->err != 0 && r->err != EINPROGRESS;

	if (failed || (kind[r->call] & K_LOOK))
		note_try(r, now_ns);
	if (kind[r->call] & K_PROBE)
		return;
	/* the progress before the count: a watchdog that reads the count
	 * and then the progress sees this call's */
	struct sess_thread *s = slot(t);
	if (!failed) {
		if (s)
			s->since = now_ns;
		if (!(kind[r->call] & K_BOOK))
			me->progress_at = now_ns;
	}
	/* a held call has its number already */
	uint64_t k = t->held_seq ? t->held_seq : __atomic_add_fetch(&me->io_seq, 1,
								     __ATOMIC_ACQ_REL);
	t->held_seq = 0;
	r->seq = k;
}
