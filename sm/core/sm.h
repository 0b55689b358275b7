/*
 * sm/core/sm.h - the subnet manager core: sweep -> LIDs -> ports -> routes -> ACTIVE.
 *
 * DOC: struct sm drives one sweep at a time as a chain of phases, each a
 * batch of SMPs on the MAD queue; a phase ends when its last SMP completes.
 * It owns the MAD queue, the LID allocator, the last good fabric model and
 * the cache of LFT blocks each switch holds.  It never touches an fd or the
 * event loop: MADs go out through the struct mad_xmit it is given, arrive
 * through sm_recv, time is read through struct sm_clock, and the caller
 * calls sm_tick when sm_next_deadline says so.  So the whole SM runs in unit
 * tests against the fake fabric and in the daemon against libibumad.
 */
#ifndef NANOSM_SM_CORE_SM_H
#define NANOSM_SM_CORE_SM_H

#include <stddef.h>
#include <stdint.h>

#include "mad/mad_queue.h"
#include "routing/fabric.h"
#include "routing/lid_alloc.h"

struct sm_opts {
	uint64_t port_guid;	  /* the SM's own port GUID (SMInfo) */
	uint8_t priority;	  /* SMInfo priority 0..15 */
	uint64_t subnet_prefix;	  /* default 0xfe80000000000000 */
	uint8_t subnet_timeout;	  /* PortInfo SubnetTimeOut, default 18 */
	const char *guid2lid;	  /* path of the persisted LID map, NULL = none */
	unsigned lid_reclaim_age; /* policy lids.reclaim_age: seconds, 0 = never */
	const char *engine;	  /* routing engines in fallback order, comma-separated
				   * ("ftree,vlsp,updn,minhop"): the first that routes and
				   * passes the gate wins */
	const uint64_t *roots;	  /* root switch GUIDs for updn/ftree (borrowed) */
	size_t n_roots;
	struct mad_queue_opts mad;
	/* Keys (policy sm.m_key etc.; fixed for the life of the struct sm:
	 * a change needs a restart).  Every SMP carries m_key; with m_key
	 * != 0 every CA port and switch port 0 is programmed with it, its
	 * protection bits and lease.  m_key 0 = ports' M_Key fields are left
	 * as they are.  sm_key: returned in SMInfo to requesters that present
	 * it, and what makes an SA request trusted. */
	uint64_t m_key;
	uint8_t m_key_protect; /* M_KeyProtectBits 0..3 */
	uint16_t m_key_lease;  /* M_KeyLeasePeriod, seconds, 0 = never expires */
	uint64_t sm_key;
	/* Test aid (--test-vl-switch): the paths to the LIDs of this switch
	 * and of the CA ports cabled to it ride SL 1, whatever the engine
	 * said, so SLtoVL programming and PathRecord SLs can be checked
	 * without a VL-aware engine.  0: off. */
	uint64_t test_vl_switch;
};

struct sm_clock {
	uint64_t (*now_ms)(void *ctx); /* monotonic milliseconds */
	void *ctx;
	/* Unix seconds, for the last-seen times kept in guid2lid; NULL = none
	 * (nothing is stamped, so nothing is ever reclaimed) */
	uint64_t (*wall_s)(void *ctx);
};

