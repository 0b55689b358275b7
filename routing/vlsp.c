/*
 * vlsp.c - the "vlsp" routing engine (VL-layered shortest paths): balanced
 * shortest paths on any topology, made deadlock-free by putting each
 * destination's paths on a virtual lane.  Owns the path choice, the
 * up-star/down-star escape order and the SL of every destination LID;
 * the layers themselves are routing/vlsp_layer.c's.  Reads a const fabric
 * and writes an lft_set; no I/O, no globals, no SM state.
 *
 * DOC: Algorithm (of the DFSSSP / Nue family).
 * 0. Ways (routing/vlsp.h, vlsp_pick.c).  One run routes one way: the
 *    destination switches in one order (below: the usual one), a path
 *    weighing the sum of its channels' weights or of their squares; the
 *    engine routes a small fabric every way, each again against its own
 *    tables (prior: routing/vlsp_again.c), and keeps the best measured.
 * 1. Paths.  For each destination switch t (in switch order), a BFS gives
 *    every switch's hop distance to t; then each LID t delivers, one after
 *    the other, gets an in-tree of its own: going out from t, each switch
 *    takes, among its cables to a switch one hop nearer, the one whose
 *    path to t is lightest, where a channel's (directed cable's) weight is
 *    the number of (source endpoint, destination LID) paths routed over it
 *    so far; on a tie, the port that carries the fewest LIDs so far, then
 *    the lowest port.  Once placed, a tree's paths join the weights (a
 *    channel gets as many as there are endpoints behind it), so the LIDs
 *    behind one switch fan out over the equal-length ways and later
 *    destinations avoid the loaded channels.  A switch's own LID rides the
 *    tree of the last CA LID it delivers, or one of its own when it has
 *    none (only the turns of CA traffic count then: the gate's rule), and
 *    adds no weight.
 * 2. Layers (routing/vlsp_layer.c).  A layer is a set of trees whose turns
 *    (in over one channel, out over the next, at a switch) form an acyclic
 *    channel dependency graph.  A destination goes on the first layer that
 *    stays acyclic with its tree added, trying on each layer the balanced
 *    tree above, then a shortest-path tree whose switches prefer, among
 *    their shortest ways, those whose turn the layer has or that follows
 *    its channel order (certainly acyclic), balanced among them; a new
 *    layer when none takes it.  A layer that turned VLSP_FULL_AFTER trees
 *    away in a row counts as full (no more tries: on a big irregular
 *    fabric most tries fail, each after a search through the layer).
 *    Every layer starts in the escape order below.
 * 3. Escape.  The last layer the VLs allow is fixed in an up-star/down-star
 *    order: rank the switches breadth first from a center of each
 *    component (the switch nearest to both ends of a double BFS sweep); a
 *    cable goes up towards the switch ranked first; the channel order puts
 *    up cables before down ones, so every legal turn (up-up, up-down,
 *    down-down) follows it and a down-up turn never does.  A destination
 *    that no free layer takes first tries a shortest-path tree whose turns
 *    all follow the order; else a tree with detours grown turn by turn on
 *    the first free layer that takes it (routing/vlsp_nue.c; a layer that
 *    turned VLSP_DETOUR_FULL_AFTER away in a row is no longer offered
 *    one); else an up-star/down-star tree (level by level from the
 *    destination switch: first the switches that can go down into a
 *    down-only switch of the level, then those that go up into any; the
 *    root reaches every switch going down, every switch climbs to the
 *    root, so every switch gets a way), which always fits.  So the engine
 *    never needs more VLs than the ports offer; it fails only on memory.
 * 3b. One data VL.  No VL to spare for an escape: the one layer is free
 *    and seeded with the turns of the BFS tree of the ranking (Nue's
 *    escape paths: any walk along a tree that never turns back is
 *    acyclic).  Each destination takes a grown tree with detours, else an
 *    up-star/down-star tree if it fits, else the BFS tree's own (all its
 *    turns are in the seed).  When more than VLSP_SPANNED_MAX LIDs, and
 *    more than 5% of those placed, took the BFS tree's, the run gives up
 *    (-EAGAIN inside) and routes again "plain": up-star/down-star routing
 *    that keeps shortest paths where they are legal.
 * 4. SLs.  Layer l is SL l (lft_set.sl[lid]) and rides VL l at every hop
 *    (the SM programs SLtoVL so): no credit loop on any VL.  Layers used:
 *    at most the fewest data VLs any cabled port offers (VLCap; not known
 *    counts as 8), and no more than the fabric needs (first fit).
 * Deterministic: the same fabric and LIDs give the same tables and SLs.
 * Cost, for S switches, E cables, L LIDs, V layers: O(S * (S + E)) for the
 * BFSes, O(L * E * V) for the trees, plus the cycle searches (bounded by
 * the channels between a turn's two ends; a full layer is no longer
 * searched).  Memory besides the tables: O(S + E) words, per layer one bit
 * per possible turn (the sum over switches of their switch cables
 * squared) and 4 bytes per channel, and one SL byte per LID (lft_set.sl:
 * 48 KB at 48K LIDs).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "routing/route.h"
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
	unsigned offered;		 /* data VLs the ports offer */
	unsigned max_layers;		 /* offered, or 1 (cap 1) */
	unsigned cap;			 /* 0, or fewer layers than that, all free */
	unsigned layers;		 /* layers allowed: max_layers or cap */
	size_t lids[VLSP_LAYER_MAX];	 /* destination LIDs per layer */
	unsigned misses[VLSP_LAYER_MAX]; /* trees turned away in a row */
	unsigned detour_misses[VLSP_LAYER_MAX]; /* detour trees turned away in a row */
	/* the up-star/down-star order: hpos[s] is s's place from the top
	 * (each component's root first), a cable goes up towards the lower */
	uint32_t *hpos;
	uint8_t *down;	    /* channel -> 1 when it goes down */
	uint8_t *via;	    /* switch -> its port to its parent in that BFS */
	uint32_t *tree_up;  /* switch -> its channel to that parent, VLSP_NONE */
	int seeded;	    /* the free layer seeded with the BFS tree (one data
			     * VL: layer 0), -1: none */
	int plain;	    /* one data VL: up-star/down-star, no seeded layer */
	size_t spanned;	    /* LIDs on the BFS tree alone so far */
	size_t placed;	    /* LIDs placed so far */
	uint64_t *weight;   /* channel -> paths routed over it so far */
	uint32_t *lid_load; /* [g.port_base[s] + port]: LIDs sent out of it */
	uint32_t *srcs;	    /* switch -> endpoints cabled to it */
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

