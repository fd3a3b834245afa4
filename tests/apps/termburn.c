/* termburn MS: a server that is stopped: MS milliseconds of its main
 * thread's CPU time, then "ready" on stdout, then it waits for the signal
 * that ends it (SIGTERM's default action: no code of ours runs at the
 * end, so the thread's CPU time is known only from outside). */
#include <stdlib.h>
#include <unistd.h>

#include "cpuburn.h"

int main(int argc, char **argv)
{
	cpuburn(argc > 1 ? atoi(argv[1]) : 50);
	if (write(1, "ready\n", 6) != 6)
		return 1;
	for (;;)
		pause();
}
