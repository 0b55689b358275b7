/*
 * test_progress.c - progress lines of long sweeps (sm/core/progress.c): when one
 * is due and what it says.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/core/progress.h"
#include "sm/core/sm_priv.h"
#include "tests/unit/sm_rig.h"
#include "tests/unit/unit.h"

static struct progress_snap snap_at(unsigned sweep, uint64_t elapsed_ms)
{
	struct progress_snap s;

	memset(&s, 0, sizeof(s));
	s.running = 1;
	s.sweep = sweep;
	s.elapsed_ms = elapsed_ms;
	return s;
}

static int due_at(struct progress *p, unsigned sweep, uint64_t elapsed_ms)
{
	struct progress_snap s = snap_at(sweep, elapsed_ms);

	return progress_due(p, &s);
}

static void test_progress_short_sweep_silent(void)
{
	struct progress p;

	progress_init(&p, 0);
	CU_ASSERT_EQUAL(p.every_ms, PROGRESS_EVERY_MS);
	CU_ASSERT_FALSE(due_at(&p, 1, 0));
	CU_ASSERT_FALSE(due_at(&p, 1, 500));
	CU_ASSERT_FALSE(due_at(&p, 1, 1999));
}

static void test_progress_rate_limited(void)
{
	struct progress p;

	progress_init(&p, 2000);
	CU_ASSERT_TRUE(due_at(&p, 1, 2000));
	CU_ASSERT_FALSE(due_at(&p, 1, 2000)); /* asked again at once */
	CU_ASSERT_FALSE(due_at(&p, 1, 2500));
	CU_ASSERT_FALSE(due_at(&p, 1, 3999));
	CU_ASSERT_TRUE(due_at(&p, 1, 4000));
	CU_ASSERT_FALSE(due_at(&p, 1, 4100));
	CU_ASSERT_TRUE(due_at(&p, 1, 9000)); /* a long gap: one line, not several */
	CU_ASSERT_FALSE(due_at(&p, 1, 9001));
}

static void test_progress_new_sweep(void)
{
	struct progress p;
	struct progress_snap idle;

	progress_init(&p, 2000);
	CU_ASSERT_TRUE(due_at(&p, 1, 2100));
	/* the next sweep starts over: quiet until it is 2 s old */
	CU_ASSERT_FALSE(due_at(&p, 2, 100));
	CU_ASSERT_FALSE(due_at(&p, 2, 1900));
	CU_ASSERT_TRUE(due_at(&p, 2, 2000));
	CU_ASSERT_FALSE(due_at(&p, 2, 2300));
	memset(&idle, 0, sizeof(idle));
	idle.elapsed_ms = 10000;
	CU_ASSERT_FALSE(progress_due(&p, &idle)); /* nothing runs */
}

