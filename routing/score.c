/*
 * score.c - measures a fabric's LFTs: the gate's verdict, path stretch,
 * link loads (EFI, shift all-to-all, random bisections) and LID balance
 * (score_balance.c).  Reads a const fabric and const tables; no I/O, no globals, no clock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "routing/score.h"

#include "routing/score_priv.h"

/* ---- Setup ------------------------------------------------------------- */

static int score_alloc(struct score *sc)
{
	size_t n = sc->f->n_nodes ? sc->f->n_nodes : 1, s = sc->g.n_sw ? sc->g.n_sw : 1;

	sc->sw = calloc(s, sizeof(*sc->sw));
	sc->port_base = malloc(n * sizeof(*sc->port_base));
	sc->ends_at = calloc(s + 1, sizeof(*sc->ends_at));
	sc->hops = malloc(s * sizeof(*sc->hops));
	sc->dist = malloc(s * sizeof(*sc->dist));
	sc->queue = malloc(s * sizeof(*sc->queue));
	sc->stack = malloc(s * sizeof(*sc->stack));
	sc->next = malloc(s * sizeof(*sc->next));
	sc->out = malloc(s);
	sc->flow = malloc(s * sizeof(*sc->flow));
	sc->reach_from = calloc(s, sizeof(*sc->reach_from));
	sc->bucket = malloc((s + 2) * sizeof(*sc->bucket));
	sc->path_cap = s + 2;
	sc->path = malloc(SCORE_BATCH * sc->path_cap * sizeof(*sc->path));
	if (!sc->sw || !sc->port_base || !sc->ends_at || !sc->hops || !sc->dist || !sc->queue ||
	    !sc->stack || !sc->next || !sc->out || !sc->flow || !sc->reach_from || !sc->bucket ||
	    !sc->path)
		return -ENOMEM;
	return 0;
}

static void score_free(struct score *sc)
{
	swgraph_fini(&sc->g);
	free(sc->sw);
	free(sc->port_base);
	free(sc->link_remote);
	free(sc->link_rport);
	free(sc->link_to);
	free(sc->ends);
	free(sc->ends_at);
	free(sc->hops);
	free(sc->dist);
	free(sc->queue);
	free(sc->stack);
	free(sc->next);
	free(sc->out);
	free(sc->flow);
	free(sc->reach_from);
	free(sc->bucket);
	free(sc->efi);
	free(sc->load);
	free(sc->stamp);
	free(sc->self_ok);
	free(sc->path);
	free(sc->end_vl);
	free(sc->efi_vl);
	free(sc->sl_row);
	free(sc->path_vl);
}

/* A link id for every port, and each switch's table. */
static void score_index_nodes(struct score *sc, const struct lft_set *lfts)
{
	size_t ids = 0;

	for (size_t i = 0; i < sc->f->n_nodes; i++) {
		sc->port_base[i] = ids;
		ids += (size_t)sc->f->nodes[i].num_ports + 1;
	}
	sc->n_ids = ids;
	for (size_t s = 0; s < sc->g.n_sw; s++) {
		int node = sc->g.sw_node[s];
		const struct lft *t = lft_set_find_const(lfts, node);

		sc->sw[s] = (struct score_sw){t ? t->port : NULL, (uint32_t)sc->port_base[node],
					      t ? t->top : 0, sc->f->nodes[node].num_ports};
	}
}

/* Where each directed link leads, and the per-link counters. */
static int score_index_links(struct score *sc)
{
	size_t n = sc->n_ids ? sc->n_ids : 1;

	sc->link_remote = malloc(n * sizeof(*sc->link_remote));
	sc->link_rport = malloc(n);
	sc->link_to = malloc(n * sizeof(*sc->link_to));
	sc->efi = calloc(n, sizeof(*sc->efi));
	sc->load = calloc(n, sizeof(*sc->load));
	sc->stamp = calloc(n, sizeof(*sc->stamp));
	if (!sc->link_remote || !sc->link_rport || !sc->link_to || !sc->efi || !sc->load ||
	    !sc->stamp)
		return -ENOMEM;
	for (size_t i = 0; i < sc->f->n_nodes; i++) {
		const struct fabric_node *nd = &sc->f->nodes[i];

		for (unsigned p = 0; p <= nd->num_ports; p++) {
			size_t id = sc->port_base[i] + p;

			sc->link_remote[id] = p ? nd->ports[p].remote_node : FABRIC_NONE;
			sc->link_rport[id] = nd->ports[p].remote_port;
			sc->link_to[id] = sc->link_remote[id] == FABRIC_NONE
					      ? SCORE_TO_NONE
					      : sc->g.sw_of[sc->link_remote[id]];
			sc->res->links += sc->link_remote[id] != FABRIC_NONE;
		}
	}
	return 0;
}

