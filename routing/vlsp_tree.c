/*
 * vlsp_tree.c - a vlsp run's trees to one destination (balanced shortest
 * paths, safe ways first, up-star/down-star, grown with detours by
 * vlsp_nue.c, along the BFS tree) and the first layer one of them fits
 * on (routing/vlsp_priv.h); writes the chosen tree's LFT entries and
 * weights.  The layers' cycle checks are vlsp_layer.c's.  No I/O, no
 * globals.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "mad/text.h"
#include "routing/vlsp_priv.h"

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
void vlsp_tree_write(struct vlsp *v, const struct swgraph_dest *d, int counted)
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
int vlsp_tree_place(struct vlsp *v, const struct swgraph_dest *d, int carry_only)
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
