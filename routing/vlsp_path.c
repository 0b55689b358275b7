/*
 * vlsp_path.c - an SL per path (see vlsp_path.h): reads the finished
 * tables, puts each (source switch, destination LID) path on the first
 * layer that stays acyclic (routing/vlsp_layer.c) and writes the SLs
 * back into the lft_set when that takes fewer VLs.  Never changes a
 * route.  No I/O, no globals.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/swgraph.h"
#include "routing/vlsp_again.h"
#include "routing/vlsp_layer.h"
#include "routing/vlsp_path.h"

struct vlsp_path {
	struct lft_set *out;
	struct swgraph g;
	struct swgraph_dests dests;
	struct vlsp_layers ls;
	struct vlsp_again idx; /* its chan_of: (switch, port) -> channel */
	uint32_t *chain;       /* the current path's channels */
	uint8_t *sl;	       /* [s * row + lid]: the layer of s's path to lid */
	size_t row;
	unsigned limit; /* layers allowed: fewer than the tables use */
	unsigned used;
};

static void vlsp_path_fini(struct vlsp_path *v)
{
	free(v->chain);
	free(v->sl);
	vlsp_layers_fini(&v->ls);
	vlsp_again_fini(&v->idx);
	swgraph_dests_fini(&v->dests);
	swgraph_fini(&v->g);
}

/* 0 ready, 1 not for these tables (too big, not one table per switch),
 * -ENOMEM. */
static int vlsp_path_init(struct vlsp_path *v, const struct fabric *f)
{
	char err[128];
	int rc = swgraph_init(&v->g, f, 0);

	if (rc)
		return rc;
	if (v->out->n != v->g.n_sw || !v->out->sl || v->g.n_sw > LFT_PATH_SL_MAX / v->row)
		return 1;
	for (size_t s = 0; s < v->g.n_sw; s++)
		if (v->out->tables[s].node != v->g.sw_node[s])
			return 1;
	rc = swgraph_collect_dests(&v->g, v->out->sl_top, 1, &v->dests, err, sizeof(err));
	if (rc)
		return rc == -ENOMEM ? rc : 1;
	rc = vlsp_again_init(&v->idx, &v->g, v->out, NULL);
	if (!rc)
		rc = vlsp_layers_init(&v->ls, &v->g, NULL);
	v->chain = malloc((v->g.n_sw ? v->g.n_sw : 1) * sizeof(*v->chain));
	v->sl = calloc(v->g.n_sw ? v->g.n_sw * v->row : 1, 1);
	return rc ? rc : v->chain && v->sl ? 0 : -ENOMEM;
}

/* The first layer the path in chain[0..k) fits on (its turns added
 * there), a new one when none does; -1 past the limit. */
static int vlsp_path_place(struct vlsp_path *v, size_t k)
{
	for (unsigned l = 0; l < v->limit; l++) {
		size_t i = 1;

		if (l >= v->ls.n && vlsp_layers_add_layer(&v->ls, 0) < 0)
			return -1;
		vlsp_layers_begin(&v->ls);
		while (i < k && !vlsp_layers_turn(&v->ls, l, v->chain[i - 1], v->chain[i]))
			i++;
		if (i >= k) {
			v->used = l + 1 > v->used ? l + 1 : v->used;
			return (int)l;
		}
		vlsp_layers_undo(&v->ls, l);
	}
	return -1;
}

/* Every path: to each LID, from every switch of its component (a
 * switch's own LID: from the switches CAs are cabled to, the gate's
 * rule; the others keep SL 0).  1 when one does not fit or reach. */
static int vlsp_path_all(struct vlsp_path *v)
{
	for (size_t i = 0; i < v->dests.n; i++) {
		const struct swgraph_dest *d = &v->dests.v[i];

		for (size_t s = 0; s < v->g.n_sw; s++) {
			long k;
			int l;

			if (v->g.comp[s] != v->g.comp[d->sw] || (!d->exit_port && !v->g.has_ca[s]))
				continue;
			k = vlsp_again_walk(&v->idx, s, d->lid, (size_t)d->sw, v->chain);
			l = k < 0 ? -1 : vlsp_path_place(v, (size_t)k);
			if (l < 0)
				return 1;
			v->sl[s * v->row + d->lid] = (uint8_t)l;
		}
	}
	return 0;
}

int vlsp_path_layer(const struct fabric *f, struct lft_set *out)
{
	struct vlsp_path v = {.out = out, .row = (size_t)out->sl_top + 1};
	unsigned vls = 0;
	int rc;

	v.limit = out->n_vls > 1 ? out->n_vls - 1u : 0;
	v.limit = v.limit < VLSP_LAYER_MAX ? v.limit : VLSP_LAYER_MAX;
	rc = v.limit ? vlsp_path_init(&v, f) : 1;
	if (!rc)
		rc = vlsp_path_all(&v);
	if (!rc)
		rc = lft_set_alloc_path_sl(out);
	if (!rc) {
		memcpy(out->path_sl, v.sl, v.g.n_sw * v.row);
		for (size_t i = 0; i < v.dests.n; i++) {
			const struct swgraph_dest *d = &v.dests.v[i];

			out->sl[d->lid] = v.sl[(size_t)d->sw * v.row + d->lid];
		}
		vls = v.used ? v.used : 1;
		out->n_vls = (uint8_t)vls;
	}
	vlsp_path_fini(&v);
	return rc == -ENOMEM ? rc : (int)vls;
}
