/*
 * sm/daemon/metrics.h - the SM's figures in the Prometheus text exposition format
 * (version 0.0.4), for `nanosmctl metrics`.
 *
 * DOC: metrics_render is pure: a struct of figures in, text out.  Every
 * metric gets its # HELP and # TYPE lines; counters end in _total; label
 * values are escaped (backslash, double quote, newline).  The daemon
 * fills struct metrics_figures (sm/daemon/loop.c), the control socket renders it
 * (sm/daemon/control.c).  docs/nanosmctl.md lists the names.
 */
#ifndef NANOSM_SM_DAEMON_METRICS_H
#define NANOSM_SM_DAEMON_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "sm/sa/server.h"
struct fabric;
struct perf_table;
struct perfmgr_stats;

#define METRICS_LIDS_CAPACITY 49151 /* unicast LIDs 0x0001..0xBFFF */

/* MAD traffic of one management class. */
struct metrics_mads {
	uint64_t sent, received, timeouts, retries;
};

struct metrics_figures {
	uint64_t uptime_s;
	/* sweeps since start */
	uint64_t sweeps_heavy;	/* heavy sweeps that ended (ok or failed) */
	uint64_t sweeps_light;	/* light sweeps started */
	uint64_t sweeps_failed; /* heavy sweeps that failed */
	int have_last;		/* a heavy sweep has ended: last_sweep_ms is set */
	uint64_t last_sweep_ms; /* how long the last heavy sweep took */
	/* MADs since start: SMPs (the SM's requests; timeouts and retries are
	 * theirs) and SA (requests received, answers and reports sent; the SA
	 * never retries, so it has no timeout/retry series) */
	struct metrics_mads smp, sa;
	uint64_t sa_answered, sa_errors, sa_malformed;
	/* the SA's limits (docs/sa.md, "Limits") and the MAD port's send queue */
	struct sa_usage sa_use;
	uint64_t sa_mlid_refused, sa_quota_refused, sa_report_retries, sa_subs_dropped;
	uint64_t mad_send_dropped; /* MADs dropped: the send queue was full */
	uint64_t lids_used;	  /* LIDs held: assigned and reserved */
	/* the fabric of the last good sweep, as its "sweep N:" line counts it */
	uint64_t switches, cas, ports, lids, vls;
	uint64_t lft_blocks_sent; /* LFT block Sets, all sweeps */
	const char *engine;	  /* the engine of the tables in force, NULL = none yet */
	const char *engines;	  /* the configured fallback list, NULL = unknown */
	uint8_t sm_state;	  /* enum sm_state */
	int subnet_up;		  /* 1 once SUBNET UP, 0 before and in standby */
	/* the port counters (metrics_ib.h), borrowed; NULL: none */
	const struct fabric *fabric;
	const struct perf_table *perf;
	const struct perfmgr_stats *perf_st;
};

/* Render m into buf (NUL-terminated, cut to size); returns the length the
 * whole text needs, as snprintf does (call with size 0 to measure). */
size_t metrics_render(const struct metrics_figures *m, char *buf, size_t size);

/* Escape a label value for the exposition format into buf (cut to size,
 * NUL-terminated); returns the length needed.  NULL counts as "". */
size_t metrics_escape(const char *value, char *buf, size_t size);

#endif
