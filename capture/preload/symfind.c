/*
 * dlsym(RTLD_NEXT) and dlvsym for a table of names at once: every image
 * resolves some 250 real functions in its constructor, and dlsym's own
 * work per name (finding its caller's object, the loader's lock, an error
 * frame) was a sixth of what the interposer adds to a short process's
 * start. The objects loaded after ours are searched here as the loader
 * searches them, each through its GNU hash table; a name this cannot
 * settle (an IFUNC, an object without a GNU hash) is left to dlsym.
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>

#include "symfind.h"

#define BITS (8 * sizeof(ElfW(Addr)))

struct symtab {
	ElfW(Addr) base;
	const ElfW(Sym) *sym;
	const char *str;
	const uint32_t *gnu;         /* DT_GNU_HASH */
	const ElfW(Versym) *versym;  /* or NULL: the object has no versions */
	const ElfW(Verdef) *verdef;
};

/* The loader relocates these entries of the dynamic section in place on
 * most targets, not on all: an address below the base is an offset. */
static const void *dyn_ptr(ElfW(Addr) base, ElfW(Addr) p)
{
	return (const void *)(p < base ? p + base : p);
}

/* Nothing here calls libc: this runs before anything else may have (a
 * sanitizer's runtime calls a wrapper while it starts, and its own
 * strcmp and memset are not yet ready then) */
static int str_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static int table_of(const struct link_map *m, struct symtab *t)
{
	t->sym = NULL, t->str = NULL, t->gnu = NULL, t->versym = NULL, t->verdef = NULL;
	t->base = m->l_addr;
	if (!m->l_ld)
		return -1;
	for (const ElfW(Dyn) *d = m->l_ld; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_SYMTAB:
			t->sym = dyn_ptr(t->base, d->d_un.d_ptr);
			break;
		case DT_STRTAB:
			t->str = dyn_ptr(t->base, d->d_un.d_ptr);
			break;
		case DT_GNU_HASH:
			t->gnu = dyn_ptr(t->base, d->d_un.d_ptr);
			break;
		case DT_VERSYM:
			t->versym = dyn_ptr(t->base, d->d_un.d_ptr);
			break;
		case DT_VERDEF:
			t->verdef = dyn_ptr(t->base, d->d_un.d_ptr);
			break;
		}
	}
	return t->sym && t->str && t->gnu ? 0 : -1;
}

static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

/* The name of version index ndx, or NULL */
static const char *ver_name(const struct symtab *t, unsigned ndx)
{
	const ElfW(Verdef) *v = t->verdef;

	while (v) {
		if (v->vd_ndx == ndx) {
			const ElfW(Verdaux) *a = (const void *)((const char *)v + v->vd_aux);
			return t->str + a->vda_name;
		}
		if (!v->vd_next)
			break;
		v = (const void *)((const char *)v + v->vd_next);
	}
	return NULL;
}

enum { FOUND, ABSENT, UNSURE };

/*
 * name in one object, chosen as the loader's lookup chooses (check_match,
 * do_lookup_x): with ver, the definition of that version; without, the
 * default one, or a hidden one if it is the only version there.
 */
static int in_table(const struct symtab *t, const char *name, uint32_t h,
		    const char *ver, void **out)
{
	const uint32_t nb = t->gnu[0], off = t->gnu[1], nbloom = t->gnu[2], shift = t->gnu[3];
	const ElfW(Addr) *bloom = (const void *)(t->gnu + 4);
	const uint32_t *bucket = (const void *)(bloom + nbloom);
	const uint32_t *chain = bucket + nb;
	const ElfW(Sym) *hidden = NULL;
	int nhidden = 0;

	if (!nb || !nbloom)
		return ABSENT;
	ElfW(Addr) w = bloom[(h / BITS) % nbloom];
	ElfW(Addr) mask = ((ElfW(Addr))1 << (h % BITS)) | ((ElfW(Addr))1 << ((h >> shift) % BITS));
	if ((w & mask) != mask)
		return ABSENT;
	uint32_t i = bucket[h % nb];
	if (i < off)
		return ABSENT;
	for (;; i++) {
		uint32_t h2 = chain[i - off];
		const ElfW(Sym) *s = &t->sym[i];

		if ((h | 1) == (h2 | 1) && s->st_shndx != SHN_UNDEF &&
		    str_eq(t->str + s->st_name, name)) {
			unsigned type = s->st_info & 0xf, bind = s->st_info >> 4;
			ElfW(Versym) vs = t->versym ? t->versym[i] : 0;

			if (type == STT_GNU_IFUNC)
				return UNSURE;  /* its resolver decides */
			if ((type == STT_FUNC || type == STT_OBJECT || type == STT_NOTYPE) &&
			    (bind == STB_GLOBAL || bind == STB_WEAK) && s->st_value) {
				if (ver) {
					const char *vn = t->versym ? ver_name(t, vs & 0x7fff) : NULL;
					if (!t->versym || (vn && str_eq(vn, ver))) {
						*out = (void *)(t->base + s->st_value);
						return FOUND;
					}
				} else if ((vs & 0x7fff) >= 2 && (vs & 0x8000)) {
					if (++nhidden == 1)
						hidden = s;
				} else {
					*out = (void *)(t->base + s->st_value);
					return FOUND;
				}
			}
		}
		if (h2 & 1)
			break;
	}
	if (nhidden == 1) {
		*out = (void *)(t->base + hidden->st_value);
		return FOUND;
	}
	return ABSENT;
}

#define MAX_OBJS 64

int sym_find_after(const struct link_map *self, const struct sym_want *want, size_t n)
{
	struct symtab t[MAX_OBJS];
	int nt = 0, left = 0;

	for (const struct link_map *m = self ? self->l_next : NULL; m; m = m->l_next) {
		if (nt == MAX_OBJS)
			return -1;
		if (table_of(m, &t[nt]) == 0)
			nt++;
		else if (m->l_name && m->l_name[0])
			return -1;   /* an object this cannot search: dlsym does */
	}
	for (size_t k = 0; k < n; k++) {
		uint32_t h = gnu_hash(want[k].name);
		int r = ABSENT;

		*want[k].out = NULL;
		for (int j = 0; j < nt && r == ABSENT; j++)
			r = in_table(&t[j], want[k].name, h, want[k].ver, want[k].out);
		left += r != FOUND;	/* in_table wrote only a find */
	}
	return left;
}
