/*
 * sm/core/discover.c - the heavy sweep's discovery: a breadth-first walk over
 * directed routes from the SM's port with many SMPs in flight.  Fills
 * sm->next (nodes by GUID, ports, links); touches nothing else.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sm/core/log.h"
#include "sm/core/sm_priv.h"

static void discover_node_info_done(struct sm_req *r, int status, const struct smp *resp);

static void discover_submit(struct sm *sm, const struct sm_req *req, uint16_t attr, uint32_t mod,
			    void (*done)(struct sm_req *r, int status, const struct smp *resp))
{
	if (sm_submit_paced(sm, req, attr, mod, done) < 0)
		log_warnx("NSM-E200 out of memory queuing %s", smp_attr_name(attr));
}

/* Ask NodeInfo of whatever sits behind `port` of node `from` (reached by
 * from's path), or of the SM's own node when from is FABRIC_NONE. */
static void discover_probe(struct sm *sm, int from, uint8_t port, const uint8_t *path, uint8_t hops)
{
	struct sm_req r = {.node = from, .port = port, .hops = hops};

	if (from != FABRIC_NONE) {
		if (hops >= FABRIC_MAX_HOPS) {
			log_warnx("NSM-W201 node 0x%016llx port %u: beyond %u hops, not explored",
				  (unsigned long long)sm->next.nodes[from].guid, port,
				  FABRIC_MAX_HOPS);
			return;
		}
		memcpy(r.path, path, (size_t)hops + 1);
		r.hops = hops + 1;
		r.path[r.hops] = port;
	}
	discover_submit(sm, &r, SMP_ATTR_NODE_INFO, 0, discover_node_info_done);
}

static const uint8_t *discover_last_port_info(const struct sm *sm, uint64_t guid, uint8_t port);
static void discover_port_apply(struct sm_req *r, const uint8_t *raw);

static void discover_port_info_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct sm *sm = r->sm;
	struct fabric_node *n = &sm->next.nodes[r->node];
	char buf[200];

	if (status < 0) {
		const uint8_t *last = discover_last_port_info(sm, n->guid, r->port);

		sm->st.unreachable++;
		log_warnx("NSM-W202 node 0x%016llx port %u: PortInfo failed (%s) via %s%s",
			  (unsigned long long)n->guid, r->port, strerror(-status),
			  smp_path_str(r->path, r->hops, buf, sizeof(buf)),
			  last ? "; using what the last sweep read" : "");
		if (last)
			discover_port_apply(r, last);
		return;
	}
	discover_port_apply(r, resp->data);
}

/* What the last good sweep read of this port (a MAD lost now must not
 * make a healthy port vanish: its routes would go with it), or NULL. */
static const uint8_t *discover_last_port_info(const struct sm *sm, uint64_t guid, uint8_t port)
{
	int i = fabric_find(&sm->cur, guid);

	if (i == FABRIC_NONE || port > sm->cur.nodes[i].num_ports ||
	    !sm->cur.nodes[i].ports[port].present)
		return NULL;
	return sm->cur.nodes[i].ports[port].pi_raw;
}

/* A port's PortInfo (raw) into the model; LinkUp ports lead on. */
static void discover_port_apply(struct sm_req *r, const uint8_t *raw)
{
	struct sm *sm = r->sm;
	struct fabric_node *n = &sm->next.nodes[r->node];
	struct fabric_port *p = &n->ports[r->port];
	struct smp_port_info pi;

	smp_port_info_decode(raw, &pi);
	memcpy(p->pi_raw, raw, sizeof(p->pi_raw));
	p->present = 1;
	p->state = pi.state;
	p->phys_state = pi.phys_state;
	p->width_active = pi.link_width_active;
	p->speed_active = pi.link_speed_active;
	p->mtu_cap = pi.mtu_cap;
	p->vl_cap = pi.vl_cap;
	p->lmc = pi.lmc;
	if (!fabric_is_switch(n) || r->port == 0)
		p->lid = pi.lid;
	if (pi.phys_state != PORT_PHYS_LINKUP || pi.state < PORT_STATE_INIT)
		return;
	if (fabric_is_switch(n) && r->port != 0 && p->remote_node == FABRIC_NONE)
		discover_probe(sm, r->node, r->port, n->dr_path, n->dr_hops);
	else if (!fabric_is_switch(n) && r->node == sm->next.sm_node && r->port == sm->next.sm_port)
		discover_probe(sm, r->node, r->port, r->path, 0);
}

