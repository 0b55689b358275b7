/*
 * test_log.c - unit tests for sm/core/log.c: level names and parsing, syslog
 * priorities, $JOURNAL_STREAM matching, the line layout (timestamped and
 * "<N>"-prefixed, one line whatever the message, cut like snprintf), and
 * the log file: lines appended, a reopen after the file was moved away
 * writes to a new file, a failed reopen keeps the old one and says so.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/policy.h"
#include "sm/core/log.h"
#include "tests/unit/unit.h"

static void test_log_levels(void)
{
	int level = -1;

	CU_ASSERT_EQUAL(log_level_parse("err", &level), 0);
	CU_ASSERT_EQUAL(level, LOG_LVL_ERR);
	CU_ASSERT_EQUAL(log_level_parse("error", &level), 0);
	CU_ASSERT_EQUAL(level, LOG_LVL_ERR);
	CU_ASSERT_EQUAL(log_level_parse("warn", &level), 0);
	CU_ASSERT_EQUAL(level, LOG_LVL_WARN);
	CU_ASSERT_EQUAL(log_level_parse("warning", &level), 0);
	CU_ASSERT_EQUAL(level, LOG_LVL_WARN);
	CU_ASSERT_EQUAL(log_level_parse("INFO", &level), 0);
	CU_ASSERT_EQUAL(level, LOG_LVL_INFO);
	CU_ASSERT_EQUAL(log_level_parse("debug", &level), 0);
	CU_ASSERT_EQUAL(level, LOG_LVL_DEBUG);
	/* anything else is refused and leaves the level alone */
	CU_ASSERT_EQUAL(log_level_parse("verbose", &level), -EINVAL);
	CU_ASSERT_EQUAL(log_level_parse("", &level), -EINVAL);
	CU_ASSERT_EQUAL(log_level_parse("info ", &level), -EINVAL);
	CU_ASSERT_EQUAL(log_level_parse("2", &level), -EINVAL);
	CU_ASSERT_EQUAL(log_level_parse(NULL, &level), -EINVAL);
	CU_ASSERT_EQUAL(level, LOG_LVL_DEBUG);

	CU_ASSERT_STRING_EQUAL(log_level_name(LOG_LVL_ERR), "error");
	CU_ASSERT_STRING_EQUAL(log_level_name(LOG_LVL_WARN), "warning");
	CU_ASSERT_STRING_EQUAL(log_level_name(LOG_LVL_INFO), "info");
	CU_ASSERT_STRING_EQUAL(log_level_name(LOG_LVL_DEBUG), "debug");
	CU_ASSERT_STRING_EQUAL(log_level_name(7), "?");
	CU_ASSERT_STRING_EQUAL(log_level_name(-1), "?");
	/* every name parses back to its level */
	for (int l = LOG_LVL_ERR; l <= LOG_LVL_DEBUG; l++) {
		CU_ASSERT_EQUAL(log_level_parse(log_level_name(l), &level), 0);
		CU_ASSERT_EQUAL(level, l);
	}

	/* sd-daemon(3): SD_ERR "<3>", SD_WARNING "<4>", SD_INFO "<6>", SD_DEBUG "<7>" */
	CU_ASSERT_EQUAL(log_syslog_priority(LOG_LVL_ERR), 3);
	CU_ASSERT_EQUAL(log_syslog_priority(LOG_LVL_WARN), 4);
	CU_ASSERT_EQUAL(log_syslog_priority(LOG_LVL_INFO), 6);
	CU_ASSERT_EQUAL(log_syslog_priority(LOG_LVL_DEBUG), 7);
	CU_ASSERT_EQUAL(log_syslog_priority(9), 7);
}

/* --log-level and the policy's sm.log_level take the same words: each
 * word is taken by both or by neither, for the same level. */
