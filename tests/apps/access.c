/* A known access pattern on one file, for island-analyze access:
 * consecutive writes, writes at decreasing offsets, consecutive reads,
 * strided reads. tests/e2e/analyze-access.sh states the counters. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char buf[1000];

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "x.dat";
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return perror(path), 1;
	memset(buf, 'x', sizeof(buf));
	for (int i = 0; i < 4; i++)		/* 0, 1000, 2000, 3000 */
		if (write(fd, buf, 1000) != 1000)
			return 1;
	for (int i = 0; i < 3; i++)		/* 9000, 8000, 7000 */
		if (pwrite(fd, buf, 100, 9000 - 1000 * i) != 100)
			return 1;
	close(fd);
	if ((fd = open(path, O_RDONLY)) < 0)
		return 1;
	for (int i = 0; i < 3; i++)		/* 0, 512, 1024 */
		if (read(fd, buf, 512) != 512)
			return 1;
	for (int i = 0; i < 3; i++) {		/* 2048, 4096, 6144 */
		if (lseek(fd, 2048 + 2048 * i, SEEK_SET) < 0 || read(fd, buf, 256) != 256)
			return 1;
	}
	close(fd);
	return 0;
}
