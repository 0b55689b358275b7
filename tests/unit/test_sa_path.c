/*
 * test_sa_path.c - PathRecords: the 64-byte record (mad/sa_path.c, byte
 * offsets from IBA 15.2.5.16, cross-checked with libibmad's IB_SA_PR_*
 * fields), rates, MTU/Rate/PacketLifeTime selectors, and the handler
 * (sm/sa/paths.c) over a two-switch fabric routed by minhop.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "config/pkey.h"
#include "mad/sa_path.h"
#include "routing/route.h"
#include "sm/sa/paths.h"
#include "sm/sa/server.h"
#include "tests/unit/route_test.h"
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

/* ---- the handler over a fabric ----------------------------------------------- */

/* h1, h2 on s1; h3 on s2; s1 port 3 - s2 port 3. */
static const char test_sa_path_topo[] = "Switch 8 \"s1\"\n"
					"[1] \"h1\"[1]\n"
					"[2] \"h2\"[1]\n"
					"[3] \"s2\"[3]\n"
					"\n"
					"Switch 8 \"s2\"\n"
					"[1] \"h3\"[1]\n"
					"[3] \"s1\"[3]\n"
					"\n"
					"Hca 1 \"h1\"\n"
					"[1] \"s1\"[1]\n"
					"\n"
					"Hca 1 \"h2\"\n"
					"[1] \"s1\"[2]\n"
					"\n"
					"Hca 1 \"h3\"\n"
					"[1] \"s2\"[1]\n";

/* The subnet's SM_Key in every view of the rig. */
#define TEST_SA_PATH_SM_KEY 0x1ull

struct test_sa_path_rig {
	struct fabric f;
	struct lft_set lfts;
	struct sa *sa;
	int own_paths;
	int s1, s2, h1, h2, h3;
	uint16_t l_s1, l_s2, l_h1, l_h2, l_h3;
	struct sa_out out;
	/* who asks: the requester port (node FABRIC_NONE: unknown, the
	 * default) and the SM_Key its requests carry (0: untrusted) */
	struct sa_port_ref asker;
	uint64_t key;
};

static int test_sa_path_send(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	(void)ctx;
	(void)to;
	(void)mad;
	(void)len;
	return 0;
}

static void test_sa_path_view_pk(struct test_sa_path_rig *r, uint64_t gen,
				 const struct pkey_plan *pk)
{
	struct sa_view v = { 0 };

	v.pk = pk;
	v.f = &r->f;
	v.lfts = &r->lfts;
	v.subnet_prefix = 0xfe80000000000000ull;
	v.sm_key = TEST_SA_PATH_SM_KEY;
	v.route_gen = gen;
	CU_ASSERT_EQUAL(sa_update(r->sa, &v), 0);
}

static void test_sa_path_view(struct test_sa_path_rig *r, uint64_t gen)
{
	test_sa_path_view_pk(r, gen, NULL);
}

static void test_sa_path_rig_init(struct test_sa_path_rig *r)
{
	struct mad_xmit x = {test_sa_path_send, NULL};
	uint16_t max;

	memset(r, 0, sizeof(*r));
	r->asker = (struct sa_port_ref){ FABRIC_NONE, 0 };
	route_test_parse(test_sa_path_topo, &r->f);
	max = route_test_assign_lids(&r->f, ROUTE_TEST_SWITCH_GUID);
	CU_ASSERT_EQUAL_FATAL(
	    route_test_run(&route_engine_minhop, &r->f, max, NULL, 0, &r->lfts, NULL), 0);
	r->s1 = route_test_node(&r->f, "s1");
	r->s2 = route_test_node(&r->f, "s2");
	r->h1 = route_test_node(&r->f, "h1");
	r->h2 = route_test_node(&r->f, "h2");
	r->h3 = route_test_node(&r->f, "h3");
	r->l_s1 = r->f.nodes[r->s1].ports[0].lid;
	r->l_s2 = r->f.nodes[r->s2].ports[0].lid;
	r->l_h1 = r->f.nodes[r->h1].ports[1].lid;
	r->l_h2 = r->f.nodes[r->h2].ports[1].lid;
	r->l_h3 = r->f.nodes[r->h3].ports[1].lid;
	r->sa = sa_new(&x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->sa);
	r->own_paths = r->sa->paths == NULL; /* until sa_modules creates it */
	if (r->own_paths)
		r->sa->paths = sa_paths_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->sa->paths);
	test_sa_path_view(r, 1);
}

static void test_sa_path_rig_fini(struct test_sa_path_rig *r)
{
	if (r->own_paths) {
		sa_paths_free(r->sa->paths);
		r->sa->paths = NULL;
	}
	sa_free(r->sa);
	free(r->out.recs);
	lft_set_fini(&r->lfts);
	fabric_fini(&r->f);
}

/* Ask for PathRecords; the answer's records are in r->out. */
static uint16_t test_sa_path_ask(struct test_sa_path_rig *r, uint8_t method, uint64_t mask,
				 const struct sa_path_rec *want)
{
	struct sa_mad m = { 0 };
	struct sa_req req = { &m, { 1, 0, 1 }, r->asker, 0 };

	m.base_version = 1;
	m.mgmt_class = SA_CLASS;
	m.class_version = SA_CLASS_VERSION;
	m.method = method;
	m.sm_key = r->key;
	m.attr_id = SA_ATTR_PATH_RECORD;
	m.comp_mask = mask;
	sa_path_encode(want, m.data);
	free(r->out.recs);
	memset(&r->out, 0, sizeof(r->out));
	return sa_path_handle(r->sa, &req, &r->out);
}

