/*
 * test_ftree_degraded.c - unit tests for the ftree engine on degraded fat
 * trees (links, spines, mids, hosts or leaves missing; islands; leaves
 * cabled together): routed around and said so in the note, the gate
 * passed with the down-up turns and VLs it takes, and the load of the
 * lost columns spread.  In the ftree suite (test_ftree.c registers it);
 * the rig is ftree_test.c's.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/ftree_turns.h"
#include "routing/route.h"
#include "tests/unit/ftree_test.h"

/* ---- Degraded trees: routed around, and said so ------------------------ */

static void test_ftree_missing_links(void)
{
	struct ftree_test_spec sp = {
	    .levels = 3, .pods = 4, .m = 4, .hosts = 4, .cut = {"leaf2/6", "mid5/7"}};
	struct ftree_test_spec two = {.levels = 2,
				      .leaves = 8,
				      .spines = 4,
				      .links = 1,
				      .hosts = 4,
				      .cut = {"leaf1/5", "leaf4/7", "spine4/8"}};
	struct ftree_test t;

	ftree_test_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(ftree_test_gate_ok(&t));
	CU_ASSERT_TRUE(ftree_test_note_has(
	    &t, "; 2 up-links missing: 0x0002c90300a00002/6, 0x0002c90300b00005/7; "));
	CU_ASSERT_TRUE(ftree_test_note_has(&t, " LIDs routed around them"));
	CU_ASSERT_TRUE(strstr(t.note.text, "; 0 LIDs") == NULL);
	ftree_test_free(&t);

	/* three cables gone, where OpenSM's ftree gives up */
	ftree_test_build(&t, &two);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(ftree_test_gate_ok(&t));
	CU_ASSERT_TRUE(ftree_test_note_has(
	    &t, "3 up-links missing: 0x0002c90300a00001/5, 0x0002c90300a00004/7, "
		"0x0002c90300a00008/8;"));
	ftree_test_free(&t);
}

/* mid3 keeps no up-link: it tops its own small tree (a root at rank 1),
 * and its pod still reaches everything through its other mids.  Pod 1's
 * CAs and the switches of column 3 (mid7, mid11, spine9..12) have no
 * up-then-down route to each other; their routes turn down-up where no
 * credit loop closes (the shortest ones turned in pods 2 and 3 both, and
 * the gate refused them). */
static void test_ftree_orphan_mid(void)
{
	struct ftree_test_spec sp = {.levels = 3,
				     .pods = 3,
				     .m = 4,
				     .hosts = 4,
				     .cut = {"mid3/5", "mid3/6", "mid3/7", "mid3/8"}};
	struct ftree_test t;

	ftree_test_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(ftree_test_gate_ok(&t));
	CU_ASSERT_TRUE(
	    ftree_test_note_has(&t, "ftree: 3 ranks, 17 roots, 12 leaves, 48 CA LIDs; 4 up-links "
				    "missing: 0x0002c90300b00003/5, 0x0002c90300b00003/6, "
				    "0x0002c90300b00003/7, 0x0002c90300b00003/8;"));
	ftree_test_free(&t);
}

static void test_ftree_missing_spine(void)
{
	struct ftree_test_spec sp = {
	    .levels = 3, .pods = 4, .m = 4, .hosts = 4, .gone = {"spine6"}};
	struct ftree_test_spec two = {
	    .levels = 2, .leaves = 8, .spines = 4, .links = 2, .hosts = 8, .gone = {"spine2"}};
	struct ftree_test t;

	ftree_test_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(ftree_test_gate_ok(&t));
	CU_ASSERT_TRUE(ftree_test_note_has(&t, "3 ranks, 15 roots, 16 leaves"));
	ftree_test_free(&t);

	/* 8 hosts over 6 up-links per leaf: two flows on a link at worst */
	ftree_test_build(&t, &two);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(ftree_test_gate_ok(&t));
	CU_ASSERT_STRING_EQUAL(t.note.text, "ftree: 2 ranks, 3 roots, 8 leaves, 64 CA LIDs");
	CU_ASSERT_EQUAL(ftree_test_shift_load(&t, &t.lft), 2);
	ftree_test_free(&t);
}

