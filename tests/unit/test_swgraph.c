/*
 * test_swgraph.c - unit tests for the switch graph the engines share:
 * numbering, cables, components, BFS, LID claims and the least-loaded
 * spread, on small fabrics built in memory.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/route.h"
#include "routing/swgraph.h"
#include "tests/unit/unit.h"

static int add_sw(struct fabric *f, unsigned ports)
{
	int n = fabric_add_node(f, 0x0002000000000000ULL + f->n_nodes + 1, 2, (uint8_t)ports);

	f->nodes[n].ports[0].guid = f->nodes[n].guid;
	return n;
}

static int add_ca(struct fabric *f, unsigned ports)
{
	int n =
	    fabric_add_node(f, 0x0001000000000000ULL + (f->n_nodes + 1) * 0x10, 1, (uint8_t)ports);

	for (unsigned p = 1; p <= ports; p++)
		f->nodes[n].ports[p].guid = f->nodes[n].guid + p;
	return n;
}

/* ca0 - A = B (two cables), A loops port 4 to port 5, ca3 - B; C alone. */
static void build(struct fabric *f, int *a, int *b, int *c)
{
	int ca0, ca3;

	fabric_init(f);
	ca0 = add_ca(f, 2);
	*a = add_sw(f, 5);
	*b = add_sw(f, 6);
	ca3 = add_ca(f, 1);
	*c = add_sw(f, 3);
	CU_ASSERT_EQUAL(fabric_link(f, ca0, 1, *a, 1), 0);
	CU_ASSERT_EQUAL(fabric_link(f, *a, 2, *b, 6), 0);
	CU_ASSERT_EQUAL(fabric_link(f, *a, 3, *b, 5), 0);
	CU_ASSERT_EQUAL(fabric_link(f, *a, 4, *a, 5), 0);
	CU_ASSERT_EQUAL(fabric_link(f, ca3, 1, *b, 1), 0);
}

static void test_swgraph_numbering(void)
{
	struct fabric f;
	struct swgraph g;
	int a, b, c;

	build(&f, &a, &b, &c);
	CU_ASSERT_EQUAL_FATAL(swgraph_init(&g, &f, 0), 0);
	CU_ASSERT_EQUAL(g.n_sw, 3);
	CU_ASSERT_EQUAL(g.sw_of[0], -1);
	CU_ASSERT_EQUAL(g.sw_of[a], 0);
	CU_ASSERT_EQUAL(g.sw_of[b], 1);
	CU_ASSERT_EQUAL(g.sw_of[3], -1);
	CU_ASSERT_EQUAL(g.sw_of[c], 2);
	CU_ASSERT_EQUAL(g.sw_node[0], a);
	CU_ASSERT_EQUAL(g.sw_node[2], c);
	CU_ASSERT_EQUAL(g.port_base[0], 0);
	CU_ASSERT_EQUAL(g.port_base[1], 6);
	CU_ASSERT_EQUAL(g.port_base[2], 13);
	CU_ASSERT_EQUAL(g.port_base[3], 17);
	CU_ASSERT_EQUAL(g.has_ca[0], 1);
	CU_ASSERT_EQUAL(g.has_ca[1], 1);
	CU_ASSERT_EQUAL(g.has_ca[2], 0);
	CU_ASSERT_EQUAL(swgraph_guid(&g, 1), f.nodes[b].guid);
	CU_ASSERT_EQUAL(swgraph_far_switch(&g, &f.nodes[0].ports[1]), 0);
	CU_ASSERT_EQUAL(swgraph_far_switch(&g, &f.nodes[0].ports[2]), -1);
	CU_ASSERT_EQUAL(swgraph_far_switch(&g, &f.nodes[a].ports[1]), -1);
	swgraph_fini(&g);
	swgraph_fini(&g); /* safe twice */
	fabric_fini(&f);
}

