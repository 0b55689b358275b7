/*
 * test_topo_write.c - unit tests for routing/topo_write.c: every bundled
 * fabric printed as ibnetdiscover text parses back (topo_parse) to the same
 * nodes, GUIDs, links, descriptions and LIDs, and prints the same again;
 * golden JSON and DOT for lab.topo; name maps, escaping, routers, odd
 * links.  Reads files relative to the source tree (run from the top).
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/smp.h"
#include "routing/topo_file.h"
#include "routing/topo_write.h"
#include "tests/unit/unit.h"

void test_topo_write_register(void); /* also in unit.h once registered there */

static int tw_load(const char *path, struct fabric *f)
{
	char err[256];
	int rc;

	fabric_init(f);
	rc = topo_load(path, f, err, sizeof(err));
	if (rc)
		fprintf(stderr, "\n  %s\n", err);
	return rc;
}

static int tw_parse(const char *text, size_t len, struct fabric *f)
{
	char err[256];
	int rc;

	fabric_init(f);
	rc = topo_parse(text, len, "written", f, err, sizeof(err));
	if (rc)
		fprintf(stderr, "\n  %s\n", err);
	return rc;
}

/* LIDs in fabric order over the LID-owning ports (what nanosm gives lab:
 * host1 1, host2 2, host3 3, lab-sw 4).  With lmc, node 1's first port
 * gets LMC 1 (two LIDs), so LMC round-trips too. */
static void tw_assign_lids(struct fabric *f, int lmc)
{
	uint16_t next = 1;
	int lmc_done = !lmc;

	for (size_t i = 0; i < f->n_nodes; i++) {
		struct fabric_node *n = &f->nodes[i];

		for (unsigned p = 0; p <= n->num_ports; p++) {
			struct fabric_port *fp = &n->ports[p];

			if (fabric_is_switch(n) != (p == 0) ||
			    (!fabric_is_switch(n) && !fp->present))
				continue;
			fp->lid = next;
			if (!fabric_is_switch(n) && i == 1 && !lmc_done) {
				fp->lmc = 1;
				lmc_done = 1;
			}
			next += (uint16_t)fabric_port_lid_count(fp);
		}
	}
}

static char *tw_write(const struct fabric *f, enum topo_format fmt, const struct topo_names *names,
		      size_t *len)
{
	char *out = NULL;
	size_t n = 0;

	CU_ASSERT_EQUAL(topo_write(f, fmt, names, &out, &n), 0);
	CU_ASSERT_PTR_NOT_NULL(out);
	if (out)
		CU_ASSERT_EQUAL(strlen(out), n);
	if (len)
		*len = n;
	return out;
}

/* ---- Comparing two fabrics (by GUID, whatever the node order) ----------- */

static int tw_same_port(const struct fabric *a, const struct fabric_node *na,
			const struct fabric *b, const struct fabric_node *nb, unsigned p)
{
	const struct fabric_port *pa = &na->ports[p], *pb = &nb->ports[p];
	int linked = pa->remote_node != FABRIC_NONE;

	if (linked != (pb->remote_node != FABRIC_NONE))
		return 0;
	if (linked && (a->nodes[pa->remote_node].guid != b->nodes[pb->remote_node].guid ||
		       pa->remote_port != pb->remote_port))
		return 0;
	if (fabric_is_switch(na) ? p != 0 : !pa->present)
		return 1;
	return pa->guid == pb->guid && pa->lid == pb->lid && pa->lmc == pb->lmc &&
	       pa->present == pb->present;
}

/* 1 when b describes a's nodes, ports, links, descriptions and LIDs.
 * (Not link widths: topo_parse does not read the "4xSDR" comment; ibsim
 * does.) */
static int tw_same_fabric(const struct fabric *a, const struct fabric *b)
{
	if (a->n_nodes != b->n_nodes)
		return 0;
	for (size_t i = 0; i < a->n_nodes; i++) {
		const struct fabric_node *na = &a->nodes[i];
		int j = fabric_find(b, na->guid);
		const struct fabric_node *nb;

		if (j == FABRIC_NONE)
			return 0;
		nb = &b->nodes[j];
		if (na->type != nb->type || na->num_ports != nb->num_ports ||
		    strcmp(na->desc, nb->desc) || na->system_guid != nb->system_guid ||
		    na->vendor_id != nb->vendor_id || na->device_id != nb->device_id)
			return 0;
		for (unsigned p = 0; p <= na->num_ports; p++)
			if (!tw_same_port(a, na, b, nb, p))
				return 0;
	}
	return 1;
}

