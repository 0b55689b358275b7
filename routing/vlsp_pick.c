/*
 * vlsp_pick.c - the vlsp engine: routes a small fabric several ways
 * (routing/vlsp.c, one run each), routes each again against its own
 * tables, measures every result (routing/score.c) and keeps the best, or
 * one as good on fewer VLs, or one VL when that is better (see vlsp.h).
 * No I/O, no globals.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/route.h"
#include "routing/score.h"
#include "routing/vlsp.h"
#include "routing/vlsp_path.h"
#include "routing/vlsp_polish.h"

/* On a fabric of at most VLSP_PICK_MAX_SW switches the engine measures
 * its results: every way up to VLSP_PICK_ALL_SW switches, the first 2
 * above (three 128-switch meshes on 8 VLs and on one: 2 ways with 3
 * rounds had more EBB on 5 of the 6, the same on the sixth, and a lower
 * or equal shift worst on all, than 8 ways with one round, in 60% of the
 * CPU); a bigger fabric (the 2500-switch, 10K-CA mesh) is
 * routed once, the usual way, unmeasured.  A measured result's VLs are
 * counted as an SL per path would make them (vlsp_path.c on a copy of
 * each result as good as the best so far: about +35% of the engine's
 * CPU on the 64-switch mesh, +40% on the 128-switch one; on the 6x6x2
 * torus, 72 switches, that is what gives shift worst 7 instead of 8). */
#define VLSP_PICK_MAX_SW 128
#define VLSP_PICK_ALL_SW 64
#define VLSP_PICK_FEW_WAYS 2
/* The ways before the shuffled ones (vlsp_pick_ways[0..8)): their best
 * EBB sets the slack (see vlsp_pick_shuffled). */
#define VLSP_PICK_PLAIN_WAYS 8

/* Rounds of routing again per way (each round costs a run). */
#define VLSP_ROUNDS 3
/* The shuffled ways go on for this many rounds; the results past
 * VLSP_ROUNDS compete only in the fine pick (vlsp_pick_fine). */
#define VLSP_SHUFFLE_ROUNDS 8

/* The fine pick (up to VLSP_PICK_ALL_SW switches, vlsp_pick_fine): the
 * kept result and VLSP_PICK_FINE_N others measured again over
 * VLSP_PICK_FINE_BISECTIONS bisections of the engine's seed (on the
 * 5x5x2 torus EBB 0.4743 by nanosm-route, was 0.4727; 5 x 10000
 * bisections of other seeds: 0.4741 against 0.4721, dfsssp 0.4746). */
#define VLSP_PICK_FINE_N 4
#define VLSP_PICK_FINE_BISECTIONS 2000

/* The polish after the fine pick (up to VLSP_PICK_ALL_SW switches,
 * vlsp_pick_polish): passes over the entries (routing/vlsp_polish.h). */
#define VLSP_POLISH_PASSES 2

/* How a result is measured: every shift of the shift all-to-all, and
 * this many random bisections, drawn from a seed of the engine's own (not
 * the scorer's default: the engine does not tune itself to the
 * bisections nanosm-route reports). */
#define VLSP_PICK_BISECTIONS 200
#define VLSP_PICK_SEED 0x766c7370u

/* A result counts as good as the best when its EBB is at least the best's
 * less 1/VLSP_PICK_SLACK (0.3%); among those, the lowest shift worst,
 * then the fewest VLs, then the most EBB. */
#define VLSP_PICK_SLACK 333

/* The ways, the usual one first (the only one on a big fabric, and the
 * one kept on a tie); the last 4 shuffle the switch order (up to 64
 * switches: on the harness's 32-switch mesh seed 3 a shuffle gives shift
 * worst 10 where the 8 others gave 11 at best within the slack). */
