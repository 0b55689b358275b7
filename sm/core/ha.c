/*
 * sm/core/ha.c - the SM state machine on the wire (IBA 14.4): SMInfo of the other
 * SMs a heavy sweep found, HANDOVER/ACKNOWLEDGE, the standby's polls of
 * the master and the takeover.  What to do is decided in standby.c (pure);
 * this file only sends SMInfo and changes sm->ha.  No fds, no clock.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sm/core/log.h"
#include "sm/core/sm_priv.h"

static void ha_state(struct sm *sm, uint8_t state, const char *why)
{
	if (sm->ha.state == state)
		return;
	log_info("SM state %s -> %s: %s", smp_sm_state_name(sm->ha.state), smp_sm_state_name(state),
		 why);
	sm->ha.state = state;
}

/* Is port p of node n another SM's port (IsSM in its CapabilityMask)? */
static int ha_is_peer_port(const struct sm *sm, int node, unsigned port)
{
	const struct fabric_node *n = &sm->next.nodes[node];
	const struct fabric_port *p = &n->ports[port];
	struct smp_port_info pi;

	if (!p->present || (node == sm->next.sm_node && port == sm->next.sm_port))
		return 0;
	if (fabric_is_switch(n) && port != 0)
		return 0; /* an SM on a switch sits on port 0 */
	smp_port_info_decode(p->pi_raw, &pi);
	return (pi.cap_mask & PORT_CAP_IS_SM) != 0;
}

/* The directed route to port p of node n (a CA port: the one that reached
 * it; a switch: the switch's own). */
static void ha_route(const struct fabric_node *n, unsigned port, struct sm_req *q)
{

	if (fabric_is_switch(n)) {
		q->hops = n->dr_hops;
		memcpy(q->path, n->dr_path, sizeof(q->path));
	} else {
		q->hops = fabric_port_route(n, port)->hops;
		memcpy(q->path, fabric_port_route(n, port)->path, sizeof(q->path));
	}
}

static void ha_peer_from_req(struct sm_ha_peer *peer, const struct sm_req *r,
			     const struct smp_sm_info *si, uint16_t lid)
{
	peer->sm = (struct standby_sm){si->guid, si->priority, si->state};
	peer->lid = lid;
	peer->node = r->node;
	peer->port = r->port;
	peer->hops = r->hops;
	memcpy(peer->path, r->path, sizeof(peer->path));
}

/* ---- after discovery: who else is there? ------------------------------ */

static void ha_check_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct sm *sm = r->sm;
	const struct fabric_node *n = &sm->next.nodes[r->node];
	struct smp_sm_info si;

	if (status < 0) {
		log_debug("port 0x%016" PRIx64
			  "/%u has IsSM but its SM does not answer SMInfo (%s)",
			  n->ports[r->port].guid ? n->ports[r->port].guid : n->guid, r->port,
			  strerror(-status));
		return;
	}
	smp_sm_info_decode(resp->data, &si);
	if (sm->opts.sm_key && si.sm_key && si.sm_key != sm->opts.sm_key) {
		log_warnx("NSM-W130 SM 0x%016" PRIx64 " (%s) holds another SM_Key: ignored",
			  si.guid, n->desc);
		return;
	}
	if (sm->ha.n_peers == SM_HA_PEERS || si.guid == sm->opts.port_guid)
		return;
	ha_peer_from_req(&sm->ha.peers[sm->ha.n_peers++], r, &si, n->ports[r->port].lid);
	log_debug("SM 0x%016" PRIx64 " (%s): priority %u %s", si.guid, n->desc, si.priority,
		  smp_sm_state_name(si.state));
}

static void ha_decide(struct sm *sm);

