/*
 * tools/lib/route_report.c - nanosm-route's report: the source of the
 * tables, the gate, the VLs, the path and balance scores and the timing,
 * as text or JSON (see route_report.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tools/lib/route_report.h"

/* ---- Text report ------------------------------------------------------- */

static const char *const route_report_lid_modes[] = {"topology", "fabric-order", "mixed"};
static const char *const route_report_lid_words[] = {
    "from the topology",
    "assigned in fabric order",
    "from the topology, missing ones assigned",
};
static const char *const route_report_format_names[] = {"auto", "dump_fts", "opensm"};

#define ROUTE_ROW "  %-24s "

static void route_report_text_source(const struct route_run *r)
{
	const struct route_score *s = &r->score;

	printf("fabric\n");
	printf(ROUTE_ROW "%s\n", "topology", r->args.topo);
	printf(ROUTE_ROW "%s (max %u)\n", "LIDs", route_report_lid_words[r->lid_mode], r->max_lid);
	if (r->args.lfts)
		printf(ROUTE_ROW "file %s (%s, %zu switches, %zu entries)\n", "tables",
		       r->args.lfts, route_report_format_names[r->file_info.format],
		       r->file_info.switches, r->file_info.entries);
	else
		printf(ROUTE_ROW "engine %s%s\n", "tables", r->args.engine,
		       r->n_roots ? " (roots from file)" : "");
	if (!r->args.lfts && r->engine_note.text[0])
		printf(ROUTE_ROW "%s\n", "engine note", r->engine_note.text);
	printf(ROUTE_ROW "%zu\n", "switches", s->switches);
	printf(ROUTE_ROW "%zu\n", "endpoints", s->endpoints);
	printf(ROUTE_ROW "%zu\n", "directed links", s->links);
}

static void route_report_text_gate(const struct route_run *r)
{
	const struct route_check *c = &r->score.check;

	printf("\ngate                       %s\n", r->score.gate_rc ? "FAIL" : "PASS");
	printf(ROUTE_ROW "%zu\n", "pairs walked", c->pairs);
	printf(ROUTE_ROW "%zu\n", "unreachable", c->unreachable);
	printf(ROUTE_ROW "%zu\n", "loops", c->loops);
	printf(ROUTE_ROW "%zu\n", "bad ports", c->bad_ports);
	printf(ROUTE_ROW "%s\n", "credit loop",
	       r->args.score.check.skip_credit_loops ? "not checked"
	       : c->credit_loop			     ? "yes"
						     : "no");
	printf(ROUTE_ROW "%zu\n", "max hops", c->max_hops);
	if (r->score.gate_rc)
		printf(ROUTE_ROW "%s\n", "first problem", c->first);
}

/* Tables with SLs only (so single-VL reports stay as they were). */
static void route_report_text_vls(const struct route_run *r)
{
	const struct route_score *s = &r->score;

	if (!r->lfts.sl)
		return;
	printf("\nvirtual lanes (SL = VL at every hop)\n");
	printf(ROUTE_ROW "%u\n", "VLs used", r->score.check.n_vls);
	printf(ROUTE_ROW "%zu\n", "LIDs on a missing VL", r->score.check.vl_missing);
	for (unsigned v = 0; v < s->n_vls; v++) {
		char label[16];

		snprintf(label, sizeof(label), "VL %u", v);
		printf(ROUTE_ROW "endpoints %zu  routed pairs %" PRIu64
				 "  switch-link EFI max %" PRIu64 "\n",
		       label, s->vl[v].endpoints, s->vl[v].pairs_routed, s->vl[v].efi_switch_max);
	}
}

static void route_report_text_load(const char *label, const struct score_load *l)
{
	printf(ROUTE_ROW "max %" PRIu64 "  mean %.3f  cv %.3f  (%zu links)\n", label, l->max,
	       l->mean, l->cv, l->links);
}

static void route_report_text_paths(const struct route_score *s)
{
	printf("\nendpoint pairs\n");
	printf(ROUTE_ROW "%" PRIu64 "\n", "pairs", s->pairs);
	printf(ROUTE_ROW "%" PRIu64 "\n", "routed", s->pairs_routed);
	printf(ROUTE_ROW "mean %.3f  max %u\n", "switch hops", s->hops_mean, s->hops_max);
	printf(ROUTE_ROW "mean %.3f  max %u  stretched %.2f%%\n", "stretch (extra hops)",
	       s->stretch_mean, s->stretch_max, 100 * s->stretched_frac);
	printf("\nedge forwarding index (routed pairs per directed link)\n");
	route_report_text_load("all links", &s->efi);
	route_report_text_load("switch-switch links", &s->efi_switch);
}

