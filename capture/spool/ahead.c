/*
 * Pages ahead of the threads (streaming). A thread's records go into
 * pages the kernel must first zero and map; the interposer asks for them
 * as the thread reaches them (MADV_POPULATE_WRITE, chunk_more), a tenth
 * of a small call's time. While island-capture reads a thread's records
 * it asks for the pages the thread reaches next, in a mapping of its
 * own, on a CPU the application leaves it: the thread's own ask then
 * finds them in the file and only maps them (1M writes: the app's run
 * 131 ms, 135 without). Ahead of what the thread wrote in its chunk,
 * three times as much again (the interposer asks for twice what it has:
 * this is ahead of its next ask), and the start of the arena's free
 * space when a thread nears its chunk's end. Only what the thread would be given as
 * it goes on, within the arena's budget; asking never changes what a
 * page holds, so a thread writing there meanwhile loses nothing.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"

#define AHEAD_MIN   (16u << 10)      /* less is not worth a system call */
#define AHEAD_NEXT  (64u << 10)      /* of the free space, for a next chunk */
#define PAGE        4096u

/* The arena mapped for writing: pages ahead from now on. 0, or -1 (then
 * the threads ask for all their pages, as without it). */
int arena_ahead_open(struct arena_scan *s)
{
	struct stat st;
	int fd = open(s->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_size < ARENA_DATA) {
		close(fd);
		return -1;
	}
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_NORESERVE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	s->map = m;
	s->map_len = (uint64_t)st.st_size;
	return 0;
}

void arena_ahead_close(struct arena_scan *s)
{
	if (s->map)
		munmap(s->map, s->map_len);
	s->map = NULL;
}

/* [from, to) of the arena given pages, within the budget: 1, 0 when
 * not (too little, or past the budget), -1 when it failed */
static int give(struct arena_scan *s, const struct arena_hdr *a, uint64_t from, uint64_t to)
{
	if (to > s->map_len)
		to = s->map_len;
	if (to < from + AHEAD_MIN)
		return 0;
	if (a->budget && a->given + (to - from) > a->budget)
		return 0;
	if (madvise(s->map + from, to - from, MADV_POPULATE_WRITE) < 0) {
		arena_ahead_close(s);	/* the space is short: the threads say */
		return -1;
	}
	/* the pages are the file's now; mapped here they would make the
	 * whole spool resident in the capture (4.2 GB after 10 minutes of
	 * nginx under wrk) */
	madvise(s->map + from, to - from, MADV_DONTNEED);
	return 1;
}

/* A thread's chunk at off (size bytes), pos bytes of records read there;
 * *mark: how far its pages were asked for, *next_for: the chunk whose
 * nearing end asked for the free space's start */
void arena_ahead(struct arena_scan *s, const struct arena_hdr *a, uint64_t off,
		 uint64_t size, uint64_t pos, uint64_t *mark, uint64_t *next_for)
{
	uint64_t at = off + SPOOL_HDR_SIZE + pos, end = off + size;
	uint64_t from = at & ~(uint64_t)(PAGE - 1), to = off + SPOOL_HDR_SIZE + 4 * pos;

	if (!s->map || !pos)
		return;
	if (*mark > from && *mark <= end)
		from = *mark;
	to = (to + PAGE - 1) & ~(uint64_t)(PAGE - 1);
	if (to > end)
		to = end;
	switch (give(s, a, from, to)) {
	case -1:
		return;
	case 1:
		*mark = to;
	}
	if (*next_for != off && at > end - size / 4) {
		*next_for = off;
		give(s, a, ARENA_DATA + a->next, ARENA_DATA + a->next + AHEAD_NEXT);
	}
}