/* ---- Setup ------------------------------------------------------------- */

static int vlsp_alloc(struct vlsp *v)
{
	size_t s = v->g.n_sw ? v->g.n_sw : 1, c = v->g.adj_start[v->g.n_sw];
	size_t slots = v->g.port_base[v->g.n_sw];

	v->hpos = malloc(s * sizeof(*v->hpos));
	v->down = malloc(c ? c : 1);
	v->via = malloc(s);
	v->tree_up = malloc(s * sizeof(*v->tree_up));
	v->weight = calloc(c ? c : 1, sizeof(*v->weight));
	v->lid_load = calloc(slots ? slots : 1, sizeof(*v->lid_load));
	v->srcs = calloc(s, sizeof(*v->srcs));
	v->dist = malloc(s * sizeof(*v->dist));
	v->queue = malloc(s * sizeof(*v->queue));
	v->up = malloc(s * sizeof(*v->up));
	v->cost = malloc(s * sizeof(*v->cost));
	v->flow = malloc(s * sizeof(*v->flow));
	v->carry = malloc(s);
	v->state = malloc(s);
	v->legal = malloc(s * sizeof(*v->legal));
	return v->hpos && v->down && v->via && v->tree_up && v->weight && v->lid_load && v->srcs &&
		       v->dist && v->queue && v->up && v->cost && v->flow && v->carry && v->state &&
		       v->legal
		   ? 0
		   : -ENOMEM;
}

static void vlsp_free(struct vlsp *v)
{
	/* clang-format off */
	void *all[] = {
		v->hpos, v->down, v->via, v->tree_up, v->weight, v->lid_load, v->srcs,
		v->dist, v->queue,
		v->up, v->cost, v->flow, v->carry, v->state, v->legal,
	};
	/* clang-format on */

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		free(all[i]);
	vlsp_layers_fini(&v->ls);
	vlsp_nue_fini(&v->nue);
	vlsp_again_fini(&v->again);
	swgraph_fini(&v->g);
	swgraph_dests_fini(&v->dests);
}

/* The fewest data VLs any cabled port offers (both ends of every cable
 * of a switch), at most VLSP_LAYER_MAX. */
