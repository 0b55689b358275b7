/*
 * test_sa_path.c - PathRecords: the 64-byte record (mad/sa_path.c, byte
 * offsets from IBA 15.2.5.16, cross-checked with libibmad's IB_SA_PR_*
 * fields), rates and the MTU/Rate/PacketLifeTime selectors.  Suite sa_path,
 * which goes on with the handler in test_sa_paths.c (PathRecord) and
 * test_sa_mpath.c (MultiPathRecord).
 */
#include <CUnit/CUnit.h>
#include <string.h>

#include <infiniband/mad.h>

#include "mad/sa_path.h"
#include "tests/unit/sa_path_test.h"
#include "tests/unit/unit.h"

/* ---- the record ------------------------------------------------------------- */

static void test_sa_path_rec_fill(struct sa_path_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->service_id = 0x0102030405060708ull;
	for (int i = 0; i < 16; i++) {
		r->dgid[i] = (uint8_t)(0xd0 + i);
		r->sgid[i] = (uint8_t)(0x50 + i);
	}
	r->dlid = 0x1234;
	r->slid = 0x5678;
	r->raw_traffic = 1;
	r->flow_label = 0xabcde;
	r->hop_limit = 0x40;
	r->tclass = 0x77;
	r->reversible = 1;
	r->numb_path = 0x7f;
	r->pkey = 0x8001;
	r->qos_class = 0xabc;
	r->sl = 0x9;
	r->mtu_sel = 2;
	r->mtu = 4;
	r->rate_sel = 1;
	r->rate = 7;
	r->life_sel = 2;
	r->life = 0x12;
	r->preference = 0x5a;
}

static void test_sa_path_codec(void)
{
	struct sa_path_rec r, d;
	uint8_t rec[SA_PATH_REC_SIZE], gid[16];

	test_sa_path_rec_fill(&r);
	memset(rec, 0xee, sizeof(rec));
	sa_path_encode(&r, rec);
	CU_ASSERT_EQUAL(rec[0], 0x01); /* ServiceID */
	CU_ASSERT_EQUAL(rec[7], 0x08);
	CU_ASSERT_EQUAL(rec[8], 0xd0); /* DGID */
	CU_ASSERT_EQUAL(rec[24], 0x50); /* SGID */
	CU_ASSERT_EQUAL(rec[40], 0x12); /* DLID */
	CU_ASSERT_EQUAL(rec[41], 0x34);
	CU_ASSERT_EQUAL(rec[42], 0x56); /* SLID */
	CU_ASSERT_EQUAL(rec[43], 0x78);
	CU_ASSERT_EQUAL(rec[44], 0x8a); /* RawTraffic, 3 reserved, FlowLabel 19..16 */
	CU_ASSERT_EQUAL(rec[45], 0xbc);
	CU_ASSERT_EQUAL(rec[46], 0xde);
	CU_ASSERT_EQUAL(rec[47], 0x40); /* HopLimit */
	CU_ASSERT_EQUAL(rec[48], 0x77); /* TClass */
	CU_ASSERT_EQUAL(rec[49], 0xff); /* Reversible + NumbPath */
	CU_ASSERT_EQUAL(rec[50], 0x80); /* P_Key */
	CU_ASSERT_EQUAL(rec[51], 0x01);
	CU_ASSERT_EQUAL(rec[52], 0xab); /* QoSClass then SL */
	CU_ASSERT_EQUAL(rec[53], 0xc9);
	CU_ASSERT_EQUAL(rec[54], 0x84); /* exactly 2048 */
	CU_ASSERT_EQUAL(rec[55], 0x47); /* less than 40 Gb/s */
	CU_ASSERT_EQUAL(rec[56], 0x92); /* exactly 2^18 * 4.096 us */
	CU_ASSERT_EQUAL(rec[57], 0x5a); /* Preference */
	for (int i = 58; i < 64; i++)
		CU_ASSERT_EQUAL(rec[i], 0); /* reserved */
	/* the same bytes through libibmad */
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_SA_PR_DLID_F), 0x1234);
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_SA_PR_SLID_F), 0x5678);
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_SA_PR_NPATH_F), 0x7f);
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_SA_PR_SL_F), 0x9);
	mad_get_array(rec, 0, IB_SA_PR_SGID_F, gid);
	CU_ASSERT_EQUAL(memcmp(gid, r.sgid, 16), 0);
	/* and back */
	sa_path_decode(rec, &d);
	CU_ASSERT_EQUAL(d.service_id, r.service_id);
	CU_ASSERT_EQUAL(memcmp(d.dgid, r.dgid, 16), 0);
	CU_ASSERT_EQUAL(d.flow_label, 0xabcde);
	CU_ASSERT_EQUAL(d.qos_class, 0xabc);
	CU_ASSERT_EQUAL(d.pkey, 0x8001);
	CU_ASSERT_EQUAL(d.rate_sel, 1);
	CU_ASSERT_EQUAL(d.rate, 7);
	CU_ASSERT_EQUAL(d.life, 0x12);
	CU_ASSERT_EQUAL(d.reversible, 1);
	CU_ASSERT_EQUAL(d.numb_path, 0x7f);
	CU_ASSERT_EQUAL(d.preference, 0x5a);
	/* the table names the same bits as the mask */
	CU_ASSERT_EQUAL(sa_path_desc.n_comp, 23);
	CU_ASSERT_EQUAL(sa_get(rec, &sa_path_desc.comp[SA_PR_DLID]), 0x1234);
	CU_ASSERT_EQUAL(sa_get(rec, &sa_path_desc.comp[SA_PR_PREFERENCE]), 0x5a);
	CU_ASSERT_EQUAL(sa_comp_unknown(&sa_path_desc, 1ull << 23), 1ull << 23);
}

