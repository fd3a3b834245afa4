/* gate FILE: naps until FILE exists (at most two minutes), idle: a test
 * makes it once the capture has streamed parts, which a capture's writer
 * at nice 19 behind other programs keeping both CPUs busy may do only
 * while the app is idle. */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gate FILE\n");
		return 2;
	}
	for (int i = 0; i < 12000; i++) {
		if (access(argv[1], F_OK) == 0)
			return 0;
		usleep(10000);
	}
	fprintf(stderr, "gate: %s: not made in two minutes\n", argv[1]);
	return 1;
}
