/*
 * sm/daemon/monitor.c - the policy's monitor section to the performance
 * manager's options.  Touches nothing but what sm_set_monitor takes.
 */
#include <errno.h>
#include <string.h>

#include "config/policy.h"
#include "sm/core/log.h"
#include "sm/core/perfmgr.h"
#include "sm/daemon/http_listen.h"
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

void monitor_http(struct http_listen **h, struct ev_loop *ev, const struct policy *p,
		  char *(*render)(void *ctx, size_t *len), void *ctx)
{
	const char *want = p ? p->monitor.listen : "";
	char err[256];

	if (!strcmp(want, http_listen_addr(*h)))
		return;
	if (*h)
		log_info("metrics: no longer listening on http://%s/metrics", http_listen_addr(*h));
	http_listen_stop(*h);
	*h = NULL;
	if (!want[0])
		return;
	*h = http_listen_start(ev, want, render, ctx, err, sizeof(err));
	if (*h)
		log_info("metrics: listening on http://%s/metrics", want);
	else
		log_warnx("NSM-E763 %s: no HTTP /metrics listener (nanosmctl metrics still "
			  "answers)",
			  err);
}
