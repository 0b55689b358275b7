/*
 * sm/sa/mcast.c - the multicast group database and the MCMemberRecord handler
 * (see mcast.h).  Owns struct mcast_db and MLID allocation; reads the SA's
 * view and partition plan, never changes them, and sends nothing itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/pkey.h"
#include "mad/sa_mcm.h"
#include "mad/sa_path.h"
#include "sm/sa/mcast.h"
#include "sm/sa/mcast_priv.h"

/* ---- database ------------------------------------------------------------ */

struct mcast_db *mcast_db_new(void)
{
	struct mcast_db *db = calloc(1, sizeof(struct mcast_db));

	if (db)
		db->mlid_cap = MCAST_N_MLIDS;
	return db;
}

void mcast_db_set_limits(struct mcast_db *db, unsigned mlid_cap, struct sa_quota *quota)
{
	if (!db)
		return;
	db->mlid_cap = mlid_cap && mlid_cap < MCAST_N_MLIDS ? mlid_cap : MCAST_N_MLIDS;
	db->quota = quota;
}

unsigned mcast_db_mlids_used(const struct mcast_db *db)
{
	return db ? db->mlids_used : 0;
}

static void mcast_group_free(struct mcast_group *g)
{
	if (g)
		free(g->m);
	free(g);
}

void mcast_db_free(struct mcast_db *db)
{
	if (!db)
		return;
	for (size_t i = 0; i < db->n; i++)
		mcast_group_free(db->g[i]);
	free(db->g);
	free(db);
}

uint64_t mcast_db_gen(const struct mcast_db *db)
{
	return db ? db->gen : 0;
}

size_t mcast_db_count(const struct mcast_db *db)
{
	return db ? db->n : 0;
}

static void mcast_info_of(const struct mcast_group *g, struct mcast_group_info *gi)
{
	*gi = g->info;
	gi->n_members = g->n;
}

int mcast_db_group(const struct mcast_db *db, size_t i, struct mcast_group_info *gi)
{
	if (!db || i >= db->n)
		return -ENOENT;
	mcast_info_of(db->g[i], gi);
	return 0;
}

static struct mcast_group *mcast_lookup(const struct mcast_db *db, const uint8_t *mgid)
{
	for (size_t i = 0; i < db->n; i++)
		if (!memcmp(db->g[i]->info.mgid, mgid, 16))
			return db->g[i];
	return NULL;
}

int mcast_db_find(const struct mcast_db *db, const uint8_t mgid[16], struct mcast_group_info *gi)
{
	const struct mcast_group *g = db ? mcast_lookup(db, mgid) : NULL;

	if (!g)
		return -ENOENT;
	mcast_info_of(g, gi);
	return 0;
}

int mcast_db_member(const struct mcast_db *db, const uint8_t mgid[16], size_t i, uint8_t gid[16])
{
	const struct mcast_group *g = db ? mcast_lookup(db, mgid) : NULL;

	if (!g || i >= g->n)
		return -ENOENT;
	memcpy(gid, g->m[i].gid, 16);
	return 0;
}

/* Lowest free MLID under the switches' cap, marked used; 0 when all are
 * taken. */
static uint16_t mcast_mlid_alloc(struct mcast_db *db)
{
	for (unsigned i = 0; i < db->mlid_cap; i++)
		if (!(db->mlid_used[i / 64] >> (i % 64) & 1)) {
			db->mlid_used[i / 64] |= 1ULL << (i % 64);
			db->mlids_used++;
			return (uint16_t)(MFT_MLID_BASE + i);
		}
	return 0;
}

static void mcast_mlid_free(struct mcast_db *db, uint16_t mlid)
{
	unsigned i = (unsigned)mlid - MFT_MLID_BASE;

	if (mlid >= MFT_MLID_BASE && i < MCAST_N_MLIDS && (db->mlid_used[i / 64] >> (i % 64) & 1)) {
		db->mlid_used[i / 64] &= ~(1ULL << (i % 64));
		db->mlids_used--;
	}
}

/* A new group with an MLID, appended: 0, -ENOMEM or -ENOSPC (no MLID). */
static int mcast_group_new(struct mcast_db *db, const struct mcast_group_info *gi,
			   struct mcast_group **out)
{
	struct mcast_group *g;

