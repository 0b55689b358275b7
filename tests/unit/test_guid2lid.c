/*
 * test_guid2lid.c - unit tests for sm/core/guid2lid.c: format, tolerant parse,
 * exact error texts, truncation, conflicts, and save/load through a real
 * temporary directory (created with mkdtemp and removed afterwards).
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "routing/lid_alloc.h"
#include "routing/topo_file.h"
#include "sm/core/guid2lid.h"
#include "sm/core/sm.h"
#include "tests/unit/sm_rig.h"
#include "tests/unit/unit.h"

#define G(n) (0x0002c90300a1b200ULL + (n))

struct seen {
	uint64_t guid[16];
	uint16_t lid[16];
	int line[16];
	int n;
};

static void seen_one(void *ctx, uint64_t guid, uint16_t lid, int line)
{
	struct seen *s = ctx;

	if (s->n < 16) {
		s->guid[s->n] = guid;
		s->lid[s->n] = lid;
		s->line[s->n] = line;
	}
	s->n++;
}

/* Parse text; s gets the good entries, err the first message without its
 * ID ("guid2lid:3: ..."); returns the number of lines skipped. */
static int parse_str_len(const char *text, size_t len, struct seen *s, char *err, size_t errlen)
{
	struct guid2lid_map m;
	int bad;

	memset(s, 0, sizeof(*s));
	CU_ASSERT_EQUAL_FATAL(guid2lid_parse_map(text, len, "guid2lid", &m), 0);
	for (size_t i = 0; i < m.n; i++)
		seen_one(s, m.e[i].guid, m.e[i].lid, m.e[i].line);
	if (err && errlen) {
		const char *msg = m.n_diag ? strchr(m.diag[0].msg, ' ') + 1 : "";
		snprintf(err, errlen, "%s", msg);
	}
	bad = (int)m.bad;
	guid2lid_map_fini(&m);
	return bad;
}

static int parse_str(const char *text, struct seen *s, char *err, size_t errlen)
{
	return parse_str_len(text, strlen(text), s, err, errlen);
}

/* Same mappings in both allocators (checked from both sides). */
static int same_map(const struct lid_alloc *x, const struct lid_alloc *y)
{
	if (lid_alloc_count(x) != lid_alloc_count(y))
		return 0;
	for (uint32_t lid = 1; lid <= 0xBFFF; lid++) {
		if (lid_alloc_owner(x, (uint16_t)lid) != lid_alloc_owner(y, (uint16_t)lid))
			return 0;
	}
	return 1;
}

static void fill(struct lid_alloc *a)
{
	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(a, 0xBFFF), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(a, 0x0002c90300a1b2c3ULL, 1), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(a, 0xf452140300001234ULL, 0x1a), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(a, 0x0000000000000001ULL, 0xBFFF), 0);
}

static void test_guid2lid_format(void)
{
	static const char body[] = "# nanosm guid2lid 1\n"
				   "0x0002c90300a1b2c3 0x0001 0x0001\n"
				   "0xf452140300001234 0x001a 0x001a # seen 1700000000\n"
				   "0x0000000000000001 0xbfff 0xbfff\n";
	struct lid_alloc a;
	char want[512], buf[512], small[40];
	struct guid2lid_map m;

	fill(&a);
	lid_alloc_set_seen(&a, 0xf452140300001234ULL, 1700000000u);
	/* the end line: the count, then the CRC-32 of everything before it
	 * (the same as zlib's crc32 / Python's zlib.crc32 of body) */
	snprintf(want, sizeof(want), "%s# nanosm end 3 %08x\n", body, 0x9488ee4fu);
	CU_ASSERT_EQUAL(guid2lid_format(&a, NULL, 0), strlen(want));
	CU_ASSERT_EQUAL(guid2lid_format(&a, buf, sizeof(buf)), strlen(want));
	CU_ASSERT_STRING_EQUAL(buf, want);
	CU_ASSERT_EQUAL_FATAL(guid2lid_parse_map(buf, strlen(buf), "t", &m), 0);
	CU_ASSERT(m.signed_file);
	CU_ASSERT_FALSE(m.unusable);
	CU_ASSERT_EQUAL(m.n, 3);
	CU_ASSERT_EQUAL(m.e[1].seen, 1700000000u);
	CU_ASSERT_EQUAL(m.e[0].seen, 0);
	guid2lid_map_fini(&m);
	/* too small: truncated like snprintf, still NUL-terminated */
	CU_ASSERT_EQUAL(guid2lid_format(&a, small, sizeof(small)), strlen(want));
	CU_ASSERT_EQUAL(strlen(small), sizeof(small) - 1);
	CU_ASSERT_EQUAL(strncmp(small, want, sizeof(small) - 1), 0);
	lid_alloc_fini(&a);
	/* empty map: header and end line only, and that parses as usable */
	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, 0xBFFF), 0);
	guid2lid_format(&a, buf, sizeof(buf));
	CU_ASSERT_EQUAL(strncmp(buf, "# nanosm guid2lid 1\n# nanosm end 0 ", 35), 0);
	CU_ASSERT_EQUAL_FATAL(guid2lid_parse_map(buf, strlen(buf), "t", &m), 0);
	CU_ASSERT_FALSE(m.unusable);
	guid2lid_map_fini(&m);
	lid_alloc_fini(&a);
}

