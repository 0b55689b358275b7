/*
 * test_sa_topo.c - the SA topology records: component tables checked
 * against libibmad's field tables, encoders checked byte by byte against
 * the IBA 15.2.5.x record figures (13.4.8.1 for ClassPortInfo), and
 * sa_topo_handle's Get/GetTable answers on a small fabric.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "config/pkey.h"
#include "config/policy.h"
#include "mad/sa_topo.h"
#include "routing/mft.h"
#include "routing/topo_file.h"
#include "sm/sa/records.h"
#include "sm/sa/server.h"
#include "tests/unit/unit.h"

/* ---- component tables ---------------------------------------------------- */

/* Sizes padded to 8, components in bit order, none past the record. */
static void test_sa_topo_tables_sane(void)
{
	static const uint16_t attrs[] = { 0x11, 0x12, 0x14, 0x15, 0x17, 0x18, 0x20, 0x30, 0x33 };
	static const uint8_t n_comp[] = { 15, 3 + 55, 21, 4, 6, 7, 5, 12, 5 };
	static const uint16_t size[] = { 112, 72, 72, 72, 72, 32, 8, 72, 72 };

	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		const struct sa_rec_desc *d = sa_topo_desc(attrs[i]);

		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		CU_ASSERT_EQUAL(d->n_comp, n_comp[i]);
		CU_ASSERT_EQUAL(d->size, size[i]);
		CU_ASSERT_EQUAL(d->size % 8, 0);
		for (unsigned c = 0; c < d->n_comp; c++) {
			CU_ASSERT(d->comp[c].bit + d->comp[c].bits <= d->size * 8);
			if (c > 0)
				CU_ASSERT(d->comp[c].bit >= d->comp[c - 1].bit + d->comp[c - 1].bits);
			if (d->comp[c].bits > 64)
				CU_ASSERT(d->comp[c].bit % 8 == 0 && d->comp[c].bits % 8 == 0);
		}
	}
	CU_ASSERT_PTR_NULL(sa_topo_desc(SA_ATTR_PATH_RECORD));
}

struct test_sa_topo_pair {
	int comp;
	enum MAD_FIELDS field;
};

/* All-ones in one component must read back all-ones through libibmad's
 * field at base byte `base`, and set no other bit. */
static void test_sa_topo_against(const struct sa_rec_desc *d, int base,
				 const struct test_sa_topo_pair *pairs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct sa_field *f = &d->comp[pairs[i].comp];
		uint64_t ones = f->bits == 64 ? ~0ull : (1ull << f->bits) - 1;
		uint8_t rec[SA_RECORD_MAX] = { 0 };
		unsigned set = 0;
		uint64_t got;

		sa_put(rec, f, ones);
		got = f->bits > 32 ? mad_get_field64(rec, base, pairs[i].field)
				   : mad_get_field(rec, base, pairs[i].field);
		for (size_t b = 0; b < sizeof(rec); b++)
			set += (unsigned)__builtin_popcount(rec[b]);
		CU_ASSERT_EQUAL(got, ones);
		CU_ASSERT_EQUAL(set, f->bits);
		if (got != ones)
			fprintf(stderr, "\n%s component %d differs from libibmad\n", d->name,
				pairs[i].comp);
	}
}

static void test_sa_topo_node_vs_libibmad(void)
{
	static const struct test_sa_topo_pair p[] = {
		{ SA_TOPO_NR_LID, IB_SA_NR_LID_F },
		{ SA_TOPO_NR_BASE_VERSION, IB_SA_NR_BASEVER_F },
		{ SA_TOPO_NR_CLASS_VERSION, IB_SA_NR_CLASSVER_F },
		{ SA_TOPO_NR_NODE_TYPE, IB_SA_NR_TYPE_F },
		{ SA_TOPO_NR_NUM_PORTS, IB_SA_NR_NPORTS_F },
		{ SA_TOPO_NR_SYS_GUID, IB_SA_NR_SYSTEM_GUID_F },
		{ SA_TOPO_NR_NODE_GUID, IB_SA_NR_GUID_F },
		{ SA_TOPO_NR_PORT_GUID, IB_SA_NR_PORT_GUID_F },
		{ SA_TOPO_NR_PARTITION_CAP, IB_SA_NR_PARTITION_CAP_F },
		{ SA_TOPO_NR_DEVICE_ID, IB_SA_NR_DEVID_F },
		{ SA_TOPO_NR_REVISION, IB_SA_NR_REVISION_F },
		{ SA_TOPO_NR_LOCAL_PORT, IB_SA_NR_LOCAL_PORT_F },
		{ SA_TOPO_NR_VENDOR_ID, IB_SA_NR_VENDORID_F },
	};

	test_sa_topo_against(&sa_topo_node_desc, 0, p, sizeof(p) / sizeof(p[0]));
}

