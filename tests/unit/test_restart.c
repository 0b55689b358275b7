/*
 * test_restart.c - an SM that starts on a fabric another SM (or an earlier
 * run of itself, killed) already programmed: with the same guid2lid it
 * keeps every LID and reads the switches' LFTs instead of rewriting them.
 * The fake fabric's tables and Set counters are the judge.
 */
#include <CUnit/CUnit.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/core/log.h"
#include "sm/core/sm.h"
#include "tests/unit/sm_rig.h"
#include "tests/unit/unit.h"

#define RESTART_SWITCHES 3
#define RESTART_CAS 30 /* per switch: 93 LIDs, so two LFT blocks per switch */

/* A line s1 - s2 - s3 of 36-port switches (port 35 to the next one, 36
 * to the one before) with RESTART_CAS CAs each; the
 * SM runs on the first CA, h1_1.  Caller frees. */
static char *restart_topo(void)
{
	size_t cap = 64 * 1024, len = 0;
	char *t = malloc(cap);

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	for (int s = 1; s <= RESTART_SWITCHES; s++)
		for (int p = 1; p <= RESTART_CAS; p++)
			len +=
			    (size_t)snprintf(t + len, cap - len,
					     "Hca 1 \"h%d_%d\"\n[1] \"s%d\"[%d]\n\n", s, p, s, p);
	for (int s = 1; s <= RESTART_SWITCHES; s++) {
		len += (size_t)snprintf(t + len, cap - len, "Switch 36 \"s%d\"\n", s);
		for (int p = 1; p <= RESTART_CAS; p++)
			len +=
			    (size_t)snprintf(t + len, cap - len, "[%d] \"h%d_%d\"[1]\n", p, s, p);
		if (s > 1)
			len += (size_t)snprintf(t + len, cap - len, "[36] \"s%d\"[35]\n", s - 1);
		if (s < RESTART_SWITCHES)
			len += (size_t)snprintf(t + len, cap - len, "[35] \"s%d\"[36]\n", s + 1);
		len += (size_t)snprintf(t + len, cap - len, "\n");
	}
	CU_ASSERT_FATAL(len < cap);
	return t;
}

/* A scratch dir for the guid2lid file both SMs share. */
struct restart_dir {
	char dir[32];
	char guid2lid[64];
};

