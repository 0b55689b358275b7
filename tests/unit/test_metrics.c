/*
 * test_metrics.c - unit tests for sm/daemon/metrics.c: the Prometheus text of a
 * known set of figures (every sample line checked), the exposition rules
 * (a TYPE line before each metric's samples, counters end in _total,
 * `name{labels} value` lines), label escaping (backslash, quote, newline,
 * long values), and snprintf-style sizing.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/smp.h"
#include "sm/daemon/metrics.h"
#include "tests/unit/unit.h"

static const struct metrics_figures tm_figures = {
    .uptime_s = 3612,
    .sweeps_heavy = 362,
    .sweeps_light = 1200,
    .sweeps_failed = 2,
    .have_last = 1,
    .last_sweep_ms = 1234,
    .smp = {13522, 13521, 3, 7},
    .sa = {214, 212, 0, 0},
    .sa_answered = 212,
    .sa_errors = 3,
    .sa_malformed = 1,
    .lids_used = 6,
    .lft_blocks_sent = 48,
    .switches = 2,
    .cas = 4,
    .ports = 22,
    .lids = 6,
    .vls = 1,
    .engine = "updn",
    .engines = "ftree,updn,minhop",
    .sm_state = SM_STATE_MASTER,
    .subnet_up = 1,
    .sa_use = {.mlid_cap = 1024,
	       .mlids_used = 5,
	       .held = {5, 1, 800},
	       .limit = {512, 256, 1024},
	       .top = {[SA_QUOTA_SUBS] = {{0x0002c90300a00021ull, 800}}}},
    .sa_mlid_refused = 4,
    .sa_quota_refused = 9,
    .sa_report_retries = 30,
    .sa_subs_dropped = 2,
    .mad_send_dropped = 11,
};

static char *tm_render(const struct metrics_figures *m)
{
	size_t n = metrics_render(m, NULL, 0);
	char *text = malloc(n + 1);

	if (text)
		CU_ASSERT_EQUAL(metrics_render(m, text, n + 1), n);
	return text;
}

/* text holds line as a whole line. */
static int tm_has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = strstr(text, line); p; p = strstr(p + 1, line))
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return 1;
	return 0;
}

static void test_metrics_values(void)
{
	static const char *const want[] = {
	    "nanosm_uptime_seconds 3612",
	    "nanosm_sweeps_total{kind=\"heavy\"} 362",
	    "nanosm_sweeps_total{kind=\"light\"} 1200",
	    "nanosm_sweeps_failed_total 2",
	    "nanosm_last_sweep_duration_seconds 1.234",
	    "nanosm_mads_sent_total{class=\"smp\"} 13522",
	    "nanosm_mads_sent_total{class=\"sa\"} 214",
	    "nanosm_mads_received_total{class=\"smp\"} 13521",
	    "nanosm_mads_received_total{class=\"sa\"} 212",
	    "nanosm_mad_timeouts_total{class=\"smp\"} 3",
	    "nanosm_mad_retries_total{class=\"smp\"} 7",
	    "nanosm_sa_answered_total 212",
	    "nanosm_sa_errors_total 3",
	    "nanosm_sa_malformed_total 1",
	    "nanosm_sa_mlids_used 5",
	    "nanosm_sa_mlids_capacity 1024",
	    "nanosm_sa_held{kind=\"groups\"} 5",
	    "nanosm_sa_held{kind=\"services\"} 1",
	    "nanosm_sa_held{kind=\"subscriptions\"} 800",
	    "nanosm_sa_quota_per_port{kind=\"groups\"} 512",
	    "nanosm_sa_quota_per_port{kind=\"services\"} 256",
	    "nanosm_sa_quota_per_port{kind=\"subscriptions\"} 1024",
	    "nanosm_sa_top_holder{kind=\"subscriptions\",port_guid=\"0x0002c90300a00021\"} 800",
	    "nanosm_sa_refused_total{reason=\"mlid\"} 4",
	    "nanosm_sa_refused_total{reason=\"quota\"} 9",
	    "nanosm_sa_report_retries_total 30",
	    "nanosm_sa_subscriptions_dropped_total 2",
	    "nanosm_mad_send_dropped_total 11",
	    "nanosm_lids_used 6",
	    "nanosm_fabric_switches 2",
	    "nanosm_fabric_cas 4",
	    "nanosm_fabric_ports 22",
	    "nanosm_fabric_lids 6",
	    "nanosm_routing_vls 1",
	    "nanosm_lids_capacity 49151",
	    "nanosm_lft_blocks_sent_total 48",
	    "nanosm_routing_engine_info{engine=\"updn\",configured=\"ftree,updn,minhop\"} 1",
	    "nanosm_sm_state{state=\"notactive\"} 0",
	    "nanosm_sm_state{state=\"discovering\"} 0",
	    "nanosm_sm_state{state=\"standby\"} 0",
	    "nanosm_sm_state{state=\"master\"} 1",
	    "nanosm_subnet_up 1",
	    "# TYPE nanosm_sweeps_total counter",
	    "# TYPE nanosm_lids_used gauge",
	    "# HELP nanosm_lids_capacity Unicast LIDs there are (0x0001-0xBFFF).",
	};
	char *text = tm_render(&tm_figures);
	size_t samples = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (!tm_has_line(text, want[i]))
			fprintf(stderr, "\nmissing: %s\n", want[i]);
		CU_ASSERT(tm_has_line(text, want[i]));
	}
	for (const char *p = text; *p; p = strchr(p, '\n') + 1)
		samples += *p != '#';
	CU_ASSERT_EQUAL(samples, 42); /* nothing more than the lines above */
	CU_ASSERT_EQUAL(text[strlen(text) - 1], '\n');
	free(text);
}

