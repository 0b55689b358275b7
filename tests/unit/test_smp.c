/*
 * test_smp.c - unit tests for the SMP header codec (mad/smp.c): LID-routed and
 * directed-route headers, init and response, malformed SMPs.  Known-answer
 * tests check raw byte offsets from the IBA spec, not from libibmad.  Suite
 * smp, which goes on with the attribute codecs (test_smp_attr.c) and the
 * fake fabric the other suites drive (test_fake_fabric.c).
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/smp.h"
#include "tests/unit/smp_test.h"
#include "tests/unit/unit.h"

#define D(i) (SMP_DATA_OFFSET + (i)) /* byte i of the attribute payload */

uint64_t test_smp_be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

unsigned test_smp_be16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static void test_smp_fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + 7 * i + 1);
}

static void test_smp_assert_equal(const struct smp *a, const struct smp *b)
{
	CU_ASSERT_EQUAL(a->mgmt_class, b->mgmt_class);
	CU_ASSERT_EQUAL(a->method, b->method);
	CU_ASSERT_EQUAL(a->status, b->status);
	CU_ASSERT_EQUAL(a->tid, b->tid);
	CU_ASSERT_EQUAL(a->attr_id, b->attr_id);
	CU_ASSERT_EQUAL(a->attr_mod, b->attr_mod);
	CU_ASSERT_EQUAL(a->mkey, b->mkey);
	CU_ASSERT_EQUAL(a->direction, b->direction);
	CU_ASSERT_EQUAL(a->hop_ptr, b->hop_ptr);
	CU_ASSERT_EQUAL(a->hop_cnt, b->hop_cnt);
	CU_ASSERT_EQUAL(a->dr_slid, b->dr_slid);
	CU_ASSERT_EQUAL(a->dr_dlid, b->dr_dlid);
	CU_ASSERT(memcmp(a->initial_path, b->initial_path, sizeof(a->initial_path)) == 0);
	CU_ASSERT(memcmp(a->return_path, b->return_path, sizeof(a->return_path)) == 0);
	CU_ASSERT(memcmp(a->data, b->data, sizeof(a->data)) == 0);
}

/* ---- Header ---------------------------------------------------------- */

