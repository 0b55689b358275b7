/*
 * sm/sa/paths.c - PathRecord answers: walks the programmed LFTs of the SA's
 * view, caches the facts per (SLID, DLID), applies partitions (the ends'
 * and the requester's) and the request's components.  MultiPathRecord GetMulti is answered as one
 * PathRecord Get per SGID x DGID pair, through the same code.  Reads
 * the view only; never changes the fabric, the LFTs or the partition
 * plan, and does no I/O.
 */
#include "sm/sa/paths.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/pkey.h"
#include "mad/sa_path.h"

/* ---- walking the LFTs ------------------------------------------------------- */

static int path_owns(const struct fabric_port *p, uint16_t lid)
{
	return p->lid && lid >= p->lid && lid < p->lid + fabric_port_lid_count(p);
}

static uint8_t path_port_rate(const struct fabric_port *p)
{
	return sa_path_rate_from_port_info(p->pi_raw, p->width_active, p->speed_active);
}

/* The smaller valid MTU (an invalid one, e.g. 0 from a file, loses). */
static uint8_t path_mtu_min(uint8_t a, uint8_t b)
{
	if (!sa_path_mtu_valid(a))
		return b;
	if (!sa_path_mtu_valid(b))
		return a;
	return a < b ? a : b;
}

/* Account the link between ports a and b (the first link replaces the
 * source port's own values). */
static void path_link(struct sa_path_fact *pf, const struct fabric_port *a,
		      const struct fabric_port *b)
{
	uint8_t mtu = path_mtu_min(a->mtu_cap, b->mtu_cap);
	uint8_t rate = sa_path_rate_min(path_port_rate(a), path_port_rate(b));

	if (pf->hops++ == 0) {
		pf->mtu = mtu;
		pf->rate = rate;
		return;
	}
	pf->mtu = path_mtu_min(pf->mtu, mtu);
	pf->rate = sa_path_rate_min(pf->rate, rate);
}

/* Cross the cable of (*node, *port): move to its far end.  0 or -ENOENT. */
static int path_cross(const struct fabric *f, int *node, uint8_t *port, struct sa_path_fact *pf)
{
	const struct fabric_port *a = &f->nodes[*node].ports[*port];
	const struct fabric_node *rn;

	if (a->remote_node < 0 || (size_t)a->remote_node >= f->n_nodes)
		return -ENOENT;
	rn = &f->nodes[a->remote_node];
	if (a->remote_port > rn->num_ports)
		return -ENOENT;
	path_link(pf, a, &rn->ports[a->remote_port]);
	*node = a->remote_node;
	*port = a->remote_port;
	return 0;
}

/* The out port switch sw's LFT gives dlid (LFT_DROP when none). */
static uint8_t path_lft_port(const struct lft_set *lfts, int sw, uint16_t dlid)
{
	const struct lft *t = lfts ? lft_set_find_const(lfts, sw) : NULL;

	if (!t || !t->port || dlid > t->top)
		return LFT_DROP;
	return t->port[dlid];
}

/* From a port of node (the one the packet is on) to dlid; 1 reached, 0 not. */
static int path_follow(const struct fabric *f, const struct lft_set *lfts, int node, uint8_t port,
		       uint16_t dlid, struct sa_path_fact *pf)
{
	while (pf->hops <= SA_PATH_MAX_HOPS) {
		const struct fabric_node *n = &f->nodes[node];
		uint8_t out;

		if (!fabric_is_switch(n))
			return path_owns(&n->ports[port], dlid);
		out = path_lft_port(lfts, node, dlid);
		if (out == 0)
			return path_owns(&n->ports[0], dlid);
		if (out > n->num_ports)
			return 0; /* LFT_DROP or garbage */
		port = out;
		if (path_cross(f, &node, &port, pf) < 0)
			return 0;
	}
	return 0; /* a loop, or longer than any sane subnet */
}