/* Get the path slid -> dlid; returns the record count (the first decoded into d). */
static size_t test_sa_path_get(struct test_sa_path_rig *r, uint16_t slid, uint16_t dlid,
			       uint64_t extra, const struct sa_path_rec *more, struct sa_path_rec *d)
{
	struct sa_path_rec w;

	if (more)
		w = *more;
	else
		memset(&w, 0, sizeof(w));
	w.slid = slid;
	w.dlid = dlid;
	CU_ASSERT_EQUAL(test_sa_path_ask(r, SA_METHOD_GET,
					 SA_PR_CM(SA_PR_SLID) | SA_PR_CM(SA_PR_DLID) | extra, &w),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r->out.rec_size, SA_PATH_REC_SIZE);
	if (r->out.n)
		sa_path_decode(r->out.recs, d);
	return r->out.n;
}

static void test_sa_path_facts_walk(void)
{
	struct test_sa_path_rig r;
	struct sa_path_fact pf;
	struct sa_path_rec d;

	test_sa_path_rig_init(&r);
	/* s1 port 3 only does 1024 bytes; h3's link is 1x */
	r.f.nodes[r.s1].ports[3].mtu_cap = 3;
	r.f.nodes[r.h3].ports[1].width_active = 1;
	CU_ASSERT_EQUAL(sa_path_facts(r.sa, (struct sa_port_ref){ r.h1, 1 }, r.l_h3, &pf), 0);
	CU_ASSERT_EQUAL(pf.reachable, 1);
	CU_ASSERT_EQUAL(pf.hops, 3);
	CU_ASSERT_EQUAL(pf.mtu, 3);
	CU_ASSERT_EQUAL(pf.rate, 2);
	CU_ASSERT_EQUAL(pf.life, 19);
	CU_ASSERT_EQUAL(sa_path_facts(r.sa, (struct sa_port_ref){ r.h1, 1 }, r.l_h2, &pf), 0);
	CU_ASSERT_EQUAL(pf.hops, 2);
	CU_ASSERT_EQUAL(pf.mtu, 4);
	CU_ASSERT_EQUAL(pf.rate, 3);
	CU_ASSERT_EQUAL(pf.life, 18);
	CU_ASSERT_EQUAL(sa_path_facts(r.sa, (struct sa_port_ref){ r.s2, 0 }, r.l_s1, &pf), 0);
	CU_ASSERT_EQUAL(pf.reachable, 1);
	CU_ASSERT_EQUAL(pf.hops, 1);
	CU_ASSERT_EQUAL(sa_path_facts(r.sa, (struct sa_port_ref){ r.h1, 1 }, r.l_h1, &pf), 0);
	CU_ASSERT_EQUAL(pf.reachable, 1); /* loopback */
	CU_ASSERT_EQUAL(pf.hops, 0);
	CU_ASSERT_EQUAL(sa_path_facts(r.sa, (struct sa_port_ref){ 99, 1 }, r.l_h1, &pf), -ENOENT);
	/* the record of h1 -> h2 */
	CU_ASSERT_EQUAL_FATAL(test_sa_path_get(&r, r.l_h1, r.l_h2, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.slid, r.l_h1);
	CU_ASSERT_EQUAL(d.dlid, r.l_h2);
	CU_ASSERT_EQUAL(d.sgid[0], 0xfe);
	CU_ASSERT_EQUAL(d.sgid[15], (uint8_t)r.f.nodes[r.h1].ports[1].guid);
	CU_ASSERT_EQUAL(d.dgid[15], (uint8_t)r.f.nodes[r.h2].ports[1].guid);
	CU_ASSERT_EQUAL(d.pkey, 0xffff);
	CU_ASSERT_EQUAL(d.sl, 0);
	CU_ASSERT_EQUAL(d.reversible, 1);
	CU_ASSERT_EQUAL(r.out.recs[54], 0x84); /* exactly 2048 */
	CU_ASSERT_EQUAL(r.out.recs[55], 0x83); /* exactly 10 Gb/s */
	CU_ASSERT_EQUAL(r.out.recs[56], 0x92); /* exactly 18, as OpenSM on one switch */
	/* h1 -> h3 carries the smallest MTU and the slowest rate */
	CU_ASSERT_EQUAL_FATAL(test_sa_path_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.mtu, 3);
	CU_ASSERT_EQUAL(d.rate, 2);
	CU_ASSERT_EQUAL(d.life, 19);
	test_sa_path_rig_fini(&r);
}

static void test_sa_path_dropped(void)
{
	struct test_sa_path_rig r;
	struct sa_path_rec d;
	struct lft *t;

	test_sa_path_rig_init(&r);
	t = lft_set_find(&r.lfts, r.s1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	t->port[r.l_h3] = LFT_DROP;
	test_sa_path_view(&r, 2);
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 0);
	/* the way back still works, but is not reversible */
	CU_ASSERT_EQUAL_FATAL(test_sa_path_get(&r, r.l_h3, r.l_h1, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.reversible, 0);
	d.reversible = 1;
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h3, r.l_h1, SA_PR_CM(SA_PR_REVERSIBLE), &d, &d), 0);
	/* a loop between the switches */
	t->port[r.l_h3] = 3;
	lft_set_find(&r.lfts, r.s2)->port[r.l_h3] = 3;
	test_sa_path_view(&r, 3);
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 0);
	/* garbage out port */
	t->port[r.l_h3] = 200;
	test_sa_path_view(&r, 4);
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 0);
	/* LIDs nobody owns, multicast, permissive */
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, 0, 0, NULL, &d), 0);
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, 0xc000, 0, NULL, &d), 0);
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, 0xffff, 0, NULL, &d), 0);
	CU_ASSERT_EQUAL(test_sa_path_get(&r, 0x9999, r.l_h1, 0, NULL, &d), 0);
	test_sa_path_rig_fini(&r);
}

