/*
 * vlsp.c - the "vlsp" routing engine (VL-layered shortest paths): balanced
 * shortest paths on any topology, made deadlock-free by putting each
 * destination's paths on a virtual lane.  Owns one run: its setup, the
 * order of the destinations and the SL of every destination LID; the
 * trees and the layer each goes on are routing/vlsp_tree.c's, the
 * up-star/down-star escape order vlsp_updown.c's (the run's state in
 * vlsp_priv.h), the layers themselves vlsp_layer.c's.  Reads a const
 * fabric and writes an lft_set; no I/O, no globals, no SM state.
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
 *    counts as 8), and no more than the fabric needs (first fit).  The
 *    engine may then give the kept tables an SL per path instead, where
 *    that takes fewer VLs (routing/vlsp_path.c, from vlsp_pick.c).
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
#include "routing/vlsp_priv.h"

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
		rc = vlsp_updown_rank(v);
	if (!rc)
		rc = vlsp_updown_order(v, &ord);
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
				vlsp_tree_write(v, &d[i], 0);
				vlsp_set_sl(v, &d[i], last_layer);
				continue;
			}
			if (v->prior && !own)
				vlsp_again_count(&v->again, d[i].lid, -1, v->weight, v->lid_load);
			layer = vlsp_tree_place(v, &d[i], own);
			if (layer < 0)
				return layer;
			vlsp_tree_write(v, &d[i], !own);
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

/* by[0..n): switch order shuffled (Fisher-Yates), the same for the
 * same seed and n: an xorshift generator started from the seed. */
static void vlsp_shuffle(int *by, size_t n, unsigned seed)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL * (seed + 1u);

	for (size_t t = 0; t < n; t++)
		by[t] = (int)t;
	for (size_t t = n; t > 1; t--) {
		size_t k;
		int swap;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		k = (size_t)(x % t);
		swap = by[t - 1];
		by[t - 1] = by[k];
		by[k] = swap;
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

	if (v->way.order == VLSP_BY_SHUFFLE) {
		vlsp_shuffle(by, n, v->way.seed);
		return;
	}
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
