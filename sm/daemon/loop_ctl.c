/*
 * sm/daemon/loop_ctl.c - the loop's control socket (status, sweep, reload,
 * plan, the tables and names nanosmctl reads; sm/daemon/control.c speaks
 * the protocol) and the figures behind status and metrics.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sm/core/log.h"
#include "sm/core/perfmgr.h"
#include "sm/daemon/loop_priv.h"
#include "sm/daemon/monitor.h"
#include "sm/daemon/reload.h"
#include "sm/sa/mcast.h"
#include "sm/sa/server.h"

void loop_ctl_perf(void *ctx, struct control_perf *out)
{
	struct loop *l = ctx;

	out->t = sm_perf_table(l->sm);
	out->st = sm_perf_stats(l->sm);
	out->opts = sm_perf_opts(l->sm);
}

void loop_ctl_metrics(void *ctx, struct metrics_figures *m)
{
	struct loop *l = ctx;
	const struct mad_counters *mad = sm_mad_counters(l->sm);
	const struct sa_counters *sa = &sm_sa(l->sm)->counters;

	m->uptime_s = (loop_now_ms(NULL) - l->started_ms) / 1000;
	m->sweeps_heavy = l->heavy_sweeps;
	m->sweeps_light = sm_light_stats(l->sm)->runs;
	m->sweeps_failed = l->failed_sweeps;
	m->have_last = l->last.number != 0;
	m->last_sweep_ms = l->last.sweep_ms;
	m->smp = (struct metrics_mads){mad->sent, mad->received, mad->timeouts, mad->retries};
	m->sa = (struct metrics_mads){sa->answered + sa->reports, sa->requests, 0, 0};
	m->sa_answered = sa->answered;
	m->sa_errors = sa->errors;
	m->sa_malformed = sa->malformed;
	sa_get_usage(sm_sa(l->sm), &m->sa_use);
	m->sa_mlid_refused = sa->mlid_refused;
	m->sa_quota_refused = sa->quota_refused;
	m->sa_report_retries = sa->report_retries;
	m->sa_subs_dropped = sa->subs_dropped;
	m->mad_send_dropped = mad_port_tx_dropped(l->port);
	m->lids_used = lid_alloc_count(sm_lids(l->sm));
	m->lft_blocks_sent = l->lft_blocks_total;
	m->switches = l->last_good.switches;
	m->cas = l->last_good.cas;
	m->ports = l->last_good.ports;
	m->lids = l->last_good.lids;
	m->vls = l->last_good.number ? (l->last_good.vls ? l->last_good.vls : 1) : 0;
	m->engine = l->last_good.number ? l->last_good.engine : NULL;
	m->engines = l->opts->sm.engine;
	m->sm_state = sm_state(l->sm);
	m->subnet_up = l->subnet_up != 0; /* degraded counts as up */
	m->fabric = sm_fabric(l->sm);
	m->perf = sm_perf_table(l->sm);
	m->perf_st = sm_perf_stats(l->sm);
}

/* ---- control socket (sm/daemon/control.c speaks the protocol) ------------- */

static void loop_ctl_status(void *ctx, struct control_status *out)
{
	struct loop *l = ctx;

	memset(out, 0, sizeof(*out));
	out->state = smp_sm_state_name(sm_state(l->sm));
	if (sm_master(l->sm, &out->master_guid, &out->master_lid) < 0)
		out->master_guid = 0;
	out->sweeping = sm_busy(l->sm);
	out->port_guid = mad_port_info(l->port)->port_guid;
	out->sm_lid = sm_lid(l->sm);
	out->now_ms = loop_now_ms(NULL);
	out->started_ms = l->started_ms;
	out->engines = l->opts->sm.engine;
	out->last = l->last;
	out->last_end_ms = l->last_end_ms;
	out->last_good = l->last_good;
	out->mad = *sm_mad_counters(l->sm);
	out->sa = sm_sa(l->sm)->counters;
	out->rx_dropped = mad_port_rx_dropped(l->port);
	out->light = *sm_light_stats(l->sm);
	out->quar = sm_quarantine(l->sm);
	out->mcast_groups = mcast_db_count(sm_sa(l->sm)->mcast);
	sa_get_usage(sm_sa(l->sm), &out->sa_use);
	out->tx_dropped = mad_port_tx_dropped(l->port);
	out->tx_failed = mad_port_tx_failed(l->port);
}

