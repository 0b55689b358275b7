/*
 * tools/gen/gen_mesh.c - nanosm-gen's switch meshes: random irregular
 * meshes (a spanning tree, then free ports paired at random), regular
 * grids and tori of 2 or 3 dimensions, and rings, each switch with --hosts
 * hosts.  Builds through gen.c's primitives; prints nothing.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tools/gen/gen.h"

static unsigned gen_sw_ports(const struct gen_args *a, unsigned need)
{
	unsigned p = a->switch_ports ? a->switch_ports : need;

	if (p < need)
		gen_die("--switch-ports %u is fewer than the %u this shape needs", p, need);
	if (p > GEN_MAX_PORTS)
		gen_die("this shape needs %u switch ports, more than %d", p, GEN_MAX_PORTS);
	return p;
}

/* count switches (role, 1 group) with `hosts` hosts each on ports 1..hosts */
static uint32_t gen_switch_row(struct gen *g, const struct gen_args *a, enum gen_role role,
			       uint32_t group, unsigned count, unsigned nports)
{
	uint32_t first = (uint32_t)g->n_nodes;

	for (unsigned i = 0; i < count; i++)
		gen_add_node(g, role, nports, group, i + 1);
	for (unsigned i = 0; i < count; i++)
		for (unsigned h = 1; h <= a->hosts; h++)
			gen_add_host(g, a->ca_ports, first + i, h);
	return first;
}

/* Link two switches on their first free ports above the host ports. */
static int gen_link_free(struct gen *g, const struct gen_args *a, uint32_t x, uint32_t y)
{
	unsigned px = gen_free_port(g, x, a->hosts + 1, g->nodes[x].nports);
	unsigned py = gen_free_port(g, y, a->hosts + 1, g->nodes[y].nports);

	if (!px || !py)
		return -1;
	gen_link(g, x, px, y, py);
	return 0;
}

static int gen_linked(struct gen *g, uint32_t x, uint32_t y)
{
	for (unsigned p = 1; p <= g->nodes[x].nports; p++)
		if (gen_port_at(g, x, p)->node == y)
			return 1;
	return 0;
}

/* Random spanning tree: switch order[i] cables to a random earlier one with
 * a free port (one exists while degree >= 2). */
static void gen_mesh_tree(struct gen *g, const struct gen_args *a, uint32_t first, uint32_t *order,
			  uint64_t *seed)
{
	for (unsigned i = 1; i < a->switches; i++) {
		uint32_t j = gen_rand_below(seed, i), tries;

		for (tries = 0; tries < i; tries++, j = (j + 1) % i)
			if (gen_link_free(g, a, first + order[i], first + order[j]) == 0)
				break;
		if (tries == i)
			gen_die("internal: mesh spanning tree ran out of ports");
	}
}

/* Fill the remaining switch-switch ports by pairing free ports at random,
 * skipping self-loops and second cables between the same two switches. */
static void gen_mesh_fill(struct gen *g, const struct gen_args *a, uint32_t first, uint64_t *seed)
{
	size_t n = 0, cap = (size_t)a->switches * a->degree;
	uint32_t *stubs = malloc(cap * sizeof(*stubs));

	if (!stubs)
		gen_die("out of memory");
	for (unsigned s = 0; s < a->switches; s++)
		for (unsigned p = a->hosts + 1; p <= a->hosts + a->degree; p++)
			if (gen_port_at(g, first + s, p)->node == GEN_NONE)
				stubs[n++] = first + s;
	gen_shuffle(stubs, n, seed);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = i + 1; j < n && stubs[i] != GEN_NONE; j++) {
			if (stubs[j] == GEN_NONE || stubs[j] == stubs[i] ||
			    gen_linked(g, stubs[i], stubs[j]))
				continue;
			gen_link_free(g, a, stubs[i], stubs[j]);
			stubs[i] = stubs[j] = GEN_NONE;
		}
	}
	free(stubs);
}

/*
 * Grids: tori (wrapping) and regular meshes (not wrapping) of X x Y or
 * X x Y x Z switches.  Switch (x, y[, z]) has its hosts on ports 1..H and,
 * per dimension d (0 = x, 1 = y, 2 = z), port H+1+2d towards +d and port
 * H+2+2d towards -d: cable (+d of c) - (-d of c+1).  A torus wraps every
 * dimension (c = size-1 to c = 0), so a dimension of 2 gives two parallel
 * cables between the same two switches, as in a real 2-ary torus; a mesh
 * does not wrap, so its edge switches leave those ports empty, and a mesh
 * dimension may be 1.  Every switch has the same port count (H + 2 per
 * dimension).  Switches are built x-major: a row per x (the node's group),
 * in it (y, z) with idx (y-1)*Z + z.
 */
struct gen_grid {
	unsigned dim[3]; /* sizes; dim[2] = 1 for a 2-D grid */
	unsigned ndims;	 /* 2 or 3 */
	int wrap;
};

static uint32_t gen_grid_node(const struct gen_grid *gr, const uint32_t *row, const unsigned *c)
{
	return row[c[0]] + c[1] * gr->dim[2] + c[2];
}

