/*
 * sa_topo.c - component tables and encoders of the SA topology records
 * (Node, PortInfo, SwitchInfo, LFT, MFT, SMInfo, Link, GUIDInfo, P_KeyTable)
 * and the SA ClassPortInfo.  Owns their wire layout only: which records
 * exist and what goes in them is sm/sa/records.c's business.
 */
#include "mad/sa_topo.h"

#include <string.h>

#include <infiniband/mad.h>

/* Offsets are bits from the MSB of the record's byte 0, as the spec's
 * figures count; an embedded attribute starts at its record offset. */
#define SA_TOPO_RESERVED(bit) { (bit), 0 }

/* ---- NodeRecord: LID, reserved, NodeInfo at bit 32, NodeDescription at
 * bit 352 (IBA 15.2.5.2, NodeInfo layout 14.2.5.3) ---------------------- */
static const struct sa_field sa_topo_node_comp[SA_TOPO_NR_N] = {
	[SA_TOPO_NR_LID] = { 0, 16 },
	[SA_TOPO_NR_RESV] = SA_TOPO_RESERVED(16),
	[SA_TOPO_NR_BASE_VERSION] = { 32, 8 },
	[SA_TOPO_NR_CLASS_VERSION] = { 40, 8 },
	[SA_TOPO_NR_NODE_TYPE] = { 48, 8 },
	[SA_TOPO_NR_NUM_PORTS] = { 56, 8 },
	[SA_TOPO_NR_SYS_GUID] = { 64, 64 },
	[SA_TOPO_NR_NODE_GUID] = { 128, 64 },
	[SA_TOPO_NR_PORT_GUID] = { 192, 64 },
	[SA_TOPO_NR_PARTITION_CAP] = { 256, 16 },
	[SA_TOPO_NR_DEVICE_ID] = { 272, 16 },
	[SA_TOPO_NR_REVISION] = { 288, 32 },
	[SA_TOPO_NR_LOCAL_PORT] = { 320, 8 },
	[SA_TOPO_NR_VENDOR_ID] = { 328, 24 },
	[SA_TOPO_NR_NODE_DESC] = { 352, 512 },
};

const struct sa_rec_desc sa_topo_node_desc = {
	SA_ATTR_NODE_RECORD, SA_TOPO_NODE_SIZE, "NodeRecord", sa_topo_node_comp, SA_TOPO_NR_N,
};

/* ---- PortInfoRecord: EndportLID, PortNum, Options (a request modifier,
 * never matched), PortInfo at bit 32 (IBA 15.2.5.3, PortInfo 14.2.5.6) -- */
