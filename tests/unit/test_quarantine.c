/*
 * test_quarantine.c - what the SM does with nodes that do not answer:
 * the quarantine bookkeeping (sm/core/quarantine.c), when the subnet is
 * declared up (sm_subnet_state), a silent node kept as last seen, and
 * other directed routes tried when the first one loses everything.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mad/smp.h"
#include "routing/topo_file.h"
#include "sm/core/quarantine.h"
#include "sm/core/sm.h"
#include "sm/core/topo_diff.h"
#include "tests/unit/sm_rig.h"
#include "tests/unit/unit.h"

static void test_quar_runs(void)
{
	struct quar q;
	struct quar_entry fresh[4], gone[4];
	uint8_t path[FABRIC_MAX_HOPS + 1] = {0, 1, 3};
	size_t nf, ng;

	quar_init(&q);
	for (unsigned sweep = 1; sweep <= QUAR_AFTER; sweep++) {
		CU_ASSERT_FALSE(quar_held(&q, 0x10, 2, SMP_ATTR_NODE_INFO));
		CU_ASSERT_EQUAL(quar_miss(&q, sweep, 0x10, 2, SMP_ATTR_NODE_INFO, path, 2), 0);
		CU_ASSERT_EQUAL(quar_miss(&q, sweep, 0x10, 2, SMP_ATTR_NODE_INFO, path, 2), 0);
		CU_ASSERT_EQUAL(quar_miss(&q, sweep, 0x20, 0, SMP_ATTR_PORT_INFO, NULL, 0), 0);
		CU_ASSERT(quar_missed_in(&q, sweep, 0x10, 2, SMP_ATTR_NODE_INFO));
		CU_ASSERT_FALSE(quar_missed_in(&q, sweep, 0x10, 3, SMP_ATTR_NODE_INFO));
		quar_sweep_end(&q, sweep, fresh, 4, &nf, gone, 4, &ng);
		CU_ASSERT_EQUAL(ng, 0);
		CU_ASSERT_EQUAL(nf, sweep == QUAR_AFTER ? 2 : 0);
	}
	CU_ASSERT_EQUAL(fresh[0].guid, 0x10);
	CU_ASSERT_EQUAL(fresh[0].misses, QUAR_AFTER); /* twice in a sweep counts once */
	CU_ASSERT_EQUAL(fresh[0].first, 1);
	CU_ASSERT_EQUAL(fresh[0].hops, 2);
	CU_ASSERT_EQUAL(fresh[0].path[2], 3);
	CU_ASSERT(quar_held(&q, 0x10, 2, SMP_ATTR_NODE_INFO));
	CU_ASSERT_EQUAL(quar_count(&q), 2);
	/* one keeps missing (reported once only), the other answers */
	quar_miss(&q, QUAR_AFTER + 1, 0x10, 2, SMP_ATTR_NODE_INFO, path, 2);
	quar_sweep_end(&q, QUAR_AFTER + 1, fresh, 4, &nf, gone, 4, &ng);
	CU_ASSERT_EQUAL(nf, 0);
	CU_ASSERT_EQUAL(ng, 1);
	CU_ASSERT_EQUAL(gone[0].guid, 0x20);
	CU_ASSERT_FALSE(quar_held(&q, 0x20, 0, SMP_ATTR_PORT_INFO));
	CU_ASSERT_EQUAL(quar_count(&q), 1);
	/* a gap starts a new run */
	quar_miss(&q, QUAR_AFTER + 3, 0x10, 2, SMP_ATTR_NODE_INFO, path, 2);
	CU_ASSERT_FALSE(quar_held(&q, 0x10, 2, SMP_ATTR_NODE_INFO));
	quar_fini(&q);
}

static void test_subnet_state(void)
{
	struct sm_sweep_stats st = {.sm_state = SM_STATE_MASTER};

	CU_ASSERT_EQUAL(sm_subnet_state(&st), SM_SUBNET_COMPLETE);
	st.incomplete_run = 1;
	CU_ASSERT_EQUAL(sm_subnet_state(&st), SM_SUBNET_NO);
	st.incomplete_run = SM_DEGRADED_AFTER;
	CU_ASSERT_EQUAL(sm_subnet_state(&st), SM_SUBNET_DEGRADED);
	st.status = -EINVAL;
	CU_ASSERT_EQUAL(sm_subnet_state(&st), SM_SUBNET_NO);
	st.status = 0;
	st.incomplete_run = 0;
	st.sm_state = SM_STATE_STANDBY;
	CU_ASSERT_EQUAL(sm_subnet_state(&st), SM_SUBNET_NO);
}

