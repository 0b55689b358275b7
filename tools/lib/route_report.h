/*
 * tools/lib/route_report.h - nanosm-route's run (what it read, computed and
 * scored) and its report, as text or JSON on stdout.  Only nanosm-route
 * uses it.
 */
#ifndef NANOSM_TOOLS_LIB_ROUTE_REPORT_H
#define NANOSM_TOOLS_LIB_ROUTE_REPORT_H

#include <stdint.h>

#include "routing/fabric.h"
#include "routing/lft_file.h"
#include "routing/route.h"
#include "routing/score.h"
#include "tools/lib/draw_cli.h"

struct route_args {
	const char *topo, *engine, *lfts, *roots, *dump;
	enum lft_file_format format;
	int json;
	int timing;	/* --timing: report how long routing and scoring took */
	uint8_t vl_cap; /* --vl-cap: every port's VLCap (0: as read) */
	struct score_opts score;
	struct draw_cli draw; /* --draw svg|html: the picture instead of the report */
};

/* How the LIDs came about, for the report. */
enum route_lid_mode { ROUTE_LIDS_TOPOLOGY, ROUTE_LIDS_FABRIC_ORDER, ROUTE_LIDS_MIXED };

struct route_run {
	struct route_args args;
	struct fabric f;
	struct lft_set lfts;
	enum route_lid_mode lid_mode;
	uint16_t max_lid;
	uint64_t *roots;
	size_t n_roots;
	struct route_note engine_note;
	struct lft_file_info file_info;
	struct route_score score;
	/* with --timing, wall and process CPU ms: the engine, the gate alone,
	 * and the gate plus the scores */
	uint64_t engine_ms[2], gate_ms[2], score_ms[2];
};

/* The report of a run, as text or as one JSON object, on stdout. */
void route_report_text(const struct route_run *r);
void route_report_json(const struct route_run *r);

#endif
