/*
 * smp_test.h - what the pieces of suite smp share (test_smp.c registers it;
 * test_smp_attr.c, test_fake_fabric.c add their tests): big-endian reads of
 * raw MAD bytes.  Test code only.
 */
#ifndef NANOSM_TESTS_UNIT_SMP_TEST_H
#define NANOSM_TESTS_UNIT_SMP_TEST_H

#include <CUnit/CUnit.h>
#include <stdint.h>

/* The big-endian 64- and 16-bit numbers at p (test_smp.c). */
uint64_t test_smp_be64(const uint8_t *p);
unsigned test_smp_be16(const uint8_t *p);

/* The tests of test_smp_attr.c and test_fake_fabric.c, added to suite smp. */
void test_smp_attr_add(CU_pSuite s);
void test_fake_fabric_add(CU_pSuite s);

#endif
