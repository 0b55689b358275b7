/*
 * sm/core/discover.c - the heavy sweep's discovery: drives the directed-route
 * walk (routing/dr_walk.c, shared with nanosm-verify) over the sweep's paced
 * queue with many SMPs in flight, logs what it reports with the NSM IDs, and adds
 * what only the sweep does: policy node names, PortStateChange cleared, and
 * what the last sweep saw standing in for what is silent now.  Fills
 * sm->next (nodes by GUID, ports, links) and sm->walk; touches nothing else.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sm/core/log.h"
#include "sm/core/sm_priv.h"

/* ---- The walk's transport: routing/dr_walk.c decides what to ask ------- */

static void discover_answer(struct sm_req *r, int status, const struct smp *resp);

static void discover_get(void *ctx, const struct dr_walk_get *g)
{
	struct sm *sm = ctx;
	struct sm_req r = {.node = g->node, .port = g->port, .hops = g->hops, .extra = g->attr};

	memcpy(r.path, g->path, sizeof(r.path));
	if (sm_submit_paced(sm, &r, g->attr, g->mod, discover_answer) < 0)
		log_warnx("NSM-E200 out of memory queuing %s", smp_attr_name(g->attr));
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

static const uint8_t *discover_port_info_lost(struct sm *sm, const struct dr_walk_get *g,
					      int status)
{
	uint64_t guid = sm->next.nodes[g->node].guid;
	const uint8_t *last = discover_last_port_info(sm, guid, g->port);
	char buf[200];

	sm->st.unreachable++;
	log_warnx("NSM-W202 node 0x%016llx port %u: PortInfo failed (%s) via %s%s",
		  (unsigned long long)guid, g->port, strerror(-status),
		  smp_path_str(g->path, g->hops, buf, sizeof(buf)),
		  last ? "; using what the last sweep read" : "");
	return last;
}

static void discover_node_info_lost(struct sm *sm, const struct dr_walk_get *g, int status)
{
	char buf[200];

	sm->st.unreachable++;
	if (g->node == FABRIC_NONE)
		log_warnx("NSM-E206 the SM's own port does not answer NodeInfo (%s)",
			  strerror(-status));
	else
		log_warnx("NSM-W206 no answer from the node behind 0x%016llx port %u "
			  "(DR path %s): %s",
			  (unsigned long long)sm->next.nodes[g->node].guid, g->port,
			  smp_path_str(g->path, g->hops, buf, sizeof(buf)), strerror(-status));
}

/* A Get without an answer: logged and counted unreachable, except the
 * NodeDescription (cosmetic: the node stays); a PortInfo falls back on
 * what the last sweep read. */
static const uint8_t *discover_lost(void *ctx, const struct dr_walk_get *g, int status)
{
	struct sm *sm = ctx;

	switch (g->attr) {
	case SMP_ATTR_NODE_INFO:
		discover_node_info_lost(sm, g, status);
		break;
	case SMP_ATTR_PORT_INFO:
		return discover_port_info_lost(sm, g, status);
	case SMP_ATTR_SWITCH_INFO:
		sm->st.unreachable++;
		log_warnx("NSM-W203 switch 0x%016llx: SwitchInfo failed (%s)",
			  (unsigned long long)sm->next.nodes[g->node].guid, strerror(-status));
		break;
	}
	return NULL;
}

static void discover_problem(void *ctx, const struct dr_walk_problem *p)
{
	struct sm *sm = ctx;
	const struct fabric *f = &sm->next;
	const struct dr_walk_get *g = p->get;
	char buf[200];

	switch (p->kind) {
	case DR_WALK_TOO_FAR:
		log_warnx("NSM-W201 node 0x%016llx port %u: beyond %u hops, not explored",
			  (unsigned long long)f->nodes[g->node].guid, g->port, FABRIC_MAX_HOPS);
		break;
	case DR_WALK_BAD_NODE_INFO:
		sm->st.unreachable++;
		log_warnx("NSM-W204 node 0x%016llx via %s: NodeInfo rejected (%s)",
			  (unsigned long long)p->ni->node_guid,
			  smp_path_str(g->path, g->hops, buf, sizeof(buf)), p->why);
		break;
	case DR_WALK_TWO_NODES:
		log_warnx("NSM-W207 GUID 0x%016llx seen as two different nodes (via %s)",
			  (unsigned long long)p->ni->node_guid,
			  smp_path_str(g->path, g->hops, buf, sizeof(buf)));
		break;
	case DR_WALK_TWO_LINKS: {
		const struct fabric_port *tp = &f->nodes[p->node].ports[p->port];

		log_warnx("NSM-W205 node 0x%016llx port %u answers from two links "
			  "(0x%016llx/%u and 0x%016llx/%u): duplicate GUID?",
			  (unsigned long long)p->ni->node_guid, p->port,
			  (unsigned long long)f->nodes[tp->remote_node].guid, tp->remote_port,
			  (unsigned long long)f->nodes[g->node].guid, g->port);
		break;
	}
	case DR_WALK_NO_MEMORY:
		log_warnx("NSM-E200 out of memory keeping the route to 0x%016llx port %u",
			  (unsigned long long)f->nodes[p->node].guid, p->port);
		break;
	}
}

static const struct dr_walk_ops discover_walk_ops = {
    .get = discover_get, .lost = discover_lost, .problem = discover_problem};

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
	struct smp_switch_info si;

	smp_switch_info_decode(si_raw, &si);
	if (!si.port_state_change)
		return;
	if (sm_submit(r->sm, r, SMP_METHOD_SET, SMP_ATTR_SWITCH_INFO, 0, si_raw,
		      discover_psc_done) < 0)
		log_debug("PortStateChange: no memory to clear it");
}

/* An answer (or none) to one of the walk's Gets: the walker takes it;
 * then what only the sweep does - the policy's node name wins over the
 * NodeDescription, and a switch's PortStateChange is cleared. */
static void discover_answer(struct sm_req *r, int status, const struct smp *resp)
{
	struct sm *sm = r->sm;
	uint16_t attr = (uint16_t)r->extra;
	struct dr_walk_get g = {.node = r->node,
				.port = r->port,
				.attr = attr,
				.mod = attr == SMP_ATTR_PORT_INFO ? r->port : 0,
				.hops = r->hops};
	const char *name;

	memcpy(g.path, r->path, sizeof(g.path));
	dr_walk_answer(&sm->walk, &g, status, status < 0 ? NULL : resp->data);
	if (attr == SMP_ATTR_NODE_DESC) {
		name = sm_name_of(sm, sm->next.nodes[r->node].guid);
		if (name)
			snprintf(sm->next.nodes[r->node].desc, sizeof(sm->next.nodes[r->node].desc),
				 "%s", name);
	} else if (attr == SMP_ATTR_SWITCH_INFO && status >= 0) {
		discover_clear_psc(r, resp->data);
	}
}

/* ---- After the walk: what the last sweep saw stands in for silence ----- */

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
	sm->discover_then = then;
	dr_walk_init(&sm->walk, &sm->next, &discover_walk_ops, sm);
	dr_walk_start(&sm->walk);
	sm_phase_wait(sm, discover_done);
}
