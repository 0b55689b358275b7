/*
 * test_vlsp_polish.c - unit tests for the polish of vlsp's tables
 * (routing/vlsp_polish.c, and its use in routing/vlsp_pick.c): the EBB
 * estimate on a fabric small enough to work out by hand, moves that
 * spread the paths over parallel cables, moves that keep each path's
 * layer acyclic (one VL on a torus).  The engine's use of it:
 * tests/unit/test_vlsp_pick.c.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "routing/route.h"
#include "routing/score.h"
#include "routing/vlsp.h"
#include "routing/vlsp_polish.h"
#include "tests/unit/route_test.h"
#include "tests/unit/unit.h"

/* Two switches cabled twice (ports 1 and 2), two hosts on each (ports 3
 * and 4); every route between the switches on port 1 (spread 0) or, for
 * each switch's second host, on port 2 (spread 1).  LIDs: the switches
 * 1 and 2, the hosts 3-6. */
static void vp_two(struct fabric *f, struct lft_set *s, int spread)
{
	int a, b;
	uint16_t max;

	fabric_init(f);
	a = route_test_add_sw(f, 4);
	b = route_test_add_sw(f, 4);
	CU_ASSERT_EQUAL_FATAL(fabric_link(f, a, 1, b, 1), 0);
	CU_ASSERT_EQUAL_FATAL(fabric_link(f, a, 2, b, 2), 0);
	for (unsigned p = 3; p <= 4; p++) {
		route_test_add_host(f, a, p);
		route_test_add_host(f, b, p);
	}
	max = route_test_assign_lids(f, 0);
	CU_ASSERT_EQUAL_FATAL(route_test_run(&route_engine_minhop, f, max, NULL, 0, s, NULL), 0);
	for (int sw = 0; sw < 2; sw++) {
		struct lft *t = lft_set_find(s, sw == 0 ? a : b);
		int far = sw == 0 ? b : a;

		CU_ASSERT_PTR_NOT_NULL_FATAL(t);
		for (unsigned p = 3; p <= 4; p++) {
			const struct fabric_port *cable = &f->nodes[far].ports[p];
			uint16_t lid = f->nodes[cable->remote_node].ports[cable->remote_port].lid;

			t->port[lid] = (uint8_t)(spread && p == 4 ? 2 : 1);
		}
	}
}

/* Worked out by hand (vlsp_polish.h): a flow between the switches sees
 * the other source's yes/no, chance 2/3 on one cable (its expected
 * 1 / load 2/3), 1/3 spread (5/6); a flow within a switch 1.  Over the
 * 12 ordered pairs: 7/9 and 8/9. */
