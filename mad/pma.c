/*
 * pma.c - PerfMgt (class 0x04) header and attribute codecs on libibmad's
 * field tables.  Owns the mapping between wire bytes and struct pma_*; no
 * state, no I/O, never reads or writes outside the given buffers.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/mad.h>

#include "mad/pma.h"

#define PMA_BASE_VERSION 1
#define PMA_RESPONSE_BIT 0x80

/* libibmad's field of each counter, its width and its spec name. */
static const struct {
	enum MAD_FIELDS field;
	unsigned bits;
	const char *name;
} pma_ctr_table[PMA_N_CTR] = {
    [PMA_SYMBOL_ERRORS] = {IB_PC_ERR_SYM_F, 16, "SymbolErrorCounter"},
    [PMA_LINK_ERROR_RECOVERY] = {IB_PC_LINK_RECOVERS_F, 8, "LinkErrorRecoveryCounter"},
    [PMA_LINK_DOWNED] = {IB_PC_LINK_DOWNED_F, 8, "LinkDownedCounter"},
    [PMA_RCV_ERRORS] = {IB_PC_ERR_RCV_F, 16, "PortRcvErrors"},
    [PMA_RCV_REMOTE_PHYS_ERRORS] = {IB_PC_ERR_PHYSRCV_F, 16, "PortRcvRemotePhysicalErrors"},
    [PMA_RCV_SWITCH_RELAY_ERRORS] = {IB_PC_ERR_SWITCH_REL_F, 16, "PortRcvSwitchRelayErrors"},
    [PMA_XMIT_DISCARDS] = {IB_PC_XMT_DISCARDS_F, 16, "PortXmitDiscards"},
    [PMA_XMIT_CONSTRAINT_ERRORS] = {IB_PC_ERR_XMTCONSTR_F, 8, "PortXmitConstraintErrors"},
    [PMA_RCV_CONSTRAINT_ERRORS] = {IB_PC_ERR_RCVCONSTR_F, 8, "PortRcvConstraintErrors"},
    [PMA_LOCAL_LINK_INTEGRITY_ERRORS] = {IB_PC_ERR_LOCALINTEG_F, 4, "LocalLinkIntegrityErrors"},
    [PMA_EXCESSIVE_BUFFER_OVERRUN] = {IB_PC_ERR_EXCESS_OVR_F, 4, "ExcessiveBufferOverrunErrors"},
    [PMA_VL15_DROPPED] = {IB_PC_VL15_DROPPED_F, 16, "VL15Dropped"},
    [PMA_XMIT_DATA] = {IB_PC_XMT_BYTES_F, 32, "PortXmitData"},
    [PMA_RCV_DATA] = {IB_PC_RCV_BYTES_F, 32, "PortRcvData"},
    [PMA_XMIT_PKTS] = {IB_PC_XMT_PKTS_F, 32, "PortXmitPkts"},
    [PMA_RCV_PKTS] = {IB_PC_RCV_PKTS_F, 32, "PortRcvPkts"},
    [PMA_XMIT_WAIT] = {IB_PC_XMT_WAIT_F, 32, "PortXmitWait"},
};

unsigned pma_ctr_bits(enum pma_ctr c)
{
	return (unsigned)c < PMA_N_CTR ? pma_ctr_table[c].bits : 0;
}

const char *pma_ctr_name(enum pma_ctr c)
{
	return (unsigned)c < PMA_N_CTR ? pma_ctr_table[c].name : "?";
}

/* ---- header (IBA 13.4.3, 16.1.1) ---- */

int pma_encode(const struct pma_mad *m, uint8_t *buf, size_t len)
{
	uint8_t mad[PMA_MAD_SIZE] = {0};

	if (!m || !buf || len < PMA_MAD_SIZE)
		return -EINVAL;
	mad_set_field(mad, 0, IB_MAD_BASEVER_F, PMA_BASE_VERSION);
	mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, PMA_CLASS);
	mad_set_field(mad, 0, IB_MAD_CLASSVER_F, PMA_CLASS_VERSION);
	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, (m->method & PMA_RESPONSE_BIT) ? 1 : 0);
	mad_set_field(mad, 0, IB_MAD_METHOD_F, m->method & ~PMA_RESPONSE_BIT);
	mad_set_field(mad, 0, IB_MAD_STATUS_F, m->status);
	mad_set_field64(mad, 0, IB_MAD_TRID_F, m->tid);
	mad_set_field(mad, 0, IB_MAD_ATTRID_F, m->attr_id);
	mad_set_field(mad, 0, IB_MAD_ATTRMOD_F, m->attr_mod);
	memcpy(mad + PMA_DATA_OFFSET, m->data, PMA_DATA_SIZE);
	memcpy(buf, mad, PMA_MAD_SIZE);
	return 0;
}

