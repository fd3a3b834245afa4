/*
 * Spool files: what the interposer writes while the application runs, and
 * the trace writer reads after it exits. All the processes of a capture
 * share one file, the arena ("arena" in the session's spool directory),
 * memory-mapped and shared, so that records survive a crash or SIGKILL of
 * the application.
 *
 * Why one file: opening a file takes the lowest free descriptor, so a
 * spool opened while the application runs could take the number one of
 * its threads was about to get. Each process image opens the arena once,
 * in its constructor (no application thread runs yet), maps all of it
 * (ARENA_SPAN, MAP_NORESERVE) and closes it; a fork child inherits the
 * mapping. No descriptor is held or opened after that: a thread's spool is
 * chunks of the arena, counted out with an atomic counter in the arena's
 * header (a thread that finds it full is counted in lost_threads).
 * island-capture creates the arena before the app starts (arena_hold).
 *
 * Arena layout: a header page (struct arena_hdr), zero-filled up to
 * ARENA_DATA, then chunks at multiples of ARENA_ALIGN. A chunk's first page
 * starts with struct chunk_hdr; a thread's first chunk (seq 0, owner = its
 * own offset) holds the thread's struct spool_hdr at CHUNK_SPOOL_HDR of that
 * page. Records fill the chunk from its second page on, back to back in
 * zero-filled space; a record that does not fit goes to the thread's next
 * chunk (seq + 1), and the rest of the chunk stays zero. Space counted out
 * but never given a chunk header (a process killed in between, a full file
 * system) stays zero: a reader probes every ARENA_ALIGN for the next chunk.
 *
 * A record is a fixed part (struct rec) and an optional payload, its total
 * length rounded up to 8 bytes, or a short record (struct srec) for the
 * common call whose values fit it. Its len is stored last, so the chain of
 * complete records of a chunk ends at the first len of 0, even after a
 * crash or SIGKILL; hdr.used is a hint brought up to date now and then.
 *
 * A thread's spool may also be a file of its own, PID.TID.GEN, laid out as
 * a struct spool_hdr page and then records (the layout before version 3;
 * the reader still takes it).
 */
#ifndef ISLAND_SPOOL_H
#define ISLAND_SPOOL_H

#include <stdint.h>
#include <sys/socket.h>

#define SPOOL_MAGIC    0x4c4f4f5053444e4cull   /* "LNDSPOOL" */
#define SPOOL_VERSION  3
#define SPOOL_HDR_SIZE 4096

#define ARENA_FILE     "arena"
#define ARENA_MAGIC    0x414e455241444e4cull   /* "LNDARENA" */
#define CHUNK_MAGIC    0x4b4e5548434c444eull   /* "NDLCHUNK" */
#define ARENA_ALIGN    (128u << 10)  /* chunks start and end at multiples */
#define ARENA_DATA     ARENA_ALIGN   /* the first chunk's offset */
#define ARENA_SPAN     (64ull << 30) /* the arena's size at most (sparse),
					mapped whole by every process image:
					less under a limit of address space
					(ulimit -v), the file's size says */
#define ARENA_SPAN_MIN (16ull << 20)
#define CHUNK_SPOOL_HDR 64           /* struct spool_hdr in a first chunk */

struct arena_hdr {
	uint64_t magic;              /* written by whoever opens it first */
	uint32_t version;            /* SPOOL_VERSION */
	uint32_t pad;
	volatile uint64_t next;      /* bytes counted out after ARENA_DATA */
	volatile uint64_t images;    /* process images so far (their gen) */
	volatile uint64_t lost_threads; /* threads that could not get a chunk
					   (the arena or the file system full) */
	/* island-capture's robust, process-shared mutex, held while it
	 * runs: the kernel sets FUTEX_OWNER_DIED in its first word (the
	 * futex) when island-capture dies. 0: no capture holds it. */
	uint64_t capture_lock[8];
	volatile uint64_t unmapped;  /* process images that could not map the
					arena (their address space limited):
					nothing of theirs is recorded */
	/* the bytes the arena's pages may take (island-capture's choice:
	 * half the space free where it lives; 0, none), and those given so
	 * far: a chunk counts out address space, its thread's pages are
	 * given as it writes (a thread of a call or two takes 8 KB of its
	 * 256), so the arena holds as many threads as the space allows */
	volatile uint64_t budget, given;
	/* --max-size reached (island-capture: 1): no thread takes more
	 * room, its records stop where its pages end; the app runs on */
	volatile uint64_t stop;
};

