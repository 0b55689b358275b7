/*
 * test_mcast.c - multicast: the MCMemberRecord codec (byte offsets of IBA
 * 15.2.5.17 checked against libibmad's fields), joins, leaves and MLID
 * reuse in the group db, partition rules, pruning, hostile requests, over
 * the SA rig of mcast_test.c.  Suite mcast, which goes on with the IPoIB
 * groups of the policy (test_mcast_policy.c) and the spanning trees and
 * MFT push (test_mft.c).
 */
#include <CUnit/CUnit.h>
#include <infiniband/mad.h>
#include <stdlib.h>
#include <string.h>

#include "config/pkey.h"
#include "mad/sa_mcm.h"
#include "sm/sa/mcast.h"
#include "tests/unit/mcast_test.h"
#include "tests/unit/sm_rig.h"
#include "tests/unit/unit.h"

/* ---- codec ------------------------------------------------------------------ */

static void test_mcm_codec(void)
{
	struct sa_mcm m = {0}, d;
	uint8_t rec[SA_MCM_SIZE + 8], gid[16];

	memcpy(m.mgid, mcast_test_mgid_a, 16);
	for (int i = 0; i < 16; i++)
		m.port_gid[i] = (uint8_t)(0xa0 + i);
	m.qkey = 0x80010b1b, m.mlid = 0xc012, m.mtu_sel = 2, m.mtu = 4, m.tclass = 0x5a;
	m.pkey = 0xffff, m.rate_sel = 1, m.rate = 6, m.life_sel = 3, m.life = 0x12, m.sl = 9;
	m.flow_label = 0xfabcde12, m.hop_limit = 0x40, m.scope = 2, m.join_state = 5;
	m.proxy_join = 1;
	memset(rec, 0xee, sizeof(rec));
	sa_mcm_encode(&m, rec);
	CU_ASSERT_EQUAL(rec[0], 0xff);			    /* MGID at byte 0 */
	CU_ASSERT_EQUAL(rec[16], 0xa0);			    /* PortGID at byte 16 */
	CU_ASSERT_EQUAL(rec[32], 0x80);			    /* Q_Key at 32 */
	CU_ASSERT_EQUAL(rec[36], 0xc0);			    /* MLID at 36 */
	CU_ASSERT_EQUAL(rec[37], 0x12);
	CU_ASSERT_EQUAL(rec[38], (2 << 6) | 4);		    /* MTUSelector | MTU */
	CU_ASSERT_EQUAL(rec[39], 0x5a);			    /* TClass */
	CU_ASSERT_EQUAL(rec[42], (1 << 6) | 6);		    /* RateSelector | Rate */
	CU_ASSERT_EQUAL(rec[43], (3 << 6) | 0x12);	    /* PacketLifeTime */
	CU_ASSERT_EQUAL(rec[44], 0x9c);			    /* SL 9, FlowLabel 0xcde12 */
	CU_ASSERT_EQUAL(rec[45], 0xde);
	CU_ASSERT_EQUAL(rec[46], 0x12);
	CU_ASSERT_EQUAL(rec[47], 0x40);			    /* HopLimit */
	CU_ASSERT_EQUAL(rec[48], 0x25);			    /* Scope | JoinState */
	CU_ASSERT_EQUAL(rec[49], 0x80);			    /* ProxyJoin */
	for (int i = 50; i < SA_MCM_SIZE; i++)
		CU_ASSERT_EQUAL(rec[i], 0);		    /* reserved and padding */
	CU_ASSERT_EQUAL(rec[SA_MCM_SIZE], 0xee);	    /* nothing past the record */
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_SA_MCM_QKEY_F), 0x80010b1b);
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_SA_MCM_MLID_F), 0xc012);
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_SA_MCM_MTU_F), 4);
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_SA_MCM_RATE_F), 6);
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_SA_MCM_SL_F), 9);
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_SA_MCM_FLOW_LABEL_F), 0xcde12);
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_SA_MCM_JOIN_STATE_F), 5);
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_SA_MCM_PROXY_JOIN_F), 1);
	mad_get_array(rec, 0, IB_SA_MCM_PORTGID_F, gid);
	CU_ASSERT_EQUAL(memcmp(gid, m.port_gid, 16), 0);
	sa_mcm_decode(rec, &d);
	m.flow_label &= 0xfffff;
	CU_ASSERT_EQUAL(memcmp(&d, &m, sizeof(m)), 0);
	CU_ASSERT_EQUAL(sa_mcm_desc.size % 8, 0);
	CU_ASSERT_EQUAL(sa_comp_unknown(&sa_mcm_desc, 1ULL << SA_MCM_N_COMP), 1ULL << SA_MCM_N_COMP);
	CU_ASSERT_EQUAL(sa_comp_unknown(&sa_mcm_desc, (1ULL << SA_MCM_N_COMP) - 1), 0);
}