static void test_smp_lid_roundtrip(void)
{
	struct smp in, out;
	uint8_t buf[SMP_MAD_SIZE];

	memset(&in, 0, sizeof(in));
	in.mgmt_class = SMP_CLASS_LID;
	in.method = SMP_METHOD_SET;
	in.status = 0x8123; /* LID-routed: all 16 bits are status */
	in.tid = 0x0102030405060708ULL;
	in.attr_id = SMP_ATTR_PORT_INFO;
	in.attr_mod = 0xa1b2c3d4;
	in.mkey = 0x1122334455667788ULL;
	test_smp_fill(in.data, sizeof(in.data), 3);
	CU_ASSERT_EQUAL(smp_encode(&in, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(smp_decode(buf, sizeof(buf), &out), 0);
	test_smp_assert_equal(&in, &out);

	/* bytes 6-7, 32-63 and 128-255 are reserved in a LID-routed SMP */
	CU_ASSERT_EQUAL(buf[6], 0);
	CU_ASSERT_EQUAL(buf[7], 0);
	for (int i = 32; i < 64; i++)
		CU_ASSERT_EQUAL(buf[i], 0);
	for (int i = 128; i < SMP_MAD_SIZE; i++)
		CU_ASSERT_EQUAL(buf[i], 0);
}

static void test_smp_dr_fill(struct smp *s)
{
	memset(s, 0, sizeof(*s));
	s->mgmt_class = SMP_CLASS_DR;
	s->method = SMP_METHOD_GET_RESP;
	s->status = 0x7abc;
	s->direction = 1;
	s->tid = 0xdeadbeefcafef00dULL;
	s->attr_id = SMP_ATTR_NODE_INFO;
	s->attr_mod = 0x00000005;
	s->mkey = 0x8877665544332211ULL;
	s->hop_ptr = 3;
	s->hop_cnt = 5;
	s->dr_slid = 0x1234;
	s->dr_dlid = 0xfedc;
	test_smp_fill(s->initial_path, sizeof(s->initial_path), 11);
	test_smp_fill(s->return_path, sizeof(s->return_path), 101);
	test_smp_fill(s->data, sizeof(s->data), 51);
}

static void test_smp_dr_roundtrip(void)
{
	struct smp in, out;
	uint8_t buf[SMP_MAD_SIZE];

	test_smp_dr_fill(&in);
	CU_ASSERT_EQUAL(smp_encode(&in, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(smp_decode(buf, sizeof(buf), &out), 0);
	test_smp_assert_equal(&in, &out);

	in.direction = 0;
	in.method = SMP_METHOD_GET;
	in.hop_cnt = SMP_MAX_HOPS;
	CU_ASSERT_EQUAL(smp_encode(&in, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(smp_decode(buf, sizeof(buf), &out), 0);
	test_smp_assert_equal(&in, &out);
}

/* IBA 14.2.1.2: the DR SMP header, byte by byte. */
static void test_smp_dr_known_answer(void)
{
	struct smp s;
	uint8_t buf[SMP_MAD_SIZE];

	test_smp_dr_fill(&s);
	CU_ASSERT_EQUAL(smp_encode(&s, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(buf[0], 1);    /* BaseVersion */
	CU_ASSERT_EQUAL(buf[1], 0x81); /* MgmtClass */
	CU_ASSERT_EQUAL(buf[2], 1);    /* ClassVersion */
	CU_ASSERT_EQUAL(buf[3], 0x81); /* R bit + Method */
	CU_ASSERT_EQUAL(buf[4], 0x80 | 0x7a); /* D bit + status high */
	CU_ASSERT_EQUAL(buf[5], 0xbc);
	CU_ASSERT_EQUAL(buf[6], 3); /* HopPointer */
	CU_ASSERT_EQUAL(buf[7], 5); /* HopCount */
	CU_ASSERT_EQUAL(test_smp_be64(&buf[8]), 0xdeadbeefcafef00dULL);
	CU_ASSERT_EQUAL(test_smp_be16(&buf[16]), SMP_ATTR_NODE_INFO);
	CU_ASSERT_EQUAL(buf[18], 0);
	CU_ASSERT_EQUAL(buf[19], 0);
	CU_ASSERT_EQUAL(buf[20], 0);
	CU_ASSERT_EQUAL(buf[23], 5); /* AttributeModifier, big-endian */
	CU_ASSERT_EQUAL(test_smp_be64(&buf[24]), 0x8877665544332211ULL);
	CU_ASSERT_EQUAL(test_smp_be16(&buf[32]), 0x1234); /* DrSLID */
	CU_ASSERT_EQUAL(test_smp_be16(&buf[34]), 0xfedc); /* DrDLID */
	for (int i = 36; i < 64; i++)
		CU_ASSERT_EQUAL(buf[i], 0);
	CU_ASSERT(memcmp(&buf[64], s.data, 64) == 0);
	for (int i = 0; i < 64; i++) {
		CU_ASSERT_EQUAL(buf[128 + i], s.initial_path[i]);
		CU_ASSERT_EQUAL(buf[192 + i], s.return_path[i]);
	}
}

/* The D bit and the 15-bit status share bytes 4-5 but stay apart. */
static void test_smp_dr_dbit_status(void)
{
	struct smp s;
	uint8_t buf[SMP_MAD_SIZE];

	test_smp_dr_fill(&s);
	s.direction = 1;
	s.status = 0;
	CU_ASSERT_EQUAL(smp_encode(&s, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(buf[4], 0x80);
	CU_ASSERT_EQUAL(buf[5], 0x00);

	s.direction = 0;
	s.status = 0x7fff;
	CU_ASSERT_EQUAL(smp_encode(&s, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(buf[4], 0x7f);
	CU_ASSERT_EQUAL(buf[5], 0xff);
	CU_ASSERT_EQUAL(smp_decode(buf, sizeof(buf), &s), 0);
	CU_ASSERT_EQUAL(s.direction, 0);
	CU_ASSERT_EQUAL(s.status, 0x7fff);

	buf[4] = 0x80;
	buf[5] = 0x1c;
	CU_ASSERT_EQUAL(smp_decode(buf, sizeof(buf), &s), 0);
	CU_ASSERT_EQUAL(s.direction, 1);
	CU_ASSERT_EQUAL(s.status, 0x1c);
}

/* Decode a buffer built by hand, without smp_encode. */
static void test_smp_decode_known_answer(void)
{
	uint8_t buf[SMP_MAD_SIZE] = { 0 };
	struct smp s;

	buf[0] = 1;
	buf[1] = 0x81;
	buf[2] = 1;
	buf[3] = 0x02; /* Set */
	buf[6] = 1;
	buf[7] = 2;
	buf[15] = 0x42;
	buf[16] = 0x00;
	buf[17] = 0x19; /* LinearForwardingTable */
	buf[22] = 0x01;
	buf[23] = 0x02; /* block 0x102 */
	buf[32] = buf[33] = buf[34] = buf[35] = 0xff;
	buf[129] = 1;
	buf[130] = 7;
	buf[64] = 0x09;
	CU_ASSERT_EQUAL(smp_decode(buf, sizeof(buf), &s), 0);
	CU_ASSERT_EQUAL(s.mgmt_class, SMP_CLASS_DR);
	CU_ASSERT_EQUAL(s.method, SMP_METHOD_SET);
	CU_ASSERT_EQUAL(s.direction, 0);
	CU_ASSERT_EQUAL(s.status, 0);
	CU_ASSERT_EQUAL(s.hop_ptr, 1);
	CU_ASSERT_EQUAL(s.hop_cnt, 2);
	CU_ASSERT_EQUAL(s.tid, 0x42);
	CU_ASSERT_EQUAL(s.attr_id, SMP_ATTR_LFT);
	CU_ASSERT_EQUAL(s.attr_mod, 0x102);
	CU_ASSERT_EQUAL(s.dr_slid, 0xffff);
	CU_ASSERT_EQUAL(s.dr_dlid, 0xffff);
	CU_ASSERT_EQUAL(s.initial_path[1], 1);
	CU_ASSERT_EQUAL(s.initial_path[2], 7);
	CU_ASSERT_EQUAL(s.data[0], 0x09);
}

static void test_smp_init_and_response(void)
{
	const uint8_t path[] = { 0, 1, 5, 9 };
	struct smp s;
	uint8_t buf[SMP_MAD_SIZE];

	smp_init_dr(&s, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, 4, path, 3);
	CU_ASSERT_EQUAL(s.mgmt_class, SMP_CLASS_DR);
	CU_ASSERT_EQUAL(s.method, SMP_METHOD_GET);
	CU_ASSERT_EQUAL(s.attr_id, SMP_ATTR_PORT_INFO);
	CU_ASSERT_EQUAL(s.attr_mod, 4);
	CU_ASSERT_EQUAL(s.hop_ptr, 0);
	CU_ASSERT_EQUAL(s.hop_cnt, 3);
	CU_ASSERT_EQUAL(s.direction, 0);
	CU_ASSERT_EQUAL(s.dr_slid, 0xffff);
	CU_ASSERT_EQUAL(s.dr_dlid, 0xffff);
	CU_ASSERT_EQUAL(s.initial_path[0], 0);
	CU_ASSERT_EQUAL(s.initial_path[1], 1);
	CU_ASSERT_EQUAL(s.initial_path[2], 5);
	CU_ASSERT_EQUAL(s.initial_path[3], 9);
	CU_ASSERT_EQUAL(s.initial_path[4], 0);

	CU_ASSERT_EQUAL(smp_encode(&s, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(buf[7], 3);
	CU_ASSERT_EQUAL(buf[128 + 2], 5);

	smp_make_response(&s);
	CU_ASSERT_EQUAL(s.method, SMP_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(s.direction, 1);
	CU_ASSERT_EQUAL(s.hop_ptr, 3);
	CU_ASSERT_EQUAL(s.attr_id, SMP_ATTR_PORT_INFO);

	smp_init_dr(&s, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, NULL, 0);
	CU_ASSERT_EQUAL(s.hop_cnt, 0);

	smp_init_lid(&s, SMP_METHOD_SET, SMP_ATTR_SM_INFO, 2);
	CU_ASSERT_EQUAL(s.mgmt_class, SMP_CLASS_LID);
	CU_ASSERT_EQUAL(s.method, SMP_METHOD_SET);
	CU_ASSERT_EQUAL(s.attr_id, SMP_ATTR_SM_INFO);
	CU_ASSERT_EQUAL(s.attr_mod, 2);
	CU_ASSERT_EQUAL(s.dr_slid, 0);
	smp_make_response(&s);
	CU_ASSERT_EQUAL(s.method, SMP_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(s.direction, 0);
}

static void test_smp_malformed(void)
{
	uint8_t good[SMP_MAD_SIZE], bad[SMP_MAD_SIZE];
	uint8_t *shortbuf = malloc(SMP_MAD_SIZE - 1); /* ASan: no read past it */
	struct smp s;

	smp_init_dr(&s, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, NULL, 0);
	CU_ASSERT_EQUAL(smp_encode(&s, good, sizeof(good)), 0);
	CU_ASSERT_EQUAL(smp_decode(good, sizeof(good), &s), 0);

	CU_ASSERT_PTR_NOT_NULL_FATAL(shortbuf);
	memcpy(shortbuf, good, SMP_MAD_SIZE - 1);
	CU_ASSERT_EQUAL(smp_decode(shortbuf, SMP_MAD_SIZE - 1, &s), -EINVAL);
	CU_ASSERT_EQUAL(smp_decode(good, 0, &s), -EINVAL);
	CU_ASSERT_EQUAL(smp_decode(NULL, SMP_MAD_SIZE, &s), -EINVAL);
	CU_ASSERT_EQUAL(smp_encode(&s, shortbuf, SMP_MAD_SIZE - 1), -EINVAL);
	free(shortbuf);

	memcpy(bad, good, sizeof(bad));
	bad[1] = 0x04; /* PerfMgt, not an SMP */
	CU_ASSERT_EQUAL(smp_decode(bad, sizeof(bad), &s), -EINVAL);
	memcpy(bad, good, sizeof(bad));
	bad[0] = 2;
	CU_ASSERT_EQUAL(smp_decode(bad, sizeof(bad), &s), -EINVAL);
	memcpy(bad, good, sizeof(bad));
	bad[2] = 2;
	CU_ASSERT_EQUAL(smp_decode(bad, sizeof(bad), &s), -EINVAL);
	memcpy(bad, good, sizeof(bad));
	bad[7] = 64;
	CU_ASSERT_EQUAL(smp_decode(bad, sizeof(bad), &s), -EINVAL);
	bad[7] = 63;
	CU_ASSERT_EQUAL(smp_decode(bad, sizeof(bad), &s), 0);

	s.hop_cnt = 64;
	CU_ASSERT_EQUAL(smp_encode(&s, good, sizeof(good)), -EINVAL);
	s.hop_cnt = 0;
	s.mgmt_class = 0x04;
	CU_ASSERT_EQUAL(smp_encode(&s, good, sizeof(good)), -EINVAL);
}

/* IBA C14-9/C14-13: the hop pointer (byte 6) runs 0 .. hop count (byte 7)
 * + 1; a DR SMP with a hop pointer past that is discarded (found by
 * tests/fuzz/fuzz_smp.c; its input is tests/fuzz/regress/smp/). */
static void test_smp_bad_hop_ptr(void)
{
	static const uint8_t path[] = { 0, 1, 2, 3 };
	uint8_t buf[SMP_MAD_SIZE];
	struct smp s;

	smp_init_dr(&s, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, path, 3);
	CU_ASSERT_EQUAL(smp_encode(&s, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(buf[7], 3);
	for (unsigned ptr = 0; ptr <= 4; ptr++) {
		buf[6] = (uint8_t)ptr;
		CU_ASSERT_EQUAL(smp_decode(buf, sizeof(buf), &s), 0);
		CU_ASSERT_EQUAL(s.hop_ptr, ptr);
	}
	buf[6] = 5;
	CU_ASSERT_EQUAL(smp_decode(buf, sizeof(buf), &s), -EINVAL);
	buf[6] = 0xff;
	CU_ASSERT_EQUAL(smp_decode(buf, sizeof(buf), &s), -EINVAL);
	buf[7] = 0; /* a 0-hop SMP: hop pointer 0 or 1 */
	buf[6] = 1;
	CU_ASSERT_EQUAL(smp_decode(buf, sizeof(buf), &s), 0);
	buf[6] = 2;
	CU_ASSERT_EQUAL(smp_decode(buf, sizeof(buf), &s), -EINVAL);
	/* LID-routed SMPs have no hop pointer: byte 6 is status */
	smp_init_lid(&s, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0);
	s.status = 0x00ff;
	CU_ASSERT_EQUAL(smp_encode(&s, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(smp_decode(buf, sizeof(buf), &s), 0);
}

void test_smp_register(void)
{
	CU_pSuite s = CU_add_suite("smp", NULL, NULL);

	if (!s)
		return;
	CU_add_test(s, "LID-routed header round trip", test_smp_lid_roundtrip);
	CU_add_test(s, "DR header round trip", test_smp_dr_roundtrip);
	CU_add_test(s, "DR header byte offsets", test_smp_dr_known_answer);
	CU_add_test(s, "DR D bit apart from status", test_smp_dr_dbit_status);
	CU_add_test(s, "decode hand-built DR SMP", test_smp_decode_known_answer);
	CU_add_test(s, "init_dr/init_lid/make_response", test_smp_init_and_response);
	CU_add_test(s, "malformed SMPs rejected", test_smp_malformed);
	CU_add_test(s, "DR hop pointer past the path rejected", test_smp_bad_hop_ptr);
	test_smp_attr_add(s);
	test_fake_fabric_add(s);
}
