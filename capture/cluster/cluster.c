/*
 * The cluster runner. A cluster file lists the nodes of a multi-node
 * application; each pass runs every node under its own island-capture
 * (the same binary, --session), optionally each in its own network
 * namespace joined to the others by a bridge, waits for all of them with
 * a timeout, and leaves no process, namespace or session file behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "capture.h"
#include "cluster.h"
#include "capture/discover/discover.h"
#include "cluster_names.h"
#include "netns.h"
#include "capture/run/run.h"
#include "capture/session/session.h"
#include "util.h"

struct cnode {
	char *name, *cwd, *address;  /* address "10.x.y.z/len" with a namespace */
	int netns;
	char **argv;                 /* before substitution */
	int argc;
	char **env;                  /* "NAME=VALUE" before substitution */
	int nenv;
	char **restr;                /* "--RESOURCE", "VALUE" pairs for its capture */
	int nrestr;
	long line;
	int server;                  /* role="server": stopped once the others exit */
	char *user;                  /* user="NAME": its app runs as NAME */
	struct runas runas;
	int job;                     /* <mpi>: its rank0's index (one mpirun), or -1 */
	int np;                      /* <mpi>, on rank0: the number of ranks */
	/* per pass */
	pid_t pid;
	int status;
	double max_gap;              /* watchdog maximum, s */
};

struct cluster {
	const char *file;
	char *dir;                   /* the cluster file's directory */
	struct cnode *nodes;
	int n;
	char *tag;                   /* the runner's pid: session and netns names */
	long owner;                  /* the runner's pid */
	int have_netns;
	int nodes_up, bridge_up;     /* namespaces made so far, for the cleanup */
};

/* What the cluster file names goes into file names, session names and
 * `ip` arguments: letters, digits, '_', '-' and '.', not first. */
static int safe_name(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (!n || n > max || s[0] == '-' || s[0] == '.')
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_-.") == n;
}

static int env_name(const char *s)
{
	size_t n = strlen(s);

	return n && n <= 128 && !(s[0] >= '0' && s[0] <= '9') &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_") == n;
}

/* "A.B.C.D/LEN", LEN in [8, 30], and nothing else. */
static int ipv4_prefix(const char *s)
{
	const char *slash = strchr(s, '/');
	char ip[INET_ADDRSTRLEN];
	struct in_addr a;
	size_t l = slash ? (size_t)(slash - s) : 0, d;

	if (!slash || l >= sizeof(ip))
		return 0;
	memcpy(ip, s, l);
	ip[l] = 0;
	d = strspn(slash + 1, "0123456789");
	if (inet_pton(AF_INET, ip, &a) != 1 || !d || d > 2 || slash[1 + d])
		return 0;
	int len = atoi(slash + 1);
	return len >= 8 && len <= 30;
}

static char *prop(xmlNodePtr e, const char *name)
{
	xmlChar *v = xmlGetProp(e, (const xmlChar *)name);
	char *s = v ? xstrdup((char *)v) : NULL;

	xmlFree(v);
	return s;
}

static int is(xmlNodePtr e, const char *name)
{
	return e->type == XML_ELEMENT_NODE && !strcmp((const char *)e->name, name);
}

/* <arg>, <env> and <restrict> of a <node> or an <mpi> job. */
static void load_command(const char *file, xmlNodePtr e, struct cnode *n)
{
	for (xmlNodePtr a = e->children; a; a = a->next) {
		if (a->type != XML_ELEMENT_NODE)
			continue;
		if (is(a, "arg")) {
			xmlChar *t = xmlNodeGetContent(a);
			n->argv = xrealloc(n->argv, sizeof(char *) * (size_t)(n->argc + 2));
			n->argv[n->argc++] = xstrdup((char *)t);
			n->argv[n->argc] = NULL;
			xmlFree(t);
		} else if (is(a, "env")) {
			char *k = prop(a, "name"), *v = prop(a, "value");
			if (!k || !v)
				die_at(2, file, xmlGetLineNo(a), "<env> needs name and value");
			if (!env_name(k))
				die_at(2, file, xmlGetLineNo(a), "<env name=\"%s\">: letters, "
				       "digits and '_', not a digit first", k);
			n->env = xrealloc(n->env, sizeof(char *) * (size_t)(n->nenv + 1));
			n->env[n->nenv++] = xasprintf("%s=%s", k, v);
			free(k);
			free(v);
		} else if (is(a, "restrict")) {
			char *k = prop(a, "resource"), *v = prop(a, "value");
			struct restrictions check = { 0 };
			if (!k || !v)
				die_at(2, file, xmlGetLineNo(a),
				       "<restrict> needs resource and value");
			restrict_set(&check, k, v, file, xmlGetLineNo(a));
			n->restr = xrealloc(n->restr, sizeof(char *) * (size_t)(n->nrestr + 2));
			n->restr[n->nrestr++] = xasprintf("--%s", k);
			n->restr[n->nrestr++] = v;
			free(k);
		} else {
			die_at(2, file, xmlGetLineNo(a),
			       "unexpected <%s> in <%s> (arg, env, restrict)", a->name, e->name);
		}
	}
}

/* user="NAME": the node's app runs as NAME (its capture stays ours,
 * --user), and the pass's directories are opened to NAME (runas.c) */
static void node_user(const char *file, struct cnode *n, xmlNodePtr e)
{
	n->user = prop(e, "user");
	if (!n->user)
		return;
	if (!safe_name(n->user, 32) || !getpwnam(n->user))
		die_at(2, file, n->line, "node '%s': user=\"%s\" is no user of this host",
		       n->name, n->user);
	if (geteuid() != 0)
		die_at(2, file, n->line, "node '%s': user=\"%s\" needs the runner to be root",
		       n->name, n->user);
	runas_lookup(&n->runas, n->user);
}

static struct cnode *add_node(struct cluster *c, xmlNodePtr e)
{
	c->nodes = xrealloc(c->nodes, sizeof(*c->nodes) * (size_t)(c->n + 1));
	struct cnode *n = &c->nodes[c->n++];
	memset(n, 0, sizeof(*n));
	n->line = xmlGetLineNo(e);
	n->job = -1;
	return n;
}

