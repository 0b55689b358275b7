/*
 * ftree_test.h - the rig the ftree engine's unit tests share
 * (ftree_test.c): a fat-tree generator, a routed fabric under test, and
 * the judges of its routes.  Test code only.  A failed step of the rig
 * fails the running CUnit test fatally; the judges return what they found.
 */
#ifndef NANOSM_TESTS_UNIT_FTREE_TEST_H
#define NANOSM_TESTS_UNIT_FTREE_TEST_H

#include <CUnit/CUnit.h>
#include <stddef.h>
#include <stdint.h>

#include "routing/fabric.h"
#include "routing/route.h"

#define FTREE_TEST_GEN_MAX_NODES 512
#define FTREE_TEST_GEN_MAX_PORTS 64
#define FTREE_TEST_HOST_GUID UINT64_C(0x0002c90300001000)
#define FTREE_TEST_LEAF_GUID UINT64_C(0x0002c90300a00000)
#define FTREE_TEST_MID_GUID UINT64_C(0x0002c90300b00000)
#define FTREE_TEST_SPINE_GUID UINT64_C(0x0002c90300c00000)

/* What to build.  Two levels: `leaves` leaves, `spines` spines, `links`
 * cables per leaf-spine pair; leaf ports: hosts, then spine 1's cables, ...
 * Three levels: `pods` pods of m leaves and m middle switches ("mid"), and
 * m * m spines; leaf i's port hosts+j goes to its pod's mid j, whose port
 * m+t goes to spine j*m+t, whose port p is pod p.  Full bisection when
 * hosts == spines * links (2 levels) or hosts == m (3 levels). */
struct ftree_test_spec {
	int levels;
	int leaves, spines, links;
	int pods, m;
	int hosts;	     /* host ports per leaf */
	int pod_leaves[8];   /* > 0: only that many leaves in pod p */
	int leaf_hosts[64];  /* > 0: that many hosts on leaf i; < 0: none */
	const char *cut[32]; /* "leaf2/6": cables left out, named by one end */
	const char *gone[4]; /* switches left out */
};

/* One node of the generator's fabric. */
struct ftree_test_gen_node {
	char name[16];
	int is_switch;
	unsigned nports;
	uint64_t guid;
	int peer[FTREE_TEST_GEN_MAX_PORTS + 1]; /* node index, -1 when unlinked */
	unsigned pport[FTREE_TEST_GEN_MAX_PORTS + 1];
	int gone;
};

struct ftree_test_gen {
	struct ftree_test_gen_node node[FTREE_TEST_GEN_MAX_NODES];
	int n;
};

/* A fabric under test, routed by ftree, with what the judges need. */
struct ftree_test {
	struct fabric f;
	struct lft_set lft;
	struct route_note note;
	char err[256];
	uint16_t max_lid;
	int *level;  /* per node: -1 CA, 0 leaf, 1 mid, top: spine (by name) */
	int *has_ca; /* per node: a switch with a CA cabled */
	int *ca;     /* CAs in leaf order, then leaf-port order */
	size_t n_cas;
	int *gd, *ud; /* switch hops between nodes: any path / up then down */
};

/* The generator: topology text for topo_parse. */
void ftree_test_gen_link(struct ftree_test_gen *g, int a, unsigned pa, int b, unsigned pb);
/* The node called name (fails the test fatally when there is none). */
int ftree_test_gen_find(const struct ftree_test_gen *g, const char *name);
void ftree_test_gen_two_level(struct ftree_test_gen *g, const struct ftree_test_spec *sp);
/* The topology text (malloc'd, *len bytes). */
char *ftree_test_gen_text(const struct ftree_test_gen *g, size_t *len);

/* A fabric under test: parsed from text (0 or the parser's error), or
 * built from sp (fatal on error); freed with ftree_test_free. */
int ftree_test_parse(struct ftree_test *t, const char *text, size_t len);
void ftree_test_build(struct ftree_test *t, const struct ftree_test_spec *sp);
/* Levels, CAs and hop tables of t->f again, after the test changed it. */
void ftree_test_index(struct ftree_test *t);
void ftree_test_free(struct ftree_test *t);
/* Run ftree on t (given roots, or none) into t->lft and t->note; its return. */
int ftree_test_route_with(struct ftree_test *t, const uint64_t *roots, size_t n_roots);
int ftree_test_route(struct ftree_test *t);

/* The judges.  Bad routes in s (updown: 0 shortest, 1 up then down where
 * one is left, 2 both); the worst shift all-to-all link load in s (to
 * LIDs + offset); the gate's verdict on t->lft; minhop's worst shift load;
 * ftree's shift load asserted 1 and no worse than minhop's; the note holds
 * want (else says so on stderr). */
int ftree_test_check_routes(const struct ftree_test *t, const struct lft_set *s, int updown);
unsigned ftree_test_shift_load_to(const struct ftree_test *t, const struct lft_set *s,
				  unsigned offset);
unsigned ftree_test_shift_load(const struct ftree_test *t, const struct lft_set *s);
int ftree_test_gate_ok(const struct ftree_test *t);
unsigned ftree_test_minhop_shift_load(struct ftree_test *t);
void ftree_test_compare_shift(struct ftree_test *t, const char *what);
int ftree_test_note_has(const struct ftree_test *t, const char *want);

/* test_ftree_degraded.c: its tests, added to the ftree suite s. */
void test_ftree_degraded_add(CU_pSuite s);

#endif
