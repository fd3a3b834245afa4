/* Unit tests of island-replay: the path mapping and its escape attempts,
 * the WAIT-cycle check, the call table. */
#include "exec.h"
#include "util.h"

#include "unit.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[] = "/tmp/test-replay.XXXXXX";
static int rootfd = -1;

static const char *map(const char *path, const char *cwd)
{
	static char buf[4096];

	return sandbox_map(path, cwd, buf, sizeof(buf));
}

static void test_map_lexical(void)
{
	CU_ASSERT_STRING_EQUAL(map("/home/u/a.txt", "/"), "home/u/a.txt");
	CU_ASSERT_STRING_EQUAL(map("a.txt", "/home/u"), "home/u/a.txt");
	CU_ASSERT_STRING_EQUAL(map("/etc/passwd", "/tmp"), "etc/passwd");
	CU_ASSERT_STRING_EQUAL(map("../../x", "/home/u"), "x");
	CU_ASSERT_STRING_EQUAL(map("../../../../x", "/home/u"), "x");
	CU_ASSERT_STRING_EQUAL(map("/../../etc/shadow", "/"), "etc/shadow");
	CU_ASSERT_STRING_EQUAL(map("./a/./b//c/../d", "/w"), "w/a/b/d");
	CU_ASSERT_STRING_EQUAL(map("/", "/"), ".");
	CU_ASSERT_STRING_EQUAL(map("..", "/"), ".");
	CU_ASSERT_PTR_NULL(map("", "/"));
	CU_ASSERT_PTR_NULL(map(NULL, "/"));
}

