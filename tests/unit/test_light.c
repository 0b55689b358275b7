/*
 * test_light.c - light sweeps and trap handling (sm/core/sm.c) against the fake
 * fabric: one SwitchInfo Get per switch when nothing changed; a switch
 * with PortStateChange set, or a silent one, turns it into a heavy sweep,
 * which clears the bit; a babbling trap source gets one sweep, not one per
 * trap.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mad/smp.h"
#include "sm/core/log.h"
#include "sm/core/sm.h"
#include "sm/core/sm_priv.h"
#include "tests/unit/sm_rig.h"
#include "tests/unit/unit.h"

static const char light_topo[] = "Hca 1 \"h1\"\n[1] \"s1\"[1]\n\n"
				 "Hca 1 \"h2\"\n[1] \"s2\"[1]\n\n"
				 "Switch 4 \"s1\"\n[1] \"h1\"[1]\n[2] \"s2\"[2]\n\n"
				 "Switch 4 \"s2\"\n[1] \"h2\"[1]\n[2] \"s1\"[2]\n";

static uint64_t light_guid(const struct rig *r, const char *desc)
{
	return r->topo.nodes[rig_node(&r->topo, desc)].guid;
}

static void test_light_quiet_and_change(void)
{
	struct rig r;
	const struct sm_light_stats *ls;
	unsigned gets;
	int sweeps;

	rig_init(&r, light_topo, NULL, "minhop");
	CU_ASSERT_EQUAL(sm_light_sweep(r.sm), -EAGAIN); /* nothing swept yet */
	rig_sweep(&r);
	ls = sm_light_stats(r.sm);
	sweeps = r.sweeps_done;
	/* nothing changed: one SwitchInfo Get per switch, no heavy sweep */
	gets = fake_fabric_counters(r.ff)->gets;
	CU_ASSERT_EQUAL(sm_light_sweep(r.sm), 0);
	CU_ASSERT_EQUAL(sm_light_sweep(r.sm), -EBUSY);
	rig_run(&r);
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->gets - gets, 2);
	CU_ASSERT_EQUAL(ls->last_mads, 2);
	CU_ASSERT_EQUAL(ls->escalations, 0);
	CU_ASSERT_EQUAL(r.sweeps_done, sweeps);
	/* a port state change on s2: the light sweep asks for a heavy one,
	 * which clears the bit */
	CU_ASSERT_EQUAL(fake_fabric_port_change(r.ff, light_guid(&r, "s2")), 0);
	CU_ASSERT_EQUAL(sm_light_sweep(r.sm), 0);
	rig_run(&r);
	CU_ASSERT_EQUAL(ls->escalations, 1);
	CU_ASSERT_EQUAL(r.sweeps_done, sweeps + 1);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(fake_fabric_port_change_pending(r.ff, light_guid(&r, "s2")), 0);
	/* and the next light sweep is quiet again */
	CU_ASSERT_EQUAL(sm_light_sweep(r.sm), 0);
	rig_run(&r);
	CU_ASSERT_EQUAL(ls->escalations, 1);
	CU_ASSERT_EQUAL(r.sweeps_done, sweeps + 1);
	/* a switch that does not answer: heavy sweep too */
	fake_fabric_mute_node(r.ff, light_guid(&r, "s2"), 1);
	CU_ASSERT_EQUAL(sm_light_sweep(r.sm), 0);
	rig_run(&r);
	CU_ASSERT_EQUAL(ls->escalations, 2);
	CU_ASSERT_EQUAL(r.sweeps_done, sweeps + 2);
	CU_ASSERT_EQUAL(ls->runs, 4);
	/* that heavy sweep could not reach s2: the next periodic sweep must
	 * be heavy again, not a light one that sees nothing */
	CU_ASSERT(r.last.unreachable > 0);
	CU_ASSERT_EQUAL(sm_light_sweep(r.sm), -EAGAIN);
	fake_fabric_mute_node(r.ff, light_guid(&r, "s2"), 0);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.unreachable, 0);
	CU_ASSERT_EQUAL(sm_light_sweep(r.sm), 0);
	rig_run(&r);
	rig_fini(&r);
}

