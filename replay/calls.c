/* The replayable calls: api -> how it is issued, and the report family it
 * is counted in. A call not listed here is replayed by its resource class
 * when that is enough (a data read is a read), else skipped and counted. */
#include "exec.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

const char *const family_names[NFAM] = { "read", "write", "open", "sync", "net", "other" };

static struct call calls[] = {
	/* files: open and close */
	{ "open", h_open, FAM_OPEN }, { "openat", h_open, FAM_OPEN },
	{ "creat", h_open, FAM_OPEN }, { "fopen", h_open, FAM_OPEN },
	{ "freopen", h_open, FAM_OPEN }, { "opendir", h_open, FAM_OPEN },
	{ "mkstemp", h_open, FAM_OPEN }, { "mkostemp", h_open, FAM_OPEN },
	{ "mkstemps", h_open, FAM_OPEN }, { "mkostemps", h_open, FAM_OPEN },
	{ "tmpfile", h_open, FAM_OPEN },
	{ "close", h_close, FAM_OPEN }, { "fclose", h_close, FAM_OPEN },
	{ "closedir", h_close, FAM_OPEN },
	{ "fdopen", h_nop, FAM_OPEN }, { "fdopendir", h_nop, FAM_OPEN },
	/* data */
	{ "read", h_read, FAM_READ }, { "pread", h_read, FAM_READ },
	{ "readv", h_read, FAM_READ }, { "preadv", h_read, FAM_READ },
	{ "preadv2", h_read, FAM_READ }, { "fread", h_read, FAM_READ },
	{ "fgets", h_read, FAM_READ }, { "fgetc", h_read, FAM_READ },
	{ "getc", h_read, FAM_READ }, { "getline", h_read, FAM_READ },
	{ "getdelim", h_read, FAM_READ }, { "fscanf", h_read, FAM_READ },
	{ "readdir", h_spent, FAM_READ },
	{ "write", h_write, FAM_WRITE }, { "pwrite", h_write, FAM_WRITE },
	{ "writev", h_write, FAM_WRITE }, { "pwritev", h_write, FAM_WRITE },
	{ "pwritev2", h_write, FAM_WRITE }, { "fwrite", h_write, FAM_WRITE },
	{ "fputs", h_write, FAM_WRITE }, { "fputc", h_write, FAM_WRITE },
	{ "putc", h_write, FAM_WRITE }, { "puts", h_write, FAM_WRITE },
	{ "fprintf", h_write, FAM_WRITE }, { "vfprintf", h_write, FAM_WRITE },
	{ "printf", h_write, FAM_WRITE }, { "dprintf", h_write, FAM_WRITE },
	{ "sendfile", h_copy, FAM_WRITE }, { "copy_file_range", h_copy, FAM_WRITE },
	{ "splice", h_copy, FAM_WRITE },
	/* stdio_calls below: the buffer is written */
	{ "fflush", h_fflush, FAM_WRITE },
	{ "fsync", h_sync, FAM_SYNC }, { "fdatasync", h_sync, FAM_SYNC },
	{ "sync", h_sync, FAM_SYNC }, { "syncfs", h_sync, FAM_SYNC },
	{ "sync_file_range", h_sync, FAM_SYNC }, { "msync", h_spent, FAM_SYNC },
	/* metadata */
	{ "lseek", h_seek, FAM_OPEN }, { "fseek", h_seek, FAM_OPEN },
	{ "fseeko", h_seek, FAM_OPEN }, { "rewind", h_seek, FAM_OPEN },
	{ "stat", h_stat, FAM_OPEN }, { "lstat", h_stat, FAM_OPEN },
	{ "fstat", h_stat, FAM_OPEN }, { "fstatat", h_stat, FAM_OPEN },
	{ "newfstatat", h_stat, FAM_OPEN }, { "statx", h_stat, FAM_OPEN },
	{ "access", h_stat, FAM_OPEN }, { "faccessat", h_stat, FAM_OPEN },
	{ "truncate", h_trunc, FAM_OPEN }, { "ftruncate", h_trunc, FAM_OPEN },
	{ "mkdir", h_mkdir, FAM_OPEN }, { "mkdirat", h_mkdir, FAM_OPEN },
	{ "mkdtemp", h_mkdir, FAM_OPEN },
	{ "rmdir", h_rmdir, FAM_OPEN }, { "unlink", h_unlink, FAM_OPEN },
	{ "unlinkat", h_unlink, FAM_OPEN }, { "remove", h_unlink, FAM_OPEN },
	{ "rename", h_rename, FAM_OPEN }, { "renameat", h_rename, FAM_OPEN },
	{ "renameat2", h_rename, FAM_OPEN },
	{ "link", h_link, FAM_OPEN }, { "linkat", h_link, FAM_OPEN },
	{ "symlink", h_symlink, FAM_OPEN }, { "symlinkat", h_symlink, FAM_OPEN },
	{ "dup", h_dup, FAM_OPEN }, { "dup2", h_dup, FAM_OPEN },
	{ "dup3", h_dup, FAM_OPEN }, { "fcntl", h_dup, FAM_OPEN },
	{ "chdir", h_nop, FAM_OPEN }, { "fchdir", h_nop, FAM_OPEN },
	/* descriptors on no file: a memory file is made again; an event
	 * counter, timer, signal queue, epoll set or inotify is not (its
	 * reads and writes: call_on_event) */
	{ "memfd_create", h_memfd, FAM_OPEN },
	{ "eventfd", h_nop, FAM_OTHER }, { "timerfd_create", h_nop, FAM_OTHER },
	{ "signalfd", h_nop, FAM_OTHER }, { "epoll_create", h_nop, FAM_OTHER },
	{ "epoll_create1", h_nop, FAM_OTHER }, { "inotify_init", h_nop, FAM_OTHER },
	{ "inotify_init1", h_nop, FAM_OTHER },
	/* network */
	{ "socket", h_socket, FAM_NET }, { "socketpair", h_socketpair, FAM_NET },
	{ "pipe", h_pipe, FAM_NET }, { "pipe2", h_pipe, FAM_NET },
	{ "bind", h_bind, FAM_NET }, { "listen", h_listen, FAM_NET },
	{ "connect", h_connect, FAM_NET }, { "accept", h_accept, FAM_NET },
	{ "accept4", h_accept, FAM_NET }, { "shutdown", h_shutdown, FAM_NET },
	{ "send", h_send, FAM_NET }, { "sendto", h_send, FAM_NET },
	{ "sendmsg", h_send, FAM_NET }, { "sendmmsg", h_send, FAM_NET },
	{ "recv", h_recv, FAM_NET }, { "recvfrom", h_recv, FAM_NET },
	{ "recvmsg", h_recv, FAM_NET }, { "recvmmsg", h_recv, FAM_NET },
	/* time and waiting */
	{ "sleep", h_sleep, FAM_OTHER }, { "usleep", h_sleep, FAM_OTHER },
	{ "nanosleep", h_sleep, FAM_OTHER }, { "clock_nanosleep", h_sleep, FAM_OTHER },
	{ "poll", h_poll, FAM_OTHER }, { "ppoll", h_poll, FAM_OTHER },
	{ "select", h_poll, FAM_OTHER }, { "pselect", h_poll, FAM_OTHER },
	{ "epoll_wait", h_poll, FAM_OTHER }, { "epoll_pwait", h_poll, FAM_OTHER },
	{ "pthread_join", h_join, FAM_OTHER },
	{ "waitpid", h_waitpid, FAM_OTHER }, { "wait", h_waitpid, FAM_OTHER },
	{ "wait3", h_waitpid, FAM_OTHER }, { "wait4", h_waitpid, FAM_OTHER },
	{ "waitid", h_waitpid, FAM_OTHER }, { "pclose", h_waitpid, FAM_OTHER },
	/* shared-memory synchronisation inside a node: the replay's own
	 * threads do not share the app's locks, so these are not reissued.
	 * A condition or barrier wait always waits for another thread, and
	 * waits for that thread's call (h_wake); a lock or semaphore waits
	 * only when taken, which the trace does not say: a short lock's
	 * window catches unrelated calls of a busy thread (the token ring's
	 * progress thread, tied so to its main thread's calls, made the
	 * ranks 13 % long where 6 % without) */
	{ "pthread_mutex_lock", h_nop, FAM_OTHER }, { "pthread_cond_wait", h_wake, FAM_OTHER },
	{ "pthread_cond_timedwait", h_wake, FAM_OTHER },
	{ "pthread_barrier_wait", h_wake, FAM_OTHER }, { "sem_wait", h_nop, FAM_OTHER },
	{ "sem_timedwait", h_nop, FAM_OTHER },
	/* life cycle */
	{ "pthread_create", h_thread, FAM_OTHER },
	{ "fork", h_spawn, FAM_OTHER }, { "vfork", h_spawn, FAM_OTHER },
	{ "clone", h_spawn, FAM_OTHER }, { "posix_spawn", h_spawn, FAM_OTHER },
	{ "posix_spawnp", h_spawn, FAM_OTHER }, { "system", h_spawn, FAM_OTHER },
	{ "popen", h_spawn, FAM_OTHER },
	{ "execve", h_exec, FAM_OTHER }, { "execv", h_exec, FAM_OTHER },
	{ "execvp", h_exec, FAM_OTHER }, { "execvpe", h_exec, FAM_OTHER },
	{ "execl", h_exec, FAM_OTHER }, { "execlp", h_exec, FAM_OTHER },
	{ "execle", h_exec, FAM_OTHER }, { "fexecve", h_exec, FAM_OTHER },
	/* asynchronous operations (aio.c): each waited for where it was
	 * reaped, its submission issued where it began; the calls that
	 * submitted and reaped them are theirs */
	{ "io_pread", h_aio_wait, FAM_READ }, { "io_preadv", h_aio_wait, FAM_READ },
	{ "io_pwrite", h_aio_wait, FAM_WRITE }, { "io_pwritev", h_aio_wait, FAM_WRITE },
	{ "io_fsync", h_aio_wait, FAM_SYNC }, { "io_fdsync", h_aio_wait, FAM_SYNC },
	{ "aio_read", h_aio_wait, FAM_READ }, { "aio_write", h_aio_wait, FAM_WRITE },
	{ "aio_fsync", h_aio_wait, FAM_SYNC },
	{ "uring_read", h_aio_wait, FAM_READ }, { "uring_readv", h_aio_wait, FAM_READ },
	{ "uring_read_fixed", h_aio_wait, FAM_READ },
	{ "uring_write", h_aio_wait, FAM_WRITE }, { "uring_writev", h_aio_wait, FAM_WRITE },
	{ "uring_write_fixed", h_aio_wait, FAM_WRITE },
	{ "uring_fsync", h_aio_wait, FAM_SYNC }, { "uring_fallocate", h_aio_wait, FAM_OPEN },
	{ "uring_nop", h_aio_wait, FAM_OTHER },
	{ "io_setup", h_nop, FAM_OTHER }, { "io_destroy", h_nop, FAM_OTHER },
	{ "io_submit", h_nop, FAM_OTHER }, { "io_getevents", h_nop, FAM_OTHER },
	{ "io_cancel", h_nop, FAM_OTHER }, { "lio_listio", h_nop, FAM_OTHER },
	{ "aio_suspend", h_nop, FAM_OTHER }, { "io_uring_setup", h_nop, FAM_OTHER },
	{ "io_uring_enter", h_nop, FAM_OTHER }, { "io_uring_register", h_nop, FAM_OTHER },
};

