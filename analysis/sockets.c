/* sockets: per socket (or pipe end) usage, from the per-node <sockets>. */
#include "analyze.h"

static void on_socket(void *ctx, struct node *n, const struct sockinfo *s)
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

int report_sockets(int argc, char **argv)
{
	static const char *const hdr[] = {
		"node", "proto", "local", "peer", "direction", "sent",
		"received", "open_at_end",
	};
	static const struct reader_ops ops = { .socket = on_socket };
	struct run run = { 0 };
	struct table *t = table_new(8, hdr);

	table_align(t, "lllllrrl");
	read_traces(&run, argv, argc, &ops, t);
	table_print(t, stdout, opt.csv);
	table_free(t);
	run_free(&run);
	return 0;
}
