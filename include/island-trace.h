/*
 * island-trace.h — the trace library: the model of an Island trace
 * (docs/trace-format.md) and its one streaming reader, with the one
 * validator of its values. island-analyze and island-replay read traces
 * through it and nothing else.
 *
 *	static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
 *	{
 *		...
 *	}
 *	static const struct trace_ops ops = { .io = on_io };
 *	struct trace_run run = { 0 };
 *
 *	trace_read(&run, files, nfiles, &ops, ctx);
 *	trace_run_free(&run);
 *
 * The reader streams (libxml2's SAX2 parser, or for the binary encoding
 * of docs/trace-binary.md its own decoder; .gz and .zst are read
 * transparently): it keeps the nodes, processes and threads, and passes
 * every event to the callbacks in file order, which is each thread's
 * order. Bad input is one line "FILE:LINE: problem" on stderr and exit
 * status 2 (a value out of range, a misplaced element, a truncated or
 * corrupt file): the same words whichever tool reads the trace.
 */
#ifndef ISLAND_TRACE_H
#define ISLAND_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the format this library reads. */
#define TRACE_VERSION 1

/* The resource classes of docs/trace-format.md, in that order. */
enum trace_res {
	TRACE_RES_FILEREAD, TRACE_RES_FILEWRITE, TRACE_RES_FILEMETA,
	TRACE_RES_NETSEND, TRACE_RES_NETRECV, TRACE_RES_NETMETA,
	TRACE_RES_SLEEP, TRACE_RES_WAIT, TRACE_RES_PROC, TRACE_RES_SYS,
	TRACE_RES_N
};
extern const char *const trace_res_names[TRACE_RES_N];
/* The class of a name, or -1. */
int trace_res_from_name(const char *s);

/* Times are int64 nanoseconds: node times from the node's start, epochs
 * from 1970. */
struct trace_stop {
	int64_t start, end;
};

struct trace_node {
	char *name, *host, *file;
	int index;		/* over the whole run, in reading order */
	int64_t epoch;		/* with its clock_offset added */
	int64_t start, end;
	int64_t off;		/* add to a node time to align it with the run */
	struct trace_stop *stops;	/* sorted, disjoint */
	size_t nstops, capstops;
	double limit[TRACE_RES_N];	/* rate limits per second from <restrictions>, 0 = none */
	double cpu_limit;
	int nthreads, nprocs;
	char *pcap;		/* its packets (--pcap): the path, resolved against
				 * the trace's directory, or NULL */
	char *profile;		/* --profile: its <profile values>, or NULL */
	int64_t profile_alloc_every;	/* --sample-alloc: bytes, 0 none */
	char *unseen;		/* unseen="...": what moves between nodes with
				 * no call (an MPI rank's shared memory), or NULL */
	int mpi_rank;		/* its rank under mpirun, -1 none */
	int64_t stopped;	/* when a SIGTERM was passed on to it, node
				 * time; -1 never */
	bool has_clock_offset;	/* its epoch is on the session's reference
				 * clock, not only its host's */
};

/* --callsites: a <module> of a process. */
struct trace_module {
	long id;
	char *path, *build_id;
};

struct trace_proc {
	struct trace_node *node;
	long pid, ppid;
	char *exe, *status, *cwd;	/* "" when absent */
	char *first_exe;	/* the image it started in: exe unless it exec'd */
	char *reason;		/* why it is incomplete, or NULL */
	char *unprofiled;	/* --profile: why it has no snapshots, or NULL */
	int64_t start, end;
	bool complete;
	struct trace_module *mods;	/* <module> children, in order */
	size_t nmods, capmods;
};

struct trace_thread {
	struct trace_node *node;
	struct trace_proc *proc;
	int index;		/* over the whole run, in reading order */
	long tid, creator;	/* creator -1 for a main thread */
	char *name, *exit;
	int64_t start, end, cpu;
	bool has_cpu, complete;
	void *priv;		/* the caller's */
};

/* Attributes of one element the reader keeps (more is an error). */
#define TRACE_MAXATTR 40
struct trace_attr {
	const char *name, *value;
	int64_t num;		/* a number the validator knows: its value (ns
				 * for a time; timeout -1: none; res: its
				 * enum trace_res), else 0 */
};

/* One <io>; strings are valid during the callback only, but api, which
 * is one pointer per name for the reading thread's life (a report may
 * key on it, or cache what it knows of a call by it). Every attribute
 * is in attr[], validated (docs/trace-format.md, Ranges); the ones below
 * are also parsed out. */
