/*
 * smp.c - SMP header and attribute codecs (IBA 14.2) on libibmad's field
 * tables.  Owns the mapping between wire bytes and struct smp*; it keeps no
 * state, does no I/O and never reads or writes outside the given buffers.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/mad.h>

#include "mad/smp.h"

#define SMP_BASE_VERSION 1
#define SMP_CLASS_VERSION 1
#define SMP_DR_STATUS_MASK 0x7fff /* DR SMP: D bit (bit 15) + 15-bit status */
#define SMP_RESPONSE_BIT 0x80     /* R bit, top bit of the method byte */

/* ---- Header ---------------------------------------------------------- */

/* mad_set_array takes a non-const source: hand it a private copy of one
 * 64-byte path (initial or return). */
static void smp_set_bytes(uint8_t *mad, enum MAD_FIELDS field, const uint8_t *src, size_t n)
{
	uint8_t tmp[SMP_DATA_SIZE] = { 0 };

	memcpy(tmp, src, n < sizeof(tmp) ? n : sizeof(tmp));
	mad_set_array(mad, 0, field, tmp);
}

static void smp_encode_common(const struct smp *smp, uint8_t *mad)
{
	mad_set_field(mad, 0, IB_MAD_BASEVER_F, SMP_BASE_VERSION);
	mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, smp->mgmt_class);
	mad_set_field(mad, 0, IB_MAD_CLASSVER_F, SMP_CLASS_VERSION);
	/* libibmad splits the method byte into the R bit and 7 method bits */
	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, (smp->method & SMP_RESPONSE_BIT) ? 1 : 0);
	mad_set_field(mad, 0, IB_MAD_METHOD_F, smp->method & ~SMP_RESPONSE_BIT);
	mad_set_field64(mad, 0, IB_MAD_TRID_F, smp->tid);
	mad_set_field(mad, 0, IB_MAD_ATTRID_F, smp->attr_id);
	mad_set_field(mad, 0, IB_MAD_ATTRMOD_F, smp->attr_mod);
	mad_set_field64(mad, 0, IB_MAD_MKEY_F, smp->mkey);
	/* libibmad's IB_SM_DATA_F entry is empty (zero bits): copy the payload
	 * by hand at IB_SMP_DATA_OFFS (IBA 14.2.1.1, bytes 64-127) */
	memcpy(mad + IB_SMP_DATA_OFFS, smp->data, IB_SMP_DATA_SIZE);
}

/* Directed route: bytes 4-5 are D bit + 15-bit status (IB_DRSMP_STATUS_F
 * covers all 16 bits, so the status is masked and the D bit set apart). */
static void smp_encode_dr(const struct smp *smp, uint8_t *mad)
{
	mad_set_field(mad, 0, IB_MAD_STATUS_F, smp->status & SMP_DR_STATUS_MASK);
	mad_set_field(mad, 0, IB_DRSMP_DIRECTION_F, smp->direction ? 1 : 0);
	mad_set_field(mad, 0, IB_DRSMP_HOPPTR_F, smp->hop_ptr);
	mad_set_field(mad, 0, IB_DRSMP_HOPCNT_F, smp->hop_cnt);
	mad_set_field(mad, 0, IB_DRSMP_DRSLID_F, smp->dr_slid);
	mad_set_field(mad, 0, IB_DRSMP_DRDLID_F, smp->dr_dlid);
	smp_set_bytes(mad, IB_DRSMP_PATH_F, smp->initial_path, sizeof(smp->initial_path));
	smp_set_bytes(mad, IB_DRSMP_RPATH_F, smp->return_path, sizeof(smp->return_path));
}

int smp_encode(const struct smp *smp, uint8_t *buf, size_t len)
{
	uint8_t mad[SMP_MAD_SIZE] = { 0 };

	if (!smp || !buf || len < SMP_MAD_SIZE)
		return -EINVAL;
	if (smp->mgmt_class != SMP_CLASS_LID && smp->mgmt_class != SMP_CLASS_DR)
		return -EINVAL;
	if (smp->mgmt_class == SMP_CLASS_DR && smp->hop_cnt > SMP_MAX_HOPS)
		return -EINVAL;
	smp_encode_common(smp, mad);
	if (smp->mgmt_class == SMP_CLASS_DR)
		smp_encode_dr(smp, mad);
	else
		mad_set_field(mad, 0, IB_MAD_STATUS_F, smp->status);
	memcpy(buf, mad, SMP_MAD_SIZE);
	return 0;
}

