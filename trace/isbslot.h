/* The binary encoding's value slots (isb.h): one table, the same in the
 * writer (trace/isbenc.c) and the reader (trace/isb.c). */
#ifndef ISLAND_ISBSLOT_H
#define ISLAND_ISBSLOT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/isbfmt.h"
#include "util.h"

/* A value's slot, (element, attribute): its last value, as text and,
 * when it was a number, as one. Writer and reader keep the same. */
struct isb_slot {
	bool used, isnum;
	int d;
	int64_t m;
	char *s;		/* the text; the reader's is always set, the
				 * writer's only when not a number */
	size_t len, cap;
};

struct isb_slots {
	struct { uint32_t key; struct isb_slot *s; } *tab;
	size_t cap, used;
};

/* (EL, AT)'s slot, made on first use; NULL past ISB_MAXSLOTS. Needs
 * util.h (xcalloc). */
static inline struct isb_slot *isb_slot_of(struct isb_slots *t, uint32_t el, uint32_t at)
{
	uint32_t key = el * ISB_MAXNAMES + at;
	size_t h;

	if (2 * (t->used + 1) > t->cap) {
		size_t ocap = t->cap;
		__typeof__(t->tab) old = t->tab;

		t->cap = ocap ? ocap * 2 : 1024;
		t->tab = xcalloc(t->cap, sizeof(*t->tab));
		for (size_t i = 0; i < ocap; i++) {
			if (!old[i].s)
				continue;
			h = (old[i].key * 2654435761u) & (t->cap - 1);
			while (t->tab[h].s)
				h = (h + 1) & (t->cap - 1);
			t->tab[h] = old[i];
		}
		free(old);
	}
	h = (key * 2654435761u) & (t->cap - 1);
	for (; t->tab[h].s; h = (h + 1) & (t->cap - 1))
		if (t->tab[h].key == key)
			return t->tab[h].s;
	if (t->used == ISB_MAXSLOTS)
		return NULL;
	t->tab[h].key = key;
	t->tab[h].s = xcalloc(1, sizeof(struct isb_slot));
	t->used++;
	return t->tab[h].s;
}

/* the slot's text: P[0..N), NUL-terminated */
static inline void isb_slot_text(struct isb_slot *s, const char *p, size_t n)
{
	if (s->cap < n + 1) {
		s->cap = n + 1 > 32 ? n + 1 : 32;
		s->s = xrealloc(s->s, s->cap);
	}
	memcpy(s->s, p, n);
	s->s[n] = 0;
	s->len = n;
}

static inline void isb_slots_free(struct isb_slots *t)
{
	for (size_t i = 0; i < t->cap; i++)
		if (t->tab[i].s) {
			free(t->tab[i].s->s);
			free(t->tab[i].s);
		}
	free(t->tab);
	t->tab = NULL;
	t->cap = t->used = 0;
}

#endif
