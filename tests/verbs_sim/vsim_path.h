/*
 * vsim_path.h - the simulated verbs layer's delivery rules (pure): may a
 * packet from one port reach a LID over the LFTs of a fabric snapshot, is
 * it small enough for the path, and do the two ends share a partition?
 *
 * DOC: The library (vsim_verbs.c) reads the fabric and the switches' LFTs
 * from ibsim (vsim_smi.c) and asks vsim_path_route where a packet to a DLID
 * ends: at the port owning it (ok, with the smallest active MTU on the way)
 * or lost, with a sentence saying where and why, in nanosm-verify's words
 * (routing/verify.c walks the LFTs).  No I/O, clock or globals.
 */
#ifndef NANOSM_TESTS_VERBS_SIM_VSIM_PATH_H
#define NANOSM_TESTS_VERBS_SIM_VSIM_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "routing/verify.h"

struct vsim_route {
	int ok;
	int owner_node; /* FABRIC_NONE when no port owns the DLID */
	uint8_t owner_port;
	uint64_t dest_guid; /* the owner's port GUID */
	unsigned path_mtu;  /* bytes: the smallest active MTU of the links crossed */
	uint8_t hops;	    /* links crossed (0: a loopback) */
	char why[400];	    /* !ok: where and why the packet is lost */
};

/* Where a packet from port src_port of CA src_node to dlid ends.  A DLID
 * of the source port itself is a loopback (the HCA turns it round). */
void vsim_path_route(const struct verify_index *ix, int src_node, uint8_t src_port, uint16_t dlid,
		     struct vsim_route *r);
/* A packet of pkt_bytes on route r: 0, or -EMSGSIZE with why filled. */
int vsim_path_fits(const struct vsim_route *r, unsigned pkt_bytes, char *why, size_t len);
/* Does a port whose P_Key table is table[0..n) accept a packet carrying
 * pkey?  Same partition (low 15 bits, not 0) and not both limited. */
int vsim_path_pkey_accepts(uint16_t pkey, const uint16_t *table, size_t n);

#endif
