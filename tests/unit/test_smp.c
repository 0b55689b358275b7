/*
 * test_smp.c - unit tests for the SMP codecs (mad/smp.c) and for the fake
 * fabric the other suites drive (tests/unit/fake_fabric.c).  Known-answer
 * tests check raw byte offsets from the IBA spec, not from libibmad.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/smp.h"
#include "tests/unit/fake_fabric.h"
#include "tests/unit/unit.h"

#define D(i) (SMP_DATA_OFFSET + (i)) /* byte i of the attribute payload */

static uint64_t test_smp_be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static unsigned test_smp_be16(const uint8_t *p)
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

/* ---- Attributes ------------------------------------------------------ */

static void test_smp_node_info(void)
{
	static const struct smp_node_info in = { /* static: padding zeroed for memcmp */
		.base_version = 1,
		.class_version = 1,
		.node_type = NODE_TYPE_SWITCH,
		.num_ports = 36,
		.system_guid = 0x0002c90300001111ULL,
		.node_guid = 0x0002c90300a1b2c3ULL,
		.port_guid = 0x0002c90300a1b2c4ULL,
		.partition_cap = 0x0080,
		.device_id = 0xc738,
		.revision = 0x000000a1,
		.vendor_id = 0x0002c9,
		.local_port = 17,
	};
	struct smp_node_info out;
	uint8_t d[SMP_DATA_SIZE];

	memset(d, 0xee, sizeof(d));
	smp_node_info_encode(&in, d);
	smp_node_info_decode(d, &out);
	CU_ASSERT(memcmp(&in, &out, sizeof(in)) == 0);

	/* IBA 14.2.5.3 NodeInfo */
	CU_ASSERT_EQUAL(d[0], 1);
	CU_ASSERT_EQUAL(d[1], 1);
	CU_ASSERT_EQUAL(d[2], 2);
	CU_ASSERT_EQUAL(d[3], 36);
	CU_ASSERT_EQUAL(test_smp_be64(&d[4]), 0x0002c90300001111ULL);
	CU_ASSERT_EQUAL(test_smp_be64(&d[12]), 0x0002c90300a1b2c3ULL);
	CU_ASSERT_EQUAL(test_smp_be64(&d[20]), 0x0002c90300a1b2c4ULL);
	CU_ASSERT_EQUAL(test_smp_be16(&d[28]), 0x0080);
	CU_ASSERT_EQUAL(test_smp_be16(&d[30]), 0xc738);
	CU_ASSERT_EQUAL(d[35], 0xa1);
	CU_ASSERT_EQUAL(d[36], 17);
	CU_ASSERT_EQUAL(d[37], 0x00);
	CU_ASSERT_EQUAL(d[38], 0x02);
	CU_ASSERT_EQUAL(d[39], 0xc9);
	for (int i = 40; i < SMP_DATA_SIZE; i++)
		CU_ASSERT_EQUAL(d[i], 0);
}

static void test_smp_node_desc(void)
{
	struct smp_node_desc in, out;
	uint8_t d[SMP_DATA_SIZE];

	memset(&in, 0, sizeof(in));
	strcpy(in.desc, "sw-leaf-01 mlx5_0");
	memset(d, 0xee, sizeof(d));
	smp_node_desc_encode(&in, d);
	CU_ASSERT(memcmp(d, "sw-leaf-01 mlx5_0", 17) == 0);
	for (int i = 17; i < SMP_DATA_SIZE; i++)
		CU_ASSERT_EQUAL(d[i], 0);
	smp_node_desc_decode(d, &out);
	CU_ASSERT_STRING_EQUAL(out.desc, "sw-leaf-01 mlx5_0");

	/* non-printable bytes become '?'; the string ends at the first NUL */
	memset(d, 0, sizeof(d));
	memcpy(d, "a\tb\x01\xff", 5);
	d[6] = 'z';
	smp_node_desc_decode(d, &out);
	CU_ASSERT_STRING_EQUAL(out.desc, "a?b??");

	/* 64 bytes with no NUL: all kept and terminated */
	memset(d, 'x', sizeof(d));
	smp_node_desc_decode(d, &out);
	CU_ASSERT_EQUAL(strlen(out.desc), 64);
	CU_ASSERT_EQUAL(out.desc[64], '\0');
}

/* Every field distinct and non-zero (within its width). */
static void test_smp_port_info_sample(struct smp_port_info *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->mkey = 0x0102030405060708ULL;
	pi->gid_prefix = 0xfe80000000000abcULL;
	pi->lid = 0x1234;
	pi->sm_lid = 0x0567;
	pi->cap_mask = 0x02510a6a;
	pi->diag_code = 0x0a0b;
	pi->mkey_lease = 0x0c0d;
	pi->local_port = 33;
	pi->link_width_enabled = 0x13;
	pi->link_width_supported = 0x17;
	pi->link_width_active = 0x12;
	pi->link_speed_supported = 7;
	pi->state = PORT_STATE_ARMED;
	pi->phys_state = PORT_PHYS_LINKUP;
	pi->link_down_default = 2;
	pi->mkey_prot = 3;
	pi->lmc = 6;
	pi->link_speed_active = 4;
	pi->link_speed_enabled = 15;
	pi->neighbor_mtu = 1;
	pi->master_sm_sl = 9;
	pi->vl_cap = 8;
	pi->init_type = 10;
	pi->vl_high_limit = 0x21;
	pi->vl_arb_high_cap = 0x22;
	pi->vl_arb_low_cap = 0x23;
	pi->init_type_reply = 11;
	pi->mtu_cap = 12;
	pi->vl_stall_count = 5;
	pi->hoq_life = 0x1d;
	pi->oper_vls = 13;
	pi->part_enf_inb = 1;
	pi->filter_raw_inb = 1;
	pi->client_rereg = 1;
	pi->subnet_timeout = 0x1e;
	pi->resp_time = 0x13;
	pi->local_phys_err = 14;
	pi->overrun_err = 6;
}

