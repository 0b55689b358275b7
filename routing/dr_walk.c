/*
 * dr_walk.c - discovery by directed route (dr_walk.h): builds a struct
 * fabric from decoded answers and asks its caller for the next Gets.
 * Owns only the walk's rules; sends, times and logs nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "routing/dr_walk.h"

void dr_walk_init(struct dr_walk *w, struct fabric *f, const struct dr_walk_ops *ops, void *ctx)
{
	w->f = f;
	w->ops = ops;
	w->ctx = ctx;
}

static void dr_walk_report(struct dr_walk *w, const struct dr_walk_problem *p)
{
	if (w->ops->problem)
		w->ops->problem(w->ctx, p);
}

/* Ask attr of node `node` over route's path. */
static void dr_walk_ask(struct dr_walk *w, const struct dr_walk_get *route, int node, uint8_t port,
			uint16_t attr)
{
	struct dr_walk_get g = *route;

	g.node = node;
	g.port = port;
	g.attr = attr;
	g.mod = attr == SMP_ATTR_PORT_INFO ? port : 0;
	w->ops->get(w->ctx, &g);
}

/* NodeInfo of whatever sits behind `port` of node `from` (reached by
 * path/hops), or of the local node when from is FABRIC_NONE. */
static void dr_walk_probe(struct dr_walk *w, int from, uint8_t port, const uint8_t *path,
			  uint8_t hops)
{
	struct dr_walk_get g = {.node = from, .port = port, .attr = SMP_ATTR_NODE_INFO};

	if (from != FABRIC_NONE) {
		memcpy(g.path, path, (size_t)hops + 1);
		g.hops = hops;
		if (hops >= FABRIC_MAX_HOPS) {
			struct dr_walk_problem p = {.kind = DR_WALK_TOO_FAR, .get = &g};

			dr_walk_report(w, &p);
			return;
		}
		g.path[++g.hops] = port;
	}
	w->ops->get(w->ctx, &g);
}

void dr_walk_start(struct dr_walk *w)
{
	w->f->sm_node = FABRIC_NONE;
	dr_walk_probe(w, FABRIC_NONE, 0, NULL, 0);
}

/* A port's PortInfo (raw) into the model; LinkUp ports lead on. */
static void dr_walk_port_info(struct dr_walk *w, const struct dr_walk_get *g, const uint8_t *raw)
{
	struct fabric_node *n = &w->f->nodes[g->node];
	struct fabric_port *p = &n->ports[g->port];
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
	if (!fabric_is_switch(n) || g->port == 0)
		p->lid = pi.lid;
	if (pi.phys_state != PORT_PHYS_LINKUP || pi.state < PORT_STATE_INIT)
		return;
	if (fabric_is_switch(n) && g->port != 0 && p->remote_node == FABRIC_NONE)
		dr_walk_probe(w, g->node, g->port, n->dr_path, n->dr_hops);
	else if (!fabric_is_switch(n) && g->node == w->f->sm_node && g->port == w->f->sm_port)
		dr_walk_probe(w, g->node, g->port, g->path, 0);
}

static void dr_walk_switch_info(struct dr_walk *w, const struct dr_walk_get *g, const uint8_t *raw)
{
	struct fabric_node *n = &w->f->nodes[g->node];
	struct smp_switch_info si;

	smp_switch_info_decode(raw, &si);
	n->lft_cap = si.linear_fdb_cap;
	n->lft_top = si.linear_fdb_top;
	memcpy(n->si_raw, raw, sizeof(n->si_raw));
}

static void dr_walk_desc(struct dr_walk *w, const struct dr_walk_get *g, const uint8_t *raw)
{
	struct smp_node_desc nd;

	smp_node_desc_decode(raw, &nd);
	snprintf(w->f->nodes[g->node].desc, sizeof(nd.desc), "%s", nd.desc);
}

/* A node seen for the first time: record it and ask for its details. */
static int dr_walk_new_node(struct dr_walk *w, const struct dr_walk_get *g,
			    const struct smp_node_info *ni)
{
	int idx = fabric_add_node(w->f, ni->node_guid, ni->node_type, ni->num_ports);
	struct fabric_node *n;
	unsigned num_ports;

	if (idx < 0)
		return idx;
	n = &w->f->nodes[idx];
	n->system_guid = ni->system_guid;
	n->vendor_id = ni->vendor_id;
	n->device_id = ni->device_id;
	n->dr_hops = g->hops;
	memcpy(n->dr_path, g->path, sizeof(n->dr_path));
	if (fabric_is_switch(n))
		n->ports[0].guid = ni->port_guid;
	num_ports = n->num_ports;
	dr_walk_ask(w, g, idx, 0, SMP_ATTR_NODE_DESC);
	if (ni->node_type != NODE_TYPE_SWITCH)
		return idx;
	dr_walk_ask(w, g, idx, 0, SMP_ATTR_SWITCH_INFO);
	for (unsigned p = 0; p <= num_ports; p++)
		dr_walk_ask(w, g, idx, (uint8_t)p, SMP_ATTR_PORT_INFO);
	return idx;
}

