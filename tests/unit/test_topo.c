/*
 * test_topo.c - unit tests for routing/topo_file.c: the bundled fabrics,
 * ibsim's example nets, ibnetdiscover-format text and exact error messages.
 * Reads files relative to the source tree (run from the top directory).
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mad/smp.h"
#include "routing/topo_file.h"
#include "tests/unit/unit.h"

#define IBSIM_EXAMPLES "/usr/share/doc/ibsim-utils/net-examples/"

static int parse(const char *text, struct fabric *f, char *err, size_t errlen)
{
	fabric_init(f);
	return topo_parse(text, strlen(text), "t.topo", f, err, errlen);
}

/* Node whose description (the id in ibsim files) is desc, or -1. */
static int node_named(const struct fabric *f, const char *desc)
{
	for (size_t i = 0; i < f->n_nodes; i++)
		if (!strcmp(f->nodes[i].desc, desc))
			return (int)i;
	return -1;
}

/* 1 when node a port pa is cabled to node b port pb (checked both ways). */
static int linked(const struct fabric *f, const char *a, unsigned pa, const char *b,
		  unsigned pb)
{
	int na = node_named(f, a), nb = node_named(f, b);

	if (na < 0 || nb < 0)
		return 0;
	return f->nodes[na].ports[pa].remote_node == nb && f->nodes[na].ports[pa].remote_port == pb &&
	       f->nodes[nb].ports[pb].remote_node == na && f->nodes[nb].ports[pb].remote_port == pa;
}

static size_t count_links(const struct fabric *f)
{
	size_t ends = 0;

	for (size_t i = 0; i < f->n_nodes; i++)
		for (unsigned p = 1; p <= f->nodes[i].num_ports; p++)
			ends += f->nodes[i].ports[p].remote_node != FABRIC_NONE;
	return ends / 2;
}

/* Parse text and expect exactly this error. */
static void expect_error(const char *text, const char *want)
{
	struct fabric f;
	char err[256];
	int rc = parse(text, &f, err, sizeof(err));

	CU_ASSERT_EQUAL(rc, -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, want);
	if (strcmp(err, want))
		fprintf(stderr, "\n  got:  %s\n  want: %s\n", err, want);
	CU_ASSERT_EQUAL(f.n_nodes, 0); /* nothing is left behind */
	fabric_fini(&f);
}

static int load(const char *path, struct fabric *f)
{
	char err[256];
	int rc;

	fabric_init(f);
	rc = topo_load(path, f, err, sizeof(err));
	if (rc)
		fprintf(stderr, "\n  %s\n", err);
	return rc;
}

/* ---- Bundled fabrics -------------------------------------------------- */

static void test_topo_lab(void)
{
	struct fabric f;
	int h1, sw;

	CU_ASSERT_EQUAL_FATAL(load("tests/fabrics/lab.topo", &f), 0);
	CU_ASSERT_EQUAL(f.n_nodes, 4);
	CU_ASSERT_EQUAL(fabric_count_switches(&f), 1);
	CU_ASSERT_EQUAL(fabric_count_cas(&f), 3); /* port 2 of each host is not cabled */
	h1 = node_named(&f, "host1");
	sw = node_named(&f, "lab-sw");
	CU_ASSERT_EQUAL_FATAL(h1, 0);
	CU_ASSERT_FATAL(sw >= 0);
	CU_ASSERT_EQUAL(f.sm_node, h1);
	CU_ASSERT_EQUAL(f.sm_port, 1);
	CU_ASSERT_EQUAL(f.nodes[h1].guid, 0x0002c90300a00010ULL);
	CU_ASSERT_EQUAL(f.nodes[h1].system_guid, 0x0002c90300a00010ULL);
	CU_ASSERT_EQUAL(f.nodes[h1].ports[1].guid, 0x0002c90300a00011ULL);
	CU_ASSERT_EQUAL(f.nodes[h1].ports[2].guid, 0x0002c90300a00012ULL);
	CU_ASSERT_EQUAL(f.nodes[h1].vendor_id, 0x2c9);
	CU_ASSERT_EQUAL(f.nodes[h1].device_id, 0x1013);
	CU_ASSERT_EQUAL(f.nodes[h1].type, NODE_TYPE_CA);
	CU_ASSERT_EQUAL(f.nodes[h1].num_ports, 2);
	CU_ASSERT_EQUAL(f.nodes[sw].type, NODE_TYPE_SWITCH);
	CU_ASSERT_EQUAL(f.nodes[sw].num_ports, 8);
	CU_ASSERT_EQUAL(f.nodes[sw].guid, 0x0002c90300b00001ULL);
	CU_ASSERT_EQUAL(f.nodes[sw].ports[0].guid, 0x0002c90300b00001ULL);
	CU_ASSERT_EQUAL(f.nodes[sw].ports[5].guid, 0x0002c90300b00001ULL);
	CU_ASSERT_TRUE(linked(&f, "host1", 1, "lab-sw", 1));
	CU_ASSERT_TRUE(linked(&f, "host2", 1, "lab-sw", 2));
	CU_ASSERT_TRUE(linked(&f, "host3", 1, "lab-sw", 3));
	CU_ASSERT_EQUAL(count_links(&f), 3);
	CU_ASSERT_EQUAL(f.nodes[h1].ports[2].remote_node, FABRIC_NONE);
	fabric_fini(&f);
}

