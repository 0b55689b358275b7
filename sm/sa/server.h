/*
 * sm/sa/server.h - the Subnet Administrator: answers SA queries (class 0x03) from a
 * view of the last good sweep.
 *
 * DOC: struct sa holds a read-only view of what the SM programmed (the
 * fabric model, the LFTs, the partition plan), lookup maps rebuilt by
 * sa_update, and the state of the SA modules: path records (paths.c),
 * multicast groups (mcast.c), services and event subscriptions
 * (services.c).  sa_recv decodes one request, hands it to the handler of its
 * attribute and encodes the answer: a Get returns exactly one record
 * (NO_RECORDS / TOO_MANY_RECORDS otherwise), a GetTable every match.
 * Nothing here touches an fd or a clock: answers leave through the struct
 * mad_xmit it is given, time comes in as now_ms.
 *
 * Files: server.c (dispatch, view, lookups, response encoding), records.c
 * (Node/PortInfo/Link/SwitchInfo/LFT/GUIDInfo/PKeyTable/SMInfo records,
 * ClassPortInfo), paths.c (PathRecord), mcast.c (MCMemberRecord, groups),
 * services.c (ServiceRecord, InformInfo, Notice reports).
 */
#ifndef NANOSM_SM_SA_SERVER_H
#define NANOSM_SM_SA_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "mad/mad_queue.h"
#include "mad/sa.h"
#include "routing/fabric.h"

struct pkey_plan;
struct mft_set;
struct sa_paths;
struct mcast_db;
struct sa_svc;

/* What the SA answers from.  Every pointer is borrowed and stays valid
 * until the next sa_update (the SM keeps them alive between sweeps). */
struct sa_view {
	const struct fabric *f;	    /* last good model; NULL before the first sweep */
	const struct lft_set *lfts; /* programmed LFTs of f's switches, NULL = none */
	const struct pkey_plan *pk; /* partitions; NULL = every port a full member of 0x7fff */
	const struct mft_set *mfts; /* multicast tables being programmed, NULL = none */
	uint64_t subnet_prefix;	    /* GID prefix, e.g. 0xfe80000000000000 */
	uint16_t sm_lid;
	uint64_t sm_guid; /* SM port GUID */
	uint64_t sm_key;
	uint8_t sm_priority, sm_state;
	uint32_t sm_act_count;
	uint8_t subnet_timeout;
	uint64_t route_gen; /* changes whenever f, lfts or pk change (cache key) */
};

/* A port of the view: node index and port number (switch: 0). */
struct sa_port_ref {
	int node; /* FABRIC_NONE when not found */
	uint8_t port;
};

struct sa_counters {
	uint64_t requests;  /* SA MADs received */
	uint64_t answered;  /* responses sent */
	uint64_t errors;    /* responses with a non-zero status */
	uint64_t malformed; /* did not decode (no answer possible) */
	uint64_t reports;   /* Notice reports sent to subscribers */
	uint64_t path_queries, path_cache_hits;
	uint64_t deferred;	  /* held back while a sweep ran (sm.c) */
	uint64_t backlog_dropped; /* dropped: the backlog was full (sm.c) */
};

struct sa {
	struct sa_view v;
	struct mad_xmit xmit;
	/* lookup maps over v.f (server.c) */
	struct sa_port_ref *by_lid; /* indexed by LID, size n_by_lid */
	size_t n_by_lid;
	uint64_t *guid_keys; /* port GUID -> ref, open addressing */
	struct sa_port_ref *guid_vals;
	size_t guid_cap;
	/* modules */
	struct sa_paths *paths;
	struct mcast_db *mcast;
	struct sa_svc *svc;
	struct sa_counters counters;
};

/* One request being answered. */
struct sa_req {
	const struct sa_mad *mad;
	struct mad_addr from;
	struct sa_port_ref requester; /* from.lid resolved; node FABRIC_NONE if unknown */
	uint64_t now_ms;
};

/* The records of an answer.  A handler sets rec_size (its record's padded
 * size) and adds every match; server.c turns them into the response. */
struct sa_out {
	uint16_t rec_size;
	uint8_t *recs;
	size_t n, cap;
};

int sa_out_add(struct sa_out *o, const uint8_t *rec); /* 0 or -ENOMEM */

/* A handler returns the MAD status of the answer (enum sa_status). */
typedef uint16_t (*sa_handler_fn)(struct sa *sa, const struct sa_req *req, struct sa_out *out);

struct sa *sa_new(const struct mad_xmit *xmit);
void sa_free(struct sa *sa);
/* Take a new view (copied; its pointers borrowed) and rebuild the maps.
 * Modules drop state about ports that left (multicast members, path
 * cache when route_gen changed).  0 or -ENOMEM (then the SA keeps
 * answering, with NO_RECORDS, until the next update). */
int sa_update(struct sa *sa, const struct sa_view *v);
/* One received SA MAD: answer it (through xmit).  Never fails on bad input:
 * a request that decodes gets an error status, one that does not is
 * counted in malformed and dropped. */
void sa_recv(struct sa *sa, const struct mad_addr *from, const uint8_t *mad, size_t len,
	     uint64_t now_ms);
/* Periodic work (service lease expiry); call at least once a second. */
void sa_tick(struct sa *sa, uint64_t now_ms);

/* Lookups over the current view. */
struct sa_port_ref sa_by_lid(const struct sa *sa, uint16_t lid);
struct sa_port_ref sa_by_guid(const struct sa *sa, uint64_t port_guid);
/* A GID of this subnet (prefix v.subnet_prefix or the link-local
 * fe80::/64) -> its port; node FABRIC_NONE otherwise. */
struct sa_port_ref sa_by_gid(const struct sa *sa, const uint8_t gid[16]);
/* The port struct of a ref (NULL when node is FABRIC_NONE). */
const struct fabric_port *sa_port(const struct sa *sa, struct sa_port_ref r);
/* Base LID of the port (a switch port: the switch's port-0 LID). */
uint16_t sa_port_lid(const struct sa *sa, struct sa_port_ref r);
/* The port's GID: v.subnet_prefix then the port GUID, big-endian. */
void sa_port_gid(const struct sa *sa, struct sa_port_ref r, uint8_t gid[16]);
void sa_gid_make(uint64_t prefix, uint64_t guid, uint8_t gid[16]);

#endif
