/*
 * sm/daemon/monitor.h - the policy's monitor section put in force: the
 * SM's performance manager (sm/core/perfmgr.h) at start and at each
 * reload.
 */
#ifndef NANOSM_SM_DAEMON_MONITOR_H
#define NANOSM_SM_DAEMON_MONITOR_H

struct sm;
struct policy;

/* Hand p's monitor section (defaults when p is NULL) to sm.  Logs and
 * returns -ENOMEM when out of memory. */
int monitor_apply(struct sm *sm, const struct policy *p);

#endif
