/*
 * ftree_rank.c - the shape of the tree ftree routes: ranks (from the
 * leaves, or down from given roots), up- and down-links, what each switch
 * sees below it, the up-port columns of each rank.  Part of the ftree
 * engine (routing/ftree.c has the DOC); touches only struct ftree.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "routing/ftree_priv.h"

/* Breadth first over the switch graph from queue[0..tail) (dist 0; every
 * other dist -1).  bfs_port[s] is s's port toward the switch that found it.
 * Returns how many switches were queued, in the order found. */
size_t ftree_bfs(struct ftree *m, int *dist, size_t tail)
{
	return swgraph_bfs(&m->g, m->queue, tail, dist, m->bfs_port);
}

void ftree_reset(int *dist, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dist[i] = -1;
}

/* ---- Ranks ------------------------------------------------------------- */

/* Look the given roots up; unknown GUIDs are only noted (a root may be
 * down), a root that is not a switch is an error. */
static int ftree_mark_roots(struct ftree *m, const struct route_opts *opts)
{
	for (size_t i = 0; opts->roots && i < opts->n_roots; i++) {
		int node = fabric_find(m->f, opts->roots[i]);

		if (node == FABRIC_NONE) {
			if (!m->unknown_roots++)
				m->unknown_root = opts->roots[i];
			continue;
		}
		if (m->g.sw_of[node] < 0)
			return text_err(m->err, m->errlen, -EINVAL,
					"root 0x%016" PRIx64 " is not a switch", opts->roots[i]);
		m->is_root[m->g.sw_of[node]] = 1;
	}
	return 0;
}

/* Rank = distance to the nearest leaf; -1 where no leaf is connected. */
static size_t ftree_rank_from_leaves(struct ftree *m)
{
	size_t leaves = 0;

	ftree_reset(m->rank, m->g.n_sw);
	for (size_t s = 0; s < m->g.n_sw; s++)
		if (m->g.has_ca[s]) {
			m->rank[s] = 0;
			m->queue[leaves++] = (int)s;
		}
	ftree_bfs(m, m->rank, leaves);
	return leaves;
}

/* Depth of the leaves below the given roots, per component (-1: none). */
static int ftree_leaf_depths(struct ftree *m, const int *depth, int *want)
{
	for (size_t s = 0; s < m->g.n_sw; s++) {
		int *w = &want[m->g.comp[s]];

		if (!m->g.has_ca[s] || depth[s] < 0)
			continue;
		if (*w >= 0 && *w != depth[s]) {
			size_t t = 0;

			while (!m->g.has_ca[t] || m->g.comp[t] != m->g.comp[s] || depth[t] != *w)
				t++;
			return text_err(m->err, m->errlen, -EINVAL,
					"not a fat tree from the given roots: leaf 0x%016" PRIx64
					" is %d hops below them, leaf 0x%016" PRIx64 " %d",
					swgraph_guid(&m->g, (int)t), *w,
					swgraph_guid(&m->g, (int)s), depth[s]);
		}
		*w = depth[s];
	}
	return 0;
}

/* In components holding a given root, rank = leaf depth - depth. */
static int ftree_rank_from_roots(struct ftree *m)
{
	int *depth = m->dist, *want = m->order;
	size_t tail = 0;
	int rc;

	ftree_reset(depth, m->g.n_sw);
	ftree_reset(want, m->g.n_sw);
	for (size_t s = 0; s < m->g.n_sw; s++)
		if (m->is_root[s]) {
			depth[s] = 0;
			m->queue[tail++] = (int)s;
		}
	ftree_bfs(m, depth, tail);
	rc = ftree_leaf_depths(m, depth, want);
	for (size_t s = 0; s < m->g.n_sw && !rc; s++) {
		int w = want[m->g.comp[s]];

		if (depth[s] < 0)
			continue;
		if (w >= 0 && depth[s] > w)
			return text_err(m->err, m->errlen, -EINVAL,
					"not a fat tree from the given roots: switch 0x%016" PRIx64
					" is %d hops below them, deeper than the leaves (%d)",
					swgraph_guid(&m->g, (int)s), depth[s], w);
		m->rank[s] = w >= 0 ? w - depth[s] : -1;
	}
	return rc;
}

