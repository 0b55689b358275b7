/*
 * test_dr_walk.c - the directed-route walker (routing/dr_walk.c) on its
 * own: driven against the fake fabric (each Get sent to the fake at once,
 * its answer handed back in order, breadth first) and against hand-made
 * answers.  The walked model must rebuild the fake's cabling.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/dr_walk.h"
#include "routing/topo_file.h"
#include "tests/unit/fake_fabric.h"
#include "tests/unit/unit.h"

/* the walk starts at the first node of a file: h1 */
static const char dw_lab[] = "Hca 2 \"h1\"\n[1] \"sw\"[1]\n\n"
			     "Hca 2 \"h2\"\n[1] \"sw\"[2]\n\n"
			     "Hca 2 \"h3\"\n[1] \"sw\"[3]\n\n"
			     "Switch 8 \"sw\"\n"
			     "[1] \"h1\"[1]\n[2] \"h2\"[1]\n[3] \"h3\"[1]\n";

/* a ring of three switches, two parallel cables between s1 and s2, and
 * the local CA cabled to both s1 (its first port) and s2 */
static const char dw_ring[] = "Hca 2 \"h1\"\n[1] \"s1\"[1]\n[2] \"s2\"[1]\n\n"
			      "Switch 6 \"s1\"\n[1] \"h1\"[1]\n[2] \"s2\"[2]\n[3] \"s2\"[3]\n"
			      "[4] \"s3\"[4]\n\n"
			      "Switch 6 \"s2\"\n[1] \"h1\"[2]\n[2] \"s1\"[2]\n[3] \"s1\"[3]\n"
			      "[5] \"s3\"[5]\n\n"
			      "Switch 6 \"s3\"\n[4] \"s1\"[4]\n[5] \"s2\"[5]\n[6] \"h2\"[1]\n\n"
			      "Hca 1 \"h2\"\n[1] \"s3\"[6]\n";

#define DW_MAX_GETS 4096

/* A Get and its answer, waiting to be handed back. */
struct dw_answer {
	struct dr_walk_get get;
	int status;
	uint8_t data[SMP_DATA_SIZE];
};

struct dw_rig {
	struct fabric topo; /* what the fake plays */
	struct fake_fabric *ff;
	struct fabric f; /* what the walk builds */
	struct dr_walk walk;
	struct dw_answer *q; /* FIFO [head, n) */
	size_t head, n;
	unsigned gets;
	unsigned lost[SMP_ATTR_SM_INFO + 1]; /* by attribute */
	unsigned problems[DR_WALK_NO_MEMORY + 1];
	struct dr_walk_problem last; /* the last problem (get and ni not kept) */
	char last_why[64];
	int substitute; /* lost PortInfo: hand back a LinkUp/INIT port */
	uint8_t linkup[SMP_DATA_SIZE];
};

/* Send g to the fake now; keep the answer (or the silence) for later. */
static void dw_get(void *ctx, const struct dr_walk_get *g)
{
	struct dw_rig *r = ctx;
	struct mad_xmit x = fake_fabric_xmit(r->ff);
	struct mad_addr to = {.lid = 0xffff};
	struct dw_answer *a;
	uint8_t mad[SMP_MAD_SIZE];
	struct smp smp;

	CU_ASSERT_FATAL(r->n < DW_MAX_GETS);
	a = &r->q[r->n++];
	r->gets++;
	a->get = *g;
	a->status = -ETIMEDOUT;
	smp_init_dr(&smp, SMP_METHOD_GET, g->attr, g->mod, g->path, g->hops);
	CU_ASSERT_EQUAL(smp_encode(&smp, mad, sizeof(mad)), 0);
	if (x.send(x.ctx, &to, mad, sizeof(mad)) < 0 || !fake_fabric_pop(r->ff, mad))
		return;
	CU_ASSERT_EQUAL_FATAL(smp_decode(mad, sizeof(mad), &smp), 0);
	a->status = smp.status ? -EREMOTEIO : 0;
	memcpy(a->data, smp.data, sizeof(a->data));
}

static const uint8_t *dw_lost(void *ctx, const struct dr_walk_get *g, int status)
{
	struct dw_rig *r = ctx;

	CU_ASSERT(status < 0);
	if (g->attr <= SMP_ATTR_SM_INFO)
		r->lost[g->attr]++;
	return r->substitute && g->attr == SMP_ATTR_PORT_INFO ? r->linkup : NULL;
}

