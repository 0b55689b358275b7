/* weak.c - TEMPORARY while suites are being written in parallel: a missing
 * suite fails loudly instead of breaking the link.  Removed once all exist. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include "tests/unit/unit.h"

static void missing(const char *n)
{
	fprintf(stderr, "unit suite %s is missing\n", n);
}
#define WEAK(n) __attribute__((weak)) void n(void) { missing(#n); }
WEAK(test_smp_register)
WEAK(test_fabric_register)
WEAK(test_topo_register)
WEAK(test_minhop_register)
WEAK(test_lid_alloc_register)
WEAK(test_guid2lid_register)
WEAK(test_mad_queue_register)
WEAK(test_sweep_register)
