/*
 * test_vlsp.c - unit tests for the vlsp engine (routing/vlsp.c) and its
 * layers (routing/vlsp_layer.c): hand-made trees with known cycles on a
 * ring and a line; the engine on rings, lines, tori and meshes, judged by
 * the VL-aware gate and the scorer (every pair routed, shortest paths,
 * layers within the VLs the ports offer).
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/check.h"
#include "routing/route.h"
#include "routing/score.h"
#include "routing/swgraph.h"
#include "routing/vlsp.h"
#include "routing/vlsp_layer.h"
#include "routing/vlsp_nue.h"
#include "tests/unit/route_test.h"
#include "tests/unit/unit.h"

/* ---- Fabrics ------------------------------------------------------------ */

/* Every port present (as a sweep would find them; state 0 counts as up). */
static void vlsp_present(struct fabric *f)
{
	for (size_t i = 0; i < f->n_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i].num_ports; p++)
			f->nodes[i].ports[p].present = 1;
}

/* n switches in a line (switch i port 2 to switch i+1 port 3), closed into
 * a ring when ring is set; a host on port 1 of each when hosts is set. */
static void vlsp_chain(struct fabric *f, int n, int ring, int hosts)
{
	fabric_init(f);
	for (int i = 0; i < n; i++)
		route_test_add_sw(f, 8);
	for (int i = 0; i + 1 < n + (ring != 0); i++)
		CU_ASSERT_EQUAL(fabric_link(f, i, 2, (i + 1) % n, 3), 0);
	for (int i = 0; i < n && hosts; i++)
		route_test_add_host(f, i, 1);
	vlsp_present(f);
}

static void vlsp_vl_caps(struct fabric *f, uint8_t vl_cap)
{
	for (size_t i = 0; i < f->n_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i].num_ports; p++)
			f->nodes[i].ports[p].vl_cap = vl_cap;
}

/* ---- Layers on hand-made trees ------------------------------------------ */

struct vlsp_rig {
	struct fabric f;
	struct swgraph g;
	struct vlsp_layers ls;
	uint32_t up[8];
	int order[8];
	struct vlsp_tree tree;
};

static void vlsp_rig_init(struct vlsp_rig *r, int n, int ring, const uint32_t *fixed_ord)
{
	vlsp_chain(&r->f, n, ring, 0);
	CU_ASSERT_EQUAL_FATAL(swgraph_init(&r->g, &r->f, 0), 0);
	CU_ASSERT_EQUAL_FATAL(vlsp_layers_init(&r->ls, &r->g, fixed_ord), 0);
}

static void vlsp_rig_fini(struct vlsp_rig *r)
{
	vlsp_layers_fini(&r->ls);
	swgraph_fini(&r->g);
	fabric_fini(&r->f);
}

/* The channel from switch a to switch b. */
static uint32_t vlsp_chan(const struct vlsp_rig *r, int a, int b)
{
	for (size_t e = r->g.adj_start[a]; e < r->g.adj_start[a + 1]; e++)
		if (r->g.adj[e].sw == b)
			return (uint32_t)e;
	CU_FAIL_FATAL("no such cable");
	return VLSP_LAYER_NONE;
}

/* The tree to switch j of a ring of 4 when paths two hops long go one
 * way round: j+1 and j-1 send to j, j+2 sends through j+1. */
static const struct vlsp_tree *vlsp_ring4_tree(struct vlsp_rig *r, int j)
{
	int a = (j + 1) % 4, b = (j + 3) % 4, c = (j + 2) % 4;

	r->order[0] = j;
	r->order[1] = a;
	r->order[2] = b;
	r->order[3] = c;
	r->up[j] = VLSP_LAYER_NONE;
	r->up[a] = vlsp_chan(r, a, j);
	r->up[b] = vlsp_chan(r, b, j);
	r->up[c] = vlsp_chan(r, c, a);
	r->tree = (struct vlsp_tree){r->order, 4, r->up, NULL};
	return &r->tree;
}

