/* sites: a call site or a stack frame, "MODULE:0xOFFSET" in the trace (the offset from the
 * module's load bias: an address in the binary's own terms), as the
 * function and source line that made the call, resolved with libdw from
 * the binary the process's <module> names. Traces stay small and can be
 * read on another machine that has the binaries: when the recorded path
 * is missing or holds another build, the binary is looked up by its build
 * id, in /usr/lib/debug/.build-id and in the --binaries directories. The
 * return address is the instruction after the call: the line is looked up
 * one byte before. A binary found nowhere is named in one warning line and
 * its sites are shown as module+0xOFFSET. Memory: one Dwfl per binary, one
 * label per site. */
#include "analyze.h"

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <ftw.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct bin {
	const char *path;	/* interned */
	Dwfl *dwfl;
	Dwfl_Module *mod;	/* NULL: cannot resolve */
};

static struct bin *bins;
static size_t nbins, capbins;

static const Dwfl_Callbacks callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* --binaries: the directories, and once read, their ELF files by build id */
static const char **bdirs;
static size_t nbdirs, capbdirs;
struct byid {
	char *id, *path;
};
static struct byid *byids;
static size_t nbyids, capbyids;
static bool indexed;

void sites_binaries(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		die(2, "--binaries: '%s' is not a directory", dir);
	XGROW(bdirs, capbdirs, nbdirs + 1);
	bdirs[nbdirs++] = dir;
}

