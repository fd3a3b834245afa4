/* Validation before anything runs: who starts whom (thread and process
 * creation), and whether the WAITs can all be satisfied. A replay that
 * deadlocks halfway is worse than one refused up front. */
#include "replay.h"
#include "util.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static int is_spawn(const char *api)
{
	static const char *const apis[] = { "fork", "vfork", "posix_spawn",
		"posix_spawnp", "system", "clone", "popen", NULL };

	for (int i = 0; apis[i]; i++)
		if (!strcmp(api, apis[i]))
			return 1;
	return 0;
}

static int is_waitpid(const char *api)
{
	return !strcmp(api, "waitpid") || !strcmp(api, "wait") || !strcmp(api, "wait3") ||
	       !strcmp(api, "wait4") || !strcmp(api, "waitid") || !strcmp(api, "pclose");
}

static const char *api_of(const struct op *o)
{
	return o->call ? o->call->api : "";
}

static uint64_t key2(long a, long b)
{
	return (uint64_t)(uint32_t)a << 32 | (uint32_t)b;
}

/* A node's creating ops by (thread, child), in op order, and how many
 * of each thread's name no child (the capture does not always know a
 * vfork's) */
struct creators {
	struct chains by;
	struct op **op;
	size_t nop, cap;
	int *unnamed;
};

static void creators_of(struct node *n, struct creators *c)
{
	memset(c, 0, sizeof(*c));
	c->unnamed = xcalloc(n->nthreads + 1, sizeof(int));
	for (size_t i = 0; i < n->nthreads; i++)
		for (size_t j = 0; j < n->threads[i].nops; j++) {
			struct op *o = &n->threads[i].ops[j];
			const char *api = api_of(o);
			if (o->kind != OP_IO || (!is_spawn(api) && strcmp(api, "pthread_create")))
				continue;
			if (o->child < 0) {
				c->unnamed[i]++;
				continue;
			}
			XGROW(c->op, c->cap, c->nop + 1);
			c->op[c->nop] = o;
			chain_add(&c->by, key2((long)i, (long)o->child), (int)c->nop++);
		}
}

static void creators_free(struct creators *c)
{
	chains_free(&c->by);
	free(c->op);
	free(c->unnamed);
}

/* The creating op: the first not matched yet of those naming the child,
 * else the latest unmatched creating op of the candidates that started
 * before the child (the capture does not always know a vfork's child). */
static struct op *find_creator(struct node *n, const struct creators *c, const int *ths,
			       size_t nths, long id, int64_t start, int (*match)(const char *))
{
	struct op *best = NULL;

	for (size_t i = 0; i < nths; i++)
		for (int k = chain_first(&c->by, key2(ths[i], id)); k >= 0; k = c->by.next[k])
			if (c->op[k]->target < 0 && match(api_of(c->op[k])))
				return c->op[k];
	for (size_t i = 0; i < nths; i++) {
		struct thread *th = &n->threads[ths[i]];
		if (!c->unnamed[ths[i]])
			continue;
		for (size_t j = 0; j < th->nops; j++) {
			struct op *o = &th->ops[j];
			if (o->kind != OP_IO || !match(api_of(o)) || o->target >= 0)
				continue;
			if (o->child < 0 && o->start <= start && (!best || o->start > best->start))
				best = o;
		}
	}
	return best;
}

static int is_pthread_create(const char *api)
{
	return !strcmp(api, "pthread_create");
}

/* Of list k's items (procs, or threads), the last to start at or before
 * t: a number names that one at t (the kernel gives an ended process's
 * or thread's number again); -1 when none */
static int latest_by(const struct chains *c, uint64_t key, int64_t t,
		     int64_t (*start_of)(const struct node *, int), const struct node *n)
{
	int best = -1;

	for (int k = chain_first(c, key); k >= 0; k = c->next[k])
		if (start_of(n, k) <= t && (best < 0 || start_of(n, k) > start_of(n, best)))
			best = k;
	return best;
}

static int64_t proc_start(const struct node *n, int k)
{
	return n->procs[k].start;
}

static int64_t thread_start(const struct node *n, int k)
{
	return n->threads[k].start;
}

