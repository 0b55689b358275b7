/*
 * test_mcast.c - multicast: the MCMemberRecord codec (byte offsets of IBA
 * 15.2.5.17 checked against libibmad's fields), joins, leaves and MLID
 * reuse in the group db, partition rules, spanning trees (routing/mft.c)
 * and the MFT push against the fake fabric.
 */
#include <CUnit/CUnit.h>
#include <infiniband/mad.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/pkey.h"
#include "mad/sa_mcm.h"
#include "routing/mft.h"
#include "routing/topo_file.h"
#include "sm/core/log.h"
#include "sm/core/mft_push.h"
#include "sm/core/sm_priv.h"
#include "sm/sa/mcast.h"
#include "tests/unit/sm_rig.h"
#include "tests/unit/unit.h"

/* two leaves under two spines; h1, h2 on l1, h3, h4 on l2 */
static const char mc_topo[] = "Hca 1 \"h1\"\n[1] \"l1\"[1]\n\n"
			      "Hca 1 \"h2\"\n[1] \"l1\"[2]\n\n"
			      "Hca 1 \"h3\"\n[1] \"l2\"[1]\n\n"
			      "Hca 1 \"h4\"\n[1] \"l2\"[2]\n\n"
			      "Switch 8 \"l1\"\n[1] \"h1\"[1]\n[2] \"h2\"[1]\n"
			      "[5] \"s1\"[1]\n[6] \"s2\"[1]\n\n"
			      "Switch 8 \"l2\"\n[1] \"h3\"[1]\n[2] \"h4\"[1]\n"
			      "[5] \"s1\"[2]\n[6] \"s2\"[2]\n\n"
			      "Switch 8 \"s1\"\n[1] \"l1\"[5]\n[2] \"l2\"[5]\n\n"
			      "Switch 8 \"s2\"\n[1] \"l1\"[6]\n[2] \"l2\"[6]\n";

static const uint8_t mc_mgid_a[16] = {0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0,
				      0,    0,    0,    0,	  0,	0,    0, 1};
static const uint8_t mc_mgid_b[16] = {0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0,
				      0,    0,    0,    0,	  0,	0,    0, 2};

/* ---- codec ------------------------------------------------------------------ */

static void test_mcm_codec(void)
{
	struct sa_mcm m = {0}, d;
	uint8_t rec[SA_MCM_SIZE + 8], gid[16];

	memcpy(m.mgid, mc_mgid_a, 16);
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

/* ---- an SA over the tree ------------------------------------------------------ */

struct mc_rig {
	struct fabric f;
	struct sa *sa;
	int own_db;
	struct pkey_plan pk;
	struct pkey_port_table tables[4];
	struct sa_out out;
	struct sa_mcm ans;
	uint64_t sm_key; /* what requests carry: MC_SM_KEY = trusted */
};

#define MC_SM_KEY 0x5aull /* the view's SM_Key */

static int mc_send(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	(void)ctx, (void)to, (void)mad, (void)len;
	return 0;
}

static void mc_update(struct mc_rig *r, int with_pk)
{
	struct sa_view v = {0};

	v.f = &r->f;
	v.pk = with_pk ? &r->pk : NULL;
	v.subnet_prefix = 0xfe80000000000000ull;
	v.sm_guid = r->f.nodes[rig_node(&r->f, "h1")].ports[1].guid;
	v.route_gen = 1;
	v.sm_key = MC_SM_KEY;
	CU_ASSERT_EQUAL(sa_update(r->sa, &v), 0);
}

static void mc_init(struct mc_rig *r)
{
	struct mad_xmit x = {mc_send, NULL};
	char err[256];
	uint16_t lid = 1;

	memset(r, 0, sizeof(*r));
	r->sm_key = MC_SM_KEY;
	fabric_init(&r->f);
	CU_ASSERT_EQUAL_FATAL(topo_parse(mc_topo, strlen(mc_topo), "t", &r->f, err, sizeof(err)), 0);
	for (size_t n = 0; n < r->f.n_nodes; n++)
		r->f.nodes[n].ports[fabric_is_switch(&r->f.nodes[n]) ? 0 : 1].lid = lid++;
	r->sa = sa_new(&x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->sa);
	if (!r->sa->mcast) { /* until sa_modules makes it */
		r->sa->mcast = mcast_db_new();
		r->own_db = 1;
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->sa->mcast);
	mc_update(r, 0);
}

static void mc_fini(struct mc_rig *r)
{
	if (r->own_db) {
		mcast_db_free(r->sa->mcast);
		r->sa->mcast = NULL;
	}
	sa_free(r->sa);
	free(r->out.recs);
	fabric_fini(&r->f);
}

static struct sa_port_ref mc_port(const struct mc_rig *r, const char *host)
{
	struct sa_port_ref p = {rig_node(&r->f, host), 1};

	return p;
}

/* One request from host (its own port unless port_of is given). */
static uint16_t mc_req(struct mc_rig *r, const char *from, uint8_t method, uint64_t comp,
		       const struct sa_mcm *t)
{
	struct sa_mad mad = {0};
	struct sa_req req = {.mad = &mad};
	uint16_t st;

	mad.method = method;
	mad.attr_id = SA_ATTR_MCMEMBER_RECORD;
	mad.comp_mask = comp;
	mad.sm_key = r->sm_key;
	sa_mcm_encode(t, mad.data);
	req.requester = mc_port(r, from);
	r->out.n = 0;
	st = sa_mcm_handle(r->sa, &req, &r->out);
	CU_ASSERT_EQUAL(r->out.rec_size, SA_MCM_SIZE);
	memset(&r->ans, 0, sizeof(r->ans));
	if (st == SA_STATUS_OK && r->out.n)
		sa_mcm_decode(r->out.recs, &r->ans);
	return st;
}

#define MC_JOIN_COMPS (SA_MCM_BIT(SA_MCM_COMP_MGID) | SA_MCM_BIT(SA_MCM_COMP_PORT_GID) |       \
		       SA_MCM_BIT(SA_MCM_COMP_JOIN_STATE))
#define MC_CREATE_COMPS (MC_JOIN_COMPS | SA_MCM_BIT(SA_MCM_COMP_QKEY) |                       \
			 SA_MCM_BIT(SA_MCM_COMP_PKEY) | SA_MCM_BIT(SA_MCM_COMP_SL) |          \
			 SA_MCM_BIT(SA_MCM_COMP_FLOW_LABEL) | SA_MCM_BIT(SA_MCM_COMP_TCLASS))

