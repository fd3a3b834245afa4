/* Aligned text tables and their CSV form: every report declares its
 * tables and their columns (struct tabledef), builds each table and emits
 * it; --csv, --table and -o DIR then work the same everywhere, and
 * --list-columns and the docs test read the same declarations. */
#include "analyze.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The options of the command line (analyze_main.c fills them). */
struct report_opts opt = { .depth = -1, .width = 1600 };

struct cell {
	char *s;
	bool none;		/* a missing value: s is its text form ("-") */
};

struct table {
	const struct tabledef *def;
	int ncols;
	struct cell *cells;	/* row-major, headers first */
	size_t ncells, cap;
	char *align;
	enum col_kind *kind;
	unsigned *flags;
};

static bool named(const char *const *with, const char *name)
{
	for (; with && *with; with++)
		if (!strcmp(*with, name))
			return true;
	return false;
}

/* The columns of def, each COL_PER one expanded into one per name of per,
 * the COL_OPT ones kept when named in with. */
static int expand(const struct tabledef *def, const char *const *per, size_t nper,
		  const char *const *with, const char **names, enum col_kind *kind,
		  unsigned *flags)
{
	int n = 0;

	for (int i = 0; i < def->ncols; i++) {
		const struct coldef *c = &def->cols[i];
		size_t copies = c->flags & COL_PER ? nper :
				c->flags & COL_OPT ? named(with, c->name) : 1;

		for (size_t k = 0; k < copies; k++, n++) {
			if (names)
				names[n] = c->flags & COL_PER ? per[k] : c->name;
			if (kind)
				kind[n] = c->kind;
			if (flags)
				flags[n] = c->flags;
		}
	}
	return n;
}

static struct table *table_make(const struct tabledef *def, const char *const *per,
				size_t nper, const char *const *with)
{
	struct table *t = xcalloc(1, sizeof(*t));
	int n = expand(def, per, nper, with, NULL, NULL, NULL);
	const char **names = xcalloc((size_t)n + 1, sizeof(*names));

	t->def = def;
	t->ncols = n;
	t->kind = xcalloc((size_t)n + 1, sizeof(*t->kind));
	t->flags = xcalloc((size_t)n + 1, sizeof(*t->flags));
	expand(def, per, nper, with, names, t->kind, t->flags);
	t->align = xmalloc((size_t)n + 1);
	for (int i = 0; i < n; i++)
		t->align[i] = t->kind[i] == COL_TEXT ? 'l' : 'r';
	t->align[n] = 0;
	for (int i = 0; i < n; i++)
		table_add(t, names[i]);
	free(names);
	return t;
}

struct table *table_open(const struct tabledef *def, const char *const *per, size_t nper)
{
	return table_make(def, per, nper, NULL);
}

struct table *table_with(const struct tabledef *def, const char *const *with)
{
	return table_make(def, NULL, 0, with);
}

struct table *table_new(const struct tabledef *def)
{
	return table_make(def, NULL, 0, NULL);
}

void table_align(struct table *t, const char *align)
{
	for (int i = 0; i < t->ncols && align[i]; i++)
		t->align[i] = align[i];
}

static struct cell *next_cell(struct table *t)
{
	XGROW(t->cells, t->cap, t->ncells + 1);
	return &t->cells[t->ncells++];
}

void table_add(struct table *t, const char *cell)
{
	*next_cell(t) = (struct cell){ xstrdup(cell ? cell : ""), false };
}

void table_none(struct table *t, const char *text)
{
	*next_cell(t) = (struct cell){ xstrdup(text), true };
}