	if (db->n == db->cap) {
		size_t cap = db->cap ? 2 * db->cap : 16;
		struct mcast_group **v = realloc(db->g, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		db->g = v, db->cap = cap;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->info = *gi;
	g->info.n_members = 0;
	g->info.mlid = mcast_mlid_alloc(db);
	if (!g->info.mlid) {
		free(g);
		return -ENOSPC;
	}
	db->g[db->n++] = g;
	db->gen++;
	*out = g;
	return 0;
}

static void mcast_group_delete(struct mcast_db *db, struct mcast_group *g)
{
	for (size_t i = 0; i < db->n; i++)
		if (db->g[i] == g) {
			memmove(&db->g[i], &db->g[i + 1], (db->n - i - 1) * sizeof(db->g[0]));
			db->n--;
			break;
		}
	mcast_mlid_free(db, g->info.mlid);
	if (g->owner)
		sa_quota_give(db->quota, g->owner, SA_QUOTA_GROUPS);
	mcast_group_free(g);
	db->gen++;
}

/* Delete g if it has no members and is not a policy group. */
void mcast_group_reap(struct mcast_db *db, struct mcast_group *g)
{
	if (g->n == 0 && !g->info.policy)
		mcast_group_delete(db, g);
}

static struct mcast_member *mcast_member_find(const struct mcast_group *g, const uint8_t *gid)
{
	for (size_t i = 0; i < g->n; i++)
		if (!memcmp(g->m[i].gid, gid, 16))
			return &g->m[i];
	return NULL;
}

/* Add join bits for gid (a new member or more bits): the member, or NULL. */
static struct mcast_member *mcast_member_join(struct mcast_db *db, struct mcast_group *g,
					      const uint8_t *gid, uint8_t join, uint8_t proxy)
{
	struct mcast_member *m = mcast_member_find(g, gid);

	if (!m) {
		if (g->n == g->cap) {
			size_t cap = g->cap ? 2 * g->cap : 8;
			struct mcast_member *v = realloc(g->m, cap * sizeof(*v));

			if (!v)
				return NULL;
			g->m = v, g->cap = cap;
		}
		m = &g->m[g->n++];
		memset(m, 0, sizeof(*m));
		memcpy(m->gid, gid, 16);
		m->proxy = proxy;
	}
	if ((m->join | join) != m->join)
		db->gen++;
	m->join |= join;
	return m;
}

void mcast_member_remove(struct mcast_group *g, struct mcast_member *m)
{
	size_t i = (size_t)(m - g->m);

	memmove(&g->m[i], &g->m[i + 1], (g->n - i - 1) * sizeof(g->m[0]));
	g->n--;
}

/* ---- partitions' IPoIB groups ------------------------------------------- */

static uint8_t mcast_mtu_enum(unsigned bytes)
{
	switch (bytes) {
	case 256:
		return 1;
	case 512:
		return 2;
	case 1024:
		return 3;
	case 4096:
		return 5;
	default:
		return MCAST_DEFAULT_MTU;
	}
}

/* The Rate enum of a policy rate in Gb/s (policy_rate_valid); the
 * default, 10 Gb/s, for 0 or anything else. */
static uint8_t mcast_rate_enum(unsigned gbps)
{
	for (uint8_t r = 2; r <= MCAST_RATE_MAX; r++)
		if (gbps && sa_path_rate_mbps(r) == gbps * 1000u)
			return r;
	return MCAST_DEFAULT_RATE;
}

/* ff12:401b:<pkey>:0000:0000:0000:ffff:ffff (IPoIB, RFC 4391). */
static void mcast_ipoib_info(uint16_t pkey, unsigned mtu_bytes, unsigned rate_gbps,
			     struct mcast_group_info *gi)
{
	static const uint8_t tmpl[16] = {0xff, 0x12, 0x40, 0x1b, 0,    0,    0,	   0,
					 0,    0,    0,	   0,	 0xff, 0xff, 0xff, 0xff};

	memset(gi, 0, sizeof(*gi));
	memcpy(gi->mgid, tmpl, 16);
	gi->mgid[4] = (uint8_t)(pkey >> 8);
	gi->mgid[5] = (uint8_t)pkey;
	gi->qkey = MCAST_IPOIB_QKEY;
	gi->pkey = pkey;
	gi->mtu = mcast_mtu_enum(mtu_bytes);
	gi->rate = mcast_rate_enum(rate_gbps);
	gi->life = MCAST_DEFAULT_LIFE;
	gi->scope = MCAST_SCOPE_LINK;
	gi->policy = 1;
}

/* Create the group of gi unless it exists; either way it is a policy
 * group with gi's MTU and rate.  An existing group whose MTU or rate
 * differs takes gi's (its members stay) and is reported to retuned. */
static int mcast_policy_group(struct mcast_db *db, const struct mcast_group_info *gi,
			      mcast_retune_fn retuned, void *ctx)
{
	struct mcast_group *g = mcast_lookup(db, gi->mgid);
	struct mcast_group_info was, now;

	if (!g)
		return mcast_group_new(db, gi, &g);
	g->info.policy = 1;
	if (g->info.mtu == gi->mtu && g->info.rate == gi->rate)
		return 0;
	mcast_info_of(g, &was);
	g->info.mtu = gi->mtu;
	g->info.rate = gi->rate;
	db->gen++;
	mcast_info_of(g, &now);
	if (retuned)
		retuned(ctx, &was, &now);
	return 0;
}

/* The policy groups wanted: the IPoIB group of each ipoib partition, or of
 * the default partition when there are none.  Caller frees *out. */
static int mcast_policy_wanted(const struct policy_partition *parts, size_t n,
			       struct mcast_group_info **out, size_t *n_out)
{
	*n_out = 0;
	*out = calloc(n + 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	if (n == 0)
		mcast_ipoib_info(PKEY_DEFAULT, 0, 0, &(*out)[(*n_out)++]);
	for (size_t i = 0; i < n; i++)
		if (parts[i].ipoib)
			mcast_ipoib_info((uint16_t)(parts[i].pkey | PKEY_FULL), parts[i].mtu,
					 parts[i].rate, &(*out)[(*n_out)++]);
	return 0;
}

int mcast_db_set_partitions(struct mcast_db *db, const struct policy_partition *parts, size_t n,
			    mcast_retune_fn retuned, void *ctx)
{
	struct mcast_group_info *want;
	size_t n_want;
	int rc = mcast_policy_wanted(parts, n, &want, &n_want);

	if (rc < 0)
		return rc;
	/* demote policy groups no longer named first, so their MLIDs are free */
	for (size_t i = db->n; i-- > 0;) {
		struct mcast_group *g = db->g[i];
		int named = 0;

		for (size_t j = 0; j < n_want && !named; j++)
			named = !memcmp(g->info.mgid, want[j].mgid, 16);
		if (g->info.policy && !named) {
			g->info.policy = 0;
			db->gen++;
			mcast_group_reap(db, g);
		}
	}
	for (size_t j = 0; j < n_want && rc == 0; j++)
		rc = mcast_policy_group(db, &want[j], retuned, ctx);
	free(want);
	return rc;
}

/* ---- who may do what ------------------------------------------------------ */

/* Membership of a port in partition pkey: 0 none, 1 limited, 2 full. */
int mcast_pkey_member(const struct sa *sa, struct sa_port_ref r, uint16_t pkey)
{
	if (!sa->v.pk)
		return PKEY_BASE(pkey) == PKEY_BASE(PKEY_DEFAULT) ? 2 : 0;
	return pkey_plan_member(sa->v.pk, r.node, r.port, PKEY_BASE(pkey));
}

static int mcast_same_port(struct sa_port_ref a, struct sa_port_ref b)
{
	return a.node == b.node && a.port == b.port;
}

/* o15-0.2.1: a requester other than the port itself (a proxy) must be in
 * the group's partition, and may not change a membership the port made for
 * itself (one without ProxyJoin).  m: the port's membership, or NULL. */
static uint16_t mcast_proxy_check(const struct sa *sa, const struct sa_req *req, uint16_t pkey,
				  const struct mcast_member *m)
{
	if (mcast_pkey_member(sa, req->requester, pkey) == 0)
		return SA_STATUS_REQ_INVALID;
	return m && !m->proxy ? SA_STATUS_REQ_INVALID : SA_STATUS_OK;
}

/* ---- selectors ------------------------------------------------------------ */

/* Rate enum (IBA 15.2.5.16) as a bandwidth; 0 = unknown. */
static unsigned mcast_rate_bw(uint8_t rate)
{
	return sa_path_rate_mbps(rate);
}

/* Does a group value satisfy (selector, value)?  cmp compares group to
 * wanted: <0, 0, >0. */
static int mcast_sel_ok(uint8_t sel, int cmp)
{
	switch (sel) {
	case SA_SEL_GREATER:
		return cmp > 0;
	case SA_SEL_LESS:
		return cmp < 0;
	case SA_SEL_EXACT:
		return cmp == 0;
	default:
		return 1; /* largest available */
	}
}

static int mcast_cmp(unsigned a, unsigned b)
{
	return a < b ? -1 : a > b;
}

/* The selector a request applies: its own when selected, else exact. */
static uint8_t mcast_sel(uint64_t comp, enum sa_mcm_comp sel_bit, uint8_t sel)
{
	return comp & SA_MCM_BIT(sel_bit) ? sel : SA_SEL_EXACT;
}

static int mcast_mtu_ok(const struct sa_mcm *t, uint64_t comp, uint8_t mtu)
{
	if (!(comp & SA_MCM_BIT(SA_MCM_COMP_MTU)))
		return 1;
	return mcast_sel_ok(mcast_sel(comp, SA_MCM_COMP_MTU_SEL, t->mtu_sel),
			    mcast_cmp(mtu, t->mtu));
}

static int mcast_rate_ok(const struct sa_mcm *t, uint64_t comp, uint8_t rate)
{
	uint8_t sel = mcast_sel(comp, SA_MCM_COMP_RATE_SEL, t->rate_sel);

	if (!(comp & SA_MCM_BIT(SA_MCM_COMP_RATE)))
		return 1;
	if (sel == SA_SEL_EXACT)
		return rate == t->rate;
	if (!mcast_rate_bw(t->rate) || !mcast_rate_bw(rate))
		return sel == SA_SEL_BEST;
	return mcast_sel_ok(sel, mcast_cmp(mcast_rate_bw(rate), mcast_rate_bw(t->rate)));
}

/* ---- records ---------------------------------------------------------------- */

static void mcast_record(const struct mcast_group *g, const uint8_t *port_gid, uint8_t join,
			 uint8_t proxy, uint8_t *rec)
{
	const struct mcast_group_info *i = &g->info;
	struct sa_mcm m = {
	    .qkey = i->qkey,
	    .mlid = i->mlid,
	    .mtu_sel = SA_SEL_EXACT,
	    .mtu = i->mtu,
	    .tclass = i->tclass,
	    .pkey = i->pkey,
	    .rate_sel = SA_SEL_EXACT,
	    .rate = i->rate,
	    .life_sel = SA_SEL_EXACT,
	    .life = i->life,
	    .sl = i->sl,
	    .flow_label = i->flow_label,
	    .hop_limit = i->hop_limit,
	    .scope = i->scope,
	    .join_state = join,
	    .proxy_join = proxy,
	};

	memcpy(m.mgid, i->mgid, 16);
	if (port_gid)
		memcpy(m.port_gid, port_gid, 16);
	sa_mcm_encode(&m, rec);
}

static uint16_t mcast_answer(struct sa_out *out, const struct mcast_group *g,
			     const struct mcast_member *m, uint8_t join)
{
	uint8_t rec[SA_MCM_SIZE];

	mcast_record(g, m->gid, join, m->proxy, rec);
	return sa_out_add(out, rec) < 0 ? SA_STATUS_NO_RESOURCES : SA_STATUS_OK;
}

/* ---- join ------------------------------------------------------------------ */

#define MCAST_CREATE_COMPS                                                                         \
	(SA_MCM_BIT(SA_MCM_COMP_QKEY) | SA_MCM_BIT(SA_MCM_COMP_PKEY) |                             \
	 SA_MCM_BIT(SA_MCM_COMP_SL) | SA_MCM_BIT(SA_MCM_COMP_FLOW_LABEL) |                         \
	 SA_MCM_BIT(SA_MCM_COMP_TCLASS))
#define MCAST_MEMBER_COMPS (SA_MCM_BIT(SA_MCM_COMP_PORT_GID) | SA_MCM_BIT(SA_MCM_COMP_JOIN_STATE))

static int mcast_gid_zero(const uint8_t *gid)
{
	static const uint8_t zero[16];

	return !memcmp(gid, zero, 16);
}

/* A value chosen by (selector, wanted) within [lo, hi]; 0 = none fits. */
static uint8_t mcast_pick(uint64_t comp, enum sa_mcm_comp val_bit, uint8_t sel, uint8_t want,
			  uint8_t dflt, uint8_t lo, uint8_t hi)
{
	int v;

	if (!(comp & SA_MCM_BIT(val_bit)))
		return dflt;
	/* each value's selector is the component just before it */
	switch (mcast_sel(comp, (enum sa_mcm_comp)(val_bit - 1), sel)) {
	case SA_SEL_GREATER:
		v = want + 1;
		break;
	case SA_SEL_LESS:
		v = want - 1;
		break;
	case SA_SEL_EXACT:
		v = want;
		break;
	default:
		v = hi;
		break;
	}
	return v >= lo && v <= hi ? (uint8_t)v : 0;
}

/* May a client name this MGID for a new group (o15-0.1.6)?  A multicast
 * GID (IBA 4.1.1) starts 0xff, then flags 000T: the three upper flag bits
 * are reserved and must be zero.  The signature 0xa01b after them is the
 * SA's own: MGIDs of that form are the ones it assigns (see
 * mcast_create_info), so a client may not pick one. */
static int mcast_mgid_valid(const uint8_t *mgid)
{
	if (mgid[0] != 0xff || (mgid[1] & 0xe0))
		return 0;
	return !(mgid[2] == 0xa0 && mgid[3] == 0x1b);
}

/* Parameters of a group created by request t from port p. */
static uint16_t mcast_create_info(struct mcast_db *db, const struct sa_mcm *t, uint64_t comp,
				  const struct fabric_port *p, struct mcast_group_info *gi)
{
	uint8_t mtu_max = p->mtu_cap && p->mtu_cap < 5 ? p->mtu_cap : 5;

	memset(gi, 0, sizeof(*gi));
	gi->qkey = t->qkey, gi->pkey = t->pkey, gi->sl = t->sl, gi->tclass = t->tclass;
	gi->flow_label = t->flow_label;
	gi->hop_limit = comp & SA_MCM_BIT(SA_MCM_COMP_HOP_LIMIT) ? t->hop_limit : 0;
	gi->mtu = mcast_pick(comp, SA_MCM_COMP_MTU, t->mtu_sel, t->mtu,
			     MCAST_DEFAULT_MTU < mtu_max ? MCAST_DEFAULT_MTU : mtu_max, 1, mtu_max);
	gi->rate =
	    mcast_pick(comp, SA_MCM_COMP_RATE, t->rate_sel, t->rate, MCAST_DEFAULT_RATE, 2, 22);
	gi->life =
	    mcast_pick(comp, SA_MCM_COMP_LIFE, t->life_sel, t->life, MCAST_DEFAULT_LIFE, 0, 63);
	if (!gi->mtu || !gi->rate || !mcast_rate_ok(t, comp, gi->rate))
		return SA_STATUS_REQ_INVALID;
	if ((comp & SA_MCM_BIT(SA_MCM_COMP_MGID)) && !mcast_gid_zero(t->mgid)) {
		if (!mcast_mgid_valid(t->mgid))
			return SA_STATUS_REQ_INVALID;
		memcpy(gi->mgid, t->mgid, 16);
		gi->scope = t->mgid[1] & 0xf;
		return SA_STATUS_OK;
	}
	gi->scope = comp & SA_MCM_BIT(SA_MCM_COMP_SCOPE) && t->scope ? t->scope : MCAST_SCOPE_LINK;
	do { /* ff1<scope>:a01b:<pkey>:0000:<counter>, unique */
		uint64_t c = ++db->next_mgid;
		uint8_t head[8] = {0xff,
				   (uint8_t)(0x10 | gi->scope),
				   0xa0,
				   0x1b,
				   (uint8_t)(gi->pkey >> 8),
				   (uint8_t)gi->pkey,
				   0,
				   0};

		memcpy(gi->mgid, head, 8);
		for (int i = 0; i < 8; i++)
			gi->mgid[8 + i] = (uint8_t)(c >> (56 - 8 * i));
	} while (mcast_lookup(db, gi->mgid));
	return SA_STATUS_OK;
}

/* The new group of gi, charged to the requester's groups quota (a proxy
 * creating for another port uses its own quota): 0x0100 when the
 * requester is over it or no MLID under the switches' cap is free, both
 * told to the SA's owner. */
static uint16_t mcast_create_charged(struct sa *sa, const struct sa_req *req,
				     const struct mcast_group_info *gi, struct mcast_group **g)
{
	const struct fabric_port *rp = sa_port(sa, req->requester);
	struct sa_note n = {.port_guid = rp ? rp->guid : 0, .lid = req->from.lid};
	int rc = sa_quota_take(sa->quota, n.port_guid, SA_QUOTA_GROUPS, sa->lim.groups_per_port);

	if (rc == -EDQUOT) {
		n.kind = SA_NOTE_QUOTA, n.quota = SA_QUOTA_GROUPS,
		n.limit = sa->lim.groups_per_port;
		sa->counters.quota_refused++;
		sa_note(sa, &n);
	}
	if (rc < 0)
		return SA_STATUS_NO_RESOURCES;
	rc = mcast_group_new(sa->mcast, gi, g);
	if (rc < 0) {
		sa_quota_give(sa->quota, n.port_guid, SA_QUOTA_GROUPS);
		if (rc == -ENOSPC) {
			n.kind = SA_NOTE_MLID_FULL, n.limit = sa->mcast->mlid_cap;
			sa->counters.mlid_refused++;
			sa_note(sa, &n);
		}
		return SA_STATUS_NO_RESOURCES;
	}
	(*g)->owner = n.port_guid ? n.port_guid : ~0ull;
	return SA_STATUS_OK;
}

static uint16_t mcast_create(struct sa *sa, const struct sa_req *req, const struct sa_mcm *t,
			     uint64_t comp, struct sa_port_ref port, struct mcast_group **g)
{
	const struct fabric_port *p = sa_port(sa, port);
	struct mcast_group_info gi;
	uint16_t st;

	if (!p)
		return SA_STATUS_INVALID_GID;
	if ((comp & MCAST_CREATE_COMPS) != MCAST_CREATE_COMPS)
		return SA_STATUS_INSUF_COMPS;
	if (!(t->join_state & SA_MCM_JOIN_FULL))
		return SA_STATUS_REQ_INVALID; /* only a full member creates */
	if (mcast_pkey_member(sa, port, t->pkey) != 2)
		return SA_STATUS_REQ_INVALID;
	st = mcast_create_info(sa->mcast, t, comp, p, &gi);
	if (st != SA_STATUS_OK)
		return st;
	return mcast_create_charged(sa, req, &gi, g);
}

/* Can the port's link carry the group's packets (its MTU and rate at
 * least the group's)?  Unknown port figures (0) do not refuse. */
int mcast_port_carries(const struct sa *sa, struct sa_port_ref port,
		       const struct mcast_group_info *i)
{
	const struct fabric_port *p = sa_port(sa, port);
	unsigned have;

	if (!p)
		return 1;
	if (p->mtu_cap && p->mtu_cap < i->mtu)
		return 0;
	have =
	    mcast_rate_bw(sa_path_rate_from_port_info(p->pi_raw, p->width_active, p->speed_active));
	return !have || !mcast_rate_bw(i->rate) || have >= mcast_rate_bw(i->rate);
}

/* May port join existing group g with request t? */
static uint16_t mcast_join_check(const struct sa *sa, const struct mcast_group *g,
				 const struct sa_mcm *t, uint64_t comp, struct sa_port_ref port)
{
	const struct mcast_group_info *i = &g->info;

#define MCAST_DIFFERS(c, a, b) ((comp & SA_MCM_BIT(c)) && (a) != (b))
	if (MCAST_DIFFERS(SA_MCM_COMP_QKEY, t->qkey, i->qkey) ||
	    MCAST_DIFFERS(SA_MCM_COMP_PKEY, PKEY_BASE(t->pkey), PKEY_BASE(i->pkey)) ||
	    MCAST_DIFFERS(SA_MCM_COMP_MLID, t->mlid, i->mlid) ||
	    MCAST_DIFFERS(SA_MCM_COMP_SL, t->sl, i->sl) ||
	    MCAST_DIFFERS(SA_MCM_COMP_FLOW_LABEL, t->flow_label, i->flow_label) ||
	    MCAST_DIFFERS(SA_MCM_COMP_TCLASS, t->tclass, i->tclass))
		return SA_STATUS_REQ_INVALID;
#undef MCAST_DIFFERS
	if (!mcast_mtu_ok(t, comp, i->mtu) || !mcast_rate_ok(t, comp, i->rate))
		return SA_STATUS_REQ_INVALID;
	if (mcast_pkey_member(sa, port, i->pkey) == 0 || !mcast_port_carries(sa, port, i))
		return SA_STATUS_REQ_INVALID;
	return SA_STATUS_OK;
}

/* The port a join/leave is for, after the checks every such request
 * gets: SA status. */
static uint16_t mcast_member_port(const struct sa *sa, const struct sa_req *req,
				  const struct sa_mcm *t, uint64_t comp, struct sa_port_ref *port,
				  uint8_t *proxy)
{
	if ((comp & MCAST_MEMBER_COMPS) != MCAST_MEMBER_COMPS)
		return SA_STATUS_INSUF_COMPS;
	if (!t->join_state || (t->join_state & ~SA_MCM_JOIN_ALL))
		return SA_STATUS_REQ_INVALID;
	*port = sa_by_gid(sa, t->port_gid);
	if (port->node == FABRIC_NONE)
		return SA_STATUS_INVALID_GID;
	if (req->requester.node == FABRIC_NONE)
		return SA_STATUS_REQ_INVALID;
	*proxy = !mcast_same_port(req->requester, *port);
	return SA_STATUS_OK;
}

static uint16_t mcast_join(struct sa *sa, const struct sa_req *req, const struct sa_mcm *t,
			   uint64_t comp, struct sa_out *out)
{
	struct sa_port_ref port;
	struct mcast_group *g = NULL;
	struct mcast_member *m;
	uint8_t proxy;
	uint16_t st = mcast_member_port(sa, req, t, comp, &port, &proxy);

	if (st != SA_STATUS_OK)
		return st;
	if ((comp & SA_MCM_BIT(SA_MCM_COMP_MGID)) && !mcast_gid_zero(t->mgid))
		g = mcast_lookup(sa->mcast, t->mgid);
	if (proxy)
		st = mcast_proxy_check(sa, req, g ? g->info.pkey : t->pkey,
				       g ? mcast_member_find(g, t->port_gid) : NULL);
	if (st != SA_STATUS_OK)
		return st;
	st = g ? mcast_join_check(sa, g, t, comp, port) : mcast_create(sa, req, t, comp, port, &g);
	if (st != SA_STATUS_OK)
		return st;
	m = mcast_member_join(sa->mcast, g, t->port_gid, t->join_state, proxy);
	if (!m) {
		mcast_group_reap(sa->mcast, g);
		return SA_STATUS_NO_RESOURCES;
	}
	return mcast_answer(out, g, m, m->join);
}

/* ---- leave ------------------------------------------------------------------ */

/* Take JoinState bits the port holds (all of them, else ERR_REQ_INVALID).
 * The answer carries the bits it keeps: 0 when it is no longer a member. */
static uint16_t mcast_leave(struct sa *sa, const struct sa_req *req, const struct sa_mcm *t,
			    uint64_t comp, struct sa_out *out)
{
	struct sa_port_ref port;
	struct mcast_group *g;
	struct mcast_member *m;
	uint8_t proxy;
	uint16_t st = mcast_member_port(sa, req, t, comp, &port, &proxy);

	if (st != SA_STATUS_OK)
		return st;
	if (!(comp & SA_MCM_BIT(SA_MCM_COMP_MGID)))
		return SA_STATUS_INSUF_COMPS;
	g = mcast_lookup(sa->mcast, t->mgid);
	m = g ? mcast_member_find(g, t->port_gid) : NULL;
	if (!m || (m->join & t->join_state) != t->join_state)
		return SA_STATUS_REQ_INVALID; /* o15-0.1.14: only bits it holds */
	if (proxy && mcast_proxy_check(sa, req, g->info.pkey, m) != SA_STATUS_OK)
		return SA_STATUS_REQ_INVALID;
	m->join &= (uint8_t)~t->join_state;
	st = mcast_answer(out, g, m, m->join);
	sa->mcast->gen++;
	if (!m->join)
		mcast_member_remove(g, m);
	mcast_group_reap(sa->mcast, g);
	return st;
}

/* ---- query ------------------------------------------------------------------ */

/* A requester sees the groups of the partitions it is in (all when it is
 * not known: the SA then has no view to judge by). */
static int mcast_visible(const struct sa *sa, const struct sa_req *req, const struct mcast_group *g)
{
	if (req->requester.node == FABRIC_NONE)
		return 1;
	return mcast_pkey_member(sa, req->requester, g->info.pkey) > 0;
}

static uint16_t mcast_add_match(struct sa_out *out, uint64_t comp, const uint8_t *want,
				const uint8_t *rec)
{
	if (!sa_rec_match(&sa_mcm_desc, comp, want, rec))
		return SA_STATUS_OK;
	return sa_out_add(out, rec) < 0 ? SA_STATUS_NO_RESOURCES : SA_STATUS_OK;
}

/* An untrusted requester (no SM_Key, or not ours) sees who else is in a
 * group no more than OpenSM shows it: its own membership in full, else one
 * record per group with a zero PortGID and JoinState. */
static int mcast_trusted(const struct sa *sa, const struct sa_req *req)
{
	return sa->v.sm_key && req->mad->sm_key == sa->v.sm_key;
}

static uint16_t mcast_query_group(struct sa *sa, const struct sa_req *req, uint64_t comp,
				  const struct mcast_group *g, struct sa_out *out)
{
	uint8_t rec[SA_MCM_SIZE], own[16];
	const struct mcast_member *m;
	uint16_t st = SA_STATUS_OK;

	if (!mcast_trusted(sa, req)) {
		sa_port_gid(sa, req->requester, own);
		m = req->requester.node == FABRIC_NONE ? NULL : mcast_member_find(g, own);
		mcast_record(g, m ? m->gid : NULL, m ? m->join : 0, m ? m->proxy : 0, rec);
		return mcast_add_match(out, comp, req->mad->data, rec);
	}
	if (g->n == 0) {
		mcast_record(g, NULL, 0, 0, rec);
		return mcast_add_match(out, comp, req->mad->data, rec);
	}
	for (size_t j = 0; j < g->n && st == SA_STATUS_OK; j++) {
		mcast_record(g, g->m[j].gid, g->m[j].join, g->m[j].proxy, rec);
		st = mcast_add_match(out, comp, req->mad->data, rec);
	}
	return st;
}

/* Every membership matching the template (trusted requesters); a group
 * without members shows as one record with a zero PortGID and JoinState. */
static uint16_t mcast_query(struct sa *sa, const struct sa_req *req, uint64_t comp,
			    struct sa_out *out)
{
	uint16_t st = SA_STATUS_OK;

	for (size_t i = 0; i < sa->mcast->n && st == SA_STATUS_OK; i++) {
		const struct mcast_group *g = sa->mcast->g[i];

		if (mcast_visible(sa, req, g))
			st = mcast_query_group(sa, req, comp, g, out);
	}
	return st;
}

uint16_t sa_mcm_handle(struct sa *sa, const struct sa_req *req, struct sa_out *out)
{
	uint64_t comp = req->mad->comp_mask;
	struct sa_mcm t;

	out->rec_size = SA_MCM_SIZE;
	if (!sa->mcast)
		return SA_STATUS_NO_RESOURCES;
	if (sa_comp_unknown(&sa_mcm_desc, comp))
		return SA_STATUS_REQ_INVALID;
	sa_mcm_decode(req->mad->data, &t);
	switch (req->mad->method) {
	case SA_METHOD_GET:
	case SA_METHOD_GET_TABLE:
		return mcast_query(sa, req, comp, out);
	case SA_METHOD_SET:
		return mcast_join(sa, req, &t, comp, out);
	case SA_METHOD_DELETE:
		return mcast_leave(sa, req, &t, comp, out);
	default:
		return SA_STATUS_BAD_METHOD_ATTR;
	}
}
