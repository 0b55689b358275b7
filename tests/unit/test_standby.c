/*
 * test_standby.c - the SM state machine: the pure decisions (standby.c),
 * then whole SMs against the fake fabric playing a second SM.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <string.h>

#include "mad/sa.h"
#include "mad/smp.h"
#include "sm/core/sm.h"
#include "sm/core/standby.h"
#include "tests/unit/sm_rig.h"
#include "tests/unit/unit.h"

#define SB(g, p, s) ((struct standby_sm){ .guid = (g), .priority = (p), .state = (s) })

static void test_standby_better(void)
{
	struct standby_sm a = SB(0x10, 5, SM_STATE_MASTER), b = SB(0x05, 4, SM_STATE_MASTER);

	CU_ASSERT(standby_better(&a, &b));  /* priority first */
	CU_ASSERT(!standby_better(&b, &a));
	b.priority = 5;
	CU_ASSERT(standby_better(&b, &a));  /* then the lower GUID */
	CU_ASSERT(!standby_better(&a, &b));
	CU_ASSERT(!standby_better(&a, &a));
}

static void test_standby_decide_discovering(void)
{
	struct standby_sm self = SB(0x20, 5, SM_STATE_DISCOVERING);
	struct standby_sm peers[3];
	size_t which = 99;

	CU_ASSERT_EQUAL(standby_decide(&self, NULL, 0, &which), STANDBY_ACT_MASTER);
	/* a worse master still rules while we discover: it hands over to us */
	peers[0] = SB(0x30, 1, SM_STATE_MASTER);
	CU_ASSERT_EQUAL(standby_decide(&self, peers, 1, &which), STANDBY_ACT_STANDBY);
	CU_ASSERT_EQUAL(which, 0);
	/* a worse standby: we win */
	peers[0] = SB(0x30, 1, SM_STATE_STANDBY);
	CU_ASSERT_EQUAL(standby_decide(&self, peers, 1, &which), STANDBY_ACT_MASTER);
	/* a better one discovering / standby: we wait under the best */
	peers[1] = SB(0x40, 7, SM_STATE_DISCOVERING);
	peers[2] = SB(0x08, 7, SM_STATE_STANDBY);
	CU_ASSERT_EQUAL(standby_decide(&self, peers, 3, &which), STANDBY_ACT_STANDBY);
	CU_ASSERT_EQUAL(which, 2);
	/* NOTACTIVE and our own GUID do not count */
	peers[0] = SB(0x01, 15, SM_STATE_NOT_ACTIVE);
	peers[1] = SB(0x20, 15, SM_STATE_MASTER);
	CU_ASSERT_EQUAL(standby_decide(&self, peers, 2, &which), STANDBY_ACT_MASTER);
}

static void test_standby_decide_master(void)
{
	struct standby_sm self = SB(0x20, 5, SM_STATE_MASTER);
	struct standby_sm peers[3];
	size_t which = 99;

	/* worse SMs in any state: stay */
	peers[0] = SB(0x30, 5, SM_STATE_MASTER);
	peers[1] = SB(0x10, 4, SM_STATE_STANDBY);
	CU_ASSERT_EQUAL(standby_decide(&self, peers, 2, &which), STANDBY_ACT_MASTER);
	/* a better standby: hand over to it */
	peers[2] = SB(0x50, 9, SM_STATE_STANDBY);
	CU_ASSERT_EQUAL(standby_decide(&self, peers, 3, &which), STANDBY_ACT_HANDOVER);
	CU_ASSERT_EQUAL(which, 2);
	/* a better master wins over handing over: step down */
	peers[0] = SB(0x30, 6, SM_STATE_MASTER);
	CU_ASSERT_EQUAL(standby_decide(&self, peers, 3, &which), STANDBY_ACT_STANDBY);
	CU_ASSERT_EQUAL(which, 0);
	/* a better one still discovering: it will go standby under us first */
	peers[0] = SB(0x01, 15, SM_STATE_DISCOVERING);
	CU_ASSERT_EQUAL(standby_decide(&self, peers, 1, &which), STANDBY_ACT_MASTER);
}

