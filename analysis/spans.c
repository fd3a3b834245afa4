/* Span files: time data from any tool, as CSV with a header
 *   component,state,start,end[,cores][,owner]
 * (columns in any order, found by name); times in seconds; cores default
 * to 1, owner (app or system) to app. */
#include "analyze.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { COL_COMP, COL_STATE, COL_START, COL_END, COL_CORES, COL_OWNER, NCOLS };
static const char *const colnames[NCOLS] = {
	"component", "state", "start", "end", "cores", "owner",
};

bool is_span_file(const char *path)
{
	size_t n = strlen(path);

	return n > 4 && !strcmp(path + n - 4, ".csv");
}

/* Split a CSV line in place; quoted fields may hold commas and "". */
static int split_csv(char *s, char **f, int max)
{
	int n = 0;

	for (;;) {
		char *out = s;

		if (n == max)
			return -1;
		f[n++] = s;
		if (*s == '"') {
			for (s++;; s++) {
				if (!*s)
					return -1;
				if (*s == '"') {
					if (s[1] != '"')
						break;
					s++;
				}
				*out++ = *s;
			}
			s++;
			if (*s && *s != ',')
				return -1;
		} else {
			while (*s && *s != ',')
				*out++ = *s++;
		}
		if (!*s) {
			*out = 0;
			return n;
		}
		*out = 0;
		s++;
	}
}

static int index_of(char ***v, size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], s))
			return (int)i;
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[*n] = xstrdup(s);
	return (int)(*n)++;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = 0;
}

/* The column map of the header: col[k] is the field index of column k. */
static int header_cols(char *line, int *col, const char **why)
{
	char *f[32];
	int n = split_csv(line, f, 32);

	for (int k = 0; k < NCOLS; k++)
		col[k] = -1;
	if (n < 0) {
		*why = "bad CSV header";
		return -1;
	}
	for (int i = 0; i < n; i++)
		for (int k = 0; k < NCOLS; k++)
			if (!strcmp(f[i], colnames[k]))
				col[k] = i;
	for (int k = 0; k <= COL_END; k++)
		if (col[k] < 0) {
			*why = "not a span file (the header must name component,state,start,end)";
			return -1;
		}
	return 0;
}

static int col_map[NCOLS] = { 0, 1, 2, 3, 4, 5 };

/* One data line; on error returns -1 with *why set. */
int spans_parse_line(struct spans *s, char *line, const char **why)
{
	char *f[32];
	int n = split_csv(line, f, 32);
	struct span sp;

	if (n < 0) {
		*why = "bad CSV line";
		return -1;
	}
	for (int k = 0; k <= COL_END; k++)
		if (col_map[k] >= n) {
			*why = "missing fields";
			return -1;
		}
	if (parse_sec(f[col_map[COL_START]], &sp.start) ||
	    parse_sec(f[col_map[COL_END]], &sp.end)) {
		*why = "start and end must be seconds";
		return -1;
	}
	if (sp.end < sp.start) {
		*why = "end before start";
		return -1;
	}
	sp.cores = 1;
	if (col_map[COL_CORES] >= 0 && col_map[COL_CORES] < n && *f[col_map[COL_CORES]]) {
		char *end;

		errno = 0;
		sp.cores = strtod(f[col_map[COL_CORES]], &end);
		if (errno || *end || sp.cores < 0) {
			*why = "cores must be a number >= 0";
			return -1;
		}
	}
	sp.owner = 0;
	if (col_map[COL_OWNER] >= 0 && col_map[COL_OWNER] < n && *f[col_map[COL_OWNER]]) {
		const char *o = f[col_map[COL_OWNER]];

		if (!strcmp(o, "system"))
			sp.owner = 1;
		else if (strcmp(o, "app")) {
			*why = "owner must be app or system";
			return -1;
		}
	}
	sp.comp = index_of(&s->comps, &s->ncomps, f[col_map[COL_COMP]]);
	sp.state = index_of(&s->states, &s->nstates, f[col_map[COL_STATE]]);
	XGROW(s->v, s->cap, s->n + 1);
	s->v[s->n++] = sp;
	return 0;
}

void spans_read(struct spans *s, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	long lineno = 0;
	const char *why;
	bool header = false;

	if (!f)
		die_at(2, path, 0, "cannot read: %s", strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		lineno++;
		chomp(line);
		if (!*line || *line == '#')
			continue;
		if (!header) {
			if (header_cols(line, col_map, &why))
				die_at(2, path, lineno, "%s", why);
			header = true;
			continue;
		}
		if (spans_parse_line(s, line, &why))
			die_at(2, path, lineno, "%s", why);
	}
	if (!header)
		die_at(2, path, lineno ? lineno : 1, "empty span file (no header)");
	free(line);
	fclose(f);
	for (int k = 0; k < NCOLS; k++)
		col_map[k] = k;
}

void spans_free(struct spans *s)
{
	for (size_t i = 0; i < s->ncomps; i++)
		free(s->comps[i]);
	for (size_t i = 0; i < s->nstates; i++)
		free(s->states[i]);
	free(s->comps);
	free(s->states);
	free(s->v);
	memset(s, 0, sizeof(*s));
}
