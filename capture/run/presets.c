/*
 * island-capture --profile (the seed's user model): options, named sets
 * saved in ~/.config/island/profiles, and the switch.
 *
 * The profiles file has a line per set: NAME then the options as they
 * are written on the command line (--sample-hz=997 ...). The switch is
 * the control page (spool.h, struct prof_ctl) every process of the app
 * maps: island_profile(0/1) in the program, or island-capture --control
 * PID on|off from another terminal, where PID is island-capture's or any
 * captured process's (found through /proc/PID/maps).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "capture/run/run.h"
#include "util.h"

static const struct { const char *name; int bit; } value_names[] = {
	{ "cpu", PV_CPU }, { "wall", PV_WALL }, { "alloc", PV_ALLOC },
};

const char *prof_values_name(int values)
{
	static char buf[32];

	buf[0] = 0;
	for (size_t i = 0; i < 3; i++)
		if (values & value_names[i].bit) {
			if (buf[0])
				strcat(buf, ",");
			strcat(buf, value_names[i].name);
		}
	return buf;
}

static int parse_values(const char *v)
{
	char *s = xstrdup(v), *save = NULL;
	int bits = 0;

	for (char *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < 3; i++)
			if (!strcmp(tok, value_names[i].name))
				break;
		if (i == 3)
			die(2, "--profile: '%s' is none of cpu, wall, alloc", tok);
		bits |= value_names[i].bit;
	}
	free(s);
	if (!bits)
		die(2, "--profile: no value in '%s'", v);
	return bits;
}

static long num(const char *opt, const char *v, long lo, long hi)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(v, &end, 10);
	if (errno || *end || end == v || x < lo || x > hi)
		die(2, "%s: '%s' is not a number from %ld to %ld", opt, v, lo, hi);
	return x;
}

void prof_option(struct prof_opts *p, int which, const char *v)
{
	p->set |= 1u << which;
	switch (which) {
	case PO_PROFILE:
		p->enabled = 1;
		if (v && v[0] == '@') {
			if (!v[1])
				die(2, "--profile=@NAME: no name");
			p->load = v + 1;
			p->set &= ~(1u << which);
		} else {
			p->values = v ? parse_values(v) : PV_CPU | PV_WALL | PV_ALLOC;
		}
		break;
	case PO_HZ:
		p->hz = (int)num("--sample-hz", v, 1, 100000);
		break;
	case PO_ALLOC:
		p->alloc_every = num("--sample-alloc", v, 1, LONG_MAX);
		break;
	case PO_DEPTH:
		p->depth = (int)num("--stack-depth", v, 1, 128);
		break;
	case PO_START:
		if (strcmp(v, "on") && strcmp(v, "off"))
			die(2, "--profile-start: '%s' is neither on nor off", v);
		p->start_on = !strcmp(v, "on");
		break;
	case PO_SAVE:
		p->save_as = v;
		break;
	}
}

static char *profiles_path(int make_dirs)
{
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	char *dir;

	if (xdg && xdg[0] == '/')
		dir = xasprintf("%s/island", xdg);
	else if (home && home[0] == '/')
		dir = xasprintf("%s/.config/island", home);
	else
		die(2, "--profile-save/@NAME: neither HOME nor XDG_CONFIG_HOME is set");
	if (make_dirs) {
		char *parent = xstrdup(dir), *slash = strrchr(parent, '/');

		*slash = 0;
		if (mkdir(parent, 0700) < 0 && errno != EEXIST)
			die(2, "%s:", parent);
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			die(2, "%s:", dir);
		free(parent);
	}
	char *path = xasprintf("%s/profiles", dir);

	free(dir);
	return path;
}

static int valid_name(const char *s)
{
	if (!*s || strlen(s) > 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
			return 0;
	return 1;
}

/* The set's line: "NAME --profile=V --sample-hz=N ..." */
static char *set_line(const char *name, const struct prof_opts *p)
{
	return xasprintf("%s --profile=%s --sample-hz=%d --sample-alloc=%lld --stack-depth=%d "
			 "--profile-start=%s\n", name, prof_values_name(p->values), p->hz,
			 (long long)p->alloc_every, p->depth, p->start_on ? "on" : "off");
}

static void load_set(struct prof_opts *p)
{
	char *path = profiles_path(0), line[1024];
	FILE *f = fopen(path, "r");
	long ln = 0;
	struct prof_opts got = *p;

	if (!f)
		die(2, "--profile=@%s: %s: %s (save a set with --profile-save NAME)", p->load, path,
		    strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok = strtok_r(line, " \t\n", &save);

		ln++;
		if (!tok || tok[0] == '#' || strcmp(tok, p->load))
			continue;
		while ((tok = strtok_r(NULL, " \t\n", &save))) {
			static const struct { const char *opt; int which; } opts[] = {
				{ "--profile=", PO_PROFILE }, { "--sample-hz=", PO_HZ },
				{ "--sample-alloc=", PO_ALLOC }, { "--stack-depth=", PO_DEPTH },
				{ "--profile-start=", PO_START },
			};
			size_t i;

			for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
				if (!strncmp(tok, opts[i].opt, strlen(opts[i].opt)))
					break;
			if (i == sizeof(opts) / sizeof(opts[0]))
				die_at(2, path, ln, "'%s' is not a profile option", tok);
			if (p->set & (1u << opts[i].which))
				continue;	/* the command line wins */
			const char *v = tok + strlen(opts[i].opt);

			if (opts[i].which == PO_ALLOC && !strcmp(v, "0"))
				got.alloc_every = 0;
			else
				prof_option(&got, opts[i].which, v);
		}
		fclose(f);
		free(path);
		got.set = p->set;
		got.load = p->load;
		*p = got;
		return;
	}
	die(2, "--profile=@%s: no such set in %s", p->load, path);
}

