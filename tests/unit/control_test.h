/*
 * control_test.h - the fixture of suite control (test_control.c registers it,
 * test_control_serve.c adds its tests): a five-node fabric with minhop LFTs
 * and a LID map, the fake control ops answering from it, a scratch directory.
 * Test code only (control_test.c).
 */
#ifndef NANOSM_TESTS_UNIT_CONTROL_TEST_H
#define NANOSM_TESTS_UNIT_CONTROL_TEST_H

#include <CUnit/CUnit.h>
#include <stddef.h>

#include "routing/fabric.h"
#include "routing/lid_alloc.h"
#include "routing/topo_write.h"
#include "sm/daemon/control.h"

/* The fixture's nodes, in the fabric's order (control_test.c draws it). */
enum { H1, H2, H3, SW1, SW2 };

#define TC_BIG_PLAN (4u << 20) /* a reply larger than any socket buffer */

struct tc {
	struct fabric f;
	struct lft_set lfts;
	struct lid_alloc lids;
	struct topo_name name_v[1];
	struct topo_names names;
	int no_lfts;	     /* lfts op answers NULL */
	int sweeps;	     /* sweep op calls */
	int standby;	     /* status answers STANDBY under a master */
	int reload_fails;    /* reload op answers an error */
	int reload_force;    /* what the last reload was given (-1: none yet) */
	char plan_name[256]; /* what the plan op was given: the name */
	char plan_text[64];  /* and the text (its start) */
	size_t plan_len;     /* and its length */
	int plan_calls;
	int plan_verbose;
	char dir[64];	/* mkdtemp */
	char path[128]; /* the socket */
	int log_level;	/* restored after the suite (its expected warnings muted) */
};

/* The suite's state: set up by control_test_init, torn down by
 * control_test_clean (the suite's CUnit init and cleanup). */
extern struct tc tc;
int control_test_init(void);
int control_test_clean(void);
/* The ops every test hands control_handle/control_serve (ctx = &tc). */
extern const struct control_ops control_test_ops;
/* The trace from host1 to host3 as the routes command prints it. */
extern const char control_test_trace_h1_h3[];

/* The tests of test_control_serve.c, added to suite control. */
void test_control_serve_add(CU_pSuite s);

#endif
