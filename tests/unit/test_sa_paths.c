/*
 * test_sa_paths.c - the PathRecord handler (sm/sa/paths.c) over the rig of
 * sa_path_test.c: what a walk finds, dropped and looping paths, selectors in
 * queries, Get and GetTable, the cache, partitions and the requester's,
 * random requests.  Part of suite sa_path (test_sa_path.c).
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "config/pkey.h"
#include "mad/sa_path.h"
#include "sm/sa/paths.h"
#include "sm/sa/server.h"
#include "tests/unit/sa_path_test.h"

static void test_sa_path_facts_walk(void)
{
	struct sa_path_test_rig r;
	struct sa_path_fact pf;
	struct sa_path_rec d;

	sa_path_test_rig_init(&r);
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
	CU_ASSERT_EQUAL_FATAL(sa_path_test_get(&r, r.l_h1, r.l_h2, 0, NULL, &d), 1);
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
	CU_ASSERT_EQUAL_FATAL(sa_path_test_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.mtu, 3);
	CU_ASSERT_EQUAL(d.rate, 2);
	CU_ASSERT_EQUAL(d.life, 19);
	sa_path_test_rig_fini(&r);
}

static void test_sa_path_dropped(void)
{
	struct sa_path_test_rig r;
	struct sa_path_rec d;
	struct lft *t;

	sa_path_test_rig_init(&r);
	t = lft_set_find(&r.lfts, r.s1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	t->port[r.l_h3] = LFT_DROP;
	sa_path_test_view(&r, 2);
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 0);
	/* the way back still works, but is not reversible */
	CU_ASSERT_EQUAL_FATAL(sa_path_test_get(&r, r.l_h3, r.l_h1, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.reversible, 0);
	d.reversible = 1;
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h3, r.l_h1, SA_PR_CM(SA_PR_REVERSIBLE), &d, &d),
			0);
	/* a loop between the switches */
	t->port[r.l_h3] = 3;
	lft_set_find(&r.lfts, r.s2)->port[r.l_h3] = 3;
	sa_path_test_view(&r, 3);
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 0);
	/* garbage out port */
	t->port[r.l_h3] = 200;
	sa_path_test_view(&r, 4);
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 0);
	/* LIDs nobody owns, multicast, permissive */
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, 0, 0, NULL, &d), 0);
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, 0xc000, 0, NULL, &d), 0);
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, 0xffff, 0, NULL, &d), 0);
	CU_ASSERT_EQUAL(sa_path_test_get(&r, 0x9999, r.l_h1, 0, NULL, &d), 0);
	sa_path_test_rig_fini(&r);
}

static void test_sa_path_select_query(void)
{
	struct sa_path_test_rig r;
	struct sa_path_rec w, d;
	const uint64_t mtu = SA_PR_CM(SA_PR_MTU) | SA_PR_CM(SA_PR_MTU_SELECTOR);

	sa_path_test_rig_init(&r);
	memset(&w, 0, sizeof(w));
	w.mtu_sel = SA_SEL_GREATER;
	w.mtu = 5; /* > 4096: impossible */
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, r.l_h2, mtu, &w, &d), 0);
	w.mtu_sel = SA_SEL_LESS;
	w.mtu = 4; /* < 2048 */
	CU_ASSERT_EQUAL_FATAL(sa_path_test_get(&r, r.l_h1, r.l_h2, mtu, &w, &d), 1);
	CU_ASSERT_EQUAL(d.mtu, 3);
	CU_ASSERT_EQUAL(d.mtu_sel, SA_SEL_EXACT);
	w.mtu_sel = SA_SEL_EXACT;
	w.mtu = 2;
	CU_ASSERT_EQUAL_FATAL(sa_path_test_get(&r, r.l_h1, r.l_h2, mtu, &w, &d), 1);
	CU_ASSERT_EQUAL(d.mtu, 2);
	w.mtu = 5; /* exactly 4096 on a 2048 path */
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, r.l_h2, mtu, &w, &d), 0);
	/* MTU without a selector means exactly */
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, r.l_h2, SA_PR_CM(SA_PR_MTU), &w, &d), 0);
	/* rate: greater than 10 Gb/s on a 4x SDR path */
	w.rate_sel = SA_SEL_GREATER;
	w.rate = 3;
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, r.l_h2,
					 SA_PR_CM(SA_PR_RATE) | SA_PR_CM(SA_PR_RATE_SELECTOR), &w,
					 &d),
			0);
	/* SL 1 does not exist; SL 0 does */
	w.sl = 1;
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, r.l_h2, SA_PR_CM(SA_PR_SL), &w, &d), 0);
	w.sl = 0;
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, r.l_h2, SA_PR_CM(SA_PR_SL), &w, &d), 1);
	/* P_Key: the default partition only */
	w.pkey = 0x7fff;
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, r.l_h2, SA_PR_CM(SA_PR_PKEY), &w, &d), 1);
	w.pkey = 0x8001;
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, r.l_h2, SA_PR_CM(SA_PR_PKEY), &w, &d), 0);
	/* echoed: ServiceID, TClass */
	w.service_id = 0x1122334455667788ull;
	w.tclass = 0x40;
	CU_ASSERT_EQUAL_FATAL(sa_path_test_get(&r, r.l_h1, r.l_h2,
					       SA_PR_CM(SA_PR_SERVICE_ID_HI) |
						   SA_PR_CM(SA_PR_SERVICE_ID_LO) |
						   SA_PR_CM(SA_PR_TCLASS),
					       &w, &d),
			      1);
	CU_ASSERT_EQUAL(d.service_id, 0x1122334455667788ull);
	CU_ASSERT_EQUAL(d.tclass, 0x40);
	sa_path_test_rig_fini(&r);
}

