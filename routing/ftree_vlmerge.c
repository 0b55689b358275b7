/*
 * ftree_vlmerge.c - ftree on a degraded tree: after every LID has its VL,
 * the LIDs of the highest VL move to lower ones where that VL's channel
 * dependency graph stays acyclic with them, so the tree uses no more VLs
 * than it needs.  Part of the ftree engine (routing/ftree.c has the DOC).
 *
 * The turns placed VLs one LID at a time, against a graph of turns that
 * is safe but coarse (any root above both ends links two turns); here
 * each VL gets the exact channel dependency graph of the tables as routed
 * (routing/vlsp_layer.h: a layer per VL, every LID's in-tree read back
 * from its LFT column, counted as the gate counts it: every switch's
 * paths to a CA LID, the paths of CA traffic to a switch's own LID).
 * Then, highest VL first, each of its LIDs goes to the lowest VL whose
 * layer takes its tree; when every one found a place the VL is gone and
 * the next highest is tried, else the VLs stay as they were from there.
 * Only SLs change, never an LFT entry.  Pure: no I/O, no globals.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/ftree_priv.h"
#include "routing/vlsp_layer.h"

struct ftree_vlmerge {
	struct ftree *m;
	struct vlsp_layers ls;
	uint32_t *chan;	    /* per (switch, port) slot: its cable, VLSP_LAYER_NONE */
	uint32_t *up;	    /* per switch: the cable it sends the LID on */
	int *order, *stack; /* the in-tree, the chase */
	uint8_t *state;	    /* 0 not seen, 1 on the chase, 2 in the tree, 3 not */
	uint8_t *carry;	    /* switch LIDs: the switches CA traffic crosses */
	uint8_t *new_sl;    /* per LID: where it goes this round */
	struct vlsp_tree tree;
};

static void ftree_vlmerge_fini(struct ftree_vlmerge *v)
{
	void *bufs[] = {v->chan, v->up, v->order, v->stack, v->state, v->carry, v->new_sl};

	vlsp_layers_fini(&v->ls);
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		free(bufs[i]);
}

static int ftree_vlmerge_init(struct ftree_vlmerge *v, struct ftree *m)
{
	const struct swgraph *g = &m->g;
	size_t n = g->n_sw ? g->n_sw : 1, slots = g->port_base[g->n_sw];

	memset(v, 0, sizeof(*v));
	v->m = m;
	v->chan = malloc((slots ? slots : 1) * sizeof(*v->chan));
	v->up = malloc(n * sizeof(*v->up));
	v->order = malloc(n * sizeof(*v->order));
	v->stack = malloc(n * sizeof(*v->stack));
	v->state = malloc(n);
	v->carry = malloc(n);
	v->new_sl = malloc((size_t)m->out->sl_top + 1);
	if (!v->chan || !v->up || !v->order || !v->stack || !v->state || !v->carry || !v->new_sl ||
	    vlsp_layers_init(&v->ls, g, NULL))
		return -ENOMEM;
	for (size_t i = 0; i < slots; i++)
		v->chan[i] = VLSP_LAYER_NONE;
	for (size_t s = 0; s < g->n_sw; s++)
		for (size_t e = g->adj_start[s]; e < g->adj_start[s + 1]; e++)
			v->chan[g->port_base[s] + g->adj[e].port] = (uint32_t)e;
	for (unsigned l = 0; l < m->out->n_vls; l++)
		if (vlsp_layers_add_layer(&v->ls, 0) < 0)
			return -ENOMEM;
	return 0;
}

/* Chase s's forwarding toward the LID's switch t until a switch already
 * placed; the chase joins the tree (every switch after the one it sends
 * to) when it ends in it.  Returns -1 on a forwarding loop. */
static int ftree_vlmerge_chase(struct ftree_vlmerge *v, int s, uint16_t lid)
{
	const struct swgraph *g = &v->m->g;
	const struct lft *tabs = v->m->out->tables;
	size_t sp = 0;
	uint8_t end = 3;

	while (!v->state[s]) {
		uint8_t pn = tabs[s].port[lid];
		uint32_t e = pn <= g->port_base[s + 1] - g->port_base[s] - 1
				 ? v->chan[g->port_base[s] + pn]
				 : VLSP_LAYER_NONE;

		v->state[s] = 1;
		v->stack[sp++] = s;
		v->up[s] = e;
		if (e == VLSP_LAYER_NONE)
			break; /* a drop, or out to a CA that is not the LID's */
		s = g->adj[e].sw;
	}
	if (v->state[s] == 1 && v->up[s] != VLSP_LAYER_NONE)
		return -1;
	if (v->state[s] == 2)
		end = 2;
	while (sp) {
		int k = v->stack[--sp];

		v->state[k] = end;
		if (end == 2)
			v->order[v->tree.n++] = k;
	}
	return 0;
}

