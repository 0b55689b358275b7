/*
 * route_test.h - helpers shared by the routing unit tests (test_minhop.c,
 * test_updn.c, test_ftree.c, test_check.c): build or parse a fabric, number
 * its LIDs, find nodes, read and judge LFTs.  Test code only; the engines
 * never see it.
 */
#ifndef NANOSM_TESTS_UNIT_ROUTE_TEST_H
#define NANOSM_TESTS_UNIT_ROUTE_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "routing/fabric.h"
#include "routing/route.h"

/* Options for route_test_assign_lids. */
enum {
	ROUTE_TEST_SWITCH_GUID = 1 << 0, /* give each switch port 0 the node GUID */
	ROUTE_TEST_MARK_PRESENT = 1 << 1 /* set a CA port present iff it is cabled */
};

/* Add a switch with GUID 0x0002000000000000 + (its index + 1); returns its index. */
int route_test_add_sw(struct fabric *f, unsigned ports);
/* Add a CA with GUID 0x0001000000000000 + (index + 1) * 0x10, port p GUID + p. */
int route_test_add_ca(struct fabric *f, unsigned ports);
/* Add a one-port host cabled to switch sw port p; returns its index. */
int route_test_add_host(struct fabric *f, int sw, unsigned p);
/* LIDs in node order (switch port 0, then each cabled CA port); returns the highest. */
uint16_t route_test_assign_lids(struct fabric *f, unsigned flags);
/* fabric_init f and parse a topology text into it (fails the test fatally on error). */
void route_test_parse(const char *text, struct fabric *f);
/* The node whose description is desc, or -1. */
int route_test_find_node(const struct fabric *f, const char *desc);
/* The node whose description is desc; fails the test fatally when there is none. */
int route_test_node(const struct fabric *f, const char *desc);
/* Run eng on f (lft_set_init(out) first) and fill note (NULL: not
 * wanted); says on stderr why when it fails. */
int route_test_run(const struct route_engine *eng, const struct fabric *f, uint16_t max_lid,
		   const uint64_t *roots, size_t n_roots, struct lft_set *out,
		   struct route_note *note);
/* The port switch sw sends lid out of (LFT_DROP past the top); asserts sw has a table. */
uint8_t route_test_out_port(const struct lft_set *s, int sw, uint16_t lid);
/* Follow dlid from switch sw for at most max_hops switches; when path and
 * out are given, path[i] is the i-th switch passed and out[i] its port.
 * Returns the switch hops to the port owning dlid, or -1 when the route
 * is dropped, lost or longer. */
int route_test_follow(const struct fabric *f, const struct lft_set *s, int sw, uint16_t dlid,
		      int max_hops, int *path, uint8_t *out);
/* How many LIDs switch sw sends out of port p. */
unsigned route_test_lids_on_port(const struct lft_set *s, int sw, uint8_t p);
/* max - min of the LID counts on ports first..last of sw. */
unsigned route_test_spread(const struct lft_set *s, int sw, uint8_t first, uint8_t last);
/* max - min over ports first..last of the CA LIDs each carries; checked: read
 * through route_test_out_port (one assert per lookup) rather than the table. */
unsigned route_test_host_spread(const struct fabric *f, const struct lft_set *s, int sw,
				uint8_t first, uint8_t last, int checked);
/* Switch-hop distances n x n over switch cables (Floyd-Warshall), no_path
 * when none; the caller frees. */
int *route_test_switch_distances(const struct fabric *f, int no_path);
/* The switch a LID-owning port hangs off (itself for a switch), or FABRIC_NONE. */
int route_test_attach_switch(const struct fabric *f, int node, unsigned port);
/* A w x h 2D torus (wrap-around both ways), one host per switch on port
 * 1; switch (x, y) ports 2/3 go to x+1/x-1, ports 4/5 to y+1/y-1. */
void route_test_torus(struct fabric *f, int w, int h);
/* n <= 512 switches (16 ports): a random spanning tree plus extra random cables
 * (seeded), a host on every other switch (port 1; cables on 4..16). */
void route_test_mesh(struct fabric *f, int n, int extra, uint32_t seed);
/* The next number of a small linear congruential generator. */
uint32_t route_test_lcg(uint32_t *state);

#endif
