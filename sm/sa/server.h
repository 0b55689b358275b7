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
#include "sm/sa/quota.h"

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
	uint64_t mlid_refused;	  /* joins refused: no MLID the switches hold */
	uint64_t quota_refused;	  /* requests refused: the port was over a quota */
	uint64_t report_retries;  /* Reports sent again (no ReportResp in time) */
	uint64_t report_deferred; /* Reports held back by the per-subscriber rate */
	uint64_t subs_dropped;	  /* subscriptions dropped: Reports never answered */
};

/* The limits a client meets (docs/sa.md, "Limits"); 0 = none.  The
 * defaults (SA_LIMIT_*) are the policy's (`sa:` section). */
#define SA_LIMIT_GROUPS_PER_PORT 512
#define SA_LIMIT_SERVICES_PER_PORT 256
#define SA_LIMIT_SUBS_PER_PORT 64
#define SA_LIMIT_REPORTS_PER_S 20    /* per subscriber port */
#define SA_LIMIT_REPORT_RETRIES 3    /* then the subscription is dropped */
#define SA_LIMIT_REPORT_WAIT_MS 1000 /* for a ReportResp before sending again */
struct sa_limits {
	uint32_t groups_per_port, services_per_port, subs_per_port;
	uint32_t reports_per_s, report_retries;
};

/* What the SA refused or gave up on, for its owner to log (the SA itself
 * does not log).  port_guid: the port concerned (0: unknown). */
enum sa_note_kind {
	SA_NOTE_MLID_FULL,  /* a join needed an MLID and none is left under the cap */
	SA_NOTE_QUOTA,	    /* a port reached its quota (quota: enum sa_quota_kind) */
	SA_NOTE_SUB_DROPPED /* a subscriber never answered its Reports */
};
struct sa_note {
	enum sa_note_kind kind;
	uint64_t port_guid;
	uint16_t lid;
	int quota;	/* SA_NOTE_QUOTA: enum sa_quota_kind */
	uint32_t limit; /* the quota, or the MLIDs the switches hold */
	uint32_t tries; /* SA_NOTE_SUB_DROPPED: Reports sent without an answer */
};
typedef void (*sa_note_fn)(void *ctx, const struct sa_note *n);

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
	struct sa_quota *quota; /* what each port holds (quota.c) */
	struct sa_limits lim;
	unsigned mlid_cap; /* MLIDs the switches hold from 0xC000 (sa_update) */
	sa_note_fn note;   /* may be NULL */
	void *note_ctx;
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
/* Periodic work (service lease expiry, Reports due); call at least once
 * a second, and again by the time it returns (0: nothing waits). */
uint64_t sa_tick(struct sa *sa, uint64_t now_ms);
/* The limits in force from now on (existing objects stay). */
void sa_set_limits(struct sa *sa, const struct sa_limits *lim);
/* Tell the owner (note may be NULL) about n. */
void sa_note(const struct sa *sa, const struct sa_note *n);

/* What the SA holds against its limits, for status and the metrics. */
#define SA_USAGE_TOP 3
struct sa_usage {
	unsigned mlid_cap, mlids_used;
	size_t held[SA_QUOTA_KINDS]; /* by enum sa_quota_kind */
	uint32_t limit[SA_QUOTA_KINDS];
	struct {
		uint64_t guid;
		uint32_t used;
	} top[SA_QUOTA_KINDS][SA_USAGE_TOP]; /* the biggest holders; guid 0 ends a list */
};
void sa_get_usage(const struct sa *sa, struct sa_usage *u);
/* MLIDs every switch of f holds from 0xC000 (limits.c). */
unsigned sa_limits_mlid_cap(const struct fabric *f);

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
