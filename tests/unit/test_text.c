/*
 * test_text.c - unit tests for mad/text.c: array growth (doubling, the
 * first capacity, overflow refused), the growing text buffer (printf, putc,
 * take), the counting sink (cut like snprintf, counts what it would need),
 * hex digits and the error-message helper.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "tests/unit/unit.h"

static void test_text_grow(void)
{
	int *v = NULL;
	size_t cap = 0;

	CU_ASSERT_EQUAL(TEXT_GROW(v, cap, 1, 16), 0);
	CU_ASSERT_EQUAL(cap, 16);
	CU_ASSERT_PTR_NOT_NULL(v);
	for (int i = 0; i < 16; i++)
		v[i] = i;
	/* enough room: nothing moves */
	CU_ASSERT_EQUAL(TEXT_GROW(v, cap, 16, 16), 0);
	CU_ASSERT_EQUAL(cap, 16);
	/* doubles until it holds need, keeping what was there */
	CU_ASSERT_EQUAL(TEXT_GROW(v, cap, 100, 16), 0);
	CU_ASSERT_EQUAL(cap, 128);
	CU_ASSERT_EQUAL(v[15], 15);
	/* a size that cannot be allocated leaves the array alone */
	CU_ASSERT_EQUAL(text_grow((void **)&v, &cap, SIZE_MAX / 2, sizeof(*v), 16), -ENOMEM);
	CU_ASSERT_EQUAL(cap, 128);
	CU_ASSERT_EQUAL(v[15], 15);
	free(v);
}

static void test_text_buf(void)
{
	struct text_buf b;
	char *s;
	size_t len = 99;

	text_buf_init(&b);
	s = text_buf_take(&b, &len);
	CU_ASSERT_STRING_EQUAL(s, "");
	CU_ASSERT_EQUAL(len, 0);
	free(s);

	text_buf_init(&b);
	for (int i = 0; i < 500; i++)
		text_buf_printf(&b, "%03d,", i);
	text_buf_putc(&b, '!');
	CU_ASSERT_EQUAL(b.len, 2001);
	CU_ASSERT_EQUAL(strncmp(b.s, "000,001,", 8), 0);
	CU_ASSERT_STRING_EQUAL(b.s + 1996, "499,!");
	s = text_buf_take(&b, &len);
	CU_ASSERT_EQUAL(len, 2001);
	CU_ASSERT_EQUAL(strlen(s), 2001);
	CU_ASSERT_PTR_NULL(b.s);
	CU_ASSERT_EQUAL(b.len, 0);
	free(s);

	/* a failed buffer hands over nothing */
	text_buf_init(&b);
	text_buf_printf(&b, "x");
	b.failed = 1;
	text_buf_printf(&b, "y");
	CU_ASSERT_STRING_EQUAL(b.s, "x");
	CU_ASSERT_PTR_NULL(text_buf_take(&b, &len));
	CU_ASSERT_EQUAL(len, 0);
}

static void test_text_sink(void)
{
	char buf[8];
	struct text_sink o = {buf, sizeof(buf), 0};

	text_sinkf(&o, "%s", "abc");
	text_sinkf(&o, "%d", 12345);
	CU_ASSERT_EQUAL(o.off, 8);
	CU_ASSERT_STRING_EQUAL(buf, "abc1234");
	text_sinkf(&o, "more");
	CU_ASSERT_EQUAL(o.off, 12);
	CU_ASSERT_STRING_EQUAL(buf, "abc1234");

	/* a sink with no buffer only counts */
	struct text_sink count = {NULL, 0, 0};
	text_sinkf(&count, "%s-%u", "guid", 7u);
	CU_ASSERT_EQUAL(count.off, 6);
}

static void test_text_hex_err(void)
{
	char err[16];

	CU_ASSERT_EQUAL(text_hexval('0'), 0);
	CU_ASSERT_EQUAL(text_hexval('9'), 9);
	CU_ASSERT_EQUAL(text_hexval('a'), 10);
	CU_ASSERT_EQUAL(text_hexval('F'), 15);
	CU_ASSERT_EQUAL(text_hexval('g'), -1);
	CU_ASSERT_EQUAL(text_hexval('x'), -1);
	CU_ASSERT_EQUAL(text_hexval('\0'), -1);

	CU_ASSERT_EQUAL(text_err(err, sizeof(err), -EINVAL, "port %u: %s", 3u, "no LID at all"),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "port 3: no LID ");
	/* no buffer: only the code */
	CU_ASSERT_EQUAL(text_err(NULL, 0, -ENOENT, "ignored"), -ENOENT);
}

/* The first element whose key is >= the one asked, on a key that is not
 * the struct's first member. */
static void test_text_lower_bound(void)
{
	struct row {
		int tag;
		uint64_t key;
	} v[] = {{0, 10}, {1, 20}, {2, 20}, {3, 40}};
	size_t off = offsetof(struct row, key), n = sizeof(v) / sizeof(v[0]);

	CU_ASSERT_EQUAL(text_u64_lower_bound(v, n, sizeof(v[0]), off, 5), 0);
	CU_ASSERT_EQUAL(text_u64_lower_bound(v, n, sizeof(v[0]), off, 10), 0);
	CU_ASSERT_EQUAL(text_u64_lower_bound(v, n, sizeof(v[0]), off, 20), 1);
	CU_ASSERT_EQUAL(text_u64_lower_bound(v, n, sizeof(v[0]), off, 21), 3);
	CU_ASSERT_EQUAL(text_u64_lower_bound(v, n, sizeof(v[0]), off, 41), 4);
	CU_ASSERT_EQUAL(text_u64_lower_bound(v, 0, sizeof(v[0]), off, 1), 0);
}

void test_text_register(void)
{
	CU_pSuite s = CU_add_suite("text", NULL, NULL);

	CU_add_test(s, "array growth", test_text_grow);
	CU_add_test(s, "growing text buffer", test_text_buf);
	CU_add_test(s, "counting sink", test_text_sink);
	CU_add_test(s, "hex digits and error messages", test_text_hex_err);
	CU_add_test(s, "lower bound of a sorted key", test_text_lower_bound);
}
