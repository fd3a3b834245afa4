#include <stdlib.h>
#include <string.h>
#include <libxml/xmlreader.h>

#include "traceread.h"
#include "util.h"
#include "zstdio.h"

static char *attr(xmlTextReaderPtr r, const char *name)
{
	return (char *)xmlTextReaderGetAttribute(r, (const xmlChar *)name);
}

static int sec_attr(xmlTextReaderPtr r, const char *name, int64_t *ns)
{
	char *v = attr(r, name);
	int rc = v ? parse_sec(v, ns) : -1;

	xmlFree(v);
	return rc;
}

int trace_scan(const char *file, struct tr_node **nodes, int *nnodes)
{
	xmlTextReaderPtr r = xmlReaderForFile(file, NULL, XML_PARSE_NONET | XML_PARSE_HUGE);
	struct tr_node *cur = NULL;
	int rc, seen_trace = 0;
	size_t cap = 0;
	int64_t last_end = 0;
	int32_t cur_tid = 0;
	int cur_thr = -1;

	*nodes = NULL;
	*nnodes = 0;
	if (!r) {
		warn_at(file, 0, "cannot open the trace");
		return -1;
	}
	while ((rc = xmlTextReaderRead(r)) == 1) {
		if (xmlTextReaderNodeType(r) != XML_READER_TYPE_ELEMENT)
			continue;
		const char *el = (const char *)xmlTextReaderConstLocalName(r);
		long line = xmlTextReaderGetParserLineNumber(r);
		if (!seen_trace) {
			char *v = attr(r, "version");
			int ok = !strcmp(el, "trace") && v && !strcmp(v, "1");
			xmlFree(v);
			if (!ok) {
				warn_at(file, line, "not an Island trace of version 1");
				goto fail;
			}
			seen_trace = 1;
		} else if (!strcmp(el, "node")) {
			XGROW(*nodes, cap, (size_t)*nnodes + 1);
			cur = &(*nodes)[(*nnodes)++];
			memset(cur, 0, sizeof(*cur));
			char *name = attr(r, "name");
			cur->name = xstrdup(name ? name : "");
			xmlFree(name);
			sec_attr(r, "end", &cur->end);
		} else if (cur && !strcmp(el, "process")) {
			char *pid = attr(r, "pid"), *ppid = attr(r, "ppid");
			char *exe = attr(r, "exe"), *st = attr(r, "status");
			XGROW(cur->procs, cur->pcap, cur->nprocs + 1);
			struct tr_proc *pr = &cur->procs[cur->nprocs++];
			pr->pid = pid ? atoi(pid) : 0;
			pr->ppid = ppid ? atoi(ppid) : 0;
			pr->exe = xstrdup(exe ? exe : "");
			pr->ok = !st || !strcmp(st, "exit:0");
			pr->start = pr->end = 0;
			sec_attr(r, "start", &pr->start);
			sec_attr(r, "end", &pr->end);
			xmlFree(pid);
			xmlFree(ppid);
			xmlFree(exe);
			xmlFree(st);
		} else if (cur && !strcmp(el, "thread")) {
			char *tid = attr(r, "tid");
			if (sec_attr(r, "start", &last_end) < 0) {
				xmlFree(tid);
				warn_at(file, line, "thread without a valid start");
				goto fail;
			}
			cur_tid = tid ? atoi(tid) : 0;
			cur_thr++;
			xmlFree(tid);
		} else if (cur && !strcmp(el, "wait")) {
			char *tn = attr(r, "node"), *sq = attr(r, "seq");
			if (!tn || !sq) {
				warn_at(file, line, "wait without node and seq");
				xmlFree(tn);
				xmlFree(sq);
				goto fail;
			}
			XGROW(cur->waits, cur->wcap, cur->nwaits + 1);
			cur->waits[cur->nwaits++] = (struct tr_wait){ 0, xstrdup(tn),
							     strtoull(sq, NULL, 10) };
			cur->npending++;
			xmlFree(tn);
			xmlFree(sq);
		} else if (cur && !strcmp(el, "io")) {
			int64_t s, e;
			if (sec_attr(r, "start", &s) < 0 || sec_attr(r, "end", &e) < 0 || e < s) {
				warn_at(file, line, "io with bad start or end");
				goto fail;
			}
			char *seq = attr(r, "seq"), *err = attr(r, "errno");
			if (seq) {
				/* the watchdog counts successes only (a failed
				 * call is a try, not progress) */
				if (!err) {
					if (e - last_end > cur->max_gap)
						cur->max_gap = e - last_end;
					last_end = e;
				}
				char *api = attr(r, "api"), *res = attr(r, "res");
				char *fd = attr(r, "fd"), *result = attr(r, "result");
				char *amount = attr(r, "amount");
				char *p = attr(r, "path");
				if (!p)
					p = attr(r, "peer");
				XGROW(cur->io, cur->cap, cur->nio + 1);
				cur->io[cur->nio].seq = strtoull(seq, NULL, 10);
				for (; cur->npending; cur->npending--)
					cur->waits[cur->nwaits - cur->npending].xseq =
						cur->io[cur->nio].seq;
				cur->io[cur->nio].what = xasprintf("%s %s %s", api ? api : "?",
								   res ? res : "?", p ? p : "-");
				cur->io[cur->nio].poll = POLL_NONE;
				cur->io[cur->nio].proc = (int)cur->nprocs - 1;
				cur->io[cur->nio].tid = cur_tid;
				cur->io[cur->nio].thr = cur_thr;
				cur->io[cur->nio].end = e;
				cur->io[cur->nio].amount = amount ? strtoll(amount, NULL, 10) : 0;
				xmlFree(amount);
				cur->io[cur->nio].fd = fd ? atoi(fd) : -1;
				/* a non-blocking connect under way has not failed */
				cur->io[cur->nio].failed = err && strcmp(err, "EINPROGRESS");
				cur->io[cur->nio].result = result ? strtoll(result, NULL, 10) : 0;
				cur->nio++;
				xmlFree(fd);
				xmlFree(result);
				xmlFree(api);
				xmlFree(res);
				xmlFree(p);
			}
			xmlFree(seq);
			xmlFree(err);
		}
	}
	if (rc < 0 || !seen_trace) {
		const char *zerr = zstd_input_error();

		warn_at(file, xmlTextReaderGetParserLineNumber(r), "%s",
			zerr ? zerr : rc < 0 ? "not well-formed XML (or truncated)" : "empty trace");
		goto fail;
	}
	xmlFreeTextReader(r);
	for (int i = 0; i < *nnodes; i++)
		polling_mark(&(*nodes)[i]);
	return 0;
fail:
	xmlFreeTextReader(r);
	trace_scan_free(*nodes, *nnodes);
	*nodes = NULL;
	*nnodes = 0;
	return -1;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct tr_io *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct tr_node *trace_node(struct tr_node *nodes, int nnodes, const char *name)
{
	for (int i = 0; i < nnodes; i++)
		if (!strcmp(nodes[i].name, name)) {
			qsort(nodes[i].io, nodes[i].nio, sizeof(*nodes[i].io), cmp_seq);
			return &nodes[i];
		}
	return NULL;
}

void trace_scan_free(struct tr_node *nodes, int nnodes)
{
	for (int i = 0; i < nnodes; i++) {
		for (size_t k = 0; k < nodes[i].nio; k++)
			free(nodes[i].io[k].what);
		free(nodes[i].io);
		for (size_t k = 0; k < nodes[i].nwaits; k++)
			free(nodes[i].waits[k].tnode);
		free(nodes[i].waits);
		for (size_t k = 0; k < nodes[i].nprocs; k++)
			free(nodes[i].procs[k].exe);
		free(nodes[i].procs);
		free(nodes[i].name);
	}
	free(nodes);
}