static int loop_ctl_sweep(void *ctx)
{
	loop_request_sweep(ctx);
	return 0;
}

/* After a reload's answer: the partition members of p that match no port
 * of the last good model (the sweep it requests logs them, NSM-W422). */
static void loop_ctl_unmatched_append(struct loop *l, const struct policy *p, char *msg,
				      size_t msglen)
{
	char *u = sm_partition_unmatched(l->sm, p->partitions, p->n_partitions, p->node_names,
					 p->n_node_names);
	size_t off = strlen(msg), n = u ? strlen(u) : 0;

	if (n && u[n - 1] == '\n')
		u[n - 1] = '\0'; /* the control reply ends the message's line */
	if (n && off + 1 < msglen)
		snprintf(msg + off, msglen - off, "\n%s", u);
	free(u);
}

static int loop_ctl_reload(void *ctx, int force, char *msg, size_t msglen)
{
	struct loop *l = ctx;
	int rc =
	    loop_ops_reload(l, force, force ? " (nanosmctl, forced)" : " (nanosmctl)", msg, msglen);

	if (rc < 0) {
		log_warnx("NSM-E600 reload refused (nanosmctl): %s; the old policy and tables stay "
			  "in force",
			  msg);
		return rc;
	}
	loop_ctl_unmatched_append(l, loop_policy(l), msg, msglen);
	loop_request_sweep(l);
	return 0;
}

/* text (malloc'ed), then the partition members of np that would match no
 * port; text is freed (NULL when out of memory). */
static char *loop_ctl_plan_unmatched(struct loop *l, const struct policy *np, char *text)
{
	char *u = sm_partition_unmatched(l->sm, np->partitions, np->n_partitions, np->node_names,
					 np->n_node_names);
	size_t tl = strlen(text), ul = u ? strlen(u) : 0;
	char *out = u ? realloc(text, tl + ul + 1) : text;

	if (!out) {
		free(text);
		free(u);
		return NULL;
	}
	if (u)
		memcpy(out + tl, u, ul + 1);
	free(u);
	return out;
}

/* The policy's own differences, what a reload would say beyond them (or
 * why it would be refused), what the routing change would do, and the
 * partition members that would match no port (refused: why a reload would
 * be refused, "" if it would not). */
static char *loop_ctl_plan_text(struct loop *l, const char *name, const struct policy *np,
				const struct loop_opts *next, int verbose, char *refused,
				size_t refusedlen)
{
	const struct policy *cur = loop_policy(l);
	char gate[768];
	char *routes = sm_plan(l->sm, next->sm.engine, next->sm.roots, next->sm.n_roots, verbose,
			       gate, sizeof(gate));
	size_t n = cur ? policy_diff(cur, np, NULL, 0) : 0;
	char *diff = n ? malloc(n + 1) : NULL;
	struct reload_notes notes;
	char why[1024];
	struct text_buf b;

	refused[0] = '\0';
	if (n && !diff) {
		free(routes);
		return NULL;
	}
	text_buf_init(&b);
	if (diff) {
		policy_diff(cur, np, diff, n + 1);
		text_buf_printf(&b, "policy changes:\n%s%s", diff, diff[n - 1] == '\n' ? "" : "\n");
	} else {
		text_buf_printf(&b, "policy: no change\n");
	}
	if (reload_judge(l->sm, cur, np, name, 0, &notes, why, sizeof(why)) < 0) {
		text_buf_printf(&b, "refused: %s\n", why);
		snprintf(refused, refusedlen, "%s", why);
	} else {
		reload_notes_print(&notes, &b);
	}
	if (gate[0] && !refused[0])
		snprintf(refused, refusedlen, "%s", gate);
	text_buf_printf(&b, "%s", routes ? routes : "");
	free(diff);
	free(routes);
	if (!routes || b.failed) {
		text_buf_fini(&b);
		return NULL;
	}
	return loop_ctl_plan_unmatched(l, np, b.s);
}

