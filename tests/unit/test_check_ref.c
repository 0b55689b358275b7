/*
 * test_check_ref.c - the routing gate (routing/check.c, which reads the
 * tables CHECK_BLOCK LIDs at a time and records the channel dependencies
 * per block) against a plain reference written here: every (source,
 * destination LID) pair walked hop by hop, its turns put in a dense
 * channel x channel matrix per VL, a cycle searched by recursion.  On
 * random meshes of more than one block of LIDs, routed and then broken at
 * random (black holes, loops, credit loops, also with SLs on two VLs),
 * on a two-level tree with more switch links than 64 per switch, and on
 * one with more destinations than the walk has stamps (broken past them),
 * both must count the same pairs, failures, longest route, channel
 * dependencies (turns) and credit loop.
 */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/check.h"
#include "routing/route.h"
#include "tests/unit/route_test.h"
#include "tests/unit/unit.h"

#define REF_VLS 2

enum ref_end { REF_OK, REF_UNREACHABLE, REF_LOOP };

struct ref {
	const struct fabric *f;
	const struct lft_set *lfts;
	int *sw_of; /* node -> switch ordinal, -1 */
	int n_sw;
	size_t ports;  /* the most ports of a switch, + 1 */
	size_t n_chan; /* n_sw * ports: channel = ordinal * ports + out port */
	uint8_t *dep;  /* [vl][in channel][out channel] */
	uint8_t *color;
	struct route_check res;
};

/* The CA/router port owning lid, or node -1. */
static int ref_owner(const struct ref *r, uint16_t lid, unsigned *port)
{
	for (size_t i = 0; i < r->f->n_nodes; i++) {
		const struct fabric_node *n = &r->f->nodes[i];

		for (unsigned p = 0; p <= n->num_ports; p++)
			if (n->ports[p].lid == lid && (p == 0) == fabric_is_switch(n)) {
				*port = p;
				return (int)i;
			}
	}
	return -1;
}

/* Walk lid from switch node s: the end, the switch hops; the turns go to
 * dep when turns is set and the route does not loop. */
static enum ref_end ref_walk(struct ref *r, int s, uint16_t lid, int owner, unsigned oport,
			     int turns, size_t *hops)
{
	size_t path[520], len = 0; /* route_test_mesh: at most 512 switches */
	enum ref_end end = REF_UNREACHABLE;
	unsigned vl = lft_set_sl(r->lfts, lid);

	*hops = 0;
	for (int steps = 0; steps <= r->n_sw; steps++) {
		const struct lft *t = lft_set_find_const(r->lfts, s);
		const struct fabric_node *n = &r->f->nodes[s];
		const struct fabric_port *p;
		uint8_t out;

		if (!t || lid > t->top || (out = t->port[lid]) == LFT_DROP || out > n->num_ports)
			break;
		if (out == 0) {
			end = s == owner ? REF_OK : REF_UNREACHABLE;
			break;
		}
		p = &n->ports[out];
		if (p->remote_node == FABRIC_NONE)
			break;
		if (r->sw_of[p->remote_node] < 0) {
			end = (int)p->remote_node == owner && p->remote_port == oport
				  ? REF_OK
				  : REF_UNREACHABLE;
			break;
		}
		path[len++] = (size_t)r->sw_of[s] * r->ports + out;
		s = p->remote_node;
		if (steps == r->n_sw)
			end = REF_LOOP;
	}
	*hops = len;
	if (end == REF_LOOP || !turns)
		return end;
	for (size_t i = 0; i + 1 < len; i++) {
		uint8_t *d = &r->dep[((size_t)vl * r->n_chan + path[i]) * r->n_chan + path[i + 1]];

		r->res.turns += !*d;
		*d = 1;
	}
	return end;
}

static int ref_cycle_from(struct ref *r, unsigned vl, size_t ch)
{
	const uint8_t *row = &r->dep[((size_t)vl * r->n_chan + ch) * r->n_chan];

	r->color[ch] = 1;
	for (size_t nx = 0; nx < r->n_chan; nx++)
		if (row[nx] && (r->color[nx] == 1 || (!r->color[nx] && ref_cycle_from(r, vl, nx))))
			return 1;
	r->color[ch] = 2;
	return 0;
}

static int ref_credit_loop(struct ref *r)
{
	for (unsigned vl = 0; vl < REF_VLS; vl++) {
		memset(r->color, 0, r->n_chan);
		for (size_t ch = 0; ch < r->n_chan; ch++)
			if (!r->color[ch] && ref_cycle_from(r, vl, ch))
				return 1;
	}
	return 0;
}

/* Every destination LID from every switch; a switch's CA ports share its
 * route.  A switch's LID is a destination for CA sources only. */
