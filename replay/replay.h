/* island-replay: re-execute a trace (see docs/island-replay.md). One file
 * per step: load, check, prefiles, sandbox, run (timing, context), netio
 * and rfds, sync, mpirank and mpi, report. */
#ifndef ISLAND_REPLAY_H
#define ISLAND_REPLAY_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>

/* ---- the trace in memory ---------------------------------------------- */

enum op_kind { OP_COMPUTE, OP_IO, OP_WAIT, OP_SIGNAL };

/* Report families: what a call costs is summed per family. */
enum family { FAM_READ, FAM_WRITE, FAM_OPEN, FAM_SYNC, FAM_NET, FAM_OTHER, NFAM };
extern const char *const family_names[NFAM];

struct call;

/* One element of a thread, in trace order. Strings are owned by the trace
 * (interned: the same path is stored once). */
struct op {
	uint8_t kind;
	uint8_t res;		/* enum res */
	int8_t whence;
	uint8_t has_offset : 1, has_result : 1, has_amount : 1, failed : 1;
	uint8_t in_progress : 1;	/* connect: EINPROGRESS (non-blocking) */
	/* --syscalls (trace-format.md, level): a transfer seen by libc only,
	 * whose bytes its level="kernel" elements move (not issued, its bytes
	 * not counted); a libc call that was one system call, replayed as
	 * that call, not through the stream's buffer */
	uint8_t libc_only : 1, kernel : 1;
	uint8_t kfile : 1;	/* on the kernel's own files: /proc, /sys */
	/* --mpi: made inside an MPI call that is issued again (its
	 * messages are the MPI call's now): not issued itself */
	uint8_t in_mpi : 1;
	uint32_t line;		/* line in the trace file */
	uint32_t seq;		/* io: sequence within its node (1..; 0: not numbered); wait: seq */
	uint32_t vid;		/* io: 1..node->nall, for the dependency graph */
	int32_t node;		/* wait/signal: node index */
	int32_t fd, oldfd, fd2, infd;
	int32_t count;
	int64_t dur;		/* compute: dur; io: end - start */
	int64_t start;		/* io: start (ns, node relative) */
	int64_t amount, size, offset, result, req, timeout;
	int64_t child;
	int32_t target;		/* after replay_link: thread or process index */
	/* a wait on another thread of its process (load.c, replay_wakers):
	 * that thread's index + 1 (0: none), the op whose end preceded the
	 * wait's end, and how long before it */
	int32_t waker;
	uint32_t wake_op;
	int64_t wake_lag;
	/* the first poll of a busy wait (load.c, replay_busywaits): the
	 * index + 1 of its last poll (0: none), and of the receive after it */
	uint32_t busy_end, busy_recv;
	/* a poll for a child that found it running (load.c,
	 * replay_childpolls): the index + 1 of the wait that reaped it */
	uint32_t cpoll_end;
	const struct call *call;	/* NULL: not replayable, skipped */
	struct mpiop *mpi;	/* an MPI call --mpi issues again, or NULL */
	const char *path, *path2, *inpath, *peer, *flags;
	const char *cmd;	/* fcntl, ioctl, prctl: the command ("F_SETFD") */
	uint8_t proto;
	int32_t pipe;		/* which pipe of the node (trace-format.md), 0 */
};

/* An MPI call as --mpi issues it again (replay/mpi.c): what the MPI
 * level recorded (trace-format.md, level="mpi") */
enum mpikind { MK_SEND = 1, MK_ISEND, MK_RECV, MK_IRECV, MK_SENDRECV, MK_DONE,
	       MK_BARRIER, MK_BCAST, MK_REDUCE, MK_ALLREDUCE, MK_GATHER, MK_SCATTER,
	       MK_ALLGATHER, MK_ALLTOALL,
	       /* MPI-IO on a file of MPI_COMM_WORLD's */
	       MK_FOPEN, MK_FCLOSE, MK_FVIEW, MK_FSIZE, MK_FSYNC,
	       MK_FREAD, MK_FREAD_AT, MK_FREAD_ALL, MK_FREAD_AT_ALL, MK_FREAD_SHARED,
	       MK_FREAD_ORDERED, MK_FWRITE, MK_FWRITE_AT, MK_FWRITE_ALL, MK_FWRITE_AT_ALL,
	       MK_FWRITE_SHARED, MK_FWRITE_ORDERED, MK_FIREAD, MK_FIREAD_AT, MK_FIWRITE,
	       MK_FIWRITE_AT,
	       /* communicators: a duplicate, its end */
	       MK_COMMDUP, MK_COMMFREE };
