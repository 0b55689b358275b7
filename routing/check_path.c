/*
 * routing/check_path.c - the gate with an SL per path (lft_set.path_sl):
 * each (source switch, destination LID) path's turns go on the VL of its
 * own SL, and the cables it crosses must offer that VL.  Part of the gate
 * (routing/check.c walks the tables and judges the routes first;
 * check_priv.h "How it works"); the cycle search is check_cdg.c's.
 */
#include "routing/check_priv.h"

/* The SL of the path from switch s to LID lid. */
static unsigned check_path_sl(const struct check *c, int s, uint32_t lid)
{
	const struct lft *t = c->tab[s];

	return t ? lft_set_sl_at(c->lfts, (size_t)(t - c->lfts->tables), (uint16_t)lid)
		 : lft_set_sl(c->lfts, (uint16_t)lid);
}

/* Record the turn at switch x from in (a switch link into x) out over
 * out (one of x's switch links) on VL v. */
static void check_path_turn(struct check *c, size_t x, const struct check_link *in,
			    const struct check_link *out, unsigned v)
{
	size_t k = c->chan_base[x + 1] - c->chan_base[x];
	size_t bit = v * c->turn_bits + c->turn_base[x] + (size_t)in->far_chan * k + out->self_chan;

	c->turns[bit / 64] |= 1ULL << (bit % 64);
}

/* The path from switch s (its route judged good) to dests[di] on VL
 * c->dest_vl: its turns noted, its cables checked.  0, or 1 when a cable
 * lacks the VL (counted). */
static int check_path_from(struct check *c, size_t di, int s)
{
	size_t b = c->dests[di].lid - c->blk_lid0;
	const struct check_link *in = NULL;
	unsigned v = c->dest_vl;
	int x = s;

	if (c->w_ca[s] && c->inject_vls[s] <= v) {
		check_vl_missing(c, di, s, 0);
		return 1;
	}
	for (size_t hop = 0; hop <= c->g.n_sw; hop++) {
		uint8_t p = c->blk[(size_t)x * CHECK_BLOCK + b];
		int code = check_code(c->next[x]);
		const struct check_link *out = &c->links[c->g.port_base[x] + p];

		if (p && c->link_vls[c->g.port_base[x] + p] <= v) {
			check_vl_missing(c, di, x, p);
			return 1;
		}
		if (code < 0)
			break;
		if (in && !c->skip_cdg)
			check_path_turn(c, (size_t)x, in, out, v);
		in = out;
		x = code;
	}
	return 0;
}

void check_path_turns(struct check *c, size_t di, const int *sw, size_t n, int to_switch)
{
	uint32_t lid = c->dests[di].lid;

	for (size_t i = 0; i < n; i++) {
		int s = sw[i];

		if (check_verdict(c, s) != CHECK_OK || (to_switch && c->w_ok[s] < 2))
			continue;
		c->dest_vl = check_path_sl(c, s, lid);
		if (c->dest_vl >= CHECK_DATA_VLS) {
			check_vl_missing(c, di, -1, 0);
			return;
		}
		if (check_path_from(c, di, s))
			return;
	}
}
