/*
 * Sessions across hosts (--session HOST:PORT). Each host keeps its local
 * session file; an agent thread in every island-capture mirrors the other
 * hosts' nodes into it, so that a throttled node judges remote nodes as it
 * judges local ones, and forwards the dependencies found. The agents talk
 * through a coordinator, a small relay that the first capture starts and
 * that exits when the last agent leaves.
 *
 * The protocol is text lines, so that hosts of any kind can take part.
 * A join proves knowledge of the session's key (sesskey.c) both ways:
 *   CHAL cnonce                     (coordinator, on accept) 32 random bytes
 *   AUTH name anonce mac            mac = HMAC(key, "agent" cnonce name)
 *   OK mac                          (coordinator) HMAC(key, "coord" anonce name)
 * Nothing else is read from a client, nor relayed to it, before its AUTH;
 * one that has not authenticated within 2 s is dropped, and at most 8 wait
 * at once (a new one pushes out the oldest), so idle connections cannot
 * take the slots of real nodes. Then:
 *   STATE name state ioseq age live gap retry progress [holds seen heard]
 *                                   a node's progress: state SN_*, its I/O
 *                                   count, ns since its last I/O completed
 *                                   (an age: hosts share no clock), live
 *                                   threads (0: not started), its watchdog
 *                                   maximum (ns), ns since its last retry
 *                                   and its last progress (-1: never), its
 *                                   holds so far, the most holds of another
 *                                   node it had heard of before sampling
 *                                   the rest, and ns since it heard of
 *                                   them: a throttled node judges it on a
 *                                   state sampled after the hold began, on
 *                                   its idleness since it heard of it
 *                                   (relayed, a state came 50 ms late on a
 *                                   loaded machine)
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
#include "capture/session/session.h"
#include "sesskey.h"
#include "util.h"

#define MAXCLIENTS SESS_NODES
#define MAXPENDING 8                 /* unauthenticated connections at once */
#define AUTH_NS    2000000000LL      /* to authenticate after accept */
#define NSLOTS     (MAXCLIENTS + MAXPENDING)

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
	int authed;
	int64_t since;               /* accepted at */
	uint8_t nonce[SESSKEY_NONCE];
	char name[64];
	char buf[8192];
	size_t len;
};

static void relay(struct client *c, int n, int from, const char *line)
{
	size_t l = strlen(line);

	for (int i = 0; i < n; i++)
		if (i != from && c[i].fd >= 0 && c[i].authed && write(c[i].fd, line, l) != (ssize_t)l) {
			close(c[i].fd);
			c[i].fd = -1;
		}
}

static void drop(struct client *c)
{
	close(c->fd);
	c->fd = -1;
}

/* A new connection: challenge it; with MAXPENDING already waiting, the
 * oldest of them makes room. */
static void admit(struct client *c, int fd)
{
	int oldest = -1, pending = 0, free_slot = -1;

	for (int i = 0; i < NSLOTS; i++) {
		if (c[i].fd < 0) {
			if (free_slot < 0)
				free_slot = i;
		} else if (!c[i].authed) {
			pending++;
			if (oldest < 0 || c[i].since < c[oldest].since)
				oldest = i;
		}
	}
	if (pending >= MAXPENDING) {
		drop(&c[oldest]);
		free_slot = oldest;
	}
	if (free_slot < 0) {         /* cannot be: authenticated <= MAXCLIENTS */
		close(fd);
		return;
	}
	struct client *n = &c[free_slot];
	char hex[2 * SESSKEY_NONCE + 1], line[2 * SESSKEY_NONCE + 8];
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	*n = (struct client){ .fd = fd, .since = now_ns() };
	sesskey_random(n->nonce, sizeof(n->nonce));
	sesskey_hex(n->nonce, sizeof(n->nonce), hex);
	int l = snprintf(line, sizeof(line), "CHAL %s\n", hex);
	if (write(fd, line, (size_t)l) != l)
		drop(n);
}

