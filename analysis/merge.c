/* merge -o RUN.xml TRACE...: the nodes of several traces (each rank's own,
 * from island-capture under mpirun) written as one multi-node trace that
 * every report and island-replay take. The traces are read through first,
 * so that a bad one stops the merge before anything is written; node names
 * must be unique. Each node keeps its epoch and clock_offset: readers align
 * it as epoch + clock_offset. Streams: memory independent of the traces'
 * size. Written with a .gz suffix: gzip-compressed; .zst: zstd. */
#include "analyze.h"
#include "trace/xmlcopy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Nodes that carry no clock_offset are on their own host's clock: fine
 * on one host (the session coordinator's, the reference), not on two. */
static void warn_clocks(const struct trace_run *run)
{
	const struct trace_node *a = NULL;

	for (size_t i = 0; i < run->nnodes; i++) {
		const struct trace_node *n = run->nodes[i];

		if (n->has_clock_offset || !n->host)
			continue;
		if (!a) {
			a = n;
		} else if (strcmp(a->host, n->host)) {
			warnx("merge: warning: nodes %s (host %s) and %s (host %s) have no clock_offset: "
			      "their times are on two hosts' clocks, not aligned (capture the ranks with --session)",
			      a->name, a->host, n->name, n->host);
			return;
		}
	}
}

int report_merge(int argc, char **argv)
{
	struct trace_run run = { 0 };
	const char *out = opt.output;
	struct xmlcopy *w;

	if (!out)
		die(2, "merge: say where to write the merged trace (-o FILE)");
	if (filt.active)
		die(2, "merge: copies whole traces; filters do not apply");
	for (int i = 0; i < argc; i++)
		if (same_file(argv[i], out))
			die(2, "merge: %s is also an input", out);
	read_traces(&run, argv, argc, NULL, NULL);
	for (size_t i = 0; i < run.nnodes; i++)
		for (size_t k = 0; k < i; k++)
			if (!strcmp(run.nodes[i]->name, run.nodes[k]->name))
				die(2, "merge: node \"%s\" is in %s and in %s: name the ranks apart (-n)",
				    run.nodes[i]->name, run.nodes[k]->file, run.nodes[i]->file);
	warn_clocks(&run);
	/* written aside, renamed when whole: never a half trace under its name
	 * (trace/outfile.c: every write, the compressor's end and close checked) */
	w = xmlcopy_start(out, compress_of(out), "island-analyze merge " ISLAND_VERSION,
			  !run.incomplete);
	if (!w)
		die(2, "%s: cannot write: %s", out, strerror(errno));
	for (int i = 0; i < argc; i++)
		if (xmlcopy_nodes(w, argv[i], NULL) < 0) {
			xmlcopy_end(w, 1);
			exit(2);	/* its line printed: changed since it was read */
		}
	if (xmlcopy_end(w, 0) < 0)
		die(2, "%s: cannot write: %s", out, strerror(errno));
	run_free(&run);
	return 0;
}
