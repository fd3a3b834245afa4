/* pseudosync: phases of file I/O and compute separated by a barrier over
 * TCP (through node 0). Compute grows with the node's index, so that the
 * others wait at each barrier for the slowest. */
#include "pseudo.h"

/* With "fsync" after PHASES and UNIT_MS: each phase's file is written
 * and synced before the barrier, so that the others wait on its storage
 * (bench/whatif.sh replays it on a slow file system). */
static void write_synced(struct pseudo *p, int phase, size_t size)
{
	char path[4096], what[64];
	char *buf = calloc(1, size);

	snprintf(what, sizeof(what), "data.%s.%d", p->name, phase);
	path_of(path, sizeof(path), p, what);
	int fd = IO(open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644));
	snprintf(buf, size, "%d %lu\n", p->index, NEXT_IO);
	if (fd < 0 || IO(write(fd, buf, size)) != (ssize_t)size || IO(fsync(fd)) < 0)
		die_("write data");
	IO(close(fd));
	free(buf);
}

int main(int argc, char **argv)
{
	struct pseudo p = { 0 };
	int sync = argc > 9 && !strcmp(argv[9], "fsync");

	pseudo_args(&p, argc, argv);
	pseudo_connect(&p);
	for (int ph = 0; ph < p.phases; ph++) {
		if (sync)
			write_synced(&p, ph, 16384);
		else
			pseudo_write_file(&p, ph, 16384);
		compute_ms(p.unit * (1 + 2 * p.index));
		pseudo_barrier(&p, ph);
	}
	pseudo_finish(&p);
	return 0;
}
