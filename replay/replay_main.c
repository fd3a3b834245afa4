/* island-replay: re-execute a trace: its compute, its real I/O under a
 * sandbox root, and the causality between its nodes. */
#include "exec.h"
#include "util.h"
#include "zstdio.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct option_def {
	const char *name;
	int arg, key;		/* key: the short option too, when a letter < 'a'+26 */
	const char *argname, *help;
} options[] = {
	{ "root", 1, 'r', "DIR", "replay file I/O under DIR (default: a fresh ./replay-root.*)" },
	{ "node", 1, 'n', "NAME", "replay this node only" },
	{ "mode", 1, 'm', "MODE", "causal (default), think, timed or afap" },
	{ "compute", 1, 'c', "HOW", "spin (default), sleep or none" },
	{ "speed", 1, 's', "X", "compute and time run X times faster" },
	{ "report", 1, 'o', "FILE", "save the fidelity report as XML" },
	{ "limit", 1, 'l', "NODE:RES=RATE", "hold NODE's fileread, filewrite, netsend or netrecv to RATE bytes/s (64k, 10M: binary multiples)" },
	{ "stall", 1, 259, "SECONDS", "give up when a call runs SECONDS past its original time (default 5; 0: never)" },
	{ "mpi", 0, 256, "", "one node per MPI rank (run under mpirun)" },
	{ "deps", 1, 258, "FROM", "trace (default: its WAITs) or net: message edges from the nodes' packets (TRACE... with --pcap)" },
	{ "reuse-root", 0, 260, "", "replay over what --root holds (refused when not empty)" },
	{ "repeat", 1, 261, "N", "replay N times, each in a fresh ROOT/I; the spread of the predictions" },
	{ "quiet", 0, 'q', "", "no root line, progress or report on stdout" },
	{ "help", 0, 'h', "", "this help" },
	{ "version", 0, 257, "", "print the version" },
};
#define NOPT (sizeof(options) / sizeof(*options))

static void usage(int status)
{
	FILE *f = status ? stderr : stdout;

	fprintf(f, "usage: island-replay [options] TRACE\n"
		   "       island-replay --deps net [options] TRACE... (node traces with their pcaps)\n"
		   "TRACE: .xml, .xml.gz, .xml.zst, or the binary .isb, .isb.gz, .isb.zst\n");
	for (size_t i = 0; i < NOPT; i++)
		fprintf(f, "  %c%c%c --%s %-*s %s\n", options[i].key < 256 ? '-' : ' ',
			options[i].key < 256 ? options[i].key : ' ', options[i].key < 256 ? ',' : ' ',
			options[i].name, (int)(22 - strlen(options[i].name)), options[i].argname,
			options[i].help);
	exit(status);
}

static int pick(const char *what, const char *v, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v, names[i]))
			return i;
	die(2, "--%s %s: unknown value", what, v);
}

static int deps_net;               /* --deps net */
static char **net_traces;          /* its traces */
static int net_ntraces;

