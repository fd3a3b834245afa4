/* How every unit-test binary ends: run the registered suites, print
 * CUnit's summary and the line tests/run counts ("unit-NAME: N passed,
 * N failed"), and say failure through the exit status. */
#ifndef ISLAND_UNIT_H
#define ISLAND_UNIT_H

#include <CUnit/Basic.h>
#include <stdio.h>

/* The number of failed tests (after CU_cleanup_registry). */
static inline unsigned unit_run(const char *name)
{
	CU_basic_set_mode(CU_BRM_NORMAL);
	CU_basic_run_tests();
	unsigned run = CU_get_number_of_tests_run();
	unsigned failed = CU_get_number_of_tests_failed();
	printf("unit-%s: %u passed, %u failed\n", name, run - failed, failed);
	CU_cleanup_registry();
	return failed;
}

#endif
