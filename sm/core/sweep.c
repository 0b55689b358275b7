/*
 * sm/core/sweep.c - the heavy sweep, top down: one table of phases, each
 * started when the one before has ended (its SMPs answered), and what a
 * sweep does when it ends (figures, retry, a pending sweep).  Also the
 * multicast push between sweeps, and the progress of a long sweep.  Owns
 * struct sm_sweep; the phases' SMPs are in discover.c, ha.c, configure.c,
 * lft_push.c, sl2vl_push.c, pkey_push.c and mft_push.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sm/core/configure.h"
#include "sm/core/lft_push.h"
#include "sm/core/log.h"
#include "sm/core/mft_push.h"
#include "sm/core/pkey_push.h"
#include "sm/core/progress.h"
#include "sm/core/sl2vl_push.h"
#include "sm/core/sm_priv.h"
#include "sm/core/topo_diff.h"
#include "sm/sa/mcast.h"
#include "sm/sa/services.h"

static void sweep_discover(struct sm *sm);
static void sweep_check_sms(struct sm *sm);
static void sweep_ports(struct sm *sm);
static void sweep_lfts(struct sm *sm);
static void sweep_sl2vl(struct sm *sm);
static void sweep_pkeys(struct sm *sm);
static void sweep_arm(struct sm *sm);
static void sweep_activate(struct sm *sm);
static void sweep_commit(struct sm *sm);
static void sweep_mfts(struct sm *sm);

/* DOC: a heavy sweep is these phases in this order.  Each run() queues
 * its SMPs and names sweep_next as the continuation, which runs once they
 * have all completed; a phase that fails calls sm_sweep_fail instead and
 * the sweep ends there (the last good state stays).  ha.c's check may end
 * the sweep in STANDBY after the second phase. */
static const struct sweep_phase {
	const char *name;
	enum progress_phase progress; /* what the progress line says */
	void (*run)(struct sm *sm);
} sweep_phases[] = {
    {"discover: NodeInfo, PortInfo, SwitchInfo by directed route", PROGRESS_DISCOVER,
     sweep_discover},
    {"other SMs: SMInfo, master or standby", PROGRESS_DISCOVER, sweep_check_sms},
    {"LIDs, partition plan, PortInfo Sets", PROGRESS_PORTS, sweep_ports},
    {"routing, gate, LFT blocks that differ", PROGRESS_LFTS, sweep_lfts},
    {"SLtoVL tables that differ (only when the routes use VLs)", PROGRESS_LFTS, sweep_sl2vl},
    {"P_Key tables that differ", PROGRESS_PKEYS, sweep_pkeys},
    {"ports INIT -> ARMED", PROGRESS_ARM, sweep_arm},
    {"ports ARMED -> ACTIVE", PROGRESS_ACTIVATE, sweep_activate},
    {"commit the model, hand it to the SA", PROGRESS_OTHER, sweep_commit},
    {"multicast trees: MFT blocks that differ", PROGRESS_MFTS, sweep_mfts},
};

#define SWEEP_PHASES (sizeof(sweep_phases) / sizeof(sweep_phases[0]))

int sm_sweep_request(struct sm *sm)
{
	if (sm->ha.state == SM_STATE_STANDBY || sm->ha.state == SM_STATE_NOT_ACTIVE) {
		log_debug("%s: no sweep (another SM programs the subnet)",
			  smp_sm_state_name(sm->ha.state));
		return -EPERM;
	}
	if (sm->running) {
		sm->sweep.pending = 1;
		return -EBUSY;
	}
	memset(&sm->st, 0, sizeof(sm->st));
	sm->running = 1;
	sm->st.number = ++sm->sweep.count;
	sm->sweep.start_ms = sm_now(sm);
	sm->sweep.mads_at_start = mad_queue_counters(sm->q)->sent;
	fabric_fini(&sm->next);
	fabric_init(&sm->next);
	sm->model = &sm->next;
	sm->sweep.heavy = 1;
	mad_queue_adapt(sm->q, 1);
	sm->sweep.phase = 0;
	log_debug("sweep %u phase 1 of %zu: %s", sm->st.number, SWEEP_PHASES, sweep_phases[0].name);
	sweep_phases[0].run(sm);
	return 0;
}

/* The running phase has ended: the next one, or the end of the sweep. */
static void sweep_next(struct sm *sm)
{
	if (++sm->sweep.phase >= SWEEP_PHASES) {
		sm_sweep_end(sm);
		return;
	}
	log_debug("sweep %u phase %u of %zu: %s (%" PRIu64 " MADs sent so far)", sm->st.number,
		  sm->sweep.phase + 1, SWEEP_PHASES, sweep_phases[sm->sweep.phase].name,
		  mad_queue_counters(sm->q)->sent - sm->sweep.mads_at_start);
	sweep_phases[sm->sweep.phase].run(sm);
}

