/*
 * fuzz_topo.c - libFuzzer target for routing/topo_file.c: topo_parse on
 * arbitrary text.  A fabric it accepts must be well formed (links
 * symmetric, ports in range, GUIDs findable) and must print
 * (routing/topo_write.c) as text topo_parse reads back to the same nodes
 * and links; a refused one leaves the fabric empty and says why.
 * Touches nothing but the parser, the writer and the fabric model.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "routing/topo_file.h"
#include "routing/topo_write.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_TOPO_CHECK(cond)                                                                  \
	do {                                                                                   \
		if (!(cond))                                                                   \
			__builtin_trap();                                                      \
	} while (0)

/* Every link is seen from both ends; every port number is in range. */
static void fuzz_topo_check_fabric(const struct fabric *f)
{
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *n = &f->nodes[i];

		FUZZ_TOPO_CHECK(n->num_ports <= FABRIC_MAX_PORTS);
		FUZZ_TOPO_CHECK(n->desc[sizeof(n->desc) - 1] == '\0');
		FUZZ_TOPO_CHECK(fabric_find(f, n->guid) == (int)i);
		for (unsigned p = 0; p <= n->num_ports; p++) {
			const struct fabric_port *pt = &n->ports[p];
			const struct fabric_node *r;

			if (pt->remote_node == FABRIC_NONE)
				continue;
			FUZZ_TOPO_CHECK(pt->remote_node >= 0 && (size_t)pt->remote_node < f->n_nodes);
			r = &f->nodes[pt->remote_node];
			FUZZ_TOPO_CHECK(pt->remote_port >= 1 && pt->remote_port <= r->num_ports);
			FUZZ_TOPO_CHECK(r->ports[pt->remote_port].remote_node == (int)i);
			FUZZ_TOPO_CHECK(r->ports[pt->remote_port].remote_port == p);
		}
	}
	if (f->n_nodes)
		FUZZ_TOPO_CHECK(f->sm_node == FABRIC_NONE ||
				((size_t)f->sm_node < f->n_nodes &&
				 f->sm_port <= f->nodes[f->sm_node].num_ports));
}

/* Same node GUIDs, types, port counts and cables in both. */
static void fuzz_topo_check_same(const struct fabric *a, const struct fabric *b)
{
	FUZZ_TOPO_CHECK(a->n_nodes == b->n_nodes);
	for (size_t i = 0; i < a->n_nodes; i++) {
		const struct fabric_node *na = &a->nodes[i];
		int j = fabric_find(b, na->guid);
		const struct fabric_node *nb;

		FUZZ_TOPO_CHECK(j != FABRIC_NONE);
		nb = &b->nodes[j];
		FUZZ_TOPO_CHECK(na->type == nb->type && na->num_ports == nb->num_ports);
		for (unsigned p = 1; p <= na->num_ports; p++) {
			const struct fabric_port *pa = &na->ports[p], *pb = &nb->ports[p];

			FUZZ_TOPO_CHECK((pa->remote_node == FABRIC_NONE) ==
					(pb->remote_node == FABRIC_NONE));
			if (pa->remote_node == FABRIC_NONE)
				continue;
			FUZZ_TOPO_CHECK(a->nodes[pa->remote_node].guid ==
					b->nodes[pb->remote_node].guid);
			FUZZ_TOPO_CHECK(pa->remote_port == pb->remote_port);
		}
	}
}

static void fuzz_topo_roundtrip(const struct fabric *f)
{
	struct fabric back;
	char err[256];
	char *text = NULL;
	size_t len = 0;

	if (topo_write(f, TOPO_FORMAT_IBNETDISCOVER, NULL, &text, &len) < 0)
		return; /* -ENOMEM */
	FUZZ_TOPO_CHECK(text && strlen(text) == len);
	fabric_init(&back);
	FUZZ_TOPO_CHECK(topo_parse(text, len, "printed", &back, err, sizeof(err)) == 0);
	fuzz_topo_check_fabric(&back);
	fuzz_topo_check_same(f, &back);
	fabric_fini(&back);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fabric f;
	char err[256];
	int rc;

	fabric_init(&f);
	memset(err, 'x', sizeof(err));
	rc = topo_parse((const char *)data, size, "fuzz.topo", &f, err, sizeof(err));
	if (rc < 0) {
		FUZZ_TOPO_CHECK(rc == -EINVAL || rc == -ENOMEM);
		FUZZ_TOPO_CHECK(f.n_nodes == 0);
		FUZZ_TOPO_CHECK(memchr(err, '\0', sizeof(err)) && err[0] != '\0');
		fabric_fini(&f);
		return 0;
	}
	FUZZ_TOPO_CHECK(rc == 0);
	fuzz_topo_check_fabric(&f);
	fuzz_topo_roundtrip(&f);
	fabric_fini(&f);
	return 0;
}