static int smp_check_header(uint8_t *mad)
{
	uint32_t mgmt_class = mad_get_field(mad, 0, IB_MAD_MGMTCLASS_F);

	if (mad_get_field(mad, 0, IB_MAD_BASEVER_F) != SMP_BASE_VERSION)
		return -EINVAL;
	if (mgmt_class != SMP_CLASS_LID && mgmt_class != SMP_CLASS_DR)
		return -EINVAL;
	if (mad_get_field(mad, 0, IB_MAD_CLASSVER_F) != SMP_CLASS_VERSION)
		return -EINVAL;
	if (mgmt_class != SMP_CLASS_DR)
		return 0;
	/* IBA C14-9/C14-13: the hop pointer runs 0 .. hop count + 1; anything
	 * past that is an unreasonable hop pointer and the SMP is discarded */
	if (mad_get_field(mad, 0, IB_DRSMP_HOPCNT_F) > SMP_MAX_HOPS ||
	    mad_get_field(mad, 0, IB_DRSMP_HOPPTR_F) > mad_get_field(mad, 0, IB_DRSMP_HOPCNT_F) + 1)
		return -EINVAL;
	return 0;
}

static void smp_decode_common(uint8_t *mad, struct smp *smp)
{
	smp->mgmt_class = mad_get_field(mad, 0, IB_MAD_MGMTCLASS_F);
	smp->method = mad_get_field(mad, 0, IB_MAD_METHOD_F);
	if (mad_get_field(mad, 0, IB_MAD_RESPONSE_F))
		smp->method |= SMP_RESPONSE_BIT;
	smp->tid = mad_get_field64(mad, 0, IB_MAD_TRID_F);
	smp->attr_id = mad_get_field(mad, 0, IB_MAD_ATTRID_F);
	smp->attr_mod = mad_get_field(mad, 0, IB_MAD_ATTRMOD_F);
	smp->mkey = mad_get_field64(mad, 0, IB_MAD_MKEY_F);
	memcpy(smp->data, mad + IB_SMP_DATA_OFFS, IB_SMP_DATA_SIZE); /* see encode */
}

static void smp_decode_dr(uint8_t *mad, struct smp *smp)
{
	smp->status = mad_get_field(mad, 0, IB_MAD_STATUS_F) & SMP_DR_STATUS_MASK;
	smp->direction = mad_get_field(mad, 0, IB_DRSMP_DIRECTION_F);
	smp->hop_ptr = mad_get_field(mad, 0, IB_DRSMP_HOPPTR_F);
	smp->hop_cnt = mad_get_field(mad, 0, IB_DRSMP_HOPCNT_F);
	smp->dr_slid = mad_get_field(mad, 0, IB_DRSMP_DRSLID_F);
	smp->dr_dlid = mad_get_field(mad, 0, IB_DRSMP_DRDLID_F);
	mad_get_array(mad, 0, IB_DRSMP_PATH_F, smp->initial_path);
	mad_get_array(mad, 0, IB_DRSMP_RPATH_F, smp->return_path);
}

int smp_decode(const uint8_t *buf, size_t len, struct smp *smp)
{
	uint8_t mad[SMP_MAD_SIZE];
	int rc;

	if (!buf || !smp || len < SMP_MAD_SIZE)
		return -EINVAL;
	/* libibmad takes non-const buffers: work on a private copy */
	memcpy(mad, buf, SMP_MAD_SIZE);
	rc = smp_check_header(mad);
	if (rc)
		return rc;
	memset(smp, 0, sizeof(*smp));
	smp_decode_common(mad, smp);
	if (smp->mgmt_class == SMP_CLASS_DR)
		smp_decode_dr(mad, smp);
	else
		smp->status = mad_get_field(mad, 0, IB_MAD_STATUS_F);
	return 0;
}

static void smp_init_common(struct smp *smp, uint8_t mgmt_class, uint8_t method,
			    uint16_t attr_id, uint32_t attr_mod)
{
	memset(smp, 0, sizeof(*smp));
	smp->mgmt_class = mgmt_class;
	smp->method = method;
	smp->attr_id = attr_id;
	smp->attr_mod = attr_mod;
}

