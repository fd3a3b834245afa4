/* island-analyze REPORT [options] TRACE...: where the time went. */
#include "analyze.h"
#include "zstdio.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>



/* The reports, with the tables each declares (NULL: no table, e.g. plot's
 * SVG). A new report adds its line here and declares its tables beside
 * its code (docs/island-analyze.md, "Tables and columns"). */
static const struct report {
	const char *name;
	report_fn fn;
	const struct tabledef *tables;
	const char *by;		/* the --by keys it takes, '|'-separated; NULL none */
	const char *help;
} reports[] = {
	{ "summary",     report_summary,     summary_tables,     NULL, "nodes, processes, threads, files, sockets; the run's seconds, calls, bytes and CPU time" },
	{ "top",         report_top,         top_tables,         "process|file|call", "the --limit N (default 10) longest calls: who made them, on what, when; --by: the N longest of each" },
	{ "calls",       report_calls,       calls_tables,       "call|node|thread|file|callsite|level", "per call: count, errors, bytes, latency total, mean, p50, p90, p99, max" },
	{ "access",      report_access,      access_tables,      "callsite", "per file: Darshan's access-pattern counters, size histograms, common sizes" },
	{ "sums",        report_sums,        sums_tables,        "node|thread", "totals per resource" },
	{ "timeline",    report_timeline,    timeline_tables,    NULL, "every returned call in time order (--starts); holds the calls in memory" },
	{ "consumption", report_consumption, consumption_tables, NULL, "per thread: seconds and % of live time per category; holds the network sends and receives" },
	{ "files",       report_files,       files_tables,       "callsite", "per file usage" },
	{ "sockets",     report_sockets,     sockets_tables,     NULL, "per socket usage" },
	{ "ttx",         report_ttx,         ttx_tables,         "node|thread", "TTC, TTX and overlap-aware totals per state (span files too)" },
	{ "utilization", report_utilization, utilization_tables, NULL, "app / system / idle share of --cores N over the run or --span S" },
	{ "regions",     report_regions,     regions_tables,     NULL, "the region tree (--depth, --label, --children-of)" },
	{ "compare",     report_compare,     compare_tables,     NULL, "two traces side by side, and the resource to add first: compare A B" },
	{ "export",      report_export,      export_tables,      NULL, "--format csv|chrome|xml|isb: every event, trace-event JSON, or the trace itself" },
	{ "plot",        report_plot,        NULL,               NULL, "an SVG timeline (-o FILE, --width PX); holds one pixel column per lane" },
	{ "net",         report_net,         net_tables,         NULL, "tables connections, calls, messages: the packets beside the calls (--pcap); holds the calls" },
	{ "profile",     report_profile,     profile_tables,     NULL, "profile REPORT: raw, inclusive, callers, breakdown, timeline, allocs, leaks (--profile traces; tables named after the reports)" },
	{ "merge",       report_merge,       NULL,               NULL, "several traces (each rank's) as one multi-node trace: merge -o RUN.xml TRACE..." },
	{ "heatmap",     report_heatmap,     heatmap_tables,     NULL, "file bytes and operations per time bin per node, read and write (Darshan's bins: at most 200, from 0.1 s wide)" },
	{ "report",      report_html,        NULL,               NULL, "one self-contained HTML page of the run (-o FILE.html; --replay FILE: a replay's fidelity report beside it)" },
	{ "deps",        report_deps,        deps_tables,        NULL, "tables waits, messages, measures: the dependencies (--from trace|net|both, --dot, --truth); holds the I/O numbers" },
	{ "whatif",      report_whatif,      whatif_tables,      NULL, "the run's time if a node's file I/O, network or CPU were X times faster (--if NODE:RES*X) or its file I/O held to a rate (--if NODE:filewrite=RATE); --validate REPLAY_REPORT; holds the calls" },
	{ "queues",      report_queues,      queues_tables,      NULL, "per asynchronous queue (libaio context, io_uring, POSIX aio): operations, bytes, depth mean and max" },
};
#define NREPORTS (sizeof(reports) / sizeof(reports[0]))
static const struct report *rep;
static int main_argc;
static char **main_argv;

