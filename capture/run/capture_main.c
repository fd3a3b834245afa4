/*
 * island-capture: run a program and write the XML trace of every thread's
 * I/O, of it and of every process it starts.
 *
 *   island-capture [OPTIONS] [--] PROGRAM [ARGS...]
 *
 * Options end at the program's name, as with strace.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <ftw.h>
#include <elf.h>

#include "capture.h"
#include "capture/cluster/cluster.h"
#include "capture/session/session.h"
#include "capture/packets/netcap.h"
#include "claim.h"
#include "trace/isbfmt.h"
#include "capture/run/run.h"
#include "capture/discover/discover.h"
#include "budget.h"
#include "util.h"
#include "zstdio.h"

enum { OPT_CLOCK = 256, OPT_SPOOL_DIR, OPT_KEEP_SPOOL, OPT_CPU, OPT_FILEREAD,
       OPT_FILEWRITE, OPT_NETSEND, OPT_NETRECV, OPT_RESTRICTIONS, OPT_CPU_PERIOD,
       OPT_SESSION, OPT_THROTTLE, OPT_PERIOD, OPT_DELAY, OPT_WATCHDOG,
       OPT_WATCHDOG_FROM, OPT_WATCHDOG_FACTOR, OPT_HOLD_TIMEOUT, OPT_CLUSTER,
       OPT_DISCOVER, OPT_THROTTLE_NODES, OPT_TIMEOUT, OPT_PASSES_DIR, OPT_PCAP,
       OPT_PCAP_OPTIONAL, OPT_SESSION_DIR, OPT_KEY_FILE, OPT_RECOVER, OPT_LIST, OPT_SESSION_NODES, OPT_CALLSITES,
       OPT_PROFILE, OPT_SAMPLE_HZ, OPT_SAMPLE_ALLOC, OPT_STACK_DEPTH, OPT_PROFILE_START,
       OPT_PROFILE_SAVE, OPT_CONTROL, OPT_SYSCALLS, OPT_CLEANUP, OPT_SERVER, OPT_OUTPUT_DIR,
       OPT_PASSES, OPT_ONE_BY_ONE, OPT_USER, OPT_MAX_SIZE };

/* The one option table: getopt's and --help's. */
static const struct optdesc {
	const char *name;
	int has_arg;
	int val;
	const char *arg, *help;
} optdescs[] = {
	{ "node", 1, 'n', "NAME", "name of this node (default: the host name)" },
	{ "output", 1, 'o', "FILE", "trace file (default: NODE.xml, NODE.xml.gz with -z): .xml, or .isb (binary); .gz: gzip, .zst: zstd" },
	{ "output-dir", 1, OPT_OUTPUT_DIR, "DIR", "write the trace as DIR/NODE.xml (under mpirun: one option for every rank)" },
	{ "gzip", 0, 'z', NULL, "write the trace gzip-compressed (unless -o names .zst)" },
	{ "verbose", 0, 'v', NULL, "say what was captured, on stderr" },
	{ "cpu", 1, OPT_CPU, "SHARE", "give the app at most SHARE of one CPU (e.g. 0.10)" },
	{ "fileread", 1, OPT_FILEREAD, "BYTES/S", "limit file reads (Repy's rule)" },
	{ "filewrite", 1, OPT_FILEWRITE, "BYTES/S", "limit file writes" },
	{ "netsend", 1, OPT_NETSEND, "BYTES/S", "limit data sent on sockets and pipes" },
	{ "netrecv", 1, OPT_NETRECV, "BYTES/S", "limit data received on sockets and pipes" },
	{ "restrictions", 1, OPT_RESTRICTIONS, "FILE", "restrictions in Repy's format (resource NAME VALUE)" },
	{ "cpu-period", 1, OPT_CPU_PERIOD, "SECONDS", "how often --cpu checks the app's CPU use (default 0.01; Repy: 0.1)" },
	{ "session", 1, OPT_SESSION, "NAME", "capture this node as part of multi-node session NAME (HOST:PORT: across hosts)" },
	{ "session-dir", 1, OPT_SESSION_DIR, "DIR", "where this host keeps session files (default /dev/shm)" },
	{ "key-file", 1, OPT_KEY_FILE, "FILE", "--session HOST:PORT: the session's shared key (default ~/.config/island/session.key)" },
	{ "session-nodes", 1, OPT_SESSION_NODES, "N", "the session has N nodes: a throttled node waits until all are known" },
	{ "throttle", 1, OPT_THROTTLE, "NODE", "in a session: throttle NODE to discover who waits for it" },
	{ "period", 1, OPT_PERIOD, "P", "the throttled node holds every P-th call that may release another node (default 1)" },
	{ "delay", 1, OPT_DELAY, "MS", "hold each held I/O at least MS milliseconds (default 0)" },
	{ "watchdog", 1, OPT_WATCHDOG, "S", "a node that completes no I/O for S seconds counts as blocked (default 0.1)" },
	{ "watchdog-from", 1, OPT_WATCHDOG_FROM, "TRACE", "derive the watchdog maxima from an unthrottled trace (or DIR/NODE.xml)" },
	{ "watchdog-factor", 1, OPT_WATCHDOG_FACTOR, "F", "times the maxima of --watchdog-from (default 2)" },
	{ "hold-timeout", 1, OPT_HOLD_TIMEOUT, "S", "release a held I/O after S seconds regardless (default 30)" },
	{ "cluster", 1, OPT_CLUSTER, "FILE", "run every node of a cluster file (see docs/cluster-format.md)" },
	{ "discover", 0, OPT_DISCOVER, NULL, "with --cluster: unthrottled + throttled passes, merged trace" },
	{ "throttle-nodes", 1, OPT_THROTTLE_NODES, "A,B", "with --discover: throttle only these nodes" },
	{ "passes", 1, OPT_PASSES, "N", "with --discover: run at most N passes (edges left undecided are marked certain=\"no\")" },
	{ "one-by-one", 0, OPT_ONE_BY_ONE, NULL, "with --discover: one throttled pass per node (//TRACE's N+1 passes), no group passes" },
	{ "timeout", 1, OPT_TIMEOUT, "S", "with --cluster: stop a pass whose nodes run longer (default 600)" },
	{ "passes-dir", 1, OPT_PASSES_DIR, "DIR", "with --cluster: keep each pass's traces and data in DIR" },
	{ "pcap", 2, OPT_PCAP, "[IFACE]", "also record the node's own packets into NODE.pcap (libpcap)" },
	{ "pcap-optional", 0, OPT_PCAP_OPTIONAL, NULL, "with --pcap: go on without packets when they cannot be captured" },
	{ "syscalls", 0, OPT_SYSCALLS, NULL, "also record every system call at the kernel boundary (Syscall User Dispatch)" },
	{ "server", 0, OPT_SERVER, NULL, "the program serves until stopped: a SIGTERM that ends it is its planned end, and its trace is complete up to there" },
	{ "max-size", 1, OPT_MAX_SIZE, "SIZE", "stop recording once the trace takes SIZE bytes (k, M, G): the app runs on, the trace is marked incomplete" },
	{ "user", 1, OPT_USER, "NAME", "run the program as user NAME (root only; the trace stays ours)" },
	{ "cleanup", 0, OPT_CLEANUP, NULL, "remove what killed runs left (namespaces, bridges, veths, /tmp/island-cluster.*, session files) and exit" },
	{ "clock", 1, OPT_CLOCK, "KIND", "tsc, monotonic or auto (default)" },
	{ "spool-dir", 1, OPT_SPOOL_DIR, "DIR", "where to spool records during the run (default: $ISLAND_SPOOL_DIR, /dev/shm, $TMPDIR or /tmp)" },
	{ "recover", 0, OPT_RECOVER, "[SPOOL]", "write the trace of a spool whose capture was killed (default: our newest such spool), marked incomplete" },
	{ "list", 0, OPT_LIST, NULL, "with --recover: list our spools whose capture was killed" },
	{ "keep-spool", 0, OPT_KEEP_SPOOL, NULL, "keep the spool files after writing the trace" },
	{ "callsites", 0, OPT_CALLSITES, NULL, "record where each call was made from (island-analyze --by callsite)" },
	{ "profile", 2, OPT_PROFILE, "[=VALUES]", "sampling profiler: cpu,wall,alloc (default all), or @NAME, a saved set" },
	{ "sample-hz", 1, OPT_SAMPLE_HZ, "N", "with --profile: snapshots per second of a thread's CPU (default 997)" },
	{ "sample-alloc", 1, OPT_SAMPLE_ALLOC, "BYTES", "with --profile: also a snapshot every BYTES a thread allocates" },
	{ "stack-depth", 1, OPT_STACK_DEPTH, "N", "with --profile: frames per snapshot at most (default 64, at most 128)" },
	{ "profile-start", 1, OPT_PROFILE_START, "on|off", "with --profile: profiling on at the start (default on)" },
	{ "profile-save", 1, OPT_PROFILE_SAVE, "NAME", "save the profile options as set NAME (~/.config/island/profiles)" },
	{ "control", 1, OPT_CONTROL, "PID", "turn profiling on or off in a running capture: --control PID on|off" },
	{ "help", 0, 'h', NULL, "show this help" },
	{ "version", 0, 'V', NULL, "show the version" },
};
#define NOPTS (sizeof(optdescs) / sizeof(optdescs[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: island-capture [OPTIONS] [--] PROGRAM [ARGS...]\n\n"
		   "Run PROGRAM and record the I/O of all its threads and child\n"
		   "processes into an XML trace. Exits with PROGRAM's status.\n\n");
	for (size_t i = 0; i < NOPTS; i++) {
		char left[64];
		const struct optdesc *d = &optdescs[i];
		if (d->val < 256)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", d->val, d->name,
				 d->arg ? " " : "", d->arg ? d->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", d->name,
				 d->arg ? " " : "", d->arg ? d->arg : "");
		fprintf(f, "  %-26s %s\n", left, d->help);
	}
}