/* The one tree to switch j of a line of n: everyone sends towards j. */
static const struct vlsp_tree *vlsp_line_tree(struct vlsp_rig *r, int n, int j)
{
	size_t k = 0;

	r->order[k++] = j;
	r->up[j] = VLSP_LAYER_NONE;
	for (int d = 1; d < n; d++) {
		if (j - d >= 0) {
			r->order[k++] = j - d;
			r->up[j - d] = vlsp_chan(r, j - d, j - d + 1);
		}
		if (j + d < n) {
			r->order[k++] = j + d;
			r->up[j + d] = vlsp_chan(r, j + d, j + d - 1);
		}
	}
	r->tree = (struct vlsp_tree){r->order, k, r->up, NULL};
	return &r->tree;
}

/* A ring of 4 with every two-hop path one way round: the four trees'
 * turns close the cycle 3->2->1->0->3, so the fourth does not fit on the
 * first layer (which is left as it was) and needs a second: 2 layers. */
static void test_vlsp_layers_ring(void)
{
	struct vlsp_rig r;

	vlsp_rig_init(&r, 4, 1, NULL);
	CU_ASSERT_EQUAL_FATAL(vlsp_layers_add_layer(&r.ls, 0), 0);
	for (int j = 0; j < 3; j++)
		CU_ASSERT_EQUAL(vlsp_layers_add(&r.ls, 0, vlsp_ring4_tree(&r, j)), 0);
	CU_ASSERT_TRUE(vlsp_layers_has(&r.ls, 0, vlsp_chan(&r, 2, 1), vlsp_chan(&r, 1, 0)));
	CU_ASSERT_EQUAL(vlsp_layers_add(&r.ls, 0, vlsp_ring4_tree(&r, 3)), 1);
	CU_ASSERT_FALSE(vlsp_layers_has(&r.ls, 0, vlsp_chan(&r, 1, 0), vlsp_chan(&r, 0, 3)));
	CU_ASSERT_EQUAL(vlsp_layers_add(&r.ls, 0, vlsp_ring4_tree(&r, 0)),
			0); /* again: no change */
	CU_ASSERT_EQUAL_FATAL(vlsp_layers_add_layer(&r.ls, 0), 1);
	CU_ASSERT_EQUAL(vlsp_layers_add(&r.ls, 1, vlsp_ring4_tree(&r, 3)), 0);
	CU_ASSERT_TRUE(vlsp_layers_has(&r.ls, 1, vlsp_chan(&r, 1, 0), vlsp_chan(&r, 0, 3)));
	vlsp_rig_fini(&r);
}

/* Many trees at once (ftree's VL merge): the ring of 4's trees to 0, 1
 * and 2 put on a layer and sorted: an order in which their turns are
 * safe, the fourth tree refused as by vlsp_layers_add; all four put on
 * another layer: the sort finds their cycle. */
static void test_vlsp_layers_put_sort(void)
{
	struct vlsp_rig r;

	vlsp_rig_init(&r, 4, 1, NULL);
	CU_ASSERT_EQUAL_FATAL(vlsp_layers_add_layer(&r.ls, 0), 0);
	CU_ASSERT_EQUAL_FATAL(vlsp_layers_add_layer(&r.ls, 0), 1);
	for (int j = 0; j < 3; j++)
		vlsp_layers_put(&r.ls, 0, vlsp_ring4_tree(&r, j));
	CU_ASSERT_EQUAL(vlsp_layers_sort(&r.ls, 0), 0);
	CU_ASSERT_TRUE(vlsp_layers_has(&r.ls, 0, vlsp_chan(&r, 2, 1), vlsp_chan(&r, 1, 0)));
	/* the order follows every turn put */
	CU_ASSERT_TRUE(r.ls.layer[0].ord[vlsp_chan(&r, 3, 2)] < r.ls.layer[0].ord[vlsp_chan(&r, 2, 1)]);
	CU_ASSERT_TRUE(r.ls.layer[0].ord[vlsp_chan(&r, 2, 1)] < r.ls.layer[0].ord[vlsp_chan(&r, 1, 0)]);
	CU_ASSERT_EQUAL(vlsp_layers_add(&r.ls, 0, vlsp_ring4_tree(&r, 1)), 0);
	CU_ASSERT_EQUAL(vlsp_layers_add(&r.ls, 0, vlsp_ring4_tree(&r, 3)), 1);
	for (int j = 0; j < 4; j++)
		vlsp_layers_put(&r.ls, 1, vlsp_ring4_tree(&r, j));
	CU_ASSERT_EQUAL(vlsp_layers_sort(&r.ls, 1), 1);
	vlsp_rig_fini(&r);
}

