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

 * Order.  Leaves are numbered by their least way down from a root (the
 * ports of the switches on the way, read from the top), then as a
 * breadth-first walk down from the roots (in fabric order, ports in number
 * order) meets them, so the leaves of one pod are numbered together and a
 * missing cable moves none to the end (ftree_order.c); CA LIDs in leaf
 * order, then leaf-port order.
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
 * cable carried do not all land on one neighbour); a leaf first takes the
 * link it would send the fewest of the LIDs around t out of (a shift
 * all-to-all sends its CAs' flows to LIDs in a row; ftree_column.c), and
 * a rank-1 switch the link it would send the fewest of its pod's flows
 * to the LIDs around t out of (for a LID of another column, the busier of
 * that and the main paths in a row on the core's link down into t's pod).
 * A leaf whose choice would carry FTREE_DETOUR_CROWD such flows may
 * instead detour t up to a parent with no up-then-down route (below)
 * whose way to its exit avoids the leaf
 * (an exit beyond the parent's own only for more than that many): t
 * then takes that exit's turn, taken for t anyway.  A leaf with fewer
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
 * before any CA LID, and keep the parent chosen then.  Where the ports
 * offer 2 data VLs or more, a CA LID's turns may ride another VL (up to
 * FTREE_VLS, SL = VL), with a graph of turns of its own: the one where
 * its turns are all allowed without moving it, tried in order.  When
 * every table is written, the VLs the tables' own channel dependencies do
 * not need are emptied (ftree_vlmerge.c: SLs only).  A switch
 * of I no exit can serve takes a shortest path to L, counted in the note
 * (the gate decides).  Leaf pairs with no common ancestor are counted in the
 * note.
 *
 * Switch LIDs are routed the same way without a main path: up then down
 * from wherever that is possible.  LIDs are checked as minhop does: above
 * max_lid (-ERANGE) or owned twice (-EINVAL) is an error, unreachable LIDs
 * are LFT_DROP.
 *
 * Cost: O(leaves x (switches + cables)) for R and u, O(LIDs x switches)
 * for the entries, which are gathered 64 LIDs at a time and written out
 * table by table (column writes across thousands of tables thrash caches;
 * ftree_row.c).  The fill is planned once per leaf: a switch going down
 * with one choice has the same entry for all the leaf's LIDs (it starts
 * in each row), one going up that takes the main path's column is
 * written per rank from a mask, and only the others are looked at switch
 * by switch for each LID.
 * On a degraded tree R and u once more per switch (its exits are planned
 * first), and a search of the turns taken for each new turn (ftree_turns.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "routing/ftree_priv.h"

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
	m->dest_col = malloc(m->lids.n ? m->lids.n : 1);
	m->dest_col1 = malloc(m->lids.n ? m->lids.n : 1);
	m->in_reach = calloc(s, sizeof(*m->in_reach));
	m->u = malloc(s);
	m->kind = malloc(s);
	m->fill = malloc(s * sizeof(*m->fill));
	m->cand_start = malloc(s * sizeof(*m->cand_start));
	m->cand_n = malloc(s);
	m->cand_port = malloc(links);
	m->rr = calloc(s, 1);
	m->cand_nx = calloc(s, 1);
	m->n_ways = calloc(s, 1);
	m->way_port = calloc(s, 1);
	m->via = malloc(s * sizeof(*m->via));
	m->det_sw = malloc(s * sizeof(*m->det_sw));
	m->det_alt = malloc(s);
	m->done = calloc(s, sizeof(*m->done));
	m->stack = malloc(s * sizeof(*m->stack));
	m->batch = malloc(FTREE_BATCH * s);
	m->exits = malloc(s * sizeof(*m->exits));
	m->xport = malloc(s);
	m->row_save = malloc(2 * s);
	m->xmark = calloc(s, sizeof(*m->xmark));
	m->cmark = calloc(s, sizeof(*m->cmark));
	m->cq = malloc(s * sizeof(*m->cq));
	m->sw_exit_start = calloc(s + 1, sizeof(*m->sw_exit_start));
	if (!m->dests || !m->dest_col || !m->dest_col1 || !m->in_reach || !m->u || !m->kind ||
	    !m->fill || !m->cand_start || !m->cand_n || !m->cand_port || !m->rr || !m->done ||
	    !m->stack || !m->batch || !m->exits || !m->xport || !m->xmark || !m->cmark || !m->cq ||
	    !m->sw_exit_start || !m->row_save || !m->cand_nx || !m->det_sw || !m->det_alt ||
	    !m->n_ways || !m->way_port || !m->via || ftree_exit_alloc_vls(m, s))
		return -ENOMEM;
	return 0;
}

