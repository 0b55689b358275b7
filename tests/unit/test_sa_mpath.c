/*
 * test_sa_mpath.c - MultiPathRecord: its bytes and counts (mad/sa_path.c) and
 * GetMulti over the rig of sa_path_test.c (pairs, NumbPath, selectors,
 * partitions, the requester's, errors); and the SL of a path, which every
 * query answers from the routes.  Part of suite sa_path (test_sa_path.c).
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "config/pkey.h"
#include "mad/sa_path.h"
#include "sm/sa/paths.h"
#include "sm/sa/server.h"
#include "tests/unit/sa_path_test.h"

static void test_sa_mpath_codec(void)
{
	struct sa_mpath_req r, d;
	uint8_t rec[SA_DATA_SIZE], gid[16];
	uint64_t mask = SA_MPR_CM(SA_MPR_SGID_COUNT) | SA_MPR_CM(SA_MPR_DGID_COUNT);

	memset(&r, 0, sizeof(r));
	r.want.reversible = 1;
	r.want.pkey = 0x8001;
	r.want.sl = 0x9;
	r.want.mtu_sel = 2;
	r.want.mtu = 4;
	r.want.life = 0x12;
	r.want.service_id = 0x1122334455667788ull;
	r.numb_path = 5;
	r.independence = 2;
	r.sgid_count = 1;
	r.dgid_count = 2;
	for (int i = 0; i < 3; i++)
		memset(r.gid[i], 0xa0 + i, 16);
	sa_mpath_encode(&r, rec);
	CU_ASSERT_EQUAL(rec[5], 0x85); /* Reversible + NumbPath */
	CU_ASSERT_EQUAL(rec[6], 0x80); /* P_Key */
	CU_ASSERT_EQUAL(rec[7], 0x01);
	CU_ASSERT_EQUAL(rec[9], 0x09); /* QoSClass 0, SL */
	CU_ASSERT_EQUAL(rec[10], 0x84); /* exactly 2048 */
	CU_ASSERT_EQUAL(rec[12], 0x12);
	CU_ASSERT_EQUAL(rec[13], 0x11); /* ServiceID bits 63..56 */
	CU_ASSERT_EQUAL(rec[14], 0x80); /* IndependenceSelector */
	CU_ASSERT_EQUAL(rec[17], 0x22); /* ServiceID bits 55..0 */
	CU_ASSERT_EQUAL(rec[23], 0x88);
	/* the same bytes through libibmad */
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_SA_MP_NPATH_F), 5);
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_SA_MP_NSRC_F), 1);
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_SA_MP_NDEST_F), 2);
	mad_get_array(rec, 0, IB_SA_MP_GID0_F, gid);
	CU_ASSERT_EQUAL(memcmp(gid, r.gid[0], 16), 0);
	/* back, as a PathRecord template */
	CU_ASSERT_EQUAL(sa_mpath_decode(rec, mask | SA_MPR_CM(SA_MPR_PKEY) |
						     SA_MPR_CM(SA_MPR_NUMB_PATH) |
						     SA_MPR_CM(SA_MPR_SERVICE_ID_LSB), &d), 0);
	CU_ASSERT_EQUAL(d.pr_mask, SA_PR_CM(SA_PR_PKEY) | SA_PR_CM(SA_PR_NUMB_PATH) |
					   SA_PR_CM(SA_PR_SERVICE_ID_HI) |
					   SA_PR_CM(SA_PR_SERVICE_ID_LO));
	CU_ASSERT_EQUAL(d.want.service_id, 0x0022334455667788ull); /* MSB not selected */
	CU_ASSERT_EQUAL(d.want.pkey, 0x8001);
	CU_ASSERT_EQUAL(d.want.sl, 0x9);
	CU_ASSERT_EQUAL(d.want.mtu_sel, 2);
	CU_ASSERT_EQUAL(d.want.mtu, 4);
	CU_ASSERT_EQUAL(d.numb_path, 5);
	CU_ASSERT_EQUAL(d.independence, 2);
	CU_ASSERT_EQUAL(memcmp(d.gid[2], r.gid[2], 16), 0);
	/* counts: both selected, neither 0, at most 11 GIDs in one MAD */
	CU_ASSERT_EQUAL(SA_MPATH_GIDS_MAX, 11);
	CU_ASSERT_EQUAL(sa_mpath_decode(rec, SA_MPR_CM(SA_MPR_SGID_COUNT), &d), -EINVAL);
	r.dgid_count = 0;
	sa_mpath_encode(&r, rec);
	CU_ASSERT_EQUAL(sa_mpath_decode(rec, mask, &d), -EINVAL);
	r.sgid_count = 6;
	r.dgid_count = 6;
	sa_mpath_encode(&r, rec);
	CU_ASSERT_EQUAL(sa_mpath_decode(rec, mask, &d), -E2BIG);
	r.dgid_count = 5;
	sa_mpath_encode(&r, rec);
	CU_ASSERT_EQUAL(sa_mpath_decode(rec, mask, &d), 0);
	CU_ASSERT_EQUAL(sa_comp_unknown(&sa_mpath_desc, 1ull << 22), 1ull << 22);
}

