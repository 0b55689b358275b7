/*
 * test_reload.c - what a policy reload does beyond the diff: the refusal
 * of an emptied file, the sections it drops, what waits for a restart,
 * and static LIDs that move (checked against the LID map, then programmed
 * by the next sweep: the fake fabric's ports and LFTs are the judge).
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/policy.h"
#include "routing/lid_alloc.h"
#include "sm/core/log.h"
#include "sm/core/sm.h"
#include "sm/daemon/reload.h"
#include "tests/unit/sm_rig.h"
#include "tests/unit/unit.h"

/* the SM runs on the first node of a file: h1 */
static const char reload_lab[] = "Hca 2 \"h1\"\n[1] \"sw\"[1]\n\n"
				 "Hca 2 \"h2\"\n[1] \"sw\"[2]\n\n"
				 "Hca 2 \"h3\"\n[1] \"sw\"[3]\n\n"
				 "Switch 8 \"sw\"\n"
				 "[1] \"h1\"[1]\n[2] \"h2\"[1]\n[3] \"h3\"[1]\n";

/* ---- the policy side (pure) ------------------------------------------------ */

static void reload_policy_full(struct policy *p)
{
	struct policy_partition *part;

	policy_init(p);
	CU_ASSERT_EQUAL_FATAL(policy_root_add(p, 0x10), 0);
	CU_ASSERT_EQUAL_FATAL(policy_static_add(p, 0x21, 0x40), 0);
	CU_ASSERT_EQUAL_FATAL(policy_node_name_add(p, 0x20, "h2"), 0);
	CU_ASSERT_EQUAL_FATAL(policy_node_name_add(p, 0x30, "h3"), 0);
	part = policy_partition_add(p, "storage", 0x0002, 0, 2048);
	CU_ASSERT_PTR_NOT_NULL_FATAL(part);
	CU_ASSERT_EQUAL_FATAL(policy_member_add(part, POLICY_MEMBER_ALL, 0, POLICY_FULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(policy_partition_add(p, "gpu", 0x0003, 0, 2048));
}

static void test_reload_empty_file_needs_force(void)
{
	static const char comments[] = "# all gone\n\n# really\n", one[] = "sm:\n  priority: 3\n";
	struct policy cur, empty, parsed;
	char err[256];

	reload_policy_full(&cur);
	policy_init(&empty);
	/* what an empty file and a file of comments give */
	CU_ASSERT_EQUAL_FATAL(policy_parse("", 0, "p.yaml", &parsed, err, sizeof(err)), 0);
	CU_ASSERT(policy_is_empty(&parsed));
	policy_fini(&parsed);
	CU_ASSERT_EQUAL_FATAL(
	    policy_parse(comments, strlen(comments), "p.yaml", &parsed, err, sizeof(err)), 0);
	CU_ASSERT(policy_is_empty(&parsed));
	CU_ASSERT(policy_reload_needs_force(&cur, &parsed));
	policy_fini(&parsed);
	/* an empty running policy may be replaced by an empty file; a file
	 * with one setting is not empty */
	CU_ASSERT(!policy_reload_needs_force(&empty, &empty));
	CU_ASSERT_FALSE(policy_is_empty(&cur));
	CU_ASSERT_EQUAL_FATAL(policy_parse(one, strlen(one), "p.yaml", &parsed, err, sizeof(err)),
			      0);
	CU_ASSERT(!policy_reload_needs_force(&cur, &parsed));
	policy_fini(&parsed);
	policy_fini(&cur);
}

static void test_reload_dropped_sections(void)
{
	struct policy cur, next;
	char buf[256];

	reload_policy_full(&cur);
	policy_init(&next);
	CU_ASSERT_EQUAL(policy_dropped(&cur, &next, buf, sizeof(buf)), strlen(buf));
	CU_ASSERT_STRING_EQUAL(
	    buf, "drops all 2 partitions, 2 node_names, 1 routing.roots, 1 lids.static");
	/* a list that only shrinks is the diff's business, not a drop */
	CU_ASSERT_EQUAL_FATAL(policy_node_name_add(&next, 0x20, "h2"), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(policy_partition_add(&next, "gpu", 0x0003, 0, 2048));
	policy_dropped(&cur, &next, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "drops all 1 routing.roots, 1 lids.static");
	CU_ASSERT_EQUAL(policy_dropped(&next, &cur, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "");
	policy_fini(&next);
	policy_fini(&cur);
}

static void test_reload_restart_fields(void)
{
	struct policy a, b;
	char buf[256];

	policy_init(&a);
	policy_init(&b);
	/* what a running SM takes at once is not listed */
	b.sm.priority = 5;
	b.sm.sweep_interval = 30;
	b.sm.log_level = POLICY_LOG_DEBUG;
	b.lids.reclaim_age = 3600;
	CU_ASSERT_EQUAL(policy_restart_fields(&a, &b, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "");
	b.sm.port = 2;
	b.sm.window = 32;
	b.sm.mad_timeout_ms = 500;
	b.sm.mad_retries = 5;
	snprintf(b.sm.guid2lid, sizeof(b.sm.guid2lid), "/tmp/g2l");
	b.sm.m_key = 1;
	b.sm.m_key_protect = 1;
	b.sm.m_key_lease = 60;
	b.sm.sm_key = 2;
	CU_ASSERT_EQUAL(policy_restart_fields(&a, &b, buf, sizeof(buf)), strlen(buf));
	CU_ASSERT_STRING_EQUAL(buf, "sm.port, sm.window, sm.mad_timeout_ms, sm.mad_retries, "
				    "sm.guid2lid, sm.m_key, sm.m_key_protect, sm.m_key_lease, "
				    "sm.sm_key");
	/* cut to the buffer, the length needed still returned */
	CU_ASSERT_EQUAL(policy_restart_fields(&a, &b, buf, 8), strlen("sm.port, sm.window, "
								      "sm.mad_timeout_ms, "
								      "sm.mad_retries, "
								      "sm.guid2lid, sm.m_key, "
								      "sm.m_key_protect, "
								      "sm.m_key_lease, sm.sm_key"));
	CU_ASSERT_STRING_EQUAL(buf, "sm.port");
}

/* ---- the LID map (pure) ---------------------------------------------------- */

static void test_reload_lid_moves(void)
{
	struct lid_alloc a;
	struct lid_move swap[] = {{0xa, 0x11}, {0xb, 0x10}};
	struct lid_move onto[] = {{0xa, 0x12}};
	struct lid_move high[] = {{0xa, 0x300}};
	uint64_t holder = 0;
	size_t bad = 9;

	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, 0x200), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, 0xa, 0x10), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, 0xb, 0x11), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, 0xc, 0x12), 0);
	lid_alloc_set_seen(&a, 0xa, 1000);
	/* onto a port that stays: refused, naming it */
	CU_ASSERT_EQUAL(lid_alloc_moves_check(&a, onto, 1, &bad, &holder), -EEXIST);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(holder, 0xc);
	CU_ASSERT_EQUAL(lid_alloc_moves_check(&a, high, 1, &bad, &holder), -ERANGE);
	/* a swap: each leaves the LID the other takes */
	CU_ASSERT_EQUAL(lid_alloc_moves_check(&a, swap, 1, &bad, &holder), -EEXIST);
	CU_ASSERT_EQUAL(lid_alloc_moves_check(&a, swap, 2, &bad, &holder), 0);
	CU_ASSERT_EQUAL(lid_alloc_moves_apply(&a, swap, 2), 0);
	CU_ASSERT_EQUAL(lid_alloc_lookup(&a, 0xa), 0x11);
	CU_ASSERT_EQUAL(lid_alloc_lookup(&a, 0xb), 0x10);
	CU_ASSERT_EQUAL(lid_alloc_owner(&a, 0x11), 0xa);
	CU_ASSERT_EQUAL(lid_alloc_seen(&a, 0xa), 1000);
	CU_ASSERT_EQUAL(lid_alloc_count(&a), 3);
	lid_alloc_fini(&a);
}