static unsigned vlsp_offered_vls(const struct vlsp *v)
{
	unsigned vls = VLSP_LAYER_MAX;

	for (size_t s = 0; s < v->g.n_sw; s++) {
		const struct fabric_node *n = &v->f->nodes[v->g.sw_node[s]];

		for (unsigned pn = 1; pn <= n->num_ports; pn++) {
			const struct fabric_port *p = &n->ports[pn];
			unsigned a, b;

			if (p->remote_node == FABRIC_NONE)
				continue;
			a = fabric_port_data_vls(p);
			b = fabric_port_data_vls(
			    &v->f->nodes[p->remote_node].ports[p->remote_port]);
			vls = a < vls ? a : vls;
			vls = b < vls ? b : vls;
		}
	}
	return vls;
}

/* ---- The up-star/down-star order ----------------------------------------- */

/* A center of component c: from its first switch a, the farthest b, from
 * b the farthest e; the switch nearest to both b and e (the least of the
 * larger distance, then of the sum, then the lowest ordinal). */
static int vlsp_center(struct vlsp *v, size_t c, int *db)
{
	const int *sw = &v->g.comp_sw[v->g.comp_start[c]];
	size_t n = v->g.comp_start[c + 1] - v->g.comp_start[c];
	int b, e, best = sw[0], best_far = 0, best_sum = 0;

	swgraph_bfs_from(&v->g, sw[0], v->queue, v->dist, NULL);
	b = v->queue[n - 1];
	swgraph_bfs_from(&v->g, b, v->queue, v->dist, NULL);
	e = v->queue[n - 1];
	memcpy(db, v->dist, v->g.n_sw * sizeof(*db));
	swgraph_bfs_from(&v->g, e, v->queue, v->dist, NULL);
	for (size_t i = 0; i < n; i++) {
		int s = sw[i], far = db[s] > v->dist[s] ? db[s] : v->dist[s];
		int sum = db[s] + v->dist[s];

		if (i == 0 || far < best_far || (far == best_far && sum < best_sum) ||
		    (far == best_far && sum == best_sum && s < best)) {
			best = s;
			best_far = far;
			best_sum = sum;
		}
	}
	return best;
}

/* hpos: each component's switches breadth first from its center;
 * tree_up: each switch's channel to its parent in that BFS tree. */
static int vlsp_rank(struct vlsp *v)
{
	int *db = malloc((v->g.n_sw ? v->g.n_sw : 1) * sizeof(*db));
	uint32_t at = 0;

	if (!db)
		return -ENOMEM;
	for (size_t c = 0; c < v->g.n_comp; c++) {
		size_t n =
		    swgraph_bfs_from(&v->g, vlsp_center(v, c, db), v->queue, v->dist, v->via);

		for (size_t i = 0; i < n; i++) {
			int sw = v->queue[i];

			v->hpos[sw] = at++;
			v->tree_up[sw] = VLSP_NONE;
			for (size_t e = v->g.adj_start[sw]; e < v->g.adj_start[sw + 1] && i; e++)
				if (v->g.adj[e].port == v->via[sw])
					v->tree_up[sw] = (uint32_t)e;
		}
	}
	free(db);
	return 0;
}

/* Is channel e (s -> r) a down cable: r below s? */
static int vlsp_down(const struct vlsp *v, int s, size_t e)
{
	return v->hpos[v->g.adj[e].sw] > v->hpos[s];
}

static int vlsp_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The order every layer starts with (and down[]): up cables by their
 * tail from the bottom, then down cables by their tail from the top.  Every legal turn
 * (up-up, up-down, down-down) follows it, a down-up turn never does. */
static int vlsp_first_order(struct vlsp *v, uint32_t **ord)
{
	size_t n = v->g.adj_start[v->g.n_sw], sw = v->g.n_sw;
	uint64_t *key = malloc((n ? n : 1) * sizeof(*key));

	*ord = malloc((n ? n : 1) * sizeof(**ord));
	if (!key || !*ord) {
		free(key);
		return -ENOMEM;
	}
	for (size_t s = 0; s < sw; s++)
		for (size_t e = v->g.adj_start[s]; e < v->g.adj_start[s + 1]; e++) {
			uint64_t k;

			v->down[e] = (uint8_t)vlsp_down(v, (int)s, e);
			k = v->down[e] ? sw + v->hpos[s] : sw - 1 - v->hpos[s];
			key[e] = k << 32 | e;
		}
	qsort(key, n, sizeof(*key), vlsp_u64_cmp);
	for (size_t i = 0; i < n; i++)
		(*ord)[(uint32_t)key[i]] = (uint32_t)i;
	free(key);
	return 0;
}

