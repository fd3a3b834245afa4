/*
 * routes DIR: write and read files in DIR by every route a program has to
 * the kernel, and print its own account of them at system-call level, in
 * the columns of `island-analyze files --csv` (path, opens, reads,
 * bytes_read, writes, bytes_written, open_at_end): what a capture with
 * --syscalls must report, file by file. Each count is taken from the
 * results of the calls themselves. Built dynamic and -static.
 *
 * Routes: libc write/read, raw syscall(SYS_write/SYS_read), a child made
 * by raw clone() (fork-like, no libc fork), mmap + msync (no read or write
 * system call: msync writes the bytes it flushes, as the default capture
 * counts it), sendfile, copy_file_range (source
 * read, destination written), stdio unbuffered (one system call per
 * fwrite/fprintf/fread, as glibc does for _IONBF streams).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct truth {
	const char *name;
	long opens, reads, bread, writes, bwritten;
};

enum { F_WRITE, F_RAW, F_CLONE, F_MMAP, F_SF_SRC, F_SF_DST, F_CFR_SRC,
       F_CFR_DST, F_STDIO, NF };

/* shared with the clone child's copy: the child reports through a pipe */
static struct truth tr[NF] = {
	{ "libc_write" }, { "raw_syscall" }, { "clone_child" }, { "mmap_msync" },
	{ "sendfile_src" }, { "sendfile_dst" }, { "cfr_src" }, { "cfr_dst" },
	{ "stdio" },
};
static char dir[4096], buf[8192];

static const char *path(int f)
{
	static char p[4200];
	snprintf(p, sizeof(p), "%s/%s", dir, tr[f].name);
	return p;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static int xopen(int f, int flags)
{
	int fd = open(path(f), flags, 0644);
	if (fd < 0)
		die(path(f));
	tr[f].opens++;
	return fd;
}

static void xwrite(int f, int fd, size_t n, int raw)
{
	long r = raw ? syscall(SYS_write, fd, buf, n) : write(fd, buf, n);
	if (r < 0)
		die("write");
	tr[f].writes++;
	tr[f].bwritten += r;
}

static long xread(int f, int fd, size_t n, int raw)
{
	long r = raw ? syscall(SYS_read, fd, buf, n) : read(fd, buf, n);
	if (r < 0)
		die("read");
	tr[f].reads++;
	tr[f].bread += r;
	return r;
}

/* write n bytes in chunks, then read the file back to EOF */
static void write_read(int f, size_t n, size_t chunk, int raw)
{
	int fd = xopen(f, O_RDWR | O_CREAT | O_TRUNC);
	for (size_t done = 0; done < n; done += chunk)
		xwrite(f, fd, chunk, raw);
	if (lseek(fd, 0, SEEK_SET) < 0)
		die("lseek");
	while (xread(f, fd, 512, raw) > 0)
		;
	close(fd);
}

static void clone_child(void)
{
	int p[2];
	if (pipe(p) < 0)
		die("pipe");
	long pid = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
	if (pid < 0)
		die("clone");
	if (pid == 0) {
		close(p[0]);
		write_read(F_CLONE, 900, 300, 0);
		if (write(p[1], &tr[F_CLONE], sizeof(tr[F_CLONE])) < 0)
			_exit(1);
		syscall(SYS_exit_group, 0);
	}
	close(p[1]);
	if (read(p[0], &tr[F_CLONE], sizeof(tr[F_CLONE])) != sizeof(tr[F_CLONE]))
		die("clone child's account");
	close(p[0]);
	int st;
	if (waitpid((pid_t)pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		die("clone child");
}

static void mmap_msync(void)
{
	int fd = xopen(F_MMAP, O_RDWR | O_CREAT | O_TRUNC);
	if (ftruncate(fd, 8192) < 0)
		die("ftruncate");
	char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		die("mmap");
	memset(m, 'm', 8192);
	if (msync(m, 8192, MS_SYNC) < 0)
		die("msync");
	tr[F_MMAP].writes++;
	tr[F_MMAP].bwritten += 8192;
	munmap(m, 8192);
	close(fd);
}

/* src written with write(), then copied to dst by sendfile or
 * copy_file_range: one read of src, one write of dst per call */
static void copy_route(int src, int dst, int use_cfr)
{
	int s = xopen(src, O_RDWR | O_CREAT | O_TRUNC);
	xwrite(src, s, 3000, 0);
	if (lseek(s, 0, SEEK_SET) < 0)
		die("lseek");
	int d = xopen(dst, O_WRONLY | O_CREAT | O_TRUNC);
	for (;;) {
		long r = use_cfr ? copy_file_range(s, NULL, d, NULL, 1000, 0)
				 : sendfile(d, s, NULL, 1000);
		if (r < 0)
			die(use_cfr ? "copy_file_range" : "sendfile");
		tr[src].reads++;
		tr[src].bread += r;
		tr[dst].writes++;
		tr[dst].bwritten += r;
		if (r == 0)
			break;
	}
	close(s);
	close(d);
}

static void stdio_route(void)
{
	FILE *f = fopen(path(F_STDIO), "w+");
	if (!f)
		die(path(F_STDIO));
	tr[F_STDIO].opens++;
	setvbuf(f, NULL, _IONBF, 0);
	for (int i = 0; i < 4; i++) {
		int n = fprintf(f, "line %d of the stdio route\n", i);
		if (n < 0)
			die("fprintf");
		tr[F_STDIO].writes++;
		tr[F_STDIO].bwritten += n;
	}
	if (fwrite(buf, 1, 1000, f) != 1000)
		die("fwrite");
	tr[F_STDIO].writes++;
	tr[F_STDIO].bwritten += 1000;
	rewind(f);
	size_t got = fread(buf, 1, 4000, f);
	/* unbuffered: one read that returns what is there, then one at EOF */
	tr[F_STDIO].reads += 2;
	tr[F_STDIO].bread += (long)got;
	if (fclose(f) != 0)
		die("fclose");
}

int main(int argc, char **argv)
{
	if (argc != 2 || !realpath(argv[1], dir)) {
		fprintf(stderr, "usage: routes DIR\n");
		return 2;
	}
	memset(buf, 'x', sizeof(buf));
	write_read(F_WRITE, 1000, 100, 0);
	write_read(F_RAW, 700, 70, 1);
	clone_child();
	mmap_msync();
	copy_route(F_SF_SRC, F_SF_DST, 0);
	copy_route(F_CFR_SRC, F_CFR_DST, 1);
	stdio_route();
	for (int f = 0; f < NF; f++)
		printf("%s,%ld,%ld,%ld,%ld,%ld,0\n", path(f), tr[f].opens,
		       tr[f].reads, tr[f].bread, tr[f].writes, tr[f].bwritten);
	return 0;
}
