/*
 * test_control.c - unit tests for sm/daemon/control.c: every command answered
 * through fake ops (a small fabric from topo_parse, minhop LFTs, a LID
 * map), malformed requests, the socket file (modes, parent directory,
 * stale/live/foreign files), and control_serve with a client in this
 * process: replies, a silent client (bounded by the read timeout), an
 * oversized request, a client that never reads a large reply, and one
 * that reads it all from a second thread.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "mad/smp.h"
#include "mad/text.h"
#include "routing/lft_file.h"
#include "routing/route.h"
#include "routing/topo_file.h"
#include "sm/core/log.h"
#include "sm/core/quarantine.h"
#include "sm/daemon/control.h"
#include "sm/daemon/control_proto.h"
#include "tests/unit/unit.h"

void test_control_register(void); /* also in unit.h once registered there */

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

enum { H1, H2, H3, SW1, SW2 };

#define TC_BIG_PLAN (4u << 20) /* a reply larger than any socket buffer */

struct tc {
	struct fabric f;
	struct lft_set lfts;
	struct lid_alloc lids;
	struct topo_name name_v[1];
	struct topo_names names;
	int no_lfts;	     /* lfts op answers NULL */
	int sweeps;	     /* sweep op calls */
	int standby;	     /* status answers STANDBY under a master */
	int reload_fails;    /* reload op answers an error */
	int reload_force;    /* what the last reload was given (-1: none yet) */
	char plan_name[256]; /* what the plan op was given: the name */
	char plan_text[64];  /* and the text (its start) */
	size_t plan_len;     /* and its length */
	int plan_calls;
	int plan_verbose;
	char dir[64];	/* mkdtemp */
	char path[128]; /* the socket */
	int log_level;	/* restored after the suite (its expected warnings muted) */
};

static struct tc tc;

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