/* ---- Setup, continued --------------------------------------------------- */

static void vlsp_count_sources(struct vlsp *v)
{
	for (size_t i = 0; i < v->dests.n; i++)
		if (v->dests.v[i].exit_port && !v->dests.v[i].offset)
			v->srcs[v->dests.v[i].sw]++;
}

/* Routing again (vlsp_again.h): every CA LID's prior paths start in the
 * weights. */
static int vlsp_prior_start(struct vlsp *v)
{
	int rc = vlsp_again_init(&v->again, &v->g, v->prior, v->srcs);

	for (size_t i = 0; !rc && i < v->dests.n; i++)
		if (v->dests.v[i].exit_port)
			vlsp_again_count(&v->again, v->dests.v[i].lid, 1, v->weight, v->lid_load);
	return rc ? text_err(v->err, v->errlen, rc, "out of memory routing again") : 0;
}

static int vlsp_setup(struct vlsp *v)
{
	uint32_t *ord = NULL;
	int rc = lft_set_alloc(v->out, v->f, v->max_lid);

	if (!rc)
		rc = lft_set_alloc_sl(v->out, v->max_lid);
	if (!rc)
		rc = swgraph_init(&v->g, v->f, 0);
	if (!rc)
		rc = vlsp_alloc(v);
	if (!rc)
		rc = vlsp_rank(v);
	if (!rc)
		rc = vlsp_first_order(v, &ord);
	if (!rc)
		rc = vlsp_layers_init(&v->ls, &v->g, ord);
	if (!rc)
		rc = vlsp_nue_init(&v->nue, &v->g);
	if (!rc && v->ls.budget > VLSP_SEARCH_BUDGET)
		v->ls.budget = VLSP_SEARCH_BUDGET;
	free(ord);
	if (rc)
		return text_err(v->err, v->errlen, rc, "out of memory routing %zu switches",
				fabric_count_switches(v->f));
	rc = swgraph_collect_dests(&v->g, v->max_lid, 1, &v->dests, v->err, v->errlen);
	if (rc)
		return rc;
	vlsp_count_sources(v);
	if (v->prior && vlsp_prior_start(v))
		return -ENOMEM;
	v->offered = vlsp_offered_vls(v);
	v->max_layers = v->cap == 1 ? 1 : v->offered; /* cap 1: as if the ports offered one */
	v->layers = v->cap && v->cap < v->max_layers ? v->cap : v->max_layers;
	v->seeded = v->max_layers == 1 && !v->plain ? 0 : -1; /* one VL: the seed escapes */
	return 0;
}

/* ---- Trees -------------------------------------------------------------- */

/* What channel e adds to a path's cost: its weight, or (way.squares) its
 * weight squared (capped: no overflow). */
static uint64_t vlsp_cost(const struct vlsp *v, uint64_t below, uint32_t e)
{
	uint64_t w = v->weight[e], c;

	if (v->way.squares) {
		w = w < (1ULL << 31) ? w : (1ULL << 31);
		w *= w;
	}
	c = below + w;
	return c < below ? UINT64_MAX : c;
}

/* Is channel a (cost ca) a better way from s than channel b (VLSP_NONE:
 * none yet)?  Lighter, then fewer LIDs on its port, then the first. */
static int vlsp_better(const struct vlsp *v, int s, uint32_t a, uint64_t ca, uint32_t b,
		       uint64_t cb)
{
	const uint32_t *load = &v->lid_load[v->g.port_base[s]];

	if (b == VLSP_NONE || ca != cb)
		return b == VLSP_NONE || ca < cb;
	return load[v->g.adj[a].port] < load[v->g.adj[b].port];
}

/* Is taking channel e certainly safe on layer l: no turn (e leads to the
 * destination switch), or a turn that l has or that follows its order? */
static int vlsp_safe(const struct vlsp *v, unsigned l, uint32_t e)
{
	uint32_t out = v->up[v->g.adj[e].sw];

	return out == VLSP_NONE || vlsp_layers_safe(&v->ls, l, e, out);
}

/* A shortest-path tree to the destination switch queue[0]: going out
 * from it, each switch takes the lightest way one hop nearer, among those
 * certainly safe on layer l if it has any.  Returns 0, or 1 when a switch
 * has no safe way and l is fixed (the tree cannot go on it; left
 * unfinished). */