/* The kernel check holds even when the lexical one is bypassed. */
static void test_openat_escapes(void)
{
	int fd;

	fd = sandbox_openat(rootfd, "../outside", O_RDONLY, 0);
	CU_ASSERT_EQUAL(fd, -1);
	CU_ASSERT_EQUAL(errno, EXDEV);
	fd = sandbox_openat(rootfd, "/etc/passwd", O_RDONLY, 0);
	CU_ASSERT_EQUAL(fd, -1);
	CU_ASSERT_EQUAL(errno, EXDEV);
	fd = sandbox_openat(rootfd, "a/../../x", O_RDONLY, 0);
	CU_ASSERT_EQUAL(fd, -1);
	CU_ASSERT_EQUAL(errno, EXDEV);

	/* symlinks planted under the root: absolute, relative, via a dir */
	CU_ASSERT_EQUAL(symlinkat("/etc/passwd", rootfd, "abs"), 0);
	CU_ASSERT_EQUAL(symlinkat("../../../../etc", rootfd, "rel"), 0);
	fd = sandbox_openat(rootfd, "abs", O_RDONLY, 0);
	CU_ASSERT_EQUAL(fd, -1);
	CU_ASSERT_EQUAL(errno, EXDEV);
	fd = sandbox_openat(rootfd, "rel/passwd", O_RDONLY, 0);
	CU_ASSERT_EQUAL(fd, -1);
	CU_ASSERT_EQUAL(errno, EXDEV);
	/* writing through a symlink creates nothing outside either */
	CU_ASSERT_EQUAL(symlinkat("/tmp/test-replay-escaped", rootfd, "out"), 0);
	fd = sandbox_openat(rootfd, "out", O_WRONLY | O_CREAT, 0644);
	CU_ASSERT_EQUAL(fd, -1);
	CU_ASSERT_EQUAL(access("/tmp/test-replay-escaped", F_OK), -1);
	/* /proc magic links are refused too */
	fd = sandbox_openat(rootfd, "proc/self/root/etc/passwd", O_RDONLY, 0);
	CU_ASSERT_EQUAL(fd, -1);

	/* what is inside works, including a symlink that stays inside */
	fd = sandbox_openat(rootfd, "in.txt", O_WRONLY | O_CREAT, 0644);
	CU_ASSERT(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL(symlinkat("in.txt", rootfd, "alias"), 0);
	fd = sandbox_openat(rootfd, "alias", O_RDONLY, 0);
	CU_ASSERT(fd >= 0);
	close(fd);
}

static void test_parent_mkdir(void)
{
	const char *base;
	int d = sandbox_parent(rootfd, "x/y/z/file", 1, &base);
	struct stat st;

	CU_ASSERT(d >= 0);
	CU_ASSERT_STRING_EQUAL(base, "file");
	close(d);
	CU_ASSERT_EQUAL(fstatat(rootfd, "x/y/z", &st, 0), 0);
	CU_ASSERT(S_ISDIR(st.st_mode));
	/* a parent that is a symlink out of the root is refused */
	char out[128];
	CU_ASSERT_EQUAL(symlinkat(tmp, rootfd, "tmplink"), 0);
	d = sandbox_parent(rootfd, "tmplink/sub/file", 1, &base);
	CU_ASSERT_EQUAL(d, -1);
	snprintf(out, sizeof(out), "%s/sub", tmp);
	CU_ASSERT_EQUAL(access(out, F_OK), -1);
}

/* opendir's O_DIRECTORY shares a bit with O_TMPFILE: it is no create, and
 * openat2 refuses a mode without one (every opendir failed with EINVAL) */
static void test_open_directory(void)
{
	CU_ASSERT_EQUAL(mkdirat(rootfd, "opendir", 0755), 0);
	int fd = sandbox_openat(rootfd, "opendir", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0644);
	CU_ASSERT(fd >= 0);
	if (fd >= 0)
		close(fd);
}

static void test_passthrough(void)
{
	CU_ASSERT_TRUE(sandbox_passthrough("/dev/null"));
	CU_ASSERT_TRUE(sandbox_passthrough("/dev/zero"));
	CU_ASSERT_FALSE(sandbox_passthrough("/dev/sda"));
	CU_ASSERT_FALSE(sandbox_passthrough("/etc/passwd"));
	CU_ASSERT_FALSE(sandbox_passthrough(NULL));
}

/* ---- WAIT cycles ------------------------------------------------------- */

static const char *head =
	"<?xml version=\"1.0\"?>\n<trace version=\"1\" generator=\"t\" complete=\"true\">\n";

/* A node NAME with one thread; BODY are its elements. */
static void node(FILE *f, const char *name, const char *body)
{
	fprintf(f, "<node name=\"%s\" epoch=\"1.0\" start=\"0\" end=\"1\">\n"
		"<process pid=\"1\" ppid=\"0\" cwd=\"/\"><thread tid=\"1\" start=\"0\" end=\"1\">\n"
		"%s</thread></process><files/><sockets/></node>\n", name, body);
}

static const char *IO(int seq)
{
	static char b[8][160];
	static int i;

	i = (i + 1) % 8;
	snprintf(b[i], sizeof(b[i]), "<io api=\"write\" res=\"filewrite\" start=\"0.%d\" end=\"0.%d\" amount=\"1\" fd=\"3\" path=\"/x\" seq=\"%d\"/>\n",
		 seq, seq, seq);
	return b[i];
}

static char *write_trace(const char *a, const char *b, const char *c)
{
	static char path[64];
	static int n;

	snprintf(path, sizeof(path), "%s/t%d.xml", tmp, n++);
	FILE *f = fopen(path, "w");
	fputs(head, f);
	node(f, "a", a);
	node(f, "b", b);
	if (c)
		node(f, "c", c);
	fputs("</trace>\n", f);
	fclose(f);
	return path;
}

static int check(const char *a, const char *b, const char *c)
{
	char *p = write_trace(a, b, c);
	struct trace *t = replay_load(p);

	return replay_check(t);
}

static void test_cycles(void)
{
	char a[1024], b[1024], c[1024];

	/* a#2 after b#1, b#2 after a#1: fine */
	snprintf(a, sizeof(a), "%s<wait node=\"b\" seq=\"1\"/>%s", IO(1), IO(2));
	snprintf(b, sizeof(b), "%s<wait node=\"a\" seq=\"1\"/>%s", IO(1), IO(2));
	CU_ASSERT_EQUAL(check(a, b, NULL), 0);
	/* a#1 waits for b#1 which waits for a#1 */
	snprintf(a, sizeof(a), "<wait node=\"b\" seq=\"1\"/>%s", IO(1));
	snprintf(b, sizeof(b), "<wait node=\"a\" seq=\"1\"/>%s", IO(1));
	CU_ASSERT_EQUAL(check(a, b, NULL), -1);
	/* through program order: a#2 needs b#2; b#1 needs a#2; b#2 follows b#1 */
	snprintf(a, sizeof(a), "%s<wait node=\"b\" seq=\"2\"/>%s", IO(1), IO(2));
	snprintf(b, sizeof(b), "<wait node=\"a\" seq=\"2\"/>%s%s", IO(1), IO(2));
	CU_ASSERT_EQUAL(check(a, b, NULL), -1);
	/* three nodes in a ring */
	snprintf(a, sizeof(a), "<wait node=\"c\" seq=\"1\"/>%s", IO(1));
	snprintf(b, sizeof(b), "<wait node=\"a\" seq=\"1\"/>%s", IO(1));
	snprintf(c, sizeof(c), "<wait node=\"b\" seq=\"1\"/>%s", IO(1));
	CU_ASSERT_EQUAL(check(a, b, c), -1);
	/* a chain is not a ring */
	snprintf(c, sizeof(c), "%s", IO(1));
	CU_ASSERT_EQUAL(check(a, b, c), 0);
	/* a node waiting for its own later I/O */
	snprintf(a, sizeof(a), "<wait node=\"a\" seq=\"2\"/>%s%s", IO(1), IO(2));
	snprintf(b, sizeof(b), "%s", IO(1));
	CU_ASSERT_EQUAL(check(a, b, NULL), -1);
	/* ... or its own earlier one */
	snprintf(a, sizeof(a), "%s<wait node=\"a\" seq=\"1\"/>%s", IO(1), IO(2));
	CU_ASSERT_EQUAL(check(a, b, NULL), 0);
}

/* ---- dummy files ------------------------------------------------------- */

static const struct fileneed *find_need(const struct fileneed *f, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].len ? strlen(path) == f[i].len && !strncmp(f[i].path, path, f[i].len) :
			       !strcmp(f[i].path, path))
			return &f[i];
	return NULL;
}

static size_t count_need(const struct fileneed *f, size_t n, const char *path)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += find_need(f + i, 1, path) != NULL;
	return k;
}

#define FIO(api, res, t, extra) "<io api=\"" api "\" res=\"" res "\" start=\"" t "\" end=\"" t "\" " extra "/>\n"