static const struct sa_field sa_topo_portinfo_comp[SA_TOPO_PIR_N] = {
	[SA_TOPO_PIR_ENDPORT_LID] = { 0, 16 },
	[SA_TOPO_PIR_PORT_NUM] = { 16, 8 },
	[SA_TOPO_PIR_OPTIONS] = SA_TOPO_RESERVED(24),
	[SA_TOPO_PIR_MKEY] = { 32, 64 },
	[SA_TOPO_PIR_GID_PREFIX] = { 96, 64 },
	[SA_TOPO_PIR_LID] = { 160, 16 },
	[SA_TOPO_PIR_SM_LID] = { 176, 16 },
	[SA_TOPO_PIR_CAP_MASK] = { 192, 32 },
	[SA_TOPO_PIR_DIAG_CODE] = { 224, 16 },
	[SA_TOPO_PIR_MKEY_LEASE] = { 240, 16 },
	[SA_TOPO_PIR_LOCAL_PORT] = { 256, 8 },
	[SA_TOPO_PIR_WIDTH_ENABLED] = { 264, 8 },
	[SA_TOPO_PIR_WIDTH_SUPPORTED] = { 272, 8 },
	[SA_TOPO_PIR_WIDTH_ACTIVE] = { 280, 8 },
	[SA_TOPO_PIR_SPEED_SUPPORTED] = { 288, 4 },
	[SA_TOPO_PIR_STATE] = { 292, 4 },
	[SA_TOPO_PIR_PHYS_STATE] = { 296, 4 },
	[SA_TOPO_PIR_DOWN_DEFAULT] = { 300, 4 },
	[SA_TOPO_PIR_MKEY_PROT] = { 304, 2 },
	[SA_TOPO_PIR_RESV1] = SA_TOPO_RESERVED(306),
	[SA_TOPO_PIR_LMC] = { 309, 3 },
	[SA_TOPO_PIR_SPEED_ACTIVE] = { 312, 4 },
	[SA_TOPO_PIR_SPEED_ENABLED] = { 316, 4 },
	[SA_TOPO_PIR_NEIGHBOR_MTU] = { 320, 4 },
	[SA_TOPO_PIR_SM_SL] = { 324, 4 },
	[SA_TOPO_PIR_VL_CAP] = { 328, 4 },
	[SA_TOPO_PIR_INIT_TYPE] = { 332, 4 },
	[SA_TOPO_PIR_VL_HIGH_LIMIT] = { 336, 8 },
	[SA_TOPO_PIR_VL_ARB_HIGH_CAP] = { 344, 8 },
	[SA_TOPO_PIR_VL_ARB_LOW_CAP] = { 352, 8 },
	[SA_TOPO_PIR_INIT_TYPE_REPLY] = { 360, 4 },
	[SA_TOPO_PIR_MTU_CAP] = { 364, 4 },
	[SA_TOPO_PIR_VL_STALL_COUNT] = { 368, 3 },
	[SA_TOPO_PIR_HOQ_LIFE] = { 371, 5 },
	[SA_TOPO_PIR_OPER_VLS] = { 376, 4 },
	[SA_TOPO_PIR_PART_ENF_IN] = { 380, 1 },
	[SA_TOPO_PIR_PART_ENF_OUT] = { 381, 1 },
	[SA_TOPO_PIR_FILTER_RAW_IN] = { 382, 1 },
	[SA_TOPO_PIR_FILTER_RAW_OUT] = { 383, 1 },
	[SA_TOPO_PIR_MKEY_VIOL] = { 384, 16 },
	[SA_TOPO_PIR_PKEY_VIOL] = { 400, 16 },
	[SA_TOPO_PIR_QKEY_VIOL] = { 416, 16 },
	[SA_TOPO_PIR_GUID_CAP] = { 432, 8 },
	[SA_TOPO_PIR_CLIENT_REREG] = { 440, 1 },
	[SA_TOPO_PIR_MCAST_PKEY_SUPPR] = { 441, 2 },
	[SA_TOPO_PIR_SUBNET_TIMEOUT] = { 443, 5 },
	[SA_TOPO_PIR_RESV2] = SA_TOPO_RESERVED(448),
	[SA_TOPO_PIR_RESP_TIME] = { 451, 5 },
	[SA_TOPO_PIR_LOCAL_PHYS_ERR] = { 456, 4 },
	[SA_TOPO_PIR_OVERRUN_ERR] = { 460, 4 },
	[SA_TOPO_PIR_MAX_CREDIT_HINT] = { 464, 16 },
	[SA_TOPO_PIR_RESV3] = SA_TOPO_RESERVED(480),
	[SA_TOPO_PIR_LINK_RTT] = { 488, 24 },
	[SA_TOPO_PIR_CAP_MASK2] = { 512, 16 },
	[SA_TOPO_PIR_SPEED_EXT_ACTIVE] = { 528, 4 },
	[SA_TOPO_PIR_SPEED_EXT_SUPPORTED] = { 532, 4 },
	[SA_TOPO_PIR_RESV4] = SA_TOPO_RESERVED(536),
	[SA_TOPO_PIR_SPEED_EXT_ENABLED] = { 539, 5 },
};

const struct sa_rec_desc sa_topo_portinfo_desc = {
	SA_ATTR_PORTINFO_RECORD, SA_TOPO_PORTINFO_SIZE, "PortInfoRecord", sa_topo_portinfo_comp,
	SA_TOPO_PIR_N,
};

/* ---- SwitchInfoRecord: LID, reserved, SwitchInfo at bit 32
 * (IBA 15.2.5.4, SwitchInfo layout 14.2.5.4) ----------------------------- */
