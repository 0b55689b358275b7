/*
 * test_check.c - unit tests for the routing gate (routing/check.c): clean
 * fabrics routed by minhop pass; planted loops, black holes, bad ports and
 * the credit loop of a ring fail with the right counter and message.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/smp.h"
#include "routing/check.h"
#include "routing/route.h"
#include "routing/topo_file.h"
#include "tests/unit/route_test.h"
#include "tests/unit/unit.h"

/* Two switches joined by port 3, one host on port 1 of each. */
static const char check_twosw[] = "caguid=0x0002c90300a00010\n"
				  "Hca 1 \"host1\"\n"
				  "[1] \"sw1\"[1]\n"
				  "caguid=0x0002c90300a00020\n"
				  "Hca 1 \"host2\"\n"
				  "[1] \"sw2\"[1]\n"
				  "switchguid=0x0002c90300b00001\n"
				  "Switch 4 \"sw1\"\n"
				  "[1] \"host1\"[1]\n"
				  "[3] \"sw2\"[3]\n"
				  "switchguid=0x0002c90300b00002\n"
				  "Switch 4 \"sw2\"\n"
				  "[1] \"host2\"[1]\n"
				  "[3] \"sw1\"[3]\n";

/* The same, plus an island: sw3 with host3, cabled to nothing else. */
static const char check_island[] = "caguid=0x0002c90300a00030\n"
				   "Hca 1 \"host3\"\n"
				   "[1] \"sw3\"[1]\n"
				   "switchguid=0x0002c90300b00003\n"
				   "Switch 4 \"sw3\"\n"
				   "[1] \"host3\"[1]\n";

/* ---- Fabrics and tables ------------------------------------------------ */

static void check_load(const char *path, struct fabric *f)
{
	char err[256];

	fabric_init(f);
	CU_ASSERT_EQUAL_FATAL(topo_load(path, f, err, sizeof(err)), 0);
}

/* A ring of n switches (swI port 7 -> next switch's port 8), with hostI on
 * port 1 of swI when hosts is set; the cable from sw<cut> to the next is
 * left out (0: none). */
static void check_ring(struct fabric *f, int n, int cut, int hosts)
{
	char text[4096];
	size_t len = 0;

	for (int i = 1; i <= n && hosts; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"caguid=0x0002c90300a003%02x\nHca 1 \"host%d\"\n"
					"[1] \"sw%d\"[1]\n",
					i * 16, i, i);
	for (int i = 1; i <= n; i++) {
		len +=
		    (size_t)snprintf(text + len, sizeof(text) - len,
				     "switchguid=0x0002c90300b003%02x\nSwitch 8 \"sw%d\"\n", i, i);
		if (hosts)
			len += (size_t)snprintf(text + len, sizeof(text) - len,
						"[1] \"host%d\"[1]\n", i);
		if (i != cut)
			len += (size_t)snprintf(text + len, sizeof(text) - len, "[7] \"sw%d\"[8]\n",
						i % n + 1);
	}
	route_test_parse(text, f);
}

static void check_set_lid(struct fabric *f, const char *desc, unsigned port, uint16_t lid)
{
	f->nodes[route_test_node(f, desc)].ports[port].lid = lid;
}

static void check_minhop(const struct fabric *f, uint16_t max_lid, struct lft_set *out)
{
	struct route_opts opts = {.max_lid = max_lid};

	lft_set_init(out);
	CU_ASSERT_EQUAL_FATAL(route_engine_minhop.compute(f, &opts, out, NULL, NULL, 0), 0);
}

static uint8_t *check_entry(const struct lft_set *s, const struct fabric *f, const char *sw,
			    uint16_t lid)
{
	struct lft *t = lft_set_find(s, route_test_node(f, sw));

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	return &t->port[lid];
}

static int check_run(const struct fabric *f, const struct lft_set *s, struct route_check *res)
{
	struct route_check_opts opts = {0};

	return route_check_run(f, s, &opts, res);
}

