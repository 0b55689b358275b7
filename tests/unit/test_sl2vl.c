/*
 * test_sl2vl.c - the SLtoVL push (sm/core/sl2vl_push.c) against the fake
 * fabric: nothing at all while the routes use one VL; with two (the
 * --test-vl-switch test aid gives one switch's LIDs SL 1) every linked CA
 * port and switch port pair is read, then set to SL s -> VL s, once; a
 * re-sweep sends nothing, a restart reads and writes nothing, a rebooted
 * switch is read again.
 */
#include <CUnit/CUnit.h>
#include <string.h>

#include "sm/core/sl2vl_push.h"
#include "sm/core/sm_priv.h"
#include "tests/unit/sm_rig.h"
#include "tests/unit/unit.h"

/* sw1: h1, h2 and sw2; sw2: h3 and sw1, port 2 unplugged. */
static const char test_sl2vl_topo[] = "Switch 4 \"sw1\"\n"
				      "[1] \"h1\"[1]\n"
				      "[2] \"h2\"[1]\n"
				      "[3] \"sw2\"[3]\n"
				      "\n"
				      "Switch 4 \"sw2\"\n"
				      "[1] \"h3\"[1]\n"
				      "[3] \"sw1\"[3]\n"
				      "\n"
				      "Hca 1 \"h1\"\n"
				      "[1] \"sw1\"[1]\n"
				      "\n"
				      "Hca 1 \"h2\"\n"
				      "[1] \"sw1\"[2]\n"
				      "\n"
				      "Hca 1 \"h3\"\n"
				      "[1] \"sw2\"[1]\n";

/* Port pairs the push covers: sw1 in 0 -> 3 outs, in 1..3 -> 2 each;
 * sw2 in 0 -> 2, in 1 -> 1, in 3 -> 1; three CA ports. */
#define TEST_SL2VL_PAIRS 16

static uint64_t test_sl2vl_guid(const struct rig *r, const char *name)
{
	int i = rig_node(&r->topo, name);

	CU_ASSERT_FATAL(i != FABRIC_NONE);
	return r->topo.nodes[i].guid;
}

/* A fresh SM on the rig's fake; test_vl_switch names a switch (or NULL). */
static void test_sl2vl_start(struct rig *r, const char *test_vl_switch)
{
	struct sm_opts o = {.port_guid = 1, .engine = "minhop"};

	if (test_vl_switch)
		o.test_vl_switch = test_sl2vl_guid(r, test_vl_switch);
	sm_free(r->sm);
	rig_start_sm_opts(r, &o);
}

static void test_sl2vl_rig(struct rig *r, const char *test_vl_switch)
{
	rig_init(r, test_sl2vl_topo, NULL, "minhop");
	test_sl2vl_start(r, test_vl_switch);
}

/* SL 0 -> VL 0, SL 1 -> VL 1, every other SL -> VL 0. */
static void test_sl2vl_two(struct smp_sl2vl *t)
{
	memset(t, 0, sizeof(*t));
	t->vl[1] = 1;
}

/* Does every pair the push covers hold t (and does sw2's unplugged port
 * 2 keep the default table)? */
static int test_sl2vl_fake_holds(const struct rig *r, const struct smp_sl2vl *t)
{
	static const struct {
		const char *node;
		uint8_t in, out;
	} pairs[TEST_SL2VL_PAIRS] = {
	    {"sw1", 0, 1}, {"sw1", 0, 2}, {"sw1", 0, 3}, {"sw1", 1, 2},
	    {"sw1", 1, 3}, {"sw1", 2, 1}, {"sw1", 2, 3}, {"sw1", 3, 1},
	    {"sw1", 3, 2}, {"sw2", 0, 1}, {"sw2", 0, 3}, {"sw2", 1, 3},
	    {"sw2", 3, 1}, {"h1", 1, 1},  {"h2", 1, 1},	 {"h3", 1, 1},
	};
	const struct smp_sl2vl *held;
	int ok = 1;

	for (size_t i = 0; i < TEST_SL2VL_PAIRS; i++) {
		held = fake_fabric_sl2vl(r->ff, test_sl2vl_guid(r, pairs[i].node), pairs[i].in,
					 pairs[i].out);
		if (!held || memcmp(held, t, sizeof(*t)))
			ok = 0;
	}
	held = fake_fabric_sl2vl(r->ff, test_sl2vl_guid(r, "sw2"), 3, 2);
	return ok && held && held->vl[2] == 2 && held->vl[15] == 7; /* untouched */
}