static void test_vlsp_polish_estimate(void)
{
	struct fabric f;
	struct lft_set s;
	double one = 0, two = 0;

	vp_two(&f, &s, 0);
	CU_ASSERT_EQUAL(vlsp_polish_estimate(&f, &s, &one), 0);
	lft_set_fini(&s);
	fabric_fini(&f);
	vp_two(&f, &s, 1);
	CU_ASSERT_EQUAL(vlsp_polish_estimate(&f, &s, &two), 0);
	lft_set_fini(&s);
	fabric_fini(&f);
	CU_ASSERT_DOUBLE_EQUAL(one, 7.0 / 9, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(two, 8.0 / 9, 1e-9);
}

/* The ports switch `sw` sends the far switch's two hosts out of. */
static void vp_far_ports(const struct fabric *f, const struct lft_set *s, int sw, uint8_t *p)
{
	const struct fabric_node *far = &f->nodes[1 - sw];

	for (unsigned i = 0; i < 2; i++) {
		const struct fabric_port *cable = &far->ports[3 + i];

		p[i] = route_test_out_port(
		    s, sw, f->nodes[cable->remote_node].ports[cable->remote_port].lid);
	}
}

/* The polish of the one-cable tables moves a host per switch to the
 * other cable (then no move helps: the spread tables are left as they
 * are), and the estimate is the spread one's. */
static void test_vlsp_polish_spreads(void)
{
	struct fabric f;
	struct lft_set s;
	double est = 0;
	uint8_t p[2];

	vp_two(&f, &s, 0);
	CU_ASSERT_EQUAL(vlsp_polish(&f, &s, 2), 2);
	CU_ASSERT_EQUAL(vlsp_polish_estimate(&f, &s, &est), 0);
	CU_ASSERT_DOUBLE_EQUAL(est, 8.0 / 9, 1e-9);
	for (int sw = 0; sw < 2; sw++) {
		vp_far_ports(&f, &s, sw, p);
		CU_ASSERT_TRUE((p[0] == 1 && p[1] == 2) || (p[0] == 2 && p[1] == 1));
	}
	CU_ASSERT_EQUAL(vlsp_polish(&f, &s, 2), 0);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* The gate on s (its SLs as they are, per path or not): 0 passes. */
static int vp_gate(const struct fabric *f, const struct lft_set *s, double *ebb)
{
	struct route_score sc;
	struct score_opts o;

	score_opts_default(&o);
	o.shifts = 0;
	o.bisections = 500;
	o.seed = 11;
	CU_ASSERT_EQUAL_FATAL(score_run(f, s, &o, &sc), 0);
	CU_ASSERT_EQUAL(sc.pairs_routed, sc.pairs);
	*ebb = sc.ebb_mean;
	return sc.gate_rc;
}

/* A 6x6 torus with one host per switch, or two (the second on port 6),
 * on one VL, routed by vlsp once, unmeasured (its grown trees on one
 * layer), into s (every path on SL 0, s->path_sl not made). */
static void vp_torus_one_vl(struct fabric *f, struct lft_set *s, int two)
{
	struct route_opts opts;
	char err[256] = "";

	route_test_torus(f, 6, 6);
	for (int sw = 0; two && sw < 36; sw++)
		route_test_add_host(f, sw, 6);
	for (size_t i = 0; i < f->n_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i].num_ports; p++) {
			f->nodes[i].ports[p].present = 1;
			f->nodes[i].ports[p].vl_cap = 1;
		}
	opts = (struct route_opts){.max_lid = route_test_assign_lids(f, 0)};
	lft_set_init(s);
	CU_ASSERT_EQUAL_FATAL(vlsp_route(f, &opts, 1, 0, s, NULL, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(s->n_vls, 1);
}

/* One VL on a 6x6 torus: with an SL per path the polish moves entries
 * and every path stays on an acyclic layer (the gate passes), with more
 * EBB; without (no layers to keep), the same polish closes a credit
 * loop. */
static void test_vlsp_polish_layers(void)
{
	struct fabric f;
	struct lft_set s, free_;
	double e0, e1, e2;
	int moves;

	vp_torus_one_vl(&f, &s, 0);
	lft_set_init(&free_);
	CU_ASSERT_EQUAL(vp_gate(&f, &s, &e0), 0);
	CU_ASSERT_EQUAL_FATAL(lft_set_copy(&free_, &s), 0);
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc_path_sl(&s), 0);
	moves = vlsp_polish(&f, &s, 2);
	CU_ASSERT_TRUE(moves > 0);
	CU_ASSERT_EQUAL(vp_gate(&f, &s, &e1), 0);
	CU_ASSERT_TRUE(vlsp_polish(&f, &free_, 2) > 0);
	CU_ASSERT_NOT_EQUAL(vp_gate(&f, &free_, &e2), 0);
	fprintf(stderr, " [%d moves, EBB %.4f -> %.4f; unlayered %.4f]", moves, e0, e1, e2);
	CU_ASSERT_TRUE(e1 > e0);
	lft_set_fini(&s);
	lft_set_fini(&free_);
	fabric_fini(&f);
}

/* 1 when a and b (tables of the same switches) send every LID alike. */
static int vp_same(const struct lft_set *a, const struct lft_set *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		const struct lft *x = &a->tables[i], *y = &b->tables[i];

		if (x->node != y->node || x->top != y->top ||
		    memcmp(x->port, y->port, (size_t)x->top + 1))
			return 0;
	}
	return 1;
}

/* The work bound: the polish stops before the first entry once it has
 * valued that many paths and says so.  Bound 0: no move, the tables as
 * they were; half the paths the whole polish values: fewer moves, the
 * tables it had then (every route shortest, the gate passes: each
 * path's layer acyclic), the bound passed by less than the rest of the
 * polish; the whole polish (VLSP_POLISH_WORK) is not bounded here.
 * Each time, the estimate it kept up is the one made afresh (two hosts
 * a switch: paths that take their twin's value). */
static void test_vlsp_polish_bound(void)
{
	struct fabric f;
	struct lft_set s, none, half, full;
	struct vlsp_polish_stats st0, st_half, st_full;
	int m_half, m_full;
	double ebb;

	vp_torus_one_vl(&f, &s, 1);
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc_path_sl(&s), 0);
	lft_set_init(&none);
	lft_set_init(&half);
	lft_set_init(&full);
	CU_ASSERT_EQUAL_FATAL(lft_set_copy(&none, &s), 0);
	CU_ASSERT_EQUAL_FATAL(lft_set_copy(&half, &s), 0);
	CU_ASSERT_EQUAL_FATAL(lft_set_copy(&full, &s), 0);
	m_full = vlsp_polish_bounded(&f, &full, 2, VLSP_POLISH_WORK, &st_full);
	CU_ASSERT_TRUE(m_full > 1);
	CU_ASSERT_FALSE(st_full.bounded);
	CU_ASSERT_TRUE(st_full.valued > 0 && st_full.valued < VLSP_POLISH_WORK);
	/* the values kept up move by move (the memo of hops, the twins) are
	 * those made afresh */
	CU_ASSERT_EQUAL(vlsp_polish_estimate(&f, &full, &ebb), 0);
	CU_ASSERT_TRUE(memcmp(&ebb, &st_full.ebb, sizeof(ebb)) == 0);
	CU_ASSERT_EQUAL(vlsp_polish_bounded(&f, &none, 2, 0, &st0), 0);
	CU_ASSERT_TRUE(st0.bounded);
	CU_ASSERT_EQUAL(st0.valued, 0);
	CU_ASSERT_TRUE(vp_same(&none, &s));
	m_half = vlsp_polish_bounded(&f, &half, 2, st_full.valued / 2, &st_half);
	CU_ASSERT_TRUE(m_half > 0 && m_half < m_full);
	CU_ASSERT_TRUE(st_half.bounded);
	CU_ASSERT_TRUE(st_half.valued >= st_full.valued / 2 && st_half.valued < st_full.valued);
	CU_ASSERT_FALSE(vp_same(&half, &s));
	CU_ASSERT_FALSE(vp_same(&half, &full));
	CU_ASSERT_EQUAL(vlsp_polish_estimate(&f, &half, &ebb), 0);
	CU_ASSERT_TRUE(memcmp(&ebb, &st_half.ebb, sizeof(ebb)) == 0);
	CU_ASSERT_EQUAL(vp_gate(&f, &half, &ebb), 0);
	fprintf(stderr, " [%d of %d moves, %llu of %llu paths valued]", m_half, m_full,
		(unsigned long long)st_half.valued, (unsigned long long)st_full.valued);
	lft_set_fini(&s);
	lft_set_fini(&none);
	lft_set_fini(&half);
	lft_set_fini(&full);
	fabric_fini(&f);
}

void test_vlsp_polish_register(void)
{
	CU_pSuite s = CU_add_suite("vlsp_polish", NULL, NULL);

	CU_add_test(s, "the EBB estimate, worked out by hand", test_vlsp_polish_estimate);
	CU_add_test(s, "moves spread paths over parallel cables", test_vlsp_polish_spreads);
	CU_add_test(s, "one VL: every path's layer stays acyclic", test_vlsp_polish_layers);
	CU_add_test(s, "the work bound stops it, the tables it had kept", test_vlsp_polish_bound);
}
