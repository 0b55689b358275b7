/*
 * sm/core/configure.c - LID assignment and PortInfo programming for a discovered
 * fabric: LIDs, SM LID, subnet prefix, neighbor MTU and operational VLs,
 * M_Key with its protection and lease, then the INIT -> ARMED -> ACTIVE
 * walk.  Works on sm->next only (and its own M_Key port sets), and only
 * sends a Set where the port differs from what the SM wants.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/core/configure.h"
#include "sm/core/guid2lid.h"
#include "sm/core/log.h"
#include "sm/core/sm_priv.h"

/* ---- LIDs ------------------------------------------------------------ */

static int configure_owns_lid(const struct fabric_node *n, unsigned port)
{
	return fabric_is_switch(n) ? port == 0 : port != 0;
}

static uint16_t configure_max_lid(const struct fabric *f)
{
	uint32_t max = LID_UNICAST_MAX;

	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *n = &f->nodes[i];

		if (fabric_is_switch(n) && n->lft_cap && n->lft_cap - 1u < max)
			max = n->lft_cap - 1u;
	}
	return (uint16_t)max;
}

/* One request per LID-owning port that answered PortInfo. */
static size_t configure_collect(const struct fabric *f, struct lid_req *reqs)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *nd = &f->nodes[i];

		for (unsigned p = 0; p <= nd->num_ports; p++) {
			const struct fabric_port *pt = &nd->ports[p];

			if (!configure_owns_lid(nd, p) || !pt->present || !pt->guid)
				continue;
			if (reqs) {
				reqs[n].guid = pt->guid;
				reqs[n].current_lid = pt->lid;
			}
			n++;
		}
	}
	return n;
}

/* guid2lid's last-seen times are rewritten at least this often (seconds)
 * while no LID changes: every reclaim_age / 10, at most once a minute; a
 * day when aging is off. */
#define CONFIGURE_STAMP_MIN_S 60u
#define CONFIGURE_STAMP_IDLE_S 86400u

static uint64_t configure_wall_s(const struct sm *sm)
{
	return sm->clock.wall_s ? sm->clock.wall_s(sm->clock.ctx) : 0;
}

/* Are the last-seen times in the file due for a rewrite? */
static int configure_stamps_due(const struct sm *sm, uint64_t now)
{
	uint64_t every =
	    sm->opts.lid_reclaim_age ? sm->opts.lid_reclaim_age / 10u : CONFIGURE_STAMP_IDLE_S;

	if (every < CONFIGURE_STAMP_MIN_S)
		every = CONFIGURE_STAMP_MIN_S;
	return now != 0 && (now < sm->lids.saved_s || now - sm->lids.saved_s >= every);
}

static int configure_persist(struct sm *sm, uint64_t now)
{
	char err[512];
	int rc;

	if (!sm->opts.guid2lid)
		return 0;
	rc = guid2lid_save(sm->opts.guid2lid, &sm->lids, err, sizeof(err));
	if (rc < 0) {
		log_warnx("NSM-E302 %s", err);
		return -EIO;
	}
	if (rc == 1)
		log_warnx("NSM-W116 %s", err);
	sm->lids.saved_s = now;
	return 0;
}

/* One line per LID taken back from an absent port. */
static void configure_log_reclaims(const struct sm *sm, const struct lid_aging *ag)
{
	for (size_t i = 0; i < ag->n_reclaimed; i++) {
		const struct lid_reclaim *rc = &ag->reclaimed[i];
		uint64_t to = lid_alloc_owner(&sm->lids, rc->lid);

		log_warnx("NSM-W303 LID 0x%04x reclaimed from port 0x%016" PRIx64
			  " (absent %" PRIu64 " s, lids.reclaim_age %u s; LID space full): "
			  "now port 0x%016" PRIx64,
			  rc->lid, rc->guid, ag->now - rc->seen, sm->opts.lid_reclaim_age, to);
	}
}

