/*
 * tools/draw/layout.c - where every switch, host and cable of the picture
 * goes (draw.h).  Owns the drawing's own graph (the live fabric plus what
 * only the reference has), the ranks and the order within rows; sizes and
 * coordinates are in layout_place.c.  No I/O.
 */
#include "tools/draw/draw.h"
#include "tools/draw/draw_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"

/* ---- the drawing's graph ------------------------------------------------- */

static int layout_add_node(struct draw_layout *l, size_t *cap, const struct fabric_node *n,
			   int live)
{
	struct draw_node *d;

	if (TEXT_GROW(l->nodes, *cap, l->n_nodes + 1, 64))
		return -ENOMEM;
	d = &l->nodes[l->n_nodes++];
	memset(d, 0, sizeof(*d));
	d->guid = n->guid;
	d->live = live;
	d->type = n->type;
	memcpy(d->name, n->desc, sizeof(d->name) - 1);
	d->name[sizeof(d->name) - 1] = 0;
	d->ports = n->num_ports;
	for (unsigned p = 0; p <= n->num_ports && !d->lid; p++)
		if (p || n->type == 2)
			d->lid = n->ports[p].lid;
	d->rank = -1;
	d->sw = -1;
	d->box = -1;
	return 0;
}

static int layout_add_cable(struct draw_layout *l, size_t *cap, int a, uint8_t pa, int b,
			    uint8_t pb, int live)
{
	struct draw_cable *c;

	if (TEXT_GROW(l->cables, *cap, l->n_cables + 1, 64))
		return -ENOMEM;
	c = &l->cables[l->n_cables++];
	c->a = a;
	c->pa = pa;
	c->b = b;
	c->pb = pb;
	c->live = (uint8_t)live;
	c->edge = -1;
	c->health = 0;
	c->health_i = -1;
	return 0;
}

static int layout_live_cables(struct draw_layout *l, size_t *cap, const struct fabric *f)
{
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *n = &f->nodes[i];

		for (unsigned p = 1; p <= n->num_ports; p++) {
			const struct fabric_port *q = &n->ports[p];

			if (q->remote_node < 0 || (size_t)q->remote_node < i ||
			    ((size_t)q->remote_node == i && q->remote_port < p))
				continue;
			if (layout_add_cable(l, cap, (int)i, (uint8_t)p, q->remote_node,
					     q->remote_port, 1))
				return -ENOMEM;
		}
	}
	return 0;
}

/* Is there a live cable a/pa - b/pb (node indices of the drawing)? */
static int layout_live_has(const struct draw_layout *l, const struct fabric *f, int a, unsigned pa,
			   int b, unsigned pb)
{
	const struct draw_node *na = &l->nodes[a], *nb = &l->nodes[b];
	const struct fabric_node *fa;

	if (na->live < 0 || nb->live < 0)
		return 0;
	fa = &f->nodes[na->live];
	return pa <= fa->num_ports && fa->ports[pa].remote_node == nb->live &&
	       fa->ports[pa].remote_port == pb;
}

static int layout_reference(struct draw_layout *l, size_t *ncap, size_t *ccap,
			    const struct fabric *f, const struct fabric *ref)
{
	int *map = malloc((ref->n_nodes + 1) * sizeof(*map));

	if (!map)
		return -ENOMEM;
	for (size_t i = 0; i < ref->n_nodes; i++) {
		int live = fabric_find(f, ref->nodes[i].guid);

		map[i] = live;
		if (live < 0) {
			map[i] = (int)l->n_nodes;
			if (layout_add_node(l, ncap, &ref->nodes[i], -1))
				goto nomem;
		}
	}
	for (size_t i = 0; i < ref->n_nodes; i++) {
		const struct fabric_node *n = &ref->nodes[i];

		for (unsigned p = 1; p <= n->num_ports; p++) {
			const struct fabric_port *q = &n->ports[p];
			int a, b;

			if (q->remote_node < 0 || (size_t)q->remote_node < i ||
			    ((size_t)q->remote_node == i && q->remote_port < p))
				continue;
			/* the live fabric's nodes first, in its order; ghosts after */
			a = map[i];
			b = map[q->remote_node];
			if (layout_live_has(l, f, a, p, b, q->remote_port))
				continue;
			if (layout_add_cable(l, ccap, a, (uint8_t)p, b, q->remote_port, 0))
				goto nomem;
		}
	}
	free(map);
	return 0;
nomem:
	free(map);
	return -ENOMEM;
}

