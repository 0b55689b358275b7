/*
 * test_vsim_path.c - unit tests for the simulated verbs layer's delivery
 * rules (tests/verbs_sim/vsim_path.c): where a packet to a DLID ends over
 * the LFTs (delivered, a black hole, a down cable, no owner, a loopback),
 * the path MTU, and the P_Key match.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <string.h>

#include "mad/smp.h"
#include "routing/topo_file.h"
#include "tests/unit/unit.h"
#include "tests/verbs_sim/vsim_path.h"

/* host1, host2 on sw1; host3 on sw2; sw1 and sw2 joined by ports 7 and 8.
 * Nodes in file order: host1 0, host2 1, host3 2, sw1 3, sw2 4.  LIDs:
 * host1 1, host2 2, host3 3, sw1 4, sw2 5. */
static const char vp_text[] = "caguid=0x0002c90300a00110\n"
			      "Hca 2 \"host1\"\n"
			      "[1] \"sw1\"[1]\n"
			      "caguid=0x0002c90300a00120\n"
			      "Hca 1 \"host2\"\n"
			      "[1] \"sw1\"[2]\n"
			      "caguid=0x0002c90300a00130\n"
			      "Hca 1 \"host3\"\n"
			      "[1] \"sw2\"[1]\n"
			      "switchguid=0x0002c90300b00101\n"
			      "Switch 8 \"sw1\"\n"
			      "[1] \"host1\"[1]\n"
			      "[2] \"host2\"[1]\n"
			      "[7] \"sw2\"[7]\n"
			      "[8] \"sw2\"[8]\n"
			      "switchguid=0x0002c90300b00102\n"
			      "Switch 8 \"sw2\"\n"
			      "[1] \"host3\"[1]\n"
			      "[7] \"sw1\"[7]\n"
			      "[8] \"sw1\"[8]\n";

enum { H1, H2, H3, SW1, SW2 };

struct vp {
	struct fabric f;
	struct lft_set lfts;
	struct verify_index ix;
};

static void vp_mtu(struct fabric_port *p, uint8_t mtu)
{
	struct smp_port_info pi;

	memset(&pi, 0, sizeof(pi));
	pi.neighbor_mtu = mtu;
	pi.state = p->state;
	smp_port_info_encode(&pi, p->pi_raw);
}

/* Every linked port ACTIVE with MTU 4096, LIDs as above, host3 and sw2
 * reached over port 7 from sw1. */
static void vp_setup(struct vp *t)
{
	static const uint8_t sw1[] = {LFT_DROP, 1, 2, 7, 0, 7};
	static const uint8_t sw2[] = {LFT_DROP, 7, 7, 1, 7, 0};
	static const uint16_t lids[] = {[H1] = 1, [H2] = 2, [H3] = 3, [SW1] = 4, [SW2] = 5};
	char err[256];

	fabric_init(&t->f);
	lft_set_init(&t->lfts);
	CU_ASSERT_EQUAL_FATAL(topo_parse(vp_text, strlen(vp_text), "vp", &t->f, err, sizeof(err)),
			      0);
	for (size_t i = 0; i < t->f.n_nodes; i++) {
		struct fabric_node *n = &t->f.nodes[i];

		for (unsigned p = 0; p <= n->num_ports; p++) {
			if (n->ports[p].remote_node != FABRIC_NONE)
				n->ports[p].state = PORT_STATE_ACTIVE;
			vp_mtu(&n->ports[p], 5);
		}
		n->ports[fabric_is_switch(n) ? 0 : 1].lid = lids[i];
	}
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc(&t->lfts, &t->f, 5), 0);
	memcpy(lft_set_find(&t->lfts, SW1)->port, sw1, sizeof(sw1));
	memcpy(lft_set_find(&t->lfts, SW2)->port, sw2, sizeof(sw2));
}

static void vp_index(struct vp *t)
{
	CU_ASSERT_EQUAL_FATAL(verify_index_init(&t->ix, &t->f, &t->lfts), 0);
}

static void vp_teardown(struct vp *t)
{
	verify_index_fini(&t->ix);
	lft_set_fini(&t->lfts);
	fabric_fini(&t->f);
}

static void test_vsim_path_delivered(void)
{
	struct vp t;
	struct vsim_route r;

	vp_setup(&t);
	vp_index(&t);
	vsim_path_route(&t.ix, H1, 1, 2, &r); /* same switch */
	CU_ASSERT(r.ok);
	CU_ASSERT_EQUAL(r.owner_node, H2);
	CU_ASSERT_EQUAL(r.dest_guid, t.f.nodes[H2].ports[1].guid);
	CU_ASSERT_EQUAL(r.hops, 2);
	CU_ASSERT_EQUAL(r.path_mtu, 4096);
	vsim_path_route(&t.ix, H1, 1, 3, &r); /* over the switches' link */
	CU_ASSERT(r.ok);
	CU_ASSERT_EQUAL(r.owner_node, H3);
	CU_ASSERT_EQUAL(r.hops, 3);
	vsim_path_route(&t.ix, H3, 1, 1, &r); /* and back */
	CU_ASSERT(r.ok);
	CU_ASSERT_EQUAL(r.owner_node, H1);
	vsim_path_route(&t.ix, H1, 1, 1, &r); /* itself: the HCA loops it back */
	CU_ASSERT(r.ok);
	CU_ASSERT_EQUAL(r.hops, 0);
	CU_ASSERT_EQUAL(r.dest_guid, t.f.nodes[H1].ports[1].guid);
	vp_teardown(&t);
}