/*
 * <mpi np="N" cwd="DIR"> <arg>...</arg> <env .../> </mpi>: an Open MPI job,
 * run as one `mpirun -n N island-capture ... -- COMMAND` in every pass; its
 * ranks are the nodes rank0 .. rankN-1 (each rank's capture names itself
 * after OMPI_COMM_WORLD_RANK).
 */
static void load_mpi(struct cluster *c, const char *file, xmlNodePtr e)
{
	char *np = prop(e, "np"), *end = NULL;
	long k = np ? strtol(np, &end, 10) : 0;
	long line = xmlGetLineNo(e);

	if (!np || !*np || *end || k < 1 || k > SESS_NODES)
		die_at(2, file, line, "<mpi np=\"%s\">: the number of ranks, 1 to %d",
		       np ? np : "", SESS_NODES);
	free(np);
	for (xmlAttrPtr a = e->properties; a; a = a->next)
		if (strcmp((const char *)a->name, "np") && strcmp((const char *)a->name, "cwd"))
			die_at(2, file, line, "<mpi %s=...>: unknown attribute (np, cwd)", a->name);
	int first = c->n;
	struct cnode *r0 = add_node(c, e);
	r0->cwd = prop(e, "cwd");
	load_command(file, e, r0);
	if (!r0->argc)
		die_at(2, file, line, "<mpi> has no <arg> (the ranks' command)");
	for (long r = 1; r < k; r++) {
		struct cnode *n = add_node(c, e);
		*n = c->nodes[first];    /* the same command: one mpirun */
	}
	for (long r = 0; r < k; r++) {
		struct cnode *n = &c->nodes[first + r];
		n->name = xasprintf("rank%ld", r);
		n->job = first;
		n->np = r ? 0 : (int)k;
	}
}

static void load(struct cluster *c, const char *file)
{
	xmlDocPtr doc = xmlReadFile(file, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
				    XML_PARSE_NOWARNING);
	xmlNodePtr root;
	char *copy = xstrdup(file);

	c->file = file;
	c->dir = xstrdup(dirname(copy));
	free(copy);
	if (!doc) {
		const xmlError *err = xmlGetLastError();
		die_at(2, file, err ? err->line : 0, "not a well-formed cluster file%s%s",
		       err && err->message ? ": " : "",
		       err && err->message ? strtok(err->message, "\n") : "");
	}
	root = xmlDocGetRootElement(doc);
	char *ver = root ? prop(root, "version") : NULL;
	if (!root || !is(root, "cluster"))
		die_at(2, file, root ? xmlGetLineNo(root) : 1, "the root element is not <cluster>");
	if (!ver || strcmp(ver, "1"))
		die_at(2, file, xmlGetLineNo(root), "cluster version '%s' is not supported (1)",
		       ver ? ver : "");
	free(ver);
	cluster_check_names(file, root);	/* a typo is no default */
	for (xmlNodePtr e = root->children; e; e = e->next) {
		if (e->type != XML_ELEMENT_NODE)
			continue;
		if (is(e, "mpi")) {
			for (int i = 0; i < c->n; i++)
				if (c->nodes[i].job >= 0)
					die_at(2, file, xmlGetLineNo(e), "a second <mpi>: one job "
					       "per cluster (its ranks are rank0, rank1...)");
			load_mpi(c, file, e);
			continue;
		}
		if (!is(e, "node"))
			die_at(2, file, xmlGetLineNo(e), "unexpected <%s> (expected <node> or <mpi>)",
			       e->name);
		struct cnode *n = add_node(c, e);
		n->name = prop(e, "name");
		n->cwd = prop(e, "cwd");
		n->address = prop(e, "address");
		char *role = prop(e, "role");
		if (role && strcmp(role, "server") && strcmp(role, "client"))
			die_at(2, file, n->line, "role=\"%s\": server or client", role);
		n->server = role && !strcmp(role, "server");
		free(role);
		char *ns = prop(e, "netns");
		n->netns = ns && (!strcmp(ns, "yes") || !strcmp(ns, "true"));
		if (ns && !n->netns && strcmp(ns, "no") && strcmp(ns, "false"))
			die_at(2, file, n->line, "netns=\"%s\": yes or no", ns);
		free(ns);
		if (!n->name || !safe_name(n->name, 32))
			die_at(2, file, n->line, "node name \"%s\": 1 to 32 letters, digits, "
			       "'_', '-' or '.' (not first)", n->name ? n->name : "");
		if (n->address && !ipv4_prefix(n->address))
			die_at(2, file, n->line, "node '%s': address \"%s\" is not A.B.C.D/LEN "
			       "(LEN 8 to 30)", n->name, n->address);
		if (n->netns && !n->address)
			die_at(2, file, n->line, "node '%s': netns needs address=\"A.B.C.D/LEN\"",
			       n->name);
		c->have_netns |= n->netns;
		node_user(file, n, e);
		load_command(file, e, n);
		if (!n->argc)
			die_at(2, file, n->line, "node '%s' has no <arg> (its command)", n->name);
	}
	if (!c->n)
		die_at(2, file, xmlGetLineNo(root), "no <node> in the cluster");
	for (int i = 0; i < c->n; i++)
		for (int k = 0; k < i; k++)
			if (!strcmp(c->nodes[i].name, c->nodes[k].name))
				die_at(2, file, c->nodes[i].line, "node '%s' is listed twice%s",
				       c->nodes[i].name, c->nodes[i].job >= 0 ||
				       c->nodes[k].job >= 0 ? " (an <mpi> job's ranks are rank0, "
				       "rank1...)" : "");
	int clients = 0;
	for (int i = 0; i < c->n; i++)
		clients += !c->nodes[i].server;
	if (!clients)
		die_at(2, file, xmlGetLineNo(root), "every node is a server: nothing would "
		       "ever stop them (role=\"server\" nodes are stopped once the others exit)");
	if (c->n > SESS_NODES)
		die_at(2, file, xmlGetLineNo(root), "more than %d nodes", SESS_NODES);
	xmlFreeDoc(doc);
}

