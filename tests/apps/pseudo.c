/* pseudo: nodes do independent file I/O and compute; no dependencies. */
#include "pseudo.h"

int main(int argc, char **argv)
{
	struct pseudo p = { 0 };

	pseudo_args(&p, argc, argv);
	for (int ph = 0; ph < p.phases; ph++) {
		pseudo_write_file(&p, ph, 8192);
		compute_ms(p.unit * (1 + p.index));
		pseudo_read_file(&p, p.index, ph, 8192);
	}
	p.tlen = 0;                  /* a node's own file is no dependency */
	pseudo_finish(&p);
	return 0;
}
