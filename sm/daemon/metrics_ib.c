/*
 * sm/daemon/metrics_ib.c - the port counters as Prometheus text under the
 * InfiniBand exporter's names.  Pure: no I/O, no clock; reads the fabric
 * model and the performance manager's table it is given.
 */
#include <inttypes.h>
#include <string.h>

#include "mad/text.h"
#include "routing/fabric.h"
#include "sm/core/perfmgr.h"
#include "sm/daemon/metrics.h"
#include "sm/daemon/metrics_ib.h"

/* One counter family: its name after infiniband_<kind>_port_, the PMA
 * counter, and 4 when the PMA counts 4-byte words. */
static const struct {
	const char *name;
	enum pma_ctr ctr;
	unsigned scale;
	const char *help;
} metrics_ib_ctrs[] = {
    {"transmit_data_bytes_total", PMA_XMIT_DATA, 4, "PortXmitData in bytes"},
    {"receive_data_bytes_total", PMA_RCV_DATA, 4, "PortRcvData in bytes"},
    {"transmit_packets_total", PMA_XMIT_PKTS, 1, "PortXmitPkts"},
    {"receive_packets_total", PMA_RCV_PKTS, 1, "PortRcvPkts"},
    {"symbol_error_total", PMA_SYMBOL_ERRORS, 1, "SymbolErrorCounter"},
    {"link_error_recovery_total", PMA_LINK_ERROR_RECOVERY, 1, "LinkErrorRecoveryCounter"},
    {"link_downed_total", PMA_LINK_DOWNED, 1, "LinkDownedCounter"},
    {"receive_errors_total", PMA_RCV_ERRORS, 1, "PortRcvErrors"},
    {"receive_remote_physical_errors_total", PMA_RCV_REMOTE_PHYS_ERRORS, 1,
     "PortRcvRemotePhysicalErrors"},
    {"receive_switch_relay_errors_total", PMA_RCV_SWITCH_RELAY_ERRORS, 1,
     "PortRcvSwitchRelayErrors"},
    {"transmit_discards_total", PMA_XMIT_DISCARDS, 1, "PortXmitDiscards"},
    {"transmit_constraint_errors_total", PMA_XMIT_CONSTRAINT_ERRORS, 1, "PortXmitConstraintErrors"},
    {"receive_constraint_errors_total", PMA_RCV_CONSTRAINT_ERRORS, 1, "PortRcvConstraintErrors"},
    {"local_link_integrity_errors_total", PMA_LOCAL_LINK_INTEGRITY_ERRORS, 1,
     "LocalLinkIntegrityErrors"},
    {"excessive_buffer_overrun_errors_total", PMA_EXCESSIVE_BUFFER_OVERRUN, 1,
     "ExcessiveBufferOverrunErrors"},
    {"vl15_dropped_total", PMA_VL15_DROPPED, 1, "VL15Dropped"},
    {"transmit_wait_total", PMA_XMIT_WAIT, 1, "PortXmitWait"},
};

#define METRICS_IB_N_CTRS (sizeof(metrics_ib_ctrs) / sizeof(metrics_ib_ctrs[0]))

/* A label value, escaped. */
static void metrics_ib_label(struct text_sink *o, const char *value)
{
	char esc[4 * 65 + 8];

	metrics_escape(value, esc, sizeof(esc));
	text_sinkf(o, "%s", esc);
}

static void metrics_ib_counters(struct text_sink *o, const struct perf_table *t, int sw)
{
	const char *kind = sw ? "switch" : "hca";

	for (size_t c = 0; c < METRICS_IB_N_CTRS; c++) {
		int head = 0;

		for (size_t i = 0; i < t->n; i++) {
			const struct perf_port *p = &t->p[i];

			if (!p->have || p->is_switch != sw)
				continue;
			if (!head++)
				text_sinkf(o,
					   "# HELP infiniband_%s_port_%s Infiniband %s port %s\n"
					   "# TYPE infiniband_%s_port_%s counter\n",
					   kind, metrics_ib_ctrs[c].name, kind,
					   metrics_ib_ctrs[c].help, kind, metrics_ib_ctrs[c].name);
			text_sinkf(o,
				   "infiniband_%s_port_%s{guid=\"0x%016" PRIx64 "\",port=\"%u\"} "
				   "%" PRIu64 "\n",
				   kind, metrics_ib_ctrs[c].name, p->guid, p->port,
				   p->total[metrics_ib_ctrs[c].ctr] * metrics_ib_ctrs[c].scale);
		}
	}
}

/* infiniband_<kind>_info: one per node of that kind with a port read. */
static void metrics_ib_info(struct text_sink *o, const struct fabric *f, const struct perf_table *t,
			    int sw)
{
	const char *kind = sw ? "switch" : "hca";
	int head = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct perf_port *p = &t->p[i];
		int n = fabric_find(f, p->guid);

		if (p->is_switch != sw || n == FABRIC_NONE || (i && t->p[i - 1].guid == p->guid))
			continue;
		if (!head++)
			text_sinkf(o,
				   "# HELP infiniband_%s_info Infiniband %s information\n"
				   "# TYPE infiniband_%s_info gauge\n",
				   kind, kind, kind);
		text_sinkf(o, "infiniband_%s_info{guid=\"0x%016" PRIx64 "\",lid=\"%u\",%s=\"", kind,
			   p->guid, p->lid, kind);
		metrics_ib_label(o, f->nodes[n].desc);
		text_sinkf(o, "\"} 1\n");
	}
}