static void test_files(void)
{
	const char *a =
		FIO("open", "filemeta", "0.01", "fd=\"3\" path=\"/data/in\" flags=\"O_RDONLY\"")
		FIO("read", "fileread", "0.02", "fd=\"3\" path=\"/data/in\" amount=\"4096\" size=\"4096\"")
		FIO("read", "fileread", "0.03", "fd=\"3\" path=\"/data/in\" amount=\"4096\" size=\"4096\"")
		FIO("lseek", "filemeta", "0.04", "fd=\"3\" path=\"/data/in\" offset=\"0\" whence=\"SEEK_END\" result=\"20000\"")
		FIO("read", "fileread", "0.05", "fd=\"3\" path=\"/data/in\" amount=\"100\" size=\"4096\"")
		FIO("open", "filemeta", "0.06", "fd=\"4\" path=\"/data/big\" flags=\"O_RDWR\"")
		FIO("pread", "fileread", "0.07", "fd=\"4\" path=\"/data/big\" offset=\"100000\" amount=\"10\" size=\"10\"")
		FIO("open", "filemeta", "0.08", "fd=\"5\" path=\"/out\" flags=\"O_WRONLY|O_CREAT|O_TRUNC\"")
		FIO("write", "filewrite", "0.09", "fd=\"5\" path=\"/out\" amount=\"10\"")
		FIO("read", "fileread", "0.10", "fd=\"6\" path=\"/out\" amount=\"5\"")
		FIO("stat", "filemeta", "0.11", "path=\"/etc/x\"")
		FIO("open", "filemeta", "0.12", "path=\"/missing\" result=\"-1\" errno=\"ENOENT\"")
		FIO("open", "filemeta", "0.13", "fd=\"7\" path=\"/ex\" flags=\"O_WRONLY|O_CREAT|O_EXCL\"")
		FIO("stat", "filemeta", "0.14", "path=\"/data\"")
		FIO("open", "filemeta", "0.15", "fd=\"8\" path=\"/dev/zero\" flags=\"O_RDONLY\"")
		FIO("read", "fileread", "0.16", "fd=\"8\" path=\"/dev/zero\" amount=\"4096\"");
	struct trace *t = replay_load(write_trace(a, "", NULL));
	int sel[2] = { 1, 1 };
	struct fileneed *f;
	size_t n;

	CU_ASSERT_EQUAL_FATAL(replay_check(t), 0);
	n = files_needed(t, sel, 0, &f);
	const struct fileneed *e;
	/* two reads, then a seek to 20000 and 100 bytes */
	CU_ASSERT_PTR_NOT_NULL_FATAL(e = find_need(f, n, "/data/in"));
	CU_ASSERT_EQUAL(e->size, 20100);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e = find_need(f, n, "/data/big"));
	CU_ASSERT_EQUAL(e->size, 100010);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e = find_need(f, n, "/etc/x"));
	CU_ASSERT_EQUAL(e->size, 0);
	CU_ASSERT_FALSE(e->dir);
	/* a path other paths live in is a directory */
	CU_ASSERT_PTR_NOT_NULL_FATAL(e = find_need(f, n, "/data"));
	CU_ASSERT_TRUE(e->dir);
	/* an exclusive create: must not exist */
	CU_ASSERT_PTR_NOT_NULL_FATAL(e = find_need(f, n, "/ex"));
	CU_ASSERT_EQUAL(e->size, -1);
	/* created by the trace, failed, or a device: nothing to prepare */
	CU_ASSERT_PTR_NULL(find_need(f, n, "/out"));
	CU_ASSERT_PTR_NULL(find_need(f, n, "/missing"));
	CU_ASSERT_PTR_NULL(find_need(f, n, "/dev/zero"));
	free(f);
	/* without causality what anyone reads exists beforehand, but for a
	 * file one thread makes (O_TRUNC, O_EXCL) and only it uses: its
	 * own order stands (tests/e2e/replay-created.sh: another process's
	 * reader) */
	n = files_needed(t, sel, 1, &f);
	CU_ASSERT_PTR_NULL(find_need(f, n, "/out"));
	/* an exclusive create never finds its file made: one left by an
	 * earlier replay goes */
	CU_ASSERT_PTR_NOT_NULL_FATAL(e = find_need(f, n, "/ex"));
	CU_ASSERT_EQUAL(e->size, -1);

	/* and they are made under the root, with real data */
	char sub[160];
	snprintf(sub, sizeof(sub), "%s/filesroot", tmp);
	int fd = sandbox_open_root(sub);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(files_prepare(fd, f, n) >= 4);
	struct stat st;
	CU_ASSERT_EQUAL(fstatat(fd, "data/big", &st, 0), 0);
	CU_ASSERT_EQUAL(st.st_size, 100010);
	CU_ASSERT(st.st_blocks * 512 >= 100010);
	CU_ASSERT_EQUAL(fstatat(fd, "out", &st, 0), -1);	/* the trace makes it */
	close(fd);
	free(f);
}

/* The directories the trace's new files went in were there in the run:
 * made before the replay, not by its first create (a mkdir's time in the
 * replayed open), but never one the trace makes or found absent. */