struct chunk_hdr {
	uint64_t magic;              /* CHUNK_MAGIC, written last */
	uint64_t size;               /* bytes, header page included */
	uint64_t owner;              /* offset of the thread's first chunk */
	uint64_t seq;                /* 0 first, then 1, 2, ... */
};

enum spool_clock { CLOCK_KIND_MONO = 0, CLOCK_KIND_TSC = 1 };

/* How a thread ended, as the interposer saw it. */
enum thread_exit {
	TEXIT_NONE = 0,      /* not observed: killed, or still running */
	TEXIT_RETURN,        /* start routine returned */
	TEXIT_PTHREAD,       /* pthread_exit */
	TEXIT_PROCESS,       /* process exit while the thread existed */
	TEXIT_EXEC,          /* the process image was replaced */
};

struct spool_hdr {
	uint64_t magic;
	uint32_t version;
	uint32_t clock;              /* enum spool_clock */
	int32_t  pid, tid;
	int32_t  gen;                /* the image's number in the capture:
					later images of a pid have larger ones */
	int32_t  creator;            /* tid that created the thread, 0 if none */
	int64_t  start;              /* clock units */
	char     comm[16];           /* name at start */
	/* written while running */
	volatile uint64_t used;      /* bytes of records in the current chunk */
	volatile uint64_t lost;      /* records dropped (spool could not grow) */
	/* written when the thread ends */
	volatile int64_t  end;       /* clock units, 0 = not observed */
	volatile int64_t  cpu_ns;    /* thread CPU time, -1 = unknown */
	volatile int32_t  exit;      /* enum thread_exit */
	/* the status its process's exit or _exit call gave, + 1 (0: none
	 * seen), in the header of the thread that called it: the status
	 * when no wait of the parent's was recorded (bash reaps its
	 * children in its SIGCHLD handler, inside a call of ours) */
	volatile int32_t  status;
	char     comm_end[16];       /* name at end */
	/* --profile: what the thread's next snapshot would carry, kept here
	 * (not in TLS) so that the writer can make the tail of a thread
	 * still running when its process ended a last snapshot */
	volatile int64_t  prof_last;     /* clock units of the last snapshot,
					    0: no tail to write */
	volatile int64_t  prof_last_cpu; /* thread CPU ns then */
	volatile uint64_t prof_alloc;    /* bytes allocated since */
	volatile uint64_t prof_allocs;   /* allocations since */
	/* the start of the call under way (or the last one), clock units:
	 * the thread's next record is no earlier (island-capture's streaming
	 * reads it while the app runs) */
	volatile uint64_t in_t0;
	/* while the thread is in a wait or a sleep (a call that neither uses
	 * nor changes descriptors: its record's place among the other
	 * threads' changes nothing), its start, as in_t0; 0 again before
	 * the call's end is read: what the thread adds after it is later
	 * than when it was seen so. A call a signal handler makes inside
	 * the wait sets in_t0 alone: then in_t0 bounds as for any call */
	volatile uint64_t in_wait;
	/* the start of the pthread_create that made the thread (its record's
	 * t0, clock units), 0 when none or not known: which call made which
	 * thread, exactly, while the app runs and at the end */
	volatile int64_t made_at;
	/* a process's first thread: the tid whose system or popen call made
	 * the process (made_at: that call's t0), 0 when none or not known */
	int32_t  made_by;
	int32_t  pad2;
	/* when the process started, in the kernel's ticks since boot
	 * (/proc/PID/stat's starttime, which an exec keeps): a process
	 * given the number of one that ended is told from an exec of it,
	 * even when that one was killed (no end seen); 0 when not known */
	uint64_t pstart;
	/* calls the thread made inside a call the capture was recording
	 * (a signal handler's that interrupted it, a callback's it ran:
	 * bash's SIGCHLD handler reaping children inside its read), which
	 * are not recorded: counted (call_start, enter_slow) */
	volatile uint64_t nested;
};

