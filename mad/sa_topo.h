/*
 * sa_topo.h - wire layout of the SA's topology records and the SA
 * ClassPortInfo (IBA 15.2.5.x, 13.4.8.1).
 *
 * DOC: One component table (struct sa_rec_desc) per record, in the spec's
 * ComponentMask order: bit i of a request's ComponentMask names comp[i].
 * Reserved components are kept (bits 0) so the numbering lines up; fields
 * wider than 64 bits (NodeDescription, an LFT or P_Key block) are byte
 * aligned and compared as bytes.  The encoders write one record of
 * desc.size bytes (padded to a multiple of 8, the AttributeOffset stride)
 * from plain values; embedded SMP attributes (PortInfo, SwitchInfo) are
 * copied from the 64 raw bytes the sweep read.  Pure: no I/O, no state.
 */
#ifndef NANOSM_MAD_SA_TOPO_H
#define NANOSM_MAD_SA_TOPO_H

#include <stdint.h>

#include "mad/sa.h"
#include "mad/smp.h"

/* Record sizes on the wire (spec size rounded up to 8 bytes). */
#define SA_TOPO_NODE_SIZE 112	 /* 108 */
#define SA_TOPO_PORTINFO_SIZE 72 /* 68 */
#define SA_TOPO_SWINFO_SIZE 72	 /* 68 */
#define SA_TOPO_LFT_SIZE 72
#define SA_TOPO_MFT_SIZE 72
#define SA_TOPO_SMINFO_SIZE 32	 /* 25 */
#define SA_TOPO_LINK_SIZE 8
#define SA_TOPO_GUIDINFO_SIZE 72
#define SA_TOPO_PKEY_SIZE 72
#define SA_TOPO_CPI_SIZE 72	 /* ClassPortInfo */

#define SA_TOPO_GUIDS_PER_BLOCK 8
#define SA_TOPO_PKEYS_PER_BLOCK 32
#define SA_TOPO_LIDS_PER_BLOCK 64
#define SA_TOPO_MLIDS_PER_BLOCK 32

/* NodeRecord components (IBA 15.2.5.2; NodeInfo 14.2.5.3). */
enum sa_topo_nr_comp {
	SA_TOPO_NR_LID,
	SA_TOPO_NR_RESV,
	SA_TOPO_NR_BASE_VERSION,
	SA_TOPO_NR_CLASS_VERSION,
	SA_TOPO_NR_NODE_TYPE,
	SA_TOPO_NR_NUM_PORTS,
	SA_TOPO_NR_SYS_GUID,
	SA_TOPO_NR_NODE_GUID,
	SA_TOPO_NR_PORT_GUID,
	SA_TOPO_NR_PARTITION_CAP,
	SA_TOPO_NR_DEVICE_ID,
	SA_TOPO_NR_REVISION,
	SA_TOPO_NR_LOCAL_PORT,
	SA_TOPO_NR_VENDOR_ID,
	SA_TOPO_NR_NODE_DESC,
	SA_TOPO_NR_N
};