void ha_check_start(struct sm *sm, sm_phase_fn then)
{
	struct smp_sm_info me;
	uint8_t data[SMP_DATA_SIZE];

	sm->ha.n_peers = 0;
	sm->ha.then = then;
	sm_sminfo_fill(sm, sm->opts.sm_key, &me);
	memset(data, 0, sizeof(data));
	smp_sm_info_encode(&me, data);
	for (size_t i = 0; i < sm->next.n_nodes; i++) {
		const struct fabric_node *n = &sm->next.nodes[i];

		for (unsigned p = 0; p <= n->num_ports; p++) {
			struct sm_req q = {.node = (int)i, .port = (uint8_t)p};

			if (!ha_is_peer_port(sm, (int)i, p))
				continue;
			ha_route(n, p, &q);
			if (sm_submit(sm, &q, SMP_METHOD_GET, SMP_ATTR_SM_INFO, 0, data,
				      ha_check_done) < 0)
				log_warnx("NSM-E200 out of memory queuing SMInfo");
		}
	}
	sm_phase_wait(sm, ha_decide);
}

/* Takeover: the ports keep the LIDs the last master gave them.  Our own
 * map (guid2lid, an earlier mastership) gives way wherever it disagrees
 * with a LID a port holds now; two ports holding one LID: the first keeps
 * it, the other gets a new one from the allocator. */
static void ha_adopt_lids(struct sm *sm)
{
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < sm->next.n_nodes; i++) {
			const struct fabric_node *n = &sm->next.nodes[i];

			for (unsigned p = 0; p <= n->num_ports; p++) {
				const struct fabric_port *fp = &n->ports[p];
				uint64_t owner;

				if ((fabric_is_switch(n) ? p != 0 : p == 0) || !fp->present ||
				    !fp->guid || !fp->lid || fp->lid > LID_UNICAST_MAX)
					continue;
				if (pass == 1) {
					lid_alloc_reserve(&sm->lids, fp->guid, fp->lid);
					continue;
				}
				owner = lid_alloc_owner(&sm->lids, fp->lid);
				if (owner && owner != fp->guid)
					lid_alloc_release(&sm->lids, owner);
				if (lid_alloc_lookup(&sm->lids, fp->guid) != fp->lid)
					lid_alloc_release(&sm->lids, fp->guid);
			}
		}
	}
}

static void ha_be_master(struct sm *sm)
{
	sm_phase_fn then = sm->ha.then;

	if (sm->ha.state != SM_STATE_MASTER) {
		ha_state(sm, SM_STATE_MASTER,
			 sm->ha.n_peers ? "no better SM found" : "no other SM found");
		/* our first sweep as master: ClientReregister, SubnetTimeOut */
		sm->sweep.count = 1;
		sm->st.number = 1;
	}
	if (sm->ha.takeover) {
		ha_adopt_lids(sm);
		sm->ha.takeover = 0;
	}
	sm->ha.has_master = 0;
	then(sm);
}

/* End the running sweep in STANDBY under peer; nothing was programmed. */
static void ha_be_standby(struct sm *sm, const struct sm_ha_peer *peer, const char *why)
{
	char buf[160];

	snprintf(buf, sizeof(buf), "%s 0x%016" PRIx64 " (priority %u, %s, LID %u)", why,
		 peer->sm.guid, peer->sm.priority, smp_sm_state_name(peer->sm.state), peer->lid);
	ha_state(sm, SM_STATE_STANDBY, buf);
	sm->ha.master = *peer;
	sm->ha.has_master = 1;
	sm->ha.poll.misses = 0;
	sm->ha.takeover = 0;
	sm->sweep.count = 0; /* the next sweep as master is a first one again */
	sm->st.status = 0;
	sm->st.sm_state = SM_STATE_STANDBY;
	fabric_fini(&sm->next);
	fabric_init(&sm->next);
	sm_sweep_end(sm);
}

static void ha_handover_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct sm *sm = r->sm;
	struct sm_ha_peer *peer = &sm->ha.peers[r->extra];
	struct smp_sm_info si;

	(void)resp;
	if (status < 0) {
		log_warnx("NSM-W132 SM 0x%016" PRIx64 " did not take the HANDOVER (%s); staying "
			  "master",
			  peer->sm.guid, strerror(-status));
		sm->ha.handover_refused = peer->sm.guid;
		return;
	}
	smp_sm_info_decode(resp->data, &si);
	peer->sm.state = SM_STATE_MASTER; /* it takes over on receipt (IBA 14.4.1) */
	sm->ha.handover_refused = 0;
	sm->ha.handover_done = 1;
}

