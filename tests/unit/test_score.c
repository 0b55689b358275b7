/*
 * test_score.c - unit tests for the routing score: tiny fabrics with
 * hand-written LFTs whose link loads, hops, shifts and bisections can be
 * worked out on paper (the numbers are derived in the comments).
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/score.h"
#include "tests/unit/unit.h"

#define NEAR(a, b) ((a) - (b) < 1e-9 && (b) - (a) < 1e-9)
#define SQRT2 1.4142135623730951

/* ---- Building fabrics -------------------------------------------------- */

static int add_sw(struct fabric *f, unsigned ports)
{
	int n = fabric_add_node(f, 0x0002000000000000ULL + f->n_nodes + 1, 2, (uint8_t)ports);

	f->nodes[n].ports[0].guid = f->nodes[n].guid;
	for (unsigned p = 0; p <= ports; p++)
		f->nodes[n].ports[p].present = 1;
	return n;
}

/* A one-port host cabled to switch sw port p, with LID lid. */
static int add_host(struct fabric *f, int sw, unsigned p, uint16_t lid)
{
	int h = fabric_add_node(f, 0x0001000000000000ULL + (f->n_nodes + 1) * 0x10, 1, 1);

	f->nodes[h].ports[1].guid = f->nodes[h].guid + 1;
	f->nodes[h].ports[1].present = 1;
	f->nodes[h].ports[1].lid = lid;
	f->nodes[h].ports[1].state = 4; /* ACTIVE */
	f->nodes[sw].ports[p].state = 4;
	CU_ASSERT_EQUAL(fabric_link(f, h, 1, sw, (uint8_t)p), 0);
	return h;
}

static void link_sw(struct fabric *f, int a, unsigned pa, int b, unsigned pb)
{
	f->nodes[a].ports[pa].state = 4;
	f->nodes[b].ports[pb].state = 4;
	CU_ASSERT_EQUAL(fabric_link(f, a, (uint8_t)pa, b, (uint8_t)pb), 0);
}

static void set_route(struct lft_set *s, int sw, uint16_t lid, uint8_t port)
{
	struct lft *t = lft_set_find(s, sw);

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	t->port[lid] = port;
}

static int run(const struct fabric *f, const struct lft_set *s, struct route_score *res)
{
	struct score_opts o;

	score_opts_default(&o);
	o.check.allow_down_ports = 1;
	o.bisections = 200;
	return score_run(f, s, &o, res);
}

/* ---- One switch -------------------------------------------------------- */

/* The lab: one 8-port switch (LID 1), hosts on ports 1-3 (LIDs 2-4). */
struct lab {
	struct fabric f;
	struct lft_set s;
	int sw, h[3];
};

static void lab_build(struct lab *l)
{
	fabric_init(&l->f);
	lft_set_init(&l->s);
	l->sw = add_sw(&l->f, 8);
	l->f.nodes[l->sw].ports[0].lid = 1;
	for (int i = 0; i < 3; i++)
		l->h[i] = add_host(&l->f, l->sw, (unsigned)i + 1, (uint16_t)(i + 2));
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc(&l->s, &l->f, 4), 0);
	set_route(&l->s, l->sw, 1, 0);
	for (int i = 0; i < 3; i++)
		set_route(&l->s, l->sw, (uint16_t)(i + 2), (uint8_t)(i + 1));
}

static void lab_free(struct lab *l)
{
	lft_set_fini(&l->s);
	fabric_fini(&l->f);
}

/* 3 hosts: 6 pairs, 0 switch hops.  Each host sends to 2 and receives
 * from 2, so each of the 6 directed CA links carries exactly 2 routes.
 * Shifts 1 and 2 are permutations: every link carries one flow. */
