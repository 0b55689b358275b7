/*
 * test_fabric.c - unit tests for routing/fabric.c: nodes, the GUID index,
 * links, deep copy, counts and LFT sets.  Builds fabrics in memory only.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/fabric.h"
#include "tests/unit/unit.h"

static void test_fabric_init_empty(void)
{
	struct fabric f;

	fabric_init(&f);
	CU_ASSERT_EQUAL(f.n_nodes, 0);
	CU_ASSERT_EQUAL(f.sm_node, FABRIC_NONE);
	CU_ASSERT_EQUAL(fabric_find(&f, 1), FABRIC_NONE);
	CU_ASSERT_EQUAL(fabric_count_switches(&f), 0);
	CU_ASSERT_EQUAL(fabric_count_cas(&f), 0);
	fabric_fini(&f);
	fabric_fini(&f); /* fini twice is harmless */
	CU_ASSERT_PTR_NULL(f.nodes);
}

static void test_fabric_add_node(void)
{
	struct fabric f;
	int sw, ca;

	fabric_init(&f);
	sw = fabric_add_node(&f, 0x200, 2, 8);
	ca = fabric_add_node(&f, 0x100, 1, 2);
	CU_ASSERT_EQUAL(sw, 0);
	CU_ASSERT_EQUAL(ca, 1);
	CU_ASSERT_EQUAL(f.nodes[sw].num_ports, 8);
	CU_ASSERT_TRUE(fabric_is_switch(&f.nodes[sw]));
	CU_ASSERT_FALSE(fabric_is_switch(&f.nodes[ca]));
	for (unsigned p = 0; p <= 8; p++) {
		CU_ASSERT_EQUAL(f.nodes[sw].ports[p].num, p);
		CU_ASSERT_EQUAL(f.nodes[sw].ports[p].remote_node, FABRIC_NONE);
		CU_ASSERT_EQUAL(f.nodes[sw].ports[p].lid, 0);
	}
	CU_ASSERT_EQUAL(fabric_find(&f, 0x200), sw);
	CU_ASSERT_EQUAL(fabric_find(&f, 0x100), ca);
	CU_ASSERT_EQUAL(fabric_find(&f, 0x300), FABRIC_NONE);
	fabric_fini(&f);
}

static void test_fabric_add_node_errors(void)
{
	struct fabric f;

	fabric_init(&f);
	CU_ASSERT_EQUAL(fabric_add_node(&f, 0x1, 1, 1), 0);
	CU_ASSERT_EQUAL(fabric_add_node(&f, 0x1, 2, 8), -EEXIST);
	CU_ASSERT_EQUAL(fabric_add_node(&f, 0x2, 2, 0), -EINVAL);
	CU_ASSERT_EQUAL(fabric_add_node(&f, 0x3, 2, 255), -EINVAL);
	CU_ASSERT_EQUAL(fabric_add_node(&f, 0x4, 2, FABRIC_MAX_PORTS), 1);
	CU_ASSERT_EQUAL(f.n_nodes, 2);
	fabric_fini(&f);
}

/* Enough nodes to grow both the node array and the index several times. */
static void test_fabric_index_growth(void)
{
	struct fabric f;
	int ok = 1;

	fabric_init(&f);
	for (uint64_t i = 0; i < 5000; i++)
		ok &= fabric_add_node(&f, 0x0002c90300000000ULL + i * 0x10, 1, 1) == (int)i;
	CU_ASSERT_TRUE(ok);
	for (uint64_t i = 0; i < 5000; i++)
		ok &= fabric_find(&f, 0x0002c90300000000ULL + i * 0x10) == (int)i;
	CU_ASSERT_TRUE(ok);
	CU_ASSERT_EQUAL(fabric_find(&f, 0x0002c90300000001ULL), FABRIC_NONE);
	CU_ASSERT_EQUAL(fabric_count_cas(&f), 0); /* no port is present yet */
	fabric_fini(&f);
}

