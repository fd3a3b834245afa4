/* Descriptor slots. A process reuses descriptor numbers: thread a closes
 * fd 3, thread b opens a file and gets 3. The replay's threads run at
 * their own pace (the locks that ordered them are not reissued), so a
 * table indexed by the trace's number would let b's open replace a's file
 * while a still writes to it, or a's close close b's. The reuse is the
 * kernel's choice of the lowest free number, not an order of the program
 * (b would have got 4 had a not closed yet): the replay does not wait for
 * it. Each life of a number (from the call that made it to its close)
 * gets its own slot in the process's table, and the fd fields of the ops
 * are rewritten to slots before the replay. A life whose calls are all of
 * one thread, following one of that same thread, keeps its slot (program
 * order separates them); so does one made over a live one (dup2: the call
 * closes it). A process's first life of a number takes the slot its parent
 * held for it when it forked, else the number itself.
 *
 * Unless the child's first calls on a number it inherited name another
 * file than its parent's descriptor of that number did at the fork: a
 * vfork child (Python's subprocess) redirects with dup2 where the capture
 * cannot see. That life gets a slot of its own, which starts as a copy of
 * the parent's descriptor on the file the child's calls name (the dup2's
 * source: the offset is shared) or, with none, opens that file. A pipe is
 * known by its number in the trace and its end (a write is the write
 * end's): the child's slot starts as a copy of the parent's descriptor on
 * that end of that pipe (capture_output), not as a sink.
 *
 * Which life a call belongs to is the trace's time: a number is made when
 * its call returns and is taken by the calls that start after that (the
 * kernel gives the number out only after the close that freed it began). */
#include "exec.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

enum role { R_USE, R_CLOSE, R_MAKE, R_FORK };

/* What a call does to its descriptor fields; any other call uses them. */
static const struct {
	call_fn fn;
	uint8_t fd, fd2;
} roles[] = {
	{ h_open, R_MAKE, R_USE }, { h_socket, R_MAKE, R_USE }, { h_accept, R_MAKE, R_USE },
	{ h_pipe, R_MAKE, R_MAKE }, { h_socketpair, R_MAKE, R_MAKE },
	{ h_dup, R_MAKE, R_USE },	/* with an oldfd: dup*, F_DUPFD */
	{ h_close, R_CLOSE, R_USE },
};

struct ev {
	int64_t key;		/* 2 x time, + 1 for a make (at the call's end) */
	uint32_t th, seq;	/* thread (in its process) and order in it */
	int32_t *field;		/* NULL: a fork (op) */
	const struct op *op;
	int32_t life;
	uint8_t role;
};

struct life {
	int32_t tfd, pred, slot;
	int32_t th;		/* the thread of its calls; -1: several */
	uint8_t over_live;	/* made over a live one (dup2) */
	uint8_t inherited;	/* first used, not made, by the process */
	uint8_t net;		/* its calls name a socket or pipe */
	const char *path;	/* the file its calls name, if any */
	int32_t pipe;		/* the pipe its calls name, 0: none */
	uint8_t end;		/* of the pipe: END_R, END_W, 0 not known */
};
enum { END_R = 1, END_W };

struct inherit {		/* a child's first slots: its parent's at the fork */
	int32_t *tfd, *slot, *pipe;
	const char **path;
	uint8_t *net, *end;
	size_t n;
};

struct walk {
	struct node *n;
	struct ev *ev;
	size_t nev, evcap;
	int32_t *tfds;		/* the process's numbers, sorted, unique */
	size_t ntfds;
	struct life *life;
	size_t nlife, lcap;
	int64_t next_slot;
	struct inherit *inh;	/* by process */
	int *queue;		/* processes, parents before children */
	size_t nq;
	uint8_t *queued;
};

static void add_ev(struct walk *w, int64_t key, uint32_t th, int32_t *field,
		   const struct op *o, int role)
{
	XGROW(w->ev, w->evcap, w->nev + 1);
	w->ev[w->nev] = (struct ev){ .key = key, .th = th, .seq = (uint32_t)w->nev,
				     .field = field, .op = o, .role = (uint8_t)role };
	w->nev++;
}