static void discover_desc_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct fabric_node *n = &r->sm->next.nodes[r->node];
	const char *name = sm_name_of(r->sm, n->guid);
	struct smp_node_desc nd;

	if (name) { /* the policy's name wins over the NodeDescription */
		snprintf(n->desc, sizeof(n->desc), "%s", name);
		return;
	}
	if (status < 0)
		return; /* the description is cosmetic; the node stays */
	smp_node_desc_decode(resp->data, &nd);
	snprintf(n->desc, sizeof(nd.desc), "%s", nd.desc);
}

static void discover_psc_done(struct sm_req *r, int status, const struct smp *resp)
{
	(void)resp;
	if (status < 0)
		log_debug("switch at %s: PortStateChange not cleared (%s)",
			  smp_path_str(r->path, r->hops, (char[200]){0}, 200), strerror(-status));
}

/* This sweep sees what changed, so clear the switch's PortStateChange
 * (write 1 to clear, IBA 14.2.5.4): the light sweep watches it.  The Set
 * echoes what the switch reported, so nothing else changes. */
static void discover_clear_psc(struct sm_req *r, const uint8_t *si_raw)
{
	if (sm_submit(r->sm, r, SMP_METHOD_SET, SMP_ATTR_SWITCH_INFO, 0, si_raw,
		      discover_psc_done) < 0)
		log_debug("PortStateChange: no memory to clear it");
}

static void discover_switch_info_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct fabric_node *n = &r->sm->next.nodes[r->node];
	struct smp_switch_info si;

	if (status < 0) {
		r->sm->st.unreachable++;
		log_warnx("NSM-W203 switch 0x%016llx: SwitchInfo failed (%s)",
			  (unsigned long long)n->guid, strerror(-status));
		return;
	}
	smp_switch_info_decode(resp->data, &si);
	n->lft_cap = si.linear_fdb_cap;
	n->lft_top = si.linear_fdb_top;
	memcpy(n->si_raw, resp->data, sizeof(n->si_raw));
	if (si.port_state_change)
		discover_clear_psc(r, resp->data);
}

/* A node seen for the first time: record it and ask for its details. */
static int discover_new_node(struct sm *sm, const struct sm_req *r, const struct smp_node_info *ni)
{
	struct sm_req q = *r;
	int idx = fabric_add_node(&sm->next, ni->node_guid, ni->node_type, ni->num_ports);
	struct fabric_node *n;

	if (idx < 0)
		return idx;
	n = &sm->next.nodes[idx];
	n->system_guid = ni->system_guid;
	n->vendor_id = ni->vendor_id;
	n->device_id = ni->device_id;
	n->dr_hops = r->hops;
	memcpy(n->dr_path, r->path, sizeof(n->dr_path));
	q.node = idx;
	q.port = 0;
	discover_submit(sm, &q, SMP_ATTR_NODE_DESC, 0, discover_desc_done);
	if (!fabric_is_switch(n))
		return idx;
	n->ports[0].guid = ni->port_guid;
	discover_submit(sm, &q, SMP_ATTR_SWITCH_INFO, 0, discover_switch_info_done);
	for (unsigned p = 0; p <= n->num_ports; p++) {
		q.port = (uint8_t)p;
		discover_submit(sm, &q, SMP_ATTR_PORT_INFO, p, discover_port_info_done);
	}
	return idx;
}

