/*
 * Sessions across hosts (--session HOST:PORT). Each host keeps its local
 * session file; an agent thread in every island-capture mirrors the other
 * hosts' nodes into it, so that a throttled node judges remote nodes as it
 * judges local ones, and forwards the dependencies found. The agents talk
 * through a coordinator, a small relay that the first capture starts and
 * that exits when the last agent leaves.
 *
 * The protocol is text lines, so that hosts of any kind can take part:
 *   HELLO name                      an agent joins for node `name`
 *   STATE name state ioseq age live gap
 *                                   a node's progress: state SN_*, its I/O
 *                                   count, ns since its last I/O completed
 *                                   (an age: hosts share no clock), live
 *                                   threads (0: not started), its watchdog
 *                                   maximum (ns)
 *   DEP tname tseq xname xseq       xname's I/O xseq waits for tname's tseq
 *   GONE name                       (coordinator) that agent went away
 *   TIME t1 [t2]                    a clock probe: an agent's wall clock
 *                                   t1 (ns), answered to that agent only
 *                                   with the coordinator's t2
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include "capture.h"
#include "coordinator.h"
#include "util.h"

#define MAXCLIENTS SESS_NODES

static int resolve(const char *host, int port, struct sockaddr_in *a)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;

	memset(a, 0, sizeof(*a));
	if (getaddrinfo(host, NULL, &hints, &res))
		return -1;
	*a = *(struct sockaddr_in *)res->ai_addr;
	a->sin_port = htons((uint16_t)port);
	freeaddrinfo(res);
	return 0;
}

/* --- the coordinator ------------------------------------------------------ */

struct client {
	int fd;
	char name[64];
	char buf[8192];
	size_t len;
};

static void relay(struct client *c, int n, int from, const char *line)
{
	size_t l = strlen(line);

	for (int i = 0; i < n; i++)
		if (i != from && c[i].fd >= 0 && write(c[i].fd, line, l) != (ssize_t)l) {
			close(c[i].fd);
			c[i].fd = -1;
		}
}

