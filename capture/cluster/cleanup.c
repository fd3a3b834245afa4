/*
 * island-capture --cleanup: what a run killed with SIGKILL could not
 * remove. Every kind of leftover names its owner: the network namespaces,
 * bridges, veths (netns.c) and /tmp/island-cluster.PID.* directories the
 * runner's pid, a session file the pids inside it. What belongs to a live
 * process, or to another user, is kept. Spools are kept too: they hold
 * records that can still become a trace.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "cluster.h"
#include "netns.h"
#include "capture/session/session.h"
#include "util.h"

#define CLUSTER_TMP "/tmp"
#define CLUSTER_PREFIX "island-cluster."

/* "island-cluster.PID.XXXXXX": PID, or -1 */
static long tmp_owner(const char *name)
{
	size_t l = strlen(CLUSTER_PREFIX);
	char *end;

	if (strncmp(name, CLUSTER_PREFIX, l) || name[l] < '0' || name[l] > '9')
		return -1;
	long pid = strtol(name + l, &end, 10);
	return *end == '.' && strlen(end + 1) == 6 ? pid : -1;
}

static int sweep_tmp(int *kept)
{
	DIR *d = opendir(CLUSTER_TMP);
	struct dirent *e;
	int failed = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		long pid = tmp_owner(e->d_name);
		struct stat st;
		if (pid <= 0 || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode) || st.st_uid != getuid())
			continue;
		if (pid_alive(pid)) {
			(*kept)++;
			continue;
		}
		char *p = xasprintf("%s/%s", CLUSTER_TMP, e->d_name);
		if (rm_tree(p) < 0) {
			warnx("%s: cannot remove:", p);
			failed++;
		} else {
			warnx("removed %s (of island-capture %ld, gone)", p, pid);
		}
		free(p);
	}
	closedir(d);
	return failed;
}

/* A session file is live while its runner or one of this host's nodes'
 * captures is. -1: not a session file of ours (left alone). */
static int session_live(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;
	int live = -1;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == getuid() &&
	    (size_t)st.st_size >= sizeof(struct session)) {
		struct session *s = mmap(NULL, sizeof(*s), PROT_READ, MAP_SHARED, fd, 0);
		if (s != MAP_FAILED) {
			if (s->magic == SESS_MAGIC) {
				live = pid_alive(s->owner_pid);
				for (int i = 0; i < SESS_NODES && !live; i++)
					live = s->node[i].state == SN_RUNNING &&
					       !s->node[i].remote &&
					       pid_alive(s->node[i].capture_pid);
			}
			munmap(s, sizeof(*s));
		}
	}
	close(fd);
	return live;
}

static int sweep_sessions(int *kept)
{
	DIR *d = opendir(session_dir);
	struct dirent *e;
	char prefix[64];
	int failed = 0;

	if (!d)
		return 0;
	snprintf(prefix, sizeof(prefix), "island-session.%u.", (unsigned)getuid());
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		int live = session_live(dirfd(d), e->d_name);
		if (live) {
			*kept += live > 0;
			continue;
		}
		if (unlinkat(dirfd(d), e->d_name, 0) < 0) {
			warnx("%s/%s: cannot remove:", session_dir, e->d_name);
			failed++;
		} else {
			warnx("removed %s/%s (no island-capture of it is left)", session_dir,
			      e->d_name);
		}
	}
	closedir(d);
	return failed;
}

int cleanup_leftovers(void)
{
	int kept = 0, failed = 0;

	failed += netns_cleanup();
	failed += sweep_tmp(&kept);
	failed += sweep_sessions(&kept);
	if (kept)
		warnx("--cleanup: kept %d whose island-capture still runs", kept);
	return failed ? 1 : 0;
}
