/*
 * ftree_bounce.c - ftree's shortest ways to a switch's own LIDs for the
 * switches with no up-then-down route to it, found for 64 switches at a
 * time.  Part of the ftree engine (routing/ftree.c has the DOC).
 *
 * A switch x with no up-then-down route to switch t's LID sends it on a
 * shortest path: to the neighbour one hop nearer t that comes first,
 * lower rank first, then lower switch ordinal, by x's lowest port to it
 * (ftree_bounce_routes below searches one t at a time, the way CA LIDs
 * still do, with up-links first).  On ft3-45k that search ran for 2432
 * switches, each over all 180 000 cable ends.  Here one breadth-first
 * search serves 64 switches t at once: bit i of a 64-bit word per switch
 * says "reached from the i-th t", each level ORs the words of the level
 * before over the cables, and a switch reached at level d for some t
 * takes, for each, the first neighbour in the order above whose word
 * holds that t at level d - 1: the same neighbour and port as the search
 * one t at a time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/ftree_priv.h"

#define FTREE_BOUNCE_BATCH 64

/* ---- One leaf at a time (CA LIDs) -------------------------------------- */

/* Is r a better next hop than b (or b < 0)?  Up-links first when up_first,
 * else down-links first; then the switch first in switch order. */
static int ftree_better_hop(const struct ftree *m, int r, int b, int up_first)
{
	if (b < 0)
		return 1;
	if (m->rank[r] != m->rank[b])
		return (m->rank[r] > m->rank[b]) == up_first;
	return r < b;
}

/* The shortest way to the leaf for switches with no up-then-down route
 * (bfs_port): breadth first from the leaf, and among equal ways up-links
 * first toward a CA LID (so the turn comes late, next to the CA end) and
 * down-links first toward a switch LID (so it comes early, next to the CA
 * sending). */
void ftree_bounce_routes(struct ftree *m, int leaf, int up_first)
{
	int *dist = m->dist, *queue = m->queue, *via = m->via;
	size_t tail = 1;

	/* each neighbour one hop nearer is searched before the switch itself:
	 * the best of them is kept as they come (via), with the switch's
	 * lowest port to it (its first cable to it in adjacency order) */
	ftree_reset(dist, m->g.n_sw);
	dist[leaf] = 0;
	queue[0] = leaf;
	for (size_t head = 0; head < tail; head++) {
		int x = queue[head], d = dist[x] + 1;
		const struct swgraph_link *l = &m->g.adj[m->g.adj_start[x]];
		const struct swgraph_link *end = &m->g.adj[m->g.adj_start[x + 1]];

		for (; l < end; l++) {
			int y = l->sw;

			if (dist[y] < 0) {
				dist[y] = d;
				queue[tail++] = y;
				via[y] = x;
				m->bfs_port[y] = l->rport;
			} else if (dist[y] == d && m->kind[y] == FTREE_ANY &&
				   (x == via[y] ? l->rport < m->bfs_port[y]
						: ftree_better_hop(m, x, via[y], up_first))) {
				via[y] = x;
				m->bfs_port[y] = l->rport;
			}
		}
	}
}

/* ---- 64 switches at a time (switch LIDs) ------------------------------- */

struct ftree_bounce {
	size_t n_sw;
	/* each switch's neighbours, in the order they are preferred (lower
	 * rank, lower ordinal, lower port) */
	size_t *nb_start;
	int *nb_sw;
	uint8_t *nb_port;
	uint64_t *seen, *front, *next, *comp_all;
	size_t first, n; /* the switches t of the batch: first .. first + n */
	uint8_t *port;	 /* [i * n_sw + x]: x's port toward batch switch first + i */
};

struct ftree_nb {
	int rank, sw;
	uint8_t port;
};

static int ftree_nb_cmp(const void *a, const void *b)
{
	const struct ftree_nb *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->sw != y->sw)
		return x->sw < y->sw ? -1 : 1;
	return (x->port > y->port) - (x->port < y->port);
}

void ftree_bounce_free(struct ftree *m)
{
	struct ftree_bounce *b = m->bounce;

	if (!b)
		return;
	free(b->nb_start);
	free(b->nb_sw);
	free(b->nb_port);
	free(b->seen);
	free(b->front);
	free(b->next);
	free(b->comp_all);
	free(b->port);
	free(b);
	m->bounce = NULL;
}

