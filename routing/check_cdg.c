/*
 * routing/check_cdg.c - the gate's channel dependency graph: the turns of
 * each block of destinations recorded switch by switch, and the search
 * for a cycle among the channels (a credit loop).  Part of the gate
 * (routing/check.c walks the tables; check_priv.h "How it works").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "routing/check_priv.h"

/* ---- Turns, a block at a time ------------------------------------------ */

/* The LIDs of the block switch s sends out of port p: bit b for LID
 * blk_lid0 + b. */
static uint64_t check_lids_on_port(const struct check *c, size_t s, uint8_t p)
{
	const uint8_t *col = c->blk + s * CHECK_BLOCK;
	uint64_t m = 0;

#ifdef __SSE2__
	__m128i want = _mm_set1_epi8((char)p);

	_Static_assert(CHECK_BLOCK == 64, "a block is four 16-byte compares");
#define CHECK_EQ16(q)                                                                              \
	((uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(                                     \
	     _mm_loadu_si128((const __m128i *)(const void *)(col + 16 * (q))), want))              \
	 << (16 * (q)))
	m = CHECK_EQ16(0) | CHECK_EQ16(1) | CHECK_EQ16(2) | CHECK_EQ16(3);
#undef CHECK_EQ16
#else
	for (unsigned b = 0; b < CHECK_BLOCK; b++)
		m |= (uint64_t)(col[b] == p) << b;
#endif
	return m;
}

/* The turns at switch t of the block's destinations on VL v (vl_lids:
 * their bits): for each switch link into t, the LIDs its far switch
 * sends over it that t sends on over a switch link.  All writes go to t's
 * own bitmap. */
static void check_turns_at(struct check *c, size_t t, uint64_t vl_lids)
{
	size_t k = c->chan_base[t + 1] - c->chan_base[t];
	size_t base = c->turn_off + c->turn_base[t];
	uint64_t on = c->fwd[t] & vl_lids;
	const uint8_t *col = c->blk + t * CHECK_BLOCK;
	uint8_t oc[CHECK_BLOCK]; /* t's out channel for each LID of have */
	uint64_t have = 0;	 /* looked up only for LIDs some switch sends into t */

	if (!on)
		return;
	for (size_t i = 0; i < k; i++) {
		size_t ch = c->chan_base[t] + i, at = base + i * k;
		uint64_t m = on & c->send[c->chan_far[ch]], row = 0;

		size_t far = (size_t)c->chan_far[ch];
		uint8_t fp = c->chan_far_port[ch];

		/* a port outside the far end's span in the block carries none */
		if (m && fp >= c->port_lo[far] && fp <= c->port_hi[far])
			m &= check_lids_on_port(c, far, fp);
		else
			m = 0;
		for (uint64_t need = m & ~have; need; need &= need - 1) {
			unsigned b = (unsigned)__builtin_ctzll(need);

			oc[b] = c->pchan[c->g.port_base[t] + col[b]];
		}
		have |= m;
		if (k > 64) { /* a row wider than a word: bit by bit */
			for (; m; m &= m - 1) {
				size_t bit = at + oc[__builtin_ctzll(m)];

				c->turns[bit / 64] |= 1ULL << (bit % 64);
			}
			continue;
		}
		/* the row's out channels gathered in a word, then written
		 * where the row starts (it may straddle two words) */
		for (; m; m &= m - 1)
			row |= 1ULL << oc[__builtin_ctzll(m)];
		if (!row)
			continue;
		c->turns[at / 64] |= row << (at % 64);
		if (at % 64 && at % 64 + k > 64)
			c->turns[at / 64 + 1] |= row >> (64 - at % 64);
	}
}

/* The same, pair by pair from each sending switch s: cheaper than
 * check_turns_at when the switches have many more switch links than the
 * block has LIDs (a spine with 250 of them). */
static void check_turns_from(struct check *c, size_t s, uint64_t vl_lids)
{
	const uint8_t *col = c->blk + s * CHECK_BLOCK;
	uint64_t m = c->send[s] & c->fwd[s] & vl_lids;

	while (m) {
		unsigned b = (unsigned)__builtin_ctzll(m);
		const struct check_link *in = &c->links[c->g.port_base[s] + col[b]];
		size_t t = (size_t)in->far, k = c->chan_base[t + 1] - c->chan_base[t], bit;
		const struct check_link *out;

		m &= m - 1;
		if (!(c->fwd[t] >> b & 1))
			continue;
		out = &c->links[c->g.port_base[t] + c->blk[t * CHECK_BLOCK + b]];
		bit = c->turn_off + c->turn_base[t] + (size_t)in->far_chan * k + out->self_chan;
		c->turns[bit / 64] |= 1ULL << (bit % 64);
	}
}

