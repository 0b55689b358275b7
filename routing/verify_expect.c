/*
 * verify_expect.c - the expected topology against the live one, for
 * nanosm-verify (see verify_expect.h).  Takes two const fabrics; never
 * reads a file, sends or prints.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mad/smp.h"
#include "routing/verify_expect.h"

/* ---- The list ------------------------------------------------------------- */

static int verify_expect_add(struct verify_expect *ex, const struct verify_gap *g)
{
	if (ex->n == ex->cap) {
		size_t cap = ex->cap ? 2 * ex->cap : 16;
		struct verify_gap *grown = realloc(ex->gap, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		ex->gap = grown;
		ex->cap = cap;
	}
	ex->gap[ex->n++] = *g;
	ex->count[g->kind]++;
	ex->failures += g->kind != VERIFY_GAP_NEW;
	return 0;
}

static struct verify_gap verify_gap_of(enum verify_gap_kind kind, int node, uint8_t port)
{
	return (struct verify_gap){.kind = kind,
				   .node = node,
				   .port = port,
				   .peer = FABRIC_NONE,
				   .live_node = FABRIC_NONE};
}

void verify_expect_fini(struct verify_expect *ex)
{
	free(ex->gap);
	memset(ex, 0, sizeof(*ex));
}

/* ---- Nodes, host ports, LIDs --------------------------------------------- */

/* The live port (node li) was read: its PortInfo answered. */
static int verify_expect_reached(const struct fabric *live, int li, unsigned port)
{
	return li != FABRIC_NONE && port <= live->nodes[li].num_ports &&
	       live->nodes[li].ports[port].present;
}

/* The ports of a CA the file lists: the cabled ones (ibnetdiscover lists
 * no other), or any with a GUID. */
static int verify_expect_host_port(const struct fabric_port *p)
{
	return p->remote_node != FABRIC_NONE || p->present;
}

static int verify_expect_lid(struct verify_expect *ex, int node, unsigned port, int li)
{
	const struct fabric_port *w = &ex->want->nodes[node].ports[port];
	const struct fabric_port *l = &ex->live->nodes[li].ports[port];
	struct verify_gap g = verify_gap_of(VERIFY_GAP_LID, node, (uint8_t)port);

	if (!w->lid || !l->present || l->lid == w->lid)
		return 0;
	g.live_node = li;
	g.live_port = (uint8_t)port;
	g.want_lid = w->lid;
	g.live_lid = l->lid;
	return verify_expect_add(ex, &g);
}

/* A node of want: a switch or router not reached, or each of a CA's ports
 * not reached; a reached one's LIDs. */
static int verify_expect_node(struct verify_expect *ex, int node)
{
	const struct fabric_node *n = &ex->want->nodes[node];
	int li = fabric_find(ex->live, n->guid);
	int rc = 0;

	if (n->type != NODE_TYPE_CA) {
		if (li == FABRIC_NONE) {
			struct verify_gap g = verify_gap_of(VERIFY_GAP_NODE, node, 0);

			return verify_expect_add(ex, &g);
		}
		return fabric_is_switch(n) ? verify_expect_lid(ex, node, 0, li) : 0;
	}
	for (unsigned p = 1; p <= n->num_ports && rc == 0; p++) {
		struct verify_gap g = verify_gap_of(VERIFY_GAP_HOST, node, (uint8_t)p);

		if (!verify_expect_host_port(&n->ports[p]))
			continue;
		if (!verify_expect_reached(ex->live, li, p))
			rc = verify_expect_add(ex, &g);
		else
			rc = verify_expect_lid(ex, node, p, li);
	}
	return rc;
}

/* ---- Cables ----------------------------------------------------------------- */

/* The live state of one end of want's cable, when that end was reached. */
struct verify_end {
	int li; /* live node, FABRIC_NONE if not reached */
	uint8_t port;
	const struct fabric_port *lp; /* live port, NULL if not reached */
};

static struct verify_end verify_expect_end(const struct verify_expect *ex, int node, uint8_t port)
{
	int li = fabric_find(ex->live, ex->want->nodes[node].guid);
	struct verify_end e = {li, port, NULL};

	if (verify_expect_reached(ex->live, li, port))
		e.lp = &ex->live->nodes[li].ports[port];
	return e;
}

static int verify_end_up(const struct verify_end *e)
{
	return e->lp->phys_state == PORT_PHYS_LINKUP && e->lp->state >= PORT_STATE_INIT;
}

/* Live end e is cabled to the want node `to` port `to_port`. */
static int verify_end_joins(const struct verify_expect *ex, const struct verify_end *e, int to,
			    uint8_t to_port)
{
	return e->lp && e->lp->remote_node != FABRIC_NONE &&
	       ex->live->nodes[e->lp->remote_node].guid == ex->want->nodes[to].guid &&
	       e->lp->remote_port == to_port;
}

static void verify_gap_end(struct verify_gap *g, const struct verify_end *e)
{
	g->live_node = e->li;
	g->live_port = e->port;
	g->phys_state = e->lp->phys_state;
	g->state = e->lp->state;
}

/* Why the cable a - b is not there: an end cabled elsewhere, else an end
 * down, else an end up with nothing behind it, else no end reached. */
static void verify_expect_why(struct verify_gap *g, const struct verify_end *a,
			      const struct verify_end *b)
{
	const struct verify_end *ends[2] = {a, b};

	g->kind = VERIFY_GAP_CABLE_LOST;
	for (int i = 0; i < 2; i++)
		if (ends[i]->lp && ends[i]->lp->remote_node != FABRIC_NONE) {
			g->kind = VERIFY_GAP_CABLE_MOVED;
			verify_gap_end(g, ends[i]);
			return;
		}
	for (int i = 0; i < 2; i++)
		if (ends[i]->lp && !verify_end_up(ends[i])) {
			g->kind = VERIFY_GAP_CABLE_DOWN;
			verify_gap_end(g, ends[i]);
			return;
		}
	for (int i = 0; i < 2; i++)
		if (ends[i]->lp) {
			verify_gap_end(g, ends[i]);
			return;
		}
}

static int verify_expect_cable(struct verify_expect *ex, int node, uint8_t port)
{
	const struct fabric_port *w = &ex->want->nodes[node].ports[port];
	struct verify_end a = verify_expect_end(ex, node, port);
	struct verify_end b = verify_expect_end(ex, w->remote_node, w->remote_port);
	struct verify_gap g = verify_gap_of(VERIFY_GAP_CABLE_LOST, node, port);

	ex->n_cables++;
	if (verify_end_joins(ex, &a, w->remote_node, w->remote_port) ||
	    verify_end_joins(ex, &b, node, port))
		return 0;
	g.peer = w->remote_node;
	g.peer_port = w->remote_port;
	verify_expect_why(&g, &a, &b);
	return verify_expect_add(ex, &g);
}

/* Every cable of want once: from the end that comes first in its order. */
static int verify_expect_cables(struct verify_expect *ex)
{
	for (size_t i = 0; i < ex->want->n_nodes; i++) {
		const struct fabric_node *n = &ex->want->nodes[i];

		for (unsigned p = 1; p <= n->num_ports; p++) {
			const struct fabric_port *w = &n->ports[p];
			int rc;

			if (w->remote_node == FABRIC_NONE || w->remote_node < (int)i ||
			    (w->remote_node == (int)i && w->remote_port < p))
				continue;
			rc = verify_expect_cable(ex, (int)i, (uint8_t)p);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/* ---- All of it ------------------------------------------------------------ */

int verify_expect_compare(struct verify_expect *ex, const struct fabric *want,
			  const struct fabric *live)
{
	int rc = 0;

	memset(ex, 0, sizeof(*ex));
	ex->want = want;
	ex->live = live;
	for (size_t i = 0; i < want->n_nodes && rc == 0; i++)
		rc = verify_expect_node(ex, (int)i);
	if (rc == 0)
		rc = verify_expect_cables(ex);
	for (size_t i = 0; i < live->n_nodes && rc == 0; i++) {
		struct verify_gap g = verify_gap_of(VERIFY_GAP_NEW, FABRIC_NONE, 0);

		if (fabric_find(want, live->nodes[i].guid) != FABRIC_NONE)
			continue;
		g.live_node = (int)i;
		rc = verify_expect_add(ex, &g);
	}
	if (rc < 0) {
		verify_expect_fini(ex);
		return rc;
	}
	return 0;
}

/* ---- Text ------------------------------------------------------------------- */

static const char *verify_expect_type(const struct fabric_node *n)
{
	return n->type == NODE_TYPE_SWITCH   ? "switch"
	       : n->type == NODE_TYPE_ROUTER ? "router"
					     : "ca";
}

static const char *verify_expect_phys_name(uint8_t phys)
{
	static const char *const names[] = {"NoChange", "Sleep",    "Polling",
					    "Disabled", "Training", "LinkUp"};

	return phys < sizeof(names) / sizeof(names[0]) ? names[phys] : "?";
}

/* switch "sw1" {0x..}   /   ca "host1" {0x..} port 1 */
static void verify_expect_put_node(struct text_buf *b, const struct fabric *f, int node)
{
	const struct fabric_node *n = &f->nodes[node];

	text_buf_printf(b, "%s \"%s\" {0x%016" PRIx64 "}", verify_expect_type(n), n->desc, n->guid);
}

static void verify_expect_put_end(struct text_buf *b, const struct fabric *f, int node,
				  uint8_t port)
{
	verify_expect_put_node(b, f, node);
	text_buf_printf(b, " port %u", port);
}

/* "port 7 of "sw1" is Polling (DOWN)" */
static void verify_expect_put_state(struct text_buf *b, const struct verify_expect *ex,
				    const struct verify_gap *g)
{
	text_buf_printf(b, "port %u of \"%s\" is %s (%s)", g->live_port,
			ex->live->nodes[g->live_node].desc, verify_expect_phys_name(g->phys_state),
			smp_port_state_name(g->state));
}

static void verify_expect_put_why(struct text_buf *b, const struct verify_expect *ex,
				  const struct verify_gap *g)
{
	const struct fabric_port *lp;

	if (g->live_node == FABRIC_NONE) {
		text_buf_printf(b, "neither end reached");
		return;
	}
	lp = &ex->live->nodes[g->live_node].ports[g->live_port];
	if (g->kind == VERIFY_GAP_CABLE_MOVED) {
		text_buf_printf(b, "\"%s\" port %u now goes to ",
				ex->live->nodes[g->live_node].desc, g->live_port);
		verify_expect_put_end(b, ex->live, lp->remote_node, lp->remote_port);
		return;
	}
	verify_expect_put_state(b, ex, g);
	if (g->kind == VERIFY_GAP_CABLE_LOST)
		text_buf_printf(b, ", yet nothing answered through it");
}

static void verify_expect_put_cable(struct text_buf *b, const struct verify_expect *ex,
				    const struct verify_gap *g)
{
	static const char *const word[] = {[VERIFY_GAP_CABLE_DOWN] = "DOWN   ",
					   [VERIFY_GAP_CABLE_MOVED] = "MOVED  ",
					   [VERIFY_GAP_CABLE_LOST] = "MISSING"};

	text_buf_printf(b, "%s cable ", word[g->kind]);
	verify_expect_put_end(b, ex->want, g->node, g->port);
	text_buf_printf(b, " <-> ");
	verify_expect_put_end(b, ex->want, g->peer, g->peer_port);
	text_buf_printf(b, ": ");
	verify_expect_put_why(b, ex, g);
}

void verify_expect_format_gap(struct text_buf *b, const struct verify_expect *ex,
			      const struct verify_gap *g)
{
	const struct fabric *w = ex->want;

	switch (g->kind) {
	case VERIFY_GAP_NODE:
		text_buf_printf(b, "MISSING ");
		verify_expect_put_node(b, w, g->node);
		text_buf_printf(b, " lid %u: not reached", w->nodes[g->node].ports[0].lid);
		break;
	case VERIFY_GAP_HOST:
		text_buf_printf(b, "MISSING ");
		verify_expect_put_end(b, w, g->node, g->port);
		text_buf_printf(b, " (port GUID 0x%016" PRIx64 ", lid %u): not reached",
				w->nodes[g->node].ports[g->port].guid,
				w->nodes[g->node].ports[g->port].lid);
		break;
	case VERIFY_GAP_LID:
		text_buf_printf(b, "CHANGED lid of ");
		verify_expect_put_node(b, w, g->node);
		if (g->port)
			text_buf_printf(b, " port %u", g->port);
		text_buf_printf(b, ": %u, expected %u", g->live_lid, g->want_lid);
		break;
	case VERIFY_GAP_NEW:
		text_buf_printf(b, "NEW     ");
		verify_expect_put_node(b, ex->live, g->live_node);
		text_buf_printf(b, ": not in the expected topology");
		break;
	default:
		verify_expect_put_cable(b, ex, g);
		break;
	}
}

void verify_expect_format(struct text_buf *b, const struct verify_expect *ex)
{
	for (size_t i = 0; i < ex->n; i++) {
		verify_expect_format_gap(b, ex, &ex->gap[i]);
		text_buf_printf(b, "\n");
	}
}

/* "1 switch missing, 2 hosts missing, ...": the kinds that occurred. */
static void verify_expect_put_counts(struct text_buf *b, const struct verify_expect *ex)
{
	static const char *const what[] = {
	    [VERIFY_GAP_NODE] = "switch%s missing",	 [VERIFY_GAP_HOST] = "host%s missing",
	    [VERIFY_GAP_CABLE_DOWN] = "cable%s down",	 [VERIFY_GAP_CABLE_MOVED] = "cable%s moved",
	    [VERIFY_GAP_CABLE_LOST] = "cable%s missing", [VERIFY_GAP_LID] = "LID%s changed",
	    [VERIFY_GAP_NEW] = "node%s not in it",
	};
	const char *sep = "";

	for (int k = 0; k <= VERIFY_GAP_NEW; k++) {
		size_t n = ex->count[k];

		if (!n)
			continue;
		text_buf_printf(b, "%s%zu ", sep, n);
		text_buf_printf(b, what[k], n == 1 ? "" : k == VERIFY_GAP_NODE ? "es" : "s");
		sep = ", ";
	}
}

void verify_expect_format_summary(struct text_buf *b, const struct verify_expect *ex,
				  const char *from)
{
	if (!ex) {
		text_buf_printf(b,
				"expected topology: not checked (%s): only what is reachable "
				"was verified\n",
				from);
		return;
	}
	text_buf_printf(b, "expected topology (%s): %zu nodes, %zu cables", from, ex->want->n_nodes,
			ex->n_cables);
	if (!ex->failures)
		text_buf_printf(b, ", all there");
	text_buf_printf(b, "%s", ex->n ? "; " : "");
	verify_expect_put_counts(b, ex);
	text_buf_printf(b, "\n");
}

/* ---- JSON ------------------------------------------------------------------- */

static const char *verify_expect_kind_name(enum verify_gap_kind k)
{
	static const char *const names[] = {
	    [VERIFY_GAP_NODE] = "node missing",
	    [VERIFY_GAP_HOST] = "host missing",
	    [VERIFY_GAP_CABLE_DOWN] = "cable down",
	    [VERIFY_GAP_CABLE_MOVED] = "cable moved",
	    [VERIFY_GAP_CABLE_LOST] = "cable missing",
	    [VERIFY_GAP_LID] = "lid changed",
	    [VERIFY_GAP_NEW] = "new node",
	};

	return names[k];
}

static void verify_expect_json_end(struct text_buf *b, const struct fabric *f, int node, int port)
{
	const struct fabric_node *n = &f->nodes[node];

	text_buf_printf(b, "{\"type\":\"%s\",\"name\":", verify_expect_type(n));
	verify_json_string(b, n->desc);
	text_buf_printf(b, ",\"node_guid\":\"0x%016" PRIx64 "\"", n->guid);
	if (port >= 0)
		text_buf_printf(b, ",\"port\":%d", port);
	text_buf_printf(b, "}");
}

static void verify_expect_json_gap(struct text_buf *b, const struct verify_expect *ex,
				   const struct verify_gap *g)
{
	struct text_buf text;

	text_buf_printf(b, "{\"kind\":\"%s\",\"at\":", verify_expect_kind_name(g->kind));
	if (g->kind == VERIFY_GAP_NEW)
		verify_expect_json_end(b, ex->live, g->live_node, -1);
	else
		verify_expect_json_end(b, ex->want, g->node,
				       g->kind == VERIFY_GAP_NODE ? -1 : g->port);
	text_buf_printf(b, ",\"to\":");
	if (g->peer == FABRIC_NONE)
		text_buf_printf(b, "null");
	else
		verify_expect_json_end(b, ex->want, g->peer, g->peer_port);
	text_buf_printf(b, ",\"detail\":");
	text_buf_init(&text);
	verify_expect_format_gap(&text, ex, g);
	verify_json_string(b, text.s ? text.s : "");
	b->failed |= text.failed;
	text_buf_fini(&text);
	text_buf_printf(b, "}");
}

void verify_expect_format_json(struct text_buf *b, const struct verify_expect *ex, const char *from)
{
	text_buf_printf(b, "{\"checked\":%s,\"%s\":", ex ? "true" : "false", ex ? "file" : "why");
	verify_json_string(b, from);
	if (!ex) {
		text_buf_printf(b, "}");
		return;
	}
	text_buf_printf(b, ",\"nodes\":%zu,\"cables\":%zu,\"failures\":%zu,\"gaps\":[",
			ex->want->n_nodes, ex->n_cables, ex->failures);
	for (size_t i = 0; i < ex->n; i++) {
		text_buf_printf(b, "%s", i ? "," : "");
		verify_expect_json_gap(b, ex, &ex->gap[i]);
	}
	text_buf_printf(b, "]}");
}
