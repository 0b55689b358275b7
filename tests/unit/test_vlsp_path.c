/*
 * test_vlsp_path.c - unit tests for an SL per path (routing/vlsp_path.c,
 * lft_set.path_sl in routing/fabric.c, the gate's routing/check_path.c
 * and the scorer's routing/score_path.c): on a 6x6 torus the engine's
 * paths fit fewer VLs one by one than destination by destination; a
 * reference check rebuilds each VL's channel dependencies path by path and
 * finds no cycle; the gate passes them and refuses the same routes all on
 * SL 0 or over ports that lack a VL.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/check.h"
#include "routing/route.h"
#include "routing/score.h"
#include "routing/vlsp.h"
#include "routing/vlsp_path.h"
#include "tests/unit/route_test.h"
#include "tests/unit/unit.h"

#define VP_PORTS 16 /* channel = node * VP_PORTS + out port */

/* The 6x6 torus (a host per switch), its LIDs, and vlsp's tables. */
static uint16_t vp_torus(struct fabric *f, struct lft_set *out, struct route_note *note)
{
	uint16_t max_lid;

	route_test_torus(f, 6, 6);
	for (size_t i = 0; i < f->n_nodes; i++) /* as a sweep finds them */
		for (unsigned p = 0; p <= f->nodes[i].num_ports; p++)
			f->nodes[i].ports[p].present = 1;
	max_lid = route_test_assign_lids(f, 0);
	CU_ASSERT_EQUAL_FATAL(route_test_run(&route_engine_vlsp, f, max_lid, NULL, 0, out, note),
			      0);
	return max_lid;
}

/* Reference: each VL's channel dependencies rebuilt from every (switch,
 * LID) path and its own SL (lft_set_sl_from), searched for a cycle by a
 * plain DFS.  Returns the VL of a cycle, or -1. */
struct vp_cdg {
	size_t n;
	uint8_t *dep; /* [vl][a][b] */
	uint8_t *color;
};

static int vp_dfs(struct vp_cdg *g, unsigned v, size_t a)
{
	g->color[a] = 1;
	for (size_t b = 0; b < g->n; b++) {
		if (!g->dep[(v * g->n + a) * g->n + b])
			continue;
		if (g->color[b] == 1 || (!g->color[b] && vp_dfs(g, v, b)))
			return 1;
	}
	g->color[a] = 2;
	return 0;
}

static int vp_reference_cycle(const struct fabric *f, const struct lft_set *s, uint16_t max_lid)
{
	struct vp_cdg g = {.n = f->n_nodes * VP_PORTS};
	int path[64], found = -1;
	uint8_t out[64];

	g.dep = calloc(16 * g.n * g.n, 1);
	g.color = calloc(g.n, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g.dep);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g.color);
	for (size_t sw = 0; sw < f->n_nodes; sw++) {
		if (!fabric_is_switch(&f->nodes[sw]))
			continue;
		for (uint16_t d = 1; d <= max_lid; d++) {
			int hops = route_test_follow(f, s, (int)sw, d, 64, path, out);
			unsigned v = lft_set_sl_from(s, (int)sw, d);

			CU_ASSERT_TRUE(v < 16);
			/* channel h: switch path[h] out of port out[h] */
			for (int h = 0; h < hops && v < 16; h++) {
				size_t a = (size_t)path[h] * VP_PORTS + out[h];
				size_t b = (size_t)path[h + 1] * VP_PORTS + out[h + 1];

				g.dep[(v * g.n + a) * g.n + b] = 1;
			}
		}
	}
	for (unsigned v = 0; v < 16 && found < 0; v++) {
		memset(g.color, 0, g.n);
		for (size_t a = 0; a < g.n && found < 0; a++)
			if (!g.color[a] && vp_dfs(&g, v, a))
				found = (int)v;
	}
	free(g.dep);
	free(g.color);
	return found;
}

/* How many DLIDs have paths on two SLs or more. */
static unsigned vp_mixed(const struct fabric *f, const struct lft_set *s, uint16_t max_lid)
{
	unsigned n = 0;

	for (uint16_t d = 1; d <= max_lid; d++) {
		int first = -1, mixed = 0;

		for (size_t sw = 0; sw < f->n_nodes; sw++)
			if (fabric_is_switch(&f->nodes[sw])) {
				int v = lft_set_sl_from(s, (int)sw, d);

				mixed |= first >= 0 && v != first;
				first = first < 0 ? v : first;
			}
		n += (unsigned)mixed;
	}
	return n;
}

