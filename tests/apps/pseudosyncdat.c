/* pseudosyncdat: like pseudosync, and after each barrier node i reads the
 * file node i-1 wrote in the phase before (a data dependency through
 * shared storage, signalled by the barrier over TCP). */
#include "pseudo.h"

int main(int argc, char **argv)
{
	struct pseudo p = { 0 };

	pseudo_args(&p, argc, argv);
	pseudo_connect(&p);
	for (int ph = 0; ph < p.phases; ph++) {
		if (ph > 0)
			pseudo_read_file(&p, (p.index + p.nnodes - 1) % p.nnodes, ph - 1,
					 16384);
		pseudo_write_file(&p, ph, 16384);
		compute_ms(p.unit * (1 + 2 * p.index));
		pseudo_barrier(&p, ph);
	}
	pseudo_finish(&p);
	return 0;
}
