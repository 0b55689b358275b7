/*
 * test_smp_attr.c - unit tests for the SMP attribute codecs (mad/smp.c):
 * NodeInfo, NodeDescription, PortInfo, SwitchInfo, LFT, SMInfo, P_KeyTable,
 * SLtoVLMappingTable, names and MTU; raw byte offsets from the IBA spec.
 * Part of suite smp (test_smp.c).
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <string.h>

#include "mad/smp.h"
#include "tests/unit/smp_test.h"

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

/* The tests of this file, in suite smp (test_smp.c). */
void test_smp_attr_add(CU_pSuite s)
{
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
}