static void dw_problem(void *ctx, const struct dr_walk_problem *p)
{
	struct dw_rig *r = ctx;

	r->problems[p->kind]++;
	r->last = *p;
	r->last.get = NULL;
	r->last.ni = NULL;
	snprintf(r->last_why, sizeof(r->last_why), "%s", p->why ? p->why : "");
}

static const struct dr_walk_ops dw_ops = {.get = dw_get, .lost = dw_lost, .problem = dw_problem};

static void dw_init(struct dw_rig *r, const char *text)
{
	struct smp_port_info pi = {
	    .state = PORT_STATE_INIT, .phys_state = PORT_PHYS_LINKUP, .link_width_active = 2};
	char err[256];

	memset(r, 0, sizeof(*r));
	fabric_init(&r->topo);
	fabric_init(&r->f);
	CU_ASSERT_EQUAL_FATAL(topo_parse(text, strlen(text), "walk", &r->topo, err, sizeof(err)),
			      0);
	r->ff = fake_fabric_new(&r->topo);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->ff);
	r->q = calloc(DW_MAX_GETS, sizeof(*r->q));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->q);
	smp_port_info_encode(&pi, r->linkup);
	dr_walk_init(&r->walk, &r->f, &dw_ops, r);
}

/* Walk: hand the answers back in the order the Gets went out. */
static void dw_run(struct dw_rig *r)
{
	dr_walk_start(&r->walk);
	while (r->head < r->n) {
		struct dw_answer a = r->q[r->head++];

		dr_walk_answer(&r->walk, &a.get, a.status, a.data);
	}
}

static void dw_fini(struct dw_rig *r)
{
	fake_fabric_free(r->ff);
	fabric_fini(&r->topo);
	fabric_fini(&r->f);
	free(r->q);
}

static int dw_node(const struct fabric *f, const char *desc)
{
	for (size_t i = 0; i < f->n_nodes; i++)
		if (!strcmp(f->nodes[i].desc, desc))
			return (int)i;
	return FABRIC_NONE;
}

/* Every cable of the fake's topology is in the walked model, both ends. */
static void dw_check_cabling(const struct fabric *want, const struct fabric *got)
{
	for (size_t i = 0; i < want->n_nodes; i++) {
		const struct fabric_node *w = &want->nodes[i];
		int j = fabric_find(got, w->guid);

		CU_ASSERT_FATAL(j != FABRIC_NONE);
		CU_ASSERT_STRING_EQUAL(got->nodes[j].desc, w->desc);
		CU_ASSERT_EQUAL(got->nodes[j].type, w->type);
		CU_ASSERT_EQUAL(got->nodes[j].num_ports, w->num_ports);
		for (unsigned p = 1; p <= w->num_ports; p++) {
			const struct fabric_port *wp = &w->ports[p];
			const struct fabric_port *gp = &got->nodes[j].ports[p];

			if (wp->remote_node == FABRIC_NONE) {
				CU_ASSERT_EQUAL(gp->remote_node, FABRIC_NONE);
				continue;
			}
			CU_ASSERT_FATAL(gp->remote_node != FABRIC_NONE);
			CU_ASSERT_EQUAL(got->nodes[gp->remote_node].guid,
					want->nodes[wp->remote_node].guid);
			CU_ASSERT_EQUAL(gp->remote_port, wp->remote_port);
			CU_ASSERT(gp->present);
			CU_ASSERT_EQUAL(gp->phys_state, PORT_PHYS_LINKUP);
		}
	}
}

