/*
 * test_verify.c - unit tests for nanosm-verify's pure half (routing/verify.c):
 * LID list parsing, the LID owner index, the LFT walk (delivery and every
 * kind of fault), judging walk against probe, and the reports (ibtracert
 * lines, fault text, summary, JSON).
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/policy.h"
#include "mad/smp.h"
#include "routing/topo_file.h"
#include "routing/verify.h"
#include "routing/verify_expect.h"
#include "sm/daemon/topo_save.h"
#include "tests/unit/unit.h"

void test_verify_register(void); /* also in unit.h once registered there */

/* host1 (2 ports, port 2 empty) and host3 on sw1, host2 on sw2; sw1 port 7
 * to sw2 port 7.  Nodes in file order: host1 0, host2 1, host3 2, sw1 3,
 * sw2 4.  LIDs: host1 1, host2 2, host3 3, sw1 4, sw2 5. */
static const char tv_text[] = "caguid=0x0002c90300a00010\n"
			      "Hca 2 \"host1\"\n"
			      "[1] \"sw1\"[1]\n"
			      "caguid=0x0002c90300a00020\n"
			      "Hca 1 \"host2\"\n"
			      "[1] \"sw2\"[1]\n"
			      "caguid=0x0002c90300a00030\n"
			      "Hca 1 \"host3\"\n"
			      "[1] \"sw1\"[2]\n"
			      "switchguid=0x0002c90300b00001\n"
			      "Switch 8 \"sw1\"\n"
			      "[1] \"host1\"[1]\n"
			      "[2] \"host3\"[1]\n"
			      "[7] \"sw2\"[7]\n"
			      "switchguid=0x0002c90300b00002\n"
			      "Switch 8 \"sw2\"\n"
			      "[1] \"host2\"[1]\n"
			      "[7] \"sw1\"[7]\n";

enum { H1, H2, H3, SW1, SW2 };

struct tv {
	struct fabric f;
	struct lft_set lfts;
	struct verify_index ix;
};

/* The fabric, every linked port ACTIVE, LIDs as above, minimal LFTs. */
static void tv_setup(struct tv *t)
{
	static const uint8_t sw1[] = {LFT_DROP, 1, 7, 2, 0, 7};
	static const uint8_t sw2[] = {LFT_DROP, 7, 1, 7, 7, 0};
	static const uint16_t lids[] = {[H1] = 1, [H2] = 2, [H3] = 3, [SW1] = 4, [SW2] = 5};
	char err[256];

	fabric_init(&t->f);
	lft_set_init(&t->lfts);
	CU_ASSERT_EQUAL_FATAL(topo_parse(tv_text, strlen(tv_text), "tv", &t->f, err, sizeof(err)),
			      0);
	for (size_t i = 0; i < t->f.n_nodes; i++) {
		struct fabric_node *n = &t->f.nodes[i];

		for (unsigned p = 0; p <= n->num_ports; p++)
			if (n->ports[p].remote_node != FABRIC_NONE)
				n->ports[p].state = PORT_STATE_ACTIVE;
		n->ports[fabric_is_switch(n) ? 0 : 1].lid = lids[i];
	}
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc(&t->lfts, &t->f, 5), 0);
	memcpy(lft_set_find(&t->lfts, SW1)->port, sw1, sizeof(sw1));
	memcpy(lft_set_find(&t->lfts, SW2)->port, sw2, sizeof(sw2));
	CU_ASSERT_EQUAL_FATAL(verify_index_init(&t->ix, &t->f, &t->lfts), 0);
}

static void tv_teardown(struct tv *t)
{
	verify_index_fini(&t->ix);
	lft_set_fini(&t->lfts);
	fabric_fini(&t->f);
}

static uint8_t *tv_entry(struct tv *t, int sw, uint16_t lid)
{
	return &lft_set_find(&t->lfts, sw)->port[lid];
}

/* ---- LID lists ------------------------------------------------------------ */