static void path_walk(const struct fabric *f, const struct lft_set *lfts, struct sa_port_ref src,
		      uint16_t dlid, struct sa_path_fact *pf)
{
	const struct fabric_node *n = &f->nodes[src.node];
	const struct fabric_port *p = &n->ports[src.port];
	int node = src.node;
	uint8_t port = src.port;
	int ok;

	memset(pf, 0, sizeof(*pf));
	pf->mtu = p->mtu_cap;
	pf->rate = path_port_rate(p);
	if (!fabric_is_switch(n) && !path_owns(p, dlid) && path_cross(f, &node, &port, pf) < 0)
		ok = 0;
	else
		ok = path_follow(f, lfts, node, port, dlid, pf);
	pf->reachable = (uint8_t)ok;
	if (!sa_path_mtu_valid(pf->mtu))
		pf->mtu = SA_PATH_MTU_256; /* MTUCap unknown: the smallest MTU */
	if (!pf->rate)
		pf->rate = 2; /* width/speed unknown: the slowest rate, 2.5 Gb/s */
	pf->life = sa_path_life_from_hops(pf->hops);
}

/* ---- the cache ----------------------------------------------------------------- */

struct sa_paths_slot {
	uint16_t slid, dlid;
	uint8_t used;
	struct sa_path_fact f;
};

struct sa_paths {
	struct sa_paths_slot *slot; /* SA_PATH_CACHE_SLOTS */
	uint64_t gen;		    /* route_gen the entries belong to */
};

struct sa_paths *sa_paths_new(void)
{
	struct sa_paths *pc = calloc(1, sizeof(*pc));

	if (!pc)
		return NULL;
	pc->slot = calloc(SA_PATH_CACHE_SLOTS, sizeof(*pc->slot));
	if (!pc->slot) {
		free(pc);
		return NULL;
	}
	return pc;
}

void sa_paths_free(struct sa_paths *pc)
{
	if (!pc)
		return;
	free(pc->slot);
	free(pc);
}

void sa_paths_flush(struct sa_paths *pc)
{
	if (pc)
		memset(pc->slot, 0, SA_PATH_CACHE_SLOTS * sizeof(*pc->slot));
}

static struct sa_paths_slot *sa_paths_slot(struct sa_paths *pc, uint16_t slid, uint16_t dlid)
{
	uint32_t h = ((uint32_t)slid << 16 | dlid) * 0x9E3779B1u;

	return &pc->slot[h >> (32 - SA_PATH_CACHE_BITS)];
}

int sa_path_facts(struct sa *sa, struct sa_port_ref src, uint16_t dlid, struct sa_path_fact *out)
{
	uint16_t slid = sa_port_lid(sa, src);
	struct sa_paths_slot *s = NULL;

	if (!sa_port(sa, src))
		return -ENOENT;
	sa->counters.path_queries++;
	if (sa->paths && sa->paths->gen != sa->v.route_gen) {
		sa_paths_flush(sa->paths);
		sa->paths->gen = sa->v.route_gen;
	}
	if (sa->paths && slid) {
		s = sa_paths_slot(sa->paths, slid, dlid);
		if (s->used && s->slid == slid && s->dlid == dlid) {
			sa->counters.path_cache_hits++;
			*out = s->f;
			return 0;
		}
	}
	path_walk(sa->v.f, sa->v.lfts, src, dlid, out);
	if (s)
		*s = (struct sa_paths_slot){slid, dlid, 1, *out};
	return 0;
}

/* ---- the request ------------------------------------------------------------------ */

/* One end of the requested paths. */
struct path_end {
	uint8_t given;		/* the mask names this end (GID and/or LID) */
	struct sa_port_ref ref; /* FABRIC_NONE: names nothing of this subnet */
	uint16_t lid;
};

struct path_query {
	struct sa *sa;
	uint64_t mask;
	const uint8_t *tmpl; /* the request's record bytes */
	struct sa_path_rec want;
	struct sa_out *out;
	struct sa_port_ref requester; /* who asks (node FABRIC_NONE: unknown) */
	int trusted;		      /* the request carries the subnet's SM_Key */
};

/* Components matched as plain values (the rest are ends, P_Key,
 * selectors, or echoed from the request). */
#define PATH_EXACT_COMPS                                                                           \
	(SA_PR_CM(SA_PR_RAW_TRAFFIC) | SA_PR_CM(SA_PR_HOP_LIMIT) | SA_PR_CM(SA_PR_REVERSIBLE) |    \
	 SA_PR_CM(SA_PR_SL) | SA_PR_CM(SA_PR_PREFERENCE))

static int path_has(const struct path_query *q, int comp)
{
	return (q->mask & SA_PR_CM(comp)) != 0;
}