static const struct control_ops tc_ops = {
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

static int tc_suite_init(void)
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

static int tc_suite_clean(void)
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

/* ---- control_handle: one request, its whole reply ----------------------- */

static char *tc_ask(const char *line)
{
	char *reply = NULL;
	size_t len = 0;

	CU_ASSERT_EQUAL(control_handle(&tc_ops, line, strlen(line), &reply, &len), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(reply);
	CU_ASSERT_EQUAL(strlen(reply), len);
	return reply;
}

/* The reply to line must be exactly want. */
static void tc_expect(const char *line, const char *want)
{
	char *got = tc_ask(line);

	if (strcmp(got, want))
		fprintf(stderr, "\n'%s':\n--- got:\n%s--- want:\n%s", line, got, want);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
}

/* The reply's first line must be want_first and its body contain want. */
static void tc_expect_has(const char *line, const char *want_first, const char *want)
{
	char *got = tc_ask(line);
	size_t n = strlen(want_first);

	if (strncmp(got, want_first, n) || got[n] != '\n' || (want && !strstr(got + n, want)))
		fprintf(stderr, "\n'%s':\n--- got:\n%s--- want first line '%s' and '%s'\n", line,
			got, want_first, want ? want : "");
	CU_ASSERT_EQUAL(strncmp(got, want_first, n), 0);
	CU_ASSERT_EQUAL(got[n], '\n');
	if (want)
		CU_ASSERT_PTR_NOT_NULL(strstr(got + n, want));
	free(got);
}

static void test_control_status(void)
{
	tc_expect("status",
		  "ok\n"
		  "state: MASTER\n"
		  "sweeping: no\n"
		  "sm port: 0x0002c90300a00011 lid 1\n"
		  "uptime: 72 s\n"
		  "last sweep: 3 ok, took 4 ms, ended 5 s ago\n"
		  "last good sweep: 3, engine minhop, vls 2\n"
		  "routing engines: ftree,updn,minhop\n"
		  "switches: 2\n"
		  "cas: 4\n"
		  "ports: 22\n"
		  "lids: 6\n"
		  "mads: sent=39 received=38 timeouts=1 retries=2 unmatched=0 malformed=0 "
		  "requests=0 send_errors=0 rx_dropped=7\n"
		  "sa: requests=12 answered=11 errors=2 malformed=1 reports=0 path_queries=8 "
		  "path_cache_hits=5 deferred=4 backlog_dropped=0 mcast_groups=3\n"
		  "sa limits: mlids=3/1024 mlid_refused=0 quota_refused=5 report_retries=0 "
		  "report_deferred=0 subs_dropped=0 send_dropped=1 send_failed=2\n"
		  "sa groups: held=3 quota_per_port=512 top: 0x0002c90300a00021=2\n"
		  "sa services: held=0 quota_per_port=0 top: -\n"
		  "sa subscriptions: held=0 quota_per_port=0 top: -\n"
		  "light sweeps: runs=9 escalations=1 last_mads=2 last_ms=1 traps_suppressed=0 "
		  "traps_coalesced=0\n"
		  "last sweep faults: unreachable=2 stale=1 set_errors=0 alt_tries=0 alt_ok=0 "
		  "incomplete_run=4\n"
		  "quarantined: 1\n"
		  "  0x0002c90300a00044 port 3: NodeInfo failed in 4 sweeps (2-5) via 1,3\n");
	tc_expect_has("  status  ", "ok", "state: MASTER\n");
	/* a standby names the master it follows */
	tc.standby = 1;
	tc_expect_has("status", "ok", "state: STANDBY\nmaster: 0x0002c90300a00099 lid 7\nsweeping: no\n");
	tc.standby = 0;
	tc_expect_has("status\r", "error request contains a control character (0x0d)", NULL);
}

static void test_control_sweep_reload_plan(void)
{
	tc.sweeps = 0;
	tc_expect("sweep", "ok\nsweep requested\n");
	tc_expect("sweep", "ok\nsweep requested\n"); /* -EBUSY: coalesced, still ok */
	CU_ASSERT_EQUAL(tc.sweeps, 2);
	tc_expect("reload", "ok\npolicy reloaded: routing unchanged\n");
	tc.reload_fails = 1;
	tc_expect("reload", "error reload: policy.yaml:3:1: unknown key 'rooots' (line 3)\n");
	tc.reload_fails = 0;
	/* --force reaches the daemon; anything else is refused before it */
	CU_ASSERT_EQUAL(tc.reload_force, 0);
	tc_expect("reload --force", "ok\npolicy reloaded: routing unchanged\n");
	CU_ASSERT_EQUAL(tc.reload_force, 1);
	tc.reload_force = -1;
	tc_expect("reload now", "error usage: reload [--force]\n");
	CU_ASSERT_EQUAL(tc.reload_force, -1);
	tc_expect("reload --force x", "error usage: reload [--force]\n");
	tc_expect("plan policy.yaml 27\nrouting: {engines: minhop}\n",
		  "ok\nrouting: ftree,updn,minhop -> minhop\nnothing would change\n");
	CU_ASSERT_STRING_EQUAL(tc.plan_name, "policy.yaml");
	CU_ASSERT_STRING_EQUAL(tc.plan_text, "routing: {engines: minhop}\n");
	CU_ASSERT_EQUAL(tc.plan_len, 27);
	CU_ASSERT_EQUAL(tc.plan_verbose, 0);
	/* plan -v: every switch; the name is the word that is no option */
	tc_expect_has("plan -v policy.yaml 3\nsm:", "ok", "nothing would change");
	CU_ASSERT_STRING_EQUAL(tc.plan_name, "policy.yaml");
	CU_ASSERT_EQUAL(tc.plan_verbose, 1);
	/* the body is the announced bytes: what follows them is not */
	tc_expect_has("plan \"/etc/my dir/p.yaml\" 3\nsm:junk", "ok", "nothing would change");
	CU_ASSERT_STRING_EQUAL(tc.plan_name, "/etc/my dir/p.yaml");
	CU_ASSERT_STRING_EQUAL(tc.plan_text, "sm:");
	tc_expect_has("plan empty.yaml 0", "ok", NULL); /* an empty file, no newline */
	CU_ASSERT_EQUAL(tc.plan_len, 0);
	tc_expect("plan bad.yaml 2\nx\n", "error plan: bad.yaml:3:1: unknown key 'rooots'\n");
	/* a refused plan is an error (nanosmctl exits 1), with the plan */
	tc_expect("plan ring.yaml 1\n\n",
		  "error plan: ring.yaml would be refused: the new routing fails the gate: credit "
		  "loop\nrouting: updn -> minhop\nrefused: credit loop\nnothing would change\n");
	tc_expect("plan p.yaml 50\nabc",
		  "error the request's body is shorter than its length (3 of 50 bytes)\n");
}

/* The daemon never opens a path a client names: a "plan FILE" line
 * without the file's bytes is a usage error and the op never runs. */
static void test_control_plan_no_path(void)
{
	static const char *const lines[] = {"plan /etc/shadow",
					    "plan /etc/shadow\n",
					    "plan /etc/shadow x",
					    "plan /etc/shadow -1",
					    "plan /etc/shadow 4194305",
					    "plan /etc/shadow 99999999999999999999",
					    "plan",
					    "plan 0"};
	const char *want =
	    "error usage: plan [-v] FILE LENGTH, then the file's LENGTH bytes (at most "
	    "4194304): nanosmctl reads the file, the daemon never opens a path\n";

	tc.plan_calls = 0;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		tc_expect(lines[i], want);
	CU_ASSERT_EQUAL(tc.plan_calls, 0);
}

static void test_control_topology(void)
{
	char *want = NULL, *got;
	size_t len;

	CU_ASSERT_EQUAL_FATAL(topo_write(&tc.f, TOPO_FORMAT_IBNETDISCOVER, &tc.names, &want, &len),
			      0);
	got = tc_ask("topology");
	CU_ASSERT_EQUAL(strncmp(got, "ok\n", 3), 0);
	CU_ASSERT_STRING_EQUAL(got + 3, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "\"S-0002c90300b00002\"\t\t# \"edge-2\" base port 0 "
					   "lid 6 lmc 0\n"));
	free(got);
	got = tc_ask("topology ibnetdiscover");
	CU_ASSERT_STRING_EQUAL(got + 3, want);
	free(got);
	free(want);
	tc_expect_has("topology json", "ok", "\"desc\": \"sw2\", \"name\": \"edge-2\"");
	tc_expect_has("topology dot", "ok", "[shape=box, label=\"edge-2\\nlid 6\"];\n");
	tc_expect("topology svg",
		  "error unknown topology format 'svg' (ibnetdiscover, json or dot; "
		  "nanosmctl draws svg and html)\n");
	tc_expect("topology dot json", "error usage: topology [ibnetdiscover|json|dot]\n");
}

static void test_control_lfts(void)
{
	char *want = NULL, *got;
	size_t len;

	CU_ASSERT_EQUAL_FATAL(lft_file_write_dump_fts(&tc.f, &tc.lfts, &want, &len), 0);
	got = tc_ask("lfts");
	CU_ASSERT_EQUAL(strncmp(got, "ok\n", 3), 0);
	CU_ASSERT_STRING_EQUAL(got + 3, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "Unicast lids [0x0-0x6] of switch Lid 5 guid "
					   "0x0002c90300b00001 (sw1):\n"));
	free(got);
	free(want);
	tc.no_lfts = 1;
	tc_expect("lfts", "error no forwarding tables match the current model (none yet, or a "
			  "sweep is replacing them: try again)\n");
	tc.no_lfts = 0;
}

