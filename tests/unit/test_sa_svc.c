/*
 * test_sa_svc.c - ServiceRecord, InformInfo, InformInfoRecord and Notice:
 * the codecs (mad/sa_svc.c; byte offsets from IBA 15.2.5.14, 13.4.8.3,
 * 13.4.8.2, cross-checked with libibmad's IB_SA_SR_* / IB_NOTICE_* fields)
 * and the registry/subscription/report logic (sm/sa/services.c) driven through
 * sa_svc_handle with a fake transmit that records what is sent.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "config/pkey.h"
#include "mad/sa.h"
#include "mad/sa_svc.h"
#include "routing/topo_file.h"
#include "sm/sa/server.h"
#include "sm/sa/services.h"
#include "tests/unit/unit.h"

/* sw LID 1, h1 LID 2, h2 LID 3 (node order of the text). */
static const char tsv_topo[] = "Switch 4 \"sw\"\n"
			       "[1] \"h1\"[1]\n"
			       "[2] \"h2\"[1]\n"
			       "\n"
			       "Hca 1 \"h1\"\n"
			       "[1] \"sw\"[1]\n"
			       "\n"
			       "Hca 1 \"h2\"\n"
			       "[1] \"sw\"[2]\n";

static const char tsv_topo_small[] = "Switch 4 \"sw\"\n"
				     "[1] \"h1\"[1]\n"
				     "\n"
				     "Hca 1 \"h1\"\n"
				     "[1] \"sw\"[1]\n";

#define TSV_SENT_MAX 8
#define TSV_SM_KEY 0x1ull /* the subnet's SM_Key in every view of the rig */

struct tsv_sent {
	int n;
	struct mad_addr to[TSV_SENT_MAX];
	uint8_t mad[TSV_SENT_MAX][SA_MAD_SIZE];
	size_t len[TSV_SENT_MAX];
};

struct tsv_rig {
	struct fabric f, f_small;
	struct tsv_sent sent;
	struct sa *sa;
	int own_svc; /* the test created sa->svc (sa_modules did not) */
	const struct pkey_plan *pk; /* partitions of the next view; NULL: none */
	uint64_t key;		    /* SM_Key the requests carry (0: untrusted) */
};

static int tsv_send(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	struct tsv_sent *s = ctx;

	if (s->n < TSV_SENT_MAX) {
		s->to[s->n] = *to;
		s->len[s->n] = len < SA_MAD_SIZE ? len : SA_MAD_SIZE;
		memcpy(s->mad[s->n], mad, s->len[s->n]);
	}
	s->n++;
	return 0;
}

static void tsv_fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + 11 * i + 3);
}

static uint64_t tsv_be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static void tsv_lids(struct fabric *f)
{
	uint16_t lid = 1;

	for (size_t n = 0; n < f->n_nodes; n++) {
		struct fabric_node *nd = &f->nodes[n];

		nd->ports[fabric_is_switch(nd) ? 0 : 1].lid = lid++;
	}
}

static void tsv_view(struct tsv_rig *r, const struct fabric *f)
{
	struct sa_view v = { 0 };

	v.f = f;
	v.pk = r->pk;
	v.sm_key = TSV_SM_KEY;
	v.subnet_prefix = 0xfe80000000000000ull;
	v.sm_lid = 1;
	v.sm_guid = 0x0011223344556677ull;
	v.route_gen = f == &r->f ? 1 : 2;
	CU_ASSERT_EQUAL(sa_update(r->sa, &v), 0);
}