/* A trap (LID-routed SMP, method Trap, attribute Notice) from lid with
 * trap number trap. */
static void light_trap(struct rig *r, uint16_t lid, uint16_t trap, uint64_t tid)
{
	struct smp t;
	uint8_t mad[SMP_MAD_SIZE];
	struct mad_addr from = { .lid = lid };

	smp_init_lid(&t, SMP_METHOD_TRAP, SMP_ATTR_NOTICE, 0);
	t.tid = tid;
	t.data[0] = 0x81; /* IsGeneric, Type 1 (urgent) */
	t.data[4] = (uint8_t)(trap >> 8);
	t.data[5] = (uint8_t)trap;
	CU_ASSERT_EQUAL_FATAL(smp_encode(&t, mad, sizeof(mad)), 0);
	sm_recv(r->sm, &from, mad, sizeof(mad));
}

static void test_light_trap_storm(void)
{
	struct rig r;
	const struct sm_light_stats *ls;
	int sweeps;

	rig_init(&r, light_topo, NULL, "minhop");
	rig_sweep(&r);
	ls = sm_light_stats(r.sm);
	sweeps = r.sweeps_done;
	/* 50 identical traps at once: one heavy sweep SM_TRAP_HOLD_MS later,
	 * 49 only repressed, and one more sweep when the quiet second is
	 * over (a repeat may carry news: another port of the same switch) */
	for (uint64_t i = 0; i < 50; i++)
		light_trap(&r, 3, 128, 100 + i);
	rig_run(&r);
	CU_ASSERT_EQUAL(r.sweeps_done, sweeps); /* held */
	CU_ASSERT_EQUAL(sm_tick(r.sm), r.now + SM_TRAP_HOLD_MS);
	r.now += SM_TRAP_HOLD_MS;
	sm_tick(r.sm);
	rig_run(&r);
	CU_ASSERT_EQUAL(r.sweeps_done, sweeps + 1);
	CU_ASSERT_EQUAL(ls->traps_suppressed, 49);
	CU_ASSERT(sm_tick(r.sm) > r.now); /* the deferred sweep is due later */
	r.now += 1000;
	sm_tick(r.sm);
	rig_run(&r);
	CU_ASSERT_EQUAL(r.sweeps_done, sweeps + 2);
	r.now += 5000;
	sm_tick(r.sm);
	CU_ASSERT_FALSE(sm_busy(r.sm)); /* and then nothing more */
	/* another trap number from the same port is news */
	light_trap(&r, 3, 144, 200);
	r.now += SM_TRAP_HOLD_MS;
	sm_tick(r.sm);
	rig_run(&r);
	CU_ASSERT_EQUAL(r.sweeps_done, sweeps + 3);
	/* the same trap after the quiet time asks again */
	r.now += 5000;
	light_trap(&r, 3, 128, 300);
	r.now += SM_TRAP_HOLD_MS;
	sm_tick(r.sm);
	rig_run(&r);
	CU_ASSERT_EQUAL(r.sweeps_done, sweeps + 4);
	/* both ends of a pulled cable trap, 30 ms apart: one sweep */
	r.now += 5000;
	light_trap(&r, 3, 129, 400);
	r.now += 30;
	sm_tick(r.sm);
	light_trap(&r, 4, 129, 401);
	r.now += SM_TRAP_HOLD_MS;
	sm_tick(r.sm);
	rig_run(&r);
	r.now += 5000;
	sm_tick(r.sm);
	rig_run(&r);
	CU_ASSERT_EQUAL(r.sweeps_done, sweeps + 5);
	CU_ASSERT_EQUAL(ls->traps_coalesced, 1);
	CU_ASSERT_EQUAL(ls->traps_suppressed, 49);
	rig_fini(&r);
}