#define MK_FILE(k) ((k) >= MK_FOPEN && (k) <= MK_FIWRITE_AT)
/* an MPI-IO open's mode, the library's MPI_MODE_* as the trace names them */
enum { AM_CREATE = 1, AM_RDONLY = 2, AM_WRONLY = 4, AM_RDWR = 8, AM_DELETE_ON_CLOSE = 16,
       AM_UNIQUE_OPEN = 32, AM_EXCL = 64, AM_APPEND = 128, AM_SEQUENTIAL = 256 };
struct mpiop {
	uint8_t kind;		/* enum mpikind */
	uint32_t comm;		/* its communicator (0: MPI_COMM_WORLD), as the
				   capture numbers them; a duplicate's new one */
	uint32_t newcomm;
	const char *path;	/* MPI-IO: the file, the open's mode, the
				   offset (a view's displacement, a size) */
	int amode;
	int64_t offset;
	int32_t rank, tag;	/* world ranks of the original run; -1 none (any) */
	uint32_t req;		/* the request made, numbered in its process */
	int64_t bytes;		/* sent, or received (an Irecv's: its completion's) */
	int32_t rsrc, rtag;	/* a Sendrecv's receive */
	int64_t rbytes;
	uint32_t *done;		/* the requests completed */
	size_t ndone;
};

enum res { RES_NONE, RES_FILEREAD, RES_FILEWRITE, RES_FILEMETA, RES_NETSEND,
	   RES_NETRECV, RES_NETMETA, RES_SLEEP, RES_WAIT, RES_PROC, RES_SYS };
enum proto { P_NONE, P_TCP, P_UDP, P_UNIX_STREAM, P_UNIX_DGRAM, P_PIPE, P_OTHER };

struct thread {
	long tid, creator;
	int64_t start, end;
	struct op *ops;
	size_t nops, cap;
	int proc;		/* index in node->procs */
	int started_by;		/* set by link: 1 when an op starts it */
	uint32_t line;
	int64_t cpu;		/* CPU time it used, -1 when unknown */
	int64_t computing;	/* sum of its compute phases */
	double spin;		/* share of each compute phase spun (load.c) */
};

struct process {
	long pid, ppid;
	int64_t start, end;
	const char *cwd;
	const char *status;	/* how it ended: exit:N, signal:SIGNAME, unknown */
	const char *exe;	/* the image it ran last (its last exec's) */
	const char *image;	/* the image it was first seen running */
	int *threads;		/* indexes in node->threads */
	size_t nthreads, cap;
	int parent;		/* index of the parent process, -1 if none */
	int started_by;
	uint32_t line;
	struct redir {		/* fdslots.c: slot begins as a copy of the parent's from */
		int32_t slot, from;
	} *redir;
	size_t nredir, rcap;
};

struct sock_sum {		/* <sockets><socket/> */
	const char *local, *peer;
	int dir;		/* 'i', 'o', 0 */
	uint8_t proto;
};

/* calls of a node the replay does not reissue (no handler), by api */
struct skipstat {
	const char *api;
	uint32_t n;
	uint8_t spent;		/* its original time is spent (metadata) */
};