static const struct vlsp_way vlsp_pick_ways[VLSP_WAYS] = {
    {VLSP_BY_USUAL, 0, 0},     {VLSP_BY_OTHER, 0, 0},	{VLSP_BY_RANK_BACK, 0, 0},
    {VLSP_BY_STRIDE, 0, 0},    {VLSP_BY_USUAL, 1, 0},	{VLSP_BY_OTHER, 1, 0},
    {VLSP_BY_RANK_BACK, 1, 0}, {VLSP_BY_STRIDE, 1, 0},	{VLSP_BY_SHUFFLE, 0, 0},
    {VLSP_BY_SHUFFLE, 1, 0},   {VLSP_BY_SHUFFLE, 0, 1}, {VLSP_BY_SHUFFLE, 1, 1},
};

/* A measured result, and how to make it again: way, routed on cap
 * layers (0: all; 1: one, grown trees), then `rounds` times again on as
 * many (deterministic: the same steps give the same tables). */
struct vlsp_cand {
	uint8_t way, cap, rounds;
	double ebb;
	uint64_t shift;
	unsigned vls;	   /* VLs used, with an SL per path where that takes fewer */
	unsigned dest_vls; /* VLs used with one SL per destination */
};

struct vlsp_pick {
	const struct fabric *f;
	const struct route_opts *opts;
	char *err;
	size_t errlen;
	double top; /* the best EBB measured (ways, rounds, one VL), fewer VLs aside */
	int fine;   /* the shuffled ways' extra rounds and the fine pick */
	int polish; /* then the polish */
	int polished; /* the kept tables polished, an SL per path: their VLs; else 0 */
	unsigned was; /* ... and the VLs per destination before */
};

/* ---- The old choice: the least spread ----------------------------------- */

/* The least spread of the first n_ways ways, unmeasured (vlsp_route with
 * measured 0: the usual way alone on a big fabric). */
static int vlsp_pick_spread(const struct vlsp_pick *p, unsigned n_ways, struct vlsp_run *best)
{
	struct vlsp_run r;
	int rc = vlsp_run_way(p->f, p->opts, vlsp_pick_ways[0], 0, NULL, best, p->err, p->errlen);

	for (size_t i = 1; !rc && i < n_ways; i++) {
		rc = vlsp_run_way(p->f, p->opts, vlsp_pick_ways[i], 0, NULL, &r, p->err, p->errlen);
		if (rc) {
			lft_set_fini(&best->out);
		} else if (r.spread < best->spread ||
			   (r.spread == best->spread && r.out.n_vls < best->out.n_vls)) {
			lft_set_fini(&best->out);
			*best = r;
		} else {
			lft_set_fini(&r.out);
		}
	}
	return rc;
}

/* ---- Measured ----------------------------------------------------------- */

/* Is c as good as the best, whose EBB is top: within the slack? */
static int vlsp_pick_good(const struct vlsp_cand *c, double top)
{
	return c->ebb >= top - top / VLSP_PICK_SLACK;
}

/* Score r's tables: every shift when shifts, else none, and bisections
 * of the engine's seed into sc.  0 or -ENOMEM. */
static int vlsp_pick_score(const struct vlsp_pick *p, const struct lft_set *t, int shifts,
			   size_t bisections, struct route_score *sc)
{
	struct score_opts o;

	score_opts_default(&o);
	o.shifts = shifts ? (size_t)-1 : 0;
	o.bisections = bisections;
	o.seed = VLSP_PICK_SEED;
	o.gate_given = 1; /* acyclic by construction; the caller gates the tables */
	memset(sc, 0, sizeof(*sc));
	return score_run(p->f, t, &o, sc);
}

/* Measure r's tables into c: EBB over the engine's bisections, shift
 * worst over every shift, VLs used.  Returns 0 or -ENOMEM. */
static int vlsp_pick_measure(const struct vlsp_pick *p, const struct vlsp_run *r,
			     struct vlsp_cand *c)
{
	struct route_score sc;
	int rc = vlsp_pick_score(p, &r->out, 1, VLSP_PICK_BISECTIONS, &sc);