/* The fixed part of every record: 64 bytes, a cache line. call and len
 * sit where struct srec has them, so a chain of both kinds can be walked. */
struct rec {
	uint64_t t0, t1;    /* call and return, clock units */
	int32_t  fd;
	int32_t  err;       /* errno when the call failed, else 0 */
	uint16_t call;      /* enum call_id, or a REC_* kind */
	uint16_t len;       /* whole record with payload, multiple of 8 */
	uint32_t obj;       /* scratch for the writer (resolved object) */
	int64_t  ret;       /* return value (see calls.def for amounts) */
	int64_t  a1, a2;    /* call-specific arguments, see below */
	uint64_t seq;       /* in a session: the node's I/O number, else 0 */
};

/*
 * The short record: a call that succeeded, outside a session and rate
 * limits, whose duration, return value and arguments fit 32 bits. Half the
 * size of struct rec, and so half the spool pages the kernel must zero and
 * map while the application runs; the writer expands it to a struct rec
 * (t1 = t0 + dt, err, obj and seq 0) when it loads the spool.
 */
struct srec {
	uint64_t t0;
	uint32_t dt;        /* t1 - t0, clock units */
	int32_t  fd;
	int32_t  ret, a1;
	uint16_t call;
	uint16_t len;       /* sizeof(struct srec), stored last */
	int32_t  a2;
};

_Static_assert(sizeof(struct rec) == 64 && sizeof(struct srec) == 32,
	       "record sizes");
_Static_assert(__builtin_offsetof(struct rec, len) == __builtin_offsetof(struct srec, len) &&
	       __builtin_offsetof(struct rec, call) == __builtin_offsetof(struct srec, call),
	       "call and len where both kinds have them");

#define REC_ALIGN(n) (((n) + 7u) & ~7u)
#define REC_PAYLOAD(r) ((char *)(r) + sizeof(struct rec))
#define REC_PAYLOAD_LEN(r) ((size_t)(r)->len - sizeof(struct rec))
#define REC_MAX_PAYLOAD (60000u)

enum call_id {
#define CALL(id, api, res, amount, effect) C_##id,
#include "trace/calls.def"
#undef CALL
	C_NCALLS,
	/* records that are not calls */
	REC_PROC = 1000,     /* process image start: a1 ppid, a2 origin, ret parent tid;
	                        payload exe\0cwd\0argv0\0argv1\0... */
	REC_FDINFO,          /* descriptor present at image start: fd, a1 kind,
	                        payload path (file) or struct sockinfo */
	REC_REGION_BEGIN,    /* payload: label */
	REC_REGION_END,      /* payload: label */
	REC_THROTTLE,        /* the call before was held to enforce a rate
	                        limit: a1 ns held, a2 usage before (bytes),
	                        fd the resource (enum limit_res) */
	REC_SITE,            /* --callsites: the call before returned to the
	                        address t0 (a short record) */
	REC_MODULE,          /* --callsites: a module of the process: a1 load
	                        bias, a2..ret its executable range [lo, hi),
	                        payload path\0build id in hex */
	REC_SAMPLE,          /* --profile: a snapshot of the thread at t0; t1
	                        the previous one (wall = t0 - t1); a1 thread CPU
	                        ns since then, ret bytes allocated since, seq
	                        allocations since, fd enum sample_kind; payload
	                        [pointer allocated (SAMPLE_ALLOC)] then the
	                        return addresses, innermost first */
	REC_FREE,            /* --profile with every allocation sampled: a1
	                        the pointer freed (realloc(p, 0) too), also
	                        while profiling is switched off */
	REC_KREAD,           /* before a stdio read call's record: ret the
	                        bytes the kernel read for it (kernel_amount) */
	REC_AIO_GAP,         /* asynchronous operations the capture could not
	                        itemise: fd the reason (enum aio_gap), a1 how
	                        many (0: not known) */
};

