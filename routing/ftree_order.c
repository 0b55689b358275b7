/*
 * ftree_order.c - ftree's leaf order, the numbers d-mod-k spreads CA LIDs
 * by.  A leaf's place is given by the port numbers of a way down to it from
 * a root, read from the top (the least such over every way down), so that
 * a missing cable moves no leaf, and no pod, to the end.  Part of the ftree
 * engine (routing/ftree.c has the DOC); reads ranks and links only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/ftree_priv.h"

#define FTREE_KEY_BYTES (FTREE_MAX_RANK + 2)

/* A switch's way down from a root: key[i] is the port of the switch at
 * rank FTREE_MAX_RANK - i to the next switch down the way (0 above the
 * way's root), so keys compare byte by byte from the top. */
struct ftree_way {
	uint8_t key[FTREE_KEY_BYTES];
	int pos; /* breadth first from the roots: ties */
	int sw;
};

/* Breadth first down from the roots (fabric order, ports in number
 * order): each switch's place in way[].pos (INT32_MAX: no root above). */
static void ftree_bfs_places(struct ftree *m, struct ftree_way *way)
{
	size_t tail = 0, n;

	ftree_reset(m->dist, m->g.n_sw);
	for (size_t s = 0; s < m->g.n_sw; s++) {
		way[s].pos = INT32_MAX;
		way[s].sw = (int)s;
		if (ftree_is_root(m, s)) {
			m->dist[s] = 0;
			m->queue[tail++] = (int)s;
		}
	}
	n = ftree_bfs(m, m->dist, tail);
	for (size_t q = 0; q < n; q++)
		way[m->queue[q]].pos = (int)q;
}

/* Every ranked switch's least way down: over its up-links, the parent's
 * way and the parent's port to it.  Top rank first (m->order), so each
 * parent's way is final before its children's. */
static void ftree_ways_down(const struct ftree *m, struct ftree_way *way)
{
	uint8_t cand[FTREE_KEY_BYTES];

	for (size_t s = 0; s < m->g.n_sw; s++)
		memset(way[s].key, 0, sizeof(way[s].key));
	for (size_t q = 0; q < m->n_ranked; q++) {
		int s = m->order[q];

		for (size_t e = m->up_start[s]; e < m->up_start[s + 1]; e++) {
			const struct swgraph_link *l = &m->up[e];
			int r = m->rank[l->sw];

			memcpy(cand, way[l->sw].key, sizeof(cand));
			if (r >= 0 && r <= FTREE_MAX_RANK)
				cand[FTREE_MAX_RANK - r] = l->rport;
			if (e == m->up_start[s] || memcmp(cand, way[s].key, sizeof(cand)) < 0)
				memcpy(way[s].key, cand, sizeof(cand));
		}
	}
}

static int ftree_way_cmp(const void *a, const void *b)
{
	const struct ftree_way *x = a, *y = b;
	int c = memcmp(x->key, y->key, sizeof(x->key));

	if (c)
		return c;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return (x->sw > y->sw) - (x->sw < y->sw);
}

/* Number the leaves (leaf_pos) by their least way down from a root, then
 * breadth first from the roots.  On the usual cabling (a core's port p
 * leads to pod p, a middle switch's port l to the pod's leaf l) that is
 * pod by pod, leaf by leaf, whichever cables are gone.  0 or -ENOMEM. */
int ftree_number_leaves(struct ftree *m)
{
	struct ftree_way *way = malloc((m->g.n_sw ? m->g.n_sw : 1) * sizeof(*way));
	int pos = 0;

	if (!way)
		return -ENOMEM;
	ftree_bfs_places(m, way);
	ftree_ways_down(m, way);
	qsort(way, m->g.n_sw, sizeof(*way), ftree_way_cmp);
	for (size_t i = 0; i < m->g.n_sw; i++)
		if (m->g.has_ca[way[i].sw])
			m->leaf_pos[way[i].sw] = pos++;
	free(way);
	return 0;
}
