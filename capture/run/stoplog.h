/*
 * The stop log: when the monitor stopped the whole app, and for how long.
 * Fixed-size records, the newest ones in memory, the rest appended to a
 * file, so that the stops of any interval are found by binary search in
 * bounded memory however long the run (Island's stoptime logger).
 */
#ifndef ISLAND_STOPLOG_H
#define ISLAND_STOPLOG_H

#include <stddef.h>
#include <stdint.h>

struct stop {
	int64_t start, dur;          /* ns since the node's start */
};

struct stoplog {
	int fd;                      /* file of the older records, -1 none yet */
	char *path;
	size_t on_file;              /* records in the file */
	struct stop *mem;            /* records after them */
	size_t in_mem, cap;
};

int stoplog_open(struct stoplog *l, const char *path, size_t mem_records);
int stoplog_add(struct stoplog *l, int64_t start, int64_t dur);
size_t stoplog_count(const struct stoplog *l);
int stoplog_get(const struct stoplog *l, size_t i, struct stop *s);
/* Index of the first stop that ends after t (count if none). */
size_t stoplog_find(const struct stoplog *l, int64_t t);
void stoplog_close(struct stoplog *l);
void stoplog_free(struct stoplog *l);

#endif
