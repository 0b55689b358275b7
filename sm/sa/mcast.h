/*
 * sm/sa/mcast.h - multicast groups of the SA: MCMemberRecord joins, leaves and
 * queries, MLID allocation, and the groups' forwarding tables.
 *
 * DOC: A struct mcast_db holds the groups, keyed by MGID, each with its
 * MLID, parameters (Q_Key, P_Key, MTU, Rate, SL, FlowLabel, TClass,
 * HopLimit, Scope) and members (port GID, JoinState bits, ProxyJoin).
 * sa_mcm_handle answers MCMemberRecord requests: Set joins (the first full
 * member creates the group; the SA assigns the MGID when it is zero), Delete
 * leaves (only JoinState bits the port holds; the answer shows the bits
 * it keeps; the group and its MLID go with its last member unless it is a
 * policy group), Get/GetTable list the memberships matching the template.
 * A client-chosen MGID must be a multicast GID with flags 000T and without
 * the SA's signature 0xa01b, which marks the MGIDs the SA assigns.
 * A port joins only groups of partitions it is a member of; creating needs
 * full membership.  Another port may join or leave for it (a proxy, the
 * membership then has ProxyJoin) if it is in the group's partition, but
 * never change a membership the port made itself (o15-0.2.1).  MLIDs come
 * from 0xC000 up, lowest free first, and are reused; none beyond what the
 * switches hold (mcast_db_set_limits): such a join gets 0x0100, as does a
 * requester that created its quota of groups (SA note for the log).
 * mcast_db_set_partitions keeps one IPoIB broadcast group per partition
 * with ipoib set (the default partition when the policy has no
 * partitions), with the partition's MTU and rate, also when a reload
 * changes them; they live without members and keep their MLID.  Every
 * membership change bumps mcast_db_gen; the SM then calls
 * mcast_mft_compute and pushes the changed MFT blocks (sm/core/mft_push.c).
 * No I/O: requests come in decoded, answers leave through struct sa_out.
 */
#ifndef NANOSM_SM_SA_MCAST_H
#define NANOSM_SM_SA_MCAST_H

#include <stddef.h>
#include <stdint.h>

#include "config/policy.h"
#include "routing/mft.h"
#include "sm/sa/server.h"

#define MCAST_IPOIB_QKEY 0x00000b1bu
#define MCAST_DEFAULT_MTU 4  /* 2048 bytes */
#define MCAST_DEFAULT_RATE 3 /* 10 Gb/s */
#define MCAST_RATE_MAX 22    /* 600 Gb/s, the highest Rate enum */
#define MCAST_DEFAULT_LIFE 0x12
#define MCAST_SCOPE_LINK 0x2

/* A group as the db holds it (read-only copy). */
struct mcast_group_info {
	uint8_t mgid[16];
	uint16_t mlid;
	uint32_t qkey;
	uint16_t pkey;
	uint8_t mtu, rate, life, sl, tclass, hop_limit, scope;
	uint32_t flow_label;
	int policy; /* created by mcast_db_set_partitions */
	size_t n_members;
};

struct mcast_db *mcast_db_new(void);
void mcast_db_free(struct mcast_db *db);

/* A policy group whose MTU or rate mcast_db_set_partitions changed: was
 * and now differ only there (members and MLID stay).  Called before
 * mcast_db_set_partitions returns; the infos live until the callback
 * returns. */
typedef void (*mcast_retune_fn)(void *ctx, const struct mcast_group_info *was,
				const struct mcast_group_info *now);

/* The IPoIB broadcast group ff12:401b:<pkey>:0:0:0:ffff:ffff (P_Key with
 * the full bit, Q_Key 0x0b1b, the partition's MTU and rate, SL 0, scope
 * link-local) of each partition with ipoib set; n == 0: one for the
 * default partition 0xffff (2048 bytes, 10 Gb/s).  A group that already
 * exists (made by an earlier call, or by a client) takes the policy's MTU
 * and rate: retuned (may be NULL) hears of each one that changed.  Policy
 * groups no longer named become ordinary groups (gone at once when they
 * have no members).  0, -ENOMEM or -ENOSPC (MLIDs exhausted; groups made
 * so far stay). */
int mcast_db_set_partitions(struct mcast_db *db, const struct policy_partition *parts, size_t n,
			    mcast_retune_fn retuned, void *ctx);
/* Drop members whose port is no longer in sa->v (after sa_update rebuilt
 * the maps); groups left empty go unless they are policy groups.  Does
 * nothing while sa->v.f is NULL. */
void mcast_db_prune(struct sa *sa);
/* Changes whenever a membership or group changes. */
uint64_t mcast_db_gen(const struct mcast_db *db);

size_t mcast_db_count(const struct mcast_db *db);
/* MLIDs handed out from now on: 0xC000 .. 0xC000 + mlid_cap - 1 (0 or
 * more than the range: the whole range; groups holding higher MLIDs keep
 * them); groups created by a request are charged to the requester in
 * quota (may be NULL) and given back when the group goes. */
void mcast_db_set_limits(struct mcast_db *db, unsigned mlid_cap, struct sa_quota *quota);
/* MLIDs held by groups. */
unsigned mcast_db_mlids_used(const struct mcast_db *db);
/* Group i (0 .. count - 1, in creation order) or by MGID: 0 or -ENOENT. */
int mcast_db_group(const struct mcast_db *db, size_t i, struct mcast_group_info *gi);
int mcast_db_find(const struct mcast_db *db, const uint8_t mgid[16], struct mcast_group_info *gi);

/* The port GID of member i (0 .. n_members - 1) of group mgid: 0 or
 * -ENOENT. */
int mcast_db_member(const struct mcast_db *db, const uint8_t mgid[16], size_t i, uint8_t gid[16]);

/* End ports (CA ports with a LID in sa->v.f) of gi's partition whose link
 * cannot carry gi's packets: MTUCap below its MTU, or a slower rate.  They
 * cannot join it.  fn (may be NULL) is called for each; returns how many. */
typedef void (*mcast_misfit_fn)(void *ctx, struct sa_port_ref port);
size_t mcast_group_misfits(const struct sa *sa, const struct mcast_group_info *gi,
			   mcast_misfit_fn fn, void *ctx);

/* The SA handler of MCMemberRecord (Get, GetTable, Set, Delete). */
uint16_t sa_mcm_handle(struct sa *sa, const struct sa_req *req, struct sa_out *out);

/* The MFTs of every group with members, over sa->v.f (empty before the
 * first sweep).  Replaces *out; 0 or -ENOMEM. */
int mcast_mft_compute(const struct sa *sa, struct mft_set *out);

#endif
