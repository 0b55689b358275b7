/*
 * fuzz_pma.c - libFuzzer target for mad/pma.c: any bytes are decoded as a
 * PerfMgt MAD; one that decodes must encode back to the same 256 bytes
 * (but the class-specific and reserved bytes, which encode writes as 0),
 * and each
 * attribute codec must round-trip what it decoded from the payload.
 */
#include <stdint.h>
#include <string.h>

#include "mad/pma.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_PMA_CHECK(cond)                                                                       \
	do {                                                                                       \
		if (!(cond))                                                                       \
			__builtin_trap();                                                          \
	} while (0)

static void fuzz_pma_attrs(const uint8_t *payload)
{
	struct pma_counters pc, pc2;
	struct pma_counters_ext e, e2;
	struct pma_class_port_info c, c2;
	uint8_t d[PMA_DATA_SIZE];

	pma_counters_decode(payload, &pc);
	for (unsigned i = 0; i < PMA_N_CTR; i++)
		FUZZ_PMA_CHECK(pc.v[i] < (1ull << pma_ctr_bits(i)));
	pma_counters_encode(&pc, d);
	pma_counters_decode(d, &pc2);
	FUZZ_PMA_CHECK(memcmp(pc.v, pc2.v, sizeof(pc.v)) == 0);
	pma_counters_ext_decode(payload, &e);
	pma_counters_ext_encode(&e, d);
	pma_counters_ext_decode(d, &e2);
	FUZZ_PMA_CHECK(memcmp(&e, &e2, sizeof(e)) == 0);
	pma_cpi_decode(payload, &c);
	pma_cpi_encode(&c, d);
	pma_cpi_decode(d, &c2);
	FUZZ_PMA_CHECK(memcmp(&c, &c2, sizeof(c)) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pma_mad m;
	uint8_t back[PMA_MAD_SIZE];

	if (pma_decode(data, size, &m) < 0) {
		FUZZ_PMA_CHECK(size < PMA_MAD_SIZE || data[0] != 1 || data[1] != PMA_CLASS ||
			       data[2] != PMA_CLASS_VERSION);
		return 0;
	}
	FUZZ_PMA_CHECK(pma_encode(&m, back, sizeof(back)) == 0);
	/* the header but its class-specific (6-7) and reserved (18-19) bytes */
	FUZZ_PMA_CHECK(memcmp(back, data, 6) == 0 && memcmp(back + 8, data + 8, 10) == 0 &&
		       memcmp(back + 20, data + 20, 4) == 0);
	FUZZ_PMA_CHECK(memcmp(back + 64, data + 64, PMA_DATA_SIZE) == 0);
	fuzz_pma_attrs(m.data);
	return 0;
}