/* ---- the phases, in the table's order ------------------------------------ */

static void sweep_discover(struct sm *sm)
{
	discover_start(sm, sweep_next);
}

static void sweep_check_sms(struct sm *sm)
{
	if (sm->next.sm_node == FABRIC_NONE) {
		sm_sweep_fail(sm, -EHOSTUNREACH, "the SM's own port did not answer NodeInfo");
		return;
	}
	ha_check_start(sm, sweep_next);
}

/* Partitions: the plan for next (built before the ports are configured,
 * which enforce it on switch ports), then the P_Key tables that differ. */
static int sweep_plan_pkeys(struct sm *sm)
{
	char err[256];

	pkey_warn_sweep(sm, &sm->next);
	if (pkey_plan_build(&sm->pk_next, sm->parts, sm->n_parts, sm->names, sm->n_names, &sm->next,
			    sm->next.sm_node, sm->next.sm_port, err, sizeof(err)) == 0)
		return 0;
	log_warnx("NSM-E421 partitions not programmed this sweep: %s", err);
	pkey_plan_fini(&sm->pk_next);
	return -1;
}

/* Master (or staying master) after the SMInfo check: LIDs, the partition
 * plan (which the ports' configuration enforces on switch ports), then the
 * PortInfo Sets. */
static void sweep_ports(struct sm *sm)
{
	if (configure_lids(sm) < 0) {
		sm_sweep_fail(sm, -ENOMEM, "LID assignment failed");
		return;
	}
	sweep_plan_pkeys(sm);
	configure_ports(sm, sweep_next);
}

static void sweep_lfts(struct sm *sm)
{
	if (lft_push_compute(sm) < 0) {
		sm_sweep_fail(sm, -EINVAL, "routing failed");
		return;
	}
	lft_push_start(sm, sweep_next);
}

/* The VLs the winning tables use: SLtoVL tables on CA ports and switch
 * port pairs (nothing at all with one VL). */
static void sweep_sl2vl(struct sm *sm)
{
	sl2vl_push_start(sm, sm->sl2vlc, sm->st.vls, sweep_next);
}

static void sweep_pkeys(struct sm *sm)
{
	if (!sm->pk_next.n) { /* the plan failed: leave the tables as they are */
		sweep_next(sm);
		return;
	}
	pkey_push_start(sm, &sm->pk_next, sm->pkc, sweep_next);
}

static void sweep_arm(struct sm *sm)
{
	configure_states(sm, PORT_STATE_INIT, PORT_STATE_ARMED, sweep_next);
}

static void sweep_activate(struct sm *sm)
{
	configure_states(sm, PORT_STATE_ARMED, PORT_STATE_ACTIVE, sweep_next);
}

static void sm_count(struct sm *sm, const struct fabric *f)
{
	sm->st.switches = fabric_count_switches(f);
	sm->st.cas = fabric_count_cas(f);
	sm->st.ports = 0;
	sm->st.lids = 0;
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *n = &f->nodes[i];

		for (unsigned p = fabric_is_switch(n) ? 0 : 1; p <= n->num_ports; p++) {
			if (!n->ports[p].present)
				continue;
			sm->st.ports++;
			if ((p == 0 || !fabric_is_switch(n)) && n->ports[p].lid)
				sm->st.lids++;
		}
	}
}

/* Did this sweep change what the SA's path answers depend on? */
static int sm_routes_changed(const struct sm *sm, const struct fabric *old)
{
	const struct sm_sweep_stats *st = &sm->st;

	return st->lft_blocks_sent || st->port_sets || st->state_sets || st->pkey_blocks_sent ||
	       st->sl2vl_sets || sm->sls_changed || old->n_nodes != sm->cur.n_nodes ||
	       st->number == 1;
}

/* Hand the SA the committed model (cur, its LFTs, its partition plan). */
static void sm_update_sa(struct sm *sm)
{
	struct sa_view v = {
	    .f = &sm->cur,
	    .lfts = sm_lfts(sm),
	    .pk = &sm->pk,
	    .mfts = &sm->mft_want,
	    .subnet_prefix = sm->opts.subnet_prefix,
	    .sm_lid = sm->my_lid,
	    .sm_guid = sm->opts.port_guid,
	    .sm_key = sm->opts.sm_key,
	    .sm_priority = sm->opts.priority,
	    .sm_state = SM_STATE_MASTER,
	    .sm_act_count = sm->act_count,
	    .subnet_timeout = sm->opts.subnet_timeout,
	    .route_gen = sm->route_gen,
	};

	if (sa_update(sm->sa, &v) < 0)
		log_warnx("NSM-E800 SA: out of memory building its view; answering no records");
}