static void op_events(struct walk *w, struct op *o, uint32_t th, int64_t *last)
{
	int fd = R_USE, fd2 = R_USE;

	if (!o->failed && o->call)
		for (size_t i = 0; i < sizeof(roles) / sizeof(*roles); i++)
			if (roles[i].fn == o->call->fn) {
				fd = roles[i].fd;
				fd2 = roles[i].fd2;
			}
	if (o->call && o->call->fn == h_dup && o->oldfd < 0)
		fd = R_USE;	/* fcntl on the descriptor */
	/* one thread's events keep its order whatever the clock said */
	int64_t use = 2 * o->start, make = 2 * (o->start + o->dur) + 1;
	if (use < *last)
		use = *last;
	if (make < use)
		make = use;
	if (call_spawns(o->call) && o->target >= 0)
		add_ev(w, use, th, NULL, o, R_FORK);
	if (o->oldfd >= 0)
		add_ev(w, use, th, &o->oldfd, o, R_USE);
	if (o->infd >= 0)
		add_ev(w, use, th, &o->infd, o, R_USE);
	if (o->fd >= 0)
		add_ev(w, fd == R_MAKE ? make : use, th, &o->fd, o, fd);
	if (o->fd2 >= 0)
		add_ev(w, fd2 == R_MAKE ? make : use, th, &o->fd2, o, fd2);
	*last = fd == R_MAKE || fd2 == R_MAKE ? make : use;
}

static int by_key(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->th != y->th)
		return x->th < y->th ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

static size_t tfd_index(const struct walk *w, int32_t tfd)
{
	const int32_t *p = bsearch(&tfd, w->tfds, w->ntfds, sizeof(*w->tfds), cmp_i32);

	return (size_t)(p - w->tfds);
}

static int32_t new_life(struct walk *w, int32_t tfd, int32_t pred, uint32_t th, int over_live)
{
	XGROW(w->life, w->lcap, w->nlife + 1);
	w->life[w->nlife] = (struct life){ .tfd = tfd, .pred = pred, .th = (int32_t)th,
					   .over_live = (uint8_t)over_live };
	return (int32_t)w->nlife++;
}

static ssize_t inherited(const struct inherit *in, int32_t tfd)
{
	for (size_t i = 0; i < in->n; i++)
		if (in->tfd[i] == tfd)
			return (ssize_t)i;
	return -1;
}

/* A child's /proc/self/fd name of its parent's file: the same, or with
 * " (deleted)" once unlinked, "DIR/#INODE (deleted)" for an O_TMPFILE
 * file the parent opened as DIR (Python's tempfile.TemporaryFile). */
static int same_file(const char *child, const char *parent)
{
	static const char del[] = " (deleted)";
	size_t n = strlen(parent), cn = strlen(child), dn = sizeof(del) - 1;

	if (!strcmp(child, parent))
		return 1;
	if (strncmp(child, parent, n) || cn < n + dn || strcmp(child + cn - dn, del))
		return 0;
	if (cn == n + dn)
		return 1;
	if (child[n] != '/' || child[n + 1] != '#' || n + 2 == cn - dn)
		return 0;
	for (size_t i = n + 2; i < cn - dn; i++)
		if (child[i] < '0' || child[i] > '9')
			return 0;
	return 1;
}

/* the parent's descriptor i is on what the child's life l is on: that
 * end of that pipe, that file */
static int same_thing(const struct inherit *in, size_t i, const struct life *l)
{
	if (l->pipe)
		return in->pipe[i] == l->pipe && (!l->end || !in->end[i] || in->end[i] == l->end);
	return l->path && in->path[i] && !in->net[i] && same_file(l->path, in->path[i]);
}

/* the parent's descriptor at the fork on what the child's life is on */
static ssize_t holder(const struct inherit *in, const struct life *l)
{
	for (size_t i = 0; i < in->n; i++)
		if (same_thing(in, i, l))
			return (ssize_t)i;
	return -1;
}

/* The parent's descriptor names something else than the child's calls on
 * the number do (a path, or a file against a socket or pipe), or it had
 * none of that number but one on that file: the child was given another
 * one before its first recorded call. A side with nothing named tells
 * nothing. */
static int redirected(const struct inherit *in, ssize_t i, const struct life *l)
{
	if (!l->inherited || (!l->path && !l->net))
		return 0;
	if (i < 0)
		return holder(in, l) >= 0;
	if (!in->path[i] && !in->net[i])
		return 0;
	if (l->pipe && in->pipe[i])
		return !same_thing(in, (size_t)i, l);
	if (l->net || in->net[i])
		return l->net != in->net[i];
	return !same_file(l->path, in->path[i]);
}

static void fresh_slot(struct walk *w, struct life *l)
{
	struct node *n = w->n;

	if (w->next_slot > INT32_MAX)
		die(2, "node %s: more descriptor slots than the replay can number", n->name);
	l->slot = (int32_t)w->next_slot++;
	XGROW(n->slot_tfd, n->slot_tcap, n->nslot_tfd + 1);
	n->slot_tfd[n->nslot_tfd++] = l->tfd;
}

