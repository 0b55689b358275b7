/*
 * config/pkey_member.h - which ports a partition member names on a fabric, and
 * why a member names none.
 *
 * DOC: The policy stores a member as a selector (config/policy.h): a port
 * GUID, a node's name with an optional port, or a group.  Only the fabric
 * says which ports that is, so the matching lives here, on a fabric and
 * the policy's node_names:
 *  - guid: the LID-owning port with that port GUID (a switch: its port 0,
 *    by port GUID or NodeGUID);
 *  - name: every node that node_names gives that name, or whose
 *    NodeDescription is the name or starts with it and a blank ("host2"
 *    matches "host2 mlx5_0", as hosts describe their HCAs); without a port
 *    every LID-owning port of those nodes (a CA's or router's present
 *    ports, a switch's port 0), with one that port if it owns a LID.
 * pkey_member_ports visits the (node, port)s a member names (pkey.c builds
 * the tables from it); pkey_unmatched_find lists the guid and name members
 * that name no port, each with what it matched instead ("0x...20 is the
 * node GUID of host2, not a port GUID; its port 1 is 0x...21"), for the SM's
 * log (NSM-W422) and the answers of plan and reload.  Groups always match.
 * Pure: no I/O, no logging, nothing kept between calls.
 */
#ifndef NANOSM_CONFIG_PKEY_MEMBER_H
#define NANOSM_CONFIG_PKEY_MEMBER_H

#include <stddef.h>
#include <stdint.h>

#include "config/policy.h"
#include "routing/fabric.h"

#define PKEY_UNMATCHED_TEXT 512 /* bytes of one pkey_unmatched line */

/* 1 when (n, port) has a LID and so a P_Key table of its own: a switch's
 * port 0, a CA's or router's present ports. */
int pkey_member_owns_lid(const struct fabric_node *n, unsigned port);

struct pkey_member_guid;
struct pkey_member_name;

/* A fabric indexed for matching members (build with pkey_members_init;
 * f and names are borrowed and must outlive it). */
struct pkey_members {
	const struct fabric *f;
	const struct policy_node_name *names; /* the policy's node_names */
	size_t n_names;
	struct pkey_member_guid *guids; /* port GUIDs (and switch NodeGUIDs), sorted */
	size_t n_guids;
	struct pkey_member_name *byname; /* names and descriptions, sorted */
	size_t n_byname;
};

/* 0 or -ENOMEM (then x is as after pkey_members_fini). */
int pkey_members_init(struct pkey_members *x, const struct fabric *f,
		      const struct policy_node_name *names, size_t n_names);
void pkey_members_fini(struct pkey_members *x);

/* Calls visit(arg, node, port) once for each LID-owning port a guid or
 * name member names (groups and SELF: nothing, 0).  Returns how many, or
 * the first negative value visit returns (which stops the walk).  visit
 * may be NULL: only count. */
int pkey_member_ports(const struct pkey_members *x, const struct policy_member *m,
		      int (*visit)(void *arg, int node, uint8_t port), void *arg);

/* A member that names no port, and what it matched instead. */
struct pkey_unmatched {
	size_t part, member; /* parts[part].members[member] */
	/* "partition 'blue' (0x0002): member 0x0002c90300a00020 matches no
	 * port: it is the node GUID of host2, not a port GUID; its port 1 is
	 * 0x0002c90300a00021" */
	char text[PKEY_UNMATCHED_TEXT];
};

/* The guid and name members of parts that name no port of f, in policy
 * order.  *out is malloc'ed (caller frees; NULL when *n is 0).  An empty
 * fabric (no sweep yet) matches nothing and reports nothing.  0 or
 * -ENOMEM. */
int pkey_unmatched_find(const struct policy_partition *parts, size_t n_parts,
			const struct policy_node_name *names, size_t n_names,
			const struct fabric *f, struct pkey_unmatched **out, size_t *n);

#endif
