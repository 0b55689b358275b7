/*
 * test_sa_limits.c - the SA under a crowd: MLIDs bounded by the switches'
 * MulticastFDBCap, per-port quotas of groups, services and subscriptions
 * (one port refused, the others not), and Reports rate-limited, retried
 * until their ReportResp and the subscription dropped after the last try.
 * Requests go through sa_recv, answers are caught by a fake transmit.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/policy.h"
#include "mad/sa.h"
#include "mad/sa_mcm.h"
#include "mad/sa_svc.h"
#include "mad/smp.h"
#include "routing/topo_file.h"
#include "sm/daemon/opts.h"
#include "sm/sa/mcast.h"
#include "sm/sa/quota.h"
#include "sm/sa/server.h"
#include "sm/sa/services.h"
#include "tests/unit/unit.h"

static const char tl_topo[] = "Switch 8 \"sw\"\n[1] \"h1\"[1]\n[2] \"h2\"[1]\n[3] \"h3\"[1]\n\n"
			      "Hca 1 \"h1\"\n[1] \"sw\"[1]\n\n"
			      "Hca 1 \"h2\"\n[1] \"sw\"[2]\n\n"
			      "Hca 1 \"h3\"\n[1] \"sw\"[3]\n";

#define TL_NOTES 64

struct tl_rig {
	struct fabric f;
	struct sa *sa;
	/* what was sent: the last answer, and every Report */
	struct sa_mad last;
	unsigned reports;
	uint64_t report_tid[TL_NOTES];
	uint16_t report_lid[TL_NOTES];
	int refuse_sends; /* the MAD port's queue is full */
	struct sa_note notes[TL_NOTES];
	unsigned n_notes;
	uint64_t tid;
};

static int tl_send(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	struct tl_rig *r = ctx;
	struct sa_mad m;

	if (r->refuse_sends)
		return -ENOBUFS;
	CU_ASSERT_EQUAL_FATAL(sa_decode(mad, len, &m), 0);
	if (m.method == SA_METHOD_REPORT) {
		if (r->reports < TL_NOTES) {
			r->report_tid[r->reports] = m.tid;
			r->report_lid[r->reports] = to->lid;
		}
		r->reports++;
		return 0;
	}
	r->last = m;
	return 0;
}

static void tl_note(void *ctx, const struct sa_note *n)
{
	struct tl_rig *r = ctx;

	if (r->n_notes < TL_NOTES)
		r->notes[r->n_notes++] = *n;
}

/* A view of the rig's fabric; every switch holds mft_cap MLIDs (0: not
 * reported). */
static void tl_view(struct tl_rig *r, unsigned mft_cap)
{
	struct sa_view v = {0};

	for (size_t i = 0; i < r->f.n_nodes; i++) {
		struct fabric_node *n = &r->f.nodes[i];
		struct smp_switch_info si = {0};

		if (!fabric_is_switch(n))
			continue;
		si.linear_fdb_cap = 0xc000;
		si.mcast_fdb_cap = (uint16_t)mft_cap;
		smp_switch_info_encode(&si, n->si_raw);
	}
	v.f = &r->f;
	v.subnet_prefix = 0xfe80000000000000ull;
	v.sm_lid = 1;
	v.route_gen = 1;
	CU_ASSERT_EQUAL(sa_update(r->sa, &v), 0);
}

static void tl_init(struct tl_rig *r, unsigned mft_cap)
{
	char err[256];
	uint16_t lid = 1;
	struct mad_xmit x = {tl_send, r};

	memset(r, 0, sizeof(*r));
	fabric_init(&r->f);
	CU_ASSERT_EQUAL_FATAL(topo_parse(tl_topo, strlen(tl_topo), "t", &r->f, err, sizeof(err)),
			      0);
	for (size_t n = 0; n < r->f.n_nodes; n++)
		r->f.nodes[n].ports[fabric_is_switch(&r->f.nodes[n]) ? 0 : 1].lid = lid++;
	r->sa = sa_new(&x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->sa);
	r->sa->note = tl_note;
	r->sa->note_ctx = r;
	tl_view(r, mft_cap);
}

static void tl_fini(struct tl_rig *r)
{
	sa_free(r->sa);
	fabric_fini(&r->f);
}