/* Every cable must join two switches one rank apart. */
static int ftree_check_ranks(struct ftree *m)
{
	m->top_rank = 0;
	for (size_t s = 0; s < m->g.n_sw; s++) {
		if (m->rank[s] < 0)
			continue;
		if (m->rank[s] > FTREE_MAX_RANK)
			return text_err(m->err, m->errlen, -EINVAL,
					"not a fat tree: switch 0x%016" PRIx64
					" is %d hops above the nearest leaf (at most %d)",
					swgraph_guid(&m->g, (int)s), m->rank[s], FTREE_MAX_RANK);
		m->top_rank = m->rank[s] > m->top_rank ? m->rank[s] : m->top_rank;
		for (size_t e = m->g.adj_start[s]; e < m->g.adj_start[s + 1]; e++) {
			const struct swgraph_link *l = &m->g.adj[e];

			if (m->rank[l->sw] == m->rank[s])
				return text_err(m->err, m->errlen, -EINVAL,
						"not a fat tree: 0x%016" PRIx64
						"/%u - 0x%016" PRIx64
						"/%u links two switches of rank %d",
						swgraph_guid(&m->g, (int)s), l->port,
						swgraph_guid(&m->g, l->sw), l->rport, m->rank[s]);
		}
	}
	return 0;
}

/* Ranked switches sorted top rank first (a counting sort). */
static void ftree_sort_by_rank(struct ftree *m)
{
	m->n_ranked = 0;
	for (int r = m->top_rank; r >= 0; r--)
		for (size_t s = 0; s < m->g.n_sw; s++)
			if (m->rank[s] == r)
				m->order[m->n_ranked++] = (int)s;
}

int ftree_rank(struct ftree *m, const struct route_opts *opts)
{
	int rc;

	rc = ftree_mark_roots(m, opts);
	if (rc)
		return rc;
	if (m->g.n_sw && !ftree_rank_from_leaves(m))
		return text_err(m->err, m->errlen, -EINVAL,
				"not a fat tree: no leaf (no switch has a CA cabled)");
	rc = ftree_rank_from_roots(m);
	if (!rc)
		rc = ftree_check_ranks(m);
	if (!rc)
		ftree_sort_by_rank(m);
	return rc;
}

/* ---- Up and down links ------------------------------------------------- */

static int ftree_down_cmp(const void *a, const void *b)
{
	const struct swgraph_link *x = a, *y = b;

	if (x->sw != y->sw)
		return x->sw < y->sw ? -1 : 1;
	return (x->rport > y->rport) - (x->rport < y->rport);
}

/* Split each ranked switch's cables into up-links and down-links; a down
 * list is sorted by child, then the child's port, so parallel cables to one
 * child (a bundle) sit together in the order the child numbers them. */
static int ftree_split_links(struct ftree *m)
{
	size_t nu = 0, nd = 0;

	for (int pass = 0; pass < 2; pass++) {
		nu = nd = 0;
		for (size_t s = 0; s < m->g.n_sw; s++) {
			m->up_start[s] = nu;
			m->down_start[s] = nd;
			for (size_t e = m->g.adj_start[s];
			     e < m->g.adj_start[s + 1] && m->rank[s] >= 0; e++) {
				int up = m->rank[m->g.adj[e].sw] > m->rank[s];

				if (pass)
					*(up ? &m->up[nu] : &m->down[nd]) = m->g.adj[e];
				nu += (size_t)up;
				nd += (size_t)!up;
			}
		}
		m->up_start[m->g.n_sw] = nu;
		m->down_start[m->g.n_sw] = nd;
		if (!pass) {
			free(m->up);
			free(m->down);
			free(m->up_load);
			m->up = malloc((nu ? nu : 1) * sizeof(*m->up));
			m->down = malloc((nd ? nd : 1) * sizeof(*m->down));
			m->up_load = calloc(nu ? nu : 1, sizeof(*m->up_load));
			if (!m->up || !m->down || !m->up_load)
				return -ENOMEM;
		}
	}
	for (size_t s = 0; s < m->g.n_sw; s++)
		qsort(&m->down[m->down_start[s]], m->down_start[s + 1] - m->down_start[s],
		      sizeof(*m->down), ftree_down_cmp);
	return 0;
}

