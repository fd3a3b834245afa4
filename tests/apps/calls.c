/*
 * calls DIR [uring|clone]: every call issue 12 added to the default
 * capture, on files in DIR, with amounts the test states literally:
 *   map.dat    ftruncate 8192, mmap 8192, msync 4096 (filewrite 4096), munmap
 *   alloc.dat  fallocate 16384, posix_fallocate 20000, truncate 1000, the
 *              access, chmod and chown families, link, symlink, readlink,
 *              renameat2, unlink, remove on names of it
 *   scan.txt   12 bytes written; fscanf "%d %d" consumes 5, ftell,
 *              fgetpos, rewind, fsetpos, ftello, vfscanf consumes 2
 *   src.dat    4000 bytes written; read by splice 1000, sendfile 700,
 *              copy_file_range 600 (2300 read)
 *   spl.dat, sf.dat, cfr.dat  written 1000, 700, 600 by those
 *   pipes      tee 300 from one pipe to another, vmsplice 500 into one
 *   popen      "echo popen" read through the stream: 6 bytes
 *   lines.txt  8292 bytes (a first line of 101), read through a stream
 *              with a 4096-byte buffer: fgets 101 (the kernel read 4096),
 *              fread 5000 (4096), fgetc 1 (nothing), fread of 10000 gets
 *              the last 3190 (100)
 * uring: io_uring_setup and io_uring_enter through syscall() (the process
 * is incomplete: io_uring operations are not itemised). clone: a child by
 * clone() without CLONE_VM (captured like a fork child) that writes 10
 * bytes to clone.dat, and one with CLONE_VM|CLONE_VFORK (not captured).
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static int mk(const char *name, int size)
{
	char buf[4096];
	int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		die(name);
	memset(buf, 'x', sizeof(buf));
	for (int left = size; left > 0; ) {
		int n = left < (int)sizeof(buf) ? left : (int)sizeof(buf);
		if (write(fd, buf, n) != n)
			die("write");
		left -= n;
	}
	return fd;
}

static int my_scan(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vfscanf(f, fmt, ap);
	va_end(ap);
	return r;
}

static void mapping(void)
{
	int fd = mk("map.dat", 0);

	if (ftruncate(fd, 8192))
		die("ftruncate");
	char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap");
	memset(p, 'm', 8192);
	if (msync(p, 4096, MS_SYNC) || munmap(p, 8192))
		die("msync");
	close(fd);
}

static void meta(void)
{
	char buf[64];
	int fd = mk("alloc.dat", 0);

	if (fallocate(fd, 0, 0, 16384) || posix_fallocate(fd, 0, 20000) ||
	    truncate("alloc.dat", 1000))
		die("allocate");
	if (access("alloc.dat", R_OK) || faccessat(AT_FDCWD, "alloc.dat", W_OK, 0) ||
	    euidaccess("alloc.dat", F_OK) || eaccess("alloc.dat", F_OK))
		die("access");
	if (chmod("alloc.dat", 0600) || fchmod(fd, 0644) ||
	    fchmodat(AT_FDCWD, "alloc.dat", 0640, 0))
		die("chmod");
	if (chown("alloc.dat", getuid(), getgid()) || fchown(fd, getuid(), getgid()) ||
	    lchown("alloc.dat", getuid(), getgid()) ||
	    fchownat(AT_FDCWD, "alloc.dat", getuid(), getgid(), 0))
		die("chown");
	close(fd);
	if (link("alloc.dat", "hard.dat") ||
	    linkat(AT_FDCWD, "hard.dat", AT_FDCWD, "hard2.dat", 0) ||
	    symlink("alloc.dat", "sym.lnk") || symlinkat("alloc.dat", AT_FDCWD, "sym2.lnk"))
		die("link");
	if (readlink("sym.lnk", buf, sizeof(buf)) != 9 ||
	    readlinkat(AT_FDCWD, "sym2.lnk", buf, sizeof(buf)) != 9)
		die("readlink");
	if (renameat2(AT_FDCWD, "hard2.dat", AT_FDCWD, "hard3.dat", RENAME_NOREPLACE) ||
	    unlink("hard.dat") || unlinkat(AT_FDCWD, "hard3.dat", 0) ||
	    remove("sym.lnk") || remove("sym2.lnk"))
		die("rename");
}

static void scanning(void)
{
	int a, b, c;
	fpos_t pos;
	int fd = open("scan.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, "12 34 hello\n", 12) != 12)
		die("scan.txt");
	close(fd);
	FILE *f = fopen("scan.txt", "r");
	if (!f || fscanf(f, "%d %d", &a, &b) != 2 || ftell(f) != 5 ||
	    fgetpos(f, &pos))
		die("fscanf");
	rewind(f);
	if (fsetpos(f, &pos) || ftello(f) != 5)
		die("fsetpos");
	rewind(f);
	if (my_scan(f, "%d", &c) != 1 || c != 12)
		die("vfscanf");
	fclose(f);
}

static void copies(void)
{
	int src = mk("src.dat", 4000);
	int spl = mk("spl.dat", 0), sf = mk("sf.dat", 0), cfr = mk("cfr.dat", 0);
	int p[2], q[2];
	char buf[1000];
	loff_t off = 0;

	if (pipe(p) || pipe(q))
		die("pipe");
	if (splice(src, &off, p[1], NULL, 1000, 0) != 1000 ||
	    splice(p[0], NULL, spl, NULL, 1000, 0) != 1000)
		die("splice");
	off_t soff = 1000;
	if (sendfile(sf, src, &soff, 700) != 700)
		die("sendfile");
	loff_t coff = 1700;
	if (copy_file_range(src, &coff, cfr, NULL, 600, 0) != 600)
		die("copy_file_range");
	if (write(p[1], buf, 300) != 300 || tee(p[0], q[1], 300, 0) != 300 ||
	    read(p[0], buf, 300) != 300 || read(q[0], buf, 300) != 300)
		die("tee");
	struct iovec iov = { buf, 500 };
	memset(buf, 'v', sizeof(buf));
	if (vmsplice(q[1], &iov, 1, 0) != 500 || read(q[0], buf, 500) != 500)
		die("vmsplice");
	close(p[0]); close(p[1]); close(q[0]); close(q[1]);
	close(src); close(spl); close(sf); close(cfr);
}

static void stdio_reads(void)
{
	static char buf[10000];
	int fd = mk("lines.txt", 8292);

	if (lseek(fd, 100, SEEK_SET) != 100 || write(fd, "\n", 1) != 1)
		die("lines.txt");
	close(fd);
	FILE *f = fopen("lines.txt", "r");
	if (!f || setvbuf(f, NULL, _IOFBF, 4096) || !fgets(buf, 200, f) ||
	    strlen(buf) != 101 || fread(buf, 1, 5000, f) != 5000 ||
	    fgetc(f) != 'x' || fread(buf, 1, 10000, f) != 3190)
		die("stdio reads");
	fclose(f);
}

static void popens(void)
{
	char line[64];
	FILE *f = popen("echo popen", "r");

	if (!f || !fgets(line, sizeof(line), f) || strcmp(line, "popen\n"))
		die("popen");
	if (pclose(f) != 0)
		die("pclose");
}

static void uring(void)
{
	struct io_uring_params prm;

	memset(&prm, 0, sizeof(prm));
	long fd = syscall(SYS_io_uring_setup, 4, &prm);
	if (fd < 0) {
		perror("io_uring_setup");
		exit(77);
	}
	if (syscall(SYS_io_uring_enter, (int)fd, 0, 0, 0, NULL, 0) != 0)
		die("io_uring_enter");
	close((int)fd);
}

static char stack[2][65536] __attribute__((aligned(16)));

static int child_writes(void *arg)
{
	int fd = open("clone.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, "0123456789", 10) != 10)
		return 1;
	close(fd);
	return 0;
}

static int child_quiet(void *arg)
{
	return 0;
}

static void clones(void)
{
	int st;
	pid_t c = clone(child_writes, stack[0] + sizeof(stack[0]), SIGCHLD, NULL);

	if (c < 0 || waitpid(c, &st, 0) != c || st != 0)
		die("clone");
	c = clone(child_quiet, stack[1] + sizeof(stack[1]),
		  CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
	if (c < 0 || waitpid(c, &st, 0) != c || st != 0)
		die("clone vm");
}

int main(int argc, char **argv)
{
	if (argc < 2 || chdir(argv[1]))
		die("usage: calls DIR [uring|clone]");
	if (argc > 2 && !strcmp(argv[2], "uring"))
		uring();
	else if (argc > 2 && !strcmp(argv[2], "clone"))
		clones();
	else {
		mapping();
		meta();
		scanning();
		copies();
		popens();
		stdio_reads();
	}
	return 0;
}
