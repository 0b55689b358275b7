/*
 * ftree_column.c - ftree's columns where a switch lost some: the up-port a
 * LID's main path took at a rank is its column; a switch that may not take
 * it spreads the lost columns' LIDs over its live up-links (d-mod-k), and
 * a leaf picks the link it would send the fewest of the LIDs around the
 * current one out of.  Part of the ftree engine (routing/ftree.c has the
 * DOC).
 */
#include <string.h>

#include "routing/ftree_priv.h"

/* The column (leaf up-port) each CA LID's main path will take, ahead of
 * routing them: the leaves that lost a column look at the LIDs after the
 * current one too.  The main paths' loads start from zero again. */
void ftree_plan_columns(struct ftree *m)
{
	size_t leaves = 0;

	for (size_t s = 0; s < m->g.n_sw; s++)
		leaves += m->g.has_ca[s] && m->rank[s] == 0;
	m->cas_per_leaf = leaves ? (m->n_dests + leaves - 1) / leaves : 0;
	for (size_t i = 0; i < m->n_dests; i++) {
		const struct ftree_dest *d = &m->dests[i];
		size_t e;
		int mid;

		m->dest_col[i] = m->dest_col1[i] = LFT_DROP;
		if (m->up_start[d->leaf] == m->up_start[d->leaf + 1])
			continue;
		e = ftree_pick_up(m, d->leaf, d->offset, d->exit_port);
		m->up_load[e]++;
		m->dest_col[i] = m->up[e].port;
		mid = m->up[e].sw;
		if (m->up_start[mid] == m->up_start[mid + 1])
			continue;
		e = ftree_pick_up(m, mid, d->offset, d->exit_port);
		m->up_load[e]++;
		m->dest_col1[i] = m->up[e].port;
	}
	memset(m->up_load, 0,
	       (m->up_start[m->g.n_sw] ? m->up_start[m->g.n_sw] : 1) * sizeof(*m->up_load));
	m->nomem |= ftree_moved_init(m) != 0;
}

/* The up-port numbers any switch of s's rank (in its component) uses: a
 * bitmap over ports. */
static const uint8_t *ftree_slots(const struct ftree *m, int s)
{
	return &m->slots[((size_t)m->g.comp[s] * (size_t)(m->top_rank + 1) + (size_t)m->rank[s]) *
			 FTREE_SLOT_BYTES];
}

/* How many up-port numbers switches of s's rank use (s's columns). */
static size_t ftree_slot_count(const struct ftree *m, int s)
{
	const uint8_t *slot = ftree_slots(m, s);
	size_t n = 0;

	for (size_t b = 0; b < FTREE_SLOT_BYTES; b++)
		n += (size_t)__builtin_popcount(slot[b]);
	return n;
}

/* Of s's choices, the one the fewest LIDs were sent to in place of their
 * own column, from choice `from` on; counted.  With crowd (per port), the
 * least crowded first; with moved (per port, a rank-1 switch's), then
 * the one whose core's link down other switches moved the fewest LIDs
 * to in the same shifts (ftree_moved_depth). */
