/*
 * test_mkey.c - M_Key and SM_Key: the fake fabric's M_Key check (IBA
 * 14.2.4) on its own, then the whole SM with a policy M_Key against it:
 * every port programmed and protected, a quiet second sweep, a rogue
 * without the key refused, ports holding another SM's key left alone, and
 * the SM_Key in SMInfo answers and the SA view.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sm/core/log.h"
#include "sm/core/sm.h"
#include "sm/sa/server.h"
#include "tests/unit/sm_rig.h"
#include "tests/unit/unit.h"

#define MKEY_OURS 0x5ec2e7000000c0deULL
#define MKEY_ROGUE 0xbadbadbadbadULL
#define MKEY_SMKEY 0x5ec2e7000000beefULL

/* a (the SM) on s1; b on s2; c on s3; s1-s2 twice, a ring via s3 */
static const char mkey_loop[] = "Hca 1 \"a\"\n[1] \"s1\"[1]\n\n"
				"Switch 8 \"s1\"\n[1] \"a\"[1]\n[3] \"s2\"[3]\n[4] \"s2\"[4]\n"
				"[5] \"s3\"[5]\n\n"
				"Switch 8 \"s2\"\n[1] \"b\"[1]\n[3] \"s1\"[3]\n[4] \"s1\"[4]\n"
				"[6] \"s3\"[6]\n\n"
				"Switch 8 \"s3\"\n[1] \"c\"[1]\n[5] \"s1\"[5]\n[6] \"s2\"[6]\n\n"
				"Hca 1 \"b\"\n[1] \"s2\"[1]\n\n"
				"Hca 1 \"c\"\n[1] \"s3\"[1]\n";

/* DR paths from a's port: to s1, to b (s1 -> s2 -> b), to c */
static const uint8_t mkey_to_s1[] = {0, 1};
static const uint8_t mkey_to_b[] = {0, 1, 3, 1};

/* The rig with an SM that has the keys (protect, lease as given). */
static void mkey_rig(struct rig *r, uint8_t protect, uint16_t lease)
{
	struct sm_opts o = {.port_guid = 1, .engine = "minhop"};

	o.m_key = MKEY_OURS;
	o.m_key_protect = protect;
	o.m_key_lease = lease;
	o.sm_key = MKEY_SMKEY;
	rig_init(r, mkey_loop, NULL, "minhop");
	sm_free(r->sm);
	rig_start_sm_opts(r, &o);
}

static uint64_t mkey_guid(const struct rig *r, const char *desc)
{
	int i = rig_node(fake_fabric_state(r->ff), desc);

	CU_ASSERT_NOT_EQUAL_FATAL(i, FABRIC_NONE);
	return fake_fabric_state(r->ff)->nodes[i].guid;
}

/* Send one DR SMP straight into the fake, as another host would.  Returns
 * 1 with *resp when it was answered, 0 when it vanished. */
static int mkey_send(struct fake_fabric *ff, uint8_t method, uint16_t attr, uint32_t mod,
		     const uint8_t *path, uint8_t hops, uint64_t mkey, const uint8_t *data,
		     struct smp *resp)
{
	struct mad_xmit x = fake_fabric_xmit(ff);
	struct mad_addr to = {.lid = 0xffff};
	uint8_t buf[SMP_MAD_SIZE];
	struct smp req;

