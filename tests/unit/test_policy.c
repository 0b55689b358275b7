/*
 * test_policy.c - unit tests for config/ (the YAML policy): the golden files
 * (tests/config/NAME.yaml -> NAME.ok, the canonical print of a valid file or
 * the exact error of a broken one; config/examples/NAME.yaml ->
 * tests/config/example-NAME.ok), print -> parse round trips, a policy built
 * in code, the YAML blocks of docs/configuration.md, defaults, diff, the
 * loader, buffer limits and a seeded mutation run.  Paths are relative to
 * the repository root, where `make unit` runs.
 *
 * NANOSM_GOLDEN_UPDATE=1 rewrites the .ok files instead of comparing (see
 * tests/config/run.sh --update; review the diff).  Built with
 * -DTEST_POLICY_MAIN this file is also its own runner (run.sh uses that).
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/policy.h"
#include "tests/unit/unit.h"

void test_policy_register(void); /* until tests/unit/unit.h lists it */

#define GOLDEN_DIR "tests/config"
#define EXAMPLES_DIR "config/examples"
#define DOCS_FILE "docs/configuration.md"

#define G(n) (0x0002c90300a00000ULL + (n))

/* ---- helpers ---- */

/* The whole file, NUL-terminated (malloc'd), or NULL. */
static char *read_text(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!fp)
		return NULL;
	if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		if (buf) {
			buf[n] = '\0';
			*len = (size_t)n;
		}
	}
	fclose(fp);
	return buf;
}

