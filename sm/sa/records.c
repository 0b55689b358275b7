/*
 * sm/sa/records.c - the SA's topology records: decides which Node, PortInfo,
 * SwitchInfo, LFT, MFT, SMInfo, Link, GUIDInfo and P_KeyTable records the view
 * holds and what they say, and answers ClassPortInfo.  Wire layout is
 * mad/sa_topo.c's; dispatch and the Get/GetTable answer rules are server.c's.
 */
#include "sm/sa/records.h"

#include <string.h>

#include "config/pkey.h"
#include "mad/sa_topo.h"
#include "mad/smp.h"
#include "routing/mft.h"

/* One query being answered: the template, its mask, where matches go. */
struct sa_topo_q {
	const struct sa *sa;
	const struct fabric *f;
	const struct sa_rec_desc *d;
	uint64_t mask;
	uint8_t want[SA_RECORD_MAX];
	int trusted; /* the request carried our SM_Key: keys are shown */
	struct sa_out *out;
	int err;
};

typedef void (*sa_topo_node_fn)(struct sa_topo_q *q, int node);

/* ---- what the view lists ---------------------------------------------- */

/* A CA or router port the SA lists: it has a LID and is not down. */
static int sa_topo_ca_listed(const struct fabric_port *p)
{
	return p->present && p->lid && p->state >= PORT_STATE_INIT;
}

/* The ports a node is known by (NodeRecord, GUIDInfoRecord): a switch's
 * port 0, each listed CA port.  Next such port after `after`, or -1. */
static int sa_topo_endport_next(const struct fabric_node *n, int after)
{
	if (fabric_is_switch(n))
		return after < 0 ? 0 : -1;
	for (int p = after < 1 ? 1 : after + 1; p <= n->num_ports; p++)
		if (sa_topo_ca_listed(&n->ports[p]))
			return p;
	return -1;
}

/* Every port with a PortInfoRecord: all present switch ports, listed CA ports. */
static int sa_topo_port_listed(const struct fabric_node *n, unsigned port)
{
	if (fabric_is_switch(n))
		return n->ports[port].present;
	return port > 0 && sa_topo_ca_listed(&n->ports[port]);
}

/* The LID a port answers to: the switch's LID for any switch port. */
static uint16_t sa_topo_lid(const struct fabric_node *n, unsigned port)
{
	return fabric_is_switch(n) ? n->ports[0].lid : n->ports[port].lid;
}

static uint64_t sa_topo_port_guid(const struct fabric_node *n, unsigned port)
{
	const struct fabric_port *p = &n->ports[fabric_is_switch(n) ? 0 : port];

	return p->guid ? p->guid : n->guid;
}

/* The far end of a port's link when it is a listed port, else NULL. */
static const struct fabric_node *sa_topo_peer(const struct fabric *f, const struct fabric_port *p)
{
	const struct fabric_node *r;

	if (p->remote_node < 0 || (size_t)p->remote_node >= f->n_nodes)
		return NULL;
	r = &f->nodes[p->remote_node];
	if (p->remote_port > r->num_ports || !sa_topo_port_listed(r, p->remote_port))
		return NULL;
	return r;
}

/* ---- matching ------------------------------------------------------------ */

/* PortInfoRecord's CapabilityMask selects ports that have every bit the
 * template has (how saquery -s finds the IsSM ports), not an equal mask. */
static int sa_topo_cap_match(const struct sa_topo_q *q, const uint8_t *rec)
{
	const struct sa_field *f = &sa_topo_portinfo_desc.comp[SA_TOPO_PIR_CAP_MASK];
	uint64_t want;

	if (q->d != &sa_topo_portinfo_desc || !(q->mask & (1ull << SA_TOPO_PIR_CAP_MASK)))
		return 1;
	want = sa_get(q->want, f);
	return (sa_get(rec, f) & want) == want;
}

static void sa_topo_offer(struct sa_topo_q *q, const uint8_t *rec)
{
	uint64_t mask = q->mask;

	if (q->d == &sa_topo_portinfo_desc)
		mask &= ~(1ull << SA_TOPO_PIR_CAP_MASK);
	if (q->err || !sa_rec_match(q->d, mask, q->want, rec) || !sa_topo_cap_match(q, rec))
		return;
	q->err = sa_out_add(q->out, rec);
}

