/*
 * vlsp_layer.c - channel dependency layers for the vlsp engine: the turns
 * of each layer and its online topological order.  Knows nothing of LIDs,
 * weights or SLs; reads the switch graph as const; no I/O, no globals.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/vlsp_layer.h"

/* ---- Setup ------------------------------------------------------------- */

static size_t vlsp_layer_degree(const struct swgraph *g, int s)
{
	return g->adj_start[s + 1] - g->adj_start[s];
}

static int vlsp_layer_alloc(struct vlsp_layers *ls)
{
	size_t s = ls->g->n_sw ? ls->g->n_sw : 1, c = ls->n_chan ? ls->n_chan : 1;

	ls->rev = malloc(c * sizeof(*ls->rev));
	ls->chan_sw = malloc(c * sizeof(*ls->chan_sw));
	ls->turn_base = calloc(s + 1, sizeof(*ls->turn_base));
	ls->fixed_ord = malloc(c * sizeof(*ls->fixed_ord));
	ls->added = malloc(s * sizeof(*ls->added));
	ls->cap_added = s;
	ls->mark = calloc(c, sizeof(*ls->mark));
	ls->stack = malloc(c * sizeof(*ls->stack));
	ls->cursor = malloc(c * sizeof(*ls->cursor));
	ls->fwd = malloc(c * sizeof(*ls->fwd));
	ls->bwd = malloc(c * sizeof(*ls->bwd));
	ls->pos = malloc(2 * c * sizeof(*ls->pos));
	return ls->rev && ls->chan_sw && ls->turn_base && ls->fixed_ord && ls->added && ls->mark &&
		       ls->stack && ls->cursor && ls->fwd && ls->bwd && ls->pos
		   ? 0
		   : -ENOMEM;
}

void vlsp_layers_fini(struct vlsp_layers *ls)
{
	/* clang-format off */
	void *all[] = {
		ls->rev, ls->chan_sw, ls->turn_base, ls->fixed_ord, ls->added, ls->mark,
		ls->stack, ls->cursor, ls->fwd, ls->bwd, ls->pos,
	};
	/* clang-format on */

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		free(all[i]);
	for (unsigned l = 0; l < ls->n; l++) {
		free(ls->layer[l].turns);
		free(ls->layer[l].ord);
	}
	memset(ls, 0, sizeof(*ls));
}

/* Each channel's switch and reverse (a cable's two ends name each other's
 * port), and each switch's turn bits. */
static void vlsp_layer_index(struct vlsp_layers *ls)
{
	const struct swgraph *g = ls->g;

	for (size_t s = 0; s < g->n_sw; s++) {
		size_t d = vlsp_layer_degree(g, (int)s);

		ls->turn_base[s + 1] = ls->turn_base[s] + d * d;
		for (size_t e = g->adj_start[s]; e < g->adj_start[s + 1]; e++) {
			const struct swgraph_link *l = &g->adj[e];

			ls->chan_sw[e] = (int)s;
			for (size_t r = g->adj_start[l->sw]; r < g->adj_start[l->sw + 1]; r++)
				if (g->adj[r].port == l->rport)
					ls->rev[e] = (uint32_t)r;
		}
	}
	ls->turn_bits = ls->turn_base[g->n_sw];
}

int vlsp_layers_init(struct vlsp_layers *ls, const struct swgraph *g, const uint32_t *fixed_ord)
{
	memset(ls, 0, sizeof(*ls));
	ls->g = g;
	ls->n_chan = g->adj_start[g->n_sw];
	if (vlsp_layer_alloc(ls)) {
		vlsp_layers_fini(ls);
		return -ENOMEM;
	}
	vlsp_layer_index(ls);
	for (size_t c = 0; c < ls->n_chan; c++)
		ls->fixed_ord[c] = fixed_ord ? fixed_ord[c] : (uint32_t)c;
	ls->budget = ls->n_chan + 1;
	return 0;
}

int vlsp_layers_add_layer(struct vlsp_layers *ls, int fixed)
{
	struct vlsp_layer *l = &ls->layer[ls->n];
	size_t c = ls->n_chan ? ls->n_chan : 1;

	if (ls->n == VLSP_LAYER_MAX)
		return -ENOSPC;
	l->turns = calloc(ls->turn_bits / 64 + 1, sizeof(*l->turns));
	l->ord = malloc(c * sizeof(*l->ord));
	if (!l->turns || !l->ord) {
		free(l->turns);
		free(l->ord);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ls->n_chan; i++)
		l->ord[i] = ls->fixed_ord[i];
	l->fixed = fixed;
	return (int)ls->n++;
}

/* ---- Turns ------------------------------------------------------------- */

static int vlsp_layer_bit(const uint64_t *bits, size_t b)
{
	return (int)(bits[b / 64] >> (b % 64) & 1);
}

