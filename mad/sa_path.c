/*
 * sa_path.c - PathRecord wire codec, the Rate enum and the MTU/Rate/
 * PacketLifeTime selector rules.  Owns only tables and arithmetic: it
 * never sees the fabric or the SA (sm/sa/paths.c computes paths).
 */
#include "mad/sa_path.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <infiniband/mad.h>

/* PathRecord components, IBA 15.2.5.16 (bit offsets from the MSB of byte 0). */
static const struct sa_field sa_path_comp[SA_PR_N_COMP] = {
	[SA_PR_SERVICE_ID_HI] = { 0, 32 },
	[SA_PR_SERVICE_ID_LO] = { 32, 32 },
	[SA_PR_DGID] = { 64, 128 },
	[SA_PR_SGID] = { 192, 128 },
	[SA_PR_DLID] = { 320, 16 },
	[SA_PR_SLID] = { 336, 16 },
	[SA_PR_RAW_TRAFFIC] = { 352, 1 },
	[SA_PR_RESERVED1] = { 353, 0 }, /* 3 reserved bits */
	[SA_PR_FLOW_LABEL] = { 356, 20 },
	[SA_PR_HOP_LIMIT] = { 376, 8 },
	[SA_PR_TCLASS] = { 384, 8 },
	[SA_PR_REVERSIBLE] = { 392, 1 },
	[SA_PR_NUMB_PATH] = { 393, 7 },
	[SA_PR_PKEY] = { 400, 16 },
	[SA_PR_QOS_CLASS] = { 416, 12 },
	[SA_PR_SL] = { 428, 4 },
	[SA_PR_MTU_SELECTOR] = { 432, 2 },
	[SA_PR_MTU] = { 434, 6 },
	[SA_PR_RATE_SELECTOR] = { 440, 2 },
	[SA_PR_RATE] = { 442, 6 },
	[SA_PR_LIFE_SELECTOR] = { 448, 2 },
	[SA_PR_LIFE] = { 450, 6 },
	[SA_PR_PREFERENCE] = { 456, 8 }, /* then 48 reserved bits */
};

const struct sa_rec_desc sa_path_desc = {
	.attr_id = SA_ATTR_PATH_RECORD,
	.size = SA_PATH_REC_SIZE,
	.name = "PathRecord",
	.comp = sa_path_comp,
	.n_comp = SA_PR_N_COMP,
};

/* ---- codec ---------------------------------------------------------------- */

/* Numeric components libibmad has no field for: component <-> struct member. */
struct sa_path_num {
	uint8_t comp;
	uint8_t size; /* bytes of the struct member */
	size_t off;
};

#define SA_PATH_NUM(c, m) \
	{ c, sizeof(((struct sa_path_rec *)0)->m), offsetof(struct sa_path_rec, m) }

static const struct sa_path_num sa_path_nums[] = {
	SA_PATH_NUM(SA_PR_RAW_TRAFFIC, raw_traffic),
	SA_PATH_NUM(SA_PR_FLOW_LABEL, flow_label),
	SA_PATH_NUM(SA_PR_HOP_LIMIT, hop_limit),
	SA_PATH_NUM(SA_PR_TCLASS, tclass),
	SA_PATH_NUM(SA_PR_REVERSIBLE, reversible),
	SA_PATH_NUM(SA_PR_PKEY, pkey),
	SA_PATH_NUM(SA_PR_QOS_CLASS, qos_class),
	SA_PATH_NUM(SA_PR_MTU_SELECTOR, mtu_sel),
	SA_PATH_NUM(SA_PR_MTU, mtu),
	SA_PATH_NUM(SA_PR_RATE_SELECTOR, rate_sel),
	SA_PATH_NUM(SA_PR_RATE, rate),
	SA_PATH_NUM(SA_PR_LIFE_SELECTOR, life_sel),
	SA_PATH_NUM(SA_PR_LIFE, life),
	SA_PATH_NUM(SA_PR_PREFERENCE, preference),
};

#define SA_PATH_N_NUMS (sizeof(sa_path_nums) / sizeof(sa_path_nums[0]))

static uint64_t sa_path_member_get(const struct sa_path_rec *r, const struct sa_path_num *n)
{
	const uint8_t *p = (const uint8_t *)r + n->off;
	uint32_t v32;
	uint16_t v16;

	switch (n->size) {
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	default:
		return *p;
	}
}

