/*
 * test_sa_inform.c - subscriptions and reports of sm/sa/services.c through
 * sa_svc_handle over the rig of sa_svc_test.c, with a fake transmit that
 * records what is sent: subscribe, Report and ReportResp, unsubscribe, trap
 * and LID filters, InformInfoRecord and who may read it, vendor
 * subscriptions.  Part of suite sa_svc (test_sa_svc.c).
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "mad/sa.h"
#include "mad/sa_svc.h"
#include "sm/sa/server.h"
#include "sm/sa/services.h"
#include "tests/unit/sa_svc_test.h"

/* ---- subscriptions and reports --------------------------------------------- */


/* The subscriber answers the i-th MAD sent (a Report) with its ReportResp. */
static void tsv_report_resp(struct sa_svc_test_rig *r, size_t i)
{
	struct sa_mad d, resp = { 0 };

	CU_ASSERT_EQUAL_FATAL(sa_decode(r->sent.mad[i], r->sent.len[i], &d), 0);
	resp.method = SA_METHOD_REPORT_RESP;
	resp.attr_id = SA_ATTR_NOTICE;
	resp.tid = d.tid;
	sa_svc_report_resp(r->sa, &resp);
}

static void test_sa_svc_report(void)
{
	struct sa_svc_test_rig r;
	struct sa_out out = { 0 };
	struct sa_svc_inform ii;
	struct sa_svc_notice n;
	struct sa_svc_stats st;
	struct sa_mad d, resp = { 0 };
	uint8_t gid[16], got[16];

	sa_svc_test_rig_init(&r);
	CU_ASSERT_EQUAL(sa_svc_test_inform(&r, 2, 1, SA_SVC_TRAP_GID_IN, &out), SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	CU_ASSERT_EQUAL(out.rec_size, SA_SVC_INFORM_SIZE);
	sa_svc_inform_decode(out.recs, &ii);
	CU_ASSERT_EQUAL(ii.trap_num, 64);
	CU_ASSERT_EQUAL(ii.subscribe, 1);
	sa_svc_test_port_gid(&r, 3, gid);
	sa_svc_port_event(r.sa, gid, SA_SVC_TRAP_GID_IN, 100);
	CU_ASSERT_EQUAL_FATAL(r.sent.n, 1);
	CU_ASSERT_EQUAL(r.sent.to[0].lid, 2);
	CU_ASSERT_EQUAL(r.sent.to[0].qpn, 0x1234);
	CU_ASSERT_EQUAL(r.sa->counters.reports, 1);
	CU_ASSERT_EQUAL_FATAL(sa_decode(r.sent.mad[0], r.sent.len[0], &d), 0);
	CU_ASSERT_EQUAL(r.sent.mad[0][1], SA_CLASS);
	CU_ASSERT_EQUAL(d.class_version, 2);
	CU_ASSERT_EQUAL(d.method, SA_METHOD_REPORT);
	CU_ASSERT_EQUAL(d.attr_id, SA_ATTR_NOTICE);
	CU_ASSERT(memcmp(d.data + 16, gid, 16) == 0); /* the GID at its spec offset */
	sa_svc_notice_decode(d.data, &n);
	CU_ASSERT_EQUAL(n.is_generic, 1);
	CU_ASSERT_EQUAL(n.type, 3);
	CU_ASSERT_EQUAL(n.producer, 4);
	CU_ASSERT_EQUAL(n.trap_num, 64);
	CU_ASSERT_EQUAL(n.issuer_lid, 1);
	CU_ASSERT_EQUAL(sa_svc_test_be(n.issuer_gid + 8, 8), 0x0011223344556677ull);
	CU_ASSERT_EQUAL(sa_svc_notice_gid(&n, got), 0);
	CU_ASSERT(memcmp(got, gid, 16) == 0);
	/* trap 65: not subscribed */
	sa_svc_port_event(r.sa, gid, SA_SVC_TRAP_GID_OUT, 200);
	CU_ASSERT_EQUAL(r.sent.n, 1);
	/* the subscriber answers; a stray answer is counted apart */
	resp.method = SA_METHOD_REPORT_RESP;
	resp.attr_id = SA_ATTR_NOTICE;
	resp.tid = d.tid;
	sa_svc_get_stats(r.sa->svc, &st);
	CU_ASSERT_EQUAL(st.reports_pending, 1);
	sa_svc_report_resp(r.sa, &resp);
	sa_svc_report_resp(r.sa, &resp);
	sa_svc_get_stats(r.sa->svc, &st);
	CU_ASSERT_EQUAL(st.reports_pending, 0);
	CU_ASSERT_EQUAL(st.reports_acked, 1);
	CU_ASSERT_EQUAL(st.resp_unmatched, 1);
	/* unsubscribe: no more reports; a second unsubscribe finds nothing */
	CU_ASSERT_EQUAL(sa_svc_test_inform(&r, 2, 0, SA_SVC_TRAP_GID_IN, &out), SA_STATUS_OK);
	sa_svc_port_event(r.sa, gid, SA_SVC_TRAP_GID_IN, 300);
	CU_ASSERT_EQUAL(r.sent.n, 1);
	CU_ASSERT_EQUAL(sa_svc_test_inform(&r, 2, 0, SA_SVC_TRAP_GID_IN, &out),
			SA_STATUS_REQ_INVALID);
	free(out.recs);
	sa_svc_test_rig_fini(&r);
}

static void test_sa_svc_filters(void)
{
	struct sa_svc_test_rig r;
	struct sa_out out = { 0 };
	struct sa_svc_inform ii = { 0 };
	struct sa_svc_iir ir;
	uint8_t rec[SA_SVC_INFORM_SIZE], gid2[16], gid3[16], q[SA_SVC_IIR_SIZE] = { 0 };

	sa_svc_test_rig_init(&r);
	sa_svc_test_port_gid(&r, 2, gid2);
	sa_svc_test_port_gid(&r, 3, gid3);
	/* h1: every trap of LID 3 only; h2: trap 65 of any port (twice: one entry) */
	ii.is_generic = 1;
	ii.subscribe = 1;
	ii.trap_num = SA_SVC_TRAP_ALL;
	ii.type = SA_SVC_NOTICE_TYPE_SM;
	ii.producer = SA_SVC_PRODUCER_CLASS_MGR;
	ii.lid_begin = 3;
	ii.lid_end = 3;
	sa_svc_inform_encode(&ii, rec);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_SET, SA_ATTR_INFORM_INFO, 0, rec,
					 SA_SVC_INFORM_LEN, 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(sa_svc_test_inform(&r, 3, 1, SA_SVC_TRAP_GID_OUT, &out), SA_STATUS_OK);
	CU_ASSERT_EQUAL(sa_svc_test_inform(&r, 3, 1, SA_SVC_TRAP_GID_OUT, &out), SA_STATUS_OK);
	sa_svc_port_event(r.sa, gid2, SA_SVC_TRAP_GID_IN, 0); /* LID 2: nobody */
	CU_ASSERT_EQUAL(r.sent.n, 0);
	sa_svc_port_event(r.sa, gid3, SA_SVC_TRAP_GID_IN, 0); /* LID 3, 64: h1 */
	CU_ASSERT_EQUAL(r.sent.n, 1);
	CU_ASSERT_EQUAL(r.sent.to[0].lid, 2);
	sa_svc_port_event(r.sa, gid3, SA_SVC_TRAP_GID_OUT, 0); /* both */
	/* h2's goes; h1's waits behind its unanswered trap 64 until the
	 * ReportResp, then goes at the next tick */
	CU_ASSERT_EQUAL_FATAL(r.sent.n, 2);
	CU_ASSERT_EQUAL(r.sent.to[1].lid, 3);
	tsv_report_resp(&r, 0);
	sa_tick(r.sa, 1);
	CU_ASSERT_EQUAL(r.sent.n, 3);
	CU_ASSERT_EQUAL(r.sent.to[2].lid, 2);
	sa_svc_port_event(r.sa, gid3, 128, 0); /* not a GID trap: ignored */
	CU_ASSERT_EQUAL(r.sent.n, 3);
	/* InformInfoRecord: all, then h2's only (asked by h1: trusted, to see
	 * another port's; test_sa_svc_iir_trust has the untrusted view) */
	r.key = SA_SVC_TEST_SM_KEY;
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_GET_TABLE, SA_ATTR_INFORM_INFO_RECORD, 0,
					 q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 2);
	CU_ASSERT_EQUAL(out.rec_size, SA_SVC_IIR_SIZE);
	memcpy(q, gid3, 16);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_GET, SA_ATTR_INFORM_INFO_RECORD,
					 1ull << SA_SVC_IIR_C_SUBSCRIBER_GID, q, sizeof(q), 0,
					 &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	sa_svc_iir_decode(out.recs, &ir);
	CU_ASSERT_EQUAL(ir.ii.trap_num, 65);
	CU_ASSERT(memcmp(ir.subscriber_gid, gid3, 16) == 0);
	/* a second subscription of h2 gets its own Enum */
	CU_ASSERT_EQUAL(sa_svc_test_inform(&r, 3, 1, SA_SVC_TRAP_GID_IN, &out), SA_STATUS_OK);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_GET_TABLE, SA_ATTR_INFORM_INFO_RECORD,
					 1ull << SA_SVC_IIR_C_SUBSCRIBER_GID, q, sizeof(q), 0,
					 &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 2);
	CU_ASSERT_NOT_EQUAL(sa_svc_test_be(out.recs + 16, 2),
			    sa_svc_test_be(out.recs + SA_SVC_IIR_SIZE + 16, 2));
	free(out.recs);
	sa_svc_test_rig_fini(&r);
}

