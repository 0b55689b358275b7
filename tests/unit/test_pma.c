/*
 * test_pma.c - unit tests for mad/pma.c: PortCounters,
 * PortCountersExtended and ClassPortInfo decoded from bytes laid out by
 * hand at the spec's offsets (IBA 16.1.3.5, 16.1.4.11, 13.4.8.1), encode
 * round trips, saturation of narrow counters on encode, the header's
 * checks, and the Get / clear requests as they go on the wire.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <string.h>

#include "mad/pma.h"
#include "tests/unit/unit.h"

static void tp_be(uint8_t *p, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

static void test_pma_counters_decode(void)
{
	uint8_t d[PMA_DATA_SIZE] = {0};
	struct pma_counters pc;

	d[1] = 7;		      /* PortSelect */
	tp_be(d + 2, 0xabcd, 2);      /* CounterSelect */
	tp_be(d + 4, 500, 2);	      /* SymbolErrorCounter */
	d[6] = 3;		      /* LinkErrorRecoveryCounter */
	d[7] = 2;		      /* LinkDownedCounter */
	tp_be(d + 8, 11, 2);	      /* PortRcvErrors */
	tp_be(d + 10, 12, 2);	      /* PortRcvRemotePhysicalErrors */
	tp_be(d + 12, 13, 2);	      /* PortRcvSwitchRelayErrors */
	tp_be(d + 14, 14, 2);	      /* PortXmitDiscards */
	d[16] = 15;		      /* PortXmitConstraintErrors */
	d[17] = 16;		      /* PortRcvConstraintErrors */
	d[19] = 0x5a;		      /* LocalLinkIntegrity 5, ExcessiveBufferOverrun 10 */
	tp_be(d + 22, 17, 2);	      /* VL15Dropped */
	tp_be(d + 24, 0x11223344, 4); /* PortXmitData */
	tp_be(d + 28, 0xfffffffe, 4); /* PortRcvData */
	tp_be(d + 32, 1000, 4);	      /* PortXmitPkts */
	tp_be(d + 36, 2000, 4);	      /* PortRcvPkts */
	tp_be(d + 40, 77, 4);	      /* PortXmitWait */
	pma_counters_decode(d, &pc);
	CU_ASSERT_EQUAL(pc.port_select, 7);
	CU_ASSERT_EQUAL(pc.counter_select, 0xabcd);
	CU_ASSERT_EQUAL(pc.v[PMA_SYMBOL_ERRORS], 500);
	CU_ASSERT_EQUAL(pc.v[PMA_LINK_ERROR_RECOVERY], 3);
	CU_ASSERT_EQUAL(pc.v[PMA_LINK_DOWNED], 2);
	CU_ASSERT_EQUAL(pc.v[PMA_RCV_ERRORS], 11);
	CU_ASSERT_EQUAL(pc.v[PMA_RCV_REMOTE_PHYS_ERRORS], 12);
	CU_ASSERT_EQUAL(pc.v[PMA_RCV_SWITCH_RELAY_ERRORS], 13);
	CU_ASSERT_EQUAL(pc.v[PMA_XMIT_DISCARDS], 14);
	CU_ASSERT_EQUAL(pc.v[PMA_XMIT_CONSTRAINT_ERRORS], 15);
	CU_ASSERT_EQUAL(pc.v[PMA_RCV_CONSTRAINT_ERRORS], 16);
	CU_ASSERT_EQUAL(pc.v[PMA_LOCAL_LINK_INTEGRITY_ERRORS], 5);
	CU_ASSERT_EQUAL(pc.v[PMA_EXCESSIVE_BUFFER_OVERRUN], 10);
	CU_ASSERT_EQUAL(pc.v[PMA_VL15_DROPPED], 17);
	CU_ASSERT_EQUAL(pc.v[PMA_XMIT_DATA], 0x11223344);
	CU_ASSERT_EQUAL(pc.v[PMA_RCV_DATA], 0xfffffffe);
	CU_ASSERT_EQUAL(pc.v[PMA_XMIT_PKTS], 1000);
	CU_ASSERT_EQUAL(pc.v[PMA_RCV_PKTS], 2000);
	CU_ASSERT_EQUAL(pc.v[PMA_XMIT_WAIT], 77);
}

