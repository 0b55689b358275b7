/*
 * sa_mcm.c - MCMemberRecord codec and component table (IBA 15.2.5.17).
 * Owns the record's wire layout only; group state lives in sm/sa/mcast.c.
 */
#include <infiniband/mad.h>
#include <stddef.h>
#include <string.h>

#include "mad/sa_mcm.h"

/* Components in ComponentMask order: bit offset from the MSB of byte 0
 * and width, as IBA 15.2.5.17 Table 220 draws them. */
static const struct sa_field sa_mcm_comp[SA_MCM_N_COMP] = {
	[SA_MCM_COMP_MGID] = {0, 128},	      /* bytes 0..15 */
	[SA_MCM_COMP_PORT_GID] = {128, 128},  /* bytes 16..31 */
	[SA_MCM_COMP_QKEY] = {256, 32},	      /* bytes 32..35 */
	[SA_MCM_COMP_MLID] = {288, 16},	      /* bytes 36..37 */
	[SA_MCM_COMP_MTU_SEL] = {304, 2},     /* byte 38, bits 7..6 */
	[SA_MCM_COMP_MTU] = {306, 6},	      /* byte 38, bits 5..0 */
	[SA_MCM_COMP_TCLASS] = {312, 8},      /* byte 39 */
	[SA_MCM_COMP_PKEY] = {320, 16},	      /* bytes 40..41 */
	[SA_MCM_COMP_RATE_SEL] = {336, 2},    /* byte 42, bits 7..6 */
	[SA_MCM_COMP_RATE] = {338, 6},	      /* byte 42, bits 5..0 */
	[SA_MCM_COMP_LIFE_SEL] = {344, 2},    /* byte 43, bits 7..6 */
	[SA_MCM_COMP_LIFE] = {346, 6},	      /* byte 43, bits 5..0 */
	[SA_MCM_COMP_SL] = {352, 4},	      /* byte 44, bits 7..4 */
	[SA_MCM_COMP_FLOW_LABEL] = {356, 20}, /* bytes 44..46 */
	[SA_MCM_COMP_HOP_LIMIT] = {376, 8},   /* byte 47 */
	[SA_MCM_COMP_SCOPE] = {384, 4},	      /* byte 48, bits 7..4 */
	[SA_MCM_COMP_JOIN_STATE] = {388, 4},  /* byte 48, bits 3..0 */
	[SA_MCM_COMP_PROXY_JOIN] = {392, 1},  /* byte 49, bit 7; 23 bits reserved */
};

const struct sa_rec_desc sa_mcm_desc = {
	.attr_id = SA_ATTR_MCMEMBER_RECORD,
	.size = SA_MCM_SIZE,
	.name = "MCMemberRecord",
	.comp = sa_mcm_comp,
	.n_comp = SA_MCM_N_COMP,
};

/* Fields libibmad's table has: value in struct sa_mcm and width. */
struct sa_mcm_ibmad {
	enum MAD_FIELDS id;
	uint32_t mask;
	size_t off; /* offsetof the member in struct sa_mcm */
	uint8_t size; /* its size in bytes: 1, 2 or 4 */
};

#define SA_MCM_IB(id, mask, member)                                                            \
	{id, mask, offsetof(struct sa_mcm, member), sizeof(((struct sa_mcm *)0)->member)}

static const struct sa_mcm_ibmad sa_mcm_ib[] = {
	SA_MCM_IB(IB_SA_MCM_QKEY_F, 0xffffffffu, qkey),
	SA_MCM_IB(IB_SA_MCM_MLID_F, 0xffffu, mlid),
	SA_MCM_IB(IB_SA_MCM_MTU_F, 0x3fu, mtu),
	SA_MCM_IB(IB_SA_MCM_TCLASS_F, 0xffu, tclass),
	SA_MCM_IB(IB_SA_MCM_PKEY_F, 0xffffu, pkey),
	SA_MCM_IB(IB_SA_MCM_RATE_F, 0x3fu, rate),
	SA_MCM_IB(IB_SA_MCM_SL_F, 0xfu, sl),
	SA_MCM_IB(IB_SA_MCM_FLOW_LABEL_F, 0xfffffu, flow_label),
	SA_MCM_IB(IB_SA_MCM_JOIN_STATE_F, 0xfu, join_state),
	SA_MCM_IB(IB_SA_MCM_PROXY_JOIN_F, 0x1u, proxy_join),
};

