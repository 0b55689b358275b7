/*
 * test_standby.c - the SM state machine: the pure decisions (standby.c),
 * then whole SMs against the fake fabric playing a second SM.
 */
#include <CUnit/CUnit.h>

#include "mad/smp.h"
#include "sm/standby.h"
#include "tests/unit/unit.h"

#define SB(g, p, s) ((struct standby_sm){ .guid = (g), .priority = (p), .state = (s) })

static void test_standby_better(void)
{
	struct standby_sm a = SB(0x10, 5, SM_STATE_MASTER), b = SB(0x05, 4, SM_STATE_MASTER);

	CU_ASSERT(standby_better(&a, &b));  /* priority first */
	CU_ASSERT(!standby_better(&b, &a));
	b.priority = 5;
	CU_ASSERT(standby_better(&b, &a));  /* then the lower GUID */
	CU_ASSERT(!standby_better(&a, &b));
	CU_ASSERT(!standby_better(&a, &a));
}

static void test_standby_decide_discovering(void)
{
	struct standby_sm self = SB(0x20, 5, SM_STATE_DISCOVERING);
	struct standby_sm peers[3];
	size_t which = 99;

	CU_ASSERT_EQUAL(standby_decide(&self, NULL, 0, &which), STANDBY_ACT_MASTER);
	/* a worse master still rules while we discover: it hands over to us */
	peers[0] = SB(0x30, 1, SM_STATE_MASTER);
	CU_ASSERT_EQUAL(standby_decide(&self, peers, 1, &which), STANDBY_ACT_STANDBY);
	CU_ASSERT_EQUAL(which, 0);
	/* a worse standby: we win */
	peers[0] = SB(0x30, 1, SM_STATE_STANDBY);
	CU_ASSERT_EQUAL(standby_decide(&self, peers, 1, &which), STANDBY_ACT_MASTER);
	/* a better one discovering / standby: we wait under the best */
	peers[1] = SB(0x40, 7, SM_STATE_DISCOVERING);
	peers[2] = SB(0x08, 7, SM_STATE_STANDBY);
	CU_ASSERT_EQUAL(standby_decide(&self, peers, 3, &which), STANDBY_ACT_STANDBY);
	CU_ASSERT_EQUAL(which, 2);
	/* NOTACTIVE and our own GUID do not count */
	peers[0] = SB(0x01, 15, SM_STATE_NOT_ACTIVE);
	peers[1] = SB(0x20, 15, SM_STATE_MASTER);
	CU_ASSERT_EQUAL(standby_decide(&self, peers, 2, &which), STANDBY_ACT_MASTER);
}

static void test_standby_decide_master(void)
{
	struct standby_sm self = SB(0x20, 5, SM_STATE_MASTER);
	struct standby_sm peers[3];
	size_t which = 99;

	/* worse SMs in any state: stay */
	peers[0] = SB(0x30, 5, SM_STATE_MASTER);
	peers[1] = SB(0x10, 4, SM_STATE_STANDBY);
	CU_ASSERT_EQUAL(standby_decide(&self, peers, 2, &which), STANDBY_ACT_MASTER);
	/* a better standby: hand over to it */
	peers[2] = SB(0x50, 9, SM_STATE_STANDBY);
	CU_ASSERT_EQUAL(standby_decide(&self, peers, 3, &which), STANDBY_ACT_HANDOVER);
	CU_ASSERT_EQUAL(which, 2);
	/* a better master wins over handing over: step down */
	peers[0] = SB(0x30, 6, SM_STATE_MASTER);
	CU_ASSERT_EQUAL(standby_decide(&self, peers, 3, &which), STANDBY_ACT_STANDBY);
	CU_ASSERT_EQUAL(which, 0);
	/* a better one still discovering: it will go standby under us first */
	peers[0] = SB(0x01, 15, SM_STATE_DISCOVERING);
	CU_ASSERT_EQUAL(standby_decide(&self, peers, 1, &which), STANDBY_ACT_MASTER);
}

static void test_standby_poll(void)
{
	struct standby_poll p = { 0 };

	for (int round = 0; round < 2; round++) {
		for (unsigned i = 1; i < STANDBY_MISSES; i++)
			CU_ASSERT_EQUAL(standby_poll_count(&p, 0, 0), 0);
		/* one good answer starts the count again */
		CU_ASSERT_EQUAL(standby_poll_count(&p, 1, SM_STATE_MASTER), 0);
		CU_ASSERT_EQUAL(p.misses, 0);
	}
	/* an answer that is not MASTER counts as a miss */
	for (unsigned i = 1; i < STANDBY_MISSES; i++)
		CU_ASSERT_EQUAL(standby_poll_count(&p, 1, SM_STATE_STANDBY), 0);
	CU_ASSERT_EQUAL(standby_poll_count(&p, 0, 0), 1);
}

void test_standby_register(void)
{
	CU_pSuite s = CU_add_suite("standby", NULL, NULL);

	CU_add_test(s, "who wins: priority, then GUID", test_standby_better);
	CU_add_test(s, "decisions while discovering", test_standby_decide_discovering);
	CU_add_test(s, "decisions as master", test_standby_decide_master);
	CU_add_test(s, "polling the master", test_standby_poll);
}
