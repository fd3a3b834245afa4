/*
 * Network namespaces for the cluster runner. Every name is built from
 * numbers (the runner's pid, the node's index) and every address was
 * checked when the cluster file was read; `ip` gets them as separate
 * arguments, so nothing here is ever parsed by a shell.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "netns.h"
#include "util.h"

#define IP_MAXARGS 16

/* Run `ip ARGS...` (NULL-terminated); its exit status, -1 when it could
 * not run. quiet: its complaints are not shown (removing what may be
 * gone already). */
static int ip(int quiet, ...)
{
	static const char *const paths[] = { "/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip",
					     "/bin/ip" };
	char *argv[IP_MAXARGS + 2];
	va_list ap;
	int k = 0, st;

	argv[k++] = "ip";
	va_start(ap, quiet);
	while (k <= IP_MAXARGS && (argv[k] = va_arg(ap, char *)))
		k++;
	va_end(ap);
	argv[k] = NULL;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, 1);
			if (quiet)
				dup2(null, 2);
		}
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
			execv(paths[i], argv);
		execvp("ip", argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

struct netns_names {
	char ns[32], br[32], va[32], vb[32];
};

static struct netns_names names_of(long owner, int i)
{
	struct netns_names n;

	snprintf(n.ns, sizeof(n.ns), "isl-%ld-%d", owner, i);
	snprintf(n.br, sizeof(n.br), "islbr-%ld", owner);
	snprintf(n.va, sizeof(n.va), "isv%ldx%da", owner, i);
	snprintf(n.vb, sizeof(n.vb), "isv%ldx%db", owner, i);
	return n;
}

char *netns_path(long owner, int i)
{
	return xasprintf("%s/%s", NETNS_DIR, names_of(owner, i).ns);
}

int netns_bridge_up(long owner)
{
	struct netns_names n = names_of(owner, 0);

	if (ip(0, "link", "add", n.br, "type", "bridge", NULL) != 0 ||
	    ip(0, "link", "set", n.br, "up", NULL) != 0) {
		warnx("cannot create bridge %s for the cluster's namespaces "
		      "(root and iproute2 needed)", n.br);
		return -1;
	}
	return 0;
}

int netns_node_up(long owner, int i, const char *address)
{
	struct netns_names n = names_of(owner, i);
	char *addr = (char *)address;

	if (ip(0, "netns", "add", n.ns, NULL) != 0 ||
	    ip(0, "link", "add", n.va, "type", "veth", "peer", "name", n.vb, NULL) != 0 ||
	    ip(0, "link", "set", n.va, "master", n.br, "up", NULL) != 0 ||
	    ip(0, "link", "set", n.vb, "netns", n.ns, NULL) != 0 ||
	    ip(0, "-n", n.ns, "addr", "add", addr, "dev", n.vb, NULL) != 0 ||
	    ip(0, "-n", n.ns, "link", "set", n.vb, "up", NULL) != 0 ||
	    ip(0, "-n", n.ns, "link", "set", "lo", "up", NULL) != 0) {
		warnx("cannot set up network namespace %s", n.ns);
		return -1;
	}
	return 0;
}

void netns_node_down(long owner, int i)
{
	struct netns_names n = names_of(owner, i);

	/* the veth pair goes with the namespace, unless it never got there */
	ip(1, "link", "del", n.va, NULL);
	ip(1, "netns", "del", n.ns, NULL);
}

void netns_bridge_down(long owner)
{
	ip(1, "link", "del", names_of(owner, 0).br, NULL);
}

/* "PREFIX<digits>" followed by `rest`; the number, or -1. rest may hold
 * one '#' that stands for digits. */
static long owner_in(const char *name, const char *prefix, const char *rest)
{
	size_t l = strlen(prefix);
	char *end;

	if (strncmp(name, prefix, l) || name[l] < '0' || name[l] > '9')
		return -1;
	long pid = strtol(name + l, &end, 10);
	for (const char *r = rest; *r; r++) {
		if (*r == '#') {
			if (*end < '0' || *end > '9')
				return -1;
			while (*end >= '0' && *end <= '9')
				end++;
		} else if (*end++ != *r) {
			return -1;
		}
	}
	return *end ? -1 : pid;
}

/* One kind of leftover in a directory listing: remove those whose owner
 * is gone with `ip ARG0 ARG1 NAME`. */
static int sweep(const char *dir, const char *prefix, const char *rest, const char *what,
		 const char *arg0, const char *arg1)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int failed = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		long pid = owner_in(e->d_name, prefix, rest);
		if (pid <= 0 || pid_alive(pid))
			continue;
		if (ip(1, arg0, arg1, e->d_name, NULL) != 0) {
			char *sys = xasprintf("/sys/class/net/%s", e->d_name);
			int gone = !strcmp(arg0, "link") && access(sys, F_OK) < 0;
			free(sys);
			if (gone)    /* went with its namespace meanwhile */
				continue;
			warnx("cannot remove %s %s (of island-capture %ld, gone)", what,
			      e->d_name, pid);
			failed++;
		} else {
			warnx("removed %s %s (of island-capture %ld, gone)", what, e->d_name, pid);
		}
	}
	closedir(d);
	return failed;
}

int netns_cleanup(void)
{
	int failed = 0;

	if (geteuid() != 0)          /* only root makes them */
		return 0;
	failed += sweep(NETNS_DIR, "isl-", "-#", "network namespace", "netns", "del");
	failed += sweep("/sys/class/net", "islbr-", "", "bridge", "link", "del");
	/* a veth's 'a' end is in this namespace; deleting it deletes both */
	failed += sweep("/sys/class/net", "isv", "x#a", "veth", "link", "del");
	return failed;
}
