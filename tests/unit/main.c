/*
 * main.c - CUnit runner for nanosm's unit tests.
 *
 * Each tests/unit/test_*.c file exposes one test_<name>_register() that adds
 * its suite; this file only runs them.  Exit status is non-zero on failure.
 */
#include <CUnit/Basic.h>
#include <stdio.h>

#include "tests/unit/unit.h"

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	for (size_t i = 0; unit_suites[i]; i++)
		unit_suites[i]();
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	unsigned run = CU_get_number_of_tests_run();
	CU_cleanup_registry();
	if (run == 0) {
		fprintf(stderr, "no unit test ran\n");
		return 1;
	}
	return failed ? 1 : 0;
}