/* The neighbour lists in order of preference and the scratch. */
static int ftree_bounce_init(struct ftree *m)
{
	size_t n = m->g.n_sw ? m->g.n_sw : 1, na = m->g.adj_start[m->g.n_sw];
	struct ftree_bounce *b = calloc(1, sizeof(*b));
	struct ftree_nb *tmp;

	if (!b)
		return -ENOMEM;
	m->bounce = b;
	b->n_sw = m->g.n_sw;
	b->first = SIZE_MAX;
	b->nb_start = malloc((n + 1) * sizeof(*b->nb_start));
	b->nb_sw = malloc((na ? na : 1) * sizeof(*b->nb_sw));
	b->nb_port = malloc(na ? na : 1);
	b->seen = malloc(n * sizeof(*b->seen));
	b->front = malloc(n * sizeof(*b->front));
	b->next = malloc(n * sizeof(*b->next));
	b->comp_all = malloc((m->g.n_comp ? m->g.n_comp : 1) * sizeof(*b->comp_all));
	b->port = malloc(FTREE_BOUNCE_BATCH * n);
	tmp = malloc((na ? na : 1) * sizeof(*tmp));
	if (!b->nb_start || !b->nb_sw || !b->nb_port || !b->seen || !b->front || !b->next ||
	    !b->comp_all || !b->port || !tmp) {
		free(tmp);
		return -ENOMEM;
	}
	for (size_t x = 0; x < m->g.n_sw; x++) {
		size_t first = m->g.adj_start[x], k = m->g.adj_start[x + 1] - first;

		for (size_t i = 0; i < k; i++) {
			const struct swgraph_link *l = &m->g.adj[first + i];

			tmp[i] = (struct ftree_nb){m->rank[l->sw], l->sw, l->port};
		}
		qsort(tmp, k, sizeof(*tmp), ftree_nb_cmp);
		b->nb_start[x] = first;
		for (size_t i = 0; i < k; i++) {
			b->nb_sw[first + i] = tmp[i].sw;
			b->nb_port[first + i] = tmp[i].port;
		}
	}
	b->nb_start[m->g.n_sw] = na;
	free(tmp);
	return 0;
}

/* One level: every switch not yet reached from some t of the batch but
 * next to one reached at the last level; for each such t, its port to
 * the first neighbour (in order of preference) reached at the last level.
 * Returns whether any switch was reached. */
static int ftree_bounce_level(struct ftree_bounce *b, const int *comp)
{
	uint64_t any = 0;

	for (size_t x = 0; x < b->n_sw; x++) {
		uint64_t want = b->comp_all[comp[x]] & ~b->seen[x], got = 0;

		b->next[x] = 0;
		if (!want)
			continue;
		for (size_t e = b->nb_start[x]; e < b->nb_start[x + 1] && want; e++) {
			uint64_t hit = b->front[b->nb_sw[e]] & want;

			if (!hit)
				continue;
			want &= ~hit;
			got |= hit;
			while (hit) {
				unsigned i = (unsigned)__builtin_ctzll(hit);

				b->port[i * b->n_sw + x] = b->nb_port[e];
				hit &= hit - 1;
			}
		}
		b->next[x] = got;
		any |= got;
	}
	for (size_t x = 0; x < b->n_sw; x++)
		b->seen[x] |= b->next[x];
	{
		uint64_t *t = b->front;

		b->front = b->next;
		b->next = t;
	}
	return any != 0;
}

/* The ways toward the switches first .. first + 63 (those that exist). */
static void ftree_bounce_batch(struct ftree *m, size_t first)
{
	struct ftree_bounce *b = m->bounce;

	b->first = first;
	b->n = m->g.n_sw - first < FTREE_BOUNCE_BATCH ? m->g.n_sw - first : FTREE_BOUNCE_BATCH;
	memset(b->seen, 0, b->n_sw * sizeof(*b->seen));
	memset(b->front, 0, b->n_sw * sizeof(*b->front));
	memset(b->comp_all, 0, (m->g.n_comp ? m->g.n_comp : 1) * sizeof(*b->comp_all));
	for (size_t i = 0; i < b->n; i++) {
		size_t t = first + i;

		b->seen[t] = b->front[t] = 1ULL << i;
		b->comp_all[m->g.comp[t]] |= 1ULL << i;
	}
	while (ftree_bounce_level(b, m->g.comp))
		;
}

/* What ftree_bounce_routes(m, t, 0) leaves in bfs_port for the switches
 * of kind ANY (the switches of t's component are in fill).  0 or -ENOMEM. */
int ftree_bounce_switch(struct ftree *m, int t)
{
	struct ftree_bounce *b = m->bounce;
	const uint8_t *row;

	if (!b && ftree_bounce_init(m))
		return -ENOMEM;
	b = m->bounce;
	if (b->first == SIZE_MAX || (size_t)t < b->first || (size_t)t >= b->first + b->n)
		ftree_bounce_batch(m, (size_t)t);
	row = &b->port[((size_t)t - b->first) * b->n_sw];
	for (size_t q = 0; q < m->n_fill; q++) {
		int s = m->fill[q];

		if (m->kind[s] == FTREE_ANY)
			m->bfs_port[s] = row[s];
	}
	return 0;
}