/* Record the turns noted for the block, VL by VL, and clear the notes. */
void check_flush_turns(struct check *c)
{
	int by_pair = c->n_chan > c->g.n_sw * CHECK_BLOCK;

	for (size_t s = 0; s < c->g.n_sw && c->blk_all; s++)
		c->send[s] |= c->blk_all;
	c->blk_all = 0;

	for (unsigned v = 0; v < CHECK_DATA_VLS && !c->skip_cdg; v++) {
		if (!c->blk_vl[v])
			continue;
		c->turn_off = v * c->turn_bits;
		for (size_t t = 0; t < c->g.n_sw; t++)
			if (by_pair)
				check_turns_from(c, t, c->blk_vl[v]);
			else
				check_turns_at(c, t, c->blk_vl[v]);
	}
	memset(c->blk_vl, 0, sizeof(c->blk_vl));
	memset(c->send, 0, c->g.n_sw * sizeof(*c->send));
}

/* ---- Credit loops: a cycle among the channels -------------------------- */

int check_alloc_cdg(struct check *c)
{
	size_t n = c->n_chan ? c->n_chan : 1;

	c->turn_bits = c->turn_base[c->g.n_sw];
	c->turns = calloc(c->turn_bits * c->n_vls / 64 + 1, sizeof(*c->turns));
	c->color = calloc(n, 1);
	c->cursor = calloc(n, sizeof(*c->cursor));
	c->dstack = malloc(n * sizeof(*c->dstack));
	return c->turns && c->color && c->cursor && c->dstack ? 0 : -ENOMEM;
}

/* The next channel ch leads into that the DFS has not tried yet. */
static size_t check_next_succ(struct check *c, size_t ch)
{
	int s = c->chan_sw[ch];
	const struct check_link *l = &c->links[c->g.port_base[s] + c->chan_port[ch]];
	size_t t = (size_t)l->far, k = c->chan_base[t + 1] - c->chan_base[t];
	size_t row = c->turn_off + c->turn_base[t] + (size_t)l->far_chan * k;

	while (c->cursor[ch] < k) {
		size_t lb = c->cursor[ch]++, bit = row + lb;

		if (c->turns[bit / 64] >> (bit % 64) & 1)
			return c->chan_base[t] + lb;
	}
	return CHECK_NO_CHAN;
}

/* Iterative DFS from root; on a back edge the cycle is the part of the
 * stack from the channel found again up to the top. */
static int check_dfs(struct check *c, size_t root)
{
	size_t top = 0;

	c->color[root] = CHECK_GRAY;
	c->dstack[top++] = root;
	while (top) {
		size_t ch = c->dstack[top - 1], nx = check_next_succ(c, ch);

		if (nx == CHECK_NO_CHAN) {
			c->color[ch] = CHECK_BLACK;
			top--;
		} else if (c->color[nx] == CHECK_GRAY) {
			c->cycle_at = top;
			while (c->dstack[c->cycle_at - 1] != nx)
				c->cycle_at--;
			c->cycle_at--;
			c->cycle_len = top - c->cycle_at;
			return 1;
		} else if (c->color[nx] == CHECK_WHITE) {
			c->color[nx] = CHECK_GRAY;
			c->dstack[top++] = nx;
		}
	}
	return 0;
}

/* Each VL's dependency graph on its own: a cycle needs every turn on
 * one VL.  The VL of the cycle found goes to res->credit_loop_vl. */
int check_find_cycle(struct check *c)
{
	for (unsigned v = 0; v < c->n_vls; v++) {
		c->turn_off = v * c->turn_bits;
		memset(c->color, CHECK_WHITE, c->n_chan ? c->n_chan : 1);
		memset(c->cursor, 0, (c->n_chan ? c->n_chan : 1) * sizeof(*c->cursor));
		for (size_t ch = 0; ch < c->n_chan; ch++)
			if (c->color[ch] == CHECK_WHITE && check_dfs(c, ch)) {
				c->res->credit_loop_vl = v;
				return 1;
			}
	}
	return 0;
}
