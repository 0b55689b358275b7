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
#include "tests/unit/unit.h"

#define NO_PATH 1000

/* ---- Building fabrics -------------------------------------------------- */

static int add_sw(struct fabric *f, unsigned ports)
{
	return fabric_add_node(f, 0x0002000000000000ULL + f->n_nodes + 1, 2, (uint8_t)ports);
}

static int add_ca(struct fabric *f, unsigned ports)
{
	int n = fabric_add_node(f, 0x0001000000000000ULL + (f->n_nodes + 1) * 0x10, 1,
				(uint8_t)ports);

	for (unsigned p = 1; p <= ports; p++)
		f->nodes[n].ports[p].guid = f->nodes[n].guid + p;
	return n;
}

/* A host with one port cabled to switch sw port p. */
static int add_host(struct fabric *f, int sw, unsigned p)
{
	int h = add_ca(f, 1);

	CU_ASSERT_EQUAL(fabric_link(f, h, 1, sw, (uint8_t)p), 0);
	return h;
}

/* LIDs in node order: a switch's port 0, then each cabled CA port.
 * Returns the highest LID given. */
static uint16_t assign_lids(struct fabric *f)
{
	uint16_t lid = 0;

	for (size_t i = 0; i < f->n_nodes; i++) {
		struct fabric_node *n = &f->nodes[i];

		if (fabric_is_switch(n)) {
			n->ports[0].guid = n->guid;
			n->ports[0].lid = ++lid;
			continue;
		}
		for (unsigned p = 1; p <= n->num_ports; p++) {
			n->ports[p].present = n->ports[p].remote_node != FABRIC_NONE;
			if (n->ports[p].present)
				n->ports[p].lid = ++lid;
		}
	}
	return lid;
}

static int route(const struct fabric *f, uint16_t max_lid, struct lft_set *out)
{
	struct route_opts opts = { .max_lid = max_lid };
	struct route_err err;
	int rc;

	lft_set_init(out);
	rc = route_engine_minhop.compute(f, &opts, out, &err);
	if (rc)
		fprintf(stderr, "\n  minhop: %s\n", err.msg);
	return rc;
}

static uint8_t out_port(const struct lft_set *s, int sw, uint16_t lid)
{
	const struct lft *t = lft_set_find_const(s, sw);

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	return lid <= t->top ? t->port[lid] : LFT_DROP;
}

/* ---- Checking routes --------------------------------------------------- */

/* Switch-hop distances between all nodes (switch graph only), computed
 * independently of the engine with Floyd-Warshall. */
static int *switch_distances(const struct fabric *f)
{
	size_t n = f->n_nodes;
	int *d = malloc(n * n * sizeof(*d));

	for (size_t i = 0; i < n * n; i++)
		d[i] = i / n == i % n ? 0 : NO_PATH;
	for (size_t i = 0; i < n; i++) {
		const struct fabric_node *a = &f->nodes[i];

		for (unsigned p = 1; fabric_is_switch(a) && p <= a->num_ports; p++) {
			int r = a->ports[p].remote_node;

			if (r != FABRIC_NONE && r != (int)i && fabric_is_switch(&f->nodes[r]))
				d[i * n + (size_t)r] = 1;
		}
	}
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < n; j++)
				if (d[i * n + k] + d[k * n + j] < d[i * n + j])
					d[i * n + j] = d[i * n + k] + d[k * n + j];
	return d;
}

/* Follow dlid from switch sw; returns the switch hops taken to reach the
 * port owning dlid, or -1 if it is dropped, lost or loops. */
static int follow(const struct fabric *f, const struct lft_set *s, int sw, uint16_t dlid)
{
	for (int hops = 0; hops <= (int)f->n_nodes; hops++) {
		const struct fabric_node *n = &f->nodes[sw];
		uint8_t p = out_port(s, sw, dlid);
		int r;

		if (p == LFT_DROP || p > n->num_ports)
			return -1;
		if (p == 0)
			return n->ports[0].lid == dlid ? hops : -1;
		r = n->ports[p].remote_node;
		if (r == FABRIC_NONE)
			return -1;
		if (!fabric_is_switch(&f->nodes[r])) {
			const struct fabric_port *rp = &f->nodes[r].ports[n->ports[p].remote_port];

			return dlid >= rp->lid && dlid < rp->lid + (1u << rp->lmc) ? hops : -1;
		}
		sw = r;
	}
	return -1;
}