/* The levels above libc (calls.def's MPI block): a call's record made at
 * its start, completed when it returns; the records after it that lie in
 * its time were made inside it */
#define C_MPI_FIRST C_MPI_INIT
#define C_MPI_LAST  C_H5DCLOSE
#define C_IS_LEVEL(c) ((c) >= C_MPI_FIRST && (c) <= C_MPI_LAST)
/* ... of files (MPI-IO, HDF5): a struct mpi_file and names follow */
#define C_IS_LEVEL_FILE(c) ((c) >= C_MPI_FILE_OPEN && (c) <= C_H5DCLOSE)
#define C_IS_HDF5(c) ((c) >= C_H5FCREATE && (c) <= C_H5DCLOSE)
/* a level call not worth its record after all (a Test that found nothing):
 * the bit capture.h calls SEQ_DROP, which the writer skips (the level is
 * not recorded under --syscalls, whose records are the ones it drops) */
#define SEQ_LEVEL_DROP (1ull << 60)

/* Why asynchronous operations were not itemised (REC_AIO_GAP) */
enum aio_gap {
	AIO_GAP_FULL = 0,    /* more in flight than the interposer keeps */
	AIO_GAP_UNREAPED,    /* submitted, no completion seen by the process's
	                        end (reaped from the ring in user space) */
	AIO_GAP_DESTROYED,   /* no completion seen when their context was
	                        destroyed: reaped from its ring in user space,
	                        or discarded in flight */
	AIO_GAP_URING,       /* io_uring used with no system call seen (a
	                        library that makes its own, liburing), or a
	                        ring whose memory the capture did not see */
	AIO_GAP_SQPOLL,      /* a ring the kernel's thread polls (SQPOLL):
	                        its submissions make no system call */
	AIO_GAP_URING_OP,    /* io_uring operations of a kind not itemised
	                        (a2 its opcode) */
	AIO_GAP_URING_UNSEEN, /* io_uring completions of submissions no
	                        io_uring_enter the capture saw made */
	AIO_GAP_N
};

/* An asynchronous operation's record (calls.def: IO_PREAD to AIO_FSYNC) */
#define AIO_OP(c) ((c) >= C_IO_PREAD && (c) <= C_URING_POLL)

/* An asynchronous operation's payload (calls.def, IO_PREAD..AIO_FSYNC) */
struct aio_op {
	uint64_t submit;     /* when it was submitted, clock units */
	uint64_t done;       /* when it was first seen complete (POSIX aio's
	                        aio_error), 0: the record's t1 */
	uint64_t ctx;        /* its libaio context, 0 for POSIX aio */
	uint32_t depth;      /* operations in flight in the context then, it
	                        included */
	uint32_t kind;       /* enum aio_kind */
};

enum aio_kind { AIO_LIBAIO = 1, AIO_POSIX = 2, AIO_URING = 3 };

enum sample_kind { SAMPLE_TIMER = 0, SAMPLE_CALL = 1, SAMPLE_ALLOC = 2,
		   SAMPLE_END = 3 };

/*
 * A record made at the kernel boundary (--syscalls) is a full record whose
 * seq holds SEQ_KERNEL, SEQ_INLIBC when a libc wrapper of the thread was
 * running (it caused the call), and the system call's number (bits 48-57).
 * A session's I/O number stays in the low 32 bits.
 */
#define SEQ_KERNEL    (1ull << 63)
#define SEQ_INLIBC    (1ull << 62)
/* a libc wrapper's record that stands for the one system call the call
 * made, the same event (its number in bits 48-57): the interposer kept
 * that call's record aside and did not write it (sud.c, kcalls_end) */
