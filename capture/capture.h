/* island-capture: the run, the spool reader, the resolver and the writer. */
#ifndef ISLAND_CAPTURE_H
#define ISLAND_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "spool.h"
#include "capture/run/run.h"
#include "util.h"

struct netcap_opts;

/* A stretch of the clock's map: from tick tsc on, ns + (t - tsc) times
 * whole + frac / 2^64 (clock_ns in integers: the long double's
 * conversion changed the x87 rounding mode twice a time, a tenth of
 * writing a trace) */
struct clockseg {
	uint64_t tsc;
	int64_t ns;
	uint64_t whole, frac;
};

#define CLOCK_SEGS 64

/* Clock calibration: maps spool clock units to ns since the node's start.
 * One slope from the start to the end, unless the times are written while
 * the application runs (streaming): then each clock_fix starts a stretch
 * at its reading, with the slope from the start to there, and what is
 * before it keeps the map it was written with. */
struct clockmap {
	int kind;                    /* enum spool_clock */
	uint64_t tsc0, tsc1;         /* cycle counter at start and end */
	int64_t mono0, mono1;        /* CLOCK_MONOTONIC ns at start and end */
	int64_t real0;               /* CLOCK_REALTIME ns at start */
	struct clockseg cur;         /* every tick from cur.tsc on */
	int nseg;                    /* the stretches before cur, in order */
	struct clockseg seg[CLOCK_SEGS];
	int fixed;                   /* clock_fix: the map is kept */
};

void clock_start(struct clockmap *c, int kind);
/* Now, in the units the interposer stamps records with */
uint64_t clock_raw(const struct clockmap *c);
/* Times are written while the application runs (streaming): the map up
 * to now kept, from now on the slope from the start to now (clock_end
 * keeps it) */
void clock_fix(struct clockmap *c);
/* 1 when clock_fix would be worth calling: never called, or the time
 * since the start has doubled since the last call */
int clock_due(const struct clockmap *c);
int64_t host_real_ns(void);
void clock_end(struct clockmap *c);
/* The map from tick tsc at monotonic mono, 1 ns a tick until a rate is
 * known (clock_fix, clock_end) */
void clock_origin(struct clockmap *c, int kind, uint64_t tsc, int64_t mono);
/* cur's slope: r ns a tick, in integers */
void clock_rate(struct clockmap *c, long double r);
int64_t clock_ns_before(const struct clockmap *c, uint64_t t);

static inline uint64_t clockseg_ns(const struct clockseg *s, uint64_t u)
{
	return u * s->whole + (uint64_t)(((unsigned __int128)u * s->frac) >> 64);
}

/* ticks t in ns from the start, truncated toward zero */
static inline int64_t clock_ns(const struct clockmap *c, uint64_t t)
{
	if (c->kind == CLOCK_KIND_TSC) {
		if ((int64_t)(t - c->cur.tsc) >= 0)	/* signed: a tick before the start */
			return c->cur.ns + (int64_t)clockseg_ns(&c->cur, t - c->cur.tsc);
		return clock_ns_before(c, t);
	}
	return (int64_t)t - c->mono0;
}

/* One spool file mapped in memory. */
/* Streaming: an image's header, as read while the app runs, and when
 * (clock_raw before the read); h of its segments */
struct hdr_copy {
	struct spool_hdr h;
	uint64_t read_at;
};

struct spool {
	struct spool_hdr *h;
	char *map;
	size_t size;
	char *recs, *end;            /* complete records */
	char *buf;                   /* records expanded from short ones */
	char *name;
	int seg;                     /* spool_poll: its image's segment number
					(0 owns h, shared by the others) */
	bool held;                   /* spool_poll: the thread's last record,
					not taken yet, starts at held_t0 */
	uint64_t held_t0;
	bool damaged;                /* a record not sane: the rest of its
					chunk skipped (the process's trace
					then says it is incomplete) */
};