static void test_fabric_link(void)
{
	struct fabric f;
	int a, b, c;

	fabric_init(&f);
	a = fabric_add_node(&f, 0xa, 2, 8);
	b = fabric_add_node(&f, 0xb, 2, 8);
	c = fabric_add_node(&f, 0xc, 1, 2);
	CU_ASSERT_EQUAL(fabric_link(&f, a, 3, b, 5), 0);
	CU_ASSERT_EQUAL(f.nodes[a].ports[3].remote_node, b);
	CU_ASSERT_EQUAL(f.nodes[a].ports[3].remote_port, 5);
	CU_ASSERT_EQUAL(f.nodes[b].ports[5].remote_node, a);
	CU_ASSERT_EQUAL(f.nodes[b].ports[5].remote_port, 3);
	/* re-cabling a:3 to c:1 cuts the old link on b:5 */
	CU_ASSERT_EQUAL(fabric_link(&f, c, 1, a, 3), 0);
	CU_ASSERT_EQUAL(f.nodes[a].ports[3].remote_node, c);
	CU_ASSERT_EQUAL(f.nodes[b].ports[5].remote_node, FABRIC_NONE);
	/* a loopback cable between two ports of one switch is allowed */
	CU_ASSERT_EQUAL(fabric_link(&f, a, 1, a, 2), 0);
	CU_ASSERT_EQUAL(f.nodes[a].ports[2].remote_node, a);
	fabric_fini(&f);
}

static void test_fabric_link_errors(void)
{
	struct fabric f;
	int a, b;

	fabric_init(&f);
	a = fabric_add_node(&f, 0xa, 2, 8);
	b = fabric_add_node(&f, 0xb, 1, 2);
	CU_ASSERT_EQUAL(fabric_link(&f, a, 0, b, 1), -EINVAL); /* port 0 has no cable */
	CU_ASSERT_EQUAL(fabric_link(&f, a, 9, b, 1), -EINVAL);
	CU_ASSERT_EQUAL(fabric_link(&f, a, 1, b, 3), -EINVAL);
	CU_ASSERT_EQUAL(fabric_link(&f, a, 1, 7, 1), -EINVAL);
	CU_ASSERT_EQUAL(fabric_link(&f, -1, 1, b, 1), -EINVAL);
	CU_ASSERT_EQUAL(fabric_link(&f, a, 4, a, 4), -EINVAL);
	CU_ASSERT_EQUAL(f.nodes[a].ports[1].remote_node, FABRIC_NONE);
	fabric_fini(&f);
}

static void test_fabric_counts(void)
{
	struct fabric f;
	int sw, ca, rt;

	fabric_init(&f);
	sw = fabric_add_node(&f, 0x1, 2, 4);
	ca = fabric_add_node(&f, 0x2, 1, 2);
	rt = fabric_add_node(&f, 0x3, 3, 1);
	fabric_add_node(&f, 0x4, 2, 4);
	f.nodes[sw].ports[0].present = 1;
	f.nodes[ca].ports[1].present = 1;
	f.nodes[ca].ports[2].present = 1;
	f.nodes[rt].ports[1].present = 1;
	CU_ASSERT_EQUAL(fabric_count_switches(&f), 2);
	CU_ASSERT_EQUAL(fabric_count_cas(&f), 3);
	fabric_fini(&f);
}

static void test_fabric_min_data_vls(void)
{
	struct fabric f;
	int sw, a, b, node;
	unsigned port;

	fabric_init(&f);
	CU_ASSERT_EQUAL(fabric_min_data_vls(&f, &node, &port), FABRIC_VLS_UNKNOWN);
	CU_ASSERT_EQUAL(node, FABRIC_NONE);
	CU_ASSERT_EQUAL(port, 0);
	sw = fabric_add_node(&f, 0x1, 2, 4);
	a = fabric_add_node(&f, 0x2, 1, 1);
	b = fabric_add_node(&f, 0x3, 1, 1);
	/* not known (0) counts as 8; an uncabled port does not count */
	f.nodes[sw].ports[4].vl_cap = 1;
	fabric_link(&f, sw, 1, a, 1);
	CU_ASSERT_EQUAL(fabric_min_data_vls(&f, NULL, NULL), 8);
	/* VLCap 3 = VL0-3 on the switch end of the cable */
	f.nodes[sw].ports[1].vl_cap = 3;
	CU_ASSERT_EQUAL(fabric_min_data_vls(&f, &node, &port), 4);
	CU_ASSERT_EQUAL(node, sw);
	CU_ASSERT_EQUAL(port, 1);
	/* VLCap 1 = VL0 only, on a CA port: the fewest, named */
	fabric_link(&f, sw, 2, b, 1);
	f.nodes[b].ports[1].vl_cap = 1;
	CU_ASSERT_EQUAL(fabric_min_data_vls(&f, &node, &port), 1);
	CU_ASSERT_EQUAL(node, b);
	CU_ASSERT_EQUAL(port, 1);
	fabric_fini(&f);
}