static void test_smp_port_info(void)
{
	struct smp_port_info in, out;
	uint8_t d[SMP_DATA_SIZE];

	test_smp_port_info_sample(&in);
	memset(d, 0xee, sizeof(d));
	smp_port_info_encode(&in, d);
	smp_port_info_decode(d, &out);
	CU_ASSERT(memcmp(&in, &out, sizeof(in)) == 0);

	/* IBA 14.2.5.6 PortInfo */
	CU_ASSERT_EQUAL(test_smp_be64(&d[0]), 0x0102030405060708ULL);
	CU_ASSERT_EQUAL(test_smp_be64(&d[8]), 0xfe80000000000abcULL);
	CU_ASSERT_EQUAL(test_smp_be16(&d[16]), 0x1234); /* LID */
	CU_ASSERT_EQUAL(test_smp_be16(&d[18]), 0x0567); /* MasterSMLID */
	CU_ASSERT_EQUAL(d[20], 0x02);
	CU_ASSERT_EQUAL(d[23], 0x6a);                   /* CapabilityMask */
	CU_ASSERT_EQUAL(test_smp_be16(&d[24]), 0x0a0b);
	CU_ASSERT_EQUAL(test_smp_be16(&d[26]), 0x0c0d);
	CU_ASSERT_EQUAL(d[28], 33);   /* LocalPortNum */
	CU_ASSERT_EQUAL(d[29], 0x13); /* LinkWidthEnabled */
	CU_ASSERT_EQUAL(d[30], 0x17); /* LinkWidthSupported */
	CU_ASSERT_EQUAL(d[31], 0x12); /* LinkWidthActive */
	CU_ASSERT_EQUAL(d[32], 0x73); /* LinkSpeedSupported | PortState */
	CU_ASSERT_EQUAL(d[33], 0x52); /* PhysState | LinkDownDefault */
	CU_ASSERT_EQUAL(d[34], 0xc6); /* M_KeyProtect(2) rsvd(3) LMC(3) */
	CU_ASSERT_EQUAL(d[35], 0x4f); /* LinkSpeedActive | LinkSpeedEnabled */
	CU_ASSERT_EQUAL(d[36], 0x19); /* NeighborMTU | MasterSMSL */
	CU_ASSERT_EQUAL(d[37], 0x8a); /* VLCap | InitType */
	CU_ASSERT_EQUAL(d[38], 0x21);
	CU_ASSERT_EQUAL(d[39], 0x22);
	CU_ASSERT_EQUAL(d[40], 0x23);
	CU_ASSERT_EQUAL(d[41], 0xbc); /* InitTypeReply | MTUCap */
	CU_ASSERT_EQUAL(d[42], 0xbd); /* VLStallCount(3) | HOQLife(5) */
	CU_ASSERT_EQUAL(d[43], 0xda); /* OperationalVLs | PartEnfIn/Out | FilterRawIn/Out */
	CU_ASSERT_EQUAL(d[51], 0x9e); /* ClientRereg | rsvd(2) | SubnetTimeOut */
	CU_ASSERT_EQUAL(d[52], 0x13); /* rsvd(3) | RespTimeValue */
	CU_ASSERT_EQUAL(d[53], 0xe6); /* LocalPhyErrors | OverrunErrors */
}

static void test_smp_port_state_nibble(void)
{
	struct smp_port_info pi;
	uint8_t d[SMP_DATA_SIZE] = { 0 };

	d[32] = 0x24; /* LinkSpeedSupported 2, PortState ACTIVE (low nibble) */
	d[33] = 0x52;
	smp_port_info_decode(d, &pi);
	CU_ASSERT_EQUAL(pi.state, PORT_STATE_ACTIVE);
	CU_ASSERT_EQUAL(pi.link_speed_supported, 2);
	CU_ASSERT_EQUAL(pi.phys_state, PORT_PHYS_LINKUP);
	CU_ASSERT_EQUAL(pi.link_down_default, 2);
}