/* sls: "SLID DLID SL" from every CA port LID (1-4) to every other LID
 * (1-6), or from one source; the SLs are the LFT set's. */
static void test_control_sls(void)
{
	struct text_buf want;

	tc_expect("sls 5", "ok\n5 1 0\n5 2 0\n5 3 0\n5 4 0\n5 6 0\n"); /* no SLs: all 0 */
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc_sl(&tc.lfts, 6), 0);
	tc.lfts.sl[4] = 1; /* host3 */
	tc.lfts.sl[6] = 2; /* sw2 */
	tc.lfts.n_vls = 3;
	text_buf_init(&want);
	text_buf_printf(&want, "ok\n");
	for (unsigned s = 1; s <= 4; s++)
		for (unsigned d = 1; d <= 6; d++)
			if (d != s)
				text_buf_printf(&want, "%u %u %u\n", s, d,
						d == 4	 ? 1
						: d == 6 ? 2
							 : 0);
	tc_expect("sls", want.s);
	text_buf_fini(&want);
	tc_expect("sls host3", "ok\n4 1 0\n4 2 0\n4 3 0\n4 5 0\n4 6 2\n");
	tc_expect("sls 0x0002c90300a00020", "ok\n2 1 0\n2 3 0\n2 4 1\n2 5 0\n2 6 2\n");
	tc_expect("sls nobody", "error no node named 'nobody'\n");
	tc_expect("sls 1 2", "error usage: sls [SRC]\n");
	free(tc.lfts.sl);
	tc.lfts.sl = NULL;
	tc.lfts.sl_top = 0;
	tc.lfts.n_vls = 1;
	tc.no_lfts = 1;
	tc_expect("sls", "error no forwarding tables match the current model (none yet, or a "
			 "sweep is replacing them: try again)\n");
	tc.no_lfts = 0;
}

static void test_control_metrics(void)
{
	char *got = tc_ask("metrics");

	CU_ASSERT_EQUAL(strncmp(got, "ok\n# HELP nanosm_uptime_seconds ", 32), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "\nnanosm_sweeps_total{kind=\"heavy\"} 7\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "\nnanosm_routing_engine_info{engine=\"minhop\","));
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "\nnanosm_subnet_up 1\n"));
	free(got);
	tc_expect("metrics now", "error usage: metrics\n");
}

static void test_control_lids(void)
{
	tc_expect("lids", "ok\n"
			  "0x0002c90300a00011 1 host1\n"
			  "0x0002c90300a00021 2 host2\n"
			  "0x0002c90300a00022 3 host2\n"
			  "0x0002c90300a00031 4 host3\n"
			  "0x0002c90300b00001 5 sw1\n"
			  "0x0002c90300b00002 6 edge-2\n"
			  "0x0002c90300dead01 40 (not in fabric)\n");
}