static void test_sa_path_select_query(void)
{
	struct test_sa_path_rig r;
	struct sa_path_rec w, d;
	const uint64_t mtu = SA_PR_CM(SA_PR_MTU) | SA_PR_CM(SA_PR_MTU_SELECTOR);

	test_sa_path_rig_init(&r);
	memset(&w, 0, sizeof(w));
	w.mtu_sel = SA_SEL_GREATER;
	w.mtu = 5; /* > 4096: impossible */
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, r.l_h2, mtu, &w, &d), 0);
	w.mtu_sel = SA_SEL_LESS;
	w.mtu = 4; /* < 2048 */
	CU_ASSERT_EQUAL_FATAL(test_sa_path_get(&r, r.l_h1, r.l_h2, mtu, &w, &d), 1);
	CU_ASSERT_EQUAL(d.mtu, 3);
	CU_ASSERT_EQUAL(d.mtu_sel, SA_SEL_EXACT);
	w.mtu_sel = SA_SEL_EXACT;
	w.mtu = 2;
	CU_ASSERT_EQUAL_FATAL(test_sa_path_get(&r, r.l_h1, r.l_h2, mtu, &w, &d), 1);
	CU_ASSERT_EQUAL(d.mtu, 2);
	w.mtu = 5; /* exactly 4096 on a 2048 path */
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, r.l_h2, mtu, &w, &d), 0);
	/* MTU without a selector means exactly */
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, r.l_h2, SA_PR_CM(SA_PR_MTU), &w, &d), 0);
	/* rate: greater than 10 Gb/s on a 4x SDR path */
	w.rate_sel = SA_SEL_GREATER;
	w.rate = 3;
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, r.l_h2,
					 SA_PR_CM(SA_PR_RATE) | SA_PR_CM(SA_PR_RATE_SELECTOR), &w, &d),
			0);
	/* SL 1 does not exist; SL 0 does */
	w.sl = 1;
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, r.l_h2, SA_PR_CM(SA_PR_SL), &w, &d), 0);
	w.sl = 0;
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, r.l_h2, SA_PR_CM(SA_PR_SL), &w, &d), 1);
	/* P_Key: the default partition only */
	w.pkey = 0x7fff;
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, r.l_h2, SA_PR_CM(SA_PR_PKEY), &w, &d), 1);
	w.pkey = 0x8001;
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, r.l_h2, SA_PR_CM(SA_PR_PKEY), &w, &d), 0);
	/* echoed: ServiceID, TClass */
	w.service_id = 0x1122334455667788ull;
	w.tclass = 0x40;
	CU_ASSERT_EQUAL_FATAL(test_sa_path_get(&r, r.l_h1, r.l_h2,
					       SA_PR_CM(SA_PR_SERVICE_ID_HI) |
						   SA_PR_CM(SA_PR_SERVICE_ID_LO) | SA_PR_CM(SA_PR_TCLASS),
					       &w, &d),
			      1);
	CU_ASSERT_EQUAL(d.service_id, 0x1122334455667788ull);
	CU_ASSERT_EQUAL(d.tclass, 0x40);
	test_sa_path_rig_fini(&r);
}

