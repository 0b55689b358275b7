/*
 * test_pkey_member.c - partition members matched against a fabric
 * (config/pkey_member.c): members by name land in the P_Key tables, members
 * that match no port are listed with what they matched instead, and the
 * SM logs each of those once (NSM-W422, sm/core/pkey_warn.c), not every sweep.
 */
#include <CUnit/CUnit.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/pkey.h"
#include "config/pkey_member.h"
#include "config/policy.h"
#include "routing/topo_file.h"
#include "sm/core/log.h"
#include "tests/unit/sm_rig.h"
#include "tests/unit/unit.h"

/* h1 (the SM's node), h2, h3 on one switch; each CA has 2 ports, port 2
 * unlinked (so not present); CA port p's GUID is the NodeGUID + p. */
static const char pm_lab[] = "Hca 2 \"h1\"\n[1] \"sw\"[1]\n\n"
			     "Hca 2 \"h2\"\n[1] \"sw\"[2]\n\n"
			     "Hca 2 \"h3\"\n[1] \"sw\"[3]\n\n"
			     "Switch 8 \"sw\"\n"
			     "[1] \"h1\"[1]\n[2] \"h2\"[1]\n[3] \"h3\"[1]\n";

struct pm_fix {
	struct fabric f;
	struct policy pol;
	struct policy_partition *part;
	int h1, h2, h3, sw;
};

static void pm_fix_init(struct pm_fix *x)
{
	char err[256];

	memset(x, 0, sizeof(*x));
	fabric_init(&x->f);
	CU_ASSERT_EQUAL_FATAL(topo_parse(pm_lab, strlen(pm_lab), "t", &x->f, err, sizeof(err)), 0);
	policy_init(&x->pol);
	x->part = policy_partition_add(&x->pol, "blue", 0x0002, 0, 2048);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x->part);
	x->h1 = rig_node(&x->f, "h1");
	x->h2 = rig_node(&x->f, "h2");
	x->h3 = rig_node(&x->f, "h3");
	x->sw = rig_node(&x->f, "sw");
	CU_ASSERT_FATAL(x->h1 >= 0 && x->h2 >= 0 && x->h3 >= 0 && x->sw >= 0);
}

static void pm_fix_fini(struct pm_fix *x)
{
	policy_fini(&x->pol);
	fabric_fini(&x->f);
}

/* The entry of P_Key base in (node, port)'s planned table, or 0. */
static uint16_t pm_entry(const struct pkey_plan *pp, int node, uint8_t port, uint16_t base)
{
	const struct pkey_port_table *t = pkey_plan_port(pp, node, port);

	for (unsigned i = 0; t && i < t->n; i++)
		if (PKEY_BASE(t->pkey[i]) == base)
			return t->pkey[i];
	return 0;
}