/* Endpoints in leaf order: walk every switch's ports in order. */
static int score_collect_ends(struct score *sc)
{
	size_t n = 0;

	for (int pass = 0; pass < 2; pass++) {
		n = 0;
		for (size_t s = 0; s < sc->g.n_sw; s++) {
			int node = sc->g.sw_node[s];

			sc->ends_at[s] = n;
			for (unsigned p = 1; p <= sc->f->nodes[node].num_ports; p++) {
				size_t id = sc->port_base[node] + p;
				int r = sc->link_remote[id];
				const struct fabric_port *rp;

				if (r == FABRIC_NONE || sc->g.sw_of[r] >= 0)
					continue;
				rp = &sc->f->nodes[r].ports[sc->link_rport[id]];
				if (!rp->lid)
					continue;
				if (pass) {
					sc->ends[n] = (struct score_end){
					    r, sc->link_rport[id], (uint8_t)p, rp->lid, (int)s};
					sc->link_to[id] = SCORE_TO_END(n);
				}
				n++;
			}
		}
		sc->ends_at[sc->g.n_sw] = n;
		if (!pass) {
			sc->ends = malloc((n ? n : 1) * sizeof(*sc->ends));
			sc->self_ok = calloc(n ? n : 1, 1);
			if (!sc->ends || !sc->self_ok)
				return -ENOMEM;
		}
	}
	sc->n_ends = n;
	return 0;
}

/* ---- Following one route ----------------------------------------------- */

/* One step from switch s towards endpoint d (its base LID is lid): the
 * next switch ordinal, SCORE_DELIVERED, or SCORE_FAIL; *port is the port
 * taken.  Reads only the packed hop data: it runs billions of times. */
static int score_step(const struct score *sc, int s, size_t d, uint16_t lid, uint8_t *port)
{
	const struct score_sw *w = &sc->sw[s];
	uint8_t p = w->tab && lid <= w->top ? w->tab[lid] : LFT_DROP;
	int32_t to;

	*port = p;
	if (p == 0 || p > w->num_ports)
		return SCORE_FAIL;
	to = sc->link_to[w->base + p];
	if (to >= 0)
		return to;
	return to == SCORE_TO_END(d) ? SCORE_DELIVERED : SCORE_FAIL;
}

/* Flows walked side by side: each hop is a dependent read in another
 * switch's table (a cache miss on a big fabric), and interleaving
 * independent flows lets those misses overlap. */
struct score_batch {
	size_t n;
	size_t src[SCORE_BATCH], dst[SCORE_BATCH];
	uint16_t lid[SCORE_BATCH];
	size_t len[SCORE_BATCH]; /* links of flow k's route, 0 when not routed */
};

static uint32_t *score_batch_path(const struct score *sc, size_t k)
{
	return sc->path + k * sc->path_cap;
}

/* One hop of flow k from switch *cur; returns 1 while it is under way. */
static int score_batch_hop(struct score *sc, struct score_batch *b, size_t k, int *cur)
{
	uint8_t p;
	int nx = score_step(sc, *cur, b->dst[k], b->lid[k], &p);

	if (nx == SCORE_FAIL) {
		b->len[k] = 0;
		*cur = -1;
		return 0;
	}
	score_batch_path(sc, k)[b->len[k]++] = sc->sw[*cur].base + p;
	*cur = nx == SCORE_DELIVERED ? -1 : nx;
	return *cur >= 0;
}