static void test_sa_path_requests(void)
{
	struct test_sa_path_rig r;
	struct sa_path_rec w, d;
	const struct fabric_port *h2 = NULL;

	test_sa_path_rig_init(&r);
	memset(&w, 0, sizeof(w));
	w.slid = r.l_h1;
	CU_ASSERT_EQUAL(test_sa_path_ask(&r, SA_METHOD_GET, SA_PR_CM(SA_PR_SLID), &w),
			SA_STATUS_INSUF_COMPS);
	CU_ASSERT_EQUAL(test_sa_path_ask(&r, SA_METHOD_SET, SA_PR_CM(SA_PR_SLID), &w),
			SA_STATUS_BAD_METHOD_ATTR);
	CU_ASSERT_EQUAL(test_sa_path_ask(&r, SA_METHOD_GET_TABLE, 1ull << 40, &w),
			SA_STATUS_REQ_INVALID);
	/* GIDs: one of this subnet, one of another */
	h2 = &r.f.nodes[r.h2].ports[1];
	sa_gid_make(0xfe80000000000000ull, h2->guid, w.dgid);
	CU_ASSERT_EQUAL_FATAL(test_sa_path_get(&r, r.l_h1, 0, SA_PR_CM(SA_PR_DGID), &w, &d), 0);
	w.dlid = r.l_h2;
	CU_ASSERT_EQUAL(test_sa_path_ask(&r, SA_METHOD_GET,
					 SA_PR_CM(SA_PR_SLID) | SA_PR_CM(SA_PR_DGID), &w),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(r.out.n, 1);
	sa_path_decode(r.out.recs, &d);
	CU_ASSERT_EQUAL(d.dlid, r.l_h2);
	w.dgid[0] = 0x20; /* another subnet */
	CU_ASSERT_EQUAL(test_sa_path_ask(&r, SA_METHOD_GET,
					 SA_PR_CM(SA_PR_SLID) | SA_PR_CM(SA_PR_DGID), &w),
			SA_STATUS_INVALID_GID);
	CU_ASSERT_EQUAL(test_sa_path_ask(&r, SA_METHOD_GET_TABLE, SA_PR_CM(SA_PR_DGID), &w),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 0);
	/* DGID and DLID naming different ports */
	sa_gid_make(0xfe80000000000000ull, h2->guid, w.dgid);
	w.dlid = r.l_h3;
	CU_ASSERT_EQUAL(test_sa_path_ask(&r, SA_METHOD_GET,
					 SA_PR_CM(SA_PR_SLID) | SA_PR_CM(SA_PR_DGID) |
					     SA_PR_CM(SA_PR_DLID),
					 &w),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 0);
	test_sa_path_rig_fini(&r);
}

static void test_sa_path_tables(void)
{
	struct test_sa_path_rig r;
	struct sa_path_rec w, d;
	unsigned seen = 0;

	test_sa_path_rig_init(&r);
	memset(&w, 0, sizeof(w));
	w.slid = r.l_h1;
	CU_ASSERT_EQUAL(test_sa_path_ask(&r, SA_METHOD_GET_TABLE, SA_PR_CM(SA_PR_SLID), &w),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(r.out.n, 5); /* s1, s2, h1, h2, h3 */
	for (size_t i = 0; i < r.out.n; i++) {
		sa_path_decode(r.out.recs + i * SA_PATH_REC_SIZE, &d);
		CU_ASSERT_EQUAL(d.slid, r.l_h1);
		CU_ASSERT_TRUE(d.dlid >= 1 && d.dlid <= 5);
		seen |= 1u << d.dlid;
	}
	CU_ASSERT_EQUAL(seen, 0x3e);
	/* everyone to h3 */
	w.dlid = r.l_h3;
	CU_ASSERT_EQUAL(test_sa_path_ask(&r, SA_METHOD_GET_TABLE, SA_PR_CM(SA_PR_DLID), &w),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 5);
	/* all pairs */
	CU_ASSERT_EQUAL(test_sa_path_ask(&r, SA_METHOD_GET_TABLE, 0, &w), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 25);
	test_sa_path_rig_fini(&r);
}

static void test_sa_path_cache(void)
{
	struct test_sa_path_rig r;
	struct sa_path_rec d;
	struct sa_counters *c;

	test_sa_path_rig_init(&r);
	c = &r.sa->counters;
	c->path_queries = c->path_cache_hits = 0;
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(c->path_queries, 2); /* there and back */
	CU_ASSERT_EQUAL(c->path_cache_hits, 0);
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(c->path_queries, 4);
	CU_ASSERT_EQUAL(c->path_cache_hits, 2);
	sa_paths_flush(r.sa->paths);
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(c->path_cache_hits, 2);
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(c->path_cache_hits, 4);
	/* new routes: the cache notices the generation even without a flush */
	lft_set_find(&r.lfts, r.s1)->port[r.l_h3] = LFT_DROP;
	r.sa->v.route_gen = 7;
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 0);
	CU_ASSERT_EQUAL(c->path_cache_hits, 4);
	/* a cached unreachable path stays unreachable */
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 0);
	CU_ASSERT_EQUAL(c->path_cache_hits, 5);
	test_sa_path_rig_fini(&r);
}

/* Partition 0x0010 holds h1 and h2 (full); everyone else is a limited
 * member of 0x7fff, the SM's port (h1) a full one. */