static void metrics_ib_uplink_one(struct text_sink *o, const struct fabric *f,
				  const struct perf_port *p, const char *kind)
{
	int n = fabric_find(f, p->guid);
	const struct fabric_port *fp;
	const struct fabric_node *far;
	uint16_t lid;

	if (n == FABRIC_NONE || p->port > f->nodes[n].num_ports)
		return;
	fp = &f->nodes[n].ports[p->port];
	if (fp->remote_node == FABRIC_NONE)
		return;
	far = &f->nodes[fp->remote_node];
	lid = fabric_is_switch(far) ? far->ports[0].lid : far->ports[fp->remote_port].lid;
	text_sinkf(o, "infiniband_%s_uplink_info{guid=\"0x%016" PRIx64 "\",port=\"%u\",%s=\"", kind,
		   p->guid, p->port, kind);
	metrics_ib_label(o, f->nodes[n].desc);
	text_sinkf(o, "\",uplink=\"");
	metrics_ib_label(o, far->desc);
	text_sinkf(o,
		   "\",uplink_guid=\"0x%016" PRIx64 "\",uplink_lid=\"%u\",uplink_port=\"%u\","
		   "uplink_type=\"%s\"} 1\n",
		   far->guid, lid, fp->remote_port, fabric_is_switch(far) ? "SW" : "CA");
}

static void metrics_ib_uplinks(struct text_sink *o, const struct fabric *f,
			       const struct perf_table *t, int sw)
{
	const char *kind = sw ? "switch" : "hca";

	text_sinkf(o,
		   "# HELP infiniband_%s_uplink_info Infiniband %s uplink information\n"
		   "# TYPE infiniband_%s_uplink_info gauge\n",
		   kind, kind, kind);
	for (size_t i = 0; i < t->n; i++)
		if (t->p[i].is_switch == sw)
			metrics_ib_uplink_one(o, f, &t->p[i], kind);
}

static void metrics_ib_health(struct text_sink *o, const struct perf_table *t)
{
	text_sinkf(o, "# HELP nanosm_port_health Link health verdict of the port's cable: "
		      "0 ok, 1 degrading, 2 flapping, 3 failing.\n"
		      "# TYPE nanosm_port_health gauge\n");
	for (size_t i = 0; i < t->n; i++)
		if (t->p[i].have)
			text_sinkf(o,
				   "nanosm_port_health{guid=\"0x%016" PRIx64 "\",port=\"%u\"} %u\n",
				   t->p[i].guid, t->p[i].port, t->p[i].health);
}

static void metrics_ib_perfmgr(struct text_sink *o, const struct perfmgr_stats *st)
{
	text_sinkf(o,
		   "# HELP nanosm_perfmgr_passes_total Performance manager passes completed.\n"
		   "# TYPE nanosm_perfmgr_passes_total counter\n"
		   "nanosm_perfmgr_passes_total %" PRIu64 "\n"
		   "# HELP nanosm_perfmgr_gmps_total PerfMgt GMPs: sent (retries included), "
		   "answered, timed out, answered with an error status.\n"
		   "# TYPE nanosm_perfmgr_gmps_total counter\n"
		   "nanosm_perfmgr_gmps_total{result=\"sent\"} %" PRIu64 "\n"
		   "nanosm_perfmgr_gmps_total{result=\"received\"} %" PRIu64 "\n"
		   "nanosm_perfmgr_gmps_total{result=\"timeout\"} %" PRIu64 "\n"
		   "nanosm_perfmgr_gmps_total{result=\"error\"} %" PRIu64 "\n"
		   "# HELP nanosm_perfmgr_clears_total PortCounters Sets that cleared a port "
		   "before a counter saturated.\n"
		   "# TYPE nanosm_perfmgr_clears_total counter\n"
		   "nanosm_perfmgr_clears_total %" PRIu64 "\n"
		   "# HELP nanosm_perfmgr_last_pass_duration_seconds How long the last pass took.\n"
		   "# TYPE nanosm_perfmgr_last_pass_duration_seconds gauge\n"
		   "nanosm_perfmgr_last_pass_duration_seconds %" PRIu64 ".%03" PRIu64 "\n"
		   "# HELP nanosm_perfmgr_ports Ports the performance manager reads.\n"
		   "# TYPE nanosm_perfmgr_ports gauge\n"
		   "nanosm_perfmgr_ports %zu\n",
		   st->passes, st->gmps_sent, st->gmps_received, st->timeouts, st->errors,
		   st->clears, st->last_pass_ms / 1000, st->last_pass_ms % 1000, st->ports);
}

size_t metrics_ib_render(const struct fabric *f, const struct perf_table *t,
			 const struct perfmgr_stats *st, char *buf, size_t size)
{
	struct text_sink o = {buf, buf ? size : 0, 0};

	if (o.len)
		buf[0] = '\0';
	if (st)
		metrics_ib_perfmgr(&o, st);
	if (!f || !t)
		return o.off;
	for (int sw = 1; sw >= 0; sw--) {
		metrics_ib_counters(&o, t, sw);
		metrics_ib_info(&o, f, t, sw);
		metrics_ib_uplinks(&o, f, t, sw);
	}
	metrics_ib_health(&o, t);
	return o.off;
}
