/*
 * fake_fabric.c - plays every node of a struct fabric for unit tests: walks
 * directed-route SMPs along their path and answers them (see fake_fabric.h).
 * Owns its private copy of the topology; never touches the caller's fabric.
 * Here: set-up, routing a request, the transport; the attributes are in
 * fake_fabric_attr.c, the knobs and inspection in fake_fabric_knobs.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/fake_fabric.h"
#include "tests/unit/fake_fabric_priv.h"

/* ---- Set-up ---------------------------------------------------------- */

int fake_fabric_is_linked(const struct fabric_node *n, uint8_t port)
{
	if (fabric_is_switch(n) && port == 0)
		return 1; /* the management port is always up */
	return n->ports[port].remote_node != FABRIC_NONE;
}

static void fake_reset_node(struct fabric_node *n)
{
	n->lft_top = 0;
	for (unsigned p = 0; p <= n->num_ports; p++) {
		struct fabric_port *port = &n->ports[p];
		int up = fake_fabric_is_linked(n, (uint8_t)p);

		port->num = (uint8_t)p;
		port->present = 1;
		port->lid = 0;
		port->state = up ? PORT_STATE_INIT : PORT_STATE_DOWN;
		port->phys_state = up ? PORT_PHYS_LINKUP : PORT_PHYS_POLLING;
	}
}

uint8_t fake_fabric_or(uint8_t v, uint8_t dflt)
{
	return v ? v : dflt;
}

static int fake_node_alloc(struct fake_node *fn, const struct fabric_node *n)
{
	size_t lft_len;

	fn->ports = calloc((size_t)n->num_ports + 1, sizeof(*fn->ports));
	if (!fn->ports)
		return -ENOMEM;
	for (unsigned p = 0; p <= n->num_ports; p++) {
		fn->ports[p].gid_prefix = FAKE_GID_PREFIX;
		fn->ports[p].neighbor_mtu = fake_fabric_or(n->ports[p].mtu_cap, FAKE_DEFAULT_MTU);
		fn->ports[p].oper_vls = fake_fabric_or(n->ports[p].vl_cap, FAKE_DEFAULT_VL_CAP);
	}
	if (!fabric_is_switch(n))
		return 0;
	fn->lft_cap = n->lft_cap ? n->lft_cap : FAKE_LFT_CAP_DEFAULT;
	lft_len = ((size_t)fn->lft_cap + LFT_BLOCK_SIZE - 1) / LFT_BLOCK_SIZE * LFT_BLOCK_SIZE;
	fn->lft = malloc(lft_len);
	if (!fn->lft)
		return -ENOMEM;
	memset(fn->lft, LFT_DROP, lft_len);
	return 0;
}

/* Every port starts with the default P_Key (full) at index 0, rest 0. */
static int fake_pkey_alloc(struct fake_node *fn, const struct fabric_node *n)
{
	fn->pkeys = calloc((size_t)n->num_ports + 1, sizeof(*fn->pkeys));
	if (!fn->pkeys)
		return -ENOMEM;
	for (unsigned p = 0; p <= n->num_ports; p++)
		fn->pkeys[p].pkey[0] = 0xffff;
	return 0;
}

/* SLtoVL tables start as ibsim's do: SL s -> VL s, SL 15 -> VL 7. */
static int fake_sl2vl_alloc(struct fake_node *fn, const struct fabric_node *n)
{
	size_t ports = (size_t)n->num_ports + 1, len = fabric_is_switch(n) ? ports * ports : ports;

	fn->sl2vl = calloc(len, sizeof(*fn->sl2vl));
	if (!fn->sl2vl)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++)
		for (unsigned s = 0; s < SMP_SL2VL_SLS; s++)
			fn->sl2vl[i].vl[s] = (uint8_t)(s == 15 ? 7 : s);
	return 0;
}

static int fake_topo_valid(const struct fabric *topo)
{
	if (!topo || topo->sm_node < 0 || (size_t)topo->sm_node >= topo->n_nodes)
		return 0;
	return topo->sm_port <= topo->nodes[topo->sm_node].num_ports;
}

struct fake_fabric *fake_fabric_new(const struct fabric *topo)
{
	struct fake_fabric *ff;

