/* replayrep: island-replay's fidelity report (--report FILE.xml,
 * docs/island-replay.md) read back for the HTML page: per node its
 * original and replayed durations, and the run's. Only what the page
 * shows is kept; an element it does not know is skipped (a later
 * replay may add some). A DOCTYPE is refused (entities could name other
 * files or expand without bound), the network never used. */
#include "analyze.h"

#include <errno.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int bad(char *err, size_t n, const char *name, long line, const char *what)
{
	snprintf(err, n, "%s:%ld: %s", name, line, what);
	return -1;
}

/* A duration in seconds: finite, not negative, under a year. */
static int secs_attr(xmlNode *e, const char *attr, double *v)
{
	xmlChar *s = xmlGetProp(e, BAD_CAST attr);
	char *end;
	int r = -1;

	if (!s)
		return -1;
	errno = 0;
	*v = strtod((const char *)s, &end);
	if (end != (char *)s && !*end && !errno && isfinite(*v) && *v >= 0 && *v < 3.2e7)
		r = 0;
	xmlFree(s);
	return r;
}

static int add_node(struct replayrep *r, xmlNode *e, const char *name, char *err, size_t n)
{
	struct rrnode nd = { 0 };
	xmlChar *nm = xmlGetProp(e, BAD_CAST "name");

	if (!nm || !*nm) {
		xmlFree(nm);
		return bad(err, n, name, (long)xmlGetLineNo(e), "<node> without a name");
	}
	nd.name = xstrdup((const char *)nm);
	xmlFree(nm);
	if (secs_attr(e, "original", &nd.original) || secs_attr(e, "replayed", &nd.replayed)) {
		free(nd.name);
		return bad(err, n, name, (long)xmlGetLineNo(e),
			   "<node> original or replayed is not a number of seconds");
	}
	XGROW(r->nodes, r->cap, r->n + 1);
	r->nodes[r->n++] = nd;
	return 0;
}

int replayrep_parse(const char *buf, size_t len, const char *name, struct replayrep *r,
		    char *err, size_t errlen)
{
	xmlDoc *doc;
	xmlNode *root;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	if (len > INT32_MAX)
		return bad(err, errlen, name, 0, "too large");
	doc = xmlReadMemory(buf, (int)len, name, NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc) {
		const xmlError *e = xmlGetLastError();

		return bad(err, errlen, name, e ? e->line : 0, "not well-formed XML");
	}
	root = xmlDocGetRootElement(doc);
	if (doc->intSubset || doc->extSubset)
		rc = bad(err, errlen, name, 1, "a DOCTYPE (a fidelity report has none)");
	else if (!root || strcmp((const char *)root->name, "replay"))
		rc = bad(err, errlen, name, root ? (long)xmlGetLineNo(root) : 1,
			 "not a fidelity report (<replay> expected)");
	for (xmlNode *e = root && !rc ? root->children : NULL; e && !rc; e = e->next) {
		if (e->type != XML_ELEMENT_NODE)
			continue;
		if (!strcmp((const char *)e->name, "node"))
			rc = add_node(r, e, name, err, errlen);
		else if (!strcmp((const char *)e->name, "run")) {
			if (secs_attr(e, "original", &r->original) ||
			    secs_attr(e, "replayed", &r->replayed))
				rc = bad(err, errlen, name, (long)xmlGetLineNo(e),
					 "<run> original or replayed is not a number of seconds");
			r->has_run = !rc;
		}
	}
	xmlFreeDoc(doc);
	if (rc)
		replayrep_free(r);
	return rc;
}

void replayrep_read(const char *path, struct replayrep *r)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL, err[512];
	size_t len = 0, cap = 0, got;

	if (!f)
		die(2, "%s: cannot read:", path);
	do {
		XGROW(buf, cap, len + 65536);
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (len > (size_t)64 << 20)
			die(2, "%s: over 64 MiB: not a fidelity report", path);
	} while (got);
	if (ferror(f))
		die(2, "%s: cannot read:", path);
	fclose(f);
	if (replayrep_parse(buf, len, path, r, err, sizeof(err)))
		die(2, "%s", err);
	free(buf);
}

void replayrep_free(struct replayrep *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->nodes[i].name);
	free(r->nodes);
	memset(r, 0, sizeof(*r));
}