static void test_sa_path_requests(void)
{
	struct sa_path_test_rig r;
	struct sa_path_rec w, d;
	const struct fabric_port *h2 = NULL;

	sa_path_test_rig_init(&r);
	memset(&w, 0, sizeof(w));
	w.slid = r.l_h1;
	CU_ASSERT_EQUAL(sa_path_test_ask(&r, SA_METHOD_GET, SA_PR_CM(SA_PR_SLID), &w),
			SA_STATUS_INSUF_COMPS);
	CU_ASSERT_EQUAL(sa_path_test_ask(&r, SA_METHOD_SET, SA_PR_CM(SA_PR_SLID), &w),
			SA_STATUS_BAD_METHOD_ATTR);
	CU_ASSERT_EQUAL(sa_path_test_ask(&r, SA_METHOD_GET_TABLE, 1ull << 40, &w),
			SA_STATUS_REQ_INVALID);
	/* GIDs: one of this subnet, one of another */
	h2 = &r.f.nodes[r.h2].ports[1];
	sa_gid_make(0xfe80000000000000ull, h2->guid, w.dgid);
	CU_ASSERT_EQUAL_FATAL(sa_path_test_get(&r, r.l_h1, 0, SA_PR_CM(SA_PR_DGID), &w, &d), 0);
	w.dlid = r.l_h2;
	CU_ASSERT_EQUAL(
	    sa_path_test_ask(&r, SA_METHOD_GET, SA_PR_CM(SA_PR_SLID) | SA_PR_CM(SA_PR_DGID), &w),
	    SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(r.out.n, 1);
	sa_path_decode(r.out.recs, &d);
	CU_ASSERT_EQUAL(d.dlid, r.l_h2);
	w.dgid[0] = 0x20; /* another subnet */
	CU_ASSERT_EQUAL(
	    sa_path_test_ask(&r, SA_METHOD_GET, SA_PR_CM(SA_PR_SLID) | SA_PR_CM(SA_PR_DGID), &w),
	    SA_STATUS_INVALID_GID);
	CU_ASSERT_EQUAL(sa_path_test_ask(&r, SA_METHOD_GET_TABLE, SA_PR_CM(SA_PR_DGID), &w),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 0);
	/* DGID and DLID naming different ports */
	sa_gid_make(0xfe80000000000000ull, h2->guid, w.dgid);
	w.dlid = r.l_h3;
	CU_ASSERT_EQUAL(sa_path_test_ask(
			    &r, SA_METHOD_GET,
			    SA_PR_CM(SA_PR_SLID) | SA_PR_CM(SA_PR_DGID) | SA_PR_CM(SA_PR_DLID), &w),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 0);
	sa_path_test_rig_fini(&r);
}

static void test_sa_path_tables(void)
{
	struct sa_path_test_rig r;
	struct sa_path_rec w, d;
	unsigned seen = 0;

	sa_path_test_rig_init(&r);
	memset(&w, 0, sizeof(w));
	w.slid = r.l_h1;
	CU_ASSERT_EQUAL(sa_path_test_ask(&r, SA_METHOD_GET_TABLE, SA_PR_CM(SA_PR_SLID), &w),
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
	CU_ASSERT_EQUAL(sa_path_test_ask(&r, SA_METHOD_GET_TABLE, SA_PR_CM(SA_PR_DLID), &w),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 5);
	/* all pairs */
	CU_ASSERT_EQUAL(sa_path_test_ask(&r, SA_METHOD_GET_TABLE, 0, &w), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 25);
	sa_path_test_rig_fini(&r);
}

static void test_sa_path_cache(void)
{
	struct sa_path_test_rig r;
	struct sa_path_rec d;
	struct sa_counters *c;

	sa_path_test_rig_init(&r);
	c = &r.sa->counters;
	c->path_queries = c->path_cache_hits = 0;
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(c->path_queries, 2); /* there and back */
	CU_ASSERT_EQUAL(c->path_cache_hits, 0);
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(c->path_queries, 4);
	CU_ASSERT_EQUAL(c->path_cache_hits, 2);
	sa_paths_flush(r.sa->paths);
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(c->path_cache_hits, 2);
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(c->path_cache_hits, 4);
	/* new routes: the cache notices the generation even without a flush */
	lft_set_find(&r.lfts, r.s1)->port[r.l_h3] = LFT_DROP;
	r.sa->v.route_gen = 7;
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 0);
	CU_ASSERT_EQUAL(c->path_cache_hits, 4);
	/* a cached unreachable path stays unreachable */
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, r.l_h3, 0, NULL, &d), 0);
	CU_ASSERT_EQUAL(c->path_cache_hits, 5);
	sa_path_test_rig_fini(&r);
}