static void test_swgraph_cables(void)
{
	struct fabric f;
	struct swgraph g;
	int a, b, c;

	build(&f, &a, &b, &c);
	CU_ASSERT_EQUAL_FATAL(swgraph_init(&g, &f, 0), 0);
	/* A: ports 2, 3 to B (6, 5); the loop is left out; B: 5, 6 to A */
	CU_ASSERT_EQUAL(g.adj_start[1] - g.adj_start[0], 2);
	CU_ASSERT_EQUAL(g.adj[0].sw, 1);
	CU_ASSERT_EQUAL(g.adj[0].port, 2);
	CU_ASSERT_EQUAL(g.adj[0].rport, 6);
	CU_ASSERT_EQUAL(g.adj[1].port, 3);
	CU_ASSERT_EQUAL(g.adj[1].rport, 5);
	CU_ASSERT_EQUAL(g.adj_start[2] - g.adj_start[1], 2);
	CU_ASSERT_EQUAL(g.adj[2].sw, 0);
	CU_ASSERT_EQUAL(g.adj[2].port, 5);
	CU_ASSERT_EQUAL(g.adj[3].port, 6);
	CU_ASSERT_EQUAL(g.adj_start[3], g.adj_start[2]);
	swgraph_fini(&g);

	/* keep_loops: A lists its loop from both ends, in port order */
	CU_ASSERT_EQUAL_FATAL(swgraph_init(&g, &f, 1), 0);
	CU_ASSERT_EQUAL(g.adj_start[1] - g.adj_start[0], 4);
	CU_ASSERT_EQUAL(g.adj[2].sw, 0);
	CU_ASSERT_EQUAL(g.adj[2].port, 4);
	CU_ASSERT_EQUAL(g.adj[2].rport, 5);
	CU_ASSERT_EQUAL(g.adj[3].port, 5);
	CU_ASSERT_EQUAL(g.adj[3].rport, 4);
	swgraph_fini(&g);
	fabric_fini(&f);
}

/* A chain s0 - s1 - s2 - s3 and a pair s4 - s5: components and BFS. */
static void test_swgraph_components_and_bfs(void)
{
	struct fabric f;
	struct swgraph g;
	int sw[6], dist[6], queue[6];
	uint8_t via[6];
	size_t n;

	fabric_init(&f);
	for (int i = 0; i < 6; i++)
		sw[i] = add_sw(&f, 4);
	CU_ASSERT_EQUAL(fabric_link(&f, sw[2], 1, sw[3], 2), 0);
	CU_ASSERT_EQUAL(fabric_link(&f, sw[0], 1, sw[1], 2), 0);
	CU_ASSERT_EQUAL(fabric_link(&f, sw[1], 1, sw[2], 2), 0);
	CU_ASSERT_EQUAL(fabric_link(&f, sw[4], 3, sw[5], 3), 0);
	CU_ASSERT_EQUAL_FATAL(swgraph_init(&g, &f, 0), 0);
	CU_ASSERT_EQUAL(g.n_comp, 2);
	CU_ASSERT_EQUAL(g.comp[0], 0);
	CU_ASSERT_EQUAL(g.comp[3], 0);
	CU_ASSERT_EQUAL(g.comp[4], 1);
	CU_ASSERT_EQUAL(g.comp[5], 1);
	CU_ASSERT_EQUAL(g.comp_start[0], 0);
	CU_ASSERT_EQUAL(g.comp_start[1], 4);
	CU_ASSERT_EQUAL(g.comp_start[2], 6);
	for (int i = 0; i < 4; i++) /* breadth first from s0 */
		CU_ASSERT_EQUAL(g.comp_sw[i], i);

	n = swgraph_bfs_from(&g, 3, queue, dist, via);
	CU_ASSERT_EQUAL(n, 4);
	CU_ASSERT_EQUAL(dist[0], 3);
	CU_ASSERT_EQUAL(dist[2], 1);
	CU_ASSERT_EQUAL(dist[4], -1);
	CU_ASSERT_EQUAL(via[2], 1); /* s2 port 1 leads back to s3 */
	CU_ASSERT_EQUAL(via[0], 1);
	CU_ASSERT_EQUAL(queue[3], 0);

	/* two sources at once, the rest unreached so far */
	for (int i = 0; i < 6; i++)
		dist[i] = -1;
	dist[0] = dist[5] = 0;
	queue[0] = 0;
	queue[1] = 5;
	n = swgraph_bfs(&g, queue, 2, dist, NULL);
	CU_ASSERT_EQUAL(n, 6);
	CU_ASSERT_EQUAL(dist[3], 3);
	CU_ASSERT_EQUAL(dist[4], 1);
	swgraph_fini(&g);
	fabric_fini(&f);
}

/* Switch A (LID 1, LMC 1: 1-2) and B (LID 3); host h1 on B (LIDs 8-11,
 * LMC 2), host h2 on A (LID 5), host h3 uncabled (LID 6). */