void smp_init_dr(struct smp *smp, uint8_t method, uint16_t attr_id, uint32_t attr_mod,
		 const uint8_t *path, uint8_t hops)
{
	smp_init_common(smp, SMP_CLASS_DR, method, attr_id, attr_mod);
	if (hops > SMP_MAX_HOPS)
		hops = SMP_MAX_HOPS;
	if (!path)
		hops = 0;
	smp->hop_cnt = hops;
	smp->hop_ptr = 0;
	smp->dr_slid = 0xffff;
	smp->dr_dlid = 0xffff;
	if (hops)
		memcpy(&smp->initial_path[1], &path[1], hops);
}

void smp_init_lid(struct smp *smp, uint8_t method, uint16_t attr_id, uint32_t attr_mod)
{
	smp_init_common(smp, SMP_CLASS_LID, method, attr_id, attr_mod);
}

/* The responder at the end of a directed route answers with the D bit set
 * and the hop pointer where the request left it (== hop count). */
void smp_make_response(struct smp *smp)
{
	smp->method = SMP_METHOD_GET_RESP;
	if (smp->mgmt_class != SMP_CLASS_DR)
		return;
	smp->direction = 1;
	smp->hop_ptr = smp->hop_cnt;
}

void smp_make_reply(struct smp *smp)
{
	smp->method = SMP_METHOD_GET_RESP;
	if (smp->mgmt_class == SMP_CLASS_DR)
		smp->direction = 1;
}

/* ---- Attributes ------------------------------------------------------ */

/* Attribute fields are relative to the payload: base offset 0 into a
 * private SMP_DATA_SIZE copy (libibmad wants non-const pointers). */

void smp_node_info_decode(const uint8_t *data, struct smp_node_info *ni)
{
	uint8_t d[SMP_DATA_SIZE];

	memcpy(d, data, sizeof(d));
	memset(ni, 0, sizeof(*ni));
	ni->base_version = mad_get_field(d, 0, IB_NODE_BASE_VERS_F);
	ni->class_version = mad_get_field(d, 0, IB_NODE_CLASS_VERS_F);
	ni->node_type = mad_get_field(d, 0, IB_NODE_TYPE_F);
	ni->num_ports = mad_get_field(d, 0, IB_NODE_NPORTS_F);
	ni->system_guid = mad_get_field64(d, 0, IB_NODE_SYSTEM_GUID_F);
	ni->node_guid = mad_get_field64(d, 0, IB_NODE_GUID_F);
	ni->port_guid = mad_get_field64(d, 0, IB_NODE_PORT_GUID_F);
	ni->partition_cap = mad_get_field(d, 0, IB_NODE_PARTITION_CAP_F);
	ni->device_id = mad_get_field(d, 0, IB_NODE_DEVID_F);
	ni->revision = mad_get_field(d, 0, IB_NODE_REVISION_F);
	ni->local_port = mad_get_field(d, 0, IB_NODE_LOCAL_PORT_F);
	ni->vendor_id = mad_get_field(d, 0, IB_NODE_VENDORID_F);
}

void smp_node_info_encode(const struct smp_node_info *ni, uint8_t *data)
{
	memset(data, 0, SMP_DATA_SIZE);
	mad_set_field(data, 0, IB_NODE_BASE_VERS_F, ni->base_version);
	mad_set_field(data, 0, IB_NODE_CLASS_VERS_F, ni->class_version);
	mad_set_field(data, 0, IB_NODE_TYPE_F, ni->node_type);
	mad_set_field(data, 0, IB_NODE_NPORTS_F, ni->num_ports);
	mad_set_field64(data, 0, IB_NODE_SYSTEM_GUID_F, ni->system_guid);
	mad_set_field64(data, 0, IB_NODE_GUID_F, ni->node_guid);
	mad_set_field64(data, 0, IB_NODE_PORT_GUID_F, ni->port_guid);
	mad_set_field(data, 0, IB_NODE_PARTITION_CAP_F, ni->partition_cap);
	mad_set_field(data, 0, IB_NODE_DEVID_F, ni->device_id);
	mad_set_field(data, 0, IB_NODE_REVISION_F, ni->revision);
	mad_set_field(data, 0, IB_NODE_LOCAL_PORT_F, ni->local_port);
	mad_set_field(data, 0, IB_NODE_VENDORID_F, ni->vendor_id); /* 24 bits */
}

/* NodeDescription is 64 bytes of UTF-8, NUL-padded: stop at the first NUL,
 * show any other control or non-ASCII byte as '?' so logs stay readable. */
