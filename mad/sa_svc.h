/*
 * sa_svc.h - codecs of the SA records behind services and event
 * subscriptions: ServiceRecord, InformInfo, InformInfoRecord and Notice.
 *
 * DOC: Each record has a plain struct, an encoder and a decoder between
 * that struct and the big-endian wire bytes, and a component table (struct
 * sa_rec_desc, in ComponentMask bit order) so requests are matched with
 * sa_rec_match.  Fields libibmad knows (IB_SA_SR_*, IB_NOTICE_*) go
 * through its field tables; the rest are described by the tables below,
 * with the IBA section of each layout.  Buffers are fixed-size (the
 * *_SIZE constants): encoders and decoders cannot fail.  Pure: no I/O,
 * no state.
 */
#ifndef NANOSM_MAD_SA_SVC_H
#define NANOSM_MAD_SA_SVC_H

#include <stdint.h>

#include "mad/sa.h"

/* ---- ServiceRecord (attribute 0x31, IBA 15.2.5.14) ----------------------- */

#define SA_SVC_REC_SIZE 176
#define SA_SVC_NAME_LEN 64
#define SA_SVC_LEASE_FOREVER 0xffffffffu /* ServiceLease: never expires */
#define SA_SVC_PKEY_DEFAULT 0xffff	 /* ServiceP_Key when a request omits it */

struct sa_svc_rec {
	uint64_t id;
	uint8_t gid[16];
	uint16_t pkey;
	uint32_t lease; /* seconds, SA_SVC_LEASE_FOREVER = forever */
	uint8_t key[16];
	uint8_t name[SA_SVC_NAME_LEN]; /* NUL padded; need not be terminated */
	uint8_t data8[16];
	uint16_t data16[8];
	uint32_t data32[4];
	uint64_t data64[2];
};

/* ComponentMask bits of a ServiceRecord. */
enum sa_svc_rec_comp {
	SA_SVC_REC_C_ID = 0,
	SA_SVC_REC_C_GID = 1,
	SA_SVC_REC_C_PKEY = 2,
	SA_SVC_REC_C_RESV = 3,
	SA_SVC_REC_C_LEASE = 4,
	SA_SVC_REC_C_KEY = 5,
	SA_SVC_REC_C_NAME = 6,
	SA_SVC_REC_C_DATA8 = 7,   /* 16 components, ServiceData8.1 .. .16 */
	SA_SVC_REC_C_DATA16 = 23, /* 8 components */
	SA_SVC_REC_C_DATA32 = 31, /* 4 components */
	SA_SVC_REC_C_DATA64 = 35, /* 2 components */
	SA_SVC_REC_N_COMP = 37,
};

extern const struct sa_rec_desc sa_svc_rec_desc;

void sa_svc_rec_encode(const struct sa_svc_rec *r, uint8_t rec[SA_SVC_REC_SIZE]);
void sa_svc_rec_decode(const uint8_t rec[SA_SVC_REC_SIZE], struct sa_svc_rec *r);

/* ---- InformInfo (attribute 0x03, IBA 13.4.8.3) --------------------------- */

#define SA_SVC_INFORM_LEN 36  /* bytes the spec defines */
#define SA_SVC_INFORM_SIZE 40 /* padded to 8 bytes in SA MADs */
#define SA_SVC_LID_ALL 0xffff	   /* LIDRangeBegin: every LID */
#define SA_SVC_TYPE_ALL 0xffff	   /* Type: every type */
#define SA_SVC_TRAP_ALL 0xffff	   /* TrapNumber: every trap */
#define SA_SVC_PRODUCER_ALL 0xffffff /* ProducerType: every producer */

struct sa_svc_inform {
	uint8_t gid[16]; /* zero: the LID range selects the ports */
	uint16_t lid_begin, lid_end;
	uint8_t is_generic, subscribe;
	uint16_t type;
	uint16_t trap_num; /* DeviceID when !is_generic */
	uint32_t qpn;	   /* 24 bits */
	uint8_t resp_time; /* RespTimeValue, 5 bits */
	uint32_t producer; /* ProducerType, VendorID when !is_generic; 24 bits */
};

/* ComponentMask bits of an InformInfo (the same order as the spec's
 * layout; used as the InformInfoRecord's bits 3.. minus 3). */
enum sa_svc_inform_comp {
	SA_SVC_INFORM_C_GID = 0,
	SA_SVC_INFORM_C_LID_BEGIN = 1,
	SA_SVC_INFORM_C_LID_END = 2,
	SA_SVC_INFORM_C_RESV1 = 3,
	SA_SVC_INFORM_C_IS_GENERIC = 4,
	SA_SVC_INFORM_C_SUBSCRIBE = 5,
	SA_SVC_INFORM_C_TYPE = 6,
	SA_SVC_INFORM_C_TRAP = 7,
	SA_SVC_INFORM_C_QPN = 8,
	SA_SVC_INFORM_C_RESV2 = 9,
	SA_SVC_INFORM_C_RESP_TIME = 10,
	SA_SVC_INFORM_C_RESV3 = 11,
	SA_SVC_INFORM_C_PRODUCER = 12,
	SA_SVC_INFORM_N_COMP = 13,
};

