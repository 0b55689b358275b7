/*
 * test_updn.c - unit tests for the updn engine: small hand-checkable
 * fabrics (topology text or built in memory), every (source, LID) pair
 * followed through the LFTs, checked for legality against ranks recomputed
 * from the roots, and for credit loops, by a checker of our own
 * (updn_test.c).
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/route.h"
#include "routing/topo_file.h"
#include "tests/unit/route_test.h"
#include "tests/unit/unit.h"
#include "tests/unit/updn_test.h"

#define SW_GUID(n) (0x0002000000000000ULL + (n)) /* topo_parse's n-th switch, from 1 */

/* ---- Building fabrics -------------------------------------------------- */

/* Parse a topology text and number its LIDs; returns the highest LID. */
static uint16_t parse(const char *text, struct fabric *f)
{
	route_test_parse(text, f);
	return route_test_assign_lids(f, ROUTE_TEST_SWITCH_GUID);
}

/* The first LID of the node named desc (port 0 of a switch, port 1 of a CA). */
static uint16_t lid_of(const struct fabric *f, const char *desc)
{
	int n = route_test_node(f, desc);

	return f->nodes[n].ports[fabric_is_switch(&f->nodes[n]) ? 0 : 1].lid;
}

/* ---- Running the engines ----------------------------------------------- */

/* Route f with updn, roots found alone. */
static int route(const struct fabric *f, uint16_t max_lid, struct lft_set *out,
		 struct route_note *note)
{
	return route_test_run(&route_engine_updn, f, max_lid, NULL, 0, out, note);
}

/* The port of switch a cabled to b (the lowest, if several). */
static uint8_t port_to(const struct fabric *f, int a, int b)
{
	for (unsigned p = 1; p <= f->nodes[a].num_ports; p++)
		if (f->nodes[a].ports[p].remote_node == b)
			return (uint8_t)p;
	CU_FAIL("not cabled");
	return 0;
}

/* ---- Topologies --------------------------------------------------------- */

static const char single_switch[] = "Switch 8 \"sw\"\n"
				    "[1] \"h1\"[1]\n[2] \"h2\"[1]\n[5] \"h3\"[1]\n"
				    "Hca 1 \"h1\"\nHca 1 \"h2\"\nHca 1 \"h3\"\n";

/* sw1 ports 7, 8 <-> sw2 ports 7, 8; hosts on ports 1, 2 of each. */
static const char two_switches[] = "Switch 8 \"sw1\"\n[7] \"sw2\"[7]\n[8] \"sw2\"[8]\n"
				   "[1] \"h1\"[1]\n[2] \"h2\"[1]\n"
				   "Switch 8 \"sw2\"\n[1] \"h3\"[1]\n[2] \"h4\"[1]\n"
				   "Hca 1 \"h1\"\nHca 1 \"h2\"\nHca 1 \"h3\"\nHca 1 \"h4\"\n";

/* swN port 7 -> next switch port 8, around a loop of four, two hosts each. */
static const char ring4[] = "Switch 8 \"sw1\"\n[7] \"sw2\"[8]\n[1] \"h1\"[1]\n[2] \"h2\"[1]\n"
			    "Switch 8 \"sw2\"\n[7] \"sw3\"[8]\n[1] \"h3\"[1]\n[2] \"h4\"[1]\n"
			    "Switch 8 \"sw3\"\n[7] \"sw4\"[8]\n[1] \"h5\"[1]\n[2] \"h6\"[1]\n"
			    "Switch 8 \"sw4\"\n[7] \"sw1\"[8]\n[1] \"h7\"[1]\n[2] \"h8\"[1]\n"
			    "Hca 1 \"h1\"\nHca 1 \"h2\"\nHca 1 \"h3\"\nHca 1 \"h4\"\n"
			    "Hca 1 \"h5\"\nHca 1 \"h6\"\nHca 1 \"h7\"\nHca 1 \"h8\"\n";

/* Two-level fat tree: leaves leaf1..leaf4 with two hosts each (ports 1,
 * 2), spines sp1..sp3; leaf port 2 + k -> spine k, spine port l -> leaf l. */