/* A CA/router port reached through this path: remember the path and read it. */
static void discover_end_port(struct sm *sm, const struct sm_req *r, int idx,
			      const struct smp_node_info *ni)
{
	struct fabric_node *n = &sm->next.nodes[idx];
	struct fabric_port *p = &n->ports[ni->local_port];
	struct sm_req q = *r;

	if (fabric_port_route(n, ni->local_port)->hops || p->guid)
		return; /* reached already by another route */
	p->guid = ni->port_guid;
	if (r->hops && fabric_port_route_set(n, ni->local_port, r->path, r->hops) < 0)
		log_warnx("NSM-E200 out of memory keeping the route to 0x%016llx port %u",
			  (unsigned long long)n->guid, ni->local_port);
	q.node = idx;
	q.port = ni->local_port;
	discover_submit(sm, &q, SMP_ATTR_PORT_INFO, ni->local_port, discover_port_info_done);
}

/* A switch reached again over another route: keep a few such routes,
 * tried when its first route does not answer (sm.c). */
static void discover_alt_route(struct fabric_node *n, const struct sm_req *r)
{
	if (!fabric_is_switch(n) || !r->hops)
		return;
	if (smp_same_route(r->path, r->hops, n->dr_path, n->dr_hops))
		return;
	for (unsigned k = 0; k < FABRIC_ALT_PATHS; k++) {
		const struct fabric_route *alt = fabric_route_get(n, k);
		struct fabric_route *slot;

		if (smp_same_route(r->path, r->hops, alt->path, alt->hops))
			return;
		if (alt->hops)
			continue;
		slot = fabric_route_slot(n, k);
		if (!slot)
			return; /* no memory: one route fewer to try */
		memcpy(slot->path, r->path, sizeof(slot->path));
		slot->hops = r->hops;
		return;
	}
}

static int discover_valid(struct sm *sm, const struct sm_req *r, const struct smp_node_info *ni)
{
	char buf[200];
	const char *why = NULL;

	if (ni->node_guid == 0)
		why = "NodeGUID 0";
	else if (ni->node_type < NODE_TYPE_CA || ni->node_type > NODE_TYPE_ROUTER)
		why = "unknown node type";
	else if (ni->num_ports == 0 || ni->num_ports > FABRIC_MAX_PORTS)
		why = "bad NumPorts";
	else if (ni->local_port > ni->num_ports ||
		 (ni->node_type != NODE_TYPE_SWITCH && !ni->local_port))
		why = "bad LocalPortNumber";
	if (!why)
		return 1;
	sm->st.unreachable++;
	log_warnx("NSM-W204 node 0x%016llx via %s: NodeInfo rejected (%s)",
		  (unsigned long long)ni->node_guid,
		  smp_path_str(r->path, r->hops, buf, sizeof(buf)), why);
	return 0;
}

static int discover_link(struct sm *sm, const struct sm_req *r, int idx,
			 const struct smp_node_info *ni)
{
	struct fabric_node *from = &sm->next.nodes[r->node];
	struct fabric_port *fp = &from->ports[r->port];
	struct fabric_port *tp = &sm->next.nodes[idx].ports[ni->local_port];

	if (tp->remote_node != FABRIC_NONE &&
	    (tp->remote_node != r->node || tp->remote_port != r->port)) {
		log_warnx("NSM-W205 node 0x%016llx port %u answers from two links "
			  "(0x%016llx/%u and 0x%016llx/%u): duplicate GUID?",
			  (unsigned long long)ni->node_guid, ni->local_port,
			  (unsigned long long)sm->next.nodes[tp->remote_node].guid, tp->remote_port,
			  (unsigned long long)from->guid, r->port);
		return -EEXIST;
	}
	if (fp->remote_node == idx && fp->remote_port == ni->local_port)
		return 0;
	return fabric_link(&sm->next, r->node, r->port, idx, ni->local_port);
}