/*
 * What --cluster does with the other options: a node's capture option is
 * passed to every node's capture as given (a path made absolute: a node
 * runs in its own directory), one that cannot apply to a cluster is
 * refused; the rest are the runner's own.
 */
enum { CL_NODE = 1, CL_PATH, CL_PROFILE, CL_NO };
static const struct cluster_use {
	int val, how;
	const char *why;             /* CL_NO */
} cluster_uses[] = {
	{ 'v', CL_NODE, NULL },
	{ OPT_CLOCK, CL_NODE, NULL },
	{ OPT_SPOOL_DIR, CL_PATH, NULL },
	{ OPT_KEEP_SPOOL, CL_NODE, NULL },
	{ OPT_CALLSITES, CL_NODE, NULL },
	{ OPT_SYSCALLS, CL_NODE, NULL },
	{ OPT_MAX_SIZE, CL_NODE, NULL },
	{ OPT_CPU, CL_NODE, NULL },
	{ OPT_FILEREAD, CL_NODE, NULL },
	{ OPT_FILEWRITE, CL_NODE, NULL },
	{ OPT_NETSEND, CL_NODE, NULL },
	{ OPT_NETRECV, CL_NODE, NULL },
	{ OPT_RESTRICTIONS, CL_PATH, NULL },
	{ OPT_CPU_PERIOD, CL_NODE, NULL },
	{ OPT_PROFILE, CL_PROFILE, NULL },
	{ OPT_SAMPLE_HZ, CL_PROFILE, NULL },
	{ OPT_SAMPLE_ALLOC, CL_PROFILE, NULL },
	{ OPT_STACK_DEPTH, CL_PROFILE, NULL },
	{ OPT_PROFILE_START, CL_PROFILE, NULL },
	{ OPT_PROFILE_SAVE, CL_PROFILE, NULL },
	{ 'n', CL_NO, "the cluster file names its nodes" },
	{ OPT_OUTPUT_DIR, CL_NO, "-o names the merged trace" },
	{ OPT_SESSION, CL_NO, "each pass is a session of its own" },
	{ OPT_SESSION_NODES, CL_NO, "each pass is a session of its own" },
	{ OPT_KEY_FILE, CL_NO, "a cluster's nodes run on this host" },
	{ OPT_THROTTLE, CL_NO, "--discover throttles each node in turn" },
	{ OPT_WATCHDOG, CL_NO, "--discover takes each node's from its unthrottled pass" },
	{ OPT_WATCHDOG_FROM, CL_NO, "--discover takes each node's from its unthrottled pass" },
	{ OPT_SERVER, CL_NO, "role=\"server\" on the node in the cluster file" },
	{ OPT_USER, CL_NO, "user=\"NAME\" on the node in the cluster file" },
	{ OPT_RECOVER, CL_NO, "it writes the trace of a spool" },
	{ OPT_LIST, CL_NO, "it goes with --recover" },
};

/* An option as given, to pass it on. */
struct given {
	int val;
	const char *arg;
};

static const struct optdesc *optdesc_of(int val)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (optdescs[i].val == val)
			return &optdescs[i];
	return NULL;
}

/* The node-capture options of the command line, for every node of the
 * cluster: NULL-terminated; a refused option exits 2. */