struct thr {
	pid_t tid;
	struct spool **sp;           /* by generation */
	int nsp;
	/* derived */
	int64_t start, end, cpu;     /* ns; cpu -1 unknown */
	int exit;                    /* enum thread_exit of the last generation */
	int status;                  /* its exit or _exit call's status + 1, 0 none */
	uint64_t nested;             /* calls made inside recorded ones, lost */
	int complete;
	char name[17];
	pid_t creator;
	uint64_t lost;
	int created_matched;         /* already named by a pthread_create */
	/* what the resolver's pass over every record saw, so that the
	 * passes after it need not read them all again (64 MB a million) */
	uint64_t last_t1;            /* the latest end, if any */
	int any;
	unsigned seen;               /* SEEN_* */
	/* --profile: a thread running when its process ended: what its
	 * last snapshot would have carried (spool_hdr's prof_*) */
	int tail;
	int64_t tail_since, tail_cpu;        /* ns */
	int64_t tail_alloc, tail_allocs;
	/* streaming (stream.c): records the resolver has applied, and the
	 * writing so far, or NULL */
	uint64_t napplied;
	struct wstate *ws;
	int dropped;                 /* its first segments, records let go
					(spool_drop): written and resolved */
	/* --syscalls: records linked to their level for good, and the
	 * linking's place (levels.c) */
	uint64_t nlinked, nseen;     /* ... of those it has seen */
	struct lstate *ls;
};

enum {
	SEEN_STATUS = 1,             /* wait, system, popen: statuses */
	SEEN_GAPS = 2,               /* what find_gaps looks for */
};

struct proc {
	pid_t pid, ppid;
	struct thr *thr;
	int nthr;
	size_t thr_cap;
	/* where its threads are, by tid (the latest with it: the kernel
	 * gives an ended thread's number again) and by the pthread_create
	 * that made them (made_at): checked on use, made again once they
	 * are sorted; tids_of: how many threads tids has seen */
	struct imap tids, made;
	int tids_of;
	/* exe: the image it ran last; first_exe: the one it was first seen
	 * in, which the replay starts it in. An exec into an image without
	 * the interposer is known by its call alone: more execs succeeded
	 * (execs) than images said they started by one (exec_images). */
	char *exe, *first_exe, *cwd;
	char *exec_path;             /* the last successful exec's */
	int execs, exec_images;
	int64_t start, end;
	int status;                  /* wait status, -1 unknown */
	int made_claimed;            /* named by a system or popen call */
	int complete;
	char *reason;                /* what the capture could not see, or NULL */
	const char *unprofiled;      /* --profile: why it has no snapshots, or NULL */
	struct pstream *ps;          /* streaming: the resolver's place, or NULL */
};

/* Objects the descriptors refer to (node-wide: files by path, sockets and
 * pipes by inode). */
enum obj_kind { OBJ_FILE = 1, OBJ_SOCKET, OBJ_PIPE, OBJ_OTHER };

struct obj {
	int kind;
	char *name;                  /* file path (absolute), or NULL */
	uint64_t ino;
	/* sockets */
	char proto[16];
	char *local, *peer;          /* "ip:port", "unix:PATH" (fmt_sockaddr) */
	char direction[8];
	/* usage */
	uint64_t opens, reads, bytes_read, writes, bytes_written;
	int open_fds;                /* descriptors on it still open */
	int listed;                  /* goes in <files>/<sockets> */
	int event;                   /* an anon_inode: its reads wait for
					events (res_of); not an epoll set */
	/* the call that made it: the summaries list objects in the order
	 * of their makers' starts, then of those calls (the resolver sees
	 * the processes' parts in the order they streamed) */
	pid_t made_pid;
	uint64_t made_t;             /* clock units */
	int64_t made_start;          /* the maker's start, ns (resolve_node) */
};