/* Pods with fewer leaves, leaves with fewer hosts, a leaf with none. */
static void test_ftree_partial(void)
{
	struct ftree_test_spec sp = {.levels = 3,
				     .pods = 3,
				     .m = 4,
				     .hosts = 4,
				     .pod_leaves = {4, 2, 3},
				     .leaf_hosts = {[1] = 1, [4] = 3, [7] = -1}};
	struct ftree_test t;

	ftree_test_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(ftree_test_gate_ok(&t));
	ftree_test_free(&t);
}

/* A leaf whose hosts are all gone sits where a root would, two ranks above
 * the leaves next to it.  In a 3-level tree it sees one pod only, and is
 * taken for the leaf it is: the same tables as with the spines named as
 * roots.  In a 2-level tree it is the one root above the spines (the same
 * graph as a 3-level tree of one pod and one spine): routes stay right. */
static void test_ftree_hostless_leaf(void)
{
	struct ftree_test_spec sp = {
	    .levels = 3, .pods = 4, .m = 4, .hosts = 4, .leaf_hosts = {[5] = -1}};
	struct ftree_test_spec two = {.levels = 2,
				      .leaves = 6,
				      .spines = 3,
				      .links = 1,
				      .hosts = 3,
				      .leaf_hosts = {[2] = -1}};
	uint64_t roots[16];
	struct lft_set alone;
	struct ftree_test t;

	for (int i = 0; i < 16; i++)
		roots[i] = FTREE_TEST_SPINE_GUID + (uint64_t)i + 1;
	ftree_test_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(ftree_test_gate_ok(&t));
	CU_ASSERT_STRING_EQUAL(t.note.text, "ftree: 3 ranks, 16 roots, 15 leaves, 60 CA LIDs");
	alone = t.lft;
	lft_set_init(&t.lft);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route_with(&t, roots, 16), 0);
	for (size_t i = 0; i < alone.n; i++)
		CU_ASSERT_EQUAL(memcmp(alone.tables[i].port, t.lft.tables[i].port, t.max_lid + 1u),
				0);
	lft_set_fini(&alone);
	ftree_test_free(&t);

	ftree_test_build(&t, &two);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(ftree_test_gate_ok(&t));
	CU_ASSERT_STRING_EQUAL(t.note.text, "ftree: 3 ranks, 1 root, 5 leaves, 15 CA LIDs");
	CU_ASSERT_EQUAL_FATAL(ftree_test_route_with(&t, roots, 3), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_STRING_EQUAL(t.note.text, "ftree: 2 ranks, 3 roots, 5 leaves, 15 CA LIDs");
	ftree_test_free(&t);
}

/* leaf1 keeps only its cable to mid1, leaf2 only its cable to mid2: no
 * switch is above both, so their CAs reach each other by a route that
 * turns down then up once, where it closes no credit loop; the note says
 * so. */
static void test_ftree_no_common_ancestor(void)
{
	struct ftree_test_spec sp = {
	    .levels = 3, .pods = 2, .m = 2, .hosts = 2, .cut = {"leaf1/4", "leaf2/3"}};
	struct ftree_test t;

	ftree_test_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(ftree_test_note_has(
	    &t, "2 up-links missing: 0x0002c90300a00001/4, 0x0002c90300a00002/3"));
	CU_ASSERT_TRUE(
	    ftree_test_note_has(&t, "2 leaf pairs without a common ancestor take a down-up route"));
	CU_ASSERT_TRUE(ftree_test_note_has(&t, " kept free of credit loops"));
	CU_ASSERT_TRUE(ftree_test_gate_ok(&t));
	ftree_test_free(&t);
}

/* 128 hosts in 8 pods (the tree of nanosm-gen fattree --levels 3 --radix
 * 8), five cables gone as by --missing-links 5 --seed 7: a leaf without
 * two of its four up-links, two leaves without one, a mid without one
 * spine.  Pods without a common ancestor must turn down then up both ways
 * between columns; the routes of the old ftree (shortest, with one parent
 * kept at each bounce point) closed a credit loop here and the gate
 * refused them.  Now every turn is checked against the others. */
