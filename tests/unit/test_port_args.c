/*
 * test_port_args.c - unit tests for mad/port_args.c: the number parser
 * (decimal, 0x hex, ranges, overflow, what is not a number), -d/-p/-g into
 * a struct port_args with messages naming the option and the value, and
 * -g excluding -d/-p.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "mad/port_args.h"
#include "tests/unit/unit.h"

static void number_ok(const char *val, uint64_t min, uint64_t max, uint64_t want)
{
	char err[128] = "";
	uint64_t v = 12345;

	CU_ASSERT_EQUAL(port_args_number("--n", val, min, max, &v, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(v, want);
	CU_ASSERT_STRING_EQUAL(err, "");
}

static void number_fail(const char *val, uint64_t min, uint64_t max, const char *want)
{
	char err[128] = "";
	uint64_t v = 12345;

	CU_ASSERT_EQUAL(port_args_number("--n", val, min, max, &v, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(v, 12345); /* untouched */
	CU_ASSERT_STRING_EQUAL(err, want);
}

static void test_port_args_number(void)
{
	number_ok("0", 0, 10, 0);
	number_ok("10", 0, 10, 10);
	number_ok("010", 0, 10, 10); /* decimal, never octal */
	number_ok("0x1f", 0, 100, 31);
	number_ok("0XaB", 0, 255, 171);
	number_ok("18446744073709551615", 0, UINT64_MAX, UINT64_MAX);
	number_ok("0xffffffffffffffff", 1, UINT64_MAX, UINT64_MAX);

	number_fail("abc", 0, 10, "--n: \"abc\" is not a number");
	number_fail("", 0, 10, "--n: \"\" is not a number");
	number_fail("0x", 0, 10, "--n: \"0x\" is not a number");
	number_fail("1a", 0, 100, "--n: \"1a\" is not a number"); /* hex needs 0x */
	number_fail("0x1g", 0, 100, "--n: \"0x1g\" is not a number");
	number_fail("-1", 0, 10, "--n: \"-1\" is not a number");
	number_fail("+1", 0, 10, "--n: \"+1\" is not a number");
	number_fail(" 1", 0, 10, "--n: \" 1\" is not a number");
	number_fail("1 ", 0, 10, "--n: \"1 \" is not a number");
	number_fail("0", 1, 10, "--n: 0 is out of range 1..10");
	number_fail("11", 1, 10, "--n: 11 is out of range 1..10");
	number_fail("0x100", 0, 255, "--n: 0x100 is out of range 0..255");
	number_fail("18446744073709551616", 0, UINT64_MAX,
		    "--n: 18446744073709551616 is too large (at most 18446744073709551615)");
	number_fail("0x10000000000000000", 0, 10,
		    "--n: 0x10000000000000000 is too large (at most 10)");
}

static void test_port_args_set(void)
{
	struct port_args a = {.port = 0};
	char err[128] = "";

	CU_ASSERT_PTR_NULL(port_args_ca(&a));
	CU_ASSERT_EQUAL(port_args_set(&a, 'd', NULL, "mlx5_0", err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(port_args_ca(&a), "mlx5_0");
	CU_ASSERT_EQUAL(port_args_set(&a, 'p', NULL, "2", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(a.port, 2);
	CU_ASSERT_EQUAL(port_args_set(&a, 'p', "--port", "0xfe", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(a.port, 254);
	CU_ASSERT_EQUAL(port_args_check(&a, err, sizeof(err)), 0);

	memset(&a, 0, sizeof(a));
	CU_ASSERT_EQUAL(port_args_set(&a, 'g', NULL, "0x0002c90300a00011", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(a.guid, 0x0002c90300a00011ULL);
	CU_ASSERT_EQUAL(port_args_check(&a, err, sizeof(err)), 0);
}

static void set_fail(int letter, const char *opt, const char *val, const char *want)
{
	struct port_args a = {.port = 7, .guid = 9};
	char err[128] = "";

	CU_ASSERT_EQUAL(port_args_set(&a, letter, opt, val, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_EQUAL(a.port, 7); /* a failed option changes nothing */
	CU_ASSERT_EQUAL(a.guid, 9);
	CU_ASSERT_STRING_EQUAL(a.ca, "");
}

static void test_port_args_errors(void)
{
	set_fail('p', NULL, "abc", "-p: \"abc\" is not a number");
	set_fail('p', "--port", "abc", "--port: \"abc\" is not a number");
	set_fail('p', NULL, "0", "-p: 0 is out of range 1..254");
	set_fail('p', NULL, "255", "-p: 255 is out of range 1..254");
	set_fail('g', NULL, "0", "-g: 0 is out of range 1..18446744073709551615");
	set_fail('g', NULL, "xyz", "-g: \"xyz\" is not a number");
	set_fail('g', "--guid", "0002c90300a00011", "--guid: \"0002c90300a00011\" is not a number");
	set_fail('d', NULL, "", "-d: device name must be 1..63 characters");
	set_fail('d', "--ca", "0123456789012345678901234567890123456789012345678901234567890123",
		 "--ca: device name must be 1..63 characters");
	set_fail('x', NULL, "1", "-x is not a port option (-d, -p or -g)");
}

static void test_port_args_exclusive(void)
{
	static const char *const want =
	    "-g names the local port: give -g GUID or -d CA [-p PORT], not both";
	struct port_args a = {.guid = 0x21};
	char err[128] = "";

	CU_ASSERT_EQUAL(port_args_set(&a, 'd', NULL, "mlx5_0", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(port_args_check(&a, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, want);
	memset(&a, 0, sizeof(a));
	a.guid = 0x21;
	a.port = 1;
	err[0] = '\0';
	CU_ASSERT_EQUAL(port_args_check(&a, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, want);
	/* nothing given: the first InfiniBand port */
	memset(&a, 0, sizeof(a));
	CU_ASSERT_EQUAL(port_args_check(&a, NULL, 0), 0);
}

void test_port_args_register(void)
{
	CU_pSuite s = CU_add_suite("port_args", NULL, NULL);

	CU_add_test(s, "numbers: decimal, 0x hex, ranges", test_port_args_number);
	CU_add_test(s, "-d, -p and -g into the struct", test_port_args_set);
	CU_add_test(s, "bad values name the option and the value", test_port_args_errors);
	CU_add_test(s, "-g excludes -d/-p", test_port_args_exclusive);
}
