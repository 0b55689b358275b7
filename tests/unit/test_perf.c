/*
 * test_perf.c - unit tests for the performance manager's pure parts
 * (sm/core/perf_port.c) and the policy's monitor section
 * (config/policy_monitor.c): 64-bit totals over counters that saturate
 * and get cleared, extended counters for data and packets, when a clear
 * is due, the verdicts and their recovery, the text of what rose, a
 * cable's two ends; the section's defaults, print/parse round trip, diff
 * and errors with file:line:col.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/policy.h"
#include "mad/smp.h"
#include "routing/fabric.h"
#include "sm/core/perf_port.h"
#include "sm/core/perfmgr.h"
#include "sm/daemon/metrics_ib.h"
#include "tests/unit/unit.h"

static const struct perf_thresholds tpf_th = PERF_THRESHOLDS_DEFAULT;

static void test_perf_totals(void)
{
	struct perf_port p = {.guid = 1, .port = 1};
	struct pma_counters pc = {0};

	pc.v[PMA_SYMBOL_ERRORS] = 7;
	pc.v[PMA_XMIT_DATA] = 1000;
	perf_port_account(&p, &pc, NULL, 100);
	/* the first read: what the port holds, no growth yet */
	CU_ASSERT_EQUAL(p.total[PMA_SYMBOL_ERRORS], 7);
	CU_ASSERT_EQUAL(p.delta[PMA_SYMBOL_ERRORS], 0);
	CU_ASSERT_EQUAL(p.total[PMA_XMIT_DATA], 1000);
	pc.v[PMA_SYMBOL_ERRORS] = 20;
	pc.v[PMA_XMIT_DATA] = 0xffffffffu; /* saturated */
	perf_port_account(&p, &pc, NULL, 2100);
	CU_ASSERT_EQUAL(p.delta[PMA_SYMBOL_ERRORS], 13);
	CU_ASSERT_EQUAL(p.total[PMA_SYMBOL_ERRORS], 20);
	CU_ASSERT_EQUAL(p.total[PMA_XMIT_DATA], 0xffffffffull);
	CU_ASSERT(perf_port_needs_clear(&p));
	perf_port_cleared(&p);
	CU_ASSERT_FALSE(perf_port_needs_clear(&p));
	CU_ASSERT_EQUAL(p.clears, 1);
	pc.v[PMA_SYMBOL_ERRORS] = 5;
	pc.v[PMA_XMIT_DATA] = 10;
	perf_port_account(&p, &pc, NULL, 4100);
	CU_ASSERT_EQUAL(p.total[PMA_SYMBOL_ERRORS], 25);
	CU_ASSERT_EQUAL(p.total[PMA_XMIT_DATA], 0xffffffffull + 10);
	/* cleared by someone else: a value below the last one is the growth */
	pc.v[PMA_SYMBOL_ERRORS] = 2;
	perf_port_account(&p, &pc, NULL, 6100);
	CU_ASSERT_EQUAL(p.delta[PMA_SYMBOL_ERRORS], 2);
	CU_ASSERT_EQUAL(p.total[PMA_SYMBOL_ERRORS], 27);
	CU_ASSERT_EQUAL(p.reads, 4);
	/* a 4-bit counter at 8 (half of 15) asks for a clear */
	pc.v[PMA_LOCAL_LINK_INTEGRITY_ERRORS] = 8;
	perf_port_account(&p, &pc, NULL, 8100);
	CU_ASSERT(perf_port_needs_clear(&p));
}

static void test_perf_extended(void)
{
	struct perf_port p = {.guid = 1, .port = 1};
	struct pma_counters pc = {0};
	struct pma_counters_ext e = {.xmit_data = 5000000000ull, .rcv_pkts = 9};

	pc.v[PMA_XMIT_DATA] = 0xffffffffu; /* saturated, but the extended one counts */
	perf_port_account(&p, &pc, &e, 0);
	CU_ASSERT_EQUAL(p.total[PMA_XMIT_DATA], 5000000000ull);
	CU_ASSERT_EQUAL(p.total[PMA_RCV_PKTS], 9);
	CU_ASSERT_FALSE(perf_port_needs_clear(&p));
	e.xmit_data += 123;
	perf_port_account(&p, &pc, &e, 1000);
	CU_ASSERT_EQUAL(p.delta[PMA_XMIT_DATA], 123);
	CU_ASSERT_EQUAL(p.total[PMA_XMIT_DATA], 5000000123ull);
	CU_ASSERT(p.ext);
}

