/*
 * routing/score_priv.h - what score.c and score_balance.c share: the
 * state of one scoring run.  Not for use outside routing/score*.c.
 */
#ifndef NANOSM_ROUTING_SCORE_PRIV_H
#define NANOSM_ROUTING_SCORE_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "routing/score.h"
#include "routing/swgraph.h"

#define SCORE_UNKNOWN (-1)
#define SCORE_BUSY (-2)
#define SCORE_FAIL (-3)
#define SCORE_DELIVERED (-4)
#define SCORE_TO_NONE (-1)		    /* link_to: no cable, or a port that is no endpoint */
#define SCORE_TO_END(e) (-2 - (int32_t)(e)) /* link_to: endpoint e */
#define SCORE_Z95 1.959963984540054
#define SCORE_BATCH 16 /* flows walked side by side */

/* An endpoint: a CA/router port with a LID, cabled to a switch. */
struct score_end {
	int node;
	uint8_t port;
	uint8_t sw_port; /* the switch's port towards it */
	uint16_t lid;	 /* base LID */
	int sw;		 /* switch ordinal it hangs off */
};

/* What one hop needs of a switch, packed (the walk's hot data). */
struct score_sw {
	const uint8_t *tab; /* LFT entries, NULL if the switch has no table */
	uint32_t base;	    /* link id of its port 0 */
	uint16_t top;	    /* LinearFDBTop */
	uint8_t num_ports;
};

struct score {
	const struct fabric *f;
	const struct score_opts *opts;
	struct route_score *res;
	size_t n_ends, n_ids;
	struct swgraph g;	/* keeps self-cables: score_up_group counts them */
	struct score_sw *sw;	/* switch ordinal -> its hop data */
	size_t *port_base;	/* node -> link id of its port 0; id = base + port */
	int *link_remote;	/* link id -> node at the far end, FABRIC_NONE */
	uint8_t *link_rport;	/* link id -> port at the far end */
	int32_t *link_to;	/* link id -> switch ordinal, SCORE_TO_END(e), SCORE_TO_NONE */
	struct score_end *ends; /* leaf order */
	size_t *ends_at;	/* switch ordinal -> first endpoint on it */
	/* scratch, per switch */
	int *hops, *dist, *queue, *stack, *next;
	uint8_t *out; /* port taken towards the current destination */
	uint64_t *flow, *reach_from;
	size_t *bucket;
	/* scratch, per link id */
	uint64_t *efi;
	uint32_t *load, *stamp;
	uint32_t gen;
	uint8_t *self_ok; /* [end]: reachable from its own switch */
	uint32_t *path;	  /* SCORE_BATCH routes of path_cap links each */
	size_t path_cap;  /* n_sw + 2: the longest route without a loop */
	/* virtual lanes: the VL of each endpoint's LID, the EFI per VL */
	const struct lft_set *lfts;
	uint8_t *end_vl;
	uint64_t *efi_vl; /* [vl * n_ids + link id], only with 2 VLs or more */
	/* an SL per path only (score_path.c) */
	size_t *sl_row;	  /* [switch ordinal] its path_sl row (lft_set_sl_row) */
	uint8_t *path_vl; /* [switch ordinal] the VL of its path to one destination */
};

/* score_path.c, with an SL per path (lfts->path_sl): the endpoints of
 * each VL (those some path to them rides it) and n_vls, 0 or -ENOMEM
 * (sl_row and path_vl allocated: freed with the rest); the routed pairs
 * to d per VL; the EFI per VL of the routes to d (queue[0..first): the
 * switches with a route, nearest first, as score_tally_flows left them). */
int score_path_vls_setup(struct score *sc);
void score_path_pairs(struct score *sc, const struct score_end *d);
void score_path_flows(struct score *sc, const struct score_end *d, size_t first);

/* score_balance.c: the LIDs per up-port of each switch's groups of
 * parallel links, into sc->res. */
void score_balance_lids(struct score *sc);

#endif