/* One request from LID lid: the answer's status. */
static uint16_t tl_req(struct tl_rig *r, uint16_t lid, uint8_t method, uint16_t attr, uint64_t comp,
		       const uint8_t *rec, size_t rec_len, uint64_t now)
{
	struct sa_mad h = {0};
	struct mad_addr from = {lid, 0, 1};
	uint8_t buf[SA_MAD_SIZE];

	h.class_version = SA_CLASS_VERSION;
	h.method = method;
	h.tid = ++r->tid;
	h.attr_id = attr;
	h.comp_mask = comp;
	sa_encode(&h, NULL, 0, 0, buf, sizeof(buf));
	memcpy(buf + SA_HDR_SIZE, rec, rec_len);
	memset(&r->last, 0xff, sizeof(r->last));
	sa_recv(r->sa, &from, buf, sizeof(buf), now);
	CU_ASSERT_EQUAL(r->last.tid, h.tid);
	return r->last.status;
}

static void tl_gid(const struct tl_rig *r, uint16_t lid, uint8_t gid[16])
{
	sa_port_gid(r->sa, sa_by_lid(r->sa, lid), gid);
}

#define TL_CREATE_COMPS                                                                            \
	(SA_MCM_BIT(SA_MCM_COMP_MGID) | SA_MCM_BIT(SA_MCM_COMP_PORT_GID) |                         \
	 SA_MCM_BIT(SA_MCM_COMP_JOIN_STATE) | SA_MCM_BIT(SA_MCM_COMP_QKEY) |                       \
	 SA_MCM_BIT(SA_MCM_COMP_PKEY) | SA_MCM_BIT(SA_MCM_COMP_SL) |                               \
	 SA_MCM_BIT(SA_MCM_COMP_FLOW_LABEL) | SA_MCM_BIT(SA_MCM_COMP_TCLASS))

/* Port lid creates group ff12:601b:ffff::<n> (a full join). */
static uint16_t tl_create(struct tl_rig *r, uint16_t lid, unsigned n, uint8_t method)
{
	struct sa_mcm m = {0};
	uint8_t rec[SA_MCM_SIZE];
	static const uint8_t head[4] = {0xff, 0x12, 0x60, 0x1b};

	memcpy(m.mgid, head, 4);
	m.mgid[4] = m.mgid[5] = 0xff;
	m.mgid[14] = (uint8_t)(n >> 8), m.mgid[15] = (uint8_t)n;
	tl_gid(r, lid, m.port_gid);
	m.qkey = 0x1234, m.pkey = 0xffff, m.join_state = SA_MCM_JOIN_FULL;
	sa_mcm_encode(&m, rec);
	return tl_req(r, lid, method, SA_ATTR_MCMEMBER_RECORD, TL_CREATE_COMPS, rec, sizeof(rec),
		      0);
}

/* ---- quota.c ---------------------------------------------------------------- */

static void test_quota_counts(void)
{
	struct sa_quota *q = sa_quota_new();
	struct sa_quota_user top[3];

	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	CU_ASSERT_EQUAL(sa_quota_take(q, 0xa, SA_QUOTA_GROUPS, 2), 0);
	CU_ASSERT_EQUAL(sa_quota_take(q, 0xa, SA_QUOTA_GROUPS, 2), 0);
	CU_ASSERT_EQUAL(sa_quota_take(q, 0xa, SA_QUOTA_GROUPS, 2), -EDQUOT);
	CU_ASSERT_EQUAL(sa_quota_take(q, 0xb, SA_QUOTA_GROUPS, 2), 0); /* another port */
	CU_ASSERT_EQUAL(sa_quota_take(q, 0xa, SA_QUOTA_SUBS, 2), 0);   /* another kind */
	CU_ASSERT_EQUAL(sa_quota_used(q, 0xa, SA_QUOTA_GROUPS), 2);
	sa_quota_give(q, 0xa, SA_QUOTA_GROUPS);
	CU_ASSERT_EQUAL(sa_quota_take(q, 0xa, SA_QUOTA_GROUPS, 2), 0);
	sa_quota_give(q, 0xc, SA_QUOTA_GROUPS); /* unknown: nothing */
	CU_ASSERT_EQUAL(sa_quota_used(q, 0xc, SA_QUOTA_GROUPS), 0);
	/* many ports: the table grows; top lists the biggest first */
	for (uint64_t g = 0x100; g < 0x300; g++)
		CU_ASSERT_EQUAL(sa_quota_take(q, g, SA_QUOTA_SERVICES, 0), 0);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(sa_quota_take(q, 0x2ff, SA_QUOTA_SERVICES, 0), 0);
	CU_ASSERT_EQUAL(sa_quota_take(q, 0x150, SA_QUOTA_SERVICES, 0), 0);
	CU_ASSERT_EQUAL(sa_quota_top(q, SA_QUOTA_SERVICES, top, 3), 3);
	CU_ASSERT_EQUAL(top[0].guid, 0x2ff);
	CU_ASSERT_EQUAL(top[0].used, 6);
	CU_ASSERT_EQUAL(top[1].guid, 0x150);
	CU_ASSERT_EQUAL(top[1].used, 2);
	CU_ASSERT_EQUAL(top[2].guid, 0x100);
	CU_ASSERT_EQUAL(sa_quota_top(q, SA_QUOTA_GROUPS, top, 3), 2);
	CU_ASSERT_EQUAL(top[0].guid, 0xa);
	CU_ASSERT_STRING_EQUAL(sa_quota_kind_name(SA_QUOTA_SUBS), "subscriptions");
	sa_quota_free(q);
}