static void test_perf_verdicts(void)
{
	struct perf_port p = {.guid = 1, .port = 1};
	struct pma_counters pc = {0};
	uint64_t t = 1000;
	char text[200];

	perf_port_account(&p, &pc, NULL, t);
	CU_ASSERT_FALSE(perf_port_judge(&p, &tpf_th));
	pc.v[PMA_SYMBOL_ERRORS] = 10; /* degrading: 10 in one interval */
	perf_port_account(&p, &pc, NULL, t += 2000);
	CU_ASSERT(perf_port_judge(&p, &tpf_th));
	CU_ASSERT_EQUAL(p.health, PERF_DEGRADING);
	perf_port_rises(&p, text, sizeof(text));
	CU_ASSERT_STRING_EQUAL(text, "SymbolErrorCounter +10 (5.0/s)");
	pc.v[PMA_LINK_DOWNED] = 1; /* flapping beats degrading */
	perf_port_account(&p, &pc, NULL, t += 2000);
	CU_ASSERT(perf_port_judge(&p, &tpf_th));
	CU_ASSERT_EQUAL(p.health, PERF_FLAPPING);
	pc.v[PMA_RCV_ERRORS] = 1000; /* failing beats both */
	perf_port_account(&p, &pc, NULL, t += 2000);
	perf_port_judge(&p, &tpf_th);
	CU_ASSERT_EQUAL(p.health, PERF_FAILING);
	CU_ASSERT_EQUAL(perf_port_errors(&p), 1000);
	/* a milder interval does not lower it; two clean ones clear it */
	pc.v[PMA_SYMBOL_ERRORS] += 10;
	perf_port_account(&p, &pc, NULL, t += 2000);
	CU_ASSERT_FALSE(perf_port_judge(&p, &tpf_th));
	CU_ASSERT_EQUAL(p.health, PERF_FAILING);
	perf_port_account(&p, &pc, NULL, t += 2000);
	CU_ASSERT_FALSE(perf_port_judge(&p, &tpf_th));
	perf_port_account(&p, &pc, NULL, t += 2000);
	CU_ASSERT(perf_port_judge(&p, &tpf_th));
	CU_ASSERT_EQUAL(p.health, PERF_OK);
	perf_port_rises(&p, text, sizeof(text));
	CU_ASSERT_STRING_EQUAL(text, "no errors");
	CU_ASSERT_STRING_EQUAL(perf_health_name(PERF_FLAPPING), "flapping");
}

static void test_perf_cable(void)
{
	struct fabric f;
	struct perf_port ports[2] = {{.guid = 0x10, .port = 1}, {.guid = 0x20, .port = 3}};
	struct perf_table t = {ports, 2};
	const struct fabric_node *far;
	struct perf_port *far_p;
	uint8_t far_port;
	int ca, sw;

	fabric_init(&f);
	ca = fabric_add_node(&f, 0x10, NODE_TYPE_CA, 2);
	sw = fabric_add_node(&f, 0x20, NODE_TYPE_SWITCH, 8);
	CU_ASSERT_EQUAL_FATAL(fabric_link(&f, ca, 1, sw, 3), 0);
	CU_ASSERT_EQUAL(perf_cable(&f, &t, 0, &far, &far_port, &far_p), 1);
	CU_ASSERT_EQUAL(far->guid, 0x20);
	CU_ASSERT_EQUAL(far_port, 3);
	CU_ASSERT_PTR_EQUAL(far_p, &ports[1]);
	CU_ASSERT_EQUAL(perf_cable(&f, &t, 1, &far, &far_port, &far_p), 0);
	ports[1].health = PERF_FLAPPING;
	CU_ASSERT_EQUAL(perf_cable_health(&ports[0], &ports[1]), PERF_FLAPPING);
	CU_ASSERT_EQUAL(perf_cable_health(&ports[0], NULL), PERF_OK);
	t.n = 1; /* the far end is not read: the near one speaks */
	CU_ASSERT_EQUAL(perf_cable(&f, &t, 0, &far, &far_port, &far_p), 1);
	CU_ASSERT_PTR_NULL(far_p);
	CU_ASSERT_PTR_NULL(perf_table_find(&t, 0x20, 3));
	fabric_fini(&f);
}

