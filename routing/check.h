/*
 * check.h - the routing gate: are these LFTs safe to push?
 *
 * DOC: Walks the LFTs of a fabric for every (source CA port, destination
 * LID) pair and for every switch as a source: unreachable destinations
 * (black holes, LFT_DROP, a port beyond NumPorts), forwarding loops, routes
 * through absent/unlinked/DOWN ports, and credit loops (a cycle in the
 * channel dependency graph over directed links).  Virtual lanes: the paths
 * to LID d ride VL lft_set_sl(d) at every hop (SL s = VL s, as the SM
 * programs the SLtoVL tables), so a dependency exists only between two
 * channels of one VL: one graph per VL, a cycle on any VL is refused and
 * named with its VL.  A destination whose SL is no data VL (15 and up),
 * or whose routes cross a cable one end of which does not offer its VL
 * (PortInfo VLCap; not known counts as 8 VLs), fails too.  Tables without
 * SLs (sl NULL) put everything on VL 0, offered everywhere.
 * Destination-based routing makes every check O(LIDs x switches): each
 * destination's forwarding is an in-tree over the switches, walked once;
 * the tables are read 64 LIDs at a time (check_priv.h).
 * Pure: const fabric and LFTs in, verdict out.
 */
#ifndef NANOSM_ROUTING_CHECK_H
#define NANOSM_ROUTING_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "routing/fabric.h"

struct route_check_opts {
	int skip_credit_loops;  /* 1: skip the CDG (e.g. huge offline runs) */
	int allow_down_ports;   /* 1: a route over a port not ACTIVE/INIT is not an error
				 * (offline scoring of a topology without states) */
};

struct route_check {
	size_t pairs;        /* (source, destination LID) pairs walked: sources are CA/
			      * router ports and switches, but a switch need not reach
			      * another switch's LID (management SMPs travel by
			      * directed route; under up/down two roots cannot reach
			      * each other legally), and switch-to-switch routes stay
			      * out of the credit-loop graph (SMPs use VL15) */
	size_t unreachable;  /* pairs that end in a drop or a wrong port */
	size_t loops;        /* pairs caught in a forwarding loop */
	size_t bad_ports;    /* pairs routed over an absent or down port */
	int credit_loop;     /* 1 if the channel dependency graph has a cycle */
	unsigned credit_loop_vl; /* the VL of that cycle (0 without SLs) */
	unsigned n_vls;		 /* VLs the routes use: 1 + the highest data SL of a
				  * destination LID (1 without SLs) */
	size_t vl_missing;	 /* destination LIDs whose SL is no data VL or whose
				  * routes cross a cable without their VL */
	size_t max_hops;     /* longest route in switch hops */
	size_t turns;	     /* channel dependencies recorded (distinct turns
			      * (in link, out link) at a switch, per VL; 0 when
			      * credit loops are skipped) */
	char first[512];     /* first offending pair, else the first LID on a
			      * missing VL, else the cycle, for the log:
			      * "0x.../1 (host1) -> LID 7: loop at 0x... (sw2) port 3",
			      * "LID 7 on SL 3: 0x... (sw2) port 5 offers VL0-1 (VLCap 2), not VL3",
			      * "credit loop on VL 1: 0x... (sw1)/7 -> ... -> back"
			      * ("credit loop: ..." without SLs) */
};

/* Fill res.  Returns 0 when everything passes, -EINVAL when something
 * failed (res says what), -ENOMEM, -E2BIG for a fabric of more than
 * 65520 switches (res.first says so). */
int route_check_run(const struct fabric *f, const struct lft_set *lfts,
		    const struct route_check_opts *opts, struct route_check *res);

#endif