/* Write assigned LIDs back into the model; report ports left without. */
static size_t configure_apply(struct sm *sm, const struct lid_req *reqs, size_t nreq)
{
	struct fabric *f = &sm->next;
	size_t k = 0, failed = 0;

	for (size_t i = 0; i < f->n_nodes; i++) {
		struct fabric_node *nd = &f->nodes[i];

		for (unsigned p = 0; p <= nd->num_ports && k < nreq; p++) {
			struct fabric_port *pt = &nd->ports[p];

			if (!configure_owns_lid(nd, p) || !pt->present || !pt->guid)
				continue;
			pt->lid = reqs[k].lid;
			if (reqs[k].err) {
				failed++;
				log_warnx("NSM-E301 port 0x%016llx/%u (%s): no LID: LID space "
					  "exhausted (%zu in use, highest usable 0x%04x)",
					  (unsigned long long)pt->guid, p, nd->desc,
					  lid_alloc_count(&sm->lids), sm->lids.max_lid);
			}
			if (pt->lid > sm->max_lid)
				sm->max_lid = pt->lid;
			k++;
		}
	}
	return failed;
}

int configure_lids(struct sm *sm)
{
	size_t n = configure_collect(&sm->next, NULL), changed = 0;
	struct lid_req *reqs = calloc(n ? n : 1, sizeof(*reqs));
	uint16_t *prev = calloc(n ? n : 1, sizeof(*prev));
	struct lid_aging ag = {.now = configure_wall_s(sm), .age = sm->opts.lid_reclaim_age};
	struct fabric_node *smn;

	if (!reqs || !prev) {
		free(reqs);
		free(prev);
		return -ENOMEM;
	}
	configure_collect(&sm->next, reqs);
	lid_alloc_set_max(&sm->lids, configure_max_lid(&sm->next));
	for (size_t i = 0; i < n; i++)
		prev[i] = lid_alloc_lookup(&sm->lids, reqs[i].guid);
	lid_alloc_assign_aged(&sm->lids, reqs, n, &ag);
	configure_log_reclaims(sm, &ag);
	changed += ag.n_reclaimed;
	free(ag.reclaimed);
	for (size_t i = 0; i < n; i++)
		changed += reqs[i].lid != prev[i];
	sm->max_lid = 0;
	sm->st.lid_failures = configure_apply(sm, reqs, n);
	changed += lid_static_sweep(sm, reqs, n);
	free(reqs);
	free(prev);
	smn = &sm->next.nodes[sm->next.sm_node];
	sm->my_lid = smn->ports[fabric_is_switch(smn) ? 0 : sm->next.sm_port].lid;
	if (changed || sm->st.number == 1 || configure_stamps_due(sm, ag.now))
		configure_persist(sm, ag.now);
	return 0;
}

/* ---- PortInfo -------------------------------------------------------- */

static const struct fabric_port *configure_peer(const struct fabric *f, const struct fabric_port *p)
{
	const struct fabric_port *rp;

	if (p->remote_node == FABRIC_NONE)
		return NULL;
	rp = &f->nodes[p->remote_node].ports[p->remote_port];
	return rp->present ? rp : NULL;
}

static uint8_t configure_min(uint8_t a, uint8_t b)
{
	return a < b ? a : b;
}

/* ---- M_Key ----------------------------------------------------------- */

static size_t configure_set_find(const struct sm_guid_set *s, uint64_t guid)
{
	size_t i = 0;

	while (i < s->n && s->guid[i] != guid)
		i++;
	return i;
}

/* 1 when guid is new to s (the caller logs); 0 when it was there, or
 * when there is no memory (the caller then logs again next time). */
static int configure_set_add(struct sm_guid_set *s, uint64_t guid)
{
	if (configure_set_find(s, guid) < s->n)
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 8;
		uint64_t *grown = realloc(s->guid, cap * sizeof(*grown));

		if (!grown)
			return 0;
		s->guid = grown;
		s->cap = cap;
	}
	s->guid[s->n++] = guid;
	return 1;
}