/* Does f hold an end port (CA/router port with a LID) like node n port p? */
static int sm_has_end_port(const struct fabric *f, const struct fabric_node *n, unsigned p)
{
	int i = fabric_find(f, n->guid);

	return i != FABRIC_NONE && p <= f->nodes[i].num_ports && f->nodes[i].ports[p].present &&
	       f->nodes[i].ports[p].lid;
}

/* Traps 64/65 to the SA's subscribers: end ports of `to` missing from
 * `from` came into service (64) or, the other way round, left it (65). */
static void sm_port_events(struct sm *sm, const struct fabric *from, const struct fabric *to,
			   int trap)
{
	uint8_t gid[16];

	for (size_t i = 0; i < to->n_nodes; i++) {
		const struct fabric_node *n = &to->nodes[i];

		if (fabric_is_switch(n))
			continue;
		for (unsigned p = 1; p <= n->num_ports; p++) {
			if (!n->ports[p].present || !n->ports[p].lid || sm_has_end_port(from, n, p))
				continue;
			sa_gid_make(sm->opts.subnet_prefix, n->ports[p].guid, gid);
			sa_svc_port_event(sm->sa, gid, trap, sm_now(sm));
		}
	}
}

static void sm_commit_pkeys(struct sm *sm)
{
	struct pkey_plan t = sm->pk;

	sm->pk = sm->pk_next;
	sm->pk_next = t;
	pkey_plan_fini(&sm->pk_next);
}

#define SM_CHANGES_SAID 20 /* changes logged one per line after a sweep */

/* The first SM_CHANGES_SAID changes of one topo_diff pass (the nodes are
 * borrowed from the two models, which outlive the report). */
struct sm_change {
	enum topo_change what;
	const struct fabric_node *a, *b;
	unsigned pa, pb;
};

struct sm_changes {
	struct sm_change c[SM_CHANGES_SAID];
	unsigned n;
};

static void sm_change_keep(void *arg, enum topo_change what, const struct fabric_node *a,
			   unsigned pa, const struct fabric_node *b, unsigned pb)
{
	struct sm_changes *ch = arg;

	if (ch->n < SM_CHANGES_SAID)
		ch->c[ch->n] = (struct sm_change){what, a, b, pa, pb};
	ch->n++;
}

/* What this sweep changed against the last good model (after the first):
 * one summary line, then one line per node or cable (at most 20). */
static void sm_report_changes(const struct fabric *was, const struct fabric *now, unsigned sweep)
{
	static const char *const verb[] = {"node new", "node gone", "cable up", "cable down"};
	struct topo_diff_counts c;
	struct sm_changes ch = {.n = 0};

	if (!was->n_nodes)
		return;
	topo_diff(was, now, sm_change_keep, &ch, &c);
	if (!ch.n)
		return;
	log_info("sweep %u changed the subnet: %zu nodes new, %zu gone, %zu cables up, %zu down",
		 sweep, c.nodes_new, c.nodes_gone, c.links_up, c.links_down);
	for (unsigned i = 0; i < ch.n && i < SM_CHANGES_SAID; i++) {
		const struct fabric_node *a = ch.c[i].a, *b = ch.c[i].b;

		if (!b)
			log_info("  %s: 0x%016llx (%s)", verb[ch.c[i].what],
				 (unsigned long long)a->guid, a->desc);
		else
			log_info("  %s: 0x%016llx (%s) port %u - 0x%016llx (%s) port %u",
				 verb[ch.c[i].what], (unsigned long long)a->guid, a->desc,
				 ch.c[i].pa, (unsigned long long)b->guid, b->desc, ch.c[i].pb);
	}
	if (ch.n > SM_CHANGES_SAID)
		log_info("  ... and %u more", ch.n - SM_CHANGES_SAID);
}

/* Every port is ACTIVE: next becomes the last good model, the SA answers
 * from it, subscribers hear of ports that came and went. */
