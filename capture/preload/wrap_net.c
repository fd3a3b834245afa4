/* Wrappers: sockets and pipes. */
#include <sys/syscall.h>

#include "preload.h"
#include "real.h"

/* Calls that create or name a socket carry a struct sockinfo. */
static void put_sock(struct tstate *t, int call, uint64_t t0, int64_t ret,
		     int fd, int infofd, int64_t a1, int64_t a2, int e,
		     const void *peer, size_t plen)
{
	struct sockinfo si;
	uint64_t t1 = now();

	/* a failed call's address may point nowhere */
	if (ret < 0 && peer && !app_mem_ok(peer, plen, e))
		peer = NULL, plen = 0;
	if (infofd >= 0)
		sockinfo_fill(&si, infofd, peer, plen);
	else
		memset(&si, 0, sizeof(si));
	put_payload(t, call, t0, t1, ret, fd, a1, a2, ret < 0 ? e : 0, &si,
		    sizeof(si), NULL, 0);
}

EXPORT int socket(int domain, int type, int proto)
{
	struct tstate *t = &ts;

	if (!enter(t))
		return REAL(socket)(domain, type, proto);
	uint64_t t0 = call_start(t);
	int r = REAL(socket)(domain, type, proto);
	int e = errno;
	put_sock(t, C_SOCKET, t0, r, r, r, domain, type, e, NULL, 0);
	leave(t);
	errno = e;
	return r;
}

static uint64_t ino_of(int fd)
{
	struct stat st;

	return syscall(SYS_fstat, fd, &st) == 0 ? st.st_ino : 0;
}

/* pipe, pipe2, socketpair: fd and a1 are the two ends; payload the two
 * inodes; a2 the socket type (0 for a pipe) with the O_CLOEXEC and
 * O_NONBLOCK the call asked for (SOCK_CLOEXEC and SOCK_NONBLOCK are the
 * same bits). */
static void put_pair(struct tstate *t, int call, uint64_t t0, int r, int e,
		     const int sv[2], int type)
{
	uint64_t t1 = now();
	uint64_t ino[2] = { 0, 0 };

	if (r == 0) {
		ino[0] = ino_of(sv[0]);
		ino[1] = ino_of(sv[1]);
	}
	put_payload(t, call, t0, t1, r, r == 0 ? sv[0] : -1,
		    r == 0 ? sv[1] : -1, type, r ? e : 0, ino, sizeof(ino),
		    NULL, 0);
}

EXPORT int socketpair(int domain, int type, int proto, int sv[2])
{
	struct tstate *t = &ts;

	if (!enter(t))
		return REAL(socketpair)(domain, type, proto, sv);
	uint64_t t0 = call_start(t);
	int r = REAL(socketpair)(domain, type, proto, sv);
	int e = errno;
	put_pair(t, C_SOCKETPAIR, t0, r, e, sv, type & (0xff | SOCK_CLOEXEC | SOCK_NONBLOCK));
	leave(t);
	errno = e;
	return r;
}

EXPORT int pipe(int fds[2])
{
	struct tstate *t = &ts;

	if (unlikely(t->unwinding)) {	/* libunwind's: none (sampler.c) */
		errno = EMFILE;
		return -1;
	}
	if (!enter(t))
		return REAL(pipe)(fds);
	uint64_t t0 = call_start(t);
	int r = REAL(pipe)(fds);
	int e = errno;
	put_pair(t, C_PIPE, t0, r, e, fds, 0);
	leave(t);
	errno = e;
	return r;
}

EXPORT int pipe2(int fds[2], int flags)
{
	struct tstate *t = &ts;

	if (unlikely(t->unwinding)) {	/* libunwind's: none (sampler.c) */
		errno = EMFILE;
		return -1;
	}
	if (!enter(t))
		return REAL(pipe2)(fds, flags);
	uint64_t t0 = call_start(t);
	int r = REAL(pipe2)(fds, flags);
	int e = errno;
	put_pair(t, C_PIPE, t0, r, e, fds, flags & (O_CLOEXEC | O_NONBLOCK));
	leave(t);
	errno = e;
	return r;
}

EXPORT int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct tstate *t = &ts;

	if (!enter(t))
		return REAL(bind)(fd, addr, len);
	uint64_t t0 = call_start(t);
	int r = REAL(bind)(fd, addr, len);
	int e = errno;
	put_sock(t, C_BIND, t0, r, fd, fd, 0, 0, e, NULL, 0);
	leave(t);
	errno = e;
	return r;
}

EXPORT int listen(int fd, int backlog)
{
	TRACE_CALL(C_LISTEN, int, REAL(listen)(fd, backlog), fd, backlog, 0);
}

EXPORT int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct tstate *t = &ts;

	if (!enter(t))
		return REAL(connect)(fd, addr, len);
	SESS_BEFORE(t, C_CONNECT, 0);
	uint64_t t0 = call_start(t);
	int r = REAL(connect)(fd, addr, len);
	int e = errno;
	put_sock(t, C_CONNECT, t0, r, fd, fd, 0, 0, e, addr, addr ? len : 0);
	leave(t);
	errno = e;
	return r;
}

static int accept_common(int fd, struct sockaddr *addr, socklen_t *len,
			 int flags, int four)
{
	struct tstate *t = &ts;
	int r;

	if (!enter(t))
		return four ? REAL(accept4)(fd, addr, len, flags)
			    : REAL(accept)(fd, addr, len);
	SESS_BEFORE(t, C_ACCEPT, 0);
	uint64_t t0 = call_start(t);
	r = four ? REAL(accept4)(fd, addr, len, flags) : REAL(accept)(fd, addr, len);
	int e = errno;
	put_sock(t, C_ACCEPT, t0, r, r, r, fd, 0, e,
		 r >= 0 && addr && len ? addr : NULL,
		 r >= 0 && addr && len ? *len : 0);
	leave(t);
	errno = e;
	return r;
}

EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	return accept_common(fd, addr, len, 0, 0);
}

EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	return accept_common(fd, addr, len, flags, 1);
}

EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	TRACE_CALL(C_SEND, ssize_t, REAL(send)(fd, buf, n, flags), fd,
		   (int64_t)n, -1);
}

/* Calls with a per-message address carry the raw sockaddr as payload. */
#define ADDR_CALL(CALL, EXPR, FD, N, ADDR, ALEN)                           \
	do {                                                               \
		struct tstate *t_ = &ts;                                   \
		if (!enter(t_))                                            \
			return EXPR;                                       \
		SESS_BEFORE(t_, CALL, 0);                                  \
		uint64_t t0_ = call_start(t_);                             \
		ssize_t r_ = EXPR;                                         \
		uint64_t t1_ = now();                                      \
		int e_ = errno, err_ = r_ < 0 ? e_ : 0;                    \
		/* a failed call's pointers may point nowhere: N given   \
		 * err_, its address not read */                           \
		const void *ad_ = r_ >= 0 ? (const void *)(ADDR) : NULL;   \
		size_t al_ = ad_ ? (size_t)(ALEN) : 0;                     \
		if (al_ > sizeof(struct sockaddr_storage))                 \
			al_ = sizeof(struct sockaddr_storage);             \
		put_payload(t_, CALL, t0_, t1_, r_, FD, (int64_t)(N), -1,  \
			    err_, ad_, al_, NULL, 0);                      \
		leave(t_);                                                 \
		errno = e_;                                                \
		return r_;                                                 \
	} while (0)

EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags,
		      const struct sockaddr *addr, socklen_t alen)
{
	ADDR_CALL(C_SENDTO, REAL(sendto)(fd, buf, n, flags, addr, alen), fd, n,
		  addr, alen);
}

/* the bytes asked for, or -1 when the call failed and the message may
 * point nowhere (appmem.c) */
static int64_t msgsum(const struct msghdr *m, int err)
{
	int64_t s = 0;

	if (err && (!m || !app_mem_ok(m, sizeof(*m), err) || m->msg_iovlen > 1024 ||
		    !app_mem_ok(m->msg_iov, m->msg_iovlen * sizeof(*m->msg_iov), err)))
		return -1;
	for (size_t i = 0; m && m->msg_iov && i < m->msg_iovlen; i++)
		s += (int64_t)m->msg_iov[i].iov_len;
	return s;
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
	ADDR_CALL(C_SENDMSG, REAL(sendmsg)(fd, m, flags), fd, msgsum(m, err_),
		  m ? m->msg_name : NULL, m ? m->msg_namelen : 0);
}

EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	TRACE_CALL(C_RECV, ssize_t, REAL(recv)(fd, buf, n, flags), fd,
		   (int64_t)n, -1);
}

EXPORT ssize_t __recv_chk(int fd, void *buf, size_t n, size_t bl, int flags)
{
	TRACE_CALL(C_RECV, ssize_t, REAL(__recv_chk)(fd, buf, n, bl, flags), fd,
		   (int64_t)n, -1);
}

EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int flags,
			struct sockaddr *addr, socklen_t *alen)
{
	ADDR_CALL(C_RECVFROM, REAL(recvfrom)(fd, buf, n, flags, addr, alen), fd,
		  n, addr && alen ? addr : NULL, alen ? *alen : 0);
}

EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t bl,
			      int flags, struct sockaddr *addr, socklen_t *alen)
{
	ADDR_CALL(C_RECVFROM,
		  REAL(__recvfrom_chk)(fd, buf, n, bl, flags, addr, alen), fd,
		  n, addr && alen ? addr : NULL, alen ? *alen : 0);
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	ADDR_CALL(C_RECVMSG, REAL(recvmsg)(fd, m, flags), fd, msgsum(m, err_),
		  m ? m->msg_name : NULL, m ? m->msg_namelen : 0);
}

static int64_t mmsgsum(const struct mmsghdr *v, int n)
{
	int64_t s = 0;

	for (int i = 0; v && i < n; i++)
		s += v[i].msg_len;
	return s;
}

EXPORT int sendmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags)
{
	struct tstate *t = &ts;

	if (!enter(t))
		return REAL(sendmmsg)(fd, v, n, flags);
	SESS_BEFORE(t, C_SENDMMSG, 0);
	uint64_t t0 = call_start(t);
	int r = REAL(sendmmsg)(fd, v, n, flags);
	uint64_t t1 = now();
	int e = errno;
	put(t, C_SENDMMSG, t0, t1, r, fd, n, mmsgsum(v, r), r < 0 ? e : 0);
	leave(t);
	errno = e;
	return r;
}

EXPORT int recvmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags,
		    struct timespec *tmo)
{
	struct tstate *t = &ts;

	if (!enter(t))
		return REAL(recvmmsg)(fd, v, n, flags, tmo);
	SESS_BEFORE(t, C_RECVMMSG, 0);
	uint64_t t0 = call_start(t);
	int r = REAL(recvmmsg)(fd, v, n, flags, tmo);
	uint64_t t1 = now();
	int e = errno;
	put(t, C_RECVMMSG, t0, t1, r, fd, n, mmsgsum(v, r), r < 0 ? e : 0);
	leave(t);
	errno = e;
	return r;
}

EXPORT int shutdown(int fd, int how)
{
	TRACE_CALL(C_SHUTDOWN, int, REAL(shutdown)(fd, how), fd, how, 0);
}
