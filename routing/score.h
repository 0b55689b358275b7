/*
 * score.h - one comparable report for a fabric and its LFTs.
 *
 * DOC: Scores a set of forwarding tables, whoever computed them (a nanosm
 * engine, OpenSM, a switch dump), so that two routings of the same fabric
 * can be put side by side.  Pure: const fabric and LFTs in, numbers out.
 *
 * Endpoints are the LID-owning CA/router ports cabled to a switch, scored
 * by their base LID, numbered in leaf order: by the switch they hang off
 * (fabric order), then by that switch's port.  A "pair" is two different
 * endpoints; a route is followed from the source's switch through the LFT
 * entries for the destination's base LID until it leaves through the cable
 * to the destination port (routed) or is dropped, lost or loops (not
 * routed).  Every directed link (a cable counts twice) has capacity 1.
 *
 *  - gate: route_check_run's verdict (unreachable, loops, bad ports,
 *    credit loops), for every CA port and switch LID.
 *  - hops / stretch: switch-to-switch links a routed pair crosses, and how
 *    many more than the shortest path in the switch graph.
 *  - efi (edge forwarding index): routed pairs crossing each directed link,
 *    over all links and over switch-to-switch links only.
 *  - LID balance: how many endpoint LIDs (every LID of an LMC range) each
 *    switch sends out of each port of its "up group": the ports towards
 *    switches of higher rank (rank = switch hops from the nearest switch
 *    with endpoints).  A switch with no up port and no lower neighbour
 *    (e.g. every switch of a ring) groups all its switch-facing ports; a
 *    top switch (only lower neighbours) is not grouped.
 *  - shift all-to-all: for shift s, endpoint i sends to (i + s) mod N; the
 *    highest link load, worst and mean over the shifts evaluated.
 *  - virtual lanes: with SLs in the tables, per VL (SL = VL) the
 *    endpoints whose LID is on it, the routed pairs to them, and the EFI
 *    of the busiest switch-to-switch link counting those pairs only.
 *  - effective bisection bandwidth: random halves of the endpoints (a
 *    shuffle by splitmix64 from the seed), paired off at random, one flow
 *    each way per pair; a flow gets 1 / (the most flows sharing a link of
 *    its path), 0 if not routed; the mean per flow, over the bisections,
 *    with a 95% confidence interval (normal approximation).
 *
 * Cost, with N endpoints, S switches, E directed links, L LIDs, h the mean
 * path length, K shifts, B bisections:
 *   trees (hops, stretch, efi)  O(N * S + T * (S + E)), T = switches with endpoints
 *   LID balance                 O(S * L)
 *   shift all-to-all            O(K * N * h)
 *   bisections                  O(B * N * h)
 *   plus route_check_run (O(L * S) and the credit-loop graph).
 * Memory is O(N + S + E) besides the tables (with 2 VLs or more, 8 bytes
 * per port and VL more, for the per-VL EFI).  With N = 45K endpoints and
 * K = 4096 the shift part dominates; pass a smaller K to sample.
 */
#ifndef NANOSM_ROUTING_SCORE_H
#define NANOSM_ROUTING_SCORE_H

#include <stddef.h>
#include <stdint.h>

#include "routing/check.h"
#include "routing/fabric.h"

#define SCORE_SHIFTS_DEFAULT 4096
#define SCORE_BISECTIONS_DEFAULT 1000
#define SCORE_SEED_DEFAULT 1
#define SCORE_VLS 16 /* SL = VL 0..15 */

struct score_opts {
	struct route_check_opts check; /* handed to route_check_run */
	/* shifts to evaluate: every s = 1..N-1 when shifts >= N-1, else
	 * `shifts` of them evenly spaced, s_k = 1 + k * (N-1) / shifts;
	 * 0 skips the shift part */
	size_t shifts;
	size_t bisections; /* 0 skips the bisection part */
	uint64_t seed;	   /* same seed, same bisections */
	int gate_given;	   /* 1: res->check and res->gate_rc already hold
			    * route_check_run's verdict on these tables (the
			    * caller timed it): kept, not run again */
};

/* Load per directed link. cv = population stddev / mean (0 if mean is 0). */
struct score_load {
	size_t links;
	uint64_t max;
	double mean, cv;
};

struct route_score {
	/* the fabric */
	size_t switches;
	size_t endpoints; /* N */
	size_t links;	  /* directed links, all kinds */
	/* the gate */
	int gate_rc; /* route_check_run: 0 pass, -EINVAL fail */
	struct route_check check;
	/* endpoint pairs */
	uint64_t pairs; /* N * (N - 1) */
	uint64_t pairs_routed;
	double hops_mean; /* over routed pairs */
	unsigned hops_max;
	double stretch_mean; /* extra switch hops over the shortest path */
	unsigned stretch_max;
	double stretched_frac; /* routed pairs with stretch > 0 */
	/* edge forwarding index */
	struct score_load efi;	      /* every directed link */
	struct score_load efi_switch; /* switch-to-switch links */
	/* LID balance over up groups */
	size_t lid_groups;	  /* switches with a group */
	uint32_t lids_port_max;	  /* most LIDs out of one grouped port */
	uint32_t lids_port_min;	  /* fewest */
	uint32_t lids_spread_max; /* largest max - min within one group */
	int lids_spread_node;	  /* that switch's node index, FABRIC_NONE */
	/* shift all-to-all */
	size_t shifts;		   /* shifts evaluated */
	size_t shifts_total;	   /* N - 1 */
	uint64_t shift_load_worst; /* highest link load of any shift */
	size_t shift_worst;	   /* the (first) shift with it */
	double shift_load_mean;	   /* mean over the shifts of their highest load */
	double shift_ideal_frac;   /* shifts where no link carries two flows */
	/* effective bisection bandwidth */
	size_t bisections;
	double ebb_mean, ebb_ci_low, ebb_ci_high, ebb_min, ebb_max;
	/* virtual lanes: an endpoint's VL is its base LID's SL (lft_set_sl;
	 * all 0 without SLs), a pair's VL its destination's */
	unsigned n_vls; /* 1 + the highest VL of an endpoint */
	struct score_vl {
		size_t endpoints;	 /* whose LID is on this VL */
		uint64_t pairs_routed;	 /* routed pairs to them */
		uint64_t efi_switch_max; /* most of them crossing one switch-to-switch link */
	} vl[SCORE_VLS];
};

/* Defaults: all checks, SCORE_SHIFTS_DEFAULT, SCORE_BISECTIONS_DEFAULT,
 * SCORE_SEED_DEFAULT. */
void score_opts_default(struct score_opts *o);

/* Fill res.  Returns 0 (whatever the gate says: see res->gate_rc),
 * -ENOMEM.  Deterministic: same fabric, tables and options, same report. */
int score_run(const struct fabric *f, const struct lft_set *lfts, const struct score_opts *opts,
	      struct route_score *res);

#endif