/* A new master asks every end port to reregister once: its first sweep
 * sets ClientReregister on each CA port (also when the ports were already
 * configured by an earlier SM), later sweeps never. */
static void test_light_client_rereg(void)
{
	struct rig r;
	const struct fake_counters *fc;

	rig_init(&r, light_topo, NULL, "minhop");
	fc = fake_fabric_counters(r.ff);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(fc->client_rereg_sets, 2);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(fc->client_rereg_sets, 2);
	CU_ASSERT_EQUAL(r.last.port_sets, 0);
	/* another SM takes over the configured fabric */
	sm_free(r.sm);
	r.sm = NULL;
	rig_start_sm(&r, NULL, "minhop");
	rig_sweep(&r);
	CU_ASSERT_EQUAL(fc->client_rereg_sets, 4);
	CU_ASSERT_EQUAL(r.last.port_sets, 2);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(fc->client_rereg_sets, 4);
	rig_fini(&r);
}

/* The answer to a state Set is lost after the port took the step: the
 * retry is refused (the port is past it), and the read-back finds the port
 * where nanosm wanted it - no Set error, every port ACTIVE. */
static void test_light_lost_state_reply(void)
{
	struct rig r;

	rig_init(&r, light_topo, NULL, "minhop");
	fake_fabric_lose_state_replies(r.ff, 3);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(r.last.set_errors, 0);
	CU_ASSERT(fake_fabric_counters(r.ff)->dropped >= 3);
	rig_check_up(&r);
	rig_fini(&r);
}

/* A switch whose PortInfo answers are all lost in one sweep keeps its
 * ports (what the last sweep read): no route moves, the sweep ends ok,
 * and the next periodic sweep is heavy to check again. */
static void test_light_lost_port_info(void)
{
	struct rig r;

	rig_init(&r, light_topo, NULL, "minhop");
	rig_sweep(&r);
	fake_fabric_lose_attr(r.ff, light_guid(&r, "s2"), SMP_ATTR_PORT_INFO);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT(r.last.unreachable > 0);
	CU_ASSERT_EQUAL(r.last.lft_blocks_sent, 0);
	CU_ASSERT_EQUAL(r.last.cas, 2);
	CU_ASSERT_EQUAL(sm_light_sweep(r.sm), -EAGAIN);
	/* and a retry comes by itself, half a second later */
	CU_ASSERT_FALSE(sm_busy(r.sm));
	r.now += 100;
	sm_tick(r.sm);
	CU_ASSERT_FALSE(sm_busy(r.sm));
	r.now += 500;
	sm_tick(r.sm);
	CU_ASSERT_TRUE(sm_busy(r.sm));
	rig_run(&r);
	fake_fabric_lose_attr(r.ff, 0, 0);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.unreachable, 0);
	rig_check_up(&r);
	rig_fini(&r);
}

/* On a first sweep (nothing to fall back on) a switch whose PortInfo
 * answers are all lost: the cables to it carry no route, the rest of the
 * fabric comes up, and the sweep does not fail on the gate. */
static void test_light_unread_link(void)
{
	struct rig r;

	rig_init(&r, light_topo, NULL, "minhop");
	fake_fabric_lose_attr(r.ff, light_guid(&r, "s2"), SMP_ATTR_PORT_INFO);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT(r.last.unreachable > 0);
	fake_fabric_lose_attr(r.ff, 0, 0);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(r.last.unreachable, 0);
	rig_check_up(&r);
	rig_fini(&r);
}

/* Hostile NodeInfo: a switch claiming 255 ports, and a CA claiming
 * another node's GUID.  Each is rejected with a log line naming it (and
 * its path), the rest of the fabric comes up, and the model is not
 * corrupted: once the node tells the truth, everything is back. */