static const struct report *find_report(const char *name)
{
	const char *names[NREPORTS];

	for (size_t i = 0; i < NREPORTS; i++) {
		if (!strcmp(name, reports[i].name))
			return &reports[i];
		names[i] = reports[i].name;
	}
	const char *s = suggest(name, names, NREPORTS);

	if (s)
		die(2, "unknown report '%s' (did you mean %s? try --help)", name, s);
	die(2, "unknown report '%s' (try --help)", name);
}

/* Option parsers: each sets opt from the option's argument. */
typedef void (*opt_fn)(const char *name, const char *v, void *field);

static long num_arg(const char *name, const char *v, long min)
{
	char *end;
	long x = strtol(v, &end, 10);

	if (*end || end == v || x < min)
		die(2, "--%s: '%s' is not a number >= %ld", name, v, min);
	return x;
}

static void set_flag(const char *name, const char *v, void *field)
{
	*(bool *)field = true;
}

static void set_str(const char *name, const char *v, void *field)
{
	*(const char **)field = v;
}

static void set_depth(const char *name, const char *v, void *field)
{
	*(int *)field = (int)num_arg(name, v, 0);
}

static void set_width(const char *name, const char *v, void *field)
{
	*(int *)field = (int)num_arg(name, v, 100);
}

static void set_by(const char *name, const char *v, void *field)
{
	static const char *const bys[] = { "node", "thread", "file", "call", "callsite", "process", "level" };
	size_t i;

	for (i = 0; i < sizeof(bys) / sizeof(bys[0]); i++)
		if (!strcmp(v, bys[i]))
			break;
	if (i == sizeof(bys) / sizeof(bys[0])) {
		const char *s = suggest(v, bys, sizeof(bys) / sizeof(bys[0]));

		if (s)
			die(2, "--by: '%s' is none of node, thread, file, call, callsite, process, level (did you mean %s?)", v, s);
		die(2, "--by: '%s' is none of node, thread, file, call, callsite, process, level", v);
	}
	opt.by = bys[i];
	opt.by_node = !strcmp(v, "node");
}

/* --from: a time (seconds from the run's start) for every report; for
 * deps also its source of edges (trace, net, both), which no other
 * report takes. */
static void set_from(const char *name, const char *v, void *field)
{
	bool source = !strcmp(v, "trace") || !strcmp(v, "net") || !strcmp(v, "both") ||
		      !strcmp(v, "mpi");

	if (source && rep && !strcmp(rep->name, "deps"))
		deps_from = v;
	else if (source)
		die(2, "--from %s: only deps takes trace, net or both; for %s --from is a number of seconds",
		    v, rep ? rep->name : "this report");
	else
		filter_set_time(false, v);
}

/* Whether the report takes --by key. */
static bool takes_by(const struct report *r, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = r->by; p && *p; p += strcspn(p, "|"), p += *p == '|')
		if (strcspn(p, "|") == n && !strncmp(p, key, n))
			return true;
	return false;
}

static void set_to(const char *name, const char *v, void *field)
{
	filter_set_time(true, v);
}

static void set_node(const char *name, const char *v, void *field)
{
	filter_set_node(v);
}

static void set_thread(const char *name, const char *v, void *field)
{
	filter_set_thread(v);
}

static void set_path(const char *name, const char *v, void *field)
{
	filter_set_path(v);
}

static void set_call(const char *name, const char *v, void *field)
{
	filter_set_calls(v);
}

static void set_limit(const char *name, const char *v, void *field)
{
	opt.limit = num_arg(name, v, 1);
}

static void set_align(const char *name, const char *v, void *field)
{
	opt.align = num_arg(name, v, 1);
}

static void set_cutoff(const char *name, const char *v, void *field)
{
	int64_t ns;

	if (parse_sec(v, &ns) || ns < 0)
		die(2, "--cutoff: '%s' is not a number of milliseconds", v);
	opt.cutoff_ns = ns / 1000;	/* milliseconds */
}