/* Resolve one end from its GID and/or LID component.  Returns
 * SA_STATUS_INVALID_GID for a GID that is not a port of this subnet;
 * a LID naming no port or disagreeing with the GID leaves ref NONE. */
static uint16_t path_end_resolve(const struct path_query *q, int gid_comp, int lid_comp,
				 const uint8_t *gid, uint16_t lid, struct path_end *e)
{
	struct sa_port_ref none = {FABRIC_NONE, 0};
	struct sa_port_ref by_lid = sa_by_lid(q->sa, lid);

	*e = (struct path_end){0, none, 0};
	if (path_has(q, gid_comp)) {
		e->given = 1;
		e->ref = sa_by_gid(q->sa, gid);
		if (e->ref.node == FABRIC_NONE)
			return SA_STATUS_INVALID_GID;
		e->lid = sa_port_lid(q->sa, e->ref);
	}
	if (path_has(q, lid_comp)) {
		int agree = !e->given || (by_lid.node == e->ref.node && by_lid.port == e->ref.port);

		e->given = 1;
		e->ref = agree ? by_lid : none;
		e->lid = lid;
	}
	if (e->given && !e->lid)
		e->ref = none;
	return SA_STATUS_OK;
}

/* Trusted: the request's SM_Key is the subnet's (IBA 15.2.1: the SA
 * header's SM_Key marks a privileged request; 0 configured = nobody). */
static int path_trusted(const struct sa *sa, const struct sa_req *req)
{
	return sa->v.sm_key && req->mad->sm_key == sa->v.sm_key;
}

/* May the requester see a path in partition pkey?  A path is usable only
 * inside its partition (IBA 10.9: a port sends and receives only with
 * P_Keys in its table), so a host learns only paths of partitions it is a
 * member of, full or limited; a trusted requester (the SM's tools) sees
 * every path.  OpenSM is looser here: it wants the requester to share some
 * P_Key with each end, not necessarily the path's.  With no partition plan
 * everyone is a full member of the default partition, the only P_Key a
 * path then has.  An unknown requester is a member of nothing. */
static int path_requester_in(const struct path_query *q, uint16_t pkey)
{
	if (q->trusted)
		return 1;
	return pkey_plan_member(q->sa->v.pk, q->requester.node, q->requester.port,
				PKEY_BASE(pkey)) > 0;
}

/* The P_Key the ends share in base want (0: any, the default partition
 * first) that the requester may see; 0 when none. */
static uint16_t path_pkey_seen(const struct path_query *q, const struct path_end *s,
			       const struct path_end *d, uint16_t want)
{
	uint16_t k =
	    pkey_plan_shared(q->sa->v.pk, s->ref.node, s->ref.port, d->ref.node, d->ref.port, want);

	return k && path_requester_in(q, k) ? k : 0;
}

/* The P_Key of the path (the ends share it, the request allows it, the
 * requester may see it), 0 when none.  Without a P_Key in the request the
 * default partition is preferred, then the lowest base the requester is in. */
static uint16_t path_pkey(const struct path_query *q, const struct path_end *s,
			  const struct path_end *d)
{
	const struct pkey_port_table *t;
	uint16_t k, best = 0;

	if (path_has(q, SA_PR_PKEY)) {
		k = path_pkey_seen(q, s, d, q->want.pkey);
		return k && PKEY_BASE(k) == PKEY_BASE(q->want.pkey) ? k : 0;
	}
	k = pkey_plan_shared(q->sa->v.pk, s->ref.node, s->ref.port, d->ref.node, d->ref.port, 0);
	if (!k || path_requester_in(q, k))
		return k;
	t = pkey_plan_port(q->sa->v.pk, s->ref.node, s->ref.port);
	for (unsigned i = 0; t && i < t->n; i++) {
		k = path_pkey_seen(q, s, d, t->pkey[i]);
		if (k && (!best || PKEY_BASE(k) < PKEY_BASE(best)))
			best = k;
	}
	return best;
}

/* One selector-governed component: MTU, Rate or PacketLifeTime. */
struct path_sel {
	int sel_comp, val_comp;
	size_t sel_off, val_off; /* in struct sa_path_rec */
	int (*select)(uint8_t have, uint8_t sel, uint8_t want, uint8_t *out);
};

