/*
 * fake_fabric_attr.c - the attributes the fake fabric answers (fake_fabric.h
 * lists them): NodeInfo, NodeDescription, MulticastForwardingTable, PortInfo
 * and its state machine, SwitchInfo, LFT, P_KeyTable, SLtoVLMappingTable,
 * SMInfo of a second SM.  Reads and writes the fake's own state only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/fake_fabric.h"
#include "tests/unit/fake_fabric_priv.h"

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

void fake_fabric_attr_mft_free(struct fake_fabric *ff)
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
	pi->link_width_active = fake_fabric_or(p->width_active, FAKE_DEFAULT_WIDTH);
	pi->link_speed_supported = pi->link_speed_enabled = 1;
	pi->link_speed_active = fake_fabric_or(p->speed_active, FAKE_DEFAULT_SPEED);
	pi->state = p->state;
	pi->phys_state = p->phys_state;
	pi->link_down_default = PORT_PHYS_POLLING;
	pi->mtu_cap = fake_fabric_or(p->mtu_cap, FAKE_DEFAULT_MTU);
	pi->neighbor_mtu = fp->neighbor_mtu;
	pi->vl_cap = fake_fabric_or(p->vl_cap, FAKE_DEFAULT_VL_CAP);
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

	if (!fake_fabric_is_linked(n, port)) {
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
	return want <= fake_fabric_or(cap, dflt) ? 0 : -EINVAL;
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
struct smp_sl2vl *fake_fabric_attr_sl2vl_table(const struct fake_fabric *ff, int node, uint32_t in,
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
	struct smp_sl2vl *t = fake_fabric_attr_sl2vl_table(
	    ff, hit->node, sw ? (req->attr_mod >> 8) & 0xff : hit->in_port,
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

int fake_fabric_attr_at_sm(const struct fake_fabric *ff, const struct fake_hit *hit)
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

	if (!fake_fabric_attr_at_sm(ff, hit))
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
uint16_t fake_fabric_attr_answer(struct fake_fabric *ff, const struct smp *req,
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