static void mc_tmpl(const struct mc_rig *r, const char *host, const uint8_t *mgid, uint8_t join,
		    struct sa_mcm *t)
{
	memset(t, 0, sizeof(*t));
	if (mgid)
		memcpy(t->mgid, mgid, 16);
	sa_port_gid(r->sa, mc_port(r, host), t->port_gid);
	t->qkey = 0x1234, t->pkey = 0xffff, t->join_state = join;
}

static uint16_t mc_join(struct mc_rig *r, const char *host, const uint8_t *mgid, uint8_t join)
{
	struct sa_mcm t;

	mc_tmpl(r, host, mgid, join, &t);
	return mc_req(r, host, SA_METHOD_SET, MC_CREATE_COMPS, &t);
}

static uint16_t mc_leave(struct mc_rig *r, const char *host, const uint8_t *mgid, uint8_t join)
{
	struct sa_mcm t;

	mc_tmpl(r, host, mgid, join, &t);
	return mc_req(r, host, SA_METHOD_DELETE, MC_JOIN_COMPS, &t);
}

static uint16_t mc_mlid(const struct mc_rig *r, const uint8_t *mgid)
{
	struct mcast_group_info gi;

	return mcast_db_find(r->sa->mcast, mgid, &gi) == 0 ? gi.mlid : 0;
}

