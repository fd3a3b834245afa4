/*
 * spinwait DIR NAME: after 300 ms, loop until DIR holds NAME, looking for
 * it with opendir/readdir and appending a byte to DIR/spin.out between
 * looks (every millisecond). It never fails a call nor repeats a look,
 * and its progress comes far more often than its longest gap (the 300 ms
 * before its first I/O): for the causality engine it never waits
 * (tests/e2e/capture-discover-timeout.sh: a hold that nothing releases).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int present(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	while (d && (e = readdir(d)))
		found |= !strcmp(e->d_name, name);
	if (d)
		closedir(d);
	return found;
}

int main(int argc, char **argv)
{
	char path[4096];

	if (argc != 3)
		return 2;
	snprintf(path, sizeof(path), "%s/spin.out", argv[1]);
	usleep(300000);
	while (!present(argv[1], argv[2])) {
		int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd < 0 || write(fd, "x", 1) != 1)
			return 1;
		close(fd);
		usleep(1000);
	}
	return 0;
}