/* A line has no cycle: every destination's tree on one layer. */
static void test_vlsp_layers_line(void)
{
	struct vlsp_rig r;

	vlsp_rig_init(&r, 5, 0, NULL);
	CU_ASSERT_EQUAL_FATAL(vlsp_layers_add_layer(&r.ls, 0), 0);
	for (int j = 0; j < 5; j++)
		CU_ASSERT_EQUAL(vlsp_layers_add(&r.ls, 0, vlsp_line_tree(&r, 5, j)), 0);
	CU_ASSERT_EQUAL(r.ls.n, 1);
	vlsp_rig_fini(&r);
}

/* A fixed layer never reorders: a turn against its order is refused even
 * without a cycle, a free layer takes it; "safe" says which is which. */
static void test_vlsp_layers_fixed(void)
{
	struct vlsp_rig r;
	uint32_t in, out;

	vlsp_rig_init(&r, 4, 0, NULL); /* fixed order: channel numbers */
	CU_ASSERT_EQUAL_FATAL(vlsp_layers_add_layer(&r.ls, 1), 0);
	CU_ASSERT_EQUAL_FATAL(vlsp_layers_add_layer(&r.ls, 0), 1);
	in = vlsp_chan(&r, 2, 1); /* switch 2's channels come after switch 1's */
	out = vlsp_chan(&r, 1, 0);
	CU_ASSERT_FALSE(vlsp_layers_safe(&r.ls, 0, in, out));
	CU_ASSERT_EQUAL(vlsp_layers_add(&r.ls, 0, vlsp_line_tree(&r, 4, 0)), 1);
	CU_ASSERT_EQUAL(vlsp_layers_add(&r.ls, 1, vlsp_line_tree(&r, 4, 0)), 0);
	CU_ASSERT_TRUE(vlsp_layers_safe(&r.ls, 1, in, out)); /* it has the turn now */
	CU_ASSERT_TRUE(vlsp_layers_safe(&r.ls, 0, vlsp_chan(&r, 0, 1), vlsp_chan(&r, 1, 2)));
	CU_ASSERT_EQUAL(vlsp_layers_add(&r.ls, 0, vlsp_line_tree(&r, 4, 3)), 0);
	vlsp_rig_fini(&r);
}

/* ---- Trees grown turn by turn (vlsp_nue.c) -------------------------------- */

/* Put the turns a -> b -> c and b -> c -> d (switches) on layer l. */
static void vlsp_turns(struct vlsp_rig *r, unsigned l, int a, int b, int c, int d)
{
	CU_ASSERT_EQUAL(vlsp_layers_turn(&r->ls, l, vlsp_chan(r, a, b), vlsp_chan(r, b, c)), 0);
	CU_ASSERT_EQUAL(vlsp_layers_turn(&r->ls, l, vlsp_chan(r, b, c), vlsp_chan(r, c, d)), 0);
}

/* Grow the tree to switch t of rig r (n switches) on layer 0. */
static int vlsp_grow(struct vlsp_rig *r, size_t n, int t, const uint64_t *weight)
{
	uint32_t load[64] = {0};
	uint64_t cost[8];
	struct vlsp_nue h;
	struct vlsp_nue_in in = {&r->ls, 0, weight, load, NULL};
	int rc;

	CU_ASSERT_FATAL(r->g.port_base[r->g.n_sw] <= 64);
	CU_ASSERT_EQUAL_FATAL(vlsp_nue_init(&h, &r->g), 0);
	rc = vlsp_nue_tree(&h, &in, t, n, r->up, cost, r->order);
	vlsp_nue_fini(&h);
	return rc;
}