/* h1 - s1 = s2 - h2, s1 and s2 joined by two cables */
static const char q_line[] = "Hca 1 \"h1\"\n[1] \"s1\"[1]\n\n"
			     "Hca 1 \"h2\"\n[1] \"s2\"[1]\n\n"
			     "Switch 4 \"s1\"\n[1] \"h1\"[1]\n[2] \"s2\"[2]\n[3] \"s2\"[3]\n\n"
			     "Switch 4 \"s2\"\n[1] \"h2\"[1]\n[2] \"s1\"[2]\n[3] \"s1\"[3]\n";

static uint64_t q_guid(const struct rig *r, const char *desc)
{
	return r->topo.nodes[rig_node(&r->topo, desc)].guid;
}

static uint16_t q_lid(const struct rig *r, const char *desc)
{
	const struct fabric *st = fake_fabric_state(r->ff);

	return st->nodes[rig_node(st, desc)].ports[1].lid;
}

/* A host whose cable is up but which never answers: kept as the last
 * sweep saw it (no LID or route withdrawn, nothing written), the subnet
 * degraded after SM_DEGRADED_AFTER sweeps and the host quarantined; it
 * answers again and all is complete.  A pulled cable is not kept. */
/* After an incomplete sweep a retry is due; while the next sweep runs,
 * sm_tick never names a deadline already past (the loop's timer would
 * fire again at once, and keep firing, for the whole sweep). */
struct retry_watch {
	unsigned past, ticks;
};

static void retry_watch(struct rig *r, int ticked, uint64_t next, void *ctx)
{
	struct retry_watch *w = ctx;

	if (!ticked || !sm_busy(r->sm))
		return;
	w->ticks++;
	w->past += next && next <= r->now;
}

static void test_retry_not_due_while_running(void)
{
	struct retry_watch w = {0, 0};
	struct rig r;

	rig_init(&r, q_line, NULL, "minhop");
	rig_sweep(&r);
	fake_fabric_mute_node(r.ff, q_guid(&r, "h2"), 1);
	rig_sweep(&r); /* incomplete: a retry is now due in 0.5 s */
	CU_ASSERT_EQUAL(r.last.incomplete_run, 1);
	rig_sweep_watch(&r, retry_watch, &w); /* asked for before the retry */
	CU_ASSERT(w.ticks > 50); /* the sweep outlived the retry's 0.5 s */
	CU_ASSERT_EQUAL(w.past, 0);
	rig_fini(&r);
}

static void test_silent_host_kept(void)
{
	struct rig r;
	const struct fabric *st;
	uint16_t lid2;

	rig_init(&r, q_line, NULL, "minhop");
	st = fake_fabric_state(r.ff);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(sm_subnet_state(&r.last), SM_SUBNET_COMPLETE);
	lid2 = q_lid(&r, "h2");
	fake_fabric_mute_node(r.ff, q_guid(&r, "h2"), 1);
	for (unsigned i = 1; i <= SM_DEGRADED_AFTER; i++) {
		rig_sweep(&r);
		CU_ASSERT_EQUAL(r.last.status, 0);
		CU_ASSERT_EQUAL(r.last.stale, 1);
		CU_ASSERT(r.last.unreachable >= 1);
		CU_ASSERT_EQUAL(r.last.cas, 2);
		CU_ASSERT_EQUAL(r.last.lft_blocks_sent, 0);
		CU_ASSERT_EQUAL(r.last.incomplete_run, i);
		CU_ASSERT_EQUAL(r.last.quarantined, i == SM_DEGRADED_AFTER ? 1 : 0);
		CU_ASSERT_EQUAL(sm_subnet_state(&r.last),
				i == SM_DEGRADED_AFTER ? SM_SUBNET_DEGRADED : SM_SUBNET_NO);
		CU_ASSERT(rig_walk(st, r.ff, rig_node(st, "h1"), lid2) > 0);
	}
	fake_fabric_mute_node(r.ff, q_guid(&r, "h2"), 0);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.stale, 0);
	CU_ASSERT_EQUAL(r.last.quarantined, 0);
	CU_ASSERT_EQUAL(sm_subnet_state(&r.last), SM_SUBNET_COMPLETE);
	CU_ASSERT_EQUAL(q_lid(&r, "h2"), lid2);
	rig_check_up(&r);
	/* a pulled cable: h2 is gone, not kept */
	CU_ASSERT_EQUAL(fake_fabric_cable(r.ff, q_guid(&r, "h2"), 1, 0), 0);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.stale, 0);
	CU_ASSERT_EQUAL(r.last.cas, 1);
	CU_ASSERT_EQUAL(sm_subnet_state(&r.last), SM_SUBNET_COMPLETE);
	rig_fini(&r);
}