	if (!fake_topo_valid(topo))
		return NULL;
	ff = calloc(1, sizeof(*ff));
	if (!ff)
		return NULL;
	ff->sm_node = FABRIC_NONE;
	if (fabric_copy(&ff->topo, topo)) {
		free(ff);
		return NULL;
	}
	ff->nodes = calloc(ff->topo.n_nodes ? ff->topo.n_nodes : 1, sizeof(*ff->nodes));
	if (!ff->nodes) {
		fake_fabric_free(ff);
		return NULL;
	}
	for (size_t i = 0; i < ff->topo.n_nodes; i++) {
		fake_reset_node(&ff->topo.nodes[i]);
		if (fake_node_alloc(&ff->nodes[i], &ff->topo.nodes[i]) ||
		    fake_pkey_alloc(&ff->nodes[i], &ff->topo.nodes[i]) ||
		    fake_sl2vl_alloc(&ff->nodes[i], &ff->topo.nodes[i])) {
			fake_fabric_free(ff);
			return NULL;
		}
	}
	return ff;
}

void fake_fabric_free(struct fake_fabric *ff)
{
	if (!ff)
		return;
	fake_fabric_attr_mft_free(ff);
	for (size_t i = 0; ff->nodes && i < ff->topo.n_nodes; i++) {
		free(ff->nodes[i].lft);
		free(ff->nodes[i].ports);
		free(ff->nodes[i].pkeys);
		free(ff->nodes[i].sl2vl);
	}
	free(ff->nodes);
	free(ff->resp);
	fabric_fini(&ff->topo);
	free(ff);
}

/* ---- Routing a request ----------------------------------------------- */

/* Follow initial_path[1..hop_cnt] from the SM's port.  Only a switch may
 * forward, except that the first hop may leave the SM's CA by sm_port. */
static int fake_route(const struct fake_fabric *ff, const struct smp *req, struct fake_hit *hit)
{
	const struct fabric *f = &ff->topo;
	int node = f->sm_node;
	uint8_t in_port = f->sm_port;

	for (unsigned i = 1; i <= req->hop_cnt; i++) {
		const struct fabric_node *n = &f->nodes[node];
		uint8_t out = req->initial_path[i];
		const struct fabric_port *p;

		if (!fabric_is_switch(n) && !(i == 1 && out == f->sm_port))
			return -EHOSTUNREACH;
		if (out == 0 || out > n->num_ports)
			return -EHOSTUNREACH;
		p = &n->ports[out];
		if (p->remote_node < 0 || (size_t)p->remote_node >= f->n_nodes)
			return -EHOSTUNREACH;
		node = p->remote_node;
		in_port = p->remote_port;
	}
	hit->node = node;
	hit->in_port = in_port;
	return 0;
}

/* Does the request's directed route go out of or in by node guid's port? */
static int fake_crosses(const struct fake_fabric *ff, const struct smp *req, uint64_t guid,
			uint8_t port)
{
	const struct fabric *f = &ff->topo;
	int node = f->sm_node;

	for (unsigned i = 1; i <= req->hop_cnt; i++) {
		const struct fabric_port *p = &f->nodes[node].ports[req->initial_path[i]];

		if (f->nodes[node].guid == guid && req->initial_path[i] == port)
			return 1;
		if (f->nodes[p->remote_node].guid == guid && p->remote_port == port)
			return 1;
		node = p->remote_node;
	}
	return 0;
}

/* ---- Transport ------------------------------------------------------- */

static int fake_queue_push(struct fake_fabric *ff, const uint8_t *mad)
{
	if (ff->resp_len == ff->resp_cap && ff->resp_head) {
		memmove(ff->resp, ff->resp + ff->resp_head,
			(ff->resp_len - ff->resp_head) * sizeof(*ff->resp));
		ff->resp_len -= ff->resp_head;
		ff->resp_head = 0;
	}
	if (ff->resp_len == ff->resp_cap) {
		size_t cap = ff->resp_cap ? 2 * ff->resp_cap : 16;
		void *grown = realloc(ff->resp, cap * sizeof(*ff->resp));

		if (!grown)
			return -ENOMEM;
		ff->resp = grown;
		ff->resp_cap = cap;
	}
	memcpy(ff->resp[ff->resp_len++], mad, SMP_MAD_SIZE);
	return 0;
}

/* The port whose M_Key guards what an SMP arriving at hit may touch. */
static struct fake_mkey *fake_guard(struct fake_fabric *ff, const struct fake_hit *hit)
{
	const struct fabric_node *n = &ff->topo.nodes[hit->node];

	return &ff->nodes[hit->node].ports[fabric_is_switch(n) ? 0 : hit->in_port].mkey;
}

/* IBA 14.2.4.1: 0 when the SMP may be answered (hit->hide_mkey set for a
 * Get under protect 1 with a wrong key), -EACCES when it must vanish. */
static int fake_mkey_check(struct fake_fabric *ff, const struct smp *req, struct fake_hit *hit)
{
	const struct fake_mkey *g = fake_guard(ff, hit);

	hit->hide_mkey = 0;
	if (!g->key || req->mkey == g->key)
		return 0;
	if (req->method == SMP_METHOD_GET && g->protect < 2) {
		hit->hide_mkey = g->protect == 1;
		return 0;
	}
	ff->counters.mkey_violations++;
	return -EACCES;
}