static const char tc_trace_h1_h3[] = "From ca {0x0002c90300a00010} portnum 1 lid 1-1 \"host1\"\n"
				     "[1] -> switch port {0x0002c90300b00001}[1] lid 5-5 \"sw1\"\n"
				     "[7] -> switch port {0x0002c90300b00002}[7] lid 6-6 \"sw2\"\n"
				     "[1] -> ca port {0x0002c90300a00031}[1] lid 4-4 \"host3\"\n"
				     "To ca {0x0002c90300a00030} portnum 1 lid 4-4 \"host3\"\n";

static void test_control_routes(void)
{
	char want[1024];

	snprintf(want, sizeof(want), "ok\n%s", tc_trace_h1_h3);
	tc_expect("routes host1 host3", want);
	tc_expect("routes 1 4", want);
	tc_expect("routes 0x1 0x0004", want);
	tc_expect("routes 0x0002c90300a00010 0x0002c90300a00031", want); /* node, port GUID */
	tc_expect("routes \"host1\" host3", want);
	tc_expect("routes host1 edge-2",
		  "ok\n"
		  "From ca {0x0002c90300a00010} portnum 1 lid 1-1 \"host1\"\n"
		  "[1] -> switch port {0x0002c90300b00001}[1] lid 5-5 \"sw1\"\n"
		  "[7] -> switch port {0x0002c90300b00002}[7] lid 6-6 \"sw2\"\n"
		  "To switch {0x0002c90300b00002} portnum 0 lid 6-6 \"sw2\"\n");
	tc_expect_has("routes sw2 3", "ok",
		      "To ca {0x0002c90300a00020} portnum 2 lid 3-3 \"host2\"");
	tc_expect("routes host1 nobody", "error no node named 'nobody'\n");
	tc_expect("routes host1 0", "error '0': not a unicast LID (1-49151)\n");
	tc_expect("routes host1 49152", "error '49152': not a unicast LID (1-49151)\n");
	tc_expect("routes host1 99999999999999999999999", "error '99999999999999999999999': not a "
							  "unicast LID (1-49151)\n");
	tc_expect("routes host1 7", "error no port has lid 7\n");
	tc_expect("routes host1 0x00000000000000ff", "error no node or port has GUID "
						     "0x00000000000000ff\n");
	tc_expect("routes host1", "error usage: routes SRC DST\n");
}

static void test_control_routes_faults(void)
{
	struct lft *t = lft_set_find(&tc.lfts, SW1);
	char want[1024];

	/* two nodes answer to "host2" */
	strcpy(tc.f.nodes[H3].desc, "host2");
	tc_expect("routes host1 host2", "error 'host2' names 2 nodes: give a GUID or a LID\n");
	strcpy(tc.f.nodes[H3].desc, "host3");
	/* a black hole at sw1: an error, and the trace up to it */
	CU_ASSERT_FATAL(t != NULL);
	t->port[4] = LFT_DROP;
	snprintf(want, sizeof(want),
		 "error no route from host1 to lid 4: black hole at switch \"sw1\" "
		 "{0x0002c90300b00001} lid 5: no LFT entry for lid 4 (port 255)\n"
		 "From ca {0x0002c90300a00010} portnum 1 lid 1-1 \"host1\"\n"
		 "[1] -> switch port {0x0002c90300b00001}[1] lid 5-5 \"sw1\"\n"
		 "stop: black hole at switch \"sw1\" {0x0002c90300b00001} lid 5: no LFT entry for "
		 "lid 4 (port 255)\n");
	tc_expect("routes host1 host3", want);
	t->port[4] = 7;
	tc.no_lfts = 1;
	tc_expect_has("routes host1 host3",
		      "error no forwarding tables match the current model "
		      "(none yet, or a sweep is replacing them: try again)",
		      NULL);
	tc.no_lfts = 0;
}

static void test_control_bad_requests(void)
{
	char *huge = malloc(CONTROL_REQUEST_MAX + 10);

	tc_expect("", "error empty request (commands: status, sweep, reload, plan, topology, "
		      "lfts, lids, routes, sls, metrics, health)\n");
	tc_expect("   ", "error empty request (commands: status, sweep, reload, plan, topology, "
			 "lfts, lids, routes, sls, metrics, health)\n");
	tc_expect("frobnicate",
		  "error unknown command 'frobnicate' (commands: status, sweep, "
		  "reload, plan, topology, lfts, lids, routes, sls, metrics, health)\n");
	tc_expect("STATUS", "error unknown command 'STATUS' (commands: status, sweep, reload, "
			    "plan, topology, lfts, lids, routes, sls, metrics, health)\n");
	tc_expect("status now", "error usage: status\n");
	tc_expect("routes a b c d", "error usage: routes SRC DST\n");
	tc_expect("routes a b c d e f g h", "error too many words in the request\n");
	tc_expect("status --now", "error status: unknown option '--now' (usage: status)\n");
	tc_expect("routes \"host1 host3", "error unterminated quote in the request\n");
	tc_expect("routes ho\"st1 host3", "error unexpected quote after 'ho'\n");
	tc_expect("status\x01", "error request contains a control character (0x01)\n");
	CU_ASSERT_FATAL(huge != NULL);
	memset(huge, 'a', CONTROL_REQUEST_MAX + 9);
	huge[CONTROL_REQUEST_MAX + 9] = '\0';
	tc_expect(huge, "error request too long (max 4095 bytes)\n");
	free(huge);
}