static void link_node(struct node *n)
{
	struct creators cr;
	struct chains pids = { 0 }, tids = { 0 };
	char *joined = xcalloc(n->nthreads + 1, 1);

	creators_of(n, &cr);
	for (size_t p = 0; p < n->nprocs; p++)
		chain_add(&pids, (uint64_t)(uint32_t)n->procs[p].pid, (int)p);
	for (size_t i = 0; i < n->nthreads; i++)
		chain_add(&tids, key2(n->threads[i].proc, n->threads[i].tid), (int)i);
	for (size_t p = 0; p < n->nprocs; p++) {
		struct process *pr = &n->procs[p];
		/* the last of the number to start before it (the kernel gives
		 * an ended process's number again) */
		for (int q = chain_first(&pids, (uint64_t)(uint32_t)pr->ppid); q >= 0;
		     q = pids.next[q])
			if (q != (int)p && n->procs[q].start <= pr->start &&
			    (pr->parent < 0 || n->procs[q].start > n->procs[pr->parent].start))
				pr->parent = q;
		if (pr->parent < 0)
			continue;
		struct process *pa = &n->procs[pr->parent];
		struct op *o = find_creator(n, &cr, pa->threads, pa->nthreads, pr->pid,
					    pr->start, is_spawn);
		if (o) {
			o->target = (int)p;
			pr->started_by = 1;
		}
	}
	for (size_t i = 0; i < n->nthreads; i++) {
		struct thread *th = &n->threads[i];
		struct process *pr = &n->procs[th->proc];
		if (!th->creator || pr->threads[0] == (int)i)
			continue;
		int c = latest_by(&tids, key2(th->proc, th->creator), th->start, thread_start, n);
		if (c < 0)
			continue;
		struct op *o = find_creator(n, &cr, &c, 1, th->tid, th->start, is_pthread_create);
		if (o) {
			o->target = (int)i;
			th->started_by = 1;
		}
	}
	/* joins: by tid (the latest with it to start before the join
	 * returned), else the creator's child that ended last before; a
	 * thread is joined once */
	for (size_t i = 0; i < n->nthreads; i++) {
		struct thread *th = &n->threads[i];
		for (size_t j = 0; j < th->nops; j++) {
			struct op *o = &th->ops[j];
			if (o->kind != OP_IO || o->failed)
				continue;
			if (!strcmp(api_of(o), "pthread_join")) {
				struct process *pr = &n->procs[th->proc];
				int best = -1;
				if (o->child >= 0)
					best = latest_by(&tids, key2(th->proc, o->child),
							 o->start + o->dur, thread_start, n);
				for (size_t q = 0; o->child < 0 && q < pr->nthreads; q++) {
					struct thread *c = &n->threads[pr->threads[q]];
					if (c->creator == th->tid && c->end <= o->start + o->dur &&
					    (best < 0 || c->end > n->threads[best].end))
						best = pr->threads[q];
				}
				if (best >= 0 && joined[best])
					best = -1;
				else if (best >= 0)
					joined[best] = 1;
				o->target = best;
			} else if (is_waitpid(api_of(o))) {
				long pid = o->child >= 0 ? o->child : o->has_result ? o->result : -1;
				/* the last of the number to start before it returned */
				if (pid > 0)
					o->target = latest_by(&pids, (uint64_t)(uint32_t)pid,
							      o->start + o->dur, proc_start, n);
			}
		}
	}
	creators_free(&cr);
	chains_free(&pids);
	chains_free(&tids);
	free(joined);
}

void replay_link(struct trace *t)
{
	for (size_t k = 0; k < t->nnodes; k++)
		link_node(&t->nodes[k]);
}

/* ---- WAIT cycles --------------------------------------------------------
 * Vertices: every io (node, seq) and every thread's end. Edges: program
 * order, creation, joins, and WAIT (node, seq) -> the io it guards. A
 * cycle is a deadlock. */

struct edge { uint32_t from, to, line; };

struct graph {
	size_t nv, ne, cap;
	struct edge *e;
	size_t *base, *tend;	/* per node: first io vertex, first thread-end vertex */
};

static void add_edge(struct graph *g, size_t from, size_t to, uint32_t line)
{
	XGROW(g->e, g->cap, g->ne + 1);
	g->e[g->ne++] = (struct edge){ (uint32_t)from, (uint32_t)to, line };
}

static size_t io_v(struct graph *g, int node, uint32_t vid)
{
	return g->base[node] + vid - 1;
}

static size_t first_v(struct graph *g, struct node *n, int k, size_t th)
{
	struct thread *t = &n->threads[th];

	for (size_t j = 0; j < t->nops; j++)
		if (t->ops[j].kind == OP_IO)
			return io_v(g, k, t->ops[j].vid);
	return g->tend[k] + th;
}

