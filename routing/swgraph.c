/*
 * swgraph.c - the switch graph (switch ordinals, cables between switches,
 * components, breadth-first search) and the destination LIDs the engines
 * share.  Reads a const fabric; never writes it, never chooses a route.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "routing/swgraph.h"

/* ---- The graph ---------------------------------------------------------- */

static int swgraph_alloc(struct swgraph *g)
{
	size_t n = g->f->n_nodes ? g->f->n_nodes : 1, s = g->n_sw ? g->n_sw : 1;

	g->sw_of = malloc(n * sizeof(*g->sw_of));
	g->sw_node = malloc(s * sizeof(*g->sw_node));
	g->port_base = malloc((s + 1) * sizeof(*g->port_base));
	g->has_ca = calloc(s, 1);
	g->adj_start = calloc(s + 1, sizeof(*g->adj_start));
	g->comp = malloc(s * sizeof(*g->comp));
	g->comp_sw = malloc(s * sizeof(*g->comp_sw));
	g->comp_start = calloc(s + 1, sizeof(*g->comp_start));
	if (!g->sw_of || !g->sw_node || !g->port_base || !g->has_ca || !g->adj_start || !g->comp ||
	    !g->comp_sw || !g->comp_start)
		return -ENOMEM;
	return 0;
}

void swgraph_fini(struct swgraph *g)
{
	free(g->sw_of);
	free(g->sw_node);
	free(g->port_base);
	free(g->has_ca);
	free(g->adj_start);
	free(g->adj);
	free(g->comp);
	free(g->comp_sw);
	free(g->comp_start);
	memset(g, 0, sizeof(*g));
}

/* Switch ordinals in node order, and a row of port slots for each. */
static void swgraph_number(struct swgraph *g)
{
	size_t s = 0, ports = 0;

	for (size_t i = 0; i < g->f->n_nodes; i++) {
		const struct fabric_node *n = &g->f->nodes[i];

		g->sw_of[i] = -1;
		if (!fabric_is_switch(n))
			continue;
		g->sw_of[i] = (int)s;
		g->sw_node[s] = (int)i;
		g->port_base[s++] = ports;
		ports += (size_t)n->num_ports + 1;
	}
	g->port_base[s] = ports;
}

/* Cables between switches as flat arrays, in two passes (count, fill); a
 * switch with a CA or router cabled is marked on the way. */
static int swgraph_link_switches(struct swgraph *g, int keep_loops)
{
	size_t e = 0;

	for (int pass = 0; pass < 2; pass++) {
		e = 0;
		for (size_t s = 0; s < g->n_sw; s++) {
			const struct fabric_node *n = &g->f->nodes[g->sw_node[s]];

			g->adj_start[s] = e;
			for (unsigned pn = 1; pn <= n->num_ports; pn++) {
				const struct fabric_port *p = &n->ports[pn];
				int r = p->remote_node;

				if (r == FABRIC_NONE || (r == g->sw_node[s] && !keep_loops))
					continue;
				if (g->sw_of[r] < 0) {
					g->has_ca[s] = 1;
					continue;
				}
				if (pass)
					g->adj[e] = (struct swgraph_link){g->sw_of[r], (uint8_t)pn,
									  p->remote_port};
				e++;
			}
		}
		g->adj_start[g->n_sw] = e;
		if (!pass && !(g->adj = malloc((e ? e : 1) * sizeof(*g->adj))))
			return -ENOMEM;
	}
	return 0;
}

/* Components breadth first, each from its lowest unlabelled switch. */
static void swgraph_components(struct swgraph *g)
{
	size_t used = 0;

	for (size_t s = 0; s < g->n_sw; s++)
		g->comp[s] = -1;
	for (size_t s = 0; s < g->n_sw; s++) {
		int label = (int)g->n_comp;
		size_t tail = used;

		if (g->comp[s] >= 0)
			continue;
		g->comp[s] = label;
		g->comp_sw[tail++] = (int)s;
		for (size_t head = used; head < tail; head++) {
			int x = g->comp_sw[head];

			for (size_t e = g->adj_start[x]; e < g->adj_start[x + 1]; e++) {
				int r = g->adj[e].sw;

				if (g->comp[r] >= 0)
					continue;
				g->comp[r] = label;
				g->comp_sw[tail++] = r;
			}
		}
		g->comp_start[g->n_comp++] = used;
		used = tail;
	}
	g->comp_start[g->n_comp] = used;
}

int swgraph_init(struct swgraph *g, const struct fabric *f, int keep_loops)
{
	memset(g, 0, sizeof(*g));
	g->f = f;
	g->n_sw = fabric_count_switches(f);
	if (swgraph_alloc(g)) {
		swgraph_fini(g);
		return -ENOMEM;
	}
	swgraph_number(g);
	if (swgraph_link_switches(g, keep_loops)) {
		swgraph_fini(g);
		return -ENOMEM;
	}
	swgraph_components(g);
	return 0;
}

