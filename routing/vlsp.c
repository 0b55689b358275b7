/*
 * vlsp.c - the "vlsp" routing engine (VL-layered shortest paths): balanced
 * shortest paths on any topology, made deadlock-free by putting each
 * destination's paths on a virtual lane.  Owns the path choice, the
 * channel dependency layers and the SL of every destination LID; reads a
 * const fabric and writes an lft_set; no I/O, no globals, no SM state.
 *
 * DOC: Algorithm (of the DFSSSP / Nue family).
 * 1. Paths.  For each destination switch t (in switch order), a BFS gives
 *    every switch's hop distance to t; then each LID t delivers, one after
 *    the other, gets its own in-tree of shortest paths: going outwards from
 *    t, each switch picks, among its cables to a switch one hop nearer, the
 *    one whose path to t has the least weight, where a channel's (directed
 *    cable's) weight is the number of (source endpoint, destination LID)
 *    paths routed over it so far; on a tie, the port that carries the
 *    fewest LIDs so far, then the lowest port.  Once a tree is chosen its
 *    paths are added to the weights: a channel gets as many as there are
 *    endpoints behind it in the tree.  So the LIDs behind one switch fan
 *    out over the equal-length ways, and later destinations avoid the
 *    channels the earlier ones loaded.  Paths are always shortest in
 *    switch hops.  A switch's own LID (management, and CA traffic to the
 *    switch) rides the tree of the last CA LID it delivers, or a tree of
 *    its own when it has none, and adds no weight.
 * 2. Layers.  A tree's paths depend on turns (in over one channel, out
 *    over another, at a switch).  Layer l is a set of trees whose turns
 *    form an acyclic channel dependency graph; each tree is placed in the
 *    first layer that stays acyclic with its turns added (an online cycle
 *    check: a topological order of the layer's channels kept up to date as
 *    turns are added, Pearce and Kelly's, searching only the channels
 *    between the two ends of an out-of-order turn; a tree that closes a
 *    cycle is taken out again).  A tree alone is acyclic, so a new layer
 *    always takes it.  For a switch LID without a tree of its own only the
 *    turns CA traffic takes count (the gate's rule).
 * 3. SLs.  Layer l is SL l and rides VL l at every hop (the SM programs
 *    SLtoVL so), so each layer is one VL's dependency graph: no credit
 *    loop on any VL.  The engine uses at most as many layers as the
 *    fabric's ports offer data VLs (the fewest over every cabled port,
 *    VLCap; not known counts as 8); a fabric that needs more fails with an
 *    error naming the LID that fits no layer, so a fallback list moves on
 *    (updn).  With one data VL that means: deadlock-free on VL0, or
 *    refused.
 * Deterministic: the same fabric and LIDs give the same tables and SLs.
 * Cost, for S switches, E cables, L LIDs, V layers and D = the sum over
 * switches of (switch cables)^2: O(S * (S + E)) for the BFSes, O(L * E)
 * for the trees, O(L * S * V) for trying them on layers, plus the cycle
 * searches (bounded by the channels between a turn's two ends).  Memory
 * besides the tables: O(S + E) words, per layer D / 8 bytes of turns and
 * 4 bytes per channel of order, and one SL byte per LID (lft_set.sl, 48 KB
 * at 48K LIDs).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "routing/route.h"
#include "routing/swgraph.h"

#define VLSP_MAX_LAYERS 15 /* data VLs: VL0-14 */
#define VLSP_NONE UINT32_MAX

/* One layer: the turns of its trees and a topological order of the
 * channels under them. */
struct vlsp_layer {
	uint64_t *turns; /* bit turn_base[t] + in * deg(t) + out */
	uint32_t *ord;	 /* channel -> position */
	size_t lids;	 /* destination LIDs on it */
};