static void test_log_level_words_shared(void)
{
	static const char *const words[] = {"error", "err",    "ERROR", "warning", "warn",  "Warn",
					    "info",  "INFO",   "debug", "verbose", "trace", "2",
					    "e",     "notice", "crit",	"warnings"};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		char yaml[64], err[256];
		struct policy p;
		int level = -1, opt, file;

		snprintf(yaml, sizeof(yaml), "sm:\n  log_level: %s\n", words[i]);
		opt = log_level_parse(words[i], &level);
		file = policy_parse(yaml, strlen(yaml), "p.yaml", &p, err, sizeof(err));
		if ((opt == 0) != (file == 0))
			fprintf(stderr, "\n'%s': --log-level %s, sm.log_level %s (%s)\n", words[i],
				opt ? "refused" : "taken", file ? "refused" : "taken", err);
		CU_ASSERT_EQUAL(opt == 0, file == 0);
		if (opt == 0 && file == 0)
			CU_ASSERT_EQUAL(level, (int)p.sm.log_level);
		if (file == 0)
			policy_fini(&p);
		else
			CU_ASSERT_PTR_NOT_NULL(strstr(err, POLICY_LOG_LEVEL_WORDS));
	}
}

/* The ID decides the level: NSM-E... is an error, NSM-W... at least a
 * warning, whatever function logs it. */
static void test_log_id_level(void)
{
	CU_ASSERT_EQUAL(log_id_level("NSM-E600 reload refused", LOG_LVL_WARN), LOG_LVL_ERR);
	CU_ASSERT_EQUAL(log_id_level("NSM-E110 x", LOG_LVL_INFO), LOG_LVL_ERR);
	CU_ASSERT_EQUAL(log_id_level("NSM-W410 x", LOG_LVL_INFO), LOG_LVL_WARN);
	CU_ASSERT_EQUAL(log_id_level("NSM-W410 x", LOG_LVL_ERR), LOG_LVL_ERR);
	CU_ASSERT_EQUAL(log_id_level("NSM-W410 x", LOG_LVL_DEBUG), LOG_LVL_WARN);
	CU_ASSERT_EQUAL(log_id_level("routing engine ftree failed", LOG_LVL_INFO), LOG_LVL_INFO);
	CU_ASSERT_EQUAL(log_id_level("NSM-Exyz", LOG_LVL_INFO), LOG_LVL_INFO);
	CU_ASSERT_EQUAL(log_id_level(" NSM-E100", LOG_LVL_WARN), LOG_LVL_WARN);
	CU_ASSERT_EQUAL(log_id_level("NSM-", LOG_LVL_WARN), LOG_LVL_WARN);
	CU_ASSERT_EQUAL(log_id_level(NULL, LOG_LVL_DEBUG), LOG_LVL_DEBUG);
}

static void test_log_journal_match(void)
{
	CU_ASSERT_EQUAL(log_journal_match("12:345", 12, 345), 1);
	CU_ASSERT_EQUAL(log_journal_match("0:1", 0, 1), 1);
	CU_ASSERT_EQUAL(log_journal_match("18446744073709551615:9", 18446744073709551615ULL, 9), 1);
	CU_ASSERT_EQUAL(log_journal_match("12:345", 12, 346), 0);
	CU_ASSERT_EQUAL(log_journal_match("12:345", 13, 345), 0);
	CU_ASSERT_EQUAL(log_journal_match(NULL, 12, 345), 0);
	CU_ASSERT_EQUAL(log_journal_match("", 0, 0), 0);
	CU_ASSERT_EQUAL(log_journal_match("12", 12, 0), 0);
	CU_ASSERT_EQUAL(log_journal_match("12:", 12, 0), 0);
	CU_ASSERT_EQUAL(log_journal_match(":345", 0, 345), 0);
	CU_ASSERT_EQUAL(log_journal_match("12:345x", 12, 345), 0);
	CU_ASSERT_EQUAL(log_journal_match("12:345:1", 12, 345), 0);
	CU_ASSERT_EQUAL(log_journal_match("-12:345", 12, 345), 0);
	CU_ASSERT_EQUAL(log_journal_match(" 12:345", 12, 345), 0);
	CU_ASSERT_EQUAL(log_journal_match("12:+345", 12, 345), 0);
	CU_ASSERT_EQUAL(log_journal_match("18446744073709551616:1", 0, 1), 0); /* overflow */
}