static int vlsp_shortest_tree(struct vlsp *v, unsigned l, int prefer_safe)
{
	int fixed = v->ls.layer[l].fixed;

	v->up[v->queue[0]] = VLSP_NONE;
	v->cost[v->queue[0]] = 0;
	for (size_t k = 1; k < v->n_reach; k++) {
		int s = v->queue[k], nearer = v->dist[s] - 1, best_safe = 0;
		uint32_t best = VLSP_NONE;
		uint64_t best_cost = 0;

		for (size_t e = v->g.adj_start[s]; e < v->g.adj_start[s + 1]; e++) {
			int r = v->g.adj[e].sw, safe;
			uint64_t c = vlsp_cost(v, v->cost[r], (uint32_t)e);

			if (v->dist[r] != nearer)
				continue;
			safe = prefer_safe && vlsp_safe(v, l, (uint32_t)e);
			if (safe > best_safe ||
			    (safe == best_safe &&
			     vlsp_better(v, s, (uint32_t)e, c, best, best_cost))) {
				best = (uint32_t)e;
				best_cost = c;
				best_safe = safe;
			}
		}
		if (fixed && prefer_safe && !best_safe)
			return 1;
		v->up[s] = best;
		v->cost[s] = best_cost;
	}
	v->tree = (struct vlsp_tree){v->queue, v->n_reach, v->up, NULL};
	return 0;
}

/* Offer s the way over channel e (s -> p) in a legal tree's level pass:
 * a new switch joins the next level, one already offered keeps the
 * better way. */
static void vlsp_offer(struct vlsp *v, int s, uint32_t e, int p, uint8_t fresh, size_t *n)
{
	uint64_t c = v->cost[p] + v->weight[e];

	if (v->state[s] == VLSP_FREE) {
		v->state[s] = fresh;
		v->legal[(*n)++] = s;
	} else if (v->state[s] != fresh || !vlsp_better(v, s, e, c, v->up[s], v->cost[s])) {
		return;
	}
	v->up[s] = e;
	v->cost[s] = c;
}

/* One pass over the level legal[head..end): down (switches above sending
 * down into a down-only switch of it) or up (switches below sending up
 * into any); those offered a way are settled at the end. */
static void vlsp_level_pass(struct vlsp *v, size_t head, size_t end, int down, size_t *n)
{
	uint8_t fresh = down ? VLSP_NEW_DOWN : VLSP_NEW_UP;
	size_t first = *n;

	for (size_t i = head; i < end; i++) {
		int p = v->legal[i];

		if (down && v->state[p] != VLSP_DOWN)
			continue;
		for (size_t e = v->g.adj_start[p]; e < v->g.adj_start[p + 1]; e++)
			if (v->down[e] != down) /* the way back, s -> p, goes the other way */
				vlsp_offer(v, v->g.adj[e].sw, v->ls.rev[e], p, fresh, n);
	}
	for (size_t i = first; i < *n; i++)
		v->state[v->legal[i]] = down ? VLSP_DOWN : VLSP_UP;
}

/* Start a tree in legal[] from queue[0] alone: every other switch free. */
static void vlsp_tree_start(struct vlsp *v)
{
	for (size_t k = 0; k < v->n_reach; k++)
		v->state[v->queue[k]] = VLSP_FREE;
	v->legal[0] = v->queue[0];
	v->state[v->queue[0]] = VLSP_DOWN;
	v->up[v->queue[0]] = VLSP_NONE;
	v->cost[v->queue[0]] = 0;
}

/* An up-star/down-star tree to queue[0] (a path never goes down, then up):
 * level by level from it, first the switches that can go down into a
 * down-only switch of the level, then those that go up into any.  Every
 * switch of the component gets a way: the root (the top) goes down to
 * any switch, every other switch up towards the root. */
static void vlsp_legal_tree(struct vlsp *v)
{
	size_t head = 0, n = 1;

	vlsp_tree_start(v);
	while (head < n) {
		size_t end = n;

		vlsp_level_pass(v, head, end, 1, &n);
		vlsp_level_pass(v, head, end, 0, &n);
		head = end;
	}
	v->tree = (struct vlsp_tree){v->legal, n, v->up, NULL};
}

/* Is channel e, leaving switch s, a cable of the BFS tree? */
static int vlsp_tree_chan(const struct vlsp *v, int s, uint32_t e)
{
	return v->tree_up[s] == e || v->tree_up[v->g.adj[e].sw] == v->ls.rev[e];
}