static void test_smp_switch_info(void)
{
	static const struct smp_switch_info in = {
		.linear_fdb_cap = 0xc000,
		.random_fdb_cap = 0x0102,
		.mcast_fdb_cap = 0x0203,
		.linear_fdb_top = 0x0a0b,
		.default_port = 5,
		.default_mcast_primary = 6,
		.default_mcast_not_primary = 7,
		.life_time = 0x13,
		.port_state_change = 1,
		.opt_sl2vl_mapping = 2,
		.lids_per_port = 0x0304,
		.partition_enforce_cap = 0x0405,
		.enhanced_port0 = 1,
		.mcast_fdb_top = 0xc123,
	};
	struct smp_switch_info out;
	uint8_t d[SMP_DATA_SIZE];

	memset(d, 0xee, sizeof(d));
	smp_switch_info_encode(&in, d);
	smp_switch_info_decode(d, &out);
	CU_ASSERT(memcmp(&in, &out, sizeof(in)) == 0);

	/* IBA 14.2.5.4 SwitchInfo */
	CU_ASSERT_EQUAL(test_smp_be16(&d[0]), 0xc000);
	CU_ASSERT_EQUAL(test_smp_be16(&d[2]), 0x0102);
	CU_ASSERT_EQUAL(test_smp_be16(&d[4]), 0x0203);
	CU_ASSERT_EQUAL(test_smp_be16(&d[6]), 0x0a0b); /* LinearFDBTop */
	CU_ASSERT_EQUAL(d[8], 5);
	CU_ASSERT_EQUAL(d[9], 6);
	CU_ASSERT_EQUAL(d[10], 7);
	CU_ASSERT_EQUAL(d[11], 0x13 << 3 | 1 << 2 | 2); /* LifeTime|StateChange|OptSL2VL */
	CU_ASSERT_EQUAL(test_smp_be16(&d[12]), 0x0304);
	CU_ASSERT_EQUAL(test_smp_be16(&d[14]), 0x0405);
	CU_ASSERT_EQUAL(d[16], 0x08); /* EnhancedPort0 is bit 3 */
	CU_ASSERT_EQUAL(test_smp_be16(&d[18]), 0xc123);
}

static void test_smp_lft(void)
{
	struct smp_lft_block in, out;
	uint8_t d[SMP_DATA_SIZE];

	for (int i = 0; i < LFT_BLOCK_SIZE; i++)
		in.port[i] = (uint8_t)(i % 3 ? i : 0xff);
	smp_lft_encode(&in, d);
	smp_lft_decode(d, &out);
	CU_ASSERT(memcmp(&in, &out, sizeof(in)) == 0);
	for (int i = 0; i < LFT_BLOCK_SIZE; i++)
		CU_ASSERT_EQUAL(d[i], in.port[i]); /* IBA 14.2.5.10: byte i = LID base+i */
}

static void test_smp_sm_info(void)
{
	static const struct smp_sm_info in = {
		.guid = 0x0002c90300a1b2c3ULL,
		.sm_key = 0x1122334455667788ULL,
		.act_count = 0xa0b0c0d0,
		.priority = 14,
		.state = SM_STATE_MASTER,
	};
	struct smp_sm_info out;
	uint8_t d[SMP_DATA_SIZE];

	memset(d, 0xee, sizeof(d));
	smp_sm_info_encode(&in, d);
	smp_sm_info_decode(d, &out);
	CU_ASSERT(memcmp(&in, &out, sizeof(in)) == 0);
	/* IBA 14.2.5.13 SMInfo */
	CU_ASSERT_EQUAL(test_smp_be64(&d[0]), 0x0002c90300a1b2c3ULL);
	CU_ASSERT_EQUAL(test_smp_be64(&d[8]), 0x1122334455667788ULL);
	CU_ASSERT_EQUAL(d[16], 0xa0);
	CU_ASSERT_EQUAL(d[19], 0xd0);
	CU_ASSERT_EQUAL(d[20], 0xe3); /* Priority | SMState */
	for (int i = 21; i < SMP_DATA_SIZE; i++)
		CU_ASSERT_EQUAL(d[i], 0);
}

static void test_smp_pkey(void)
{
	struct smp_pkey_block in, out;
	uint8_t d[SMP_DATA_SIZE];

	for (int i = 0; i < PKEY_BLOCK_SIZE; i++)
		in.pkey[i] = (uint16_t)(0x8000 | (i * 0x0101));
	in.pkey[0] = 0xffff;
	smp_pkey_encode(&in, d);
	smp_pkey_decode(d, &out);
	CU_ASSERT(memcmp(&in, &out, sizeof(in)) == 0);
	CU_ASSERT_EQUAL(d[0], 0xff);
	CU_ASSERT_EQUAL(d[1], 0xff);
	CU_ASSERT_EQUAL(d[2 * 5], 0x85); /* entry 5 = 0x8505, big-endian */
	CU_ASSERT_EQUAL(d[2 * 5 + 1], 0x05);
}

/* SLtoVLMappingTable: a round trip, the wire nibbles (SL 0 in the high
 * nibble of byte 0, as smpquery sl2vl reads it) and the VL-count helper. */