static void tsv_rig_init(struct tsv_rig *r)
{
	char err[256];
	struct mad_xmit x = { tsv_send, &r->sent };

	memset(r, 0, sizeof(*r));
	fabric_init(&r->f);
	fabric_init(&r->f_small);
	CU_ASSERT_EQUAL_FATAL(topo_parse(tsv_topo, strlen(tsv_topo), "t", &r->f, err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL_FATAL(topo_parse(tsv_topo_small, strlen(tsv_topo_small), "s", &r->f_small,
					 err, sizeof(err)),
			      0);
	tsv_lids(&r->f);
	tsv_lids(&r->f_small);
	r->sa = sa_new(&x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->sa);
	if (!r->sa->svc) {
		r->sa->svc = sa_svc_new();
		r->own_svc = 1;
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->sa->svc);
	tsv_view(r, &r->f);
}

static void tsv_rig_fini(struct tsv_rig *r)
{
	if (r->own_svc) {
		sa_svc_free(r->sa->svc);
		r->sa->svc = NULL;
	}
	sa_free(r->sa);
	fabric_fini(&r->f);
	fabric_fini(&r->f_small);
}

/* Run one request from LID `lid` through sa_svc_handle; out is reset. */
static uint16_t tsv_call(struct tsv_rig *r, uint16_t lid, uint8_t method, uint16_t attr,
			 uint64_t mask, const uint8_t *rec, size_t rec_len, uint64_t now,
			 struct sa_out *out)
{
	struct sa_mad m = { 0 };
	struct sa_req req;

	m.base_version = 1;
	m.mgmt_class = SA_CLASS;
	m.class_version = SA_CLASS_VERSION;
	m.method = method;
	m.attr_id = attr;
	m.comp_mask = mask;
	m.sm_key = r->key;
	m.tid = 0x77;
	if (rec)
		memcpy(m.data, rec, rec_len);
	req.mad = &m;
	req.from = (struct mad_addr){ lid, 0, 0x1234 };
	req.requester = sa_by_lid(r->sa, lid);
	req.now_ms = now;
	free(out->recs);
	memset(out, 0, sizeof(*out));
	return sa_svc_handle(r->sa, &req, out);
}

static void tsv_port_gid(struct tsv_rig *r, uint16_t lid, uint8_t gid[16])
{
	sa_port_gid(r->sa, sa_by_lid(r->sa, lid), gid);
}

/* ---- codecs -------------------------------------------------------------- */

static void test_sa_svc_rec_bytes(void)
{
	struct sa_svc_rec in = { 0 }, out;
	uint8_t rec[SA_SVC_REC_SIZE], gid[16];

	in.id = 0x0102030405060708ull;
	tsv_fill(in.gid, 16, 1);
	in.pkey = 0x8001;
	in.lease = 0xa1b2c3d4;
	tsv_fill(in.key, 16, 2);
	memcpy(in.name, "nanosm-test", 11);
	tsv_fill(in.data8, 16, 3);
	for (int i = 0; i < 8; i++)
		in.data16[i] = (uint16_t)(0x1100 + i);
	for (int i = 0; i < 4; i++)
		in.data32[i] = 0x22000000u + (uint32_t)i;
	in.data64[0] = 0x3300000000000001ull;
	in.data64[1] = 0x4400000000000002ull;
	memset(rec, 0xee, sizeof(rec));
	sa_svc_rec_encode(&in, rec);
	/* IBA 15.2.5.14 offsets */
	CU_ASSERT_EQUAL(tsv_be(rec + 0, 8), in.id);
	CU_ASSERT(memcmp(rec + 8, in.gid, 16) == 0);
	CU_ASSERT_EQUAL(tsv_be(rec + 24, 2), 0x8001);
	CU_ASSERT_EQUAL(tsv_be(rec + 26, 2), 0); /* reserved */
	CU_ASSERT_EQUAL(tsv_be(rec + 28, 4), 0xa1b2c3d4);
	CU_ASSERT(memcmp(rec + 32, in.key, 16) == 0);
	CU_ASSERT(memcmp(rec + 48, "nanosm-test", 11) == 0);
	CU_ASSERT_EQUAL(rec[59], 0);
	CU_ASSERT(memcmp(rec + 112, in.data8, 16) == 0);
	CU_ASSERT_EQUAL(tsv_be(rec + 128, 2), 0x1100);
	CU_ASSERT_EQUAL(tsv_be(rec + 142, 2), 0x1107);
	CU_ASSERT_EQUAL(tsv_be(rec + 144, 4), 0x22000000);
	CU_ASSERT_EQUAL(tsv_be(rec + 156, 4), 0x22000003);
	CU_ASSERT_EQUAL(tsv_be(rec + 160, 8), in.data64[0]);
	CU_ASSERT_EQUAL(tsv_be(rec + 168, 8), in.data64[1]);
	/* the same bytes through libibmad's ServiceRecord fields */
	CU_ASSERT_EQUAL(mad_get_field64(rec, 0, IB_SA_SR_ID_F), in.id);
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_SA_SR_PKEY_F), 0x8001);
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_SA_SR_LEASE_F), 0xa1b2c3d4);
	mad_get_array(rec, 0, IB_SA_SR_GID_F, gid);
	CU_ASSERT(memcmp(gid, in.gid, 16) == 0);
	/* the component table agrees with the spec */
	CU_ASSERT_EQUAL(sa_svc_rec_desc.n_comp, 37);
	CU_ASSERT_EQUAL(sa_svc_rec_desc.size, 176);
	CU_ASSERT_EQUAL(sa_svc_rec_desc.comp[SA_SVC_REC_C_NAME].bit, 48 * 8);
	CU_ASSERT_EQUAL(sa_svc_rec_desc.comp[SA_SVC_REC_C_DATA64 + 1].bit, 168 * 8);
	CU_ASSERT_EQUAL(sa_get(rec, &sa_svc_rec_desc.comp[SA_SVC_REC_C_DATA8 + 15]), in.data8[15]);
	sa_svc_rec_decode(rec, &out);
	CU_ASSERT(memcmp(&in, &out, sizeof(in)) == 0);
}