static void configure_set_del(struct sm_guid_set *s, uint64_t guid)
{
	size_t i = configure_set_find(s, guid);

	if (i < s->n)
		s->guid[i] = s->guid[--s->n];
}

void configure_fini(struct sm *sm)
{
	free(sm->mkey_foreign.guid);
	free(sm->mkey_unkept.guid);
	free(sm->enforce_unkept.guid);
	free(sm->rereg.guid);
	memset(&sm->rereg, 0, sizeof(sm->rereg));
	memset(&sm->mkey_foreign, 0, sizeof(sm->mkey_foreign));
	memset(&sm->mkey_unkept, 0, sizeof(sm->mkey_unkept));
	memset(&sm->enforce_unkept, 0, sizeof(sm->enforce_unkept));
}

int configure_rereg_ask(struct sm *sm, uint64_t port_guid)
{
	return configure_set_add(&sm->rereg, port_guid);
}

/* The port number whose M_Key guards `port` of n: a CA port guards itself,
 * port 0 guards a whole switch. */
static unsigned configure_guard(const struct fabric_node *n, unsigned port)
{
	return fabric_is_switch(n) ? 0 : port;
}

static uint64_t configure_port_guid(const struct fabric_node *n, unsigned port)
{
	return n->ports[port].guid ? n->ports[port].guid : n->guid;
}

enum configure_mkey_seen {
	CONFIGURE_MKEY_USABLE,	/* no key, or ours: our SMPs pass */
	CONFIGURE_MKEY_FOREIGN, /* a key that is not ours, shown (protect 0) */
	CONFIGURE_MKEY_HIDDEN,	/* reads 0 under protection: none, or one hidden (protect 1) */
};

/* What a PortInfo read with our M_Key says of the port's key.  With protect
 * 0 a Get shows any key; with 1 a wrong key reads as 0; with 2-3 the Get
 * is dropped, so the port never got here. */
static enum configure_mkey_seen configure_mkey_seen(const struct sm *sm, const uint8_t *pi_raw)
{
	struct smp_port_info pi;

	smp_port_info_decode(pi_raw, &pi);
	if (pi.mkey)
		return pi.mkey == sm->opts.m_key ? CONFIGURE_MKEY_USABLE : CONFIGURE_MKEY_FOREIGN;
	return pi.mkey_prot ? CONFIGURE_MKEY_HIDDEN : CONFIGURE_MKEY_USABLE;
}

/* A port whose guard shows another M_Key refuses every Set: leave it alone
 * (logged once, until it shows a key nanosm can use again). */
static int configure_mkey_blocked(struct sm *sm, const struct fabric_node *n, unsigned port)
{
	unsigned g = configure_guard(n, port);
	uint64_t guid = configure_port_guid(n, g);
	enum configure_mkey_seen seen;

	if (!n->ports[g].present)
		return 0;
	seen = configure_mkey_seen(sm, n->ports[g].pi_raw);
	if (seen == CONFIGURE_MKEY_USABLE)
		configure_set_del(&sm->mkey_foreign, guid);
	if (seen != CONFIGURE_MKEY_FOREIGN)
		return 0;
	if (configure_set_add(&sm->mkey_foreign, guid))
		sm_warnx_grouped(sm, "NSM-W311",
				 "port 0x%016llx/%u (%s): holds an M_Key that is not nanosm's, "
				 "so it refuses nanosm's Sets; its PortInfo is left alone",
				 (unsigned long long)guid, g, n->desc);
	return 1;
}

/* Our M_Key, protection and lease, on a port that guards itself or a
 * switch (not one that showed it keeps no M_Key). */
static void configure_want_mkey(const struct sm *sm, const struct fabric_node *n, unsigned port,
				struct smp_port_info *pi)
{
	if (!sm->opts.m_key || !configure_owns_lid(n, port) ||
	    configure_set_find(&sm->mkey_unkept, configure_port_guid(n, port)) < sm->mkey_unkept.n)
		return;
	pi->mkey = sm->opts.m_key;
	pi->mkey_prot = sm->opts.m_key_protect;
	pi->mkey_lease = sm->opts.m_key_lease;
}

