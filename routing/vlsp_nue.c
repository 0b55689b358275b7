/*
 * vlsp_nue.c - grow a destination's tree on a vlsp layer turn by turn
 * (see vlsp_nue.h).  Reads the switch graph as const, changes only the
 * layer it is given; no I/O, no globals.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/vlsp_nue.h"

int vlsp_nue_init(struct vlsp_nue *h, const struct swgraph *g)
{
	size_t s = g->n_sw ? g->n_sw : 1, c = g->adj_start[g->n_sw] + 1;

	memset(h, 0, sizeof(*h));
	h->g = g;
	h->heap = malloc(c * sizeof(*h->heap));
	h->hops = malloc(s * sizeof(*h->hops));
	h->done = calloc(s, 1);
	if (h->heap && h->hops && h->done)
		return 0;
	vlsp_nue_fini(h);
	return -ENOMEM;
}

void vlsp_nue_fini(struct vlsp_nue *h)
{
	free(h->heap);
	free(h->hops);
	free(h->done);
	memset(h, 0, sizeof(*h));
}

/* ---- The candidates: a binary heap, the best first ---------------------- */

static int vlsp_nue_less(const struct vlsp_nue_cand *a, const struct vlsp_nue_cand *b)
{
	if (a->hops != b->hops)
		return a->hops < b->hops;
	if (a->cost != b->cost)
		return a->cost < b->cost;
	if (a->load != b->load)
		return a->load < b->load;
	return a->chan < b->chan;
}

static void vlsp_nue_push(struct vlsp_nue *h, struct vlsp_nue_cand c)
{
	size_t i = h->n_heap++;

	while (i && vlsp_nue_less(&c, &h->heap[(i - 1) / 2])) {
		h->heap[i] = h->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->heap[i] = c;
}

static struct vlsp_nue_cand vlsp_nue_pop(struct vlsp_nue *h)
{
	struct vlsp_nue_cand top = h->heap[0], last = h->heap[--h->n_heap];
	size_t i = 0, n = h->n_heap;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && vlsp_nue_less(&h->heap[c + 1], &h->heap[c]))
			c++;
		if (!vlsp_nue_less(&h->heap[c], &last))
			break;
		h->heap[i] = h->heap[c];
		i = c;
	}
	if (n)
		h->heap[i] = last;
	return top;
}

/* ---- Growing the tree ---------------------------------------------------- */

/* Offer every switch next to r that has not joined the way over its
 * channel into r. */
static void vlsp_nue_offer(struct vlsp_nue *h, const struct vlsp_nue_in *in, int r,
			   const uint64_t *cost)
{
	const struct swgraph *g = h->g;

	for (size_t e = g->adj_start[r]; e < g->adj_start[r + 1]; e++) {
		int s = g->adj[e].sw;
		uint32_t back = in->ls->rev[e]; /* s -> r */

		if (h->done[s] || (in->dist && in->dist[s] != in->dist[r] + 1))
			continue;
		in->ls->work++;
		vlsp_nue_push(h, (struct vlsp_nue_cand){
				     .cost = cost[r] + in->weight[back],
				     .hops = h->hops[r] + 1,
				     .load = in->lid_load[g->port_base[s] + g->adj[back].port],
				     .chan = back,
				 });
	}
}

int vlsp_nue_tree(struct vlsp_nue *h, const struct vlsp_nue_in *in, int t, size_t n, uint32_t *up,
		  uint64_t *cost, int *order)
{
	const struct swgraph *g = h->g;
	size_t got = 1;

	vlsp_layers_begin(in->ls);
	h->n_heap = 0;
	h->done[t] = 1;
	h->hops[t] = 0;
	up[t] = VLSP_LAYER_NONE;
	cost[t] = 0;
	order[0] = t;
	vlsp_nue_offer(h, in, t, cost);
	while (h->n_heap && got < n) {
		struct vlsp_nue_cand c = vlsp_nue_pop(h);
		int s = in->ls->chan_sw[c.chan], r = g->adj[c.chan].sw;

		if (h->done[s] || (up[r] != VLSP_LAYER_NONE &&
				   vlsp_layers_turn(in->ls, in->layer, c.chan, up[r])))
			continue;
		h->done[s] = 1;
		h->hops[s] = c.hops;
		up[s] = c.chan;
		cost[s] = c.cost;
		order[got++] = s;
		vlsp_nue_offer(h, in, s, cost);
	}
	for (size_t k = 0; k < got; k++)
		h->done[order[k]] = 0;
	if (got == n)
		return 0;
	vlsp_layers_undo(in->ls, in->layer);
	return 1;
}
