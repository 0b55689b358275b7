/*
 * sa_path_test.h - the rig the PathRecord and MultiPathRecord tests share
 * (test_sa_paths.c, test_sa_mpath.c; suite sa_path, registered by
 * test_sa_path.c): a two-switch fabric routed by minhop, an SA answering
 * from its view, and the requests they send.  Test code only (sa_path_test.c).
 */
#ifndef NANOSM_TESTS_UNIT_SA_PATH_TEST_H
#define NANOSM_TESTS_UNIT_SA_PATH_TEST_H

#include <CUnit/CUnit.h>
#include <stddef.h>
#include <stdint.h>

#include "config/pkey.h"
#include "mad/sa_path.h"
#include "routing/fabric.h"
#include "sm/sa/server.h"

/* The subnet's SM_Key in every view of the rig. */
#define SA_PATH_TEST_SM_KEY 0x1ull

struct sa_path_test_rig {
	struct fabric f;
	struct lft_set lfts;
	struct sa *sa;
	int own_paths;
	int s1, s2, h1, h2, h3;
	uint16_t l_s1, l_s2, l_h1, l_h2, l_h3;
	struct sa_out out;
	/* who asks: the requester port (node FABRIC_NONE: unknown, the
	 * default) and the SM_Key its requests carry (0: untrusted) */
	struct sa_port_ref asker;
	uint64_t key;
};

/* h1, h2 on s1; h3 on s2; s1 port 3 - s2 port 3; minhop's tables; an SA
 * whose view is generation 1.  Fails the test fatally when it cannot. */
void sa_path_test_rig_init(struct sa_path_test_rig *r);
void sa_path_test_rig_fini(struct sa_path_test_rig *r);
/* Hand the SA a view of the rig (route generation gen), with partitions pk
 * (NULL: none). */
void sa_path_test_view_pk(struct sa_path_test_rig *r, uint64_t gen, const struct pkey_plan *pk);
void sa_path_test_view(struct sa_path_test_rig *r, uint64_t gen);
/* A request's header: method, attr and mask from the rig's asker with its
 * SM_Key (r->key); r->out emptied for the answer. */
void sa_path_test_req(struct sa_path_test_rig *r, struct sa_mad *m, uint8_t method, uint16_t attr,
		      uint64_t mask);
/* Ask for PathRecords; the answer's records are in r->out. */
uint16_t sa_path_test_ask(struct sa_path_test_rig *r, uint8_t method, uint64_t mask,
			  const struct sa_path_rec *want);
/* Get the path slid -> dlid; returns the record count (the first decoded into d). */
size_t sa_path_test_get(struct sa_path_test_rig *r, uint16_t slid, uint16_t dlid, uint64_t extra,
			const struct sa_path_rec *more, struct sa_path_rec *d);
/* Partition 0x0010 built into pp and put in r's view (generation 2); no
 * rule for 0x7fff, so h1 (the SM's port) is its only full member and
 * everyone else a limited one.  p10: h2 and h3 full members of 0x0010, the
 * switches limited ones; h1h2: h1 and h2 full members, nobody else. */
void sa_path_test_plan_p10(struct sa_path_test_rig *r, struct pkey_plan *pp);
void sa_path_test_plan_h1h2(struct sa_path_test_rig *r, struct pkey_plan *pp);

/* The tests of test_sa_paths.c and test_sa_mpath.c, added to suite sa_path. */
void test_sa_paths_add(CU_pSuite s);
void test_sa_mpath_add(CU_pSuite s);

#endif