struct vlsp {
	const struct fabric *f;
	uint16_t max_lid;
	struct lft_set *out;
	char *err; /* the caller's error buffer */
	size_t errlen;
	struct swgraph g;
	struct swgraph_dests dests;
	/* channels: directed switch cables, channel e = g.adj[e], leaving the
	 * switch whose list holds it */
	size_t n_chan;
	uint32_t *rev;	   /* channel -> the same cable the other way */
	int *chan_sw;	   /* channel -> the switch it leaves */
	size_t *turn_base; /* switch -> its first turn bit */
	size_t turn_bits;
	uint64_t *weight;   /* channel -> paths routed over it so far */
	uint32_t *lid_load; /* [g.port_base[s] + port]: LIDs sent out of it */
	uint32_t *srcs;	    /* switch -> endpoints cabled to it */
	/* the current destination switch and tree */
	int *dist, *queue;
	size_t n_reach;
	uint64_t *cost, *flow;
	uint32_t *up;	/* switch -> channel towards the destination, VLSP_NONE */
	uint8_t *carry; /* switch -> 1 when CA traffic crosses it */
	/* layers */
	unsigned max_layers, n_layers;
	struct vlsp_layer layer[VLSP_MAX_LAYERS];
	/* the turns the current tree added to a layer, to take out again */
	size_t *added;
	size_t n_added;
	/* cycle search scratch, per channel */
	uint32_t *mark, gen;
	uint16_t *cursor;
	uint32_t *stack;
	uint64_t *fwd, *bwd, *pos; /* (ord << 32 | channel) of the region found */
	size_t n_fwd, n_bwd;
};

/* ---- Setup ------------------------------------------------------------- */

static int vlsp_alloc(struct vlsp *v)
{
	size_t s = v->g.n_sw ? v->g.n_sw : 1, c = v->n_chan ? v->n_chan : 1;
	size_t slots = v->g.port_base[v->g.n_sw];

	v->rev = malloc(c * sizeof(*v->rev));
	v->chan_sw = malloc(c * sizeof(*v->chan_sw));
	v->turn_base = calloc(s + 1, sizeof(*v->turn_base));
	v->weight = calloc(c, sizeof(*v->weight));
	v->lid_load = calloc(slots ? slots : 1, sizeof(*v->lid_load));
	v->srcs = calloc(s, sizeof(*v->srcs));
	v->dist = malloc(s * sizeof(*v->dist));
	v->queue = malloc(s * sizeof(*v->queue));
	v->cost = malloc(s * sizeof(*v->cost));
	v->flow = malloc(s * sizeof(*v->flow));
	v->up = malloc(s * sizeof(*v->up));
	v->carry = malloc(s);
	v->added = malloc(s * sizeof(*v->added));
	v->mark = calloc(c, sizeof(*v->mark));
	v->cursor = malloc(c * sizeof(*v->cursor));
	v->stack = malloc(c * sizeof(*v->stack));
	v->fwd = malloc(c * sizeof(*v->fwd));
	v->bwd = malloc(c * sizeof(*v->bwd));
	v->pos = malloc(2 * c * sizeof(*v->pos));
	return v->rev && v->chan_sw && v->turn_base && v->weight && v->lid_load && v->srcs &&
		       v->dist && v->queue && v->cost && v->flow && v->up && v->carry && v->added &&
		       v->mark && v->cursor && v->stack && v->fwd && v->bwd && v->pos
		   ? 0
		   : -ENOMEM;
}

static void vlsp_free(struct vlsp *v)
{
	/* clang-format off */
	void *all[] = {
		v->rev, v->chan_sw, v->turn_base, v->weight, v->lid_load, v->srcs,
		v->dist, v->queue, v->cost, v->flow, v->up, v->carry, v->added,
		v->mark, v->cursor, v->stack, v->fwd, v->bwd, v->pos,
	};
	/* clang-format on */

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		free(all[i]);
	for (unsigned l = 0; l < v->n_layers; l++) {
		free(v->layer[l].turns);
		free(v->layer[l].ord);
	}
	swgraph_fini(&v->g);
	swgraph_dests_fini(&v->dests);
}

static size_t vlsp_degree(const struct vlsp *v, int s)
{
	return v->g.adj_start[s + 1] - v->g.adj_start[s];
}

/* Each channel's switch and reverse (a cable's two ends name each other's
 * port), each switch's turn bits, and the endpoints cabled to it. */