static void test_sl2vl_want_tables(void)
{
	struct smp_sl2vl t;

	CU_ASSERT_EQUAL(sl2vl_want(1, 4, &t), 0);
	for (int s = 0; s < SMP_SL2VL_SLS; s++)
		CU_ASSERT_EQUAL(t.vl[s], 0);
	CU_ASSERT_EQUAL(sl2vl_want(3, 4, &t), 0); /* VL0-7 carries 3 */
	CU_ASSERT(t.vl[0] == 0 && t.vl[1] == 1 && t.vl[2] == 2 && t.vl[3] == 0 && t.vl[15] == 0);
	CU_ASSERT_EQUAL(sl2vl_want(3, 2, &t), 1); /* VL0-1: SL 2 rides VL 0 */
	CU_ASSERT(t.vl[1] == 1 && t.vl[2] == 0);
	CU_ASSERT_EQUAL(sl2vl_want(2, 1, &t), 1); /* VL0 only */
	CU_ASSERT_EQUAL(t.vl[1], 0);
	CU_ASSERT_EQUAL(sl2vl_want(16, 5, &t), 1); /* VL0-14: SL 15 rides VL 0 */
	CU_ASSERT(t.vl[14] == 14 && t.vl[15] == 0);
}

/* Today's fabrics: routes on one VL, no SLtoVL SMP at all. */
static void test_sl2vl_one_vl_silent(void)
{
	struct rig r;
	struct smp_sl2vl dflt;

	test_sl2vl_rig(&r, NULL);
	rig_sweep(&r);
	rig_check_up(&r);
	CU_ASSERT_EQUAL(r.last.vls, 1);
	CU_ASSERT_EQUAL(r.last.sl2vl_reads, 0);
	CU_ASSERT_EQUAL(r.last.sl2vl_sets, 0);
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->sl2vl_sets, 0);
	for (int s = 0; s < SMP_SL2VL_SLS; s++)
		dflt.vl[s] = (uint8_t)(s == 15 ? 7 : s);
	CU_ASSERT_EQUAL(
	    memcmp(fake_fabric_sl2vl(r.ff, test_sl2vl_guid(&r, "sw1"), 1, 3), &dflt, sizeof(dflt)),
	    0);
	rig_fini(&r);
}

/* Two VLs: read and write every pair once; a re-sweep sends nothing; a
 * restart reads every pair and writes none; an SM back on one VL sends
 * nothing and leaves the tables. */
static void test_sl2vl_push_once(void)
{
	struct rig r;
	struct smp_sl2vl two;
	const struct lft_set *l;
	const struct fabric *f;

	test_sl2vl_two(&two);
	test_sl2vl_rig(&r, "sw2");
	rig_sweep(&r);
	rig_check_up(&r);
	CU_ASSERT_EQUAL(r.last.vls, 2);
	CU_ASSERT_EQUAL(r.last.sl2vl_reads, TEST_SL2VL_PAIRS);
	CU_ASSERT_EQUAL(r.last.sl2vl_sets, TEST_SL2VL_PAIRS); /* ibsim's default differs */
	CU_ASSERT_EQUAL(r.last.set_errors, 0);
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->sl2vl_sets, TEST_SL2VL_PAIRS);
	CU_ASSERT(test_sl2vl_fake_holds(&r, &two));
	/* the SLs the SA answers from: sw2 and h3 on SL 1 */
	l = sm_lfts(r.sm);
	f = sm_fabric(r.sm);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	CU_ASSERT_EQUAL(lft_set_sl(l, f->nodes[rig_node(f, "sw2")].ports[0].lid), 1);
	CU_ASSERT_EQUAL(lft_set_sl(l, f->nodes[rig_node(f, "h3")].ports[1].lid), 1);
	CU_ASSERT_EQUAL(lft_set_sl(l, f->nodes[rig_node(f, "h1")].ports[1].lid), 0);
	CU_ASSERT_EQUAL(lft_set_sl(l, f->nodes[rig_node(f, "sw1")].ports[0].lid), 0);

	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.sl2vl_reads, 0);
	CU_ASSERT_EQUAL(r.last.sl2vl_sets, 0);
	CU_ASSERT_EQUAL(r.last.lft_blocks_sent, 0);

	test_sl2vl_start(&r, "sw2"); /* a restart: an empty cache */
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.sl2vl_reads, TEST_SL2VL_PAIRS);
	CU_ASSERT_EQUAL(r.last.sl2vl_sets, 0);
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->sl2vl_sets, TEST_SL2VL_PAIRS);

	test_sl2vl_start(&r, NULL); /* one VL again */
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.vls, 1);
	CU_ASSERT_EQUAL(r.last.sl2vl_reads + r.last.sl2vl_sets, 0);
	CU_ASSERT(test_sl2vl_fake_holds(&r, &two));
	rig_fini(&r);
}

