/*
 * vlsp_again.c - routing again against prior tables (see vlsp_again.h):
 * owns the (switch, port) -> channel index and the prior paths' count;
 * the weights it counts into are the run's (routing/vlsp.c).  No I/O, no
 * globals.
 */
#include <errno.h>
#include <stdlib.h>

#include "routing/vlsp_again.h"

int vlsp_again_init(struct vlsp_again *a, const struct swgraph *g, const struct lft_set *prior,
		    const uint32_t *srcs)
{
	size_t slots = g->port_base[g->n_sw];

	*a = (struct vlsp_again){.g = g, .prior = prior, .srcs = srcs};
	a->chan_of = malloc((slots ? slots : 1) * sizeof(*a->chan_of));
	if (!a->chan_of)
		return -ENOMEM;
	for (size_t i = 0; i < slots; i++)
		a->chan_of[i] = UINT32_MAX;
	for (size_t s = 0; s < g->n_sw; s++)
		for (size_t e = g->adj_start[s]; e < g->adj_start[s + 1]; e++)
			a->chan_of[g->port_base[s] + g->adj[e].port] = (uint32_t)e;
	return 0;
}

void vlsp_again_fini(struct vlsp_again *a)
{
	free(a->chan_of);
	a->chan_of = NULL;
}

/* The port switch s sends lid out of in the prior tables, or LFT_DROP
 * (no entry, or no such port). */
static uint8_t vlsp_again_port(const struct vlsp_again *a, size_t s, uint16_t lid)
{
	const struct lft *t = &a->prior->tables[s];
	uint8_t p = lid <= t->top ? t->port[lid] : LFT_DROP;

	return p != LFT_DROP && p <= a->g->f->nodes[a->g->sw_node[s]].num_ports ? p : LFT_DROP;
}

void vlsp_again_count(const struct vlsp_again *a, uint16_t lid, int sign, uint64_t *weight,
		      uint32_t *lid_load)
{
	const struct swgraph *g = a->g;

	for (size_t s0 = 0; s0 < g->n_sw; s0++) {
		uint8_t p = vlsp_again_port(a, s0, lid);
		size_t s = s0;

		if (p == LFT_DROP)
			continue;
		lid_load[g->port_base[s0] + p] += (uint32_t)sign;
		for (size_t hop = 0; a->srcs[s0] && hop < g->n_sw; hop++) {
			uint32_t e;

			p = vlsp_again_port(a, s, lid);
			e = p == LFT_DROP ? UINT32_MAX : a->chan_of[g->port_base[s] + p];
			if (e == UINT32_MAX)
				break;
			weight[e] += (uint64_t)((int64_t)sign * a->srcs[s0]);
			s = (size_t)g->adj[e].sw;
		}
	}
}

long vlsp_again_walk(const struct vlsp_again *a, size_t s, uint16_t lid, size_t d, uint32_t *buf)
{
	size_t k = 0;

	while (s != d) {
		uint8_t p = vlsp_again_port(a, s, lid);
		uint32_t e;

		if (p == LFT_DROP || k >= a->g->n_sw)
			return -1;
		e = a->chan_of[a->g->port_base[s] + p];
		if (e == UINT32_MAX)
			return -1;
		if (buf)
			buf[k] = e;
		k++;
		s = (size_t)a->g->adj[e].sw;
	}
	return (long)k;
}