static char **cluster_node_args(const struct given *g, int ng, const struct prof_opts *po)
{
	char **v = xcalloc((size_t)ng * 2 + 2, sizeof(*v));
	int k = 0;

	for (int i = 0; i < ng; i++) {
		const struct cluster_use *u = NULL;
		const struct optdesc *d = optdesc_of(g[i].val);
		for (size_t j = 0; j < sizeof(cluster_uses) / sizeof(cluster_uses[0]); j++)
			if (cluster_uses[j].val == g[i].val)
				u = &cluster_uses[j];
		if (!u || !d)
			continue;
		if (u->how == CL_NO)
			die(2, "--%s: not with --cluster (%s)", d->name, u->why);
		/* a saved set is the whole of the profile options */
		if (u->how == CL_PROFILE && po->save_as)
			continue;
		if (d->has_arg == 2) {
			v[k++] = g[i].arg ? xasprintf("--%s=%s", d->name, g[i].arg) :
					    xasprintf("--%s", d->name);
			continue;
		}
		v[k++] = xasprintf("--%s", d->name);
		if (d->has_arg && u->how == CL_PATH) {
			char *abs = realpath(g[i].arg, NULL);
			if (!abs)
				die(2, "--%s %s:", d->name, g[i].arg);
			v[k++] = abs;
		} else if (d->has_arg) {
			v[k++] = xstrdup(g[i].arg);
		}
	}
	if (po->save_as)
		v[k++] = xasprintf("--profile=@%s", po->save_as);
	v[k] = NULL;
	return v;
}

/* The interposer lives beside us: ../lib (build tree) or ../lib/island
 * (installed). */
/* Kept for the whole run: globals (LeakSanitizer's roots; a static that
 * is only written is optimised away). */
char *capture_lib, *capture_prog;

static char *find_lib(void)
{
	static const char *const rel[] = { "../lib/libisland-capture.so",
					   "../lib/island/libisland-capture.so" };
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0)
		die(2, "cannot find my own executable:");
	self[n] = 0;
	char *dir = dirname(self);
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char *p = xasprintf("%s/%s", dir, rel[i]);
		char *real = realpath(p, NULL);
		free(p);
		if (real && access(real, R_OK) == 0)
			return real;
		free(real);
	}
	die(2, "cannot find libisland-capture.so near %s", dir);
}

/* Under Open MPI's launcher, the MPI level: libisland-mpi.so beside the
 * interposer (built where mpicc was found), preloaded into every image
 * of the app and inert in those that never call MPI (it needs no libmpi
 * of its own: it finds the one the program loaded). Built against Open
 * MPI's ABI: not under other launchers. ISLAND_MPI_LEVEL=0: none. */
static char *find_mpi_lib(const char *lib)
{
	const char *off = getenv("ISLAND_MPI_LEVEL");

	if (!getenv("OMPI_COMM_WORLD_RANK") || (off && !strcmp(off, "0")))
		return NULL;
	char *dir = xstrdup(lib);
	*strrchr(dir, '/') = 0;
	char *p = xasprintf("%s/libisland-mpi.so", dir);
	free(dir);
	if (access(p, R_OK) == 0)
		return p;
	free(p);
	return NULL;
}

/* A network interface's name (for --pcap IFACE). */
static int is_iface(const char *name)
{
	char *p = xasprintf("/sys/class/net/%s", name);
	int ok = access(p, F_OK) == 0;

	free(p);
	return ok;
}

static const char *self_exe(void)
{
	char *p = realpath("/proc/self/exe", NULL);

	if (!p)
		die(2, "cannot find my own executable:");
	return p;
}

/* The program's path as execvp would find it, or NULL: not resolved,
 * as the kernel gets it (the task is named after it, a script's $0 is
 * it). */
static char *program_path(const char *prog)
{
	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0 ? xstrdup(prog) : NULL;
	const char *path = getenv("PATH");
	char *copy = xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	char *found = NULL;
	for (char *dir = strtok(copy, ":"); dir && !found; dir = strtok(NULL, ":")) {
		char *p = xasprintf("%s/%s", *dir ? dir : ".", prog);
		if (access(p, X_OK) == 0)
			found = p;
		else
			free(p);
	}
	free(copy);
	return found;
}

/* An x86-64 ELF program island-loader can start (a script, anything
 * unreadable, a set-user-ID program are not). */
static int is_elf(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY | O_CLOEXEC), st = 0;
	struct stat sb;

	if (fd < 0)
		return 0;
	/* island-loader cannot give a program set-user-ID rights */
	if (fstat(fd, &sb) < 0 || (sb.st_mode & (S_ISUID | S_ISGID))) {
		close(fd);
		return 0;
	}
	if (pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) &&
	    !memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	    eh.e_machine == EM_X86_64 && eh.e_phentsize == sizeof(ph) &&
	    (eh.e_type == ET_EXEC || eh.e_type == ET_DYN)) {
		st = 1;
		for (int i = 0; i < eh.e_phnum; i++) {
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (size_t)i * sizeof(ph))) !=
			    (ssize_t)sizeof(ph)) {
				st = 0;
				break;
			}
		}
	}
	close(fd);
	return st;
}

/* A script whose interpreter island-loader can start: run it as the
 * kernel would (interpreter, its argument, the script, the arguments). */
static void script_target(struct run_opts *ro, const char *prog)
{
	char line[256], *p, *q, *arg = NULL;
	FILE *f = fopen(prog, "r");

	if (!f)
		return;
	if (!fgets(line, sizeof(line), f) || strncmp(line, "#!", 2) ||
	    !strchr(line, '\n')) {
		fclose(f);
		return;
	}
	fclose(f);
	*strchr(line, '\n') = 0;
	for (p = line + 2; *p == ' ' || *p == '\t'; p++)
		;
	for (q = p; *q && *q != ' ' && *q != '\t'; q++)
		;
	if (*q) {
		*q++ = 0;
		while (*q == ' ' || *q == '\t')
			q++;
		size_t l = strlen(q);
		while (l && (q[l - 1] == ' ' || q[l - 1] == '\t'))
			q[--l] = 0;
		if (*q)
			arg = q;
	}
	if (!*p || access(p, X_OK) < 0 || !is_elf(p))
		return;
	int n = 0;
	while (ro->argv[n])
		n++;
	char **argv = xcalloc((size_t)n + 3, sizeof(*argv)), **w = argv;
	*w++ = xstrdup(p);
	if (arg)
		*w++ = xstrdup(arg);
	*w++ = xstrdup(prog);
	for (int i = 1; i < n; i++)
		*w++ = ro->argv[i];
	ro->argv = argv;
	ro->target = argv[0];
	ro->script = prog;
}