/* AUTH name anonce mac: 0 when the client knows the key (we answer with
 * our own proof), -1 to drop it. */
static int authenticate(struct client *c, int i, const char *line, const uint8_t *key)
{
	char name[64], anonce_hex[2 * SESSKEY_NONCE + 2], mac_hex[2 * SESSKEY_MAC + 2];
	uint8_t anonce[SESSKEY_NONCE], mac[SESSKEY_MAC];
	int authed = 0;

	if (sscanf(line, "AUTH %63s %65s %65s", name, anonce_hex, mac_hex) != 3 ||
	    sesskey_unhex(anonce_hex, anonce, sizeof(anonce)) < 0)
		return -1;
	sesskey_mac(key, "agent", c[i].nonce, name, mac);
	if (!sesskey_check(mac_hex, mac))
		return -1;
	for (int k = 0; k < NSLOTS; k++)
		authed += c[k].fd >= 0 && c[k].authed;
	if (authed >= MAXCLIENTS)
		return -1;
	char reply[2 * SESSKEY_MAC + 8];
	sesskey_mac(key, "coord", anonce, name, mac);
	memcpy(reply, "OK ", 3);
	sesskey_hex(mac, sizeof(mac), reply + 3);
	strcat(reply, "\n");
	if (write(c[i].fd, reply, strlen(reply)) != (ssize_t)strlen(reply))
		return -1;
	snprintf(c[i].name, sizeof(c[i].name), "%s", name);
	c[i].authed = 1;
	return 0;
}