static void test_sa_path_partitions(void)
{
	struct test_sa_path_rig r;
	struct policy_member m[2];
	struct policy_partition part;
	struct pkey_plan pp;
	struct sa_path_rec w, d;
	char err[256];

	test_sa_path_rig_init(&r);
	memset(m, 0, sizeof(m));
	memset(&part, 0, sizeof(part));
	m[0] = (struct policy_member){.kind = POLICY_MEMBER_GUID,
				      .guid = r.f.nodes[r.h1].ports[1].guid,
				      .membership = POLICY_FULL};
	m[1] = (struct policy_member){.kind = POLICY_MEMBER_GUID,
				      .guid = r.f.nodes[r.h2].ports[1].guid,
				      .membership = POLICY_FULL};
	strcpy(part.name, "p");
	part.pkey = 0x0010;
	part.members = m;
	part.n_members = 2;
	pkey_plan_init(&pp);
	CU_ASSERT_EQUAL_FATAL(
	    pkey_plan_build(&pp, &part, 1, NULL, 0, &r.f, r.h1, 1, err, sizeof(err)), 0);
	test_sa_path_view_pk(&r, 2, &pp);
	/* what the ends share, asked by a trusted requester (the requester's
	 * own partitions: test_sa_path_requester) */
	r.key = TEST_SA_PATH_SM_KEY;
	/* h2 - h3: limited + limited in 0x7fff, nothing else shared */
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 0);
	/* h1 - h3: the default partition, h1 full */
	CU_ASSERT_EQUAL_FATAL(test_sa_path_get(&r, r.l_h3, r.l_h1, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(PKEY_BASE(d.pkey), 0x7fff);
	/* h1 - h2 in 0x0010 when asked for it, not in 0x0020 */
	memset(&w, 0, sizeof(w));
	w.pkey = 0x0010;
	CU_ASSERT_EQUAL_FATAL(test_sa_path_get(&r, r.l_h1, r.l_h2, SA_PR_CM(SA_PR_PKEY), &w, &d), 1);
	CU_ASSERT_EQUAL(d.pkey, 0x8010);
	w.pkey = 0x0020;
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, r.l_h2, SA_PR_CM(SA_PR_PKEY), &w, &d), 0);
	/* from h2: itself (0x0010) and h1; not h3 nor the switches */
	w.slid = r.l_h2;
	CU_ASSERT_EQUAL(test_sa_path_ask(&r, SA_METHOD_GET_TABLE, SA_PR_CM(SA_PR_SLID), &w),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 2);
	test_sa_path_view(&r, 3);
	pkey_plan_fini(&pp);
	test_sa_path_rig_fini(&r);
}

/* Partition 0x0010: h2 and h3 full members, the switches limited ones; no
 * rule for 0x7fff, so h1 (the SM's port) is its only full member and
 * everyone else a limited one.  pp is built and put in r's view. */
static void test_sa_path_plan_p10(struct test_sa_path_rig *r, struct pkey_plan *pp)
{
	struct policy_member m[3];
	struct policy_partition part;
	char err[256];

	memset(&part, 0, sizeof(part));
	m[0] = (struct policy_member){.kind = POLICY_MEMBER_GUID,
				      .guid = r->f.nodes[r->h2].ports[1].guid,
				      .membership = POLICY_FULL};
	m[1] = (struct policy_member){.kind = POLICY_MEMBER_GUID,
				      .guid = r->f.nodes[r->h3].ports[1].guid,
				      .membership = POLICY_FULL};
	m[2] = (struct policy_member){
	    .kind = POLICY_MEMBER_ALL_SWITCHES, .guid = 0, .membership = POLICY_LIMITED};
	strcpy(part.name, "p");
	part.pkey = 0x0010;
	part.members = m;
	part.n_members = 3;
	pkey_plan_init(pp);
	CU_ASSERT_EQUAL_FATAL(
	    pkey_plan_build(pp, &part, 1, NULL, 0, &r->f, r->h1, 1, err, sizeof(err)), 0);
	test_sa_path_view_pk(r, 2, pp);
}

/* The requester must be a member of the path's partition (full or
 * limited) unless trusted: h1 asks for h2 -> h3, a path in 0x0010, which
 * h1 is not in. */
static void test_sa_path_requester(void)
{
	struct test_sa_path_rig r;
	struct pkey_plan pp;
	struct sa_path_rec w, d;

	test_sa_path_rig_init(&r);
	test_sa_path_plan_p10(&r, &pp);
	memset(&w, 0, sizeof(w));
	r.asker = (struct sa_port_ref){ r.h1, 1 };
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 0);
	w.pkey = 0x8010;
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h2, r.l_h3, SA_PR_CM(SA_PR_PKEY), &w, &d), 0);
	/* h1 sees the paths of the default partition it is in */
	CU_ASSERT_EQUAL_FATAL(test_sa_path_get(&r, r.l_h2, r.l_h1, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.pkey, 0xffff);
	/* a wrong SM_Key is no SM_Key */
	r.key = TEST_SA_PATH_SM_KEY + 1;
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 0);
	/* trusted: the record */
	r.key = TEST_SA_PATH_SM_KEY;
	CU_ASSERT_EQUAL_FATAL(test_sa_path_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.pkey, 0x8010);
	/* untrusted again: either end may ask, and a limited member (s1) */
	r.key = 0;
	r.asker = (struct sa_port_ref){ r.h2, 1 };
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 1);
	r.asker = (struct sa_port_ref){ r.h3, 1 };
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 1);
	r.asker = (struct sa_port_ref){ r.s1, 0 };
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 1);
	/* a requester the SA does not know is a member of nothing */
	r.asker = (struct sa_port_ref){ FABRIC_NONE, 0 };
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h2, r.l_h1, 0, NULL, &d), 0);
	/* all pairs: 9 through h1 in 0xffff, 12 in 0x0010 (h2, h3 with each
	 * other, themselves and the switches) */
	CU_ASSERT_EQUAL(test_sa_path_ask(&r, SA_METHOD_GET_TABLE, 0, &w), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 0);
	r.asker = (struct sa_port_ref){ r.h1, 1 };
	CU_ASSERT_EQUAL(test_sa_path_ask(&r, SA_METHOD_GET_TABLE, 0, &w), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 9);
	for (size_t i = 0; i < r.out.n; i++) {
		sa_path_decode(r.out.recs + i * SA_PATH_REC_SIZE, &d);
		CU_ASSERT_EQUAL(d.pkey, 0xffff);
	}
	r.asker = (struct sa_port_ref){ r.s1, 0 };
	CU_ASSERT_EQUAL(test_sa_path_ask(&r, SA_METHOD_GET_TABLE, 0, &w), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 21);
	r.asker = (struct sa_port_ref){ r.h1, 1 };
	r.key = TEST_SA_PATH_SM_KEY;
	CU_ASSERT_EQUAL(test_sa_path_ask(&r, SA_METHOD_GET_TABLE, 0, &w), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 21);
	test_sa_path_view(&r, 3);
	pkey_plan_fini(&pp);
	test_sa_path_rig_fini(&r);
}