	c->ebb = sc.ebb_mean;
	c->shift = sc.shift_load_worst;
	c->vls = c->dest_vls = r->out.n_vls;
	/* what an SL per path would make of it, when the VLs can matter: a
	 * result not as good as the best so far never wins on them (the best
	 * EBB only grows) */
	if (!rc && c->vls > 1 && vlsp_pick_good(c, c->ebb > p->top ? c->ebb : p->top)) {
		struct lft_set copy;
		int vls;

		lft_set_init(&copy);
		rc = lft_set_copy(&copy, &r->out);
		vls = rc ? rc : vlsp_path_layer(p->f, &copy);
		rc = vls < 0 ? vls : 0;
		c->vls = vls > 0 ? (unsigned)vls : c->vls;
		lft_set_fini(&copy);
	}
	return rc;
}

/* Is a better than b, with top the best EBB: as good (within the slack),
 * then the lower shift worst, the fewer VLs, the more EBB; two not as
 * good, the more EBB.  On a full tie the earlier (b) stays. */
static int vlsp_pick_better(const struct vlsp_cand *a, const struct vlsp_cand *b, double top)
{
	int ga = vlsp_pick_good(a, top), gb = vlsp_pick_good(b, top);

	if (ga != gb)
		return ga;
	if (!ga || a->shift == b->shift) {
		if (ga && a->vls != b->vls)
			return a->vls < b->vls;
		return a->ebb > b->ebb;
	}
	return a->shift < b->shift;
}

/* Route again against prior's tables on cap layers (0: all). */
static int vlsp_pick_again(const struct vlsp_pick *p, const struct vlsp_cand *c, unsigned cap,
			   const struct vlsp_run *prior, struct vlsp_run *r)
{
	return vlsp_run_way(p->f, p->opts, vlsp_pick_ways[c->way], cap, &prior->out, r, p->err,
			    p->errlen);
}

/* Make candidate c's tables again into r. */
static int vlsp_pick_replay(const struct vlsp_pick *p, const struct vlsp_cand *c,
			    struct vlsp_run *r)
{
	int rc =
	    vlsp_run_way(p->f, p->opts, vlsp_pick_ways[c->way], c->cap, NULL, r, p->err, p->errlen);

	for (unsigned k = 0; !rc && k < c->rounds; k++) {
		struct vlsp_run next;

		rc = vlsp_pick_again(p, c, c->cap, r, &next);
		lft_set_fini(&r->out);
		if (!rc)
			*r = next;
	}
	return rc;
}

/* The best of list[0..n), n >= 1, into *best (the first on a tie). */
static void vlsp_pick_best(const struct vlsp_pick *p, const struct vlsp_cand *list, size_t n,
			   struct vlsp_cand *best)
{
	*best = list[0];
	for (size_t i = 1; i < n; i++)
		if (vlsp_pick_better(&list[i], best, p->top))
			*best = list[i];
}

/* Way w routed on cap layers (0: all, 1: one), then `rounds` times again
 * against its own tables on as many; each result measured into
 * list[*n], the top EBB raised. */
static int vlsp_pick_chain(struct vlsp_pick *p, unsigned w, unsigned cap, unsigned rounds,
			   struct vlsp_cand *list, size_t *n)
{
	struct vlsp_cand c = {.way = (uint8_t)w, .cap = (uint8_t)cap};
	struct vlsp_run r, next;
	int rc = vlsp_run_way(p->f, p->opts, vlsp_pick_ways[w], cap, NULL, &r, p->err, p->errlen);

	for (unsigned k = 0; !rc; k++) {
		c.rounds = (uint8_t)k;
		rc = vlsp_pick_measure(p, &r, &c);
		if (!rc) {
			list[(*n)++] = c;
			p->top = c.ebb > p->top ? c.ebb : p->top;
		}
		if (!rc && k < rounds)
			rc = vlsp_pick_again(p, &c, cap, &r, &next);
		lft_set_fini(&r.out);
		if (rc || k == rounds)
			break;
		r = next;
	}
	return rc;
}

/* The shuffled ways (VLSP_PICK_PLAIN_WAYS..n_ways), each with its
 * rounds: a result replaces *best only when better by the rule against
 * the plain ways' top EBB, which they leave where it was (a higher EBB
 * of theirs within the bisections' noise would push a kept result with
 * a lower shift worst out of the slack: the 4x4x3 torus's shift worst 5
 * went to 6 so).  Returns 0 or a negative errno. */