/* The text from the first node record on (the preamble names the SM's
 * node, which topo_parse picks by its own rule). */
static const char *tw_records(const char *text)
{
	const char *p = strstr(text, "\nvendid=");

	return p ? p + 1 : text;
}

/* ---- Round trips -------------------------------------------------------- */

static void tw_round_trip(const char *path)
{
	struct fabric f, g;
	char *once, *twice;
	size_t len;

	CU_ASSERT_EQUAL_FATAL(tw_load(path, &f), 0);
	tw_assign_lids(&f, 1);
	once = tw_write(&f, TOPO_FORMAT_IBNETDISCOVER, NULL, &len);
	CU_ASSERT_FATAL(once != NULL);
	CU_ASSERT_EQUAL_FATAL(tw_parse(once, len, &g), 0);
	CU_ASSERT_TRUE(tw_same_fabric(&f, &g));
	CU_ASSERT_TRUE(tw_same_fabric(&g, &f));
	twice = tw_write(&g, TOPO_FORMAT_IBNETDISCOVER, NULL, NULL);
	CU_ASSERT_FATAL(twice != NULL);
	CU_ASSERT_STRING_EQUAL(tw_records(once), tw_records(twice));
	free(once);
	free(twice);
	fabric_fini(&f);
	fabric_fini(&g);
}

static void test_tw_round_trip_lab(void)
{
	tw_round_trip("tests/fabrics/lab.topo");
}

static void test_tw_round_trip_twosw(void)
{
	tw_round_trip("tests/fabrics/twosw.topo");
}

static void test_tw_round_trip_ring(void)
{
	tw_round_trip("tests/fabrics/ring.topo");
}

static void test_tw_round_trip_fattree64(void)
{
	tw_round_trip("tests/fabrics/fattree64.topo");
}

/* The exact ibnetdiscover text for twosw (what ibnetdiscover prints for the
 * same fabric under ibsim, apart from its date line and node order). */
static void test_tw_ibnetdiscover_lines(void)
{
	struct fabric f;
	char *out;

	CU_ASSERT_EQUAL_FATAL(tw_load("tests/fabrics/twosw.topo", &f), 0);
	tw_assign_lids(&f, 1);
	out = tw_write(&f, TOPO_FORMAT_IBNETDISCOVER, NULL, NULL);
	CU_ASSERT_FATAL(out != NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "# Initiated from node 0002c90300a00110 port "
					   "0002c90300a00111\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(
	    out, "vendid=0x2c9\ndevid=0xc738\nsysimgguid=0x2c90300b00101\n"
		 "switchguid=0x2c90300b00101(2c90300b00101)\n"
		 "Switch\t8 \"S-0002c90300b00101\"\t\t# \"sw1\" base port 0 lid 6 lmc 0\n"
		 "[1]\t\"H-0002c90300a00110\"[1](2c90300a00111) \t\t# \"host1\" lid 1 4xSDR\n"
		 "[2]\t\"H-0002c90300a00120\"[1](2c90300a00121) \t\t# \"host2\" lid 2 4xSDR\n"
		 "[7]\t\"S-0002c90300b00102\"[7]\t\t# \"sw2\" lid 7 4xSDR\n"
		 "[8]\t\"S-0002c90300b00102\"[8]\t\t# \"sw2\" lid 7 4xSDR\n\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(
	    out, "caguid=0x2c90300a00120\n"
		 "Ca\t2 \"H-0002c90300a00120\"\t\t# \"host2\"\n"
		 "[1](2c90300a00121) \t\"S-0002c90300b00101\"[2]\t\t# lid 2 lmc 1 \"sw1\" lid 6 "
		 "4xSDR\n\n"));
	/* switches first, then CAs */
	CU_ASSERT_TRUE(strstr(out, "Switch\t8 \"S-0002c90300b00102\"") < strstr(out, "Ca\t"));
	free(out);
	fabric_fini(&f);
}