/* The ends share two partitions, the requester is in one: the path is
 * answered in that one.  0x7fff holds h2 and h3 only (a rule for it:
 * nobody else is in the default partition), 0x0010 holds h1, h2, h3. */
static void test_sa_path_requester_pkey(void)
{
	struct test_sa_path_rig r;
	struct policy_member m[3];
	struct policy_partition parts[2];
	struct pkey_plan pp;
	struct sa_path_rec w, d;
	char err[256];

	test_sa_path_rig_init(&r);
	memset(parts, 0, sizeof(parts));
	m[0] = (struct policy_member){.kind = POLICY_MEMBER_GUID,
				      .guid = r.f.nodes[r.h2].ports[1].guid,
				      .membership = POLICY_FULL};
	m[1] = (struct policy_member){.kind = POLICY_MEMBER_GUID,
				      .guid = r.f.nodes[r.h3].ports[1].guid,
				      .membership = POLICY_FULL};
	m[2] = (struct policy_member){.kind = POLICY_MEMBER_GUID,
				      .guid = r.f.nodes[r.h1].ports[1].guid,
				      .membership = POLICY_FULL};
	strcpy(parts[0].name, "default");
	parts[0].pkey = 0x7fff;
	parts[0].members = m;
	parts[0].n_members = 2;
	strcpy(parts[1].name, "p");
	parts[1].pkey = 0x0010;
	parts[1].members = m;
	parts[1].n_members = 3;
	pkey_plan_init(&pp);
	CU_ASSERT_EQUAL_FATAL(
	    pkey_plan_build(&pp, parts, 2, NULL, 0, &r.f, r.h1, 1, err, sizeof(err)), 0);
	test_sa_path_view_pk(&r, 2, &pp);
	CU_ASSERT_EQUAL(pkey_plan_member(&pp, r.h1, 1, 0x7fff), 0);
	/* an end asks: the default partition, preferred */
	r.asker = (struct sa_port_ref){ r.h2, 1 };
	CU_ASSERT_EQUAL_FATAL(test_sa_path_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.pkey, 0xffff);
	/* h1 asks: 0x0010, the one it is in */
	r.asker = (struct sa_port_ref){ r.h1, 1 };
	CU_ASSERT_EQUAL_FATAL(test_sa_path_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.pkey, 0x8010);
	memset(&w, 0, sizeof(w));
	w.pkey = 0xffff;
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h2, r.l_h3, SA_PR_CM(SA_PR_PKEY), &w, &d), 0);
	/* trusted: the ends' own choice */
	r.key = TEST_SA_PATH_SM_KEY;
	CU_ASSERT_EQUAL_FATAL(test_sa_path_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.pkey, 0xffff);
	test_sa_path_view(&r, 3);
	pkey_plan_fini(&pp);
	test_sa_path_rig_fini(&r);
}

/* Random templates and masks: every answer is a known status, records are
 * whole, nothing reads outside the fabric (run under valgrind/ASan). */
static void test_sa_path_hostile(void)
{
	struct test_sa_path_rig r;
	struct sa_path_rec w;
	uint8_t raw[SA_PATH_REC_SIZE];
	uint32_t x = 12345;
	int bad = 0;

	test_sa_path_rig_init(&r);
	for (int i = 0; i < 2000; i++) {
		uint64_t mask = 0;
		uint16_t st;

		for (size_t b = 0; b < sizeof(raw); b++) {
			x = x * 1103515245u + 12345u;
			raw[b] = (uint8_t)(x >> 16);
		}
		for (int b = 0; b < SA_PR_N_COMP; b++) {
			x = x * 1103515245u + 12345u;
			mask |= (uint64_t)((x >> 20) & 1) << b;
		}
		sa_path_decode(raw, &w);
		w.slid = (uint16_t)(w.slid % 8); /* sometimes a real LID */
		if (i & 1)
			w.dlid = (uint16_t)(w.dlid % 8);
		st = test_sa_path_ask(&r, (i & 2) ? SA_METHOD_GET : SA_METHOD_GET_TABLE, mask, &w);
		bad += st != SA_STATUS_OK && st != SA_STATUS_INSUF_COMPS &&
		       st != SA_STATUS_INVALID_GID;
		bad += r.out.n > 25;
	}
	CU_ASSERT_EQUAL(bad, 0);
	test_sa_path_rig_fini(&r);
}

