/*
 * test_sweep.c - the whole SM core (discovery, LIDs, PortInfo, routing, LFT
 * push, port states) against the fake fabric: what the fake's switches and
 * ports hold afterwards is the judge, not the SM's own model.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "routing/topo_file.h"
#include "sm/core/log.h"
#include "sm/core/sm.h"
#include "sm/core/sm_priv.h"
#include "sm/sa/server.h"
#include "tests/unit/sm_rig.h"
#include "tests/unit/unit.h"

/* the SM runs on the first node of a file: h1 */
static const char sweep_lab[] = "Hca 2 \"h1\"\n[1] \"sw\"[1]\n\n"
				"Hca 2 \"h2\"\n[1] \"sw\"[2]\n\n"
				"Hca 2 \"h3\"\n[1] \"sw\"[3]\n\n"
				"Switch 8 \"sw\"\n"
				"[1] \"h1\"[1]\n[2] \"h2\"[1]\n[3] \"h3\"[1]\n";

/* two switches, two parallel links, and a ring closed by a third switch */
static const char sweep_loop[] = "Hca 1 \"a\"\n[1] \"s1\"[1]\n\n"
				 "Switch 8 \"s1\"\n[1] \"a\"[1]\n[3] \"s2\"[3]\n[4] \"s2\"[4]\n"
				 "[5] \"s3\"[5]\n\n"
				 "Switch 8 \"s2\"\n[1] \"b\"[1]\n[3] \"s1\"[3]\n[4] \"s1\"[4]\n"
				 "[6] \"s3\"[6]\n\n"
				 "Switch 8 \"s3\"\n[1] \"c\"[1]\n[5] \"s1\"[5]\n[6] \"s2\"[6]\n\n"
				 "Hca 1 \"b\"\n[1] \"s2\"[1]\n\n"
				 "Hca 1 \"c\"\n[1] \"s3\"[1]\n";

static void test_lab_comes_up(void)
{
	struct rig r;

	rig_init(&r, sweep_lab, NULL, "minhop");
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(r.last.switches, 1);
	CU_ASSERT_EQUAL(r.last.cas, 3);
	CU_ASSERT_EQUAL(r.last.lids, 4);
	CU_ASSERT_EQUAL(r.last.unreachable, 0);
	CU_ASSERT_EQUAL(r.last.set_errors, 0);
	CU_ASSERT(r.last.lft_blocks_sent >= 1);
	rig_check_up(&r);
	CU_ASSERT_NOT_EQUAL(sm_lid(r.sm), 0);
	CU_ASSERT_EQUAL(sm_lid(r.sm), fake_fabric_state(r.ff)->nodes[rig_node(
					      fake_fabric_state(r.ff), "h1")].ports[1].lid);
	rig_fini(&r);
}

/* A port in INIT that needs a configuration Set is armed by it: on a fresh
 * fabric every configured end port saves its INIT -> ARMED Set (switch
 * port 0 has no link state), so the fabric sees that many PortInfo Sets
 * fewer than the Sets counted, and every port still ends ACTIVE. */
static void test_config_set_arms(void)
{
	struct rig r;
	unsigned folded;

	rig_init(&r, sweep_lab, NULL, "minhop");
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	rig_check_up(&r);
	/* 3 cables, 2 ends each, ARMED then ACTIVE */
	CU_ASSERT_EQUAL(r.last.state_sets, 12);
	CU_ASSERT(r.last.port_sets >= 4); /* the 3 CA ports and switch port 0 */
	folded = (unsigned)r.last.port_sets - 1u;
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->port_info_sets,
			r.last.port_sets + r.last.state_sets - folded);
	rig_fini(&r);
}

