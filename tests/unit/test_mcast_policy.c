/*
 * test_mcast_policy.c - the policy's IPoIB groups on a running SM (over the
 * fake fabric of sm_rig.h): MTU and rate from the first sweep, ports that
 * cannot carry them, a reload that changes them.  Part of suite mcast
 * (test_mcast.c).
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/pkey.h"
#include "mad/sa_mcm.h"
#include "routing/topo_file.h"
#include "sm/core/log.h"
#include "sm/core/sm_priv.h"
#include "sm/sa/mcast.h"
#include "tests/unit/mcast_test.h"
#include "tests/unit/sm_rig.h"

/* ---- the policy's IPoIB groups on a running SM ------------------------------ */

static const uint8_t mc_bcast[16] = {0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0,    0,
				     0,	   0,	 0,    0,    0xff, 0xff, 0xff, 0xff};

/* The policy's default partition with IPoIB at mtu bytes and rate Gb/s,
 * every port a full member, handed to the SM as loop.c does (at start
 * and on each reload). */
static void mc_policy_default(struct rig *g, unsigned mtu, unsigned rate)
{
	struct policy_member all = {.kind = POLICY_MEMBER_ALL, .membership = POLICY_FULL};
	struct policy_partition part = {.name = "default",
					.pkey = 0x7fff,
					.ipoib = 1,
					.mtu = mtu,
					.rate = rate,
					.members = &all,
					.n_members = 1};

	CU_ASSERT_EQUAL(sm_set_partitions(g->sm, &part, 1), 0);
}

static struct mcast_group_info mc_bcast_info(const struct rig *g)
{
	struct mcast_group_info gi = {0};

	CU_ASSERT_EQUAL(mcast_db_find(g->sm->sa->mcast, mc_bcast, &gi), 0);
	return gi;
}

/* Lines of the log file at path holding what. */
static int mc_log_count(const char *path, const char *what)
{
	char line[1024];
	int n = 0;
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	if (f)
		fclose(f);
	return n;
}

/* The default partition's IPoIB group has the policy's MTU and rate from
 * the first sweep (the SM made it with the defaults before the policy
 * came); ports that cannot carry it are said (NSM-W440).  A reload that
 * changes them changes the group at once, says so, and the next sweep
 * asks its members (only them, once) to reregister. */
static void test_mcast_policy_reload(void)
{
	char path[] = "/tmp/nanosm-unit-mcast-XXXXXX";
	int level = log_level_get(), fd;
	const struct fake_counters *fc;
	struct mcast_group_info gi;
	struct mcast_test_rig r;
	struct sa_mcm t;
	struct rig g;
	unsigned sets;

	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	log_init(LOG_LVL_INFO, NULL);
	CU_ASSERT_EQUAL_FATAL(log_open_file(path), 0);
	rig_init(&g, mcast_test_topo, NULL, "updn");
	fc = fake_fabric_counters(g.ff);
	mc_policy_default(&g, 4096, 10);
	rig_sweep(&g);
	CU_ASSERT_EQUAL_FATAL(g.last.status, 0);
	gi = mc_bcast_info(&g);
	CU_ASSERT_EQUAL(gi.mtu, 5);  /* 4096 */
	CU_ASSERT_EQUAL(gi.rate, 3); /* 10 Gb/s */
	CU_ASSERT_TRUE(gi.policy);
	CU_ASSERT_EQUAL(mc_log_count(path, "-> 4096"), 0); /* nothing to say before a sweep */
	/* the fake's ports carry 2048: all four hosts are said, once */
	CU_ASSERT_EQUAL(mcast_group_misfits(g.sm->sa, &gi, NULL, NULL), 4);
	CU_ASSERT_EQUAL(mc_log_count(path, "NSM-W440 IPoIB group ff12:401b:ffff::ffff:ffff "
					   "(P_Key 0xffff) has MTU 4096 and rate 10 Gb/s, which 4 "
					   "ports"),
			1);
	rig_sweep(&g);
	CU_ASSERT_EQUAL(mc_log_count(path, "NSM-W440"), 1);
	/* a reload to 2048 and 5 Gb/s: h2 and h3 can join now */
	mc_policy_default(&g, 2048, 5);
	gi = mc_bcast_info(&g);
	CU_ASSERT_EQUAL(gi.mtu, 4);
	CU_ASSERT_EQUAL(gi.rate, 5); /* 5 Gb/s */
	CU_ASSERT_EQUAL(mc_log_count(path, "IPoIB group ff12:401b:ffff::ffff:ffff (P_Key "
					   "0xffff): MTU 4096 -> 2048, rate 10 -> 5 Gb/s; 0 member "
					   "ports asked to re-register"),
			1);
	CU_ASSERT_EQUAL(mcast_group_misfits(g.sm->sa, &gi, NULL, NULL), 0);
	rig_sweep(&g);
	memset(&r, 0, sizeof(r));
	fabric_copy(&r.f, sm_fabric(g.sm));
	r.sa = g.sm->sa;
	r.sm_key = 0;
	mcast_test_tmpl(&r, "h2", mc_bcast, SA_MCM_JOIN_FULL, &t);
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h2", SA_METHOD_SET, MCAST_TEST_JOIN_COMPS, &t),
			SA_STATUS_OK);
	CU_ASSERT_EQUAL(r.ans.mtu, 4);
	mcast_test_tmpl(&r, "h3", mc_bcast, SA_MCM_JOIN_FULL, &t);
	CU_ASSERT_EQUAL(mcast_test_req(&r, "h3", SA_METHOD_SET, MCAST_TEST_JOIN_COMPS, &t),
			SA_STATUS_OK);
	/* a reload to 1024: the group changes, its two members reregister */
	mc_policy_default(&g, 1024, 5);
	gi = mc_bcast_info(&g);
	CU_ASSERT_EQUAL(gi.mtu, 3);
	CU_ASSERT_EQUAL(gi.n_members, 2);
	CU_ASSERT_EQUAL(mc_log_count(path, "MTU 2048 -> 1024, rate 5 -> 5 Gb/s; 2 member ports "
					   "asked to re-register (ClientReregister at the next "
					   "sweep)"),
			1);
	sets = fc->client_rereg_sets;
	rig_sweep(&g);
	CU_ASSERT_EQUAL(fc->client_rereg_sets, sets + 2);
	CU_ASSERT_EQUAL(g.last.port_sets, 2);
	rig_sweep(&g); /* asked once */
	CU_ASSERT_EQUAL(fc->client_rereg_sets, sets + 2);
	CU_ASSERT_EQUAL(g.last.port_sets, 0);
	/* the same policy again: nothing changes, nothing said */
	mc_policy_default(&g, 1024, 5);
	CU_ASSERT_EQUAL(mc_log_count(path, "(P_Key 0xffff): MTU"), 2);
	log_to_stderr();
	log_init(level, NULL);
	unlink(path);
	free(r.out.recs);
	fabric_fini(&r.f);
	rig_fini(&g);
}

/* The tests of this file, in suite mcast (test_mcast.c). */
void test_mcast_policy_add(CU_pSuite s)
{
	CU_add_test(s, "IPoIB group MTU and rate: first sweep, reload", test_mcast_policy_reload);
}