void smp_node_desc_decode(const uint8_t *data, struct smp_node_desc *nd)
{
	uint8_t d[SMP_DATA_SIZE];
	size_t i;

	memcpy(d, data, sizeof(d));
	memset(nd, 0, sizeof(*nd));
	mad_get_array(d, 0, IB_NODE_DESC_F, nd->desc);
	for (i = 0; i < SMP_DATA_SIZE && nd->desc[i]; i++) {
		unsigned char c = (unsigned char)nd->desc[i];

		if (c < 0x20 || c > 0x7e)
			nd->desc[i] = '?';
	}
	nd->desc[i] = '\0';
}

void smp_node_desc_encode(const struct smp_node_desc *nd, uint8_t *data)
{
	char d[SMP_DATA_SIZE] = { 0 };

	memcpy(d, nd->desc, strnlen(nd->desc, SMP_DATA_SIZE));
	mad_set_array(data, 0, IB_NODE_DESC_F, d);
}

static void smp_port_info_decode_ids(uint8_t *d, struct smp_port_info *pi)
{
	pi->mkey = mad_get_field64(d, 0, IB_PORT_MKEY_F);
	pi->gid_prefix = mad_get_field64(d, 0, IB_PORT_GID_PREFIX_F);
	pi->lid = mad_get_field(d, 0, IB_PORT_LID_F);
	pi->sm_lid = mad_get_field(d, 0, IB_PORT_SMLID_F);
	pi->cap_mask = mad_get_field(d, 0, IB_PORT_CAPMASK_F);
	pi->diag_code = mad_get_field(d, 0, IB_PORT_DIAG_F);
	pi->mkey_lease = mad_get_field(d, 0, IB_PORT_MKEY_LEASE_F);
	pi->local_port = mad_get_field(d, 0, IB_PORT_LOCAL_PORT_F);
	pi->mkey_prot = mad_get_field(d, 0, IB_PORT_MKEY_PROT_BITS_F);
	pi->lmc = mad_get_field(d, 0, IB_PORT_LMC_F);
	pi->master_sm_sl = mad_get_field(d, 0, IB_PORT_SMSL_F);
}

static void smp_port_info_decode_link(uint8_t *d, struct smp_port_info *pi)
{
	pi->link_width_enabled = mad_get_field(d, 0, IB_PORT_LINK_WIDTH_ENABLED_F);
	pi->link_width_supported = mad_get_field(d, 0, IB_PORT_LINK_WIDTH_SUPPORTED_F);
	pi->link_width_active = mad_get_field(d, 0, IB_PORT_LINK_WIDTH_ACTIVE_F);
	pi->link_speed_supported = mad_get_field(d, 0, IB_PORT_LINK_SPEED_SUPPORTED_F);
	pi->link_speed_active = mad_get_field(d, 0, IB_PORT_LINK_SPEED_ACTIVE_F);
	pi->link_speed_enabled = mad_get_field(d, 0, IB_PORT_LINK_SPEED_ENABLED_F);
	pi->state = mad_get_field(d, 0, IB_PORT_STATE_F);
	pi->phys_state = mad_get_field(d, 0, IB_PORT_PHYS_STATE_F);
	pi->link_down_default = mad_get_field(d, 0, IB_PORT_LINK_DOWN_DEF_F);
	pi->neighbor_mtu = mad_get_field(d, 0, IB_PORT_NEIGHBOR_MTU_F);
	pi->mtu_cap = mad_get_field(d, 0, IB_PORT_MTU_CAP_F);
}