static int layout_graph(struct draw_layout *l, const struct fabric *f, const struct draw_opts *o)
{
	size_t ncap = 0, ccap = 0;

	for (size_t i = 0; i < f->n_nodes; i++)
		if (layout_add_node(l, &ncap, &f->nodes[i], (int)i))
			return -ENOMEM;
	if (layout_live_cables(l, &ccap, f))
		return -ENOMEM;
	if (o->reference && layout_reference(l, &ncap, &ccap, f, o->reference))
		return -ENOMEM;
	return 0;
}

/* ---- hosts: which switch each hangs from --------------------------------- */

static int layout_is_switch(const struct draw_layout *l, int n)
{
	return l->nodes[n].type == 2;
}

/* A host hangs from the switch of its lowest-numbered cabled port (a live
 * cable before a missing one). */
static void layout_hosts(struct draw_layout *l)
{
	for (int pass = 1; pass >= 0; pass--)
		for (size_t i = 0; i < l->n_cables; i++) {
			const struct draw_cable *c = &l->cables[i];
			int h = layout_is_switch(l, c->a) ? c->b : c->a;
			int s = h == c->a ? c->b : c->a;

			if (c->live != pass || layout_is_switch(l, h) || !layout_is_switch(l, s) ||
			    l->nodes[h].sw >= 0)
				continue;
			l->nodes[h].sw = s;
			l->nodes[s].hosts++;
			if (l->nodes[h].live < 0)
				l->nodes[s].missing++;
		}
}

/* ---- ranks --------------------------------------------------------------- */

/* Switch-to-switch adjacency (every cable, live or not), CSR. */
struct layout_adj {
	int *start; /* n_nodes + 1 */
	int *to;
};

