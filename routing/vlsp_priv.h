/*
 * vlsp_priv.h - one vlsp run's state, shared by the files of the run:
 * routing/vlsp.c (setup, the destinations' order, the run), vlsp_updown.c
 * (the up-star/down-star ranking and the order every layer starts in) and
 * vlsp_tree.c (a destination's trees and the layer it goes on).  Private
 * to those three: no other file includes it.  Pure: no I/O, no globals.
 */
#ifndef NANOSM_ROUTING_VLSP_PRIV_H
#define NANOSM_ROUTING_VLSP_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "routing/swgraph.h"
#include "routing/vlsp.h"
#include "routing/vlsp_again.h"
#include "routing/vlsp_layer.h"
#include "routing/vlsp_nue.h"

#define VLSP_NONE VLSP_LAYER_NONE
/* A layer that turned this many trees away in a row is full: no more
 * trees are tried on it (on a big irregular fabric most would fail, each
 * after a search through the layer). */
#define VLSP_FULL_AFTER 128
/* A turn whose cycle search would visit this many channels is refused
 * (bounds the work of a tree on a big layer). */
#define VLSP_SEARCH_BUDGET 256
/* A free layer that turned this many detour trees away in a row is no
 * longer offered one (on a big fabric most would fail, each after growing
 * most of a tree). */
#define VLSP_DETOUR_FULL_AFTER 8
/* One data VL: a seeded layer that put more than this many LIDs, and
 * more than 5% of those placed so far, on the BFS tree alone gives up
 * (big fabrics), and the engine routes again with an up-star/down-star
 * layer. */
#define VLSP_SPANNED_MAX 8
/* ... and so does one whose cycle searches and trees have visited this
 * many channels (the 64-switch mesh needs 0.3 M in all; a 2500-switch
 * one would take minutes). */
#define VLSP_SEED_WORK (16ULL << 20)

/* The trees tried for a destination on a layer, in this order. */
enum vlsp_kind {
	VLSP_BALANCED,	 /* shortest paths, the lightest ways (free layers) */
	VLSP_SAFE_FIRST, /* shortest paths, ways certainly safe on the layer first */
	VLSP_LEGAL,	 /* up-star/down-star paths (the fixed layer) */
	VLSP_DETOUR,	 /* the lightest paths grown turn by turn, longer ways allowed */
	VLSP_SPANNING,	 /* along the BFS tree (one VL: the seeded layer) */
};

/* Where a switch stands in a legal (up-star/down-star) tree being built. */
enum vlsp_legal { VLSP_FREE, VLSP_DOWN, VLSP_UP, VLSP_NEW_DOWN, VLSP_NEW_UP };

/* One run (routing/vlsp.c's vlsp_run_way): set up, then every destination
 * routed and placed; freed at the end of the run. */
struct vlsp {
	const struct fabric *f;
	struct vlsp_way way;
	const struct lft_set *prior; /* NULL, or tables to route again against */
	uint16_t max_lid;
	struct lft_set *out;
	char *err; /* the caller's error buffer */
	size_t errlen;
	struct swgraph g;
	struct swgraph_dests dests;
	struct vlsp_layers ls;
	struct vlsp_nue nue;
	unsigned offered;			/* data VLs the ports offer */
	unsigned max_layers;			/* offered, or 1 (cap 1) */
	unsigned cap;				/* 0, or fewer layers than that, all free */
	unsigned layers;			/* layers allowed: max_layers or cap */
	size_t lids[VLSP_LAYER_MAX];		/* destination LIDs per layer */
	unsigned misses[VLSP_LAYER_MAX];	/* trees turned away in a row */
	unsigned detour_misses[VLSP_LAYER_MAX]; /* detour trees turned away in a row */
	/* the up-star/down-star order: hpos[s] is s's place from the top
	 * (each component's root first), a cable goes up towards the lower */
	uint32_t *hpos;
	uint8_t *down;		 /* channel -> 1 when it goes down */
	uint8_t *via;		 /* switch -> its port to its parent in that BFS */
	uint32_t *tree_up;	 /* switch -> its channel to that parent, VLSP_NONE */
	int seeded;		 /* the free layer seeded with the BFS tree (one data
				  * VL: layer 0), -1: none */
	int plain;		 /* one data VL: up-star/down-star, no seeded layer */
	size_t spanned;		 /* LIDs on the BFS tree alone so far */
	size_t placed;		 /* LIDs placed so far */
	uint64_t *weight;	 /* channel -> paths routed over it so far */
	uint32_t *lid_load;	 /* [g.port_base[s] + port]: LIDs sent out of it */
	uint32_t *srcs;		 /* switch -> endpoints cabled to it */
	struct vlsp_again again; /* with prior: its paths read back */
	/* the current destination switch: BFS distances, switches nearest first */
	int *dist, *queue;
	size_t n_reach;
	/* the current tree */
	struct vlsp_tree tree;
	uint32_t *up; /* switch -> channel towards the destination, VLSP_NONE */
	uint64_t *cost, *flow;
	uint8_t *carry; /* switch -> 1 when CA traffic crosses it */
	uint8_t *state; /* enum vlsp_legal */
	int *legal;	/* a legal tree's switches, each after the one it sends to */
};

/* vlsp_updown.c.  hpos, via, tree_up: each component's switches breadth
 * first from its center, each switch's channel to its BFS parent.
 * Returns 0 or -ENOMEM. */
int vlsp_updown_rank(struct vlsp *v);
/* down[] and *ord (malloc'd, the caller frees): the channel order every
 * layer starts with, up cables by their tail from the bottom, then down
 * cables by their tail from the top.  Returns 0 or -ENOMEM. */
int vlsp_updown_order(struct vlsp *v, uint32_t **ord);

/* vlsp_tree.c.  The layer destination d (behind v->queue[0], BFS in
 * v->dist) goes on, its tree left in v->tree/v->up; see the function. */
int vlsp_tree_place(struct vlsp *v, const struct swgraph_dest *d, int carry_only);
/* The tree's LFT entries for d; counted: its paths join the weights. */
void vlsp_tree_write(struct vlsp *v, const struct swgraph_dest *d, int counted);

#endif