static void test_sa_path_rates(void)
{
	uint8_t pi[64] = { 0 }, v = 0;

	CU_ASSERT_EQUAL(sa_path_rate_from_port(1, 1, 0), 2);	/* 1x SDR 2.5 */
	CU_ASSERT_EQUAL(sa_path_rate_from_port(2, 1, 0), 3);	/* 4x SDR 10 */
	CU_ASSERT_EQUAL(sa_path_rate_from_port(2, 2, 0), 6);	/* 4x DDR 20 */
	CU_ASSERT_EQUAL(sa_path_rate_from_port(2, 4, 0), 7);	/* 4x QDR 40 */
	CU_ASSERT_EQUAL(sa_path_rate_from_port(8, 2, 0), 8);	/* 12x DDR 60 */
	CU_ASSERT_EQUAL(sa_path_rate_from_port(8, 4, 0), 10);	/* 12x QDR 120 */
	CU_ASSERT_EQUAL(sa_path_rate_from_port(2, 4, 1), 12);	/* 4x FDR 56 */
	CU_ASSERT_EQUAL(sa_path_rate_from_port(2, 4, 2), 16);	/* 4x EDR 100 */
	CU_ASSERT_EQUAL(sa_path_rate_from_port(3, 1, 0), 0);	/* no such width */
	mad_set_field(pi, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F, 2);
	CU_ASSERT_EQUAL(sa_path_rate_from_port_info(pi, 2, 4), 16);
	CU_ASSERT_EQUAL(sa_path_rate_mbps(4), 30000);
	CU_ASSERT_EQUAL(sa_path_rate_min(6, 4), 6); /* 20 < 30 although 6 > 4 */
	CU_ASSERT_EQUAL(sa_path_rate_min(0, 4), 4);
	/* rate selectors on a 40 Gb/s path */
	CU_ASSERT_EQUAL(sa_path_rate_select(7, SA_SEL_GREATER, 7, &v), -ENOENT);
	CU_ASSERT_EQUAL(sa_path_rate_select(7, SA_SEL_GREATER, 3, &v), 0);
	CU_ASSERT_EQUAL(v, 7);
	CU_ASSERT_EQUAL(sa_path_rate_select(7, SA_SEL_LESS, 6, &v), 0);
	CU_ASSERT_EQUAL(v, 11); /* 14 Gb/s: the fastest below 20 */
	CU_ASSERT_EQUAL(sa_path_rate_select(7, SA_SEL_LESS, 2, &v), -ENOENT);
	CU_ASSERT_EQUAL(sa_path_rate_select(7, SA_SEL_EXACT, 3, &v), 0);
	CU_ASSERT_EQUAL(v, 3);
	CU_ASSERT_EQUAL(sa_path_rate_select(7, SA_SEL_EXACT, 8, &v), -ENOENT);
	CU_ASSERT_EQUAL(sa_path_rate_select(7, SA_SEL_BEST, 0, &v), 0);
	CU_ASSERT_EQUAL(v, 7);
}

