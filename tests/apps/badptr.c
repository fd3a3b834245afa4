/* badptr [sandboxed]: calls given a pointer to nowhere (a page mapped and
 * unmapped), which fail, and which a capture reading the pointer would
 * crash in. Prints each call's result and errno name: "open -1 EFAULT".
 * "sandboxed": under a seccomp filter that kills the process for a
 * process_vm_readv (as sandboxes refuse it), which a capture trying the
 * memory so would die of. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static void show(const char *name, long r, int e)
{
	printf("%s %ld %s\n", name, r, e == EFAULT ? "EFAULT" : e == ESPIPE ? "ESPIPE" :
	       e ? strerror(e) : "0");
}

#define T(name, expr) do { errno = 0; long r_ = (long)(expr); show(name, r_, errno); } while (0)

static int sandbox(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	       prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int main(int argc, char **argv)
{
	void *bad = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int s = socket(AF_INET, SOCK_DGRAM, 0), p[2];
	struct stat st;
	struct statx stx;
	char *const *volatile none = NULL;	/* execve's argv and envp */
	int r;

	if (bad == MAP_FAILED || munmap(bad, 4096) || s < 0 || pipe(p))
		return 2;
	if (argc > 1 && !strcmp(argv[1], "sandboxed") && sandbox())
		return 3;
	setvbuf(stdout, NULL, _IONBF, 0);
	T("open", open(bad, O_RDONLY));
	T("openat", openat(AT_FDCWD, bad, O_RDONLY));
	T("creat", creat(bad, 0600));
	T("fopen", fopen(bad, "r") ? 0 : -1);
	T("stat", stat(bad, &st));
	T("statx", statx(AT_FDCWD, bad, 0, 0, &stx));
	T("access", access(bad, F_OK));
	T("readlink", readlink(bad, (char *)&st, 10));
	T("rename", rename(bad, "x"));
	T("memfd_create", memfd_create(bad, 0));
	T("writev", writev(p[1], bad, 2));
	T("readv", readv(p[0], bad, 2));
	T("pwritev", pwritev(p[1], bad, 2, 0));
	T("sendmsg", sendmsg(s, bad, 0));
	T("recvmsg", recvmsg(s, bad, MSG_DONTWAIT));
	T("connect", connect(s, bad, 16));
	T("nanosleep", nanosleep(bad, NULL));
	r = clock_nanosleep(CLOCK_MONOTONIC, 0, bad, NULL);
	show("clock_nanosleep", r, r);
	T("execve", execve(bad, none, none));
	T("execv", execv("/bin/true", bad));
	return 0;
}
