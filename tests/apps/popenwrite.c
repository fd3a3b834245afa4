/* popenwrite FILE: a shell started by popen() writes FILE (libc's popen
 * spawns it through an internal call no exec wrapper sees). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	char cmd[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: popenwrite FILE\n");
		return 2;
	}
	snprintf(cmd, sizeof(cmd), "echo hi > '%s'", argv[1]);
	FILE *f = popen(cmd, "r");
	if (!f) {
		perror("popen");
		return 1;
	}
	return pclose(f) == 0 ? 0 : 1;
}
