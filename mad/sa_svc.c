/*
 * sa_svc.c - wire codecs and component tables of ServiceRecord,
 * InformInfo, InformInfoRecord and Notice.  Owns only byte layouts: no
 * registrations, no subscriptions, no sending (that is sm/sa/services.c).
 */
#include <errno.h>
#include <string.h>

#include <infiniband/mad.h>

#include "mad/sa_svc.h"

/* Wide components (GIDs, names) are byte-aligned: copy them as bytes. */
static void sa_svc_bytes_get(const uint8_t *rec, const struct sa_field *f, uint8_t *dst)
{
	memcpy(dst, rec + f->bit / 8, f->bits / 8);
}

static void sa_svc_bytes_put(uint8_t *rec, const struct sa_field *f, const uint8_t *src)
{
	memcpy(rec + f->bit / 8, src, f->bits / 8);
}

/* libibmad's getters take a non-const buffer but only read it. */
static void *sa_svc_ro(const uint8_t *rec)
{
	return (void *)rec;
}

/* ---- ServiceRecord: IBA 15.2.5.14 (176 bytes) ----------------- */

#define SA_SVC_D8(i) { 896 + 8 * (i), 8 }
#define SA_SVC_D16(i) { 1024 + 16 * (i), 16 }
#define SA_SVC_D32(i) { 1152 + 32 * (i), 32 }
#define SA_SVC_D64(i) { 1280 + 64 * (i), 64 }

static const struct sa_field sa_svc_rec_comp[SA_SVC_REC_N_COMP] = {
	{ 0, 64 },    /* ServiceID */
	{ 64, 128 },  /* ServiceGID */
	{ 192, 16 },  /* ServiceP_Key */
	{ 208, 0 },   /* Reserved (16 bits) */
	{ 224, 32 },  /* ServiceLease */
	{ 256, 128 }, /* ServiceKey */
	{ 384, 512 }, /* ServiceName, 64 bytes */
	SA_SVC_D8(0),  SA_SVC_D8(1),  SA_SVC_D8(2),  SA_SVC_D8(3),  SA_SVC_D8(4),
	SA_SVC_D8(5),  SA_SVC_D8(6),  SA_SVC_D8(7),  SA_SVC_D8(8),  SA_SVC_D8(9),
	SA_SVC_D8(10), SA_SVC_D8(11), SA_SVC_D8(12), SA_SVC_D8(13), SA_SVC_D8(14),
	SA_SVC_D8(15), SA_SVC_D16(0), SA_SVC_D16(1), SA_SVC_D16(2), SA_SVC_D16(3),
	SA_SVC_D16(4), SA_SVC_D16(5), SA_SVC_D16(6), SA_SVC_D16(7), SA_SVC_D32(0),
	SA_SVC_D32(1), SA_SVC_D32(2), SA_SVC_D32(3), SA_SVC_D64(0), SA_SVC_D64(1),
};

const struct sa_rec_desc sa_svc_rec_desc = {
	.attr_id = SA_ATTR_SERVICE_RECORD,
	.size = SA_SVC_REC_SIZE,
	.name = "ServiceRecord",
	.comp = sa_svc_rec_comp,
	.n_comp = SA_SVC_REC_N_COMP,
};

static void sa_svc_rec_data_put(const struct sa_svc_rec *r, uint8_t *rec)
{
	const struct sa_field *c = sa_svc_rec_comp;

	for (int i = 0; i < 16; i++)
		sa_put(rec, &c[SA_SVC_REC_C_DATA8 + i], r->data8[i]);
	for (int i = 0; i < 8; i++)
		sa_put(rec, &c[SA_SVC_REC_C_DATA16 + i], r->data16[i]);
	for (int i = 0; i < 4; i++)
		sa_put(rec, &c[SA_SVC_REC_C_DATA32 + i], r->data32[i]);
	for (int i = 0; i < 2; i++)
		sa_put(rec, &c[SA_SVC_REC_C_DATA64 + i], r->data64[i]);
}

static void sa_svc_rec_data_get(const uint8_t *rec, struct sa_svc_rec *r)
{
	const struct sa_field *c = sa_svc_rec_comp;

	for (int i = 0; i < 16; i++)
		r->data8[i] = (uint8_t)sa_get(rec, &c[SA_SVC_REC_C_DATA8 + i]);
	for (int i = 0; i < 8; i++)
		r->data16[i] = (uint16_t)sa_get(rec, &c[SA_SVC_REC_C_DATA16 + i]);
	for (int i = 0; i < 4; i++)
		r->data32[i] = (uint32_t)sa_get(rec, &c[SA_SVC_REC_C_DATA32 + i]);
	for (int i = 0; i < 2; i++)
		r->data64[i] = sa_get(rec, &c[SA_SVC_REC_C_DATA64 + i]);
}

