/*
 * vsim_path.c - the simulated verbs layer's delivery rules: the LFT walk
 * (routing/verify.c's), the path MTU and the P_Key match.  Pure: takes the
 * snapshot vsim_smi.c read, never sends or prints.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mad/smp.h"
#include "mad/text.h"
#include "tests/verbs_sim/vsim_path.h"

/* The active MTU of a port, from its raw PortInfo (NeighborMTU). */
static unsigned vsim_path_port_mtu(const struct fabric_port *p)
{
	struct smp_port_info pi;

	smp_port_info_decode(p->pi_raw, &pi);
	return smp_mtu_bytes(pi.neighbor_mtu);
}

static unsigned vsim_path_min_mtu(const struct fabric *f, const struct verify_path *p)
{
	unsigned mtu = vsim_path_port_mtu(&f->nodes[p->src_node].ports[p->src_port]);

	for (unsigned i = 0; i < p->n_hops; i++) {
		const struct fabric_port *in = &f->nodes[p->hop[i].node].ports[p->hop[i].in_port];
		unsigned m = vsim_path_port_mtu(in);

		if (m && (m < mtu || !mtu))
			mtu = m;
	}
	return mtu;
}

static void vsim_path_lost(const struct verify_index *ix, const struct verify_path *p,
			   struct vsim_route *r)
{
	struct text_buf b;

	if (p->fault == VERIFY_NO_OWNER) { /* a split fabric, a host gone */
		snprintf(r->why, sizeof(r->why),
			 "no port has lid %u in the fabric reached from here (%zu nodes): "
			 "its port is cut off, down or gone",
			 p->dlid, ix->f->n_nodes);
		return;
	}
	text_buf_init(&b);
	verify_format_fault(&b, ix, p);
	snprintf(r->why, sizeof(r->why), "%s", b.s && !b.failed ? b.s : "lost on the way");
	text_buf_fini(&b);
}

void vsim_path_route(const struct verify_index *ix, int src_node, uint8_t src_port, uint16_t dlid,
		     struct vsim_route *r)
{
	struct verify_path p;
	const struct fabric_port *src = &ix->f->nodes[src_node].ports[src_port];

	memset(r, 0, sizeof(*r));
	r->owner_node = verify_owner(ix, dlid, &r->owner_port);
	if (r->owner_node == src_node && r->owner_port == src_port) {
		r->ok = 1; /* the HCA loops it back */
		r->dest_guid = src->guid;
		r->path_mtu = vsim_path_port_mtu(src);
		return;
	}
	verify_walk(ix, src_node, src_port, dlid, &p);
	r->hops = p.n_hops;
	if (p.fault != VERIFY_OK) {
		vsim_path_lost(ix, &p, r);
		return;
	}
	r->ok = 1;
	r->dest_guid = ix->f->nodes[r->owner_node].ports[r->owner_port].guid;
	r->path_mtu = vsim_path_min_mtu(ix->f, &p);
}

int vsim_path_fits(const struct vsim_route *r, unsigned pkt_bytes, char *why, size_t len)
{
	if (!r->path_mtu || pkt_bytes <= r->path_mtu)
		return 0;
	return text_err(why, len, -EMSGSIZE, "a packet of %u bytes is above the path MTU %u",
			pkt_bytes, r->path_mtu);
}

int vsim_path_pkey_accepts(uint16_t pkey, const uint16_t *table, size_t n)
{
	if (!(pkey & 0x7fff))
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((table[i] & 0x7fff) == (pkey & 0x7fff) && ((table[i] | pkey) & 0x8000))
			return 1;
	return 0;
}