static void sa_path_member_set(struct sa_path_rec *r, const struct sa_path_num *n, uint64_t v)
{
	uint8_t *p = (uint8_t *)r + n->off;
	uint32_t v32 = (uint32_t)v;
	uint16_t v16 = (uint16_t)v;

	switch (n->size) {
	case 4:
		memcpy(p, &v32, 4);
		break;
	case 2:
		memcpy(p, &v16, 2);
		break;
	default:
		*p = (uint8_t)v;
	}
}

void sa_path_encode(const struct sa_path_rec *r, uint8_t *rec)
{
	uint8_t gid[16];

	memset(rec, 0, SA_PATH_REC_SIZE);
	sa_put(rec, &sa_path_comp[SA_PR_SERVICE_ID_HI], r->service_id >> 32);
	sa_put(rec, &sa_path_comp[SA_PR_SERVICE_ID_LO], r->service_id & 0xffffffffu);
	memcpy(gid, r->dgid, 16);
	mad_set_array(rec, 0, IB_SA_PR_DGID_F, gid);
	memcpy(gid, r->sgid, 16);
	mad_set_array(rec, 0, IB_SA_PR_SGID_F, gid);
	mad_set_field(rec, 0, IB_SA_PR_DLID_F, r->dlid);
	mad_set_field(rec, 0, IB_SA_PR_SLID_F, r->slid);
	mad_set_field(rec, 0, IB_SA_PR_NPATH_F, r->numb_path & 0x7fu);
	mad_set_field(rec, 0, IB_SA_PR_SL_F, r->sl & 0xfu);
	for (size_t i = 0; i < SA_PATH_N_NUMS; i++)
		sa_put(rec, &sa_path_comp[sa_path_nums[i].comp],
		       sa_path_member_get(r, &sa_path_nums[i]));
}

void sa_path_decode(const uint8_t *rec, struct sa_path_rec *r)
{
	uint8_t buf[SA_PATH_REC_SIZE];

	memcpy(buf, rec, sizeof(buf)); /* libibmad takes non-const buffers */
	memset(r, 0, sizeof(*r));
	r->service_id = sa_get(buf, &sa_path_comp[SA_PR_SERVICE_ID_HI]) << 32 |
			sa_get(buf, &sa_path_comp[SA_PR_SERVICE_ID_LO]);
	mad_get_array(buf, 0, IB_SA_PR_DGID_F, r->dgid);
	mad_get_array(buf, 0, IB_SA_PR_SGID_F, r->sgid);
	r->dlid = (uint16_t)mad_get_field(buf, 0, IB_SA_PR_DLID_F);
	r->slid = (uint16_t)mad_get_field(buf, 0, IB_SA_PR_SLID_F);
	r->numb_path = (uint8_t)mad_get_field(buf, 0, IB_SA_PR_NPATH_F);
	r->sl = (uint8_t)mad_get_field(buf, 0, IB_SA_PR_SL_F);
	for (size_t i = 0; i < SA_PATH_N_NUMS; i++)
		sa_path_member_set(r, &sa_path_nums[i],
				   sa_get(buf, &sa_path_comp[sa_path_nums[i].comp]));
}

/* ---- MultiPathRecord ---------------------------------------------------------- */

/* MultiPathRecord components, IBA 15.2.5.20 (bit offsets from the MSB of
 * byte 0); the GID list after byte 24 is not a component. */
static const struct sa_field sa_mpath_comp[SA_MPR_N_COMP] = {
	[SA_MPR_RAW_TRAFFIC] = { 0, 1 },
	[SA_MPR_RESERVED1] = { 1, 0 }, /* 3 reserved bits */
	[SA_MPR_FLOW_LABEL] = { 4, 20 },
	[SA_MPR_HOP_LIMIT] = { 24, 8 },
	[SA_MPR_TCLASS] = { 32, 8 },
	[SA_MPR_REVERSIBLE] = { 40, 1 },
	[SA_MPR_NUMB_PATH] = { 41, 7 },
	[SA_MPR_PKEY] = { 48, 16 },
	[SA_MPR_QOS_CLASS] = { 64, 12 },
	[SA_MPR_SL] = { 76, 4 },
	[SA_MPR_MTU_SELECTOR] = { 80, 2 },
	[SA_MPR_MTU] = { 82, 6 },
	[SA_MPR_RATE_SELECTOR] = { 88, 2 },
	[SA_MPR_RATE] = { 90, 6 },
	[SA_MPR_LIFE_SELECTOR] = { 96, 2 },
	[SA_MPR_LIFE] = { 98, 6 },
	[SA_MPR_SERVICE_ID_MSB] = { 104, 8 },
	[SA_MPR_INDEPENDENCE] = { 112, 2 },
	[SA_MPR_RESERVED2] = { 114, 0 }, /* 6 reserved bits */
	[SA_MPR_SGID_COUNT] = { 120, 8 },
	[SA_MPR_DGID_COUNT] = { 128, 8 },
	[SA_MPR_SERVICE_ID_LSB] = { 136, 56 },
};

