/* island-loader: what the interposer's core calls and a static program
 * cannot have. The profiler (capture/preload/sampler.c) needs dlopen and
 * the program's allocator; --callsites describes the callers of libc's
 * wrappers, and a static program has none of ours. */
#include "../preload/preload.h"

void site_put(struct tstate *t)
{
	(void)t;
}

void sites_fork_child(void)
{
}

void sites_describe_all(struct tstate *t)
{
	(void)t;
}

struct prof_ctl *prof;

void prof_init(const char *dir, size_t dirlen)
{
	(void)dir;
	(void)dirlen;
}

void prof_thread_start(struct tstate *t)
{
	(void)t;
}

uint64_t prof_thread_end(struct tstate *t)
{
	(void)t;
	return 0;
}

uint64_t prof_tail(struct tstate *t)
{
	(void)t;
	return 0;
}

void prof_exec_stop(struct tstate *t)
{
	(void)t;
}

void prof_fork_child(void)
{
}

void prof_exec_resume(struct tstate *t)
{
	(void)t;
}

void prof_drop_own(struct tstate *t)
{
	(void)t;
}

void prof_flush(struct tstate *t)
{
	t->prof_pending = 0;
}

void prof_call(struct tstate *t, uint64_t t0, uint64_t t1)
{
	(void)t;
	(void)t0;
	(void)t1;
}

void *prof_handler(void)
{
	return NULL;
}