/* The turn bit at the switch out leaves, in over in, out over out. */
static size_t vlsp_layer_turn(const struct vlsp_layers *ls, uint32_t in, uint32_t out)
{
	int t = ls->chan_sw[out];
	size_t base = ls->g->adj_start[t];

	return ls->turn_base[t] + (ls->rev[in] - base) * vlsp_layer_degree(ls->g, t) + (out - base);
}

int vlsp_layers_has(const struct vlsp_layers *ls, unsigned l, uint32_t in, uint32_t out)
{
	return vlsp_layer_bit(ls->layer[l].turns, vlsp_layer_turn(ls, in, out));
}

size_t vlsp_layers_bit(const struct vlsp_layers *ls, uint32_t in, uint32_t out)
{
	return vlsp_layer_turn(ls, in, out);
}

void vlsp_layers_drop(struct vlsp_layers *ls, unsigned l, uint32_t in, uint32_t out)
{
	size_t bit = vlsp_layer_turn(ls, in, out);

	ls->layer[l].turns[bit / 64] &= ~(1ULL << (bit % 64));
}

int vlsp_layers_safe(const struct vlsp_layers *ls, unsigned l, uint32_t in, uint32_t out)
{
	const struct vlsp_layer *ly = &ls->layer[l];

	return ly->ord[in] < ly->ord[out] || vlsp_layers_has(ls, l, in, out);
}

/* ---- The online order (Pearce-Kelly) ------------------------------------ */

/* The next channel after *cur that channel c leads into (forward) or that
 * leads into c (backward) on layer l; VLSP_LAYER_NONE when done. */
static uint32_t vlsp_layer_next(const struct vlsp_layers *ls, const struct vlsp_layer *l,
				uint32_t c, int forward, uint16_t *cur)
{
	int t = forward ? ls->g->adj[c].sw : ls->chan_sw[c];
	size_t base = ls->g->adj_start[t], deg = vlsp_layer_degree(ls->g, t);
	size_t row = ls->turn_base[t] + (forward ? (ls->rev[c] - base) * deg : 0);
	size_t out = forward ? 0 : c - base;

	while (*cur < deg) {
		size_t i = (*cur)++;

		if (forward && vlsp_layer_bit(l->turns, row + i))
			return (uint32_t)(base + i);
		if (!forward && vlsp_layer_bit(l->turns, row + i * deg + out))
			return ls->rev[base + i];
	}
	return VLSP_LAYER_NONE;
}

/* Depth first from c over channels not yet marked, forward to those
 * placed below ub or backward to those above lb, collecting (place,
 * channel) into got.  Forward, reaching place ub (the new turn's in
 * channel) is a cycle: returns 1; so is a search that would visit
 * ls->budget channels (the turn is refused as if it closed one). */
static int vlsp_layer_search(struct vlsp_layers *ls, const struct vlsp_layer *l, uint32_t c,
			     int forward, uint32_t lb, uint32_t ub, uint64_t *got, size_t *n_got)
{
	size_t top = 0;

	ls->mark[c] = ls->gen;
	ls->cursor[c] = 0;
	ls->stack[top++] = c;
	while (top) {
		uint32_t x = ls->stack[top - 1];
		uint32_t w = vlsp_layer_next(ls, l, x, forward, &ls->cursor[x]);

		if (w == VLSP_LAYER_NONE) {
			got[(*n_got)++] = (uint64_t)l->ord[x] << 32 | x;
			top--;
			continue;
		}
		if ((forward && l->ord[w] == ub) || *n_got + top >= ls->budget)
			return 1;
		if (ls->mark[w] == ls->gen || (forward ? l->ord[w] > ub : l->ord[w] <= lb))
			continue;
		ls->mark[w] = ls->gen;
		ls->cursor[w] = 0;
		ls->stack[top++] = w;
		ls->work++;
	}
	return 0;
}

static int vlsp_layer_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The channels that reach the new turn's in channel (bwd) go before those
 * its out channel reaches (fwd), in the places they held, each group in
 * its old order. */
static void vlsp_layer_reorder(struct vlsp_layers *ls, struct vlsp_layer *l)
{
	size_t n = ls->n_bwd + ls->n_fwd;

	qsort(ls->bwd, ls->n_bwd, sizeof(*ls->bwd), vlsp_layer_u64_cmp);
	qsort(ls->fwd, ls->n_fwd, sizeof(*ls->fwd), vlsp_layer_u64_cmp);
	for (size_t i = 0; i < n; i++)
		ls->pos[i] = (i < ls->n_bwd ? ls->bwd[i] : ls->fwd[i - ls->n_bwd]) >> 32;
	qsort(ls->pos, n, sizeof(*ls->pos), vlsp_layer_u64_cmp);
	for (size_t i = 0; i < n; i++) {
		uint64_t x = i < ls->n_bwd ? ls->bwd[i] : ls->fwd[i - ls->n_bwd];

		l->ord[(uint32_t)x] = (uint32_t)ls->pos[i];
	}
}