static int vlsp_pick_shuffled(struct vlsp_pick *p, unsigned n_ways, struct vlsp_cand *list,
			      size_t *n, struct vlsp_cand *best)
{
	double top = p->top;
	int rc = 0;

	for (unsigned w = VLSP_PICK_PLAIN_WAYS; w < n_ways && !rc; w++) {
		size_t first = *n;

		rc = vlsp_pick_chain(p, w, 0, p->fine ? VLSP_SHUFFLE_ROUNDS : VLSP_ROUNDS, list, n);
		p->top = top;
		for (size_t i = first; !rc && i < *n; i++)
			if (list[i].rounds <= VLSP_ROUNDS && vlsp_pick_better(&list[i], best, top))
				*best = list[i];
	}
	return rc;
}

/* Fewer VLs: from the best (its tables in *won), route again on one
 * layer less, `rounds` times, each result measured; when one of them is
 * better than the best (as good, no worse shift worst: fewer VLs), it
 * is the best and the next cap starts from it.  A destination that fits
 * none of the layers (vlsp_run_way fails) only ends the search. */
static int vlsp_pick_fewer(const struct vlsp_pick *p, unsigned rounds, struct vlsp_cand *best,
			   struct vlsp_run *won)
{
	while (best->dest_vls > 2) {
		struct vlsp_cand c = *best, gain = *best;
		struct vlsp_run cur = *won, next, kept;
		unsigned cap = best->dest_vls - 1u;
		int rc = 0, have = 0, own = 0; /* own: cur is neither *won nor kept */

		for (unsigned k = 1; k <= rounds && !rc; k++) {
			if (vlsp_pick_again(p, &c, cap, &cur, &next))
				break;
			if (own)
				lft_set_fini(&cur.out);
			cur = next;
			own = 1;
			rc = vlsp_pick_measure(p, &cur, &c);
			if (!rc && vlsp_pick_better(&c, &gain, p->top)) {
				if (have)
					lft_set_fini(&kept.out);
				gain = c;
				kept = cur;
				have = 1;
				own = 0;
			}
		}
		if (own)
			lft_set_fini(&cur.out);
		if (rc && have)
			lft_set_fini(&kept.out);
		if (rc || !have)
			return rc;
		lft_set_fini(&won->out);
		*won = kept;
		*best = gain;
	}
	return 0;
}

/* The fine pick: the kept result (*best, its tables in *won) against
 * the VLSP_PICK_FINE_N of list[0..n) with no worse a shift worst and no
 * more VLs that have the most EBB by the engine's 200 bisections (noise
 * about +-0.005 on a 50-switch torus), each made again and all measured
 * over VLSP_PICK_FINE_BISECTIONS of the same seed: the most EBB by that
 * measure is kept (the kept one on a tie).  Shift worst and VLs are
 * exact already, so neither gets worse.  0 or a negative errno (*won
 * then freed). */
static int vlsp_pick_fine(const struct vlsp_pick *p, const struct vlsp_cand *list, size_t n,
			  struct vlsp_cand *best, struct vlsp_run *won)
{
	struct vlsp_cand fine[VLSP_PICK_FINE_N];
	struct route_score sc;
	size_t m = 0, kept = VLSP_PICK_FINE_N;
	double top;
	int rc;

	while (m < VLSP_PICK_FINE_N) {
		const struct vlsp_cand *next = NULL;

		for (size_t i = 0; i < n; i++) {
			int seen = list[i].shift > best->shift || list[i].vls > best->vls;

			for (size_t j = 0; j < m && !seen; j++)
				seen = list[i].way == fine[j].way && list[i].cap == fine[j].cap &&
				       list[i].rounds == fine[j].rounds;
			if (!seen && (!next || list[i].ebb > next->ebb))
				next = &list[i];
		}
		if (!next)
			break;
		fine[m++] = *next;
	}
	if (!m)
		return 0;
	rc = vlsp_pick_score(p, &won->out, 0, VLSP_PICK_FINE_BISECTIONS, &sc);
	top = sc.ebb_mean;
	for (size_t j = 0; j < m && !rc; j++) {
		struct vlsp_run r;

		rc = vlsp_pick_replay(p, &fine[j], &r);
		if (rc)
			break;
		rc = vlsp_pick_score(p, &r.out, 0, VLSP_PICK_FINE_BISECTIONS, &sc);
		lft_set_fini(&r.out);
		if (!rc && sc.ebb_mean > top) {
			top = sc.ebb_mean;
			kept = j;
		}
	}
	if (!rc && kept < m) {
		lft_set_fini(&won->out);
		*best = fine[kept];
		rc = vlsp_pick_replay(p, best, won);
	}
	return rc;
}