static void test_smp_sl2vl(void)
{
	struct smp_sl2vl in, out;
	uint8_t d[SMP_DATA_SIZE];

	memset(d, 0xaa, sizeof(d));
	for (int i = 0; i < SMP_SL2VL_SLS; i++)
		in.vl[i] = (uint8_t)(i == 15 ? 7 : i); /* ibsim's default table */
	smp_sl2vl_encode(&in, d);
	CU_ASSERT_EQUAL(d[0], 0x01);
	CU_ASSERT_EQUAL(d[1], 0x23);
	CU_ASSERT_EQUAL(d[7], 0xe7);
	for (int i = 8; i < SMP_DATA_SIZE; i++)
		CU_ASSERT_EQUAL(d[i], 0);
	smp_sl2vl_decode(d, &out);
	CU_ASSERT(memcmp(&in, &out, sizeof(in)) == 0);
	in.vl[3] = 0x1f; /* only 4 bits travel */
	smp_sl2vl_encode(&in, d);
	smp_sl2vl_decode(d, &out);
	CU_ASSERT_EQUAL(out.vl[3], 0x0f);
	CU_ASSERT_EQUAL(out.vl[2], 2);
	CU_ASSERT_EQUAL(SMP_SL2VL_MOD(3, 5), 0x0305);
	CU_ASSERT_EQUAL(smp_vls_count(0), 0);
	CU_ASSERT_EQUAL(smp_vls_count(1), 1);
	CU_ASSERT_EQUAL(smp_vls_count(2), 2);
	CU_ASSERT_EQUAL(smp_vls_count(4), 8);
	CU_ASSERT_EQUAL(smp_vls_count(5), 15);
	CU_ASSERT_EQUAL(smp_vls_count(6), 0);
	CU_ASSERT_STRING_EQUAL(smp_attr_name(SMP_ATTR_SL2VL), "SLtoVLMappingTable");
}

static void test_smp_names(void)
{
	CU_ASSERT_STRING_EQUAL(smp_attr_name(SMP_ATTR_NODE_INFO), "NodeInfo");
	CU_ASSERT_STRING_EQUAL(smp_attr_name(SMP_ATTR_PORT_INFO), "PortInfo");
	CU_ASSERT_STRING_EQUAL(smp_attr_name(SMP_ATTR_LFT), "LinearForwardingTable");
	CU_ASSERT_STRING_EQUAL(smp_attr_name(SMP_ATTR_SM_INFO), "SMInfo");
	CU_ASSERT_STRING_EQUAL(smp_attr_name(0x7777), "Unknown");
	CU_ASSERT_STRING_EQUAL(smp_port_state_name(PORT_STATE_NOP), "NOP");
	CU_ASSERT_STRING_EQUAL(smp_port_state_name(PORT_STATE_DOWN), "DOWN");
	CU_ASSERT_STRING_EQUAL(smp_port_state_name(PORT_STATE_INIT), "INIT");
	CU_ASSERT_STRING_EQUAL(smp_port_state_name(PORT_STATE_ARMED), "ARMED");
	CU_ASSERT_STRING_EQUAL(smp_port_state_name(PORT_STATE_ACTIVE), "ACTIVE");
	CU_ASSERT_PTR_NOT_NULL(smp_port_state_name(9));
	CU_ASSERT_STRING_EQUAL(smp_sm_state_name(SM_STATE_NOT_ACTIVE), "NOTACTIVE");
	CU_ASSERT_STRING_EQUAL(smp_sm_state_name(SM_STATE_DISCOVERING), "DISCOVERING");
	CU_ASSERT_STRING_EQUAL(smp_sm_state_name(SM_STATE_STANDBY), "STANDBY");
	CU_ASSERT_STRING_EQUAL(smp_sm_state_name(SM_STATE_MASTER), "MASTER");
	CU_ASSERT_PTR_NOT_NULL(smp_sm_state_name(200));
	CU_ASSERT_EQUAL(smp_mtu_bytes(0), 0);
	CU_ASSERT_EQUAL(smp_mtu_bytes(1), 256);
	CU_ASSERT_EQUAL(smp_mtu_bytes(4), 2048);
	CU_ASSERT_EQUAL(smp_mtu_bytes(5), 4096);
	CU_ASSERT_EQUAL(smp_mtu_bytes(6), 0);
}

/* ---- Fake fabric ----------------------------------------------------- */

/*
 *   H1(CA) 1 --- 1 S1 2 --- 3 S2 5 --- 1 H2(CA, 2 ports)
 *   SM on H1 port 1.  S1 port 4 and H2 port 2 are unlinked.
 */
#define G_H1 0x1000ULL
#define G_S1 0x2000ULL
#define G_S2 0x3000ULL
#define G_H2 0x4000ULL

static int test_smp_topo(struct fabric *f)
{
	int h1, s1, s2, h2;

	fabric_init(f);
	h1 = fabric_add_node(f, G_H1, NODE_TYPE_CA, 1);
	s1 = fabric_add_node(f, G_S1, NODE_TYPE_SWITCH, 8);
	s2 = fabric_add_node(f, G_S2, NODE_TYPE_SWITCH, 8);
	h2 = fabric_add_node(f, G_H2, NODE_TYPE_CA, 2);
	if (h1 < 0 || s1 < 0 || s2 < 0 || h2 < 0)
		return -1;
	strcpy(f->nodes[h1].desc, "H1 mlx5_0");
	strcpy(f->nodes[s2].desc, "S2");
	f->nodes[h1].ports[1].guid = G_H1 + 1;
	f->nodes[h2].ports[1].guid = G_H2 + 1;
	f->nodes[h2].ports[2].guid = G_H2 + 2;
	f->nodes[s2].lft_cap = 1024;
	f->sm_node = h1;
	f->sm_port = 1;
	if (fabric_link(f, h1, 1, s1, 1) || fabric_link(f, s1, 2, s2, 3) ||
	    fabric_link(f, s2, 5, h2, 1))
		return -1;
	return 0;
}