/* ---- MultiPathRecord --------------------------------------------------------- */

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
static uint16_t test_sa_mpath_ask(struct test_sa_path_rig *r, uint8_t method, uint64_t mask,
				  struct sa_mpath_req *mp, const int *srcs, int n_src,
				  const int *dsts, int n_dst)
{
	struct sa_mad m = { 0 };
	struct sa_req req = { &m, { 1, 0, 1 }, r->asker, 0 };

	m.base_version = 1;
	m.mgmt_class = SA_CLASS;
	m.class_version = SA_CLASS_VERSION;
	m.method = method;
	m.sm_key = r->key;
	m.attr_id = SA_ATTR_MULTIPATH_RECORD;
	m.comp_mask = mask | SA_MPR_CM(SA_MPR_SGID_COUNT) | SA_MPR_CM(SA_MPR_DGID_COUNT);
	mp->sgid_count = (uint8_t)n_src;
	mp->dgid_count = (uint8_t)n_dst;
	for (int i = 0; i < n_src + n_dst && i < SA_MPATH_GIDS_MAX; i++) {
		int node = i < n_src ? srcs[i] : dsts[i - n_src];

		sa_port_gid(r->sa, (struct sa_port_ref){ node, 1 }, mp->gid[i]);
	}
	sa_mpath_encode(mp, m.data);
	free(r->out.recs);
	memset(&r->out, 0, sizeof(r->out));
	return sa_mpath_handle(r->sa, &req, &r->out);
}

static void test_sa_mpath_rec(const struct test_sa_path_rig *r, size_t i, struct sa_path_rec *d)
{
	sa_path_decode(r->out.recs + i * SA_PATH_REC_SIZE, d);
}

static void test_sa_mpath_pairs(void)
{
	struct test_sa_path_rig r;
	struct sa_mpath_req mp;
	struct sa_path_rec d;
	int h1[1], h23[2], all[3];

	test_sa_path_rig_init(&r);
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
	test_sa_path_rig_fini(&r);
}

/* The PathRecord constraints of the template apply to every pair. */
static void test_sa_mpath_constraints(void)
{
	struct test_sa_path_rig r;
	struct sa_mpath_req mp;
	struct sa_path_rec d;
	int h1[1], h23[2];

	test_sa_path_rig_init(&r);
	h1[0] = r.h1;
	h23[0] = r.h2;
	h23[1] = r.h3;
	/* s1 - s2 carries 1024 bytes only: MTU exactly 2048 leaves h1 -> h2 */
	r.f.nodes[r.s1].ports[3].mtu_cap = 3;
	test_sa_path_view(&r, 2);
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
	test_sa_path_view(&r, 3);
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
	test_sa_path_rig_fini(&r);
}

/* The SL of a path is the one the routing engine gave its DLID (the LFT
 * set's sl[]): PathRecord Get and GetTable, MultiPathRecord and the SL
 * component all answer it, and a view with other SLs (a new route_gen)
 * answers the new ones. */