static void test_resweep_is_quiet(void)
{
	struct rig r;
	unsigned lft_sets;

	rig_init(&r, sweep_loop, NULL, "minhop");
	rig_sweep(&r);
	rig_check_up(&r);
	lft_sets = fake_fabric_counters(r.ff)->lft_block_sets;
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(r.last.lft_blocks_sent, 0);
	CU_ASSERT_EQUAL(r.last.port_sets, 0);
	CU_ASSERT_EQUAL(r.last.state_sets, 0);
	CU_ASSERT_EQUAL(r.last.switchinfo_sets, 0);
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->lft_block_sets, lft_sets);
	rig_fini(&r);
}

static void test_loops_and_parallel_links(void)
{
	struct rig r;
	const struct fabric *f;
	int s1, s2;

	rig_init(&r, sweep_loop, NULL, "minhop");
	rig_sweep(&r);
	f = sm_fabric(r.sm);
	CU_ASSERT_EQUAL(r.last.switches, 3);
	CU_ASSERT_EQUAL(r.last.cas, 3);
	s1 = rig_node(f, "s1");
	s2 = rig_node(f, "s2");
	CU_ASSERT_FATAL(s1 != FABRIC_NONE && s2 != FABRIC_NONE);
	CU_ASSERT_EQUAL(f->nodes[s1].ports[3].remote_node, s2);
	CU_ASSERT_EQUAL(f->nodes[s1].ports[4].remote_node, s2);
	CU_ASSERT_EQUAL(f->nodes[s1].ports[4].remote_port, 4);
	rig_check_up(&r);
	rig_fini(&r);
}

static void test_dropped_mads_are_retried(void)
{
	struct rig r;

	rig_init(&r, sweep_loop, NULL, "minhop");
	fake_fabric_drop_every(r.ff, 5);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(r.last.unreachable, 0);
	CU_ASSERT(sm_mad_counters(r.sm)->retries > 0);
	CU_ASSERT(fake_fabric_counters(r.ff)->dropped > 0);
	rig_check_up(&r);
	rig_fini(&r);
}

static void test_silent_node_is_reported(void)
{
	struct rig r;
	const struct fabric *st;
	int c;

	rig_init(&r, sweep_loop, NULL, "minhop");
	st = fake_fabric_state(r.ff);
	c = rig_node(st, "c");
	fake_fabric_mute_node(r.ff, st->nodes[c].guid, 1);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT(r.last.unreachable >= 1);
	CU_ASSERT_EQUAL(r.last.cas, 2);
	/* the others still come up and reach each other */
	CU_ASSERT_EQUAL(st->nodes[rig_node(st, "a")].ports[1].state, PORT_STATE_ACTIVE);
	CU_ASSERT(rig_walk(st, r.ff, rig_node(st, "a"),
			   st->nodes[rig_node(st, "b")].ports[1].lid) > 0);
	CU_ASSERT_EQUAL(st->nodes[c].ports[1].lid, 0);
	rig_fini(&r);
}