struct cap_node {
	const char *name, *host;
	int max_size_hit;            /* --max-size reached: recording stopped */
	char **argv;
	int argc;
	struct clockmap clk;
	int64_t end;                 /* ns */
	struct proc *procs;
	int nprocs;
	struct imap pids;                /* where procs are, by pid (checked) */
	int pids_of;                     /* ... of how many */
	/* the processes by pid, then start, once resolve_node knows their
	 * starts (a pid is given again once its process ended) */
	struct keyed { pid_t key; int64_t start; int k; } *byp;
	int nbyp;
	uint64_t spools;                 /* spools added so far (spool_read.c) */
	struct madeix *made;             /* resolve.c: by maker, NULL none */
	struct obj *objs;
	int nobjs;
	/* statuses of children reaped by island-capture */
	pid_t *wpid;
	int *wstatus;
	pid_t app_pid;               /* the process launch.c forked, 0 none */
	int64_t app_fork;            /* ... at this time, ns: its main thread's
					CPU clock starts there, before exec
					and the dynamic loader ran */
	int64_t *wcpu;               /* a signal ended it: its main thread's
					CPU ns, read before the reaping (no
					code of its own ran at the end); -1 */
	int nwait;
	int complete;
	const char *reason;              /* why not complete, or NULL */
	uint64_t unmapped_images;        /* process images that could not map
					    the arena: nothing of theirs */
	uint64_t spool_span;             /* the arena's budget: the spool's limit */
	uint64_t lost_threads;           /* threads the arena could not take
					    (the app closed its descriptor) */
	int syscalls;                    /* --syscalls: kernel-level records */
	int syscalls_seen;               /* ... and there are some */
	int head_given;                  /* streaming: a head part is made
					    (outfile_open_head) */
	int whole;                       /* every call written whole, none as
					    the last one again (tests' twin) */
	const struct restrictions *rs;   /* NULL: none */
	struct stoplog *stops;           /* NULL: no CPU restriction */
	/* in a session: I/O numbers on io, and the dependencies found */
	const char *pcap;                /* the packets' file, or NULL */
	int callsites;                   /* --callsites: REC_SITE records */
	int profile, profile_hz;         /* --profile: PV_* values, 0 = off */
	int64_t profile_alloc;           /* --sample-alloc bytes, 0 = off */
	const struct prof_ctl *profile_ctl;  /* its control page: how ticks came */
	uint64_t profile_ticks;          /* timer snapshots, and the CPU time of */
	int64_t profile_cpu;             /* all snapshots (resolve.c, find_gaps) */
	int64_t clock_offset;            /* ns to add to the epoch: the session's
					    reference clock (across hosts) */
	int has_clock_offset;
	int server;                      /* --server: a SIGTERM is its planned end */
	int has_stopped;                 /* a SIGTERM was passed on to the app ... */
	int64_t stopped;                 /* ... at this time, ns */
	int mpi_rank;                    /* its rank under mpirun, -1 none */
	const char *unseen;              /* what moves between nodes without a
					    call: "shared-memory" (mpi_unseen) */
	struct cdep *waits, *signals;    /* sorted by seq */
	size_t nwaits, nsignals;
	struct resolver *rsv;            /* streaming: the resolver kept between
					    its steps, or NULL */
	size_t procs_cap;                /* procs' capacity (spool_poll) */
	struct stream *stream;           /* streaming, or NULL */
};

/* A dependency as this node's trace states it: before (wait) or after
 * (signal) our I/O `seq`, on node `other`'s I/O `oseq`. */
struct cdep {
	uint64_t seq;
	char *other;
	uint64_t oseq;
	unsigned char origin;        /* --discover: DEP_MESSAGE... (0 none said) */
	unsigned char unsure;        /* certain="no" */
};
enum { DEP_MESSAGE = 1, DEP_GROUP, DEP_SINGLE };

/* spool_read.c */
int spool_load(struct cap_node *n, const char *dir);
/* A chunk of a spool's arena: where, its header, and in a thread's
 * first chunk the thread's header (capture/spool.h). */
struct arena_chunk {
	uint64_t off;
	struct chunk_hdr c;
	struct spool_hdr h;
};
struct arena_chunk *arena_chunks(int fd, size_t size, struct arena_hdr *a,
				 size_t *nc);
void spool_unload(struct cap_node *n);

/* A spool left by an island-capture that was killed (SIGKILL, the OOM
 * killer): what it needs to become a trace, and --recover (recover.c). */
#define RECOVER_INFO "node.info"     /* in the spool directory */

/* Write SPOOL/node.info: our pid, the node's name, host, command and
 * clock, all a later --recover needs besides the records. */
int recover_note(const char *spool, const struct cap_node *n);

/* Create SPOOL/arena and hold its mutex while we run (capture/spool.h);
 * *budget: the bytes its pages may take (half the space free there). */
int arena_hold(const char *spool, uint64_t *budget);

/* --recover [SPOOL] -o OUTPUT (SPOOL NULL: the newest abandoned spool of
 * ours under PARENT), or with LIST the abandoned spools. Exit status. */
