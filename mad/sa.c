/*
 * sa.c - SA MAD header codec and the generic component table helpers.
 * Owns the wire layout of the common/RMPP/SA headers (through libibmad's
 * field tables); knows nothing about any particular record.
 */
#include "mad/sa.h"

#include <errno.h>
#include <string.h>

#include <infiniband/mad.h>

#define SA_RMPP_HDR_END 36 /* common (24) + RMPP (12) headers */

int sa_decode(const uint8_t *buf, size_t len, struct sa_mad *m)
{
	uint8_t mad[SA_MAD_SIZE] = { 0 };
	void *b = mad;

	if (!buf || !m || len < SA_HDR_SIZE)
		return -EINVAL;
	memcpy(mad, buf, len < SA_MAD_SIZE ? len : SA_MAD_SIZE);
	memset(m, 0, sizeof(*m));
	m->base_version = (uint8_t)mad_get_field(b, 0, IB_MAD_BASEVER_F);
	m->mgmt_class = (uint8_t)mad_get_field(b, 0, IB_MAD_MGMTCLASS_F);
	if (m->base_version != 1 || m->mgmt_class != SA_CLASS)
		return -EINVAL;
	m->class_version = (uint8_t)mad_get_field(b, 0, IB_MAD_CLASSVER_F);
	m->method = (uint8_t)(mad_get_field(b, 0, IB_MAD_METHOD_F) |
			      (mad_get_field(b, 0, IB_MAD_RESPONSE_F) ? SA_METHOD_RESP : 0));
	m->status = (uint16_t)mad_get_field(b, 0, IB_MAD_STATUS_F);
	m->tid = mad_get_field64(b, 0, IB_MAD_TRID_F);
	m->attr_id = (uint16_t)mad_get_field(b, 0, IB_MAD_ATTRID_F);
	m->attr_mod = mad_get_field(b, 0, IB_MAD_ATTRMOD_F);
	m->rmpp_version = (uint8_t)mad_get_field(b, 0, IB_SA_RMPP_VERS_F);
	m->rmpp_type = (uint8_t)mad_get_field(b, 0, IB_SA_RMPP_TYPE_F);
	m->rmpp_resp_time = (uint8_t)mad_get_field(b, 0, IB_SA_RMPP_RESP_F);
	m->rmpp_flags = (uint8_t)mad_get_field(b, 0, IB_SA_RMPP_FLAGS_F);
	m->rmpp_status = (uint8_t)mad_get_field(b, 0, IB_SA_RMPP_STATUS_F);
	m->rmpp_d1 = mad_get_field(b, 0, IB_SA_RMPP_D1_F);
	m->rmpp_d2 = mad_get_field(b, 0, IB_SA_RMPP_D2_F);
	m->sm_key = mad_get_field64(b, 0, IB_SA_MKEY_F);
	m->attr_offset = (uint16_t)mad_get_field(b, 0, IB_SA_ATTROFFS_F);
	m->comp_mask = mad_get_field64(b, 0, IB_SA_COMPMASK_F);
	memcpy(m->data, mad + SA_HDR_SIZE, SA_DATA_SIZE);
	return 0;
}

static void sa_encode_header(const struct sa_mad *h, uint16_t attr_offset, uint8_t *mad)
{
	void *b = mad;

	memset(mad, 0, SA_HDR_SIZE);
	mad_set_field(b, 0, IB_MAD_BASEVER_F, 1);
	mad_set_field(b, 0, IB_MAD_MGMTCLASS_F, SA_CLASS);
	mad_set_field(b, 0, IB_MAD_CLASSVER_F, h->class_version ? h->class_version
								 : SA_CLASS_VERSION);
	mad_set_field(b, 0, IB_MAD_METHOD_F, h->method & 0x7f);
	mad_set_field(b, 0, IB_MAD_RESPONSE_F, (h->method & SA_METHOD_RESP) ? 1 : 0);
	mad_set_field(b, 0, IB_MAD_STATUS_F, h->status);
	mad_set_field64(b, 0, IB_MAD_TRID_F, h->tid);
	mad_set_field(b, 0, IB_MAD_ATTRID_F, h->attr_id);
	mad_set_field(b, 0, IB_MAD_ATTRMOD_F, h->attr_mod);
	mad_set_field(b, 0, IB_SA_RMPP_VERS_F, h->rmpp_version);
	mad_set_field(b, 0, IB_SA_RMPP_TYPE_F, h->rmpp_type);
	mad_set_field(b, 0, IB_SA_RMPP_RESP_F, h->rmpp_resp_time);
	mad_set_field(b, 0, IB_SA_RMPP_FLAGS_F, h->rmpp_flags);
	mad_set_field(b, 0, IB_SA_RMPP_STATUS_F, h->rmpp_status);
	mad_set_field(b, 0, IB_SA_RMPP_D1_F, h->rmpp_d1);
	mad_set_field(b, 0, IB_SA_RMPP_D2_F, h->rmpp_d2);
	mad_set_field64(b, 0, IB_SA_MKEY_F, h->sm_key);
	mad_set_field(b, 0, IB_SA_ATTROFFS_F, attr_offset);
	mad_set_field64(b, 0, IB_SA_COMPMASK_F, h->comp_mask);
}