/* GetMulti MultiPathRecord: srcs x dsts (ports of the rig, port 1) under
 * mask (counts added); the records are in r->out. */
static uint16_t test_sa_mpath_ask(struct sa_path_test_rig *r, uint8_t method, uint64_t mask,
				  struct sa_mpath_req *mp, const int *srcs, int n_src,
				  const int *dsts, int n_dst)
{
	struct sa_mad m;
	struct sa_req req = { &m, { 1, 0, 1 }, r->asker, 0 };

	sa_path_test_req(r, &m, method, SA_ATTR_MULTIPATH_RECORD,
			 mask | SA_MPR_CM(SA_MPR_SGID_COUNT) | SA_MPR_CM(SA_MPR_DGID_COUNT));
	mp->sgid_count = (uint8_t)n_src;
	mp->dgid_count = (uint8_t)n_dst;
	for (int i = 0; i < n_src + n_dst && i < SA_MPATH_GIDS_MAX; i++) {
		int node = i < n_src ? srcs[i] : dsts[i - n_src];

		sa_port_gid(r->sa, (struct sa_port_ref){ node, 1 }, mp->gid[i]);
	}
	sa_mpath_encode(mp, m.data);
	return sa_mpath_handle(r->sa, &req, &r->out);
}

static void test_sa_mpath_rec(const struct sa_path_test_rig *r, size_t i, struct sa_path_rec *d)
{
	sa_path_decode(r->out.recs + i * SA_PATH_REC_SIZE, d);
}

static void test_sa_mpath_pairs(void)
{
	struct sa_path_test_rig r;
	struct sa_mpath_req mp;
	struct sa_path_rec d;
	int h1[1], h23[2], all[3];

	sa_path_test_rig_init(&r);
	h1[0] = r.h1;
	h23[0] = r.h2;
	h23[1] = r.h3;
	all[0] = r.h1;
	all[1] = r.h2;
	all[2] = r.h3;
	/* 1 SGID x 2 DGIDs: two PathRecords, in DGID order */
	memset(&mp, 0, sizeof(mp));
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, 0, &mp, h1, 1, h23, 2), 0);
	CU_ASSERT_EQUAL(r.out.rec_size, SA_PATH_REC_SIZE);
	CU_ASSERT_EQUAL_FATAL(r.out.n, 2);
	test_sa_mpath_rec(&r, 0, &d);
	CU_ASSERT_EQUAL(d.slid, r.l_h1);
	CU_ASSERT_EQUAL(d.dlid, r.l_h2);
	CU_ASSERT_EQUAL(memcmp(d.sgid, mp.gid[0], 16), 0);
	CU_ASSERT_EQUAL(memcmp(d.dgid, mp.gid[1], 16), 0);
	CU_ASSERT_EQUAL(d.reversible, 1);
	CU_ASSERT_EQUAL(PKEY_BASE(d.pkey), 0x7fff);
	test_sa_mpath_rec(&r, 1, &d);
	CU_ASSERT_EQUAL(d.slid, r.l_h1);
	CU_ASSERT_EQUAL(d.dlid, r.l_h3);
	CU_ASSERT_EQUAL(d.life, sa_path_life_from_hops(3));
	/* 3 x 3 (self paths too), NumbPath caps the whole answer */
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, 0, &mp, all, 3, all, 3), 0);
	CU_ASSERT_EQUAL(r.out.n, 9);
	mp.numb_path = 4;
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, SA_MPR_CM(SA_MPR_NUMB_PATH),
					  &mp, all, 3, all, 3), 0);
	CU_ASSERT_EQUAL_FATAL(r.out.n, 4);
	test_sa_mpath_rec(&r, 3, &d);
	CU_ASSERT_EQUAL(d.slid, r.l_h2); /* sources in list order */
	CU_ASSERT_EQUAL(d.dlid, r.l_h1);
	/* IndependenceSelector is accepted and changes nothing */
	mp.numb_path = 0;
	mp.independence = 1;
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, SA_MPR_CM(SA_MPR_INDEPENDENCE),
					  &mp, h1, 1, h23, 2), 0);
	CU_ASSERT_EQUAL(r.out.n, 2);
	sa_path_test_rig_fini(&r);
}