struct node {
	const char *name;
	const char *host;	/* "" when unknown */
	int64_t epoch;		/* ns since 1970 */
	int64_t start, end;
	struct process *procs;
	size_t nprocs, pcap;
	struct thread *threads;
	size_t nthreads, tcap;
	struct sock_sum *socks;
	size_t nsocks, scap;
	uint32_t nios;		/* numbered I/O, = highest seq */
	uint32_t nall;		/* io elements */
	struct skipstat *skips;	/* load.c */
	size_t nskips, skcap;
	struct filesz {		/* <file size_at_end allocated_at_end> */
		const char *path;
		int64_t size, alloc;
	} *fsz;
	size_t nfsz, fszcap;
	uint8_t waited;		/* a WAIT names this node: its I/Os are published */
	int32_t mpi_rank;	/* its rank under mpirun (mpi_rank=), -1 none */
	uint32_t line;
	/* descriptor slots (fdslots.c): from slot_base on, the trace's fd
	 * of each slot given to a reused number */
	int64_t slot_base;
	int32_t *slot_tfd;
	size_t nslot_tfd, slot_tcap;
};

struct trace {
	const char *file;
	struct node *nodes;
	size_t nnodes, cap;
	int complete;
};

/* load.c: parse FILE (plain or .xml.gz); on any problem print
 * "FILE:LINE: what" and exit 2. */
struct trace *replay_load(const char *file);
/* Everything a loaded trace holds; what a load left when it died (die's
 * hook returned, the fuzz harness); the interned strings (no trace may
 * hold them any more) */
void replay_free(struct trace *t);
void replay_load_abandon(void);
void intern_free(void);
static inline int node_index(const struct trace *t, const char *name)
{
	for (size_t i = 0; i < t->nnodes; i++)
		if (!strcmp(t->nodes[i].name, name))
			return (int)i;
	return -1;
}

/* check.c: unknown nodes in WAITs, seq ranges, WAIT cycles. Returns 0, or
 * prints "FILE:LINE: ..." lines and returns -1. */
int replay_check(struct trace *t);
/* Links thread and process creation (pthread_create, fork, ...): sets
 * op->child to a thread or process index. Called by replay_check. */
void replay_link(struct trace *t);
/* fdslots.c: rewrites the fd fields of every op from the trace's numbers
 * to slots of the process's descriptor table, one per life of a number
 * that threads could confuse (after replay_link; called by replay_check). */
void replay_fdslots(struct trace *t);
/* The trace's fd of a slot (messages; stderr's stdio is unbuffered). */
static inline int slot_tfd(const struct node *n, int slot)
{
	if (slot < n->slot_base || (size_t)(slot - n->slot_base) >= n->nslot_tfd)
		return slot;
	return n->slot_tfd[slot - n->slot_base];
}

/* ---- the call table (rules.c) ------------------------------------------ */

struct rctx;
typedef int (*call_fn)(struct rctx *c, const struct op *o);

struct call {
	const char *api;
	call_fn fn;
	uint8_t family;
	uint8_t stdio;		/* STDIO_* */
};
/* A buffered stdio stream's call: STDIO_WRITE, STDIO_READ, STDIO_FLUSH,
 * else 0. */
enum { STDIO_NONE, STDIO_WRITE, STDIO_READ, STDIO_FLUSH };
static inline int call_stdio(const struct call *c)
{
	return c ? c->stdio : STDIO_NONE;
}

const struct call *call_lookup(const char *api, int res);
const struct call *call_on_event(const struct call *c);
/* A wait on a condition or barrier shared by the process's threads:
 * another thread of it ends the wait. */
int call_thread_wait(const struct call *c);
/* asynchronous operations (aio.c): the element waited for, its
 * submission's call, and the submission put at load */
int call_aio_wait(const struct call *c);
const struct call *call_aio_submit(void);
void aio_load(struct thread *th, const struct call *submit, const char *key, int32_t link);
/* the thread's queues torn down, as the program's were */
void aio_end(void);
/* poll, select, epoll_wait and their kin */
int call_poll(const struct call *c);
int call_waits_child(const struct call *c);
/* opens a file (open, openat, creat, fopen...); removes one (unlink...) */
int call_opens(const struct call *c);
int call_looks(const struct call *c);
int call_removes(const struct call *c);
/* starts a process (fork, posix_spawn...) */
int call_spawns(const struct call *c);
/* the report family an op is counted in: a socket read is network time
 * even when the call is read() */