/* The unmatched lines of x's policy, joined; their count in *n. */
static char *pm_unmatched(const struct pm_fix *x, size_t *n)
{
	struct pkey_unmatched *u;
	char *all;
	size_t len = 1;

	CU_ASSERT_EQUAL_FATAL(pkey_unmatched_find(x->pol.partitions, x->pol.n_partitions,
						  x->pol.node_names, x->pol.n_node_names, &x->f, &u,
						  n),
			      0);
	for (size_t i = 0; i < *n; i++)
		len += strlen(u[i].text) + 1;
	all = calloc(1, len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(all);
	for (size_t i = 0; i < *n; i++) {
		strcat(all, u[i].text);
		strcat(all, "\n");
	}
	free(u);
	return all;
}

static int pm_has(const char *text, const char *want)
{
	if (strstr(text, want))
		return 1;
	fprintf(stderr, "\nmissing: %s\nin:\n%s", want, text);
	return 0;
}

/* By name: a NodeDescription, its first word, a node_names name; every
 * LID-owning port of the node or one port.  They end up in the tables. */
static void test_member_by_name(void)
{
	struct pm_fix x;
	struct pkey_plan pp;
	char err[256], *text;
	size_t n;

	pm_fix_init(&x);
	snprintf(x.f.nodes[x.h3].desc, sizeof(x.f.nodes[x.h3].desc), "h3 mlx5_0");
	CU_ASSERT_EQUAL(policy_node_name_add(&x.pol, x.f.nodes[x.sw].guid, "core"), 0);
	CU_ASSERT_EQUAL(policy_member_add_name(x.part, "h2", 0, POLICY_FULL), 0);
	CU_ASSERT_EQUAL(policy_member_add_name(x.part, "h3", 1, POLICY_LIMITED), 0);
	CU_ASSERT_EQUAL(policy_member_add_name(x.part, "core", 0, POLICY_FULL), 0);
	pkey_plan_init(&pp);
	CU_ASSERT_EQUAL_FATAL(pkey_plan_build(&pp, x.pol.partitions, x.pol.n_partitions,
					      x.pol.node_names, x.pol.n_node_names, &x.f, x.h1, 1,
					      err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL(pm_entry(&pp, x.h2, 1, 0x0002), 0x8002);
	CU_ASSERT_EQUAL(pm_entry(&pp, x.h3, 1, 0x0002), 0x0002); /* "h3" of "h3 mlx5_0" */
	CU_ASSERT_EQUAL(pm_entry(&pp, x.sw, 0, 0x0002), 0x8002); /* node_names */
	CU_ASSERT_EQUAL(pm_entry(&pp, x.sw, 3, 0x0002), 0x0002); /* enforcement copy */
	CU_ASSERT_EQUAL(pm_entry(&pp, x.h1, 1, 0x0002), 0);
	text = pm_unmatched(&x, &n);
	CU_ASSERT_EQUAL(n, 0);
	free(text);
	pkey_plan_fini(&pp);
	pm_fix_fini(&x);
}

/* A node with two ports up: {name} takes both, {name, port} one. */
static void test_member_name_all_ports(void)
{
	struct pm_fix x;
	struct pkey_plan pp;
	char err[256];

	pm_fix_init(&x);
	x.f.nodes[x.h2].ports[2].present = 1;
	CU_ASSERT_EQUAL(policy_member_add_name(x.part, "h2", 0, POLICY_FULL), 0);
	CU_ASSERT_EQUAL(policy_member_add_name(x.part, "h3", 1, POLICY_FULL), 0);
	pkey_plan_init(&pp);
	CU_ASSERT_EQUAL_FATAL(pkey_plan_build(&pp, x.pol.partitions, x.pol.n_partitions, NULL, 0,
					      &x.f, x.h1, 1, err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL(pm_entry(&pp, x.h2, 1, 0x0002), 0x8002);
	CU_ASSERT_EQUAL(pm_entry(&pp, x.h2, 2, 0x0002), 0x8002);
	CU_ASSERT_EQUAL(pm_entry(&pp, x.h3, 1, 0x0002), 0x8002);
	pkey_plan_fini(&pp);
	pm_fix_fini(&x);
}

/* Members that match no port, each with what it matched instead; the
 * ones that match (a port GUID, a switch NodeGUID, a name, a group) are
 * not listed. */
static void test_member_unmatched_hints(void)
{
	struct pm_fix x;
	char want[512], *text;
	uint64_t h2, h2p1, sw;
	size_t n;

	pm_fix_init(&x);
	h2 = x.f.nodes[x.h2].guid;
	h2p1 = x.f.nodes[x.h2].ports[1].guid;
	sw = x.f.nodes[x.sw].guid;
	CU_ASSERT_NOT_EQUAL(h2, h2p1);
	CU_ASSERT_EQUAL(policy_node_name_add(&x.pol, 0xdeadull, "ghost"), 0);
	policy_member_add(x.part, POLICY_MEMBER_GUID, h2, POLICY_FULL);		  /* node GUID */
	policy_member_add(x.part, POLICY_MEMBER_GUID, 0x1234567ull, POLICY_FULL); /* nowhere */
	policy_member_add(x.part, POLICY_MEMBER_GUID, h2p1, POLICY_FULL);	  /* matches */
	policy_member_add(x.part, POLICY_MEMBER_GUID, sw, POLICY_FULL);		  /* matches */
	policy_member_add(x.part, POLICY_MEMBER_ALL_CAS, 0, POLICY_LIMITED);	  /* matches */
	policy_member_add_name(x.part, "h3", 0, POLICY_FULL);			  /* matches */
	policy_member_add_name(x.part, "h9", 0, POLICY_FULL);
	policy_member_add_name(x.part, "H2", 0, POLICY_FULL);
	policy_member_add_name(x.part, "ghost", 0, POLICY_FULL);
	policy_member_add_name(x.part, "h2", 2, POLICY_FULL);
	policy_member_add_name(x.part, "h2", 9, POLICY_FULL);
	policy_member_add_name(x.part, "sw", 3, POLICY_FULL);
	text = pm_unmatched(&x, &n);
	CU_ASSERT_EQUAL(n, 8);
	snprintf(want, sizeof(want),
		 "partition 'blue' (0x0002): member 0x%016" PRIx64 " matches no port: 0x%016" PRIx64
		 " is the node GUID of h2, not a port GUID; its port 1 is 0x%016" PRIx64
		 " (or write {name: \"h2\"})\n",
		 h2, h2, h2p1);
	CU_ASSERT(pm_has(text, want));
	CU_ASSERT(pm_has(text, "member 0x0000000001234567 matches no port: no port or node of the "
			       "fabric has this GUID"));
	CU_ASSERT(pm_has(text, "member name 'h9' matches no port: no node is called so (by "
			       "node_names or NodeDescription)\n"));
	CU_ASSERT(pm_has(text, "member name 'H2' matches no port: no node is called so (by "
			       "node_names or NodeDescription) (did you mean 'h2'?)"));
	CU_ASSERT(pm_has(text, "member name 'ghost' matches no port: node_names gives this name to "
			       "0x000000000000dead, which is not in the fabric"));
	snprintf(want, sizeof(want),
		 "member name 'h2' port 2 matches no port: h2 port 2 is down or not cabled; its "
		 "port 1 is 0x%016" PRIx64 "\n",
		 h2p1);
	CU_ASSERT(pm_has(text, want));
	CU_ASSERT(pm_has(text, "member name 'h2' port 9 matches no port: h2 has 2 ports; "));
	CU_ASSERT(pm_has(text, "member name 'sw' port 3 matches no port: sw is a switch: only its "
			       "port 0 has a P_Key table of its own"));
	CU_ASSERT_PTR_NULL(strstr(text, "'h3'"));
	free(text);
	pm_fix_fini(&x);
}

/* Before the first sweep there is no fabric to match against: nothing is
 * reported (rather than every member). */
static void test_member_unmatched_empty_fabric(void)
{
	struct pm_fix x;
	struct pkey_unmatched *u = NULL;
	struct fabric empty;
	size_t n = 9;

	pm_fix_init(&x);
	fabric_init(&empty);
	policy_member_add(x.part, POLICY_MEMBER_GUID, 0x1234567ull, POLICY_FULL);
	CU_ASSERT_EQUAL(
	    pkey_unmatched_find(x.pol.partitions, x.pol.n_partitions, NULL, 0, &empty, &u, &n), 0);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_PTR_NULL(u);
	fabric_fini(&empty);
	pm_fix_fini(&x);
}

/* Log warnings to a new file named after the template path (XXXXXX). */
static void pm_log_to(char *path)
{
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	log_init(LOG_LVL_WARN, NULL);
	CU_ASSERT_EQUAL_FATAL(log_open_file(path), 0);
}

/* The SM: a member given by node GUID is logged once (NSM-W422, with the
 * hint), not at every sweep; a reload of the partitions says it again; a
 * member by name gets its P_Key; sm_partition_unmatched has it for plan
 * and reload (and nothing before the first sweep). */
static void test_member_sweep_logs_once(void)
{
	char path[] = "/tmp/nanosm-unit-w422-XXXXXX", buf[16384], want[256], *text;
	int level = log_level_get();
	struct policy pol;
	struct policy_partition *p;
	const struct fabric *st;
	uint64_t h2, h3;
	struct rig r;

	rig_init(&r, pm_lab, NULL, "minhop");
	st = fake_fabric_state(r.ff);
	h2 = st->nodes[rig_node(st, "h2")].guid;
	h3 = st->nodes[rig_node(st, "h3")].guid;
	policy_init(&pol);
	p = policy_partition_add(&pol, "blue", 0x0002, 0, 2048);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	policy_member_add(p, POLICY_MEMBER_GUID, h2, POLICY_FULL); /* the node GUID */
	policy_member_add_name(p, "h3", 0, POLICY_FULL);
	CU_ASSERT_EQUAL_FATAL(sm_set_partitions(r.sm, pol.partitions, pol.n_partitions), 0);
	CU_ASSERT_PTR_NULL(sm_partition_unmatched(r.sm, pol.partitions, pol.n_partitions, NULL, 0));
	pm_log_to(path);
	rig_sweep(&r);
	rig_sweep(&r);
	snprintf(want, sizeof(want),
		 "NSM-W422 partition 'blue' (0x0002): member 0x%016" PRIx64
		 " matches no port: 0x%016" PRIx64 " is the node GUID of h2",
		 h2, h2);
	CU_ASSERT_EQUAL(rig_log_count(path, want, buf, sizeof(buf)), 1);
	CU_ASSERT_EQUAL(rig_log_count(path, "NSM-W422", buf, sizeof(buf)), 1);
	CU_ASSERT_EQUAL_FATAL(sm_set_partitions(r.sm, pol.partitions, pol.n_partitions), 0);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(rig_log_count(path, want, buf, sizeof(buf)), 2);
	log_to_stderr();
	log_init(level, NULL);
	unlink(path);
	CU_ASSERT_EQUAL(fake_fabric_pkeys(r.ff, h3, 1)[1], 0x8002); /* by name */
	CU_ASSERT_EQUAL(fake_fabric_pkeys(r.ff, h2, 1)[1], 0);	    /* left out */
	text = sm_partition_unmatched(r.sm, pol.partitions, pol.n_partitions, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT(pm_has(text, "partition members that match no port (NSM-W422; left out):\n  "));
	CU_ASSERT(pm_has(text, want + strlen("NSM-W422 ")));
	free(text);
	policy_fini(&pol);
	rig_fini(&r);
}

/* Many new problems in one sweep: 20 lines, then one line counting the
 * rest; the next sweep says none of them again. */
static void test_member_sweep_caps_lines(void)
{
	char path[] = "/tmp/nanosm-unit-w422-XXXXXX", buf[65536];
	int level = log_level_get();
	struct policy pol;
	struct policy_partition *p;
	struct rig r;

	rig_init(&r, pm_lab, NULL, "minhop");
	policy_init(&pol);
	p = policy_partition_add(&pol, "blue", 0x0002, 0, 2048);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	for (uint64_t g = 1; g <= 30; g++) /* no such ports */
		policy_member_add(p, POLICY_MEMBER_GUID, 0x7700000000000000ull + g, POLICY_FULL);
	CU_ASSERT_EQUAL_FATAL(sm_set_partitions(r.sm, pol.partitions, pol.n_partitions), 0);
	pm_log_to(path);
	rig_sweep(&r);
	rig_sweep(&r);
	log_to_stderr();
	log_init(level, NULL);
	CU_ASSERT_EQUAL(rig_log_count(path, "NSM-W422", buf, sizeof(buf)), 21);
	CU_ASSERT_EQUAL(rig_log_count(path,
				      "NSM-W422 ... and 10 more partition members match "
				      "no port",
				      buf, sizeof(buf)),
			1);
	unlink(path);
	policy_fini(&pol);
	rig_fini(&r);
}

void test_pkey_member_register(void)
{
	CU_pSuite s = CU_add_suite("pkey_member", NULL, NULL);

	CU_add_test(s, "members by name: description, first word, node_names", test_member_by_name);
	CU_add_test(s, "a name without a port: every port up", test_member_name_all_ports);
	CU_add_test(s, "members that match no port, with what they matched",
		    test_member_unmatched_hints);
	CU_add_test(s, "no fabric yet: nothing reported", test_member_unmatched_empty_fabric);
	CU_add_test(s, "the SM logs an unmatched member once (NSM-W422)",
		    test_member_sweep_logs_once);
	CU_add_test(s, "many at once: 20 lines and a count", test_member_sweep_caps_lines);
}