static struct fake_fabric *test_smp_fake(void)
{
	struct fabric f;
	struct fake_fabric *ff = NULL;

	if (test_smp_topo(&f) == 0)
		ff = fake_fabric_new(&f);
	fabric_fini(&f); /* the fake keeps its own copy */
	return ff;
}

/* Send one DR SMP along path (index 0 unused) and take the answer: 1 if
 * there was one (decoded into resp), 0 if it vanished. */
static int test_smp_ask(struct fake_fabric *ff, uint8_t method, uint16_t attr, uint32_t mod,
			const uint8_t *path, uint8_t hops, const uint8_t *data, struct smp *resp)
{
	struct mad_xmit x = fake_fabric_xmit(ff);
	struct mad_addr to = { .lid = 0xffff };
	uint8_t buf[SMP_MAD_SIZE];
	struct smp req;

	smp_init_dr(&req, method, attr, mod, path, hops);
	req.tid = 0x5150 + hops;
	if (data)
		memcpy(req.data, data, SMP_DATA_SIZE);
	CU_ASSERT_EQUAL(smp_encode(&req, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(x.send(x.ctx, &to, buf, sizeof(buf)), 0);
	if (!fake_fabric_pop(ff, buf))
		return 0;
	CU_ASSERT_EQUAL(smp_decode(buf, sizeof(buf), resp), 0);
	CU_ASSERT_EQUAL(resp->tid, req.tid);
	CU_ASSERT_EQUAL(resp->method, SMP_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(resp->direction, 1);
	CU_ASSERT_EQUAL(resp->hop_ptr, hops);
	CU_ASSERT_EQUAL(resp->attr_id, attr);
	return 1;
}

static void test_fake_node_info(void)
{
	struct fake_fabric *ff = test_smp_fake();
	const uint8_t to_s2[] = { 0, 1, 2 }, to_h2[] = { 0, 1, 2, 5 };
	struct smp_node_info ni;
	struct smp r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, NULL, 0, NULL, &r));
	smp_node_info_decode(r.data, &ni);
	CU_ASSERT_EQUAL(ni.node_guid, G_H1);
	CU_ASSERT_EQUAL(ni.port_guid, G_H1 + 1);
	CU_ASSERT_EQUAL(ni.local_port, 1);

	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, to_s2, 2, NULL, &r));
	CU_ASSERT_EQUAL(r.status, 0);
	smp_node_info_decode(r.data, &ni);
	CU_ASSERT_EQUAL(ni.node_guid, G_S2);
	CU_ASSERT_EQUAL(ni.port_guid, G_S2);
	CU_ASSERT_EQUAL(ni.node_type, NODE_TYPE_SWITCH);
	CU_ASSERT_EQUAL(ni.num_ports, 8);
	CU_ASSERT_EQUAL(ni.local_port, 3);

	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, to_h2, 3, NULL, &r));
	smp_node_info_decode(r.data, &ni);
	CU_ASSERT_EQUAL(ni.node_guid, G_H2);
	CU_ASSERT_EQUAL(ni.port_guid, G_H2 + 1);
	CU_ASSERT_EQUAL(ni.node_type, NODE_TYPE_CA);
	CU_ASSERT_EQUAL(ni.local_port, 1);

	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_DESC, 0, to_s2, 2, NULL, &r));
	CU_ASSERT_EQUAL(memcmp(r.data, "S2", 3), 0);
	CU_ASSERT_EQUAL(fake_fabric_counters(ff)->gets, 4);
	fake_fabric_free(ff);
}

static void test_fake_bad_paths(void)
{
	struct fake_fabric *ff = test_smp_fake();
	const uint8_t unlinked[] = { 0, 1, 4 };          /* S1 port 4 */
	const uint8_t through_ca[] = { 0, 1, 2, 5, 2 }; /* on past H2 */
	const uint8_t wrong_first[] = { 0, 2 };          /* H1 has no port 2 */
	const uint8_t port0[] = { 0, 1, 0 };
	struct smp r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
	CU_ASSERT_FALSE(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, unlinked, 2, NULL, &r));
	CU_ASSERT_FALSE(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, through_ca, 4, NULL, &r));
	CU_ASSERT_FALSE(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, wrong_first, 1, NULL, &r));
	CU_ASSERT_FALSE(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, port0, 2, NULL, &r));
	CU_ASSERT_EQUAL(fake_fabric_counters(ff)->dropped, 4);
	CU_ASSERT_EQUAL(fake_fabric_counters(ff)->gets, 0);
	CU_ASSERT_EQUAL(fake_fabric_pending(ff), 0);
	fake_fabric_free(ff);
}

