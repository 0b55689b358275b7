/*
 * test_fake_fabric.c - unit tests for the fake fabric the other suites drive
 * (tests/unit/fake_fabric.c): NodeInfo along DR paths, unroutable paths, the
 * PortInfo state machine, writable fields, LFT and SwitchInfo, drops, mutes,
 * delivery through mad_queue.  Part of suite smp (test_smp.c).
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/smp.h"
#include "tests/unit/fake_fabric.h"
#include "tests/unit/smp_test.h"

/*
 *   H1(CA) 1 --- 1 S1 2 --- 3 S2 5 --- 1 H2(CA, 2 ports)
 *   SM on H1 port 1.  S1 port 4 and H2 port 2 are unlinked.
 */
#define G_H1 0x1000ULL
#define G_S1 0x2000ULL
#define G_S2 0x3000ULL
#define G_H2 0x4000ULL

static int test_smp_topo(struct fabric *f)
{
	int h1, s1, s2, h2;

	fabric_init(f);
	h1 = fabric_add_node(f, G_H1, NODE_TYPE_CA, 1);
	s1 = fabric_add_node(f, G_S1, NODE_TYPE_SWITCH, 8);
	s2 = fabric_add_node(f, G_S2, NODE_TYPE_SWITCH, 8);
	h2 = fabric_add_node(f, G_H2, NODE_TYPE_CA, 2);
	if (h1 < 0 || s1 < 0 || s2 < 0 || h2 < 0)
		return -1;
	strcpy(f->nodes[h1].desc, "H1 mlx5_0");
	strcpy(f->nodes[s2].desc, "S2");
	f->nodes[h1].ports[1].guid = G_H1 + 1;
	f->nodes[h2].ports[1].guid = G_H2 + 1;
	f->nodes[h2].ports[2].guid = G_H2 + 2;
	f->nodes[s2].lft_cap = 1024;
	f->sm_node = h1;
	f->sm_port = 1;
	if (fabric_link(f, h1, 1, s1, 1) || fabric_link(f, s1, 2, s2, 3) ||
	    fabric_link(f, s2, 5, h2, 1))
		return -1;
	return 0;
}

static struct fake_fabric *test_smp_fake(void)
{
	struct fabric f;
	struct fake_fabric *ff = NULL;

	if (test_smp_topo(&f) == 0)
		ff = fake_fabric_new(&f);
	fabric_fini(&f); /* the fake keeps its own copy */
	return ff;
}

/* Send one DR SMP along path (index 0 unused) and take the answer: 1 if
 * there was one (decoded into resp), 0 if it vanished. */
static int test_smp_ask(struct fake_fabric *ff, uint8_t method, uint16_t attr, uint32_t mod,
			const uint8_t *path, uint8_t hops, const uint8_t *data, struct smp *resp)
{
	struct mad_xmit x = fake_fabric_xmit(ff);
	struct mad_addr to = { .lid = 0xffff };
	uint8_t buf[SMP_MAD_SIZE];
	struct smp req;

	smp_init_dr(&req, method, attr, mod, path, hops);
	req.tid = 0x5150 + hops;
	if (data)
		memcpy(req.data, data, SMP_DATA_SIZE);
	CU_ASSERT_EQUAL(smp_encode(&req, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(x.send(x.ctx, &to, buf, sizeof(buf)), 0);
	if (!fake_fabric_pop(ff, buf))
		return 0;
	CU_ASSERT_EQUAL(smp_decode(buf, sizeof(buf), resp), 0);
	CU_ASSERT_EQUAL(resp->tid, req.tid);
	CU_ASSERT_EQUAL(resp->method, SMP_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(resp->direction, 1);
	CU_ASSERT_EQUAL(resp->hop_ptr, hops);
	CU_ASSERT_EQUAL(resp->attr_id, attr);
	return 1;
}

static void test_fake_node_info(void)
{
	struct fake_fabric *ff = test_smp_fake();
	const uint8_t to_s2[] = { 0, 1, 2 }, to_h2[] = { 0, 1, 2, 5 };
	struct smp_node_info ni;
	struct smp r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, NULL, 0, NULL, &r));
	smp_node_info_decode(r.data, &ni);
	CU_ASSERT_EQUAL(ni.node_guid, G_H1);
	CU_ASSERT_EQUAL(ni.port_guid, G_H1 + 1);
	CU_ASSERT_EQUAL(ni.local_port, 1);

	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, to_s2, 2, NULL, &r));
	CU_ASSERT_EQUAL(r.status, 0);
	smp_node_info_decode(r.data, &ni);
	CU_ASSERT_EQUAL(ni.node_guid, G_S2);
	CU_ASSERT_EQUAL(ni.port_guid, G_S2);
	CU_ASSERT_EQUAL(ni.node_type, NODE_TYPE_SWITCH);
	CU_ASSERT_EQUAL(ni.num_ports, 8);
	CU_ASSERT_EQUAL(ni.local_port, 3);

	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, to_h2, 3, NULL, &r));
	smp_node_info_decode(r.data, &ni);
	CU_ASSERT_EQUAL(ni.node_guid, G_H2);
	CU_ASSERT_EQUAL(ni.port_guid, G_H2 + 1);
	CU_ASSERT_EQUAL(ni.node_type, NODE_TYPE_CA);
	CU_ASSERT_EQUAL(ni.local_port, 1);

	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_DESC, 0, to_s2, 2, NULL, &r));
	CU_ASSERT_EQUAL(memcmp(r.data, "S2", 3), 0);
	CU_ASSERT_EQUAL(fake_fabric_counters(ff)->gets, 4);
	fake_fabric_free(ff);
}

