/*
 * score_path.c - the scorer's virtual lanes with an SL per path
 * (lft_set.path_sl): a pair's VL is the SL of the path from its source's
 * switch, so the routed pairs and the busiest link of each VL are counted
 * path by path.  Part of routing/score.c (shared state in score_priv.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "routing/score_priv.h"

/* path_vl[s] := the VL of the paths from switch s to d (15 and up count as
 * 15), read from s's path_sl row found once in setup. */
static void score_path_vls_to(struct score *sc, const struct score_end *d)
{
	for (size_t s = 0; s < sc->g.n_sw; s++) {
		uint8_t v = lft_set_sl_at(sc->lfts, sc->sl_row[s], d->lid);

		sc->path_vl[s] = v < SCORE_VLS ? v : SCORE_VLS - 1;
	}
}

int score_path_vls_setup(struct score *sc)
{
	struct route_score *res = sc->res;
	size_t n = sc->g.n_sw ? sc->g.n_sw : 1;

	sc->sl_row = malloc(n * sizeof(*sc->sl_row));
	sc->path_vl = malloc(n);
	if (!sc->sl_row || !sc->path_vl)
		return -ENOMEM;
	for (size_t s = 0; s < sc->g.n_sw; s++)
		sc->sl_row[s] = lft_set_sl_row(sc->lfts, sc->g.sw_node[s]);
	res->n_vls = 1;
	for (size_t e = 0; e < sc->n_ends; e++) {
		unsigned on = 0; /* bit v: some path to e rides VL v */

		score_path_vls_to(sc, &sc->ends[e]);
		for (size_t s = 0; s < sc->g.n_sw; s++)
			on |= 1u << sc->path_vl[s];
		for (unsigned v = 0; v < SCORE_VLS; v++) {
			if (!(on >> v & 1))
				continue;
			res->vl[v].endpoints++;
			res->n_vls = v + 1 > res->n_vls ? v + 1 : res->n_vls;
		}
	}
	return 0;
}

void score_path_pairs(struct score *sc, const struct score_end *d)
{
	score_path_vls_to(sc, d);
	for (size_t s = 0; s < sc->g.n_sw; s++) {
		size_t src = sc->ends_at[s + 1] - sc->ends_at[s] - ((int)s == d->sw);

		if (sc->hops[s] >= 0 && src)
			sc->res->vl[sc->path_vl[s]].pairs_routed += src;
	}
}

void score_path_flows(struct score *sc, const struct score_end *d, size_t first)
{
	if (!sc->efi_vl)
		return;
	score_path_vls_to(sc, d);
	for (unsigned v = 0; v < sc->res->n_vls; v++) {
		uint64_t *efi = &sc->efi_vl[v * sc->n_ids];

		for (size_t s = 0; s < sc->g.n_sw; s++)
			sc->flow[s] = sc->hops[s] >= 0 && sc->path_vl[s] == v
					  ? sc->ends_at[s + 1] - sc->ends_at[s] - ((int)s == d->sw)
					  : 0;
		for (size_t k = first; k-- > 0;) {
			int s = sc->queue[k];

			if (!sc->flow[s])
				continue;
			efi[sc->sw[s].base + sc->out[s]] += sc->flow[s];
			if (sc->next[s] >= 0)
				sc->flow[sc->next[s]] += sc->flow[s];
		}
	}
}