size_t sa_encode(const struct sa_mad *hdr, const uint8_t *recs, size_t n, size_t rec_size,
		 uint8_t *buf, size_t len)
{
	size_t need = SA_HDR_SIZE + n * rec_size;

	/* an RMPP transfer is exactly as long as its payload (the kernel, or
	 * umad2sim, tells the receiver that length); a plain MAD is 256 bytes */
	if (need < SA_MAD_SIZE && !(hdr->rmpp_flags & SA_RMPP_FLAG_ACTIVE))
		need = SA_MAD_SIZE;
	if (!buf || len < need)
		return need;
	memset(buf, 0, need);
	sa_encode_header(hdr, (uint16_t)(rec_size / 8), buf);
	if (hdr->rmpp_flags & SA_RMPP_FLAG_ACTIVE) {
		/* one transfer: segment 1, PayloadLength = SA header + records
		 * (IBA 13.6.2.3); the kernel's RMPP re-cuts it on hardware */
		mad_set_field(buf, 0, IB_SA_RMPP_D1_F, 1);
		mad_set_field(buf, 0, IB_SA_RMPP_D2_F,
			      (uint32_t)(SA_HDR_SIZE - SA_RMPP_HDR_END + n * rec_size));
	}
	if (n && recs)
		memcpy(buf + SA_HDR_SIZE, recs, n * rec_size);
	return need;
}

void sa_make_response(const struct sa_mad *req, uint16_t status, struct sa_mad *resp)
{
	memset(resp, 0, sizeof(*resp));
	resp->base_version = 1;
	resp->mgmt_class = SA_CLASS;
	resp->class_version = SA_CLASS_VERSION;
	/* a Set is answered with GetResp (IBA 13.4.5); the others with their
	 * own response method */
	resp->method = (uint8_t)((req->method == SA_METHOD_SET ? SA_METHOD_GET : req->method) |
				 SA_METHOD_RESP);
	resp->status = status;
	resp->tid = req->tid;
	resp->attr_id = req->attr_id;
	resp->attr_mod = req->attr_mod;
	resp->comp_mask = req->comp_mask;
	if (req->method == SA_METHOD_GET_TABLE || req->method == SA_METHOD_GET_MULTI ||
	    req->method == SA_METHOD_GET_TRACE_TABLE) {
		resp->rmpp_version = SA_RMPP_VERSION;
		resp->rmpp_type = SA_RMPP_TYPE_DATA;
		resp->rmpp_flags = SA_RMPP_FLAG_ACTIVE | SA_RMPP_FLAG_FIRST | SA_RMPP_FLAG_LAST;
	}
}

/* ---- components ---------------------------------------------------------- */

uint64_t sa_get(const uint8_t *rec, const struct sa_field *f)
{
	uint64_t v = 0;

	if (f->bits == 0 || f->bits > 64)
		return 0;
	for (unsigned i = 0; i < f->bits; i++) {
		unsigned bit = f->bit + i;

		v = (v << 1) | ((rec[bit / 8] >> (7 - bit % 8)) & 1u);
	}
	return v;
}

void sa_put(uint8_t *rec, const struct sa_field *f, uint64_t v)
{
	if (f->bits == 0 || f->bits > 64)
		return;
	for (unsigned i = 0; i < f->bits; i++) {
		unsigned bit = f->bit + f->bits - 1 - i;
		uint8_t m = (uint8_t)(1u << (7 - bit % 8));

		if ((v >> i) & 1u)
			rec[bit / 8] |= m;
		else
			rec[bit / 8] &= (uint8_t)~m;
	}
}