static int configure_same_mkey(const struct smp_port_info *a, const struct smp_port_info *b)
{
	return a->mkey == b->mkey && a->mkey_prot == b->mkey_prot && a->mkey_lease == b->mkey_lease;
}

/* A Set carrying our M_Key was answered: a port that reads back without
 * it (ibsim's ports keep none) is not protected.  Logged once; from then
 * on its M_Key fields are not wanted, so sweeps do not repeat the Set. */
static void configure_mkey_kept(struct sm *sm, const struct fabric_node *n, unsigned port,
				const struct smp_port_info *got)
{
	struct smp_port_info want = *got;

	configure_want_mkey(sm, n, port, &want);
	if (configure_same_mkey(&want, got) ||
	    !configure_set_add(&sm->mkey_unkept, configure_port_guid(n, port)))
		return;
	sm_warnx_grouped(
	    sm, "NSM-W313",
	    "port 0x%016llx/%u (%s): took the PortInfo Set but reads back "
	    "without nanosm's M_Key, protect %u and lease %u: the port keeps no M_Key and is "
	    "not protected",
	    (unsigned long long)configure_port_guid(n, port), port, n->desc, want.mkey_prot,
	    want.mkey_lease);
}

/* The fields configure_want programs are the same in both. */
static int configure_same(const struct sm *sm, const struct smp_port_info *pi,
			  const struct smp_port_info *cur)
{
	/* SubnetTimeOut alone triggers a Set only on the first sweep: some
	 * ports (ibsim's among them) accept it but do not keep it. */
	return pi->lid == cur->lid && pi->sm_lid == cur->sm_lid &&
	       pi->gid_prefix == cur->gid_prefix && pi->lmc == cur->lmc &&
	       (pi->subnet_timeout == cur->subnet_timeout || sm->st.number > 1) &&
	       pi->neighbor_mtu == cur->neighbor_mtu && pi->oper_vls == cur->oper_vls &&
	       pi->part_enf_inb == cur->part_enf_inb && pi->part_enf_outb == cur->part_enf_outb &&
	       !pi->client_rereg && configure_same_mkey(pi, cur);
}

/* A switch port facing a CA checks P_Keys both ways (the CA's table is
 * pushed to it, pkey_push.c) when the switch can (PartitionEnforcementCap
 * in SwitchInfo) and the partition plan covers the port. */
static void configure_want_enforce(const struct sm *sm, const struct fabric_node *n, unsigned port,
				   struct smp_port_info *pi)
{
	struct smp_switch_info si;

	if (!fabric_is_switch(n) || port == 0 ||
	    configure_set_find(&sm->enforce_unkept, n->guid) < sm->enforce_unkept.n)
		return;
	smp_switch_info_decode(n->si_raw, &si);
	if (!si.partition_enforce_cap ||
	    !pkey_plan_port(&sm->pk_next, (int)(n - sm->next.nodes), (uint8_t)port))
		return;
	pi->part_enf_inb = 1;
	pi->part_enf_outb = 1;
}

/* A switch port that took a Set asking for P_Key enforcement but reads
 * back without it (ibsim's switches keep none): the switch does not
 * enforce.  Logged once per switch; no later sweep asks it again. */
static void configure_enforce_kept(struct sm *sm, const struct fabric_node *n, unsigned port,
				   const struct smp_port_info *got)
{
	struct smp_port_info want = *got;

	configure_want_enforce(sm, n, port, &want);
	if ((want.part_enf_inb == got->part_enf_inb && want.part_enf_outb == got->part_enf_outb) ||
	    !configure_set_add(&sm->enforce_unkept, n->guid))
		return;
	sm_warnx_grouped(
	    sm, "NSM-W314",
	    "switch 0x%016llx (%s) port %u: took the PortInfo Set but reads back "
	    "without P_Key enforcement: its ports do not check partitions (hosts' own P_Key "
	    "tables still apply)",
	    (unsigned long long)n->guid, n->desc, port);
}