static void test_fabric_copy(void)
{
	struct fabric f, g;
	int a, b;

	fabric_init(&f);
	a = fabric_add_node(&f, 0xa, 2, 8);
	b = fabric_add_node(&f, 0xb, 1, 2);
	fabric_link(&f, a, 1, b, 1);
	strcpy(f.nodes[b].desc, "host1");
	f.nodes[b].ports[1].lid = 7;
	f.sm_node = b;
	f.sm_port = 1;
	CU_ASSERT_EQUAL(fabric_copy(&g, &f), 0);
	CU_ASSERT_EQUAL(g.n_nodes, 2);
	CU_ASSERT_EQUAL(g.sm_node, b);
	CU_ASSERT_EQUAL(g.sm_port, 1);
	CU_ASSERT_EQUAL(fabric_find(&g, 0xb), b);
	CU_ASSERT_STRING_EQUAL(g.nodes[b].desc, "host1");
	CU_ASSERT_EQUAL(g.nodes[b].ports[1].lid, 7);
	CU_ASSERT_EQUAL(g.nodes[a].ports[1].remote_node, b);
	CU_ASSERT_PTR_NOT_EQUAL(g.nodes[a].ports, f.nodes[a].ports);
	/* the copy is independent of the original */
	g.nodes[b].ports[1].lid = 9;
	CU_ASSERT_EQUAL(fabric_add_node(&g, 0xc, 1, 1), 2);
	CU_ASSERT_EQUAL(f.nodes[b].ports[1].lid, 7);
	CU_ASSERT_EQUAL(f.n_nodes, 2);
	CU_ASSERT_EQUAL(fabric_find(&f, 0xc), FABRIC_NONE);
	fabric_fini(&g);
	fabric_fini(&f);
}

static void test_fabric_copy_empty(void)
{
	struct fabric f, g;

	fabric_init(&f);
	CU_ASSERT_EQUAL(fabric_copy(&g, &f), 0);
	CU_ASSERT_EQUAL(g.n_nodes, 0);
	CU_ASSERT_EQUAL(fabric_find(&g, 1), FABRIC_NONE);
	CU_ASSERT_EQUAL(fabric_add_node(&g, 1, 1, 1), 0);
	fabric_fini(&g);
	fabric_fini(&f);
}

/* Tables read from switches: sized by the highest LinearFDBTop, a block
 * answered put in place, entries above the table's top left out. */
static void test_lft_put_block(void)
{
	struct fabric f;
	struct lft_set s;
	struct lft *t;
	uint8_t ports[64];
	int sw1, sw2;

	fabric_init(&f);
	CU_ASSERT_EQUAL(fabric_max_lft_top(&f), 0);
	fabric_add_node(&f, 0x1, 1, 1);
	sw1 = fabric_add_node(&f, 0x2, 2, 8);
	sw2 = fabric_add_node(&f, 0x4, 2, 8);
	f.nodes[sw1].lft_top = 70;
	f.nodes[sw2].lft_top = 100;
	CU_ASSERT_EQUAL(fabric_max_lft_top(&f), 100);
	f.nodes[sw2].lft_top = 0xffff; /* multicast range: not unicast */
	CU_ASSERT_EQUAL(fabric_max_lft_top(&f), LID_UNICAST_MAX);
	lft_set_init(&s);
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc(&s, &f, 100), 0);
	t = lft_set_find(&s, sw1);
	t->top = 70;
	for (unsigned i = 0; i < 64; i++)
		ports[i] = (uint8_t)(i % 8 + 1);
	lft_put_block(t, 1, ports); /* LIDs 64..127: 64..70 kept */
	CU_ASSERT_EQUAL(t->port[63], LFT_DROP);
	CU_ASSERT_EQUAL(t->port[64], 1);
	CU_ASSERT_EQUAL(t->port[70], 7);
	CU_ASSERT_EQUAL(t->port[71], LFT_DROP); /* above top: not written */
	lft_put_block(t, 0, ports);
	CU_ASSERT_EQUAL(t->port[0], 1);
	CU_ASSERT_EQUAL(t->port[63], 8);
	lft_set_fini(&s);
	fabric_fini(&f);
}

