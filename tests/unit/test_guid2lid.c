/*
 * test_guid2lid.c - unit tests for sm/guid2lid.c: format, tolerant parse,
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

#include "sm/guid2lid.h"
#include "sm/lid_alloc.h"
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

static void reserve_one(void *ctx, uint64_t guid, uint16_t lid, int line)
{
	(void)line;
	CU_ASSERT_EQUAL(lid_alloc_reserve(ctx, guid, lid), 0);
}

static int parse_str(const char *text, struct seen *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	return guid2lid_parse(text, strlen(text), "guid2lid", seen_one, s, err, errlen);
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
	static const char want[] = "0x0002c90300a1b2c3 0x0001 0x0001\n"
				   "0xf452140300001234 0x001a 0x001a\n"
				   "0x0000000000000001 0xbfff 0xbfff\n";
	struct lid_alloc a;
	char buf[256], small[40];

	fill(&a);
	CU_ASSERT_EQUAL(guid2lid_format(&a, NULL, 0), strlen(want));
	CU_ASSERT_EQUAL(guid2lid_format(&a, buf, sizeof(buf)), strlen(want));
	CU_ASSERT_STRING_EQUAL(buf, want);
	/* too small: truncated like snprintf, still NUL-terminated */
	CU_ASSERT_EQUAL(guid2lid_format(&a, small, sizeof(small)), strlen(want));
	CU_ASSERT_EQUAL(strlen(small), sizeof(small) - 1);
	CU_ASSERT_EQUAL(strncmp(small, want, sizeof(small) - 1), 0);
	lid_alloc_fini(&a);
	/* empty map: empty text */
	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, 0xBFFF), 0);
	buf[0] = 'x';
	CU_ASSERT_EQUAL(guid2lid_format(&a, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "");
	lid_alloc_fini(&a);
}

