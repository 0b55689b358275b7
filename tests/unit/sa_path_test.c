/*
 * sa_path_test.c - the rig the PathRecord and MultiPathRecord handler tests
 * share (sa_path_test.h): h1, h2 on s1, h3 on s2, routed by minhop, an SA over
 * it, and the requests they send.  Test code only.
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "config/pkey.h"
#include "mad/sa_path.h"
#include "routing/route.h"
#include "sm/sa/paths.h"
#include "sm/sa/server.h"
#include "tests/unit/route_test.h"
#include "tests/unit/sa_path_test.h"

/* h1, h2 on s1; h3 on s2; s1 port 3 - s2 port 3. */
static const char sa_path_test_topo[] = "Switch 8 \"s1\"\n"
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

static int sa_path_test_send(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	(void)ctx;
	(void)to;
	(void)mad;
	(void)len;
	return 0;
}

void sa_path_test_view_pk(struct sa_path_test_rig *r, uint64_t gen, const struct pkey_plan *pk)
{
	struct sa_view v = { 0 };

	v.pk = pk;
	v.f = &r->f;
	v.lfts = &r->lfts;
	v.subnet_prefix = 0xfe80000000000000ull;
	v.sm_key = SA_PATH_TEST_SM_KEY;
	v.route_gen = gen;
	CU_ASSERT_EQUAL(sa_update(r->sa, &v), 0);
}

void sa_path_test_view(struct sa_path_test_rig *r, uint64_t gen)
{
	sa_path_test_view_pk(r, gen, NULL);
}

void sa_path_test_rig_init(struct sa_path_test_rig *r)
{
	struct mad_xmit x = {sa_path_test_send, NULL};
	uint16_t max;

	memset(r, 0, sizeof(*r));
	r->asker = (struct sa_port_ref){ FABRIC_NONE, 0 };
	route_test_parse(sa_path_test_topo, &r->f);
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
	sa_path_test_view(r, 1);
}

void sa_path_test_rig_fini(struct sa_path_test_rig *r)
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

/* A request's header: method, attr and mask from the rig's asker with its
 * SM_Key (r->key); r->out emptied for the answer. */
void sa_path_test_req(struct sa_path_test_rig *r, struct sa_mad *m, uint8_t method, uint16_t attr,
		      uint64_t mask)
{
	memset(m, 0, sizeof(*m));
	m->base_version = 1;
	m->mgmt_class = SA_CLASS;
	m->class_version = SA_CLASS_VERSION;
	m->method = method;
	m->sm_key = r->key;
	m->attr_id = attr;
	m->comp_mask = mask;
	free(r->out.recs);
	memset(&r->out, 0, sizeof(r->out));
}

/* Ask for PathRecords; the answer's records are in r->out. */
uint16_t sa_path_test_ask(struct sa_path_test_rig *r, uint8_t method, uint64_t mask,
			  const struct sa_path_rec *want)
{
	struct sa_mad m;
	struct sa_req req = { &m, { 1, 0, 1 }, r->asker, 0 };

	sa_path_test_req(r, &m, method, SA_ATTR_PATH_RECORD, mask);
	sa_path_encode(want, m.data);
	return sa_path_handle(r->sa, &req, &r->out);
}

/* Get the path slid -> dlid; returns the record count (the first decoded into d). */
size_t sa_path_test_get(struct sa_path_test_rig *r, uint16_t slid, uint16_t dlid, uint64_t extra,
			const struct sa_path_rec *more, struct sa_path_rec *d)
{
	struct sa_path_rec w;

	if (more)
		w = *more;
	else
		memset(&w, 0, sizeof(w));
	w.slid = slid;
	w.dlid = dlid;
	CU_ASSERT_EQUAL(sa_path_test_ask(r, SA_METHOD_GET,
					 SA_PR_CM(SA_PR_SLID) | SA_PR_CM(SA_PR_DLID) | extra, &w),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r->out.rec_size, SA_PATH_REC_SIZE);
	if (r->out.n)
		sa_path_decode(r->out.recs, d);
	return r->out.n;
}

/* Partition 0x0010 of the n members m (no rule for 0x7fff: h1, the SM's
 * port, is its only full member, everyone else a limited one), built into
 * pp and put in r's view (route generation 2). */
static void sa_path_test_plan(struct sa_path_test_rig *r, struct pkey_plan *pp,
			      struct policy_member *m, size_t n)
{
	struct policy_partition part;
	char err[256];

	memset(&part, 0, sizeof(part));
	strcpy(part.name, "p");
	part.pkey = 0x0010;
	part.members = m;
	part.n_members = n;
	pkey_plan_init(pp);
	CU_ASSERT_EQUAL_FATAL(
	    pkey_plan_build(pp, &part, 1, NULL, 0, &r->f, r->h1, 1, err, sizeof(err)), 0);
	sa_path_test_view_pk(r, 2, pp);
}

/* Partition 0x0010: h2 and h3 full members, the switches limited ones. */
void sa_path_test_plan_p10(struct sa_path_test_rig *r, struct pkey_plan *pp)
{
	struct policy_member m[3];

	m[0] = (struct policy_member){.kind = POLICY_MEMBER_GUID,
				      .guid = r->f.nodes[r->h2].ports[1].guid,
				      .membership = POLICY_FULL};
	m[1] = (struct policy_member){.kind = POLICY_MEMBER_GUID,
				      .guid = r->f.nodes[r->h3].ports[1].guid,
				      .membership = POLICY_FULL};
	m[2] = (struct policy_member){
	    .kind = POLICY_MEMBER_ALL_SWITCHES, .guid = 0, .membership = POLICY_LIMITED};
	sa_path_test_plan(r, pp, m, 3);
}

/* Partition 0x0010: h1 and h2 full members, nobody else. */
void sa_path_test_plan_h1h2(struct sa_path_test_rig *r, struct pkey_plan *pp)
{
	struct policy_member m[2];

	memset(m, 0, sizeof(m));
	m[0] = (struct policy_member){.kind = POLICY_MEMBER_GUID,
				      .guid = r->f.nodes[r->h1].ports[1].guid,
				      .membership = POLICY_FULL};
	m[1] = (struct policy_member){.kind = POLICY_MEMBER_GUID,
				      .guid = r->f.nodes[r->h2].ports[1].guid,
				      .membership = POLICY_FULL};
	sa_path_test_plan(r, pp, m, 2);
}