static void test_dw_rebuilds_loops(void)
{
	struct dw_rig r;
	const struct fabric *f = &r.f;
	struct smp_port_info pi;
	int h1, h2, s2;

	dw_init(&r, dw_ring);
	dw_run(&r);
	CU_ASSERT_EQUAL(f->n_nodes, r.topo.n_nodes);
	CU_ASSERT_EQUAL(fabric_count_switches(f), 3);
	dw_check_cabling(&r.topo, f);
	h1 = dw_node(f, "h1");
	h2 = dw_node(f, "h2");
	s2 = dw_node(f, "s2");
	CU_ASSERT_FATAL(h1 != FABRIC_NONE && h2 != FABRIC_NONE && s2 != FABRIC_NONE);
	/* the local port; the local CA's other port, reached over the fabric,
	 * and a CA port far away keep their GUID and route */
	CU_ASSERT_EQUAL(f->sm_node, h1);
	CU_ASSERT_EQUAL(f->sm_port, 1);
	CU_ASSERT_EQUAL(f->nodes[h1].dr_hops, 0);
	CU_ASSERT_EQUAL(fabric_port_route(&f->nodes[h1], 1)->hops, 0);
	CU_ASSERT_NOT_EQUAL(f->nodes[h1].ports[2].guid, 0);
	CU_ASSERT(f->nodes[h1].ports[2].present);
	CU_ASSERT_EQUAL(fabric_port_route(&f->nodes[h1], 2)->hops, 3); /* h1, s1, s2, h1 */
	CU_ASSERT_NOT_EQUAL(f->nodes[h2].ports[1].guid, 0);
	CU_ASSERT_EQUAL(fabric_port_route(&f->nodes[h2], 1)->hops, 3); /* h1, s1, s3, h2 */
	/* s2 is reached over s1's ports 2 and 3: the other route is kept */
	CU_ASSERT_EQUAL(f->nodes[s2].dr_hops, 2);
	CU_ASSERT_NOT_EQUAL(fabric_route_get(&f->nodes[s2], 0)->hops, 0);
	CU_ASSERT_FALSE(smp_same_route(fabric_route_get(&f->nodes[s2], 0)->path,
				       fabric_route_get(&f->nodes[s2], 0)->hops,
				       f->nodes[s2].dr_path, f->nodes[s2].dr_hops));
	/* SwitchInfo read, raw PortInfo kept */
	CU_ASSERT_EQUAL(f->nodes[s2].lft_cap, FAKE_LFT_CAP_DEFAULT);
	smp_port_info_decode(f->nodes[s2].ports[3].pi_raw, &pi);
	CU_ASSERT_EQUAL(pi.state, f->nodes[s2].ports[3].state);
	CU_ASSERT_EQUAL(pi.phys_state, PORT_PHYS_LINKUP);
	/* nothing lost, nothing wrong; each Get reached the fake once */
	for (unsigned k = 0; k <= DR_WALK_NO_MEMORY; k++)
		CU_ASSERT_EQUAL(r.problems[k], 0);
	CU_ASSERT_EQUAL(r.lost[SMP_ATTR_NODE_INFO] + r.lost[SMP_ATTR_PORT_INFO], 0);
	CU_ASSERT_EQUAL(fake_fabric_counters(r.ff)->gets, r.gets);
	dw_fini(&r);
}

/* A switch whose PortInfo is lost: lost() is told of each port, and the
 * walk stops there; what lost() hands back stands in for the answer. */
static void test_dw_lost_answers(void)
{
	struct dw_rig r;
	uint64_t sw;

	dw_init(&r, dw_lab);
	sw = r.topo.nodes[dw_node(&r.topo, "sw")].guid;
	fake_fabric_lose_attr(r.ff, sw, SMP_ATTR_PORT_INFO);
	dw_run(&r);
	CU_ASSERT_EQUAL(r.lost[SMP_ATTR_PORT_INFO], 9); /* ports 0..8 */
	CU_ASSERT_EQUAL(r.f.n_nodes, 2);		/* h1 and sw */
	CU_ASSERT_FALSE(r.f.nodes[fabric_find(&r.f, sw)].ports[2].present);
	dw_fini(&r);

	dw_init(&r, dw_lab);
	fake_fabric_lose_attr(r.ff, sw, SMP_ATTR_PORT_INFO);
	r.substitute = 1;
	dw_run(&r);
	CU_ASSERT_EQUAL(r.lost[SMP_ATTR_PORT_INFO], 9);
	/* every port "up": probes behind ports 2..8; 4..8 have no cable */
	CU_ASSERT_EQUAL(r.lost[SMP_ATTR_NODE_INFO], 5);
	CU_ASSERT_EQUAL(r.f.n_nodes, 4);
	dw_check_cabling(&r.topo, &r.f);
	dw_fini(&r);
}