void sa_svc_rec_encode(const struct sa_svc_rec *r, uint8_t rec[SA_SVC_REC_SIZE])
{
	memset(rec, 0, SA_SVC_REC_SIZE);
	mad_set_field64(rec, 0, IB_SA_SR_ID_F, r->id);
	mad_set_array(rec, 0, IB_SA_SR_GID_F, sa_svc_ro(r->gid));
	mad_set_field(rec, 0, IB_SA_SR_PKEY_F, r->pkey);
	mad_set_field(rec, 0, IB_SA_SR_LEASE_F, r->lease);
	mad_set_array(rec, 0, IB_SA_SR_KEY_F, sa_svc_ro(r->key));
	mad_set_array(rec, 0, IB_SA_SR_NAME_F, sa_svc_ro(r->name));
	sa_svc_rec_data_put(r, rec);
}

void sa_svc_rec_decode(const uint8_t rec[SA_SVC_REC_SIZE], struct sa_svc_rec *r)
{
	void *p = sa_svc_ro(rec);

	memset(r, 0, sizeof(*r));
	r->id = mad_get_field64(p, 0, IB_SA_SR_ID_F);
	mad_get_array(p, 0, IB_SA_SR_GID_F, r->gid);
	r->pkey = (uint16_t)mad_get_field(p, 0, IB_SA_SR_PKEY_F);
	r->lease = mad_get_field(p, 0, IB_SA_SR_LEASE_F);
	mad_get_array(p, 0, IB_SA_SR_KEY_F, r->key);
	mad_get_array(p, 0, IB_SA_SR_NAME_F, r->name);
	sa_svc_rec_data_get(rec, r);
}

/* ---- InformInfo: IBA 13.4.8.3 (36 bytes) ---------------------- */

/* libibmad has no InformInfo fields.  base: the InformInfo's first bit
 * (0 on its own, 192 inside an InformInfoRecord). */
#define SA_SVC_INFORM_FIELDS(base)                                                     \
	{ (base) + 0, 128 },   /* GID */                                               \
	{ (base) + 128, 16 },  /* LIDRangeBegin */                                     \
	{ (base) + 144, 16 },  /* LIDRangeEnd */                                       \
	{ (base) + 160, 0 },   /* Reserved (16 bits) */                                \
	{ (base) + 176, 8 },   /* IsGeneric */                                         \
	{ (base) + 184, 8 },   /* Subscribe */                                         \
	{ (base) + 192, 16 },  /* Type */                                              \
	{ (base) + 208, 16 },  /* TrapNumber / DeviceID */                             \
	{ (base) + 224, 24 },  /* QPN */                                               \
	{ (base) + 248, 0 },   /* Reserved (3 bits) */                                 \
	{ (base) + 251, 5 },   /* RespTimeValue */                                     \
	{ (base) + 256, 0 },   /* Reserved (8 bits) */                                 \
	{ (base) + 264, 24 }   /* ProducerType / VendorID */

static const struct sa_field sa_svc_inform_comp[SA_SVC_INFORM_N_COMP] = {
	SA_SVC_INFORM_FIELDS(0),
};

const struct sa_rec_desc sa_svc_inform_desc = {
	.attr_id = SA_ATTR_INFORM_INFO,
	.size = SA_SVC_INFORM_SIZE,
	.name = "InformInfo",
	.comp = sa_svc_inform_comp,
	.n_comp = SA_SVC_INFORM_N_COMP,
};

void sa_svc_inform_encode(const struct sa_svc_inform *ii, uint8_t *rec)
{
	const struct sa_field *c = sa_svc_inform_comp;

	memset(rec, 0, SA_SVC_INFORM_LEN);
	sa_svc_bytes_put(rec, &c[SA_SVC_INFORM_C_GID], ii->gid);
	sa_put(rec, &c[SA_SVC_INFORM_C_LID_BEGIN], ii->lid_begin);
	sa_put(rec, &c[SA_SVC_INFORM_C_LID_END], ii->lid_end);
	sa_put(rec, &c[SA_SVC_INFORM_C_IS_GENERIC], ii->is_generic);
	sa_put(rec, &c[SA_SVC_INFORM_C_SUBSCRIBE], ii->subscribe);
	sa_put(rec, &c[SA_SVC_INFORM_C_TYPE], ii->type);
	sa_put(rec, &c[SA_SVC_INFORM_C_TRAP], ii->trap_num);
	sa_put(rec, &c[SA_SVC_INFORM_C_QPN], ii->qpn & 0xffffff);
	sa_put(rec, &c[SA_SVC_INFORM_C_RESP_TIME], ii->resp_time & 0x1f);
	sa_put(rec, &c[SA_SVC_INFORM_C_PRODUCER], ii->producer & 0xffffff);
}

