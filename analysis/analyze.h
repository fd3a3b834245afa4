/* island-analyze: shared declarations of the trace reader, the table
 * printer, the interval math and the reports. */
#ifndef ISLAND_ANALYZE_H
#define ISLAND_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "island-trace.h"
#include "util.h"

#define NS 1000000000LL

/* Time categories of the consumption report; they add up to live. */
enum cat {
	CAT_COMPUTE, CAT_SLEEP, CAT_FILEREAD, CAT_FILEWRITE, CAT_FILEMETA,
	CAT_NETSEND, CAT_NETRECV, CAT_PIPE, CAT_BLOCKED, CAT_STOPPED, CAT_N
};
extern const char *const cat_names[CAT_N];

struct peers;

/* The analyzer's reading (analysis/feed.c): the trace library's reader
 * (include/island-trace.h) with the filters (--from, --node, ...)
 * applied to every report's callbacks. Bad input exits 2 with
 * FILE:LINE: message. Node offsets align on the earliest epoch seen so
 * far unless prescan() ran first. */
void read_traces(struct trace_run *run, char **files, int nfiles,
		 const struct trace_ops *ops, void *ctx);
/* The same, adding every send and socket to peers (consumption). */
void read_traces_peers(struct trace_run *run, char **files, int nfiles,
		       const struct trace_ops *ops, void *ctx, struct peers *peers);
/* A report's reading: begin makes its state, the ops get the events,
 * end (the traces read) emits its tables and frees the state. A report
 * runs its pass alone (pass_run); the HTML page runs several side by
 * side in one reading (read_passes), each seeing the calls it would see
 * alone. */
struct passdef {
	void *(*begin)(struct trace_run *run);
	const struct trace_ops *ops;
	void (*end)(void *st, struct trace_run *run, char **files, int nfiles);
	bool every_call;	/* a report of time: every call of the selected threads */
	struct peers *(*peers)(void *st);	/* the peers it gathers the sends in, or NULL */
};
struct report_pass {
	const struct passdef *def;
	void *st;
};
void pass_begin(struct report_pass *p, const struct passdef *def, struct trace_run *run);
void read_passes(struct trace_run *run, char **files, int nfiles, struct report_pass *v, size_t n);
int pass_run(const struct passdef *def, int argc, char **argv);
extern const struct passdef summary_pass, calls_pass, files_pass, access_pass,
	consumption_pass, heatmap_pass, deps_pass;
/* Read only the <node> start tags, to know epochs and the run's span
 * before streaming (export, plot). */
void prescan(struct trace_run *run, char **files, int nfiles);
void run_free(struct trace_run *run);

/* A column of a report's table. Its name is the CSV header and the text
 * header, a safe identifier (a DataFrame attribute, an SQL column), and is
 * described in docs/island-analyze.md (tests/e2e/docs-match.sh checks). */
enum col_kind { COL_TEXT, COL_INT, COL_SECS, COL_PCT, COL_NUM };
extern const char *const col_kind_names[];
#define COL_SIGNED 0x1		/* a difference: text shows '+' above zero */
#define COL_PER    0x2		/* one column per node or state, named after
				 * it; name is the placeholder the docs use */
#define COL_OPT    0x4		/* only with an option (e.g. --by callsite):
				 * the report names it to table_with() */
struct coldef {
	const char *name;
	enum col_kind kind;
	unsigned flags;
};
/* A table a report can print; a report's tables are an array ended by
 * { NULL }, the first the default of --csv. */
struct tabledef {
	const char *name;
	const struct coldef *cols;
	int ncols;
	const char *needs;	/* the options that bring it, when some do */
};
#define TABLEDEF(name, cols) { name, cols, (int)(sizeof(cols) / sizeof(cols[0])), NULL }
#define TABLEDEF_NEEDS(name, cols, needs) \
	{ name, cols, (int)(sizeof(cols) / sizeof(cols[0])), needs }

