#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/run/run.h"
#include "util.h"

int stoplog_open(struct stoplog *l, const char *path, size_t mem_records)
{
	memset(l, 0, sizeof(*l));
	l->fd = -1;
	l->path = xstrdup(path);
	l->cap = mem_records ? mem_records : 1;
	l->mem = xcalloc(l->cap, sizeof(*l->mem));
	return 0;
}

/* Memory full: the records go to the end of the file, in order. */
static int spill(struct stoplog *l)
{
	size_t n = l->in_mem * sizeof(*l->mem);

	if (l->fd < 0) {
		l->fd = open(l->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (l->fd < 0)
			return -1;
	}
	if (pwrite(l->fd, l->mem, n, (off_t)(l->on_file * sizeof(*l->mem))) != (ssize_t)n)
		return -1;
	l->on_file += l->in_mem;
	l->in_mem = 0;
	return 0;
}

int stoplog_add(struct stoplog *l, int64_t start, int64_t dur)
{
	if (l->in_mem == l->cap && spill(l) < 0)
		return -1;
	l->mem[l->in_mem++] = (struct stop){ start, dur };
	return 0;
}

size_t stoplog_count(const struct stoplog *l)
{
	return l->on_file + l->in_mem;
}

int stoplog_get(const struct stoplog *l, size_t i, struct stop *s)
{
	if (i >= l->on_file) {
		if (i - l->on_file >= l->in_mem)
			return -1;
		*s = l->mem[i - l->on_file];
		return 0;
	}
	return pread(l->fd, s, sizeof(*s), (off_t)(i * sizeof(*s))) ==
	       (ssize_t)sizeof(*s) ? 0 : -1;
}

size_t stoplog_find(const struct stoplog *l, int64_t t)
{
	size_t lo = 0, hi = stoplog_count(l);
	struct stop s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (stoplog_get(l, mid, &s) < 0)
			return stoplog_count(l);
		if (s.start + s.dur <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Its memory and descriptor, the file left (a kept spool keeps it). */
void stoplog_free(struct stoplog *l)
{
	if (l->fd >= 0)
		close(l->fd);
	free(l->mem);
	free(l->path);
	memset(l, 0, sizeof(*l));
	l->fd = -1;
}

void stoplog_close(struct stoplog *l)
{
	if (l->fd >= 0) {
		close(l->fd);
		unlink(l->path);
	}
	free(l->mem);
	free(l->path);
	memset(l, 0, sizeof(*l));
	l->fd = -1;
}