/* PortInfo starts at record byte 4. */
static void test_sa_topo_portinfo_vs_libibmad(void)
{
	static const struct test_sa_topo_pair p[] = {
		{ SA_TOPO_PIR_MKEY, IB_PORT_MKEY_F },
		{ SA_TOPO_PIR_GID_PREFIX, IB_PORT_GID_PREFIX_F },
		{ SA_TOPO_PIR_LID, IB_PORT_LID_F },
		{ SA_TOPO_PIR_SM_LID, IB_PORT_SMLID_F },
		{ SA_TOPO_PIR_CAP_MASK, IB_PORT_CAPMASK_F },
		{ SA_TOPO_PIR_DIAG_CODE, IB_PORT_DIAG_F },
		{ SA_TOPO_PIR_MKEY_LEASE, IB_PORT_MKEY_LEASE_F },
		{ SA_TOPO_PIR_LOCAL_PORT, IB_PORT_LOCAL_PORT_F },
		{ SA_TOPO_PIR_WIDTH_ENABLED, IB_PORT_LINK_WIDTH_ENABLED_F },
		{ SA_TOPO_PIR_WIDTH_SUPPORTED, IB_PORT_LINK_WIDTH_SUPPORTED_F },
		{ SA_TOPO_PIR_WIDTH_ACTIVE, IB_PORT_LINK_WIDTH_ACTIVE_F },
		{ SA_TOPO_PIR_SPEED_SUPPORTED, IB_PORT_LINK_SPEED_SUPPORTED_F },
		{ SA_TOPO_PIR_STATE, IB_PORT_STATE_F },
		{ SA_TOPO_PIR_PHYS_STATE, IB_PORT_PHYS_STATE_F },
		{ SA_TOPO_PIR_DOWN_DEFAULT, IB_PORT_LINK_DOWN_DEF_F },
		{ SA_TOPO_PIR_MKEY_PROT, IB_PORT_MKEY_PROT_BITS_F },
		{ SA_TOPO_PIR_LMC, IB_PORT_LMC_F },
		{ SA_TOPO_PIR_SPEED_ACTIVE, IB_PORT_LINK_SPEED_ACTIVE_F },
		{ SA_TOPO_PIR_SPEED_ENABLED, IB_PORT_LINK_SPEED_ENABLED_F },
		{ SA_TOPO_PIR_NEIGHBOR_MTU, IB_PORT_NEIGHBOR_MTU_F },
		{ SA_TOPO_PIR_SM_SL, IB_PORT_SMSL_F },
		{ SA_TOPO_PIR_VL_CAP, IB_PORT_VL_CAP_F },
		{ SA_TOPO_PIR_INIT_TYPE, IB_PORT_INIT_TYPE_F },
		{ SA_TOPO_PIR_VL_HIGH_LIMIT, IB_PORT_VL_HIGH_LIMIT_F },
		{ SA_TOPO_PIR_VL_ARB_HIGH_CAP, IB_PORT_VL_ARBITRATION_HIGH_CAP_F },
		{ SA_TOPO_PIR_VL_ARB_LOW_CAP, IB_PORT_VL_ARBITRATION_LOW_CAP_F },
		{ SA_TOPO_PIR_INIT_TYPE_REPLY, IB_PORT_INIT_TYPE_REPLY_F },
		{ SA_TOPO_PIR_MTU_CAP, IB_PORT_MTU_CAP_F },
		{ SA_TOPO_PIR_VL_STALL_COUNT, IB_PORT_VL_STALL_COUNT_F },
		{ SA_TOPO_PIR_HOQ_LIFE, IB_PORT_HOQ_LIFE_F },
		{ SA_TOPO_PIR_OPER_VLS, IB_PORT_OPER_VLS_F },
		{ SA_TOPO_PIR_PART_ENF_IN, IB_PORT_PART_EN_INB_F },
		{ SA_TOPO_PIR_PART_ENF_OUT, IB_PORT_PART_EN_OUTB_F },
		{ SA_TOPO_PIR_FILTER_RAW_IN, IB_PORT_FILTER_RAW_INB_F },
		{ SA_TOPO_PIR_FILTER_RAW_OUT, IB_PORT_FILTER_RAW_OUTB_F },
		{ SA_TOPO_PIR_MKEY_VIOL, IB_PORT_MKEY_VIOL_F },
		{ SA_TOPO_PIR_PKEY_VIOL, IB_PORT_PKEY_VIOL_F },
		{ SA_TOPO_PIR_QKEY_VIOL, IB_PORT_QKEY_VIOL_F },
		{ SA_TOPO_PIR_GUID_CAP, IB_PORT_GUID_CAP_F },
		{ SA_TOPO_PIR_CLIENT_REREG, IB_PORT_CLIENT_REREG_F },
		{ SA_TOPO_PIR_MCAST_PKEY_SUPPR, IB_PORT_MCAST_PKEY_SUPR_ENAB_F },
		{ SA_TOPO_PIR_SUBNET_TIMEOUT, IB_PORT_SUBN_TIMEOUT_F },
		{ SA_TOPO_PIR_RESP_TIME, IB_PORT_RESP_TIME_VAL_F },
		{ SA_TOPO_PIR_LOCAL_PHYS_ERR, IB_PORT_LOCAL_PHYS_ERR_F },
		{ SA_TOPO_PIR_OVERRUN_ERR, IB_PORT_OVERRUN_ERR_F },
		{ SA_TOPO_PIR_MAX_CREDIT_HINT, IB_PORT_MAX_CREDIT_HINT_F },
		{ SA_TOPO_PIR_LINK_RTT, IB_PORT_LINK_ROUND_TRIP_F },
		{ SA_TOPO_PIR_CAP_MASK2, IB_PORT_CAPMASK2_F },
		{ SA_TOPO_PIR_SPEED_EXT_ACTIVE, IB_PORT_LINK_SPEED_EXT_ACTIVE_F },
		{ SA_TOPO_PIR_SPEED_EXT_SUPPORTED, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F },
		{ SA_TOPO_PIR_SPEED_EXT_ENABLED, IB_PORT_LINK_SPEED_EXT_ENABLED_F },
	};

	test_sa_topo_against(&sa_topo_portinfo_desc, 4, p, sizeof(p) / sizeof(p[0]));
}

static void test_sa_topo_others_vs_libibmad(void)
{
	static const struct test_sa_topo_pair sw[] = {
		{ SA_TOPO_SWR_LFT_CAP, IB_SW_LINEAR_FDB_CAP_F },
		{ SA_TOPO_SWR_RFT_CAP, IB_SW_RANDOM_FDB_CAP_F },
		{ SA_TOPO_SWR_MFT_CAP, IB_SW_MCAST_FDB_CAP_F },
		{ SA_TOPO_SWR_LFT_TOP, IB_SW_LINEAR_FDB_TOP_F },
		{ SA_TOPO_SWR_DEFAULT_PORT, IB_SW_DEF_PORT_F },
		{ SA_TOPO_SWR_DEF_MCAST_PRIMARY, IB_SW_DEF_MCAST_PRIM_F },
		{ SA_TOPO_SWR_DEF_MCAST_NOT_PRIMARY, IB_SW_DEF_MCAST_NOT_PRIM_F },
		{ SA_TOPO_SWR_LIFE_TIME, IB_SW_LIFE_TIME_F },
		{ SA_TOPO_SWR_PORT_STATE_CHANGE, IB_SW_STATE_CHANGE_F },
		{ SA_TOPO_SWR_OPT_SL2VL, IB_SW_OPT_SLTOVL_MAPPING_F },
		{ SA_TOPO_SWR_LIDS_PER_PORT, IB_SW_LIDS_PER_PORT_F },
		{ SA_TOPO_SWR_PART_ENF_CAP, IB_SW_PARTITION_ENFORCE_CAP_F },
		{ SA_TOPO_SWR_IN_ENF_CAP, IB_SW_PARTITION_ENF_INB_F },
		{ SA_TOPO_SWR_OUT_ENF_CAP, IB_SW_PARTITION_ENF_OUTB_F },
		{ SA_TOPO_SWR_FILTER_RAW_IN_CAP, IB_SW_FILTER_RAW_INB_F },
		{ SA_TOPO_SWR_FILTER_RAW_OUT_CAP, IB_SW_FILTER_RAW_OUTB_F },
		{ SA_TOPO_SWR_ENHANCED_PORT0, IB_SW_ENHANCED_PORT0_F },
		{ SA_TOPO_SWR_MFT_TOP, IB_SW_MCAST_FDB_TOP_F },
	};
	static const struct test_sa_topo_pair sm[] = {
		{ SA_TOPO_SMR_GUID, IB_SMINFO_GUID_F },
		{ SA_TOPO_SMR_SM_KEY, IB_SMINFO_KEY_F },
		{ SA_TOPO_SMR_ACT_COUNT, IB_SMINFO_ACT_F },
		{ SA_TOPO_SMR_PRIORITY, IB_SMINFO_PRIO_F },
		{ SA_TOPO_SMR_STATE, IB_SMINFO_STATE_F },
	};
	static const struct test_sa_topo_pair gi[] = {
		{ SA_TOPO_GIR_LID, IB_SA_GIR_LID_F },
		{ SA_TOPO_GIR_BLOCK, IB_SA_GIR_BLOCKNUM_F },
		{ SA_TOPO_GIR_GUID0, IB_SA_GIR_GUID0_F },
		{ SA_TOPO_GIR_GUID0 + 7, IB_SA_GIR_GUID7_F },
	};

	test_sa_topo_against(&sa_topo_swinfo_desc, 4, sw, sizeof(sw) / sizeof(sw[0]));
	test_sa_topo_against(&sa_topo_sminfo_desc, 4, sm, sizeof(sm) / sizeof(sm[0]));
	test_sa_topo_against(&sa_topo_guidinfo_desc, 0, gi, sizeof(gi) / sizeof(gi[0]));
}