/* The PathRecord constraints of the template apply to every pair. */
static void test_sa_mpath_constraints(void)
{
	struct sa_path_test_rig r;
	struct sa_mpath_req mp;
	struct sa_path_rec d;
	int h1[1], h23[2];

	sa_path_test_rig_init(&r);
	h1[0] = r.h1;
	h23[0] = r.h2;
	h23[1] = r.h3;
	/* s1 - s2 carries 1024 bytes only: MTU exactly 2048 leaves h1 -> h2 */
	r.f.nodes[r.s1].ports[3].mtu_cap = 3;
	sa_path_test_view(&r, 2);
	memset(&mp, 0, sizeof(mp));
	mp.want.mtu_sel = SA_SEL_EXACT;
	mp.want.mtu = 4;
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI,
					  SA_MPR_CM(SA_MPR_MTU_SELECTOR) | SA_MPR_CM(SA_MPR_MTU),
					  &mp, h1, 1, h23, 2), 0);
	CU_ASSERT_EQUAL_FATAL(r.out.n, 1);
	test_sa_mpath_rec(&r, 0, &d);
	CU_ASSERT_EQUAL(d.dlid, r.l_h2);
	CU_ASSERT_EQUAL(d.mtu, 4);
	CU_ASSERT_EQUAL(d.mtu_sel, SA_SEL_EXACT);
	/* rate less than the path's: answered with a slower rate */
	memset(&mp, 0, sizeof(mp));
	mp.want.rate_sel = SA_SEL_LESS;
	mp.want.rate = 3;
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI,
					  SA_MPR_CM(SA_MPR_RATE_SELECTOR) | SA_MPR_CM(SA_MPR_RATE),
					  &mp, h1, 1, h23, 2), 0);
	CU_ASSERT_EQUAL_FATAL(r.out.n, 2);
	test_sa_mpath_rec(&r, 0, &d);
	CU_ASSERT(sa_path_rate_mbps(d.rate) < sa_path_rate_mbps(3));
	/* PacketLifeTime less than a 3-link path's leaves h1 -> h2 */
	memset(&mp, 0, sizeof(mp));
	mp.want.life_sel = SA_SEL_LESS;
	mp.want.life = sa_path_life_from_hops(3);
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI,
					  SA_MPR_CM(SA_MPR_LIFE_SELECTOR) | SA_MPR_CM(SA_MPR_LIFE),
					  &mp, h1, 1, h23, 2), 0);
	CU_ASSERT_EQUAL(r.out.n, 1);
	/* SL: SL 0 without VLs (the routes give every DLID SL 0) */
	memset(&mp, 0, sizeof(mp));
	mp.want.sl = 1;
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, SA_MPR_CM(SA_MPR_SL), &mp, h1,
					  1, h23, 2), 0);
	CU_ASSERT_EQUAL(r.out.n, 0);
	mp.want.sl = 0;
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, SA_MPR_CM(SA_MPR_SL), &mp, h1,
					  1, h23, 2), 0);
	CU_ASSERT_EQUAL(r.out.n, 2);
	/* Reversible: s2 drops h1's LID, so h3 cannot answer h1 */
	lft_set_find(&r.lfts, r.s2)->port[r.l_h1] = LFT_DROP;
	sa_path_test_view(&r, 3);
	memset(&mp, 0, sizeof(mp));
	mp.want.reversible = 1;
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, SA_MPR_CM(SA_MPR_REVERSIBLE),
					  &mp, h1, 1, h23, 2), 0);
	CU_ASSERT_EQUAL_FATAL(r.out.n, 1);
	test_sa_mpath_rec(&r, 0, &d);
	CU_ASSERT_EQUAL(d.dlid, r.l_h2);
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, 0, &mp, h1, 1, h23, 2), 0);
	CU_ASSERT_EQUAL_FATAL(r.out.n, 2);
	test_sa_mpath_rec(&r, 1, &d);
	CU_ASSERT_EQUAL(d.reversible, 0);
	sa_path_test_rig_fini(&r);
}

