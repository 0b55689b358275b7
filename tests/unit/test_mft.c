/*
 * test_mft.c - multicast forwarding: spanning trees (routing/mft.c), the MFT
 * block codec and diff rule, and the MFT push (sm/core/mft_push.c) against
 * the fake fabric.  Part of suite mcast (test_mcast.c).
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "mad/sa_mcm.h"
#include "routing/mft.h"
#include "routing/topo_file.h"
#include "sm/core/mft_push.h"
#include "sm/core/sm_priv.h"
#include "sm/sa/mcast.h"
#include "tests/unit/mcast_test.h"
#include "tests/unit/sm_rig.h"

/* ---- trees ----------------------------------------------------------------------- */

/* Follow a multicast packet from CA src through the masks: every CA it
 * reaches is counted in got[]; a switch entered twice is a loop. */
static int mc_flood(const struct fabric *f, const struct mft_set *s, uint16_t mlid, int src,
		    int *got)
{
	int queue[64], in_port[64], seen[64] = {0}, head = 0, tail = 0;

	queue[tail] = f->nodes[src].ports[1].remote_node;
	in_port[tail++] = f->nodes[src].ports[1].remote_port;
	while (head < tail) {
		int sw = queue[head], in = in_port[head++];
		const struct mft_table *t = mft_set_find(s, sw);

		if (seen[sw]++)
			return -1;
		for (unsigned p = 1; p <= f->nodes[sw].num_ports; p++) {
			const struct fabric_port *fp = &f->nodes[sw].ports[p];

			if ((int)p == in || !mft_port_get(t, mlid, (uint8_t)p))
				continue;
			if (fabric_is_switch(&f->nodes[fp->remote_node])) {
				queue[tail] = fp->remote_node;
				in_port[tail++] = fp->remote_port;
			} else {
				got[fp->remote_node]++;
			}
		}
	}
	return 0;
}