static void set_cores(const char *name, const char *v, void *field)
{
	char *end;

	opt.cores = strtod(v, &end);
	if (*end || end == v || opt.cores <= 0)
		die(2, "--cores: '%s' is not a positive number", v);
}

static void set_span(const char *name, const char *v, void *field)
{
	if (parse_sec(v, &opt.span) || opt.span <= 0)
		die(2, "--span: '%s' is not a positive number of seconds", v);
	opt.has_span = true;
}

static void set_binaries(const char *name, const char *v, void *field)
{
	sites_binaries(v);
}

static void set_within(const char *name, const char *v, void *field)
{
	char *end;
	long p = strtol(v, &end, 10);

	if (*end || end == v || p < 1 || p > 1000000)
		die(2, "--within: '%s' is not a period from 1 to 1000000", v);
	opt.within = (int)p;
}

static void usage(FILE *f);

static void help(const char *name, const char *v, void *field)
{
	usage(stdout);
	exit(0);
}

static void version(const char *name, const char *v, void *field)
{
	printf("island-analyze %s\n", ISLAND_VERSION);
	exit(0);
}

/* --list-columns: "REPORT TABLE COLUMN KIND" for every column the report
 * (given first or after it; else every report) can print, from the
 * declarations the code prints with: what the docs test checks
 * docs/island-analyze.md against. */
static void list_columns(const char *name, const char *v, void *field)
{
	if (!rep && optind < main_argc)
		rep = find_report(main_argv[optind]);
	for (size_t i = 0; i < NREPORTS; i++) {
		if (rep && rep != &reports[i])
			continue;
		for (const struct tabledef *t = reports[i].tables; t && t->name; t++)
			for (int c = 0; c < t->ncols; c++)
				printf("%s %s %s %s%s\n", reports[i].name, t->name,
				       t->cols[c].name, col_kind_names[t->cols[c].kind],
				       t->cols[c].flags & COL_PER ? " per" :
				       t->cols[c].flags & COL_OPT ? " opt" : "");
	}
	if (fflush(stdout))
		die(2, "stdout: write error:");
	exit(0);
}