/* ---- encoders, byte by byte ------------------------------------------------- */

static void test_sa_topo_node_bytes(void)
{
	struct smp_node_info ni = { .base_version = 1, .class_version = 1, .node_type = 1,
				    .num_ports = 2, .system_guid = 0x1111222233334444ull,
				    .node_guid = 0x0002c90300000010ull,
				    .port_guid = 0x0002c90300000011ull, .partition_cap = 0x80,
				    .device_id = 0x1003, .revision = 0xa0, .local_port = 1,
				    .vendor_id = 0x0002c9 };
	uint8_t rec[SA_TOPO_NODE_SIZE + 8];
	char desc[65];

	memset(rec, 0xee, sizeof(rec));
	sa_topo_node_encode(rec, 0x1234, &ni, "h1 HCA-1");
	CU_ASSERT_EQUAL(rec[0], 0x12); /* LID */
	CU_ASSERT_EQUAL(rec[1], 0x34);
	CU_ASSERT_EQUAL(rec[2], 0);    /* reserved */
	CU_ASSERT_EQUAL(rec[4], 1);    /* BaseVersion */
	CU_ASSERT_EQUAL(rec[6], 1);    /* NodeType */
	CU_ASSERT_EQUAL(rec[7], 2);    /* NumPorts */
	CU_ASSERT_EQUAL(rec[8], 0x11); /* SystemImageGUID */
	CU_ASSERT_EQUAL(rec[23], 0x10); /* NodeGUID low byte */
	CU_ASSERT_EQUAL(rec[31], 0x11); /* PortGUID low byte */
	CU_ASSERT_EQUAL(rec[33], 0x80); /* PartitionCap */
	CU_ASSERT_EQUAL(rec[34], 0x10); /* DeviceID */
	CU_ASSERT_EQUAL(rec[39], 0xa0); /* Revision */
	CU_ASSERT_EQUAL(rec[40], 1);    /* LocalPortNum */
	CU_ASSERT_EQUAL(rec[41], 0x00); /* VendorID */
	CU_ASSERT_EQUAL(rec[42], 0x02);
	CU_ASSERT_EQUAL(rec[43], 0xc9);
	CU_ASSERT_NSTRING_EQUAL(rec + 44, "h1 HCA-1", 9); /* NodeDescription */
	CU_ASSERT_EQUAL(rec[107], 0);
	CU_ASSERT_EQUAL(rec[111], 0);   /* padding */
	CU_ASSERT_EQUAL(rec[112], 0xee); /* nothing written past the record */
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_SA_NR_LID_F), 0x1234);
	CU_ASSERT_EQUAL(mad_get_field64(rec, 0, IB_SA_NR_GUID_F), ni.node_guid);
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_SA_NR_VENDORID_F), 0x0002c9);
	mad_get_array(rec, 0, IB_SA_NR_NODEDESC_F, desc);
	desc[64] = 0;
	CU_ASSERT_STRING_EQUAL(desc, "h1 HCA-1");
}

static void test_sa_topo_record_bytes(void)
{
	uint8_t pi[SMP_DATA_SIZE], port[64], rec[SA_TOPO_LFT_SIZE];
	struct smp_sm_info si = { 0x0102030405060708ull, 0x1112131415161718ull, 0x21222324, 5, 3 };
	uint64_t guid[8] = { 0xa1a2a3a4a5a6a7a8ull, 0, 0, 0, 0, 0, 0, 0xb8 };
	uint16_t pkey[32] = { 0xffff, 0x8001 };
	struct sa_topo_link l = { 0x0102, 3, 7, 0x0405 };

	for (unsigned i = 0; i < 64; i++)
		pi[i] = (uint8_t)(i + 1), port[i] = (uint8_t)(64 - i);
	sa_topo_portinfo_encode(rec, 0xc001, 9, pi);
	CU_ASSERT(rec[0] == 0xc0 && rec[1] == 0x01 && rec[2] == 9 && rec[3] == 0);
	CU_ASSERT(rec[4] == 1 && rec[67] == 64 && rec[68] == 0 && rec[71] == 0);
	CU_ASSERT_EQUAL(mad_get_field(rec, 4, IB_PORT_LID_F), (17u << 8) | 18u);

	sa_topo_swinfo_encode(rec, 0x0042, pi);
	CU_ASSERT(rec[1] == 0x42 && rec[2] == 0 && rec[4] == 1 && rec[67] == 64);

	sa_topo_lft_encode(rec, 0x0042, 0x0203, port);
	CU_ASSERT(rec[1] == 0x42 && rec[2] == 0x02 && rec[3] == 0x03 && rec[4] == 0);
	CU_ASSERT(rec[7] == 0 && rec[8] == 64 && rec[71] == 1);

	sa_topo_sminfo_encode(rec, 0x0007, &si);
	CU_ASSERT(rec[1] == 7 && rec[4] == 0x01 && rec[11] == 0x08 && rec[12] == 0x11);
	CU_ASSERT(rec[19] == 0x18 && rec[20] == 0x21 && rec[23] == 0x24);
	CU_ASSERT(rec[24] == 0x53 && rec[25] == 0 && rec[31] == 0);

	sa_topo_link_encode(rec, &l);
	CU_ASSERT(rec[0] == 1 && rec[1] == 2 && rec[2] == 3 && rec[3] == 7);
	CU_ASSERT(rec[4] == 4 && rec[5] == 5 && rec[6] == 0 && rec[7] == 0);

	sa_topo_guidinfo_encode(rec, 0x0042, 2, guid);
	CU_ASSERT(rec[1] == 0x42 && rec[2] == 2 && rec[3] == 0 && rec[7] == 0);
	CU_ASSERT(rec[8] == 0xa1 && rec[15] == 0xa8 && rec[71] == 0xb8);

	sa_topo_pkey_encode(rec, 0x0042, 1, 5, pkey);
	CU_ASSERT(rec[1] == 0x42 && rec[2] == 0 && rec[3] == 1 && rec[4] == 5);
	CU_ASSERT(rec[8] == 0xff && rec[9] == 0xff && rec[10] == 0x80 && rec[11] == 0x01);
	CU_ASSERT(rec[12] == 0 && rec[71] == 0);
}

/* MFTRecord: LID 0-15, Position 16-19, reserved 20-22, BlockNum 23-31,
 * 32 reserved bits, then 32 big-endian masks from byte 8. */
