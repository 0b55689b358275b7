/*
 * sa.h - Subnet Administration (class 0x03) MAD header and the
 * component-mask machinery shared by every SA record codec.
 *
 * DOC: An SA MAD is the 24-byte common MAD header, the 12-byte RMPP header,
 * the SA header (SM_Key, AttributeOffset, ComponentMask) and up to 200
 * bytes of record data in one 256-byte MAD (IBA 15.2.1).  Longer answers
 * (GetTableResp) are one buffer of 56 header bytes plus n records; the
 * transport's RMPP (the kernel on hardware) cuts it into segments.
 *
 * Records are handled as raw big-endian bytes.  Each record type has a
 * table of its components (struct sa_field: bit offset and width, in the
 * spec's order), so ComponentMask bit i names comp[i]: matching a request
 * template against a candidate record is one generic loop (sa_rec_match),
 * and field access goes through sa_get/sa_put on the same table entries.
 * Codecs use libibmad's field tables where it has them.  Pure: no I/O.
 */
#ifndef NANOSM_MAD_SA_H
#define NANOSM_MAD_SA_H

#include <stddef.h>
#include <stdint.h>

#define SA_CLASS 0x03
#define SA_CLASS_VERSION 2
#define SA_MAD_SIZE 256
#define SA_HDR_SIZE 56    /* common + RMPP + SA headers */
#define SA_DATA_SIZE 200  /* record bytes in one MAD */
#define SA_QKEY 0x80010000u
#define SA_RECORD_MAX 256 /* no record type is larger (bytes) */

enum sa_method {
	SA_METHOD_GET = 0x01,
	SA_METHOD_SET = 0x02,
	SA_METHOD_REPORT = 0x06,
	SA_METHOD_GET_TABLE = 0x12,
	SA_METHOD_GET_TRACE_TABLE = 0x13,
	SA_METHOD_GET_MULTI = 0x14,
	SA_METHOD_DELETE = 0x15,
	SA_METHOD_RESP = 0x80, /* bit set in every response method */
	SA_METHOD_GET_RESP = 0x81,
	SA_METHOD_REPORT_RESP = 0x86,
	SA_METHOD_GET_TABLE_RESP = 0x92,
	SA_METHOD_DELETE_RESP = 0x95,
};

enum sa_attr {
	SA_ATTR_CLASS_PORT_INFO = 0x0001,
	SA_ATTR_NOTICE = 0x0002,
	SA_ATTR_INFORM_INFO = 0x0003,
	SA_ATTR_NODE_RECORD = 0x0011,
	SA_ATTR_PORTINFO_RECORD = 0x0012,
	SA_ATTR_SWITCHINFO_RECORD = 0x0014,
	SA_ATTR_LFT_RECORD = 0x0015,
	SA_ATTR_MFT_RECORD = 0x0017,
	SA_ATTR_SMINFO_RECORD = 0x0018,
	SA_ATTR_LINK_RECORD = 0x0020,
	SA_ATTR_GUIDINFO_RECORD = 0x0030,
	SA_ATTR_SERVICE_RECORD = 0x0031,
	SA_ATTR_PKEY_TABLE_RECORD = 0x0033,
	SA_ATTR_PATH_RECORD = 0x0035,
	SA_ATTR_MCMEMBER_RECORD = 0x0038,
	SA_ATTR_MULTIPATH_RECORD = 0x003a,
	SA_ATTR_INFORM_INFO_RECORD = 0x00f3,
};

/* MAD status (IBA 13.4.7.2; SA class-specific codes 15.2.1.2 in bits 8..14). */
enum sa_status {
	SA_STATUS_OK = 0x0000,
	SA_STATUS_BAD_VERSION = 0x0004,	    /* class version unsupported */
	SA_STATUS_BAD_METHOD = 0x0008,	    /* method unsupported */
	SA_STATUS_BAD_METHOD_ATTR = 0x000c, /* method/attribute combination */
	SA_STATUS_INVALID_FIELD = 0x001c,   /* bad attribute value / modifier */
	SA_STATUS_NO_RESOURCES = 0x0100,
	SA_STATUS_REQ_INVALID = 0x0200,
	SA_STATUS_NO_RECORDS = 0x0300,
	SA_STATUS_TOO_MANY_RECORDS = 0x0400,
	SA_STATUS_INVALID_GID = 0x0500,
	SA_STATUS_INSUF_COMPS = 0x0600, /* component mask lacks what is needed */
	SA_STATUS_DENIED = 0x0700,
};

