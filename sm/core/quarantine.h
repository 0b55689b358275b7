/*
 * sm/core/quarantine.h - what did not answer, sweep after sweep.
 *
 * DOC: Each heavy sweep reports the SMPs that failed for good (every retry
 * and every other route spent) as misses keyed by (GUID, port, attribute):
 * for a NodeInfo probe the GUID and port are the neighbour's, since what
 * sits behind is unknown.  A key that misses in QUAR_AFTER sweeps in a row
 * is quarantined: reported once, listed by `nanosmctl status`, and no
 * longer given other routes (it is still asked once per sweep, and sweeps
 * keep being retried while anything misses).  A key that answers again,
 * or is no longer asked, leaves the list.  Pure: no I/O, no clock.
 */
#ifndef NANOSM_SM_CORE_QUARANTINE_H
#define NANOSM_SM_CORE_QUARANTINE_H

#include <stddef.h>
#include <stdint.h>

#include "routing/fabric.h"

#define QUAR_AFTER 3 /* sweeps in a row before a key is quarantined */

struct quar_entry {
	uint64_t guid; /* the node asked, or the neighbour of a NodeInfo probe */
	uint8_t port;
	uint16_t attr;	 /* SMP attribute that failed */
	unsigned misses; /* sweeps in a row it failed */
	unsigned first;	 /* sweep number of the first of them */
	unsigned last;	 /* sweep number of the latest */
	uint8_t hops;	 /* the directed route last tried */
	uint8_t path[FABRIC_MAX_HOPS + 1];
	uint8_t reported; /* quarantine logged */
};

struct quar {
	struct quar_entry *e;
	size_t n, cap;
};

void quar_init(struct quar *q);
void quar_fini(struct quar *q);
/* Record a miss in sweep `sweep` (once per key per sweep).  0 or -ENOMEM. */
int quar_miss(struct quar *q, unsigned sweep, uint64_t guid, uint8_t port, uint16_t attr,
	      const uint8_t *path, uint8_t hops);
/* Is the key quarantined (missed QUAR_AFTER sweeps in a row up to the
 * last finished sweep)? */
int quar_held(const struct quar *q, uint64_t guid, uint8_t port, uint16_t attr);
/* Did the key miss in sweep `sweep` (so far)? */
int quar_missed_in(const struct quar *q, unsigned sweep, uint64_t guid, uint8_t port,
		   uint16_t attr);
/* End of sweep `sweep`: keys not missed in it are dropped, and copied to
 * `gone` (up to max_gone) if they had been quarantined; keys that reach
 * QUAR_AFTER now and were not reported are copied to `fresh` (up to
 * max_fresh) and marked reported.  Counts through the out parameters. */
void quar_sweep_end(struct quar *q, unsigned sweep, struct quar_entry *fresh, size_t max_fresh,
		    size_t *n_fresh, struct quar_entry *gone, size_t max_gone, size_t *n_gone);
/* How many keys are quarantined now. */
size_t quar_count(const struct quar *q);

#endif