static void test_mcast_join_leave_reuse(void)
{
	struct mcast_test_rig r;
	uint64_t gen;

	mcast_test_init(&r);
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 1);
	CU_ASSERT_EQUAL(r.ans.mlid, 0xC000);
	CU_ASSERT_EQUAL(r.ans.qkey, 0x1234);
	CU_ASSERT_EQUAL(r.ans.join_state, SA_MCM_JOIN_FULL);
	CU_ASSERT_EQUAL(r.ans.mtu_sel, SA_SEL_EXACT);
	CU_ASSERT_EQUAL(r.ans.mtu, MCAST_DEFAULT_MTU);
	CU_ASSERT_EQUAL(memcmp(r.ans.mgid, mcast_test_mgid_a, 16), 0);
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h3", mcast_test_mgid_b, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.mlid, 0xC001);
	/* a second port joins a; h1 adds NonMember: bits accumulate */
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h2", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", mcast_test_mgid_a, SA_MCM_JOIN_NON),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.join_state, SA_MCM_JOIN_FULL | SA_MCM_JOIN_NON);
	/* leaving takes bits; the member goes with its last one */
	gen = mcast_db_gen(r.sa->mcast);
	CU_ASSERT_EQUAL(
	    mcast_test_leave(&r, "h1", mcast_test_mgid_a, SA_MCM_JOIN_FULL | SA_MCM_JOIN_NON),
	    SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.join_state, 0);
	CU_ASSERT_NOT_EQUAL(mcast_db_gen(r.sa->mcast), gen);
	CU_ASSERT_EQUAL(mcast_test_leave(&r, "h1", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(mcast_test_mlid(&r, mcast_test_mgid_a), 0xC000);
	CU_ASSERT_EQUAL(mcast_test_leave(&r, "h2", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(mcast_test_mlid(&r, mcast_test_mgid_a), 0); /* group gone */
	CU_ASSERT_EQUAL(mcast_db_count(r.sa->mcast), 1);
	/* a new group (MGID assigned by the SA) gets 0xC000 back */
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h4", NULL, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.mlid, 0xC000);
	CU_ASSERT_EQUAL(r.ans.mgid[0], 0xff);
	CU_ASSERT_EQUAL(r.ans.mgid[1], 0x12);
	mcast_test_fini(&r);
}

static void test_mcast_send_only_frees_mlid(void)
{
	struct mcast_test_rig r;

	mcast_test_init(&r);
	/* a send-only member cannot create */
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", mcast_test_mgid_a, SA_MCM_JOIN_SEND_ONLY),
			SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(mcast_db_count(r.sa->mcast), 0);
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h3", mcast_test_mgid_a, SA_MCM_JOIN_SEND_ONLY),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(mcast_test_leave(&r, "h1", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(mcast_test_mlid(&r, mcast_test_mgid_a), 0xC000); /* the sender keeps it */
	CU_ASSERT_EQUAL(mcast_test_leave(&r, "h3", mcast_test_mgid_a, SA_MCM_JOIN_SEND_ONLY),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(mcast_db_count(r.sa->mcast), 0);
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h2", mcast_test_mgid_b, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.mlid, 0xC000);
	mcast_test_fini(&r);
}

static void test_mcast_compat(void)
{
	struct mcast_test_rig r;
	struct sa_mcm t;
	uint64_t sel = SA_MCM_BIT(SA_MCM_COMP_MTU_SEL) | SA_MCM_BIT(SA_MCM_COMP_MTU);

	mcast_test_init(&r);
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	mcast_test_tmpl(&r, "h2", mcast_test_mgid_a, SA_MCM_JOIN_FULL, &t);
	t.qkey = 0x9999; /* another Q_Key */
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h2", SA_METHOD_SET, MCAST_TEST_CREATE_COMPS, &t),
			SA_STATUS_REQ_INVALID);
	mcast_test_tmpl(&r, "h2", mcast_test_mgid_a, SA_MCM_JOIN_FULL, &t);
	t.pkey = 0x7fff; /* same partition, limited: fine */
	t.mtu_sel = SA_SEL_GREATER, t.mtu = 4; /* group has 2048 (4): not greater */
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h2", SA_METHOD_SET, MCAST_TEST_JOIN_COMPS | sel, &t),
			SA_STATUS_REQ_INVALID);
	t.mtu_sel = SA_SEL_LESS, t.mtu = 5;
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h2", SA_METHOD_SET, MCAST_TEST_JOIN_COMPS | sel, &t),
			SA_STATUS_OK);
	t.mtu_sel = SA_SEL_EXACT, t.mtu = 5;
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h3", SA_METHOD_SET, MCAST_TEST_JOIN_COMPS | sel, &t),
			SA_STATUS_REQ_INVALID); /* and a proxy join by h3: refused anyway */
	mcast_test_tmpl(&r, "h3", mcast_test_mgid_a, SA_MCM_JOIN_FULL, &t);
	t.rate_sel = SA_SEL_EXACT, t.rate = 7; /* 40 Gb/s; the group has 10 */
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h3", SA_METHOD_SET,
				       MCAST_TEST_JOIN_COMPS | SA_MCM_BIT(SA_MCM_COMP_RATE_SEL) |
					   SA_MCM_BIT(SA_MCM_COMP_RATE),
				       &t),
			SA_STATUS_REQ_INVALID);
	/* missing components, a foreign GID, an unknown bit */
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h3", SA_METHOD_SET, SA_MCM_BIT(SA_MCM_COMP_MGID), &t),
			SA_STATUS_INSUF_COMPS);
	mcast_test_tmpl(&r, "h4", mcast_test_mgid_b, SA_MCM_JOIN_FULL, &t);
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h4", SA_METHOD_SET, MCAST_TEST_JOIN_COMPS, &t),
			SA_STATUS_INSUF_COMPS);
	t.port_gid[15] ^= 0x55;
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h4", SA_METHOD_SET, MCAST_TEST_CREATE_COMPS, &t),
			SA_STATUS_INVALID_GID);
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h4", SA_METHOD_SET, 1ULL << 40, &t),
			SA_STATUS_REQ_INVALID);
	/* h1 may join for another port of the partition: a proxy join */
	mcast_test_tmpl(&r, "h4", mcast_test_mgid_a, SA_MCM_JOIN_NON, &t);
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h1", SA_METHOD_SET, MCAST_TEST_JOIN_COMPS, &t),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.proxy_join, 1);
	/* GetTable of group a: h1, h2 and h4 */
	CU_ASSERT_EQUAL(
	    mcast_test_req(&r, "h2", SA_METHOD_GET_TABLE, SA_MCM_BIT(SA_MCM_COMP_MGID), &t),
	    SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 3);
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h2", SA_METHOD_GET,
				       MCAST_TEST_JOIN_COMPS & ~SA_MCM_BIT(SA_MCM_COMP_JOIN_STATE),
				       &t),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 1);
	CU_ASSERT_EQUAL(r.ans.join_state, SA_MCM_JOIN_NON);
	mcast_test_fini(&r);
}