/* A stdio stream's calls: writes fill its buffer, and the kernel sees a
 * write when it is full, flushed or closed, or the process exits; reads
 * take from what a read of a whole buffer brought. */
static const struct { const char *api; uint8_t kind; } stdio_calls[] = {
	{ "fwrite", STDIO_WRITE }, { "fputs", STDIO_WRITE }, { "fputc", STDIO_WRITE },
	{ "putc", STDIO_WRITE }, { "puts", STDIO_WRITE }, { "fprintf", STDIO_WRITE },
	{ "vfprintf", STDIO_WRITE }, { "printf", STDIO_WRITE },
	{ "fread", STDIO_READ }, { "fgets", STDIO_READ }, { "fgetc", STDIO_READ },
	{ "getc", STDIO_READ }, { "getline", STDIO_READ }, { "getdelim", STDIO_READ },
	{ "fscanf", STDIO_READ },
	{ "fflush", STDIO_FLUSH }, { "fclose", STDIO_FLUSH },
};

#define NCALLS (sizeof(calls) / sizeof(*calls))
static uint8_t stdio_of[NCALLS];	/* by index in the sorted calls */

int call_stdio(const struct call *c)
{
	return c >= calls && c < calls + NCALLS ? stdio_of[c - calls] : STDIO_NONE;
}

