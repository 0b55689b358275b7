/*
 * control_test.c - the fixture of suite control (control_test.h): a small
 * fabric from topo_parse with minhop LFTs and a LID map, the fake control ops
 * that answer from it and count what they were asked, and a scratch
 * directory for the socket.  Test code only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mad/smp.h"
#include "mad/text.h"
#include "routing/route.h"
#include "routing/topo_file.h"
#include "sm/core/log.h"
#include "sm/core/quarantine.h"
#include "tests/unit/control_test.h"

/* host1 on sw1 port 1; host2 (2 ports) on sw1 port 2 and sw2 port 2; host3
 * on sw2 port 1; sw1 port 7 to sw2 port 7.  Node order: host1 0, host2 1,
 * host3 2, sw1 3, sw2 4.  LIDs: host1 1, host2 2 and 3, host3 4, sw1 5,
 * sw2 6.  The name map calls sw2 "edge-2". */
static const char tc_text[] = "caguid=0x0002c90300a00010\n"
			      "Hca 1 \"host1\"\n"
			      "[1] \"sw1\"[1]\n"
			      "caguid=0x0002c90300a00020\n"
			      "Hca 2 \"host2\"\n"
			      "[1] \"sw1\"[2]\n"
			      "[2] \"sw2\"[2]\n"
			      "caguid=0x0002c90300a00030\n"
			      "Hca 1 \"host3\"\n"
			      "[1] \"sw2\"[1]\n"
			      "switchguid=0x0002c90300b00001\n"
			      "Switch 8 \"sw1\"\n"
			      "[7] \"sw2\"[7]\n"
			      "switchguid=0x0002c90300b00002\n"
			      "Switch 8 \"sw2\"\n";

struct tc tc;

/* ---- Fake ops ----------------------------------------------------------- */

/* one key quarantined, one missing but not yet */
static struct quar_entry tc_quar_e[] = {
	{.guid = 0x0002c90300a00044ULL, .port = 3, .attr = SMP_ATTR_NODE_INFO, .misses = 4,
	 .first = 2, .last = 5, .hops = 2, .path = {0, 1, 3}},
	{.guid = 0x0002c90300a00055ULL, .port = 1, .attr = SMP_ATTR_PORT_INFO, .misses = 1,
	 .first = 5, .last = 5},
};
static struct quar tc_quar = {.e = tc_quar_e, .n = 2, .cap = 2};

static void tc_status(void *ctx, struct control_status *st)
{
	(void)ctx;
	st->state = tc.standby ? "STANDBY" : "MASTER";
	st->master_guid = tc.standby ? 0x0002c90300a00099ULL : 0;
	st->master_lid = tc.standby ? 7 : 0;
	st->sweeping = 0;
	st->port_guid = 0x0002c90300a00011ULL;
	st->sm_lid = 1;
	st->now_ms = 100000;
	st->started_ms = 28000;
	st->engines = "ftree,updn,minhop";
	st->last.number = 3;
	st->last.sweep_ms = 4;
	st->last_end_ms = 95000;
	st->last_good.number = 3;
	st->last_good.engine = "minhop";
	st->last_good.vls = 2;
	st->mad.sent = 39;
	st->mad.received = 38;
	st->mad.timeouts = 1;
	st->mad.retries = 2;
	st->sa.requests = 12;
	st->sa.answered = 11;
	st->sa.errors = 2;
	st->sa.malformed = 1;
	st->sa.path_queries = 8;
	st->sa.path_cache_hits = 5;
	st->mcast_groups = 3;
	st->sa_use.mlid_cap = 1024;
	st->sa_use.mlids_used = 3;
	st->sa_use.held[SA_QUOTA_GROUPS] = 3;
	st->sa_use.limit[SA_QUOTA_GROUPS] = 512;
	st->sa_use.top[SA_QUOTA_GROUPS][0].guid = 0x0002c90300a00021ULL;
	st->sa_use.top[SA_QUOTA_GROUPS][0].used = 2;
	st->sa.quota_refused = 5;
	st->tx_dropped = 1;
	st->tx_failed = 2;
	st->sa.deferred = 4;
	st->rx_dropped = 7;
	st->light.runs = 9;
	st->light.escalations = 1;
	st->light.last_mads = 2;
	st->light.last_ms = 1;
	st->last.unreachable = 2;
	st->last.stale = 1;
	st->last.incomplete_run = 4;
	st->quar = &tc_quar;
}

static int tc_sweep(void *ctx)
{
	struct tc *t = ctx;

	return ++t->sweeps > 1 ? -EBUSY : 0; /* a second request coalesces */
}

static int tc_reload(void *ctx, int force, char *msg, size_t msglen)
{
	struct tc *t = ctx;

	t->reload_force = force;
	if (t->reload_fails) {
		snprintf(msg, msglen, "policy.yaml:3:1: unknown key 'rooots'\n(line 3)");
		return -EINVAL;
	}
	snprintf(msg, msglen, "policy reloaded: routing unchanged");
	return 0;
}