/* Figures of one sweep (printed on the "sweep N:" line). */
struct sm_sweep_stats {
	unsigned number; /* 1 for the first sweep */
	int status;	 /* 0 ok, else negative errno */
	size_t switches, cas, ports, lids;
	size_t unreachable;  /* nodes/ports that did not answer */
	size_t lid_failures; /* ports left without a LID */
	size_t port_sets;    /* PortInfo Sets for configuration (LID, MTU, ...) */
	size_t state_sets;   /* PortInfo Sets moving ports to ARMED/ACTIVE */
	size_t switchinfo_sets;
	size_t lft_blocks_sent;
	size_t lft_steps;	 /* steps the LFT writes took (lft_push.c: loop-free order) */
	size_t lft_blocks_read;	 /* LFT block Gets (switches the LFT cache did not know) */
	size_t pkey_blocks_sent; /* P_KeyTable Sets (partitions) */
	size_t sl2vl_sets;	 /* SLtoVLMappingTable Sets (sl2vl_push.h) */
	size_t sl2vl_reads;	 /* SLtoVLMappingTable Gets (pairs the cache did not know) */
	unsigned vls;		 /* VLs the winning tables' paths use (lft_set.n_vls) */
	size_t mft_blocks_sent;	 /* MulticastForwardingTable Sets */
	size_t set_errors;	 /* Sets that failed or were refused */
	uint64_t mads_sent;	 /* during this sweep, retries included */
	uint64_t sweep_ms;
	const char *engine;	 /* the engine whose tables were used ("none") */
	char engine_why[512];	 /* why that one: the list, and the engines passed
				  * over before it with the reason (names added) */
	size_t gate_refusals;	 /* engines whose tables failed the gate */
	size_t stale;		 /* nodes that did not answer, kept as last seen */
	size_t alt_tries;	 /* SMPs asked again over another directed route */
	size_t alt_ok;		 /* ... and answered there */
	size_t quarantined;	 /* targets that missed QUAR_AFTER sweeps in a row */
	unsigned incomplete_run; /* sweeps in a row, this one included, that left
				  * work undone (0: this one is complete) */
	uint8_t sm_state;	 /* enum sm_state when it ended: STANDBY = another SM
				  * is master, nothing was programmed */
};

typedef void (*sm_sweep_done_fn)(void *arg, const struct sm_sweep_stats *st);

/* What a finished sweep says of the subnet.  COMPLETE: master, and every
 * node answered and every Set took.  DEGRADED: master, and this is the
 * SM_DEGRADED_AFTER-th sweep in a row that left work undone; what keeps
 * failing is quarantined and retried (quarantine.h), the rest is up.  NO:
 * not master, the sweep failed, or an incomplete sweep that is retried
 * soon. */
enum sm_subnet { SM_SUBNET_NO = 0, SM_SUBNET_DEGRADED = 1, SM_SUBNET_COMPLETE = 2 };
#define SM_DEGRADED_AFTER 3
enum sm_subnet sm_subnet_state(const struct sm_sweep_stats *st);

struct sm;
struct quar;
struct lft_set;

#define LFT_PUSH_STORY_PUBLIC 1024

struct sm *sm_new(const struct sm_opts *opts, const struct mad_xmit *xmit,
		  const struct sm_clock *clock);
void sm_free(struct sm *sm);

/* Change the routing engines (comma list) and roots.  Unless force, the
 * last good fabric is routed with them first and the tables must pass the
 * gate (nothing is pushed): on failure the old settings stay, err says
 * why, and -EINVAL is returned.  The next sweep pushes the new routes
 * (changed blocks only).  Copies what it is given. */
int sm_set_routing(struct sm *sm, const char *engines, const uint64_t *roots, size_t n_roots,
		   int force, char *err, size_t errlen);
void sm_set_priority(struct sm *sm, uint8_t priority);
/* Node names (policy node_names): a named node's NodeDescription is
 * replaced by its name in the model, so logs and every output use it from
 * the next sweep on.  Copies guids[i]/names[i]; 0 or -ENOMEM. */
int sm_set_names(struct sm *sm, const uint64_t *guids, const char *const *names, size_t n);
/* A dry run of a routing change on the last good fabric: the engine that
 * would win, the LFT blocks per switch that would be written, the routes
 * that move, and scores before/after.  Pushes nothing.  Returns text
 * (caller frees) or NULL when out of memory; refused (refusedlen bytes)
 * is set to why a reload with this routing would be refused (the text
 * says "refused: ..."), "" when it would not. */
char *sm_plan(struct sm *sm, const char *engines, const uint64_t *roots, size_t n_roots,
	      int verbose, char *refused, size_t refusedlen);