/* A redirected life: its own slot, a copy of the parent's on its file
 * when the parent had one open at the fork. */
static void redirect_slot(struct walk *w, struct process *pr, const struct inherit *in,
			  struct life *l)
{
	ssize_t i = holder(in, l);

	fresh_slot(w, l);
	if (i >= 0) {
		XGROW(pr->redir, pr->rcap, pr->nredir + 1);
		pr->redir[pr->nredir++] = (struct redir){ .slot = l->slot, .from = in->slot[i] };
	}
}

static void process_slots(struct walk *w, int p)
{
	struct node *n = w->n;
	struct process *pr = &n->procs[p];

	w->nev = w->nlife = 0;
	for (size_t k = 0; k < pr->nthreads; k++) {
		struct thread *th = &n->threads[pr->threads[k]];
		int64_t last = INT64_MIN;
		for (size_t j = 0; j < th->nops; j++)
			if (th->ops[j].kind == OP_IO)
				op_events(w, &th->ops[j], (uint32_t)k, &last);
	}
	if (w->nev)              /* qsort(NULL, 0) is undefined (UBSan) */
		qsort(w->ev, w->nev, sizeof(*w->ev), by_key);

	/* the numbers, and the life each holds now (-1: none; live or closed) */
	w->ntfds = 0;
	w->tfds = xrealloc(w->tfds, (w->nev + 1) * sizeof(*w->tfds));
	for (size_t i = 0; i < w->nev; i++)
		if (w->ev[i].field)
			w->tfds[w->ntfds++] = *w->ev[i].field;
	qsort(w->tfds, w->ntfds, sizeof(*w->tfds), cmp_i32);
	size_t u = 0;
	for (size_t i = 0; i < w->ntfds; i++)
		if (!u || w->tfds[u - 1] != w->tfds[i])
			w->tfds[u++] = w->tfds[i];
	w->ntfds = u;
	int32_t *cur = xmalloc((u + 1) * sizeof(*cur));
	uint8_t *live = xcalloc(u + 1, 1);
	for (size_t i = 0; i < u; i++)
		cur[i] = -1;

	/* a number first used, not made, was open from the process's start:
	 * a child forked before that use has it too */
	for (size_t i = 0; i < w->nev; i++) {
		struct ev *e = &w->ev[i];
		if (!e->field)
			continue;
		size_t k = tfd_index(w, *e->field);
		if (cur[k] >= 0 || live[k])
			continue;
		if (e->role == R_MAKE) {
			live[k] = 1;	/* seen: made here */
			continue;
		}
		cur[k] = new_life(w, *e->field, -1, e->th, 0);
		w->life[cur[k]].inherited = 1;
		live[k] = 1;
	}
	for (size_t k = 0; k < u; k++)
		live[k] = cur[k] >= 0;

	struct fork { const struct op *o; int32_t *life; size_t n; } *forks = NULL;
	size_t nforks = 0, fcap = 0;
	for (size_t i = 0; i < w->nev; i++) {
		struct ev *e = &w->ev[i];
		if (e->role == R_FORK) {
			XGROW(forks, fcap, nforks + 1);
			struct fork *f = &forks[nforks++];
			f->o = e->op;
			f->n = 0;
			for (size_t k = 0; k < u; k++)
				f->n += live[k];
			f->life = xmalloc((f->n + 1) * sizeof(*f->life));
			f->n = 0;
			for (size_t k = 0; k < u; k++)
				if (live[k])
					f->life[f->n++] = cur[k];
			continue;
		}
		size_t k = tfd_index(w, *e->field);
		if (e->role == R_MAKE || cur[k] < 0 || !live[k]) {
			int over = e->role == R_MAKE && cur[k] >= 0 && live[k];
			cur[k] = new_life(w, *e->field, cur[k], e->th, over);
			live[k] = 1;
		} else if (w->life[cur[k]].th != (int32_t)e->th) {
			w->life[cur[k]].th = -1;
		}
		e->life = cur[k];
		/* what the number names (a dup's path is both its fds') */
		struct life *l = &w->life[cur[k]];
		const struct op *o = e->op;
		const char *path = e->field == &o->infd ? o->inpath :
				   e->field == &o->fd2 ? NULL : o->path;
		if (!l->path && !l->net) {
			if (e->field != &o->infd && (o->proto || (o->peer && *o->peer)))
				l->net = 1;
			else if (path)
				l->path = path;
		}
		/* which pipe, and which end: the pipe call's fd reads and
		 * its fd2 writes; a send is on the write end */
		if (o->pipe && e->field != &o->infd && !l->pipe)
			l->pipe = o->pipe;
		if (o->pipe && !l->end && e->field != &o->infd)
			l->end = e->role == R_MAKE && o->call->fn == h_pipe ?
				 (e->field == &o->fd2 ? END_W : END_R) :
				 o->res == RES_NETSEND ? END_W : o->res == RES_NETRECV ? END_R : 0;
		if (e->role == R_CLOSE)
			live[k] = 0;
	}

	/* slots, in the order the lives began (a predecessor first) */
	for (size_t i = 0; i < w->nlife; i++) {
		struct life *l = &w->life[i];
		const struct life *pl = l->pred >= 0 ? &w->life[l->pred] : NULL;
		ssize_t in = pl ? -1 : inherited(&w->inh[p], l->tfd);
		if (!pl && redirected(&w->inh[p], in, l))
			redirect_slot(w, pr, &w->inh[p], l);
		else if (!pl)
			l->slot = in >= 0 ? w->inh[p].slot[in] : l->tfd;
		else if (l->over_live || (pl->th >= 0 && pl->th == l->th))
			l->slot = pl->slot;
		else
			fresh_slot(w, l);
	}
	for (size_t i = 0; i < w->nev; i++)
		if (w->ev[i].field)
			*w->ev[i].field = w->life[w->ev[i].life].slot;

	/* each child starts with the slots live at its fork */
	for (size_t i = 0; i < nforks; i++) {
		struct fork *f = &forks[i];
		int c = f->o->target;
		struct inherit *in = &w->inh[c];
		if (!w->queued[c]) {
			free(in->tfd);
			free(in->slot);
			free(in->path);
			free(in->net);
			free(in->pipe);
			free(in->end);
			in->tfd = xmalloc((f->n + 1) * sizeof(*in->tfd));
			in->slot = xmalloc((f->n + 1) * sizeof(*in->slot));
			in->path = xmalloc((f->n + 1) * sizeof(*in->path));
			in->net = xmalloc(f->n + 1);
			in->pipe = xmalloc((f->n + 1) * sizeof(*in->pipe));
			in->end = xmalloc(f->n + 1);
			for (size_t k = 0; k < f->n; k++) {
				const struct life *l = &w->life[f->life[k]];
				in->tfd[k] = l->tfd;
				in->slot[k] = l->slot;
				in->path[k] = l->path;
				in->net[k] = l->net;
				in->pipe[k] = l->pipe;
				in->end[k] = l->end;
			}
			in->n = f->n;
			w->queued[c] = 1;
			w->queue[w->nq++] = c;
		}
		free(f->life);
	}
	free(forks);
	free(cur);
	free(live);
}