static void discover_node_info_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct sm *sm = r->sm;
	struct smp_node_info ni;
	char buf[200];
	int idx;

	if (status < 0) {
		sm->st.unreachable++;
		if (r->node == FABRIC_NONE)
			log_warnx("NSM-E206 the SM's own port does not answer NodeInfo (%s)",
				  strerror(-status));
		else
			log_warnx("NSM-W206 no answer from the node behind 0x%016llx port %u "
				  "(DR path %s): %s",
				  (unsigned long long)sm->next.nodes[r->node].guid, r->port,
				  smp_path_str(r->path, r->hops, buf, sizeof(buf)),
				  strerror(-status));
		return;
	}
	smp_node_info_decode(resp->data, &ni);
	if (!discover_valid(sm, r, &ni))
		return;
	idx = fabric_find(&sm->next, ni.node_guid);
	if (idx == FABRIC_NONE)
		idx = discover_new_node(sm, r, &ni);
	else
		discover_alt_route(&sm->next.nodes[idx], r);
	if (idx < 0)
		return;
	if (sm->next.nodes[idx].type != ni.node_type ||
	    sm->next.nodes[idx].num_ports != ni.num_ports) {
		log_warnx("NSM-W207 GUID 0x%016llx seen as two different nodes (via %s)",
			  (unsigned long long)ni.node_guid,
			  smp_path_str(r->path, r->hops, buf, sizeof(buf)));
		return;
	}
	if (r->node == FABRIC_NONE) {
		sm->next.sm_node = idx;
		sm->next.sm_port = ni.local_port;
	} else if (discover_link(sm, r, idx, &ni) < 0) {
		return;
	}
	if (!fabric_is_switch(&sm->next.nodes[idx]))
		discover_end_port(sm, r, idx, &ni);
}

/* A cable found from one end whose other end could not be read (its
 * PortInfo answers lost, nothing from an earlier sweep to fall back on)
 * carries no route this sweep: routing over a port the SM knows nothing
 * of would make the gate refuse every engine and fail the whole sweep.
 * The next sweep (heavy: this one counted the port unreachable) looks
 * again. */
static void discover_cut_unread(struct sm *sm)
{
	struct fabric *f = &sm->next;

	for (size_t i = 0; i < f->n_nodes; i++) {
		struct fabric_node *n = &f->nodes[i];

		for (unsigned p = 1; p <= n->num_ports; p++) {
			struct fabric_port *a = &n->ports[p];
			struct fabric_port *b;

			if (a->remote_node == FABRIC_NONE)
				continue;
			b = &f->nodes[a->remote_node].ports[a->remote_port];
			if (a->present && b->present)
				continue;
			log_warnx("NSM-W209 link 0x%016llx/%u - 0x%016llx/%u: an end could not be "
				  "read; not routed over this sweep",
				  (unsigned long long)n->guid, p,
				  (unsigned long long)f->nodes[a->remote_node].guid,
				  a->remote_port);
			b->remote_node = FABRIC_NONE;
			b->remote_port = 0;
			a->remote_node = FABRIC_NONE;
			a->remote_port = 0;
		}
	}
}

static int discover_port_up(const struct fabric_port *p)
{
	return p->present && p->phys_state == PORT_PHYS_LINKUP && p->state >= PORT_STATE_INIT;
}

/* Node o of the last good model, silent behind node `from` port `port`
 * this sweep, into next as it was then (stale); its index or < 0. */