static void test_sa_topo_mft_bytes(void)
{
	uint16_t masks[SA_TOPO_MLIDS_PER_BLOCK] = { 0x8001 };
	uint8_t rec[SA_TOPO_MFT_SIZE + 8];
	const struct sa_field *c = sa_topo_mft_desc.comp;

	masks[31] = 0x0203;
	memset(rec, 0xee, sizeof(rec));
	sa_topo_mft_encode(rec, 0x0042, 0xa, 0x1f3, masks);
	CU_ASSERT(rec[0] == 0x00 && rec[1] == 0x42);
	CU_ASSERT(rec[2] == 0xa1 && rec[3] == 0xf3); /* 1010 000 1 1111 0011 */
	CU_ASSERT(rec[4] == 0 && rec[5] == 0 && rec[6] == 0 && rec[7] == 0);
	CU_ASSERT(rec[8] == 0x80 && rec[9] == 0x01 && rec[10] == 0 && rec[69] == 0);
	CU_ASSERT(rec[70] == 0x02 && rec[71] == 0x03);
	CU_ASSERT(rec[72] == 0xee); /* nothing past the 72 bytes */
	CU_ASSERT_EQUAL(sa_get(rec, &c[SA_TOPO_MFTR_POSITION]), 0xa);
	CU_ASSERT_EQUAL(sa_get(rec, &c[SA_TOPO_MFTR_BLOCK]), 0x1f3);
	CU_ASSERT_EQUAL(c[SA_TOPO_MFTR_RESV1].bits, 0);
	CU_ASSERT_EQUAL(c[SA_TOPO_MFTR_RESV2].bits, 0);
}

static void test_sa_topo_cpi_bytes(void)
{
	struct sa_topo_cpi c = { SA_CAP_UD_MCAST, 0, 16 };
	uint8_t rec[SA_TOPO_CPI_SIZE];

	sa_topo_cpi_encode(rec, &c);
	CU_ASSERT_EQUAL(rec[0], 1);    /* BaseVersion */
	CU_ASSERT_EQUAL(rec[1], 2);    /* ClassVersion */
	CU_ASSERT_EQUAL(rec[2], 0x02); /* CapabilityMask: bit 9 */
	CU_ASSERT_EQUAL(rec[3], 0x00);
	CU_ASSERT_EQUAL(rec[7], 16);   /* CapabilityMask2 (27) | RespTimeValue (5) */
	CU_ASSERT_EQUAL(rec[30], 0);   /* RedirectLID */
	CU_ASSERT(rec[33] == 0 && rec[34] == 0 && rec[35] == 1); /* RedirectQP */
	CU_ASSERT(rec[36] == 0x80 && rec[37] == 0x01 && rec[38] == 0 && rec[39] == 0);
	CU_ASSERT(rec[68] == 0x80 && rec[69] == 0x01 && rec[71] == 0); /* TrapQ_Key */
	CU_ASSERT(rec[65] == 0 && rec[67] == 0); /* TrapQP */
}

/* ---- the handler on a small fabric --------------------------------------------- */

/* sw (LID 1) ports 1, 2 to h1 port 1 (LID 2) and h2 port 1 (LIDs 4-5, LMC
 * 1); h1 port 2 is not cabled; sw port 3 not cabled (present). */
static const char test_sa_topo_net[] = "Switch 4 \"sw\"\n"
				       "[1] \"h1\"[1]\n"
				       "[2] \"h2\"[1]\n"
				       "\n"
				       "Hca 2 \"h1\"\n"
				       "[1] \"sw\"[1]\n"
				       "\n"
				       "Hca 1 \"h2\"\n"
				       "[1] \"sw\"[2]\n";

struct test_sa_topo_env {
	struct fabric f;
	struct lft_set lfts;
	struct mft_set mfts; /* in the view from setup on; empty until filled */
	struct sa *sa;
	int sw, h1, h2;
	struct sa_out out;
};

static int test_sa_topo_node(const struct fabric *f, const char *desc)
{
	for (size_t n = 0; n < f->n_nodes; n++)
		if (!strcmp(f->nodes[n].desc, desc))
			return (int)n;
	return FABRIC_NONE;
}

static int test_sa_topo_nosend(void *ctx, const struct mad_addr *to, const uint8_t *m, size_t len)
{
	(void)ctx, (void)to, (void)m, (void)len;
	return 0;
}

static void test_sa_topo_setup(struct test_sa_topo_env *e, int with_lfts)
{
	struct mad_xmit x = { test_sa_topo_nosend, NULL };
	struct sa_view v = { 0 };
	char err[128];

	memset(e, 0, sizeof(*e));
	fabric_init(&e->f);
	lft_set_init(&e->lfts);
	mft_set_init(&e->mfts);
	CU_ASSERT_EQUAL_FATAL(topo_parse(test_sa_topo_net, strlen(test_sa_topo_net), "t", &e->f, err,
					 sizeof(err)), 0);
	e->sw = test_sa_topo_node(&e->f, "sw");
	e->h1 = test_sa_topo_node(&e->f, "h1");
	e->h2 = test_sa_topo_node(&e->f, "h2");
	CU_ASSERT_FATAL(e->sw >= 0 && e->h1 >= 0 && e->h2 >= 0);
	e->f.nodes[e->sw].ports[0].lid = 1;
	e->f.nodes[e->h1].ports[1].lid = 2;
	e->f.nodes[e->h2].ports[1].lid = 4;
	e->f.nodes[e->h2].ports[1].lmc = 1;
	v.f = &e->f;
	if (with_lfts) {
		CU_ASSERT_EQUAL_FATAL(lft_set_alloc(&e->lfts, &e->f, 5), 0);
		e->lfts.tables[0].port[2] = 1;
		e->lfts.tables[0].port[4] = 2;
		v.lfts = &e->lfts;
	}
	v.mfts = &e->mfts;
	v.subnet_prefix = 0xfe80000000000000ull;
	v.sm_lid = 2;
	v.sm_guid = e->f.nodes[e->h1].ports[1].guid;
	v.sm_key = 0x5eced;
	v.sm_priority = 5;
	v.sm_state = SM_STATE_MASTER;
	e->sa = sa_new(&x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->sa);
	CU_ASSERT_EQUAL_FATAL(sa_update(e->sa, &v), 0);
}

static void test_sa_topo_teardown(struct test_sa_topo_env *e)
{
	free(e->out.recs);
	sa_free(e->sa);
	lft_set_fini(&e->lfts);
	mft_set_fini(&e->mfts);
	fabric_fini(&e->f);
}

