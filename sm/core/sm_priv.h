/*
 * sm/core/sm_priv.h - struct sm and what the SM core's files share: the
 * one private header of sm/core/, included by its .c files and by the
 * white-box unit tests only.  Each file owns the part of struct sm its
 * comment names (a sub-struct where it has one: calls, sweep, light,
 * sa_backlog, ha).
 */
#ifndef NANOSM_SM_CORE_SM_PRIV_H
#define NANOSM_SM_CORE_SM_PRIV_H

#include "config/pkey.h"
#include "config/policy.h"
#include "routing/dr_walk.h"
#include "routing/lid_alloc.h"
#include "routing/mft.h"
#include "routing/route.h"
#include "sm/core/quarantine.h"

/* Kinds of warning counted per sweep, and how many of one kind are
 * logged before the rest go to debug level (warn_group.c). */
#define WARN_GROUPS 16
#define WARN_GROUP_SHOWN 3

/* Room for the story of a routing fallback (lft_push.c). */
#define LFT_PUSH_STORY LFT_PUSH_STORY_PUBLIC
#include "sm/core/sm.h"
#include "sm/core/standby.h"
#include "sm/sa/server.h"

/* What one switch's LFT holds as far as the SM knows: blocks it wrote or
 * read (lft_push.c). */
struct lft_cache_entry {
	uint64_t guid;
	uint16_t top;
	uint8_t *port; /* top + 1 entries */
};

struct sl2vl_cache;

/* What a set of tables was routed from (lft_push.c): the fabric's key
 * (fabric_key) and the routing options after it, and what the routing
 * said.  A sweep whose key is the same uses the tables again. */
struct lft_routed {
	uint8_t *key; /* NULL: none */
	size_t len;
	const char *engine; /* the engine whose tables won (static) */
	char why[512];	    /* sm_sweep_stats.engine_why of that sweep */
	unsigned sweep;	    /* the sweep that ran the engine */
};

struct lft_cache {
	struct lft_cache_entry *e;
	size_t n, cap;
};

typedef void (*sm_phase_fn)(struct sm *sm);

/* configure_states' walk over the nodes, a batch at a time (configure.c). */
struct sm_states_walk {
	int active;
	size_t next; /* next node of sm->next */
	uint8_t from, to;
	sm_phase_fn then;
};

/* A small set of port GUIDs (configure.c): ports nanosm warned about. */
struct sm_guid_set {
	uint64_t *guid;
	size_t n, cap;
};

#define SM_RETRY_FIRST_MS 500 /* an incomplete sweep is retried after this */
#define SM_RETRY_MAX_MS 30000 /* ... doubling up to this */
#define SM_TRAP_SLOTS 64      /* distinct (LID, trap) pairs remembered */
#define SM_TRAP_QUIET_MS 1000 /* the same trap again within this: repressed only */
/* A trap's sweep starts this long after it, so that the traps of one event
 * (both ends of a pulled cable, a switch's several ports) join one sweep */
#define SM_TRAP_HOLD_MS 50

struct sm_trap_seen {
	uint16_t lid, trap;
	uint8_t used;
	uint64_t last_ms;
	uint64_t suppressed;
};

#define SM_HA_PEERS 16 /* other SMs a sweep keeps track of */

/* Another SM and the way to it (ha.c). */
struct sm_ha_peer {
	struct standby_sm sm; /* as its SMInfo said */
	uint16_t lid;	      /* its port's LID */
	int node;	      /* in the sweep's model */
	uint8_t port;
	uint8_t hops;
	uint8_t path[FABRIC_MAX_HOPS + 1];
};

/* The SM state machine (ha.c, decisions in standby.c). */
struct sm_ha {
	uint8_t state;			      /* enum sm_state, what SMInfo answers */
	struct sm_ha_peer peers[SM_HA_PEERS]; /* SMs the running sweep found */
	size_t n_peers;
	struct sm_ha_peer master; /* the SM a standby follows (has_master) */
	int has_master;
	struct standby_poll poll;
	int takeover;		   /* becoming master after a standby: keep the ports' LIDs */
	uint64_t handover_refused; /* a standby that did not take our HANDOVER */
	uint64_t sa_dropped;	   /* SA requests dropped while not master */
	uint64_t polls;		   /* SMInfo polls of the master sent */
	sm_phase_fn then;	   /* the sweep's next phase when we are master */
	int handover_done;	   /* the HANDOVER Set was answered */
	size_t handover_to;	   /* peers[] index it went to */
	int poll_answered;	   /* the running poll got the master's SMInfo */
	uint8_t poll_state;	   /* and the state it said */
};

