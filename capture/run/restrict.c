/*
 * Restrictions in Repy's terms: `resource cpu .10` is a share of one CPU,
 * `resource filewrite 100000` bytes per second. Only what island-capture
 * can enforce is accepted; anything else is an error naming file:line.
 */
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/run/run.h"
#include "util.h"

const char *const limit_names[LIM_N] = {
	[LIM_FILEREAD] = "fileread", [LIM_FILEWRITE] = "filewrite",
	[LIM_NETSEND] = "netsend", [LIM_NETRECV] = "netrecv",
};

static void bad(const char *file, long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
static void bad(const char *file, long line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (file)
		die_at(2, file, line, "%s", msg);
	die(2, "%s", msg);
}

void restrict_set(struct restrictions *r, const char *resource, const char *value,
		  const char *file, long line)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(value, &end);
	/* a rate takes k, M, G (64k, 10M: binary multiples); a share not */
	if (strcmp(resource, "cpu") && *end && !parse_size(value, &v))
		end = (char *)value + strlen(value);
	if (errno || end == value || *end || !isfinite(v) || v < 0)
		bad(file, line, "%s: '%s' is not a non-negative number%s", resource, value,
		    strcmp(resource, "cpu") ? " (of bytes per second: 100000, 64k, 10M, 1G)" : "");
	if (!strcmp(resource, "cpu")) {
		if (v <= 0 || v > 1)
			bad(file, line, "cpu: '%s' is not a share of one CPU in (0, 1]",
			    value);
		r->cpu = v;
		return;
	}
	for (int i = 0; i < LIM_N; i++)
		if (!strcmp(resource, limit_names[i])) {
			if (v <= 0)
				bad(file, line, "%s: '%s' must be a positive number of bytes per second",
				    resource, value);
			r->rate[i] = v;
			return;
		}
	bad(file, line, "unknown resource '%s' (island-capture enforces cpu, fileread, "
	    "filewrite, netsend, netrecv)", resource);
}

void restrict_load(struct restrictions *r, const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[1024];
	long line = 0;

	if (!f)
		die(2, "%s:", path);
	while (fgets(buf, sizeof(buf), f)) {
		char *words[4];
		int n = 0;
		line++;
		if (!strchr(buf, '\n') && !feof(f))
			die_at(2, path, line, "line too long");
		char *hash = strchr(buf, '#');
		if (hash)
			*hash = 0;
		for (char *w = strtok(buf, " \t\r\n"); w; w = strtok(NULL, " \t\r\n")) {
			if (n == 4)
				die_at(2, path, line, "expected 'resource NAME VALUE'");
			words[n++] = w;
		}
		if (!n)
			continue;
		if (strcmp(words[0], "resource"))
			die_at(2, path, line, "unknown directive '%s' (expected 'resource')",
			       words[0]);
		if (n != 3)
			die_at(2, path, line, "expected 'resource NAME VALUE'");
		restrict_set(r, words[1], words[2], path, line);
	}
	if (ferror(f))
		die(2, "%s: read error:", path);
	fclose(f);
}

int restrict_any_rate(const struct restrictions *r)
{
	for (int i = 0; i < LIM_N; i++)
		if (r->rate[i] > 0)
			return 1;
	return 0;
}