/* Clear errors before the app starts: the program must exist and be
 * executable, the output writable. */
static void check_program(const char *prog)
{
	if (strchr(prog, '/')) {
		if (access(prog, X_OK) < 0) {
			warnx("%s: %s", prog, strerror(errno));
			exit(errno == ENOENT ? 127 : 126);
		}
		return;
	}
	const char *path = getenv("PATH");
	char *copy = xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (char *dir = strtok(copy, ":"); dir; dir = strtok(NULL, ":")) {
		char *p = xasprintf("%s/%s", *dir ? dir : ".", prog);
		int ok = access(p, X_OK) == 0;
		free(p);
		if (ok) {
			free(copy);
			return;
		}
	}
	free(copy);
	warnx("%s: command not found", prog);
	exit(127);
}

static void check_output(const char *out)
{
	char *probe = xasprintf("%s.tmp%d", out, (int)getpid());
	int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0644);

	if (fd < 0)
		die(2, "%s: cannot write the trace here:", out);
	close(fd);
	unlink(probe);
	free(probe);
	struct stat st;
	if (stat(out, &st) == 0 && S_ISDIR(st.st_mode))
		die(2, "%s: is a directory", out);
}

/* The format goes by the name: .xml or .isb, each maybe .gz or .zst;
 * any other name is written as XML, which a name like x.json hides. */
static void check_suffix(const char *out)
{
	size_t l = strlen(out) - strlen(compress_suffix(compress_of(out)));

	if (isb_path(out) || (l >= 4 && !memcmp(out + l - 4, ".xml", 4)))
		return;
	warnx("-o %s: not a trace's name (.xml or .isb, each maybe .gz or .zst): "
	      "writing XML%s", out, compress_of(out) != TC_NONE ? ", compressed" : "");
}

/* Records are spooled in memory (tmpfs) when we can: a spool on disk
 * would add the capture's own writeback to the I/O being measured. */
static const char *default_spool_parent(void)
{
	const char *env = getenv("ISLAND_SPOOL_DIR");

	if (env && *env)
		return env;
	if (access("/dev/shm", W_OK | X_OK) == 0)
		return "/dev/shm";
	env = getenv("TMPDIR");
	return env && *env ? env : "/tmp";
}

static double num_opt(const char *opt, const char *v, double lo, double hi)
{
	char *end;
	double d = strtod(v, &end);

	if (end == v || *end || !(d >= lo && d <= hi))
		die(2, "%s: '%s' is not a number in [%g, %g]", opt, v, lo, hi);
	return d;
}

/* Under a launcher (mpirun, srun...), this process's rank: Open MPI's,
 * PMIx's, MPICH's (hydra) or Slurm's variable; NULL elsewhere. */
static const char *mpi_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
					    "PMI_RANK", "SLURM_PROCID" };
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return v;
	}
	return NULL;
}

/* Under mpirun, may this rank's messages to ranks on its host go through
 * shared memory, with no call we see? Unless Open MPI is told to use
 * only other transports: the ob1 PML (UCX carries on-node messages in
 * shared memory too) with a BTL list naming no shared-memory one (vader;
 * sm and smcuda, its other names). A rank alone on its host has no such
 * peer. */
static const char *mpi_unseen(void)
{
	const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
	const char *btl = getenv("OMPI_MCA_btl"), *pml = getenv("OMPI_MCA_pml");

	if (!getenv("OMPI_COMM_WORLD_RANK") || (local && atoi(local) < 2))
		return NULL;
	if (!pml || strcmp(pml, "ob1") || !btl || btl[0] == '^')
		return "shared-memory";
	char list[256];
	snprintf(list, sizeof(list), ",%s,", btl);
	static const char *const shm[] = { ",vader,", ",sm,", ",smcuda," };
	for (size_t i = 0; i < sizeof(shm) / sizeof(shm[0]); i++)
		if (strstr(list, shm[i]))
			return "shared-memory";
	return NULL;
}

/* The watchdog's maximum: given, or from an unthrottled trace times the
 * factor (at least 1 ms: below that, scheduling noise looks like
 * blocking), or 0.1 s. */
static void watchdog_maxima(struct sess_opts *so, const char *from, double factor,
			    const char *node)
{
	if (from && so->max_gap < 0) {
		struct tr_node *nodes, *me;
		struct stat st;
		int nn;
		/* a directory of node traces: the ranks of one mpirun share
		 * the option, each finds its own trace there */
		if (stat(from, &st) == 0 && S_ISDIR(st.st_mode))
			from = xasprintf("%s/%s.xml", from, node);
		if (tr_scan(from, &nodes, &nn) < 0)
			exit(2);
		if (!(me = tr_find(nodes, nn, node)))
			die(2, "%s: no node '%s' in this trace", from, node);
		so->max_gap = (double)me->max_gap * factor / 1e9;
		tr_scan_free(nodes, nn);
	}
	if (so->max_gap < 0)
		so->max_gap = 0.1;
	if (so->max_gap < 0.001)
		so->max_gap = 0.001;
}

/* The spool goes with us however we leave (an error before the app ran
 * included), unless it holds records no trace was written from. */
static char *spool_dir;
static pid_t spool_owner;

static void spool_remove(void)
{
	if (spool_dir && getpid() == spool_owner)
		rm_tree(spool_dir);
}

/* Where a plain trace's parts go while streaming: beside it, on its file
 * system, where the kernel copies them into it (the spool's is memory,
 * and a plain part five times the spool's size) */
static char *parts_dir_of(const char *output)
{
	const char *slash = strrchr(output, '/');

	if (!slash)
		return xstrdup(".");
	return slash == output ? xstrdup("/") :
	       xasprintf("%.*s", (int)(slash - output), output);
}

/* Lines the interposer left for us (it does not write to the app's
 * stderr): each is printed once. */
static void print_warnings(const char *dir)
{
	char *path = xasprintf("%s/warnings", dir), line[512], last[512] = "";
	FILE *f = fopen(path, "r");

	free(path);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strcmp(line, last)) {
			fprintf(stderr, "island-capture: %s", line);
			strcpy(last, line);
		}
	fclose(f);
}

/* ISLAND_TEST_STREAM_TWIN=PATH: the run's trace also written from its
 * spool afresh (loaded, resolved and written at the end, as without
 * streaming, every call whole, none as the last one again), for the
 * tests to compare with the streamed one */
