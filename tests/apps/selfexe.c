/* selfexe [again]: what a program sees of itself, printed, to compare
 * natively and under island-capture --syscalls, which runs programs by
 * island-loader (the kernel's /proc/self/exe): its path by readlink of
 * /proc/self/exe, /proc/PID/exe and /proc/thread-self/exe, by the raw
 * readlinkat call, cut to 4 bytes, into a read-only buffer (EFAULT);
 * whether stat and open of /proc/self/exe give its own file; its name
 * and AT_EXECFN (the path its exec was given); then it execs
 * /proc/self/exe ("again"), which prints the same (its name is then
 * "exe", its AT_EXECFN /proc/self/exe). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void show(const char *img, const char *what, long n, const char *buf)
{
	if (n < 0)
		printf("%s %s: -1 %s\n", img, what, strerror(errno));
	else
		printf("%s %s: %.*s\n", img, what, (int)n, buf);
}

int main(int argc, char **argv)
{
	const char *img = argc > 1 && !strcmp(argv[1], "again") ? "again" : "first";
	char buf[4096], path[64];
	struct stat a, b, c;
	int fd;
	char *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	show(img, "self", readlink("/proc/self/exe", buf, sizeof(buf)), buf);
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)getpid());
	show(img, "pid", readlink(path, buf, sizeof(buf)), buf);
	show(img, "thread-self", readlink("/proc/thread-self/exe", buf, sizeof(buf)), buf);
	show(img, "raw readlinkat",
	     syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/exe", buf, sizeof(buf)), buf);
	show(img, "4 bytes", readlink("/proc/self/exe", buf, 4), buf);
	show(img, "read-only buffer", syscall(SYS_readlink, "/proc/self/exe", ro, 64), "");
	long n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	printf("%s stat: %s\n", img,
	       stat("/proc/self/exe", &a) || stat(buf, &b) ? strerror(errno) :
	       a.st_ino == b.st_ino && a.st_dev == b.st_dev ? "its file" : "another file");
	if ((fd = open("/proc/self/exe", O_RDONLY)) < 0 || fstat(fd, &c)) {
		printf("%s open: %s\n", img, strerror(errno));
	} else {
		printf("%s open: %s\n", img, c.st_ino == b.st_ino ? "its file" : "another file");
		close(fd);
	}
	fd = open("/proc/self/comm", O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
	show(img, "comm", n > 0 ? n - 1 : n, buf);
	if (fd >= 0)
		close(fd);
	printf("%s execfn: %s\n", img, (const char *)getauxval(AT_EXECFN));
	if (img[0] == 'f') {
		fflush(stdout);
		execl("/proc/self/exe", argv[0], "again", (char *)NULL);
		perror("execl /proc/self/exe");
		return 1;
	}
	return 0;
}