/* twosw with sw1 = 1, sw2 = 2, host1 = 5, host2 = 7, routed by minhop. */
static void check_twosw_routed(struct fabric *f, struct lft_set *s)
{
	route_test_parse(check_twosw, f);
	check_set_lid(f, "sw1", 0, 1);
	check_set_lid(f, "sw2", 0, 2);
	check_set_lid(f, "host1", 1, 5);
	check_set_lid(f, "host2", 1, 7);
	check_minhop(f, 7, s);
}

static void check_done(struct fabric *f, struct lft_set *s)
{
	lft_set_fini(s);
	fabric_fini(f);
}

/* ---- Clean fabrics ----------------------------------------------------- */

static void test_check_lab(void)
{
	struct route_check res;
	struct fabric f;
	struct lft_set s;

	check_load("tests/fabrics/lab.topo", &f);
	check_minhop(&f, route_test_assign_lids(&f, 0), &s);
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), 0);
	CU_ASSERT_EQUAL(res.pairs, 15); /* 3 hosts + the switch to 4 LIDs, less the switch to itself */
	CU_ASSERT_EQUAL(res.unreachable + res.loops + res.bad_ports, 0);
	CU_ASSERT_EQUAL(res.credit_loop, 0);
	CU_ASSERT_EQUAL(res.max_hops, 0);
	CU_ASSERT_STRING_EQUAL(res.first, "");
	check_done(&f, &s);
}

static void test_check_fattree(void)
{
	struct route_check res;
	struct fabric f;
	struct lft_set s;

	check_load("tests/fabrics/fattree64.topo", &f);
	check_minhop(&f, route_test_assign_lids(&f, 0), &s);
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), 0);
	CU_ASSERT_EQUAL(res.pairs, 76 * 76 - 12 * 12); /* switches need not reach switch LIDs */ /* 64 hosts + 12 switches, 76 LIDs */
	CU_ASSERT_EQUAL(res.unreachable + res.loops + res.bad_ports, 0);
	CU_ASSERT_EQUAL(res.credit_loop, 0);
	CU_ASSERT_EQUAL(res.max_hops, 2);
	CU_ASSERT_STRING_EQUAL(res.first, "");
	/* spine1 reaches spine2's LID down through a leaf and up again: a
	 * switch-to-switch route, kept out of the CDG */
	CU_ASSERT_TRUE(*check_entry(&s, &f, "spine1", 74) <= 16);
	check_done(&f, &s);
}

static void test_check_empty(void)
{
	struct route_check res;
	struct fabric f;
	struct lft_set s;

	fabric_init(&f);
	lft_set_init(&s);
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), 0);
	CU_ASSERT_EQUAL(res.pairs, 0);
	fabric_fini(&f);
}

/* An island's LIDs cannot be reached from the rest by any table: those
 * pairs are not counted, and the island's own pairs are. */
static void test_check_islands(void)
{
	char text[sizeof(check_twosw) + sizeof(check_island)];
	struct route_check res;
	struct fabric f;
	struct lft_set s;

	snprintf(text, sizeof(text), "%s%s", check_twosw, check_island);
	route_test_parse(text, &f);
	check_minhop(&f, route_test_assign_lids(&f, 0), &s);
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), 0);
	CU_ASSERT_EQUAL(res.pairs, (4 * 4 - 2 * 2) + (2 * 2 - 1));
	CU_ASSERT_EQUAL(res.max_hops, 1);
	check_done(&f, &s);
}

/* ---- Forwarding loops and black holes ---------------------------------- */

static void test_check_loop(void)
{
	struct route_check res;
	struct fabric f;
	struct lft_set s;

	check_twosw_routed(&f, &s);
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), 0);
	CU_ASSERT_EQUAL(res.pairs, 16 - 2 * 2);
	CU_ASSERT_EQUAL(res.max_hops, 1);
	CU_ASSERT_EQUAL(*check_entry(&s, &f, "sw1", 7), 3);
	*check_entry(&s, &f, "sw2", 7) = 3; /* back to sw1 */
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.loops, 4); /* every source to LID 7 */
	CU_ASSERT_EQUAL(res.unreachable, 0);
	CU_ASSERT_EQUAL(res.bad_ports, 0);
	CU_ASSERT_EQUAL(res.credit_loop, 0); /* a loop is not also a credit loop */
	CU_ASSERT_STRING_EQUAL(res.first, "0x0002c90300a00011/1 (host1) -> LID 7: loop at "
					  "0x0002c90300b00002 (sw2) port 3");
	check_done(&f, &s);
}