static void test_sa_svc_inform_bytes(void)
{
	struct sa_svc_inform in = { 0 }, out;
	struct sa_svc_iir ir = { 0 }, ir2;
	uint8_t rec[SA_SVC_IIR_SIZE];

	tsv_fill(in.gid, 16, 5);
	in.lid_begin = 0x0102;
	in.lid_end = 0x0304;
	in.is_generic = 1;
	in.subscribe = 1;
	in.type = 0x0506;
	in.trap_num = 64;
	in.qpn = 0xabcdef;
	in.resp_time = 0x13;
	in.producer = 0x123456;
	memset(rec, 0xee, sizeof(rec));
	sa_svc_inform_encode(&in, rec);
	/* IBA 13.4.8.3 offsets */
	CU_ASSERT(memcmp(rec, in.gid, 16) == 0);
	CU_ASSERT_EQUAL(tsv_be(rec + 16, 2), 0x0102);
	CU_ASSERT_EQUAL(tsv_be(rec + 18, 2), 0x0304);
	CU_ASSERT_EQUAL(tsv_be(rec + 20, 2), 0);
	CU_ASSERT_EQUAL(rec[22], 1);
	CU_ASSERT_EQUAL(rec[23], 1);
	CU_ASSERT_EQUAL(tsv_be(rec + 24, 2), 0x0506);
	CU_ASSERT_EQUAL(tsv_be(rec + 26, 2), 64);
	CU_ASSERT_EQUAL(tsv_be(rec + 28, 3), 0xabcdef);
	CU_ASSERT_EQUAL(rec[31], 0x13); /* 3 reserved bits, RespTimeValue */
	CU_ASSERT_EQUAL(rec[32], 0);
	CU_ASSERT_EQUAL(tsv_be(rec + 33, 3), 0x123456);
	CU_ASSERT_EQUAL(rec[36], 0xee); /* 36 bytes written, no more */
	sa_svc_inform_decode(rec, &out);
	CU_ASSERT(memcmp(&in, &out, sizeof(in)) == 0);
	/* InformInfoRecord: SubscriberGID, Enum, 6 reserved, InformInfo at 24 */
	tsv_fill(ir.subscriber_gid, 16, 9);
	ir.enum_id = 0xbeef;
	ir.ii = in;
	memset(rec, 0xee, sizeof(rec));
	sa_svc_iir_encode(&ir, rec);
	CU_ASSERT(memcmp(rec, ir.subscriber_gid, 16) == 0);
	CU_ASSERT_EQUAL(tsv_be(rec + 16, 2), 0xbeef);
	CU_ASSERT_EQUAL(tsv_be(rec + 18, 6), 0);
	CU_ASSERT(memcmp(rec + 24, in.gid, 16) == 0);
	CU_ASSERT_EQUAL(tsv_be(rec + 24 + 26, 2), 64);
	CU_ASSERT_EQUAL(tsv_be(rec + 24 + 33, 3), 0x123456);
	CU_ASSERT_EQUAL(tsv_be(rec + 60, 4), 0);
	CU_ASSERT_EQUAL(sa_get(rec, &sa_svc_iir_desc.comp[SA_SVC_IIR_C_INFORM +
							  SA_SVC_INFORM_C_QPN]),
			0xabcdef);
	sa_svc_iir_decode(rec, &ir2);
	CU_ASSERT(memcmp(&ir, &ir2, sizeof(ir)) == 0);
}

static void test_sa_svc_notice_bytes(void)
{
	struct sa_svc_notice in = { 0 }, out;
	uint8_t rec[SA_SVC_NOTICE_SIZE], gid[16], g2[16];

	in.is_generic = 1;
	in.type = SA_SVC_NOTICE_TYPE_SM;
	in.producer = SA_SVC_PRODUCER_CLASS_MGR;
	in.trap_num = SA_SVC_TRAP_GID_IN;
	in.issuer_lid = 0x0a0b;
	in.toggle = 1;
	in.count = 0x1234;
	tsv_fill(gid, 16, 7);
	sa_svc_notice_set_gid(&in, gid);
	tsv_fill(in.issuer_gid, 16, 8);
	sa_svc_notice_encode(&in, rec);
	/* IBA 13.4.8.2 offsets */
	CU_ASSERT_EQUAL(rec[0], 0x83); /* IsGeneric 1, Type 3 */
	CU_ASSERT_EQUAL(tsv_be(rec + 1, 3), 4);
	CU_ASSERT_EQUAL(tsv_be(rec + 4, 2), 64);
	CU_ASSERT_EQUAL(tsv_be(rec + 6, 2), 0x0a0b);
	CU_ASSERT_EQUAL(tsv_be(rec + 8, 2), 0x8000 | 0x1234); /* toggle, 15-bit count */
	CU_ASSERT_EQUAL(tsv_be(rec + 10, 6), 0); /* DataDetails reserved (traps 64..67) */
	CU_ASSERT(memcmp(rec + 16, gid, 16) == 0);
	CU_ASSERT(memcmp(rec + 64, in.issuer_gid, 16) == 0);
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_NOTICE_TRAP_NUMBER_F), 64);
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_NOTICE_TYPE_F), 3);
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_NOTICE_PRODUCER_F), 4);
	CU_ASSERT_EQUAL(mad_get_field(rec, 0, IB_NOTICE_TOGGLE_F), 1);
	sa_svc_notice_decode(rec, &out);
	CU_ASSERT(memcmp(&in, &out, sizeof(in)) == 0);
	CU_ASSERT_EQUAL(sa_svc_notice_gid(&out, g2), 0);
	CU_ASSERT(memcmp(g2, gid, 16) == 0);
	out.trap_num = 128;
	CU_ASSERT_EQUAL(sa_svc_notice_gid(&out, g2), -EINVAL);
}

/* ---- services ------------------------------------------------------------- */

#define TSV_SR_KEY (1ull << SA_SVC_REC_C_ID | 1ull << SA_SVC_REC_C_GID)

static void tsv_service(struct tsv_rig *r, uint16_t lid, uint64_t id, uint32_t lease,
			const char *name, uint8_t rec[SA_SVC_REC_SIZE])
{
	struct sa_svc_rec s = { 0 };

	s.id = id;
	tsv_port_gid(r, lid, s.gid);
	s.pkey = 0xffff;
	s.lease = lease;
	memcpy(s.name, name, strnlen(name, sizeof(s.name)));
	s.data32[0] = (uint32_t)id;
	sa_svc_rec_encode(&s, rec);
}

