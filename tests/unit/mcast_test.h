/*
 * mcast_test.h - the SA rig the multicast tests share (test_mcast.c registers
 * suite mcast; test_mcast_policy.c and test_mft.c add theirs): two leaves
 * under two spines, an SA with a group db over that fabric, and the
 * MCMemberRecord requests its hosts send.  Test code only (mcast_test.c).
 */
#ifndef NANOSM_TESTS_UNIT_MCAST_TEST_H
#define NANOSM_TESTS_UNIT_MCAST_TEST_H

#include <CUnit/CUnit.h>
#include <stdint.h>

#include "config/pkey.h"
#include "mad/mad_queue.h"
#include "mad/sa_mcm.h"
#include "routing/fabric.h"
#include "sm/sa/server.h"

/* two leaves under two spines; h1, h2 on l1, h3, h4 on l2 */
extern const char mcast_test_topo[];
/* Two MGIDs of IPv6 groups. */
extern const uint8_t mcast_test_mgid_a[16];
extern const uint8_t mcast_test_mgid_b[16];

struct mcast_test_rig {
	struct fabric f;
	struct sa *sa;
	int own_db;
	struct pkey_plan pk;
	struct pkey_port_table tables[4];
	struct sa_out out;
	struct sa_mcm ans;
	uint64_t sm_key; /* what requests carry: MCAST_TEST_SM_KEY = trusted */
};

#define MCAST_TEST_SM_KEY 0x5aull /* the view's SM_Key */

#define MCAST_TEST_JOIN_COMPS                                                                      \
	(SA_MCM_BIT(SA_MCM_COMP_MGID) | SA_MCM_BIT(SA_MCM_COMP_PORT_GID) |                         \
	 SA_MCM_BIT(SA_MCM_COMP_JOIN_STATE))
#define MCAST_TEST_CREATE_COMPS                                                                    \
	(MCAST_TEST_JOIN_COMPS | SA_MCM_BIT(SA_MCM_COMP_QKEY) | SA_MCM_BIT(SA_MCM_COMP_PKEY) |     \
	 SA_MCM_BIT(SA_MCM_COMP_SL) | SA_MCM_BIT(SA_MCM_COMP_FLOW_LABEL) |                         \
	 SA_MCM_BIT(SA_MCM_COMP_TCLASS))

/* A mad_xmit send that sends nothing. */
int mcast_test_send(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len);
/* Parse the tree, number its LIDs, make the SA and hand it the view. */
void mcast_test_init(struct mcast_test_rig *r);
void mcast_test_fini(struct mcast_test_rig *r);
/* Hand the SA a new view (with r->pk when with_pk). */
void mcast_test_update(struct mcast_test_rig *r, int with_pk);
/* Port 1 of host. */
struct sa_port_ref mcast_test_port(const struct mcast_test_rig *r, const char *host);
/* One MCMemberRecord request from host's port; returns the status, the
 * answer's records in r->out and the first decoded in r->ans. */
uint16_t mcast_test_req(struct mcast_test_rig *r, const char *from, uint8_t method, uint64_t comp,
			const struct sa_mcm *t);
/* A record from host's port for mgid (NULL: none) with join state join. */
void mcast_test_tmpl(const struct mcast_test_rig *r, const char *host, const uint8_t *mgid,
		     uint8_t join, struct sa_mcm *t);
/* Join (Set, creating the group if need be) or leave (Delete) mgid from host. */
uint16_t mcast_test_join(struct mcast_test_rig *r, const char *host, const uint8_t *mgid,
			 uint8_t join);
uint16_t mcast_test_leave(struct mcast_test_rig *r, const char *host, const uint8_t *mgid,
			  uint8_t join);
/* The MLID of mgid's group, 0 if there is none. */
uint16_t mcast_test_mlid(const struct mcast_test_rig *r, const uint8_t *mgid);

/* The tests of test_mcast_policy.c and test_mft.c, added to suite mcast. */
void test_mcast_policy_add(CU_pSuite s);
void test_mft_add(CU_pSuite s);

#endif
