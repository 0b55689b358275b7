/*
 * sa_path.h - the PathRecord (SA attribute 0x0035) wire format, IB rates
 * and MTUs, and the selector rules of PathRecord queries.
 *
 * DOC: A PathRecord is 64 bytes (IBA 15.2.5.16).  sa_path_desc lists its
 * components in ComponentMask order, so bit i of a request's mask names
 * sa_path_desc.comp[i] (enum sa_path_comp); ServiceID takes two bits (its
 * upper and lower 32 bits), as the spec's mask does.  sa_path_encode and
 * sa_path_decode convert between the wire bytes and struct sa_path_rec,
 * through libibmad's IB_SA_PR_* fields where it has them and the table for
 * the rest.
 *
 * Rates are the PathRecord/MCMemberRecord Rate enum (2 = 2.5 Gb/s, 3 = 10,
 * ... not monotonic), so they are compared through sa_path_rate_mbps.
 * MTUs are the PortInfo enum (1 = 256 .. 5 = 4096).  A selector (2 bits
 * before MTU, Rate and PacketLifeTime) picks a value from what the path
 * can carry: sa_path_*_select apply it.
 *
 * A MultiPathRecord (attribute 0x003A, IBA 15.2.5.20) is a GetMulti
 * template only: 24 bytes of path constraints (the PathRecord's, without
 * the ends; NumbPath, SGIDCount, DGIDCount) followed by SGIDCount source
 * GIDs then DGIDCount destination GIDs.  The answer is PathRecords.
 * sa_mpath_decode turns the template into a PathRecord template and
 * PathRecord ComponentMask, so the PathRecord code answers each pair.
 * Only SA_MPATH_GIDS_MAX GIDs fit in the one MAD nanosm receives (the
 * rest of a longer RMPP request never reaches the SA).
 * Pure: no I/O, no state.
 */
#ifndef NANOSM_MAD_SA_PATH_H
#define NANOSM_MAD_SA_PATH_H

#include <stdint.h>

#include "mad/sa.h"

#define SA_PATH_REC_SIZE 64

/* ComponentMask bits of a PathRecord (IBA 15.2.5.16, record table). */
enum sa_path_comp {
	SA_PR_SERVICE_ID_HI = 0, /* ServiceID bits 63..32 */
	SA_PR_SERVICE_ID_LO = 1, /* ServiceID bits 31..0 */
	SA_PR_DGID = 2,
	SA_PR_SGID = 3,
	SA_PR_DLID = 4,
	SA_PR_SLID = 5,
	SA_PR_RAW_TRAFFIC = 6,
	SA_PR_RESERVED1 = 7,
	SA_PR_FLOW_LABEL = 8,
	SA_PR_HOP_LIMIT = 9,
	SA_PR_TCLASS = 10,
	SA_PR_REVERSIBLE = 11,
	SA_PR_NUMB_PATH = 12,
	SA_PR_PKEY = 13,
	SA_PR_QOS_CLASS = 14,
	SA_PR_SL = 15,
	SA_PR_MTU_SELECTOR = 16,
	SA_PR_MTU = 17,
	SA_PR_RATE_SELECTOR = 18,
	SA_PR_RATE = 19,
	SA_PR_LIFE_SELECTOR = 20,
	SA_PR_LIFE = 21,
	SA_PR_PREFERENCE = 22,
	SA_PR_N_COMP = 23,
};

#define SA_PR_CM(c) (1ull << (c))

extern const struct sa_rec_desc sa_path_desc;

struct sa_path_rec {
	uint64_t service_id;
	uint8_t dgid[16], sgid[16];
	uint16_t dlid, slid;
	uint8_t raw_traffic;
	uint32_t flow_label; /* 20 bits */
	uint8_t hop_limit, tclass;
	uint8_t reversible; /* 1 bit */
	uint8_t numb_path;  /* 7 bits */
	uint16_t pkey;
	uint16_t qos_class; /* 12 bits */
	uint8_t sl;	    /* 4 bits */
	uint8_t mtu_sel, mtu;	/* 2 + 6 bits */
	uint8_t rate_sel, rate; /* 2 + 6 bits */
	uint8_t life_sel, life; /* 2 + 6 bits: PacketLifeTime */
	uint8_t preference;
};

/* rec: SA_PATH_REC_SIZE bytes; encode zeroes the reserved bits. */
void sa_path_encode(const struct sa_path_rec *r, uint8_t *rec);
void sa_path_decode(const uint8_t *rec, struct sa_path_rec *r);

/* ---- MultiPathRecord (IBA 15.2.5.20) ---- */
#define SA_MPATH_HDR_SIZE 24 /* bytes before the GID list */
#define SA_MPATH_GIDS_MAX ((SA_DATA_SIZE - SA_MPATH_HDR_SIZE) / 16) /* 11 */

/* ComponentMask bits of a MultiPathRecord (IBA 15.2.5.20, record table;
 * ServiceID and IndependenceSelector are IBA 1.2.1/1.3 additions). */