static void test_fake_bad_paths(void)
{
	struct fake_fabric *ff = test_smp_fake();
	const uint8_t unlinked[] = { 0, 1, 4 };          /* S1 port 4 */
	const uint8_t through_ca[] = { 0, 1, 2, 5, 2 }; /* on past H2 */
	const uint8_t wrong_first[] = { 0, 2 };          /* H1 has no port 2 */
	const uint8_t port0[] = { 0, 1, 0 };
	struct smp r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
	CU_ASSERT_FALSE(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, unlinked, 2, NULL, &r));
	CU_ASSERT_FALSE(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, through_ca, 4, NULL, &r));
	CU_ASSERT_FALSE(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, wrong_first, 1, NULL, &r));
	CU_ASSERT_FALSE(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, port0, 2, NULL, &r));
	CU_ASSERT_EQUAL(fake_fabric_counters(ff)->dropped, 4);
	CU_ASSERT_EQUAL(fake_fabric_counters(ff)->gets, 0);
	CU_ASSERT_EQUAL(fake_fabric_pending(ff), 0);
	fake_fabric_free(ff);
}

static void test_fake_set_port(struct fake_fabric *ff, const uint8_t *path, uint8_t hops,
			       uint8_t port, uint16_t lid, uint8_t state, struct smp *r)
{
	struct smp_port_info pi;
	uint8_t d[SMP_DATA_SIZE];

	memset(&pi, 0, sizeof(pi));
	pi.lid = lid;
	pi.sm_lid = 1;
	pi.state = state;
	smp_port_info_encode(&pi, d);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_SET, SMP_ATTR_PORT_INFO, port, path, hops, d, r));
}