static void vlsp_index(struct vlsp *v)
{
	for (size_t s = 0; s < v->g.n_sw; s++) {
		size_t d = vlsp_degree(v, (int)s);

		v->turn_base[s + 1] = v->turn_base[s] + d * d;
		for (size_t e = v->g.adj_start[s]; e < v->g.adj_start[s + 1]; e++) {
			const struct swgraph_link *l = &v->g.adj[e];

			v->chan_sw[e] = (int)s;
			for (size_t r = v->g.adj_start[l->sw]; r < v->g.adj_start[l->sw + 1]; r++)
				if (v->g.adj[r].port == l->rport)
					v->rev[e] = (uint32_t)r;
		}
	}
	v->turn_bits = v->turn_base[v->g.n_sw];
	for (size_t i = 0; i < v->dests.n; i++)
		if (v->dests.v[i].exit_port && !v->dests.v[i].offset)
			v->srcs[v->dests.v[i].sw]++;
}

/* The fewest data VLs any cabled port offers (both ends of every cable
 * of a switch), at most VLSP_MAX_LAYERS. */
static unsigned vlsp_offered_vls(const struct vlsp *v)
{
	unsigned vls = VLSP_MAX_LAYERS;

	for (size_t s = 0; s < v->g.n_sw; s++) {
		const struct fabric_node *n = &v->f->nodes[v->g.sw_node[s]];

		for (unsigned pn = 1; pn <= n->num_ports; pn++) {
			const struct fabric_port *p = &n->ports[pn], *far;
			unsigned a, b;

			if (p->remote_node == FABRIC_NONE)
				continue;
			far = &v->f->nodes[p->remote_node].ports[p->remote_port];
			a = fabric_port_data_vls(p);
			b = fabric_port_data_vls(far);
			vls = a < vls ? a : vls;
			vls = b < vls ? b : vls;
		}
	}
	return vls;
}

static int vlsp_setup(struct vlsp *v)
{
	int rc = lft_set_alloc(v->out, v->f, v->max_lid);

	if (!rc)
		rc = lft_set_alloc_sl(v->out, v->max_lid);
	if (!rc)
		rc = swgraph_init(&v->g, v->f, 0);
	if (!rc) {
		v->n_chan = v->g.adj_start[v->g.n_sw];
		rc = vlsp_alloc(v);
	}
	if (rc)
		return text_err(v->err, v->errlen, rc, "out of memory routing %zu switches",
				fabric_count_switches(v->f));
	rc = swgraph_collect_dests(&v->g, v->max_lid, 1, &v->dests, v->err, v->errlen);
	if (rc)
		return rc;
	vlsp_index(v);
	v->max_layers = vlsp_offered_vls(v);
	return 0;
}

/* ---- Balanced shortest-path trees -------------------------------------- */

/* Is channel a a better way from s than channel b (VLSP_NONE: none yet)? */
static int vlsp_better(const struct vlsp *v, int s, uint32_t a, uint64_t ca, uint32_t b,
		       uint64_t cb)
{
	const uint32_t *load = &v->lid_load[v->g.port_base[s]];

	if (b == VLSP_NONE || ca != cb)
		return b == VLSP_NONE || ca < cb;
	return load[v->g.adj[a].port] < load[v->g.adj[b].port];
}

static int vlsp_bit(const uint64_t *bits, size_t b)
{
	return (int)(bits[b / 64] >> (b % 64) & 1);
}

static size_t vlsp_turn(const struct vlsp *v, uint32_t in, uint32_t out);

/* Does taking channel e from s keep layer l acyclic for sure: no turn
 * (e leads to the destination switch), a turn l has already, or one that
 * follows l's channel order? */
static int vlsp_safe(const struct vlsp *v, const struct vlsp_layer *l, uint32_t e)
{
	uint32_t out = v->up[v->g.adj[e].sw];

	return out == VLSP_NONE || l->ord[e] < l->ord[out] ||
	       vlsp_bit(l->turns, vlsp_turn(v, e, out));
}

/* up[] and cost[] of every switch reached, nearest first: the lightest
 * way one hop nearer to the destination switch queue[0], among those safe
 * for layer l if there are any. */