/* (refused: the whole reason, "the new routing fails the gate: ..." or
 * sm_plan_worse's.) */

/* What a routing change would do, judged on the last good fabric without
 * pushing anything: the engine that would win, why (the engines passed
 * over, with names), and the scores of the tables in force and of the new
 * ones (shift all-to-all worst link load over 256 shifts, EBB over 100
 * bisections, EFI).  worse: EBB down by more than SM_WORSE_EBB or the worst
 * link load up - a reload of such routing is refused unless forced. */
#define SM_WORSE_EBB 0.10
struct sm_routing_verdict {
	char engine[32]; /* "" when no engine passes the gate */
	char why[LFT_PUSH_STORY_PUBLIC];
	int scored; /* the scores are set (tables in force and new ones) */
	double ebb_old, ebb_new;
	uint64_t worst_old, worst_new, efi_old, efi_new;
	size_t shifts, bisections;
	int worse;
};
/* 0: an engine passes (v filled; keep, if given and initialised, gets its
 * tables), -EINVAL: none does (v->why says why), -EAGAIN: no fabric swept
 * yet (nothing can be judged), -ENOMEM. */
int sm_routing_check(struct sm *sm, const char *engines, const uint64_t *roots, size_t n_roots,
		     struct lft_set *keep, struct sm_routing_verdict *v);
/* One line of v's scores: "EBB 0.5304 -> 0.1189, worst link load 1 -> 8". */
void sm_routing_scores_str(const struct sm_routing_verdict *v, char *out, size_t size);
/* Why a reload of v's routing is refused when v->worse, with the scores. */
void sm_plan_worse(const struct sm_routing_verdict *v, char *out, size_t size);
/* A static LID (policy lids.static): reserved before guid2lid is read, so
 * it wins over a persisted one.  lid_alloc_reserve's return codes. */
int sm_reserve_lid(struct sm *sm, uint64_t guid, uint16_t lid);
struct policy_static_lid;
/* Static LIDs a reload changes (policy lids.static, old -> next): every
 * port whose static LID is new or different (and not the LID the map
 * already gives it) moves to it; unchanged and removed ones are left
 * alone.  The moves are checked together against the LID map: a LID
 * another port holds (unless that port moves away too) or one above the
 * switches' LinearFDBCap refuses them all, -EEXIST / -ERANGE with text
 * naming both ports.  Otherwise text gets one line per move ("port
 * 0x.../1 (host1): static LID 0x0010 -> 0x0020 at the next sweep") and,
 * with apply, the map changes at once (old LIDs freed, new ones reserved):
 * the next heavy sweep programs the ports (PortInfo Set), routes and SA
 * answers follow, and it logs each move.  Returns the number of moves,
 * or a negative errno (-ENOMEM). */
int sm_static_lids(struct sm *sm, const struct policy_static_lid *old, size_t n_old,
		   const struct policy_static_lid *next, size_t n_next, int apply, char *text,
		   size_t textlen);
/* policy lids.reclaim_age (seconds, 0 = never), from the next sweep on. */
void sm_set_lid_reclaim_age(struct sm *sm, unsigned seconds);

/* Load the guid2lid file named in opts (if any). Returns 0 or -errno. */
int sm_load_lids(struct sm *sm);

void sm_set_sweep_done(struct sm *sm, sm_sweep_done_fn fn, void *arg);
/* Light sweeps: the periodic check between heavy sweeps. */
struct sm_light_stats {
	uint64_t runs;		   /* light sweeps started */
	uint64_t escalations;	   /* those that found a change and asked for a heavy sweep */
	uint64_t last_mads;	   /* MADs the last one sent */
	uint64_t ca_reads;	   /* CA ports read to refresh M_Key leases */
	uint64_t last_ms;	   /* how long it took */
	uint64_t traps_suppressed; /* repeated traps repressed without a sweep */
	uint64_t traps_coalesced;  /* traps that joined the sweep of an earlier one */
};