static void test_ftree_degraded_credit_free(void)
{
	struct ftree_test_spec sp = {
	    .levels = 3,
	    .pods = 8,
	    .m = 4,
	    .hosts = 4,
	    .cut = {"leaf6/6", "leaf11/5", "leaf24/7", "leaf24/8", "mid21/5"}};
	struct ftree_test t;

	ftree_test_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(ftree_test_gate_ok(&t));
	CU_ASSERT_TRUE(ftree_test_note_has(&t, " kept free of credit loops"));
	CU_ASSERT_TRUE(strstr(t.note.text, "may close a credit loop") == NULL);
	ftree_test_free(&t);
}

/* Build sp, route it with ftree: every route up-then-down or turning as
 * ftree may, and the gate passes (a tree of the degraded tests). */
static void tree_route_gated(struct ftree_test *t, const struct ftree_test_spec *sp)
{
	ftree_test_build(t, sp);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(t, &t->lft, 1), 0);
	CU_ASSERT_TRUE(ftree_test_gate_ok(t));
}

/* Every port of t offers vl_cap (1: VL0 only, 0: not known, so 8). */
static void tree_set_vl_cap(struct ftree_test *t, uint8_t vl_cap)
{
	for (size_t i = 0; i < t->f.n_nodes; i++)
		for (unsigned p = 0; p <= t->f.nodes[i].num_ports; p++)
			t->f.nodes[i].ports[p].vl_cap = vl_cap;
}

/* nanosm-gen fattree --levels 3 --radix 8 (8 pods of 4 leaves and 4 mids,
 * 16 spines) with the cables cut (NULL-ended) left out, routed with ftree:
 * every route judged and the gate passed. */
static void k8_route_gated(struct ftree_test *t, const char *const *cut)
{
	struct ftree_test_spec sp = {.levels = 3, .pods = 8, .m = 4, .hosts = 4};

	for (size_t i = 0; cut[i]; i++)
		sp.cut[i] = cut[i];
	tree_route_gated(t, &sp);
}

/* The cables --missing-links 20 --seed 13 cuts (tests below). */
static const char *const k8_seed13_cut[] = {
    "mid3/8",  "mid4/8",   "leaf4/7",  "mid6/8",  "leaf6/8",  "mid10/5", "mid12/5",
    "mid12/6", "mid13/8",  "mid16/6",  "mid17/7", "mid18/6",  "mid21/6", "mid24/5",
    "mid24/7", "leaf22/8", "leaf23/6", "mid25/7", "leaf25/7", "mid30/7", NULL};

/* nanosm-gen fattree --levels 3 --radix 8 --missing-links 20 --seed 13:
 * 20 of 256 cables gone, so many that one switch finds no turn left that
 * closes no credit loop on VL 0.  With the ports' 8 data VLs the LIDs
 * whose turns VL 0 cannot take ride another VL (at most 4; SL = VL) with a
 * graph of turns of their own, so the gate (per VL) passes and no LID is
 * moved off its parent at an exit (on VL 0 alone, 26 are); with VL0 only
 * the route stays on a shortest path, as before, and the gate refuses it. */
static void test_ftree_degraded_vl1(void)
{
	struct ftree_test t;

	k8_route_gated(&t, k8_seed13_cut);
	CU_ASSERT_TRUE(
	    ftree_test_note_has(&t, "(SL = VL), where their turns close no credit loop: "));
	/* no LID moved off its parent at an exit: another VL took its turn */
	CU_ASSERT_TRUE(ftree_test_note_has(&t, ", 0 LIDs moved to another parent there"));
	CU_ASSERT_TRUE(strstr(t.note.text, "may close a credit loop") == NULL);
	CU_ASSERT_TRUE(t.lft.n_vls >= 2 && t.lft.n_vls <= 4);
	CU_ASSERT_PTR_NOT_NULL(t.lft.sl);

	tree_set_vl_cap(&t, 1);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_TRUE(ftree_test_note_has(&t, "may close a credit loop"));
	CU_ASSERT_TRUE(strstr(t.note.text, "SL = VL") == NULL);
	CU_ASSERT_EQUAL(t.lft.n_vls, 1);
	CU_ASSERT_PTR_NULL(t.lft.sl);
	CU_ASSERT_FALSE(ftree_test_gate_ok(&t));
	ftree_test_free(&t);
}

