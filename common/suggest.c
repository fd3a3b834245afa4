/* "Did you mean": the known word nearest a mistyped one, so that a typo
 * (rol="server", --limt, "timline") is named with its fix, not only
 * refused. */
#include "util.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

/* Optimal string alignment distance (a swap of two letters is one edit),
 * for words up to 63 bytes; longer ones are far from anything. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[64][64];

	if (la > 63 || lb > 63)
		return (size_t)-1;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t c = a[i - 1] != b[j - 1];
			size_t m = d[i - 1][j - 1] + c;

			if (d[i - 1][j] + 1 < m)
				m = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < m)
				m = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < m)
				m = d[i - 2][j - 2] + 1;
			d[i][j] = m;
		}
	return d[la][lb];
}

const char *suggest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	size_t bd = (size_t)-1, len = strlen(word);
	/* within a third of the word's length (at least one edit): "rol"
	 * is role, "colour" is nothing the format knows */
	size_t most = len / 3 ? len / 3 : 1;

	/* in half edits: a prefix of a known word ("proc") is one and a
	 * half, behind a word one edit away ("sum": sums, not summary) */
	for (size_t i = 0; i < n; i++) {
		size_t d;

		if (!cands[i])
			continue;
		d = distance(word, cands[i]);
		d = d == (size_t)-1 ? d : 2 * d;
		if (d > 3 && len >= 3 && !strncmp(cands[i], word, len))
			d = 3;
		if (d < bd) {
			bd = d;
			best = cands[i];
		}
	}
	return bd <= 2 * most + (len >= 3) ? best : NULL;
}

void bad_option_hint(char **argv, int c, const struct option *lopts)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	const char *names[256];
	size_t n = 0;
	char word[64];

	if (c != ':' && !strncmp(arg, "--", 2)) {
		snprintf(word, sizeof(word), "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
		for (; lopts[n].name && n < 256; n++)
			names[n] = lopts[n].name;
		const char *s = suggest(word, names, n);

		if (s)
			die(2, "unknown option '--%s' (did you mean --%s? try --help)", word, s);
	}
	bad_option(argv, c);
}
