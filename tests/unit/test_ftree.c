/*
 * test_ftree.c - unit tests for the ftree engine on whole trees: 2- and
 * 3-level fat trees, shortest and balanced (the shift all-to-all link
 * load compared with minhop's), given roots, fabrics that are not trees,
 * LIDs and LMC, determinism.  Degraded trees are test_ftree_degraded.c's,
 * the rig (generator, routes followed) ftree_test.c's.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/route.h"
#include "routing/topo_file.h"
#include "tests/unit/ftree_test.h"
#include "tests/unit/route_test.h"
#include "tests/unit/unit.h"

/* ---- Full trees: shortest, balanced ------------------------------------ */

static void test_ftree_single_switch(void)
{
	static const char text[] =
	    "Switch\t8 \"sw\"\n[1]\t\"h1\"[1]\n[2]\t\"h2\"[1]\n[5]\t\"h3\"[1]\n\n"
	    "Hca\t1 \"h1\"\nHca\t1 \"h2\"\nHca\t1 \"h3\"\n";
	struct ftree_test t;

	CU_ASSERT_EQUAL_FATAL(ftree_test_parse(&t, text, strlen(text)), 0);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(t.lft.n, 1);
	CU_ASSERT_EQUAL(t.lft.tables[0].port[1], 0); /* its own LID */
	CU_ASSERT_EQUAL(t.lft.tables[0].port[2], 1);
	CU_ASSERT_EQUAL(t.lft.tables[0].port[3], 2);
	CU_ASSERT_EQUAL(t.lft.tables[0].port[4], 5);
	CU_ASSERT_EQUAL(t.lft.tables[0].port[0], LFT_DROP);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 2), 0);
	CU_ASSERT_STRING_EQUAL(t.note.text, "ftree: 1 rank, 1 root, 1 leaf, 3 CA LIDs");
	ftree_test_free(&t);
}

static void test_ftree_two_level(void)
{
	struct ftree_test_spec sp = {.levels = 2, .leaves = 8, .spines = 4, .links = 1, .hosts = 4};
	struct ftree_test t;

	ftree_test_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 2), 0);
	CU_ASSERT_TRUE(ftree_test_gate_ok(&t));
	ftree_test_compare_shift(&t, "2-level 8x4 hosts, 4 spines");
	CU_ASSERT_STRING_EQUAL(t.note.text, "ftree: 2 ranks, 4 roots, 8 leaves, 32 CA LIDs");
	ftree_test_free(&t);
}

/* Two cables per leaf-spine pair are two up-ports: each carries one flow. */
static void test_ftree_parallel_links(void)
{
	struct ftree_test_spec sp = {.levels = 2, .leaves = 6, .spines = 2, .links = 3, .hosts = 6};
	struct ftree_test t;
	char err[256];

	ftree_test_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 2), 0);
	ftree_test_compare_shift(&t, "2-level 6x6 hosts, 2 spines x 3 cables");
	ftree_test_free(&t);

	memset(&t, 0, sizeof(t));
	fabric_init(&t.f);
	lft_set_init(&t.lft);
	CU_ASSERT_EQUAL_FATAL(topo_load("tests/fabrics/fattree64.topo", &t.f, err, sizeof(err)), 0);
	t.max_lid = route_test_assign_lids(&t.f, ROUTE_TEST_SWITCH_GUID);
	ftree_test_index(&t);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 2), 0);
	CU_ASSERT_TRUE(ftree_test_gate_ok(&t));
	ftree_test_compare_shift(&t, "fattree64.topo (2 cables per pair)");
	ftree_test_free(&t);
}

static void test_ftree_three_level(void)
{
	struct ftree_test_spec sp = {.levels = 3, .pods = 4, .m = 4, .hosts = 4};
	struct ftree_test t;

	ftree_test_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 2), 0);
	CU_ASSERT_TRUE(ftree_test_gate_ok(&t));
	ftree_test_compare_shift(&t, "3-level 4 pods x 4 leaves x 4 hosts");
	CU_ASSERT_STRING_EQUAL(t.note.text, "ftree: 3 ranks, 16 roots, 16 leaves, 64 CA LIDs");
	ftree_test_free(&t);

	sp.pods = 8;
	ftree_test_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 2), 0);
	ftree_test_compare_shift(&t, "3-level 8 pods x 4 leaves x 4 hosts");
	ftree_test_free(&t);
}

