/*
 * vlsp.h - the vlsp engine's two halves: one routing run
 * (routing/vlsp.c) and the choice among runs (routing/vlsp_pick.c).
 *
 * DOC: A run routes every destination one way: its destination switches
 * in one order, a path weighing the sum of its channels' weights or of
 * their squares.  It may route again against prior tables (an earlier
 * run's): every destination's prior paths start in the channel weights
 * and its own are taken out just before it is routed, so each
 * destination sees the load all the others put on the fabric, not only
 * the earlier ones' (rip-up and reroute, one round per run).  The result
 * says how evenly the paths spread: the sum over the channels of their
 * weights squared (the weight of a channel = the (source, destination)
 * paths routed over it).  On a small fabric the engine routes every way
 * (up to 64 switches also 4 seeded shuffles of the switch order, which
 * replace the kept result only when better by the rule below, the slack
 * set by the other ways' best EBB), each again a few rounds against its
 * own tables, measures every result
 * with routing/score.c (EBB over its own bisections, shift all-to-all
 * worst over every shift, VLs) and keeps, among those whose EBB is
 * within a slack (0.3%) of the best, the lowest shift worst, then the
 * fewest VLs; if that uses several VLs, the usual way routed as if the
 * ports offered one (grown trees) replaces it when it is not as good as
 * that; then it routes the kept one again on one VL less, all layers free
 * (detours where a shortest-path tree fits no layer whole, no escape VL),
 * and keeps that while it is as good.  Pure: no I/O, no globals.
 */
#ifndef NANOSM_ROUTING_VLSP_H
#define NANOSM_ROUTING_VLSP_H

#include <stdint.h>

#include "routing/fabric.h"
#include "routing/route.h"

/* The orders the destination switches may go in. */
enum vlsp_order {
	VLSP_BY_USUAL,	   /* switch order; one data VL: the ranking's, center first */
	VLSP_BY_OTHER,	   /* the other of those two */
	VLSP_BY_RANK_BACK, /* the ranking's from the last (the periphery first) */
	VLSP_BY_STRIDE,	   /* switch order in strides of about half the switches */
	VLSP_BY_SHUFFLE,   /* switch order shuffled, from the way's seed */
};

/* A way to route: the order of the destinations, and how a path weighs
 * (squares: each channel as its weight squared, so a path avoids one
 * heavy channel more than two half as heavy). */
struct vlsp_way {
	uint8_t order; /* enum vlsp_order */
	uint8_t squares;
	uint8_t seed; /* VLSP_BY_SHUFFLE: which shuffle (a fixed one per seed) */
};

/* What one run gives. */
struct vlsp_run {
	struct lft_set out;
	struct route_note note;
	uint64_t spread; /* the sum of the channels' weights squared (saturating) */
};

/* Route f one way into r.  cap: 0, or at most that many layers, all free
 * (no escape layer: a destination that fits none fails the run); 1: as
 * if the ports offered one data VL (grown trees on a seeded layer, else
 * up-star/down-star, see routing/vlsp.c).  prior:
 * NULL, or tables of f (an earlier run's, same LIDs) to route again
 * against.
 * Returns 0, or a negative errno with err set (r->out then holds
 * nothing). */
int vlsp_run_way(const struct fabric *f, const struct route_opts *opts, struct vlsp_way way,
		 unsigned cap, const struct lft_set *prior, struct vlsp_run *r, char *err,
		 size_t errlen);

#define VLSP_WAYS 12 /* the ways vlsp_pick.c knows */

/* The engine, told how hard to try: the first n_ways (1..VLSP_WAYS) ways;
 * measured 0: each routed once, the least spread kept (the fewer VLs on
 * a tie); measured 1: each also routed again, every result measured, the
 * best kept (or one VL, see DOC), then fewer VLs while as good;
 * measured 2: also the shuffled ways' extra rounds and the fine pick
 * (routing/vlsp_pick.c: the kept result against the others no worse in
 * shift worst and VLs, by EBB over 2000 bisections); measured 3: then
 * the polish (routing/vlsp_polish.h: single entries moved by an EBB
 * estimate, each path on its own layer, kept when no worse in shift
 * worst and VLs and better by those 2000 bisections).
 * route_engine_vlsp runs (VLSP_WAYS, 3) on a fabric of at most 64
 * switches, (2, 1) on at most 128, else (1, 0). */
int vlsp_route(const struct fabric *f, const struct route_opts *opts, unsigned n_ways, int measured,
	       struct lft_set *out, struct route_note *note, char *err, size_t errlen);

#endif