/* Ports that already hold the tables are read, never written. */
static void test_sl2vl_already_held(void)
{
	struct rig r;
	struct smp_sl2vl two;
	static const char *const nodes[] = {"sw1", "sw2", "h1", "h2", "h3"};

	test_sl2vl_two(&two);
	test_sl2vl_rig(&r, "sw2");
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
		for (uint8_t in = 0; in <= 4; in++)
			for (uint8_t out = 0; out <= 4; out++)
				fake_fabric_set_sl2vl(r.ff, test_sl2vl_guid(&r, nodes[i]), in, out,
						      &two);
	rig_sweep(&r);
	rig_check_up(&r);
	CU_ASSERT_EQUAL(r.last.sl2vl_reads, TEST_SL2VL_PAIRS);
	CU_ASSERT_EQUAL(r.last.sl2vl_sets, 0);
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->sl2vl_sets, 0);
	rig_fini(&r);
}

/* A switch that lost its LFT (rebooted) lost its SLtoVL tables too: the
 * next heavy sweep reads its pairs and writes the one that differs. */
static void test_sl2vl_rebooted_switch(void)
{
	struct rig r;
	struct smp_sl2vl two, dflt;
	uint64_t sw1;

	test_sl2vl_two(&two);
	test_sl2vl_rig(&r, "sw2");
	rig_sweep(&r);
	sw1 = test_sl2vl_guid(&r, "sw1");
	for (int s = 0; s < SMP_SL2VL_SLS; s++)
		dflt.vl[s] = (uint8_t)(s == 15 ? 7 : s);
	CU_ASSERT_EQUAL(fake_fabric_set_sl2vl(r.ff, sw1, 1, 3, &dflt), 0);
	CU_ASSERT_EQUAL(fake_fabric_reboot_switch(r.ff, sw1), 0);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.sl2vl_reads, 9); /* sw1's pairs */
	CU_ASSERT_EQUAL(r.last.sl2vl_sets, 1);
	CU_ASSERT(test_sl2vl_fake_holds(&r, &two));
	rig_fini(&r);
}

/* SLs that move while the LFTs and SLtoVL tables stay (another switch's
 * LIDs on SL 1): the SA's route generation moves, so its path cache is
 * emptied, and the SLs it answers from are the new ones. */
static void test_sl2vl_sls_move(void)
{
	struct rig r;
	const struct fabric *f;
	uint64_t gen;

	test_sl2vl_rig(&r, "sw2");
	rig_sweep(&r);
	rig_sweep(&r);
	gen = r.sm->route_gen;
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.sm->route_gen, gen); /* nothing changed */
	r.sm->opts.test_vl_switch = test_sl2vl_guid(&r, "sw1");
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.lft_blocks_sent, 0);
	CU_ASSERT_EQUAL(r.last.sl2vl_sets, 0); /* the same 2-VL tables */
	CU_ASSERT_EQUAL(r.sm->route_gen, gen + 1);
	f = sm_fabric(r.sm);
	CU_ASSERT_EQUAL(lft_set_sl(sm_lfts(r.sm), f->nodes[rig_node(f, "h1")].ports[1].lid), 1);
	CU_ASSERT_EQUAL(lft_set_sl(sm_lfts(r.sm), f->nodes[rig_node(f, "h3")].ports[1].lid), 0);
	CU_ASSERT_EQUAL(r.sm->sa->v.route_gen, gen + 1);
	rig_fini(&r);
}

void test_sl2vl_register(void)
{
	CU_pSuite s = CU_add_suite("sl2vl", NULL, NULL);

	if (!s)
		return;
	CU_add_test(s, "wanted tables: SL s -> VL s, the rest VL 0", test_sl2vl_want_tables);
	CU_add_test(s, "one VL: no SLtoVL SMP", test_sl2vl_one_vl_silent);
	CU_add_test(s, "two VLs: written once, restart writes none", test_sl2vl_push_once);
	CU_add_test(s, "tables already held: read, not written", test_sl2vl_already_held);
	CU_add_test(s, "a rebooted switch is read again", test_sl2vl_rebooted_switch);
	CU_add_test(s, "SLs that move bump the SA's route generation", test_sl2vl_sls_move);
}