static void test_guid2lid_round_trip(void)
{
	struct lid_alloc a;
	char buf[512], err[128];
	struct seen s;

	fill(&a);
	size_t len = guid2lid_format(&a, buf, sizeof(buf));
	CU_ASSERT_EQUAL(parse_str_len(buf, len, &s, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(err, "");
	CU_ASSERT_EQUAL_FATAL(s.n, 3);
	for (int i = 0; i < s.n; i++)
		CU_ASSERT_EQUAL(lid_alloc_lookup(&a, s.guid[i]), s.lid[i]);
	lid_alloc_fini(&a);
}

static void test_guid2lid_tolerant(void)
{
	static const char text[] = "# written by hand\n"
				   "\n"
				   "0x2c90300a1b2c3 0x1 0x1\n" /* no leading zeros */
				   "  0X0002C90300A1B2C4\t0x0002   0x0002  \r\n" /* CRLF, blanks */
				   "0002c90300a1b2c5 0003 0003 # trailing comment\n"
				   "   # indented comment\n"
				   "0x0002c90300a1b2c6 0x00000010 0x0013\n" /* LMC 2 */
				   "0x0002c90300a1b2c7 0x0020 0x0020";	    /* no final newline */
	struct seen s;
	char err[128];

	CU_ASSERT_EQUAL(parse_str(text, &s, err, sizeof(err)), 0);
	/* the missing newline is said, the line kept */
	CU_ASSERT_STRING_EQUAL(err, "guid2lid:8: no newline at end of file (line kept)");
	CU_ASSERT_EQUAL_FATAL(s.n, 5);
	CU_ASSERT_EQUAL(s.guid[0], 0x0002c90300a1b2c3ULL);
	CU_ASSERT_EQUAL(s.lid[0], 1);
	CU_ASSERT_EQUAL(s.line[0], 3);
	CU_ASSERT_EQUAL(s.guid[1], 0x0002c90300a1b2c4ULL);
	CU_ASSERT_EQUAL(s.lid[1], 2);
	CU_ASSERT_EQUAL(s.guid[2], 0x0002c90300a1b2c5ULL);
	CU_ASSERT_EQUAL(s.lid[2], 3);
	CU_ASSERT_EQUAL(s.lid[3], 0x10);
	CU_ASSERT_EQUAL(s.line[3], 7);
	CU_ASSERT_EQUAL(s.lid[4], 0x20);
	CU_ASSERT_EQUAL(s.line[4], 8);
	CU_ASSERT_EQUAL(parse_str("", &s, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(s.n, 0);
}

struct bad_case {
	const char *line, *want;
};

static void test_guid2lid_bad_lines(void)
{
	static const struct bad_case cases[] = {
	    {"0x0002c90300a1b2c3 0xc000 0xc000\n", "guid2lid:1: LID 0xc000 out of unicast range"},
	    {"0x0002c90300a1b2c3 0x0000 0x0000\n", "guid2lid:1: LID 0x0000 out of unicast range"},
	    {"0x0002c90300a1b2c3 0x0001 0x10000\n", "guid2lid:1: LID 0x10000 out of unicast range"},
	    {"0x0002c90300a1b2c3 0x0005 0x0004\n",
	     "guid2lid:1: top LID 0x0004 below base LID 0x0005"},
	    {"0x0000000000000000 0x0001 0x0001\n", "guid2lid:1: port GUID 0 is invalid"},
	    {"0x0002c90300a1b2c3 0x0001\n", "guid2lid:1: expected \"0x<guid> 0x<lid> 0x<lid>\""},
	    {"0x0002c90300a1b2c3 0x0001 0x0001 0x1\n",
	     "guid2lid:1: expected \"0x<guid> 0x<lid> 0x<lid>\""},
	    {"0x0002c90300a1b2c3z 0x0001 0x0001\n",
	     "guid2lid:1: expected \"0x<guid> 0x<lid> 0x<lid>\""},
	    {"0x10002c90300a1b2c3 0x0001 0x0001\n", /* 17 digits: overflow */
	     "guid2lid:1: expected \"0x<guid> 0x<lid> 0x<lid>\""},
	    {"0x 0x0001 0x0001\n", "guid2lid:1: expected \"0x<guid> 0x<lid> 0x<lid>\""},
	    {"guid lid lid\n", "guid2lid:1: expected \"0x<guid> 0x<lid> 0x<lid>\""},
	};
	struct seen s;
	char err[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CU_ASSERT_EQUAL(parse_str(cases[i].line, &s, err, sizeof(err)), 1);
		CU_ASSERT_STRING_EQUAL(err, cases[i].want);
		CU_ASSERT_EQUAL(s.n, 0);
	}
}

static void test_guid2lid_messages(void)
{
	static const char text[] = "0x0002c90300a1b2c1 0x0001 0x0001\n"
				   "# comment\n"
				   "0x0002c90300a1b2c3 0xc000 0xc000\n"
				   "0x0002c90300a1b2c4 0x0004 0x0004\n"
				   "0x0002c90300a1b2c5 five\n"
				   "0x0002c90300a1b2c6 0x0006 0x0006\n"
				   "0x0002c90300a1b2c7 0x0007 0x0007\n"
				   "0x0002c90300a1b2c8 0x0008 0x0008\n"
				   "0x0002c90300a1b2c9 0x0009 0x0009\n";
	struct guid2lid_map m;
	struct seen s;

	/* every bad line gets its own message, with its ID and line */
	CU_ASSERT_EQUAL_FATAL(guid2lid_parse_map(text, strlen(text), "g", &m), 0);
	CU_ASSERT_EQUAL(m.bad, 2);
	CU_ASSERT_EQUAL(m.lines, 8);
	CU_ASSERT_FALSE(m.unusable); /* 2 of 8: under the threshold */
	CU_ASSERT_EQUAL_FATAL(m.n_diag, 2);
	CU_ASSERT_STRING_EQUAL(m.diag[0].msg, "NSM-W111 g:3: LID 0xc000 out of unicast range");
	CU_ASSERT_STRING_EQUAL(m.diag[1].msg,
			       "NSM-W111 g:5: expected \"0x<guid> 0x<lid> 0x<lid>\"");
	CU_ASSERT_EQUAL(m.n, 6); /* good lines around the bad ones are kept */
	guid2lid_map_fini(&m);
	/* more than a quarter bad: the whole file is refused */
	CU_ASSERT_EQUAL(parse_str(strstr(text, "0x0002c90300a1b2c3"), &s, NULL, 0), 2);
	CU_ASSERT_EQUAL_FATAL(guid2lid_parse_map(text, strstr(text, "0x0002c90300a1b2c7") - text,
						 "g", &m),
			      0);
	CU_ASSERT(m.unusable);
	CU_ASSERT_STRING_EQUAL(m.why, "2 of 5 mapping line(s) are bad");
	guid2lid_map_fini(&m);
	/* an empty file is refused too (nanosm never writes one), and so is
	 * one of comments only */
	CU_ASSERT_EQUAL_FATAL(guid2lid_parse_map("", 0, "g", &m), 0);
	CU_ASSERT(m.unusable);
	CU_ASSERT_STRING_EQUAL(m.why, "empty file");
	guid2lid_map_fini(&m);
	CU_ASSERT_EQUAL_FATAL(guid2lid_parse_map("# x\n\n", 4, "g", &m), 0);
	CU_ASSERT(m.unusable);
	CU_ASSERT_STRING_EQUAL(m.why, "no mappings and no nanosm end line");
	guid2lid_map_fini(&m);
}

static void test_guid2lid_messages_capped(void)
{
	char text[200 * 8];
	struct guid2lid_map m;
	size_t off = 0;

	for (int i = 0; i < 200; i++)
		off += (size_t)sprintf(text + off, "junk\n");
	CU_ASSERT_EQUAL_FATAL(guid2lid_parse_map(text, off, "g", &m), 0);
	CU_ASSERT_EQUAL(m.bad, 200);
	CU_ASSERT_EQUAL(m.n_diag, GUID2LID_MAX_DIAG);
	CU_ASSERT_EQUAL(m.more_diag, 200 - GUID2LID_MAX_DIAG);
	CU_ASSERT(m.unusable);
	guid2lid_map_fini(&m);
}

static void test_guid2lid_binary(void)
{
	static const char text[] = "0x0002c90300a1b2c1 0x0001 0x0001\n"
				   "0x0002c90300a1b2c2 0x0002 0x0002\n"
				   "0x0002c90300a1b2c3 0x0003 0x0003\n"
				   "0x0002c90300a1\0\0\0\0 0x0004\n"
				   "0x0002c90300a1b2c5 0x0005 0x0005\n";
	struct seen s;
	char err[128];

	CU_ASSERT_EQUAL(parse_str_len(text, sizeof(text) - 1, &s, err, sizeof(err)), 1);
	CU_ASSERT_STRING_EQUAL(err, "guid2lid:4: binary data (byte 0x00 at column 15)");
	CU_ASSERT_EQUAL(s.n, 4);
	CU_ASSERT_EQUAL(parse_str("\xff\xfe\n", &s, err, sizeof(err)), 1);
	CU_ASSERT_STRING_EQUAL(err, "guid2lid:1: binary data (byte 0xff at column 1)");
}

static void test_guid2lid_duplicates(void)
{
	static const char text[] = "0x0002c90300a1b201 0x0001 0x0001\n"
				   "0x0002c90300a1b201 0x0001 0x0001\n" /* repeat: skipped */
				   "0x0002c90300a1b202 0x0002 0x0002\n"
				   "0x0002c90300a1b202 0x0003 0x0003\n" /* GUID twice */
				   "0x0002c90300a1b204 0x0004 0x0004\n"
				   "0x0002c90300a1b205 0x0004 0x0004\n" /* LID twice */
				   "0x0002c90300a1b206 0x0006 0x0006\n"
				   "0x0002c90300a1b207 0x0007 0x0007\n"
				   "0x0002c90300a1b208 0x0008 0x0008\n"
				   "0x0002c90300a1b209 0x0009 0x0009\n"
				   "0x0002c90300a1b20a 0x000a 0x000a\n"
				   "0x0002c90300a1b20b 0x000b 0x000b\n"
				   "0x0002c90300a1b20c 0x000c 0x000c\n"
				   "0x0002c90300a1b20d 0x000d 0x000d\n"
				   "0x0002c90300a1b20e 0x000e 0x000e\n"
				   "0x0002c90300a1b20f 0x000f 0x000f\n"
				   "0x0002c90300a1b210 0x0010 0x0010\n"
				   "0x0002c90300a1b211 0x0011 0x0011\n"
				   "0x0002c90300a1b212 0x0012 0x0012\n"
				   "0x0002c90300a1b213 0x0013 0x0013\n";
	struct guid2lid_map m;

	CU_ASSERT_EQUAL_FATAL(guid2lid_parse_map(text, strlen(text), "g", &m), 0);
	CU_ASSERT_EQUAL(m.bad, 5);
	CU_ASSERT_FALSE(m.unusable);
	CU_ASSERT_EQUAL_FATAL(m.n_diag, 5);
	CU_ASSERT_STRING_EQUAL(m.diag[0].msg, "NSM-W112 g:2: repeats line 1 "
					      "(0x0002c90300a1b201 0x0001), skipped");
	CU_ASSERT_STRING_EQUAL(m.diag[1].msg,
			       "NSM-W112 g:3: duplicate GUID 0x0002c90300a1b202 (also line 4) with "
			       "another LID: dropped, the port's own LID decides");
	CU_ASSERT_STRING_EQUAL(m.diag[2].msg,
			       "NSM-W112 g:4: duplicate GUID 0x0002c90300a1b202 (also line 3) with "
			       "another LID: dropped, the port's own LID decides");
	CU_ASSERT_STRING_EQUAL(m.diag[3].msg,
			       "NSM-W112 g:5: duplicate LID 0x0004 (also line 6) for another GUID: "
			       "dropped, the ports' own LIDs decide");
	CU_ASSERT_STRING_EQUAL(m.diag[4].msg,
			       "NSM-W112 g:6: duplicate LID 0x0004 (also line 5) for another GUID: "
			       "dropped, the ports' own LIDs decide");
	CU_ASSERT_EQUAL_FATAL(m.n, 15);
	CU_ASSERT_EQUAL(m.e[0].guid, G(1));
	CU_ASSERT_EQUAL(m.e[0].line, 1);
	CU_ASSERT_EQUAL(m.e[1].guid, G(6));
	for (size_t i = 0; i < m.n; i++) /* no LID, no GUID twice */
		for (size_t j = i + 1; j < m.n; j++)
			CU_ASSERT(m.e[i].guid != m.e[j].guid && m.e[i].lid != m.e[j].lid);
	guid2lid_map_fini(&m);
}

/* A saved file of a few mappings, in buf; returns its length. */
static size_t saved_text(char *buf, size_t len)
{
	struct lid_alloc a;
	size_t n;

	fill(&a);
	lid_alloc_set_seen(&a, 0x0002c90300a1b2c3ULL, 1700000000u);
	n = guid2lid_format(&a, buf, len);
	lid_alloc_fini(&a);
	return n;
}

static int unusable(const char *text, size_t len, char *why, size_t whylen)
{
	struct guid2lid_map m;
	int u;

	CU_ASSERT_EQUAL_FATAL(guid2lid_parse_map(text, len, "g", &m), 0);
	u = m.unusable;
	if (why)
		snprintf(why, whylen, "%s", m.why);
	guid2lid_map_fini(&m);
	return u;
}

static void test_guid2lid_whole_file(void)
{
	char buf[512], bad[600], why[160];
	size_t len = saved_text(buf, sizeof(buf));
	char *digit = strstr(buf, "0x0001 0x0001") + 5;

	CU_ASSERT_FALSE(unusable(buf, len, NULL, 0));
	/* every cut short of the whole file is caught as a whole */
	for (size_t cut = 0; cut < len; cut++) {
		CU_ASSERT(unusable(buf, cut, NULL, 0));
	}
	/* the end line gone */
	CU_ASSERT(unusable(buf, (size_t)(strstr(buf, "# nanosm end") - buf), why, sizeof(why)));
	CU_ASSERT_STRING_EQUAL(why, "no end line: the file was cut short");
	/* one digit changed: every line still parses, the checksum does not */
	memcpy(bad, buf, len);
	bad[digit - buf] = '2';
	CU_ASSERT(unusable(bad, len, why, sizeof(why)));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "checksum mismatch"));
	/* a line after the end line */
	memcpy(bad, buf, len);
	strcpy(bad + len, "0x0002c90300a1b299 0x0099 0x0099\n");
	CU_ASSERT(unusable(bad, strlen(bad), why, sizeof(why)));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "data after the end line"));
	/* a line dropped: count and checksum disagree (count said first) */
	snprintf(bad, sizeof(bad), "# nanosm guid2lid 1\n# nanosm end 1 00000000\n");
	CU_ASSERT(unusable(bad, strlen(bad), why, sizeof(why)));
	CU_ASSERT_STRING_EQUAL(why, "the end line counts 1 mapping(s), the file holds 0");
	/* the header lost but the end line there: still checked */
	memcpy(bad, buf, len);
	bad[2] = 'x';
	CU_ASSERT(unusable(bad, len, why, sizeof(why)));
	/* the header and end line deleted (a hand edit): a plain OpenSM file */
	snprintf(bad, sizeof(bad), "%.*s", (int)(strstr(buf, "# nanosm end") - buf) - 20,
		 buf + 20);
	CU_ASSERT_FALSE(unusable(bad, strlen(bad), NULL, 0));
}