static void test_lft_set_alloc(void)
{
	struct fabric f;
	struct lft_set s;
	int sw1, sw2;
	int all_drop = 1;

	fabric_init(&f);
	fabric_add_node(&f, 0x1, 1, 1);
	sw1 = fabric_add_node(&f, 0x2, 2, 8);
	fabric_add_node(&f, 0x3, 1, 1);
	sw2 = fabric_add_node(&f, 0x4, 2, 36);
	lft_set_init(&s);
	CU_ASSERT_EQUAL(lft_set_alloc(&s, &f, 100), 0);
	CU_ASSERT_EQUAL(s.n, 2);
	CU_ASSERT_EQUAL(s.tables[0].node, sw1);
	CU_ASSERT_EQUAL(s.tables[1].node, sw2);
	for (size_t t = 0; t < s.n; t++) {
		CU_ASSERT_EQUAL(s.tables[t].top, 100);
		for (unsigned lid = 0; lid <= 100; lid++)
			all_drop &= s.tables[t].port[lid] == LFT_DROP;
	}
	CU_ASSERT_TRUE(all_drop);
	CU_ASSERT_PTR_EQUAL(lft_set_find(&s, sw2), &s.tables[1]);
	CU_ASSERT_PTR_EQUAL(lft_set_find_const(&s, sw1), &s.tables[0]);
	CU_ASSERT_PTR_NULL(lft_set_find(&s, 0)); /* a CA has no table */
	CU_ASSERT_PTR_NULL(lft_set_find(&s, 42));
	/* allocating again replaces the tables */
	CU_ASSERT_EQUAL(lft_set_alloc(&s, &f, LID_UNICAST_MAX), 0);
	CU_ASSERT_EQUAL(s.n, 2);
	CU_ASSERT_EQUAL(s.tables[1].top, LID_UNICAST_MAX);
	CU_ASSERT_EQUAL(s.tables[1].port[LID_UNICAST_MAX], LFT_DROP);
	CU_ASSERT_EQUAL(lft_set_alloc(&s, &f, LID_UNICAST_MAX + 1), -EINVAL);
	lft_set_fini(&s);
	lft_set_fini(&s);
	CU_ASSERT_EQUAL(s.n, 0);
	fabric_fini(&f);
}

static void test_lft_set_no_switches(void)
{
	struct fabric f;
	struct lft_set s;

	fabric_init(&f);
	fabric_add_node(&f, 0x1, 1, 1);
	lft_set_init(&s);
	CU_ASSERT_EQUAL(lft_set_alloc(&s, &f, 10), 0);
	CU_ASSERT_EQUAL(s.n, 0);
	CU_ASSERT_PTR_NULL(lft_set_find(&s, 0));
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* The SLs of the paths: none until allocated (every path SL 0), then one
 * byte per DLID, all SL 0, freed with the set. */
static void test_lft_set_sl(void)
{
	struct lft_set s;

	lft_set_init(&s);
	CU_ASSERT_PTR_NULL(s.sl);
	CU_ASSERT_EQUAL(s.n_vls, 1);
	CU_ASSERT_EQUAL(lft_set_sl(&s, 5), 0);
	CU_ASSERT_EQUAL(lft_set_alloc_sl(&s, 10), 0);
	CU_ASSERT_PTR_NOT_NULL(s.sl);
	CU_ASSERT_EQUAL(s.sl_top, 10);
	s.sl[7] = 3;
	s.n_vls = 4;
	CU_ASSERT_EQUAL(lft_set_sl(&s, 7), 3);
	CU_ASSERT_EQUAL(lft_set_sl(&s, 10), 0);
	CU_ASSERT_EQUAL(lft_set_sl(&s, 11), 0); /* past the table */
	lft_set_fini(&s);
	CU_ASSERT_PTR_NULL(s.sl);
	CU_ASSERT_EQUAL(s.n_vls, 1);
}

/* The VLs an SL per path takes: 1 with no path_sl (whatever sl holds),
 * then 1 + the highest entry of any switch's row, entries from `below` up
 * left out; the row one source reads. */
static void test_lft_set_path_vls(void)
{
	struct fabric f;
	struct lft_set s;
	int sw1, sw2;

	fabric_init(&f);
	sw1 = fabric_add_node(&f, 0x2, 2, 8);
	fabric_add_node(&f, 0x3, 1, 1);
	sw2 = fabric_add_node(&f, 0x4, 2, 8);
	lft_set_init(&s);
	CU_ASSERT_EQUAL(lft_set_path_vls(&s, 15), 1);
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc(&s, &f, 10), 0);
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc_sl(&s, 10), 0);
	s.sl[4] = 5;
	CU_ASSERT_EQUAL(lft_set_path_vls(&s, 15), 1);  /* sl is not a path's SL here */
	CU_ASSERT_EQUAL(lft_set_sl_row(&s, sw2), s.n); /* no path_sl: sl's row */
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc_path_sl(&s), 0);
	CU_ASSERT_EQUAL(lft_set_path_vls(&s, 15), 6); /* each row a copy of sl */
	s.path_sl[0 * 11 + 4] = 0;
	s.path_sl[1 * 11 + 4] = 2;
	CU_ASSERT_EQUAL(lft_set_path_vls(&s, 15), 3);
	s.path_sl[1 * 11 + 10] = 7; /* the last entry of the last row */
	CU_ASSERT_EQUAL(lft_set_path_vls(&s, 15), 8);
	CU_ASSERT_EQUAL(lft_set_path_vls(&s, 7), 3);
	s.path_sl[0] = 15;
	CU_ASSERT_EQUAL(lft_set_path_vls(&s, 15), 8);
	CU_ASSERT_EQUAL(lft_set_path_vls(&s, 256), 16);
	CU_ASSERT_EQUAL(lft_set_sl_row(&s, sw1), 0);
	CU_ASSERT_EQUAL(lft_set_sl_row(&s, sw2), 1);
	CU_ASSERT_EQUAL(lft_set_sl_row(&s, FABRIC_NONE), s.n);
	CU_ASSERT_EQUAL(lft_set_sl_at(&s, lft_set_sl_row(&s, sw2), 10), 7);
	CU_ASSERT_EQUAL(lft_set_sl_at(&s, lft_set_sl_row(&s, FABRIC_NONE), 4), 5);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* A switch and a CA cabled to it, LIDs set: the fabric fabric_key tests
 * change one field of at a time. */