/* The polish (routing/vlsp_polish.h) of the kept tables (*won, *best),
 * on a copy with an SL per path (fewer VLs where vlsp_path.h finds them,
 * else each path on its destination's), each path kept on its own
 * layer; kept when the copy's shift worst is no higher and its EBB over
 * VLSP_PICK_FINE_BISECTIONS of the engine's seed higher than the kept
 * tables' (p->polished then says its VLs).  The estimate decides the
 * moves, the measure only whether to keep them.  0 or a negative errno
 * (*won as it was). */
static int vlsp_pick_polish(struct vlsp_pick *p, const struct vlsp_cand *best, struct vlsp_run *won)
{
	struct route_score sc, was;
	struct lft_set copy;
	int rc, moves = 0, per_path;

	lft_set_init(&copy);
	rc = lft_set_copy(&copy, &won->out);
	rc = rc ? rc : vlsp_path_layer(p->f, &copy);
	per_path = rc > 0;
	if (!rc && !copy.path_sl)
		rc = lft_set_alloc_path_sl(&copy);
	if (rc >= 0 && copy.path_sl)
		rc = moves = vlsp_polish(p->f, &copy, VLSP_POLISH_PASSES);
	if (moves > 0)
		rc = vlsp_pick_score(p, &won->out, 0, VLSP_PICK_FINE_BISECTIONS, &was);
	if (moves > 0 && !rc)
		rc = vlsp_pick_score(p, &copy, 1, VLSP_PICK_FINE_BISECTIONS, &sc);
	if (moves > 0 && !rc && sc.shift_load_worst <= best->shift && copy.n_vls <= best->vls &&
	    sc.ebb_mean > was.ebb_mean) {
		p->was = won->out.n_vls;
		p->polished = per_path ? copy.n_vls : 0;
		if (!per_path) { /* each path on its destination's layer still */
			free(copy.path_sl);
			copy.path_sl = NULL;
		}
		lft_set_fini(&won->out);
		won->out = copy;
		return 0;
	}
	lft_set_fini(&copy);
	return rc == -ENOMEM ? rc : 0;
}

/* Measured: every way with its rounds; when the best of those uses more
 * than one VL, the usual way on one VL too (grown trees, its rounds),
 * kept only when the best on several VLs is not as good as it (grown
 * trees take detours: shortest paths on several VLs win a tie); the best
 * made again into *won, then fewer VLs while as good; with p->fine,
 * then the fine pick. */
static int vlsp_pick_measured(struct vlsp_pick *p, unsigned n_ways, struct vlsp_run *won)
{
	struct vlsp_cand list[(VLSP_WAYS + 1) * (VLSP_SHUFFLE_ROUNDS + 1)], best;
	size_t n = 0;
	int rc = 0;

	for (unsigned w = 0; w < n_ways && w < VLSP_PICK_PLAIN_WAYS && !rc; w++)
		rc = vlsp_pick_chain(p, w, 0, VLSP_ROUNDS, list, &n);
	if (!rc)
		vlsp_pick_best(p, list, n, &best);
	if (!rc && n_ways > VLSP_PICK_PLAIN_WAYS)
		rc = vlsp_pick_shuffled(p, n_ways, list, &n, &best);
	if (rc)
		return rc;
	if (best.vls > 1) {
		size_t first = n;

		rc = vlsp_pick_chain(p, 0, 1, VLSP_ROUNDS, list, &n);
		if (rc == -ENOMEM)
			return rc;
		if (n > first && !vlsp_pick_good(&best, p->top))
			vlsp_pick_best(p, &list[first], n - first, &best);
	}
	rc = vlsp_pick_replay(p, &best, won);
	if (!rc)
		rc = vlsp_pick_fewer(p, VLSP_ROUNDS, &best, won);
	if (!rc && p->fine)
		rc = vlsp_pick_fine(p, list, n, &best, won);
	if (!rc && p->polish)
		rc = vlsp_pick_polish(p, &best, won);
	if (rc && won->out.tables)
		lft_set_fini(&won->out);
	return rc;
}