/* The tree of test_ftree_degraded_vl1: the turns put its CA LIDs on 3
 * VLs (a graph of turns links two turns whenever a root lies above both),
 * but the tables' own channel dependencies let the LIDs of VL 2 ride VL 0
 * or 1: ftree empties VL 2 (SLs only), and the gate still passes.  VL 1
 * does not go: its LIDs on VL 0 close a credit loop there. */
static void test_ftree_vl_merge(void)
{
	struct ftree_test t;

	k8_route_gated(&t, k8_seed13_cut);
	CU_ASSERT_EQUAL(t.lft.n_vls, 2);
	CU_ASSERT_TRUE(ftree_test_note_has(&t, "CA LIDs on VL 0-1 (SL = VL)"));
	CU_ASSERT_TRUE(ftree_test_note_has(
	    &t, "; 1 VL emptied into lower VLs whose dependencies stay acyclic"));
	for (uint16_t lid = 0; t.lft.sl && lid <= t.lft.sl_top; lid++)
		CU_ASSERT_TRUE(t.lft.sl[lid] < 2);
	/* every LID on VL 0: a credit loop */
	for (uint16_t lid = 0; t.lft.sl && lid <= t.lft.sl_top; lid++)
		t.lft.sl[lid] = 0;
	t.lft.n_vls = 1;
	CU_ASSERT_FALSE(ftree_test_gate_ok(&t));
	ftree_test_free(&t);
}

/* nanosm-gen fattree --levels 3 --radix 8 --missing-links 28 --seed 14:
 * ftree's turns take 3 VLs, the merge leaves 2.  The switches' own LIDs
 * stay on VL 0, and the CA traffic to them turns at every switch on its
 * way (not only at the leaves): counting only the leaves' turns, the
 * merge put LIDs on VL 0 that closed a credit loop with them there. */
static void test_ftree_vl_merge_switch_lids(void)
{
	static const char *const cut[] = {"mid2/7",   "mid4/5",	  "mid4/7",   "mid4/8",	 "leaf1/6",
					  "leaf4/8",  "mid7/7",	  "leaf6/8",  "mid12/7", "mid13/6",
					  "mid16/6",  "leaf14/5", "mid17/7",  "mid18/5", "mid18/6",
					  "mid20/8",  "leaf19/5", "mid21/7",  "mid25/5", "mid27/8",
					  "leaf25/5", "leaf25/6", "leaf28/5", "mid29/6", "mid29/7",
					  "mid30/6",  "leaf29/7", "leaf31/7", NULL};
	struct ftree_test t;

	k8_route_gated(&t, cut);
	CU_ASSERT_EQUAL(t.lft.n_vls, 2);
	CU_ASSERT_TRUE(ftree_test_note_has(
	    &t, "; 1 VL emptied into lower VLs whose dependencies stay acyclic"));
	ftree_test_free(&t);
}

/* A whole middle switch gone (nanosm-gen's aggregation switch): its pod's
 * leaves lose a column, so their CAs and that column's switches have no
 * up-then-down route to each other.  The old ftree's tables closed a
 * credit loop; these pass, and the rest stays balanced. */
static void test_ftree_gone_mid(void)
{
	struct ftree_test_spec sp = {.levels = 3, .pods = 8, .m = 4, .hosts = 4, .gone = {"mid6"}};
	struct ftree_test t;

	ftree_test_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(ftree_test_gate_ok(&t));
	CU_ASSERT_TRUE(ftree_test_shift_load(&t, &t.lft) <= 3);
	ftree_test_free(&t);
}

/* 2 levels, 8 leaves of 4 hosts under 4 spines, a cable gone at three
 * different spines and one more: each spine must reach a leaf through
 * another, and CAs reach that spine's LID the same way; the turns gather
 * at one leaf (the hub), so none leads to another.  Shift all-to-all is
 * no worse than minhop's (whose tables have a credit loop here). */
static void test_ftree_degraded_two_level(void)
{
	struct ftree_test_spec two = {.levels = 2,
				      .leaves = 8,
				      .spines = 4,
				      .links = 1,
				      .hosts = 4,
				      .cut = {"spine1/3", "spine2/5", "spine3/8", "leaf6/8"}};
	struct ftree_test t;

	ftree_test_build(&t, &two);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(ftree_test_gate_ok(&t));
	CU_ASSERT_TRUE(ftree_test_shift_load(&t, &t.lft) <= ftree_test_minhop_shift_load(&t));
	ftree_test_free(&t);
}