/* PortInfoRecord components (IBA 15.2.5.3; PortInfo 14.2.5.6). */
enum sa_topo_pir_comp {
	SA_TOPO_PIR_ENDPORT_LID,
	SA_TOPO_PIR_PORT_NUM,
	SA_TOPO_PIR_OPTIONS,
	SA_TOPO_PIR_MKEY,
	SA_TOPO_PIR_GID_PREFIX,
	SA_TOPO_PIR_LID,
	SA_TOPO_PIR_SM_LID,
	SA_TOPO_PIR_CAP_MASK,
	SA_TOPO_PIR_DIAG_CODE,
	SA_TOPO_PIR_MKEY_LEASE,
	SA_TOPO_PIR_LOCAL_PORT,
	SA_TOPO_PIR_WIDTH_ENABLED,
	SA_TOPO_PIR_WIDTH_SUPPORTED,
	SA_TOPO_PIR_WIDTH_ACTIVE,
	SA_TOPO_PIR_SPEED_SUPPORTED,
	SA_TOPO_PIR_STATE,
	SA_TOPO_PIR_PHYS_STATE,
	SA_TOPO_PIR_DOWN_DEFAULT,
	SA_TOPO_PIR_MKEY_PROT,
	SA_TOPO_PIR_RESV1,
	SA_TOPO_PIR_LMC,
	SA_TOPO_PIR_SPEED_ACTIVE,
	SA_TOPO_PIR_SPEED_ENABLED,
	SA_TOPO_PIR_NEIGHBOR_MTU,
	SA_TOPO_PIR_SM_SL,
	SA_TOPO_PIR_VL_CAP,
	SA_TOPO_PIR_INIT_TYPE,
	SA_TOPO_PIR_VL_HIGH_LIMIT,
	SA_TOPO_PIR_VL_ARB_HIGH_CAP,
	SA_TOPO_PIR_VL_ARB_LOW_CAP,
	SA_TOPO_PIR_INIT_TYPE_REPLY,
	SA_TOPO_PIR_MTU_CAP,
	SA_TOPO_PIR_VL_STALL_COUNT,
	SA_TOPO_PIR_HOQ_LIFE,
	SA_TOPO_PIR_OPER_VLS,
	SA_TOPO_PIR_PART_ENF_IN,
	SA_TOPO_PIR_PART_ENF_OUT,
	SA_TOPO_PIR_FILTER_RAW_IN,
	SA_TOPO_PIR_FILTER_RAW_OUT,
	SA_TOPO_PIR_MKEY_VIOL,
	SA_TOPO_PIR_PKEY_VIOL,
	SA_TOPO_PIR_QKEY_VIOL,
	SA_TOPO_PIR_GUID_CAP,
	SA_TOPO_PIR_CLIENT_REREG,
	SA_TOPO_PIR_MCAST_PKEY_SUPPR,
	SA_TOPO_PIR_SUBNET_TIMEOUT,
	SA_TOPO_PIR_RESV2,
	SA_TOPO_PIR_RESP_TIME,
	SA_TOPO_PIR_LOCAL_PHYS_ERR,
	SA_TOPO_PIR_OVERRUN_ERR,
	SA_TOPO_PIR_MAX_CREDIT_HINT,
	SA_TOPO_PIR_RESV3,
	SA_TOPO_PIR_LINK_RTT,
	SA_TOPO_PIR_CAP_MASK2,
	SA_TOPO_PIR_SPEED_EXT_ACTIVE,
	SA_TOPO_PIR_SPEED_EXT_SUPPORTED,
	SA_TOPO_PIR_RESV4,
	SA_TOPO_PIR_SPEED_EXT_ENABLED,
	SA_TOPO_PIR_N
};

/* SwitchInfoRecord components (IBA 15.2.5.4; SwitchInfo 14.2.5.4). */
enum sa_topo_swr_comp {
	SA_TOPO_SWR_LID,
	SA_TOPO_SWR_RESV,
	SA_TOPO_SWR_LFT_CAP,
	SA_TOPO_SWR_RFT_CAP,
	SA_TOPO_SWR_MFT_CAP,
	SA_TOPO_SWR_LFT_TOP,
	SA_TOPO_SWR_DEFAULT_PORT,
	SA_TOPO_SWR_DEF_MCAST_PRIMARY,
	SA_TOPO_SWR_DEF_MCAST_NOT_PRIMARY,
	SA_TOPO_SWR_LIFE_TIME,
	SA_TOPO_SWR_PORT_STATE_CHANGE,
	SA_TOPO_SWR_OPT_SL2VL,
	SA_TOPO_SWR_LIDS_PER_PORT,
	SA_TOPO_SWR_PART_ENF_CAP,
	SA_TOPO_SWR_IN_ENF_CAP,
	SA_TOPO_SWR_OUT_ENF_CAP,
	SA_TOPO_SWR_FILTER_RAW_IN_CAP,
	SA_TOPO_SWR_FILTER_RAW_OUT_CAP,
	SA_TOPO_SWR_ENHANCED_PORT0,
	SA_TOPO_SWR_RESV2,
	SA_TOPO_SWR_MFT_TOP,
	SA_TOPO_SWR_N
};

/* LinearForwardingTableRecord components (IBA 15.2.5.6). */
enum sa_topo_lftr_comp {
	SA_TOPO_LFTR_LID,
	SA_TOPO_LFTR_BLOCK,
	SA_TOPO_LFTR_RESV,
	SA_TOPO_LFTR_TABLE,
	SA_TOPO_LFTR_N
};

/* MulticastForwardingTableRecord components (IBA 15.2.5, its own table;
 * MulticastForwardingTable 14.2.5.12): Position says which 16 ports the
 * masks cover, BlockNum which 32 MLIDs from 0xC000. */
enum sa_topo_mftr_comp {
	SA_TOPO_MFTR_LID,
	SA_TOPO_MFTR_POSITION,
	SA_TOPO_MFTR_RESV1,
	SA_TOPO_MFTR_BLOCK,
	SA_TOPO_MFTR_RESV2,
	SA_TOPO_MFTR_TABLE,
	SA_TOPO_MFTR_N
};

/* SMInfoRecord components (IBA 15.2.5.8; SMInfo 14.2.5.13). */
enum sa_topo_smr_comp {
	SA_TOPO_SMR_LID,
	SA_TOPO_SMR_RESV,
	SA_TOPO_SMR_GUID,
	SA_TOPO_SMR_SM_KEY,
	SA_TOPO_SMR_ACT_COUNT,
	SA_TOPO_SMR_PRIORITY,
	SA_TOPO_SMR_STATE,
	SA_TOPO_SMR_N
};