static void ref_destination(struct ref *r, uint16_t lid, const unsigned *cas)
{
	unsigned oport;
	int owner = ref_owner(r, lid, &oport);
	int to_switch = owner >= 0 && r->sw_of[owner] >= 0;

	if (owner < 0)
		return;
	for (size_t i = 0; i < r->f->n_nodes; i++) {
		size_t hops, w;
		enum ref_end end;

		if (r->sw_of[i] < 0)
			continue;
		w = cas[r->sw_of[i]] + (to_switch ? 0 : 1);
		end = ref_walk(r, (int)i, lid, owner, oport, w > 0, &hops);
		r->res.pairs += w;
		r->res.unreachable += end == REF_UNREACHABLE ? w : 0;
		r->res.loops += end == REF_LOOP ? w : 0;
		if (end == REF_OK && hops > r->res.max_hops)
			r->res.max_hops = hops;
	}
}

static void ref_run(struct ref *r, const struct fabric *f, const struct lft_set *lfts,
		    uint16_t max_lid)
{
	unsigned *cas;

	memset(r, 0, sizeof(*r));
	r->f = f;
	r->lfts = lfts;
	r->sw_of = malloc(f->n_nodes * sizeof(*r->sw_of));
	cas = calloc(f->n_nodes, sizeof(*cas));
	CU_ASSERT_FATAL(r->sw_of && cas);
	for (size_t i = 0; i < f->n_nodes; i++) {
		r->sw_of[i] = fabric_is_switch(&f->nodes[i]) ? r->n_sw++ : -1;
		if (r->sw_of[i] >= 0 && f->nodes[i].num_ports + 1u > r->ports)
			r->ports = f->nodes[i].num_ports + 1u;
	}
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_port *p = &f->nodes[i].ports[1];

		if (r->sw_of[i] < 0 && p->remote_node != FABRIC_NONE)
			cas[r->sw_of[p->remote_node]]++;
	}
	r->n_chan = (size_t)r->n_sw * r->ports;
	r->dep = calloc(REF_VLS * r->n_chan * r->n_chan, 1);
	r->color = malloc(r->n_chan);
	CU_ASSERT_FATAL(r->dep && r->color);
	for (uint16_t lid = 1; lid <= max_lid; lid++)
		ref_destination(r, lid, cas);
	r->res.credit_loop = ref_credit_loop(r);
	free(r->sw_of);
	free(cas);
	free(r->dep);
	free(r->color);
}

/* Two levels, 4 leaves of 20 hosts and 4 spines of 100 ports, 20
 * parallel cables from every leaf to every spine: more switch links than
 * 64 per switch (the gate then records turns pair by pair). */
static void ref_fat(struct fabric *f)
{
	fabric_init(f);
	for (int i = 0; i < 8; i++)
		route_test_add_sw(f, 100);
	for (int l = 0; l < 4; l++) {
		for (int sp = 0; sp < 4; sp++)
			for (int k = 0; k < 20; k++)
				fabric_link(f, l, (uint8_t)(21 + sp * 20 + k), 4 + sp,
					    (uint8_t)(1 + l * 20 + k));
		for (unsigned h = 1; h <= 20; h++)
			route_test_add_host(f, l, h);
	}
}

/* Two levels, 18 leaves of 230 hosts and 2 spines: 4160 LIDs, more than
 * the gate's walk has stamps (CHECK_ST_WALKS, 4095: it clears them and
 * starts again). */
static void ref_wide(struct fabric *f)
{
	fabric_init(f);
	for (int i = 0; i < 18; i++)
		route_test_add_sw(f, 232);
	for (int sp = 0; sp < 2; sp++)
		route_test_add_sw(f, 18);
	for (int l = 0; l < 18; l++) {
		for (int sp = 0; sp < 2; sp++)
			fabric_link(f, l, (uint8_t)(231 + sp), 18 + sp, (uint8_t)(1 + l));
		for (unsigned h = 1; h <= 230; h++)
			route_test_add_host(f, l, h);
	}
}

/* Break k random entries of the tables for LIDs lo..max_lid: drops,
 * unlinked ports, ports beyond NumPorts, port 0, or any cabled port
 * (loops and credit loops). */
static void ref_break(const struct fabric *f, struct lft_set *s, uint16_t lo, uint16_t max_lid,
		      int k, uint32_t *seed)
{
	for (int i = 0; i < k; i++) {
		struct lft *t = &s->tables[route_test_lcg(seed) % s->n];
		uint16_t lid = (uint16_t)(lo + route_test_lcg(seed) % (max_lid - lo + 1u));
		uint32_t ports = f->nodes[t->node].num_ports, what = route_test_lcg(seed) % 20;

		t->port[lid] = what == 0   ? LFT_DROP
			       : what == 1 ? (uint8_t)(ports + 1)
					   : (uint8_t)(route_test_lcg(seed) % (ports + 1));
	}
}

/* One random case: a mesh of n switches (0: ref_fat, -1: ref_wide,
 * broken only past LID 4096) routed by eng,
 * broken at k entries, with SLs 0/1 at random when sls is set.  Returns
 * the gate's verdict for the tallies. */
