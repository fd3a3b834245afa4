/*
 * Run the application under the interposer and wait for it and every
 * process it leaves behind (island-capture is their subreaper), passing
 * on the signals a user sends to the capture.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "monitor.h"
#include "capture/packets/netcap.h"
#include "budget.h"
#include "capture/run/run.h"
#include "util.h"

static volatile pid_t app_pid;
static pid_t group_signaller;

/* CLOCK_MONOTONIC ns of the first SIGTERM passed on, 0 none */
static volatile int64_t stop_mono;

/*
 * The cluster runner signals a node's process group, the app in it: a
 * second copy from us would be a second SIGTERM, which many servers take
 * as "quit now, skip the graceful shutdown". Its parent-death SIGTERM
 * comes from it too, but reaches us alone (we have been reparented by
 * then), and an app that left our group is not reached: those we pass on.
 */
static void forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (sig == SIGTERM && !stop_mono) {
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		stop_mono = (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
	}
	if (group_signaller && si->si_code == SI_USER && si->si_pid == group_signaller &&
	    getppid() == group_signaller && app_pid > 0 && getpgid(app_pid) == getpgrp())
		return;
	if (app_pid > 0)
		kill(app_pid, sig);
}

static void set_env(struct run_opts *o)
{
	const char *pre = getenv(ENV_APP_PRELOAD);
	char *v;

	const char *ours = o->mpi_lib ? xasprintf("%s:%s", o->lib, o->mpi_lib) : o->lib;

	if (!pre)
		pre = getenv("LD_PRELOAD");

	if (pre && *pre) {
		v = xasprintf("LD_PRELOAD=%s:%s", pre, ours);
		/* where the user's was (capture_main.c, app_preload) */
		for (char **e = environ; *e; e++)
			if (!strncmp(*e, ENV_APP_PRELOAD "=", sizeof(ENV_APP_PRELOAD))) {
				*e = v;
				v = NULL;
				break;
			}
		if (v)
			putenv(v);
	} else {
		setenv("LD_PRELOAD", ours, 1);
	}
	if (o->mpi_lib)
		setenv(ENV_MPI_LIB, o->mpi_lib, 1);
	unsetenv(ENV_APP_PRELOAD);
	/* an ASan program's runtime would refuse to come after us */
	const char *asan = getenv("ASAN_OPTIONS");
	unsetenv(ENV_ASAN_MARK);
	if (!asan || !*asan) {
		putenv((char *)ENV_ASAN_OURS);
		setenv(ENV_ASAN_MARK, "ours", 1);
	} else if (!strstr(asan, "verify_asan_link_order")) {
		v = xasprintf("%s%s", asan, ENV_ASAN_SUFFIX);
		setenv("ASAN_OPTIONS", v, 1);
		free(v);
		setenv(ENV_ASAN_MARK, "added", 1);
	}
	setenv(ENV_SPOOL, o->spool, 1);
	setenv(ENV_CLOCK, o->clock_kind == CLOCK_KIND_TSC ? "tsc" : "mono", 1);
	setenv(ENV_LIB, o->lib, 1);
	if (o->rs && restrict_any_rate(o->rs))
		setenv(ENV_LIMITS, "1", 1);
	if (o->syscalls) {
		setenv(ENV_SYSCALLS, "1", 1);
		setenv(ENV_LOADER, o->loader, 1);
	}
	if (o->session) {
		char idx[16];
		snprintf(idx, sizeof(idx), "%d", o->session_idx);
		setenv(ENV_SESSION, o->session, 1);
		setenv(ENV_SESSION_NODE, idx, 1);
	}
}

/* The shared page the interposer's rate limits live in. */
static void make_limits(struct run_opts *o)
{
	struct limits_page lp = { .magic = LIMITS_MAGIC };
	char *path = xasprintf("%s/%s", o->spool, LIMITS_FILE);
	FILE *f = fopen(path, "w");

	for (int i = 0; i < LIM_N; i++)
		lp.rate[i] = o->rs->rate[i];
	if (!f || fwrite(&lp, sizeof(lp), 1, f) != 1 || fclose(f) != 0)
		die(2, "%s:", path);
	free(path);
}

static void note_status(struct cap_node *n, pid_t pid, int st, int64_t cpu)
{
	n->wpid = xrealloc(n->wpid, sizeof(pid_t) * (size_t)(n->nwait + 1));
	n->wstatus = xrealloc(n->wstatus, sizeof(int) * (size_t)(n->nwait + 1));
	n->wcpu = xrealloc(n->wcpu, sizeof(int64_t) * (size_t)(n->nwait + 1));
	n->wpid[n->nwait] = pid;
	n->wcpu[n->nwait] = cpu;
	n->wstatus[n->nwait++] = st;
}

/* The CPU ns of a zombie's main thread, -1 unknown: a process a signal
 * ended ran none of the interposer's code at its end, and its main thread
 * stays readable under /proc until it is reaped. schedstat's first field
 * is the thread's CPU time in ns (CLOCK_THREAD_CPUTIME_ID's); without it
 * (no CONFIG_SCHED_INFO), the thread's utime + stime in clock ticks. */