/* ---- the SM: a static LID moved by a reload -------------------------------- */

struct reload_port {
	int node;
	uint64_t guid;
	uint16_t lid; /* as the fake fabric's port holds it */
};

static struct reload_port reload_port(struct rig *r, const char *desc)
{
	const struct fabric *st = fake_fabric_state(r->ff);
	struct reload_port p = {rig_node(st, desc), 0, 0};

	CU_ASSERT_FATAL(p.node != FABRIC_NONE);
	p.guid = st->nodes[p.node].ports[1].guid;
	p.lid = st->nodes[p.node].ports[1].lid;
	return p;
}

static size_t reload_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return n;
}

static void test_reload_static_lid_moves_at_next_sweep(void)
{
	char dir[] = "/tmp/nanosm-unit-reload-XXXXXX", g2l[128], logp[128], want[256];
	char text[512], buf[8192];
	struct policy_static_lid next[1];
	struct reload_port h1, h2;
	int level = log_level_get();
	unsigned sets;
	struct rig r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(g2l, sizeof(g2l), "%s/guid2lid", dir);
	snprintf(logp, sizeof(logp), "%s/log", dir);
	rig_init(&r, reload_lab, g2l, "minhop");
	rig_sweep(&r);
	rig_check_up(&r);
	h1 = reload_port(&r, "h1");
	h2 = reload_port(&r, "h2");
	CU_ASSERT_NOT_EQUAL_FATAL(h2.lid, 0x20);
	next[0] = (struct policy_static_lid){h2.guid, 0x20};

	/* the reload: the map changes now, nothing is sent yet */
	sets = fake_fabric_counters(r.ff)->port_info_sets;
	CU_ASSERT_EQUAL(sm_static_lids(r.sm, NULL, 0, next, 1, 1, text, sizeof(text)), 1);
	snprintf(want, sizeof(want),
		 "port 0x%016" PRIx64 "/1 (h2): static LID 0x%04x -> 0x0020 at the next sweep\n",
		 h2.guid, h2.lid);
	CU_ASSERT_STRING_EQUAL(text, want);
	CU_ASSERT_EQUAL(lid_alloc_lookup(sm_lids(r.sm), h2.guid), 0x20);
	CU_ASSERT_EQUAL(lid_alloc_owner(sm_lids(r.sm), h2.lid), 0); /* the old LID is free */
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->port_info_sets, sets);

	/* the next sweep programs the port, routes follow, one line says so */
	log_init(LOG_LVL_INFO, NULL);
	CU_ASSERT_EQUAL_FATAL(log_open_file(logp), 0);
	rig_sweep(&r);
	log_to_stderr();
	log_init(level, NULL);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(reload_port(&r, "h2").lid, 0x20);
	rig_check_up(&r);
	CU_ASSERT(rig_walk(fake_fabric_state(r.ff), r.ff, h1.node, 0x20) > 0);
	CU_ASSERT_EQUAL(rig_walk(fake_fabric_state(r.ff), r.ff, h1.node, h2.lid), -1);
	CU_ASSERT_EQUAL(
	    sm_fabric(r.sm)
		->nodes[fabric_find(sm_fabric(r.sm), r.topo.nodes[rig_node(&r.topo, "h2")].guid)]
		.ports[1]
		.lid,
	    0x20);
	reload_file(logp, buf, sizeof(buf));
	snprintf(want, sizeof(want),
		 "port 0x%016" PRIx64 "/1 (h2): static LID 0x%04x -> 0x0020 (policy reload); "
		 "LID 0x%04x is free",
		 h2.guid, h2.lid, h2.lid);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, want));
	/* guid2lid remembers the new LID */
	reload_file(g2l, buf, sizeof(buf));
	snprintf(want, sizeof(want), "0x%016" PRIx64 " 0x0020 0x0020", h2.guid);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, want));
	/* and the sweep after that has nothing left to do */
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.port_sets, 0);
	CU_ASSERT_EQUAL(r.last.lft_blocks_sent, 0);
	rig_fini(&r);
	unlink(g2l);
	unlink(logp);
	snprintf(buf, sizeof(buf), "%s.bak", g2l);
	unlink(buf);
	rmdir(dir);
}