static void parse(int argc, char **argv)
{
	static const char *const modes[] = { "causal", "think", "timed", "afap" };
	static const char *const comps[] = { "spin", "sleep", "none" };
	struct option lo[NOPT + 1];
	char shorts[3 * NOPT + 3] = "+:", *end;	/* ':' a missing argument */
	size_t k = 2;

	memset(lo, 0, sizeof(lo));
	for (size_t i = 0; i < NOPT; i++) {
		lo[i] = (struct option){ options[i].name, options[i].arg, NULL, options[i].key };
		if (options[i].key < 256) {
			shorts[k++] = (char)options[i].key;
			if (options[i].arg)
				shorts[k++] = ':';
		}
	}
	shorts[k] = 0;
	opterr = 0;		/* bad_option() says it, in one line */
	for (;;) {
		int c = getopt_long(argc, argv, shorts, lo, NULL);
		if (c == -1)
			break;
		switch (c) {
		case 'r': opt.root = optarg; break;
		case 'n': opt.node = optarg; break;
		case 'm': opt.mode = pick("mode", optarg, modes, 4); break;
		case 'c': opt.compute = pick("compute", optarg, comps, 3); break;
		case 's':
			opt.speed = strtod(optarg, &end);
			if (*end || !(opt.speed > 0))
				die(2, "--speed %s: not a positive number", optarg);
			break;
		case 'o': opt.report = optarg; break;
		case 'l':
			if (limit_add(optarg))
				die(2, "--limit %s: not NODE:RESOURCE=BYTES_PER_SECOND "
				    "(fileread, filewrite, netsend, netrecv)", optarg);
			break;
		case 259:
			opt.stall = strtod(optarg, &end);
			if (*end || !(opt.stall >= 0))
				die(2, "--stall %s: not a number of seconds", optarg);
			break;
		case 256: opt.mpi = 1; break;
		case 260: opt.reuse_root = 1; break;
		case 261:
			opt.repeat = (int)strtol(optarg, &end, 10);
			if (*end || opt.repeat < 1 || opt.repeat > 1000)
				die(2, "--repeat %s: not a count from 1 to 1000", optarg);
			break;
		case 258:
			if (strcmp(optarg, "trace") && strcmp(optarg, "net"))
				die(2, "--deps %s: trace or net", optarg);
			deps_net = !strcmp(optarg, "net");
			break;
		case 'q': opt.quiet = 1; break;
		case 'h': usage(0); break;
		case 257: printf("island-replay %s\n", ISLAND_VERSION); exit(0);
		default: bad_option_hint(argv, c, lo);
		}
	}
	if (optind >= argc)
		die(2, "no trace given (try --help)");
	if (!deps_net && optind + 1 != argc)
		die(2, "one trace expected, %d given (several: --deps net; try --help)",
		    argc - optind);
	opt.trace = argv[optind];
	net_traces = argv + optind;
	net_ntraces = argc - optind;
}

/*
 * --deps net: the dependencies are the messages the nodes exchanged,
 * taken from their packets by the analyzer (island-analyze deps --from net
 * --annotate), which writes one trace with WAITs and SIGNALs; that trace
 * is what is replayed.
 */
static const char *net_dir;

static void remove_net_dir(void)
{
	char *p = xasprintf("%s/annotated.xml", net_dir);
	unlink(p);
	rmdir(net_dir);
	free(p);
}

static const char *annotate_from_net(void)
{
	static char dir[] = "/tmp/island-replay-net.XXXXXX";
	char self[4096];
	ssize_t l = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (l < 0 || !mkdtemp(dir))
		die(2, "cannot prepare the message dependencies:");
	self[l] = 0;
	char *slash = strrchr(self, '/');
	*slash = 0;
	char *analyze = xasprintf("%s/island-analyze", self);
	char *out = xasprintf("%s/annotated.xml", dir);
	char **av = xcalloc((size_t)net_ntraces + 8, sizeof(char *));
	int k = 0;
	av[k++] = analyze;
	av[k++] = "deps";
	av[k++] = "--from";
	av[k++] = "net";
	av[k++] = "--annotate";
	av[k++] = out;
	for (int i = 0; i < net_ntraces; i++)
		av[k++] = net_traces[i];
	av[k] = NULL;
	flush_stdout();
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);         /* the table; errors still go to stderr */
		execv(analyze, av);
		fprintf(stderr, "island-replay: %s: %s\n", analyze, strerror(errno));
		_exit(127);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die(2, "--deps net: the analyzer could not derive the message dependencies");
	net_dir = dir;
	atexit(remove_net_dir);
	return out;
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

/* Stop every node still running: ask, then insist. */
static void stop_all(pid_t *pids, size_t n, struct sync *s)
{
	sync_stop(s);
	for (size_t i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGTERM);
	for (int tries = 0; tries < 20; tries++) {
		int left = 0;
		for (size_t i = 0; i < n; i++)
			if (pids[i] > 0) {
				if (waitpid(pids[i], NULL, WNOHANG) == pids[i])
					pids[i] = 0;
				else
					left = 1;
			}
		if (!left)
			return;
		usleep(50000);
	}
	for (size_t i = 0; i < n; i++)
		if (pids[i] > 0) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], NULL, 0);
			pids[i] = 0;
		}
}

/* A replay whose writes did not all go down (a full root) is not a
 * replay of the trace: one line per node, exit 1. */