/* Decode, route and check the request; 0 if a live node should answer. */
static int fake_accept(struct fake_fabric *ff, const uint8_t *mad, size_t len, struct smp *req,
		       struct fake_hit *hit)
{
	ff->requests++;
	if (ff->drop_every && ff->requests % ff->drop_every == 0)
		return -EAGAIN;
	if (smp_decode(mad, len, req))
		return -EINVAL;
	if (req->mgmt_class != SMP_CLASS_DR || req->direction)
		return -EOPNOTSUPP;
	if (req->method != SMP_METHOD_GET && req->method != SMP_METHOD_SET)
		return -EOPNOTSUPP;
	if (fake_route(ff, req, hit))
		return -EHOSTUNREACH;
	if (ff->nodes[hit->node].muted)
		return -EHOSTDOWN;
	if (ff->via_guid && (!ff->via_attr || req->attr_id == ff->via_attr) &&
	    fake_crosses(ff, req, ff->via_guid, ff->via_port))
		return -EAGAIN;
	if (ff->lose_attr && req->attr_id == ff->lose_attr &&
	    ff->topo.nodes[hit->node].guid == ff->lose_guid)
		return -EAGAIN;
	if (req->attr_id == SMP_ATTR_SM_INFO && fake_fabric_attr_at_sm(ff, hit) && ff->sm.silent)
		return -EHOSTDOWN;
	return fake_mkey_check(ff, req, hit);
}

/* A PortInfo Set that changed the port state took effect, but its answer
 * is lost on the way back (drop_state_replies times). */
static int fake_lose_state_reply(struct fake_fabric *ff, const struct smp *req)
{
	struct smp_port_info pi;

	if (ff->lose_set_replies && req->method == SMP_METHOD_SET &&
	    req->attr_id == ff->lose_set_attr && !req->status) {
		ff->lose_set_replies--;
		ff->counters.dropped++;
		return 1;
	}

	if (!ff->drop_state_replies || req->method != SMP_METHOD_SET ||
	    req->attr_id != SMP_ATTR_PORT_INFO || req->status)
		return 0;
	smp_port_info_decode(req->data, &pi);
	if (pi.state != PORT_STATE_ARMED && pi.state != PORT_STATE_ACTIVE)
		return 0;
	ff->drop_state_replies--;
	ff->counters.dropped++;
	return 1;
}

static int fake_send(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	struct fake_fabric *ff = ctx;
	uint8_t out[SMP_MAD_SIZE], answer[SMP_DATA_SIZE];
	struct fake_hit hit;
	struct smp req;
	int rc;

	(void)to; /* directed route: the path, not the LID, says where */
	if (fake_accept(ff, mad, len, &req, &hit)) {
		ff->counters.dropped++;
		return 0;
	}
	if (req.method == SMP_METHOD_SET)
		ff->counters.sets++;
	else
		ff->counters.gets++;
	req.status = fake_fabric_attr_answer(ff, &req, &hit, answer);
	if (fake_lose_state_reply(ff, &req))
		return 0;
	memcpy(req.data, answer, SMP_DATA_SIZE);
	smp_make_response(&req);
	rc = smp_encode(&req, out, sizeof(out));
	if (rc)
		return rc;
	return fake_queue_push(ff, out);
}

struct mad_xmit fake_fabric_xmit(struct fake_fabric *ff)
{
	struct mad_xmit x = { .send = fake_send, .ctx = ff };

	return x;
}

size_t fake_fabric_pending(const struct fake_fabric *ff)
{
	return ff->resp_len - ff->resp_head;
}

int fake_fabric_pop(struct fake_fabric *ff, uint8_t mad[SMP_MAD_SIZE])
{
	if (ff->resp_head == ff->resp_len)
		return 0;
	memcpy(mad, ff->resp[ff->resp_head++], SMP_MAD_SIZE);
	if (ff->resp_head == ff->resp_len)
		ff->resp_head = ff->resp_len = 0;
	return 1;
}

size_t fake_fabric_deliver(struct fake_fabric *ff, struct mad_queue *q, uint64_t now_ms)
{
	const struct mad_addr from = { .lid = FAKE_PERMISSIVE_LID, .sl = 0, .qpn = 0 };
	size_t n = fake_fabric_pending(ff);
	uint8_t mad[SMP_MAD_SIZE];

	/* copy out before each callback: it may send and grow the FIFO */
	for (size_t i = 0; i < n; i++) {
		if (!fake_fabric_pop(ff, mad))
			return i;
		mad_queue_recv(q, &from, mad, sizeof(mad), now_ms);
	}
	return n;
}