static void test_check_black_hole(void)
{
	struct route_check res;
	struct fabric f;
	struct lft_set s;

	check_load("tests/fabrics/fattree64.topo", &f);
	check_minhop(&f, route_test_assign_lids(&f, 0), &s);
	CU_ASSERT_EQUAL(f.nodes[route_test_node(&f, "host64")].ports[1].lid, 64);
	*check_entry(&s, &f, "leaf8", 64) = LFT_DROP;
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.unreachable, 76); /* every source's way ends at leaf8 */
	CU_ASSERT_EQUAL(res.loops + res.bad_ports, 0);
	CU_ASSERT_STRING_EQUAL(res.first, "0x0002c90300001011/1 (host01) -> LID 64: dropped at "
					  "0x0002c90300f00008 (leaf8)");
	check_done(&f, &s);
}

/* Each kind of wrong hop at lab-sw for host3's LID 3: all 4 sources fail. */
static void test_check_unreachable_kinds(void)
{
	static const struct {
		uint8_t port;
		const char *why;
	} cases[] = {
	    {5, "0x0002c90300b00001 (lab-sw) port 5 is not cabled"},
	    {9, "0x0002c90300b00001 (lab-sw) sends it to port 9 of 8"},
	    {0, "delivered to port 0 of 0x0002c90300b00001 (lab-sw), which does not own it"},
	    {2, "delivered to 0x0002c90300a00020 (host2) port 1 (LID 2), not to LID 3's owner"},
	    {LFT_DROP, "dropped at 0x0002c90300b00001 (lab-sw)"},
	};
	struct route_check res;
	struct fabric f;
	struct lft_set s;
	char want[512];

	check_load("tests/fabrics/lab.topo", &f);
	check_minhop(&f, route_test_assign_lids(&f, 0), &s);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		*check_entry(&s, &f, "lab-sw", 3) = cases[i].port;
		CU_ASSERT_EQUAL(check_run(&f, &s, &res), -EINVAL);
		CU_ASSERT_EQUAL(res.unreachable, 4);
		CU_ASSERT_EQUAL(res.loops + res.bad_ports, 0);
		snprintf(want, sizeof(want), "0x0002c90300a00011/1 (host1) -> LID 3: %s",
			 cases[i].why);
		CU_ASSERT_STRING_EQUAL(res.first, want);
	}
	check_done(&f, &s);
}

/* host3 given host2's LID after routing: LID 2 has two owners, and the
 * switch can deliver it to only one of them. */
static void test_check_duplicate_lid(void)
{
	struct route_check res;
	struct fabric f;
	struct lft_set s;

	check_load("tests/fabrics/lab.topo", &f);
	check_minhop(&f, route_test_assign_lids(&f, 0), &s);
	check_set_lid(&f, "host3", 1, 2);
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.unreachable, 4); /* every source to host3's LID 2 */
	CU_ASSERT_EQUAL(res.pairs, 4 * 4 - 1);
	CU_ASSERT_STRING_EQUAL(res.first, "0x0002c90300a00011/1 (host1) -> LID 2: delivered to "
					  "0x0002c90300a00020 (host2) port 1, which has LID 2 too");
	check_done(&f, &s);
}