/* The note of tables whose paths ride vls VLs, an SL per path, where
 * one per destination took `was`: "4 VLs of 8 offered, an SL per path
 * (per destination: 7 VLs, LIDs per VL: ...)".  0 or -EINVAL. */
static int vlsp_pick_note(struct vlsp_run *won, int vls, unsigned was)
{
	char old[sizeof(won->note.text)];
	const char *of, *rest;

	memcpy(old, won->note.text, sizeof(old));
	of = strstr(old, " of ");
	rest = strstr(old, "(LIDs per VL:");
	if (!vls || !of || !rest)
		return 0;
	/* the return value used: a longer note is cut, on purpose */
	return snprintf(won->note.text, sizeof(won->note.text),
			"%d VL%s of %lu offered, an SL per path (per destination: %u VLs, "
			"LIDs per VL:%s",
			vls, vls == 1 ? "" : "s", strtoul(of + 4, NULL, 10), was,
			rest + strlen("(LIDs per VL:")) < 0
		   ? -EINVAL
		   : 0;
}

/* The kept tables' paths on layers one by one (routing/vlsp_path.h):
 * when that takes fewer VLs, their SLs per path, and the note says so.
 * 0 or -ENOMEM (won then freed). */
static int vlsp_pick_per_path(const struct fabric *f, struct vlsp_run *won)
{
	unsigned was = won->out.n_vls;
	int vls = vlsp_path_layer(f, &won->out);

	if (vls < 0) {
		lft_set_fini(&won->out);
		return vls;
	}
	return vlsp_pick_note(won, vls, was);
}

int vlsp_route(const struct fabric *f, const struct route_opts *opts, unsigned n_ways, int measured,
	       struct lft_set *out, struct route_note *note, char *err, size_t errlen)
{
	struct vlsp_pick p = {f, opts, err, errlen, 0, measured > 1, measured > 2, 0, 0};
	struct vlsp_run won;
	int rc;

	if (note)
		note->text[0] = '\0';
	rc = route_opts_check(opts, err, errlen);
	if (rc)
		return rc;
	n_ways = n_ways < 1 ? 1 : n_ways > VLSP_WAYS ? VLSP_WAYS : n_ways;
	lft_set_init(&won.out);
	rc = measured ? vlsp_pick_measured(&p, n_ways, &won) : vlsp_pick_spread(&p, n_ways, &won);
	if (!rc && p.polished)
		rc = vlsp_pick_note(&won, p.polished, p.was);
	else if (!rc && measured)
		rc = vlsp_pick_per_path(f, &won);
	if (rc)
		return rc;
	*out = won.out;
	if (note)
		*note = won.note;
	return 0;
}

static int vlsp_pick_compute(const struct fabric *f, const struct route_opts *opts,
			     struct lft_set *out, struct route_note *note, char *err, size_t errlen)
{
	size_t n = fabric_count_switches(f);
	unsigned ways = n <= VLSP_PICK_ALL_SW ? VLSP_WAYS : VLSP_PICK_FEW_WAYS;

	if (n > VLSP_PICK_MAX_SW)
		return vlsp_route(f, opts, 1, 0, out, note, err, errlen);
	return vlsp_route(f, opts, ways, n <= VLSP_PICK_ALL_SW ? 3 : 1, out, note, err, errlen);
}

const struct route_engine route_engine_vlsp = {
    .name = "vlsp",
    .summary =
	"balanced shortest paths, deadlock-free over VL layers (SL per destination or per path)",
    .compute = vlsp_pick_compute,
    /* with one data VL it is up-star/down-star routing: a list falls
     * through to updn there */
    .list_min_vls = 2,
};
