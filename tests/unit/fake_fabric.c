/*
 * fake_fabric.c - plays every node of a struct fabric for unit tests: walks
 * directed-route SMPs along their path and answers them (see fake_fabric.h).
 * Owns its private copy of the topology; never touches the caller's fabric.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/fake_fabric.h"

#define FAKE_PERMISSIVE_LID 0xffff
#define FAKE_PARTITION_CAP 32 /* one P_Key block */
#define FAKE_DEFAULT_WIDTH 2  /* 4x */
#define FAKE_DEFAULT_SPEED 1  /* 2.5 Gb/s */
#define FAKE_DEFAULT_MTU 4    /* 2048 */
#define FAKE_DEFAULT_VL_CAP 4 /* VL0-7 */

/* Writable PortInfo fields that struct fabric_port has no room for.  The
 * per-node ones (switch) live on port 0. */
struct fake_port {
	uint64_t gid_prefix;
	uint16_t sm_lid;
	uint8_t subnet_timeout;
	uint8_t neighbor_mtu, oper_vls; /* per physical port */
	uint8_t part_enf;		/* switch external ports: P_Key enforcement in|out bits */
	struct fake_mkey mkey;		/* on guard ports: a CA port, switch port 0 */
	int down_node;			/* fake_fabric_cable: the far end while unplugged */
	uint8_t down_port;
	uint8_t unplugged;
};

/* What the fake keeps per node beyond struct fabric. */
struct fake_node {
	uint8_t muted;
	uint8_t port_change;	  /* switches: SwitchInfo PortStateChange */
	uint16_t lft_cap;         /* LinearFDBCap (switches) */
	uint8_t *lft;             /* switches: lft_cap rounded up to a block */
	struct fake_port *ports;  /* num_ports + 1 */
	struct smp_pkey_block *pkeys; /* P_KeyTable block 0, per port (num_ports + 1) */
	struct smp_sl2vl *sl2vl;      /* switch: [in * (num_ports + 1) + out]; CA: [port] */
};

struct fake_fabric {
	struct fabric topo;       /* current state, index-parallel to nodes */
	struct fake_node *nodes;
	uint8_t (*resp)[SMP_MAD_SIZE]; /* FIFO of encoded responses */
	size_t resp_head, resp_len, resp_cap;
	unsigned drop_every, requests;
	unsigned drop_state_replies; /* lose the answer of this many state Sets (applied) */
	int strict_states; /* refuse a state Set to the state the port is in (as ibsim) */
	uint16_t lose_set_attr;	  /* Sets of this attribute are applied, their answers lost */
	uint64_t liar_guid;	  /* this node's NodeInfo lies: */
	uint8_t lie_ports;	  /* NumPorts it claims (0: the truth) */
	uint64_t lie_guid;	  /* NodeGUID it claims (0: the truth) */
	unsigned lose_set_replies; /* ... this many times */
	uint64_t lose_guid;  /* every MAD of attribute lose_attr to this node is lost */
	uint16_t lose_attr;
	void (*on_lft_set)(void *arg); /* after every LFT block Set applied */
	void *on_lft_arg;
	uint64_t via_guid;   /* requests whose route crosses this node's port ... */
	uint8_t via_port;
	uint16_t via_attr;   /* ... with this attribute (0: any) are lost */
	int forget_mkeys; /* PortInfo Sets store no M_Key fields */
	int forget_enforcement; /* PortInfo Sets store no P_Key enforcement bits */
	struct fake_counters counters;
	struct fake_mft *mft; /* MulticastForwardingTables, made on first use */
	struct fake_sm sm;    /* a second SM (fake_fabric_add_sm), when sm_node >= 0 */
	int sm_node;
	uint8_t sm_port;
};

/* Where a request ended up: the node at the end of the path and the port
 * it came in by. */
struct fake_hit {
	int node;
	uint8_t in_port;
	uint8_t hide_mkey; /* a Get with a wrong M_Key under protect 1 */
};

static void fake_mft_free(struct fake_fabric *ff);

/* ---- Set-up ---------------------------------------------------------- */

static int fake_is_linked(const struct fabric_node *n, uint8_t port)
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
		int up = fake_is_linked(n, (uint8_t)p);

		port->num = (uint8_t)p;
		port->present = 1;
		port->lid = 0;
		port->state = up ? PORT_STATE_INIT : PORT_STATE_DOWN;
		port->phys_state = up ? PORT_PHYS_LINKUP : PORT_PHYS_POLLING;
	}
}