static void coordinator(int ls, const uint8_t *key)
{
	struct client c[NSLOTS];
	struct pollfd pf[NSLOTS + 1];
	int seen = 0;
	int64_t idle_since = now_ns();

	for (int i = 0; i < NSLOTS; i++)
		c[i].fd = -1;
	for (;;) {
		int n = 0, live = 0;
		int64_t now = now_ns();
		pf[n++] = (struct pollfd){ ls, POLLIN, 0 };
		for (int i = 0; i < NSLOTS; i++) {
			if (c[i].fd >= 0 && !c[i].authed && now - c[i].since > AUTH_NS)
				drop(&c[i]);
			pf[n++] = (struct pollfd){ c[i].fd, POLLIN, 0 };
			live += c[i].fd >= 0 && c[i].authed;
		}
		/* done when every node left, or none came for 10 minutes */
		if ((seen && !live) || (!live && now - idle_since > 600 * 1000000000LL))
			_exit(0);
		if (poll(pf, (nfds_t)n, 200) <= 0)
			continue;
		if (pf[0].revents & POLLIN) {
			int fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
			if (fd >= 0)
				admit(c, fd);
		}
		for (int i = 0; i < NSLOTS; i++) {
			if (c[i].fd < 0 || !(pf[i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t r = read(c[i].fd, c[i].buf + c[i].len, sizeof(c[i].buf) - c[i].len - 1);
			if (r <= 0) {
				char gone[128];
				int was = c[i].authed;
				drop(&c[i]);
				if (was) {
					snprintf(gone, sizeof(gone), "GONE %s\n", c[i].name);
					relay(c, NSLOTS, i, gone);
					idle_since = now_ns();
				}
				continue;
			}
			c[i].len += (size_t)r;
			c[i].buf[c[i].len] = 0;
			char *nl, *p = c[i].buf;
			while (c[i].fd >= 0 && (nl = strchr(p, '\n'))) {
				char line[512];
				size_t l = (size_t)(nl - p) + 1;
				p = nl + 1;
				if (l >= sizeof(line)) {
					if (!c[i].authed)
						drop(&c[i]);
					continue;
				}
				memcpy(line, p - l, l);
				line[l] = 0;
				if (!c[i].authed) {
					if (authenticate(c, i, line, key) < 0)
						drop(&c[i]);
					else
						seen = 1;
					continue;
				}
				long long t1;
				if (sscanf(line, "TIME %lld", &t1) == 1) {
					/* the session's reference clock: ours */
					char reply[96];
					int rl = snprintf(reply, sizeof(reply), "TIME %lld %lld\n",
							  t1, (long long)host_real_ns());
					if (write(c[i].fd, reply, (size_t)rl) != rl)
						drop(&c[i]);
				} else {
					relay(c, NSLOTS, i, line);
				}
			}
			if (c[i].fd < 0)
				continue;
			c[i].len -= (size_t)(p - c[i].buf);
			memmove(c[i].buf, p, c[i].len);
			/* a client that sends a full buffer without a line end */
			if (c[i].len >= sizeof(c[i].buf) - 1)
				drop(&c[i]);
		}
	}
}

/* Start the coordinator on HOST:PORT if nobody listens there and HOST is
 * ours: a daemon of its own, so that it outlives the capture that
 * started it. */
static void start_coordinator(const struct sockaddr_in *a, const uint8_t *key)
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
		coordinator(ls, key);
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
	long long ra = -1, pa = -1;
	long long heard = 0;
	unsigned holds = 0, seen = UINT32_MAX;
	int st, live, f;

	if ((f = sscanf(line, "STATE %63s %d %llu %llu %d %llu %lld %lld %u %u %lld", a, &st, &x,
			&y, &live, &z, &ra, &pa, &holds, &seen, &heard)) >= 6) {
		int i = slot_of(s, a, 1);
		if (i < 0 || i == ag->idx || !s->node[i].remote)
			return;
		struct sess_node *n = &s->node[i];
		n->max_gap = (int64_t)z;
		n->io_seq = x;
		n->holds = holds;
		int64_t now = now_ns();     /* later by the way here: idle longer */
		n->sampled_at = now;
		n->heard_at = now - heard;
		n->th[0].since = now - (int64_t)y;
		n->retry_at = ra >= 0 ? now - ra : 0;
		n->progress_at = pa >= 0 ? now - pa : 0;
		n->th[0].pid = 0;
		__atomic_store_n(&n->th[0].tid, live ? 1 : 0, __ATOMIC_RELEASE);
		__atomic_store_n(&n->state, st == SN_EXITED ? SN_EXITED : SN_RUNNING,
				 __ATOMIC_RELEASE);
		__atomic_store_n(&n->seen_holds, f >= 11 ? seen : UINT32_MAX, __ATOMIC_RELEASE);
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
			s->deps[k] = (struct sess_dep){ t, xn, x, z, 0, 0 };
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
	int64_t latest = 0, now;
	int live = 0;
	uint32_t seen = 0;

	/* the holds of the other hosts' nodes we know of, before our state:
	 * what follows was sampled after them */
	for (int i = 0; i < SESS_NODES; i++)
		if (i != ag->idx && ag->s->node[i].remote && ag->s->node[i].holds > seen)
			seen = ag->s->node[i].holds;
	if (seen != ag->heard) {
		ag->heard = seen;
		ag->heard_at = now_ns();
	}
	__atomic_thread_fence(__ATOMIC_ACQ_REL);
	now = now_ns();
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
	say(ag, "STATE %s %d %llu %lld %d %lld %lld %lld %u %u %lld\n", me->name, me->state,
	    (unsigned long long)me->io_seq, (long long)(live ? now - latest : 0), live,
	    (long long)me->max_gap, (long long)(me->retry_at ? now - me->retry_at : -1),
	    (long long)(me->progress_at ? now - me->progress_at : -1),
	    (unsigned)me->holds, (unsigned)seen, (long long)(now - ag->heard_at));
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

/* One line of the handshake, read a byte at a time (what follows it is
 * the agent thread's), within the 2 s the coordinator gives us. */
static int read_line(int fd, char *line, size_t size)
{
	size_t n = 0;
	int64_t end = now_ns() + AUTH_NS;

	while (n + 1 < size) {
		struct pollfd pf = { fd, POLLIN, 0 };
		int left = (int)((end - now_ns()) / 1000000);
		if (left <= 0 || poll(&pf, 1, left) <= 0 || read(fd, line + n, 1) != 1)
			return -1;
		if (line[n] == '\n') {
			line[n] = 0;
			return 0;
		}
		n++;
	}
	return -1;
}

/* Prove we know the key, and have the coordinator prove it: 0 when both
 * hold, 1 when the coordinator dropped us before its challenge (too many
 * waiting: try again), -1 when it refused our proof or gave a wrong one. */
static int handshake(struct agent *ag, const char *name)
{
	char line[256], hex[2 * SESSKEY_NONCE + 1], machex[2 * SESSKEY_MAC + 1];
	uint8_t cnonce[SESSKEY_NONCE], anonce[SESSKEY_NONCE], mac[SESSKEY_MAC];

	if (read_line(ag->fd, line, sizeof(line)) < 0)
		return 1;
	if (strncmp(line, "CHAL ", 5) || sesskey_unhex(line + 5, cnonce, sizeof(cnonce)) < 0)
		return -1;
	sesskey_random(anonce, sizeof(anonce));
	sesskey_hex(anonce, sizeof(anonce), hex);
	sesskey_mac(ag->key, "agent", cnonce, name, mac);
	sesskey_hex(mac, sizeof(mac), machex);
	say(ag, "AUTH %s %s %s\n", name, hex, machex);
	if (ag->fd < 0 || read_line(ag->fd, line, sizeof(line)) < 0 || strncmp(line, "OK ", 3))
		return -1;
	sesskey_mac(ag->key, "coord", anonce, name, mac);
	return sesskey_check(line + 3, mac) ? 0 : -1;
}

void agent_key(struct agent *ag, const char *key_file)
{
	ag->key_file = key_file ? key_file : sesskey_default_path();
	ag->have_key = sesskey_load(ag->key_file, 0, ag->key) == 0;
}

int agent_start(struct agent *ag, const char *hostport, struct session *s, int idx)
{
	const char *key_file;
	char host[256];
	int port, have_key, started = 0;
	struct sockaddr_in a;

	if (sscanf(hostport, "%255[^:]:%d", host, &port) != 2 || port <= 0 || port > 65535)
		die(2, "--session: '%s' is not HOST:PORT", hostport);
	if (resolve(host, port, &a) < 0)
		die(2, "--session: cannot resolve '%s'", host);
	have_key = ag->have_key;
	key_file = ag->key_file;
	ag->s = s;
	ag->idx = idx;
	ag->fd = -1;
	for (int attempt = 0; attempt < 250 && ag->fd < 0; attempt++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
		if (connect(fd, (void *)&a, sizeof(a)) == 0) {
			/* the node that started the coordinator made the key
			 * file first: it may have done so after we looked */
			if (!have_key)
				have_key = sesskey_load(key_file, 0, ag->key) == 0;
			if (!have_key) {
				close(fd);
				warnx("--session %s: no key file %s: copy there the one of the host "
				      "that started the session, or give --key-file", hostport, key_file);
				return -1;
			}
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			ag->fd = fd;
			int h = handshake(ag, s->node[idx].name);
			if (h < 0) {
				if (ag->fd >= 0)
					close(ag->fd);
				ag->fd = -1;
				warnx("--session %s: refused: the coordinator does not share the "
				      "key of %s", hostport, key_file);
				return -1;
			}
			if (h > 0 && ag->fd >= 0)
				close(ag->fd);
			if (h > 0)
				ag->fd = -1;
			if (ag->fd >= 0)
				break;
		} else {
			close(fd);
		}
		/* nobody listens: the first node makes the key and the
		 * coordinator (which inherits the key) */
		if (!started) {
			started = 1;
			if (!have_key)
				have_key = sesskey_load(key_file, 1, ag->key) == 0;
			start_coordinator(&a, ag->key);
		}
		usleep(20000);
	}
	if (ag->fd < 0) {
		warnx("--session %s: no coordinator answers there", hostport);
		return -1;
	}
	signal(SIGPIPE, SIG_IGN);
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
