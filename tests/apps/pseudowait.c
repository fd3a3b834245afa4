/* pseudowait: after a barrier over TCP (through node 0, which the others
 * connect to, retrying until it listens), the first half
 * of the nodes wait each for one node of the second half: node i for node
 * i + N/2, through a file it publishes (MODE file: written, then renamed
 * into place; the waiter polls for it with access(), which is no I/O) or
 * through shared memory (MODE shm: a slot of a file both map, set after
 * the writer's own log write; the waiter sleeps 0.5 ms at a time until it
 * is set, then logs). A sparse dependency: each waiter waits for one
 * node. Then a second barrier. Ground truth in DIR/truth.NAME, as the
 * other pseudo-applications write it.
 * Usage: NAME INDEX NNODES HOST PORT DIR file|shm [UNIT_MS] */
#include <sys/mman.h>

#include "pseudo.h"

/* file: the writer's publish (open, write, close of a temporary, rename);
 * its content names the rename, the I/O that releases the waiter */
static void publish_file(struct pseudo *p)
{
	char tmp[4096], path[4096], buf[64];

	snprintf(tmp, sizeof(tmp), "%s/wait.%s.tmp", p->dir, p->name);
	snprintf(path, sizeof(path), "%s/wait.%s", p->dir, p->name);
	int fd = IO(open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644));
	int n = snprintf(buf, sizeof(buf), "%d %lu\n", p->index, nio + 3);
	if (fd < 0 || IO(write(fd, buf, (size_t)n)) != n)
		die_("write wait file");
	IO(close(fd));
	if (IO(rename(tmp, path)) < 0)
		die_("rename wait file");
}

static void await_file(struct pseudo *p, int from)
{
	char path[4096], buf[64] = "";
	int w;
	unsigned long k;

	snprintf(path, sizeof(path), "%s/wait.n%d", p->dir, from);
	while (access(path, F_OK) < 0)
		usleep(1000);
	unsigned long at = NEXT_IO;  /* the open: no such file before */
	int fd = IO(open(path, O_RDONLY));
	if (fd < 0 || IO(read(fd, buf, sizeof(buf) - 1)) <= 0)
		die_("read wait file");
	if (sscanf(buf, "%d %lu", &w, &k) == 2)
		truth(p, at, w, k);
	IO(close(fd));
}

/* shm: slot i of DIR/wait.shm holds node i's log write's number, once
 * that write is done */
static volatile uint64_t *slots(struct pseudo *p)
{
	char path[4096];
	size_t len = (size_t)p->nnodes * sizeof(uint64_t);

	snprintf(path, sizeof(path), "%s/wait.shm", p->dir);
	int fd = IO(open(path, O_RDWR | O_CREAT, 0644));
	if (fd < 0 || IO(ftruncate(fd, (off_t)len)) < 0)
		die_("shm file");
	void *m = IO(mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
	if (m == MAP_FAILED)
		die_("mmap");
	IO(close(fd));
	return m;
}

static int log_fd(struct pseudo *p)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/log.%s", p->dir, p->name);
	int fd = IO(open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644));
	if (fd < 0)
		die_("log");
	return fd;
}

/* Node 0 listens; the others retry connect() every 2 ms until it does,
 * in whatever order they come (no file says when: the barrier is TCP
 * alone); each says who it is, and with which connect. */
static void connect_all(struct pseudo *p)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int one = 1;

	a.sin_port = htons((uint16_t)p->port);
	inet_pton(AF_INET, p->index ? p->host : "0.0.0.0", &a.sin_addr);
	if (p->index == 0) {
		int ls = IO(socket(AF_INET, SOCK_STREAM, 0));
		setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (IO(bind(ls, (void *)&a, sizeof(a))) < 0 || IO(listen(ls, 128)) < 0)
			die_("listen");
		for (int i = 1; i < p->nnodes; i++) {
			int c = IO(accept(ls, NULL, NULL));
			unsigned long accepted = nio;
			struct msg m;
			if (c < 0 || IO(recv(c, &m, sizeof(m), MSG_WAITALL)) != sizeof(m))
				die_("accept");
			if (m.from <= 0 || m.from >= p->nnodes)
				die_("hello");
			p->peer[m.from] = c;
			p->tlen += (size_t)snprintf(p->truth + p->tlen, sizeof(p->truth) - p->tlen,
						    "n0 %lu n%d %llu\n", accepted, m.from,
						    (unsigned long long)m.cseq);
			truth(p, nio, m.from, m.seq);
		}
		IO(close(ls));
		return;
	}
	for (;;) {
		int s = IO(socket(AF_INET, SOCK_STREAM, 0));
		if (IO(connect(s, (void *)&a, sizeof(a))) == 0) {
			truth(p, nio, 0, 3);     /* node 0's listen: its I/O 3 */
			struct msg m = { .from = p->index, .cseq = nio };
			m.seq = NEXT_IO;
			if (IO(send(s, &m, sizeof(m), 0)) != sizeof(m))
				die_("hello");
			p->peer[0] = s;
			return;
		}
		IO(close(s));
		usleep(2000);
	}
}

int main(int argc, char **argv)
{
	struct pseudo p = { 0 };

	if (argc < 8 || (strcmp(argv[7], "file") && strcmp(argv[7], "shm"))) {
		const char u[] = "usage: NAME INDEX NNODES HOST PORT DIR file|shm [UNIT_MS]\n";
		if (write(2, u, sizeof(u) - 1) < 0)
			_exit(2);
		_exit(2);
	}
	int shm = !strcmp(argv[7], "shm");
	double unit = argc > 8 ? atof(argv[8]) : 5;
	pseudo_args(&p, 7, argv);
	p.unit = unit;
	int half = p.nnodes / 2, waits = p.index < half && p.index + half < p.nnodes;
	connect_all(&p);             /* first: node 0's listen is its I/O 3 */
	volatile uint64_t *slot = shm ? slots(&p) : NULL;
	int lf = shm ? log_fd(&p) : -1;
	pseudo_barrier(&p, 0);
	if (p.index >= half) {       /* the nodes waited for: compute, publish */
		compute_ms(p.unit * (1 + p.index % 3));
		if (shm) {
			uint64_t k = NEXT_IO;
			if (IO(write(lf, "done\n", 5)) != 5)
				die_("log write");
			__atomic_store_n(&slot[p.index], k, __ATOMIC_RELEASE);
		} else {
			publish_file(&p);
		}
	} else if (waits) {
		int from = p.index + half;
		if (shm) {
			uint64_t k;
			while (!(k = __atomic_load_n(&slot[from], __ATOMIC_ACQUIRE)))
				usleep(500);
			if (IO(write(lf, "seen\n", 5)) != 5)
				die_("log write");
			truth(&p, nio, from, k);
		} else {
			await_file(&p, from);
		}
	}
	pseudo_barrier(&p, 1);
	if (lf >= 0)
		IO(close(lf));
	pseudo_finish(&p);
	return 0;
}
