/*
 * rawmsync DIR: DIR/map.dat, 8192 bytes, mapped shared and written
 * through the mapping; then msync of its first 4096 bytes and munmap,
 * made with raw syscall() (no libc wrapper sees them), then the same
 * with libc's msync and munmap. The writes of a file by mmap + msync, as
 * a program that calls the kernel itself makes them.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

int main(int argc, char **argv)
{
	char path[4096];

	if (argc < 2)
		return 2;
	snprintf(path, sizeof(path), "%s/map.dat", argv[1]);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, 8192))
		die(path);
	char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap");
	memset(p, 'r', 8192);
	if (syscall(SYS_msync, p, 4096, MS_SYNC) || syscall(SYS_munmap, p, 8192))
		die("raw msync");
	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap");
	memset(p, 'l', 8192);
	if (msync(p + 4096, 4096, MS_SYNC) || munmap(p, 8192))
		die("msync");
	close(fd);
	return 0;
}