#define SEQ_JOINED    (1ull << 59)
/* a libc wrapper's record of a call made inside the call recorded before
 * it, by the same thread (a signal handler's, a callback's: nest.c), its
 * time part of that call's */
#define SEQ_NESTED    (1ull << 58)
#define SEQ_NR(s)     ((int)(((s) >> 48) & 0x3ff))
#define SEQ_NR_BITS   (0x3ffull << 48)
#define SEQ_IO(s)     ((s) & 0xffffffffull)

enum proc_origin { ORIGIN_NEW = 0, ORIGIN_FORK = 1, ORIGIN_EXEC = 2 };
enum fd_kind { FDK_FILE = 1, FDK_SOCKET = 2, FDK_PIPE = 3, FDK_OTHER = 4 };

/*
 * Socket facts gathered where they are cheap (socket, bind, connect,
 * accept, sendto, inherited descriptors). The inode identifies a socket or
 * pipe across processes that share it.
 */
struct sockinfo {
	uint64_t ino;
	int32_t  domain, type;
	uint32_t llen, plen;                  /* 0 = unknown */
	struct sockaddr_storage local, peer;
};

/*
 * Per-record argument conventions (a1, a2, payload):
 *   OPEN family   a1 flags, a2 dirfd (AT_FDCWD), payload path[\0fopen mode]
 *   PATH family   a1 second dirfd, a2 dirfd, payload path[\0path2]
 *   read/write    a1 requested size, a2 offset (-1 none)
 *   fread/fwrite  a1 requested bytes, a2 item size
 *   lseek/fseek   a1 offset, a2 whence
 *   dup*          a1 old fd (fd holds the new one)
 *   fcntl         a1 cmd, a2 arg
 *   close_range   a1 last fd
 *   socket        a1 domain, a2 type, payload struct sockinfo
 *   pipe/socketpair  fd, a1 the two fds; payload two uint64 inodes
 *   bind/connect/accept/sendto/recvfrom  payload struct sockinfo
 *   sendmmsg/recvmmsg  ret messages, a2 bytes
 *   sleeps        a1 requested ns
 *   waits         a1 timeout ns (-1 infinite)
 *   waitpid/wait4 a1 status word, ret pid
 *   fork/vfork    ret child pid;  posix_spawn a1 child pid;  system a1 status
 *   pthread_create ret result;    pthread_join a1 joined tid
 */

/*
 * Rate limits shared by every process of the app (file "limits" in the
 * spool directory): Repy's rule, usage drains at `rate` bytes a second and
 * a call that leaves usage above the rate is held (usage - rate) / rate s.
 */
enum limit_res { LIM_FILEREAD, LIM_FILEWRITE, LIM_NETSEND, LIM_NETRECV, LIM_N };

struct limit_bucket {
	volatile int lock;
	int pad;
	double usage;                /* bytes */
	int64_t last;                /* CLOCK_MONOTONIC ns of the last update */
};

#define LIMITS_MAGIC 0x53544d494c444e4cull   /* "LNDLIMTS" */
struct limits_page {
	uint64_t magic;
	double rate[LIM_N];          /* bytes per second, 0 = unlimited */
	struct limit_bucket b[LIM_N];
};
#define LIMITS_FILE "limits"

/*
 * A capture session (issue 5, //TRACE's causality engine): the nodes of a
 * multi-node run share this file (/dev/shm, mode 0600). Each thread of
 * each node says whether it is in a call or computing, and since when;
 * each node counts its I/Os. A throttled node holds its I/O until every
 * other node is blocked (in a call or compute phase longer than its
 * watchdog maximum) or exited, and logs which nodes were blocked.
 */
#define SESS_MAGIC   0x4e4f495353455353ull    /* "SSESSION" */
#define SESS_NODES   64
#define SESS_THREADS 256
#define SESS_DEPS    65536
#define SESS_SIGS    8

enum { SN_FREE = 0, SN_RUNNING, SN_EXITED };

