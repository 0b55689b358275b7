/*
 * test_progress.c - progress lines of long sweeps (sm/progress.c): when one
 * is due and what it says.
 */
#include <CUnit/CUnit.h>
#include <string.h>

#include "sm/progress.h"
#include "unit.h"

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

void test_progress_register(void)
{
	CU_pSuite s = CU_add_suite("progress", NULL, NULL);

	CU_add_test(s, "a sweep shorter than 2 s says nothing", test_progress_short_sweep_silent);
	CU_add_test(s, "at most one line per 2 s", test_progress_rate_limited);
	CU_add_test(s, "a new sweep starts over; nothing when idle", test_progress_new_sweep);
	CU_add_test(s, "one line per phase", test_progress_format_phases);
	CU_add_test(s, "a short buffer is cut, not overrun", test_progress_format_truncates);
}