static uint8_t fake_or(uint8_t v, uint8_t dflt)
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
		fn->ports[p].neighbor_mtu = fake_or(n->ports[p].mtu_cap, FAKE_DEFAULT_MTU);
		fn->ports[p].oper_vls = fake_or(n->ports[p].vl_cap, FAKE_DEFAULT_VL_CAP);
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
	fake_mft_free(ff);
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

/* ---- Attributes ------------------------------------------------------ */

static uint16_t fake_node_info(const struct fake_fabric *ff, const struct fake_hit *hit,
			       uint8_t *data)
{
	const struct fabric_node *n = &ff->topo.nodes[hit->node];
	struct smp_node_info ni = {
		.base_version = 1,
		.class_version = 1,
		.node_type = n->type,
		.num_ports = n->num_ports,
		.system_guid = n->system_guid ? n->system_guid : n->guid,
		.node_guid = n->guid,
		.port_guid = n->guid,
		.partition_cap = FAKE_PARTITION_CAP,
		.device_id = n->device_id,
		.vendor_id = n->vendor_id,
		.local_port = hit->in_port,
	};

	if (!fabric_is_switch(n) && n->ports[hit->in_port].guid)
		ni.port_guid = n->ports[hit->in_port].guid;
	if (ff->liar_guid && n->guid == ff->liar_guid) { /* a hostile or broken node */
		if (ff->lie_ports)
			ni.num_ports = ff->lie_ports;
		if (ff->lie_guid)
			ni.node_guid = ni.port_guid = ni.system_guid = ff->lie_guid;
	}
	smp_node_info_encode(&ni, data);
	return 0;
}

static uint16_t fake_node_desc(const struct fake_fabric *ff, const struct fake_hit *hit,
			       uint8_t *data)
{
	struct smp_node_desc nd = { { 0 } };

	memcpy(nd.desc, ff->topo.nodes[hit->node].desc, sizeof(nd.desc) - 1);
	smp_node_desc_encode(&nd, data);
	return 0;
}

/* ---- MulticastForwardingTable (IBA 14.2.5.12) ------------------------- */

/* Per switch, FAKE_MFT_CAP MLIDs from 0xC000: masks[(block * 16 + pos) *
 * 32 + i] = ports 16 * pos .. + 15 of MLID 0xC000 + 32 * block + i. */
struct fake_mft {
	uint16_t **masks; /* per node; NULL until a Set */
	unsigned sets;	  /* MFT Sets applied */
};

static void fake_mft_free(struct fake_fabric *ff)
{
	for (size_t i = 0; ff->mft && i < ff->topo.n_nodes; i++)
		free(ff->mft->masks[i]);
	if (ff->mft)
		free(ff->mft->masks);
	free(ff->mft);
}

/* The switch's table, made on first use; NULL on no memory. */
static uint16_t *fake_mft_table(struct fake_fabric *ff, int node)
{
	if (!ff->mft) {
		ff->mft = calloc(1, sizeof(*ff->mft));
		if (!ff->mft)
			return NULL;
		ff->mft->masks = calloc(ff->topo.n_nodes + 1, sizeof(uint16_t *));
		if (!ff->mft->masks) {
			free(ff->mft);
			ff->mft = NULL;
			return NULL;
		}
	}
	if (!ff->mft->masks[node])
		ff->mft->masks[node] = calloc((size_t)FAKE_MFT_CAP * 16, sizeof(uint16_t));
	return ff->mft->masks[node];
}

static uint16_t fake_mft(struct fake_fabric *ff, const struct smp *req,
			 const struct fake_hit *hit, uint8_t *data)
{
	const struct fabric_node *n = &ff->topo.nodes[hit->node];
	unsigned block = req->attr_mod & 0x1ff, pos = (req->attr_mod >> 28) & 0xf;
	uint16_t *t, *m;

	if (!fabric_is_switch(n))
		return FAKE_STATUS_UNSUP_ATTR;
	if ((block + 1) * 32 > FAKE_MFT_CAP || pos > n->num_ports / 16u ||
	    (req->attr_mod & 0x0ffffe00u))
		return FAKE_STATUS_INVALID_VALUE;
	t = fake_mft_table(ff, hit->node);
	if (!t)
		return FAKE_STATUS_INVALID_VALUE;
	m = t + ((size_t)block * 16 + pos) * 32;
	for (unsigned i = 0; req->method == SMP_METHOD_SET && i < 32; i++)
		m[i] = (uint16_t)(req->data[2 * i] << 8 | req->data[2 * i + 1]);
	if (req->method == SMP_METHOD_SET)
		ff->mft->sets++;
	for (unsigned i = 0; i < 32; i++) {
		data[2 * i] = (uint8_t)(m[i] >> 8);
		data[2 * i + 1] = (uint8_t)m[i];
	}
	return 0;
}