/* InformInfoRecord: an untrusted requester sees its own subscriptions
 * only, with QPN 0; a trusted one every port's, with their QPNs. */
static void test_sa_svc_iir_trust(void)
{
	struct sa_svc_test_rig r;
	struct sa_out out = { 0 };
	struct sa_svc_iir ir;
	uint8_t gid2[16], gid3[16], q[SA_SVC_IIR_SIZE] = { 0 };
	const uint16_t iir = SA_ATTR_INFORM_INFO_RECORD;

	sa_svc_test_rig_init(&r);
	sa_svc_test_port_gid(&r, 2, gid2);
	sa_svc_test_port_gid(&r, 3, gid3);
	CU_ASSERT_EQUAL(sa_svc_test_inform(&r, 2, 1, SA_SVC_TRAP_GID_IN, &out), SA_STATUS_OK);
	CU_ASSERT_EQUAL(sa_svc_test_inform(&r, 3, 1, SA_SVC_TRAP_GID_OUT, &out), SA_STATUS_OK);
	/* h1: its own */
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_GET_TABLE, iir, 0, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	sa_svc_iir_decode(out.recs, &ir);
	CU_ASSERT(memcmp(ir.subscriber_gid, gid2, 16) == 0);
	CU_ASSERT_EQUAL(ir.ii.qpn, 0); /* the subscriber's QPN: trusted requesters only */
	/* h1 asking for h2's by SubscriberGID: nothing; h2 itself: its own */
	memcpy(q, gid3, 16);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_GET, iir,
					 1ull << SA_SVC_IIR_C_SUBSCRIBER_GID, q, sizeof(q), 0,
					 &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 0);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 3, SA_METHOD_GET, iir,
					 1ull << SA_SVC_IIR_C_SUBSCRIBER_GID, q, sizeof(q), 0,
					 &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	sa_svc_iir_decode(out.recs, &ir);
	CU_ASSERT_EQUAL(ir.ii.trap_num, SA_SVC_TRAP_GID_OUT);
	/* a wrong SM_Key is no SM_Key; an unknown requester owns nothing */
	memset(q, 0, sizeof(q));
	r.key = SA_SVC_TEST_SM_KEY + 1;
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_GET_TABLE, iir, 0, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 1);
	r.key = 0;
	CU_ASSERT_EQUAL(
	    sa_svc_test_call(&r, 99, SA_METHOD_GET_TABLE, iir, 0, q, sizeof(q), 0, &out),
	    SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 0);
	/* trusted: everyone's with their QPNs, known requester or not */
	r.key = SA_SVC_TEST_SM_KEY;
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_GET_TABLE, iir, 0, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 2);
	sa_svc_iir_decode(out.recs, &ir);
	CU_ASSERT_EQUAL(ir.ii.qpn, 1);
	CU_ASSERT_EQUAL(
	    sa_svc_test_call(&r, 99, SA_METHOD_GET_TABLE, iir, 0, q, sizeof(q), 0, &out),
	    SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 2);
	free(out.recs);
	sa_svc_test_rig_fini(&r);
}

