/*
 * A stdio stream's descriptor, read from the FILE itself: fileno() sets
 * errno to EBADF on a stream that has none, which the program would see
 * after its call.
 */
#ifndef ISLAND_PRELOAD_STREAM_H
#define ISLAND_PRELOAD_STREAM_H

#include <stdio.h>

/* glibc's _IO_IS_FILEBUF: a stream on a descriptor (fileno's test; a
 * memory stream's _fileno may be 0) */
#define STREAM_FILEBUF 0x2000

static inline int stream_fd(FILE *f)
{
	return f && (f->_flags & STREAM_FILEBUF) && f->_fileno >= 0 ? f->_fileno : -1;
}

/* A stream with no descriptor (open_memstream, fmemopen, fopencookie)
 * moves bytes in memory: its calls are not I/O and are not recorded (a
 * fopencookie stream's functions' calls are, as the program's own) */
static inline int mem_stream(FILE *f)
{
	return f && stream_fd(f) < 0;
}

/* enter() for a call on stream F: none on a memory stream */
#define enter_stream(t, f) (!mem_stream(f) && enter(t))

#endif