static void test_guid2lid_truncated(void)
{
	static const char text[] = "0x0002c90300a1b2c3 0x0001 0x0001\n"
				   "0x0002c90300a1b2c4 0x0012 0x00";
	struct seen s;
	char err[128];

	CU_ASSERT_EQUAL(parse_str(text, &s, err, sizeof(err)), 1);
	CU_ASSERT_STRING_EQUAL(err, "guid2lid:2: truncated last line (no newline at end of file)");
	CU_ASSERT_EQUAL(s.n, 1);
	/* cut inside the GUID */
	CU_ASSERT_EQUAL(
	    parse_str("0x0002c90300a1b2c3 0x0001 0x0001\n0x0002c9", &s, err, sizeof(err)), 1);
	CU_ASSERT_STRING_EQUAL(err, "guid2lid:2: truncated last line (no newline at end of file)");
	/* every cut of a saved line is caught or is the whole line */
	static const char line[] = "0x0002c90300a1b2c3 0x0012 0x0012";
	for (size_t cut = 1; cut < sizeof(line) - 1; cut++) {
		CU_ASSERT_EQUAL(parse_str_len(line, cut, &s, NULL, 0), 1);
	}
}

/* ---- file round trips in a private temp directory ---- */

static char tmpdir[64];

static int g2l_suite_init(void)
{
	strcpy(tmpdir, "/tmp/nanosm-g2l-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int g2l_remove(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Remove our own mkdtemp directory, depth first, never following links. */
static int g2l_suite_clean(void)
{
	if (strncmp(tmpdir, "/tmp/nanosm-g2l-", 16) != 0)
		return -1;
	return nftw(tmpdir, g2l_remove, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	CU_ASSERT_EQUAL(fclose(f), 0);
}

/* Is msg among the report's messages (a substring of one)? */
static int said(const struct guid2lid_report *r, const char *msg)
{
	for (size_t i = 0; i < r->n_msg; i++)
		if (strstr(r->msg[i].text, msg))
			return 1;
	return 0;
}

static void load(const char *path, struct lid_alloc *b, struct guid2lid_report *r)
{
	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(b, 0xBFFF), 0);
	CU_ASSERT_EQUAL(guid2lid_load(path, b, 1800000000u, r), 0);
}

static void test_guid2lid_save_load(void)
{
	struct lid_alloc a, b;
	char path[128], tmp[140], bak[140], err[256];
	struct guid2lid_report r;
	struct stat st;

	snprintf(path, sizeof(path), "%s/var/lib/nanosm/guid2lid", tmpdir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	snprintf(bak, sizeof(bak), "%s.bak", path);
	fill(&a);
	lid_alloc_set_seen(&a, G(0xc3), 1700000000u);
	CU_ASSERT_EQUAL(guid2lid_save(path, &a, err, sizeof(err)), 0); /* makes the dirs */
	CU_ASSERT_STRING_EQUAL(err, "");
	CU_ASSERT_EQUAL(stat(tmp, &st), -1);
	CU_ASSERT_EQUAL(stat(bak, &st), -1); /* nothing to keep yet */
	CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL((size_t)st.st_size, guid2lid_format(&a, NULL, 0));
	load(path, &b, &r);
	CU_ASSERT_EQUAL(r.source, GUID2LID_MAIN);
	CU_ASSERT_EQUAL(r.loaded, 3);
	CU_ASSERT_EQUAL_FATAL(r.n_msg, 1);
	CU_ASSERT_FALSE(r.msg[0].warn);
	CU_ASSERT(said(&r, "loaded 3 LID(s) from"));
	CU_ASSERT(same_map(&a, &b));
	/* last-seen times come back; a mapping without one is stamped now */
	CU_ASSERT_EQUAL(lid_alloc_seen(&b, G(0xc3)), 1700000000u);
	CU_ASSERT_EQUAL(lid_alloc_seen(&b, 0xf452140300001234ULL), 1800000000u);
	guid2lid_report_fini(&r);
	lid_alloc_fini(&b);
	/* save again: the first file becomes the .bak */
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(9), 9), 0);
	CU_ASSERT_EQUAL(guid2lid_save(path, &a, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(stat(bak, &st), 0);
	load(bak, &b, &r);
	CU_ASSERT_EQUAL(r.loaded, 3);
	guid2lid_report_fini(&r);
	lid_alloc_fini(&b);
	load(path, &b, &r);
	CU_ASSERT_EQUAL(r.loaded, 4);
	CU_ASSERT(same_map(&a, &b));
	guid2lid_report_fini(&r);
	lid_alloc_fini(&b);
	lid_alloc_fini(&a);
}

/* Cut the file at path to len bytes. */
static void cut_file(const char *path, off_t len)
{
	CU_ASSERT_EQUAL(truncate(path, len), 0);
}

static void test_guid2lid_rotation_keeps_good_bak(void)
{
	struct lid_alloc a, b;
	char path[128], bak[140], err[512];
	struct guid2lid_report r;

	snprintf(path, sizeof(path), "%s/rot", tmpdir);
	snprintf(bak, sizeof(bak), "%s.bak", path);
	fill(&a);
	CU_ASSERT_EQUAL(guid2lid_save(path, &a, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(9), 9), 0);
	CU_ASSERT_EQUAL(guid2lid_save(path, &a, err, sizeof(err)), 0); /* bak: 3 */
	/* the main file gets damaged; the next save must not copy it over the
	 * good .bak (it says so: 1), and writes a good main file */
	cut_file(path, 40);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(10), 10), 0);
	CU_ASSERT_EQUAL(guid2lid_save(path, &a, err, sizeof(err)), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no end line"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "which is kept"));
	load(bak, &b, &r);
	CU_ASSERT_EQUAL(r.source, GUID2LID_MAIN);
	CU_ASSERT_EQUAL(r.loaded, 3);
	guid2lid_report_fini(&r);
	lid_alloc_fini(&b);
	load(path, &b, &r);
	CU_ASSERT_EQUAL(r.loaded, 5);
	guid2lid_report_fini(&r);
	lid_alloc_fini(&b);
	lid_alloc_fini(&a);
}

static void test_guid2lid_fallback(void)
{
	struct lid_alloc a, b;
	char path[128], bak[140], err[512], want[400];
	struct guid2lid_report r;

	snprintf(path, sizeof(path), "%s/fb", tmpdir);
	snprintf(bak, sizeof(bak), "%s.bak", path);
	fill(&a);
	CU_ASSERT_EQUAL(guid2lid_save(path, &a, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(9), 9), 0);
	CU_ASSERT_EQUAL(guid2lid_save(path, &a, err, sizeof(err)), 0);
	/* main cut short: the .bak (one save older) is used, and said */
	cut_file(path, 60);
	load(path, &b, &r);
	CU_ASSERT_EQUAL(r.source, GUID2LID_BAK);
	CU_ASSERT_EQUAL(r.loaded, 3);
	snprintf(want, sizeof(want), "NSM-E113 %s unusable: no end line: the file was cut short; "
				     "trying %s", path, bak);
	CU_ASSERT(said(&r, want));
	snprintf(want, sizeof(want), "NSM-E113 %s is unusable: using %s", path, bak);
	CU_ASSERT(said(&r, want));
	CU_ASSERT_EQUAL(lid_alloc_lookup(&b, G(9)), 0);
	CU_ASSERT_EQUAL(lid_alloc_lookup(&b, 0x0002c90300a1b2c3ULL), 1);
	guid2lid_report_fini(&r);
	lid_alloc_fini(&b);
	/* main missing: the .bak */
	CU_ASSERT_EQUAL(unlink(path), 0);
	load(path, &b, &r);
	CU_ASSERT_EQUAL(r.source, GUID2LID_BAK);
	CU_ASSERT(said(&r, "is missing: using"));
	guid2lid_report_fini(&r);
	lid_alloc_fini(&b);
	/* both damaged: nothing loaded, and the ports' own LIDs are named */
	write_file(path, "\x01\x02garbage\n");
	cut_file(bak, 30);
	load(path, &b, &r);
	CU_ASSERT_EQUAL(r.source, GUID2LID_EMPTY);
	CU_ASSERT_EQUAL(r.loaded, 0);
	CU_ASSERT_EQUAL(lid_alloc_count(&b), 0);
	CU_ASSERT(said(&r, "NSM-W111"));
	CU_ASSERT(said(&r, "NSM-E114"));
	CU_ASSERT(said(&r, "each port keeps the LID it carries"));
	guid2lid_report_fini(&r);
	lid_alloc_fini(&b);
	/* main unreadable (a directory) and no .bak: E110 then E114 */
	snprintf(path, sizeof(path), "%s/fbdir", tmpdir);
	CU_ASSERT_EQUAL_FATAL(mkdir(path, 0755), 0);
	load(path, &b, &r);
	CU_ASSERT_EQUAL(r.source, GUID2LID_EMPTY);
	snprintf(want, sizeof(want), "NSM-E110 %s: %s", path, strerror(EISDIR));
	CU_ASSERT(said(&r, want));
	CU_ASSERT(said(&r, "NSM-E114"));
	guid2lid_report_fini(&r);
	lid_alloc_fini(&b);
	lid_alloc_fini(&a);
}

static void test_guid2lid_load_missing(void)
{
	struct lid_alloc a;
	char path[128];
	struct guid2lid_report r;

	snprintf(path, sizeof(path), "%s/no/such/guid2lid", tmpdir);
	load(path, &a, &r);
	CU_ASSERT_EQUAL(r.source, GUID2LID_NONE);
	CU_ASSERT_EQUAL(r.loaded, 0);
	CU_ASSERT_EQUAL_FATAL(r.n_msg, 1);
	CU_ASSERT_FALSE(r.msg[0].warn); /* a first start is no warning */
	guid2lid_report_fini(&r);
	lid_alloc_fini(&a);
}

static void test_guid2lid_load_conflicts(void)
{
	struct lid_alloc a;
	char path[128], want[256];
	struct guid2lid_report r;

	/* an OpenSM-style file (no header) with one bad line in five */
	snprintf(path, sizeof(path), "%s/conflicts", tmpdir);
	write_file(path, "0x0002c90300a1b201 0x0001 0x0001\n"
			 "0x0002c90300a1b202 0x0002 0x0002\n"
			 "0x0002c90300a1b203 0x0003 0x0003\n"
			 "0x0002c90300a1b204 0x0004 0x0004\n"
			 "0x0002c90300a1b205 0xc000 0xc000\n");
	/* static LIDs are reserved first and win */
	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, 0xBFFF), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(0x77), 2), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(3), 0x30), 0);
	CU_ASSERT_EQUAL(guid2lid_load(path, &a, 5, &r), 0);
	CU_ASSERT_EQUAL(r.source, GUID2LID_MAIN);
	CU_ASSERT_EQUAL(r.loaded, 2);
	snprintf(want, sizeof(want), "NSM-W111 %s:5: LID 0xc000 out of unicast range", path);
	CU_ASSERT(said(&r, want));
	snprintf(want, sizeof(want),
		 "NSM-W115 %s:2: LID 0x0002 is reserved for 0x0002c90300a1b277 (a static LID): "
		 "0x0002c90300a1b202 skipped", path);
	CU_ASSERT(said(&r, want));
	snprintf(want, sizeof(want),
		 "NSM-W115 %s:3: 0x0002c90300a1b203 has the static LID 0x0030: LID 0x0003 skipped",
		 path);
	CU_ASSERT(said(&r, want));
	CU_ASSERT_EQUAL(lid_alloc_lookup(&a, G(1)), 1);
	CU_ASSERT_EQUAL(lid_alloc_lookup(&a, G(2)), 0);
	CU_ASSERT_EQUAL(lid_alloc_lookup(&a, G(3)), 0x30);
	CU_ASSERT_EQUAL(lid_alloc_lookup(&a, G(4)), 4);
	CU_ASSERT_EQUAL(lid_alloc_seen(&a, G(4)), 5);
	guid2lid_report_fini(&r);
	lid_alloc_fini(&a);
}