struct trace_io {
	const char *api, *path, *peer, *proto;
	const char *inpath;	/* source of sendfile, copy_file_range, splice */
	const char *err;	/* errno name when the call failed */
	const char *site;	/* --callsites: "MODULE:0xOFFSET" or "0xADDRESS" */
	enum trace_res res;
	int64_t start, end, amount, size, req;
	int64_t throttle;	/* seconds the capture held it for a rate limit */
	bool has_amount, has_req, has_throttle, failed;
	bool libc_only;		/* level="libc": not counted again in totals */
	/* descriptors and positions: fd, oldfd (dup*), offset, result,
	 * whence and flags as written, each when present */
	int64_t fd, oldfd, offset, result;
	bool has_fd, has_oldfd, has_offset, has_result;
	const char *whence, *flags;
	int nattr;
	struct trace_attr attr[TRACE_MAXATTR];
};

struct trace_region {
	long id, parent, depth;
	const char *label, *error;
	int64_t start, end;
};

struct trace_file {
	const char *path;
	int64_t opens, reads, bytes_read, writes, bytes_written, open_at_end;
	int64_t size_at_end, allocated_at_end;	/* -1: not told */
	bool fifo;		/* type="fifo": a named pipe when the run ended */
};

struct trace_socket {
	const char *proto, *local, *peer, *direction;
	int64_t sent, received;
	bool open_at_end;
};

/* A <wait> (before the next io of its thread: do not issue it before
 * node's I/O seq completed) or a <signal> (after the io before it, seq
 * 0). */
struct trace_dep {
	bool wait;
	const char *node;
	int64_t seq;
	const char *origin;          /* a wait's origin="...", or NULL */
	bool unsure;                 /* certain="no" */
};

/* io's attribute NAME (validated), or NULL. */
const struct trace_attr *trace_io_attr(const struct trace_io *io, const char *name);

/* A profiler snapshot (<sample>); strings valid during the callback. */
struct trace_sample {
	int64_t t, cpu, wall, alloc, allocs;
	uint64_t ptr;		/* kind alloc: what was allocated */
	const char *kind;	/* timer, call, alloc, end */
	const char *stack;	/* "M:0xOFF ...", innermost first */
};

/* Callbacks of the streaming reader; any may be NULL. */
struct trace_ops {
	void (*node)(void *ctx, struct trace_node *n);
	void (*node_end)(void *ctx, struct trace_node *n);
	void (*process)(void *ctx, struct trace_proc *p);
	void (*thread)(void *ctx, struct trace_thread *t);
	void (*thread_end)(void *ctx, struct trace_thread *t);
	void (*compute)(void *ctx, struct trace_thread *t, int64_t start, int64_t dur);
	void (*io)(void *ctx, struct trace_thread *t, const struct trace_io *io);
	void (*dep)(void *ctx, struct trace_thread *t, const struct trace_dep *d);
	void (*region)(void *ctx, struct trace_thread *t, const struct trace_region *r);
	void (*file)(void *ctx, struct trace_node *n, const struct trace_file *f);
	void (*socket)(void *ctx, struct trace_node *n, const struct trace_socket *s);
	void (*sample)(void *ctx, struct trace_thread *t, const struct trace_sample *s);
	void (*free)(void *ctx, struct trace_thread *t, int64_t at, uint64_t ptr);
	/* The trace (p NULL: complete="false") or a process (p) was not
	 * wholly recorded; line is where it says so. */
	void (*incomplete)(void *ctx, const char *file, long line, const struct trace_proc *p);
	/* The trace as it is: every element, known or not, with its
	 * attributes in their order (validated where the format defines
	 * them), its text (when more than white space, or all that an
	 * element holds), its end. What island-analyze export --format xml
	 * writes back. */
	void (*element)(void *ctx, const char *name, int nattr,
			const char *const *names, const char *const *values);
	void (*element_text)(void *ctx, const char *text, size_t len);
	void (*element_end)(void *ctx);
	/* Strict: an element this version does not define, or text inside
	 * an element, is an error (a replay must not guess); otherwise they
	 * are skipped (a reader of version 1 ignores what a later writer
	 * adds). */
	bool strict;
	/* A node's command (<command>'s <arg>s), once it is read, in either
	 * encoding; after node, before its processes */
	void (*command)(void *ctx, struct trace_node *n, int argc, const char *const *argv);
};

/* Everything the reader keeps: proportional to nodes, processes, threads. */
struct trace_run {
	struct trace_node **nodes;
	size_t nnodes, capnodes;
	struct trace_proc **procs;
	size_t nprocs, capprocs;
	struct trace_thread **threads;
	size_t nthreads, capthreads;
	int64_t epoch0;		/* the epoch times are aligned on */
	int64_t t0, t1;		/* aligned start and end of the run */
	bool have_epoch0, prescanned, incomplete;
};

