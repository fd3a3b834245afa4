/* regions: nested island regions, one mismatched end, one left open. */
#include <island.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	island_begin("outer");
	for (int i = 0; i < 3; i++) {
		island_begin("inner");
		usleep(1000);
		island_end("inner");
	}
	island_begin("second");
	island_end("wrong-name");
	island_end("outer");
	island_begin("left open");
	printf("regions done\n");
	return 0;
}