static const char fat_tree[] =
	"Switch 8 \"leaf1\"\n[1] \"h1\"[1]\n[2] \"h2\"[1]\n"
	"[3] \"sp1\"[1]\n[4] \"sp2\"[1]\n[5] \"sp3\"[1]\n"
	"Switch 8 \"leaf2\"\n[1] \"h3\"[1]\n[2] \"h4\"[1]\n"
	"[3] \"sp1\"[2]\n[4] \"sp2\"[2]\n[5] \"sp3\"[2]\n"
	"Switch 8 \"leaf3\"\n[1] \"h5\"[1]\n[2] \"h6\"[1]\n"
	"[3] \"sp1\"[3]\n[4] \"sp2\"[3]\n[5] \"sp3\"[3]\n"
	"Switch 8 \"leaf4\"\n[1] \"h7\"[1]\n[2] \"h8\"[1]\n"
	"[3] \"sp1\"[4]\n[4] \"sp2\"[4]\n[5] \"sp3\"[4]\n"
	"Switch 8 \"sp1\"\nSwitch 8 \"sp2\"\nSwitch 8 \"sp3\"\n"
	"Hca 1 \"h1\"\nHca 1 \"h2\"\nHca 1 \"h3\"\nHca 1 \"h4\"\n"
	"Hca 1 \"h5\"\nHca 1 \"h6\"\nHca 1 \"h7\"\nHca 1 \"h8\"\n";

/* s spines, l leaves (fixed seed): each leaf has two hosts (ports 1, 2)
 * and cables to k different random spines (ports 3..). */
static void build_sparse_clos(struct fabric *f, int s, int l, int k, uint32_t seed)
{
	unsigned next_port[16];

	fabric_init(f);
	for (int i = 0; i < s; i++) {
		route_test_add_sw(f, 16);
		next_port[i] = 1;
	}
	for (int i = 0; i < l; i++) {
		int leaf = route_test_add_sw(f, 16);
		uint32_t used = 0;

		route_test_add_host(f, leaf, 1);
		route_test_add_host(f, leaf, 2);
		for (int j = 0; j < k; j++) {
			int sp;

			do
				sp = (int)(route_test_lcg(&seed) % (uint32_t)s);
			while (used & (1u << sp));
			used |= 1u << sp;
			fabric_link(f, leaf, (uint8_t)(3 + j), sp, (uint8_t)next_port[sp]++);
		}
	}
}

/* ---- The tests ---------------------------------------------------------- */

static void test_updn_single_switch(void)
{
	struct fabric f;
	struct lft_set s;
	struct route_note note;
	uint16_t max = parse(single_switch, &f);
	int sw = route_test_node(&f, "sw");

	updn_test_check(&f, max, NULL, 0, &s, &note);
	CU_ASSERT_STRING_EQUAL(note.text, "roots detected as top rank (1): 0x0002000000000001");
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw, lid_of(&f, "sw")), 0);
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw, lid_of(&f, "h1")), 1);
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw, lid_of(&f, "h3")), 5);
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw, 0), LFT_DROP);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* Cross-linked switches with hosts on both: no tree, the center is the
 * lower GUID; the two parallel cables share the load both ways. */
static void test_updn_parallel_links(void)
{
	struct fabric f;
	struct lft_set s;
	struct route_note note;
	uint16_t max = parse(two_switches, &f);
	int sw1 = route_test_node(&f, "sw1"), sw2 = route_test_node(&f, "sw2");

	updn_test_check(&f, max, NULL, 0, &s, &note);
	CU_ASSERT_STRING_EQUAL(note.text, "roots detected as center (1): 0x0002000000000001");
	CU_ASSERT_EQUAL(route_test_lids_on_port(&s, sw1, 7) + route_test_lids_on_port(&s, sw1, 8),
			3);
	CU_ASSERT_EQUAL(route_test_spread(&s, sw1, 7, 8), 1);
	CU_ASSERT_EQUAL(route_test_lids_on_port(&s, sw2, 7) + route_test_lids_on_port(&s, sw2, 8),
			3);
	CU_ASSERT_EQUAL(route_test_spread(&s, sw2, 7, 8), 1);
	/* sw2's hosts leave sw1 on 7, 8 (fewest so far, low port first);
	 * sw2's own LID takes the least-loaded port, uncounted */
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw1, lid_of(&f, "sw2")), 7);
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw1, lid_of(&f, "h3")), 7);
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw1, lid_of(&f, "h4")), 8);
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw2, lid_of(&f, "h1")), 7);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* Ring of four: the center is sw1; sw3 (rank 2) splits sw1's LIDs over
 * both ways; sw2 reaches sw4 through the root, never over sw3 (down, up). */