/* What the SM wants this port's PortInfo to be; returns 1 if it differs. */
static int configure_want(const struct sm *sm, const struct fabric_node *n, unsigned port,
			  struct smp_port_info *pi)
{
	const struct fabric_port *p = &n->ports[port];
	const struct fabric_port *rp = configure_peer(&sm->next, p);
	struct smp_port_info cur;

	smp_port_info_decode(p->pi_raw, &cur);
	*pi = cur;
	if (configure_owns_lid(n, port) && p->lid) {
		pi->lid = p->lid;
		pi->sm_lid = sm->my_lid;
		pi->gid_prefix = sm->opts.subnet_prefix;
		pi->lmc = 0;
		pi->subnet_timeout = sm->opts.subnet_timeout;
	}
	if (rp && port != 0) {
		pi->neighbor_mtu = configure_min(p->mtu_cap, rp->mtu_cap);
		pi->oper_vls = configure_min(p->vl_cap, rp->vl_cap);
	}
	configure_want_mkey(sm, n, port, pi);
	configure_want_enforce(sm, n, port, pi);
	/* A new master SM asks every end port to reregister (IBA 14.4.11):
	 * hosts then re-join their multicast groups and re-subscribe, so
	 * state kept by a previous SM's SA is rebuilt in ours.  Only in our
	 * first sweep, and for ports in sm->rereg (their IPoIB group changed);
	 * never echoed back in later Sets. */
	pi->client_rereg =
	    (sm->st.number == 1 || configure_set_find(&sm->rereg, p->guid) < sm->rereg.n) &&
	    !fabric_is_switch(n) && p->lid;
	if (configure_same(sm, pi, &cur))
		return 0;
	log_debug("port 0x%016llx/%u: lid %u->%u smlid %u->%u lmc %u->%u timeout %u->%u "
		  "mtu %u->%u vls %u->%u prefix %s mkey %s protect %u->%u lease %u->%u "
		  "enforce %u%u->%u%u rereg %u",
		  (unsigned long long)(p->guid ? p->guid : n->guid), port, cur.lid, pi->lid,
		  cur.sm_lid, pi->sm_lid, cur.lmc, pi->lmc, cur.subnet_timeout, pi->subnet_timeout,
		  cur.neighbor_mtu, pi->neighbor_mtu, cur.oper_vls, pi->oper_vls,
		  pi->gid_prefix == cur.gid_prefix ? "same" : "changes",
		  pi->mkey == cur.mkey ? "same" : "changes", cur.mkey_prot, pi->mkey_prot,
		  cur.mkey_lease, pi->mkey_lease, cur.part_enf_inb, cur.part_enf_outb,
		  pi->part_enf_inb, pi->part_enf_outb, pi->client_rereg);
	return 1;
}

/* A PortInfo Set's sm_req.extra: the state it moves the port to (0: none)
 * in the low byte, and whether it carries ClientReregister. */
#define CONFIGURE_REREG_SENT 0x100u

static uint8_t configure_req_state(const struct sm_req *r)
{
	return (uint8_t)(r->extra & 0xffu);
}

/* A Set that got no answer from a port whose guard reads M_Key 0 under
 * protection: most likely it holds a key that is not ours and dropped the
 * Set.  Logged once per port (NSM-W312); returns 1 when that is the case. */
static int configure_set_hidden_key(struct sm *sm, const struct fabric_node *n, unsigned port,
				    int status)
{
	unsigned g = configure_guard(n, port);
	uint64_t guid = configure_port_guid(n, g);

	if (status != -ETIMEDOUT || !n->ports[g].present ||
	    configure_mkey_seen(sm, n->ports[g].pi_raw) != CONFIGURE_MKEY_HIDDEN)
		return 0;
	if (configure_set_add(&sm->mkey_foreign, guid))
		sm_warnx_grouped(
		    sm, "NSM-W312",
		    "port 0x%016llx/%u (%s): dropped nanosm's PortInfo Set and "
		    "hides its M_Key (protection on): it probably holds an M_Key that is "
		    "not nanosm's",
		    (unsigned long long)guid, g, n->desc);
	return 1;
}