static void test_mft_tree(void)
{
	struct mcast_test_rig r;
	struct mft_set s, s2;
	struct mft_block_ref *diff;
	size_t n;
	int got[16] = {0}, h1, h3, l1, l2, s1, s2n;

	mcast_test_init(&r);
	h1 = rig_node(&r.f, "h1"), h3 = rig_node(&r.f, "h3");
	l1 = rig_node(&r.f, "l1"), l2 = rig_node(&r.f, "l2");
	s1 = rig_node(&r.f, "s1"), s2n = rig_node(&r.f, "s2");
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h3", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	mft_set_init(&s);
	CU_ASSERT_EQUAL_FATAL(mcast_mft_compute(r.sa, &s), 0);
	CU_ASSERT_EQUAL(s.n, 4);
	/* leaves: member port + one uplink; exactly one spine carries it */
	CU_ASSERT_EQUAL(mft_port_get(mft_set_find(&s, l1), 0xC000, 1), 1);
	CU_ASSERT_EQUAL(mft_port_get(mft_set_find(&s, l1), 0xC000, 2), 0);
	CU_ASSERT_EQUAL(mft_port_get(mft_set_find(&s, l2), 0xC000, 1), 1);
	CU_ASSERT_EQUAL(mft_port_get(mft_set_find(&s, l1), 0xC000, 5) +
				mft_port_get(mft_set_find(&s, l1), 0xC000, 6), 1);
	CU_ASSERT_EQUAL(mft_port_get(mft_set_find(&s, s1), 0xC000, 1) +
				mft_port_get(mft_set_find(&s, s2n), 0xC000, 1), 1);
	CU_ASSERT_EQUAL(mft_port_get(mft_set_find(&s, s1), 0xC000, 1),
			mft_port_get(mft_set_find(&s, s1), 0xC000, 2));
	CU_ASSERT_EQUAL(mft_port_get(mft_set_find(&s, s1), 0xC000, 0), 0);
	CU_ASSERT_EQUAL(mc_flood(&r.f, &s, 0xC000, h1, got), 0);
	CU_ASSERT_EQUAL(got[h3], 1);
	CU_ASSERT_EQUAL(got[h1], 0); /* no copy back to the sender */
	CU_ASSERT_EQUAL(got[rig_node(&r.f, "h2")], 0);
	/* wire layout: block 0, position 0, MLID 0xC000 on l1 = ports 1 and 5 or 6 */
	CU_ASSERT_EQUAL(mft_table_block(mft_set_find(&s, l1), 0, 0)[0] & 0x0003, 0x0002);
	/* a send-only member on h2: l1 is on the tree already, h2 gets nothing */
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h2", mcast_test_mgid_a, SA_MCM_JOIN_SEND_ONLY),
			SA_STATUS_OK);
	mft_set_init(&s2);
	CU_ASSERT_EQUAL_FATAL(mcast_mft_compute(r.sa, &s2), 0);
	CU_ASSERT_EQUAL(mft_diff(&s, &s2, &diff, &n), 0);
	CU_ASSERT_EQUAL(n, 0);
	free(diff);
	/* h3 leaves: only l1 keeps port 1; l2, the spine, and l1's uplink clear */
	CU_ASSERT_EQUAL(mcast_test_leave(&r, "h3", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(mcast_mft_compute(r.sa, &s2), 0);
	CU_ASSERT_EQUAL(mft_port_get(mft_set_find(&s2, l2), 0xC000, 1), 0);
	CU_ASSERT_EQUAL(mft_port_get(mft_set_find(&s2, l1), 0xC000, 1), 1);
	CU_ASSERT_EQUAL(mft_port_get(mft_set_find(&s2, l1), 0xC000, 5), 0);
	CU_ASSERT_EQUAL(mft_diff(&s, &s2, &diff, &n), 0);
	CU_ASSERT_EQUAL(n, 3); /* l1, l2 and one spine: block 0 position 0 */
	for (size_t i = 0; i < n; i++)
		CU_ASSERT(diff[i].block == 0 && diff[i].pos == 0);
	free(diff);
	mft_set_fini(&s);
	mft_set_fini(&s2);
	mcast_test_fini(&r);
}

static void test_mft_block_codec(void)
{
	uint16_t m[MFT_BLOCK_MLIDS] = {0}, d[MFT_BLOCK_MLIDS];
	uint8_t data[MFT_BLOCK_BYTES];
	unsigned b, p;

	m[0] = 0x8001, m[31] = 0x1234;
	mft_block_encode(m, data);
	CU_ASSERT_EQUAL(data[0], 0x80);
	CU_ASSERT_EQUAL(data[1], 0x01);
	CU_ASSERT_EQUAL(data[62], 0x12);
	mft_block_decode(data, d);
	CU_ASSERT_EQUAL(memcmp(m, d, sizeof(m)), 0);
	CU_ASSERT_EQUAL(mft_attr_mod(3, 2), 0x20000003u);
	mft_attr_split(0xf00001ffu, &b, &p);
	CU_ASSERT_EQUAL(b, 0x1ff);
	CU_ASSERT_EQUAL(p, 15);
	CU_ASSERT_TRUE(mft_block_needs_write(m, NULL));
	CU_ASSERT_FALSE(mft_block_needs_write(NULL, NULL));
	CU_ASSERT_TRUE(mft_block_needs_write(NULL, m));
	CU_ASSERT_FALSE(mft_block_needs_write(m, d));
}

/* ---- the push ------------------------------------------------------------------- */

static int mc_push_done;

static void mc_push_then(struct sm *sm)
{
	(void)sm;
	mc_push_done++;
}

/* Run one MFT push to its end over the fake. */
static void mc_push(struct rig *g, const struct mft_set *want, struct mft_cache *c)
{
	uint8_t mad[SMP_MAD_SIZE];
	struct mad_addr from = {.lid = 0xffff};
	int before = mc_push_done;

	g->sm->st.mft_blocks_sent = 0;
	mft_push_start(g->sm, sm_fabric(g->sm), want, c, mc_push_then);
	for (int guard = 0; guard < 10000 && mc_push_done == before; guard++) {
		while (fake_fabric_pop(g->ff, mad) == 1)
			sm_recv(g->sm, &from, mad, sizeof(mad));
		g->now += 10;
		sm_tick(g->sm);
	}
	CU_ASSERT_EQUAL(mc_push_done, before + 1);
}

static void mc_view(struct rig *g, struct sa *sa)
{
	struct sa_view v = {0};

	v.f = sm_fabric(g->sm);
	v.subnet_prefix = 0xfe80000000000000ull;
	v.route_gen = 1;
	CU_ASSERT_EQUAL(sa_update(sa, &v), 0);
}

static void test_mft_push(void)
{
	struct mad_xmit x = {mcast_test_send, NULL};
	struct mcast_test_rig r; /* only for its request helpers */
	struct mft_cache *c = mft_cache_new();
	struct mft_set want;
	struct rig g;
	const struct fabric *st;
	uint64_t l1g, l2g;
	int done;

	rig_init(&g, mcast_test_topo, NULL, "updn");
	rig_sweep(&g);
	CU_ASSERT_EQUAL_FATAL(g.last.status, 0);
	memset(&r, 0, sizeof(r));
	fabric_copy(&r.f, sm_fabric(g.sm));
	r.sa = sa_new(&x);
	r.own_db = !r.sa->mcast;
	if (r.own_db)
		r.sa->mcast = mcast_db_new();
	mc_view(&g, r.sa);
	st = fake_fabric_state(g.ff);
	l1g = st->nodes[rig_node(st, "l1")].guid;
	l2g = st->nodes[rig_node(st, "l2")].guid;
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h1", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h4", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	mft_set_init(&want);
	CU_ASSERT_EQUAL_FATAL(mcast_mft_compute(r.sa, &want), 0);
	mc_push(&g, &want, c);
	CU_ASSERT_EQUAL(g.sm->st.mft_blocks_sent, 3); /* two leaves, one spine */
	CU_ASSERT_EQUAL(fake_fabric_mft_sets(g.ff), 3);
	CU_ASSERT_EQUAL(fake_fabric_mft_port(g.ff, l1g, 0xC000, 1), 1);
	CU_ASSERT_EQUAL(fake_fabric_mft_port(g.ff, l2g, 0xC000, 2), 1);
	CU_ASSERT_EQUAL(fake_fabric_mft_port(g.ff, l2g, 0xC000, 1), 0);
	/* nothing changed: nothing sent */
	mc_push(&g, &want, c);
	CU_ASSERT_EQUAL(g.sm->st.mft_blocks_sent, 0);
	/* h4 leaves: the blocks clear (written as zeros once) */
	CU_ASSERT_EQUAL(mcast_test_leave(&r, "h4", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(mcast_mft_compute(r.sa, &want), 0);
	mc_push(&g, &want, c);
	CU_ASSERT_EQUAL(g.sm->st.mft_blocks_sent, 3);
	CU_ASSERT_EQUAL(fake_fabric_mft_port(g.ff, l2g, 0xC000, 2), 0);
	CU_ASSERT_EQUAL(fake_fabric_mft_port(g.ff, l1g, 0xC000, 1), 1);
	CU_ASSERT_EQUAL(fake_fabric_mft_port(g.ff, l1g, 0xC000, 5) +
				fake_fabric_mft_port(g.ff, l1g, 0xC000, 6), 0);
	mc_push(&g, &want, c);
	CU_ASSERT_EQUAL(g.sm->st.mft_blocks_sent, 0);
	/* h4 joins; the Sets land but every answer is lost: the blocks are no
	 * longer trusted, so when h4 leaves again (the cache's old contents
	 * are wanted once more) they are written anyway */
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h4", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(mcast_mft_compute(r.sa, &want), 0);
	fake_fabric_lose_set_replies(g.ff, MFT_ATTR_ID, 1000);
	mc_push(&g, &want, c);
	CU_ASSERT(g.sm->st.set_errors > 0);
	CU_ASSERT_EQUAL(fake_fabric_mft_port(g.ff, l2g, 0xC000, 2), 1); /* landed */
	fake_fabric_lose_set_replies(g.ff, 0, 0);
	CU_ASSERT_EQUAL(mcast_test_leave(&r, "h4", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(mcast_mft_compute(r.sa, &want), 0);
	mc_push(&g, &want, c);
	CU_ASSERT_EQUAL(fake_fabric_mft_port(g.ff, l2g, 0xC000, 2), 0);
	/* h4 joins again and the SM is freed with the push in flight: it is
	 * cancelled, `then` never runs, nothing is left to free (valgrind) */
	CU_ASSERT_EQUAL(mcast_test_join(&r, "h4", mcast_test_mgid_a, SA_MCM_JOIN_FULL),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL_FATAL(mcast_mft_compute(r.sa, &want), 0);
	done = mc_push_done;
	mft_push_start(g.sm, sm_fabric(g.sm), &want, c, mc_push_then);
	CU_ASSERT_EQUAL(g.sm->calls.pending, 3);
	rig_fini(&g);
	CU_ASSERT_EQUAL(mc_push_done, done);
	mft_set_fini(&want);
	mft_cache_free(c);
	mcast_test_fini(&r);
}

/* The tests of this file, in suite mcast (test_mcast.c). */
void test_mft_add(CU_pSuite s)
{
	CU_add_test(s, "spanning tree on two levels", test_mft_tree);
	CU_add_test(s, "MFT block codec and diff rule", test_mft_block_codec);
	CU_add_test(s, "MFT push against the fake", test_mft_push);
}
