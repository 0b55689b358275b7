/*
 * test_minhop.c - unit tests for the minhop engine and the engine table:
 * small hand-checkable fabrics built in memory (and the bundled fat tree),
 * every LID followed through the LFTs hop by hop.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/route.h"
#include "routing/topo_file.h"
#include "tests/unit/route_test.h"
#include "tests/unit/unit.h"

#define NO_PATH 1000
/* LIDs as minhop's tests give them: switch port 0 GUIDs set, CA ports present iff cabled. */
#define MINHOP_LIDS (ROUTE_TEST_SWITCH_GUID | ROUTE_TEST_MARK_PRESENT)

/* ---- Running the engine ------------------------------------------------ */

/* Route f with minhop into out; says why on stderr when it fails. */
static int route(const struct fabric *f, uint16_t max_lid, struct lft_set *out)
{
	return route_test_run(&route_engine_minhop, f, max_lid, NULL, 0, out, NULL);
}

/* ---- Checking routes --------------------------------------------------- */

/* Every switch reaches every LID it can reach in the fewest switch hops,
 * and drops the ones it cannot.  Returns the number of bad routes. */
static int check_all_routes(const struct fabric *f, const struct lft_set *s)
{
	int *d = route_test_switch_distances(f, NO_PATH), bad = 0;
	size_t n = f->n_nodes;

	for (size_t src = 0; src < n; src++) {
		if (!fabric_is_switch(&f->nodes[src]))
			continue;
		for (size_t dst = 0; dst < n; dst++) {
			const struct fabric_node *dn = &f->nodes[dst];

			for (unsigned p = fabric_is_switch(dn) ? 0 : 1; p <= dn->num_ports; p++) {
				int at = route_test_attach_switch(f, (int)dst, p), want, got;

				if (!dn->ports[p].lid || (fabric_is_switch(dn) && p > 0))
					continue;
				want = at == FABRIC_NONE ? NO_PATH : d[src * n + (size_t)at];
				got = route_test_follow(f, s, (int)src, dn->ports[p].lid,
							(int)f->n_nodes + 1, NULL, NULL);
				if (want == NO_PATH ? got != -1 : got != want) {
					fprintf(stderr, "\n  switch %zu -> LID %u: %d hops, want %d",
						src, dn->ports[p].lid, got, want);
					bad++;
				}
			}
		}
	}
	free(d);
	return bad;
}

/* How many LIDs switch sw sends out of ports first..last. */
static unsigned lids_on_ports(const struct lft_set *s, int sw, uint8_t first, uint8_t last)
{
	unsigned n = 0;

	for (unsigned p = first; p <= last; p++)
		n += route_test_lids_on_port(s, sw, (uint8_t)p);
	return n;
}

/* ---- Small fabrics ----------------------------------------------------- */

static void test_minhop_single_switch(void)
{
	struct fabric f;
	struct lft_set s;
	int sw;

	fabric_init(&f);
	sw = route_test_add_sw(&f, 8);
	route_test_add_host(&f, sw, 1);
	route_test_add_host(&f, sw, 2);
	route_test_add_host(&f, sw, 5);
	CU_ASSERT_EQUAL(route_test_assign_lids(&f, MINHOP_LIDS), 4);
	CU_ASSERT_EQUAL_FATAL(route(&f, 10, &s), 0);
	CU_ASSERT_EQUAL(s.n, 1);
	CU_ASSERT_EQUAL(s.tables[0].top, 10);
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw, 0), LFT_DROP);
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw, 1), 0); /* its own LID */
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw, 2), 1);
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw, 3), 2);
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw, 4), 5);
	for (uint16_t lid = 5; lid <= 10; lid++)
		CU_ASSERT_EQUAL(route_test_out_port(&s, sw, lid), LFT_DROP);
	CU_ASSERT_EQUAL(check_all_routes(&f, &s), 0);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* sw1 ports 7, 8 <-> sw2 ports 7, 8; hosts on ports 1, 2 of each. */
