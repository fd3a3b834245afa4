/* vforksite: a vfork child that exits at once, then the parent's first
 * call after it resumes, a write to /dev/null from after_vfork() (the
 * call site tests/e2e/capture-callsites.sh expects), then 2 more. */
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

static int fd;

__attribute__((noinline)) static void after_vfork(void)
{
	if (write(fd, "x", 1) != 1)
		_exit(1);
}

__attribute__((noinline)) static void more_writes(void)
{
	for (int i = 0; i < 2; i++)
		if (write(fd, "yy", 2) != 2)
			_exit(1);
}

int main(void)
{
	int st;
	pid_t pid;

	fd = open("/dev/null", O_WRONLY);
	if (fd < 0)
		return 1;
	more_writes();
	if ((pid = vfork()) == 0)
		_exit(0);
	after_vfork();
	waitpid(pid, &st, 0);
	return 0;
}