/* The routes of flows src[k] -> dst[k] into score_batch_path(k). */
static void score_walk_batch(struct score *sc, struct score_batch *b)
{
	int cur[SCORE_BATCH];
	size_t active = b->n;

	for (size_t k = 0; k < b->n; k++) {
		const struct score_end *a = &sc->ends[b->src[k]];

		score_batch_path(sc, k)[0] = (uint32_t)(sc->port_base[a->node] + a->port);
		b->len[k] = 1;
		b->lid[k] = sc->ends[b->dst[k]].lid;
		cur[k] = a->sw;
	}
	for (size_t hop = 0; hop <= sc->g.n_sw && active; hop++) {
		active = 0;
		for (size_t k = 0; k < b->n; k++)
			if (cur[k] >= 0)
				active += (size_t)score_batch_hop(sc, b, k, &cur[k]);
	}
	for (size_t k = 0; k < b->n; k++)
		if (cur[k] >= 0)
			b->len[k] = 0; /* a loop */
}

/* ---- Trees: every switch towards one destination ----------------------- */

/* hops[s]: switch hops from s to end d through the LFTs, or SCORE_FAIL.
 * Follows the chain from s until a known switch, then unwinds it. */
static void score_resolve(struct score *sc, int s, size_t d)
{
	uint16_t lid = sc->ends[d].lid;
	size_t depth = 0;
	int h;

	while (sc->hops[s] == SCORE_UNKNOWN) {
		int nx = score_step(sc, s, d, lid, &sc->out[s]);

		sc->hops[s] = SCORE_BUSY;
		sc->stack[depth++] = s;
		sc->next[s] = nx;
		if (nx < 0) {
			sc->hops[s] = nx == SCORE_DELIVERED ? 0 : SCORE_FAIL;
			depth--;
			break;
		}
		s = nx;
	}
	h = sc->hops[s]; /* SCORE_BUSY: s is on the stack, a loop */
	while (depth) {
		int u = sc->stack[--depth];

		h = h < 0 ? SCORE_FAIL : h + 1;
		sc->hops[u] = h;
	}
}

/* Sources on switch s for destination d (d itself excluded). */
static uint64_t score_sources(const struct score *sc, int s, const struct score_end *d)
{
	return sc->ends_at[s + 1] - sc->ends_at[s] - (s == d->sw);
}

/* Pair counts, hops and stretch of every route to d. */
static void score_tally_pairs(struct score *sc, const struct score_end *d, double *hop_sum,
			      double *stretch_sum, uint64_t *stretched)
{
	struct route_score *res = sc->res;

	res->pairs += sc->n_ends - 1;
	for (size_t s = 0; s < sc->g.n_sw; s++) {
		uint64_t src = score_sources(sc, (int)s, d);
		int h = sc->hops[s];
		unsigned extra;

		if (h < 0)
			continue;
		sc->reach_from[s]++;
		if (!src)
			continue;
		extra = sc->dist[s] >= 0 && h > sc->dist[s] ? (unsigned)(h - sc->dist[s]) : 0;
		res->pairs_routed += src;
		*hop_sum += (double)src * h;
		*stretch_sum += (double)src * extra;
		*stretched += extra ? src : 0;
		if ((unsigned)h > res->hops_max)
			res->hops_max = (unsigned)h;
		if (extra > res->stretch_max)
			res->stretch_max = extra;
	}
}

/* Routes to d form an in-tree: push each switch's sources down it, farthest
 * switches first (bucketed by hop count), adding them to each link's EFI. */
static void score_tally_flows(struct score *sc, const struct score_end *d)
{
	size_t n = sc->g.n_sw, maxh = 0;

	memset(sc->bucket, 0, (n + 2) * sizeof(*sc->bucket));
	for (size_t s = 0; s < n; s++) {
		sc->flow[s] = 0;
		if (sc->hops[s] >= 0) {
			sc->flow[s] = score_sources(sc, (int)s, d);
			sc->bucket[sc->hops[s] + 1]++;
			maxh = (size_t)sc->hops[s] > maxh ? (size_t)sc->hops[s] : maxh;
		}
	}
	for (size_t h = 1; h <= maxh + 1; h++)
		sc->bucket[h] += sc->bucket[h - 1];
	for (size_t s = 0; s < n; s++)
		if (sc->hops[s] >= 0)
			sc->queue[sc->bucket[sc->hops[s]]++] = (int)s;
	for (size_t k = sc->bucket[maxh]; k-- > 0;) {
		int s = sc->queue[k];

		if (!sc->flow[s])
			continue;
		sc->efi[sc->sw[s].base + sc->out[s]] += sc->flow[s];
		if (sc->efi_vl && !sc->lfts->path_sl)
			sc->efi_vl[sc->end_vl[d - sc->ends] * sc->n_ids + sc->sw[s].base +
				   sc->out[s]] += sc->flow[s];
		if (sc->next[s] >= 0)
			sc->flow[sc->next[s]] += sc->flow[s];
	}
	if (sc->lfts->path_sl)
		score_path_flows(sc, d, sc->bucket[maxh]);
}

