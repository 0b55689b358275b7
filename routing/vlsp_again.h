/*
 * vlsp_again.h - routing again against prior tables: a run's paths read
 * back from its LFTs and counted into the channel weights.
 *
 * DOC: The vlsp engine (routing/vlsp.c) balances each destination's tree
 * against the channel weights (paths routed over each channel so far), so
 * in one run a destination sees only the load of those routed before it.
 * Routing again against a run's tables (rip-up and reroute) starts with
 * every destination's prior paths in the weights and takes a
 * destination's own out just before it is routed anew: each then sees the
 * load all the others put on the fabric.  This file reads those paths back
 * from the prior LFTs: from every switch, the way its entry sends the LID,
 * as far as the tables lead over switch cables.  Pure: no I/O, no globals.
 */
#ifndef NANOSM_ROUTING_VLSP_AGAIN_H
#define NANOSM_ROUTING_VLSP_AGAIN_H

#include <stdint.h>

#include "routing/fabric.h"
#include "routing/swgraph.h"

struct vlsp_again {
	const struct swgraph *g;     /* borrowed: must outlive it */
	const struct lft_set *prior; /* borrowed: tables of g's fabric, same LIDs */
	const uint32_t *srcs;	     /* borrowed: switch -> endpoints cabled to it */
	uint32_t *chan_of;	     /* [g->port_base[s] + port] -> channel, UINT32_MAX */
};

/* Index g's channels by (switch, port).  Returns 0 or -ENOMEM (a then
 * holds nothing; vlsp_again_fini is safe on it). */
int vlsp_again_init(struct vlsp_again *a, const struct swgraph *g, const struct lft_set *prior,
		    const uint32_t *srcs);
void vlsp_again_fini(struct vlsp_again *a);

/* Count the prior paths to CA LID lid into weight[channel] (srcs[s] for
 * every switch s a path leaves from, on each channel it crosses) and
 * lid_load[g->port_base[s] + port] (one per switch sending lid out of
 * that port): sign 1 adds them, -1 takes them out again.  A path ends
 * where the tables drop it or leave the switch cables, and after as many
 * hops as there are switches (a loop). */
void vlsp_again_count(const struct vlsp_again *a, uint16_t lid, int sign, uint64_t *weight,
		      uint32_t *lid_load);

/* Follow the tables from switch s to LID lid, delivered by switch d: the
 * channels crossed into buf (room for g->n_sw) unless NULL; returns how
 * many, or -1 when the tables drop lid or leave the switch cables before
 * d, or loop. */
long vlsp_again_walk(const struct vlsp_again *a, size_t s, uint16_t lid, size_t d, uint32_t *buf);

#endif