static void test_check_table_top(void)
{
	struct lft_set none = {.tables = NULL, .n = 0};
	struct route_check res;
	struct fabric f;
	struct lft_set s;

	check_load("tests/fabrics/lab.topo", &f);
	check_minhop(&f, route_test_assign_lids(&f, 0), &s);
	s.tables[0].top = 2; /* LIDs 3 (host3) and 4 (lab-sw) above it */
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.unreachable, 4 + 3); /* LID 3 from all, LID 4 from the hosts */
	CU_ASSERT_STRING_EQUAL(res.first, "0x0002c90300a00011/1 (host1) -> LID 3: above the "
					  "table top (2) of 0x0002c90300b00001 (lab-sw)");
	CU_ASSERT_EQUAL(check_run(&f, &none, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.unreachable, 15);
	CU_ASSERT_STRING_EQUAL(res.first, "0x0002c90300a00011/1 (host1) -> LID 1: no LFT for "
					  "0x0002c90300b00001 (lab-sw)");
	check_done(&f, &s);
}

/* ---- Ports that are down or absent ------------------------------------- */

static void test_check_down_port(void)
{
	struct route_check_opts allow = {.allow_down_ports = 1};
	struct route_check res;
	struct fabric f;
	struct lft_set s;
	int sw1;

	check_twosw_routed(&f, &s);
	sw1 = route_test_node(&f, "sw1");
	f.nodes[sw1].ports[3].state = PORT_STATE_DOWN;
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.bad_ports, 6); /* each way: host to 2 LIDs, switch to the host */
	CU_ASSERT_EQUAL(res.unreachable + res.loops, 0);
	CU_ASSERT_STRING_EQUAL(res.first, "0x0002c90300a00011/1 (host1) -> LID 2: routed over "
					  "0x0002c90300b00001 (sw1) port 3, which is DOWN");
	CU_ASSERT_EQUAL(route_check_run(&f, &s, &allow, &res), 0);
	CU_ASSERT_EQUAL(res.bad_ports, 0);
	/* an absent port is bad even when DOWN is allowed */
	f.nodes[sw1].ports[3].present = 0;
	CU_ASSERT_EQUAL(route_check_run(&f, &s, &allow, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.bad_ports, 6);
	CU_ASSERT_STRING_EQUAL(res.first, "0x0002c90300a00011/1 (host1) -> LID 2: routed over "
					  "0x0002c90300b00001 (sw1) port 3, which is not present");
	check_done(&f, &s);
}

/* A host's own port DOWN: everything it sends and everything sent to it. */
static void test_check_down_host(void)
{
	struct route_check res;
	struct fabric f;
	struct lft_set s;

	check_twosw_routed(&f, &s);
	f.nodes[route_test_node(&f, "host2")].ports[1].state = PORT_STATE_DOWN;
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.bad_ports, 4 + 3); /* host2 to 4 LIDs, 3 others to LID 7 */
	CU_ASSERT_EQUAL(res.unreachable + res.loops, 0);
	CU_ASSERT_STRING_EQUAL(res.first, "0x0002c90300a00011/1 (host1) -> LID 7: routed over "
					  "0x0002c90300a00020 (host2) port 1, which is DOWN");
	check_done(&f, &s);
}

/* State 0 (unknown, a fabric read without states) is not down. */
static void test_check_unknown_state(void)
{
	struct route_check res;
	struct fabric f;
	struct lft_set s;

	check_twosw_routed(&f, &s);
	for (size_t i = 0; i < f.n_nodes; i++)
		for (unsigned p = 0; p <= f.nodes[i].num_ports; p++)
			f.nodes[i].ports[p].state = PORT_STATE_NOP;
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), 0);
	CU_ASSERT_EQUAL(res.bad_ports, 0);
	check_done(&f, &s);
}

/* ---- LMC ------------------------------------------------------------ */

