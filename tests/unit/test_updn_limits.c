/*
 * test_updn_limits.c - what updn refuses to route: more switches than its
 * 16-bit hop counts (routing/updn.c, UPDN_FAR) can number.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <string.h>

#include "routing/route.h"
#include "tests/unit/route_test.h"
#include "tests/unit/unit.h"

/* 65535 switches (no cables, no LIDs: a chain of them would need 65534
 * hops): refused with -E2BIG and the count, tables left empty; one switch
 * fewer is routed. */
static void test_updn_too_many_switches(void)
{
	struct route_opts opts = {.max_lid = 1};
	struct lft_set out;
	struct fabric f;
	char err[256] = "";

	fabric_init(&f);
	for (int i = 0; i < 65534; i++)
		route_test_add_sw(&f, 1);
	lft_set_init(&out);
	CU_ASSERT_EQUAL(route_engine_updn.compute(&f, &opts, &out, NULL, err, sizeof(err)), 0);
	lft_set_fini(&out);
	route_test_add_sw(&f, 1);
	CU_ASSERT_EQUAL(route_engine_updn.compute(&f, &opts, &out, NULL, err, sizeof(err)), -E2BIG);
	CU_ASSERT_STRING_EQUAL(err, "updn routes at most 65534 switches, not 65535");
	CU_ASSERT_EQUAL(out.n, 0);
	lft_set_fini(&out);
	fabric_fini(&f);
}

void test_updn_limits_register(void)
{
	CU_pSuite s = CU_add_suite("updn limits", NULL, NULL);

	CU_add_test(s, "more switches than 16-bit hop counts: refused",
		    test_updn_too_many_switches);
}
