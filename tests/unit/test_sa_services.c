/*
 * test_sa_services.c - the ServiceRecord registry of sm/sa/services.c through
 * sa_svc_handle over the rig of sa_svc_test.c: register, query, refresh,
 * delete, leases, partitions, ports that leave.  Part of suite sa_svc
 * (test_sa_svc.c).
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/pkey.h"
#include "mad/sa.h"
#include "mad/sa_svc.h"
#include "sm/sa/server.h"
#include "sm/sa/services.h"
#include "tests/unit/sa_svc_test.h"

/* ---- services ------------------------------------------------------------- */



static void test_sa_svc_services(void)
{
	struct sa_svc_test_rig r;
	struct sa_out out = { 0 };
	struct sa_svc_rec got;
	struct sa_svc_stats st;
	uint8_t a[SA_SVC_REC_SIZE], b[SA_SVC_REC_SIZE], q[SA_SVC_REC_SIZE] = { 0 };

	sa_svc_test_rig_init(&r);
	sa_svc_test_service(&r, 2, 0x1000, SA_SVC_LEASE_FOREVER, "alpha", a);
	sa_svc_test_service(&r, 3, 0x2000, SA_SVC_LEASE_FOREVER, "beta", b);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD,
					 SA_SVC_TEST_SR_KEY, a, sizeof(a), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	CU_ASSERT_EQUAL(out.rec_size, SA_SVC_REC_SIZE);
	CU_ASSERT(memcmp(out.recs, a, sizeof(a)) == 0);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 3, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD,
					 SA_SVC_TEST_SR_KEY, b, sizeof(b), 0, &out),
			SA_STATUS_OK);
	/* refresh: same key, new name: still two services */
	memcpy(a + 48, "alpha2", 6);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD,
					 SA_SVC_TEST_SR_KEY, a, sizeof(a), 0, &out),
			SA_STATUS_OK);
	sa_svc_get_stats(r.sa->svc, &st);
	CU_ASSERT_EQUAL(st.services, 2);
	/* GetTable, empty mask: both */
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_GET_TABLE, SA_ATTR_SERVICE_RECORD, 0, q,
					 sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 2);
	/* by name */
	memcpy(q + 48, "alpha2", 6);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_GET, SA_ATTR_SERVICE_RECORD,
					 1ull << SA_SVC_REC_C_NAME, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	sa_svc_rec_decode(out.recs, &got);
	CU_ASSERT_EQUAL(got.id, 0x1000);
	/* by ServiceData32.1 */
	memset(q, 0, sizeof(q));
	q[144 + 2] = 0x20; /* 0x00002000 */
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_GET_TABLE, SA_ATTR_SERVICE_RECORD,
					 1ull << SA_SVC_REC_C_DATA32, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	sa_svc_rec_decode(out.recs, &got);
	CU_ASSERT_EQUAL(got.id, 0x2000);
	/* Delete the first, answered with it */
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_DELETE, SA_ATTR_SERVICE_RECORD,
					 SA_SVC_TEST_SR_KEY, a, sizeof(a), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	sa_svc_rec_decode(out.recs, &got);
	CU_ASSERT_EQUAL(got.id, 0x1000);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_DELETE, SA_ATTR_SERVICE_RECORD,
					 SA_SVC_TEST_SR_KEY, a, sizeof(a), 0, &out),
			SA_STATUS_NO_RECORDS);
	sa_svc_get_stats(r.sa->svc, &st);
	CU_ASSERT_EQUAL(st.services, 1);
	free(out.recs);
	sa_svc_test_rig_fini(&r);
}

static void test_sa_svc_lease(void)
{
	struct sa_svc_test_rig r;
	struct sa_out out = { 0 };
	struct sa_svc_stats st;
	uint8_t a[SA_SVC_REC_SIZE], b[SA_SVC_REC_SIZE], q[SA_SVC_REC_SIZE] = { 0 };

	sa_svc_test_rig_init(&r);
	sa_svc_test_service(&r, 2, 1, 10, "ten-seconds", a);
	sa_svc_test_service(&r, 3, 2, SA_SVC_LEASE_FOREVER, "forever", b);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD,
					 SA_SVC_TEST_SR_KEY, a, sizeof(a), 1000, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 3, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD,
					 SA_SVC_TEST_SR_KEY, b, sizeof(b), 1000, &out),
			SA_STATUS_OK);
	sa_svc_tick(r.sa, 10999);
	sa_svc_get_stats(r.sa->svc, &st);
	CU_ASSERT_EQUAL(st.services, 2);
	/* a refresh at 5 s moves the end to 15 s */
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD,
					 SA_SVC_TEST_SR_KEY, a, sizeof(a), 5000, &out),
			SA_STATUS_OK);
	sa_svc_tick(r.sa, 14999);
	sa_svc_get_stats(r.sa->svc, &st);
	CU_ASSERT_EQUAL(st.services, 2);
	sa_svc_tick(r.sa, 15000);
	sa_svc_get_stats(r.sa->svc, &st);
	CU_ASSERT_EQUAL(st.services, 1);
	/* a query after the end never sees an expired lease, even without a tick */
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD,
					 SA_SVC_TEST_SR_KEY, a, sizeof(a), 20000, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_GET_TABLE, SA_ATTR_SERVICE_RECORD, 0, q,
					 sizeof(q), 30000, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 1);
	sa_svc_tick(r.sa, UINT64_MAX - 1); /* forever is forever */
	sa_svc_get_stats(r.sa->svc, &st);
	CU_ASSERT_EQUAL(st.services, 1);
	free(out.recs);
	sa_svc_test_rig_fini(&r);
}