/* The running phase's SMPs and the paced queue (calls.c). */
struct sm_call;

struct sm_calls {
	size_t pending;		      /* SMPs outstanding in the current phase */
	sm_phase_fn phase_done;	      /* runs once pending is 0 (sm_phase_wait) */
	sm_phase_fn feed;	      /* queues more of the phase once pending <= SM_FEED_LOW */
	struct sm_deferred *deferred; /* sm_submit_paced's FIFO: [deferred_head, n_deferred) */
	size_t deferred_head, n_deferred, cap_deferred;
	struct sm_call *pool; /* finished calls kept for reuse (SM_CALL_POOL at most) */
	size_t pooled;
};

/* The heavy sweep (sweep.c): where the running one is, and when the next
 * one is due. */
struct sm_sweep {
	unsigned phase;		/* the running phase: an index in sweep.c's table */
	int heavy;		/* a heavy sweep is running (not a light sweep, a poll or a push) */
	int pending;		/* one was asked for while something ran */
	unsigned count;		/* heavy sweeps started: the running one's number */
	uint64_t start_ms;	/* when the running sweep (heavy or light) started */
	uint64_t mads_at_start; /* MADs sent before it */
	unsigned incomplete_run; /* heavy sweeps in a row that left work undone */
	int heavy_due;		 /* the last heavy sweep failed or left work: next one heavy too */
	uint64_t retry_ms;	 /* current back-off of those retries */
	uint64_t retry_due_ms;	 /* when the retry sweep is due (0: none) */
	uint64_t mcast_gen;	 /* multicast membership generation last pushed */
	int mcast_only;		 /* running is a multicast push between sweeps */
	size_t mft_blocks_at;	 /* st.mft_blocks_sent when that push started */
	struct progress *prog;	 /* the progress line's rate limit, made on first use */
};

/* Light sweeps and traps (light.c): what the running light sweep found,
 * and the trap rate limit. */
struct sm_light {
	int running;	      /* the running activity is a light sweep */
	int changed;	      /* it found a change: a heavy sweep follows */
	char why[160];	      /* the first change it found */
	uint64_t ca_touch_ms; /* when a light sweep last read every CA port (M_Key lease) */
	int ca_touched;	      /* ... if one did */
	struct sm_light_stats st;
	struct sm_trap_seen traps[SM_TRAP_SLOTS]; /* recent (source LID, trap number) pairs */
	uint64_t trap_due_ms; /* a repressed trap still wants a sweep then (0: none) */
	uint64_t hold_due_ms; /* the held traps' sweep starts then (0: none held) */
	unsigned held;	      /* traps joined to that sweep */
};

/* SA requests that arrive while a sweep runs wait here, so the sweep's
 * SMPs do not queue behind a flood of SA answers (sa_backlog.c). */
struct sm_sa_backlog {
	struct sm_sa_pending *q; /* ring of SM_SA_BACKLOG, allocated on first use */
	size_t head, n;
};

/* What the SA refused or gave up, logged at most once a second per kind
 * with the count said since (sa_notes.c). */
#define SM_SA_NOTE_KINDS 3
struct sm_sa_notes {
	uint64_t said_ms[SM_SA_NOTE_KINDS];
	uint64_t quiet[SM_SA_NOTE_KINDS]; /* not said since the last line */
	int said[SM_SA_NOTE_KINDS];
};

