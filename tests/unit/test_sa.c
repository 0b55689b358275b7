/*
 * test_sa.c - the SA MAD header codec and component helpers (mad/sa.c) and
 * the SA front door (sm/sa/server.c): lookups, dispatch rules, error answers.
 * Byte offsets come from IBA 13.4.2 (common header), 13.6.2 (RMPP header)
 * and 15.2.1.1 (SA header).
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/sa.h"
#include "mad/sa_mcm.h"
#include "routing/topo_file.h"
#include "sm/core/sm.h"
#include "sm/sa/server.h"
#include "tests/unit/sm_rig.h"
#include "tests/unit/unit.h"

static const char test_sa_topo[] = "Switch 4 \"sw\"\n"
				   "[1] \"h1\"[1]\n"
				   "[2] \"h2\"[1]\n"
				   "\n"
				   "Hca 1 \"h1\"\n"
				   "[1] \"sw\"[1]\n"
				   "\n"
				   "Hca 1 \"h2\"\n"
				   "[1] \"sw\"[2]\n";

struct test_sa_sent {
	int n;
	struct mad_addr to;
	uint8_t mad[1024];
	size_t len;
};

static int test_sa_send(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	struct test_sa_sent *s = ctx;

	s->n++;
	s->to = *to;
	s->len = len < sizeof(s->mad) ? len : sizeof(s->mad);
	memcpy(s->mad, mad, s->len);
	return 0;
}

static void test_sa_header_bytes(void)
{
	struct sa_mad h = { 0 }, d;
	uint8_t buf[SA_MAD_SIZE];
	uint8_t recs[16];

	h.method = SA_METHOD_GET_TABLE_RESP;
	h.status = SA_STATUS_NO_RECORDS;
	h.tid = 0x0102030405060708ull;
	h.attr_id = SA_ATTR_NODE_RECORD;
	h.attr_mod = 0xa0b0c0d0;
	h.comp_mask = 0x1122334455667788ull;
	h.sm_key = 0x99;
	memset(recs, 0xab, sizeof(recs));
	CU_ASSERT_EQUAL(sa_encode(&h, recs, 2, 8, NULL, 0), SA_MAD_SIZE);
	CU_ASSERT_EQUAL(sa_encode(&h, recs, 2, 8, buf, sizeof(buf)), SA_MAD_SIZE);
	CU_ASSERT_EQUAL(buf[0], 1);	     /* BaseVersion */
	CU_ASSERT_EQUAL(buf[1], SA_CLASS);   /* MgmtClass */
	CU_ASSERT_EQUAL(buf[2], 2);	     /* ClassVersion */
	CU_ASSERT_EQUAL(buf[3], 0x92);	     /* R bit + GetTable */
	CU_ASSERT_EQUAL(buf[4], 0x03);	     /* Status */
	CU_ASSERT_EQUAL(buf[5], 0x00);
	CU_ASSERT_EQUAL(buf[8], 0x01);	     /* TID */
	CU_ASSERT_EQUAL(buf[15], 0x08);
	CU_ASSERT_EQUAL(buf[16], 0x00);	     /* AttributeID */
	CU_ASSERT_EQUAL(buf[17], 0x11);
	CU_ASSERT_EQUAL(buf[20], 0xa0);	     /* AttributeModifier */
	CU_ASSERT_EQUAL(buf[43], 0x99);	     /* SM_Key low byte */
	CU_ASSERT_EQUAL(buf[45], 1);	     /* AttributeOffset = 8 bytes / 8 */
	CU_ASSERT_EQUAL(buf[48], 0x11);	     /* ComponentMask */
	CU_ASSERT_EQUAL(buf[55], 0x88);
	CU_ASSERT_EQUAL(buf[56], 0xab);	     /* first record */
	CU_ASSERT_EQUAL(buf[71], 0xab);
	CU_ASSERT_EQUAL(buf[72], 0x00);
	CU_ASSERT_EQUAL(sa_decode(buf, sizeof(buf), &d), 0);
	CU_ASSERT_EQUAL(d.method, SA_METHOD_GET_TABLE_RESP);
	CU_ASSERT_EQUAL(d.tid, h.tid);
	CU_ASSERT_EQUAL(d.comp_mask, h.comp_mask);
	CU_ASSERT_EQUAL(d.attr_offset, 1);
	CU_ASSERT_EQUAL(d.status, SA_STATUS_NO_RECORDS);
	/* a long answer: header + 5 records of 64 bytes */
	CU_ASSERT_EQUAL(sa_encode(&h, NULL, 5, 64, NULL, 0), SA_HDR_SIZE + 5 * 64);
	buf[1] = 0x81;
	CU_ASSERT_EQUAL(sa_decode(buf, sizeof(buf), &d), -EINVAL);
	CU_ASSERT_EQUAL(sa_decode(buf, SA_HDR_SIZE - 1, &d), -EINVAL);
}