void table_addf(struct table *t, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	*next_cell(t) = (struct cell){ s, false };
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

/* CSV: plain values, a missing one empty. */
static void print_csv(const struct table *t, FILE *f)
{
	for (size_t i = 0; i < t->ncells; i++) {
		if (!t->cells[i].none)
			csv_field(f, t->cells[i].s);
		putc((int)(i % (size_t)t->ncols) == t->ncols - 1 ? '\n' : ',', f);
	}
}

/* The text form of a cell: a COL_SIGNED number that is above zero gets
 * its '+'. Returns s, or buf. */
static const char *text_of(const struct table *t, size_t i, char *buf, size_t n)
{
	const struct cell *c = &t->cells[i];
	size_t col = i % (size_t)t->ncols;

	if (i < (size_t)t->ncols || c->none || !(t->flags[col] & COL_SIGNED) ||
	    c->s[0] == '-' || !c->s[0] || strspn(c->s, "0.") == strlen(c->s))
		return c->s;
	snprintf(buf, n, "+%s", c->s);
	return buf;
}

void table_print(struct table *t, FILE *f, bool csv)
{
	size_t *w = xcalloc((size_t)t->ncols, sizeof(*w));
	char buf[128];
	size_t i;

	if (csv) {
		print_csv(t, f);
		free(w);
		return;
	}
	for (i = 0; i < t->ncells; i++) {
		size_t len = strlen(text_of(t, i, buf, sizeof(buf)));
		size_t c = i % (size_t)t->ncols;

		if (len > w[c])
			w[c] = len;
	}
	/* Build each line, then drop trailing blanks (empty last cells). */
	size_t cap = 256, len = 0;
	char *line = xmalloc(cap);

	for (i = 0; i < t->ncells; i++) {
		int c = (int)(i % (size_t)t->ncols);
		const char *s = text_of(t, i, buf, sizeof(buf));
		size_t cl = strlen(s), pad = w[c] > cl ? w[c] - cl : 0;

		XGROW(line, cap, len + w[c] + cl + 3);
		if (t->align[c] == 'r') {
			memset(line + len, ' ', pad);
			len += pad;
		}
		memcpy(line + len, s, cl);
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
		free(t->cells[i].s);
	free(t->cells);
	free(t->align);
	free(t->kind);
	free(t->flags);
	free(t);
}

/* --- --sort and --limit: the same for every report's tables ------------- */

struct sortkey {
	char name[64];
	bool desc;
	int col;		/* in the table being sorted */
};
static struct sortkey keys[8];
static size_t nkeys;
static int nsorted;		/* tables --sort applied to */

static void parse_sort(void)
{
	const char *p = opt.sort;

	if (nkeys || !p)
		return;
	while (*p) {
		size_t n = strcspn(p, ",");
		struct sortkey *k = &keys[nkeys];

		if (nkeys == sizeof(keys) / sizeof(keys[0]))
			die(2, "--sort: at most %zu columns", nkeys);
		k->desc = *p == '-';
		if (k->desc)
			p++, n--;
		if (!n || n >= sizeof(k->name))
			die(2, "--sort: '%s' is not [-]COLUMN[,[-]COLUMN...]", opt.sort);
		memcpy(k->name, p, n);
		k->name[n] = 0;
		nkeys++;
		p += n;
		p += *p == ',';
	}
	if (!nkeys)
		die(2, "--sort: no column given");
}

void table_check_sort(const char *report, const struct tabledef *defs)
{
	const char *names[512];
	size_t n = 0;

	parse_sort();
	for (size_t i = 0; i < nkeys; i++) {
		bool found = false, per = false;

		n = 0;
		for (const struct tabledef *d = defs; d && d->name; d++)
			for (int c = 0; c < d->ncols; c++) {
				per |= (d->cols[c].flags & COL_PER) != 0;
				found |= !strcmp(d->cols[c].name, keys[i].name);
				if (n < sizeof(names) / sizeof(names[0]))
					names[n++] = d->cols[c].name;
			}
		/* a column per node or state is named at run time */
		if (found || per)
			continue;
		const char *s = suggest(keys[i].name, names, n);

		if (s)
			die(2, "%s: --sort: no column '%s' (did you mean %s? see --list-columns %s)",
			    report, keys[i].name, s, report);
		die(2, "%s: --sort: no column '%s' (see --list-columns %s)",
		    report, keys[i].name, report);
	}
}

static const struct table *sorting;

static int cmp_cell(const struct table *t, size_t ra, size_t rb, const struct sortkey *k)
{
	const struct cell *a = &t->cells[ra * (size_t)t->ncols + (size_t)k->col];
	const struct cell *b = &t->cells[rb * (size_t)t->ncols + (size_t)k->col];
	int r;

	/* a missing value goes last, either way */
	if (a->none || b->none || !*a->s || !*b->s) {
		bool ma = a->none || !*a->s, mb = b->none || !*b->s;

		if (ma != mb)
			return ma ? 1 : -1;
		return 0;
	}
	if (t->kind[k->col] == COL_TEXT) {
		r = strcmp(a->s, b->s);
	} else {
		double x = strtod(a->s, NULL), y = strtod(b->s, NULL);

		r = (x > y) - (x < y);
	}
	return k->desc ? -r : r;
}

static int cmp_row(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	for (size_t i = 0; i < nkeys; i++) {
		int r = cmp_cell(sorting, a, b, &keys[i]);

		if (r)
			return r;
	}
	return (a > b) - (a < b);	/* ties keep the report's order */
}

static int col_named(const struct table *t, const char *name)
{
	for (int c = 0; c < t->ncols; c++)
		if (!strcmp(t->cells[c].s, name))
			return c;
	return -1;
}

/* Sort the rows by --sort, keep the first --limit. A table without the
 * columns keeps its order (a report of several tables: the one with
 * them is sorted). */
static void table_order(struct table *t)
{
	size_t nc = (size_t)t->ncols, nrows = t->ncells / nc - 1;
	bool sortable = nkeys > 0;

	for (size_t i = 0; i < nkeys; i++)
		if ((keys[i].col = col_named(t, keys[i].name)) < 0)
			sortable = false;
	if (sortable && nrows > 1) {
		size_t *ix = xcalloc(nrows, sizeof(*ix));
		struct cell *v = xcalloc(t->ncells, sizeof(*v));

		for (size_t i = 0; i < nrows; i++)
			ix[i] = i + 1;
		sorting = t;
		qsort(ix, nrows, sizeof(*ix), cmp_row);
		memcpy(v, t->cells, nc * sizeof(*v));
		for (size_t i = 0; i < nrows; i++)
			memcpy(v + (i + 1) * nc, t->cells + ix[i] * nc, nc * sizeof(*v));
		free(t->cells);
		t->cells = v;
		t->cap = t->ncells;
		free(ix);
	}
	nsorted += sortable;
	if (opt.limit > 0 && !opt.limit_taken && nrows > (size_t)opt.limit) {
		size_t keep = ((size_t)opt.limit + 1) * nc;

		for (size_t i = keep; i < t->ncells; i++)
			free(t->cells[i].s);
		t->ncells = keep;
	}
}

size_t table_stream_limit(void)
{
	return opt.limit > 0 && !opt.limit_taken ? (size_t)opt.limit : SIZE_MAX;
}

/* --- where tables go: --csv, --table NAME, -o DIR ------------------------ */

static int nshown;		/* tables printed or written so far */

static bool several_tables(void)
{
	return opt.tables && opt.tables[0].name && opt.tables[1].name;
}

/* Is def the table to show? --table names it, else every table in text
 * and in -o DIR, and the first one shown in CSV on stdout. */
static bool wanted(const struct tabledef *def)
{
	if (opt.table)
		return !strcmp(opt.table, def->name);
	return !opt.csv || opt.output || nshown == 0;
}

/* -o DIR: DIR/NAME.csv, replaced if there. */
static FILE *table_file(const struct tabledef *def, char **path)
{
	int fd;
	FILE *f;

	if (mkdir(opt.output, 0777) && errno != EEXIST)
		die(2, "%s: cannot create the directory:", opt.output);
	*path = xasprintf("%s/%s.csv", opt.output, def->name);
	fd = open(*path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0 || !(f = fdopen(fd, "w")))
		die(2, "%s: cannot write:", *path);
	return f;
}

static void file_close(FILE *f, char *path)
{
	if (f == stdout) {
		if (fflush(f))
			die(2, "stdout: write error:");
		return;
	}
	if (fclose_checked(f))	/* errno of the failed write, EIO if gone */
		die(2, "%s: write error:", path);
	free(path);
}

static FILE *dest(const struct tabledef *def, bool *csv, char **path)
{
	*path = NULL;
	*csv = opt.csv || opt.output;
	if (opt.output)
		return table_file(def, path);
	if (!opt.csv && !opt.table && several_tables()) {
		if (nshown)
			putchar('\n');
		printf("%s:\n", def->name);
	}
	return stdout;
}

static table_sink sink;
static void *sink_arg;

void table_set_sink(table_sink fn, void *arg)
{
	sink = fn;
	sink_arg = arg;
}

const struct tabledef *table_def(const struct table *t)
{
	return t->def;
}

int table_ncols(const struct table *t)
{
	return t->ncols;
}

size_t table_nrows(const struct table *t)
{
	return t->ncells / (size_t)t->ncols - 1;
}

/* Row 0 is the header; a missing value is "". */
const char *table_cell(const struct table *t, size_t row, int col)
{
	const struct cell *c = &t->cells[row * (size_t)t->ncols + (size_t)col];

	return c->none ? "" : c->s;
}

void table_emit(struct table *t)
{
	bool csv;
	char *path;
	FILE *f;

	if (sink) {
		sink(sink_arg, t);
		return;
	}
	if (wanted(t->def)) {
		table_order(t);
		f = dest(t->def, &csv, &path);
		table_print(t, f, csv);
		file_close(f, path);
		nshown++;
	}
	table_free(t);
}

static char *stream_path;

FILE *table_stream_open(const struct tabledef *def, const char *const *per, size_t nper,
			bool *csv)
{
	FILE *f;

	if (!wanted(def))
		return NULL;
	if (opt.sort)
		die(2, "--sort: the %s rows are streamed in their own order (--limit N takes the first N)",
		    def->name);
	f = dest(def, csv, &stream_path);
	if (*csv) {
		int n = expand(def, per, nper, NULL, NULL, NULL, NULL);
		const char **names = xcalloc((size_t)n + 1, sizeof(*names));

		expand(def, per, nper, NULL, names, NULL, NULL);
		for (int i = 0; i < n; i++) {
			csv_field(f, names[i]);
			putc(i + 1 < n ? ',' : '\n', f);
		}
		free(names);
	}
	return f;
}

void table_stream_close(FILE *f)
{
	file_close(f, stream_path);
	stream_path = NULL;
	nshown++;
}

/* After the report: a --table it never showed is an error (a report of
 * one table shows it, or another form: export --format chrome). */
void tables_done(const char *report)
{
	/* a column per node or state that no table shown had */
	if (nkeys && nshown && !nsorted)
		die(2, "%s: --sort: no table shown has the column%s given", report,
		    nkeys > 1 ? "s" : "");
	const struct tabledef *t = opt.table ? table_find(opt.tables, opt.table) : NULL;

	if (opt.table && !nshown && several_tables() && t && t->needs)
		die(2, "%s: no table '%s' in this output (it comes with %s)", report, opt.table,
		    t->needs);
	if (opt.table && !nshown && several_tables())
		die(2, "%s: no table '%s' in this output (the options decide which tables there are)",
		    report, opt.table);
}

const struct tabledef *table_find(const struct tabledef *defs, const char *name)
{
	for (; defs && defs->name; defs++)
		if (!strcmp(defs->name, name))
			return defs;
	return NULL;
}

const char *const col_kind_names[] = {
	[COL_TEXT] = "text", [COL_INT] = "integer", [COL_SECS] = "seconds",
	[COL_PCT] = "percent", [COL_NUM] = "number",
};

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

/* Seconds to the nanosecond, for CSV that is read by programs (calls: a
 * write to /dev/null takes 120 ns, 0.000000 to the microsecond). */
char *fmt_nsecs(char *buf, size_t n, int64_t ns)
{
	bool neg = ns < 0;
	uint64_t u = neg ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;

	snprintf(buf, n, "%s%" PRIu64 ".%09" PRIu64, neg && u ? "-" : "",
		 u / 1000000000, u % 1000000000);
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

/* A percentage cell: missing when the whole is zero. */
void table_pct(struct table *t, double num, double den)
{
	char buf[32];

	if (den == 0)
		table_none(t, "-");
	else
		table_add(t, fmt_pct(buf, sizeof(buf), num, den));
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