/* A silent switch keeps what hangs below it too. */
static void test_silent_switch_kept(void)
{
	struct rig r;
	const struct fabric *st;

	rig_init(&r, q_line, NULL, "minhop");
	st = fake_fabric_state(r.ff);
	rig_sweep(&r);
	fake_fabric_mute_node(r.ff, q_guid(&r, "s2"), 1);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(r.last.stale, 2); /* s2, and h2 behind it */
	CU_ASSERT_EQUAL(r.last.switches, 2);
	CU_ASSERT_EQUAL(r.last.cas, 2);
	CU_ASSERT_EQUAL(r.last.lft_blocks_sent, 0);
	CU_ASSERT(rig_walk(st, r.ff, rig_node(st, "h1"), q_lid(&r, "h2")) > 0);
	fake_fabric_mute_node(r.ff, q_guid(&r, "s2"), 0);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.stale, 0);
	CU_ASSERT_EQUAL(sm_subnet_state(&r.last), SM_SUBNET_COMPLETE);
	rig_check_up(&r);
	rig_fini(&r);
}

/* Every PortInfo through one cable end is lost: the SMPs are asked again
 * over s2's other cable and the sweep is complete.  Which of the two cables a sweep finds s2 by
 * first is up to the order of answers, so both are spoiled in turn: in at least one run the first
 * route must fail and another one answer. */
static void test_alt_route(void)
{
	static const uint16_t attrs[] = {SMP_ATTR_PORT_INFO, 0};
	size_t alt_ok = 0;

	for (unsigned a = 0; a < 2; a++) {
		for (uint8_t port = 2; port <= 3; port++) {
			struct rig r;

			rig_init(&r, q_line, NULL, "minhop");
			rig_sweep(&r);
			fake_fabric_lose_via(r.ff, q_guid(&r, "s2"), port, attrs[a]);
			rig_sweep(&r);
			CU_ASSERT_EQUAL(r.last.status, 0);
			CU_ASSERT_EQUAL(r.last.set_errors, 0);
			CU_ASSERT_EQUAL(r.last.stale, 0);
			CU_ASSERT_EQUAL(r.last.cas, 2);
			/* everything lost: the probes across that cable have no
			 * other route, so the sweep is incomplete (and s2 is
			 * found over the other cable, never by the bad one) */
			CU_ASSERT_EQUAL(r.last.unreachable > 0, attrs[a] == 0);
			CU_ASSERT_EQUAL(sm_subnet_state(&r.last),
					attrs[a] ? SM_SUBNET_COMPLETE : SM_SUBNET_NO);
			CU_ASSERT(r.last.alt_ok <= r.last.alt_tries);
			alt_ok += r.last.alt_ok;
			fake_fabric_lose_via(r.ff, 0, 0, 0);
			rig_fini(&r);
		}
	}
	CU_ASSERT(alt_ok > 0);
}

/* Outside heavy sweeps an SMP gets the configured attempts on its one
 * route: a light sweep's SwitchInfo to a silent switch that has another
 * route is tried 1 + retries times (the rig's 4), no more. */