static void test_sa_response_rmpp(void)
{
	struct sa_mad req = { 0 }, resp;
	uint8_t buf[SA_MAD_SIZE];

	req.method = SA_METHOD_GET_TABLE;
	req.tid = 7;
	req.attr_id = SA_ATTR_PATH_RECORD;
	sa_make_response(&req, 0, &resp);
	sa_encode(&resp, NULL, 0, 0, buf, sizeof(buf));
	CU_ASSERT_EQUAL(buf[3], 0x92);
	CU_ASSERT_EQUAL(buf[24], 1);	/* RMPPVersion */
	CU_ASSERT_EQUAL(buf[25], 1);	/* RMPPType DATA */
	CU_ASSERT_EQUAL(buf[26] & 0x7, 0x7); /* Active|First|Last */
	req.method = SA_METHOD_GET;
	sa_make_response(&req, SA_STATUS_NO_RECORDS, &resp);
	sa_encode(&resp, NULL, 0, 0, buf, sizeof(buf));
	CU_ASSERT_EQUAL(buf[3], 0x81);
	CU_ASSERT_EQUAL(buf[24], 0);
	CU_ASSERT_EQUAL(buf[4], 0x03);
}

static const struct sa_field test_sa_fields[] = {
	{ 0, 16 },   /* a 16-bit number */
	{ 16, 4 },   /* a nibble */
	{ 20, 0 },   /* reserved */
	{ 24, 8 },
	{ 32, 128 }, /* a GID */
};
static const struct sa_rec_desc test_sa_desc = { 0x99, 24, "Test", test_sa_fields, 5 };

static void test_sa_components(void)
{
	uint8_t a[24] = { 0 }, b[24] = { 0 };

	sa_put(a, &test_sa_fields[0], 0xbeef);
	sa_put(a, &test_sa_fields[1], 0xa);
	CU_ASSERT_EQUAL(a[0], 0xbe);
	CU_ASSERT_EQUAL(a[1], 0xef);
	CU_ASSERT_EQUAL(a[2], 0xa0);
	CU_ASSERT_EQUAL(sa_get(a, &test_sa_fields[1]), 0xa);
	sa_put(a, &test_sa_fields[1], 0x3);
	CU_ASSERT_EQUAL(a[2], 0x30);
	memcpy(b, a, sizeof(a));
	b[2] |= 0x0f; /* reserved bits differ: still a match */
	CU_ASSERT_TRUE(sa_rec_match(&test_sa_desc, 0x1f, a, b));
	b[10] = 1; /* inside the GID */
	CU_ASSERT_FALSE(sa_rec_match(&test_sa_desc, 0x10, a, b));
	CU_ASSERT_TRUE(sa_rec_match(&test_sa_desc, 0x0f, a, b));
	b[0] = 0;
	CU_ASSERT_FALSE(sa_rec_match(&test_sa_desc, 0x01, a, b));
	CU_ASSERT_EQUAL(sa_comp_unknown(&test_sa_desc, 0x3f), 0x20);
}

struct test_sa_rig {
	struct fabric f;
	struct test_sa_sent sent;
	struct sa *sa;
};

static void test_sa_rig_init(struct test_sa_rig *r)
{
	char err[256];
	struct sa_view v = { 0 };
	struct mad_xmit x = { test_sa_send, &r->sent };
	uint16_t lid = 1;

	memset(r, 0, sizeof(*r));
	fabric_init(&r->f);
	CU_ASSERT_EQUAL_FATAL(topo_parse(test_sa_topo, strlen(test_sa_topo), "t", &r->f, err,
					 sizeof(err)), 0);
	for (size_t n = 0; n < r->f.n_nodes; n++) {
		struct fabric_node *nd = &r->f.nodes[n];

		if (fabric_is_switch(nd))
			nd->ports[0].lid = lid++;
		else
			nd->ports[1].lid = lid++;
	}
	r->sa = sa_new(&x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->sa);
	v.f = &r->f;
	v.subnet_prefix = 0xfe80000000000000ull;
	v.sm_lid = 2;
	v.route_gen = 1;
	CU_ASSERT_EQUAL(sa_update(r->sa, &v), 0);
}