int fake_fabric_mft_port(const struct fake_fabric *ff, uint64_t switch_guid, uint16_t mlid,
			 uint8_t port)
{
	int i = fabric_find(&ff->topo, switch_guid);
	unsigned idx = (unsigned)mlid - 0xC000u;
	const uint16_t *t;

	if (i == FABRIC_NONE || !fabric_is_switch(&ff->topo.nodes[i]) || mlid < 0xC000 ||
	    idx >= FAKE_MFT_CAP)
		return -1;
	t = ff->mft ? ff->mft->masks[i] : NULL;
	if (!t)
		return 0;
	return t[((size_t)(idx / 32) * 16 + port / 16) * 32 + idx % 32] >> (port % 16) & 1;
}

unsigned fake_fabric_mft_sets(const struct fake_fabric *ff)
{
	return ff->mft ? ff->mft->sets : 0;
}

/* PortInfo's attribute modifier names the port; a CA has no port 0, so 0
 * there means the port the SMP came in by. */
static int fake_port_select(const struct fabric_node *n, const struct fake_hit *hit,
			    uint32_t attr_mod, uint8_t *port)
{
	if (attr_mod > n->num_ports)
		return -EINVAL;
	*port = (uint8_t)attr_mod;
	if (!fabric_is_switch(n) && attr_mod == 0)
		*port = hit->in_port;
	return 0;
}

static void fake_port_info_fill(const struct fake_fabric *ff, const struct fake_hit *hit,
				uint8_t port, struct smp_port_info *pi)
{
	const struct fabric_node *n = &ff->topo.nodes[hit->node];
	const struct fabric_port *p = &n->ports[port];
	uint8_t base = fabric_is_switch(n) ? 0 : port; /* owner of LID/LMC */
	const struct fake_port *fb = &ff->nodes[hit->node].ports[base];
	const struct fake_port *fp = &ff->nodes[hit->node].ports[port];

	memset(pi, 0, sizeof(*pi));
	pi->gid_prefix = fb->gid_prefix;
	pi->lid = n->ports[base].lid;
	pi->lmc = n->ports[base].lmc;
	pi->sm_lid = fb->sm_lid;
	pi->subnet_timeout = fb->subnet_timeout;
	if (hit->node == ff->topo.sm_node && port == ff->topo.sm_port)
		pi->cap_mask = PORT_CAP_IS_SM;
	if (hit->node == ff->sm_node && port == ff->sm_port && !ff->sm.silent)
		pi->cap_mask = PORT_CAP_IS_SM;
	pi->local_port = hit->in_port;
	pi->link_width_enabled = pi->link_width_supported = 3; /* 1x, 4x */
	pi->link_width_active = fake_or(p->width_active, FAKE_DEFAULT_WIDTH);
	pi->link_speed_supported = pi->link_speed_enabled = 1;
	pi->link_speed_active = fake_or(p->speed_active, FAKE_DEFAULT_SPEED);
	pi->state = p->state;
	pi->phys_state = p->phys_state;
	pi->link_down_default = PORT_PHYS_POLLING;
	pi->mtu_cap = fake_or(p->mtu_cap, FAKE_DEFAULT_MTU);
	pi->neighbor_mtu = fp->neighbor_mtu;
	pi->vl_cap = fake_or(p->vl_cap, FAKE_DEFAULT_VL_CAP);
	pi->oper_vls = fp->oper_vls;
	pi->part_enf_inb = fp->part_enf & 1;
	pi->part_enf_outb = (fp->part_enf >> 1) & 1;
	pi->mkey = hit->hide_mkey ? 0 : fb->mkey.key;
	pi->mkey_prot = fb->mkey.protect;
	pi->mkey_lease = fb->mkey.lease;
}

/* The state a PortState write leads to (IBA 14.2.5.6, Table 148 and the
 * link state machine of 7.2): -EINVAL when the SM may not ask for it. */