static void test_check_lmc(void)
{
	struct route_check res;
	struct fabric f;
	struct lft_set s;

	route_test_parse(check_twosw, &f);
	check_set_lid(&f, "sw1", 0, 1);
	check_set_lid(&f, "sw2", 0, 2);
	check_set_lid(&f, "host1", 1, 4);
	check_set_lid(&f, "host2", 1, 8);
	f.nodes[route_test_node(&f, "host2")].ports[1].lmc = 2; /* LIDs 8..11 */
	check_minhop(&f, 11, &s);
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), 0);
	CU_ASSERT_EQUAL(res.pairs, 4 * 7 - 2 * 2);
	*check_entry(&s, &f, "sw1", 11) = LFT_DROP;
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.unreachable, 2); /* host1 and sw1 */
	CU_ASSERT_STRING_EQUAL(res.first, "0x0002c90300a00011/1 (host1) -> LID 11: dropped at "
					  "0x0002c90300b00001 (sw1)");
	*check_entry(&s, &f, "sw1", 11) = 3;
	*check_entry(&s, &f, "sw2", 10) = 0;
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.unreachable, 4); /* every source to LID 10 */
	CU_ASSERT_STRING_EQUAL(res.first,
			       "0x0002c90300a00011/1 (host1) -> LID 10: delivered to "
			       "port 0 of 0x0002c90300b00002 (sw2), which does not own it");
	check_done(&f, &s);
}

/* ---- Credit loops ------------------------------------------------------ */

/* Does some host's LID on VL vl go out of a's port pa and then b's port pb? */
static int check_depends(const struct fabric *f, const struct lft_set *s, unsigned vl, int a,
			 unsigned pa, int b, unsigned pb)
{
	const struct lft *ta = lft_set_find_const(s, a), *tb = lft_set_find_const(s, b);

	if (f->nodes[a].ports[pa].remote_node != b)
		return 0;
	for (size_t i = 0; i < f->n_nodes; i++) {
		uint16_t lid = f->nodes[i].ports[1].lid;

		if (!fabric_is_switch(&f->nodes[i]) && lid && lid <= ta->top && lid <= tb->top &&
		    ta->port[lid] == pa && tb->port[lid] == pb && lft_set_sl(s, lid) == vl)
			return 1;
	}
	return 0;
}

/* Parse "<prefix>0x.. (sw1)/7 -> ... -> back" and check that each
 * channel depends on the next, the last on the first, on VL vl. */
static void check_cycle_is_real_on(const struct fabric *f, const struct lft_set *s, unsigned vl,
				   const char *prefix, const char *text)
{
	const char *at = text + strlen(prefix);
	int node[64], n = 0;
	unsigned port[64];

	CU_ASSERT_EQUAL_FATAL(strncmp(text, prefix, strlen(prefix)), 0);
	while (strncmp(at, "back", 4) && n < 64) {
		uint64_t guid;
		int used = 0;

		CU_ASSERT_EQUAL_FATAL(
		    sscanf(at, "0x%" SCNx64 " (%*[^)])/%u -> %n", &guid, &port[n], &used), 2);
		CU_ASSERT_TRUE_FATAL(used > 0);
		node[n] = fabric_find(f, guid);
		CU_ASSERT_NOT_EQUAL_FATAL(node[n], FABRIC_NONE);
		n++;
		at += used;
	}
	CU_ASSERT_STRING_EQUAL(at, "back");
	CU_ASSERT_TRUE(n >= 2);
	for (int i = 0; i < n; i++)
		CU_ASSERT_TRUE(check_depends(f, s, vl, node[i], port[i], node[(i + 1) % n],
					     port[(i + 1) % n]));
}

/* The same for tables without SLs: "credit loop: ...", all on VL 0. */
static void check_cycle_is_real(const struct fabric *f, const struct lft_set *s, const char *text)
{
	check_cycle_is_real_on(f, s, 0, "credit loop: ", text);
}

/* Minhop on a ring of five: each switch sends the LIDs two hops away
 * through its neighbour on the one shortest way, so every turn round the
 * ring is taken and the channels form a cycle both ways. */
static void test_check_credit_loop(void)
{
	struct route_check_opts skip = {.skip_credit_loops = 1};
	struct route_check res;
	struct fabric f;
	struct lft_set s;

	check_ring(&f, 5, 0, 1);
	check_minhop(&f, route_test_assign_lids(&f, 0), &s);
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.credit_loop, 1);
	CU_ASSERT_EQUAL(res.unreachable + res.loops + res.bad_ports, 0);
	CU_ASSERT_EQUAL(res.pairs, 10 * 10 - 5 * 5);
	CU_ASSERT_EQUAL(res.max_hops, 2);
	check_cycle_is_real(&f, &s, res.first);
	CU_ASSERT_EQUAL(route_check_run(&f, &s, &skip, &res), 0);
	CU_ASSERT_EQUAL(res.credit_loop, 0);
	check_done(&f, &s);
}