static void build(struct trace *t, struct graph *g)
{
	g->base = xcalloc(t->nnodes, sizeof(size_t));
	g->tend = xcalloc(t->nnodes, sizeof(size_t));
	for (size_t k = 0; k < t->nnodes; k++) {
		g->base[k] = g->nv;
		g->nv += t->nodes[k].nall;
		g->tend[k] = g->nv;
		g->nv += t->nodes[k].nthreads;
	}
	for (size_t k = 0; k < t->nnodes; k++) {
		struct node *n = &t->nodes[k];
		for (size_t i = 0; i < n->nthreads; i++) {
			struct thread *th = &n->threads[i];
			size_t prev = (size_t)-1;
			struct op *waits[64];
			size_t nw = 0;
			for (size_t j = 0; j < th->nops; j++) {
				struct op *o = &th->ops[j];
				if (o->kind == OP_WAIT && nw < 64)
					waits[nw++] = o;
				if (o->kind != OP_IO)
					continue;
				size_t v = io_v(g, (int)k, o->vid);
				if (prev != (size_t)-1)
					add_edge(g, prev, v, 0);
				for (size_t w = 0; w < nw; w++)
					add_edge(g, io_v(g, waits[w]->node, waits[w]->seq), v, waits[w]->line);
				nw = 0;
				if (o->target >= 0 && is_pthread_create(api_of(o)))
					add_edge(g, v, first_v(g, n, (int)k, (size_t)o->target), 0);
				if (o->target >= 0 && is_spawn(api_of(o)))
					add_edge(g, v, first_v(g, n, (int)k,
						(size_t)n->procs[o->target].threads[0]), 0);
				if (o->target >= 0 && !strcmp(api_of(o), "pthread_join"))
					add_edge(g, g->tend[k] + (size_t)o->target, v, 0);
				prev = v;
			}
			size_t end = g->tend[k] + i;
			if (prev != (size_t)-1)
				add_edge(g, prev, end, 0);
			for (size_t w = 0; w < nw; w++)
				add_edge(g, io_v(g, waits[w]->node, waits[w]->seq), end, waits[w]->line);
		}
	}
}

static const char *vname(struct trace *t, struct graph *g, size_t v, char *buf, size_t len)
{
	for (size_t k = t->nnodes; k-- > 0;) {
		if (v >= g->tend[k]) {
			snprintf(buf, len, "node %s thread %ld end", t->nodes[k].name,
				 t->nodes[k].threads[v - g->tend[k]].tid);
			return buf;
		}
		if (v >= g->base[k]) {
			snprintf(buf, len, "%s#%zu", t->nodes[k].name, v - g->base[k] + 1);
			return buf;
		}
	}
	return "?";
}

int replay_check(struct trace *t)
{
	struct graph g = { 0 };

	replay_link(t);
	replay_fdslots(t);
	build(t, &g);

	size_t *indeg = xcalloc(g.nv + 1, sizeof(size_t));
	size_t *off = xcalloc(g.nv + 1, sizeof(size_t));
	uint32_t *adj = xmalloc(g.ne * sizeof(uint32_t) + 1);
	for (size_t i = 0; i < g.ne; i++) {
		indeg[g.e[i].to]++;
		off[g.e[i].from + 1]++;
	}
	for (size_t v = 0; v < g.nv; v++)
		off[v + 1] += off[v];
	size_t *fill = xmalloc((g.nv + 1) * sizeof(size_t));
	memcpy(fill, off, (g.nv + 1) * sizeof(size_t));
	for (size_t i = 0; i < g.ne; i++)
		adj[fill[g.e[i].from]++] = g.e[i].to;

	/* Kahn: what stays has a predecessor that stays */
	uint32_t *queue = xmalloc((g.nv + 1) * sizeof(uint32_t));
	size_t qh = 0, qt = 0;
	for (size_t v = 0; v < g.nv; v++)
		if (!indeg[v])
			queue[qt++] = (uint32_t)v;
	while (qh < qt) {
		uint32_t v = queue[qh++];
		for (size_t i = off[v]; i < off[v + 1]; i++)
			if (!--indeg[adj[i]])
				queue[qt++] = adj[i];
	}
	int ret = 0;
	if (qt < g.nv) {
		size_t v = 0;
		while (!indeg[v])
			v++;
		/* walk back along remaining edges until a vertex repeats */
		uint32_t *mark = xcalloc(g.nv, sizeof(uint32_t));
		size_t *via = xcalloc(g.nv, sizeof(size_t));
		uint32_t step = 1;
		while (!mark[v]) {
			mark[v] = step++;
			for (size_t i = 0; i < g.ne; i++)
				if (g.e[i].to == v && indeg[g.e[i].from]) {
					via[v] = i;
					v = g.e[i].from;
					break;
				}
		}
		/* v is on the cycle: list its WAIT edges, first line first */
		char msg[4096] = "", a[96], b[96];
		size_t len = 0, u = v;
		uint32_t first = 0;
		do {
			struct edge *e = &g.e[via[u]];
			if (e->line) {
				len += (size_t)snprintf(msg + len, len < sizeof(msg) ? sizeof(msg) - len : 0,
					"%s%s waits for %s (line %u)", len ? ", " : "",
					vname(t, &g, e->to, a, sizeof(a)), vname(t, &g, e->from, b, sizeof(b)),
					e->line);
				if (!first || e->line < first)
					first = e->line;
			}
			u = e->from;
		} while (u != v && len < sizeof(msg));
		warn_at(t->file, first, "WAIT cycle (the replay would deadlock): %s", msg);
		free(mark);
		free(via);
		ret = -1;
	}
	free(queue);
	free(fill);
	free(adj);
	free(off);
	free(indeg);
	free(g.e);
	free(g.base);
	free(g.tend);
	return ret;
}