	smp_init_dr(&req, method, attr, mod, path, hops);
	req.mkey = mkey;
	if (data)
		memcpy(req.data, data, SMP_DATA_SIZE);
	CU_ASSERT_EQUAL_FATAL(smp_encode(&req, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL_FATAL(x.send(x.ctx, &to, buf, sizeof(buf)), 0);
	if (!fake_fabric_pop(ff, buf))
		return 0;
	CU_ASSERT_EQUAL_FATAL(smp_decode(buf, sizeof(buf), resp), 0);
	return 1;
}

/* PortInfo of port `port` behind path, read with mkey; 0 if dropped. */
static int mkey_get_pi(struct fake_fabric *ff, const uint8_t *path, uint8_t hops, uint8_t port,
		       uint64_t mkey, struct smp_port_info *pi)
{
	struct smp resp;

	if (!mkey_send(ff, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, port, path, hops, mkey, NULL,
		       &resp))
		return 0;
	smp_port_info_decode(resp.data, pi);
	return 1;
}

/* ---- the fake on its own ---- */

static void test_mkey_fake_levels(void)
{
	struct rig r;
	struct fake_mkey k = {MKEY_OURS, 0, 30}, got;
	struct smp_port_info pi;
	uint64_t s1;

	rig_init(&r, mkey_loop, NULL, "minhop");
	s1 = mkey_guid(&r, "s1");
	/* no key: anything passes */
	CU_ASSERT(mkey_get_pi(r.ff, mkey_to_s1, 1, 0, MKEY_ROGUE, &pi));
	CU_ASSERT_EQUAL(pi.mkey, 0);
	/* a switch's port 0 guards all its ports */
	CU_ASSERT_EQUAL(fake_fabric_set_mkey(r.ff, s1, 5, &k), 0);
	CU_ASSERT_EQUAL(fake_fabric_get_mkey(r.ff, s1, 0, &got), 0);
	CU_ASSERT_EQUAL(got.key, MKEY_OURS);
	CU_ASSERT_EQUAL(got.lease, 30);
	/* protect 0: a wrong key reads the key, the right one too */
	CU_ASSERT(mkey_get_pi(r.ff, mkey_to_s1, 1, 3, MKEY_ROGUE, &pi));
	CU_ASSERT_EQUAL(pi.mkey, MKEY_OURS);
	CU_ASSERT_EQUAL(pi.mkey_lease, 30);
	/* protect 1: a wrong key reads 0, the right one the key */
	k.protect = 1;
	fake_fabric_set_mkey(r.ff, s1, 0, &k);
	CU_ASSERT(mkey_get_pi(r.ff, mkey_to_s1, 1, 0, MKEY_ROGUE, &pi));
	CU_ASSERT_EQUAL(pi.mkey, 0);
	CU_ASSERT_EQUAL(pi.mkey_prot, 1);
	CU_ASSERT(mkey_get_pi(r.ff, mkey_to_s1, 1, 0, MKEY_OURS, &pi));
	CU_ASSERT_EQUAL(pi.mkey, MKEY_OURS);
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->mkey_violations, 0);
	/* protect 2 and 3: a wrong key's Get vanishes */
	for (uint8_t prot = 2; prot <= 3; prot++) {
		k.protect = prot;
		fake_fabric_set_mkey(r.ff, s1, 0, &k);
		CU_ASSERT(!mkey_get_pi(r.ff, mkey_to_s1, 1, 0, MKEY_ROGUE, &pi));
		CU_ASSERT(!mkey_get_pi(r.ff, mkey_to_s1, 1, 0, 0, &pi));
		CU_ASSERT(mkey_get_pi(r.ff, mkey_to_s1, 1, 0, MKEY_OURS, &pi));
	}
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->mkey_violations, 4);
	/* unknown GUIDs and ports */
	CU_ASSERT_EQUAL(fake_fabric_get_mkey(r.ff, 0x999, 0, &got), -ENOENT);
	CU_ASSERT_EQUAL(fake_fabric_get_mkey(r.ff, mkey_guid(&r, "b"), 0, &got), -ENOENT);
	CU_ASSERT_EQUAL(fake_fabric_get_mkey(r.ff, s1, 9, &got), -ENOENT);
	rig_fini(&r);
}

/* A Set with the wrong key vanishes at every level, and changes nothing. */
static void test_mkey_fake_set(void)
{
	struct rig r;
	struct fake_mkey k = {MKEY_OURS, 0, 0}, got;
	struct smp_port_info pi = {0};
	uint8_t data[SMP_DATA_SIZE] = {0};
	struct smp resp;
	uint64_t b;

	rig_init(&r, mkey_loop, NULL, "minhop");
	b = mkey_guid(&r, "b");
	CU_ASSERT_EQUAL(fake_fabric_set_mkey(r.ff, b, 1, &k), 0);
	pi.lid = 0x77; /* and M_Key 0, protect 0: a take-over */
	smp_port_info_encode(&pi, data);
	CU_ASSERT(!mkey_send(r.ff, SMP_METHOD_SET, SMP_ATTR_PORT_INFO, 1, mkey_to_b, 3,
			     MKEY_ROGUE, data, &resp));
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->mkey_violations, 1);
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->port_info_sets, 0);
	CU_ASSERT_EQUAL(fake_fabric_get_mkey(r.ff, b, 1, &got), 0);
	CU_ASSERT_EQUAL(got.key, MKEY_OURS);
	/* with the key it goes through, and stores the M_Key fields */
	pi.mkey = MKEY_ROGUE;
	pi.mkey_prot = 3;
	pi.mkey_lease = 7;
	smp_port_info_encode(&pi, data);
	CU_ASSERT(mkey_send(r.ff, SMP_METHOD_SET, SMP_ATTR_PORT_INFO, 1, mkey_to_b, 3, MKEY_OURS,
			    data, &resp));
	CU_ASSERT_EQUAL(resp.status, 0);
	CU_ASSERT_EQUAL(fake_fabric_get_mkey(r.ff, b, 1, &got), 0);
	CU_ASSERT(got.key == MKEY_ROGUE && got.protect == 3 && got.lease == 7);
	/* a port that keeps no M_Key (ibsim's kind) */
	fake_fabric_keep_mkeys(r.ff, 0);
	pi.mkey = 0x1234;
	smp_port_info_encode(&pi, data);
	CU_ASSERT(mkey_send(r.ff, SMP_METHOD_SET, SMP_ATTR_PORT_INFO, 1, mkey_to_b, 3, MKEY_ROGUE,
			    data, &resp));
	CU_ASSERT_EQUAL(fake_fabric_get_mkey(r.ff, b, 1, &got), 0);
	CU_ASSERT_EQUAL(got.key, MKEY_ROGUE);
	rig_fini(&r);
}