static void test_guid2lid_load_truncated(void)
{
	struct lid_alloc a;
	char path[128], want[256];
	struct guid2lid_report r;

	snprintf(path, sizeof(path), "%s/truncated", tmpdir);
	write_file(path, "0x0002c90300a1b201 0x0001 0x0001\n0x0002c90300a1b202 0x0002 0x0002\n"
			 "0x0002c90300a1b203 0x0003 0x0003\n0x0002c90300a1b204 0x00");
	load(path, &a, &r);
	CU_ASSERT_EQUAL(r.source, GUID2LID_MAIN);
	CU_ASSERT_EQUAL(r.loaded, 3);
	snprintf(want, sizeof(want),
		 "NSM-W111 %s:4: truncated last line (no newline at end of file)", path);
	CU_ASSERT(said(&r, want));
	guid2lid_report_fini(&r);
	lid_alloc_fini(&a);
}

/* ---- through the SM: a damaged file, the ports' own LIDs stay ---- */

static const char g2l_lab[] = "Hca 1 \"h1\"\n[1] \"sw\"[1]\n\n"
			      "Hca 1 \"h2\"\n[1] \"sw\"[2]\n\n"
			      "Hca 1 \"h3\"\n[1] \"sw\"[3]\n\n"
			      "Switch 8 \"sw\"\n"
			      "[1] \"h1\"[1]\n[2] \"h2\"[1]\n[3] \"h3\"[1]\n";