static void test_log_format(void)
{
	struct log_line l = {LOG_LVL_WARN,
			     0,
			     "12:00:01.042",
			     "nanosm",
			     "warning: ",
			     "NSM-W901 something",
			     "No such file or directory"};
	char buf[256], small[12];
	size_t n;

	n = log_format(&l, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "12:00:01.042 nanosm: warning: NSM-W901 something: No such "
				    "file or directory\n");
	CU_ASSERT_EQUAL(n, strlen(buf));

	/* journal: priority first, no timestamp, no program name */
	l.syslog_prefix = 1;
	l.err = NULL;
	log_format(&l, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "<4>warning: NSM-W901 something\n");
	l.level = LOG_LVL_INFO;
	l.tag = "";
	l.msg = "SUBNET UP: switches=1";
	log_format(&l, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "<6>SUBNET UP: switches=1\n");
	l.level = LOG_LVL_ERR;
	l.tag = "fatal: ";
	log_format(&l, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "<3>fatal: SUBNET UP: switches=1\n");

	/* a message with newlines stays one line (no unprefixed journal line) */
	l.level = LOG_LVL_DEBUG;
	l.tag = "debug: ";
	l.msg = "READY=1\nSTATUS=x\r";
	log_format(&l, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "<7>debug: READY=1 STATUS=x \n");

	/* cut like snprintf: the length needed, a NUL-terminated prefix */
	l.syslog_prefix = 0;
	n = log_format(&l, small, sizeof(small));
	CU_ASSERT_EQUAL(n, strlen("12:00:01.042 nanosm: debug: READY=1 STATUS=x \n"));
	CU_ASSERT_STRING_EQUAL(small, "12:00:01.04");
	CU_ASSERT_EQUAL(log_format(&l, NULL, 0), n);
}

/* ---- The log file ------------------------------------------------------- */

static char tl_dir[64];

static void tl_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tl_dir, name);
}

/* The whole of a file ("" when missing). */
static void tl_slurp(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, size - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		fclose(f);
}

static unsigned tl_umask(void)
{
	mode_t old = umask(022);

	umask(old);
	return (unsigned)old;
}