int recover_main(const char *spool, const char *parent, int list,
		 const char *output, int comp);

/* The arena read while the application runs: each call adds what its
 * threads recorded since as a segment of their spools; final: the last
 * time (probes past a chunk never stamped, refreshes the headers, counts
 * the threads lost). The bytes of records it took (expanded), or -1
 * when there is no arena to read. */
struct arena_img;
struct arena_scan {
	int fd;
	char *path;
	uint64_t off;                /* where the next chunk may start */
	struct arena_img *img;
	size_t nimg, capimg;
	struct imap owners, last;    /* img by first chunk, by pid and tid */
	char *in;                    /* a read buffer */
	char *map;                   /* ahead.c: the arena, for its pages */
	uint64_t map_len;
};
int64_t spool_poll(struct cap_node *n, struct arena_scan *s, int final);
void spool_drop(struct thr *t, int upto);
void arena_scan_free(struct arena_scan *s);
/* ahead.c: while streaming, the threads' next pages given ahead of them */
int arena_ahead_open(struct arena_scan *s);
void arena_ahead_close(struct arena_scan *s);
void arena_ahead(struct arena_scan *s, const struct arena_hdr *a, uint64_t off,
		 uint64_t size, uint64_t pos, uint64_t *mark, uint64_t *next_for);
/* Iterate the records of a thread across its generations. */
struct rec_iter {
	struct thr *t;
	int g;
	char *p;
};
void rec_iter_init(struct rec_iter *it, struct thr *t);
struct rec *rec_next(struct rec_iter *it);

/*
 * levels.c: in a --syscalls node, the level of each record, kept in its
 * seq beside the spool's SEQ_KERNEL, SEQ_INLIBC and system call number:
 * SEQ_LIBC a libc wrapper's record; with SEQ_KERNEL too, the one system
 * call it made (that call's own record has SEQ_DROP: it is not written
 * nor counted); SEQ_VIA the libc call (id + 1) a kernel record was made by.
 */
#define SEQ_LIBC         (1ull << 61)
#define SEQ_DROP         (1ull << 60)
#define SEQ_VIA_SET(c)   ((uint64_t)((c) + 1) << 32)
#define SEQ_VIA(s)       ((int)(((s) >> 32) & 0xffff) - 1)
void link_levels(struct cap_node *n);
/* the MPI level's attributes of r (writer/mpiattr.c): their count */
#define MPI_ATTRS 16
struct mpi_attr {
	const char *name, *value;
};
int mpi_attrs(const struct rec *r, struct mpi_attr *a, char *buf, size_t len);
/* streaming: linked as far as they can be so far (t->nlinked) */
void link_stream(struct cap_node *n);
/* Counted in per-file and per-socket totals: every kernel transfer once,
 * a libc call only where the kernel did not see it on its own. */
static inline int rec_counts(const struct rec *r)
{
	if (r->seq & SEQ_DROP)
		return 0;
	return !(r->seq & SEQ_LIBC) || (r->seq & SEQ_KERNEL);
}

/* sysnames.c: the kernel's name of a system call number */
const char *sys_name(int nr);

/* resolve.c */
int call_kind_equal(int a, int b);
void resolve_node(struct cap_node *n);
/* streaming: what can be resolved of the records so far (resolve.c) */
void resolve_stream(struct cap_node *n);
/* streaming: the segment process p's thread i is resolved in, -1 none */
int resolve_stream_at(const struct proc *p, int i);
/* Streaming: has the thread ended (as its spool header says; an exec
 * goes on in the process's main thread)? Nothing more will come. */
int thread_ended(const struct proc *p, const struct thr *t);
/* The thread pthread_create record r of thread creator made, as the
 * thread's spool header names it; NULL when none seen says so */
struct thr *thread_made(struct proc *p, pid_t creator, const struct rec *r);
/* The process system or popen record r of thread tid made, as the
 * process's header names it; NULL when none seen says so */
struct proc *proc_made(struct cap_node *n, pid_t tid, const struct rec *r);
/* Streaming: the shell system or popen record r of thread t made, when
 * its header says so (a call alone; under system, the thread too), 0
 * while none seen does */
