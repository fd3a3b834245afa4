/* vforkexit: a vfork child that calls nothing but _exit(3); the parent
 * waits for it. The vfork's record names the child all the same. */
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	int st;
	pid_t p = vfork();

	if (p == 0)
		_exit(3);
	if (p < 0 || waitpid(p, &st, 0) != p)
		return 1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 3 ? 0 : 1;
}
