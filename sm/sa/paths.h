/*
 * sm/sa/paths.h - the SA's PathRecord handler and its cache of path facts.
 *
 * DOC: A path is what the programmed LFTs do with a packet from a source
 * port to a destination LID: sa_path_facts walks them (a CA port's first
 * hop is its cable; each switch's LFT entry gives the out port; port 0 or
 * the destination port ends the walk; LFT_DROP, a missing cable, a port
 * that does not own the LID or more than SA_PATH_MAX_HOPS links mean
 * unreachable) and reports hops, MTU (the smallest MTUCap of both ends of
 * every link), rate (the slowest end of every link) and PacketLifeTime
 * (sa_path_life_from_hops).  Facts are cached per (SLID, DLID) in a
 * fixed-size direct-mapped table: a new pair evicts whatever shared its
 * slot, so memory stays bounded.  The cache is valid for one route_gen;
 * sa_paths_flush empties it (server.c calls it when route_gen moves, and the
 * handler also notices a changed route_gen itself).
 *
 * sa_path_handle answers Get/GetTable PathRecord: ends from SGID/SLID and
 * DGID/DLID (a GetTable without one side means every LID-owning port on
 * that side), the P_Key the two ports share (none = no record), the SL
 * the view's LFTs give the DLID (lft_set_sl: the routing engine's, 0
 * without VLs; a request naming another SL gets no record),
 * MTU/Rate/PacketLifeTime through their selectors, Reversible when the
 * reverse path exists.  One path per port pair (LMC paths are not
 * enumerated; NumbPath only bounds that one).
 *
 * Partitions and the requester: a path is answered only in a partition
 * the requester (req->requester) is a member of, full or limited, so a
 * host learns no path inside a partition it is not in (a path is usable
 * only within its P_Key, IBA 10.9; when the requester is an end this
 * already holds).  Without a P_Key in the request the default partition
 * is preferred, then the lowest one the ends share and the requester is
 * in; a requested P_Key outside the requester's partitions gives no
 * record.  Trusted requesters (the request's SM_Key is sa->v.sm_key, not
 * 0) see every path.  An unknown requester (FABRIC_NONE) is a member of
 * nothing when there is a partition plan; without one everyone, unknown
 * requesters included, is in the default partition.  OpenSM checks less:
 * that the requester shares some P_Key with each end.
 *
 * sa_mpath_handle answers MultiPathRecord GetMulti (IBA 15.2.5.20) with
 * PathRecords: for each SGID in list order, each DGID in list order, the
 * record a PathRecord Get with those two GIDs and the template's
 * constraints would give, from the same requester (so pairs that share no
 * partition, whose partition the requester is not in, or that a
 * selector, SL or Reversible rules out, give none).  NumbPath, when
 * selected and not 0, caps the records of the whole answer.
 * IndependenceSelector is accepted and ignored: there is one path per
 * pair, so there is nothing to choose between.  A GID that is not a port
 * of this subnet (a multicast GID, another subnet's) is INVALID_GID for
 * the whole request.  Only the GIDs that fit in one MAD are read
 * (SA_MPATH_GIDS_MAX, 11): a larger SGIDCount + DGIDCount is REQ_INVALID
 * because the transport queues only a request's first 256 bytes (under
 * ibsim/umad2sim, which has no RMPP, and in mad/mad_port.c on hardware).
 */
#ifndef NANOSM_SM_SA_PATHS_H
#define NANOSM_SM_SA_PATHS_H

#include <stdint.h>

#include "sm/sa/server.h"

#define SA_PATH_MAX_HOPS 64 /* links; a longer walk is a loop */
/* Records one answer may hold (16 MiB): an all-pairs GetTable on a big
 * subnet gets SA_STATUS_NO_RESOURCES rather than eating the SM's memory. */
#define SA_PATH_TABLE_MAX (1u << 18)
#define SA_PATH_CACHE_BITS 13
#define SA_PATH_CACHE_SLOTS (1u << SA_PATH_CACHE_BITS) /* 8192 pairs, ~80 KiB */

struct sa_paths;

/* What the LFTs give from one port to one LID. */
struct sa_path_fact {
	uint8_t reachable;
	uint8_t hops; /* links crossed */
	uint8_t mtu;  /* PortInfo MTU enum */
	uint8_t rate; /* PathRecord Rate enum */
	uint8_t life; /* PacketLifeTime value (no selector bits) */
};

struct sa_paths *sa_paths_new(void); /* NULL on ENOMEM */
void sa_paths_free(struct sa_paths *pc);
void sa_paths_flush(struct sa_paths *pc);

/* Facts of the path from port src to dlid over sa's view, through the
 * cache when sa->paths is set.  Counts sa->counters.path_queries (each
 * call) and path_cache_hits (each call the cache answered).  0, or
 * -ENOENT when src is not a port of the view or there is no view. */
int sa_path_facts(struct sa *sa, struct sa_port_ref src, uint16_t dlid, struct sa_path_fact *out);

/* The handler of SA_ATTR_PATH_RECORD (an sa_handler_fn). */
uint16_t sa_path_handle(struct sa *sa, const struct sa_req *req, struct sa_out *out);
/* The handler of SA_ATTR_MULTIPATH_RECORD (GetMulti only). */
uint16_t sa_mpath_handle(struct sa *sa, const struct sa_req *req, struct sa_out *out);

#endif