static void test_topo_lab_port_states(void)
{
	struct fabric f;
	const struct fabric_node *h1, *sw;

	CU_ASSERT_EQUAL_FATAL(load("tests/fabrics/lab.topo", &f), 0);
	h1 = &f.nodes[node_named(&f, "host1")];
	sw = &f.nodes[node_named(&f, "lab-sw")];
	CU_ASSERT_TRUE(h1->ports[1].present);
	CU_ASSERT_EQUAL(h1->ports[1].state, PORT_STATE_INIT);
	CU_ASSERT_EQUAL(h1->ports[1].phys_state, PORT_PHYS_LINKUP);
	CU_ASSERT_FALSE(h1->ports[2].present);
	CU_ASSERT_EQUAL(h1->ports[2].state, PORT_STATE_DOWN);
	CU_ASSERT_EQUAL(h1->ports[2].phys_state, PORT_PHYS_POLLING);
	CU_ASSERT_TRUE(sw->ports[0].present);
	CU_ASSERT_EQUAL(sw->ports[0].state, PORT_STATE_ACTIVE);
	CU_ASSERT_TRUE(sw->ports[8].present);
	CU_ASSERT_EQUAL(sw->ports[8].state, PORT_STATE_DOWN);
	CU_ASSERT_EQUAL(sw->ports[1].state, PORT_STATE_INIT);
	CU_ASSERT_EQUAL(sw->ports[1].width_active, 2); /* 4x */
	CU_ASSERT_EQUAL(sw->lft_cap, LID_UNICAST_MAX + 1);
	CU_ASSERT_EQUAL(h1->ports[1].lid, 0); /* a net file assigns no LIDs */
	fabric_fini(&f);
}

static void test_topo_twosw(void)
{
	struct fabric f;

	CU_ASSERT_EQUAL_FATAL(load("tests/fabrics/twosw.topo", &f), 0);
	CU_ASSERT_EQUAL(fabric_count_switches(&f), 2);
	CU_ASSERT_EQUAL(fabric_count_cas(&f), 4);
	CU_ASSERT_TRUE(linked(&f, "sw1", 7, "sw2", 7));
	CU_ASSERT_TRUE(linked(&f, "sw1", 8, "sw2", 8));
	CU_ASSERT_TRUE(linked(&f, "host1", 1, "sw1", 1));
	CU_ASSERT_TRUE(linked(&f, "host4", 1, "sw2", 2));
	CU_ASSERT_EQUAL(count_links(&f), 6);
	CU_ASSERT_EQUAL(f.sm_node, node_named(&f, "host1"));
	fabric_fini(&f);
}

static void test_topo_ring(void)
{
	struct fabric f;

	CU_ASSERT_EQUAL_FATAL(load("tests/fabrics/ring.topo", &f), 0);
	CU_ASSERT_EQUAL(fabric_count_switches(&f), 4);
	CU_ASSERT_EQUAL(fabric_count_cas(&f), 8);
	CU_ASSERT_TRUE(linked(&f, "sw1", 7, "sw2", 8));
	CU_ASSERT_TRUE(linked(&f, "sw2", 7, "sw3", 8));
	CU_ASSERT_TRUE(linked(&f, "sw3", 7, "sw4", 8));
	CU_ASSERT_TRUE(linked(&f, "sw4", 7, "sw1", 8));
	CU_ASSERT_TRUE(linked(&f, "host8", 1, "sw4", 2));
	CU_ASSERT_EQUAL(count_links(&f), 12);
	fabric_fini(&f);
}