static void smp_port_info_decode_vl(uint8_t *d, struct smp_port_info *pi)
{
	pi->vl_cap = mad_get_field(d, 0, IB_PORT_VL_CAP_F);
	pi->init_type = mad_get_field(d, 0, IB_PORT_INIT_TYPE_F);
	pi->vl_high_limit = mad_get_field(d, 0, IB_PORT_VL_HIGH_LIMIT_F);
	pi->vl_arb_high_cap = mad_get_field(d, 0, IB_PORT_VL_ARBITRATION_HIGH_CAP_F);
	pi->vl_arb_low_cap = mad_get_field(d, 0, IB_PORT_VL_ARBITRATION_LOW_CAP_F);
	pi->init_type_reply = mad_get_field(d, 0, IB_PORT_INIT_TYPE_REPLY_F);
	pi->vl_stall_count = mad_get_field(d, 0, IB_PORT_VL_STALL_COUNT_F);
	pi->hoq_life = mad_get_field(d, 0, IB_PORT_HOQ_LIFE_F);
	pi->oper_vls = mad_get_field(d, 0, IB_PORT_OPER_VLS_F);
	pi->part_enf_inb = mad_get_field(d, 0, IB_PORT_PART_EN_INB_F);
	pi->part_enf_outb = mad_get_field(d, 0, IB_PORT_PART_EN_OUTB_F);
	pi->filter_raw_inb = mad_get_field(d, 0, IB_PORT_FILTER_RAW_INB_F);
	pi->filter_raw_outb = mad_get_field(d, 0, IB_PORT_FILTER_RAW_OUTB_F);
	pi->client_rereg = mad_get_field(d, 0, IB_PORT_CLIENT_REREG_F);
	pi->subnet_timeout = mad_get_field(d, 0, IB_PORT_SUBN_TIMEOUT_F);
	pi->resp_time = mad_get_field(d, 0, IB_PORT_RESP_TIME_VAL_F);
	pi->local_phys_err = mad_get_field(d, 0, IB_PORT_LOCAL_PHYS_ERR_F);
	pi->overrun_err = mad_get_field(d, 0, IB_PORT_OVERRUN_ERR_F);
}

void smp_port_info_decode(const uint8_t *data, struct smp_port_info *pi)
{
	uint8_t d[SMP_DATA_SIZE];

	memcpy(d, data, sizeof(d));
	memset(pi, 0, sizeof(*pi));
	smp_port_info_decode_ids(d, pi);
	smp_port_info_decode_link(d, pi);
	smp_port_info_decode_vl(d, pi);
}

static void smp_port_info_encode_ids(const struct smp_port_info *pi, uint8_t *d)
{
	mad_set_field64(d, 0, IB_PORT_MKEY_F, pi->mkey);
	mad_set_field64(d, 0, IB_PORT_GID_PREFIX_F, pi->gid_prefix);
	mad_set_field(d, 0, IB_PORT_LID_F, pi->lid);
	mad_set_field(d, 0, IB_PORT_SMLID_F, pi->sm_lid);
	mad_set_field(d, 0, IB_PORT_CAPMASK_F, pi->cap_mask);
	mad_set_field(d, 0, IB_PORT_DIAG_F, pi->diag_code);
	mad_set_field(d, 0, IB_PORT_MKEY_LEASE_F, pi->mkey_lease);
	mad_set_field(d, 0, IB_PORT_LOCAL_PORT_F, pi->local_port);
	mad_set_field(d, 0, IB_PORT_MKEY_PROT_BITS_F, pi->mkey_prot);
	mad_set_field(d, 0, IB_PORT_LMC_F, pi->lmc);
	mad_set_field(d, 0, IB_PORT_SMSL_F, pi->master_sm_sl);
}

static void smp_port_info_encode_link(const struct smp_port_info *pi, uint8_t *d)
{
	mad_set_field(d, 0, IB_PORT_LINK_WIDTH_ENABLED_F, pi->link_width_enabled);
	mad_set_field(d, 0, IB_PORT_LINK_WIDTH_SUPPORTED_F, pi->link_width_supported);
	mad_set_field(d, 0, IB_PORT_LINK_WIDTH_ACTIVE_F, pi->link_width_active);
	mad_set_field(d, 0, IB_PORT_LINK_SPEED_SUPPORTED_F, pi->link_speed_supported);
	mad_set_field(d, 0, IB_PORT_LINK_SPEED_ACTIVE_F, pi->link_speed_active);
	mad_set_field(d, 0, IB_PORT_LINK_SPEED_ENABLED_F, pi->link_speed_enabled);
	mad_set_field(d, 0, IB_PORT_STATE_F, pi->state);
	mad_set_field(d, 0, IB_PORT_PHYS_STATE_F, pi->phys_state);
	mad_set_field(d, 0, IB_PORT_LINK_DOWN_DEF_F, pi->link_down_default);
	mad_set_field(d, 0, IB_PORT_NEIGHBOR_MTU_F, pi->neighbor_mtu);
	mad_set_field(d, 0, IB_PORT_MTU_CAP_F, pi->mtu_cap);
}