/* The MGID a client may choose (o15-0.1.6), as osmtest probes it. */
/* A port whose link cannot carry the group's MTU may not join it. */
static void test_mcast_port_mtu(void)
{
	struct mcast_test_rig r;
	struct sa_mcm t;
	uint64_t sel = SA_MCM_BIT(SA_MCM_COMP_MTU_SEL) | SA_MCM_BIT(SA_MCM_COMP_MTU);

	mcast_test_init(&r);
	r.f.nodes[rig_node(&r.f, "h1")].ports[1].mtu_cap = 5; /* 4096 */
	r.f.nodes[rig_node(&r.f, "h2")].ports[1].mtu_cap = 4; /* 2048 */
	mcast_test_tmpl(&r, "h1", mcast_test_mgid_a, SA_MCM_JOIN_FULL, &t);
	t.mtu_sel = SA_SEL_EXACT, t.mtu = 5;
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h1", SA_METHOD_SET, MCAST_TEST_CREATE_COMPS | sel, &t),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.mtu, 5);
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h2", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_REQ_INVALID);
	r.f.nodes[rig_node(&r.f, "h2")].ports[1].mtu_cap = 5;
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h2", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	mcast_test_fini(&r);
}

/* Without the SM_Key a requester learns only its own membership: other
 * groups show as one record with a zero PortGID and JoinState. */
