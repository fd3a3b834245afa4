/*
 * Repy's nanny, for a whole process tree: every period, compare the CPU
 * time the app used since the last check with share x the time that
 * passed; when it is ahead, stop it (SIGSTOP to each process) until the
 * two meet, and log the stop. A CPU-bound app then has
 * cpu / (cpu + stopped) = share, as in Island.
 *
 * SIGSTOP was chosen over cgroup v2's cpu.max: the kernel's throttling
 * cannot be observed stop by stop, and cgroup v2 controllers are often
 * not writable (not on the machines we test on); stop times logged here
 * are exact. The app's processes are found in the spool's arena; their
 * CPU time is the sum of their threads' schedstat (ns).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "capture.h"
#include "monitor.h"
#include "util.h"

static struct pidcpu *pid_slot(struct monitor *m, pid_t pid)
{
	for (size_t i = 0; i < m->npids; i++)
		if (m->pids[i].pid == pid)
			return &m->pids[i];
	XGROW(m->pids, m->cap, m->npids + 1);
	m->pids[m->npids] = (struct pidcpu){ pid, 0, 1 };
	return &m->pids[m->npids++];
}

/* The processes of the spool's arena: its threads' first chunks. */
static void scan_arena(struct monitor *m)
{
	char *path = xasprintf("%s/" ARENA_FILE, m->spool);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct arena_hdr a;
	struct stat st;
	size_t nc;

	free(path);
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return;
	}
	struct arena_chunk *c = arena_chunks(fd, (size_t)st.st_size, &a, &nc);
	close(fd);
	for (size_t i = 0; i < nc; i++)
		if (c[i].c.seq == 0 && c[i].h.magic == SPOOL_MAGIC && c[i].h.pid > 1)
			pid_slot(m, c[i].h.pid);
	free(c);
}

/* Learn new processes from the spool directory. */
static void scan_pids(struct monitor *m)
{
	DIR *d = opendir(m->spool);
	struct dirent *e;

	pid_slot(m, m->root);
	scan_arena(m);
	if (!d)
		return;
	while ((e = readdir(d))) {
		int pid, tid, gen;
		if (sscanf(e->d_name, "%d.%d.%d", &pid, &tid, &gen) == 3)
			pid_slot(m, pid);
	}
	closedir(d);
}

/* CPU ns of a process: its threads' schedstat. Gone: the last value. */
static void sample(struct pidcpu *p)
{
	char path[64], buf[320];
	DIR *d;
	struct dirent *e;
	int64_t sum = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", p->pid);
	if (!(d = opendir(path))) {
		p->alive = 0;
		return;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(buf, sizeof(buf), "/proc/%d/task/%s/schedstat", p->pid, e->d_name);
		FILE *f = fopen(buf, "r");
		long long ns;
		if (f && fscanf(f, "%lld", &ns) == 1)
			sum += ns;
		if (f)
			fclose(f);
	}
	closedir(d);
	if (sum >= p->cpu)           /* exited threads leave the sum */
		p->cpu = sum;
}

static int64_t tree_cpu(struct monitor *m)
{
	int64_t sum = 0;

	scan_pids(m);
	for (size_t i = 0; i < m->npids; i++) {
		if (m->pids[i].alive)
			sample(&m->pids[i]);
		sum += m->pids[i].cpu;
	}
	return sum;
}

static void signal_all(struct monitor *m, int sig)
{
	for (size_t i = 0; i < m->npids; i++)
		if (m->pids[i].alive && kill(m->pids[i].pid, sig) < 0 && errno == ESRCH)
			m->pids[i].alive = 0;
}

/* Each check looks at the window since the last check or stop, as Repy
 * did: time the app spent blocked earns it no credit for later. */
static void *run(void *arg)
{
	struct monitor *m = arg;
	int64_t last_used = tree_cpu(m), last_t = now_ns();

	while (!m->done) {
		sleep_ns(m->period);
		if (m->done)
			break;
		int64_t used = tree_cpu(m), t = now_ns();
		int64_t due = (int64_t)((double)(used - last_used) / m->share) -
			      (t - last_t);
		last_used = used;
		last_t = t;
		if (due <= 0)
			continue;
		signal_all(m, SIGSTOP);
		sleep_ns(due);
		signal_all(m, SIGCONT);
		int64_t t1 = now_ns();
		m->stopped += t1 - t;
		last_t = t1;
		if (stoplog_add(m->log, t - m->mono0, t1 - t) < 0)
			warnx("cannot log a stop:");
	}
	return NULL;
}

int monitor_start(struct monitor *m)
{
	m->done = 0;
	if (m->period <= 0)
		m->period = 100000000;
	return pthread_create(&m->th, NULL, run, m) ? -1 : 0;
}

void monitor_stop(struct monitor *m)
{
	m->done = 1;
	pthread_join(m->th, NULL);
	signal_all(m, SIGCONT);
	free(m->pids);
	m->pids = NULL;
	m->npids = m->cap = 0;
}