/* The given roots are the spines: the same tables as found alone. */
static void test_ftree_given_roots(void)
{
	struct ftree_test_spec sp = {.levels = 3, .pods = 3, .m = 2, .hosts = 2};
	uint64_t roots[5] = {FTREE_TEST_SPINE_GUID + 1, FTREE_TEST_SPINE_GUID + 2,
			     FTREE_TEST_SPINE_GUID + 3, FTREE_TEST_SPINE_GUID + 4,
			     FTREE_TEST_SPINE_GUID + 99};
	struct lft_set alone;
	struct ftree_test t;

	ftree_test_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	alone = t.lft;
	lft_set_init(&t.lft);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route_with(&t, roots, 5), 0);
	for (size_t i = 0; i < alone.n; i++)
		CU_ASSERT_EQUAL(memcmp(alone.tables[i].port, t.lft.tables[i].port, t.max_lid + 1u),
				0);
	CU_ASSERT_TRUE(ftree_test_note_has(&t, "3 ranks, 4 roots, 6 leaves"));
	CU_ASSERT_TRUE(
	    ftree_test_note_has(&t, "1 given root not in the fabric (0x0002c90300c00063)"));
	lft_set_fini(&alone);

	/* a leaf named as a root: the other leaves are at other depths */
	roots[0] = FTREE_TEST_LEAF_GUID + 1;
	CU_ASSERT_EQUAL(ftree_test_route_with(&t, roots, 1), -EINVAL);
	CU_ASSERT_STRING_EQUAL(t.err,
			       "not a fat tree from the given roots: leaf 0x0002c90300a00001 "
			       "is 0 hops below them, leaf 0x0002c90300a00002 2");
	CU_ASSERT_EQUAL(t.lft.n, 0);
	/* a CA is no root */
	roots[0] = t.f.nodes[t.ca[0]].guid;
	CU_ASSERT_EQUAL(ftree_test_route_with(&t, roots, 1), -EINVAL);
	CU_ASSERT_TRUE(strstr(t.err, "is not a switch") != NULL);
	ftree_test_free(&t);
}

/* ---- Not a tree -------------------------------------------------------- */

/* sw[i] port 7 -> sw[i+1] port 8 around a ring of four; a host on sw[i]
 * when bit i of hosted is set. */
static char *ring_text(unsigned hosted)
{
	char *buf = NULL;
	size_t len;
	FILE *fp = open_memstream(&buf, &len);

	for (int i = 0; i < 4; i++) {
		fprintf(fp, "switchguid=0x%016" PRIx64 "\nSwitch\t8 \"sw%d\"\n[7]\t\"sw%d\"[8]\n",
			FTREE_TEST_SPINE_GUID + (uint64_t)i + 1, i, (i + 1) % 4);
		if (hosted >> i & 1)
			fprintf(fp, "[1]\t\"h%d\"[1]\n", i);
		fprintf(fp, "\n");
	}
	for (int i = 0; i < 4; i++)
		if (hosted >> i & 1)
			fprintf(fp, "Hca\t1 \"h%d\"\n", i);
	fclose(fp);
	return buf;
}

static void test_ftree_not_a_tree(void)
{
	struct ftree_test t;
	char *text = ring_text(0xf);

	CU_ASSERT_EQUAL_FATAL(ftree_test_parse(&t, text, strlen(text)), 0);
	CU_ASSERT_EQUAL(ftree_test_route_with(&t, NULL, 0), -EINVAL);
	CU_ASSERT_STRING_EQUAL(t.err, "not a fat tree: 0x0002c90300c00001/7 - 0x0002c90300c00002/8 "
				      "links two switches of rank 0");
	CU_ASSERT_EQUAL(t.lft.n, 0);
	ftree_test_free(&t);
	free(text);

	text = ring_text(0);
	CU_ASSERT_EQUAL_FATAL(ftree_test_parse(&t, text, strlen(text)), 0);
	CU_ASSERT_EQUAL(ftree_test_route_with(&t, NULL, 0), -EINVAL);
	CU_ASSERT_STRING_EQUAL(t.err, "not a fat tree: no leaf (no switch has a CA cabled)");
	ftree_test_free(&t);
	free(text);

	/* hosts on two opposite switches: a ring of four is a 2-by-2 tree */
	text = ring_text(0x5);
	CU_ASSERT_EQUAL_FATAL(ftree_test_parse(&t, text, strlen(text)), 0);
	CU_ASSERT_EQUAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 0), 0);
	ftree_test_free(&t);
	free(text);
}

/* ---- LIDs -------------------------------------------------------------- */

/* LMC 1 on every CA: the base LIDs are balanced as without LMC, the second
 * LIDs too, and they take other spines. */