static void test_reload_static_lid_taken_is_refused(void)
{
	struct policy_static_lid onto[1], swap[2], same[1];
	struct reload_port h2, h3;
	char text[512], want[512];
	struct rig r;

	rig_init(&r, reload_lab, NULL, "minhop");
	rig_sweep(&r);
	h2 = reload_port(&r, "h2");
	h3 = reload_port(&r, "h3");
	onto[0] = (struct policy_static_lid){h2.guid, h3.lid};
	CU_ASSERT_EQUAL(sm_static_lids(r.sm, NULL, 0, onto, 1, 1, text, sizeof(text)), -EEXIST);
	snprintf(want, sizeof(want),
		 "static LID 0x%04x for port 0x%016" PRIx64
		 "/1 (h2) is in use by port 0x%016" PRIx64 "/1 (h3)",
		 h3.lid, h2.guid, h3.guid);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
	CU_ASSERT_EQUAL(lid_alloc_lookup(sm_lids(r.sm), h2.guid), h2.lid);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(reload_port(&r, "h2").lid, h2.lid);
	CU_ASSERT_EQUAL(r.last.port_sets, 0);

	/* a static LID the policy already had is left alone, even where the
	 * map disagrees; a dry run changes nothing */
	same[0] = (struct policy_static_lid){h2.guid, 0x30};
	CU_ASSERT_EQUAL(sm_static_lids(r.sm, same, 1, same, 1, 1, text, sizeof(text)), 0);
	CU_ASSERT_EQUAL(sm_static_lids(r.sm, NULL, 0, same, 1, 0, text, sizeof(text)), 1);
	CU_ASSERT_EQUAL(lid_alloc_lookup(sm_lids(r.sm), h2.guid), h2.lid);

	/* two ports swapping LIDs in one reload */
	swap[0] = (struct policy_static_lid){h2.guid, h3.lid};
	swap[1] = (struct policy_static_lid){h3.guid, h2.lid};
	CU_ASSERT_EQUAL(sm_static_lids(r.sm, NULL, 0, swap, 2, 1, text, sizeof(text)), 2);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(reload_port(&r, "h2").lid, h3.lid);
	CU_ASSERT_EQUAL(reload_port(&r, "h3").lid, h2.lid);
	rig_check_up(&r);
	rig_fini(&r);
}

