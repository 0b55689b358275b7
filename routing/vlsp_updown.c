/*
 * vlsp_updown.c - the vlsp run's up-star/down-star ranking (a center of
 * each component, breadth first from it) and the channel order every
 * layer starts in (routing/vlsp_priv.h); the layers themselves are
 * vlsp_layer.c's.  Reads the run's switch graph; no I/O, no globals.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/vlsp_priv.h"

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
int vlsp_updown_rank(struct vlsp *v)
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
int vlsp_updown_order(struct vlsp *v, uint32_t **ord)
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
