/*
 * fuzz_guid2lid.c - libFuzzer target for the guid2lid parser
 * (sm/core/guid2lid.c, guid2lid_parse_map): any bytes in, no crash, no leak,
 * and the result is self-consistent (good mappings unique, in range, and
 * good + bad = mapping lines).  Touches no file.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "routing/fabric.h"
#include "sm/core/guid2lid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_guid2lid_check(const struct guid2lid_map *m)
{
	if (m->n > m->lines || m->bad > m->lines || m->n_diag > GUID2LID_MAX_DIAG ||
	    (m->unusable && m->why[0] == '\0'))
		abort();
	for (size_t i = 0; i < m->n; i++) {
		const struct guid2lid_entry *e = &m->e[i];

		if (e->guid == 0 || e->lid < LID_UNICAST_MIN || e->lid > LID_UNICAST_MAX ||
		    (i > 0 && e->line <= m->e[i - 1].line))
			abort();
		for (size_t j = 0; j < i; j++)
			if (m->e[j].guid == e->guid || m->e[j].lid == e->lid)
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct guid2lid_map *m = malloc(sizeof(*m));

	if (!m)
		return 0;
	if (guid2lid_parse_map((const char *)data, size, "fuzz", m) == 0)
		fuzz_guid2lid_check(m);
	guid2lid_map_fini(m);
	free(m);
	return 0;
}
