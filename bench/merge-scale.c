/* The --discover merge alone, on traces already written: DIR/NAME.xml for
 * nodes n0 .. nN-1 (bench/merge-scale.sh makes them), into OUT, with the
 * message edges; its peak memory is measured from outside. */
#include <stdio.h>
#include <stdlib.h>

#include "capture.h"
#include "cluster.h"
#include "util.h"

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: merge-scale DIR N OUT\n");
		return 2;
	}
	int n = atoi(argv[2]);
	if (n < 1)
		return 2;
	struct cluster_opts o = { .output = argv[3], .discover = 1 };
	struct pass base = { .name = "unthrottled", .dir = argv[1], .scratch = "/nonexistent" };
	char **names = xcalloc((size_t)n, sizeof(char *));
	for (int i = 0; i < n; i++)
		names[i] = xasprintf("n%d", i);
	return discover_merge(&o, names, n, &base, NULL, 0) < 0;
}