static struct route_check ref_case(const struct route_engine *eng, int n, int k, int sls,
				   uint32_t seed0)
{
	uint32_t seed = seed0;
	struct fabric f;
	struct lft_set s;
	struct ref r;
	struct route_check got;
	struct route_check_opts opts = {0};
	uint16_t max_lid;

	if (n > 0)
		route_test_mesh(&f, n, n / 2, seed);
	else if (n == 0)
		ref_fat(&f);
	else
		ref_wide(&f);
	max_lid = route_test_assign_lids(&f, ROUTE_TEST_MARK_PRESENT);
	for (size_t i = 0; i < f.n_nodes; i++)
		for (unsigned p = 0; p <= f.nodes[i].num_ports && fabric_is_switch(&f.nodes[i]);
		     p++)
			f.nodes[i].ports[p].present = 1;
	CU_ASSERT_EQUAL_FATAL(route_test_run(eng, &f, max_lid, NULL, 0, &s, NULL), 0);
	if (sls) {
		CU_ASSERT_EQUAL_FATAL(lft_set_alloc_sl(&s, max_lid), 0);
		for (uint16_t lid = 0; lid <= max_lid; lid++)
			s.sl[lid] = (uint8_t)(route_test_lcg(&seed) % REF_VLS);
		s.n_vls = REF_VLS;
	}
	ref_break(&f, &s, n < 0 ? 4097 : 1, max_lid, k, &seed);
	route_check_run(&f, &s, &opts, &got);
	ref_run(&r, &f, &s, max_lid);
	CU_ASSERT_TRUE(max_lid > 64); /* more than one block of LIDs */
	CU_ASSERT_EQUAL(got.pairs, r.res.pairs);
	CU_ASSERT_EQUAL(got.unreachable, r.res.unreachable);
	CU_ASSERT_EQUAL(got.loops, r.res.loops);
	CU_ASSERT_EQUAL(got.bad_ports, 0);
	CU_ASSERT_EQUAL(got.max_hops, r.res.max_hops);
	CU_ASSERT_EQUAL(got.credit_loop, r.res.credit_loop);
	CU_ASSERT_EQUAL(got.turns, r.res.turns);
	if (got.pairs != r.res.pairs || got.unreachable != r.res.unreachable ||
	    got.loops != r.res.loops || got.credit_loop != r.res.credit_loop ||
	    got.turns != r.res.turns)
		fprintf(stderr,
			"check_ref %s n=%d k=%d sls=%d seed=%u: gate %zu/%zu/%zu/%zu/%d, "
			"reference %zu/%zu/%zu/%zu/%d (pairs/unreachable/loops/turns/credit "
			"loop)\n",
			eng->name, n, k, sls, seed0, got.pairs, got.unreachable, got.loops,
			got.turns, got.credit_loop, r.res.pairs, r.res.unreachable, r.res.loops,
			r.res.turns, r.res.credit_loop);
	lft_set_fini(&s);
	fabric_fini(&f);
	return got;
}

/* Clean tables and broken ones, up/down and min-hop, one VL and two; the
 * cases must include black holes, loops, credit loops and clean passes,
 * or the comparison proves nothing. */
static void test_check_ref_random(void)
{
	const struct route_engine *engs[] = {&route_engine_updn, &route_engine_minhop};
	unsigned holes = 0, loops = 0, credit = 0, clean = 0;

	for (uint32_t seed = 1; seed <= 36; seed++) {
		const struct route_engine *eng = engs[seed % 2];
		int k = seed % 4 == 0 ? 0 : (int)(seed % 5) * 3;
		int n = seed > 24 ? 0 : 70 + (int)seed * 3;
		struct route_check got =
		    ref_case(eng, n, seed > 24 ? k * 4 : k, seed % 3 == 0, seed);

		holes += got.unreachable > 0;
		loops += got.loops > 0;
		credit += got.credit_loop != 0;
		clean += !got.unreachable && !got.loops && !got.credit_loop;
	}
	CU_ASSERT_TRUE(holes > 0);
	CU_ASSERT_TRUE(loops > 0);
	CU_ASSERT_TRUE(credit > 0);
	CU_ASSERT_TRUE(clean > 0);
}

/* More destinations than the walk's stamps, the tables broken only for
 * the LIDs after them: the stamps must start again, not look current. */
static void test_check_ref_stamps(void)
{
	struct route_check got = ref_case(&route_engine_minhop, -1, 12, 0, 5);

	CU_ASSERT_TRUE(got.pairs > 4096);
	CU_ASSERT_TRUE(got.unreachable > 0 || got.loops > 0);
}

void test_check_ref_register(void)
{
	CU_pSuite s = CU_add_suite("check_ref", NULL, NULL);

	CU_add_test(s, "gate against a pair-by-pair reference", test_check_ref_random);
	CU_add_test(s, "more destinations than stamps", test_check_ref_stamps);
}