/* Seed layer l with every turn along the BFS tree that does not go back
 * where it came from: any path in the tree, to any destination.  Acyclic
 * (a walk in a tree that never turns back ends), so it always fits. */
static int vlsp_seed(struct vlsp *v, unsigned l)
{
	size_t budget = v->ls.budget;
	int rc = 0;

	v->ls.budget = v->ls.n_chan + 1; /* no limit: every turn must go on */
	for (size_t r = 0; r < v->g.n_sw; r++)
		for (size_t x = v->g.adj_start[r]; x < v->g.adj_start[r + 1]; x++)
			for (size_t y = v->g.adj_start[r]; y < v->g.adj_start[r + 1]; y++)
				if (!rc && x != y && vlsp_tree_chan(v, (int)r, (uint32_t)x) &&
				    vlsp_tree_chan(v, (int)r, (uint32_t)y) &&
				    vlsp_layers_turn(&v->ls, l, v->ls.rev[x], (uint32_t)y))
					rc = -EDEADLK;
	v->ls.budget = budget;
	return rc;
}

/* The tree to queue[0] along the BFS tree's cables alone: its turns are
 * all in the seed. */
static void vlsp_spanning_tree(struct vlsp *v)
{
	size_t head = 0, n = 1;

	vlsp_tree_start(v);
	while (head < n) {
		int p = v->legal[head++];

		for (size_t e = v->g.adj_start[p]; e < v->g.adj_start[p + 1]; e++) {
			int s = v->g.adj[e].sw;

			if (v->state[s] != VLSP_FREE || !vlsp_tree_chan(v, p, (uint32_t)e))
				continue;
			v->state[s] = VLSP_DOWN;
			v->up[s] = v->ls.rev[e];
			v->legal[n++] = s;
		}
	}
	v->tree = (struct vlsp_tree){v->legal, n, v->up, NULL};
}

/* carry[]: the switches CA traffic to the destination crosses (a CA
 * sends even without a LID); the tree then counts only their turns. */
static void vlsp_mark_carry(struct vlsp *v)
{
	for (size_t k = 0; k < v->tree.n; k++)
		v->carry[v->tree.order[k]] = 0;
	for (size_t k = 0; k < v->tree.n; k++) {
		int s = v->tree.order[k];

		if (!v->g.has_ca[s])
			continue;
		while (!v->carry[s]) {
			v->carry[s] = 1;
			if (v->up[s] == VLSP_NONE)
				break;
			s = v->g.adj[v->up[s]].sw;
		}
	}
	v->tree.only = v->carry;
}

/* The tree's LFT entries for d (the destination switch sends it out of
 * its exit port); counted: its paths join the channel weights and the
 * LID goes on each port's count. */
static void vlsp_write(struct vlsp *v, const struct swgraph_dest *d, int counted)
{
	struct lft *tabs = v->out->tables;
	const int *order = v->tree.order;

	tabs[order[0]].port[d->lid] = d->exit_port;
	if (counted)
		v->lid_load[v->g.port_base[order[0]] + d->exit_port]++;
	for (size_t k = 0; k < v->tree.n; k++)
		v->flow[order[k]] = v->srcs[order[k]];
	for (size_t k = v->tree.n; k-- > 1;) {
		int s = order[k];
		const struct swgraph_link *l = &v->g.adj[v->up[s]];

		tabs[s].port[d->lid] = l->port;
		if (!counted)
			continue;
		v->lid_load[v->g.port_base[s] + l->port]++;
		v->weight[v->up[s]] += v->flow[s];
		v->flow[l->sw] += v->flow[s];
	}
}

/* ---- Placing trees on layers -------------------------------------------- */

/* Build a tree of that kind for layer l and try to add it: 0 added, 1
 * not. */
static int vlsp_try(struct vlsp *v, unsigned l, enum vlsp_kind kind, int carry_only)
{
	if (kind == VLSP_DETOUR) {
		struct vlsp_nue_in in = {&v->ls, l, v->weight, v->lid_load, NULL};

		if (vlsp_nue_tree(&v->nue, &in, v->queue[0], v->n_reach, v->up, v->cost, v->legal))
			return 1;
		v->tree = (struct vlsp_tree){v->legal, v->n_reach, v->up, NULL};
		return 0;
	}
	if (kind == VLSP_LEGAL)
		vlsp_legal_tree(v);
	else if (kind == VLSP_SPANNING)
		vlsp_spanning_tree(v);
	else if (vlsp_shortest_tree(v, l, kind == VLSP_SAFE_FIRST))
		return 1;
	if (carry_only)
		vlsp_mark_carry(v);
	return vlsp_layers_add(&v->ls, l, &v->tree);
}