static int unwritten_check(const struct trace *t, const int *sel, struct sync *s)
{
	int status = 0;

	for (size_t k = 0; k < t->nnodes; k++) {
		struct nodestat *st = sync_stats(s, (int)k);

		if (!sel[k] || !st->unwritten)
			continue;
		warnx("node %s: %llu bytes not written to %s under %s: %s", t->nodes[k].name,
		      (unsigned long long)st->unwritten, st->wpath ? st->wpath : "a file",
		      opt.root, strerror(st->werr));
		status = 1;
	}
	return status;
}

static int64_t last_orig, last_repl;	/* the last run_local's spans */

static int run_local(struct trace *t, int *sel, int rootfd)
{
	struct sync *s = sync_create(t);
	struct net *net = net_create(t, sel);
	pid_t *pids = xcalloc(t->nnodes, sizeof(pid_t));
	int64_t e0 = min_epoch(t, sel);
	net_init(t, sel);
	rclock_end();
	/* a little ahead, so that every node starts on the same tick */
	int64_t t0 = rnow_ns() + 20 * 1000 * 1000;
	struct sigaction sa = { .sa_handler = on_signal };
	int status = 0;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	flush_stdout();
	fflush(NULL);
	for (size_t k = 0; k < t->nnodes; k++) {
		if (!sel[k])
			continue;
		pid_t pid = fork();
		if (pid < 0) {
			warnx("fork:");
			stop_all(pids, t->nnodes, s);
			return 1;
		}
		if (pid == 0) {
			/* the node dies with us, whatever happens to us */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() == 1)
				_exit(1);
			signal(SIGINT, SIG_IGN);
			signal(SIGTERM, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			char name[16];
			snprintf(name, sizeof(name), "replay:%s", t->nodes[k].name);
			prctl(PR_SET_NAME, name);
			struct node_run r = {
				.t = t, .node = (int)k, .rootfd = rootfd, .sync = s, .net = net,
				.t0_ns = t0, .sel = sel,
				.offset_ns = opt.mode == MODE_AFAP ? 0 : t->nodes[k].epoch - e0,
			};
			_exit(run_node(&r));
		}
		pids[k] = pid;
	}
	int tty = !opt.quiet && isatty(2);
	size_t left = 0;
	for (size_t k = 0; k < t->nnodes; k++)
		left += sel[k];
	while (left) {
		int st;
		pid_t pid = waitpid(-1, &st, WNOHANG);
		if (pid > 0) {
			for (size_t k = 0; k < t->nnodes; k++)
				if (pids[k] == pid) {
					pids[k] = 0;
					left--;
					if (st) {
						if (WIFSIGNALED(st))
							warnx("node %s failed (%s): stopping all nodes",
							      t->nodes[k].name, signal_name(WTERMSIG(st)));
						else
							warnx("node %s failed (exit %d): stopping all nodes",
							      t->nodes[k].name, WEXITSTATUS(st));
						status = 1;
					}
				}
			if (status)
				break;
			continue;
		}
		if (interrupted) {
			warnx("interrupted (%s): stopping all nodes", signal_name(interrupted));
			status = 130;
			break;
		}
		if (tty)
			progress_draw(t, sel, s, t0, 0);
		usleep(pid < 0 && errno == ECHILD ? 0 : 20000);
	}
	if (status) {
		stop_all(pids, t->nnodes, s);
		if (tty)
			fputc('\n', stderr);
		return status;
	}
	if (tty)
		progress_draw(t, sel, s, t0, 1);
	int64_t end = 0;
	for (size_t k = 0; k < t->nnodes; k++)
		if (sel[k] && sync_stats(s, (int)k)->t1_ns > end)
			end = sync_stats(s, (int)k)->t1_ns;
	int64_t start = t0;
	if (opt.mode == MODE_AFAP) {
		start = INT64_MAX;
		for (size_t k = 0; k < t->nnodes; k++)
			if (sel[k] && sync_stats(s, (int)k)->t0_ns < start)
				start = sync_stats(s, (int)k)->t0_ns;
	}
	int64_t orig = original_span(t, sel), repl = end - start;
	last_orig = orig;
	last_repl = repl;
	if (!opt.quiet)
		report_print(t, sel, s, orig, repl);
	if (opt.report && report_save(opt.report, t, sel, s, orig, repl))
		die(1, "%s:", opt.report);
	return unwritten_check(t, sel, s);
}