static void test_fake_set_port(struct fake_fabric *ff, const uint8_t *path, uint8_t hops,
			       uint8_t port, uint16_t lid, uint8_t state, struct smp *r)
{
	struct smp_port_info pi;
	uint8_t d[SMP_DATA_SIZE];

	memset(&pi, 0, sizeof(pi));
	pi.lid = lid;
	pi.sm_lid = 1;
	pi.state = state;
	smp_port_info_encode(&pi, d);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_SET, SMP_ATTR_PORT_INFO, port, path, hops, d, r));
}

static void test_fake_port_states(void)
{
	struct fake_fabric *ff = test_smp_fake();
	const uint8_t to_s2[] = { 0, 1, 2 };
	int s2 = fabric_find(fake_fabric_state(ff), G_S2);
	struct smp_port_info pi;
	struct smp r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, 3, to_s2, 2, NULL, &r));
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.state, PORT_STATE_INIT);
	CU_ASSERT_EQUAL(pi.phys_state, PORT_PHYS_LINKUP);
	CU_ASSERT_EQUAL(pi.local_port, 3);
	CU_ASSERT_EQUAL(pi.lid, 0);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, 4, to_s2, 2, NULL, &r));
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.state, PORT_STATE_DOWN);
	CU_ASSERT_EQUAL(pi.phys_state, PORT_PHYS_POLLING);

	/* LID on port 0 shows on every switch port; NOP keeps the state */
	test_fake_set_port(ff, to_s2, 2, 0, 7, PORT_STATE_NOP, &r);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, 5, to_s2, 2, NULL, &r));
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.lid, 7);
	CU_ASSERT_EQUAL(pi.sm_lid, 1);
	CU_ASSERT_EQUAL(pi.state, PORT_STATE_INIT);

	/* INIT -> ACTIVE is illegal: 0x1c and nothing changes, LID included */
	test_fake_set_port(ff, to_s2, 2, 0, 9, PORT_STATE_ACTIVE, &r);
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_INVALID_VALUE);
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.lid, 7);
	CU_ASSERT_EQUAL(pi.state, PORT_STATE_INIT);

	/* INIT -> ARMED -> ACTIVE on port 3; then ARMED is illegal */
	test_fake_set_port(ff, to_s2, 2, 3, 0, PORT_STATE_ARMED, &r);
	CU_ASSERT_EQUAL(r.status, 0);
	test_fake_set_port(ff, to_s2, 2, 3, 0, PORT_STATE_ACTIVE, &r);
	CU_ASSERT_EQUAL(r.status, 0);
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.state, PORT_STATE_ACTIVE);
	CU_ASSERT_EQUAL(pi.lid, 7); /* LID of an external port comes from port 0 */
	test_fake_set_port(ff, to_s2, 2, 3, 0, PORT_STATE_ARMED, &r);
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_INVALID_VALUE);

	/* an unlinked port cannot leave DOWN; INIT is never writable */
	test_fake_set_port(ff, to_s2, 2, 4, 0, PORT_STATE_ARMED, &r);
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_INVALID_VALUE);
	test_fake_set_port(ff, to_s2, 2, 5, 0, PORT_STATE_INIT, &r);
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_INVALID_VALUE);
	/* port out of range */
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, 9, to_s2, 2, NULL, &r));
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_INVALID_VALUE);

	CU_ASSERT_FATAL(s2 >= 0);
	CU_ASSERT_EQUAL(fake_fabric_state(ff)->nodes[s2].ports[0].lid, 7);
	CU_ASSERT_EQUAL(fake_fabric_state(ff)->nodes[s2].ports[3].state, PORT_STATE_ACTIVE);
	CU_ASSERT_EQUAL(fake_fabric_state(ff)->nodes[s2].ports[5].state, PORT_STATE_INIT);
	CU_ASSERT_EQUAL(fake_fabric_counters(ff)->port_info_sets, 3);
	fake_fabric_free(ff);
}

static void test_fake_ca_port(void)
{
	struct fake_fabric *ff = test_smp_fake();
	const uint8_t to_h2[] = { 0, 1, 2, 5 };
	int h2 = fabric_find(fake_fabric_state(ff), G_H2);
	struct smp_port_info pi;
	struct smp r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
	/* attr_mod 0 on a CA = the arrival port */
	test_fake_set_port(ff, to_h2, 3, 0, 0x21, PORT_STATE_ARMED, &r);
	CU_ASSERT_EQUAL(r.status, 0);
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.lid, 0x21);
	CU_ASSERT_EQUAL(pi.local_port, 1);
	CU_ASSERT_EQUAL(pi.state, PORT_STATE_ARMED);
	/* the other port reads fine, but is set only through itself */
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, 2, to_h2, 3, NULL, &r));
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.state, PORT_STATE_DOWN);
	CU_ASSERT_EQUAL(pi.lid, 0);
	test_fake_set_port(ff, to_h2, 3, 2, 0x22, PORT_STATE_NOP, &r);
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_INVALID_VALUE);
	CU_ASSERT_FATAL(h2 >= 0);
	CU_ASSERT_EQUAL(fake_fabric_state(ff)->nodes[h2].ports[1].lid, 0x21);
	CU_ASSERT_EQUAL(fake_fabric_state(ff)->nodes[h2].ports[2].lid, 0);

	/* the SM's own port advertises IsSM */
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, 0, NULL, 0, NULL, &r));
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT(pi.cap_mask & PORT_CAP_IS_SM);
	fake_fabric_free(ff);
}