static void test_score_lab(void)
{
	struct route_score r;
	struct lab l;

	lab_build(&l);
	CU_ASSERT_EQUAL_FATAL(run(&l.f, &l.s, &r), 0);
	CU_ASSERT_EQUAL(r.gate_rc, 0);
	CU_ASSERT_EQUAL(r.switches, 1);
	CU_ASSERT_EQUAL(r.endpoints, 3);
	CU_ASSERT_EQUAL(r.links, 6);
	CU_ASSERT_EQUAL(r.pairs, 6);
	CU_ASSERT_EQUAL(r.pairs_routed, 6);
	CU_ASSERT_EQUAL(r.hops_max, 0);
	CU_ASSERT_EQUAL(r.efi.links, 6);
	CU_ASSERT_EQUAL(r.efi.max, 2);
	CU_ASSERT_TRUE(NEAR(r.efi.mean, 2.0));
	CU_ASSERT_TRUE(NEAR(r.efi.cv, 0.0));
	CU_ASSERT_EQUAL(r.efi_switch.links, 0);
	CU_ASSERT_EQUAL(r.shifts, 2);
	CU_ASSERT_EQUAL(r.shifts_total, 2);
	CU_ASSERT_EQUAL(r.shift_load_worst, 1);
	CU_ASSERT_TRUE(NEAR(r.shift_load_mean, 1.0));
	CU_ASSERT_TRUE(NEAR(r.shift_ideal_frac, 1.0));
	CU_ASSERT_EQUAL(r.lid_groups, 0); /* no switch-facing ports */
	/* one pair and one host sitting out: every flow has its links alone */
	CU_ASSERT_EQUAL(r.bisections, 200);
	CU_ASSERT_TRUE(NEAR(r.ebb_mean, 1.0) && NEAR(r.ebb_ci_low, 1.0) &&
		       NEAR(r.ebb_ci_high, 1.0));
	lab_free(&l);
}

/* A black hole: the switch drops host3's LID; a misdelivery: host2's LID
 * goes out of host1's port.  4 of 6 pairs lose their route. */
static void test_score_black_hole(void)
{
	struct route_score r;
	struct lab l;

	lab_build(&l);
	set_route(&l.s, l.sw, 4, LFT_DROP);
	CU_ASSERT_EQUAL_FATAL(run(&l.f, &l.s, &r), 0);
	CU_ASSERT_NOT_EQUAL(r.gate_rc, 0);
	CU_ASSERT_TRUE(r.check.unreachable > 0);
	CU_ASSERT_EQUAL(r.pairs_routed, 4);
	/* host3 still sends (2 routes) but receives nothing */
	CU_ASSERT_EQUAL(r.efi.max, 2);
	CU_ASSERT_TRUE(NEAR(r.efi.mean, 8.0 / 6));
	set_route(&l.s, l.sw, 3, 1);
	CU_ASSERT_EQUAL_FATAL(run(&l.f, &l.s, &r), 0);
	CU_ASSERT_EQUAL(r.pairs_routed, 2);
	CU_ASSERT_TRUE(r.check.unreachable > 0);
	/* unroutable flows get bandwidth 0, so no bisection is perfect */
	CU_ASSERT_TRUE(r.ebb_max < 1.0);
	lab_free(&l);
}

/* ---- Two switches, two parallel cables --------------------------------- */

/* sw1 (LID 1) port 7/8 <-> sw2 (LID 2) port 7/8; hosts h1, h2 on sw1
 * ports 1, 2 (LIDs 3, 4), h3, h4 on sw2 ports 1, 2 (LIDs 5, 6).
 * balanced: h3 and h1 over port 7, h4 and h2 over port 8.
 * lopsided: every crossing route over port 7. */
struct twosw {
	struct fabric f;
	struct lft_set s;
	int sw1, sw2;
};