/* The same ring routed as if the sw5-sw1 cable were cut: a line, so the
 * routes are up/down-like and no channel waits on itself. */
static void test_check_ring_as_line(void)
{
	struct route_check res;
	struct fabric ring, line;
	struct lft_set s;
	uint16_t max;

	check_ring(&ring, 5, 0, 1);
	check_ring(&line, 5, 5, 1);
	max = route_test_assign_lids(&ring, 0);
	CU_ASSERT_EQUAL(route_test_assign_lids(&line, 0), max);
	check_minhop(&line, max, &s);
	CU_ASSERT_EQUAL(check_run(&line, &s, &res), 0);
	CU_ASSERT_EQUAL(res.max_hops, 4);
	CU_ASSERT_EQUAL(check_run(&ring, &s, &res), 0);
	CU_ASSERT_EQUAL(res.credit_loop, 0);
	CU_ASSERT_EQUAL(res.pairs, 10 * 10 - 5 * 5);
	CU_ASSERT_EQUAL(res.max_hops, 4);
	fabric_fini(&ring);
	check_done(&line, &s);
}

/* Switch-to-switch routes stay out of the CDG: a ring of five switches
 * alone has every turn round the ring, for switch LIDs only. */
static void test_check_ring_switches_only(void)
{
	struct route_check res;
	struct fabric f;
	struct lft_set s;

	check_ring(&f, 5, 0, 0);
	check_minhop(&f, route_test_assign_lids(&f, 0), &s);
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), 0);
	CU_ASSERT_EQUAL(res.credit_loop, 0);
	CU_ASSERT_EQUAL(res.pairs, 0); /* no CA sources: nothing must be reached */
	check_done(&f, &s);
}

/* ... but a host's traffic to a switch LID counts: hosts without LIDs
 * still send, and their routes to the switches close the ring. */
static void test_check_ring_hosts_to_switches(void)
{
	struct route_check res;
	struct fabric f;
	struct lft_set s;
	uint16_t max;

	check_ring(&f, 5, 0, 1);
	max = route_test_assign_lids(&f, 0);
	for (int i = 1; i <= 5; i++) {
		char name[16];

		snprintf(name, sizeof(name), "host%d", i);
		check_set_lid(&f, name, 1, 0);
	}
	check_minhop(&f, max, &s);
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.credit_loop, 1);
	CU_ASSERT_EQUAL(res.pairs, 5 * 5); /* the hosts to the 5 switch LIDs */
	CU_ASSERT_EQUAL(strncmp(res.first, "credit loop: ", 13), 0);
	check_done(&f, &s);
}

/* ---- Virtual lanes ----------------------------------------------------- */

/* Put every LID switch desc delivers (its own, its hosts') on SL sl. */
static void check_sl_of_switch(const struct fabric *f, struct lft_set *s, const char *desc,
			       uint8_t sl)
{
	int sw = route_test_node(f, desc);

	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *n = &f->nodes[i];

		for (unsigned p = 0; p <= n->num_ports; p++) {
			uint16_t lid = n->ports[p].lid;

			if (!lid || (fabric_is_switch(n) && p) ||
			    route_test_attach_switch(f, (int)i, p) != sw)
				continue;
			CU_ASSERT_TRUE_FATAL(lid <= s->sl_top);
			s->sl[lid] = sl;
		}
	}
}

static void check_all_vl_caps(struct fabric *f, uint8_t vl_cap)
{
	for (size_t i = 0; i < f->n_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i].num_ports; p++)
			f->nodes[i].ports[p].vl_cap = vl_cap;
}