static void sweep_commit(struct sm *sm)
{
	struct fabric old = sm->cur;

	sm->cur = sm->next;
	sm->next = old;
	sm->model = &sm->cur;
	/* the tables go with the model: the SA's view points at lfts_cur,
	 * which changes only here, never while a sweep routes next */
	lft_set_fini(&sm->lfts_cur);
	sm->lfts_cur = sm->lfts;
	lft_set_init(&sm->lfts);
	lft_routed_commit(sm);
	sm->lfts_ahead = 0;
	if (sm_routes_changed(sm, &sm->next))
		sm->route_gen++;
	sm_commit_pkeys(sm);
	sm_count(sm, &sm->cur);
	sm->st.status = 0;
	sm_update_sa(sm);
	mcast_policy_fit_check(sm);
	sm_report_changes(&sm->next, &sm->cur, sm->st.number);
	sm_port_events(sm, &sm->next, &sm->cur, 64);
	sm_port_events(sm, &sm->cur, &sm->next, 65);
	fabric_fini(&sm->next);
	fabric_init(&sm->next);
	sweep_next(sm);
}

/* ---- multicast: MFTs follow the SA's groups -------------------------- */

static void sweep_after_mfts(struct sm *sm);

/* Compute the trees of every group on cur and push the blocks that
 * differ; the last phase of each sweep, and a push of its own whenever a
 * join or leave changed the groups between sweeps. */
static void sweep_push_mfts(struct sm *sm)
{
	struct mcast_db *db = sm->sa->mcast;

	sm->sweep.mcast_gen = mcast_db_gen(db);
	if (mcast_mft_compute(sm->sa, &sm->mft_want) < 0) {
		log_errx("NSM-E432 multicast trees not computed (out of memory); MFTs unchanged");
		sweep_after_mfts(sm);
		return;
	}
	mft_push_start(sm, &sm->cur, &sm->mft_want, sm->mftc, sweep_after_mfts);
}

static void sweep_mfts(struct sm *sm)
{
	sweep_push_mfts(sm);
}

static void sweep_after_mfts(struct sm *sm)
{
	if (mcast_db_gen(sm->sa->mcast) != sm->sweep.mcast_gen) {
		sweep_push_mfts(sm); /* groups changed while we pushed */
		return;
	}
	if (!sm->sweep.mcast_only) {
		sweep_next(sm);
		return;
	}
	log_info("multicast: %zu MFT blocks pushed after group changes",
		 sm->st.mft_blocks_sent - sm->sweep.mft_blocks_at);
	sm->sweep.mcast_only = 0;
	sm_activity_end(sm);
}

/* A join or leave between sweeps: push now (a sweep in progress pushes
 * at its end anyway). */
void sweep_mcast_check(struct sm *sm)
{
	if (sm->running || !sm_lfts(sm) || mcast_db_gen(sm->sa->mcast) == sm->sweep.mcast_gen)
		return;
	sm->running = 1;
	sm->sweep.mcast_only = 1;
	sm->sweep.mft_blocks_at = sm->st.mft_blocks_sent;
	sweep_push_mfts(sm);
}

/* ---- the end of a sweep --------------------------------------------------- */

enum sm_subnet sm_subnet_state(const struct sm_sweep_stats *st)
{
	if (st->status || st->sm_state != SM_STATE_MASTER)
		return SM_SUBNET_NO;
	if (!st->incomplete_run)
		return SM_SUBNET_COMPLETE;
	return st->incomplete_run >= SM_DEGRADED_AFTER ? SM_SUBNET_DEGRADED : SM_SUBNET_NO;
}

/* The sweep's misses against the earlier ones: what is quarantined now
 * (logged once, by GUID and route) and what answers again. */
static void sm_quar_end(struct sm *sm)
{
	struct quar_entry fresh[8], gone[8];
	size_t nf, ng;
	char buf[200];

	quar_sweep_end(&sm->quar, sm->st.number, fresh, 8, &nf, gone, 8, &ng);
	for (size_t i = 0; i < nf; i++)
		log_warnx(
		    "NSM-W230 quarantined: %s of 0x%016llx port %u via %s failed in %u "
		    "sweeps in a row; no other routes are tried for it, it is asked again "
		    "every sweep",
		    smp_attr_name(fresh[i].attr), (unsigned long long)fresh[i].guid, fresh[i].port,
		    smp_path_str(fresh[i].path, fresh[i].hops, buf, sizeof(buf)), fresh[i].misses);
	for (size_t i = 0; i < ng; i++)
		log_info("quarantine over: %s of 0x%016llx port %u answers again",
			 smp_attr_name(gone[i].attr), (unsigned long long)gone[i].guid,
			 gone[i].port);
	sm->st.quarantined = quar_count(&sm->quar);
}

