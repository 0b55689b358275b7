/*
 * sm/daemon/monitor.c - the policy's monitor section to the performance
 * manager's options.  Touches nothing but what sm_set_monitor takes.
 */
#include <errno.h>

#include "config/policy.h"
#include "sm/core/log.h"
#include "sm/core/perfmgr.h"
#include "sm/daemon/monitor.h"

int monitor_apply(struct sm *sm, const struct policy *p)
{
	struct policy_monitor def;
	const struct policy_monitor *m = p ? &p->monitor : &def;
	struct perfmgr_opts o;

	policy_monitor_init(&def);
	o.enabled = m->enabled;
	o.interval_s = m->interval;
	o.th = (struct perf_thresholds){m->degrading, m->failing, m->flapping, m->recover};
	if (sm_set_monitor(sm, &o) < 0) {
		log_warnx("NSM-E503 out of memory for the performance manager");
		return -ENOMEM;
	}
	return 0;
}