/* A thread is blocked when it has completed no I/O for longer than its
 * node's maximum gap: waiting in a call or polling, it makes no progress.
 * (//TRACE: in a call, or in a compute phase, longer than a maximum.) */
struct sess_thread {
	volatile int32_t tid;        /* 0: free */
	volatile int32_t pid;
	volatile int64_t since;      /* last I/O completed (or start), mono ns */
	volatile int64_t wait_since; /* in a call that waits for others (poll,
					accept, recv...) since, 0 when not */
	volatile int64_t spin_from;  /* empty polls and sleeps since its last */
	volatile int64_t spin_at;    /* I/O: the first's and the last's end */
};

struct sess_node {
	char name[64];
	volatile int32_t state;      /* SN_* */
	volatile int32_t capture_pid;
	volatile uint64_t io_seq;    /* I/Os completed so far */
	int64_t max_gap;             /* the watchdog's maximum, ns */
	int32_t throttled, period;   /* hold before every period-th I/O */
	int64_t delay;               /* ns to hold at least */
	int64_t hold_timeout;        /* ns to hold at most */
	volatile uint32_t holds, hold_timeouts;
	int32_t remote;              /* a node of another host, mirrored here */
	int32_t expect_nodes;        /* a hold first waits until this many
	                                nodes are known (--session-nodes) */
	/* polling (issue 17): a retry is a failed call (or a repeated
	 * probe) whose signature is one of the node's last SESS_SIGS
	 * failures; progress a call that moved data or changed state */
	volatile int64_t retry_at, progress_at;      /* mono ns, 0 never */
	volatile uint64_t sig[SESS_SIGS];
	volatile uint32_t sig_pos;
	/* the hold under way, for the runner's --timeout message */
	volatile int64_t hold_start;                 /* mono ns, 0 none */
	volatile uint64_t hold_after;                /* io_seq at its start */
	volatile int32_t hold_call;                  /* the call held */
	/* threads of this node in a hold now: a node of a throttled group
	 * that holds waits for nothing the others could log (it is ours) */
	volatile int32_t holding;
	/* when its last hold ended (mono ns): idle since then at most */
	volatile int64_t released_at;
	/* when the cluster runner sent the node's group its SIGTERM (mono
	 * ns, 0 not): the node's capture handles it later than the app
	 * may, on a loaded machine */
	volatile int64_t stop_at;
	/* a node of another host: the last hold of this host's throttled
	 * node that its agent had heard of when it sampled the state
	 * mirrored here (UINT32_MAX: its agent does not say) */
	volatile uint32_t seen_holds;
	/* ... when (mono ns, ours) its agent had heard of that hold, and
	 * when it sampled the state: the node is judged at that sample, on
	 * how long it had been idle since it heard of the hold */
	volatile int64_t heard_at, sampled_at;
	struct sess_thread th[SESS_THREADS];
};

struct sess_dep {                    /* node x's I/O xseq waited for ... */
	int32_t tnode, xnode;        /* ... node t's I/O tseq */
	uint64_t tseq, xseq;
	/* the throttled nodes seen holding during t's hold (t among them;
	 * 0 not said: a remote node's): x may have waited for any of them */
	uint64_t group;
	int64_t at;                  /* when t's hold ended, mono ns */
};

struct session {
	uint64_t magic;
	uint32_t version;
	volatile int32_t owner_pid;  /* a cluster runner that owns the file */
	volatile uint32_t ndeps, deps_lost;
	uint64_t file_dev, file_ino; /* the file's identity, set by its
					creator: a node that joined a file
					unlinked since sees another at the path */
	/* the owner's standard output and error, which the nodes inherit:
	 * what they write there no node reads (a throttled node does not
	 * hold it); nouts of them */
	uint32_t nouts;
	struct { uint64_t dev, ino; } outs[2];
	struct sess_node node[SESS_NODES];
	struct sess_dep deps[SESS_DEPS];
};