/* LinkRecord components (IBA 15.2.5.13). */
enum sa_topo_lr_comp {
	SA_TOPO_LR_FROM_LID,
	SA_TOPO_LR_FROM_PORT,
	SA_TOPO_LR_TO_PORT,
	SA_TOPO_LR_TO_LID,
	SA_TOPO_LR_RESV,
	SA_TOPO_LR_N
};

/* GUIDInfoRecord components (IBA 15.2.5.18; GUIDInfo 14.2.5.5). */
enum sa_topo_gir_comp {
	SA_TOPO_GIR_LID,
	SA_TOPO_GIR_BLOCK,
	SA_TOPO_GIR_RESV1,
	SA_TOPO_GIR_RESV2,
	SA_TOPO_GIR_GUID0, /* .. GUID7 = GUID0 + 7 */
	SA_TOPO_GIR_N = SA_TOPO_GIR_GUID0 + SA_TOPO_GUIDS_PER_BLOCK
};

/* P_KeyTableRecord components (IBA 15.2.5.11; P_KeyTable 14.2.5.7). */
enum sa_topo_pkr_comp {
	SA_TOPO_PKR_LID,
	SA_TOPO_PKR_BLOCK,
	SA_TOPO_PKR_PORT_NUM,
	SA_TOPO_PKR_RESV,
	SA_TOPO_PKR_TABLE,
	SA_TOPO_PKR_N
};

extern const struct sa_rec_desc sa_topo_node_desc;
extern const struct sa_rec_desc sa_topo_portinfo_desc;
extern const struct sa_rec_desc sa_topo_swinfo_desc;
extern const struct sa_rec_desc sa_topo_lft_desc;
extern const struct sa_rec_desc sa_topo_mft_desc;
extern const struct sa_rec_desc sa_topo_sminfo_desc;
extern const struct sa_rec_desc sa_topo_link_desc;
extern const struct sa_rec_desc sa_topo_guidinfo_desc;
extern const struct sa_rec_desc sa_topo_pkey_desc;

/* The table of a topology record attribute, NULL for any other. */
const struct sa_rec_desc *sa_topo_desc(uint16_t attr_id);

/* Encoders: each writes exactly its record's size (padding zeroed). */
void sa_topo_node_encode(uint8_t *rec, uint16_t lid, const struct smp_node_info *ni,
			 const char *desc);
/* pi: 64 raw PortInfo bytes (copied as they are). */
void sa_topo_portinfo_encode(uint8_t *rec, uint16_t endport_lid, uint8_t port_num,
			     const uint8_t pi[SMP_DATA_SIZE]);
/* si: 64 raw SwitchInfo bytes (copied as they are). */
void sa_topo_swinfo_encode(uint8_t *rec, uint16_t lid, const uint8_t si[SMP_DATA_SIZE]);
void sa_topo_lft_encode(uint8_t *rec, uint16_t lid, uint16_t block,
			const uint8_t port[SA_TOPO_LIDS_PER_BLOCK]);
/* masks: the block's 32 port masks (MLID 0xC000 + 32 * block + i), host
 * order; written big-endian.  position 4 bits, block 9 bits. */
void sa_topo_mft_encode(uint8_t *rec, uint16_t lid, uint8_t position, uint16_t block,
			const uint16_t masks[SA_TOPO_MLIDS_PER_BLOCK]);
void sa_topo_sminfo_encode(uint8_t *rec, uint16_t lid, const struct smp_sm_info *si);

struct sa_topo_link {
	uint16_t from_lid;
	uint8_t from_port, to_port;
	uint16_t to_lid;
};
void sa_topo_link_encode(uint8_t *rec, const struct sa_topo_link *l);
void sa_topo_guidinfo_encode(uint8_t *rec, uint16_t lid, uint8_t block,
			     const uint64_t guid[SA_TOPO_GUIDS_PER_BLOCK]);
void sa_topo_pkey_encode(uint8_t *rec, uint16_t lid, uint16_t block, uint8_t port_num,
			 const uint16_t pkey[SA_TOPO_PKEYS_PER_BLOCK]);

/* SA ClassPortInfo (IBA 13.4.8.1, SA capability bits 15.2.1.1). */
#define SA_CAP_UD_MCAST (1u << 9) /* IsUDMulticastSupported */

struct sa_topo_cpi {
	uint16_t cap_mask;
	uint32_t cap_mask2; /* 27 bits */
	uint8_t resp_time;  /* RespTimeValue, 5 bits */
};
/* BaseVersion 1, ClassVersion 2, no redirection (RedirectLID 0,
 * RedirectQP 1, RedirectQ_Key 0x80010000), TrapQ_Key 0x80010000. */
void sa_topo_cpi_encode(uint8_t *rec, const struct sa_topo_cpi *c);

#endif