/* osmtest's InformInfo: all zero but Subscribe (IsGeneric 0: vendor
 * traps of VendorID 0 / DeviceID 0).  Kept and listed, never reported,
 * removed by an unsubscribe naming the same filter (any QPN). */
static void test_sa_svc_vendor_subscription(void)
{
	struct sa_svc_test_rig r;
	struct sa_out out = { 0 };
	struct sa_svc_inform ii = { 0 };
	struct sa_svc_stats st;
	uint8_t rec[SA_SVC_INFORM_SIZE], gid3[16], q[SA_SVC_IIR_SIZE] = { 0 };

	sa_svc_test_rig_init(&r);
	ii.subscribe = 1;
	sa_svc_inform_encode(&ii, rec);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_SET, SA_ATTR_INFORM_INFO, 1ull << 8, rec,
					 SA_SVC_INFORM_LEN, 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	sa_svc_inform_decode(out.recs, &ii);
	CU_ASSERT(ii.subscribe == 1 && ii.is_generic == 0);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_GET_TABLE, SA_ATTR_INFORM_INFO_RECORD, 0,
					 q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 1);
	sa_svc_test_port_gid(&r, 3, gid3);
	sa_svc_port_event(r.sa, gid3, SA_SVC_TRAP_GID_IN, 0);
	CU_ASSERT_EQUAL(r.sent.n, 0);
	ii.subscribe = 0;
	ii.qpn = 1;
	sa_svc_inform_encode(&ii, rec);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_SET, SA_ATTR_INFORM_INFO, 1ull << 8, rec,
					 SA_SVC_INFORM_LEN, 0, &out),
			SA_STATUS_OK);
	sa_svc_get_stats(r.sa->svc, &st);
	CU_ASSERT_EQUAL(st.subscriptions, 0);
	free(out.recs);
	sa_svc_test_rig_fini(&r);
}

/* The tests of this file, in suite sa_svc (test_sa_svc.c). */
void test_sa_inform_add(CU_pSuite s)
{
	CU_add_test(s, "subscribe, report, ReportResp, unsubscribe", test_sa_svc_report);
	CU_add_test(s, "trap, LID filters and InformInfoRecord", test_sa_svc_filters);
	CU_add_test(s, "InformInfoRecord: own, or all when trusted", test_sa_svc_iir_trust);
	CU_add_test(s, "vendor (IsGeneric 0) subscription", test_sa_svc_vendor_subscription);
}