static void test_files_parents(void)
{
	const char *a =
		FIO("open", "filemeta", "0.01", "fd=\"3\" path=\"/tmp/made/run/log\" flags=\"O_WRONLY|O_CREAT|O_TRUNC\"")
		FIO("open", "filemeta", "0.02", "fd=\"4\" path=\"/tmp/made/run/log2\" flags=\"O_WRONLY|O_CREAT|O_TRUNC\"")
		FIO("mkdir", "filemeta", "0.03", "path=\"/w/new\"")
		FIO("open", "filemeta", "0.04", "fd=\"5\" path=\"/w/new/f\" flags=\"O_WRONLY|O_CREAT|O_TRUNC\"")
		FIO("stat", "filemeta", "0.05", "path=\"/gone\" result=\"-1\" errno=\"ENOENT\"")
		FIO("mkdir", "filemeta", "0.06", "path=\"/gone\"")
		FIO("open", "filemeta", "0.07", "fd=\"6\" path=\"/gone/x\" flags=\"O_WRONLY|O_CREAT|O_TRUNC\"")
		FIO("open", "filemeta", "0.08", "fd=\"7\" path=\"/top\" flags=\"O_WRONLY|O_CREAT|O_TRUNC\"");
	struct trace *t = replay_load(write_trace(a, "", NULL));
	int sel[2] = { 1, 1 };
	struct fileneed *f;
	const struct fileneed *e;
	size_t n;

	CU_ASSERT_EQUAL_FATAL(replay_check(t), 0);
	n = files_needed(t, sel, 0, &f);
	CU_ASSERT_EQUAL(count_need(f, n, "/tmp/made/run"), 1);	/* once for both */
	CU_ASSERT_PTR_NOT_NULL_FATAL(e = find_need(f, n, "/tmp/made/run"));
	CU_ASSERT_TRUE(e->dir);
	CU_ASSERT_PTR_NOT_NULL(find_need(f, n, "/w"));
	CU_ASSERT_PTR_NULL(find_need(f, n, "/w/new"));	/* the trace's mkdir */
	CU_ASSERT_PTR_NULL(find_need(f, n, "/gone"));	/* found absent */
	CU_ASSERT_PTR_NULL(find_need(f, n, "/tmp/made/run/log"));
	CU_ASSERT_PTR_NULL(find_need(f, n, "/top"));
	CU_ASSERT_EQUAL(n, 2);

	char sub[160];
	struct stat st;
	snprintf(sub, sizeof(sub), "%s/parentsroot", tmp);
	int fd = sandbox_open_root(sub);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(files_prepare(fd, f, n), 2);
	CU_ASSERT(fstatat(fd, "tmp/made/run", &st, 0) == 0 && S_ISDIR(st.st_mode));
	CU_ASSERT_EQUAL(fstatat(fd, "tmp/made/run/log", &st, 0), -1);
	CU_ASSERT(fstatat(fd, "w", &st, 0) == 0 && S_ISDIR(st.st_mode));
	CU_ASSERT_EQUAL(fstatat(fd, "w/new", &st, 0), -1);
	CU_ASSERT_EQUAL(fstatat(fd, "gone", &st, 0), -1);
	close(fd);
	free(f);
	/* a trace that names no file: nothing (UBSan: no array to sort) */
	t = replay_load(write_trace("<compute dur=\"0.001\"/>\n", "", NULL));
	CU_ASSERT_EQUAL_FATAL(replay_check(t), 0);
	CU_ASSERT_EQUAL(files_needed(t, sel, 0, &f), 0);
	free(f);
}

/* ---- the call table ---------------------------------------------------- */

