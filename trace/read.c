/* The one streaming trace reader (include/island-trace.h): libxml2's SAX2
 * parser (it reads .xml.gz transparently, .zst through common/zstdio.c),
 * or the binary encoding's decoder, one callback per record, nothing kept
 * per event. Every tool reads traces through it: the same trace is
 * refused by all with one message. Its parts: trace/reader.h. */
#include "reader.h"
#include "util.h"
#include "zstdio.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parserInternals.h>

/* The parser of the file being read, freed by trace_read_try() when bad
 * input leaves it mid-document. */
static _Thread_local xmlParserCtxtPtr active;
static _Thread_local struct reader *reading;	/* the file's, for trace_read_abandon */
static _Thread_local jmp_buf *try_back;

static bool is_gzip(const char *file)
{
	unsigned char m[2] = { 0, 0 };
	FILE *f = fopen(file, "rb");

	if (!f)
		return false;
	if (fread(m, 1, 2, f) != 2)
		m[0] = 0;
	fclose(f);
	return m[0] == 0x1f && m[1] == 0x8b;
}

static void parse_one(struct reader *rd)
{
	xmlSAXHandler sax;
	xmlParserCtxtPtr ctxt;
	const char *zerr;

	if (access(rd->file, R_OK))
		die_at(2, rd->file, 0, "cannot read: %s", strerror(errno));
	if (rd_is_binary(rd))
		return;
	memset(&sax, 0, sizeof(sax));
	sax.initialized = XML_SAX2_MAGIC;
	sax.startElementNs = rd_sax_start;
	sax.endElementNs = rd_sax_end;
	sax.serror = rd_sax_error;
	sax.internalSubset = rd_sax_doctype;
	if ((rd->ops->strict || rd->ops->element || rd->ops->command) && !rd->prescan)
		sax.characters = sax.cdataBlock = rd_sax_text;
	/* NOENT decodes character references in attributes; with no DOCTYPE
	 * allowed (sax_doctype) no entity can be declared to substitute */
	ctxt = xmlCreateURLParserCtxt(rd->file, XML_PARSE_NONET | XML_PARSE_NOENT);
	if (!ctxt)
		die_at(2, rd->file, 0, "cannot open as XML");
	xmlFree(ctxt->sax);
	ctxt->sax = &sax;
	ctxt->_private = rd;
	ctxt->userData = ctxt;
	rd->ctxt = ctxt;
	active = ctxt;
	rd_current = rd;
	rd_names_init(rd, ctxt->dict);
	zerr = zstd_input_error();	/* the file's start, read here */
	if (!rd_piped(rd->file) || !rd_parse_piped(rd, &zerr)) {
		xmlParseDocument(ctxt);
		if (!zerr)
			zerr = zstd_input_error();
	}
	rd_current = NULL;
	if (rd->err) {
		rd->ctxt = NULL;
		if (zerr)
			die_at(2, rd->file, rd->errline > 0 ? rd->errline : 1, "%s", zerr);
		if (!rd->seen_root && is_gzip(rd->file))
			die_at(2, rd->file, 0, "truncated or corrupt gzip data");
		if (!rd->seen_root)
			die_at(2, rd->file, rd->errline, "not an XML document: %s", rd->errmsg);
		if (rd_truncated_at(rd->file, rd->errline))
			die_at(2, rd->file, rd->errline,
			       "truncated trace (the document ends before </trace>)");
		die_at(2, rd->file, rd->errline, "not well-formed XML: %s", rd->errmsg);
	}
	if (!rd->seen_root)
		die_at(2, rd->file, 1, "not an XML document");
	/* the document whole, the stream it came in not (its checksum) */
	if (zerr)
		die_at(2, rd->file, ctxt->input ? ctxt->input->line : 1, "%s", zerr);
	ctxt->sax = NULL;
	xmlFreeParserCtxt(ctxt);
	rd->ctxt = NULL;
	active = NULL;
}

static void reader_init(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	xmlInitParser();
	xmlSetGenericErrorFunc(NULL, rd_quiet);
}

long trace_line(void)
{
	return rd_current ? rd_line(rd_current) : 0;
}

