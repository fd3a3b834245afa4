/*
 * Call sites (island-capture --callsites): after each recorded call, a
 * short REC_SITE record holding the address its wrapper returns to. The
 * first time an address falls outside the modules this process has
 * described, a REC_MODULE record describes the module that holds it
 * (dl_iterate_phdr: file, load bias, executable range, build id), so the
 * writer can make the address relative to its file and the analyzer can
 * resolve it on any machine that has the binary.
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/auxv.h>

#include "preload.h"

#define MOD_MAX 512
struct mod {
	uintptr_t lo, hi;
};
static struct mod mods[MOD_MAX];
static volatile int nmods;		/* published entries */
static volatile int mod_lock;

/* The range of a module, by the address it holds. */
struct found {
	uintptr_t addr, bias, lo, hi;
	const char *path;
	const unsigned char *id;
	size_t idlen;
};

static void build_id(struct dl_phdr_info *info, const ElfW(Phdr) *ph, struct found *f)
{
	const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
	const char *end = p + ph->p_memsz;

	while (p + sizeof(ElfW(Nhdr)) <= end) {
		const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
		const char *name = p + sizeof(*n);
		const char *desc = name + ((n->n_namesz + 3) & ~3u);

		if (desc + n->n_descsz > end)
			return;
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
			f->id = (const unsigned char *)desc;
			f->idlen = n->n_descsz;
			return;
		}
		p = desc + ((n->n_descsz + 3) & ~3u);
	}
}

static int find_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct found *f = arg;
	uintptr_t lo = UINTPTR_MAX, hi = 0;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
	}
	if (f->addr < lo || f->addr >= hi)
		return 0;
	f->bias = info->dlpi_addr;
	f->lo = lo;
	f->hi = hi;
	f->path = info->dlpi_name;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_NOTE && !f->id)
			build_id(info, &info->dlpi_phdr[i], f);
	return 1;
}


static void describe(struct tstate *t, uintptr_t addr)
{
	struct found f = { .addr = addr };
	char exe[4096], hex[2 * 64 + 1];
	const char *path;
	int n;

	if (!dl_iterate_phdr(find_cb, &f))
		return;		/* not in a module: JIT code, a trampoline */
	while (__atomic_exchange_n(&mod_lock, 1, __ATOMIC_ACQUIRE))
		;
	n = nmods;
	for (int i = 0; i < n; i++)
		if (mods[i].lo == f.lo) {	/* another thread was first */
			__atomic_store_n(&mod_lock, 0, __ATOMIC_RELEASE);
			return;
		}
	if (n < MOD_MAX) {
		mods[n] = (struct mod){ f.lo, f.hi };
		__atomic_store_n(&nmods, n + 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&mod_lock, 0, __ATOMIC_RELEASE);
	path = f.path;
	/* the main program, started by island-loader (--syscalls): its
	 * /proc/self/exe is the loader */
	if ((!path || !path[0]) && island_exe)
		path = island_exe;
	if (!path || !path[0]) {	/* the main program */
		long l = raw_syscall(SYS_readlinkat, AT_FDCWD, (long)"/proc/self/exe",
				     (long)exe, sizeof(exe) - 1, 0, 0);
		exe[l > 0 ? l : 0] = 0;
		path = exe;
	}
	if (f.idlen > 64)
		f.idlen = 64;
	for (size_t i = 0; i < f.idlen; i++) {
		hex[2 * i] = "0123456789abcdef"[f.id[i] >> 4];
		hex[2 * i + 1] = "0123456789abcdef"[f.id[i] & 15];
	}
	hex[2 * f.idlen] = 0;
	/* not a call: nothing to set off */
	rec_payload(t, REC_MODULE, 0, 0, (int64_t)f.hi, -1, (int64_t)f.bias,
		    (int64_t)f.lo, 0, 0, path, rec_str_size(path), hex, rec_str_size(hex));
}

void site_put(struct tstate *t)
{
	uintptr_t a = (uintptr_t)t->site;
	int n = __atomic_load_n(&nmods, __ATOMIC_ACQUIRE), i;
	struct srec *q;

	for (i = 0; i < n; i++)
		if (a >= mods[i].lo && a < mods[i].hi)
			break;
	if (unlikely(i == n))
		describe(t, a);
	q = (struct srec *)rec_reserve(t, sizeof(*q));
	if (unlikely(!q))
		return;
	memset(q, 0, sizeof(*q) - sizeof(q->a2));
	q->a2 = 0;
	q->t0 = a;
	q->fd = -1;
	q->call = REC_SITE;
	rec_commit(t, &q->len, sizeof(*q));
}

/* Every module loaded now that is not described yet (--profile: the
 * frames of a stack taken in a signal handler, where dl_iterate_phdr may
 * not be called, fall in them). */
static int all_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t lo = UINTPTR_MAX;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
	}
	if (lo != UINTPTR_MAX) {
		int n = __atomic_load_n(&nmods, __ATOMIC_ACQUIRE), i;

		for (i = 0; i < n; i++)
			if (mods[i].lo == lo)
				break;
		if (i == n)
			describe(arg, lo);
	}
	return 0;
}

/* Does a lie in a module described so far? (From a signal handler too:
 * no lock, the entries are published before the count.) */
int sites_known(uintptr_t a)
{
	int n = __atomic_load_n(&nmods, __ATOMIC_ACQUIRE);

	for (int i = 0; i < n; i++)
		if (a >= mods[i].lo && a < mods[i].hi)
			return 1;
	return 0;
}

void sites_describe_all(struct tstate *t)
{
	dl_iterate_phdr(all_cb, t);
}

/* A forked child writes new spools: it describes its modules again. */
void sites_fork_child(void)
{
	nmods = 0;
	mod_lock = 0;
}