static void ftree_free(struct ftree *m)
{
	ftree_exit_free_vls(m); /* back to VL 0: m->exits, m->xport */
	ftree_bounce_free(m);

	void *bufs[] = {m->is_root,  m->rank,	       m->order,    m->up_start,  m->down_start,
			m->up,	     m->down,	       m->up_load,  m->reach,	  m->top_reach,
			m->leaf_pos, m->dests,	       m->in_reach, m->u,	  m->kind,
			m->fill,     m->cand_start,    m->cand_n,   m->cand_port, m->rr,
			m->done,     m->stack,	       m->dist,	    m->queue,	  m->bfs_port,
			m->batch,    m->exits,	       m->xport,    m->xmark,	  m->cmark,
			m->cq,	     m->sw_exit_start, m->sw_exits, m->hub,	  m->cand,
			m->slots,    m->diverted,      m->row_save, m->dest_col,  m->dest_col1,
			m->cand_nx,  m->det_sw,	       m->det_alt,  m->n_ways,	  m->way_port,
			m->up_port,  m->down_port,     m->via,	    m->up_lo,	  m->up_n,
			m->nb};

	ftree_moved_fini(m);
	ftree_row_fini(m);
	swgraph_fini(&m->g);
	ftree_turns_fini(&m->turns);
	swgraph_dests_fini(&m->lids);
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		free(bufs[i]);
}

/* ---- CA LIDs in leaf order --------------------------------------------- */

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
	m->nomem |= ftree_number_leaves(m) != 0;
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
 * FTREE_INF where R is not above; for each switch outside R with u
 * finite, its up-links to a parent one up-hop nearer R are counted on the
 * way (n_ways, way_port). */
void ftree_hop_counts(struct ftree *m, int leaf, size_t n_reach)
{
	/* in locals: a store through n_ways may alias anything, which would
	 * reload the struct's fields for every cable */
	uint8_t *u = m->u, *n_ways = m->n_ways, *way_port = m->way_port;
	const struct swgraph_link *down = m->down;
	const size_t *down_start = m->down_start;
	const int *comp = m->g.comp;
	int *queue = m->queue;
	size_t head = 0, tail = n_reach;

	for (size_t q = 0; q < m->n_ranked; q++)
		if (comp[m->order[q]] == comp[leaf])
			u[m->order[q]] = FTREE_INF;
	for (size_t q = 0; q < n_reach; q++)
		u[queue[q]] = 0;
	while (head < tail) {
		int s = queue[head++];
		unsigned next = u[s] + 1u;

		for (size_t e = down_start[s]; e < down_start[s + 1]; e++) {
			int c = down[e].sw;

			if (u[c] != FTREE_INF) {
				n_ways[c] += u[c] == next;
				continue;
			}
			u[c] = (uint8_t)next;
			n_ways[c] = 1;
			way_port[c] = down[e].rport;
			queue[tail++] = c;
		}
	}
}

/* kind of every switch of the leaf's component, listed (the leaf itself
 * aside) in fill, top rank first.  Returns how many have no up-then-down
 * route. */
