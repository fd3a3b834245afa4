/*
 * Which stream each process's descriptor is on, while the traces are
 * read: a hash of (node, pid, fd). A descriptor a process closed is
 * closed for that process only: a child that inherited the socket goes on
 * with it (a server that forks per connection).
 */
#include <stdlib.h>
#include <string.h>

#include "net.h"

static size_t fd_hash(int node, long pid, int fd)
{
	uint64_t h = ((uint64_t)(uint32_t)node << 40) ^ ((uint64_t)pid << 20) ^ (uint64_t)(uint32_t)fd;

	h *= 0x9e3779b97f4a7c15ull;
	return (size_t)(h ^ (h >> 31));
}

static struct netfd *slot(struct netfds *m, int node, long pid, int fd)
{
	size_t mask = m->size - 1, i = fd_hash(node, pid, fd) & mask;

	while (m->v[i].used && (m->v[i].node != node || m->v[i].pid != pid || m->v[i].fd != fd))
		i = (i + 1) & mask;
	return &m->v[i];
}

static void grow(struct netfds *m)
{
	struct netfd *old = m->v;
	size_t n = m->size;

	m->size = n ? 2 * n : 256;
	m->v = xcalloc(m->size, sizeof(*m->v));
	for (size_t i = 0; i < n; i++)
		if (old[i].used)
			*slot(m, old[i].node, old[i].pid, old[i].fd) = old[i];
	free(old);
}

struct netfd *netfds_get(struct netfds *m, int node, long pid, int fd)
{
	if (!m->size)
		return NULL;
	struct netfd *e = slot(m, node, pid, fd);
	return e->used ? e : NULL;
}

struct netfd *netfds_set(struct netfds *m, int node, long pid, int fd, int stream)
{
	if (2 * (m->used + 1) > m->size)
		grow(m);
	struct netfd *e = slot(m, node, pid, fd);
	if (!e->used) {
		*e = (struct netfd){ .node = node, .pid = pid, .fd = fd, .used = true };
		m->used++;
	}
	e->stream = stream;
	e->closed = false;
	return e;
}

void netfds_free(struct netfds *m)
{
	free(m->v);
	memset(m, 0, sizeof(*m));
}
