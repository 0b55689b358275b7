/*
 * test_pkey.c - partitions: the plan's rules (config/pkey.c), the queries the
 * SA asks, and the P_KeyTable push phase (sm/core/pkey_push.c) judged by what
 * the fake fabric's ports hold afterwards.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/pkey.h"
#include "config/policy.h"
#include "routing/topo_file.h"
#include "sm/core/log.h"
#include "sm/core/pkey_push.h"
#include "sm/core/sm_priv.h"
#include "tests/unit/sm_rig.h"
#include "tests/unit/unit.h"

/* h1 (first: the SM's node), h2, h3 on one switch; switch port 8 unlinked */
static const char pkey_lab[] = "Hca 2 \"h1\"\n[1] \"sw\"[1]\n\n"
			       "Hca 2 \"h2\"\n[1] \"sw\"[2]\n\n"
			       "Hca 2 \"h3\"\n[1] \"sw\"[3]\n\n"
			       "Switch 8 \"sw\"\n"
			       "[1] \"h1\"[1]\n[2] \"h2\"[1]\n[3] \"h3\"[1]\n";

/* A parsed lab, a policy to fill, and the plan under test. */
struct pkey_fix {
	struct fabric f;
	struct policy pol;
	struct pkey_plan pp;
	int h1, h2, h3, sw;
	char err[256];
};

static void pkey_fix_init(struct pkey_fix *x)
{
	memset(x, 0, sizeof(*x));
	fabric_init(&x->f);
	CU_ASSERT_EQUAL_FATAL(topo_parse(pkey_lab, strlen(pkey_lab), "t", &x->f, x->err,
					 sizeof(x->err)), 0);
	policy_init(&x->pol);
	pkey_plan_init(&x->pp);
	x->h1 = rig_node(&x->f, "h1");
	x->h2 = rig_node(&x->f, "h2");
	x->h3 = rig_node(&x->f, "h3");
	x->sw = rig_node(&x->f, "sw");
	CU_ASSERT_FATAL(x->h1 >= 0 && x->h2 >= 0 && x->h3 >= 0 && x->sw >= 0);
}

static void pkey_fix_fini(struct pkey_fix *x)
{
	pkey_plan_fini(&x->pp);
	policy_fini(&x->pol);
	fabric_fini(&x->f);
}

static int pkey_fix_build(struct pkey_fix *x)
{
	return pkey_plan_build(&x->pp, x->pol.partitions, x->pol.n_partitions, NULL, 0, &x->f,
			       x->h1, 1, x->err, sizeof(x->err));
}

static uint64_t pkey_guid(const struct pkey_fix *x, int node)
{
	return x->f.nodes[node].ports[1].guid;
}

/* Assert that (node, port) holds exactly keys[0..n-1], in that order. */
static void pkey_expect(const struct pkey_plan *pp, int node, uint8_t port, const uint16_t *keys,
			unsigned n)
{
	const struct pkey_port_table *t = pkey_plan_port(pp, node, port);

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->node, node);
	CU_ASSERT_EQUAL(t->port, port);
	CU_ASSERT_EQUAL_FATAL(t->n, n);
	for (unsigned i = 0; i < n; i++)
		CU_ASSERT_EQUAL(t->pkey[i], keys[i]);
}

static struct policy_partition *pkey_part(struct pkey_fix *x, const char *name, uint16_t pkey)
{
	struct policy_partition *p = policy_partition_add(&x->pol, name, pkey, 0, 2048);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	return p;
}

/* ---- Plan rules ------------------------------------------------------ */

static void test_no_partitions_default_full(void)
{
	static const uint16_t full[] = {0xffff};
	struct pkey_fix x;

	pkey_fix_init(&x);
	CU_ASSERT_EQUAL(pkey_fix_build(&x), 0);
	CU_ASSERT_EQUAL(x.pp.n, 7); /* 3 CA ports, switch port 0, 3 facing ports */
	pkey_expect(&x.pp, x.h1, 1, full, 1);
	pkey_expect(&x.pp, x.h3, 1, full, 1);
	pkey_expect(&x.pp, x.sw, 0, full, 1);
	pkey_expect(&x.pp, x.sw, 2, full, 1);
	CU_ASSERT_PTR_NULL(pkey_plan_port(&x.pp, x.sw, 8)); /* unlinked */
	CU_ASSERT_PTR_NULL(pkey_plan_port(&x.pp, x.h1, 2)); /* not present */
	for (size_t i = 1; i < x.pp.n; i++) /* sorted by (node, port) */
		CU_ASSERT(x.pp.t[i - 1].node < x.pp.t[i].node ||
			  (x.pp.t[i - 1].node == x.pp.t[i].node &&
			   x.pp.t[i - 1].port < x.pp.t[i].port));
	pkey_fix_fini(&x);
}