struct sm {
	struct sm_opts opts;
	struct sm_clock clock;
	struct mad_queue *q;
	struct lid_alloc lids;
	struct fabric cur;	 /* last good model */
	struct fabric next;	 /* model being built by the running sweep */
	struct fabric *model;	 /* the one sm_req.node indexes now: next during a
				  * heavy sweep until it is committed, else cur */
	struct quar quar;	 /* what kept missing, sweep after sweep */
	struct lft_set lfts;	 /* the running sweep's tables, for next (lft_push.c) */
	struct lft_set lfts_cur; /* the tables of cur, committed with it: what the SA and
				  * the daemon read, and what a plan compares with */
	int lfts_ahead; /* lfts were routed for next, not committed to cur yet */
	struct lft_routed routed;      /* what lfts_cur was routed from */
	struct lft_routed routed_next; /* what lfts was routed from */
	struct lft_cache cache;
	struct lft_steps *lft_steps; /* the running push's batches and steps (lft_push.c) */
	struct sm_states_walk states_walk;
	int running;	       /* a heavy or light sweep, a poll or a multicast push runs */
	struct sm_calls calls; /* the running phase's SMPs (calls.c) */
	struct sm_sweep sweep; /* the heavy sweep and the next one (sweep.c) */
	struct sm_light light; /* light sweeps and traps (light.c) */
	struct sm_sa_backlog sa_backlog; /* SA requests held while a sweep runs (sa_backlog.c) */
	struct sm_sa_notes sa_notes;	 /* the SA's refusals, for the log (sa_notes.c) */
	size_t ports_next;	   /* configure_ports' cursor (node index) */
	sm_phase_fn ports_then;	   /* set while that walk queues */
	sm_phase_fn discover_then; /* what runs after discovery (discover.c) */
	struct dr_walk walk;	   /* discovery's walk, building next (discover.c) */
	uint16_t my_lid;
	uint16_t max_lid;
	uint32_t act_count;
	struct sm_sweep_stats st;
	char engines[256]; /* owned copy of the engine list (opts.engine points here) */
	/* the last routing fallback told in the log (lft_push.c), and how many
	 * sweeps in a row told the same since */
	char fallback_last[LFT_PUSH_STORY];
	unsigned fallback_repeats;
	const char *engine_used; /* the engine of the last tables computed (static) */
	/* warnings of one kind this sweep (warn_group.c) */
	struct warn_group {
		char id[12];
		unsigned count;
	} warn_groups[WARN_GROUPS];
	size_t n_warn_groups;
	uint64_t *roots;   /* owned copy of the roots (opts.roots points here) */
	struct policy_node_name *names; /* policy node names, sorted by GUID (owned) */
	size_t n_names;
	sm_sweep_done_fn done_fn;
	void *done_arg;
	/* Subnet Administration (sm/sa/) and what it answers from */
	struct mad_xmit xmit;
	struct sa *sa;
	uint64_t route_gen;		/* bumped when a sweep changed routes, ports or LIDs */
	struct policy_partition *parts; /* policy partitions (owned deep copy) */
	size_t n_parts;
	struct pkey_plan pk;	  /* partition plan of cur (what the SA answers from) */
	struct pkey_plan pk_next; /* the running sweep's plan, for next */
	/* partition members that matched no port at the last plan (hashes of
	 * their NSM-W422 lines, sorted, owned): each is logged once (pkey_warn.c) */
	uint64_t *pk_unmatched;
	size_t n_pk_unmatched;
	struct pkey_cache *pkc;	    /* P_Key tables the ports hold (pkey_push.c) */
	struct pkey_cache *pk_push; /* the cache a running P_Key push walks (borrowed) */
	struct sl2vl_cache *sl2vlc; /* SLtoVL tables the ports hold (sl2vl_push.c) */
	struct sl2vl_cache *sl2vl_push; /* the cache a running SLtoVL push walks (borrowed) */
	int sls_changed; /* the running sweep's routes moved a DLID to another SL (lft_push.c) */
	struct mft_cache *mftc;	    /* MFT blocks the switches hold (mft_push.c) */
	struct mft_set mft_want;    /* the tables being pushed (borrowed by the push) */
	uint64_t rejected_ms;	 /* when a thrown-away MAD was last logged */
	uint64_t rejected_quiet; /* thrown away since then */
	int rejected_said;	 /* one was logged (rejected_ms is set) */
	/* M_Key trouble, each port logged once (configure.c) */
	struct sm_guid_set mkey_foreign;   /* ports holding an M_Key that is not ours */
	struct sm_guid_set mkey_unkept;	   /* ports that answer a Set but keep no M_Key */
	struct sm_guid_set enforce_unkept; /* switches that keep no P_Key enforcement bits */
	/* CA ports the next sweep asks to reregister (ClientReregister), until
	 * one such PortInfo Set is answered: members of an IPoIB group whose
	 * MTU or rate a reload changed (configure.c) */
	struct sm_guid_set rereg;
	uint64_t mcast_fit_sig; /* the IPoIB groups' misfit ports last said (mcast_policy.c) */
	struct sm_ha ha;
	/* static LIDs a reload moved, logged by the sweep that programs them
	 * (lid_static.c) */
	struct sm_static_move *static_moves;
	size_t n_static_moves;
	struct perfmgr *pm; /* the performance manager, NULL until sm_set_monitor (perfmgr.c) */
};