static void test_updn_ring(void)
{
	struct fabric f;
	struct lft_set s, mh;
	struct route_note note;
	uint16_t max = parse(ring4, &f);
	int sw[4];

	for (int i = 0; i < 4; i++) {
		char name[16];

		snprintf(name, sizeof(name), "sw%d", i + 1);
		sw[i] = route_test_node(&f, name);
	}
	updn_test_check(&f, max, NULL, 0, &s, &note);
	CU_ASSERT_STRING_EQUAL(note.text, "roots detected as center (1): 0x0002000000000001");
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw[1], lid_of(&f, "sw4")),
			port_to(&f, sw[1], sw[0]));
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw[1], lid_of(&f, "h7")),
			port_to(&f, sw[1], sw[0]));
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw[3], lid_of(&f, "h3")),
			port_to(&f, sw[3], sw[0]));
	CU_ASSERT_EQUAL(
	    route_test_lids_on_port(&s, sw[2], 7) + route_test_lids_on_port(&s, sw[2], 8), 9);
	CU_ASSERT_TRUE(route_test_spread(&s, sw[2], 7, 8) <= 1);
	/* the checker can fail: min-hop on the same ring has a credit loop */
	CU_ASSERT_EQUAL_FATAL(route_test_run(&route_engine_minhop, &f, max, NULL, 0, &mh, &note),
			      0);
	CU_ASSERT_TRUE(updn_test_credit_loop(&f, &mh, max));
	lft_set_fini(&mh);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* The ring with a chord sw1 port 5 <-> sw3 port 5: sw1 and sw3 tie as
 * centers (one hop from all but one), the lower GUID wins. */
static void test_updn_ring_with_chord(void)
{
	struct fabric f;
	struct lft_set s;
	struct route_note note;
	uint16_t max = parse(ring4, &f);
	int sw1 = route_test_node(&f, "sw1"), sw3 = route_test_node(&f, "sw3");

	CU_ASSERT_EQUAL(fabric_link(&f, sw1, 5, sw3, 5), 0);
	updn_test_check(&f, max, NULL, 0, &s, &note);
	CU_ASSERT_STRING_EQUAL(note.text, "roots detected as center (1): 0x0002000000000001");
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw1, lid_of(&f, "h5")), 5);
	CU_ASSERT_EQUAL(route_test_out_port(&s, sw3, lid_of(&f, "h1")), 5);
	lft_set_fini(&s);
	fabric_fini(&f);
}