/* --- variables: ${NODE} ${INDEX} ${NNODES} ${PORT} ${SCRATCH} ${DIR}
 *     ${ADDR:name} (the node's address, 127.0.0.1 without a namespace) */

static const char *addr_of(struct cluster *c, const char *name, size_t len)
{
	static char ip[64];

	for (int i = 0; i < c->n; i++)
		if (strlen(c->nodes[i].name) == len && !strncmp(c->nodes[i].name, name, len)) {
			if (!c->nodes[i].netns)
				return "127.0.0.1";
			sscanf(c->nodes[i].address, "%63[0-9.]", ip);
			return ip;
		}
	return NULL;
}

static char *subst(struct cluster *c, struct pass *p, int idx, const char *in)
{
	size_t cap = strlen(in) + 256, n = 0;
	char *out = xmalloc(cap);

	for (const char *s = in; *s;) {
		char val[4096];
		const char *v = NULL;
		if (s[0] == '$' && s[1] == '{') {
			const char *end = strchr(s, '}');
			if (!end)
				die_at(2, c->file, c->nodes[idx].line, "unterminated ${ in '%s'", in);
			size_t k = (size_t)(end - s - 2);
			const char *name = s + 2;
			if (c->nodes[idx].job >= 0 && ((k == 4 && !strncmp(name, "NODE", 4)) ||
						      (k == 5 && !strncmp(name, "INDEX", 5))))
				die_at(2, c->file, c->nodes[idx].line, "'%.*s' in <mpi>: every rank "
				       "runs one command (take the rank from MPI)", (int)k + 3, s);
			if (k == 4 && !strncmp(name, "NODE", 4))
				v = c->nodes[idx].name;
			else if (k == 5 && !strncmp(name, "INDEX", 5))
				snprintf(val, sizeof(val), "%d", idx), v = val;
			else if (k == 6 && !strncmp(name, "NNODES", 6))
				snprintf(val, sizeof(val), "%d", c->n), v = val;
			else if (k == 4 && !strncmp(name, "PORT", 4))
				snprintf(val, sizeof(val), "%d", p->port), v = val;
			else if (k == 7 && !strncmp(name, "SCRATCH", 7))
				v = p->scratch;
			else if (k == 3 && !strncmp(name, "DIR", 3))
				v = c->dir;
			else if (k > 5 && !strncmp(name, "ADDR:", 5))
				v = addr_of(c, name + 5, k - 5);
			if (!v)
				die_at(2, c->file, c->nodes[idx].line, "unknown variable '%.*s'",
				       (int)k + 3, s);
			s = end + 1;
		} else {
			val[0] = *s++;
			val[1] = 0;
			v = val;
		}
		size_t l = strlen(v);
		if (n + l + 1 > cap) {
			cap = (n + l + 1) * 2;
			out = xrealloc(out, cap);
		}
		memcpy(out + n, v, l);
		n += l;
	}
	out[n] = 0;
	return out;
}

/* Every variable known, before anything runs. */
static void check_vars(struct cluster *c)
{
	struct pass dry = { .name = "check", .scratch = "/", .port = 1 };

	for (int i = 0; i < c->n; i++) {
		struct cnode *n = &c->nodes[i];
		for (int a = 0; a < n->argc; a++)
			free(subst(c, &dry, i, n->argv[a]));
		for (int e = 0; e < n->nenv; e++)
			free(subst(c, &dry, i, n->env[e]));
		if (n->cwd)
			free(subst(c, &dry, i, n->cwd));
	}
}

/* A free TCP port on loopback for this pass (the app binds it later). */
static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t l = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM, 0), port = 0;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s >= 0 && bind(s, (void *)&a, sizeof(a)) == 0 &&
	    getsockname(s, (void *)&a, &l) == 0)
		port = ntohs(a.sin_port);
	if (s >= 0)
		close(s);
	return port ? port : 20000 + (getpid() % 20000);
}

/* --- network namespaces (netns.c) -------------------------------------- */

static void cluster_netns_down(struct cluster *c)
{
	for (int i = 0; i < c->nodes_up; i++)
		if (c->nodes[i].netns)
			netns_node_down(c->owner, i);
	c->nodes_up = 0;
	if (c->bridge_up)
		netns_bridge_down(c->owner);
	c->bridge_up = 0;
}

static int cluster_netns_up(struct cluster *c)
{
	c->bridge_up = 1;            /* a half-made bridge is removed too */
	if (netns_bridge_up(c->owner) < 0)
		return -1;
	for (int i = 0; i < c->n; i++) {
		struct cnode *n = &c->nodes[i];
		c->nodes_up = i + 1;
		if (n->netns && netns_node_up(c->owner, i, n->address) < 0) {
			warnx("node '%s': no network namespace", n->name);
			return -1;
		}
	}
	return 0;
}

/* --- one pass ------------------------------------------------------------ */

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static void kill_all(struct cluster *c, int sig)
{
	for (int i = 0; i < c->n; i++)
		if (c->nodes[i].pid > 0)
			kill(-c->nodes[i].pid, sig);
}

/* SIGTERM first, so that each node's island-capture can stop its app,
 * write what it has and clean its spool; SIGKILL for what is left. */