static const struct sa_field sa_topo_swinfo_comp[SA_TOPO_SWR_N] = {
	[SA_TOPO_SWR_LID] = { 0, 16 },
	[SA_TOPO_SWR_RESV] = SA_TOPO_RESERVED(16),
	[SA_TOPO_SWR_LFT_CAP] = { 32, 16 },
	[SA_TOPO_SWR_RFT_CAP] = { 48, 16 },
	[SA_TOPO_SWR_MFT_CAP] = { 64, 16 },
	[SA_TOPO_SWR_LFT_TOP] = { 80, 16 },
	[SA_TOPO_SWR_DEFAULT_PORT] = { 96, 8 },
	[SA_TOPO_SWR_DEF_MCAST_PRIMARY] = { 104, 8 },
	[SA_TOPO_SWR_DEF_MCAST_NOT_PRIMARY] = { 112, 8 },
	[SA_TOPO_SWR_LIFE_TIME] = { 120, 5 },
	[SA_TOPO_SWR_PORT_STATE_CHANGE] = { 125, 1 },
	[SA_TOPO_SWR_OPT_SL2VL] = { 126, 2 },
	[SA_TOPO_SWR_LIDS_PER_PORT] = { 128, 16 },
	[SA_TOPO_SWR_PART_ENF_CAP] = { 144, 16 },
	[SA_TOPO_SWR_IN_ENF_CAP] = { 160, 1 },
	[SA_TOPO_SWR_OUT_ENF_CAP] = { 161, 1 },
	[SA_TOPO_SWR_FILTER_RAW_IN_CAP] = { 162, 1 },
	[SA_TOPO_SWR_FILTER_RAW_OUT_CAP] = { 163, 1 },
	[SA_TOPO_SWR_ENHANCED_PORT0] = { 164, 1 },
	[SA_TOPO_SWR_RESV2] = SA_TOPO_RESERVED(165),
	[SA_TOPO_SWR_MFT_TOP] = { 176, 16 }, /* after 11 reserved bits */
};

const struct sa_rec_desc sa_topo_swinfo_desc = {
	SA_ATTR_SWITCHINFO_RECORD, SA_TOPO_SWINFO_SIZE, "SwitchInfoRecord", sa_topo_swinfo_comp,
	SA_TOPO_SWR_N,
};

/* ---- LinearForwardingTableRecord: LID, BlockNum, 32 reserved bits, one
 * 64-entry LFT block at bit 64 (IBA 15.2.5.6) ----------------------------- */
static const struct sa_field sa_topo_lft_comp[SA_TOPO_LFTR_N] = {
	[SA_TOPO_LFTR_LID] = { 0, 16 },
	[SA_TOPO_LFTR_BLOCK] = { 16, 16 },
	[SA_TOPO_LFTR_RESV] = SA_TOPO_RESERVED(32),
	[SA_TOPO_LFTR_TABLE] = { 64, 512 },
};

const struct sa_rec_desc sa_topo_lft_desc = {
	SA_ATTR_LFT_RECORD, SA_TOPO_LFT_SIZE, "LFTRecord", sa_topo_lft_comp, SA_TOPO_LFTR_N,
};

/* ---- MulticastForwardingTableRecord: LID, Position (4), 3 reserved bits,
 * BlockNum (9), 32 reserved bits, one block of 32 16-bit port masks at
 * bit 64 (IBA 15.2.5, MulticastForwardingTableRecord); 72 bytes, no
 * padding.  libibmad has no fields for it. ------------------------------- */
static const struct sa_field sa_topo_mft_comp[SA_TOPO_MFTR_N] = {
	[SA_TOPO_MFTR_LID] = { 0, 16 },
	[SA_TOPO_MFTR_POSITION] = { 16, 4 },
	[SA_TOPO_MFTR_RESV1] = SA_TOPO_RESERVED(20),
	[SA_TOPO_MFTR_BLOCK] = { 23, 9 },
	[SA_TOPO_MFTR_RESV2] = SA_TOPO_RESERVED(32),
	[SA_TOPO_MFTR_TABLE] = { 64, 512 },
};

const struct sa_rec_desc sa_topo_mft_desc = {
	SA_ATTR_MFT_RECORD, SA_TOPO_MFT_SIZE, "MFTRecord", sa_topo_mft_comp, SA_TOPO_MFTR_N,
};

/* ---- SMInfoRecord: LID, reserved, SMInfo at bit 32 (IBA 15.2.5.8,
 * SMInfo layout 14.2.5.13); 25 bytes padded to 32 ---------------------- */
static const struct sa_field sa_topo_sminfo_comp[SA_TOPO_SMR_N] = {
	[SA_TOPO_SMR_LID] = { 0, 16 },
	[SA_TOPO_SMR_RESV] = SA_TOPO_RESERVED(16),
	[SA_TOPO_SMR_GUID] = { 32, 64 },
	[SA_TOPO_SMR_SM_KEY] = { 96, 64 },
	[SA_TOPO_SMR_ACT_COUNT] = { 160, 32 },
	[SA_TOPO_SMR_PRIORITY] = { 192, 4 },
	[SA_TOPO_SMR_STATE] = { 196, 4 },
};