static void test_minhop_parallel_links(void)
{
	struct fabric f;
	struct lft_set s;
	int sw1, sw2;

	fabric_init(&f);
	sw1 = route_test_add_sw(&f, 8);
	sw2 = route_test_add_sw(&f, 8);
	fabric_link(&f, sw1, 7, sw2, 7);
	fabric_link(&f, sw1, 8, sw2, 8);
	route_test_add_host(&f, sw1, 1);
	route_test_add_host(&f, sw1, 2);
	route_test_add_host(&f, sw2, 1);
	route_test_add_host(&f, sw2, 2);
	route_test_assign_lids(&f, MINHOP_LIDS); /* sw1 1, sw2 2, hosts 3..6 */
	CU_ASSERT_EQUAL_FATAL(route(&f, 6, &s), 0);
	CU_ASSERT_EQUAL(check_all_routes(&f, &s), 0);
	/* sw2's LID and its two hosts' LIDs leave sw1 over both cables */
	CU_ASSERT_EQUAL(lids_on_ports(&s, sw1, 7, 8), 3);
	CU_ASSERT_EQUAL(route_test_spread(&s, sw1, 7, 8), 1);
	CU_ASSERT_EQUAL(route_test_spread(&s, sw2, 7, 8), 1);
	/* ties go to the lower port first, then alternate; a switch's LID
	 * takes the least-loaded port but is not counted */
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw1, 2), 7);
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw1, 5), 7);
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw1, 6), 8);
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw2, 1), 7);
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw2, 3), 7);
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw2, 4), 8);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* sw[i] port 7 -> sw[i+1] port 8, around a loop of four, two hosts each. */
static void test_minhop_ring(void)
{
	struct fabric f;
	struct lft_set s;
	int sw[4];

	fabric_init(&f);
	for (int i = 0; i < 4; i++)
		sw[i] = route_test_add_sw(&f, 8);
	for (int i = 0; i < 4; i++) {
		fabric_link(&f, sw[i], 7, sw[(i + 1) % 4], 8);
		route_test_add_host(&f, sw[i], 1);
		route_test_add_host(&f, sw[i], 2);
	}
	route_test_assign_lids(&f, MINHOP_LIDS);
	CU_ASSERT_EQUAL_FATAL(route(&f, f.nodes[sw[3]].ports[0].lid + 8, &s), 0);
	CU_ASSERT_EQUAL(check_all_routes(&f, &s), 0);
	for (int i = 0; i < 4; i++) {
		/* 3 LIDs on each neighbour go direct; the 3 across the ring
		 * are split between both directions */
		CU_ASSERT_EQUAL(lids_on_ports(&s, sw[i], 7, 8), 9);
		CU_ASSERT_EQUAL(route_test_spread(&s, sw[i], 7, 8), 1);
		CU_ASSERT_EQUAL(
		    route_test_out_port(&s, sw[i], f.nodes[sw[(i + 1) % 4]].ports[0].lid), 7);
		CU_ASSERT_EQUAL(
		    route_test_out_port(&s, sw[i], f.nodes[sw[(i + 3) % 4]].ports[0].lid), 8);
	}
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* The same ring with a chord sw0 port 5 <-> sw2 port 5: triangles, so a
 * neighbour at the same distance must never be taken. */
static void test_minhop_ring_with_chord(void)
{
	struct fabric f;
	struct lft_set s;
	int sw[4];

	fabric_init(&f);
	for (int i = 0; i < 4; i++)
		sw[i] = route_test_add_sw(&f, 8);
	for (int i = 0; i < 4; i++) {
		fabric_link(&f, sw[i], 7, sw[(i + 1) % 4], 8);
		route_test_add_host(&f, sw[i], 1);
		route_test_add_host(&f, sw[i], 2);
	}
	fabric_link(&f, sw[0], 5, sw[2], 5);
	CU_ASSERT_EQUAL_FATAL(route(&f, route_test_assign_lids(&f, MINHOP_LIDS), &s), 0);
	CU_ASSERT_EQUAL(check_all_routes(&f, &s), 0);
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw[0], f.nodes[sw[2]].ports[0].lid), 5);
	/* sw1 and sw3 are two hops apart, by way of sw0 or sw2 */
	CU_ASSERT_EQUAL(lids_on_ports(&s, sw[1], 7, 8), 9);
	CU_ASSERT_EQUAL(route_test_spread(&s, sw[1], 7, 8), 1);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* 4 leaves with 2 hosts each; 2 spines; leaf port 3 -> spine 1, port 4 ->
 * spine 2; spine port l -> leaf l. */