static void stop_all(struct cluster *c)
{
	int64_t until = now_ns() + 2000000000;
	int left = 0;

	kill_all(c, SIGTERM);
	for (int i = 0; i < c->n; i++)
		left += c->nodes[i].status < 0;
	while (left && now_ns() < until) {
		pid_t w = waitpid(-1, NULL, WNOHANG);
		for (int i = 0; w > 0 && i < c->n; i++)
			if (c->nodes[i].pid == w && c->nodes[i].status < 0) {
				c->nodes[i].status = 0x7f00;     /* stopped by us */
				left--;
			}
		if (w <= 0)
			sleep_ns(20000000);
	}
	kill_all(c, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	/* an app whose capture died first is no child of ours: its group
	 * is empty once it is gone (a second at most: SIGKILL is quick) */
	until = now_ns() + 1000000000;
	for (int i = 0; i < c->n; i++)
		while (c->nodes[i].pid > 0 && kill(-c->nodes[i].pid, 0) == 0 &&
		       now_ns() < until)
			sleep_ns(5000000);
}

static void spawn(struct cluster *c, struct cluster_opts *o, struct pass *p, int i)
{
	struct cnode *n = &c->nodes[i];
	int nargs = 0;
	while (o->node_args && o->node_args[nargs])
		nargs++;
	char *args[64 + nargs + n->argc + n->nrestr];
	int k = 0, mpi = n->job >= 0;
	char wd[64], out[4096], np[16];

	if (mpi && n->job != i) {    /* its rank0 ran the job's mpirun */
		n->pid = c->nodes[n->job].pid;
		n->status = -1;
		return;
	}
	if (mpi) {
		/* one mpirun for every rank: the same capture options for all,
		 * each rank's capture names itself rankN, writes DIR/rankN.xml
		 * and finds its watchdog maximum in the unthrottled DIR */
		snprintf(np, sizeof(np), "%d", n->np);
		args[k++] = "mpirun";
		args[k++] = "--oversubscribe";
		args[k++] = "-n";
		args[k++] = np;
		args[k++] = (char *)o->self;
		args[k++] = "--session";
		args[k++] = p->session;
		args[k++] = "--output-dir";
		args[k++] = p->dir;
	} else {
		snprintf(out, sizeof(out), "%s/%s.xml", p->dir, n->name);
		args[k++] = (char *)o->self;
		args[k++] = "--session";
		args[k++] = p->session;
		args[k++] = "-n";
		args[k++] = n->name;
		args[k++] = "-o";
		args[k++] = out;
	}
	if (strcmp(session_dir, "/dev/shm")) {
		args[k++] = "--session-dir";
		args[k++] = (char *)session_dir;
	}
	if (p->throttle) {
		static char period[32], delay[32], hold[32];
		snprintf(period, sizeof(period), "%d", o->period);
		snprintf(delay, sizeof(delay), "%.3f", o->delay * 1000);
		/* a hold never outlives the pass */
		snprintf(hold, sizeof(hold), "%.3f", o->hold_timeout < o->timeout ?
			 o->hold_timeout : o->timeout);
		args[k++] = "--throttle";
		args[k++] = (char *)p->throttle;
		args[k++] = "--period";
		args[k++] = period;
		args[k++] = "--delay";
		args[k++] = delay;
		args[k++] = "--hold-timeout";
		args[k++] = hold;
		snprintf(wd, sizeof(wd), "%.6f", n->max_gap);
		if (mpi) {
			static char factor[32];
			snprintf(factor, sizeof(factor), "%g", o->factor);
			args[k++] = "--watchdog-from";
			args[k++] = (char *)p->watchdog_dir;
			args[k++] = "--watchdog-factor";
			args[k++] = factor;
		} else {
			args[k++] = "--watchdog";
			args[k++] = wd;
		}
	}
	if (n->server)
		args[k++] = "--server";
	if (n->user) {
		args[k++] = "--user";
		args[k++] = n->user;
	}
	if (o->pcap) {               /* each node's packets beside its trace */
		static char pcap[128];
		snprintf(pcap, sizeof(pcap), "--pcap%s%s", o->pcap_iface ? "=" : "",
			 o->pcap_iface ? o->pcap_iface : "");
		args[k++] = pcap;
		if (o->pcap_optional)
			args[k++] = "--pcap-optional";
	}
	for (int a = 0; a < nargs; a++)
		args[k++] = o->node_args[a];
	/* after the command line's: the node's own restrictions win */
	for (int r = 0; r < n->nrestr; r++)
		args[k++] = n->restr[r];
	args[k++] = "--";
	for (int a = 0; a < n->argc; a++)
		args[k++] = subst(c, p, i, n->argv[a]);
	args[k] = NULL;

	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		die(2, "fork:");
	if (pid == 0) {
		setpgid(0, 0);
		/* a runner that dies takes its nodes with it */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/* we signal the node's whole group: its capture need not
		 * pass our signals on (launch.c) */
		char runner[24];
		snprintf(runner, sizeof(runner), "%ld", c->owner);
		setenv(ENV_CLUSTER_RUNNER, runner, 1);
		/* a user the app drops to gets the scratch too (privdrop.c) */
		setenv(ENV_SHARE, p->scratch, 1);
		for (int e = 0; e < n->nenv; e++)
			putenv(subst(c, p, i, n->env[e]));
		char *cwd = n->cwd ? subst(c, p, i, n->cwd) : NULL;
		if (cwd && chdir(cwd) < 0) {
			fprintf(stderr, "island-capture: node %s: %s: %s\n", n->name, cwd,
				strerror(errno));
			_exit(126);
		}
		if (n->netns) {
			char *nspath = netns_path(c->owner, i);
			int fd = open(nspath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
			if (fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
				fprintf(stderr, "island-capture: node %s: cannot enter %s: %s\n",
					n->name, nspath, strerror(errno));
				_exit(126);
			}
			close(fd);
		}
		if (mpi) {
			/* Open MPI refuses root unless told twice */
			if (geteuid() == 0) {
				setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
				setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
			}
			execvp(args[0], args);
			fprintf(stderr, "island-capture: node %s: mpirun: %s\n", n->name,
				strerror(errno));
			_exit(127);
		}
		execv(o->self, args);
		fprintf(stderr, "island-capture: %s: %s\n", o->self, strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	n->pid = pid;
	if (mpi)
		p->mpirun = pid;
	n->status = -1;
}

/* Everything a run made is removed however the runner leaves it: the
 * end, an error (die() exits), or a signal (the pass stops, then this). */
static struct cluster *made;
static char *made_dir;               /* the passes' base, unless kept */
static char *made_session;           /* the running pass's session file */
static pid_t made_by;

static void cleanup(void)
{
	if (!made || getpid() != made_by)
		return;
	for (int i = 0; i < made->n; i++)
		if (made->nodes[i].pid > 0 && made->nodes[i].status < 0)
			kill(-made->nodes[i].pid, SIGKILL);
	if (made_session)
		unlink(made_session);
	if (made->have_netns)
		cluster_netns_down(made);
	if (made_dir && rm_tree(made_dir) < 0)
		warnx("%s: cannot remove:", made_dir);
	made = NULL;
}

/* At --timeout: what a hold under way was waiting for. */
static void say_held(struct cluster *c, struct pass *p, struct session *s, int64_t now)
{
	for (int i = 0; i < c->n; i++) {
		struct sess_node *sn = &s->node[i];
		int64_t h = sn->hold_start;
		if (!h)
			continue;
		char others[1024] = "";
		size_t len = 0;
		for (int k = 0; k < c->n; k++)
			if (k != i && c->nodes[k].status < 0 && len + 40 < sizeof(others))
				len += (size_t)snprintf(others + len, sizeof(others) - len, "%s%s",
							len ? ", " : "", c->nodes[k].name);
		warnx("%s pass: node %s was holding its %s (after its I/O %llu) for %.1f s: "
		      "node%s %s neither waited for it nor exited", p->name, c->nodes[i].name,
		      call_name(sn->hold_call), (unsigned long long)sn->hold_after,
		      (double)(now - h) / 1e9, strchr(others, ',') ? "s" : "", others);
	}
}

/* A node that ended as planned: exit 0, or a server that our SIGTERM
 * stopped (its capture exits 128 + SIGTERM, having written the trace). */
static int ended_well(const struct cnode *n, int stopped)
{
	int st = n->status;

	if (st == 0)
		return 1;
	return n->server && stopped && ((WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGTERM) ||
					(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM));
}

#define PROGRESS_NS (10 * 1000000000LL)
#define HINT_NS (3 * 1000000000LL)

/* The nodes still running, "a, b", into buf. */
static const char *running(struct cluster *c, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = 0;
	for (int i = 0; i < c->n && k + 1 < len; i++)
		if (c->nodes[i].status < 0)
			k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ", " : "",
					      c->nodes[i].name);
	return buf;
}

static void say_running(struct cluster *c, struct cluster_opts *o, struct pass *p, double secs)
{
	char buf[512];

	fprintf(stderr, "island-capture: %s pass: %.0f s, still running: %s (--timeout %.0f s)\n",
		p->name, secs, running(c, buf, sizeof(buf)), o->timeout);
}

/* Some node exited and, HINT_NS later, others without role="server"
 * still run: most likely servers the file does not mark (a typo, a
 * missing role), which the run would wait for until --timeout. Said
 * once; true when said. */
static int hint_servers(struct cluster *c, struct cluster_opts *o, struct pass *p,
			int64_t last_exit, int hinted)
{
	char buf[512];

	if (hinted || !last_exit || now_ns() - last_exit < HINT_NS)
		return 0;
	for (int i = 0; i < c->n; i++)
		if (c->nodes[i].server && c->nodes[i].status < 0)
			return 0;	/* servers are waited for by design */
	warnx("%s pass: node%s %s still running %.0f s after the last node exited: "
	      "a server? mark it role=\"server\" in %s (servers are stopped once the "
	      "clients exit; else the run waits for --timeout, %.0f s)", p->name,
	      strchr(running(c, buf, sizeof(buf)), ',') ? "s" : "", buf,
	      (double)(now_ns() - last_exit) / 1e9, c->file, o->timeout);
	return 1;
}

/* Run every node; 0 when all ended as planned. */
static int run_pass(struct cluster *c, struct cluster_opts *o, struct pass *p)
{
	int left = c->n, failed = 0, stopped = 0;
	int64_t start = now_ns();

	p->session = xasprintf("%s-%s", c->tag, p->name);
	p->port = free_port();
	made_session = session_path(p->session);
	struct session *s = session_open(p->session, 1, 1);
	if (!s)
		exit(2);
	/* Every node is in the session before any starts: a throttled node
	 * must wait for a node that has not started yet, not overlook it. */
	for (int i = 0; i < c->n; i++) {
		struct sess_node *sn = &s->node[i];
		snprintf(sn->name, sizeof(sn->name), "%s", c->nodes[i].name);
		sn->max_gap = (int64_t)(c->nodes[i].max_gap * 1e9);
		sn->capture_pid = 0;
		sn->state = SN_RUNNING;
	}
	for (int i = 0; i < c->n; i++)
		spawn(c, o, p, i);
	int64_t last_exit = 0, last_said = start;
	int hinted = 0;
	while (left) {
		int st;
		pid_t w = waitpid(-1, &st, WNOHANG);
		if (w > 0) {
			for (int i = 0; i < c->n; i++)
				if (c->nodes[i].pid == w) {
					c->nodes[i].status = st;
					left--;
					last_exit = now_ns();
				}
			continue;
		}
		if (w < 0 && errno != EINTR)
			break;
		if (!stopped)
			hinted |= hint_servers(c, o, p, last_exit, hinted);
		/* a line of progress now and then: a run that waits is seen to */
		if (now_ns() - last_said >= PROGRESS_NS) {
			last_said = now_ns();
			say_running(c, o, p, (double)(last_said - start) / 1e9);
		}
		/* the clients are done: the servers' turn to stop */
		int clients = 0;
		for (int i = 0; i < c->n; i++)
			clients += !c->nodes[i].server && c->nodes[i].status < 0;
		if (!clients && !stopped) {
			stopped = 1;
			/* when, for the node's trace (stopped=): its capture
			 * gets the signal with the app and may run later */
			for (int i = 0; i < c->n; i++)
				if (c->nodes[i].server && c->nodes[i].status < 0) {
					s->node[i].stop_at = now_ns();
					kill(-c->nodes[i].pid, SIGTERM);
				}
		}
		if (interrupted || (double)(now_ns() - start) / 1e9 > o->timeout) {
			/* a server is late only when it outlives our SIGTERM:
			 * before that, it serves by design */
			for (int i = 0; i < c->n; i++)
				if (c->nodes[i].status < 0 && (interrupted || !c->nodes[i].server ||
							       stopped))
					warnx("%s pass: node %s %s; stopping every node", p->name,
					      c->nodes[i].name, interrupted ? "interrupted" :
					      c->nodes[i].server ? "did not stop at SIGTERM in time "
					      "(--timeout)" : "did not finish in time (--timeout)");
			if (!interrupted) {
				say_held(c, p, s, now_ns());
				p->incomplete = "timeout";
			}
			stop_all(c);
			failed = 1;
			break;
		}
		sleep_ns(20000000);
	}
	p->seconds = (double)(now_ns() - start) / 1e9;
	kill_all(c, SIGKILL);                /* whatever a node left behind */
	/* the waits its watchdogs logged, with the groups holding then */
	p->ndeps = s->ndeps < SESS_DEPS ? s->ndeps : SESS_DEPS;
	p->deps = xmalloc((p->ndeps + 1) * sizeof(*p->deps));
	if (p->ndeps)
		memcpy(p->deps, (const void *)s->deps, p->ndeps * sizeof(*p->deps));
	if (s->deps_lost)
		warnx("%s pass: %u dependencies lost (more than %d)", p->name, s->deps_lost,
		      SESS_DEPS);
	unlink(made_session);
	free(made_session);
	made_session = NULL;
	session_close(s);
	for (int i = 0; i < c->n && !failed; i++) {
		int st = c->nodes[i].status;
		if (!ended_well(&c->nodes[i], stopped)) {
			warnx("%s pass: node %s %s %d", p->name, c->nodes[i].name,
			      WIFSIGNALED(st) ? "was killed by signal" : "exited with status",
			      WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
			failed = 1;
		}
	}
	return failed ? -1 : 0;
}

static struct pass *new_pass(struct cluster *c, const char *base, const char *name,
			     const char *throttle)
{
	struct pass *p = xcalloc(1, sizeof(*p));

	p->name = xstrdup(name);
	p->throttle = throttle;
	p->dir = xasprintf("%s/%s", base, name);
	p->scratch = xasprintf("%s/scratch", p->dir);
	if (rm_tree(p->dir) < 0)     /* a kept directory from an earlier run */
		die(2, "%s: cannot remove the earlier pass:", p->dir);
	if (mkdir(p->dir, 0755) < 0 || mkdir(p->scratch, 0755) < 0)
		die(2, "%s:", p->dir);
	/* the nodes' users: the scratch theirs to use, the directories
	 * above theirs to pass, nobody else's (runas.c) */
	for (int i = 0; i < c->n; i++)
		if (c->nodes[i].user && runas_grant(&c->nodes[i].runas, p->scratch, 7) < 0)
			die(2, "%s: cannot open it to user %s (ACLs):", p->scratch,
			    c->nodes[i].user);
	return p;
}

/* --- the runner ------------------------------------------------------------ */

static void free_strv(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* --- discovery: which passes, in which order ------------------------------ */

static int wanted(struct cluster_opts *o, const char *name)
{
	if (!o->throttle_nodes)
		return 1;
	char *list = xasprintf(",%s,", o->throttle_nodes);
	char *key = xasprintf(",%s,", name);
	int want = strstr(list, key) != NULL;
	free(list);
	free(key);
	return want;
}

/* The nodes of mask, "A,B,C" (the --throttle of a group pass). */
static char *names_of(struct cluster *c, uint64_t mask)
{
	size_t len = 1, n = 0;
	char *s;

	for (int i = 0; i < c->n; i++)
		if (mask & (1ull << i))
			len += strlen(c->nodes[i].name) + 1;
	s = xmalloc(len);
	s[0] = 0;
	for (int i = 0; i < c->n; i++)
		if (mask & (1ull << i))
			n += (size_t)snprintf(s + n, len - n, "%s%s", n ? "," : "", c->nodes[i].name);
	return s;
}

/* One throttled pass of the nodes of mask, added to the discovery. */
static int throttled_pass(struct cluster *c, struct cluster_opts *o, struct discovery *d,
			  const char *basedir, struct pass *first, struct pass **thr, int *nthr,
			  const char *name, uint64_t mask, int kind, char *why)
{
	if (interrupted)
		return -1;
	struct pass *p = new_pass(c, basedir, name, names_of(c, mask));
	p->watchdog_dir = first->dir;
	p->mask = mask;
	p->kind = kind;
	p->why = why;
	fprintf(stderr, "island-capture: %s: pass %d, %s: %s (period %d)\n", o->file,
		*nthr + 2, name, why, o->period);
	if (run_pass(c, o, p) < 0)
		return -1;
	thr[(*nthr)++] = p;
	return discover_add(d, p);
}

/* --passes, else 2 + ceil(log2 N) and fewer than //TRACE's N + 1 (2 at
 * least): a wait still unsure then is marked so */
static int log2_up(int m)
{
	int bits = 0;

	while ((1 << bits) < m)
		bits++;
	return bits;
}

static int passes_most(const struct cluster_opts *o)
{
	int bits = log2_up(o->nodes);
	int most = 2 + bits < o->nodes ? 2 + bits : o->nodes > 2 ? o->nodes : 2;
	if (o->one_by_one)
		most = o->nodes + 1;
	if (o->max_passes)
		most = o->max_passes;
	return most;
}

static int budget_left(struct cluster_opts *o, int nthr)
{
	return 1 + nthr < passes_most(o);
}

/*
 * The bit passes' numbers (num[i], -1 for a node not throttled), and how
 * many bits. When the budget has a pass for every bit of every node's
 * number, every node is numbered: a group pass misses a wait whose waiter
 * held while the node it waited for did (a barrier's root still sending
 * its go, each send held, when that node let its signal go: 4 runs in 100
 * of 8 nodes through shared memory), which a pass throttling that node
 * and not the waiter sees. Such a pass exists for every pair when the
 * waiter's number has at most one bit set (any other number has a bit it
 * lacks), so the light numbers go to the nodes most messages leave, whose
 * holds are the most. The candidates of the waits the group pass left
 * undecided take the numbers of an odd count of bits, the others those
 * of an even count (when each side fits in half): two candidates' numbers
 * then differ in two bits at least, and a pass that misjudged a wait (one
 * seen where the node it waits for ran free: a busy machine) spells no
 * candidate's number, rather than another's (1 run in 8 under ASan).
 * Else every node gets a number, the one-bit ones first; else, when the
 * budget is short, the candidates alone (all nodes when none is), in
 * index order, as few bits as tell them apart. Numbered from 0 (number 0
 * is in no bit pass: a wait seen in none is its); numbering from 1 made
 * a number the OR of two others' (3 = 1 | 2), which a wait for both
 * spelled.
 */
static int bit_numbers(const struct cluster *c, struct cluster_opts *o, struct discovery *d,
		       uint64_t all, uint64_t u, int nthr, int *num, int *spaced)
{
	int n = __builtin_popcountll(all), bits = log2_up(n);

	*spaced = 0;
	for (int i = 0; i < c->n; i++)
		num[i] = -1;
	if (passes_most(o) - 1 - nthr < bits) {
		uint64_t v = u ? u : all;
		for (int i = 0, k = 0; i < c->n; i++)
			if (v & (1ull << i))
				num[i] = k++;
		return log2_up(__builtin_popcountll(v));
	}
	int order[64], no = 0, fan[64];
	for (int i = 0; i < c->n; i++)
		if (all & (1ull << i)) {
			fan[i] = discover_fan_out(d, i);
			int k = no++;
			while (k > 0 && fan[order[k - 1]] < fan[i]) {
				order[k] = order[k - 1];
				k--;
			}
			order[k] = i;
		}
	int half = bits ? 1 << (bits - 1) : 1, nu = __builtin_popcountll(u & all);
	if (u && bits && nu <= half && n - nu <= half) {
		/* by weight, then value: parity 1 for candidates, 0 else */
		int next[2] = { 0, 0 }, code[2][32];
		for (int w = 0; w <= bits; w++)
			for (int v = 0; v < 1 << bits; v++)
				if (__builtin_popcount((unsigned)v) == w)
					code[w & 1][next[w & 1]++] = v;
		next[0] = next[1] = 0;
		for (int k = 0; k < no; k++) {
			int side = !!(u & (1ull << order[k]));
			num[order[k]] = code[side][next[side]++];
		}
		*spaced = 1;
		return bits;
	}
	/* one-bit numbers first, in that order; the others after */
	int next = 0, wide = 3;
	for (int k = 0; k < no; k++) {
		if (next <= bits) {
			num[order[k]] = next ? 1 << (next - 1) : 0;
			next++;
			continue;
		}
		while (!(wide & (wide - 1)))
			wide++;
		num[order[k]] = wide++;
	}
	return bits;
}

/*
 * The passes after the unthrottled one. A group pass throttles every
 * node at once: each wait it sees is for one of the nodes then holding,
 * and those that logged it are its candidates; most waits have one, and
 * the message edges of the unthrottled pass explain the rest already.
 * The nodes some wait still has more than one candidate among are
 * numbered, and bit pass b throttles those whose number has bit b set:
 * ceil(log2 M) passes for M such nodes, 2 + ceil(log2 N) in all at most.
 * A wait whose passes spell no one candidate's number (it waits for
 * several nodes) gets a pass for each of its candidates alone. --passes
 * stops that where it says; --one-by-one throttles every node alone.
 */
static int discover_plan(struct cluster *c, struct cluster_opts *o, struct discovery *d,
			 const char *basedir, struct pass *first, struct pass **thr, int *nthr)
{
	uint64_t all = 0;

	o->nodes = c->n;
	for (int i = 0; i < c->n; i++)
		if (wanted(o, c->nodes[i].name))
			all |= 1ull << i;
	if (o->one_by_one) {
		for (int i = 0; i < c->n; i++) {
			if (!(all & (1ull << i)) || !budget_left(o, *nthr))
				continue;
			char *pname = xasprintf("throttle-%s", c->nodes[i].name);
			if (throttled_pass(c, o, d, basedir, first, thr, nthr, pname, 1ull << i,
					   PASS_SINGLE, xstrdup("this node alone (--one-by-one)")) < 0)
				return -1;
		}
		return 0;
	}
	if (!all || !budget_left(o, *nthr)) {
		fprintf(stderr, "island-capture: %s: no throttled pass (%s): the message "
			"edges only\n", o->file, all ? "--passes 1" : "--throttle-nodes");
		return 0;
	}
	if (__builtin_popcountll(all) == 1) {     /* --throttle-nodes A: //TRACE's pass */
		int i = __builtin_ctzll(all);
		return throttled_pass(c, o, d, basedir, first, thr, nthr,
				      xasprintf("throttle-%s", c->nodes[i].name), all, PASS_SINGLE,
				      xstrdup("the one node of --throttle-nodes")) < 0 ? -1 : 0;
	}
	if (throttled_pass(c, o, d, basedir, first, thr, nthr, "group", all, PASS_GROUP,
			   xasprintf("all %d nodes at once", __builtin_popcountll(all))) < 0)
		return -1;
	uint64_t u = discover_undecided(d) & all;
	int num[64], m = __builtin_popcountll(u), spaced;
	int bits = bit_numbers(c, o, d, all, u, *nthr, num, &spaced);
	int mb = spaced ? bits : log2_up(m);
	if (!u)
		fprintf(stderr, "island-capture: %s: every wait of the group pass has one "
			"node it can be for, or a message; bit passes over all %d nodes, for "
			"the waits a group pass misses\n", o->file, __builtin_popcountll(all));
	for (int b = 0; b < bits; b++) {
		uint64_t g = 0;
		for (int i = 0; i < c->n; i++)
			if (num[i] >= 0 && (num[i] & (1 << b)))
				g |= 1ull << i;
		if (!budget_left(o, *nthr)) {
			fprintf(stderr, "island-capture: %s: %d passes (--passes, or 2 + log2 N) reached: "
				"no bit pass among the %d nodes%s\n", o->file, 1 + *nthr,
				u ? m : __builtin_popcountll(all),
				u ? " (waits with several candidates left unsure)" : "");
			return 0;
		}
		char *pname = xasprintf("group-bit%d", b);
		if (throttled_pass(c, o, d, basedir, first, thr, nthr, pname, g, PASS_BIT,
				   b < mb ? xasprintf("bit %d of %d, telling apart the %d nodes some "
						      "wait may be for", b, bits, m) :
				   xasprintf("bit %d of %d, for the waits a group pass misses",
					     b, bits)) < 0)
			return -1;
	}
	/* one candidate: its own pass; else those the bit passes left */
	uint64_t left = bits ? discover_unsure(d) : u;
	for (int i = 0; i < c->n; i++) {
		if (!(left & (1ull << i)))
			continue;
		if (!budget_left(o, *nthr)) {
			fprintf(stderr, "island-capture: %s: %d passes (--passes, or 2 + log2 N) reached: "
				"waits on more than one node left unsure\n", o->file, 1 + *nthr);
			return 0;
		}
		char *pname = xasprintf("throttle-%s", c->nodes[i].name);
		if (throttled_pass(c, o, d, basedir, first, thr, nthr, pname, 1ull << i,
				   PASS_SINGLE, xstrdup("alone: a wait the bit passes did not "
							"tie to one node may be for it")) < 0)
			return -1;
	}
	return 0;
}

/* An <mpi> job's ranks share rank 0's command, environment and cwd. */
static void cluster_free(struct cluster *c)
{
	for (int i = 0; i < c->n; i++) {
		struct cnode *n = &c->nodes[i];
		free(n->name);
		if (n->job >= 0 && n->job != i)
			continue;
		free(n->cwd);
		free(n->address);
		free(n->user);
		free_strv(n->argv, n->argc);
		free_strv(n->env, n->nenv);
		free_strv(n->restr, n->nrestr);
	}
	free(c->nodes);
	free(c->dir);
	free(c->tag);
}

int cluster_run(struct cluster_opts *o)
{
	struct cluster c = { 0 };
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa = { .sa_handler = on_signal };
	int rc = 0;

	load(&c, o->file);
	check_vars(&c);
	if (!o->output) {
		char *copy = xstrdup(o->file), *b = basename(copy), *dot = strrchr(b, '.');
		if (dot && (!strcmp(dot, ".xml")))
			*dot = 0;
		dot = strstr(b, ".cluster");
		if (dot)
			*dot = 0;
		o->output = xasprintf("%s.xml%s", b, o->gzip ? ".gz" : "");
	}
	if (o->timeout <= 0)
		o->timeout = 600;
	/* named after us, for --cleanup */
	char *basedir = xasprintf("/tmp/island-cluster.%ld.XXXXXX", (long)getpid());
	c.owner = getpid();
	c.tag = xasprintf("%ld", c.owner);
	made = &c;
	made_by = getpid();
	atexit(cleanup);
	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		sigaction(stops[i], &sa, NULL);
	if (o->passes_dir) {
		if (mkdir(o->passes_dir, 0755) < 0 && errno != EEXIST)
			die(2, "%s:", o->passes_dir);
		basedir = realpath(o->passes_dir, NULL);
		if (!basedir)
			die(2, "%s:", o->passes_dir);
		o->keep = 1;
	} else if (!mkdtemp(basedir)) {
		die(2, "%s:", basedir);
	} else if (!o->keep) {
		made_dir = basedir;
	}
	if (c.have_netns) {
		/* a dead run of the same pid may have left them */
		c.nodes_up = c.n;
		c.bridge_up = 1;
		cluster_netns_down(&c);
		if (cluster_netns_up(&c) < 0)
			exit(2);
	}
	if (interrupted)
		goto out;

	char **names = xcalloc((size_t)c.n, sizeof(char *));
	for (int i = 0; i < c.n; i++)
		names[i] = c.nodes[i].name;
	struct pass *first = new_pass(&c, basedir, o->discover ? "unthrottled" : "run", NULL);
	fprintf(stderr, "island-capture: %s: %s pass, %d nodes\n", o->file, first->name, c.n);
	if (run_pass(&c, o, first) < 0) {
		rc = 1;
		/* what ran up to --timeout is still the trace of the run
		 * (--discover's passes compare whole runs: none) */
		if (first->incomplete && !o->discover && !interrupted &&
		    discover_merge(o, names, c.n, first, NULL, 0) == 0)
			warnx("%s: written up to --timeout, marked complete=\"false\" "
			      "reason=\"timeout\"", o->output);
		goto out;
	}
	struct pass **thr = xcalloc((size_t)c.n + 72, sizeof(*thr));
	int nthr = 0;
	struct discovery *d = NULL;
	if (o->discover) {
		/* the watchdog's maxima, per node, from the unthrottled pass */
		for (int i = 0; i < c.n; i++) {
			char *t = xasprintf("%s/%s.xml", first->dir, c.nodes[i].name);
			struct tr_node *nodes, *me;
			int nn;
			if (tr_scan(t, &nodes, &nn) < 0 ||
			    !(me = tr_find(nodes, nn, c.nodes[i].name)))
				die(1, "%s: no trace of node %s", t, c.nodes[i].name);
			c.nodes[i].max_gap = (double)me->max_gap * o->factor / 1e9;
			if (c.nodes[i].max_gap < 0.001)
				c.nodes[i].max_gap = 0.001;
			tr_scan_free(nodes, nn);
			free(t);
		}
		d = discover_begin(o, names, c.n, first);
		if (discover_plan(&c, o, d, basedir, first, thr, &nthr) < 0) {
			rc = 1;      /* its passes' traces go with the rest */
			goto out;
		}
	} else {
		d = discover_begin(o, names, c.n, first);
	}
	rc = discover_write(d) < 0 ? 1 : 0;
	if (!rc) {
		fprintf(stderr, "island-capture: %s: %s (passes:", o->file, o->output);
		fprintf(stderr, " %s %.2f s", first->name, first->seconds);
		for (int i = 0; i < nthr; i++)
			fprintf(stderr, ", %s %.2f s", thr[i]->name, thr[i]->seconds);
		fprintf(stderr, ")\n");
	}
out:
	if (o->keep)
		fprintf(stderr, "island-capture: the passes' traces are kept in %s\n", basedir);
	cleanup();
	cluster_free(&c);
	if (interrupted)
		rc = 128 + interrupted;
	return rc;
}