/* Ask: fresh output, template tmpl (may be NULL) under mask. */
static uint16_t test_sa_topo_ask(struct test_sa_topo_env *e, uint8_t method, uint16_t attr,
				 uint64_t mask, const uint8_t *tmpl, size_t tlen, uint64_t sm_key)
{
	struct sa_mad m = { .base_version = 1, .mgmt_class = SA_CLASS, .class_version = 2 };
	struct sa_req req = { &m, { 0 }, { FABRIC_NONE, 0 }, 0 };

	m.method = method;
	m.attr_id = attr;
	m.comp_mask = mask;
	m.sm_key = sm_key;
	if (tmpl)
		memcpy(m.data, tmpl, tlen);
	free(e->out.recs);
	memset(&e->out, 0, sizeof(e->out));
	return sa_topo_handle(e->sa, &req, &e->out);
}

static const uint8_t *test_sa_topo_rec(const struct test_sa_topo_env *e, size_t i)
{
	return e->out.recs + i * e->out.rec_size;
}

static uint64_t test_sa_topo_get(const struct test_sa_topo_env *e, size_t i,
				 const struct sa_rec_desc *d, int comp)
{
	return sa_get(test_sa_topo_rec(e, i), &d->comp[comp]);
}

#define TEST_BIT(c) (1ull << (c))

static void test_sa_topo_node_records(void)
{
	const struct sa_rec_desc *d = &sa_topo_node_desc;
	struct test_sa_topo_env e;
	uint8_t t[SA_TOPO_NODE_SIZE] = { 0 };

	test_sa_topo_setup(&e, 0);
	CU_ASSERT_EQUAL(test_sa_topo_ask(&e, SA_METHOD_GET_TABLE, 0x11, 0, NULL, 0, 0), 0);
	CU_ASSERT_EQUAL(e.out.rec_size, 112);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 3); /* sw, h1 port 1, h2 port 1 (h1 port 2 is down) */
	CU_ASSERT_EQUAL(test_sa_topo_get(&e, 0, d, SA_TOPO_NR_LID), 1);
	CU_ASSERT_EQUAL(test_sa_topo_get(&e, 0, d, SA_TOPO_NR_NODE_TYPE), 2);
	CU_ASSERT_EQUAL(test_sa_topo_get(&e, 1, d, SA_TOPO_NR_LID), 2);
	CU_ASSERT_EQUAL(test_sa_topo_get(&e, 2, d, SA_TOPO_NR_LID), 4);
	CU_ASSERT_EQUAL(test_sa_topo_get(&e, 1, d, SA_TOPO_NR_PORT_GUID),
			e.f.nodes[e.h1].ports[1].guid);
	CU_ASSERT_STRING_EQUAL((const char *)test_sa_topo_rec(&e, 2) + 44, "h2");

	/* by NodeGUID */
	sa_put(t, &d->comp[SA_TOPO_NR_NODE_GUID], e.f.nodes[e.h2].guid);
	CU_ASSERT_EQUAL(test_sa_topo_ask(&e, SA_METHOD_GET, 0x11, TEST_BIT(SA_TOPO_NR_NODE_GUID), t,
					 sizeof(t), 0), 0);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 1);
	CU_ASSERT_EQUAL(test_sa_topo_get(&e, 0, d, SA_TOPO_NR_LID), 4);
	CU_ASSERT_EQUAL(mad_get_field64((void *)test_sa_topo_rec(&e, 0), 0, IB_SA_NR_GUID_F),
			e.f.nodes[e.h2].guid);

	/* by LID: the second LID of h2's LMC range finds it */
	memset(t, 0, sizeof(t));
	sa_put(t, &d->comp[SA_TOPO_NR_LID], 5);
	test_sa_topo_ask(&e, SA_METHOD_GET, 0x11, TEST_BIT(SA_TOPO_NR_LID), t, sizeof(t), 0);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 1);
	CU_ASSERT_EQUAL(test_sa_topo_get(&e, 0, d, SA_TOPO_NR_NODE_GUID), e.f.nodes[e.h2].guid);
	sa_put(t, &d->comp[SA_TOPO_NR_LID], 3); /* nobody */
	test_sa_topo_ask(&e, SA_METHOD_GET, 0x11, TEST_BIT(SA_TOPO_NR_LID), t, sizeof(t), 0);
	CU_ASSERT_EQUAL(e.out.n, 0);
	/* LID and a NodeType that does not agree */
	sa_put(t, &d->comp[SA_TOPO_NR_LID], 1);
	sa_put(t, &d->comp[SA_TOPO_NR_NODE_TYPE], 1);
	test_sa_topo_ask(&e, SA_METHOD_GET, 0x11,
			 TEST_BIT(SA_TOPO_NR_LID) | TEST_BIT(SA_TOPO_NR_NODE_TYPE), t, sizeof(t), 0);
	CU_ASSERT_EQUAL(e.out.n, 0);
	test_sa_topo_teardown(&e);
}

static void test_sa_topo_portinfo_records(void)
{
	const struct sa_rec_desc *d = &sa_topo_portinfo_desc;
	struct test_sa_topo_env e;
	uint8_t t[SA_TOPO_PORTINFO_SIZE] = { 0 };

	test_sa_topo_setup(&e, 0);
	/* an M_Key the sweep read stays hidden from untrusted requesters */
	e.f.nodes[e.h1].ports[1].pi_raw[7] = 0x77;
	test_sa_topo_ask(&e, SA_METHOD_GET_TABLE, 0x12, 0, NULL, 0, 0);
	CU_ASSERT_EQUAL(e.out.n, 5 + 1 + 1); /* switch ports 0-4, h1/1, h2/1 */
	sa_put(t, &d->comp[SA_TOPO_PIR_ENDPORT_LID], 1);
	sa_put(t, &d->comp[SA_TOPO_PIR_PORT_NUM], 2);
	test_sa_topo_ask(&e, SA_METHOD_GET, 0x12,
			 TEST_BIT(SA_TOPO_PIR_ENDPORT_LID) | TEST_BIT(SA_TOPO_PIR_PORT_NUM), t,
			 sizeof(t), 0);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 1);
	CU_ASSERT_EQUAL(test_sa_topo_get(&e, 0, d, SA_TOPO_PIR_ENDPORT_LID), 1);
	CU_ASSERT_EQUAL(test_sa_topo_get(&e, 0, d, SA_TOPO_PIR_PORT_NUM), 2);
	CU_ASSERT_EQUAL(test_sa_topo_get(&e, 0, d, SA_TOPO_PIR_STATE), PORT_STATE_INIT);
	/* h1 by LID: synthesized fields and the hidden M_Key */
	sa_put(t, &d->comp[SA_TOPO_PIR_ENDPORT_LID], 2);
	test_sa_topo_ask(&e, SA_METHOD_GET, 0x12, TEST_BIT(SA_TOPO_PIR_ENDPORT_LID), t, sizeof(t),
			 0);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 1);
	CU_ASSERT_EQUAL(test_sa_topo_get(&e, 0, d, SA_TOPO_PIR_LID), 2);
	CU_ASSERT_EQUAL(mad_get_field((void *)test_sa_topo_rec(&e, 0), 4, IB_PORT_LID_F), 2);
	CU_ASSERT_EQUAL(test_sa_topo_get(&e, 0, d, SA_TOPO_PIR_MKEY), 0);
	test_sa_topo_ask(&e, SA_METHOD_GET, 0x12, TEST_BIT(SA_TOPO_PIR_ENDPORT_LID), t, sizeof(t),
			 0x5eced);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 1);
	CU_ASSERT_EQUAL(test_sa_topo_get(&e, 0, d, SA_TOPO_PIR_MKEY), 0x77);
	test_sa_topo_teardown(&e);
}

