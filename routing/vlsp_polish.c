/*
 * vlsp_polish.c - the EBB estimate and the polish of finished tables
 * (see vlsp_polish.h): owns the paths between switches with CAs, the
 * per-channel laws and the moves.  No I/O, no globals.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/swgraph.h"
#include "routing/vlsp_again.h"
#include "routing/vlsp_polish.h"

#define VLSP_POLISH_K VLSP_POLISH_LOADS
/* A move is kept when the estimate's sum over pairs grows by more. */
#define VLSP_POLISH_EPS 1e-9
/* vlsp_polish_move's answer when out of memory. */
#define VLSP_POLISH_NOMEM (-1e300)

struct vlsp_polish {
	struct lft_set *out;
	struct swgraph g;
	struct swgraph_dests dests;
	struct vlsp_again idx; /* its chan_of: (switch, port) -> channel */
	size_t n_chan;
	int *tail; /* channel -> the switch it leaves */
	/* CA ports (base LIDs), in the order of dests */
	size_t n_end;
	uint16_t *end_lid;
	int *end_sw;
	/* switches with CAs: the sources */
	size_t n_src;
	int *src_of; /* switch -> source index, -1 */
	int *src_sw;
	uint32_t *h; /* source -> its CAs */
	int *dist;   /* [t * n_sw + s]: hops from s to t */
	/* paths, id = source * n_end + CA */
	size_t maxlen;
	uint32_t *pch; /* [id * maxlen + i] */
	uint16_t *plen;
	double *val;	/* expected 1 / the most loaded, per path */
	uint32_t *cnt;	/* [c * n_src + source]: its paths to CAs over c */
	uint64_t *load; /* channel -> ordered CA pairs over it */
	double *pmf;	/* [c * (K + 1) + k]: P(k flows over c) */
	/* channel -> the paths over it */
	uint32_t **lst;
	size_t *lst_n, *lst_cap;
	/* scratch */
	uint32_t *newc;
	int *dcnt; /* channel -> change of a move */
	uint32_t *touched;
	size_t n_touched;
	uint32_t *mark, gen; /* path -> last move that valued it */
	uint32_t *aff;	     /* sources a move reroutes */
	uint16_t *apre;	     /* ... and their hops before the switch moved */
	double inv;	     /* 1 / (CAs - 1) */
};

static void vlsp_polish_fini(struct vlsp_polish *v)
{
	for (size_t c = 0; v->lst && c < v->n_chan; c++)
		free(v->lst[c]);
	free(v->lst);
	free(v->lst_n);
	free(v->lst_cap);
	free(v->tail);
	free(v->end_lid);
	free(v->end_sw);
	free(v->src_of);
	free(v->src_sw);
	free(v->h);
	free(v->dist);
	free(v->pch);
	free(v->plen);
	free(v->val);
	free(v->cnt);
	free(v->load);
	free(v->pmf);
	free(v->newc);
	free(v->dcnt);
	free(v->touched);
	free(v->mark);
	free(v->aff);
	free(v->apre);
	vlsp_again_fini(&v->idx);
	swgraph_dests_fini(&v->dests);
	swgraph_fini(&v->g);
}

/* Follow the tables from switch s to CA j's switch: the channels into
 * buf (room for n_sw) unless NULL; the hops, -1 when they do not lead
 * there over switch cables. */
static long vlsp_polish_follow(const struct vlsp_polish *v, size_t s, size_t j, uint32_t *buf)
{
	size_t k = 0, d = (size_t)v->end_sw[j];
	uint16_t lid = v->end_lid[j];

	while (s != d) {
		const struct lft *t = &v->out->tables[s];
		uint8_t p = lid <= t->top ? t->port[lid] : LFT_DROP;
		uint32_t e;

		if (p == LFT_DROP || p > v->g.f->nodes[v->g.sw_node[s]].num_ports || k >= v->g.n_sw)
			return -1;
		e = v->idx.chan_of[v->g.port_base[s] + p];
		if (e == UINT32_MAX)
			return -1;
		if (buf)
			buf[k] = e;
		k++;
		s = (size_t)v->g.adj[e].sw;
	}
	return (long)k;
}

/* pm: the flows over c, without one yes/no of sources a and b (-1:
 * none), built from the counts. */
