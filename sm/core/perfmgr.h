/*
 * sm/core/perfmgr.h - the performance manager: every interval, the PMA
 * counters of every ACTIVE port of the last good fabric, read with
 * LID-routed PerfMgt GMPs through the SM's own MAD port.
 *
 * DOC: A pass starts when the interval has passed and nothing else runs
 * (no sweep, light sweep, poll or push): each node's ClassPortInfo once
 * (is PortCountersExtended there?), then PortCounters of each ACTIVE port,
 * PortCountersExtended where supported, and a PortCounters Set clearing
 * the port when a counter in use passed half its range
 * (perf_port_needs_clear).  At most opts.window GMPs are on the wire; new
 * ones wait while a sweep runs, so a sweep never queues behind a pass.
 * Each GMP is retried like an SMP (the SM's timeout and retries).  After
 * each read the port's verdict moves (perf_port.h); at the end of a pass
 * every cable whose verdict changed is logged once, naming both ends
 * (NSM-W760 when it crosses a threshold, NSM-W761 when it recovers).
 * Only master reads: a standby keeps what it had.
 */
#ifndef NANOSM_SM_CORE_PERFMGR_H
#define NANOSM_SM_CORE_PERFMGR_H

#include <stdint.h>

#include "sm/core/perf_port.h"

struct sm;

#define PERFMGR_INTERVAL_DEFAULT 30 /* seconds */
#define PERFMGR_WINDOW 16	    /* GMPs in flight at most */

struct perfmgr_opts {
	int enabled;
	unsigned interval_s;
	struct perf_thresholds th;
};

struct perfmgr_stats {
	uint64_t passes;	/* passes completed */
	uint64_t gmps_sent;	/* retries included */
	uint64_t gmps_received; /* answers matched to a GMP of ours */
	uint64_t timeouts;	/* GMPs unanswered after every retry */
	uint64_t errors;	/* answers with a MAD status */
	uint64_t clears;	/* PortCounters Sets sent to clear a port */
	uint64_t last_pass_ms;	/* how long the last pass took */
	uint64_t last_pass_end; /* sm clock ms when it ended (0: none yet) */
	uint64_t last_missed;	/* ports the last pass could not read */
	size_t ports;		/* ports in the table */
	size_t unhealthy;	/* ports whose verdict is not ok */
};

/* Turn the manager on or off, set its interval and thresholds (from the
 * next pass on).  0 or -ENOMEM (the table is made on first use). */
int sm_set_monitor(struct sm *sm, const struct perfmgr_opts *o);
/* The ports (borrowed until the next sm_tick or sm_recv); n 0 before the
 * first pass. */
const struct perf_table *sm_perf_table(const struct sm *sm);
const struct perfmgr_stats *sm_perf_stats(const struct sm *sm);
const struct perfmgr_opts *sm_perf_opts(const struct sm *sm);
/* Start a pass at the next tick, whatever the interval says (tests). */
void sm_perf_now(struct sm *sm);

#endif
