/*
 * fake_fabric_knobs.c - what a test turns and reads on the fake fabric
 * (fake_fabric.h): drops, muted nodes, lost or lying answers, cables, switch
 * reboots, M_Keys, and the tables and counters as the fake holds them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/fake_fabric.h"
#include "tests/unit/fake_fabric_priv.h"

void fake_fabric_drop_every(struct fake_fabric *ff, unsigned n)
{
	ff->drop_every = n;
	ff->requests = 0;
}

void fake_fabric_mute_node(struct fake_fabric *ff, uint64_t node_guid, int mute)
{
	int i = fabric_find(&ff->topo, node_guid);

	if (i != FABRIC_NONE)
		ff->nodes[i].muted = mute ? 1 : 0;
}

const struct fabric *fake_fabric_state(const struct fake_fabric *ff)
{
	return &ff->topo;
}

const uint8_t *fake_fabric_lft(const struct fake_fabric *ff, uint64_t switch_guid, uint16_t *top)
{
	int i = fabric_find(&ff->topo, switch_guid);

	if (i == FABRIC_NONE || !ff->nodes[i].lft)
		return NULL;
	if (top)
		*top = ff->topo.nodes[i].lft_top;
	return ff->nodes[i].lft;
}

int fake_fabric_set_lft(struct fake_fabric *ff, uint64_t switch_guid, uint16_t lid, uint8_t port)
{
	int i = fabric_find(&ff->topo, switch_guid);

	if (i == FABRIC_NONE || !ff->nodes[i].lft || lid >= ff->nodes[i].lft_cap)
		return -ENOENT;
	ff->nodes[i].lft[lid] = port;
	return 0;
}

int fake_fabric_reboot_switch(struct fake_fabric *ff, uint64_t switch_guid)
{
	int i = fabric_find(&ff->topo, switch_guid);

	if (i == FABRIC_NONE || !ff->nodes[i].lft)
		return -ENOENT;
	memset(ff->nodes[i].lft, LFT_DROP, ff->nodes[i].lft_cap);
	ff->topo.nodes[i].lft_top = 0;
	return 0;
}

const uint16_t *fake_fabric_pkeys(const struct fake_fabric *ff, uint64_t node_guid, uint8_t port)
{
	int i = fabric_find(&ff->topo, node_guid);

	if (i == FABRIC_NONE || port > ff->topo.nodes[i].num_ports)
		return NULL;
	return ff->nodes[i].pkeys[port].pkey;
}

const struct smp_sl2vl *fake_fabric_sl2vl(const struct fake_fabric *ff, uint64_t node_guid,
					  uint8_t in, uint8_t out)
{
	int i = fabric_find(&ff->topo, node_guid);

	return i == FABRIC_NONE ? NULL : fake_fabric_attr_sl2vl_table(ff, i, in, out);
}

int fake_fabric_set_sl2vl(struct fake_fabric *ff, uint64_t node_guid, uint8_t in, uint8_t out,
			  const struct smp_sl2vl *t)
{
	int i = fabric_find(&ff->topo, node_guid);
	struct smp_sl2vl *x =
	    i == FABRIC_NONE ? NULL : fake_fabric_attr_sl2vl_table(ff, i, in, out);

	if (!x)
		return -ENOENT;
	*x = *t;
	return 0;
}

const struct fake_counters *fake_fabric_counters(const struct fake_fabric *ff)
{
	return &ff->counters;
}

/* The guard of node_guid's port: port 0 on a switch. */
static struct fake_mkey *fake_find_guard(const struct fake_fabric *ff, uint64_t node_guid,
					 uint8_t port)
{
	int i = fabric_find(&ff->topo, node_guid);
	const struct fabric_node *n;

	if (i == FABRIC_NONE)
		return NULL;
	n = &ff->topo.nodes[i];
	if (port > n->num_ports || (!fabric_is_switch(n) && port == 0))
		return NULL;
	return &ff->nodes[i].ports[fabric_is_switch(n) ? 0 : port].mkey;
}

int fake_fabric_get_mkey(const struct fake_fabric *ff, uint64_t node_guid, uint8_t port,
			 struct fake_mkey *out)
{
	const struct fake_mkey *g = fake_find_guard(ff, node_guid, port);

	if (!g)
		return -ENOENT;
	*out = *g;
	return 0;
}