static void restart_dir_init(struct restart_dir *d)
{
	snprintf(d->dir, sizeof(d->dir), "/tmp/nanosm-restart-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(d->dir));
	snprintf(d->guid2lid, sizeof(d->guid2lid), "%s/guid2lid", d->dir);
}

static int restart_rm(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void restart_dir_fini(struct restart_dir *d)
{
	nftw(d->dir, restart_rm, 8, FTW_DEPTH | FTW_PHYS);
}

/* kill -9: the SM is gone with whatever it had in flight; answers to it
 * are lost.  Then a new SM process starts on the same fabric and file. */
static void restart_sm(struct rig *r, const char *guid2lid)
{
	uint8_t mad[SMP_MAD_SIZE];

	sm_free(r->sm);
	while (fake_fabric_pop(r->ff, mad) == 1)
		;
	rig_start_sm(r, guid2lid, "minhop");
}

/* The LID of every node's LID port (switch port 0, CA port 1), by index. */
static void restart_lids(const struct rig *r, uint16_t *lids, size_t n)
{
	const struct fabric *st = fake_fabric_state(r->ff);

	CU_ASSERT_EQUAL_FATAL(st->n_nodes, n);
	for (size_t i = 0; i < n; i++)
		lids[i] = st->nodes[i].ports[fabric_is_switch(&st->nodes[i]) ? 0 : 1].lid;
}

static uint16_t restart_max_lid(const uint16_t *lids, size_t n)
{
	uint16_t top = 0;

	for (size_t i = 0; i < n; i++)
		top = lids[i] > top ? lids[i] : top;
	return top;
}

static unsigned restart_lft_sets(const struct rig *r)
{
	return fake_fabric_counters(r->ff)->lft_block_sets;
}

static void test_restart_reads_and_writes_nothing(void)
{
	struct restart_dir d;
	struct rig r;
	char *topo = restart_topo();
	size_t n = RESTART_SWITCHES * (RESTART_CAS + 1);
	uint16_t before[RESTART_SWITCHES * (RESTART_CAS + 1)],
	    after[RESTART_SWITCHES * (RESTART_CAS + 1)];
	unsigned blocks, sets;

	restart_dir_init(&d);
	rig_init(&r, topo, d.guid2lid, "minhop");
	rig_sweep(&r);
	rig_check_up(&r);
	restart_lids(&r, before, n);
	blocks = restart_max_lid(before, n) / 64u + 1;
	CU_ASSERT_EQUAL(blocks, 2);
	/* fresh switches (LinearFDBTop 0) are written without being read */
	CU_ASSERT_EQUAL(r.last.lft_blocks_read, 0);
	CU_ASSERT_EQUAL(r.last.lft_blocks_sent, RESTART_SWITCHES * blocks);
	sets = restart_lft_sets(&r);

	restart_sm(&r, d.guid2lid);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(r.last.lft_blocks_read, RESTART_SWITCHES * blocks);
	CU_ASSERT_EQUAL(r.last.lft_blocks_sent, 0);
	CU_ASSERT_EQUAL(restart_lft_sets(&r), sets);
	restart_lids(&r, after, n);
	CU_ASSERT_EQUAL(memcmp(before, after, sizeof(before)), 0);
	rig_check_up(&r);

	/* the reads filled the cache: the next sweep neither reads nor writes */
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.lft_blocks_read, 0);
	CU_ASSERT_EQUAL(r.last.lft_blocks_sent, 0);
	CU_ASSERT_EQUAL(restart_lft_sets(&r), sets);
	rig_fini(&r);
	restart_dir_fini(&d);
	free(topo);
}

/* One entry changed behind the SM's back: a restarted SM rewrites exactly
 * the block that holds it (here block 1, LIDs 64..127). */
static void test_restart_rewrites_one_changed_block(void)
{
	struct restart_dir d;
	struct rig r;
	char *topo = restart_topo();
	size_t n = RESTART_SWITCHES * (RESTART_CAS + 1);
	uint16_t lids[RESTART_SWITCHES * (RESTART_CAS + 1)], top, lid;
	uint64_t s3;
	const uint8_t *lft;
	uint8_t good;
	unsigned sets;

	restart_dir_init(&d);
	rig_init(&r, topo, d.guid2lid, "minhop");
	rig_sweep(&r);
	restart_lids(&r, lids, n);
	lid = restart_max_lid(lids, n);
	CU_ASSERT_FATAL(lid >= 64);
	s3 = fake_fabric_state(r.ff)->nodes[rig_node(fake_fabric_state(r.ff), "s3")].guid;
	lft = fake_fabric_lft(r.ff, s3, &top);
	CU_ASSERT_FATAL(lft != NULL && top >= lid);
	good = lft[lid];
	CU_ASSERT_EQUAL_FATAL(fake_fabric_set_lft(r.ff, s3, lid, good == 1 ? 2 : 1), 0);
	sets = restart_lft_sets(&r);

	restart_sm(&r, d.guid2lid);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT(r.last.lft_blocks_read > 0);
	CU_ASSERT_EQUAL(r.last.lft_blocks_sent, 1);
	CU_ASSERT_EQUAL(restart_lft_sets(&r), sets + 1);
	CU_ASSERT_EQUAL(fake_fabric_lft(r.ff, s3, NULL)[lid], good);
	rig_check_up(&r);
	rig_fini(&r);
	restart_dir_fini(&d);
	free(topo);
}

/* A switch that reboots while nanosm runs loses its table (LinearFDBTop
 * 0): the next heavy sweep writes all of it, though the cache said it was
 * right; the other switches get nothing. */
static void test_restart_switch_reboot(void)
{
	struct restart_dir d;
	struct rig r;
	char *topo = restart_topo();
	uint64_t s2;
	unsigned sets;

	restart_dir_init(&d);
	rig_init(&r, topo, d.guid2lid, "minhop");
	rig_sweep(&r);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.lft_blocks_sent, 0);
	s2 = fake_fabric_state(r.ff)->nodes[rig_node(fake_fabric_state(r.ff), "s2")].guid;
	CU_ASSERT_EQUAL_FATAL(fake_fabric_reboot_switch(r.ff, s2), 0);
	sets = restart_lft_sets(&r);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(r.last.lft_blocks_sent, 2); /* s2's two blocks only */
	CU_ASSERT_EQUAL(restart_lft_sets(&r), sets + 2);
	rig_check_up(&r);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.lft_blocks_sent, 0);
	rig_fini(&r);
	restart_dir_fini(&d);
	free(topo);
}

/* A block Set that lands but whose answers are all lost: the sweep counts
 * a Set error, and the cache must not go on believing the old contents.
 * h2_5's cable is pulled: every switch's entry for its LID becomes "drop"
 * (the Sets land, their answers are lost); the cable goes back: its routes return
 * to what the cache still remembered, and must be written again (found by
 * the fault suite: black holes left after MAD loss). */
static void test_restart_lost_lft_replies(void)
{
	struct restart_dir d;
	struct rig r;
	char *topo = restart_topo();
	uint64_t h11;

	restart_dir_init(&d);
	rig_init(&r, topo, d.guid2lid, "minhop");
	rig_sweep(&r);
	h11 = r.topo.nodes[rig_node(&r.topo, "h2_5")].guid;
	CU_ASSERT_EQUAL(fake_fabric_cable(r.ff, h11, 1, 0), 0);
	fake_fabric_lose_set_replies(r.ff, SMP_ATTR_LFT, 1000);
	rig_sweep(&r);
	CU_ASSERT(r.last.set_errors > 0);
	fake_fabric_lose_set_replies(r.ff, 0, 0);
	CU_ASSERT_EQUAL(fake_fabric_cable(r.ff, h11, 1, 1), 0);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	rig_check_up(&r); /* every CA reaches h2_5 again */
	rig_fini(&r);
	restart_dir_fini(&d);
	free(topo);
}

