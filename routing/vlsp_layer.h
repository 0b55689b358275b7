/*
 * vlsp_layer.h - channel dependency layers: sets of destination trees
 * whose turns form an acyclic channel dependency graph, one per VL.
 *
 * DOC: The vlsp engine (routing/vlsp.c) routes each destination LID on an
 * in-tree over the switches and puts the tree on a layer (a VL); this
 * file owns the layers.  A channel is a directed cable between switches,
 * numbered as the switch graph's cables (channel e = g->adj[e], leaving
 * the switch whose list holds it).  A tree makes a turn (in over one
 * channel, out over the next) at every switch its paths cross; a layer
 * keeps the turns of its trees and a topological order of its channels,
 * so a layer's dependency graph is acyclic by construction.  Adding a
 * turn that goes against the order searches only the channels between
 * its two ends (Pearce and Kelly's online topological order) and, if
 * they close a cycle, the whole tree is taken out again.  A layer may be
 * "fixed": its order never changes, so only turns that follow it are
 * taken (the engine's escape layer, in an up-star/down-star order).
 * Memory per layer: one bit per possible turn (the sum over switches of
 * their switch cables squared) and 4 bytes per channel; pure, no I/O.
 */
#ifndef NANOSM_ROUTING_VLSP_LAYER_H
#define NANOSM_ROUTING_VLSP_LAYER_H

#include <stddef.h>
#include <stdint.h>

#include "routing/swgraph.h"

#define VLSP_LAYER_MAX 15 /* data VLs: VL0-14 */
#define VLSP_LAYER_NONE UINT32_MAX

/* An in-tree towards one destination switch: order[0] is that switch,
 * and every other switch of order[0..n) comes after the one it sends to;
 * up[s] is the channel switch s sends on (VLSP_LAYER_NONE for order[0]).
 * only (NULL: all): only the turns made by paths from switches with
 * only[s] set count (CA traffic to a switch's own LID). */
struct vlsp_tree {
	const int *order;
	size_t n;
	const uint32_t *up;
	const uint8_t *only;
};

struct vlsp_layer {
	uint64_t *turns; /* bit turn_base[t] + in * deg(t) + out (t's own cable indexes) */
	uint32_t *ord;	 /* channel -> its place in the layer's topological order */
	int fixed;	 /* the order never changes */
};

struct vlsp_layers {
	const struct swgraph *g; /* borrowed: must outlive the layers */
	size_t n_chan;
	uint32_t *rev;	   /* channel -> the same cable the other way */
	int *chan_sw;	   /* channel -> the switch it leaves */
	size_t *turn_base; /* switch -> its first turn bit */
	size_t turn_bits;
	uint32_t *fixed_ord; /* the order layers start in, a fixed one keeps */
	unsigned n;	     /* layers made */
	struct vlsp_layer layer[VLSP_LAYER_MAX];
	/* scratch: the turns the tree being added set, the cycle search */
	size_t *added, n_added, cap_added;
	uint32_t *mark, gen, *stack;
	uint16_t *cursor;
	uint64_t *fwd, *bwd, *pos;
	size_t n_fwd, n_bwd;
	/* a turn whose search would visit this many channels is refused
	 * (default: more than there are, no limit) */
	size_t budget;
	uint64_t work; /* channels the cycle searches visited, all told */
};

/* Index g's channels and turns; no layer yet.  fixed_ord (NULL: channel
 * number order), a permutation of the channels, is copied: the order
 * every layer starts in and a fixed layer keeps.  Returns 0 or -ENOMEM (ls then holds nothing;
 * vlsp_layers_fini is safe on it). */
int vlsp_layers_init(struct vlsp_layers *ls, const struct swgraph *g, const uint32_t *fixed_ord);
void vlsp_layers_fini(struct vlsp_layers *ls);

/* Make layer ls->n, empty, in fixed_ord: fixed, for good; else free to
 * change it.  Returns its number, or -ENOSPC
 * (VLSP_LAYER_MAX made), -ENOMEM. */
int vlsp_layers_add_layer(struct vlsp_layers *ls, int fixed);

/* The turn in -> out (in leads into the switch out leaves) is certainly
 * safe on layer l: l has it, or it follows l's order. */
int vlsp_layers_safe(const struct vlsp_layers *ls, unsigned l, uint32_t in, uint32_t out);

/* Add t's turns to layer l if they keep it acyclic (on a fixed layer: if
 * they follow its order).  Returns 0 (added), 1 (not added, l as it was). */
int vlsp_layers_add(struct vlsp_layers *ls, unsigned l, const struct vlsp_tree *t);

/* Turn by turn, as a tree grows (routing/vlsp_nue.c): begin, then each
 * turn in -> out is added if it keeps layer l acyclic (0) or refused
 * (1, l as it was); undo takes out every turn added since begin (at most
 * one per switch is remembered: a tree's). */
void vlsp_layers_begin(struct vlsp_layers *ls);
int vlsp_layers_turn(struct vlsp_layers *ls, unsigned l, uint32_t in, uint32_t out);
void vlsp_layers_undo(struct vlsp_layers *ls, unsigned l);

/* Many trees at once: put sets t's turns on layer l with no check and
 * leaves l's order stale; sort then makes the order again from l's turns
 * (0), or returns 1 when they close a cycle (the order is then no order:
 * add no more to l).  O(turn bits) per sort. */
void vlsp_layers_put(struct vlsp_layers *ls, unsigned l, const struct vlsp_tree *t);
int vlsp_layers_sort(struct vlsp_layers *ls, unsigned l);

/* The turn in -> out's bit: 0 .. turn_bits - 1. */
size_t vlsp_layers_bit(const struct vlsp_layers *ls, uint32_t in, uint32_t out);

/* Take the turn in -> out off layer l (the order stays one: fewer
 * dependencies).  Only for a turn no tree or path on l makes. */
void vlsp_layers_drop(struct vlsp_layers *ls, unsigned l, uint32_t in, uint32_t out);

/* Does layer l have the turn in -> out? */
int vlsp_layers_has(const struct vlsp_layers *ls, unsigned l, uint32_t in, uint32_t out);

#endif