/* ---- Golden JSON and DOT for lab.topo ----------------------------------- */

static const char tw_lab_json[] =
    "{\n"
    "  \"nodes\": [\n"
    "    {\"guid\": \"0x0002c90300a00010\", \"type\": \"ca\", \"desc\": \"host1\", \"name\": "
    "\"host1\", \"ports\": 2, \"lid\": 1, \"system_guid\": \"0x0002c90300a00010\", "
    "\"vendor_id\": \"0x0002c9\", \"device_id\": \"0x1013\", \"lids\": [{\"port\": 1, "
    "\"guid\": \"0x0002c90300a00011\", \"lid\": 1, \"lmc\": 0}]},\n"
    "    {\"guid\": \"0x0002c90300a00020\", \"type\": \"ca\", \"desc\": \"host2\", \"name\": "
    "\"host2\", \"ports\": 2, \"lid\": 2, \"system_guid\": \"0x0002c90300a00020\", "
    "\"vendor_id\": \"0x0002c9\", \"device_id\": \"0x1013\", \"lids\": [{\"port\": 1, "
    "\"guid\": \"0x0002c90300a00021\", \"lid\": 2, \"lmc\": 0}]},\n"
    "    {\"guid\": \"0x0002c90300a00030\", \"type\": \"ca\", \"desc\": \"host3\", \"name\": "
    "\"host3\", \"ports\": 2, \"lid\": 3, \"system_guid\": \"0x0002c90300a00030\", "
    "\"vendor_id\": \"0x0002c9\", \"device_id\": \"0x1013\", \"lids\": [{\"port\": 1, "
    "\"guid\": \"0x0002c90300a00031\", \"lid\": 3, \"lmc\": 0}]},\n"
    "    {\"guid\": \"0x0002c90300b00001\", \"type\": \"switch\", \"desc\": \"lab-sw\", "
    "\"name\": \"lab-sw\", \"ports\": 8, \"lid\": 4, \"system_guid\": \"0x0002c90300b00001\", "
    "\"vendor_id\": \"0x0002c9\", \"device_id\": \"0xc738\", \"lids\": [{\"port\": 0, "
    "\"guid\": \"0x0002c90300b00001\", \"lid\": 4, \"lmc\": 0}]}\n"
    "  ],\n"
    "  \"links\": [\n"
    "    {\"a\": {\"guid\": \"0x0002c90300a00010\", \"port\": 1}, \"b\": {\"guid\": "
    "\"0x0002c90300b00001\", \"port\": 1}, \"width\": \"4x\", \"speed\": \"SDR\"},\n"
    "    {\"a\": {\"guid\": \"0x0002c90300a00020\", \"port\": 1}, \"b\": {\"guid\": "
    "\"0x0002c90300b00001\", \"port\": 2}, \"width\": \"4x\", \"speed\": \"SDR\"},\n"
    "    {\"a\": {\"guid\": \"0x0002c90300a00030\", \"port\": 1}, \"b\": {\"guid\": "
    "\"0x0002c90300b00001\", \"port\": 3}, \"width\": \"4x\", \"speed\": \"SDR\"}\n"
    "  ]\n"
    "}\n";

static const char tw_lab_dot[] =
    "graph fabric {\n"
    "\tnode [fontsize=10];\n"
    "\tedge [fontsize=8];\n"
    "\t\"0x0002c90300a00010\" [shape=ellipse, label=\"host1\\nlid 1\"];\n"
    "\t\"0x0002c90300a00020\" [shape=ellipse, label=\"host2\\nlid 2\"];\n"
    "\t\"0x0002c90300a00030\" [shape=ellipse, label=\"host3\\nlid 3\"];\n"
    "\t\"0x0002c90300b00001\" [shape=box, label=\"lab-sw\\nlid 4\"];\n"
    "\t\"0x0002c90300a00010\" -- \"0x0002c90300b00001\" [taillabel=\"1\", headlabel=\"1\"];\n"
    "\t\"0x0002c90300a00020\" -- \"0x0002c90300b00001\" [taillabel=\"1\", headlabel=\"2\"];\n"
    "\t\"0x0002c90300a00030\" -- \"0x0002c90300b00001\" [taillabel=\"1\", headlabel=\"3\"];\n"
    "}\n";