/* The policy text nanosmctl read and sent (name: the file it named, for
 * messages); the daemon never opens it itself. */
static int loop_ctl_plan(void *ctx, const char *name, const char *text, size_t len, int verbose,
			 char **out, char *err, size_t errlen)
{
	struct loop *l = ctx;
	struct policy np;
	struct loop_opts next = *l->opts;
	char refused[1200];
	int rc = policy_parse(text, len, name, &np, err, errlen);

	if (rc < 0)
		return rc;
	opts_apply_policy(&next, &np);
	*out = loop_ctl_plan_text(l, name, &np, &next, verbose, refused, sizeof(refused));
	policy_fini(&np);
	if (!*out) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (refused[0]) {
		snprintf(err, errlen, "%s", refused);
		return CONTROL_PLAN_REFUSED;
	}
	return 0;
}

static const struct fabric *loop_ctl_fabric(void *ctx)
{
	return sm_fabric(((struct loop *)ctx)->sm);
}

static const struct lft_set *loop_ctl_lfts(void *ctx)
{
	return sm_lfts(((struct loop *)ctx)->sm);
}

static const struct lid_alloc *loop_ctl_lids(void *ctx)
{
	return sm_lids(((struct loop *)ctx)->sm);
}

const struct topo_names *loop_ctl_names(void *ctx)
{
	struct loop *l = ctx;
	const struct policy *p = loop_policy(l);
	struct topo_name *v;

	if (!p || !p->n_node_names)
		return NULL;
	v = realloc(l->name_v, p->n_node_names * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < p->n_node_names; i++)
		v[i] = (struct topo_name){p->node_names[i].guid, p->node_names[i].name};
	l->name_v = v;
	l->names = (struct topo_names){v, p->n_node_names};
	return &l->names;
}

static void loop_ctl_on_ctl(struct ev_loop *ev, ev_io *w, int revents)
{
	struct loop *l = w->data;

	(void)ev;
	(void)revents;
	control_serve(l->ctl_fd, &l->ctl_ops);
	loop_rearm(l);
}

/* The control socket is a convenience: without it the SM still runs. */
void loop_ctl_start(struct loop *l)
{
	const char *path = l->opts->socket_path ? l->opts->socket_path : CONTROL_DEFAULT_PATH;
	char err[512];

	if (!strcmp(path, "none"))
		return;
	l->ctl_ops = (struct control_ops){
	    .ctx = l,
	    .status = loop_ctl_status,
	    .sweep = loop_ctl_sweep,
	    .reload = loop_ctl_reload,
	    .plan = loop_ctl_plan,
	    .fabric = loop_ctl_fabric,
	    .lfts = loop_ctl_lfts,
	    .lids = loop_ctl_lids,
	    .names = loop_ctl_names,
	    .metrics = loop_ctl_metrics,
	    .perf = loop_ctl_perf,
	};
	l->ctl_fd = control_listen(path, err, sizeof(err));
	if (l->ctl_fd < 0) {
		log_warnx("NSM-W610 %s; running without a control socket", err);
		return;
	}
	ev_io_init(&l->ctl_io, loop_ctl_on_ctl, l->ctl_fd, EV_READ);
	l->ctl_io.data = l;
	ev_io_start(l->ev, &l->ctl_io);
	log_info("control socket %s", path);
}

void loop_ctl_stop(struct loop *l)
{
	monitor_http(&l->http, l->ev, NULL, loop_http_metrics, l);
	if (l->ctl_fd < 0)
		return;
	ev_io_stop(l->ev, &l->ctl_io);
	control_close(l->ctl_fd,
		      l->opts->socket_path ? l->opts->socket_path : CONTROL_DEFAULT_PATH);
	l->ctl_fd = -1;
}