/* Partition 0x0010 holds h1 and h2 (full); everyone else is a limited
 * member of 0x7fff, the SM's port (h1) a full one. */
static void test_sa_path_partitions(void)
{
	struct sa_path_test_rig r;
	struct pkey_plan pp;
	struct sa_path_rec w, d;

	sa_path_test_rig_init(&r);
	sa_path_test_plan_h1h2(&r, &pp);
	/* what the ends share, asked by a trusted requester (the requester's
	 * own partitions: test_sa_path_requester) */
	r.key = SA_PATH_TEST_SM_KEY;
	/* h2 - h3: limited + limited in 0x7fff, nothing else shared */
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 0);
	/* h1 - h3: the default partition, h1 full */
	CU_ASSERT_EQUAL_FATAL(sa_path_test_get(&r, r.l_h3, r.l_h1, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(PKEY_BASE(d.pkey), 0x7fff);
	/* h1 - h2 in 0x0010 when asked for it, not in 0x0020 */
	memset(&w, 0, sizeof(w));
	w.pkey = 0x0010;
	CU_ASSERT_EQUAL_FATAL(sa_path_test_get(&r, r.l_h1, r.l_h2, SA_PR_CM(SA_PR_PKEY), &w, &d),
			      1);
	CU_ASSERT_EQUAL(d.pkey, 0x8010);
	w.pkey = 0x0020;
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h1, r.l_h2, SA_PR_CM(SA_PR_PKEY), &w, &d), 0);
	/* from h2: itself (0x0010) and h1; not h3 nor the switches */
	w.slid = r.l_h2;
	CU_ASSERT_EQUAL(sa_path_test_ask(&r, SA_METHOD_GET_TABLE, SA_PR_CM(SA_PR_SLID), &w),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 2);
	sa_path_test_view(&r, 3);
	pkey_plan_fini(&pp);
	sa_path_test_rig_fini(&r);
}

/* The requester must be a member of the path's partition (full or
 * limited) unless trusted: h1 asks for h2 -> h3, a path in 0x0010, which
 * h1 is not in. */