/* ---- MLIDs ------------------------------------------------------------------- */

static void test_mlid_cap(void)
{
	struct tl_rig r;
	struct sa_usage u;

	tl_init(&r, 32);
	CU_ASSERT_EQUAL(r.sa->mlid_cap, 32);
	r.sa->lim.groups_per_port = 0; /* the cap, not a quota, refuses */
	for (unsigned i = 0; i < 32; i++)
		CU_ASSERT_EQUAL(tl_create(&r, 2, i, SA_METHOD_SET), SA_STATUS_OK);
	CU_ASSERT_EQUAL(tl_create(&r, 3, 100, SA_METHOD_SET), SA_STATUS_NO_RESOURCES);
	CU_ASSERT_EQUAL(r.sa->counters.mlid_refused, 1);
	CU_ASSERT_EQUAL_FATAL(r.n_notes, 1);
	CU_ASSERT_EQUAL(r.notes[0].kind, SA_NOTE_MLID_FULL);
	CU_ASSERT_EQUAL(r.notes[0].limit, 32);
	CU_ASSERT_EQUAL(r.notes[0].lid, 3);
	CU_ASSERT_EQUAL(r.notes[0].port_guid, r.f.nodes[sa_by_lid(r.sa, 3).node].ports[1].guid);
	sa_get_usage(r.sa, &u);
	CU_ASSERT_EQUAL(u.mlid_cap, 32);
	CU_ASSERT_EQUAL(u.mlids_used, 32);
	/* a leave frees one: the next join gets it, at most 0xC01F */
	CU_ASSERT_EQUAL(tl_create(&r, 2, 7, SA_METHOD_DELETE), SA_STATUS_OK);
	CU_ASSERT_EQUAL(tl_create(&r, 3, 100, SA_METHOD_SET), SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.last.status, 0);
	/* a switch reporting no cap does not limit; the smallest one does */
	tl_view(&r, 0);
	CU_ASSERT_EQUAL(r.sa->mlid_cap, 0xFFFE - 0xC000 + 1);
	CU_ASSERT_EQUAL(tl_create(&r, 3, 101, SA_METHOD_SET), SA_STATUS_OK);
	tl_fini(&r);
}

/* ---- quotas ---------------------------------------------------------------------- */