/* Environment between island-capture and the interposer. */
#define ENV_SPOOL  "ISLAND_SPOOL"     /* spool directory (absolute) */
#define ENV_CLOCK  "ISLAND_CLOCK"     /* "tsc" or "mono" */
#define ENV_LIB    "ISLAND_LIB"       /* absolute path of the interposer */
#define ENV_MPI_LIB "ISLAND_MPI_LIB"  /* the MPI level's library, preloaded after it */
#define ENV_LIMITS "ISLAND_LIMITS"    /* "1" when the spool holds a limits page */
#define ENV_IMAGE  "ISLAND_IMAGE"     /* pid of the process that exec'd */
#define ENV_MADE_BY "ISLAND_MADE_BY"  /* TID:T0 of the system or popen call
					 that made this shell (spool_hdr) */
#define ENV_VFORKED "ISLAND_VFORKED"  /* T0:T1:PATH: this image's pid is a
					 vfork child, made at T0, that exec'd
					 PATH at T1 (its calls before, not
					 recorded, are counted in the vfork's) */
#define ENV_SPAWNED "ISLAND_SPAWNED"  /* PPID:T0:PATH: this image is a child
					 PPID's posix_spawn, called at T0,
					 made and exec'd (PATH) by libc's own
					 clone and exec, which no wrapper sees */
#define ENV_SPAWN_ACTS "ISLAND_SPAWN_ACTS"  /* that posix_spawn's file actions
					 (open, dup2, close, ...), which the
					 image records before its exec
					 (preload/spawn_acts.c) */
#define CALLSITES_FILE "callsites"    /* in the spool directory: --callsites */

/*
 * --profile: a page in the spool directory (file "profile") that every
 * process of the app maps. island-capture writes the options; `on` is
 * the switch the program (island_profile) and another terminal
 * (island-capture --control) turn.
 */
#define PROFILE_FILE  "profile"
#define PROF_MAGIC    0x454c49464f52504cull   /* "LPROFILE" */
enum { PV_CPU = 1, PV_WALL = 2, PV_ALLOC = 4 };
struct prof_ctl {
	uint64_t magic;
	volatile int32_t on;         /* snapshots are taken */
	int32_t values;              /* PV_* */
	int32_t hz;                  /* interval style: per second of thread CPU */
	int32_t depth;               /* frames at most */
	int64_t alloc_every;         /* allocation style: bytes, 0 = off */
	int32_t capture_pid;         /* island-capture's pid (--control) */
	int32_t pad;
	volatile uint64_t switches;  /* times `on` changed */
	/* threads whose ticks came from a task-clock perf event, and from
	 * a CPU-clock timer (the event refused): <profile sampler> */
	volatile uint32_t by_event, by_timer;
};
#define ENV_SESSION "ISLAND_SESSION"  /* session file, and ... */
#define ENV_SYSCALLS "ISLAND_SYSCALLS"  /* "1": record at the kernel boundary */
#define ENV_LOADER   "ISLAND_LOADER"    /* island-loader, for static programs */
#define ENV_LOADER_TARGET "ISLAND_LOADER_TARGET"  /* the program it runs */
#define ENV_LOADER_NAME "ISLAND_LOADER_NAME"  /* a script's path as exec'd */
#define ENV_LOADED   "ISLAND_LOADED"    /* island-loader started this image: its file */
#define ENV_SESSION_NODE "ISLAND_SESSION_NODE"   /* ... our node's index */
/* An ASan program runs with the interposer loaded before its runtime,
 * which it refuses unless told: the capture tells it, and the program
 * sees none of it (envpass.c, env_hide) */
#define ENV_ASAN_OURS "ASAN_OPTIONS=verify_asan_link_order=0"
#define ENV_ASAN_SUFFIX ":verify_asan_link_order=0"
/* which of it is ours: "added" (the suffix, after the program's own) or
 * "ours" (all of it); absent: none (the program's own said so already) */
#define ENV_ASAN_MARK "ISLAND_ASAN"
#define ENV_SHARE "ISLAND_SHARE"    /* DIR[:DIR]: a cluster node's scratch, opened
				      to a user it drops to (privdrop.c) */

#endif