static void route_report_text_balance(const struct route_run *r)
{
	const struct route_score *s = &r->score;

	printf("\nLID balance (endpoint LIDs per up-group port)\n");
	printf(ROUTE_ROW "%zu\n", "switches grouped", s->lid_groups);
	if (!s->lid_groups)
		return;
	printf(ROUTE_ROW "max %u  min %u\n", "LIDs per port", s->lids_port_max, s->lids_port_min);
	printf(ROUTE_ROW "%u (0x%016" PRIx64 " %s)\n", "worst spread (max-min)", s->lids_spread_max,
	       r->f.nodes[s->lids_spread_node].guid, r->f.nodes[s->lids_spread_node].desc);
}

static void route_report_text_traffic(const struct route_run *r)
{
	const struct route_score *s = &r->score;

	printf("\nshift all-to-all (highest link load per shift)\n");
	printf(ROUTE_ROW "%zu of %zu\n", "shifts", s->shifts, s->shifts_total);
	if (s->shifts) {
		printf(ROUTE_ROW "%" PRIu64 " (shift %zu)\n", "worst", s->shift_load_worst,
		       s->shift_worst);
		printf(ROUTE_ROW "%.3f\n", "mean", s->shift_load_mean);
		printf(ROUTE_ROW "%.2f%%\n", "contention-free", 100 * s->shift_ideal_frac);
	}
	printf("\neffective bisection bandwidth (per flow, link = 1)\n");
	printf(ROUTE_ROW "%zu (seed %" PRIu64 ")\n", "bisections", s->bisections,
	       r->args.score.seed);
	if (s->bisections) {
		printf(ROUTE_ROW "%.4f\n", "mean", s->ebb_mean);
		printf(ROUTE_ROW "%.4f .. %.4f\n", "95% confidence", s->ebb_ci_low, s->ebb_ci_high);
		printf(ROUTE_ROW "%.4f / %.4f\n", "min / max", s->ebb_min, s->ebb_max);
	}
}

void route_report_text(const struct route_run *r)
{
	route_report_text_source(r);
	route_report_text_gate(r);
	route_report_text_vls(r);
	route_report_text_paths(&r->score);
	route_report_text_balance(r);
	route_report_text_traffic(r);
}

/* ---- JSON report ------------------------------------------------------- */

static void route_report_json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void route_report_json_load(const char *key, const struct score_load *l, const char *tail)
{
	printf("    \"%s\": {\"links\": %zu, \"max\": %" PRIu64
	       ", \"mean\": %.6f, \"cv\": %.6f}%s\n",
	       key, l->links, l->max, l->mean, l->cv, tail);
}

static void route_report_json_source(const struct route_run *r)
{
	printf("{\n  \"topology\": ");
	route_report_json_string(r->args.topo);
	printf(",\n  \"lids\": {\"source\": \"%s\", \"max\": %u},\n",
	       route_report_lid_modes[r->lid_mode], r->max_lid);
	if (r->args.lfts) {
		printf("  \"tables\": {\"source\": \"file\", \"file\": ");
		route_report_json_string(r->args.lfts);
		printf(", \"format\": \"%s\", \"switches\": %zu, \"entries\": %zu, "
		       "\"missing_switches\": "
		       "%zu, \"top_skipped\": %zu, \"unknown_lids\": %zu},\n",
		       route_report_format_names[r->file_info.format], r->file_info.switches,
		       r->file_info.entries, r->file_info.missing, r->file_info.top_skipped,
		       r->file_info.unknown_lids);
	} else {
		printf("  \"tables\": {\"source\": \"engine\", \"engine\": \"%s\", \"roots\": %zu, "
		       "\"note\": ",
		       r->args.engine, r->n_roots);
		route_report_json_string(r->engine_note.text);
		printf("},\n");
	}
	printf("  \"fabric\": {\"switches\": %zu, \"endpoints\": %zu, \"directed_links\": %zu},\n",
	       r->score.switches, r->score.endpoints, r->score.links);
}