const struct sa_rec_desc sa_topo_sminfo_desc = {
	SA_ATTR_SMINFO_RECORD, SA_TOPO_SMINFO_SIZE, "SMInfoRecord", sa_topo_sminfo_comp,
	SA_TOPO_SMR_N,
};

/* ---- LinkRecord (IBA 15.2.5.13) ------------------------------------------ */
static const struct sa_field sa_topo_link_comp[SA_TOPO_LR_N] = {
	[SA_TOPO_LR_FROM_LID] = { 0, 16 },
	[SA_TOPO_LR_FROM_PORT] = { 16, 8 },
	[SA_TOPO_LR_TO_PORT] = { 24, 8 },
	[SA_TOPO_LR_TO_LID] = { 32, 16 },
	[SA_TOPO_LR_RESV] = SA_TOPO_RESERVED(48),
};

const struct sa_rec_desc sa_topo_link_desc = {
	SA_ATTR_LINK_RECORD, SA_TOPO_LINK_SIZE, "LinkRecord", sa_topo_link_comp, SA_TOPO_LR_N,
};

/* ---- GUIDInfoRecord: LID, BlockNum (8 bits), 8 + 32 reserved bits, eight
 * GUIDs from bit 64 (IBA 15.2.5.18) --------------------------------------- */
#define SA_TOPO_GIR_GUID(i) [SA_TOPO_GIR_GUID0 + (i)] = { 64 + 64 * (i), 64 }
static const struct sa_field sa_topo_guidinfo_comp[SA_TOPO_GIR_N] = {
	[SA_TOPO_GIR_LID] = { 0, 16 },
	[SA_TOPO_GIR_BLOCK] = { 16, 8 },
	[SA_TOPO_GIR_RESV1] = SA_TOPO_RESERVED(24),
	[SA_TOPO_GIR_RESV2] = SA_TOPO_RESERVED(32),
	SA_TOPO_GIR_GUID(0), SA_TOPO_GIR_GUID(1), SA_TOPO_GIR_GUID(2), SA_TOPO_GIR_GUID(3),
	SA_TOPO_GIR_GUID(4), SA_TOPO_GIR_GUID(5), SA_TOPO_GIR_GUID(6), SA_TOPO_GIR_GUID(7),
};

const struct sa_rec_desc sa_topo_guidinfo_desc = {
	SA_ATTR_GUIDINFO_RECORD, SA_TOPO_GUIDINFO_SIZE, "GUIDInfoRecord", sa_topo_guidinfo_comp,
	SA_TOPO_GIR_N,
};

/* ---- P_KeyTableRecord: LID, BlockNum (16), PortNum (8), 24 reserved bits,
 * one 32-entry P_Key block at bit 64 (IBA 15.2.5.11) ---------------------- */
static const struct sa_field sa_topo_pkey_comp[SA_TOPO_PKR_N] = {
	[SA_TOPO_PKR_LID] = { 0, 16 },
	[SA_TOPO_PKR_BLOCK] = { 16, 16 },
	[SA_TOPO_PKR_PORT_NUM] = { 32, 8 },
	[SA_TOPO_PKR_RESV] = SA_TOPO_RESERVED(40),
	[SA_TOPO_PKR_TABLE] = { 64, 512 },
};

const struct sa_rec_desc sa_topo_pkey_desc = {
	SA_ATTR_PKEY_TABLE_RECORD, SA_TOPO_PKEY_SIZE, "P_KeyTableRecord", sa_topo_pkey_comp,
	SA_TOPO_PKR_N,
};

const struct sa_rec_desc *sa_topo_desc(uint16_t attr_id)
{
	static const struct sa_rec_desc *const all[] = {
		&sa_topo_node_desc, &sa_topo_portinfo_desc, &sa_topo_swinfo_desc,
		&sa_topo_lft_desc,  &sa_topo_mft_desc,	    &sa_topo_sminfo_desc,
		&sa_topo_link_desc, &sa_topo_guidinfo_desc, &sa_topo_pkey_desc,
	};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i]->attr_id == attr_id)
			return all[i];
	return NULL;
}

/* ---- encoders --------------------------------------------------------------- */