static void key_fabric(struct fabric *f)
{
	int a, b;

	fabric_init(f);
	a = fabric_add_node(f, 0xa, 2, 4);
	b = fabric_add_node(f, 0xb, 1, 1);
	fabric_link(f, a, 2, b, 1);
	f->nodes[a].ports[0].lid = 1;
	f->nodes[b].ports[1].lid = 2;
	for (int n = 0; n < 2; n++)
		for (unsigned p = 0; p <= f->nodes[n].num_ports; p++)
			f->nodes[n].ports[p].state = 2; /* INIT */
	f->sm_node = b;
	f->sm_port = 1;
}

/* 1 when f keys as key_fabric's fabric does. */
static int key_same(const struct fabric *f)
{
	struct fabric g;
	uint8_t *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;
	int same;

	key_fabric(&g);
	CU_ASSERT_EQUAL_FATAL(fabric_key(f, &a, &la), 0);
	CU_ASSERT_EQUAL_FATAL(fabric_key(&g, &b, &lb), 0);
	same = la == lb && memcmp(a, b, la) == 0;
	free(a);
	free(b);
	fabric_fini(&g);
	return same;
}

static void test_fabric_key(void)
{
	struct fabric f;

	/* what routing reads: any change keys differently */
	key_fabric(&f);
	CU_ASSERT_TRUE(key_same(&f));
	f.nodes[1].ports[1].lid = 3;
	CU_ASSERT_FALSE(key_same(&f));
	fabric_fini(&f);
	key_fabric(&f);
	fabric_link(&f, 0, 3, 1, 1); /* the CA moved to another switch port */
	CU_ASSERT_FALSE(key_same(&f));
	fabric_fini(&f);
	key_fabric(&f);
	f.nodes[0].ports[2].state = 1; /* DOWN */
	CU_ASSERT_FALSE(key_same(&f));
	fabric_fini(&f);
	key_fabric(&f);
	f.nodes[0].ports[2].vl_cap = 3;
	CU_ASSERT_FALSE(key_same(&f));
	fabric_fini(&f);
	key_fabric(&f);
	f.nodes[1].ports[1].lmc = 1;
	CU_ASSERT_FALSE(key_same(&f));
	fabric_fini(&f);
	key_fabric(&f);
	strcpy(f.nodes[0].desc, "sw1");
	CU_ASSERT_FALSE(key_same(&f));
	fabric_fini(&f);
	key_fabric(&f);
	CU_ASSERT_TRUE(fabric_add_node(&f, 0xc, 1, 1) >= 0);
	CU_ASSERT_FALSE(key_same(&f));
	fabric_fini(&f);
	/* the SM's bookkeeping and a port coming up do not */
	key_fabric(&f);
	f.nodes[0].ports[2].state = 4; /* ACTIVE */
	f.nodes[1].ports[1].state = 3; /* ARMED */
	f.nodes[1].ports[1].pi_raw[5] = 0x55;
	f.nodes[0].si_raw[1] = 0x66;
	f.nodes[0].lft_top = 63;
	f.nodes[0].dr_hops = 1;
	f.nodes[0].dr_path[1] = 1;
	CU_ASSERT_TRUE(key_same(&f));
	/* nor bytes after a description's NUL */
	memset(f.nodes[0].desc, 'x', sizeof(f.nodes[0].desc));
	f.nodes[0].desc[0] = '\0';
	CU_ASSERT_TRUE(key_same(&f));
	fabric_fini(&f);
}

