/*
 * config/pkey.h - partitions: which P_Keys each port gets, from the policy.
 *
 * DOC: pkey_plan_build turns the policy's partitions into one P_Key table
 * per LID-owning port of a fabric (CA/router ports and switch port 0) and
 * per switch external port that faces a CA (enforcement: the switch port
 * carries its neighbour's table).  Rules:
 *  - no partitions in the policy: every port a full member of the default
 *    partition (0xffff), as an SM without a partitions file does;
 *  - partitions given but none with P_Key 0x7fff: every port a limited
 *    member of 0x7fff (0x7fff in its table) and the SM's port a full member;
 *  - a port in several partitions gets one entry each; full beats limited
 *    when a port is named twice;
 *  - a guid or name member names the ports pkey_member.h says; one that
 *    names none adds nothing (pkey_unmatched_find says why).
 * Queries answer what the SA needs: is a port a member, and which P_Key
 * two ports may use together (full+full or full+limited; limited+limited
 * cannot talk).  Pure: plan in, tables out; no I/O.
 */
#ifndef NANOSM_CONFIG_PKEY_H
#define NANOSM_CONFIG_PKEY_H

#include <stddef.h>
#include <stdint.h>

#include "config/policy.h"
#include "routing/fabric.h"

#define PKEY_FULL 0x8000u    /* membership bit of a P_Key */
#define PKEY_DEFAULT 0xffffu /* default partition, full member */
#define PKEY_BASE(k) ((uint16_t)((k)&0x7fffu))
#define PKEY_TABLE_MAX 32 /* entries nanosm programs per port (one block) */

struct pkey_port_table {
	int node;
	uint8_t port;
	uint8_t n;
	uint16_t pkey[PKEY_TABLE_MAX]; /* membership bit included; sorted by base */
};

struct pkey_plan {
	struct pkey_port_table *t; /* sorted by (node, port) */
	size_t n;
};

void pkey_plan_init(struct pkey_plan *pp);
void pkey_plan_fini(struct pkey_plan *pp);
/* Build the plan for f.  sm_node/sm_port: the SM's own port (FABRIC_NONE
 * if unknown).  parts may be NULL with n_parts 0; names (the policy's
 * node_names, for name members) NULL with n_names 0.  A port named in more
 * than PKEY_TABLE_MAX partitions: -E2BIG with err naming the port GUID.
 * 0, -ENOMEM or -E2BIG; pp is replaced (fini'd first) only on success. */
int pkey_plan_build(struct pkey_plan *pp, const struct policy_partition *parts, size_t n_parts,
		    const struct policy_node_name *names, size_t n_names, const struct fabric *f,
		    int sm_node, uint8_t sm_port, char *err, size_t errlen);
/* The wanted table of one port (switch external ports facing a CA carry
 * the CA port's table; other switch external ports: NULL, left alone). */
const struct pkey_port_table *pkey_plan_port(const struct pkey_plan *pp, int node, uint8_t port);
/* Membership of a port in partition base (15 bits): 0 none, 1 limited, 2 full. */
int pkey_plan_member(const struct pkey_plan *pp, int node, uint8_t port, uint16_t base);
/* The P_Key (membership bit set = the two may talk in it) two ports share.
 * want: a specific P_Key (its low 15 bits are compared) or 0 for any, in
 * which case the default partition is preferred, then the lowest base.
 * Returns 0 when they share none they can talk in.  pp NULL = the default
 * partition for everyone (returns 0xffff). */
uint16_t pkey_plan_shared(const struct pkey_plan *pp, int na, uint8_t pa, int nb, uint8_t pb,
			  uint16_t want);

#endif