static void test_updn_torus(void)
{
	struct fabric f;
	struct lft_set s, mh;
	struct route_note note;
	uint16_t max;

	route_test_torus(&f, 4, 4);
	max = route_test_assign_lids(&f, ROUTE_TEST_SWITCH_GUID);
	updn_test_check(&f, max, NULL, 0, &s, &note);
	/* every switch is a center: the lowest GUID wins */
	CU_ASSERT_STRING_EQUAL(note.text, "roots detected as center (1): 0x0002000000000001");
	CU_ASSERT_EQUAL_FATAL(route_test_run(&route_engine_minhop, &f, max, NULL, 0, &mh, &note),
			      0);
	CU_ASSERT_TRUE(updn_test_credit_loop(&f, &mh, max));
	lft_set_fini(&mh);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* Random meshes: the center as root, then three roots given at random,
 * which brings in an apex and a bridge through an irregular graph. */
static void test_updn_random_mesh(void)
{
	static const uint32_t seeds[] = { 1, 7, 42, 2024, 31337 };

	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		uint32_t seed = seeds[i];
		uint64_t roots[3];
		struct fabric f;
		struct lft_set s;
		struct route_note note;
		uint16_t max;

		route_test_mesh(&f, 24, 30, seed);
		max = route_test_assign_lids(&f, ROUTE_TEST_SWITCH_GUID);
		updn_test_check(&f, max, NULL, 0, &s, &note);
		CU_ASSERT_PTR_NOT_NULL(strstr(note.text, "roots detected as center (1)"));
		lft_set_fini(&s);
		for (int r = 0; r < 3; r++)
			roots[r] = SW_GUID(1 + route_test_lcg(&seed) % 24);
		updn_test_check(&f, max, roots, 3, &s, &note);
		CU_ASSERT_PTR_NOT_NULL(strstr(note.text, "; apex (1): 0x"));
		lft_set_fini(&s);
		fabric_fini(&f);
	}
}

/* Leaves cabled to two random spines out of six: still layered, so the
 * spines are the roots, and an apex bridges them (leaves sharing no spine
 * talk over the bridge). */
static void test_updn_sparse_clos(void)
{
	static const uint32_t seeds[] = { 3, 99, 4242 };

	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		struct fabric f;
		struct lft_set s;
		struct route_note note;

		build_sparse_clos(&f, 6, 12, 2, seeds[i]);
		updn_test_check(&f, route_test_assign_lids(&f, ROUTE_TEST_SWITCH_GUID), NULL, 0, &s,
				&note);
		CU_ASSERT_PTR_NOT_NULL(strstr(note.text, "roots detected as top rank"));
		CU_ASSERT_PTR_NOT_NULL(strstr(note.text, "; apex (1): 0x"));
		lft_set_fini(&s);
		fabric_fini(&f);
	}
}

/* The note lists the lowest GUIDs first, not the switches' order in the
 * fabric (discovery's, which a cable pull can change): 6 spines numbered
 * down from 0x..0106, every leaf cabled to all of them (the checker reads
 * the roots from the note, so all of them are listed). */