int pma_decode(const uint8_t *buf, size_t len, struct pma_mad *m)
{
	uint8_t mad[PMA_MAD_SIZE];

	if (!buf || !m || len < PMA_MAD_SIZE)
		return -EINVAL;
	memcpy(mad, buf, PMA_MAD_SIZE); /* libibmad's getters take non-const */
	if (mad_get_field(mad, 0, IB_MAD_BASEVER_F) != PMA_BASE_VERSION ||
	    mad_get_field(mad, 0, IB_MAD_MGMTCLASS_F) != PMA_CLASS ||
	    mad_get_field(mad, 0, IB_MAD_CLASSVER_F) != PMA_CLASS_VERSION)
		return -EINVAL;
	m->method = (uint8_t)mad_get_field(mad, 0, IB_MAD_METHOD_F);
	if (mad_get_field(mad, 0, IB_MAD_RESPONSE_F))
		m->method |= PMA_RESPONSE_BIT;
	m->status = (uint16_t)mad_get_field(mad, 0, IB_MAD_STATUS_F);
	m->tid = mad_get_field64(mad, 0, IB_MAD_TRID_F);
	m->attr_id = (uint16_t)mad_get_field(mad, 0, IB_MAD_ATTRID_F);
	m->attr_mod = mad_get_field(mad, 0, IB_MAD_ATTRMOD_F);
	memcpy(m->data, mad + PMA_DATA_OFFSET, PMA_DATA_SIZE);
	return 0;
}

/* ---- attributes ---- */

void pma_counters_decode(const uint8_t *data, struct pma_counters *pc)
{
	uint8_t d[PMA_DATA_SIZE];

	memcpy(d, data, sizeof(d));
	memset(pc, 0, sizeof(*pc));
	pc->port_select = (uint8_t)mad_get_field(d, 0, IB_PC_PORT_SELECT_F);
	pc->counter_select = (uint16_t)mad_get_field(d, 0, IB_PC_COUNTER_SELECT_F);
	pc->counter_select2 = (uint8_t)mad_get_field(d, 0, IB_PC_COUNTER_SELECT2_F);
	for (unsigned i = 0; i < PMA_N_CTR; i++)
		pc->v[i] = mad_get_field(d, 0, pma_ctr_table[i].field);
}

void pma_counters_encode(const struct pma_counters *pc, uint8_t *data)
{
	memset(data, 0, PMA_DATA_SIZE);
	mad_set_field(data, 0, IB_PC_PORT_SELECT_F, pc->port_select);
	mad_set_field(data, 0, IB_PC_COUNTER_SELECT_F, pc->counter_select);
	mad_set_field(data, 0, IB_PC_COUNTER_SELECT2_F, pc->counter_select2);
	for (unsigned i = 0; i < PMA_N_CTR; i++) {
		uint64_t max = (1ull << pma_ctr_table[i].bits) - 1;

		mad_set_field(data, 0, pma_ctr_table[i].field,
			      (uint32_t)(pc->v[i] > max ? max : pc->v[i]));
	}
}

void pma_counters_ext_decode(const uint8_t *data, struct pma_counters_ext *pce)
{
	uint8_t d[PMA_DATA_SIZE];

	memcpy(d, data, sizeof(d));
	memset(pce, 0, sizeof(*pce));
	pce->port_select = (uint8_t)mad_get_field(d, 0, IB_PC_EXT_PORT_SELECT_F);
	pce->counter_select = (uint16_t)mad_get_field(d, 0, IB_PC_EXT_COUNTER_SELECT_F);
	pce->xmit_data = mad_get_field64(d, 0, IB_PC_EXT_XMT_BYTES_F);
	pce->rcv_data = mad_get_field64(d, 0, IB_PC_EXT_RCV_BYTES_F);
	pce->xmit_pkts = mad_get_field64(d, 0, IB_PC_EXT_XMT_PKTS_F);
	pce->rcv_pkts = mad_get_field64(d, 0, IB_PC_EXT_RCV_PKTS_F);
	pce->xmit_ucast = mad_get_field64(d, 0, IB_PC_EXT_XMT_UPKTS_F);
	pce->rcv_ucast = mad_get_field64(d, 0, IB_PC_EXT_RCV_UPKTS_F);
	pce->xmit_mcast = mad_get_field64(d, 0, IB_PC_EXT_XMT_MPKTS_F);
	pce->rcv_mcast = mad_get_field64(d, 0, IB_PC_EXT_RCV_MPKTS_F);
}

