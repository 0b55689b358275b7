/*
 * sa_svc_test.c - the rig the ServiceRecord and InformInfo tests share
 * (sa_svc_test.h): a switch with two hosts (and a smaller fabric to switch
 * to), an SA whose transmit records what it sends, and the requests the
 * tests send through sa_svc_handle.  Test code only.
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "mad/sa.h"
#include "mad/sa_svc.h"
#include "routing/topo_file.h"
#include "sm/sa/server.h"
#include "sm/sa/services.h"
#include "tests/unit/sa_svc_test.h"

/* sw LID 1, h1 LID 2, h2 LID 3 (node order of the text). */
static const char sa_svc_test_topo[] = "Switch 4 \"sw\"\n"
				       "[1] \"h1\"[1]\n"
				       "[2] \"h2\"[1]\n"
				       "\n"
				       "Hca 1 \"h1\"\n"
				       "[1] \"sw\"[1]\n"
				       "\n"
				       "Hca 1 \"h2\"\n"
				       "[1] \"sw\"[2]\n";

static const char sa_svc_test_topo_small[] = "Switch 4 \"sw\"\n"
					     "[1] \"h1\"[1]\n"
					     "\n"
					     "Hca 1 \"h1\"\n"
					     "[1] \"sw\"[1]\n";

static int sa_svc_test_send(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	struct sa_svc_test_sent *s = ctx;

	if (s->n < SA_SVC_TEST_SENT_MAX) {
		s->to[s->n] = *to;
		s->len[s->n] = len < SA_MAD_SIZE ? len : SA_MAD_SIZE;
		memcpy(s->mad[s->n], mad, s->len[s->n]);
	}
	s->n++;
	return 0;
}

uint64_t sa_svc_test_be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static void sa_svc_test_lids(struct fabric *f)
{
	uint16_t lid = 1;

	for (size_t n = 0; n < f->n_nodes; n++) {
		struct fabric_node *nd = &f->nodes[n];

		nd->ports[fabric_is_switch(nd) ? 0 : 1].lid = lid++;
	}
}

void sa_svc_test_view(struct sa_svc_test_rig *r, const struct fabric *f)
{
	struct sa_view v = { 0 };

	v.f = f;
	v.pk = r->pk;
	v.sm_key = SA_SVC_TEST_SM_KEY;
	v.subnet_prefix = 0xfe80000000000000ull;
	v.sm_lid = 1;
	v.sm_guid = 0x0011223344556677ull;
	v.route_gen = f == &r->f ? 1 : 2;
	CU_ASSERT_EQUAL(sa_update(r->sa, &v), 0);
}

void sa_svc_test_rig_init(struct sa_svc_test_rig *r)
{
	char err[256];
	struct mad_xmit x = {sa_svc_test_send, &r->sent};

	memset(r, 0, sizeof(*r));
	fabric_init(&r->f);
	fabric_init(&r->f_small);
	CU_ASSERT_EQUAL_FATAL(
	    topo_parse(sa_svc_test_topo, strlen(sa_svc_test_topo), "t", &r->f, err, sizeof(err)),
	    0);
	CU_ASSERT_EQUAL_FATAL(topo_parse(sa_svc_test_topo_small, strlen(sa_svc_test_topo_small),
					 "s", &r->f_small, err, sizeof(err)),
			      0);
	sa_svc_test_lids(&r->f);
	sa_svc_test_lids(&r->f_small);
	r->sa = sa_new(&x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->sa);
	if (!r->sa->svc) {
		r->sa->svc = sa_svc_new();
		r->own_svc = 1;
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->sa->svc);
	sa_svc_test_view(r, &r->f);
}

void sa_svc_test_rig_fini(struct sa_svc_test_rig *r)
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
uint16_t sa_svc_test_call(struct sa_svc_test_rig *r, uint16_t lid, uint8_t method, uint16_t attr,
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

void sa_svc_test_port_gid(struct sa_svc_test_rig *r, uint16_t lid, uint8_t gid[16])
{
	sa_port_gid(r->sa, sa_by_lid(r->sa, lid), gid);
}

void sa_svc_test_service(struct sa_svc_test_rig *r, uint16_t lid, uint64_t id, uint32_t lease,
			 const char *name, uint8_t rec[SA_SVC_REC_SIZE])
{
	struct sa_svc_rec s = { 0 };

	s.id = id;
	sa_svc_test_port_gid(r, lid, s.gid);
	s.pkey = 0xffff;
	s.lease = lease;
	memcpy(s.name, name, strnlen(name, sizeof(s.name)));
	s.data32[0] = (uint32_t)id;
	sa_svc_rec_encode(&s, rec);
}

uint16_t sa_svc_test_inform(struct sa_svc_test_rig *r, uint16_t lid, uint8_t subscribe,
			    uint16_t trap, struct sa_out *out)
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
	return sa_svc_test_call(r, lid, SA_METHOD_SET, SA_ATTR_INFORM_INFO, 0, rec,
				SA_SVC_INFORM_LEN, 0, out);
}