static inline enum family op_family(const struct op *o)
{
	if (o->res == RES_NETSEND || o->res == RES_NETRECV || o->res == RES_NETMETA)
		return FAM_NET;
	if (o->call)
		return (enum family)o->call->family;
	switch (o->res) {
	case RES_FILEREAD: return FAM_READ;
	case RES_FILEWRITE: return FAM_WRITE;
	case RES_FILEMETA: return FAM_OPEN;
	default: return FAM_OTHER;
	}
}

/* ---- sandbox.c: every path of the trace lives under the root ------------ */

/* Lexically map a trace path (absolute, or relative to cwd) to a path
 * relative to the root; NULL when it cannot be mapped. Result in buf. */
char *sandbox_map(const char *path, const char *cwd, char *buf, size_t len);
/* Open the root directory (created when missing). */
int sandbox_open_root(const char *dir);
/* openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) below rootfd; -1/errno.
 * Refuses with EXDEV anything that would resolve outside. */
int sandbox_openat(int rootfd, const char *rel, int flags, int mode);
/* The directory holding rel (created with mkdir -p when mk), opened
 * O_PATH beneath root; base set to the last component. */
int sandbox_parent(int rootfd, const char *rel, int mk, const char **base);
/* Real devices that are safe to use as they are (/dev/null, /dev/zero). */
int sandbox_passthrough(const char *path);
int sandbox_supported(int rootfd);

/* ---- prefiles.c: dummy files the trace reads but did not create ------------ */

struct fileneed {
	const char *path;	/* trace path (absolute) */
	int64_t size;		/* bytes the replay must find there; -1: must not exist */
	int dir;		/* a directory */
	size_t len;		/* of path, the directory to make; 0: all */
	int64_t data;		/* of size, the bytes written (the rest a hole); -1: all */
};
/* What must exist before the replay of the selected nodes; unordered:
 * the replay keeps no causality (every file read exists beforehand). */
size_t files_needed(const struct trace *t, const int *sel, int unordered,
		    struct fileneed **out);
/* Create them under rootfd; returns the number created, -1 on error. */
int files_prepare(int rootfd, const struct fileneed *f, size_t n);
/* ... and write them down (syncfs), before the measured time */
int files_settle(int rootfd);

/* ---- options and run ---------------------------------------------------- */

enum mode { MODE_CAUSAL, MODE_THINK, MODE_TIMED, MODE_AFAP };
enum compute { COMP_SPIN, COMP_SLEEP, COMP_NONE };

struct opts {
	const char *root, *node, *report, *trace;
	int mode, compute, mpi, quiet, progress;
	int reuse_root;		/* replay over what the root holds */
	int repeat;		/* replays of the trace, each in a fresh ROOT/N */
	double speed;
	double stall;		/* seconds a call may run past its original time */
};
extern struct opts opt;

/* Per-node results, kept in shared memory while nodes run. Latencies
 * in buckets of an eighth of an octave (9 %): lat_bucket(ns). */
#define LAT_BUCKETS 320
static inline int lat_bucket(int64_t ns)
{
	if (ns < 8)
		return ns < 0 ? 0 : (int)ns;
	int oct = 63 - __builtin_clzll((unsigned long long)ns);
	int b = oct * 8 + (int)((ns >> (oct - 3)) & 7);
	return b < LAT_BUCKETS ? b : LAT_BUCKETS - 1;
}
struct famstat {
	uint64_t calls;
	int64_t orig_ns, repl_ns;
	int64_t orig_bytes, repl_bytes;	/* data moved (amount) */
	uint32_t lat_orig[LAT_BUCKETS], lat_repl[LAT_BUCKETS];
};
/* A call the replay failed where the original did not: by api and errno */
#define NFAILS 16
struct failstat {
	char api[24];
	int err;
	uint32_t n;
};
struct nodestat {
	int64_t orig_ns, repl_ns;	/* duration of the node */
	int64_t t0_ns, t1_ns;		/* replay start/end, CLOCK_MONOTONIC */
	uint64_t calls, skipped, failed, total;
	uint64_t unwritten;		/* bytes file writes could not put down */
	uint64_t deps;			/* WAITs that blocked; the replayer's own */
	int64_t dep_ns;			/* wake-up time past the peer's I/O, paid back */
	int werr;			/* the first one's errno and trace path */
	const char *wpath;		/* (interned before the fork: valid here) */
	int status;			/* 0 ok, else exit status */
	struct famstat fam[NFAM];
	struct failstat fails[NFAILS];	/* the first kinds; others in failed only */
};