static void test_sa_svc_services(void)
{
	struct tsv_rig r;
	struct sa_out out = { 0 };
	struct sa_svc_rec got;
	struct sa_svc_stats st;
	uint8_t a[SA_SVC_REC_SIZE], b[SA_SVC_REC_SIZE], q[SA_SVC_REC_SIZE] = { 0 };

	tsv_rig_init(&r);
	tsv_service(&r, 2, 0x1000, SA_SVC_LEASE_FOREVER, "alpha", a);
	tsv_service(&r, 3, 0x2000, SA_SVC_LEASE_FOREVER, "beta", b);
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, TSV_SR_KEY, a,
				 sizeof(a), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	CU_ASSERT_EQUAL(out.rec_size, SA_SVC_REC_SIZE);
	CU_ASSERT(memcmp(out.recs, a, sizeof(a)) == 0);
	CU_ASSERT_EQUAL(tsv_call(&r, 3, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, TSV_SR_KEY, b,
				 sizeof(b), 0, &out),
			SA_STATUS_OK);
	/* refresh: same key, new name: still two services */
	memcpy(a + 48, "alpha2", 6);
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, TSV_SR_KEY, a,
				 sizeof(a), 0, &out),
			SA_STATUS_OK);
	sa_svc_get_stats(r.sa->svc, &st);
	CU_ASSERT_EQUAL(st.services, 2);
	/* GetTable, empty mask: both */
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_GET_TABLE, SA_ATTR_SERVICE_RECORD, 0, q,
				 sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 2);
	/* by name */
	memcpy(q + 48, "alpha2", 6);
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_GET, SA_ATTR_SERVICE_RECORD,
				 1ull << SA_SVC_REC_C_NAME, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	sa_svc_rec_decode(out.recs, &got);
	CU_ASSERT_EQUAL(got.id, 0x1000);
	/* by ServiceData32.1 */
	memset(q, 0, sizeof(q));
	q[144 + 2] = 0x20; /* 0x00002000 */
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_GET_TABLE, SA_ATTR_SERVICE_RECORD,
				 1ull << SA_SVC_REC_C_DATA32, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	sa_svc_rec_decode(out.recs, &got);
	CU_ASSERT_EQUAL(got.id, 0x2000);
	/* Delete the first, answered with it */
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_DELETE, SA_ATTR_SERVICE_RECORD, TSV_SR_KEY, a,
				 sizeof(a), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	sa_svc_rec_decode(out.recs, &got);
	CU_ASSERT_EQUAL(got.id, 0x1000);
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_DELETE, SA_ATTR_SERVICE_RECORD, TSV_SR_KEY, a,
				 sizeof(a), 0, &out),
			SA_STATUS_NO_RECORDS);
	sa_svc_get_stats(r.sa->svc, &st);
	CU_ASSERT_EQUAL(st.services, 1);
	free(out.recs);
	tsv_rig_fini(&r);
}

static void test_sa_svc_lease(void)
{
	struct tsv_rig r;
	struct sa_out out = { 0 };
	struct sa_svc_stats st;
	uint8_t a[SA_SVC_REC_SIZE], b[SA_SVC_REC_SIZE], q[SA_SVC_REC_SIZE] = { 0 };

	tsv_rig_init(&r);
	tsv_service(&r, 2, 1, 10, "ten-seconds", a);
	tsv_service(&r, 3, 2, SA_SVC_LEASE_FOREVER, "forever", b);
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, TSV_SR_KEY, a,
				 sizeof(a), 1000, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(tsv_call(&r, 3, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, TSV_SR_KEY, b,
				 sizeof(b), 1000, &out),
			SA_STATUS_OK);
	sa_svc_tick(r.sa, 10999);
	sa_svc_get_stats(r.sa->svc, &st);
	CU_ASSERT_EQUAL(st.services, 2);
	/* a refresh at 5 s moves the end to 15 s */
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, TSV_SR_KEY, a,
				 sizeof(a), 5000, &out),
			SA_STATUS_OK);
	sa_svc_tick(r.sa, 14999);
	sa_svc_get_stats(r.sa->svc, &st);
	CU_ASSERT_EQUAL(st.services, 2);
	sa_svc_tick(r.sa, 15000);
	sa_svc_get_stats(r.sa->svc, &st);
	CU_ASSERT_EQUAL(st.services, 1);
	/* a query after the end never sees an expired lease, even without a tick */
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, TSV_SR_KEY, a,
				 sizeof(a), 20000, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_GET_TABLE, SA_ATTR_SERVICE_RECORD, 0, q,
				 sizeof(q), 30000, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 1);
	sa_svc_tick(r.sa, UINT64_MAX - 1); /* forever is forever */
	sa_svc_get_stats(r.sa->svc, &st);
	CU_ASSERT_EQUAL(st.services, 1);
	free(out.recs);
	tsv_rig_fini(&r);
}