/* The grammar nanosmctl checks before it connects: the same table. */
static void test_control_grammar(void)
{
	static char *const ok[][4] = {{"status"},	    {"plan", "p.yaml"},
				      {"topology", "json"}, {"routes", "a", "b"},
				      {"topology"},	    {"metrics"}};
	static const int ok_n[] = {1, 2, 2, 3, 1, 1};
	char err[256];
	char *w[4];
	size_t len;

	for (size_t i = 0; i < sizeof(ok_n) / sizeof(ok_n[0]); i++)
		CU_ASSERT_PTR_NOT_NULL(control_grammar_check(ok[i], ok_n[i], err, sizeof(err)));
	w[0] = "frobnicate";
	CU_ASSERT_PTR_NULL(control_grammar_check(w, 1, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err,
			       "unknown command 'frobnicate' (commands: status, sweep, "
			       "reload, plan, topology, lfts, lids, routes, sls, metrics, health)");
	w[0] = "routes", w[1] = "a";
	CU_ASSERT_PTR_NULL(control_grammar_check(w, 2, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "usage: routes SRC DST");
	w[0] = "plan";
	CU_ASSERT_PTR_NULL(control_grammar_check(w, 1, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "usage: plan [-v] FILE");
	w[0] = "lids", w[1] = "--all";
	CU_ASSERT_PTR_NULL(control_grammar_check(w, 2, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "lids: unknown option '--all' (usage: lids)");
	CU_ASSERT_PTR_NULL(control_grammar_check(w, 0, err, sizeof(err)));
	CU_ASSERT_EQUAL(strncmp(err, "empty request (commands: status, ", 33), 0);
	/* on the wire a plan carries its length; others carry none */
	w[0] = "plan", w[1] = "p.yaml", w[2] = "4194304";
	CU_ASSERT_PTR_NOT_NULL(control_grammar_check_wire(w, 3, &len, err, sizeof(err)));
	CU_ASSERT_EQUAL(len, CONTROL_BODY_MAX);
	w[0] = "routes", w[1] = "1", w[2] = "2";
	CU_ASSERT_PTR_NOT_NULL(control_grammar_check_wire(w, 3, &len, err, sizeof(err)));
	CU_ASSERT_EQUAL(len, 0);
	w[0] = "--force", w[1] = NULL;
	CU_ASSERT_TRUE(control_grammar_has_option(w, "--force"));
	CU_ASSERT_FALSE(control_grammar_has_option(w + 1, "--force"));
}

/* Every command with ops that provide nothing. */
static void test_control_missing_ops(void)
{
	static const struct control_ops none = {0};
	static const char *const lines[] = {"status", "sweep", "reload",     "plan x 0", "topology",
					    "lfts",   "lids",  "routes 1 2", "metrics"};
	static const char *const want[] = {
	    "error status is not available\n",
	    "error sweep is not available\n",
	    "error reload is not available\n",
	    "error plan is not available\n",
	    "error no fabric yet (no sweep has succeeded)\n",
	    "error no fabric yet (no sweep has succeeded)\n",
	    "error lids are not available\n",
	    "error no fabric yet (no sweep has succeeded)\n",
	    "error metrics are not available\n",
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		char *reply = NULL;
		size_t len;

		CU_ASSERT_EQUAL(control_handle(&none, lines[i], strlen(lines[i]), &reply, &len), 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(reply);
		if (strcmp(reply, want[i]))
			fprintf(stderr, "\n'%s': got '%s'", lines[i], reply);
		CU_ASSERT_STRING_EQUAL(reply, want[i]);
		free(reply);
	}
}

/* ---- The socket file ---------------------------------------------------- */

static void test_control_listen(void)
{
	char err[256], dir[320], file[192];
	struct stat st;
	int lfd, again;

	lfd = control_listen(tc.path, err, sizeof(err));
	CU_ASSERT_FATAL(lfd >= 0);
	CU_ASSERT_EQUAL(stat(tc.path, &st), 0);
	CU_ASSERT_TRUE(S_ISSOCK(st.st_mode));
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
	snprintf(dir, sizeof(dir), "%s/run/nanosm", tc.dir);
	CU_ASSERT_EQUAL(stat(dir, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0755);
	/* a second daemon on the same path is refused; the first keeps it */
	again = control_listen(tc.path, err, sizeof(err));
	CU_ASSERT_EQUAL(again, -EADDRINUSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "another process answers on it"));
	/* closed without unlinking: a stale socket file, replaced */
	close(lfd);
	CU_ASSERT_EQUAL(stat(tc.path, &st), 0);
	lfd = control_listen(tc.path, err, sizeof(err));
	CU_ASSERT_FATAL(lfd >= 0);
	control_close(lfd, tc.path);
	CU_ASSERT_NOT_EQUAL(stat(tc.path, &st), 0);
	/* something that is not a socket is never removed */
	snprintf(file, sizeof(file), "%s/file", tc.dir);
	fclose(fopen(file, "w"));
	CU_ASSERT_EQUAL(control_listen(file, err, sizeof(err)), -EEXIST);
	snprintf(dir, sizeof(dir), "control socket %s: the path exists and is not a socket", file);
	CU_ASSERT_STRING_EQUAL(err, dir);
	CU_ASSERT_EQUAL(stat(file, &st), 0);
	CU_ASSERT_EQUAL(
	    control_listen("/tmp/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
			   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.sock",
			   err, sizeof(err)),
	    -ENAMETOOLONG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "path too long (max 107 bytes)"));
	CU_ASSERT_EQUAL(control_listen("", err, sizeof(err)), -EINVAL);
}

/* ---- control_serve with a client in this process ------------------------ */

static uint64_t tc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* A blocking client socket connected to path, with a 10 s receive bound. */
static int tc_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = 10};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static void tc_send(int fd, const char *s, size_t len)
{
	CU_ASSERT_EQUAL(write(fd, s, len), (ssize_t)len);
}

/* Everything until EOF (NUL-terminated, caller frees). */
static char *tc_read_all(int fd, size_t *len_out)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap + 1);
	ssize_t n;

	while (buf && (n = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)n;
		if (len == cap) {
			char *bigger = realloc(buf, cap * 2 + 1);

			if (!bigger) {
				free(buf);
				return NULL;
			}
			buf = bigger;
			cap *= 2;
		}
	}
	if (buf)
		buf[len] = '\0';
	if (len_out)
		*len_out = len;
	return buf;
}

/* Connect, send text, serve once, read the reply. */
static char *tc_over_socket(int lfd, const char *text)
{
	int fd = tc_connect(tc.path);
	char *reply;

	CU_ASSERT_FATAL(fd >= 0);
	tc_send(fd, text, strlen(text));
	control_serve(lfd, &tc_ops);
	reply = tc_read_all(fd, NULL);
	close(fd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(reply);
	return reply;
}

static void test_control_serve_commands(void)
{
	char err[256], *want, *got;
	size_t len;
	uint64_t t0;
	int lfd = control_listen(tc.path, err, sizeof(err));

	CU_ASSERT_FATAL(lfd >= 0);
	t0 = tc_now_ms();
	control_serve(lfd, &tc_ops); /* nobody waiting: returns at once */
	CU_ASSERT_TRUE(tc_now_ms() - t0 < 100);
	got = tc_over_socket(lfd, "status\n");
	CU_ASSERT_EQUAL(strncmp(got, "ok\nstate: MASTER\nsweeping: no\n", 30), 0);
	free(got);
	got = tc_over_socket(lfd, "routes host1 host3\r\n");
	CU_ASSERT_EQUAL(strncmp(got, "ok\n", 3), 0);
	CU_ASSERT_STRING_EQUAL(got + 3, tc_trace_h1_h3);
	free(got);
	CU_ASSERT_EQUAL_FATAL(lft_file_write_dump_fts(&tc.f, &tc.lfts, &want, &len), 0);
	got = tc_over_socket(lfd, "lfts\nignored trailing text");
	CU_ASSERT_STRING_EQUAL(got + 3, want);
	free(want);
	free(got);
	tc.sweeps = 0;
	got = tc_over_socket(lfd, "sweep\n");
	CU_ASSERT_STRING_EQUAL(got, "ok\nsweep requested\n");
	CU_ASSERT_EQUAL(tc.sweeps, 1);
	free(got);
	got = tc_over_socket(lfd, "nonsense\n");
	CU_ASSERT_EQUAL(strncmp(got, "error unknown command 'nonsense'", 32), 0);
	free(got);
	control_close(lfd, tc.path);
}

/* A request the client ends with shutdown() instead of a newline. */
static void test_control_serve_eof_request(void)
{
	char err[256], *got;
	int lfd = control_listen(tc.path, err, sizeof(err)), fd;

	CU_ASSERT_FATAL(lfd >= 0);
	fd = tc_connect(tc.path);
	CU_ASSERT_FATAL(fd >= 0);
	tc_send(fd, "lids", 4);
	shutdown(fd, SHUT_WR);
	control_serve(lfd, &tc_ops);
	got = tc_read_all(fd, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_EQUAL(strncmp(got, "ok\n0x0002c90300a00011 1 host1\n", 30), 0);
	free(got);
	close(fd);
	/* a client that connects and leaves at once: nothing to answer */
	fd = tc_connect(tc.path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	control_serve(lfd, &tc_ops);
	control_close(lfd, tc.path);
}

/* Send part of a request, then nothing: control_serve gives up after the
 * read timeout with the answer want. */
static void tc_serve_stalled(const char *part, const char *want)
{
	char err[256], *got;
	int lfd = control_listen(tc.path, err, sizeof(err)), fd;
	uint64_t t0, took;

	CU_ASSERT_FATAL(lfd >= 0);
	fd = tc_connect(tc.path);
	CU_ASSERT_FATAL(fd >= 0);
	tc_send(fd, part, strlen(part));
	t0 = tc_now_ms();
	control_serve(lfd, &tc_ops);
	took = tc_now_ms() - t0;
	CU_ASSERT_TRUE(took >= CONTROL_READ_TIMEOUT_MS - 50);
	CU_ASSERT_TRUE(took < CONTROL_READ_TIMEOUT_MS + 500);
	got = tc_read_all(fd, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
	close(fd);
	control_close(lfd, tc.path);
}

/* Connected, but never a line: control_serve gives up after the timeout. */
static void test_control_serve_silent_client(void)
{
	tc_serve_stalled("sta", "error no request line within 1 s\n");
}

static void test_control_serve_oversized(void)
{
	char err[256], *got, *huge = malloc(CONTROL_REQUEST_MAX + 100);
	int lfd = control_listen(tc.path, err, sizeof(err)), fd;
	uint64_t t0;

	CU_ASSERT_FATAL(lfd >= 0 && huge != NULL);
	memset(huge, 'a', CONTROL_REQUEST_MAX + 100);
	fd = tc_connect(tc.path);
	CU_ASSERT_FATAL(fd >= 0);
	tc_send(fd, huge, CONTROL_REQUEST_MAX + 100);
	t0 = tc_now_ms();
	control_serve(lfd, &tc_ops);
	CU_ASSERT_TRUE(tc_now_ms() - t0 < 500);
	got = tc_read_all(fd, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_STRING_EQUAL(got, "error request too long (max 4095 bytes)\n");
	free(got);
	close(fd);
	/* the longest line that fits: 4095 bytes and its newline */
	memset(huge, ' ', CONTROL_REQUEST_MAX - 1);
	memcpy(huge + CONTROL_REQUEST_MAX - 7, "status", 6);
	huge[CONTROL_REQUEST_MAX - 1] = '\n';
	fd = tc_connect(tc.path);
	CU_ASSERT_FATAL(fd >= 0);
	tc_send(fd, huge, CONTROL_REQUEST_MAX);
	control_serve(lfd, &tc_ops);
	got = tc_read_all(fd, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_EQUAL(strncmp(got, "ok\nstate: MASTER\n", 17), 0);
	free(got);
	close(fd);
	free(huge);
	control_close(lfd, tc.path);
}

/* A client that asks for a large reply and never reads it (nor closes):
 * the server stops after the stall timeout instead of blocking the SM. */
static void test_control_serve_stuck_reader(void)
{
	char err[256];
	int lfd = control_listen(tc.path, err, sizeof(err)), fd;
	uint64_t t0, took;

	CU_ASSERT_FATAL(lfd >= 0);
	fd = tc_connect(tc.path);
	CU_ASSERT_FATAL(fd >= 0);
	tc_send(fd, "plan big 0\n", 11);
	t0 = tc_now_ms();
	control_serve(lfd, &tc_ops);
	took = tc_now_ms() - t0;
	CU_ASSERT_TRUE(took >= CONTROL_STALL_TIMEOUT_MS - 50);
	CU_ASSERT_TRUE(took < CONTROL_STALL_TIMEOUT_MS + 1000);
	close(fd);
	/* one that leaves right after asking: no SIGPIPE, the server goes on */
	fd = tc_connect(tc.path);
	CU_ASSERT_FATAL(fd >= 0);
	tc_send(fd, "plan big 0\n", 11);
	close(fd);
	control_serve(lfd, &tc_ops);
	control_close(lfd, tc.path);
}

struct tc_reader {
	int fd;
	char *text;
	size_t len;
};

static void *tc_reader_main(void *arg)
{
	struct tc_reader *r = arg;

	r->text = tc_read_all(r->fd, &r->len);
	return NULL;
}

/* The same large reply, read by a client thread: it arrives whole. */
static void test_control_serve_large_reply(void)
{
	char err[256];
	int lfd = control_listen(tc.path, err, sizeof(err));
	struct tc_reader r = {0};
	pthread_t th;
	size_t i;

	CU_ASSERT_FATAL(lfd >= 0);
	r.fd = tc_connect(tc.path);
	CU_ASSERT_FATAL(r.fd >= 0);
	tc_send(r.fd, "plan big 0\n", 11);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, tc_reader_main, &r), 0);
	control_serve(lfd, &tc_ops);
	pthread_join(th, NULL);
	close(r.fd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r.text);
	CU_ASSERT_EQUAL(r.len, 3 + TC_BIG_PLAN);
	CU_ASSERT_EQUAL(strncmp(r.text, "ok\nxxx", 6), 0);
	for (i = 3; i < r.len && r.text[i] == 'x'; i++)
		;
	CU_ASSERT_EQUAL(i, r.len);
	free(r.text);
	control_close(lfd, tc.path);
}

struct tc_writer {
	int fd;
	const char *buf;
	size_t len;
	char *reply;
};

/* Send a whole request (larger than the socket buffer), then read the
 * reply. */
static void *tc_writer_main(void *arg)
{
	struct tc_writer *w = arg;
	size_t done = 0;

	while (done < w->len) {
		ssize_t n = write(w->fd, w->buf + done, w->len - done);

		if (n <= 0)
			break;
		done += (size_t)n;
	}
	shutdown(w->fd, SHUT_WR);
	w->reply = tc_read_all(w->fd, NULL);
	return NULL;
}

/* A plan's body of 1 MiB over the socket: the op gets every byte, under
 * the name the client gave. */
static void test_control_serve_plan_body(void)
{
	const size_t body = 1u << 20;
	char err[256], head[64];
	char *req = malloc(body + sizeof(head));
	int lfd = control_listen(tc.path, err, sizeof(err));
	struct tc_writer w = {0};
	size_t hl;
	pthread_t th;

	CU_ASSERT_FATAL(lfd >= 0 && req != NULL);
	hl = (size_t)snprintf(head, sizeof(head), "plan \"my policy.yaml\" %zu\n", body);
	memcpy(req, head, hl);
	memset(req + hl, '#', body);
	memcpy(req + hl, "sm: {}", 6);
	w.fd = tc_connect(tc.path);
	w.buf = req;
	w.len = hl + body;
	CU_ASSERT_FATAL(w.fd >= 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, tc_writer_main, &w), 0);
	control_serve(lfd, &tc_ops);
	pthread_join(th, NULL);
	close(w.fd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w.reply);
	CU_ASSERT_STRING_EQUAL(w.reply, "ok\nrouting: ftree,updn,minhop -> minhop\nnothing would "
					"change\n");
	CU_ASSERT_STRING_EQUAL(tc.plan_name, "my policy.yaml");
	CU_ASSERT_EQUAL(tc.plan_len, body);
	CU_ASSERT_EQUAL(strncmp(tc.plan_text, "sm: {}####", 10), 0);
	free(w.reply);
	free(req);
	control_close(lfd, tc.path);
}

/* A body that stops coming: refused after the read timeout, the op never
 * runs. */
static void test_control_serve_body_timeout(void)
{
	tc.plan_calls = 0;
	tc_serve_stalled("plan p.yaml 10\nsm:",
			 "error the request's body did not come within 1 s (3 of 10 bytes)\n");
	CU_ASSERT_EQUAL(tc.plan_calls, 0);
}

void test_control_register(void)
{
	CU_pSuite s = CU_add_suite("control", tc_suite_init, tc_suite_clean);

	CU_add_test(s, "status", test_control_status);
	CU_add_test(s, "sweep, reload, plan", test_control_sweep_reload_plan);
	CU_add_test(s, "plan: the daemon never opens a path", test_control_plan_no_path);
	CU_add_test(s, "topology", test_control_topology);
	CU_add_test(s, "lfts", test_control_lfts);
	CU_add_test(s, "lids", test_control_lids);
	CU_add_test(s, "metrics", test_control_metrics);
	CU_add_test(s, "routes", test_control_routes);
	CU_add_test(s, "sls: the paths' SLs, all or from one source", test_control_sls);
	CU_add_test(s, "routes: ambiguous name, black hole, no tables", test_control_routes_faults);
	CU_add_test(s, "malformed requests", test_control_bad_requests);
	CU_add_test(s, "ops missing", test_control_missing_ops);
	CU_add_test(s, "grammar: the table both ends check", test_control_grammar);
	CU_add_test(s, "socket file: modes, stale, live, foreign", test_control_listen);
	CU_add_test(s, "serve: commands over the socket", test_control_serve_commands);
	CU_add_test(s, "serve: request ended by EOF, client gone", test_control_serve_eof_request);
	CU_add_test(s, "serve: silent client times out", test_control_serve_silent_client);
	CU_add_test(s, "serve: oversized request", test_control_serve_oversized);
	CU_add_test(s, "serve: client never reads the reply", test_control_serve_stuck_reader);
	CU_add_test(s, "serve: large reply read by a thread", test_control_serve_large_reply);
	CU_add_test(s, "serve: a plan's 1 MiB body", test_control_serve_plan_body);
	CU_add_test(s, "serve: a body that stops coming", test_control_serve_body_timeout);
}
