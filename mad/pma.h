/*
 * pma.h - Performance Management (class 0x04) MAD codecs: the GMP header,
 * ClassPortInfo, PortCounters and PortCountersExtended (IBA 16.1).
 *
 * DOC: Pure codecs on libibmad's field tables (IB_PC_*, IB_PC_EXT_*,
 * IB_CPI_*).  A PerfMgt MAD is the 24-byte common MAD header, 40 reserved
 * bytes and 192 bytes of attribute data (IBA 16.1.1).  PortCounters'
 * fields are kept in one array indexed by enum pma_ctr, each with its
 * width (pma_ctr_bits): the 32-bit data and packet counters and the
 * narrower error counters saturate (stop at all ones) rather than wrap.
 * Data counters count 4-byte words.  Decoders reject short buffers and
 * wrong base/class/version with -EINVAL and never read past the buffer.
 */
#ifndef NANOSM_MAD_PMA_H
#define NANOSM_MAD_PMA_H

#include <stddef.h>
#include <stdint.h>

#define PMA_CLASS 0x04
#define PMA_CLASS_VERSION 1
#define PMA_MAD_SIZE 256
#define PMA_DATA_OFFSET 64
#define PMA_DATA_SIZE 192
#define PMA_QKEY 0x80010000u /* GSI (QP1) well-known Q_Key */

enum pma_method {
	PMA_METHOD_GET = 0x01,
	PMA_METHOD_SET = 0x02,
	PMA_METHOD_GET_RESP = 0x81,
};

enum pma_attr {
	PMA_ATTR_CLASS_PORT_INFO = 0x0001,
	PMA_ATTR_PORT_COUNTERS = 0x0012,
	PMA_ATTR_PORT_COUNTERS_EXT = 0x001d,
};

/* ClassPortInfo.CapabilityMask bits of the PerfMgt class (IBA 16.1.2). */
#define PMA_CAP_EXT_WIDTH (1u << 9)	    /* PortCountersExtended, all counters */
#define PMA_CAP_EXT_WIDTH_NOIETF (1u << 10) /* PortCountersExtended, data/packets only */
#define PMA_CAP_XMIT_WAIT (1u << 12)	    /* PortCounters.PortXmitWait is counted */

/* One PerfMgt MAD, decoded: the header and the raw attribute bytes. */
struct pma_mad {
	uint8_t method; /* enum pma_method (bit 7: response) */
	uint16_t status;
	uint64_t tid;
	uint16_t attr_id;
	uint32_t attr_mod;
	uint8_t data[PMA_DATA_SIZE];
};

/* Header codec: encode writes PMA_MAD_SIZE bytes (-EINVAL when len is
 * short); decode needs PMA_MAD_SIZE bytes, base version 1, class 0x04 and
 * class version 1, else -EINVAL. */
int pma_encode(const struct pma_mad *m, uint8_t *buf, size_t len);
int pma_decode(const uint8_t *buf, size_t len, struct pma_mad *m);

/* The PortCounters counters (IBA 16.1.3.5), in the order of the spec. */
enum pma_ctr {
	PMA_SYMBOL_ERRORS,
	PMA_LINK_ERROR_RECOVERY,
	PMA_LINK_DOWNED,
	PMA_RCV_ERRORS,
	PMA_RCV_REMOTE_PHYS_ERRORS,
	PMA_RCV_SWITCH_RELAY_ERRORS,
	PMA_XMIT_DISCARDS,
	PMA_XMIT_CONSTRAINT_ERRORS,
	PMA_RCV_CONSTRAINT_ERRORS,
	PMA_LOCAL_LINK_INTEGRITY_ERRORS,
	PMA_EXCESSIVE_BUFFER_OVERRUN,
	PMA_VL15_DROPPED,
	PMA_XMIT_DATA, /* 4-byte words */
	PMA_RCV_DATA,  /* 4-byte words */
	PMA_XMIT_PKTS,
	PMA_RCV_PKTS,
	PMA_XMIT_WAIT,
	PMA_N_CTR,
};

struct pma_counters {
	uint8_t port_select;
	uint16_t counter_select;
	uint8_t counter_select2;
	uint64_t v[PMA_N_CTR];
};

/* The 64-bit PortCountersExtended (IBA 16.1.4.11). */
struct pma_counters_ext {
	uint8_t port_select;
	uint16_t counter_select;
	uint64_t xmit_data, rcv_data, xmit_pkts, rcv_pkts; /* data in 4-byte words */
	uint64_t xmit_ucast, rcv_ucast, xmit_mcast, rcv_mcast;
};

struct pma_class_port_info {
	uint8_t base_version, class_version;
	uint16_t cap_mask;
	uint32_t cap_mask2;
	uint8_t resp_time;
};

/* Width in bits of counter c (4 to 32); 0 for an unknown c. */
unsigned pma_ctr_bits(enum pma_ctr c);
/* The spec's name of counter c ("SymbolErrorCounter"), "?" if unknown. */
const char *pma_ctr_name(enum pma_ctr c);

/* Attribute codecs on the 192 data bytes (pma_mad.data). */
void pma_counters_decode(const uint8_t *data, struct pma_counters *pc);
void pma_counters_encode(const struct pma_counters *pc, uint8_t *data);
void pma_counters_ext_decode(const uint8_t *data, struct pma_counters_ext *pce);
void pma_counters_ext_encode(const struct pma_counters_ext *pce, uint8_t *data);
void pma_cpi_decode(const uint8_t *data, struct pma_class_port_info *cpi);
void pma_cpi_encode(const struct pma_class_port_info *cpi, uint8_t *data);

/* A Get of attr for port (PortSelect; ignored by ClassPortInfo). */
void pma_init_get(struct pma_mad *m, uint16_t attr, uint8_t port);
/* A PortCounters Set that clears every counter of port (CounterSelect and
 * CounterSelect2 all ones, the counters 0). */
void pma_init_clear(struct pma_mad *m, uint8_t port);

#endif