static uint16_t port_lid(const struct fabric *f, const char *desc)
{
	int i = rig_node(f, desc);

	CU_ASSERT_FATAL(i != FABRIC_NONE);
	return f->nodes[i].ports[fabric_is_switch(&f->nodes[i]) ? 0 : 1].lid;
}

static void test_guid2lid_sm_keeps_port_lids(void)
{
	static const char *const nodes[] = {"h1", "h2", "h3", "sw"};
	char path[128], bak[140], text[512], err[256];
	const struct fabric *st;
	uint16_t want[4];
	struct rig r;
	size_t off = 0;

	snprintf(path, sizeof(path), "%s/sm", tmpdir);
	snprintf(bak, sizeof(bak), "%s.bak", path);
	/* first life: a file gives the ports LIDs far from the lowest free */
	memset(&r, 0, sizeof(r));
	fabric_init(&r.topo);
	CU_ASSERT_EQUAL_FATAL(topo_parse(g2l_lab, strlen(g2l_lab), "lab", &r.topo, err, sizeof(err)), 0);
	for (int i = 0; i < 4; i++) {
		const struct fabric_node *n = &r.topo.nodes[rig_node(&r.topo, nodes[i])];
		uint64_t g = n->ports[fabric_is_switch(n) ? 0 : 1].guid;

		off += (size_t)snprintf(text + off, sizeof(text) - off,
					"0x%016llx 0x%04x 0x%04x\n", (unsigned long long)g,
					0x100 + 7 * i, 0x100 + 7 * i);
	}
	write_file(path, text);
	r.ff = fake_fabric_new(&r.topo);
	rig_start_sm(&r, path, "minhop");
	rig_sweep(&r);
	st = fake_fabric_state(r.ff);
	for (int i = 0; i < 4; i++) {
		want[i] = port_lid(st, nodes[i]);
		CU_ASSERT_EQUAL(want[i], 0x100 + 7 * i);
	}
	sm_free(r.sm);
	/* both files damaged while the SM was down; the ports still hold their
	 * LIDs: a new SM keeps every one of them, none moves to 1..4 */
	write_file(path, "\x7f\x45\x4c\x46 binary junk\n");
	write_file(bak, "0x0002c90300a1b2c3 0x00");
	rig_start_sm(&r, path, "minhop");
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	st = fake_fabric_state(r.ff);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(port_lid(st, nodes[i]), want[i]);
	rig_check_up(&r);
	rig_fini(&r);
}