void sm_activity_end(struct sm *sm)
{
	sm->running = 0;
	sa_backlog_release(sm, 0);
	if (sm->sweep.pending && !sm->running) {
		sm->sweep.pending = 0;
		sm_sweep_request(sm);
	}
}

void sm_sweep_end(struct sm *sm)
{
	sm->model = &sm->cur;
	sm->sweep.heavy = 0;
	mad_queue_adapt(sm->q, 0);
	sm_quar_end(sm);
	sm->st.sm_state = sm->ha.state;
	sm->st.mads_sent = mad_queue_counters(sm->q)->sent - sm->sweep.mads_at_start;
	sm->st.sweep_ms = sm_now(sm) - sm->sweep.start_ms;
	if (!sm->st.engine)
		sm->st.engine = "none";
	sm_warn_groups_flush(sm);
	sm->running = 0; /* before the done hook, which may ask for a sweep */
	/* a sweep that failed or left work undone (nodes that did not
	 * answer, Sets that failed, ports without a LID) is followed by a
	 * heavy sweep at the next interval, not a light one: a light sweep
	 * would see no change and leave the fabric half programmed */
	sm->sweep.heavy_due =
	    sm->st.status || sm->st.unreachable || sm->st.set_errors || sm->st.lid_failures;
	sm->sweep.incomplete_run = sm->sweep.heavy_due ? sm->sweep.incomplete_run + 1 : 0;
	sm->st.incomplete_run = sm->sweep.incomplete_run;
	/* and soon: 0.5 s, doubling per sweep that is still incomplete, at
	 * most SM_RETRY_MAX_MS (a node that never answers is retried at that
	 * pace without holding anything else up) */
	if (!sm->sweep.heavy_due) {
		sm->sweep.retry_ms = 0;
		sm->sweep.retry_due_ms = 0;
	} else {
		sm->sweep.retry_ms =
		    sm->sweep.retry_ms ? sm->sweep.retry_ms * 2 : SM_RETRY_FIRST_MS;
		if (sm->sweep.retry_ms > SM_RETRY_MAX_MS)
			sm->sweep.retry_ms = SM_RETRY_MAX_MS;
		sm->sweep.retry_due_ms = sm_now(sm) + sm->sweep.retry_ms;
	}
	if (sm->done_fn)
		sm->done_fn(sm->done_arg, &sm->st);
	sm_activity_end(sm);
}

void sm_sweep_fail(struct sm *sm, int status, const char *why)
{
	log_warnx("NSM-E100 sweep %u failed: %s; keeping the last good state", sm->st.number, why);
	sm->st.status = status;
	sm_count(sm, &sm->next);
	sm_sweep_end(sm);
}

/* ---- progress of a long sweep (progress.c says when and what) ------------ */

/* The snapshot; the port count (a walk over every node) only if ports. */
static void sm_progress_fill(const struct sm *sm, struct progress_snap *s, int ports)
{
	uint64_t now = sm_now(sm);

	memset(s, 0, sizeof(*s));
	s->running = sm->sweep.heavy;
	if (!s->running)
		return;
	s->sweep = sm->st.number;
	s->phase = sm->sweep.phase < SWEEP_PHASES ? sweep_phases[sm->sweep.phase].progress
						  : PROGRESS_OTHER;
	s->elapsed_ms = now > sm->sweep.start_ms ? now - sm->sweep.start_ms : 0;
	s->nodes = sm->next.n_nodes;
	for (size_t i = 0; ports && i < sm->next.n_nodes; i++)
		s->ports += sm->next.nodes[i].num_ports;
	s->mads = mad_queue_counters(sm->q)->sent - sm->sweep.mads_at_start;
	s->outstanding = sm->calls.pending;
	s->lft_blocks = sm->st.lft_blocks_sent;
	s->state_sets = sm->st.state_sets;
	s->port_sets = sm->st.port_sets;
}

void sm_progress_snap(const struct sm *sm, struct progress_snap *s)
{
	sm_progress_fill(sm, s, 1);
}

void sm_progress_tick(struct sm *sm)
{
	struct progress_snap s;
	char line[256];

	if (!sm->sweep.prog) {
		sm->sweep.prog = calloc(1, sizeof(*sm->sweep.prog));
		if (!sm->sweep.prog)
			return;
		sm->sweep.prog->every_ms = PROGRESS_EVERY_MS;
	}
	sm_progress_fill(sm, &s, 0); /* called after every MAD batch: stay cheap */
	if (!progress_due(sm->sweep.prog, &s))
		return;
	sm_progress_fill(sm, &s, 1);
	progress_format(&s, line, sizeof(line));
	log_info("%s", line);
}