static void write_twin(const struct cap_node *n, const char *dir, const char *path)
{
	struct cap_node m = *n;

	/* what went in streamed, thread by thread (the tests ask) */
	for (int i = 0; i < n->nprocs; i++)
		for (int j = 0; j < n->procs[i].nthr; j++)
			warnx("streamed: pid %d tid %d: %llu records", (int)n->procs[i].pid,
			      (int)n->procs[i].thr[j].tid,
			      (unsigned long long)write_streamed(&n->procs[i].thr[j]));
	m.procs = NULL;
	m.nprocs = 0;
	m.procs_cap = 0;
	memset(&m.pids, 0, sizeof(m.pids));	/* n's */
	m.byp = NULL;
	m.made = NULL;
	m.objs = NULL;
	m.nobjs = 0;
	m.rsv = NULL;
	m.stream = NULL;
	m.lost_threads = m.unmapped_images = 0;
	m.reason = NULL;
	m.syscalls_seen = 0;
	m.whole = 1;
	if (spool_load(&m, dir) == 0) {
		resolve_node(&m);
		if (model_write(&m, path, compress_for(path, 0)) < 0)
			warnx("%s: cannot write the trace: %s", path, strerror(errno));
	}
	m.wpid = NULL;		/* n's */
	m.wstatus = NULL;
	m.wcpu = NULL;
	m.nwait = 0;
	spool_unload(&m);
	resolve_free(&m);
}

/*
 * The user's LD_PRELOAD is the app's (eatmydata, libfaketime, jemalloc,
 * a sanitizer's runtime), not ours: a capture whose fsyncs eatmydata
 * answered, whose clock libfaketime set, or which LeakSanitizer judged
 * at its exit, would not be the capture. We run again without it, kept
 * in ISLAND_APP_PRELOAD, and the app gets it back (launch.c, set_env).
 */
static void app_preload(char **argv)
{
	const char *pre = getenv("LD_PRELOAD");
	size_t n = 0;

	if (!pre || !*pre || getenv(ENV_APP_PRELOAD))
		return;
	while (environ[n])
		n++;
	/* in its place: the app's environment keeps its order */
	char **env = xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		env[i] = strncmp(environ[i], "LD_PRELOAD=", 11) ? environ[i] :
			 xasprintf("%s=%s", ENV_APP_PRELOAD, environ[i] + 11);
	execve("/proc/self/exe", argv, env);
	free(env);          /* no /proc: with it, as before */
}

#ifdef ISLAND_ASAN
#include <sys/mman.h>
#include <sys/syscall.h>

/*
 * ASAN=1: app_preload's exec, before ASan's start. That start, ahead of
 * main, allocates through the dynamic linker, and so with the allocator
 * the user preloads: jemalloc's first call (readlink) reached an
 * interceptor ASan had not set yet, a crash before main. ASan reads its
 * options first (common/util.c asks this): the same exec is made there,
 * of argv and the environment as the kernel has them, with raw system
 * calls only and no memory ASan checks (neither its interceptors nor its
 * shadow are there yet). Any failure: on as before, to app_preload.
 */
enum { EARLY_CAP = 4 << 20 };   /* argv's bytes, environ's, at most */

__attribute__((no_sanitize("address", "undefined")))
static long early_read(const char *path, char *buf)
{
	long fd = syscall(SYS_open, path, O_RDONLY | O_CLOEXEC), n = 0, r;

	if (fd < 0)
		return -1;
	while (n < EARLY_CAP && (r = syscall(SYS_read, fd, buf + n, EARLY_CAP - n)) > 0)
		n += r;
	syscall(SYS_close, fd);
	return r < 0 || n == EARLY_CAP ? -1 : n;
}

/* s after PREFIX when s starts with it, else NULL */
__attribute__((no_sanitize("address", "undefined")))
static char *early_after(char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return NULL;
	return s;
}

/* the strings of buf's n bytes (each ends in NUL) into v, NULL after */
__attribute__((no_sanitize("address", "undefined")))
static void early_split(char *buf, long n, char **v)
{
	for (long i = 0; i < n; i++)
		if (i == 0 || !buf[i - 1])
			*v++ = buf + i;
	*v = NULL;
}