static void configure_set_failed(struct sm_req *r, int status, const struct smp *resp)
{
	struct sm *sm = r->sm;
	struct fabric_node *n = &sm->next.nodes[r->node];
	struct fabric_port *p = &n->ports[r->port];

	sm->st.set_errors++;
	if (configure_set_hidden_key(sm, n, r->port, status))
		return;
	sm_warnx_grouped(sm, "NSM-W310", "port 0x%016llx/%u (%s): PortInfo Set%s failed: %s%s",
			 (unsigned long long)(p->guid ? p->guid : n->guid), r->port, n->desc,
			 configure_req_state(r) ? " (state)" : "", strerror(-status),
			 resp ? " (refused by the port)" : "");
}

/* The read-back of a port whose state Set failed: when its answer was the
 * one lost, a retry asks for a step the port already took and is refused,
 * yet the port is where we wanted it (or further).  Only a port that is
 * not there counts as a failed Set. */
static void configure_state_readback_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct fabric_port *p = &r->sm->next.nodes[r->node].ports[r->port];
	struct smp_port_info pi;

	if (status == 0) {
		smp_port_info_decode(resp->data, &pi);
		if (pi.state >= configure_req_state(r)) {
			memcpy(p->pi_raw, resp->data, sizeof(p->pi_raw));
			p->state = pi.state;
			return;
		}
	}
	configure_set_failed(r, -EREMOTEIO, NULL);
}

static void configure_set_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct sm *sm = r->sm;
	struct fabric_node *n = &sm->next.nodes[r->node];
	struct fabric_port *p = &n->ports[r->port];
	struct smp_port_info pi;

	if (status < 0 && configure_req_state(r) && status != -ECANCELED &&
	    sm_submit(sm, r, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, r->port, NULL,
		      configure_state_readback_done) == 0)
		return;
	if (status < 0) {
		configure_set_failed(r, status, resp);
		return;
	}
	smp_port_info_decode(resp->data, &pi);
	memcpy(p->pi_raw, resp->data, sizeof(p->pi_raw));
	p->state = pi.state;
	configure_mkey_kept(sm, n, r->port, &pi);
	configure_enforce_kept(sm, n, r->port, &pi);
	if (r->extra & CONFIGURE_REREG_SENT)
		configure_set_del(&sm->rereg, p->guid); /* asked: done */
}

/* Send PortInfo Set; state 0 leaves the port state alone. */
static void configure_send(struct sm *sm, int node, unsigned port, struct smp_port_info *pi,
			   uint8_t state)
{
	const struct fabric_node *n = &sm->next.nodes[node];
	struct sm_req r = {.node = node, .port = (uint8_t)port, .extra = state};
	uint8_t data[SMP_DATA_SIZE] = {0};

	if (pi->client_rereg)
		r.extra |= CONFIGURE_REREG_SENT;

	pi->state = state;
	pi->phys_state = 0;	    /* no change */
	pi->link_width_enabled = 0; /* no change */
	pi->link_speed_enabled = 0; /* no change */
	pi->link_down_default = 0;  /* no change */
	smp_port_info_encode(pi, data);
	r.hops = fabric_is_switch(n) ? n->dr_hops : fabric_port_route(n, port)->hops;
	memcpy(r.path, fabric_is_switch(n) ? n->dr_path : fabric_port_route(n, port)->path,
	       sizeof(r.path));
	if (sm_submit(sm, &r, SMP_METHOD_SET, SMP_ATTR_PORT_INFO, port, data, configure_set_done) <
	    0)
		sm->st.set_errors++;
}

/* Does port p of node i get a Set from from_state to the next state in
 * the INIT -> ARMED -> ACTIVE walk? */