static int64_t zombie_cpu(pid_t pid)
{
	char path[64], buf[1024], *p;
	long long ns, ut, st;
	long hz = sysconf(_SC_CLK_TCK);
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[len > 0 ? len : 0] = 0;
		if (sscanf(buf, "%lld", &ns) == 1 && ns >= 0)
			return ns;
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[len > 0 ? len : 0] = 0;
	/* after the name, which may hold spaces and parentheses: fields 3.. */
	if (!(p = strrchr(buf, ')')) || hz <= 0 ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lld %lld", &ut, &st) != 2)
		return -1;
	return (ut + st) * (1000000000LL / hz);
}

int run_app(struct run_opts *o, struct cap_node *n, int *exit_code)
{
	static const int fwd[] = { SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM,
				   SIGWINCH };
	struct sigaction sa = { 0 }, old_int, old_quit;
	int ep[2], err = 0, st, main_st = -1;
	pid_t pid;

	struct monitor mon = { 0 };

	if (o->rs && restrict_any_rate(o->rs))
		make_limits(o);
	struct netcap *nc = o->netcap ? netcap_open(o->netcap, o->spool) : NULL;
	if (nc)
		n->pcap = o->netcap->path;
	if (pipe2(ep, O_CLOEXEC) < 0)
		die(2, "pipe:");
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	clock_start(&n->clk, o->clock_kind);
	if (recover_note(o->spool, n) < 0)
		die(2, "%s: cannot note the node for --recover", o->spool);
	if (arena_hold(o->spool, &n->spool_span) < 0)
		die(2, "%s: cannot create the spool's arena", o->spool);
	if (o->user && runas_grant_capture(o->user, o->spool, o->session) < 0)
		die(2, "--user %s: cannot open the spool to the user (ACLs):", o->user->name);
	fflush(NULL);
	n->app_fork = now_ns() - n->clk.mono0;
	pid = fork();
	if (pid < 0)
		die(2, "fork:");
	if (pid == 0) {
		close(ep[0]);
		set_env(o);
		if (o->user && runas_become(o->user) < 0) {
			err = errno;
			if (write(ep[1], &err, sizeof(err)) < 0)
				_exit(127);
			_exit(126);
		}
		if (o->target) {
			setenv(ENV_LOADER_TARGET, o->target, 1);
			if (o->script)
				setenv(ENV_LOADER_NAME, o->script, 1);
			execv(o->loader, o->argv);
		} else {
			execvp(o->argv[0], o->argv);
		}
		err = errno;
		if (write(ep[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(err == ENOENT ? 127 : 126);
	}
	app_pid = pid;
	group_signaller = o->group_signaller;
	n->app_pid = pid;
	close(ep[1]);
	/* The terminal's ^C and ^\ reach the app directly; we outlive it to
	 * write the trace. Other signals sent to us are passed on. A stderr
	 * read by a pipe that closed (2>&1 | head) fails our warnings, and
	 * does not kill us with the trace unwritten (the app's own
	 * disposition is its own: set here, after the fork). */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGQUIT, &sa, &old_quit);
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_RESTART | SA_SIGINFO;
	for (size_t i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++)
		sigaction(fwd[i], &sa, NULL);
	if (read(ep[0], &err, sizeof(err)) == (ssize_t)sizeof(err)) {
		waitpid(pid, &st, 0);
		close(ep[0]);
		warnx("%s: %s", o->argv[0], strerror(err));
		*exit_code = err == ENOENT ? 127 : 126;
		return -1;
	}
	close(ep[0]);
	if (nc)
		netcap_start(nc, pid);
	if (o->rs && o->rs->cpu > 0) {
		char *path = xasprintf("%s/stops.log", o->spool);
		n->stops = xcalloc(1, sizeof(*n->stops));
		stoplog_open(n->stops, path, 4096);
		free(path);
		mon.share = o->rs->cpu;
		mon.period = (int64_t)(o->rs->period * 1e9);
		mon.spool = o->spool;
		mon.root = pid;
		mon.mono0 = n->clk.mono0;
		mon.log = n->stops;
		if (monitor_start(&mon) < 0)
			die(2, "cannot start the CPU monitor:");
	}
	if (o->stream)
		n->stream = stream_start(n, o->spool, o->parts, o->comp, o->isb);
	struct budget *bud = o->output ? budget_start(o->spool, o->output, o->max_size,
						     n->stream, o->isb) : NULL;
	for (;;) {
		siginfo_t si = { 0 };
		int64_t cpu = -1;

		/* look before reaping: a zombie's /proc is gone after */
		if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT | __WALL) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED)
			cpu = zombie_cpu(si.si_pid);
		pid_t w;
		while ((w = waitpid(si.si_pid, &st, __WALL)) < 0 && errno == EINTR)
			;
		if (w < 0)
			break;
		note_status(n, w, st, cpu);
		if (w == pid)
			main_st = st;
	}
	if (o->rs && o->rs->cpu > 0)
		monitor_stop(&mon);
	n->max_size_hit = budget_stop(bud, NULL);
	n->end = now_ns() - n->clk.mono0;
	if (n->stream)
		stream_stop(n->stream);	/* before the clock's end */
	if (stop_mono) {
		n->has_stopped = 1;
		n->stopped = stop_mono - n->clk.mono0;
	}
	clock_end(&n->clk);
	if (nc)
		netcap_stop(nc, &n->clk);     /* its filter needs the clock */
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (main_st >= 0 && WIFEXITED(main_st))
		*exit_code = WEXITSTATUS(main_st);
	else if (main_st >= 0 && WIFSIGNALED(main_st))
		*exit_code = 128 + WTERMSIG(main_st);
	else
		*exit_code = 1;
	return 0;
}