static int tc_plan(void *ctx, const char *name, const char *text, size_t len, int verbose,
		   char **out, char *err, size_t errlen)
{
	struct tc *t = ctx;

	t->plan_calls++;
	t->plan_verbose = verbose;
	snprintf(t->plan_name, sizeof(t->plan_name), "%s", name);
	snprintf(t->plan_text, sizeof(t->plan_text), "%.*s", (int)(len < 63 ? len : 63),
		 text ? text : "");
	t->plan_len = len;
	if (!strcmp(name, "bad.yaml")) {
		snprintf(err, errlen, "%s:3:1: unknown key 'rooots'", name);
		return -EINVAL;
	}
	if (!strcmp(name, "big")) {
		*out = malloc(TC_BIG_PLAN + 1);
		if (!*out)
			return -ENOMEM;
		memset(*out, 'x', TC_BIG_PLAN);
		(*out)[TC_BIG_PLAN] = '\0';
		return 0;
	}
	if (!strcmp(name, "ring.yaml")) {
		*out =
		    strdup("routing: updn -> minhop\nrefused: credit loop\nnothing would change\n");
		snprintf(err, errlen, "the new routing fails the gate: credit loop");
		return *out ? CONTROL_PLAN_REFUSED : -ENOMEM;
	}
	*out = strdup("routing: ftree,updn,minhop -> minhop\nnothing would change\n");
	return *out ? 0 : -ENOMEM;
}

static const struct fabric *tc_fabric(void *ctx)
{
	return &((struct tc *)ctx)->f;
}

static const struct lft_set *tc_lfts(void *ctx)
{
	struct tc *t = ctx;

	return t->no_lfts ? NULL : &t->lfts;
}

static const struct lid_alloc *tc_lids(void *ctx)
{
	return &((struct tc *)ctx)->lids;
}

static const struct topo_names *tc_names(void *ctx)
{
	return &((struct tc *)ctx)->names;
}

static void tc_metrics(void *ctx, struct metrics_figures *m)
{
	(void)ctx;
	m->sweeps_heavy = 7;
	m->engine = "minhop";
	m->sm_state = SM_STATE_MASTER;
	m->subnet_up = 1;
}

const struct control_ops control_test_ops = {
    .ctx = &tc,
    .status = tc_status,
    .sweep = tc_sweep,
    .reload = tc_reload,
    .plan = tc_plan,
    .fabric = tc_fabric,
    .lfts = tc_lfts,
    .lids = tc_lids,
    .names = tc_names,
    .metrics = tc_metrics,
};

/* ---- Setup -------------------------------------------------------------- */

static int tc_set_lid(struct tc *t, int node, unsigned port, uint16_t lid)
{
	struct fabric_port *p = &t->f.nodes[node].ports[port];

	p->lid = lid;
	return lid_alloc_reserve(&t->lids, p->guid, lid);
}

int control_test_init(void)
{
	struct route_opts ro = {.max_lid = 6};
	char err[256];

	memset(&tc, 0, sizeof(tc));
	tc.log_level = log_level_get();
	log_init(LOG_LVL_ERR, NULL);
	fabric_init(&tc.f);
	lft_set_init(&tc.lfts);
	if (topo_parse(tc_text, strlen(tc_text), "tc", &tc.f, err, sizeof(err)) ||
	    lid_alloc_init(&tc.lids, LID_UNICAST_MAX))
		return -1;
	for (size_t i = 0; i < tc.f.n_nodes; i++)
		for (unsigned p = 0; p <= tc.f.nodes[i].num_ports; p++)
			if (tc.f.nodes[i].ports[p].remote_node != FABRIC_NONE)
				tc.f.nodes[i].ports[p].state = PORT_STATE_ACTIVE;
	if (tc_set_lid(&tc, H1, 1, 1) || tc_set_lid(&tc, H2, 1, 2) || tc_set_lid(&tc, H2, 2, 3) ||
	    tc_set_lid(&tc, H3, 1, 4) || tc_set_lid(&tc, SW1, 0, 5) || tc_set_lid(&tc, SW2, 0, 6) ||
	    lid_alloc_reserve(&tc.lids, 0x0002c90300dead01ULL, 40)) /* from guid2lid, gone */
		return -1;
	if (route_engine_minhop.compute(&tc.f, &ro, &tc.lfts, NULL, err, sizeof(err)))
		return -1;
	tc.name_v[0] = (struct topo_name){0x0002c90300b00002ULL, "edge-2"};
	tc.names = (struct topo_names){tc.name_v, 1};
	snprintf(tc.dir, sizeof(tc.dir), "/tmp/nanosm-ctl-test.XXXXXX");
	if (!mkdtemp(tc.dir))
		return -1;
	snprintf(tc.path, sizeof(tc.path), "%s/run/nanosm/ctl.sock", tc.dir);
	return 0;
}

int control_test_clean(void)
{
	char p[192];

	unlink(tc.path);
	snprintf(p, sizeof(p), "%s/run/nanosm", tc.dir);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/run", tc.dir);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/file", tc.dir);
	unlink(p);
	rmdir(tc.dir);
	lid_alloc_fini(&tc.lids);
	lft_set_fini(&tc.lfts);
	fabric_fini(&tc.f);
	log_init(tc.log_level, NULL);
	return 0;
}

const char control_test_trace_h1_h3[] =
    "From ca {0x0002c90300a00010} portnum 1 lid 1-1 \"host1\"\n"
    "[1] -> switch port {0x0002c90300b00001}[1] lid 5-5 \"sw1\"\n"
    "[7] -> switch port {0x0002c90300b00002}[7] lid 6-6 \"sw2\"\n"
    "[1] -> ca port {0x0002c90300a00031}[1] lid 4-4 \"host3\"\n"
    "To ca {0x0002c90300a00030} portnum 1 lid 4-4 \"host3\"\n";