static void test_fake_port_fields(void)
{
	struct fake_fabric *ff = test_smp_fake();
	const uint8_t to_s1[] = { 0, 1 };
	struct smp_port_info pi;
	uint8_t d[SMP_DATA_SIZE];
	struct smp r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, 2, to_s1, 1, NULL, &r));
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.mtu_cap, 4);
	CU_ASSERT_EQUAL(pi.neighbor_mtu, 4);
	CU_ASSERT_EQUAL(pi.vl_cap, 4);
	CU_ASSERT_EQUAL(pi.gid_prefix, FAKE_GID_PREFIX);

	pi.neighbor_mtu = 3;
	pi.oper_vls = 2;
	pi.gid_prefix = 0xfe80000000001234ULL; /* external port: no effect */
	pi.state = PORT_STATE_NOP;
	smp_port_info_encode(&pi, d);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_SET, SMP_ATTR_PORT_INFO, 2, to_s1, 1, d, &r));
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, 2, to_s1, 1, NULL, &r));
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.neighbor_mtu, 3);
	CU_ASSERT_EQUAL(pi.oper_vls, 2);
	CU_ASSERT_EQUAL(pi.gid_prefix, FAKE_GID_PREFIX);

	/* the switch-wide fields live on port 0 */
	pi.gid_prefix = 0xfe80000000001234ULL;
	pi.subnet_timeout = 18;
	pi.state = PORT_STATE_NOP; /* read back as INIT, which is not writable */
	smp_port_info_encode(&pi, d);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_SET, SMP_ATTR_PORT_INFO, 0, to_s1, 1, d, &r));
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, 7, to_s1, 1, NULL, &r));
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.gid_prefix, 0xfe80000000001234ULL);
	CU_ASSERT_EQUAL(pi.subnet_timeout, 18);

	/* above the capability: refused, nothing kept */
	pi.neighbor_mtu = 5;
	pi.state = PORT_STATE_NOP;
	smp_port_info_encode(&pi, d);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_SET, SMP_ATTR_PORT_INFO, 2, to_s1, 1, d, &r));
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_INVALID_VALUE);
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.neighbor_mtu, 3);
	fake_fabric_free(ff);
}

static void test_fake_lft(void)
{
	struct fake_fabric *ff = test_smp_fake();
	const uint8_t to_s1[] = { 0, 1 }, to_s2[] = { 0, 1, 2 };
	struct smp_switch_info si;
	struct smp_lft_block b;
	const uint8_t *lft;
	uint8_t d[SMP_DATA_SIZE];
	uint16_t top = 0xffff;
	struct smp r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
	for (int i = 0; i < LFT_BLOCK_SIZE; i++)
		b.port[i] = (uint8_t)(i % 8 + 1);
	smp_lft_encode(&b, d);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_SET, SMP_ATTR_LFT, 1, to_s2, 2, d, &r));
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_LFT, 1, to_s2, 2, NULL, &r));
	CU_ASSERT_EQUAL(memcmp(r.data, d, SMP_DATA_SIZE), 0);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_LFT, 0, to_s2, 2, NULL, &r));
	CU_ASSERT_EQUAL(r.data[0], LFT_DROP);
	/* S2's cap is 1024 LIDs = 16 blocks */
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_SET, SMP_ATTR_LFT, 16, to_s2, 2, d, &r));
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_INVALID_VALUE);

	lft = fake_fabric_lft(ff, G_S2, &top);
	CU_ASSERT_PTR_NOT_NULL_FATAL(lft);
	CU_ASSERT_EQUAL(top, 0);
	CU_ASSERT_EQUAL(lft[63], LFT_DROP);
	CU_ASSERT_EQUAL(lft[64], 1);
	CU_ASSERT_EQUAL(lft[127], 8);
	CU_ASSERT_EQUAL(lft[128], LFT_DROP);
	CU_ASSERT_PTR_NULL(fake_fabric_lft(ff, G_H1, &top));
	CU_ASSERT_EQUAL(fake_fabric_counters(ff)->lft_block_sets, 1);

	/* SwitchInfo: cap as configured or the default; Set moves the top */
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_SWITCH_INFO, 0, to_s1, 1, NULL, &r));
	smp_switch_info_decode(r.data, &si);
	CU_ASSERT_EQUAL(si.linear_fdb_cap, FAKE_LFT_CAP_DEFAULT);
	memset(&si, 0, sizeof(si));
	si.linear_fdb_top = 100;
	smp_switch_info_encode(&si, d);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_SET, SMP_ATTR_SWITCH_INFO, 0, to_s2, 2, d, &r));
	smp_switch_info_decode(r.data, &si);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_EQUAL(si.linear_fdb_cap, 1024);
	CU_ASSERT_EQUAL(si.linear_fdb_top, 100);
	CU_ASSERT_PTR_NOT_NULL(fake_fabric_lft(ff, G_S2, &top));
	CU_ASSERT_EQUAL(top, 100);
	fake_fabric_free(ff);
}

