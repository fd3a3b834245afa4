/* pseudosync: phases of file I/O and compute separated by a barrier over
 * TCP (through node 0). Compute grows with the node's index, so that the
 * others wait at each barrier for the slowest. */
#include "pseudo.h"

int main(int argc, char **argv)
{
	struct pseudo p = { 0 };

	pseudo_args(&p, argc, argv);
	pseudo_connect(&p);
	for (int ph = 0; ph < p.phases; ph++) {
		pseudo_write_file(&p, ph, 16384);
		compute_ms(p.unit * (1 + 2 * p.index));
		pseudo_barrier(&p, ph);
	}
	pseudo_finish(&p);
	return 0;
}