static void test_standby_poll(void)
{
	struct standby_poll p = { 0 };

	for (int round = 0; round < 2; round++) {
		for (unsigned i = 1; i < STANDBY_MISSES; i++)
			CU_ASSERT_EQUAL(standby_poll_count(&p, 0, 0), 0);
		/* one good answer starts the count again */
		CU_ASSERT_EQUAL(standby_poll_count(&p, 1, SM_STATE_MASTER), 0);
		CU_ASSERT_EQUAL(p.misses, 0);
	}
	/* an answer that is not MASTER counts as a miss */
	for (unsigned i = 1; i < STANDBY_MISSES; i++)
		CU_ASSERT_EQUAL(standby_poll_count(&p, 1, SM_STATE_STANDBY), 0);
	CU_ASSERT_EQUAL(standby_poll_count(&p, 0, 0), 1);
}

/* ---- whole SMs against the fake fabric playing a second SM ---------- */

static const char ha_topo[] = "Hca 1 \"h1\"\n[1] \"s1\"[1]\n\n"
			      "Hca 1 \"h2\"\n[1] \"s2\"[1]\n\n"
			      "Hca 1 \"h3\"\n[1] \"s2\"[3]\n\n"
			      "Switch 4 \"s1\"\n[1] \"h1\"[1]\n[2] \"s2\"[2]\n\n"
			      "Switch 4 \"s2\"\n[1] \"h2\"[1]\n[2] \"s1\"[2]\n[3] \"h3\"[1]\n";

/* The port GUID of an end port (CA port 1, switch port 0) of node desc. */
static uint64_t ha_port_guid(const struct fabric *f, const char *desc)
{
	const struct fabric_node *n = &f->nodes[rig_node(f, desc)];
	unsigned p = fabric_is_switch(n) ? 0 : 1;

	return n->ports[p].guid ? n->ports[p].guid : n->guid;
}

/* The scripted SM on h2. */
static struct fake_sm *ha_peer(struct rig *r, uint8_t priority, uint8_t state)
{
	uint64_t h2 = r->topo.nodes[rig_node(&r->topo, "h2")].guid;
	struct fake_sm *peer = fake_fabric_add_sm(r->ff, h2, 1);

	CU_ASSERT_PTR_NOT_NULL_FATAL(peer);
	peer->priority = priority;
	peer->state = state;
	return peer;
}

/* What every end port holds now, by node index. */
static void ha_lids(const struct rig *r, uint16_t *lids)
{
	const struct fabric *st = fake_fabric_state(r->ff);

	for (size_t i = 0; i < st->n_nodes; i++)
		lids[i] = st->nodes[i].ports[fabric_is_switch(&st->nodes[i]) ? 0 : 1].lid;
}

static void ha_start_second(struct rig *r, uint8_t priority)
{
	struct sm_opts o = {.port_guid = 1, .engine = "minhop", .priority = priority};

	sm_free(r->sm);
	r->sm = NULL;
	rig_start_sm_opts(r, &o);
}

/* A better master is there: we end the first sweep in STANDBY having
 * programmed nothing, refuse heavy sweeps, drop SA requests and poll it. */
static void test_standby_under_master(void)
{
	struct rig r;
	const struct fake_counters *fc;
	struct fake_sm *peer;
	uint64_t guid = 0;
	uint16_t lid = 99;
	uint8_t sa[SA_MAD_SIZE] = { 1, SA_CLASS, SA_CLASS_VERSION, 0x01 };
	struct mad_addr from = { .lid = 5 };

	rig_init(&r, ha_topo, NULL, "minhop");
	fc = fake_fabric_counters(r.ff);
	CU_ASSERT_EQUAL(sm_state(r.sm), SM_STATE_DISCOVERING);
	peer = ha_peer(&r, 5, SM_STATE_MASTER);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.sm_state, SM_STATE_STANDBY);
	CU_ASSERT_EQUAL(sm_state(r.sm), SM_STATE_STANDBY);
	CU_ASSERT_EQUAL(fc->port_info_sets, 0);
	CU_ASSERT_EQUAL(fc->lft_block_sets, 0);
	CU_ASSERT_EQUAL(fc->sets, 0);
	CU_ASSERT_EQUAL(peer->gets, 1);
	CU_ASSERT_EQUAL(sm_master(r.sm, &guid, &lid), 0);
	CU_ASSERT_EQUAL(guid, peer->guid);
	CU_ASSERT_EQUAL(lid, 0); /* nobody has given h2 a LID in this fake */
	CU_ASSERT_EQUAL(sm_sweep_request(r.sm), -EPERM);
	sm_recv(r.sm, &from, sa, sizeof(sa));
	CU_ASSERT_EQUAL(sm_sa_dropped(r.sm), 1);
	/* polls: the master answers, we stay */
	for (int i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(sm_light_sweep(r.sm), 0);
		rig_run(&r);
	}
	CU_ASSERT_EQUAL(peer->gets, 6);
	CU_ASSERT_EQUAL(sm_state(r.sm), SM_STATE_STANDBY);
	CU_ASSERT_EQUAL(fc->sets, 0);
	rig_fini(&r);
}

