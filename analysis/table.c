/* Aligned text tables and their CSV form: every report builds a table and
 * prints it one way or the other, so --csv works everywhere. */
#include "analyze.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The options of the command line (main.c fills them). */
struct opts opt = { .depth = -1, .width = 1600 };

struct table {
	int ncols;
	char **cells;		/* row-major, headers first */
	size_t ncells, cap;
	char *align;
};

struct table *table_new(int ncols, const char *const *headers)
{
	struct table *t = xcalloc(1, sizeof(*t));

	t->ncols = ncols;
	t->align = xmalloc((size_t)ncols + 1);
	for (int i = 0; i < ncols; i++)
		t->align[i] = i ? 'r' : 'l';
	t->align[ncols] = 0;
	for (int i = 0; i < ncols; i++)
		table_add(t, headers[i]);
	return t;
}

void table_align(struct table *t, const char *align)
{
	for (int i = 0; i < t->ncols && align[i]; i++)
		t->align[i] = align[i];
}

void table_add(struct table *t, const char *cell)
{
	XGROW(t->cells, t->cap, t->ncells + 1);
	t->cells[t->ncells++] = xstrdup(cell ? cell : "");
}

void table_addf(struct table *t, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	XGROW(t->cells, t->cap, t->ncells + 1);
	t->cells[t->ncells++] = s;
}

/* RFC 4180: quote fields holding a comma, a quote or a line break. */
void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	putc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', f);
		putc(*s, f);
	}
	putc('"', f);
}

void table_print(struct table *t, FILE *f, bool csv)
{
	size_t *w = xcalloc((size_t)t->ncols, sizeof(*w));
	size_t i;

	if (csv) {
		for (i = 0; i < t->ncells; i++) {
			csv_field(f, t->cells[i]);
			putc((int)(i % (size_t)t->ncols) == t->ncols - 1 ? '\n' : ',', f);
		}
		free(w);
		return;
	}
	for (i = 0; i < t->ncells; i++) {
		size_t len = strlen(t->cells[i]);
		size_t c = i % (size_t)t->ncols;

		if (len > w[c])
			w[c] = len;
	}
	/* Build each line, then drop trailing blanks (empty last cells). */
	size_t cap = 256, len = 0;
	char *line = xmalloc(cap);

	for (i = 0; i < t->ncells; i++) {
		int c = (int)(i % (size_t)t->ncols);
		size_t cl = strlen(t->cells[i]), pad = w[c] > cl ? w[c] - cl : 0;

		XGROW(line, cap, len + w[c] + cl + 3);
		if (t->align[c] == 'r') {
			memset(line + len, ' ', pad);
			len += pad;
		}
		memcpy(line + len, t->cells[i], cl);
		len += cl;
		if (t->align[c] != 'r') {
			memset(line + len, ' ', pad);
			len += pad;
		}
		if (c < t->ncols - 1) {
			line[len++] = ' ';
			line[len++] = ' ';
			continue;
		}
		while (len && line[len - 1] == ' ')
			len--;
		line[len++] = '\n';
		fwrite(line, 1, len, f);
		len = 0;
	}
	free(line);
	free(w);
}

void table_free(struct table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->align);
	free(t);
}

/* Seconds rounded to microseconds: reports read better than with nine
 * decimals, and the rounding is done on integers so it is exact. */
char *fmt_secs(char *buf, size_t n, int64_t ns)
{
	bool neg = ns < 0;
	uint64_t u = neg ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
	uint64_t us = (u + 500) / 1000;

	snprintf(buf, n, "%s%" PRIu64 ".%06" PRIu64, neg && us ? "-" : "",
		 us / 1000000, us % 1000000);
	return buf;
}

/* A percentage with two decimals; "-" when the whole is zero. */
char *fmt_pct(char *buf, size_t n, double num, double den)
{
	if (den == 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.2f", num * 100.0 / den);
	return buf;
}

/* Interned strings (API names, labels): few distinct, many uses. */
static char **strtab;
static size_t nstr, capstr;

const char *intern(const char *s)
{
	size_t h = 5381, i;

	for (const char *p = s; *p; p++)
		h = h * 33 + (unsigned char)*p;
	if (nstr * 2 >= capstr) {
		size_t nc = capstr ? capstr * 2 : 256;
		char **nt = xcalloc(nc, sizeof(*nt));

		for (i = 0; i < capstr; i++) {
			if (!strtab[i])
				continue;
			size_t g = 5381;

			for (const char *p = strtab[i]; *p; p++)
				g = g * 33 + (unsigned char)*p;
			for (g &= nc - 1; nt[g]; g = (g + 1) & (nc - 1))
				;
			nt[g] = strtab[i];
		}
		free(strtab);
		strtab = nt;
		capstr = nc;
	}
	for (i = h & (capstr - 1); strtab[i]; i = (i + 1) & (capstr - 1))
		if (!strcmp(strtab[i], s))
			return strtab[i];
	strtab[i] = xstrdup(s);
	nstr++;
	return strtab[i];
}