void sa_svc_inform_decode(const uint8_t *rec, struct sa_svc_inform *ii)
{
	const struct sa_field *c = sa_svc_inform_comp;

	memset(ii, 0, sizeof(*ii));
	sa_svc_bytes_get(rec, &c[SA_SVC_INFORM_C_GID], ii->gid);
	ii->lid_begin = (uint16_t)sa_get(rec, &c[SA_SVC_INFORM_C_LID_BEGIN]);
	ii->lid_end = (uint16_t)sa_get(rec, &c[SA_SVC_INFORM_C_LID_END]);
	ii->is_generic = (uint8_t)sa_get(rec, &c[SA_SVC_INFORM_C_IS_GENERIC]);
	ii->subscribe = (uint8_t)sa_get(rec, &c[SA_SVC_INFORM_C_SUBSCRIBE]);
	ii->type = (uint16_t)sa_get(rec, &c[SA_SVC_INFORM_C_TYPE]);
	ii->trap_num = (uint16_t)sa_get(rec, &c[SA_SVC_INFORM_C_TRAP]);
	ii->qpn = (uint32_t)sa_get(rec, &c[SA_SVC_INFORM_C_QPN]);
	ii->resp_time = (uint8_t)sa_get(rec, &c[SA_SVC_INFORM_C_RESP_TIME]);
	ii->producer = (uint32_t)sa_get(rec, &c[SA_SVC_INFORM_C_PRODUCER]);
}

/* ---- InformInfoRecord: IBA 15.2.5 InformInfoRecord (64 bytes) -------------------------- */

static const struct sa_field sa_svc_iir_comp[SA_SVC_IIR_N_COMP] = {
	{ 0, 128 },  /* SubscriberGID */
	{ 128, 16 }, /* Enum */
	{ 144, 0 },  /* Reserved (48 bits) */
	SA_SVC_INFORM_FIELDS(SA_SVC_IIR_INFORM_OFFSET * 8),
	/* then 4 reserved bytes of padding, no component */
};

const struct sa_rec_desc sa_svc_iir_desc = {
	.attr_id = SA_ATTR_INFORM_INFO_RECORD,
	.size = SA_SVC_IIR_SIZE,
	.name = "InformInfoRecord",
	.comp = sa_svc_iir_comp,
	.n_comp = SA_SVC_IIR_N_COMP,
};

void sa_svc_iir_encode(const struct sa_svc_iir *r, uint8_t rec[SA_SVC_IIR_SIZE])
{
	memset(rec, 0, SA_SVC_IIR_SIZE);
	sa_svc_bytes_put(rec, &sa_svc_iir_comp[SA_SVC_IIR_C_SUBSCRIBER_GID], r->subscriber_gid);
	sa_put(rec, &sa_svc_iir_comp[SA_SVC_IIR_C_ENUM], r->enum_id);
	sa_svc_inform_encode(&r->ii, rec + SA_SVC_IIR_INFORM_OFFSET);
}

void sa_svc_iir_decode(const uint8_t rec[SA_SVC_IIR_SIZE], struct sa_svc_iir *r)
{
	memset(r, 0, sizeof(*r));
	sa_svc_bytes_get(rec, &sa_svc_iir_comp[SA_SVC_IIR_C_SUBSCRIBER_GID], r->subscriber_gid);
	r->enum_id = (uint16_t)sa_get(rec, &sa_svc_iir_comp[SA_SVC_IIR_C_ENUM]);
	sa_svc_inform_decode(rec + SA_SVC_IIR_INFORM_OFFSET, &r->ii);
}

/* ---- Notice: IBA 13.4.8.2 (80 bytes) -------------------------- */

/* libibmad covers most of it; its NoticeCount field is 16 bits wide from
 * the NoticeToggle bit on, so the 15-bit count and IssuerGID (which it
 * lacks) come from this table. */