/* The SL of a path is the one the routing engine gave its DLID (the LFT
 * set's sl[]): PathRecord Get and GetTable, MultiPathRecord and the SL
 * component all answer it, and a view with other SLs (a new route_gen)
 * answers the new ones. */
static void test_sa_path_sl(void)
{
	struct sa_path_test_rig r;
	struct sa_mpath_req mp;
	struct sa_path_rec w, d;
	int h1[1], h23[2];

	sa_path_test_rig_init(&r);
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc_sl(&r.lfts, r.l_h3 > r.l_s2 ? r.l_h3 : r.l_s2), 0);
	r.lfts.sl[r.l_h3] = 1;
	r.lfts.n_vls = 2;
	sa_path_test_view(&r, 2);
	CU_ASSERT_EQUAL_FATAL(sa_path_test_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.sl, 1);
	CU_ASSERT_EQUAL_FATAL(sa_path_test_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.sl, 1);
	CU_ASSERT_EQUAL_FATAL(sa_path_test_get(&r, r.l_h3, r.l_h1, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.sl, 0); /* the way back goes to h1: SL 0 */
	/* SL as a component: only the path's own */
	memset(&w, 0, sizeof(w));
	w.sl = 0;
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, r.l_h3, SA_PR_CM(SA_PR_SL), &w, &d), 0);
	w.sl = 1;
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, r.l_h3, SA_PR_CM(SA_PR_SL), &w, &d), 1);
	/* GetTable from h1: h3's record on SL 1, the others on SL 0 */
	memset(&w, 0, sizeof(w));
	w.slid = r.l_h1;
	CU_ASSERT_EQUAL(sa_path_test_ask(&r, SA_METHOD_GET_TABLE, SA_PR_CM(SA_PR_SLID), &w),
			SA_STATUS_OK);
	CU_ASSERT_FATAL(r.out.n >= 4);
	for (size_t i = 0; i < r.out.n; i++) {
		sa_path_decode(r.out.recs + i * SA_PATH_REC_SIZE, &d);
		CU_ASSERT_EQUAL(d.sl, d.dlid == r.l_h3 ? 1 : 0);
	}
	/* MultiPathRecord: h1 x {h2, h3} */
	h1[0] = r.h1;
	h23[0] = r.h2;
	h23[1] = r.h3;
	memset(&mp, 0, sizeof(mp));
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, 0, &mp, h1, 1, h23, 2), 0);
	CU_ASSERT_EQUAL_FATAL(r.out.n, 2);
	test_sa_mpath_rec(&r, 0, &d);
	CU_ASSERT_EQUAL(d.sl, 0);
	test_sa_mpath_rec(&r, 1, &d);
	CU_ASSERT_EQUAL(d.sl, 1);
	/* the routes move h3 back to SL 0 and h2 to SL 2 */
	r.lfts.sl[r.l_h3] = 0;
	r.lfts.sl[r.l_h2] = 2;
	r.lfts.n_vls = 3;
	sa_path_test_view(&r, 3);
	CU_ASSERT_EQUAL_FATAL(sa_path_test_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.sl, 0);
	CU_ASSERT_EQUAL_FATAL(sa_path_test_get(&r, r.l_h1, r.l_h2, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.sl, 2);
	sa_path_test_rig_fini(&r);
}