size_t ftree_kinds(struct ftree *m, int leaf)
{
	/* in locals: the byte stores below may alias the struct's fields */
	const int *order = m->order, *comp = m->g.comp, here = m->g.comp[leaf];
	const uint8_t *u = m->u;
	uint8_t *kind = m->kind;
	int *fill = m->fill;
	size_t n_any = 0, n_fill = 0, n_ranked = m->n_ranked;

	kind[leaf] = FTREE_DOWN;
	for (size_t q = 0; q < n_ranked; q++) {
		int s = order[q];

		if (comp[s] != here || s == leaf)
			continue;
		kind[s] = !u[s] ? FTREE_DOWN : u[s] == FTREE_INF ? FTREE_ANY : FTREE_UP;
		n_any += u[s] == FTREE_INF;
		fill[n_fill++] = s;
	}
	m->n_fill = n_fill;
	return n_any;
}

/* A leaf going up on a degraded tree: its ports up to parents with no
 * up-then-down route (written to port; returns how many, in cand_nx).  A
 * leaf whose choices would carry too many of its flows may send a LID
 * there instead, to the parent's exit (ftree_column.c). */
static size_t ftree_leaf_detours(struct ftree *m, int s, uint8_t *port)
{
	size_t k = 0;

	if (m->degraded && m->kind[s] == FTREE_UP && m->g.has_ca[s])
		for (size_t e = m->up_start[s]; e < m->up_start[s + 1]; e++)
			if (m->kind[m->up[e].sw] == FTREE_ANY)
				port[k++] = m->up[e].port;
	m->cand_nx[s] = (uint8_t)k;
	return k;
}

/* Is link e of s (a down-link when down, else an up-link) a choice of s:
 * into R going down, up to a parent one up-hop nearer R going up? */
static int ftree_is_way(const struct ftree *m, int s, int down, size_t e)
{
	return down ? m->in_reach[m->down[e].sw] == m->leaf_gen : m->u[m->up[e].sw] + 1u == m->u[s];
}

/* The choices of s (kind DOWN or UP) in link order, written to port;
 * returns how many (n_ways[s]).  Where its links all qualify, or one only
 * (n_ways, counted by ftree_climb and ftree_hop_counts), no link is looked
 * at. */
static size_t ftree_choices_of(const struct ftree *m, int s, uint8_t *port)
{
	int down = m->kind[s] == FTREE_DOWN;
	size_t first = down ? m->down_start[s] : m->up_start[s];
	size_t end = down ? m->down_start[s + 1] : m->up_start[s + 1], k = 0;

	if (m->n_ways[s] == 1) {
		port[0] = m->way_port[s];
		return 1;
	}
	if (m->n_ways[s] == end - first) {
		memcpy(port, &(down ? m->down_port : m->up_port)[first], end - first);
		return end - first;
	}
	for (size_t e = first; e < end; e++)
		if (ftree_is_way(m, s, down, e))
			port[k++] = down ? m->down[e].port : m->up[e].port;
	return k;
}

/* The i-th choice of s (i < n_ways[s]): what ftree_choices_of writes at
 * port[i], without the list. */
static uint8_t ftree_nth_choice(const struct ftree *m, int s, size_t i)
{
	int down = m->kind[s] == FTREE_DOWN;
	size_t first = down ? m->down_start[s] : m->up_start[s];
	size_t end = down ? m->down_start[s + 1] : m->up_start[s + 1];

	if (m->n_ways[s] == 1)
		return m->way_port[s];
	if (m->n_ways[s] == end - first)
		return (down ? m->down_port : m->up_port)[first + i];
	for (size_t e = first; e < end; e++)
		if (ftree_is_way(m, s, down, e) && !i--)
			return down ? m->down[e].port : m->up[e].port;
	return LFT_DROP;
}

/* The ports each switch may take when not handed a LID: into R going down,
 * or up to a parent one up-hop nearer R (a leaf's detours after them). */
static void ftree_leaf_choices(struct ftree *m)
{
	size_t k = 0;

	for (size_t q = 0; q < m->n_fill; q++) {
		int s = m->fill[q];

		m->cand_start[s] = k;
		if (m->kind[s] != FTREE_ANY)
			k += ftree_choices_of(m, s, &m->cand_port[k]);
		m->cand_n[s] = (uint8_t)(k - m->cand_start[s]);
		k += ftree_leaf_detours(m, s, &m->cand_port[k]);
	}
}

