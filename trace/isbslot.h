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
 * when it was a number, as one, and the strings it held before that
 * (most recent first, none twice, not its text): a server's calls
 * alternate between a few paths, peers and call names, each a string
 * again. Writer and reader keep the same. */
struct isb_slot {
	bool used, isnum;
	int d;
	int64_t m;
	char *s;		/* the text; the reader's is always set, the
				 * writer's only when not a number */
	size_t len, cap;
	int nmru;
	struct isb_text { char *s; size_t len, cap; } mru[ISB_MRU];
	/* its LINK: the slots whose last numbers add up to its base (an
	 * io's start: the last io's end and the compute's duration after
	 * it, the call's start to the nanosecond) */
	struct isb_slot *link[2];
};

/* The slot's base for DLINK, its digits in *D: false when it has none
 * (no LINK, or its first slot holds no number). The second slot adds
 * when it holds a number of the same digits. (Numbers have 18 digits at
 * most: the sum cannot overflow.) */
static inline bool isb_slot_base(const struct isb_slot *s, int64_t *m, int *d)
{
	const struct isb_slot *a = s->link[0], *b = s->link[1];

	if (!a || !a->used || !a->isnum)
		return false;
	*m = a->m;
	*d = a->d;
	if (b && b->used && b->isnum && b->d == a->d)
		*m += b->m;
	return true;
}

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

/* The string of the slot's recent ones P[0..N) is at (-1: none) */
static inline int isb_slot_find(const struct isb_slot *s, const char *p, size_t n)
{
	for (int i = 0; i < s->nmru; i++)
		if (s->mru[i].len == n && !memcmp(s->mru[i].s, p, n))
			return i;
	return -1;
}

/* The slot's text becomes the string P[0..N): its recent one at I, or a
 * new one (I -1). Its text before, when a string, becomes the most
 * recent; the least recent goes when there are ISB_MRU. */
static inline void isb_slot_string(struct isb_slot *s, int i, const char *p, size_t n)
{
	struct isb_text took = { NULL, 0, 0 };

	if (i >= 0) {		/* taken out, its buffer the text's */
		took = s->mru[i];
		memmove(&s->mru[i], &s->mru[i + 1], (size_t)(s->nmru - i - 1) * sizeof(s->mru[0]));
		s->nmru--;
	}
	if (s->used && !s->isnum && s->s) {
		if (s->nmru == ISB_MRU)
			free(s->mru[--s->nmru].s);
		memmove(&s->mru[1], &s->mru[0], (size_t)s->nmru * sizeof(s->mru[0]));
		s->mru[0] = (struct isb_text){ s->s, s->len, s->cap };
		s->nmru++;
		s->s = NULL;
		s->cap = s->len = 0;
	}
	if (took.s) {
		free(s->s);
		s->s = took.s;
		s->len = took.len;
		s->cap = took.cap;
	} else {
		isb_slot_text(s, p, n);
	}
	s->isnum = false;
	s->used = true;
}

static inline void isb_slots_free(struct isb_slots *t)
{
	for (size_t i = 0; i < t->cap; i++)
		if (t->tab[i].s) {
			for (int k = 0; k < t->tab[i].s->nmru; k++)
				free(t->tab[i].s->mru[k].s);
			free(t->tab[i].s->s);
			free(t->tab[i].s);
		}
	free(t->tab);
	t->tab = NULL;
	t->cap = t->used = 0;
}

#endif