static void twosw_build(struct twosw *t, int balanced)
{
	fabric_init(&t->f);
	lft_set_init(&t->s);
	t->sw1 = add_sw(&t->f, 8);
	t->sw2 = add_sw(&t->f, 8);
	t->f.nodes[t->sw1].ports[0].lid = 1;
	t->f.nodes[t->sw2].ports[0].lid = 2;
	link_sw(&t->f, t->sw1, 7, t->sw2, 7);
	link_sw(&t->f, t->sw1, 8, t->sw2, 8);
	add_host(&t->f, t->sw1, 1, 3);
	add_host(&t->f, t->sw1, 2, 4);
	add_host(&t->f, t->sw2, 1, 5);
	add_host(&t->f, t->sw2, 2, 6);
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc(&t->s, &t->f, 6), 0);
	set_route(&t->s, t->sw1, 1, 0);
	set_route(&t->s, t->sw1, 2, 7);
	set_route(&t->s, t->sw1, 3, 1);
	set_route(&t->s, t->sw1, 4, 2);
	set_route(&t->s, t->sw1, 5, 7);
	set_route(&t->s, t->sw1, 6, balanced ? 8 : 7);
	set_route(&t->s, t->sw2, 1, 7);
	set_route(&t->s, t->sw2, 2, 0);
	set_route(&t->s, t->sw2, 3, 7);
	set_route(&t->s, t->sw2, 4, balanced ? 8 : 7);
	set_route(&t->s, t->sw2, 5, 1);
	set_route(&t->s, t->sw2, 6, 2);
}

static void twosw_free(struct twosw *t)
{
	lft_set_fini(&t->s);
	fabric_fini(&t->f);
}

/* 12 pairs, 8 of them cross (1 hop): mean hops 8/12.  Each CA link
 * carries 3 routes (8 links); each inter-switch link 2 when balanced:
 * all links: max 3, mean (8*3 + 4*2)/12 = 8/3, population sd sqrt(2)/3,
 * cv = sqrt(2)/8.  Lopsided: ports 7 carry 4, ports 8 none: cv 1.
 * Endpoint order h1 h2 h3 h4: shift 2 sends h1->h3 and h2->h4 together,
 * so it loads one cable twice when lopsided (shifts 1 and 3 cross once
 * each way).  Both switches are leaves (no rank direction): their
 * switch-facing ports 7, 8 form the group; 2 host LIDs to share. */
static void test_score_parallel_links(void)
{
	struct route_score r;
	struct twosw t;

	twosw_build(&t, 1);
	CU_ASSERT_EQUAL_FATAL(run(&t.f, &t.s, &r), 0);
	CU_ASSERT_EQUAL(r.gate_rc, 0);
	CU_ASSERT_EQUAL(r.links, 12);
	CU_ASSERT_EQUAL(r.pairs, 12);
	CU_ASSERT_EQUAL(r.pairs_routed, 12);
	CU_ASSERT_TRUE(NEAR(r.hops_mean, 8.0 / 12));
	CU_ASSERT_EQUAL(r.hops_max, 1);
	CU_ASSERT_EQUAL(r.stretch_max, 0);
	CU_ASSERT_EQUAL(r.efi.max, 3);
	CU_ASSERT_TRUE(NEAR(r.efi.mean, 8.0 / 3));
	CU_ASSERT_TRUE(NEAR(r.efi.cv, SQRT2 / 8));
	CU_ASSERT_EQUAL(r.efi_switch.links, 4);
	CU_ASSERT_EQUAL(r.efi_switch.max, 2);
	CU_ASSERT_TRUE(NEAR(r.efi_switch.cv, 0.0));
	CU_ASSERT_EQUAL(r.shift_load_worst, 1);
	CU_ASSERT_TRUE(NEAR(r.shift_ideal_frac, 1.0));
	CU_ASSERT_EQUAL(r.lid_groups, 2);
	CU_ASSERT_EQUAL(r.lids_port_max, 1);
	CU_ASSERT_EQUAL(r.lids_port_min, 1);
	CU_ASSERT_EQUAL(r.lids_spread_max, 0);
	CU_ASSERT_TRUE(NEAR(r.ebb_mean, 1.0));
	twosw_free(&t);

	twosw_build(&t, 0);
	CU_ASSERT_EQUAL_FATAL(run(&t.f, &t.s, &r), 0);
	CU_ASSERT_EQUAL(r.efi_switch.max, 4);
	CU_ASSERT_TRUE(NEAR(r.efi_switch.mean, 2.0));
	CU_ASSERT_TRUE(NEAR(r.efi_switch.cv, 1.0));
	CU_ASSERT_EQUAL(r.shift_load_worst, 2);
	CU_ASSERT_EQUAL(r.shift_worst, 2);
	CU_ASSERT_TRUE(NEAR(r.shift_load_mean, 4.0 / 3));
	CU_ASSERT_TRUE(NEAR(r.shift_ideal_frac, 2.0 / 3));
	CU_ASSERT_EQUAL(r.lids_port_max, 2);
	CU_ASSERT_EQUAL(r.lids_port_min, 0);
	CU_ASSERT_EQUAL(r.lids_spread_max, 2);
	CU_ASSERT_EQUAL(r.lids_spread_node, t.sw1);
	twosw_free(&t);
}