/* sync.c: completion of each node's I/O (bitmap + count + futex). */
struct sync;
struct sync *sync_create(const struct trace *t);	/* MAP_SHARED */
void sync_done(struct sync *s, int node, uint32_t seq, int64_t when);
/* When node's I/O seq completed here (its sync_done's when; 0 unknown:
 * not yet, or on another host) */
int64_t sync_when(struct sync *s, int node, uint32_t seq);

/* Wait until node has completed seq: 0 at once, 1 after blocking, -1 when
 * stop is set. */
int sync_wait(struct sync *s, int node, uint32_t seq);
/* Threads of this process blocked in sync_wait. */
uint32_t sync_waiters(struct sync *s);
uint64_t sync_count(struct sync *s, int node);
void sync_stop(struct sync *s);
int sync_stopped(struct sync *s);
struct nodestat *sync_stats(struct sync *s, int node);
/* How each process of a node ended in the replay (enum pend, one byte per
 * process, in the order of the trace). */
enum pend { PE_NOTRUN, PE_ENDED, PE_SIGPIPE, PE_STOPPED };
uint8_t *sync_procs(struct sync *s, int node);
/* For the watchdogs: node has a thread that is not blocked in a call at
 * time t (monotonic); the latest such time of any node. */
void sync_alive(struct sync *s, int64_t t);
int64_t sync_last_alive(struct sync *s);
/* With --mpi, completions go out as messages (mpi.c sets these). */
extern void (*sync_remote_done)(int node, uint32_t seq);

/* netio.c: sockets. A per-node rendezvous listener lets replayed nodes meet
 * without knowing the original addresses. */
struct net;
struct net *net_create(const struct trace *t, const int *sel);
void net_set_addr(struct net *n, int node, const char *host, int port);
int net_port(struct net *n, int node);
int net_listen_port(struct net *n, int node, int *fd);
/* who connects to whom, before the nodes' start time is taken */
void net_init(struct trace *t, const int *sel);

/* run.c */
struct node_run {
	const struct trace *t;
	int node;
	int rootfd;
	struct sync *sync;
	struct net *net;
	int64_t t0_ns;		/* replay's time zero (monotonic) */
	int64_t offset_ns;	/* node start relative to the first node */
	const int *sel;		/* nodes replayed: WAITs on others are moot */
};
int run_node(struct node_run *r);

/* limit.c: --limit NODE:RESOURCE=RATE */
int limit_add(const char *spec);
const char *limit_check(const struct trace *t);
int64_t limit_hold(const char *node, int res, int64_t bytes);

/* sandbox.c: open (and make) the root directory */
int root_open(const char *name, int say);
/* Refuse a --root that is / or holds one of `keep` (the traces) or
 * Island's own files: the replay creates, truncates and removes files
 * under it. */
void root_check(const char *root, char *const *keep, int nkeep);

/* mpirank.c: --mpi, one node per rank */
int mpi_available(void);
int mpi_main(struct trace *t);
/* mpi.c: the ranks' communicator for the trace's MPI calls, made by
 * every rank once MPI is up, freed before MPI ends */
void mpi_calls_init(const struct trace *t, int me, int nnodes);
void mpi_calls_end(void);

/* report.c; also the selected nodes' earliest epoch, and the original
 * run's span (first node start to last node end, aligned by epoch) */
int64_t min_epoch(const struct trace *t, const int *sel);
int64_t original_span(const struct trace *t, const int *sel);
void report_print(const struct trace *t, const int *sel, struct sync *s,
		  int64_t orig_ns, int64_t repl_ns);
int report_save(const char *file, const struct trace *t, const int *sel,
		struct sync *s, int64_t orig_ns, int64_t repl_ns);
void progress_draw(const struct trace *t, const int *sel, struct sync *s,
		   int64_t t0, int final);

#endif