static void test_no_default_limited_sm_full(void)
{
	static const uint16_t sm[] = {0xffff, 0x0002}, h2[] = {0x7fff, 0x8002},
			      h3[] = {0x7fff, 0x0002}, sw[] = {0x7fff};
	struct pkey_fix x;
	struct policy_partition *p;

	pkey_fix_init(&x);
	p = pkey_part(&x, "storage", 0x0002);
	policy_member_add(p, POLICY_MEMBER_GUID, pkey_guid(&x, x.h2), POLICY_FULL);
	policy_member_add(p, POLICY_MEMBER_GUID, pkey_guid(&x, x.h3), POLICY_LIMITED);
	policy_member_add(p, POLICY_MEMBER_GUID, pkey_guid(&x, x.h1), POLICY_LIMITED);
	policy_member_add(p, POLICY_MEMBER_GUID, 0x1234567ull, POLICY_FULL); /* not here */
	CU_ASSERT_EQUAL(pkey_fix_build(&x), 0);
	pkey_expect(&x.pp, x.h1, 1, sm, 2);
	pkey_expect(&x.pp, x.h2, 1, h2, 2);
	pkey_expect(&x.pp, x.h3, 1, h3, 2);
	pkey_expect(&x.pp, x.sw, 0, sw, 1);
	pkey_expect(&x.pp, x.sw, 3, h3, 2); /* enforcement: h3's table */
	pkey_expect(&x.pp, x.sw, 1, sm, 2);
	pkey_fix_fini(&x);
}

static void test_groups_and_switch_guid(void)
{
	static const uint16_t ca[] = {0x8005};
	struct pkey_fix x;
	struct policy_partition *p;

	pkey_fix_init(&x);
	p = pkey_part(&x, "default", 0x7fff);
	policy_member_add(p, POLICY_MEMBER_SELF, 0, POLICY_FULL);
	p = pkey_part(&x, "cas", 0x0005);
	policy_member_add(p, POLICY_MEMBER_ALL_CAS, 0, POLICY_FULL);
	p = pkey_part(&x, "sws", 0x0006);
	policy_member_add(p, POLICY_MEMBER_ALL_SWITCHES, 0, POLICY_FULL);
	p = pkey_part(&x, "by-guid", 0x0007);
	policy_member_add(p, POLICY_MEMBER_GUID, x.f.nodes[x.sw].guid, POLICY_LIMITED);
	CU_ASSERT_EQUAL(pkey_fix_build(&x), 0);
	pkey_expect(&x.pp, x.h2, 1, ca, 1); /* declared default: no implicit member */
	pkey_expect(&x.pp, x.sw, 2, ca, 1);
	CU_ASSERT_EQUAL(pkey_plan_member(&x.pp, x.h1, 1, 0x7fff), 2);
	CU_ASSERT_EQUAL(pkey_plan_member(&x.pp, x.h1, 1, 0x0006), 0);
	CU_ASSERT_EQUAL(pkey_plan_member(&x.pp, x.sw, 0, 0x0005), 0); /* ALL_CAS: no switch */
	CU_ASSERT_EQUAL(pkey_plan_member(&x.pp, x.sw, 0, 0x0006), 2);
	CU_ASSERT_EQUAL(pkey_plan_member(&x.pp, x.sw, 0, 0x0007), 1); /* switch GUID: port 0 */
	CU_ASSERT_EQUAL(pkey_plan_member(&x.pp, x.sw, 1, 0x0007), 0);
	CU_ASSERT_EQUAL(pkey_plan_member(&x.pp, x.sw, 0, 0x7fff), 0);
	pkey_expect(&x.pp, x.sw, 0, (const uint16_t[]){0x8006, 0x0007}, 2);
	pkey_fix_fini(&x);
}

static void test_full_beats_limited_and_order(void)
{
	static const uint16_t h2[] = {0xffff, 0x8010, 0x0020, 0x8030};
	struct pkey_fix x;
	struct policy_partition *p;

	pkey_fix_init(&x);
	p = pkey_part(&x, "thirty", 0x0030);
	policy_member_add(p, POLICY_MEMBER_GUID, pkey_guid(&x, x.h2), POLICY_FULL);
	policy_member_add(p, POLICY_MEMBER_ALL, 0, POLICY_LIMITED);
	p = pkey_part(&x, "ten", 0x0010);
	policy_member_add(p, POLICY_MEMBER_ALL, 0, POLICY_LIMITED);
	policy_member_add(p, POLICY_MEMBER_GUID, pkey_guid(&x, x.h2), POLICY_FULL);
	p = pkey_part(&x, "twenty", 0x0020);
	policy_member_add(p, POLICY_MEMBER_ALL_CAS, 0, POLICY_LIMITED);
	p = pkey_part(&x, "default", 0x7fff);
	policy_member_add(p, POLICY_MEMBER_ALL, 0, POLICY_FULL);
	CU_ASSERT_EQUAL(pkey_fix_build(&x), 0);
	pkey_expect(&x.pp, x.h2, 1, h2, 4); /* default first, then by base */
	pkey_expect(&x.pp, x.h3, 1, (const uint16_t[]){0xffff, 0x0010, 0x0020, 0x0030}, 4);
	pkey_expect(&x.pp, x.sw, 0, (const uint16_t[]){0xffff, 0x0010, 0x0030}, 3);
	pkey_fix_fini(&x);
}