static void test_mcast_untrusted(void)
{
	struct mcast_test_rig r;
	struct sa_mcm t;
	static const uint8_t zero[16];

	mcast_test_init(&r);
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h2", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	memset(&t, 0, sizeof(t));
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h3", SA_METHOD_GET_TABLE, 0, &t), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 2); /* trusted: both members */
	r.sm_key = 0;
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h3", SA_METHOD_GET_TABLE, 0, &t), SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(r.out.n, 1); /* h3 is no member: the group only */
	CU_ASSERT_EQUAL(memcmp(r.ans.port_gid, zero, 16), 0);
	CU_ASSERT_EQUAL(r.ans.join_state, 0);
	CU_ASSERT_EQUAL(r.ans.mlid, 0xC000);
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h2", SA_METHOD_GET_TABLE, 0, &t), SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(r.out.n, 1); /* h2 sees its own membership */
	mcast_test_tmpl(&r, "h2", NULL, 0, &t);
	CU_ASSERT_EQUAL(memcmp(r.ans.port_gid, t.port_gid, 16), 0);
	CU_ASSERT_EQUAL(r.ans.join_state, SA_MCM_JOIN_FULL);
	r.sm_key = MCAST_TEST_SM_KEY ^ 1; /* a wrong key is no key */
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h3", SA_METHOD_GET_TABLE, 0, &t), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 1);
	mcast_test_fini(&r);
}

static void test_mcast_mgid_rules(void)
{
	static const uint8_t mgid_ll[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0,
					    0,    0,    0, 0, 0, 0, 0, 1}; /* ff02::1 */
	struct mcast_test_rig r;
	uint8_t m[16];

	mcast_test_init(&r);
	memcpy(m, mcast_test_mgid_a, 16);
	m[0] = 0xef; /* not multicast */
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", m, SA_MCM_JOIN_FULL), SA_STATUS_REQ_INVALID);
	memcpy(m, mcast_test_mgid_a, 16);
	m[1] = 0x22; /* flags 0010: a reserved flag bit */
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", m, SA_MCM_JOIN_FULL), SA_STATUS_REQ_INVALID);
	m[1] = 0x1f; /* transient, reserved scope 0xf: allowed */
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", m, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.scope, 0xf);
	m[1] = 0x12, m[2] = 0xa0, m[3] = 0x1b; /* the SA's own signature */
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", m, SA_MCM_JOIN_FULL), SA_STATUS_REQ_INVALID);
	m[1] = 0x15; /* in any scope */
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", m, SA_MCM_JOIN_FULL), SA_STATUS_REQ_INVALID);
	/* a permanent (T = 0) link-local MGID is fine */
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", mgid_ll, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	/* MGID 0: the SA assigns one with its signature, which then joins */
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", NULL, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.mgid[2], 0xa0);
	CU_ASSERT_EQUAL(r.ans.mgid[3], 0x1b);
	memcpy(m, r.ans.mgid, 16);
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h2", m, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(mcast_db_count(r.sa->mcast), 3);
	mcast_test_fini(&r);
}

/* JoinState bookkeeping as osmtest's o15-0.1.11/14 steps walk it. */
static void test_mcast_join_state_steps(void)
{
	const uint8_t F = SA_MCM_JOIN_FULL, N = SA_MCM_JOIN_NON, S = SA_MCM_JOIN_SEND_ONLY;
	struct mcast_test_rig r;

	mcast_test_init(&r);
	/* all four bits (SendOnlyFullMember too) create */
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", mcast_test_mgid_b, SA_MCM_JOIN_ALL),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.join_state, SA_MCM_JOIN_ALL);
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", mcast_test_mgid_a, F), SA_STATUS_OK);
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", mcast_test_mgid_a, N), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.join_state, F | N);
	/* leaving a bit it does not hold fails and changes nothing */
	CU_ASSERT_EQUAL(mcast_test_leave(&r, "h1", mcast_test_mgid_a, N | S),
			SA_STATUS_REQ_INVALID);
	/* the answer shows the bits kept */
	CU_ASSERT_EQUAL(mcast_test_leave(&r, "h1", mcast_test_mgid_a, N), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.join_state, F);
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", mcast_test_mgid_a, S), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.join_state, F | S);
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", mcast_test_mgid_a, N), SA_STATUS_OK);
	CU_ASSERT_EQUAL(mcast_test_leave(&r, "h1", mcast_test_mgid_a, N), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.join_state, F | S);
	/* ... none when it leaves for good */
	CU_ASSERT_EQUAL(mcast_test_leave(&r, "h1", mcast_test_mgid_a, F | S), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.join_state, 0);
	CU_ASSERT_EQUAL(mcast_test_mlid(&r, mcast_test_mgid_a), 0);
	/* the group is gone: a NonMember cannot join (nor create) it */
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", mcast_test_mgid_a, N), SA_STATUS_REQ_INVALID);
	mcast_test_fini(&r);
}