static uint8_t ftree_least_diverted(struct ftree *m, int s, size_t from, const uint8_t *crowd,
				    const uint8_t *moved)
{
	size_t first = m->cand_start[s], n = m->cand_n[s], best = first + from;
	uint32_t *load = &m->diverted[m->g.port_base[s]];

	for (size_t i = 1; i < n; i++) {
		size_t c = first + (from + i) % n;
		uint8_t pc = m->cand_port[c], pb = m->cand_port[best];

		if (crowd && crowd[pc] != crowd[pb]   ? crowd[pc] < crowd[pb]
		    : moved && moved[pc] != moved[pb] ? moved[pc] < moved[pb]
						      : load[pc] < load[pb])
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

/* Switch s's entry for dest j < cur_dest: in the batch when routed since
 * the last flush (CA LIDs are routed in CA order, one row each). */
static uint8_t ftree_dest_entry(const struct ftree *m, int s, size_t j)
{
	size_t k = m->cur_dest - j;

	if (k < m->n_batch)
		return m->batch[(m->n_batch - 1 - k) * m->g.n_sw + (size_t)s];
	return m->out->tables[s].port[m->dests[j].lid];
}

/* Leaf s's port for dest j: its entry when routed already, else the
 * column of its main path when s may take it, else LFT_DROP. */
static uint8_t ftree_port_for(const struct ftree *m, int s, size_t j)
{
	if (j < m->cur_dest)
		return ftree_dest_entry(m, s, j);
	return ftree_is_choice(m, s, m->dest_col[j]) ? m->dest_col[j] : LFT_DROP;
}

/* Switch s's port (by port_of) for the LIDs around the current one, in
 * CA order (round, as a shift all-to-all takes them) and of its LMC
 * offset: window - 1 on each side, the current one in the middle
 * (LFT_DROP: not known). */
static void ftree_ports_around(const struct ftree *m, int s, size_t window, uint8_t *around,
			       uint8_t (*port_of)(const struct ftree *, int, size_t))
{
	size_t n = m->n_dests, cur = m->cur_dest;

	memset(around, LFT_DROP, 2 * window - 1);
	for (size_t k = 1; k < window && 2 * k < n; k++) {
		size_t before = (cur + n - k) % n, after = (cur + k) % n;

		if (m->dests[before].offset == m->dests[cur].offset)
			around[window - 1 - k] = port_of(m, s, before);
		if (m->dests[after].offset == m->dests[cur].offset)
			around[window - 1 + k] = port_of(m, s, after);
	}
}

/* For each port p, 1 + the most times p appears in `window` entries in a
 * row of around[0 .. 2 * window - 1) (every such window holds the middle
 * one), at most 255: slid one by one, a part of a window (the first
 * steps) counting no more than the window. */
static void ftree_slide(const uint8_t *around, size_t window, uint8_t *most)
{
	uint16_t count[FABRIC_MAX_PORTS + 1] = {0};

	memset(most, 1, FABRIC_MAX_PORTS + 1);
	for (size_t k = 0; k + 1 < 2 * window; k++) {
		uint8_t in = around[k];

		if (k >= window && around[k - window] <= FABRIC_MAX_PORTS)
			count[around[k - window]]--;
		if (in > FABRIC_MAX_PORTS)
			continue;
		if (++count[in] + 1u > most[in])
			most[in] =
			    (uint8_t)(count[in] + 1u < UINT8_MAX ? count[in] + 1u : UINT8_MAX);
	}
}

/* For each port, the most LIDs leaf s would send out of it among `window`
 * in a row that hold the current one, were the current one to take it:
 * a shift all-to-all sends from s's CAs to that many LIDs in a row. */
static void ftree_crowding(const struct ftree *m, int s, size_t window, uint8_t *crowd)
{
	uint8_t around[2 * FABRIC_MAX_PORTS + 1], most[FABRIC_MAX_PORTS + 1];

	if (window > FABRIC_MAX_PORTS)
		window = FABRIC_MAX_PORTS;
	ftree_ports_around(m, s, window, around, ftree_port_for);
	ftree_slide(around, window, most);
	memset(crowd, 0, FABRIC_MAX_PORTS + 1);
	for (size_t i = 0; i < (size_t)m->cand_n[s] + m->cand_nx[s]; i++) {
		uint8_t pn = m->cand_port[m->cand_start[s] + i];

		crowd[pn] = most[pn];
	}
}

/* The column of a rank-1 switch s: the leaf port its children reach it by. */
static uint8_t ftree_mid_column(const struct ftree *m, int s)
{
	return m->down[m->down_start[s]].rport;
}

/* Is the current LID of rank-1 switch s's column? */
static int ftree_mid_native(const struct ftree *m, int s)
{
	return m->dest_col[m->cur_dest] == ftree_mid_column(m, s);
}

/* Rank-1 switch s's port for dest j of its column (LFT_DROP: not known):
 * routed already, its entry; not yet, the port j's main path will take
 * at rank 1 (planned) when s has it. */
static uint8_t ftree_mid_port(const struct ftree *m, int s, size_t j, int routed)
{
	int up;

	if (routed)
		return ftree_dest_entry(m, s, j);
	if (m->dest_col1[j] == LFT_DROP)
		return LFT_DROP;
	up = ftree_neighbour(m, s, m->dest_col1[j]);
	return up >= 0 && m->rank[up] > m->rank[s] ? m->dest_col1[j] : LFT_DROP;
}

/* Did leaf c lose a column (fewer up-links than up-port numbers its rank
 * uses)?  Only such a leaf sends LIDs of other columns up as a rule. */
static int ftree_lost_column(const struct ftree *m, int c)
{
	return m->up_start[c + 1] - m->up_start[c] < ftree_slot_count(m, c);
}

/* The LIDs around the current one whose flows from below climb through
 * rank-1 switch s (window - 1 on each side, in CA order round the end, of
 * its LMC offset): s's port for each (LFT_DROP: none, or not known).
 * Those of s's column climb through it; of the others routed already,
 * those a child of s that lost a column sent up to it (child by child:
 * each table is read in LID order). */
struct ftree_pending {
	uint32_t j;
	uint16_t at;
};

static void ftree_mid_around(const struct ftree *m, int s, size_t window, uint8_t *around,
			     struct ftree_pending *pend)
{
	size_t cur = m->cur_dest, n = m->n_dests, n_pend = 0;
	uint8_t col = ftree_mid_column(m, s);

	memset(around, LFT_DROP, 2 * window);
	for (size_t k = 1; k < window && 2 * k < n; k++)
		for (int side = 0; side < 2; side++) {
			size_t j = side ? (cur + k) % n : (cur + n - k) % n;
			size_t at = side ? window - 1 + k : window - 1 - k;
			int routed = side ? cur + k >= n : k <= cur;

			if (m->dests[j].offset != m->dests[cur].offset)
				continue;
			if (m->dest_col[j] == col)
				around[at] = ftree_mid_port(m, s, j, routed);
			else if (routed)
				pend[n_pend++] = (struct ftree_pending){(uint32_t)j, (uint16_t)at};
		}
	for (size_t e = m->down_start[s]; e < m->down_start[s + 1]; e++)
		for (size_t i = 0, lost = ftree_lost_column(m, m->down[e].sw); lost && i < n_pend;
		     i++)
			if (around[pend[i].at] == LFT_DROP &&
			    ftree_dest_entry(m, m->down[e].sw, pend[i].j) == m->down[e].rport)
				around[pend[i].at] = ftree_dest_entry(m, s, pend[i].j);
}

/* The LIDs in a row of the CAs below rank-1 switch s: from its first
 * leaf to its last in leaf order, leaves it lost a cable to included (a
 * shift all-to-all sends from all their CAs in a row), at least 1, at
 * most FTREE_MID_WINDOW. */
static size_t ftree_mid_window(const struct ftree *m, int s)
{
	int lo = -1, hi = -1;
	size_t window;

	for (size_t e = m->down_start[s]; e < m->down_start[s + 1]; e++) {
		int c = m->down[e].sw;

		if (!m->g.has_ca[c])
			continue;
		lo = lo < 0 || m->leaf_pos[c] < lo ? m->leaf_pos[c] : lo;
		hi = m->leaf_pos[c] > hi ? m->leaf_pos[c] : hi;
	}
	window = lo < 0 ? 1 : (size_t)(hi - lo + 1) * m->cas_per_leaf;
	return window < 1 ? 1 : window < FTREE_MID_WINDOW ? window : FTREE_MID_WINDOW;
}

/* For each port, the most flows rank-1 switch s would send out of it
 * were the current LID to take it, of a shift all-to-all from the CAs
 * below it: they send to as many LIDs in a row (windows that hold the
 * current one, slid one by one over around). */
static void ftree_mid_crowding(const struct ftree *m, int s, uint8_t *crowd)
{
	size_t window = ftree_mid_window(m, s);
	uint8_t around[2 * FTREE_MID_WINDOW];
	struct ftree_pending pend[2 * FTREE_MID_WINDOW];

	ftree_mid_around(m, s, window, around, pend);
	ftree_slide(around, window, crowd);
}

/* Rank-1 switch a's up-port that dest j's main path (planned) climbs
 * by, when it climbs through a; else LFT_DROP. */
static uint8_t ftree_main_port_at(const struct ftree *m, int a, size_t j)
{
	if (m->dest_col[j] == LFT_DROP || m->dest_col1[j] == LFT_DROP ||
	    ftree_neighbour(m, m->dests[j].leaf, m->dest_col[j]) != a)
		return LFT_DROP;
	return m->dest_col1[j];
}

/* For each up-port of rank-1 switch a (above the current LID's leaf),
 * 1 + the most main paths of the LIDs around the current one that come
 * down into a by it, among the LIDs in a row below a (a shift all-to-all
 * sends from as many CAs in a row to them). */
static void ftree_down_crowding(const struct ftree *m, int a, uint8_t *most)
{
	size_t window = ftree_mid_window(m, a);
	uint8_t around[2 * FTREE_MID_WINDOW];

	ftree_ports_around(m, a, window, around, ftree_main_port_at);
	ftree_slide(around, window, most);
}

/* For each choice of switch s going up, the flows of a shift all-to-all
 * the link down from that parent into the current LID's pod would carry
 * with the current one (ftree_down_crowding, the LIDs' main paths only;
 * 0: not known).  The parent has its entry for the LID already (the fill
 * goes top rank first). */
static void ftree_above_crowding(const struct ftree *m, int s, uint8_t *down)
{
	uint8_t most[FABRIC_MAX_PORTS + 1];
	int last = -1;

	memset(down, 0, FABRIC_MAX_PORTS + 1);
	for (size_t i = 0; i < m->cand_n[s]; i++) {
		uint8_t pn = m->cand_port[m->cand_start[s] + i];
		int c = ftree_neighbour(m, s, pn),
		    a = c < 0 ? -1 : ftree_neighbour(m, c, m->row[c]);

		if (a < 0 || m->rank[a] != 1 || m->rank[c] != 2)
			continue;
		if (a != last)
			ftree_down_crowding(m, a, most);
		last = a;
		for (size_t e = m->up_start[a]; e < m->up_start[a + 1]; e++)
			if (m->up[e].sw == c) {
				down[pn] = most[m->up[e].port];
				break;
			}
	}
}

/* For each choice of rank-1 switch s going up: ftree_moved_depth. */
static void ftree_moved_crowding(const struct ftree *m, int s, uint8_t *moved)
{
	memset(moved, 0, FABRIC_MAX_PORTS + 1);
	for (size_t i = 0; i < m->cand_n[s]; i++) {
		uint8_t pn = m->cand_port[m->cand_start[s] + i];
		unsigned d = ftree_moved_depth(m, s, pn);

		moved[pn] = (uint8_t)(d < UINT8_MAX ? d : UINT8_MAX);
	}
}

/* Is port x a better choice than y: fewer flows on the busier of its
 * links up and down (crowd, down), then fewer on both. */
static int ftree_less_crowded(const uint8_t *crowd, const uint8_t *down, const uint8_t *moved,
			      uint8_t x, uint8_t y)
{
	unsigned kx = crowd[x] > down[x] ? crowd[x] : down[x];
	unsigned ky = crowd[y] > down[y] ? crowd[y] : down[y];

	if (kx != ky)
		return kx < ky;
	if (crowd[x] + down[x] != crowd[y] + down[y])
		return crowd[x] + down[x] < crowd[y] + down[y];
	return moved[x] < moved[y];
}

/* After the fill: a LID of another column that a leaf sent up to a
 * rank-1 switch s not handed it keeps its port there unless another
 * choice of s carries fewer flows: of the pod's up that link, or, on a
 * 3-level tree, of the LIDs' main paths down from that core into the
 * LID's pod (the busier of the two; the least crowded, the first on a
 * tie).  Only then are such LIDs known to climb through s. */
void ftree_mid_respread(struct ftree *m)
{
	m->cgen++;
	for (size_t q = 0; q < m->n_fill; q++) {
		int s = m->fill[q], a;
		uint8_t crowd[FABRIC_MAX_PORTS + 1], down[FABRIC_MAX_PORTS + 1],
		    moved[FABRIC_MAX_PORTS + 1], best;

		if (!m->g.has_ca[s] || m->kind[s] != FTREE_UP || m->done[s] == m->dest_gen)
			continue;
		a = ftree_neighbour(m, s, m->row[s]);
		if (a < 0 || m->rank[a] != 1 || m->g.has_ca[a] || m->kind[a] != FTREE_UP ||
		    m->done[a] == m->dest_gen || m->cmark[a] == m->cgen || ftree_mid_native(m, a))
			continue;
		m->cmark[a] = m->cgen;
		ftree_mid_crowding(m, a, crowd);
		ftree_above_crowding(m, a, down);
		ftree_moved_crowding(m, a, moved);
		best = m->row[a];
		for (size_t i = 0; i < m->cand_n[a]; i++) {
			uint8_t pn = m->cand_port[m->cand_start[a] + i];

			if (ftree_less_crowded(crowd, down, moved, pn, best))
				best = pn;
		}
		m->row[a] = best;
	}
	ftree_moved_record(m);
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
static uint8_t ftree_column_pick(struct ftree *m, int s)
{
	size_t first = m->cand_start[s], n = m->cand_n[s];
	uint8_t want = m->column[m->rank[s]];

	const uint8_t *slot = ftree_slots(m, s);
	size_t lost = 0, before = 0, base = 0;
	uint8_t crowd[FABRIC_MAX_PORTS + 1], moved[FABRIC_MAX_PORTS + 1];

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
	/* a leaf: its CAs' flows to the LIDs in a row; a rank-1 switch, for
	 * a LID of its column: its pod's (others: ftree_mid_respread) */
	int pod = !m->g.has_ca[s] && m->rank[s] == 1 && ftree_mid_native(m, s);

	if (m->g.has_ca[s])
		ftree_crowding(m, s, n + lost, crowd);
	else if (pod)
		ftree_mid_crowding(m, s, crowd);
	if (pod)
		ftree_moved_crowding(m, s, moved);
	return ftree_least_diverted(m, s, lost ? (base + before * n / lost) % n : want % n,
				    m->g.has_ca[s] || pod ? crowd : NULL, pod ? moved : NULL);
}

/* Port pn of leaf s as a detour: up to a parent of kind ANY, whose way
 * to its exit (up, then down to a switch x with an up-then-down route,
 * which turns up there) does not pass s: the parent's own exit, or (far)
 * one further on (the exits' turns gather all such routes of the LID:
 * taken only where the leaf would crowd a link with more than
 * FTREE_DETOUR_CROWD flows).  One turn, at an exit whose turn
 * is taken for the LID anyway.  Not when s is an exit's x itself: the
 * routes turning up at s would turn a second time. */
static int ftree_detour_ok(const struct ftree *m, int s, uint8_t pn, int far)
{
	int c = ftree_neighbour(m, s, pn);

	for (size_t i = 0; i < m->n_exits; i++)
		if (m->exits[i].x == s)
			return 0;
	for (int hop = 0; hop <= 2 * FTREE_MAX_RANK && c >= 0; hop++) {
		if (c == s)
			return 0;
		if (m->kind[c] != FTREE_ANY)
			return hop == 1 || (hop > 1 && far);
		if (m->xport[c] == LFT_DROP)
			return 0;
		c = ftree_neighbour(m, c, m->xport[c]);
	}
	return 0;
}

/* Leaf s would send FTREE_DETOUR_CROWD or more of the flows of a shift
 * all-to-all out of port (its choice): a detour that carries fewer, the
 * least crowded, else port.  The detour is recorded (ftree_detour_check). */
static uint8_t ftree_detour(struct ftree *m, int s, uint8_t port)
{
	size_t first = m->cand_start[s] + m->cand_n[s];
	uint8_t crowd[FABRIC_MAX_PORTS + 1], best = LFT_DROP;

	ftree_crowding(m, s, ftree_slot_count(m, s), crowd);
	if (crowd[port] < FTREE_DETOUR_CROWD)
		return port;
	for (size_t i = 0; i < m->cand_nx[s]; i++) {
		uint8_t pn = m->cand_port[first + i];

		if (crowd[pn] < (best == LFT_DROP ? crowd[port] : crowd[best]) &&
		    ftree_detour_ok(m, s, pn, crowd[port] > FTREE_DETOUR_CROWD))
			best = pn;
	}
	if (best == LFT_DROP)
		return port;
	m->det_alt[s] = port;
	m->det_sw[m->n_det++] = s;
	return best;
}

uint8_t ftree_column_choice(struct ftree *m, int s)
{
	uint8_t port = ftree_column_pick(m, s);

	return m->cand_nx[s] ? ftree_detour(m, s, port) : port;
}

/* The LID's VL is chosen (its exits may have changed with it): a leaf
 * whose detour has no exit there any more takes its choice back. */
void ftree_detour_check(struct ftree *m)
{
	for (size_t i = 0; i < m->n_det; i++) {
		int s = m->det_sw[i];

		if (!ftree_detour_ok(m, s, m->row[s], 1))
			m->row[s] = m->det_alt[s];
	}
}