static void test_too_many_partitions(void)
{
	struct pkey_fix x;
	char name[16], want[64];

	pkey_fix_init(&x);
	for (unsigned i = 1; i <= PKEY_TABLE_MAX - 1; i++) { /* + the implicit default */
		snprintf(name, sizeof(name), "p%u", i);
		policy_member_add(pkey_part(&x, name, (uint16_t)i), POLICY_MEMBER_GUID,
				  pkey_guid(&x, x.h3), POLICY_FULL);
	}
	CU_ASSERT_EQUAL(pkey_fix_build(&x), 0); /* exactly 32 fit */
	CU_ASSERT_EQUAL(pkey_plan_port(&x.pp, x.h3, 1)->n, PKEY_TABLE_MAX);
	policy_member_add(pkey_part(&x, "one-too-many", 0x100), POLICY_MEMBER_GUID,
			  pkey_guid(&x, x.h3), POLICY_LIMITED);
	CU_ASSERT_EQUAL(pkey_fix_build(&x), -E2BIG);
	snprintf(want, sizeof(want), "port 0x%016llx/1:", (unsigned long long)pkey_guid(&x, x.h3));
	CU_ASSERT_PTR_NOT_NULL(strstr(x.err, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(x.err, "0x0100"));
	/* the previous plan is kept */
	CU_ASSERT_EQUAL(pkey_plan_port(&x.pp, x.h3, 1)->n, PKEY_TABLE_MAX);
	CU_ASSERT_EQUAL(pkey_plan_member(&x.pp, x.h3, 1, 0x100), 0);
	pkey_fix_fini(&x);
}

/* ---- Queries --------------------------------------------------------- */

/* h1 SM; 0x10: h1 full, h2 limited, h3 limited; 0x20: h2 full, h3 full;
 * 0x30: h3 only; no declared default (everyone limited, SM full). */
static void pkey_shared_fix(struct pkey_fix *x)
{
	struct policy_partition *p;

	pkey_fix_init(x);
	p = pkey_part(x, "ten", 0x0010);
	policy_member_add(p, POLICY_MEMBER_GUID, pkey_guid(x, x->h1), POLICY_FULL);
	policy_member_add(p, POLICY_MEMBER_GUID, pkey_guid(x, x->h2), POLICY_LIMITED);
	policy_member_add(p, POLICY_MEMBER_GUID, pkey_guid(x, x->h3), POLICY_LIMITED);
	p = pkey_part(x, "twenty", 0x0020);
	policy_member_add(p, POLICY_MEMBER_GUID, pkey_guid(x, x->h2), POLICY_FULL);
	policy_member_add(p, POLICY_MEMBER_GUID, pkey_guid(x, x->h3), POLICY_FULL);
	p = pkey_part(x, "thirty", 0x0030);
	policy_member_add(p, POLICY_MEMBER_GUID, pkey_guid(x, x->h3), POLICY_FULL);
	CU_ASSERT_EQUAL_FATAL(pkey_fix_build(x), 0);
}

static void test_shared(void)
{
	struct pkey_fix x;

	pkey_shared_fix(&x);
	/* full (SM) + limited in the default partition: preferred */
	CU_ASSERT_EQUAL(pkey_plan_shared(&x.pp, x.h1, 1, x.h2, 1, 0), 0xffff);
	/* want honoured: full + limited in 0x10, either bit in want */
	CU_ASSERT_EQUAL(pkey_plan_shared(&x.pp, x.h1, 1, x.h2, 1, 0x0010), 0x8010);
	CU_ASSERT_EQUAL(pkey_plan_shared(&x.pp, x.h2, 1, x.h1, 1, 0x8010), 0x8010);
	/* limited + limited: not in 0x10, not in the default; 0x20 is the one */
	CU_ASSERT_EQUAL(pkey_plan_shared(&x.pp, x.h2, 1, x.h3, 1, 0x0010), 0);
	CU_ASSERT_EQUAL(pkey_plan_shared(&x.pp, x.h2, 1, x.h3, 1, 0x7fff), 0);
	CU_ASSERT_EQUAL(pkey_plan_shared(&x.pp, x.h2, 1, x.h3, 1, 0), 0x8020);
	/* disjoint */
	CU_ASSERT_EQUAL(pkey_plan_shared(&x.pp, x.h1, 1, x.h3, 1, 0x0030), 0);
	CU_ASSERT_EQUAL(pkey_plan_shared(&x.pp, x.h1, 1, x.h2, 1, 0x0020), 0);
	/* a port with itself: full in 0x20 (lowest base it is full in after
	 * the default, where h3 is only limited) */
	CU_ASSERT_EQUAL(pkey_plan_shared(&x.pp, x.h3, 1, x.h3, 1, 0), 0x8020);
	/* not in the plan */
	CU_ASSERT_EQUAL(pkey_plan_shared(&x.pp, x.h1, 1, x.sw, 8, 0), 0);
	/* membership */
	CU_ASSERT_EQUAL(pkey_plan_member(&x.pp, x.h2, 1, 0x0010), 1);
	CU_ASSERT_EQUAL(pkey_plan_member(&x.pp, x.h2, 1, 0x8020), 2);
	CU_ASSERT_EQUAL(pkey_plan_member(&x.pp, x.h2, 1, 0x0030), 0);
	CU_ASSERT_EQUAL(pkey_plan_member(&x.pp, x.h2, 1, 0x7fff), 1);
	CU_ASSERT_EQUAL(pkey_plan_member(&x.pp, x.h1, 1, 0x7fff), 2);
	CU_ASSERT_EQUAL(pkey_plan_member(&x.pp, x.sw, 3, 0x0030), 2); /* facing h3 */
	/* no plan: the default partition for everyone */
	CU_ASSERT_EQUAL(pkey_plan_shared(NULL, 0, 1, 1, 1, 0), 0xffff);
	CU_ASSERT_EQUAL(pkey_plan_shared(NULL, 0, 1, 1, 1, 0x7fff), 0xffff);
	CU_ASSERT_EQUAL(pkey_plan_shared(NULL, 0, 1, 1, 1, 0x0010), 0);
	pkey_fix_fini(&x);
}

/* 20000 CA ports on 500 switches, every CA named by GUID in one of two
 * partitions (reverse order): each lands where it should. */
static void test_many_guid_members(void)
{
	enum { N_SW = 500, PER_SW = 40 };
	struct fabric f;
	struct policy pol;
	struct pkey_plan pp;
	struct policy_partition *even, *odd;
	char err[128];
	int ok = 1;

	fabric_init(&f);
	policy_init(&pol);
	pkey_plan_init(&pp);
	even = policy_partition_add(&pol, "even", 0x0a, 0, 2048);
	odd = policy_partition_add(&pol, "odd", 0x0b, 0, 2048);
	CU_ASSERT_PTR_NOT_NULL_FATAL(even && odd);
	for (int s = 0; s < N_SW; s++) {
		int sw = fabric_add_node(&f, 0x100000000ull + (uint64_t)s, 2, PER_SW);

		CU_ASSERT_FATAL(sw >= 0);
		for (int c = 1; c <= PER_SW; c++) {
			uint64_t g = 0x200000000ull + (uint64_t)(s * PER_SW + c) * 2;
			int ca = fabric_add_node(&f, g, 1, 1);

			CU_ASSERT_FATAL(ca >= 0);
			f.nodes[ca].ports[1].present = 1;
			f.nodes[ca].ports[1].guid = g + 1;
			fabric_link(&f, sw, (uint8_t)c, ca, 1);
		}
	}
	for (size_t i = f.n_nodes; i-- > 0;)
		if (!fabric_is_switch(&f.nodes[i]))
			policy_member_add(i % 2 ? odd : even, POLICY_MEMBER_GUID,
					  f.nodes[i].ports[1].guid, POLICY_FULL);
	CU_ASSERT_EQUAL_FATAL(pkey_plan_build(&pp, pol.partitions, pol.n_partitions, NULL, 0, &f, 1,
					      1, err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL(pp.n, (size_t)N_SW * (1 + 2 * PER_SW));
	for (size_t i = 0; i < f.n_nodes; i++) {
		uint16_t base = i % 2 ? 0x0b : 0x0a;

		if (fabric_is_switch(&f.nodes[i]))
			continue;
		ok &= pkey_plan_member(&pp, (int)i, 1, base) == 2;
		ok &= pkey_plan_member(&pp, (int)i, 1, base ^ 1) == 0;
		ok &= pkey_plan_member(&pp, f.nodes[i].ports[1].remote_node,
				       f.nodes[i].ports[1].remote_port, base) == 2;
	}
	CU_ASSERT(ok);
	pkey_plan_fini(&pp);
	policy_fini(&pol);
	fabric_fini(&f);
}

/* ---- Push against the fake fabric ------------------------------------ */

static int pkey_then_runs;

static void pkey_then(struct sm *sm)
{
	(void)sm;
	pkey_then_runs++;
}

/* Sweep the lab, then make sm->next the swept fabric, as the sweep has it
 * when the pkey phase runs. */
static void pkey_rig(struct rig *r)
{
	rig_init(r, pkey_lab, NULL, "minhop");
	rig_sweep(r);
	CU_ASSERT_EQUAL_FATAL(r->last.status, 0);
	fabric_fini(&r->sm->next);
	CU_ASSERT_EQUAL_FATAL(fabric_copy(&r->sm->next, &r->sm->cur), 0);
}

/* One push to its end: deliver answers, advance time for timeouts. */
static void pkey_run(struct rig *r, const struct pkey_plan *pp, struct pkey_cache *c)
{
	int before = pkey_then_runs;

	r->sm->st.pkey_blocks_sent = 0;
	r->sm->st.set_errors = 0;
	pkey_push_start(r->sm, pp, c, pkey_then);
	for (int guard = 0; guard < 10000 && pkey_then_runs == before; guard++) {
		if (fake_fabric_deliver(r->ff, r->sm->q, r->now))
			continue;
		r->now += 10;
		sm_tick(r->sm);
	}
	CU_ASSERT_EQUAL(pkey_then_runs, before + 1);
	CU_ASSERT_EQUAL(r->sm->calls.pending, 0);
}

static int pkey_plan_for(struct rig *r, struct policy *pol, struct pkey_plan *pp)
{
	char err[128];

	return pkey_plan_build(pp, pol->partitions, pol->n_partitions, NULL, 0, &r->sm->next,
			       r->sm->next.sm_node, r->sm->next.sm_port, err, sizeof(err));
}

/* Does every port of the plan hold its table (padded with zeros) in the
 * fake? */
static int pkey_fake_holds(const struct rig *r, const struct pkey_plan *pp)
{
	for (size_t i = 0; i < pp->n; i++) {
		const struct pkey_port_table *t = &pp->t[i];
		const uint16_t *held = fake_fabric_pkeys(r->ff, r->sm->next.nodes[t->node].guid,
							 t->port);

		if (!held)
			return 0;
		for (unsigned k = 0; k < PKEY_BLOCK_SIZE; k++)
			if (held[k] != (k < t->n ? t->pkey[k] : 0))
				return 0;
	}
	return 1;
}

/* storage 0x0002: h2 full, h3 limited; no default declared */
static void pkey_storage(struct rig *r, struct policy *pol)
{
	const struct fabric *st = fake_fabric_state(r->ff);
	struct policy_partition *p;

	policy_init(pol);
	p = policy_partition_add(pol, "storage", 0x0002, 0, 2048);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	policy_member_add(p, POLICY_MEMBER_GUID, st->nodes[rig_node(st, "h2")].ports[1].guid,
			  POLICY_FULL);
	policy_member_add(p, POLICY_MEMBER_GUID, st->nodes[rig_node(st, "h3")].ports[1].guid,
			  POLICY_LIMITED);
}

static void test_push_default_plan_is_quiet(void)
{
	struct rig r;
	struct pkey_plan pp;
	struct pkey_cache *c = pkey_cache_new();
	unsigned gets;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	pkey_rig(&r);
	pkey_plan_init(&pp);
	CU_ASSERT_EQUAL(pkey_plan_build(&pp, NULL, 0, NULL, 0, &r.sm->next, r.sm->next.sm_node,
					r.sm->next.sm_port, NULL, 0),
			0);
	gets = fake_fabric_counters(r.ff)->gets;
	pkey_run(&r, &pp, c);
	/* every port read once, none written: the fake starts with 0xffff */
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->gets - gets, pp.n);
	CU_ASSERT_EQUAL(r.sm->st.pkey_blocks_sent, 0);
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->pkey_block_sets, 0);
	CU_ASSERT_EQUAL(r.sm->st.set_errors, 0);
	pkey_plan_fini(&pp);
	pkey_cache_free(c);
	rig_fini(&r);
}

/* Ports holding the same table share one block in the cache; tables that
 * came and went do not pile up: 100 plans, each with its own P_Key, leave
 * at most the compaction bound, and the last plan is still programmed
 * and then quiet. */
static void test_push_cache_shares_blocks(void)
{
	struct rig r;
	struct pkey_plan pp;
	struct pkey_cache *c = pkey_cache_new();
	const struct fabric *st;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	pkey_rig(&r);
	st = fake_fabric_state(r.ff);
	pkey_plan_init(&pp);
	CU_ASSERT_EQUAL(pkey_plan_build(&pp, NULL, 0, NULL, 0, &r.sm->next, r.sm->next.sm_node,
					r.sm->next.sm_port, NULL, 0),
			0);
	pkey_run(&r, &pp, c);
	CU_ASSERT(pp.n > 2);
	CU_ASSERT_EQUAL(pkey_cache_blocks(c), 1); /* every port holds 0xffff */
	pkey_plan_fini(&pp);
	for (unsigned i = 0; i < 100; i++) {
		struct policy pol;
		struct policy_partition *p;

		policy_init(&pol);
		p = policy_partition_add(&pol, "p", (uint16_t)(0x0100 + i), 0, 2048);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		policy_member_add(p, POLICY_MEMBER_GUID,
				  st->nodes[rig_node(st, "h2")].ports[1].guid, POLICY_FULL);
		pkey_plan_init(&pp);
		CU_ASSERT_EQUAL_FATAL(pkey_plan_for(&r, &pol, &pp), 0);
		pkey_run(&r, &pp, c);
		CU_ASSERT(pkey_fake_holds(&r, &pp));
		if (i < 99) {
			pkey_plan_fini(&pp);
			policy_fini(&pol);
			continue;
		}
		CU_ASSERT(pkey_cache_blocks(c) <= 64 + 2 * pp.n);
		pkey_run(&r, &pp, c);
		CU_ASSERT_EQUAL(r.sm->st.pkey_blocks_sent, 0);
		pkey_plan_fini(&pp);
		policy_fini(&pol);
	}
	pkey_cache_free(c);
	rig_fini(&r);
}

static void test_push_programs_then_quiet(void)
{
	struct rig r;
	struct policy pol;
	struct pkey_plan pp;
	struct pkey_cache *c = pkey_cache_new(), *fresh = pkey_cache_new();
	const struct fabric *st;
	struct fake_counters before;
	const uint16_t *h2, *sw2;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c && fresh);
	pkey_rig(&r);
	pkey_storage(&r, &pol);
	pkey_plan_init(&pp);
	CU_ASSERT_EQUAL_FATAL(pkey_plan_for(&r, &pol, &pp), 0);
	CU_ASSERT_EQUAL(pp.n, 7);
	pkey_run(&r, &pp, c);
	/* every table changed but the SM's (and its switch port's): 0xffff */
	CU_ASSERT_EQUAL(r.sm->st.pkey_blocks_sent, 5);
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->pkey_block_sets, 5);
	CU_ASSERT_EQUAL(r.sm->st.set_errors, 0);
	CU_ASSERT(pkey_fake_holds(&r, &pp));
	st = fake_fabric_state(r.ff);
	h2 = fake_fabric_pkeys(r.ff, st->nodes[rig_node(st, "h2")].guid, 1);
	sw2 = fake_fabric_pkeys(r.ff, st->nodes[rig_node(st, "sw")].guid, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h2 && sw2);
	CU_ASSERT(h2[0] == 0x7fff && h2[1] == 0x8002 && h2[2] == 0);
	CU_ASSERT(sw2[0] == 0x7fff && sw2[1] == 0x8002 && sw2[2] == 0);
	CU_ASSERT_EQUAL(fake_fabric_pkeys(r.ff, st->nodes[rig_node(st, "sw")].guid, 8)[1], 0);

	/* the same cache: nothing on the wire */
	before = *fake_fabric_counters(r.ff);
	pkey_run(&r, &pp, c);
	CU_ASSERT_EQUAL(r.sm->st.pkey_blocks_sent, 0);
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->gets, before.gets);
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->sets, before.sets);

	/* a restart (fresh cache): every port read, none written */
	pkey_run(&r, &pp, fresh);
	CU_ASSERT_EQUAL(r.sm->st.pkey_blocks_sent, 0);
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->gets, before.gets + 7);
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->sets, before.sets);
	CU_ASSERT(pkey_fake_holds(&r, &pp));

	/* back to no partitions: the cache knows what each port holds */
	CU_ASSERT_EQUAL(pkey_plan_build(&pp, NULL, 0, NULL, 0, &r.sm->next, r.sm->next.sm_node,
					r.sm->next.sm_port, NULL, 0),
			0);
	before = *fake_fabric_counters(r.ff);
	pkey_run(&r, &pp, fresh);
	CU_ASSERT_EQUAL(r.sm->st.pkey_blocks_sent, 5);
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->gets, before.gets);
	CU_ASSERT(pkey_fake_holds(&r, &pp));

	pkey_plan_fini(&pp);
	policy_fini(&pol);
	pkey_cache_free(c);
	pkey_cache_free(fresh);
	rig_fini(&r);
}

