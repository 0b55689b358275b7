/*
 * sm/daemon/metrics.c - render struct metrics_figures as Prometheus text.  Pure: no
 * I/O, no clock, no globals; the daemon gathers the figures (sm/daemon/loop.c).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sm/daemon/metrics.h"
#include "sm/daemon/metrics_ib.h"

/* An snprintf-style appender: keeps counting past the end of buf. */
struct metrics_out {
	char *buf;
	size_t size, len;
};

__attribute__((format(printf, 2, 3))) static void metrics_printf(struct metrics_out *o,
								 const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->len < o->size ? o->buf + o->len : NULL,
		      o->len < o->size ? o->size - o->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

size_t metrics_escape(const char *value, char *buf, size_t size)
{
	size_t len = 0;

	for (const char *s = value ? value : ""; *s; s++) {
		const char *rep = *s == '\\'   ? "\\\\"
				  : *s == '"'  ? "\\\""
				  : *s == '\n' ? "\\n"
					       : NULL;
		char one[2] = {*s, '\0'};

		for (const char *r = rep ? rep : one; *r; r++, len++)
			if (len + 1 < size)
				buf[len] = *r;
	}
	if (size)
		buf[len < size ? len : size - 1] = '\0';
	return len;
}

/* A label value, escaped, appended. */
static void metrics_label(struct metrics_out *o, const char *value)
{
	size_t need = metrics_escape(value, NULL, 0);
	char small[256];

	if (need < sizeof(small)) {
		metrics_escape(value, small, sizeof(small));
		metrics_printf(o, "%s", small);
		return;
	}
	for (const char *s = value; *s; s++) { /* long: one character at a time */
		char one[2] = {*s, '\0'}, esc[4];

		metrics_escape(one, esc, sizeof(esc));
		metrics_printf(o, "%s", esc);
	}
}

static void metrics_head(struct metrics_out *o, const char *name, const char *type,
			 const char *help)
{
	metrics_printf(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void metrics_plain(struct metrics_out *o, const char *name, const char *type,
			  const char *help, uint64_t v)
{
	metrics_head(o, name, type, help);
	metrics_printf(o, "%s %" PRIu64 "\n", name, v);
}

static void metrics_labeled(struct metrics_out *o, const char *name, const char *label,
			    const char *value, uint64_t v)
{
	metrics_printf(o, "%s{%s=\"", name, label);
	metrics_label(o, value);
	metrics_printf(o, "\"} %" PRIu64 "\n", v);
}

static void metrics_sweeps(struct metrics_out *o, const struct metrics_figures *m)
{
	metrics_head(o, "nanosm_sweeps_total", "counter",
		     "Sweeps since start: heavy ones that ended, light ones started.");
	metrics_labeled(o, "nanosm_sweeps_total", "kind", "heavy", m->sweeps_heavy);
	metrics_labeled(o, "nanosm_sweeps_total", "kind", "light", m->sweeps_light);
	metrics_plain(o, "nanosm_sweeps_failed_total", "counter",
		      "Heavy sweeps that failed (the last good state stayed in force).",
		      m->sweeps_failed);
	if (!m->have_last)
		return;
	metrics_head(o, "nanosm_last_sweep_duration_seconds", "gauge",
		     "How long the last heavy sweep took.");
	metrics_printf(o, "nanosm_last_sweep_duration_seconds %" PRIu64 ".%03" PRIu64 "\n",
		       m->last_sweep_ms / 1000, m->last_sweep_ms % 1000);
}

static void metrics_mads(struct metrics_out *o, const struct metrics_figures *m)
{
	metrics_head(o, "nanosm_mads_sent_total", "counter",
		     "MADs sent: SMPs (retries included), SA answers and reports.");
	metrics_labeled(o, "nanosm_mads_sent_total", "class", "smp", m->smp.sent);
	metrics_labeled(o, "nanosm_mads_sent_total", "class", "sa", m->sa.sent);
	metrics_head(o, "nanosm_mads_received_total", "counter",
		     "MADs received: SMP answers matched to a request, SA requests.");
	metrics_labeled(o, "nanosm_mads_received_total", "class", "smp", m->smp.received);
	metrics_labeled(o, "nanosm_mads_received_total", "class", "sa", m->sa.received);
	metrics_head(o, "nanosm_mad_timeouts_total", "counter",
		     "Requests that got no answer after all retries.");
	metrics_labeled(o, "nanosm_mad_timeouts_total", "class", "smp", m->smp.timeouts);
	metrics_head(o, "nanosm_mad_retries_total", "counter", "Retransmissions after a timeout.");
	metrics_labeled(o, "nanosm_mad_retries_total", "class", "smp", m->smp.retries);
}

static void metrics_sa(struct metrics_out *o, const struct metrics_figures *m)
{
	metrics_plain(o, "nanosm_sa_answered_total", "counter",
		      "SA queries answered (a response sent).", m->sa_answered);
	metrics_plain(o, "nanosm_sa_errors_total", "counter",
		      "SA queries answered with an error status.", m->sa_errors);
	metrics_plain(o, "nanosm_sa_malformed_total", "counter",
		      "SA MADs dropped because they did not decode.", m->sa_malformed);
}

/* The top holders of one kind: nanosm_sa_top_holder{kind,port_guid}. */
static void metrics_sa_top(struct metrics_out *o, const struct metrics_figures *m, int k)
{
	for (int i = 0; i < SA_USAGE_TOP && m->sa_use.top[k][i].guid; i++)
		metrics_printf(o,
			       "nanosm_sa_top_holder{kind=\"%s\",port_guid=\"0x%016" PRIx64
			       "\"} %" PRIu32 "\n",
			       sa_quota_kind_name((enum sa_quota_kind)k), m->sa_use.top[k][i].guid,
			       m->sa_use.top[k][i].used);
}

static void metrics_sa_limits(struct metrics_out *o, const struct metrics_figures *m)
{
	const struct sa_usage *u = &m->sa_use;

	metrics_plain(o, "nanosm_sa_mlids_used", "gauge", "MLIDs held by multicast groups.",
		      u->mlids_used);
	metrics_plain(o, "nanosm_sa_mlids_capacity", "gauge",
		      "MLIDs every switch holds (smallest MulticastFDBCap).", u->mlid_cap);
	metrics_head(o, "nanosm_sa_held", "gauge",
		     "Groups, services and subscriptions the SA holds.");
	for (int k = 0; k < SA_QUOTA_KINDS; k++)
		metrics_labeled(o, "nanosm_sa_held", "kind",
				sa_quota_kind_name((enum sa_quota_kind)k), u->held[k]);
	metrics_head(o, "nanosm_sa_quota_per_port", "gauge",
		     "What one port may hold of each kind (0: no limit).");
	for (int k = 0; k < SA_QUOTA_KINDS; k++)
		metrics_labeled(o, "nanosm_sa_quota_per_port", "kind",
				sa_quota_kind_name((enum sa_quota_kind)k), u->limit[k]);
	metrics_head(o, "nanosm_sa_top_holder", "gauge",
		     "The ports holding the most of each kind, and how many.");
	for (int k = 0; k < SA_QUOTA_KINDS; k++)
		metrics_sa_top(o, m, k);
	metrics_head(o, "nanosm_sa_refused_total", "counter",
		     "SA requests refused with 0x0100 by a limit: no MLID, or a port's quota.");
	metrics_labeled(o, "nanosm_sa_refused_total", "reason", "mlid", m->sa_mlid_refused);
	metrics_labeled(o, "nanosm_sa_refused_total", "reason", "quota", m->sa_quota_refused);
	metrics_plain(o, "nanosm_sa_report_retries_total", "counter",
		      "Reports sent again for want of a ReportResp.", m->sa_report_retries);
	metrics_plain(o, "nanosm_sa_subscriptions_dropped_total", "counter",
		      "InformInfo subscriptions dropped: their Reports went unanswered.",
		      m->sa_subs_dropped);
	metrics_plain(o, "nanosm_mad_send_dropped_total", "counter",
		      "MADs dropped because the send queue was full (the receiver did not read).",
		      m->mad_send_dropped);
}

static void metrics_fabric(struct metrics_out *o, const struct metrics_figures *m)
{
	metrics_plain(o, "nanosm_fabric_switches", "gauge",
		      "Switches in the fabric of the last good sweep.", m->switches);
	metrics_plain(o, "nanosm_fabric_cas", "gauge",
		      "CA and router ports in the fabric of the last good sweep.", m->cas);
	metrics_plain(o, "nanosm_fabric_ports", "gauge",
		      "Present ports in the fabric of the last good sweep.", m->ports);
	metrics_plain(o, "nanosm_fabric_lids", "gauge",
		      "LIDs the ports of the last good sweep's fabric own.", m->lids);
	metrics_plain(o, "nanosm_routing_vls", "gauge",
		      "Virtual lanes the paths of the tables in force use.", m->vls);
	metrics_plain(o, "nanosm_lids_used", "gauge", "Unicast LIDs held (assigned or reserved).",
		      m->lids_used);
	metrics_plain(o, "nanosm_lids_capacity", "gauge", "Unicast LIDs there are (0x0001-0xBFFF).",
		      METRICS_LIDS_CAPACITY);
	metrics_plain(o, "nanosm_lft_blocks_sent_total", "counter",
		      "LFT blocks written to switches, all sweeps.", m->lft_blocks_sent);
	metrics_head(o, "nanosm_routing_engine_info", "gauge",
		     "The routing engine whose tables are in force, and the configured list.");
	metrics_printf(o, "nanosm_routing_engine_info{engine=\"");
	metrics_label(o, m->engine ? m->engine : "none");
	metrics_printf(o, "\",configured=\"");
	metrics_label(o, m->engines ? m->engines : "");
	metrics_printf(o, "\"} 1\n");
}

static void metrics_state(struct metrics_out *o, const struct metrics_figures *m)
{
	static const char *const names[] = {"notactive", "discovering", "standby", "master"};

	metrics_head(o, "nanosm_sm_state", "gauge",
		     "The SM state SMInfo answers: 1 for the current one.");
	for (unsigned i = 0; i < 4; i++)
		metrics_labeled(o, "nanosm_sm_state", "state", names[i], m->sm_state == i);
	metrics_plain(o, "nanosm_subnet_up", "gauge",
		      "1 once this SM as master has brought the subnet up, else 0.",
		      m->subnet_up ? 1 : 0);
}

size_t metrics_render(const struct metrics_figures *m, char *buf, size_t size)
{
	struct metrics_out o = {buf, size, 0};

	if (size)
		buf[0] = '\0';
	metrics_plain(&o, "nanosm_uptime_seconds", "gauge", "Seconds since nanosm started.",
		      m->uptime_s);
	metrics_sweeps(&o, m);
	metrics_mads(&o, m);
	metrics_sa(&o, m);
	metrics_sa_limits(&o, m);
	metrics_fabric(&o, m);
	metrics_state(&o, m);
	if (m->perf_st || m->perf) /* the port counters (metrics_ib.c) */
		o.len += metrics_ib_render(m->fabric, m->perf, m->perf_st,
					   o.len < o.size ? o.buf + o.len : NULL,
					   o.len < o.size ? o.size - o.len : 0);
	return o.len;
}