/* The one option table: getopt's, the help text and the parsing. */
static const struct optdef {
	const char *name;
	int shortopt;
	const char *arg, *help;
	opt_fn set;
	void *field;
} optdefs[] = {
	{ "csv",         0,   NULL,   "print the table as CSV with a header row (the first table, or --table's)", set_flag, &opt.csv },
	{ "table",       0,   "NAME", "only the table NAME (net, deps: several tables; see --list-columns)", set_str, &opt.table },
	{ "by",          0,   "KEY",  "split the rows by KEY; the keys each report takes are listed with it above", set_by, NULL },
	{ "sort",        0,   "[-]COL[,...]", "sort every table's rows by the columns COL (-COL: descending; see --list-columns)", set_str, &opt.sort },
	{ "limit",       0,   "N",    "only the first N rows of each table (after --sort); top: the N longest calls (of each --by group)", set_limit, NULL },
	{ "starts",      0,   NULL,   "timeline: also the \"start call\" lines",  set_flag,  &opt.starts },
	{ "depth",       0,   "N",    "regions: down to depth N",                  set_depth, &opt.depth },
	{ "label",       0,   "L",    "regions: the subtrees of regions labelled L", set_str, &opt.label },
	{ "children-of", 0,   "L",    "regions: the children of regions labelled L", set_str, &opt.children_of },
	{ "cores",       0,   "N",    "utilization: cores provided",               set_cores, NULL },
	{ "value",       0,   "V",    "profile: what a snapshot counts: cpu (default), wall or alloc", set_str, &opt.value },
	{ "user-only",   0,   NULL,   "profile: library and system frames count for the user function that called them", set_flag, &opt.user_only },
	{ "categories",  0,   NULL,   "profile: add functions up into categories (user code, libc/system, memory management)", set_flag, &opt.categories },
	{ "cutoff",      0,   "MS",   "profile timeline: leave out functions on the stack less than MS milliseconds", set_cutoff, NULL },
	{ "align",       0,   "BYTES", "access: the alignment unaligned offsets are counted against (default 4096)", set_align, NULL },
	{ "span",        0,   "S",    "utilization: seconds provided (default: the run)", set_span, NULL },
	{ "format",      0,   "F",    "export: csv, chrome, xml, isb or otf2; profile raw: folded", set_str,   &opt.format },
	{ "output",      'o', "PATH", "export, plot, report: write to the file PATH; merge: the merged trace; tables: write each as PATH/TABLE.csv", set_str, &opt.output },
	{ "width",       0,   "PX",   "plot: width of the time axis in pixels",    set_width, &opt.width },
	{ "dot",         0,   NULL,   "deps: print a Graphviz graph",              set_flag,  &opt.dot },
	{ "critical-path", 0, NULL,   "deps: the critical path through the waits (--from trace) or the MPI level's messages (--from mpi: also what each rank waited for, summed)", set_flag, &opt.critical },
	{ "truth",       0,   "PATH", "deps: precision and recall against ground truth (file, or directory of truth.* files)", set_str, &opt.truth },
	{ "if",          0,   "SPEC", "whatif: NODE:RES*X (RES cpu, file, net: X times faster) or NODE:RES=RATE (fileread, filewrite bytes/s), comma-separated; NODE * for all", set_str, &opt.whatif },
	{ "validate",    0,   "REPORT", "whatif: island-replay --report of a replay under that change: replayed beside predicted", set_str, &opt.validate },
	{ "from",        0,   "S",    "only calls, computes and regions starting S seconds or more after the run's start; deps: trace (the causality engine's waits, default), net (message edges of the packets), both, or mpi (the MPI level's messages and collectives)", set_from, NULL },
	{ "to",          0,   "S",    "only calls, computes and regions starting before S seconds after the run's start", set_to, NULL },
	{ "node",        0,   "N",    "only node N's threads, files and sockets", set_node, NULL },
	{ "thread",      0,   "TID",  "only the thread TID", set_thread, NULL },
	{ "path",        0,   "GLOB", "only calls on paths matching GLOB (fnmatch), and those files", set_path, NULL },
	{ "call",        0,   "NAMES", "only these calls (comma-separated api names)", set_call, NULL },
	{ "replay",      0,   "FILE", "report: island-replay's fidelity report (--report FILE) of the trace, original against replayed per node", set_str, &html_replay },
	{ "annotate",    0,   "FILE", "deps --from net: also write the traces as one trace with the message edges as <wait>/<signal> (island-replay)", set_str, &deps_annotate },
	{ "within",      0,   "P",    "deps: also recall to within P I/Os (the sampling period)", set_within, NULL },
	{ "binaries",    0,   "DIR",  "profile, callsites: binaries not where the trace says (or another build there) are looked up by build id under DIR (recursively; may be given again) and in /usr/lib/debug/.build-id", set_binaries, NULL },
	{ "list-columns", 0,  NULL,   "print REPORT TABLE COLUMN KIND for every column (of REPORT, if given)", list_columns, NULL },
	{ "help",        'h', NULL,   "this help",                                 help,      NULL },
	{ "version",     'V', NULL,   "print the version",                         version,   NULL },
};
#define NOPTS (sizeof(optdefs) / sizeof(optdefs[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: island-analyze REPORT [options] TRACE...\n\n"
		"TRACE is an Island trace (.xml, .xml.gz, .xml.zst, or its binary encoding\n"
		".isb, .isb.gz, .isb.zst; several are merged as nodes of one run) or, for\n"
		"ttx and utilization, a span file (.csv:\n"
		"component,state,start,end[,cores,owner]). Reports stream the traces\n"
		"in memory proportional to threads, files and regions. To split a\n"
		"receive at its peer's send when the peer's trace is given\n"
		"(docs/restrictions.md), consumption and compare also hold the network\n"
		"sends and receives, ttx and plot the sends: plot reads the traces\n"
		"twice, ttx when a connection has both ends in them.\n\nReports:\n");
	for (size_t i = 0; i < NREPORTS; i++)
		fprintf(f, "  %-12s %s%s%s\n", reports[i].name, reports[i].help,
			reports[i].by ? "; --by " : "", reports[i].by ? reports[i].by : "");
	fprintf(f, "\nOptions:\n");
	for (size_t i = 0; i < NOPTS; i++) {
		char buf[64];

		snprintf(buf, sizeof(buf), "%c%c%s--%s%s%s",
			 optdefs[i].shortopt ? '-' : ' ',
			 optdefs[i].shortopt ? optdefs[i].shortopt : ' ',
			 optdefs[i].shortopt ? ", " : "  ", optdefs[i].name,
			 optdefs[i].arg ? " " : "", optdefs[i].arg ? optdefs[i].arg : "");
		fprintf(f, "  %-24s %s\n", buf, optdefs[i].help);
	}
	fprintf(f, "\nBad input: FILE:LINE: problem on stderr, exit status 2.\n");
}