static void test_sa_svc_prune(void)
{
	struct tsv_rig r;
	struct sa_out out = { 0 };
	struct sa_svc_stats st;
	struct sa_svc_inform ii = { 0 };
	uint8_t a[SA_SVC_REC_SIZE], b[SA_SVC_REC_SIZE], rec[SA_SVC_INFORM_SIZE];

	tsv_rig_init(&r);
	tsv_service(&r, 2, 1, SA_SVC_LEASE_FOREVER, "on-h1", a);
	tsv_service(&r, 3, 2, SA_SVC_LEASE_FOREVER, "on-h2", b);
	tsv_call(&r, 2, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, TSV_SR_KEY, a, sizeof(a), 0, &out);
	tsv_call(&r, 3, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, TSV_SR_KEY, b, sizeof(b), 0, &out);
	ii.is_generic = 1;
	ii.subscribe = 1;
	ii.trap_num = SA_SVC_TRAP_ALL;
	ii.type = SA_SVC_TYPE_ALL;
	ii.producer = SA_SVC_PRODUCER_ALL;
	ii.lid_begin = SA_SVC_LID_ALL;
	sa_svc_inform_encode(&ii, rec);
	CU_ASSERT_EQUAL(tsv_call(&r, 3, SA_METHOD_SET, SA_ATTR_INFORM_INFO, 0, rec,
				 SA_SVC_INFORM_LEN, 0, &out),
			SA_STATUS_OK);
	tsv_view(&r, &r.f_small); /* h2 left */
	sa_svc_prune(r.sa);
	sa_svc_get_stats(r.sa->svc, &st);
	CU_ASSERT_EQUAL(st.services, 1);
	CU_ASSERT_EQUAL(st.subscriptions, 0);
	free(out.recs);
	tsv_rig_fini(&r);
}

/* Partition 0x0010 holds h1 (LID 2, full); no rule for 0x7fff, so the
 * switch (the SM's port here) is its full member, h1 and h2 limited ones.
 * The plan goes into a new view of r. */
static void tsv_plan(struct tsv_rig *r, struct pkey_plan *pp)
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
	tsv_view(r, &r->f);
}

/* A service of port `lid` in partition pkey. */
static void tsv_service_in(struct tsv_rig *r, uint16_t lid, uint64_t id, uint16_t pkey,
			   uint8_t rec[SA_SVC_REC_SIZE])
{
	struct sa_svc_rec s;

	tsv_service(r, lid, id, SA_SVC_LEASE_FOREVER, "in-partition", rec);
	sa_svc_rec_decode(rec, &s);
	s.pkey = pkey;
	sa_svc_rec_encode(&s, rec);
}

