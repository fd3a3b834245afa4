/* The names a cluster file may use, from its schema (docs/cluster.xsd,
 * built into island-capture): every element's attributes and children.
 * The schema is the one source of truth; what it does not name is a
 * typo, refused with its line and the nearest name ("rol": did you mean
 * role?), where it was silently ignored (a server taken for a client). The
 * values are the loader's to check (cluster.c), with its own words. */
#include "cluster_names.h"

#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "util.h"

static const unsigned char xsd[] = {
#include "cluster_xsd.h"
};

#define XS "http://www.w3.org/2001/XMLSchema"

static int xs(xmlNodePtr e, const char *name)
{
	return e->type == XML_ELEMENT_NODE && e->ns && !strcmp((const char *)e->ns->href, XS) &&
	       !strcmp((const char *)e->name, name);
}

static char *attr(xmlNodePtr e, const char *name)
{
	return (char *)xmlGetProp(e, (const xmlChar *)name);
}

static xmlNodePtr find_named(xmlNodePtr e, const char *kind, const char *name)
{
	for (xmlNodePtr k = e; k; k = k->next) {
		if (k->type != XML_ELEMENT_NODE)
			continue;
		if (xs(k, kind)) {
			char *n = attr(k, "name");
			int hit = n && !strcmp(n, name);

			xmlFree(n);
			if (hit)
				return k;
		}
		xmlNodePtr f = find_named(k->children, kind, name);

		if (f)
			return f;
	}
	return NULL;
}

struct names {
	const char *v[64];
	size_t n;
};

static void add(struct names *s, char *name)
{
	if (name && s->n < sizeof(s->v) / sizeof(s->v[0]))
		s->v[s->n++] = name;	/* a copy: names_free() */
	else
		xmlFree(name);
}

static void names_free(struct names *s)
{
	for (size_t i = 0; i < s->n; i++)
		xmlFree((char *)s->v[i]);
}

/* What el declares, not crossing into the elements it declares:
 * attributes (kind "attribute") or child elements ("element"), through
 * group references. */
static void collect(xmlNodePtr root, xmlNodePtr el, const char *kind, struct names *out)
{
	for (xmlNodePtr k = el->children; k; k = k->next) {
		if (k->type != XML_ELEMENT_NODE)
			continue;
		if (xs(k, kind)) {
			add(out, attr(k, "name"));
			continue;	/* a child element's own content is its own */
		}
		if (xs(k, "group") && !strcmp(kind, "element")) {
			char *ref = attr(k, "ref");
			xmlNodePtr g = ref ? find_named(root, "group", ref) : NULL;

			xmlFree(ref);
			if (g)
				collect(root, g, kind, out);
			continue;
		}
		if (!xs(k, "element"))
			collect(root, k, kind, out);
	}
}

static xmlDocPtr schema;

static xmlNodePtr schema_root(void)
{
	if (!schema)
		schema = xmlReadMemory((const char *)xsd, (int)sizeof(xsd), "cluster.xsd", NULL,
				       XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!schema)
		die(70, "the built-in cluster.xsd does not parse");
	return xmlDocGetRootElement(schema);
}

static const char *list(const struct names *s, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = 0;
	for (size_t i = 0; i < s->n && k + 1 < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? ", " : "", s->v[i]);
	return buf;
}

/* e and its descendants against the schema's declaration decl. */
static void check(const char *file, xmlNodePtr root, xmlNodePtr decl, xmlNodePtr e)
{
	struct names attrs = { .n = 0 }, kids = { .n = 0 };
	char buf[512];

	if (!decl)
		return;		/* not declared: nothing known to hold it to */
	collect(root, decl, "attribute", &attrs);
	collect(root, decl, "element", &kids);
	for (xmlAttrPtr a = e->properties; a; a = a->next) {
		size_t i;

		for (i = 0; i < attrs.n && strcmp(attrs.v[i], (const char *)a->name); i++)
			;
		if (i < attrs.n)
			continue;
		const char *s = suggest((const char *)a->name, attrs.v, attrs.n);

		if (s)
			die_at(2, file, xmlGetLineNo(e), "<%s %s=...>: unknown attribute "
			       "(did you mean %s?)", e->name, a->name, s);
		die_at(2, file, xmlGetLineNo(e), "<%s %s=...>: unknown attribute (%s)",
		       e->name, a->name, attrs.n ? list(&attrs, buf, sizeof(buf)) : "it takes none");
	}
	for (xmlNodePtr k = e->children; k; k = k->next) {
		size_t i;

		if (k->type != XML_ELEMENT_NODE)
			continue;
		for (i = 0; i < kids.n && strcmp(kids.v[i], (const char *)k->name); i++)
			;
		if (i == kids.n) {
			const char *s = suggest((const char *)k->name, kids.v, kids.n);

			if (s)
				die_at(2, file, xmlGetLineNo(k), "unexpected <%s> in <%s> "
				       "(did you mean <%s>?)", k->name, e->name, s);
			die_at(2, file, xmlGetLineNo(k), "unexpected <%s> in <%s> (%s)",
			       k->name, e->name, kids.n ? list(&kids, buf, sizeof(buf)) : "it holds none");
		}
		xmlNodePtr kd = find_named(decl->children, "element", (const char *)k->name);

		check(file, root, kd ? kd : find_named(root, "element", (const char *)k->name), k);
	}
	names_free(&attrs);
	names_free(&kids);
}

void cluster_check_names(const char *file, xmlNodePtr top)
{
	xmlNodePtr root = schema_root();
	xmlNodePtr decl = find_named(root->children, "element", (const char *)top->name);

	if (decl)
		check(file, root, decl, top);
}