/* (Bounds and hop counts are kept in locals: a store through via may
 * alias anything, which would reload them for every cable.) */
size_t swgraph_bfs(const struct swgraph *g, int *queue, size_t n, int *dist, uint8_t *via)
{
	size_t tail = n;

	for (size_t head = 0; head < tail; head++) {
		int s = queue[head], hops = dist[s] + 1;
		const struct swgraph_link *l = &g->adj[g->adj_start[s]];
		const struct swgraph_link *end = &g->adj[g->adj_start[s + 1]];

		for (; l < end; l++) {
			if (dist[l->sw] >= 0)
				continue;
			dist[l->sw] = hops;
			if (via)
				via[l->sw] = l->rport;
			queue[tail++] = l->sw;
		}
	}
	return tail;
}

size_t swgraph_bfs_from(const struct swgraph *g, int t, int *queue, int *dist, uint8_t *via)
{
	for (size_t s = 0; s < g->n_sw; s++)
		dist[s] = -1;
	dist[t] = 0;
	queue[0] = t;
	return swgraph_bfs(g, queue, 1, dist, via);
}

/* ---- Destination LIDs --------------------------------------------------- */

/* What claiming needs: who owns each LID so far (node * 256 + port + 1). */
struct swgraph_claim {
	const struct swgraph *g;
	uint16_t max_lid;
	uint32_t *owner;
	struct swgraph_dests *d;
	char *err; /* the caller's error buffer */
	size_t errlen;
};

static int swgraph_push_dest(struct swgraph_dests *d, struct swgraph_dest dest)
{
	if (TEXT_GROW(d->v, d->cap, d->n + 1, 256) < 0)
		return -ENOMEM;
	d->v[d->n++] = dest;
	return 0;
}

/* Port pn of node owns LIDs base .. base + 2^lmc - 1: each must be in
 * range and owned by no other port.  sw < 0: no switch delivers them. */
static int swgraph_claim_port(struct swgraph_claim *c, int node, unsigned pn, int sw,
			      uint8_t exit_port)
{
	const struct fabric *f = c->g->f;
	const struct fabric_port *p = &f->nodes[node].ports[pn];
	unsigned count = fabric_port_lid_count(p);
	uint32_t me = (uint32_t)node * 256 + pn + 1;

	for (unsigned lid = p->lid; lid < (unsigned)p->lid + count; lid++) {
		struct swgraph_dest d = {(uint16_t)lid, exit_port, (uint8_t)(lid - p->lid), sw};
		uint32_t other;

		if (lid > c->max_lid)
			return text_err(c->err, c->errlen, -ERANGE,
					"port 0x%016" PRIx64 "/%u: LID %u above max_lid %u",
					p->guid, pn, lid, c->max_lid);
		other = c->owner[lid];
		if (other && other != me)
			return text_err(c->err, c->errlen, -EINVAL,
					"port 0x%016" PRIx64
					"/%u: LID %u also used by port 0x%016" PRIx64 "/%u",
					p->guid, pn, lid,
					f->nodes[(other - 1) / 256].ports[(other - 1) % 256].guid,
					(other - 1) % 256);
		c->owner[lid] = me;
		if (sw >= 0 && swgraph_push_dest(c->d, d))
			return text_err(c->err, c->errlen, -ENOMEM, "out of memory");
	}
	return 0;
}

/* A switch's LIDs leave by its port 0 (listed with switch_lids); a
 * CA/router port's by the switch port it is cabled to, if any. */
static int swgraph_claim_node(struct swgraph_claim *c, int node, int switch_lids)
{
	const struct fabric_node *n = &c->g->f->nodes[node];
	int rc = 0;

	if (fabric_is_switch(n)) {
		if (!n->ports[0].lid)
			return 0;
		return swgraph_claim_port(c, node, 0, switch_lids ? c->g->sw_of[node] : -1, 0);
	}
	for (unsigned pn = 1; pn <= n->num_ports && !rc; pn++) {
		const struct fabric_port *p = &n->ports[pn];

		if (p->lid)
			rc = swgraph_claim_port(c, node, pn, swgraph_far_switch(c->g, p),
						p->remote_port);
	}
	return rc;
}

static int swgraph_dest_cmp(const void *a, const void *b)
{
	const struct swgraph_dest *x = a, *y = b;

	if (x->sw != y->sw)
		return x->sw < y->sw ? -1 : 1;
	return (x->lid > y->lid) - (x->lid < y->lid);
}

