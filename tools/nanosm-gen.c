/*
 * nanosm-gen.c - print synthetic fabrics (fat trees, meshes, tori, rings) in
 * ibsim / ibnetdiscover "net" format for tests and benchmarks.
 * A standalone tool: it uses no SM or routing module and writes only to its
 * output file; everything it makes is a pure function of its arguments.
 * This file owns the command line and the order of the steps; the fabric
 * and its primitives are tools/gen/gen.c's, the shapes gen_fattree.c's and
 * gen_mesh.c's, the cuts gen_cut.c's, names and output gen_print.c's.
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
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/gen/gen.h"

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
		gen_mesh_grid(g, a, 1);
	else if (!strcmp(a->shape, "ring"))
		gen_mesh_ring(g, a);
	else
		gen_die("unknown shape '%s' (fattree, mesh, torus, ring)", a->shape);
	if (g->n_hosts == 0)
		gen_die("%s: this fabric has no host (use --hosts 1 or more)", a->shape);
	if (a->missing_switches)
		gen_cut_switches(g, a, seed);
	else if (a->lose_hosts)
		gen_die("--lose-hosts goes with --missing-switches");
	if (a->missing)
		gen_cut_links(g, a->missing, seed);
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
	gen_print_names(&g);
	c = gen_print_counts(&g);
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
