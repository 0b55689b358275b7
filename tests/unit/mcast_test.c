/*
 * mcast_test.c - the SA rig the multicast tests share (mcast_test.h): two
 * leaves under two spines, an SA with a group db over it, and the
 * MCMemberRecord requests its hosts send.  Test code only.
 */
#include <CUnit/CUnit.h>
#include <string.h>
#include <stdlib.h>

#include "mad/sa_mcm.h"
#include "routing/topo_file.h"
#include "sm/sa/mcast.h"
#include "tests/unit/mcast_test.h"
#include "tests/unit/sm_rig.h"

/* two leaves under two spines; h1, h2 on l1, h3, h4 on l2 */
const char mcast_test_topo[] = "Hca 1 \"h1\"\n[1] \"l1\"[1]\n\n"
			       "Hca 1 \"h2\"\n[1] \"l1\"[2]\n\n"
			       "Hca 1 \"h3\"\n[1] \"l2\"[1]\n\n"
			       "Hca 1 \"h4\"\n[1] \"l2\"[2]\n\n"
			       "Switch 8 \"l1\"\n[1] \"h1\"[1]\n[2] \"h2\"[1]\n"
			       "[5] \"s1\"[1]\n[6] \"s2\"[1]\n\n"
			       "Switch 8 \"l2\"\n[1] \"h3\"[1]\n[2] \"h4\"[1]\n"
			       "[5] \"s1\"[2]\n[6] \"s2\"[2]\n\n"
			       "Switch 8 \"s1\"\n[1] \"l1\"[5]\n[2] \"l2\"[5]\n\n"
			       "Switch 8 \"s2\"\n[1] \"l1\"[6]\n[2] \"l2\"[6]\n";

const uint8_t mcast_test_mgid_a[16] = {0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0,
				       0,    0,	   0,	 0,    0,    0,	   0, 1};
const uint8_t mcast_test_mgid_b[16] = {0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0,
				       0,    0,	   0,	 0,    0,    0,	   0, 2};

int mcast_test_send(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	(void)ctx, (void)to, (void)mad, (void)len;
	return 0;
}

void mcast_test_update(struct mcast_test_rig *r, int with_pk)
{
	struct sa_view v = {0};

	v.f = &r->f;
	v.pk = with_pk ? &r->pk : NULL;
	v.subnet_prefix = 0xfe80000000000000ull;
	v.sm_guid = r->f.nodes[rig_node(&r->f, "h1")].ports[1].guid;
	v.route_gen = 1;
	v.sm_key = MCAST_TEST_SM_KEY;
	CU_ASSERT_EQUAL(sa_update(r->sa, &v), 0);
}

void mcast_test_init(struct mcast_test_rig *r)
{
	struct mad_xmit x = {mcast_test_send, NULL};
	char err[256];
	uint16_t lid = 1;

	memset(r, 0, sizeof(*r));
	r->sm_key = MCAST_TEST_SM_KEY;
	fabric_init(&r->f);
	CU_ASSERT_EQUAL_FATAL(
	    topo_parse(mcast_test_topo, strlen(mcast_test_topo), "t", &r->f, err, sizeof(err)), 0);
	for (size_t n = 0; n < r->f.n_nodes; n++)
		r->f.nodes[n].ports[fabric_is_switch(&r->f.nodes[n]) ? 0 : 1].lid = lid++;
	r->sa = sa_new(&x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->sa);
	if (!r->sa->mcast) { /* until sa_modules makes it */
		r->sa->mcast = mcast_db_new();
		r->own_db = 1;
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->sa->mcast);
	mcast_test_update(r, 0);
}

void mcast_test_fini(struct mcast_test_rig *r)
{
	if (r->own_db) {
		mcast_db_free(r->sa->mcast);
		r->sa->mcast = NULL;
	}
	sa_free(r->sa);
	free(r->out.recs);
	fabric_fini(&r->f);
}

struct sa_port_ref mcast_test_port(const struct mcast_test_rig *r, const char *host)
{
	struct sa_port_ref p = {rig_node(&r->f, host), 1};

	return p;
}

/* One request from host (its own port unless port_of is given). */
uint16_t mcast_test_req(struct mcast_test_rig *r, const char *from, uint8_t method, uint64_t comp,
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
	req.requester = mcast_test_port(r, from);
	r->out.n = 0;
	st = sa_mcm_handle(r->sa, &req, &r->out);
	CU_ASSERT_EQUAL(r->out.rec_size, SA_MCM_SIZE);
	memset(&r->ans, 0, sizeof(r->ans));
	if (st == SA_STATUS_OK && r->out.n)
		sa_mcm_decode(r->out.recs, &r->ans);
	return st;
}

void mcast_test_tmpl(const struct mcast_test_rig *r, const char *host, const uint8_t *mgid,
		     uint8_t join, struct sa_mcm *t)
{
	memset(t, 0, sizeof(*t));
	if (mgid)
		memcpy(t->mgid, mgid, 16);
	sa_port_gid(r->sa, mcast_test_port(r, host), t->port_gid);
	t->qkey = 0x1234, t->pkey = 0xffff, t->join_state = join;
}

uint16_t mcast_test_join(struct mcast_test_rig *r, const char *host, const uint8_t *mgid,
			 uint8_t join)
{
	struct sa_mcm t;

	mcast_test_tmpl(r, host, mgid, join, &t);
	return mcast_test_req(r, host, SA_METHOD_SET, MCAST_TEST_CREATE_COMPS, &t);
}

uint16_t mcast_test_leave(struct mcast_test_rig *r, const char *host, const uint8_t *mgid,
			  uint8_t join)
{
	struct sa_mcm t;

	mcast_test_tmpl(r, host, mgid, join, &t);
	return mcast_test_req(r, host, SA_METHOD_DELETE, MCAST_TEST_JOIN_COMPS, &t);
}

uint16_t mcast_test_mlid(const struct mcast_test_rig *r, const uint8_t *mgid)
{
	struct mcast_group_info gi;

	return mcast_db_find(r->sa->mcast, mgid, &gi) == 0 ? gi.mlid : 0;
}
