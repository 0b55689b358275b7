/*
 * sm/daemon/metrics_ib.h - the port counters in the Prometheus text
 * format under the names of the widely used InfiniBand exporter
 * (treydock/infiniband_exporter), so its dashboards work unchanged.
 *
 * DOC: Pure: the last good fabric and the performance manager's table
 * in, text out (docs/monitoring.md lists every series).  One series per
 * port read: infiniband_switch_port_* for switch ports,
 * infiniband_hca_port_* for CA ports, labels guid (node GUID, 0x and 16
 * hex digits) and port; data counters in bytes (4 x the PMA's words).
 * The info series carry names and the far end of each cable:
 * infiniband_{switch,hca}_info{guid,lid,switch|hca} and
 * infiniband_{switch,hca}_uplink_info{guid,port,switch|hca,uplink,
 * uplink_guid,uplink_lid,uplink_port,uplink_type}.  nanosm's own:
 * nanosm_port_health{guid,port} (0 ok, 1 degrading, 2 flapping, 3
 * failing) and the manager's nanosm_perfmgr_* figures.
 */
#ifndef NANOSM_SM_DAEMON_METRICS_IB_H
#define NANOSM_SM_DAEMON_METRICS_IB_H

#include <stddef.h>

struct fabric;
struct perf_table;
struct perfmgr_stats;

/* Append to buf (cut to size, NUL-terminated) like snprintf: returns the
 * length the whole text needs.  f, t and st may be NULL (nothing). */
size_t metrics_ib_render(const struct fabric *f, const struct perf_table *t,
			 const struct perfmgr_stats *st, char *buf, size_t size);

#endif
