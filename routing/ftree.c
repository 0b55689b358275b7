/*
 * ftree.c - the "ftree" routing engine: fat-tree routing for 2- and 3-level
 * (or taller) fat trees, full, partially populated or degraded.  Reads a
 * const fabric, writes an lft_set; no I/O, no globals, no SM state.
 *
 * DOC: How it routes.
 *
 * Ranks.  A leaf is a switch with a CA or router cabled to it.  Ranks count
 * up from the leaves: a switch's rank is its distance in switch hops to the
 * nearest leaf, so leaves are rank 0 and the spines of a 3-level tree rank 2.
 * When opts->roots names switches, each component of the switch graph that
 * holds one is ranked from those roots down instead (rank = leaf depth -
 * depth below the roots); every leaf there must be at the same depth, and no
 * switch deeper.  An up-port leads one rank higher, a down-port one lower,
 * and a switch with no up-port is a root.  A cable joining two switches of
 * the same rank means the fabric is not a tree: -EINVAL, so the SM can fall
 * back to another engine.  Nothing else is required: a single switch, leaves
 * with few or no hosts, missing links and missing spines are all routed.
 * A leaf whose CAs are all gone sits two ranks above the leaves next to it,
 * where a root would; a root without CAs at rank 2, next to rank-1 switches
 * only, that sees under half the leaves its component's best root sees, is
 * put back at rank 0.  (In a 2-level tree such a leaf is the one root above
 * the spines - the same graph as a 3-level tree of one pod - and stays so;
 * routes are right either way.)

 * Order.  Leaves are numbered as a breadth-first walk down from the roots
 * (in fabric order, ports in number order) meets them, so the leaves of one
 * pod are numbered together; CA LIDs in leaf order, then leaf-port order.
 *
 * CA LIDs (d-mod-k).  Each CA LID t on leaf L gets a main path: from L up to
 * a root, each switch on the way takes the up-link (every parallel cable is
 * one) that carries the fewest main paths so far, the lowest port on a tie
 * (the scan starts LMC-offset ports further on for LIDs above the base).  In
 * CA order this spreads a leaf's CAs over distinct up-links, a pod's over
 * distinct links a rank higher, and so on: destination-mod-k.  The switches
 * of the main path send t down it.  Then each of them, lowest first, hands
 * t down to the switches below it not yet routed: they send t up the cable
 * to it (of parallel cables, the one with the index the main path used at
 * that rank) and hand it on down.  So every CA's traffic to t climbs until
 * it meets t's main path and descends from t's own top switch.  On a full
 * tree with as many up-links as CAs per leaf (and pod), each link down
 * carries the main path of one LID, a leaf's CAs under shift all-to-all (CA
 * i to CA i+s) send to consecutive CAs, which climb by distinct links: no
 * directed link carries two flows.  (That needs the usual cabling, where a
 * leaf's k-th up-port, by port number, leads to the same column of middle
 * switches in every pod.)  A parent that sees under half the leaves the
 * best parent sees is not taken for a main path.
 *
 * Degraded trees.  For the LIDs of leaf L, R is the set of switches that
 * reach L going down only (L and all above it), and u(s) the fewest
 * up-hops from s into R (breadth first down from R).  A switch not handed t
 * sends it, if in R, down a link into R, else up a link to a parent whose u
 * is one less (round-robin over the choices): every route is up then down
 * and as short as such a route can be.  LIDs that some leaf could not reach
 * by their main tree are noted as "routed around" the missing links, which
 * are the unlinked ports of a switch with fewer up-links than most of its
 * rank (in its component) has, on ports its peers use for up-links.
 *
 * No up-then-down route.  Where cables are gone so that a switch has no
 * ancestor in common with L (u infinite), its route must turn down then up
 * once.  It takes a shortest path to L; among equal ones, toward a CA LID
 * up-links first, so the turn comes late, next to L, and toward a switch
 * LID down-links first, so it comes early, next to the sending CA.  Either
 * way the turn is next to the CA end (where the cables are missing), and
 * the switch where it turns (a bounce point) keeps one parent for that
 * LID, the first in switch order: a CA's traffic to a switch and the
 * switch's answer turn at the same switch between the same two parents,
 * and a missing cable or two close no credit loop.  (Routes between CAs
 * that share an ancestor are up then down and close none.  Cables gone in
 * several places can still close one; the routing gate finds it.)  Leaf
 * pairs with no common ancestor are counted in the note.
 *
 * Switch LIDs are routed the same way without a main path: up then down
 * from wherever that is possible.  LIDs are checked as minhop does: above
 * max_lid (-ERANGE) or owned twice (-EINVAL) is an error, unreachable LIDs
 * are LFT_DROP.
 *
 * Cost: O(leaves x (switches + cables)) for R and u, O(LIDs x switches)
 * for the entries, which are gathered 64 LIDs at a time and written out
 * table by table (column writes across thousands of tables thrash caches).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "routing/route.h"
#include "routing/swgraph.h"

#define FTREE_INF 0xFF	   /* u: no up-then-down route into R */
#define FTREE_MAX_RANK 62  /* keeps u below FTREE_INF and paths short */
#define FTREE_NOTE_LINKS 4 /* missing links named in the note */
#define FTREE_BATCH 64	   /* LIDs routed before their entries are written out */