static void read_all(struct trace_run *run, char **files, int nfiles,
		     const struct trace_ops *ops, void *ctx, bool pre)
{
	static const struct trace_ops none;
	/* not on the stack: trace_read_abandon frees its buffers after a
	 * longjmp out of here */
	static _Thread_local struct reader rd;
	struct vtotals tot = { 0, 0 };

	zstd_input_register();	/* .zst traces read like any other, for any
				   program that links the library */

	reader_init();
	for (int i = 0; i < nfiles; i++) {
		memset(&rd, 0, sizeof(rd));
		rd.file = files[i];
		rd.run = run;
		rd.ops = ops ? ops : &none;
		rd.ctx = ctx;
		rd.prescan = pre;
		rd.tot = &tot;
		rd.first_node = run->nnodes;
		reading = &rd;
		parse_one(&rd);
		reading = NULL;
		free(rd.buf);
		free(rd.text);
		rd.buf = rd.text = NULL;
		rd_args_free(&rd);
		free(rd.args);
		free(rd.arg);
	}
}

void trace_read(struct trace_run *run, char **files, int nfiles,
		const struct trace_ops *ops, void *ctx)
{
	read_all(run, files, nfiles, ops, ctx, false);
}

static void try_die(int status)
{
	longjmp(*try_back, 1);
}

void trace_read_abandon(void)
{
	rd_current = NULL;
	rd_bin_abandon();
	if (active) {
		active->sax = NULL;	/* parse_one's, gone */
		xmlFreeParserCtxt(active);	/* closes the file */
		active = NULL;
	}
	if (reading) {
		free(reading->buf);
		free(reading->text);
		reading->buf = reading->text = NULL;
		reading = NULL;
	}
}

/* The message is printed by die_at() before its hook runs: the hook
 * returns here instead of exiting. What the reader allocated for the file
 * is freed; the run keeps what was read. */
int trace_read_try(struct trace_run *run, char **files, int nfiles,
		   const struct trace_ops *ops, void *ctx)
{
	void (*old)(int) = die_hook_here;
	jmp_buf back;

	try_back = &back;
	if (setjmp(back)) {
		trace_read_abandon();
		die_hook_here = old;
		try_back = NULL;
		return -1;
	}
	die_hook_here = try_die;
	trace_read(run, files, nfiles, ops, ctx);
	die_hook_here = old;
	try_back = NULL;
	return 0;
}

/* A first pass that only learns the nodes: their epochs (the run is
 * aligned on the earliest) and their spans. */
void trace_prescan(struct trace_run *run, char **files, int nfiles)
{
	struct trace_run tmp;

	memset(&tmp, 0, sizeof(tmp));
	read_all(&tmp, files, nfiles, NULL, NULL, true);
	for (size_t i = 0; i < tmp.nnodes; i++)
		if (i == 0 || tmp.nodes[i]->epoch < run->epoch0)
			run->epoch0 = tmp.nodes[i]->epoch;
	run->have_epoch0 = tmp.nnodes > 0;
	run->t0 = run->t1 = 0;
	for (size_t i = 0; i < tmp.nnodes; i++) {
		struct trace_node *n = tmp.nodes[i];
		int64_t off = n->epoch - run->epoch0;

		if (i == 0 || n->start + off < run->t0)
			run->t0 = n->start + off;
		if (i == 0 || n->end + off > run->t1)
			run->t1 = n->end + off;
	}
	trace_run_free(&tmp);
	run->prescanned = true;
}

void trace_run_free(struct trace_run *run)
{
	for (size_t i = 0; i < run->nnodes; i++) {
		free(run->nodes[i]->profile);
		free(run->nodes[i]->name);
		free(run->nodes[i]->host);
		free(run->nodes[i]->file);
		free(run->nodes[i]->pcap);
		free(run->nodes[i]->unseen);
		free(run->nodes[i]->stops);
		free(run->nodes[i]);
	}
	for (size_t i = 0; i < run->nprocs; i++) {
		for (size_t k = 0; k < run->procs[i]->nmods; k++) {
			free(run->procs[i]->mods[k].path);
			free(run->procs[i]->mods[k].build_id);
		}
		free(run->procs[i]->mods);
		free(run->procs[i]->exe);
		free(run->procs[i]->first_exe);
		free(run->procs[i]->status);
		free(run->procs[i]->cwd);
		free(run->procs[i]->reason);
		free(run->procs[i]->unprofiled);
		free(run->procs[i]);
	}
	for (size_t i = 0; i < run->nthreads; i++) {
		free(run->threads[i]->name);
		free(run->threads[i]->exit);
		free(run->threads[i]);
	}
	free(run->nodes);
	free(run->procs);
	free(run->threads);
	memset(run, 0, sizeof(*run));
}