/* ---- the SM with a policy M_Key ---- */

/* Every guard port (CA port, switch port 0) holds our key and bits. */
static void mkey_check_all(const struct rig *r, uint8_t protect, uint16_t lease)
{
	const struct fabric *st = fake_fabric_state(r->ff);

	for (size_t i = 0; i < st->n_nodes; i++) {
		const struct fabric_node *n = &st->nodes[i];
		struct fake_mkey got;

		CU_ASSERT_EQUAL(fake_fabric_get_mkey(r->ff, n->guid, fabric_is_switch(n) ? 0 : 1,
						     &got), 0);
		CU_ASSERT_EQUAL(got.key, MKEY_OURS);
		CU_ASSERT_EQUAL(got.protect, protect);
		CU_ASSERT_EQUAL(got.lease, lease);
	}
}

static void test_mkey_sweep_programs(void)
{
	struct rig r;
	unsigned pi_sets;

	mkey_rig(&r, 2, 60);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(r.last.set_errors, 0);
	CU_ASSERT_EQUAL(r.last.unreachable, 0);
	rig_check_up(&r);
	mkey_check_all(&r, 2, 60);
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->mkey_violations, 0);
	/* the second sweep finds every port as wanted: no PortInfo Set */
	pi_sets = fake_fabric_counters(r.ff)->port_info_sets;
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(r.last.port_sets, 0);
	CU_ASSERT_EQUAL(r.last.state_sets, 0);
	CU_ASSERT_EQUAL(r.last.unreachable, 0);
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->port_info_sets, pi_sets);
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->mkey_violations, 0);
	rig_fini(&r);
}

/* Another host without the key cannot take a port over; nanosm sweeps on. */
static void test_mkey_rogue_refused(void)
{
	struct rig r;
	struct smp_port_info pi = {0};
	uint8_t data[SMP_DATA_SIZE] = {0};
	struct smp resp;
	struct fake_mkey got;
	const struct fabric *st;
	uint16_t b_lid;

	mkey_rig(&r, 2, 0);
	rig_sweep(&r);
	rig_check_up(&r);
	st = fake_fabric_state(r.ff);
	b_lid = st->nodes[rig_node(st, "b")].ports[1].lid;
	/* a rogue Set (no key) to b and to s1: both vanish */
	pi.lid = 0x99;
	smp_port_info_encode(&pi, data);
	CU_ASSERT(!mkey_send(r.ff, SMP_METHOD_SET, SMP_ATTR_PORT_INFO, 1, mkey_to_b, 3, 0, data,
			     &resp));
	CU_ASSERT(!mkey_send(r.ff, SMP_METHOD_SET, SMP_ATTR_PORT_INFO, 0, mkey_to_s1, 1,
			     MKEY_ROGUE, data, &resp));
	/* and under protect 2 it cannot even read */
	CU_ASSERT(!mkey_get_pi(r.ff, mkey_to_b, 3, 1, MKEY_ROGUE, &pi));
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->mkey_violations, 3);
	CU_ASSERT_EQUAL(st->nodes[rig_node(st, "b")].ports[1].lid, b_lid);
	CU_ASSERT_EQUAL(fake_fabric_get_mkey(r.ff, mkey_guid(&r, "b"), 1, &got), 0);
	CU_ASSERT_EQUAL(got.key, MKEY_OURS);
	/* nanosm, with the key, still reads and sweeps everything */
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(r.last.unreachable, 0);
	CU_ASSERT_EQUAL(r.last.port_sets, 0);
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->mkey_violations, 3);
	rig_check_up(&r);
	rig_fini(&r);
}

/* c already holds another SM's key: with it shown (protect 0) nanosm sends
 * c no Set at all; hidden (protect 1) its Sets are dropped; under protect
 * 2 c does not even answer.  Every other port comes up with our key. */