static void test_fake_port_states(void)
{
	struct fake_fabric *ff = test_smp_fake();
	const uint8_t to_s2[] = { 0, 1, 2 };
	int s2 = fabric_find(fake_fabric_state(ff), G_S2);
	struct smp_port_info pi;
	struct smp r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, 3, to_s2, 2, NULL, &r));
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.state, PORT_STATE_INIT);
	CU_ASSERT_EQUAL(pi.phys_state, PORT_PHYS_LINKUP);
	CU_ASSERT_EQUAL(pi.local_port, 3);
	CU_ASSERT_EQUAL(pi.lid, 0);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, 4, to_s2, 2, NULL, &r));
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.state, PORT_STATE_DOWN);
	CU_ASSERT_EQUAL(pi.phys_state, PORT_PHYS_POLLING);

	/* LID on port 0 shows on every switch port; NOP keeps the state */
	test_fake_set_port(ff, to_s2, 2, 0, 7, PORT_STATE_NOP, &r);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, 5, to_s2, 2, NULL, &r));
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.lid, 7);
	CU_ASSERT_EQUAL(pi.sm_lid, 1);
	CU_ASSERT_EQUAL(pi.state, PORT_STATE_INIT);

	/* INIT -> ACTIVE is illegal: 0x1c and nothing changes, LID included */
	test_fake_set_port(ff, to_s2, 2, 0, 9, PORT_STATE_ACTIVE, &r);
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_INVALID_VALUE);
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.lid, 7);
	CU_ASSERT_EQUAL(pi.state, PORT_STATE_INIT);

	/* INIT -> ARMED -> ACTIVE on port 3; then ARMED is illegal */
	test_fake_set_port(ff, to_s2, 2, 3, 0, PORT_STATE_ARMED, &r);
	CU_ASSERT_EQUAL(r.status, 0);
	test_fake_set_port(ff, to_s2, 2, 3, 0, PORT_STATE_ACTIVE, &r);
	CU_ASSERT_EQUAL(r.status, 0);
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.state, PORT_STATE_ACTIVE);
	CU_ASSERT_EQUAL(pi.lid, 7); /* LID of an external port comes from port 0 */
	test_fake_set_port(ff, to_s2, 2, 3, 0, PORT_STATE_ARMED, &r);
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_INVALID_VALUE);

	/* an unlinked port cannot leave DOWN; INIT is never writable */
	test_fake_set_port(ff, to_s2, 2, 4, 0, PORT_STATE_ARMED, &r);
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_INVALID_VALUE);
	test_fake_set_port(ff, to_s2, 2, 5, 0, PORT_STATE_INIT, &r);
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_INVALID_VALUE);
	/* port out of range */
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, 9, to_s2, 2, NULL, &r));
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_INVALID_VALUE);

	CU_ASSERT_FATAL(s2 >= 0);
	CU_ASSERT_EQUAL(fake_fabric_state(ff)->nodes[s2].ports[0].lid, 7);
	CU_ASSERT_EQUAL(fake_fabric_state(ff)->nodes[s2].ports[3].state, PORT_STATE_ACTIVE);
	CU_ASSERT_EQUAL(fake_fabric_state(ff)->nodes[s2].ports[5].state, PORT_STATE_INIT);
	CU_ASSERT_EQUAL(fake_fabric_counters(ff)->port_info_sets, 3);
	fake_fabric_free(ff);
}

static void test_fake_ca_port(void)
{
	struct fake_fabric *ff = test_smp_fake();
	const uint8_t to_h2[] = { 0, 1, 2, 5 };
	int h2 = fabric_find(fake_fabric_state(ff), G_H2);
	struct smp_port_info pi;
	struct smp r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
	/* attr_mod 0 on a CA = the arrival port */
	test_fake_set_port(ff, to_h2, 3, 0, 0x21, PORT_STATE_ARMED, &r);
	CU_ASSERT_EQUAL(r.status, 0);
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.lid, 0x21);
	CU_ASSERT_EQUAL(pi.local_port, 1);
	CU_ASSERT_EQUAL(pi.state, PORT_STATE_ARMED);
	/* the other port reads fine, but is set only through itself */
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, 2, to_h2, 3, NULL, &r));
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.state, PORT_STATE_DOWN);
	CU_ASSERT_EQUAL(pi.lid, 0);
	test_fake_set_port(ff, to_h2, 3, 2, 0x22, PORT_STATE_NOP, &r);
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_INVALID_VALUE);
	CU_ASSERT_FATAL(h2 >= 0);
	CU_ASSERT_EQUAL(fake_fabric_state(ff)->nodes[h2].ports[1].lid, 0x21);
	CU_ASSERT_EQUAL(fake_fabric_state(ff)->nodes[h2].ports[2].lid, 0);

	/* the SM's own port advertises IsSM */
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, 0, NULL, 0, NULL, &r));
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT(pi.cap_mask & PORT_CAP_IS_SM);
	fake_fabric_free(ff);
}