static void test_updn_note_guid_order(void)
{
	struct fabric f;
	struct lft_set s;
	struct route_note note;

	fabric_init(&f);
	for (int i = 0; i < 6; i++)
		fabric_add_node(&f, 0x0002000000000106ULL - (uint64_t)i, 2, 16);
	for (int l = 0; l < 4; l++) {
		int leaf = route_test_add_sw(&f, 16);

		route_test_add_host(&f, leaf, 1);
		route_test_add_host(&f, leaf, 2);
		for (int j = 0; j < 6; j++)
			fabric_link(&f, leaf, (uint8_t)(3 + j), j, (uint8_t)(l + 1));
	}
	updn_test_check(&f, route_test_assign_lids(&f, ROUTE_TEST_SWITCH_GUID), NULL, 0, &s, &note);
	CU_ASSERT_PTR_NOT_NULL(strstr(note.text,
				      "roots detected as top rank (6): 0x0002000000000101, "
				      "0x0002000000000102, 0x0002000000000103, "
				      "0x0002000000000104, 0x0002000000000105, "
				      "0x0002000000000106;"));
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* Roots are the spines; the apex, leaf1, lets spines reach each other
 * (sp1 -> leaf1 -> sp2 goes up, then down); leaves spread their traffic
 * over all three spines. */
static void test_updn_fat_tree(void)
{
	struct fabric f;
	struct lft_set s;
	struct route_note note;
	uint16_t max = parse(fat_tree, &f);
	int sp1 = route_test_node(&f, "sp1"), leaf1 = route_test_node(&f, "leaf1");

	updn_test_check(&f, max, NULL, 0, &s, &note);
	CU_ASSERT_STRING_EQUAL(note.text,
			       "roots detected as top rank (3): 0x0002000000000005, "
			       "0x0002000000000006, 0x0002000000000007; apex (1): "
			       "0x0002000000000001; the apex is the switch put above the "
			       "roots to join them: the top of the up/down order");
	for (int l = 1; l <= 4; l++) {
		char name[16];
		int leaf;

		snprintf(name, sizeof(name), "leaf%d", l);
		leaf = route_test_node(&f, name);
		/* 6 hosts + 3 leaves + 3 spines elsewhere, over 3 up ports */
		CU_ASSERT_EQUAL(route_test_lids_on_port(&s, leaf, 3) +
				    route_test_lids_on_port(&s, leaf, 4) +
				    route_test_lids_on_port(&s, leaf, 5),
				12);
		CU_ASSERT_EQUAL(route_test_spread(&s, leaf, 3, 5), 0);
	}
	CU_ASSERT_EQUAL(route_test_out_port(&s, sp1, lid_of(&f, "sp2")), 1);
	CU_ASSERT_EQUAL(route_test_out_port(&s, leaf1, lid_of(&f, "sp2")), 4);
	/* leaf1 reaches leaf2 going down through every spine, like the others */
	CU_ASSERT_EQUAL(route_test_out_port(&s, leaf1, lid_of(&f, "leaf2")), 3);
	/* host LIDs spread evenly: 6 elsewhere, 2 per up port */
	CU_ASSERT_EQUAL(route_test_host_spread(&f, &s, leaf1, 3, 5, 1), 0);
	CU_ASSERT_NOT_EQUAL(route_test_out_port(&s, leaf1, lid_of(&f, "h3")),
			    route_test_out_port(&s, leaf1, lid_of(&f, "h4")));
	CU_ASSERT_EQUAL(route_test_out_port(&s, route_test_node(&f, "sp2"), lid_of(&f, "h8")), 4);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* A three-level fat tree built in memory: 4 pods of 2 leaves + 2 middle
 * switches, 4 spines; middle m of every pod goes to spines 2m, 2m + 1. */
static void test_updn_three_levels(void)
{
	struct fabric f;
	struct lft_set s;
	struct route_note note;
	int leaf[8], mid[8], spine[4];

	fabric_init(&f);
	for (int i = 0; i < 4; i++)
		spine[i] = route_test_add_sw(&f, 8);
	for (int i = 0; i < 8; i++) {
		mid[i] = route_test_add_sw(&f, 8);
		leaf[i] = route_test_add_sw(&f, 8);
		route_test_add_host(&f, leaf[i], 1);
		route_test_add_host(&f, leaf[i], 2);
	}
	for (int pod = 0; pod < 4; pod++)
		for (int k = 0; k < 2; k++) {
			int m = mid[pod * 2 + k];

			for (int l = 0; l < 2; l++) {
				int lf = leaf[pod * 2 + l];

				fabric_link(&f, lf, (uint8_t)(3 + k), m, (uint8_t)(1 + l));
			}
			fabric_link(&f, m, 5, spine[2 * k], (uint8_t)(1 + pod));
			fabric_link(&f, m, 6, spine[2 * k + 1], (uint8_t)(1 + pod));
		}
	updn_test_check(&f, route_test_assign_lids(&f, ROUTE_TEST_SWITCH_GUID), NULL, 0, &s, &note);
	CU_ASSERT_PTR_NOT_NULL(strstr(note.text, "roots detected as top rank (4): "
						 "0x0002000000000001, 0x0002000000000002, "
						 "0x0002000000000003, 0x0002000000000004;"));
	for (int i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(route_test_host_spread(&f, &s, leaf[i], 3, 4, 1), 0);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* A degraded tree: leaf1 lost its cable to sp2 and leaf2 its cable to sp1;
 * the spines stay roots and leaf3, next to both, is the apex: leaf1 ->
 * sp1 -> leaf3 -> sp2 -> leaf2 goes up twice, then down twice. */
static void test_updn_degraded_tree(void)
{
	static const char text[] = "Switch 8 \"leaf1\"\n[1] \"h1\"[1]\n[3] \"sp1\"[1]\n"
				   "Switch 8 \"leaf2\"\n[1] \"h2\"[1]\n[4] \"sp2\"[2]\n"
				   "Switch 8 \"leaf3\"\n[1] \"h3\"[1]\n"
				   "[3] \"sp1\"[3]\n[4] \"sp2\"[3]\n"
				   "Switch 8 \"sp1\"\nSwitch 8 \"sp2\"\n"
				   "Hca 1 \"h1\"\nHca 1 \"h2\"\nHca 1 \"h3\"\n";
	struct fabric f;
	struct lft_set s;
	struct route_note note;
	uint16_t max = parse(text, &f);

	updn_test_check(&f, max, NULL, 0, &s, &note);
	CU_ASSERT_STRING_EQUAL(note.text,
			       "roots detected as top rank (2): 0x0002000000000004, "
			       "0x0002000000000005; apex (1): 0x0002000000000003; the apex is "
			       "the switch put above the roots to join them: the top of "
			       "the up/down order");
	CU_ASSERT_EQUAL(route_test_out_port(&s, route_test_node(&f, "leaf1"), lid_of(&f, "h2")), 3);
	CU_ASSERT_EQUAL(route_test_out_port(&s, route_test_node(&f, "sp1"), lid_of(&f, "h2")), 3);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* A host on a spine breaks the layers: the center is used. */
static void test_updn_host_on_spine(void)
{
	struct fabric f;
	struct lft_set s;
	struct route_note note;

	parse(fat_tree, &f);
	route_test_add_host(&f, route_test_node(&f, "sp2"), 8);
	updn_test_check(&f, route_test_assign_lids(&f, ROUTE_TEST_SWITCH_GUID), NULL, 0, &s, &note);
	CU_ASSERT_STRING_EQUAL(note.text, "roots detected as center (1): 0x0002000000000006");
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* Roots given: the ring ranked from sw3; the fat tree from one leaf (legal,
 * if poor); the given root is named in the note. */
static void test_updn_given_roots(void)
{
	const uint64_t sw3 = SW_GUID(3), leaf2 = SW_GUID(2), two[] = { SW_GUID(5), SW_GUID(7) };
	struct fabric f;
	struct lft_set s;
	struct route_note note;
	uint16_t max = parse(ring4, &f);
	int sw1 = route_test_node(&f, "sw1");

	updn_test_check(&f, max, &sw3, 1, &s, &note);
	CU_ASSERT_STRING_EQUAL(note.text, "roots given (1): 0x0002000000000003");
	/* sw1 is now at rank 2: sw2 reaches sw4 through sw3 */
	CU_ASSERT_EQUAL(route_test_out_port(&s, route_test_node(&f, "sw2"), lid_of(&f, "sw4")), 7);
	CU_ASSERT_TRUE(route_test_spread(&s, sw1, 7, 8) <= 1);
	lft_set_fini(&s);
	fabric_fini(&f);

	max = parse(fat_tree, &f);
	updn_test_check(&f, max, &leaf2, 1, &s, &note);
	CU_ASSERT_STRING_EQUAL(note.text, "roots given (1): 0x0002000000000002");
	lft_set_fini(&s);
	updn_test_check(&f, max, two, 2, &s, &note);
	CU_ASSERT_STRING_EQUAL(note.text,
			       "roots given (2): 0x0002000000000005, "
			       "0x0002000000000007; apex (1): 0x0002000000000001; the apex is "
			       "the switch put above the roots to join them: the top of "
			       "the up/down order");
	lft_set_fini(&s);
	fabric_fini(&f);
}

static void test_updn_bad_roots(void)
{
	const uint64_t unknown = 0x0002c903deadbeefULL, *host;
	struct fabric f;
	struct lft_set s;
	char err[256];
	struct route_opts opts = { .roots = &unknown, .n_roots = 1 };

	opts.max_lid = parse(two_switches, &f);
	lft_set_init(&s);
	CU_ASSERT_EQUAL(route_engine_updn.compute(&f, &opts, &s, NULL, err, sizeof(err)), -ENOENT);
	CU_ASSERT_STRING_EQUAL(err, "root 0x0002c903deadbeef: no such node");
	CU_ASSERT_EQUAL(s.n, 0);
	host = &f.nodes[route_test_node(&f, "h2")].guid;
	opts.roots = host;
	CU_ASSERT_EQUAL(route_engine_updn.compute(&f, &opts, &s, NULL, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "root 0x0001000000000003 (h2): not a switch");
	CU_ASSERT_EQUAL(s.n, 0);
	fabric_fini(&f);
}

/* LMC ranges, islands (each gets its own root), unroutable CAs. */
static void test_updn_lids(void)
{
	static const char text[] = "Switch 4 \"a\"\n[3] \"b\"[3]\n"
				   "Switch 4 \"b\"\n[1] \"h\"[1]\n"
				   "Switch 4 \"island\"\n[1] \"h2\"[1]\n"
				   "Hca 1 \"h\"\nHca 1 \"h2\"\nHca 1 \"lonely\"\n"
				   "Hca 1 \"x\"\n[1] \"y\"[1]\nHca 1 \"y\"\n";
	struct fabric f;
	struct lft_set s;
	struct route_note note;
	int a, b, island;

	parse(text, &f);
	a = route_test_node(&f, "a");
	b = route_test_node(&f, "b");
	island = route_test_node(&f, "island");
	f.nodes[route_test_node(&f, "h")].ports[1].lid = 8;
	f.nodes[route_test_node(&f, "h")].ports[1].lmc = 2; /* 8..11 */
	f.nodes[route_test_node(&f, "lonely")].ports[1].lid = 12;
	updn_test_check(&f, 14, NULL, 0, &s, &note);
	/* a over b (the only switch with a host); the island on its own */
	CU_ASSERT_STRING_EQUAL(note.text, "roots detected as top rank (2): 0x0002000000000001, "
					  "0x0002000000000003");
	for (uint16_t lid = 8; lid <= 11; lid++) {
		CU_ASSERT_EQUAL(route_test_out_port(&s, a, lid), 3);
		CU_ASSERT_EQUAL(route_test_out_port(&s, b, lid), 1);
		CU_ASSERT_EQUAL(route_test_out_port(&s, island, lid), LFT_DROP);
	}
	CU_ASSERT_EQUAL(route_test_out_port(&s, a, lid_of(&f, "island")), LFT_DROP);
	CU_ASSERT_EQUAL(route_test_out_port(&s, island, lid_of(&f, "h2")), 1);
	CU_ASSERT_EQUAL(route_test_out_port(&s, a, 12), LFT_DROP);
	CU_ASSERT_EQUAL(route_test_out_port(&s, b, lid_of(&f, "x")), LFT_DROP);
	CU_ASSERT_EQUAL(route_test_out_port(&s, a, 13), LFT_DROP);
	lft_set_fini(&s);
	/* a root given for one group; the island still gets one detected */
	updn_test_check(&f, 14, &f.nodes[b].guid, 1, &s, &note);
	CU_ASSERT_STRING_EQUAL(note.text, "roots given (1): 0x0002000000000002; "
					  "roots detected as top rank (1): 0x0002000000000003");
	CU_ASSERT_EQUAL(route_test_out_port(&s, a, 8), 3);
	lft_set_fini(&s);
	fabric_fini(&f);
}

static void test_updn_errors(void)
{
	struct route_opts opts = { .max_lid = 4 };
	char err[256];
	struct fabric f;
	struct lft_set s;
	int h4;

	parse(two_switches, &f); /* LIDs 1..6 */
	lft_set_init(&s);
	CU_ASSERT_EQUAL(route_engine_updn.compute(&f, &opts, &s, NULL, err, sizeof(err)), -ERANGE);
	CU_ASSERT_STRING_EQUAL(err, "port 0x0001000000000006/1: LID 5 above max_lid 4");
	CU_ASSERT_EQUAL(s.n, 0);
	opts.max_lid = 6;
	h4 = route_test_node(&f, "h4");
	f.nodes[h4].ports[1].lid = lid_of(&f, "h1");
	CU_ASSERT_EQUAL(route_engine_updn.compute(&f, &opts, &s, NULL, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "port 0x0001000000000008/1: LID 3 also used by port "
				    "0x0001000000000002/1");
	CU_ASSERT_EQUAL(s.n, 0);
	opts.max_lid = LID_UNICAST_MAX + 1;
	CU_ASSERT_EQUAL(route_engine_updn.compute(&f, &opts, &s, NULL, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "max_lid 49152 above the unicast range (0xbfff)");
	fabric_fini(&f);
}

/* The bundled fat tree: spines as roots, balanced, same tables twice. */
static void test_updn_fattree64(void)
{
	struct fabric f;
	struct lft_set s, again;
	struct route_note note;
	char msg[256];
	uint16_t max;

	fabric_init(&f);
	CU_ASSERT_EQUAL_FATAL(topo_load("tests/fabrics/fattree64.topo", &f, msg, sizeof(msg)), 0);
	max = route_test_assign_lids(&f, ROUTE_TEST_SWITCH_GUID);
	updn_test_check(&f, max, NULL, 0, &s, &note);
	CU_ASSERT_PTR_NOT_NULL(strstr(note.text, "roots detected as top rank (4):"));
	for (size_t i = 0; i < f.n_nodes; i++)
		if (!strncmp(f.nodes[i].desc, "leaf", 4))
			CU_ASSERT_EQUAL(route_test_host_spread(&f, &s, (int)i, 9, 16, 1), 0);
	CU_ASSERT_EQUAL_FATAL(route(&f, max, &again, &note), 0);
	for (size_t t = 0; t < s.n; t++)
		CU_ASSERT_EQUAL(memcmp(s.tables[t].port, again.tables[t].port, (size_t)max + 1), 0);
	lft_set_fini(&again);
	lft_set_fini(&s);
	fabric_fini(&f);
}

static void test_updn_no_switches(void)
{
	struct fabric f;
	struct lft_set s;
	struct route_note note;

	uint16_t max = parse("Hca 1 \"x\"\n[1] \"y\"[1]\nHca 1 \"y\"\n", &f);

	CU_ASSERT_EQUAL(route(&f, max, &s, &note), 0);
	CU_ASSERT_EQUAL(s.n, 0);
	CU_ASSERT_STRING_EQUAL(note.text, "");
	lft_set_fini(&s);
	fabric_fini(&f);
}

void test_updn_register(void)
{
	CU_pSuite s = CU_add_suite("updn", NULL, NULL);

	CU_add_test(s, "single switch", test_updn_single_switch);
	CU_add_test(s, "two switches, two parallel links: center root, balanced",
		    test_updn_parallel_links);
	CU_add_test(s, "ring of four: legal, no credit loop (min-hop has one)", test_updn_ring);
	CU_add_test(s, "ring with a chord", test_updn_ring_with_chord);
	CU_add_test(s, "4x4 torus: legal, no credit loop (min-hop has one)", test_updn_torus);
	CU_add_test(s, "random meshes (fixed seeds), center or three given roots",
		    test_updn_random_mesh);
	CU_add_test(s, "sparse leaf/spine (fixed seeds): spines, apex", test_updn_sparse_clos);
	CU_add_test(s, "the note lists the lowest GUIDs first", test_updn_note_guid_order);
	CU_add_test(s, "two-level fat tree: spines detected as roots", test_updn_fat_tree);
	CU_add_test(s, "three-level fat tree: spines detected as roots", test_updn_three_levels);
	CU_add_test(s, "degraded tree: spines stay roots, an apex joins them",
		    test_updn_degraded_tree);
	CU_add_test(s, "host on a spine: center used", test_updn_host_on_spine);
	CU_add_test(s, "roots given", test_updn_given_roots);
	CU_add_test(s, "unknown or non-switch root: error naming it", test_updn_bad_roots);
	CU_add_test(s, "LMC, islands, unreachable LIDs", test_updn_lids);
	CU_add_test(s, "errors: LID range, duplicate LID, max_lid", test_updn_errors);
	CU_add_test(s, "fattree64.topo: spines, balanced, deterministic", test_updn_fattree64);
	CU_add_test(s, "no switches: nothing to route", test_updn_no_switches);
}