static void test_pma_counters_roundtrip(void)
{
	struct pma_counters pc = {.port_select = 3, .counter_select = 0x1234}, back;
	uint8_t d[PMA_DATA_SIZE];

	for (unsigned i = 0; i < PMA_N_CTR; i++) {
		CU_ASSERT(pma_ctr_bits(i) >= 4 && pma_ctr_bits(i) <= 32);
		CU_ASSERT_STRING_NOT_EQUAL(pma_ctr_name(i), "?");
		pc.v[i] = i + 1;
	}
	pma_counters_encode(&pc, d);
	pma_counters_decode(d, &back);
	CU_ASSERT_EQUAL(memcmp(&pc.v, &back.v, sizeof(pc.v)), 0);
	CU_ASSERT_EQUAL(back.port_select, 3);
	/* too big for the field: all ones, as a saturated counter reads */
	pc.v[PMA_LINK_DOWNED] = 1000;
	pc.v[PMA_XMIT_DATA] = 1ull << 40;
	pma_counters_encode(&pc, d);
	pma_counters_decode(d, &back);
	CU_ASSERT_EQUAL(back.v[PMA_LINK_DOWNED], 0xff);
	CU_ASSERT_EQUAL(back.v[PMA_XMIT_DATA], 0xffffffffu);
	CU_ASSERT_EQUAL(pma_ctr_bits(PMA_N_CTR), 0);
	CU_ASSERT_STRING_EQUAL(pma_ctr_name(PMA_N_CTR), "?");
}

static void test_pma_ext_and_cpi(void)
{
	uint8_t d[PMA_DATA_SIZE] = {0};
	struct pma_counters_ext e, e2;
	struct pma_class_port_info cpi, cpi2;

	d[1] = 9;
	tp_be(d + 8, 0x0102030405060708ull, 8);	 /* PortXmitData */
	tp_be(d + 16, 0x1112131415161718ull, 8); /* PortRcvData */
	tp_be(d + 24, 42, 8);			 /* PortXmitPkts */
	tp_be(d + 32, 43, 8);			 /* PortRcvPkts */
	tp_be(d + 64, 44, 8);			 /* PortMulticastRcvPkts */
	pma_counters_ext_decode(d, &e);
	CU_ASSERT_EQUAL(e.port_select, 9);
	CU_ASSERT_EQUAL(e.xmit_data, 0x0102030405060708ull);
	CU_ASSERT_EQUAL(e.rcv_data, 0x1112131415161718ull);
	CU_ASSERT_EQUAL(e.xmit_pkts, 42);
	CU_ASSERT_EQUAL(e.rcv_pkts, 43);
	CU_ASSERT_EQUAL(e.rcv_mcast, 44);
	pma_counters_ext_encode(&e, d);
	pma_counters_ext_decode(d, &e2);
	CU_ASSERT_EQUAL(memcmp(&e, &e2, sizeof(e)), 0);

	memset(d, 0, sizeof(d));
	d[0] = 1;
	d[1] = 1;
	tp_be(d + 2, PMA_CAP_EXT_WIDTH | PMA_CAP_XMIT_WAIT, 2);
	tp_be(d + 4, (0x12u << 5) | 18, 4); /* CapabilityMask2, RespTimeValue */
	pma_cpi_decode(d, &cpi);
	CU_ASSERT_EQUAL(cpi.base_version, 1);
	CU_ASSERT_EQUAL(cpi.class_version, 1);
	CU_ASSERT_EQUAL(cpi.cap_mask, PMA_CAP_EXT_WIDTH | PMA_CAP_XMIT_WAIT);
	CU_ASSERT_EQUAL(cpi.cap_mask2, 0x12);
	CU_ASSERT_EQUAL(cpi.resp_time, 18);
	pma_cpi_encode(&cpi, d);
	pma_cpi_decode(d, &cpi2);
	CU_ASSERT_EQUAL(memcmp(&cpi, &cpi2, sizeof(cpi)), 0);
}