/* Partition 0x0010 holds h1 and h2; h3 is a limited member of 0x7fff like
 * h2, so h2 - h3 share no partition and that pair gives no record. */
static void test_sa_mpath_partitions(void)
{
	struct sa_path_test_rig r;
	struct pkey_plan pp;
	struct sa_mpath_req mp;
	struct sa_path_rec d;
	int h2[1], h13[2];

	sa_path_test_rig_init(&r);
	sa_path_test_plan_h1h2(&r, &pp);
	r.key = SA_PATH_TEST_SM_KEY; /* what the ends share, whoever asks */
	h2[0] = r.h2;
	h13[0] = r.h3;
	h13[1] = r.h1;
	memset(&mp, 0, sizeof(mp));
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, 0, &mp, h2, 1, h13, 2), 0);
	CU_ASSERT_EQUAL_FATAL(r.out.n, 1);
	test_sa_mpath_rec(&r, 0, &d);
	CU_ASSERT_EQUAL(d.dlid, r.l_h1);
	/* P_Key in the template picks the partition */
	mp.want.pkey = 0x0010;
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, SA_MPR_CM(SA_MPR_PKEY), &mp, h2,
					  1, h13, 2), 0);
	CU_ASSERT_EQUAL_FATAL(r.out.n, 1);
	test_sa_mpath_rec(&r, 0, &d);
	CU_ASSERT_EQUAL(d.pkey, 0x8010);
	mp.want.pkey = 0x0020;
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, SA_MPR_CM(SA_MPR_PKEY), &mp, h2,
					  1, h13, 2), 0);
	CU_ASSERT_EQUAL(r.out.n, 0);
	sa_path_test_view(&r, 3);
	pkey_plan_fini(&pp);
	sa_path_test_rig_fini(&r);
}

/* GetMulti follows the requester's partitions like PathRecord: h1 asks
 * for h2 -> {h3, h1}; h2 -> h3 is in 0x0010, which h1 is not in. */
static void test_sa_mpath_requester(void)
{
	struct sa_path_test_rig r;
	struct pkey_plan pp;
	struct sa_mpath_req mp;
	struct sa_path_rec d;
	int h2[1], h31[2];

	sa_path_test_rig_init(&r);
	sa_path_test_plan_p10(&r, &pp);
	h2[0] = r.h2;
	h31[0] = r.h3;
	h31[1] = r.h1;
	memset(&mp, 0, sizeof(mp));
	r.asker = (struct sa_port_ref){ r.h1, 1 };
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, 0, &mp, h2, 1, h31, 2), 0);
	CU_ASSERT_EQUAL_FATAL(r.out.n, 1);
	test_sa_mpath_rec(&r, 0, &d);
	CU_ASSERT_EQUAL(d.dlid, r.l_h1);
	r.key = SA_PATH_TEST_SM_KEY;
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, 0, &mp, h2, 1, h31, 2), 0);
	CU_ASSERT_EQUAL_FATAL(r.out.n, 2);
	test_sa_mpath_rec(&r, 0, &d);
	CU_ASSERT_EQUAL(d.dlid, r.l_h3);
	CU_ASSERT_EQUAL(d.pkey, 0x8010);
	r.key = 0;
	r.asker = (struct sa_port_ref){ r.h2, 1 };
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, 0, &mp, h2, 1, h31, 2), 0);
	CU_ASSERT_EQUAL(r.out.n, 2);
	sa_path_test_view(&r, 3);
	pkey_plan_fini(&pp);
	sa_path_test_rig_fini(&r);
}