static void test_light_no_alt_route(void)
{
	struct rig r;

	rig_init(&r, q_line, NULL, "minhop");
	rig_sweep(&r);
	rig_sweep(&r); /* s2's other cable is known as a route now */
	fake_fabric_mute_node(r.ff, q_guid(&r, "s2"), 1);
	CU_ASSERT_EQUAL(sm_light_sweep(r.sm), 0);
	rig_run(&r); /* the light sweep, then the heavy one it asks for */
	/* s1's answer, and s2's 5 attempts over its first route only */
	CU_ASSERT_EQUAL(sm_light_stats(r.sm)->last_mads, 1 + 5);
	CU_ASSERT_EQUAL(sm_light_stats(r.sm)->escalations, 1);
	rig_fini(&r);
}

struct q_seen {
	unsigned n[4];
	char last[4][160];
};

static void q_change(void *arg, enum topo_change what, const struct fabric_node *a, unsigned pa,
		     const struct fabric_node *b, unsigned pb)
{
	struct q_seen *sn = arg;

	sn->n[what]++;
	if (b)
		snprintf(sn->last[what], sizeof(sn->last[what]), "%s/%u-%s/%u", a->desc, pa,
			 b->desc, pb);
	else
		snprintf(sn->last[what], sizeof(sn->last[what]), "%s", a->desc);
}

/* The changes a sweep reports: h2 gone (with its cable), one of the two
 * s1-s2 cables down, h3 new on s1 port 4 (with its cable). */
static void test_topo_changes(void)
{
	static const char after[] =
	    "Hca 1 \"h1\"\n[1] \"s1\"[1]\n\n"
	    "caguid=0x00000000000abc00\n"
	    "Hca 1 \"h3\"\n[1] \"s1\"[4]\n\n"
	    "Switch 4 \"s1\"\n[1] \"h1\"[1]\n[2] \"s2\"[2]\n[4] \"h3\"[1]\n\n"
	    "Switch 4 \"s2\"\n[2] \"s1\"[2]\n";
	struct fabric was, now;
	struct topo_diff_counts c;
	struct q_seen sn = {0};
	char err[256];

	fabric_init(&was);
	fabric_init(&now);
	CU_ASSERT_EQUAL_FATAL(topo_parse(q_line, strlen(q_line), "was", &was, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(topo_parse(after, strlen(after), "now", &now, err, sizeof(err)), 0);
	topo_diff(&was, &now, q_change, &sn, &c);
	CU_ASSERT_EQUAL(c.nodes_new, 1);
	CU_ASSERT_EQUAL(c.nodes_gone, 1);
	CU_ASSERT_EQUAL(c.links_up, 1);
	CU_ASSERT_EQUAL(c.links_down, 2);
	CU_ASSERT_STRING_EQUAL(sn.last[TOPO_NODE_NEW], "h3");
	CU_ASSERT_STRING_EQUAL(sn.last[TOPO_NODE_GONE], "h2");
	CU_ASSERT_EQUAL(sn.n[TOPO_LINK_DOWN], 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(sn.last[TOPO_LINK_UP], "h3/1"));
	topo_diff(&was, &was, NULL, NULL, &c);
	CU_ASSERT_EQUAL(c.nodes_new + c.nodes_gone + c.links_up + c.links_down, 0);
	fabric_fini(&was);
	fabric_fini(&now);
}

void test_quarantine_register(void)
{
	CU_pSuite s = CU_add_suite("quarantine", NULL, NULL);

	CU_add_test(s, "a retry due during a sweep is no deadline until it ends",
		    test_retry_not_due_while_running);
	CU_add_test(s, "misses in a row, reported once, answered again", test_quar_runs);
	CU_add_test(s, "subnet complete, degraded or not up", test_subnet_state);
	CU_add_test(s, "a silent host is kept as last seen, then quarantined",
		    test_silent_host_kept);
	CU_add_test(s, "a silent switch keeps what hangs below it", test_silent_switch_kept);
	CU_add_test(s, "another directed route when the first loses everything", test_alt_route);
	CU_add_test(s, "what a sweep changed: nodes and cables", test_topo_changes);
	CU_add_test(s, "a light sweep: one route, the configured attempts", test_light_no_alt_route);
}