void sa_topo_node_encode(uint8_t *rec, uint16_t lid, const struct smp_node_info *ni,
			 const char *desc)
{
	uint8_t text[64] = { 0 };

	memset(rec, 0, SA_TOPO_NODE_SIZE);
	if (desc)
		memcpy(text, desc, strnlen(desc, sizeof(text)));
	mad_set_field(rec, 0, IB_SA_NR_LID_F, lid);
	mad_set_field(rec, 0, IB_SA_NR_BASEVER_F, ni->base_version);
	mad_set_field(rec, 0, IB_SA_NR_CLASSVER_F, ni->class_version);
	mad_set_field(rec, 0, IB_SA_NR_TYPE_F, ni->node_type);
	mad_set_field(rec, 0, IB_SA_NR_NPORTS_F, ni->num_ports);
	mad_set_field64(rec, 0, IB_SA_NR_SYSTEM_GUID_F, ni->system_guid);
	mad_set_field64(rec, 0, IB_SA_NR_GUID_F, ni->node_guid);
	mad_set_field64(rec, 0, IB_SA_NR_PORT_GUID_F, ni->port_guid);
	mad_set_field(rec, 0, IB_SA_NR_PARTITION_CAP_F, ni->partition_cap);
	mad_set_field(rec, 0, IB_SA_NR_DEVID_F, ni->device_id);
	mad_set_field(rec, 0, IB_SA_NR_REVISION_F, ni->revision);
	mad_set_field(rec, 0, IB_SA_NR_LOCAL_PORT_F, ni->local_port);
	mad_set_field(rec, 0, IB_SA_NR_VENDORID_F, ni->vendor_id);
	mad_set_array(rec, 0, IB_SA_NR_NODEDESC_F, text);
}

/* Byte offset of an embedded attribute: the component's bit offset / 8. */
static size_t sa_topo_byte(const struct sa_rec_desc *d, unsigned comp)
{
	return d->comp[comp].bit / 8;
}

void sa_topo_portinfo_encode(uint8_t *rec, uint16_t endport_lid, uint8_t port_num,
			     const uint8_t pi[SMP_DATA_SIZE])
{
	const struct sa_rec_desc *d = &sa_topo_portinfo_desc;

	memset(rec, 0, d->size);
	sa_put(rec, &d->comp[SA_TOPO_PIR_ENDPORT_LID], endport_lid);
	sa_put(rec, &d->comp[SA_TOPO_PIR_PORT_NUM], port_num);
	memcpy(rec + sa_topo_byte(d, SA_TOPO_PIR_MKEY), pi, SMP_DATA_SIZE);
}

void sa_topo_swinfo_encode(uint8_t *rec, uint16_t lid, const uint8_t si[SMP_DATA_SIZE])
{
	const struct sa_rec_desc *d = &sa_topo_swinfo_desc;

	memset(rec, 0, d->size);
	sa_put(rec, &d->comp[SA_TOPO_SWR_LID], lid);
	memcpy(rec + sa_topo_byte(d, SA_TOPO_SWR_LFT_CAP), si, SMP_DATA_SIZE);
}

void sa_topo_lft_encode(uint8_t *rec, uint16_t lid, uint16_t block,
			const uint8_t port[SA_TOPO_LIDS_PER_BLOCK])
{
	const struct sa_rec_desc *d = &sa_topo_lft_desc;

	memset(rec, 0, d->size);
	sa_put(rec, &d->comp[SA_TOPO_LFTR_LID], lid);
	sa_put(rec, &d->comp[SA_TOPO_LFTR_BLOCK], block);
	memcpy(rec + sa_topo_byte(d, SA_TOPO_LFTR_TABLE), port, SA_TOPO_LIDS_PER_BLOCK);
}

void sa_topo_mft_encode(uint8_t *rec, uint16_t lid, uint8_t position, uint16_t block,
			const uint16_t masks[SA_TOPO_MLIDS_PER_BLOCK])
{
	const struct sa_rec_desc *d = &sa_topo_mft_desc;
	const struct sa_field *table = &d->comp[SA_TOPO_MFTR_TABLE];

	memset(rec, 0, d->size);
	sa_put(rec, &d->comp[SA_TOPO_MFTR_LID], lid);
	sa_put(rec, &d->comp[SA_TOPO_MFTR_POSITION], position & 0xfu);
	sa_put(rec, &d->comp[SA_TOPO_MFTR_BLOCK], block & 0x1ffu);
	for (unsigned i = 0; i < SA_TOPO_MLIDS_PER_BLOCK; i++) {
		struct sa_field entry = { (uint16_t)(table->bit + 16 * i), 16 };

		sa_put(rec, &entry, masks[i]);
	}
}