/* The cable from switch c towards +d, if the grid has one. */
static void gen_grid_link_dim(struct gen *g, const struct gen_grid *gr, const uint32_t *row,
			      const unsigned *c, unsigned d, unsigned h)
{
	unsigned n[3] = {c[0], c[1], c[2]};

	if (c[d] + 1 < gr->dim[d])
		n[d] = c[d] + 1;
	else if (gr->wrap && gr->dim[d] > 1)
		n[d] = 0;
	else
		return;
	gen_link(g, gen_grid_node(gr, row, c), h + 1 + 2 * d, gen_grid_node(gr, row, n),
		 h + 2 + 2 * d);
}

static void gen_grid_build(struct gen *g, const struct gen_args *a, const struct gen_grid *gr)
{
	unsigned nports = gen_sw_ports(a, a->hosts + 2 * gr->ndims), c[3];
	uint32_t *row = malloc((size_t)gr->dim[0] * sizeof(*row));

	if (!row)
		gen_die("out of memory");
	g->grid_z = gr->ndims == 3 ? gr->dim[2] : 0;
	for (unsigned x = 0; x < gr->dim[0]; x++)
		row[x] = gen_switch_row(g, a, GEN_TORUS, x + 1, gr->dim[1] * gr->dim[2], nports);
	for (c[0] = 0; c[0] < gr->dim[0]; c[0]++)
		for (c[1] = 0; c[1] < gr->dim[1]; c[1]++)
			for (c[2] = 0; c[2] < gr->dim[2]; c[2]++)
				for (unsigned d = 0; d < gr->ndims; d++)
					gen_grid_link_dim(g, gr, row, c, d, a->hosts);
	free(row);
	if (gr->ndims == 3)
		snprintf(g->shape, sizeof(g->shape),
			 "%s: %u x %u x %u switches of %u ports, %u hosts each", a->shape,
			 gr->dim[0], gr->dim[1], gr->dim[2], nports, a->hosts);
	else
		snprintf(g->shape, sizeof(g->shape),
			 "%s: %u x %u switches of %u ports, %u hosts each", a->shape, gr->dim[0],
			 gr->dim[1], nports, a->hosts);
}

/* A torus (wrap) or a regular mesh from --x/--y[/--z]. */
void gen_mesh_grid(struct gen *g, const struct gen_args *a, int wrap)
{
	struct gen_grid gr = {{a->x, a->y, a->z ? a->z : 1}, a->z ? 3 : 2, wrap};
	unsigned min = wrap ? 2 : 1;

	if (a->x < min || a->y < min || (a->z && a->z < min))
		gen_die("%s needs --x, --y (and --z if given) >= %u", a->shape, min);
	if ((unsigned long long)gr.dim[0] * gr.dim[1] * gr.dim[2] < 2)
		gen_die("%s: a grid of one switch", a->shape);
	if ((unsigned long long)gr.dim[1] * gr.dim[2] > 65535)
		gen_die("%s: --y times --z must be at most 65535", a->shape);
	gen_grid_build(g, a, &gr);
}

void gen_mesh(struct gen *g, const struct gen_args *a, uint64_t *seed)
{
	uint32_t first, *order;

	if (a->x || a->y || a->z) {
		if (a->switches || a->degree)
			gen_die(
			    "mesh: either --x/--y[/--z] (a regular grid) or --switches/--degree "
			    "(a random mesh), not both");
		gen_mesh_grid(g, a, 0);
		return;
	}
	if (a->switches < 2 || a->degree < 2)
		gen_die("mesh needs --switches >= 2 and --degree >= 2, or --x and --y");
	if (a->degree >= a->switches)
		gen_die("mesh: --degree %u needs more than %u switches", a->degree, a->switches);
	first = gen_switch_row(g, a, GEN_SW, 0, a->switches, gen_sw_ports(a, a->hosts + a->degree));
	order = malloc(a->switches * sizeof(*order));
	if (!order)
		gen_die("out of memory");
	for (unsigned i = 0; i < a->switches; i++)
		order[i] = i;
	gen_shuffle(order + 1, a->switches - 1, seed); /* switch 1 (host1's) starts the tree */
	gen_mesh_tree(g, a, first, order, seed);
	gen_mesh_fill(g, a, first, seed);
	free(order);
	snprintf(g->shape, sizeof(g->shape),
		 "mesh: %u switches of %u ports, %u hosts and up to %u switch cables each",
		 a->switches, g->nodes[first].nports, a->hosts, a->degree);
}

/* Ring: switch i port H+1 -> switch i+1 port H+2, the last back to the first. */
void gen_mesh_ring(struct gen *g, const struct gen_args *a)
{
	uint32_t first;

	if (a->switches < 2)
		gen_die("ring needs --switches >= 2");
	first = gen_switch_row(g, a, GEN_SW, 0, a->switches, gen_sw_ports(a, a->hosts + 2));
	for (unsigned i = 0; i < a->switches; i++)
		gen_link(g, first + i, a->hosts + 1, first + (i + 1) % a->switches, a->hosts + 2);
	snprintf(g->shape, sizeof(g->shape), "ring: %u switches of %u ports, %u hosts each",
		 a->switches, g->nodes[first].nports, a->hosts);
}