pid_t shell_made(struct cap_node *n, struct thr *t, const struct rec *r);
/* A thread's start, ns (what the writer's first compute counts from) */
int64_t thread_start(const struct cap_node *n, pid_t pid, const struct thr *t);
void resolve_index_ready(struct cap_node *n);
void resolve_free(struct cap_node *n);
int res_of(const struct cap_node *n, const struct rec *r);
int64_t amount_of(const struct rec *r);
int call_has_amount(int call);
const char *call_name(int call);
int copy_src_fd(const struct rec *r);
int copy_src_obj(const struct rec *r);
int two_paths(int call);

enum res { RES_FILEREAD, RES_FILEWRITE, RES_FILEMETA, RES_NETSEND,
	   RES_NETRECV, RES_NETMETA, RES_SLEEP, RES_WAIT, RES_PROC, RES_SYS };
extern const char *const res_names[];

/* Join base and p, resolving ".", ".." and "//" lexically. */
char *path_join(const char *base, const char *p);

/* writer.c */
void fmt_oflags(char *buf, size_t n, int fl);
/* ctl.c: fcntl, ioctl and prctl commands named, what they set; the mode
 * of fallocate and the flags of sync_file_range */
const char *ctl_cmd(int call, int64_t cmd, char *buf, size_t n);
const char *ctl_arg(int call, int64_t cmd, int64_t arg, char *buf, size_t n);
void ctl_mode(int call, int32_t v, char *buf, size_t n);
int model_write(struct cap_node *n, const char *path, int comp);
/* Streaming (writer.c, for stream.c): a thread's records so far into its
 * part, a file with no name in dir (running: it may write more; stopping
 * early once *halt); its part closed; its state freed (the part too) */
int write_stream(struct cap_node *n, struct proc *p, struct thr *t, const char *dir,
		 int comp, bool isb, int running, const int *halt);
int write_stream_end(struct thr *t);
void write_stream_free(struct thr *t);
/* the records the thread's part took, 0 when it has none (tests); the
 * records resolved that it could still take (0: closed, or failed) */
uint64_t write_streamed(const struct thr *t);
/* the segment the thread's open part is written from, -1 none */
int write_stream_at(const struct thr *t);
uint64_t write_stream_left(const struct thr *t);
/* stream.c: the trace written while the application runs, from the
 * spool's arena into parts in parts_dir (comp: the trace's compression);
 * NULL when it cannot be (then all at the end) */
struct stream *stream_start(struct cap_node *n, const char *spool, const char *parts_dir,
			    int comp, bool isb);
void stream_stop(struct stream *s);
uint64_t stream_taken(struct stream *s);
int stream_finish(struct stream *s);
void stream_end(struct stream *s);
void fmt_sockaddr(char *buf, size_t n, const void *sa, size_t len);

/* launch.c */
struct run_opts {
	char **argv;
	const char *lib;
	const char *mpi_lib;            /* the MPI level's, preloaded after lib, or NULL */
	const char *spool;
	int clock_kind;
	const struct restrictions *rs;
	const char *session;         /* session file, or NULL */
	int session_idx;
	const struct netcap_opts *netcap;   /* --pcap, or NULL */
	int syscalls;                /* --syscalls */
	const char *loader, *target; /* a static program: island-loader runs it */
	const char *script;          /* target is its interpreter: the name */
	pid_t group_signaller;       /* signals our whole process group (the
					cluster runner): its signals reach
					the app without us, 0 none */
	int stream;                  /* the trace written while the app runs */
	const char *parts;           /* ... its parts put there */
	int comp;                    /* ... compressed so */
	bool isb;                    /* ... in the binary encoding */
	const struct runas *user;    /* --user: the app runs as this user */
	const char *output;          /* the trace, for the watch of its size */
	uint64_t max_size;           /* --max-size: bytes, 0 none */
};
/* Set by the cluster runner for each node's capture: its pid. */
#define ENV_CLUSTER_RUNNER "ISLAND_CLUSTER_RUNNER"
/* The user's LD_PRELOAD, the app's: island-capture runs without it */
#define ENV_APP_PRELOAD "ISLAND_APP_PRELOAD"
int run_app(struct run_opts *o, struct cap_node *n, int *exit_code);

#endif