/* Every sample: a TYPE line for its name came before; counters end in
 * _total; "name value" or "name{k="v",...} value" with a number. */
static void tm_check_exposition(const char *text)
{
	char types[64][64];
	size_t n_types = 0;

	for (const char *p = text; *p; p = strchr(p, '\n') + 1) {
		char line[512], name[64], kind[16];
		const char *end = strchr(p, '\n');
		size_t len = (size_t)(end - p), nl;
		int typed = 0;

		CU_ASSERT_FATAL(end && len < sizeof(line));
		memcpy(line, p, len);
		line[len] = '\0';
		if (sscanf(line, "# TYPE %63s %15s", name, kind) == 2) {
			CU_ASSERT(!strcmp(kind, "counter") || !strcmp(kind, "gauge"));
			CU_ASSERT(strcmp(kind, "counter") || strstr(name, "_total"));
			snprintf(types[n_types++], sizeof(types[0]), "%s", name);
			continue;
		}
		if (line[0] == '#') {
			CU_ASSERT_EQUAL(strncmp(line, "# HELP ", 7), 0);
			continue;
		}
		nl = strcspn(line, "{ ");
		for (size_t t = 0; t < n_types; t++)
			typed |= strlen(types[t]) == nl && !strncmp(types[t], line, nl);
		CU_ASSERT(typed);
		if (line[nl] == '{')
			CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"} "));
		CU_ASSERT(strspn(strrchr(line, ' ') + 1, "0123456789.") ==
			  strlen(strrchr(line, ' ') + 1));
	}
}