/* nanosm-gen fattree --levels 2 --radix 8 --missing-links 2 --seed 6: leaf3
 * and leaf8 each lost their cable to spine3.  Leaf3 sends the LIDs of
 * column 3 up another live link; under a shift all-to-all its CAs send to
 * LIDs in a row, among them leaf8's fourth CA, which leaf8 took up spine2
 * (its three links were taken).  The column leaf3 takes for such a LID is
 * the one it would send the fewest of the LIDs around it out of (a shift
 * sends its CAs' flows to LIDs in a row, round the end), so no shift puts
 * three flows on one of its links, as minhop does not (the old choice, by
 * LIDs diverted so far, sent a shift's third flow up spine2). */
static void test_ftree_lost_column_spread(void)
{
	struct ftree_test_spec two = {.levels = 2,
				      .leaves = 8,
				      .spines = 4,
				      .links = 1,
				      .hosts = 4,
				      .cut = {"leaf3/7", "leaf8/7"}};
	struct ftree_test t;

	tree_route_gated(&t, &two);
	CU_ASSERT_EQUAL(ftree_test_shift_load(&t, &t.lft), 2);
	CU_ASSERT_TRUE(ftree_test_shift_load(&t, &t.lft) <= ftree_test_minhop_shift_load(&t));
	ftree_test_free(&t);
}

/* The worst shift load of k8_route_gated's tree. */
static unsigned k8_shift_load(const char *const *cut)
{
	struct ftree_test t;
	unsigned load;

	k8_route_gated(&t, cut);
	load = ftree_test_shift_load(&t, &t.lft);
	ftree_test_free(&t);
	return load;
}

/* nanosm-gen fattree --levels 3 --radix 8 --missing-links 4 --seed 11: a
 * leaf without two of its four up-links, another without one, a mid
 * without a spine.  With the leaves' lost columns sent where the LIDs
 * around them leave room, shift all-to-all stays at 3 (4 before). */
static void test_ftree_lost_columns_three_level(void)
{
	static const char *const cut[] = {"leaf1/6", "mid14/8", "leaf19/5", "leaf19/6", NULL};

	CU_ASSERT_TRUE(k8_shift_load(cut) <= 3);
}

/* nanosm-gen fattree --levels 3 --radix 8 --missing-links 5 --seed 7: leaf24
 * lost two of its four up-links (columns 3 and 4), leaf6 lost column 2,
 * so the only column both still have is 1; up-then-down, leaf24's flows
 * to leaf6's LIDs in a row all climb through mid21, and mid21 also lost
 * a spine (4 then 5 flows on one link).  leaf24 now sends a LID that
 * would make 3 flows on one link up its other parent (which has no
 * up-then-down route to leaf6) to that parent's exit, where the LID
 * turns up column 4 on a turn taken for it anyway; and mid21 spreads
 * the LIDs of its lost spine by the flows of its pod. */
static void test_ftree_detour_common_column(void)
{
	static const char *const cut[] = {"mid21/5",  "leaf6/6",  "leaf11/5",
					  "leaf24/7", "leaf24/8", NULL};

	CU_ASSERT_TRUE(k8_shift_load(cut) <= 3);
}

/* nanosm-gen fattree --levels 3 --radix 8 --missing-links 5 --seed 8: four
 * mids lost a spine each (mid4, mid9, mid24, mid27), leaf22 a mid.  A
 * mid that lost a spine sends those LIDs to the spine its pod's flows to
 * the LIDs in a row leave room on (4 flows on one link before). */
static void test_ftree_mid_lost_spines(void)
{
	static const char *const cut[] = {"mid9/6",  "mid27/8",	 "mid4/5",
					  "mid24/6", "leaf22/7", NULL};

	CU_ASSERT_TRUE(k8_shift_load(cut) <= 3);
}

/* The graph of turns on a hand-made tree: switches 0..3 are roots, 4..7
 * middle switches each under one root (4 under 0, ...), 8..11 leaves
 * under every middle switch.  A turn from column a to column b at one
 * leaf, and from b back to a at another, close a cycle (up through b's
 * root and down to the other leaf, and back through a's); at the same
 * leaf they do not (the walk would pass that leaf twice), unless the tree
 * has a diamond.  A chain a -> b -> c -> a closes one too. */