/* The CA-to-switch link of each endpoint carries one route per
 * destination its switch reaches (itself excluded). */
static void score_tally_sources(struct score *sc)
{
	for (size_t e = 0; e < sc->n_ends; e++) {
		const struct score_end *a = &sc->ends[e];

		sc->efi[sc->port_base[a->node] + a->port] += sc->reach_from[a->sw] - sc->self_ok[e];
	}
}

static void score_trees(struct score *sc)
{
	double hop_sum = 0, stretch_sum = 0;
	uint64_t stretched = 0, routed;
	int bfs_for = -1;

	for (size_t e = 0; e < sc->n_ends; e++) {
		const struct score_end *d = &sc->ends[e];

		if (d->sw != bfs_for)
			swgraph_bfs_from(&sc->g, bfs_for = d->sw, sc->queue, sc->dist, NULL);
		for (size_t s = 0; s < sc->g.n_sw; s++)
			sc->hops[s] = SCORE_UNKNOWN;
		for (size_t s = 0; s < sc->g.n_sw; s++)
			score_resolve(sc, (int)s, e);
		sc->self_ok[e] = sc->hops[d->sw] >= 0;
		routed = sc->res->pairs_routed;
		score_tally_pairs(sc, d, &hop_sum, &stretch_sum, &stretched);
		if (sc->lfts->path_sl)
			score_path_pairs(sc, d);
		else
			sc->res->vl[sc->end_vl[e]].pairs_routed += sc->res->pairs_routed - routed;
		score_tally_flows(sc, d);
	}
	score_tally_sources(sc);
	if (sc->res->pairs_routed) {
		sc->res->hops_mean = hop_sum / (double)sc->res->pairs_routed;
		sc->res->stretch_mean = stretch_sum / (double)sc->res->pairs_routed;
		sc->res->stretched_frac = (double)stretched / (double)sc->res->pairs_routed;
	}
}

/* ---- Link statistics --------------------------------------------------- */

/* Square root by Newton's method from an exponent-halving first guess, so
 * the module needs no libm (the Makefile links none). */
static double score_sqrt(double x)
{
	uint64_t bits;
	double y;

	if (!(x > 0))
		return 0;
	memcpy(&bits, &x, sizeof(bits));
	bits = (bits >> 1) + 0x1FF8000000000000ULL;
	memcpy(&y, &bits, sizeof(y));
	for (int i = 0; i < 8; i++)
		y = 0.5 * (y + x / y);
	return y;
}

static int score_is_switch_link(const struct score *sc, int node, size_t id)
{
	return sc->g.sw_of[node] >= 0 && sc->link_remote[id] != FABRIC_NONE &&
	       sc->g.sw_of[sc->link_remote[id]] >= 0;
}

/* max, mean and cv of the EFI over links (switch-to-switch ones only). */
static void score_efi_stats(const struct score *sc, int switch_only, struct score_load *out)
{
	double sum = 0, var = 0;

	memset(out, 0, sizeof(*out));
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < sc->f->n_nodes; i++) {
			for (unsigned p = 1; p <= sc->f->nodes[i].num_ports; p++) {
				size_t id = sc->port_base[i] + p;
				double x = (double)sc->efi[id];

				if (sc->link_remote[id] == FABRIC_NONE ||
				    (switch_only && !score_is_switch_link(sc, (int)i, id)))
					continue;
				if (pass) {
					var += (x - out->mean) * (x - out->mean);
					continue;
				}
				out->links++;
				sum += x;
				out->max = sc->efi[id] > out->max ? sc->efi[id] : out->max;
			}
		}
		if (!out->links)
			return;
		out->mean = sum / (double)out->links;
	}
	out->cv = out->mean > 0 ? score_sqrt(var / (double)out->links) / out->mean : 0;
}