const struct sa_rec_desc sa_mpath_desc = {
	.attr_id = SA_ATTR_MULTIPATH_RECORD,
	.size = SA_MPATH_HDR_SIZE,
	.name = "MultiPathRecord",
	.comp = sa_mpath_comp,
	.n_comp = SA_MPR_N_COMP,
};

/* MultiPathRecord components that are PathRecord components too. */
static const uint8_t sa_mpath_to_pr[][2] = {
	{ SA_MPR_RAW_TRAFFIC, SA_PR_RAW_TRAFFIC },
	{ SA_MPR_FLOW_LABEL, SA_PR_FLOW_LABEL },
	{ SA_MPR_HOP_LIMIT, SA_PR_HOP_LIMIT },
	{ SA_MPR_TCLASS, SA_PR_TCLASS },
	{ SA_MPR_REVERSIBLE, SA_PR_REVERSIBLE },
	{ SA_MPR_NUMB_PATH, SA_PR_NUMB_PATH },
	{ SA_MPR_PKEY, SA_PR_PKEY },
	{ SA_MPR_QOS_CLASS, SA_PR_QOS_CLASS },
	{ SA_MPR_SL, SA_PR_SL },
	{ SA_MPR_MTU_SELECTOR, SA_PR_MTU_SELECTOR },
	{ SA_MPR_MTU, SA_PR_MTU },
	{ SA_MPR_RATE_SELECTOR, SA_PR_RATE_SELECTOR },
	{ SA_MPR_RATE, SA_PR_RATE },
	{ SA_MPR_LIFE_SELECTOR, SA_PR_LIFE_SELECTOR },
	{ SA_MPR_LIFE, SA_PR_LIFE },
};

#define SA_MPATH_N_SHARED (sizeof(sa_mpath_to_pr) / sizeof(sa_mpath_to_pr[0]))

/* ServiceID: 8 + 56 bits here, 32 + 32 in a PathRecord. */
static uint64_t sa_mpath_service_id(const uint8_t *rec, uint64_t comp_mask)
{
	uint64_t msb = sa_get(rec, &sa_mpath_comp[SA_MPR_SERVICE_ID_MSB]);
	uint64_t lsb = sa_get(rec, &sa_mpath_comp[SA_MPR_SERVICE_ID_LSB]);

	return ((comp_mask & SA_MPR_CM(SA_MPR_SERVICE_ID_MSB)) ? msb << 56 : 0) |
	       ((comp_mask & SA_MPR_CM(SA_MPR_SERVICE_ID_LSB)) ? lsb : 0);
}

int sa_mpath_decode(const uint8_t *rec, uint64_t comp_mask, struct sa_mpath_req *r)
{
	uint8_t pr[SA_PATH_REC_SIZE] = { 0 };
	uint64_t both = SA_MPR_CM(SA_MPR_SGID_COUNT) | SA_MPR_CM(SA_MPR_DGID_COUNT);
	unsigned n;

	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < SA_MPATH_N_SHARED; i++) {
		const uint8_t *m = sa_mpath_to_pr[i];

		sa_put(pr, &sa_path_comp[m[1]], sa_get(rec, &sa_mpath_comp[m[0]]));
		if (comp_mask & SA_MPR_CM(m[0]))
			r->pr_mask |= SA_PR_CM(m[1]);
	}
	sa_path_decode(pr, &r->want);
	r->want.service_id = sa_mpath_service_id(rec, comp_mask);
	if (comp_mask & (SA_MPR_CM(SA_MPR_SERVICE_ID_MSB) | SA_MPR_CM(SA_MPR_SERVICE_ID_LSB)))
		r->pr_mask |= SA_PR_CM(SA_PR_SERVICE_ID_HI) | SA_PR_CM(SA_PR_SERVICE_ID_LO);
	if (comp_mask & SA_MPR_CM(SA_MPR_NUMB_PATH))
		r->numb_path = r->want.numb_path;
	r->independence = (uint8_t)sa_get(rec, &sa_mpath_comp[SA_MPR_INDEPENDENCE]);
	r->sgid_count = (uint8_t)sa_get(rec, &sa_mpath_comp[SA_MPR_SGID_COUNT]);
	r->dgid_count = (uint8_t)sa_get(rec, &sa_mpath_comp[SA_MPR_DGID_COUNT]);
	if ((comp_mask & both) != both || !r->sgid_count || !r->dgid_count)
		return -EINVAL;
	n = (unsigned)r->sgid_count + r->dgid_count;
	if (n > SA_MPATH_GIDS_MAX)
		return -E2BIG;
	memcpy(r->gid, rec + SA_MPATH_HDR_SIZE, n * 16u);
	return 0;
}