/* Options shared by every report (one table in analyze_main.c). */
struct report_opts {
	bool csv, starts, by_node;
	const char *by;		/* --by as given, or NULL */
	int depth;
	const char *label, *children_of, *format, *output, *truth, *table;
	bool dot, critical;
	int within;
	double cores;
	int64_t span;
	bool has_span;
	int width;
	int64_t align;		/* access: --align BYTES */
	const char *value;	/* profile: --value cpu|wall|alloc */
	bool user_only, categories;
	int64_t cutoff_ns;	/* profile timeline: --cutoff MS */
	const char *whatif, *validate;	/* whatif: --if SPEC, --validate REPORT */
	const char *sort;	/* --sort [-]COL[,...], or NULL */
	long limit;		/* --limit N rows, 0 none */
	bool limit_taken;	/* the report applied --limit itself (top) */
	const struct tabledef *tables;	/* the report's */
};
extern struct report_opts opt;

/* filter.c: --from/--to/--node/--thread/--path/--call, applied by the
 * reader to every report. */
struct filter {
	bool active, warned, has_from, has_to, has_tid;
	bool rows_not_calls;	/* sockets, regions: filter_rows_not_calls() */
	int64_t from, to;	/* ns from the run's start */
	long tid;
	const char *node, *path;
	const char *what;	/* examined: "call", "file", ... */
	const char *unfit;	/* a filter the rows cannot take (filter_done says) */
	/* Reports of time (consumption, ttx, utilization) set every_call:
	 * the reader then hands them every call of the selected threads,
	 * selected telling whether --call/--path chose it, and they clip
	 * what they account to the window (filter_select()). */
	bool every_call, selected;
	const struct trace_run *run;	/* the one being read */
	char **calls;
	size_t ncalls, capcalls, examined, matched;
};
extern struct filter filt;
void filter_set_calls(const char *list);
void filter_set_time(bool to, const char *v);
void filter_set_thread(const char *v);
void filter_set_node(const char *v);
const char *filter_take_node(void);
void filter_set_path(const char *v);
bool filter_timed(void);
bool filter_node(const struct trace_node *n);
bool filter_thread(const struct trace_thread *t);
bool filter_time(const struct trace_run *run, const struct trace_node *n, int64_t start);
bool filter_path(const char *path);
bool filter_file(const struct trace_node *n, const char *path);
bool filter_socket(const struct trace_node *n);
bool filter_region(const struct trace_run *run, const struct trace_thread *t,
		   const struct trace_region *r);
/* The report's rows are sockets or regions, not calls: --path and --call
 * (for sockets also --from, --to, --thread) select none of them. */
void filter_rows_not_calls(void);
bool filter_io(const struct trace_run *run, const struct trace_thread *t, const struct trace_io *io);
/* The instants a report of time accounts: inside [lo, hi) (the window, in
 * the node's time) and, with --call or --path, inside a selected call.
 * out: the piece being accounted is not selected. */
struct sel {
	bool on, calls, out;
	int64_t lo, hi;
};
void filter_select(struct sel *s, const struct trace_node *n);
void filter_done(const struct trace_run *run, bool offered);