static void test_fake_port_fields(void)
{
	struct fake_fabric *ff = test_smp_fake();
	const uint8_t to_s1[] = { 0, 1 };
	struct smp_port_info pi;
	uint8_t d[SMP_DATA_SIZE];
	struct smp r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, 2, to_s1, 1, NULL, &r));
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.mtu_cap, 4);
	CU_ASSERT_EQUAL(pi.neighbor_mtu, 4);
	CU_ASSERT_EQUAL(pi.vl_cap, 4);
	CU_ASSERT_EQUAL(pi.gid_prefix, FAKE_GID_PREFIX);

	pi.neighbor_mtu = 3;
	pi.oper_vls = 2;
	pi.gid_prefix = 0xfe80000000001234ULL; /* external port: no effect */
	pi.state = PORT_STATE_NOP;
	smp_port_info_encode(&pi, d);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_SET, SMP_ATTR_PORT_INFO, 2, to_s1, 1, d, &r));
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, 2, to_s1, 1, NULL, &r));
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.neighbor_mtu, 3);
	CU_ASSERT_EQUAL(pi.oper_vls, 2);
	CU_ASSERT_EQUAL(pi.gid_prefix, FAKE_GID_PREFIX);

	/* the switch-wide fields live on port 0 */
	pi.gid_prefix = 0xfe80000000001234ULL;
	pi.subnet_timeout = 18;
	pi.state = PORT_STATE_NOP; /* read back as INIT, which is not writable */
	smp_port_info_encode(&pi, d);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_SET, SMP_ATTR_PORT_INFO, 0, to_s1, 1, d, &r));
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, 7, to_s1, 1, NULL, &r));
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.gid_prefix, 0xfe80000000001234ULL);
	CU_ASSERT_EQUAL(pi.subnet_timeout, 18);

	/* above the capability: refused, nothing kept */
	pi.neighbor_mtu = 5;
	pi.state = PORT_STATE_NOP;
	smp_port_info_encode(&pi, d);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_SET, SMP_ATTR_PORT_INFO, 2, to_s1, 1, d, &r));
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_INVALID_VALUE);
	smp_port_info_decode(r.data, &pi);
	CU_ASSERT_EQUAL(pi.neighbor_mtu, 3);
	fake_fabric_free(ff);
}

static void test_fake_lft(void)
{
	struct fake_fabric *ff = test_smp_fake();
	const uint8_t to_s1[] = { 0, 1 }, to_s2[] = { 0, 1, 2 };
	struct smp_switch_info si;
	struct smp_lft_block b;
	const uint8_t *lft;
	uint8_t d[SMP_DATA_SIZE];
	uint16_t top = 0xffff;
	struct smp r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
	for (int i = 0; i < LFT_BLOCK_SIZE; i++)
		b.port[i] = (uint8_t)(i % 8 + 1);
	smp_lft_encode(&b, d);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_SET, SMP_ATTR_LFT, 1, to_s2, 2, d, &r));
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_LFT, 1, to_s2, 2, NULL, &r));
	CU_ASSERT_EQUAL(memcmp(r.data, d, SMP_DATA_SIZE), 0);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_LFT, 0, to_s2, 2, NULL, &r));
	CU_ASSERT_EQUAL(r.data[0], LFT_DROP);
	/* S2's cap is 1024 LIDs = 16 blocks */
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_SET, SMP_ATTR_LFT, 16, to_s2, 2, d, &r));
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_INVALID_VALUE);

	lft = fake_fabric_lft(ff, G_S2, &top);
	CU_ASSERT_PTR_NOT_NULL_FATAL(lft);
	CU_ASSERT_EQUAL(top, 0);
	CU_ASSERT_EQUAL(lft[63], LFT_DROP);
	CU_ASSERT_EQUAL(lft[64], 1);
	CU_ASSERT_EQUAL(lft[127], 8);
	CU_ASSERT_EQUAL(lft[128], LFT_DROP);
	CU_ASSERT_PTR_NULL(fake_fabric_lft(ff, G_H1, &top));
	CU_ASSERT_EQUAL(fake_fabric_counters(ff)->lft_block_sets, 1);

	/* SwitchInfo: cap as configured or the default; Set moves the top */
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_SWITCH_INFO, 0, to_s1, 1, NULL, &r));
	smp_switch_info_decode(r.data, &si);
	CU_ASSERT_EQUAL(si.linear_fdb_cap, FAKE_LFT_CAP_DEFAULT);
	memset(&si, 0, sizeof(si));
	si.linear_fdb_top = 100;
	smp_switch_info_encode(&si, d);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_SET, SMP_ATTR_SWITCH_INFO, 0, to_s2, 2, d, &r));
	smp_switch_info_decode(r.data, &si);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_EQUAL(si.linear_fdb_cap, 1024);
	CU_ASSERT_EQUAL(si.linear_fdb_top, 100);
	CU_ASSERT_PTR_NOT_NULL(fake_fabric_lft(ff, G_S2, &top));
	CU_ASSERT_EQUAL(top, 100);
	fake_fabric_free(ff);
}