static void test_sa_topo_link_records(void)
{
	const struct sa_rec_desc *d = &sa_topo_link_desc;
	struct test_sa_topo_env e;
	uint8_t t[SA_TOPO_LINK_SIZE] = { 0 };

	test_sa_topo_setup(&e, 0);
	test_sa_topo_ask(&e, SA_METHOD_GET_TABLE, 0x20, 0, NULL, 0, 0);
	CU_ASSERT_EQUAL(e.out.n, 4);
	CU_ASSERT_EQUAL(e.out.rec_size, 8);
	sa_put(t, &d->comp[SA_TOPO_LR_FROM_LID], 1);
	test_sa_topo_ask(&e, SA_METHOD_GET_TABLE, 0x20, TEST_BIT(SA_TOPO_LR_FROM_LID), t, sizeof(t),
			 0);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 2);
	CU_ASSERT_EQUAL(memcmp(test_sa_topo_rec(&e, 0), "\x00\x01\x01\x01\x00\x02\x00\x00", 8), 0);
	CU_ASSERT_EQUAL(memcmp(test_sa_topo_rec(&e, 1), "\x00\x01\x02\x01\x00\x04\x00\x00", 8), 0);
	/* arriving at the switch; then one link named by both ends, FromLID being
	 * the second LID of h2's LMC range */
	memset(t, 0, sizeof(t));
	sa_put(t, &d->comp[SA_TOPO_LR_TO_LID], 1);
	test_sa_topo_ask(&e, SA_METHOD_GET_TABLE, 0x20, TEST_BIT(SA_TOPO_LR_TO_LID), t, sizeof(t), 0);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 2);
	CU_ASSERT_EQUAL(test_sa_topo_get(&e, 1, d, SA_TOPO_LR_FROM_LID), 4);
	CU_ASSERT_EQUAL(test_sa_topo_get(&e, 1, d, SA_TOPO_LR_TO_PORT), 2);
	sa_put(t, &d->comp[SA_TOPO_LR_FROM_LID], 5);
	test_sa_topo_ask(&e, SA_METHOD_GET, 0x20,
			 TEST_BIT(SA_TOPO_LR_FROM_LID) | TEST_BIT(SA_TOPO_LR_TO_LID), t, sizeof(t), 0);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 1);
	CU_ASSERT_EQUAL(memcmp(test_sa_topo_rec(&e, 0), "\x00\x04\x01\x02\x00\x01\x00\x00", 8), 0);
	test_sa_topo_teardown(&e);
}

static void test_sa_topo_switch_records(void)
{
	struct test_sa_topo_env e;
	uint8_t t[SA_TOPO_LFT_SIZE] = { 0 };

	test_sa_topo_setup(&e, 0);
	test_sa_topo_ask(&e, SA_METHOD_GET_TABLE, 0x15, 0, NULL, 0, 0);
	CU_ASSERT_EQUAL(e.out.n, 0); /* no LFTs in the view */
	test_sa_topo_teardown(&e);

	test_sa_topo_setup(&e, 1);
	e.f.nodes[e.sw].lft_cap = 0xc000;
	test_sa_topo_ask(&e, SA_METHOD_GET_TABLE, 0x14, 0, NULL, 0, 0);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 1);
	CU_ASSERT(test_sa_topo_rec(&e, 0)[1] == 1 && test_sa_topo_rec(&e, 0)[4] == 0xc0);
	CU_ASSERT_EQUAL(mad_get_field((void *)test_sa_topo_rec(&e, 0), 4, IB_SW_LINEAR_FDB_TOP_F), 5);
	test_sa_topo_ask(&e, SA_METHOD_GET_TABLE, 0x15, 0, NULL, 0, 0);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 1);
	CU_ASSERT(test_sa_topo_rec(&e, 0)[1] == 1 && test_sa_topo_rec(&e, 0)[3] == 0);
	CU_ASSERT(test_sa_topo_rec(&e, 0)[8 + 2] == 1 && test_sa_topo_rec(&e, 0)[8 + 4] == 2);
	CU_ASSERT(test_sa_topo_rec(&e, 0)[8 + 3] == LFT_DROP && test_sa_topo_rec(&e, 0)[8 + 63] == LFT_DROP);
	sa_put(t, &sa_topo_lft_desc.comp[SA_TOPO_LFTR_BLOCK], 700); /* past the top */
	test_sa_topo_ask(&e, SA_METHOD_GET_TABLE, 0x15, TEST_BIT(SA_TOPO_LFTR_BLOCK), t, sizeof(t), 0);
	CU_ASSERT_EQUAL(e.out.n, 0);
	test_sa_topo_teardown(&e);
}

/* Groups as the multicast module hands them to mft_compute: MLID 0xC001
 * with h1 and h2 (block 0), unless with_c001 is 0, and MLID 0xC045
 * (block 2) with h1 only. */
static void test_sa_topo_mft_groups(struct test_sa_topo_env *e, int with_c001)
{
	const struct mft_member both[] = { { e->h1, 1, 0 }, { e->h2, 1, 0 } };
	const struct mft_member one[] = { { e->h1, 1, 0 } };
	const struct mft_group g[] = { { 0xc001, both, 2 }, { 0xc045, one, 1 } };

	CU_ASSERT_EQUAL_FATAL(mft_compute(&e->f, with_c001 ? g : g + 1, with_c001 ? 2 : 1,
					  &e->mfts, NULL),
			      0);
}

static uint16_t test_sa_topo_mft_ask(struct test_sa_topo_env *e, uint64_t mask, uint16_t lid,
				     unsigned pos, unsigned block)
{
	const struct sa_field *c = sa_topo_mft_desc.comp;
	uint8_t t[SA_TOPO_MFT_SIZE] = { 0 };

	sa_put(t, &c[SA_TOPO_MFTR_LID], lid);
	sa_put(t, &c[SA_TOPO_MFTR_POSITION], pos);
	sa_put(t, &c[SA_TOPO_MFTR_BLOCK], block);
	return test_sa_topo_ask(e, SA_METHOD_GET_TABLE, 0x17, mask, t, sizeof(t), 0);
}