/* The files the trace found are made before the replay, outside its
 * measured time; then the replay. */
static int replay_in(struct trace *t, int *sel, int rootfd)
{
	struct fileneed *need;
	size_t nneed = files_needed(t, sel, opt.mode != MODE_CAUSAL, &need);

	if (files_prepare(rootfd, need, nneed) < 0 || files_settle(rootfd) < 0)
		die(1, "%s: cannot prepare the files the trace reads:", opt.root);
	free(need);
	return run_local(t, sel, rootfd);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* --repeat N: N replays, each in a fresh ROOT/I (one replay's files are
 * not the next one's), and the spread of their predictions: a noisy
 * disk's single replay is one draw (one varied -19 % to +63 %). */
static int repeat_local(struct trace *t, int *sel, int rootfd)
{
	int64_t *r = xcalloc((size_t)opt.repeat, sizeof(*r));
	const char *root = opt.root;
	int status = 0;

	for (int i = 0; i < opt.repeat && !status; i++) {
		char name[32];
		snprintf(name, sizeof(name), "%d", i + 1);
		if (mkdirat(rootfd, name, 0755) && errno != EEXIST)
			die(1, "%s/%s:", root, name);
		int fd = sandbox_openat(rootfd, name, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
		if (fd < 0)
			die(1, "%s/%s:", root, name);
		opt.root = xasprintf("%s/%s", root, name);
		if (!opt.quiet)
			printf("island-replay: replay %d of %d under %s\n", i + 1, opt.repeat, opt.root);
		status = replay_in(t, sel, fd);
		close(fd);
		r[i] = last_repl;
	}
	if (status)
		return status;
	qsort(r, (size_t)opt.repeat, sizeof(*r), cmp_i64);
	int64_t med = opt.repeat % 2 ? r[opt.repeat / 2] : (r[opt.repeat / 2 - 1] + r[opt.repeat / 2]) / 2;
	double o = last_orig > 0 ? (double)last_orig : 1;
	printf("island-replay: %d replays: median %.6f s (%+.1f%%), min %.6f s (%+.1f%%), max %.6f s (%+.1f%%)\n",
	       opt.repeat, med / 1e9, (med / o - 1) * 100, r[0] / 1e9, (r[0] / o - 1) * 100,
	       r[opt.repeat - 1] / 1e9, (r[opt.repeat - 1] / o - 1) * 100);
	free(r);
	return 0;
}

int main(int argc, char **argv)
{
	progname = "island-replay";
	zstd_input_register();	/* .zst traces read like any other */
	check_stdout_at_exit();
	rclock_begin();		/* calibrated while the trace loads */
	parse(argc, argv);
	if (opt.root)
		root_check(opt.root, net_traces, net_ntraces);
	/* line by line on a terminal; elsewhere whole, so that a failed
	 * write is seen, with its errno, where stdout is flushed */
	if (isatty(1))
		setvbuf(stdout, NULL, _IOLBF, 0);
	if (deps_net)
		opt.trace = annotate_from_net();

	/* the trace lives as long as the process (a global: not a leak) */
	static struct trace *t;
	t = replay_load(opt.trace);
	if (replay_check(t))
		return 2;
	const char *bad = limit_check(t);
	if (bad)
		die(2, "--limit: no node %s in %s", bad, opt.trace);
	int *sel = xcalloc(t->nnodes, sizeof(int));
	if (opt.node) {
		int k = node_index(t, opt.node);
		if (k < 0)
			die(2, "--node %s: no such node in %s", opt.node, opt.trace);
		sel[k] = 1;
	} else {
		for (size_t k = 0; k < t->nnodes; k++)
			sel[k] = 1;
	}
	if (opt.mpi && !mpi_available())
		die(2, "--mpi: this island-replay was built without MPI (mpicc was not found at build time)");

	if (opt.repeat > 1 && opt.mpi)
		die(2, "--repeat: not with --mpi (run mpirun again)");
	if (opt.mpi)
		return mpi_main(t);
	int rootfd = root_open(NULL, 1);
	if (opt.repeat > 1)
		return repeat_local(t, sel, rootfd);
	return replay_in(t, sel, rootfd);
}