static void test_group_quota(void)
{
	struct tl_rig r;
	struct sa_usage u;

	tl_init(&r, 1024);
	r.sa->lim.groups_per_port = 3;
	for (unsigned i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(tl_create(&r, 2, i, SA_METHOD_SET), SA_STATUS_OK);
	CU_ASSERT_EQUAL(tl_create(&r, 2, 3, SA_METHOD_SET), SA_STATUS_NO_RESOURCES);
	CU_ASSERT_EQUAL_FATAL(r.n_notes, 1);
	CU_ASSERT_EQUAL(r.notes[0].kind, SA_NOTE_QUOTA);
	CU_ASSERT_EQUAL(r.notes[0].quota, SA_QUOTA_GROUPS);
	CU_ASSERT_EQUAL(r.notes[0].limit, 3);
	CU_ASSERT_EQUAL(r.sa->counters.quota_refused, 1);
	/* the others are not refused, and joining an existing group is free */
	CU_ASSERT_EQUAL(tl_create(&r, 3, 3, SA_METHOD_SET), SA_STATUS_OK);
	CU_ASSERT_EQUAL(tl_create(&r, 3, 0, SA_METHOD_SET), SA_STATUS_OK);
	sa_get_usage(r.sa, &u);
	CU_ASSERT_EQUAL(u.held[SA_QUOTA_GROUPS], 4);
	CU_ASSERT_EQUAL(u.limit[SA_QUOTA_GROUPS], 3);
	CU_ASSERT_EQUAL(u.top[SA_QUOTA_GROUPS][0].used, 3);
	CU_ASSERT_EQUAL(u.top[SA_QUOTA_GROUPS][1].used, 1);
	/* group 1 goes with its last member: h1 may create again */
	CU_ASSERT_EQUAL(tl_create(&r, 2, 1, SA_METHOD_DELETE), SA_STATUS_OK);
	CU_ASSERT_EQUAL(tl_create(&r, 2, 9, SA_METHOD_SET), SA_STATUS_OK);
	/* group 0 stays while h2 is in it: still charged to h1 */
	CU_ASSERT_EQUAL(tl_create(&r, 2, 0, SA_METHOD_DELETE), SA_STATUS_OK);
	CU_ASSERT_EQUAL(tl_create(&r, 2, 10, SA_METHOD_SET), SA_STATUS_NO_RESOURCES);
	CU_ASSERT_EQUAL(tl_create(&r, 3, 0, SA_METHOD_DELETE), SA_STATUS_OK);
	CU_ASSERT_EQUAL(tl_create(&r, 2, 10, SA_METHOD_SET), SA_STATUS_OK);
	tl_fini(&r);
}

static uint16_t tl_service(struct tl_rig *r, uint16_t lid, uint64_t id, uint8_t method)
{
	uint8_t rec[SA_SVC_REC_SIZE] = {0}, gid[16];
	const uint64_t mask = 1ull << SA_SVC_REC_C_ID | 1ull << SA_SVC_REC_C_GID;

	sa_put(rec, &sa_svc_rec_desc.comp[SA_SVC_REC_C_ID], id);
	tl_gid(r, lid, gid);
	memcpy(rec + sa_svc_rec_desc.comp[SA_SVC_REC_C_GID].bit / 8, gid, 16);
	sa_put(rec, &sa_svc_rec_desc.comp[SA_SVC_REC_C_LEASE], SA_SVC_LEASE_FOREVER);
	return tl_req(r, lid, method, SA_ATTR_SERVICE_RECORD, mask, rec, sizeof(rec), 0);
}

static void test_service_quota(void)
{
	struct tl_rig r;

	tl_init(&r, 1024);
	r.sa->lim.services_per_port = 2;
	CU_ASSERT_EQUAL(tl_service(&r, 2, 1, SA_METHOD_SET), SA_STATUS_OK);
	CU_ASSERT_EQUAL(tl_service(&r, 2, 2, SA_METHOD_SET), SA_STATUS_OK);
	CU_ASSERT_EQUAL(tl_service(&r, 2, 2, SA_METHOD_SET), SA_STATUS_OK); /* a refresh */
	CU_ASSERT_EQUAL(tl_service(&r, 2, 3, SA_METHOD_SET), SA_STATUS_NO_RESOURCES);
	CU_ASSERT_EQUAL(tl_service(&r, 3, 3, SA_METHOD_SET), SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(r.n_notes, 1);
	CU_ASSERT_EQUAL(r.notes[0].quota, SA_QUOTA_SERVICES);
	CU_ASSERT_EQUAL(r.notes[0].lid, 2);
	CU_ASSERT_EQUAL(tl_service(&r, 2, 1, SA_METHOD_DELETE), SA_STATUS_OK);
	CU_ASSERT_EQUAL(tl_service(&r, 2, 3, SA_METHOD_SET), SA_STATUS_OK);
	tl_fini(&r);
}

/* Port lid subscribes to trap 64 of LIDs 1..end (end tells them apart). */
static uint16_t tl_subscribe(struct tl_rig *r, uint16_t lid, uint16_t end, uint8_t on)
{
	struct sa_svc_inform ii = {0};
	uint8_t rec[SA_SVC_INFORM_SIZE];

	ii.is_generic = 1;
	ii.subscribe = on;
	ii.trap_num = SA_SVC_TRAP_GID_IN;
	ii.type = SA_SVC_TYPE_ALL;
	ii.producer = SA_SVC_PRODUCER_ALL;
	ii.lid_begin = 1;
	ii.lid_end = end;
	ii.qpn = 1;
	sa_svc_inform_encode(&ii, rec);
	return tl_req(r, lid, SA_METHOD_SET, SA_ATTR_INFORM_INFO, 0, rec, SA_SVC_INFORM_LEN, 0);
}

static void test_sub_quota(void)
{
	struct tl_rig r;

	tl_init(&r, 1024);
	r.sa->lim.subs_per_port = 4;
	for (uint16_t i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(tl_subscribe(&r, 2, (uint16_t)(100 + i), 1), SA_STATUS_OK);
	CU_ASSERT_EQUAL(tl_subscribe(&r, 2, 100, 1), SA_STATUS_OK); /* the same one again */
	CU_ASSERT_EQUAL(tl_subscribe(&r, 2, 200, 1), SA_STATUS_NO_RESOURCES);
	CU_ASSERT_EQUAL(tl_subscribe(&r, 3, 200, 1), SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(r.n_notes, 1);
	CU_ASSERT_EQUAL(r.notes[0].quota, SA_QUOTA_SUBS);
	CU_ASSERT_EQUAL(tl_subscribe(&r, 2, 100, 0), SA_STATUS_OK);
	CU_ASSERT_EQUAL(tl_subscribe(&r, 2, 200, 1), SA_STATUS_OK);
	tl_fini(&r);
}

/* ---- Reports ---------------------------------------------------------------------- */

static void tl_ack(struct tl_rig *r, unsigned i)
{
	struct sa_mad h = {0};
	struct mad_addr from = {r->report_lid[i], 0, 1};
	uint8_t buf[SA_MAD_SIZE];

	h.class_version = SA_CLASS_VERSION;
	h.method = SA_METHOD_REPORT_RESP;
	h.tid = r->report_tid[i];
	h.attr_id = SA_ATTR_NOTICE;
	sa_encode(&h, NULL, 0, 0, buf, sizeof(buf));
	sa_recv(r->sa, &from, buf, sizeof(buf), 0);
}

static void test_report_retry_drop(void)
{
	struct tl_rig r;
	uint8_t gid[16];
	uint64_t due;

	tl_init(&r, 1024);
	CU_ASSERT_EQUAL(tl_subscribe(&r, 2, 100, 1), SA_STATUS_OK); /* h1 never answers */
	CU_ASSERT_EQUAL(tl_subscribe(&r, 3, 100, 1), SA_STATUS_OK); /* h2 does */
	tl_gid(&r, 4, gid);
	sa_svc_port_event(r.sa, gid, SA_SVC_TRAP_GID_IN, 1000);
	CU_ASSERT_EQUAL_FATAL(r.reports, 2);
	tl_ack(&r, r.report_lid[0] == 3 ? 0 : 1);
	/* nothing before the wait is over; then h1's again, same TID */
	due = sa_tick(r.sa, 1500);
	CU_ASSERT_EQUAL(due, 1000 + SA_LIMIT_REPORT_WAIT_MS);
	CU_ASSERT_EQUAL(r.reports, 2);
	for (unsigned t = 1; t <= SA_LIMIT_REPORT_RETRIES; t++) {
		sa_tick(r.sa, 1000 + t * SA_LIMIT_REPORT_WAIT_MS);
		CU_ASSERT_EQUAL_FATAL(r.reports, 2 + t);
		CU_ASSERT_EQUAL(r.report_lid[1 + t], 2);
		CU_ASSERT_EQUAL(r.report_tid[1 + t] & 0xffffffff,
				r.report_tid[r.report_lid[0] == 2 ? 0 : 1] & 0xffffffff);
	}
	CU_ASSERT_EQUAL(r.sa->counters.report_retries, SA_LIMIT_REPORT_RETRIES);
	CU_ASSERT_EQUAL(r.n_notes, 0);
	/* no answer to the last try either: the subscription goes */
	sa_tick(r.sa, 1000 + (SA_LIMIT_REPORT_RETRIES + 1) * SA_LIMIT_REPORT_WAIT_MS);
	CU_ASSERT_EQUAL(r.reports, 2 + SA_LIMIT_REPORT_RETRIES);
	CU_ASSERT_EQUAL_FATAL(r.n_notes, 1);
	CU_ASSERT_EQUAL(r.notes[0].kind, SA_NOTE_SUB_DROPPED);
	CU_ASSERT_EQUAL(r.notes[0].lid, 2);
	CU_ASSERT_EQUAL(r.notes[0].tries, SA_LIMIT_REPORT_RETRIES + 1);
	CU_ASSERT_EQUAL(r.sa->counters.subs_dropped, 1);
	CU_ASSERT_EQUAL(sa_quota_used(r.sa->quota, r.notes[0].port_guid, SA_QUOTA_SUBS), 0);
	/* h2 answered: it keeps its subscription and gets the next one */
	sa_svc_port_event(r.sa, gid, SA_SVC_TRAP_GID_IN, 9000);
	CU_ASSERT_EQUAL(r.reports, 3 + SA_LIMIT_REPORT_RETRIES);
	CU_ASSERT_EQUAL(r.report_lid[2 + SA_LIMIT_REPORT_RETRIES], 3);
	CU_ASSERT_EQUAL(sa_tick(r.sa, 9001), 9000 + SA_LIMIT_REPORT_WAIT_MS);
	tl_fini(&r);
}

static void test_report_rate(void)
{
	struct tl_rig r;
	uint8_t gid[16];

	tl_init(&r, 1024);
	r.sa->lim.reports_per_s = 4;
	for (uint16_t i = 0; i < 10; i++)
		CU_ASSERT_EQUAL(tl_subscribe(&r, 2, (uint16_t)(100 + i), 1), SA_STATUS_OK);
	CU_ASSERT_EQUAL(tl_subscribe(&r, 3, 100, 1), SA_STATUS_OK);
	tl_gid(&r, 4, gid);
	/* h1's ten subscriptions share its 4 a second; h2 has its own */
	sa_svc_port_event(r.sa, gid, SA_SVC_TRAP_GID_IN, 1000);
	CU_ASSERT_EQUAL(r.reports, 5);
	CU_ASSERT_EQUAL(r.sa->counters.report_deferred, 6);
	CU_ASSERT_EQUAL_FATAL(r.report_lid[4], 3);
	tl_ack(&r, 4); /* h2 answers: no retry of its own below */
	CU_ASSERT(sa_tick(r.sa, 1000) > 1000);
	sa_tick(r.sa, 1250); /* one more token */
	CU_ASSERT_EQUAL(r.reports, 6);
	sa_tick(r.sa, 2000); /* three more */
	CU_ASSERT_EQUAL(r.reports, 9);
	/* a full MAD port queue: nothing lost, tried again at the next tick */
	r.refuse_sends = 1;
	sa_tick(r.sa, 3000);
	CU_ASSERT_EQUAL(r.reports, 9);
	r.refuse_sends = 0;
	sa_tick(r.sa, 3100);
	CU_ASSERT(r.reports > 9);
	tl_fini(&r);
}

/* ---- policy sa: -> the SA -------------------------------------------------------- */

static void test_policy_defaults(void)
{
	struct policy p;
	struct sa_limits lim;
	struct tl_rig r;

	/* the policy's defaults are the SA's own */
	tl_init(&r, 0);
	opts_sa_limits(NULL, &lim);
	CU_ASSERT_EQUAL(memcmp(&lim, &r.sa->lim, sizeof(lim)), 0);
	CU_ASSERT_EQUAL(lim.groups_per_port, SA_LIMIT_GROUPS_PER_PORT);
	CU_ASSERT_EQUAL(lim.report_retries, SA_LIMIT_REPORT_RETRIES);
	tl_fini(&r);
	policy_init(&p);
	opts_sa_limits(&p, &lim);
	CU_ASSERT_EQUAL(lim.services_per_port, SA_LIMIT_SERVICES_PER_PORT);
	CU_ASSERT_EQUAL(lim.subs_per_port, SA_LIMIT_SUBS_PER_PORT);
	CU_ASSERT_EQUAL(lim.reports_per_s, SA_LIMIT_REPORTS_PER_S);
	p.sa.subscriptions_per_port = 1024;
	opts_sa_limits(&p, &lim);
	CU_ASSERT_EQUAL(lim.subs_per_port, 1024);
	policy_fini(&p);
}

void test_sa_limits_register(void)
{
	CU_pSuite s = CU_add_suite("sa_limits", NULL, NULL);

	CU_add_test(s, "per-port counts and top users", test_quota_counts);
	CU_add_test(s, "MLIDs bounded by MulticastFDBCap", test_mlid_cap);
	CU_add_test(s, "groups per port", test_group_quota);
	CU_add_test(s, "services per port", test_service_quota);
	CU_add_test(s, "subscriptions per port", test_sub_quota);
	CU_add_test(s, "Reports retried, then the subscription dropped", test_report_retry_drop);
	CU_add_test(s, "Reports rate-limited per subscriber port", test_report_rate);
	CU_add_test(s, "policy sa: defaults are the SA's", test_policy_defaults);
}