/* A CA/router port reached through g's route: keep the route, read it. */
static void dr_walk_end_port(struct dr_walk *w, const struct dr_walk_get *g, int idx,
			     const struct smp_node_info *ni)
{
	struct fabric_node *n = &w->f->nodes[idx];
	struct fabric_port *p = &n->ports[ni->local_port];

	if (fabric_port_route(n, ni->local_port)->hops || p->guid)
		return; /* reached already by another route */
	p->guid = ni->port_guid;
	if (g->hops && fabric_port_route_set(n, ni->local_port, g->path, g->hops) < 0) {
		struct dr_walk_problem pr = {
		    .kind = DR_WALK_NO_MEMORY, .get = g, .node = idx, .port = ni->local_port};

		dr_walk_report(w, &pr);
	}
	dr_walk_ask(w, g, idx, ni->local_port, SMP_ATTR_PORT_INFO);
}

/* A switch reached again over another route: keep a few such routes,
 * tried when its first route does not answer (the sweep's calls.c). */
static void dr_walk_alt_route(struct fabric_node *n, const struct dr_walk_get *g)
{
	if (!fabric_is_switch(n) || !g->hops)
		return;
	if (smp_same_route(g->path, g->hops, n->dr_path, n->dr_hops))
		return;
	for (unsigned k = 0; k < FABRIC_ALT_PATHS; k++) {
		const struct fabric_route *alt = fabric_route_get(n, k);
		struct fabric_route *slot;

		if (smp_same_route(g->path, g->hops, alt->path, alt->hops))
			return;
		if (alt->hops)
			continue;
		slot = fabric_route_slot(n, k);
		if (!slot)
			return; /* no memory: one route fewer to try */
		memcpy(slot->path, g->path, sizeof(slot->path));
		slot->hops = g->hops;
		return;
	}
}

/* Why NodeInfo ni cannot be taken, or NULL. */
static const char *dr_walk_invalid(const struct smp_node_info *ni)
{
	if (ni->node_guid == 0)
		return "NodeGUID 0";
	if (ni->node_type < NODE_TYPE_CA || ni->node_type > NODE_TYPE_ROUTER)
		return "unknown node type";
	if (ni->num_ports == 0 || ni->num_ports > FABRIC_MAX_PORTS)
		return "bad NumPorts";
	if (ni->local_port > ni->num_ports ||
	    (ni->node_type != NODE_TYPE_SWITCH && !ni->local_port))
		return "bad LocalPortNumber";
	return NULL;
}

/* The port g went out of <-> the port that answered; 0 or < 0. */
static int dr_walk_link(struct dr_walk *w, const struct dr_walk_get *g, int idx,
			const struct smp_node_info *ni)
{
	const struct fabric_port *fp = &w->f->nodes[g->node].ports[g->port];
	const struct fabric_port *tp = &w->f->nodes[idx].ports[ni->local_port];

	if (tp->remote_node != FABRIC_NONE &&
	    (tp->remote_node != g->node || tp->remote_port != g->port)) {
		struct dr_walk_problem p = {.kind = DR_WALK_TWO_LINKS,
					    .get = g,
					    .ni = ni,
					    .node = idx,
					    .port = ni->local_port};

		dr_walk_report(w, &p);
		return -EEXIST;
	}
	if (fp->remote_node == idx && fp->remote_port == ni->local_port)
		return 0;
	return fabric_link(w->f, g->node, g->port, idx, ni->local_port);
}

static void dr_walk_node_info(struct dr_walk *w, const struct dr_walk_get *g, const uint8_t *raw)
{
	struct dr_walk_problem p = {.get = g};
	struct smp_node_info ni;
	int idx;

	smp_node_info_decode(raw, &ni);
	p.ni = &ni;
	p.why = dr_walk_invalid(&ni);
	if (p.why) {
		p.kind = DR_WALK_BAD_NODE_INFO;
		dr_walk_report(w, &p);
		return;
	}
	idx = fabric_find(w->f, ni.node_guid);
	if (idx == FABRIC_NONE)
		idx = dr_walk_new_node(w, g, &ni);
	else
		dr_walk_alt_route(&w->f->nodes[idx], g);
	if (idx < 0)
		return;
	if (w->f->nodes[idx].type != ni.node_type || w->f->nodes[idx].num_ports != ni.num_ports) {
		p.kind = DR_WALK_TWO_NODES;
		dr_walk_report(w, &p);
		return;
	}
	if (g->node == FABRIC_NONE) {
		w->f->sm_node = idx;
		w->f->sm_port = ni.local_port;
	} else if (dr_walk_link(w, g, idx, &ni) < 0) {
		return;
	}
	if (!fabric_is_switch(&w->f->nodes[idx]))
		dr_walk_end_port(w, g, idx, &ni);
}

void dr_walk_answer(struct dr_walk *w, const struct dr_walk_get *g, int status, const uint8_t *data)
{
	if (status < 0) {
		data = w->ops->lost ? w->ops->lost(w->ctx, g, status) : NULL;
		if (!data)
			return;
	}
	switch (g->attr) {
	case SMP_ATTR_NODE_INFO:
		dr_walk_node_info(w, g, data);
		break;
	case SMP_ATTR_PORT_INFO:
		dr_walk_port_info(w, g, data);
		break;
	case SMP_ATTR_SWITCH_INFO:
		dr_walk_switch_info(w, g, data);
		break;
	case SMP_ATTR_NODE_DESC:
		dr_walk_desc(w, g, data);
		break;
	}
}