static void tw_golden(enum topo_format fmt, const char *want)
{
	struct fabric f;
	char *out;

	CU_ASSERT_EQUAL_FATAL(tw_load("tests/fabrics/lab.topo", &f), 0);
	tw_assign_lids(&f, 0);
	out = tw_write(&f, fmt, NULL, NULL);
	CU_ASSERT_FATAL(out != NULL);
	CU_ASSERT_STRING_EQUAL(out, want);
	if (strcmp(out, want))
		fprintf(stderr, "\n--- got:\n%s--- want:\n%s", out, want);
	free(out);
	fabric_fini(&f);
}

static void test_tw_golden_json(void)
{
	tw_golden(TOPO_FORMAT_JSON, tw_lab_json);
}

static void test_tw_golden_dot(void)
{
	tw_golden(TOPO_FORMAT_DOT, tw_lab_dot);
}

/* twosw: the two parallel cables are two edges / two links. */
static void test_tw_parallel_links(void)
{
	struct fabric f;
	char *dot, *json;

	CU_ASSERT_EQUAL_FATAL(tw_load("tests/fabrics/twosw.topo", &f), 0);
	dot = tw_write(&f, TOPO_FORMAT_DOT, NULL, NULL);
	json = tw_write(&f, TOPO_FORMAT_JSON, NULL, NULL);
	CU_ASSERT_FATAL(dot && json);
	CU_ASSERT_PTR_NOT_NULL(strstr(dot, "\"0x0002c90300b00101\" -- \"0x0002c90300b00102\" "
					   "[taillabel=\"7\", headlabel=\"7\"];\n"
					   "\t\"0x0002c90300b00101\" -- \"0x0002c90300b00102\" "
					   "[taillabel=\"8\", headlabel=\"8\"];\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(json,
				      "{\"a\": {\"guid\": \"0x0002c90300b00101\", \"port\": "
				      "8}, \"b\": {\"guid\": \"0x0002c90300b00102\", \"port\": "
				      "8}"));
	CU_ASSERT_PTR_NULL(strstr(json, "\"port\": 8}, \"b\": {\"guid\": \"0x0002c90300b00101\""));
	free(dot);
	free(json);
	fabric_fini(&f);
}

/* ---- Names, escaping, odd fabrics --------------------------------------- */

static void test_tw_names(void)
{
	static const struct topo_name map[] = {
	    {0x0002c90300b00001ULL, "core-1"},
	    {0x0002c90300a00020ULL, "compute-02"},
	    {0x1234ULL, "absent"},
	};
	struct topo_names names = {map, 3};
	struct fabric f, g;
	char *ibnd, *json, *dot;
	size_t len;
	int sw;

	CU_ASSERT_EQUAL_FATAL(tw_load("tests/fabrics/lab.topo", &f), 0);
	CU_ASSERT_STRING_EQUAL(topo_names_find(&names, 0x0002c90300a00020ULL), "compute-02");
	CU_ASSERT_PTR_NULL(topo_names_find(&names, 0x0002c90300a00010ULL));
	CU_ASSERT_PTR_NULL(topo_names_find(NULL, 1));
	ibnd = tw_write(&f, TOPO_FORMAT_IBNETDISCOVER, &names, &len);
	json = tw_write(&f, TOPO_FORMAT_JSON, &names, NULL);
	dot = tw_write(&f, TOPO_FORMAT_DOT, &names, NULL);
	CU_ASSERT_FATAL(ibnd && json && dot);
	CU_ASSERT_PTR_NOT_NULL(strstr(ibnd, "\"S-0002c90300b00001\"\t\t# \"core-1\" base port 0"));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(ibnd, "\"S-0002c90300b00001\"[1]\t\t# lid 0 lmc 0 \"core-1\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"desc\": \"lab-sw\", \"name\": \"core-1\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"desc\": \"host1\", \"name\": \"host1\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(dot, "label=\"compute-02\\nlid 0\""));
	/* printed with names, the description becomes the name */
	CU_ASSERT_EQUAL_FATAL(tw_parse(ibnd, len, &g), 0);
	sw = fabric_find(&g, 0x0002c90300b00001ULL);
	CU_ASSERT_FATAL(sw != FABRIC_NONE);
	CU_ASSERT_STRING_EQUAL(g.nodes[sw].desc, "core-1");
	free(ibnd);
	free(json);
	free(dot);
	fabric_fini(&f);
	fabric_fini(&g);
}