static void test_perf_policy(void)
{
	static const char text[] =
	    "monitor:\n  enabled: false\n  interval: 5\n"
	    "  listen: 127.0.0.1:9683\n"
	    "  thresholds: {degrading: 3, failing: 300, flapping: 2, recover: 4}\n";
	struct policy p, q, d;
	char err[256], out[4096], diff[512];

	policy_init(&d);
	CU_ASSERT(d.monitor.enabled);
	CU_ASSERT_EQUAL(d.monitor.interval, 30);
	CU_ASSERT_EQUAL(d.monitor.listen[0], '\0');
	CU_ASSERT_EQUAL_FATAL(policy_parse(text, strlen(text), "m.yaml", &p, err, sizeof(err)), 0);
	CU_ASSERT_FALSE(p.monitor.enabled);
	CU_ASSERT_EQUAL(p.monitor.interval, 5);
	CU_ASSERT_STRING_EQUAL(p.monitor.listen, "127.0.0.1:9683");
	CU_ASSERT_EQUAL(p.monitor.recover, 4);
	policy_print(&p, out, sizeof(out));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "monitor:\n  enabled: false\n  interval: 5\n"));
	CU_ASSERT_EQUAL_FATAL(policy_parse(out, strlen(out), "printed", &q, err, sizeof(err)), 0);
	CU_ASSERT(policy_equal(&p, &q));
	CU_ASSERT_FALSE(policy_equal(&p, &d));
	policy_diff(&d, &p, diff, sizeof(diff));
	CU_ASSERT_PTR_NOT_NULL(strstr(diff, "monitor.interval: 30 -> 5\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(diff, "monitor.thresholds.failing: 1000 -> 300\n"));
	policy_print(&d, out, sizeof(out)); /* defaults: no section printed */
	CU_ASSERT_PTR_NULL(strstr(out, "monitor"));
	policy_fini(&p);
	policy_fini(&q);
	policy_fini(&d);
}

static void test_perf_policy_errors(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"monitor:\n  interval: 0\n", "e.yaml:2:13: monitor.interval: '0' is out of range"},
	    {"monitor:\n  intervall: 3\n", "e.yaml:2:3: monitor.intervall: unknown key"},
	    {"monitor:\n  listen: 0.0.0.0\n",
	     "e.yaml:2:11: monitor.listen: expected IPv4-address:port"},
	    {"monitor:\n  listen: host:80\n", "e.yaml:2:11: monitor.listen: expected"},
	    {"monitor:\n  enabled: yes\n", "e.yaml:2:12: monitor.enabled: expected true or false"},
	    {"monitor:\n  thresholds: {recover: 0}\n", "monitor.recover: '0' is out of range"},
	    {"monitor:\n  thresholds: {bogus: 1}\n", "monitor.thresholds: unknown key 'bogus'"},
	    {"monitor:\n  interval: 2\n  interval: 3\n",
	     "e.yaml:3:3: monitor.interval: duplicate key"},
	    {"monitor: [1]\n", "e.yaml:1:10: monitor: expected a mapping"},
	};
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct policy p;

		CU_ASSERT_EQUAL(policy_parse(cases[i].text, strlen(cases[i].text), "e.yaml", &p,
					     err, sizeof(err)),
				-EINVAL);
		if (!strstr(err, cases[i].want))
			CU_FAIL(cases[i].want);
		policy_fini(&p);
	}
}