enum sa_mpath_comp {
	SA_MPR_RAW_TRAFFIC = 0,
	SA_MPR_RESERVED1 = 1,
	SA_MPR_FLOW_LABEL = 2,
	SA_MPR_HOP_LIMIT = 3,
	SA_MPR_TCLASS = 4,
	SA_MPR_REVERSIBLE = 5,
	SA_MPR_NUMB_PATH = 6,
	SA_MPR_PKEY = 7,
	SA_MPR_QOS_CLASS = 8,
	SA_MPR_SL = 9,
	SA_MPR_MTU_SELECTOR = 10,
	SA_MPR_MTU = 11,
	SA_MPR_RATE_SELECTOR = 12,
	SA_MPR_RATE = 13,
	SA_MPR_LIFE_SELECTOR = 14,
	SA_MPR_LIFE = 15,
	SA_MPR_SERVICE_ID_MSB = 16, /* ServiceID bits 63..56 */
	SA_MPR_INDEPENDENCE = 17,   /* IndependenceSelector */
	SA_MPR_RESERVED2 = 18,
	SA_MPR_SGID_COUNT = 19,
	SA_MPR_DGID_COUNT = 20,
	SA_MPR_SERVICE_ID_LSB = 21, /* ServiceID bits 55..0 */
	SA_MPR_N_COMP = 22,
};

#define SA_MPR_CM(c) (1ull << (c))

extern const struct sa_rec_desc sa_mpath_desc;

/* A decoded MultiPathRecord template. */
struct sa_mpath_req {
	struct sa_path_rec want; /* constraints as a PathRecord (no ends) */
	uint64_t pr_mask;	 /* the same, as PathRecord ComponentMask bits */
	uint8_t numb_path;	 /* NumbPath when selected, else 0 */
	uint8_t independence;	 /* IndependenceSelector (2 bits) */
	uint8_t sgid_count, dgid_count;
	uint8_t gid[SA_MPATH_GIDS_MAX][16]; /* SGIDs, then DGIDs */
};

/* Decode the template rec (SA_DATA_SIZE bytes: one MAD's data) under
 * comp_mask (MultiPathRecord bits).  0; -EINVAL when SGIDCount or
 * DGIDCount is not selected or is 0; -E2BIG when the GIDs do not fit in
 * SA_DATA_SIZE. */
int sa_mpath_decode(const uint8_t *rec, uint64_t comp_mask, struct sa_mpath_req *r);
/* Encode a template (for clients and tests): the inverse of decode for
 * the counts, GIDs and every constraint set in r->want. */
void sa_mpath_encode(const struct sa_mpath_req *r, uint8_t *rec);

/* ---- MTU (PortInfo enum) ---- */
#define SA_PATH_MTU_256 1
#define SA_PATH_MTU_4096 5
static inline int sa_path_mtu_valid(uint8_t mtu)
{
	return mtu >= SA_PATH_MTU_256 && mtu <= SA_PATH_MTU_4096;
}

/* ---- rate ---- */
/* Mb/s of a Rate enum value (2 -> 2500), 0 for an unknown value. */
uint32_t sa_path_rate_mbps(uint8_t rate);
/* Rate of a port from PortInfo LinkWidthActive (1 = 1x, 16 = 2x, 2 = 4x,
 * 4 = 8x, 8 = 12x), LinkSpeedActive (1 SDR, 2 DDR, 4 QDR) and
 * LinkSpeedExtActive (1 FDR, 2 EDR, 4 HDR; 0 = use LinkSpeedActive): the
 * enum of width x lane speed, or the largest below it; 0 when unknown. */
uint8_t sa_path_rate_from_port(uint8_t width, uint8_t speed, uint8_t speed_ext);
/* The same from a raw 64-byte PortInfo (LinkSpeedExtActive read there). */
uint8_t sa_path_rate_from_port_info(const uint8_t *pi_raw, uint8_t width, uint8_t speed);
/* The slower of two rates (an unknown one, 0, loses to a known one). */
uint8_t sa_path_rate_min(uint8_t a, uint8_t b);

/* ---- selectors ----
 * A path carries any MTU up to its own, any rate up to its own, and any
 * PacketLifeTime from its own up.  Each function picks the best such value
 * that satisfies (sel, want) into *out: 0, or -ENOENT when none does (then
 * the path gives no record). */
int sa_path_mtu_select(uint8_t path_mtu, uint8_t sel, uint8_t want, uint8_t *out);
int sa_path_rate_select(uint8_t path_rate, uint8_t sel, uint8_t want, uint8_t *out);
int sa_path_life_select(uint8_t path_life, uint8_t sel, uint8_t want, uint8_t *out);

/* PacketLifeTime (4.096 us * 2^value) of a path of hops links: 18 (about
 * 1.07 s, OpenSM's default) up to two links (CA - switch - CA), then one
 * more for every doubling of the links (3-4 links: 19, 5-8: 20, ...),
 * capped at 63. */
uint8_t sa_path_life_from_hops(unsigned hops);

#endif