static void test_fake_other_attrs(void)
{
	struct fake_fabric *ff = test_smp_fake();
	const uint8_t to_s1[] = { 0, 1 };
	struct smp_pkey_block pk;
	struct smp r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_PKEY_TABLE, 0, NULL, 0, NULL, &r));
	smp_pkey_decode(r.data, &pk);
	CU_ASSERT_EQUAL(pk.pkey[0], 0xffff);
	CU_ASSERT_EQUAL(pk.pkey[1], 0);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_SM_INFO, 0, to_s1, 1, NULL, &r));
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_UNSUP_ATTR);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_SET, SMP_ATTR_NODE_INFO, 0, to_s1, 1, NULL, &r));
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_UNSUP_ATTR);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_LFT, 0, NULL, 0, NULL, &r));
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_UNSUP_ATTR); /* H1 is no switch */
	fake_fabric_free(ff);
}

static void test_fake_drop_and_mute(void)
{
	struct fake_fabric *ff = test_smp_fake();
	const uint8_t to_s2[] = { 0, 1, 2 }, to_h2[] = { 0, 1, 2, 5 };
	unsigned answered = 0;
	struct smp r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
	fake_fabric_drop_every(ff, 3);
	for (int i = 0; i < 6; i++)
		answered += test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, to_s2, 2, NULL, &r);
	CU_ASSERT_EQUAL(answered, 4);
	CU_ASSERT_EQUAL(fake_fabric_counters(ff)->dropped, 2);
	fake_fabric_drop_every(ff, 0);

	fake_fabric_mute_node(ff, G_S2, 1);
	CU_ASSERT_FALSE(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, to_s2, 2, NULL, &r));
	CU_ASSERT(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, to_h2, 3, NULL, &r));
	fake_fabric_mute_node(ff, G_S2, 0);
	CU_ASSERT(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, to_s2, 2, NULL, &r));
	CU_ASSERT_EQUAL(fake_fabric_counters(ff)->dropped, 3);
	fake_fabric_free(ff);
}

struct test_smp_done {
	int calls, status;
	uint64_t guid;
};

static void test_smp_on_done(void *arg, int status, const struct smp *resp)
{
	struct test_smp_done *done = arg;
	struct smp_node_info ni;

	done->calls++;
	done->status = status;
	if (resp) {
		smp_node_info_decode(resp->data, &ni);
		done->guid = ni.node_guid;
	}
}

/* End to end through mad_queue: submit, deliver, complete. */
static void test_fake_deliver(void)
{
	struct fake_fabric *ff = test_smp_fake();
	const uint8_t to_h2[] = { 0, 1, 2, 5 };
	const struct mad_addr to = { .lid = 0xffff };
	struct test_smp_done done = { 0, 1, 0 };
	struct mad_queue *q;
	struct mad_xmit x;
	struct smp req;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
	x = fake_fabric_xmit(ff);
	q = mad_queue_new(NULL, &x, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	smp_init_dr(&req, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, to_h2, 3);
	CU_ASSERT_EQUAL(mad_queue_submit(q, &to, &req, test_smp_on_done, &done, 0), 0);
	CU_ASSERT_EQUAL(fake_fabric_deliver(ff, q, 1), 1);
	CU_ASSERT_EQUAL(done.calls, 1);
	CU_ASSERT_EQUAL(done.status, 0);
	CU_ASSERT_EQUAL(done.guid, G_H2);
	CU_ASSERT_EQUAL(fake_fabric_deliver(ff, q, 2), 0);
	mad_queue_free(q);
	fake_fabric_free(ff);
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
	CU_add_test(s, "NodeInfo codec", test_smp_node_info);
	CU_add_test(s, "NodeDescription codec", test_smp_node_desc);
	CU_add_test(s, "PortInfo codec", test_smp_port_info);
	CU_add_test(s, "PortInfo PortState nibble", test_smp_port_state_nibble);
	CU_add_test(s, "SwitchInfo codec", test_smp_switch_info);
	CU_add_test(s, "LinearForwardingTable codec", test_smp_lft);
	CU_add_test(s, "SMInfo codec", test_smp_sm_info);
	CU_add_test(s, "P_KeyTable codec", test_smp_pkey);
	CU_add_test(s, "SLtoVLMappingTable codec", test_smp_sl2vl);
	CU_add_test(s, "names and MTU", test_smp_names);
	CU_add_test(s, "fake: NodeInfo along DR paths", test_fake_node_info);
	CU_add_test(s, "fake: unroutable paths dropped", test_fake_bad_paths);
	CU_add_test(s, "fake: PortInfo state machine", test_fake_port_states);
	CU_add_test(s, "fake: CA PortInfo", test_fake_ca_port);
	CU_add_test(s, "fake: PortInfo keeps writable fields", test_fake_port_fields);
	CU_add_test(s, "fake: LFT and SwitchInfo", test_fake_lft);
	CU_add_test(s, "fake: P_Key, unsupported attrs", test_fake_other_attrs);
	CU_add_test(s, "fake: drop_every and mute", test_fake_drop_and_mute);
	CU_add_test(s, "fake: deliver through mad_queue", test_fake_deliver);
}
