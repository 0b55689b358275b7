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
}

/* The up-port numbers any switch of s's rank (in its component) uses: a
 * bitmap over ports. */
static const uint8_t *ftree_slots(const struct ftree *m, int s)
{
	return &m->slots[((size_t)m->g.comp[s] * (size_t)(m->top_rank + 1) + (size_t)m->rank[s]) *
			 FTREE_SLOT_BYTES];
}

/* Of s's choices, the one the fewest LIDs were sent to in place of their
 * own column, from choice `from` on; counted.  With crowd (per port), the
 * least crowded first. */
static uint8_t ftree_least_diverted(struct ftree *m, int s, size_t from, const uint8_t *crowd)
{
	size_t first = m->cand_start[s], n = m->cand_n[s], best = first + from;
	uint32_t *load = &m->diverted[m->g.port_base[s]];

	for (size_t i = 1; i < n; i++) {
		size_t c = first + (from + i) % n;
		uint8_t pc = m->cand_port[c], pb = m->cand_port[best];

		if (crowd && crowd[pc] != crowd[pb] ? crowd[pc] < crowd[pb] : load[pc] < load[pb])
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

/* Leaf s's entry for a LID routed before (in the batch or written out). */
static uint8_t ftree_entry(const struct ftree *m, int s, uint16_t lid)
{
	for (size_t i = 0; i < m->n_batch; i++)
		if (m->batch_lid[i] == lid)
			return m->batch[i * m->g.n_sw + s];
	return m->out->tables[s].port[lid];
}

/* Leaf s's port for dest j: its entry when routed already, else the
 * column of its main path when s may take it, else LFT_DROP. */
static uint8_t ftree_port_for(const struct ftree *m, int s, size_t j)
{
	if (j < m->cur_dest)
		return ftree_entry(m, s, m->dests[j].lid);
	return ftree_is_choice(m, s, m->dest_col[j]) ? m->dest_col[j] : LFT_DROP;
}

/* Leaf s's port for the LIDs around the current one, in CA order (round,
 * as a shift all-to-all takes them) and of its LMC offset: window - 1 on
 * each side, the current one in the middle (LFT_DROP: not known). */
static void ftree_ports_around(const struct ftree *m, int s, size_t window, uint8_t *around)
{
	size_t n = m->n_dests, cur = m->cur_dest;

	memset(around, LFT_DROP, 2 * window - 1);
	for (size_t k = 1; k < window && 2 * k < n; k++) {
		size_t before = (cur + n - k) % n, after = (cur + k) % n;

		if (m->dests[before].offset == m->dests[cur].offset)
			around[window - 1 - k] = ftree_port_for(m, s, before);
		if (m->dests[after].offset == m->dests[cur].offset)
			around[window - 1 + k] = ftree_port_for(m, s, after);
	}
}

/* For each port, the most LIDs leaf s would send out of it among `window`
 * in a row that hold the current one, were the current one to take it:
 * a shift all-to-all sends from s's CAs to that many LIDs in a row. */
static void ftree_crowding(const struct ftree *m, int s, size_t window, uint8_t *crowd)
{
	uint8_t around[2 * FABRIC_MAX_PORTS + 1];

	if (window > FABRIC_MAX_PORTS)
		window = FABRIC_MAX_PORTS;
	ftree_ports_around(m, s, window, around);
	memset(crowd, 0, FABRIC_MAX_PORTS + 1);
	for (size_t i = 0; i < (size_t)m->cand_n[s] + m->cand_nx[s]; i++) {
		uint8_t pn = m->cand_port[m->cand_start[s] + i];

		for (size_t a = 0; a < window; a++) {
			uint8_t n = 1;

			for (size_t k = a; k < a + window; k++)
				n = (uint8_t)(n + (around[k] == pn));
			crowd[pn] = n > crowd[pn] ? n : crowd[pn];
		}
	}
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

/* Does some child of s send dest j (routed before the current one) up
 * to s? */
static int ftree_climbs_to(const struct ftree *m, int s, size_t j)
{
	for (size_t e = m->down_start[s]; e < m->down_start[s + 1]; e++)
		if (ftree_dest_entry(m, m->down[e].sw, j) == m->down[e].rport)
			return 1;
	return 0;
}

/* The column of a rank-1 switch s: the leaf port its children reach it by. */
static uint8_t ftree_mid_column(const struct ftree *m, int s)
{
	return m->down[m->down_start[s]].rport;
}

/* Rank-1 switch s's port for dest j, were j's flows from below to climb
 * through s (LFT_DROP: they do not, or not known): routed already, its
 * entry, for a LID of s's column or one a leaf below sent up to s; not
 * yet, for a LID of s's column, the port its main path will take at
 * rank 1 (planned) when s has it. */
static uint8_t ftree_mid_port(const struct ftree *m, int s, size_t j, int routed, uint8_t col)
{
	int up;

	if (routed)
		return m->dest_col[j] == col || ftree_climbs_to(m, s, j) ? ftree_dest_entry(m, s, j)
									 : LFT_DROP;
	if (m->dest_col[j] != col || m->dest_col1[j] == LFT_DROP)
		return LFT_DROP;
	up = ftree_neighbour(m, s, m->dest_col1[j]);
	return up >= 0 && m->rank[up] > m->rank[s] ? m->dest_col1[j] : LFT_DROP;
}

/* For each port, the most flows a rank-1 switch s would send out of it
 * were the current LID to take it, of a shift all-to-all from the CAs
 * below it (as many LIDs in a row, that hold the current one): those in
 * s's column climb through s, as do the others a leaf below sent up to
 * s. */
static void ftree_mid_crowding(const struct ftree *m, int s, uint8_t *crowd)
{
	size_t cur = m->cur_dest, n = m->n_dests, window = m->reach[s] * m->cas_per_leaf;
	uint8_t col = ftree_mid_column(m, s), around[2 * FTREE_MID_WINDOW];
	uint16_t count[FABRIC_MAX_PORTS + 2] = {0};

	window = window < FTREE_MID_WINDOW ? window : FTREE_MID_WINDOW;
	memset(around, LFT_DROP, 2 * window);
	for (size_t k = 1; k < window && 2 * k < n; k++) {
		size_t before = (cur + n - k) % n, after = (cur + k) % n;

		if (m->dests[before].offset == m->dests[cur].offset)
			around[window - 1 - k] = ftree_mid_port(m, s, before, k <= cur, col);
		if (m->dests[after].offset == m->dests[cur].offset)
			around[window - 1 + k] = ftree_mid_port(m, s, after, cur + k >= n, col);
	}
	memset(crowd, 1, FABRIC_MAX_PORTS + 1);
	/* windows [a, a + window) for a = 0 .. window - 1, slid one by one */
	for (size_t k = 0; k + 1 < 2 * window; k++) {
		uint8_t in = around[k];

		if (k >= window && around[k - window] <= FABRIC_MAX_PORTS)
			count[around[k - window]]--;
		if (in > FABRIC_MAX_PORTS)
			continue;
		count[in]++; /* a part of a window counts no more than the window */
		if (count[in] + 1u > crowd[in])
			crowd[in] =
			    (uint8_t)(count[in] + 1u < UINT8_MAX ? count[in] + 1u : UINT8_MAX);
	}
}

/* A LID of another column that a leaf sent up to rank-1 switch s: its
 * column at s when no choice is less crowded, else the least crowded
 * (the first from the column's place on a tie). */
static uint8_t ftree_mid_foreign(struct ftree *m, int s, uint8_t want)
{
	size_t first = m->cand_start[s], n = m->cand_n[s];
	uint8_t crowd[FABRIC_MAX_PORTS + 1], best = want;

	ftree_mid_crowding(m, s, crowd);
	for (size_t i = 0; i < n; i++) {
		uint8_t pn = m->cand_port[first + i];

		if (crowd[pn] < crowd[best])
			best = pn;
	}
	return best;
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
	uint8_t crowd[FABRIC_MAX_PORTS + 1];

	for (size_t i = 0; i < n; i++)
		if (m->cand_port[first + i] == want)
			return m->rank[s] == 1 && !m->g.has_ca[s] &&
				       m->dest_col[m->cur_dest] != ftree_mid_column(m, s)
				   ? ftree_mid_foreign(m, s, want)
				   : want;
	/* want is column `before` of the `lost` that s may not take: spread
	 * those evenly over the choices, from the first one's place on */
	for (unsigned pn = 1; pn <= FABRIC_MAX_PORTS; pn++)
		if (slot[pn / 8] >> (pn % 8) & 1 && !ftree_is_choice(m, s, (uint8_t)pn)) {
			base = lost ? base : pn;
			before += pn < want;
			lost++;
		}
	if (m->g.has_ca[s]) /* a leaf: its CAs' flows to the LIDs in a row */
		ftree_crowding(m, s, n + lost, crowd);
	else if (m->rank[s] == 1) /* its pod's flows to the LIDs in a row */
		ftree_mid_crowding(m, s, crowd);
	return ftree_least_diverted(m, s, lost ? (base + before * n / lost) % n : want % n,
				    m->g.has_ca[s] || m->rank[s] == 1 ? crowd : NULL);
}

/* Port pn of leaf s as a detour: up to a parent of kind ANY, whose way
 * to its exit (up, then down to a switch x with an up-then-down route,
 * which turns up there) does not pass s.  One turn, at an exit whose turn
 * is taken for the LID anyway.  Not when s is an exit's x itself: the
 * routes turning up at s would turn a second time. */
static int ftree_detour_ok(const struct ftree *m, int s, uint8_t pn)
{
	int c = ftree_neighbour(m, s, pn);

	for (size_t i = 0; i < m->n_exits; i++)
		if (m->exits[i].x == s)
			return 0;
	for (int hop = 0; hop <= 2 * FTREE_MAX_RANK && c >= 0; hop++) {
		if (c == s)
			return 0;
		if (m->kind[c] != FTREE_ANY)
			return hop > 0;
		if (m->xport[c] == LFT_DROP)
			return 0;
		c = ftree_neighbour(m, c, m->xport[c]);
	}
	return 0;
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
		    ftree_detour_ok(m, s, pn))
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

		if (!ftree_detour_ok(m, s, m->row[s]))
			m->row[s] = m->det_alt[s];
	}
}