/* Get ready to route the LIDs behind leaf (CA LIDs when cas, else the
 * switch's own LIDs, "leaf" being any switch then, whose exits were
 * planned before the CA LIDs).  A leaf next to the one entered before
 * (same parents) takes its R and counts over with two leaves swapped. */
static void ftree_enter_leaf(struct ftree *m, int leaf, int cas)
{
	size_t n_any = SIZE_MAX;

	if (ftree_sibling(m, m->entered, leaf)) {
		ftree_swap_leaf(m, m->entered, leaf);
		n_any = ftree_kinds(m, leaf);
	}
	if (n_any) {
		ftree_hop_counts(m, leaf, ftree_climb(m, leaf));
		n_any = ftree_kinds(m, leaf);
	}
	m->entered = !n_any && !m->rank[leaf] ? leaf : -1;
	ftree_exit_use_vl(m, 0);
	m->n_exits = 0;
	m->planned = 1;
	m->leaf_stranded = 0;
	m->leaf_off_hub = 0;
	if (n_any) {
		if (cas)
			ftree_bounce_routes(m, leaf, 1);
		else
			m->nomem |= ftree_bounce_switch(m, leaf) != 0;
		if (cas && m->degraded) {
			int rc = ftree_plan_exits(m, 1);

			m->nomem |= rc < 0;
			m->leaf_stranded = rc > 0 ? (size_t)rc : 0;
			for (size_t i = 0; i < m->n_exits; i++)
				m->leaf_off_hub |= !m->hub[m->exits[i].x];
			if (m->n_vls < 2) /* else the leaf's LIDs take VL 1 */
				m->stranded += m->leaf_stranded;
		} else if (!cas) {
			size_t first = m->sw_exit_start[leaf];

			m->n_exits = m->sw_exit_start[leaf + 1] - first;
			if (m->n_exits)
				memcpy(m->exits, &m->sw_exits[first],
				       m->n_exits * sizeof(*m->exits));
			ftree_exit_routes(m);
		}
	}
	if (cas) /* a switch's LID: ftree_fill_switch_lid takes them one by one */
		ftree_leaf_choices(m);
}

/* ---- Routing one LID: main path, hand-down, the rest ------------------- */

/* c's up-link for a main path: among parents that see at least half the
 * leaves the best one sees, the link carrying the fewest main paths; ties
 * go to the first found scanning from position offset, or, when every
 * link carries one already (a leaf that lost up-links), from position
 * spread (the CA's port), so that the leaves' extra LIDs do not all pile
 * onto their first link. */
size_t ftree_pick_up(const struct ftree *m, int c, unsigned offset, unsigned spread)
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
 * and hands it on down.  Returns how many leaves (switches with CAs) were
 * handed it. */
static size_t ftree_hand_down(struct ftree *m, int top)
{
	/* in locals: the byte stores below may alias the struct's fields,
	 * which would reload them for every cable */
	const struct swgraph_link *down = m->down;
	const size_t *down_start = m->down_start;
	const uint32_t gen = m->dest_gen;
	const uint8_t *u = m->u, *bundle_at = m->bundle_at, *run = m->down_run,
		      *flags = m->hd_flags;
	const int *rank = m->rank;
	uint32_t *done = m->done;
	uint8_t *row = m->row;
	int *stack = m->stack;
	size_t sp = 0, leaves = 0;

	stack[sp++] = top;
	while (sp) {
		int x = stack[--sp];
		size_t end = down_start[x + 1];
		unsigned next_u = u[x] + 1u;
		int runs = flags[x] & FTREE_HD_RUNS;

		/* a switch one up-hop further from R than x (u >= 1) is not
		 * in R (u 0): no need to look at in_reach; without parallel
		 * links, the next link is the next child */
		for (size_t e = down_start[x]; e < end; e += runs ? run[e] : 1) {
			int c = down[e].sw;
			uint8_t f;

			if (u[c] != next_u || done[c] == gen)
				continue;
			row[c] = down[runs ? e + bundle_at[rank[c]] % run[e] : e].rport;
			done[c] = gen;
			f = flags[c];
			leaves += f & FTREE_HD_CA;
			if (f & FTREE_HD_DOWN)
				stack[sp++] = c;
		}
	}
	return leaves;
}

