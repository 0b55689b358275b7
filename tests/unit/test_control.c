/*
 * test_control.c - unit tests for sm/daemon/control.c: every command answered
 * through the fake ops of control_test.c (a small fabric from topo_parse,
 * minhop LFTs, a LID map) and malformed requests, one request at a time
 * through control_handle.  Suite control, which goes on with the socket in
 * test_control_serve.c.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "routing/lft_file.h"
#include "sm/daemon/control.h"
#include "sm/daemon/control_proto.h"
#include "tests/unit/control_test.h"
#include "tests/unit/unit.h"

/* ---- control_handle: one request, its whole reply ----------------------- */

static char *tc_ask(const char *line)
{
	char *reply = NULL;
	size_t len = 0;

	CU_ASSERT_EQUAL(control_handle(&control_test_ops, line, strlen(line), &reply, &len), 0);
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

/* sls with an SL per path: the paths to host1 (LID 1) entering at sw2 ride
 * SL 3, so host2's port on sw2 (LID 3), host3 and sw2 itself list 3 where
 * host2's port on sw1 (LID 2) lists 0.  Called with sl as test_control_sls
 * set it; leaves no path_sl. */
static void test_control_sls_path(void)
{
	CU_ASSERT_EQUAL_FATAL(lft_set_alloc_path_sl(&tc.lfts), 0);
	CU_ASSERT_PTR_EQUAL_FATAL(lft_set_find(&tc.lfts, SW2), &tc.lfts.tables[1]);
	tc.lfts.path_sl[1 * (tc.lfts.sl_top + 1) + 1] = 3;
	tc.lfts.n_vls = 4;
	tc_expect("sls 2", "ok\n2 1 0\n2 3 0\n2 4 1\n2 5 0\n2 6 2\n");
	tc_expect("sls 3", "ok\n3 1 3\n3 2 0\n3 4 1\n3 5 0\n3 6 2\n");
	tc_expect("sls host3", "ok\n4 1 3\n4 2 0\n4 3 0\n4 5 0\n4 6 2\n");
	tc_expect("sls edge-2", "ok\n6 1 3\n6 2 0\n6 3 0\n6 4 1\n6 5 0\n");
	tc_expect("sls sw1", "ok\n5 1 0\n5 2 0\n5 3 0\n5 4 1\n5 6 2\n");
	tc_expect_has("sls", "ok", "\n2 1 0\n2 3 0\n2 4 1\n2 5 0\n2 6 2\n3 1 3\n3 2 0\n");
	free(tc.lfts.path_sl);
	tc.lfts.path_sl = NULL;
	tc.lfts.n_vls = 3;
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
	test_control_sls_path();
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


static void test_control_routes(void)
{
	char want[1024];

	snprintf(want, sizeof(want), "ok\n%s", control_test_trace_h1_h3);
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

void test_control_register(void)
{
	CU_pSuite s = CU_add_suite("control", control_test_init, control_test_clean);

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
	test_control_serve_add(s);
}