/* The lowest LID switch desc delivers. */
static uint16_t check_first_lid_of(const struct fabric *f, const char *desc)
{
	int sw = route_test_node(f, desc);
	uint16_t best = 0;

	for (size_t i = 0; i < f->n_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i].num_ports; p++) {
			uint16_t lid = f->nodes[i].ports[p].lid;

			if (lid && (!fabric_is_switch(&f->nodes[i]) || !p) &&
			    route_test_attach_switch(f, (int)i, p) == sw && (!best || lid < best))
				best = lid;
		}
	return best;
}

/* A ring of five with hosts (cut as check_ring), routed by minhop, with
 * SLs (all 0). */
static void check_ring_with_sls(struct fabric *f, struct lft_set *s, int cut)
{
	uint16_t max;

	check_ring(f, 5, cut, 1);
	max = route_test_assign_lids(f, 0);
	check_minhop(f, max, s);
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc_sl(s, max), 0);
}

/* The ring of five's credit loop with SLs: all on VL 0, refused and named
 * with its VL; sw1's LIDs moved to VL 1, neither VL has the whole cycle
 * (each of its turns comes from one destination switch) and the gate
 * passes; all on VL 1, refused on VL 1. */
static void test_check_vl_split_cycle(void)
{
	struct route_check res;
	struct fabric f;
	struct lft_set s;

	check_ring_with_sls(&f, &s, 0);
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.credit_loop, 1);
	CU_ASSERT_EQUAL(res.credit_loop_vl, 0);
	CU_ASSERT_EQUAL(res.n_vls, 1);
	check_cycle_is_real_on(&f, &s, 0, "credit loop on VL 0: ", res.first);
	check_sl_of_switch(&f, &s, "sw1", 1);
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), 0);
	CU_ASSERT_EQUAL(res.credit_loop, 0);
	CU_ASSERT_EQUAL(res.n_vls, 2);
	CU_ASSERT_STRING_EQUAL(res.first, "");
	for (int i = 2; i <= 5; i++) {
		char name[16];

		snprintf(name, sizeof(name), "sw%d", i);
		check_sl_of_switch(&f, &s, name, 1);
	}
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.credit_loop, 1);
	CU_ASSERT_EQUAL(res.credit_loop_vl, 1);
	check_cycle_is_real_on(&f, &s, 1, "credit loop on VL 1: ", res.first);
	check_done(&f, &s);
}

/* The gate refuses s for the 2 LIDs of sw3 (the lowest is lid), saying
 * want (a format with %u for lid). */
static void check_vl_refused(const struct fabric *f, const struct lft_set *s, uint16_t lid,
			     const char *want)
{
	struct route_check res;
	char text[256];

	CU_ASSERT_EQUAL(check_run(f, s, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.vl_missing, 2); /* host3's LID and sw3's */
	CU_ASSERT_EQUAL(res.credit_loop, 0);
	snprintf(text, sizeof(text), want, lid);
	CU_ASSERT_STRING_EQUAL(res.first, text);
}

/* The ring routed as a line (no credit loop), its ports offering VL0-1:
 * SL 1 passes, SL 2 is refused at the first cable without it (a host's);
 * VL0-7 everywhere but one switch port with VL0 only: SL 1 through it is
 * refused naming that end of the cable; SL 15 is refused whatever the
 * ports offer; an unknown VLCap counts as VL0-7. */
static void test_check_vl_cap(void)
{
	struct route_check res;
	struct fabric f;
	struct lft_set s;
	uint16_t lid;

	check_ring_with_sls(&f, &s, 5); /* a line: no credit loop */
	lid = check_first_lid_of(&f, "sw3");

	check_all_vl_caps(&f, 2);
	check_sl_of_switch(&f, &s, "sw3", 1);
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), 0);
	CU_ASSERT_EQUAL(res.n_vls, 2);
	check_sl_of_switch(&f, &s, "sw3", 2);
	check_vl_refused(
	    &f, &s, lid,
	    "LID %u on SL 2: 0x0002c90300a00310 (host1) port 1 offers VL0-1 (VLCap 2), "
	    "not VL2");
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.n_vls, 3);

	check_all_vl_caps(&f, 4);
	check_sl_of_switch(&f, &s, "sw3", 1);
	f.nodes[route_test_node(&f, "sw3")].ports[8].vl_cap = 1; /* sw2 port 7's far end */
	check_vl_refused(
	    &f, &s, lid,
	    "LID %u on SL 1: 0x0002c90300b00303 (sw3) port 8 offers VL0 only (VLCap 1), "
	    "not VL1");

	/* VL0-14: SL 14 passes, SL 15 (VL15, management) never does */
	check_all_vl_caps(&f, 5);
	check_sl_of_switch(&f, &s, "sw3", 14);
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), 0);
	CU_ASSERT_EQUAL(res.n_vls, 15);
	check_sl_of_switch(&f, &s, "sw3", 15);
	check_vl_refused(&f, &s, lid,
			 "LID %u on SL 15: SL 15 maps to VL15, which carries management only");
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), -EINVAL);
	CU_ASSERT_EQUAL(res.n_vls, 1);

	check_all_vl_caps(&f, 0);
	check_sl_of_switch(&f, &s, "sw3", 7);
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), 0);
	check_sl_of_switch(&f, &s, "sw3", 8);
	CU_ASSERT_EQUAL(check_run(&f, &s, &res), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(res.first, "offers VL0-7 (VLCap not known: 8 assumed), not VL8"));
	check_done(&f, &s);
}