static void test_push_silent_port_is_retried(void)
{
	struct rig r;
	struct policy pol;
	struct pkey_plan pp;
	struct pkey_cache *c = pkey_cache_new();
	const struct fabric *st;
	uint64_t h3;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	pkey_rig(&r);
	pkey_storage(&r, &pol);
	pkey_plan_init(&pp);
	CU_ASSERT_EQUAL_FATAL(pkey_plan_for(&r, &pol, &pp), 0);
	st = fake_fabric_state(r.ff);
	h3 = st->nodes[rig_node(st, "h3")].guid;
	fake_fabric_mute_node(r.ff, h3, 1);
	pkey_run(&r, &pp, c);
	CU_ASSERT_EQUAL(r.sm->st.set_errors, 1); /* h3's Get timed out */
	CU_ASSERT_EQUAL(r.sm->st.pkey_blocks_sent, 4); /* h2, switch ports 0, 2, 3 */
	CU_ASSERT_EQUAL(fake_fabric_pkeys(r.ff, h3, 1)[0], 0xffff);
	fake_fabric_mute_node(r.ff, h3, 0);
	pkey_run(&r, &pp, c);
	CU_ASSERT_EQUAL(r.sm->st.set_errors, 0);
	CU_ASSERT_EQUAL(r.sm->st.pkey_blocks_sent, 1); /* only h3, read then set */
	CU_ASSERT(pkey_fake_holds(&r, &pp));
	pkey_plan_fini(&pp);
	policy_fini(&pol);
	pkey_cache_free(c);
	rig_fini(&r);
}