static void test_ftree_turns_graph(void)
{
	struct ftree_turns t;

	CU_ASSERT_EQUAL_FATAL(ftree_turns_init(&t, 12, 4), 0);
	for (int r = 0; r < 4; r++) {
		ftree_turns_mark_root(&t, r, (size_t)r);
		ftree_turns_inherit(&t, 4 + r, r);
		for (int leaf = 8; leaf <= 11; leaf++)
			ftree_turns_inherit(&t, leaf, 4 + r);
	}
	CU_ASSERT_TRUE(ftree_turns_common(&t, 8, 9));
	CU_ASSERT_FALSE(ftree_turns_common(&t, 4, 5));
	CU_ASSERT_TRUE(ftree_turns_common(&t, 4, 0));

	CU_ASSERT_TRUE(ftree_turns_allowed(&t, 4, 8, 5));
	CU_ASSERT_EQUAL(ftree_turns_take(&t, 4, 8, 5), 0);
	CU_ASSERT_TRUE(ftree_turns_has(&t, 4, 8, 5));
	CU_ASSERT_FALSE(ftree_turns_has(&t, 5, 8, 4));
	CU_ASSERT_FALSE(ftree_turns_allowed(&t, 5, 9, 4)); /* back at another leaf */
	CU_ASSERT_TRUE(ftree_turns_allowed(&t, 5, 8, 4));  /* back at the hub */
	CU_ASSERT_EQUAL(ftree_turns_take(&t, 5, 8, 4), 0);
	CU_ASSERT_TRUE(ftree_turns_allowed(&t, 4, 8, 5)); /* taken: still fine */

	/* a chain of columns 1 -> 2 -> 3 at leaves 9 and 10; 3 -> 1 or 3 -> 0
	 * at leaf 11 closes a cycle, 3 -> 1 at leaf 9 does not (the walk would
	 * come back to leaf 9), nor 2 -> 1 at leaf 9 */
	CU_ASSERT_EQUAL(ftree_turns_take(&t, 5, 9, 6), 0);
	CU_ASSERT_TRUE(ftree_turns_allowed(&t, 6, 10, 7));
	CU_ASSERT_EQUAL(ftree_turns_take(&t, 6, 10, 7), 0);
	CU_ASSERT_FALSE(ftree_turns_allowed(&t, 7, 11, 5));
	CU_ASSERT_FALSE(ftree_turns_allowed(&t, 7, 11, 4)); /* 3 -> 0 -> 1 -> 2 -> 3 */
	CU_ASSERT_TRUE(ftree_turns_allowed(&t, 7, 9, 5));
	CU_ASSERT_TRUE(ftree_turns_allowed(&t, 6, 9, 5));
	ftree_turns_fini(&t);

	/* with a diamond the hub's two turns are judged by their roots alone */
	CU_ASSERT_EQUAL_FATAL(ftree_turns_init(&t, 12, 4), 0);
	for (int r = 0; r < 4; r++) {
		ftree_turns_mark_root(&t, r, (size_t)r);
		ftree_turns_inherit(&t, 4 + r, r);
		ftree_turns_inherit(&t, 8, 4 + r);
	}
	t.diamond = 1;
	CU_ASSERT_EQUAL(ftree_turns_take(&t, 4, 8, 5), 0);
	CU_ASSERT_FALSE(ftree_turns_allowed(&t, 5, 8, 4));
	CU_ASSERT_TRUE(ftree_turns_allowed(&t, 5, 8, 6));
	ftree_turns_fini(&t);
}

/* A single switch, a small tree, a switch alone and two CAs cabled back
 * to back, in one fabric: each island is routed, nothing crosses. */
