/* The profiler benchmark's workload: a fixed amount of work, so that what
 * a profiler costs shows in the wall time: ITERS rounds of arithmetic
 * across a few functions, with a small allocation every 64 rounds. */
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;
static void *volatile keep;

__attribute__((noinline)) static double leaf(double x)
{
	for (int i = 0; i < 2000; i++)
		x = x * 1.0000001 + 1e-9;
	return x;
}

__attribute__((noinline)) static double middle(double x)
{
	return leaf(x) + leaf(x + 1);
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 100000;
	double x = 1;

	for (long i = 0; i < iters; i++) {
		x = middle(x);
		if (!(i & 63)) {
			keep = malloc(64 + (size_t)(i & 1023));
			free(keep);
		}
	}
	sink = x;
	return 0;
}