/* reload_judge: the refusals and the notes a reload answers with. */
static void test_reload_judge(void)
{
	struct policy cur, next;
	struct reload_notes notes;
	struct reload_port h2, h3;
	char why[1024];
	struct rig r;

	rig_init(&r, reload_lab, NULL, "minhop");
	rig_sweep(&r);
	reload_policy_full(&cur);
	policy_init(&next);
	CU_ASSERT_EQUAL(
	    reload_judge(r.sm, &cur, &next, "/etc/nanosm/nanosm.yaml", 0, &notes, why, sizeof(why)),
	    -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "/etc/nanosm/nanosm.yaml holds no settings"));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "drops all 2 partitions, 2 node_names, 1 "
					   "routing.roots, 1 lids.static"));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "nanosmctl reload --force"));
	CU_ASSERT_EQUAL(reload_judge(r.sm, &cur, &next, "p", 1, &notes, why, sizeof(why)), 0);
	CU_ASSERT_STRING_EQUAL(
	    notes.drops, "drops all 2 partitions, 2 node_names, 1 routing.roots, 1 lids.static");
	CU_ASSERT_STRING_EQUAL(notes.restart, "");

	/* a file that keeps something is not refused; its restart-only
	 * changes are noted; a static LID another port holds is refused */
	next.sm.window = 64;
	CU_ASSERT_EQUAL(reload_judge(r.sm, &cur, &next, "p", 0, &notes, why, sizeof(why)), 0);
	CU_ASSERT_STRING_EQUAL(notes.restart, "sm.window");
	h2 = reload_port(&r, "h2");
	h3 = reload_port(&r, "h3");
	CU_ASSERT_EQUAL_FATAL(policy_static_add(&next, h2.guid, h3.lid), 0);
	CU_ASSERT_EQUAL(reload_judge(r.sm, &cur, &next, "p", 1, &notes, why, sizeof(why)), -EEXIST);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "is in use by port"));
	CU_ASSERT_EQUAL(lid_alloc_lookup(sm_lids(r.sm), h2.guid), h2.lid); /* judged only */
	next.lids.statics[0].lid = 0x50;
	CU_ASSERT_EQUAL(reload_judge(r.sm, &cur, &next, "p", 0, &notes, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(notes.n_moves, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(notes.moves, "-> 0x0050 at the next sweep"));
	CU_ASSERT_EQUAL(lid_alloc_lookup(sm_lids(r.sm), h2.guid), h2.lid);
	policy_fini(&next);
	policy_fini(&cur);
	rig_fini(&r);
}

static int reload_suite_init(void)
{
	log_init(getenv("UNIT_LOG") ? atoi(getenv("UNIT_LOG")) : LOG_LVL_ERR, "nanosm-unit");
	return 0;
}

void test_reload_register(void)
{
	CU_pSuite s = CU_add_suite("reload", reload_suite_init, NULL);

	CU_add_test(s, "an empty file over a running policy needs --force",
		    test_reload_empty_file_needs_force);
	CU_add_test(s, "whole sections dropped are named", test_reload_dropped_sections);
	CU_add_test(s, "settings that wait for a restart are named", test_reload_restart_fields);
	CU_add_test(s, "LID moves: a taken LID, out of range, a swap", test_reload_lid_moves);
	CU_add_test(s, "a changed static LID is programmed by the next sweep",
		    test_reload_static_lid_moves_at_next_sweep);
	CU_add_test(s, "a static LID another port holds is refused",
		    test_reload_static_lid_taken_is_refused);
	CU_add_test(s, "reload_judge: refusals and notes", test_reload_judge);
}