static void test_log_file_rotation(void)
{
	char path[128], moved[128], moved2[128], text[4096];
	int level = log_level_get();
	struct stat st;

	snprintf(tl_dir, sizeof(tl_dir), "/tmp/nanosm-test-log.XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tl_dir));
	tl_path(path, sizeof(path), "nanosm.log");
	tl_path(moved, sizeof(moved), "nanosm.log.1");
	tl_path(moved2, sizeof(moved2), "nanosm.log.2");
	log_init(LOG_LVL_INFO, NULL);
	log_syslog_prefix(0);

	CU_ASSERT_EQUAL(log_open_file("/nonexistent-dir/x.log"), -ENOENT);
	CU_ASSERT_PTR_NULL(log_file_path()); /* still stderr */
	CU_ASSERT_EQUAL(log_reopen(), 0);    /* no file: nothing to do */

	CU_ASSERT_EQUAL_FATAL(log_open_file(path), 0);
	CU_ASSERT_STRING_EQUAL(log_file_path(), path);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0640 & ~tl_umask());
	log_info("line one");
	log_debug("not at info level");
	CU_ASSERT_EQUAL(rename(path, moved), 0);
	log_info("line two"); /* still the moved file: nothing reopened yet */
	CU_ASSERT_EQUAL(log_reopen(), 0);
	log_info("line three");
	tl_slurp(moved, text, sizeof(text));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, ": line one\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, ": line two\n"));
	CU_ASSERT_PTR_NULL(strstr(text, "line three"));
	CU_ASSERT_PTR_NULL(strstr(text, "not at info level"));
	tl_slurp(path, text, sizeof(text));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, ": line three\n"));
	CU_ASSERT_PTR_NULL(strstr(text, "line two"));

	/* the path is now a directory: the reopen fails, the old file stays */
	CU_ASSERT_EQUAL(rename(path, moved2), 0);
	CU_ASSERT_EQUAL(mkdir(path, 0700), 0);
	CU_ASSERT_EQUAL(log_reopen(), -EISDIR);
	log_info("line four");
	tl_slurp(moved2, text, sizeof(text));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "warning: NSM-W901 cannot reopen the log file "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, path));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, ": line four\n"));
	CU_ASSERT_STRING_EQUAL(log_file_path(), path);

	/* an error ID is an error line, whichever function logged it, and is
	 * kept at --log-level error while a warning is not */
	log_warnx("NSM-E600 reload refused: %s", "x");
	log_errx("NSM-E403 no engine");
	log_warnx("%s", "NSM-E110 /var/lib/nanosm/guid2lid: bad");
	log_info("NSM-W231 sweep left work undone");
	log_init(LOG_LVL_ERR, NULL);
	log_warnx("NSM-E100 sweep 2 failed");
	log_warnx("NSM-W410 not at error level");
	log_init(LOG_LVL_INFO, NULL);
	tl_slurp(moved2, text, sizeof(text));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, ": error: NSM-E600 reload refused: x\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, ": error: NSM-E403 no engine\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, ": error: NSM-E110 /var/lib/nanosm/guid2lid: bad\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, ": warning: NSM-W231 sweep left work undone\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, ": error: NSM-E100 sweep 2 failed\n"));
	CU_ASSERT_PTR_NULL(strstr(text, "not at error level"));
	CU_ASSERT_PTR_NULL(strstr(text, "warning: NSM-E"));

	/* syslog prefixes in the file when asked for */
	CU_ASSERT_EQUAL(log_syslog_prefix(1), 1);
	log_warnx("line five");
	tl_slurp(moved2, text, sizeof(text));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n<4>warning: line five\n"));
	log_warnx("NSM-E600 line six");
	tl_slurp(moved2, text, sizeof(text));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n<3>error: NSM-E600 line six\n"));
	CU_ASSERT_EQUAL(log_syslog_prefix(0), 0);
	/* automatic: never for a file */
	setenv("JOURNAL_STREAM", "1:1", 1);
	CU_ASSERT_EQUAL(log_syslog_prefix(LOG_PREFIX_AUTO), 0);
	unsetenv("JOURNAL_STREAM");

	log_to_stderr();
	CU_ASSERT_PTR_NULL(log_file_path());
	log_init(level, NULL);
	rmdir(path);
	unlink(moved);
	unlink(moved2);
	rmdir(tl_dir);
}

/* stderr is the journal when $JOURNAL_STREAM names it. */
static void test_log_journal_auto(void)
{
	struct stat st;
	char env[64];

	CU_ASSERT_EQUAL_FATAL(fstat(STDERR_FILENO, &st), 0);
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", env, 1);
	CU_ASSERT_EQUAL(log_syslog_prefix(LOG_PREFIX_AUTO), 1);
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + 1);
	setenv("JOURNAL_STREAM", env, 1);
	CU_ASSERT_EQUAL(log_syslog_prefix(LOG_PREFIX_AUTO), 0);
	unsetenv("JOURNAL_STREAM");
	CU_ASSERT_EQUAL(log_syslog_prefix(LOG_PREFIX_AUTO), 0);
}

void test_log_register(void)
{
	CU_pSuite s = CU_add_suite("log", NULL, NULL);

	CU_add_test(s, "level names, parsing, syslog priorities", test_log_levels);
	CU_add_test(s, "--log-level and sm.log_level take the same words",
		    test_log_level_words_shared);
	CU_add_test(s, "an ID's letter decides the level", test_log_id_level);
	CU_add_test(s, "JOURNAL_STREAM matching", test_log_journal_match);
	CU_add_test(s, "line layout", test_log_format);
	CU_add_test(s, "log file: append, reopen after a move, failed reopen",
		    test_log_file_rotation);
	CU_add_test(s, "journal detected on stderr", test_log_journal_auto);
}
