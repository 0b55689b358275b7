/*
 * tools/gen/gen_fattree.c - nanosm-gen's fat trees: 2 levels (leaves and
 * spines) and 3 levels (pods of leaves and aggregation switches under
 * cores), sized by --radix or --cas, thinned by --partial.  Builds through
 * gen.c's primitives; cuts nothing else and prints nothing.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tools/gen/gen.h"

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

void gen_fattree(struct gen *g, const struct gen_args *a, uint64_t *seed)
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
