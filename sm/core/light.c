/*
 * sm/core/light.c - light sweeps and traps: between heavy sweeps, one
 * SwitchInfo Get per switch (and, with an M_Key lease, a PortInfo Get per
 * CA port) says whether anything changed; a trap asks for a sweep, its
 * repeats within a second only for one after it.  Owns struct sm_light;
 * asks for heavy sweeps through sm_sweep_request.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sm/core/log.h"
#include "sm/core/sm_priv.h"

/* The slot of (lid, trap): the one that holds it, else the stalest. */
static struct sm_trap_seen *sm_trap_slot(struct sm *sm, uint16_t lid, uint16_t trap)
{
	struct sm_trap_seen *old = &sm->light.traps[0];

	for (size_t i = 0; i < SM_TRAP_SLOTS; i++) {
		struct sm_trap_seen *t = &sm->light.traps[i];

		if (t->used && t->lid == lid && t->trap == trap)
			return t;
		if (!t->used || (old->used && t->last_ms < old->last_ms))
			old = t;
	}
	*old = (struct sm_trap_seen){.lid = lid, .trap = trap};
	return old;
}

/* Every trap is repressed (the sender stops repeating it); the same trap
 * from the same LID within SM_TRAP_QUIET_MS asks for no new sweep and is
 * not logged again, so a babbling port cannot keep the SM sweeping. */
void sm_light_on_trap(struct sm *sm, const struct mad_addr *from, const struct smp *req)
{
	struct smp repress = *req;
	/* Notice (IBA 13.4.8.2): IsGeneric|Type, ProducerType (3 bytes),
	 * then TrapNumber at bytes 4-5 */
	uint16_t trap = (uint16_t)(req->data[4] << 8 | req->data[5]);
	struct sm_trap_seen *t = sm_trap_slot(sm, from->lid, trap);
	uint64_t now = sm_now(sm);

	repress.method = SMP_METHOD_TRAP_REPRESS;
	if (mad_queue_send_oneway(sm->q, from, &repress) < 0)
		log_warnx("NSM-W121 cannot repress trap from LID %u", from->lid);
	if (t->used && now >= t->last_ms && now - t->last_ms < SM_TRAP_QUIET_MS) {
		/* news may hide in a repeat (a second link of the same switch):
		 * one sweep when the quiet time is over covers it */
		t->suppressed++;
		sm->light.st.traps_suppressed++;
		if (!sm->light.trap_due_ms)
			sm->light.trap_due_ms = t->last_ms + SM_TRAP_QUIET_MS;
		return;
	}
	t->used = 1;
	t->last_ms = now;
	if (sm->light.hold_due_ms) {
		/* the sweep of an earlier trap has not started: this one joins it */
		sm->light.held++;
		sm->light.st.traps_coalesced++;
		log_info("trap %u from LID %u: joins the sweep already due", trap, from->lid);
		t->suppressed = 0;
		return;
	}
	if (t->suppressed)
		log_info("trap %u from LID %u: sweep in %d ms (%" PRIu64
			 " repeats in the last second were repressed only)",
			 trap, from->lid, SM_TRAP_HOLD_MS, t->suppressed);
	else
		log_info("trap %u from LID %u: sweep in %d ms", trap, from->lid, SM_TRAP_HOLD_MS);
	t->suppressed = 0;
	sm->light.hold_due_ms = now + SM_TRAP_HOLD_MS;
	sm->light.held = 1;
}

void sm_light_hold_tick(struct sm *sm, uint64_t now, uint64_t *next)
{
	if (!sm->light.hold_due_ms)
		return;
	if (now < sm->light.hold_due_ms) {
		if (!*next || sm->light.hold_due_ms < *next)
			*next = sm->light.hold_due_ms;
		return;
	}
	sm->light.hold_due_ms = 0;
	if (sm->light.held > 1)
		log_info("%u traps: one sweep", sm->light.held);
	sm->light.held = 0;
	sm_sweep_request(sm);
}

void sm_light_changed(struct sm *sm, const char *why)
{
	if (!sm->light.changed)
		snprintf(sm->light.why, sizeof(sm->light.why), "%s", why);
	sm->light.changed = 1;
}

static void sm_light_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct sm *sm = r->sm;
	const struct fabric_node *n = &sm->cur.nodes[r->node];
	struct smp_switch_info si;
	char why[160];

	if (status < 0) {
		snprintf(why, sizeof(why), "switch 0x%016llx (%s) did not answer SwitchInfo",
			 (unsigned long long)n->guid, n->desc);
		sm_light_changed(sm, why);
		return;
	}
	smp_switch_info_decode(resp->data, &si);
	if (!si.port_state_change)
		return;
	snprintf(why, sizeof(why), "switch 0x%016llx (%s) reports a port state change",
		 (unsigned long long)n->guid, n->desc);
	sm_light_changed(sm, why);
}

/* A CA port read by the light sweep (M_Key lease refresh): a port that
 * is silent, left ACTIVE or changed its LID or IsSM bit is a change. */