/* The GNU build id of the ELF file at path, in hex, or NULL. */
static char *file_build_id(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char magic[4], *hex = NULL;
	const void *id;
	Elf *e;
	ssize_t n;

	if (fd < 0)
		return NULL;
	if (read(fd, magic, 4) != 4 || memcmp(magic, ELFMAG, 4) ||
	    !(e = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		close(fd);
		return NULL;
	}
	n = dwelf_elf_gnu_build_id(e, &id);
	if (n > 0 && n <= 64) {
		hex = xcalloc(1, 2 * (size_t)n + 1);
		for (ssize_t i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02x", ((const unsigned char *)id)[i]);
	}
	elf_end(e);
	close(fd);
	return hex;
}

static int index_one(const char *path, const struct stat *st, int kind, struct FTW *ftw)
{
	char *id;

	if (kind != FTW_F || !S_ISREG(st->st_mode) || st->st_size < 64)
		return 0;
	if ((id = file_build_id(path))) {
		XGROW(byids, capbyids, nbyids + 1);
		byids[nbyids++] = (struct byid){ id, xstrdup(path) };
	}
	return 0;
}

/* A file with build id `id`: /usr/lib/debug/.build-id/xx/rest.debug,
 * else one under a --binaries directory (searched once, on the first
 * binary not where the trace says). NULL: none. */
static const char *find_by_build_id(const char *id)
{
	char *dbg;

	if (!id || strlen(id) < 4)
		return NULL;
	dbg = xasprintf("/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2);
	if (!access(dbg, R_OK)) {
		const char *p = intern(dbg);

		free(dbg);
		return p;
	}
	free(dbg);
	if (!indexed) {
		indexed = true;
		elf_version(EV_CURRENT);
		for (size_t i = 0; i < nbdirs; i++)
			nftw(bdirs[i], index_one, 16, FTW_PHYS);
	}
	for (size_t i = 0; i < nbyids; i++)
		if (!strcmp(byids[i].id, id))
			return byids[i].path;
	return NULL;
}

static bool same_build_id(Dwfl_Module *m, const char *want)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(m, &bits, &vaddr);
	char hex[2 * 64 + 1];

	if (!want || n <= 0)
		return true;	/* nothing to compare */
	if (n > 64)
		n = 64;
	for (int i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", bits[i]);
	return !strcmp(hex, want);
}

static bool open_bin(struct bin *b, const char *file)
{
	b->dwfl = dwfl_begin(&callbacks);
	if (b->dwfl) {
		b->mod = dwfl_report_elf(b->dwfl, file, file, -1, 0, false);
		dwfl_report_end(b->dwfl, NULL, NULL);
	}
	return b->mod != NULL;
}

static void close_bin(struct bin *b)
{
	if (b->dwfl)
		dwfl_end(b->dwfl);
	b->dwfl = NULL;
	b->mod = NULL;
}

static struct bin *bin_of(const struct trace_module *md)
{
	const char *path = intern(md->path);
	struct bin *b;

	for (size_t i = 0; i < nbins; i++)
		if (bins[i].path == path)
			return &bins[i];
	XGROW(bins, capbins, nbins + 1);
	b = &bins[nbins++];
	*b = (struct bin){ .path = path };
	if (!strncmp(path, "linux-vdso", 10) || !strncmp(path, "linux-gate", 10))
		return b;	/* the kernel's: no file to read */
	const char *why = NULL, *other;

	if (!open_bin(b, path))
		why = xasprintf("cannot read it (%s)", dwfl_errmsg(-1));
	else if (!same_build_id(b->mod, md->build_id)) {
		why = xasprintf("not the binary that was captured (another build id)");
		close_bin(b);
	}
	if (why && (other = find_by_build_id(md->build_id)) &&
	    (!open_bin(b, other) || !same_build_id(b->mod, md->build_id)))
		close_bin(b);
	if (why && !b->mod)
		warnx("warning: %s: %s, and no file with its build id %s: its call sites "
		      "are shown as offsets", path, why, md->build_id && *md->build_id ?
		      "was found (/usr/lib/debug/.build-id, --binaries)" : "is known");
	free((char *)why);
	return b;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* One frame per distinct (module path, offset): a small open table. */
struct cached {
	const char *path;
	uint64_t off;
	struct frame f;
};

/* The frame at off in md: function and line when the binary tells. */
static void resolve(const struct trace_module *md, uint64_t off, struct frame *f)
{
	struct bin *b = bin_of(md);
	GElf_Off symoff;
	GElf_Sym sym;
	const char *fn = NULL, *file = NULL;
	Dwfl_Line *ln;
	int line = 0;
	char *s;

	f->module = intern(md->path);
	if (b->mod) {
		fn = dwfl_module_addrinfo(b->mod, off - 1, &symoff, &sym, NULL, NULL, NULL);
		ln = dwfl_module_getsrc(b->mod, off - 1);
		if (ln)
			file = dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL);
	}
	/* a versioned symbol's name is the function's (__libc_start_main,
	 * not __libc_start_main@@GLIBC_2.34): one row, as perf shows it */
	int fnlen = fn ? (int)strcspn(fn, "@") : 0;
	if (fn && file)
		s = xasprintf("%.*s (%s:%d)", fnlen, fn, base_name(file), line);
	else if (fn)
		s = xasprintf("%.*s+0x%llx (%s)", fnlen, fn, (unsigned long long)symoff, base_name(md->path));
	else
		s = xasprintf("%s+0x%llx", base_name(md->path), (unsigned long long)off);
	f->label = intern(s);
	free(s);
	if (fn) {
		s = xasprintf("%.*s", fnlen, fn);
		f->func = intern(s);
		free(s);
	} else {
		s = xasprintf("%s+0x%llx", base_name(md->path), (unsigned long long)off);
		f->func = intern(s);
		free(s);
	}
}
/* The table holds pointers: a frame given out stays where it is when the
 * table grows (a stack's frames are looked up one after the other, and
 * the earlier ones were read after a later one moved them). */
static struct cached **cache;
static size_t ncache, capcache;

static size_t slot_of(struct cached **t, size_t cap, const char *path, uint64_t off)
{
	size_t h = (((uintptr_t)path >> 3) ^ off * 0x9e3779b97f4a7c15ull) & (cap - 1);

	while (t[h] && !(t[h]->path == path && t[h]->off == off))
		h = (h + 1) & (cap - 1);
	return h;
}

/* md NULL: an address outside every module described (JIT code), named
 * by itself */
static const struct frame *cached(const struct trace_module *md, uint64_t off)
{
	const char *path = intern(md ? md->path : "");
	size_t h;

	if (ncache * 2 >= capcache) {
		size_t nc = capcache ? capcache * 2 : 256;
		struct cached **nv = xcalloc(nc, sizeof(*nv));

		for (size_t i = 0; i < capcache; i++)
			if (cache[i])
				nv[slot_of(nv, nc, cache[i]->path, cache[i]->off)] = cache[i];
		free(cache);
		cache = nv;
		capcache = nc;
	}
	h = slot_of(cache, capcache, path, off);
	if (cache[h])
		return &cache[h]->f;
	cache[h] = xcalloc(1, sizeof(**cache));
	cache[h]->path = path;
	cache[h]->off = off;
	if (md) {
		resolve(md, off, &cache[h]->f);
	} else {
		char buf[32];

		snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)off);
		cache[h]->f.label = cache[h]->f.func = intern(buf);
		cache[h]->f.module = path;
	}
	ncache++;
	return &cache[h]->f;
}

const struct frame *site_frame(const struct trace_thread *t, const char *site)
{
	static struct frame none;	/* no site: "" */
	const struct trace_proc *p = t->proc;
	char *end;
	long id;
	unsigned long long off;

	if (site && *site) {
		id = strtol(site, &end, 10);
		if (*end == ':' && p) {
			off = strtoull(end + 1, &end, 16);
			for (size_t i = 0; i < p->nmods; i++)
				if (p->mods[i].id == id)
					return cached(&p->mods[i], off);
		}
	}
	/* an address outside every module described (JIT code): a frame of
	 * its own, as a stack holds several */
	if (site && !strncmp(site, "0x", 2)) {
		off = strtoull(site + 2, &end, 16);
		if (!*end && end > site + 2)
			return cached(NULL, off);
	}
	none.label = none.func = intern(site ? site : "");
	none.module = intern("");
	return &none;
}

const char *site_label(const struct trace_thread *t, const char *site)
{
	return site ? site_frame(t, site)->label : "";
}