/* The SM freed mid-push (Sets in flight after the Gets' answers): sm_free
 * cancels the push, `then` never runs and nothing is left to free (the
 * unit binary runs clean under valgrind --leak-check=full). */
static void test_push_cancelled_by_sm_free(void)
{
	struct rig r;
	struct policy pol;
	struct pkey_plan pp;
	struct pkey_cache *c = pkey_cache_new();
	int before = pkey_then_runs;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	pkey_rig(&r);
	pkey_storage(&r, &pol);
	pkey_plan_init(&pp);
	CU_ASSERT_EQUAL_FATAL(pkey_plan_for(&r, &pol, &pp), 0);
	pkey_push_start(r.sm, &pp, c, pkey_then);
	CU_ASSERT_EQUAL(r.sm->calls.pending, pp.n); /* one Get a port */
	fake_fabric_deliver(r.ff, r.sm->q, r.now);
	CU_ASSERT_EQUAL(r.sm->calls.pending, 5); /* the Sets */
	rig_fini(&r);
	CU_ASSERT_EQUAL(pkey_then_runs, before);
	pkey_plan_fini(&pp);
	policy_fini(&pol);
	pkey_cache_free(c);
}

/* ---- Fake fabric P_KeyTable ------------------------------------------ */

static void test_fake_pkey_table(void)
{
	struct fabric f;
	struct fake_fabric *ff;
	char err[128];
	struct smp req, resp;
	struct smp_pkey_block b = {{0}};
	uint8_t mad[SMP_MAD_SIZE], path[FABRIC_MAX_HOPS + 1] = {0, 1};
	int sw;

	fabric_init(&f);
	CU_ASSERT_EQUAL_FATAL(topo_parse(pkey_lab, strlen(pkey_lab), "t", &f, err, sizeof(err)),
			      0);
	ff = fake_fabric_new(&f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
	sw = rig_node(&f, "sw");
	/* the switch, one hop away: Set port 3, block 0 */
	b.pkey[0] = 0x7fff;
	b.pkey[5] = 0x8123;
	smp_init_dr(&req, SMP_METHOD_SET, SMP_ATTR_PKEY_TABLE, 3u << 16, path, 1);
	smp_pkey_encode(&b, req.data);
	CU_ASSERT_EQUAL(smp_encode(&req, mad, sizeof(mad)), 0);
	CU_ASSERT_EQUAL(fake_fabric_xmit(ff).send(ff, NULL, mad, sizeof(mad)), 0);
	CU_ASSERT_EQUAL_FATAL(fake_fabric_pop(ff, mad), 1);
	CU_ASSERT_EQUAL(smp_decode(mad, sizeof(mad), &resp), 0);
	CU_ASSERT_EQUAL(resp.status, 0);
	CU_ASSERT_EQUAL(fake_fabric_pkeys(ff, f.nodes[sw].guid, 3)[5], 0x8123);
	CU_ASSERT_EQUAL(fake_fabric_pkeys(ff, f.nodes[sw].guid, 2)[0], 0xffff);
	CU_ASSERT_EQUAL(fake_fabric_pkeys(ff, f.nodes[sw].guid, 0)[5], 0);
	/* block 1 does not exist */
	smp_init_dr(&req, SMP_METHOD_GET, SMP_ATTR_PKEY_TABLE, (3u << 16) | 1, path, 1);
	CU_ASSERT_EQUAL(smp_encode(&req, mad, sizeof(mad)), 0);
	fake_fabric_xmit(ff).send(ff, NULL, mad, sizeof(mad));
	CU_ASSERT_EQUAL_FATAL(fake_fabric_pop(ff, mad), 1);
	CU_ASSERT_EQUAL(smp_decode(mad, sizeof(mad), &resp), 0);
	CU_ASSERT_EQUAL(resp.status, FAKE_STATUS_INVALID_VALUE);
	CU_ASSERT_PTR_NULL(fake_fabric_pkeys(ff, f.nodes[sw].guid, 9));
	fake_fabric_free(ff);
	fabric_fini(&f);
}

static int pkey_suite_init(void)
{
	log_init(getenv("UNIT_LOG") ? atoi(getenv("UNIT_LOG")) : LOG_LVL_ERR, "nanosm-unit");
	return 0;
}

/* Switch ports facing a CA are told to enforce P_Keys (the switch reports
 * PartitionEnforcementCap); switch port 8 (unlinked) is not; the next
 * sweep sends no PortInfo Set.  A switch that does not keep the bits (as
 * ibsim's) is asked once, then left alone. */
static void test_enforcement(void)
{
	struct rig r;
	uint64_t sw;

	for (int forget = 0; forget <= 1; forget++) {
		rig_init(&r, pkey_lab, NULL, "minhop");
		fake_fabric_forget_enforcement(r.ff, forget);
		rig_sweep(&r);
		CU_ASSERT_EQUAL(r.last.status, 0);
		sw = r.topo.nodes[rig_node(&r.topo, "sw")].guid;
		for (uint8_t p = 1; p <= 3; p++)
			CU_ASSERT_EQUAL(fake_fabric_enforcing(r.ff, sw, p), forget ? 0 : 3);
		CU_ASSERT_EQUAL(fake_fabric_enforcing(r.ff, sw, 8), 0);
		rig_sweep(&r);
		CU_ASSERT_EQUAL(r.last.port_sets, 0);
		rig_sweep(&r);
		CU_ASSERT_EQUAL(r.last.port_sets, 0);
		rig_fini(&r);
	}
}

/* A P_KeyTable Set that lands but whose answer is lost: the port's table
 * is no longer trusted from the cache.  h2 joins partition 0x0002 (the
 * Sets land, the answers are lost), then leaves it again: the tables go
 * back to what the cache remembered, and must be written anyway. */
static void test_push_lost_set_answers(void)
{
	struct rig r;
	struct policy pol;
	struct policy_partition *p;
	const struct fabric *st;
	const uint16_t *h2;

	rig_init(&r, pkey_lab, NULL, "minhop");
	rig_sweep(&r);
	st = fake_fabric_state(r.ff);
	policy_init(&pol);
	p = policy_partition_add(&pol, "blue", 0x0002, 0, 2048);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	policy_member_add(p, POLICY_MEMBER_ALL_CAS, 0, POLICY_FULL);
	CU_ASSERT_EQUAL_FATAL(sm_set_partitions(r.sm, pol.partitions, pol.n_partitions), 0);
	fake_fabric_lose_set_replies(r.ff, SMP_ATTR_PKEY_TABLE, 1000);
	rig_sweep(&r);
	CU_ASSERT(r.last.set_errors > 0);
	h2 = fake_fabric_pkeys(r.ff, st->nodes[rig_node(st, "h2")].guid, 1);
	CU_ASSERT_EQUAL(h2[1], 0x8002); /* it landed */
	fake_fabric_lose_set_replies(r.ff, 0, 0);
	CU_ASSERT_EQUAL_FATAL(sm_set_partitions(r.sm, NULL, 0), 0);
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.set_errors, 0);
	h2 = fake_fabric_pkeys(r.ff, st->nodes[rig_node(st, "h2")].guid, 1);
	CU_ASSERT_EQUAL(h2[0], 0xffff);
	CU_ASSERT_EQUAL(h2[1], 0); /* back to the default partition only */
	policy_fini(&pol);
	rig_fini(&r);
}