static void ha_after_handover(struct sm *sm)
{
	if (sm->ha.handover_done) {
		sm->ha.handover_done = 0;
		ha_be_standby(sm, &sm->ha.peers[sm->ha.handover_to], "handed over to");
		return;
	}
	ha_be_master(sm);
}

/* We are master and peer is a better standby: HANDOVER (the Set carries
 * our SMInfo, state MASTER, as OpenSM expects). */
static void ha_handover(struct sm *sm, size_t i)
{
	struct sm_ha_peer *peer = &sm->ha.peers[i];
	struct sm_req q = {
	    .node = peer->node, .port = peer->port, .hops = peer->hops, .extra = (uint32_t)i};
	struct smp_sm_info me;
	uint8_t data[SMP_DATA_SIZE];

	log_info("SM 0x%016" PRIx64 " (priority %u) is better and in STANDBY: HANDOVER",
		 peer->sm.guid, peer->sm.priority);
	memcpy(q.path, peer->path, sizeof(q.path));
	sm_sminfo_fill(sm, sm->opts.sm_key, &me);
	memset(data, 0, sizeof(data));
	smp_sm_info_encode(&me, data);
	sm->ha.handover_done = 0;
	sm->ha.handover_to = i;
	if (sm_submit(sm, &q, SMP_METHOD_SET, SMP_ATTR_SM_INFO, SMINFO_MOD_HANDOVER, data,
		      ha_handover_done) < 0)
		log_warnx("NSM-E200 out of memory queuing SMInfo HANDOVER");
	sm_phase_wait(sm, ha_after_handover);
}

static void ha_decide(struct sm *sm)
{
	struct standby_sm self = {sm->opts.port_guid, sm->opts.priority, sm->ha.state};
	struct standby_sm peers[SM_HA_PEERS];
	size_t which = 0;

	for (size_t i = 0; i < sm->ha.n_peers; i++)
		peers[i] = sm->ha.peers[i].sm;
	switch (standby_decide(&self, peers, sm->ha.n_peers, &which)) {
	case STANDBY_ACT_STANDBY:
		ha_be_standby(sm, &sm->ha.peers[which],
			      peers[which].state == SM_STATE_MASTER ? "found master"
								    : "found the better SM");
		return;
	case STANDBY_ACT_HANDOVER:
		if (peers[which].guid != sm->ha.handover_refused) {
			ha_handover(sm, which);
			return;
		}
		break;
	case STANDBY_ACT_MASTER:
		break;
	}
	ha_be_master(sm);
}

/* ---- standby: polling the master ---------------------------------------- */

static void ha_poll_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct sm *sm = r->sm;
	struct smp_sm_info si = {0};

	if (status == 0)
		smp_sm_info_decode(resp->data, &si);
	sm->ha.poll_answered = status == 0 && si.guid == sm->ha.master.sm.guid;
	sm->ha.poll_state = si.state;
}

static void ha_count_poll(struct sm *sm);

/* The poll is over: count it; a HANDOVER that came meanwhile left a
 * sweep pending. */
static void ha_after_poll(struct sm *sm)
{
	if (sm->ha.state == SM_STATE_STANDBY)
		ha_count_poll(sm);
	sm_activity_end(sm);
}
static void ha_count_poll(struct sm *sm)
{
	if (!standby_poll_count(&sm->ha.poll, sm->ha.poll_answered, sm->ha.poll_state)) {
		if (sm->ha.poll.misses)
			log_info("master SM 0x%016" PRIx64 ": poll %u of %u failed",
				 sm->ha.master.sm.guid, sm->ha.poll.misses, STANDBY_MISSES);
		return;
	}
	log_warnx("NSM-W133 master SM 0x%016" PRIx64 " failed %u polls in a row: taking over "
		  "(heavy sweep; the ports keep their LIDs)",
		  sm->ha.master.sm.guid, STANDBY_MISSES);
	ha_state(sm, SM_STATE_DISCOVERING, "the master is gone");
	sm->ha.has_master = 0;
	sm->ha.takeover = 1;
	sm_sweep_request(sm);
}

