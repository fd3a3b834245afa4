/* The binary encoding's reader (trace/isbfmt.h, docs/trace-binary.md):
 * tokens back into elements, attributes and text, for trace/readbin.c. */
#ifndef ISLAND_TRACE_ISB_H
#define ISLAND_TRACE_ISB_H

#include <stdbool.h>
#include <stddef.h>

struct isb_ops {
	/* input: up to N bytes into BUF; 0 at the end, -1 on an error */
	long (*read)(void *ctx, char *buf, size_t n);
	/* one pointer per name, for the decoder's life */
	const char *(*intern)(void *ctx, const char *name, size_t n);
	/* names and values are valid during the call; EMPTY: no end() */
	void (*start)(void *ctx, const char *name, int nattr,
		      const char *const *names, const char *const *values, bool empty);
	void (*end)(void *ctx);
	void (*text)(void *ctx, const char *p, size_t n);
	/* optional: true when the decoding is to stop (the reader gave up) */
	bool (*halted)(void *ctx);
};

/* Whether P[0..N) starts a binary trace. */
bool isb_magic(const char *p, size_t n);

/* Decode the stream (its magic included) through OPS; 0 when whole,
 * else -1 with the problem in MSG and *LINE set (a read error: 1 as
 * well, MSG empty). *LINE follows the line numbers of the trace's XML
 * export (island-analyze export --format xml) during the callbacks. */
int isb_decode(const struct isb_ops *ops, void *ctx, long *line, char *msg, size_t len);
/* Free what a decode left when a callback never returned (a longjmp). */
void isb_decode_abandon(void);

#endif