static int sweep_rm(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void test_restart_keeps_lids(void)
{
	char dir[] = "/tmp/nanosm-sweep-XXXXXX";
	char path[64];
	struct rig a, b;
	const struct fabric *sa, *sb;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/guid2lid", dir);
	rig_init(&a, sweep_loop, path, "minhop");
	rig_sweep(&a);
	CU_ASSERT_EQUAL(access(path, R_OK), 0);
	/* a fresh fabric (all LIDs 0) and a new SM with the file: same LIDs,
	 * even when the sweep reaches the nodes in another order (drops) */
	rig_init(&b, sweep_loop, path, "minhop");
	fake_fabric_drop_every(b.ff, 3);
	rig_sweep(&b);
	sa = fake_fabric_state(a.ff);
	sb = fake_fabric_state(b.ff);
	CU_ASSERT_EQUAL_FATAL(sa->n_nodes, sb->n_nodes);
	for (size_t i = 0; i < sa->n_nodes; i++) {
		unsigned p = fabric_is_switch(&sa->nodes[i]) ? 0 : 1;

		CU_ASSERT_NOT_EQUAL(sa->nodes[i].ports[p].lid, 0);
		CU_ASSERT_EQUAL(sa->nodes[i].ports[p].lid, sb->nodes[i].ports[p].lid);
	}
	rig_fini(&a);
	rig_fini(&b);
	nftw(dir, sweep_rm, 8, FTW_DEPTH | FTW_PHYS);
}

static void test_lid_space_exhausted(void)
{
	struct rig r;
	const struct fabric *st;
	size_t with_lid = 0;
	char err[256];

	/* a switch whose LFT holds LIDs 0..3 only: 4 ports need LIDs 1..4 */
	memset(&r, 0, sizeof(r));
	fabric_init(&r.topo);
	CU_ASSERT_EQUAL_FATAL(
		topo_parse(sweep_lab, strlen(sweep_lab), "lab", &r.topo, err, sizeof(err)), 0);
	r.topo.nodes[fabric_find(&r.topo, r.topo.nodes[rig_node(&r.topo, "sw")].guid)].lft_cap = 4;
	r.ff = fake_fabric_new(&r.topo);
	rig_start_sm(&r, NULL, "minhop");
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(r.last.lid_failures, 1);
	st = fake_fabric_state(r.ff);
	for (size_t i = 0; i < st->n_nodes; i++) {
		uint16_t lid = st->nodes[i].ports[fabric_is_switch(&st->nodes[i]) ? 0 : 1].lid;

		CU_ASSERT(lid <= 3);
		with_lid += lid != 0;
	}
	CU_ASSERT_EQUAL(with_lid, 3);
	rig_fini(&r);
}

static void test_node_names(void)
{
	struct rig r;
	const struct fabric *f;
	uint64_t guid;
	const char *name = "rack7-leaf";
	int sw;

	rig_init(&r, sweep_lab, NULL, "minhop");
	guid = r.topo.nodes[rig_node(&r.topo, "sw")].guid;
	CU_ASSERT_EQUAL_FATAL(sm_set_names(r.sm, &guid, &name, 1), 0);
	rig_sweep(&r);
	f = sm_fabric(r.sm);
	sw = fabric_find(f, guid);
	CU_ASSERT_FATAL(sw != FABRIC_NONE);
	CU_ASSERT_STRING_EQUAL(f->nodes[sw].desc, "rack7-leaf");
	CU_ASSERT_NOT_EQUAL(rig_node(f, "h1"), FABRIC_NONE); /* unnamed: NodeDescription */
	rig_fini(&r);
}

static int sweep_suite_init(void)
{
	log_init(getenv("UNIT_LOG") ? atoi(getenv("UNIT_LOG")) : LOG_LVL_ERR, "nanosm-unit"); /* the SM's warnings are expected here */
	return 0;
}

/* a ring of four switches, a host on each */
static const char sweep_ring4[] = "Hca 1 \"a\"\n[1] \"r1\"[1]\n\n"
				  "Switch 8 \"r1\"\n[1] \"a\"[1]\n[2] \"r2\"[3]\n[3] \"r4\"[2]\n\n"
				  "Switch 8 \"r2\"\n[1] \"b\"[1]\n[2] \"r3\"[3]\n[3] \"r1\"[2]\n\n"
				  "Switch 8 \"r3\"\n[1] \"c\"[1]\n[2] \"r4\"[3]\n[3] \"r2\"[2]\n\n"
				  "Switch 8 \"r4\"\n[1] \"d\"[1]\n[2] \"r1\"[3]\n[3] \"r3\"[2]\n\n"
				  "Hca 1 \"b\"\n[1] \"r2\"[1]\n\n"
				  "Hca 1 \"c\"\n[1] \"r3\"[1]\n\n"
				  "Hca 1 \"d\"\n[1] \"r4\"[1]\n";

/* While a sweep routes the next model, the SA and the daemon keep reading
 * the tables committed with the last good model: the ones of sweep 1
 * (updn rooted at r1), never the next sweep's (rooted at r3) before it
 * commits. */
struct committed_watch {
	uint8_t *port[8]; /* sweep 1's tables, by table index */
	uint16_t top[8];
	size_t n;
	int seen_ahead; /* watched while the next tables were routed, not committed */
	int same;	/* and every time the SA's view held sweep 1's tables */
	int differ;	/* the running sweep's tables differed from them */
};

static int committed_same(const struct committed_watch *w, const struct lft_set *s)
{
	if (!s || s->n != w->n)
		return 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->tables[i].top != w->top[i] ||
		    memcmp(s->tables[i].port, w->port[i], (size_t)w->top[i] + 1))
			return 0;
	return 1;
}

