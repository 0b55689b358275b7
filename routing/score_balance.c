/*
 * score_balance.c - the LID balance part of a score (score.h): how evenly
 * each switch spreads the LIDs over the up-ports of its groups of
 * parallel links, by rank.  Part of the scorer (score.c).
 */
#include <stdlib.h>
#include <string.h>

#include "routing/score_priv.h"

/* ---- LID balance ------------------------------------------------------- */

/* rank = switch hops from the nearest switch with endpoints (-1: none). */
static void score_rank(struct score *sc)
{
	size_t tail = 0;

	for (size_t s = 0; s < sc->g.n_sw; s++) {
		sc->dist[s] = sc->ends_at[s + 1] > sc->ends_at[s] ? 0 : -1;
		if (!sc->dist[s])
			sc->queue[tail++] = (int)s;
	}
	swgraph_bfs(&sc->g, sc->queue, tail, sc->dist, NULL);
}

/* Mark s's up group in group[]; returns the number of ports in it. */
static size_t score_up_group(const struct score *sc, int s, uint8_t *group)
{
	size_t up = 0, down = 0, all = 0;

	memset(group, 0, FABRIC_MAX_PORTS + 1);
	for (size_t e = sc->g.adj_start[s]; e < sc->g.adj_start[s + 1]; e++) {
		int r = sc->dist[sc->g.adj[e].sw], me = sc->dist[s];

		up += r > me;
		down += r < me;
	}
	if (!up && down)
		return 0; /* a top switch */
	for (size_t e = sc->g.adj_start[s]; e < sc->g.adj_start[s + 1]; e++) {
		if (up && sc->dist[sc->g.adj[e].sw] <= sc->dist[s])
			continue;
		all += !group[sc->g.adj[e].port];
		group[sc->g.adj[e].port] = 1;
	}
	return all;
}

/* The last LID of endpoint e's LMC range. */
static unsigned score_end_last(const struct score *sc, size_t e)
{
	const struct score_end *d = &sc->ends[e];

	return d->lid + fabric_port_lid_count(&sc->f->nodes[d->node].ports[d->port]) - 1;
}

/* LIDs of every endpoint (its whole LMC range) s sends out of each port;
 * last[e] is endpoint e's last LID (NULL: read from the fabric). */
static void score_count_lids(const struct score *sc, int s, const uint16_t *last, uint32_t *count)
{
	const struct score_sw *w = &sc->sw[s];

	memset(count, 0, (FABRIC_MAX_PORTS + 2) * sizeof(*count));
	if (!w->tab)
		return;
	for (size_t e = 0; e < sc->n_ends; e++) {
		unsigned end = last ? last[e] : score_end_last(sc, e);

		for (unsigned lid = sc->ends[e].lid; lid <= end && lid <= w->top; lid++)
			count[w->tab[lid] <= FABRIC_MAX_PORTS ? w->tab[lid]
							      : FABRIC_MAX_PORTS + 1]++;
	}
}

static void score_group_stats(struct score *sc, int s, const uint8_t *group, const uint32_t *count)
{
	struct route_score *res = sc->res;
	uint32_t lo = UINT32_MAX, hi = 0;

	for (unsigned p = 1; p <= FABRIC_MAX_PORTS; p++) {
		if (!group[p])
			continue;
		lo = count[p] < lo ? count[p] : lo;
		hi = count[p] > hi ? count[p] : hi;
	}
	if (!res->lid_groups++ || lo < res->lids_port_min)
		res->lids_port_min = lo;
	res->lids_port_max = hi > res->lids_port_max ? hi : res->lids_port_max;
	if (res->lids_spread_node == FABRIC_NONE || hi - lo > res->lids_spread_max) {
		res->lids_spread_max = hi - lo;
		res->lids_spread_node = sc->g.sw_node[s];
	}
}

void score_balance_lids(struct score *sc)
{
	uint8_t group[FABRIC_MAX_PORTS + 1];
	uint32_t count[FABRIC_MAX_PORTS + 2];

	/* every switch counts every endpoint's range: read the ranges from
	 * the fabric once, not once per switch (45K endpoints x 3839 switches
	 * at 48K LIDs, each a cache miss); without the memory, as before */
	uint16_t *last = malloc(sc->n_ends * sizeof(*last) + 1);

	for (size_t e = 0; last && e < sc->n_ends; e++)
		last[e] = (uint16_t)score_end_last(sc, e);
	sc->res->lids_spread_node = FABRIC_NONE;
	score_rank(sc);
	for (size_t s = 0; s < sc->g.n_sw; s++) {
		if (!score_up_group(sc, (int)s, group))
			continue;
		score_count_lids(sc, (int)s, last, count);
		score_group_stats(sc, (int)s, group, count);
	}
	free(last);
}