int fake_fabric_set_mkey(struct fake_fabric *ff, uint64_t node_guid, uint8_t port,
			 const struct fake_mkey *k)
{
	struct fake_mkey *g = fake_find_guard(ff, node_guid, port);

	if (!g)
		return -ENOENT;
	*g = *k;
	return 0;
}

void fake_fabric_keep_mkeys(struct fake_fabric *ff, int keep)
{
	ff->forget_mkeys = !keep;
}

void fake_fabric_forget_enforcement(struct fake_fabric *ff, int forget)
{
	ff->forget_enforcement = forget;
}

int fake_fabric_enforcing(const struct fake_fabric *ff, uint64_t switch_guid, uint8_t port)
{
	int i = fabric_find(&ff->topo, switch_guid);

	if (i == FABRIC_NONE || port > ff->topo.nodes[i].num_ports)
		return -1;
	return ff->nodes[i].ports[port].part_enf;
}

int fake_fabric_port_change(struct fake_fabric *ff, uint64_t switch_guid)
{
	int i = fabric_find(&ff->topo, switch_guid);

	if (i == FABRIC_NONE || !fabric_is_switch(&ff->topo.nodes[i]))
		return -1;
	ff->nodes[i].port_change = 1;
	return 0;
}

int fake_fabric_port_change_pending(const struct fake_fabric *ff, uint64_t switch_guid)
{
	int i = fabric_find(&ff->topo, switch_guid);

	return i == FABRIC_NONE ? -1 : ff->nodes[i].port_change;
}

void fake_fabric_lose_state_replies(struct fake_fabric *ff, unsigned n)
{
	ff->drop_state_replies = n;
	ff->strict_states = 1;
}

void fake_fabric_lose_attr(struct fake_fabric *ff, uint64_t node_guid, uint16_t attr)
{
	ff->lose_guid = node_guid;
	ff->lose_attr = attr;
}

void fake_fabric_lose_set_replies(struct fake_fabric *ff, uint16_t attr, unsigned n)
{
	ff->lose_set_attr = attr;
	ff->lose_set_replies = n;
}

void fake_fabric_lie_node_info(struct fake_fabric *ff, uint64_t node_guid, uint8_t num_ports,
			       uint64_t claim_guid)
{
	ff->liar_guid = node_guid;
	ff->lie_ports = num_ports;
	ff->lie_guid = claim_guid;
}

static void fake_cable_end(struct fake_fabric *ff, int i, uint8_t p, int up)
{
	struct fabric_port *port = &ff->topo.nodes[i].ports[p];

	port->state = up ? PORT_STATE_INIT : PORT_STATE_DOWN;
	port->phys_state = up ? PORT_PHYS_LINKUP : PORT_PHYS_POLLING;
	if (fabric_is_switch(&ff->topo.nodes[i]))
		ff->nodes[i].port_change = 1;
}

int fake_fabric_cable(struct fake_fabric *ff, uint64_t node_guid, uint8_t port, int up)
{
	int i = fabric_find(&ff->topo, node_guid);
	struct fake_port *fp;
	int j;

	if (i == FABRIC_NONE || port == 0 || port > ff->topo.nodes[i].num_ports)
		return -1;
	fp = &ff->nodes[i].ports[port];
	if (!up) {
		j = ff->topo.nodes[i].ports[port].remote_node;
		if (j == FABRIC_NONE)
			return -1;
		fp->down_node = j;
		fp->down_port = ff->topo.nodes[i].ports[port].remote_port;
		fp->unplugged = 1;
		ff->topo.nodes[i].ports[port].remote_node = FABRIC_NONE;
		ff->topo.nodes[j].ports[fp->down_port].remote_node = FABRIC_NONE;
		fake_cable_end(ff, i, port, 0);
		fake_cable_end(ff, j, fp->down_port, 0);
		return 0;
	}
	if (!fp->unplugged)
		return -1;
	fp->unplugged = 0;
	j = fp->down_node;
	if (fabric_link(&ff->topo, i, port, j, fp->down_port) < 0)
		return -1;
	fake_cable_end(ff, i, port, 1);
	fake_cable_end(ff, j, fp->down_port, 1);
	return 0;
}

void fake_fabric_lose_via(struct fake_fabric *ff, uint64_t node_guid, uint8_t port, uint16_t attr)
{
	ff->via_guid = node_guid;
	ff->via_port = port;
	ff->via_attr = attr;
}

void fake_fabric_on_lft_set(struct fake_fabric *ff, void (*cb)(void *arg), void *arg)
{
	ff->on_lft_set = cb;
	ff->on_lft_arg = arg;
}