int main(int argc, char **argv)
{
	struct option lopts[NOPTS + 1];
	char shorts[2 * NOPTS + 2] = ":";	/* ':' a missing argument */
	size_t ns = 1;
	int c;

	progname = "island-analyze";
	zstd_input_register();	/* .zst traces read like any other */
	check_stdout_at_exit();
	memset(lopts, 0, sizeof(lopts));
	for (size_t i = 0; i < NOPTS; i++) {
		lopts[i].name = optdefs[i].name;
		lopts[i].has_arg = optdefs[i].arg ? required_argument : no_argument;
		lopts[i].val = 256 + (int)i;
		if (optdefs[i].shortopt) {
			shorts[ns++] = (char)optdefs[i].shortopt;
			if (optdefs[i].arg)
				shorts[ns++] = ':';
		}
	}
	/* The report comes first, options may follow anywhere. */
	if (argc < 2)
		die(2, "no report given (try --help)");
	if (argv[1][0] != '-') {
		rep = find_report(argv[1]);
		argv++;
		argc--;
		argv[0] = (char *)progname;	/* getopt's messages */
	}
	main_argc = argc;
	main_argv = argv;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lopts, NULL)) != -1) {
		size_t i;

		for (i = 0; i < NOPTS; i++)
			if (c == 256 + (int)i || (optdefs[i].shortopt && c == optdefs[i].shortopt))
				break;
		if (i == NOPTS)
			bad_option_hint(argv, c, lopts);
		optdefs[i].set(optdefs[i].name, optarg, optdefs[i].field);
	}
	if (!rep)
		die(2, "no report given (try --help)");
	if (opt.by && !takes_by(rep, opt.by)) {
		if (rep->by)
			die(2, "%s: --by %s: only %s", rep->name, opt.by, rep->by);
		die(2, "%s: --by %s: the report takes no --by", rep->name, opt.by);
	}
	opt.tables = rep->tables;
	if ((opt.sort || opt.limit) && (!rep->tables || rep->fn == report_export))
		die(2, "%s: --sort and --limit order and cut tables; this report prints none", rep->name);
	if (opt.sort)
		table_check_sort(rep->name, rep->tables);
	if (opt.table && !table_find(rep->tables, opt.table)) {
		char *names = xstrdup("");

		for (const struct tabledef *t = rep->tables; t && t->name; t++) {
			char *n = xasprintf("%s%s%s", names, *names ? ", " : "", t->name);
			free(names);
			names = n;
		}
		die(2, "--table: %s has no table '%s' (%s)", rep->name, opt.table,
		    *names ? names : "it prints none");
	}
	if (optind >= argc)
		die(2, "%s: no trace given", rep->name);
	int rc = rep->fn(argc - optind, argv + optind);

	tables_done(rep->name);
	return rc;
}
