/* A file the tools write whole or not at all (traces): written to
 * PATH.tmpPID, created exclusively, renamed to PATH once every byte is
 * down. Every write, the gzip or zstd stream's end and the close are checked; the
 * first failure's errno is what the caller reports. */
#ifndef ISLAND_OUTFILE_H
#define ISLAND_OUTFILE_H

#include <libxml/xmlwriter.h>
#include <stdbool.h>
#include <stdint.h>

#include "zstdio.h"

struct outfile;

/* Written plain, gzip or zstd (zstdio.h: by the name's suffix, usually);
 * NULL with errno when the temporary file cannot be created. */
struct outfile *outfile_open(const char *path, enum compress comp);
/* A part of a trace (the capture's streaming): a thread's elements,
 * written as they come by the caller's thread (outfile_write, and
 * outfile_element when ISB), its compressed frames whole once closed
 * (outfile_close_part); to go into a trace by outfile_splice. A file
 * with no name in DIR (O_TMPFILE): a capture killed leaves nothing
 * beside its spool. Plain, gzip (deflate streams of the trace's one
 * member, the part's sum after them) or zstd; NULL with errno. */
struct outfile *outfile_open_part(const char *dir, enum compress comp, bool isb);
/* The part finished: its descriptor to splice from (the caller's to
 * close), or -1 with errno (FAILED: the caller's own). Frees f. */
int outfile_close_part(struct outfile *f, int failed);
/* A plain XML part whose bytes start at ROOM in its file: a trace's
 * first thread's, that file then the trace's own (outfile_open_over),
 * what comes before the part written into the room at the end. */
struct outfile *outfile_open_head(const char *dir, size_t room);
/* The trace (plain XML) written into FD's file, a head part's: what
 * comes before that part held until it is spliced, then written in its
 * room, the rest of the room a line of spaces, the part left where it
 * is (no copy); when the room is too small, or another part comes
 * first, the trace is a file of its own (PATH.tmpPID) as outfile_open's
 * and the head part is spliced as any other. */
struct outfile *outfile_open_over(const char *path, int fd, size_t room);
/* The part in FD (its bytes from AT on) appended as it is (after the
 * frame so far, which ends there; in the binary encoding between two
 * RESETs), by the kernel's copy, in a thread of its own. 0, or -1 with
 * errno. */
int outfile_splice(struct outfile *f, int fd, size_t at);
/* The libxml2 writer that writes into it (owned by the outfile). */
xmlTextWriterPtr outfile_writer(struct outfile *f);
/* Raw bytes; -1 with errno (later writes then fail too). */
int outfile_write(struct outfile *f, const void *buf, size_t n);
/* -o NAME.isb[.gz|.zst]: the binary encoding, which also takes whole
 * elements between the XML written (outfile_element). */
int outfile_isb(struct outfile *f);
/* An empty element given whole (isb.h's isbenc_element): NAME and the
 * attributes' names must stay valid until outfile_close (literals); 0,
 * or -1 with errno. */
struct isb_attr;
int outfile_element(struct outfile *f, const char *name, int nattr,
		    const struct isb_attr *a, bool empty);
/* NAME, given whole before, once more (isb.h's isbenc_again): its
 * attributes and values the last NAME's but the numbers at POS[0..N),
 * M[0..N) with D decimals; 0, or -1 with errno. */
int outfile_again(struct outfile *f, const char *name, int n, const int *pos,
		  const int64_t *m, int d);
/* Finish and rename into place, or remove the temporary on any failure
 * (failed != 0: the caller's own); 0, or -1 with errno. Frees f. */
int outfile_close(struct outfile *f, int failed);

#endif