int ha_poll(struct sm *sm)
{
	struct sm_ha_peer *m = &sm->ha.master;
	struct sm_req q = {.node = m->node, .port = m->port, .hops = m->hops};
	struct smp_sm_info me;
	uint8_t data[SMP_DATA_SIZE];

	if (sm->running)
		return -EBUSY;
	if (!sm->ha.has_master)
		return -EAGAIN;
	memcpy(q.path, m->path, sizeof(q.path));
	/* our own SMInfo rides along: a nanosm master hands over to a better
	 * standby it hears from (the Get's payload is ignored otherwise) */
	sm_sminfo_fill(sm, sm->opts.sm_key, &me);
	memset(data, 0, sizeof(data));
	smp_sm_info_encode(&me, data);
	sm->running = 1;
	sm->ha.poll_answered = 0;
	sm->ha.polls++;
	if (sm_submit(sm, &q, SMP_METHOD_GET, SMP_ATTR_SM_INFO, 0, data, ha_poll_done) < 0)
		log_warnx("NSM-E200 out of memory queuing SMInfo");
	sm_phase_wait(sm, ha_after_poll);
	return 0;
}

/* ---- master: the light sweep's look at the other SMs ------------------- */

static void ha_light_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct sm *sm = r->sm;
	const struct sm_ha_peer *p;
	struct smp_sm_info si;
	char why[160];

	if (r->extra >= sm->ha.n_peers)
		return;
	p = &sm->ha.peers[r->extra];
	if (status < 0) {
		snprintf(why, sizeof(why), "SM 0x%016" PRIx64 " did not answer SMInfo", p->sm.guid);
		sm_light_changed(sm, why);
		return;
	}
	smp_sm_info_decode(resp->data, &si);
	if (si.guid == p->sm.guid && si.priority == p->sm.priority && si.state == p->sm.state)
		return;
	snprintf(why, sizeof(why), "SM 0x%016" PRIx64 " now priority %u %s", si.guid, si.priority,
		 smp_sm_state_name(si.state));
	sm_light_changed(sm, why);
}

void ha_light_poll(struct sm *sm)
{
	struct smp_sm_info me;
	uint8_t data[SMP_DATA_SIZE];

	sm_sminfo_fill(sm, sm->opts.sm_key, &me);
	memset(data, 0, sizeof(data));
	smp_sm_info_encode(&me, data);
	for (size_t i = 0; i < sm->ha.n_peers; i++) {
		const struct sm_ha_peer *p = &sm->ha.peers[i];
		struct sm_req q = {
		    .node = FABRIC_NONE, .port = p->port, .hops = p->hops, .extra = (uint32_t)i};

		memcpy(q.path, p->path, sizeof(q.path));
		if (sm_submit(sm, &q, SMP_METHOD_GET, SMP_ATTR_SM_INFO, 0, data, ha_light_done) < 0)
			sm_light_changed(sm, "out of memory queuing SMInfo");
	}
}

/* ---- SMInfo from other SMs ---------------------------------------------- */

static void ha_ack_done(struct sm_req *r, int status, const struct smp *resp)
{
	(void)r;
	(void)resp;
	if (status < 0)
		log_info("ACKNOWLEDGE to the old master not answered (%s)", strerror(-status));
}

/* The new master tells the old one the HANDOVER arrived.  The payload
 * carries the state we had when it came (STANDBY): OpenSM refuses an
 * ACKNOWLEDGE from any other state. */
