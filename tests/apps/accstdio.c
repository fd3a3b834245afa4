/* A known access pattern through stdio, dup, O_APPEND, pread and a forked
 * child, for island-analyze access: every call that moves a file position
 * (fseek SEEK_SET/SEEK_CUR/SEEK_END, rewind, fsetpos, ftell, lseek, the
 * data calls) and one that does not (pread). tests/e2e/analyze-access.sh
 * states the counters. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char buf[200];

static int wr(FILE *f, size_t n)
{
	return fwrite(buf, 1, n, f) == n ? 0 : -1;
}

static int rd(FILE *f, size_t n)
{
	return fread(buf, 1, n, f) == n ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "y.dat";
	FILE *f = fopen(path, "w+");
	fpos_t at;
	int fd, fd2;
	pid_t pid;

	if (!f)
		return perror(path), 1;
	memset(buf, 'y', sizeof(buf));
	if (wr(f, 100) || wr(f, 100) ||				/* 0, 100 */
	    fseek(f, 1000, SEEK_SET) || wr(f, 100) ||		/* 1000 */
	    fseek(f, -600, SEEK_CUR) || wr(f, 100) ||		/* 500 */
	    fseek(f, 0, SEEK_END) || wr(f, 100) ||		/* 1100 */
	    ftell(f) != 1200)
		return 1;
	rewind(f);
	if (rd(f, 200) || fgetpos(f, &at) ||			/* 0 */
	    rd(f, 100) ||					/* 200 */
	    fsetpos(f, &at) || rd(f, 100) ||			/* 200 */
	    fclose(f))
		return 1;

	/* appends at the size, through two descriptors of one open file */
	if ((fd = open(path, O_WRONLY | O_APPEND)) < 0 || (fd2 = dup(fd)) < 0 ||
	    write(fd, buf, 50) != 50 || write(fd2, buf, 50) != 50)	/* 1200, 1250 */
		return 1;
	close(fd2);
	close(fd);

	/* a dup shares the position; pread leaves it */
	if ((fd = open(path, O_RDONLY)) < 0 || (fd2 = dup(fd)) < 0 ||
	    read(fd, buf, 100) != 100 || read(fd2, buf, 100) != 100 ||	/* 0, 100 */
	    pread(fd, buf, 100, 1000) != 100 ||				/* 1000 */
	    read(fd, buf, 100) != 100)					/* 200 */
		return 1;
	close(fd2);

	/* a child's inherited descriptor: unknown until it seeks */
	if ((pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		if (read(fd, buf, 100) != 100 ||			/* unknown */
		    lseek(fd, 300, SEEK_SET) != 300 || read(fd, buf, 100) != 100)	/* 300 */
			_exit(1);
		_exit(0);
	}
	if (waitpid(pid, &fd2, 0) != pid || fd2)
		return 1;
	close(fd);
	return 0;
}
