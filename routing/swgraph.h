/*
 * swgraph.h - the switch graph the routing engines, the gate and the
 * scorer work on, and the destination LIDs an engine routes.
 *
 * DOC: Every engine starts with the same chores, done here once: number
 * the switches (node index <-> switch ordinal, in node order, the order of
 * an lft_set), list the cables between switches as flat arrays, group the
 * switches into connected components, claim the LIDs of the LID-owning
 * ports (range and duplicate checks, with the errors users see), list
 * those LIDs by the switch that delivers them, and spread LIDs over the
 * least-loaded of a switch's candidate ports.  Pure: plain data in and
 * out, no I/O, no globals.
 */
#ifndef NANOSM_ROUTING_SWGRAPH_H
#define NANOSM_ROUTING_SWGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "routing/fabric.h"

/* A cable between two switches, seen from the switch whose list holds it. */
struct swgraph_link {
	int sw;	       /* switch ordinal at the far end */
	uint8_t port;  /* local port */
	uint8_t rport; /* far end's port */
};

/* All arrays are owned by the graph and read-only for its users, except
 * that an engine may reorder the cables within one switch's list (updn
 * puts its up-cables first). */
struct swgraph {
	const struct fabric *f; /* borrowed: must outlive the graph */
	size_t n_sw;
	int *sw_of;	   /* node index -> switch ordinal, -1 for CAs and routers */
	int *sw_node;	   /* switch ordinal -> node index */
	size_t *port_base; /* a slot per (switch, port): port_base[s] + port;
			    * port_base[n_sw] = number of slots */
	uint8_t *has_ca;   /* 1 when a CA or router is cabled to the switch */
	/* cables to other switches: adj[adj_start[s] .. adj_start[s + 1]),
	 * ascending local port; a cable from a switch back to itself only
	 * with keep_loops */
	size_t *adj_start;
	struct swgraph_link *adj;
	/* connected components: comp[s] numbers them in order of their lowest
	 * switch; component c is comp_sw[comp_start[c] .. comp_start[c + 1]),
	 * in breadth-first order from that switch */
	size_t n_comp;
	int *comp;
	int *comp_sw;
	size_t *comp_start;
};

/* Build the graph of f's switches.  keep_loops: also list a cable from a
 * switch to itself (from both of its ends); the engines leave them out.
 * Returns 0 or -ENOMEM (g then holds nothing; swgraph_fini is safe on it,
 * as on a zeroed graph). */
int swgraph_init(struct swgraph *g, const struct fabric *f, int keep_loops);
void swgraph_fini(struct swgraph *g);

static inline uint64_t swgraph_guid(const struct swgraph *g, int s)
{
	return g->f->nodes[g->sw_node[s]].guid;
}

/* The switch ordinal at the far end of port p, -1 if none. */
static inline int swgraph_far_switch(const struct swgraph *g, const struct fabric_port *p)
{
	return p->remote_node == FABRIC_NONE ? -1 : g->sw_of[p->remote_node];
}

/* Breadth first over the cables from the n switches in queue[0..n), whose
 * dist is 0; a switch with dist -1 is not reached yet and gets its hop
 * count.  via (NULL: not kept): via[s] = s's port towards the switch that
 * reached it.  Returns how many switches queue holds, in the order
 * reached (queue has room for n_sw). */
size_t swgraph_bfs(const struct swgraph *g, int *queue, size_t n, int *dist, uint8_t *via);
/* The same from switch t alone, every other dist reset to -1 first. */
size_t swgraph_bfs_from(const struct swgraph *g, int t, int *queue, int *dist, uint8_t *via);

/* ---- Destination LIDs --------------------------------------------------- */

/* A LID to route, where it leaves the fabric. */
struct swgraph_dest {
	uint16_t lid;
	uint8_t exit_port; /* sw's port towards the owner; 0: sw's own LID */
	uint8_t offset;	   /* lid - the owner's base LID (LMC) */
	int sw;		   /* switch ordinal that delivers it */
};

struct swgraph_dests {
	struct swgraph_dest *v; /* sorted by (sw, lid) */
	size_t n, cap;
	size_t *start; /* switch s delivers v[start[s] .. start[s + 1]) */
};

/* Claim the LIDs (base .. base + 2^LMC - 1) of every LID-owning port, in
 * node order: a switch's port 0, a CA/router port with a LID.  Each LID
 * must be at most max_lid (else -ERANGE) and owned by no other port (else
 * -EINVAL); err names the port(s), the first offender in node order.
 * Fills d (zeroed, or swgraph_dests_fini'd) with the LIDs some switch
 * delivers, grouped by that switch: a CA/router port's when it is cabled
 * to a switch, and with switch_lids each switch's own.
 * Returns 0, -ERANGE, -EINVAL or -ENOMEM, err set on failure; either
 * way d is the caller's to swgraph_dests_fini. */
int swgraph_collect_dests(const struct swgraph *g, uint16_t max_lid, int switch_lids,
			  struct swgraph_dests *d, char *err, size_t errlen);
void swgraph_dests_fini(struct swgraph_dests *d);

/* ---- Writing routes ----------------------------------------------------- */

/* The LFT entries a switch sets for the n LIDs it delivers: each to its
 * exit port.  lft: the switch's lft.port; load: its row of per-port LID
 * counts (load[port]), counted up for each LID. */
void swgraph_route_exits(uint8_t *lft, uint32_t *load, const struct swgraph_dest *d, size_t n);
/* Send LIDs d[0..n) over the k >= 1 candidate ports cand[0..k): each LID
 * to the candidate with the fewest LIDs so far in load[], the first in
 * cand on a tie (so lowest port first when cand ascends).  Returns 1 when
 * the candidates are known to carry equal loads afterwards (0: may not). */
int swgraph_spread(uint8_t *lft, uint32_t *load, const uint8_t *cand, size_t k,
		   const struct swgraph_dest *d, size_t n);
/* The same when the caller knows every candidate carries the same load
 * (from the last call's 1, nothing else counted on them since): no scan
 * of the loads.  Returns as swgraph_spread. */
int swgraph_spread_even(uint8_t *lft, uint32_t *load, const uint8_t *cand, size_t k,
			const struct swgraph_dest *d, size_t n);

#endif
