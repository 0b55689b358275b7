/*
 * vlsp_polish.c - the polish of finished tables (see vlsp_polish.h):
 * owns the paths between switches with CAs, the per-channel counts and
 * lists, the layers' turns and the moves; the estimate they are valued
 * by is vlsp_polish_est.c's.  No I/O, no globals.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/vlsp_polish_priv.h"

/* A move is kept when the estimate's sum over pairs grows by more. */
#define VLSP_POLISH_EPS 1e-9
/* vlsp_polish_move's answers when out of memory, when a shift load
 * went too high. */
#define VLSP_POLISH_NOMEM (-1e300)
#define VLSP_POLISH_OVER (-1e299)

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
	free(v->first);
	free(v->shl);
	free(v->jid);
	free(v->jval);
	free(v->dist);
	free(v->pch);
	free(v->plen);
	free(v->val);
	free(v->cnt);
	free(v->load);
	free(v->pmf);
	free(v->top);
	free(v->newc);
	free(v->dcnt);
	free(v->touched);
	free(v->mark);
	free(v->aff);
	free(v->apre);
	free(v->walk);
	free(v->cross_l);
	free(v->cross_in);
	free(v->added);
	free(v->tuse);
	vlsp_polish_est_fini(v);
	vlsp_layers_fini(&v->ls);
	vlsp_again_fini(&v->idx);
	swgraph_fini(&v->g);
}