static void vlsp_tree(struct vlsp *v, const struct vlsp_layer *l, int prefer_safe)
{
	v->up[v->queue[0]] = VLSP_NONE;
	v->cost[v->queue[0]] = 0;
	for (size_t k = 1; k < v->n_reach; k++) {
		int s = v->queue[k], nearer = v->dist[s] - 1, best_safe = 0;
		uint32_t best = VLSP_NONE;
		uint64_t best_cost = 0;

		for (size_t e = v->g.adj_start[s]; e < v->g.adj_start[s + 1]; e++) {
			int r = v->g.adj[e].sw, safe;
			uint64_t c;

			if (v->dist[r] != nearer)
				continue;
			safe = prefer_safe && vlsp_safe(v, l, (uint32_t)e);
			c = v->cost[r] + v->weight[e];
			if (safe > best_safe ||
			    (safe == best_safe &&
			     vlsp_better(v, s, (uint32_t)e, c, best, best_cost))) {
				best = (uint32_t)e;
				best_cost = c;
				best_safe = safe;
			}
		}
		v->up[s] = best;
		v->cost[s] = best_cost;
	}
}

/* The tree's LFT entries for d (the destination switch sends it out of
 * its exit port); counted: its paths join the channel weights and the
 * LID goes on each port's count. */
static void vlsp_write(struct vlsp *v, const struct swgraph_dest *d, int counted)
{
	struct lft *tabs = v->out->tables;

	tabs[v->queue[0]].port[d->lid] = d->exit_port;
	if (counted)
		v->lid_load[v->g.port_base[v->queue[0]] + d->exit_port]++;
	for (size_t k = 0; k < v->n_reach; k++)
		v->flow[v->queue[k]] = v->srcs[v->queue[k]];
	for (size_t k = v->n_reach; k-- > 1;) {
		int s = v->queue[k];
		const struct swgraph_link *l = &v->g.adj[v->up[s]];

		tabs[s].port[d->lid] = l->port;
		if (!counted)
			continue;
		v->lid_load[v->g.port_base[s] + l->port]++;
		v->weight[v->up[s]] += v->flow[s];
		v->flow[l->sw] += v->flow[s];
	}
}

/* carry[]: the switches CA traffic to the destination crosses (a CA
 * sends even without a LID). */
static void vlsp_mark_carry(struct vlsp *v)
{
	for (size_t k = 0; k < v->n_reach; k++)
		v->carry[v->queue[k]] = 0;
	for (size_t k = 0; k < v->n_reach; k++) {
		int s = v->queue[k];

		if (!v->g.has_ca[s])
			continue;
		while (!v->carry[s]) {
			v->carry[s] = 1;
			if (v->up[s] == VLSP_NONE)
				break;
			s = v->g.adj[v->up[s]].sw;
		}
	}
}

/* ---- Layers: acyclic channel dependency graphs -------------------------- */

/* The turn bit at switch t, in over channel in (into t), out over out. */
static size_t vlsp_turn(const struct vlsp *v, uint32_t in, uint32_t out)
{
	int t = v->chan_sw[out];
	size_t base = v->g.adj_start[t];

	return v->turn_base[t] + (v->rev[in] - base) * vlsp_degree(v, t) + (out - base);
}

/* The next channel after *cur that channel c leads into (forward) or that
 * leads into c (backward) on layer l; VLSP_NONE when done. */
static uint32_t vlsp_next(const struct vlsp *v, const struct vlsp_layer *l, uint32_t c, int forward,
			  uint16_t *cur)
{
	int t = forward ? v->g.adj[c].sw : v->chan_sw[c];
	size_t base = v->g.adj_start[t], deg = vlsp_degree(v, t);
	size_t in = forward ? v->rev[c] - base : 0, out = forward ? 0 : c - base;

	while (*cur < deg) {
		size_t i = (*cur)++;
		size_t bit =
		    forward ? v->turn_base[t] + in * deg + i : v->turn_base[t] + i * deg + out;

		if (vlsp_bit(l->turns, bit))
			return forward ? (uint32_t)(base + i) : v->rev[base + i];
	}
	return VLSP_NONE;
}

/* Depth first from c over channels not yet marked, forward to order below
 * ub or backward to order above lb, collecting (ord, channel) into got.
 * Forward, reaching order ub (the new turn's tail) is a cycle: returns 1. */