static void test_vsim_path_black_hole(void)
{
	struct vp t;
	struct vsim_route r;

	vp_setup(&t);
	lft_set_find(&t.lfts, SW1)->port[3] = 5; /* uncabled */
	lft_set_find(&t.lfts, SW2)->port[1] = LFT_DROP;
	vp_index(&t);
	vsim_path_route(&t.ix, H1, 1, 3, &r);
	CU_ASSERT_FALSE(r.ok);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.why, "black hole at switch \"sw1\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.why, "LFT entry for lid 3 is port 5, which has no link"));
	vsim_path_route(&t.ix, H3, 1, 1, &r);
	CU_ASSERT_FALSE(r.ok);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.why, "no LFT entry for lid 1 (port 255)"));
	vsim_path_route(&t.ix, H1, 1, 2, &r); /* the rest still flows */
	CU_ASSERT(r.ok);
	vp_teardown(&t);
}

static void test_vsim_path_down_and_gone(void)
{
	struct vp t;
	struct vsim_route r;

	vp_setup(&t);
	t.f.nodes[SW2].ports[7].state = PORT_STATE_INIT; /* the SM has not activated it */
	vp_index(&t);
	vsim_path_route(&t.ix, H1, 1, 3, &r);
	CU_ASSERT_FALSE(r.ok);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.why, "is INIT, not ACTIVE"));
	vsim_path_route(&t.ix, H1, 1, 2, &r);
	CU_ASSERT(r.ok);
	vsim_path_route(&t.ix, H1, 1, 9, &r); /* nobody has it (a split fabric) */
	CU_ASSERT_FALSE(r.ok);
	CU_ASSERT_EQUAL(r.owner_node, FABRIC_NONE);
	CU_ASSERT_STRING_EQUAL(r.why,
			       "no port has lid 9 in the fabric reached from here (5 nodes): "
			       "its port is cut off, down or gone");
	vp_teardown(&t);
}

static void test_vsim_path_mtu(void)
{
	struct vp t;
	struct vsim_route r;
	char why[128] = "";

	vp_setup(&t);
	vp_mtu(&t.f.nodes[SW2].ports[7], 3); /* 1024 on the link between the switches */
	vp_index(&t);
	vsim_path_route(&t.ix, H1, 1, 3, &r);
	CU_ASSERT(r.ok);
	CU_ASSERT_EQUAL(r.path_mtu, 1024);
	CU_ASSERT_EQUAL(vsim_path_fits(&r, 1024, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(vsim_path_fits(&r, 1025, why, sizeof(why)), -EMSGSIZE);
	CU_ASSERT_STRING_EQUAL(why, "a packet of 1025 bytes is above the path MTU 1024");
	vsim_path_route(&t.ix, H1, 1, 2, &r); /* the same switch: not that link */
	CU_ASSERT_EQUAL(r.path_mtu, 4096);
	vp_teardown(&t);
}

static void test_vsim_pkey(void)
{
	static const uint16_t full_default[] = {0xffff};
	static const uint16_t limited_default[] = {0x7fff, 0x8002};
	static const uint16_t none[] = {0, 0};

	CU_ASSERT(vsim_path_pkey_accepts(0xffff, full_default, 1));
	CU_ASSERT(vsim_path_pkey_accepts(0x7fff, full_default, 1));	     /* limited to full */
	CU_ASSERT(vsim_path_pkey_accepts(0xffff, limited_default, 2));	     /* full to limited */
	CU_ASSERT_FALSE(vsim_path_pkey_accepts(0x7fff, limited_default, 2)); /* both limited */
	CU_ASSERT(vsim_path_pkey_accepts(0x8002, limited_default, 2));
	CU_ASSERT(vsim_path_pkey_accepts(0x0002, limited_default, 2));
	CU_ASSERT_FALSE(vsim_path_pkey_accepts(0x8003, limited_default, 2)); /* another partition */
	CU_ASSERT_FALSE(vsim_path_pkey_accepts(0xffff, none, 2));	     /* left out */
	CU_ASSERT_FALSE(vsim_path_pkey_accepts(0x8000, full_default, 1));    /* no partition */
}

void test_vsim_path_register(void)
{
	CU_pSuite s = CU_add_suite("vsim_path", NULL, NULL);

	CU_add_test(s, "delivered: same switch, across, back, loopback", test_vsim_path_delivered);
	CU_add_test(s, "lost: black holes named with the switch and entry",
		    test_vsim_path_black_hole);
	CU_add_test(s, "lost: a port not ACTIVE, a LID nobody owns", test_vsim_path_down_and_gone);
	CU_add_test(s, "path MTU: the smallest link crossed", test_vsim_path_mtu);
	CU_add_test(s, "P_Keys: same partition, not both limited", test_vsim_pkey);
}