static int layout_adj_build(const struct draw_layout *l, struct layout_adj *g)
{
	size_t n = l->n_nodes;
	int *fill;

	g->start = calloc(n + 1, sizeof(int));
	g->to = malloc((2 * l->n_cables + 1) * sizeof(int));
	fill = calloc(n + 1, sizeof(int));
	if (!g->start || !g->to || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (size_t i = 0; i < l->n_cables; i++) {
		const struct draw_cable *c = &l->cables[i];

		if (c->a == c->b || !layout_is_switch(l, c->a) || !layout_is_switch(l, c->b))
			continue;
		g->start[c->a + 1]++;
		g->start[c->b + 1]++;
	}
	for (size_t i = 0; i < n; i++)
		g->start[i + 1] += g->start[i];
	for (size_t i = 0; i < l->n_cables; i++) {
		const struct draw_cable *c = &l->cables[i];

		if (c->a == c->b || !layout_is_switch(l, c->a) || !layout_is_switch(l, c->b))
			continue;
		g->to[g->start[c->a] + fill[c->a]++] = c->b;
		g->to[g->start[c->b] + fill[c->b]++] = c->a;
	}
	free(fill);
	return 0;
}

static void layout_adj_fini(struct layout_adj *g)
{
	free(g->start);
	free(g->to);
}

/* Breadth-first distances over the switches from the sources marked in
 * dist (0) - every other switch -1 on entry.  queue holds n_nodes ints.
 * Returns the largest distance reached. */
static int layout_bfs(const struct draw_layout *l, const struct layout_adj *g, int *dist,
		      int *queue)
{
	size_t head = 0, tail = 0;
	int far = 0;

	for (size_t i = 0; i < l->n_nodes; i++)
		if (layout_is_switch(l, (int)i) && dist[i] == 0)
			queue[tail++] = (int)i;
	while (head < tail) {
		int u = queue[head++];

		for (int k = g->start[u]; k < g->start[u + 1]; k++) {
			int v = g->to[k];

			if (dist[v] >= 0)
				continue;
			dist[v] = dist[u] + 1;
			if (dist[v] > far)
				far = dist[v];
			queue[tail++] = v;
		}
	}
	return far;
}

static void layout_dist_reset(const struct draw_layout *l, int *dist)
{
	for (size_t i = 0; i < l->n_nodes; i++)
		dist[i] = -1;
}

/* A fat tree: some switches without hosts, and no cable between two
 * switches at the same distance from the leaves. */
static int layout_is_tree(const struct draw_layout *l, const int *dist)
{
	int inner = 0;

	for (size_t i = 0; i < l->n_nodes; i++)
		if (layout_is_switch(l, (int)i) && dist[i] > 0)
			inner = 1;
	if (!inner)
		return 0;
	for (size_t i = 0; i < l->n_cables; i++) {
		const struct draw_cable *c = &l->cables[i];

		if (layout_is_switch(l, c->a) && layout_is_switch(l, c->b) && dist[c->a] >= 0 &&
		    dist[c->a] == dist[c->b])
			return 0;
	}
	return 1;
}

/* The switch whose farthest switch is nearest (ties: fabric order); only
 * the first LAYOUT_CENTER_TRIES switches are tried on big fabrics. */
#define LAYOUT_CENTER_TRIES 3000
static int layout_center(const struct draw_layout *l, const struct layout_adj *g, int *dist,
			 int *queue)
{
	int best = -1, best_far = 0, tried = 0;

	for (size_t i = 0; i < l->n_nodes && tried < LAYOUT_CENTER_TRIES; i++) {
		int far;

		if (!layout_is_switch(l, (int)i))
			continue;
		tried++;
		layout_dist_reset(l, dist);
		dist[i] = 0;
		far = layout_bfs(l, g, dist, queue);
		if (best < 0 || far < best_far) {
			best = (int)i;
			best_far = far;
		}
	}
	return best;
}

/* Rank every switch; returns the number of distance rows (unreached
 * switches get rank == that number).  Sets l->tree. */
static int layout_rank(struct draw_layout *l, const struct layout_adj *g, int *dist, int *queue)
{
	int far, center;

	layout_dist_reset(l, dist);
	for (size_t i = 0; i < l->n_nodes; i++)
		if (layout_is_switch(l, (int)i) && l->nodes[i].hosts)
			dist[i] = 0;
	far = layout_bfs(l, g, dist, queue);
	l->tree = layout_is_tree(l, dist);
	if (!l->tree) {
		center = layout_center(l, g, dist, queue);
		layout_dist_reset(l, dist);
		if (center >= 0)
			dist[center] = 0;
		far = layout_bfs(l, g, dist, queue);
	}
	for (size_t i = 0; i < l->n_nodes; i++)
		if (layout_is_switch(l, (int)i))
			l->nodes[i].rank = dist[i] >= 0 ? dist[i] : far + 1;
	return far + 1;
}

/* ---- rows and the order within them -------------------------------------- */

static const char *layout_tree_name(int rank, int ranks)
{
	static const char *const two[] = {"leaves", "spines"};
	static const char *const three[] = {"leaves", "aggregation", "cores"};

	if (ranks == 2)
		return two[rank];
	if (ranks == 3)
		return three[rank];
	return rank ? NULL : "leaves";
}

static void layout_row_name(struct draw_layout *l, struct draw_row *r, int rank, int ranks)
{
	const char *s = l->tree ? layout_tree_name(rank, ranks) : NULL;
	struct text_sink o = {r->name, sizeof(r->name), 0};

	if (rank == ranks)
		text_sinkf(&o, "not connected");
	else if (rank == ranks + 1)
		text_sinkf(&o, "hosts without a switch");
	else if (s)
		text_sinkf(&o, "%s", s);
	else if (l->tree)
		text_sinkf(&o, "level %d", rank);
	else if (!rank && ranks == 1)
		text_sinkf(&o, "switches");
	else if (!rank)
		text_sinkf(&o, "center");
	else
		text_sinkf(&o, "%d hop%s from center", rank, rank == 1 ? "" : "s");
}

/* The display rows, top to bottom: a tree's highest rank first, otherwise
 * distance 0 first; "not connected" and "hosts without a switch" last.
 * row_of[rank] = display row index, -1 when empty. */
static int layout_rows(struct draw_layout *l, int ranks, int *row_of)
{
	int used[ranks + 2];

	memset(used, 0, sizeof(used));
	for (size_t i = 0; i < l->n_nodes; i++) {
		const struct draw_node *d = &l->nodes[i];

		if (d->type == 2)
			used[d->rank] = 1;
		else if (d->sw < 0)
			used[ranks + 1] = 1;
	}
	l->rows = calloc((size_t)ranks + 2, sizeof(*l->rows));
	if (!l->rows)
		return -ENOMEM;
	for (int k = 0; k < ranks + 2; k++) {
		int rank = k < ranks && l->tree ? ranks - 1 - k : k;

		row_of[rank] = -1;
		if (!used[rank])
			continue;
		row_of[rank] = (int)l->n_rows;
		layout_row_name(l, &l->rows[l->n_rows++], rank, ranks);
	}
	return 0;
}

struct layout_order {
	int node;
	double key;  /* barycentre */
	double prev; /* position before this pass: ties */
};

static int layout_order_cmp(const void *a, const void *b)
{
	const struct layout_order *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->prev != y->prev)
		return x->prev < y->prev ? -1 : 1;
	return x->node - y->node;
}

