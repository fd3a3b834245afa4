/*
 * The trace reader's own, shared by its parts: its state (struct reader)
 * and what each part gives the others. Below, readxml.c makes of each
 * element its part of the run and the callbacks (and is libxml2's SAX
 * handler); readpipe.c runs the parser (XML or the binary encoding) in a
 * second thread and replays its records into readxml.c; readbin.c reads
 * the binary encoding; read.c, on top, is the reading that
 * include/island-trace.h offers.
 */
#ifndef ISLAND_TRACE_READER_H
#define ISLAND_TRACE_READER_H

#include <stdbool.h>
#include <stdint.h>

#include <libxml/parser.h>

#include "island-trace.h"
#include "validate.h"

#define MAXDEPTH 32

enum el {
	EL_OTHER, EL_ROOT, EL_TRACE, EL_NODE, EL_RESTRICTIONS, EL_LIMIT, EL_STOPS,
	EL_STOP, EL_PROCESS, EL_THREAD, EL_COMPUTE, EL_IO, EL_REGION,
	EL_FILES, EL_FILE, EL_SOCKETS, EL_SOCKET, EL_WAIT, EL_SIGNAL, EL_MODULE,
	EL_PROFILE, EL_SAMPLE, EL_FREE, EL_COMMAND, EL_ARG
};

struct reader;
typedef void (*el_fn)(struct reader *rd);

#define NELDEFS 23		/* readxml.c's eldefs */
/* Attribute names the hot path looks for, as the parser's dictionary
 * pointers: comparing pointers instead of strings. */
enum { A_API, A_RES, A_START, A_END, A_AMOUNT, A_SIZE, A_REQ, A_ERRNO,
       A_PATH, A_PEER, A_PROTO, A_INPATH, A_THROTTLE, A_SITE, A_LEVEL,
       A_FD, A_OLDFD, A_OFFSET, A_RESULT, A_WHENCE, A_FLAGS, A_DUR, NA };

/* anames' dictionary pointers -> their index: one probe per attribute
 * rather than a compare with each name */
#define AMAP 64

struct reader {
	xmlParserCtxtPtr ctxt;
	const xmlChar *elptr[NELDEFS], *aptr[NA];
	struct {
		const xmlChar *name;
		int a;
	} amap[AMAP];
	const char *file;
	struct trace_run *run;
	const struct trace_ops *ops;
	void *ctx;
	int depth;
	enum el stack[MAXDEPTH];
	bool seen_root, prescan;
	const char *elname;
	struct trace_node *node;
	struct trace_proc *proc;
	struct trace_thread *thr;
	int64_t cursor;
	/* attributes of the current element, values NUL-terminated in buf */
	int nattr;
	const char *aname[TRACE_MAXATTR];
	const char *aval[TRACE_MAXATTR];
	char *buf;
	size_t bufcap;
	struct vtotals *tot;	/* of all the files read together */
	size_t first_node;	/* the run's first node of this file */
	struct vattr va[TRACE_MAXATTR];	/* the attributes validated, numbers parsed */
	/* first parse error */
	bool err;
	int errline, errcode;
	char errmsg[256];
	struct pipe *pipe;	/* parsing in a second thread: rd_line() is rline */
	struct zfail *zf;	/* its decoding's failure, when it has one */
	long rline;
	uint64_t rrec;		/* and the parser's records replayed so far */
	/* ops->element: the open elements, whether each has a child, the
	 * text since the last tag */
	int rdepth;
	bool rkids[MAXDEPTH];
	char *text;
	size_t tn, tcap;
	xmlParserInputBufferPtr bin;	/* the binary encoding's input: line()
					 * is rline */
	xmlDictPtr dict;	/* its names */
	/* ops->command: the node's <arg>s so far, the open one's text */
	char **args;
	int nargs, capargs;
	char *arg;
	size_t an, acap;
};

/* A decoding's failure in the parser's thread, as it happened: the
 * records made before it (+1; 0 none yet, atomic), its message set
 * before that. */
struct zfail {
	uint64_t at;
	char msg[160];
};

/* the reader of this thread's file, for trace_line() */
extern _Thread_local struct reader *rd_current;

/* readxml.c: the elements, from whichever parser */
long rd_line(struct reader *rd);
void rd_bad(struct reader *rd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
void rd_names_init(struct reader *rd, xmlDictPtr dict);
el_fn rd_el_open(struct reader *rd, const xmlChar *name);
void rd_el_start(struct reader *rd, const xmlChar *name, int nattr, el_fn fn);
void rd_el_close(struct reader *rd);
void rd_el_text(struct reader *rd);
void rd_on_text(struct reader *rd, const char *t, size_t n);
bool rd_is_text(const xmlChar *ch, int len);
bool rd_text_given(bool at_end, bool kids, const char *t, size_t n);
bool rd_raw(const struct reader *rd);
bool rd_args_wanted(const struct reader *rd);
void rd_args_free(struct reader *rd);
bool rd_truncated_at(const char *file, long line);
/* libxml2's SAX callbacks */
void rd_sax_start(void *ctx, const xmlChar *name, const xmlChar *prefix,
		  const xmlChar *uri, int nns, const xmlChar **ns, int nattr,
		  int ndefaulted, const xmlChar **attrs);
void rd_sax_end(void *ctx, const xmlChar *name, const xmlChar *prefix,
		const xmlChar *uri);
void rd_sax_text(void *ctx, const xmlChar *ch, int len);
void rd_sax_error(void *ctx, xmlErrorPtr e);
void rd_sax_doctype(void *ctx, const xmlChar *name, const xmlChar *ext,
		    const xmlChar *sys);
void rd_keep_error(const xmlError *e, int *line, int *code, char *msg, size_t len);
void rd_quiet(void *ctx, const char *msg, ...);

/* readpipe.c: the parser's thread */
bool rd_piped(const char *file);
bool rd_piped_bin(const char *file);
bool rd_parse_piped(struct reader *rd, const char **zerr);
bool rd_binary_piped(struct reader *rd, void (*after)(void));
long rd_in_read(xmlParserInputBufferPtr in, char *buf, size_t n);

/* readbin.c: the binary encoding */
bool rd_is_binary(struct reader *rd);
void rd_bin_abandon(void);

#endif