/* The LID rides VL vl > 0: SL vl (the table of SLs made the first time). */
static void ftree_set_sl(struct ftree *m, uint16_t lid, int vl)
{
	if (!m->out->sl && lft_set_alloc_sl(m->out, m->max_lid)) {
		m->nomem = 1;
		return;
	}
	m->out->sl[lid] = (uint8_t)vl;
	if (m->out->n_vls < vl + 1)
		m->out->n_vls = (uint8_t)(vl + 1);
}

/* The LID's turns on VL vl: its row as before the turns (saved), the
 * switches with no up-then-down route toward vl's exits.  Returns the
 * exits left without a turn. */
static size_t ftree_turn_on_vl(struct ftree *m, int vl, unsigned spread, size_t moved)
{
	m->nomem |= ftree_exit_select_vl(m, vl) != 0;
	memcpy(m->row, m->row_save, m->g.n_sw);
	m->moved = moved;
	for (size_t q = 0; q < m->n_fill; q++) {
		int s = m->fill[q];

		if (m->kind[s] == FTREE_ANY && m->done[s] != m->dest_gen)
			m->row[s] = ftree_any_port(m, s);
	}
	return ftree_turn_at_exits(m, spread);
}

/* The LID's turns on its first VL left an exit without one or moved the
 * LID off its parent at an exit (whose CAs then share a link): the other
 * VLs in turn, and the LID keeps the best (the fewest exits left without
 * a turn, then the fewest moved; the first on a tie).  Returns the exits
 * left without a turn. */
static size_t ftree_try_other_vls(struct ftree *m, unsigned spread, size_t moved, size_t stranded)
{
	uint8_t *best_row = m->row_save + m->g.n_sw;
	size_t best_moved = m->moved - moved, best_stranded = stranded;
	int best = m->vl, first = m->vl;

	memcpy(best_row, m->row, m->g.n_sw);
	for (int vl = 0; vl < (int)m->n_vls && (best_stranded || best_moved); vl++) {
		size_t s;

		if (vl == first || (!vl && m->leaf_stranded)) /* VL 0's exits leave a switch out */
			continue;
		s = ftree_turn_on_vl(m, vl, spread, moved);
		if (s < best_stranded || (s == best_stranded && m->moved - moved < best_moved)) {
			best = vl;
			best_stranded = s;
			best_moved = m->moved - moved;
			memcpy(best_row, m->row, m->g.n_sw);
		}
	}
	memcpy(m->row, best_row, m->g.n_sw);
	m->moved = moved + best_moved;
	ftree_exit_use_vl(m, best);
	return best_stranded;
}

/* A CA LID: its main path, the switches below it, the rest, the turns at
 * its exits.  Where the ports offer 2 data VLs or more, a LID rides VL 1
 * first (with turns of its own there) when its leaf's exits on VL 0 leave
 * a switch out or turn outside the hub (turns there can forbid others);
 * when its first VL cannot take all its turns, or moves the LID, the
 * other VLs are tried. */