/* ---- Link loads of a set of flows -------------------------------------- */

/* Start a new set of flows: every link's load counts from 0. */
static void score_loads_reset(struct score *sc)
{
	if (++sc->gen == 0) {
		memset(sc->stamp, 0, sc->n_ids * sizeof(*sc->stamp));
		sc->gen = 1;
	}
}

static uint32_t score_load_add(struct score *sc, uint32_t id)
{
	if (sc->stamp[id] != sc->gen) {
		sc->stamp[id] = sc->gen;
		sc->load[id] = 0;
	}
	return ++sc->load[id];
}

/* ---- Shift all-to-all -------------------------------------------------- */

/* Add a walked batch to the link loads; returns the highest load it met. */
static uint32_t score_batch_load(struct score *sc, const struct score_batch *b)
{
	uint32_t worst = 0;

	for (size_t k = 0; k < b->n; k++) {
		const uint32_t *path = score_batch_path(sc, k);

		for (size_t i = 0; i < b->len[k]; i++) {
			uint32_t l = score_load_add(sc, path[i]);

			worst = l > worst ? l : worst;
		}
	}
	return worst;
}

/* Highest link load when every endpoint i sends to i + s. */
static uint32_t score_shift_load(struct score *sc, size_t shift)
{
	struct score_batch b;
	uint32_t worst = 0;

	score_loads_reset(sc);
	for (size_t i = 0; i < sc->n_ends; i += b.n) {
		b.n = sc->n_ends - i < SCORE_BATCH ? sc->n_ends - i : SCORE_BATCH;
		for (size_t k = 0; k < b.n; k++) {
			b.src[k] = i + k;
			b.dst[k] = (i + k + shift) % sc->n_ends;
		}
		score_walk_batch(sc, &b);
		uint32_t l = score_batch_load(sc, &b);

		worst = l > worst ? l : worst;
	}
	return worst;
}

static void score_shifts(struct score *sc)
{
	struct route_score *res = sc->res;
	size_t total = sc->n_ends > 1 ? sc->n_ends - 1 : 0;
	size_t k_max = sc->opts->shifts < total ? sc->opts->shifts : total;
	double sum = 0;
	size_t ideal = 0;

	res->shifts_total = total;
	for (size_t k = 0; k < k_max; k++) {
		size_t shift = k_max == total ? k + 1 : 1 + k * total / k_max;
		uint32_t worst = score_shift_load(sc, shift);

		if (!res->shifts || worst > res->shift_load_worst) {
			res->shift_load_worst = worst;
			res->shift_worst = shift;
		}
		res->shifts++;
		sum += worst;
		ideal += worst <= 1;
	}
	if (res->shifts) {
		res->shift_load_mean = sum / (double)res->shifts;
		res->shift_ideal_frac = (double)ideal / (double)res->shifts;
	}
}

/* ---- Effective bisection bandwidth ------------------------------------- */

static uint64_t score_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in 0..n-1 (multiply-shift; the bias is below 2^-32 for any n here). */
static size_t score_below(uint64_t *state, size_t n)
{
	return (size_t)(((unsigned __int128)score_splitmix64(state) * n) >> 64);
}

static void score_shuffle(size_t *perm, size_t n, uint64_t *state)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = score_below(state, i), t = perm[i - 1];

		perm[i - 1] = perm[j];
		perm[j] = t;
	}
}

/* Flows of one bisection, their routes stored back to back. */
struct score_flows {
	uint32_t *links;
	size_t *start;	 /* flow k: links[start[k] .. start[k + 1]) (empty: not routed) */
	size_t *partner; /* [d]: the endpoint sending to d, SIZE_MAX for none */
	size_t n, cap;
};

/* Random halves perm[0..half) and perm[half..2 half) paired off in order,
 * one flow each way; with N odd the last endpoint sits out. */
static void score_pair_off(const size_t *perm, size_t n, size_t *partner)
{
	size_t half = n / 2;

	for (size_t i = 0; i < n; i++)
		partner[i] = SIZE_MAX;
	for (size_t k = 0; k < half; k++) {
		partner[perm[half + k]] = perm[k];
		partner[perm[k]] = perm[half + k];
	}
}