static void test_minhop_two_level_tree(void)
{
	struct fabric f;
	struct lft_set s;
	int leaf[4], spine[2];

	fabric_init(&f);
	for (int i = 0; i < 2; i++)
		spine[i] = route_test_add_sw(&f, 8);
	for (int l = 0; l < 4; l++) {
		leaf[l] = route_test_add_sw(&f, 8);
		route_test_add_host(&f, leaf[l], 1);
		route_test_add_host(&f, leaf[l], 2);
		fabric_link(&f, leaf[l], 3, spine[0], (uint8_t)(l + 1));
		fabric_link(&f, leaf[l], 4, spine[1], (uint8_t)(l + 1));
	}
	CU_ASSERT_EQUAL_FATAL(route(&f, route_test_assign_lids(&f, MINHOP_LIDS), &s), 0);
	CU_ASSERT_EQUAL(check_all_routes(&f, &s), 0);
	for (int l = 0; l < 4; l++) {
		/* 9 LIDs on other leaves + 2 spine LIDs over two up ports;
		 * the 6 host LIDs (7..14 but the leaf's own) split evenly */
		CU_ASSERT_EQUAL(lids_on_ports(&s, leaf[l], 3, 4), 11);
		CU_ASSERT_EQUAL(route_test_host_spread(&f, &s, leaf[l], 3, 4, 0), 0);
		CU_ASSERT_EQUAL(route_test_out_port(&s, leaf[l], f.nodes[spine[1]].ports[0].lid),
				4);
	}
	for (int i = 0; i < 2; i++) {
		/* 3 LIDs per leaf, plus the other spine's LID through one leaf */
		CU_ASSERT_EQUAL(route_test_spread(&s, spine[i], 1, 4), 1);
		CU_ASSERT_EQUAL(lids_on_ports(&s, spine[i], 1, 4), 13);
	}
	lft_set_fini(&s);
	fabric_fini(&f);
}

static void test_minhop_unreachable(void)
{
	struct fabric f;
	struct lft_set s;
	int a, b, h, lonely, x, y;

	fabric_init(&f);
	a = route_test_add_sw(&f, 4);
	b = route_test_add_sw(&f, 4); /* an island: no cable to a */
	h = route_test_add_host(&f, b, 1);
	lonely = route_test_add_ca(&f, 1); /* not cabled at all */
	x = route_test_add_ca(&f, 1);
	y = route_test_add_ca(&f, 1);
	fabric_link(&f, x, 1, y, 1); /* back to back, no switch */
	route_test_assign_lids(&f, MINHOP_LIDS);
	f.nodes[lonely].ports[1].lid = 9;
	CU_ASSERT_EQUAL_FATAL(route(&f, 12, &s), 0);
	CU_ASSERT_EQUAL(check_all_routes(&f, &s), 0);
	CU_ASSERT_EQUAL(route_test_out_port(&s, a, f.nodes[b].ports[0].lid), LFT_DROP);
	CU_ASSERT_EQUAL(route_test_out_port(&s, a, f.nodes[h].ports[1].lid), LFT_DROP);
	CU_ASSERT_EQUAL(route_test_out_port(&s, b, f.nodes[h].ports[1].lid), 1);
	CU_ASSERT_EQUAL(route_test_out_port(&s, b, 9), LFT_DROP);
	CU_ASSERT_EQUAL(route_test_out_port(&s, b, f.nodes[x].ports[1].lid), LFT_DROP);
	lft_set_fini(&s);
	fabric_fini(&f);
}

