/*
 * configure.c - LID assignment and PortInfo programming for a discovered
 * fabric: LIDs, SM LID, subnet prefix, neighbor MTU and operational VLs,
 * then the INIT -> ARMED -> ACTIVE walk.  Works on sm->next only, and only
 * sends a Set where the port differs from what the SM wants.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guid2lid.h"
#include "log.h"
#include "sm_priv.h"

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

static int configure_persist(struct sm *sm)
{
	char err[512];

	if (!sm->opts.guid2lid)
		return 0;
	if (guid2lid_save(sm->opts.guid2lid, &sm->lids, err, sizeof(err)) < 0) {
		log_warnx("NSM-E302 %s", err);
		return -EIO;
	}
	return 0;
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
	lid_alloc_assign(&sm->lids, reqs, n);
	for (size_t i = 0; i < n; i++)
		changed += reqs[i].lid != prev[i];
	sm->max_lid = 0;
	sm->st.lid_failures = configure_apply(sm, reqs, n);
	free(reqs);
	free(prev);
	smn = &sm->next.nodes[sm->next.sm_node];
	sm->my_lid = smn->ports[fabric_is_switch(smn) ? 0 : sm->next.sm_port].lid;
	if (changed || sm->st.number == 1)
		configure_persist(sm);
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
	/* SubnetTimeOut alone triggers a Set only on the first sweep: some
	 * ports (ibsim's among them) accept it but do not keep it. */
	if (pi->lid == cur.lid && pi->sm_lid == cur.sm_lid && pi->gid_prefix == cur.gid_prefix &&
	    pi->lmc == cur.lmc && (pi->subnet_timeout == cur.subnet_timeout || sm->st.number > 1) &&
	    pi->neighbor_mtu == cur.neighbor_mtu && pi->oper_vls == cur.oper_vls)
		return 0;
	log_debug("port 0x%016llx/%u: lid %u->%u smlid %u->%u lmc %u->%u timeout %u->%u "
		  "mtu %u->%u vls %u->%u prefix %s",
		  (unsigned long long)(p->guid ? p->guid : n->guid), port, cur.lid, pi->lid,
		  cur.sm_lid, pi->sm_lid, cur.lmc, pi->lmc, cur.subnet_timeout, pi->subnet_timeout,
		  cur.neighbor_mtu, pi->neighbor_mtu, cur.oper_vls, pi->oper_vls,
		  pi->gid_prefix == cur.gid_prefix ? "same" : "changes");
	return 1;
}

static void configure_set_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct sm *sm = r->sm;
	struct fabric_node *n = &sm->next.nodes[r->node];
	struct fabric_port *p = &n->ports[r->port];
	struct smp_port_info pi;

	if (status < 0) {
		sm->st.set_errors++;
		log_warnx("NSM-W310 port 0x%016llx/%u (%s): PortInfo Set%s failed: %s%s",
			  (unsigned long long)(p->guid ? p->guid : n->guid), r->port, n->desc,
			  r->extra ? " (state)" : "", strerror(-status),
			  resp ? " (refused by the port)" : "");
		return;
	}
	smp_port_info_decode(resp->data, &pi);
	memcpy(p->pi_raw, resp->data, sizeof(p->pi_raw));
	p->state = pi.state;
}

/* Send PortInfo Set; state 0 leaves the port state alone. */
static void configure_send(struct sm *sm, int node, unsigned port, struct smp_port_info *pi,
			   uint8_t state)
{
	const struct fabric_node *n = &sm->next.nodes[node];
	const struct fabric_port *p = &n->ports[port];
	struct sm_req r = {.node = node, .port = (uint8_t)port, .extra = state};
	uint8_t data[SMP_DATA_SIZE] = {0};

	pi->state = state;
	pi->phys_state = 0;          /* no change */
	pi->link_width_enabled = 0;  /* no change */
	pi->link_speed_enabled = 0;  /* no change */
	pi->link_down_default = 0;   /* no change */
	smp_port_info_encode(pi, data);
	r.hops = fabric_is_switch(n) ? n->dr_hops : p->dr_hops;
	memcpy(r.path, fabric_is_switch(n) ? n->dr_path : p->dr_path, sizeof(r.path));
	if (sm_submit(sm, &r, SMP_METHOD_SET, SMP_ATTR_PORT_INFO, port, data, configure_set_done) < 0)
		sm->st.set_errors++;
}

void configure_ports(struct sm *sm, sm_phase_fn then)
{
	for (size_t i = 0; i < sm->next.n_nodes; i++) {
		const struct fabric_node *n = &sm->next.nodes[i];

		for (unsigned p = 0; p <= n->num_ports; p++) {
			struct smp_port_info pi;

			if (!n->ports[p].present || (!fabric_is_switch(n) && p == 0))
				continue;
			if (!configure_want(sm, n, p, &pi))
				continue;
			sm->st.port_sets++;
			configure_send(sm, (int)i, p, &pi, PORT_STATE_NOP);
		}
	}
	sm_phase_wait(sm, then);
}

void configure_states(struct sm *sm, uint8_t from_state, uint8_t to_state, sm_phase_fn then)
{
	for (size_t i = 0; i < sm->next.n_nodes; i++) {
		const struct fabric_node *n = &sm->next.nodes[i];

		for (unsigned p = 1; p <= n->num_ports; p++) {
			const struct fabric_port *pt = &n->ports[p];
			struct smp_port_info pi;

			if (!pt->present || pt->state != from_state || !configure_peer(&sm->next, pt))
				continue;
			if (!fabric_is_switch(n) && !pt->lid)
				continue; /* a CA port without a LID stays in INIT */
			smp_port_info_decode(pt->pi_raw, &pi);
			sm->st.state_sets++;
			configure_send(sm, (int)i, p, &pi, to_state);
		}
	}
	sm_phase_wait(sm, then);
}