/* Selectors of MTU, Rate and PacketLifeTime in PathRecord and
 * MCMemberRecord (IBA 15.2.5.16). */
enum sa_sel {
	SA_SEL_GREATER = 0,
	SA_SEL_LESS = 1,
	SA_SEL_EXACT = 2,
	SA_SEL_BEST = 3, /* largest MTU/rate, smallest lifetime */
};

/* RMPP header (IBA 13.6.2). */
#define SA_RMPP_VERSION 1
#define SA_RMPP_TYPE_DATA 1
#define SA_RMPP_FLAG_ACTIVE 0x1
#define SA_RMPP_FLAG_FIRST 0x2
#define SA_RMPP_FLAG_LAST 0x4

/* One SA MAD, decoded.  data holds the first (or only) segment's record
 * bytes; a request carries one record template there. */
struct sa_mad {
	uint8_t base_version, mgmt_class, class_version, method;
	uint16_t status;
	uint64_t tid;
	uint16_t attr_id;
	uint32_t attr_mod;
	uint8_t rmpp_version, rmpp_type, rmpp_resp_time, rmpp_flags, rmpp_status;
	uint32_t rmpp_d1, rmpp_d2; /* SegmentNumber and PayloadLength on DATA */
	uint64_t sm_key;
	uint16_t attr_offset; /* record stride in 8-byte words */
	uint64_t comp_mask;
	uint8_t data[SA_DATA_SIZE];
};

/* Decode needs at least SA_HDR_SIZE bytes (the data is zero-padded when
 * the buffer is shorter than SA_MAD_SIZE) and rejects base version != 1 or
 * class != 0x03: 0 or -EINVAL.  The class version is left to the caller
 * (a bad one is answered with SA_STATUS_BAD_VERSION). */
int sa_decode(const uint8_t *buf, size_t len, struct sa_mad *m);
/* Encode hdr (its data[] is ignored) followed by n records of rec_size
 * bytes each (rec_size a multiple of 8; AttributeOffset is set from it) into
 * buf.  Returns the bytes needed: SA_HDR_SIZE + n * rec_size, and at least
 * SA_MAD_SIZE unless hdr is an RMPP transfer (rmpp_flags ACTIVE: its
 * length is its payload, PayloadLength is set); writes nothing past len,
 * and writes the whole MAD only when len is large enough. */
size_t sa_encode(const struct sa_mad *hdr, const uint8_t *recs, size_t n, size_t rec_size,
		 uint8_t *buf, size_t len);
/* Turn a request header into its response header: method | 0x80 (GetTable
 * -> GetTableResp, ...; Set -> GetResp), status, TID/attribute kept, RMPP cleared except
 * for GetTableResp/GetMultiResp (version 1, DATA, ACTIVE|FIRST|LAST). */
void sa_make_response(const struct sa_mad *req, uint16_t status, struct sa_mad *resp);

/* ---- components -------------------------------------------------------- */

/* One component of a record: bit offset from the record's first byte (bit
 * 0 = the most significant bit of byte 0, as the spec's figures count) and
 * width.  Widths up to 64 bits are numbers (sa_get/sa_put); wider ones
 * (GIDs, NodeDescription, ServiceName, ...) must be byte-aligned and are
 * compared as bytes.  bits == 0 marks a component a request may not
 * select (a reserved field: ignored in matching). */
struct sa_field {
	uint16_t bit;
	uint16_t bits;
};

struct sa_rec_desc {
	uint16_t attr_id;
	uint16_t size;	 /* record bytes on the wire, padded to a multiple of 8 */
	const char *name; /* "NodeRecord" */
	const struct sa_field *comp;
	uint8_t n_comp; /* <= 64 */
};

uint64_t sa_get(const uint8_t *rec, const struct sa_field *f);
void sa_put(uint8_t *rec, const struct sa_field *f, uint64_t v);
/* 1 when every component selected by comp_mask is equal in want and rec
 * (bits beyond n_comp and bits == 0 components are ignored). */
int sa_rec_match(const struct sa_rec_desc *d, uint64_t comp_mask, const uint8_t *want,
		 const uint8_t *rec);
/* Bits of comp_mask that name no component of d (to refuse them). */
uint64_t sa_comp_unknown(const struct sa_rec_desc *d, uint64_t comp_mask);

const char *sa_method_name(uint8_t method);
const char *sa_attr_name(uint16_t attr_id);
const char *sa_status_name(uint16_t status);

#endif
