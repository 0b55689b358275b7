/*
 * vlsp_nue.h - a destination's tree grown on a layer, turn by turn: the
 * lightest paths whose turns keep the layer acyclic.
 *
 * DOC: The vlsp engine's trees of routing/vlsp.c are built first and put
 * on a layer whole, so one turn that would close a cycle sends the whole
 * tree away.  Here the tree grows out of the destination switch as in
 * Dijkstra's algorithm (after the idea of Nue routing: routing on the
 * channel dependency graph), each switch joining over a channel only if
 * the turn that channel makes into the tree can go on the layer
 * (routing/vlsp_layer.c checks it against the layer's online order and
 * adds it), the candidates ranked by hops, then path weight (the sum of
 * the channels' weights), then the LIDs on the port, then the channel.
 * Strict: only ways one hop nearer the destination (shortest paths);
 * else any, so a switch whose shortest ways are all refused takes a
 * longer one.  Pure: no I/O, no globals.
 */
#ifndef NANOSM_ROUTING_VLSP_NUE_H
#define NANOSM_ROUTING_VLSP_NUE_H

#include <stddef.h>
#include <stdint.h>

#include "routing/swgraph.h"
#include "routing/vlsp_layer.h"

struct vlsp_nue_cand {
	uint64_t cost;
	uint32_t hops, load, chan;
};

/* Scratch for one tree at a time. */
struct vlsp_nue {
	const struct swgraph *g; /* borrowed */
	struct vlsp_nue_cand *heap;
	size_t n_heap;
	uint32_t *hops; /* switch -> hops to the destination in the tree */
	uint8_t *done;	/* switch -> 1 once it joined */
};

/* What a tree is grown from: weight[channel], lid_load[port_base[s] +
 * port] (LIDs sent out of the port so far), dist[s] (BFS hops to the
 * destination: only shortest ways are taken; NULL: any way). */
struct vlsp_nue_in {
	struct vlsp_layers *ls;
	unsigned layer;
	const uint64_t *weight;
	const uint32_t *lid_load;
	const int *dist;
};

int vlsp_nue_init(struct vlsp_nue *h, const struct swgraph *g);
void vlsp_nue_fini(struct vlsp_nue *h);

/* Grow the tree to switch t over the n switches t reaches: up[s] = the
 * channel s sends on (VLSP_LAYER_NONE for t), cost[s] its path weight,
 * order[0..n) the switches as they joined (t first).  Returns 0: every
 * one joined, the tree's turns are on the layer; 1: some switch could
 * not join, the layer is as it was. */
int vlsp_nue_tree(struct vlsp_nue *h, const struct vlsp_nue_in *in, int t, size_t n, uint32_t *up,
		  uint64_t *cost, int *order);

#endif