/* A CA/router LID to route: the leaf it hangs off and the port there. */
struct ftree_dest {
	uint16_t lid;
	uint8_t exit_port;
	uint8_t offset; /* LID - base LID (LMC) */
	int leaf;	/* switch ordinal */
	int leaf_pos;	/* the leaf's number in leaf order */
};

/* How a switch routes the current leaf's LIDs when no main path hands
 * them to it. */
enum ftree_kind {
	FTREE_DOWN, /* in R: down a link into R */
	FTREE_UP,   /* up a link to a parent one up-hop nearer R */
	FTREE_ANY,  /* no up-then-down route: a shortest path */
};

struct ftree {
	const struct fabric *f;
	struct route_note *note; /* the caller's, or a scratch one */
	char *err;		 /* the caller's error buffer */
	size_t errlen;
	struct lft_set *out;
	uint16_t max_lid;
	/* switches and cables; a switch with a CA cabled (g.has_ca) is a leaf */
	struct swgraph g;
	/* ranks */
	uint8_t *is_root; /* named in opts->roots */
	int *rank;	  /* 0 at the leaves, -1 unranked (no leaf below) */
	int *order;	  /* ranked switches, top rank first */
	size_t n_ranked;
	int top_rank;
	/* up and down links */
	size_t *up_start, *down_start;
	struct swgraph_link *up;   /* per switch by local port */
	struct swgraph_link *down; /* per switch by (child, child's port) */
	uint32_t *up_load;	   /* main paths descending each up-link */
	uint32_t *reach;	   /* leaves below each switch */
	uint32_t *top_reach;	   /* most leaves below any switch above (or at) it */
	int *leaf_pos;
	/* CA LIDs: as claimed, then in leaf order */
	struct swgraph_dests lids;
	struct ftree_dest *dests;
	size_t n_dests;
	/* the leaf being routed */
	uint32_t leaf_gen, *in_reach; /* in_reach[s] == leaf_gen: s is in R */
	uint32_t *pinned;	      /* pinned[s] == leaf_gen: s is a bounce point */
	uint8_t *u, *kind;
	int *fill; /* switches of the leaf's component but the leaf */
	size_t n_fill;
	size_t *cand_start;
	uint8_t *cand_n, *cand_port, *rr;
	/* the LID being routed */
	uint32_t dest_gen, *done; /* done[s] == dest_gen: s has its entry */
	int path[FTREE_MAX_RANK + 2];
	uint8_t bundle_at[FTREE_MAX_RANK + 2]; /* main path's parallel-link index per rank */
	int *stack;
	/* entries of the last LIDs routed, one row of n_sw per LID, written to
	 * the tables a batch at a time (switch by switch, so the writes to a
	 * table stay close together) */
	uint8_t *batch, *row;
	uint16_t batch_lid[FTREE_BATCH];
	size_t n_batch;
	/* breadth-first scratch */
	int *dist, *queue;
	uint8_t *bfs_port; /* port toward the switch that discovered it */
	/* for the note */
	size_t rerouted, downup, unknown_roots;
	int downup_from, downup_to;
	uint64_t unknown_root;
};

