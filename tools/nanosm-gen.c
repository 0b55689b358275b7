/*
 * nanosm-gen.c - print synthetic fabrics (fat trees, meshes, tori, rings) in
 * ibsim / ibnetdiscover "net" format for tests and benchmarks.
 * A standalone tool: it uses no SM or routing module and writes only to its
 * output file; everything it makes is a pure function of its arguments.
 *
 * DOC: the generator builds the fabric in memory (nodes with a port array,
 * links stored on both ends), optionally removes whole switches and then
 * links at random without disconnecting it, then prints every CA (first, so
 * host1 is ibsim's default attach point) and then every switch, each port
 * line from both link ends.
 * Shapes and counts are documented in gen_usage() and docs/bench.md.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEN_MAX_PORTS 254
#define GEN_NONE UINT32_MAX
#define GEN_LID_SPACE 0xBFFF /* unicast LIDs 0x0001..0xBFFF */
#define GEN_NAME_LEN 24

#define GEN_CA_GUID_BASE 0x0002c90400000000ULL /* + host number << 4 */
#define GEN_SW_GUID_BASE 0x0002c90500000000ULL /* | role << 28 | group << 16 | idx */
#define GEN_VENDOR_ID 0x2c9
#define GEN_CA_DEVICE_ID 0x1013 /* ConnectX-4 */
#define GEN_SW_DEVICE_ID 0xcb20 /* Switch-IB */

/* What a node is in its shape; decides its name and GUID. */
enum gen_role { GEN_HOST, GEN_LEAF, GEN_SPINE, GEN_AGG, GEN_CORE, GEN_SW, GEN_TORUS, GEN_ROLES };

struct gen_port {
	uint32_t node; /* remote node index, GEN_NONE when not cabled */
	uint8_t port;  /* remote port number */
};

struct gen_node {
	uint8_t role;	/* enum gen_role */
	uint8_t nports; /* ports 1..nports */
	uint8_t gone;	/* removed by --missing-switches: not printed or counted */
	uint32_t group; /* pod (3-level tree) or grid x, 1-based; 0 = none */
	uint32_t idx;	/* 1-based index within role (and group); grid: (y-1)*Z + z */
	uint32_t port0; /* this node's ports are gen.ports[port0 + 1 .. port0 + nports] */
	uint64_t guid;
};

struct gen {
	struct gen_node *nodes;
	size_t n_nodes, cap_nodes;
	struct gen_port *ports;
	size_t n_ports, cap_ports;
	size_t n_hosts;
	char (*names)[GEN_NAME_LEN]; /* filled by gen_name_all before printing */
	unsigned grid_z;	     /* grid (torus, regular mesh) with a z dimension: Z */
	char shape[256];	     /* the shape's parameters, for the header */
	uint32_t *removed_idx;	     /* the switches --missing-switches took, in order */
	size_t n_removed;
};

/* Everything the command line says. 0 = not given, where that is allowed. */
struct gen_args {
	const char *shape;
	const char *out;
	unsigned levels, radix, hosts_per_leaf, cas, missing, ca_ports, switch_ports;
	unsigned switches, degree, hosts, x, y, z, seed, missing_switches;
	int partial, verbose, lose_hosts;
	char cmdline[512];
};

/* ---------------------------------------------------------------- misc */

static void gen_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