static void test_guid2lid_save_errors(void)
{
	struct lid_alloc a;
	char file[128], path[160], err[256];

	snprintf(file, sizeof(file), "%s/plainfile", tmpdir);
	write_file(file, "not a directory\n");
	fill(&a);
	/* parent "directory" is a regular file */
	snprintf(path, sizeof(path), "%s/guid2lid", file);
	CU_ASSERT_EQUAL(guid2lid_save(path, &a, err, sizeof(err)), -ENOTDIR);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, file));
	/* a component further up is a file: mkdir -p fails naming it */
	snprintf(path, sizeof(path), "%s/sub/guid2lid", file);
	CU_ASSERT_EQUAL(guid2lid_save(path, &a, err, sizeof(err)), -ENOTDIR);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, file));
	/* target is a directory: rename fails, the temp file is removed */
	snprintf(path, sizeof(path), "%s/adir", tmpdir);
	CU_ASSERT_EQUAL_FATAL(mkdir(path, 0755), 0);
	CU_ASSERT_EQUAL(guid2lid_save(path, &a, err, sizeof(err)), -EISDIR);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
	strcat(path, ".tmp");
	CU_ASSERT_EQUAL(access(path, F_OK), -1);
	lid_alloc_fini(&a);
}

void test_guid2lid_register(void)
{
	CU_pSuite s = CU_add_suite("guid2lid", g2l_suite_init, g2l_suite_clean);

	if (!s)
		return;
	CU_add_test(s, "format", test_guid2lid_format);
	CU_add_test(s, "format -> parse round trip", test_guid2lid_round_trip);
	CU_add_test(s, "tolerant parse", test_guid2lid_tolerant);
	CU_add_test(s, "bad lines: exact errors", test_guid2lid_bad_lines);
	CU_add_test(s, "a message per bad line, good lines kept, threshold",
		    test_guid2lid_messages);
	CU_add_test(s, "messages capped, counted", test_guid2lid_messages_capped);
	CU_add_test(s, "binary junk", test_guid2lid_binary);
	CU_add_test(s, "duplicate GUIDs and LIDs", test_guid2lid_duplicates);
	CU_add_test(s, "whole-file check: cut, changed, extra, hand edit",
		    test_guid2lid_whole_file);
	CU_add_test(s, "truncated last line", test_guid2lid_truncated);
	CU_add_test(s, "save/load round trip, .bak rotation", test_guid2lid_save_load);
	CU_add_test(s, "a damaged file never overwrites a good .bak",
		    test_guid2lid_rotation_keeps_good_bak);
	CU_add_test(s, "load falls back to .bak, then to nothing", test_guid2lid_fallback);
	CU_add_test(s, "load: missing file", test_guid2lid_load_missing);
	CU_add_test(s, "load: bad lines and static LID conflicts", test_guid2lid_load_conflicts);
	CU_add_test(s, "load: truncated file", test_guid2lid_load_truncated);
	CU_add_test(s, "save errors", test_guid2lid_save_errors);
	CU_add_test(s, "SM: both files damaged, ports keep their LIDs",
		    test_guid2lid_sm_keeps_port_lids);
}