/* The switch a LID-owning port hangs off (itself for a switch). */
static int attach_switch(const struct fabric *f, int node, unsigned port)
{
	const struct fabric_port *p = &f->nodes[node].ports[port];

	if (fabric_is_switch(&f->nodes[node]))
		return node;
	if (p->remote_node == FABRIC_NONE || !fabric_is_switch(&f->nodes[p->remote_node]))
		return FABRIC_NONE;
	return p->remote_node;
}

/* Every switch reaches every LID it can reach in the fewest switch hops,
 * and drops the ones it cannot.  Returns the number of bad routes. */
static int check_all_routes(const struct fabric *f, const struct lft_set *s)
{
	int *d = switch_distances(f), bad = 0;
	size_t n = f->n_nodes;

	for (size_t src = 0; src < n; src++) {
		if (!fabric_is_switch(&f->nodes[src]))
			continue;
		for (size_t dst = 0; dst < n; dst++) {
			const struct fabric_node *dn = &f->nodes[dst];

			for (unsigned p = fabric_is_switch(dn) ? 0 : 1; p <= dn->num_ports; p++) {
				int at = attach_switch(f, (int)dst, p), want, got;

				if (!dn->ports[p].lid || (fabric_is_switch(dn) && p > 0))
					continue;
				want = at == FABRIC_NONE ? NO_PATH : d[src * n + (size_t)at];
				got = follow(f, s, (int)src, dn->ports[p].lid);
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

/* How many LIDs switch sw sends out of port p. */
static unsigned lids_on_port(const struct lft_set *s, int sw, uint8_t p)
{
	const struct lft *t = lft_set_find_const(s, sw);
	unsigned n = 0;

	for (unsigned lid = 1; lid <= t->top; lid++)
		n += t->port[lid] == p;
	return n;
}

static unsigned lids_on_ports(const struct lft_set *s, int sw, uint8_t first, uint8_t last)
{
	unsigned n = 0;

	for (unsigned p = first; p <= last; p++)
		n += lids_on_port(s, sw, (uint8_t)p);
	return n;
}

/* max - min of the LID counts on ports first..last of sw. */
/* max - min over ports first..last of the CA (host) LIDs each carries */
static unsigned host_spread(const struct fabric *f, const struct lft_set *s, int sw,
			    uint8_t first, uint8_t last)
{
	const struct lft *t = lft_set_find_const(s, sw);
	unsigned lo = ~0u, hi = 0;

	for (unsigned p = first; p <= last; p++) {
		unsigned c = 0;

		for (size_t i = 0; i < f->n_nodes; i++) {
			const struct fabric_node *n = &f->nodes[i];

			for (unsigned q = 1; !fabric_is_switch(n) && q <= n->num_ports; q++)
				c += n->ports[q].lid && n->ports[q].lid <= t->top &&
				     t->port[n->ports[q].lid] == p;
		}
		lo = c < lo ? c : lo;
		hi = c > hi ? c : hi;
	}
	return hi - lo;
}

static unsigned spread(const struct lft_set *s, int sw, uint8_t first, uint8_t last)
{
	unsigned lo = ~0u, hi = 0;

	for (unsigned p = first; p <= last; p++) {
		unsigned c = lids_on_port(s, sw, (uint8_t)p);

		lo = c < lo ? c : lo;
		hi = c > hi ? c : hi;
	}
	return hi - lo;
}

/* ---- Small fabrics ----------------------------------------------------- */

static void test_minhop_single_switch(void)
{
	struct fabric f;
	struct lft_set s;
	int sw;

	fabric_init(&f);
	sw = add_sw(&f, 8);
	add_host(&f, sw, 1);
	add_host(&f, sw, 2);
	add_host(&f, sw, 5);
	CU_ASSERT_EQUAL(assign_lids(&f), 4);
	CU_ASSERT_EQUAL_FATAL(route(&f, 10, &s), 0);
	CU_ASSERT_EQUAL(s.n, 1);
	CU_ASSERT_EQUAL(s.tables[0].top, 10);
	CU_ASSERT_EQUAL(out_port(&s, sw, 0), LFT_DROP);
	CU_ASSERT_EQUAL(out_port(&s, sw, 1), 0); /* its own LID */
	CU_ASSERT_EQUAL(out_port(&s, sw, 2), 1);
	CU_ASSERT_EQUAL(out_port(&s, sw, 3), 2);
	CU_ASSERT_EQUAL(out_port(&s, sw, 4), 5);
	for (uint16_t lid = 5; lid <= 10; lid++)
		CU_ASSERT_EQUAL(out_port(&s, sw, lid), LFT_DROP);
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
	sw1 = add_sw(&f, 8);
	sw2 = add_sw(&f, 8);
	fabric_link(&f, sw1, 7, sw2, 7);
	fabric_link(&f, sw1, 8, sw2, 8);
	add_host(&f, sw1, 1);
	add_host(&f, sw1, 2);
	add_host(&f, sw2, 1);
	add_host(&f, sw2, 2);
	assign_lids(&f); /* sw1 1, sw2 2, hosts 3..6 */
	CU_ASSERT_EQUAL_FATAL(route(&f, 6, &s), 0);
	CU_ASSERT_EQUAL(check_all_routes(&f, &s), 0);
	/* sw2's LID and its two hosts' LIDs leave sw1 over both cables */
	CU_ASSERT_EQUAL(lids_on_ports(&s, sw1, 7, 8), 3);
	CU_ASSERT_EQUAL(spread(&s, sw1, 7, 8), 1);
	CU_ASSERT_EQUAL(spread(&s, sw2, 7, 8), 1);
	/* ties go to the lower port first, then alternate; a switch's LID
	 * takes the least-loaded port but is not counted */
	CU_ASSERT_EQUAL(out_port(&s, sw1, 2), 7);
	CU_ASSERT_EQUAL(out_port(&s, sw1, 5), 7);
	CU_ASSERT_EQUAL(out_port(&s, sw1, 6), 8);
	CU_ASSERT_EQUAL(out_port(&s, sw2, 1), 7);
	CU_ASSERT_EQUAL(out_port(&s, sw2, 3), 7);
	CU_ASSERT_EQUAL(out_port(&s, sw2, 4), 8);
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
		sw[i] = add_sw(&f, 8);
	for (int i = 0; i < 4; i++) {
		fabric_link(&f, sw[i], 7, sw[(i + 1) % 4], 8);
		add_host(&f, sw[i], 1);
		add_host(&f, sw[i], 2);
	}
	assign_lids(&f);
	CU_ASSERT_EQUAL_FATAL(route(&f, f.nodes[sw[3]].ports[0].lid + 8, &s), 0);
	CU_ASSERT_EQUAL(check_all_routes(&f, &s), 0);
	for (int i = 0; i < 4; i++) {
		/* 3 LIDs on each neighbour go direct; the 3 across the ring
		 * are split between both directions */
		CU_ASSERT_EQUAL(lids_on_ports(&s, sw[i], 7, 8), 9);
		CU_ASSERT_EQUAL(spread(&s, sw[i], 7, 8), 1);
		CU_ASSERT_EQUAL(out_port(&s, sw[i], f.nodes[sw[(i + 1) % 4]].ports[0].lid), 7);
		CU_ASSERT_EQUAL(out_port(&s, sw[i], f.nodes[sw[(i + 3) % 4]].ports[0].lid), 8);
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
		sw[i] = add_sw(&f, 8);
	for (int i = 0; i < 4; i++) {
		fabric_link(&f, sw[i], 7, sw[(i + 1) % 4], 8);
		add_host(&f, sw[i], 1);
		add_host(&f, sw[i], 2);
	}
	fabric_link(&f, sw[0], 5, sw[2], 5);
	CU_ASSERT_EQUAL_FATAL(route(&f, assign_lids(&f), &s), 0);
	CU_ASSERT_EQUAL(check_all_routes(&f, &s), 0);
	CU_ASSERT_EQUAL(out_port(&s, sw[0], f.nodes[sw[2]].ports[0].lid), 5);
	/* sw1 and sw3 are two hops apart, by way of sw0 or sw2 */
	CU_ASSERT_EQUAL(lids_on_ports(&s, sw[1], 7, 8), 9);
	CU_ASSERT_EQUAL(spread(&s, sw[1], 7, 8), 1);
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
		spine[i] = add_sw(&f, 8);
	for (int l = 0; l < 4; l++) {
		leaf[l] = add_sw(&f, 8);
		add_host(&f, leaf[l], 1);
		add_host(&f, leaf[l], 2);
		fabric_link(&f, leaf[l], 3, spine[0], (uint8_t)(l + 1));
		fabric_link(&f, leaf[l], 4, spine[1], (uint8_t)(l + 1));
	}
	CU_ASSERT_EQUAL_FATAL(route(&f, assign_lids(&f), &s), 0);
	CU_ASSERT_EQUAL(check_all_routes(&f, &s), 0);
	for (int l = 0; l < 4; l++) {
		/* 9 LIDs on other leaves + 2 spine LIDs over two up ports;
		 * the 6 host LIDs (7..14 but the leaf's own) split evenly */
		CU_ASSERT_EQUAL(lids_on_ports(&s, leaf[l], 3, 4), 11);
		CU_ASSERT_EQUAL(host_spread(&f, &s, leaf[l], 3, 4), 0);
		CU_ASSERT_EQUAL(out_port(&s, leaf[l], f.nodes[spine[1]].ports[0].lid), 4);
	}
	for (int i = 0; i < 2; i++) {
		/* 3 LIDs per leaf, plus the other spine's LID through one leaf */
		CU_ASSERT_EQUAL(spread(&s, spine[i], 1, 4), 1);
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
	a = add_sw(&f, 4);
	b = add_sw(&f, 4); /* an island: no cable to a */
	h = add_host(&f, b, 1);
	lonely = add_ca(&f, 1); /* not cabled at all */
	x = add_ca(&f, 1);
	y = add_ca(&f, 1);
	fabric_link(&f, x, 1, y, 1); /* back to back, no switch */
	assign_lids(&f);
	f.nodes[lonely].ports[1].lid = 9;
	CU_ASSERT_EQUAL_FATAL(route(&f, 12, &s), 0);
	CU_ASSERT_EQUAL(check_all_routes(&f, &s), 0);
	CU_ASSERT_EQUAL(out_port(&s, a, f.nodes[b].ports[0].lid), LFT_DROP);
	CU_ASSERT_EQUAL(out_port(&s, a, f.nodes[h].ports[1].lid), LFT_DROP);
	CU_ASSERT_EQUAL(out_port(&s, b, f.nodes[h].ports[1].lid), 1);
	CU_ASSERT_EQUAL(out_port(&s, b, 9), LFT_DROP);
	CU_ASSERT_EQUAL(out_port(&s, b, f.nodes[x].ports[1].lid), LFT_DROP);
	lft_set_fini(&s);
	fabric_fini(&f);
}

static void test_minhop_lmc(void)
{
	struct fabric f;
	struct lft_set s;
	int a, b, h;

	fabric_init(&f);
	a = add_sw(&f, 4);
	b = add_sw(&f, 4);
	fabric_link(&f, a, 3, b, 3);
	h = add_host(&f, b, 1);
	f.nodes[a].ports[0].lid = 1;
	f.nodes[b].ports[0].lid = 2;
	f.nodes[h].ports[1].lid = 4;
	f.nodes[h].ports[1].lmc = 2; /* LIDs 4..7 */
	CU_ASSERT_EQUAL_FATAL(route(&f, 8, &s), 0);
	for (uint16_t lid = 4; lid <= 7; lid++) {
		CU_ASSERT_EQUAL(out_port(&s, a, lid), 3);
		CU_ASSERT_EQUAL(out_port(&s, b, lid), 1);
	}
	CU_ASSERT_EQUAL(out_port(&s, a, 8), LFT_DROP);
	lft_set_fini(&s);
	fabric_fini(&f);
}

static void test_minhop_no_switches(void)
{
	struct fabric f;
	struct lft_set s;
	int x, y;

	fabric_init(&f);
	x = add_ca(&f, 1);
	y = add_ca(&f, 1);
	fabric_link(&f, x, 1, y, 1);
	CU_ASSERT_EQUAL(route(&f, assign_lids(&f), &s), 0);
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
	max = assign_lids(&f);
	CU_ASSERT_EQUAL(max, 76);
	CU_ASSERT_EQUAL_FATAL(route(&f, max, &s), 0);
	CU_ASSERT_EQUAL(check_all_routes(&f, &s), 0);
	for (size_t i = 0; i < f.n_nodes; i++) {
		/* 7 leaves x 9 LIDs + 4 spine LIDs over 8 up ports */
		if (!strncmp(f.nodes[i].desc, "leaf", 4)) {
			CU_ASSERT_EQUAL(lids_on_ports(&s, (int)i, 9, 16), 67);
			/* the 56 host LIDs: 7 per up port, d-mod-k like */
			CU_ASSERT_EQUAL(host_spread(&f, &s, (int)i, 9, 16), 0);
		}
		/* 8 leaves x 9 LIDs + 3 other spines' LIDs over 16 down ports */
		if (!strncmp(f.nodes[i].desc, "spine", 5)) {
			CU_ASSERT_EQUAL(lids_on_ports(&s, (int)i, 1, 16), 75);
			CU_ASSERT_EQUAL(host_spread(&f, &s, (int)i, 1, 16), 0);
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
	struct route_err err;
	struct fabric f;
	struct lft_set s;
	int sw, h1, h2;

	fabric_init(&f);
	sw = add_sw(&f, 4);
	h1 = add_host(&f, sw, 1);
	h2 = add_host(&f, sw, 2);
	assign_lids(&f);
	lft_set_init(&s);
	f.nodes[h2].ports[1].lid = 20;
	CU_ASSERT_EQUAL(route_engine_minhop.compute(&f, &opts, &s, &err), -ERANGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "port 0x0001000000000031/1: LID 20 above max_lid 10");
	CU_ASSERT_EQUAL(s.n, 0);
	f.nodes[h2].ports[1].lid = f.nodes[h1].ports[1].lid;
	CU_ASSERT_EQUAL(route_engine_minhop.compute(&f, &opts, &s, &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "port 0x0001000000000031/1: LID 2 also used by port "
					"0x0001000000000021/1");
	CU_ASSERT_EQUAL(s.n, 0);
	opts.max_lid = LID_UNICAST_MAX + 1;
	CU_ASSERT_EQUAL(route_engine_minhop.compute(&f, &opts, &s, &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "max_lid 49152 above the unicast range (0xbfff)");
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
	CU_ASSERT_PTR_NULL(route_engine_find("ftre"));
	CU_ASSERT_PTR_NULL(route_engine_find(""));
	CU_ASSERT_PTR_NULL(route_engine_find(NULL));
	for (; all[n]; n++) {
		CU_ASSERT_PTR_NOT_NULL(all[n]->name);
		CU_ASSERT_PTR_NOT_NULL(all[n]->summary);
		CU_ASSERT_PTR_NOT_NULL(all[n]->compute);
		CU_ASSERT_PTR_EQUAL(route_engine_find(all[n]->name), all[n]);
	}
	CU_ASSERT_EQUAL(n, 3);
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