static void test_ftree_lmc_balance(void)
{
	struct ftree_test_spec sp = {.levels = 2, .leaves = 8, .spines = 4, .links = 1, .hosts = 4};
	struct ftree_test t;
	unsigned other = 0;

	ftree_test_build(&t, &sp);
	for (size_t i = 0; i < t.n_cas; i++) {
		t.f.nodes[t.ca[i]].ports[1].lid = (uint16_t)(64 + 2 * i);
		t.f.nodes[t.ca[i]].ports[1].lmc = 1;
	}
	t.max_lid = (uint16_t)(64 + 2 * t.n_cas);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 2), 0);
	CU_ASSERT_EQUAL(ftree_test_shift_load_to(&t, &t.lft, 0), 1);
	CU_ASSERT_EQUAL(ftree_test_shift_load_to(&t, &t.lft, 1), 1);
	for (size_t i = 0; i < t.n_cas; i++) {
		/* CA i + 4 is on the next leaf: both LIDs leave CA i's leaf going up */
		const struct fabric_port *to = &t.f.nodes[t.ca[(i + 4) % t.n_cas]].ports[1];
		const struct lft *from =
		    lft_set_find_const(&t.lft, t.f.nodes[t.ca[i]].ports[1].remote_node);

		other += from->port[to->lid] != from->port[to->lid + 1];
	}
	CU_ASSERT_EQUAL(other, t.n_cas);
	ftree_test_free(&t);
}

static void test_ftree_lids(void)
{
	struct ftree_test_spec sp = {.levels = 2, .leaves = 4, .spines = 2, .links = 1, .hosts = 2};
	struct route_opts opts;
	struct ftree_test t;
	int h;

	ftree_test_build(&t, &sp);
	/* the last CA gets LMC 2: 4 LIDs from a fresh, aligned base */
	h = t.ca[t.n_cas - 1];
	t.f.nodes[h].ports[1].lid = 32;
	t.f.nodes[h].ports[1].lmc = 2;
	t.max_lid = 40;
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 1), 0);
	for (uint16_t lid = 36; lid <= 40; lid++) /* unowned */
		CU_ASSERT_EQUAL(t.lft.tables[0].port[lid], LFT_DROP);

	opts = (struct route_opts){.max_lid = 34};
	CU_ASSERT_EQUAL(
	    route_engine_ftree.compute(&t.f, &opts, &t.lft, &t.note, t.err, sizeof(t.err)),
	    -ERANGE);
	CU_ASSERT_TRUE(strstr(t.err, "/1: LID 35 above max_lid 34") != NULL);
	CU_ASSERT_EQUAL(t.lft.n, 0);
	t.f.nodes[h].ports[1].lmc = 0;
	t.f.nodes[h].ports[1].lid = t.f.nodes[t.ca[0]].ports[1].lid;
	opts.max_lid = t.max_lid;
	CU_ASSERT_EQUAL(
	    route_engine_ftree.compute(&t.f, &opts, &t.lft, &t.note, t.err, sizeof(t.err)),
	    -EINVAL);
	CU_ASSERT_TRUE(strstr(t.err, "also used by port") != NULL);
	opts.max_lid = LID_UNICAST_MAX + 1;
	CU_ASSERT_EQUAL(
	    route_engine_ftree.compute(&t.f, &opts, &t.lft, &t.note, t.err, sizeof(t.err)),
	    -EINVAL);
	CU_ASSERT_STRING_EQUAL(t.err, "max_lid 49152 above the unicast range (0xbfff)");
	ftree_test_free(&t);
}

static void test_ftree_deterministic(void)
{
	struct ftree_test_spec sp = {.levels = 3, .pods = 4, .m = 4, .hosts = 3, .cut = {"mid3/6"}};
	struct lft_set first;
	struct ftree_test t;

	ftree_test_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	first = t.lft;
	lft_set_init(&t.lft);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL_FATAL(first.n, t.lft.n);
	for (size_t i = 0; i < first.n; i++)
		CU_ASSERT_EQUAL(memcmp(first.tables[i].port, t.lft.tables[i].port, t.max_lid + 1u),
				0);
	CU_ASSERT_PTR_EQUAL(route_engine_find("ftree"), &route_engine_ftree);
	lft_set_fini(&first);
	ftree_test_free(&t);
}

void test_ftree_register(void)
{
	CU_pSuite s = CU_add_suite("ftree", NULL, NULL);

	CU_add_test(s, "single switch", test_ftree_single_switch);
	CU_add_test(s, "2-level full tree: shortest, shift load 1", test_ftree_two_level);
	CU_add_test(s, "parallel cables are up-ports of their own", test_ftree_parallel_links);
	CU_add_test(s, "3-level full tree: shortest, shift load 1", test_ftree_three_level);
	CU_add_test(s, "given roots", test_ftree_given_roots);
	test_ftree_degraded_add(s);
	CU_add_test(s, "rings: not a tree, or a 2-by-2 tree", test_ftree_not_a_tree);
	CU_add_test(s, "LMC: each LID balanced, on its own path", test_ftree_lmc_balance);
	CU_add_test(s, "LMC, LID errors", test_ftree_lids);
	CU_add_test(s, "deterministic; in the engine table", test_ftree_deterministic);
}