static int vlsp_search(struct vlsp *v, const struct vlsp_layer *l, uint32_t c, int forward,
		       uint32_t lb, uint32_t ub, uint64_t *got, size_t *n_got)
{
	size_t top = 0;

	v->mark[c] = v->gen;
	v->cursor[c] = 0;
	v->stack[top++] = c;
	while (top) {
		uint32_t x = v->stack[top - 1], w = vlsp_next(v, l, x, forward, &v->cursor[x]);

		if (w == VLSP_NONE) {
			got[(*n_got)++] = (uint64_t)l->ord[x] << 32 | x;
			top--;
			continue;
		}
		if (forward && l->ord[w] == ub)
			return 1;
		if (v->mark[w] == v->gen || (forward ? l->ord[w] > ub : l->ord[w] <= lb))
			continue;
		v->mark[w] = v->gen;
		v->cursor[w] = 0;
		v->stack[top++] = w;
	}
	return 0;
}

static int vlsp_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Pearce-Kelly: the channels that reach the tail (bwd) go before those
 * the head reaches (fwd), in the positions they held, each group in its
 * old order. */
static void vlsp_reorder(struct vlsp *v, struct vlsp_layer *l)
{
	size_t n = v->n_bwd + v->n_fwd;

	qsort(v->bwd, v->n_bwd, sizeof(*v->bwd), vlsp_u64_cmp);
	qsort(v->fwd, v->n_fwd, sizeof(*v->fwd), vlsp_u64_cmp);
	for (size_t i = 0; i < n; i++)
		v->pos[i] = (i < v->n_bwd ? v->bwd[i] : v->fwd[i - v->n_bwd]) >> 32;
	qsort(v->pos, n, sizeof(*v->pos), vlsp_u64_cmp);
	for (size_t i = 0; i < n; i++) {
		uint64_t x = i < v->n_bwd ? v->bwd[i] : v->fwd[i - v->n_bwd];

		l->ord[(uint32_t)x] = (uint32_t)v->pos[i];
	}
}

/* Add the dependency in -> out to layer l's order; returns 1 (and changes
 * nothing) when it closes a cycle. */
static int vlsp_order(struct vlsp *v, struct vlsp_layer *l, uint32_t in, uint32_t out)
{
	uint32_t lb = l->ord[out], ub = l->ord[in];

	if (lb > ub)
		return 0;
	v->gen++;
	v->n_fwd = v->n_bwd = 0;
	if (vlsp_search(v, l, out, 1, lb, ub, v->fwd, &v->n_fwd))
		return 1;
	vlsp_search(v, l, in, 0, lb, ub, v->bwd, &v->n_bwd);
	vlsp_reorder(v, l);
	return 0;
}

/* Take the current tree's new turns out of layer l again. */
static void vlsp_undo(struct vlsp *v, struct vlsp_layer *l)
{
	for (size_t i = 0; i < v->n_added; i++)
		l->turns[v->added[i] / 64] &= ~(1ULL << (v->added[i] % 64));
	v->n_added = 0;
}

/* Add the current tree's turns (only the carry[] ones when carry_only) to
 * layer l; 0, or 1 with l unchanged when they close a cycle. */
static int vlsp_try_layer(struct vlsp *v, struct vlsp_layer *l, int carry_only)
{
	v->n_added = 0;
	for (size_t k = 1; k < v->n_reach; k++) {
		int s = v->queue[k];
		uint32_t in = v->up[s], out = v->up[v->g.adj[in].sw];
		size_t bit;

		if (out == VLSP_NONE || (carry_only && !v->carry[s]))
			continue;
		bit = vlsp_turn(v, in, out);
		if (vlsp_bit(l->turns, bit))
			continue;
		l->turns[bit / 64] |= 1ULL << (bit % 64);
		v->added[v->n_added++] = bit;
		if (vlsp_order(v, l, in, out)) {
			vlsp_undo(v, l);
			return 1;
		}
	}
	return 0;
}

static int vlsp_new_layer(struct vlsp *v)
{
	struct vlsp_layer *l = &v->layer[v->n_layers];

	l->turns = calloc(v->turn_bits / 64 + 1, sizeof(*l->turns));
	l->ord = malloc((v->n_chan ? v->n_chan : 1) * sizeof(*l->ord));
	if (!l->turns || !l->ord) {
		free(l->turns);
		free(l->ord);
		return -ENOMEM;
	}
	for (size_t c = 0; c < v->n_chan; c++)
		l->ord[c] = (uint32_t)c;
	v->n_layers++;
	return 0;
}

/* The first layer the current tree fits in (a new one if none does and
 * the VLs allow): its number, or a negative errno with err set. */