void asan_first(void);
__attribute__((no_sanitize("address", "undefined")))
void asan_first(void)
{
	static const char name[] = ENV_APP_PRELOAD "=";
	/* argv's, environ's, their LD_PRELOAD renamed (each grows by less
	 * than its size), then as many pointers as bytes (a NUL a string) */
	long size = 4L * EARLY_CAP + 2L * (EARLY_CAP + 1) * (long)sizeof(char *);
	char *m = (char *)syscall(SYS_mmap, 0, size, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return;
	char *args = m, *envs = m + EARLY_CAP, *fixed = m + 2L * EARLY_CAP, *v;
	char **argv = (char **)(m + 4L * EARLY_CAP), **env = argv + EARLY_CAP + 1;
	long na = early_read("/proc/self/cmdline", args);
	long ne = na > 0 ? early_read("/proc/self/environ", envs) : -1;
	int pre = -1;           /* the first LD_PRELOAD's: not empty */
	if (ne > 0) {
		early_split(args, na, argv);
		early_split(envs, ne, env);
		for (char **e = env; *e; e++)
			if (early_after(*e, name))
				pre = 0;        /* run again so: as it is */
			else if (pre < 0 && (v = early_after(*e, "LD_PRELOAD=")))
				pre = *v != 0;
	}
	if (pre > 0) {
		/* in its place: the app's environment keeps its order */
		for (char **e = env; *e; e++) {
			if (!(v = early_after(*e, "LD_PRELOAD=")))
				continue;
			*e = fixed;
			for (const char *c = name; *c; c++)
				*fixed++ = *c;
			while ((*fixed++ = *v++))
				;
		}
		syscall(SYS_execve, "/proc/self/exe", argv, env);
	}
	syscall(SYS_munmap, m, size);
}
#endif

int main(int argc, char **argv)
{
	struct option lopts[NOPTS + 1];
	const char *node = NULL, *output = NULL, *output_dir = NULL, *clock_opt = "auto";
	const char *spool_parent = NULL;
	int gzip = 0, comp, verbose = 0, keep = 0, callsites = 0, c, code = 0;
	struct prof_opts po = { 0 };
	char host[256] = "localhost";
	struct cap_node n = { 0 };
	struct run_opts ro = { 0 };
	static struct runas user;
	struct restrictions rs = { .period = 0.01 }, cli = { 0 };
	const char *rfile = NULL;
	int any_cli = 0;
	struct sess_opts so = { .period = 1, .hold_timeout = 30, .max_gap = -1 };
	const char *key_file = NULL;
	const char *recover_spool = NULL;
	int recover = 0, recover_list = 0;
	const char *wd_from = NULL, *cluster = NULL, *throttle_nodes = NULL;
	double wd_factor = 2, cl_timeout = 600;
	int discover = 0, cleanup = 0, server = 0, max_passes = 0, one_by_one = 0;
	const char *passes_dir = NULL;
	struct netcap_opts nco = { 0 };

	progname = "island-capture";
	app_preload(argv);
	zstd_input_register();	/* .zst traces read like any other */
	check_stdout_at_exit();
	for (size_t i = 0; i < NOPTS; i++)
		lopts[i] = (struct option){ optdescs[i].name, optdescs[i].has_arg,
					    NULL, optdescs[i].val };
	memset(&lopts[NOPTS], 0, sizeof(lopts[0]));
	struct given *given = xcalloc((size_t)argc, sizeof(*given));
	int ngiven = 0;

	opterr = 0;		/* bad_option() says it, in one line */
	while ((c = getopt_long(argc, argv, "+:n:o:zvhV", lopts, NULL)) != -1) {
		given[ngiven++] = (struct given){ c, optarg };
		switch (c) {
		case 'n': node = optarg; break;
		case 'o': output = optarg; break;
		case OPT_OUTPUT_DIR: output_dir = optarg; break;
		case 'z': gzip = 1; break;
		case 'v': verbose = 1; break;
		case OPT_CLOCK: clock_opt = optarg; break;
		case OPT_SPOOL_DIR: spool_parent = optarg; break;
		case OPT_KEEP_SPOOL: keep = 1; break;
		case OPT_CALLSITES: callsites = 1; break;
		case OPT_PROFILE: prof_option(&po, PO_PROFILE, optarg); break;
		case OPT_SAMPLE_HZ: prof_option(&po, PO_HZ, optarg); break;
		case OPT_SAMPLE_ALLOC: prof_option(&po, PO_ALLOC, optarg); break;
		case OPT_STACK_DEPTH: prof_option(&po, PO_DEPTH, optarg); break;
		case OPT_PROFILE_START: prof_option(&po, PO_START, optarg); break;
		case OPT_PROFILE_SAVE: prof_option(&po, PO_SAVE, optarg); break;
		case OPT_CONTROL:
			if (optind >= argc)
				die(2, "--control PID on|off: say on or off");
			return prof_control(optarg, argv[optind]);
		case OPT_SYSCALLS: ro.syscalls = 1; n.syscalls = 1; break;
		case OPT_CPU: restrict_set(&cli, "cpu", optarg, NULL, 0); any_cli = 1; break;
		case OPT_FILEREAD: restrict_set(&cli, "fileread", optarg, NULL, 0); any_cli = 1; break;
		case OPT_FILEWRITE: restrict_set(&cli, "filewrite", optarg, NULL, 0); any_cli = 1; break;
		case OPT_NETSEND: restrict_set(&cli, "netsend", optarg, NULL, 0); any_cli = 1; break;
		case OPT_NETRECV: restrict_set(&cli, "netrecv", optarg, NULL, 0); any_cli = 1; break;
		case OPT_RESTRICTIONS: rfile = optarg; break;
		case OPT_SESSION: so.name = optarg; break;
		case OPT_KEY_FILE: key_file = optarg; break;
		case OPT_RECOVER:
			recover = 1;
			if (optind < argc && argv[optind][0] != '-')
				recover_spool = argv[optind++];
			break;
		case OPT_LIST: recover_list = 1; break;
		case OPT_SESSION_NODES: so.nodes = (int)num_opt("--session-nodes", optarg, 1, SESS_NODES); break;
		case OPT_SESSION_DIR: {
			char *abs = realpath(optarg, NULL);
			if (!abs)
				die(2, "--session-dir %s:", optarg);
			session_dir = abs;
			break;
		}
		case OPT_THROTTLE: so.throttle = optarg; break;
		case OPT_PERIOD: so.period = (int)num_opt("--period", optarg, 1, 1e6); break;
		case OPT_DELAY: so.delay = num_opt("--delay", optarg, 0, 1e6) / 1000; break;
		case OPT_HOLD_TIMEOUT: so.hold_timeout = num_opt("--hold-timeout", optarg, 0.001, 1e6); break;
		case OPT_WATCHDOG_FROM: wd_from = optarg; break;
		case OPT_WATCHDOG_FACTOR: wd_factor = num_opt("--watchdog-factor", optarg, 1, 1e6); break;
		case OPT_WATCHDOG:
			so.max_gap = num_opt("--watchdog", optarg, 0.0001, 1e6);
			break;
		case OPT_CLUSTER: cluster = optarg; break;
		case OPT_DISCOVER: discover = 1; break;
		case OPT_THROTTLE_NODES: throttle_nodes = optarg; break;
		case OPT_PASSES: max_passes = (int)num_opt("--passes", optarg, 1, 1e6); break;
		case OPT_ONE_BY_ONE: one_by_one = 1; break;
		case OPT_TIMEOUT: cl_timeout = num_opt("--timeout", optarg, 0.1, 1e7); break;
		case OPT_PASSES_DIR: passes_dir = optarg; break;
		case OPT_PCAP:
			nco.enabled = 1;
			/* --pcap IFACE: an optional argument that may stand apart,
			 * unless it is the program's name (options end there) */
			if (optarg)
				nco.iface = optarg;
			else if (optind < argc && argv[optind][0] != '-' &&
				 optind + 1 < argc && is_iface(argv[optind]))
				nco.iface = argv[optind++];
			break;
		case OPT_PCAP_OPTIONAL: nco.optional = 1; break;
		case OPT_CLEANUP: cleanup = 1; break;
		case OPT_SERVER: server = 1; break;
		case OPT_USER: runas_lookup(&user, optarg); ro.user = &user; break;
		case OPT_MAX_SIZE: ro.max_size = budget_size("--max-size", optarg); break;
		case OPT_CPU_PERIOD: {
			char *end;
			rs.period = strtod(optarg, &end);
			if (*end || end == optarg || !(rs.period >= 0.001 && rs.period <= 10))
				die(2, "--cpu-period: '%s' is not a number of seconds in [0.001, 10]", optarg);
			break;
		}
		case 'h': usage(stdout); return 0;
		case 'V': printf("island-capture %s\n", ISLAND_VERSION); return 0;
		default:
			bad_option_hint(argv, c, lopts);
		}
	}
	if (cleanup) {
		if (optind < argc || cluster)
			die(2, "--cleanup runs no program");
		return cleanup_leftovers();
	}
	/* checked before a cluster's nodes run too; the file first, the
	 * command line over it */
	if (rfile)
		restrict_load(&rs, rfile);
	if (cli.cpu > 0)
		rs.cpu = cli.cpu;
	for (int i = 0; i < LIM_N; i++)
		if (cli.rate[i] > 0)
			rs.rate[i] = cli.rate[i];
	(void)any_cli;
	if (rs.cpu > 0 || restrict_any_rate(&rs)) {
		ro.rs = &rs;
		n.rs = &rs;
	}
	if (!strcmp(clock_opt, "auto"))
		ro.clock_kind = clock_tsc_usable() ? CLOCK_KIND_TSC : CLOCK_KIND_MONO;
	else if (!strcmp(clock_opt, "tsc"))
		ro.clock_kind = CLOCK_KIND_TSC;
	else if (!strcmp(clock_opt, "monotonic") || !strcmp(clock_opt, "mono"))
		ro.clock_kind = CLOCK_KIND_MONO;
	else
		die(2, "--clock: unknown clock '%s' (tsc, monotonic, auto)", clock_opt);
	if (cluster) {
		prof_finish(&po, 1);	/* checked, and a set saved, once */
		struct cluster_opts co = {
			.file = cluster, .output = output, .discover = discover,
			.throttle_nodes = throttle_nodes, .period = so.period,
			.max_passes = max_passes, .one_by_one = one_by_one,
			.delay = so.delay, .hold_timeout = so.hold_timeout,
			.factor = wd_factor, .gzip = gzip, .self = self_exe(),
			.timeout = cl_timeout, .keep = keep, .passes_dir = passes_dir,
			.pcap = nco.enabled, .pcap_optional = nco.optional, .pcap_iface = nco.iface,
			.node_args = cluster_node_args(given, ngiven, &po),
		};
		if (optind < argc)
			die(2, "--cluster runs the cluster file's commands: no program expected");
		return cluster_run(&co);
	}
	if (discover)
		die(2, "--discover needs --cluster FILE");
	/* a node of a cluster run: the runner merges our trace, from a
	 * directory the user may never see; messages name the node */
	const char *in_cluster = getenv(ENV_CLUSTER_RUNNER);
	if (in_cluster) {
		in_cluster = xstrdup(in_cluster);
		unsetenv(ENV_CLUSTER_RUNNER);
	}
	if (recover_list && !recover)
		die(2, "--list needs --recover");
	if (recover) {
		if (optind < argc)
			die(2, "--recover writes a spool's trace: no program expected");
		if (!recover_list && !output)
			die(2, "--recover needs -o FILE");
		if (output) {
			check_output(output);
			claim_output(output);
		}
		return recover_main(recover_spool, spool_parent ? spool_parent : default_spool_parent(),
				    recover_list, output, output ? compress_for(output, gzip) : 0);
	}
	if (prof_finish(&po, optind < argc))
		return 0;		/* --profile-save alone */
	if (optind >= argc) {
		die(2, "no program to run (try --help)");
	}

	gethostname(host, sizeof(host) - 1);
	/* Under a launcher every rank is a node of its own: in a session
	 * rankR, or else NODE.rankR (NODE the host or -n), whose trace is
	 * NODE.rankR.xml, never one name for all ranks */
	const char *rank = mpi_rank();
	if (!node && so.name && rank)
		node = xasprintf("rank%s", rank);
	else if (rank && !so.name)
		node = xasprintf("%s.rank%s", node ? node : host, rank);
	if (!node)
		node = host;
	if (!*node || strchr(node, '/'))
		die(2, "-n: '%s' is not a usable node name", node);
	if (output && output_dir)
		die(2, "-o and --output-dir: give one of them");
	if (!output)
		output = xasprintf("%s%s%s.xml%s", output_dir ? output_dir : "",
				   output_dir ? "/" : "", node, gzip ? ".gz" : "");
	const char *label = in_cluster ? xasprintf("node %s", node) : output;
	comp = compress_for(output, gzip);
	check_program(argv[optind]);
	check_output(output);
	check_suffix(output);
	claim_output(output);

	if (!spool_parent)
		spool_parent = default_spool_parent();
	char *spool = xasprintf("%s/island-spool.XXXXXX", spool_parent);
	if (!mkdtemp(spool))
		die(2, "%s: cannot create the spool directory:", spool);
	char *abs = realpath(spool, NULL);
	if (!abs) {
		rmdir(spool);
		die(2, "%s:", spool);
	}
	spool_dir = abs;
	spool_owner = getpid();
	atexit(spool_remove);
	if (callsites) {	/* the interposer looks for this file */
		char *cs = xasprintf("%s/%s", abs, CALLSITES_FILE);
		int fd = open(cs, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

		if (fd < 0 || close(fd) < 0)
			die(2, "%s:", cs);
		free(cs);
		n.callsites = 1;
	}
	if (po.enabled) {
		n.profile_ctl = prof_page(&po, abs);
		n.profile = po.values;
		n.profile_hz = po.hz;
		n.profile_alloc = po.alloc_every;
	}

	struct session *sess = NULL;
	struct agent agent = { 0 };
	int sidx = -1;
	if (so.name) {
		watchdog_maxima(&so, wd_from, wd_factor, node);
		if (strchr(so.name, ':'))
			agent_key(&agent, key_file);
		/* joined on the file at the path, checked after the join: a
		 * node leaving last may unlink the file we had just opened */
		for (int tries = 0;; tries++) {
			int lk, cur;

			if (!(sess = session_open(so.name, 1, 0)))
				return 2;
			/* no leave's unlink between our join and its check */
			lk = session_lock(so.name, LOCK_SH);
			if ((sidx = session_join(sess, node, &so)) < 0) {
				session_unlock(lk);
				return 2;
			}
			cur = session_current(sess, so.name);
			session_unlock(lk);
			if (cur)
				break;
			session_unjoin(sess, sidx);
			session_close(sess);
			if (tries == 100)
				die(2, "session '%s': its file keeps being removed", so.name);
		}
		ro.session = session_path(so.name);
		ro.session_idx = sidx;
		if (strchr(so.name, ':') && agent_start(&agent, so.name, sess, sidx) < 0) {
			session_leave(sess, sidx, so.name);
			return 2;
		}
	} else if (so.throttle || wd_from) {
		die(2, "--throttle and --watchdog-from need --session");
	}
	if (key_file && !(so.name && strchr(so.name, ':')))
		die(2, "--key-file needs --session HOST:PORT");
	if (nco.enabled) {
		size_t l = strlen(output) - strlen(compress_suffix(compress_of(output)));
		const char *dot = memrchr(output, '.', l);
		if (dot && (size_t)(output + l - dot) == 4 && !strncmp(dot, ".xml", 4))
			nco.path = xasprintf("%.*s.pcap", (int)(dot - output), output);
		else
			nco.path = xasprintf("%s.pcap", output);
		ro.netcap = &nco;
	}
	ro.argv = argv + optind;
	ro.lib = capture_lib = find_lib();
	ro.mpi_lib = ro.syscalls ? NULL : find_mpi_lib(ro.lib);
	if (ro.syscalls) {
		/* a static program is started by island-loader, beside the
		 * interposer */
		char *prog = capture_prog = program_path(argv[optind]);
		char *dir = xstrdup(ro.lib);
		*strrchr(dir, '/') = 0;
		ro.loader = xasprintf("%s/island-loader", dir);
		free(dir);
		if (access(ro.loader, X_OK) < 0)
			die(2, "%s:", ro.loader);
		/* every ELF program starts under it: a static one has no
		 * other way in, a dynamic one gets its loader's calls seen */
		if (prog && is_elf(prog))
			ro.target = prog;
		else if (prog)
			script_target(&ro, prog);
	}
	ro.spool = abs;
	ro.output = output;
	/* the trace written while the app runs (writer/stream.c says what
	 * is not); ISLAND_STREAM=0: all of it at the end */
	const char *sv = getenv("ISLAND_STREAM");
	ro.stream = !sess && !callsites && !po.enabled && !ro.mpi_lib &&
		    !(sv && !strcmp(sv, "0"));
	ro.parts = comp != TC_NONE ? abs : parts_dir_of(output);
	ro.comp = comp;
	ro.isb = isb_path(output);
	if (in_cluster)
		ro.group_signaller = (pid_t)atol(in_cluster);
	n.name = node;
	n.server = server;
	n.unseen = mpi_unseen();
	n.mpi_rank = rank ? atoi(rank) : -1;
	n.host = host;
	n.argv = argv + optind;
	n.argc = argc - optind;
	if (run_app(&ro, &n, &code) < 0) {
		if (sess)
			session_leave(sess, sidx, so.name);
		return code;
	}
	if (sess) {
		if (agent.s) {       /* tell the other hosts, hear the last news */
			sess->node[sidx].state = SN_EXITED;
			agent_stop(&agent);
			n.has_clock_offset = agent.answers > 0;
			n.clock_offset = agent.offset;
			if (!agent.answers)
				warnx("%s: the coordinator answered no clock probe: the node's "
				      "times are on its own host's clock", node);
		}
		/* stopped by a cluster runner: from when it sent the
		 * SIGTERM, which reached the app with us (on a loaded
		 * machine the app may have logged its shutdown before our
		 * handler ran) */
		int64_t stop_at = sess->node[sidx].stop_at;
		if (n.has_stopped && stop_at > 0 && stop_at - n.clk.mono0 < n.stopped)
			n.stopped = stop_at - n.clk.mono0;
		session_deps(sess, sidx, &n);
		session_leave(sess, sidx, so.name);
		session_close(sess);
	}

	print_warnings(abs);
	if (n.stream ? stream_finish(n.stream) : spool_load(&n, abs)) {
		warnx("the records are kept in %s", abs);
		spool_dir = NULL;
		return code ? code : 1;
	}
	resolve_node(&n);
	if (n.max_size_hit) {
		n.complete = 0;
		n.reason = "max-size";
	}
	/* (the twin tells what streaming took while the app ran) */
	if (getenv("ISLAND_TEST_STREAM_TWIN"))
		write_twin(&n, abs, getenv("ISLAND_TEST_STREAM_TWIN"));
	if (n.stream)
		stream_end(n.stream);	/* the rest into the parts, on every CPU */
	n.stream = NULL;
	int wrote = model_write(&n, output, comp), werr = errno;
	for (int i = 0; i < n.nprocs; i++)	/* the parts: in it or not at all */
		for (int j = 0; j < n.procs[i].nthr; j++)
			write_stream_free(&n.procs[i].thr[j]);
	errno = werr;
	if (wrote < 0) {
		/* a full disk must not cost the records: one line, spool kept */
		warnx("%s: cannot write the trace: %s; the records are kept in %s",
		      output, strerror(errno), abs);
		spool_dir = NULL;
		return code ? code : 1;
	}
	if (verbose) {
		long threads = 0;
		for (int i = 0; i < n.nprocs; i++)
			threads += n.procs[i].nthr;
		warnx("%s: %d processes, %ld threads -> %s%s", node, n.nprocs,
		      threads, in_cluster ? "the cluster's trace" : output,
		      n.complete ? "" : " (incomplete)");
	}
	if (!n.nprocs && !n.unmapped_images)
		warnx("%s: nothing was recorded: is %s statically linked? (the capture "
		      "interposes on libc's dynamic symbols; --syscalls records static "
		      "programs)", label, argv[optind]);
	uint64_t lost = 0;
	for (int i = 0; i < n.nprocs; i++)
		for (int j = 0; j < n.procs[i].nthr; j++)
			lost += n.procs[i].thr[j].lost;
	if (lost)
		warnx("%s: %llu records lost: the spool directory %s filled up, or the "
		      "spool its limit of %llu MiB (half the space free there at the start; "
		      "choose another with --spool-dir); the trace is marked incomplete",
		      label, (unsigned long long)lost, spool_parent,
		      (unsigned long long)(n.spool_span >> 20));
	if (n.unmapped_images)
		warnx("%s: %llu process images were not recorded: they could not map the "
		      "capture's arena (a limit of address space, ulimit -v?); the trace is "
		      "marked incomplete", label, (unsigned long long)n.unmapped_images);
	if (n.lost_threads)
		warnx("%s: %llu threads were not recorded: the spool had no room for them "
		      "(the spool directory %s full, or the spool at its limit of %llu MiB, "
		      "half the space free there at the start: choose another with "
		      "--spool-dir); the trace is marked incomplete", label,
		      (unsigned long long)n.lost_threads, spool_parent,
		      (unsigned long long)(n.spool_span >> 20));
	int killed = 0;
	for (int i = 0; i < n.nprocs; i++) {
		if (n.procs[i].reason)
			warnx("%s: process %d is incomplete: %s", label,
			      (int)n.procs[i].pid, n.procs[i].reason);
		for (int j = 0; j < n.procs[i].nthr; j++)
			if (!n.procs[i].thr[j].complete)
				killed = 1;
	}
	if (killed)
		warnx("%s: some processes were killed; the trace is marked incomplete",
		      label);
	spool_unload(&n);
	resolve_free(&n);
	if (n.stops) {
		stoplog_free(n.stops);
		free(n.stops);
	}
	if (keep) {
		spool_dir = NULL;
		warnx("spool kept in %s", abs);
	}
	return code;
}