/* SMInfo through libibmad's IB_SMINFO_* table, at the record's bit 32. */
void sa_topo_sminfo_encode(uint8_t *rec, uint16_t lid, const struct smp_sm_info *si)
{
	const struct sa_rec_desc *d = &sa_topo_sminfo_desc;
	int base = (int)sa_topo_byte(d, SA_TOPO_SMR_GUID);

	memset(rec, 0, d->size);
	sa_put(rec, &d->comp[SA_TOPO_SMR_LID], lid);
	mad_set_field64(rec, base, IB_SMINFO_GUID_F, si->guid);
	mad_set_field64(rec, base, IB_SMINFO_KEY_F, si->sm_key);
	mad_set_field(rec, base, IB_SMINFO_ACT_F, si->act_count);
	mad_set_field(rec, base, IB_SMINFO_PRIO_F, si->priority);
	mad_set_field(rec, base, IB_SMINFO_STATE_F, si->state);
}

void sa_topo_link_encode(uint8_t *rec, const struct sa_topo_link *l)
{
	const struct sa_rec_desc *d = &sa_topo_link_desc;

	memset(rec, 0, d->size);
	sa_put(rec, &d->comp[SA_TOPO_LR_FROM_LID], l->from_lid);
	sa_put(rec, &d->comp[SA_TOPO_LR_FROM_PORT], l->from_port);
	sa_put(rec, &d->comp[SA_TOPO_LR_TO_PORT], l->to_port);
	sa_put(rec, &d->comp[SA_TOPO_LR_TO_LID], l->to_lid);
}

void sa_topo_guidinfo_encode(uint8_t *rec, uint16_t lid, uint8_t block,
			     const uint64_t guid[SA_TOPO_GUIDS_PER_BLOCK])
{
	memset(rec, 0, SA_TOPO_GUIDINFO_SIZE);
	mad_set_field(rec, 0, IB_SA_GIR_LID_F, lid);
	mad_set_field(rec, 0, IB_SA_GIR_BLOCKNUM_F, block);
	for (unsigned i = 0; i < SA_TOPO_GUIDS_PER_BLOCK; i++)
		mad_set_field64(rec, 0, (enum MAD_FIELDS)(IB_SA_GIR_GUID0_F + i), guid[i]);
}

void sa_topo_pkey_encode(uint8_t *rec, uint16_t lid, uint16_t block, uint8_t port_num,
			 const uint16_t pkey[SA_TOPO_PKEYS_PER_BLOCK])
{
	const struct sa_rec_desc *d = &sa_topo_pkey_desc;
	const struct sa_field *table = &d->comp[SA_TOPO_PKR_TABLE];

	memset(rec, 0, d->size);
	sa_put(rec, &d->comp[SA_TOPO_PKR_LID], lid);
	sa_put(rec, &d->comp[SA_TOPO_PKR_BLOCK], block);
	sa_put(rec, &d->comp[SA_TOPO_PKR_PORT_NUM], port_num);
	for (unsigned i = 0; i < SA_TOPO_PKEYS_PER_BLOCK; i++) {
		struct sa_field entry = { (uint16_t)(table->bit + 16 * i), 16 };

		sa_put(rec, &entry, pkey[i]);
	}
}

void sa_topo_cpi_encode(uint8_t *rec, const struct sa_topo_cpi *c)
{
	memset(rec, 0, SA_TOPO_CPI_SIZE);
	mad_set_field(rec, 0, IB_CPI_BASEVER_F, 1);
	mad_set_field(rec, 0, IB_CPI_CLASSVER_F, SA_CLASS_VERSION);
	mad_set_field(rec, 0, IB_CPI_CAPMASK_F, c->cap_mask);
	mad_set_field(rec, 0, IB_CPI_CAPMASK2_F, c->cap_mask2 & 0x7ffffffu);
	mad_set_field(rec, 0, IB_CPI_RESP_TIME_VALUE_F, c->resp_time & 0x1fu);
	mad_set_field(rec, 0, IB_CPI_REDIRECT_QP_F, 1);
	mad_set_field(rec, 0, IB_CPI_REDIRECT_QKEY_F, SA_QKEY);
	mad_set_field(rec, 0, IB_CPI_TRAP_QKEY_F, SA_QKEY);
}