static void test_sa_rig_fini(struct test_sa_rig *r)
{
	sa_free(r->sa);
	fabric_fini(&r->f);
}

static void test_sa_lookups(void)
{
	struct test_sa_rig r;
	uint8_t gid[16];
	struct sa_port_ref p;

	test_sa_rig_init(&r);
	p = sa_by_lid(r.sa, 1);
	CU_ASSERT_NOT_EQUAL_FATAL(p.node, FABRIC_NONE);
	CU_ASSERT_TRUE(fabric_is_switch(&r.f.nodes[p.node]));
	CU_ASSERT_EQUAL(p.port, 0);
	p = sa_by_lid(r.sa, 3);
	CU_ASSERT_EQUAL(p.port, 1);
	CU_ASSERT_STRING_EQUAL(r.f.nodes[p.node].desc, "h2");
	CU_ASSERT_EQUAL(sa_by_lid(r.sa, 4).node, FABRIC_NONE);
	CU_ASSERT_EQUAL(sa_by_lid(r.sa, 0).node, FABRIC_NONE);
	CU_ASSERT_EQUAL(sa_by_lid(r.sa, 0xffff).node, FABRIC_NONE);
	sa_port_gid(r.sa, p, gid);
	CU_ASSERT_EQUAL(gid[0], 0xfe);
	CU_ASSERT_EQUAL(sa_by_gid(r.sa, gid).node, p.node);
	CU_ASSERT_EQUAL(sa_by_guid(r.sa, r.f.nodes[p.node].ports[1].guid).node, p.node);
	CU_ASSERT_EQUAL(sa_port_lid(r.sa, p), 3);
	gid[0] = 0x11; /* another subnet */
	CU_ASSERT_EQUAL(sa_by_gid(r.sa, gid).node, FABRIC_NONE);
	test_sa_rig_fini(&r);
}

static void test_sa_request(struct test_sa_rig *r, uint8_t class_version, uint8_t method,
			    uint16_t attr)
{
	struct sa_mad h = { 0 };
	uint8_t buf[SA_MAD_SIZE];
	struct mad_addr from = { 3, 0, 1 };

	h.class_version = class_version;
	h.method = method;
	h.tid = 0x1234;
	h.attr_id = attr;
	sa_encode(&h, NULL, 0, 0, buf, sizeof(buf));
	buf[2] = class_version;
	r->sent.n = 0;
	sa_recv(r->sa, &from, buf, sizeof(buf), 0);
}