/* A description with quotes, a backslash and a control character. */
static void test_tw_escaping(void)
{
	static const char text[] = "switchguid=0x10\nSwitch 4 \"sw\"\n[1] \"h\"[1]\n"
				   "caguid=0x20\nCa 1 \"h\"\n[1] \"sw\"[1]\n";
	struct fabric f, g;
	char *ibnd, *json, *dot;
	size_t len;
	int sw;

	CU_ASSERT_EQUAL_FATAL(tw_parse(text, strlen(text), &f), 0);
	sw = fabric_find(&f, 0x10);
	CU_ASSERT_FATAL(sw != FABRIC_NONE);
	strcpy(f.nodes[sw].desc, "a \"b\" c\\d\te");
	ibnd = tw_write(&f, TOPO_FORMAT_IBNETDISCOVER, NULL, &len);
	json = tw_write(&f, TOPO_FORMAT_JSON, NULL, NULL);
	dot = tw_write(&f, TOPO_FORMAT_DOT, NULL, NULL);
	CU_ASSERT_FATAL(ibnd && json && dot);
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"desc\": \"a \\\"b\\\" c\\\\d\\u0009e\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(dot, "label=\"a \\\"b\\\" c\\\\d?e\\nlid 0\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(ibnd, "# \"a 'b' c\\d?e\" base port 0"));
	CU_ASSERT_EQUAL_FATAL(tw_parse(ibnd, len, &g), 0);
	CU_ASSERT_STRING_EQUAL(g.nodes[fabric_find(&g, 0x10)].desc, "a 'b' c\\d?e");
	free(ibnd);
	free(json);
	free(dot);
	fabric_fini(&f);
	fabric_fini(&g);
}

/* A router, a CA cabled back to back with another CA, a switch cable from
 * one of its ports to another, an empty description, a 1x DDR link. */
static void test_tw_odd_fabric(void)
{
	static const char text[] = "switchguid=0x10\nSwitch 8 \"sw\"\n"
				   "[1] \"rt\"[1]\n[2] \"sw\"[3]\n"
				   "rtguid=0x30\nRt 2 \"rt\"\n[1] \"sw\"[1]\n"
				   "caguid=0x40\nCa 2 \"a\"\n[1] \"b\"[2]\n"
				   "caguid=0x50\nCa 2 \"b\"\n";
	struct fabric f, g;
	char *ibnd, *dot, *json;
	size_t len;
	int a, sw;

	CU_ASSERT_EQUAL_FATAL(tw_parse(text, strlen(text), &f), 0);
	tw_assign_lids(&f, 1);
	a = fabric_find(&f, 0x40);
	sw = fabric_find(&f, 0x10);
	f.nodes[a].desc[0] = '\0';
	f.nodes[a].ports[1].width_active = 1;
	f.nodes[a].ports[1].speed_active = 2;
	ibnd = tw_write(&f, TOPO_FORMAT_IBNETDISCOVER, NULL, &len);
	dot = tw_write(&f, TOPO_FORMAT_DOT, NULL, NULL);
	json = tw_write(&f, TOPO_FORMAT_JSON, NULL, NULL);
	CU_ASSERT_FATAL(ibnd && dot && json);
	CU_ASSERT_PTR_NOT_NULL(strstr(ibnd, "rtguid=0x30\nRt\t2 \"R-0000000000000030\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(ibnd, "[2]\t\"S-0000000000000010\"[3]\t\t# \"sw\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(ibnd, "[3]\t\"S-0000000000000010\"[2]\t\t# \"sw\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(ibnd, "\"H-0000000000000050\"[2](52) \t\t# lid "));
	CU_ASSERT_PTR_NOT_NULL(strstr(ibnd, "1xDDR\n"));
	/* routers after CAs */
	CU_ASSERT_TRUE(strstr(ibnd, "Ca\t") < strstr(ibnd, "Rt\t"));
	CU_ASSERT_PTR_NOT_NULL(strstr(dot, "[shape=hexagon, label=\"rt\\nlid "));
	CU_ASSERT_PTR_NOT_NULL(strstr(dot, "[shape=ellipse, label=\"0x0000000000000040\\nlid "));
	/* the loop cable is one edge */
	CU_ASSERT_PTR_NOT_NULL(strstr(dot, "\"0x0000000000000010\" -- \"0x0000000000000010\" "
					   "[taillabel=\"2\", headlabel=\"3\"]"));
	CU_ASSERT_PTR_NULL(strstr(dot, "[taillabel=\"3\", headlabel=\"2\"]"));
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"type\": \"router\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"width\": \"1x\", \"speed\": \"DDR\""));
	CU_ASSERT_EQUAL_FATAL(tw_parse(ibnd, len, &g), 0);
	CU_ASSERT_TRUE(tw_same_fabric(&f, &g));
	CU_ASSERT_EQUAL(f.nodes[sw].ports[2].remote_port, 3);
	free(ibnd);
	free(dot);
	free(json);
	fabric_fini(&f);
	fabric_fini(&g);
}