static void vlsp_polish_law(const struct vlsp_polish *v, size_t c, long a, long b, double *pm)
{
	pm[0] = 1;
	for (size_t k = 1; k <= VLSP_POLISH_K; k++)
		pm[k] = 0;
	for (size_t si = 0; si < v->n_src; si++) {
		uint32_t n = v->cnt[c * v->n_src + si], reps = v->h[si];
		double p = n * v->inv;

		reps -= (long)si == a ? 1u : 0u;
		reps -= (long)si == b && reps ? 1u : 0u;
		for (uint32_t r = 0; n && r < reps; r++) {
			for (size_t k = VLSP_POLISH_K; k > 0; k--)
				pm[k] = pm[k] * (1 - p) + pm[k - 1] * p;
			pm[0] *= 1 - p;
		}
	}
}

/* One yes/no of chance p taken out of pm (p <= 1/2: stable). */
static void vlsp_polish_unmix(double *pm, double p)
{
	double q = 1 / (1 - p);

	pm[0] *= q;
	for (size_t k = 1; k <= VLSP_POLISH_K; k++)
		pm[k] = (pm[k] - p * pm[k - 1]) * q;
}

/* Path id's expected 1 / the load of its most loaded channel. */
static double vlsp_polish_value(const struct vlsp_polish *v, size_t id)
{
	size_t si = id / v->n_end, j = id % v->n_end, len = v->plen[id];
	long b = v->src_of[v->end_sw[j]];
	double cdf[VLSP_POLISH_K + 1], pm[VLSP_POLISH_K + 1], e, acc;

	for (size_t k = 0; k <= VLSP_POLISH_K; k++)
		cdf[k] = 1;
	for (size_t i = 0; i < len; i++) {
		size_t c = v->pch[id * v->maxlen + i];
		double pa = v->cnt[c * v->n_src + si] * v->inv;
		double pb = v->cnt[c * v->n_src + (size_t)b] * v->inv;

		if (pa > 0.5 || pb > 0.5) {
			vlsp_polish_law(v, c, (long)si, b, pm);
		} else {
			memcpy(pm, &v->pmf[c * (VLSP_POLISH_K + 1)], sizeof(pm));
			vlsp_polish_unmix(pm, pa);
			if (pb > 0)
				vlsp_polish_unmix(pm, pb);
		}
		acc = 0;
		for (size_t k = 0; k <= VLSP_POLISH_K; k++) {
			acc += pm[k];
			cdf[k] *= acc < 0 ? 0 : acc > 1 ? 1 : acc;
		}
	}
	/* load 1 + k with chance cdf[k] - cdf[k - 1]; the rest: K + 2 */
	e = cdf[0];
	for (size_t k = 1; k <= VLSP_POLISH_K; k++)
		e += (cdf[k] - cdf[k - 1]) / (double)(k + 1);
	return e + (1 - cdf[VLSP_POLISH_K]) / (double)(VLSP_POLISH_K + 2);
}