void sa_mpath_encode(const struct sa_mpath_req *r, uint8_t *rec)
{
	uint8_t pr[SA_PATH_REC_SIZE];
	unsigned n = (unsigned)r->sgid_count + r->dgid_count;

	memset(rec, 0, SA_DATA_SIZE);
	sa_path_encode(&r->want, pr);
	for (size_t i = 0; i < SA_MPATH_N_SHARED; i++) {
		const uint8_t *m = sa_mpath_to_pr[i];

		sa_put(rec, &sa_mpath_comp[m[0]], sa_get(pr, &sa_path_comp[m[1]]));
	}
	sa_put(rec, &sa_mpath_comp[SA_MPR_NUMB_PATH], r->numb_path);
	sa_put(rec, &sa_mpath_comp[SA_MPR_SERVICE_ID_MSB], r->want.service_id >> 56);
	sa_put(rec, &sa_mpath_comp[SA_MPR_SERVICE_ID_LSB], r->want.service_id);
	sa_put(rec, &sa_mpath_comp[SA_MPR_INDEPENDENCE], r->independence);
	sa_put(rec, &sa_mpath_comp[SA_MPR_SGID_COUNT], r->sgid_count);
	sa_put(rec, &sa_mpath_comp[SA_MPR_DGID_COUNT], r->dgid_count);
	if (n > SA_MPATH_GIDS_MAX)
		n = SA_MPATH_GIDS_MAX; /* the counts still say how many were meant */
	memcpy(rec + SA_MPATH_HDR_SIZE, r->gid, n * 16u);
}

/* ---- rates ---------------------------------------------------------------- */

/* The Rate enum (IBA 15.2.5.16 Rate; 1.3 additions), slowest first. */
struct sa_path_rate_row {
	uint8_t rate;
	uint32_t mbps;
};

static const struct sa_path_rate_row sa_path_rates[] = {
	{ 2, 2500 },	 { 5, 5000 },	  { 3, 10000 },	  { 11, 14000 },  { 6, 20000 },
	{ 15, 25000 },	 { 19, 28000 },	  { 4, 30000 },	  { 7, 40000 },	  { 20, 50000 },
	{ 12, 56000 },	 { 8, 60000 },	  { 9, 80000 },	  { 16, 100000 }, { 13, 112000 },
	{ 10, 120000 },	 { 14, 168000 },  { 17, 200000 }, { 18, 300000 }, { 21, 400000 },
	{ 22, 600000 },
};

#define SA_PATH_N_RATES (sizeof(sa_path_rates) / sizeof(sa_path_rates[0]))

uint32_t sa_path_rate_mbps(uint8_t rate)
{
	for (size_t i = 0; i < SA_PATH_N_RATES; i++)
		if (sa_path_rates[i].rate == rate)
			return sa_path_rates[i].mbps;
	return 0;
}

/* The fastest rate of at most mbps (0 when below every rate). */
static uint8_t sa_path_rate_at_most(uint32_t mbps)
{
	uint8_t best = 0;

	for (size_t i = 0; i < SA_PATH_N_RATES && sa_path_rates[i].mbps <= mbps; i++)
		best = sa_path_rates[i].rate;
	return best;
}

/* Lanes of a LinkWidthActive encoding (IBA 14.2.5.6 PortInfo), 0 unknown. */
static unsigned sa_path_lanes(uint8_t width)
{
	switch (width) {
	case 1: return 1;
	case 16: return 2;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	default: return 0;
	}
}

