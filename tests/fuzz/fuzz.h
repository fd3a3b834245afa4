/* What every harness shares: the input as a file (the parsers read files),
 * and a die() that returns to the harness instead of exiting, so that a
 * refused input is the expected outcome, not the end of the run. */
#ifndef ISLAND_FUZZ_H
#define ISLAND_FUZZ_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#include <fcntl.h>
#include <ftw.h>

static jmp_buf fuzz_back;
static char fuzz_tmp[64];

static inline int fuzz_rm(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	return remove(p);
}

static inline void fuzz_cleanup(void)
{
	nftw(fuzz_tmp, fuzz_rm, 8, FTW_DEPTH | FTW_PHYS);
}

static inline void fuzz_die(int status)
{
	longjmp(fuzz_back, status ? status : 1);
}

/* A parser left by longjmp keeps its files open (in the tools, die()
 * exits): the descriptors an input opened are closed after it. */
#define FUZZ_FDS 1024
static unsigned char fuzz_open_before[FUZZ_FDS];

static inline void fuzz_fds_mark(void)
{
	for (int fd = 0; fd < FUZZ_FDS; fd++)
		fuzz_open_before[fd] = fcntl(fd, F_GETFD) >= 0;
}

static inline void fuzz_fds_close(void)
{
	for (int fd = 3; fd < FUZZ_FDS; fd++)
		if (!fuzz_open_before[fd] && fcntl(fd, F_GETFD) >= 0)
			close(fd);
}

/* A private directory for the harness's files, made once. */
static inline const char *fuzz_dir(void)
{
	if (!fuzz_tmp[0]) {
		snprintf(fuzz_tmp, sizeof(fuzz_tmp), "/tmp/island-fuzz.XXXXXX");
		if (!mkdtemp(fuzz_tmp))
			abort();
		atexit(fuzz_cleanup);
		die_hook = fuzz_die;	/* (-close_fd_mask=2 hides its messages) */
	}
	return fuzz_tmp;
}

/* Write the input to DIR/name; its path (static). */
static inline const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fuzz_dir(), name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	return path;
}

#endif