/* h1, h2 full members of 0x8001; h3 limited; h4 not in it; all full in
 * the default partition. */
static void mc_plan(struct mcast_test_rig *r)
{
	static const char *const hosts[] = {"h1", "h2", "h3", "h4"};
	static const uint16_t k8001[] = {0x8001, 0x8001, 0x0001, 0};

	for (int i = 0; i < 4; i++) {
		struct pkey_port_table *t = &r->tables[i];

		t->node = rig_node(&r->f, hosts[i]);
		t->port = 1;
		t->n = 0;
		if (k8001[i])
			t->pkey[t->n++] = k8001[i];
		t->pkey[t->n++] = 0xffff;
	}
	/* sorted by (node, port): the file order is the node order */
	r->pk.t = r->tables;
	r->pk.n = 4;
	mcast_test_update(r, 1);
}

/* Proxy joins and leaves (o15-0.2.1). */
static void test_mcast_proxy(void)
{
	static const uint8_t mgid_c[16] = {0xff, 0x12, 0x60, 0x1b, 0x80, 0x01, 0, 0,
					   0,    0,    0,    0,	   0,	 0,    0, 3};
	struct mcast_test_rig r;
	struct sa_mcm t;

	mcast_test_init(&r);
	mc_plan(&r);
	/* h2 creates group a for h1: a proxy join */
	mcast_test_tmpl(&r, "h1", mcast_test_mgid_a, SA_MCM_JOIN_FULL, &t);
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h2", SA_METHOD_SET, MCAST_TEST_CREATE_COMPS, &t),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.proxy_join, 1);
	/* any port of the partition may then leave for h1 */
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h3", SA_METHOD_DELETE, MCAST_TEST_JOIN_COMPS, &t),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(mcast_test_mlid(&r, mcast_test_mgid_a), 0);
	/* h1 joins b itself: no one else may change that membership */
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", mcast_test_mgid_b, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.proxy_join, 0);
	mcast_test_tmpl(&r, "h1", mcast_test_mgid_b, SA_MCM_JOIN_NON, &t);
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h2", SA_METHOD_SET, MCAST_TEST_JOIN_COMPS, &t),
			SA_STATUS_REQ_INVALID);
	mcast_test_tmpl(&r, "h1", mcast_test_mgid_b, SA_MCM_JOIN_FULL, &t);
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h2", SA_METHOD_DELETE, MCAST_TEST_JOIN_COMPS, &t),
			SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h1", SA_METHOD_DELETE, MCAST_TEST_JOIN_COMPS, &t),
			SA_STATUS_OK);
	/* a proxy must be in the group's partition (limited is enough) */
	mcast_test_tmpl(&r, "h1", mgid_c, SA_MCM_JOIN_FULL, &t);
	t.pkey = 0x8001;
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h1", SA_METHOD_SET, MCAST_TEST_CREATE_COMPS, &t),
			SA_STATUS_OK);
	mcast_test_tmpl(&r, "h2", mgid_c, SA_MCM_JOIN_FULL, &t);
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h4", SA_METHOD_SET, MCAST_TEST_JOIN_COMPS, &t),
			SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h3", SA_METHOD_SET, MCAST_TEST_JOIN_COMPS, &t),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.proxy_join, 1);
	mcast_test_fini(&r);
}