static void test_verify_lids_parse(void)
{
	struct verify_lids l;
	char err[128];
	static const uint16_t want[] = {1, 2, 3, 4, 5, 6, 16, 0xBFFF};

	verify_lids_init(&l);
	CU_ASSERT_EQUAL(verify_lids_parse("6,4-5,0x10,1-3,2,49151", &l, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(l.n, sizeof(want) / sizeof(want[0]));
	CU_ASSERT_EQUAL(memcmp(l.lid, want, sizeof(want)), 0);
	verify_lids_fini(&l);
	CU_ASSERT_EQUAL(l.n, 0);
}

static void tv_lids_bad(const char *text, const char *msg)
{
	struct verify_lids l;
	char err[128] = "";

	verify_lids_init(&l);
	CU_ASSERT_EQUAL(verify_lids_parse(text, &l, err, sizeof(err)), -EINVAL);
	if (strcmp(err, msg) != 0)
		fprintf(stderr, "\n'%s': got '%s', want '%s'\n", text, err, msg);
	CU_ASSERT_STRING_EQUAL(err, msg);
	verify_lids_fini(&l);
}

static void test_verify_lids_errors(void)
{
	tv_lids_bad("", "lid list: empty");
	tv_lids_bad("0", "lid list: '0' is not a unicast LID (1..0xBFFF)");
	tv_lids_bad("0xC000", "lid list: '0xC000' is not a unicast LID (1..0xBFFF)");
	tv_lids_bad("5-3", "lid list: range 5-3 runs backwards");
	tv_lids_bad("1,,2", "lid list: expected a LID at ',2'");
	tv_lids_bad("1-", "lid list: expected a LID at ''");
	tv_lids_bad("x", "lid list: expected a LID at 'x'");
	tv_lids_bad("1;2", "lid list: unexpected ';' at ';2'");
	tv_lids_bad("-1", "lid list: expected a LID at '-1'");
}

/* ---- Owners ---------------------------------------------------------------- */

static void test_verify_owners(void)
{
	struct tv t;
	struct verify_lids l;
	uint8_t port = 99;

	tv_setup(&t);
	CU_ASSERT_EQUAL(verify_owner(&t.ix, 1, &port), H1);
	CU_ASSERT_EQUAL(port, 1);
	CU_ASSERT_EQUAL(verify_owner(&t.ix, 5, &port), SW2);
	CU_ASSERT_EQUAL(port, 0);
	CU_ASSERT_EQUAL(verify_owner(&t.ix, 6, &port), FABRIC_NONE);
	CU_ASSERT_EQUAL(verify_owner(&t.ix, 0, &port), FABRIC_NONE);
	verify_lids_init(&l);
	CU_ASSERT_EQUAL(verify_index_lids(&t.ix, &l), 0);
	CU_ASSERT_EQUAL(l.n, 5);
	CU_ASSERT_EQUAL(t.ix.duplicates, 0);
	verify_lids_fini(&l);
	tv_teardown(&t);
}

static void test_verify_owners_lmc_and_duplicates(void)
{
	struct tv t;
	uint8_t port;

	tv_setup(&t);
	verify_index_fini(&t.ix);
	t.f.nodes[H2].ports[1].lid = 8;
	t.f.nodes[H2].ports[1].lmc = 2; /* 8..11 */
	t.f.nodes[H3].ports[1].lid = 4; /* sw1 (node 3) comes later: host3 wins */
	CU_ASSERT_EQUAL_FATAL(verify_index_init(&t.ix, &t.f, &t.lfts), 0);
	CU_ASSERT_EQUAL(verify_owner(&t.ix, 11, &port), H2);
	CU_ASSERT_EQUAL(verify_owner(&t.ix, 12, &port), FABRIC_NONE);
	CU_ASSERT_EQUAL(verify_owner(&t.ix, 4, &port), H3);
	CU_ASSERT_EQUAL(t.ix.duplicates, 1);
	CU_ASSERT_EQUAL(t.ix.first_duplicate, 4);
	tv_teardown(&t);
}

/* ---- The walk -------------------------------------------------------------- */

static void test_verify_walk_ok(void)
{
	struct tv t;
	struct verify_path p;

	tv_setup(&t);
	verify_walk(&t.ix, H1, 1, 2, &p);
	CU_ASSERT_EQUAL(p.fault, VERIFY_OK);
	CU_ASSERT_EQUAL_FATAL(p.n_hops, 3);
	CU_ASSERT_EQUAL(p.hop[0].node, SW1);
	CU_ASSERT_EQUAL(p.hop[0].in_port, 1);
	CU_ASSERT_EQUAL(p.hop[0].out_port, 1);
	CU_ASSERT_EQUAL(p.hop[1].node, SW2);
	CU_ASSERT_EQUAL(p.hop[1].in_port, 7);
	CU_ASSERT_EQUAL(p.hop[1].out_port, 7);
	CU_ASSERT_EQUAL(p.hop[2].node, H2);
	CU_ASSERT_EQUAL(p.hop[2].out_port, 1);
	CU_ASSERT_EQUAL(p.fault_node, H2);
	/* to a switch: ends at its port 0 */
	verify_walk(&t.ix, H1, 1, 5, &p);
	CU_ASSERT_EQUAL(p.fault, VERIFY_OK);
	CU_ASSERT_EQUAL(p.n_hops, 2);
	CU_ASSERT_EQUAL(p.fault_node, SW2);
	/* to itself: no hop */
	verify_walk(&t.ix, H1, 1, 1, &p);
	CU_ASSERT_EQUAL(p.fault, VERIFY_OK);
	CU_ASSERT_EQUAL(p.n_hops, 0);
	/* from a switch (the answer's way back from sw2) */
	verify_walk(&t.ix, SW2, 0, 3, &p);
	CU_ASSERT_EQUAL(p.fault, VERIFY_OK);
	CU_ASSERT_EQUAL(p.n_hops, 2);
	CU_ASSERT_EQUAL(p.hop[1].node, H3);
	tv_teardown(&t);
}

/* Walk lid from host1 and check where and why it stopped. */
static void tv_expect(struct tv *t, uint16_t lid, enum verify_fault fault, int node, uint8_t port)
{
	struct verify_path p;

	verify_walk(&t->ix, H1, 1, lid, &p);
	CU_ASSERT_EQUAL(p.fault, fault);
	CU_ASSERT_EQUAL(p.fault_node, node);
	CU_ASSERT_EQUAL(p.fault_port, port);
}

static void test_verify_walk_black_holes(void)
{
	struct tv t;

	tv_setup(&t);
	*tv_entry(&t, SW2, 2) = 5; /* no cable on sw2 port 5 */
	tv_expect(&t, 2, VERIFY_UNCABLED, SW2, 5);
	*tv_entry(&t, SW2, 2) = LFT_DROP;
	tv_expect(&t, 2, VERIFY_NO_ENTRY, SW2, LFT_DROP);
	*tv_entry(&t, SW2, 2) = 9; /* sw2 has 8 ports */
	tv_expect(&t, 2, VERIFY_BAD_PORT, SW2, 9);
	*tv_entry(&t, SW2, 2) = 1;
	lft_set_find(&t.lfts, SW1)->top = 1; /* lid 2 above sw1's LinearFDBTop */
	tv_expect(&t, 2, VERIFY_NO_ENTRY, SW1, LFT_DROP);
	tv_teardown(&t);
}

static void test_verify_walk_other_faults(void)
{
	struct tv t;
	struct lft *sw2;

	tv_setup(&t);
	t.f.nodes[SW2].ports[1].state = PORT_STATE_ARMED; /* sw2 -> host2 link */
	tv_expect(&t, 2, VERIFY_PORT_DOWN, SW2, 1);
	t.f.nodes[SW2].ports[1].state = PORT_STATE_ACTIVE;
	t.f.nodes[H2].ports[1].state = PORT_STATE_INIT; /* the far end */
	tv_expect(&t, 2, VERIFY_PORT_DOWN, H2, 1);
	t.f.nodes[H1].ports[1].state = PORT_STATE_INIT; /* the source itself */
	tv_expect(&t, 5, VERIFY_PORT_DOWN, H1, 1);
	t.f.nodes[H1].ports[1].state = PORT_STATE_ACTIVE;
	*tv_entry(&t, SW1, 3) = 1; /* lid 3 sent back to host1 */
	tv_expect(&t, 3, VERIFY_MISDELIVERED, H1, 1);
	*tv_entry(&t, SW1, 3) = 0; /* to sw1's own port 0 */
	tv_expect(&t, 3, VERIFY_WRONG_PORT0, SW1, 0);
	*tv_entry(&t, SW2, 4) = 7; /* sw1 sends 4 to sw2, sw2 back to sw1 */
	*tv_entry(&t, SW1, 4) = 7;
	tv_expect(&t, 4, VERIFY_LOOP, SW1, 0);
	tv_expect(&t, 6, VERIFY_NO_OWNER, FABRIC_NONE, 0);
	sw2 = lft_set_find(&t.lfts, SW2);
	free(sw2->port); /* sw2's LFT could not be read */
	sw2->port = NULL;
	tv_expect(&t, 2, VERIFY_NO_LFT, SW2, 0);
	tv_teardown(&t);
}

/* ---- Judging --------------------------------------------------------------- */

static void tv_answer(struct verify_result *r, uint64_t node, uint64_t port)
{
	r->probe.status = VERIFY_PROBE_ANSWERED;
	r->probe.node_guid = node;
	r->probe.port_guid = port;
}

static void test_verify_judge(void)
{
	struct tv t;
	struct verify_result r;

	tv_setup(&t);
	verify_plan(&t.ix, H1, 1, 1, 2, &r);
	CU_ASSERT_TRUE(r.ret_walked);
	CU_ASSERT_EQUAL(r.ret.fault, VERIFY_OK);
	CU_ASSERT_EQUAL(r.ret.n_hops, 3);
	tv_answer(&r, 0x0002c90300a00020ULL, 0x0002c90300a00021ULL);
	verify_judge(&t.ix, &r);
	CU_ASSERT_TRUE(r.ok && r.matches && r.agree && r.walk_ok);
	/* someone else answered */
	tv_answer(&r, 0x0002c90300a00030ULL, 0x0002c90300a00031ULL);
	verify_judge(&t.ix, &r);
	CU_ASSERT_FALSE(r.ok || r.matches);
	CU_ASSERT_TRUE(r.agree);
	/* the LFTs route it, no answer: they disagree */
	r.probe.status = VERIFY_PROBE_TIMEOUT;
	verify_judge(&t.ix, &r);
	CU_ASSERT_FALSE(r.ok || r.agree);
	/* a black hole and a timeout agree */
	*tv_entry(&t, SW2, 2) = 5;
	verify_plan(&t.ix, H1, 1, 1, 2, &r);
	CU_ASSERT_FALSE(r.ret_walked);
	r.probe.status = VERIFY_PROBE_TIMEOUT;
	verify_judge(&t.ix, &r);
	CU_ASSERT_FALSE(r.ok);
	CU_ASSERT_TRUE(r.agree);
	/* a black hole on the way back: host1's own lid dropped at sw2 */
	*tv_entry(&t, SW2, 2) = 1;
	*tv_entry(&t, SW2, 1) = LFT_DROP;
	verify_plan(&t.ix, H1, 1, 1, 2, &r);
	CU_ASSERT_EQUAL(r.fwd.fault, VERIFY_OK);
	CU_ASSERT_EQUAL(r.ret.fault, VERIFY_NO_ENTRY);
	CU_ASSERT_EQUAL(r.ret.fault_node, SW2);
	tv_answer(&r, 0x0002c90300a00020ULL, 0x0002c90300a00021ULL);
	verify_judge(&t.ix, &r);
	CU_ASSERT_FALSE(r.ok || r.agree);
	/* a MAD status means it got there and back */
	r.probe.status = VERIFY_PROBE_REFUSED;
	*tv_entry(&t, SW2, 1) = 7;
	verify_plan(&t.ix, H1, 1, 1, 2, &r);
	r.probe.status = VERIFY_PROBE_REFUSED;
	verify_judge(&t.ix, &r);
	CU_ASSERT_FALSE(r.ok);
	CU_ASSERT_TRUE(r.agree);
	tv_teardown(&t);
}

/* ---- Reports ---------------------------------------------------------------- */

static void test_verify_trace_like_ibtracert(void)
{
	struct tv t;
	struct verify_path p;
	struct text_buf b;
	static const char want[] = "From ca {0x0002c90300a00010} portnum 1 lid 1-1 \"host1\"\n"
				   "[1] -> switch port {0x0002c90300b00001}[1] lid 4-4 \"sw1\"\n"
				   "[7] -> switch port {0x0002c90300b00002}[7] lid 5-5 \"sw2\"\n"
				   "[1] -> ca port {0x0002c90300a00021}[1] lid 2-2 \"host2\"\n"
				   "To ca {0x0002c90300a00020} portnum 1 lid 2-2 \"host2\"\n";
	static const char want_sw[] =
	    "  From ca {0x0002c90300a00010} portnum 1 lid 1-1 \"host1\"\n"
	    "  [1] -> switch port {0x0002c90300b00001}[1] lid 4-4 \"sw1\"\n"
	    "  To switch {0x0002c90300b00001} portnum 0 lid 4-4 \"sw1\"\n";

	tv_setup(&t);
	text_buf_init(&b);
	verify_walk(&t.ix, H1, 1, 2, &p);
	verify_format_trace(&b, &t.ix, &p, "");
	CU_ASSERT_STRING_EQUAL(b.s, want);
	b.len = 0;
	verify_walk(&t.ix, H1, 1, 4, &p);
	verify_format_trace(&b, &t.ix, &p, "  ");
	CU_ASSERT_STRING_EQUAL(b.s, want_sw);
	text_buf_fini(&b);
	tv_teardown(&t);
}

static void tv_expect_fault_text(struct tv *t, uint16_t lid, const char *want)
{
	struct verify_path p;
	struct text_buf b;

	text_buf_init(&b);
	verify_walk(&t->ix, H1, 1, lid, &p);
	verify_format_fault(&b, &t->ix, &p);
	if (strcmp(b.s, want) != 0)
		fprintf(stderr, "\ngot  '%s'\nwant '%s'\n", b.s, want);
	CU_ASSERT_STRING_EQUAL(b.s, want);
	text_buf_fini(&b);
}

static void test_verify_fault_text(void)
{
	struct tv t;

	tv_setup(&t);
	*tv_entry(&t, SW2, 2) = 5;
	tv_expect_fault_text(&t, 2,
			     "black hole at switch \"sw2\" {0x0002c90300b00002} lid 5: LFT entry "
			     "for lid 2 is port 5, which has no link");
	*tv_entry(&t, SW2, 2) = LFT_DROP;
	tv_expect_fault_text(
	    &t, 2,
	    "black hole at switch \"sw2\" {0x0002c90300b00002} lid 5: no LFT entry "
	    "for lid 2 (port 255)");
	*tv_entry(&t, SW2, 2) = 200;
	tv_expect_fault_text(&t, 2,
			     "black hole at switch \"sw2\" {0x0002c90300b00002} lid 5: LFT entry "
			     "for lid 2 is port 200, beyond its 8 ports");
	*tv_entry(&t, SW2, 2) = 1;
	t.f.nodes[H2].ports[1].state = PORT_STATE_INIT;
	tv_expect_fault_text(&t, 2,
			     "down port at ca \"host2\" {0x0002c90300a00020} port 1 lid 2: port 1 "
			     "is INIT, not ACTIVE");
	*tv_entry(&t, SW1, 3) = 1;
	tv_expect_fault_text(&t, 3,
			     "misdelivery at ca \"host1\" {0x0002c90300a00010} port 1 lid 1: it "
			     "does not own lid 3");
	lft_set_find(&t.lfts, SW1)->top = 2;
	tv_expect_fault_text(&t, 4,
			     "black hole at switch \"sw1\" {0x0002c90300b00001} lid 4: lid 4 is "
			     "above its LinearFDBTop 2");
	tv_expect_fault_text(&t, 9, "no port has lid 9");
	tv_teardown(&t);
}

static void test_verify_result_lines(void)
{
	struct tv t;
	struct verify_result r[2];
	struct text_buf b;

	tv_setup(&t);
	text_buf_init(&b);
	verify_plan(&t.ix, H1, 1, 1, 5, &r[0]);
	tv_answer(&r[0], 0x0002c90300b00002ULL, 0x0002c90300b00002ULL);
	verify_judge(&t.ix, &r[0]);
	*tv_entry(&t, SW2, 2) = 5;
	verify_plan(&t.ix, H1, 1, 1, 2, &r[1]);
	r[1].probe.status = VERIFY_PROBE_TIMEOUT;
	verify_judge(&t.ix, &r[1]);
	verify_format_result(&b, &t.ix, &r[0]);
	CU_ASSERT_PTR_NOT_NULL(strstr(b.s,
				      "ok     lid 5 -> switch \"sw2\" port 0: 2 hops, answered "
				      "by port 0x0002c90300b00002\n    From ca "));
	b.len = 0;
	verify_format_result(&b, &t.ix, &r[1]);
	CU_ASSERT_PTR_NOT_NULL(strstr(b.s,
				      "FAILED lid 2 -> ca \"host2\" port 1: forward path: black "
				      "hole at switch \"sw2\" {0x0002c90300b00002} lid 5: LFT "
				      "entry for lid 2 is port 5, which has no link; probe: no "
				      "answer (timed out)\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(b.s, "    stop: black hole at switch \"sw2\""));
	b.len = 0;
	verify_format_summary(&b, r, 2);
	CU_ASSERT_STRING_EQUAL(b.s, "1 paths ok, 1 failed\n");
	text_buf_fini(&b);
	tv_teardown(&t);
}

static void test_verify_json(void)
{
	struct tv t;
	struct verify_result r;
	struct text_buf b;
	struct verify_source src = {.node = H1, .port = 1, .lid = 1, .fabric_from = "a \"b\"\n"};

	tv_setup(&t);
	snprintf(t.f.nodes[H2].desc, sizeof(t.f.nodes[H2].desc), "host\"2\\");
	text_buf_init(&b);
	*tv_entry(&t, SW2, 2) = 5;
	verify_plan(&t.ix, H1, 1, 1, 2, &r);
	r.probe.status = VERIFY_PROBE_TIMEOUT;
	verify_judge(&t.ix, &r);
	verify_format_json(&b, &t.ix, &src, &r, 1);
	CU_ASSERT_FALSE(b.failed);
	CU_ASSERT_PTR_NOT_NULL(strstr(b.s, "\"fabric_from\":\"a \\\"b\\\"\\u000a\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(b.s, "\"name\":\"host\\\"2\\\\\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(b.s, "{\"lid\":2,\"ok\":false,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(b.s, "\"result\":\"black hole\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(b.s, "\"at\":{\"type\":\"switch\",\"name\":\"sw2\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(b.s, "\"probe\":{\"result\":\"timeout\"}"));
	CU_ASSERT_PTR_NOT_NULL(strstr(b.s, "\"return_path\":null"));
	CU_ASSERT_PTR_NOT_NULL(strstr(b.s, "\"ok\":0,\"failed\":1}\n"));
	text_buf_fini(&b);
	tv_teardown(&t);
}

/* ---- The expected topology ---------------------------------------------------- */

/* tv_text seen from host1 with both cables between the switches pulled:
 * host2 and sw2 gone, sw1 port 7 left Polling.  Live order: host1 0,
 * host3 1, sw1 2. */
static const char tv_split[] = "caguid=0x0002c90300a00010\n"
			       "Hca 2 \"host1\"\n"
			       "[1] \"sw1\"[1]\n"
			       "caguid=0x0002c90300a00030\n"
			       "Hca 1 \"host3\"\n"
			       "[1] \"sw1\"[2]\n"
			       "switchguid=0x0002c90300b00001\n"
			       "Switch 8 \"sw1\"\n"
			       "[1] \"host1\"[1]\n"
			       "[2] \"host3\"[1]\n";

enum { LIVE_SW1 = 2 };

static void tv_parse(const char *text, struct fabric *f)
{
	char err[256];

	fabric_init(f);
	CU_ASSERT_EQUAL_FATAL(topo_parse(text, strlen(text), "live", f, err, sizeof(err)), 0);
}

/* Replace the first from in text (at most len - 1 bytes) by to. */
static void tv_edit(char *text, size_t len, const char *from, const char *to)
{
	char *at = strstr(text, from);
	size_t head, tail;

	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	head = (size_t)(at - text);
	tail = strlen(at + strlen(from));
	CU_ASSERT_FATAL(head + strlen(to) + tail < len);
	memmove(at + strlen(to), at + strlen(from), tail + 1);
	memcpy(at, to, strlen(to));
}

/* tv_text with from1 replaced by to1, then from2 (if any) by to2. */
static void tv_parse_edited(const char *from1, const char *to1, const char *from2, const char *to2,
			    struct fabric *f)
{
	char text[sizeof(tv_text) + 256];

	memcpy(text, tv_text, sizeof(tv_text));
	tv_edit(text, sizeof(text), from1, to1);
	if (from2)
		tv_edit(text, sizeof(text), from2, to2);
	tv_parse(text, f);
}

static void tv_expect_line(const struct verify_expect *ex, size_t i, const char *want)
{
	struct text_buf b;

	text_buf_init(&b);
	CU_ASSERT_FATAL(i < ex->n);
	verify_expect_format_gap(&b, ex, &ex->gap[i]);
	if (strcmp(b.s, want) != 0)
		fprintf(stderr, "\ngap %zu: got  '%s'\n       want '%s'\n", i, b.s, want);
	CU_ASSERT_STRING_EQUAL(b.s, want);
	text_buf_fini(&b);
}

static void tv_expect_summary(const struct verify_expect *ex, const char *want)
{
	struct text_buf b;

	text_buf_init(&b);
	verify_expect_format_summary(&b, ex, "f");
	CU_ASSERT_STRING_EQUAL(b.s, want);
	text_buf_fini(&b);
}

/* want = tv_text, live = tv_split with sw1 port 7 in these states; the
 * comparison in ex (four gaps, the cable at sw1 port 7 last). */
static void tv_compare_split(struct fabric *want, struct fabric *live, uint8_t phys, uint8_t state,
			     struct verify_expect *ex)
{
	tv_parse(tv_text, want);
	tv_parse(tv_split, live);
	live->nodes[LIVE_SW1].ports[7].phys_state = phys;
	live->nodes[LIVE_SW1].ports[7].state = state;
	CU_ASSERT_EQUAL_FATAL(verify_expect_compare(ex, want, live), 0);
	CU_ASSERT_EQUAL_FATAL(ex->n, 4);
}

static void test_verify_expect_same(void)
{
	struct tv t;
	struct fabric live;
	struct verify_expect ex;

	tv_setup(&t);
	CU_ASSERT_EQUAL_FATAL(fabric_copy(&live, &t.f), 0);
	CU_ASSERT_EQUAL_FATAL(verify_expect_compare(&ex, &t.f, &live), 0);
	CU_ASSERT_EQUAL(ex.n, 0);
	CU_ASSERT_EQUAL(ex.failures, 0);
	CU_ASSERT_EQUAL(ex.n_cables, 4);
	tv_expect_summary(&ex, "expected topology (f): 5 nodes, 4 cables, all there\n");
	verify_expect_fini(&ex);
	fabric_fini(&live);
	tv_teardown(&t);
}

/* The split: every missing node, host and cable named once; the cable
 * whose near end is seen down is "down", with both ends. */
static void test_verify_expect_split(void)
{
	struct fabric want, live;
	struct verify_expect ex;

	tv_compare_split(&want, &live, PORT_PHYS_POLLING, PORT_STATE_DOWN, &ex);
	CU_ASSERT_EQUAL(ex.failures, 4);
	tv_expect_line(&ex, 0,
		       "MISSING ca \"host2\" {0x0002c90300a00020} port 1 (port GUID "
		       "0x0002c90300a00021, lid 0): not reached");
	tv_expect_line(&ex, 1, "MISSING switch \"sw2\" {0x0002c90300b00002} lid 0: not reached");
	tv_expect_line(&ex, 2,
		       "MISSING cable ca \"host2\" {0x0002c90300a00020} port 1 <-> switch \"sw2\" "
		       "{0x0002c90300b00002} port 1: neither end reached");
	tv_expect_line(
	    &ex, 3,
	    "DOWN    cable switch \"sw1\" {0x0002c90300b00001} port 7 <-> switch \"sw2\" "
	    "{0x0002c90300b00002} port 7: port 7 of \"sw1\" is Polling (DOWN)");
	tv_expect_summary(&ex, "expected topology (f): 5 nodes, 4 cables; 1 switch missing, 1 "
			       "host missing, 1 cable down, 1 cable missing\n");
	verify_expect_fini(&ex);
	fabric_fini(&live);
	/* both ends reached and down: still one gap, named from want's first
	 * end */
	tv_parse_edited("[7] \"sw2\"[7]\n", "", "[7] \"sw1\"[7]\n", "", &live);
	live.nodes[SW1].ports[7].phys_state = PORT_PHYS_POLLING;
	live.nodes[SW2].ports[7].phys_state = PORT_PHYS_POLLING;
	CU_ASSERT_EQUAL_FATAL(verify_expect_compare(&ex, &want, &live), 0);
	CU_ASSERT_EQUAL_FATAL(ex.n, 1);
	CU_ASSERT_EQUAL(ex.gap[0].kind, VERIFY_GAP_CABLE_DOWN);
	CU_ASSERT_EQUAL(ex.gap[0].live_node, SW1);
	verify_expect_fini(&ex);
	fabric_fini(&live);
	fabric_fini(&want);
}

/* An end up and alone: nothing answered behind it.  A cable plugged into
 * another port: moved, naming where it goes now. */
static void test_verify_expect_lost_and_moved(void)
{
	struct fabric want, live;
	struct verify_expect ex;

	tv_compare_split(&want, &live, PORT_PHYS_LINKUP, PORT_STATE_ACTIVE, &ex);
	tv_expect_line(
	    &ex, 3,
	    "MISSING cable switch \"sw1\" {0x0002c90300b00001} port 7 <-> switch \"sw2\" "
	    "{0x0002c90300b00002} port 7: port 7 of \"sw1\" is LinkUp (ACTIVE), yet "
	    "nothing answered through it");
	verify_expect_fini(&ex);
	fabric_fini(&live);
	tv_parse_edited("[7] \"sw2\"[7]\n", "[7] \"sw2\"[6]\n", "[7] \"sw1\"[7]\n",
			"[6] \"sw1\"[7]\n", &live);
	CU_ASSERT_EQUAL_FATAL(verify_expect_compare(&ex, &want, &live), 0);
	CU_ASSERT_EQUAL_FATAL(ex.n, 1);
	CU_ASSERT_EQUAL(ex.failures, 1);
	tv_expect_line(
	    &ex, 0,
	    "MOVED   cable switch \"sw1\" {0x0002c90300b00001} port 7 <-> switch \"sw2\" "
	    "{0x0002c90300b00002} port 7: \"sw1\" port 7 now goes to switch \"sw2\" "
	    "{0x0002c90300b00002} port 6");
	verify_expect_fini(&ex);
	fabric_fini(&live);
	fabric_fini(&want);
}

/* A LID that changed fails; a node the file does not have is only said;
 * a dual-port host missing one port is that port alone. */
static void test_verify_expect_lid_new_port(void)
{
	struct tv t;
	struct fabric live;
	struct verify_expect ex;

	tv_setup(&t);
	tv_parse_edited("[7] \"sw1\"[7]\n",
			"[7] \"sw1\"[7]\n[2] \"host4\"[1]\n"
			"caguid=0x0002c90300a00040\nHca 1 \"host4\"\n[1] \"sw2\"[2]\n",
			NULL, NULL, &live);
	for (size_t i = 0; i < live.n_nodes; i++) /* the LIDs of tv_setup, host1 9 */
		if (i < 5)
			live.nodes[i].ports[i < SW1 ? 1 : 0].lid =
			    t.f.nodes[i].ports[i < SW1 ? 1 : 0].lid;
	live.nodes[H1].ports[1].lid = 9;
	CU_ASSERT_EQUAL_FATAL(verify_expect_compare(&ex, &t.f, &live), 0);
	CU_ASSERT_EQUAL_FATAL(ex.n, 2);
	CU_ASSERT_EQUAL(ex.failures, 1);
	tv_expect_line(&ex, 0,
		       "CHANGED lid of ca \"host1\" {0x0002c90300a00010} port 1: 9, "
		       "expected 1");
	tv_expect_line(&ex, 1,
		       "NEW     ca \"host4\" {0x0002c90300a00040}: not in the expected "
		       "topology");
	tv_expect_summary(&ex, "expected topology (f): 5 nodes, 4 cables; 1 LID changed, 1 node "
			       "not in it\n");
	verify_expect_fini(&ex);
	fabric_fini(&live);
	/* host1's port 2 cabled in the file, not reached live */
	CU_ASSERT_EQUAL_FATAL(fabric_copy(&live, &t.f), 0);
	fabric_link(&t.f, H1, 2, SW2, 3);
	t.f.nodes[H1].ports[2].present = 1;
	CU_ASSERT_EQUAL_FATAL(verify_expect_compare(&ex, &t.f, &live), 0);
	CU_ASSERT_EQUAL_FATAL(ex.n, 2);
	CU_ASSERT_EQUAL(ex.gap[0].kind, VERIFY_GAP_HOST);
	CU_ASSERT_EQUAL(ex.gap[0].port, 2);
	CU_ASSERT_EQUAL(ex.gap[1].kind, VERIFY_GAP_CABLE_DOWN); /* sw2 port 3 */
	verify_expect_fini(&ex);
	fabric_fini(&live);
	tv_teardown(&t);
}

static void test_verify_expect_json_and_unchecked(void)
{
	struct tv t;
	struct fabric want, live;
	struct verify_expect ex;
	struct text_buf b;
	struct verify_result r;
	struct verify_source src = {.node = H1, .port = 1, .lid = 1, .fabric_from = "x"};

	tv_setup(&t);
	tv_parse(tv_text, &want);
	tv_parse(tv_split, &live);
	live.nodes[LIVE_SW1].ports[7].phys_state = PORT_PHYS_POLLING;
	CU_ASSERT_EQUAL_FATAL(verify_expect_compare(&ex, &want, &live), 0);
	verify_plan(&t.ix, H1, 1, 1, 1, &r);
	r.probe.status = VERIFY_PROBE_TIMEOUT;
	verify_judge(&t.ix, &r);
	src.expect = &ex;
	src.expect_from = "/var/lib/nanosm/topology";
	text_buf_init(&b);
	verify_format_json(&b, &t.ix, &src, &r, 1);
	CU_ASSERT_FALSE(b.failed);
	CU_ASSERT_PTR_NOT_NULL(strstr(b.s, "\"expected\":{\"checked\":true,\"file\":\"/var/lib/"
					   "nanosm/topology\",\"nodes\":5,\"cables\":4,"
					   "\"failures\":4,\"gaps\":[{\"kind\":\"host missing\""));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(b.s, "{\"kind\":\"cable down\",\"at\":{\"type\":\"switch\",\"name\":\"sw1\","
			"\"node_guid\":\"0x0002c90300b00001\",\"port\":7},\"to\":{\"type\":"
			"\"switch\",\"name\":\"sw2\",\"node_guid\":\"0x0002c90300b00002\","
			"\"port\":7},\"detail\":\"DOWN    cable switch \\\"sw1\\\""));
	text_buf_fini(&b);
	src.expect = NULL;
	src.expect_from = "no file /x";
	text_buf_init(&b);
	verify_format_json(&b, &t.ix, &src, &r, 1);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(b.s, "\"expected\":{\"checked\":false,\"why\":\"no file /x\"}"));
	text_buf_fini(&b);
	text_buf_init(&b);
	verify_expect_format_summary(&b, NULL, "no file /x");
	CU_ASSERT_STRING_EQUAL(b.s, "expected topology: not checked (no file /x): only what is "
				    "reachable was verified\n");
	text_buf_fini(&b);
	verify_expect_fini(&ex);
	fabric_fini(&live);
	fabric_fini(&want);
	tv_teardown(&t);
}

/* What nanosm writes at SUBNET UP loads back as the same topology, LIDs
 * included, and lands beside guid2lid by default. */
static void test_verify_expect_saved_file(void)
{
	char dir[] = "/tmp/nanosm-topo-XXXXXX", path[96], sub[80], err[256], line[160];
	struct tv t;
	struct fabric back;
	struct verify_expect ex;
	char *p;
	FILE *fp;

	p = topo_save_path("", "/var/lib/nanosm/guid2lid");
	CU_ASSERT_STRING_EQUAL(p, "/var/lib/nanosm/topology");
	free(p);
	p = topo_save_path("/srv/t.txt", "/var/lib/nanosm/guid2lid");
	CU_ASSERT_STRING_EQUAL(p, "/srv/t.txt");
	free(p);
	CU_ASSERT_PTR_NULL(topo_save_path("none", "/var/lib/nanosm/guid2lid"));
	CU_ASSERT_PTR_NULL(topo_save_path("", NULL));
	CU_ASSERT_STRING_EQUAL(POLICY_DEFAULT_TOPOLOGY, "/var/lib/nanosm/topology");

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/state", dir);
	snprintf(path, sizeof(path), "%s/topology", sub);
	tv_setup(&t);
	CU_ASSERT_EQUAL_FATAL(topo_save(path, &t.f, NULL, "nanosm: sweep 1", err, sizeof(err)), 0);
	fp = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof(line), fp));
	CU_ASSERT_STRING_EQUAL(line, "# nanosm: sweep 1\n");
	fclose(fp);
	fabric_init(&back);
	CU_ASSERT_EQUAL_FATAL(topo_load(path, &back, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(back.nodes[fabric_find(&back, t.f.nodes[H2].guid)].ports[1].lid, 2);
	CU_ASSERT_EQUAL_FATAL(verify_expect_compare(&ex, &back, &t.f), 0);
	CU_ASSERT_EQUAL(ex.n, 0);
	CU_ASSERT_EQUAL(ex.n_cables, 4);
	verify_expect_fini(&ex);
	fabric_fini(&back);
	tv_teardown(&t);
	unlink(path);
	rmdir(sub);
	rmdir(dir);
}

void test_verify_register(void)
{
	CU_pSuite s = CU_add_suite("verify", NULL, NULL);

	CU_add_test(s, "lid list: ranges, hex, duplicates, sorted", test_verify_lids_parse);
	CU_add_test(s, "lid list: errors name the place", test_verify_lids_errors);
	CU_add_test(s, "owners: switch port 0 and CA ports", test_verify_owners);
	CU_add_test(s, "owners: LMC ranges, duplicates counted",
		    test_verify_owners_lmc_and_duplicates);
	CU_add_test(s, "walk: CA, switch, self, from a switch", test_verify_walk_ok);
	CU_add_test(s, "walk: uncabled, 255, beyond NumPorts, above top",
		    test_verify_walk_black_holes);
	CU_add_test(s, "walk: down ports, misdelivery, port 0, loop, no owner, no LFT",
		    test_verify_walk_other_faults);
	CU_add_test(s, "judge: walk vs probe, both directions", test_verify_judge);
	CU_add_test(s, "trace: ibtracert's lines", test_verify_trace_like_ibtracert);
	CU_add_test(s, "fault text names switch, GUID, LID, port", test_verify_fault_text);
	CU_add_test(s, "result lines and summary", test_verify_result_lines);
	CU_add_test(s, "JSON: escaping, fault, probe, totals", test_verify_json);
	CU_add_test(s, "expected topology: all there", test_verify_expect_same);
	CU_add_test(s, "expected topology: a split names each node, host, cable once",
		    test_verify_expect_split);
	CU_add_test(s, "expected topology: cable lost behind an up port, cable moved",
		    test_verify_expect_lost_and_moved);
	CU_add_test(s, "expected topology: LID changed, new node, one port of two",
		    test_verify_expect_lid_new_port);
	CU_add_test(s, "expected topology: JSON, not checked",
		    test_verify_expect_json_and_unchecked);
	CU_add_test(s, "expected topology: nanosm's file loads back the same",
		    test_verify_expect_saved_file);
}