/* A CA (0x10, port 1) cabled to a switch (0x20, port 3), both read. */
static void tpf_fabric(struct fabric *f, struct perf_port ports[2])
{
	int ca, sw;

	fabric_init(f);
	ca = fabric_add_node(f, 0x10, NODE_TYPE_CA, 2);
	sw = fabric_add_node(f, 0x20, NODE_TYPE_SWITCH, 8);
	fabric_link(f, ca, 1, sw, 3);
	snprintf(f->nodes[ca].desc, sizeof(f->nodes[ca].desc), "ca \"one\"");
	snprintf(f->nodes[sw].desc, sizeof(f->nodes[sw].desc), "sw");
	f->nodes[ca].ports[1].lid = 7;
	f->nodes[sw].ports[0].lid = 9;
	memset(ports, 0, 2 * sizeof(*ports));
	ports[0] = (struct perf_port){.guid = 0x10, .port = 1, .lid = 7, .have = 1};
	ports[1] = (struct perf_port){.guid = 0x20, .port = 3, .lid = 9, .is_switch = 1, .have = 1};
	ports[0].total[PMA_XMIT_DATA] = 10;
	ports[1].total[PMA_SYMBOL_ERRORS] = 500;
	ports[1].health = PERF_DEGRADING;
}

static void test_perf_metrics(void)
{
	static const char *const want[] = {
	    "# TYPE infiniband_switch_port_transmit_data_bytes_total counter\n",
	    "infiniband_hca_port_transmit_data_bytes_total{guid=\"0x0000000000000010\",port=\"1\"} "
	    "40\n",
	    "infiniband_switch_port_symbol_error_total{guid=\"0x0000000000000020\",port=\"3\"} "
	    "500\n",
	    "infiniband_hca_port_symbol_error_total{guid=\"0x0000000000000010\",port=\"1\"} 0\n",
	    "infiniband_switch_info{guid=\"0x0000000000000020\",lid=\"9\",switch=\"sw\"} 1\n",
	    "infiniband_hca_info{guid=\"0x0000000000000010\",lid=\"7\",hca=\"ca \\\"one\\\"\"} 1\n",
	    "infiniband_switch_uplink_info{guid=\"0x0000000000000020\",port=\"3\",switch=\"sw\","
	    "uplink=\"ca \\\"one\\\"\",uplink_guid=\"0x0000000000000010\",uplink_lid=\"7\","
	    "uplink_port=\"1\",uplink_type=\"CA\"} 1\n",
	    "infiniband_hca_uplink_info{guid=\"0x0000000000000010\",port=\"1\",hca=\"ca "
	    "\\\"one\\\"\","
	    "uplink=\"sw\",uplink_guid=\"0x0000000000000020\",uplink_lid=\"9\",uplink_port=\"3\","
	    "uplink_type=\"SW\"} 1\n",
	    "nanosm_port_health{guid=\"0x0000000000000020\",port=\"3\"} 1\n",
	    "nanosm_perfmgr_gmps_total{result=\"timeout\"} 4\n",
	};
	struct perfmgr_stats st = {.passes = 3, .timeouts = 4};
	struct perf_port ports[2];
	struct perf_table t = {ports, 2};
	struct fabric f;
	size_t n;
	char *text, cut[64];

	tpf_fabric(&f, ports);
	n = metrics_ib_render(&f, &t, &st, NULL, 0);
	text = malloc(n + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_EQUAL(metrics_ib_render(&f, &t, &st, text, n + 1), n);
	CU_ASSERT_EQUAL(strlen(text), n);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(text, want[i]))
			CU_FAIL(want[i]);
	CU_ASSERT_EQUAL(metrics_ib_render(&f, &t, &st, cut, sizeof(cut)), n);
	CU_ASSERT_EQUAL(strncmp(cut, text, sizeof(cut) - 1), 0);
	free(text);
	fabric_fini(&f);
}

void test_perf_register(void)
{
	CU_pSuite s = CU_add_suite("perf", NULL, NULL);

	CU_add_test(s, "64-bit totals, saturation, clears", test_perf_totals);
	CU_add_test(s, "extended counters for data and packets", test_perf_extended);
	CU_add_test(s, "verdicts and recovery, what rose", test_perf_verdicts);
	CU_add_test(s, "a cable's two ends", test_perf_cable);
	CU_add_test(s, "metrics under the exporter's names", test_perf_metrics);
	CU_add_test(s, "policy monitor section", test_perf_policy);
	CU_add_test(s, "policy monitor errors", test_perf_policy_errors);
}