/* The LID balance counts every LID of an endpoint's LMC range: h3 (LMC
 * 1, LIDs 5-6) and h4 (LID 7) behind sw2; sw1 sends LID 5 out of port
 * 7, LIDs 6 and 7 out of port 8: 1 and 2 (by base LIDs alone 1 and 1). */
static void test_score_balance_lmc(void)
{
	struct route_score r;
	struct fabric f;
	struct lft_set s;
	int sw1, sw2, h3;

	fabric_init(&f);
	lft_set_init(&s);
	sw1 = add_sw(&f, 8);
	sw2 = add_sw(&f, 8);
	f.nodes[sw1].ports[0].lid = 1;
	f.nodes[sw2].ports[0].lid = 2;
	link_sw(&f, sw1, 7, sw2, 7);
	link_sw(&f, sw1, 8, sw2, 8);
	add_host(&f, sw1, 1, 3);
	add_host(&f, sw1, 2, 4);
	h3 = add_host(&f, sw2, 1, 5);
	f.nodes[h3].ports[1].lmc = 1;
	add_host(&f, sw2, 2, 7);
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc(&s, &f, 7), 0);
	set_route(&s, sw1, 1, 0);
	set_route(&s, sw1, 2, 7);
	set_route(&s, sw1, 3, 1);
	set_route(&s, sw1, 4, 2);
	set_route(&s, sw1, 5, 7);
	set_route(&s, sw1, 6, 8);
	set_route(&s, sw1, 7, 8);
	set_route(&s, sw2, 1, 7);
	set_route(&s, sw2, 2, 0);
	set_route(&s, sw2, 3, 7);
	set_route(&s, sw2, 4, 8);
	set_route(&s, sw2, 5, 1);
	set_route(&s, sw2, 6, 1);
	set_route(&s, sw2, 7, 2);
	CU_ASSERT_EQUAL_FATAL(run(&f, &s, &r), 0);
	CU_ASSERT_EQUAL(r.lids_port_max, 2);
	CU_ASSERT_EQUAL(r.lids_port_min, 1);
	CU_ASSERT_EQUAL(r.lids_spread_max, 1);
	CU_ASSERT_EQUAL(r.lids_spread_node, sw1);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* An SL per path on the balanced pair of switches: the paths to h3 (LID
 * 5) from sw1 ride SL 1, those to h1 (LID 3) from sw2 SL 2, every other
 * path SL 0.  Each pair counts on its own path's VL: to h3, h1 and h2
 * (2 pairs) on VL 1 and h4 on VL 0; to h1, h3 and h4 on VL 2 and h2 on
 * VL 0; h2 and h4 (3 pairs each) on VL 0.  Endpoints per VL: those some
 * path to them rides it.  Busiest switch link per VL: 2 routes each (sw1
 * port 7 to h3, sw2 port 7 to h1; on VL 0 the ports 8 to h2 and h4). */