static void test_sa_path_requester(void)
{
	struct sa_path_test_rig r;
	struct pkey_plan pp;
	struct sa_path_rec w, d;

	sa_path_test_rig_init(&r);
	sa_path_test_plan_p10(&r, &pp);
	memset(&w, 0, sizeof(w));
	r.asker = (struct sa_port_ref){ r.h1, 1 };
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 0);
	w.pkey = 0x8010;
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h2, r.l_h3, SA_PR_CM(SA_PR_PKEY), &w, &d), 0);
	/* h1 sees the paths of the default partition it is in */
	CU_ASSERT_EQUAL_FATAL(sa_path_test_get(&r, r.l_h2, r.l_h1, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.pkey, 0xffff);
	/* a wrong SM_Key is no SM_Key */
	r.key = SA_PATH_TEST_SM_KEY + 1;
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 0);
	/* trusted: the record */
	r.key = SA_PATH_TEST_SM_KEY;
	CU_ASSERT_EQUAL_FATAL(sa_path_test_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.pkey, 0x8010);
	/* untrusted again: either end may ask, and a limited member (s1) */
	r.key = 0;
	r.asker = (struct sa_port_ref){ r.h2, 1 };
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 1);
	r.asker = (struct sa_port_ref){ r.h3, 1 };
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 1);
	r.asker = (struct sa_port_ref){ r.s1, 0 };
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 1);
	/* a requester the SA does not know is a member of nothing */
	r.asker = (struct sa_port_ref){ FABRIC_NONE, 0 };
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h2, r.l_h1, 0, NULL, &d), 0);
	/* all pairs: 9 through h1 in 0xffff, 12 in 0x0010 (h2, h3 with each
	 * other, themselves and the switches) */
	CU_ASSERT_EQUAL(sa_path_test_ask(&r, SA_METHOD_GET_TABLE, 0, &w), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 0);
	r.asker = (struct sa_port_ref){ r.h1, 1 };
	CU_ASSERT_EQUAL(sa_path_test_ask(&r, SA_METHOD_GET_TABLE, 0, &w), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 9);
	for (size_t i = 0; i < r.out.n; i++) {
		sa_path_decode(r.out.recs + i * SA_PATH_REC_SIZE, &d);
		CU_ASSERT_EQUAL(d.pkey, 0xffff);
	}
	r.asker = (struct sa_port_ref){ r.s1, 0 };
	CU_ASSERT_EQUAL(sa_path_test_ask(&r, SA_METHOD_GET_TABLE, 0, &w), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 21);
	r.asker = (struct sa_port_ref){ r.h1, 1 };
	r.key = SA_PATH_TEST_SM_KEY;
	CU_ASSERT_EQUAL(sa_path_test_ask(&r, SA_METHOD_GET_TABLE, 0, &w), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 21);
	sa_path_test_view(&r, 3);
	pkey_plan_fini(&pp);
	sa_path_test_rig_fini(&r);
}

/* The ends share two partitions, the requester is in one: the path is
 * answered in that one.  0x7fff holds h2 and h3 only (a rule for it:
 * nobody else is in the default partition), 0x0010 holds h1, h2, h3. */
static void test_sa_path_requester_pkey(void)
{
	struct sa_path_test_rig r;
	struct policy_member m[3];
	struct policy_partition parts[2];
	struct pkey_plan pp;
	struct sa_path_rec w, d;
	char err[256];

	sa_path_test_rig_init(&r);
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
	sa_path_test_view_pk(&r, 2, &pp);
	CU_ASSERT_EQUAL(pkey_plan_member(&pp, r.h1, 1, 0x7fff), 0);
	/* an end asks: the default partition, preferred */
	r.asker = (struct sa_port_ref){ r.h2, 1 };
	CU_ASSERT_EQUAL_FATAL(sa_path_test_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.pkey, 0xffff);
	/* h1 asks: 0x0010, the one it is in */
	r.asker = (struct sa_port_ref){ r.h1, 1 };
	CU_ASSERT_EQUAL_FATAL(sa_path_test_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.pkey, 0x8010);
	memset(&w, 0, sizeof(w));
	w.pkey = 0xffff;
	CU_ASSERT_EQUAL(sa_path_test_get(&r, r.l_h2, r.l_h3, SA_PR_CM(SA_PR_PKEY), &w, &d), 0);
	/* trusted: the ends' own choice */
	r.key = SA_PATH_TEST_SM_KEY;
	CU_ASSERT_EQUAL_FATAL(sa_path_test_get(&r, r.l_h2, r.l_h3, 0, NULL, &d), 1);
	CU_ASSERT_EQUAL(d.pkey, 0xffff);
	sa_path_test_view(&r, 3);
	pkey_plan_fini(&pp);
	sa_path_test_rig_fini(&r);
}

/* Random templates and masks: every answer is a known status, records are
 * whole, nothing reads outside the fabric (run under valgrind/ASan). */
static void test_sa_path_hostile(void)
{
	struct sa_path_test_rig r;
	struct sa_path_rec w;
	uint8_t raw[SA_PATH_REC_SIZE];
	uint32_t x = 12345;
	int bad = 0;

	sa_path_test_rig_init(&r);
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
		st = sa_path_test_ask(&r, (i & 2) ? SA_METHOD_GET : SA_METHOD_GET_TABLE, mask, &w);
		bad += st != SA_STATUS_OK && st != SA_STATUS_INSUF_COMPS &&
		       st != SA_STATUS_INVALID_GID;
		bad += r.out.n > 25;
	}
	CU_ASSERT_EQUAL(bad, 0);
	sa_path_test_rig_fini(&r);
}

/* The tests of this file, in suite sa_path (test_sa_path.c). */
void test_sa_paths_add(CU_pSuite s)
{
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
}