static void test_tw_formats_and_empty(void)
{
	enum topo_format fmt = TOPO_FORMAT_IBNETDISCOVER;
	struct fabric f;
	char *out = (char *)1;
	size_t len = 1;

	CU_ASSERT_EQUAL(topo_format_from_name("json", &fmt), 0);
	CU_ASSERT_EQUAL(fmt, TOPO_FORMAT_JSON);
	CU_ASSERT_EQUAL(topo_format_from_name("dot", &fmt), 0);
	CU_ASSERT_EQUAL(fmt, TOPO_FORMAT_DOT);
	CU_ASSERT_EQUAL(topo_format_from_name("ibnetdiscover", &fmt), 0);
	CU_ASSERT_EQUAL(fmt, TOPO_FORMAT_IBNETDISCOVER);
	CU_ASSERT_EQUAL(topo_format_from_name("svg", &fmt), -EINVAL);
	CU_ASSERT_STRING_EQUAL(topo_format_name(TOPO_FORMAT_DOT), "dot");
	fabric_init(&f);
	CU_ASSERT_EQUAL(topo_write(&f, (enum topo_format)7, NULL, &out, &len), -EINVAL);
	CU_ASSERT_PTR_NULL(out);
	CU_ASSERT_EQUAL(len, 0);
	out = tw_write(&f, TOPO_FORMAT_JSON, NULL, NULL);
	CU_ASSERT_STRING_EQUAL(out, "{\n  \"nodes\": [\n  ],\n  \"links\": [\n  ]\n}\n");
	free(out);
	out = tw_write(&f, TOPO_FORMAT_IBNETDISCOVER, NULL, NULL);
	CU_ASSERT_STRING_EQUAL(out, "#\n# Topology file: generated by nanosm\n#\n\n");
	free(out);
	out = tw_write(&f, TOPO_FORMAT_DOT, NULL, NULL);
	CU_ASSERT_STRING_EQUAL(out,
			       "graph fabric {\n\tnode [fontsize=10];\n\tedge [fontsize=8];\n}\n");
	free(out);
	fabric_fini(&f);
}

void test_topo_write_register(void)
{
	CU_pSuite s = CU_add_suite("topo_write", NULL, NULL);

	CU_add_test(s, "round trip: lab.topo", test_tw_round_trip_lab);
	CU_add_test(s, "round trip: twosw.topo", test_tw_round_trip_twosw);
	CU_add_test(s, "round trip: ring.topo", test_tw_round_trip_ring);
	CU_add_test(s, "round trip: fattree64.topo", test_tw_round_trip_fattree64);
	CU_add_test(s, "ibnetdiscover lines", test_tw_ibnetdiscover_lines);
	CU_add_test(s, "golden JSON (lab)", test_tw_golden_json);
	CU_add_test(s, "golden DOT (lab)", test_tw_golden_dot);
	CU_add_test(s, "parallel links", test_tw_parallel_links);
	CU_add_test(s, "name map", test_tw_names);
	CU_add_test(s, "escaping", test_tw_escaping);
	CU_add_test(s, "router, back-to-back CAs, loop cable", test_tw_odd_fabric);
	CU_add_test(s, "format names, empty fabric", test_tw_formats_and_empty);
}