static int fake_next_state(uint8_t cur, uint8_t req, uint8_t *next)
{
	switch (req) {
	case PORT_STATE_NOP:
		*next = cur;
		return 0;
	case PORT_STATE_DOWN:
		*next = PORT_STATE_DOWN;
		return 0;
	case PORT_STATE_ARMED:
		*next = PORT_STATE_ARMED;
		return cur == PORT_STATE_INIT || cur == PORT_STATE_ARMED ? 0 : -EINVAL;
	case PORT_STATE_ACTIVE:
		*next = PORT_STATE_ACTIVE;
		return cur == PORT_STATE_ARMED || cur == PORT_STATE_ACTIVE ? 0 : -EINVAL;
	default: /* INIT is not writable; 5..15 reserved */
		return -EINVAL;
	}
}

/* Setting DOWN on a linked port drops the link; it retrains at once, so
 * both ends come back in INIT.  An unlinked port stays DOWN. */
static void fake_port_down(struct fabric *f, int node, uint8_t port)
{
	struct fabric_node *n = &f->nodes[node];
	struct fabric_port *p = &n->ports[port];

	if (!fake_is_linked(n, port)) {
		p->state = PORT_STATE_DOWN;
		return;
	}
	p->state = PORT_STATE_INIT;
	if (p->remote_node != FABRIC_NONE)
		f->nodes[p->remote_node].ports[p->remote_port].state = PORT_STATE_INIT;
}

/* NeighborMTU / OperationalVLs: 0 leaves them alone, above the port's
 * capability is invalid. */
static int fake_cap_check(uint8_t want, uint8_t cap, uint8_t dflt)
{
	return want <= fake_or(cap, dflt) ? 0 : -EINVAL;
}

static void fake_port_apply(struct fake_fabric *ff, const struct fake_hit *hit, uint8_t port,
			    const struct smp_port_info *req)
{
	struct fabric_node *n = &ff->topo.nodes[hit->node];
	uint8_t base = fabric_is_switch(n) ? 0 : port;
	struct fake_port *fb = &ff->nodes[hit->node].ports[base];
	struct fake_port *fp = &ff->nodes[hit->node].ports[port];

	if (port == base) { /* on a switch's external ports these are ignored */
		n->ports[base].lid = req->lid;
		n->ports[base].lmc = req->lmc;
		fb->sm_lid = req->sm_lid;
		fb->gid_prefix = req->gid_prefix;
		fb->subnet_timeout = req->subnet_timeout;
		if (!ff->forget_mkeys)
			fb->mkey = (struct fake_mkey){req->mkey, req->mkey_prot, req->mkey_lease};
	}
	if (req->neighbor_mtu)
		fp->neighbor_mtu = req->neighbor_mtu;
	if (req->oper_vls)
		fp->oper_vls = req->oper_vls;
	if (fabric_is_switch(n) && port != 0 && !ff->forget_enforcement)
		fp->part_enf = (uint8_t)((req->part_enf_inb & 1) | (req->part_enf_outb & 1) << 1);
}

static uint16_t fake_port_info_set(struct fake_fabric *ff, const struct fake_hit *hit,
				   uint8_t port, const uint8_t *data)
{
	struct fabric_node *n = &ff->topo.nodes[hit->node];
	const struct fabric_port *p = &n->ports[port];
	struct smp_port_info req;
	uint8_t next;

	if (!fabric_is_switch(n) && port != hit->in_port)
		return FAKE_STATUS_INVALID_VALUE; /* a CA port is set through itself */
	smp_port_info_decode(data, &req);
	if (fake_next_state(p->state, req.state, &next) ||
	    (ff->strict_states && req.state >= PORT_STATE_ARMED && req.state == p->state) ||
	    fake_cap_check(req.neighbor_mtu, p->mtu_cap, FAKE_DEFAULT_MTU) ||
	    fake_cap_check(req.oper_vls, p->vl_cap, FAKE_DEFAULT_VL_CAP))
		return FAKE_STATUS_INVALID_VALUE;
	fake_port_apply(ff, hit, port, &req);
	if (next == PORT_STATE_DOWN)
		fake_port_down(&ff->topo, hit->node, port);
	else
		n->ports[port].state = next;
	ff->counters.port_info_sets++;
	ff->counters.client_rereg_sets += req.client_rereg;
	return 0;
}

static uint16_t fake_port_info(struct fake_fabric *ff, const struct smp *req,
			       const struct fake_hit *hit, uint8_t *data)
{
	struct smp_port_info pi;
	uint16_t status = 0;
	uint8_t port;

	if (fake_port_select(&ff->topo.nodes[hit->node], hit, req->attr_mod, &port))
		return FAKE_STATUS_INVALID_VALUE;
	if (req->method == SMP_METHOD_SET)
		status = fake_port_info_set(ff, hit, port, req->data);
	fake_port_info_fill(ff, hit, port, &pi);
	smp_port_info_encode(&pi, data);
	return status;
}

