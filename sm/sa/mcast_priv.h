/*
 * sm/sa/mcast_priv.h - the multicast group database's insides, shared by
 * mcast.c (groups, joins, leaves, queries) and mcast_tree.c (the SM's side:
 * pruning departed ports, misfits, the trees' input).  Internal to those
 * two files.
 */
#ifndef NANOSM_SM_SA_MCAST_PRIV_H
#define NANOSM_SM_SA_MCAST_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "sm/sa/mcast.h"

#define MCAST_N_MLIDS (MFT_MLID_MAX - MFT_MLID_BASE + 1)

struct mcast_member {
	uint8_t gid[16];
	uint8_t join; /* SA_MCM_JOIN_* bits */
	uint8_t proxy;
};

struct mcast_group {
	struct mcast_group_info info; /* n_members unused: see n */
	uint64_t owner;		      /* port GUID that created it, charged a quota; 0: none */
	struct mcast_member *m;
	size_t n, cap;
};

struct mcast_db {
	struct mcast_group **g; /* creation order */
	size_t n, cap;
	uint64_t gen;
	uint64_t next_mgid; /* low 64 bits of the next SA-assigned MGID */
	uint64_t mlid_used[(MCAST_N_MLIDS + 63) / 64];
	unsigned mlid_cap;	/* MLIDs handed out from 0xC000: 0xC000 + cap - 1 the last */
	unsigned mlids_used;	/* bits set in mlid_used */
	struct sa_quota *quota; /* charged for groups with an owner; NULL: none */
};

/* Delete g if it has no members and is not a policy group. */
void mcast_group_reap(struct mcast_db *db, struct mcast_group *g);
void mcast_member_remove(struct mcast_group *g, struct mcast_member *m);
/* Membership of a port in partition pkey: 0 none, 1 limited, 2 full. */
int mcast_pkey_member(const struct sa *sa, struct sa_port_ref r, uint16_t pkey);
/* Can the port's link carry the group's packets (its MTU and rate at
 * least the group's)?  Unknown port figures (0) do not refuse. */
int mcast_port_carries(const struct sa *sa, struct sa_port_ref port,
		       const struct mcast_group_info *i);

#endif