/* Run the first sweep until at least `sets` LFT blocks were applied (or
 * the sweep ended), answering one SMP at a time: the kill -9 point. */
static void restart_sweep_until(struct rig *r, unsigned sets)
{
	struct mad_addr from = {.lid = 0xffff};
	uint8_t mad[SMP_MAD_SIZE];
	int before = r->sweeps_done;

	CU_ASSERT_EQUAL(sm_sweep_request(r->sm), 0);
	for (int guard = 0; guard < 100000 && r->sweeps_done == before; guard++) {
		if (restart_lft_sets(r) >= sets)
			return;
		if (fake_fabric_pop(r->ff, mad) == 1) {
			sm_recv(r->sm, &from, mad, sizeof(mad));
			continue;
		}
		r->now += 10;
		sm_tick(r->sm);
	}
}

/* kill -9 in the middle of the first sweep's LFT push: the new SM keeps the
 * LIDs, reads what the switches already took, and completes the rest. */
static void test_restart_after_kill_mid_push(void)
{
	struct restart_dir d;
	struct rig r;
	char *topo = restart_topo();
	size_t n = RESTART_SWITCHES * (RESTART_CAS + 1);
	uint16_t before[RESTART_SWITCHES * (RESTART_CAS + 1)],
	    after[RESTART_SWITCHES * (RESTART_CAS + 1)];
	unsigned blocks, sets;

	restart_dir_init(&d);
	rig_init(&r, topo, d.guid2lid, "minhop");
	restart_sweep_until(&r, 2);
	CU_ASSERT_EQUAL_FATAL(r.sweeps_done, 0); /* killed mid-sweep */
	restart_lids(&r, before, n);
	blocks = restart_max_lid(before, n) / 64u + 1;
	sets = restart_lft_sets(&r);
	CU_ASSERT(sets >= 2 && sets < RESTART_SWITCHES * blocks);

	restart_sm(&r, d.guid2lid);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT(r.last.lft_blocks_read > 0);
	/* what the killed SM wrote is not written again */
	CU_ASSERT(r.last.lft_blocks_sent <= RESTART_SWITCHES * blocks - sets);
	restart_lids(&r, after, n);
	CU_ASSERT_EQUAL(memcmp(before, after, sizeof(before)), 0);
	rig_check_up(&r);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.lft_blocks_read, 0);
	CU_ASSERT_EQUAL(r.last.lft_blocks_sent, 0);
	rig_fini(&r);
	restart_dir_fini(&d);
	free(topo);
}

/* Reads lost on the wire are retried; the restart still writes nothing. */
static void test_restart_with_drops(void)
{
	struct restart_dir d;
	struct rig r;
	char *topo = restart_topo();
	unsigned sets;

	restart_dir_init(&d);
	rig_init(&r, topo, d.guid2lid, "minhop");
	rig_sweep(&r);
	sets = restart_lft_sets(&r);
	restart_sm(&r, d.guid2lid);
	fake_fabric_drop_every(r.ff, 11); /* denser: every retry of one SMP can be hit */
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL_FATAL(r.last.unreachable, 0);
	CU_ASSERT(fake_fabric_counters(r.ff)->dropped > 0);
	CU_ASSERT(r.last.lft_blocks_read > 0);
	CU_ASSERT_EQUAL(r.last.lft_blocks_sent, 0);
	CU_ASSERT_EQUAL(restart_lft_sets(&r), sets);
	fake_fabric_drop_every(r.ff, 0);
	rig_check_up(&r);
	rig_fini(&r);
	restart_dir_fini(&d);
	free(topo);
}

static int restart_suite_init(void)
{
	log_init(getenv("UNIT_LOG") ? atoi(getenv("UNIT_LOG")) : LOG_LVL_ERR, "nanosm-unit");
	return 0;
}

void test_restart_register(void)
{
	CU_pSuite s = CU_add_suite("restart", restart_suite_init, NULL);

	CU_add_test(s, "restart: LFTs read, nothing rewritten, same LIDs",
		    test_restart_reads_and_writes_nothing);
	CU_add_test(s, "restart: one entry changed behind the SM: one block rewritten",
		    test_restart_rewrites_one_changed_block);
	CU_add_test(s, "restart after a kill in the middle of the LFT push",
		    test_restart_after_kill_mid_push);
	CU_add_test(s, "restart with dropped MADs still rewrites nothing", test_restart_with_drops);
	CU_add_test(s, "a switch that reboots gets its whole table again",
		    test_restart_switch_reboot);
	CU_add_test(s, "LFT Set answers lost: the block is not trusted later",
		    test_restart_lost_lft_replies);
}
