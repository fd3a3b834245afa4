/* Compressed traces: the output chosen by the file name's suffix (.gz,
 * .zst: written by trace/outfile.c), and zstd and gzip input read
 * transparently by every libxml2 reader once zstd_input_register() ran. */
#ifndef ISLAND_ZSTDIO_H
#define ISLAND_ZSTDIO_H

#include <libxml/xmlwriter.h>

enum compress { TC_NONE, TC_GZIP, TC_ZSTD };

/* The compression a trace named PATH is written with (its suffix). */
enum compress compress_of(const char *path);
/* The same, for a tool whose -z asks for gzip when the suffix says none. */
enum compress compress_for(const char *path, int gzip_flag);
/* The suffix written for it: "", ".gz" or ".zst". */
const char *compress_suffix(enum compress c);

/* Writing goes through trace/outfile.c (outfile_open), for every
 * compression. */

/* libxml2 reads zstd files (magic 28 b5 2f fd) and gzip files (1f 8b,
 * every member: its own reader stops after the first) through us from now
 * on: every tool calls it first. Idempotent. */
void zstd_input_register(void);
/* What went wrong decoding the compressed input libxml2 opened last on
 * this thread ("truncated or corrupt zstd data: ...", or gzip), or NULL;
 * clears it. */
const char *zstd_input_error(void);
/* FN(ARG, message) is called on this thread when the decoding fails, the
 * moment libxml2 is told (a reader in another thread learns which of the
 * parser's elements came after the failure); NULL stops it. */
void zstd_input_watch(void (*fn)(void *arg, const char *msg), void *arg);
/* "gzip", "zstd" or NULL: FILE's first bytes. */
const char *compressed_kind(const char *file);

#endif