static void test_sa_topo_mft_records(void)
{
	const struct sa_rec_desc *d = &sa_topo_mft_desc;
	struct test_sa_topo_env e;
	const uint8_t *r;

	test_sa_topo_setup(&e, 1);
	CU_ASSERT_EQUAL(test_sa_topo_mft_ask(&e, 0, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(e.out.n, 0); /* no group: no table */
	CU_ASSERT_EQUAL(e.out.rec_size, 72);

	test_sa_topo_mft_groups(&e, 1);
	CU_ASSERT_EQUAL(test_sa_topo_mft_ask(&e, 0, 0, 0, 0), 0);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 2); /* blocks 0 and 2; block 1 is empty */
	r = test_sa_topo_rec(&e, 0);
	CU_ASSERT(r[0] == 0 && r[1] == 1 && r[2] == 0 && r[3] == 0);
	CU_ASSERT(r[8 + 2] == 0x00 && r[8 + 3] == 0x06); /* 0xC001: sw ports 1, 2 */
	CU_ASSERT(r[8 + 0] == 0 && r[8 + 1] == 0 && r[8 + 5] == 0);
	r = test_sa_topo_rec(&e, 1);
	CU_ASSERT(r[1] == 1 && r[3] == 2);
	CU_ASSERT(r[8 + 2 * 5 + 1] == 0x02); /* 0xC045 = block 2 entry 5: port 1 */

	/* by LID: the switch's, not a CA's or an unknown one */
	test_sa_topo_mft_ask(&e, TEST_BIT(SA_TOPO_MFTR_LID), 1, 0, 0);
	CU_ASSERT_EQUAL(e.out.n, 2);
	test_sa_topo_mft_ask(&e, TEST_BIT(SA_TOPO_MFTR_LID), 2, 0, 0);
	CU_ASSERT_EQUAL(e.out.n, 0);
	test_sa_topo_mft_ask(&e, TEST_BIT(SA_TOPO_MFTR_LID), 0x99, 0, 0);
	CU_ASSERT_EQUAL(e.out.n, 0);
	/* by block */
	test_sa_topo_mft_ask(&e, TEST_BIT(SA_TOPO_MFTR_BLOCK), 0, 0, 2);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 1);
	CU_ASSERT_EQUAL(test_sa_topo_get(&e, 0, d, SA_TOPO_MFTR_BLOCK), 2);
	test_sa_topo_mft_ask(&e, TEST_BIT(SA_TOPO_MFTR_BLOCK), 0, 0, 1);
	CU_ASSERT_EQUAL(e.out.n, 0);
	test_sa_topo_mft_ask(&e, TEST_BIT(SA_TOPO_MFTR_BLOCK), 0, 0, 511);
	CU_ASSERT_EQUAL(e.out.n, 0);
	/* by position: a 4-port switch has position 0 only */
	test_sa_topo_mft_ask(&e, TEST_BIT(SA_TOPO_MFTR_POSITION) | TEST_BIT(SA_TOPO_MFTR_LID), 1, 0,
			     0);
	CU_ASSERT_EQUAL(e.out.n, 2);
	test_sa_topo_mft_ask(&e, TEST_BIT(SA_TOPO_MFTR_POSITION), 0, 1, 0);
	CU_ASSERT_EQUAL(e.out.n, 0);
	/* the three together name one record */
	test_sa_topo_mft_ask(&e,
			     TEST_BIT(SA_TOPO_MFTR_LID) | TEST_BIT(SA_TOPO_MFTR_POSITION) |
				     TEST_BIT(SA_TOPO_MFTR_BLOCK),
			     1, 0, 0);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 1);
	CU_ASSERT_EQUAL(test_sa_topo_get(&e, 0, d, SA_TOPO_MFTR_BLOCK), 0);

	/* the group of block 0 is gone: its block is all zero, not listed */
	test_sa_topo_mft_groups(&e, 0);
	test_sa_topo_mft_ask(&e, 0, 0, 0, 0);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 1);
	CU_ASSERT_EQUAL(test_sa_topo_get(&e, 0, d, SA_TOPO_MFTR_BLOCK), 2);
	/* a table of another switch (GUID) at that node index is not taken */
	e.mfts.tables[0].guid ^= 1;
	test_sa_topo_mft_ask(&e, 0, 0, 0, 0);
	CU_ASSERT_EQUAL(e.out.n, 0);
	test_sa_topo_teardown(&e);
}

static void test_sa_topo_misc_records(void)
{
	struct test_sa_topo_env e;
	const uint8_t *r;

	test_sa_topo_setup(&e, 0);
	test_sa_topo_ask(&e, SA_METHOD_GET, 0x18, 0, NULL, 0, 0);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 1);
	r = test_sa_topo_rec(&e, 0);
	CU_ASSERT(r[1] == 2 && r[24] == 0x53);
	CU_ASSERT_EQUAL(sa_get(r, &sa_topo_sminfo_desc.comp[SA_TOPO_SMR_GUID]),
			e.f.nodes[e.h1].ports[1].guid);
	CU_ASSERT_EQUAL(sa_get(r, &sa_topo_sminfo_desc.comp[SA_TOPO_SMR_SM_KEY]), 0);
	test_sa_topo_ask(&e, SA_METHOD_GET, 0x18, 0, NULL, 0, 0x5eced);
	CU_ASSERT_EQUAL(sa_get(test_sa_topo_rec(&e, 0), &sa_topo_sminfo_desc.comp[SA_TOPO_SMR_SM_KEY]),
			0x5eced);

	test_sa_topo_ask(&e, SA_METHOD_GET_TABLE, 0x30, 0, NULL, 0, 0);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 3);
	CU_ASSERT_EQUAL(mad_get_field64((void *)test_sa_topo_rec(&e, 2), 0, IB_SA_GIR_GUID0_F),
			e.f.nodes[e.h2].ports[1].guid);

	/* P_Key tables only for a requester that knows the SM_Key */
	CU_ASSERT_EQUAL(test_sa_topo_ask(&e, SA_METHOD_GET_TABLE, 0x33, 0, NULL, 0, 0),
			SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(e.out.n, 0);
	/* no partition plan: the default partition on LID ports and on the
	 * switch ports facing CAs */
	test_sa_topo_ask(&e, SA_METHOD_GET_TABLE, 0x33, 0, NULL, 0, 0x5eced);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 5);
	r = test_sa_topo_rec(&e, 1);
	CU_ASSERT(r[1] == 1 && r[4] == 1 && r[8] == 0xff && r[9] == 0xff && r[10] == 0);
	CU_ASSERT_EQUAL(test_sa_topo_rec(&e, 4)[1], 4);
	test_sa_topo_teardown(&e);
}

/* With a partition plan: h2 is a full member of 0x0010 (and, as every
 * port, a limited member of 0x7fff); the switch port facing h2 carries its
 * table; switch port 0 only 0x7fff. */
