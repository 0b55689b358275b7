/*
 * sa_mcm.h - MCMemberRecord (SA attribute 0x0038, IBA 15.2.5.17) codec.
 *
 * DOC: One multicast group membership as the SA sends and receives it: 52
 * bytes on the wire, 56 as the record stride (AttributeOffset 7; libibmad's
 * IB_SA_MCM_RECSZ counts 53).  sa_mcm_desc lists the components in
 * ComponentMask bit order (IBA Table 220), so a request template is matched
 * with sa_rec_match.  Fields libibmad has (IB_SA_MCM_*) go through its
 * tables; the rest (selectors, PacketLifeTime, HopLimit, Scope) through
 * this file's struct sa_field entries.  Pure: no I/O, no state.
 */
#ifndef NANOSM_MAD_SA_MCM_H
#define NANOSM_MAD_SA_MCM_H

#include <stdint.h>

#include "mad/sa.h"

#define SA_MCM_SIZE 56 /* 52 bytes padded to a multiple of 8 */

/* ComponentMask bits (IBA 15.2.5.17, Table 220). */
enum sa_mcm_comp {
	SA_MCM_COMP_MGID = 0,
	SA_MCM_COMP_PORT_GID = 1,
	SA_MCM_COMP_QKEY = 2,
	SA_MCM_COMP_MLID = 3,
	SA_MCM_COMP_MTU_SEL = 4,
	SA_MCM_COMP_MTU = 5,
	SA_MCM_COMP_TCLASS = 6,
	SA_MCM_COMP_PKEY = 7,
	SA_MCM_COMP_RATE_SEL = 8,
	SA_MCM_COMP_RATE = 9,
	SA_MCM_COMP_LIFE_SEL = 10,
	SA_MCM_COMP_LIFE = 11,
	SA_MCM_COMP_SL = 12,
	SA_MCM_COMP_FLOW_LABEL = 13,
	SA_MCM_COMP_HOP_LIMIT = 14,
	SA_MCM_COMP_SCOPE = 15,
	SA_MCM_COMP_JOIN_STATE = 16,
	SA_MCM_COMP_PROXY_JOIN = 17,
	SA_MCM_N_COMP = 18,
};

#define SA_MCM_BIT(c) (1ULL << (c))

/* JoinState bits (IBA 15.2.5.17). */
#define SA_MCM_JOIN_FULL 0x1
#define SA_MCM_JOIN_NON 0x2
#define SA_MCM_JOIN_SEND_ONLY 0x4 /* SendOnlyNonMember */
#define SA_MCM_JOIN_SEND_FULL 0x8 /* SendOnlyFullMember (IBA 1.3; reserved before) */
#define SA_MCM_JOIN_ALL 0xf	  /* the bits nanosm accepts */

/* Selectors of MTU, Rate and PacketLifeTime (IBA 15.2.5.16). */
struct sa_mcm {
	uint8_t mgid[16];
	uint8_t port_gid[16];
	uint32_t qkey;
	uint16_t mlid;
	uint8_t mtu_sel, mtu; /* 2-bit selector, 6-bit MTU enum */
	uint8_t tclass;
	uint16_t pkey;
	uint8_t rate_sel, rate;
	uint8_t life_sel, life; /* PacketLifeTime */
	uint8_t sl;		/* 4 bits */
	uint32_t flow_label;	/* 20 bits */
	uint8_t hop_limit;
	uint8_t scope;	    /* 4 bits */
	uint8_t join_state; /* 4 bits, SA_MCM_JOIN_* */
	uint8_t proxy_join; /* 1 bit */
};

extern const struct sa_rec_desc sa_mcm_desc;

/* Both read/write exactly SA_MCM_SIZE bytes at rec; encode zeroes the
 * reserved bits and the padding, and masks every value to its width. */
void sa_mcm_encode(const struct sa_mcm *m, uint8_t *rec);
void sa_mcm_decode(const uint8_t *rec, struct sa_mcm *m);

#endif