static const struct path_sel path_sels[] = {
    {SA_PR_MTU_SELECTOR, SA_PR_MTU, offsetof(struct sa_path_rec, mtu_sel),
     offsetof(struct sa_path_rec, mtu), sa_path_mtu_select},
    {SA_PR_RATE_SELECTOR, SA_PR_RATE, offsetof(struct sa_path_rec, rate_sel),
     offsetof(struct sa_path_rec, rate), sa_path_rate_select},
    {SA_PR_LIFE_SELECTOR, SA_PR_LIFE, offsetof(struct sa_path_rec, life_sel),
     offsetof(struct sa_path_rec, life), sa_path_life_select},
};

/* Apply the request's selector to r's value (the path's own on entry).
 * A value without a selector means "exactly"; a selector without a value
 * only counts as "best".  The answer says "exactly".  0 or -ENOENT. */
static int path_apply_sel(const struct path_query *q, const struct path_sel *s,
			  struct sa_path_rec *r)
{
	const uint8_t *w = (const uint8_t *)&q->want;
	uint8_t *val = (uint8_t *)r + s->val_off;
	uint8_t sel = SA_SEL_BEST;

	if (path_has(q, s->val_comp))
		sel = path_has(q, s->sel_comp) ? w[s->sel_off] : SA_SEL_EXACT;
	*((uint8_t *)r + s->sel_off) = SA_SEL_EXACT;
	return s->select(*val, sel, w[s->val_off], val);
}

/* Components the SA does not decide: copied from the request when given. */
static void path_echo(const struct path_query *q, struct sa_path_rec *r)
{
	if (path_has(q, SA_PR_SERVICE_ID_HI))
		r->service_id |= q->want.service_id & 0xffffffff00000000ull;
	if (path_has(q, SA_PR_SERVICE_ID_LO))
		r->service_id |= q->want.service_id & 0xffffffffull;
	if (path_has(q, SA_PR_FLOW_LABEL))
		r->flow_label = q->want.flow_label;
	if (path_has(q, SA_PR_TCLASS))
		r->tclass = q->want.tclass;
	if (path_has(q, SA_PR_QOS_CLASS))
		r->qos_class = q->want.qos_class;
}

/* The SL of the path from s to d: the routing engine's for that DLID,
 * from s's switch (lft_set_sl_from), 0 without tables. */
static uint8_t path_sl(const struct path_query *q, const struct path_end *s,
		       const struct path_end *d)
{
	const struct sa_view *v = &q->sa->v;

	if (!v->lfts)
		return 0;
	if (!v->f)
		return lft_set_sl(v->lfts, d->lid);
	return lft_set_sl_from(v->lfts, fabric_entry_switch(v->f, s->ref.node, s->ref.port),
			       d->lid);
}

/* The record of one path, or -ENOENT when a selector cannot be met. */
static int path_build(const struct path_query *q, const struct path_end *s,
		      const struct path_end *d, const struct sa_path_fact *pf, int reversible,
		      uint16_t pkey, struct sa_path_rec *r)
{
	memset(r, 0, sizeof(*r));
	sa_port_gid(q->sa, d->ref, r->dgid);
	sa_port_gid(q->sa, s->ref, r->sgid);
	r->dlid = d->lid;
	r->slid = s->lid;
	r->reversible = (uint8_t)reversible;
	r->pkey = pkey;
	/* the SL the routing engine gave the paths to this DLID (with an SL
	 * per path, those entering at the source's switch): its VL at every
	 * hop (routing/fabric.h), what keeps the path free of credit loops; a
	 * request naming another SL finds no record */
	r->sl = path_sl(q, s, d);
	r->mtu = pf->mtu;
	r->rate = pf->rate;
	r->life = pf->life;
	path_echo(q, r);
	for (size_t i = 0; i < sizeof(path_sels) / sizeof(path_sels[0]); i++)
		if (path_apply_sel(q, &path_sels[i], r) < 0)
			return -ENOENT;
	return 0;
}

