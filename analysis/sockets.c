/* sockets: per socket (or pipe end) usage, from the per-node <sockets>. */
#include "analyze.h"

static void on_socket(void *ctx, struct trace_node *n, const struct trace_socket *s)
{
	struct table *t = ctx;

	table_add(t, n->name);
	table_add(t, s->proto);
	table_add(t, s->local);
	table_add(t, s->peer);
	table_add(t, s->direction);
	table_addf(t, "%lld", (long long)s->sent);
	table_addf(t, "%lld", (long long)s->received);
	table_add(t, s->open_at_end ? "yes" : "no");
}

static const struct coldef cols[] = {
	{ "node", COL_TEXT, 0 }, { "proto", COL_TEXT, 0 }, { "local", COL_TEXT, 0 },
	{ "peer", COL_TEXT, 0 }, { "direction", COL_TEXT, 0 }, { "sent", COL_INT, 0 },
	{ "received", COL_INT, 0 }, { "open_at_end", COL_TEXT, 0 },
};
const struct tabledef sockets_tables[] = { TABLEDEF("sockets", cols), { NULL } };

int report_sockets(int argc, char **argv)
{
	static const struct trace_ops ops = { .socket = on_socket };
	struct trace_run run = { 0 };
	struct table *t = table_new(&sockets_tables[0]);

	filter_rows_not_calls();
	read_traces(&run, argv, argc, &ops, t);
	table_emit(t);
	run_free(&run);
	return 0;
}