static int sa_topo_selected(const struct sa_topo_q *q, int comp)
{
	return comp >= 0 && (q->mask & (1ull << comp));
}

/* The node of the LID a request names in component comp; the template's
 * LID becomes the port's base LID so any LID of its LMC range matches. */
static int sa_topo_lid_node(struct sa_topo_q *q, int comp)
{
	const struct sa_field *fl = &q->d->comp[comp];
	struct sa_port_ref r = sa_by_lid(q->sa, (uint16_t)sa_get(q->want, fl));

	if (r.node == FABRIC_NONE || (size_t)r.node >= q->f->n_nodes)
		return FABRIC_NONE;
	sa_put(q->want, fl, sa_port_lid(q->sa, r));
	return r.node;
}

/* Offer fn's records of the node the LID in comp names, or of every node. */
static void sa_topo_scan(struct sa_topo_q *q, int comp, sa_topo_node_fn fn)
{
	if (sa_topo_selected(q, comp)) {
		int node = sa_topo_lid_node(q, comp);

		if (node != FABRIC_NONE)
			fn(q, node);
		return;
	}
	for (size_t n = 0; n < q->f->n_nodes && !q->err; n++)
		fn(q, (int)n);
}

/* ---- NodeRecord ------------------------------------------------------------ */

static void sa_topo_node_info(const struct fabric_node *n, unsigned port, struct smp_node_info *ni)
{
	memset(ni, 0, sizeof(*ni));
	ni->base_version = 1;
	ni->class_version = 1;
	ni->node_type = n->type;
	ni->num_ports = n->num_ports;
	ni->system_guid = n->system_guid;
	ni->node_guid = n->guid;
	ni->port_guid = sa_topo_port_guid(n, port);
	ni->device_id = n->device_id;
	ni->vendor_id = n->vendor_id;
	ni->local_port = (uint8_t)port; /* PartitionCap, Revision: not in the model */
}

static void sa_topo_node_rec(struct sa_topo_q *q, int node)
{
	const struct fabric_node *n = &q->f->nodes[node];
	uint8_t rec[SA_TOPO_NODE_SIZE];
	struct smp_node_info ni;

	for (int p = sa_topo_endport_next(n, -1); p >= 0; p = sa_topo_endport_next(n, p)) {
		sa_topo_node_info(n, (unsigned)p, &ni);
		sa_topo_node_encode(rec, n->ports[p].lid, &ni, n->desc);
		sa_topo_offer(q, rec);
	}
}

/* ---- PortInfoRecord ---------------------------------------------------------- */