static void test_metrics_exposition(void)
{
	struct metrics_figures m = tm_figures;
	char *text = tm_render(&m);

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	tm_check_exposition(text);
	free(text);

	/* before the first sweep: no duration line, engine "none", down */
	memset(&m, 0, sizeof(m));
	m.sm_state = SM_STATE_DISCOVERING;
	text = tm_render(&m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	tm_check_exposition(text);
	CU_ASSERT_PTR_NULL(strstr(text, "nanosm_last_sweep_duration_seconds"));
	CU_ASSERT(
	    tm_has_line(text, "nanosm_routing_engine_info{engine=\"none\",configured=\"\"} 1"));
	CU_ASSERT(tm_has_line(text, "nanosm_sm_state{state=\"discovering\"} 1"));
	CU_ASSERT(tm_has_line(text, "nanosm_sm_state{state=\"master\"} 0"));
	CU_ASSERT(tm_has_line(text, "nanosm_subnet_up 0"));
	free(text);

	/* standby; a short sweep's duration keeps its leading zeros */
	m.sm_state = SM_STATE_STANDBY;
	m.have_last = 1;
	m.last_sweep_ms = 5;
	text = tm_render(&m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT(tm_has_line(text, "nanosm_sm_state{state=\"standby\"} 1"));
	CU_ASSERT(tm_has_line(text, "nanosm_last_sweep_duration_seconds 0.005"));
	free(text);
}

static void test_metrics_escape(void)
{
	struct metrics_figures m = tm_figures;
	char buf[64], small[5], *text, *longv;
	size_t n;

	n = metrics_escape("a\"b\\c\nd", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "a\\\"b\\\\c\\nd");
	CU_ASSERT_EQUAL(n, strlen(buf));
	CU_ASSERT_EQUAL(metrics_escape("plain-name_1,2", buf, sizeof(buf)), 14);
	CU_ASSERT_STRING_EQUAL(buf, "plain-name_1,2");
	CU_ASSERT_EQUAL(metrics_escape(NULL, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "");
	/* cut like snprintf */
	CU_ASSERT_EQUAL(metrics_escape("\"\"\"", small, sizeof(small)), 6);
	CU_ASSERT_STRING_EQUAL(small, "\\\"\\\"");
	CU_ASSERT_EQUAL(metrics_escape("\"\"\"", NULL, 0), 6);

	/* in the text */
	m.engine = "up\"dn";
	m.engines = "a\\b\nc";
	text = tm_render(&m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT(tm_has_line(text, "nanosm_routing_engine_info{engine=\"up\\\"dn\","
				    "configured=\"a\\\\b\\nc\"} 1"));
	tm_check_exposition(text);
	free(text);

	/* a long value (past the renderer's small buffer) */
	longv = malloc(1001);
	CU_ASSERT_PTR_NOT_NULL_FATAL(longv);
	for (int i = 0; i < 1000; i++)
		longv[i] = i % 100 == 99 ? '"' : 'x';
	longv[1000] = '\0';
	m.engines = longv;
	text = tm_render(&m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	{
		const char *c = strstr(text, "configured=\"");
		size_t quotes = 0, xs = 0;

		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		for (c += 12; *c && strncmp(c, "\"} 1\n", 5); c++) {
			if (*c == '\\' && c[1] == '"') {
				quotes++;
				c++;
			} else {
				xs += *c == 'x';
			}
		}
		CU_ASSERT_EQUAL(quotes, 10);
		CU_ASSERT_EQUAL(xs, 990);
	}
	free(text);
	free(longv);
}

static void test_metrics_sizing(void)
{
	size_t n = metrics_render(&tm_figures, NULL, 0);
	char *full = tm_render(&tm_figures);
	char cut[100];

	CU_ASSERT_PTR_NOT_NULL_FATAL(full);
	CU_ASSERT_EQUAL(strlen(full), n);
	CU_ASSERT_EQUAL(metrics_render(&tm_figures, cut, sizeof(cut)), n);
	CU_ASSERT_EQUAL(strlen(cut), sizeof(cut) - 1);
	CU_ASSERT_EQUAL(strncmp(cut, full, sizeof(cut) - 1), 0);
	free(full);
}

void test_metrics_register(void)
{
	CU_pSuite s = CU_add_suite("metrics", NULL, NULL);

	CU_add_test(s, "values of known figures", test_metrics_values);
	CU_add_test(s, "exposition rules, before the first sweep, standby",
		    test_metrics_exposition);
	CU_add_test(s, "label escaping", test_metrics_escape);
	CU_add_test(s, "sizing like snprintf", test_metrics_sizing);
}