/* Unlisted data calls, replayed by what they did. */
static struct call by_res[] = {
	[RES_FILEREAD] = { "(read)", h_read, FAM_READ },
	[RES_FILEWRITE] = { "(write)", h_write, FAM_WRITE },
	[RES_NETSEND] = { "(send)", h_send, FAM_NET },
	[RES_NETRECV] = { "(recv)", h_recv, FAM_NET },
};

static int cmp_call(const void *a, const void *b)
{
	return strcmp(((const struct call *)a)->api, ((const struct call *)b)->api);
}

const struct call *call_lookup(const char *api, int res)
{
	static int sorted;
	struct call key = { .api = api };

	if (!sorted) {
		qsort(calls, sizeof(calls) / sizeof(*calls), sizeof(*calls), cmp_call);
		for (size_t i = 0; i < NCALLS; i++)
			for (size_t j = 0; j < sizeof(stdio_calls) / sizeof(*stdio_calls); j++)
				if (!strcmp(calls[i].api, stdio_calls[j].api))
					stdio_of[i] = stdio_calls[j].kind;
		sorted = 1;
	}
	const struct call *c = bsearch(&key, calls, sizeof(calls) / sizeof(*calls),
				       sizeof(*calls), cmp_call);
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
	static const struct call wait = { "(event wait)", h_event, FAM_OTHER },
				 post = { "(event post)", h_nop, FAM_OTHER };

	return c && c->fn == h_read ? &wait : c && c->fn == h_write ? &post : c;
}

int call_aio_wait(const struct call *c)
{
	return c && c->fn == h_aio_wait;
}

const struct call *call_aio_submit(void)
{
	static const struct call submit = { "(submit)", h_aio_submit, FAM_OTHER };

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

/* A socket read is network time even when the call is read(). */
enum family op_family(const struct op *o)
{
	if (o->res == RES_NETSEND || o->res == RES_NETRECV || o->res == RES_NETMETA)
		return FAM_NET;
	if (o->call)
		return (enum family)o->call->family;
	switch (o->res) {
	case RES_FILEREAD: return FAM_READ;
	case RES_FILEWRITE: return FAM_WRITE;
	case RES_FILEMETA: return FAM_OPEN;
	default: return FAM_OTHER;
	}
}
