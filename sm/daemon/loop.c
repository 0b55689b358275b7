/*
 * sm/daemon/loop.c - libev glue: MAD arrival (ev_async from the receiver thread),
 * MAD timeouts (one ev_timer set to the queue's next deadline), periodic
 * sweeps, and signals that only set flags or request work.  Owns every
 * watcher; the SM core never sees libev.
 */
#include <errno.h>
#include <ev.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mad/mad_port.h"
#include "sm/core/log.h"
#include "sm/core/perfmgr.h"
#include "sm/daemon/control.h"
#include "sm/daemon/http_listen.h"
#include "sm/daemon/loop.h"
#include "sm/daemon/loop_priv.h"
#include "sm/daemon/monitor.h"
#include "sm/daemon/notify.h"
#include "sm/daemon/opts.h"
#include "sm/daemon/reload.h"
#include "sm/daemon/topo_save.h"
#include "sm/sa/mcast.h"
#include "sm/sa/server.h"

static void loop_names(struct loop *l, const struct policy *p);
static void loop_ops_sweep_done(struct loop *l, const struct sm_sweep_stats *st);

uint64_t loop_now_ms(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t loop_wall_s(void *ctx)
{
	(void)ctx;
	return (uint64_t)time(NULL);
}

/* After anything that may have queued or completed MADs: aim the timer at
 * the next MAD deadline. */
void loop_rearm(struct loop *l)
{
	uint64_t next = sm_tick(l->sm);
	uint64_t now = loop_now_ms(NULL);
	int out = sm_outstanding(l->sm) > 0;

	sm_progress_tick(l->sm); /* a line every 2 s while a long sweep runs */
	/* SMPs on the wire: this thread reads their answers itself once the
	 * receiver thread is parked (one thread hand-off fewer each); the
	 * receiver thread takes over again when none are left.  --once keeps
	 * it parked to the end, so closing never waits for its umad_recv;
	 * the reader (an idle watcher of the highest priority) runs only
	 * while SMPs are out, or it would starve the sweep's own idle
	 * watcher (nothing reads the fd meanwhile: no answer is due). */
	if (mad_port_hold(l->port, out || l->opts->once) && out)
		ev_idle_start(l->ev, &l->rx_direct);
	else
		ev_idle_stop(l->ev, &l->rx_direct);
	ev_timer_stop(l->ev, &l->mad_timer);
	if (!next)
		return;
	ev_timer_set(&l->mad_timer, next > now ? (double)(next - now) / 1000.0 : 0.0, 0.0);
	ev_timer_start(l->ev, &l->mad_timer);
}

static void loop_rx_one(void *ctx, const struct mad_addr *from, const uint8_t *mad, size_t len)
{
	sm_recv(ctx, from, mad, len);
}

/* After the MADs are handed over: a failed receive ends the loop, else
 * the timers and the reader are set for what is on the wire now. */
static void loop_after_rx(struct loop *l)
{
	int failed = mad_port_failed(l->port);

	if (failed) {
		log_warnx("NSM-E500 MAD receiver stopped: %s", strerror(-failed));
		l->exit_code = 1;
		ev_break(l->ev, EVBREAK_ALL);
		return;
	}
	loop_rearm(l);
}

static void loop_on_rx(struct ev_loop *ev, ev_async *w, int revents)
{
	struct loop *l = w->data;

	(void)ev;
	(void)revents;
	mad_port_drain(l->port, loop_rx_one, l->sm);
	loop_after_rx(l);
}

/* How long the loop may block in umad_recv: up to the next MAD deadline,
 * at most LOOP_DIRECT_MS so the control socket, signals and timers still
 * get their turn. */
#define LOOP_DIRECT_MS 10
#define LOOP_DIRECT_MAX 256

static void loop_on_rx_direct(struct ev_loop *ev, ev_idle *w, int revents)
{
	struct loop *l = w->data;
	unsigned wait = LOOP_DIRECT_MS;

	(void)revents;
	if (ev_is_active(&l->mad_timer)) { /* loop_rearm aimed it at the next deadline */
		ev_tstamp left = ev_timer_remaining(ev, &l->mad_timer);

		if (left < LOOP_DIRECT_MS / 1000.0)
			wait = left > 0 ? (unsigned)(left * 1000.0) : 0;
	}
	mad_port_drain(l->port, loop_rx_one, l->sm);
	mad_port_recv(l->port, wait, LOOP_DIRECT_MAX, loop_rx_one, l->sm);
	loop_after_rx(l);
}

static void loop_on_mad_timer(struct ev_loop *ev, ev_timer *w, int revents)
{
	(void)ev;
	(void)revents;
	loop_rearm(w->data);
}

static void loop_on_sweep_idle(struct ev_loop *ev, ev_idle *w, int revents)
{
	struct loop *l = w->data;

	(void)revents;
	ev_idle_stop(ev, w);
	sm_sweep_request(l->sm); /* coalesces if one is running */
	loop_rearm(l);
}

void loop_request_sweep(struct loop *l)
{
	ev_idle_start(l->ev, &l->sweep_idle);
}

/* Every sweep interval: a light sweep (SwitchInfo of each switch), which
 * asks for a heavy sweep itself when something changed; a heavy one when
 * there is no good model yet. */
static void loop_on_sweep_timer(struct ev_loop *ev, ev_timer *w, int revents)
{
	struct loop *l = w->data;

	(void)ev;
	(void)revents;
	if (sm_light_sweep(l->sm) == -EAGAIN)
		loop_request_sweep(l);
	loop_rearm(l);
}

const struct policy *loop_policy(const struct loop *l)
{
	return l->reloaded ? l->reloaded : l->opts->policy;
}

/* The notes of a reload that took, in the log: dropped sections as a
 * warning, each static LID move and what waits for a restart as info. */
static void loop_reload_log(const struct loop *l, const struct reload_notes *n)
{
	const char *line = n->moves;

	if (n->drops[0])
		log_warnx("NSM-W620 reload of %s %s", l->opts->policy_path, n->drops);
	while (*line) {
		size_t len = strcspn(line, "\n");

		log_info("reload: %.*s", (int)len, line);
		line += len + (line[len] == '\n');
	}
	if (n->restart[0])
		log_info("reload: takes effect at restart: %s", n->restart);
}

/* Put np in force: routing (checked by the caller), priority, names and
 * partitions, static LIDs, reclaim age, sweep interval, log level. */
static void loop_reload_apply(struct loop *l, struct policy *np, struct loop_opts *next)
{
	const struct policy *cur = loop_policy(l);
	char text[4096];

	sm_set_priority(l->sm, next->sm.priority);
	loop_names(l, np);
	if (sm_static_lids(l->sm, cur ? cur->lids.statics : NULL, cur ? cur->lids.n_statics : 0,
			   np->lids.statics, np->lids.n_statics, 1, text, sizeof(text)) < 0)
		log_warnx("NSM-E503 out of memory for static LIDs");
	sm_set_lid_reclaim_age(l->sm, next->sm.lid_reclaim_age);
	monitor_apply(l->sm, np);
	monitor_http(&l->http, l->ev, np, loop_http_metrics, l);
	if (next->sweep_interval != l->opts->sweep_interval && !next->once) {
		l->sweep_timer.repeat = next->sweep_interval;
		ev_timer_again(l->ev, &l->sweep_timer);
	}
	log_init(next->verbosity, "nanosm");
	/* guid2lid keeps pointing at the policy it was read from: it changes
	 * at the next restart, so the first policy is never freed */
	next->sm.guid2lid = l->opts->sm.guid2lid;
	*l->opts = *next;
	if (next->sm.engine == next->engines) /* it pointed into the local copy */
		l->opts->sm.engine = l->opts->engines;
	if (l->reloaded) {
		policy_fini(l->reloaded);
		free(l->reloaded);
	}
	l->reloaded = np;
}

/* Re-read the policy into a fresh struct, judge it (reload_judge: an
 * empty file needs force, static LIDs must be free), check the new routing
 * against the last good fabric with the gate, and only then put it in
 * force.  On any failure the old policy and tables stay.  Returns 0 with
 * msg set to the answer ("reloaded FILE (routing X)" and the notes, also
 * logged, via saying who asked), or -errno with msg set to the error. */
/* Do engines/roots route as the ones in force?  (Then nothing to judge.) */
static int loop_routing_same(const struct loop_opts *a, const struct loop_opts *b)
{
	return !strcmp(a->sm.engine ? a->sm.engine : "", b->sm.engine ? b->sm.engine : "") &&
	       a->sm.n_roots == b->sm.n_roots &&
	       (!a->sm.n_roots ||
		!memcmp(a->sm.roots, b->sm.roots, a->sm.n_roots * sizeof(*a->sm.roots)));
}

/* Judge the new routing (unless it is the same): it must pass the gate,
 * and, unless forced, not score much worse than the routing in force.
 * Then put it in force.  0, or -errno with msg set to why not. */
static int loop_reload_routing(struct loop *l, const struct loop_opts *next, int force,
			       struct sm_routing_verdict *v, char *msg, size_t msglen)
{
	int rc;

	memset(v, 0, sizeof(*v));
	if (loop_routing_same(l->opts, next))
		return 0;
	rc = sm_routing_check(l->sm, next->sm.engine, next->sm.roots, next->sm.n_roots, NULL, v);
	if (rc == -EINVAL || rc == -ENOMEM) {
		snprintf(msg, msglen, "the new routing fails the gate: %s",
			 rc == -ENOMEM ? "out of memory" : v->why);
		return rc;
	}
	if (rc == 0 && v->worse && !force) {
		sm_plan_worse(v, msg, msglen);
		return -EINVAL;
	}
	/* judged (or nothing swept yet: the next sweep's gate decides) */
	return sm_set_routing(l->sm, next->sm.engine, next->sm.roots, next->sm.n_roots, 1, msg,
			      msglen);
}

/* "(routing LIST: ENGINE wins, ...; EBB a -> b, ...)" for the answer. */
static void loop_reload_routing_say(const struct loop_opts *o, const struct sm_routing_verdict *v,
				    int force, struct text_buf *b)
{
	char scores[160];

	if (!v->engine[0]) {
		text_buf_printf(b, "(routing %s%s)", o->sm.engine,
				v->why[0] ? "; not judged: " : ", unchanged");
		if (v->why[0])
			text_buf_printf(b, "%s", v->why);
		return;
	}
	sm_routing_scores_str(v, scores, sizeof(scores));
	text_buf_printf(b, "(routing %s: engine %s wins%s%s; %s%s)", o->sm.engine, v->engine,
			v->why[0] ? " after " : "", v->why, scores,
			v->worse && force ? "; much worse, applied because forced" : "");
}

static int loop_reload(struct loop *l, int force, const char *via, char *msg, size_t msglen)
{
	struct policy *np = malloc(sizeof(*np));
	struct loop_opts next = *l->opts;
	struct reload_notes notes;
	struct sm_routing_verdict v;
	struct text_buf b;
	char why[768];
	int rc;

	if (!l->opts->policy_path) {
		snprintf(msg, msglen, "no policy file (start nanosm with -f FILE)");
		free(np);
		return -ENOENT;
	}
	if (!np || (rc = policy_load(l->opts->policy_path, np, why, sizeof(why))) < 0) {
		snprintf(msg, msglen, "%s", np ? why : "out of memory");
		free(np);
		return -EINVAL;
	}
	rc = reload_judge(l->sm, loop_policy(l), np, l->opts->policy_path, force, &notes, msg,
			  msglen);
	opts_apply_policy(&next, np);
	if (rc == 0)
		rc = loop_reload_routing(l, &next, force, &v, msg, msglen);
	if (rc < 0) {
		policy_fini(np);
		free(np);
		return rc;
	}
	loop_reload_apply(l, np, &next);
	text_buf_init(&b);
	text_buf_printf(&b, "reloaded %s ", l->opts->policy_path);
	loop_reload_routing_say(l->opts, &v, force, &b);
	log_info("%s%s", b.s ? b.s : "reloaded", via);
	loop_reload_log(l, &notes);
	text_buf_printf(&b, "\n");
	reload_notes_print(&notes, &b);
	snprintf(msg, msglen, "%s", b.s ? b.s : "reloaded");
	text_buf_fini(&b);
	return 0;
}

static void loop_on_hup(struct loop *l)
{
	char msg[LOOP_RELOAD_MSG];

	if (!l->opts->policy_path) {
		log_info("SIGHUP: heavy sweep requested");
	} else if (loop_ops_reload(l, 0, "", msg, sizeof(msg)) < 0) {
		log_warnx(
		    "NSM-E600 reload of %s refused: %s; the old policy and tables stay in force",
		    l->opts->policy_path, msg);
		return;
	}
	loop_request_sweep(l);
}

static void loop_on_signal(struct ev_loop *ev, ev_signal *w, int revents)
{
	struct loop *l = w->data;

	(void)revents;
	if (w->signum == SIGHUP) {
		loop_on_hup(l);
		return;
	}
	if (w->signum == SIGUSR1) {
		if (log_reopen() == 0 && log_file_path())
			log_info("SIGUSR1: reopened the log file %s", log_file_path());
		return;
	}
	log_info("signal %d: stopping", w->signum);
	ev_break(ev, EVBREAK_ALL);
}

/* SUBNET UP once per mastership: at the first complete sweep, or, when
 * sweeps keep leaving work undone, at the SM_DEGRADED_AFTER-th in a row
 * (degraded; "complete" follows when a later sweep is).  Until then an
 * incomplete sweep says it is retried. */
static void loop_print_up(struct loop *l, const struct sm_sweep_stats *st)
{
	enum sm_subnet up = sm_subnet_state(st);

	if (up == SM_SUBNET_NO) {
		if (!st->status && st->incomplete_run && !l->subnet_up)
			log_warnx(
			    "NSM-W231 sweep %u left work undone (unreachable=%zu set_errors=%zu "
			    "lid_failures=%zu): subnet not up yet, sweeping again soon",
			    st->number, st->unreachable, st->set_errors, st->lid_failures);
		return;
	}
	if (up == SM_SUBNET_COMPLETE && l->subnet_up == SM_SUBNET_DEGRADED) {
		log_info("subnet complete: sweep %u reached every node and every Set took",
			 st->number);
		return;
	}
	if (l->subnet_up)
		return;
	log_info("SUBNET UP: switches=%zu cas=%zu ports=%zu lids=%zu mads_sent=%" PRIu64
		 " sweep_ms=%" PRIu64 " engine=%s vls=%u sm_lid=%u%s",
		 st->switches, st->cas, st->ports, st->lids, st->mads_sent, st->sweep_ms,
		 st->engine, st->vls ? st->vls : 1, sm_lid(l->sm),
		 up == SM_SUBNET_DEGRADED ? " degraded=1" : "");
	if (up == SM_SUBNET_DEGRADED)
		log_warnx("NSM-W232 subnet up but degraded after %u incomplete sweeps: "
			  "unreachable=%zu set_errors=%zu lid_failures=%zu quarantined=%zu "
			  "(nanosmctl status lists them); the rest is programmed",
			  st->incomplete_run, st->unreachable, st->set_errors, st->lid_failures,
			  st->quarantined);
}

static void loop_print(struct loop *l, const struct sm_sweep_stats *st)
{
	uint64_t mguid;
	uint16_t mlid;

	if (st->sm_state == SM_STATE_STANDBY) {
		if (sm_master(l->sm, &mguid, &mlid) == 0)
			log_info("sweep %u: STANDBY under SM 0x%016" PRIx64 " (LID %u); "
				 "nothing programmed, polling it every sweep interval",
				 st->number, mguid, mlid);
		l->subnet_up = 0; /* SUBNET UP again once we take over */
		return;
	}
	log_info("sweep %u: %s switches=%zu cas=%zu ports=%zu lids=%zu unreachable=%zu "
		 "lid_failures=%zu port_sets=%zu state_sets=%zu switchinfo_sets=%zu "
		 "lft_blocks_sent=%zu lft_blocks_read=%zu sl2vl_sets=%zu sl2vl_reads=%zu "
		 "pkey_blocks_sent=%zu mft_blocks_sent=%zu set_errors=%zu mads_sent=%" PRIu64
		 " sweep_ms=%" PRIu64 " engine=%s vls=%u",
		 st->number, st->status ? "failed" : "ok", st->switches, st->cas, st->ports,
		 st->lids, st->unreachable, st->lid_failures, st->port_sets, st->state_sets,
		 st->switchinfo_sets, st->lft_blocks_sent, st->lft_blocks_read, st->sl2vl_sets,
		 st->sl2vl_reads, st->pkey_blocks_sent, st->mft_blocks_sent, st->set_errors,
		 st->mads_sent, st->sweep_ms, st->engine, st->vls ? st->vls : 1);
	if (st->stale || st->alt_tries || st->quarantined)
		log_info("sweep %u: stale=%zu alt_tries=%zu alt_ok=%zu quarantined=%zu", st->number,
			 st->stale, st->alt_tries, st->alt_ok, st->quarantined);
	loop_print_up(l, st);
}

static void loop_print_counters(const struct mad_counters *c, struct mad_port *port)
{
	log_info("MAD counters: sent=%" PRIu64 " received=%" PRIu64 " timeouts=%" PRIu64
		 " retries=%" PRIu64 " unmatched=%" PRIu64 " malformed=%" PRIu64
		 " requests=%" PRIu64 " send_errors=%" PRIu64 " sent_by_loop=%" PRIu64,
		 c->sent, c->received, c->timeouts, c->retries, c->unmatched, c->malformed,
		 c->requests, c->send_errors, mad_port_tx_direct(port));
}

/* What a SUBNET UP brought up, for nanosm-verify to compare with later
 * (sm/daemon/topo_save.h).  A file that cannot be written is logged; the SM runs
 * on. */
static void loop_save_topology(struct loop *l, const struct sm_sweep_stats *st)
{
	char *path = topo_save_path(l->opts->topology, l->opts->sm.guid2lid);
	const struct fabric *f = sm_fabric(l->sm);
	char note[160], when[40] = "", err[512];
	time_t now = time(NULL);
	struct tm tm;

	if (!path)
		return;
	if (localtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S%z", &tm);
	snprintf(note, sizeof(note), "nanosm: the subnet brought up at sweep %u (%s), %s",
		 st->number, sm_subnet_state(st) == SM_SUBNET_DEGRADED ? "degraded" : "complete",
		 when);
	if (topo_save(path, f, loop_ctl_names(l), note, err, sizeof(err)) < 0)
		log_warnx("NSM-E304 the topology for nanosm-verify could not be saved: %s", err);
	else
		log_info("topology of sweep %u (%zu nodes) written to %s", st->number, f->n_nodes,
			 path);
	free(path);
}

static void loop_on_sweep_done(void *arg, const struct sm_sweep_stats *st)
{
	struct loop *l = arg;

	loop_print(l, st);
	loop_ops_sweep_done(l, st);
	l->last = *st;
	l->last_end_ms = loop_now_ms(NULL);
	if (st->status == 0 && st->sm_state == SM_STATE_MASTER) {
		enum sm_subnet up = sm_subnet_state(st);

		if (up > (enum sm_subnet)l->subnet_up) {
			l->subnet_up = (int)up;
			loop_save_topology(l, st);
		}
		l->last_good = *st;
	}
	/* --once: the first SUBNET UP (complete or degraded) or a failed
	 * sweep ends it; an incomplete sweep is retried first */
	if (l->opts->once && !st->status && st->sm_state == SM_STATE_MASTER && !l->subnet_up)
		return;
	if (l->opts->once) {
		l->exit_code = st->status ? 1 : l->subnet_up == SM_SUBNET_DEGRADED ? 3 : 0;
		ev_break(l->ev, EVBREAK_ALL);
	}
}

static void loop_notify(void *arg)
{
	struct loop *l = arg;

	ev_async_send(l->ev, &l->rx);
}

/* ---- operations: sd_notify, metrics figures ------------------------- */

/* After each heavy sweep: count it; READY=1 at the first good one as
 * master (SUBNET UP) or the first that leaves us standby under another
 * master (running as it should: systemd must not wait for a SUBNET UP
 * that is not ours to give), a short STATUS= after every other. */
static void loop_ops_sweep_done(struct loop *l, const struct sm_sweep_stats *st)
{
	char status[160];
	int up = sm_subnet_state(st) != SM_SUBNET_NO ||
		 (st->status == 0 && st->sm_state == SM_STATE_STANDBY);

	l->heavy_sweeps++;
	l->failed_sweeps += st->status != 0;
	l->lft_blocks_total += st->lft_blocks_sent;
	notify_status_sweep(st, up ? st->number : l->last_good.number, status, sizeof(status));
	notify_send(&l->notify, up && !l->notify.ready ? NOTIFY_READY : NOTIFY_STATUS, status);
}

/* A policy reload between RELOADING=1 and READY=1 (READY only once the
 * first SUBNET UP has said it). */
int loop_ops_reload(struct loop *l, int force, const char *via, char *msg, size_t msglen)
{
	int ready = l->notify.ready;
	int rc;

	notify_send(&l->notify, NOTIFY_RELOADING, "reloading the policy");
	rc = loop_reload(l, force, via, msg, msglen);
	notify_send(&l->notify, ready ? NOTIFY_READY : NOTIFY_STATUS,
		    rc < 0 ? "policy reload refused; the old policy stays" : "policy reloaded");
	return rc;
}

/* The metrics text for the HTTP listener (malloc'ed). */
char *loop_http_metrics(void *ctx, size_t *len)
{
	struct metrics_figures m = {0};
	char *text;

	loop_ctl_metrics(ctx, &m);
	*len = metrics_render(&m, NULL, 0);
	text = malloc(*len + 1);
	if (text)
		metrics_render(&m, text, *len + 1);
	return text;
}

static void loop_watchers_start(struct loop *l)
{
	ev_async_init(&l->rx, loop_on_rx);
	ev_timer_init(&l->mad_timer, loop_on_mad_timer, 0.0, 0.0);
	ev_timer_init(&l->sweep_timer, loop_on_sweep_timer, l->opts->sweep_interval,
		      l->opts->sweep_interval);
	ev_idle_init(&l->sweep_idle, loop_on_sweep_idle);
	ev_idle_init(&l->rx_direct, loop_on_rx_direct);
	/* an idle watcher runs only when nothing of its priority or higher is
	 * pending: at the top, no busy timer can keep the answers unread */
	ev_set_priority(&l->rx_direct, EV_MAXPRI);
	ev_signal_init(&l->sig_term, loop_on_signal, SIGTERM);
	ev_signal_init(&l->sig_int, loop_on_signal, SIGINT);
	ev_signal_init(&l->sig_hup, loop_on_signal, SIGHUP);
	ev_signal_init(&l->sig_usr1, loop_on_signal, SIGUSR1);
	l->sig_usr1.data = l;
	l->rx.data = l->mad_timer.data = l->sweep_timer.data = l->sweep_idle.data =
	    l->rx_direct.data = l;
	l->sig_term.data = l->sig_int.data = l->sig_hup.data = l;
	ev_async_start(l->ev, &l->rx);
}

/* Signals are taken over only once the port is open, so a signal during a
 * slow start-up still ends the process the default way. */
static void loop_signals_start(struct loop *l)
{
	ev_signal_start(l->ev, &l->sig_term);
	ev_signal_start(l->ev, &l->sig_int);
	ev_signal_start(l->ev, &l->sig_hup);
	ev_signal_start(l->ev, &l->sig_usr1);
}

/* The policy's node names, partitions and SA limits, handed to the SM (it
 * copies them). */
static void loop_names(struct loop *l, const struct policy *p)
{
	struct sa_limits lim;
	uint64_t *g = p && p->n_node_names ? calloc(p->n_node_names, sizeof(*g)) : NULL;
	const char **n = g ? calloc(p->n_node_names, sizeof(*n)) : NULL;

	for (size_t i = 0; n && i < p->n_node_names; i++) {
		g[i] = p->node_names[i].guid;
		n[i] = p->node_names[i].name;
	}
	if (sm_set_names(l->sm, g, n, n ? p->n_node_names : 0) < 0)
		log_warnx("NSM-E503 out of memory for node names");
	free(g);
	free(n);
	if (sm_set_partitions(l->sm, p ? p->partitions : NULL, p ? p->n_partitions : 0) < 0)
		log_warnx("NSM-E503 out of memory for partitions");
	opts_sa_limits(p, &lim);
	sm_set_sa_limits(l->sm, &lim);
}

/* Under umad2sim the window is what ibsim's socket can take without the
 * loop's writes blocking (mad_port_room): every SMP then goes out from the
 * loop itself, none through the sender thread (issue 18: two thread
 * wake-ups fewer per SMP).  On a kernel umad device nothing changes. */
static void loop_window_fit(struct loop *l, struct sm_opts *so)
{
	unsigned room = mad_port_room(l->port);

	if (!room || so->mad.window <= room)
		return;
	log_info("SMP window %u -> %u: ibsim's socket takes at most %u of our datagrams unread "
		 "(net.unix.max_dgram_qlen %u); raise it for a larger window",
		 so->mad.window, room, room + 2, room + 2);
	so->mad.window = room;
}

/* Static LIDs from the policy are reserved before guid2lid is read. */
static void loop_static_lids(struct loop *l)
{
	const struct policy *p = l->opts->policy;

	for (size_t i = 0; p && i < p->lids.n_statics; i++) {
		const struct policy_static_lid *st = &p->lids.statics[i];

		if (sm_reserve_lid(l->sm, st->guid, st->lid) < 0)
			log_warnx("NSM-W602 static LID 0x%04x for port 0x%016" PRIx64
				  " not reserved (taken or out of range)",
				  st->lid, st->guid);
	}
}

static int loop_open(struct loop *l)
{
	char err[256];
	const struct mad_port_info *pi;
	struct mad_xmit xmit;
	struct sm_clock clock = {.now_ms = loop_now_ms, .wall_s = loop_wall_s};
	struct sm_opts so = l->opts->sm;

	if (l->opts->ibsim && (l->opts->ca || l->opts->port || l->opts->port_guid))
		log_info("--ibsim: the policy's sm.ca, sm.port and sm.guid do not apply (ibsim "
			 "attaches to a node)");
	if (l->opts->ibsim)
		l->port =
		    mad_port_open_ibsim(l->opts->ibsim_node, loop_notify, l, err, sizeof(err));
	else
		l->port = mad_port_open(l->opts->ca, l->opts->port, l->opts->port_guid, loop_notify,
					l, err, sizeof(err));
	if (!l->port) {
		log_warnx("NSM-E501 %s", err);
		return -1;
	}
	pi = mad_port_info(l->port);
	log_info("SM port %s/%d GUID 0x%016" PRIx64 "%s", pi->ca, pi->port, pi->port_guid,
		 pi->is_sm ? " (IsSM set)" : " (issm not available: IsSM not advertised)");
	so.port_guid = pi->port_guid;
	mad_port_set_timeout(l->port, so.mad.timeout_ms);
	loop_window_fit(l, &so);
	if (l->opts->once)
		(void)mad_port_hold(l->port, 1); /* parks after the first answer */
	xmit = mad_port_xmit(l->port);
	l->sm = sm_new(&so, &xmit, &clock);
	if (!l->sm) {
		log_warnx("NSM-E502 out of memory");
		return -1;
	}
	sm_set_sweep_done(l->sm, loop_on_sweep_done, l);
	loop_static_lids(l);
	loop_names(l, l->opts->policy);
	monitor_apply(l->sm, l->opts->policy);
	sm_load_lids(l->sm);
	return 0;
}

int loop_run(struct loop_opts *opts)
{
	struct loop l;

	memset(&l, 0, sizeof(l));
	l.opts = opts;
	notify_open(&l.notify);
	l.ev = ev_default_loop(EVFLAG_AUTO);
	if (!l.ev) {
		log_warnx("NSM-E503 cannot start the event loop");
		return 1;
	}
	loop_watchers_start(&l);
	if (loop_open(&l) < 0) {
		mad_port_close(l.port);
		return 1;
	}
	loop_signals_start(&l);
	l.started_ms = loop_now_ms(NULL);
	l.ctl_fd = -1;
	if (!opts->once) {
		loop_ctl_start(&l);
		monitor_http(&l.http, l.ev, opts->policy, loop_http_metrics, &l);
	}
	if (!opts->once)
		ev_timer_start(l.ev, &l.sweep_timer);
	loop_request_sweep(&l);
	ev_run(l.ev, 0);
	notify_send(&l.notify, NOTIFY_STOPPING, "stopping");
	loop_ctl_stop(&l);
	free(l.name_v);
	loop_print_counters(sm_mad_counters(l.sm), l.port);
	sm_free(l.sm); /* before the port: pending SMPs complete as canceled */
	if (l.reloaded) {
		policy_fini(l.reloaded);
		free(l.reloaded);
	}
	if (mad_port_close_bounded(l.port) < 0) {
		/* the SIGTERM bound: never wait for a device that does not answer */
		log_warnx("NSM-W473 the MAD port did not close within 300 ms (its device or "
			  "simulator does not answer): exiting without waiting for it");
		fflush(NULL);
		_exit(l.exit_code);
	}
	ev_loop_destroy(l.ev);
	notify_close(&l.notify);
	return l.exit_code;
}