/* Answer one (source, destination) pair: adds at most one record. */
static uint16_t path_pair(const struct path_query *q, const struct path_end *s,
			  const struct path_end *d)
{
	struct sa_path_fact fwd, back;
	struct sa_path_rec r;
	uint8_t rec[SA_PATH_REC_SIZE];
	uint16_t pkey = path_pkey(q, s, d);

	if (!pkey)
		return SA_STATUS_OK;
	if (sa_path_facts(q->sa, s->ref, d->lid, &fwd) < 0 || !fwd.reachable)
		return SA_STATUS_OK;
	if (sa_path_facts(q->sa, d->ref, s->lid, &back) < 0)
		back.reachable = 0;
	if (path_build(q, s, d, &fwd, back.reachable, pkey, &r) < 0)
		return SA_STATUS_OK;
	sa_path_encode(&r, rec);
	if (!sa_rec_match(&sa_path_desc, q->mask & PATH_EXACT_COMPS, q->tmpl, rec))
		return SA_STATUS_OK;
	if (q->out->n >= SA_PATH_TABLE_MAX)
		return SA_STATUS_NO_RESOURCES;
	return sa_out_add(q->out, rec) < 0 ? SA_STATUS_NO_RESOURCES : SA_STATUS_OK;
}

/* The LID-owning port after r in node/port order (r.node FABRIC_NONE
 * starts); node FABRIC_NONE at the end. */
static struct sa_port_ref path_port_next(const struct fabric *f, struct sa_port_ref r)
{
	size_t n = r.node == FABRIC_NONE ? 0 : (size_t)r.node;
	unsigned p = r.node == FABRIC_NONE ? 0 : r.port + 1u;

	for (; n < f->n_nodes; n++, p = 0) {
		const struct fabric_node *nd = &f->nodes[n];

		if (fabric_is_switch(nd)) {
			if (p == 0 && nd->ports[0].lid)
				return (struct sa_port_ref){(int)n, 0};
			continue;
		}
		for (p = p ? p : 1; p <= nd->num_ports; p++)
			if (nd->ports[p].present && nd->ports[p].lid)
				return (struct sa_port_ref){(int)n, (uint8_t)p};
	}
	return (struct sa_port_ref){FABRIC_NONE, 0};
}

static struct path_end path_end_of(const struct sa *sa, struct sa_port_ref r)
{
	return (struct path_end){1, r, sa_port_lid(sa, r)};
}

static uint16_t path_dests(const struct path_query *q, const struct path_end *s,
			   const struct path_end *d)
{
	const struct fabric *f = q->sa->v.f;
	uint16_t st = SA_STATUS_OK;

	if (d->given)
		return path_pair(q, s, d);
	for (struct sa_port_ref r = path_port_next(f, d->ref); r.node != FABRIC_NONE && !st;
	     r = path_port_next(f, r)) {
		struct path_end e = path_end_of(q->sa, r);

		st = path_pair(q, s, &e);
	}
	return st;
}

static uint16_t path_sources(const struct path_query *q, const struct path_end *s,
			     const struct path_end *d)
{
	const struct fabric *f = q->sa->v.f;
	uint16_t st = SA_STATUS_OK;

	if (s->given)
		return path_dests(q, s, d);
	for (struct sa_port_ref r = path_port_next(f, s->ref); r.node != FABRIC_NONE && !st;
	     r = path_port_next(f, r)) {
		struct path_end e = path_end_of(q->sa, r);

		st = path_dests(q, &e, d);
	}
	return st;
}

/* Resolve both ends; SA_STATUS_OK with *none set when an end names no
 * port here (an empty answer). */
static uint16_t path_ends(const struct path_query *q, int is_get, struct path_end *s,
			  struct path_end *d, int *none)
{
	uint16_t st = path_end_resolve(q, SA_PR_SGID, SA_PR_SLID, q->want.sgid, q->want.slid, s);

	if (st == SA_STATUS_OK)
		st = path_end_resolve(q, SA_PR_DGID, SA_PR_DLID, q->want.dgid, q->want.dlid, d);
	*none = st != SA_STATUS_OK || (s->given && s->ref.node == FABRIC_NONE) ||
		(d->given && d->ref.node == FABRIC_NONE);
	return is_get ? st : SA_STATUS_OK;
}