static void coordinator(int ls)
{
	struct client c[MAXCLIENTS];
	struct pollfd pf[MAXCLIENTS + 1];
	int seen = 0;
	int64_t idle_since = now_ns();

	for (int i = 0; i < MAXCLIENTS; i++)
		c[i].fd = -1;
	for (;;) {
		int n = 0, live = 0;
		pf[n++] = (struct pollfd){ ls, POLLIN, 0 };
		for (int i = 0; i < MAXCLIENTS; i++) {
			pf[n++] = (struct pollfd){ c[i].fd, POLLIN, 0 };
			live += c[i].fd >= 0;
		}
		/* done when everyone left, or nobody came for 10 minutes */
		if ((seen && !live) || (!live && now_ns() - idle_since > 600 * 1000000000LL))
			_exit(0);
		if (poll(pf, (nfds_t)n, 1000) <= 0)
			continue;
		if (pf[0].revents & POLLIN) {
			int fd = accept(ls, NULL, NULL);
			for (int i = 0; fd >= 0 && i < MAXCLIENTS; i++)
				if (c[i].fd < 0) {
					int one = 1;
					setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
					c[i] = (struct client){ .fd = fd };
					fd = -1;
					seen = 1;
				}
			if (fd >= 0)
				close(fd);
		}
		for (int i = 0; i < MAXCLIENTS; i++) {
			if (c[i].fd < 0 || !(pf[i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t r = read(c[i].fd, c[i].buf + c[i].len, sizeof(c[i].buf) - c[i].len - 1);
			if (r <= 0) {
				char gone[128];
				close(c[i].fd);
				c[i].fd = -1;
				if (c[i].name[0]) {
					snprintf(gone, sizeof(gone), "GONE %s\n", c[i].name);
					relay(c, MAXCLIENTS, i, gone);
				}
				idle_since = now_ns();
				continue;
			}
			c[i].len += (size_t)r;
			c[i].buf[c[i].len] = 0;
			char *nl, *p = c[i].buf;
			while ((nl = strchr(p, '\n'))) {
				char line[512];
				size_t l = (size_t)(nl - p) + 1;
				if (l < sizeof(line)) {
					memcpy(line, p, l);
					line[l] = 0;
					long long t1;
					if (!strncmp(line, "HELLO ", 6))
						sscanf(line + 6, "%63s", c[i].name);
					if (sscanf(line, "TIME %lld", &t1) == 1) {
						/* the session's reference clock: ours */
						char reply[96];
						int rl = snprintf(reply, sizeof(reply), "TIME %lld %lld\n",
								  t1, (long long)host_real_ns());
						if (write(c[i].fd, reply, (size_t)rl) != rl) {
							close(c[i].fd);
							c[i].fd = -1;
						}
					} else {
						relay(c, MAXCLIENTS, i, line);
					}
				}
				p = nl + 1;
			}
			c[i].len -= (size_t)(p - c[i].buf);
			memmove(c[i].buf, p, c[i].len);
		}
	}
}

/* Start the coordinator on HOST:PORT if nobody listens there and HOST is
 * ours: a daemon of its own, so that it outlives the capture that
 * started it. */
static void start_coordinator(const struct sockaddr_in *a)
{
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ls < 0 || bind(ls, (const void *)a, sizeof(*a)) < 0 || listen(ls, 64) < 0) {
		if (ls >= 0)
			close(ls);
		return;              /* another capture won the race, or not ours */
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		if (fork() != 0)
			_exit(0);
		setsid();
		signal(SIGPIPE, SIG_IGN);
		signal(SIGINT, SIG_IGN);
		int null = open("/dev/null", O_RDWR);
		for (int fd = 0; fd < 3; fd++)
			dup2(null, fd);
		coordinator(ls);
	}
	close(ls);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* --- the agent --------------------------------------------------------- */

static int slot_of(struct session *s, const char *name, int create)
{
	for (int i = 0; i < SESS_NODES; i++)
		if (s->node[i].state != SN_FREE && !strcmp(s->node[i].name, name))
			return i;
	for (int i = 0; create && i < SESS_NODES; i++) {
		int32_t none = SN_FREE;
		if (__atomic_compare_exchange_n(&s->node[i].state, &none, SN_RUNNING, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			struct sess_node *n = &s->node[i];
			memset(n->th, 0, sizeof(n->th));
			snprintf(n->name, sizeof(n->name), "%s", name);
			n->capture_pid = 0;          /* remote: no pid to check */
			n->remote = 1;
			return i;
		}
	}
	return -1;
}

static void on_line(struct agent *ag, char *line)
{
	struct session *s = ag->s;
	char a[64], b[64];
	unsigned long long x, y, z;
	int st, live;

	if (sscanf(line, "STATE %63s %d %llu %llu %d %llu", a, &st, &x, &y, &live, &z) == 6) {
		int i = slot_of(s, a, 1);
		if (i < 0 || i == ag->idx || !s->node[i].remote)
			return;
		struct sess_node *n = &s->node[i];
		n->max_gap = (int64_t)z;
		n->io_seq = x;
		n->th[0].since = now_ns() - (int64_t)y;
		n->th[0].pid = 0;
		__atomic_store_n(&n->th[0].tid, live ? 1 : 0, __ATOMIC_RELEASE);
		__atomic_store_n(&n->state, st == SN_EXITED ? SN_EXITED : SN_RUNNING,
				 __ATOMIC_RELEASE);
	} else if (sscanf(line, "TIME %llu %llu", &x, &y) == 2) {
		int64_t t3 = host_real_ns(), rtt = t3 - (int64_t)x;

		ag->answers++;
		if (rtt >= 0 && (ag->answers == 1 || rtt < ag->best_rtt)) {
			ag->best_rtt = rtt;
			ag->offset = (int64_t)y - ((int64_t)x + rtt / 2);
		}
	} else if (sscanf(line, "GONE %63s", a) == 1) {
		int i = slot_of(s, a, 0);
		if (i >= 0 && s->node[i].remote)
			__atomic_store_n(&s->node[i].state, SN_EXITED, __ATOMIC_RELEASE);
	} else if (sscanf(line, "DEP %63s %llu %63s %llu", a, &x, b, &z) == 4) {
		int t = slot_of(s, a, 0), xn = slot_of(s, b, 0);
		if (t < 0 || xn < 0)
			return;
		uint32_t k = __atomic_fetch_add(&s->ndeps, 1, __ATOMIC_ACQ_REL);
		if (k < SESS_DEPS)
			s->deps[k] = (struct sess_dep){ t, xn, x, z };
		else
			__atomic_add_fetch(&s->deps_lost, 1, __ATOMIC_RELAXED);
	}
}

static void say(struct agent *ag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct agent *ag, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (ag->fd >= 0 && write(ag->fd, line, (size_t)n) != n) {
		close(ag->fd);
		ag->fd = -1;
	}
}

/* Our node's progress: the latest I/O completion of its live threads. */
static void publish(struct agent *ag)
{
	struct sess_node *me = &ag->s->node[ag->idx];
	int64_t latest = 0, now = now_ns();
	int live = 0;

	for (int i = 0; i < SESS_THREADS; i++) {
		if (!__atomic_load_n(&me->th[i].tid, __ATOMIC_ACQUIRE))
			continue;
		live++;
		if (me->th[i].since > latest)
			latest = me->th[i].since;
	}
	/* the dependencies our node found as the throttled one, before our
	 * state: a node that sees us exited has everything from us */
	uint32_t nd = ag->s->ndeps < SESS_DEPS ? ag->s->ndeps : SESS_DEPS;
	for (; ag->sent < nd; ag->sent++) {
		struct sess_dep d = ag->s->deps[ag->sent];
		if (d.tnode == ag->idx)
			say(ag, "DEP %s %llu %s %llu\n", me->name, (unsigned long long)d.tseq,
			    ag->s->node[d.xnode].name, (unsigned long long)d.xseq);
	}
	say(ag, "STATE %s %d %llu %lld %d %lld\n", me->name, me->state,
	    (unsigned long long)me->io_seq, (long long)(live ? now - latest : 0), live,
	    (long long)me->max_gap);
}

/* Every other node we know of is done: nothing more can come from it. */
static int others_done(const struct agent *ag)
{
	for (int i = 0; i < SESS_NODES; i++) {
		const struct sess_node *n = &ag->s->node[i];
		if (i != ag->idx && n->state == SN_RUNNING)
			return 0;
	}
	return 1;
}

static void *agent_run(void *arg)
{
	struct agent *ag = arg;
	char buf[16384];
	size_t len = 0;
	int64_t last = 0;

	while (!ag->done || ag->drain > 0) {
		struct pollfd pf = { ag->fd, POLLIN, 0 };
		if (ag->fd < 0)
			break;
		if (poll(&pf, 1, 1) > 0) {
			ssize_t r = read(ag->fd, buf + len, sizeof(buf) - len - 1);
			if (r <= 0)
				break;
			len += (size_t)r;
			buf[len] = 0;
			char *nl, *p = buf;
			while ((nl = strchr(p, '\n'))) {
				*nl = 0;
				on_line(ag, p);
				p = nl + 1;
			}
			len -= (size_t)(p - buf);
			memmove(buf, p, len);
		}
		/* 16 clock probes, one a millisecond, at the start */
		if (ag->probes < 16 && now_ns() - ag->last_probe >= 1000000) {
			ag->probes++;
			ag->last_probe = now_ns();
			say(ag, "TIME %lld\n", (long long)host_real_ns());
		}
		if (now_ns() - last >= 1000000) {      /* every millisecond */
			publish(ag);
			last = now_ns();
			/* at the end: until the others are done too (their last
			 * dependencies on us may be on their way), then a while */
			if (ag->done && (others_done(ag) || now_ns() > ag->until))
				ag->drain--;
		}
	}
	return NULL;
}

int agent_start(struct agent *ag, const char *hostport, struct session *s, int idx)
{
	char host[256];
	int port;
	struct sockaddr_in a;

	if (sscanf(hostport, "%255[^:]:%d", host, &port) != 2 || port <= 0 || port > 65535)
		die(2, "--session: '%s' is not HOST:PORT", hostport);
	if (resolve(host, port, &a) < 0)
		die(2, "--session: cannot resolve '%s'", host);
	ag->s = s;
	ag->idx = idx;
	ag->fd = -1;
	for (int attempt = 0; attempt < 250 && ag->fd < 0; attempt++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
		if (connect(fd, (void *)&a, sizeof(a)) == 0) {
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			ag->fd = fd;
			break;
		}
		close(fd);
		if (attempt == 0)
			start_coordinator(&a);
		usleep(20000);
	}
	if (ag->fd < 0) {
		warnx("--session %s: no coordinator answers there", hostport);
		return -1;
	}
	signal(SIGPIPE, SIG_IGN);
	say(ag, "HELLO %s\n", s->node[idx].name);
	return pthread_create(&ag->th, NULL, agent_run, ag) ? -1 : 0;
}

/* Our app is done: tell the others, and take in what is still on its way
 * (dependencies found on us) until the others are done too, 30 s at most,
 * and for a little while more. */
void agent_stop(struct agent *ag)
{
	ag->drain = 100;             /* 100 ms of publishing and reading */
	ag->until = now_ns() + 30 * 1000000000LL;
	ag->done = 1;
	pthread_join(ag->th, NULL);
	if (ag->fd >= 0)
		close(ag->fd);
	ag->fd = -1;
}