void test_pkey_register(void)
{
	CU_pSuite s = CU_add_suite("pkey", pkey_suite_init, NULL);

	CU_add_test(s, "no partitions: 0xffff everywhere", test_no_partitions_default_full);
	CU_add_test(s, "no default declared: limited, the SM full",
		    test_no_default_limited_sm_full);
	CU_add_test(s, "groups, SELF and a switch GUID", test_groups_and_switch_guid);
	CU_add_test(s, "full beats limited; default first, then by base",
		    test_full_beats_limited_and_order);
	CU_add_test(s, "more than 32 partitions: -E2BIG naming the port",
		    test_too_many_partitions);
	CU_add_test(s, "shared P_Key and membership queries", test_shared);
	CU_add_test(s, "20000 GUID members", test_many_guid_members);
	CU_add_test(s, "fake fabric stores P_KeyTable", test_fake_pkey_table);
	CU_add_test(s, "push: default plan on a fresh fabric sends no Set",
		    test_push_default_plan_is_quiet);
	CU_add_test(s, "push: ports share cached blocks; old ones are dropped",
		    test_push_cache_shares_blocks);
	CU_add_test(s, "push: programs, then quiet; restart reads first",
		    test_push_programs_then_quiet);
	CU_add_test(s, "push: a silent port is reported and retried",
		    test_push_silent_port_is_retried);
	CU_add_test(s, "push: freeing the SM mid-push cancels it", test_push_cancelled_by_sm_free);
	CU_add_test(s, "switch ports facing CAs enforce P_Keys", test_enforcement);
	CU_add_test(s, "push: a Set whose answer was lost is not trusted",
		    test_push_lost_set_answers);
}