uint16_t sa_path_handle(struct sa *sa, const struct sa_req *req, struct sa_out *out)
{
	const struct sa_mad *m = req->mad;
	int is_get = m->method == SA_METHOD_GET, none;
	struct path_query q = {
	    sa, m->comp_mask, m->data, {0}, out, req->requester, path_trusted(sa, req)};
	struct path_end s, d;
	uint16_t st;

	out->rec_size = SA_PATH_REC_SIZE;
	if (!is_get && m->method != SA_METHOD_GET_TABLE)
		return SA_STATUS_BAD_METHOD_ATTR;
	if (sa_comp_unknown(&sa_path_desc, m->comp_mask))
		return SA_STATUS_REQ_INVALID;
	if (is_get && (!(q.mask & (SA_PR_CM(SA_PR_SGID) | SA_PR_CM(SA_PR_SLID))) ||
		       !(q.mask & (SA_PR_CM(SA_PR_DGID) | SA_PR_CM(SA_PR_DLID)))))
		return SA_STATUS_INSUF_COMPS;
	if (!sa->v.f)
		return SA_STATUS_OK;
	sa_path_decode(m->data, &q.want);
	st = path_ends(&q, is_get, &s, &d, &none);
	if (none)
		return st;
	return path_sources(&q, &s, &d);
}

/* ---- MultiPathRecord ------------------------------------------------------------- */

/* Every GID of the list names a port of this subnet (a multicast or
 * foreign GID makes the whole request invalid, as in a PathRecord Get). */
static uint16_t mpath_gids_check(const struct sa *sa, const struct sa_mpath_req *mp)
{
	for (unsigned i = 0; i < (unsigned)mp->sgid_count + mp->dgid_count; i++)
		if (sa_by_gid(sa, mp->gid[i]).node == FABRIC_NONE)
			return SA_STATUS_INVALID_GID;
	return SA_STATUS_OK;
}

/* One SGID x DGID pair: a PathRecord Get naming both GIDs. */
static uint16_t mpath_pair(struct path_query *q, const uint8_t *sgid, const uint8_t *dgid)
{
	struct path_end s, d;
	uint16_t st;
	int none;

	memcpy(q->want.sgid, sgid, 16);
	memcpy(q->want.dgid, dgid, 16);
	st = path_ends(q, 1, &s, &d, &none);
	if (none)
		return st;
	return path_pair(q, &s, &d);
}

/* Sources in list order, each with every destination, until NumbPath
 * records (when given) are in. */
static uint16_t mpath_pairs(struct path_query *q, const struct sa_mpath_req *mp)
{
	uint16_t st = SA_STATUS_OK;

	for (unsigned i = 0; i < mp->sgid_count && !st; i++)
		for (unsigned j = 0; j < mp->dgid_count && !st; j++) {
			if (mp->numb_path && q->out->n >= mp->numb_path)
				return SA_STATUS_OK;
			st = mpath_pair(q, mp->gid[i], mp->gid[mp->sgid_count + j]);
		}
	return st;
}

/* The template's status: INSUF_COMPS without both counts selected,
 * REQ_INVALID for a zero count or more GIDs than one MAD holds. */
static uint16_t mpath_decode(const struct sa_mad *m, struct sa_mpath_req *mp)
{
	uint64_t both = SA_MPR_CM(SA_MPR_SGID_COUNT) | SA_MPR_CM(SA_MPR_DGID_COUNT);

	if (sa_comp_unknown(&sa_mpath_desc, m->comp_mask))
		return SA_STATUS_REQ_INVALID;
	if ((m->comp_mask & both) != both)
		return SA_STATUS_INSUF_COMPS;
	return sa_mpath_decode(m->data, m->comp_mask, mp) < 0 ? SA_STATUS_REQ_INVALID
							      : SA_STATUS_OK;
}

uint16_t sa_mpath_handle(struct sa *sa, const struct sa_req *req, struct sa_out *out)
{
	struct sa_mpath_req mp;
	uint8_t tmpl[SA_PATH_REC_SIZE];
	struct path_query q;
	uint16_t st;

	out->rec_size = SA_PATH_REC_SIZE;
	if (req->mad->method != SA_METHOD_GET_MULTI)
		return SA_STATUS_BAD_METHOD_ATTR;
	st = mpath_decode(req->mad, &mp);
	if (st != SA_STATUS_OK || !sa->v.f)
		return st;
	st = mpath_gids_check(sa, &mp);
	if (st != SA_STATUS_OK)
		return st;
	sa_path_encode(&mp.want, tmpl);
	q = (struct path_query){sa,
				mp.pr_mask | SA_PR_CM(SA_PR_SGID) | SA_PR_CM(SA_PR_DGID),
				tmpl,
				mp.want,
				out,
				req->requester,
				path_trusted(sa, req)};
	return mpath_pairs(&q, &mp);
}