/* Store a walked batch's routes and add them to the link loads. */
static int score_flows_append(struct score *sc, struct score_flows *fl, const struct score_batch *b)
{
	for (size_t k = 0; k < b->n; k++) {
		size_t at = fl->start[fl->n], len = b->len[k];
		const uint32_t *path = score_batch_path(sc, k);

		if (TEXT_GROW(fl->links, fl->cap, at + len, at + len) < 0)
			return -ENOMEM;
		for (size_t i = 0; i < len; i++) {
			fl->links[at + i] = path[i];
			score_load_add(sc, path[i]);
		}
		fl->start[++fl->n] = at + len;
	}
	return 0;
}

/* Walk every flow, in destination order (each endpoint receives at most
 * one flow, so its switches' table reads stay close together). */
static int score_bisection_walk(struct score *sc, struct score_flows *fl)
{
	struct score_batch b = {0};
	int rc = 0;

	score_loads_reset(sc);
	fl->n = 0;
	for (size_t d = 0; d < sc->n_ends && !rc; d++) {
		if (fl->partner[d] == SIZE_MAX)
			continue;
		b.src[b.n] = fl->partner[d];
		b.dst[b.n++] = d;
		if (b.n < SCORE_BATCH && d + 1 < sc->n_ends)
			continue;
		score_walk_batch(sc, &b);
		rc = score_flows_append(sc, fl, &b);
		b.n = 0;
	}
	if (!rc && b.n) {
		score_walk_batch(sc, &b);
		rc = score_flows_append(sc, fl, &b);
	}
	return rc;
}

/* Mean per-flow bandwidth of one random bisection. */
static int score_bisection(struct score *sc, struct score_flows *fl, const size_t *perm, double *bw)
{
	double sum = 0;
	int rc;

	score_pair_off(perm, sc->n_ends, fl->partner);
	rc = score_bisection_walk(sc, fl);
	for (size_t k = 0; k < fl->n && !rc; k++) {
		uint32_t worst = 0;

		for (size_t i = fl->start[k]; i < fl->start[k + 1]; i++)
			worst = sc->load[fl->links[i]] > worst ? sc->load[fl->links[i]] : worst;
		sum += worst ? 1.0 / worst : 0;
	}
	*bw = fl->n ? sum / (double)fl->n : 0;
	return rc;
}

static void score_ebb_stats(struct route_score *res, const double *bw, size_t n)
{
	double sum = 0, var = 0, half;

	res->ebb_min = res->ebb_max = bw[0];
	for (size_t b = 0; b < n; b++) {
		sum += bw[b];
		res->ebb_min = bw[b] < res->ebb_min ? bw[b] : res->ebb_min;
		res->ebb_max = bw[b] > res->ebb_max ? bw[b] : res->ebb_max;
	}
	res->ebb_mean = sum / (double)n;
	for (size_t b = 0; b < n; b++)
		var += (bw[b] - res->ebb_mean) * (bw[b] - res->ebb_mean);
	half = n > 1 ? SCORE_Z95 * score_sqrt(var / (double)(n - 1)) / score_sqrt((double)n) : 0;
	res->ebb_ci_low = res->ebb_mean - half;
	res->ebb_ci_high = res->ebb_mean + half;
}

static int score_bisections(struct score *sc)
{
	size_t nb = sc->opts->bisections, half = sc->n_ends / 2;
	struct score_flows fl = {0};
	uint64_t state = sc->opts->seed;
	size_t *perm;
	double *bw;
	int rc = 0;

	if (!nb || !half)
		return 0;
	perm = malloc(sc->n_ends * sizeof(*perm));
	bw = malloc(nb * sizeof(*bw));
	fl.start = calloc(2 * half + 1, sizeof(*fl.start));
	fl.partner = malloc(sc->n_ends * sizeof(*fl.partner));
	if (!perm || !bw || !fl.start || !fl.partner)
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < sc->n_ends; i++)
		perm[i] = i;
	for (size_t b = 0; b < nb && !rc; b++) {
		score_shuffle(perm, sc->n_ends, &state);
		rc = score_bisection(sc, &fl, perm, &bw[b]);
	}
	if (!rc) {
		sc->res->bisections = nb;
		score_ebb_stats(sc->res, bw, nb);
	}
	free(perm);
	free(bw);
	free(fl.start);
	free(fl.partner);
	free(fl.links);
	return rc;
}

