/*
 * test_lft_order.c - LFT writes in a loop-free order (sm/core/lft_push.c):
 * when a cable goes and routes move, no moment between two block Sets
 * has a forwarding loop, judged on the fake's switches after every Set.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/core/sm.h"
#include "tests/unit/sm_rig.h"
#include "tests/unit/unit.h"

struct order_watch {
	struct rig *r;
	unsigned sets;	/* Sets seen */
	unsigned loops; /* (switch, LID) pairs that looped, summed over the Sets */
};

/* Does a packet for dlid entering switch s come back to a switch it saw? */
static int order_loops(const struct fabric *st, const struct fake_fabric *ff, int s, uint16_t dlid)
{
	int node = s;

	for (size_t hops = 0; hops <= st->n_nodes; hops++) {
		const struct fabric_node *n = &st->nodes[node];
		uint16_t top;
		const uint8_t *lft = fake_fabric_lft(ff, n->guid, &top);
		uint8_t out;

		if (!lft || dlid > top || (out = lft[dlid]) == LFT_DROP || out == 0 ||
		    out > n->num_ports || n->ports[out].remote_node == FABRIC_NONE)
			return 0;
		node = n->ports[out].remote_node;
		if (!fabric_is_switch(&st->nodes[node]))
			return 0;
	}
	return 1;
}

static void order_check(void *arg)
{
	struct order_watch *w = arg;
	const struct fabric *st = fake_fabric_state(w->r->ff);

	w->sets++;
	for (size_t s = 0; s < st->n_nodes; s++) {
		if (!fabric_is_switch(&st->nodes[s]))
			continue;
		for (size_t c = 0; c < st->n_nodes; c++)
			if (!fabric_is_switch(&st->nodes[c]) && st->nodes[c].ports[1].lid)
				w->loops += (unsigned)order_loops(st, w->r->ff, (int)s,
								  st->nodes[c].ports[1].lid);
	}
}

/* A ring of n switches, host hK on sK port 1; sK port 2 to sK+1 port 3. */
static char *order_ring(unsigned n)
{
	size_t cap = 16384, len = 0;
	char *t = malloc(cap);

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	for (unsigned k = 1; k <= n; k++)
		len +=
		    (size_t)snprintf(t + len, cap - len, "Hca 1 \"h%u\"\n[1] \"s%u\"[1]\n\n", k, k);
	for (unsigned k = 1; k <= n; k++)
		len += (size_t)snprintf(
		    t + len, cap - len,
		    "Switch 4 \"s%u\"\n[1] \"h%u\"[1]\n[2] \"s%u\"[3]\n[3] \"s%u\"[2]\n\n", k, k,
		    k % n + 1, (k + n - 2) % n + 1);
	CU_ASSERT_FATAL(len < cap);
	return t;
}

static void test_order_ring(void)
{
	for (unsigned n = 4; n <= 8; n++) {
		for (unsigned cut = 1; cut <= n; cut++) {
			char *topo = order_ring(n);
			struct rig r;
			struct order_watch w = {.r = &r};
			char name[16];

			rig_init(&r, topo, NULL, "updn");
			rig_sweep(&r);
			rig_check_up(&r);
			fake_fabric_on_lft_set(r.ff, order_check, &w);
			snprintf(name, sizeof(name), "s%u", cut);
			CU_ASSERT_EQUAL(fake_fabric_cable(
					    r.ff, r.topo.nodes[rig_node(&r.topo, name)].guid, 2, 0),
					0);
			rig_sweep(&r);
			CU_ASSERT_EQUAL(r.last.status, 0);
			if (w.loops)
				fprintf(stderr, "ring %u cut %u: %u sets, %u loops\n", n, cut,
					w.sets, w.loops);
			CU_ASSERT_EQUAL(w.loops, 0);
			/* and back: the routes return, still no loop on the way */
			CU_ASSERT_EQUAL(fake_fabric_cable(r.ff, r.topo.nodes[rig_node(&r.topo, name)].guid,
							  2, 1), 0);
			rig_sweep(&r);
			CU_ASSERT_EQUAL(r.last.status, 0);
			CU_ASSERT_EQUAL(w.loops, 0);
			rig_check_up(&r);
			fake_fabric_on_lft_set(r.ff, NULL, NULL);
			rig_fini(&r);
			free(topo);
		}
	}
}

void test_lft_order_register(void)
{
	CU_pSuite s = CU_add_suite("lft order", NULL, NULL);

	CU_add_test(s, "a cable goes and comes back on a ring: no loop between two Sets",
		    test_order_ring);
}