static void test_vlsp_path_torus(void)
{
	struct fabric f;
	struct lft_set s, one;
	struct route_note note;
	struct route_check res;
	uint16_t max_lid = vp_torus(&f, &s, &note);

	/* fewer VLs than one SL per destination took, said in the note */
	CU_ASSERT_PTR_NOT_NULL_FATAL(s.path_sl);
	CU_ASSERT_PTR_NOT_NULL(strstr(note.text, "an SL per path"));
	CU_ASSERT_TRUE(s.n_vls >= 2);
	CU_ASSERT_TRUE(vp_mixed(&f, &s, max_lid) > 0);
	/* the reference finds no cycle on any VL, and the gate agrees */
	CU_ASSERT_EQUAL(vp_reference_cycle(&f, &s, max_lid), -1);
	CU_ASSERT_EQUAL(route_check_run(&f, &s, NULL, &res), 0);
	CU_ASSERT_EQUAL(res.n_vls, s.n_vls);
	CU_ASSERT_FALSE(res.credit_loop);
	/* the same routes all on SL 0: a cycle, and the gate names it */
	lft_set_init(&one);
	CU_ASSERT_EQUAL_FATAL(lft_set_copy(&one, &s), 0);
	memset(one.path_sl, 0, one.n * ((size_t)one.sl_top + 1));
	CU_ASSERT_EQUAL(vp_reference_cycle(&f, &one, max_lid), 0);
	CU_ASSERT_NOT_EQUAL(route_check_run(&f, &one, NULL, &res), 0);
	CU_ASSERT_TRUE(res.credit_loop);
	CU_ASSERT_EQUAL(res.credit_loop_vl, 0);
	lft_set_fini(&one);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* Ports that offer VL0-1 only, paths on SL 2: refused, the SL named. */
static void test_vlsp_path_vl_missing(void)
{
	struct fabric f;
	struct lft_set s;
	struct route_check res;

	vp_torus(&f, &s, NULL);
	CU_ASSERT_TRUE_FATAL(s.path_sl && s.n_vls >= 3);
	for (size_t i = 0; i < f.n_nodes; i++)
		for (unsigned p = 0; p <= f.nodes[i].num_ports; p++)
			f.nodes[i].ports[p].vl_cap = 2;
	CU_ASSERT_NOT_EQUAL(route_check_run(&f, &s, NULL, &res), 0);
	CU_ASSERT_TRUE(res.vl_missing > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(res.first, "on SL 2"));
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* The scorer counts each pair on its path's VL. */
static void test_vlsp_path_score(void)
{
	struct fabric f;
	struct lft_set s;
	struct score_opts o;
	struct route_score r;
	uint64_t sum = 0;
	unsigned on = 0;

	vp_torus(&f, &s, NULL);
	score_opts_default(&o);
	o.bisections = 10;
	CU_ASSERT_EQUAL_FATAL(score_run(&f, &s, &o, &r), 0);
	CU_ASSERT_EQUAL(r.n_vls, s.n_vls);
	for (unsigned v = 0; v < r.n_vls; v++) {
		sum += r.vl[v].pairs_routed;
		on += r.vl[v].pairs_routed > 0;
	}
	CU_ASSERT_EQUAL(sum, r.pairs_routed);
	CU_ASSERT_EQUAL(on, s.n_vls);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* Copy, compare, the bound, the source's switch. */
static void test_vlsp_path_lft_set(void)
{
	struct fabric f;
	struct lft_set s, c, big;
	int host, sw;

	vp_torus(&f, &s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s.path_sl);
	lft_set_init(&c);
	CU_ASSERT_EQUAL_FATAL(lft_set_copy(&c, &s), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c.path_sl);
	CU_ASSERT_EQUAL(memcmp(c.path_sl, s.path_sl, s.n * ((size_t)s.sl_top + 1)), 0);
	CU_ASSERT_FALSE(lft_set_sls_differ(&c, &s));
	c.path_sl[3 * ((size_t)c.sl_top + 1) + 5] ^= 1; /* one path of one switch */
	CU_ASSERT_TRUE(lft_set_sls_differ(&c, &s));
	lft_set_fini(&c);
	/* a host's paths enter at its switch */
	for (host = 0; fabric_is_switch(&f.nodes[host]); host++)
		;
	sw = fabric_entry_switch(&f, host, 1);
	CU_ASSERT_EQUAL(sw, f.nodes[host].ports[1].remote_node);
	CU_ASSERT_EQUAL(fabric_entry_switch(&f, sw, 0), sw);
	CU_ASSERT_EQUAL(fabric_entry_switch(&f, host, 2), FABRIC_NONE);
	for (uint16_t d = 1; d <= s.sl_top; d++)
		CU_ASSERT_EQUAL(
		    lft_set_sl_from(&s, sw, d),
		    lft_set_sl_at(&s, (size_t)(lft_set_find_const(&s, sw) - s.tables), d));
	/* more than LFT_PATH_SL_MAX bytes: refused */
	lft_set_init(&big);
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc_sl(&big, 49151), 0);
	big.n = LFT_PATH_SL_MAX / 49152 + 1;
	CU_ASSERT_EQUAL(lft_set_alloc_path_sl(&big), -E2BIG);
	big.n = 0;
	lft_set_fini(&big);
	lft_set_fini(&s);
	fabric_fini(&f);
}

void test_vlsp_path_register(void)
{
	CU_pSuite s = CU_add_suite("vlsp_path", NULL, NULL);

	CU_add_test(s, "6x6 torus: fewer VLs, no cycle on any VL, SL 0 closes one",
		    test_vlsp_path_torus);
	CU_add_test(s, "a path's SL on a port that lacks its VL", test_vlsp_path_vl_missing);
	CU_add_test(s, "scored per path", test_vlsp_path_score);
	CU_add_test(s, "copy, compare, bound, source switch", test_vlsp_path_lft_set);
}