static void smp_port_info_encode_vl(const struct smp_port_info *pi, uint8_t *d)
{
	mad_set_field(d, 0, IB_PORT_VL_CAP_F, pi->vl_cap);
	mad_set_field(d, 0, IB_PORT_INIT_TYPE_F, pi->init_type);
	mad_set_field(d, 0, IB_PORT_VL_HIGH_LIMIT_F, pi->vl_high_limit);
	mad_set_field(d, 0, IB_PORT_VL_ARBITRATION_HIGH_CAP_F, pi->vl_arb_high_cap);
	mad_set_field(d, 0, IB_PORT_VL_ARBITRATION_LOW_CAP_F, pi->vl_arb_low_cap);
	mad_set_field(d, 0, IB_PORT_INIT_TYPE_REPLY_F, pi->init_type_reply);
	mad_set_field(d, 0, IB_PORT_VL_STALL_COUNT_F, pi->vl_stall_count);
	mad_set_field(d, 0, IB_PORT_HOQ_LIFE_F, pi->hoq_life);
	mad_set_field(d, 0, IB_PORT_OPER_VLS_F, pi->oper_vls);
	mad_set_field(d, 0, IB_PORT_PART_EN_INB_F, pi->part_enf_inb & 1);
	mad_set_field(d, 0, IB_PORT_PART_EN_OUTB_F, pi->part_enf_outb & 1);
	mad_set_field(d, 0, IB_PORT_FILTER_RAW_INB_F, pi->filter_raw_inb & 1);
	mad_set_field(d, 0, IB_PORT_FILTER_RAW_OUTB_F, pi->filter_raw_outb & 1);
	mad_set_field(d, 0, IB_PORT_CLIENT_REREG_F, pi->client_rereg);
	mad_set_field(d, 0, IB_PORT_SUBN_TIMEOUT_F, pi->subnet_timeout);
	mad_set_field(d, 0, IB_PORT_RESP_TIME_VAL_F, pi->resp_time);
	mad_set_field(d, 0, IB_PORT_LOCAL_PHYS_ERR_F, pi->local_phys_err);
	mad_set_field(d, 0, IB_PORT_OVERRUN_ERR_F, pi->overrun_err);
}

/* Fields not in struct smp_port_info (violation counters, enforcement
 * bits, ...) are written as zero. */
void smp_port_info_encode(const struct smp_port_info *pi, uint8_t *data)
{
	memset(data, 0, SMP_DATA_SIZE);
	smp_port_info_encode_ids(pi, data);
	smp_port_info_encode_link(pi, data);
	smp_port_info_encode_vl(pi, data);
}

/* opt_sl2vl_mapping carries the 2-bit OptimizedSLtoVLMappingProgramming
 * field of byte 11 (IB_SW_OPT_SLTOVL_MAPPING_F). */
void smp_switch_info_decode(const uint8_t *data, struct smp_switch_info *si)
{
	uint8_t d[SMP_DATA_SIZE];

	memcpy(d, data, sizeof(d));
	memset(si, 0, sizeof(*si));
	si->linear_fdb_cap = mad_get_field(d, 0, IB_SW_LINEAR_FDB_CAP_F);
	si->random_fdb_cap = mad_get_field(d, 0, IB_SW_RANDOM_FDB_CAP_F);
	si->mcast_fdb_cap = mad_get_field(d, 0, IB_SW_MCAST_FDB_CAP_F);
	si->linear_fdb_top = mad_get_field(d, 0, IB_SW_LINEAR_FDB_TOP_F);
	si->default_port = mad_get_field(d, 0, IB_SW_DEF_PORT_F);
	si->default_mcast_primary = mad_get_field(d, 0, IB_SW_DEF_MCAST_PRIM_F);
	si->default_mcast_not_primary = mad_get_field(d, 0, IB_SW_DEF_MCAST_NOT_PRIM_F);
	si->life_time = mad_get_field(d, 0, IB_SW_LIFE_TIME_F);
	si->port_state_change = mad_get_field(d, 0, IB_SW_STATE_CHANGE_F);
	si->opt_sl2vl_mapping = mad_get_field(d, 0, IB_SW_OPT_SLTOVL_MAPPING_F);
	si->lids_per_port = mad_get_field(d, 0, IB_SW_LIDS_PER_PORT_F);
	si->partition_enforce_cap = mad_get_field(d, 0, IB_SW_PARTITION_ENFORCE_CAP_F);
	si->enhanced_port0 = mad_get_field(d, 0, IB_SW_ENHANCED_PORT0_F);
	si->mcast_fdb_top = mad_get_field(d, 0, IB_SW_MCAST_FDB_TOP_F);
}