static uint16_t fake_switch_info(struct fake_fabric *ff, const struct smp *req,
				 const struct fake_hit *hit, uint8_t *data)
{
	struct fabric_node *n = &ff->topo.nodes[hit->node];
	const struct fake_node *fn = &ff->nodes[hit->node];
	struct smp_switch_info si;
	uint16_t status = 0;

	if (!fabric_is_switch(n))
		return FAKE_STATUS_UNSUP_ATTR;
	if (req->method == SMP_METHOD_SET) {
		smp_switch_info_decode(req->data, &si);
		if (si.port_state_change) /* write 1 to clear */
			ff->nodes[hit->node].port_change = 0;
		if (si.linear_fdb_top >= fn->lft_cap)
			status = FAKE_STATUS_INVALID_VALUE;
		else
			n->lft_top = si.linear_fdb_top;
	}
	memset(&si, 0, sizeof(si));
	si.linear_fdb_cap = fn->lft_cap;
	si.linear_fdb_top = n->lft_top;
	si.default_port = 0;
	si.life_time = 0x12;
	si.partition_enforce_cap = PKEY_BLOCK_SIZE; /* one P_Key block per port */
	si.port_state_change = fn->port_change;
	smp_switch_info_encode(&si, data);
	return status;
}

static uint16_t fake_lft(struct fake_fabric *ff, const struct smp *req,
			 const struct fake_hit *hit, uint8_t *data)
{
	const struct fake_node *fn = &ff->nodes[hit->node];
	struct smp_lft_block b;
	uint8_t *entries;

	if (!fabric_is_switch(&ff->topo.nodes[hit->node]))
		return FAKE_STATUS_UNSUP_ATTR;
	if ((uint64_t)req->attr_mod * LFT_BLOCK_SIZE >= fn->lft_cap)
		return FAKE_STATUS_INVALID_VALUE;
	entries = fn->lft + (size_t)req->attr_mod * LFT_BLOCK_SIZE;
	if (req->method == SMP_METHOD_SET) {
		smp_lft_decode(req->data, &b);
		memcpy(entries, b.port, LFT_BLOCK_SIZE);
		ff->counters.lft_block_sets++;
		if (ff->on_lft_set)
			ff->on_lft_set(ff->on_lft_arg);
	}
	memcpy(b.port, entries, LFT_BLOCK_SIZE);
	smp_lft_encode(&b, data);
	return 0;
}

/* P_KeyTable: attr_mod = block (bits 15:0) and, on a switch, the port
 * (bits 31:16); a CA answers for the port the SMP came in by.  Only block
 * 0 exists (PartitionCap is one block). */
static uint16_t fake_pkey(struct fake_fabric *ff, const struct smp *req,
			  const struct fake_hit *hit, uint8_t *data)
{
	const struct fabric_node *n = &ff->topo.nodes[hit->node];
	uint32_t port = fabric_is_switch(n) ? req->attr_mod >> 16 : hit->in_port;
	struct smp_pkey_block *b;

	if (port > n->num_ports || (req->attr_mod & 0xffff) != 0)
		return FAKE_STATUS_INVALID_VALUE;
	b = &ff->nodes[hit->node].pkeys[port];
	if (req->method == SMP_METHOD_SET) {
		smp_pkey_decode(req->data, b);
		ff->counters.pkey_block_sets++;
	}
	smp_pkey_encode(b, data);
	return 0;
}

/* The SLtoVL table of node port pair (in, out): a CA has one per port
 * (in ignored); NULL when a port is out of range. */
static struct smp_sl2vl *fake_sl2vl_table(const struct fake_fabric *ff, int node, uint32_t in,
					  uint32_t out)
{
	const struct fabric_node *n = &ff->topo.nodes[node];
	unsigned ports = n->num_ports + 1u;

	if (in >= ports || out >= ports)
		return NULL;
	return &ff->nodes[node].sl2vl[fabric_is_switch(n) ? in * ports + out : out];
}

/* SLtoVLMappingTable: on a switch attr_mod = (in << 8) | out; a CA
 * answers for the port the SMP came in by. */