/* The first layer a tree for d fits in: on each free layer the VLs
 * allow, the balanced shortest-path tree, then the one with the safe
 * ways first; a new layer when none does.  When every free layer
 * refused: a shortest tree that follows the escape layer's
 * up-star/down-star order; else a tree with detours grown turn by turn,
 * on the first free layer that takes it (a layer that turned
 * VLSP_DETOUR_FULL_AFTER away in a row is no longer tried); else a legal
 * tree on the escape layer.  One data VL (v->seeded): the one layer is
 * seeded; a grown tree, else a legal tree if it fits, else the BFS
 * tree's own.  Returns the layer, -EAGAIN when the seeded layer gives up
 * (err not set), or another negative errno with err set. */
static int vlsp_place(struct vlsp *v, const struct swgraph_dest *d, int carry_only)
{
	int esc;

	if (v->seeded >= 0 && v->ls.work > VLSP_SEED_WORK)
		return -EAGAIN; /* too big a fabric for it: give up */
	v->placed++;
	for (unsigned l = 0; l < v->layers; l++) {
		int made = l >= v->ls.n;
		int rc =
		    !made ? 0
			  : vlsp_layers_add_layer(&v->ls, l + 1 == v->max_layers && v->seeded < 0);

		if (rc >= 0 && made && (int)l == v->seeded && vlsp_seed(v, l))
			return text_err(v->err, v->errlen, -EDEADLK,
					"the BFS tree's turns do not fit on VL %u", l);
		if (rc < 0)
			return text_err(v->err, v->errlen, rc, "out of memory for VL %u", l);
		if (v->ls.layer[l].fixed || v->misses[l] >= VLSP_FULL_AFTER || (int)l == v->seeded)
			continue;
		if (!vlsp_try(v, l, VLSP_BALANCED, carry_only) ||
		    !vlsp_try(v, l, VLSP_SAFE_FIRST, carry_only)) {
			v->misses[l] = 0;
			return (int)l;
		}
		v->misses[l]++;
	}
	esc = v->ls.n && v->ls.layer[v->ls.n - 1].fixed ? (int)v->ls.n - 1 : -1;
	if (esc >= 0 && !vlsp_try(v, (unsigned)esc, VLSP_SAFE_FIRST, carry_only))
		return esc;
	for (unsigned l = 0; l < v->ls.n; l++) {
		if (v->ls.layer[l].fixed ||
		    (v->detour_misses[l] >= VLSP_DETOUR_FULL_AFTER && (int)l != v->seeded))
			continue;
		if (!vlsp_try(v, l, VLSP_DETOUR, 0)) {
			v->detour_misses[l] = 0;
			return (int)l;
		}
		v->detour_misses[l]++;
	}
	if (esc >= 0 && !vlsp_try(v, (unsigned)esc, VLSP_LEGAL, carry_only))
		return esc;
	if (v->seeded >= 0 && !vlsp_try(v, (unsigned)v->seeded, VLSP_LEGAL, carry_only))
		return v->seeded;
	if (v->seeded >= 0 && ++v->spanned > VLSP_SPANNED_MAX && v->spanned * 20 > v->placed)
		return -EAGAIN; /* more than 5% on the BFS tree alone: give up */
	if (v->seeded >= 0 && !vlsp_try(v, (unsigned)v->seeded, VLSP_SPANNING, carry_only))
		return v->seeded;
	return text_err(v->err, v->errlen, -EDEADLK,
			"the paths to LID %u (behind switch 0x%016" PRIx64
			") fit on none of the %u VLs the ports offer",
			d->lid, swgraph_guid(&v->g, d->sw), v->max_layers);
}

/* ---- Routing ------------------------------------------------------------ */