/* Mark R for leaf (it and everything above it) with a new leaf_gen; R is
 * left in queue[0..n), and each switch of R above the leaf has its
 * down-links into R counted (n_ways, way_port).  Returns n. */
size_t ftree_climb(struct ftree *m, int leaf)
{
	size_t head = 0, tail = 0;

	m->in_reach[leaf] = ++m->leaf_gen;
	m->queue[tail++] = leaf;
	while (head < tail) {
		int s = m->queue[head++];

		for (size_t e = m->up_start[s]; e < m->up_start[s + 1]; e++) {
			int p = m->up[e].sw;

			if (m->in_reach[p] == m->leaf_gen) {
				m->n_ways[p]++;
				continue;
			}
			m->in_reach[p] = m->leaf_gen;
			m->n_ways[p] = 1;
			m->way_port[p] = m->up[e].rport;
			m->queue[tail++] = p;
		}
	}
	return tail;
}

/* Has leaf the same up-links (parents, in port order) as leaf p, both at
 * rank 0?  Then R is the same but for the leaves themselves. */
int ftree_sibling(const struct ftree *m, int p, int leaf)
{
	size_t a = m->up_start[leaf], b, n = m->up_start[leaf + 1] - a;

	if (p < 0 || p == leaf || m->rank[p] || m->rank[leaf] || !n ||
	    m->up_start[p + 1] - m->up_start[p] != n)
		return 0;
	b = m->up_start[p];
	for (size_t i = 0; i < n; i++)
		if (m->up[a + i].sw != m->up[b + i].sw)
			return 0;
	return 1;
}

/* From sibling p's R and up-hop counts to leaf's, where every switch had
 * an up-then-down route to p (so it has one to leaf): only the two leaves
 * change (in and out of R, u 0 and 1) and their parents' one way into R. */
void ftree_swap_leaf(struct ftree *m, int p, int leaf)
{
	size_t first = m->up_start[p], n = m->up_start[p + 1] - first;

	m->in_reach[p] = m->leaf_gen - 1;
	m->in_reach[leaf] = m->leaf_gen;
	m->u[leaf] = 0;
	m->u[p] = 1;
	m->n_ways[p] = (uint8_t)n; /* every parent is in R */
	m->way_port[p] = m->up[first].port;
	for (size_t e = m->up_start[leaf]; e < m->up_start[leaf + 1]; e++)
		m->way_port[m->up[e].sw] = m->up[e].rport;
}

/* How many leaves each switch reaches going down, and the most that any
 * switch at or above it reaches: main paths climb toward coverage. */
static void ftree_count_reach(struct ftree *m)
{
	memset(m->reach, 0, (m->g.n_sw ? m->g.n_sw : 1) * sizeof(*m->reach));
	for (size_t s = 0; s < m->g.n_sw; s++) {
		size_t n = m->g.has_ca[s] ? ftree_climb(m, (int)s) : 0;

		for (size_t q = 0; q < n; q++)
			m->reach[m->queue[q]]++;
	}
	for (size_t q = 0; q < m->n_ranked; q++) {
		int s = m->order[q];

		m->top_reach[s] = m->reach[s];
		for (size_t e = m->up_start[s]; e < m->up_start[s + 1]; e++)
			if (m->top_reach[m->up[e].sw] > m->top_reach[s])
				m->top_reach[s] = m->top_reach[m->up[e].sw];
	}
}

int ftree_is_root(const struct ftree *m, size_t s)
{
	return m->rank[s] >= 0 && m->up_start[s] == m->up_start[s + 1];
}

/* Can root s be a leaf whose CAs are all gone?  Such a leaf sits two ranks
 * above the leaves next to it, where a root would; it is taken for one
 * when it has no CA, rank 2, only rank-1 neighbours, and sees under half
 * the leaves the best root of its component sees (best[comp]). */
static int ftree_hostless_leaf(const struct ftree *m, size_t s, const int *best)
{
	if (!ftree_is_root(m, s) || m->g.has_ca[s] || m->rank[s] != 2 ||
	    (int64_t)m->reach[s] * 2 >= best[m->g.comp[s]])
		return 0;
	for (size_t e = m->g.adj_start[s]; e < m->g.adj_start[s + 1]; e++)
		if (m->rank[m->g.adj[e].sw] != 1)
			return 0;
	return 1;
}