static void test_guid2lid_round_trip(void)
{
	struct lid_alloc a, b;
	char buf[256], err[128];

	fill(&a);
	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&b, 0xBFFF), 0);
	size_t len = guid2lid_format(&a, buf, sizeof(buf));
	CU_ASSERT_EQUAL(guid2lid_parse(buf, len, "rt", reserve_one, &b, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(err, "");
	CU_ASSERT(same_map(&a, &b));
	lid_alloc_fini(&a);
	lid_alloc_fini(&b);
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
	CU_ASSERT_STRING_EQUAL(err, "");
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

static void test_guid2lid_first_error_only(void)
{
	static const char text[] = "0x0002c90300a1b2c1 0x0001 0x0001\n"
				   "# comment\n"
				   "0x0002c90300a1b2c3 0xc000 0xc000\n"
				   "0x0002c90300a1b2c4 0x0004 0x0004\n"
				   "0x0002c90300a1b2c5 five\n"
				   "0x0002c90300a1b2c6 0x0006 0x0006\n";
	struct seen s;
	char err[128], tiny[12];

	CU_ASSERT_EQUAL(parse_str(text, &s, err, sizeof(err)), 2);
	CU_ASSERT_STRING_EQUAL(err, "guid2lid:3: LID 0xc000 out of unicast range");
	CU_ASSERT_EQUAL(s.n, 3); /* good lines around the bad ones still count */
	CU_ASSERT_EQUAL(s.lid[2], 6);
	CU_ASSERT_EQUAL(s.line[2], 6);
	/* the second bad line reported on its own (line 2 of the tail) */
	CU_ASSERT_EQUAL(parse_str(strstr(text, "0x0002c90300a1b2c4"), &s, err, sizeof(err)), 1);
	CU_ASSERT_STRING_EQUAL(err, "guid2lid:2: expected \"0x<guid> 0x<lid> 0x<lid>\"");
	/* a short err buffer is truncated, not overrun; NULL err is fine */
	CU_ASSERT_EQUAL(parse_str(text, &s, tiny, sizeof(tiny)), 2);
	CU_ASSERT_STRING_EQUAL(tiny, "guid2lid:3:");
	CU_ASSERT_EQUAL(parse_str(text, &s, NULL, 0), 2);
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
		CU_ASSERT_EQUAL(guid2lid_parse(line, cut, "t", seen_one, &s, NULL, 0), 1);
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

static void test_guid2lid_save_load(void)
{
	struct lid_alloc a, b;
	char path[128], tmp[140], err[256];
	size_t loaded, bad;
	struct stat st;

	snprintf(path, sizeof(path), "%s/var/lib/nanosm/guid2lid", tmpdir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fill(&a);
	CU_ASSERT_EQUAL(guid2lid_save(path, &a, err, sizeof(err)), 0); /* makes the dirs */
	CU_ASSERT_STRING_EQUAL(err, "");
	CU_ASSERT_EQUAL(stat(tmp, &st), -1);
	CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, 3 * 33);
	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&b, 0xBFFF), 0);
	CU_ASSERT_EQUAL(guid2lid_load(path, &b, &loaded, &bad, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(loaded, 3);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(same_map(&a, &b));
	/* save again over it (rename replaces), now with one more entry */
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(9), 9), 0);
	CU_ASSERT_EQUAL(guid2lid_save(path, &a, err, sizeof(err)), 0);
	lid_alloc_fini(&b);
	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&b, 0xBFFF), 0);
	CU_ASSERT_EQUAL(guid2lid_load(path, &b, &loaded, &bad, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(loaded, 4);
	CU_ASSERT(same_map(&a, &b));
	lid_alloc_fini(&a);
	lid_alloc_fini(&b);
}

static void test_guid2lid_load_missing(void)
{
	struct lid_alloc a;
	char path[128], err[256];
	size_t loaded = 7, bad = 7;

	snprintf(path, sizeof(path), "%s/no/such/guid2lid", tmpdir);
	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, 0xBFFF), 0);
	CU_ASSERT_EQUAL(guid2lid_load(path, &a, &loaded, &bad, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(loaded, 0);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_STRING_EQUAL(err, "");
	/* a directory is unreadable as a file: an error naming the path */
	CU_ASSERT_EQUAL(guid2lid_load(tmpdir, &a, &loaded, &bad, err, sizeof(err)), -EISDIR);
	CU_ASSERT_EQUAL(strncmp(err, tmpdir, strlen(tmpdir)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, strerror(EISDIR)));
	lid_alloc_fini(&a);
}

static void test_guid2lid_load_conflicts(void)
{
	struct lid_alloc a;
	char path[128], want[256], err[256];
	size_t loaded, bad;

	snprintf(path, sizeof(path), "%s/conflicts", tmpdir);
	write_file(path, "0x0002c90300a1b201 0x0001 0x0001\n"
			 "0x0002c90300a1b202 0x0001 0x0001\n" /* LID 1 twice */
			 "0x0002c90300a1b201 0x0003 0x0003\n" /* GUID twice */
			 "0x0002c90300a1b204 0x0004 0x0004\n"
			 "0x0002c90300a1b205 0xc000 0xc000\n"	/* bad line */
			 "0x0002c90300a1b206 0x0100 0x0100\n"); /* above max_lid */
	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, 0xFF), 0);
	CU_ASSERT_EQUAL(guid2lid_load(path, &a, &loaded, &bad, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(loaded, 2);
	CU_ASSERT_EQUAL(bad, 4);
	snprintf(want, sizeof(want),
		 "%s:2: LID 0x0001 already belongs to 0x0002c90300a1b201, skipped", path);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_EQUAL(lid_alloc_lookup(&a, G(1)), 1);
	CU_ASSERT_EQUAL(lid_alloc_lookup(&a, G(2)), 0);
	CU_ASSERT_EQUAL(lid_alloc_lookup(&a, G(4)), 4);
	CU_ASSERT_EQUAL(lid_alloc_owner(&a, 3), 0);
	lid_alloc_fini(&a);

	/* the GUID-twice and range messages, each as the first error */
	write_file(path, "0x0002c90300a1b201 0x0001 0x0001\n"
			 "0x0002c90300a1b201 0x0003 0x0003\n");
	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, 0xFF), 0);
	CU_ASSERT_EQUAL(guid2lid_load(path, &a, &loaded, &bad, err, sizeof(err)), 0);
	snprintf(want, sizeof(want),
		 "%s:2: GUID 0x0002c90300a1b201 already has LID 0x0001, skipped", path);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_EQUAL(bad, 1);
	write_file(path, "\n0x0002c90300a1b206 0x0100 0x0100\n");
	CU_ASSERT_EQUAL(guid2lid_load(path, &a, &loaded, &bad, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%s:2: LID 0x0100 above max LID 0x00ff, skipped", path);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_EQUAL(loaded, 0);
	CU_ASSERT_EQUAL(bad, 1);
	lid_alloc_fini(&a);
}

static void test_guid2lid_load_truncated(void)
{
	struct lid_alloc a;
	char path[128], want[256], err[256];
	size_t loaded, bad;

	snprintf(path, sizeof(path), "%s/truncated", tmpdir);
	write_file(path, "0x0002c90300a1b201 0x0001 0x0001\n0x0002c90300a1b202 0x00");
	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, 0xBFFF), 0);
	CU_ASSERT_EQUAL(guid2lid_load(path, &a, &loaded, &bad, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(loaded, 1);
	CU_ASSERT_EQUAL(bad, 1);
	snprintf(want, sizeof(want), "%s:2: truncated last line (no newline at end of file)", path);
	CU_ASSERT_STRING_EQUAL(err, want);
	lid_alloc_fini(&a);
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
	CU_add_test(s, "first error only, good lines kept", test_guid2lid_first_error_only);
	CU_add_test(s, "truncated last line", test_guid2lid_truncated);
	CU_add_test(s, "save/load round trip", test_guid2lid_save_load);
	CU_add_test(s, "load: missing file, unreadable", test_guid2lid_load_missing);
	CU_add_test(s, "load: conflicts skipped", test_guid2lid_load_conflicts);
	CU_add_test(s, "load: truncated file", test_guid2lid_load_truncated);
	CU_add_test(s, "save errors", test_guid2lid_save_errors);
}