static int sa_topo_all_zero(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

/* A port never read (a fabric from a file): fill in what the model knows. */
static void sa_topo_pi_synth(const struct sa_topo_q *q, uint8_t *rec, const struct fabric_port *p)
{
	const struct sa_field *c = sa_topo_portinfo_desc.comp;

	sa_put(rec, &c[SA_TOPO_PIR_GID_PREFIX], q->sa->v.subnet_prefix);
	sa_put(rec, &c[SA_TOPO_PIR_SM_LID], q->sa->v.sm_lid);
	sa_put(rec, &c[SA_TOPO_PIR_LOCAL_PORT], p->num);
	sa_put(rec, &c[SA_TOPO_PIR_WIDTH_ACTIVE], p->width_active);
	sa_put(rec, &c[SA_TOPO_PIR_SPEED_ACTIVE], p->speed_active);
	sa_put(rec, &c[SA_TOPO_PIR_MTU_CAP], p->mtu_cap);
	sa_put(rec, &c[SA_TOPO_PIR_VL_CAP], p->vl_cap);
}

/* The raw PortInfo, with the model's LID/LMC/state on top (they are what
 * the SM programmed) and the M_Key hidden from untrusted requesters. */
static void sa_topo_pi_patch(const struct sa_topo_q *q, uint8_t *rec, const struct fabric_node *n,
			     const struct fabric_port *p)
{
	const struct sa_field *c = sa_topo_portinfo_desc.comp;

	if (sa_topo_all_zero(p->pi_raw, sizeof(p->pi_raw)))
		sa_topo_pi_synth(q, rec, p);
	if (!fabric_is_switch(n) || p->num == 0) {
		sa_put(rec, &c[SA_TOPO_PIR_LID], p->lid);
		sa_put(rec, &c[SA_TOPO_PIR_LMC], p->lmc);
	}
	sa_put(rec, &c[SA_TOPO_PIR_STATE], p->state);
	sa_put(rec, &c[SA_TOPO_PIR_PHYS_STATE], p->phys_state);
	if (!q->trusted)
		sa_put(rec, &c[SA_TOPO_PIR_MKEY], 0);
}

static void sa_topo_portinfo_rec(struct sa_topo_q *q, int node)
{
	const struct fabric_node *n = &q->f->nodes[node];
	uint8_t rec[SA_TOPO_PORTINFO_SIZE];

	for (unsigned p = 0; p <= n->num_ports && !q->err; p++) {
		if (!sa_topo_port_listed(n, p))
			continue;
		sa_topo_portinfo_encode(rec, sa_topo_lid(n, p), (uint8_t)p, n->ports[p].pi_raw);
		sa_topo_pi_patch(q, rec, n, &n->ports[p]);
		sa_topo_offer(q, rec);
	}
}

/* ---- SwitchInfoRecord, LFTRecord ---------------------------------------------- */

static const struct lft *sa_topo_lft(const struct sa_topo_q *q, int node)
{
	const struct lft *l;

	if (!q->sa->v.lfts)
		return NULL;
	l = lft_set_find_const(q->sa->v.lfts, node);
	return l && l->port ? l : NULL;
}

static void sa_topo_swinfo_rec(struct sa_topo_q *q, int node)
{
	const struct fabric_node *n = &q->f->nodes[node];
	const struct sa_field *c = sa_topo_swinfo_desc.comp;
	const struct lft *l = sa_topo_lft(q, node);
	uint8_t rec[SA_TOPO_SWINFO_SIZE];

	if (!fabric_is_switch(n))
		return;
	sa_topo_swinfo_encode(rec, n->ports[0].lid, n->si_raw);
	sa_put(rec, &c[SA_TOPO_SWR_LFT_CAP], n->lft_cap);
	sa_put(rec, &c[SA_TOPO_SWR_LFT_TOP], l ? l->top : n->lft_top);
	sa_topo_offer(q, rec);
}

static void sa_topo_lft_block(struct sa_topo_q *q, const struct lft *l, uint16_t lid, unsigned b)
{
	uint8_t port[SA_TOPO_LIDS_PER_BLOCK];
	uint8_t rec[SA_TOPO_LFT_SIZE];

	for (unsigned i = 0; i < SA_TOPO_LIDS_PER_BLOCK; i++) {
		unsigned dlid = b * SA_TOPO_LIDS_PER_BLOCK + i;

		port[i] = dlid <= l->top ? l->port[dlid] : LFT_DROP;
	}
	sa_topo_lft_encode(rec, lid, (uint16_t)b, port);
	sa_topo_offer(q, rec);
}

static void sa_topo_lft_rec(struct sa_topo_q *q, int node)
{
	const struct fabric_node *n = &q->f->nodes[node];
	const struct lft *l = sa_topo_lft(q, node);
	unsigned first = 0, last;

	if (!fabric_is_switch(n) || !l)
		return;
	last = l->top / SA_TOPO_LIDS_PER_BLOCK;
	if (sa_topo_selected(q, SA_TOPO_LFTR_BLOCK)) {
		first = (unsigned)sa_get(q->want, &sa_topo_lft_desc.comp[SA_TOPO_LFTR_BLOCK]);
		if (first > last)
			return;
		last = first;
	}
	for (unsigned b = first; b <= last && !q->err; b++)
		sa_topo_lft_block(q, l, n->ports[0].lid, b);
}

/* ---- MulticastForwardingTableRecord -------------------------------------------- */

/* The multicast table of a switch, NULL when the view has none for it (a
 * table of another model of the fabric is not taken: its GUID differs). */
static const struct mft_table *sa_topo_mft(const struct sa_topo_q *q, int node)
{
	const struct mft_table *t = mft_set_find(q->sa->v.mfts, node);

	return t && t->guid == q->f->nodes[node].guid ? t : NULL;
}

/* The blocks or positions to look at: the one the template names when the
 * mask selects comp, else all n.  0 when the named one is past n. */
static int sa_topo_mft_range(const struct sa_topo_q *q, int comp, unsigned n, unsigned *first,
			     unsigned *last)
{
	*first = 0;
	*last = n - 1;
	if (!sa_topo_selected(q, comp))
		return 1;
	*first = *last = (unsigned)sa_get(q->want, &sa_topo_mft_desc.comp[comp]);
	return *first < n;
}

/* One record per (block, position) that holds a port in some MLID's mask:
 * an all-zero block is what a switch's table starts as, so it is not
 * listed (as LFTRecord lists no block past LinearFDBTop). */
static void sa_topo_mft_rec(struct sa_topo_q *q, int node)
{
	const struct fabric_node *n = &q->f->nodes[node];
	const struct mft_table *t = sa_topo_mft(q, node);
	unsigned b0, b1, p0, p1;
	uint8_t rec[SA_TOPO_MFT_SIZE];

	if (!fabric_is_switch(n) || !t || !t->n_blocks || !t->n_pos)
		return;
	if (!sa_topo_mft_range(q, SA_TOPO_MFTR_BLOCK, t->n_blocks, &b0, &b1) ||
	    !sa_topo_mft_range(q, SA_TOPO_MFTR_POSITION, t->n_pos, &p0, &p1))
		return;
	for (unsigned b = b0; b <= b1 && !q->err; b++)
		for (unsigned p = p0; p <= p1 && !q->err; p++) {
			const uint16_t *masks = mft_table_block(t, b, p);

			if (!masks || mft_block_is_zero(masks))
				continue;
			sa_topo_mft_encode(rec, n->ports[0].lid, (uint8_t)p, (uint16_t)b, masks);
			sa_topo_offer(q, rec);
		}
}

/* ---- SMInfoRecord ---------------------------------------------------------------- */

/* Only our own SM for now: the view knows no other. */
static void sa_topo_sminfo_rec(struct sa_topo_q *q)
{
	const struct sa_view *v = &q->sa->v;
	struct smp_sm_info si = {
	    .guid = v->sm_guid,
	    .sm_key = q->trusted ? v->sm_key : 0,
	    .act_count = v->sm_act_count,
	    .priority = v->sm_priority,
	    .state = v->sm_state,
	};
	uint8_t rec[SA_TOPO_SMINFO_SIZE];

	sa_topo_sminfo_encode(rec, v->sm_lid, &si);
	sa_topo_offer(q, rec);
}

/* ---- LinkRecord -------------------------------------------------------------------- */

static void sa_topo_link_offer(struct sa_topo_q *q, const struct fabric_node *n, unsigned port)
{
	const struct fabric_port *p = &n->ports[port];
	const struct fabric_node *r = sa_topo_peer(q->f, p);
	struct sa_topo_link l;
	uint8_t rec[SA_TOPO_LINK_SIZE];

	if (!r || !sa_topo_port_listed(n, port))
		return;
	l = (struct sa_topo_link){sa_topo_lid(n, port), (uint8_t)port, p->remote_port,
				  sa_topo_lid(r, p->remote_port)};
	if (!l.from_lid || !l.to_lid)
		return;
	sa_topo_link_encode(rec, &l);
	sa_topo_offer(q, rec);
}

/* Links leaving a node. */
static void sa_topo_link_from(struct sa_topo_q *q, int node)
{
	const struct fabric_node *n = &q->f->nodes[node];

	for (unsigned p = 1; p <= n->num_ports && !q->err; p++)
		sa_topo_link_offer(q, n, p);
}

/* Links arriving at a node: the reverse direction of the ones leaving it. */
static void sa_topo_link_to(struct sa_topo_q *q, int node)
{
	const struct fabric_node *n = &q->f->nodes[node];

	for (unsigned p = 1; p <= n->num_ports && !q->err; p++) {
		const struct fabric_node *r = sa_topo_peer(q->f, &n->ports[p]);

		if (r && sa_topo_port_listed(n, p))
			sa_topo_link_offer(q, r, n->ports[p].remote_port);
	}
}

static void sa_topo_link_scan(struct sa_topo_q *q)
{
	if (!sa_topo_selected(q, SA_TOPO_LR_FROM_LID) && sa_topo_selected(q, SA_TOPO_LR_TO_LID))
		sa_topo_scan(q, SA_TOPO_LR_TO_LID, sa_topo_link_to);
	else
		sa_topo_scan(q, SA_TOPO_LR_FROM_LID, sa_topo_link_from);
}

/* ---- GUIDInfoRecord ------------------------------------------------------------------- */

/* Block 0 with the port GUID at index 0 (nanosm assigns no alias GUIDs). */
static void sa_topo_guidinfo_rec(struct sa_topo_q *q, int node)
{
	const struct fabric_node *n = &q->f->nodes[node];
	uint64_t guid[SA_TOPO_GUIDS_PER_BLOCK] = {0};
	uint8_t rec[SA_TOPO_GUIDINFO_SIZE];

	for (int p = sa_topo_endport_next(n, -1); p >= 0; p = sa_topo_endport_next(n, p)) {
		guid[0] = sa_topo_port_guid(n, (unsigned)p);
		sa_topo_guidinfo_encode(rec, n->ports[p].lid, 0, guid);
		sa_topo_offer(q, rec);
	}
}

/* ---- P_KeyTableRecord ------------------------------------------------------------------ */

/* Without a plan the ports the plan would cover (LID-owning ports and
 * switch ports facing a CA) carry the default partition. */
static int sa_topo_pkey_default(const struct sa_topo_q *q, const struct fabric_node *n,
				unsigned port, uint16_t pkey[SA_TOPO_PKEYS_PER_BLOCK])
{
	const struct fabric_node *r;

	if (fabric_is_switch(n) && port > 0) {
		r = sa_topo_peer(q->f, &n->ports[port]);
		if (!r || fabric_is_switch(r))
			return 0;
	}
	pkey[0] = PKEY_DEFAULT;
	return 1;
}

/* Block 0 of a port's table: 1 when the port has one. */
static int sa_topo_pkey_block(const struct sa_topo_q *q, int node, unsigned port,
			      uint16_t pkey[SA_TOPO_PKEYS_PER_BLOCK])
{
	const struct fabric_node *n = &q->f->nodes[node];
	const struct pkey_port_table *t;

	memset(pkey, 0, SA_TOPO_PKEYS_PER_BLOCK * sizeof(pkey[0]));
	if (!sa_topo_port_listed(n, port))
		return 0;
	if (!q->sa->v.pk)
		return sa_topo_pkey_default(q, n, port, pkey);
	t = pkey_plan_port(q->sa->v.pk, node, (uint8_t)port);
	if (!t)
		return 0;
	for (unsigned i = 0; i < t->n && i < PKEY_TABLE_MAX && i < SA_TOPO_PKEYS_PER_BLOCK; i++)
		pkey[i] = t->pkey[i];
	return 1;
}

static void sa_topo_pkey_rec(struct sa_topo_q *q, int node)
{
	const struct fabric_node *n = &q->f->nodes[node];
	uint16_t pkey[SA_TOPO_PKEYS_PER_BLOCK];
	uint8_t rec[SA_TOPO_PKEY_SIZE];

	for (unsigned p = 0; p <= n->num_ports && !q->err; p++) {
		if (!sa_topo_pkey_block(q, node, p, pkey))
			continue;
		sa_topo_pkey_encode(rec, sa_topo_lid(n, p), 0, (uint8_t)p, pkey);
		sa_topo_offer(q, rec);
	}
}

/* ---- dispatch ------------------------------------------------------------------------ */

struct sa_topo_kind {
	const struct sa_rec_desc *d;
	int lid_comp;	    /* component naming the node by LID, -1 none */
	sa_topo_node_fn fn; /* one node's records; NULL: special scan */
};

static const struct sa_topo_kind sa_topo_kinds[] = {
    {&sa_topo_node_desc, SA_TOPO_NR_LID, sa_topo_node_rec},
    {&sa_topo_portinfo_desc, SA_TOPO_PIR_ENDPORT_LID, sa_topo_portinfo_rec},
    {&sa_topo_swinfo_desc, SA_TOPO_SWR_LID, sa_topo_swinfo_rec},
    {&sa_topo_lft_desc, SA_TOPO_LFTR_LID, sa_topo_lft_rec},
    {&sa_topo_mft_desc, SA_TOPO_MFTR_LID, sa_topo_mft_rec},
    {&sa_topo_sminfo_desc, -1, NULL},
    {&sa_topo_link_desc, SA_TOPO_LR_FROM_LID, NULL},
    {&sa_topo_guidinfo_desc, SA_TOPO_GIR_LID, sa_topo_guidinfo_rec},
    {&sa_topo_pkey_desc, SA_TOPO_PKR_LID, sa_topo_pkey_rec},
};

static const struct sa_topo_kind *sa_topo_kind(uint16_t attr_id)
{
	for (size_t i = 0; i < sizeof(sa_topo_kinds) / sizeof(sa_topo_kinds[0]); i++)
		if (sa_topo_kinds[i].d->attr_id == attr_id)
			return &sa_topo_kinds[i];
	return NULL;
}

static void sa_topo_q_init(struct sa_topo_q *q, const struct sa *sa, const struct sa_req *req,
			   const struct sa_rec_desc *d, struct sa_out *out)
{
	size_t n = d->size < SA_DATA_SIZE ? d->size : SA_DATA_SIZE;

	memset(q, 0, sizeof(*q));
	q->sa = sa;
	q->f = sa->v.f;
	q->d = d;
	q->mask = req->mad->comp_mask;
	memcpy(q->want, req->mad->data, n);
	/* no SM_Key configured: no one is trusted (keys stay hidden) */
	q->trusted = sa->v.sm_key && req->mad->sm_key == sa->v.sm_key;
	q->out = out;
}

static uint16_t sa_topo_records(struct sa *sa, const struct sa_req *req, struct sa_out *out,
				const struct sa_topo_kind *k)
{
	struct sa_topo_q q;

	out->rec_size = k->d->size;
	if (!sa->v.f)
		return SA_STATUS_OK;
	sa_topo_q_init(&q, sa, req, k->d, out);
	/* P_Key tables say who may talk to whom: only a trusted requester
	 * (one that knows the SM_Key) may read them */
	if (k->d == &sa_topo_pkey_desc && !q.trusted)
		return SA_STATUS_REQ_INVALID;
	if (k->d == &sa_topo_sminfo_desc)
		sa_topo_sminfo_rec(&q);
	else if (k->d == &sa_topo_link_desc)
		sa_topo_link_scan(&q);
	else
		sa_topo_scan(&q, k->lid_comp, k->fn);
	return q.err ? SA_STATUS_NO_RESOURCES : SA_STATUS_OK;
}

/* CapabilityMask IsMultiPathSupported (rdma-core umad_sa.h calls it
 * UMAD_SA_CAP_MASK_IS_MULTIPATH_SUP): paths.c answers GetMulti
 * MultiPathRecord. */
#define SA_TOPO_CAP_MULTIPATH (1u << 10)

/* Claims only what nanosm does: UD multicast when the multicast module
 * runs; MultiPathRecord always (its handler needs no module state). */
static uint16_t sa_topo_class_port_info(struct sa *sa, const struct sa_req *req, struct sa_out *out)
{
	struct sa_topo_cpi c = {(sa->mcast ? SA_CAP_UD_MCAST : 0) | SA_TOPO_CAP_MULTIPATH, 0,
				SA_TOPO_RESP_TIME};
	uint8_t rec[SA_TOPO_CPI_SIZE];

	if (req->mad->method != SA_METHOD_GET)
		return SA_STATUS_BAD_METHOD_ATTR;
	out->rec_size = SA_TOPO_CPI_SIZE;
	sa_topo_cpi_encode(rec, &c);
	return sa_out_add(out, rec) < 0 ? SA_STATUS_NO_RESOURCES : SA_STATUS_OK;
}

uint16_t sa_topo_handle(struct sa *sa, const struct sa_req *req, struct sa_out *out)
{
	const struct sa_topo_kind *k;
	uint8_t method = req->mad->method;

	if (method != SA_METHOD_GET && method != SA_METHOD_GET_TABLE)
		return SA_STATUS_BAD_METHOD_ATTR;
	if (req->mad->attr_id == SA_ATTR_CLASS_PORT_INFO)
		return sa_topo_class_port_info(sa, req, out);
	k = sa_topo_kind(req->mad->attr_id);
	if (!k)
		return SA_STATUS_BAD_METHOD_ATTR;
	return sa_topo_records(sa, req, out, k);
}