static void committed_each(struct rig *r, int ticked, uint64_t next, void *ctx)
{
	struct committed_watch *w = ctx;

	(void)ticked;
	(void)next;
	if (!r->sm->lfts_ahead)
		return;
	w->seen_ahead++;
	if (sm_lfts(r->sm) == sm_sa(r->sm)->v.lfts && committed_same(w, sm_lfts(r->sm)))
		w->same++;
	if (!committed_same(w, &r->sm->lfts))
		w->differ = 1;
}

static void test_sa_reads_committed_tables(void)
{
	struct committed_watch w = {.n = 0};
	const struct lft_set *c;
	uint64_t root;
	struct rig r;

	rig_init(&r, sweep_ring4, NULL, "updn");
	root = fake_fabric_state(r.ff)->nodes[rig_node(fake_fabric_state(r.ff), "r1")].guid;
	CU_ASSERT_EQUAL(sm_set_routing(r.sm, "updn", &root, 1, 1, NULL, 0), 0);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	c = sm_lfts(r.sm);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_FATAL(c->n <= 8);
	for (size_t i = 0; i < c->n; i++) {
		w.top[i] = c->tables[i].top;
		w.port[i] = malloc((size_t)w.top[i] + 1);
		CU_ASSERT_PTR_NOT_NULL_FATAL(w.port[i]);
		memcpy(w.port[i], c->tables[i].port, (size_t)w.top[i] + 1);
	}
	w.n = c->n;
	root = fake_fabric_state(r.ff)->nodes[rig_node(fake_fabric_state(r.ff), "r3")].guid;
	CU_ASSERT_EQUAL(sm_set_routing(r.sm, "updn", &root, 1, 1, NULL, 0), 0);
	rig_sweep_watch(&r, committed_each, &w);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT(w.seen_ahead > 0);
	CU_ASSERT_EQUAL(w.same, w.seen_ahead);
	CU_ASSERT_EQUAL(w.differ, 1); /* another root, other tables */
	/* committed with sweep 2: now the SA reads the new ones */
	CU_ASSERT_PTR_EQUAL(sm_sa(r.sm)->v.lfts, sm_lfts(r.sm));
	CU_ASSERT_FALSE(committed_same(&w, sm_lfts(r.sm)));
	for (size_t i = 0; i < w.n; i++)
		free(w.port[i]);
	rig_fini(&r);
}

void test_sweep_register(void)
{
	CU_pSuite s = CU_add_suite("sweep", sweep_suite_init, NULL);

	CU_add_test(s, "lab fabric comes up", test_lab_comes_up);
	CU_add_test(s, "loops and parallel links", test_loops_and_parallel_links);
	CU_add_test(s, "a configuration Set of a port in INIT also arms it", test_config_set_arms);
	CU_add_test(s, "re-sweep of an unchanged fabric sends nothing", test_resweep_is_quiet);
	CU_add_test(s, "dropped MADs are retried", test_dropped_mads_are_retried);
	CU_add_test(s, "a silent node is reported, the rest comes up",
		    test_silent_node_is_reported);
	CU_add_test(s, "restart with guid2lid keeps every LID", test_restart_keeps_lids);
	CU_add_test(s, "LID space exhausted: the rest still comes up", test_lid_space_exhausted);
	CU_add_test(s, "policy node names replace NodeDescription", test_node_names);
	CU_add_test(s, "the SA reads the committed tables while a sweep routes",
		    test_sa_reads_committed_tables);
}
