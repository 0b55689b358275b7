/*
 * test_sa_svc.c - ServiceRecord, InformInfo, InformInfoRecord and Notice:
 * the codecs (mad/sa_svc.c; byte offsets from IBA 15.2.5.14, 13.4.8.3,
 * 13.4.8.2, cross-checked with libibmad's IB_SA_SR_* / IB_NOTICE_* fields),
 * and bad or random requests to sa_svc_handle over the rig of sa_svc_test.c.
 * Suite sa_svc, which goes on with the registry (test_sa_services.c) and
 * subscriptions and reports (test_sa_inform.c) of sm/sa/services.c.
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
#include "tests/unit/unit.h"

static void tsv_fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + 11 * i + 3);
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
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 0, 8), in.id);
	CU_ASSERT(memcmp(rec + 8, in.gid, 16) == 0);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 24, 2), 0x8001);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 26, 2), 0); /* reserved */
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 28, 4), 0xa1b2c3d4);
	CU_ASSERT(memcmp(rec + 32, in.key, 16) == 0);
	CU_ASSERT(memcmp(rec + 48, "nanosm-test", 11) == 0);
	CU_ASSERT_EQUAL(rec[59], 0);
	CU_ASSERT(memcmp(rec + 112, in.data8, 16) == 0);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 128, 2), 0x1100);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 142, 2), 0x1107);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 144, 4), 0x22000000);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 156, 4), 0x22000003);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 160, 8), in.data64[0]);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 168, 8), in.data64[1]);
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
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 16, 2), 0x0102);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 18, 2), 0x0304);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 20, 2), 0);
	CU_ASSERT_EQUAL(rec[22], 1);
	CU_ASSERT_EQUAL(rec[23], 1);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 24, 2), 0x0506);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 26, 2), 64);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 28, 3), 0xabcdef);
	CU_ASSERT_EQUAL(rec[31], 0x13); /* 3 reserved bits, RespTimeValue */
	CU_ASSERT_EQUAL(rec[32], 0);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 33, 3), 0x123456);
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
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 16, 2), 0xbeef);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 18, 6), 0);
	CU_ASSERT(memcmp(rec + 24, in.gid, 16) == 0);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 24 + 26, 2), 64);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 24 + 33, 3), 0x123456);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 60, 4), 0);
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
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 1, 3), 4);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 4, 2), 64);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 6, 2), 0x0a0b);
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 8, 2), 0x8000 | 0x1234); /* toggle, 15-bit count */
	CU_ASSERT_EQUAL(sa_svc_test_be(rec + 10, 6), 0); /* DataDetails reserved (traps 64..67) */
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

/* ---- bad requests ------------------------------------------------------------ */

static void test_sa_svc_bad_requests(void)
{
	struct sa_svc_test_rig r;
	struct sa_out out = { 0 };
	uint8_t a[SA_SVC_REC_SIZE], junk[SA_DATA_SIZE];
	struct sa_svc_stats st;
	unsigned seed = 12345;

	sa_svc_test_rig_init(&r);
	sa_svc_test_service(&r, 2, 1, 10, "x", a);
	/* the key must be selected */
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD,
					 1ull << SA_SVC_REC_C_ID, a, sizeof(a), 0, &out),
			SA_STATUS_INSUF_COMPS);
	/* a bit past the last component */
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_GET_TABLE, SA_ATTR_SERVICE_RECORD,
					 1ull << 40, a, sizeof(a), 0, &out),
			SA_STATUS_REQ_INVALID);
	/* a GID of another subnet, and an unknown port of this one */
	a[8] = 0x12;
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD,
					 SA_SVC_TEST_SR_KEY, a, sizeof(a), 0, &out),
			SA_STATUS_INVALID_GID);
	a[8] = 0xfe;
	a[23] ^= 0xff;
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD,
					 SA_SVC_TEST_SR_KEY, a, sizeof(a), 0, &out),
			SA_STATUS_INVALID_GID);
	/* InformInfo: only Set; a requester outside the view; Subscribe > 1 */
	CU_ASSERT_EQUAL(
	    sa_svc_test_call(&r, 2, SA_METHOD_GET, SA_ATTR_INFORM_INFO, 0, NULL, 0, 0, &out),
	    SA_STATUS_BAD_METHOD_ATTR);
	CU_ASSERT_EQUAL(sa_svc_test_inform(&r, 99, 1, 64, &out), SA_STATUS_REQ_INVALID);
	memset(junk, 0, sizeof(junk));
	junk[23] = 2;
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_SET, SA_ATTR_INFORM_INFO, 0, junk,
					 sizeof(junk), 0, &out),
			SA_STATUS_REQ_INVALID);
	CU_ASSERT_EQUAL(sa_svc_test_call(&r, 2, SA_METHOD_DELETE, SA_ATTR_INFORM_INFO_RECORD, 0,
					 NULL, 0, 0, &out),
			SA_STATUS_BAD_METHOD_ATTR);
	CU_ASSERT_EQUAL(
	    sa_svc_test_call(&r, 2, SA_METHOD_GET, SA_ATTR_PATH_RECORD, 0, NULL, 0, 0, &out),
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
		sa_svc_test_call(&r, (uint16_t)(1 + i % 4), (uint8_t)(rand_r(&seed) & 0x1f),
				 attrs[i % 3], i % 2 ? mask : mask & 0x7, junk, sizeof(junk),
				 (uint64_t)i, &out);
	}
	sa_svc_get_stats(r.sa->svc, &st);
	CU_ASSERT(st.services <= SA_SVC_MAX_SERVICES);
	CU_ASSERT(st.subscriptions <= SA_SVC_MAX_SUBS);
	free(out.recs);
	sa_svc_test_rig_fini(&r);
}

void test_sa_svc_register(void)
{
	CU_pSuite s = CU_add_suite("sa_svc", NULL, NULL);

	CU_add_test(s, "ServiceRecord bytes", test_sa_svc_rec_bytes);
	CU_add_test(s, "InformInfo and InformInfoRecord bytes", test_sa_svc_inform_bytes);
	CU_add_test(s, "Notice bytes", test_sa_svc_notice_bytes);
	test_sa_services_add(s);
	test_sa_inform_add(s);
	CU_add_test(s, "bad and random requests", test_sa_svc_bad_requests);
}
