/* The replayable calls: a call of trace/calls.def -> how it is issued, the
 * report family it is counted in, and what it does to a stdio buffer,
 * by its id (trace/replay.def). A call whose rule is byres, or a name no
 * row has, is replayed by its resource class when that is enough (a data
 * read is a read), else skipped and counted. */
#include "exec.h"
#include "util.h"
#include "trace/calls.h"

#include <stdlib.h>
#include <string.h>

const char *const family_names[NFAM] = { "read", "write", "open", "sync", "net", "other" };

#define h_byres NULL
static struct call by_id[TCALL_N] = {
#define REPLAY(id, rule, fam, stdio) [TCALL_##id] = { NULL, h_##rule, FAM_##fam, STDIO_##stdio },
#include "trace/replay.def"
#undef REPLAY
};
#undef h_byres

/* Every row of trace/calls.def has its replay rule: a CALL row without a
 * REPLAY row stops the build here ("replay_rule_of_X undeclared"). */
enum {
#define REPLAY(id, rule, fam, stdio) replay_rule_of_##id,
#include "trace/replay.def"
#undef REPLAY
};
#define CALL(id, api, res, amount, effect) \
	_Static_assert(replay_rule_of_##id >= 0, "trace/replay.def: no REPLAY row for " #id);
#include "trace/calls.def"
#undef CALL

/* Names no row of trace/calls.def has, that traces hold: the kernel's
 * names --syscalls writes for calls with no row, and other writers'. */
static struct call by_name[] = {
	{ "accept4", h_accept, FAM_NET, STDIO_NONE }, { "dprintf", h_write, FAM_WRITE, STDIO_NONE },
	{ "execl", h_exec, FAM_OTHER, STDIO_NONE }, { "execle", h_exec, FAM_OTHER, STDIO_NONE },
	{ "execlp", h_exec, FAM_OTHER, STDIO_NONE }, { "execv", h_exec, FAM_OTHER, STDIO_NONE },
	{ "execvp", h_exec, FAM_OTHER, STDIO_NONE }, { "execvpe", h_exec, FAM_OTHER, STDIO_NONE },
	{ "fexecve", h_exec, FAM_OTHER, STDIO_NONE }, { "fseeko", h_seek, FAM_OPEN, STDIO_NONE },
	{ "newfstatat", h_stat, FAM_OPEN, STDIO_NONE }, { "pipe2", h_pipe, FAM_NET, STDIO_NONE },
	{ "posix_spawnp", h_spawn, FAM_OTHER, STDIO_NONE }, { "readdir", h_spent, FAM_READ, STDIO_NONE },
};
#define NBYNAME (sizeof(by_name) / sizeof(*by_name))

/* Unlisted data calls, replayed by what they did. */
static struct call by_res[] = {
	[RES_FILEREAD] = { "(read)", h_read, FAM_READ, STDIO_NONE },
	[RES_FILEWRITE] = { "(write)", h_write, FAM_WRITE, STDIO_NONE },
	[RES_NETSEND] = { "(send)", h_send, FAM_NET, STDIO_NONE },
	[RES_NETRECV] = { "(recv)", h_recv, FAM_NET, STDIO_NONE },
};

static int cmp_call(const void *a, const void *b)
{
	return strcmp(((const struct call *)a)->api, ((const struct call *)b)->api);
}

const struct call *call_lookup(const char *api, int res)
{
	static int named;
	struct call key = { .api = api };
	const struct call *c = NULL;
	int id;

	if (!named) {
		for (int i = 0; i < TCALL_N; i++)
			by_id[i].api = trace_call_names[i];
		qsort(by_name, NBYNAME, sizeof(*by_name), cmp_call);
		named = 1;
	}
	id = trace_call_by_name(api);
	if (id >= 0) {
		if (by_id[id].fn)
			return &by_id[id];
	} else {
		c = bsearch(&key, by_name, NBYNAME, sizeof(*by_name), cmp_call);
	}
	if (c)
		return c;
	if (res >= 0 && res < (int)(sizeof(by_res) / sizeof(*by_res)) && by_res[res].fn)
		return &by_res[res];
	return NULL;
}

/* A read or write of an event counter, timer, signal queue or inotify
 * (an "anon_inode:"), which the replay does not make: the read waits for
 * its waker's write (load.c) or, with none in the process, what it
 * waited (a timer's expiry: h_event); the write posted, nothing to
 * reissue. */
const struct call *call_on_event(const struct call *c)
{
	static const struct call wait = { "(event wait)", h_event, FAM_OTHER, STDIO_NONE },
				 post = { "(event post)", h_nop, FAM_OTHER, STDIO_NONE };

	return c && c->fn == h_read ? &wait : c && c->fn == h_write ? &post : c;
}

int call_aio_wait(const struct call *c)
{
	return c && c->fn == h_aio_wait;
}

const struct call *call_aio_submit(void)
{
	static const struct call submit = { "(submit)", h_aio_submit, FAM_OTHER, STDIO_NONE };

	return &submit;
}

int call_thread_wait(const struct call *c)
{
	return c && c->fn == h_wake;
}

int call_poll(const struct call *c)
{
	return c && c->fn == h_poll;
}

int call_waits_child(const struct call *c)
{
	return c && c->fn == h_waitpid;
}

int call_opens(const struct call *c)
{
	return c && c->fn == h_open && strcmp(c->api, "opendir");
}

/* stat and access families: they look, and find or not */
int call_looks(const struct call *c)
{
	return c && c->fn == h_stat;
}

int call_removes(const struct call *c)
{
	return c && c->fn == h_unlink;
}

int call_spawns(const struct call *c)
{
	return c && c->fn == h_spawn;
}