static uint16_t fake_sl2vl(struct fake_fabric *ff, const struct smp *req,
			   const struct fake_hit *hit, uint8_t *data)
{
	int sw = fabric_is_switch(&ff->topo.nodes[hit->node]);
	struct smp_sl2vl *t =
	    fake_sl2vl_table(ff, hit->node, sw ? (req->attr_mod >> 8) & 0xff : hit->in_port,
			     sw ? req->attr_mod & 0xff : hit->in_port);

	if (!t || (sw && req->attr_mod >> 16))
		return FAKE_STATUS_INVALID_VALUE;
	if (req->method == SMP_METHOD_SET) {
		smp_sl2vl_decode(req->data, t);
		ff->counters.sl2vl_sets++;
	}
	smp_sl2vl_encode(t, data);
	return 0;
}

/* ---- A second SM ------------------------------------------------------ */

static int fake_at_sm(const struct fake_fabric *ff, const struct fake_hit *hit)
{
	return ff->sm_node != FABRIC_NONE && hit->node == ff->sm_node && hit->in_port == ff->sm_port;
}

static void fake_sm_set(struct fake_sm *sm, uint32_t mod)
{
	sm->sets++;
	sm->last_set_mod = mod;
	switch (mod) {
	case SMINFO_MOD_HANDOVER:
		sm->handovers++;
		if (sm->state == SM_STATE_STANDBY)
			sm->state = SM_STATE_MASTER;
		break;
	case SMINFO_MOD_ACKNOWLEDGE:
		sm->acks++;
		break;
	case SMINFO_MOD_DISABLE:
		sm->state = SM_STATE_NOT_ACTIVE;
		break;
	case SMINFO_MOD_STANDBY:
		sm->state = SM_STATE_STANDBY;
		break;
	case SMINFO_MOD_DISCOVER:
		sm->state = SM_STATE_DISCOVERING;
		break;
	default:
		break;
	}
}

static uint16_t fake_sm_info(struct fake_fabric *ff, const struct smp *req,
			     const struct fake_hit *hit, uint8_t *data)
{
	struct fake_sm *sm = &ff->sm;
	struct smp_sm_info si;

	if (!fake_at_sm(ff, hit))
		return FAKE_STATUS_UNSUP_ATTR;
	if (req->method == SMP_METHOD_SET)
		fake_sm_set(sm, req->attr_mod);
	else
		sm->gets++;
	si = (struct smp_sm_info){ .guid = sm->guid, .sm_key = sm->sm_key,
				   .act_count = sm->gets + sm->sets,
				   .priority = sm->priority, .state = sm->state };
	smp_sm_info_encode(&si, data);
	return 0;
}

struct fake_sm *fake_fabric_add_sm(struct fake_fabric *ff, uint64_t node_guid, uint8_t port)
{
	int i = fabric_find(&ff->topo, node_guid);

	if (i == FABRIC_NONE || fabric_is_switch(&ff->topo.nodes[i]) || port == 0 ||
	    port > ff->topo.nodes[i].num_ports)
		return NULL;
	ff->sm_node = i;
	ff->sm_port = port;
	memset(&ff->sm, 0, sizeof(ff->sm));
	ff->sm.guid = ff->topo.nodes[i].ports[port].guid ? ff->topo.nodes[i].ports[port].guid
							  : node_guid;
	ff->sm.state = SM_STATE_MASTER;
	return &ff->sm;
}

/* Fill data (not req->data) with the (new) attribute; returns the MAD
 * status. */