static void ftree_note(struct ftree *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Append to the note; a note cut short ends in "...". */
static void ftree_note(struct ftree *m, const char *fmt, ...)
{
	char *note = m->note->text;
	size_t size = sizeof(m->note->text), len = strlen(note);
	va_list ap;
	int n;

	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(note + len, size - len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= size - len)
		memcpy(note + size - 4, "...", 4);
}

/* ---- Setup ------------------------------------------------------------- */

static int ftree_alloc(struct ftree *m)
{
	size_t s = m->g.n_sw ? m->g.n_sw : 1;

	m->is_root = calloc(s, 1);
	m->rank = malloc(s * sizeof(*m->rank));
	m->order = malloc(s * sizeof(*m->order));
	m->up_start = calloc(s + 1, sizeof(*m->up_start));
	m->down_start = calloc(s + 1, sizeof(*m->down_start));
	m->reach = calloc(s, sizeof(*m->reach));
	m->top_reach = calloc(s, sizeof(*m->top_reach));
	m->leaf_pos = calloc(s, sizeof(*m->leaf_pos));
	m->dist = malloc(s * sizeof(*m->dist));
	m->queue = malloc(s * sizeof(*m->queue));
	m->bfs_port = malloc(s);
	if (!m->is_root || !m->rank || !m->order || !m->up_start || !m->down_start || !m->reach ||
	    !m->top_reach || !m->leaf_pos || !m->dist || !m->queue || !m->bfs_port)
		return -ENOMEM;
	return 0;
}

/* Scratch for routing leaf by leaf; the cable count bounds the choices. */
static int ftree_alloc_routing(struct ftree *m)
{
	size_t s = m->g.n_sw ? m->g.n_sw : 1, links = m->g.adj_start[m->g.n_sw] + 1;

	m->dests = malloc((m->lids.n ? m->lids.n : 1) * sizeof(*m->dests));
	m->in_reach = calloc(s, sizeof(*m->in_reach));
	m->u = malloc(s);
	m->kind = malloc(s);
	m->fill = malloc(s * sizeof(*m->fill));
	m->cand_start = malloc(s * sizeof(*m->cand_start));
	m->cand_n = malloc(s);
	m->cand_port = malloc(links);
	m->rr = calloc(s, 1);
	m->done = calloc(s, sizeof(*m->done));
	m->stack = malloc(s * sizeof(*m->stack));
	m->pinned = calloc(s, sizeof(*m->pinned));
	m->batch = malloc(FTREE_BATCH * s);
	if (!m->dests || !m->in_reach || !m->u || !m->kind || !m->fill || !m->cand_start ||
	    !m->cand_n || !m->cand_port || !m->rr || !m->done || !m->stack || !m->pinned ||
	    !m->batch)
		return -ENOMEM;
	return 0;
}

static void ftree_free(struct ftree *m)
{
	void *bufs[] = {m->is_root,   m->rank,	  m->order, m->up_start,  m->down_start, m->up,
			m->down,      m->up_load, m->reach, m->top_reach, m->leaf_pos,	 m->dests,
			m->in_reach,  m->u,	  m->kind,  m->fill,	  m->cand_start, m->cand_n,
			m->cand_port, m->rr,	  m->done,  m->stack,	  m->dist,	 m->queue,
			m->bfs_port,  m->pinned,  m->batch};

	swgraph_fini(&m->g);
	swgraph_dests_fini(&m->lids);
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		free(bufs[i]);
}

/* Breadth first over the switch graph from queue[0..tail) (dist 0; every
 * other dist -1).  bfs_port[s] is s's port toward the switch that found it.
 * Returns how many switches were queued, in the order found. */
static size_t ftree_bfs(struct ftree *m, int *dist, size_t tail)
{
	return swgraph_bfs(&m->g, m->queue, tail, dist, m->bfs_port);
}

static void ftree_reset(int *dist, size_t n)
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

static int ftree_rank(struct ftree *m, const struct route_opts *opts)
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
 * left in queue[0..n).  Returns n. */
static size_t ftree_climb(struct ftree *m, int leaf)
{
	size_t head = 0, tail = 0;

	m->in_reach[leaf] = ++m->leaf_gen;
	m->queue[tail++] = leaf;
	while (head < tail) {
		int s = m->queue[head++];

		for (size_t e = m->up_start[s]; e < m->up_start[s + 1]; e++) {
			int p = m->up[e].sw;

			if (m->in_reach[p] == m->leaf_gen)
				continue;
			m->in_reach[p] = m->leaf_gen;
			m->queue[tail++] = p;
		}
	}
	return tail;
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

static int ftree_is_root(const struct ftree *m, size_t s)
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

/* Up and down links and what each switch sees below it; when a root turns
 * out to be a leaf without CAs, once more with it at rank 0. */
static int ftree_shape(struct ftree *m)
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
	return 0;
}

/* ---- CA LIDs in leaf order --------------------------------------------- */

/* Number the leaves breadth first down from the roots. */
static void ftree_number_leaves(struct ftree *m)
{
	size_t tail = 0, n;
	int pos = 0;

	ftree_reset(m->dist, m->g.n_sw);
	for (size_t s = 0; s < m->g.n_sw; s++)
		if (ftree_is_root(m, s)) {
			m->dist[s] = 0;
			m->queue[tail++] = (int)s;
		}
	n = ftree_bfs(m, m->dist, tail);
	for (size_t q = 0; q < n; q++)
		if (m->g.has_ca[m->queue[q]])
			m->leaf_pos[m->queue[q]] = pos++;
}

static int ftree_dest_cmp(const void *a, const void *b)
{
	const struct ftree_dest *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (x->leaf_pos != y->leaf_pos)
		return x->leaf_pos < y->leaf_pos ? -1 : 1;
	if (x->exit_port != y->exit_port)
		return x->exit_port < y->exit_port ? -1 : 1;
	return (x->lid > y->lid) - (x->lid < y->lid);
}

/* Base LIDs of every CA in leaf, then port order; then each LMC offset. */
static void ftree_order_dests(struct ftree *m)
{
	ftree_number_leaves(m);
	for (size_t i = 0; i < m->lids.n; i++) {
		const struct swgraph_dest *d = &m->lids.v[i];

		m->dests[i] =
		    (struct ftree_dest){d->lid, d->exit_port, d->offset, d->sw, m->leaf_pos[d->sw]};
	}
	m->n_dests = m->lids.n;
	if (m->n_dests)
		qsort(m->dests, m->n_dests, sizeof(*m->dests), ftree_dest_cmp);
}

/* ---- Routing one leaf's LIDs: R, up-hops, choices ---------------------- */

/* u for every switch of the leaf's component: the down-hops from R,
 * breadth first down from R (left in queue[0..n_reach) by ftree_climb),
 * FTREE_INF where R is not above. */
static void ftree_hop_counts(struct ftree *m, int leaf, size_t n_reach)
{
	size_t head = 0, tail = n_reach;

	for (size_t q = 0; q < m->n_ranked; q++)
		if (m->g.comp[m->order[q]] == m->g.comp[leaf])
			m->u[m->order[q]] = FTREE_INF;
	for (size_t q = 0; q < n_reach; q++)
		m->u[m->queue[q]] = 0;
	while (head < tail) {
		int s = m->queue[head++];

		for (size_t e = m->down_start[s]; e < m->down_start[s + 1]; e++) {
			int c = m->down[e].sw;

			if (m->u[c] != FTREE_INF)
				continue;
			m->u[c] = (uint8_t)(m->u[s] + 1);
			m->queue[tail++] = c;
		}
	}
}

/* kind of every switch of the leaf's component, listed (the leaf itself
 * aside) in fill, top rank first.  Returns how many have no up-then-down
 * route. */
static size_t ftree_kinds(struct ftree *m, int leaf)
{
	size_t n_any = 0;

	m->n_fill = 0;
	for (size_t q = 0; q < m->n_ranked; q++) {
		int s = m->order[q];

		if (m->g.comp[s] != m->g.comp[leaf] || s == leaf)
			continue;
		m->kind[s] = !m->u[s] ? FTREE_DOWN : m->u[s] == FTREE_INF ? FTREE_ANY : FTREE_UP;
		n_any += m->u[s] == FTREE_INF;
		m->fill[m->n_fill++] = s;
	}
	return n_any;
}

/* A bounce point's one way up: to its first parent (in switch order) one
 * up-hop nearer R. */
static uint8_t ftree_first_parent(const struct ftree *m, int s)
{
	size_t best = SIZE_MAX;

	for (size_t e = m->up_start[s]; e < m->up_start[s + 1]; e++)
		if (m->u[m->up[e].sw] + 1u == m->u[s] &&
		    (best == SIZE_MAX || m->up[e].sw < m->up[best].sw))
			best = e;
	return m->up[best].port;
}

/* The ports each switch may take when not handed a LID: into R going down,
 * or up to a parent one up-hop nearer R. */
static void ftree_leaf_choices(struct ftree *m)
{
	size_t k = 0;

	for (size_t q = 0; q < m->n_fill; q++) {
		int s = m->fill[q];

		m->cand_start[s] = k;
		if (m->kind[s] == FTREE_DOWN) {
			for (size_t e = m->down_start[s]; e < m->down_start[s + 1]; e++)
				if (m->in_reach[m->down[e].sw] == m->leaf_gen)
					m->cand_port[k++] = m->down[e].port;
		} else if (m->pinned[s] == m->leaf_gen) {
			m->cand_port[k++] = ftree_first_parent(m, s);
		} else if (m->kind[s] == FTREE_UP) {
			for (size_t e = m->up_start[s]; e < m->up_start[s + 1]; e++)
				if (m->u[m->up[e].sw] + 1u == m->u[s])
					m->cand_port[k++] = m->up[e].port;
		}
		m->cand_n[s] = (uint8_t)(k - m->cand_start[s]);
	}
}

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
static void ftree_bounce_routes(struct ftree *m, int leaf, int up_first)
{
	swgraph_bfs_from(&m->g, leaf, m->queue, m->dist, m->bfs_port);
	for (size_t q = 0; q < m->n_fill; q++) {
		int s = m->fill[q];
		size_t best = SIZE_MAX;

		if (m->kind[s] != FTREE_ANY)
			continue;
		for (size_t e = m->g.adj_start[s]; e < m->g.adj_start[s + 1]; e++)
			if (m->dist[m->g.adj[e].sw] == m->dist[s] - 1 &&
			    ftree_better_hop(m, m->g.adj[e].sw,
					     best == SIZE_MAX ? -1 : m->g.adj[best].sw, up_first))
				best = e;
		m->bfs_port[s] = m->g.adj[best].port;
	}
}

/* The switch behind port pn of switch s. */
static int ftree_neighbour(const struct ftree *m, int s, uint8_t pn)
{
	return m->g.sw_of[m->f->nodes[m->g.sw_node[s]].ports[pn].remote_node];
}

/* Switches without an up-then-down route (u infinite) must turn down then
 * up once.  Where they enter the switches that have one, going down, the
 * switch entered (a bounce point) keeps a single parent for these LIDs,
 * the first in switch order.  With the turn next to the CA end of each
 * route, a CA's traffic to a switch and the switch's back turn at the same
 * switch between the same two parents, and a few missing cables close no
 * credit loop.  cas: the LIDs are CA LIDs (else a switch's). */
static void ftree_any_routes(struct ftree *m, int leaf, int cas)
{
	ftree_bounce_routes(m, leaf, cas);
	for (size_t q = 0; q < m->n_fill; q++) {
		int s = m->fill[q], b;

		if (m->kind[s] != FTREE_ANY)
			continue;
		b = ftree_neighbour(m, s, m->bfs_port[s]);
		if (m->kind[b] == FTREE_UP && b != leaf)
			m->pinned[b] = m->leaf_gen;
	}
}

/* Get ready to route the LIDs behind leaf (CA LIDs when cas, else the
 * switch's own LIDs, "leaf" being any switch then). */
static void ftree_enter_leaf(struct ftree *m, int leaf, int cas)
{
	ftree_hop_counts(m, leaf, ftree_climb(m, leaf));
	if (ftree_kinds(m, leaf))
		ftree_any_routes(m, leaf, cas);
	ftree_leaf_choices(m);
}

/* ---- Routing one LID: main path, hand-down, the rest ------------------- */

/* Write the batch out: table by table, its LIDs. */
static void ftree_flush(struct ftree *m)
{
	for (size_t s = 0; s < m->g.n_sw; s++) {
		uint8_t *port = m->out->tables[s].port;

		for (size_t i = 0; i < m->n_batch; i++)
			port[m->batch_lid[i]] = m->batch[i * m->g.n_sw + s];
	}
	m->n_batch = 0;
}

/* Start routing lid: a fresh row, every switch LFT_DROP, none done. */
static void ftree_begin_lid(struct ftree *m, uint16_t lid)
{
	if (m->n_batch == FTREE_BATCH)
		ftree_flush(m);
	m->row = &m->batch[m->n_batch * m->g.n_sw];
	memset(m->row, LFT_DROP, m->g.n_sw);
	m->batch_lid[m->n_batch++] = lid;
	m->dest_gen++;
}

static void ftree_set(struct ftree *m, int s, uint8_t port)
{
	m->row[s] = port;
	m->done[s] = m->dest_gen;
}

/* c's up-link for a main path: among parents that see at least half the
 * leaves the best one sees, the link carrying the fewest main paths; ties
 * go to the first found scanning from position offset. */
static size_t ftree_pick_up(const struct ftree *m, int c, unsigned offset)
{
	size_t first = m->up_start[c], n = m->up_start[c + 1] - first, best = SIZE_MAX;
	uint32_t most = 0;

	for (size_t i = 0; i < n; i++)
		if (m->top_reach[m->up[first + i].sw] > most)
			most = m->top_reach[m->up[first + i].sw];
	for (size_t i = 0; i < n; i++) {
		size_t e = first + (i + offset) % n;

		if ((uint64_t)m->top_reach[m->up[e].sw] * 2 < most)
			continue;
		if (best == SIZE_MAX || m->up_load[e] < m->up_load[best])
			best = e;
	}
	return best;
}

/* Index of up-link e among c's parallel links to the same parent. */
static uint8_t ftree_bundle_index(const struct ftree *m, int c, size_t e)
{
	uint8_t k = 0;

	for (size_t i = m->up_start[c]; i < e; i++)
		k += m->up[i].sw == m->up[e].sw;
	return k;
}

/* Climb from the leaf to a root; each switch on the way sends d down the
 * link it was reached by.  path[r] is the switch at rank r; returns the top
 * rank reached. */
static int ftree_main_path(struct ftree *m, const struct ftree_dest *d)
{
	int c = d->leaf, r = 0;

	m->path[0] = c;
	while (m->up_start[c] < m->up_start[c + 1]) {
		size_t e = ftree_pick_up(m, c, d->offset);
		const struct swgraph_link *l = &m->up[e];

		m->up_load[e]++;
		m->bundle_at[r] = ftree_bundle_index(m, c, e);
		ftree_set(m, l->sw, l->rport);
		c = l->sw;
		m->path[++r] = c;
	}
	return r;
}

/* top is on the main path: hand the LID to each switch below it not routed
 * yet, outside R and one up-hop further from R: it sends it up the cable it was
 * handed over (of a bundle, the one with the main path's index at its rank)
 * and hands it on down. */
static void ftree_hand_down(struct ftree *m, int top)
{
	size_t sp = 0;

	m->stack[sp++] = top;
	while (sp) {
		int x = m->stack[--sp];
		size_t e = m->down_start[x], end = m->down_start[x + 1];

		while (e < end) {
			int c = m->down[e].sw;
			size_t b = e;

			while (e < end && m->down[e].sw == c)
				e++;
			if (m->done[c] == m->dest_gen || m->in_reach[c] == m->leaf_gen ||
			    m->pinned[c] == m->leaf_gen || m->u[c] != m->u[x] + 1u)
				continue;
			ftree_set(m, c, m->down[b + m->bundle_at[m->rank[c]] % (e - b)].rport);
			m->stack[sp++] = c;
		}
	}
}

/* Round-robin over s's choices. */
static uint8_t ftree_next_choice(struct ftree *m, int s)
{
	uint8_t i = m->rr[s] < m->cand_n[s] ? m->rr[s] : 0;

	m->rr[s] = (uint8_t)(i + 1);
	return m->cand_port[m->cand_start[s] + i];
}

/* Every switch not handed the LID takes one of its choices.  Returns 1
 * when a leaf had to: its LID is routed around a missing link. */
static int ftree_fill(struct ftree *m)
{
	int strayed = 0;

	for (size_t q = 0; q < m->n_fill; q++) {
		int s = m->fill[q];
		uint8_t port;

		if (m->done[s] == m->dest_gen)
			continue;
		if (m->kind[s] == FTREE_ANY) {
			port = m->bfs_port[s];
		} else {
			port = ftree_next_choice(m, s);
			strayed |= m->kind[s] == FTREE_UP && m->g.has_ca[s];
		}
		m->row[s] = port;
	}
	return strayed;
}

static void ftree_route_dest(struct ftree *m, const struct ftree_dest *d)
{
	int top;

	ftree_begin_lid(m, d->lid);
	ftree_set(m, d->leaf, d->exit_port);
	top = ftree_main_path(m, d);
	for (int r = 1; r <= top; r++)
		ftree_hand_down(m, m->path[r]);
	m->rerouted += (size_t)ftree_fill(m);
}

/* For the note: leaves with no up-then-down route to the leaf's CAs. */
static void ftree_count_downup(struct ftree *m, int leaf)
{
	for (size_t q = 0; q < m->n_fill; q++) {
		int s = m->fill[q];

		if (m->kind[s] != FTREE_ANY || !m->g.has_ca[s] || m->downup++)
			continue;
		m->downup_from = s;
		m->downup_to = leaf;
	}
}

static void ftree_route_cas(struct ftree *m)
{
	int leaf = -1;

	for (size_t i = 0; i < m->n_dests; i++) {
		if (m->dests[i].leaf != leaf) {
			leaf = m->dests[i].leaf;
			ftree_enter_leaf(m, leaf, 1);
			if (!m->dests[i].offset)
				ftree_count_downup(m, leaf);
		}
		ftree_route_dest(m, &m->dests[i]);
	}
}

/* ---- Switch LIDs ------------------------------------------------------ */

/* A switch with no leaf connected: breadth first from it. */
static void ftree_route_island(struct ftree *m, int s)
{
	size_t n = swgraph_bfs_from(&m->g, s, m->queue, m->dist, m->bfs_port);

	for (size_t q = 1; q < n; q++)
		m->row[m->queue[q]] = m->bfs_port[m->queue[q]];
}

/* A switch's LIDs are routed like a CA's, minus the main path: up then
 * down where that is possible, else a shortest path, so CAs and switches
 * reach them without down-up turns wherever the tree allows. */
static void ftree_route_switches(struct ftree *m)
{
	for (size_t s = 0; s < m->g.n_sw; s++) {
		const struct fabric_port *p0 = &m->f->nodes[m->g.sw_node[s]].ports[0];
		unsigned count = fabric_port_lid_count(p0);

		if (!p0->lid)
			continue;
		if (m->rank[s] >= 0)
			ftree_enter_leaf(m, (int)s, 0);
		for (unsigned lid = p0->lid; lid < (unsigned)p0->lid + count; lid++) {
			ftree_begin_lid(m, (uint16_t)lid);
			ftree_set(m, (int)s, 0);
			if (m->rank[s] >= 0)
				ftree_fill(m);
			else
				ftree_route_island(m, (int)s);
		}
	}
	ftree_flush(m);
}

/* ---- The note ---------------------------------------------------------- */

/* The most common up-link count among switches of rank r in component c
 * (ties: larger), and in slot[] the ports any of them uses for up-links. */
static unsigned ftree_usual_ups(const struct ftree *m, int c, int r, uint8_t *slot)
{
	unsigned hist[FABRIC_MAX_PORTS + 1] = {0}, mode = 0;

	memset(slot, 0, FABRIC_MAX_PORTS + 1);
	for (size_t s = 0; s < m->g.n_sw; s++) {
		if (m->rank[s] != r || m->g.comp[s] != c)
			continue;
		hist[m->up_start[s + 1] - m->up_start[s]]++;
		for (size_t e = m->up_start[s]; e < m->up_start[s + 1]; e++)
			slot[m->up[e].port] = 1;
	}
	for (unsigned k = 1; k <= FABRIC_MAX_PORTS; k++)
		if (hist[k] >= hist[mode])
			mode = k;
	return mode;
}

/* Name the missing up-links of switch s: unlinked ports that its peers
 * use for up-links, up to the usual count.  Returns how many. */
static size_t ftree_missing_on(const struct ftree *m, int s, unsigned usual, const uint8_t *slot,
			       size_t missing, char (*names)[32])
{
	const struct fabric_node *n = &m->f->nodes[m->g.sw_node[s]];
	unsigned have = (unsigned)(m->up_start[s + 1] - m->up_start[s]);
	size_t found = 0;

	for (unsigned pn = 1; have < usual && pn <= n->num_ports; pn++) {
		if (n->ports[pn].remote_node != FABRIC_NONE || !slot[pn])
			continue;
		if (missing + found < FTREE_NOTE_LINKS)
			snprintf(names[missing + found], 32, "0x%016" PRIx64 "/%u", n->guid, pn);
		found++;
		have++;
	}
	return found;
}

/* Missing up-links: on switches with fewer than the usual number for their
 * rank (in their component), the unlinked ports their peers use for
 * up-links. */
static void ftree_note_missing(struct ftree *m)
{
	uint8_t slot[FABRIC_MAX_PORTS + 1];
	char names[FTREE_NOTE_LINKS][32];
	size_t missing = 0;

	for (int c = 0; c < (int)m->g.n_comp; c++)
		for (int r = 0; r <= m->top_rank; r++) {
			unsigned usual = ftree_usual_ups(m, c, r, slot);

			for (size_t s = 0; s < m->g.n_sw; s++)
				if (m->rank[s] == r && m->g.comp[s] == c)
					missing += ftree_missing_on(m, (int)s, usual, slot, missing,
								    names);
		}
	if (!missing)
		return;
	ftree_note(m, "; %zu up-link%s missing: ", missing, missing == 1 ? "" : "s");
	for (size_t i = 0; i < missing && i < FTREE_NOTE_LINKS; i++)
		ftree_note(m, "%s%s", i ? ", " : "", names[i]);
	ftree_note(m, "%s; %zu LID%s routed around them", missing > FTREE_NOTE_LINKS ? ", ..." : "",
		   m->rerouted, m->rerouted == 1 ? "" : "s");
}

static void ftree_write_note(struct ftree *m)
{
	size_t roots = 0, leaves = 0;

	for (size_t s = 0; s < m->g.n_sw; s++) {
		roots += (size_t)ftree_is_root(m, s);
		leaves += m->g.has_ca[s];
	}
	ftree_note(m, "ftree: %d rank%s, %zu root%s, %zu lea%s, %zu CA LID%s", m->top_rank + 1,
		   m->top_rank ? "s" : "", roots, roots == 1 ? "" : "s", leaves,
		   leaves == 1 ? "f" : "ves", m->n_dests, m->n_dests == 1 ? "" : "s");
	ftree_note_missing(m);
	if (m->downup)
		ftree_note(m,
			   "; %zu leaf pair%s without a common ancestor take a down-up route "
			   "(first 0x%016" PRIx64 " -> 0x%016" PRIx64 ")",
			   m->downup, m->downup == 1 ? "" : "s",
			   swgraph_guid(&m->g, m->downup_from), swgraph_guid(&m->g, m->downup_to));
	if (m->n_ranked < m->g.n_sw)
		ftree_note(m, "; %zu switch%s with no leaf connected: own LIDs only",
			   m->g.n_sw - m->n_ranked, m->g.n_sw - m->n_ranked == 1 ? "" : "es");
	if (m->unknown_roots)
		ftree_note(m, "; %zu given root%s not in the fabric (0x%016" PRIx64 ")",
			   m->unknown_roots, m->unknown_roots == 1 ? "" : "s", m->unknown_root);
}

/* ---- The engine -------------------------------------------------------- */

static int ftree_prepare(struct ftree *m, const struct route_opts *opts)
{
	int rc = lft_set_alloc(m->out, m->f, m->max_lid);

	if (!rc)
		rc = swgraph_init(&m->g, m->f, 0);
	if (!rc)
		rc = ftree_alloc(m);
	if (rc)
		return text_err(m->err, m->errlen, rc, "out of memory routing %zu switches",
				fabric_count_switches(m->f));
	/* the CA LIDs; a switch's own are routed after them, from port 0 */
	rc = swgraph_collect_dests(&m->g, m->max_lid, 0, &m->lids, m->err, m->errlen);
	if (!rc)
		rc = ftree_rank(m, opts);
	if (!rc && ftree_alloc_routing(m))
		rc = text_err(m->err, m->errlen, -ENOMEM, "out of memory routing %zu switches",
			      m->g.n_sw);
	return rc;
}

static int ftree_compute(const struct fabric *f, const struct route_opts *opts, struct lft_set *out,
			 struct route_note *note, char *err, size_t errlen)
{
	struct route_note scratch;
	struct ftree m = {.f = f,
			  .note = note ? note : &scratch,
			  .err = err,
			  .errlen = errlen,
			  .out = out,
			  .max_lid = opts->max_lid};
	int rc;

	m.note->text[0] = '\0';
	rc = route_opts_check(opts, err, errlen);
	if (rc)
		return rc;
	rc = ftree_prepare(&m, opts);
	if (!rc)
		rc = ftree_shape(&m);
	if (!rc) {
		ftree_order_dests(&m);
		ftree_route_cas(&m);
		ftree_route_switches(&m);
		ftree_write_note(&m);
	}
	ftree_free(&m);
	if (rc)
		lft_set_fini(out);
	return rc;
}

const struct route_engine route_engine_ftree = {
    .name = "ftree",
    .summary = "fat-tree d-mod-k routing, also on degraded and partially populated trees",
    .compute = ftree_compute,
};