static void ha_acknowledge(struct sm *sm)
{
	const struct sm_ha_peer *m = &sm->ha.master;
	struct sm_req q = {.node = m->node, .port = m->port, .hops = m->hops};
	struct smp_sm_info me;
	uint8_t data[SMP_DATA_SIZE];

	memcpy(q.path, m->path, sizeof(q.path));
	sm_sminfo_fill(sm, sm->opts.sm_key, &me);
	me.state = SM_STATE_STANDBY;
	memset(data, 0, sizeof(data));
	smp_sm_info_encode(&me, data);
	if (sm_submit(sm, &q, SMP_METHOD_SET, SMP_ATTR_SM_INFO, SMINFO_MOD_ACKNOWLEDGE, data,
		      ha_ack_done) < 0)
		log_warnx("NSM-E200 out of memory queuing SMInfo ACKNOWLEDGE");
}

static void ha_on_handover(struct sm *sm, const struct smp_sm_info *from)
{
	if (sm->ha.state == SM_STATE_MASTER)
		return;
	if (sm->ha.state == SM_STATE_NOT_ACTIVE) {
		log_info("HANDOVER from SM 0x%016" PRIx64 " ignored: NOTACTIVE", from->guid);
		return;
	}
	ha_state(sm, SM_STATE_MASTER, "HANDOVER received");
	if (sm->ha.has_master && sm->ha.master.sm.guid == from->guid)
		ha_acknowledge(sm);
	sm->ha.has_master = 0;
	sm->ha.takeover = 1;
	sm->sweep.count = 0; /* the takeover sweep is our first as master */
	if (sm_sweep_request(sm) == -EBUSY)
		log_info("takeover sweep runs after the current one");
}

void ha_on_set(struct sm *sm, const struct mad_addr *from, const struct smp *req)
{
	struct smp_sm_info si;

	smp_sm_info_decode(req->data, &si);
	if (sm->opts.sm_key && si.sm_key != sm->opts.sm_key) {
		log_warnx("NSM-W131 SMInfo Set %s from SM 0x%016" PRIx64 " without our SM_Key: "
			  "ignored",
			  smp_sm_info_mod_name(req->attr_mod), si.guid);
		return;
	}
	log_info("SMInfo Set %s from SM 0x%016" PRIx64 " (%s)", smp_sm_info_mod_name(req->attr_mod),
		 si.guid, smp_sm_state_name(si.state));
	switch (req->attr_mod) {
	case SMINFO_MOD_HANDOVER:
		ha_on_handover(sm, &si);
		break;
	case SMINFO_MOD_ACKNOWLEDGE:
		break; /* we went STANDBY when the HANDOVER was answered */
	case SMINFO_MOD_DISABLE:
		ha_state(sm, SM_STATE_NOT_ACTIVE, "DISABLE received");
		sm->ha.has_master = 0;
		break;
	case SMINFO_MOD_STANDBY:
		if (sm->ha.state == SM_STATE_NOT_ACTIVE)
			ha_state(sm, SM_STATE_STANDBY, "STANDBY received");
		break;
	case SMINFO_MOD_DISCOVER:
		if (sm->ha.state == SM_STATE_NOT_ACTIVE) {
			ha_state(sm, SM_STATE_DISCOVERING, "DISCOVER received");
			sm_sweep_request(sm);
		}
		break;
	default:
		break;
	}
	sm_reply_sminfo(sm, from, req, sm->opts.sm_key);
}

/* A poll from a better standby (a nanosm one says who it is in the Get):
 * a heavy sweep finds it and hands over. */
void ha_on_get(struct sm *sm, const struct smp *req)
{
	struct smp_sm_info si;
	struct standby_sm them, me = {sm->opts.port_guid, sm->opts.priority, sm->ha.state};

	smp_sm_info_decode(req->data, &si);
	them = (struct standby_sm){si.guid, si.priority, si.state};
	if (sm->ha.state != SM_STATE_MASTER || sm->running || !si.guid ||
	    si.guid == sm->opts.port_guid || si.state != SM_STATE_STANDBY ||
	    si.guid == sm->ha.handover_refused || !standby_better(&them, &me))
		return;
	log_info("polled by SM 0x%016" PRIx64 " (priority %u, STANDBY), better than us: heavy "
		 "sweep to hand over",
		 si.guid, si.priority);
	sm_sweep_request(sm);
}