static void route_report_json_gate(const struct route_run *r)
{
	const struct route_check *c = &r->score.check;

	printf("  \"gate\": {\"pass\": %s, \"pairs\": %zu, \"unreachable\": %zu, \"loops\": %zu, "
	       "\"bad_ports\": %zu, \"credit_loop\": %s, \"credit_loops_checked\": %s, "
	       "\"max_hops\": %zu, \"first\": ",
	       r->score.gate_rc ? "false" : "true", c->pairs, c->unreachable, c->loops,
	       c->bad_ports, c->credit_loop ? "true" : "false",
	       r->args.score.check.skip_credit_loops ? "false" : "true", c->max_hops);
	route_report_json_string(r->score.gate_rc ? c->first : "");
	printf("},\n");
}

/* Tables with SLs only. */
static void route_report_json_vls(const struct route_run *r)
{
	const struct route_score *s = &r->score;

	if (!r->lfts.sl)
		return;
	printf("  \"vls\": {\"used\": %u, \"lids_missing_vl\": %zu, \"per_vl\": [", s->check.n_vls,
	       s->check.vl_missing);
	for (unsigned v = 0; v < s->n_vls; v++)
		printf("%s{\"vl\": %u, \"endpoints\": %zu, \"pairs_routed\": %" PRIu64
		       ", \"efi_switch_max\": %" PRIu64 "}",
		       v ? ", " : "", v, s->vl[v].endpoints, s->vl[v].pairs_routed,
		       s->vl[v].efi_switch_max);
	printf("]},\n");
}

static void route_report_json_metrics(const struct route_run *r)
{
	const struct route_score *s = &r->score;

	printf("  \"pairs\": {\"total\": %" PRIu64 ", \"routed\": %" PRIu64
	       ", \"hops_mean\": %.6f, "
	       "\"hops_max\": %u, \"stretch_mean\": %.6f, \"stretch_max\": %u, "
	       "\"stretched_frac\": %.6f},\n",
	       s->pairs, s->pairs_routed, s->hops_mean, s->hops_max, s->stretch_mean,
	       s->stretch_max, s->stretched_frac);
	printf("  \"efi\": {\n");
	route_report_json_load("all", &s->efi, ",");
	route_report_json_load("switch", &s->efi_switch, "");
	printf("  },\n");
	printf("  \"lid_balance\": {\"groups\": %zu, \"port_max\": %u, \"port_min\": %u, "
	       "\"spread_max\": %u, \"spread_switch\": ",
	       s->lid_groups, s->lids_port_max, s->lids_port_min, s->lids_spread_max);
	if (s->lids_spread_node == FABRIC_NONE)
		printf("null},\n");
	else
		printf("\"0x%016" PRIx64 "\"},\n", r->f.nodes[s->lids_spread_node].guid);
}

static void route_report_json_traffic(const struct route_run *r)
{
	const struct route_score *s = &r->score;

	printf("  \"shift\": {\"evaluated\": %zu, \"total\": %zu, \"worst_load\": %" PRIu64 ", "
	       "\"worst_shift\": %zu, \"mean_load\": %.6f, \"ideal_frac\": %.6f},\n",
	       s->shifts, s->shifts_total, s->shift_load_worst, s->shift_worst, s->shift_load_mean,
	       s->shift_ideal_frac);
	printf("  \"bisection\": {\"count\": %zu, \"seed\": %" PRIu64 ", \"mean\": %.6f, "
	       "\"ci95_low\": %.6f, \"ci95_high\": %.6f, \"min\": %.6f, \"max\": %.6f}%s\n",
	       s->bisections, r->args.score.seed, s->ebb_mean, s->ebb_ci_low, s->ebb_ci_high,
	       s->ebb_min, s->ebb_max, r->args.timing ? "," : "");
	if (r->args.timing)
		printf("  \"timing_ms\": {\"engine\": %" PRIu64 ", \"gate\": %" PRIu64
		       ", \"score\": %" PRIu64 ", \"engine_cpu\": %" PRIu64
		       ", \"gate_cpu\": %" PRIu64 ", \"score_cpu\": %" PRIu64 "}\n",
		       r->engine_ms[0], r->gate_ms[0], r->score_ms[0], r->engine_ms[1],
		       r->gate_ms[1], r->score_ms[1]);
	printf("}\n");
}

void route_report_json(const struct route_run *r)
{
	route_report_json_source(r);
	route_report_json_gate(r);
	route_report_json_vls(r);
	route_report_json_metrics(r);
	route_report_json_traffic(r);
}