/* GetMulti MultiPathRecord with a raw template. */
static uint16_t test_sa_mpath_raw(struct sa_path_test_rig *r, uint64_t mask, const uint8_t *data)
{
	struct sa_mad m = { 0 };
	struct sa_req req = { &m, { 1, 0, 1 }, { FABRIC_NONE, 0 }, 0 };

	m.method = SA_METHOD_GET_MULTI;
	m.attr_id = SA_ATTR_MULTIPATH_RECORD;
	m.comp_mask = mask;
	memcpy(m.data, data, SA_DATA_SIZE);
	free(r->out.recs);
	memset(&r->out, 0, sizeof(r->out));
	return sa_mpath_handle(r->sa, &req, &r->out);
}

static void test_sa_mpath_errors(void)
{
	struct sa_path_test_rig r;
	struct sa_mpath_req mp;
	uint8_t data[SA_DATA_SIZE] = { 0 };
	uint64_t both = SA_MPR_CM(SA_MPR_SGID_COUNT) | SA_MPR_CM(SA_MPR_DGID_COUNT);
	int six[6];

	sa_path_test_rig_init(&r);
	for (int i = 0; i < 6; i++)
		six[i] = r.h1;
	memset(&mp, 0, sizeof(mp));
	/* more GIDs than one MAD holds */
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, 0, &mp, six, 6, six, 6),
			SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(r.out.n, 0);
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, 0, &mp, six, 6, six, 5), 0);
	CU_ASSERT_EQUAL(r.out.n, 30);
	/* no destination */
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, 0, &mp, six, 1, six, 0),
			SA_STATUS_REQ_INVALID);
	/* counts not in the mask (osmtest's empty and SGID-only requests) */
	CU_ASSERT_EQUAL(test_sa_mpath_raw(&r, 0, data), SA_STATUS_INSUF_COMPS);
	data[15] = 1; /* SGIDCount */
	CU_ASSERT_EQUAL(test_sa_mpath_raw(&r, SA_MPR_CM(SA_MPR_SGID_COUNT), data),
			SA_STATUS_INSUF_COMPS);
	CU_ASSERT_EQUAL(test_sa_mpath_raw(&r, both | 1ull << 22, data), SA_STATUS_REQ_INVALID);
	/* a multicast DGID, a foreign SGID */
	memset(&mp, 0, sizeof(mp));
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, 0, &mp, six, 1, six, 1), 0);
	CU_ASSERT_EQUAL(r.out.n, 1);
	mp.gid[1][0] = 0xff;
	mp.gid[1][1] = 0x12;
	sa_mpath_encode(&mp, data);
	CU_ASSERT_EQUAL(test_sa_mpath_raw(&r, both, data), SA_STATUS_INVALID_GID);
	mp.gid[1][0] = 0xfe;
	mp.gid[1][1] = 0x80;
	mp.gid[0][0] = 0x11;
	sa_mpath_encode(&mp, data);
	CU_ASSERT_EQUAL(test_sa_mpath_raw(&r, both, data), SA_STATUS_INVALID_GID);
	/* Get and GetTable are not MultiPathRecord methods */
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET, 0, &mp, six, 1, six, 1),
			SA_STATUS_BAD_METHOD_ATTR);
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_TABLE, 0, &mp, six, 1, six, 1),
			SA_STATUS_BAD_METHOD_ATTR);
	sa_path_test_rig_fini(&r);
}

/* The tests of this file, in suite sa_path (test_sa_path.c). */
void test_sa_mpath_add(CU_pSuite s)
{
	CU_add_test(s, "MultiPathRecord bytes and counts", test_sa_mpath_codec);
	CU_add_test(s, "GetMulti: SGID x DGID pairs, NumbPath", test_sa_mpath_pairs);
	CU_add_test(s, "GetMulti: selectors, SL, Reversible", test_sa_mpath_constraints);
	CU_add_test(s, "GetMulti: pairs without a partition", test_sa_mpath_partitions);
	CU_add_test(s, "SL of the path from the routes' sl[]", test_sa_path_sl);
	CU_add_test(s, "GetMulti: requester's partitions", test_sa_mpath_requester);
	CU_add_test(s, "GetMulti: counts, GIDs, methods", test_sa_mpath_errors);
}