/* Answers that cannot be taken: a bad NodeInfo, a GUID that answers as
 * another node, a port that answers from two cables. */
static void test_dw_bad_answers(void)
{
	struct dw_rig r;
	uint64_t h1, h2, h3, sw;

	dw_init(&r, dw_lab);
	h1 = r.topo.nodes[dw_node(&r.topo, "h1")].guid;
	h2 = r.topo.nodes[dw_node(&r.topo, "h2")].guid;
	h3 = r.topo.nodes[dw_node(&r.topo, "h3")].guid;
	sw = r.topo.nodes[dw_node(&r.topo, "sw")].guid;
	fake_fabric_lie_node_info(r.ff, h2, 255, 0);
	dw_run(&r);
	CU_ASSERT_EQUAL(r.problems[DR_WALK_BAD_NODE_INFO], 1);
	CU_ASSERT_STRING_EQUAL(r.last_why, "bad NumPorts");
	CU_ASSERT_EQUAL(r.f.n_nodes, 3);
	CU_ASSERT_EQUAL(fabric_find(&r.f, h2), FABRIC_NONE);
	dw_fini(&r);

	dw_init(&r, dw_lab);
	fake_fabric_lie_node_info(r.ff, h2, 0, sw); /* a CA claiming the switch's GUID */
	dw_run(&r);
	CU_ASSERT_EQUAL(r.problems[DR_WALK_TWO_NODES], 1);
	CU_ASSERT_EQUAL(r.f.n_nodes, 3);
	CU_ASSERT_EQUAL(r.f.nodes[fabric_find(&r.f, sw)].ports[2].remote_node, FABRIC_NONE);
	dw_fini(&r);

	dw_init(&r, dw_lab);
	fake_fabric_lie_node_info(r.ff, h3, 0, h1); /* h1's GUID behind sw port 3 */
	dw_run(&r);
	CU_ASSERT_EQUAL(r.problems[DR_WALK_TWO_LINKS], 1);
	CU_ASSERT_EQUAL(r.last.node, fabric_find(&r.f, h1));
	CU_ASSERT_EQUAL(r.last.port, 1);
	/* the first cable stays; the second is not linked */
	CU_ASSERT_EQUAL(r.f.nodes[fabric_find(&r.f, h1)].ports[1].remote_node,
			fabric_find(&r.f, sw));
	CU_ASSERT_EQUAL(r.f.nodes[fabric_find(&r.f, sw)].ports[3].remote_node, FABRIC_NONE);
	CU_ASSERT_EQUAL(r.f.n_nodes, 3);
	dw_fini(&r);
}

/* ---- Hand-made answers -------------------------------------------------- */

struct dw_hand {
	struct dr_walk_get gets[16];
	size_t n;
	unsigned too_far;
	int too_far_node;
	uint8_t too_far_port;
};

static void dw_hand_get(void *ctx, const struct dr_walk_get *g)
{
	struct dw_hand *h = ctx;

	CU_ASSERT_FATAL(h->n < 16);
	h->gets[h->n++] = *g;
}

static void dw_hand_problem(void *ctx, const struct dr_walk_problem *p)
{
	struct dw_hand *h = ctx;

	CU_ASSERT_EQUAL(p->kind, DR_WALK_TOO_FAR);
	h->too_far++;
	h->too_far_node = p->get->node;
	h->too_far_port = p->get->port;
	CU_ASSERT_EQUAL(p->get->hops, FABRIC_MAX_HOPS);
}

/* A switch at the end of a FABRIC_MAX_HOPS route: its details are asked
 * in order (description, SwitchInfo, PortInfo 0..N), and a port up leads
 * nowhere further (TOO_FAR, no Get). */