static int configure_state_wanted(const struct sm *sm, const struct fabric_node *n, unsigned p,
				  uint8_t from_state)
{
	const struct fabric_port *pt = &n->ports[p];

	if (p == 0 || !pt->present || pt->state != from_state || !configure_peer(&sm->next, pt))
		return 0;
	if (!fabric_is_switch(n) && !pt->lid)
		return 0; /* a CA port without a LID stays in INIT */
	/* a port holding an M_Key not ours refuses our Sets (NSM-W311) */
	return configure_mkey_seen(sm, n->ports[configure_guard(n, p)].pi_raw) !=
	       CONFIGURE_MKEY_FOREIGN;
}

/* A port in INIT that gets a configuration Set is armed by the same Set
 * (IBA 14.2.5.6 applies the fields with the state change), saving the
 * walk's INIT -> ARMED Set for it: about one SMP in ten on a fresh fat
 * tree.  Nothing is forwarded before the ACTIVE step, which stays last,
 * after the LFTs and P_Key tables. */
/* The configuration Sets one node's ports need. */
static void configure_node_ports(struct sm *sm, size_t i)
{
	const struct fabric_node *n = &sm->next.nodes[i];

	for (unsigned p = 0; p <= n->num_ports; p++) {
		struct smp_port_info pi;
		uint8_t state = PORT_STATE_NOP;

		if (!n->ports[p].present || (!fabric_is_switch(n) && p == 0))
			continue;
		if (configure_mkey_blocked(sm, n, p) || !configure_want(sm, n, p, &pi))
			continue;
		sm->st.port_sets++;
		if (configure_state_wanted(sm, n, p, PORT_STATE_INIT)) {
			state = PORT_STATE_ARMED;
			sm->st.state_sets++;
		}
		configure_send(sm, (int)i, p, &pi, state);
	}
}

static void configure_ports_batch(struct sm *sm)
{
	sm_phase_fn then = sm->ports_then;

	if (sm_feed_walk(sm, &sm->ports_next, sm->next.n_nodes, configure_node_ports,
			 configure_ports_batch))
		return;
	sm->ports_then = NULL;
	sm_phase_wait(sm, then);
}

void configure_ports(struct sm *sm, sm_phase_fn then)
{
	sm->ports_next = 0;
	sm->ports_then = then;
	configure_ports_batch(sm);
}

/* State Sets are queued a batch of nodes at a time (SM_FEED_BATCH SMPs,
 * sm_phase_feed), so the MAD queue holds one batch instead of two Sets per
 * cable of the fabric (123K at 10K CAs, about 50 MB queued).  The walk's
 * cursor is sm->states_walk. */

uint8_t configure_states_busy(const struct sm *sm)
{
	return sm->states_walk.active ? sm->states_walk.to : 0;
}

/* The state Sets one node's ports need (the walk's from -> to). */
static void configure_node_states(struct sm *sm, size_t i)
{
	const struct fabric_node *n = &sm->next.nodes[i];
	const struct sm_states_walk *w = &sm->states_walk;

	for (unsigned p = 1; p <= n->num_ports; p++) {
		struct smp_port_info pi;

		if (!configure_state_wanted(sm, n, p, w->from))
			continue;
		smp_port_info_decode(n->ports[p].pi_raw, &pi);
		sm->st.state_sets++;
		configure_send(sm, (int)i, p, &pi, w->to);
	}
}

static void configure_states_batch(struct sm *sm)
{
	struct sm_states_walk *w = &sm->states_walk;

	if (sm_feed_walk(sm, &w->next, sm->next.n_nodes, configure_node_states,
			 configure_states_batch))
		return;
	w->active = 0;
	sm_phase_wait(sm, w->then);
}

void configure_states(struct sm *sm, uint8_t from_state, uint8_t to_state, sm_phase_fn then)
{
	sm->states_walk = (struct sm_states_walk){
	    .active = 1, .next = 0, .from = from_state, .to = to_state, .then = then};
	configure_states_batch(sm);
}
