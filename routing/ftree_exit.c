/*
 * ftree_exit.c - ftree on a degraded tree: the exits (down-up turns) of
 * the switches that have no up-then-down route to a destination, planned
 * through routing/ftree_turns.h so that they close no credit loop.  Part
 * of the ftree engine (routing/ftree.c has the DOC).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "routing/ftree_priv.h"

/* The graph of turns of the VL the current exits are planned on. */
static struct ftree_turns *ftree_exit_turns(struct ftree *m)
{
	return m->vl ? &m->turns_hi[m->vl - 1] : &m->turns;
}

int ftree_neighbour(const struct ftree *m, int s, uint8_t pn)
{
	size_t at = m->g.port_base[s] + pn;

	return pn && at < m->g.port_base[s + 1] ? m->nb[at] : -1;
}

/* The switch behind each (switch, port) slot, -1 for none (a lost
 * column's port: no cable; a CA), read once from the fabric: the
 * degraded trees' column and exit code asks for it per LID and switch. */
int ftree_neighbour_init(struct ftree *m)
{
	m->nb = malloc((m->g.port_base[m->g.n_sw] + 1) * sizeof(*m->nb));
	if (!m->nb)
		return -ENOMEM;
	for (size_t s = 0; s < m->g.n_sw; s++) {
		const struct fabric_node *n = &m->f->nodes[m->g.sw_node[s]];

		for (unsigned pn = 0; pn <= n->num_ports; pn++) {
			int r = pn ? n->ports[pn].remote_node : FABRIC_NONE;

			m->nb[m->g.port_base[s] + pn] = r == FABRIC_NONE ? -1 : m->g.sw_of[r];
		}
	}
	return 0;
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
void ftree_exit_routes(struct ftree *m)
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
		if (known ? ftree_turns_has(ftree_exit_turns(m), p, x, l->sw)
			  : ftree_turns_allowed(ftree_exit_turns(m), p, x, l->sw))
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
	if (!cas && ftree_turns_take(ftree_exit_turns(m), pick.p, pick.x,
				     ftree_neighbour(m, pick.x, pick.up_port)))
		return -ENOMEM;
	m->exits[m->n_exits++] = pick;
	return 0;
}

/* Exits until every switch of kind ANY that needs a route has one: all of
 * them for CA LIDs, the leaves for a switch's LIDs.  Returns how many
 * switches no exit serves (they keep a shortest path), or -ENOMEM. */
int ftree_plan_exits(struct ftree *m, int cas)
{
	int stranded = 0;

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
			stranded++;
	}
	return stranded;
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
int ftree_prepare_turns(struct ftree *m)
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
int ftree_plan_switch_exits(struct ftree *m)
{
	int rc;

	for (size_t s = 0; s < m->g.n_sw; s++) {
		m->sw_exit_start[s] = m->n_sw_exits;
		if (!m->degraded || m->rank[s] < 0 || !m->f->nodes[m->g.sw_node[s]].ports[0].lid)
			continue;
		ftree_hop_counts(m, (int)s, ftree_climb(m, (int)s));
		if (!ftree_kinds(m, (int)s))
			continue;
		rc = ftree_plan_exits(m, 0);
		if (rc < 0 ||
		    TEXT_GROW(m->sw_exits, m->cap_sw_exits, m->n_sw_exits + m->n_exits, 64) < 0)
			return -ENOMEM;
		m->stranded += (size_t)rc;
		if (m->n_exits) /* m->exits is NULL until a first exit was planned */
			memcpy(&m->sw_exits[m->n_sw_exits], m->exits,
			       m->n_exits * sizeof(*m->exits));
		m->n_sw_exits += m->n_exits;
	}
	m->sw_exit_start[m->g.n_sw] = m->n_sw_exits;
	return 0;
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
		    !ftree_turns_allowed(ftree_exit_turns(m), p, x, l->sw))
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
 * parents) whose turn does.  The turn is taken.  Returns how many exits
 * had none left (their x keeps its port: the gate decides). */
size_t ftree_turn_at_exits(struct ftree *m, unsigned spread)
{
	struct ftree_turns *turns = ftree_exit_turns(m);
	size_t stranded = 0;

	for (size_t i = 0; i < m->n_exits; i++) {
		const struct ftree_exit *e = &m->exits[i];
		uint8_t port = m->row[e->x];
		int q = ftree_neighbour(m, e->x, port);

		if (!ftree_turns_allowed(turns, e->p, e->x, q)) {
			port = ftree_least_moved_port(m, e->p, e->x, spread);
			if (port == LFT_DROP) {
				stranded++;
				continue;
			}
			m->row[e->x] = port;
			m->moved++;
			q = ftree_neighbour(m, e->x, port);
		}
		m->nomem |= ftree_turns_take(turns, e->p, e->x, q) != 0;
	}
	return stranded;
}

/* ---- More VLs ---------------------------------------------------------- */

int ftree_exit_alloc_vls(struct ftree *m, size_t n_sw)
{
	m->exits_vl[0] = m->exits;
	m->xport_vl[0] = m->xport;
	for (int v = 1; v < FTREE_VLS; v++) {
		m->exits_vl[v] = malloc(n_sw * sizeof(*m->exits));
		m->xport_vl[v] = malloc(n_sw);
		if (!m->exits_vl[v] || !m->xport_vl[v])
			return -ENOMEM;
	}
	return 0;
}

void ftree_exit_free_vls(struct ftree *m)
{
	for (int v = 1; v < FTREE_VLS; v++) {
		free(m->exits_vl[v]);
		free(m->xport_vl[v]);
		ftree_turns_fini(&m->turns_hi[v - 1]);
	}
	/* VL 0's are m->exits and m->xport, when VL 0 is current */
	ftree_exit_use_vl(m, 0);
}

void ftree_exit_use_vl(struct ftree *m, int vl)
{
	if (m->vl == vl)
		return;
	m->n_exits_vl[m->vl] = m->n_exits;
	m->exits = m->exits_vl[vl];
	m->xport = m->xport_vl[vl];
	m->n_exits = m->n_exits_vl[vl];
	m->vl = vl;
}

int ftree_exit_select_vl(struct ftree *m, int vl)
{
	struct ftree_turns *turns = &m->turns_hi[vl ? vl - 1 : 0];
	int rc;

	ftree_exit_use_vl(m, vl);
	if (!vl || m->planned >> vl & 1)
		return 0;
	if (!turns->n_sw && ftree_turns_init_copy(turns, &m->turns))
		return -ENOMEM;
	m->planned |= 1u << vl;
	rc = ftree_plan_exits(m, 1);
	if (rc < 0)
		return rc;
	m->stranded += (size_t)rc;
	return 0;
}
