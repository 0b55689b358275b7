/*
 * test_lft_file.c - unit tests for the LFT text formats: real dump_fts,
 * ibroute and opensm-lfts.dump output captured under ibsim (tests/route/
 * samples), writer -> parser round trips, and errors naming file:line.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/lft_file.h"
#include "routing/route.h"
#include "routing/topo_file.h"
#include "tests/unit/unit.h"

#define SAMPLES "tests/route/samples/"
#define SW1 0x0002c90300b00101ULL
#define SW2 0x0002c90300b00102ULL

/* ---- Helpers ----------------------------------------------------------- */

static char *read_text(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	long n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = malloc((size_t)n + 1);
	CU_ASSERT_EQUAL_FATAL(fread(buf, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

static void load_topo(const char *path, struct fabric *f)
{
	char err[256];

	fabric_init(f);
	if (topo_load(path, f, err, sizeof(err)))
		fprintf(stderr, "\n  %s\n", err);
	CU_ASSERT_TRUE_FATAL(f->n_nodes > 0);
}

/* Parse a sample file against f; returns the parser's result. */
static int parse_file(const char *path, enum lft_file_format fmt, const struct fabric *f,
		      struct lft_set *s, struct lft_file_info *info)
{
	char err[512];
	size_t len;
	char *text = read_text(path, &len);
	int rc;

	lft_set_init(s);
	rc = lft_file_parse(text, len, path, fmt, f, s, info, err, sizeof(err));
	if (rc)
		fprintf(stderr, "\n  %s\n", err);
	free(text);
	return rc;
}

static const struct lft *table_of(const struct fabric *f, const struct lft_set *s, uint64_t guid)
{
	const struct lft *t = lft_set_find_const(s, fabric_find(f, guid));

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	return t;
}

static uint8_t entry(const struct fabric *f, const struct lft_set *s, uint64_t guid, unsigned lid)
{
	const struct lft *t = table_of(f, s, guid);

	return lid <= t->top ? t->port[lid] : LFT_DROP;
}

static int same_tables(const struct lft_set *a, const struct lft_set *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		if (a->tables[i].node != b->tables[i].node ||
		    a->tables[i].top != b->tables[i].top ||
		    memcmp(a->tables[i].port, b->tables[i].port, (size_t)a->tables[i].top + 1))
			return 0;
	}
	return 1;
}

/* ---- Real samples ------------------------------------------------------ */

/* OpenSM's minhop on twosw.topo: LIDs host1 1, sw1 2, sw2 3, host2 4,
 * host3 5, host4 6. */
static void check_twosw_tables(const struct fabric *f, const struct lft_set *s)
{
	static const uint8_t sw1[] = {LFT_DROP, 1, 0, 7, 2, 7, 8};
	static const uint8_t sw2[] = {LFT_DROP, 7, 7, 0, 8, 1, 2};

	CU_ASSERT_EQUAL(s->n, 2);
	CU_ASSERT_EQUAL(table_of(f, s, SW1)->top, 6);
	CU_ASSERT_EQUAL(table_of(f, s, SW2)->top, 6);
	for (unsigned lid = 0; lid <= 6; lid++) {
		CU_ASSERT_EQUAL(entry(f, s, SW1, lid), sw1[lid]);
		CU_ASSERT_EQUAL(entry(f, s, SW2, lid), sw2[lid]);
	}
}

static void test_lft_file_dump_fts(void)
{
	struct lft_file_info info;
	struct fabric f;
	struct lft_set s;

	load_topo(SAMPLES "twosw.ibnetdiscover", &f);
	CU_ASSERT_EQUAL_FATAL(parse_file(SAMPLES "twosw.dump_fts", LFT_FILE_AUTO, &f, &s, &info),
			      0);
	check_twosw_tables(&f, &s);
	CU_ASSERT_EQUAL(info.format, LFT_FILE_DUMP_FTS);
	CU_ASSERT_EQUAL(info.switches, 2);
	CU_ASSERT_EQUAL(info.entries, 12);
	CU_ASSERT_EQUAL(info.missing, 0);
	CU_ASSERT_EQUAL(info.top_skipped, 0);
	CU_ASSERT_EQUAL(info.unknown_lids, 0);
	lft_set_fini(&s);
	fabric_fini(&f);
}

static void test_lft_file_opensm(void)
{
	struct lft_file_info info;
	struct fabric f;
	struct lft_set s, fts;

	load_topo(SAMPLES "twosw.ibnetdiscover", &f);
	CU_ASSERT_EQUAL_FATAL(
	    parse_file(SAMPLES "twosw.opensm-lfts.dump", LFT_FILE_OPENSM, &f, &s, &info), 0);
	check_twosw_tables(&f, &s);
	CU_ASSERT_EQUAL(info.format, LFT_FILE_OPENSM);
	CU_ASSERT_EQUAL(info.entries, 12);
	/* what OpenSM meant to program is what dump_fts read back */
	CU_ASSERT_EQUAL_FATAL(
	    parse_file(SAMPLES "twosw.dump_fts", LFT_FILE_DUMP_FTS, &f, &fts, NULL), 0);
	CU_ASSERT_TRUE(same_tables(&s, &fts));
	lft_set_fini(&fts);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* One ibroute run covers one switch: the other is reported missing. */
static void test_lft_file_ibroute(void)
{
	struct lft_file_info info;
	struct fabric f;
	struct lft_set s;

	load_topo(SAMPLES "twosw.ibnetdiscover", &f);
	CU_ASSERT_EQUAL_FATAL(
	    parse_file(SAMPLES "twosw.ibroute-lid2", LFT_FILE_DUMP_FTS, &f, &s, &info), 0);
	CU_ASSERT_EQUAL(info.switches, 1);
	CU_ASSERT_EQUAL(info.entries, 6);
	CU_ASSERT_EQUAL(info.missing, 1);
	CU_ASSERT_EQUAL(info.first_missing, SW2);
	CU_ASSERT_EQUAL(entry(&f, &s, SW1, 6), 8);
	CU_ASSERT_EQUAL(table_of(&f, &s, SW2)->top, 0);
	CU_ASSERT_EQUAL(entry(&f, &s, SW2, 1), LFT_DROP);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* host4 got LID 64 (OpenSM guid2lid), so LinearFDBTop is 0x40: dump_fts
 * never reads block 1 and LID 64 is missing; OpenSM's own dump has it. */
static void test_lft_file_top_block_quirk(void)
{
	struct lft_file_info info;
	struct fabric f;
	struct lft_set s;

	load_topo(SAMPLES "twosw64.ibnetdiscover", &f);
	CU_ASSERT_EQUAL_FATAL(parse_file(SAMPLES "twosw64.dump_fts", LFT_FILE_AUTO, &f, &s, &info),
			      0);
	CU_ASSERT_EQUAL(table_of(&f, &s, SW1)->top, 0x40);
	CU_ASSERT_EQUAL(entry(&f, &s, SW1, 64), LFT_DROP);
	CU_ASSERT_EQUAL(entry(&f, &s, SW1, 5), 7);
	CU_ASSERT_EQUAL(info.top_skipped, 2);
	CU_ASSERT_STRING_EQUAL(info.top_note, SAMPLES
			       "twosw64.dump_fts:1: switch 0x0002c90300b00102 (sw2): no entry "
			       "for LID 0x0040 = LinearFDBTop; dump_fts and ibroute skip the "
			       "block holding it when it is a multiple of 64, so that LID counts "
			       "as dropped");
	lft_set_fini(&s);
	CU_ASSERT_EQUAL_FATAL(
	    parse_file(SAMPLES "twosw64.opensm-lfts.dump", LFT_FILE_AUTO, &f, &s, &info), 0);
	CU_ASSERT_EQUAL(entry(&f, &s, SW1, 64), 8);
	CU_ASSERT_EQUAL(entry(&f, &s, SW2, 64), 2);
	CU_ASSERT_EQUAL(info.top_skipped, 0); /* OpenSM's dump is complete */
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* LIDs the topology does not know are kept, counted and noted. */
static void test_lft_file_unknown_lids(void)
{
	struct lft_file_info info;
	struct fabric f;
	struct lft_set s;

	load_topo(SAMPLES "twosw.ibnetdiscover", &f); /* host4 is LID 6 here */
	CU_ASSERT_EQUAL_FATAL(
	    parse_file(SAMPLES "twosw64.opensm-lfts.dump", LFT_FILE_AUTO, &f, &s, &info), 0);
	CU_ASSERT_EQUAL(info.unknown_lids, 2);
	CU_ASSERT_STRING_EQUAL(info.lid_note,
			       SAMPLES "twosw64.opensm-lfts.dump:7: LID 0x0040 is not "
				       "in the topology");
	CU_ASSERT_EQUAL(entry(&f, &s, SW1, 6), LFT_DROP);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* ---- Writer ------------------------------------------------------------ */

static uint16_t number_lids(struct fabric *f)
{
	uint16_t lid = 0;

	for (size_t i = 0; i < f->n_nodes; i++) {
		struct fabric_node *n = &f->nodes[i];

		for (unsigned p = 0; p <= n->num_ports; p++)
			if (fabric_is_switch(n) ? p == 0 : p > 0 && n->ports[p].present)
				n->ports[p].lid = ++lid;
	}
	return lid;
}

static void round_trip(const char *topo)
{
	struct route_opts opts = {0};
	struct lft_file_info info;
	struct fabric f;
	struct lft_set s, back;
	char *text, err[256];
	size_t len;

	load_topo(topo, &f);
	opts.max_lid = number_lids(&f);
	lft_set_init(&s);
	lft_set_init(&back);
	CU_ASSERT_EQUAL_FATAL(route_engine_minhop.compute(&f, &opts, &s, NULL, err, sizeof(err)),
			      0);
	s.tables[0].port[opts.max_lid] = LFT_DROP; /* a hole must survive too */
	CU_ASSERT_EQUAL_FATAL(lft_file_write_dump_fts(&f, &s, &text, &len), 0);
	CU_ASSERT_EQUAL(strlen(text), len);
	CU_ASSERT_EQUAL(
	    lft_file_parse(text, len, "written", LFT_FILE_AUTO, &f, &back, &info, err, sizeof(err)),
	    0);
	CU_ASSERT_TRUE(same_tables(&s, &back));
	CU_ASSERT_EQUAL(info.format, LFT_FILE_DUMP_FTS);
	CU_ASSERT_EQUAL(info.switches, s.n);
	CU_ASSERT_EQUAL(info.unknown_lids, 0);
	free(text);
	lft_set_fini(&back);
	lft_set_fini(&s);
	fabric_fini(&f);
}

static void test_lft_file_round_trip(void)
{
	round_trip("tests/fabrics/twosw.topo");
	round_trip("tests/fabrics/fattree64.topo");
	round_trip("tests/fabrics/ring.topo");
}

/* The writer's exact text for one small table. */
static void test_lft_file_writer_text(void)
{
	struct fabric f;
	struct lft_set s, one;
	struct lft *t;
	char *text;
	size_t len;

	load_topo(SAMPLES "twosw.ibnetdiscover", &f);
	lft_set_init(&s);
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc(&s, &f, 7), 0);
	t = lft_set_find(&s, fabric_find(&f, SW1));
	t->port[1] = 1;
	t->port[2] = 0;
	t->port[5] = 7;
	t->port[7] = 3;				     /* nobody has LID 7 */
	one = (struct lft_set){.tables = t, .n = 1}; /* borrows sw1's table */
	CU_ASSERT_EQUAL_FATAL(lft_file_write_dump_fts(&f, &one, &text, &len), 0);
	CU_ASSERT_STRING_EQUAL(
	    text, "Unicast lids [0x0-0x7] of switch Lid 2 guid 0x0002c90300b00101 (sw1):\n"
		  "  Lid  Out   Destination\n"
		  "       Port     Info\n"
		  "0x0001 001 : (Channel Adapter portguid 0x0002c90300a00111: 'host1')\n"
		  "0x0002 000 : (Switch portguid 0x0002c90300b00101: 'sw1')\n"
		  "0x0005 007 : (Channel Adapter portguid 0x0002c90300a00131: 'host3')\n"
		  "0x0007 003 : (no port has this LID in the topology)\n"
		  "4 valid lids dumped\n");
	free(text);
	t->node = fabric_find(&f, 0x0002c90300a00110ULL); /* a CA: refused */
	CU_ASSERT_EQUAL(lft_file_write_dump_fts(&f, &one, &text, &len), -EINVAL);
	CU_ASSERT_PTR_NULL(text);
	lft_set_fini(&s);
	fabric_fini(&f);
}

/* ---- Errors ------------------------------------------------------------ */

struct lft_file_bad {
	const char *text;
	enum lft_file_format fmt;
	const char *err;
};

static const struct lft_file_bad lft_file_bad[] = {
    {"0x0001 001 : (x)\n", LFT_FILE_AUTO, "t.txt:1: LID entry before any \"Unicast lids\" header"},
    {"Unicast lids [0x0-0x6] of switch Lid 9 guid 0x0002c90300b00199 (x):\n", LFT_FILE_AUTO,
     "t.txt:1: switch 0x0002c90300b00199 is not in the topology"},
    {"\nUnicast lids [0x0-0x6] of switch Lid 1 guid 0x0002c90300a00110 (x):\n", LFT_FILE_AUTO,
     "t.txt:2: node 0x0002c90300a00110 (host1) is not a switch"},
    {"Unicast lids [0x0-0x6] of switch Lid 2 guid 0x0002c90300b00101 (sw1):\n"
     "Unicast lids [0x0-0x6] of switch Lid 2 guid 0x0002c90300b00101 (sw1):\n",
     LFT_FILE_AUTO, "t.txt:2: switch 0x0002c90300b00101 (sw1) listed twice (first at line 1)"},
    {"Unicast lids [0x0-0x6] of switch Lid 2 guid 0x0002c90300b00101 (sw1):\n"
     "0x0007 001 : (x)\n",
     LFT_FILE_AUTO, "t.txt:2: LID 0x0007 above the header's range (top 0x0006)"},
    {"Unicast lids [0x0-0x6] of switch Lid 2 guid 0x0002c90300b00101 (sw1):\n"
     "0x0001 001 : (x)\n0x0001 002 : (x)\n",
     LFT_FILE_AUTO, "t.txt:3: LID 0x0001 listed twice for this switch"},
    {"Unicast lids [0x0-0x6] of switch Lid 2 guid 0x0002c90300b00101 (sw1):\n"
     "0x0001 300 : (x)\n",
     LFT_FILE_AUTO, "t.txt:2: port 300 out of range (0-255)"},
    {"Unicast lids [0x0-0x6] of switch Lid 2 guid 0x0002c90300b00101 (sw1):\n"
     "0x0001 001 # x\n",
     LFT_FILE_AUTO, "t.txt:2: bad LID entry (want \"0x<lid> <port> : ...\")"},
    {"Unicast lids [0x0-0x6] of switch Lid 2 guid 0x0002c90300b00101 (sw1):\n"
     "  Lid  Out   Destination\nrouting is fine\n",
     LFT_FILE_AUTO, "t.txt:3: unrecognised line \"routing is fine\""},
    {"Unicast lids [0x0-0x6] of switch Lid 2 guid 0x0002c90300b00101 (sw1):\n"
     "Unicast lids [0-6] of switch Lid 3 guid 0x0002c90300b00102 ('sw2'):\n",
     LFT_FILE_AUTO,
     "t.txt:2: header with a decimal LID range (opensm format) in a file read as dump_fts"},
    {"Unicast lids [0x0-0x6] of switch Lid 2 guid 0x0002c90300b00101 (sw1):\n", LFT_FILE_OPENSM,
     "t.txt:1: header with a hex LID range (dump_fts format) in a file read as opensm"},
    {"Unicast lids [0x0-0xc000] of switch Lid 2 guid 0x0002c90300b00101 (sw1):\n", LFT_FILE_AUTO,
     "t.txt:1: LID range ends at 0xc000, above the unicast range 0xbfff"},
    {"Unicast lids [0x0-0x6 of switch Lid 2 guid 0x0002c90300b00101 (sw1):\n", LFT_FILE_AUTO,
     "t.txt:1: bad LID range in header (want [0x0-0x1f] or [0-31])"},
    {"Unicast lids [0x0-0x6] of switch Lid 2 (sw1):\n", LFT_FILE_AUTO,
     "t.txt:1: header without \"guid 0x<hex> (<description>):\""},
    /* LID 4 is host2's: a dump naming host3 there is from another run */
    {"Unicast lids [0-6] of switch Lid 2 guid 0x0002c90300b00101 ('sw1'):\n"
     "0x0004 002 # Channel Adapter portguid 0x0002c90300a00131: 'host3'\n",
     LFT_FILE_AUTO,
     "t.txt:2: LID 0x0004 leads to port 0x0002c90300a00131 here but belongs to port "
     "0x0002c90300a00121 in the topology (LFTs and topology from different runs?)"},
};

static void test_lft_file_errors(void)
{
	struct fabric f;
	struct lft_set s;
	char err[512];

	load_topo(SAMPLES "twosw.ibnetdiscover", &f);
	lft_set_init(&s);
	for (size_t i = 0; i < sizeof(lft_file_bad) / sizeof(lft_file_bad[0]); i++) {
		const struct lft_file_bad *b = &lft_file_bad[i];

		CU_ASSERT_EQUAL(lft_file_parse(b->text, strlen(b->text), "t.txt", b->fmt, &f, &s,
					       NULL, err, sizeof(err)),
				-EINVAL);
		CU_ASSERT_STRING_EQUAL(err, b->err);
		CU_ASSERT_EQUAL(s.n, 0);
	}
	fabric_fini(&f);
}

/* Blank lines, comments, CRLF and a text without a final newline. */
static void test_lft_file_lenient(void)
{
	static const char text[] =
	    "# from a hand-written file\r\n\r\n"
	    "Unicast lids [0-6] of switch Lid 2 guid 0x0002c90300b00101 ('sw1'):\r\n"
	    "0x0003 007\r\n0x0006 255 # explicitly unrouted\r\n"
	    "2 lids dumped";
	struct lft_file_info info;
	struct fabric f;
	struct lft_set s;
	char err[256];

	load_topo(SAMPLES "twosw.ibnetdiscover", &f);
	lft_set_init(&s);
	CU_ASSERT_EQUAL_FATAL(
	    lft_file_parse(text, strlen(text), "h", LFT_FILE_AUTO, &f, &s, &info, err, sizeof(err)),
	    0);
	CU_ASSERT_EQUAL(entry(&f, &s, SW1, 3), 7);
	CU_ASSERT_EQUAL(entry(&f, &s, SW1, 6), LFT_DROP);
	CU_ASSERT_EQUAL(info.entries, 2);
	CU_ASSERT_EQUAL(info.missing, 1);
	lft_set_fini(&s);
	fabric_fini(&f);
}

static void test_lft_file_format_names(void)
{
	enum lft_file_format fmt;

	CU_ASSERT_EQUAL(lft_file_format_from_name("dump_fts", &fmt), 0);
	CU_ASSERT_EQUAL(fmt, LFT_FILE_DUMP_FTS);
	CU_ASSERT_EQUAL(lft_file_format_from_name("ibroute", &fmt), 0);
	CU_ASSERT_EQUAL(fmt, LFT_FILE_DUMP_FTS);
	CU_ASSERT_EQUAL(lft_file_format_from_name("opensm", &fmt), 0);
	CU_ASSERT_EQUAL(fmt, LFT_FILE_OPENSM);
	CU_ASSERT_EQUAL(lft_file_format_from_name("auto", &fmt), 0);
	CU_ASSERT_EQUAL(fmt, LFT_FILE_AUTO);
	CU_ASSERT_EQUAL(lft_file_format_from_name("osm", &fmt), -EINVAL);
	CU_ASSERT_EQUAL(lft_file_format_from_name(NULL, &fmt), -EINVAL);
}

void test_lft_file_register(void)
{
	CU_pSuite s = CU_add_suite("lft_file", NULL, NULL);

	CU_add_test(s, "real dump_fts output", test_lft_file_dump_fts);
	CU_add_test(s, "real opensm-lfts.dump, same tables as dump_fts", test_lft_file_opensm);
	CU_add_test(s, "real ibroute output: one switch, the other missing", test_lft_file_ibroute);
	CU_add_test(s, "dump_fts skips the LinearFDBTop block at 0x40",
		    test_lft_file_top_block_quirk);
	CU_add_test(s, "LIDs not in the topology are noted", test_lft_file_unknown_lids);
	CU_add_test(s, "writer -> parser round trip", test_lft_file_round_trip);
	CU_add_test(s, "writer text", test_lft_file_writer_text);
	CU_add_test(s, "errors name file:line", test_lft_file_errors);
	CU_add_test(s, "comments, CRLF, no final newline", test_lft_file_lenient);
	CU_add_test(s, "format names", test_lft_file_format_names);
}