/* The in-tree of the LID delivered by switch t, from its LFT column
 * (switch LIDs: only the turns of CA traffic count).  0, or -1 when the
 * column has a forwarding loop (the gate will say so). */
static int ftree_vlmerge_tree(struct ftree_vlmerge *v, int t, uint16_t lid, int switch_lid)
{
	const struct swgraph *g = &v->m->g;

	memset(v->state, 0, g->n_sw);
	v->state[t] = 2;
	v->up[t] = VLSP_LAYER_NONE;
	v->order[0] = t;
	v->tree = (struct vlsp_tree){v->order, 1, v->up, NULL};
	for (size_t s = 0; s < g->n_sw; s++)
		if (ftree_vlmerge_chase(v, (int)s, lid))
			return -1;
	if (!switch_lid)
		return 0;
	memset(v->carry, 0, g->n_sw);
	for (size_t k = 0; k < v->tree.n; k++)
		for (int s = v->order[k]; g->has_ca[v->order[k]] && !v->carry[s];) {
			v->carry[s] = 1; /* and every switch on its way */
			if (v->up[s] == VLSP_LAYER_NONE)
				break;
			s = g->adj[v->up[s]].sw;
		}
	v->tree.only = v->carry;
	return 0;
}

/* Every LID's tree on the layer of its VL, each layer's order made once
 * at the end.  1 when a VL's dependencies close a cycle (a turn ftree
 * could not keep free of loops: nothing is merged then). */
static int ftree_vlmerge_fill(struct ftree_vlmerge *v)
{
	struct ftree *m = v->m;

	for (size_t i = 0; i < m->n_dests; i++) {
		const struct ftree_dest *d = &m->dests[i];

		if (ftree_vlmerge_tree(v, d->leaf, d->lid, 0))
			return 1;
		vlsp_layers_put(&v->ls, lft_set_sl(m->out, d->lid), &v->tree);
	}
	for (size_t s = 0; s < m->g.n_sw; s++) {
		const struct fabric_port *p0 = &m->f->nodes[m->g.sw_node[s]].ports[0];
		unsigned count = fabric_port_lid_count(p0);

		for (unsigned lid = p0->lid; p0->lid && lid < (unsigned)p0->lid + count; lid++) {
			if (ftree_vlmerge_tree(v, (int)s, (uint16_t)lid, 1))
				return 1;
			vlsp_layers_put(&v->ls, lft_set_sl(m->out, (uint16_t)lid), &v->tree);
		}
	}
	for (unsigned l = 0; l < m->out->n_vls; l++)
		if (vlsp_layers_sort(&v->ls, l))
			return 1;
	return 0;
}

/* Move every CA LID of VL h to the lowest VL below that takes its tree.
 * 1 when all moved (SLs and counts updated), 0 when one found no place
 * (SLs as they were). */
static int ftree_vlmerge_round(struct ftree_vlmerge *v, unsigned h)
{
	struct ftree *m = v->m;

	for (size_t i = 0; i < m->n_dests; i++) {
		const struct ftree_dest *d = &m->dests[i];
		unsigned l = 0;

		if (m->out->sl[d->lid] != h)
			continue;
		if (ftree_vlmerge_tree(v, d->leaf, d->lid, 0))
			return 0;
		while (l < h && vlsp_layers_add(&v->ls, l, &v->tree))
			l++;
		if (l == h)
			return 0;
		v->new_sl[d->lid] = (uint8_t)l;
	}
	for (size_t i = 0; i < m->n_dests; i++) {
		uint16_t lid = m->dests[i].lid;

		if (m->out->sl[lid] != h)
			continue;
		m->out->sl[lid] = v->new_sl[lid];
		m->on_vl[h]--;
		m->on_vl[v->new_sl[lid]]++;
	}
	m->out->n_vls = (uint8_t)h;
	return 1;
}

int ftree_merge_vls(struct ftree *m)
{
	struct ftree_vlmerge v;
	int rc = 0;

	if (!m->out->sl || m->out->n_vls < 2)
		return 0;
	if (ftree_vlmerge_init(&v, m))
		rc = -ENOMEM;
	else if (!ftree_vlmerge_fill(&v))
		while (m->out->n_vls > 1 && ftree_vlmerge_round(&v, m->out->n_vls - 1u))
			m->merged++;
	ftree_vlmerge_fini(&v);
	return rc;
}
