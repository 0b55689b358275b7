/*
 * vlsp_polish.h - a polish of finished tables: single LFT entries moved
 * to another shortest next hop when a deterministic estimate of the
 * effective bisection bandwidth says so.
 *
 * DOC: The EBB nanosm-route reports is the mean, over random bisections
 * (every CA paired with another at random, one flow each way), of each
 * flow's 1 / the load of its most loaded link.  Measuring it takes many
 * random bisections and is noisy (+-0.002 over 1000 on a 100-CA torus),
 * too noisy to decide whether one LFT entry should move.  This file
 * estimates it instead, with no randomness: a CA's partner is any other
 * CA with the same chance, so the flows a channel (directed switch
 * cable) carries are a sum of one yes/no per source CA, yes with the
 * share of that CA's destinations routed over it (a Poisson-binomial
 * law, kept up to VLSP_POLISH_LOADS flows); a flow sees, on each channel
 * of its path, itself plus that law without its own two CAs' yes/no,
 * the channels taken as independent; its expected 1 / the most loaded
 * is summed over every ordered pair of CAs.  On the 5x5x2 torus's tables
 * (vlsp, OpenSM's dfsssp, minhop, vlsp on 1-3 VLs) the estimate ranks
 * the six as 2 x 10000 random bisections do, where the sum of squared
 * channel loads and the plain Poisson law do not.
 *
 * The polish then visits every (switch, CA LID) entry in order, tries
 * each other port one hop nearer to the LID (a lighter channel by the
 * all-to-all path count than the one it sends on), and keeps the move
 * when the estimate grows; the paths stay shortest.  It keeps no VL:
 * the caller puts the paths on layers again (routing/vlsp_path.h) and
 * judges the result.  Memory: a count per (channel, switch with CAs), a
 * path per (switch with CAs, CA), each as long as the longest path, a
 * list per channel of the paths over it, and a memo of 16 hops' sums per
 * channel (routing/vlsp_polish_est.c).  Pure: no I/O, no globals;
 * deterministic.
 */
#ifndef NANOSM_ROUTING_VLSP_POLISH_H
#define NANOSM_ROUTING_VLSP_POLISH_H

#include <stdint.h>

#include "routing/fabric.h"

/* Flows per channel the estimate keeps apart (more count as one more). */
#define VLSP_POLISH_LOADS 16

/* The estimate for out's tables on f: the mean over ordered pairs of CA
 * ports of the expected 1 / the most loaded link of the pair's path,
 * into *ebb.  Returns 0, 1 when the tables do not lead every CA to every
 * other over shortest-or-not switch paths (no estimate), -ENOMEM. */
int vlsp_polish_estimate(const struct fabric *f, const struct lft_set *out, double *ebb);

/* The polish's work bound: paths valued (deterministic; the 64-switch,
 * 256-CA meshes value 3.1-3.5 M in their 2 passes; a fabric of 64
 * switches and thousands of CAs would take minutes unbounded). */
#define VLSP_POLISH_WORK (16u << 20)

/* What a polish did: the paths it valued (what its bound counts; a path
 * that takes its twin's value counts too), 1 in bounded when it stopped
 * at its bound with entries left to visit, and the estimate of the
 * tables it left, from the values it kept up move by move (0 when it
 * did not polish: what vlsp_polish_estimate says afresh, bit for bit). */
struct vlsp_polish_stats {
	uint64_t valued;
	int bounded;
	double ebb;
};

/* Up to `passes` passes over the entries of out (tables of f) to CA
 * LIDs, each moved to another shortest next hop when that raises the
 * estimate, until a pass moves none; before each entry it stops once it
 * has valued work_max paths (the moves made so far kept: each route
 * still shortest, each path's layer acyclic).  st (NULL: not wanted)
 * says what it did.  Returns the moves made (0: none, out as it was),
 * -ENOMEM (out then as it was or with some moves made, as above). */
int vlsp_polish_bounded(const struct fabric *f, struct lft_set *out, unsigned passes,
			uint64_t work_max, struct vlsp_polish_stats *st);

/* vlsp_polish_bounded with VLSP_POLISH_WORK. */
int vlsp_polish(const struct fabric *f, struct lft_set *out, unsigned passes);

#endif