/* A ring of 4 whose layer 0 has the trees to switches 0, 1 and 2 with
 * every two-hop path one way round. */
static void vlsp_ring4_three(struct vlsp_rig *r)
{
	vlsp_rig_init(r, 4, 1, NULL);
	CU_ASSERT_EQUAL_FATAL(vlsp_layers_add_layer(&r->ls, 0), 0);
	for (int j = 0; j < 3; j++)
		CU_ASSERT_EQUAL(vlsp_layers_add(&r->ls, 0, vlsp_ring4_tree(r, j)), 0);
}

/* Ring of 4, three trees one way round on layer 0: the tree to switch 3
 * would send 1 -> 0 -> 3 (channel 1 -> 2 weighs more), a turn that
 * closes the cycle, so switch 1 takes the other way, 1 -> 2 -> 3. */
static void test_vlsp_grow_turn_refused(void)
{
	uint64_t weight[8] = {0};
	struct vlsp_rig r;

	vlsp_ring4_three(&r);
	weight[vlsp_chan(&r, 1, 2)] = 5;
	CU_ASSERT_EQUAL(vlsp_grow(&r, 4, 3, weight), 0);
	CU_ASSERT_EQUAL(r.order[0], 3);
	CU_ASSERT_EQUAL(r.up[3], VLSP_LAYER_NONE);
	CU_ASSERT_EQUAL(r.up[1], vlsp_chan(&r, 1, 2));
	CU_ASSERT_TRUE(vlsp_layers_has(&r.ls, 0, vlsp_chan(&r, 1, 2), vlsp_chan(&r, 2, 3)));
	CU_ASSERT_FALSE(vlsp_layers_has(&r.ls, 0, vlsp_chan(&r, 1, 0), vlsp_chan(&r, 0, 3)));
	vlsp_rig_fini(&r);
}

/* Ring of 4 with both of switch 1's ways to switch 3 closing a cycle:
 * no tree, and the layer keeps only the turns it had. */
static void test_vlsp_grow_fails(void)
{
	uint64_t weight[8] = {0};
	struct vlsp_rig r;

	vlsp_ring4_three(&r);
	vlsp_turns(&r, 0, 2, 3, 0, 1); /* 2->3, 3->0, 0->1 */
	CU_ASSERT_EQUAL(vlsp_layers_turn(&r.ls, 0, vlsp_chan(&r, 0, 1), vlsp_chan(&r, 1, 2)), 0);
	/* and the turn that would close it is refused, the layer unchanged */
	CU_ASSERT_EQUAL(vlsp_layers_turn(&r.ls, 0, vlsp_chan(&r, 1, 2), vlsp_chan(&r, 2, 3)), 1);
	CU_ASSERT_FALSE(vlsp_layers_has(&r.ls, 0, vlsp_chan(&r, 1, 2), vlsp_chan(&r, 2, 3)));
	CU_ASSERT_EQUAL(vlsp_grow(&r, 4, 3, weight), 1);
	CU_ASSERT_FALSE(vlsp_layers_has(&r.ls, 0, vlsp_chan(&r, 1, 2), vlsp_chan(&r, 2, 3)));
	CU_ASSERT_FALSE(vlsp_layers_has(&r.ls, 0, vlsp_chan(&r, 1, 0), vlsp_chan(&r, 0, 3)));
	vlsp_rig_fini(&r);
}

/* Ring of 5, the turns 1->0->4->3->2->1 on the layer: switch 2's
 * shortest way to switch 0 (2 -> 1 -> 0) would close the cycle, so it
 * goes the long way round, 2 -> 3 -> 4 -> 0, three hops. */
