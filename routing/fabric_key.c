/*
 * fabric_key.c - a fabric as routing sees it, in bytes (fabric.h): what
 * lets the SM tell that a sweep found the fabric it routed last time and
 * use those tables again instead of running the engine and the gate.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/smp.h"
#include "routing/fabric.h"

struct fabric_key_buf {
	uint8_t *b;
	size_t len;
};

static void fabric_key_put(struct fabric_key_buf *k, const void *v, size_t n)
{
	memcpy(k->b + k->len, v, n);
	k->len += n;
}

#define FABRIC_KEY_PUT(k, field) fabric_key_put(k, &(field), sizeof(field))

/* Bytes one port adds: the fields below, in this order. */
#define FABRIC_KEY_PORT (1 + 1 + 8 + 2 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + sizeof(int) + 1)
#define FABRIC_KEY_NODE (8 + 8 + 1 + 1 + 65 + 4 + 2 + 2 + 1)

/* A string field: its text, zeros after it (the bytes after a NUL are
 * whatever was there before). */
static void fabric_key_desc(struct fabric_key_buf *k, const char *s, size_t size)
{
	size_t n = strnlen(s, size);

	memcpy(k->b + k->len, s, n);
	memset(k->b + k->len + n, 0, size - n);
	k->len += size;
}

static void fabric_key_port(struct fabric_key_buf *k, const struct fabric_port *p)
{
	/* routing reads the state only as down or not (fabric.h) */
	uint8_t down = p->state == PORT_STATE_DOWN;

	FABRIC_KEY_PUT(k, p->num);
	FABRIC_KEY_PUT(k, p->present);
	FABRIC_KEY_PUT(k, p->guid);
	FABRIC_KEY_PUT(k, p->lid);
	FABRIC_KEY_PUT(k, p->lmc);
	FABRIC_KEY_PUT(k, down);
	FABRIC_KEY_PUT(k, p->phys_state);
	FABRIC_KEY_PUT(k, p->width_active);
	FABRIC_KEY_PUT(k, p->speed_active);
	FABRIC_KEY_PUT(k, p->mtu_cap);
	FABRIC_KEY_PUT(k, p->vl_cap);
	FABRIC_KEY_PUT(k, p->remote_node);
	FABRIC_KEY_PUT(k, p->remote_port);
}

int fabric_key(const struct fabric *f, uint8_t **key, size_t *len)
{
	struct fabric_key_buf k = {NULL, 0};
	size_t size = sizeof(f->n_nodes) + sizeof(f->sm_node) + sizeof(f->sm_port);

	for (size_t i = 0; i < f->n_nodes; i++)
		size += FABRIC_KEY_NODE + ((size_t)f->nodes[i].num_ports + 1) * FABRIC_KEY_PORT;
	k.b = malloc(size);
	if (!k.b)
		return -ENOMEM;
	FABRIC_KEY_PUT(&k, f->n_nodes);
	FABRIC_KEY_PUT(&k, f->sm_node);
	FABRIC_KEY_PUT(&k, f->sm_port);
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *n = &f->nodes[i];

		FABRIC_KEY_PUT(&k, n->guid);
		FABRIC_KEY_PUT(&k, n->system_guid);
		FABRIC_KEY_PUT(&k, n->type);
		FABRIC_KEY_PUT(&k, n->num_ports);
		fabric_key_desc(&k, n->desc, sizeof(n->desc));
		FABRIC_KEY_PUT(&k, n->vendor_id);
		FABRIC_KEY_PUT(&k, n->device_id);
		FABRIC_KEY_PUT(&k, n->lft_cap);
		FABRIC_KEY_PUT(&k, n->stale);
		for (unsigned p = 0; p <= n->num_ports; p++)
			fabric_key_port(&k, &n->ports[p]);
	}
	*key = k.b;
	*len = k.len;
	return 0;
}
