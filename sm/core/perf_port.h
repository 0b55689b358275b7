/*
 * sm/core/perf_port.h - one port's counters as the performance manager
 * keeps them: 64-bit totals from the PMA's saturating counters, the growth
 * over the last interval, and the cable's health verdict.
 *
 * DOC: Pure bookkeeping (no I/O, no clock: the caller passes now), so the
 * arithmetic is unit-tested on its own.  The PMA's PortCounters saturate
 * at all ones and never wrap; each read adds the growth since the last
 * one to a 64-bit total (a value below the last one means someone cleared
 * the port: the new value is the growth).  Where the port has
 * PortCountersExtended, its 64-bit data and packet counters are used for
 * those four.  perf_port_needs_clear says when a counter in use has passed
 * half its range: the manager then clears the port (PortCounters Set) and
 * perf_port_cleared starts the next read from 0.  The verdict of a read
 * interval: failing when the error counters rose by thresholds.failing or
 * more, flapping when LinkDowned + LinkErrorRecovery rose by
 * thresholds.flapping or more, degrading when the errors rose by
 * thresholds.degrading or more; a verdict stays until thresholds.recover
 * intervals in a row crossed none.
 */
#ifndef NANOSM_SM_CORE_PERF_PORT_H
#define NANOSM_SM_CORE_PERF_PORT_H

#include <stddef.h>
#include <stdint.h>

#include "mad/pma.h"

enum perf_health { PERF_OK = 0, PERF_DEGRADING = 1, PERF_FLAPPING = 2, PERF_FAILING = 3 };

struct perf_thresholds {
	unsigned degrading; /* error counts in one interval (default 10) */
	unsigned failing;   /* error counts in one interval (default 1000) */
	unsigned flapping;  /* LinkDowned + LinkErrorRecovery in one interval (default 1) */
	unsigned recover;   /* intervals in a row under every threshold to clear (default 2) */
};

#define PERF_THRESHOLDS_DEFAULT                                                                    \
	{                                                                                          \
		10, 1000, 1, 2                                                                     \
	}

/* The error counters a cable's verdict sums (flaps are apart). */
#define PERF_ERROR_COUNTERS                                                                        \
	{                                                                                          \
		PMA_SYMBOL_ERRORS, PMA_RCV_ERRORS, PMA_RCV_REMOTE_PHYS_ERRORS,                     \
		    PMA_LOCAL_LINK_INTEGRITY_ERRORS, PMA_EXCESSIVE_BUFFER_OVERRUN                  \
	}

struct perf_port {
	uint64_t guid; /* node GUID */
	uint16_t lid;  /* where its GMPs go (a switch's port 0 LID) */
	uint8_t port;
	uint8_t is_switch;
	uint8_t ext;	/* the last read used PortCountersExtended for data/packets */
	uint8_t health; /* enum perf_health in force */
	uint8_t clean;	/* intervals in a row under every threshold */
	uint8_t have;	/* read at least once */
	uint8_t said;	/* the cable verdict last logged (enum perf_health; perfmgr.c) */
	uint8_t seen;	/* in the last pass's list of ACTIVE ports (perfmgr.c) */
	uint32_t reads, clears;
	uint32_t raw[PMA_N_CTR];   /* PortCounters as last read (since the last clear) */
	uint64_t ext_raw[4];	   /* PortCountersExtended data/packets as last read */
	uint64_t total[PMA_N_CTR]; /* growth since nanosm first read the port, 64-bit */
	uint64_t delta[PMA_N_CTR]; /* growth over the last interval */
	uint64_t read_ms, prev_ms; /* when the last two reads were answered */
};

/* Account one read: pc, and ext (NULL when the port has none) for the
 * data and packet counters.  The first read of a port sets the totals to
 * what the port holds and the growth to 0. */
void perf_port_account(struct perf_port *p, const struct pma_counters *pc,
		       const struct pma_counters_ext *ext, uint64_t now_ms);
/* 1 when a PortCounters counter in use has reached half its range. */
int perf_port_needs_clear(const struct perf_port *p);
/* The port's PortCounters were cleared: the next read grows from 0. */
void perf_port_cleared(struct perf_port *p);
/* Growth of the error counters, and of LinkDowned + LinkErrorRecovery,
 * over the last interval. */
uint64_t perf_port_errors(const struct perf_port *p);
uint64_t perf_port_flaps(const struct perf_port *p);
/* The verdict of the last interval alone. */
enum perf_health perf_port_interval(const struct perf_port *p, const struct perf_thresholds *th);
/* Move p->health after a read: a worse interval verdict takes over at
 * once, a clean run of th->recover intervals clears it.  1 when it
 * changed. */
int perf_port_judge(struct perf_port *p, const struct perf_thresholds *th);
/* "ok", "degrading", "flapping", "failing". */
const char *perf_health_name(enum perf_health h);

/* The ports, sorted by (node GUID, port). */
struct perf_table {
	struct perf_port *p;
	size_t n;
};

/* The entry of (guid, port), or NULL. */
struct perf_port *perf_table_find(const struct perf_table *t, uint64_t guid, uint8_t port);

struct fabric;
struct fabric_node;

/* The cable of t->p[i] in the model f: the far end's node and port, and
 * its entry (NULL when that end is not read).  1 when t->p[i] is the end
 * that speaks for the cable (the lower GUID/port of the two, or the only
 * one read), 0 when the far end does, -1 when the port has no cable. */
int perf_cable(const struct fabric *f, const struct perf_table *t, size_t i,
	       const struct fabric_node **far, uint8_t *far_port, struct perf_port **far_p);
/* The worse verdict of a cable's two ends (b may be NULL). */
enum perf_health perf_cable_health(const struct perf_port *a, const struct perf_port *b);

/* The counters that rose over the last interval (errors, flaps,
 * PortXmitDiscards, VL15Dropped; not data or packets), "SymbolErrorCounter
 * +500 (250/s), LinkDownedCounter +1", or "no errors".  Like snprintf:
 * returns the length it needs. */
size_t perf_port_rises(const struct perf_port *p, char *buf, size_t len);
#endif