static void test_light_hostile_node_info(void)
{
	struct rig r;

	rig_init(&r, light_topo, NULL, "minhop");
	rig_sweep(&r);
	fake_fabric_lie_node_info(r.ff, light_guid(&r, "s2"), 255, 0);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(r.last.switches, 1); /* s2 (and h2 behind it) left out */
	CU_ASSERT(r.last.unreachable > 0);
	fake_fabric_lie_node_info(r.ff, light_guid(&r, "h2"), 0, light_guid(&r, "s1"));
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(r.last.switches, 2);
	CU_ASSERT_EQUAL(r.last.cas, 1); /* h2, claiming s1's GUID, is not taken for s1 */
	fake_fabric_lie_node_info(r.ff, 0, 0, 0);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.cas, 2);
	CU_ASSERT_EQUAL(r.last.switches, 2);
	rig_check_up(&r);
	rig_fini(&r);
}

/* A master's light sweep asks every other SM the heavy sweep found for
 * its SMInfo: no change, nothing more; a new priority or state, or
 * silence, turns it into a heavy sweep. */
static void test_light_polls_other_sms(void)
{
	struct sm_opts o = {.port_guid = 1, .engine = "minhop", .priority = 10};
	struct rig r;
	const struct sm_light_stats *ls;
	struct fake_sm *peer;
	unsigned gets;

	rig_init(&r, light_topo, NULL, "minhop");
	sm_free(r.sm);
	rig_start_sm_opts(&r, &o);
	peer = fake_fabric_add_sm(r.ff, light_guid(&r, "h2"), 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(peer);
	peer->priority = 0;
	peer->state = SM_STATE_STANDBY;
	rig_sweep(&r);
	CU_ASSERT_EQUAL(sm_state(r.sm), SM_STATE_MASTER);
	ls = sm_light_stats(r.sm);
	gets = peer->gets;
	CU_ASSERT_EQUAL(sm_light_sweep(r.sm), 0);
	rig_run(&r);
	CU_ASSERT_EQUAL(peer->gets, gets + 1);
	CU_ASSERT_EQUAL(ls->last_mads, 3); /* two switches and the other SM */
	CU_ASSERT_EQUAL(ls->escalations, 0);
	peer->priority = 5;
	CU_ASSERT_EQUAL(sm_light_sweep(r.sm), 0);
	rig_run(&r);
	CU_ASSERT_EQUAL(ls->escalations, 1);
	CU_ASSERT_EQUAL(r.last.status, 0);
	/* the heavy sweep took note: quiet again */
	CU_ASSERT_EQUAL(sm_light_sweep(r.sm), 0);
	rig_run(&r);
	CU_ASSERT_EQUAL(ls->escalations, 1);
	peer->silent = 1;
	CU_ASSERT_EQUAL(sm_light_sweep(r.sm), 0);
	rig_run(&r);
	CU_ASSERT_EQUAL(ls->escalations, 2);
	rig_fini(&r);
}

/* With an M_Key lease, light sweeps also read every CA port, once per
 * half lease; a CA port that changed turns it into a heavy sweep.
 * Without a lease they do not. */
static void test_light_mkey_lease(void)
{
	struct sm_opts o = {.port_guid = 1, .engine = "minhop", .m_key = 0x1234,
			    .m_key_protect = 1, .m_key_lease = 10};
	struct rig r;
	const struct sm_light_stats *ls;

	rig_init(&r, light_topo, NULL, "minhop");
	sm_free(r.sm);
	rig_start_sm_opts(&r, &o);
	rig_sweep(&r);
	ls = sm_light_stats(r.sm);
	CU_ASSERT_EQUAL(sm_light_sweep(r.sm), 0);
	rig_run(&r);
	CU_ASSERT_EQUAL(ls->ca_reads, 2);
	CU_ASSERT_EQUAL(ls->last_mads, 4);
	CU_ASSERT_EQUAL(ls->escalations, 0);
	CU_ASSERT_EQUAL(sm_light_sweep(r.sm), 0); /* within half the lease: switches only */
	rig_run(&r);
	CU_ASSERT_EQUAL(ls->ca_reads, 2);
	CU_ASSERT_EQUAL(ls->last_mads, 2);
	r.now += 5000;
	fake_fabric_mute_node(r.ff, light_guid(&r, "h2"), 1);
	CU_ASSERT_EQUAL(sm_light_sweep(r.sm), 0);
	rig_run(&r);
	CU_ASSERT_EQUAL(ls->ca_reads, 4);
	CU_ASSERT_EQUAL(ls->escalations, 1);
	rig_fini(&r);
	/* no lease: CA ports are left alone */
	rig_init(&r, light_topo, NULL, "minhop");
	rig_sweep(&r);
	CU_ASSERT_EQUAL(sm_light_sweep(r.sm), 0);
	rig_run(&r);
	CU_ASSERT_EQUAL(sm_light_stats(r.sm)->ca_reads, 0);
	rig_fini(&r);
}

/* MADs that answer nothing of ours are thrown away with one NSM-W220 line
 * a second, naming the sender's LID and counting the ones not said. */
static void test_light_rejected_logged(void)
{
	char path[] = "/tmp/nanosm-unit-w220-XXXXXX", buf[8192];
	struct mad_addr from = {.lid = 7};
	uint8_t mad[SMP_MAD_SIZE];
	struct smp bogus;
	int level = log_level_get(), fd;
	struct rig r;

	rig_init(&r, light_topo, NULL, "minhop");
	rig_sweep(&r);
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	log_init(LOG_LVL_WARN, NULL);
	CU_ASSERT_EQUAL_FATAL(log_open_file(path), 0);
	smp_init_dr(&bogus, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, NULL, 0);
	bogus.tid = 0x4242; /* no SMP of ours */
	smp_make_response(&bogus);
	CU_ASSERT_EQUAL(smp_encode(&bogus, mad, sizeof(mad)), 0);
	for (int i = 0; i < 3; i++)
		sm_recv(r.sm, &from, mad, sizeof(mad));
	CU_ASSERT_EQUAL(rig_log_count(path, "NSM-W220 ignored a MAD from LID 7", buf, sizeof(buf)),
			1);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "attribute 0x0011"));
	r.now += 1001;
	sm_recv(r.sm, &from, mad, 20); /* a runt: malformed */
	CU_ASSERT_EQUAL(rig_log_count(path, "NSM-W220 ignored a MAD from LID 7", buf, sizeof(buf)),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "3 such in all"));
	CU_ASSERT_EQUAL(sm_mad_counters(r.sm)->unmatched, 3);
	CU_ASSERT_EQUAL(sm_mad_counters(r.sm)->malformed, 1);
	log_to_stderr();
	log_init(level, NULL);
	unlink(path);
	rig_fini(&r);
}

void test_light_register(void)
{
	CU_pSuite s = CU_add_suite("light", NULL, NULL);

	CU_add_test(s, "light sweeps: quiet, port change, silent switch",
		    test_light_quiet_and_change);
	CU_add_test(s, "a trap storm gets one sweep", test_light_trap_storm);
	CU_add_test(s, "a new master asks clients to reregister", test_light_client_rereg);
	CU_add_test(s, "a state Set whose answer was lost", test_light_lost_state_reply);
	CU_add_test(s, "PortInfo answers lost: the last sweep's are used", test_light_lost_port_info);
	CU_add_test(s, "a cable whose end cannot be read is not routed", test_light_unread_link);
	CU_add_test(s, "NodeInfo lies: 255 ports, a duplicate GUID", test_light_hostile_node_info);
	CU_add_test(s, "a master's light sweep polls the other SMs", test_light_polls_other_sms);
	CU_add_test(s, "an M_Key lease: light sweeps read CA ports", test_light_mkey_lease);
	CU_add_test(s, "thrown-away MADs: one NSM-W220 line a second", test_light_rejected_logged);
}