static void test_topo_fattree64(void)
{
	struct fabric f;
	char leaf[24], spine[24];
	int ok = 1;

	CU_ASSERT_EQUAL_FATAL(load("tests/fabrics/fattree64.topo", &f), 0);
	CU_ASSERT_EQUAL(fabric_count_switches(&f), 12);
	CU_ASSERT_EQUAL(fabric_count_cas(&f), 64);
	CU_ASSERT_EQUAL(count_links(&f), 64 + 8 * 4 * 2);
	CU_ASSERT_EQUAL(f.sm_node, node_named(&f, "host01"));
	CU_ASSERT_EQUAL(f.sm_port, 1);
	CU_ASSERT_TRUE(linked(&f, "host64", 1, "leaf8", 8));
	for (int l = 1; l <= 8; l++) {
		for (int s = 1; s <= 4; s++) {
			snprintf(leaf, sizeof(leaf), "leaf%d", l);
			snprintf(spine, sizeof(spine), "spine%d", s);
			ok &= linked(&f, leaf, 8 + (s - 1) * 2 + 1, spine, (l - 1) * 2 + 1);
			ok &= linked(&f, leaf, 8 + (s - 1) * 2 + 2, spine, (l - 1) * 2 + 2);
		}
	}
	CU_ASSERT_TRUE(ok);
	fabric_fini(&f);
}

/* ---- ibsim's own examples (skipped when ibsim-utils is missing) ------- */

static int load_example(const char *name, struct fabric *f)
{
	char path[256];

	snprintf(path, sizeof(path), IBSIM_EXAMPLES "%s", name);
	if (access(path, R_OK)) {
		fprintf(stderr, "\n  skipped: %s not installed\n", path);
		return 1;
	}
	CU_ASSERT_EQUAL_FATAL(load(path, f), 0);
	return 0;
}

static void test_topo_ibsim_examples(void)
{
	static const char *const names[] = { "net", "net.1", "net.2sw2path", "net.2sw2path4hca",
					     "net.2sw2path4hca2port" };
	struct fabric f;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (load_example(names[i], &f))
			return;
		CU_ASSERT_TRUE(f.n_nodes >= 3);
		CU_ASSERT_EQUAL(f.sm_node, 0);
		CU_ASSERT_STRING_EQUAL(f.nodes[0].desc, "Switch1");
		CU_ASSERT_EQUAL(f.sm_port, 0); /* an SM on a switch uses port 0 */
		CU_ASSERT_TRUE(linked(&f, "Hca1", 1, "Switch1", 1));
		fabric_fini(&f);
	}
}

static void test_topo_ibsim_2sw2path(void)
{
	struct fabric f;

	if (load_example("net.2sw2path4hca2port", &f))
		return;
	CU_ASSERT_EQUAL(f.n_nodes, 4);
	CU_ASSERT_EQUAL(fabric_count_switches(&f), 2);
	CU_ASSERT_EQUAL(fabric_count_cas(&f), 4);
	CU_ASSERT_TRUE(linked(&f, "Switch1", 3, "Switch2", 3));
	CU_ASSERT_TRUE(linked(&f, "Switch1", 5, "Switch2", 5));
	CU_ASSERT_TRUE(linked(&f, "Hca2", 2, "Switch2", 2));
	CU_ASSERT_EQUAL(count_links(&f), 6);
	fabric_fini(&f);
}

/* ---- Text in ibnetdiscover's format ----------------------------------- */