/* Fields only this file's table describes. */
struct sa_mcm_own {
	enum sa_mcm_comp comp;
	size_t off; /* a uint8_t member of struct sa_mcm */
};

static const struct sa_mcm_own sa_mcm_own[] = {
	{SA_MCM_COMP_MTU_SEL, offsetof(struct sa_mcm, mtu_sel)},
	{SA_MCM_COMP_RATE_SEL, offsetof(struct sa_mcm, rate_sel)},
	{SA_MCM_COMP_LIFE_SEL, offsetof(struct sa_mcm, life_sel)},
	{SA_MCM_COMP_LIFE, offsetof(struct sa_mcm, life)},
	{SA_MCM_COMP_HOP_LIMIT, offsetof(struct sa_mcm, hop_limit)},
	{SA_MCM_COMP_SCOPE, offsetof(struct sa_mcm, scope)},
};

#define SA_MCM_N(a) (sizeof(a) / sizeof((a)[0]))

static uint32_t sa_mcm_load(const struct sa_mcm *m, const struct sa_mcm_ibmad *f)
{
	const uint8_t *p = (const uint8_t *)m + f->off;
	uint32_t v32;
	uint16_t v16;

	if (f->size == 4) {
		memcpy(&v32, p, 4);
		return v32;
	}
	if (f->size == 2) {
		memcpy(&v16, p, 2);
		return v16;
	}
	return *p;
}

static void sa_mcm_store(struct sa_mcm *m, const struct sa_mcm_ibmad *f, uint32_t v)
{
	uint8_t *p = (uint8_t *)m + f->off;
	uint16_t v16 = (uint16_t)v;

	if (f->size == 4)
		memcpy(p, &v, 4);
	else if (f->size == 2)
		memcpy(p, &v16, 2);
	else
		*p = (uint8_t)v;
}

void sa_mcm_encode(const struct sa_mcm *m, uint8_t *rec)
{
	memset(rec, 0, SA_MCM_SIZE);
	mad_set_array(rec, 0, IB_SA_MCM_MGID_F, (void *)m->mgid);
	mad_set_array(rec, 0, IB_SA_MCM_PORTGID_F, (void *)m->port_gid);
	for (size_t i = 0; i < SA_MCM_N(sa_mcm_ib); i++)
		mad_set_field(rec, 0, sa_mcm_ib[i].id, sa_mcm_load(m, &sa_mcm_ib[i]) & sa_mcm_ib[i].mask);
	for (size_t i = 0; i < SA_MCM_N(sa_mcm_own); i++) {
		const struct sa_field *f = &sa_mcm_comp[sa_mcm_own[i].comp];
		uint8_t v = *((const uint8_t *)m + sa_mcm_own[i].off);

		sa_put(rec, f, v & ((1u << f->bits) - 1u));
	}
}

void sa_mcm_decode(const uint8_t *rec, struct sa_mcm *m)
{
	memset(m, 0, sizeof(*m));
	mad_get_array((void *)rec, 0, IB_SA_MCM_MGID_F, m->mgid);
	mad_get_array((void *)rec, 0, IB_SA_MCM_PORTGID_F, m->port_gid);
	for (size_t i = 0; i < SA_MCM_N(sa_mcm_ib); i++)
		sa_mcm_store(m, &sa_mcm_ib[i], mad_get_field((void *)rec, 0, sa_mcm_ib[i].id));
	for (size_t i = 0; i < SA_MCM_N(sa_mcm_own); i++)
		*((uint8_t *)m + sa_mcm_own[i].off) =
			(uint8_t)sa_get(rec, &sa_mcm_comp[sa_mcm_own[i].comp]);
}