static void test_ftree_islands(void)
{
	static const char text[] = "Switch\t4 \"a\"\n[1]\t\"h1\"[1]\n[2]\t\"h2\"[1]\n\n"
				   "Switch\t4 \"b1\"\n[1]\t\"h3\"[1]\n[3]\t\"spineb\"[1]\n\n"
				   "Switch\t4 \"b2\"\n[1]\t\"h4\"[1]\n[3]\t\"spineb\"[2]\n\n"
				   "Switch\t4 \"spineb\"\n\n"
				   "Switch\t4 \"lonely\"\n\n"
				   "Hca\t1 \"h1\"\nHca\t1 \"h2\"\nHca\t1 \"h3\"\nHca\t1 \"h4\"\n"
				   "Hca\t1 \"h5\"\n[1]\t\"h6\"[1]\nHca\t1 \"h6\"\n";
	struct ftree_test t;

	CU_ASSERT_EQUAL_FATAL(ftree_test_parse(&t, text, strlen(text)), 0);
	CU_ASSERT_EQUAL_FATAL(ftree_test_route(&t), 0);
	CU_ASSERT_EQUAL(ftree_test_check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_STRING_EQUAL(t.note.text, "ftree: 2 ranks, 2 roots, 3 leaves, 4 CA LIDs; "
					    "1 switch with no leaf connected: own LIDs only");
	ftree_test_free(&t);
}

/* Two leaves cabled together: not a tree. */
static void test_ftree_leaf_to_leaf(void)
{
	struct ftree_test_spec sp = {.levels = 2,
				     .leaves = 4,
				     .spines = 2,
				     .links = 1,
				     .hosts = 2,
				     .leaf_hosts = {[0] = 1, [2] = 1}};
	struct ftree_test t;
	char *text;
	size_t len;
	struct ftree_test_gen *g = calloc(1, sizeof(*g));

	ftree_test_gen_two_level(g, &sp);
	ftree_test_gen_link(g, ftree_test_gen_find(g, "leaf1"), 2, ftree_test_gen_find(g, "leaf3"),
			    2);
	text = ftree_test_gen_text(g, &len);
	CU_ASSERT_EQUAL_FATAL(ftree_test_parse(&t, text, len), 0);
	CU_ASSERT_EQUAL(ftree_test_route_with(&t, NULL, 0), -EINVAL);
	CU_ASSERT_STRING_EQUAL(t.err, "not a fat tree: 0x0002c90300a00001/2 - 0x0002c90300a00003/2 "
				      "links two switches of rank 0");
	ftree_test_free(&t);
	free(text);
	free(g);
}

/* Called by test_ftree_register: the ftree suite, in its order. */
void test_ftree_degraded_add(CU_pSuite s)
{
	CU_add_test(s, "missing links: routed around, noted", test_ftree_missing_links);
	CU_add_test(s, "a mid without up-links", test_ftree_orphan_mid);
	CU_add_test(s, "missing spine", test_ftree_missing_spine);
	CU_add_test(s, "partially populated 3-level tree", test_ftree_partial);
	CU_add_test(s, "a leaf without hosts", test_ftree_hostless_leaf);
	CU_add_test(s, "no common ancestor: down-up route, noted", test_ftree_no_common_ancestor);
	CU_add_test(s, "degraded 3-level tree: turns close no credit loop",
		    test_ftree_degraded_credit_free);
	CU_add_test(s, "degraded 3-level tree: turns VL 0 cannot take ride VL 1",
		    test_ftree_degraded_vl1);
	CU_add_test(s, "degraded tree: VLs its dependencies do not need are emptied",
		    test_ftree_vl_merge);
	CU_add_test(s, "degraded tree: VLs merged, CA traffic to switch LIDs counted",
		    test_ftree_vl_merge_switch_lids);
	CU_add_test(s, "a whole mid gone: gate passes", test_ftree_gone_mid);
	CU_add_test(s, "degraded 2-level tree: gate passes", test_ftree_degraded_two_level);
	CU_add_test(s, "a lost column: its LIDs spread over the links used least",
		    test_ftree_lost_column_spread);
	CU_add_test(s, "lost columns in a 3-level tree: shift load 3",
		    test_ftree_lost_columns_three_level);
	CU_add_test(s, "two leaves with one column in common: a detour, shift load 3",
		    test_ftree_detour_common_column);
	CU_add_test(s, "mids that lost a spine: their pod's flows spread, shift load 3",
		    test_ftree_mid_lost_spines);
	CU_add_test(s, "turns: a cycle of columns is refused, a hub is not",
		    test_ftree_turns_graph);
	CU_add_test(s, "islands: each routed alone", test_ftree_islands);
	CU_add_test(s, "leaves cabled together: not a tree", test_ftree_leaf_to_leaf);
}
