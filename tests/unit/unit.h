/* How every unit-test binary ends: run the registered suites, print
 * CUnit's summary and the line tests/run counts ("unit-NAME: N passed,
 * N failed"), and say failure through the exit status. */
#ifndef ISLAND_UNIT_H
#define ISLAND_UNIT_H

#include <CUnit/Basic.h>
#include <stddef.h>
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

struct unit_test {
	const char *name;
	CU_TestFunc fn;
};

/* A main with one suite SUITE of the N tests T, its summary named after
 * the suite: 0 if all passed, 1 if one failed, 2 if CUnit would not start. */
static inline int unit_main(const char *suite, const struct unit_test *t, size_t n)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite(suite, NULL, NULL);
	for (size_t i = 0; i < n; i++)
		CU_add_test(s, t[i].name, t[i].fn);
	return unit_run(suite) ? 1 : 0;
}

#endif