/* A light sweep: SwitchInfo of every switch of the last good model; a
 * switch whose PortStateChange is set, or that does not answer, turns it
 * into a heavy sweep (requested when it ends).  -EBUSY while a sweep runs,
 * -EAGAIN before the first good sweep or when the last heavy sweep failed
 * or left work undone (then the caller wants a heavy one).  In STANDBY it
 * polls the master instead (SMInfo Get; after STANDBY_MISSES failed polls
 * a heavy sweep decides again); -EPERM in NOTACTIVE. */
int sm_light_sweep(struct sm *sm);
const struct sm_light_stats *sm_light_stats(const struct sm *sm);
/* What keeps failing, sweep after sweep (borrowed; see quarantine.h). */
const struct quar *sm_quarantine(const struct sm *sm);

/* Start a heavy sweep now; -EBUSY if one is running (then it is remembered
 * and run once the current one ends: requests coalesce); -EPERM in
 * STANDBY or NOTACTIVE (another SM programs the subnet). */
int sm_sweep_request(struct sm *sm);
int sm_busy(const struct sm *sm);
/* SMPs sent and not yet answered or given up (the MAD queue's). */
size_t sm_outstanding(const struct sm *sm);

/* A MAD arrived for the SM. */
void sm_recv(struct sm *sm, const struct mad_addr *from, const uint8_t *mad, size_t len);
/* Expire/retry MADs; returns the next deadline (ms) or 0. */
uint64_t sm_tick(struct sm *sm);

const struct fabric *sm_fabric(const struct sm *sm); /* last good model */
/* The tables committed with sm_fabric() (the SA answers from them); NULL
 * before the first good sweep.  A running sweep routes its own model into
 * tables of its own and commits both together, so these never change
 * under a reader between sweeps or while a sweep routes. */
const struct lft_set *sm_lfts(const struct sm *sm);
const struct lid_alloc *sm_lids(const struct sm *sm);
const struct mad_counters *sm_mad_counters(const struct sm *sm);
uint16_t sm_lid(const struct sm *sm);
/* The SM state SMInfo answers (enum sm_state: DISCOVERING at start). */
uint8_t sm_state(const struct sm *sm);
/* The SM a standby follows: 0 with its port GUID and LID, -ENOENT when
 * not standby. */
int sm_master(const struct sm *sm, uint64_t *guid, uint16_t *lid);
/* SA requests dropped because this SM was not master. */
uint64_t sm_sa_dropped(const struct sm *sm);

struct sa;
struct policy_partition;
/* The Subnet Administrator answering for this SM (sa.h). */
const struct sa *sm_sa(const struct sm *sm);
struct sa_limits;
/* The SA's per-port quotas and Report limits (policy sa:), from now on. */
void sm_set_sa_limits(struct sm *sm, const struct sa_limits *lim);
/* Partitions from the policy (copied): P_Key tables, multicast groups and
 * SA answers follow them from the next sweep on.  0 or -ENOMEM. */
int sm_set_partitions(struct sm *sm, const struct policy_partition *parts, size_t n);
struct policy_node_name;
/* The guid and name members of parts (names: the policy's node_names)
 * that match no port of the last good model, for plan and reload: a
 * heading line, then one line each with what it matched instead
 * (pkey_member.h).  malloc'ed (caller frees); NULL when all match, before
 * the first good sweep, or out of memory. */
char *sm_partition_unmatched(const struct sm *sm, const struct policy_partition *parts,
			     size_t n_parts, const struct policy_node_name *names, size_t n_names);

struct progress_snap;
/* Where a running heavy sweep is (progress.h); s->running 0 when none runs. */
void sm_progress_snap(const struct sm *sm, struct progress_snap *s);
/* Log a progress line when one is due (a sweep older than 2 s, at most one
 * line per 2 s); the loop calls it after MAD activity. */
void sm_progress_tick(struct sm *sm);

#endif
