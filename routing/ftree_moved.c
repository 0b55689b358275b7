/*
 * ftree_moved.c - ftree's record of the LIDs that rank-1 switches moved
 * off their main path's core, per core's link down, with the shifts in
 * which the CAs below the switch send to the LID; read back as a
 * tie-break by the next rank-1 switches that choose a core.  Part of the
 * ftree engine (routing/ftree.c has the DOC); touches nothing else.
 */
#include <errno.h>
#include <stdlib.h>

#include "routing/ftree_priv.h"

/* One LID moved onto a link down: the shifts k0 .. k0 + len - 1 (round
 * n_dests) in which it is sent through that link, next on the link. */
struct ftree_move {
	uint32_t k0, len, next;
};

#define FTREE_MOVE_NONE UINT32_MAX

int ftree_moved_init(struct ftree *m)
{
	size_t slots = m->g.port_base[m->g.n_sw] + 1;

	m->move_head = malloc(slots * sizeof(*m->move_head));
	if (!m->move_head)
		return -ENOMEM;
	for (size_t i = 0; i < slots; i++)
		m->move_head[i] = FTREE_MOVE_NONE;
	m->n_moves = m->cap_moves = 0;
	return 0;
}

void ftree_moved_fini(struct ftree *m)
{
	free(m->move_head);
	free(m->moves);
	m->move_head = NULL;
	m->moves = NULL;
}

/* The shifts in which the CAs below rank-1 switch s send to the current
 * LID: from its first leaf to its last in leaf order (as its window). */
static void ftree_moved_shifts(const struct ftree *m, int s, uint32_t *k0, uint32_t *len)
{
	size_t n = m->n_dests, lo = SIZE_MAX, hi = 0, first, last;

	for (size_t e = m->down_start[s]; e < m->down_start[s + 1]; e++) {
		int c = m->down[e].sw;

		if (!m->g.has_ca[c])
			continue;
		lo = (size_t)m->leaf_pos[c] < lo ? (size_t)m->leaf_pos[c] : lo;
		hi = (size_t)m->leaf_pos[c] > hi ? (size_t)m->leaf_pos[c] : hi;
	}
	if (lo == SIZE_MAX || !n) {
		*k0 = *len = 0;
		return;
	}
	first = lo * m->cas_per_leaf % n;
	last = ((hi + 1) * m->cas_per_leaf - 1) % n;
	*k0 = (uint32_t)((m->cur_dest + n - last) % n);
	*len = (uint32_t)((last + n - first) % n + 1);
}

/* The link down that rank-1 switch s's up-port pn leads to for the
 * current LID: a slot (port_base) of the core there, or SIZE_MAX. */
static size_t ftree_moved_link(const struct ftree *m, int s, uint8_t pn)
{
	int c = ftree_neighbour(m, s, pn), below;

	if (c < 0 || m->rank[c] != 2 || m->row[c] == LFT_DROP)
		return SIZE_MAX;
	below = ftree_neighbour(m, c, m->row[c]);
	if (below < 0 || m->rank[below] >= m->rank[c])
		return SIZE_MAX;
	return m->g.port_base[c] + m->row[c];
}

static int ftree_moved_has(uint32_t k, uint32_t k0, uint32_t len, size_t n)
{
	return (k + n - k0) % n < len;
}

unsigned ftree_moved_depth(const struct ftree *m, int s, uint8_t pn)
{
	size_t link = m->move_head ? ftree_moved_link(m, s, pn) : SIZE_MAX, n = m->n_dests;
	uint32_t k0, len;
	unsigned most = 0;

	if (link == SIZE_MAX)
		return 0;
	ftree_moved_shifts(m, s, &k0, &len);
	/* the most moves at one shift of s's: at its first, or where one starts */
	for (uint32_t i = m->move_head[link]; i != FTREE_MOVE_NONE; i = m->moves[i].next) {
		uint32_t at = ftree_moved_has(m->moves[i].k0, k0, len, n) ? m->moves[i].k0 : k0;
		unsigned here = 0;

		for (uint32_t j = m->move_head[link]; j != FTREE_MOVE_NONE; j = m->moves[j].next)
			here += (unsigned)ftree_moved_has(at, m->moves[j].k0, m->moves[j].len, n);
		most = here > most ? here : most;
	}
	return most;
}

/* Rank-1 switch s sent the current LID up to a core its main path does
 * not take: recorded on that core's link down. */
static int ftree_moved_add(struct ftree *m, int s)
{
	size_t link = ftree_moved_link(m, s, m->row[s]);
	struct ftree_move *mv;

	if (link == SIZE_MAX)
		return 0;
	if (m->n_moves == m->cap_moves) {
		size_t cap = m->cap_moves ? 2 * m->cap_moves : 256;
		struct ftree_move *grown = realloc(m->moves, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		m->moves = grown;
		m->cap_moves = cap;
	}
	mv = &m->moves[m->n_moves];
	ftree_moved_shifts(m, s, &mv->k0, &mv->len);
	mv->next = m->move_head[link];
	m->move_head[link] = (uint32_t)m->n_moves++;
	return 0;
}

void ftree_moved_record(struct ftree *m)
{
	int core = m->n_columns >= 2 ? m->path[2] : -1;

	if (!m->move_head)
		return;
	m->cgen++;
	for (size_t q = 0; q < m->n_fill; q++) {
		int leaf = m->fill[q], s, c;

		if (!m->g.has_ca[leaf] || m->kind[leaf] != FTREE_UP ||
		    m->done[leaf] == m->dest_gen || m->row[leaf] == LFT_DROP)
			continue;
		s = ftree_neighbour(m, leaf, m->row[leaf]);
		if (s < 0 || m->rank[s] != 1 || m->g.has_ca[s] || m->kind[s] != FTREE_UP ||
		    m->done[s] == m->dest_gen || m->row[s] == LFT_DROP || m->cmark[s] == m->cgen)
			continue;
		m->cmark[s] = m->cgen;
		c = ftree_neighbour(m, s, m->row[s]);
		if (c >= 0 && c != core && ftree_moved_add(m, s))
			m->nomem = 1;
	}
}