static void sm_light_ca_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct sm *sm = r->sm;
	const struct fabric_node *n = &sm->cur.nodes[r->node];
	struct smp_port_info was, now;
	char why[160];

	if (status < 0) {
		snprintf(why, sizeof(why), "port 0x%016llx/%u (%s) did not answer PortInfo",
			 (unsigned long long)n->ports[r->port].guid, r->port, n->desc);
		sm_light_changed(sm, why);
		return;
	}
	smp_port_info_decode(n->ports[r->port].pi_raw, &was);
	smp_port_info_decode(resp->data, &now);
	if (now.state == was.state && now.lid == was.lid &&
	    ((now.cap_mask ^ was.cap_mask) & PORT_CAP_IS_SM) == 0)
		return;
	snprintf(why, sizeof(why), "port 0x%016llx/%u (%s) changed (state %u LID %u IsSM %u)",
		 (unsigned long long)n->ports[r->port].guid, r->port, n->desc, now.state, now.lid,
		 (now.cap_mask & PORT_CAP_IS_SM) != 0);
	sm_light_changed(sm, why);
}

/* With an M_Key lease, a port's protection lapses if the SM is not heard
 * within the lease after a failed M_Key check: switches hear from every
 * light sweep (SwitchInfo), CA ports get a PortInfo Get once half the
 * lease has passed since the last such round. */
static void sm_light_touch_cas(struct sm *sm)
{
	uint64_t now = sm_now(sm);

	if (!sm->opts.m_key || !sm->opts.m_key_protect || !sm->opts.m_key_lease ||
	    (sm->light.ca_touched &&
	     now < sm->light.ca_touch_ms + (uint64_t)sm->opts.m_key_lease * 500))
		return;
	sm->light.ca_touched = 1;
	sm->light.ca_touch_ms = now;
	for (size_t i = 0; i < sm->cur.n_nodes; i++) {
		const struct fabric_node *n = &sm->cur.nodes[i];

		if (fabric_is_switch(n))
			continue;
		for (unsigned p = 1; p <= n->num_ports; p++) {
			const struct fabric_port *fp = &n->ports[p];
			const struct fabric_route *rt = fabric_port_route(n, p);
			struct sm_req q = {.node = (int)i, .port = (uint8_t)p, .hops = rt->hops};

			if (!fp->present || !fp->lid || (!rt->hops && (int)i != sm->cur.sm_node))
				continue;
			memcpy(q.path, rt->path, sizeof(q.path));
			sm->light.st.ca_reads++;
			if (sm_submit(sm, &q, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, p, NULL,
				      sm_light_ca_done) < 0)
				sm_light_changed(sm, "out of memory queuing PortInfo");
		}
	}
}

static void sm_after_light(struct sm *sm)
{
	sm->light.running = 0;
	sm->light.st.last_mads = mad_queue_counters(sm->q)->sent - sm->sweep.mads_at_start;
	sm->light.st.last_ms = sm_now(sm) - sm->sweep.start_ms;
	log_debug("light sweep: %zu switches, %" PRIu64 " MADs, %" PRIu64 " ms: %s",
		  fabric_count_switches(&sm->cur), sm->light.st.last_mads, sm->light.st.last_ms,
		  sm->light.changed ? sm->light.why : "no change");
	if (sm->light.changed) {
		sm->light.st.escalations++;
		log_info("light sweep: %s: heavy sweep", sm->light.why);
		sm->sweep.pending = 1;
	}
	sm_activity_end(sm);
}

int sm_light_sweep(struct sm *sm)
{
	if (sm->ha.state == SM_STATE_STANDBY)
		return ha_poll(sm);
	if (sm->ha.state == SM_STATE_NOT_ACTIVE)
		return -EPERM;
	if (sm->running)
		return -EBUSY;
	if (!sm_lfts(sm) || sm->sweep.heavy_due)
		return -EAGAIN;
	sm->running = 1;
	sm->light.running = 1;
	sm->model = &sm->cur;
	sm->light.changed = 0;
	sm->light.st.runs++;
	sm->sweep.start_ms = sm_now(sm);
	sm->sweep.mads_at_start = mad_queue_counters(sm->q)->sent;
	for (size_t i = 0; i < sm->cur.n_nodes; i++) {
		const struct fabric_node *n = &sm->cur.nodes[i];
		struct sm_req q = {.node = (int)i, .hops = n->dr_hops};

		if (!fabric_is_switch(n))
			continue;
		memcpy(q.path, n->dr_path, sizeof(q.path));
		if (sm_submit(sm, &q, SMP_METHOD_GET, SMP_ATTR_SWITCH_INFO, 0, NULL,
			      sm_light_done) < 0)
			sm_light_changed(sm, "out of memory queuing SwitchInfo");
	}
	ha_light_poll(sm);
	sm_light_touch_cas(sm);
	sm_phase_wait(sm, sm_after_light);
	return 0;
}

const struct sm_light_stats *sm_light_stats(const struct sm *sm)
{
	return &sm->light.st;
}
