/*
 * tools/gen/gen.h - nanosm-gen's fabric in memory, shared by the files of
 * tools/gen/ and tools/nanosm-gen.c: nodes with a port array, links stored
 * on both ends, the command line's arguments, and the primitives that grow
 * the fabric (gen.c).  Internal to nanosm-gen; nothing else includes it.
 *
 * DOC: every function here and in the shape files dies (gen_die: a message
 * on stderr, exit status 2) on a request it cannot meet or out of memory,
 * as a standalone generator may; the fabric is a pure function of the
 * arguments and the seed.
 */
#ifndef NANOSM_TOOLS_GEN_GEN_H
#define NANOSM_TOOLS_GEN_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* What gen_print_counts finds in the fabric left. */
struct gen_counts {
	size_t switches, cas, ca_links, sw_links, lids;
};

/* gen.c: dying, memory, the PRNG and the graph */
void gen_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* p grown (realloc) to hold need elements of elem bytes; *cap updated. */
void *gen_grow(void *p, size_t *cap, size_t need, size_t elem);
/* splitmix64: a small deterministic PRNG, the same on every platform. */
uint64_t gen_rand(uint64_t *state);
uint32_t gen_rand_below(uint64_t *state, uint32_t n);
void gen_shuffle(uint32_t *v, size_t n, uint64_t *state);
struct gen_port *gen_port_at(struct gen *g, uint32_t node, unsigned port);
/* A node with ports 1..nports, none cabled; returns its index. */
uint32_t gen_add_node(struct gen *g, enum gen_role role, unsigned nports, uint32_t group,
		      uint32_t idx);
void gen_link(struct gen *g, uint32_t a, unsigned pa, uint32_t b, unsigned pb);
void gen_unlink(struct gen *g, uint32_t a, unsigned pa);
/* The first free port in [lo, hi] of a node, or 0. */
unsigned gen_free_port(struct gen *g, uint32_t node, unsigned lo, unsigned hi);
/* A host with ca_ports ports, port 1 cabled to sw/port. */
void gen_add_host(struct gen *g, unsigned ca_ports, uint32_t sw, unsigned port);

/* gen_fattree.c: a 2- or 3-level fat tree (--levels, --radix, --cas,
 * --hosts-per-leaf, --partial). */
void gen_fattree(struct gen *g, const struct gen_args *a, uint64_t *seed);

/* gen_mesh.c: a random mesh or a regular one (--x/--y[/--z]), a torus
 * (wrap) and a ring. */
void gen_mesh(struct gen *g, const struct gen_args *a, uint64_t *seed);
void gen_mesh_grid(struct gen *g, const struct gen_args *a, int wrap);
void gen_mesh_ring(struct gen *g, const struct gen_args *a);

/* gen_cut.c: --missing-switches (their indices into g->removed_idx) and
 * --missing-links, never disconnecting the fabric. */
void gen_cut_switches(struct gen *g, const struct gen_args *a, uint64_t *seed);
void gen_cut_links(struct gen *g, unsigned want, uint64_t *seed);

/* gen_print.c: names (into g->names), counts and the net-format file. */
void gen_print_names(struct gen *g);
struct gen_counts gen_print_counts(struct gen *g);
void gen_print(FILE *out, struct gen *g, const struct gen_args *a, const struct gen_counts *c);

#endif