static void test_sa_path_sl(void)
{
	struct test_sa_path_rig r;
	struct sa_mpath_req mp;
	struct sa_path_rec w, d;
	int h1[1], h23[2];

	test_sa_path_rig_init(&r);
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc_sl(&r.lfts, r.l_h3 > r.l_s2 ? r.l_h3 : r.l_s2), 0);
	r.lfts.sl[r.l_h3] = 1;
	r.lfts.n_vls = 2;
	test_sa_path_view(&r, 2);
	CU_ASSERT_EQUAL_FATAL(test_sa_path_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.sl, 1);
	CU_ASSERT_EQUAL_FATAL(test_sa_path_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.sl, 1);
	CU_ASSERT_EQUAL_FATAL(test_sa_path_get(&r, r.l_h3, r.l_h1, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.sl, 0); /* the way back goes to h1: SL 0 */
	/* SL as a component: only the path's own */
	memset(&w, 0, sizeof(w));
	w.sl = 0;
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, r.l_h3, SA_PR_CM(SA_PR_SL), &w, &d), 0);
	w.sl = 1;
	CU_ASSERT_EQUAL(test_sa_path_get(&r, r.l_h1, r.l_h3, SA_PR_CM(SA_PR_SL), &w, &d), 1);
	/* GetTable from h1: h3's record on SL 1, the others on SL 0 */
	memset(&w, 0, sizeof(w));
	w.slid = r.l_h1;
	CU_ASSERT_EQUAL(test_sa_path_ask(&r, SA_METHOD_GET_TABLE, SA_PR_CM(SA_PR_SLID), &w),
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
	test_sa_path_view(&r, 3);
	CU_ASSERT_EQUAL_FATAL(test_sa_path_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.sl, 0);
	CU_ASSERT_EQUAL_FATAL(test_sa_path_get(&r, r.l_h1, r.l_h2, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.sl, 2);
	test_sa_path_rig_fini(&r);
}

/* Partition 0x0010 holds h1 and h2; h3 is a limited member of 0x7fff like
 * h2, so h2 - h3 share no partition and that pair gives no record. */
static void test_sa_mpath_partitions(void)
{
	struct test_sa_path_rig r;
	struct policy_member m[2];
	struct policy_partition part;
	struct pkey_plan pp;
	struct sa_mpath_req mp;
	struct sa_path_rec d;
	char err[256];
	int h2[1], h13[2];

	test_sa_path_rig_init(&r);
	memset(m, 0, sizeof(m));
	memset(&part, 0, sizeof(part));
	m[0] = (struct policy_member){.kind = POLICY_MEMBER_GUID,
				      .guid = r.f.nodes[r.h1].ports[1].guid,
				      .membership = POLICY_FULL};
	m[1] = (struct policy_member){.kind = POLICY_MEMBER_GUID,
				      .guid = r.f.nodes[r.h2].ports[1].guid,
				      .membership = POLICY_FULL};
	strcpy(part.name, "p");
	part.pkey = 0x0010;
	part.members = m;
	part.n_members = 2;
	pkey_plan_init(&pp);
	CU_ASSERT_EQUAL_FATAL(
	    pkey_plan_build(&pp, &part, 1, NULL, 0, &r.f, r.h1, 1, err, sizeof(err)), 0);
	test_sa_path_view_pk(&r, 2, &pp);
	r.key = TEST_SA_PATH_SM_KEY; /* what the ends share, whoever asks */
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
	test_sa_path_view(&r, 3);
	pkey_plan_fini(&pp);
	test_sa_path_rig_fini(&r);
}

/* GetMulti follows the requester's partitions like PathRecord: h1 asks
 * for h2 -> {h3, h1}; h2 -> h3 is in 0x0010, which h1 is not in. */
static void test_sa_mpath_requester(void)
{
	struct test_sa_path_rig r;
	struct pkey_plan pp;
	struct sa_mpath_req mp;
	struct sa_path_rec d;
	int h2[1], h31[2];

	test_sa_path_rig_init(&r);
	test_sa_path_plan_p10(&r, &pp);
	h2[0] = r.h2;
	h31[0] = r.h3;
	h31[1] = r.h1;
	memset(&mp, 0, sizeof(mp));
	r.asker = (struct sa_port_ref){ r.h1, 1 };
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, 0, &mp, h2, 1, h31, 2), 0);
	CU_ASSERT_EQUAL_FATAL(r.out.n, 1);
	test_sa_mpath_rec(&r, 0, &d);
	CU_ASSERT_EQUAL(d.dlid, r.l_h1);
	r.key = TEST_SA_PATH_SM_KEY;
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, 0, &mp, h2, 1, h31, 2), 0);
	CU_ASSERT_EQUAL_FATAL(r.out.n, 2);
	test_sa_mpath_rec(&r, 0, &d);
	CU_ASSERT_EQUAL(d.dlid, r.l_h3);
	CU_ASSERT_EQUAL(d.pkey, 0x8010);
	r.key = 0;
	r.asker = (struct sa_port_ref){ r.h2, 1 };
	CU_ASSERT_EQUAL(test_sa_mpath_ask(&r, SA_METHOD_GET_MULTI, 0, &mp, h2, 1, h31, 2), 0);
	CU_ASSERT_EQUAL(r.out.n, 2);
	test_sa_path_view(&r, 3);
	pkey_plan_fini(&pp);
	test_sa_path_rig_fini(&r);
}

/* GetMulti MultiPathRecord with a raw template. */
static uint16_t test_sa_mpath_raw(struct test_sa_path_rig *r, uint64_t mask, const uint8_t *data)
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
	struct test_sa_path_rig r;
	struct sa_mpath_req mp;
	uint8_t data[SA_DATA_SIZE] = { 0 };
	uint64_t both = SA_MPR_CM(SA_MPR_SGID_COUNT) | SA_MPR_CM(SA_MPR_DGID_COUNT);
	int six[6];

	test_sa_path_rig_init(&r);
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
	test_sa_path_rig_fini(&r);
}

void test_sa_path_register(void)
{
	CU_pSuite s = CU_add_suite("sa_path", NULL, NULL);

	CU_add_test(s, "record bytes and libibmad fields", test_sa_path_codec);
	CU_add_test(s, "rates from width x speed", test_sa_path_rates);
	CU_add_test(s, "MTU and lifetime selectors", test_sa_path_selectors);
	CU_add_test(s, "walk: hops, MTU, rate, lifetime", test_sa_path_facts_walk);
	CU_add_test(s, "dropped, looping, unknown LIDs", test_sa_path_dropped);
	CU_add_test(s, "selectors, SL, P_Key in queries", test_sa_path_select_query);
	CU_add_test(s, "Get rules, GIDs", test_sa_path_requests);
	CU_add_test(s, "GetTable one source and all", test_sa_path_tables);
	CU_add_test(s, "cache hits and flush", test_sa_path_cache);
	CU_add_test(s, "partitions", test_sa_path_partitions);
	CU_add_test(s, "requester in the path's partition or trusted", test_sa_path_requester);
	CU_add_test(s, "P_Key chosen among the requester's", test_sa_path_requester_pkey);
	CU_add_test(s, "random requests", test_sa_path_hostile);
	CU_add_test(s, "MultiPathRecord bytes and counts", test_sa_mpath_codec);
	CU_add_test(s, "GetMulti: SGID x DGID pairs, NumbPath", test_sa_mpath_pairs);
	CU_add_test(s, "GetMulti: selectors, SL, Reversible", test_sa_mpath_constraints);
	CU_add_test(s, "GetMulti: pairs without a partition", test_sa_mpath_partitions);
	CU_add_test(s, "SL of the path from the routes' sl[]", test_sa_path_sl);
	CU_add_test(s, "GetMulti: requester's partitions", test_sa_mpath_requester);
	CU_add_test(s, "GetMulti: counts, GIDs, methods", test_sa_mpath_errors);
}