#define SM_SA_BACKLOG 1024 /* SA requests held during a sweep; more are dropped */
#define SM_SA_PER_SMP 1	   /* held requests answered per SMP answer received */

struct sm_sa_pending {
	struct mad_addr from;
	size_t len;
	uint8_t mad[SA_MAD_SIZE];
};

/* A port a reload gave another static LID: from (0: none) -> to. */
struct sm_static_move {
	uint64_t guid;
	uint16_t from, to;
};

/* The policy's name for node GUID guid, or NULL. */
const char *sm_name_of(const struct sm *sm, uint64_t guid);
/* in, with " (name)" after every node GUID (0x + 16 hex digits) f knows
 * and that has no name after it yet, into out[outlen] (cut short when it
 * does not fit).  Returns the length it needed (guid_names.c). */
size_t sm_guid_names(const struct fabric *f, const char *in, char *out, size_t outlen);
/* warn_group.c: log_warnx("ID message") for the first WARN_GROUP_SHOWN of
 * id this sweep, log_debug after; sm_warn_groups_flush (at the sweep's
 * end) adds one line per id with the count left out and starts over. */
void sm_warnx_grouped(struct sm *sm, const char *id, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void sm_warn_groups_flush(struct sm *sm);

/* pkey_warn.c: at each sweep's partition plan, log (NSM-W422) every member
 * that matches no port of f and was not logged at the last plan;
 * pkey_warn_forget: the next plan logs them all again (new partitions). */
void pkey_warn_sweep(struct sm *sm, const struct fabric *f);
void pkey_warn_forget(struct sm *sm);

/* A per-SMP context: which node/port a request was about. */
struct sm_req {
	struct sm *sm;
	int node;
	uint8_t port;
	uint8_t hops;
	uint8_t path[FABRIC_MAX_HOPS + 1];
	uint32_t extra; /* phase-specific (LFT block number, wanted state, the attribute a
			 * discovery Get asks) */
	void *ctx;	/* phase-specific context pointer, borrowed; sm_submit copies it */
};

/* A Get waiting for room on the queue (sm_submit_paced): ~100 bytes
 * instead of the ~500 a queued SMP takes. */
struct sm_deferred {
	struct sm_req req;
	uint16_t attr;
	uint32_t mod;
	void (*done)(struct sm_req *r, int status, const struct smp *resp);
};

uint64_t sm_now(const struct sm *sm);

/* calls.c: the SMPs of the running phase.
 *
 * Submit one SMP of the current phase (directed route along req's path);
 * counts it pending; done runs with the sm_req, which it must not free,
 * except when the queue is freed (-ECANCELED): then done is not called.
 * done runs from sm_recv or sm_tick, when the answer arrives or the last
 * retry timed out, never from sm_submit itself. */
int sm_submit(struct sm *sm, const struct sm_req *req, uint8_t method, uint16_t attr, uint32_t mod,
	      const uint8_t *data,
	      void (*done)(struct sm_req *r, int status, const struct smp *resp));
/* Run next_phase once every SMP of the current phase has completed: at
 * once (from this call) when none is pending, else from the done hook of
 * the last one to complete. */
void sm_phase_wait(struct sm *sm, sm_phase_fn next_phase);
/* A phase with many SMPs queues them SM_FEED_BATCH at a time: fill while
 * pending < SM_FEED_BATCH, then sm_phase_feed(more), which runs more once
 * only SM_FEED_LOW are left, so the wire never runs dry between batches
 * and the queue holds one batch (~0.5 KB per SMP) instead of the phase
 * (two Sets per cable, every LFT block).  The last batch ends with
 * sm_phase_wait instead. */
#define SM_FEED_BATCH 256
#define SM_FEED_LOW 96
void sm_phase_feed(struct sm *sm, sm_phase_fn more);
/* One batch of a walk over items [*next, n): one(sm, i) for each while
 * fewer than SM_FEED_BATCH SMPs are pending.  Returns 1 when items remain
 * (more, the caller, runs again through sm_phase_feed), 0 when all are
 * queued (the caller ends the walk, usually with sm_phase_wait). */
int sm_feed_walk(struct sm *sm, size_t *next, size_t n, void (*one)(struct sm *sm, size_t i),
		 sm_phase_fn more);
/* A Get of a phase that finds its own work as answers come (discovery: a
 * breadth-first walk): sent now while fewer than SM_FEED_BATCH SMPs are
 * pending, else kept in a compact FIFO and sent, in order, as room frees
 * (a 4K-CA fabric had 12 500 discovery SMPs queued at once, 6 MB).  The
 * phase's sm_phase_wait runs only once the FIFO is empty too.  0, or
 * -ENOMEM (the Get is dropped). */
int sm_submit_paced(struct sm *sm, const struct sm_req *req, uint16_t attr, uint32_t mod,
		    void (*done)(struct sm_req *r, int status, const struct smp *resp));
/* Forget the continuations and free the paced FIFO (sm_free, before the
 * queue completes what is pending with -ECANCELED). */
void sm_calls_fini(struct sm *sm);

/* sweep.c: the heavy sweep (its phases are a table there).
 *
 * Fail the running sweep (NSM-E100 with why): the last good state stays,
 * and the sweep ends as sm_sweep_end says. */
void sm_sweep_fail(struct sm *sm, int status, const char *why);
/* End the running sweep: figures to the done hook (called from here),
 * then sm_activity_end. */
void sm_sweep_end(struct sm *sm);
/* Whatever ran (a heavy or light sweep, a poll, a multicast push) is
 * over: running cleared, held SA requests answered, and a sweep asked for
 * meanwhile started, from this call. */
void sm_activity_end(struct sm *sm);
/* A join or leave between sweeps changed the groups: push the MFTs now
 * (nothing while something runs: a sweep pushes them at its end). */
void sweep_mcast_check(struct sm *sm);

/* sa_backlog.c: an SA MAD is answered at once, or held while something
 * runs; release answers up to max held ones (all when 0), oldest first,
 * and stops early when an answer started a multicast push. */
void sa_backlog_recv(struct sm *sm, const struct mad_addr *from, const uint8_t *mad, size_t len);
void sa_backlog_release(struct sm *sm, size_t max);
void sa_backlog_fini(struct sm *sm);
/* sa_notes.c: the SA's note hook (struct sa.note), ctx the sm. */
struct sa_note;
void sa_notes_hook(void *ctx, const struct sa_note *n);

/* light.c: a trap (its repression sent, a sweep asked for unless it is a
 * repeat within SM_TRAP_QUIET_MS). */
void sm_light_on_trap(struct sm *sm, const struct mad_addr *from, const struct smp *req);
/* Our SMInfo as we answer it (sm_key as given). */
void sm_sminfo_fill(struct sm *sm, uint64_t sm_key, struct smp_sm_info *out);
/* Answer an SMInfo request (Get or Set) with our SMInfo, SM_Key sm_key. */
void sm_reply_sminfo(struct sm *sm, const struct mad_addr *from, const struct smp *req,
		     uint64_t sm_key);

/* ha.c: the SM state machine's MADs.  ha_check_start runs after
 * discovery: SMInfo of every other IsSM port, then the decision; `then`
 * runs when we are (or stay) master, else the sweep ends in STANDBY. */
void ha_check_start(struct sm *sm, sm_phase_fn then);
/* Master: SMInfo of every other SM the last heavy sweep found (a light
 * sweep's work); a change or silence calls sm_light_changed. */
void ha_light_poll(struct sm *sm);
/* The running light sweep found a change (why): a heavy sweep follows. */
void sm_light_changed(struct sm *sm, const char *why);
/* The held traps' sweep (SM_TRAP_HOLD_MS after the first) when due; else
 * its time into *next when earlier (sm_tick). */
void sm_light_hold_tick(struct sm *sm, uint64_t now, uint64_t *next);
/* Standby: one SMInfo poll of the master (a light sweep's work). */
int ha_poll(struct sm *sm);
/* SMInfo Set (HANDOVER, ACKNOWLEDGE, ...) and Get from another SM. */
void ha_on_set(struct sm *sm, const struct mad_addr *from, const struct smp *req);
void ha_on_get(struct sm *sm, const struct smp *req);

/* discover.c: the heavy sweep's discovery (the walk is routing/dr_walk.c's,
 * sent through sm_submit_paced); `then` runs once every Get has completed
 * and what stayed silent was filled in from the last sweep. */
void discover_start(struct sm *sm, sm_phase_fn then);
/* configure.c */
int configure_lids(struct sm *sm);
void configure_ports(struct sm *sm, sm_phase_fn then);
void configure_states(struct sm *sm, uint8_t from_state, uint8_t to_state, sm_phase_fn then);
/* Free what configure.c keeps in sm (the M_Key port sets). */
void configure_fini(struct sm *sm);
/* Ask CA port guid to reregister (ClientReregister in its PortInfo Set)
 * from the next heavy sweep on, until one such Set is answered.  1 when
 * it was not asked yet, 0 when it was (or no memory). */
int configure_rereg_ask(struct sm *sm, uint64_t port_guid);
/* mcast_policy.c: the policy's IPoIB groups.  apply: mcast_db_set_partitions
 * that logs each group whose MTU or rate changed and asks its members to
 * reregister (configure_rereg_ask).  fit_check (after sa_update): warn
 * (NSM-W440) of ports of a group's partition that cannot carry it, when
 * that list changed since it was last said. */
int mcast_policy_apply(struct sm *sm, const struct policy_partition *parts, size_t n);
void mcast_policy_fit_check(struct sm *sm);
/* lid_static.c: after the sweep's LID assignment (reqs as configure.c
 * made them), log each static LID a reload moved and forget them; returns
 * how many (LIDs that changed: guid2lid is saved). */
size_t lid_static_sweep(struct sm *sm, const struct lid_req *reqs, size_t n);
void lid_static_fini(struct sm *sm);
/* lft_push.c */
int lft_push_compute(struct sm *sm);
void lft_push_start(struct sm *sm, sm_phase_fn then);
void lft_cache_fini(struct lft_cache *c);
/* The sweep commits lfts as lfts_cur: what they were routed from goes
 * with them.  lft_routed_fini frees one record. */
void lft_routed_commit(struct sm *sm);
void lft_routed_fini(struct lft_routed *r);
/* lft_reuse.c, for lft_push_compute: the running sweep's routing key
 * (malloc'ed, NULL: no memory), the engine whose tables lfts_cur holds
 * when that key is theirs (lfts then a copy of them; else NULL), and the
 * record of what lfts were routed from (takes key). */
uint8_t *lft_routed_key(const struct sm *sm, size_t *len);
const char *lft_routed_reuse(struct sm *sm, const uint8_t *key, size_t len);
void lft_routed_keep(struct sm *sm, uint8_t *key, size_t len, const char *engine, int reused);
/* Drop a push's stepped writes that never finished (sm_free). */
void lft_steps_free(struct sm *sm);
/* Route the last good fabric with engines/roots and run the gate, pushing
 * nothing: 0 (why = the engine that won; keep, if given and initialised,
 * receives the tables) or -EINVAL (why = the reason); -EAGAIN with keep
 * when nothing was swept yet.  story (may be NULL) gets the engines passed
 * over before the winner and why, names next to the GUIDs ("" when the
 * first won). */
/* Switch-to-switch hops from switch sw to the switch that delivers dlid
 * along the tables s over f (0: sw delivers or drops it). */
unsigned lft_push_dist_in(const struct fabric *f, const struct lft_set *s, int sw, unsigned dlid);
/* How many Sets the push sends for one block of switch sw whose entries go
 * from old to want: one per loop-free step its changed entries fall in (1
 * past the push's cap of stepped blocks, *planned counting them). */
unsigned lft_push_block_writes(const struct fabric *f, const struct lft_set *s, int sw,
			       unsigned block, const uint8_t *old, const uint8_t *want,
			       size_t *planned);
int lft_push_dry_run(struct sm *sm, const char *engines, const uint64_t *roots, size_t n_roots,
		     struct lft_set *keep, char *why, size_t whylen, char *story, size_t storylen);

/* perfmgr.c: a PerfMgt (class 0x04) MAD arrived; expire, retry and start
 * passes (the next deadline, 0 = none); free what the manager holds. */
void perfmgr_recv(struct sm *sm, const struct mad_addr *from, const uint8_t *mad, size_t len);
uint64_t perfmgr_tick(struct sm *sm);
void perfmgr_free(struct sm *sm);

#endif