/* Make the order of l agree with the new turn in -> out; returns 1 (order
 * unchanged) when the turn closes a cycle, or on a fixed layer when it
 * goes against the order. */
static int vlsp_layer_order(struct vlsp_layers *ls, struct vlsp_layer *l, uint32_t in, uint32_t out)
{
	uint32_t lb = l->ord[out], ub = l->ord[in];

	if (lb > ub)
		return 0;
	if (l->fixed)
		return 1;
	ls->gen++;
	ls->n_fwd = ls->n_bwd = 0;
	if (vlsp_layer_search(ls, l, out, 1, lb, ub, ls->fwd, &ls->n_fwd) ||
	    vlsp_layer_search(ls, l, in, 0, lb, ub, ls->bwd, &ls->n_bwd))
		return 1;
	vlsp_layer_reorder(ls, l);
	return 0;
}

/* Take the turns the tree being added set out of l again (its order,
 * made for more turns, stays a topological order). */
static void vlsp_layer_undo(struct vlsp_layers *ls, struct vlsp_layer *l)
{
	for (size_t i = 0; i < ls->n_added; i++)
		l->turns[ls->added[i] / 64] &= ~(1ULL << (ls->added[i] % 64));
	ls->n_added = 0;
}

void vlsp_layers_begin(struct vlsp_layers *ls)
{
	ls->n_added = 0;
}

int vlsp_layers_turn(struct vlsp_layers *ls, unsigned l, uint32_t in, uint32_t out)
{
	struct vlsp_layer *ly = &ls->layer[l];
	size_t bit = vlsp_layer_turn(ls, in, out);

	if (vlsp_layer_bit(ly->turns, bit))
		return 0;
	ly->turns[bit / 64] |= 1ULL << (bit % 64);
	if (vlsp_layer_order(ls, ly, in, out)) {
		ly->turns[bit / 64] &= ~(1ULL << (bit % 64));
		return 1;
	}
	if (ls->n_added < ls->cap_added)
		ls->added[ls->n_added++] = bit;
	return 0;
}

void vlsp_layers_undo(struct vlsp_layers *ls, unsigned l)
{
	vlsp_layer_undo(ls, &ls->layer[l]);
}

int vlsp_layers_add(struct vlsp_layers *ls, unsigned l, const struct vlsp_tree *t)
{
	vlsp_layers_begin(ls);
	for (size_t k = 1; k < t->n; k++) {
		int s = t->order[k];
		uint32_t in = t->up[s], out = t->up[ls->g->adj[in].sw];

		if (out == VLSP_LAYER_NONE || (t->only && !t->only[s]))
			continue;
		if (vlsp_layers_turn(ls, l, in, out)) {
			vlsp_layers_undo(ls, l);
			return 1;
		}
	}
	return 0;
}

/* ---- Many trees at once (routing/ftree_vlmerge.c) ----------------------- */

void vlsp_layers_put(struct vlsp_layers *ls, unsigned l, const struct vlsp_tree *t)
{
	uint64_t *turns = ls->layer[l].turns;

	for (size_t k = 1; k < t->n; k++) {
		int s = t->order[k];
		uint32_t in = t->up[s], out = t->up[ls->g->adj[in].sw];
		size_t bit;

		if (out == VLSP_LAYER_NONE || (t->only && !t->only[s]))
			continue;
		bit = vlsp_layer_turn(ls, in, out);
		turns[bit / 64] |= 1ULL << (bit % 64);
	}
}

int vlsp_layers_sort(struct vlsp_layers *ls, unsigned l)
{
	struct vlsp_layer *ly = &ls->layer[l];
	uint32_t *indeg = ls->mark, *queue = ls->stack, next = 0;
	size_t head = 0, tail = 0;

	memset(indeg, 0, ls->n_chan * sizeof(*indeg));
	for (size_t c = 0; c < ls->n_chan; c++) {
		uint16_t cur = 0;

		for (uint32_t w;
		     (w = vlsp_layer_next(ls, ly, (uint32_t)c, 1, &cur)) != VLSP_LAYER_NONE;)
			indeg[w]++;
	}
	for (size_t c = 0; c < ls->n_chan; c++)
		if (!indeg[c])
			queue[tail++] = (uint32_t)c;
	while (head < tail) {
		uint32_t c = queue[head++];
		uint16_t cur = 0;

		ly->ord[c] = next++;
		for (uint32_t w; (w = vlsp_layer_next(ls, ly, c, 1, &cur)) != VLSP_LAYER_NONE;)
			if (!--indeg[w])
				queue[tail++] = w;
	}
	/* the marks of the cycle searches start again */
	memset(ls->mark, 0, ls->n_chan * sizeof(*ls->mark));
	ls->gen = 0;
	return tail == ls->n_chan ? 0 : 1;
}
