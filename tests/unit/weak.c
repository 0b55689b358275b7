/* weak.c - TEMPORARY while suites are written in parallel: a missing suite
 * registers a failing test instead of breaking the link.  Removed once all
 * suites exist. */
#include <CUnit/CUnit.h>
#include "tests/unit/unit.h"

static void weak_missing(void)
{
	CU_FAIL("this unit suite is not written yet");
}
#define WEAK(n)                                                                                   \
	__attribute__((weak)) void n(void)                                                        \
	{                                                                                          \
		CU_add_test(CU_add_suite(#n, NULL, NULL), "missing", weak_missing);                \
	}
WEAK(test_updn_register)
WEAK(test_ftree_register)
WEAK(test_check_register)
WEAK(test_score_register)
WEAK(test_lft_file_register)
WEAK(test_gate_register)
