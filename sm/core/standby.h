/*
 * sm/core/standby.h - the SM state machine's decisions (IBA 14.4), pure.
 *
 * DOC: Which SM of a subnet should be master, and what this one does
 * about the others it found: plain data in, a decision out; no MADs, no
 * clock, no logging.  sm/core/ha.c turns the decisions into SMInfo Gets/Sets
 * and state changes.
 *
 *   - An SM beats another with a higher priority, then a lower port GUID
 *     (IBA 14.4.1.1).
 *   - DISCOVERING (our first sweep, or a re-discovery after the master went
 *     silent): a MASTER anywhere -> STANDBY under it (even a worse one: it
 *     will hand over to us); else a better SM in DISCOVERING/STANDBY ->
 *     STANDBY under it; else MASTER.
 *   - MASTER: a better MASTER -> STANDBY (two masters after a merge: the
 *     worse steps down); a better STANDBY -> HANDOVER to it; else stay.
 *   - STANDBY: poll the SM we follow each sweep interval; STANDBY_MISSES
 *     polls in a row without an answer, or with an answer that is not
 *     MASTER, -> DISCOVERING (a heavy sweep that decides again).
 */
#ifndef NANOSM_SM_CORE_STANDBY_H
#define NANOSM_SM_CORE_STANDBY_H

#include <stddef.h>
#include <stdint.h>

#define STANDBY_MISSES 3 /* failed polls of the master before we rediscover */

/* One SM as its SMInfo shows it. */
struct standby_sm {
	uint64_t guid;	  /* SM port GUID */
	uint8_t priority; /* 0..15 */
	uint8_t state;	  /* enum sm_state (mad/smp.h) */
};

enum standby_act {
	STANDBY_ACT_MASTER,   /* be (or stay) master */
	STANDBY_ACT_STANDBY,  /* go standby, following peers[*which] */
	STANDBY_ACT_HANDOVER, /* send HANDOVER to peers[*which] */
};

/* 1 when a beats b: higher priority, then lower GUID. */
int standby_better(const struct standby_sm *a, const struct standby_sm *b);

/* What self does about the peers found in a sweep: self in MASTER follows
 * the MASTER rules, any other state the DISCOVERING ones.  Peers with
 * self's GUID or in NOTACTIVE are ignored.  *which (may be NULL) is set
 * for STANDBY and HANDOVER: the best candidate. */
enum standby_act standby_decide(const struct standby_sm *self, const struct standby_sm *peers,
				size_t n, size_t *which);

/* Standby polling of the SM we follow. */
struct standby_poll {
	unsigned misses; /* polls in a row that failed */
};

/* Count one poll: answered = the SM answered SMInfo, state = its state
 * then.  Returns 1 when it is time to rediscover (STANDBY_MISSES misses). */
int standby_poll_count(struct standby_poll *p, int answered, uint8_t state);

const char *standby_act_name(enum standby_act a);

#endif