static void test_minhop_lmc(void)
{
	struct fabric f;
	struct lft_set s;
	int a, b, h;

	fabric_init(&f);
	a = route_test_add_sw(&f, 4);
	b = route_test_add_sw(&f, 4);
	fabric_link(&f, a, 3, b, 3);
	h = route_test_add_host(&f, b, 1);
	f.nodes[a].ports[0].lid = 1;
	f.nodes[b].ports[0].lid = 2;
	f.nodes[h].ports[1].lid = 4;
	f.nodes[h].ports[1].lmc = 2; /* LIDs 4..7 */
	CU_ASSERT_EQUAL_FATAL(route(&f, 8, &s), 0);
	for (uint16_t lid = 4; lid <= 7; lid++) {
		CU_ASSERT_EQUAL(route_test_out_port(&s, a, lid), 3);
		CU_ASSERT_EQUAL(route_test_out_port(&s, b, lid), 1);
	}
	CU_ASSERT_EQUAL(route_test_out_port(&s, a, 8), LFT_DROP);
	lft_set_fini(&s);
	fabric_fini(&f);
}

static void test_minhop_no_switches(void)
{
	struct fabric f;
	struct lft_set s;
	int x, y;

	fabric_init(&f);
	x = route_test_add_ca(&f, 1);
	y = route_test_add_ca(&f, 1);
	fabric_link(&f, x, 1, y, 1);
	CU_ASSERT_EQUAL(route(&f, route_test_assign_lids(&f, MINHOP_LIDS), &s), 0);
	CU_ASSERT_EQUAL(s.n, 0);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* ---- The bundled fat tree ---------------------------------------------- */

static void test_minhop_fattree64(void)
{
	struct fabric f;
	struct lft_set s, again;
	char err[256];
	uint16_t max;

	fabric_init(&f);
	CU_ASSERT_EQUAL_FATAL(topo_load("tests/fabrics/fattree64.topo", &f, err, sizeof(err)), 0);
	max = route_test_assign_lids(&f, MINHOP_LIDS);
	CU_ASSERT_EQUAL(max, 76);
	CU_ASSERT_EQUAL_FATAL(route(&f, max, &s), 0);
	CU_ASSERT_EQUAL(check_all_routes(&f, &s), 0);
	for (size_t i = 0; i < f.n_nodes; i++) {
		/* 7 leaves x 9 LIDs + 4 spine LIDs over 8 up ports */
		if (!strncmp(f.nodes[i].desc, "leaf", 4)) {
			CU_ASSERT_EQUAL(lids_on_ports(&s, (int)i, 9, 16), 67);
			/* the 56 host LIDs: 7 per up port, d-mod-k like */
			CU_ASSERT_EQUAL(route_test_host_spread(&f, &s, (int)i, 9, 16, 0), 0);
		}
		/* 8 leaves x 9 LIDs + 3 other spines' LIDs over 16 down ports */
		if (!strncmp(f.nodes[i].desc, "spine", 5)) {
			CU_ASSERT_EQUAL(lids_on_ports(&s, (int)i, 1, 16), 75);
			CU_ASSERT_EQUAL(route_test_host_spread(&f, &s, (int)i, 1, 16, 0), 0);
		}
	}
	/* same input, same tables */
	CU_ASSERT_EQUAL_FATAL(route(&f, max, &again), 0);
	for (size_t t = 0; t < s.n; t++)
		CU_ASSERT_EQUAL(memcmp(s.tables[t].port, again.tables[t].port, (size_t)max + 1), 0);
	lft_set_fini(&again);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* ---- Errors and the engine table --------------------------------------- */

static void test_minhop_errors(void)
{
	struct route_opts opts = { .max_lid = 10 };
	char err[256];
	struct fabric f;
	struct lft_set s;
	int sw, h1, h2;

	fabric_init(&f);
	sw = route_test_add_sw(&f, 4);
	h1 = route_test_add_host(&f, sw, 1);
	h2 = route_test_add_host(&f, sw, 2);
	route_test_assign_lids(&f, MINHOP_LIDS);
	lft_set_init(&s);
	f.nodes[h2].ports[1].lid = 20;
	CU_ASSERT_EQUAL(route_engine_minhop.compute(&f, &opts, &s, NULL, err, sizeof(err)),
			-ERANGE);
	CU_ASSERT_STRING_EQUAL(err, "port 0x0001000000000031/1: LID 20 above max_lid 10");
	CU_ASSERT_EQUAL(s.n, 0);
	f.nodes[h2].ports[1].lid = f.nodes[h1].ports[1].lid;
	CU_ASSERT_EQUAL(route_engine_minhop.compute(&f, &opts, &s, NULL, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "port 0x0001000000000031/1: LID 2 also used by port "
				    "0x0001000000000021/1");
	CU_ASSERT_EQUAL(s.n, 0);
	opts.max_lid = LID_UNICAST_MAX + 1;
	CU_ASSERT_EQUAL(route_engine_minhop.compute(&f, &opts, &s, NULL, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "max_lid 49152 above the unicast range (0xbfff)");
	lft_set_fini(&s);
	fabric_fini(&f);
}

static void test_route_engine_table(void)
{
	const struct route_engine *const *all = route_engines();
	size_t n = 0;

	CU_ASSERT_PTR_EQUAL(route_engine_find("minhop"), &route_engine_minhop);
	CU_ASSERT_PTR_EQUAL(route_engine_find("updn"), &route_engine_updn);
	CU_ASSERT_PTR_EQUAL(route_engine_find("ftree"), &route_engine_ftree);
	CU_ASSERT_PTR_EQUAL(route_engine_find("vlsp"), &route_engine_vlsp);
	CU_ASSERT_PTR_NULL(route_engine_find("ftre"));
	CU_ASSERT_PTR_NULL(route_engine_find(""));
	CU_ASSERT_PTR_NULL(route_engine_find(NULL));
	for (; all[n]; n++) {
		CU_ASSERT_PTR_NOT_NULL(all[n]->name);
		CU_ASSERT_PTR_NOT_NULL(all[n]->summary);
		CU_ASSERT_PTR_NOT_NULL(all[n]->compute);
		CU_ASSERT_PTR_EQUAL(route_engine_find(all[n]->name), all[n]);
	}
	CU_ASSERT_EQUAL(n, 4);
	CU_ASSERT_STRING_EQUAL(route_engine_minhop.name, "minhop");
}

void test_minhop_register(void)
{
	CU_pSuite s = CU_add_suite("minhop", NULL, NULL);

	CU_add_test(s, "single switch", test_minhop_single_switch);
	CU_add_test(s, "two switches, two parallel links: balanced", test_minhop_parallel_links);
	CU_add_test(s, "ring of four: shortest way round, split ties", test_minhop_ring);
	CU_add_test(s, "ring with a chord: no detours", test_minhop_ring_with_chord);
	CU_add_test(s, "two-level tree: shortest and balanced", test_minhop_two_level_tree);
	CU_add_test(s, "unreachable LIDs are dropped", test_minhop_unreachable);
	CU_add_test(s, "LMC: every LID of a port is routed", test_minhop_lmc);
	CU_add_test(s, "no switches: nothing to route", test_minhop_no_switches);
	CU_add_test(s, "fattree64.topo: shortest, balanced, deterministic", test_minhop_fattree64);
	CU_add_test(s, "errors: LID range, duplicate LID, max_lid", test_minhop_errors);
	CU_add_test(s, "engine table", test_route_engine_table);
}