static void test_progress_format_phases(void)
{
	struct progress_snap s = snap_at(3, 4250);
	char buf[256];

	s.phase = PROGRESS_DISCOVER;
	s.nodes = 4521;
	s.ports = 30000;
	s.mads = 12345;
	progress_format(&s, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(
	    buf,
	    "sweep 3 in progress: discovering: nodes=4521 ports=30000 mads=12345 elapsed=4.2s");

	s.phase = PROGRESS_LFTS;
	s.lft_blocks = 9000;
	s.outstanding = 7800;
	progress_format(&s, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(
	    buf, "sweep 3 in progress: pushing LFTs: blocks=1200/9000 mads=12345 elapsed=4.2s");

	s.outstanding = 9500; /* SwitchInfo Sets outstanding too: never negative */
	progress_format(&s, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(
	    buf, "sweep 3 in progress: pushing LFTs: blocks=0/9000 mads=12345 elapsed=4.2s");

	s.phase = PROGRESS_PORTS;
	s.port_sets = 100;
	s.outstanding = 40;
	progress_format(&s, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(
	    buf, "sweep 3 in progress: assigning LIDs and configuring ports: sets=60/100 "
		 "mads=12345 elapsed=4.2s");

	s.phase = PROGRESS_ACTIVATE;
	progress_format(&s, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(
	    buf, "sweep 3 in progress: activating ports: outstanding=40 mads=12345 elapsed=4.2s");

	s.phase = PROGRESS_OTHER;
	progress_format(&s, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "sweep 3 in progress: routing: mads=12345 elapsed=4.2s");
}

static void test_progress_format_truncates(void)
{
	struct progress_snap s = snap_at(1, 2000);
	char buf[12];

	s.phase = PROGRESS_DISCOVER;
	CU_ASSERT_TRUE(progress_format(&s, buf, sizeof(buf)) >= (int)sizeof(buf));
	CU_ASSERT_EQUAL(strlen(buf), sizeof(buf) - 1);
}

/* A 2-level tree big enough that the LFT push (204 switches x 29 blocks)
 * and each state walk (9600 Sets) queue more than one batch of 4096 SMPs:
 * 200 leaves of 8 hosts, 4 spines of 200 ports. */
#define BIG_LEAVES 200
#define BIG_HOSTS 8
#define BIG_SPINES 4

static char *big_tree_text(void)
{
	size_t cap = 1u << 20, n = 0;
	char *t = malloc(cap);

	if (!t)
		return NULL;
	for (int l = 0; l < BIG_LEAVES; l++)
		for (int h = 0; h < BIG_HOSTS; h++)
			n += (size_t)snprintf(t + n, cap - n,
					      "Hca 1 \"h%03d-%d\"\n[1] \"leaf%03d\"[%d]\n\n", l, h,
					      l, h + 1);
	for (int l = 0; l < BIG_LEAVES; l++) {
		n += (size_t)snprintf(t + n, cap - n, "Switch %d \"leaf%03d\"\n",
				      BIG_HOSTS + BIG_SPINES, l);
		for (int h = 0; h < BIG_HOSTS; h++)
			n +=
			    (size_t)snprintf(t + n, cap - n, "[%d] \"h%03d-%d\"[1]\n", h + 1, l, h);
		for (int s = 0; s < BIG_SPINES; s++)
			n += (size_t)snprintf(t + n, cap - n, "[%d] \"spine%d\"[%d]\n",
					      BIG_HOSTS + s + 1, s, l + 1);
		n += (size_t)snprintf(t + n, cap - n, "\n");
	}
	for (int s = 0; s < BIG_SPINES; s++) {
		n += (size_t)snprintf(t + n, cap - n, "Switch %d \"spine%d\"\n", BIG_LEAVES, s);
		for (int l = 0; l < BIG_LEAVES; l++)
			n += (size_t)snprintf(t + n, cap - n, "[%d] \"leaf%03d\"[%d]\n", l + 1, l,
					      BIG_HOSTS + s + 1);
		n += (size_t)snprintf(t + n, cap - n, "\n");
	}
	return t;
}

/* Every cabled port ACTIVE, and a few hosts reach every host. */
static void big_tree_check(struct rig *r)
{
	const struct fabric *st = fake_fabric_state(r->ff);
	size_t bad = 0, unrouted = 0;

	for (size_t i = 0; i < st->n_nodes; i++)
		for (unsigned p = 1; p <= st->nodes[i].num_ports; p++)
			if (st->nodes[i].ports[p].remote_node != FABRIC_NONE &&
			    st->nodes[i].ports[p].state != PORT_STATE_ACTIVE)
				bad++;
	CU_ASSERT_EQUAL(bad, 0);
	for (size_t s = 0; s < st->n_nodes; s += 97) {
		if (fabric_is_switch(&st->nodes[s]))
			continue;
		for (size_t d = 0; d < st->n_nodes; d++)
			if (d != s && !fabric_is_switch(&st->nodes[d]) &&
			    rig_walk(st, r->ff, (int)s, st->nodes[d].ports[1].lid) <= 0)
				unrouted++;
	}
	CU_ASSERT_EQUAL(unrouted, 0);
}

/* The LFT push and the state walks queue their SMPs in batches; the fabric
 * still comes up whole, and a re-sweep writes nothing. */
static void test_progress_batched_phases(void)
{
	char *text = big_tree_text();
	struct progress_snap s;
	struct rig r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	rig_init(&r, text, NULL, "updn");
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(r.last.switches, BIG_LEAVES + BIG_SPINES);
	CU_ASSERT_EQUAL(r.last.set_errors, 0);
	CU_ASSERT_EQUAL(r.last.lft_blocks_sent,
			(BIG_LEAVES + BIG_SPINES) * (r.last.lids / 64u + 1u));
	CU_ASSERT(r.last.lft_blocks_sent > 4096);
	CU_ASSERT_EQUAL(r.last.state_sets,
			2u * 2u * (BIG_LEAVES * BIG_HOSTS + BIG_LEAVES * BIG_SPINES));
	big_tree_check(&r);
	sm_progress_snap(r.sm, &s);
	CU_ASSERT_FALSE(s.running);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(r.last.lft_blocks_sent, 0);
	CU_ASSERT_EQUAL(r.last.state_sets, 0);
	CU_ASSERT_EQUAL(r.last.port_sets, 0);
	rig_fini(&r);
	free(text);
}

/* No phase keeps much more than a batch queued: discovery's Gets wait in
 * the compact FIFO, the walks refill at SM_FEED_LOW.  A walk queues a
 * node at a time, so one node's ports may come on top of a batch. */
struct paced_most {
	size_t most, most_discovery;
};

static void paced_watch(struct rig *r, int ticked, uint64_t next, void *ctx)
{
	struct paced_most *m = ctx;
	size_t out = sm_outstanding(r->sm);

	(void)ticked;
	(void)next;
	if (out > m->most)
		m->most = out;
	if (!r->sm->st.port_sets && out > m->most_discovery)
		m->most_discovery = out;
}

static void test_queue_is_paced(void)
{
	char *text = big_tree_text();
	struct paced_most m = {0, 0};
	size_t most, most_discovery;
	struct rig r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	rig_init(&r, text, NULL, "updn");
	rig_sweep_watch(&r, paced_watch, &m);
	most = m.most;
	most_discovery = m.most_discovery;
	CU_ASSERT_EQUAL(r.last.status, 0);
	big_tree_check(&r);
	CU_ASSERT(most > SM_FEED_LOW);
	/* discovery: the FIFO holds the rest; the walks go a node at a
	 * time, so a spine's 200 ports can come on top of a batch */
	CU_ASSERT(most_discovery > SM_FEED_LOW);
	CU_ASSERT(most_discovery <= SM_FEED_BATCH);
	CU_ASSERT(most <= SM_FEED_BATCH + BIG_LEAVES);
	rig_fini(&r);
	free(text);
}

void test_progress_register(void)
{
	CU_pSuite s = CU_add_suite("progress", NULL, NULL);

	CU_add_test(s, "a sweep shorter than 2 s says nothing", test_progress_short_sweep_silent);
	CU_add_test(s, "at most one line per 2 s", test_progress_rate_limited);
	CU_add_test(s, "a new sweep starts over; nothing when idle", test_progress_new_sweep);
	CU_add_test(s, "one line per phase", test_progress_format_phases);
	CU_add_test(s, "a short buffer is cut, not overrun", test_progress_format_truncates);
	CU_add_test(s, "no phase keeps more than a batch of SMPs queued", test_queue_is_paced);
	CU_add_test(s, "batched LFT push and state walks: all up, re-sweep writes nothing",
		    test_progress_batched_phases);
}
