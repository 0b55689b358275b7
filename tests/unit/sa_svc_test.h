/*
 * sa_svc_test.h - the rig the ServiceRecord and InformInfo tests share
 * (test_sa_svc.c registers suite sa_svc; test_sa_services.c and
 * test_sa_inform.c add theirs): a switch with two hosts and a smaller fabric,
 * an SA whose transmit records what it sends, and the requests the tests
 * send through sa_svc_handle.  Test code only (sa_svc_test.c).
 */
#ifndef NANOSM_TESTS_UNIT_SA_SVC_TEST_H
#define NANOSM_TESTS_UNIT_SA_SVC_TEST_H

#include <CUnit/CUnit.h>
#include <stddef.h>
#include <stdint.h>

#include "config/pkey.h"
#include "mad/mad_queue.h"
#include "mad/sa.h"
#include "mad/sa_svc.h"
#include "routing/fabric.h"
#include "sm/sa/server.h"

#define SA_SVC_TEST_SENT_MAX 8
#define SA_SVC_TEST_SM_KEY 0x1ull /* the subnet's SM_Key in every view of the rig */

struct sa_svc_test_sent {
	int n;
	struct mad_addr to[SA_SVC_TEST_SENT_MAX];
	uint8_t mad[SA_SVC_TEST_SENT_MAX][SA_MAD_SIZE];
	size_t len[SA_SVC_TEST_SENT_MAX];
};

struct sa_svc_test_rig {
	struct fabric f, f_small;
	struct sa_svc_test_sent sent;
	struct sa *sa;
	int own_svc; /* the test created sa->svc (sa_modules did not) */
	const struct pkey_plan *pk; /* partitions of the next view; NULL: none */
	uint64_t key;		    /* SM_Key the requests carry (0: untrusted) */
};

#define SA_SVC_TEST_SR_KEY (1ull << SA_SVC_REC_C_ID | 1ull << SA_SVC_REC_C_GID)

/* sw LID 1, h1 LID 2, h2 LID 3; the SA sees r->f (route generation 1). */
void sa_svc_test_rig_init(struct sa_svc_test_rig *r);
void sa_svc_test_rig_fini(struct sa_svc_test_rig *r);
/* Hand the SA a view of f (r->f or r->f_small) with partitions r->pk. */
void sa_svc_test_view(struct sa_svc_test_rig *r, const struct fabric *f);
/* Run one request from LID `lid` through sa_svc_handle; out is reset. */
uint16_t sa_svc_test_call(struct sa_svc_test_rig *r, uint16_t lid, uint8_t method, uint16_t attr,
			  uint64_t mask, const uint8_t *rec, size_t rec_len, uint64_t now,
			  struct sa_out *out);
/* The GID of the port with LID lid. */
void sa_svc_test_port_gid(struct sa_svc_test_rig *r, uint16_t lid, uint8_t gid[16]);
/* The big-endian number in the n bytes at p. */
uint64_t sa_svc_test_be(const uint8_t *p, int n);
/* A ServiceRecord of lid's port: id, lease, name, P_Key 0xffff. */
void sa_svc_test_service(struct sa_svc_test_rig *r, uint16_t lid, uint64_t id, uint32_t lease,
			 const char *name, uint8_t rec[SA_SVC_REC_SIZE]);
/* InformInfo Set from lid: (un)subscribe to trap (all types, producers,
 * LIDs). */
uint16_t sa_svc_test_inform(struct sa_svc_test_rig *r, uint16_t lid, uint8_t subscribe,
			    uint16_t trap, struct sa_out *out);

/* The tests of test_sa_services.c and test_sa_inform.c, added to suite sa_svc. */
void test_sa_services_add(CU_pSuite s);
void test_sa_inform_add(CU_pSuite s);

#endif