/* The channels from switch s to CA j into buf (vlsp_again_walk). */
static long vlsp_polish_follow(const struct vlsp_polish *v, size_t s, size_t j, uint32_t *buf)
{
	return vlsp_again_walk(&v->idx, s, v->end_lid[j], (size_t)v->end_sw[j], buf);
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

/* Index the switches, CAs and channels. 0, 1 (fewer than 2 CAs, not
 * one table per switch), -ENOMEM. */
static int vlsp_polish_index(struct vlsp_polish *v, const struct fabric *f)
{
	size_t n_sw, slots;
	int rc = swgraph_init(&v->g, f, 0);

	if (rc)
		return rc;
	n_sw = v->g.n_sw;
	slots = v->g.port_base[n_sw] ? v->g.port_base[n_sw] : 1;
	if (v->out->n != n_sw || !n_sw)
		return 1;
	for (size_t s = 0; s < n_sw; s++)
		if (v->out->tables[s].node != v->g.sw_node[s])
			return 1;
	rc = vlsp_again_init(&v->idx, &v->g, v->out, NULL);
	if (rc)
		return rc;
	v->n_chan = v->g.adj_start[n_sw];
	v->tail = malloc((v->n_chan ? v->n_chan : 1) * sizeof(*v->tail));
	v->end_lid = malloc(slots * sizeof(*v->end_lid));
	v->end_sw = malloc(slots * sizeof(*v->end_sw));
	v->src_of = malloc(n_sw * sizeof(*v->src_of));
	v->src_sw = malloc(n_sw * sizeof(*v->src_sw));
	v->h = calloc(n_sw, sizeof(*v->h));
	v->first = calloc(n_sw, sizeof(*v->first));
	if (!v->tail || !v->end_lid || !v->end_sw || !v->src_of || !v->src_sw || !v->h || !v->first)
		return -ENOMEM;
	for (size_t s = 0; s < n_sw; s++) {
		const struct fabric_node *nd = &f->nodes[v->g.sw_node[s]];

		v->src_of[s] = -1;
		for (size_t e = v->g.adj_start[s]; e < v->g.adj_start[s + 1]; e++)
			v->tail[e] = (int)s;
		for (unsigned p = 1; p <= nd->num_ports; p++) {
			int r = nd->ports[p].remote_node;
			const struct fabric_port *rp;

			if (r == FABRIC_NONE || v->g.sw_of[r] >= 0)
				continue;
			rp = &f->nodes[r].ports[nd->ports[p].remote_port];
			if (!rp->lid)
				continue;
			if (v->src_of[s] < 0) {
				v->src_of[s] = (int)v->n_src;
				v->first[v->n_src] = v->n_end;
				v->src_sw[v->n_src++] = (int)s;
			}
			v->h[v->src_of[s]]++;
			v->end_lid[v->n_end] = rp->lid;
			v->end_sw[v->n_end++] = (int)s;
		}
	}
	if (v->n_end < 2)
		return 1;
	v->inv = 1.0 / (double)(v->n_end - 1);
	return 0;
}

/* Add sign times path id's flows to the shift loads; returns the
 * highest load it left on a channel of the path. */
static uint32_t vlsp_polish_shift_count(struct vlsp_polish *v, size_t id, int sign)
{
	size_t si = id / v->n_end, j = id % v->n_end, n = v->n_end;
	uint32_t top = 0;

	for (size_t a = v->first[si]; a < v->first[si] + v->h[si]; a++) {
		uint16_t *row = &v->shl[((j + n - a) % n) * v->n_chan];

		for (size_t i = 0; i < v->plen[id]; i++) {
			uint16_t *l = &row[v->pch[id * v->maxlen + i]];

			*l = (uint16_t)(*l + sign);
			top = *l > top ? *l : top;
		}
	}
	return top;
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
	v->top = malloc(chans);
	v->lst = calloc(chans, sizeof(*v->lst));
	v->lst_n = calloc(chans, sizeof(*v->lst_n));
	v->lst_cap = calloc(chans, sizeof(*v->lst_cap));
	v->newc = malloc(n_sw * sizeof(*v->newc));
	v->dcnt = calloc(chans, sizeof(*v->dcnt));
	v->touched = malloc(2 * n_sw * sizeof(*v->touched));
	v->aff = malloc(v->n_src * sizeof(*v->aff));
	v->apre = malloc(v->n_src * sizeof(*v->apre));
	v->walk = malloc(n_sw * sizeof(*v->walk));
	v->cross_l = malloc(n_sw * sizeof(*v->cross_l));
	v->cross_in = malloc(n_sw * sizeof(*v->cross_in));
	v->jid = malloc(n_id * sizeof(*v->jid));
	v->jval = malloc(n_id * sizeof(*v->jval));
	v->shl = calloc(v->n_end * chans, sizeof(*v->shl));
	if (!v->pch || !v->plen || !v->val || !v->mark || !v->cnt || !v->load || !v->pmf ||
	    !v->top || !v->lst || !v->lst_n || !v->lst_cap || !v->newc || !v->dcnt || !v->touched ||
	    !v->aff || !v->apre || !v->walk || !v->cross_l || !v->cross_in || !v->jid || !v->jval ||
	    !v->shl || vlsp_polish_est_init(v, chans))
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
	v->shl_max = 1; /* a CA's own cables */
	for (size_t id = 0; id < n_id && !rc; id++) {
		uint32_t top = vlsp_polish_shift_count(v, id, 1);

		v->shl_max = top > v->shl_max ? top : v->shl_max;
	}
	for (size_t c = 0; c < v->n_chan; c++)
		vlsp_polish_est_chan(v, c);
	v->gen = 1;
	for (size_t id = 0; id < n_id && !rc; id++) {
		v->val[id] = v->plen[id] ? vlsp_polish_est_path(v, id) : 1;
		v->mark[id] = v->gen;
	}
	return rc;
}

/* With path_sl: every path the gate follows (to a CA's LID from every
 * switch of its component, to a switch's own from those with CAs) put
 * on its layer, turn by turn.  0, 1 (not layered so: no polish),
 * -ENOMEM. */
static int vlsp_polish_layers(struct vlsp_polish *v)
{
	struct swgraph_dests dests = {0};
	char err[128];
	int rc;

	if (!v->out->path_sl)
		return 0;
	v->row = (size_t)v->out->sl_top + 1;
	rc = vlsp_layers_init(&v->ls, &v->g, NULL);
	for (unsigned l = 0; !rc && l < v->out->n_vls; l++)
		rc = vlsp_layers_add_layer(&v->ls, 0) < 0 ? -ENOMEM : 0;
	v->tuse = rc ? NULL : calloc((size_t)v->ls.n * v->ls.turn_bits + 1, sizeof(*v->tuse));
	rc = rc ? rc : v->tuse ? 0 : -ENOMEM;
	rc = rc ? rc : swgraph_collect_dests(&v->g, v->out->sl_top, 1, &dests, err, sizeof(err));
	rc = rc == -ENOMEM || !rc ? rc : 1;
	for (size_t i = 0; !rc && i < dests.n; i++) {
		const struct swgraph_dest *d = &dests.v[i];

		for (size_t u = 0; !rc && u < v->g.n_sw; u++) {
			unsigned l = v->out->path_sl[u * v->row + d->lid];
			long k;

			if (v->g.comp[u] != v->g.comp[d->sw] || (!d->exit_port && !v->g.has_ca[u]))
				continue;
			k = vlsp_again_walk(&v->idx, u, d->lid, (size_t)d->sw, v->walk);
			rc = k < 0 || l >= v->ls.n;
			for (long t = 1; !rc && t < k; t++) {
				uint32_t *n =
				    &v->tuse[l * v->ls.turn_bits +
					     vlsp_layers_bit(&v->ls, v->walk[t - 1], v->walk[t])];

				rc = !(*n)++ &&
				     vlsp_layers_turn(&v->ls, l, v->walk[t - 1], v->walk[t]);
			}
		}
	}
	swgraph_dests_fini(&dests);
	v->layered = !rc;
	return rc;
}

static int vlsp_polish_setup(struct vlsp_polish *v, const struct fabric *f)
{
	int rc = vlsp_polish_index(v, f);

	rc = rc ? rc : vlsp_polish_paths(v);
	return rc ? rc : vlsp_polish_layers(v);
}

/* One more (sign 1) or one less (-1) path on layer l turning in ->
 * out: a turn no path makes any more leaves the layer, a new one joins
 * it if it keeps the layer acyclic.  record: note it, to undo.  0, 1
 * (it would close a cycle: nothing changed), -ENOMEM. */
static int vlsp_polish_use(struct vlsp_polish *v, unsigned l, uint32_t in, uint32_t out, int sign,
			   int record)
{
	uint32_t *n = &v->tuse[l * v->ls.turn_bits + vlsp_layers_bit(&v->ls, in, out)];

	if (record && v->n_added == v->cap_added) {
		size_t cap = v->cap_added ? 2 * v->cap_added : 64;
		int32_t(*p)[4] = realloc(v->added, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		v->added = p;
		v->cap_added = cap;
	}
	if (sign > 0 && !*n && vlsp_layers_turn(&v->ls, l, in, out))
		return 1;
	*n = (uint32_t)((int64_t)*n + sign);
	if (!*n)
		vlsp_layers_drop(&v->ls, l, in, out);
	if (record) {
		int32_t *a = v->added[v->n_added++];

		a[0] = (int32_t)l;
		a[1] = (int32_t)in;
		a[2] = (int32_t)out;
		a[3] = sign;
	}
	return 0;
}

/* Undo the last move's changes to the layers, the last first (a turn
 * taken off comes back once the new ones are gone: it fits again). */
static void vlsp_polish_turns_undo(struct vlsp_polish *v)
{
	while (v->n_added) {
		const int32_t *a = v->added[--v->n_added];

		vlsp_polish_use(v, (unsigned)a[0], (uint32_t)a[1], (uint32_t)a[2], -a[3], 0);
	}
}

/* The channels from switch u to CA j into *w: the path kept for u when
 * it has CAs (kept up move by move), else followed into v->walk; how
 * many, or -1 (vlsp_again_walk). */
static long vlsp_polish_way(struct vlsp_polish *v, size_t u, size_t j, const uint32_t **w)
{
	size_t id;

	if (v->src_of[u] < 0) {
		*w = v->walk;
		return vlsp_polish_follow(v, u, j, v->walk);
	}
	id = (size_t)v->src_of[u] * v->n_end + j;
	*w = &v->pch[id * v->maxlen];
	return v->plen[id];
}

/* With layers: switch s sending CA j's LID on newc[0] instead, then
 * along newc[1..nlen): every path to it over s (from any switch, on its
 * own layer) gives up its old turns from s on, then makes its new ones
 * (each path walked once: its layer and the channel into s noted).
 * 0 (they fit: the layers changed), 1 (one would close a cycle: the
 * layers as they were), -ENOMEM. */
static int vlsp_polish_turns(struct vlsp_polish *v, size_t s, size_t j, size_t nlen)
{
	size_t d = (size_t)v->end_sw[j], n_cross = 0;
	uint16_t lid = v->end_lid[j];
	int rc = 0;

	v->n_added = 0;
	for (size_t u = 0; v->layered && !rc && u < v->g.n_sw; u++) {
		unsigned l = v->out->path_sl[u * v->row + lid];
		const uint32_t *w;
		long k, i;

		if (v->g.comp[u] != v->g.comp[d])
			continue;
		k = vlsp_polish_way(v, u, j, &w);
		for (i = 0; i < k && v->tail[w[i]] != (int)s; i++)
			;
		if (i >= k)
			continue;
		/* the turn into s (none when u is s), then those after */
		for (long t = i > 0 ? i : 1; !rc && t < k; t++)
			rc = vlsp_polish_use(v, l, w[t - 1], w[t], -1, 1);
		v->cross_l[n_cross] = l; /* the new turns: after every old one is out */
		v->cross_in[n_cross++] = i > 0 ? w[i - 1] : UINT32_MAX;
	}
	for (size_t x = 0; !rc && x < n_cross; x++) {
		if (v->cross_in[x] != UINT32_MAX)
			rc = vlsp_polish_use(v, v->cross_l[x], v->cross_in[x], v->newc[0], 1, 1);
		for (size_t t = 1; !rc && t < nlen; t++)
			rc = vlsp_polish_use(v, v->cross_l[x], v->newc[t - 1], v->newc[t], 1, 1);
	}
	if (rc)
		vlsp_polish_turns_undo(v);
	return rc;
}

int vlsp_polish_estimate(const struct fabric *f, const struct lft_set *out, double *ebb)
{
	struct vlsp_polish v = {.out = (struct lft_set *)out};
	int rc = vlsp_polish_setup(&v, f);

	if (!rc)
		*ebb = vlsp_polish_est_ebb(&v);
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
 * lists, shift loads and values follow.  undo: the move takes back the
 * one before, whose values come back from the journal.  Returns the
 * change of the sum (0 on undo), VLSP_POLISH_OVER when a shift load
 * went past shl_max (the move made all the same), VLSP_POLISH_NOMEM. */
static double vlsp_polish_move(struct vlsp_polish *v, size_t j, uint32_t e_to, size_t nlen,
			       size_t n, int undo)
{
	size_t id0 = v->aff[0] * v->n_end + j, pre0 = v->apre[0];
	size_t olen = v->plen[id0] - pre0, s = (size_t)v->tail[e_to];
	const uint32_t *oldc = &v->pch[id0 * v->maxlen + pre0];
	double delta = 0;
	int nomem = 0, over = 0;

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
	for (size_t t = 0; t < v->n_touched; t++) {
		uint32_t c = v->touched[t];

		if (!v->dcnt[c])
			continue;
		if (undo) {
			vlsp_polish_est_back(v, c);
			continue;
		}
		vlsp_polish_est_keep(v, c);
		vlsp_polish_est_chan(v, c);
	}
	for (size_t a = 0; a < n; a++) {
		uint32_t id = (uint32_t)(v->aff[a] * v->n_end + j);

		for (size_t t = 0; t < v->n_touched; t++) {
			uint32_t c = v->touched[t];

			if (v->dcnt[c] < 0)
				vlsp_polish_list_del(v, c, id);
			else if (v->dcnt[c] > 0 && vlsp_polish_list_add(v, c, id))
				nomem = 1;
		}
		vlsp_polish_shift_count(v, id, -1);
		memcpy(&v->pch[id * v->maxlen + v->apre[a]], v->newc, nlen * sizeof(*v->newc));
		v->plen[id] = (uint16_t)(v->apre[a] + nlen);
		over |= vlsp_polish_shift_count(v, id, 1) > v->shl_max;
	}
	v->gen++;
	if (undo) {
		while (v->n_j) {
			v->n_j--;
			v->val[v->jid[v->n_j]] = v->jval[v->n_j];
		}
	}
	for (size_t t = 0; !undo && t < v->n_touched; t++) {
		uint32_t c = v->touched[t];

		for (size_t i = 0; v->dcnt[c] && i < v->lst_n[c]; i++) {
			uint32_t id = v->lst[c][i];
			double val;

			if (v->mark[id] == v->gen)
				continue;
			val = vlsp_polish_est_path(v, id);
			v->mark[id] = v->gen;
			v->work++;
			delta += v->h[id / v->n_end] * (val - v->val[id]);
			v->jid[v->n_j] = id;
			v->jval[v->n_j++] = v->val[id];
			v->val[id] = val;
		}
	}
	for (size_t t = 0; t < v->n_touched; t++)
		v->dcnt[v->touched[t]] = 0;
	return nomem ? VLSP_POLISH_NOMEM : over ? VLSP_POLISH_OVER : delta;
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
		int rc;

		if (e == e_from || v->dist[d * n_sw + far] != hops - 1 ||
		    v->load[e] >= v->load[e_from])
			continue;
		v->newc[0] = (uint32_t)e;
		k = vlsp_polish_follow(v, far, j, &v->newc[1]);
		if (k != hops - 1)
			continue;
		rc = vlsp_polish_turns(v, s, j, (size_t)hops);
		if (rc < 0)
			return rc;
		if (rc)
			continue;
		v->n_j = 0;
		delta = vlsp_polish_move(v, j, (uint32_t)e, (size_t)hops, n, 0);
		if (delta == VLSP_POLISH_NOMEM)
			return -ENOMEM;
		if (delta > VLSP_POLISH_EPS)
			return 1;
		vlsp_polish_turns_undo(v);
		/* back: the old suffix, from the first affected path's prefix */
		v->newc[0] = e_from;
		vlsp_polish_follow(v, (size_t)v->g.adj[e_from].sw, j, &v->newc[1]);
		if (vlsp_polish_move(v, j, e_from, (size_t)hops, n, 1) == VLSP_POLISH_NOMEM)
			return -ENOMEM;
	}
	return 0;
}

/* One pass over the entries to CA LIDs, until v has valued work_max
 * paths (*bounded then set when entries were left).  Returns the moves
 * made or -ENOMEM. */
static int vlsp_polish_pass(struct vlsp_polish *v, uint64_t work_max, int *bounded)
{
	int moves = 0;

	for (size_t s = 0; s < v->g.n_sw; s++)
		for (size_t j = 0; j < v->n_end; j++) {
			int rc;

			if ((size_t)v->end_sw[j] == s)
				continue;
			if (v->work >= work_max) {
				*bounded = 1;
				return moves;
			}
			rc = vlsp_polish_entry(v, s, j);
			if (rc < 0)
				return rc;
			moves += rc;
		}
	return moves;
}

int vlsp_polish_bounded(const struct fabric *f, struct lft_set *out, unsigned passes,
			uint64_t work_max, struct vlsp_polish_stats *st)
{
	struct vlsp_polish v = {.out = out};
	int rc = vlsp_polish_setup(&v, f), moves = 0, bounded = 0, made = 1;

	for (unsigned k = 0; !rc && made > 0 && !bounded && k < passes; k++) {
		made = vlsp_polish_pass(&v, work_max, &bounded);
		rc = made < 0 ? made : 0;
		moves += made > 0 ? made : 0;
	}
	if (st)
		*st = (struct vlsp_polish_stats){
		    .valued = v.work, .bounded = bounded, .ebb = rc ? 0 : vlsp_polish_est_ebb(&v)};
	vlsp_polish_fini(&v);
	return rc < 0 ? rc : moves;
}

int vlsp_polish(const struct fabric *f, struct lft_set *out, unsigned passes)
{
	return vlsp_polish_bounded(f, out, passes, VLSP_POLISH_WORK, NULL);
}