/* More switches than a 16-bit hop code can name: refused, and said so
 * (not walked with codes that would wrap). */
static void test_check_too_many_switches(void)
{
	struct fabric f;
	struct lft_set s;
	struct route_check res;

	fabric_init(&f);
	for (int i = 0; i < 65521; i++)
		route_test_add_sw(&f, 1);
	lft_set_init(&s);
	CU_ASSERT_EQUAL(route_check_run(&f, &s, NULL, &res), -E2BIG);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(res.first, "too many switches to check: 65521 (at most 65520)"));
	fabric_fini(&f);
}

void test_check_register(void)
{
	CU_pSuite s = CU_add_suite("check", NULL, NULL);

	CU_add_test(s, "lab.topo routed by minhop passes", test_check_lab);
	CU_add_test(s, "fattree64.topo routed by minhop passes", test_check_fattree);
	CU_add_test(s, "empty fabric passes", test_check_empty);
	CU_add_test(s, "islands: unroutable pairs not counted", test_check_islands);
	CU_add_test(s, "forwarding loop: counted, exact message", test_check_loop);
	CU_add_test(s, "black hole on a leaf", test_check_black_hole);
	CU_add_test(s, "unlinked, beyond NumPorts, port 0, wrong CA, drop",
		    test_check_unreachable_kinds);
	CU_add_test(s, "duplicate LID: one owner is not reached", test_check_duplicate_lid);
	CU_add_test(s, "LID above the table top, no table", test_check_table_top);
	CU_add_test(s, "route over a DOWN / absent switch port", test_check_down_port);
	CU_add_test(s, "a host port DOWN", test_check_down_host);
	CU_add_test(s, "port state 0 is not down", test_check_unknown_state);
	CU_add_test(s, "LMC: every LID of the range is checked", test_check_lmc);
	CU_add_test(s, "ring of five under minhop: a real credit loop", test_check_credit_loop);
	CU_add_test(s, "ring routed as a line: no credit loop", test_check_ring_as_line);
	CU_add_test(s, "ring of switches alone: switch-to-switch not in the CDG",
		    test_check_ring_switches_only);
	CU_add_test(s, "ring with hosts sending to switch LIDs: credit loop",
		    test_check_ring_hosts_to_switches);
	CU_add_test(s, "VLs: a cycle split over two VLs passes, on one VL it is named",
		    test_check_vl_split_cycle);
	CU_add_test(s, "VLs: a route on a VL a cable lacks, or on VL15, is refused",
		    test_check_vl_cap);
	CU_add_test(s, "more than 65520 switches: refused, said so", test_check_too_many_switches);
}