static void test_sa_svc_prune(void)
{
	struct sa_svc_test_rig r;
	struct sa_out out = { 0 };
	struct sa_svc_stats st;
	struct sa_svc_inform ii = { 0 };
	uint8_t a[SA_SVC_REC_SIZE], b[SA_SVC_REC_SIZE], rec[SA_SVC_INFORM_SIZE];

	sa_svc_test_rig_init(&r);
	sa_svc_test_service(&r, 2, 1, SA_SVC_LEASE_FOREVER, "on-h1", a);
	sa_svc_test_service(&r, 3, 2, SA_SVC_LEASE_FOREVER, "on-h2", b);
	sa_svc_test_call(&r, 2, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, SA_SVC_TEST_SR_KEY, a,
			 sizeof(a), 0, &out);
	sa_svc_test_call(&r, 3, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, SA_SVC_TEST_SR_KEY, b,
			 sizeof(b), 0, &out);
	ii.is_generic = 1;
	ii.subscribe = 1;
	ii.trap_num = SA_SVC_TRAP_ALL;
	ii.type = SA_SVC_TYPE_ALL;
	ii.producer = SA_SVC_PRODUCER_ALL;
	ii.lid_begin = SA_SVC_LID_ALL;
	sa_svc_inform_encode(&ii, rec);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 3, SA_METHOD_SET, SA_ATTR_INFORM_INFO, 0, rec,
					 SA_SVC_INFORM_LEN, 0, &out),
			SA_STATUS_OK);
	sa_svc_test_view(&r, &r.f_small); /* h2 left */
	sa_svc_prune(r.sa);
	sa_svc_get_stats(r.sa->svc, &st);
	CU_ASSERT_EQUAL(st.services, 1);
	CU_ASSERT_EQUAL(st.subscriptions, 0);
	free(out.recs);
	sa_svc_test_rig_fini(&r);
}

/* Partition 0x0010 holds h1 (LID 2, full); no rule for 0x7fff, so the
 * switch (the SM's port here) is its full member, h1 and h2 limited ones.
 * The plan goes into a new view of r. */
static void tsv_plan(struct sa_svc_test_rig *r, struct pkey_plan *pp)
{
	struct sa_port_ref h1 = sa_by_lid(r->sa, 2), sw = sa_by_lid(r->sa, 1);
	struct policy_member m = {.kind = POLICY_MEMBER_GUID, .guid = 0, .membership = POLICY_FULL};
	struct policy_partition part;
	char err[256];

	CU_ASSERT_FATAL(h1.node != FABRIC_NONE && sw.node != FABRIC_NONE);
	m.guid = r->f.nodes[h1.node].ports[1].guid;
	memset(&part, 0, sizeof(part));
	strcpy(part.name, "p");
	part.pkey = 0x0010;
	part.members = &m;
	part.n_members = 1;
	pkey_plan_init(pp);
	CU_ASSERT_EQUAL_FATAL(
	    pkey_plan_build(pp, &part, 1, NULL, 0, &r->f, sw.node, 0, err, sizeof(err)), 0);
	r->pk = pp;
	sa_svc_test_view(r, &r->f);
}

/* A service of port `lid` in partition pkey. */
static void tsv_service_in(struct sa_svc_test_rig *r, uint16_t lid, uint64_t id, uint16_t pkey,
			   uint8_t rec[SA_SVC_REC_SIZE])
{
	struct sa_svc_rec s;

	sa_svc_test_service(r, lid, id, SA_SVC_LEASE_FOREVER, "in-partition", rec);
	sa_svc_rec_decode(rec, &s);
	s.pkey = pkey;
	sa_svc_rec_encode(&s, rec);
}

static size_t tsv_services_now(const struct sa_svc_test_rig *r)
{
	struct sa_svc_stats st;

	sa_svc_get_stats(r->sa->svc, &st);
	return st.services;
}