static void test_lft_set_copy(void)
{
	struct fabric f;
	struct lft_set a, b;

	key_fabric(&f);
	lft_set_init(&a);
	lft_set_init(&b);
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc(&a, &f, 70), 0);
	a.tables[0].port[2] = 2;
	a.tables[0].port[70] = 3;
	CU_ASSERT_EQUAL(lft_set_copy(&b, &a), 0);
	CU_ASSERT_EQUAL(b.n, 1);
	CU_ASSERT_EQUAL(b.tables[0].node, 0);
	CU_ASSERT_EQUAL(b.tables[0].top, 70);
	CU_ASSERT_EQUAL(memcmp(b.tables[0].port, a.tables[0].port, 71), 0);
	CU_ASSERT_PTR_NULL(b.sl);
	CU_ASSERT_EQUAL(b.n_vls, 1);
	/* with SLs, into a set that held tables already */
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc_sl(&a, 70), 0);
	a.sl[2] = 1;
	a.n_vls = 2;
	CU_ASSERT_EQUAL(lft_set_copy(&b, &a), 0);
	CU_ASSERT_EQUAL(b.n, 1);
	CU_ASSERT_EQUAL(b.sl_top, 70);
	CU_ASSERT_EQUAL(lft_set_sl(&b, 2), 1);
	CU_ASSERT_EQUAL(b.n_vls, 2);
	/* independent of the original */
	b.tables[0].port[2] = 4;
	CU_ASSERT_EQUAL(a.tables[0].port[2], 2);
	lft_set_fini(&a);
	lft_set_fini(&b);
	fabric_fini(&f);
}

void test_fabric_register(void)
{
	CU_pSuite s = CU_add_suite("fabric", NULL, NULL);

	CU_add_test(s, "init and fini of an empty fabric", test_fabric_init_empty);
	CU_add_test(s, "add_node fills ports and the GUID index", test_fabric_add_node);
	CU_add_test(s, "add_node rejects duplicates and bad port counts",
		    test_fabric_add_node_errors);
	CU_add_test(s, "GUID index survives growth to 5000 nodes", test_fabric_index_growth);
	CU_add_test(s, "link joins both ends and re-cabling cuts", test_fabric_link);
	CU_add_test(s, "link rejects bad nodes and ports", test_fabric_link_errors);
	CU_add_test(s, "count switches and LID-owning CA ports", test_fabric_counts);
	CU_add_test(s, "fewest data VLs a cabled port offers", test_fabric_min_data_vls);
	CU_add_test(s, "copy is deep and independent", test_fabric_copy);
	CU_add_test(s, "copy of an empty fabric", test_fabric_copy_empty);
	CU_add_test(s, "lft_set_alloc: one DROP-filled table per switch", test_lft_set_alloc);
	CU_add_test(s, "lft_set_alloc with no switches", test_lft_set_no_switches);
	CU_add_test(s, "lft_set SLs: none, then one per DLID", test_lft_set_sl);
	CU_add_test(s, "lft_set_path_vls: the VLs of an SL per path, and a source's row",
		    test_lft_set_path_vls);
	CU_add_test(s, "LFT blocks read back, sized by the highest top", test_lft_put_block);
	CU_add_test(s, "fabric_key: what routing reads, not the SM's bookkeeping", test_fabric_key);
	CU_add_test(s, "lft_set_copy is deep, SLs included", test_lft_set_copy);
}