/* Read the traces in order, calling ops (NULL: none); bad input exits 2
 * with FILE:LINE: message. Node offsets align on the earliest epoch seen
 * so far unless trace_prescan() ran first. The callbacks run in the
 * calling thread; a file of 1 MiB or more is parsed meanwhile in a
 * second thread (ISLAND_READER_THREADS=1: not), which the reader stops
 * before it returns or exits: a callback may exit, but not longjmp out of
 * the reader. */
void trace_read(struct trace_run *run, char **files, int nfiles,
		const struct trace_ops *ops, void *ctx);
/* As trace_read(), but bad input (its line printed all the same) returns
 * -1 instead of exiting; 0 when every file was read. */
int trace_read_try(struct trace_run *run, char **files, int nfiles,
		   const struct trace_ops *ops, void *ctx);
/* What the reader of a file held when bad input's die() did not return
 * (its hook longjmp'd out: a fuzzing harness), freed; the run keeps what
 * was read (trace_run_free). */
void trace_read_abandon(void);
/* Read only the <node> start tags, to know epochs and the run's span
 * before streaming. */
void trace_prescan(struct trace_run *run, char **files, int nfiles);
/* The line of the element whose callback runs (0 outside callbacks). */
long trace_line(void);
void trace_run_free(struct trace_run *run);

/* --- Bulk loading, for bindings (python/island) ------------------------
 * The records of traces as tables of columns, read in a thread of the
 * library's own: the events (every <compute>, <io>, <region>, <wait>,
 * <signal>: their attributes as written, then kind, node, pid, tid; a
 * compute's start and end on its thread's clock, an io's dur), in
 * batches; then the nodes (clock_offset 0 when absent), processes,
 * threads (node, pid), files and sockets (node). A value is a number
 * where the format says so (docs/trace-format.md, Ranges: a time in
 * seconds, an integer), else its text.
 *
 *	struct trace_loader *l = trace_loader_open(files, n, 65536, 0);
 *	const struct trace_table *t;
 *
 *	while ((t = trace_loader_next(l)))
 *		...			// t->nrows rows of events
 *	if (trace_loader_error(l))
 *		...			// "FILE:LINE: problem": nothing printed
 *	t = trace_loader_table(l, TRACE_T_THREADS);
 *	trace_loader_close(l);
 */
enum trace_cell { TRACE_CELL_NONE, TRACE_CELL_INT, TRACE_CELL_REAL, TRACE_CELL_STR };

struct trace_column {
	const char *name;
	uint8_t *kind;		/* per row: enum trace_cell */
	int64_t *val;		/* per row: the integer, the double's bits, or
				 * the string's index in strs; 0 when NONE */
	unsigned kinds;		/* 1 << each kind in this batch's rows */
};

struct trace_table {
	size_t nrows, ncols;
	struct trace_column *cols;
	char **strs;		/* the strings of the cells; strs[0] is "" */
	size_t nstrs;
	/* each row's shape: the columns it has, in the order a record of it
	 * would have its keys, shape_cols[shape_at[s] .. shape_at[s + 1]) */
	uint32_t *shape;
	uint32_t *shape_at, *shape_cols;
	size_t nshapes;
};
/* Columns, strings and shapes only grow from one batch to the next. */

enum trace_tables {
	TRACE_T_EVENTS, TRACE_T_NODES, TRACE_T_PROCESSES, TRACE_T_THREADS,
	TRACE_T_FILES, TRACE_T_SOCKETS, TRACE_T_N
};

#define TRACE_LOAD_NOEVENTS 1u	/* no event rows: the other tables only */
#define TRACE_LOAD_CONTEXT  2u	/* events also have "thread" (its thread's
				 * name) and "exe" (its process's executable) */

struct trace_loader;
/* Read files (in order, the nodes of one run); batch: event rows per
 * batch, 0 all in one. NULL when out of memory. */
struct trace_loader *trace_loader_open(const char *const *files, int nfiles,
				       size_t batch, unsigned flags);
/* The next batch of events (valid until the next call), or NULL: the end,
 * or bad input. */
const struct trace_table *trace_loader_next(struct trace_loader *l);
/* After trace_loader_next() returned NULL: the table WHICH, or NULL. */
const struct trace_table *trace_loader_table(struct trace_loader *l, int which);
/* After trace_loader_next() returned NULL: the "FILE:LINE: problem" of
 * bad input, or NULL. */
const char *trace_loader_error(struct trace_loader *l);
/* Stop reading (at most a batch more is read) and free everything. */
void trace_loader_close(struct trace_loader *l);

#ifdef __cplusplus
}
#endif

#endif