static void test_fake_other_attrs(void)
{
	struct fake_fabric *ff = test_smp_fake();
	const uint8_t to_s1[] = { 0, 1 };
	struct smp_pkey_block pk;
	struct smp r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_PKEY_TABLE, 0, NULL, 0, NULL, &r));
	smp_pkey_decode(r.data, &pk);
	CU_ASSERT_EQUAL(pk.pkey[0], 0xffff);
	CU_ASSERT_EQUAL(pk.pkey[1], 0);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_SM_INFO, 0, to_s1, 1, NULL, &r));
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_UNSUP_ATTR);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_SET, SMP_ATTR_NODE_INFO, 0, to_s1, 1, NULL, &r));
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_UNSUP_ATTR);
	CU_ASSERT_FATAL(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_LFT, 0, NULL, 0, NULL, &r));
	CU_ASSERT_EQUAL(r.status, FAKE_STATUS_UNSUP_ATTR); /* H1 is no switch */
	fake_fabric_free(ff);
}

static void test_fake_drop_and_mute(void)
{
	struct fake_fabric *ff = test_smp_fake();
	const uint8_t to_s2[] = { 0, 1, 2 }, to_h2[] = { 0, 1, 2, 5 };
	unsigned answered = 0;
	struct smp r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
	fake_fabric_drop_every(ff, 3);
	for (int i = 0; i < 6; i++)
		answered += test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, to_s2, 2, NULL, &r);
	CU_ASSERT_EQUAL(answered, 4);
	CU_ASSERT_EQUAL(fake_fabric_counters(ff)->dropped, 2);
	fake_fabric_drop_every(ff, 0);

	fake_fabric_mute_node(ff, G_S2, 1);
	CU_ASSERT_FALSE(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, to_s2, 2, NULL, &r));
	CU_ASSERT(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, to_h2, 3, NULL, &r));
	fake_fabric_mute_node(ff, G_S2, 0);
	CU_ASSERT(test_smp_ask(ff, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, to_s2, 2, NULL, &r));
	CU_ASSERT_EQUAL(fake_fabric_counters(ff)->dropped, 3);
	fake_fabric_free(ff);
}

struct test_smp_done {
	int calls, status;
	uint64_t guid;
};

static void test_smp_on_done(void *arg, int status, const struct smp *resp)
{
	struct test_smp_done *done = arg;
	struct smp_node_info ni;

	done->calls++;
	done->status = status;
	if (resp) {
		smp_node_info_decode(resp->data, &ni);
		done->guid = ni.node_guid;
	}
}

/* End to end through mad_queue: submit, deliver, complete. */
static void test_fake_deliver(void)
{
	struct fake_fabric *ff = test_smp_fake();
	const uint8_t to_h2[] = { 0, 1, 2, 5 };
	const struct mad_addr to = { .lid = 0xffff };
	struct test_smp_done done = { 0, 1, 0 };
	struct mad_queue *q;
	struct mad_xmit x;
	struct smp req;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
	x = fake_fabric_xmit(ff);
	q = mad_queue_new(NULL, &x, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	smp_init_dr(&req, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, to_h2, 3);
	CU_ASSERT_EQUAL(mad_queue_submit(q, &to, &req, test_smp_on_done, &done, 0), 0);
	CU_ASSERT_EQUAL(fake_fabric_deliver(ff, q, 1), 1);
	CU_ASSERT_EQUAL(done.calls, 1);
	CU_ASSERT_EQUAL(done.status, 0);
	CU_ASSERT_EQUAL(done.guid, G_H2);
	CU_ASSERT_EQUAL(fake_fabric_deliver(ff, q, 2), 0);
	mad_queue_free(q);
	fake_fabric_free(ff);
}

/* The tests of this file, in suite smp (test_smp.c). */
void test_fake_fabric_add(CU_pSuite s)
{
	CU_add_test(s, "fake: NodeInfo along DR paths", test_fake_node_info);
	CU_add_test(s, "fake: unroutable paths dropped", test_fake_bad_paths);
	CU_add_test(s, "fake: PortInfo state machine", test_fake_port_states);
	CU_add_test(s, "fake: CA PortInfo", test_fake_ca_port);
	CU_add_test(s, "fake: PortInfo keeps writable fields", test_fake_port_fields);
	CU_add_test(s, "fake: LFT and SwitchInfo", test_fake_lft);
	CU_add_test(s, "fake: P_Key, unsupported attrs", test_fake_other_attrs);
	CU_add_test(s, "fake: drop_every and mute", test_fake_drop_and_mute);
	CU_add_test(s, "fake: deliver through mad_queue", test_fake_deliver);
}