static void test_pma_header(void)
{
	struct pma_mad m, back;
	uint8_t buf[PMA_MAD_SIZE];

	pma_init_get(&m, PMA_ATTR_PORT_COUNTERS, 5);
	m.tid = 0x0000000100000002ull;
	CU_ASSERT_EQUAL(pma_encode(&m, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(buf[0], 1);	/* BaseVersion */
	CU_ASSERT_EQUAL(buf[1], 0x04);	/* MgmtClass */
	CU_ASSERT_EQUAL(buf[2], 1);	/* ClassVersion */
	CU_ASSERT_EQUAL(buf[3], 0x01);	/* Get */
	CU_ASSERT_EQUAL(buf[16], 0x00); /* AttributeID 0x0012 */
	CU_ASSERT_EQUAL(buf[17], 0x12);
	CU_ASSERT_EQUAL(buf[64 + 1], 5); /* PortSelect */
	CU_ASSERT_EQUAL(buf[15], 2);	 /* TID, low byte */
	CU_ASSERT_EQUAL(pma_encode(&m, buf, sizeof(buf) - 1), -EINVAL);

	buf[3] = 0x81;
	buf[4] = 0x00;
	buf[5] = 0x0c; /* a status */
	CU_ASSERT_EQUAL(pma_decode(buf, sizeof(buf), &back), 0);
	CU_ASSERT_EQUAL(back.method, PMA_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(back.status, 0x0c);
	CU_ASSERT_EQUAL(back.tid, m.tid);
	CU_ASSERT_EQUAL(back.attr_id, PMA_ATTR_PORT_COUNTERS);
	CU_ASSERT_EQUAL(pma_decode(buf, sizeof(buf) - 1, &back), -EINVAL);
	buf[1] = 0x03;
	CU_ASSERT_EQUAL(pma_decode(buf, sizeof(buf), &back), -EINVAL);
	buf[1] = 0x04;
	buf[2] = 2;
	CU_ASSERT_EQUAL(pma_decode(buf, sizeof(buf), &back), -EINVAL);
	buf[2] = 1;
	buf[0] = 2;
	CU_ASSERT_EQUAL(pma_decode(buf, sizeof(buf), &back), -EINVAL);
}

static void test_pma_clear(void)
{
	struct pma_mad m;
	uint8_t buf[PMA_MAD_SIZE];

	pma_init_clear(&m, 4);
	CU_ASSERT_EQUAL(pma_encode(&m, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(buf[3], 0x02);
	CU_ASSERT_EQUAL(buf[64 + 1], 4);
	CU_ASSERT_EQUAL(buf[64 + 2], 0xff); /* CounterSelect */
	CU_ASSERT_EQUAL(buf[64 + 3], 0xff);
	CU_ASSERT_EQUAL(buf[64 + 18], 0xff); /* CounterSelect2 */
	for (unsigned i = 4; i < 64; i++)
		if (i != 18)
			CU_ASSERT_EQUAL(buf[64 + i], 0); /* the counters' new value */
	pma_init_get(&m, PMA_ATTR_PORT_COUNTERS_EXT, 6);
	CU_ASSERT_EQUAL(m.data[1], 6);
	pma_init_get(&m, PMA_ATTR_CLASS_PORT_INFO, 6);
	CU_ASSERT_EQUAL(m.data[1], 0);
}

void test_pma_register(void)
{
	CU_pSuite s = CU_add_suite("pma", NULL, NULL);

	CU_add_test(s, "PortCounters at the spec's offsets", test_pma_counters_decode);
	CU_add_test(s, "PortCounters round trip, saturation on encode",
		    test_pma_counters_roundtrip);
	CU_add_test(s, "PortCountersExtended and ClassPortInfo", test_pma_ext_and_cpi);
	CU_add_test(s, "header checks", test_pma_header);
	CU_add_test(s, "clear and Get requests", test_pma_clear);
}
