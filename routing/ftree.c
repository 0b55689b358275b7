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
 * sends it, if in R, down a link into R (round-robin over the choices),
 * else up a link to a parent whose u is one less: every route is up then
 * down and as short as such a route can be.  Going up it keeps t's column
 * where it can (the up-port number t's main path took at its rank), and
 * spreads the columns it may not take over its choices, the one fewest
 * LIDs were moved to first (d-mod-k over the live links: the LIDs a dead
 * cable carried do not all land on one neighbour).  A leaf with fewer
 * live up-links than CAs starts the main paths of the CAs left over at
 * the CA's own port.  LIDs that some leaf could not reach
 * by their main tree are noted as "routed around" the missing links, which
 * are the unlinked ports of a switch with fewer up-links than most of its
 * rank (in its component) has, on ports its peers use for up-links.
 *
 * No up-then-down route.  Where cables are gone so that a switch s has no
 * ancestor in common with L (u infinite: the set I, upward closed), its
 * route must turn down then up once: down from a switch p of I into a
 * switch X outside I, then up from X along X's own route (a turn (p, X,
 * q), q the parent X sends to).  Such turns are the only ones that can
 * close a credit loop, and ftree_turns.h keeps them free of it: a turn
 * joins the roots above p to the roots above q, and no turn is taken that
 * closes a cycle among the roots.  For each destination ftree picks exits
 * (p, X) until every switch of I that needs a route (all of them for CA
 * LIDs: a switch's own traffic to a CA counts in the gate; the leaves for
 * a switch's LIDs) reaches one going up then down through I: an exit
 * whose turn is known already first, then the one with X fewest up-hops
 * from R.  The switches of I climb to a switch above an exit's p, descend
 * to it, and it sends the LID down to X.  For a CA LID, X keeps its own
 * d-mod-k port when that turn is allowed, else takes another parent one
 * up-hop nearer R whose turn is (X's own CAs then share a link down to L:
 * the price of a deadlock-free route).  The switch LIDs are planned first,
 * before any CA LID, and keep the parent chosen then.  A switch of I no
 * exit can serve takes a shortest path to L, counted in the note (the
 * gate decides).  Leaf pairs with no common ancestor are counted in the
 * note.
 *
 * Switch LIDs are routed the same way without a main path: up then down
 * from wherever that is possible.  LIDs are checked as minhop does: above
 * max_lid (-ERANGE) or owned twice (-EINVAL) is an error, unreachable LIDs
 * are LFT_DROP.
 *
 * Cost: O(leaves x (switches + cables)) for R and u, O(LIDs x switches)
 * for the entries, which are gathered 64 LIDs at a time and written out
 * table by table (column writes across thousands of tables thrash caches).
 * On a degraded tree R and u once more per switch (its exits are planned
 * first), and a search of the turns taken for each new turn (ftree_turns.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "routing/ftree_turns.h"
#include "routing/route.h"
#include "routing/swgraph.h"

#define FTREE_INF 0xFF	   /* u: no up-then-down route into R */
#define FTREE_MAX_RANK 62  /* keeps u below FTREE_INF and paths short */
#define FTREE_NOTE_LINKS 4 /* missing links named in the note */
#define FTREE_BATCH 64	   /* LIDs routed before their entries are written out */
#define FTREE_SLOT_BYTES ((FABRIC_MAX_PORTS + 8) / 8) /* a bitmap over ports */

/* A CA/router LID to route: the leaf it hangs off and the port there. */
struct ftree_dest {
	uint16_t lid;
	uint8_t exit_port;
	uint8_t offset; /* LID - base LID (LMC) */
	int leaf;	/* switch ordinal */
	int leaf_pos;	/* the leaf's number in leaf order */
};

/* A candidate exit: p's down-link e, ranked by key (lower first). */
struct ftree_cand {
	int p;
	size_t e;
	uint32_t key;
};

/* A way out for switches with no up-then-down route to a destination:
 * p (one of them) sends the LID down to x, which has one and turns up. */
struct ftree_exit {
	int p, x;
	uint8_t down_port; /* p's port to x */
	uint8_t up_port;   /* switch LIDs: x's port up (planned); CA LIDs: per LID */
};

/* How a switch routes the current leaf's LIDs when no main path hands
 * them to it. */
enum ftree_kind {
	FTREE_DOWN, /* in R: down a link into R */
	FTREE_UP,   /* up a link to a parent one up-hop nearer R */
	FTREE_ANY,  /* no up-then-down route: to an exit (else a shortest path) */
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
	uint8_t *slots;		   /* per component and rank: up-port numbers in use */
	uint32_t *diverted;	   /* per switch port: LIDs sent there off their column */
	int *leaf_pos;
	/* CA LIDs: as claimed, then in leaf order */
	struct swgraph_dests lids;
	struct ftree_dest *dests;
	size_t n_dests;
	/* the leaf being routed */
	uint32_t leaf_gen, *in_reach; /* in_reach[s] == leaf_gen: s is in R */
	uint8_t *u, *kind;
	int *fill; /* switches of the leaf's component but the leaf */
	size_t n_fill;
	size_t *cand_start;
	uint8_t *cand_n, *cand_port, *rr;
	/* the LID being routed */
	uint32_t dest_gen, *done; /* done[s] == dest_gen: s has its entry */
	int path[FTREE_MAX_RANK + 2];
	uint8_t bundle_at[FTREE_MAX_RANK + 2]; /* main path's parallel-link index per rank */
	uint8_t column[FTREE_MAX_RANK + 2];    /* main path's up-port per rank */
	int n_columns;			       /* ranks below the main path's top */
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
	/* degraded trees: the down-up turns taken (only when some leaf does not
	 * see every root of its component), the current destination's exits
	 * and its switches' ways to them */
	int degraded, nomem;
	struct ftree_turns turns;
	uint8_t *hub; /* a leaf that sees every root of its component, and above it */
	struct ftree_cand *cand;
	struct ftree_exit *exits;
	size_t n_exits;
	uint8_t *xport;	       /* kind ANY: port toward an exit, LFT_DROP: none */
	uint32_t xgen, *xmark; /* xmark[s] == xgen: s has its way to an exit */
	uint32_t cgen, *cmark; /* cmark[s] == cgen: seen looking for an exit */
	int *cq;	       /* queue looking for an exit */
	size_t *sw_exit_start; /* switch LIDs: exits planned for switch s */
	struct ftree_exit *sw_exits;
	size_t n_sw_exits, cap_sw_exits;
	/* for the note */
	size_t rerouted, downup, unknown_roots, stranded, moved;
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
	m->batch = malloc(FTREE_BATCH * s);
	m->exits = malloc(s * sizeof(*m->exits));
	m->xport = malloc(s);
	m->xmark = calloc(s, sizeof(*m->xmark));
	m->cmark = calloc(s, sizeof(*m->cmark));
	m->cq = malloc(s * sizeof(*m->cq));
	m->sw_exit_start = calloc(s + 1, sizeof(*m->sw_exit_start));
	if (!m->dests || !m->in_reach || !m->u || !m->kind || !m->fill || !m->cand_start ||
	    !m->cand_n || !m->cand_port || !m->rr || !m->done || !m->stack || !m->batch ||
	    !m->exits || !m->xport || !m->xmark || !m->cmark || !m->cq || !m->sw_exit_start)
		return -ENOMEM;
	return 0;
}

static void ftree_free(struct ftree *m)
{
	void *bufs[] = {m->is_root,  m->rank,	       m->order,    m->up_start,  m->down_start,
			m->up,	     m->down,	       m->up_load,  m->reach,	  m->top_reach,
			m->leaf_pos, m->dests,	       m->in_reach, m->u,	  m->kind,
			m->fill,     m->cand_start,    m->cand_n,   m->cand_port, m->rr,
			m->done,     m->stack,	       m->dist,	    m->queue,	  m->bfs_port,
			m->batch,    m->exits,	       m->xport,    m->xmark,	  m->cmark,
			m->cq,	     m->sw_exit_start, m->sw_exits, m->hub,	  m->cand,
			m->slots,    m->diverted};

	swgraph_fini(&m->g);
	ftree_turns_fini(&m->turns);
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
	return ftree_mark_slots(m);
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

	m->kind[leaf] = FTREE_DOWN;
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

/* ---- Degraded trees: exits for switches with no up-then-down route --- */

/* Mark p and every switch above it (all of kind ANY) with xgen, queued in
 * cq from *tail. */
static void ftree_mark_above(struct ftree *m, int p, size_t *tail)
{
	size_t head = *tail;

	if (m->xmark[p] == m->xgen)
		return;
	m->xmark[p] = m->xgen;
	m->cq[(*tail)++] = p;
	while (head < *tail) {
		int s = m->cq[head++];

		for (size_t e = m->up_start[s]; e < m->up_start[s + 1]; e++) {
			int a = m->up[e].sw;

			if (m->xmark[a] == m->xgen || m->kind[a] != FTREE_ANY)
				continue;
			m->xmark[a] = m->xgen;
			m->cq[(*tail)++] = a;
		}
	}
}

/* A switch above some exit's p: its first port down to another such
 * switch (or to p itself).  There is one, and going down so ends at a p. */
static uint8_t ftree_port_toward_exit(const struct ftree *m, int s)
{
	for (size_t e = m->down_start[s]; e < m->down_start[s + 1]; e++)
		if (m->xmark[m->down[e].sw] == m->xgen)
			return m->down[e].port;
	return LFT_DROP;
}

/* The ways of the switches of kind ANY to the exits (xport): an exit's p
 * sends down to its x; a switch above a p descends toward one; a switch
 * below those (of kind ANY) climbs to the one that found it going down.
 * So every such route is up then down to an exit, and stays among the
 * switches of kind ANY until it turns there.  LFT_DROP: no exit so. */
static void ftree_exit_routes(struct ftree *m)
{
	size_t tail = 0;

	m->xgen++;
	for (size_t q = 0; q < m->n_fill; q++)
		m->xport[m->fill[q]] = LFT_DROP;
	for (size_t i = 0; i < m->n_exits; i++)
		if (m->xport[m->exits[i].p] == LFT_DROP)
			m->xport[m->exits[i].p] = m->exits[i].down_port;
	for (size_t i = 0; i < m->n_exits; i++)
		ftree_mark_above(m, m->exits[i].p, &tail);
	for (size_t q = 0; q < tail; q++)
		if (m->xport[m->cq[q]] == LFT_DROP)
			m->xport[m->cq[q]] = ftree_port_toward_exit(m, m->cq[q]);
	for (size_t head = 0; head < tail; head++) {
		int s = m->cq[head];

		for (size_t e = m->down_start[s]; e < m->down_start[s + 1]; e++) {
			int c = m->down[e].sw;

			if (m->kind[c] != FTREE_ANY || m->xmark[c] == m->xgen)
				continue;
			m->xmark[c] = m->xgen;
			m->xport[c] = m->down[e].rport;
			m->cq[tail++] = c;
		}
	}
}

/* x's first port up to a parent one up-hop nearer R, a turn into which
 * from p is known already (known) or allowed; LFT_DROP if there is none. */
static uint8_t ftree_turn_port(struct ftree *m, int p, int x, int known)
{
	for (size_t e = m->up_start[x]; e < m->up_start[x + 1]; e++) {
		const struct swgraph_link *l = &m->up[e];

		if (m->u[l->sw] + 1u != m->u[x])
			continue;
		if (known ? ftree_turns_has(&m->turns, p, x, l->sw)
			  : ftree_turns_allowed(&m->turns, p, x, l->sw))
			return l->port;
	}
	return LFT_DROP;
}

/* Switches of kind ANY reachable from s0 going up, then down (cq[0..n),
 * marked with cgen).  Returns n. */
static size_t ftree_exit_search(struct ftree *m, int s0)
{
	size_t head = 0, tail = 0;

	m->cgen++;
	m->cmark[s0] = m->cgen;
	m->cq[tail++] = s0;
	for (int down = 0; down < 2; down++, head = 0)
		while (head < tail) {
			int s = m->cq[head++];
			size_t e = down ? m->down_start[s] : m->up_start[s];
			size_t end = down ? m->down_start[s + 1] : m->up_start[s + 1];

			for (; e < end; e++) {
				int c = down ? m->down[e].sw : m->up[e].sw;

				if (m->kind[c] != FTREE_ANY || m->cmark[c] == m->cgen)
					continue;
				m->cmark[c] = m->cgen;
				m->cq[tail++] = c;
			}
		}
	return tail;
}

/* Rank a candidate exit (p, down-link e): a turn into a hub first (turns
 * there lead nowhere among themselves), then the fewest up-hops from x to
 * R, then the order found. */
static uint32_t ftree_exit_key(const struct ftree *m, int x, size_t found)
{
	return (uint32_t)!m->hub[x] << 30 | (uint32_t)m->u[x] << 22 |
	       (uint32_t)(found < (1u << 22) ? found : (1u << 22) - 1);
}

static int ftree_cand_cmp(const void *a, const void *b)
{
	const struct ftree_cand *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

/* The candidate exits from the switches of kind ANY found from s0 (up
 * then down): their down-links to switches with an up-then-down route,
 * sorted best first.  Returns how many. */
static size_t ftree_exit_cands(struct ftree *m, int s0)
{
	size_t n = ftree_exit_search(m, s0), k = 0;

	for (size_t i = 0; i < n; i++) {
		int p = m->cq[i];

		for (size_t e = m->down_start[p]; e < m->down_start[p + 1]; e++) {
			if (m->kind[m->down[e].sw] != FTREE_UP)
				continue;
			m->cand[k] = (struct ftree_cand){p, e, ftree_exit_key(m, m->down[e].sw, k)};
			k++;
		}
	}
	qsort(m->cand, k, sizeof(*m->cand), ftree_cand_cmp);
	return k;
}

/* Add an exit that s0 can reach: the best candidate whose turn is taken
 * already, else the best whose turn closes no credit loop.  A switch
 * LID's exit keeps the parent chosen now, and its turn is taken.
 * Returns 0, -1 when there is none, -ENOMEM. */
static int ftree_add_exit(struct ftree *m, int s0, int cas)
{
	size_t n = ftree_exit_cands(m, s0);
	struct ftree_exit pick = {.up_port = LFT_DROP};

	for (int known = 1; known >= 0 && pick.up_port == LFT_DROP; known--)
		for (size_t i = 0; i < n && pick.up_port == LFT_DROP; i++) {
			const struct swgraph_link *l = &m->down[m->cand[i].e];
			int p = m->cand[i].p;

			pick = (struct ftree_exit){p, l->sw, l->port,
						   ftree_turn_port(m, p, l->sw, known)};
		}
	if (pick.up_port == LFT_DROP)
		return -1;
	if (!cas &&
	    ftree_turns_take(&m->turns, pick.p, pick.x, ftree_neighbour(m, pick.x, pick.up_port)))
		return -ENOMEM;
	m->exits[m->n_exits++] = pick;
	return 0;
}

/* Exits until every switch of kind ANY that needs a route has one: all of
 * them for CA LIDs, the leaves for a switch's LIDs.  A switch no exit
 * serves is counted (it keeps a shortest path).  0 or -ENOMEM. */
static int ftree_plan_exits(struct ftree *m, int cas)
{
	m->n_exits = 0;
	ftree_exit_routes(m);
	for (size_t q = 0; q < m->n_fill; q++) {
		int s = m->fill[q], rc;

		if (m->kind[s] != FTREE_ANY || m->xport[s] != LFT_DROP || (!cas && !m->g.has_ca[s]))
			continue;
		rc = ftree_add_exit(m, s, cas);
		if (rc == -ENOMEM)
			return rc;
		if (rc == 0)
			ftree_exit_routes(m);
		else
			m->stranded++;
	}
	return 0;
}

/* Get ready to route the LIDs behind leaf (CA LIDs when cas, else the
 * switch's own LIDs, "leaf" being any switch then, whose exits were
 * planned before the CA LIDs). */
static void ftree_enter_leaf(struct ftree *m, int leaf, int cas)
{
	ftree_hop_counts(m, leaf, ftree_climb(m, leaf));
	m->n_exits = 0;
	if (ftree_kinds(m, leaf)) {
		ftree_bounce_routes(m, leaf, cas);
		if (cas && m->degraded) {
			m->nomem |= ftree_plan_exits(m, 1) != 0;
		} else if (!cas) {
			size_t first = m->sw_exit_start[leaf];

			m->n_exits = m->sw_exit_start[leaf + 1] - first;
			if (m->n_exits)
				memcpy(m->exits, &m->sw_exits[first],
				       m->n_exits * sizeof(*m->exits));
			ftree_exit_routes(m);
		}
	}
	ftree_leaf_choices(m);
}

/* Does some switch have two parents with a root above both (a diamond)?
 * Then turns are judged by their roots alone (see ftree_turns.h). */
static int ftree_has_diamond(const struct ftree *m)
{
	for (size_t s = 0; s < m->g.n_sw; s++)
		for (size_t a = m->up_start[s]; a < m->up_start[s + 1]; a++)
			for (size_t b = a + 1; b < m->up_start[s + 1]; b++)
				if (m->up[a].sw != m->up[b].sw &&
				    ftree_turns_common(&m->turns, m->up[a].sw, m->up[b].sw))
					return 1;
	return 0;
}

/* The hub of each component: the leaf that sees the most roots (the
 * first in switch order on a tie), and every switch above it.  Exits
 * prefer to turn there: a leaf's turns between its parents lead nowhere
 * among themselves, nor into the turns at its parents between theirs.
 * best, most: room for n_comp ints each. */
static void ftree_pick_hubs(struct ftree *m, int *best, int *most)
{
	for (size_t c = 0; c < m->g.n_comp; c++)
		best[c] = most[c] = -1;
	for (size_t s = 0; s < m->g.n_sw; s++) {
		int c = m->g.comp[s], n;

		if (!m->g.has_ca[s] || m->rank[s] != 0)
			continue;
		n = (int)ftree_turns_count_above(&m->turns, (int)s);
		if (n > most[c]) {
			most[c] = n;
			best[c] = (int)s;
		}
	}
	for (size_t c = 0; c < m->g.n_comp; c++)
		if (best[c] >= 0)
			m->hub[best[c]] = 1;
	for (size_t k = m->n_ranked; k-- > 0;) { /* bottom rank first: children first */
		int s = m->order[k];

		for (size_t e = m->up_start[s]; e < m->up_start[s + 1]; e++)
			m->hub[m->up[e].sw] |= m->hub[s];
	}
}

/* Which roots lie above each switch.  A tree is degraded when some leaf
 * does not see every root of its component: only then can a switch lack
 * an up-then-down route to a leaf, and only then are turns planned (the
 * bitsets are freed otherwise). */
static int ftree_prepare_turns(struct ftree *m)
{
	size_t n_roots = 0;
	uint64_t *all;
	int *id = m->dist;

	for (size_t s = 0; s < m->g.n_sw; s++)
		id[s] = ftree_is_root(m, s) ? (int)n_roots++ : -1;
	if (ftree_turns_init(&m->turns, m->g.n_sw, n_roots))
		return -ENOMEM;
	all = calloc((m->g.n_comp ? m->g.n_comp : 1) * m->turns.words, sizeof(*all));
	m->hub = calloc(m->g.n_sw ? m->g.n_sw : 1, 1);
	m->cand = malloc((m->down_start[m->g.n_sw] + 1) * sizeof(*m->cand));
	if (!all || !m->hub || !m->cand) {
		free(all);
		return -ENOMEM;
	}
	for (size_t q = 0; q < m->n_ranked; q++) {
		int s = m->order[q];

		if (id[s] >= 0) {
			ftree_turns_mark_root(&m->turns, s, (size_t)id[s]);
			all[(size_t)m->g.comp[s] * m->turns.words + (size_t)id[s] / 64] |=
			    1ULL << (id[s] % 64);
		}
		for (size_t e = m->up_start[s]; e < m->up_start[s + 1]; e++)
			ftree_turns_inherit(&m->turns, s, m->up[e].sw);
	}
	for (size_t s = 0; s < m->g.n_sw && !m->degraded; s++)
		m->degraded = m->g.has_ca[s] && m->rank[s] >= 0 &&
			      !ftree_turns_sees_all(&m->turns, (int)s,
						    &all[(size_t)m->g.comp[s] * m->turns.words]);
	if (m->degraded) {
		m->turns.diamond = ftree_has_diamond(m);
		ftree_pick_hubs(m, m->dist, m->queue);
	} else {
		ftree_turns_fini(&m->turns);
	}
	free(all);
	return 0;
}

/* The exits of every switch's own LIDs, planned before any CA LID: a
 * switch LID has little choice (into the switch's side of the tree),
 * a CA LID can still move its turn to another parent afterwards. */
static int ftree_plan_switch_exits(struct ftree *m)
{
	for (size_t s = 0; s < m->g.n_sw; s++) {
		m->sw_exit_start[s] = m->n_sw_exits;
		if (!m->degraded || m->rank[s] < 0 || !m->f->nodes[m->g.sw_node[s]].ports[0].lid)
			continue;
		ftree_hop_counts(m, (int)s, ftree_climb(m, (int)s));
		if (!ftree_kinds(m, (int)s))
			continue;
		if (ftree_plan_exits(m, 0) ||
		    TEXT_GROW(m->sw_exits, m->cap_sw_exits, m->n_sw_exits + m->n_exits, 64) < 0)
			return -ENOMEM;
		if (m->n_exits) /* m->exits is NULL until a first exit was planned */
			memcpy(&m->sw_exits[m->n_sw_exits], m->exits,
			       m->n_exits * sizeof(*m->exits));
		m->n_sw_exits += m->n_exits;
	}
	m->sw_exit_start[m->g.n_sw] = m->n_sw_exits;
	return 0;
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
 * go to the first found scanning from position offset, or, when every
 * link carries one already (a leaf that lost up-links), from position
 * spread (the CA's port), so that the leaves' extra LIDs do not all pile
 * onto their first link. */
static size_t ftree_pick_up(const struct ftree *m, int c, unsigned offset, unsigned spread)
{
	size_t first = m->up_start[c], n = m->up_start[c + 1] - first, best = SIZE_MAX;
	uint32_t most = 0;

	for (size_t i = 0; i < n; i++)
		if (m->top_reach[m->up[first + i].sw] > most)
			most = m->top_reach[m->up[first + i].sw];
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			size_t e = first + (i + offset) % n;

			if ((uint64_t)m->top_reach[m->up[e].sw] * 2 < most)
				continue;
			if (best == SIZE_MAX || m->up_load[e] < m->up_load[best])
				best = e;
		}
		/* every link taken already (more LIDs than live up-links): the
		 * LIDs left over start their scan at their own place */
		if (offset || best == SIZE_MAX || !m->up_load[best])
			break;
		offset = spread;
		best = SIZE_MAX;
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
		size_t e = ftree_pick_up(m, c, d->offset, d->exit_port);
		const struct swgraph_link *l = &m->up[e];

		m->up_load[e]++;
		m->bundle_at[r] = ftree_bundle_index(m, c, e);
		m->column[r] = l->port;
		ftree_set(m, l->sw, l->rport);
		c = l->sw;
		m->path[++r] = c;
	}
	m->n_columns = r;
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
			    m->u[c] != m->u[x] + 1u)
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

/* The up-port numbers any switch of s's rank (in its component) uses: a
 * bitmap over ports. */
static const uint8_t *ftree_slots(const struct ftree *m, int s)
{
	return &m->slots[((size_t)m->g.comp[s] * (size_t)(m->top_rank + 1) + (size_t)m->rank[s]) *
			 FTREE_SLOT_BYTES];
}

/* Of s's choices, the one the fewest LIDs were sent to in place of their
 * own column, from choice `from` on; counted. */
static uint8_t ftree_least_diverted(struct ftree *m, int s, size_t from)
{
	size_t first = m->cand_start[s], n = m->cand_n[s], best = first + from;
	uint32_t *load = &m->diverted[m->g.port_base[s]];

	for (size_t i = 1; i < n; i++) {
		size_t c = first + (from + i) % n;

		if (load[m->cand_port[c]] < load[m->cand_port[best]])
			best = c;
	}
	load[m->cand_port[best]]++;
	return m->cand_port[best];
}

static int ftree_is_choice(const struct ftree *m, int s, uint8_t pn)
{
	for (size_t i = 0; i < m->cand_n[s]; i++)
		if (m->cand_port[m->cand_start[s] + i] == pn)
			return 1;
	return 0;
}

/* A switch going up that was not handed the LID (its cable to the main
 * path's column is gone, or it lies below a switch that lost one): the
 * up-port the main path took at its rank when it may take it; the columns
 * (up-port numbers used at its rank) it may not take are spread evenly
 * over its choices (d-mod-k over the live links).  On the usual
 * cabling that keeps the LID in its column where it can (a leaf's k-th
 * up-port leads to the k-th middle switch, whose k-th up-port to the k-th
 * spine of its group), and spreads the columns it lost over distinct
 * others, so that few flows of a shift all-to-all share a link. */
static uint8_t ftree_column_choice(struct ftree *m, int s)
{
	size_t first = m->cand_start[s], n = m->cand_n[s];
	uint8_t want = m->column[m->rank[s]];

	const uint8_t *slot = ftree_slots(m, s);
	size_t lost = 0, before = 0, base = 0;

	for (size_t i = 0; i < n; i++)
		if (m->cand_port[first + i] == want)
			return want;
	/* want is column `before` of the `lost` that s may not take: spread
	 * those evenly over the choices, from the first one's place on */
	for (unsigned pn = 1; pn <= FABRIC_MAX_PORTS; pn++)
		if (slot[pn / 8] >> (pn % 8) & 1 && !ftree_is_choice(m, s, (uint8_t)pn)) {
			base = lost ? base : pn;
			before += pn < want;
			lost++;
		}
	return ftree_least_diverted(m, s, lost ? (base + before * n / lost) % n : want % n);
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
			port = m->xport[s] != LFT_DROP ? m->xport[s] : m->bfs_port[s];
		} else {
			port = m->kind[s] == FTREE_UP && m->rank[s] < m->n_columns
				   ? ftree_column_choice(m, s)
				   : ftree_next_choice(m, s);
			strayed |= m->kind[s] == FTREE_UP && m->g.has_ca[s];
		}
		m->row[s] = port;
	}
	return strayed;
}

/* x's port up to a parent one up-hop nearer R, a turn into which from p
 * is allowed, the one fewest LIDs were moved to first (scanning from
 * up-link `from` on); counted.  LFT_DROP if there is none. */
static uint8_t ftree_least_moved_port(struct ftree *m, int p, int x, size_t from)
{
	size_t first = m->up_start[x], n = m->up_start[x + 1] - first;
	uint32_t *load = &m->diverted[m->g.port_base[x]];
	uint8_t best = LFT_DROP;

	for (size_t i = 0; i < n; i++) {
		const struct swgraph_link *l = &m->up[first + (i + from) % n];

		if (m->u[l->sw] + 1u != m->u[x] ||
		    (best != LFT_DROP && load[l->port] >= load[best]) ||
		    !ftree_turns_allowed(&m->turns, p, x, l->sw))
			continue;
		best = l->port;
	}
	if (best != LFT_DROP)
		load[best]++;
	return best;
}

/* A CA LID's exits: each x keeps its own port up when the turn into it
 * closes no credit loop, else takes another parent one up-hop nearer R
 * (scanning from `spread` on, so that a leaf's LIDs move to different
 * parents) whose turn does.  The turn is
 * taken; an exit with none left is counted (the gate decides). */
static void ftree_turn_at_exits(struct ftree *m, unsigned spread)
{
	for (size_t i = 0; i < m->n_exits; i++) {
		const struct ftree_exit *e = &m->exits[i];
		uint8_t port = m->row[e->x];
		int q = ftree_neighbour(m, e->x, port);

		if (!ftree_turns_allowed(&m->turns, e->p, e->x, q)) {
			port = ftree_least_moved_port(m, e->p, e->x, spread);
			if (port == LFT_DROP) {
				m->stranded++;
				continue;
			}
			m->row[e->x] = port;
			m->moved++;
			q = ftree_neighbour(m, e->x, port);
		}
		m->nomem |= ftree_turns_take(&m->turns, e->p, e->x, q) != 0;
	}
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
	ftree_turn_at_exits(m, (unsigned)d->exit_port + d->offset);
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
			m->n_columns = 0;
			if (m->rank[s] >= 0)
				ftree_fill(m);
			else
				ftree_route_island(m, (int)s);
			for (size_t i = 0; i < m->n_exits; i++)
				m->row[m->exits[i].x] = m->exits[i].up_port;
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
	if (m->degraded)
		ftree_note(m,
			   "; down-up turns for switches with no up-then-down route: %zu kept "
			   "free of credit loops, %zu LID%s moved to another parent there",
			   m->turns.n_turns, m->moved, m->moved == 1 ? "" : "s");
	if (m->stranded)
		ftree_note(m, "; %zu route%s left on a shortest path that may close a credit loop",
			   m->stranded, m->stranded == 1 ? "" : "s");
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
	if (!rc && (ftree_prepare_turns(&m) || ftree_plan_switch_exits(&m)))
		rc = text_err(err, errlen, -ENOMEM, "out of memory routing %zu switches", m.g.n_sw);
	if (!rc) {
		ftree_order_dests(&m);
		ftree_route_cas(&m);
		ftree_route_switches(&m);
		ftree_write_note(&m);
		if (m.nomem)
			rc = text_err(err, errlen, -ENOMEM, "out of memory routing %zu switches",
				      m.g.n_sw);
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