static const char ibnd_text[] =
	"#\n"
	"# Topology file: written by hand in ibnetdiscover's format\n"
	"#\n"
	"\n"
	"vendid=0x2c9\n"
	"devid=0xc738\n"
	"sysimgguid=0x2c90300b00099\n"
	"switchguid=0x2c90300b00001(2c90300b00001)\n"
	"Switch\t8 \"S-0002c90300b00001\"\t\t# \"edge-sw\" base port 0 lid 5 lmc 0\n"
	"[1]\t\"H-0002c90300a00010\"[1](2c90300a00011) \t\t# \"node-a\" lid 1 4xEDR\n"
	"[2]\t\"H-0002c90300a00020\"[1](2c90300a00021) \t\t# \"node-b\" lid 2 4xEDR\n"
	"[4]\t\"R-0002c90300c00001\"[1](2c90300c00001) \t\t# \"gw\" lid 7 4xEDR\n"
	"\n"
	"vendid=0x2c9\n"
	"devid=0x1013\n"
	"sysimgguid=0x2c90300a00020\n"
	"caguid=0x2c90300a00020\n"
	"Ca\t2 \"H-0002c90300a00020\"\t\t# \"node-b\"\n"
	"[1](2c90300a00021) \t\"S-0002c90300b00001\"[2]\t\t# lid 2 lmc 0 \"edge-sw\" lid 5 4xEDR\n"
	"\n"
	"caguid=0x2c90300a00010\n"
	"Ca\t2 \"H-0002c90300a00010\"\t\t# \"node-a\"\n"
	"[1](2c90300a00011) \t\"S-0002c90300b00001\"[1]\t\t# lid 1 lmc 0 \"edge-sw\" lid 5 4xEDR\n"
	"\n"
	"rtguid=0x2c90300c00000\n"
	"Rt\t1 \"R-0002c90300c00001\"\t\t# \"gw\"\n"
	"[1](2c90300c00001) \t\"S-0002c90300b00001\"[4]\t\t# lid 7 lmc 0 \"edge-sw\" lid 5 4xEDR\n";