static int vlsp_polish_list_add(struct vlsp_polish *v, size_t c, uint32_t id)
{
	if (v->lst_n[c] == v->lst_cap[c]) {
		size_t cap = v->lst_cap[c] ? 2 * v->lst_cap[c] : 16;
		uint32_t *p = realloc(v->lst[c], cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		v->lst[c] = p;
		v->lst_cap[c] = cap;
	}
	v->lst[c][v->lst_n[c]++] = id;
	return 0;
}

static void vlsp_polish_list_del(struct vlsp_polish *v, size_t c, uint32_t id)
{
	for (size_t i = 0; i < v->lst_n[c]; i++)
		if (v->lst[c][i] == id) {
			v->lst[c][i] = v->lst[c][--v->lst_n[c]];
			return;
		}
}

/* Index the switches, CAs and channels. 0, 1 (no CA pair, not one table
 * per switch), -ENOMEM. */
static int vlsp_polish_index(struct vlsp_polish *v, const struct fabric *f)
{
	char err[128];
	size_t n_sw;
	uint16_t top = 0;
	int rc = swgraph_init(&v->g, f, 0);

	if (rc)
		return rc;
	n_sw = v->g.n_sw;
	if (v->out->n != n_sw || !n_sw)
		return 1;
	for (size_t s = 0; s < n_sw; s++) {
		if (v->out->tables[s].node != v->g.sw_node[s])
			return 1;
		top = v->out->tables[s].top > top ? v->out->tables[s].top : top;
	}
	rc = swgraph_collect_dests(&v->g, top, 0, &v->dests, err, sizeof(err));
	if (rc)
		return rc == -ENOMEM ? rc : 1;
	rc = vlsp_again_init(&v->idx, &v->g, v->out, NULL);
	if (rc)
		return rc;
	v->n_chan = v->g.adj_start[n_sw];
	v->tail = malloc((v->n_chan ? v->n_chan : 1) * sizeof(*v->tail));
	v->end_lid = malloc((v->dests.n ? v->dests.n : 1) * sizeof(*v->end_lid));
	v->end_sw = malloc((v->dests.n ? v->dests.n : 1) * sizeof(*v->end_sw));
	v->src_of = malloc(n_sw * sizeof(*v->src_of));
	v->src_sw = malloc(n_sw * sizeof(*v->src_sw));
	v->h = calloc(n_sw, sizeof(*v->h));
	if (!v->tail || !v->end_lid || !v->end_sw || !v->src_of || !v->src_sw || !v->h)
		return -ENOMEM;
	for (size_t s = 0; s < n_sw; s++) {
		v->src_of[s] = -1;
		for (size_t e = v->g.adj_start[s]; e < v->g.adj_start[s + 1]; e++)
			v->tail[e] = (int)s;
	}
	for (size_t i = 0; i < v->dests.n; i++) {
		const struct swgraph_dest *d = &v->dests.v[i];

		if (!d->exit_port || d->offset)
			continue;
		if (v->src_of[d->sw] < 0) {
			v->src_of[d->sw] = (int)v->n_src;
			v->src_sw[v->n_src++] = d->sw;
		}
		v->h[v->src_of[d->sw]]++;
		v->end_lid[v->n_end] = d->lid;
		v->end_sw[v->n_end++] = d->sw;
	}
	if (v->n_end < 2)
		return 1;
	v->inv = 1.0 / (double)(v->n_end - 1);
	return 0;
}

/* Every path, its channels' counts and laws, the lists, the values.
 * 0, 1 (a path does not lead to its CA), -ENOMEM. */
static int vlsp_polish_paths(struct vlsp_polish *v)
{
	size_t n_sw = v->g.n_sw, n_id = v->n_src * v->n_end, chans = v->n_chan ? v->n_chan : 1;
	int *queue = malloc(n_sw * sizeof(*queue));
	int rc = 0;

	v->dist = malloc(n_sw * n_sw * sizeof(*v->dist));
	if (!queue || !v->dist) {
		free(queue);
		return -ENOMEM;
	}
	for (size_t t = 0; t < n_sw; t++)
		swgraph_bfs_from(&v->g, (int)t, queue, &v->dist[t * n_sw], NULL);
	free(queue);
	for (size_t id = 0; id < n_id; id++) {
		long k =
		    vlsp_polish_follow(v, (size_t)v->src_sw[id / v->n_end], id % v->n_end, NULL);

		if (k < 0)
			return 1;
		v->maxlen = (size_t)k > v->maxlen ? (size_t)k : v->maxlen;
	}
	v->maxlen = v->maxlen ? v->maxlen : 1;
	v->pch = malloc(n_id * v->maxlen * sizeof(*v->pch));
	v->plen = malloc(n_id * sizeof(*v->plen));
	v->val = calloc(n_id, sizeof(*v->val));
	v->mark = calloc(n_id, sizeof(*v->mark));
	v->cnt = calloc(chans * v->n_src, sizeof(*v->cnt));
	v->load = calloc(chans, sizeof(*v->load));
	v->pmf = malloc(chans * (VLSP_POLISH_K + 1) * sizeof(*v->pmf));
	v->lst = calloc(chans, sizeof(*v->lst));
	v->lst_n = calloc(chans, sizeof(*v->lst_n));
	v->lst_cap = calloc(chans, sizeof(*v->lst_cap));
	v->newc = malloc(n_sw * sizeof(*v->newc));
	v->dcnt = calloc(chans, sizeof(*v->dcnt));
	v->touched = malloc(2 * n_sw * sizeof(*v->touched));
	v->aff = malloc(v->n_src * sizeof(*v->aff));
	v->apre = malloc(v->n_src * sizeof(*v->apre));
	if (!v->pch || !v->plen || !v->val || !v->mark || !v->cnt || !v->load || !v->pmf ||
	    !v->lst || !v->lst_n || !v->lst_cap || !v->newc || !v->dcnt || !v->touched || !v->aff ||
	    !v->apre)
		return -ENOMEM;
	for (size_t id = 0; id < n_id && !rc; id++) {
		size_t si = id / v->n_end;
		long k = vlsp_polish_follow(v, (size_t)v->src_sw[si], id % v->n_end,
					    &v->pch[id * v->maxlen]);

		v->plen[id] = (uint16_t)k;
		for (long i = 0; i < k && !rc; i++) {
			size_t c = v->pch[id * v->maxlen + (size_t)i];

			v->cnt[c * v->n_src + si]++;
			v->load[c] += v->h[si];
			rc = vlsp_polish_list_add(v, c, (uint32_t)id);
		}
	}
	for (size_t c = 0; c < v->n_chan; c++)
		vlsp_polish_law(v, c, -1, -1, &v->pmf[c * (VLSP_POLISH_K + 1)]);
	for (size_t id = 0; id < n_id && !rc; id++)
		v->val[id] = v->plen[id] ? vlsp_polish_value(v, id) : 1;
	return rc;
}

static int vlsp_polish_setup(struct vlsp_polish *v, const struct fabric *f)
{
	int rc = vlsp_polish_index(v, f);

	return rc ? rc : vlsp_polish_paths(v);
}

/* The sum over ordered CA pairs (a pair behind one switch: 1). */
static double vlsp_polish_sum(const struct vlsp_polish *v)
{
	double sum = 0;

	for (size_t id = 0; id < v->n_src * v->n_end; id++)
		sum += v->h[id / v->n_end] * v->val[id];
	/* a CA is no pair with itself: its own "path" counted 1 above */
	return sum - (double)v->n_end;
}

int vlsp_polish_estimate(const struct fabric *f, const struct lft_set *out, double *ebb)
{
	struct vlsp_polish v = {.out = (struct lft_set *)out};
	int rc = vlsp_polish_setup(&v, f);

	if (!rc)
		*ebb = vlsp_polish_sum(&v) / ((double)v.n_end * (double)(v.n_end - 1));
	vlsp_polish_fini(&v);
	return rc;
}

/* The sources whose paths to CA j cross switch s, into aff/apre; how
 * many. */
static size_t vlsp_polish_affected(struct vlsp_polish *v, int s, size_t j)
{
	size_t n = 0;

	for (size_t si = 0; si < v->n_src; si++) {
		size_t id = si * v->n_end + j;

		for (size_t i = 0; i < v->plen[id]; i++)
			if (v->tail[v->pch[id * v->maxlen + i]] == s) {
				v->aff[n] = (uint32_t)si;
				v->apre[n++] = (uint16_t)i;
				break;
			}
	}
	return n;
}

/* Switch s sends CA j's LID on channel e_to instead (its suffix, nlen
 * hops, in newc) for the n affected sources: counts, laws, paths,
 * lists and values follow.  Returns the change of the sum, or
 * VLSP_POLISH_NOMEM. */
static double vlsp_polish_move(struct vlsp_polish *v, size_t j, uint32_t e_to, size_t nlen,
			       size_t n)
{
	size_t id0 = v->aff[0] * v->n_end + j, pre0 = v->apre[0];
	size_t olen = v->plen[id0] - pre0, s = (size_t)v->tail[e_to];
	const uint32_t *oldc = &v->pch[id0 * v->maxlen + pre0];
	double delta = 0;
	int nomem = 0;

	v->out->tables[s].port[v->end_lid[j]] = v->g.adj[e_to].port;
	v->n_touched = 0;
	for (size_t i = 0; i < olen + nlen; i++) {
		uint32_t c = i < olen ? oldc[i] : v->newc[i - olen];

		if (!v->dcnt[c])
			v->touched[v->n_touched++] = c;
		v->dcnt[c] += i < olen ? -1 : 1;
	}
	for (size_t a = 0; a < n; a++)
		for (size_t t = 0; t < v->n_touched; t++) {
			uint32_t c = v->touched[t];

			v->cnt[c * v->n_src + v->aff[a]] += (uint32_t)v->dcnt[c];
			v->load[c] += (uint64_t)((int64_t)v->dcnt[c] * v->h[v->aff[a]]);
		}
	for (size_t t = 0; t < v->n_touched; t++)
		if (v->dcnt[v->touched[t]])
			vlsp_polish_law(v, v->touched[t], -1, -1,
					&v->pmf[v->touched[t] * (VLSP_POLISH_K + 1)]);
	for (size_t a = 0; a < n; a++) {
		uint32_t id = (uint32_t)(v->aff[a] * v->n_end + j);

		for (size_t t = 0; t < v->n_touched; t++) {
			uint32_t c = v->touched[t];

			if (v->dcnt[c] < 0)
				vlsp_polish_list_del(v, c, id);
			else if (v->dcnt[c] > 0 && vlsp_polish_list_add(v, c, id))
				nomem = 1;
		}
		memcpy(&v->pch[id * v->maxlen + v->apre[a]], v->newc, nlen * sizeof(*v->newc));
		v->plen[id] = (uint16_t)(v->apre[a] + nlen);
	}
	v->gen++;
	for (size_t t = 0; t < v->n_touched; t++) {
		uint32_t c = v->touched[t];

		for (size_t i = 0; v->dcnt[c] && i < v->lst_n[c]; i++) {
			uint32_t id = v->lst[c][i];
			double val;

			if (v->mark[id] == v->gen)
				continue;
			v->mark[id] = v->gen;
			val = vlsp_polish_value(v, id);
			delta += v->h[id / v->n_end] * (val - v->val[id]);
			v->val[id] = val;
		}
	}
	for (size_t t = 0; t < v->n_touched; t++)
		v->dcnt[v->touched[t]] = 0;
	return nomem ? VLSP_POLISH_NOMEM : delta;
}

/* Switch s's entry for CA j: each other port one hop nearer to j's
 * switch over a lighter channel, kept when the sum grows.  Returns 1
 * moved, 0 not, -ENOMEM. */
static int vlsp_polish_entry(struct vlsp_polish *v, size_t s, size_t j)
{
	size_t d = (size_t)v->end_sw[j], n_sw = v->g.n_sw, n, olen, id0;
	const struct lft *t = &v->out->tables[s];
	uint8_t p = v->end_lid[j] <= t->top ? t->port[v->end_lid[j]] : LFT_DROP;
	uint32_t e_from;
	int hops = v->dist[d * n_sw + s];

	if (p == LFT_DROP || p > v->g.f->nodes[v->g.sw_node[s]].num_ports)
		return 0;
	e_from = v->idx.chan_of[v->g.port_base[s] + p];
	if (e_from == UINT32_MAX || !(n = vlsp_polish_affected(v, (int)s, j)))
		return 0;
	id0 = v->aff[0] * v->n_end + j;
	olen = v->plen[id0] - v->apre[0];
	if (olen != (size_t)hops)
		return 0; /* not a shortest way from here: left alone */
	for (size_t e = v->g.adj_start[s]; e < v->g.adj_start[s + 1]; e++) {
		size_t far = (size_t)v->g.adj[e].sw;
		long k;
		double delta;

		if (e == e_from || v->dist[d * n_sw + far] != hops - 1 ||
		    v->load[e] >= v->load[e_from])
			continue;
		v->newc[0] = (uint32_t)e;
		k = vlsp_polish_follow(v, far, j, &v->newc[1]);
		if (k != hops - 1)
			continue;
		delta = vlsp_polish_move(v, j, (uint32_t)e, (size_t)hops, n);
		if (delta == VLSP_POLISH_NOMEM)
			return -ENOMEM;
		if (delta > VLSP_POLISH_EPS)
			return 1;
		/* back: the old suffix, from the first affected path's prefix */
		v->newc[0] = e_from;
		vlsp_polish_follow(v, (size_t)v->g.adj[e_from].sw, j, &v->newc[1]);
		if (vlsp_polish_move(v, j, e_from, (size_t)hops, n) == VLSP_POLISH_NOMEM)
			return -ENOMEM;
	}
	return 0;
}

int vlsp_polish(const struct fabric *f, struct lft_set *out, unsigned passes)
{
	struct vlsp_polish v = {.out = out};
	int rc = vlsp_polish_setup(&v, f), moves = 0, pass_moves = 1;

	for (unsigned k = 0; !rc && pass_moves && k < passes; k++) {
		pass_moves = 0;
		for (size_t s = 0; s < v.g.n_sw && rc >= 0; s++)
			for (size_t j = 0; j < v.n_end && rc >= 0; j++) {
				if ((size_t)v.end_sw[j] == s)
					continue;
				rc = vlsp_polish_entry(&v, s, j);
				pass_moves += rc > 0;
				rc = rc > 0 ? 0 : rc;
			}
		moves += pass_moves;
	}
	vlsp_polish_fini(&v);
	return rc < 0 ? rc : moves;
}