static void save_set(const struct prof_opts *p)
{
	char *path = profiles_path(1), *tmp = xasprintf("%s.%ld", path, (long)getpid());
	char line[1024], *mine = set_line(p->save_as, p);
	FILE *in = fopen(path, "r"), *out;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0 || !(out = fdopen(fd, "w")))
		die(2, "%s:", tmp);
	while (in && fgets(line, sizeof(line), in)) {
		size_t l = strlen(p->save_as);

		if (!strncmp(line, p->save_as, l) && (line[l] == ' ' || line[l] == '\n'))
			continue;	/* replaced */
		fputs(line, out);
	}
	if (in)
		fclose(in);
	fputs(mine, out);
	if (fflush(out) || fsync(fd) || fclose(out)) {
		unlink(tmp);
		die(2, "%s:", tmp);
	}
	if (rename(tmp, path) < 0) {
		unlink(tmp);
		die(2, "%s:", path);
	}
	fprintf(stderr, "island-capture: profile set '%s' saved in %s\n", p->save_as, path);
	free(mine);
	free(tmp);
	free(path);
}

int prof_finish(struct prof_opts *p, int have_program)
{
	if (!p->hz)
		p->hz = 997;
	if (!p->depth)
		p->depth = 64;
	if (!(p->set & (1u << PO_START)))
		p->start_on = 1;
	if (p->load)
		load_set(p);
	if (p->save_as) {
		if (!valid_name(p->save_as))
			die(2, "--profile-save: '%s' is not a name (letters, digits, - _ .)", p->save_as);
		if (!p->values)
			p->values = PV_CPU | PV_WALL | PV_ALLOC;
		save_set(p);
		if (!have_program)
			return 1;
		p->enabled = 1;
	}
	if ((p->set & ~(1u << PO_SAVE)) && !p->enabled)
		die(2, "--sample-hz, --sample-alloc, --stack-depth and --profile-start go with --profile");
	/* read by the interposer, which cannot say it is wrong */
	const char *u = getenv("ISLAND_UNWIND");

	if (p->enabled && u && strcmp(u, "fp") && strcmp(u, "libunwind") && strcmp(u, "auto"))
		die(2, "ISLAND_UNWIND: '%s' is none of fp, libunwind, auto", u);
	return 0;
}

struct prof_ctl *prof_page(const struct prof_opts *p, const char *spool)
{
	char *path = xasprintf("%s/%s", spool, PROFILE_FILE);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct prof_ctl *c;

	if (fd < 0 || ftruncate(fd, sizeof(*c)) < 0)
		die(2, "%s:", path);
	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (c == MAP_FAILED)
		die(2, "%s:", path);
	close(fd);
	c->on = p->start_on;
	c->values = p->values;
	c->hz = p->hz;
	c->depth = p->depth;
	c->alloc_every = p->alloc_every;
	c->capture_pid = (int32_t)getpid();
	__atomic_store_n(&c->magic, PROF_MAGIC, __ATOMIC_RELEASE);
	free(path);		/* the mapping stays: --control finds it in our maps */
	return c;
}

/* The control page a process maps: the first ".../profile" mapping of a
 * spool directory in /proc/PID/maps. */
static char *page_of(const char *pid)
{
	char *maps = xasprintf("/proc/%s/maps", pid), line[PATH_MAX + 256];
	FILE *f = fopen(maps, "r");
	char *found = NULL;

	if (!f)
		die(2, "--control %s: no such process (%s)", pid, strerror(errno));
	while (!found && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');
		size_t l;

		if (!path)
			continue;
		l = strcspn(path, "\n");
		path[l] = 0;
		if (l > 8 && !strcmp(path + l - 8, "/" PROFILE_FILE) && strstr(path, "/island-spool."))
			found = xstrdup(path);
	}
	fclose(f);
	free(maps);
	return found;
}

int prof_control(const char *pid, const char *state)
{
	char *path;
	int fd, on;
	struct stat st;
	struct prof_ctl *c;

	if (strcmp(state, "on") && strcmp(state, "off"))
		die(2, "--control PID on|off: '%s' is neither", state);
	on = !strcmp(state, "on");
	for (const char *s = pid; *s; s++)
		if (*s < '0' || *s > '9')
			die(2, "--control: '%s' is not a process id", pid);
	if (!(path = page_of(pid)))
		die(2, "--control %s: not a process captured with --profile", pid);
	fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		die(2, "%s:", path);
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_size < (off_t)sizeof(*c))
		die(2, "%s: not a profile control page of yours", path);
	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (c == MAP_FAILED || c->magic != PROF_MAGIC)
		die(2, "%s: not a profile control page", path);
	if (c->on != on) {
		c->on = on;
		__atomic_add_fetch(&c->switches, 1, __ATOMIC_RELAXED);
	}
	printf("island-capture: profiling %s (island-capture pid %d)\n", state, c->capture_pid);
	munmap(c, sizeof(*c));
	free(path);
	return 0;
}