static void test_score_path_sl(void)
{
	struct route_score r;
	struct twosw t;
	uint16_t row;

	twosw_build(&t, 1);
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc_sl(&t.s, 6), 0);
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc_path_sl(&t.s), 0);
	row = t.s.sl_top + 1;
	CU_ASSERT_EQUAL_FATAL(lft_set_find(&t.s, t.sw2), &t.s.tables[1]);
	t.s.path_sl[0 * row + 5] = 1;
	t.s.path_sl[1 * row + 3] = 2;
	t.s.n_vls = 3;
	CU_ASSERT_EQUAL_FATAL(run(&t.f, &t.s, &r), 0);
	CU_ASSERT_EQUAL(r.gate_rc, 0);
	CU_ASSERT_EQUAL(r.pairs_routed, 12);
	CU_ASSERT_EQUAL(r.n_vls, 3);
	CU_ASSERT_EQUAL(r.vl[0].endpoints, 4);
	CU_ASSERT_EQUAL(r.vl[1].endpoints, 1);
	CU_ASSERT_EQUAL(r.vl[2].endpoints, 1);
	CU_ASSERT_EQUAL(r.vl[0].pairs_routed, 8);
	CU_ASSERT_EQUAL(r.vl[1].pairs_routed, 2);
	CU_ASSERT_EQUAL(r.vl[2].pairs_routed, 2);
	for (unsigned v = 0; v < 3; v++)
		CU_ASSERT_EQUAL(r.vl[v].efi_switch_max, 2);
	twosw_free(&t);
}

/* Lopsided: a bisection pairs the hosts in one of 3 equally likely ways.
 * Both pairs local ({h1,h2}, {h3,h4}): every flow alone, 1.  Otherwise
 * both pairs cross: two flows share port 7 each way, 1/2 each.  So every
 * sample is 1/2 or 1 and the expectation is 1/3 + 2/3 * 1/2 = 2/3.
 * Deterministic per seed. */
static void test_score_bisections(void)
{
	struct route_score a, b, c;
	struct score_opts o;
	struct twosw t;

	twosw_build(&t, 0);
	score_opts_default(&o);
	o.bisections = 500;
	o.seed = 42;
	CU_ASSERT_EQUAL_FATAL(score_run(&t.f, &t.s, &o, &a), 0);
	CU_ASSERT_EQUAL_FATAL(score_run(&t.f, &t.s, &o, &b), 0);
	CU_ASSERT_EQUAL(a.bisections, 500);
	CU_ASSERT_TRUE(a.ebb_mean == b.ebb_mean && a.ebb_ci_low == b.ebb_ci_low &&
		       a.ebb_ci_high == b.ebb_ci_high);
	CU_ASSERT_TRUE(NEAR(a.ebb_min, 0.5));
	CU_ASSERT_TRUE(NEAR(a.ebb_max, 1.0));
	CU_ASSERT_TRUE(a.ebb_ci_low < a.ebb_mean && a.ebb_mean < a.ebb_ci_high);
	CU_ASSERT_TRUE(a.ebb_ci_low < 2.0 / 3 && 2.0 / 3 < a.ebb_ci_high);
	CU_ASSERT_TRUE(a.ebb_ci_high - a.ebb_ci_low < 0.05);
	o.seed = 43;
	CU_ASSERT_EQUAL_FATAL(score_run(&t.f, &t.s, &o, &c), 0);
	CU_ASSERT_TRUE(c.ebb_mean != a.ebb_mean);
	o.bisections = 0;
	CU_ASSERT_EQUAL_FATAL(score_run(&t.f, &t.s, &o, &c), 0);
	CU_ASSERT_EQUAL(c.bisections, 0);
	CU_ASSERT_TRUE(NEAR(c.ebb_mean, 0.0));
	twosw_free(&t);
}