static int discover_carry(struct sm *sm, int from, uint8_t port, const struct fabric_node *o,
			  uint8_t oport)
{
	struct fabric *f = &sm->next;
	const struct fabric_node *fn = &f->nodes[from];
	uint8_t path[FABRIC_MAX_HOPS + 1] = {0};
	uint8_t hops = fabric_is_switch(fn) ? fn->dr_hops : 0;
	struct fabric_port *ports;
	struct fabric_node *n;
	uint64_t from_guid = fn->guid;
	char buf[200];
	int j;

	if (hops >= FABRIC_MAX_HOPS)
		return -E2BIG;
	if (fabric_is_switch(fn))
		memcpy(path, fn->dr_path, sizeof(path));
	path[++hops] = port;
	j = fabric_add_node(f, o->guid, o->type, o->num_ports);
	if (j < 0)
		return j;
	n = &f->nodes[j];
	ports = n->ports;
	*n = *o;
	n->ports = ports;
	n->routes = NULL; /* o's stay with the last sweep's model */
	memcpy(ports, o->ports, ((size_t)o->num_ports + 1) * sizeof(*ports));
	for (unsigned p = 0; p <= n->num_ports; p++) {
		ports[p].remote_node = FABRIC_NONE;
		ports[p].remote_port = 0;
	}
	n->stale = 1;
	if (fabric_is_switch(n)) {
		n->dr_hops = hops;
		memcpy(n->dr_path, path, sizeof(path));
	} else if (fabric_port_route_set(n, oport, path, hops) < 0) {
		log_warnx("NSM-E200 out of memory keeping the route to 0x%016llx port %u",
			  (unsigned long long)n->guid, oport);
	}
	sm->st.stale++;
	log_warnx("NSM-W208 node 0x%016llx (%s) behind 0x%016llx port %u (DR path %s) did not "
		  "answer; kept as the last sweep saw it",
		  (unsigned long long)n->guid, n->desc, (unsigned long long)from_guid, port,
		  smp_path_str(path, hops, buf, sizeof(buf)));
	return j;
}

/* A cable that is up at its near end but whose far end did not answer
 * this sweep (every NodeInfo to it lost, every route tried) keeps what
 * the last good sweep saw there: the node (stale, with its last
 * PortInfo) and the cable.  A lost MAD must not make a working node
 * vanish, its LID and routes with it, only to come back next sweep.
 * Nodes kept this way are looked at like the others, so a silent switch
 * keeps what hangs below it too.  The sweep still counts the miss, so it
 * is retried soon. */
static void discover_keep_silent(struct sm *sm)
{
	struct fabric *f = &sm->next;
	const struct fabric *c = &sm->cur;

	for (size_t i = 0; i < f->n_nodes; i++) { /* carried nodes are appended */
		int ci = fabric_find(c, f->nodes[i].guid);
		int sw = fabric_is_switch(&f->nodes[i]);

		if (ci == FABRIC_NONE || (!sw && (int)i != f->sm_node))
			continue; /* only switches (and the SM's port) lead on */
		for (unsigned p = 1; p <= f->nodes[i].num_ports && p <= c->nodes[ci].num_ports;
		     p++) {
			const struct fabric_port *cp = &c->nodes[ci].ports[p];
			const struct fabric_node *o;
			uint8_t rp = cp->remote_port;
			int j;

			if (f->nodes[i].ports[p].remote_node != FABRIC_NONE ||
			    !discover_port_up(&f->nodes[i].ports[p]) ||
			    cp->remote_node == FABRIC_NONE || (!sw && p != f->sm_port))
				continue;
			if (!f->nodes[i].stale &&
			    !quar_missed_in(&sm->quar, sm->st.number, f->nodes[i].guid, (uint8_t)p,
					    SMP_ATTR_NODE_INFO))
				continue; /* not silent: something else answered there */
			o = &c->nodes[cp->remote_node];
			j = fabric_find(f, o->guid);
			if (j == FABRIC_NONE)
				j = discover_carry(sm, (int)i, (uint8_t)p, o, rp);
			if (j < 0 || rp > f->nodes[j].num_ports ||
			    f->nodes[j].ports[rp].remote_node != FABRIC_NONE ||
			    !discover_port_up(&f->nodes[j].ports[rp]))
				continue;
			fabric_link(f, (int)i, (uint8_t)p, j, rp);
		}
	}
}

static void discover_done(struct sm *sm)
{
	sm_phase_fn then = sm->discover_then;

	discover_keep_silent(sm);
	discover_cut_unread(sm);
	then(sm);
}

void discover_start(struct sm *sm, sm_phase_fn then)
{
	sm->next.sm_node = FABRIC_NONE;
	sm->discover_then = then;
	discover_probe(sm, FABRIC_NONE, 0, NULL, 0);
	sm_phase_wait(sm, discover_done);
}