static size_t tsv_services_now(const struct tsv_rig *r)
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
	struct tsv_rig r;
	struct sa_out out = { 0 };
	struct sa_svc_rec got;
	struct pkey_plan pp;
	uint8_t a[SA_SVC_REC_SIZE], b[SA_SVC_REC_SIZE], c[SA_SVC_REC_SIZE];
	uint8_t q[SA_SVC_REC_SIZE] = { 0 };
	const uint64_t key = TSV_SR_KEY | 1ull << SA_SVC_REC_C_PKEY;
	const uint16_t sr = SA_ATTR_SERVICE_RECORD;

	tsv_rig_init(&r);
	tsv_plan(&r, &pp);
	/* h1 registers in 0x0010, its partition; h2 may not */
	tsv_service_in(&r, 2, 0x10, 0x8010, a);
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_SET, sr, key, a, sizeof(a), 0, &out),
			SA_STATUS_OK);
	tsv_service_in(&r, 3, 0x20, 0x8010, b);
	CU_ASSERT_EQUAL(tsv_call(&r, 3, SA_METHOD_SET, sr, key, b, sizeof(b), 0, &out),
			SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(out.n, 0);
	/* nor may anyone, trusted or not, offer h2's port in 0x0010 */
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_SET, sr, key, b, sizeof(b), 0, &out),
			SA_STATUS_REQ_INVALID);
	r.key = TSV_SM_KEY;
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_SET, sr, key, b, sizeof(b), 0, &out),
			SA_STATUS_REQ_INVALID);
	r.key = 0;
	/* h2 registers in the default partition (P_Key omitted), a limited member */
	tsv_service(&r, 3, 0x30, SA_SVC_LEASE_FOREVER, "default", c);
	CU_ASSERT_EQUAL(tsv_call(&r, 3, SA_METHOD_SET, sr, TSV_SR_KEY, c, sizeof(c), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(tsv_services_now(&r), 2);
	/* GetTable: h1 sees both, h2 its partition's only */
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_GET_TABLE, sr, 0, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 2);
	CU_ASSERT_EQUAL(tsv_call(&r, 3, SA_METHOD_GET_TABLE, sr, 0, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	sa_svc_rec_decode(out.recs, &got);
	CU_ASSERT_EQUAL(got.id, 0x30);
	/* h2 asking for h1's service by ServiceID: no record */
	CU_ASSERT_EQUAL(tsv_call(&r, 3, SA_METHOD_GET, sr, 1ull << SA_SVC_REC_C_ID, a, sizeof(a),
				 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 0);
	/* a requester the SA does not know sees nothing; trusted ones everything */
	CU_ASSERT_EQUAL(tsv_call(&r, 99, SA_METHOD_GET_TABLE, sr, 0, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 0);
	r.key = TSV_SM_KEY + 1; /* not the subnet's */
	CU_ASSERT_EQUAL(tsv_call(&r, 3, SA_METHOD_GET_TABLE, sr, 0, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 1);
	r.key = TSV_SM_KEY;
	CU_ASSERT_EQUAL(tsv_call(&r, 3, SA_METHOD_GET_TABLE, sr, 0, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 2);
	/* Delete: h2 may not remove h1's service in 0x0010; trusted, it may */
	r.key = 0;
	CU_ASSERT_EQUAL(tsv_call(&r, 3, SA_METHOD_DELETE, sr, key, a, sizeof(a), 0, &out),
			SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(tsv_services_now(&r), 2);
	r.key = TSV_SM_KEY;
	CU_ASSERT_EQUAL(tsv_call(&r, 3, SA_METHOD_DELETE, sr, key, a, sizeof(a), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 1);
	CU_ASSERT_EQUAL(tsv_services_now(&r), 1);
	/* and registers for h1 in 0x0010 from h2's port */
	CU_ASSERT_EQUAL(tsv_call(&r, 3, SA_METHOD_SET, sr, key, a, sizeof(a), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(tsv_services_now(&r), 2);
	/* no partitions: the default partition is the only one */
	r.key = 0;
	r.pk = NULL;
	tsv_view(&r, &r.f);
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_SET, sr, key, a, sizeof(a), 0, &out),
			SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_GET_TABLE, sr, 0, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 1);
	free(out.recs);
	tsv_rig_fini(&r);
	pkey_plan_fini(&pp);
}

/* ---- subscriptions and reports --------------------------------------------- */

static uint16_t tsv_inform(struct tsv_rig *r, uint16_t lid, uint8_t subscribe, uint16_t trap,
			   struct sa_out *out)
{
	struct sa_svc_inform ii = { 0 };
	uint8_t rec[SA_SVC_INFORM_SIZE];

	ii.is_generic = 1;
	ii.subscribe = subscribe;
	ii.trap_num = trap;
	ii.type = SA_SVC_TYPE_ALL;
	ii.producer = SA_SVC_PRODUCER_ALL;
	ii.lid_begin = SA_SVC_LID_ALL;
	ii.qpn = 1;
	sa_svc_inform_encode(&ii, rec);
	return tsv_call(r, lid, SA_METHOD_SET, SA_ATTR_INFORM_INFO, 0, rec, SA_SVC_INFORM_LEN, 0,
			out);
}

/* The subscriber answers the i-th MAD sent (a Report) with its ReportResp. */
static void tsv_report_resp(struct tsv_rig *r, size_t i)
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
	struct tsv_rig r;
	struct sa_out out = { 0 };
	struct sa_svc_inform ii;
	struct sa_svc_notice n;
	struct sa_svc_stats st;
	struct sa_mad d, resp = { 0 };
	uint8_t gid[16], got[16];

	tsv_rig_init(&r);
	CU_ASSERT_EQUAL(tsv_inform(&r, 2, 1, SA_SVC_TRAP_GID_IN, &out), SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	CU_ASSERT_EQUAL(out.rec_size, SA_SVC_INFORM_SIZE);
	sa_svc_inform_decode(out.recs, &ii);
	CU_ASSERT_EQUAL(ii.trap_num, 64);
	CU_ASSERT_EQUAL(ii.subscribe, 1);
	tsv_port_gid(&r, 3, gid);
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
	CU_ASSERT_EQUAL(tsv_be(n.issuer_gid + 8, 8), 0x0011223344556677ull);
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
	CU_ASSERT_EQUAL(tsv_inform(&r, 2, 0, SA_SVC_TRAP_GID_IN, &out), SA_STATUS_OK);
	sa_svc_port_event(r.sa, gid, SA_SVC_TRAP_GID_IN, 300);
	CU_ASSERT_EQUAL(r.sent.n, 1);
	CU_ASSERT_EQUAL(tsv_inform(&r, 2, 0, SA_SVC_TRAP_GID_IN, &out), SA_STATUS_REQ_INVALID);
	free(out.recs);
	tsv_rig_fini(&r);
}

static void test_sa_svc_filters(void)
{
	struct tsv_rig r;
	struct sa_out out = { 0 };
	struct sa_svc_inform ii = { 0 };
	struct sa_svc_iir ir;
	uint8_t rec[SA_SVC_INFORM_SIZE], gid2[16], gid3[16], q[SA_SVC_IIR_SIZE] = { 0 };

	tsv_rig_init(&r);
	tsv_port_gid(&r, 2, gid2);
	tsv_port_gid(&r, 3, gid3);
	/* h1: every trap of LID 3 only; h2: trap 65 of any port (twice: one entry) */
	ii.is_generic = 1;
	ii.subscribe = 1;
	ii.trap_num = SA_SVC_TRAP_ALL;
	ii.type = SA_SVC_NOTICE_TYPE_SM;
	ii.producer = SA_SVC_PRODUCER_CLASS_MGR;
	ii.lid_begin = 3;
	ii.lid_end = 3;
	sa_svc_inform_encode(&ii, rec);
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_SET, SA_ATTR_INFORM_INFO, 0, rec,
				 SA_SVC_INFORM_LEN, 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(tsv_inform(&r, 3, 1, SA_SVC_TRAP_GID_OUT, &out), SA_STATUS_OK);
	CU_ASSERT_EQUAL(tsv_inform(&r, 3, 1, SA_SVC_TRAP_GID_OUT, &out), SA_STATUS_OK);
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
	r.key = TSV_SM_KEY;
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_GET_TABLE, SA_ATTR_INFORM_INFO_RECORD, 0, q,
				 sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 2);
	CU_ASSERT_EQUAL(out.rec_size, SA_SVC_IIR_SIZE);
	memcpy(q, gid3, 16);
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_GET, SA_ATTR_INFORM_INFO_RECORD,
				 1ull << SA_SVC_IIR_C_SUBSCRIBER_GID, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	sa_svc_iir_decode(out.recs, &ir);
	CU_ASSERT_EQUAL(ir.ii.trap_num, 65);
	CU_ASSERT(memcmp(ir.subscriber_gid, gid3, 16) == 0);
	/* a second subscription of h2 gets its own Enum */
	CU_ASSERT_EQUAL(tsv_inform(&r, 3, 1, SA_SVC_TRAP_GID_IN, &out), SA_STATUS_OK);
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_GET_TABLE, SA_ATTR_INFORM_INFO_RECORD,
				 1ull << SA_SVC_IIR_C_SUBSCRIBER_GID, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 2);
	CU_ASSERT_NOT_EQUAL(tsv_be(out.recs + 16, 2), tsv_be(out.recs + SA_SVC_IIR_SIZE + 16, 2));
	free(out.recs);
	tsv_rig_fini(&r);
}

/* InformInfoRecord: an untrusted requester sees its own subscriptions
 * only, with QPN 0; a trusted one every port's, with their QPNs. */
static void test_sa_svc_iir_trust(void)
{
	struct tsv_rig r;
	struct sa_out out = { 0 };
	struct sa_svc_iir ir;
	uint8_t gid2[16], gid3[16], q[SA_SVC_IIR_SIZE] = { 0 };
	const uint16_t iir = SA_ATTR_INFORM_INFO_RECORD;

	tsv_rig_init(&r);
	tsv_port_gid(&r, 2, gid2);
	tsv_port_gid(&r, 3, gid3);
	CU_ASSERT_EQUAL(tsv_inform(&r, 2, 1, SA_SVC_TRAP_GID_IN, &out), SA_STATUS_OK);
	CU_ASSERT_EQUAL(tsv_inform(&r, 3, 1, SA_SVC_TRAP_GID_OUT, &out), SA_STATUS_OK);
	/* h1: its own */
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_GET_TABLE, iir, 0, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	sa_svc_iir_decode(out.recs, &ir);
	CU_ASSERT(memcmp(ir.subscriber_gid, gid2, 16) == 0);
	CU_ASSERT_EQUAL(ir.ii.qpn, 0); /* the subscriber's QPN: trusted requesters only */
	/* h1 asking for h2's by SubscriberGID: nothing; h2 itself: its own */
	memcpy(q, gid3, 16);
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_GET, iir, 1ull << SA_SVC_IIR_C_SUBSCRIBER_GID, q,
				 sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 0);
	CU_ASSERT_EQUAL(tsv_call(&r, 3, SA_METHOD_GET, iir, 1ull << SA_SVC_IIR_C_SUBSCRIBER_GID, q,
				 sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	sa_svc_iir_decode(out.recs, &ir);
	CU_ASSERT_EQUAL(ir.ii.trap_num, SA_SVC_TRAP_GID_OUT);
	/* a wrong SM_Key is no SM_Key; an unknown requester owns nothing */
	memset(q, 0, sizeof(q));
	r.key = TSV_SM_KEY + 1;
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_GET_TABLE, iir, 0, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 1);
	r.key = 0;
	CU_ASSERT_EQUAL(tsv_call(&r, 99, SA_METHOD_GET_TABLE, iir, 0, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 0);
	/* trusted: everyone's with their QPNs, known requester or not */
	r.key = TSV_SM_KEY;
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_GET_TABLE, iir, 0, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 2);
	sa_svc_iir_decode(out.recs, &ir);
	CU_ASSERT_EQUAL(ir.ii.qpn, 1);
	CU_ASSERT_EQUAL(tsv_call(&r, 99, SA_METHOD_GET_TABLE, iir, 0, q, sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 2);
	free(out.recs);
	tsv_rig_fini(&r);
}

/* osmtest's InformInfo: all zero but Subscribe (IsGeneric 0: vendor
 * traps of VendorID 0 / DeviceID 0).  Kept and listed, never reported,
 * removed by an unsubscribe naming the same filter (any QPN). */
static void test_sa_svc_vendor_subscription(void)
{
	struct tsv_rig r;
	struct sa_out out = { 0 };
	struct sa_svc_inform ii = { 0 };
	struct sa_svc_stats st;
	uint8_t rec[SA_SVC_INFORM_SIZE], gid3[16], q[SA_SVC_IIR_SIZE] = { 0 };

	tsv_rig_init(&r);
	ii.subscribe = 1;
	sa_svc_inform_encode(&ii, rec);
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_SET, SA_ATTR_INFORM_INFO, 1ull << 8, rec,
				 SA_SVC_INFORM_LEN, 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	sa_svc_inform_decode(out.recs, &ii);
	CU_ASSERT(ii.subscribe == 1 && ii.is_generic == 0);
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_GET_TABLE, SA_ATTR_INFORM_INFO_RECORD, 0, q,
				 sizeof(q), 0, &out),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(out.n, 1);
	tsv_port_gid(&r, 3, gid3);
	sa_svc_port_event(r.sa, gid3, SA_SVC_TRAP_GID_IN, 0);
	CU_ASSERT_EQUAL(r.sent.n, 0);
	ii.subscribe = 0;
	ii.qpn = 1;
	sa_svc_inform_encode(&ii, rec);
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_SET, SA_ATTR_INFORM_INFO, 1ull << 8, rec,
				 SA_SVC_INFORM_LEN, 0, &out),
			SA_STATUS_OK);
	sa_svc_get_stats(r.sa->svc, &st);
	CU_ASSERT_EQUAL(st.subscriptions, 0);
	free(out.recs);
	tsv_rig_fini(&r);
}

/* ---- bad requests ------------------------------------------------------------ */

static void test_sa_svc_bad_requests(void)
{
	struct tsv_rig r;
	struct sa_out out = { 0 };
	uint8_t a[SA_SVC_REC_SIZE], junk[SA_DATA_SIZE];
	struct sa_svc_stats st;
	unsigned seed = 12345;

	tsv_rig_init(&r);
	tsv_service(&r, 2, 1, 10, "x", a);
	/* the key must be selected */
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD,
				 1ull << SA_SVC_REC_C_ID, a, sizeof(a), 0, &out),
			SA_STATUS_INSUF_COMPS);
	/* a bit past the last component */
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_GET_TABLE, SA_ATTR_SERVICE_RECORD, 1ull << 40, a,
				 sizeof(a), 0, &out),
			SA_STATUS_REQ_INVALID);
	/* a GID of another subnet, and an unknown port of this one */
	a[8] = 0x12;
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, TSV_SR_KEY, a,
				 sizeof(a), 0, &out),
			SA_STATUS_INVALID_GID);
	a[8] = 0xfe;
	a[23] ^= 0xff;
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, TSV_SR_KEY, a,
				 sizeof(a), 0, &out),
			SA_STATUS_INVALID_GID);
	/* InformInfo: only Set; a requester outside the view; Subscribe > 1 */
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_GET, SA_ATTR_INFORM_INFO, 0, NULL, 0, 0, &out),
			SA_STATUS_BAD_METHOD_ATTR);
	CU_ASSERT_EQUAL(tsv_inform(&r, 99, 1, 64, &out), SA_STATUS_REQ_INVALID);
	memset(junk, 0, sizeof(junk));
	junk[23] = 2;
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_SET, SA_ATTR_INFORM_INFO, 0, junk, sizeof(junk),
				 0, &out),
			SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_DELETE, SA_ATTR_INFORM_INFO_RECORD, 0, NULL, 0, 0,
				 &out),
			SA_STATUS_BAD_METHOD_ATTR);
	CU_ASSERT_EQUAL(tsv_call(&r, 2, SA_METHOD_GET, SA_ATTR_PATH_RECORD, 0, NULL, 0, 0, &out),
			SA_STATUS_BAD_METHOD_ATTR);
	/* random bytes, masks and methods: answers, never a crash */
	for (int i = 0; i < 2000; i++) {
		static const uint16_t attrs[] = { SA_ATTR_SERVICE_RECORD, SA_ATTR_INFORM_INFO,
						  SA_ATTR_INFORM_INFO_RECORD };
		uint64_t mask = 0;

		for (size_t k = 0; k < sizeof(junk); k++)
			junk[k] = (uint8_t)(rand_r(&seed) >> 7);
		for (int k = 0; k < 4; k++)
			mask = mask << 16 | (uint64_t)(rand_r(&seed) & 0xffff);
		if (i % 3 == 0)
			memcpy(junk, a, 24); /* sometimes a GID of this subnet */
		tsv_call(&r, (uint16_t)(1 + i % 4), (uint8_t)(rand_r(&seed) & 0x1f), attrs[i % 3],
			 i % 2 ? mask : mask & 0x7, junk, sizeof(junk), (uint64_t)i, &out);
	}
	sa_svc_get_stats(r.sa->svc, &st);
	CU_ASSERT(st.services <= SA_SVC_MAX_SERVICES);
	CU_ASSERT(st.subscriptions <= SA_SVC_MAX_SUBS);
	free(out.recs);
	tsv_rig_fini(&r);
}

void test_sa_svc_register(void)
{
	CU_pSuite s = CU_add_suite("sa_svc", NULL, NULL);

	CU_add_test(s, "ServiceRecord bytes", test_sa_svc_rec_bytes);
	CU_add_test(s, "InformInfo and InformInfoRecord bytes", test_sa_svc_inform_bytes);
	CU_add_test(s, "Notice bytes", test_sa_svc_notice_bytes);
	CU_add_test(s, "register, query, refresh, delete", test_sa_svc_services);
	CU_add_test(s, "lease expiry", test_sa_svc_lease);
	CU_add_test(s, "services follow the requester's partitions", test_sa_svc_partitions);
	CU_add_test(s, "ports that leave", test_sa_svc_prune);
	CU_add_test(s, "subscribe, report, ReportResp, unsubscribe", test_sa_svc_report);
	CU_add_test(s, "trap, LID filters and InformInfoRecord", test_sa_svc_filters);
	CU_add_test(s, "InformInfoRecord: own, or all when trusted", test_sa_svc_iir_trust);
	CU_add_test(s, "vendor (IsGeneric 0) subscription", test_sa_svc_vendor_subscription);
	CU_add_test(s, "bad and random requests", test_sa_svc_bad_requests);
}