/* Lane Mb/s of LinkSpeedExtActive, else LinkSpeedActive; 0 unknown. */
static uint32_t sa_path_lane_mbps(uint8_t speed, uint8_t speed_ext)
{
	switch (speed_ext) {
	case 1: return 14000;
	case 2: return 25000;
	case 4: return 50000;
	default: break;
	}
	switch (speed) {
	case 1: return 2500;
	case 2: return 5000;
	case 4: return 10000;
	default: return 0;
	}
}

uint8_t sa_path_rate_from_port(uint8_t width, uint8_t speed, uint8_t speed_ext)
{
	return sa_path_rate_at_most(sa_path_lanes(width) * sa_path_lane_mbps(speed, speed_ext));
}

uint8_t sa_path_rate_from_port_info(const uint8_t *pi_raw, uint8_t width, uint8_t speed)
{
	uint8_t buf[64];

	memcpy(buf, pi_raw, sizeof(buf));
	return sa_path_rate_from_port(width, speed,
				      (uint8_t)mad_get_field(buf, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F));
}

uint8_t sa_path_rate_min(uint8_t a, uint8_t b)
{
	uint32_t ma = sa_path_rate_mbps(a), mb = sa_path_rate_mbps(b);

	if (!ma)
		return b;
	if (!mb)
		return a;
	return ma <= mb ? a : b;
}

/* ---- selectors -------------------------------------------------------------- */

int sa_path_mtu_select(uint8_t path_mtu, uint8_t sel, uint8_t want, uint8_t *out)
{
	if (!sa_path_mtu_valid(path_mtu))
		return -ENOENT;
	switch (sel) {
	case SA_SEL_GREATER:
		*out = path_mtu;
		return path_mtu > want ? 0 : -ENOENT;
	case SA_SEL_LESS:
		if (want <= SA_PATH_MTU_256)
			return -ENOENT;
		*out = want - 1 < path_mtu ? want - 1 : path_mtu;
		return 0;
	case SA_SEL_EXACT:
		*out = want;
		return sa_path_mtu_valid(want) && want <= path_mtu ? 0 : -ENOENT;
	case SA_SEL_BEST:
		*out = path_mtu;
		return 0;
	default:
		return -ENOENT;
	}
}

int sa_path_rate_select(uint8_t path_rate, uint8_t sel, uint8_t want, uint8_t *out)
{
	uint32_t have = sa_path_rate_mbps(path_rate), asked = sa_path_rate_mbps(want);

	if (!have)
		return -ENOENT;
	switch (sel) {
	case SA_SEL_GREATER:
		*out = path_rate;
		return have > asked ? 0 : -ENOENT;
	case SA_SEL_LESS:
		if (!asked)
			return -ENOENT;
		*out = sa_path_rate_at_most(asked - 1 < have ? asked - 1 : have);
		return *out ? 0 : -ENOENT;
	case SA_SEL_EXACT:
		*out = want;
		return asked && asked <= have ? 0 : -ENOENT;
	case SA_SEL_BEST:
		*out = path_rate;
		return 0;
	default:
		return -ENOENT;
	}
}

#define SA_PATH_LIFE_MAX 63

int sa_path_life_select(uint8_t path_life, uint8_t sel, uint8_t want, uint8_t *out)
{
	if (path_life > SA_PATH_LIFE_MAX)
		return -ENOENT;
	switch (sel) {
	case SA_SEL_GREATER:
		*out = want + 1u > path_life ? (uint8_t)(want + 1u) : path_life;
		return want < SA_PATH_LIFE_MAX ? 0 : -ENOENT;
	case SA_SEL_LESS:
		*out = path_life;
		return path_life < want ? 0 : -ENOENT;
	case SA_SEL_EXACT:
		*out = want;
		return want >= path_life && want <= SA_PATH_LIFE_MAX ? 0 : -ENOENT;
	case SA_SEL_BEST:
		*out = path_life;
		return 0;
	default:
		return -ENOENT;
	}
}

#define SA_PATH_LIFE_BASE 18 /* 4.096 us * 2^18 = 1.07 s */

uint8_t sa_path_life_from_hops(unsigned hops)
{
	uint8_t v = SA_PATH_LIFE_BASE;

	for (unsigned long n = 2; n < hops && v < SA_PATH_LIFE_MAX; n *= 2)
		v++;
	return v;
}