/* Re-order the switches of one row by the mean position of their
 * neighbours in the rows dir away (dir 0: both). */
static void layout_sweep_row(const struct layout_adj *g, struct draw_priv_rows *pr, int row,
			     int dir, double *pos, struct layout_order *tmp)
{
	int *v = pr->members[row];
	size_t n = pr->n_members[row];

	for (size_t k = 0; k < n; k++) {
		int u = v[k];
		double sum = 0;
		int cnt = 0;

		for (int e = g->start[u]; e < g->start[u + 1]; e++) {
			int w = g->to[e], d = pr->row_of_node[w] - row;

			if (d == 0 || (dir && d != dir) || (!dir && d != 1 && d != -1))
				continue;
			sum += pos[w];
			cnt++;
		}
		tmp[k].node = u;
		tmp[k].prev = pos[u];
		tmp[k].key = cnt ? sum / cnt : pos[u];
	}
	qsort(tmp, n, sizeof(*tmp), layout_order_cmp);
	for (size_t k = 0; k < n; k++) {
		v[k] = tmp[k].node;
		pos[v[k]] = n > 1 ? (double)k / (double)(n - 1) : 0.5;
	}
}

#define LAYOUT_SWEEPS 4
static int layout_order(struct draw_layout *l, const struct layout_adj *g,
			struct draw_priv_rows *pr)
{
	size_t most = 1;
	struct layout_order *tmp;
	double *pos = calloc(l->n_nodes + 1, sizeof(*pos));

	for (size_t r = 0; r < l->n_rows; r++)
		if (pr->n_members[r] > most)
			most = pr->n_members[r];
	tmp = malloc(most * sizeof(*tmp));
	if (!pos || !tmp) {
		free(pos);
		free(tmp);
		return -ENOMEM;
	}
	for (size_t r = 0; r < l->n_rows; r++)
		for (size_t k = 0; k < pr->n_members[r]; k++)
			pos[pr->members[r][k]] =
			    pr->n_members[r] > 1 ? (double)k / (double)(pr->n_members[r] - 1) : 0.5;
	for (int s = 0; s < LAYOUT_SWEEPS; s++) {
		/* top-down (each row after the one above it), then bottom-up, so
		 * that a tree's rows end up ordered from its leaves: pods together */
		for (int r = 1; r < (int)l->n_rows; r++)
			layout_sweep_row(g, pr, r, -1, pos, tmp);
		for (int r = (int)l->n_rows - 2; r >= 0; r--)
			layout_sweep_row(g, pr, r, 1, pos, tmp);
	}
	free(pos);
	free(tmp);
	return 0;
}