void pma_counters_ext_encode(const struct pma_counters_ext *pce, uint8_t *data)
{
	memset(data, 0, PMA_DATA_SIZE);
	mad_set_field(data, 0, IB_PC_EXT_PORT_SELECT_F, pce->port_select);
	mad_set_field(data, 0, IB_PC_EXT_COUNTER_SELECT_F, pce->counter_select);
	mad_set_field64(data, 0, IB_PC_EXT_XMT_BYTES_F, pce->xmit_data);
	mad_set_field64(data, 0, IB_PC_EXT_RCV_BYTES_F, pce->rcv_data);
	mad_set_field64(data, 0, IB_PC_EXT_XMT_PKTS_F, pce->xmit_pkts);
	mad_set_field64(data, 0, IB_PC_EXT_RCV_PKTS_F, pce->rcv_pkts);
	mad_set_field64(data, 0, IB_PC_EXT_XMT_UPKTS_F, pce->xmit_ucast);
	mad_set_field64(data, 0, IB_PC_EXT_RCV_UPKTS_F, pce->rcv_ucast);
	mad_set_field64(data, 0, IB_PC_EXT_XMT_MPKTS_F, pce->xmit_mcast);
	mad_set_field64(data, 0, IB_PC_EXT_RCV_MPKTS_F, pce->rcv_mcast);
}

void pma_cpi_decode(const uint8_t *data, struct pma_class_port_info *cpi)
{
	uint8_t d[PMA_DATA_SIZE];

	memcpy(d, data, sizeof(d));
	memset(cpi, 0, sizeof(*cpi));
	cpi->base_version = (uint8_t)mad_get_field(d, 0, IB_CPI_BASEVER_F);
	cpi->class_version = (uint8_t)mad_get_field(d, 0, IB_CPI_CLASSVER_F);
	cpi->cap_mask = (uint16_t)mad_get_field(d, 0, IB_CPI_CAPMASK_F);
	cpi->cap_mask2 = mad_get_field(d, 0, IB_CPI_CAPMASK2_F);
	cpi->resp_time = (uint8_t)mad_get_field(d, 0, IB_CPI_RESP_TIME_VALUE_F);
}

void pma_cpi_encode(const struct pma_class_port_info *cpi, uint8_t *data)
{
	memset(data, 0, PMA_DATA_SIZE);
	mad_set_field(data, 0, IB_CPI_BASEVER_F, cpi->base_version);
	mad_set_field(data, 0, IB_CPI_CLASSVER_F, cpi->class_version);
	mad_set_field(data, 0, IB_CPI_CAPMASK_F, cpi->cap_mask);
	mad_set_field(data, 0, IB_CPI_CAPMASK2_F, cpi->cap_mask2);
	mad_set_field(data, 0, IB_CPI_RESP_TIME_VALUE_F, cpi->resp_time);
}

void pma_init_get(struct pma_mad *m, uint16_t attr, uint8_t port)
{
	memset(m, 0, sizeof(*m));
	m->method = PMA_METHOD_GET;
	m->attr_id = attr;
	if (attr == PMA_ATTR_PORT_COUNTERS)
		mad_set_field(m->data, 0, IB_PC_PORT_SELECT_F, port);
	else if (attr == PMA_ATTR_PORT_COUNTERS_EXT)
		mad_set_field(m->data, 0, IB_PC_EXT_PORT_SELECT_F, port);
}

void pma_init_clear(struct pma_mad *m, uint8_t port)
{
	struct pma_counters pc = {
	    .port_select = port, .counter_select = 0xffff, .counter_select2 = 0xff};

	memset(m, 0, sizeof(*m));
	m->method = PMA_METHOD_SET;
	m->attr_id = PMA_ATTR_PORT_COUNTERS;
	pma_counters_encode(&pc, m->data);
}