/* Take such roots down to rank 0 (not where the given roots rank the
 * component).  Returns how many. */
static size_t ftree_demote_hostless(struct ftree *m)
{
	int *best = m->dist;
	size_t n = 0;

	for (size_t c = 0; c < m->g.n_sw; c++)
		best[c] = 0;
	for (size_t s = 0; s < m->g.n_sw; s++) {
		int *b = &best[m->g.comp[s]];

		if (!ftree_is_root(m, s))
			continue;
		if (m->is_root[s])
			*b = -1;
		else if (*b >= 0 && (int)m->reach[s] > *b)
			*b = (int)m->reach[s];
	}
	for (size_t s = 0; s < m->g.n_sw; s++)
		if (ftree_hostless_leaf(m, s, best)) {
			m->rank[s] = 0;
			n++;
		}
	return n;
}

/* The up-port numbers in use per component and rank (see ftree_slots). */
static int ftree_mark_slots(struct ftree *m)
{
	m->slots =
	    calloc((m->g.n_comp ? m->g.n_comp : 1) * (size_t)(m->top_rank + 1), FTREE_SLOT_BYTES);
	m->diverted = calloc(m->g.port_base[m->g.n_sw] + 1, sizeof(*m->diverted));
	if (!m->slots || !m->diverted)
		return text_err(m->err, m->errlen, -ENOMEM, "out of memory routing %zu switches",
				m->g.n_sw);
	for (size_t q = 0; q < m->n_ranked; q++) {
		int s = m->order[q];
		uint8_t *slot = &m->slots[((size_t)m->g.comp[s] * (size_t)(m->top_rank + 1) +
					   (size_t)m->rank[s]) *
					  FTREE_SLOT_BYTES];

		for (size_t e = m->up_start[s]; e < m->up_start[s + 1]; e++)
			slot[m->up[e].port / 8] |= (uint8_t)(1u << (m->up[e].port % 8));
	}
	return 0;
}

/* The port of every up- and down-link, in list order (a switch's choices
 * when all its links qualify), and the up-ports of a switch whose up-links
 * leave by consecutive ports. */
static int ftree_list_ports(struct ftree *m)
{
	size_t nu = m->up_start[m->g.n_sw], nd = m->down_start[m->g.n_sw];

	m->up_port = malloc(nu ? nu : 1);
	m->down_port = malloc(nd ? nd : 1);
	m->up_lo = calloc(m->g.n_sw + 1, 1);
	m->up_n = calloc(m->g.n_sw + 1, 1);
	if (!m->up_port || !m->down_port || !m->up_lo || !m->up_n)
		return -ENOMEM;
	for (size_t s = 0; s < m->g.n_sw; s++) {
		size_t first = m->up_start[s], n = m->up_start[s + 1] - first, run = 0;

		/* the up list is in port order: a run of consecutive ports? */
		while (run < n && m->up[first + run].port == m->up[first].port + run)
			run++;
		if (n && run == n && n <= UINT8_MAX) {
			m->up_lo[s] = m->up[first].port;
			m->up_n[s] = (uint8_t)n;
		}
	}
	for (size_t e = 0; e < nu; e++)
		m->up_port[e] = m->up[e].port;
	for (size_t e = 0; e < nd; e++)
		m->down_port[e] = m->down[e].port;
	return 0;
}

/* Up and down links and what each switch sees below it; when a root turns
 * out to be a leaf without CAs, once more with it at rank 0. */
int ftree_shape(struct ftree *m)
{
	for (int round = 0; round < 2; round++) {
		if (ftree_split_links(m))
			return text_err(m->err, m->errlen, -ENOMEM,
					"out of memory routing %zu switches", m->g.n_sw);
		ftree_count_reach(m);
		if (round || !ftree_demote_hostless(m))
			break;
		ftree_sort_by_rank(m);
	}
	if (ftree_list_ports(m))
		return text_err(m->err, m->errlen, -ENOMEM, "out of memory routing %zu switches",
				m->g.n_sw);
	return ftree_mark_slots(m);
}
