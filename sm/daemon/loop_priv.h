/*
 * sm/daemon/loop_priv.h - struct loop, shared by the event loop (loop.c:
 * MADs, timers, signals, sweeps, reloads) and its control socket and
 * status and metrics figures (loop_ctl.c).  Nothing else includes it.
 */
#ifndef NANOSM_SM_DAEMON_LOOP_PRIV_H
#define NANOSM_SM_DAEMON_LOOP_PRIV_H

#include <ev.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/mad_port.h"
#include "sm/core/sm.h"
#include "sm/daemon/control.h"
#include "sm/daemon/http_listen.h"
#include "sm/daemon/loop.h"
#include "sm/daemon/metrics.h"
#include "sm/daemon/notify.h"
#include "sm/daemon/opts.h"

#define LOOP_RELOAD_MSG 8192 /* the answer to a reload, notes included */

struct loop {
	struct ev_loop *ev;
	ev_async rx;
	ev_timer mad_timer;
	ev_timer sweep_timer;
	ev_idle sweep_idle; /* runs a requested sweep once the loop is idle */
	ev_idle rx_direct;  /* reads answers in this thread while SMPs are out */
	ev_signal sig_term, sig_int, sig_hup;
	struct mad_port *port;
	struct sm *sm;
	struct loop_opts *opts;
	struct policy *reloaded; /* the policy a reload put in force (owned) */
	/* control socket */
	ev_io ctl_io;
	int ctl_fd;
	struct control_ops ctl_ops;
	struct topo_names names;
	struct topo_name *name_v;
	uint64_t started_ms, last_end_ms;
	struct sm_sweep_stats last, last_good;
	int subnet_up;
	int exit_code;
	/* operations: log rotation, sd_notify, metrics (loop_ops_*) */
	ev_signal sig_usr1;
	struct notify notify;
	uint64_t heavy_sweeps, failed_sweeps, lft_blocks_total;
	struct http_listen *http; /* monitor.listen's /metrics, NULL: off */
};

/* loop.c */
uint64_t loop_now_ms(void *ctx);
const struct policy *loop_policy(const struct loop *l);
/* After anything that may have queued or completed MADs: aim the timer at
 * the next MAD deadline. */
void loop_rearm(struct loop *l);
void loop_request_sweep(struct loop *l);
int loop_ops_reload(struct loop *l, int force, const char *via, char *msg, size_t msglen);
/* The /metrics text (malloc'd, *len bytes). */
char *loop_http_metrics(void *ctx, size_t *len);

/* loop_ctl.c: the control socket (sm/daemon/control.c speaks the protocol)
 * and the figures of status and metrics. */
void loop_ctl_start(struct loop *l);
void loop_ctl_stop(struct loop *l);
void loop_ctl_metrics(void *ctx, struct metrics_figures *m);
void loop_ctl_perf(void *ctx, struct control_perf *out);
const struct topo_names *loop_ctl_names(void *ctx);

#endif