static void test_sa_path_selectors(void)
{
	uint8_t v = 0;

	/* a 2048-byte path */
	CU_ASSERT_EQUAL(sa_path_mtu_select(4, SA_SEL_GREATER, 5, &v), -ENOENT);
	CU_ASSERT_EQUAL(sa_path_mtu_select(4, SA_SEL_GREATER, 4, &v), -ENOENT);
	CU_ASSERT_EQUAL(sa_path_mtu_select(4, SA_SEL_GREATER, 3, &v), 0);
	CU_ASSERT_EQUAL(v, 4);
	CU_ASSERT_EQUAL(sa_path_mtu_select(4, SA_SEL_LESS, 5, &v), 0);
	CU_ASSERT_EQUAL(v, 4);
	CU_ASSERT_EQUAL(sa_path_mtu_select(4, SA_SEL_LESS, 3, &v), 0);
	CU_ASSERT_EQUAL(v, 2);
	CU_ASSERT_EQUAL(sa_path_mtu_select(4, SA_SEL_LESS, 1, &v), -ENOENT);
	CU_ASSERT_EQUAL(sa_path_mtu_select(4, SA_SEL_EXACT, 3, &v), 0);
	CU_ASSERT_EQUAL(v, 3);
	CU_ASSERT_EQUAL(sa_path_mtu_select(4, SA_SEL_EXACT, 5, &v), -ENOENT);
	CU_ASSERT_EQUAL(sa_path_mtu_select(4, SA_SEL_EXACT, 0, &v), -ENOENT);
	CU_ASSERT_EQUAL(sa_path_mtu_select(4, SA_SEL_BEST, 0, &v), 0);
	CU_ASSERT_EQUAL(v, 4);
	CU_ASSERT_EQUAL(sa_path_mtu_select(0, SA_SEL_BEST, 0, &v), -ENOENT);
	/* PacketLifeTime 18 */
	CU_ASSERT_EQUAL(sa_path_life_select(18, SA_SEL_GREATER, 20, &v), 0);
	CU_ASSERT_EQUAL(v, 21);
	CU_ASSERT_EQUAL(sa_path_life_select(18, SA_SEL_GREATER, 63, &v), -ENOENT);
	CU_ASSERT_EQUAL(sa_path_life_select(18, SA_SEL_LESS, 18, &v), -ENOENT);
	CU_ASSERT_EQUAL(sa_path_life_select(18, SA_SEL_LESS, 19, &v), 0);
	CU_ASSERT_EQUAL(v, 18);
	CU_ASSERT_EQUAL(sa_path_life_select(18, SA_SEL_EXACT, 17, &v), -ENOENT);
	CU_ASSERT_EQUAL(sa_path_life_select(18, SA_SEL_EXACT, 30, &v), 0);
	CU_ASSERT_EQUAL(v, 30);
	CU_ASSERT_EQUAL(sa_path_life_from_hops(0), 18);
	CU_ASSERT_EQUAL(sa_path_life_from_hops(2), 18);
	CU_ASSERT_EQUAL(sa_path_life_from_hops(3), 19);
	CU_ASSERT_EQUAL(sa_path_life_from_hops(4), 19);
	CU_ASSERT_EQUAL(sa_path_life_from_hops(5), 20);
	CU_ASSERT_EQUAL(sa_path_life_from_hops(1000000), 37);
}

void test_sa_path_register(void)
{
	CU_pSuite s = CU_add_suite("sa_path", NULL, NULL);

	CU_add_test(s, "record bytes and libibmad fields", test_sa_path_codec);
	CU_add_test(s, "rates from width x speed", test_sa_path_rates);
	CU_add_test(s, "MTU and lifetime selectors", test_sa_path_selectors);
	test_sa_paths_add(s);
	test_sa_mpath_add(s);
}