/* table.c: an aligned text table or CSV. Cells are copied. */
struct table;
struct table *table_new(const struct tabledef *def);
/* With the COL_PER columns of def expanded, one per name of per. */
struct table *table_open(const struct tabledef *def, const char *const *per, size_t nper);
/* With the COL_OPT columns named in with (NULL-terminated, or NULL). */
struct table *table_with(const struct tabledef *def, const char *const *with);
/* Column alignment: 'l' or 'r' per column (default: 'l' for text, 'r' for numbers). */
void table_align(struct table *t, const char *align);
void table_add(struct table *t, const char *cell);
void table_addf(struct table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A missing value: empty in CSV, text (e.g. "-") in the aligned table. */
void table_none(struct table *t, const char *text);
void table_pct(struct table *t, double num, double den);
void table_print(struct table *t, FILE *f, bool csv);
void table_free(struct table *t);
/* Print (text or --csv), write (-o DIR: DIR/NAME.csv) or skip (--table
 * picks another) a finished table, and free it. */
void table_emit(struct table *t);
/* For rows streamed by the report: where they go (the CSV header written
 * when *csv), or NULL when the table is not wanted. */
FILE *table_stream_open(const struct tabledef *def, const char *const *per, size_t nper,
			bool *csv);
void table_stream_close(FILE *f);
void tables_done(const char *report);
/* The HTML page: finished tables go to fn, which frees them, instead of
 * being printed (NULL: printed again). */
typedef void (*table_sink)(void *arg, struct table *t);
void table_set_sink(table_sink fn, void *arg);
const struct tabledef *table_def(const struct table *t);
int table_ncols(const struct table *t);
size_t table_nrows(const struct table *t);	/* without the header */
const char *table_cell(const struct table *t, size_t row, int col);	/* row 0: the header */
/* --sort: each key names a column of one of defs' tables (else exit 2,
 * with the nearest name). */
void table_check_sort(const char *report, const struct tabledef *defs);
/* --limit for rows a report streams: how many to write (SIZE_MAX: all). */
size_t table_stream_limit(void);
const struct tabledef *table_find(const struct tabledef *defs, const char *name);
void csv_field(FILE *f, const char *s);
const char *intern(const char *s);

/* The tables of each report (declared beside it). */
extern const struct tabledef summary_tables[], calls_tables[], access_tables[], sums_tables[], timeline_tables[],
	consumption_tables[], files_tables[], sockets_tables[], ttx_tables[],
	utilization_tables[], regions_tables[], compare_tables[], export_tables[],
	net_tables[], deps_tables[], profile_tables[], whatif_tables[], top_tables[],
	heatmap_tables[], queues_tables[];

/* Number formatting for reports. */
char *fmt_secs(char *buf, size_t n, int64_t ns);	/* "1.000733" */
char *fmt_nsecs(char *buf, size_t n, int64_t ns);	/* "1.000733042" */
char *fmt_pct(char *buf, size_t n, double num, double den); /* "35.82" */

/* ivl.c: interval math. */
struct ivl {
	int64_t start, end;
};
/* Sort and merge in place; returns the new count. */
size_t ivl_merge(struct ivl *v, size_t n);
int64_t ivl_union_len(struct ivl *v, size_t n);	/* sorts v */
size_t stop_first(const struct trace_stop *s, size_t n, int64_t a);
int64_t ivl_overlap(const struct trace_stop *s, size_t n, int64_t a, int64_t b);

/* A compact growing list of disjoint, sorted intervals (delta varints). */
struct ilist {
	unsigned char *buf;
	size_t len, cap;
	int64_t last, first, total;	/* last end, first start, sum of lengths */
	size_t n;			/* encoded intervals */
	int64_t pstart, pend;		/* the pending (last) interval */
	bool has_pending;
	int64_t off;			/* added when reading */
};
void ilist_add(struct ilist *l, int64_t start, int64_t end);
void ilist_free(struct ilist *l);
/* Length of the union of several lists, by a heap merge: O(n log k). */
int64_t ilist_union(struct ilist *const *lists, size_t k);

/* spans.c: span files "component,state,start,end[,cores,owner]". */
struct span {
	int comp, state;
	int64_t start, end;
	double cores;
	int owner;		/* 0 app, 1 system */
};
struct spans {
	struct span *v;
	size_t n, cap;
	char **comps, **states;
	size_t ncomps, nstates;
};
bool is_span_file(const char *path);
void spans_read(struct spans *s, const char *path);
int spans_parse_line(struct spans *s, char *line, const char **why);
void spans_free(struct spans *s);

/* ttx.c: the computation behind the ttx report, shared with tests. */
struct ttx_result {
	size_t ncomps, nstates;
	int64_t *comp_ttx;		/* per component */
	int64_t *comp_state;		/* ncomps x nstates */
	int64_t *state_union;		/* per state */
	int64_t ttx, ttc, naive;
};
void ttx_spans(const struct spans *s, struct ttx_result *r);
void ttx_result_free(struct ttx_result *r);

char **run_comp_names(struct trace_run *run, bool by_node);
bool all_span_files(int argc, char **argv);

/* utilization.c */
struct util_result {
	double avail, app, sys, idle;	/* core-seconds */
};
void util_spans(const struct spans *s, double cores, int64_t span, bool has_span,
		struct util_result *u);

/* consumption.c: per-thread category accounting, shared with compare. */
struct consumption {
	int64_t live;
	int64_t cat[CAT_N];
};
/* The run as a whole (consumption_collect): the threads' sums, and the
 * wall-clock view: each category's union over the threads (the instants
 * some thread was in it), live the union of all. */
struct cons_all {
	struct consumption sum, wall;
};
typedef void (*cat_sink)(void *arg, enum cat c, int64_t start, int64_t end);
struct acct {
	int64_t cat[CAT_N];	/* the thread's whole life */
	int64_t in[CAT_N];	/* the part in sel (all of it without filters) */
	struct sel sel;
	cat_sink sink;		/* gets every categorised interval in sel, or NULL */
	void *arg;
};
enum cat io_category(const struct trace_io *io);
void account_gap(struct acct *a, const struct trace_node *n, int64_t start, int64_t end);
void account_io(struct acct *a, const struct trace_node *n, const struct trace_io *io,
		int64_t start, int64_t end);
/* Walk a thread's calls in order: gaps are cpu, calls their category;
 * receives are split at the peer's send when peers is set. With
 * filt.every_call the selection (filter_select) is walk_thread's. */
struct thread_walk {
	int64_t cursor;
	struct acct acct;
	struct peers *peers;	/* kept by walk_thread */
};
void walk_thread(struct thread_walk *w, struct trace_thread *t);
void walk_io(struct thread_walk *w, struct trace_thread *t, const struct trace_io *io);
void walk_end(struct thread_walk *w, struct trace_thread *t);

/* peers.c: the peers' send times across the traces of a run, to split a
 * receive's wait (consumption). */
#define NO_SEND INT64_MIN
struct peers;
struct peers *peers_new(void);
void peers_free(struct peers *p);
bool peer_is_address(const char *a);
void peers_send(struct peers *p, const struct trace_node *n, const struct trace_io *io);
void peers_socket(struct peers *p, const struct trace_node *n, const struct trace_socket *s);
bool peers_sent(struct peers *p, const struct trace_node *n, const char *peer, int64_t end,
		int64_t *sent);
/* All the sends and sockets of the traces, read in a first pass. */
struct peers *peers_collect(char **files, int nfiles);
/* Does any connection have both ends in the run? */
bool peers_paired(struct peers *p);

/* regions.c: the aggregated tree, shared with compare. */
struct rnode {
	char *label;
	int depth;
	long count;
	int64_t incl, excl;
	struct rnode *parent, *child, *next;
};
struct rtree;
struct rtree *rtree_new(void);
void rtree_thread_region(struct rtree *rt, struct trace_thread *t, const struct trace_region *r);
void rtree_thread_end(struct rtree *rt, struct trace_thread *t);
struct rnode *rtree_root(struct rtree *rt);
void rtree_free(struct rtree *rt);

/* Reports: each reads the traces named on the command line. */
typedef int (*report_fn)(int argc, char **argv);
/* export --format xml | isb */
int export_trace(const char *fmt, int argc, char **argv);
/* export --format otf2 -o DIR (export_otf2.c; without libotf2 at build
 * time, an error) */
int export_otf2(int argc, char **argv);
int report_summary(int argc, char **argv);
int report_top(int argc, char **argv);
int report_calls(int argc, char **argv);
int report_queues(int argc, char **argv);
int report_access(int argc, char **argv);
int report_sums(int argc, char **argv);
int report_timeline(int argc, char **argv);
int report_consumption(int argc, char **argv);
int report_files(int argc, char **argv);
int report_sockets(int argc, char **argv);
int report_ttx(int argc, char **argv);
int report_utilization(int argc, char **argv);
int report_regions(int argc, char **argv);
int report_compare(int argc, char **argv);
int report_export(int argc, char **argv);
int report_plot(int argc, char **argv);
int report_deps(int argc, char **argv);
int report_merge(int argc, char **argv);
int report_profile(int argc, char **argv);
int report_whatif(int argc, char **argv);
int report_heatmap(int argc, char **argv);

/* heatmap.c: file bytes and operations per time bin per node (read 0,
 * write 1), Darshan's binning; shared with the HTML report. */
struct heatbin {
	int64_t ops[2], bytes[2];
};
#define HEAT_MAXBINS 200
struct heatmap {
	int64_t base;		/* run time of bin 0's start */
	int64_t from;		/* the same, from the run's start */
	int64_t width;		/* ns per bin */
	int nbins;
	size_t nnodes;
	struct heatbin *v;	/* nnodes x HEAT_MAXBINS, by node index */
	bool based, fixed;
	struct trace_run *run;
};
void heatmap_collect(char **files, int nfiles, struct trace_run *run, struct heatmap *h);
void heatmap_free(struct heatmap *h);

/* replayrep.c: island-replay's fidelity report (--report), for the page. */
struct rrnode {
	char *name;
	double original, replayed;	/* seconds */
};
struct replayrep {
	struct rrnode *nodes;
	size_t n, cap;
	double original, replayed;	/* the run's */
	bool has_run;
};
/* 0, or -1 with "NAME:LINE: problem" in err. */
int replayrep_parse(const char *buf, size_t len, const char *name, struct replayrep *r,
		    char *err, size_t errlen);
void replayrep_read(const char *path, struct replayrep *r);	/* bad input: exit 2 */
void replayrep_free(struct replayrep *r);

/* report_html.c: the HTML page (report -o FILE.html, --replay FILE) */
int report_html(int argc, char **argv);
extern const char *html_replay;
extern const char *const cat_colors[CAT_N];

/* Gathered by the sums report, shared with compare. */
enum sum {
	SUM_FILEREAD, SUM_FILEWRITE, SUM_FILESOPENED, SUM_NETSEND,
	SUM_TCPSEND, SUM_UDPSEND, SUM_NETRECV, SUM_TCPRECV, SUM_UDPRECV,
	SUM_INSOCKETS, SUM_OUTSOCKETS, SUM_EVENTS, SUM_CPU, SUM_N
};
extern const char *const sum_names[SUM_N];
struct sums {
	size_t nnodes;
	int64_t (*node)[SUM_N];
	int64_t total[SUM_N];
	int nocpu;		/* threads without a cpu attribute */
};
void sums_collect(char **files, int nfiles, struct trace_run *run, struct sums *s);
void sum_cell(char *buf, size_t n, enum sum k, int64_t v);
void consumption_collect(char **files, int nfiles, struct trace_run *run,
			 struct consumption **per, struct cons_all *all);
struct rtree *regions_collect(char **files, int nfiles, struct trace_run *run);

/* net.c: the packets beside the calls (--pcap); deps --from trace|net|both. */
int report_net(int argc, char **argv);
extern const char *deps_from;
extern const char *deps_annotate;     /* deps --annotate FILE */

/* flows.c: the Chrome export's arrows (dependencies, network messages). */
struct flows;
struct flows *flows_new(void);
void flows_io(struct flows *f, const struct trace_thread *t, long pid, const struct trace_io *io);
void flows_dep(struct flows *f, const struct trace_thread *t, const struct trace_dep *d);
void flows_socket(struct flows *f, const struct trace_node *n, const struct trace_socket *s);
size_t flows_write(struct flows *f, FILE *out);	/* returns the arrows */
void flows_free(struct flows *f);

/* procs.c: the program a process runs (its last exec's image, else its
 * exe: a basename, interned) and that exec's args ("" none), as far as
 * the reading has gone; feed.c notes every exec. */
void procs_io(const struct trace_thread *t, const struct trace_io *io);
const char *proc_name(const struct trace_proc *p);
const char *proc_args(const struct trace_proc *p);

/* sites.c: call sites (--callsites) as "function (file:line)", resolved
 * with libdw from the binaries named by the process's <module>s; interned. */
const char *site_label(const struct trace_thread *t, const char *site);
struct frame {
	const char *func;	/* the function, or binary+0xOFF */
	const char *label;	/* "function (file:line)" as far as known */
	const char *module;	/* the binary's path, "" when unknown */
};
/* The frame an address of the process stands for (interned strings). */
const struct frame *site_frame(const struct trace_thread *t, const char *site);
/* --binaries DIR: where else to look for binaries, by build id */
void sites_binaries(const char *dir);

/* annotate.c: the traces as one, with dependencies as <wait>/<signal>.
 * A dependency: node x's call that started at xstart (ns, node time)
 * waited for node t's call that started at tstart. */
struct adep {
	const char *xnode, *tnode;
	int64_t xstart, tstart;
};
int annotate_write(const char *out, char **files, int nfiles,
		   const struct adep *deps, size_t ndeps);

/* access's mpiio table (access_mpiio.c): Darshan's MPI-IO counters */
struct trace_thread;
struct trace_io;
void access_mpiio_io(struct trace_thread *t, const struct trace_io *io);
#define ACCESS_MPIIO_NCOLS 34
extern const struct coldef access_mpiio_cols[ACCESS_MPIIO_NCOLS];
void access_mpiio_emit(const struct tabledef *def);

#endif