static void ftree_route_dest(struct ftree *m, const struct ftree_dest *d)
{
	unsigned spread = (unsigned)d->exit_port + d->offset;
	int more = m->degraded && m->n_vls >= 2;
	size_t stranded, moved = m->moved, handed = 0;
	int top, strayed, fast;

	m->cur_dest = (size_t)(d - m->dests);
	ftree_begin_lid(m, d->lid, m->base_row);
	ftree_set(m, d->leaf, d->exit_port);
	top = ftree_main_path(m, d);
	fast = ftree_row_fast(m, top);
	for (int r = 1; r <= top; r++)
		handed += ftree_hand_down(m, m->path[r]);
	m->nomem |= ftree_exit_select_vl(m, more && (m->leaf_stranded || m->leaf_off_hub)) != 0;
	m->n_det = 0;
	if (fast) /* a leaf going up strays unless handed the LID */
		strayed = ftree_fill(m, m->slow, m->n_slow) | (handed < m->n_up_ca);
	else
		strayed = ftree_fill(m, m->fill, m->n_fill);
	m->rerouted += (size_t)strayed;
	/* the respread and the record of moves start from a leaf the fill
	 * routed: none on an intact tree (at 48K LIDs the two scans cost
	 * half a second for nothing) */
	if (strayed)
		ftree_mid_respread(m);
	if (more)
		memcpy(m->row_save, m->row, m->g.n_sw);
	stranded = ftree_turn_at_exits(m, spread);
	if ((stranded || m->moved > moved) && more)
		stranded = ftree_try_other_vls(m, spread, moved, stranded);
	ftree_detour_check(m);
	m->stranded += stranded;
	m->on_vl[m->vl]++;
	if (m->vl)
		ftree_set_sl(m, d->lid, m->vl);
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

	ftree_plan_columns(m);

	for (size_t i = 0; i < m->n_dests; i++) {
		if (m->dests[i].leaf != leaf) {
			ftree_row_leave(m);
			leaf = m->dests[i].leaf;
			ftree_enter_leaf(m, leaf, 1);
			ftree_row_plan(m);
			if (!m->dests[i].offset)
				ftree_count_downup(m, leaf);
		}
		ftree_route_dest(m, &m->dests[i]);
	}
	ftree_row_leave(m);
}

/* ---- Switch LIDs ------------------------------------------------------ */

/* A switch's LID: every other switch takes its next choice (round-robin
 * over them, as ftree_fill does with the lists ftree_leaf_choices makes
 * for CA LIDs: n_ways[s] of them, and no main path), or its way to an
 * exit. */
static void ftree_fill_switch_lid(struct ftree *m)
{
	for (size_t q = 0; q < m->n_fill; q++) {
		int s = m->fill[q];
		uint8_t i;

		if (m->kind[s] == FTREE_ANY) {
			m->row[s] = ftree_any_port(m, s);
			continue;
		}
		i = m->rr[s] < m->n_ways[s] ? m->rr[s] : 0;
		m->rr[s] = (uint8_t)(i + 1);
		m->row[s] = ftree_nth_choice(m, s, i);
	}
}

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
			ftree_begin_lid(m, (uint16_t)lid, NULL);
			ftree_set(m, (int)s, 0);
			m->n_columns = 0;
			if (m->rank[s] >= 0)
				ftree_fill_switch_lid(m);
			else
				ftree_route_island(m, (int)s);
			for (size_t i = 0; i < m->n_exits; i++)
				m->row[m->exits[i].x] = m->exits[i].up_port;
		}
	}
	ftree_flush(m);
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
			  .max_lid = opts->max_lid,
			  .entered = -1,
			  .data_vls = fabric_min_data_vls(f, NULL, NULL)};
	int rc;

	m.note->text[0] = '\0';
	m.n_vls = m.data_vls < FTREE_VLS ? m.data_vls : FTREE_VLS;
	rc = route_opts_check(opts, err, errlen);
	if (rc)
		return rc;
	rc = ftree_prepare(&m, opts);
	if (!rc)
		rc = ftree_shape(&m);
	if (!rc && (ftree_row_init(&m) || ftree_neighbour_init(&m) || ftree_prepare_turns(&m) ||
		    ftree_plan_switch_exits(&m)))
		rc = text_err(err, errlen, -ENOMEM, "out of memory routing %zu switches", m.g.n_sw);
	if (!rc) {
		ftree_order_dests(&m);
		ftree_route_cas(&m);
		ftree_route_switches(&m);
		m.nomem |= ftree_merge_vls(&m) != 0;
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