static const struct sa_field sa_svc_notice_comp[SA_SVC_NOTICE_N_COMP] = {
	{ 0, 1 },     /* IsGeneric */
	{ 1, 7 },     /* Type */
	{ 8, 24 },    /* ProducerType / VendorID */
	{ 32, 16 },   /* TrapNumber / DeviceID */
	{ 48, 16 },   /* IssuerLID */
	{ 64, 1 },    /* NoticeToggle */
	{ 65, 15 },   /* NoticeCount */
	{ 80, 432 },  /* DataDetails, 54 bytes */
	{ 512, 128 }, /* IssuerGID */
};

const struct sa_rec_desc sa_svc_notice_desc = {
	.attr_id = SA_ATTR_NOTICE,
	.size = SA_SVC_NOTICE_SIZE,
	.name = "Notice",
	.comp = sa_svc_notice_comp,
	.n_comp = SA_SVC_NOTICE_N_COMP,
};

/* Traps 64..67: DataDetails = 6 reserved bytes, then the GID (byte 16). */
const struct sa_field sa_svc_notice_trap_gid = { 128, 128 };

void sa_svc_notice_encode(const struct sa_svc_notice *n, uint8_t rec[SA_SVC_NOTICE_SIZE])
{
	memset(rec, 0, SA_SVC_NOTICE_SIZE);
	mad_set_field(rec, 0, IB_NOTICE_IS_GENERIC_F, n->is_generic & 1);
	mad_set_field(rec, 0, IB_NOTICE_TYPE_F, n->type & 0x7f);
	mad_set_field(rec, 0, IB_NOTICE_PRODUCER_F, n->producer & 0xffffff);
	mad_set_field(rec, 0, IB_NOTICE_TRAP_NUMBER_F, n->trap_num);
	mad_set_field(rec, 0, IB_NOTICE_ISSUER_LID_F, n->issuer_lid);
	mad_set_field(rec, 0, IB_NOTICE_TOGGLE_F, n->toggle & 1);
	sa_put(rec, &sa_svc_notice_comp[SA_SVC_NOTICE_C_COUNT], n->count & 0x7fff);
	mad_set_array(rec, 0, IB_NOTICE_DATA_DETAILS_F, sa_svc_ro(n->details));
	sa_svc_bytes_put(rec, &sa_svc_notice_comp[SA_SVC_NOTICE_C_ISSUER_GID], n->issuer_gid);
}

void sa_svc_notice_decode(const uint8_t rec[SA_SVC_NOTICE_SIZE], struct sa_svc_notice *n)
{
	void *p = sa_svc_ro(rec);

	memset(n, 0, sizeof(*n));
	n->is_generic = (uint8_t)mad_get_field(p, 0, IB_NOTICE_IS_GENERIC_F);
	n->type = (uint8_t)mad_get_field(p, 0, IB_NOTICE_TYPE_F);
	n->producer = mad_get_field(p, 0, IB_NOTICE_PRODUCER_F);
	n->trap_num = (uint16_t)mad_get_field(p, 0, IB_NOTICE_TRAP_NUMBER_F);
	n->issuer_lid = (uint16_t)mad_get_field(p, 0, IB_NOTICE_ISSUER_LID_F);
	n->toggle = (uint8_t)mad_get_field(p, 0, IB_NOTICE_TOGGLE_F);
	n->count = (uint16_t)sa_get(rec, &sa_svc_notice_comp[SA_SVC_NOTICE_C_COUNT]);
	mad_get_array(p, 0, IB_NOTICE_DATA_DETAILS_F, n->details);
	sa_svc_bytes_get(rec, &sa_svc_notice_comp[SA_SVC_NOTICE_C_ISSUER_GID], n->issuer_gid);
}

/* Offset of the trap GID inside DataDetails. */
static size_t sa_svc_notice_gid_offset(void)
{
	return sa_svc_notice_trap_gid.bit / 8 - sa_svc_notice_comp[SA_SVC_NOTICE_C_DETAILS].bit / 8;
}

int sa_svc_notice_gid(const struct sa_svc_notice *n, uint8_t gid[16])
{
	if (!n->is_generic || n->trap_num < SA_SVC_TRAP_GID_IN ||
	    n->trap_num > SA_SVC_TRAP_MCG_DELETE)
		return -EINVAL;
	memcpy(gid, n->details + sa_svc_notice_gid_offset(), 16);
	return 0;
}

void sa_svc_notice_set_gid(struct sa_svc_notice *n, const uint8_t gid[16])
{
	memcpy(n->details + sa_svc_notice_gid_offset(), gid, 16);
}