extern const struct sa_rec_desc sa_svc_inform_desc;

/* rec must hold SA_SVC_INFORM_LEN bytes (SA_SVC_INFORM_SIZE in an SA MAD). */
void sa_svc_inform_encode(const struct sa_svc_inform *ii, uint8_t *rec);
void sa_svc_inform_decode(const uint8_t *rec, struct sa_svc_inform *ii);

/* ---- InformInfoRecord (attribute 0xF3, IBA 15.2.5) -------------------- */

#define SA_SVC_IIR_SIZE 64
#define SA_SVC_IIR_INFORM_OFFSET 24 /* InformInfo starts at byte 24 */

struct sa_svc_iir {
	uint8_t subscriber_gid[16];
	uint16_t enum_id; /* Enum: tells one subscriber's subscriptions apart */
	struct sa_svc_inform ii;
};

/* ComponentMask bits: SubscriberGID 0, Enum 1, Reserved 2, then the
 * InformInfo's components from bit 3 on. */
enum sa_svc_iir_comp {
	SA_SVC_IIR_C_SUBSCRIBER_GID = 0,
	SA_SVC_IIR_C_ENUM = 1,
	SA_SVC_IIR_C_RESV0 = 2,
	SA_SVC_IIR_C_INFORM = 3, /* + enum sa_svc_inform_comp */
	SA_SVC_IIR_N_COMP = 3 + SA_SVC_INFORM_N_COMP,
};

extern const struct sa_rec_desc sa_svc_iir_desc;

void sa_svc_iir_encode(const struct sa_svc_iir *r, uint8_t rec[SA_SVC_IIR_SIZE]);
void sa_svc_iir_decode(const uint8_t rec[SA_SVC_IIR_SIZE], struct sa_svc_iir *r);

/* ---- Notice (attribute 0x02, IBA 13.4.8.2) ------------------------------- */

#define SA_SVC_NOTICE_SIZE 80
#define SA_SVC_NOTICE_DETAILS_LEN 54

/* Generic SM traps whose DataDetails carry one GID (the Subnet Management
 * traps of IBA chapter 14): 6 reserved bytes, then the GID. */
enum sa_svc_trap {
	SA_SVC_TRAP_GID_IN = 64,     /* GID now in service */
	SA_SVC_TRAP_GID_OUT = 65,    /* GID out of service */
	SA_SVC_TRAP_MCG_CREATE = 66, /* multicast group created */
	SA_SVC_TRAP_MCG_DELETE = 67, /* multicast group deleted */
};

#define SA_SVC_NOTICE_TYPE_SM 3		 /* Type: Subnet Management */
#define SA_SVC_PRODUCER_CLASS_MGR 4 /* ProducerType: a class manager (the SM) */

struct sa_svc_notice {
	uint8_t is_generic;
	uint8_t type;	   /* 7 bits */
	uint32_t producer; /* ProducerType or VendorID, 24 bits */
	uint16_t trap_num; /* DeviceID when !is_generic */
	uint16_t issuer_lid;
	uint8_t toggle;	   /* 1 bit */
	uint16_t count;	   /* 15 bits */
	uint8_t details[SA_SVC_NOTICE_DETAILS_LEN];
	uint8_t issuer_gid[16];
};

enum sa_svc_notice_comp {
	SA_SVC_NOTICE_C_IS_GENERIC = 0,
	SA_SVC_NOTICE_C_TYPE = 1,
	SA_SVC_NOTICE_C_PRODUCER = 2,
	SA_SVC_NOTICE_C_TRAP = 3,
	SA_SVC_NOTICE_C_ISSUER_LID = 4,
	SA_SVC_NOTICE_C_TOGGLE = 5,
	SA_SVC_NOTICE_C_COUNT = 6,
	SA_SVC_NOTICE_C_DETAILS = 7,
	SA_SVC_NOTICE_C_ISSUER_GID = 8,
	SA_SVC_NOTICE_N_COMP = 9,
};

extern const struct sa_rec_desc sa_svc_notice_desc;
/* The GID of traps 64..67 inside a Notice (record bits 128..255). */
extern const struct sa_field sa_svc_notice_trap_gid;

void sa_svc_notice_encode(const struct sa_svc_notice *n, uint8_t rec[SA_SVC_NOTICE_SIZE]);
void sa_svc_notice_decode(const uint8_t rec[SA_SVC_NOTICE_SIZE], struct sa_svc_notice *n);
/* The GID in the DataDetails of traps 64..67: -EINVAL for other notices. */
int sa_svc_notice_gid(const struct sa_svc_notice *n, uint8_t gid[16]);
void sa_svc_notice_set_gid(struct sa_svc_notice *n, const uint8_t gid[16]);

#endif