static uint16_t fake_answer(struct fake_fabric *ff, const struct smp *req,
			    const struct fake_hit *hit, uint8_t *data)
{
	int set = req->method == SMP_METHOD_SET;

	memset(data, 0, SMP_DATA_SIZE);
	switch (req->attr_id) {
	case FAKE_ATTR_MFT: return fake_mft(ff, req, hit, data);
	case SMP_ATTR_NODE_INFO:
		return set ? FAKE_STATUS_UNSUP_ATTR : fake_node_info(ff, hit, data);
	case SMP_ATTR_NODE_DESC:
		return set ? FAKE_STATUS_UNSUP_ATTR : fake_node_desc(ff, hit, data);
	case SMP_ATTR_PORT_INFO:
		return fake_port_info(ff, req, hit, data);
	case SMP_ATTR_SWITCH_INFO:
		return fake_switch_info(ff, req, hit, data);
	case SMP_ATTR_LFT:
		return fake_lft(ff, req, hit, data);
	case SMP_ATTR_PKEY_TABLE:
		return fake_pkey(ff, req, hit, data);
	case SMP_ATTR_SL2VL:
		return fake_sl2vl(ff, req, hit, data);
	case SMP_ATTR_SM_INFO:
		return fake_sm_info(ff, req, hit, data);
	default:
		return FAKE_STATUS_UNSUP_ATTR;
	}
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
	if (req->attr_id == SMP_ATTR_SM_INFO && fake_at_sm(ff, hit) && ff->sm.silent)
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
	req.status = fake_answer(ff, &req, &hit, answer);
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

/* ---- Knobs and inspection -------------------------------------------- */

void fake_fabric_drop_every(struct fake_fabric *ff, unsigned n)
{
	ff->drop_every = n;
	ff->requests = 0;
}

void fake_fabric_mute_node(struct fake_fabric *ff, uint64_t node_guid, int mute)
{
	int i = fabric_find(&ff->topo, node_guid);

	if (i != FABRIC_NONE)
		ff->nodes[i].muted = mute ? 1 : 0;
}

const struct fabric *fake_fabric_state(const struct fake_fabric *ff)
{
	return &ff->topo;
}

const uint8_t *fake_fabric_lft(const struct fake_fabric *ff, uint64_t switch_guid, uint16_t *top)
{
	int i = fabric_find(&ff->topo, switch_guid);

	if (i == FABRIC_NONE || !ff->nodes[i].lft)
		return NULL;
	if (top)
		*top = ff->topo.nodes[i].lft_top;
	return ff->nodes[i].lft;
}

int fake_fabric_set_lft(struct fake_fabric *ff, uint64_t switch_guid, uint16_t lid, uint8_t port)
{
	int i = fabric_find(&ff->topo, switch_guid);

	if (i == FABRIC_NONE || !ff->nodes[i].lft || lid >= ff->nodes[i].lft_cap)
		return -ENOENT;
	ff->nodes[i].lft[lid] = port;
	return 0;
}

int fake_fabric_reboot_switch(struct fake_fabric *ff, uint64_t switch_guid)
{
	int i = fabric_find(&ff->topo, switch_guid);

	if (i == FABRIC_NONE || !ff->nodes[i].lft)
		return -ENOENT;
	memset(ff->nodes[i].lft, LFT_DROP, ff->nodes[i].lft_cap);
	ff->topo.nodes[i].lft_top = 0;
	return 0;
}

const uint16_t *fake_fabric_pkeys(const struct fake_fabric *ff, uint64_t node_guid, uint8_t port)
{
	int i = fabric_find(&ff->topo, node_guid);

	if (i == FABRIC_NONE || port > ff->topo.nodes[i].num_ports)
		return NULL;
	return ff->nodes[i].pkeys[port].pkey;
}

const struct smp_sl2vl *fake_fabric_sl2vl(const struct fake_fabric *ff, uint64_t node_guid,
					  uint8_t in, uint8_t out)
{
	int i = fabric_find(&ff->topo, node_guid);

	return i == FABRIC_NONE ? NULL : fake_sl2vl_table(ff, i, in, out);
}

int fake_fabric_set_sl2vl(struct fake_fabric *ff, uint64_t node_guid, uint8_t in, uint8_t out,
			  const struct smp_sl2vl *t)
{
	int i = fabric_find(&ff->topo, node_guid);
	struct smp_sl2vl *x = i == FABRIC_NONE ? NULL : fake_sl2vl_table(ff, i, in, out);

	if (!x)
		return -ENOENT;
	*x = *t;
	return 0;
}

const struct fake_counters *fake_fabric_counters(const struct fake_fabric *ff)
{
	return &ff->counters;
}

/* The guard of node_guid's port: port 0 on a switch. */
static struct fake_mkey *fake_find_guard(const struct fake_fabric *ff, uint64_t node_guid,
					 uint8_t port)
{
	int i = fabric_find(&ff->topo, node_guid);
	const struct fabric_node *n;

	if (i == FABRIC_NONE)
		return NULL;
	n = &ff->topo.nodes[i];
	if (port > n->num_ports || (!fabric_is_switch(n) && port == 0))
		return NULL;
	return &ff->nodes[i].ports[fabric_is_switch(n) ? 0 : port].mkey;
}

int fake_fabric_get_mkey(const struct fake_fabric *ff, uint64_t node_guid, uint8_t port,
			 struct fake_mkey *out)
{
	const struct fake_mkey *g = fake_find_guard(ff, node_guid, port);

	if (!g)
		return -ENOENT;
	*out = *g;
	return 0;
}

int fake_fabric_set_mkey(struct fake_fabric *ff, uint64_t node_guid, uint8_t port,
			 const struct fake_mkey *k)
{
	struct fake_mkey *g = fake_find_guard(ff, node_guid, port);

	if (!g)
		return -ENOENT;
	*g = *k;
	return 0;
}

void fake_fabric_keep_mkeys(struct fake_fabric *ff, int keep)
{
	ff->forget_mkeys = !keep;
}

void fake_fabric_forget_enforcement(struct fake_fabric *ff, int forget)
{
	ff->forget_enforcement = forget;
}

int fake_fabric_enforcing(const struct fake_fabric *ff, uint64_t switch_guid, uint8_t port)
{
	int i = fabric_find(&ff->topo, switch_guid);

	if (i == FABRIC_NONE || port > ff->topo.nodes[i].num_ports)
		return -1;
	return ff->nodes[i].ports[port].part_enf;
}

int fake_fabric_port_change(struct fake_fabric *ff, uint64_t switch_guid)
{
	int i = fabric_find(&ff->topo, switch_guid);

	if (i == FABRIC_NONE || !fabric_is_switch(&ff->topo.nodes[i]))
		return -1;
	ff->nodes[i].port_change = 1;
	return 0;
}

int fake_fabric_port_change_pending(const struct fake_fabric *ff, uint64_t switch_guid)
{
	int i = fabric_find(&ff->topo, switch_guid);

	return i == FABRIC_NONE ? -1 : ff->nodes[i].port_change;
}

void fake_fabric_lose_state_replies(struct fake_fabric *ff, unsigned n)
{
	ff->drop_state_replies = n;
	ff->strict_states = 1;
}

void fake_fabric_lose_attr(struct fake_fabric *ff, uint64_t node_guid, uint16_t attr)
{
	ff->lose_guid = node_guid;
	ff->lose_attr = attr;
}

void fake_fabric_lose_set_replies(struct fake_fabric *ff, uint16_t attr, unsigned n)
{
	ff->lose_set_attr = attr;
	ff->lose_set_replies = n;
}

void fake_fabric_lie_node_info(struct fake_fabric *ff, uint64_t node_guid, uint8_t num_ports,
			       uint64_t claim_guid)
{
	ff->liar_guid = node_guid;
	ff->lie_ports = num_ports;
	ff->lie_guid = claim_guid;
}

static void fake_cable_end(struct fake_fabric *ff, int i, uint8_t p, int up)
{
	struct fabric_port *port = &ff->topo.nodes[i].ports[p];

	port->state = up ? PORT_STATE_INIT : PORT_STATE_DOWN;
	port->phys_state = up ? PORT_PHYS_LINKUP : PORT_PHYS_POLLING;
	if (fabric_is_switch(&ff->topo.nodes[i]))
		ff->nodes[i].port_change = 1;
}

int fake_fabric_cable(struct fake_fabric *ff, uint64_t node_guid, uint8_t port, int up)
{
	int i = fabric_find(&ff->topo, node_guid);
	struct fake_port *fp;
	int j;

	if (i == FABRIC_NONE || port == 0 || port > ff->topo.nodes[i].num_ports)
		return -1;
	fp = &ff->nodes[i].ports[port];
	if (!up) {
		j = ff->topo.nodes[i].ports[port].remote_node;
		if (j == FABRIC_NONE)
			return -1;
		fp->down_node = j;
		fp->down_port = ff->topo.nodes[i].ports[port].remote_port;
		fp->unplugged = 1;
		ff->topo.nodes[i].ports[port].remote_node = FABRIC_NONE;
		ff->topo.nodes[j].ports[fp->down_port].remote_node = FABRIC_NONE;
		fake_cable_end(ff, i, port, 0);
		fake_cable_end(ff, j, fp->down_port, 0);
		return 0;
	}
	if (!fp->unplugged)
		return -1;
	fp->unplugged = 0;
	j = fp->down_node;
	if (fabric_link(&ff->topo, i, port, j, fp->down_port) < 0)
		return -1;
	fake_cable_end(ff, i, port, 1);
	fake_cable_end(ff, j, fp->down_port, 1);
	return 0;
}

void fake_fabric_lose_via(struct fake_fabric *ff, uint64_t node_guid, uint8_t port, uint16_t attr)
{
	ff->via_guid = node_guid;
	ff->via_port = port;
	ff->via_attr = attr;
}

void fake_fabric_on_lft_set(struct fake_fabric *ff, void (*cb)(void *arg), void *arg)
{
	ff->on_lft_set = cb;
	ff->on_lft_arg = arg;
}