static void test_calls(void)
{
	const struct call *c;

	c = call_lookup("pwrite", RES_FILEWRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_PTR_EQUAL(c->fn, h_write);
	CU_ASSERT_EQUAL(c->family, FAM_WRITE);
	c = call_lookup("open", RES_FILEMETA);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_PTR_EQUAL(c->fn, h_open);
	CU_ASSERT_EQUAL(c->family, FAM_OPEN);
	c = call_lookup("fdatasync", RES_FILEWRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->family, FAM_SYNC);
	c = call_lookup("accept4", RES_NETMETA);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_PTR_EQUAL(c->fn, h_accept);
	c = call_lookup("pthread_create", RES_PROC);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_PTR_EQUAL(c->fn, h_thread);
	/* an unlisted data call is replayed by what it did */
	c = call_lookup("__freadable_read", RES_FILEREAD);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_PTR_EQUAL(c->fn, h_read);
	c = call_lookup("xsend", RES_NETSEND);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_PTR_EQUAL(c->fn, h_send);
	/* an unlisted metadata call is not guessed */
	CU_ASSERT_PTR_NULL(call_lookup("fchown", RES_FILEMETA));
	CU_ASSERT_PTR_NULL(call_lookup("mystery", RES_PROC));

	/* a read on a socket counts as network time */
	struct op o = { .kind = OP_IO, .res = RES_NETRECV, .call = call_lookup("read", RES_NETRECV) };
	CU_ASSERT_EQUAL(op_family(&o), FAM_NET);
	o.res = RES_FILEREAD;
	CU_ASSERT_EQUAL(op_family(&o), FAM_READ);
	CU_ASSERT_STRING_EQUAL(family_names[FAM_SYNC], "sync");
}

/* ---- descriptor slots -------------------------------------------------- */

#define W(t, fd) FIO("write", "filewrite", t, "fd=\"" fd "\" amount=\"1\"")
#define OPEN(t0, t1, fd, path) "<io api=\"open\" res=\"filemeta\" start=\"" t0 "\" end=\"" t1 \
	"\" fd=\"" fd "\" path=\"" path "\" flags=\"O_WRONLY|O_CREAT\"/>\n"
#define CLOSE(t, fd) FIO("close", "filemeta", t, "fd=\"" fd "\"")

static void test_fdslots(void)
{
	/* thread 1 reuses fd 3 alone; threads 2 and 3 take turns with fd 4
	 * (3's write starts as its open ends); thread 3 forks a child that
	 * writes to the fd 4 it inherits; thread 2's pipe ends are 4 and 5,
	 * and thread 1 opens over 5 while it is open */
	const char *xml =
		"<node name=\"a\" epoch=\"1.0\" start=\"0\" end=\"1\">\n"
		"<process pid=\"1\" ppid=\"0\" cwd=\"/\">\n"
		"<thread tid=\"1\" start=\"0\" end=\"1\">\n"
		OPEN("0.010", "0.011", "3", "/s") W("0.012", "3") CLOSE("0.013", "3")
		OPEN("0.014", "0.015", "3", "/t") W("0.016", "3") CLOSE("0.017", "3")
		OPEN("0.400", "0.401", "5", "/u")
		"</thread><thread tid=\"2\" creator=\"1\" start=\"0.05\" end=\"1\">\n"
		OPEN("0.100", "0.101", "4", "/a") W("0.102", "4") CLOSE("0.103", "4")
		OPEN("0.300", "0.301", "4", "/a") W("0.302", "4") CLOSE("0.303", "4")
		FIO("pipe", "netmeta", "0.310", "fd=\"4\" fd2=\"5\" proto=\"pipe\"")
		"</thread><thread tid=\"3\" creator=\"1\" start=\"0.05\" end=\"1\">\n"
		OPEN("0.200", "0.201", "4", "/b") W("0.201", "4")
		FIO("fork", "proc", "0.2012", "child=\"2\"") W("0.202", "4") CLOSE("0.203", "4")
		"</thread></process>\n"
		"<process pid=\"2\" ppid=\"1\" cwd=\"/\" start=\"0.2013\" end=\"0.3\">\n"
		"<thread tid=\"20\" start=\"0.2013\" end=\"0.3\">\n"
		W("0.250", "4") CLOSE("0.260", "4") OPEN("0.270", "0.271", "4", "/c") W("0.272", "4")
		"</thread></process><files/><sockets/></node>\n";
	char path[160];
	snprintf(path, sizeof(path), "%s/slots.xml", tmp);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "%s%s</trace>\n", head, xml);
	CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
	struct trace *t = replay_load(path);
	CU_ASSERT_EQUAL_FATAL(replay_check(t), 0);
	const struct node *n = &t->nodes[0];
	CU_ASSERT_EQUAL_FATAL(n->nthreads, 4);
	/* the highest fd is 5: new slots from 6 */
	CU_ASSERT_EQUAL(n->slot_base, 6);
	const int want[4][8] = {
		{ 3, 3, 3, 3, 3, 3, 5 },	/* one thread: its own slot; over a live one: its */
		{ 4, 4, 4, 7, 7, 7, 7 },	/* after thread 3's life: a new one, kept by the pipe */
		{ 6, 6, -1, 6, 6 },		/* after thread 2's: new, the write its */
		{ 6, 6, 6, 6 },			/* the child: its parent's, kept by its one thread */
	};
	for (size_t i = 0; i < 4; i++) {
		const struct thread *th = &n->threads[i];
		for (size_t j = 0; j < th->nops; j++) {
			CU_ASSERT_EQUAL(th->ops[j].fd, want[i][j]);
		}
	}
	CU_ASSERT_EQUAL(n->threads[1].ops[6].fd2, 5);
	CU_ASSERT_EQUAL(slot_tfd(n, 6), 4);
	CU_ASSERT_EQUAL(slot_tfd(n, 7), 4);
	CU_ASSERT_EQUAL(slot_tfd(n, 5), 5);
}

/* ---- spin shares ------------------------------------------------------- */

/* A thread of node NAME on HOST from T0 to T1 that computes DUR with CPU
 * (NULL: not known). */
static void spin_node(FILE *f, const char *name, const char *host, const char *thr)
{
	fprintf(f, "<node name=\"%s\" host=\"%s\" epoch=\"1.0\" start=\"0\" end=\"1\">\n"
		"<process pid=\"1\" ppid=\"0\" cwd=\"/\">%s</process><files/><sockets/></node>\n",
		name, host, thr);
}

#define THR(tid, t0, t1, cpu, dur) "<thread tid=\"" tid "\" " \
	"start=\"" t0 "\" end=\"" t1 "\"" cpu "><compute dur=\"" dur "\"/></thread>\n"
#define CPU(x) " cpu=\"" x "\""

static struct trace *spin_trace(const char *a, const char *b, const char *c)
{
	char path[160];
	static int n;

	snprintf(path, sizeof(path), "%s/spin%d.xml", tmp, n++);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(head, f);
	spin_node(f, "a", "h", a);
	spin_node(f, "b", "h", b);
	spin_node(f, "c", "other", c);
	fputs("</trace>\n", f);
	CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
	return replay_load(path);
}

