/* sums: Island's global sums, per resource over the whole run, and per
 * node with --by node. */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

const char *const sum_names[SUM_N] = {
	"fileread", "filewrite", "filesopened", "netsend", "tcpsend",
	"udpsend", "netrecv", "tcprecv", "udprecv", "insockets",
	"outsockets", "events", "cpu",
};

static const char *const sum_units[SUM_N] = {
	"bytes", "bytes", "count", "bytes", "bytes", "bytes", "bytes",
	"bytes", "bytes", "count", "count", "threads", "seconds",
};

static int64_t *node_sums(struct sums *s, const struct trace_node *n)
{
	while (s->nnodes <= (size_t)n->index) {
		s->node = xrealloc(s->node, (s->nnodes + 1) * sizeof(*s->node));
		memset(s->node[s->nnodes++], 0, sizeof(*s->node));
	}
	return s->node[n->index];
}

/* Data calls by res and protocol: which sums an amount goes to. */
static const struct {
	enum trace_res res;
	enum sum all, tcp, udp;
} data_sums[] = {
	{ TRACE_RES_FILEREAD,  SUM_FILEREAD,  SUM_N,       SUM_N },
	{ TRACE_RES_FILEWRITE, SUM_FILEWRITE, SUM_N,       SUM_N },
	{ TRACE_RES_NETSEND,   SUM_NETSEND,   SUM_TCPSEND, SUM_UDPSEND },
	{ TRACE_RES_NETRECV,   SUM_NETRECV,   SUM_TCPRECV, SUM_UDPRECV },
};

static void on_io(void *ctx, struct trace_thread *t, const struct trace_io *io)
{
	int64_t *v;

	if (!io->has_amount || io->libc_only)
		return;
	/* sendfile & co.: the bytes are also read from the source file */
	if (io->inpath && strcmp(io->inpath, "pipe"))
		node_sums(ctx, t->node)[SUM_FILEREAD] += io->amount;
	for (size_t i = 0; i < sizeof(data_sums) / sizeof(data_sums[0]); i++) {
		if (data_sums[i].res != io->res)
			continue;
		v = node_sums(ctx, t->node);
		v[data_sums[i].all] += io->amount;
		if (io->proto && !strcmp(io->proto, "tcp") && data_sums[i].tcp != SUM_N)
			v[data_sums[i].tcp] += io->amount;
		if (io->proto && !strcmp(io->proto, "udp") && data_sums[i].udp != SUM_N)
			v[data_sums[i].udp] += io->amount;
	}
}

static void on_thread(void *ctx, struct trace_thread *t)
{
	int64_t *v = node_sums(ctx, t->node);

	v[SUM_EVENTS] += t->creator >= 0;
	v[SUM_CPU] += t->cpu;
	((struct sums *)ctx)->nocpu += !t->has_cpu;
}

static void on_file(void *ctx, struct trace_node *n, const struct trace_file *f)
{
	node_sums(ctx, n)[SUM_FILESOPENED] += f->opens;
}

static void on_socket(void *ctx, struct trace_node *n, const struct trace_socket *k)
{
	int64_t *v = node_sums(ctx, n);

	v[SUM_INSOCKETS] += !strcmp(k->direction, "in");
	v[SUM_OUTSOCKETS] += !strcmp(k->direction, "out");
}

static void on_node(void *ctx, struct trace_node *n)
{
	node_sums(ctx, n);
}

void sums_collect(char **files, int nfiles, struct trace_run *run, struct sums *s)
{
	static const struct trace_ops ops = {
		.node = on_node, .io = on_io, .thread = on_thread,
		.file = on_file, .socket = on_socket,
	};

	memset(s, 0, sizeof(*s));
	read_traces(run, files, nfiles, &ops, s);
	for (size_t i = 0; i < s->nnodes; i++)
		for (int k = 0; k < SUM_N; k++)
			s->total[k] += s->node[i][k];
}

/* Seconds for cpu, plain integers for the rest. */
void sum_cell(char *buf, size_t n, enum sum k, int64_t v)
{
	if (k == SUM_CPU)
		fmt_secs(buf, n, v);
	else
		snprintf(buf, n, "%lld", (long long)v);
}

static const struct coldef cols[] = {
	{ "resource", COL_TEXT, 0 }, { "NODE", COL_NUM, COL_PER }, { "total", COL_NUM, 0 },
	{ "unit", COL_TEXT, 0 },
};
const struct tabledef sums_tables[] = { TABLEDEF("sums", cols), { NULL } };

int report_sums(int argc, char **argv)
{
	struct trace_run run = { 0 };
	struct sums s;
	struct table *t;
	const char **hdr;
	char buf[64];

	sums_collect(argv, argc, &run, &s);
	if (s.nocpu)
		warnx("warning: %d thread%s without a cpu attribute (a signal ended %s unseen): "
		      "cpu counts nothing for %s", s.nocpu, s.nocpu > 1 ? "s" : "",
		      s.nocpu > 1 ? "them" : "it", s.nocpu > 1 ? "them" : "it");
	hdr = xcalloc(run.nnodes + 1, sizeof(*hdr));
	for (size_t i = 0; i < run.nnodes; i++)
		hdr[i] = run.nodes[i]->name;
	t = table_open(&sums_tables[0], hdr, opt.by_node ? run.nnodes : 0);
	for (int k = 0; k < SUM_N; k++) {
		table_add(t, sum_names[k]);
		for (size_t i = 0; opt.by_node && i < run.nnodes; i++)
			table_add(t, (sum_cell(buf, sizeof(buf), (enum sum)k,
					       i < s.nnodes ? s.node[i][k] : 0), buf));
		table_add(t, (sum_cell(buf, sizeof(buf), (enum sum)k, s.total[k]), buf));
		table_add(t, sum_units[k]);
	}
	table_emit(t);
	free(hdr);
	free(s.node);
	run_free(&run);
	return 0;
}
