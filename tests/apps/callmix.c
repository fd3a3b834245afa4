/* A known number of each call, for island-analyze calls: 1000 writes of
 * 64 bytes, 20 opens that fail with ENOENT, 7 that succeed and their
 * closes, 3 reads of 4096 bytes. Two functions write, for --callsites. */
#include <fcntl.h>
#include <unistd.h>

static char buf[4096];

__attribute__((noinline)) static void small_writes(int fd, int n)
{
	for (int i = 0; i < n; i++)
		if (write(fd, buf, 64) != 64)
			_exit(1);
}

__attribute__((noinline)) static void other_writes(int fd, int n)
{
	for (int i = n; i > 0; i--)
		if (write(fd, buf + 64, 64) != 64)
			_exit(2);
}

int main(void)
{
	int null = open("/dev/null", O_WRONLY), zero;

	if (null < 0)
		return 1;
	small_writes(null, 600);
	other_writes(null, 400);
	for (int i = 0; i < 20; i++)
		if (open("/nonexistent/island-callmix", O_RDONLY) >= 0)
			return 1;
	for (int i = 0; i < 6; i++) {
		int fd = open("/dev/null", O_RDONLY);

		if (fd < 0)
			return 1;
		close(fd);
	}
	if ((zero = open("/dev/zero", O_RDONLY)) < 0)
		return 1;
	for (int i = 0; i < 3; i++)
		if (read(zero, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return 1;
	close(zero);
	close(null);
	return 0;
}