static void test_spin_shares(void)
{
	/* a's thread 2 computes 100 ms on 1 ms of CPU: beside it ran a's
	 * thread 1 (10 ms) and b's thread 5 (4 ms) on its host; b's thread
	 * 6 ended before it started, c is on another host */
	struct trace *t = spin_trace(
		THR("1", "0", "1", CPU("0.010"), "0.005")
		THR("2", "0.1", "0.2", CPU("0.001"), "0.100"),
		THR("5", "0.15", "0.3", CPU("0.004"), "0.001")
		THR("6", "0", "0.05", CPU("0.500"), "0.050"),
		THR("9", "0", "1", CPU("0.500"), "0.900"));
	CU_ASSERT_DOUBLE_EQUAL(t->nodes[0].threads[0].spin, 1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(t->nodes[0].threads[1].spin, 0.015 / 0.100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(t->nodes[1].threads[0].spin, 1, 1e-9);
	/* c's thread computed more than its CPU while nothing else ran on
	 * its host: blocked the rest */
	CU_ASSERT_DOUBLE_EQUAL(t->nodes[2].threads[0].spin, 0.5 / 0.9, 1e-9);
	/* others' CPU enough to have kept it waiting for a core: whole */
	t = spin_trace(THR("1", "0", "1", CPU("0.050"), "0.100"),
		       THR("5", "0", "1", CPU("0.060"), "0.001"), THR("9", "0", "1", "", "0.9"));
	CU_ASSERT_DOUBLE_EQUAL(t->nodes[0].threads[0].spin, 1, 1e-9);
	/* a thread beside it whose CPU is not known: whole */
	t = spin_trace(THR("1", "0", "1", CPU("0.001"), "0.100"),
		       THR("5", "0", "1", "", "0.001"), THR("9", "0", "1", "", "0.9"));
	CU_ASSERT_DOUBLE_EQUAL(t->nodes[0].threads[0].spin, 1, 1e-9);
	/* its own CPU not known: whole */
	CU_ASSERT_DOUBLE_EQUAL(t->nodes[2].threads[0].spin, 1, 1e-9);
}

/* ---- waits ended by another thread; busy waits -------------------------- */

static struct trace *proc_trace(const char *threads)
{
	char path[160];
	static int n;

	snprintf(path, sizeof(path), "%s/wake%d.xml", tmp, n++);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "%s<node name=\"a\" host=\"h\" epoch=\"1.0\" start=\"0\" end=\"1\">\n"
		"<process pid=\"1\" ppid=\"0\" cwd=\"/\">%s</process>\n"
		"<process pid=\"2\" ppid=\"0\" cwd=\"/\"><thread tid=\"3\" start=\"0\" end=\"1\">"
		"<io api=\"stat\" res=\"filemeta\" start=\"0.049\" end=\"0.0495\" path=\"/o\"/>"
		"</thread></process><files/><sockets/></node></trace>\n", head, threads);
	CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
	return replay_load(path);
}

/* the index of the op of TH that starts at START (ns) */
static uint32_t op_at(const struct thread *th, int64_t start)
{
	for (size_t i = 0; i < th->nops; i++)
		if (th->ops[i].kind == OP_IO && th->ops[i].start == start)
			return (uint32_t)i;
	CU_FAIL("no op at that time");
	return UINT32_MAX;
}

#define MS(x) ((int64_t)(x) * 1000000)
#define IO(api, res, t0, t1, more) "<io api=\"" api "\" res=\"" res "\" start=\"" t0 "\" end=\"" t1 "\"" more "/>"

static void test_wakers(void)
{
	struct trace *t = proc_trace(
		"<thread tid=\"1\" start=\"0\" end=\"1\">"
		IO("pthread_cond_wait", "wait", "0.010", "0.050", "")
		IO("write", "filewrite", "0.060", "0.061", " fd=\"5\" amount=\"8\" size=\"8\"")
		IO("pthread_cond_wait", "wait", "0.080", "0.081", "")
		IO("pthread_mutex_lock", "wait", "0.0994", "0.0999", "")
		IO("pthread_cond_timedwait", "wait", "0.090", "0.100", " result=\"-1\" errno=\"ETIMEDOUT\"")
		"</thread>"
		"<thread tid=\"2\" start=\"0\" end=\"1\">"
		IO("stat", "filemeta", "0.020", "0.030", " path=\"/x\"")
		IO("stat", "filemeta", "0.040", "0.045", " path=\"/x\"")
		IO("stat", "filemeta", "0.046", "0.052", " path=\"/x\"")
		IO("read", "fileread", "0.070", "0.071", " fd=\"5\" amount=\"8\" size=\"8\"")
		IO("read", "fileread", "0.095", "0.096", " fd=\"6\" amount=\"8\" size=\"8\"")
		IO("stat", "filemeta", "0.0995", "0.0998", " path=\"/x\"")
		"</thread>");
	const struct thread *a = &t->nodes[0].threads[0], *b = &t->nodes[0].threads[1];

	/* the wait: the other thread's call that ended last inside it (not
	 * the one still running at its end, nor another process's) */
	const struct op *w = &a->ops[op_at(a, MS(10))];
	CU_ASSERT_EQUAL(w->waker, 2);
	CU_ASSERT_EQUAL(w->wake_op, op_at(b, MS(40)));
	CU_ASSERT_EQUAL(w->wake_lag, MS(5));
	/* the read of a descriptor that names nothing: the write to it */
	const struct op *r = &b->ops[op_at(b, MS(70))];
	CU_ASSERT_EQUAL(r->waker, 1);
	CU_ASSERT_EQUAL(r->wake_op, op_at(a, MS(60)));
	CU_ASSERT_EQUAL(r->wake_lag, MS(9));
	/* nobody's call ended inside the second wait; nobody wrote fd 6;
	 * a wait that timed out was woken by its timer; a lock may not
	 * have waited at all */
	CU_ASSERT_EQUAL(a->ops[op_at(a, MS(80))].waker, 0);
	CU_ASSERT_EQUAL(a->ops[op_at(a, 99400000)].waker, 0);
	CU_ASSERT_EQUAL(b->ops[op_at(b, MS(95))].waker, 0);
	CU_ASSERT_EQUAL(a->ops[op_at(a, MS(90))].waker, 0);
}

/* a wait no thread of its process ended: another process's call that
 * ended inside it (a condition in shared memory: fio's job process) */
static void test_wakers_other_process(void)
{
	struct trace *t = proc_trace(
		"<thread tid=\"1\" start=\"0\" end=\"1\">"
		IO("pthread_cond_wait", "wait", "0.045", "0.060", "")
		IO("pthread_cond_wait", "wait", "0.070", "0.080", "")
		"</thread>");
	const struct thread *a = &t->nodes[0].threads[0], *c = &t->nodes[0].threads[1];

	CU_ASSERT_EQUAL(c->tid, 3);
	const struct op *w = &a->ops[op_at(a, MS(45))];
	CU_ASSERT_EQUAL(w->waker, 2);
	CU_ASSERT_EQUAL(w->wake_op, op_at(c, MS(49)));
	CU_ASSERT_EQUAL(w->wake_lag, 10500000);
	/* nothing ended inside the second */
	CU_ASSERT_EQUAL(a->ops[op_at(a, MS(70))].waker, 0);
}

static void test_busywaits(void)
{
#define POLL(t0, t1, tmo, n) IO("poll", "wait", t0, t1, " timeout=\"" tmo "\" count=\"" n "\"")
	struct trace *t = proc_trace(
		"<thread tid=\"1\" start=\"0\" end=\"1\">"
		POLL("0.010", "0.011", "0", "0") "<compute dur=\"0.001\"/>"
		POLL("0.012", "0.013", "0", "0") "<compute dur=\"0.001\"/>"
		POLL("0.014", "0.015", "0", "1") "<compute dur=\"0.001\"/>"
		IO("readv", "netrecv", "0.016", "0.017", " fd=\"4\" amount=\"26\" size=\"100\" peer=\"10.0.0.2:1\" proto=\"tcp\"")
		/* not followed by a receive */
		POLL("0.020", "0.021", "0", "0")
		POLL("0.022", "0.023", "0", "1")
		IO("write", "netsend", "0.024", "0.025", " fd=\"4\" amount=\"26\" size=\"26\" peer=\"10.0.0.2:1\" proto=\"tcp\"")
		/* a poll that waited is no busy wait */
		POLL("0.030", "0.031", "0", "0")
		POLL("0.032", "0.040", "1.0", "1")
		IO("read", "netrecv", "0.041", "0.042", " fd=\"4\" amount=\"26\" size=\"26\" peer=\"10.0.0.2:1\" proto=\"tcp\"")
		"</thread>");
	const struct thread *a = &t->nodes[0].threads[0];
	const struct op *o = &a->ops[op_at(a, MS(10))];

	CU_ASSERT_EQUAL(o->busy_end, op_at(a, MS(14)) + 1);
	CU_ASSERT_EQUAL(o->busy_recv, op_at(a, MS(16)) + 1);
	CU_ASSERT_EQUAL(a->ops[op_at(a, MS(12))].busy_end, 0);
	CU_ASSERT_EQUAL(a->ops[op_at(a, MS(20))].busy_end, 0);
	CU_ASSERT_EQUAL(a->ops[op_at(a, MS(30))].busy_end, 0);
#undef POLL
}

/* A file nodes of one host share keeps its order of making, use and
 * removal (node c, on another host, has a file of its own). */
static void test_file_order(void)
{
	struct trace *t = spin_trace("<thread tid=\"1\" start=\"0\" end=\"1\">"
		  IO("open", "filemeta", "0.010", "0.011", " fd=\"3\" path=\"/dev/shm/s\" flags=\"O_RDWR|O_CREAT\" seq=\"1\"")
		  IO("unlink", "filemeta", "0.020", "0.021", " path=\"/dev/shm/s\" seq=\"2\"")
		  "</thread>",
		  "<thread tid=\"1\" start=\"0\" end=\"1\">"
		  IO("open", "filemeta", "0.012", "0.013", " fd=\"3\" path=\"/dev/shm/s\" flags=\"O_RDWR\" seq=\"1\"")
		  "</thread>",
		  "<thread tid=\"1\" start=\"0\" end=\"1\">"
		  IO("open", "filemeta", "0.012", "0.013", " fd=\"3\" path=\"/dev/shm/s\" flags=\"O_RDWR\" seq=\"1\"")
		  "</thread>");
	const struct thread *a = &t->nodes[0].threads[0], *b = &t->nodes[1].threads[0];
	uint32_t i = op_at(b, MS(12));

	/* b's open waits for a's create, a's unlink for b's open */
	CU_ASSERT_FATAL(i > 0);
	CU_ASSERT_EQUAL(b->ops[i - 1].kind, OP_WAIT);
	CU_ASSERT_EQUAL(b->ops[i - 1].node, 0);
	CU_ASSERT_EQUAL(b->ops[i - 1].seq, 1);
	i = op_at(a, MS(20));
	CU_ASSERT_EQUAL(a->ops[i - 1].kind, OP_WAIT);
	CU_ASSERT_EQUAL(a->ops[i - 1].node, 1);
	CU_ASSERT_EQUAL(a->ops[i - 1].seq, 1);
	/* a's create waits for nobody; c is on another host */
	CU_ASSERT_EQUAL(op_at(a, MS(10)), 0);
	CU_ASSERT_EQUAL(op_at(&t->nodes[2].threads[0], MS(12)), 0);
}

/* A level call's time that its calls below did not take is phases where
 * it was: before, between and after them (a wait before a call comes
 * after the phase before it), and the level call itself spends none. */
static void test_level_phases(void)
{
	struct trace *t = spin_trace("<thread tid=\"1\" start=\"0\" end=\"1\">"
		  IO("stat", "filemeta", "0.001", "0.002", " path=\"/x\" seq=\"1\"")
		  IO("MPI_Recv", "netrecv", "0.010", "0.050", " level=\"mpi\" amount=\"4\"")
		  IO("poll", "wait", "0.015", "0.016", " within=\"MPI_Recv\" timeout=\"0\" count=\"1\"")
		  "<wait node=\"b\" seq=\"1\"/>"
		  IO("read", "netrecv", "0.030", "0.031", " within=\"MPI_Recv\" fd=\"4\" amount=\"4\" size=\"4\" seq=\"2\"")
		  "<compute dur=\"0.002\"/>"
		  IO("stat", "filemeta", "0.052", "0.053", " path=\"/x\" seq=\"3\"")
		  "</thread>",
		  "<thread tid=\"1\" start=\"0\" end=\"1\">"
		  IO("stat", "filemeta", "0.001", "0.002", " path=\"/x\" seq=\"1\"")
		  "</thread>",
		  "<thread tid=\"1\" start=\"0\" end=\"1\"><compute dur=\"1\"/></thread>");
	const struct thread *a = &t->nodes[0].threads[0];
	uint32_t i = op_at(a, MS(10));
	static const struct { int kind; int64_t dur; } want[] = {
		{ OP_IO, 0 },			/* MPI_Recv */
		{ OP_COMPUTE, MS(5) },		/* to the poll */
		{ OP_IO, MS(1) },
		{ OP_COMPUTE, MS(14) },		/* to the read, before its wait */
		{ OP_WAIT, 0 },
		{ OP_IO, MS(1) },
		{ OP_COMPUTE, MS(19) },		/* to MPI_Recv's end */
		{ OP_COMPUTE, MS(2) },		/* the trace's */
		{ OP_IO, MS(1) },
	};

	CU_ASSERT_FATAL(i + sizeof(want) / sizeof(want[0]) <= a->nops);
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		CU_ASSERT_EQUAL(a->ops[i + k].kind, want[k].kind);
		CU_ASSERT_EQUAL(a->ops[i + k].dur, want[k].dur);
	}
	CU_ASSERT_EQUAL(a->computing, MS(5 + 14 + 19 + 2));
}