static void test_mkey_foreign_port(void)
{
	for (uint8_t prot = 0; prot <= 2; prot++) {
		struct fake_mkey foreign = {MKEY_ROGUE, prot, 0}, got;
		const struct fabric *st;
		struct rig r;
		int c;

		mkey_rig(&r, 1, 0);
		CU_ASSERT_EQUAL(fake_fabric_set_mkey(r.ff, mkey_guid(&r, "c"), 1, &foreign), 0);
		rig_sweep(&r);
		rig_sweep(&r);
		CU_ASSERT_EQUAL(r.sweeps_done, 2);
		st = fake_fabric_state(r.ff);
		c = rig_node(st, "c");
		CU_ASSERT_EQUAL(fake_fabric_get_mkey(r.ff, st->nodes[c].guid, 1, &got), 0);
		CU_ASSERT(got.key == MKEY_ROGUE && got.protect == prot);
		CU_ASSERT_EQUAL(st->nodes[c].ports[1].lid, 0);
		CU_ASSERT_EQUAL(st->nodes[c].ports[1].state, PORT_STATE_INIT);
		if (prot == 0)
			CU_ASSERT_EQUAL(r.last.set_errors, 0); /* nothing sent to c */
		if (prot == 1)
			CU_ASSERT(r.last.set_errors >= 1);
		if (prot == 2)
			CU_ASSERT(r.last.unreachable >= 1);
		for (size_t i = 0; i < st->n_nodes; i++) {
			const struct fabric_node *n = &st->nodes[i];

			if ((int)i == c)
				continue;
			CU_ASSERT_EQUAL(fake_fabric_get_mkey(r.ff, n->guid,
							     fabric_is_switch(n) ? 0 : 1, &got),
					0);
			CU_ASSERT_EQUAL(got.key, MKEY_OURS);
			CU_ASSERT_NOT_EQUAL(n->ports[fabric_is_switch(n) ? 0 : 1].lid, 0);
		}
		CU_ASSERT_EQUAL(st->nodes[rig_node(st, "b")].ports[1].state, PORT_STATE_ACTIVE);
		rig_fini(&r);
	}
}

/* Ports that take the Set but keep no M_Key (ibsim): programmed once,
 * then left alone - no Set every sweep. */
static void test_mkey_unkept_converges(void)
{
	struct rig r;

	mkey_rig(&r, 2, 0);
	fake_fabric_keep_mkeys(r.ff, 0);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	rig_check_up(&r);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.port_sets, 0);
	CU_ASSERT_EQUAL(r.last.state_sets, 0);
	rig_fini(&r);
}

/* Without an M_Key nanosm leaves the ports' M_Key fields as they are. */
static void test_mkey_none_leaves_ports(void)
{
	struct fake_mkey lease_only = {0, 0, 99}, got;
	struct rig r;
	uint64_t b;

	rig_init(&r, mkey_loop, NULL, "minhop");
	b = mkey_guid(&r, "b");
	fake_fabric_set_mkey(r.ff, b, 1, &lease_only);
	rig_sweep(&r);
	rig_check_up(&r);
	CU_ASSERT_EQUAL(fake_fabric_get_mkey(r.ff, b, 1, &got), 0);
	CU_ASSERT(got.key == 0 && got.protect == 0 && got.lease == 99);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.port_sets, 0);
	rig_fini(&r);
}

/* ---- SM_Key ---- */

struct mkey_capture {
	uint8_t mad[SMP_MAD_SIZE];
	int n;
};

static int mkey_capture_send(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	struct mkey_capture *c = ctx;

	(void)to;
	memcpy(c->mad, mad, len < sizeof(c->mad) ? len : sizeof(c->mad));
	c->n++;
	return 0;
}

static uint64_t mkey_now(void *ctx)
{
	(void)ctx;
	return 1000;
}

/* The SM_Key a SubnGet(SMInfo) with M_Key mkey carrying asked gets back. */
static uint64_t mkey_sminfo_answer_m(struct sm *sm, struct mkey_capture *cap, uint64_t mkey,
				     uint64_t asked)
{
	struct mad_addr from = {.lid = 7};
	struct smp_sm_info si = {.sm_key = asked};
	uint8_t buf[SMP_MAD_SIZE];
	struct smp req, resp;
	int before = cap->n;

	smp_init_lid(&req, SMP_METHOD_GET, SMP_ATTR_SM_INFO, 0);
	req.tid = 0x42;
	req.mkey = mkey;
	smp_sm_info_encode(&si, req.data);
	CU_ASSERT_EQUAL_FATAL(smp_encode(&req, buf, sizeof(buf)), 0);
	sm_recv(sm, &from, buf, sizeof(buf));
	CU_ASSERT_EQUAL_FATAL(cap->n, before + 1);
	CU_ASSERT_EQUAL_FATAL(smp_decode(cap->mad, sizeof(cap->mad), &resp), 0);
	CU_ASSERT_EQUAL(resp.method, SMP_METHOD_GET_RESP);
	smp_sm_info_decode(resp.data, &si);
	CU_ASSERT_EQUAL(si.guid, 1);
	return si.sm_key;
}