/* Fill pr: the switches of each row in fabric order (the first order). */
static int layout_members(struct draw_layout *l, const int *row_of, int ranks,
			  struct draw_priv_rows *pr)
{
	pr->n_members = calloc(l->n_rows + 1, sizeof(size_t));
	pr->members = calloc(l->n_rows + 1, sizeof(int *));
	pr->row_of_node = malloc((l->n_nodes + 1) * sizeof(int));
	if (!pr->n_members || !pr->members || !pr->row_of_node)
		return -ENOMEM;
	for (size_t i = 0; i < l->n_nodes; i++) {
		const struct draw_node *d = &l->nodes[i];
		int r = d->type == 2 ? row_of[d->rank] : d->sw < 0 ? row_of[ranks + 1] : -1;

		pr->row_of_node[i] = r;
		if (r >= 0)
			pr->n_members[r]++;
	}
	for (size_t r = 0; r < l->n_rows; r++) {
		pr->members[r] = malloc((pr->n_members[r] + 1) * sizeof(int));
		if (!pr->members[r])
			return -ENOMEM;
		pr->n_members[r] = 0;
	}
	for (size_t i = 0; i < l->n_nodes; i++) {
		int r = pr->row_of_node[i];

		if (r >= 0)
			pr->members[r][pr->n_members[r]++] = (int)i;
	}
	return 0;
}

void draw_priv_rows_fini(struct draw_priv_rows *pr, size_t n_rows)
{
	if (pr->members)
		for (size_t r = 0; r < n_rows; r++)
			free(pr->members[r]);
	free(pr->members);
	free(pr->n_members);
	free(pr->row_of_node);
}

/* ---- the whole ----------------------------------------------------------- */

static void layout_summary(struct draw_layout *l, const struct draw_opts *o)
{
	size_t sw = 0, hosts = 0, live = 0, missing = 0, ghosts = 0;
	struct text_sink s = {l->summary, sizeof(l->summary), 0};

	for (size_t i = 0; i < l->n_nodes; i++) {
		if (l->nodes[i].type == 2)
			sw++;
		else
			hosts++;
		ghosts += l->nodes[i].live < 0;
	}
	for (size_t i = 0; i < l->n_cables; i++) {
		live += l->cables[i].live;
		missing += !l->cables[i].live;
	}
	text_sinkf(&s, "%zu switches, %zu hosts, %zu cables", sw, hosts, live);
	if (o->reference)
		text_sinkf(&s, "; against the reference: %zu cable%s and %zu node%s missing",
			   missing, missing == 1 ? "" : "s", ghosts, ghosts == 1 ? "" : "s");
	snprintf(l->title, sizeof(l->title), "%s", o->title ? o->title : "fabric");
}

int draw_layout(const struct fabric *f, const struct draw_opts *o, struct draw_layout *out,
		char *err, size_t errlen)
{
	struct layout_adj g = {0};
	struct draw_priv_rows pr = {0};
	int *dist = NULL, *queue = NULL, *row_of = NULL, ranks, rc = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (layout_graph(out, f, o))
		goto fail;
	layout_hosts(out);
	dist = malloc((out->n_nodes + 1) * sizeof(int));
	queue = malloc((out->n_nodes + 1) * sizeof(int));
	if (!dist || !queue || layout_adj_build(out, &g))
		goto fail;
	ranks = layout_rank(out, &g, dist, queue);
	row_of = malloc(((size_t)ranks + 2) * sizeof(int));
	if (!row_of || layout_rows(out, ranks, row_of) || layout_members(out, row_of, ranks, &pr) ||
	    layout_order(out, &g, &pr))
		goto fail;
	layout_summary(out, o);
	rc = draw_priv_place(out, o, &pr);
fail:
	draw_priv_rows_fini(&pr, out->n_rows);
	layout_adj_fini(&g);
	free(dist);
	free(queue);
	free(row_of);
	if (rc) {
		draw_layout_fini(out);
		return text_err(err, errlen, rc, "drawing the fabric: out of memory");
	}
	return 0;
}

void draw_layout_fini(struct draw_layout *l)
{
	free(l->nodes);
	free(l->boxes);
	free(l->cables);
	free(l->edges);
	free(l->labels);
	free(l->rows);
	memset(l, 0, sizeof(*l));
}

int draw_overlap(double ax, double ay, double aw, double ah, double bx, double by, double bw,
		 double bh)
{
	return ax < bx + bw && bx < ax + aw && ay < by + bh && by < ay + ah;
}