static void gen_die(const char *fmt, ...)
{
	va_list ap;

	fputs("nanosm-gen: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void *gen_grow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 64;

	if (need <= *cap)
		return p;
	while (ncap < need)
		ncap *= 2;
	p = realloc(p, ncap * elem);
	if (!p)
		gen_die("out of memory");
	*cap = ncap;
	return p;
}

/* splitmix64: a small deterministic PRNG, the same on every platform. */
static uint64_t gen_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t gen_rand_below(uint64_t *state, uint32_t n)
{
	return (uint32_t)(gen_rand(state) % n);
}

static void gen_shuffle(uint32_t *v, size_t n, uint64_t *state)
{
	for (size_t i = n; i > 1; i--) {
		uint32_t j = gen_rand_below(state, (uint32_t)i);
		uint32_t t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

/* ---------------------------------------------------------------- graph */

static struct gen_port *gen_port_at(struct gen *g, uint32_t node, unsigned port)
{
	return &g->ports[g->nodes[node].port0 + port];
}

static uint32_t gen_add_node(struct gen *g, enum gen_role role, unsigned nports, uint32_t group,
			     uint32_t idx)
{
	struct gen_node *n;

	if (nports < 1 || nports > GEN_MAX_PORTS)
		gen_die("a node needs 1..%d ports, not %u", GEN_MAX_PORTS, nports);
	g->nodes = gen_grow(g->nodes, &g->cap_nodes, g->n_nodes + 1, sizeof(*g->nodes));
	g->ports = gen_grow(g->ports, &g->cap_ports, g->n_ports + nports + 1, sizeof(*g->ports));
	n = &g->nodes[g->n_nodes];
	n->role = (uint8_t)role;
	n->nports = (uint8_t)nports;
	n->gone = 0;
	n->group = group;
	n->idx = idx;
	n->port0 = (uint32_t)g->n_ports;
	for (unsigned p = 0; p <= nports; p++)
		g->ports[g->n_ports + p] = (struct gen_port){GEN_NONE, 0};
	g->n_ports += nports + 1;
	if (role == GEN_HOST) {
		g->n_hosts++;
		n->guid = GEN_CA_GUID_BASE + ((uint64_t)idx << 4);
	} else {
		n->guid = GEN_SW_GUID_BASE | (uint64_t)role << 28 | (uint64_t)group << 16 | idx;
	}
	return (uint32_t)g->n_nodes++;
}

static void gen_link(struct gen *g, uint32_t a, unsigned pa, uint32_t b, unsigned pb)
{
	struct gen_port *x, *y;

	if (pa < 1 || pa > g->nodes[a].nports || pb < 1 || pb > g->nodes[b].nports)
		gen_die("internal: port out of range linking node %u/%u to %u/%u", a, pa, b, pb);
	x = gen_port_at(g, a, pa);
	y = gen_port_at(g, b, pb);
	if (x->node != GEN_NONE || y->node != GEN_NONE)
		gen_die("internal: port cabled twice (node %u/%u, node %u/%u)", a, pa, b, pb);
	*x = (struct gen_port){b, (uint8_t)pb};
	*y = (struct gen_port){a, (uint8_t)pa};
}

static void gen_unlink(struct gen *g, uint32_t a, unsigned pa)
{
	struct gen_port *x = gen_port_at(g, a, pa);

	*gen_port_at(g, x->node, x->port) = (struct gen_port){GEN_NONE, 0};
	*x = (struct gen_port){GEN_NONE, 0};
}

/* The first free port in [lo, hi] of a node, or 0. */
static unsigned gen_free_port(struct gen *g, uint32_t node, unsigned lo, unsigned hi)
{
	for (unsigned p = lo; p <= hi; p++)
		if (gen_port_at(g, node, p)->node == GEN_NONE)
			return p;
	return 0;
}

/* A host with ca_ports ports, port 1 cabled to sw/port. */
static void gen_add_host(struct gen *g, unsigned ca_ports, uint32_t sw, unsigned port)
{
	uint32_t h = gen_add_node(g, GEN_HOST, ca_ports, 0, (uint32_t)g->n_hosts + 1);

	gen_link(g, h, 1, sw, port);
}

/* ---------------------------------------------------------------- fat trees */

/*
 * Shape of a fat tree (all switches have `radix` ports):
 *  2 levels: a leaf has H hosts (ports 1..H) and U = radix - H uplinks, one
 *    to each of U spines (leaf port H+s -> spine s); spine port l <- leaf l,
 *    so at most `radix` leaves.  Default H = radix/2: full bisection,
 *    radix^2/2 hosts, 3*radix/2 switches.
 *  3 levels (k-ary 3-tree, "pods"): a pod has Lp = radix/2 leaves and
 *    A = radix - H aggregation switches; leaf l port H+a -> agg a port l;
 *    agg a has radix - Lp uplinks, uplink c (port Lp+c) -> core (a, c) port
 *    p (pod p); at most `radix` pods.  Default H = radix/2: radix^3/4 hosts,
 *    radix pods of radix switches, (radix/2)^2 cores.
 */
struct gen_tree {
	unsigned levels, radix, hpl; /* hpl: hosts per full leaf */
	unsigned up;		     /* uplinks per leaf = spines (2L) = aggs per pod (3L) */
	unsigned lpp;		     /* leaves per pod (3L); 2L: leaves in the tree */
	unsigned pods;		     /* 3L: pods built; 2L: 1 */
	unsigned max_units;	     /* most leaves (2L) / pods (3L) the radix allows */
	unsigned cas;		     /* hosts to place (0 = fill every leaf built) */
	unsigned char *drop_leaf;    /* [pod * lpp + leaf], leaves left out (--partial) */
	unsigned char *drop_pod;     /* [pod] */
};

static unsigned long long gen_tree_capacity(unsigned levels, unsigned radix, unsigned hpl)
{
	unsigned long long lpp = levels == 2 ? radix : radix / 2;

	if (hpl >= radix)
		return 0;
	return levels == 2 ? lpp * hpl : (unsigned long long)radix * lpp * hpl;
}

/* Pick the radix (if not given): the smallest one whose full tree holds
 * --cas hosts (even when H is the default radix/2). */
static unsigned gen_tree_pick_radix(const struct gen_args *a)
{
	for (unsigned k = 4; k <= GEN_MAX_PORTS; k++) {
		unsigned hpl = a->hosts_per_leaf ? a->hosts_per_leaf : k / 2;

		if (!a->hosts_per_leaf && k % 2)
			continue;
		if (gen_tree_capacity(a->levels, k, hpl) >= a->cas)
			return k;
	}
	gen_die("no fat tree with %u levels and radix <= %d holds %u CAs%s", a->levels,
		GEN_MAX_PORTS, a->cas,
		a->hosts_per_leaf ? "" : " (try --hosts-per-leaf to oversubscribe the leaves)");
}

/* Radix, hosts per leaf and uplinks from the arguments. */
static void gen_tree_ports(struct gen_tree *t, const struct gen_args *a)
{
	t->levels = a->levels;
	t->radix = a->radix ? a->radix : a->cas ? gen_tree_pick_radix(a) : 0;
	if (!t->radix)
		gen_die("fattree needs --radix K or --cas N");
	t->hpl = a->hosts_per_leaf ? a->hosts_per_leaf : t->radix / 2;
	if (t->hpl >= t->radix)
		gen_die("--hosts-per-leaf %u leaves no uplink on a %u-port leaf", t->hpl, t->radix);
	t->up = t->radix - t->hpl;
	t->max_units = t->radix; /* a leaf per spine port (2L), a pod per core port (3L) */
}

/* How many leaves (2 levels) or pods (3 levels) to build: all, or as few as
 * hold --cas hosts. */
static void gen_tree_size(struct gen_tree *t, const struct gen_args *a)
{
	unsigned long long cap, per_unit;
	unsigned units;

	gen_tree_ports(t, a);
	t->lpp = t->levels == 2 ? t->radix : t->radix / 2;
	per_unit = t->levels == 2 ? t->hpl : (unsigned long long)t->lpp * t->hpl;
	cap = gen_tree_capacity(t->levels, t->radix, t->hpl);
	if (a->cas > cap)
		gen_die("a %u-level tree of radix %u with %u hosts per leaf holds at most %llu "
			"CAs, not %u",
			t->levels, t->radix, t->hpl, cap, a->cas);
	t->cas = a->cas;
	units = a->cas ? (unsigned)((a->cas + per_unit - 1) / per_unit) : t->max_units;
	t->pods = t->levels == 2 ? 1 : units;
	if (t->levels == 2)
		t->lpp = units;
}

/* Mark k of n units (never unit 0) as dropped, at random. */
static void gen_drop_some(unsigned char *drop, unsigned n, unsigned k, uint64_t *seed)
{
	uint32_t *order;

	if (n < 2 || k == 0)
		return;
	order = malloc((n - 1) * sizeof(*order));
	if (!order)
		gen_die("out of memory");
	for (unsigned i = 1; i < n; i++)
		order[i - 1] = i;
	gen_shuffle(order, n - 1, seed);
	for (unsigned i = 0; i < k && i < n - 1; i++)
		drop[order[i]] = 1;
	free(order);
}

/* A quarter of n, at least one when there are two or more. */
static unsigned gen_quarter(unsigned n)
{
	return n < 2 ? 0 : n / 4 ? n / 4 : 1;
}

/* --partial: drop a quarter of the leaves (never leaf 1 of pod 1) and, with
 * three levels, a quarter of the pods (never pod 1). */
static void gen_tree_partial(struct gen_tree *t, int partial, uint64_t *seed)
{
	size_t nleaves = (size_t)t->pods * t->lpp;

	t->drop_leaf = calloc(nleaves, 1);
	t->drop_pod = calloc(t->pods, 1);
	if (!t->drop_leaf || !t->drop_pod)
		gen_die("out of memory");
	if (!partial)
		return;
	if (t->levels == 3)
		gen_drop_some(t->drop_pod, t->pods, gen_quarter(t->pods), seed);
	gen_drop_some(t->drop_leaf, (unsigned)nleaves, gen_quarter((unsigned)nleaves), seed);
}

/* Hosts on leaf number `leaf_no` (0-based, in build order) under --cas. */
static unsigned gen_tree_hosts_on(const struct gen_tree *t, size_t leaf_no)
{
	unsigned long long before = (unsigned long long)leaf_no * t->hpl;

	if (!t->cas)
		return t->hpl;
	if (before >= t->cas)
		return 0;
	return t->cas - before < t->hpl ? (unsigned)(t->cas - before) : t->hpl;
}

/* Build the leaves of one pod (or of the 2-level tree), with their hosts;
 * returns the index of the first leaf (leaves are consecutive), GEN_NONE
 * entries for dropped ones go into leaf_ids. */
static void gen_tree_leaves(struct gen *g, const struct gen_tree *t, const struct gen_args *a,
			    unsigned pod, uint32_t *leaf_ids)
{
	for (unsigned l = 0; l < t->lpp; l++) {
		size_t leaf_no = (size_t)pod * t->lpp + l;
		unsigned nh = gen_tree_hosts_on(t, leaf_no);
		uint32_t leaf;

		leaf_ids[l] = GEN_NONE;
		if (t->drop_leaf[leaf_no] || (t->cas && nh == 0))
			continue;
		leaf = gen_add_node(g, GEN_LEAF, t->radix, t->levels == 3 ? pod + 1 : 0, l + 1);
		leaf_ids[l] = leaf;
		for (unsigned h = 1; h <= nh; h++)
			gen_add_host(g, a->ca_ports, leaf, h);
	}
}

static void gen_fattree2(struct gen *g, const struct gen_tree *t, const struct gen_args *a)
{
	uint32_t *leaves = malloc(t->lpp * sizeof(*leaves));

	if (!leaves)
		gen_die("out of memory");
	gen_tree_leaves(g, t, a, 0, leaves);
	for (unsigned s = 0; s < t->up; s++) {
		uint32_t spine = gen_add_node(g, GEN_SPINE, t->radix, 0, s + 1);

		for (unsigned l = 0; l < t->lpp; l++)
			if (leaves[l] != GEN_NONE)
				gen_link(g, leaves[l], t->hpl + 1 + s, spine, l + 1);
	}
	free(leaves);
}

/* One pod: leaves, hosts, aggregation switches; agg ids go into aggs[]. */
static void gen_fattree3_pod(struct gen *g, const struct gen_tree *t, const struct gen_args *a,
			     unsigned pod, uint32_t *leaves, uint32_t *aggs)
{
	gen_tree_leaves(g, t, a, pod, leaves);
	for (unsigned s = 0; s < t->up; s++) {
		aggs[s] = gen_add_node(g, GEN_AGG, t->radix, pod + 1, s + 1);
		for (unsigned l = 0; l < t->lpp; l++)
			if (leaves[l] != GEN_NONE)
				gen_link(g, leaves[l], t->hpl + 1 + s, aggs[s], l + 1);
	}
}

static void gen_fattree3(struct gen *g, const struct gen_tree *t, const struct gen_args *a)
{
	unsigned core_up = t->radix - t->lpp; /* uplinks per agg = cores per agg group */
	uint32_t *leaves = malloc(t->lpp * sizeof(*leaves));
	uint32_t *aggs = malloc((size_t)t->pods * t->up * sizeof(*aggs));

	if (!leaves || !aggs)
		gen_die("out of memory");
	for (unsigned p = 0; p < t->pods; p++) {
		if (t->drop_pod[p]) {
			for (unsigned s = 0; s < t->up; s++)
				aggs[(size_t)p * t->up + s] = GEN_NONE;
			continue;
		}
		gen_fattree3_pod(g, t, a, p, leaves, &aggs[(size_t)p * t->up]);
	}
	for (unsigned s = 0; s < t->up; s++) {
		for (unsigned c = 0; c < core_up; c++) {
			uint32_t core = gen_add_node(g, GEN_CORE, t->radix, 0, s * core_up + c + 1);

			for (unsigned p = 0; p < t->pods; p++) {
				uint32_t agg = aggs[(size_t)p * t->up + s];

				if (agg != GEN_NONE)
					gen_link(g, agg, t->lpp + 1 + c, core, p + 1);
			}
		}
	}
	free(leaves);
	free(aggs);
}

static unsigned gen_count_marks(const unsigned char *v, size_t n)
{
	unsigned k = 0;

	for (size_t i = 0; i < n; i++)
		k += v[i];
	return k;
}

static void gen_tree_describe(struct gen *g, const struct gen_tree *t)
{
	unsigned dl = gen_count_marks(t->drop_leaf, (size_t)t->pods * t->lpp);
	unsigned dp = gen_count_marks(t->drop_pod, t->pods);
	int n;

	if (t->levels == 2)
		n = snprintf(
		    g->shape, sizeof(g->shape),
		    "fattree 2 levels: radix %u, %u hosts/leaf, %u spines, %u of %u leaves built",
		    t->radix, t->hpl, t->up, t->lpp, t->max_units);
	else
		n = snprintf(
		    g->shape, sizeof(g->shape),
		    "fattree 3 levels: radix %u, %u hosts/leaf, %u leaves + %u aggs per pod, "
		    "%u of %u pods built, %u cores",
		    t->radix, t->hpl, t->lpp, t->up, t->pods, t->max_units,
		    t->up * (t->radix - t->lpp));
	if (dl || dp)
		snprintf(g->shape + n, sizeof(g->shape) - (size_t)n,
			 "; --partial dropped %u leaves, %u pods", dl, dp);
}

static void gen_fattree(struct gen *g, const struct gen_args *a, uint64_t *seed)
{
	struct gen_tree t = {0};

	if (a->levels != 2 && a->levels != 3)
		gen_die("fattree: --levels must be 2 or 3");
	gen_tree_size(&t, a);
	gen_tree_partial(&t, a->partial, seed);
	if (t.levels == 2)
		gen_fattree2(g, &t, a);
	else
		gen_fattree3(g, &t, a);
	gen_tree_describe(g, &t);
	free(t.drop_leaf);
	free(t.drop_pod);
}

/* ---------------------------------------------------------------- meshes */

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
static void gen_grid(struct gen *g, const struct gen_args *a, int wrap)
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

static void gen_mesh(struct gen *g, const struct gen_args *a, uint64_t *seed)
{
	uint32_t first, *order;

	if (a->x || a->y || a->z) {
		if (a->switches || a->degree)
			gen_die(
			    "mesh: either --x/--y[/--z] (a regular grid) or --switches/--degree "
			    "(a random mesh), not both");
		gen_grid(g, a, 0);
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
static void gen_ring(struct gen *g, const struct gen_args *a)
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

/* ---------------------------------------------------------------- missing links */

struct gen_bfs {
	uint32_t *mark, *queue;
	uint32_t stamp;
};

/* Breadth-first walk over cabled ports from `from`: SIZE_MAX as soon as it
 * reaches `stop` (GEN_NONE: never), else how many switches it reached. */
static size_t gen_walk(struct gen *g, struct gen_bfs *b, uint32_t from, uint32_t stop)
{
	size_t head = 0, tail = 0, switches = g->nodes[from].role != GEN_HOST;

	b->stamp++;
	b->mark[from] = b->stamp;
	b->queue[tail++] = from;
	while (head < tail) {
		uint32_t v = b->queue[head++];

		for (unsigned p = 1; p <= g->nodes[v].nports; p++) {
			uint32_t w = gen_port_at(g, v, p)->node;

			if (w == GEN_NONE || b->mark[w] == b->stamp)
				continue;
			if (w == stop)
				return SIZE_MAX;
			b->mark[w] = b->stamp;
			b->queue[tail++] = w;
			switches += g->nodes[w].role != GEN_HOST;
		}
	}
	return switches;
}

/* Is `to` reachable from `from` through cabled ports? (early exit) */
static int gen_reachable(struct gen *g, struct gen_bfs *b, uint32_t from, uint32_t to)
{
	return gen_walk(g, b, from, to) == SIZE_MAX;
}

/* Every switch-switch link once, as (node << 8 | port) from its lower end. */
static uint32_t *gen_switch_links(struct gen *g, size_t *n)
{
	uint32_t *v = NULL;
	size_t cap = 0;

	*n = 0;
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		if (g->nodes[i].role == GEN_HOST)
			continue;
		for (unsigned p = 1; p <= g->nodes[i].nports; p++) {
			struct gen_port *r = gen_port_at(g, i, p);

			if (r->node == GEN_NONE || g->nodes[r->node].role == GEN_HOST ||
			    r->node < i || (r->node == i && r->port < p))
				continue;
			v = gen_grow(v, &cap, *n + 1, sizeof(*v));
			v[(*n)++] = i << 8 | p;
		}
	}
	return v;
}

/* Remove `want` random switch-switch links, keeping the fabric connected. */
static void gen_remove_links(struct gen *g, unsigned want, uint64_t *seed)
{
	struct gen_bfs b = {calloc(g->n_nodes, sizeof(uint32_t)),
			    malloc(g->n_nodes * sizeof(uint32_t)), 0};
	size_t n, removed = 0;
	uint32_t *links = gen_switch_links(g, &n);

	if (!b.mark || !b.queue)
		gen_die("out of memory");
	gen_shuffle(links, n, seed);
	for (size_t i = 0; i < n && removed < want; i++) {
		uint32_t a = links[i] >> 8, pa = links[i] & 0xff;
		struct gen_port r = *gen_port_at(g, a, pa);

		gen_unlink(g, a, pa);
		if (gen_reachable(g, &b, a, r.node))
			removed++;
		else
			gen_link(g, a, pa, r.node, r.port);
	}
	if (removed < want)
		gen_die("only %zu of %u switch-switch links can be removed without disconnecting "
			"the fabric",
			removed, want);
	free(links);
	free(b.mark);
	free(b.queue);
}

/* ---------------------------------------------------------------- missing switches */

static int gen_has_host(struct gen *g, uint32_t sw)
{
	for (unsigned p = 1; p <= g->nodes[sw].nports; p++) {
		uint32_t r = gen_port_at(g, sw, p)->node;

		if (r != GEN_NONE && g->nodes[r].role == GEN_HOST)
			return 1;
	}
	return 0;
}

/* The switch host1 is cabled to: never removed (the SM's attach point). */
static uint32_t gen_host1_switch(struct gen *g)
{
	for (uint32_t i = 0; i < g->n_nodes; i++)
		if (g->nodes[i].role == GEN_HOST && g->nodes[i].idx == 1)
			return gen_port_at(g, i, 1)->node;
	return GEN_NONE;
}

/* Do the switches left (not gone) all reach `from`? */
static int gen_switches_connected(struct gen *g, struct gen_bfs *b, uint32_t from)
{
	size_t left = 0;

	for (uint32_t i = 0; i < g->n_nodes; i++)
		left += g->nodes[i].role != GEN_HOST && !g->nodes[i].gone;
	return gen_walk(g, b, from, GEN_NONE) == left;
}

/* Take switch `sw` out with its cables (and its hosts, which go too);
 * saved[] keeps its port table so gen_restore_switch can put it back. */
static void gen_drop_switch(struct gen *g, uint32_t sw, struct gen_port *saved)
{
	struct gen_node *n = &g->nodes[sw];

	memcpy(saved, gen_port_at(g, sw, 0), (n->nports + 1u) * sizeof(*saved));
	for (unsigned p = 1; p <= n->nports; p++) {
		uint32_t r = gen_port_at(g, sw, p)->node;

		if (r == GEN_NONE)
			continue;
		if (g->nodes[r].role == GEN_HOST)
			g->nodes[r].gone = 1;
		gen_unlink(g, sw, p);
	}
	n->gone = 1;
}

static void gen_restore_switch(struct gen *g, uint32_t sw, const struct gen_port *saved)
{
	g->nodes[sw].gone = 0;
	for (unsigned p = 1; p <= g->nodes[sw].nports; p++) {
		if (saved[p].node == GEN_NONE)
			continue;
		g->nodes[saved[p].node].gone = 0;
		gen_link(g, sw, p, saved[p].node, saved[p].port);
	}
}

/* The switches --missing-switches may take, in random order: without hosts,
 * or (--lose-hosts) any but host1's. */
static uint32_t *gen_switch_candidates(struct gen *g, const struct gen_args *a, size_t *n,
				       uint64_t *seed)
{
	uint32_t *v = malloc(g->n_nodes * sizeof(*v)), keep = gen_host1_switch(g);

	if (!v)
		gen_die("out of memory");
	*n = 0;
	for (uint32_t i = 0; i < g->n_nodes; i++)
		if (g->nodes[i].role != GEN_HOST && i != keep &&
		    (a->lose_hosts || !gen_has_host(g, i)))
			v[(*n)++] = i;
	gen_shuffle(v, *n, seed);
	return v;
}

/* Remove `want` random switches with their cables, each only if the
 * switches left stay connected; their indices go into removed[]. */
static size_t gen_remove_switches(struct gen *g, const struct gen_args *a, uint32_t *removed,
				  uint64_t *seed)
{
	struct gen_bfs b = {calloc(g->n_nodes, sizeof(uint32_t)),
			    malloc(g->n_nodes * sizeof(uint32_t)), 0};
	struct gen_port saved[GEN_MAX_PORTS + 1];
	size_t n, done = 0;
	uint32_t *cand = gen_switch_candidates(g, a, &n, seed), root = gen_host1_switch(g);

	if (!b.mark || !b.queue)
		gen_die("out of memory");
	for (size_t i = 0; i < n && done < a->missing_switches; i++) {
		gen_drop_switch(g, cand[i], saved);
		if (gen_switches_connected(g, &b, root))
			removed[done++] = cand[i];
		else
			gen_restore_switch(g, cand[i], saved);
	}
	free(cand);
	free(b.mark);
	free(b.queue);
	return done;
}

static void gen_missing_switches(struct gen *g, const struct gen_args *a, uint64_t *seed)
{
	uint32_t *removed = malloc(a->missing_switches * sizeof(*removed));
	size_t done;

	if (!removed)
		gen_die("out of memory");
	if (gen_host1_switch(g) == GEN_NONE)
		gen_die("internal: host1 is not cabled to a switch");
	done = gen_remove_switches(g, a, removed, seed);
	if (done < a->missing_switches)
		gen_die("only %zu of %u switches %scan be removed without disconnecting the "
			"fabric%s",
			done, a->missing_switches, a->lose_hosts ? "" : "without hosts ",
			a->lose_hosts ? "" : " (--lose-hosts also takes switches with hosts)");
	g->removed_idx = removed;
	g->n_removed = done;
}

/* ---------------------------------------------------------------- output */

static unsigned gen_digits(size_t v)
{
	unsigned d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/* A 3-D grid switch: sw-x<X>-y<Y>-z<Z>, from its group (x) and idx. */
static void gen_name_grid3(const struct gen *g, char *s, const struct gen_node *n, uint32_t max_x,
			   uint32_t max_idx)
{
	unsigned z = g->grid_z, max_y = (max_idx - 1) / z + 1;

	snprintf(s, GEN_NAME_LEN, "sw-x%0*u-y%0*u-z%0*u", (int)gen_digits(max_x), n->group,
		 (int)gen_digits(max_y), (n->idx - 1) / z + 1, (int)gen_digits(z),
		 (n->idx - 1) % z + 1);
}

/* Names: host<N>, leaf<N> / spine<N> (2 levels), pod<P>-leaf<N> /
 * pod<P>-agg<N> / core<N> (3 levels), sw<N>, sw-x<X>-y<Y>[-z<Z>]; numbers
 * are 1-based and zero-padded to the widest in their role. */
static void gen_name_all(struct gen *g)
{
	static const char *const fmt[GEN_ROLES] = {"host%0*u", "leaf%0*u", "spine%0*u", "agg%0*u",
						   "core%0*u", "sw%0*u",   "y%0*u"};
	uint32_t max_idx[GEN_ROLES] = {0}, max_group = 0;

	for (size_t i = 0; i < g->n_nodes; i++) {
		if (g->nodes[i].idx > max_idx[g->nodes[i].role])
			max_idx[g->nodes[i].role] = g->nodes[i].idx;
		if (g->nodes[i].group > max_group)
			max_group = g->nodes[i].group;
	}
	g->names = malloc(g->n_nodes * sizeof(*g->names));
	if (!g->names)
		gen_die("out of memory");
	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct gen_node *n = &g->nodes[i];
		char *s = g->names[i];
		int w = (int)gen_digits(max_idx[n->role]), off = 0;

		if (n->role == GEN_TORUS && g->grid_z) {
			gen_name_grid3(g, s, n, max_group, max_idx[GEN_TORUS]);
			continue;
		}
		if (n->role == GEN_TORUS)
			off = snprintf(s, GEN_NAME_LEN, "sw-x%0*u-", (int)gen_digits(max_group),
				       n->group);
		else if (n->group)
			off = snprintf(s, GEN_NAME_LEN, "pod%0*u-", (int)gen_digits(max_group),
				       n->group);
		snprintf(s + off, GEN_NAME_LEN - off, fmt[n->role], w, n->idx);
	}
}

struct gen_counts {
	size_t switches, cas, ca_links, sw_links, lids;
};

static struct gen_counts gen_count(struct gen *g)
{
	struct gen_counts c = {0};

	for (uint32_t i = 0; i < g->n_nodes; i++) {
		int is_sw = g->nodes[i].role != GEN_HOST;

		if (g->nodes[i].gone)
			continue;
		c.switches += is_sw;
		c.cas += !is_sw;
		for (unsigned p = 1; p <= g->nodes[i].nports; p++) {
			struct gen_port *r = gen_port_at(g, i, p);

			if (r->node == GEN_NONE)
				continue;
			if (!is_sw) {
				c.ca_links++;
				c.lids++;
			} else if (g->nodes[r->node].role != GEN_HOST) {
				c.sw_links++; /* counted from both ends */
			}
		}
	}
	c.sw_links /= 2;
	c.lids += c.switches;
	return c;
}

static void gen_print_node(FILE *out, struct gen *g, uint32_t i)
{
	const struct gen_node *n = &g->nodes[i];
	int is_sw = n->role != GEN_HOST;

	fprintf(out, "vendid=0x%x\ndevid=0x%x\n%s=0x%016" PRIx64 "\n%s\t%u \"%s\"\n", GEN_VENDOR_ID,
		is_sw ? GEN_SW_DEVICE_ID : GEN_CA_DEVICE_ID, is_sw ? "switchguid" : "caguid",
		n->guid, is_sw ? "Switch" : "Hca", n->nports, g->names[i]);
	for (unsigned p = 1; p <= n->nports; p++) {
		const struct gen_port *r = gen_port_at(g, i, p);

		if (r->node != GEN_NONE)
			fprintf(out, "[%u]\t\"%s\"[%u]\n", p, g->names[r->node], r->port);
	}
	fputc('\n', out);
}

/* "# removed switches (N, with their cables[ and H hosts]): name ..." */
static void gen_print_removed(FILE *out, struct gen *g, const struct gen_args *a)
{
	size_t hosts = 0;

	if (!g->n_removed)
		return;
	for (uint32_t i = 0; i < g->n_nodes; i++)
		hosts += g->nodes[i].role == GEN_HOST && g->nodes[i].gone;
	fprintf(out, "# removed switches (%zu, with their cables", g->n_removed);
	if (a->lose_hosts)
		fprintf(out, " and %zu hosts", hosts);
	fputs("):", out);
	for (size_t i = 0; i < g->n_removed; i++)
		fprintf(out, " %s", g->names[g->removed_idx[i]]);
	fputc('\n', out);
}

static void gen_print(FILE *out, struct gen *g, const struct gen_args *a,
		      const struct gen_counts *c)
{
	static char buf[1 << 20];

	setvbuf(out, buf, _IOFBF, sizeof(buf));
	fprintf(out,
		"# %s\n# %zu switches, %zu CAs, %zu switch-switch links, %zu LIDs needed\n"
		"# %s%s\n",
		a->cmdline, c->switches, c->cas, c->sw_links, c->lids, g->shape,
		a->missing ? "; random switch-switch cables removed" : "");
	gen_print_removed(out, g, a);
	fputc('\n', out);
	for (uint32_t i = 0; i < g->n_nodes; i++)
		if (g->nodes[i].role == GEN_HOST && !g->nodes[i].gone)
			gen_print_node(out, g, i);
	for (uint32_t i = 0; i < g->n_nodes; i++)
		if (g->nodes[i].role != GEN_HOST && !g->nodes[i].gone)
			gen_print_node(out, g, i);
	if (fflush(out) != 0 || ferror(out))
		gen_die("%s: write failed: %s", a->out ? a->out : "stdout", strerror(errno));
}

/* ---------------------------------------------------------------- command line */

static void gen_usage(FILE *to)
{
	fputs("usage: nanosm-gen SHAPE [options] [-o FILE]\n"
	      "Print a fabric in ibsim/ibnetdiscover net format (CAs first: host1 is the\n"
	      "default attach point).\n"
	      "shapes:\n"
	      "  fattree --levels 2|3 (--radix K | --cas N) [--hosts-per-leaf H] [--cas N]\n"
	      "          [--partial] [--missing-links M]\n"
	      "      every switch has K ports (4..254); a leaf has H hosts (default K/2)\n"
	      "      and K-H uplinks.  2 levels: K-H spines, one cable from every leaf\n"
	      "      to every spine, up to K leaves (default: K^2/2 hosts, 3K/2 switches).\n"
	      "      3 levels (k-ary 3-tree): up to K pods of K/2 leaves and K-H\n"
	      "      aggregation switches (one cable leaf-agg), each agg with K-K/2\n"
	      "      uplinks to its own group of cores, one cable per core per pod\n"
	      "      (default: K^3/4 hosts, 5K^2/4 switches).  --cas N: exactly N hosts,\n"
	      "      filling leaves in order and building only the leaves/pods needed\n"
	      "      (spines, cores and a built pod's aggs stay complete); without\n"
	      "      --radix, the smallest K whose full tree holds N.  --partial: drop a\n"
	      "      random quarter of the leaves (and with 3 levels a quarter of the\n"
	      "      pods), never host1's.\n"
	      "  mesh --switches S --degree D [--hosts H]\n"
	      "      random connected irregular mesh: a random spanning tree, then free\n"
	      "      ports paired at random (no self-loops, no parallel cables); up to D\n"
	      "      switch-switch cables per switch on ports H+1..H+D.\n"
	      "  mesh --x X --y Y [--z Z] [--hosts H]\n"
	      "      regular 2-D or 3-D mesh (a grid, no wrap-around), ports as a torus's;\n"
	      "      the edge switches leave the outward ports empty; sizes >= 1.\n"
	      "  torus --x X --y Y [--z Z] [--hosts H]\n"
	      "      2-D or 3-D torus: port H+1/H+2 = +x/-x, H+3/H+4 = +y/-y, H+5/H+6 =\n"
	      "      +z/-z (wrapping; sizes >= 2; a size of 2 gives two parallel cables).\n"
	      "  ring --switches S [--hosts H]\n"
	      "      switch i port H+1 -> switch i+1 port H+2, the last to the first.\n"
	      "options:\n"
	      "  --hosts H          hosts per switch for mesh/torus/ring (default 1)\n"
	      "  --missing-links M  remove M random switch-switch cables, never\n"
	      "                     disconnecting the fabric (any shape)\n"
	      "  --missing-switches N  remove N random switches with their cables, never\n"
	      "                     disconnecting the fabric (any shape, before\n"
	      "                     --missing-links); only switches without hosts (a fat\n"
	      "                     tree's spines, aggs, cores) unless --lose-hosts\n"
	      "  --lose-hosts       --missing-switches may take any switch but host1's;\n"
	      "                     the hosts of a removed switch go with it\n"
	      "  --seed S           random seed (default 1); same arguments, same file\n"
	      "  --ca-ports 1|2     ports per CA (default 1; port 2 is left uncabled)\n"
	      "  --switch-ports P   switch port count for mesh/torus/ring (default: needed)\n"
	      "  -o, --output FILE  write there instead of stdout\n"
	      "  -v, --verbose      print the counts to stderr\n",
	      to);
}

static unsigned gen_num(const char *opt, const char *s, unsigned lo, unsigned hi)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v < lo || v > hi || s[0] == '-')
		gen_die("--%s: expected a number %u..%u, got '%s'", opt, lo, hi, s);
	return (unsigned)v;
}

static void gen_save_cmdline(struct gen_args *a, int argc, char **argv)
{
	size_t off = (size_t)snprintf(a->cmdline, sizeof(a->cmdline), "nanosm-gen");

	for (int i = 1; i < argc && off < sizeof(a->cmdline); i++) {
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			i++; /* the output path is not part of the fabric */
			continue;
		}
		off += (size_t)snprintf(a->cmdline + off, sizeof(a->cmdline) - off, " %s", argv[i]);
	}
}

/* Numeric options: --NAME sets the unsigned at OFF in struct gen_args. */
struct gen_num_opt {
	const char *name;
	size_t off;
	unsigned lo, hi;
};

#define GEN_OPT(name, field, lo, hi)                                                               \
	{                                                                                          \
		name, offsetof(struct gen_args, field), lo, hi                                     \
	}
static const struct gen_num_opt gen_num_opts[] = {
    GEN_OPT("levels", levels, 2, 3),
    GEN_OPT("radix", radix, 4, GEN_MAX_PORTS),
    GEN_OPT("hosts-per-leaf", hosts_per_leaf, 1, GEN_MAX_PORTS - 1),
    GEN_OPT("cas", cas, 1, 16000000),
    GEN_OPT("missing-links", missing, 0, UINT_MAX),
    GEN_OPT("seed", seed, 0, UINT_MAX),
    GEN_OPT("ca-ports", ca_ports, 1, 2),
    GEN_OPT("switch-ports", switch_ports, 1, GEN_MAX_PORTS),
    GEN_OPT("switches", switches, 1, 65535),
    GEN_OPT("degree", degree, 1, GEN_MAX_PORTS),
    GEN_OPT("hosts", hosts, 0, GEN_MAX_PORTS),
    GEN_OPT("x", x, 1, 4095),
    GEN_OPT("y", y, 1, 65535),
    GEN_OPT("z", z, 1, 65535),
    GEN_OPT("missing-switches", missing_switches, 0, 1000000),
};
#define GEN_N_NUM_OPTS (sizeof(gen_num_opts) / sizeof(gen_num_opts[0]))
#define GEN_OPT_NUM_BASE 256 /* getopt value of gen_num_opts[i] = base + i */

/* getopt_long's table: the numeric options, then the others. */
static void gen_long_opts(struct option *o)
{
	static const struct option rest[] = {{"partial", 0, 0, 'P'}, {"lose-hosts", 0, 0, 'L'},
					     {"output", 1, 0, 'o'},  {"verbose", 0, 0, 'v'},
					     {"help", 0, 0, 'h'},    {0, 0, 0, 0}};

	for (size_t i = 0; i < GEN_N_NUM_OPTS; i++)
		o[i] = (struct option){gen_num_opts[i].name, 1, 0, GEN_OPT_NUM_BASE + (int)i};
	memcpy(&o[GEN_N_NUM_OPTS], rest, sizeof(rest));
}

static void gen_option(struct gen_args *a, int c, const char *val)
{
	if (c >= GEN_OPT_NUM_BASE && c < GEN_OPT_NUM_BASE + (int)GEN_N_NUM_OPTS) {
		const struct gen_num_opt *o = &gen_num_opts[c - GEN_OPT_NUM_BASE];

		*(unsigned *)((char *)a + o->off) = gen_num(o->name, val, o->lo, o->hi);
		return;
	}
	switch (c) {
	case 'P':
		a->partial = 1;
		break;
	case 'L':
		a->lose_hosts = 1;
		break;
	case 'o':
		a->out = val;
		break;
	case 'v':
		a->verbose = 1;
		break;
	case 'h':
		gen_usage(stdout);
		exit(0);
	default:
		gen_usage(stderr);
		exit(2);
	}
}

static void gen_parse(struct gen_args *a, int argc, char **argv)
{
	struct option opts[GEN_N_NUM_OPTS + 6];
	int c;

	*a = (struct gen_args){.levels = 2, .ca_ports = 1, .hosts = 1, .seed = 1};
	gen_save_cmdline(a, argc, argv);
	if (argc < 2 || argv[1][0] == '-') {
		int help = argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"));

		gen_usage(help ? stdout : stderr);
		exit(help ? 0 : 2);
	}
	a->shape = argv[1];
	gen_long_opts(opts);
	optind = 2;
	while ((c = getopt_long(argc, argv, "o:vh", opts, NULL)) != -1)
		gen_option(a, c, optarg);
	if (optind != argc)
		gen_die("unexpected argument '%s'", argv[optind]);
}

static void gen_build(struct gen *g, const struct gen_args *a, uint64_t *seed)
{
	if (!strcmp(a->shape, "fattree"))
		gen_fattree(g, a, seed);
	else if (!strcmp(a->shape, "mesh"))
		gen_mesh(g, a, seed);
	else if (!strcmp(a->shape, "torus"))
		gen_grid(g, a, 1);
	else if (!strcmp(a->shape, "ring"))
		gen_ring(g, a);
	else
		gen_die("unknown shape '%s' (fattree, mesh, torus, ring)", a->shape);
	if (g->n_hosts == 0)
		gen_die("%s: this fabric has no host (use --hosts 1 or more)", a->shape);
	if (a->missing_switches)
		gen_missing_switches(g, a, seed);
	else if (a->lose_hosts)
		gen_die("--lose-hosts goes with --missing-switches");
	if (a->missing)
		gen_remove_links(g, a->missing, seed);
}

int main(int argc, char **argv)
{
	struct gen_args a;
	struct gen g = {0};
	struct gen_counts c;
	uint64_t seed;
	FILE *out = stdout;

	gen_parse(&a, argc, argv);
	seed = a.seed;
	gen_build(&g, &a, &seed);
	gen_name_all(&g);
	c = gen_count(&g);
	if (c.lids > GEN_LID_SPACE)
		fprintf(stderr,
			"nanosm-gen: warning: this fabric needs %zu LIDs, more than the %d "
			"unicast LIDs an SM can assign\n",
			c.lids, GEN_LID_SPACE);
	if (a.verbose)
		fprintf(stderr,
			"nanosm-gen: %zu switches, %zu CAs, %zu switch-switch links, %zu LIDs\n"
			"nanosm-gen: %s\n",
			c.switches, c.cas, c.sw_links, c.lids, g.shape);
	if (a.out && !(out = fopen(a.out, "w")))
		gen_die("%s: %s", a.out, strerror(errno));
	gen_print(out, &g, &a, &c);
	if (out != stdout && fclose(out) != 0)
		gen_die("%s: %s", a.out, strerror(errno));
	free(g.nodes);
	free(g.ports);
	free(g.names);
	free(g.removed_idx);
	return 0;
}