/* Shift sampling: 3 shifts, 2 asked for: s = 1 + k*3/2 = 1, 2. */
static void test_score_shift_sampling(void)
{
	struct route_score r;
	struct score_opts o;
	struct twosw t;

	twosw_build(&t, 0);
	score_opts_default(&o);
	o.shifts = 2;
	CU_ASSERT_EQUAL_FATAL(score_run(&t.f, &t.s, &o, &r), 0);
	CU_ASSERT_EQUAL(r.shifts, 2);
	CU_ASSERT_EQUAL(r.shifts_total, 3);
	CU_ASSERT_EQUAL(r.shift_worst, 2);
	CU_ASSERT_TRUE(NEAR(r.shift_load_mean, 1.5));
	o.shifts = 0;
	CU_ASSERT_EQUAL_FATAL(score_run(&t.f, &t.s, &o, &r), 0);
	CU_ASSERT_EQUAL(r.shifts, 0);
	CU_ASSERT_EQUAL(r.shift_load_worst, 0);
	twosw_free(&t);
}

/* ---- Stretch and ranks ------------------------------------------------- */

/* A ring sw0-sw1-sw2-sw3 (port 2 to the next, port 3 to the previous),
 * host hI on swI port 1 with LID 11+I.  Shortest routes, except that sw0
 * sends h1's LID the long way round (sw3, sw2, sw1: 3 hops, not 1). */
static void test_score_stretch(void)
{
	struct route_score r;
	struct fabric f;
	struct lft_set s;
	int sw[4];

	fabric_init(&f);
	lft_set_init(&s);
	for (int i = 0; i < 4; i++) {
		sw[i] = add_sw(&f, 4);
		f.nodes[sw[i]].ports[0].lid = (uint16_t)(i + 1);
	}
	for (int i = 0; i < 4; i++) {
		link_sw(&f, sw[i], 2, sw[(i + 1) % 4], 3);
		add_host(&f, sw[i], 1, (uint16_t)(11 + i));
	}
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc(&s, &f, 14), 0);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			int d = (j - i + 4) % 4; /* 0 here, 1 next, 2 opposite, 3 previous */
			uint8_t port = d == 0 ? 1 : d == 3 ? 3 : 2;

			set_route(&s, sw[i], (uint16_t)(11 + j), port);
			set_route(&s, sw[i], (uint16_t)(j + 1), d == 0 ? 0 : port);
		}
	set_route(&s, sw[0], 12, 3); /* the detour ... */
	set_route(&s, sw[3], 12, 3); /* ... and sw3 goes on via sw2, not back */
	CU_ASSERT_EQUAL_FATAL(run(&f, &s, &r), 0);
	CU_ASSERT_EQUAL(r.pairs_routed, 12);
	/* hops: 4 neighbours-next 1, 4 opposite 2, 4 previous 1 -> 16, +2 detour */
	CU_ASSERT_TRUE(NEAR(r.hops_mean, 18.0 / 12));
	CU_ASSERT_EQUAL(r.hops_max, 3);
	CU_ASSERT_EQUAL(r.stretch_max, 2);
	CU_ASSERT_TRUE(NEAR(r.stretch_mean, 2.0 / 12));
	CU_ASSERT_TRUE(NEAR(r.stretched_frac, 1.0 / 12));
	CU_ASSERT_EQUAL(r.lid_groups, 4); /* all leaves: ports 2, 3 */
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* Two leaves (LIDs 1, 2) under one spine (LID 3), two hosts per leaf
 * (LIDs 4-7).  Leaves group their up port only (2 remote host LIDs);
 * the spine, a top switch, is not grouped. */
