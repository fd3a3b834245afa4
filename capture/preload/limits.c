/*
 * Rate limits (--fileread, --filewrite, --netsend, --netrecv) with Repy's
 * rule, shared by every process of the app through the spool's limits
 * page. The call is held after it returns, inside its wrapper, so the app
 * sees a slow call, as it did under Repy; the hold is recorded.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"

struct limits_page *limits;

enum { NOLIM = -1 };
#define LIMRES_FILEREAD  LIM_FILEREAD
#define LIMRES_FILEWRITE LIM_FILEWRITE
#define LIMRES_NETSEND   LIM_NETSEND
#define LIMRES_NETRECV   LIM_NETRECV
#define LIMRES_FILEMETA  NOLIM
#define LIMRES_NETMETA   NOLIM
#define LIMRES_SLEEP     NOLIM
#define LIMRES_WAIT      NOLIM
#define LIMRES_PROC      NOLIM
#define LIMRES_SYS       NOLIM
enum { AMTK_NONE, AMTK_RET, AMTK_ITEMS, AMTK_CHAR, AMTK_A2, AMTK_A1 };

static const struct { signed char res, amount; } lim_of[C_NCALLS] = {
#define CALL(id, api, res, amount, effect) [C_##id] = { LIMRES_##res, AMTK_##amount },
#include "trace/calls.def"
#undef CALL
};

void limits_init(const char *dir)
{
	char path[600];
	size_t n = strlen(dir);
	long fd;

	if (n + sizeof(LIMITS_FILE) + 2 > sizeof(path))
		return;
	memcpy(path, dir, n);
	path[n] = '/';
	memcpy(path + n + 1, LIMITS_FILE, sizeof(LIMITS_FILE));
	fd = syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	void *p = mmap(NULL, sizeof(struct limits_page), PROT_READ | PROT_WRITE,
		       MAP_SHARED, (int)fd, 0);
	syscall(SYS_close, fd);
	if (p != MAP_FAILED && ((struct limits_page *)p)->magic == LIMITS_MAGIC)
		limits = p;
}

static int64_t amount(const struct rec *r, int kind)
{
	switch (kind) {
	case AMTK_RET:   return r->ret > 0 ? r->ret : 0;
	case AMTK_ITEMS: return r->ret > 0 ? r->ret * r->a2 : 0;
	case AMTK_CHAR:  return r->ret >= 0 ? 1 : 0;
	case AMTK_A2:    return r->ret >= 0 ? r->a2 : 0;
	case AMTK_A1:    return r->ret >= 0 ? r->a1 : 0;
	}
	return 0;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

void throttle(struct tstate *t, struct rec *r)
{
	if (r->call >= C_NCALLS || lim_of[r->call].res == NOLIM)
		return;
	int res = lim_of[r->call].res;
	int64_t a = amount(r, lim_of[r->call].amount);
	if (a <= 0)
		return;
	if (res == LIM_FILEREAD || res == LIM_FILEWRITE) {
		struct stat st;       /* data on a socket or pipe is traffic */
		int e = errno;
		if (syscall(SYS_fstat, r->fd, &st) == 0 &&
		    (S_ISSOCK(st.st_mode) || S_ISFIFO(st.st_mode)))
			res = res == LIM_FILEREAD ? LIM_NETRECV : LIM_NETSEND;
		errno = e;
	}
	double rate = limits->rate[res];
	if (rate <= 0)
		return;

	struct limit_bucket *b = &limits->b[res];
	while (__atomic_exchange_n(&b->lock, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
	int64_t now_ns = mono_ns();
	double usage = b->usage - rate * (double)(now_ns - b->last) / 1e9;
	if (usage < 0)
		usage = 0;
	double before = usage;
	usage += (double)a;
	b->usage = usage;
	b->last = now_ns;
	__atomic_store_n(&b->lock, 0, __ATOMIC_RELEASE);
	if (usage <= rate)
		return;

	int64_t hold = (int64_t)((usage - rate) / rate * 1e9);
	int e = errno;
	nap_ns(hold);
	errno = e;
	uint64_t t1 = now();
	r->t1 = t1;
	put(t, REC_THROTTLE, t1, t1, 0, res, hold, (int64_t)before, 0);
}
