/*
 * vlsp_pick.c - the vlsp engine: routes a small fabric several ways
 * (routing/vlsp.c, one run each) and keeps the best balanced tables, or
 * nearly as well balanced ones on fewer VLs (see vlsp.h).  No I/O, no
 * globals.
 */
#include <stddef.h>

#include "routing/route.h"
#include "routing/vlsp.h"

/* On a fabric of at most this many switches every way is routed (the
 * 128-switch meshes: 8 runs of about 50 ms of CPU each); a bigger one
 * (the 2500-switch, 10K-CA mesh) is routed once, the usual way. */
#define VLSP_PICK_MAX_SW 128

/* Fewer VLs are taken while the spread is at most 1/VLSP_FEWER_SLACK
 * (0.5%) above the least (measured on twelve meshes and tori of 32-128
 * switches: 65 VLs in all down to 60, EBB summed over them the same,
 * 4.978; a slack of 1% gave 58 VLs and -0.1% of EBB). */
#define VLSP_FEWER_SLACK 200

/* The ways, the usual one first (the only one on a big fabric, and the
 * one kept on a tie). */
static const struct vlsp_way vlsp_pick_ways[VLSP_WAYS] = {
    {VLSP_BY_USUAL, 0}, {VLSP_BY_OTHER, 0}, {VLSP_BY_RANK_BACK, 0}, {VLSP_BY_STRIDE, 0},
    {VLSP_BY_USUAL, 1}, {VLSP_BY_OTHER, 1}, {VLSP_BY_RANK_BACK, 1}, {VLSP_BY_STRIDE, 1},
};

/* Is run r better than best: less spread, then fewer VLs? */
static int vlsp_pick_better(const struct vlsp_run *r, const struct vlsp_run *best)
{
	if (r->spread != best->spread)
		return r->spread < best->spread;
	return r->out.n_vls < best->out.n_vls;
}

/* Route way w again on one VL less than best uses, all layers free,
 * while that works and spreads at most the slack above limit. */
static void vlsp_pick_fewer(const struct fabric *f, const struct route_opts *opts,
			    struct vlsp_way w, uint64_t limit, struct vlsp_run *best, char *err,
			    size_t errlen)
{
	for (unsigned cap = best->out.n_vls - 1u; cap >= 2; cap--) {
		struct vlsp_run r;

		if (vlsp_run_way(f, opts, w, cap, &r, err, errlen))
			return; /* some destination fit none of the cap layers */
		if (r.out.n_vls > cap || r.spread > limit) {
			lft_set_fini(&r.out);
			return;
		}
		lft_set_fini(&best->out);
		*best = r;
	}
}

/* The limit on the spread of fewer VLs: the least one plus the slack. */
static uint64_t vlsp_pick_limit(uint64_t spread)
{
	uint64_t limit = spread + spread / VLSP_FEWER_SLACK;

	return limit < spread ? UINT64_MAX : limit;
}

/* Among the ways whose spread is within the limit, the one with the
 * fewest VLs, then the least spread, then the first. */
static size_t vlsp_pick_fewest(const uint64_t *spread, const uint8_t *vls, size_t n, uint64_t limit,
			       size_t way)
{
	for (size_t i = 0; i < n; i++)
		if (spread[i] <= limit &&
		    (vls[i] < vls[way] || (vls[i] == vls[way] && spread[i] < spread[way])))
			way = i;
	return way;
}

int vlsp_route(const struct fabric *f, const struct route_opts *opts, unsigned n_ways, int fewer,
	       struct lft_set *out, struct route_note *note, char *err, size_t errlen)
{
	uint64_t spread[VLSP_WAYS];
	uint8_t vls[VLSP_WAYS];
	uint64_t limit;
	struct vlsp_run best, r;
	size_t way = 0, pick;
	int rc;

	if (note)
		note->text[0] = '\0';
	rc = route_opts_check(opts, err, errlen);
	if (rc)
		return rc;
	n_ways = n_ways < 1 ? 1 : n_ways > VLSP_WAYS ? VLSP_WAYS : n_ways;
	for (size_t i = 0; i < n_ways; i++) {
		rc = vlsp_run_way(f, opts, vlsp_pick_ways[i], 0, i ? &r : &best, err, errlen);
		if (rc) {
			if (i)
				lft_set_fini(&best.out);
			return rc;
		}
		spread[i] = i ? r.spread : best.spread;
		vls[i] = i ? r.out.n_vls : best.out.n_vls;
		if (!i)
			continue;
		if (vlsp_pick_better(&r, &best)) {
			lft_set_fini(&best.out);
			best = r;
			way = i;
		} else {
			lft_set_fini(&r.out);
		}
	}
	limit = vlsp_pick_limit(best.spread);
	pick = fewer ? vlsp_pick_fewest(spread, vls, n_ways, limit, way) : way;
	if (pick != way) { /* fewer VLs, a little more spread: route that way again */
		if (!vlsp_run_way(f, opts, vlsp_pick_ways[pick], 0, &r, err, errlen)) {
			lft_set_fini(&best.out);
			best = r;
			way = pick;
		}
	}
	if (fewer)
		vlsp_pick_fewer(f, opts, vlsp_pick_ways[way], limit, &best, err, errlen);
	*out = best.out;
	if (note)
		*note = best.note;
	return 0;
}

static int vlsp_pick_compute(const struct fabric *f, const struct route_opts *opts,
			     struct lft_set *out, struct route_note *note, char *err, size_t errlen)
{
	int small = fabric_count_switches(f) <= VLSP_PICK_MAX_SW;

	return vlsp_route(f, opts, small ? VLSP_WAYS : 1, small, out, note, err, errlen);
}

const struct route_engine route_engine_vlsp = {
    .name = "vlsp",
    .summary = "balanced shortest paths, deadlock-free over VL layers (SL per destination)",
    .compute = vlsp_pick_compute,
    /* with one data VL it is up-star/down-star routing: a list falls
     * through to updn there */
    .list_min_vls = 2,
};