static void test_vlsp_grow_detour(void)
{
	uint64_t weight[10] = {0};
	struct vlsp_rig r;

	vlsp_rig_init(&r, 5, 1, NULL);
	CU_ASSERT_EQUAL_FATAL(vlsp_layers_add_layer(&r.ls, 0), 0);
	vlsp_turns(&r, 0, 1, 0, 4, 3);
	vlsp_turns(&r, 0, 4, 3, 2, 1);
	CU_ASSERT_EQUAL(vlsp_grow(&r, 5, 0, weight), 0);
	CU_ASSERT_EQUAL(r.up[2], vlsp_chan(&r, 2, 3));
	CU_ASSERT_EQUAL(r.up[3], vlsp_chan(&r, 3, 4));
	CU_ASSERT_EQUAL(r.up[1], vlsp_chan(&r, 1, 0));
	CU_ASSERT_EQUAL(r.order[4], 2); /* the last to join */
	vlsp_rig_fini(&r);
}

/* ---- The engine --------------------------------------------------------- */

/* The scorer's per-VL figures add up to its totals, and each VL's
 * endpoints are those whose LID has that SL (with an SL per path: those
 * some path to them rides it, so each counts on one VL or more). */
static void vlsp_vl_scores_add_up(const struct lft_set *s, const struct route_score *sc)
{
	size_t ends = 0;
	uint64_t routed = 0;

	CU_ASSERT_TRUE(sc->n_vls <= s->n_vls); /* a VL may hold switch LIDs only */
	for (unsigned v = 0; v < sc->n_vls; v++) {
		ends += sc->vl[v].endpoints;
		routed += sc->vl[v].pairs_routed;
		CU_ASSERT_TRUE(sc->vl[v].efi_switch_max <= sc->efi_switch.max);
	}
	if (s->path_sl) {
		CU_ASSERT_TRUE(ends >= sc->endpoints && ends <= sc->endpoints * sc->n_vls);
	} else {
		CU_ASSERT_EQUAL(ends, sc->endpoints);
	}
	CU_ASSERT_EQUAL(routed, sc->pairs_routed);
}

/* Route f with vlsp; the gate (with the SLs) must pass and every endpoint
 * pair be routed.  Fills the score (no shifts or bisections). */
static void vlsp_route_ok(const struct fabric *f, uint16_t max, struct lft_set *s,
			  struct route_score *sc)
{
	struct score_opts o;

	score_opts_default(&o);
	o.shifts = 0;
	o.bisections = 0;
	lft_set_init(s);
	CU_ASSERT_EQUAL_FATAL(route_test_run(&route_engine_vlsp, f, max, NULL, 0, s, NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s->sl);
	CU_ASSERT_EQUAL_FATAL(score_run(f, s, &o, sc), 0);
	if (sc->gate_rc)
		fprintf(stderr, "\n    gate: %s\n", sc->check.first);
	CU_ASSERT_EQUAL(sc->gate_rc, 0);
	CU_ASSERT_EQUAL(sc->pairs_routed, sc->pairs);
	CU_ASSERT_EQUAL(sc->check.n_vls, s->n_vls);
	vlsp_vl_scores_add_up(s, sc);
}

static void vlsp_done(struct fabric *f, struct lft_set *s)
{
	lft_set_fini(s);
	fabric_fini(f);
}

/* A line or ring of five switches with a host each, its ports offering
 * VLCap vl_cap (0: not known), routed by vlsp_route_ok; returns max LID. */
static uint16_t vlsp_chain_routed(struct fabric *f, int ring, uint8_t vl_cap, struct lft_set *s,
				  struct route_score *sc)
{
	uint16_t max;