void smp_switch_info_encode(const struct smp_switch_info *si, uint8_t *data)
{
	memset(data, 0, SMP_DATA_SIZE);
	mad_set_field(data, 0, IB_SW_LINEAR_FDB_CAP_F, si->linear_fdb_cap);
	mad_set_field(data, 0, IB_SW_RANDOM_FDB_CAP_F, si->random_fdb_cap);
	mad_set_field(data, 0, IB_SW_MCAST_FDB_CAP_F, si->mcast_fdb_cap);
	mad_set_field(data, 0, IB_SW_LINEAR_FDB_TOP_F, si->linear_fdb_top);
	mad_set_field(data, 0, IB_SW_DEF_PORT_F, si->default_port);
	mad_set_field(data, 0, IB_SW_DEF_MCAST_PRIM_F, si->default_mcast_primary);
	mad_set_field(data, 0, IB_SW_DEF_MCAST_NOT_PRIM_F, si->default_mcast_not_primary);
	mad_set_field(data, 0, IB_SW_LIFE_TIME_F, si->life_time);
	mad_set_field(data, 0, IB_SW_STATE_CHANGE_F, si->port_state_change);
	mad_set_field(data, 0, IB_SW_OPT_SLTOVL_MAPPING_F, si->opt_sl2vl_mapping);
	mad_set_field(data, 0, IB_SW_LIDS_PER_PORT_F, si->lids_per_port);
	mad_set_field(data, 0, IB_SW_PARTITION_ENFORCE_CAP_F, si->partition_enforce_cap);
	mad_set_field(data, 0, IB_SW_ENHANCED_PORT0_F, si->enhanced_port0);
	mad_set_field(data, 0, IB_SW_MCAST_FDB_TOP_F, si->mcast_fdb_top);
}

/* LinearForwardingTable block (IBA 14.2.5.10): 64 one-byte port numbers. */
void smp_lft_decode(const uint8_t *data, struct smp_lft_block *b)
{
	uint8_t d[SMP_DATA_SIZE];

	memcpy(d, data, sizeof(d));
	mad_get_array(d, 0, IB_LINEAR_FORW_TBL_F, b->port);
}

void smp_lft_encode(const struct smp_lft_block *b, uint8_t *data)
{
	uint8_t d[SMP_DATA_SIZE];

	memcpy(d, b->port, sizeof(d));
	mad_set_array(data, 0, IB_LINEAR_FORW_TBL_F, d);
}

void smp_sm_info_decode(const uint8_t *data, struct smp_sm_info *si)
{
	uint8_t d[SMP_DATA_SIZE];

	memcpy(d, data, sizeof(d));
	memset(si, 0, sizeof(*si));
	si->guid = mad_get_field64(d, 0, IB_SMINFO_GUID_F);
	si->sm_key = mad_get_field64(d, 0, IB_SMINFO_KEY_F);
	si->act_count = mad_get_field(d, 0, IB_SMINFO_ACT_F);
	si->priority = mad_get_field(d, 0, IB_SMINFO_PRIO_F);
	si->state = mad_get_field(d, 0, IB_SMINFO_STATE_F);
}

void smp_sm_info_encode(const struct smp_sm_info *si, uint8_t *data)
{
	memset(data, 0, SMP_DATA_SIZE);
	mad_set_field64(data, 0, IB_SMINFO_GUID_F, si->guid);
	mad_set_field64(data, 0, IB_SMINFO_KEY_F, si->sm_key);
	mad_set_field(data, 0, IB_SMINFO_ACT_F, si->act_count);
	mad_set_field(data, 0, IB_SMINFO_PRIO_F, si->priority);
	mad_set_field(data, 0, IB_SMINFO_STATE_F, si->state);
}

/* P_KeyTable block (IBA 14.2.5.7): libibmad has no field for it, so the
 * 32 entries are copied by hand as big-endian 16-bit words. */
void smp_pkey_decode(const uint8_t *data, struct smp_pkey_block *b)
{
	for (size_t i = 0; i < PKEY_BLOCK_SIZE; i++)
		b->pkey[i] = (uint16_t)(data[2 * i] << 8 | data[2 * i + 1]);
}