/* ServiceRecords follow the requester's partitions: Set and Delete only
 * inside them (else ERR_REQ_INVALID), Get/GetTable show only theirs;
 * a trusted requester sees and changes every partition's. */
static void test_sa_svc_partitions(void)
{
	struct sa_svc_test_rig r;
	struct sa_out out = { 0 };
	struct sa_svc_rec got;
	struct pkey_plan pp;
	uint8_t a[SA_SVC_REC_SIZE], b[SA_SVC_REC_SIZE], c[SA_SVC_REC_SIZE];
	uint8_t q[SA_SVC_REC_SIZE] = { 0 };
	const uint64_t key = SA_SVC_TEST_SR_KEY | 1ull << SA_SVC_REC_C_PKEY;
	const uint16_t sr = SA_ATTR_SERVICE_RECORD;

	sa_svc_test_rig_init(&r);
	tsv_plan(&r, &pp);
	/* h1 registers in 0x0010, its partition; h2 may not */
	tsv_service_in(&r, 2, 0x10, 0x8010, a);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_SET, sr, key, a, sizeof(a), 0, &out),
			SA_STATUS_OK);
	tsv_service_in(&r, 3, 0x20, 0x8010, b);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 3, SA_METHOD_SET, sr, key, b, sizeof(b), 0, &out),
			SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(out.n, 0);
	/* nor may anyone, trusted or not, offer h2's port in 0x0010 */
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_SET, sr, key, b, sizeof(b), 0, &out),
			SA_STATUS_REQ_INVALID);
	r.key = SA_SVC_TEST_SM_KEY;
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_SET, sr, key, b, sizeof(b), 0, &out),
			SA_STATUS_REQ_INVALID);
	r.key = 0;
	/* h2 registers in the default partition (P_Key omitted), a limited member */
	sa_svc_test_service(&r, 3, 0x30, SA_SVC_LEASE_FOREVER, "default", c);
	CU_ASSERT_EQUAL(
	    sa_svc_test_call(&r, 3, SA_METHOD_SET, sr, SA_SVC_TEST_SR_KEY, c, sizeof(c), 0, &out),
	    SA_STATUS_OK);
	CU_ASSERT_EQUAL(tsv_services_now(&r), 2);
	/* GetTable: h1 sees both, h2 its partition's only */
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_GET_TABLE, sr, 0, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 2);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 3, SA_METHOD_GET_TABLE, sr, 0, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	sa_svc_rec_decode(out.recs, &got);
	CU_ASSERT_EQUAL(got.id, 0x30);
	/* h2 asking for h1's service by ServiceID: no record */
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 3, SA_METHOD_GET, sr, 1ull << SA_SVC_REC_C_ID, a,
					 sizeof(a), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 0);
	/* a requester the SA does not know sees nothing; trusted ones everything */
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 99, SA_METHOD_GET_TABLE, sr, 0, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 0);
	r.key = SA_SVC_TEST_SM_KEY + 1; /* not the subnet's */
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 3, SA_METHOD_GET_TABLE, sr, 0, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 1);
	r.key = SA_SVC_TEST_SM_KEY;
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 3, SA_METHOD_GET_TABLE, sr, 0, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 2);
	/* Delete: h2 may not remove h1's service in 0x0010; trusted, it may */
	r.key = 0;
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 3, SA_METHOD_DELETE, sr, key, a, sizeof(a), 0, &out),
			SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(tsv_services_now(&r), 2);
	r.key = SA_SVC_TEST_SM_KEY;
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 3, SA_METHOD_DELETE, sr, key, a, sizeof(a), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 1);
	CU_ASSERT_EQUAL(tsv_services_now(&r), 1);
	/* and registers for h1 in 0x0010 from h2's port */
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 3, SA_METHOD_SET, sr, key, a, sizeof(a), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(tsv_services_now(&r), 2);
	/* no partitions: the default partition is the only one */
	r.key = 0;
	r.pk = NULL;
	sa_svc_test_view(&r, &r.f);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_SET, sr, key, a, sizeof(a), 0, &out),
			SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_GET_TABLE, sr, 0, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 1);
	free(out.recs);
	sa_svc_test_rig_fini(&r);
	pkey_plan_fini(&pp);
}

/* The tests of this file, in suite sa_svc (test_sa_svc.c). */
void test_sa_services_add(CU_pSuite s)
{
	CU_add_test(s, "register, query, refresh, delete", test_sa_svc_services);
	CU_add_test(s, "lease expiry", test_sa_svc_lease);
	CU_add_test(s, "services follow the requester's partitions", test_sa_svc_partitions);
	CU_add_test(s, "ports that leave", test_sa_svc_prune);
}