static void test_mcast_join_leave_reuse(void)
{
	struct mc_rig r;
	uint64_t gen;

	mc_init(&r);
	CU_ASSERT_EQUAL(mc_join(&r, "h1", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 1);
	CU_ASSERT_EQUAL(r.ans.mlid, 0xC000);
	CU_ASSERT_EQUAL(r.ans.qkey, 0x1234);
	CU_ASSERT_EQUAL(r.ans.join_state, SA_MCM_JOIN_FULL);
	CU_ASSERT_EQUAL(r.ans.mtu_sel, SA_SEL_EXACT);
	CU_ASSERT_EQUAL(r.ans.mtu, MCAST_DEFAULT_MTU);
	CU_ASSERT_EQUAL(memcmp(r.ans.mgid, mc_mgid_a, 16), 0);
	CU_ASSERT_EQUAL(mc_join(&r, "h3", mc_mgid_b, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.mlid, 0xC001);
	/* a second port joins a; h1 adds NonMember: bits accumulate */
	CU_ASSERT_EQUAL(mc_join(&r, "h2", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(mc_join(&r, "h1", mc_mgid_a, SA_MCM_JOIN_NON), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.join_state, SA_MCM_JOIN_FULL | SA_MCM_JOIN_NON);
	/* leaving takes bits; the member goes with its last one */
	gen = mcast_db_gen(r.sa->mcast);
	CU_ASSERT_EQUAL(mc_leave(&r, "h1", mc_mgid_a, SA_MCM_JOIN_FULL | SA_MCM_JOIN_NON),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.join_state, 0);
	CU_ASSERT_NOT_EQUAL(mcast_db_gen(r.sa->mcast), gen);
	CU_ASSERT_EQUAL(mc_leave(&r, "h1", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(mc_mlid(&r, mc_mgid_a), 0xC000);
	CU_ASSERT_EQUAL(mc_leave(&r, "h2", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(mc_mlid(&r, mc_mgid_a), 0); /* group gone */
	CU_ASSERT_EQUAL(mcast_db_count(r.sa->mcast), 1);
	/* a new group (MGID assigned by the SA) gets 0xC000 back */
	CU_ASSERT_EQUAL(mc_join(&r, "h4", NULL, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.mlid, 0xC000);
	CU_ASSERT_EQUAL(r.ans.mgid[0], 0xff);
	CU_ASSERT_EQUAL(r.ans.mgid[1], 0x12);
	mc_fini(&r);
}

static void test_mcast_send_only_frees_mlid(void)
{
	struct mc_rig r;

	mc_init(&r);
	/* a send-only member cannot create */
	CU_ASSERT_EQUAL(mc_join(&r, "h1", mc_mgid_a, SA_MCM_JOIN_SEND_ONLY), SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(mcast_db_count(r.sa->mcast), 0);
	CU_ASSERT_EQUAL(mc_join(&r, "h1", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(mc_join(&r, "h3", mc_mgid_a, SA_MCM_JOIN_SEND_ONLY), SA_STATUS_OK);
	CU_ASSERT_EQUAL(mc_leave(&r, "h1", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(mc_mlid(&r, mc_mgid_a), 0xC000); /* the sender keeps it */
	CU_ASSERT_EQUAL(mc_leave(&r, "h3", mc_mgid_a, SA_MCM_JOIN_SEND_ONLY), SA_STATUS_OK);
	CU_ASSERT_EQUAL(mcast_db_count(r.sa->mcast), 0);
	CU_ASSERT_EQUAL(mc_join(&r, "h2", mc_mgid_b, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.mlid, 0xC000);
	mc_fini(&r);
}

static void test_mcast_compat(void)
{
	struct mc_rig r;
	struct sa_mcm t;
	uint64_t sel = SA_MCM_BIT(SA_MCM_COMP_MTU_SEL) | SA_MCM_BIT(SA_MCM_COMP_MTU);

	mc_init(&r);
	CU_ASSERT_EQUAL(mc_join(&r, "h1", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	mc_tmpl(&r, "h2", mc_mgid_a, SA_MCM_JOIN_FULL, &t);
	t.qkey = 0x9999; /* another Q_Key */
	CU_ASSERT_EQUAL(mc_req(&r, "h2", SA_METHOD_SET, MC_CREATE_COMPS, &t), SA_STATUS_REQ_INVALID);
	mc_tmpl(&r, "h2", mc_mgid_a, SA_MCM_JOIN_FULL, &t);
	t.pkey = 0x7fff; /* same partition, limited: fine */
	t.mtu_sel = SA_SEL_GREATER, t.mtu = 4; /* group has 2048 (4): not greater */
	CU_ASSERT_EQUAL(mc_req(&r, "h2", SA_METHOD_SET, MC_JOIN_COMPS | sel, &t),
			SA_STATUS_REQ_INVALID);
	t.mtu_sel = SA_SEL_LESS, t.mtu = 5;
	CU_ASSERT_EQUAL(mc_req(&r, "h2", SA_METHOD_SET, MC_JOIN_COMPS | sel, &t), SA_STATUS_OK);
	t.mtu_sel = SA_SEL_EXACT, t.mtu = 5;
	CU_ASSERT_EQUAL(mc_req(&r, "h3", SA_METHOD_SET, MC_JOIN_COMPS | sel, &t),
			SA_STATUS_REQ_INVALID); /* and a proxy join by h3: refused anyway */
	mc_tmpl(&r, "h3", mc_mgid_a, SA_MCM_JOIN_FULL, &t);
	t.rate_sel = SA_SEL_EXACT, t.rate = 7; /* 40 Gb/s; the group has 10 */
	CU_ASSERT_EQUAL(mc_req(&r, "h3", SA_METHOD_SET,
			       MC_JOIN_COMPS | SA_MCM_BIT(SA_MCM_COMP_RATE_SEL) |
				       SA_MCM_BIT(SA_MCM_COMP_RATE), &t),
			SA_STATUS_REQ_INVALID);
	/* missing components, a foreign GID, an unknown bit */
	CU_ASSERT_EQUAL(mc_req(&r, "h3", SA_METHOD_SET, SA_MCM_BIT(SA_MCM_COMP_MGID), &t),
			SA_STATUS_INSUF_COMPS);
	mc_tmpl(&r, "h4", mc_mgid_b, SA_MCM_JOIN_FULL, &t);
	CU_ASSERT_EQUAL(mc_req(&r, "h4", SA_METHOD_SET, MC_JOIN_COMPS, &t), SA_STATUS_INSUF_COMPS);
	t.port_gid[15] ^= 0x55;
	CU_ASSERT_EQUAL(mc_req(&r, "h4", SA_METHOD_SET, MC_CREATE_COMPS, &t), SA_STATUS_INVALID_GID);
	CU_ASSERT_EQUAL(mc_req(&r, "h4", SA_METHOD_SET, 1ULL << 40, &t), SA_STATUS_REQ_INVALID);
	/* h1 may join for another port of the partition: a proxy join */
	mc_tmpl(&r, "h4", mc_mgid_a, SA_MCM_JOIN_NON, &t);
	CU_ASSERT_EQUAL(mc_req(&r, "h1", SA_METHOD_SET, MC_JOIN_COMPS, &t), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.proxy_join, 1);
	/* GetTable of group a: h1, h2 and h4 */
	CU_ASSERT_EQUAL(mc_req(&r, "h2", SA_METHOD_GET_TABLE, SA_MCM_BIT(SA_MCM_COMP_MGID), &t),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 3);
	CU_ASSERT_EQUAL(mc_req(&r, "h2", SA_METHOD_GET, MC_JOIN_COMPS & ~SA_MCM_BIT(SA_MCM_COMP_JOIN_STATE), &t),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 1);
	CU_ASSERT_EQUAL(r.ans.join_state, SA_MCM_JOIN_NON);
	mc_fini(&r);
}

/* The MGID a client may choose (o15-0.1.6), as osmtest probes it. */
/* A port whose link cannot carry the group's MTU may not join it. */
static void test_mcast_port_mtu(void)
{
	struct mc_rig r;
	struct sa_mcm t;
	uint64_t sel = SA_MCM_BIT(SA_MCM_COMP_MTU_SEL) | SA_MCM_BIT(SA_MCM_COMP_MTU);

	mc_init(&r);
	r.f.nodes[rig_node(&r.f, "h1")].ports[1].mtu_cap = 5; /* 4096 */
	r.f.nodes[rig_node(&r.f, "h2")].ports[1].mtu_cap = 4; /* 2048 */
	mc_tmpl(&r, "h1", mc_mgid_a, SA_MCM_JOIN_FULL, &t);
	t.mtu_sel = SA_SEL_EXACT, t.mtu = 5;
	CU_ASSERT_EQUAL(mc_req(&r, "h1", SA_METHOD_SET, MC_CREATE_COMPS | sel, &t), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.mtu, 5);
	CU_ASSERT_EQUAL(mc_join(&r, "h2", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_REQ_INVALID);
	r.f.nodes[rig_node(&r.f, "h2")].ports[1].mtu_cap = 5;
	CU_ASSERT_EQUAL(mc_join(&r, "h2", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	mc_fini(&r);
}

/* Without the SM_Key a requester learns only its own membership: other
 * groups show as one record with a zero PortGID and JoinState. */
static void test_mcast_untrusted(void)
{
	struct mc_rig r;
	struct sa_mcm t;
	static const uint8_t zero[16];

	mc_init(&r);
	CU_ASSERT_EQUAL(mc_join(&r, "h1", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(mc_join(&r, "h2", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	memset(&t, 0, sizeof(t));
	CU_ASSERT_EQUAL(mc_req(&r, "h3", SA_METHOD_GET_TABLE, 0, &t), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 2); /* trusted: both members */
	r.sm_key = 0;
	CU_ASSERT_EQUAL(mc_req(&r, "h3", SA_METHOD_GET_TABLE, 0, &t), SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(r.out.n, 1); /* h3 is no member: the group only */
	CU_ASSERT_EQUAL(memcmp(r.ans.port_gid, zero, 16), 0);
	CU_ASSERT_EQUAL(r.ans.join_state, 0);
	CU_ASSERT_EQUAL(r.ans.mlid, 0xC000);
	CU_ASSERT_EQUAL(mc_req(&r, "h2", SA_METHOD_GET_TABLE, 0, &t), SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(r.out.n, 1); /* h2 sees its own membership */
	mc_tmpl(&r, "h2", NULL, 0, &t);
	CU_ASSERT_EQUAL(memcmp(r.ans.port_gid, t.port_gid, 16), 0);
	CU_ASSERT_EQUAL(r.ans.join_state, SA_MCM_JOIN_FULL);
	r.sm_key = MC_SM_KEY ^ 1; /* a wrong key is no key */
	CU_ASSERT_EQUAL(mc_req(&r, "h3", SA_METHOD_GET_TABLE, 0, &t), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 1);
	mc_fini(&r);
}

static void test_mcast_mgid_rules(void)
{
	static const uint8_t mgid_ll[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0,
					    0,    0,    0, 0, 0, 0, 0, 1}; /* ff02::1 */
	struct mc_rig r;
	uint8_t m[16];

	mc_init(&r);
	memcpy(m, mc_mgid_a, 16);
	m[0] = 0xef; /* not multicast */
	CU_ASSERT_EQUAL(mc_join(&r, "h1", m, SA_MCM_JOIN_FULL), SA_STATUS_REQ_INVALID);
	memcpy(m, mc_mgid_a, 16);
	m[1] = 0x22; /* flags 0010: a reserved flag bit */
	CU_ASSERT_EQUAL(mc_join(&r, "h1", m, SA_MCM_JOIN_FULL), SA_STATUS_REQ_INVALID);
	m[1] = 0x1f; /* transient, reserved scope 0xf: allowed */
	CU_ASSERT_EQUAL(mc_join(&r, "h1", m, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.scope, 0xf);
	m[1] = 0x12, m[2] = 0xa0, m[3] = 0x1b; /* the SA's own signature */
	CU_ASSERT_EQUAL(mc_join(&r, "h1", m, SA_MCM_JOIN_FULL), SA_STATUS_REQ_INVALID);
	m[1] = 0x15; /* in any scope */
	CU_ASSERT_EQUAL(mc_join(&r, "h1", m, SA_MCM_JOIN_FULL), SA_STATUS_REQ_INVALID);
	/* a permanent (T = 0) link-local MGID is fine */
	CU_ASSERT_EQUAL(mc_join(&r, "h1", mgid_ll, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	/* MGID 0: the SA assigns one with its signature, which then joins */
	CU_ASSERT_EQUAL(mc_join(&r, "h1", NULL, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.mgid[2], 0xa0);
	CU_ASSERT_EQUAL(r.ans.mgid[3], 0x1b);
	memcpy(m, r.ans.mgid, 16);
	CU_ASSERT_EQUAL(mc_join(&r, "h2", m, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(mcast_db_count(r.sa->mcast), 3);
	mc_fini(&r);
}

/* JoinState bookkeeping as osmtest's o15-0.1.11/14 steps walk it. */
static void test_mcast_join_state_steps(void)
{
	const uint8_t F = SA_MCM_JOIN_FULL, N = SA_MCM_JOIN_NON, S = SA_MCM_JOIN_SEND_ONLY;
	struct mc_rig r;

	mc_init(&r);
	/* all four bits (SendOnlyFullMember too) create */
	CU_ASSERT_EQUAL(mc_join(&r, "h1", mc_mgid_b, SA_MCM_JOIN_ALL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.join_state, SA_MCM_JOIN_ALL);
	CU_ASSERT_EQUAL(mc_join(&r, "h1", mc_mgid_a, F), SA_STATUS_OK);
	CU_ASSERT_EQUAL(mc_join(&r, "h1", mc_mgid_a, N), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.join_state, F | N);
	/* leaving a bit it does not hold fails and changes nothing */
	CU_ASSERT_EQUAL(mc_leave(&r, "h1", mc_mgid_a, N | S), SA_STATUS_REQ_INVALID);
	/* the answer shows the bits kept */
	CU_ASSERT_EQUAL(mc_leave(&r, "h1", mc_mgid_a, N), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.join_state, F);
	CU_ASSERT_EQUAL(mc_join(&r, "h1", mc_mgid_a, S), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.join_state, F | S);
	CU_ASSERT_EQUAL(mc_join(&r, "h1", mc_mgid_a, N), SA_STATUS_OK);
	CU_ASSERT_EQUAL(mc_leave(&r, "h1", mc_mgid_a, N), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.join_state, F | S);
	/* ... none when it leaves for good */
	CU_ASSERT_EQUAL(mc_leave(&r, "h1", mc_mgid_a, F | S), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.join_state, 0);
	CU_ASSERT_EQUAL(mc_mlid(&r, mc_mgid_a), 0);
	/* the group is gone: a NonMember cannot join (nor create) it */
	CU_ASSERT_EQUAL(mc_join(&r, "h1", mc_mgid_a, N), SA_STATUS_REQ_INVALID);
	mc_fini(&r);
}

/* h1, h2 full members of 0x8001; h3 limited; h4 not in it; all full in
 * the default partition. */
static void mc_plan(struct mc_rig *r)
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
	mc_update(r, 1);
}

/* Proxy joins and leaves (o15-0.2.1). */
static void test_mcast_proxy(void)
{
	static const uint8_t mgid_c[16] = {0xff, 0x12, 0x60, 0x1b, 0x80, 0x01, 0, 0,
					   0,    0,    0,    0,	   0,	 0,    0, 3};
	struct mc_rig r;
	struct sa_mcm t;

	mc_init(&r);
	mc_plan(&r);
	/* h2 creates group a for h1: a proxy join */
	mc_tmpl(&r, "h1", mc_mgid_a, SA_MCM_JOIN_FULL, &t);
	CU_ASSERT_EQUAL(mc_req(&r, "h2", SA_METHOD_SET, MC_CREATE_COMPS, &t), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.proxy_join, 1);
	/* any port of the partition may then leave for h1 */
	CU_ASSERT_EQUAL(mc_req(&r, "h3", SA_METHOD_DELETE, MC_JOIN_COMPS, &t), SA_STATUS_OK);
	CU_ASSERT_EQUAL(mc_mlid(&r, mc_mgid_a), 0);
	/* h1 joins b itself: no one else may change that membership */
	CU_ASSERT_EQUAL(mc_join(&r, "h1", mc_mgid_b, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.proxy_join, 0);
	mc_tmpl(&r, "h1", mc_mgid_b, SA_MCM_JOIN_NON, &t);
	CU_ASSERT_EQUAL(mc_req(&r, "h2", SA_METHOD_SET, MC_JOIN_COMPS, &t), SA_STATUS_REQ_INVALID);
	mc_tmpl(&r, "h1", mc_mgid_b, SA_MCM_JOIN_FULL, &t);
	CU_ASSERT_EQUAL(mc_req(&r, "h2", SA_METHOD_DELETE, MC_JOIN_COMPS, &t),
			SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(mc_req(&r, "h1", SA_METHOD_DELETE, MC_JOIN_COMPS, &t), SA_STATUS_OK);
	/* a proxy must be in the group's partition (limited is enough) */
	mc_tmpl(&r, "h1", mgid_c, SA_MCM_JOIN_FULL, &t);
	t.pkey = 0x8001;
	CU_ASSERT_EQUAL(mc_req(&r, "h1", SA_METHOD_SET, MC_CREATE_COMPS, &t), SA_STATUS_OK);
	mc_tmpl(&r, "h2", mgid_c, SA_MCM_JOIN_FULL, &t);
	CU_ASSERT_EQUAL(mc_req(&r, "h4", SA_METHOD_SET, MC_JOIN_COMPS, &t), SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(mc_req(&r, "h3", SA_METHOD_SET, MC_JOIN_COMPS, &t), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.proxy_join, 1);
	mc_fini(&r);
}

static void test_mcast_partitions(void)
{
	struct mc_rig r;
	struct sa_mcm t;

	mc_init(&r);
	/* no plan: only the default partition exists */
	mc_tmpl(&r, "h1", mc_mgid_a, SA_MCM_JOIN_FULL, &t);
	t.pkey = 0x8001;
	CU_ASSERT_EQUAL(mc_req(&r, "h1", SA_METHOD_SET, MC_CREATE_COMPS, &t), SA_STATUS_REQ_INVALID);
	mc_plan(&r);
	mc_tmpl(&r, "h3", mc_mgid_a, SA_MCM_JOIN_FULL, &t);
	t.pkey = 0x8001; /* a limited member cannot create */
	CU_ASSERT_EQUAL(mc_req(&r, "h3", SA_METHOD_SET, MC_CREATE_COMPS, &t), SA_STATUS_REQ_INVALID);
	mc_tmpl(&r, "h1", mc_mgid_a, SA_MCM_JOIN_FULL, &t);
	t.pkey = 0x8001;
	CU_ASSERT_EQUAL(mc_req(&r, "h1", SA_METHOD_SET, MC_CREATE_COMPS, &t), SA_STATUS_OK);
	mc_tmpl(&r, "h3", mc_mgid_a, SA_MCM_JOIN_FULL, &t);
	t.pkey = 0x0001; /* ... but may join */
	CU_ASSERT_EQUAL(mc_req(&r, "h3", SA_METHOD_SET, MC_JOIN_COMPS, &t), SA_STATUS_OK);
	mc_tmpl(&r, "h4", mc_mgid_a, SA_MCM_JOIN_FULL, &t);
	CU_ASSERT_EQUAL(mc_req(&r, "h4", SA_METHOD_SET, MC_JOIN_COMPS, &t), SA_STATUS_REQ_INVALID);
	/* h4 does not see the group */
	CU_ASSERT_EQUAL(mc_req(&r, "h4", SA_METHOD_GET_TABLE, 0, &t), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 0);
	CU_ASSERT_EQUAL(mc_req(&r, "h2", SA_METHOD_GET_TABLE, 0, &t), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.out.n, 2);
	mc_fini(&r);
}

static void test_mcast_policy_groups(void)
{
	static const uint8_t bcast[16] = {0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
					   0,	 0,    0,    0,	   0xff, 0xff, 0xff, 0xff};
	struct policy_partition parts[2] = {{.pkey = 0x0001, .ipoib = 1, .mtu = 4096},
					    {.pkey = 0x0002, .ipoib = 0}};
	struct mcast_group_info gi;
	struct mc_rig r;
	uint8_t mgid[16];

	mc_init(&r);
	CU_ASSERT_EQUAL(mcast_db_set_partitions(r.sa->mcast, NULL, 0, NULL, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(mcast_db_find(r.sa->mcast, bcast, &gi), 0);
	CU_ASSERT_EQUAL(gi.mlid, 0xC000);
	CU_ASSERT_EQUAL(gi.qkey, 0x0b1b);
	CU_ASSERT_EQUAL(gi.pkey, 0xffff);
	CU_ASSERT_EQUAL(gi.mtu, 4);
	CU_ASSERT_EQUAL(gi.rate, 3);
	CU_ASSERT_TRUE(gi.policy);
	/* join and leave: a policy group stays, with its MLID */
	CU_ASSERT_EQUAL(mc_join(&r, "h2", bcast, SA_MCM_JOIN_FULL), SA_STATUS_REQ_INVALID);
	{
		struct sa_mcm t;

		mc_tmpl(&r, "h2", bcast, SA_MCM_JOIN_FULL, &t);
		CU_ASSERT_EQUAL(mc_req(&r, "h2", SA_METHOD_SET, MC_JOIN_COMPS, &t), SA_STATUS_OK);
		CU_ASSERT_EQUAL(r.ans.qkey, 0x0b1b);
		CU_ASSERT_EQUAL(mc_req(&r, "h2", SA_METHOD_DELETE, MC_JOIN_COMPS, &t), SA_STATUS_OK);
	}
	CU_ASSERT_EQUAL(mc_mlid(&r, bcast), 0xC000);
	/* the policy names a partition with ipoib: the default group goes */
	CU_ASSERT_EQUAL(mcast_db_set_partitions(r.sa->mcast, parts, 2, NULL, NULL), 0);
	CU_ASSERT_EQUAL(mcast_db_count(r.sa->mcast), 1);
	memcpy(mgid, bcast, 16);
	mgid[4] = 0x80, mgid[5] = 0x01;
	CU_ASSERT_EQUAL_FATAL(mcast_db_find(r.sa->mcast, mgid, &gi), 0);
	CU_ASSERT_EQUAL(gi.mlid, 0xC000);
	CU_ASSERT_EQUAL(gi.pkey, 0x8001);
	CU_ASSERT_EQUAL(gi.mtu, 5);
	mc_fini(&r);
}

/* ---- the policy's IPoIB groups on a running SM ------------------------------ */

static const uint8_t mc_bcast[16] = {0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0,    0,
				     0,	   0,	 0,    0,    0xff, 0xff, 0xff, 0xff};

/* The policy's default partition with IPoIB at mtu bytes and rate Gb/s,
 * every port a full member, handed to the SM as loop.c does (at start
 * and on each reload). */
static void mc_policy_default(struct rig *g, unsigned mtu, unsigned rate)
{
	struct policy_member all = {.kind = POLICY_MEMBER_ALL, .membership = POLICY_FULL};
	struct policy_partition part = {.name = "default",
					.pkey = 0x7fff,
					.ipoib = 1,
					.mtu = mtu,
					.rate = rate,
					.members = &all,
					.n_members = 1};

	CU_ASSERT_EQUAL(sm_set_partitions(g->sm, &part, 1), 0);
}

static struct mcast_group_info mc_bcast_info(const struct rig *g)
{
	struct mcast_group_info gi = {0};

	CU_ASSERT_EQUAL(mcast_db_find(g->sm->sa->mcast, mc_bcast, &gi), 0);
	return gi;
}

/* Lines of the log file at path holding what. */
static int mc_log_count(const char *path, const char *what)
{
	char line[1024];
	int n = 0;
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	if (f)
		fclose(f);
	return n;
}

/* The default partition's IPoIB group has the policy's MTU and rate from
 * the first sweep (the SM made it with the defaults before the policy
 * came); ports that cannot carry it are said (NSM-W440).  A reload that
 * changes them changes the group at once, says so, and the next sweep
 * asks its members (only them, once) to reregister. */
static void test_mcast_policy_reload(void)
{
	char path[] = "/tmp/nanosm-unit-mcast-XXXXXX";
	int level = log_level_get(), fd;
	const struct fake_counters *fc;
	struct mcast_group_info gi;
	struct mc_rig r;
	struct sa_mcm t;
	struct rig g;
	unsigned sets;

	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	log_init(LOG_LVL_INFO, NULL);
	CU_ASSERT_EQUAL_FATAL(log_open_file(path), 0);
	rig_init(&g, mc_topo, NULL, "updn");
	fc = fake_fabric_counters(g.ff);
	mc_policy_default(&g, 4096, 10);
	rig_sweep(&g);
	CU_ASSERT_EQUAL_FATAL(g.last.status, 0);
	gi = mc_bcast_info(&g);
	CU_ASSERT_EQUAL(gi.mtu, 5);  /* 4096 */
	CU_ASSERT_EQUAL(gi.rate, 3); /* 10 Gb/s */
	CU_ASSERT_TRUE(gi.policy);
	CU_ASSERT_EQUAL(mc_log_count(path, "-> 4096"), 0); /* nothing to say before a sweep */
	/* the fake's ports carry 2048: all four hosts are said, once */
	CU_ASSERT_EQUAL(mcast_group_misfits(g.sm->sa, &gi, NULL, NULL), 4);
	CU_ASSERT_EQUAL(mc_log_count(path, "NSM-W440 IPoIB group ff12:401b:ffff::ffff:ffff "
					   "(P_Key 0xffff) has MTU 4096 and rate 10 Gb/s, which 4 "
					   "ports"),
			1);
	rig_sweep(&g);
	CU_ASSERT_EQUAL(mc_log_count(path, "NSM-W440"), 1);
	/* a reload to 2048 and 5 Gb/s: h2 and h3 can join now */
	mc_policy_default(&g, 2048, 5);
	gi = mc_bcast_info(&g);
	CU_ASSERT_EQUAL(gi.mtu, 4);
	CU_ASSERT_EQUAL(gi.rate, 5); /* 5 Gb/s */
	CU_ASSERT_EQUAL(mc_log_count(path, "IPoIB group ff12:401b:ffff::ffff:ffff (P_Key "
					   "0xffff): MTU 4096 -> 2048, rate 10 -> 5 Gb/s; 0 member "
					   "ports asked to re-register"),
			1);
	CU_ASSERT_EQUAL(mcast_group_misfits(g.sm->sa, &gi, NULL, NULL), 0);
	rig_sweep(&g);
	memset(&r, 0, sizeof(r));
	fabric_copy(&r.f, sm_fabric(g.sm));
	r.sa = g.sm->sa;
	r.sm_key = 0;
	mc_tmpl(&r, "h2", mc_bcast, SA_MCM_JOIN_FULL, &t);
	CU_ASSERT_EQUAL(mc_req(&r, "h2", SA_METHOD_SET, MC_JOIN_COMPS, &t), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.mtu, 4);
	mc_tmpl(&r, "h3", mc_bcast, SA_MCM_JOIN_FULL, &t);
	CU_ASSERT_EQUAL(mc_req(&r, "h3", SA_METHOD_SET, MC_JOIN_COMPS, &t), SA_STATUS_OK);
	/* a reload to 1024: the group changes, its two members reregister */
	mc_policy_default(&g, 1024, 5);
	gi = mc_bcast_info(&g);
	CU_ASSERT_EQUAL(gi.mtu, 3);
	CU_ASSERT_EQUAL(gi.n_members, 2);
	CU_ASSERT_EQUAL(mc_log_count(path, "MTU 2048 -> 1024, rate 5 -> 5 Gb/s; 2 member ports "
					   "asked to re-register (ClientReregister at the next "
					   "sweep)"),
			1);
	sets = fc->client_rereg_sets;
	rig_sweep(&g);
	CU_ASSERT_EQUAL(fc->client_rereg_sets, sets + 2);
	CU_ASSERT_EQUAL(g.last.port_sets, 2);
	rig_sweep(&g); /* asked once */
	CU_ASSERT_EQUAL(fc->client_rereg_sets, sets + 2);
	CU_ASSERT_EQUAL(g.last.port_sets, 0);
	/* the same policy again: nothing changes, nothing said */
	mc_policy_default(&g, 1024, 5);
	CU_ASSERT_EQUAL(mc_log_count(path, "(P_Key 0xffff): MTU"), 2);
	log_to_stderr();
	log_init(level, NULL);
	unlink(path);
	free(r.out.recs);
	fabric_fini(&r.f);
	rig_fini(&g);
}

static void test_mcast_prune(void)
{
	struct mc_rig r;
	int h3;

	mc_init(&r);
	CU_ASSERT_EQUAL(mc_join(&r, "h1", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(mc_join(&r, "h3", mc_mgid_b, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	h3 = rig_node(&r.f, "h3");
	r.f.nodes[h3].ports[1].guid ^= 0x5a5a; /* h3's port left, another came */
	mc_update(&r, 0);
	mcast_db_prune(r.sa);
	CU_ASSERT_EQUAL(mcast_db_count(r.sa->mcast), 1);
	CU_ASSERT_EQUAL(mc_mlid(&r, mc_mgid_b), 0);
	CU_ASSERT_EQUAL(mc_mlid(&r, mc_mgid_a), 0xC000);
	mc_fini(&r);
}

/* Hostile requests: random methods, masks and bytes from random ports
 * (some unknown) never crash, and the db keeps one MLID per group. */
static void test_mcast_fuzz(void)
{
	static const char *const hosts[] = {"h1", "h2", "h3", "h4"};
	struct mc_rig r;
	uint32_t x = 12345;

	mc_init(&r);
	for (int i = 0; i < 3000; i++) {
		struct sa_mad mad = {0};
		struct sa_req req = {.mad = &mad};
		struct sa_mcm t;

		x = x * 1103515245u + 12345u;
		mad.method = (uint8_t[]){SA_METHOD_GET, SA_METHOD_SET, SA_METHOD_DELETE,
					 SA_METHOD_GET_TABLE, 0x7f}[(x >> 8) % 5];
		mad.comp_mask = (x & 1) ? MC_CREATE_COMPS : ((uint64_t)x << 20 | x);
		mc_tmpl(&r, hosts[(x >> 4) % 4], (x & 2) ? mc_mgid_a : NULL,
			(uint8_t)((x >> 12) & 0xf), &t);
		sa_mcm_encode(&t, mad.data);
		for (int k = 0; k < 4; k++)
			mad.data[(x >> (k * 6)) % SA_MCM_SIZE] ^= (uint8_t)(x >> 3);
		req.requester = (x & 4) ? mc_port(&r, hosts[(x >> 16) % 4])
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
	mc_fini(&r);
}

/* ---- trees ----------------------------------------------------------------------- */

/* Follow a multicast packet from CA src through the masks: every CA it
 * reaches is counted in got[]; a switch entered twice is a loop. */
static int mc_flood(const struct fabric *f, const struct mft_set *s, uint16_t mlid, int src,
		    int *got)
{
	int queue[64], in_port[64], seen[64] = {0}, head = 0, tail = 0;

	queue[tail] = f->nodes[src].ports[1].remote_node;
	in_port[tail++] = f->nodes[src].ports[1].remote_port;
	while (head < tail) {
		int sw = queue[head], in = in_port[head++];
		const struct mft_table *t = mft_set_find(s, sw);

		if (seen[sw]++)
			return -1;
		for (unsigned p = 1; p <= f->nodes[sw].num_ports; p++) {
			const struct fabric_port *fp = &f->nodes[sw].ports[p];

			if ((int)p == in || !mft_port_get(t, mlid, (uint8_t)p))
				continue;
			if (fabric_is_switch(&f->nodes[fp->remote_node])) {
				queue[tail] = fp->remote_node;
				in_port[tail++] = fp->remote_port;
			} else {
				got[fp->remote_node]++;
			}
		}
	}
	return 0;
}

static void test_mft_tree(void)
{
	struct mc_rig r;
	struct mft_set s, s2;
	struct mft_block_ref *diff;
	size_t n;
	int got[16] = {0}, h1, h3, l1, l2, s1, s2n;

	mc_init(&r);
	h1 = rig_node(&r.f, "h1"), h3 = rig_node(&r.f, "h3");
	l1 = rig_node(&r.f, "l1"), l2 = rig_node(&r.f, "l2");
	s1 = rig_node(&r.f, "s1"), s2n = rig_node(&r.f, "s2");
	CU_ASSERT_EQUAL(mc_join(&r, "h1", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(mc_join(&r, "h3", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	mft_set_init(&s);
	CU_ASSERT_EQUAL_FATAL(mcast_mft_compute(r.sa, &s), 0);
	CU_ASSERT_EQUAL(s.n, 4);
	/* leaves: member port + one uplink; exactly one spine carries it */
	CU_ASSERT_EQUAL(mft_port_get(mft_set_find(&s, l1), 0xC000, 1), 1);
	CU_ASSERT_EQUAL(mft_port_get(mft_set_find(&s, l1), 0xC000, 2), 0);
	CU_ASSERT_EQUAL(mft_port_get(mft_set_find(&s, l2), 0xC000, 1), 1);
	CU_ASSERT_EQUAL(mft_port_get(mft_set_find(&s, l1), 0xC000, 5) +
				mft_port_get(mft_set_find(&s, l1), 0xC000, 6), 1);
	CU_ASSERT_EQUAL(mft_port_get(mft_set_find(&s, s1), 0xC000, 1) +
				mft_port_get(mft_set_find(&s, s2n), 0xC000, 1), 1);
	CU_ASSERT_EQUAL(mft_port_get(mft_set_find(&s, s1), 0xC000, 1),
			mft_port_get(mft_set_find(&s, s1), 0xC000, 2));
	CU_ASSERT_EQUAL(mft_port_get(mft_set_find(&s, s1), 0xC000, 0), 0);
	CU_ASSERT_EQUAL(mc_flood(&r.f, &s, 0xC000, h1, got), 0);
	CU_ASSERT_EQUAL(got[h3], 1);
	CU_ASSERT_EQUAL(got[h1], 0); /* no copy back to the sender */
	CU_ASSERT_EQUAL(got[rig_node(&r.f, "h2")], 0);
	/* wire layout: block 0, position 0, MLID 0xC000 on l1 = ports 1 and 5 or 6 */
	CU_ASSERT_EQUAL(mft_table_block(mft_set_find(&s, l1), 0, 0)[0] & 0x0003, 0x0002);
	/* a send-only member on h2: l1 is on the tree already, h2 gets nothing */
	CU_ASSERT_EQUAL(mc_join(&r, "h2", mc_mgid_a, SA_MCM_JOIN_SEND_ONLY), SA_STATUS_OK);
	mft_set_init(&s2);
	CU_ASSERT_EQUAL_FATAL(mcast_mft_compute(r.sa, &s2), 0);
	CU_ASSERT_EQUAL(mft_diff(&s, &s2, &diff, &n), 0);
	CU_ASSERT_EQUAL(n, 0);
	free(diff);
	/* h3 leaves: only l1 keeps port 1; l2, the spine, and l1's uplink clear */
	CU_ASSERT_EQUAL(mc_leave(&r, "h3", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(mcast_mft_compute(r.sa, &s2), 0);
	CU_ASSERT_EQUAL(mft_port_get(mft_set_find(&s2, l2), 0xC000, 1), 0);
	CU_ASSERT_EQUAL(mft_port_get(mft_set_find(&s2, l1), 0xC000, 1), 1);
	CU_ASSERT_EQUAL(mft_port_get(mft_set_find(&s2, l1), 0xC000, 5), 0);
	CU_ASSERT_EQUAL(mft_diff(&s, &s2, &diff, &n), 0);
	CU_ASSERT_EQUAL(n, 3); /* l1, l2 and one spine: block 0 position 0 */
	for (size_t i = 0; i < n; i++)
		CU_ASSERT(diff[i].block == 0 && diff[i].pos == 0);
	free(diff);
	mft_set_fini(&s);
	mft_set_fini(&s2);
	mc_fini(&r);
}

static void test_mft_block_codec(void)
{
	uint16_t m[MFT_BLOCK_MLIDS] = {0}, d[MFT_BLOCK_MLIDS];
	uint8_t data[MFT_BLOCK_BYTES];
	unsigned b, p;

	m[0] = 0x8001, m[31] = 0x1234;
	mft_block_encode(m, data);
	CU_ASSERT_EQUAL(data[0], 0x80);
	CU_ASSERT_EQUAL(data[1], 0x01);
	CU_ASSERT_EQUAL(data[62], 0x12);
	mft_block_decode(data, d);
	CU_ASSERT_EQUAL(memcmp(m, d, sizeof(m)), 0);
	CU_ASSERT_EQUAL(mft_attr_mod(3, 2), 0x20000003u);
	mft_attr_split(0xf00001ffu, &b, &p);
	CU_ASSERT_EQUAL(b, 0x1ff);
	CU_ASSERT_EQUAL(p, 15);
	CU_ASSERT_TRUE(mft_block_needs_write(m, NULL));
	CU_ASSERT_FALSE(mft_block_needs_write(NULL, NULL));
	CU_ASSERT_TRUE(mft_block_needs_write(NULL, m));
	CU_ASSERT_FALSE(mft_block_needs_write(m, d));
}

/* ---- the push ------------------------------------------------------------------- */

static int mc_push_done;

static void mc_push_then(struct sm *sm)
{
	(void)sm;
	mc_push_done++;
}

/* Run one MFT push to its end over the fake. */
static void mc_push(struct rig *g, const struct mft_set *want, struct mft_cache *c)
{
	uint8_t mad[SMP_MAD_SIZE];
	struct mad_addr from = {.lid = 0xffff};
	int before = mc_push_done;

	g->sm->st.mft_blocks_sent = 0;
	mft_push_start(g->sm, sm_fabric(g->sm), want, c, mc_push_then);
	for (int guard = 0; guard < 10000 && mc_push_done == before; guard++) {
		while (fake_fabric_pop(g->ff, mad) == 1)
			sm_recv(g->sm, &from, mad, sizeof(mad));
		g->now += 10;
		sm_tick(g->sm);
	}
	CU_ASSERT_EQUAL(mc_push_done, before + 1);
}

static void mc_view(struct rig *g, struct sa *sa)
{
	struct sa_view v = {0};

	v.f = sm_fabric(g->sm);
	v.subnet_prefix = 0xfe80000000000000ull;
	v.route_gen = 1;
	CU_ASSERT_EQUAL(sa_update(sa, &v), 0);
}

static void test_mft_push(void)
{
	struct mad_xmit x = {mc_send, NULL};
	struct mc_rig r; /* only for its request helpers */
	struct mft_cache *c = mft_cache_new();
	struct mft_set want;
	struct rig g;
	const struct fabric *st;
	uint64_t l1g, l2g;
	int done;

	rig_init(&g, mc_topo, NULL, "updn");
	rig_sweep(&g);
	CU_ASSERT_EQUAL_FATAL(g.last.status, 0);
	memset(&r, 0, sizeof(r));
	fabric_copy(&r.f, sm_fabric(g.sm));
	r.sa = sa_new(&x);
	r.own_db = !r.sa->mcast;
	if (r.own_db)
		r.sa->mcast = mcast_db_new();
	mc_view(&g, r.sa);
	st = fake_fabric_state(g.ff);
	l1g = st->nodes[rig_node(st, "l1")].guid;
	l2g = st->nodes[rig_node(st, "l2")].guid;
	CU_ASSERT_EQUAL(mc_join(&r, "h1", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL(mc_join(&r, "h4", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	mft_set_init(&want);
	CU_ASSERT_EQUAL_FATAL(mcast_mft_compute(r.sa, &want), 0);
	mc_push(&g, &want, c);
	CU_ASSERT_EQUAL(g.sm->st.mft_blocks_sent, 3); /* two leaves, one spine */
	CU_ASSERT_EQUAL(fake_fabric_mft_sets(g.ff), 3);
	CU_ASSERT_EQUAL(fake_fabric_mft_port(g.ff, l1g, 0xC000, 1), 1);
	CU_ASSERT_EQUAL(fake_fabric_mft_port(g.ff, l2g, 0xC000, 2), 1);
	CU_ASSERT_EQUAL(fake_fabric_mft_port(g.ff, l2g, 0xC000, 1), 0);
	/* nothing changed: nothing sent */
	mc_push(&g, &want, c);
	CU_ASSERT_EQUAL(g.sm->st.mft_blocks_sent, 0);
	/* h4 leaves: the blocks clear (written as zeros once) */
	CU_ASSERT_EQUAL(mc_leave(&r, "h4", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(mcast_mft_compute(r.sa, &want), 0);
	mc_push(&g, &want, c);
	CU_ASSERT_EQUAL(g.sm->st.mft_blocks_sent, 3);
	CU_ASSERT_EQUAL(fake_fabric_mft_port(g.ff, l2g, 0xC000, 2), 0);
	CU_ASSERT_EQUAL(fake_fabric_mft_port(g.ff, l1g, 0xC000, 1), 1);
	CU_ASSERT_EQUAL(fake_fabric_mft_port(g.ff, l1g, 0xC000, 5) +
				fake_fabric_mft_port(g.ff, l1g, 0xC000, 6), 0);
	mc_push(&g, &want, c);
	CU_ASSERT_EQUAL(g.sm->st.mft_blocks_sent, 0);
	/* h4 joins; the Sets land but every answer is lost: the blocks are no
	 * longer trusted, so when h4 leaves again (the cache's old contents
	 * are wanted once more) they are written anyway */
	CU_ASSERT_EQUAL(mc_join(&r, "h4", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(mcast_mft_compute(r.sa, &want), 0);
	fake_fabric_lose_set_replies(g.ff, MFT_ATTR_ID, 1000);
	mc_push(&g, &want, c);
	CU_ASSERT(g.sm->st.set_errors > 0);
	CU_ASSERT_EQUAL(fake_fabric_mft_port(g.ff, l2g, 0xC000, 2), 1); /* landed */
	fake_fabric_lose_set_replies(g.ff, 0, 0);
	CU_ASSERT_EQUAL(mc_leave(&r, "h4", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(mcast_mft_compute(r.sa, &want), 0);
	mc_push(&g, &want, c);
	CU_ASSERT_EQUAL(fake_fabric_mft_port(g.ff, l2g, 0xC000, 2), 0);
	/* h4 joins again and the SM is freed with the push in flight: it is
	 * cancelled, `then` never runs, nothing is left to free (valgrind) */
	CU_ASSERT_EQUAL(mc_join(&r, "h4", mc_mgid_a, SA_MCM_JOIN_FULL), SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(mcast_mft_compute(r.sa, &want), 0);
	done = mc_push_done;
	mft_push_start(g.sm, sm_fabric(g.sm), &want, c, mc_push_then);
	CU_ASSERT_EQUAL(g.sm->calls.pending, 3);
	rig_fini(&g);
	CU_ASSERT_EQUAL(mc_push_done, done);
	mft_set_fini(&want);
	mft_cache_free(c);
	mc_fini(&r);
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
	CU_add_test(s, "IPoIB group MTU and rate: first sweep, reload", test_mcast_policy_reload);
	CU_add_test(s, "prune departed ports", test_mcast_prune);
	CU_add_test(s, "hostile requests", test_mcast_fuzz);
	CU_add_test(s, "spanning tree on two levels", test_mft_tree);
	CU_add_test(s, "MFT block codec and diff rule", test_mft_block_codec);
	CU_add_test(s, "MFT push against the fake", test_mft_push);
}
