/* Replay descriptors as the node process knows them: which are sinks
 * (a socket whose peer is outside the replay: a drain thread reads what
 * is sent, and what the trace received is injected for the reads) and
 * of which socket type, shared by every duplicate, fork and exec. */
#include "exec.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

/* What the node process knows of each replay descriptor: a sink's
 * injection end (+1; shared by every duplicate of the sink, which the
 * traced processes make with dup and inherit with fork, so counted) and
 * the socket type, asked once (+1; 1: not a socket). */
#define MAXFD (1 << 16)
static struct rfd { int inject; int type; } rfds[MAXFD];
static int injref[MAXFD];
static pthread_mutex_t rfd_mu = PTHREAD_MUTEX_INITIALIZER;

static void inject_put(int inj)
{
	if (inj >= 0 && --injref[inj] == 0)
		close(inj);
}

/* A duplicate of rfd that is what rfd is (a sink stays a sink). */
int rfd_dup(int rfd)
{
	int nfd = fcntl(rfd, F_DUPFD_CLOEXEC, 0);

	if (nfd < 0 || nfd >= MAXFD || rfd >= MAXFD)
		return nfd;
	pthread_mutex_lock(&rfd_mu);
	inject_put(rfds[nfd].inject - 1);
	rfds[nfd] = rfds[rfd];
	if (rfds[nfd].inject > 0)
		injref[rfds[nfd].inject - 1]++;
	pthread_mutex_unlock(&rfd_mu);
	return nfd;
}

/* rfd becomes what with is (dup3 keeps the number the tables hold). */
int rfd_replace(int rfd, int with)
{
	if (rfd >= MAXFD || dup3(with, rfd, O_CLOEXEC) < 0) {
		close(with);
		return -1;
	}
	pthread_mutex_lock(&rfd_mu);
	inject_put(rfds[rfd].inject - 1);
	rfds[rfd] = rfds[with];
	rfds[with] = (struct rfd){ 0, 0 };
	pthread_mutex_unlock(&rfd_mu);
	close(with);
	return 0;
}

/* Forget what rfd was (its number is free for anything) and close it. */
int rfd_close(int rfd)
{
	if (rfd >= 0 && rfd < MAXFD) {
		pthread_mutex_lock(&rfd_mu);
		inject_put(rfds[rfd].inject - 1);
		rfds[rfd] = (struct rfd){ 0, 0 };
		pthread_mutex_unlock(&rfd_mu);
	}
	return close(rfd);
}

/* ---- the sink ------------------------------------------------------------ */

static void *drain(void *arg)
{
	int fd = (int)(long)arg;
	char b[65536];

	while (read(fd, b, sizeof(b)) > 0)
		;
	close(fd);
	return NULL;
}

int net_sink(struct rctx *c, const struct op *o)
{
	int sv[2];
	pthread_t t;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -1;
	/* the drain owns its end; we keep a dup to inject what the trace
	 * received */
	int inj = fcntl(sv[1], F_DUPFD_CLOEXEC, 0);
	if (sv[0] >= MAXFD || inj < 0 || inj >= MAXFD) {
		close(sv[0]);
		close(sv[1]);
		if (inj >= 0)
			close(inj);
		return errno = EMFILE, -1;
	}
	pthread_mutex_lock(&rfd_mu);
	rfds[sv[0]] = (struct rfd){ inj + 1, SOCK_STREAM + 1 };
	injref[inj] = 1;
	pthread_mutex_unlock(&rfd_mu);
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 128 * 1024);
	if (pthread_create(&t, &at, drain, (void *)(long)sv[1]))
		close(sv[1]);
	pthread_attr_destroy(&at);
	return sv[0];
}

/* a descriptor number reused by a real socket is no longer a sink */
int rfd_real(int fd)
{
	if (fd >= 0 && fd < MAXFD) {
		pthread_mutex_lock(&rfd_mu);
		inject_put(rfds[fd].inject - 1);
		rfds[fd] = (struct rfd){ 0, 0 };
		pthread_mutex_unlock(&rfd_mu);
	}
	return fd;
}

/* SOCK_STREAM, SOCK_DGRAM, or 0 for a pipe; asked once per descriptor */
int rfd_type(int fd)
{
	if (fd < MAXFD && rfds[fd].type)
		return rfds[fd].type - 1;
	int type = 0;
	socklen_t len = sizeof(type);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len))
		type = 0;	/* a pipe */
	if (fd < MAXFD)
		rfds[fd].type = type + 1;
	return type;
}

int rfd_inject(int fd)
{
	return fd < MAXFD ? rfds[fd].inject - 1 : -1;
}

int net_is_sink(int fd)
{
	return fd >= 0 && rfd_inject(fd) >= 0;
}

int net_is_dgram(int fd)
{
	return fd >= 0 && rfd_type(fd) == SOCK_DGRAM;
}