static void test_mcast_partitions(void)
{
	struct mcast_test_rig r;
	struct sa_mcm t;

	mcast_test_init(&r);
	/* no plan: only the default partition exists */
	mcast_test_tmpl(&r, "h1", mcast_test_mgid_a, SA_MCM_JOIN_FULL, &t);
	t.pkey = 0x8001;
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h1", SA_METHOD_SET, MCAST_TEST_CREATE_COMPS, &t),
			SA_STATUS_REQ_INVALID);
	mc_plan(&r);
	mcast_test_tmpl(&r, "h3", mcast_test_mgid_a, SA_MCM_JOIN_FULL, &t);
	t.pkey = 0x8001; /* a limited member cannot create */
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h3", SA_METHOD_SET, MCAST_TEST_CREATE_COMPS, &t),
			SA_STATUS_REQ_INVALID);
	mcast_test_tmpl(&r, "h1", mcast_test_mgid_a, SA_MCM_JOIN_FULL, &t);
	t.pkey = 0x8001;
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h1", SA_METHOD_SET, MCAST_TEST_CREATE_COMPS, &t),
			SA_STATUS_OK);
	mcast_test_tmpl(&r, "h3", mcast_test_mgid_a, SA_MCM_JOIN_FULL, &t);
	t.pkey = 0x0001; /* ... but may join */
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h3", SA_METHOD_SET, MCAST_TEST_JOIN_COMPS, &t),
			SA_STATUS_OK);
	mcast_test_tmpl(&r, "h4", mcast_test_mgid_a, SA_MCM_JOIN_FULL, &t);
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h4", SA_METHOD_SET, MCAST_TEST_JOIN_COMPS, &t),
			SA_STATUS_REQ_INVALID);
	/* h4 does not see the group */
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h4", SA_METHOD_GET_TABLE, 0, &t), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 0);
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h2", SA_METHOD_GET_TABLE, 0, &t), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 2);
	mcast_test_fini(&r);
}