static void vlsp_set_sl(struct vlsp *v, const struct swgraph_dest *d, int layer)
{
	v->out->sl[d->lid] = (uint8_t)layer;
	v->lids[layer]++;
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
			if (v->prior && !own)
				vlsp_again_count(&v->again, d[i].lid, -1, v->weight, v->lid_load);
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

/* A step about half of n long that visits all of 0..n-1 (shares no
 * factor with n). */
static size_t vlsp_stride(size_t n)
{
	size_t st = n / 2 + 1;

	for (;; st++) {
		size_t a = n, b = st;

		while (b) {
			size_t r = a % b;

			a = b;
			b = r;
		}
		if (a == 1)
			return st;
	}
}

/* by[i]: the i-th destination switch in the way's order.  The usual
 * order is switch order; on a seeded layer (one VL) the ranking's, the
 * center first (measured: 2.8% more EBB on average over ten meshes and
 * tori, on one VL only). */
static void vlsp_order(const struct vlsp *v, int *by)
{
	size_t n = v->g.n_sw, st = n > 1 ? vlsp_stride(n) : 1;
	int rank = (v->way.order == VLSP_BY_USUAL) == (v->seeded >= 0);

	for (size_t t = 0; t < n; t++) {
		if (v->way.order == VLSP_BY_STRIDE)
			by[t] = (int)(t * st % n);
		else if (v->way.order == VLSP_BY_RANK_BACK)
			by[n - 1 - v->hpos[t]] = (int)t;
		else
			by[rank ? v->hpos[t] : t] = (int)t;
	}
}

/* Every destination switch, in the way's order. */
static int vlsp_route_all(struct vlsp *v)
{
	int *by = malloc((v->g.n_sw ? v->g.n_sw : 1) * sizeof(*by));
	int rc = 0;

	if (!by)
		return text_err(v->err, v->errlen, -ENOMEM, "out of memory routing %zu switches",
				v->g.n_sw);
	vlsp_order(v, by);
	for (size_t i = 0; i < v->g.n_sw && !rc; i++) {
		int t = by[i];

		if (v->dests.start[t] < v->dests.start[t + 1])
			rc = vlsp_route_to(v, t);
	}
	free(by);
	v->out->n_vls = (uint8_t)(v->ls.n ? v->ls.n : 1);
	return rc;
}

/* "2 VLs of 8 offered (LIDs per VL: 300 20)"; on one VL, which layer:
 * "1 VL of 1 offered (LIDs per VL: 320; grown trees)" */
static void vlsp_note(const struct vlsp *v, struct route_note *note)
{
	size_t len;

	len = (size_t)snprintf(note->text, sizeof(note->text),
			       "%u VL%s of %u offered (LIDs per VL:", v->out->n_vls,
			       v->out->n_vls == 1 ? "" : "s", v->offered);
	for (unsigned l = 0; l < v->ls.n && len < sizeof(note->text); l++)
		len += (size_t)snprintf(note->text + len, sizeof(note->text) - len, " %zu",
					v->lids[l]);
	if (len < sizeof(note->text))
		snprintf(note->text + len, sizeof(note->text) - len, "%s)",
			 v->max_layers > 1 ? ""
			 : v->plain	   ? "; up*/down*: the grown trees gave up"
					   : "; grown trees");
}

/* How unevenly the paths spread over the channels: the sum of the
 * channels' weights squared (saturating).  The lower, the better the
 * balance (and the fewer the hops). */
static uint64_t vlsp_spread(const struct vlsp *v)
{
	uint64_t sum = 0;

	for (size_t e = 0; e < v->g.adj_start[v->g.n_sw]; e++) {
		uint64_t w = v->weight[e] < (1ULL << 31) ? v->weight[e] : (1ULL << 31), x;

		x = sum + w * w;
		sum = x < sum ? UINT64_MAX : x;
	}
	return sum;
}

int vlsp_run_way(const struct fabric *f, const struct route_opts *opts, struct vlsp_way way,
		 unsigned cap, const struct lft_set *prior, struct vlsp_run *r, char *err,
		 size_t errlen)
{
	struct vlsp v;
	int rc;

	lft_set_init(&r->out);
	for (int plain = 0; plain <= 1; plain++) {
		v = (struct vlsp){.f = f,
				  .way = way,
				  .prior = prior,
				  .cap = cap,
				  .max_lid = opts->max_lid,
				  .out = &r->out,
				  .err = err,
				  .errlen = errlen,
				  .plain = plain};
		rc = vlsp_setup(&v);
		if (!rc)
			rc = vlsp_route_all(&v);
		if (rc != -EAGAIN || plain)
			break;
		vlsp_free(&v); /* the seeded layer gave up: again, up-star/down-star */
		lft_set_fini(&r->out);
	}
	if (!rc) {
		vlsp_note(&v, &r->note);
		r->spread = vlsp_spread(&v);
	}
	vlsp_free(&v);
	if (rc)
		lft_set_fini(&r->out);
	return rc;
}