/* The master goes silent: after STANDBY_MISSES polls we take over with a
 * heavy sweep, and every port keeps the LID the master gave it even where
 * our own map (a stale guid2lid) says otherwise. */
static void test_standby_takeover(void)
{
	struct rig r;
	const struct fake_counters *fc;
	struct fake_sm *peer;
	uint16_t before[8], after[8];
	uint64_t h1 = 0, s2 = 0;
	int done;

	rig_init(&r, ha_topo, NULL, "minhop");
	fc = fake_fabric_counters(r.ff);
	h1 = ha_port_guid(&r.topo, "h1");
	s2 = ha_port_guid(&r.topo, "s2");
	/* the first master hands out LIDs a fresh allocator would not */
	CU_ASSERT_EQUAL(sm_reserve_lid(r.sm, h1, 0x40), 0);
	CU_ASSERT_EQUAL(sm_reserve_lid(r.sm, s2, 0x41), 0);
	rig_sweep(&r);
	rig_check_up(&r);
	ha_lids(&r, before);
	/* it becomes the scripted master on h2; we start as the standby */
	ha_start_second(&r, 0);
	peer = ha_peer(&r, 9, SM_STATE_MASTER);
	CU_ASSERT_EQUAL(sm_reserve_lid(r.sm, h1, 0x7), 0); /* stale, disagrees */
	rig_sweep(&r);
	CU_ASSERT_EQUAL(sm_state(r.sm), SM_STATE_STANDBY);
	peer->silent = 1;
	done = r.sweeps_done;
	for (unsigned i = 1; i < STANDBY_MISSES; i++) {
		CU_ASSERT_EQUAL(sm_light_sweep(r.sm), 0);
		rig_run(&r);
		CU_ASSERT_EQUAL(sm_state(r.sm), SM_STATE_STANDBY);
	}
	CU_ASSERT_EQUAL(r.sweeps_done, done);
	CU_ASSERT_EQUAL(sm_light_sweep(r.sm), 0);
	rig_run(&r); /* the last miss, then the takeover sweep */
	CU_ASSERT_EQUAL(r.sweeps_done, done + 1);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(r.last.sm_state, SM_STATE_MASTER);
	CU_ASSERT_EQUAL(r.last.number, 1);
	CU_ASSERT_EQUAL(sm_state(r.sm), SM_STATE_MASTER);
	rig_check_up(&r);
	ha_lids(&r, after);
	CU_ASSERT_EQUAL(memcmp(before, after, r.topo.n_nodes * sizeof(before[0])), 0);
	CU_ASSERT_EQUAL(after[rig_node(&r.topo, "h1")], 0x40);
	/* a new master: every end port reregisters (3 CAs, twice in all) */
	CU_ASSERT_EQUAL(fc->client_rereg_sets, 6);
	rig_fini(&r);
}

/* Send the SM an SMInfo Set from the scripted SM. */
static void ha_send_set(struct rig *r, const struct fake_sm *peer, uint32_t mod)
{
	struct smp smp;
	struct smp_sm_info si = { .guid = peer->guid, .priority = peer->priority,
				  .state = SM_STATE_MASTER };
	uint8_t mad[SMP_MAD_SIZE];
	struct mad_addr from = { .lid = 0xffff };

	smp_init_dr(&smp, SMP_METHOD_SET, SMP_ATTR_SM_INFO, mod, NULL, 0);
	smp_sm_info_encode(&si, smp.data);
	CU_ASSERT_EQUAL_FATAL(smp_encode(&smp, mad, sizeof(mad)), 0);
	sm_recv(r->sm, &from, mad, sizeof(mad));
}

/* We are master and a better SM shows up in STANDBY: HANDOVER, and we
 * follow it.  Then it hands back: we answer, ACKNOWLEDGE, take over. */