static void test_topo_ibnetdiscover(void)
{
	struct fabric f;
	char err[256];
	int sw, a, b, gw;

	CU_ASSERT_EQUAL_FATAL(parse(ibnd_text, &f, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(f.n_nodes, 4);
	sw = fabric_find(&f, 0x2c90300b00001ULL);
	a = fabric_find(&f, 0x2c90300a00010ULL);
	b = fabric_find(&f, 0x2c90300a00020ULL);
	gw = fabric_find(&f, 0x2c90300c00000ULL);
	CU_ASSERT_FATAL(sw == 0 && a >= 0 && b >= 0 && gw >= 0);
	/* the description comes from the comment, as ibsim does */
	CU_ASSERT_STRING_EQUAL(f.nodes[sw].desc, "edge-sw");
	CU_ASSERT_STRING_EQUAL(f.nodes[b].desc, "node-b");
	CU_ASSERT_EQUAL(f.nodes[sw].system_guid, 0x2c90300b00099ULL);
	CU_ASSERT_EQUAL(f.nodes[sw].device_id, 0xc738);
	CU_ASSERT_EQUAL(f.nodes[a].vendor_id, 0); /* key= lines describe one node */
	CU_ASSERT_EQUAL(f.nodes[b].vendor_id, 0x2c9);
	CU_ASSERT_EQUAL(f.nodes[gw].type, NODE_TYPE_ROUTER);
	/* LIDs and LMC from the comments */
	CU_ASSERT_EQUAL(f.nodes[sw].ports[0].lid, 5);
	CU_ASSERT_EQUAL(f.nodes[a].ports[1].lid, 1);
	CU_ASSERT_EQUAL(f.nodes[b].ports[1].lid, 2);
	CU_ASSERT_EQUAL(f.nodes[gw].ports[1].lid, 7);
	CU_ASSERT_EQUAL(f.nodes[b].ports[2].lid, 0);
	CU_ASSERT_EQUAL(f.nodes[sw].ports[1].lid, 0); /* "lid 1" there is node-a's */
	/* port GUIDs from the (guid) after the port */
	CU_ASSERT_EQUAL(f.nodes[b].ports[1].guid, 0x2c90300a00021ULL);
	CU_ASSERT_EQUAL(f.nodes[gw].ports[1].guid, 0x2c90300c00001ULL);
	CU_ASSERT_EQUAL(f.nodes[sw].ports[0].guid, 0x2c90300b00001ULL);
	CU_ASSERT_EQUAL(f.nodes[sw].ports[1].remote_node, a);
	CU_ASSERT_EQUAL(f.nodes[sw].ports[2].remote_node, b);
	CU_ASSERT_EQUAL(f.nodes[sw].ports[4].remote_node, gw);
	CU_ASSERT_EQUAL(count_links(&f), 3);
	CU_ASSERT_EQUAL(f.sm_node, sw);
	CU_ASSERT_EQUAL(f.sm_port, 0);
	fabric_fini(&f);
}

/* The remote (portguid) names a port its own record did not. */
static void test_topo_remote_port_guid(void)
{
	struct fabric f;
	char err[256];
	int h;

	CU_ASSERT_EQUAL_FATAL(parse("Switch 8 \"s\"\n[1] \"h\"[2](abc)\n\nHca 2 \"h\"\n", &f, err,
				    sizeof(err)),
			      0);
	h = node_named(&f, "h");
	CU_ASSERT_EQUAL(f.nodes[h].ports[2].guid, 0xabc);
	CU_ASSERT_EQUAL(f.nodes[h].ports[1].guid, f.nodes[h].guid + 1);
	fabric_fini(&f);
}

/* ---- Plain ibsim text: made-up GUIDs, one-sided links, options -------- */

static void test_topo_made_up_guids(void)
{
	static const char text[] = "Switch 8 \"s1\"\n"
				   "[1] \"c1\"[1]\n"
				   "\n"
				   "Hca 2 \"c1\"\n"
				   "[2] \"s2\"[1]\n"
				   "\n"
				   "Switch 4 \"s2\"\n"
				   "\n"
				   "Ca 1 \"c2\"\n"
				   "[1] \"s2\"[2]\n";
	struct fabric f;
	char err[256];
	int s1, s2, c1, c2;

	CU_ASSERT_EQUAL_FATAL(parse(text, &f, err, sizeof(err)), 0);
	s1 = node_named(&f, "s1");
	s2 = node_named(&f, "s2");
	c1 = node_named(&f, "c1");
	c2 = node_named(&f, "c2");
	CU_ASSERT_EQUAL(f.nodes[s1].guid, 0x0002000000000001ULL);
	CU_ASSERT_EQUAL(f.nodes[s2].guid, 0x0002000000000002ULL);
	CU_ASSERT_EQUAL(f.nodes[c1].guid, 0x0001000000000001ULL);
	CU_ASSERT_EQUAL(f.nodes[c1].ports[2].guid, 0x0001000000000003ULL);
	/* the next CA skips c1's port GUIDs */
	CU_ASSERT_EQUAL(f.nodes[c2].guid, 0x0001000000000004ULL);
	CU_ASSERT_EQUAL(f.nodes[c2].ports[1].guid, 0x0001000000000005ULL);
	CU_ASSERT_EQUAL(f.nodes[s2].ports[3].guid, 0x0002000000000002ULL);
	/* links written from one side only are joined */
	CU_ASSERT_TRUE(linked(&f, "s1", 1, "c1", 1));
	CU_ASSERT_TRUE(linked(&f, "c1", 2, "s2", 1));
	CU_ASSERT_TRUE(linked(&f, "c2", 1, "s2", 2));
	CU_ASSERT_EQUAL(count_links(&f), 3);
	fabric_fini(&f);
}

static void test_topo_sm_attach(void)
{
	struct fabric f;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(parse("Hca 2 \"h\"\n[2] \"s\"[3]\nSwitch 8 \"s\"\n", &f, err,
				    sizeof(err)),
			      0);
	CU_ASSERT_EQUAL(f.sm_node, 0);
	CU_ASSERT_EQUAL(f.sm_port, 2);
	fabric_fini(&f);
	CU_ASSERT_EQUAL_FATAL(parse("Hca 2 \"lonely\"\n", &f, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(f.sm_node, 0);
	CU_ASSERT_EQUAL(f.sm_port, 1);
	fabric_fini(&f);
	CU_ASSERT_EQUAL_FATAL(parse("# nothing here\n\n", &f, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(f.n_nodes, 0);
	CU_ASSERT_EQUAL(f.sm_node, FABRIC_NONE);
	fabric_fini(&f);
}

static void test_topo_width_crlf_and_long_ids(void)
{
	static const char text[] =
		"  Switch\t8\t\"a-switch-with-a-very-long-name-that-does-not-fit-in-a-node-description\"\r\n"
		"\t[1]\t\"h\"[1]\tw=12\t# twelve lanes\r\n"
		"\r\n"
		"Hca 1 \"h\"\r\n";
	struct fabric f;
	char err[256];
	int sw, h;

	CU_ASSERT_EQUAL_FATAL(parse(text, &f, err, sizeof(err)), 0);
	sw = 0;
	h = node_named(&f, "h");
	CU_ASSERT_EQUAL(strlen(f.nodes[sw].desc), 64);
	CU_ASSERT_STRING_EQUAL(f.nodes[sw].desc,
			       "a-switch-with-a-very-long-name-that-does-not-fit-in-a-node-descr");
	CU_ASSERT_EQUAL(f.nodes[sw].ports[1].remote_node, h);
	CU_ASSERT_EQUAL(f.nodes[sw].ports[1].width_active, 8);
	CU_ASSERT_EQUAL(f.nodes[h].ports[1].width_active, 8);
	fabric_fini(&f);
}

/* ---- Errors ----------------------------------------------------------- */

static void test_topo_error_port_range(void)
{
	expect_error("Switch 8 \"sw1\"\n[9] \"h\"[1]\n",
		     "t.topo:2: port 9 out of range (node \"sw1\" has 8 ports)");
	expect_error("Switch 8 \"sw1\"\n[0] \"h\"[1]\n",
		     "t.topo:2: port 0 out of range (node \"sw1\" has 8 ports)");
	expect_error("Switch 8 \"sw1\"\n[1] \"h\"[3]\n\nHca 2 \"h\"\n",
		     "t.topo:2: port 3 out of range (node \"h\" has 2 ports)");
}

static void test_topo_error_unknown_remote(void)
{
	expect_error("Switch 8 \"sw1\"\n[1] \"nope\"[1]\n",
		     "t.topo:2: unknown remote id \"nope\"");
}

static void test_topo_error_contradicting_links(void)
{
	expect_error("Switch 8 \"sw1\"\n[1] \"h1\"[1]\n\nHca 1 \"h1\"\n[1] \"sw1\"[2]\n",
		     "t.topo:5: contradicting link: \"h1\"[1] is already linked to \"sw1\"[1]");
	expect_error("Switch 8 \"a\"\n[1] \"h\"[1]\nSwitch 8 \"b\"\n[1] \"h\"[1]\nHca 1 \"h\"\n",
		     "t.topo:4: contradicting link: \"h\"[1] is already linked to \"a\"[1]");
	expect_error("Switch 8 \"a\"\n[1] \"a\"[1]\n", "t.topo:2: port 1 of \"a\" is linked to itself");
	expect_error("Switch 8 \"s\"\n[1] \"h\"[1](abc)\n\nHca 1 \"h\"\n[1](def) \"s\"[1]\n",
		     "t.topo:2: contradicting port GUID for \"h\"[1]: 0x0000000000000abc here, "
		     "0x0000000000000def elsewhere");
}

static void test_topo_error_records(void)
{
	expect_error("Hca 1 \"x\"\nHca 1 \"x\"\n",
		     "t.topo:2: duplicate node id \"x\" (first at line 1)");
	expect_error("caguid=0x10\nHca 1 \"a\"\ncaguid=0x10\nHca 1 \"b\"\n",
		     "t.topo:4: duplicate node GUID 0x0000000000000010 (node \"a\", line 2)");
	expect_error("Switch 0 \"x\"\n", "t.topo:1: bad port count (1-254)");
	expect_error("\n\nSwitch 300 \"x\"\n", "t.topo:3: bad port count (1-254)");
	expect_error("Hca 1 x\n", "t.topo:1: missing or bad node id (a quoted string)");
	expect_error("Hca 1 \"\"\n", "t.topo:1: missing or bad node id (a quoted string)");
	expect_error("Hca 1 \"x\" junk\n", "t.topo:1: unexpected text after node id \"x\"");
	expect_error("Router 2 \"r\"\n", "t.topo:1: unknown record 'Router'");
	expect_error("# ok\n[1] \"x\"[1]\n", "t.topo:2: port line before any node header");
}

static void test_topo_error_lines(void)
{
	expect_error("foo=1\n", "t.topo:1: unknown key 'foo'");
	expect_error("caguid=zz\n", "t.topo:1: bad GUID for 'caguid'");
	expect_error("devid=0x10000\n", "t.topo:1: bad value for 'devid'");
	expect_error("include other.topo\n", "t.topo:1: 'include' is not supported");
	expect_error("do link\n", "t.topo:1: 'do' is not supported");
	expect_error("Hca 1 \"a\"\n[1] \"b\"\n",
		     "t.topo:2: bad remote port after \"b\" (expected [<number>])");
	expect_error("Hca 1 \"a\"\n[x] \"b\"[1]\n",
		     "t.topo:2: bad local port (expected [<number>])");
	expect_error("Hca 1 \"a\"\n[1] \"b\"[1] w=3\n",
		     "t.topo:2: bad link width (w=1, 2, 4, 8 or 12)");
	expect_error("Hca 1 \"a\"\n[1] \"b\"[1] speed\n",
		     "t.topo:2: unexpected text after remote port");
	expect_error("Hca 1 \"a\"\n[1](xyz) \"b\"[1]\n", "t.topo:2: bad port GUID");
	expect_error("Hca 1 \"a\"\n[1] b[1]\n",
		     "t.topo:2: missing or bad remote id (a quoted string)");
}

static void test_topo_error_long_line(void)
{
	char text[4000];

	memset(text, ' ', sizeof(text));
	text[sizeof(text) - 2] = '\n';
	text[sizeof(text) - 1] = '\0';
	expect_error(text, "t.topo:1: line too long (max 2047)");
}

static void test_topo_error_not_empty(void)
{
	struct fabric f;
	char err[256];

	fabric_init(&f);
	fabric_add_node(&f, 1, 1, 1);
	CU_ASSERT_EQUAL(topo_parse("", 0, "t.topo", &f, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "t.topo: fabric is not empty");
	CU_ASSERT_EQUAL(f.n_nodes, 1); /* the caller's nodes are left alone */
	fabric_fini(&f);
}

static void test_topo_load_missing(void)
{
	struct fabric f;
	char err[256];

	fabric_init(&f);
	CU_ASSERT_EQUAL(topo_load("/nonexistent/x.topo", &f, err, sizeof(err)), -ENOENT);
	CU_ASSERT_STRING_EQUAL(err, "/nonexistent/x.topo: No such file or directory");
	fabric_fini(&f);
}

void test_topo_register(void)
{
	CU_pSuite s = CU_add_suite("topo", NULL, NULL);

	CU_add_test(s, "lab.topo", test_topo_lab);
	CU_add_test(s, "lab.topo port states", test_topo_lab_port_states);
	CU_add_test(s, "twosw.topo", test_topo_twosw);
	CU_add_test(s, "ring.topo", test_topo_ring);
	CU_add_test(s, "fattree64.topo", test_topo_fattree64);
	CU_add_test(s, "ibsim example nets", test_topo_ibsim_examples);
	CU_add_test(s, "ibsim net.2sw2path4hca2port", test_topo_ibsim_2sw2path);
	CU_add_test(s, "ibnetdiscover format: GUIDs, LIDs, descriptions", test_topo_ibnetdiscover);
	CU_add_test(s, "remote (portguid) names a port", test_topo_remote_port_guid);
	CU_add_test(s, "made-up GUIDs and one-sided links", test_topo_made_up_guids);
	CU_add_test(s, "SM attach point", test_topo_sm_attach);
	CU_add_test(s, "w=, CRLF, whitespace, long ids", test_topo_width_crlf_and_long_ids);
	CU_add_test(s, "error: port out of range", test_topo_error_port_range);
	CU_add_test(s, "error: unknown remote id", test_topo_error_unknown_remote);
	CU_add_test(s, "error: contradicting links", test_topo_error_contradicting_links);
	CU_add_test(s, "error: bad records", test_topo_error_records);
	CU_add_test(s, "error: bad lines", test_topo_error_lines);
	CU_add_test(s, "error: line too long", test_topo_error_long_line);
	CU_add_test(s, "error: fabric not empty", test_topo_error_not_empty);
	CU_add_test(s, "load: missing file", test_topo_load_missing);
}