	vlsp_chain(f, 5, ring, 1);
	max = route_test_assign_lids(f, 0);
	vlsp_vl_caps(f, vl_cap);
	vlsp_route_ok(f, max, s, sc);
	return max;
}

/* A line needs one VL; a ring of five on shortest paths needs two (each
 * two-hop path has one way, and they turn all round the ring): so one
 * run, the usual way.  The engine, which measures, keeps one VL there (a
 * detour, more EBB for its 5 hosts); the gate passes either way. */
static void test_vlsp_line_and_ring(void)
{
	struct route_score sc;
	struct route_opts opts;
	struct fabric f;
	struct lft_set s;
	char err[256] = "";
	uint16_t max;

	vlsp_chain_routed(&f, 0, 0, &s, &sc);
	CU_ASSERT_EQUAL(s.n_vls, 1);
	vlsp_done(&f, &s);
	max = vlsp_chain_routed(&f, 1, 0, &s, &sc);
	CU_ASSERT_EQUAL(s.n_vls, 1);
	CU_ASSERT_EQUAL(sc.stretch_max, 1);
	lft_set_fini(&s);
	opts = (struct route_opts){.max_lid = max};
	lft_set_init(&s);
	CU_ASSERT_EQUAL_FATAL(vlsp_route(&f, &opts, 1, 0, &s, NULL, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(s.n_vls, 2);
	vlsp_done(&f, &s);
}

/* Ports offering one data VL: the ring of five still passes the gate, on
 * VL0 alone, some paths going round the long way (up-star/down-star). */
static void test_vlsp_one_vl(void)
{
	struct route_score sc;
	struct fabric f;
	struct lft_set s;
	uint16_t max = vlsp_chain_routed(&f, 1, 1, &s, &sc);

	CU_ASSERT_EQUAL(s.n_vls, 1);
	for (uint16_t lid = 0; lid <= max; lid++)
		CU_ASSERT_EQUAL(s.sl[lid], 0);
	CU_ASSERT_TRUE(sc.stretch_max > 0);
	vlsp_done(&f, &s);
}

/* A 5x5 torus (its rings of five have one shortest way for each pair):
 * all shortest, on 2 to 8 VLs (8: unknown VLCap); the same again gives
 * the same tables and SLs; with 2 VLs still routed. */
static void test_vlsp_torus(void)
{
	struct route_score sc;
	struct fabric f;
	struct lft_set s, again;
	uint16_t max;

	route_test_torus(&f, 5, 5);
	vlsp_present(&f);
	max = route_test_assign_lids(&f, 0);
	vlsp_route_ok(&f, max, &s, &sc);
	CU_ASSERT_TRUE(s.n_vls >= 2 && s.n_vls <= 8);
	CU_ASSERT_EQUAL(sc.stretch_max, 0);
	vlsp_route_ok(&f, max, &again, &sc);
	CU_ASSERT_EQUAL_FATAL(again.n, s.n);
	for (size_t i = 0; i < s.n; i++)
		CU_ASSERT_EQUAL(memcmp(s.tables[i].port, again.tables[i].port, max + 1u), 0);
	CU_ASSERT_EQUAL(memcmp(s.sl, again.sl, max + 1u), 0);
	lft_set_fini(&again);
	lft_set_fini(&s);
	vlsp_vl_caps(&f, 2);
	vlsp_route_ok(&f, max, &s, &sc);
	CU_ASSERT_TRUE(s.n_vls <= 2);
	vlsp_done(&f, &s);
}

/* Random meshes (several seeds), hosts with LMC 1 (each LID its own
 * tree): the gate passes with 8, 4 and 1 VLs; never more VLs than
 * offered. */
static void test_vlsp_meshes(void)
{
	static const uint8_t caps[] = {4, 3, 1};

	for (uint32_t seed = 1; seed <= 3; seed++) {
		for (size_t c = 0; c < sizeof(caps); c++) {
			struct route_score sc;
			struct fabric f;
			struct lft_set s;
			uint16_t lid = 0;

			route_test_mesh(&f, 24, 30, seed);
			vlsp_present(&f);
			for (size_t i = 0; i < f.n_nodes; i++) {
				struct fabric_port *p =
				    &f.nodes[i].ports[fabric_is_switch(&f.nodes[i]) ? 0 : 1];

				p->lid = (uint16_t)(lid + 1);
				p->lmc = fabric_is_switch(&f.nodes[i]) ? 0 : 1;
				lid = (uint16_t)(lid + fabric_port_lid_count(p));
			}
			vlsp_vl_caps(&f, caps[c]);
			vlsp_route_ok(&f, lid, &s, &sc);
			CU_ASSERT_TRUE(s.n_vls <= fabric_port_data_vls(&f.nodes[0].ports[1]));
			vlsp_done(&f, &s);
		}
	}
}

/* EBB (200 bisections) of engine e's tables on f, which must pass the
 * gate with every pair routed; vlsp on one VL: its note ends in tail. */
static double vlsp_ebb(const struct route_engine *e, const struct fabric *f, uint16_t max,
		       const char *tail)
{
	struct route_note note;
	struct route_score sc;
	struct score_opts o;
	struct lft_set s;

	score_opts_default(&o);
	o.shifts = 0;
	o.bisections = 200;
	lft_set_init(&s);
	CU_ASSERT_EQUAL_FATAL(route_test_run(e, f, max, NULL, 0, &s, &note), 0);
	if (tail) {
		size_t n = strlen(note.text), k = strlen(tail);

		CU_ASSERT_TRUE(n >= k && !strcmp(note.text + n - k, tail));
	}
	CU_ASSERT_EQUAL_FATAL(score_run(f, &s, &o, &sc), 0);
	CU_ASSERT_EQUAL(sc.gate_rc, 0);
	CU_ASSERT_EQUAL(sc.pairs_routed, sc.pairs);
	lft_set_fini(&s);
	return sc.ebb_mean;
}

/* One data VL: the one layer starts with the BFS tree's turns and takes
 * trees grown turn by turn (detours allowed), so on a 6x6 torus and a
 * random mesh it spreads the load clearly better than up-star/down-star
 * routing (updn; what vlsp did on one VL before). */
static void test_vlsp_one_vl_grown(void)
{
	for (int k = 0; k < 2; k++) {
		struct fabric f;
		uint16_t max;
		double ebb, updn;

		if (k == 0)
			route_test_torus(&f, 6, 6);
		else
			route_test_mesh(&f, 24, 30, 2);
		vlsp_present(&f);
		max = route_test_assign_lids(&f, 0);
		vlsp_vl_caps(&f, 1);
		ebb = vlsp_ebb(&route_engine_vlsp, &f, max, "; grown trees)");
		updn = vlsp_ebb(&route_engine_updn, &f, max, NULL);
		fprintf(stderr, " [%s: vlsp %.4f updn %.4f]", k ? "mesh" : "torus", ebb, updn);
		CU_ASSERT_TRUE(ebb > updn * 1.03);
		fabric_fini(&f);
	}
}

/* More destinations than the free layers hold on shortest paths (a
 * random mesh of 64 switches, 2 VLs: 1 free, 1 escape): those that no
 * free layer takes whole take detours on one rather than up-star/down-
 * star trees on the escape VL, and the load spreads better than updn's
 * by a wide margin. */
static void test_vlsp_detours(void)
{
	struct fabric f;
	uint16_t max;
	double ebb, updn;

	route_test_mesh(&f, 64, 130, 1);
	vlsp_present(&f);
	max = route_test_assign_lids(&f, 0);
	vlsp_vl_caps(&f, 2);
	ebb = vlsp_ebb(&route_engine_vlsp, &f, max, NULL);
	updn = vlsp_ebb(&route_engine_updn, &f, max, NULL);
	fprintf(stderr, " [vlsp %.4f updn %.4f]", ebb, updn);
	CU_ASSERT_TRUE(ebb > updn * 1.10);
	fabric_fini(&f);
}

/* One data VL on a bigger mesh (128 switches, 448 hosts), routed the
 * usual way alone (vlsp_route with one way; the engine tries more on a
 * fabric this small, and keeps another): the seeded layer soon has more
 * than 5% of the LIDs placed on the BFS tree alone, so it gives up (its
 * work grows fast with the fabric: on a 2500-switch mesh it took
 * minutes) and the run routes again with an up-star/down-star layer: the
 * note says so, and the tables pass. */
static void test_vlsp_one_vl_gives_up(void)
{
	struct route_opts opts;
	struct route_note note;
	struct route_score sc;
	struct score_opts o;
	struct lft_set s;
	struct fabric f;
	char err[256] = "";
	uint16_t max;

	score_opts_default(&o);
	o.shifts = 0;
	o.bisections = 0;

	route_test_mesh(&f, 128, 250, 1);
	for (int i = 0; i < 128; i++) /* 3 or 4 hosts a switch, as nanosm-gen's */
		for (uint8_t port = (uint8_t)(i % 2 ? 1 : 2); port <= 3; port++)
			route_test_add_host(&f, i, port);
	vlsp_present(&f);
	max = route_test_assign_lids(&f, 0);
	vlsp_vl_caps(&f, 1);
	opts = (struct route_opts){.max_lid = max};
	lft_set_init(&s);
	CU_ASSERT_EQUAL_FATAL(vlsp_route(&f, &opts, 1, 0, &s, &note, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(note.text, "; up*/down*: the grown trees gave up)"));
	CU_ASSERT_EQUAL(score_run(&f, &s, &o, &sc), 0);
	CU_ASSERT_EQUAL(sc.gate_rc, 0);
	CU_ASSERT_EQUAL(sc.pairs_routed, sc.pairs);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* Errors: max_lid beyond unicast; a LID above max_lid names the port. */
static void test_vlsp_errors(void)
{
	struct route_opts opts = {.max_lid = 0xC000};
	struct fabric f;
	struct lft_set s;
	char err[256];

	vlsp_chain(&f, 2, 0, 1);
	route_test_assign_lids(&f, 0);
	lft_set_init(&s);
	CU_ASSERT_EQUAL(route_engine_vlsp.compute(&f, &opts, &s, NULL, err, sizeof(err)), -EINVAL);
	opts.max_lid = 2;
	CU_ASSERT_EQUAL(route_engine_vlsp.compute(&f, &opts, &s, NULL, err, sizeof(err)), -ERANGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "above max_lid 2"));
	CU_ASSERT_PTR_NULL(s.tables);
	CU_ASSERT_PTR_NULL(s.sl);
	fabric_fini(&f);
}

void test_vlsp_register(void)
{
	CU_pSuite s = CU_add_suite("vlsp", NULL, NULL);

	CU_add_test(s, "layers: ring of 4, one way round: 2 layers", test_vlsp_layers_ring);
	CU_add_test(s, "layers: a line fits one layer", test_vlsp_layers_line);
	CU_add_test(s, "layers: trees put at once, then sorted (or a cycle found)",
		    test_vlsp_layers_put_sort);
	CU_add_test(s, "layers: a fixed layer keeps its order", test_vlsp_layers_fixed);
	CU_add_test(s, "grown tree: a refused turn, the other way", test_vlsp_grow_turn_refused);
	CU_add_test(s, "grown tree: no way fits, layer unchanged", test_vlsp_grow_fails);
	CU_add_test(s, "grown tree: the long way round a ring", test_vlsp_grow_detour);
	CU_add_test(s, "line 1 VL; ring of five: 2 VLs shortest, the engine 1",
		    test_vlsp_line_and_ring);
	CU_add_test(s, "one data VL: deadlock-free on VL0", test_vlsp_one_vl);
	CU_add_test(s, "5x5 torus: shortest, deterministic, 2 VLs", test_vlsp_torus);
	CU_add_test(s, "random meshes, LMC 1, 8/4/1 VLs", test_vlsp_meshes);
	CU_add_test(s, "one data VL: grown trees beat updn", test_vlsp_one_vl_grown);
	CU_add_test(s, "64-switch mesh on 2 VLs: detours", test_vlsp_detours);
	CU_add_test(s, "one data VL, 128 switches: gives up the seed", test_vlsp_one_vl_gives_up);
	CU_add_test(s, "errors", test_vlsp_errors);
}