static int write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "wb");
	int ok = fp && fputs(text, fp) >= 0;

	if (fp && fclose(fp) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

/* policy_print into a malloc'd string. */
static char *print_alloc(const struct policy *p)
{
	size_t n = policy_print(p, NULL, 0);
	char *buf = malloc(n + 1);

	if (buf)
		CU_ASSERT_EQUAL(policy_print(p, buf, n + 1), n);
	return buf;
}

static char *diff_alloc(const struct policy *a, const struct policy *b)
{
	size_t n = policy_diff(a, b, NULL, 0);
	char *buf = malloc(n + 1);

	if (buf)
		CU_ASSERT_EQUAL(policy_diff(a, b, buf, n + 1), n);
	return buf;
}

/* p prints to text that parses back equal, prints the same again, and
 * shows no difference with p. */
static int round_trip(const struct policy *p)
{
	char err[512], *text = print_alloc(p), *again = NULL, *diff = NULL;
	struct policy q;
	int ok;

	if (!text)
		return 0;
	ok = policy_parse(text, strlen(text), "printed", &q, err, sizeof(err)) == 0;
	if (!ok)
		fprintf(stderr, "\nprinted policy does not parse: %s\n%s", err, text);
	if (ok) {
		again = print_alloc(&q);
		diff = diff_alloc(p, &q);
		ok = policy_equal(p, &q) && policy_equal(&q, p) && again && !strcmp(text, again) &&
		     diff && diff[0] == '\0';
	}
	policy_fini(&q);
	free(text);
	free(again);
	free(diff);
	return ok;
}

/* A freshly initialised policy (what a failed parse must leave). */
static int is_default(const struct policy *p)
{
	struct policy d;

	policy_init(&d);
	return policy_equal(p, &d) && !p->routing.roots && !p->lids.statics && !p->node_names &&
	       !p->partitions;
}

/* What a user sees for one file: the canonical print, or the error line.
 * *valid says which; valid files must also round-trip. */
static char *golden_actual(const char *text, size_t len, const char *name, int *valid)
{
	struct policy p;
	char err[1024], *out;
	int rc = policy_parse(text, len, name, &p, err, sizeof(err));

	*valid = rc == 0;
	if (rc < 0) {
		CU_ASSERT_EQUAL(rc, -EINVAL);
		CU_ASSERT(is_default(&p));
		out = malloc(strlen(err) + 2);
		if (out)
			sprintf(out, "%s\n", err);
		return out;
	}
	CU_ASSERT(round_trip(&p));
	out = print_alloc(&p);
	policy_fini(&p);
	return out;
}

/* Compare (or, in update mode, write) one golden pair.  Returns 1 when
 * the file parsed, 0 when it failed, -1 when it could not be read. */
static int golden_one(const char *in, const char *ok)
{
	const char *name = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
	char *text, *actual, *expected;
	size_t len, elen;
	int valid;

	text = read_text(in, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	actual = golden_actual(text, len, name, &valid);
	CU_ASSERT_PTR_NOT_NULL_FATAL(actual);
	if (getenv("NANOSM_GOLDEN_UPDATE")) {
		CU_ASSERT_EQUAL(write_text(ok, actual), 0);
	} else {
		expected = read_text(ok, &elen);
		if (!expected || strcmp(expected, actual))
			fprintf(stderr,
				"\n%s: output differs from %s\n--- expected\n%s--- actual\n%s", in,
				ok, expected ? expected : "(missing)\n", actual);
		CU_ASSERT(expected && !strcmp(expected, actual));
		free(expected);
	}
	free(actual);
	free(text);
	return valid;
}

/* ---- golden files ---- */

static void test_policy_golden(void)
{
	size_t valid = 0, invalid = 0;
	glob_t g;

	if (glob(GOLDEN_DIR "/*.yaml", 0, NULL, &g) != 0) {
		fprintf(stderr, "\nno " GOLDEN_DIR "/*.yaml: run from the repository root\n");
		CU_FAIL_FATAL("golden files not found");
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *in = g.gl_pathv[i], *base = strrchr(in, '/') + 1;
		char ok[512];
		int rc;

		snprintf(ok, sizeof(ok), "%.*s.ok", (int)(strlen(in) - 5), in);
		rc = golden_one(in, ok);
		/* the name says which outcome is expected */
		if (strncmp(base, "ok-", 3) && strncmp(base, "bad-", 4))
			fprintf(stderr, "\n%s: golden names start with ok- or bad-\n", in);
		CU_ASSERT(rc == (strncmp(base, "ok-", 3) == 0));
		valid += rc == 1;
		invalid += rc == 0;
	}
	globfree(&g);
	CU_ASSERT(valid >= 4);
	CU_ASSERT(invalid >= 15);
}

/* config/examples/NAME.yaml is valid and prints as example-NAME.ok. */
static void test_policy_examples(void)
{
	glob_t g;

	CU_ASSERT_EQUAL_FATAL(glob(EXAMPLES_DIR "/*.yaml", 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/') + 1;
		char ok[512];

		snprintf(ok, sizeof(ok), GOLDEN_DIR "/example-%.*s.ok", (int)(strlen(base) - 5),
			 base);
		CU_ASSERT_EQUAL(golden_one(g.gl_pathv[i], ok), 1);
	}
	CU_ASSERT(g.gl_pathc >= 1);
	globfree(&g);
}

/* Every ```yaml block of the reference parses and round-trips. */
static void test_policy_docs(void)
{
	size_t len, blocks = 0;
	char *text = read_text(DOCS_FILE, &len);
	char *p = text;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	while ((p = strstr(p, "```yaml\n"))) {
		char *body = p + 8, *end = strstr(body, "\n```"), name[64], err[512];
		struct policy pol;
		unsigned line = 1;
		int rc;

		CU_ASSERT_PTR_NOT_NULL_FATAL(end);
		for (char *c = text; c < body; c++)
			line += *c == '\n';
		snprintf(name, sizeof(name), DOCS_FILE " block at line %u", line);
		rc = policy_parse(body, (size_t)(end - body) + 1, name, &pol, err, sizeof(err));
		if (rc < 0)
			fprintf(stderr, "\n%s\n", err);
		CU_ASSERT_EQUAL(rc, 0);
		if (rc == 0) {
			CU_ASSERT(round_trip(&pol));
		}
		policy_fini(&pol);
		blocks++;
		p = end + 4;
	}
	CU_ASSERT(blocks >= 2);
	free(text);
}

/* ---- code ---- */

static void test_policy_defaults(void)
{
	struct policy p, q;
	char list[64], err[128];

	policy_init(&p);
	CU_ASSERT_EQUAL(p.sm.sweep_interval, 10);
	CU_ASSERT_EQUAL(p.sm.window, 16);
	CU_ASSERT_EQUAL(p.sm.mad_timeout_ms, 200);
	CU_ASSERT_EQUAL(p.sm.mad_retries, 3);
	CU_ASSERT_EQUAL(p.sm.priority, 0);
	CU_ASSERT_EQUAL(p.sm.log_level, POLICY_LOG_INFO);
	CU_ASSERT_STRING_EQUAL(p.sm.guid2lid, "/var/lib/nanosm/guid2lid");
	CU_ASSERT_EQUAL(p.lids.lmc, 0);
	CU_ASSERT_EQUAL(p.sm.guid, 0);
	CU_ASSERT_STRING_EQUAL(p.sm.ca, "");
	CU_ASSERT_EQUAL(p.sm.port, 0);
	CU_ASSERT_EQUAL(p.sm.m_key, 0); /* no M_Key, no protection, no SM_Key */
	CU_ASSERT_EQUAL(p.sm.m_key_protect, 0);
	CU_ASSERT_EQUAL(p.sm.m_key_lease, 0);
	CU_ASSERT_EQUAL(p.sm.sm_key, 0);
	CU_ASSERT_EQUAL(policy_engine_list(&p, list, sizeof(list)), strlen(POLICY_DEFAULT_ENGINES));
	CU_ASSERT_STRING_EQUAL(list, POLICY_DEFAULT_ENGINES);
	CU_ASSERT_EQUAL(policy_engine_list(&p, list, 5), strlen(POLICY_DEFAULT_ENGINES));
	CU_ASSERT_STRING_EQUAL(list, "ftre");
	/* an empty text, a comment, a null document: the defaults */
	CU_ASSERT_EQUAL(policy_parse("", 0, "e", &q, err, sizeof(err)), 0);
	CU_ASSERT(policy_equal(&p, &q));
	CU_ASSERT_EQUAL(policy_parse("# nothing\n", 10, "e", &q, err, sizeof(err)), 0);
	CU_ASSERT(policy_equal(&p, &q));
	CU_ASSERT_EQUAL(policy_parse("---\n~\n", 6, "e", &q, err, sizeof(err)), 0);
	CU_ASSERT(policy_equal(&p, &q));
	CU_ASSERT(round_trip(&p));
	policy_fini(&p);
	CU_ASSERT(is_default(&p));
}

/* Every value away from its default, every list non-empty, every member
 * kind: built with the helpers, printed, parsed back. */
static void build_full(struct policy *p)
{
	struct policy_partition *part;

	policy_init(p);
	p->sm.port = 2;
	snprintf(p->sm.ca, sizeof(p->sm.ca), "mlx5_1");
	p->sm.priority = 7;
	p->sm.sweep_interval = 86400;
	p->sm.window = 4096;
	p->sm.mad_timeout_ms = 60000;
	p->sm.mad_retries = 0;
	snprintf(p->sm.guid2lid, sizeof(p->sm.guid2lid), "/tmp/a \"quoted\" \\ path");
	p->sm.log_level = POLICY_LOG_ERROR;
	p->sm.m_key = 0xffffffffffffffffULL;
	p->sm.m_key_protect = 3;
	p->sm.m_key_lease = 0; /* never expires: fine with any sweep interval */
	p->sm.sm_key = 1;
	p->routing.n_engine = 0;
	p->routing.engine[p->routing.n_engine++] = route_engine_find("minhop");
	p->routing.engine[p->routing.n_engine++] = route_engine_find("ftree");
	CU_ASSERT_EQUAL(policy_root_add(p, 0xffffffffffffffffULL), 0);
	CU_ASSERT_EQUAL(policy_root_add(p, 1), 0);
	for (uint16_t i = 1; i <= 100; i++) /* past a few array doublings */
		CU_ASSERT_EQUAL(policy_static_add(p, G(i), (uint16_t)(0xBFFF - i)), 0);
	CU_ASSERT_EQUAL(policy_node_name_add(p, G(0x10), "host1 ünïcode \"q\""), 0);
	CU_ASSERT_EQUAL(policy_node_name_add(p, G(0x20), "x"), 0);
	part = policy_partition_add(p, "default", 0x7fff, 1, 4096);
	CU_ASSERT_PTR_NOT_NULL_FATAL(part);
	CU_ASSERT_EQUAL(policy_member_add(part, POLICY_MEMBER_ALL, 99, POLICY_FULL), 0);
	CU_ASSERT_EQUAL(part->members[0].guid, 0); /* a group has no GUID */
	part = policy_partition_add(p, "p-2.x_y", 0x0001, 0, 256);
	CU_ASSERT_PTR_NOT_NULL_FATAL(part);
	CU_ASSERT_EQUAL(part->rate, POLICY_RATE_DEFAULT);
	part->rate = 56;
	CU_ASSERT_EQUAL(policy_member_add(part, POLICY_MEMBER_SELF, 0, POLICY_FULL), 0);
	CU_ASSERT_EQUAL(policy_member_add(part, POLICY_MEMBER_ALL_CAS, 0, POLICY_LIMITED), 0);
	CU_ASSERT_EQUAL(policy_member_add(part, POLICY_MEMBER_ALL_SWITCHES, 0, POLICY_FULL), 0);
	CU_ASSERT_EQUAL(policy_member_add(part, POLICY_MEMBER_GUID, G(0x11), POLICY_LIMITED), 0);
	CU_ASSERT_PTR_NOT_NULL(policy_partition_add(p, "none", 0x1234, 0, 512));
}

static void test_policy_built_round_trip(void)
{
	struct policy p, q;
	char name[POLICY_NAME_MAX + 2];

	build_full(&p);
	CU_ASSERT(round_trip(&p));
	/* the guid selector instead of ca/port */
	p.sm.ca[0] = '\0';
	p.sm.port = 0;
	p.sm.guid = G(0x11);
	CU_ASSERT(round_trip(&p));
	/* names that do not fit are refused */
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	CU_ASSERT_EQUAL(policy_node_name_add(&p, 1, name), -ENAMETOOLONG);
	CU_ASSERT_PTR_NULL(policy_partition_add(&p, name, 5, 0, 2048));
	name[POLICY_NAME_MAX] = '\0';
	CU_ASSERT_EQUAL(policy_node_name_add(&p, 1, name), 0);
	CU_ASSERT(round_trip(&p));
	build_full(&q);
	CU_ASSERT(!policy_equal(&p, &q));
	policy_fini(&p);
	policy_fini(&q);
}

/* A failed parse leaves the defaults (nothing half-applied) and the
 * caller's previous policy untouched. */
static void test_policy_no_half_apply(void)
{
	static const char good[] = "sm: {priority: 5}\nnode_names: {0x1: a}\n";
	static const char bad[] = "sm: {priority: 6}\nnode_names: {0x1: a, 0x2: b}\n"
				  "partitions: [{name: p, pkey: 0x8001}]\n";
	struct policy cur, next;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(policy_parse(good, strlen(good), "good", &cur, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(policy_parse(bad, strlen(bad), "bad", &next, err, sizeof(err)), -EINVAL);
	CU_ASSERT(is_default(&next));
	CU_ASSERT_STRING_EQUAL(err, "bad:3:30: pkey: 0x8001 has the full-membership bit (0x8000) "
				    "set: write 0x0001 and give each member 'membership: full' "
				    "or 'limited'");
	CU_ASSERT_EQUAL(cur.sm.priority, 5);
	CU_ASSERT_EQUAL(cur.n_node_names, 1);
	policy_fini(&cur);
}

/* Text YAML would fold or refuse if printed raw comes back as itself. */
static void test_policy_escapes(void)
{
	static const char text[] = "node_names: {0x1: \"a\\Lb\\Pc \\\" \\\\ ü\"}\n";
	struct policy p;
	char err[256], *out;

	CU_ASSERT_EQUAL_FATAL(policy_parse(text, strlen(text), "t", &p, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(p.node_names[0].name, "a\u2028b\u2029c \" \\ ü");
	out = print_alloc(&p);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "0x0000000000000001: \"a\\Lb\\Pc \\\" \\\\ ü\"\n"));
	CU_ASSERT(round_trip(&p));
	free(out);
	policy_fini(&p);
}

/* Every engine of the table is accepted by name, alone and as an
 * options key: the policy's list is the engine table's. */
static void test_policy_engine_table(void)
{
	for (const struct route_engine *const *e = route_engines(); *e; e++) {
		char text[128], err[256];
		struct policy p;

		snprintf(text, sizeof(text), "routing: {engine: %s, options: {%s: {}}}\n",
			 (*e)->name, (*e)->name);
		CU_ASSERT_EQUAL(policy_parse(text, strlen(text), "t", &p, err, sizeof(err)), 0);
		CU_ASSERT_EQUAL(p.routing.n_engine, 1);
		CU_ASSERT_PTR_EQUAL(p.routing.engine[0], *e);
		policy_fini(&p);
	}
}

static void test_policy_diff(void)
{
	static const char a_text[] =
	    "sm: {priority: 1, ca: mlx5_0}\n"
	    "routing: {roots: [0x1, 0x2]}\n"
	    "lids: {static: [{guid: 0x10, lid: 1}, {guid: 0x11, lid: 2}]}\n"
	    "node_names: {0x10: a, 0x11: b}\n"
	    "partitions:\n"
	    "  - {name: s, pkey: 2, members: [{guid: 0x10, membership: full}, {group: ALL}]}\n"
	    "  - {name: gone, pkey: 3}\n";
	static const char b_text[] =
	    "sm: {priority: 2, guid: 0x99, log_level: debug, m_key: 0x77, m_key_protect: 2,\n"
	    "     sm_key: 0x5}\n"
	    "routing: {engine: updn, roots: [0x2, 0x1]}\n"
	    "lids: {static: [{guid: 0x11, lid: 3}, {guid: 0x12, lid: 4}]}\n"
	    "node_names: {0x10: a, 0x11: c}\n"
	    "partitions:\n"
	    "  - {name: s, pkey: 2, mtu: 4096, rate: 40, members: [{guid: 0x10}, {group: SELF}]}\n";
	static const char want[] =
	    "sm.port: ca \"mlx5_0\" -> guid 0x0000000000000099\n"
	    "sm.priority: 1 -> 2\n"
	    "sm.log_level: info -> debug\n"
	    "sm.m_key: none -> set (value not shown)\n"
	    "sm.m_key_protect: 0 -> 2\n"
	    "sm.sm_key: none -> set (value not shown)\n"
	    "routing.engine: [ftree, vlsp, updn, minhop] -> [updn]\n"
	    "routing.roots: reordered\n"
	    "lids.static: - 0x0000000000000010 0x0001\n"
	    "lids.static: ~ 0x0000000000000011 0x0002 -> 0x0003\n"
	    "lids.static: + 0x0000000000000012 0x0004\n"
	    "node_names: ~ 0x0000000000000011 \"b\" -> \"c\"\n"
	    "partitions: ~ 0x0002 \"s\" ipoib false mtu 2048 rate 10 -> \"s\" ipoib false mtu 4096 "
	    "rate 40\n"
	    "partitions 0x0002 members: ~ 0x0000000000000010 full -> limited\n"
	    "partitions 0x0002 members: - ALL limited\n"
	    "partitions 0x0002 members: + SELF limited\n"
	    "partitions: - 0x0003 \"gone\" ipoib false mtu 2048 rate 10\n";
	struct policy a, b;
	char err[256], *d;

	CU_ASSERT_EQUAL_FATAL(policy_parse(a_text, strlen(a_text), "a", &a, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(policy_parse(b_text, strlen(b_text), "b", &b, err, sizeof(err)), 0);
	d = diff_alloc(&a, &b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	if (strcmp(d, want))
		fprintf(stderr, "\n--- want\n%s--- got\n%s", want, d);
	CU_ASSERT_STRING_EQUAL(d, want);
	free(d);
	d = diff_alloc(&a, &a);
	CU_ASSERT_STRING_EQUAL(d, "");
	free(d);
	/* a key that changes is named, never shown */
	policy_fini(&a);
	a = b;
	a.sm.m_key = 0x1234abcd;
	a.sm.m_key_lease = 60;
	d = diff_alloc(&a, &b);
	CU_ASSERT_STRING_EQUAL(d, "sm.m_key: changed (values not shown)\n"
				  "sm.m_key_lease: 60 -> 0\n");
	CU_ASSERT_PTR_NULL(strstr(d, "1234abcd"));
	CU_ASSERT_PTR_NULL(strstr(d, "77"));
	free(d);
	a.sm.sm_key = 0;
	d = diff_alloc(&b, &a);
	CU_ASSERT_PTR_NOT_NULL(strstr(d, "sm.sm_key: set -> none (value not shown)\n"));
	free(d);
	policy_fini(&b); /* a shares b's lists */
}

/* ---- the loader ---- */

static void test_policy_load(void)
{
	char dir[] = "/tmp/nanosm-policy.XXXXXX", path[128], err[512], want[512];
	struct policy p, q;
	size_t len;
	char *text = read_text(EXAMPLES_DIR "/lab.yaml", &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/nanosm.yaml", dir);
	/* missing: -ENOENT, defaults, the path in the message */
	CU_ASSERT_EQUAL(policy_load(path, &p, err, sizeof(err)), -ENOENT);
	CU_ASSERT(is_default(&p));
	snprintf(want, sizeof(want), "%s: %s", path, strerror(ENOENT));
	CU_ASSERT_STRING_EQUAL(err, want);
	/* a directory */
	CU_ASSERT_EQUAL(policy_load(dir, &p, err, sizeof(err)), -EISDIR);
	/* a good file: the same as parsing its text */
	CU_ASSERT_EQUAL_FATAL(write_text(path, text), 0);
	CU_ASSERT_EQUAL(policy_load(path, &p, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(policy_parse(text, len, "lab.yaml", &q, err, sizeof(err)), 0);
	CU_ASSERT(policy_equal(&p, &q));
	policy_fini(&p);
	policy_fini(&q);
	/* a bad one names the path it was given */
	CU_ASSERT_EQUAL_FATAL(write_text(path, "sm:\n  rooots: 1\n"), 0);
	CU_ASSERT_EQUAL(policy_load(path, &p, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s:2:3: unknown key 'rooots' in sm (did you mean 'roots' "
		 "in routing?)",
		 path);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT(is_default(&p));
	unlink(path);
	rmdir(dir);
	free(text);
}

/* ---- limits ---- */

static void test_policy_buffers(void)
{
	struct policy p;
	char small[16], err[12], *full;
	size_t n;

	policy_init(&p);
	full = print_alloc(&p);
	n = policy_print(&p, small, sizeof(small));
	CU_ASSERT_EQUAL(n, strlen(full));
	CU_ASSERT_EQUAL(strlen(small), sizeof(small) - 1);
	CU_ASSERT_EQUAL(strncmp(small, full, sizeof(small) - 1), 0);
	CU_ASSERT_EQUAL(policy_print(&p, small, 0), n);
	free(full);
	/* errors are cut to the buffer, or not written at all */
	CU_ASSERT_EQUAL(policy_parse("sm: 1", 5, "long-file-name.yaml", &p, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "long-file-n");
	CU_ASSERT_EQUAL(policy_parse("sm: 1", 5, "f", &p, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(policy_parse("a: [", 4, "f", &p, err, 1), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "");
	/* the text need not end in NUL: len bounds it */
	CU_ASSERT_EQUAL(policy_parse("sm: {priority: 3}JUNK", 17, "f", &p, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(p.sm.priority, 3);
	policy_fini(&p);
}

/* Errors the golden files do not spell out. */
static void test_policy_edges(void)
{
	static const struct {
		const char *text, *err;
	} cases[] = {
	    {"sm: {priority: 18446744073709551616}",
	     "t:1:16: priority: 18446744073709551616 is out of range (0..15)"},
	    {"sm: {window: 0x}", "t:1:14: window: expected a whole number, got '0x'"},
	    {"sm: {window: +5}", "t:1:14: window: expected a whole number, got '+5'"},
	    {"sm: {window: 1.5}", "t:1:14: window: expected a whole number, got '1.5'"},
	    {"sm: {port: 0}", "t:1:12: port: 0 is out of range (1..254)"},
	    {"sm: {sweep_interval: 86401}",
	     "t:1:22: sweep_interval: 86401 is out of range (1..86400)"},
	    {"sm: {m_key: 0x1, sm_key: 0x2, m_key_protect: 1, m_key_lease: 5, sweep_interval: 5}",
	     "t:1:62: m_key_lease: 5 s is not longer than sweep_interval (5 s): a port's "
	     "protection could lapse between two sweeps; make it longer, or 0 (never expires)"},
	    {"sm: {m_key_lease: 9, m_key_protect: 1, m_key: 0x1, sm_key: 0x2}",
	     "t:1:19: m_key_lease: 9 s is not longer than sweep_interval (10 s): a port's "
	     "protection could lapse between two sweeps; make it longer, or 0 (never expires)"},
	    {"sm: {m_key: 0x1, m_key_protect: 0x2}",
	     "t:1:13: m_key: an M_Key needs an sm_key too: the SA shows M_Keys to requests "
	     "that carry nanosm's SM_Key, and with sm_key 0 that is every request"},
	    {"sm: {m_key_protect: 1.5}", "t:1:21: m_key_protect: expected a whole number, got '1.5'"},
	    {"sm: {sm_key: 0x1ffffffffffffffff}",
	     "t:1:14: sm_key: 0x1ffffffffffffffff is out of range (0x0000..0xffffffffffffffff)"},
	    {"sm: {guid: 0x1, port: 1}",
	     "t:1:17: sm: 'guid' and 'port' both choose the SM port: give guid alone, or ca "
	     "and/or port"},
	    {"sm: {ca: \"\"}", "t:1:10: ca: must not be empty"},
	    {"sm: {guid2lid: \"/a\\tb\"}", "t:1:16: guid2lid: control character 0x09 not allowed"},
	    {"node_names: {0x1: \"a\\0b\"}", "t:1:19: node_names: NUL character not allowed"},
	    {"node_names: {0x1: \"a\\Nb\"}",
	     "t:1:19: node_names: control character U+0085 not allowed"},
	    {"node_names: {0x1: [a]}", "t:1:19: node_names: expected a single value, got a list"},
	    {"node_names: {[0x1]: a}", "t:1:14: node_names: expected a single value, got a list"},
	    {"sm: {? [a] : 1}", "t:1:8: a key must be a name, got a list"},
	    {"sm: {~: 1}", "t:1:6: a key must be a name, got an empty key"},
	    {"sm: {\"priority\\0x\": 1}", "t:1:6: a key must be a name, got one with a NUL"},
	    {"partitions: [{name: a, pkey: 1, members: [{group: \"ALL\\0\"}]}]",
	     "t:1:51: group: NUL character not allowed"},
	    {"routing: {engine: [[ftree]]}", "t:1:20: engine: expected a single value, got a list"},
	    {"routing: {options: {ftree: 1}}",
	     "t:1:28: options.ftree: expected a mapping (key: value), got '1'"},
	    {"routing: {options: {ftree: {}, ftree: {}}}",
	     "t:1:32: duplicate key 'ftree' (first at 1:21)"},
	    {"lids: {static: [0x1]}",
	     "t:1:17: static: each entry is a mapping {guid: 0x..., lid: N}"},
	    {"partitions: {name: a}",
	     "t:1:13: partitions: expected a list (- item lines or [a, b]), "
	     "got a mapping"},
	    {"partitions: [{name: a, pkey: 0xffff}]",
	     "t:1:30: pkey: 0xffff has the full-membership bit (0x8000) set: write 0x7fff and give "
	     "each member 'membership: full' or 'limited'"},
	    {"partitions: [{name: a, pkey: 0x8000}]",
	     "t:1:30: pkey: 0x8000 is not a valid P_Key (0x0001..0x7fff)"},
	    {"partitions: [{name: a, pkey: 1, members: [{membership: full}]}]",
	     "t:1:43: a member needs 'guid', 'name' or 'group'"},
	    {"partitions: [{name: a, pkey: 1, members: [ALL]}]",
	     "t:1:43: members: each member is a mapping {guid: 0x..., membership: full}, "
	     "{name: host2, port: 1} or {group: ALL, membership: limited}"},
	    {"partitions: [{name: a, pkey: 1, members: [{name: h, group: ALL}]}]",
	     "t:1:53: a member has one of 'guid', 'name' or 'group', not both 'name' and 'group'"},
	    {"partitions: [{name: a, pkey: 1, members: [{guid: 0x1, port: 1}]}]",
	     "t:1:55: port: only a member given by name takes a port ({name: host2, port: 1}); "
	     "a guid names its port(s) already"},
	    {"partitions: [{name: a, pkey: 1, members: [{name: h, port: 0}]}]",
	     "t:1:59: port: 0 is out of range (1..254)"},
	    {"partitions: [{name: a, pkey: 1, members: [{name: \"\"}]}]",
	     "t:1:50: name: must not be empty"},
	    {"partitions: [{name: a, pkey: 1, members: [{name: h, port: 2}, {name: h}, "
	     "{name: h, port: 2}]}]",
	     "t:1:81: partition 'a': name 'h' port 2 is listed twice (first at 1:50)"},
	    {"partitions: [{name: a, pkey: 1, members: [{node: h}]}]",
	     "t:1:44: unknown key 'node' in a member; expected guid, name, port, group or "
	     "membership"},
	    {"partitions: [{name: a, pkey: 1, members: [{group: ALL}, {group: ALL}]}]",
	     "t:1:65: partition 'a': group ALL is listed twice (first at 1:51)"},
	    {"Sm: {}", "t:1:1: unknown section 'Sm' (did you mean 'sm'?)"},
	    {"priority: 1", "t:1:1: unknown section 'priority' ('priority' belongs in sm)"},
	    {"sm: {sweep: 5}", "t:1:6: unknown key 'sweep' in sm (did you mean 'sweep_interval'?)"},
	    {"sm: !!str {}", "t:1:5: tags are not supported: tag:yaml.org,2002:str"},
	    {"sm: {priority: !!int 3}", "t:1:16: tags are not supported: tag:yaml.org,2002:int"},
	    {"sm: \xff\n", "t:1:5: invalid leading UTF-8 octet (the file must be UTF-8 text)"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct policy p;
		char err[512];
		int rc =
		    policy_parse(cases[i].text, strlen(cases[i].text), "t", &p, err, sizeof(err));

		CU_ASSERT_EQUAL(rc, -EINVAL);
		if (rc == 0 || strcmp(err, cases[i].err))
			fprintf(stderr, "\ncase %zu: %s\n  want %s\n  got  %s\n", i, cases[i].text,
				cases[i].err, rc ? err : "(parsed)");
		CU_ASSERT_STRING_EQUAL(err, cases[i].err);
		CU_ASSERT(is_default(&p));
		policy_fini(&p);
	}
}

/* Deep nesting and large lists: refused or handled, never a crash. */
static void test_policy_sizes(void)
{
	size_t depth = 1000, n = 20000, off = 0;
	char *text = malloc(depth * 2 + 64), err[256];
	struct policy p;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	off += (size_t)sprintf(text, "sm: ");
	memset(text + off, '[', depth);
	memset(text + off + depth, ']', depth);
	text[off + 2 * depth] = '\0';
	CU_ASSERT_EQUAL(policy_parse(text, strlen(text), "t", &p, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "nested too deep"));
	free(text);
	/* 20000 static LIDs and node names */
	text = malloc(n * 96 + 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	off = (size_t)sprintf(text, "lids:\n  static:\n");
	for (size_t i = 1; i <= n; i++)
		off += (size_t)sprintf(text + off, "    - {guid: 0x%zx, lid: %zu}\n", i, i);
	off += (size_t)sprintf(text + off, "node_names:\n");
	for (size_t i = 1; i <= n; i++)
		off += (size_t)sprintf(text + off, "  0x%zx: n%zu\n", i, i);
	CU_ASSERT_EQUAL(policy_parse(text, off, "t", &p, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(p.lids.n_statics, n);
	CU_ASSERT_EQUAL(p.n_node_names, n);
	CU_ASSERT_EQUAL(p.lids.statics[n - 1].lid, n);
	CU_ASSERT(round_trip(&p));
	policy_fini(&p);
	/* the same LID at the end */
	off += (size_t)sprintf(text + off, "  0x%zx: again\n", n / 2);
	CU_ASSERT_EQUAL(policy_parse(text, off, "t", &p, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "is named twice"));
	free(text);
}

/* Random edits of the golden files (fixed seed): every outcome is a clean
 * error or a policy that round-trips.  The heavy fuzzing runs outside the
 * suite; this keeps a little of it in every `make unit` / `make asan`. */
static void test_policy_mutations(void)
{
	static const char alphabet[] = " \n\t:-[]{},#\"'&*!?|>0x7fFgG\\";
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	size_t runs = 0;
	glob_t g;

	CU_ASSERT_EQUAL_FATAL(glob(GOLDEN_DIR "/*.yaml", 0, NULL, &g), 0);
	for (size_t f = 0; f < g.gl_pathc; f++) {
		size_t len;
		char *orig = read_text(g.gl_pathv[f], &len);

		for (int k = 0; orig && k < 40; k++, runs++) {
			char *text = malloc(len + 8), err[512];
			struct policy p;
			size_t n = len;

			memcpy(text, orig, len);
			for (int edits = 1 + k % 4; edits > 0 && n > 0; edits--) {
				seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
				size_t at = (size_t)(seed >> 33) % n;
				char c = alphabet[(seed >> 20) % (sizeof(alphabet) - 1)];

				if ((seed >> 16) % 3 == 0)
					text[at] = c;
				else if ((seed >> 16) % 3 == 1)
					memmove(text + at, text + at + 1, --n - at);
				else if (n < len + 7) {
					memmove(text + at + 1, text + at, n++ - at);
					text[at] = c;
				}
			}
			if (policy_parse(text, n, "m", &p, err, sizeof(err)) == 0) {
				CU_ASSERT(round_trip(&p));
			} else {
				CU_ASSERT(strncmp(err, "m:", 2) == 0 && is_default(&p));
			}
			policy_fini(&p);
			free(text);
		}
		free(orig);
	}
	globfree(&g);
	CU_ASSERT(runs > 1000);
}

void test_policy_register(void)
{
	CU_pSuite s = CU_add_suite("policy", NULL, NULL);

	CU_add_test(s, "golden files", test_policy_golden);
	CU_add_test(s, "examples", test_policy_examples);
	CU_add_test(s, "docs YAML blocks", test_policy_docs);
	CU_add_test(s, "defaults", test_policy_defaults);
	CU_add_test(s, "built in code round trip", test_policy_built_round_trip);
	CU_add_test(s, "no half-applied policy", test_policy_no_half_apply);
	CU_add_test(s, "escapes", test_policy_escapes);
	CU_add_test(s, "engine table", test_policy_engine_table);
	CU_add_test(s, "diff", test_policy_diff);
	CU_add_test(s, "load", test_policy_load);
	CU_add_test(s, "buffers", test_policy_buffers);
	CU_add_test(s, "edge errors", test_policy_edges);
	CU_add_test(s, "sizes", test_policy_sizes);
	CU_add_test(s, "mutations", test_policy_mutations);
}

#ifdef TEST_POLICY_MAIN
#include <CUnit/Basic.h>

/* Standalone runner (tests/config/run.sh): this suite only. */
int main(void)
{
	unsigned failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	test_policy_register();
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
#endif