static void test_score_up_groups(void)
{
	struct route_score r;
	struct fabric f;
	struct lft_set s;
	int leaf[2], spine;

	fabric_init(&f);
	lft_set_init(&s);
	for (int i = 0; i < 2; i++) {
		leaf[i] = add_sw(&f, 4);
		f.nodes[leaf[i]].ports[0].lid = (uint16_t)(i + 1);
	}
	spine = add_sw(&f, 4);
	f.nodes[spine].ports[0].lid = 3;
	for (int i = 0; i < 2; i++) {
		link_sw(&f, leaf[i], 4, spine, (unsigned)i + 1);
		add_host(&f, leaf[i], 1, (uint16_t)(4 + 2 * i));
		add_host(&f, leaf[i], 2, (uint16_t)(5 + 2 * i));
	}
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc(&s, &f, 7), 0);
	for (int i = 0; i < 2; i++) {
		for (uint16_t lid = 1; lid <= 7; lid++)
			set_route(&s, leaf[i], lid, 4);
		set_route(&s, leaf[i], (uint16_t)(i + 1), 0);
		set_route(&s, leaf[i], (uint16_t)(4 + 2 * i), 1);
		set_route(&s, leaf[i], (uint16_t)(5 + 2 * i), 2);
		set_route(&s, spine, (uint16_t)(i + 1), (uint8_t)(i + 1));
		set_route(&s, spine, (uint16_t)(4 + 2 * i), (uint8_t)(i + 1));
		set_route(&s, spine, (uint16_t)(5 + 2 * i), (uint8_t)(i + 1));
	}
	set_route(&s, spine, 3, 0);
	CU_ASSERT_EQUAL_FATAL(run(&f, &s, &r), 0);
	CU_ASSERT_EQUAL(r.gate_rc, 0);
	CU_ASSERT_EQUAL(r.lid_groups, 2);
	CU_ASSERT_EQUAL(r.lids_port_max, 2);
	CU_ASSERT_EQUAL(r.lids_port_min, 2);
	CU_ASSERT_EQUAL(r.hops_max, 2);
	/* 8 crossing pairs over 4 inter-switch links */
	CU_ASSERT_EQUAL(r.efi_switch.max, 4);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* ---- Degenerate fabrics ------------------------------------------------ */

static void test_score_empty(void)
{
	struct route_score r;
	struct fabric f;
	struct lft_set s;
	int sw;

	fabric_init(&f);
	lft_set_init(&s);
	CU_ASSERT_EQUAL(run(&f, &s, &r), 0);
	CU_ASSERT_EQUAL(r.endpoints, 0);
	CU_ASSERT_EQUAL(r.pairs, 0);
	sw = add_sw(&f, 4);
	f.nodes[sw].ports[0].lid = 1;
	add_host(&f, sw, 1, 2);
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc(&s, &f, 2), 0);
	set_route(&s, sw, 1, 0);
	set_route(&s, sw, 2, 1);
	CU_ASSERT_EQUAL(run(&f, &s, &r), 0);
	CU_ASSERT_EQUAL(r.endpoints, 1);
	CU_ASSERT_EQUAL(r.pairs, 0);
	CU_ASSERT_EQUAL(r.shifts, 0);
	CU_ASSERT_EQUAL(r.bisections, 0);
	lft_set_fini(&s);
	fabric_fini(&f);
}

void test_score_register(void)
{
	CU_pSuite s = CU_add_suite("score", NULL, NULL);

	CU_add_test(s, "lab switch: EFI 2 on each CA link, shifts free", test_score_lab);
	CU_add_test(s, "black hole and misdelivery: unreachable", test_score_black_hole);
	CU_add_test(s, "two parallel cables: link loads", test_score_parallel_links);
	CU_add_test(s, "LID balance counts LMC ranges", test_score_balance_lmc);
	CU_add_test(s, "an SL per path: pairs and link loads counted on each path's VL",
		    test_score_path_sl);
	CU_add_test(s, "bisections: bounds, deterministic per seed", test_score_bisections);
	CU_add_test(s, "shift sampling", test_score_shift_sampling);
	CU_add_test(s, "ring detour: stretch", test_score_stretch);
	CU_add_test(s, "up groups: leaves grouped, spine not", test_score_up_groups);
	CU_add_test(s, "no endpoints, one endpoint", test_score_empty);
}