/* ---- The report -------------------------------------------------------- */

void score_opts_default(struct score_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->shifts = SCORE_SHIFTS_DEFAULT;
	o->bisections = SCORE_BISECTIONS_DEFAULT;
	o->seed = SCORE_SEED_DEFAULT;
}

/* Each endpoint's VL (its base LID's SL; 15 and up count as 15), how
 * many on each VL, and the per-VL EFI counters when there are two VLs or
 * more. */
static int score_vls_setup(struct score *sc)
{
	struct route_score *res = sc->res;

	sc->end_vl = calloc(sc->n_ends ? sc->n_ends : 1, 1);
	if (!sc->end_vl)
		return -ENOMEM;
	res->n_vls = 1;
	for (size_t e = 0; e < sc->n_ends && !sc->lfts->path_sl; e++) {
		uint8_t v = lft_set_sl(sc->lfts, sc->ends[e].lid);

		sc->end_vl[e] = v < SCORE_VLS ? v : SCORE_VLS - 1;
		res->vl[sc->end_vl[e]].endpoints++;
		if (sc->end_vl[e] + 1u > res->n_vls)
			res->n_vls = sc->end_vl[e] + 1u;
	}
	if (sc->lfts->path_sl && score_path_vls_setup(sc))
		return -ENOMEM;
	if (res->n_vls > 1 && !(sc->efi_vl = calloc(res->n_vls * sc->n_ids, sizeof(*sc->efi_vl))))
		return -ENOMEM;
	return 0;
}

/* The busiest switch-to-switch link of each VL. */
static void score_vl_stats(struct score *sc)
{
	for (unsigned v = 0; v < sc->res->n_vls; v++) {
		const uint64_t *efi = sc->efi_vl ? &sc->efi_vl[v * sc->n_ids] : sc->efi;
		uint64_t max = 0;

		for (size_t i = 0; i < sc->f->n_nodes; i++)
			for (unsigned p = 1; p <= sc->f->nodes[i].num_ports; p++) {
				size_t id = sc->port_base[i] + p;

				if (score_is_switch_link(sc, (int)i, id) && efi[id] > max)
					max = efi[id];
			}
		sc->res->vl[v].efi_switch_max = max;
	}
}

static int score_setup(struct score *sc, const struct lft_set *lfts)
{
	int rc = swgraph_init(&sc->g, sc->f, 1);

	if (!rc)
		rc = score_alloc(sc);
	if (rc)
		return rc;
	score_index_nodes(sc, lfts);
	rc = score_index_links(sc);
	if (!rc)
		rc = score_collect_ends(sc);
	if (!rc)
		rc = score_vls_setup(sc);
	return rc;
}

int score_run(const struct fabric *f, const struct lft_set *lfts, const struct score_opts *opts,
	      struct route_score *res)
{
	struct score sc = {.f = f, .opts = opts, .res = res, .lfts = lfts};
	struct route_check gate;
	int rc, gate_rc = 0;

	if (opts->gate_given) {
		gate = res->check;
		gate_rc = res->gate_rc;
	}
	memset(res, 0, sizeof(*res));
	res->lids_spread_node = FABRIC_NONE;
	res->switches = fabric_count_switches(f);
	if (opts->gate_given) {
		res->check = gate;
		res->gate_rc = gate_rc;
	} else {
		res->gate_rc = route_check_run(f, lfts, &opts->check, &res->check);
	}
	rc = res->gate_rc == -ENOMEM ? -ENOMEM : score_setup(&sc, lfts);
	if (!rc) {
		res->endpoints = sc.n_ends;
		score_trees(&sc);
		score_efi_stats(&sc, 0, &res->efi);
		score_efi_stats(&sc, 1, &res->efi_switch);
		score_vl_stats(&sc);
		score_balance_lids(&sc);
		score_shifts(&sc);
		rc = score_bisections(&sc);
	}
	score_free(&sc);
	return rc;
}
