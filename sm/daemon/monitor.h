/*
 * sm/daemon/monitor.h - the policy's monitor section put in force: the
 * SM's performance manager (sm/core/perfmgr.h) and the HTTP /metrics
 * listener (sm/daemon/http_listen.h), at start and at each reload.
 */
#ifndef NANOSM_SM_DAEMON_MONITOR_H
#define NANOSM_SM_DAEMON_MONITOR_H

#include <stddef.h>

struct sm;
struct policy;

/* Hand p's monitor section (defaults when p is NULL) to sm.  Logs and
 * returns -ENOMEM when out of memory. */
int monitor_apply(struct sm *sm, const struct policy *p);

struct ev_loop;
struct http_listen;

/* Put p's monitor.listen in force: the HTTP /metrics listener *h is
 * started, moved or stopped (policy NULL: stopped) when the address
 * changed.  A listener that cannot start is logged (NSM-E763) and the
 * daemon goes on without it. */
void monitor_http(struct http_listen **h, struct ev_loop *ev, const struct policy *p,
		  char *(*render)(void *ctx, size_t *len), void *ctx);

#endif