static void build_lids(struct fabric *f, int *a, int *b, int *h3)
{
	int h1, h2;

	fabric_init(f);
	h1 = add_ca(f, 1);
	*b = add_sw(f, 4);
	*a = add_sw(f, 4);
	h2 = add_ca(f, 1);
	*h3 = add_ca(f, 1);
	CU_ASSERT_EQUAL(fabric_link(f, *a, 1, *b, 1), 0);
	CU_ASSERT_EQUAL(fabric_link(f, h1, 1, *b, 3), 0);
	CU_ASSERT_EQUAL(fabric_link(f, h2, 1, *a, 4), 0);
	f->nodes[*a].ports[0].lid = 1;
	f->nodes[*a].ports[0].lmc = 1;
	f->nodes[*b].ports[0].lid = 3;
	f->nodes[h1].ports[1].lid = 8;
	f->nodes[h1].ports[1].lmc = 2;
	f->nodes[h2].ports[1].lid = 5;
	f->nodes[*h3].ports[1].lid = 6;
}

static void test_swgraph_collect_dests(void)
{
	struct fabric f;
	struct swgraph g;
	struct swgraph_dests d = {0};
	char err[256];
	int a, b, h3;

	build_lids(&f, &a, &b, &h3);
	CU_ASSERT_EQUAL_FATAL(swgraph_init(&g, &f, 0), 0);
	CU_ASSERT_EQUAL_FATAL(swgraph_collect_dests(&g, 11, 1, &d, err, sizeof(err)), 0);
	/* B is switch 0: its LID 3, then h1's 8..11; A: 1, 2, then h2's 5 */
	CU_ASSERT_EQUAL_FATAL(d.n, 8);
	CU_ASSERT_EQUAL(d.start[0], 0);
	CU_ASSERT_EQUAL(d.start[1], 5);
	CU_ASSERT_EQUAL(d.start[2], 8);
	CU_ASSERT_EQUAL(d.v[0].lid, 3);
	CU_ASSERT_EQUAL(d.v[0].exit_port, 0);
	CU_ASSERT_EQUAL(d.v[0].sw, 0);
	CU_ASSERT_EQUAL(d.v[1].lid, 8);
	CU_ASSERT_EQUAL(d.v[1].exit_port, 3);
	CU_ASSERT_EQUAL(d.v[4].lid, 11);
	CU_ASSERT_EQUAL(d.v[4].offset, 3);
	CU_ASSERT_EQUAL(d.v[5].lid, 1);
	CU_ASSERT_EQUAL(d.v[6].lid, 2);
	CU_ASSERT_EQUAL(d.v[6].offset, 1);
	CU_ASSERT_EQUAL(d.v[7].lid, 5);
	CU_ASSERT_EQUAL(d.v[7].exit_port, 4);
	CU_ASSERT_EQUAL(d.v[7].sw, 1);
	swgraph_dests_fini(&d);

	/* without the switches' own LIDs */
	CU_ASSERT_EQUAL_FATAL(swgraph_collect_dests(&g, 11, 0, &d, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(d.n, 5);
	CU_ASSERT_EQUAL(d.start[1], 4);
	CU_ASSERT_EQUAL(d.v[4].lid, 5);
	swgraph_dests_fini(&d);
	swgraph_fini(&g);
	fabric_fini(&f);
}

static void test_swgraph_lid_errors(void)
{
	struct fabric f;
	struct swgraph g;
	struct swgraph_dests d = {0};
	char err[256];
	int a, b, h3;

	build_lids(&f, &a, &b, &h3);
	CU_ASSERT_EQUAL_FATAL(swgraph_init(&g, &f, 0), 0);
	CU_ASSERT_EQUAL(swgraph_collect_dests(&g, 10, 1, &d, err, sizeof(err)), -ERANGE);
	CU_ASSERT_STRING_EQUAL(err, "port 0x0001000000000011/1: LID 11 above max_lid 10");
	swgraph_dests_fini(&d);

	/* the uncabled h3 still owns its LID: h2 (earlier) is named */
	f.nodes[h3].ports[1].lid = 5;
	CU_ASSERT_EQUAL(swgraph_collect_dests(&g, 11, 1, &d, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "port 0x0001000000000051/1: LID 5 also used by port "
				    "0x0001000000000041/1");
	swgraph_dests_fini(&d);

	/* a switch's LMC range counts too */
	f.nodes[h3].ports[1].lid = 2;
	CU_ASSERT_EQUAL(swgraph_collect_dests(&g, 11, 0, &d, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "port 0x0001000000000051/1: LID 2 also used by port "
				    "0x0002000000000003/0");
	swgraph_dests_fini(&d);
	swgraph_fini(&g);
	fabric_fini(&f);
}

static void test_swgraph_opts_check(void)
{
	struct route_opts opts = {.max_lid = LID_UNICAST_MAX};
	char err[256] = "untouched";

	CU_ASSERT_EQUAL(route_opts_check(&opts, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(err, "untouched");
	opts.max_lid = LID_UNICAST_MAX + 1;
	CU_ASSERT_EQUAL(route_opts_check(&opts, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "max_lid 49152 above the unicast range (0xbfff)");
}

static void test_swgraph_exits(void)
{
	struct swgraph_dest d[] = {{4, 0, 0, 0}, {9, 3, 0, 0}, {10, 3, 1, 0}};
	uint8_t lft[16];
	uint32_t load[8] = {0};

	memset(lft, LFT_DROP, sizeof(lft));
	swgraph_route_exits(lft, load, d, 3);
	CU_ASSERT_EQUAL(lft[4], 0);
	CU_ASSERT_EQUAL(lft[9], 3);
	CU_ASSERT_EQUAL(lft[10], 3);
	CU_ASSERT_EQUAL(lft[5], LFT_DROP);
	CU_ASSERT_EQUAL(load[0], 1);
	CU_ASSERT_EQUAL(load[3], 2);
}

static uint8_t spread_best(const uint32_t *load, const uint8_t *cand, size_t k)
{
	uint8_t best = cand[0];

	for (size_t c = 1; c < k; c++)
		if (load[cand[c]] < load[best])
			best = cand[c];
	return best;
}

/* The spread gives every endpoint LID in turn to the least-loaded
 * candidate, the first in cand on a tie, and counts it; a switch's own LID
 * (exit port 0) goes to the least-loaded candidate as the loads stood
 * before the call, uncounted.  Checked against that rule on random loads
 * (a third of the rounds with every candidate equally loaded, half of
 * those through swgraph_spread_even) and random mixes; and what the
 * return value promises. */
static void test_swgraph_spread(void)
{
	struct swgraph_dest d[40];
	uint8_t cand[5] = {7, 2, 9, 4, 5}, lft[64], want[64];
	uint32_t load[16], ref[16], before[16];
	unsigned seed = 12345;

	for (int round = 0; round < 200; round++) {
		size_t k = 1 + (size_t)round % 5, n = (size_t)round % 41, counted = 0;
		int even;

		for (size_t i = 0; i < 40; i++) {
			seed = seed * 1103515245u + 12345u;
			d[i] = (struct swgraph_dest){(uint16_t)(i + 1), (seed >> 16) % 7 ? 1 : 0, 0, 0};
		}
		for (size_t p = 0; p < 16; p++) {
			seed = seed * 1103515245u + 12345u;
			/* every third round all equal: the round-robin shortcut */
			load[p] = ref[p] = before[p] = round % 3 ? (seed >> 16) % 4 : 2;
		}
		memset(lft, LFT_DROP, sizeof(lft));
		memset(want, LFT_DROP, sizeof(want));
		for (size_t i = 0; i < n; i++) {
			uint8_t best = spread_best(d[i].exit_port ? ref : before, cand, k);

			want[d[i].lid] = best;
			ref[best] += d[i].exit_port != 0;
		}
		/* equal loads: every other such round by the shortcut the
		 * caller may take when it knows (swgraph_spread_even) */
		even = round % 6 == 0 ? swgraph_spread_even(lft, load, cand, k, d, n)
				      : swgraph_spread(lft, load, cand, k, d, n);
		CU_ASSERT_EQUAL(memcmp(lft, want, sizeof(lft)), 0);
		CU_ASSERT_EQUAL(memcmp(load, ref, sizeof(load)), 0);
		/* 1 promises equal loads now, and equal loads before come
		 * with it whenever the LIDs counted fill each candidate alike */
		for (size_t c = 1; c < k && even; c++)
			CU_ASSERT_EQUAL(ref[cand[c]], ref[cand[0]]);
		for (size_t i = 0; i < n; i++)
			counted += d[i].exit_port != 0;
		if (round % 3 == 0)
			CU_ASSERT_EQUAL(even, counted % k == 0);
	}
}

void test_swgraph_register(void)
{
	CU_pSuite s = CU_add_suite("swgraph", NULL, NULL);

	CU_add_test(s, "switch ordinals, port slots, CA-bearing switches", test_swgraph_numbering);
	CU_add_test(s, "cables: port order, far ports, loops only on request", test_swgraph_cables);
	CU_add_test(s, "components and breadth-first search", test_swgraph_components_and_bfs);
	CU_add_test(s, "destination LIDs: LMC ranges, grouped by switch",
		    test_swgraph_collect_dests);
	CU_add_test(s, "LID errors: above max_lid, owned twice", test_swgraph_lid_errors);
	CU_add_test(s, "engine option check and error text", test_swgraph_opts_check);
	CU_add_test(s, "exits: own LIDs to port 0, CA LIDs to their port", test_swgraph_exits);
	CU_add_test(s, "spread: least loaded first, first candidate on a tie", test_swgraph_spread);
}