static int vlsp_place(struct vlsp *v, const struct swgraph_dest *d, int carry_only)
{
	for (unsigned l = 0; l < v->max_layers; l++) {
		if (l == v->n_layers && vlsp_new_layer(v))
			return text_err(v->err, v->errlen, -ENOMEM, "out of memory for VL %u", l);
		vlsp_tree(v, &v->layer[l], 1);
		if (carry_only)
			vlsp_mark_carry(v);
		if (!vlsp_try_layer(v, &v->layer[l], carry_only))
			return (int)l;
	}
	return text_err(v->err, v->errlen, -ENOSPC,
			"the paths to LID %u (behind switch 0x%016" PRIx64
			") close a credit loop on each of the %u VLs the ports offer",
			d->lid, swgraph_guid(&v->g, d->sw), v->max_layers);
}

/* ---- Routing ------------------------------------------------------------ */

static void vlsp_set_sl(struct vlsp *v, const struct swgraph_dest *d, int layer)
{
	v->out->sl[d->lid] = (uint8_t)layer;
	v->layer[layer].lids++;
}

/* The LIDs switch t delivers: each CA LID on a tree of its own, then t's
 * own LIDs on the last of those trees (or one of their own, only CA
 * traffic's turns counted). */
static int vlsp_route_to(struct vlsp *v, int t)
{
	const struct swgraph_dest *d = &v->dests.v[v->dests.start[t]];
	size_t n = v->dests.start[t + 1] - v->dests.start[t];
	int last_layer = -1, layer;

	v->n_reach = swgraph_bfs_from(&v->g, t, v->queue, v->dist, NULL);
	for (int own = 0; own <= 1; own++) {
		for (size_t i = 0; i < n; i++) {
			if ((d[i].exit_port == 0) != own)
				continue;
			if (own && last_layer >= 0) {
				vlsp_write(v, &d[i], 0);
				vlsp_set_sl(v, &d[i], last_layer);
				continue;
			}
			layer = vlsp_place(v, &d[i], own);
			if (layer < 0)
				return layer;
			vlsp_write(v, &d[i], !own);
			vlsp_set_sl(v, &d[i], layer);
			last_layer = layer;
		}
	}
	return 0;
}

static int vlsp_route_all(struct vlsp *v)
{
	int rc = 0;

	for (size_t t = 0; t < v->g.n_sw && !rc; t++)
		if (v->dests.start[t] < v->dests.start[t + 1])
			rc = vlsp_route_to(v, (int)t);
	v->out->n_vls = (uint8_t)(v->n_layers ? v->n_layers : 1);
	return rc;
}

/* "2 VLs of 8 offered (LIDs per VL: 300 20)" */
static void vlsp_note(const struct vlsp *v, struct route_note *note)
{
	size_t len;

	len = (size_t)snprintf(note->text, sizeof(note->text),
			       "%u VL%s of %u offered (LIDs per VL:", v->out->n_vls,
			       v->out->n_vls == 1 ? "" : "s", v->max_layers);
	for (unsigned l = 0; l < v->n_layers && len < sizeof(note->text); l++)
		len += (size_t)snprintf(note->text + len, sizeof(note->text) - len, " %zu",
					v->layer[l].lids);
	if (len < sizeof(note->text))
		snprintf(note->text + len, sizeof(note->text) - len, ")");
}

/* ---- The engine -------------------------------------------------------- */

static int vlsp_compute(const struct fabric *f, const struct route_opts *opts, struct lft_set *out,
			struct route_note *note, char *err, size_t errlen)
{
	struct vlsp v = {
	    .f = f, .max_lid = opts->max_lid, .out = out, .err = err, .errlen = errlen};
	int rc;

	if (note)
		note->text[0] = '\0';
	rc = route_opts_check(opts, err, errlen);
	if (rc)
		return rc;
	rc = vlsp_setup(&v);
	if (!rc)
		rc = vlsp_route_all(&v);
	if (!rc && note)
		vlsp_note(&v, note);
	vlsp_free(&v);
	if (rc)
		lft_set_fini(out);
	return rc;
}

const struct route_engine route_engine_vlsp = {
    .name = "vlsp",
    .summary = "balanced shortest paths, deadlock-free over VL layers (SL per destination)",
    .compute = vlsp_compute,
};