static void test_standby_handover(void)
{
	struct rig r;
	const struct fake_counters *fc;
	struct fake_sm *peer;
	uint16_t before[8], after[8];
	uint64_t guid = 0;
	uint16_t lid;
	unsigned sets;

	rig_init(&r, ha_topo, NULL, "minhop");
	fc = fake_fabric_counters(r.ff);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(sm_state(r.sm), SM_STATE_MASTER);
	ha_lids(&r, before);
	peer = ha_peer(&r, 7, SM_STATE_STANDBY);
	sets = fc->port_info_sets;
	rig_sweep(&r);
	CU_ASSERT_EQUAL(peer->handovers, 1);
	CU_ASSERT_EQUAL(peer->last_set_mod, SMINFO_MOD_HANDOVER);
	CU_ASSERT_EQUAL(peer->state, SM_STATE_MASTER);
	CU_ASSERT_EQUAL(r.last.sm_state, SM_STATE_STANDBY);
	CU_ASSERT_EQUAL(sm_state(r.sm), SM_STATE_STANDBY);
	CU_ASSERT_EQUAL(fc->port_info_sets, sets); /* nothing programmed */
	CU_ASSERT_EQUAL(sm_master(r.sm, &guid, &lid), 0);
	CU_ASSERT_EQUAL(guid, peer->guid);
	CU_ASSERT_EQUAL(lid, before[rig_node(&r.topo, "h2")]);
	/* a refused HANDOVER is not repeated by the next poll of ours... and
	 * the peer, now worse (priority lowered), hands back */
	peer->priority = 0;
	peer->state = SM_STATE_STANDBY; /* as it goes once it sent HANDOVER */
	ha_send_set(&r, peer, SMINFO_MOD_HANDOVER);
	CU_ASSERT_EQUAL(sm_state(r.sm), SM_STATE_MASTER);
	CU_ASSERT(sm_busy(r.sm)); /* the takeover sweep */
	rig_run(&r);
	CU_ASSERT_EQUAL(peer->acks, 1);
	CU_ASSERT_EQUAL(r.last.sm_state, SM_STATE_MASTER);
	CU_ASSERT_EQUAL(r.last.number, 1);
	CU_ASSERT_EQUAL(peer->handovers, 1); /* it is worse now: no HANDOVER back */
	rig_check_up(&r);
	ha_lids(&r, after);
	CU_ASSERT_EQUAL(memcmp(before, after, r.topo.n_nodes * sizeof(before[0])), 0);
	rig_fini(&r);
}

/* A better standby polling us says who it is in its Get: we sweep (and
 * hand over); a worse one changes nothing. */
static void test_standby_polled_by_better(void)
{
	struct rig r;
	struct smp smp;
	struct smp_sm_info si = { .guid = 0x99, .priority = 3, .state = SM_STATE_STANDBY };
	uint8_t mad[SMP_MAD_SIZE];
	struct mad_addr from = { .lid = 3 };

	rig_init(&r, ha_topo, NULL, "minhop");
	rig_sweep(&r);
	smp_init_lid(&smp, SMP_METHOD_GET, SMP_ATTR_SM_INFO, 0);
	si.priority = 0; /* same priority, higher GUID: worse */
	smp_sm_info_encode(&si, smp.data);
	CU_ASSERT_EQUAL_FATAL(smp_encode(&smp, mad, sizeof(mad)), 0);
	sm_recv(r.sm, &from, mad, sizeof(mad));
	CU_ASSERT_FALSE(sm_busy(r.sm));
	si.priority = 3;
	smp_sm_info_encode(&si, smp.data);
	CU_ASSERT_EQUAL_FATAL(smp_encode(&smp, mad, sizeof(mad)), 0);
	sm_recv(r.sm, &from, mad, sizeof(mad));
	CU_ASSERT(sm_busy(r.sm));
	rig_run(&r);
	rig_fini(&r);
}

void test_standby_register(void)
{
	CU_pSuite s = CU_add_suite("standby", NULL, NULL);

	CU_add_test(s, "who wins: priority, then GUID", test_standby_better);
	CU_add_test(s, "decisions while discovering", test_standby_decide_discovering);
	CU_add_test(s, "decisions as master", test_standby_decide_master);
	CU_add_test(s, "polling the master", test_standby_poll);
	CU_add_test(s, "standby under a better master", test_standby_under_master);
	CU_add_test(s, "takeover when the master goes silent, LIDs kept", test_standby_takeover);
	CU_add_test(s, "handover to a better standby and back", test_standby_handover);
	CU_add_test(s, "polled by a better standby", test_standby_polled_by_better);
}