/* Sort by (switch, LID): start[s] .. start[s + 1] hang off s. */
static void swgraph_group_dests(const struct swgraph *g, struct swgraph_dests *d)
{
	size_t i = 0;

	if (d->n)
		qsort(d->v, d->n, sizeof(*d->v), swgraph_dest_cmp);
	for (size_t s = 0; s <= g->n_sw; s++) {
		while (i < d->n && d->v[i].sw < (int)s)
			i++;
		d->start[s] = i;
	}
}

int swgraph_collect_dests(const struct swgraph *g, uint16_t max_lid, int switch_lids,
			  struct swgraph_dests *d, char *err, size_t errlen)
{
	struct swgraph_claim c = {.g = g, .max_lid = max_lid, .d = d, .err = err, .errlen = errlen};
	int rc = 0;

	c.owner = calloc((size_t)max_lid + 1, sizeof(*c.owner));
	d->start = calloc(g->n_sw + 1, sizeof(*d->start));
	if (!c.owner || !d->start)
		rc = text_err(err, errlen, -ENOMEM, "out of memory routing %zu switches", g->n_sw);
	for (size_t i = 0; i < g->f->n_nodes && !rc; i++)
		rc = swgraph_claim_node(&c, (int)i, switch_lids);
	if (!rc)
		swgraph_group_dests(g, d);
	free(c.owner);
	return rc;
}

void swgraph_dests_fini(struct swgraph_dests *d)
{
	free(d->v);
	free(d->start);
	memset(d, 0, sizeof(*d));
}

/* ---- Writing routes ----------------------------------------------------- */

void swgraph_route_exits(uint8_t *lft, uint32_t *load, const struct swgraph_dest *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		lft[d[i].lid] = d[i].exit_port;
		load[d[i].exit_port]++;
	}
}

/* The least load among cand[0..k), the first candidate carrying it and
 * how many carry it. */
struct swgraph_least {
	uint32_t load;
	uint8_t first;
	size_t count;
};

static struct swgraph_least swgraph_least_loaded(const uint32_t *load, const uint8_t *cand,
						 size_t k)
{
	struct swgraph_least m = {load[cand[0]], cand[0], 1};

	for (size_t c = 1; c < k; c++) {
		uint32_t v = load[cand[c]];

		m.count = v < m.load ? 1 : m.count + (v == m.load);
		m.first = v < m.load ? cand[c] : m.first;
		m.load = v < m.load ? v : m.load;
	}
	return m;
}

/* Every candidate carries the same load: the passes below would hand one
 * LID to each in cand order, round after round, so the j-th counted LID
 * goes to cand[j % k] and a switch's own LIDs to cand[0]; the loads are
 * counted up once at the end. */
int swgraph_spread_even(uint8_t *lft, uint32_t *load, const uint8_t *cand, size_t k,
			const struct swgraph_dest *d, size_t n)
{
	size_t c = 0, counted = 0;

	for (size_t j = 0; j < n; j++) {
		if (d[j].exit_port == 0) {
			lft[d[j].lid] = cand[0];
			continue;
		}
		lft[d[j].lid] = cand[c];
		counted++;
		c = c + 1 == k ? 0 : c + 1;
	}
	if (!counted)
		return 1;
	for (c = 0; c < k; c++)
		load[cand[c]] += (uint32_t)(counted / k + (c < counted % k));
	return counted % k == 0;
}

/* A pass per load level hands one LID to each candidate at that level, in
 * cand order: the same as picking the least loaded for every LID, without
 * a scan of all k per LID.  One candidate (a forced route) takes all. */
int swgraph_spread(uint8_t *lft, uint32_t *load, const uint8_t *cand, size_t k,
		   const struct swgraph_dest *d, size_t n)
{
	struct swgraph_least m = swgraph_least_loaded(load, cand, k);
	size_t i = 0, counted = n;

	if (m.count == k)
		return swgraph_spread_even(lft, load, cand, k, d, n);
	/* a switch's own LID (exit port 0) carries management traffic only:
	 * it takes the least-loaded port without being counted, so endpoint
	 * LIDs keep a spread that is the same at every switch (on a fat tree:
	 * a destination's up-port follows its place under its leaf) */
	for (size_t j = 0; j < n; j++)
		if (d[j].exit_port == 0) {
			lft[d[j].lid] = m.first;
			counted--;
		}
	/* (with none left to count, the passes below would find nothing) */
	while (i < n && counted) {
		uint32_t level = load[cand[0]];

		for (size_t c = 1; c < k; c++)
			level = load[cand[c]] < level ? load[cand[c]] : level;
		for (size_t c = 0; c < k && i < n; c++) {
			while (i < n && d[i].exit_port == 0)
				i++;
			if (i < n && load[cand[c]] == level) {
				lft[d[i++].lid] = cand[c];
				load[cand[c]]++;
			}
		}
	}
	return 0;
}