int main(void)
{
	progname = "test-replay";
	opt = (struct opts){ .speed = 1.0 };
	if (!mkdtemp(tmp))
		return 2;
	char root[128];
	snprintf(root, sizeof(root), "%s/root", tmp);
	rootfd = sandbox_open_root(root);
	if (rootfd < 0 || !sandbox_supported(rootfd)) {
		fprintf(stderr, "openat2 unavailable\n");
		return 2;
	}
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	CU_pSuite s = CU_add_suite("replay", NULL, NULL);
	CU_add_test(s, "path mapping is lexical and stays under the root", test_map_lexical);
	CU_add_test(s, "openat2 refuses every escape", test_openat_escapes);
	CU_add_test(s, "parent directories are made beneath the root", test_parent_mkdir);
	CU_add_test(s, "a directory opens as opendir opens it", test_open_directory);
	CU_add_test(s, "only harmless devices pass through", test_passthrough);
	CU_add_test(s, "WAIT cycles are found", test_cycles);
	CU_add_test(s, "the call table", test_calls);
	CU_add_test(s, "dummy files: what the trace reads but did not create", test_files);
	CU_add_test(s, "dummy files: the directories the trace's new files went in", test_files_parents);
	CU_add_test(s, "a reused descriptor number gets a slot per life", test_fdslots);
	CU_add_test(s, "a thread spins what its host's CPU time allows", test_spin_shares);
	CU_add_test(s, "a wait ends when another thread's call did", test_wakers);
	CU_add_test(s, "... or another process's, when none of its own", test_wakers_other_process);
	CU_add_test(s, "a busy wait waits for its receive's data", test_busywaits);
	CU_add_test(s, "a file nodes share keeps its order", test_file_order);
	CU_add_test(s, "a level call's own time is phases between its calls", test_level_phases);
	unsigned failed = unit_run("replay");
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	if (system(cmd))
		return 2;
	return failed ? 1 : 0;
}
