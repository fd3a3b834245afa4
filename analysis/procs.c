/* Which program a process runs: the image of its last exec seen so far
 * (the trace's <process exe> is its last image, first_exe the one it
 * started in: a fork's child that exec'd is its parent's), and that exec's
 * arguments (args=, as the capture escaped them). The reader notes every
 * exec before any filter (feed.c), so each report names a process by the
 * program it ran at the time of the row's call, and at the end. Memory:
 * one entry per process that exec'd. */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

struct pinfo {
	const struct trace_proc *p;
	const char *name, *args;	/* interned */
};

static struct pinfo *tab;
static size_t n, cap;		/* open addressing, cap a power of two */

static size_t slot(struct pinfo *v, size_t c, const struct trace_proc *p)
{
	size_t h = ((uintptr_t)p >> 4) * 0x9e3779b97f4a7c15ULL;

	for (h &= c - 1; v[h].p && v[h].p != p; h = (h + 1) & (c - 1))
		;
	return h;
}

static struct pinfo *find(const struct trace_proc *p, bool add)
{
	if (!cap && !add)
		return NULL;
	if (add && n * 2 >= cap) {
		size_t nc = cap ? cap * 2 : 64;
		struct pinfo *v = xcalloc(nc, sizeof(*v));

		for (size_t i = 0; i < cap; i++)
			if (tab[i].p)
				v[slot(v, nc, tab[i].p)] = tab[i];
		free(tab);
		tab = v;
		cap = nc;
	}
	size_t h = slot(tab, cap, p);

	if (!tab[h].p) {
		if (!add)
			return NULL;
		tab[h].p = p;
		n++;
	}
	return &tab[h];
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return intern(s && s[1] ? s + 1 : path);
}

void procs_io(const struct trace_thread *t, const struct trace_io *io)
{
	const struct trace_attr *a;
	struct pinfo *pi;

	if (io->failed || !t->proc || (strncmp(io->api, "exec", 4) && strcmp(io->api, "fexecve")))
		return;
	pi = find(t->proc, true);
	if (io->path && *io->path)
		pi->name = base(io->path);
	a = trace_io_attr(io, "args");
	pi->args = a ? intern(a->value) : NULL;
}

const char *proc_name(const struct trace_proc *p)
{
	struct pinfo *pi = p ? find(p, false) : NULL;

	if (pi && pi->name)
		return pi->name;
	return p && p->first_exe && *p->first_exe ? base(p->first_exe) : "";
}

const char *proc_args(const struct trace_proc *p)
{
	struct pinfo *pi = p ? find(p, false) : NULL;

	return pi && pi->args ? pi->args : "";
}