static int sa_field_equal(const struct sa_field *f, const uint8_t *a, const uint8_t *b)
{
	if (f->bits <= 64)
		return sa_get(a, f) == sa_get(b, f);
	return memcmp(a + f->bit / 8, b + f->bit / 8, f->bits / 8) == 0;
}

int sa_rec_match(const struct sa_rec_desc *d, uint64_t comp_mask, const uint8_t *want,
		 const uint8_t *rec)
{
	for (unsigned i = 0; i < d->n_comp && i < 64; i++) {
		const struct sa_field *f = &d->comp[i];

		if (!(comp_mask & (1ull << i)) || f->bits == 0)
			continue;
		if ((unsigned)f->bit + f->bits > (unsigned)d->size * 8)
			continue; /* a broken table entry never reads past the record */
		if (!sa_field_equal(f, want, rec))
			return 0;
	}
	return 1;
}

uint64_t sa_comp_unknown(const struct sa_rec_desc *d, uint64_t comp_mask)
{
	if (d->n_comp >= 64)
		return 0;
	return comp_mask & ~((1ull << d->n_comp) - 1);
}

/* ---- names ----------------------------------------------------------------- */

const char *sa_method_name(uint8_t method)
{
	switch (method) {
	case SA_METHOD_GET: return "Get";
	case SA_METHOD_SET: return "Set";
	case SA_METHOD_REPORT: return "Report";
	case SA_METHOD_GET_TABLE: return "GetTable";
	case SA_METHOD_GET_TRACE_TABLE: return "GetTraceTable";
	case SA_METHOD_GET_MULTI: return "GetMulti";
	case SA_METHOD_DELETE: return "Delete";
	case SA_METHOD_GET_RESP: return "GetResp";
	case SA_METHOD_REPORT_RESP: return "ReportResp";
	case SA_METHOD_GET_TABLE_RESP: return "GetTableResp";
	case SA_METHOD_DELETE_RESP: return "DeleteResp";
	default: return "unknown-method";
	}
}

const char *sa_attr_name(uint16_t attr_id)
{
	switch (attr_id) {
	case SA_ATTR_CLASS_PORT_INFO: return "ClassPortInfo";
	case SA_ATTR_NOTICE: return "Notice";
	case SA_ATTR_INFORM_INFO: return "InformInfo";
	case SA_ATTR_NODE_RECORD: return "NodeRecord";
	case SA_ATTR_PORTINFO_RECORD: return "PortInfoRecord";
	case SA_ATTR_SWITCHINFO_RECORD: return "SwitchInfoRecord";
	case SA_ATTR_LFT_RECORD: return "LFTRecord";
	case SA_ATTR_MFT_RECORD: return "MFTRecord";
	case SA_ATTR_SMINFO_RECORD: return "SMInfoRecord";
	case SA_ATTR_LINK_RECORD: return "LinkRecord";
	case SA_ATTR_GUIDINFO_RECORD: return "GUIDInfoRecord";
	case SA_ATTR_SERVICE_RECORD: return "ServiceRecord";
	case SA_ATTR_PKEY_TABLE_RECORD: return "P_KeyTableRecord";
	case SA_ATTR_PATH_RECORD: return "PathRecord";
	case SA_ATTR_MCMEMBER_RECORD: return "MCMemberRecord";
	case SA_ATTR_MULTIPATH_RECORD: return "MultiPathRecord";
	case SA_ATTR_INFORM_INFO_RECORD: return "InformInfoRecord";
	default: return "unknown-attribute";
	}
}

const char *sa_status_name(uint16_t status)
{
	switch (status) {
	case SA_STATUS_OK: return "ok";
	case SA_STATUS_BAD_VERSION: return "bad class version";
	case SA_STATUS_BAD_METHOD: return "method not supported";
	case SA_STATUS_BAD_METHOD_ATTR: return "method/attribute not supported";
	case SA_STATUS_INVALID_FIELD: return "invalid field";
	case SA_STATUS_NO_RESOURCES: return "no resources";
	case SA_STATUS_REQ_INVALID: return "request invalid";
	case SA_STATUS_NO_RECORDS: return "no records";
	case SA_STATUS_TOO_MANY_RECORDS: return "too many records";
	case SA_STATUS_INVALID_GID: return "invalid GID";
	case SA_STATUS_INSUF_COMPS: return "insufficient components";
	case SA_STATUS_DENIED: return "denied";
	default: return "unknown status";
	}
}