static void test_sa_errors(void)
{
	struct test_sa_rig r;
	struct sa_mad d;
	uint8_t junk[40] = { 1, 3 };
	struct mad_addr from = { 3, 0, 1 };

	test_sa_rig_init(&r);
	test_sa_request(&r, 2, SA_METHOD_GET, 0x7777); /* unknown attribute */
	CU_ASSERT_EQUAL_FATAL(r.sent.n, 1);
	CU_ASSERT_EQUAL(r.sent.to.lid, 3);
	CU_ASSERT_EQUAL(r.sent.to.qpn, 1);
	CU_ASSERT_EQUAL(sa_decode(r.sent.mad, r.sent.len, &d), 0);
	CU_ASSERT_EQUAL(d.status, SA_STATUS_BAD_METHOD_ATTR);
	CU_ASSERT_EQUAL(d.method, SA_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(d.tid, 0x1234);
	test_sa_request(&r, 1, SA_METHOD_GET, SA_ATTR_NODE_RECORD); /* class version 1 */
	CU_ASSERT_EQUAL(sa_decode(r.sent.mad, r.sent.len, &d), 0);
	CU_ASSERT_EQUAL(d.status, SA_STATUS_BAD_VERSION);
	test_sa_request(&r, 2, 0x33, SA_ATTR_NODE_RECORD); /* unknown method */
	CU_ASSERT_EQUAL(sa_decode(r.sent.mad, r.sent.len, &d), 0);
	CU_ASSERT_EQUAL(d.status, SA_STATUS_BAD_METHOD);
	r.sent.n = 0;
	sa_recv(r.sa, &from, junk, sizeof(junk), 0); /* runt: dropped */
	CU_ASSERT_EQUAL(r.sent.n, 0);
	CU_ASSERT_EQUAL(r.sa->counters.malformed, 1);
	CU_ASSERT_EQUAL(r.sa->counters.errors, 3);
	test_sa_rig_fini(&r);
}

/* A GetTable answer longer than one MAD leaves as one buffer: the header,
 * then every record; RMPP active, PayloadLength covering them all (the
 * kernel cuts it into segments on hardware; ibsim shows the first 256
 * bytes only). */
static void test_sa_long_answer(void)
{
	struct test_sa_rig r;
	struct sa_mad h = { 0 }, d;
	uint8_t buf[SA_MAD_SIZE];
	struct mad_addr from = { 3, 0, 1 };
	size_t n_ports = 3; /* the switch and two CAs: one NodeRecord each */
	unsigned stride;

	test_sa_rig_init(&r);
	h.class_version = SA_CLASS_VERSION;
	h.method = SA_METHOD_GET_TABLE;
	h.tid = 0x42;
	h.attr_id = SA_ATTR_NODE_RECORD;
	sa_encode(&h, NULL, 0, 0, buf, sizeof(buf));
	r.sent.n = 0;
	sa_recv(r.sa, &from, buf, sizeof(buf), 0);
	CU_ASSERT_EQUAL_FATAL(r.sent.n, 1);
	CU_ASSERT_EQUAL_FATAL(sa_decode(r.sent.mad, r.sent.len, &d), 0);
	CU_ASSERT_EQUAL(d.status, 0);
	CU_ASSERT_EQUAL(d.method, SA_METHOD_GET_TABLE_RESP);
	stride = d.attr_offset * 8u;
	CU_ASSERT_EQUAL(stride, 112); /* NodeRecord: 108 bytes padded */
	CU_ASSERT_EQUAL(r.sent.len, SA_HDR_SIZE + n_ports * stride);
	CU_ASSERT_EQUAL(r.sent.mad[24], 1);	  /* RMPPVersion */
	CU_ASSERT_EQUAL(r.sent.mad[26] & 1, 1); /* Active */
	/* PayloadLength (bytes 32..35): SA header (20) + the records */
	CU_ASSERT_EQUAL(((unsigned)r.sent.mad[34] << 8) | r.sent.mad[35], 20 + n_ports * stride);
	/* every record is there: NodeRecord LIDs 1..3 in some order */
	{
		unsigned seen = 0;

		for (size_t i = 0; i < n_ports; i++) {
			const uint8_t *rec = r.sent.mad + SA_HDR_SIZE + i * stride;
			unsigned lid = (unsigned)rec[0] << 8 | rec[1];

			if (lid >= 1 && lid <= 3)
				seen |= 1u << lid;
		}
		CU_ASSERT_EQUAL(seen, 0xe);
	}
	/* a Get of the same table: more than one record is an error */
	h.method = SA_METHOD_GET;
	sa_encode(&h, NULL, 0, 0, buf, sizeof(buf));
	sa_recv(r.sa, &from, buf, sizeof(buf), 0);
	CU_ASSERT_EQUAL_FATAL(sa_decode(r.sent.mad, r.sent.len, &d), 0);
	CU_ASSERT_EQUAL(d.status, SA_STATUS_TOO_MANY_RECORDS);
	CU_ASSERT_EQUAL(r.sent.len, SA_MAD_SIZE);
	test_sa_rig_fini(&r);
}

/* GetMulti is accepted for MultiPathRecord only, and MultiPathRecord
 * answers nothing else; a GetMulti answer is a GetMultiResp RMPP transfer
 * of PathRecords.  The rig has no LFTs: only a port's path to itself. */
static void test_sa_get_multi(void)
{
	struct test_sa_rig r;
	struct sa_mad h = { 0 }, d;
	uint8_t data[SA_DATA_SIZE] = { 0 }, buf[SA_MAD_SIZE];
	struct mad_addr from = { 3, 0, 1 };

	test_sa_rig_init(&r);
	test_sa_request(&r, 2, SA_METHOD_GET, SA_ATTR_MULTIPATH_RECORD);
	CU_ASSERT_EQUAL(sa_decode(r.sent.mad, r.sent.len, &d), 0);
	CU_ASSERT_EQUAL(d.status, SA_STATUS_BAD_METHOD_ATTR);
	test_sa_request(&r, 2, SA_METHOD_GET_TABLE, SA_ATTR_MULTIPATH_RECORD);
	CU_ASSERT_EQUAL(sa_decode(r.sent.mad, r.sent.len, &d), 0);
	CU_ASSERT_EQUAL(d.status, SA_STATUS_BAD_METHOD_ATTR);
	test_sa_request(&r, 2, SA_METHOD_GET_MULTI, SA_ATTR_NODE_RECORD);
	CU_ASSERT_EQUAL(sa_decode(r.sent.mad, r.sent.len, &d), 0);
	CU_ASSERT_EQUAL(d.status, SA_STATUS_BAD_METHOD_ATTR);
	/* h2 (LID 3) to itself: SGIDCount 1, DGIDCount 1 (IBA 15.2.5.20) */
	data[15] = 1;
	data[16] = 1;
	sa_port_gid(r.sa, sa_by_lid(r.sa, 3), data + 24);
	memcpy(data + 40, data + 24, 16);
	h.class_version = SA_CLASS_VERSION;
	h.method = SA_METHOD_GET_MULTI;
	h.tid = 0x99;
	h.attr_id = SA_ATTR_MULTIPATH_RECORD;
	h.comp_mask = 3ull << 19; /* SGIDCount, DGIDCount */
	sa_encode(&h, data, 1, sizeof(data), buf, sizeof(buf));
	r.sent.n = 0;
	sa_recv(r.sa, &from, buf, sizeof(buf), 0);
	CU_ASSERT_EQUAL_FATAL(r.sent.n, 1);
	CU_ASSERT_EQUAL(r.sent.len, SA_HDR_SIZE + 64); /* one PathRecord */
	CU_ASSERT_EQUAL(sa_decode(r.sent.mad, r.sent.len, &d), 0);
	CU_ASSERT_EQUAL(d.status, SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.sent.mad[3], 0x94); /* GetMultiResp */
	CU_ASSERT_EQUAL(d.attr_id, SA_ATTR_MULTIPATH_RECORD);
	CU_ASSERT_EQUAL(d.tid, 0x99);
	CU_ASSERT_EQUAL(d.rmpp_flags & 0x7, 0x7);
	CU_ASSERT_EQUAL(d.attr_offset, 8);
	CU_ASSERT_EQUAL(memcmp(d.data + 8, data + 24, 16), 0);	/* DGID */
	CU_ASSERT_EQUAL(d.data[41], 3);				/* DLID */
	CU_ASSERT_EQUAL(d.data[43], 3);				/* SLID */
	test_sa_rig_fini(&r);
}

/* SA requests that arrive while a sweep runs are held and answered as the
 * sweep's SMP answers come back (one each) or when it ends: a flood of SA
 * answers never queues in front of the sweep's SMPs. */
static void test_sa_held_during_sweep(void)
{
	static const char topo[] = "Hca 1 \"h1\"\n[1] \"sw\"[1]\n\n"
				   "Hca 1 \"h2\"\n[1] \"sw\"[2]\n\n"
				   "Switch 4 \"sw\"\n[1] \"h1\"[1]\n[2] \"h2\"[1]\n";
	struct rig r;
	struct sa_mad h = { 0 };
	uint8_t buf[SA_MAD_SIZE], smp[SMP_MAD_SIZE];
	struct mad_addr from = { 2, 0, 1 }, dr = { .lid = 0xffff };
	const struct sa_counters *c;

	rig_init(&r, topo, NULL, "minhop");
	rig_sweep(&r);
	c = &sm_sa(r.sm)->counters;
	h.class_version = SA_CLASS_VERSION;
	h.method = SA_METHOD_GET;
	h.attr_id = SA_ATTR_CLASS_PORT_INFO;
	sa_encode(&h, NULL, 0, 0, buf, sizeof(buf));
	/* between sweeps: answered at once */
	sm_recv(r.sm, &from, buf, sizeof(buf));
	CU_ASSERT_EQUAL(c->answered, 1);
	CU_ASSERT_EQUAL(c->deferred, 0);
	/* during a sweep: held, then one per SMP answer */
	CU_ASSERT_EQUAL_FATAL(sm_sweep_request(r.sm), 0);
	for (int i = 0; i < 3; i++) {
		h.tid = 10 + (uint64_t)i;
		sa_encode(&h, NULL, 0, 0, buf, sizeof(buf));
		sm_recv(r.sm, &from, buf, sizeof(buf));
	}
	CU_ASSERT_EQUAL(c->deferred, 3);
	CU_ASSERT_EQUAL(c->answered, 1);
	CU_ASSERT_EQUAL_FATAL(fake_fabric_pop(r.ff, smp), 1);
	sm_recv(r.sm, &dr, smp, sizeof(smp));
	CU_ASSERT_EQUAL(c->answered, 2);
	rig_run(&r);
	CU_ASSERT_EQUAL(c->answered, 4);
	CU_ASSERT_EQUAL(c->backlog_dropped, 0);
	rig_fini(&r);
}

/* A join between sweeps starts a multicast push; joins that arrive while
 * it is on the wire are answered at once (not held like requests during
 * a sweep), and the groups they changed go out together in one more push
 * when the first ends. */
static void tsa_join(struct rig *r, struct mad_addr *from, uint16_t n)
{
	const struct sa *sa = sm_sa(r->sm);
	struct sa_port_ref h1 = {rig_node(sa->v.f, "h1"), 1};
	struct sa_mcm m = {0};
	struct sa_mad h = {0};
	uint8_t buf[SA_MAD_SIZE];
	static const uint8_t head[4] = {0xff, 0x12, 0x60, 0x1b};

	memcpy(m.mgid, head, 4);
	m.mgid[15] = (uint8_t)n;
	sa_port_gid(sa, h1, m.port_gid);
	m.qkey = 0x1234, m.pkey = 0xffff, m.join_state = SA_MCM_JOIN_FULL;
	h.class_version = SA_CLASS_VERSION;
	h.method = SA_METHOD_SET;
	h.tid = 100 + n;
	h.attr_id = SA_ATTR_MCMEMBER_RECORD;
	h.comp_mask = SA_MCM_BIT(SA_MCM_COMP_MGID) | SA_MCM_BIT(SA_MCM_COMP_PORT_GID) |
		      SA_MCM_BIT(SA_MCM_COMP_JOIN_STATE) | SA_MCM_BIT(SA_MCM_COMP_QKEY) |
		      SA_MCM_BIT(SA_MCM_COMP_PKEY) | SA_MCM_BIT(SA_MCM_COMP_SL) |
		      SA_MCM_BIT(SA_MCM_COMP_FLOW_LABEL) | SA_MCM_BIT(SA_MCM_COMP_TCLASS);
	sa_encode(&h, NULL, 0, 0, buf, sizeof(buf));
	sa_mcm_encode(&m, buf + SA_HDR_SIZE);
	from->lid = sa_port_lid(sa, h1);
	sm_recv(r->sm, from, buf, sizeof(buf));
}

static void test_sa_joins_during_push(void)
{
	static const char topo[] = "Hca 1 \"h1\"\n[1] \"sw\"[1]\n\n"
				   "Hca 1 \"h2\"\n[1] \"sw\"[2]\n\n"
				   "Switch 4 \"sw\"\n[1] \"h1\"[1]\n[2] \"h2\"[1]\n";
	struct rig r;
	struct mad_addr from = {0, 0, 1};
	const struct sa_counters *c;
	uint64_t sw;

	rig_init(&r, topo, NULL, "minhop");
	rig_sweep(&r);
	c = &sm_sa(r.sm)->counters;
	sw = r.topo.nodes[rig_node(&r.topo, "sw")].guid;
	tsa_join(&r, &from, 1);
	CU_ASSERT_EQUAL(c->answered, 1);
	CU_ASSERT_EQUAL_FATAL(sm_busy(r.sm), 1); /* its push is on the wire */
	tsa_join(&r, &from, 2);
	tsa_join(&r, &from, 3);
	CU_ASSERT_EQUAL(c->answered, 3); /* at once, not held */
	CU_ASSERT_EQUAL(c->deferred, 0);
	CU_ASSERT_EQUAL(c->errors, 0);
	rig_run(&r);
	CU_ASSERT_EQUAL(sm_busy(r.sm), 0);
	/* MLID 0xC000 is the IPoIB group; the three joins' groups follow */
	for (uint16_t mlid = 0xC001; mlid <= 0xC003; mlid++)
		CU_ASSERT_EQUAL(fake_fabric_mft_port(r.ff, sw, mlid, 1), 1);
	rig_fini(&r);
}

/* Hostile SA MADs through the whole SM (a swept fabric: LFTs, P_Keys,
 * groups in the view): random lengths, methods, attributes, masks and
 * records, plus some that are valid but for one field.  Nothing may crash
 * (the ASan build runs this too), every request is counted, and the SA
 * still answers a good query afterwards. */
static void test_sa_hostile(void)
{
	static const char topo[] = "Hca 1 \"h1\"\n[1] \"s1\"[1]\n\n"
				   "Hca 1 \"h2\"\n[1] \"s2\"[1]\n\n"
				   "Switch 4 \"s1\"\n[1] \"h1\"[1]\n[2] \"s2\"[2]\n\n"
				   "Switch 4 \"s2\"\n[1] \"h2\"[1]\n[2] \"s1\"[2]\n";
	static const uint16_t attrs[] = { 0x01, 0x02, 0x03, 0x11, 0x12, 0x14, 0x15, 0x17, 0x18,
					  0x20, 0x30, 0x31, 0x33, 0x35, 0x38, 0x3a, 0xf3, 0x7777 };
	static const uint8_t methods[] = { 0x01, 0x02, 0x06, 0x12, 0x13, 0x14, 0x15, 0x81, 0x86,
					   0x92, 0x33 };
	struct rig r;
	struct mad_addr from = { 0, 0, 1 };
	uint8_t buf[SA_MAD_SIZE + 64];
	const struct sa_counters *c;
	struct sa_mad h = { 0 };
	uint64_t answered, sa_mads = 0;

	rig_init(&r, topo, NULL, "minhop");
	rig_sweep(&r);
	c = &sm_sa(r.sm)->counters;
	srand(12345);
	for (int i = 0; i < 20000; i++) {
		size_t len = (size_t)(rand() % (int)sizeof(buf));

		for (size_t k = 0; k < sizeof(buf); k++)
			buf[k] = (uint8_t)rand();
		if (i % 4) { /* mostly well-formed headers, hostile bodies */
			buf[0] = 1;
			buf[1] = SA_CLASS;
			buf[2] = i % 7 ? SA_CLASS_VERSION : (uint8_t)rand();
			buf[3] = methods[rand() % (int)(sizeof(methods) / sizeof(methods[0]))];
			buf[16] = 0;
			buf[17] = (uint8_t)attrs[rand() % (int)(sizeof(attrs) / sizeof(attrs[0]))];
			if (buf[17] == 0x77)
				buf[16] = 0x77;
			len = i % 3 ? SA_MAD_SIZE : len;
		}
		from.lid = (uint16_t)(rand() % 8);
		sa_mads += len >= 2 && buf[1] == SA_CLASS; /* the rest go to the SMP queue */
		sm_recv(r.sm, &from, buf, len);
	}
	CU_ASSERT_EQUAL(c->requests, sa_mads);
	CU_ASSERT(sa_mads > 14000);
	CU_ASSERT(c->malformed > 0);
	/* still answering */
	answered = c->answered;
	h.class_version = SA_CLASS_VERSION;
	h.method = SA_METHOD_GET;
	h.attr_id = SA_ATTR_CLASS_PORT_INFO;
	sa_encode(&h, NULL, 0, 0, buf, SA_MAD_SIZE);
	from.lid = 1;
	sm_recv(r.sm, &from, buf, SA_MAD_SIZE);
	CU_ASSERT_EQUAL(c->answered, answered + 1);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	rig_fini(&r);
}

void test_sa_register(void)
{
	CU_pSuite s = CU_add_suite("sa", NULL, NULL);

	CU_add_test(s, "header bytes", test_sa_header_bytes);
	CU_add_test(s, "GetTable response carries RMPP", test_sa_response_rmpp);
	CU_add_test(s, "component get/put/match", test_sa_components);
	CU_add_test(s, "LID, GUID and GID lookups", test_sa_lookups);
	CU_add_test(s, "error answers", test_sa_errors);
	CU_add_test(s, "long GetTable answer: one RMPP transfer", test_sa_long_answer);
	CU_add_test(s, "GetMulti and MultiPathRecord", test_sa_get_multi);
	CU_add_test(s, "SA requests held while a sweep runs", test_sa_held_during_sweep);
	CU_add_test(s, "joins during a multicast push: answered at once, one more push",
		    test_sa_joins_during_push);
	CU_add_test(s, "hostile SA MADs through the SM", test_sa_hostile);
}
