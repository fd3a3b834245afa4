/* Many names looked up after one object at once, as dlsym(RTLD_NEXT) and
 * dlvsym would look them up (symfind.c). */
#ifndef ISLAND_SYMFIND_H
#define ISLAND_SYMFIND_H

#include <link.h>
#include <stddef.h>

struct sym_want {
	const char *name;
	const char *ver;             /* NULL: the default version */
	void **out;                  /* NULL when not settled here */
};

/* Each name in the objects loaded after self; how many were not settled
 * (left NULL, for dlsym), or -1 when none was looked up. */
int sym_find_after(const struct link_map *self, const struct sym_want *want, size_t n);

#endif