static uint64_t mkey_sminfo_answer(struct sm *sm, struct mkey_capture *cap, uint64_t asked)
{
	return mkey_sminfo_answer_m(sm, cap, MKEY_ROGUE, asked);
}

static void test_mkey_sminfo_sm_key(void)
{
	struct mkey_capture cap = {{0}, 0};
	struct mad_xmit x = {mkey_capture_send, &cap};
	struct sm_clock c = {.now_ms = mkey_now};
	struct sm_opts o = {.port_guid = 1, .engine = "minhop", .sm_key = MKEY_SMKEY,
			    .m_key = MKEY_OURS, .m_key_protect = 1};
	struct sm *sm;

	o.mad.window = 4;
	o.mad.timeout_ms = 50;
	sm = sm_new(&o, &x, &c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sm);
	/* an M_Key is set: a Get without it reads 0, unless it shows the SM_Key */
	CU_ASSERT_EQUAL(mkey_sminfo_answer(sm, &cap, 0), 0);
	CU_ASSERT_EQUAL(mkey_sminfo_answer(sm, &cap, MKEY_ROGUE), 0);
	CU_ASSERT_EQUAL(mkey_sminfo_answer_m(sm, &cap, 0, 0), 0);
	CU_ASSERT_EQUAL(mkey_sminfo_answer(sm, &cap, MKEY_SMKEY), MKEY_SMKEY);
	/* a Get with our M_Key passes the check and reads it */
	CU_ASSERT_EQUAL(mkey_sminfo_answer_m(sm, &cap, MKEY_OURS, 0), MKEY_SMKEY);
	sm_free(sm);
	/* no M_Key configured: every Get passes the M_Key check (as OpenSM's
	 * do: OpenSM ignores SMs that hide the key from it) */
	o.m_key = 0;
	o.m_key_protect = 0;
	sm = sm_new(&o, &x, &c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sm);
	CU_ASSERT_EQUAL(mkey_sminfo_answer_m(sm, &cap, 0, 0), MKEY_SMKEY);
	sm_free(sm);
	/* no SM_Key: 0 to everyone */
	o.sm_key = 0;
	sm = sm_new(&o, &x, &c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sm);
	CU_ASSERT_EQUAL(mkey_sminfo_answer(sm, &cap, 0), 0);
	sm_free(sm);
}

/* The SA trusts requests that carry the policy's SM_Key. */
static void test_mkey_sa_view(void)
{
	struct rig r;

	mkey_rig(&r, 1, 0);
	rig_sweep(&r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sm_sa(r.sm));
	CU_ASSERT_EQUAL(sm_sa(r.sm)->v.sm_key, MKEY_SMKEY);
	rig_fini(&r);
}

void test_mkey_register(void)
{
	CU_pSuite s = CU_add_suite("mkey", NULL, NULL);

	/* the SM's warnings (NSM-W311..W313, W206) are expected here */
	log_init(getenv("UNIT_LOG") ? atoi(getenv("UNIT_LOG")) : LOG_LVL_ERR, "nanosm-unit");

	CU_add_test(s, "fake: Gets under each protection level", test_mkey_fake_levels);
	CU_add_test(s, "fake: Sets need the key", test_mkey_fake_set);
	CU_add_test(s, "sweep programs M_Key, protection, lease; then quiet",
		    test_mkey_sweep_programs);
	CU_add_test(s, "a rogue without the key is refused", test_mkey_rogue_refused);
	CU_add_test(s, "a port with another SM's key is left alone", test_mkey_foreign_port);
	CU_add_test(s, "ports that keep no M_Key: no Set every sweep", test_mkey_unkept_converges);
	CU_add_test(s, "no policy M_Key: ports' M_Key fields untouched",
		    test_mkey_none_leaves_ports);
	CU_add_test(s, "SMInfo returns the SM_Key to who passes the M_Key check or shows it", test_mkey_sminfo_sm_key);
	CU_add_test(s, "the SA view carries the SM_Key", test_mkey_sa_view);
}