void replay_fdslots(struct trace *t)
{
	for (size_t k = 0; k < t->nnodes; k++) {
		struct node *n = &t->nodes[k];
		struct walk w = { .n = n };
		int64_t top = -1;

		for (size_t i = 0; i < n->nthreads; i++)
			for (size_t j = 0; j < n->threads[i].nops; j++) {
				const struct op *o = &n->threads[i].ops[j];
				int32_t v[] = { o->fd, o->oldfd, o->fd2, o->infd };
				for (size_t f = 0; f < 4; f++)
					if (v[f] > top)
						top = v[f];
			}
		n->slot_base = w.next_slot = top + 1;
		w.inh = xcalloc(n->nprocs + 1, sizeof(*w.inh));
		w.queue = xmalloc((n->nprocs + 1) * sizeof(*w.queue));
		w.queued = xcalloc(n->nprocs + 1, 1);
		/* processes nobody started first, then each child once its
		 * parent is done (a child's first slots are its parent's) */
		for (size_t p = 0; p < n->nprocs; p++)
			if (!n->procs[p].started_by) {
				w.queued[p] = 1;
				w.queue[w.nq++] = (int)p;
			}
		for (size_t q = 0; q < w.nq || q < n->nprocs; q++) {
			if (q == w.nq)	/* started by a call not seen: on its own */
				for (size_t p = 0; p < n->nprocs && q == w.nq; p++)
					if (!w.queued[p]) {
						w.queued[p] = 1;
						w.queue[w.nq++] = (int)p;
					}
			if (q < w.nq)
				process_slots(&w, w.queue[q]);
		}
		for (size_t p = 0; p < n->nprocs; p++) {
			free(w.inh[p].tfd);
			free(w.inh[p].slot);
			free(w.inh[p].path);
			free(w.inh[p].net);
			free(w.inh[p].pipe);
			free(w.inh[p].end);
		}
		free(w.inh);
		free(w.queue);
		free(w.queued);
		free(w.ev);
		free(w.tfds);
		free(w.life);
	}
}