static void test_mcast_policy_groups(void)
{
	static const uint8_t bcast[16] = {0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
					   0,	 0,    0,    0,	   0xff, 0xff, 0xff, 0xff};
	struct policy_partition parts[2] = {{.pkey = 0x0001, .ipoib = 1, .mtu = 4096},
					    {.pkey = 0x0002, .ipoib = 0}};
	struct mcast_group_info gi;
	struct mcast_test_rig r;
	uint8_t mgid[16];

	mcast_test_init(&r);
	CU_ASSERT_EQUAL(mcast_db_set_partitions(r.sa->mcast, NULL, 0, NULL, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(mcast_db_find(r.sa->mcast, bcast, &gi), 0);
	CU_ASSERT_EQUAL(gi.mlid, 0xC000);
	CU_ASSERT_EQUAL(gi.qkey, 0x0b1b);
	CU_ASSERT_EQUAL(gi.pkey, 0xffff);
	CU_ASSERT_EQUAL(gi.mtu, 4);
	CU_ASSERT_EQUAL(gi.rate, 3);
	CU_ASSERT_TRUE(gi.policy);
	/* join and leave: a policy group stays, with its MLID */
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h2", bcast, SA_MCM_JOIN_FULL), SA_STATUS_REQ_INVALID);
	{
		struct sa_mcm t;

		mcast_test_tmpl(&r, "h2", bcast, SA_MCM_JOIN_FULL, &t);
		CU_ASSERT_EQUAL(mcast_test_req(&r, "h2", SA_METHOD_SET, MCAST_TEST_JOIN_COMPS, &t),
				SA_STATUS_OK);
		CU_ASSERT_EQUAL(r.ans.qkey, 0x0b1b);
		CU_ASSERT_EQUAL(
		    mcast_test_req(&r, "h2", SA_METHOD_DELETE, MCAST_TEST_JOIN_COMPS, &t),
		    SA_STATUS_OK);
	}
	CU_ASSERT_EQUAL(mcast_test_mlid(&r, bcast), 0xC000);
	/* the policy names a partition with ipoib: the default group goes */
	CU_ASSERT_EQUAL(mcast_db_set_partitions(r.sa->mcast, parts, 2, NULL, NULL), 0);
	CU_ASSERT_EQUAL(mcast_db_count(r.sa->mcast), 1);
	memcpy(mgid, bcast, 16);
	mgid[4] = 0x80, mgid[5] = 0x01;
	CU_ASSERT_EQUAL_FATAL(mcast_db_find(r.sa->mcast, mgid, &gi), 0);
	CU_ASSERT_EQUAL(gi.mlid, 0xC000);
	CU_ASSERT_EQUAL(gi.pkey, 0x8001);
	CU_ASSERT_EQUAL(gi.mtu, 5);
	mcast_test_fini(&r);
}

static void test_mcast_prune(void)
{
	struct mcast_test_rig r;
	int h3;

	mcast_test_init(&r);
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h3", mcast_test_mgid_b, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	h3 = rig_node(&r.f, "h3");
	r.f.nodes[h3].ports[1].guid ^= 0x5a5a; /* h3's port left, another came */
	mcast_test_update(&r, 0);
	mcast_db_prune(r.sa);
	CU_ASSERT_EQUAL(mcast_db_count(r.sa->mcast), 1);
	CU_ASSERT_EQUAL(mcast_test_mlid(&r, mcast_test_mgid_b), 0);
	CU_ASSERT_EQUAL(mcast_test_mlid(&r, mcast_test_mgid_a), 0xC000);
	mcast_test_fini(&r);
}

/* Hostile requests: random methods, masks and bytes from random ports
 * (some unknown) never crash, and the db keeps one MLID per group. */
static void test_mcast_fuzz(void)
{
	static const char *const hosts[] = {"h1", "h2", "h3", "h4"};
	struct mcast_test_rig r;
	uint32_t x = 12345;

	mcast_test_init(&r);
	for (int i = 0; i < 3000; i++) {
		struct sa_mad mad = {0};
		struct sa_req req = {.mad = &mad};
		struct sa_mcm t;

		x = x * 1103515245u + 12345u;
		mad.method = (uint8_t[]){SA_METHOD_GET, SA_METHOD_SET, SA_METHOD_DELETE,
					 SA_METHOD_GET_TABLE, 0x7f}[(x >> 8) % 5];
		mad.comp_mask = (x & 1) ? MCAST_TEST_CREATE_COMPS : ((uint64_t)x << 20 | x);
		mcast_test_tmpl(&r, hosts[(x >> 4) % 4], (x & 2) ? mcast_test_mgid_a : NULL,
				(uint8_t)((x >> 12) & 0xf), &t);
		sa_mcm_encode(&t, mad.data);
		for (int k = 0; k < 4; k++)
			mad.data[(x >> (k * 6)) % SA_MCM_SIZE] ^= (uint8_t)(x >> 3);
		req.requester = (x & 4) ? mcast_test_port(&r, hosts[(x >> 16) % 4])
					: (struct sa_port_ref){FABRIC_NONE, 0};
		r.out.n = 0;
		(void)sa_mcm_handle(r.sa, &req, &r.out);
	}
	CU_ASSERT(mcast_db_count(r.sa->mcast) > 0); /* some requests did get through */
	for (size_t i = 0; i < mcast_db_count(r.sa->mcast); i++) {
		struct mcast_group_info a, b;

		CU_ASSERT_EQUAL(mcast_db_group(r.sa->mcast, i, &a), 0);
		CU_ASSERT(a.mlid >= 0xC000);
		for (size_t j = i + 1; j < mcast_db_count(r.sa->mcast); j++) {
			CU_ASSERT_EQUAL(mcast_db_group(r.sa->mcast, j, &b), 0);
			CU_ASSERT_NOT_EQUAL(a.mlid, b.mlid);
		}
	}
	mcast_test_fini(&r);
}

void test_mcast_register(void)
{
	CU_pSuite s = CU_add_suite("mcast", NULL, NULL);

	CU_add_test(s, "MCMemberRecord bytes vs libibmad", test_mcm_codec);
	CU_add_test(s, "join, leave, MLID reuse", test_mcast_join_leave_reuse);
	CU_add_test(s, "send-only member frees the MLID", test_mcast_send_only_frees_mlid);
	CU_add_test(s, "compatibility and request checks", test_mcast_compat);
	CU_add_test(s, "MGIDs a client may choose", test_mcast_mgid_rules);
	CU_add_test(s, "untrusted requesters see groups, not members", test_mcast_untrusted);
	CU_add_test(s, "a port that cannot carry the group's MTU", test_mcast_port_mtu);
	CU_add_test(s, "JoinState steps of join and leave", test_mcast_join_state_steps);
	CU_add_test(s, "partitions", test_mcast_partitions);
	CU_add_test(s, "proxy joins and leaves", test_mcast_proxy);
	CU_add_test(s, "IPoIB policy groups", test_mcast_policy_groups);
	test_mcast_policy_add(s);
	CU_add_test(s, "prune departed ports", test_mcast_prune);
	CU_add_test(s, "hostile requests", test_mcast_fuzz);
	test_mft_add(s);
}