static void test_sa_topo_pkey_plan(void)
{
	const struct sa_rec_desc *d = &sa_topo_pkey_desc;
	struct test_sa_topo_env e;
	struct policy pol;
	struct policy_partition *part;
	struct pkey_plan plan;
	struct sa_view v;
	uint8_t t[SA_TOPO_PKEY_SIZE] = { 0 }, h2_table[64];
	const uint8_t *r;
	char err[128];

	test_sa_topo_setup(&e, 0);
	policy_init(&pol);
	pkey_plan_init(&plan);
	part = policy_partition_add(&pol, "storage", 0x0010, 0, 2048);
	CU_ASSERT_PTR_NOT_NULL_FATAL(part);
	CU_ASSERT_EQUAL_FATAL(policy_member_add(part, POLICY_MEMBER_GUID,
						e.f.nodes[e.h2].ports[1].guid, POLICY_FULL), 0);
	CU_ASSERT_EQUAL_FATAL(pkey_plan_build(&plan, pol.partitions, pol.n_partitions, NULL, 0,
					      &e.f, e.h1, 1, err, sizeof(err)),
			      0);
	v = e.sa->v;
	v.pk = &plan;
	CU_ASSERT_EQUAL_FATAL(sa_update(e.sa, &v), 0);

	sa_put(t, &d->comp[SA_TOPO_PKR_LID], 5); /* h2, by its second LID */
	test_sa_topo_ask(&e, SA_METHOD_GET, 0x33, TEST_BIT(SA_TOPO_PKR_LID), t, sizeof(t), 0x5eced);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 1);
	r = test_sa_topo_rec(&e, 0);
	CU_ASSERT(r[1] == 4 && r[4] == 1);
	CU_ASSERT((r[8] == 0x80 && r[9] == 0x10 && r[10] == 0x7f && r[11] == 0xff) ||
		  (r[8] == 0x7f && r[9] == 0xff && r[10] == 0x80 && r[11] == 0x10));
	CU_ASSERT(r[12] == 0 && r[13] == 0);
	memcpy(h2_table, r + 8, sizeof(h2_table));

	sa_put(t, &d->comp[SA_TOPO_PKR_LID], 1);
	sa_put(t, &d->comp[SA_TOPO_PKR_PORT_NUM], 2);
	test_sa_topo_ask(&e, SA_METHOD_GET, 0x33,
			 TEST_BIT(SA_TOPO_PKR_LID) | TEST_BIT(SA_TOPO_PKR_PORT_NUM), t, sizeof(t),
			 0x5eced);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 1);
	CU_ASSERT_EQUAL(memcmp(test_sa_topo_rec(&e, 0) + 8, h2_table, 64), 0);
	sa_put(t, &d->comp[SA_TOPO_PKR_PORT_NUM], 0);
	test_sa_topo_ask(&e, SA_METHOD_GET, 0x33,
			 TEST_BIT(SA_TOPO_PKR_LID) | TEST_BIT(SA_TOPO_PKR_PORT_NUM), t, sizeof(t),
			 0x5eced);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 1);
	r = test_sa_topo_rec(&e, 0);
	CU_ASSERT(r[8] == 0x7f && r[9] == 0xff && r[10] == 0 && r[11] == 0);
	test_sa_topo_teardown(&e);
	pkey_plan_fini(&plan);
	policy_fini(&pol);
}

static void test_sa_topo_methods(void)
{
	struct test_sa_topo_env e;
	uint8_t junk[SA_DATA_SIZE];
	const uint16_t attrs[] = { 0x11, 0x12, 0x14, 0x15, 0x17, 0x18, 0x20, 0x30, 0x33 };

	test_sa_topo_setup(&e, 1);
	test_sa_topo_mft_groups(&e, 1);
	CU_ASSERT_EQUAL(test_sa_topo_ask(&e, SA_METHOD_SET, 0x11, 0, NULL, 0, 0),
			SA_STATUS_BAD_METHOD_ATTR);
	CU_ASSERT_EQUAL(test_sa_topo_ask(&e, SA_METHOD_DELETE, 0x20, 0, NULL, 0, 0),
			SA_STATUS_BAD_METHOD_ATTR);
	CU_ASSERT_EQUAL(test_sa_topo_ask(&e, SA_METHOD_GET, 0x35, 0, NULL, 0, 0),
			SA_STATUS_BAD_METHOD_ATTR);
	CU_ASSERT_EQUAL(test_sa_topo_ask(&e, SA_METHOD_GET_TABLE, 0x01, 0, NULL, 0, 0),
			SA_STATUS_BAD_METHOD_ATTR);
	CU_ASSERT_EQUAL(test_sa_topo_ask(&e, SA_METHOD_GET, 0x01, 0, NULL, 0, 0), 0);
	CU_ASSERT_EQUAL_FATAL(e.out.n, 1);
	CU_ASSERT_EQUAL(e.out.rec_size, 72);
	/* CapabilityMask: IsUDMulticastSupported (bit 9), the SA always has
	 * groups; IsMultiPathSupported (bit 10) */
	CU_ASSERT(e.out.recs[1] == 2 && e.out.recs[2] == 0x06 && e.out.recs[3] == 0 &&
		  e.out.recs[7] == SA_TOPO_RESP_TIME);
	/* hostile templates: every mask bit, random bytes; never a crash */
	srand(7);
	for (int round = 0; round < 50; round++) {
		for (size_t i = 0; i < sizeof(junk); i++)
			junk[i] = (uint8_t)rand();
		for (size_t a = 0; a < sizeof(attrs) / sizeof(attrs[0]); a++)
			CU_ASSERT_EQUAL(test_sa_topo_ask(&e, SA_METHOD_GET_TABLE, attrs[a],
							 round ? (uint64_t)rand() << 20 ^ (uint64_t)rand() : ~0ull,
							 junk, sizeof(junk), 0x5eced),
					0);
	}
	test_sa_topo_teardown(&e);
}

void test_sa_topo_register(void)
{
	CU_pSuite s = CU_add_suite("sa_topo", NULL, NULL);

	CU_add_test(s, "component tables are sane", test_sa_topo_tables_sane);
	CU_add_test(s, "NodeRecord layout = libibmad IB_SA_NR_*", test_sa_topo_node_vs_libibmad);
	CU_add_test(s, "PortInfoRecord layout = libibmad IB_PORT_*",
		    test_sa_topo_portinfo_vs_libibmad);
	CU_add_test(s, "SwitchInfo/SMInfo/GUIDInfo layout = libibmad",
		    test_sa_topo_others_vs_libibmad);
	CU_add_test(s, "NodeRecord bytes", test_sa_topo_node_bytes);
	CU_add_test(s, "other record bytes", test_sa_topo_record_bytes);
	CU_add_test(s, "MFTRecord bytes", test_sa_topo_mft_bytes);
	CU_add_test(s, "ClassPortInfo bytes", test_sa_topo_cpi_bytes);
	CU_add_test(s, "NodeRecord queries", test_sa_topo_node_records);
	CU_add_test(s, "PortInfoRecord queries", test_sa_topo_portinfo_records);
	CU_add_test(s, "LinkRecord queries", test_sa_topo_link_records);
	CU_add_test(s, "SwitchInfo and LFT records", test_sa_topo_switch_records);
	CU_add_test(s, "MFTRecord: a group's blocks, by LID/position/block",
		    test_sa_topo_mft_records);
	CU_add_test(s, "SMInfo, GUIDInfo, P_KeyTable records", test_sa_topo_misc_records);
	CU_add_test(s, "P_KeyTableRecord from a partition plan", test_sa_topo_pkey_plan);
	CU_add_test(s, "methods, ClassPortInfo, hostile templates", test_sa_topo_methods);
}