void smp_pkey_encode(const struct smp_pkey_block *b, uint8_t *data)
{
	for (size_t i = 0; i < PKEY_BLOCK_SIZE; i++) {
		data[2 * i] = b->pkey[i] >> 8;
		data[2 * i + 1] = b->pkey[i] & 0xff;
	}
}

/* SLtoVLMappingTable (IBA 14.2.5.8): libibmad's one 64-bit field holds
 * the 8 bytes; byte i carries SL 2i in its high nibble, SL 2i + 1 in its
 * low one. */
void smp_sl2vl_decode(const uint8_t *data, struct smp_sl2vl *t)
{
	uint8_t d[SMP_DATA_SIZE], b[SMP_SL2VL_SLS / 2];

	memcpy(d, data, sizeof(d));
	mad_get_array(d, 0, IB_SLTOVL_MAPPING_TABLE_F, b);
	for (unsigned i = 0; i < sizeof(b); i++) {
		t->vl[2 * i] = b[i] >> 4;
		t->vl[2 * i + 1] = b[i] & 0x0f;
	}
}

void smp_sl2vl_encode(const struct smp_sl2vl *t, uint8_t *data)
{
	uint8_t b[SMP_SL2VL_SLS / 2];

	for (unsigned i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)((t->vl[2 * i] & 0x0f) << 4 | (t->vl[2 * i + 1] & 0x0f));
	memset(data, 0, SMP_DATA_SIZE);
	mad_set_array(data, 0, IB_SLTOVL_MAPPING_TABLE_F, b);
}

unsigned smp_vls_count(uint8_t encoding)
{
	static const unsigned count[] = {0, 1, 2, 4, 8, 15};

	return encoding < sizeof(count) / sizeof(count[0]) ? count[encoding] : 0;
}

/* ---- Names ----------------------------------------------------------- */

const char *smp_attr_name(uint16_t attr_id)
{
	switch (attr_id) {
	case 0x0001: return "ClassPortInfo";
	case SMP_ATTR_NOTICE: return "Notice";
	case SMP_ATTR_NODE_DESC: return "NodeDescription";
	case SMP_ATTR_NODE_INFO: return "NodeInfo";
	case SMP_ATTR_SWITCH_INFO: return "SwitchInfo";
	case 0x0014: return "GUIDInfo";
	case SMP_ATTR_PORT_INFO: return "PortInfo";
	case SMP_ATTR_PKEY_TABLE: return "P_KeyTable";
	case SMP_ATTR_SL2VL:
		return "SLtoVLMappingTable";
	case 0x0018: return "VLArbitrationTable";
	case SMP_ATTR_LFT: return "LinearForwardingTable";
	case 0x001A: return "RandomForwardingTable";
	case 0x001B: return "MulticastForwardingTable";
	case SMP_ATTR_SM_INFO: return "SMInfo";
	case 0x0030: return "VendorDiag";
	case 0x0031: return "LedInfo";
	default: return "Unknown";
	}
}

const char *smp_port_state_name(uint8_t state)
{
	static const char *const names[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE" };

	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "UNKNOWN";
}

const char *smp_sm_state_name(uint8_t state)
{
	static const char *const names[] = { "NOTACTIVE", "DISCOVERING", "STANDBY", "MASTER" };

	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "UNKNOWN";
}

const char *smp_sm_info_mod_name(uint32_t mod)
{
	static const char *const names[] = { "NONE", "HANDOVER", "ACKNOWLEDGE", "DISABLE",
					     "STANDBY", "DISCOVER" };

	return mod < sizeof(names) / sizeof(names[0]) ? names[mod] : "UNKNOWN";
}

unsigned smp_mtu_bytes(uint8_t mtu)
{
	if (mtu < 1 || mtu > 5)
		return 0;
	return 128u << mtu;
}

const char *smp_path_str(const uint8_t *path, uint8_t hops, char *buf, size_t len)
{
	size_t off = 0;

	if (hops == 0) {
		snprintf(buf, len, "local");
		return buf;
	}
	buf[0] = '\0';
	for (uint8_t i = 1; i <= hops && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u", i > 1 ? "," : "", path[i]);
	return buf;
}

int smp_same_route(const uint8_t *a, uint8_t a_hops, const uint8_t *b, uint8_t b_hops)
{
	return a_hops == b_hops && memcmp(a + 1, b + 1, a_hops) == 0;
}