static void test_dw_hand_made(void)
{
	static const struct dr_walk_ops ops = {.get = dw_hand_get, .problem = dw_hand_problem};
	struct smp_node_info ni = {.node_type = NODE_TYPE_SWITCH,
				   .num_ports = 4,
				   .node_guid = 0x1000,
				   .port_guid = 0x1000,
				   .local_port = 0};
	struct smp_switch_info si = {.linear_fdb_cap = 64, .linear_fdb_top = 7};
	struct smp_port_info pi = {.state = PORT_STATE_INIT, .phys_state = PORT_PHYS_LINKUP};
	struct smp_node_desc nd = {.desc = "far"};
	uint8_t data[SMP_DATA_SIZE];
	struct dw_hand h = {.n = 0};
	struct dr_walk_get g;
	struct dr_walk w;
	struct fabric f;

	fabric_init(&f);
	dr_walk_init(&w, &f, &ops, &h);
	dr_walk_start(&w);
	CU_ASSERT_EQUAL_FATAL(h.n, 1);
	CU_ASSERT_EQUAL(h.gets[0].attr, SMP_ATTR_NODE_INFO);
	CU_ASSERT_EQUAL(h.gets[0].node, FABRIC_NONE);
	CU_ASSERT_EQUAL(h.gets[0].hops, 0);
	/* it answered over a route of the longest length */
	g = h.gets[0];
	g.hops = FABRIC_MAX_HOPS;
	memset(g.path + 1, 1, FABRIC_MAX_HOPS);
	smp_node_info_encode(&ni, data);
	dr_walk_answer(&w, &g, 0, data);
	CU_ASSERT_EQUAL_FATAL(f.n_nodes, 1);
	CU_ASSERT_EQUAL(f.sm_node, 0);
	CU_ASSERT_EQUAL(f.sm_port, 0);
	CU_ASSERT_EQUAL(f.nodes[0].dr_hops, FABRIC_MAX_HOPS);
	CU_ASSERT_EQUAL_FATAL(h.n, 1 + 2 + 5);
	CU_ASSERT_EQUAL(h.gets[1].attr, SMP_ATTR_NODE_DESC);
	CU_ASSERT_EQUAL(h.gets[2].attr, SMP_ATTR_SWITCH_INFO);
	for (unsigned p = 0; p <= 4; p++) {
		CU_ASSERT_EQUAL(h.gets[3 + p].attr, SMP_ATTR_PORT_INFO);
		CU_ASSERT_EQUAL(h.gets[3 + p].port, p);
		CU_ASSERT_EQUAL(h.gets[3 + p].mod, p);
		CU_ASSERT_EQUAL(h.gets[3 + p].node, 0);
		CU_ASSERT_EQUAL(h.gets[3 + p].hops, FABRIC_MAX_HOPS);
	}
	smp_node_desc_encode(&nd, data);
	dr_walk_answer(&w, &h.gets[1], 0, data);
	CU_ASSERT_STRING_EQUAL(f.nodes[0].desc, "far");
	smp_switch_info_encode(&si, data);
	dr_walk_answer(&w, &h.gets[2], 0, data);
	CU_ASSERT_EQUAL(f.nodes[0].lft_cap, 64);
	CU_ASSERT_EQUAL(f.nodes[0].lft_top, 7);
	/* port 2 up: one hop too far; port 3 lost (no lost hook): unread */
	pi.lid = 9;
	smp_port_info_encode(&pi, data);
	dr_walk_answer(&w, &h.gets[3], 0, data);
	CU_ASSERT_EQUAL(f.nodes[0].ports[0].lid, 9);
	dr_walk_answer(&w, &h.gets[5], 0, data);
	CU_ASSERT_EQUAL(f.nodes[0].ports[2].lid, 0); /* a switch's LID is port 0's */
	CU_ASSERT(f.nodes[0].ports[2].present);
	dr_walk_answer(&w, &h.gets[6], -ETIMEDOUT, NULL);
	CU_ASSERT_FALSE(f.nodes[0].ports[3].present);
	CU_ASSERT_EQUAL(h.too_far, 1);
	CU_ASSERT_EQUAL(h.too_far_node, 0);
	CU_ASSERT_EQUAL(h.too_far_port, 2);
	CU_ASSERT_EQUAL(h.n, 8);
	fabric_fini(&f);
}

void test_dr_walk_register(void)
{
	CU_pSuite s = CU_add_suite("dr_walk", NULL, NULL);

	CU_add_test(s, "the walk rebuilds loops and parallel links", test_dw_rebuilds_loops);
	CU_add_test(s, "lost answers: told, and a stand-in taken", test_dw_lost_answers);
	CU_add_test(s, "bad NodeInfo, a GUID twice, a port on two cables", test_dw_bad_answers);
	CU_add_test(s, "hand-made answers: the Gets in order, too far", test_dw_hand_made);
}
